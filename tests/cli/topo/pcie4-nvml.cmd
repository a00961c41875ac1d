cc -shared -fPIC -o libfake.so $TOP/tests/data/topo/fake_nvml.c && pd2bw-topo -i $TOP/tests/data/topo/pcie4.xml --sysfs $TOP/tests/data/topo/sysfs-pcie4 --nvml ./libfake.so -m -o c.yaml && cat c.yaml
