cd $TOP && pd2bw-plan tests/data/hostile/hf-utf16le.json -c dgx-a100:1 -B 64 -q
