cp $TOP/models/mixtral-8x7b.yaml . && pd2bw-plan capacity mixtral-8x7b.yaml --tokens 1T --gpu H100-SXM --nodes 1,2,4,8 --zero all
