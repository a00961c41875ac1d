pd2bw-plan $TOP/models/llama2-7b.yaml -c dgx-a100:1 -B 64 --runtime torchtitan --offload on
