pd2bw-plan $TOP/models/llama3-70b.yaml -c dgx-h100:2 -B 64 --runtime torchtitan --recompute-every 2 -q
