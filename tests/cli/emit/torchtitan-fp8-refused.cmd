pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-h100:1 -B 64 --precision fp8 -s flush --tp 1 --emit torchtitan --emit-output t.toml -q; echo "rc $?"; ls
