cp $TOP/tests/data/plan/tiny-*.yaml . && pd2bw-plan capacity tiny-profile.yaml --tokens 1e9 --gpu TEST-GPU:tiny-cluster.yaml --max-nodes 4 --batch 8 --reserve 0.5 --price 2 --deadline 0.4
