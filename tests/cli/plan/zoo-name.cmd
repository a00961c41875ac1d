cd $TOP && pd2bw-plan gpt-1.3b -c dgx-a100:1 -B 64 -q -o - | sed -n 1,12p
