pd2bw-plan $TOP/models/llama2-7b.yaml -c dgx-a100:2 -B 64 -e --width 4 --depth 4 --microbatch 1 --microbatches 1 -s flush -r full --runtime deepspeed --zero 3
