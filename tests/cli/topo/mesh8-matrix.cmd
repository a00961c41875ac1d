pd2bw-topo -i $TOP/tests/data/topo/mesh8.xml -m
