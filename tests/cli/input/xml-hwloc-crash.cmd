cd $TOP && for f in root-no-complete-nodeset numa-no-complete-nodeset root-no-complete-cpuset hwloc-crash-attr; do pd2bw-topo -i tests/data/hostile/xml-$f.xml -m; echo "exit $?"; done
