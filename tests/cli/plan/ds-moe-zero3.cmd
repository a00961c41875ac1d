pd2bw-plan $TOP/models/mixtral-8x7b.yaml -c dgx-h100:4 -B 256 --runtime deepspeed --expert-parallel 8 --depth 1 --zero 3
