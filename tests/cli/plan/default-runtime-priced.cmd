# Without --runtime each schedule's candidates are priced as the runtime
# that runs them does (pd2bw-plan(1), --runtime): the plan equals the same
# configuration evaluated with that runtime named, and --from-plan
# re-evaluates it (no "the inputs no longer give the plan's prediction").
for c in "gpt-1.3b none" "gpt-1.3b flush" "gpt-1.3b 2bw" "gpt-1.3b gpipe" "llama3-8b none" "llama3-8b 2bw"; do set -- $c; M=$TOP/models/$1.yaml; pd2bw-plan $M -c dgx-a100:1 -B 64 -s $2 -o p.yaml >out 2>err; e=$(sed -n 's/^pd2bw-plan: next: \(-e .*\) predicts one configuration.*/\1/p' err); r=$(sed -n 's/^  runtime: \([a-z0-9-]*\).*/\1/p' p.yaml); case "$e" in *--runtime*) ;; *) e="$e --runtime $r";; esac; printf '%s -s %s: %s, fusions %s\n' $1 $2 $r "$(sed -n 's/^  fusions: //p' p.yaml)"; grep "^predicted" out; pd2bw-plan $M -c dgx-a100:1 -B 64 $e 2>/dev/null | grep "^predicted"; pd2bw-plan --from-plan p.yaml --emit launch --emit-output m.sh 2>&1; echo "rc $?"; rm -f p.yaml m.sh; done
