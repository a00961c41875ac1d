pd2bw-profile-emu -b cuda -q -d 1 -m 1 $TOP/tests/data/profile/tiny.yaml -o p.yaml; echo "exit $?"; test -e p.yaml || echo 'no profile written'
