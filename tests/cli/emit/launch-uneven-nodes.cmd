cp $TOP/tests/data/plan/tiny-*.yaml . && pd2bw-plan tiny-profile.yaml -c tiny-cluster.yaml -B 6 --reserve 0.5 --max-gpus 6 -q --emit launch --emit-output l.sh; echo rc $?; ls
