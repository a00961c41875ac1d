pd2bw-topo -N zero
