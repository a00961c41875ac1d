pd2bw-topo -i nothere.xml
