# The memory figures given (--grad-bytes, --context-memory, --fragmentation)
# are kept in the plan: --from-plan re-evaluates it (no warning).
pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-h100:2 -B 256 --runtime megatron-core --grad-bytes 4 --context-memory 2 --fragmentation 0.1 -q -o p.yaml && grep -E "^  (grad_bytes|context_memory_gib|fragmentation):" p.yaml && pd2bw-plan --from-plan p.yaml --emit megatron --emit-output m.sh; echo "rc $?"
