pd2bw-topo -i $TOP/tests/data/topo/unknown2.xml; pd2bw-topo -i $TOP/tests/data/topo/unknown2.xml -g V100-16GB
