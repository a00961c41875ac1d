cp $TOP/tests/data/plan/tiny-*.yaml . && pd2bw-plan capacity tiny-profile.yaml --tokens 1e9 -g TEST-GPU:tiny-cluster.yaml --nodes 1,2,4 -B 8 --reserve 0.5 -f csv
