pd2bw-profile -b cpu -p bf16 $TOP/tests/data/profile/tiny.yaml
