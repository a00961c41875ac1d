pd2bw-profile -g H200 --attention sdpa $TOP/tests/data/profile/tiny.yaml
