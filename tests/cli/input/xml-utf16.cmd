cd $TOP && pd2bw-topo -i tests/data/hostile/pcie4-utf16.xml -m
