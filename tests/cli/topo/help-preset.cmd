pd2bw-topo preset --help
