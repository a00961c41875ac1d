pd2bw-profile --frobnicate $TOP/models/gpt-1.3b.yaml
