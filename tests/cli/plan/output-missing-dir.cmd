cp $TOP/tests/data/plan/tiny-*.yaml . && pd2bw-plan tiny-profile.yaml -c tiny-cluster.yaml -B 8 -o no/such/dir/plan.yaml -q; echo "rc=$?"; ls
