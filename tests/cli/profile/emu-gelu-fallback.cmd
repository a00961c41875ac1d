PD2BW_EMU_NO_GELU_EPILOGUE=1 pd2bw-profile-emu -b cuda -q -v -m 1 -w 1 -r 2 $TOP/tests/data/profile/tiny.yaml -o p.yaml 2>&1 | grep -E 'GELU|act_out' | sed -E 's/[0-9]+\.[0-9]+e[-+][0-9]+/N/g'
