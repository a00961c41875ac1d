pd2bw-topo -i $TOP/tests/data/topo/mesh8.xml --sysfs $TOP/tests/data/topo/sysfs-mesh8 -x -
