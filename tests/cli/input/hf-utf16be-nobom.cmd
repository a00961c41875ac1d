cd $TOP && pd2bw-profile tests/data/hostile/hf-utf16be-nobom.json
