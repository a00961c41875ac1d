pd2bw-plan $TOP/models/llama2-7b.yaml -c dgx-a100:1 -B 64 --microbatches 1,2,4 -s none -r none --runtime megatron-core --tp 1,2 --offload both --zero 0,1 --top 6
