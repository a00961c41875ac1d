pd2bw-topo -i $TOP/tests/data/topo/mesh8.xml --sysfs $TOP/tests/data/topo/sysfs-mesh8 -n a.yaml && cp a.yaml b.yaml && pd2bw-topo merge a.yaml b.yaml --name two
