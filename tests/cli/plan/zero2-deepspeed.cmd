pd2bw-plan $TOP/models/llama2-7b.yaml -c dgx-h100:2 -B 32 -e --width 16 --depth 1 --microbatch 2 --microbatches 2 -s none -r none --runtime deepspeed --zero 2
