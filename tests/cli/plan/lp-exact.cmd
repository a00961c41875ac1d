# GLPK's per-layer recomputation decides the plan: 8x8 fits only by
# recomputing and ranks far out of the kept alternatives by its uniform
# recomputation, yet wins once GLPK recomputes some layers only; with
# more options (tensor parallelism) the search finds the same plan.
pd2bw-plan $TOP/models/gpt-3.8b.yaml -c p3.16xlarge:8 -B 2048; pd2bw-plan $TOP/models/gpt-3.8b.yaml -c p3.16xlarge:8 -B 2048 --tp 1 2>/dev/null | grep -E '^(chosen|predicted):'
