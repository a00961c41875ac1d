pd2bw-plan $TOP/models/gpt-1.3b.yaml -c dgx-a100:1 -B 64 --tp 3
