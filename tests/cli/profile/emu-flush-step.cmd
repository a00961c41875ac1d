pd2bw-profile-emu -b cuda -q --flush-l2 --step -m 1 -w 0 -r 2 $TOP/tests/data/profile/tiny.yaml -o p.yaml 2>&1 | sed -E 's/[-+]?[0-9]+\.[0-9]+/N/g'; grep microbatches p.yaml
