pd2bw-profile-emu -b cuda -q -m 1 -w 1 -r 3 -p fp16 $TOP/tests/data/profile/tiny-llama.yaml -o p.yaml && sed -E 's/(fwd_ms|bwd_ms): [0-9.e+-]+/\1: N/g; s/[0-9]+\.[0-9]+(e-?[0-9]+)?/N/g' p.yaml
