pd2bw-plan capacity model.yaml --tokens 2X --gpu H100-SXM
