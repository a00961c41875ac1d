PD2BW_EMU_DRY=1 PD2BW_EMU_MEM=150000000000 pd2bw-profile-emu -b cuda -q --no-check --step -m 8 -w 0 -r 1 $TOP/models/gpt2-xl.yaml -o p.yaml 2>&1 | grep peak
