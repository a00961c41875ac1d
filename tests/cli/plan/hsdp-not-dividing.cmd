pd2bw-plan $TOP/models/llama2-7b.yaml -c dgx-a100:2 -B 48 --microbatches 1,2 -s none -r none --runtime torchtitan --zero 3 --shard-group 5 --stats -q 2>&1 | grep -v "searched .* configurations"
