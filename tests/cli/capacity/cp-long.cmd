pd2bw-plan capacity $TOP/models/llama3-8b.yaml --tokens 100B --gpu H100-SXM --seq-len 131072 --context-parallel 1,2,4,8 --nodes 1,2,4,8 -B 32 -f csv
