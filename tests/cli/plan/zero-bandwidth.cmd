cp $TOP/tests/data/plan/tiny-*.yaml . && sed 's/bandwidth_gb_s: 100/bandwidth_gb_s: 0/' tiny-cluster.yaml > c.yaml && pd2bw-plan tiny-profile.yaml -c c.yaml -B 8
