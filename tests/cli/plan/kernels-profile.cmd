# --kernels lists a model's estimate: a measured profile is refused before the search, and nothing is written
cp $TOP/tests/data/plan/tiny-profile.yaml p.yaml && pd2bw-plan p.yaml -c dgx-a100:1 -B 16 --kernels k.yaml; echo "exit $?"; ls k.yaml 2>&1 | sed 's/.*: //'
