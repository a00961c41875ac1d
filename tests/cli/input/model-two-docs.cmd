cd $TOP && pd2bw-plan tests/data/hostile/model-two-docs.yaml -c dgx-a100:1 -B 64 -q
