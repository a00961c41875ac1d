pd2bw-plan $TOP/models/llama3-70b.yaml -c dgx-h100:8 -B 1024 --top 5
