pd2bw-profile -b cpu -r 0 $TOP/tests/data/profile/tiny.yaml
