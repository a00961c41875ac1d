pd2bw-topo -i $TOP/tests/data/topo/nvswitch16.xml -m && pd2bw-topo -i $TOP/tests/data/topo/nvswitch16.xml --net-gbit 100 -N 2
