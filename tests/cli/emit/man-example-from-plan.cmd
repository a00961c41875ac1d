pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-h100:2 -B 256 -s flush --interleave 1,2,4 -q -o plan.yaml && pd2bw-plan --emit megatron --from-plan plan.yaml --emit-output m.sh && head -3 m.sh
