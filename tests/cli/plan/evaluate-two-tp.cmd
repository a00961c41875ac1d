pd2bw-plan $TOP/models/gpt-1.3b.yaml -c dgx-a100:1 -B 64 -e --width 1 --depth 2 --microbatch 1 -s flush -r none --tp 2,4
