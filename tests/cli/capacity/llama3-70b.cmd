cp $TOP/models/llama3-70b.yaml . && pd2bw-plan capacity llama3-70b.yaml --tokens 15T --gpu H100-SXM --gpu H200 --price H100-SXM:2.5 --price H200:3.5 --nodes 1,2,4,16,64 --deadline 365
