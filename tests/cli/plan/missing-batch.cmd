cp $TOP/tests/data/plan/tiny-*.yaml . && pd2bw-plan tiny-profile.yaml -c tiny-cluster.yaml
