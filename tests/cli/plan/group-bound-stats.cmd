pd2bw-plan $TOP/models/gpt-1.3b.yaml -c dgx-h100:16 -B 512 -r none,selective,full --interleave 1,2 --stats -q -o /dev/null 2>&1 | grep "bounded away"
