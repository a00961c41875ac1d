pd2bw-plan /dev/zero -c dgx-a100:1 -B 64 -q; echo "exit $?"; pd2bw-topo -i /dev/zero; echo "exit $?"; pd2bw-profile /dev/zero
