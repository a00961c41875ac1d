cp $TOP/tests/data/plan/tiny-*.yaml . && pd2bw-plan tiny-profile.yaml -c tiny-cluster.yaml -B 8 --reserve 0.5 -q -e --width 2 --depth 4 --microbatch 1 -s 2bw -r none --emit megatron
