pd2bw-topo -V
