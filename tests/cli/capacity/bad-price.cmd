pd2bw-plan capacity model.yaml --tokens 1T --gpu H100-SXM --price H200:3
