pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-h100:1 -B 64 -e --width 2 --depth 4 --microbatch 1 -s flush --recompute-every 2 -q
