pd2bw-profile -x $TOP/models/gpt-1.3b.yaml
