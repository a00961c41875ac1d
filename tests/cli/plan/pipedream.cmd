cd $TOP/tests/data/pipedream && pd2bw-plan diamond.txt -c dgx-a100:1 -B 16
