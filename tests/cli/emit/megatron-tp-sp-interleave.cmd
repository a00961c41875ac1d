pd2bw-plan $TOP/models/gpt3-175b.yaml -c dgx-a100:8 -B 64 -s flush -r selective,full --interleave 1,3 -q --emit megatron
