pd2bw-topo -i $TOP/tests/data/topo/mesh8.xml --sysfs $TOP/tests/data/topo/sysfs-mesh8 -x mesh8-nccl.xml && python3 $TOP/tests/topo/nccl_paths.py mesh8-nccl.xml
