# Megatron-Core fuses the rotary embedding for plain rotary positions
# only (megatron/training/arguments.py:1628-1629 at d98e8a6): gpt-oss's
# YaRN runs unfused, and the plan says so; --fusions still rules.
for a in "gpt-oss-120b.yaml --runtime megatron-core" "gpt-oss-120b.yaml --runtime megatron-core --fusions all" "llama3-8b.yaml --runtime megatron-core"; do
	pd2bw-plan $TOP/models/$a -c dgx-h100:8 -B 512 -q -o - | grep '^ *fusions:'
done
