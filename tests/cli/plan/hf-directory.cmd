pd2bw-plan $TOP/tests/data/formats/hf-gpt2 -c dgx-a100:1 -B 64 -q -o - | sed -n "/^config:/,/^prediction:/p"
