pd2bw-plan capacity model.yaml --gpu H100-SXM
