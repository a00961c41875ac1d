# --kernels: the chosen plan's layers as the estimate prices them, at its tensor parallelism (2, sequence-parallel) and microbatch
pd2bw-plan $TOP/tests/data/profile/tiny.yaml -c dgx-h100:1 -B 8 -e --width 2 --depth 2 --tp 2 --microbatch 1 -s flush -r selective --sequence-parallel on --kernels k.yaml -q && cat k.yaml
