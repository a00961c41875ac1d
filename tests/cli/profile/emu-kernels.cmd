pd2bw-profile-emu -b cuda -q -m 1 -w 1 -r 2 --kernels k.yaml $TOP/tests/data/profile/tiny.yaml -o p.yaml && sed -E 's/total_us: [0-9.e+-]+/total_us: N/' k.yaml
