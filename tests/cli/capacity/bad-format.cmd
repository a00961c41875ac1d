pd2bw-plan capacity model.yaml --tokens 1T --gpu H100-SXM --format xml
