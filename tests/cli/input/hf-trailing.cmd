cd $TOP && pd2bw-plan tests/data/hostile/hf-trailing.json -c dgx-a100:1 -B 64 -q
