cp $TOP/tests/data/plan/tiny-profile.yaml . && pd2bw-plan tiny-profile.yaml -c dgx-a100:1 -B 64 --context-parallel 2 -q
