pd2bw-profile -b analytic $TOP/models/gpt-1.3b.yaml
