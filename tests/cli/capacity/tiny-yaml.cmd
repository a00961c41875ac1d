cp $TOP/tests/data/plan/tiny-*.yaml . && pd2bw-plan capacity tiny-profile.yaml -t 1e9 -g TEST-GPU:tiny-cluster.yaml --nodes 1,2,4 -B 8 --reserve 0.5 -p 2 -d 0.4 -o report.yaml -q && cat report.yaml
