pd2bw-profile -b cpu -m 1 $TOP/models/mixtral-8x7b.yaml -o out.yaml
