PD2BW_EMU_MEM=34000000 pd2bw-profile-emu -b cuda -q -m 1,2,4,8 -w 1 -r 2 $TOP/tests/data/profile/tiny.yaml -o p.yaml; echo "exit $?"; grep microbatches p.yaml
