pd2bw-plan $TOP/models/gpt-3.8b.yaml -c dgx-a100:2 -B 512 -s flush -q -o plan.yaml && sed 's/^  depth: .*/  depth: two/' plan.yaml > bad.yaml && pd2bw-plan --emit megatron --from-plan bad.yaml
