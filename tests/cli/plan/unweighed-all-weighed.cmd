# A plan that memory binds, searched over every memory saver torchtitan
# runs (ZeRO-2 and -3, selective and full recomputation, context
# parallelism; it has no activation offload): no "did not weigh" hint.  zero-search.err, the same
# search over -r none,full, names selective recomputation.
pd2bw-plan $TOP/models/llama2-7b.yaml -c dgx-a100:1 -B 64 --microbatches 1,2,4 -s none --runtime torchtitan --zero all --context-parallel 1,2 --top 3 | grep -E "^binding" | cut -c1-20
