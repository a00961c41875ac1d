pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-h100:2 -B 32 -e --width 2 --depth 2 --tp 2 --context-parallel 2 --microbatch 1 -s flush -r none --sequence-parallel on --runtime deepspeed
