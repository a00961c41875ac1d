pd2bw-topo -i $TOP/tests/data/topo/mesh8.xml --sysfs $TOP/tests/data/topo/sysfs-mesh8 -N 4 --nodes-per-leaf 2 --oversubscription 2 --name dgx1like
