printf 'format: pd2bw-node/1\ngpu_mem_bytes: 0\nnuma_nodes: 1\nnvswitches: 0\nlinks_from: pcie\ngpus: []\nnics: []\nbandwidth_gb_s: []\npaths: []\ncolour: red\n' > n.yaml && pd2bw-topo -i n.yaml -m
