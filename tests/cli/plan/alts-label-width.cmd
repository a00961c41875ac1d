# the alternatives table widens its schedule column to the longest label (flush/v4/e8+z) and explains /e8
pd2bw-plan $TOP/models/qwen3-30b-a3b.yaml -c dgx-h100:2 -B 512 2>/dev/null | sed -n "/^  #  schedule/,\$p"
