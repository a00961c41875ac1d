sed 's/bandwidth_gb_s: 100/bandwidth_gb_s: 0/' $TOP/tests/data/plan/tiny-cluster.yaml > c.yaml && pd2bw-plan $TOP/tests/data/plan/tiny-profile.yaml -c c.yaml -B 8
