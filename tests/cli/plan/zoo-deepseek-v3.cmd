cd $TOP && pd2bw-plan deepseek-v3 -c dgx-h100:32 -B 1024 -q -o - | sed -n "/^config:/,/^prediction:/p"
