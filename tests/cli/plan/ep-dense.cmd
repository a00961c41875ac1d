pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-h100:2 -B 256 -e --width 8 --depth 2 --tp 1 --expert-parallel 2 --microbatch 1 -s flush -r full --runtime megatron-core
