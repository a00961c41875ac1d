pd2bw-topo -i $TOP/tests/data/topo/mesh8.xml -n a.yaml && pd2bw-topo merge a.yaml a.yaml; pd2bw-topo merge --net-gbit 200 a.yaml a.yaml | grep -A1 network
