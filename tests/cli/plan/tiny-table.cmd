cp $TOP/tests/data/plan/tiny-*.yaml . && pd2bw-plan tiny-profile.yaml --cluster tiny-cluster.yaml --batch 8 --reserve 0.5
