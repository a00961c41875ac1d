pd2bw-topo -i $TOP/tests/data/topo/pcie4.xml -n a.yaml && sed 's/^- \[X, PIX, NODE/- [X, PIQ, NODE/' a.yaml > b.yaml && pd2bw-topo -i b.yaml -m
