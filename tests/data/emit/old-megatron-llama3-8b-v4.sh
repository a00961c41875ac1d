# Megatron-LM arguments for the pd2bw plan of llama3-8b on 16 x H100-SXM
# (schedule flush, width 4, depth 2, microbatch 1, accumulation 64).
# Source this file, then run pretrain_gpt.py "$@" followed by the data,
# tokenizer, optimizer and training-length arguments; every line appends to "$@".

# Parallelism: WORLD_SIZE = 16 = 2 (tensor) x 2 (pipeline) x 4 (data).
# Megatron derives the data-parallel size from WORLD_SIZE and numbers ranks
# tensor-fastest, pipeline-major (stage s, replica r, tensor rank j:
# rank (s x 4 + r) x 2 + j); pd2bw-plan --emit launch starts them on the
# GPUs the plan chose.
set -- "$@" --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2
# Interleaved 1F1B: 2 virtual stages per GPU.
set -- "$@" --num-layers-per-virtual-pipeline-stage 8

# Batch: microbatch 1, global batch 256: 256 / (1 x 4) = 64 microbatches
# per pipeline per update.
set -- "$@" --micro-batch-size 1 --global-batch-size 256

# Model shape from the profile.
set -- "$@" --num-layers 32 --hidden-size 4096 --seq-length 8192
# TODO: --num-attention-heads (and --ffn-hidden-size, --max-position-embeddings,
# the vocabulary and the architecture flags) are not in the profile: take them
# from the model.
# Precision of the profile: bf16.
set -- "$@" --bf16

# Recomputation: none (Megatron's default).

# Partition: the embedding on the first stage, the head on the last, and
# blocks per stage: 17 15.
# Uneven first or last stage: Megatron's --decoder-first/last-pipeline-num-layers
# (the middle stages split the rest evenly).  The same partition as an
# experimental layout (Megatron Core 0.15; use one or the other):
#   --pipeline-model-parallel-layout 'Et*17|t*15L'
set -- "$@" --decoder-first-pipeline-num-layers 17

# Schedule flush.  Megatron-LM's default 1F1B schedule is PipeDream-Flush: no flag.
