pd2bw-topo --bogus
