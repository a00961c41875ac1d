# The "next: -e ..." hint after a search, added to the command's model,
# cluster, batch and the options it carries (after the '|'), predicts the
# plan the search found, or says why not (per-layer recomputation, which
# -e cannot fix).
while IFS='|' read -r m cl s k; do pd2bw-plan $TOP/models/$m.yaml -c $cl -B 256 $s $k >out 2>err; k0=$k; e=$(sed -n 's/^pd2bw-plan: next: \(-e .*\) predicts one configuration.*/\1/p' err); case "$e" in *--runtime*) k=$(echo "$k" | sed 's/--runtime [^ ]*//');; esac; a=$(grep "^predicted" out); b=$(pd2bw-plan $TOP/models/$m.yaml -c $cl -B 256 $e $k 2>/dev/null | grep "^predicted"); if grep -q "the plan chooses per layer" err; then v=per-layer; elif [ -n "$a" ] && [ "$a" = "$b" ]; then v=same; else v="differ: $a / $b"; fi; echo "$m $cl $s $k0: $v"; done <<'CASES'
gpt-1.3b|dgx-a100:1||
gpt-1.3b|dgx-h100:8|-s 2bw|
gpt-1.3b|dgx-h100:2|-s gpipe|
gpt-1.3b|dgx-h100:2||--runtime deepspeed
llama3-8b|dgx-h100:2||
llama3-8b|dgx-h100:8|-s none|
llama3-8b|dgx-h100:4|--zero all|
llama3-8b|dgx-h100:4|--zero all|--runtime torchtitan
llama3-8b|gb200-nvl72:1|--context-parallel 1,2|--precision fp8
llama3-70b|dgx-h100:8|--depth 1 --tp 8|
mixtral-8x7b|dgx-h100:8||
mixtral-8x7b|dgx-h100:2||--runtime deepspeed
qwen3-30b-a3b|dgx-h100:2|--offload both|
qwen3-30b-a3b|dgx-h100:8||--runtime megatron-core:cuda-graphs
CASES
