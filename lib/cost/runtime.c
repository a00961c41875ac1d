/*
 * runtime.c - the runtimes a plan can name, what each executes and how it
 * overlaps communication with compute.  Every rule here is documented in
 * pd2bw-plan(1), RUNTIMES, with the upstream file that shows it; the
 * facts were read in NVIDIA/Megatron-LM (d98e8a6, 2026-08-22):
 *
 *  - megatron/core/pipeline_parallel/schedules.py: 1F1B warm-up
 *    pp - rank - 1 (line 957), interleaved 2 (pp - rank - 1) + ...
 *    (line 964); gradient sync disabled (no_sync_func) for all but the
 *    last microbatch (line 768 on), enabled before the last backward of
 *    each model chunk.
 *  - megatron/core/distributed/distributed_data_parallel.py:133-134:
 *    with --overlap-grad-reduce gradients are reduced in buckets of
 *    max(40e6, 1e6 x dp) parameters as their backward completes.
 *  - megatron/training/arguments.py:3118-3120 (--no-overlap-p2p-
 *    communication, so on by default) with schedules.py:1086: the
 *    interleaved schedule overlaps its sends and receives with the
 *    neighbouring chunks' compute.
 *  - megatron/training/arguments.py:1024-1029: --overlap-param-gather
 *    needs the distributed optimizer and --overlap-grad-reduce;
 *    1204-1216: bf16 accumulates and reduces gradients in fp32;
 *    1441-1442: --tp-comm-overlap needs sequence parallelism.
 *
 * Sharding (ZeRO stages, FSDP, HSDP) and activation offload:
 *  - Megatron-LM: the distributed optimizer is ZeRO-1 (arguments.py:
 *    3156); Megatron-FSDP (--use-megatron-fsdp, core/distributed/
 *    distributed_data_parallel_config.py:90) shards by
 *    --data-parallel-sharding-strategy optim | optim_grads |
 *    optim_grads_params (arguments.py:3190-3192), ZeRO-1/2/3, with HSDP
 *    over --num-distributed-optimizer-instances (3216) and the outer
 *    group replicated (--outer-dp-sharding-strategy no_shard, 3193).
 *    Activation offload --cpu-offloading-num-layers (core/
 *    model_parallel_config.py:461) refuses pipelines and recomputation
 *    (core/transformer/transformer_config.py:1891-1899).
 *  - DeepSpeed (microsoft/DeepSpeed 38327e07f): zero_optimization.stage
 *    0-3; its pipeline engine asserts stage < 2 (runtime/pipe/
 *    engine.py:77-78); gradients reduced in the training dtype
 *    (communication_data_type, runtime/engine.py:939-951).
 *  - torchtitan (pytorch/torchtitan b5bcd76c6): FSDP2 fully_shard is
 *    ZeRO-3 with data_parallel_shard_degree, HSDP with
 *    data_parallel_replicate_degree as well (config/configs.py:122-142);
 *    fsdp_reshard_after_forward "never" is ZeRO-2 (configs.py:145), and
 *    "default" keeps the gathered parameters under a pipeline
 *    (distributed/fsdp.py:128-132); no ZeRO-1, no activation offload
 *    (enable_cpu_offload, configs.py:70, offloads parameters and
 *    optimizer state, which pd2bw does not price).
 *  - pytorch-ddp: ZeroRedundancyOptimizer is ZeRO-1; activation offload
 *    by torch.autograd.graph.save_on_cpu, without a pipeline.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pd2bw/analytic.h"
#include "pd2bw/cost.h"
#include "pd2bw/error.h"
#include "pd2bw/names.h"
#include "pd2bw/plan.h"
#include "pd2bw/profile.h"
#include "pd2bw/runtime.h"

const char *const runtime_names[] = {
	"pipedream-2bw", "megatron-core", "deepspeed", "torchtitan",
	"pytorch-ddp", NULL,
};

const char *const runtime_opt_names[] = {
	"overlap-grad-reduce", "overlap-param-gather", "tp-comm-overlap",
	"cuda-graphs", "grad-reduce-fp32", "fp8-param-gather",
	"overlap-moe-ep-comm", "fp8-all-gather", "flex-dispatcher", "dropless",
	"op-fuser", "paged-stash", "compile", "async-tp", "early-stop",
	"te-graphs", "fp8-output-proj", "tp-dgrad-overlap", "repeat-kv",
	"fused-proj", NULL,
};

#define OPT(o) (1u << RUNTIME_OPT_##o)
#define SCHED(s) (1u << PLAN_##s)
#define GIB (1024.0 * 1024.0 * 1024.0)

/*
 * The kernels each runtime's model code fuses.  Megatron-Core: bias-GeLU
 * and bias-SwiGLU, bias-dropout-add and rope fused by default
 * (megatron/training/arguments.py:2892-2905, --no-*-fusion switches
 * them off), the cross-entropy fusion on in the recipes (Megatron-Bridge
 * src/megatron/bridge/models/gpt_provider.py:205; Megatron-LM's own
 * default is off, megatron/core/model_parallel_config.py:320: give
 * --fusions act,dropadd,rope for a Megatron-LM command line).  The
 * PyTorch-native runtimes (torchtitan, DeepSpeed, DDP) run their models'
 * eager code: one kernel per operator, but torchtitan's compile.enable
 * (components model and loss, the default): Inductor compiles each
 * transformer block whole (models/llama3/infra/parallelize.py:256-267 at
 * v0.2.2) and the loss (components/loss.py:33-35), fusing the chains the
 * eager code runs as kernels apiece: the activation, the residual adds,
 * the rotary embedding and the cross-entropy.  pipedream-2bw keeps the
 * fused estimate its earlier releases used.
 */
static unsigned
fusions_of(const struct runtime *rt)
{
	switch (rt->id) {
	case RUNTIME_MEGATRON_CORE:
	case RUNTIME_PIPEDREAM_2BW:
		return ANALYTIC_FUSE_ALL;
	case RUNTIME_TORCHTITAN:
		return runtime_has(rt, RUNTIME_OPT_COMPILE) ? ANALYTIC_FUSE_ALL
							    : 0;
	default:
		return 0;
	}
}

static void
derive(struct runtime *rt)
{
	int cg = runtime_has(rt, RUNTIME_OPT_CUDA_GRAPHS);

	switch (rt->id) {
	case RUNTIME_PIPEDREAM_2BW:
		rt->sync = RUNTIME_SYNC_AFTER;
		break;
	case RUNTIME_DEEPSPEED:
		/* the pipeline engine reduces after its last microbatch
		 * (ReduceGrads); without a pipeline overlap_comm buckets the
		 * reduction into the last backward */
		rt->sync = runtime_has(rt, RUNTIME_OPT_OVERLAP_GRAD_REDUCE)
				   ? RUNTIME_SYNC_LAST_BWD
				   : RUNTIME_SYNC_AFTER;
		break;
	case RUNTIME_MEGATRON_CORE:
		rt->sync = runtime_has(rt, RUNTIME_OPT_OVERLAP_GRAD_REDUCE)
				   ? RUNTIME_SYNC_LAST_BWD
				   : RUNTIME_SYNC_AFTER;
		break;
	default: /* DDP's autograd hooks (torchtitan replicates the same) */
		rt->sync = RUNTIME_SYNC_LAST_BWD;
		break;
	}
	/* torchtitan's Llama projects Q, K and V with wq, wk, wv and the
	 * MLP's halves with w1 and w3 (models/llama3/model/model.py:203-
	 * 207, 251, 338-343 at v0.2.2), where Megatron fuses each set into
	 * one GEMM (linear_qkv, linear_fc1); the fused-proj sub-option
	 * prices a model of another code base run the same way whose
	 * linears are fused (llm-foundry's MPT Wqkv, fms's fused_weights) */
	rt->split_proj = rt->id == RUNTIME_TORCHTITAN &&
			 !runtime_has(rt, RUNTIME_OPT_FUSED_PROJ);
	/* Transformer Engine's userbuffers overlap: most of the sequence-
	 * parallel all-gathers and reduce-scatters hide behind the GEMMs
	 * they feed; the ring's first and last chunks do not.  torchtitan's
	 * async TP (parallelism.enable_async_tensor_parallel,
	 * job_config.py:357 at v0.2.2) sets Inductor's _micro_pipeline_tp
	 * (distributed/tensor_parallel.py:16-25): an all-gather is fused
	 * with the matmuls that take its result, a reduce-scatter with the
	 * one matmul whose output it scatters, each cut into one chunk per
	 * rank whose transfers run under the other chunks' matmuls, the
	 * decomposition Transformer Engine's ring overlap makes: the same
	 * share hidden, of what is fused.  A reduce-scatter of anything but
	 * a matmul's output stays as it was (torch/_inductor/fx_passes/
	 * micro_pipeline_tp.py fuse_matmul_reduce_scatter, "Not matmul", at
	 * pytorch 00122fb1c): where the projections are split, backward
	 * scatters the sums of the attention's and the MLP's input
	 * gradients (analytic.c split_sum_ms()), two of a block's eight
	 * collectives */
	rt->tp_hidden = runtime_has(rt, RUNTIME_OPT_TP_COMM_OVERLAP)
				? 0.8
			: runtime_has(rt, RUNTIME_OPT_ASYNC_TP)
				? 0.8 * (rt->split_proj ? 6.0 / 8 : 1)
				: 0;
	/* DTensor's sequence-parallel collectives gather and scatter
	 * dimension 1 of [b, s, h] (torchtitan's TP plan: SequenceParallel
	 * norms, Shard(1) in and out: models/llama3/infra/parallelize.py
	 * apply_tp at v0.2.2): a functional all-gather along a dimension
	 * past the first gathers along the first, then splits and
	 * concatenates the chunks into place, and a reduce-scatter
	 * concatenates its input's chunks first (the all_gather_into_tensor
	 * -> split -> cat and cat -> reduce_scatter_tensor patterns
	 * micro_pipeline_tp.py _register_passes() matches): a copy of the
	 * whole tensor at each.  What async TP fuses takes the shards as
	 * they are; what it leaves keeps its copy (1: every collective's,
	 * 2: the two backward reduce-scatters' above) */
	rt->sp_dim_copy =
		rt->id != RUNTIME_TORCHTITAN ? 0
		: !runtime_has(rt, RUNTIME_OPT_ASYNC_TP) ? 1
		: rt->split_proj			 ? 2
							 : 0;
	/* Megatron's column-parallel layers (QKV, the first MLP GEMM)
	 * start their input gradient's tensor-parallel reduction
	 * asynchronously and compute their weight gradient while it runs:
	 * the all-reduce, or under sequence parallelism the reduce-
	 * scatter, with the all-gather of the layer's input the weight
	 * gradient needs running beside the dgrad GEMM (Transformer
	 * Engine's modules: pytorch/module/linear.py:990-998, 1122-1132,
	 * 1348-1352, layernorm_linear.py:790, 904-910, 1126-1129,
	 * layernorm_mlp.py:1194, 1595-1598, 1723-1726 at d0067d0da;
	 * Megatron-Core's own, core/tensor_parallel/layers.py:675-708 at
	 * d98e8a6; Megatron-LM since 2021-09-02, 16c90445e7 and
	 * 3f65246911, --no-async-tensor-model-parallel-allreduce to turn
	 * it off).  Userbuffers' overlap (tp_hidden) takes their place
	 * where it acts (analytic.c). */
	rt->tp_dgrad_overlap = runtime_has(rt, RUNTIME_OPT_TP_DGRAD_OVERLAP);
	rt->fusions = fusions_of(rt);
	/* Eager PyTorch: the CPU issues each kernel in ~5-10 us (launch
	 * plus framework dispatch); a GPU kernel shorter than that leaves
	 * the GPU waiting.  CUDA graphs replay a whole pass at once. */
	rt->host_us_per_kernel = cg ? 0 : 8;
	/* A layer of experts issues far more host work per kernel than
	 * the launch: the router's small ops, the dispatcher's
	 * permutation and its read of the routing counts, and Transformer
	 * Engine's grouped linear layers, which quantise and multiply
	 * expert by expert from Python (grouped_linear.py); Megatron-
	 * Core's MoE guide names the result, gaps in the GPU timeline
	 * while the host launches, cured by CUDA graphs of the router and
	 * preprocessing or larger microbatches (megatron/core/transformer/
	 * moe/README.md, "CPU Overhead Bottleneck", at d98e8a64dd).  And
	 * the GPU idles from the dispatcher's read of the routing counts
	 * (d2h_event.synchronize(), token_dispatcher.py:955-957) until
	 * the host has turned them into split lists and issued the next
	 * kernel: host_ms_moe_sync a MoE layer's forward (what the host
	 * issues eagerly after the read before the GPU can go on: the next
	 * layer's attention and router, which Transformer Engine's graphs
	 * of them, the te-graphs option, replay at once: compute.c
	 * host_ms()).  62.5 us a kernel
	 * and 1.5 ms a read are the pair the CP/EP fit rows of bench/data
	 * ask for (their least mean error, within 0.02 points at 61-63 us
	 * and 1.5-1.75 ms, over 50-75 us and 0.5-2.5 ms; bench/data/
	 * README.md); the other runtimes
	 * dispatch experts without those Python loops: the launch's, and
	 * no gap priced. */
	if (cg)
		rt->host_us_moe = 0;
	else if (rt->id == RUNTIME_MEGATRON_CORE)
		rt->host_us_moe = 62.5;
	else
		rt->host_us_moe = rt->host_us_per_kernel;
	/* Full recomputation.  Megatron's and DeepSpeed's checkpoints
	 * (and PipeDream's) run the block's forward again whole.
	 * PyTorch's non-reentrant checkpoint stops the recomputation as
	 * soon as every tensor the backward needs is back, by default
	 * (torch/utils/checkpoint.py, checkpoint(): early_stop=True, "Non-
	 * reentrant checkpoint stops recomputation as soon as all needed
	 * intermediate activations have been recomputed", at 0008d771a):
	 * what plain PyTorch code gets (pytorch-ddp), and torchtitan until
	 * 25413d224 (2025-08-29) made its own default off
	 * (activation_checkpoint.early_stop, config/job_config.py:675 at
	 * v0.2.2, passed to ptd_checkpoint_wrapper in distributed/
	 * activation_checkpoint.py:150-156): there the early-stop
	 * sub-option */
	rt->rc_early_stop = rt->id == RUNTIME_PYTORCH_DDP ||
			    (rt->id == RUNTIME_TORCHTITAN &&
			     runtime_has(rt, RUNTIME_OPT_EARLY_STOP));
	/* Megatron-Core clamps a gated MLP's halves (activation_func_
	 * clamp_value, GPT-OSS) in eager PyTorch before its fused
	 * activation: two clamps and the cat of their outputs (fusions/
	 * fused_bias_geglu.py:424-432, weighted_bias_quick_geglu_impl, at
	 * d98e8a6); Transformer Engine's op fuser (use_transformer_
	 * engine_op_fuser, transformer_config.py:525) runs the experts'
	 * clamp inside its ScaledClampedQGeGLU (moe/experts.py:574-590).
	 * The PyTorch-native runtimes clamp eagerly too (their fusions
	 * are none). */
	rt->clamp_eager =
		rt->id == RUNTIME_MEGATRON_CORE
			? !runtime_has(rt, RUNTIME_OPT_OP_FUSER)
			: rt->id != RUNTIME_PIPEDREAM_2BW;
	rt->host_ms_moe_sync =
		!cg && rt->id == RUNTIME_MEGATRON_CORE ? 1.5 : 0;
	/* DeepSpeed-MoE's TopKGate drops what overflows a fixed capacity
	 * unless drop_tokens is off: capacity_factor 1.0, min_capacity 4
	 * (deepspeed/moe/layer.py:44, 46, 49, at 38327e07f); the capacity
	 * is ceil(tokens / E x capacity_factor x k) at least min_capacity
	 * (moe/sharded_moe.py:161-170, k passed at 331 and 406) and a
	 * host-side value, so the dispatch needs no read of the counts.
	 * With drop_tokens off it is the busiest expert's count, all-
	 * reduced over the expert-parallel group and read on the host
	 * (sharded_moe.py:422-431).  Megatron-Core routes dropless unless
	 * given a capacity factor (moe_expert_capacity_factor None,
	 * transformer_config.py:917 at d98e8a6): a model's applies, its
	 * rows padded to it as --emit megatron asks (get_capacity() without
	 * a minimum, token_dispatcher.py:517-525, moe_utils.py:248-266).
	 * The other runtimes route dropless whatever the model says
	 * (torchtitan's TokenChoiceTopKRouter has no capacity). */
	if (rt->id == RUNTIME_DEEPSPEED)
		rt->dropless = runtime_has(rt, RUNTIME_OPT_DROPLESS);
	else
		rt->dropless = rt->id != RUNTIME_MEGATRON_CORE;
	rt->capacity_factor =
		rt->id == RUNTIME_DEEPSPEED && !rt->dropless ? 1.0 : 0;
	rt->min_capacity = rt->id == RUNTIME_DEEPSPEED && !rt->dropless ? 4 : 0;
	rt->moe_sync = rt->id != RUNTIME_DEEPSPEED || rt->dropless;
	rt->host_ms_per_mb = cg ? 0.05 : 0.5;
	rt->bucket_params = 40e6;
	/* CUDA context (~0.5 GiB), NCCL communicators and their buffers
	 * (0.3-1 GiB with several groups), cuBLAS workspaces: what
	 * nvidia-smi shows beyond PyTorch's allocator. */
	rt->context_bytes = 1.25 * GIB;
	/* PyTorch's caching allocator: blocks rounded and split, about
	 * 5-10% of the activation high-water mark reserved beyond it. */
	rt->frag = 0.07;
}

void
runtime_init(struct runtime *rt, int id)
{
	memset(rt, 0, sizeof(*rt));
	rt->id = id;
	rt->max_depth_none = 1;
	/* Megatron-Core's rope fusion is for position_embedding_type rope
	 * alone (megatron/training/arguments.py:1628-1629 at d98e8a6;
	 * Megatron-Bridge likewise, utils/fusions.py:84-92 at 067f987):
	 * gpt-oss's YaRN is position_embedding_type yarn (models/gpt_oss/
	 * gpt_oss_bridge.py:65), MLA's YaRN a rope_type of its own */
	rt->rope_plain = id == RUNTIME_MEGATRON_CORE;
	rt->tp = 1;
	switch (id) {
	case RUNTIME_PIPEDREAM_2BW:
		rt->zero_mask = rt->zero_pipe_mask = 1;
		rt->sched_mask = SCHED(2BW) | SCHED(FLUSH) | SCHED(GPIPE) |
				 SCHED(NONE);
		rt->max_depth_none = 1 << 30;
		rt->selective = rt->mixed_rc = 1;
		break;
	case RUNTIME_MEGATRON_CORE:
		rt->sched_mask = SCHED(FLUSH) | SCHED(NONE);
		rt->interleave = rt->zero1 = rt->selective = 1;
		/* Megatron-FSDP runs under a pipeline too (NeMo's
		 * Llama 3.1 405B recipe: PP 2 with Megatron-FSDP) */
		rt->zero_mask = rt->zero_pipe_mask = 0xf;
		rt->hsdp = rt->offload = 1;
		/* Megatron offloads fewer blocks than the model has
		 * (transformer_config.py:1884-1889 at d98e8a6): on is
		 * every block but the last, what the emitters pass */
		rt->offload_blocks = 1;
		rt->p2p_hidden_v = 1;
		/* --context-parallel-size: Transformer Engine's ring
		 * (cp_comm_type p2p, the default) */
		rt->cp = 1;
		/* --expert-model-parallel-size with the alltoall token
		 * dispatcher (moe_token_dispatcher_type, the recipes') */
		rt->ep = 1;
		rt->allowed_opts = OPT(OVERLAP_GRAD_REDUCE) |
				   OPT(OVERLAP_PARAM_GATHER) |
				   OPT(TP_COMM_OVERLAP) | OPT(CUDA_GRAPHS) |
				   OPT(GRAD_REDUCE_FP32) | OPT(FP8_PARAM_GATHER) |
				   OPT(OVERLAP_MOE_EP_COMM) |
				   OPT(FLEX_DISPATCHER) | OPT(OP_FUSER) |
				   OPT(PAGED_STASH) | OPT(TE_GRAPHS) |
				   OPT(FP8_OUTPUT_PROJ) | OPT(TP_DGRAD_OVERLAP);
		/* what current Megatron-Core recipes (Megatron-Bridge,
		 * NeMo) switch on; tp-comm-overlap acts only with sequence
		 * parallelism, which Megatron requires for it, and
		 * fp8-param-gather only for FP8 (cost_fp8_params) */
		rt->opts = OPT(OVERLAP_GRAD_REDUCE) | OPT(OVERLAP_PARAM_GATHER) |
			   OPT(TP_COMM_OVERLAP) | OPT(GRAD_REDUCE_FP32) |
			   OPT(FP8_PARAM_GATHER) | OPT(TP_DGRAD_OVERLAP);
		break;
	case RUNTIME_DEEPSPEED:
		rt->sched_mask = SCHED(FLUSH) | SCHED(NONE);
		rt->zero1 = 1;
		rt->zero_mask = 0xf;
		rt->zero_pipe_mask = 3;
		/* deepspeed.moe.layer.MoE(ep_size=...): the rules of
		 * runtime_check_ep(); under tensor parallelism the MOELayer
		 * drops the duplicate rows before each all-to-all and
		 * gathers them after (moe/sharded_moe.py:626-638, 649-664) */
		rt->ep = 1;
		rt->ep_tp_drop = 1;
		/* TopKGate's one-hot [tokens, E, C] and MOELayer's two
		 * einsums over it, dispatch and combine (sharded_moe.py:
		 * 609, 669; Tutel's sparse dispatcher only for k = 1 with
		 * use_tutel, 571) */
		rt->moe_dense_dispatch = 1;
		rt->allowed_opts = OPT(OVERLAP_GRAD_REDUCE) | OPT(DROPLESS);
		break;
	case RUNTIME_TORCHTITAN:
		rt->sched_mask = SCHED(FLUSH) | SCHED(GPIPE) | SCHED(NONE);
		rt->interleave = rt->selective = 1;
		rt->zero_mask = rt->zero_pipe_mask = 0xd; /* 0, 2, 3 */
		rt->hsdp = rt->zero2_gather_mb = rt->zero3_keep_pp = 1;
		/* torch.distributed.pipelining turns FSDP's gradient sync
		 * off for all but the last microbatch's backward (stage.py,
		 * _configure_data_parallel_mode), and FSDP2 then keeps each
		 * parameter's unsharded gradient, upcast to the reduce dtype
		 * (_fsdp_param.py, to_accumulated_grad_if_needed) */
		rt->pp_nosync = 1;
		/* ... whose stages keep each forward's output (fwd_cache,
		 * until its backward pops it: forward_one_chunk(),
		 * backward_one_chunk()) and allocate one receive buffer
		 * for every microbatch's output gradient when the schedule
		 * starts (_prepare_backward_infra(), _create_grad_recv_info
		 * (), torch/distributed/pipelining/stage.py), where
		 * Megatron-Core frees a sent output's data (deallocate_
		 * output_tensor) and receives each gradient as it comes */
		rt->pp_bufs = 1;
		/* context_parallel_degree with context_parallel_rotate_
		 * method "alltoall" (torchtitan v0.2.2 config/job_config.py:
		 * 428, 446): each step's SDPA runs while the K/V shards
		 * move on around the ring, as the ring pd2bw prices (the
		 * default "allgather" gathers them first) */
		rt->cp = 1;
		/* ... PyTorch's ring (torch/distributed/tensor/experimental/
		 * _attention.py at 0123248a4: _ContextParallelOptions
		 * convert_to_f32 True, _SDPAMerger, _templated_ring_
		 * attention_backward), whose corrections run eagerly in
		 * fp32 (analytic.c ring_ms()) */
		rt->cp_merge_f32 = 1;
		/* expert_parallel_degree with the "standard" all-to-all
		 * backend (job_config.py:454, 464, 474 at v0.2.2): the rules
		 * of runtime_check_ep(), the bytes of cost_ep() */
		rt->ep = 1;
		/* ExpertTensorParallel's input is replicated over the etp
		 * mesh (distributed/expert_parallel.py:209-216), and the
		 * shared experts' forward runs while the combine is in
		 * flight (models/moe/moe.py:526-529) */
		rt->ep_tp_all_rows = 1;
		rt->ep_shared_overlap = 1;
		/* Float8Linear's enable_fsdp_float8_all_gather, off by
		 * default (job_config.py:732; cost_fp8_all_gather()) */
		rt->allowed_opts = OPT(CUDA_GRAPHS) | OPT(FP8_ALL_GATHER) |
				   OPT(COMPILE) | OPT(ASYNC_TP) |
				   OPT(EARLY_STOP) | OPT(REPEAT_KV) |
				   OPT(FUSED_PROJ);
		break;
	default:
		rt->id = RUNTIME_PYTORCH_DDP;
		rt->sched_mask = SCHED(NONE);
		rt->zero1 = rt->selective = rt->mixed_rc = 1;
		rt->zero_mask = rt->zero_pipe_mask = 3;
		rt->offload = rt->offload_rc = 1;
		rt->tp = 0;
		break;
	}
	if (id != RUNTIME_PYTORCH_DDP)
		rt->tp = 1;
	/* DeepSpeed has no sequence parallelism of Megatron's kind: its
	 * sequence_parallel_size is Ulysses, an all-to-all over attention
	 * heads (deepspeed/runtime/engine.py:1278, deepspeed/sequence/
	 * layer.py:311, at 38327e07f), which pd2bw does not price */
	rt->sp = rt->tp && id != RUNTIME_DEEPSPEED;
	/* Megatron-Core's default is delayed scaling (transformer_config.py
	 * :594); torchtitan's torchao converter scales tensorwise */
	rt->fp8_recipe = rt->id == RUNTIME_TORCHTITAN ? FP8_TENSORWISE
						     : FP8_DELAYED;
	/* torchao's Float8Linear casts each GEMM's operands itself, the
	 * weight gradient's input again from the saved 16-bit tensor
	 * (torchao/float8/float8_linear.py); the others run Transformer
	 * Engine's modules */
	rt->fp8_casts = rt->id == RUNTIME_TORCHTITAN ? ANALYTIC_CASTS_EACH
						    : ANALYTIC_CASTS_TE;
	/* torchtitan's loss is cross_entropy on the upcast logits
	 * (components/loss.py:20-25 at v0.2.2), as a plain PyTorch DDP
	 * model's is; the Megatron family's vocabulary-parallel one
	 * turns its saved softmax into the gradient in place */
	/* torchtitan's selective recomputation is per op
	 * (selective_ac_option "op", distributed/activation_checkpoint.py
	 * :173-183 at v0.2.2; its "N" is --recompute-every); Megatron-
	 * Core's is its module list */
	rt->rc_op = rt->id == RUNTIME_TORCHTITAN ? ANALYTIC_RC_OP : 0;
	/* ... and under tensor parallelism torchtitan's loss is DTensor's
	 * loss parallel (parallelism.disable_loss_parallel False,
	 * config/job_config.py:354 at v0.2.2): the logits stay sharded
	 * over the vocabulary and cross_entropy runs as torch/distributed/
	 * tensor/parallel/loss.py decomposes it (analytic.c, the head's
	 * work: 2) */
	rt->xent_copy = rt->id == RUNTIME_TORCHTITAN	? 2
			: rt->id == RUNTIME_PYTORCH_DDP ? 1
							: 0;
	/* Megatron-LM pads the vocabulary to a multiple of 128 x tp; the
	 * PyTorch-native runtimes take the model's as it is */
	rt->vocab_pad = rt->id == RUNTIME_MEGATRON_CORE
				? MODEL_MEGATRON_VOCAB_PAD
				: 1;
	/* torchtitan's selective_ac_option = "N" wraps every N-th block
	 * (distributed/activation_checkpoint.py:24-49 at v0.2.2); a
	 * runtime that recomputes per layer runs any such choice.
	 * Megatron-LM cannot: --recompute-method block recomputes the
	 * first --recompute-num-layers of each chunk, uniform every layer
	 * in groups of them (megatron/core/recompute.py:157-178 at
	 * d98e8a6); DeepSpeed's activation_checkpoint_interval checkpoints
	 * groups of layers, not every N-th */
	rt->every_rc = rt->mixed_rc || rt->id == RUNTIME_TORCHTITAN;
	derive(rt);
}

int
runtime_parse(struct runtime *rt, const char *spec)
{
	const char *colon = strchr(spec, ':'), *p;
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
	char valid[512];
	int id = pd2bw_name_index(runtime_names, spec, n);

	if (id < 0) {
		pd2bw_names_join(runtime_names, ~0u, ", ", valid,
				 sizeof(valid));
		return pd2bw_error("unknown runtime '%.*s' (valid: %s)", (int)n,
				   spec, valid);
	}
	runtime_init(rt, id);
	for (p = colon; p && *p;) {
		const char *s = p + 1, *e = strchr(s, ',');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		int off = 0, o;

		if (len > 3 && !strncmp(s, "no-", 3)) {
			off = 1;
			s += 3;
			len -= 3;
		}
		o = pd2bw_name_index(runtime_opt_names, s, len);
		if (o < 0 || !(rt->allowed_opts & (1u << o))) {
			pd2bw_names_join(runtime_opt_names, rt->allowed_opts,
					 ", ", valid, sizeof(valid));
			return pd2bw_error("runtime %s has no option '%.*s' "
					   "(valid: %s)",
					   runtime_names[id], (int)len, s,
					   *valid ? valid : "none");
		}
		if (off)
			rt->opts &= ~(1u << o);
		else
			rt->opts |= 1u << o;
		p = e;
	}
	if (runtime_has(rt, RUNTIME_OPT_OVERLAP_PARAM_GATHER) &&
	    !runtime_has(rt, RUNTIME_OPT_OVERLAP_GRAD_REDUCE))
		/* arguments.py:1028 */
		return pd2bw_error("runtime %s: overlap-param-gather needs "
				   "overlap-grad-reduce", runtime_names[id]);
	if (runtime_has(rt, RUNTIME_OPT_TE_GRAPHS) &&
	    runtime_has(rt, RUNTIME_OPT_CUDA_GRAPHS))
		/* two values of one --cuda-graph-impl (transformer_
		 * config.py:1075 at d98e8a6) */
		return pd2bw_error("runtime %s: cuda-graphs and te-graphs "
				   "are two kinds of CUDA graph; give one",
				   runtime_names[id]);
	if (runtime_has(rt, RUNTIME_OPT_ASYNC_TP) &&
	    !runtime_has(rt, RUNTIME_OPT_COMPILE))
		/* the pass is Inductor's (tensor_parallel.py:19-23) */
		return pd2bw_error("runtime %s: async-tp needs compile",
				   runtime_names[id]);
	derive(rt);
	return 0;
}

void
runtime_format(const struct runtime *rt, char *buf, size_t n)
{
	struct runtime def;
	size_t len;
	int i, first = 1;

	/* the options that are on, and "no-" those of the defaults that are
	 * off: runtime_parse() starts from the defaults, so it reads back
	 * exactly rt's */
	runtime_init(&def, rt->id);
	len = (size_t)snprintf(buf, n, "%s", runtime_names[rt->id]);
	for (i = 0; runtime_opt_names[i]; i++) {
		int on = runtime_has(rt, i);

		if (!(rt->allowed_opts & (1u << i)) ||
		    (!on && !runtime_has(&def, i)))
			continue;
		len += (size_t)snprintf(buf + len, len < n ? n - len : 0,
					"%s%s%s", first ? ":" : ",",
					on ? "" : "no-", runtime_opt_names[i]);
		first = 0;
	}
}

int
runtime_default_for(int sched, int d)
{
	switch (sched) {
	case PLAN_FLUSH:
		return RUNTIME_MEGATRON_CORE;
	case PLAN_GPIPE:
		return RUNTIME_TORCHTITAN;
	case PLAN_NONE:
		return d == 1 ? RUNTIME_PYTORCH_DDP : RUNTIME_PIPEDREAM_2BW;
	default:
		return RUNTIME_PIPEDREAM_2BW;
	}
}

/* snprintf() into buf, skipped when there is no room asked for (n 0:
 * the verdict alone, which a search asks of every candidate). */
static void why(char *buf, size_t n, const char *f, ...) PD2BW_PRINTF(3, 4);

static void
why(char *buf, size_t n, const char *f, ...)
{
	va_list ap;

	if (!n)
		return;
	va_start(ap, f);
	vsnprintf(buf, n, f, ap);
	va_end(ap);
}

int
runtime_check_bf16(const struct runtime *rt, int most, int nblocks, int d,
		   char *buf, size_t n)
{
	if (most <= 0 || rt->id != RUNTIME_MEGATRON_CORE || d < 1 ||
	    most <= nblocks / d)
		return 0;
	why(buf, n, "runtime %s keeps at most a stage's %d blocks in 16 "
		    "bits at either end (--bf16-layers %d over %d stages)",
	    runtime_names[rt->id], nblocks / d, most, d);
	return -1;
}

int
runtime_check_train(const struct runtime *rt, int prec, int fp8r, int bf16,
		    int mixed, int optim, char *buf, size_t n)
{
	/* precision module by module is Megatron-Core's config file
	 * (--te-precision-config-file, training/arguments.py:2019-2022 at
	 * d98e8a6) */
	if (mixed && rt->id != RUNTIME_MEGATRON_CORE) {
		why(buf, n, "runtime %s sets no precision module by module "
			    "(--module-precision is Megatron-Core's "
			    "--te-precision-config-file)",
		    runtime_names[rt->id]);
		return -1;
	}
	/* Muon as Megatron-Core runs it (--optimizer muon, arguments.py:
	 * 2913-2917); NEEDSWORK: DeepSpeed's and torchtitan's own Muon
	 * are not priced */
	if (optim == PLAN_MUON && rt->id != RUNTIME_MEGATRON_CORE) {
		why(buf, n, "runtime %s does not train with Muon (pd2bw "
			    "prices Megatron-Core's)", runtime_names[rt->id]);
		return -1;
	}
	/* DeepSpeed's config has fp16 and bf16 sections, no FP8 or FP4
	 * training (deepspeed/runtime/config.py); torchtitan's quantization
	 * converters are float8 and mx, MXFP8 (components/quantization/
	 * at v0.2.2): no NVFP4 */
	if ((rt->id == RUNTIME_DEEPSPEED && model_prec_quantised(prec)) ||
	    (rt->id == RUNTIME_TORCHTITAN && prec == MODEL_NVFP4)) {
		why(buf, n, "runtime %s does not train in %s",
		    runtime_names[rt->id], model_prec_names[prec]);
		return -1;
	}
	/* rowwise scaling is torchao's (Float8LinearRecipeName.ROWWISE,
	 * torchao/float8/config.py); Megatron-Core's recipes are delayed,
	 * tensorwise, mxfp8, blockwise and custom (megatron/core/
	 * enums.py:12-19 at d98e8a6), Transformer Engine's */
	if (prec == MODEL_FP8 && model_fp8_rowwise(fp8r) &&
	    rt->id != RUNTIME_TORCHTITAN) {
		why(buf, n, "runtime %s has no rowwise FP8 scaling (torchao's "
			    "recipe, which --runtime torchtitan runs)",
		    runtime_names[rt->id]);
		return -1;
	}
	/* Megatron-Core keeps no layer in 16 bits under delayed scaling
	 * (transformer_config.py:1528-1530 at d98e8a6); bf16: the blocks
	 * kept so at either end, the more */
	if (prec == MODEL_FP8 && bf16 > 0 && fp8r == FP8_DELAYED &&
	    rt->id == RUNTIME_MEGATRON_CORE) {
		why(buf, n, "runtime %s keeps no layer in 16 bits under "
			    "delayed FP8 scaling (--bf16-layers): choose "
			    "--fp8-recipe tensorwise, blockwise or mxfp8",
		    runtime_names[rt->id]);
		return -1;
	}
	/* torchtitan builds torchao's Float8 config from the recipe name,
	 * and refuses FSDP2's FP8 all-gather beside one (float8.py:65-69
	 * at v0.2.2): the gather is the tensorwise default's */
	if (prec == MODEL_FP8 && model_fp8_rowwise(fp8r) &&
	    runtime_has(rt, RUNTIME_OPT_FP8_ALL_GATHER)) {
		why(buf, n, "runtime %s: fp8-all-gather gathers tensorwise "
			    "FP8 weights; rowwise scaling gathers them in "
			    "16 bits (no-fp8-all-gather)",
		    runtime_names[rt->id]);
		return -1;
	}
	return 0;
}

int
runtime_check_par(const struct runtime *rt, int cp, int ep, char *buf,
		  size_t n)
{
	if (ep > 1 && rt->sched_mask && !rt->ep) {
		why(buf, n, "runtime %s has no expert parallelism "
			 "(--expert-parallel %d)", runtime_names[rt->id], ep);
		return -1;
	}
	if (!rt->sched_mask || cp <= 1 || rt->cp)
		return 0;
	/* the K/V ring: Megatron-Core's and torchtitan's (runtime_init) */
	why(buf, n, "runtime %s has no context parallelism "
		 "(--context-parallel %d)", runtime_names[rt->id], cp);
	return -1;
}

int
runtime_check_moe(const struct runtime *rt, double rank_capacity,
		  int offload, char *buf, size_t n)
{
	if (rank_capacity > 0 &&
	    !(rt && runtime_has(rt, RUNTIME_OPT_FLEX_DISPATCHER))) {
		why(buf, n, "a per-GPU budget of expert rows "
			 "(--moe-rank-capacity) is Megatron-Core's HybridEP "
			 "dispatcher's: it needs --runtime "
			 "megatron-core:flex-dispatcher");
		return -1;
	}
	/* per-layer graphs refuse CPU offloading (transformer_config.py:
	 * 2800-2801 at d98e8a6) */
	if (rt && runtime_has(rt, RUNTIME_OPT_TE_GRAPHS) && offload) {
		why(buf, n, "runtime %s: te-graphs does not run with "
			 "activation offload (--offload off)",
			 runtime_names[rt->id]);
		return -1;
	}
	if (!rt || !runtime_has(rt, RUNTIME_OPT_PAGED_STASH))
		return 0;
	if (!(rank_capacity > 0)) {
		why(buf, n, "runtime %s: paged-stash pages the experts' "
			 "activations under HybridEP's budget: give "
			 "--moe-rank-capacity", runtime_names[rt->id]);
		return -1;
	}
	if (offload) {
		why(buf, n, "runtime %s: paged-stash does not run with "
			 "activation offload (--offload off)",
			 runtime_names[rt->id]);
		return -1;
	}
	return 0;
}

/*
 * DeepSpeed-MoE (microsoft/DeepSpeed 38327e07f).  ZeRO-3 refuses MoE
 * layers, expert-parallel or not (runtime/engine.py:1675); stages 0-2
 * reduce the experts' gradients over the expert-data-parallel group
 * (engine.py:2588-2609, zero/stage_1_and_2.py:616-641), the pipeline
 * engine too (its ReduceGrads, pipe/engine.py:293-304, goes through the
 * same buffered_allreduce_fallback, engine.py:2611-2625).  The groups:
 * without expert tensor parallelism (MoE's enable_expert_tensor_
 * parallelism off, the default) an expert-parallel group is ep
 * consecutive ranks of a stage, which must divide the stage's ranks
 * (utils/groups.py:258, 297-300): tensor-parallel ranks first,
 * then data-parallel ones; with it, ep data-parallel ranks of one
 * tensor rank, ep dividing the data-parallel world (groups.py:334,
 * 403).
 */
static int
check_ep_deepspeed(const struct runtime *rt, int w, int t, int etp, int ep,
		   int zero, char *buf, size_t n)
{
	const char *name = runtime_names[rt->id];

	if (zero == 3) {
		why(buf, n, "runtime %s cannot run MoE layers under ZeRO "
			 "stage 3 (--zero 3; deepspeed.moe needs 0, 1 or 2)",
			 name);
		return -1;
	}
	if (ep < 2)
		return 0;
	if (etp > 1 && w % ep) {
		why(buf, n, "runtime %s takes expert-parallel ranks from the "
			 "data-parallel ones with the experts split like the "
			 "tensor-parallel layers (--expert-parallel %d does "
			 "not divide %d replicas)", name, ep, w);
		return -1;
	}
	if (etp <= 1 && ((long)w * t) % ep) {
		why(buf, n, "runtime %s takes expert-parallel ranks from one "
			 "stage's %d ranks (--expert-parallel %d does not "
			 "divide them)", name, w * t, ep);
		return -1;
	}
	return 0;
}

int
runtime_check_ep(const struct runtime *rt, int w, int c, int t, int etp,
		 int ep, int zero, int shard, char *buf, size_t n)
{
	const char *name = runtime_names[rt->id];
	int sh = shard > 0 && shard < w * c ? shard : w * c;

	if (rt->id == RUNTIME_DEEPSPEED)
		return check_ep_deepspeed(rt, w, t, etp, ep, zero, buf, n);
	/* the op fuser's grouped MLP runs whole experts: a tensor-parallel
	 * expert group fails its support check, which Megatron asserts
	 * (moe/experts.py:286-290, _is_fused_impl_supported, :397-398) */
	if (runtime_has(rt, RUNTIME_OPT_OP_FUSER) && etp > 1) {
		why(buf, n, "runtime %s: op-fuser runs whole experts only "
			 "(--expert-tensor-parallel 1, not %d-way)", name,
			 etp);
		return -1;
	}
	if (ep < 2 || rt->id != RUNTIME_TORCHTITAN)
		return 0;
	/* torchtitan wraps every block in fully_shard whenever EP is on
	 * (models/llama4/infra/parallelize.py:181 at v0.2.2), the
	 * experts on the efsdp mesh: its data-parallel ranks are FSDP's,
	 * never DDP's */
	if (w * c > 1 && zero < 2) {
		why(buf, n, "runtime %s runs expert parallelism under "
			 "FSDP only (--expert-parallel %d needs --zero 2 or 3)",
			 name, ep);
		return -1;
	}
	/* the sparse mesh is pp, dp_replicate, efsdp, ep, etp with efsdp =
	 * dp_shard cp tp / (etp ep) (parallel_dims.py:138, 156): an EP
	 * group takes shard-group and (etp 1) tensor-parallel ranks,
	 * never replicas */
	if (etp < 1 || t % etp || ((long)sh * (t / etp)) % ep) {
		why(buf, n, "runtime %s takes expert-parallel ranks from "
			 "one FSDP shard group%s only (--expert-parallel %d, "
			 "shard group %d%s)", name,
			 etp == 1 && t > 1 ? " and the tensor-parallel ranks"
					   : "",
			 ep, sh, etp == 1 && t > 1 ? " x --tp" : "");
		return -1;
	}
	return 0;
}

int
runtime_check(const struct runtime *rt, int sched, int d, int t, int v,
	      int zero, int rc, char *buf, size_t n)
{
	const char *name = runtime_names[rt->id];

	if (!rt->sched_mask)
		return 0; /* a zeroed, neutral runtime (cost.h) */
	if (!(rt->sched_mask & (1u << sched))) {
		why(buf, n, "runtime %s cannot run the %s schedule", name,
			 plan_sched_names[sched]);
		return -1;
	}
	if (sched == PLAN_NONE && d > rt->max_depth_none) {
		why(buf, n, "runtime %s runs schedule none only without "
			 "a pipeline (depth 1, not %d)", name, d);
		return -1;
	}
	if (v > 1 && !rt->interleave) {
		why(buf, n, "runtime %s cannot interleave stages "
			 "(--interleave %d)", name, v);
		return -1;
	}
	if (t > 1 && !rt->tp) {
		why(buf, n, "runtime %s has no tensor parallelism "
			 "(--tp %d)", name, t);
		return -1;
	}
	if (zero && !((d > 1 ? rt->zero_pipe_mask : rt->zero_mask) >> zero &
		      1)) {
		if (zero == 1)
			why(buf, n, "runtime %s cannot shard the "
				 "optimizer state (--zero 1)", name);
		else
			why(buf, n, "runtime %s cannot run ZeRO stage %d%s "
				 "(--zero %d)", name, zero,
				 d > 1 && (rt->zero_mask >> zero & 1)
					 ? " with a pipeline" : "", zero);
		return -1;
	}
	if (rc == PROF_RC_SELECTIVE && !rt->selective) {
		why(buf, n, "runtime %s has no selective recomputation",
			 name);
		return -1;
	}
	/* --overlap-moe-expert-parallel-comm: a pipeline needs virtual
	 * stages, and full recomputation is refused (Megatron-LM
	 * transformer_config.py:3007-3011, 3020-3023) */
	if (runtime_has(rt, RUNTIME_OPT_OVERLAP_MOE_EP_COMM) && d > 1 &&
	    v < 2 && sched != PLAN_NONE) {
		why(buf, n, "runtime %s: overlap-moe-ep-comm needs "
			 "--interleave 2 or more with a pipeline", name);
		return -1;
	}
	if (runtime_has(rt, RUNTIME_OPT_OVERLAP_MOE_EP_COMM) &&
	    rc == PROF_RC_FULL) {
		why(buf, n, "runtime %s: overlap-moe-ep-comm cannot "
			 "run full recomputation", name);
		return -1;
	}
	/* full recomputation runs under the full-iteration graph only
	 * (transformer_config.py:2853-2856 at d98e8a6) */
	if (runtime_has(rt, RUNTIME_OPT_TE_GRAPHS) && rc == PROF_RC_FULL) {
		why(buf, n, "runtime %s: te-graphs cannot run full "
			 "recomputation", name);
		return -1;
	}
	if (rc == PLAN_RC_MIXED && !rt->mixed_rc) {
		why(buf, n, "runtime %s cannot choose recomputation per "
			 "layer", name);
		return -1;
	}
	return 0;
}

int
runtime_check_every(const struct runtime *rt, char *buf, size_t n)
{
	if (!rt->sched_mask || rt->every_rc)
		return 0;
	why(buf, n, "runtime %s cannot recompute only every N-th block "
		 "(--recompute-every)", runtime_names[rt->id]);
	return -1;
}

int
runtime_check_shard(const struct runtime *rt, int d, int zero, int shard,
		    int offload, int rc, char *buf, size_t n)
{
	const char *name = runtime_names[rt->id];

	if (!rt->sched_mask)
		return 0;
	if (shard > 0 && zero < 2) {
		why(buf, n, "--shard-group %d needs --zero 2 or 3 (runtime "
			 "%s shards inside groups only then)", shard, name);
		return -1;
	}
	if (shard > 0 && !rt->hsdp) {
		why(buf, n, "runtime %s cannot shard in groups and "
			 "replicate across them (--shard-group %d)", name,
			 shard);
		return -1;
	}
	if (!offload)
		return 0;
	if (!rt->offload) {
		why(buf, n, "runtime %s cannot offload activations "
			 "(--offload on)", name);
		return -1;
	}
	if (d > 1) {
		why(buf, n, "runtime %s offloads activations only "
			 "without a pipeline (--offload on, depth %d)", name,
			 d);
		return -1;
	}
	if (rc != PROF_RC_NONE && !rt->offload_rc) {
		why(buf, n, "runtime %s cannot offload activations with "
			 "recomputation (--offload on, -r %s)", name,
			 rc >= 0 && rc < PROF_RC_N ? prof_rc_names[rc]
						   : "mixed");
		return -1;
	}
	return 0;
}
