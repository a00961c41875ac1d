cd $TOP && pd2bw-plan tests/data/hostile/hf-bom.json -c dgx-a100:1 -B 64 -q -o - | sed -n 1,4p
