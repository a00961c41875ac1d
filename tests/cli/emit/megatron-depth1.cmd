cp $TOP/tests/data/plan/tiny-*.yaml . && pd2bw-plan tiny-profile.yaml -c tiny-cluster.yaml -B 8 --reserve 0.5 -q -e --width 8 --depth 1 --microbatch 1 -s none -r none --emit megatron
