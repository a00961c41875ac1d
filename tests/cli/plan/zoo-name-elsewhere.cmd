pd2bw-plan gpt-2.2b -c p3.16xlarge:1 -B 64 -q -o plan.yaml && grep -m1 'model:' plan.yaml; pd2bw-profile -g V100 gpt-2.2b | grep '^model:'
