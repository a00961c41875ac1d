ln -s "$TOP/tests/data/topo" d && pd2bw-topo -i d/bad.xml
