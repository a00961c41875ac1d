pd2bw-plan $TOP/tests/data/plan/tiny-profile.yaml -c no-such-preset -B 8
