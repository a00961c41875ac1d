ASAN_OPTIONS=detect_leaks=0 pd2bw-topo -m | grep -c "^Legend"
