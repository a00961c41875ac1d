pd2bw-plan $TOP/tests/data/hf/qwen3-30b-a3b.json -c dgx-h100:2 -B 512 -q -o - | sed -n "/^config:/,/^prediction:/p"
