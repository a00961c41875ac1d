pd2bw-plan $TOP/models/llama2-7b.yaml -c gb200-nvl72:1 -B 72 -e --width 72 --depth 1 --microbatch 1 --microbatches 1 -s none -r none --runtime megatron-core --tp 1 --offload on --zero 1
