# Megatron-Core fuses the rotary embedding for plain rotary positions
# only (megatron/training/arguments.py:1628-1629 at d98e8a6): gpt-oss's
# YaRN runs unfused, and the plan says so; --fusions still rules.
for a in "gpt-oss-120b.yaml --runtime megatron-core" "gpt-oss-120b.yaml --runtime megatron-core --fusions all" "llama3-8b.yaml --runtime megatron-core"; do
	pd2bw-plan $TOP/models/$a -c dgx-h100:8 -B 512 -q -o - | grep '^ *fusions:'
done
# and the launch names YaRN, which Megatron runs unfused
pd2bw-plan $TOP/models/gpt-oss-120b.yaml -c dgx-h100:8 -B 512 --runtime megatron-core -q -o p.yaml --emit megatron --emit-output m.sh && grep -e '--position-embedding-type' m.sh && python3 $TOP/tests/emit/check.py one megatron p.yaml m.sh
