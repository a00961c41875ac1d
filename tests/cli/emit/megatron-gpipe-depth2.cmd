cp $TOP/tests/data/plan/tiny-*.yaml . && pd2bw-plan tiny-profile.yaml -c tiny-cluster.yaml -B 8 --reserve 0.5 -q -e --width 4 --depth 2 --microbatch 1 -s gpipe -r selective --emit megatron
