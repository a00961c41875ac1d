PD2BW_EMU_NO_DEVICE=1 pd2bw-profile-emu -b cuda -q -m 1 $TOP/tests/data/profile/tiny.yaml -o p.yaml; echo "exit $?"; test -e p.yaml || echo 'no profile written'
