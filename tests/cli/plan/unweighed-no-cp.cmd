# A plan that memory binds, for a model whose sequence cannot split over
# context-parallel ranks (GPT-OSS: sliding-window layers, which
# Transformer Engine's K/V ring does not run): the hint names ZeRO and
# offload, not --context-parallel (llama3-70b-dgx-h100x8.err names it).
pd2bw-plan $TOP/models/gpt-oss-120b.yaml -c dgx-h100:4 -B 64 2>&1 >/dev/null | grep -E "did not weigh"
