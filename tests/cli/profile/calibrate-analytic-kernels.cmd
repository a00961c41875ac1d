# --calibrate fits measured kernels: the estimate's own list is refused, naming the file, line and column of its source
pd2bw-profile -b analytic -g H100-SXM -m 1 --kernels k.yaml $TOP/tests/data/profile/tiny.yaml -o a.yaml && pd2bw-profile --calibrate a.yaml --kernels k.yaml -g H100-SXM $TOP/tests/data/profile/tiny.yaml; echo "exit $?"
