# --kernels belongs to planning, not to --from-plan's emission
pd2bw-plan --from-plan p.yaml --emit megatron --kernels k.yaml; echo "exit $?"
