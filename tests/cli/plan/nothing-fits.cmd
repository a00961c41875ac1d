pd2bw-plan $TOP/tests/data/plan/tiny-profile.yaml -c $TOP/tests/data/plan/tiny-cluster.yaml -B 8 --reserve 3.9
