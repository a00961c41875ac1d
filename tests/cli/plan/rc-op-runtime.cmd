# What selective recomputation means follows the runtime: torchtitan's
# per-op policy is refused elsewhere, and torchtitan runs no module list.
pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-h100:1 -B 16 --recompute-modules op -q; echo "rc $?"
pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-h100:1 -B 16 --recompute-modules op --runtime megatron-core -q; echo "rc $?"
pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-h100:1 -B 16 --recompute-modules core_attn --runtime torchtitan -q; echo "rc $?"
pd2bw-plan $TOP/models/llama3-8b.yaml -c dgx-h100:1 -B 16 --recompute-modules op,mlp --runtime torchtitan -q; echo "rc $?"
