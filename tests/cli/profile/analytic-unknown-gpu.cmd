pd2bw-profile -g NoSuchGPU $TOP/models/gpt-1.3b.yaml
