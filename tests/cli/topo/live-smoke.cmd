ASAN_OPTIONS=detect_leaks=0 pd2bw-topo -n n.yaml -x x.xml && ASAN_OPTIONS=detect_leaks=0 pd2bw-topo -i n.yaml -m > m.txt && head -1 n.yaml && grep -c '^Legend' m.txt && head -1 x.xml
