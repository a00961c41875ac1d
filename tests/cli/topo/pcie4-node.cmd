pd2bw-topo -i $TOP/tests/data/topo/pcie4.xml --sysfs $TOP/tests/data/topo/sysfs-pcie4 -n -
