PD2BW_EMU_GEMM_SKEW=1.01 pd2bw-profile-emu -b cuda -q -p fp32 -m 1 $TOP/tests/data/profile/tiny.yaml -o p.yaml 2>&1 | tail -1; test -e p.yaml || echo 'no profile written'
