pd2bw-profile -g H100-SXM -m 4,2 $TOP/models/gpt-1.3b.yaml
