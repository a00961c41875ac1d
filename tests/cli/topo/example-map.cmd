ln -s "$TOP/tests/data/topo/nvswitch16.xml" dgx2.xml && pd2bw-topo -i dgx2.xml --net-gbit 100 -N 4 -o dgx2x4.yaml && cat dgx2x4.yaml
