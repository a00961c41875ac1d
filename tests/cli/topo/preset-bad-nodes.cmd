pd2bw-topo preset dgx-h100:abc
