pd2bw-plan $TOP/models/gpt-1.3b.yaml -c dgx-a100:1 -B 64 --gpu "$(printf 'H100\nrm -rf x\033[2J')"
