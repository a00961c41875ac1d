pd2bw-plan $TOP/tests/data/plan/tiny-profile.yaml --cluster $TOP/tests/data/plan/tiny-cluster.yaml --batch 8 --reserve 0.5
