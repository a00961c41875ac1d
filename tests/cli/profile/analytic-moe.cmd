pd2bw-profile -b analytic -g H100-SXM -m 1,2 $TOP/models/deepseek-v3.yaml
