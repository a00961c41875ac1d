pd2bw-profile -b tpu $TOP/tests/data/profile/tiny.yaml
