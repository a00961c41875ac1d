# the analytic estimate kernel by kernel (pd2bw-kernels/1, source analytic): each layer's forward, backward and selective recomputation
pd2bw-profile -b analytic -g H100-SXM -m 1,2 --kernels k.yaml $TOP/tests/data/profile/tiny.yaml -o p.yaml && cat k.yaml
