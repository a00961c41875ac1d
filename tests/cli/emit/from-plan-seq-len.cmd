# --seq-len is kept in the plan (config: seq_len): --from-plan re-evaluates
# the plan at it and emits it, the Megatron-Bridge dataset's too.
pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-h100:2 -B 256 --runtime megatron-core --seq-len 4096 -q -o p.yaml && grep "seq_len" p.yaml && pd2bw-plan --from-plan p.yaml --emit megatron --emit-output m.sh --emit megatron-bridge --emit-output b.yaml; echo "rc $?"; grep -h -e "--seq-length" m.sh; sed -n '/^dataset:/,/^[a-z]/p' b.yaml; grep "^  seq_length" b.yaml
