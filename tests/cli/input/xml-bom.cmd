cd $TOP && pd2bw-topo -i tests/data/hostile/pcie4-bom.xml -m | head -3
