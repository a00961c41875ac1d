pd2bw-profile -g H100-SXM $TOP/tests/data/profile/tiny.yaml --trace t.json; echo "rc $?"; ls
