cd $TOP/tests/data/pipedream && pd2bw-plan resnext101.txt -c p3.16xlarge:2 -B 1024
