for p in pd2bw-plan "pd2bw-plan capacity" pd2bw-profile pd2bw-topo; do for a in --bogus=1 -qZ -o; do $p $a 2>&1; echo "exit $?"; done; done
