cp $TOP/tests/data/plan/tiny-*.yaml . && pd2bw-plan tiny-profile.yaml -c tiny-cluster.yaml -B 8 --reserve 3.9
