pd2bw-plan $TOP/models/llama2-7b.yaml -c dgx-a100:1 -B 64 -e --width 8 --depth 1 --microbatch 1 --microbatches 1 -s none -r none --zero 1 --shard-group 4
