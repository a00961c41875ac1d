pd2bw-profile-emu -b cuda -q --step -m 1,2 -w 1 -r 3 $TOP/tests/data/profile/tiny.yaml -o p.yaml 2>&1 | sed -E 's/[-+]?[0-9]+\.[0-9]+/N/g'
