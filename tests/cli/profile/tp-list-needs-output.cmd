pd2bw-profile -g H100-SXM -t 1,2 $TOP/models/gpt-1.3b.yaml
