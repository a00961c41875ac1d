pd2bw-plan $TOP/models/gpt-2.2b.yaml -c p3.16xlarge:8 -B 64 -e --width 8 --depth 8 --microbatch 4 -s 2bw -r full -q
