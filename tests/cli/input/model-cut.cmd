cd $TOP && pd2bw-plan tests/data/hostile/model-cut.yaml -c dgx-a100:1 -B 64 -q; pd2bw-profile tests/data/hostile/model-cut.yaml
