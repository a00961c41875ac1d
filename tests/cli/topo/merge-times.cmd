pd2bw-topo -i $TOP/tests/data/topo/nvswitch16.xml --sysfs $TOP/tests/data/topo/sysfs-mesh8 -n a.yaml && pd2bw-topo merge -N 64 --nodes-per-leaf 16 --oversubscription 4 a.yaml
