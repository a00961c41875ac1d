# The summary's "next: -e ..." line names the runtime the search priced, in
# a form that reads back exactly (an option on by default and turned off
# is written "no-"): running it predicts the same iteration.
pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-h100:2 -B 256 --runtime megatron-core:no-tp-comm-overlap -o p.yaml >s.txt 2>e.txt; echo "rc $?"; grep '^  runtime:' p.yaml; h=$(sed -n 's/^pd2bw-plan: next: \(-e .*\) predicts one configuration.*/\1/p' e.txt); echo "$h"; pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-h100:2 -B 256 $h >s2.txt 2>/dev/null; echo "rc $?"; grep -h '^predicted' s.txt s2.txt | uniq | wc -l
# a plan that recomputes per layer: -e takes one recomputation for all
pd2bw-plan $TOP/models/gpt-3.8b.yaml -c dgx-a100:1 -B 256 -s flush -r none,selective,full --runtime pipedream-2bw -o m.yaml 2>&1 >/dev/null | grep -e "next: -e"; grep '^  recompute:' m.yaml
