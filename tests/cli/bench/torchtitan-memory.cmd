# Peak memory against torchtitan's own benchmark of Llama 3.1 8B under
# FSDP (pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md at
# b5bcd76c6, Tables 1 and 3, the runs without torch.compile or Float8:
# local batch 2, sequence 8192, selective (per-op) activation
# checkpointing; "Memory(GiB)" 82.4 on 8 GPUs and 67.0 on 128, the most
# any GPU reserved).  Per-op recomputation and PyTorch's loss, whose
# backward holds two fp32 copies of the logits' gradient, are what bring
# the prediction there (all activations kept would be 122 GiB).  Within
# 5%, or the case fails.
for r in "1 82.4" "16 67.0"; do set -- $r; pd2bw-plan $TOP/models/llama3-8b.yaml --gpu H100-96GB-500W -c dgx-h100:$1 -B $((16 * $1)) -e --width $((8 * $1)) --depth 1 --microbatch 2 --microbatches 2 -s none -r selective --zero 3 --runtime torchtitan --seq-len 8192 -q -o p$1.yaml 2>/dev/null || exit 1; awk -v g=$(($1 * 8)) -v m=$2 '/^  peak_memory_bytes:/ { p = $2 / 1073741824; e = (p - m) / m * 100; printf "%4d GPUs: predicted %.2f GiB, measured %.1f GiB, %+.1f%%\n", g, p, m, e; if (e > 5 || e < -5) { print "FAIL: over 5%"; exit 1 } }' p$1.yaml || exit 1; done
