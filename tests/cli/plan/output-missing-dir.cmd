pd2bw-plan $TOP/tests/data/plan/tiny-profile.yaml -c $TOP/tests/data/plan/tiny-cluster.yaml -B 8 -o no/such/dir/plan.yaml -q; echo "rc=$?"; ls
