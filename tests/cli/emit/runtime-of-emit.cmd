# A search whose plan is emitted searches only what the emitted runtime
# runs: qwen3 under torchtitan v0.2.2 has no pipeline (models/qwen3/
# __init__.py:199), DeepSpeed no sequence parallelism, Megatron no 2bw.
pd2bw-plan $TOP/models/qwen3-30b-a3b.yaml -c dgx-h100:8 -B 1024 -q -o q.yaml --emit torchtitan --emit-output q.toml; echo "qwen3 torchtitan rc $?"; grep -E "^  (runtime|depth|schedule):" q.yaml; python3 $TOP/tests/emit/check.py one torchtitan q.yaml q.toml
pd2bw-plan $TOP/models/qwen3-30b-a3b.yaml -c dgx-h100:8 -B 1024 -q -o m.yaml --emit megatron --emit-output m.sh; echo "qwen3 megatron rc $?"; grep -E "^  (runtime|schedule):" m.yaml; python3 $TOP/tests/emit/check.py one megatron m.yaml m.sh
pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-h100:8 -B 1024 -q -o d.yaml --emit deepspeed --emit-output d.json; echo "llama3 deepspeed rc $?"; grep -E "^  (runtime|sequence_parallel):" d.yaml; python3 $TOP/tests/emit/check.py one deepspeed d.yaml d.json
pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-h100:8 -B 1024 --runtime deepspeed -q -o r.yaml; echo "--runtime deepspeed rc $?"; grep -E "^  sequence_parallel:" r.yaml
pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-h100:1 -B 64 --runtime deepspeed --sequence-parallel on -q; echo "sp on rc $?"
pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-h100:1 -B 64 -s 2bw --emit megatron -q; echo "2bw rc $?"
pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-h100:1 -B 64 --emit megatron --emit-output a.sh --emit deepspeed --emit-output b.json -q; echo "two runtimes rc $?"; ls
pd2bw-plan $TOP/models/qwen3-30b-a3b.yaml -c dgx-h100:8 -B 1024 -o q2.yaml --emit torchtitan --emit-output q2.toml 2>&1 >/dev/null | grep -e "--emit torchtitan"; cmp q.yaml q2.yaml && echo "the same plan"
