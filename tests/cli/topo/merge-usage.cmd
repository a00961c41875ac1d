pd2bw-topo merge -N 2 a.yaml b.yaml
