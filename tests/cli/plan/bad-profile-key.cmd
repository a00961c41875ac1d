cp $TOP/tests/data/plan/tiny-*.yaml . && printf 'format: pd2bw-profile/1\nmodel: x\nlayrs: []\n' > p.yaml && pd2bw-plan p.yaml -c tiny-cluster.yaml -B 8
