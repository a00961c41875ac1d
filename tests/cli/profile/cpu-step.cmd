pd2bw-profile -b cpu --step -w 1 -r 3 -m 1 $TOP/tests/data/profile/tiny.yaml -o p.yaml 2>&1 | sed -E "s/[-+]?[0-9]+\.[0-9]+/N/g"
