pd2bw-plan $TOP/tests/data/formats/hf-qwen2.json -c dgx-h100:2 -B 256 --seq-len 4096 -q -o - | sed -n "/^config:/,/^prediction:/p"
