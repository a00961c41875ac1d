truncate -s 300M big.yaml && pd2bw-plan big.yaml -c dgx-a100:1 -B 64 -q; echo "exit $?"; pd2bw-plan $TOP/models/gpt-1.3b.yaml -c big.yaml -B 64 -q; echo "exit $?"; pd2bw-topo merge big.yaml
