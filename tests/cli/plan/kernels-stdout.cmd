# --kernels - writes the list to standard output in place of the summary (as -o - does)
pd2bw-plan $TOP/tests/data/profile/tiny.yaml -c dgx-h100:1 -B 8 -e --width 2 --depth 2 --tp 2 --microbatch 1 -s flush -r selective --sequence-parallel on --kernels - 2>/dev/null | head -4
