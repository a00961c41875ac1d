pd2bw-topo merge --help
