{ CUDA_VISIBLE_DEVICES= pd2bw-profile --backend cuda $TOP/tests/data/profile/tiny.yaml -o p.yaml; echo "exit $?"; } 2>&1 | cut -d: -f1-2; test -e p.yaml || echo "no profile written"
