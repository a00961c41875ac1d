pd2bw-plan $TOP/tests/data/pipedream/diamond.txt -c dgx-a100:1 -B 16
