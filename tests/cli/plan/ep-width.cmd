pd2bw-plan $TOP/models/qwen3-30b-a3b.yaml -c dgx-h100:2 -B 256 -e --width 4 --depth 2 --tp 1 --expert-parallel 8 --microbatch 1 -s flush -r full --runtime megatron-core
