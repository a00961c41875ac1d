pd2bw-topo -i $TOP/tests/data/topo/nvswitch16.xml -x dgx2-nccl.xml && python3 $TOP/tests/topo/nccl_paths.py dgx2-nccl.xml
