pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-h100:1 -B 64 -r none,full --recompute-every 2 --runtime torchtitan -q
