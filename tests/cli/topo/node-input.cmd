pd2bw-topo -i $TOP/tests/data/topo/mesh8.xml -n a.yaml -m > m1 && pd2bw-topo -i a.yaml -m > m2 && cmp m1 m2 && pd2bw-topo -i a.yaml -n b.yaml && cmp a.yaml b.yaml && echo same
