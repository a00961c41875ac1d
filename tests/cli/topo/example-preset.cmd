pd2bw-topo preset dgx-h100:4 -o h100x4.yaml && cat h100x4.yaml
