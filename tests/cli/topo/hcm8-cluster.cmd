pd2bw-topo -i $TOP/tests/data/topo/hcm8.xml -N 2 --net-gbit 100 --name hcm
