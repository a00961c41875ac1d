pd2bw-topo --help
