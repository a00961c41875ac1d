pd2bw-topo preset dgx-h100:4 -o c.yaml && cat c.yaml
