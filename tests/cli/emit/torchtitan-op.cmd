# torchtitan's selective recomputation is its per-op policy (v0.2.2
# distributed/activation_checkpoint.py:52-137, 177-183): a plan priced
# with it records recompute_modules op and is emitted as selective "op";
# Megatron-Core, which recomputes by module, refuses the plan.
pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-h100:2 -B 32 -e --width 16 --depth 1 --microbatch 2 --microbatches 2 -s none -r selective --zero 3 --runtime torchtitan --seq-len 8192 -q -o p.yaml --emit torchtitan --emit-output t.toml; echo "rc $?"; grep -E "^  (recompute|recompute_modules|iteration_ms|peak_memory_bytes):" p.yaml; sed -n '/activation_checkpoint/,$p' t.toml; python3 $TOP/tests/emit/check.py one torchtitan p.yaml t.toml; pd2bw-plan --emit megatron --from-plan p.yaml --emit-output m.sh; echo "rc $?"; test -e m.sh || echo "m.sh not written"
