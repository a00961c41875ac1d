pd2bw-topo -i $TOP/tests/data/topo/pcie4.xml -x pcie4-nccl.xml && python3 $TOP/tests/topo/nccl_paths.py pcie4-nccl.xml
