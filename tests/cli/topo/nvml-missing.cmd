pd2bw-topo -i $TOP/tests/data/topo/pcie4.xml --nvml ./missing.so -n n.yaml && grep links_from n.yaml
