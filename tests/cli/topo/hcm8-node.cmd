pd2bw-topo -i $TOP/tests/data/topo/hcm8.xml -n -
