pd2bw-plan $TOP/models/qwen3-30b-a3b.yaml -c dgx-h100:8 -B 1024 --tp 1,2,4 --context-parallel 1,2,4,8 --expert-parallel 1,2,4,8 -q
