pd2bw-plan $TOP/models/gpt-2.2b.yaml -c p3.16xlarge:8 -B 512
