ln -s "$TOP/tests/data/topo" d && pd2bw-topo -i d/pcie4.xml --sysfs d/sysfs-badrate -m
