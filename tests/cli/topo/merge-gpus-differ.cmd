pd2bw-topo -i $TOP/tests/data/topo/mesh8.xml -n a.yaml && pd2bw-topo -i $TOP/tests/data/topo/pcie4.xml -n b.yaml && pd2bw-topo merge a.yaml b.yaml a.yaml
