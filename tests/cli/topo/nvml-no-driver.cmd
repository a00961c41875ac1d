cc -shared -fPIC -o libfake.so $TOP/tests/data/topo/fake_nvml.c && FAKE_NVML_FAIL=1 pd2bw-topo -i $TOP/tests/data/topo/pcie4.xml --nvml ./libfake.so -n n.yaml && grep links_from n.yaml
