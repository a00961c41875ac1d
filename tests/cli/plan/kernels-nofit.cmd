# --kernels, like -o, also lists an evaluated configuration that does not fit (exit status 3)
pd2bw-plan $TOP/tests/data/profile/tiny.yaml -c dgx-h100:1 -B 64 -e --width 1 --depth 1 --tp 1 --microbatch 64 -s flush -r none --reserve 79.9 --kernels k.yaml -q; echo "exit $?"; head -4 k.yaml
