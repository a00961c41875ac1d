cp $TOP/models/llama3-8b.yaml . && pd2bw-plan capacity llama3-8b.yaml --tokens 1T --gpu A100-40GB
