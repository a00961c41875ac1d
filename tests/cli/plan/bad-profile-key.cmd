printf 'format: pd2bw-profile/1\nmodel: x\nlayrs: []\n' > p.yaml && pd2bw-plan p.yaml -c $TOP/tests/data/plan/tiny-cluster.yaml -B 8
