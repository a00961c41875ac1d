pd2bw-topo -i $TOP/tests/data/topo/pcie4.xml -x nccl.xml -o missing/cluster.yaml; echo "exit $?"; ls
