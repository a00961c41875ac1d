pd2bw-plan $TOP/models/gpt3-175b.yaml -c dgx-a100:8 -B 64 -s flush -r full --interleave 1,3 --optimizer-sharding both --top 3 --stats 2>/dev/null | sed -n "3p;8p;/^  #/,\$p"
