pd2bw-plan $TOP/models/qwen3-30b-a3b.yaml -c dgx-h100:2 -B 256 -e --width 16 --depth 1 --microbatch 1 -s none -r none --tp 1 --expert-parallel 8 --zero 3 --runtime torchtitan
