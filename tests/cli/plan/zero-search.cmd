pd2bw-plan $TOP/models/llama2-7b.yaml -c dgx-a100:1 -B 64 --microbatches 1,2,4 -s none -r none,full --runtime torchtitan --zero all --top 6
