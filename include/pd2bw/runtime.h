/*
 * runtime.h - what actually runs a plan: Megatron-Core, DeepSpeed,
 * torchtitan, PyTorch DDP or the PipeDream-2BW runtime.  A runtime fixes
 * which schedules and options it can execute (the search considers only
 * those), which communication it overlaps with which compute, the bytes
 * its collectives move, and the host costs and memory it adds.  The rules
 * and their upstream sources are in pd2bw-plan(1), RUNTIMES.
 */
#ifndef PD2BW_RUNTIME_H
#define PD2BW_RUNTIME_H

#include <stddef.h>

enum runtime_id {
	RUNTIME_PIPEDREAM_2BW,
	RUNTIME_MEGATRON_CORE,
	RUNTIME_DEEPSPEED,
	RUNTIME_TORCHTITAN,
	RUNTIME_PYTORCH_DDP,
	RUNTIME_N
};
extern const char *const runtime_names[]; /* NULL-terminated */

/* When a stage's data-parallel gradient reduction runs. */
enum runtime_sync {
	/* 2BW: over the next update's microbatches (delayed update) */
	RUNTIME_SYNC_AMORTISED,
	/* bucket by bucket during each model chunk's last backward */
	RUNTIME_SYNC_LAST_BWD,
	/* after the stage's last backward, nothing to hide behind */
	RUNTIME_SYNC_AFTER,
};

/* Sub-options of --runtime NAME:OPT,OPT (a "no-" prefix turns one off). */
enum runtime_opt {
	RUNTIME_OPT_OVERLAP_GRAD_REDUCE,  /* megatron-core, deepspeed */
	RUNTIME_OPT_OVERLAP_PARAM_GATHER, /* megatron-core */
	RUNTIME_OPT_TP_COMM_OVERLAP,      /* megatron-core (TE userbuffers) */
	RUNTIME_OPT_CUDA_GRAPHS,          /* megatron-core, torchtitan */
	RUNTIME_OPT_GRAD_REDUCE_FP32,     /* megatron-core */
	RUNTIME_OPT_FP8_PARAM_GATHER,     /* megatron-core (FP8 parameters) */
	RUNTIME_OPT_OVERLAP_MOE_EP_COMM,  /* megatron-core (EP A2A overlap) */
	RUNTIME_OPT_FP8_ALL_GATHER,       /* torchtitan (FSDP2 gathers FP8) */
	RUNTIME_OPT_FLEX_DISPATCHER,      /* megatron-core (DeepEP/HybridEP) */
	RUNTIME_OPT_DROPLESS,             /* deepspeed (MoE drop_tokens off) */
	RUNTIME_OPT_OP_FUSER,             /* megatron-core (TE op fuser) */
	RUNTIME_OPT_PAGED_STASH,          /* megatron-core (MoE paged stash) */
	RUNTIME_OPT_COMPILE,              /* torchtitan (torch.compile) */
	RUNTIME_OPT_ASYNC_TP,             /* torchtitan (micro-pipelined TP) */
	RUNTIME_OPT_EARLY_STOP,           /* torchtitan (AC early stop) */
	RUNTIME_OPT_TE_GRAPHS,            /* megatron-core (TE graphs of the
					     attention, router, preprocess) */
	RUNTIME_OPT_FP8_OUTPUT_PROJ,      /* megatron-core (MXFP8 LM head) */
	RUNTIME_OPT_TP_DGRAD_OVERLAP,     /* megatron-core (column-parallel
					     dgrad reduction beside wgrad) */
	RUNTIME_OPT_REPEAT_KV,            /* torchtitan (K/V repeated to the
					     query heads, before ff0829c10) */
	RUNTIME_OPT_FUSED_PROJ,           /* torchtitan (a model whose Q, K, V
					     and MLP halves are one linear
					     each: llm-foundry's, fms's) */
	RUNTIME_NOPT
};
extern const char *const runtime_opt_names[]; /* NULL-terminated */

/* Megatron-Core's moe_paged_stash_buffer_size_factor_cuda default
 * (transformer_config.py:1370 at d98e8a6): the pages a paged stash
 * holds over the balanced rows. */
#define RUNTIME_PAGED_STASH_FACTOR 1.10

struct runtime {
	int id;                 /* enum runtime_id */
	unsigned opts;          /* bits 1 << RUNTIME_OPT_* that are on */
	unsigned allowed_opts;  /* the sub-options this runtime has */
	unsigned sched_mask;    /* schedules it executes (1 << PLAN_*) */
	int max_depth_none;     /* "none" needs d <= this (1: plain DP) */
	int interleave;         /* runs interleaved 1F1B */
	int zero1;              /* shards optimizer state over replicas */
	/* ZeRO stages it runs (pd2bw-plan(1), SHARDING): bit z for stage z
	 * without a pipeline, zero_pipe_mask with one (d > 1) */
	unsigned zero_mask;
	unsigned zero_pipe_mask;
	int hsdp;               /* shards inside groups, replicates across */
	/* ZeRO-2 keeps the 16-bit parameters sharded between steps and
	 * gathers them before every microbatch's forward (FSDP2's
	 * reshard_after_forward=False); else they stay whole and are
	 * gathered once after the step (DeepSpeed, Megatron-FSDP) */
	int zero2_gather_mb;
	/* ZeRO-3 keeps a layer's gathered parameters from forward to
	 * backward when pipelined (torchtitan's default policy with PP) */
	int zero3_keep_pp;
	/* under a pipeline, sharded gradients are reduced after the last
	 * microbatch only, each parameter's whole gradient accumulated in
	 * the meantime (torch.distributed.pipelining with FSDP2) */
	int pp_nosync;
	/* under a pipeline, each stage keeps every microbatch's output from
	 * its forward to its backward and a buffer for every microbatch's
	 * incoming gradient (torch.distributed.pipelining) */
	int pp_bufs;
	int offload;            /* activation CPU offload, one stage only */
	int offload_rc;         /* ... also with recomputation */
	int offload_blocks;     /* offload "on" moves every transformer
				   block but the last (Megatron's
				   --cpu-offloading-num-layers), not every
				   layer but the stage's last */
	int selective;          /* selective (attention-core) recomputation */
	int mixed_rc;           /* a different recomputation per layer */
	int every_rc;           /* full recomputation of some blocks only,
				   counted over a rank's (--recompute-every;
				   any runtime with mixed_rc too) */
	int tp;                 /* tensor parallelism */
	int sp;                 /* Megatron-style sequence parallelism
				   with it */
	int cp;                 /* context parallelism (Transformer Engine's
				   K/V ring) */
	int ep;                 /* expert parallelism (all-to-all token
				   dispatcher) */
	int ep_tp_all_rows;     /* with the experts split like the tensor-
				   parallel layers, every tensor-parallel
				   rank dispatches all the rows, not 1/t */
	int ep_shared_overlap;  /* the shared experts' forward runs beside
				   the forward combine all-to-all */
	int ep_tp_drop;         /* with the experts split like the tensor-
				   parallel layers and no sequence
				   parallelism, each tensor-parallel rank
				   dispatches 1/t of the rows and gathers
				   the rest after the all-to-all */
	/* The experts' capacity: each of the E experts takes at most C =
	 * max(min_capacity, ceil(k capacity_factor tokens / E)) rows of a
	 * rank's tokens, the dispatch all-to-all moves E x C rows padded
	 * whatever the routing, and no rank receives more (analytic.c).
	 * capacity_factor is the runtime's when the model names none (0:
	 * dropless, the rows as routed); dropless ignores the model's too
	 * (every runtime but DeepSpeed's and Megatron-Core's, which take a
	 * model's). */
	double capacity_factor;
	int min_capacity;
	int dropless;
	/* The dispatcher reads the routing counts on the host every MoE
	 * layer (dropless routing: the rows per expert are not known
	 * before), so the host cannot run ahead of such a layer
	 * (compute.c host_ms()); a fixed capacity needs no such read, nor
	 * rows padded to the model's capacity (the chain's route). */
	int moe_sync;
	int moe_dense_dispatch; /* rows dispatched and combined by GEMMs
				   over the one-hot routing, not permuted
				   (DeepSpeed-MoE; analytic.c) */
	/* Derived from id and opts by runtime_set(). */
	int sync;               /* enum runtime_sync for flush/gpipe/none */
	double tp_hidden;       /* share of tensor-parallel traffic hidden */
	int cp_merge_f32;       /* its K/V ring merges and accumulates in
				   fp32 (PyTorch's; analytic_opts cp_f32) */
	int tp_dgrad_overlap;   /* the column-parallel layers' dgrad
				   reduction runs beside their wgrad GEMM
				   (analytic_opts tp_dgrad) */
	int sp_dim_copy;        /* its sequence-parallel collectives gather
				   and scatter the sequence dimension
				   through a copy: 1 each, 2 those async
				   TP leaves (analytic_opts sp_copy) */
	int split_proj;         /* its models project Q, K, V (and the
				   gated MLP's two halves) with separate
				   linears (analytic_opts split_proj) */
	int p2p_hidden_v;       /* interleaved, p2p overlaps the chunks */
	double host_us_per_kernel; /* CPU cost per kernel launch */
	double host_us_moe;     /* CPU cost per kernel of a MoE layer, which
				   the GPU waits for layer by layer */
	double host_ms_moe_sync; /* host work between a read of the routing
				   counts and the next kernel it issues, the
				   GPU idle: per MoE layer forward */
	double host_ms_per_mb;  /* fixed host cost per microbatch per stage */
	double bucket_params;   /* gradient bucket, parameters */
	double context_bytes;   /* CUDA context, NCCL and cuBLAS buffers */
	double frag;            /* allocator margin, share of activations */
	unsigned fusions;       /* kernels its model code fuses: the
				   ANALYTIC_FUSE_* bits (analytic.h) */
	int rope_plain;         /* fuses the rotary embedding only for plain
				   rotary positions, not YaRN's (model
				   rope_yarn) outside MLA */
	int fp8_recipe;         /* its default FP8 recipe (enum model_fp8) */
	int fp8_casts;          /* where it quantises (enum analytic_casts) */
	unsigned rc_op;         /* ANALYTIC_RC_OP: its selective
				   recomputation is the per-op policy
				   (torchtitan), else 0: a module list */
	int xent_copy;          /* the loss is PyTorch's cross_entropy,
				   whose backward allocates its fp32
				   gradients (analytic_opts): 1, or 2
				   where tensor parallelism runs it as
				   DTensor's loss parallel */
	int clamp_eager;        /* a gated MLP's clamp (model act_clamp)
				   runs as PyTorch ops of its own before
				   the activation (analytic_opts) */
	int rc_early_stop;      /* full recomputation stops once the
				   block's saved tensors are back: the
				   last MLP GEMM is not run again
				   (analytic_opts) */
	int vocab_pad;          /* the vocabulary padded to a multiple of
				   vocab_pad x tp (analytic_opts; 1: the
				   model's) */
};

/*
 * Set rt to runtime id with its default options.  The defaults are the
 * options a current recipe of that runtime uses (pd2bw-plan(1)).
 */
void runtime_init(struct runtime *rt, int id);

/*
 * Parse "NAME" or "NAME:OPT,no-OPT,..." into rt.  Returns 0, or -1 after
 * printing a message listing the valid names or options (a usage error).
 */
int runtime_parse(struct runtime *rt, const char *spec);

/* "NAME" or "NAME:OPT,no-OPT,..." into buf: the options that are on, and
 * "no-" before those on by default that are off, so that runtime_parse()
 * reads back exactly rt. */
void runtime_format(const struct runtime *rt, char *buf, size_t n);

/* Whether option o is on. */
static inline int
runtime_has(const struct runtime *rt, int o)
{
	return (rt->opts >> o) & 1;
}

/* The pages of its paged stash over the balanced rows, 0 without one. */
static inline double
runtime_paged_stash(const struct runtime *rt)
{
	return runtime_has(rt, RUNTIME_OPT_PAGED_STASH)
		       ? RUNTIME_PAGED_STASH_FACTOR
		       : 0;
}

/* Its graphs of the MoE layers' attention, router and preprocessing
 * (te-graphs), as analytic_opts moe_graphs takes them: 0 none, 1 under
 * the alltoall dispatcher, 2 under the flex one. */
static inline int
runtime_moe_graphs(const struct runtime *rt)
{
	if (!runtime_has(rt, RUNTIME_OPT_TE_GRAPHS))
		return 0;
	return runtime_has(rt, RUNTIME_OPT_FLEX_DISPATCHER) ? 2 : 1;
}

/*
 * The runtime that runs schedule sched at depth d when none was asked
 * for: pipedream-2bw for 2bw (and for "none" over several stages),
 * megatron-core for flush, torchtitan for gpipe, pytorch-ddp for one
 * stage without a pipeline.
 */
int runtime_default_for(int sched, int d);

/*
 * Whether rt can run a configuration; 0, or -1 with why in buf (which
 * names the runtime and the option).  rc is enum prof_rc or
 * PLAN_RC_MIXED.  Here and below, n = 0 (buf may be NULL) asks for the
 * verdict alone: nothing is written.
 */
int runtime_check(const struct runtime *rt, int sched, int d, int t, int v,
		  int zero, int rc, char *buf, size_t n);

/*
 * Whether rt trains in precision prec (enum model_prec), FP8 recipe fp8r,
 * bf16 blocks kept in 16 bits at either end, linear layers at precisions
 * of their own (mixed: --module-precision) and optimizer optim (enum
 * cost_optimizer): 0, or -1 with why in buf.
 */
/* Whether rt keeps most blocks in 16 bits at either end of nblocks over
 * d stages (Megatron-Core: at most a stage's share, transformer_config.py:
 * 1533-1560); -1 with why in buf when not. */
int runtime_check_bf16(const struct runtime *rt, int most, int nblocks,
		       int d, char *buf, size_t n);
int runtime_check_train(const struct runtime *rt, int prec, int fp8r,
			int bf16, int mixed, int optim, char *buf, size_t n);

/*
 * Whether rt can run context-parallel degree cp and expert-parallel
 * degree ep: 0, or -1 with why in buf.
 */
int runtime_check_par(const struct runtime *rt, int cp, int ep, char *buf,
		      size_t n);

/*
 * Whether rt can run a mixture of experts at expert-parallel degree ep
 * (1: none) with expert tensor parallelism etp (1 or t) on w data x c
 * context x t tensor-parallel ranks under ZeRO stage zero, sharded in
 * groups of shard data x context ranks (0: all): 0, or -1 with why in
 * buf (torchtitan: under FSDP only, inside one shard group; DeepSpeed:
 * not under ZeRO-3, groups inside a stage; pd2bw-plan(1), RUNTIMES).
 * Asked of MoE models only.
 */
int runtime_check_ep(const struct runtime *rt, int w, int c, int t, int etp,
		     int ep, int zero, int shard, char *buf, size_t n);

/*
 * Whether rt (NULL: none named) can hold a mixture of experts to a
 * per-GPU budget of rank_capacity x its rows (0: none), with activation
 * offload (offload) or not: 0, or -1 with why in buf.  The budget is
 * HybridEP's (the flex-dispatcher); paged-stash needs it and no offload
 * (Megatron-Core transformer_config.py:1868-1883, 2210-2217 at d98e8a6).
 */
int runtime_check_moe(const struct runtime *rt, double rank_capacity,
		      int offload, char *buf, size_t n);

/* Whether rt runs full recomputation of some blocks only
 * (--recompute-every): 0, or -1 with why in buf as runtime_check(). */
int runtime_check_every(const struct runtime *rt, char *buf, size_t n);

/*
 * Whether rt can run ZeRO stage zero (0-3) at depth d, sharded in groups
 * of shard data-parallel ranks (0: all of them; HSDP otherwise), with
 * activation offload (offload) under recomputation rc: 0, or -1 with
 * why in buf (naming the runtime and the option).
 */
int runtime_check_shard(const struct runtime *rt, int d, int zero, int shard,
			int offload, int rc, char *buf, size_t n);

#endif
