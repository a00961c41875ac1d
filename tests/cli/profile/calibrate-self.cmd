pd2bw-profile -g H100-SXM -m 1,2 $TOP/tests/data/profile/tiny.yaml -o a.yaml && pd2bw-profile --calibrate a.yaml -g H100-SXM $TOP/tests/data/profile/tiny.yaml
