pd2bw-plan $TOP/models/qwen3-30b-a3b.yaml -c dgx-h100:2 -B 384 -e --width 6 --depth 2 --tp 1 --expert-parallel 3 --microbatch 1 -s flush -r full --runtime megatron-core
