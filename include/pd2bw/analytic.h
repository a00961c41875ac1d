/*
 * analytic.h - estimate a profile from a model description and a catalog
 * GPU: FLOPs and bytes of every op against peak rates scaled by achievable
 * efficiencies (the "analytic" backend of pd2bw-profile, also used by
 * pd2bw-plan when given a model instead of a profile).
 */
#ifndef PD2BW_ANALYTIC_H
#define PD2BW_ANALYTIC_H

#include <stddef.h>

#include "pd2bw/catalog.h"
#include "pd2bw/kernels.h"
#include "pd2bw/model.h"
#include "pd2bw/profile.h"

/*
 * Fill p (profile_init'ed by the caller) with the chain embedding, block x
 * layers, head for microbatch sizes mb[0..nmb) at tensor-parallel degree
 * tp (heads and GEMMs divided by tp).  Returns 0 or -1.
 */
int analytic_profile(struct profile *p, const struct model *m,
		     const struct gpu_spec *g, const int *mb, int nmb, int tp);

/*
 * The same with sequence parallelism when sp != 0 and tp > 1: the norm and
 * dropout activations (Korthikanti et al.'s 10 s b h) and a fully
 * recomputed layer's input are split t ways too.  Their kernels' time is
 * left as without (a small overestimate).
 */
int analytic_profile_sp(struct profile *p, const struct model *m,
			const struct gpu_spec *g, const int *mb, int nmb,
			int tp, int sp);

/*
 * Fusions: which memory-bound chains of a block run as one kernel (on)
 * or as eager PyTorch's one kernel per operator (off); analytic.c says
 * what each costs unfused.
 */
enum analytic_fusion {
	ANALYTIC_FUSE_ACT = 1,     /* bias + GeLU, SwiGLU */
	ANALYTIC_FUSE_DROPADD = 2, /* bias + dropout + residual add */
	ANALYTIC_FUSE_ROPE = 4,    /* rotary embedding */
	ANALYTIC_FUSE_XENT = 8,    /* vocabulary-parallel cross-entropy */
	ANALYTIC_FUSE_NORM = 16,   /* RMSNorm (LayerNorm is one kernel anyway) */
	ANALYTIC_FUSE_ALL = 31
};

/* "act", "dropadd", "rope", "xent", "norm", in bit order; NULL-terminated. */
extern const char *const analytic_fusion_names[];

/*
 * Parse "all", "none" or a comma list of fusion names into *out.  Returns
 * 0, or -1 after printing a message naming the valid ones.
 */
int analytic_fusions_parse(const char *s, unsigned *out);

/* "all", "none" or the comma list of the fusions on, into buf. */
void analytic_fusions_format(unsigned f, char *buf, size_t n);

/* How the kernels run: what analytic_profile_sp() takes as given. */
/*
 * What selective recomputation recomputes (Megatron-Core's
 * --recompute-modules, transformer_config.py:563-570): each
 * module's outputs are dropped after the forward and its forward runs
 * again in backward.  The selective point of a block profile is the sum
 * of the modules chosen; core_attn alone is Megatron's default.
 */
enum analytic_rc_module {
	ANALYTIC_RC_CORE_ATTN = 1,   /* attention core (its s x s stash) */
	ANALYTIC_RC_MLA_UP_PROJ = 2, /* MLA's up-projections and rope: Q,
					K, V rebuilt from the latents */
	ANALYTIC_RC_MOE_ACT = 4,     /* the experts' activation output */
	ANALYTIC_RC_LAYERNORM = 8,   /* the two pre-norms' outputs */
	ANALYTIC_RC_MLP = 16,        /* a dense MLP's inner activations */
	ANALYTIC_RC_OP = 32,         /* torchtitan's per-op policy: every
					op but the saved matmuls and the
					attention core (alone, not with
					the modules above) */
	ANALYTIC_RC_MOE = 64,        /* a MoE layer whole: router,
					dispatch, experts and combine
					run again (moe_act within) */
	ANALYTIC_RC_ALL = 127
};

/* "core_attn", "mla_up_proj", "moe_act", "layernorm", "mlp", "op", in
 * bit order; NULL-terminated. */
extern const char *const analytic_rc_module_names[];

/*
 * Parse a comma list of module names into *out.  Returns 0, or -1 after
 * printing a message naming the valid ones, or saying that op, a policy
 * over every op of the block, takes no modules beside it.
 */
int analytic_rc_modules_parse(const char *s, unsigned *out);

/* The comma list of the modules in m, into buf. */
void analytic_rc_modules_format(unsigned m, char *buf, size_t n);

/*
 * The attention kernel: the GPU's own fused kernel (cuDNN's, or
 * FlashAttention-3 on Hopper: what Transformer Engine and torchtitan's
 * SDPA call, at the catalog's attn_eff), a FlashAttention-2-class one
 * (flash-attn 2, SDPA's flash backend: the catalog's attn_eff_fa2), or
 * the first FlashAttention algorithm written in Triton (flash-attn's
 * flash_attn_triton.py, which llm-foundry's attn_impl "triton" runs): the
 * FlashAttention-2-class rate over ANALYTIC_TRITON_SLOWDOWN.
 */
enum analytic_attn { ANALYTIC_ATTN_NATIVE, ANALYTIC_ATTN_FA2,
	ANALYTIC_ATTN_TRITON, ANALYTIC_ATTN_FP8 };

/*
 * How much slower the Triton FlashAttention kernel runs than a
 * FlashAttention-2-class one: Dao 2023 (FlashAttention-2, section 4.1)
 * times FlashAttention-2 1.3-2.5x faster than it; 1.4 is the value the
 * declared fit rows of bench/validate.sh (section H) choose in that range.
 */
#define ANALYTIC_TRITON_SLOWDOWN 1.4

/* "native", "fa2", "triton", "fp8"; NULL-terminated.  fp8 is the GPU's
 * own fused kernel with FP8 operands (Transformer Engine's FP8 dot-
 * product attention, Megatron-Core's --fp8-dot-product-attention): its
 * matmuls at the FP8 peak, for an FP8 model. */
extern const char *const analytic_attn_names[];

/*
 * The fraction of g's 16-bit tensor peak attention kernel attn (enum
 * analytic_attn) reaches: attn_eff, attn_eff_fa2 (attn_eff where the
 * catalog has none), or that over ANALYTIC_TRITON_SLOWDOWN.
 */
double analytic_attn_eff(const struct gpu_spec *g, int attn);

/*
 * The kinds of linear layer --module-precision names, as Transformer
 * Engine's per-module precision config names Megatron-Core's modules
 * (megatron/core/quantization/quant_config.py, matched on the module's
 * path): a block's attention QKV and output projections, its dense MLP's
 * two, the routed experts' (both), the shared experts', LatentMoE's
 * projections to and from the latent width, a Mamba mixer's input and
 * output projections, and the multi-token-prediction modules whole.
 */
enum analytic_site {
	ANALYTIC_SITE_QKV,
	ANALYTIC_SITE_PROJ,
	ANALYTIC_SITE_FC1,
	ANALYTIC_SITE_FC2,
	ANALYTIC_SITE_EXPERTS,
	ANALYTIC_SITE_SHARED,
	ANALYTIC_SITE_LATENT,
	ANALYTIC_SITE_MAMBA_IN,
	ANALYTIC_SITE_MAMBA_OUT,
	ANALYTIC_SITE_MTP,
	ANALYTIC_SITES
};
/* "qkv", "proj", "fc1", "fc2", "experts", "shared-experts", "latent",
 * "mamba-in", "mamba-out", "mtp"; NULL-terminated */
extern const char *const analytic_site_names[];
/* A site's precision (struct analytic_opts site_prec): 0 the model's;
 * 16 bits; NVFP4; FP8 with recipe r (enum model_fp8) ANALYTIC_MP_FP8 + r. */
#define ANALYTIC_MP_16 1
#define ANALYTIC_MP_NVFP4 2
#define ANALYTIC_MP_FP8 8
/*
 * Parse a --module-precision list, "SITE=PREC,..." (PREC bf16, delayed,
 * tensorwise, blockwise, mxfp8 or nvfp4; a site at most once) into out
 * (ANALYTIC_SITES entries, the others 0).  0, or -1 with the problem in
 * err (naming the item).
 */
int analytic_site_prec_parse(const char *spec, unsigned char *out,
			     char *err, size_t n);
/* The canonical form of site_prec (sites in enum order), "" when none
 * is set; into buf of n bytes. */
void analytic_site_prec_format(const unsigned char *site_prec, char *buf,
			       size_t n);
/* Whether any site's precision is set. */
int analytic_site_prec_any(const unsigned char *site_prec);

struct analytic_opts {
	unsigned fusions;   /* ANALYTIC_FUSE_* bits (default: all) */
	int fp8_recipe;     /* enum model_fp8 of an fp8 model (default:
			       delayed, Megatron-Core's) */
	int bf16_first,     /* of a quantised (FP8, NVFP4) model, the */
	    bf16_last;      /* blocks at the start and at the end kept in
			       16 bits (Megatron-Core's first_last_layers_
			       bf16; default 0, 0) */
	unsigned char site_prec[ANALYTIC_SITES]; /* of a quantised model,
			       each kind of linear layer's precision
			       (ANALYTIC_MP_*; default 0: the model's) */
	unsigned rc_modules; /* ANALYTIC_RC_* bits of the selective point
				(default: core_attn) */
	int attn;           /* enum analytic_attn (default: native) */
	int fp8_casts;      /* enum analytic_casts: where an FP8 model's
			       GEMM inputs are quantised (default: te) */
	int xent_copy;      /* the loss is PyTorch's cross_entropy on the
			       fp32 logits: nll_loss's backward writes a
			       dense fp32 gradient and log_softmax's
			       another; 2: under tensor parallelism as
			       DTensor's loss parallel decomposes them
			       (default 0: in place, Megatron's
			       vocabulary-parallel loss) */
	int rc_early_stop;  /* full recomputation stops once the block's
			       saved tensors are back (PyTorch's non-
			       reentrant checkpoint): the last MLP GEMM
			       and the residual add are not run again
			       (default 0: the whole forward, Megatron's) */
	int clamp_eager;    /* a model's act_clamp runs as eager PyTorch:
			       a clamp of each half and, before a fused
			       activation, their cat (default 1,
			       Megatron-Core's; 0: inside the
			       activation's kernel) */
	int vocab_pad;      /* the vocabulary padded to a multiple of
			       vocab_pad x tp rows (default
			       MODEL_MEGATRON_VOCAB_PAD, Megatron-Core's;
			       1: the model's own, split evenly) */
	/* The runtime's expert capacity (struct runtime): the capacity
	 * factor of a model that names none (default 0: dropless), the
	 * fewest rows per expert under one, and whether the model's own
	 * factor is ignored too (the runtime never drops) */
	double capacity_factor;
	int min_capacity;
	int dropless;
	/* the rows move by GEMMs over the one-hot routing (DeepSpeed-
	 * MoE's einsums), not by a permutation */
	int dense_dispatch;
	int fp8_head;       /* the output layer's GEMMs (the main head's
			       and the MTP modules' shared one) run in
			       MXFP8 (Megatron-Core's fp8_output_proj);
			       default 0: 16-bit */
	int moe_graphs;     /* the runtime replays each MoE layer's
			       attention, router and preprocessing as
			       graphs (Megatron-Core's te-graphs): 1 with a
			       dispatcher whose preprocessing reads the
			       routing under a capacity (alltoall), 2 with
			       one that does not (flex); default 0 */
	int tp_dgrad;       /* the runtime reduces the column-parallel
			       layers' input gradients beside their weight-
			       gradient GEMMs (runtime tp_dgrad_overlap;
			       default 0) */
	int tp_ub;          /* ... and Transformer Engine's userbuffers
			       overlap the sequence-parallel traffic
			       instead, where they act (tp-comm-overlap:
			       16-bit and FP8 under sequence parallelism) */
	int sp_copy;        /* sequence-parallel collectives rearranged by a
			       copy of what they gather or scatter (runtime
			       sp_dim_copy: DTensor's): 1 each, 2 the
			       backward reduce-scatters of summed input
			       gradients alone; default 0: none */
	int split_proj;     /* Q, K and V (and a gated MLP's two halves)
			       projected by separate linears, whose input
			       gradients backward sums (runtime
			       split_proj: torchtitan's models; default
			       0: one fused GEMM each, Megatron's) */
	int repeat_kv;      /* grouped K/V heads copied out to the query
			       heads before the attention kernel
			       (torchtitan's repeat_kv before ff0829c10;
			       default 0: the kernel reads them grouped) */
	int cp_f32;         /* context parallelism is PyTorch's ring, whose
			       corrections run eagerly in fp32 (runtime
			       cp_merge_f32; default 0: Transformer
			       Engine's, in place at 16 bits) */
	double paged_stash; /* the routed experts' activations for backward
			       kept in pages of this multiple of the
			       balanced rows, not in the dispatcher's
			       buffers (Megatron-Core's moe_paged_stash;
			       default 0: off) */
	int lora_rank;      /* LoRA: adapters of this rank train on the
			       blocks' linear layers of lora_targets, the
			       rest of the model frozen (default 0: full
			       training); see analytic_lora_share() */
	unsigned lora_targets; /* ANALYTIC_LORA_* bits; 0: all four
				  (Megatron-Bridge's default) */
};

/* The linear layers of a block LoRA adapters go on (analytic_opts
 * lora_targets): bit i names analytic_lora_target_names[i]. */
#define ANALYTIC_LORA_QKV 1u
#define ANALYTIC_LORA_PROJ 2u
#define ANALYTIC_LORA_FC1 4u
#define ANALYTIC_LORA_FC2 8u
#define ANALYTIC_LORA_ALL 15u
extern const char *const analytic_lora_target_names[];
/* "qkv,fc1" into *out; -1 after a message naming a bad name. */
int analytic_lora_targets_parse(const char *s, unsigned *out);
void analytic_lora_targets_format(unsigned m, char *buf, size_t n);

/*
 * The share of model m's parameters that LoRA adapters of rank r on its
 * blocks' linear layers of targets (ANALYTIC_LORA_* bits; 0: all) add
 * (and train): r (in + out) a layer against the model's parameters.  0
 * for r 0.
 */
double analytic_lora_share(const struct model *m, int r, unsigned targets);

/*
 * Where an FP8 model's GEMM inputs are quantised.  ANALYTIC_CASTS_TE:
 * as Transformer Engine's modules do (the norm before QKV and the first
 * MLP GEMM writes the FP8 copy, sequence-parallel layers quantise their
 * shard before an FP8 all-gather, the weight gradients use the saved
 * copies).  ANALYTIC_CASTS_EACH: every GEMM casts its own input from the
 * 16-bit tensor, the weight gradient's too, and activations are gathered
 * 16-bit (torchao's Float8Linear, as torchtitan runs FP8).
 */
enum analytic_casts { ANALYTIC_CASTS_TE, ANALYTIC_CASTS_EACH };

/*
 * The quantised copies an FP8 tensor keeps under casts (enum
 * analytic_casts) and recipe (enum model_fp8): rowwise and columnwise
 * (per-tensor FP8: the transpose; MXFP8 and blockwise: their columnwise
 * scales), 2; 1 for Transformer Engine's per-tensor copies (delayed,
 * tensorwise) on a GPU whose FP8 GEMMs take either layout (any_layout:
 * Blackwell, the catalog's MXFP8 parts), where the one copy serves both
 * (Float8Quantizer and Float8CurrentScalingQuantizer make no transpose
 * where nvte_is_non_tn_fp8_gemm_supported(): sm 10.x-11.x, pytorch/csrc/
 * quantizer.cpp:361-375, 678-689 and common/transformer_engine.cpp:
 * 1191-1201 at d0067d0da; the same test since TE 2.0, pytorch/csrc/
 * extensions/util.cpp:11-14 at v2.0).  torchao's casts keep both: its
 * _scaled_mm takes one layout.
 */
int analytic_fp8_copies(int any_layout, int casts, int recipe);

/* The defaults: every fusion, delayed scaling, core_attn, the native
 * attention kernel. */
void analytic_opts_init(struct analytic_opts *o);

/* analytic_profile_sp() with the options o. */
int analytic_profile_opts(struct profile *p, const struct model *m,
			  const struct gpu_spec *g, const int *mb, int nmb,
			  int tp, int sp, const struct analytic_opts *o);

/*
 * How a profile's shapes are split: tensor parallelism tp (with sequence
 * parallelism sp) and context parallelism cp, under which each rank holds
 * s / cp of every sequence (Megatron's zigzag split into 2 cp chunks for
 * a causal mask) and attention runs Transformer Engine's K/V ring: each
 * block point then carries the bytes of K and V a rank sends per ring
 * step and its attention passes (struct prof_point), for the planner to
 * price against the ring's links.
 */
struct analytic_par {
	int tp, sp, cp;
	int ep;           /* expert parallelism: experts / ep per GPU, and
			     each MoE block carries the bytes of its
			     dispatch all-to-all */
	double imbalance; /* the busiest GPU's expert rows over the
			     balanced share (>= 1; 1: balanced) */
	int etp;          /* expert tensor parallelism: 1 (whole experts)
			     or tp (0: tp, Megatron's default) */
	double rank_capacity; /* dropless routing with a per-rank budget of
				 rank_capacity x the balanced rows (0:
				 none): Megatron-Core's
				 moe_expert_rank_capacity_factor under
				 HybridEP, whose buffers hold the budget
				 whatever arrives, and which drops the rows
				 beyond it */
};

/* par for tensor parallelism tp alone (sequence parallelism sp): no
 * context or expert parallelism, experts split like the rest. */
void analytic_par_init(struct analytic_par *par, int tp, int sp);

/*
 * Whether model m can run context-parallel degree cp: 0, or -1 with why
 * in why (the sequence not in equal chunks, attention not fused, a
 * sliding window).
 */
int analytic_cp_check(const struct model *m, int cp, char *why, size_t n);

/*
 * The expert rows a rank's n tokens make, routed to top_k of experts:
 * n top_k without a capacity (cf <= 0), else E x C padded, C =
 * max(min_capacity, ceil(n / E x cf x top_k)) rows per expert.
 */
double analytic_expert_rows(double n, int64_t top_k, int64_t experts,
			    double cf, int min_capacity);

/*
 * Whether model m can run expert-parallel degree ep: 0, or -1 with why
 * (a dense model, ep not dividing the experts).
 */
int analytic_ep_check(const struct model *m, int ep, char *why, size_t n);

/*
 * analytic_profile_sp() with the split par and the options o (NULL: the
 * defaults).  Returns 0 or -1.
 */
int analytic_profile_par(struct profile *p, const struct model *m,
			 const struct gpu_spec *g, const int *mb, int nmb,
			 const struct analytic_par *par,
			 const struct analytic_opts *o);

/* The kinds of kernel the analytic model rates differently. */
enum analytic_class {
	ANALYTIC_GEMM,     /* linear layers, against gemm_eff */
	ANALYTIC_ATTN,     /* attention's matmuls, against attn_eff */
	ANALYTIC_VEC,      /* elementwise, norms, softmax: bytes, mem_eff */
	ANALYTIC_NCLASS
};

/*
 * analytic_profile() that also splits each point's forward + backward
 * time by kind of kernel: cls[l * nmb + i][c] milliseconds for layer l
 * (embedding, block, head) at microbatch mb[i].  Returns 0 or -1.
 */
int analytic_profile_classes(struct profile *p, const struct model *m,
			     const struct gpu_spec *g, const int *mb, int nmb,
			     int tp, double (*cls)[ANALYTIC_NCLASS]);

/*
 * analytic_profile_par() that also lists, in ks (zeroed by the caller,
 * freed with kernels_free()), what the estimate is made of, kernel by
 * kernel: for each layer of the profile, microbatch size and pass, the
 * kernels of each operation the model prices, with their count and time,
 * adding up to the point's forward and backward times.  An operation is
 * named after what it computes ("norm", "rope", "attention",
 * "activation", ...; a GEMM by its shape, "gemm MxKxN", its input's
 * quantisation apart as "quantize"; the experts' grouped GEMMs "experts
 * gemm MxKxN x E", M the rows of each of the E experts).  The selective
 * recomputation is listed by module (core_attn, layernorm, moe_act, ...;
 * torchtitan's per-op policy as one, per-op), adding up to the point's
 * selective recomputation time; full recomputation runs the forward
 * again.  Returns 0 or -1.
 */
int analytic_profile_kernels(struct profile *p, const struct model *m,
			     const struct gpu_spec *g, const int *mb,
			     int nmb, const struct analytic_par *par,
			     const struct analytic_opts *o,
			     struct kernel_list *ks);

/*
 * Share of the GPU's gemm_eff an [M x K] x [K x N] GEMM reaches on sms
 * SMs (0: unknown, only the K term): tile padding, wave quantisation and
 * the K loop's prologue, for the best of the usual tile shapes.
 */
double analytic_gemm_shape_eff(int sms, double M, double K, double N);

/*
 * Milliseconds the model gives one 16-bit (fp32: fp32 rate and bytes)
 * linear layer's GEMM of M tokens, K inputs and N outputs on g, as a
 * layer's linear GEMMs are priced: the launch, the shape's share of
 * gemm_eff, or the bytes at HBM speed where they take longer.
 */
double analytic_gemm_ms(const struct gpu_spec *g, int fp32, double M,
			double K, double N);

/*
 * The same GEMM in a Transformer Engine linear layer's forward at
 * precision prec (enum model_prec: bf16, fp16, fp8 with FP8 recipe
 * recipe, or nvfp4), as Transformer Engine's GEMM benchmark times it
 * (benchmarks/gemm/benchmark_gemm.py): with quantize, the input and the
 * weight are quantised on the call (its autocast mode: a te.Linear
 * forward), the input's copies for forward and backward and the
 * weight's alike; without, they come quantised (its pre-quantized mode).
 * What a training step pays for its quantisation is less (the weights'
 * copies are made once an update, a norm may write the input's): the
 * layers' estimate prices that.  Milliseconds.
 */
double analytic_linear_ms(const struct gpu_spec *g, int prec, int recipe,
			  double M, double K, double N, int quantize);

/* Default microbatch sizes: 1, 2, 4, ... up to 64. */
extern const int analytic_default_mb[];
extern const int analytic_default_nmb;

#endif
