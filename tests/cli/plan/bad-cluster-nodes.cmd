pd2bw-plan $TOP/models/gpt-1.3b.yaml -c dgx-h100:abc -B 64; echo "exit $?"; pd2bw-plan $TOP/models/gpt-1.3b.yaml -c dgx-h100:0 -B 64
