pd2bw-plan $TOP/tests/data/hf/mixtral-8x7b -c dgx-h100:2 -B 256 -q -o - | sed -n "/^config:/,/^prediction:/p"
