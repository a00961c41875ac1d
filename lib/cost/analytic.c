/*
 * analytic.c - the analytic profile backend: a per-layer profile (embedding,
 * transformer block x layers, final norm + head + loss) estimated from the
 * FLOPs and bytes of every op against a catalog GPU's peak rates.
 *
 * Time of one op (one kernel) = max(FLOPs / (peak x efficiency),
 * bytes moved / (bandwidth x mem_eff)) + kernel_us.  GEMMs use gemm_eff,
 * attention's matmuls (batched QK^T and P V, or one fused flash kernel)
 * attn_eff, both against the dense 16-bit tensor peak (the fp32 peak for
 * fp32 models: TF32 is not assumed); elementwise ops count their FLOPs
 * against the fp32 peak and are bound by their bytes in practice.
 * Backward of a GEMM is two GEMMs (dgrad and wgrad) of the forward's
 * FLOPs each; wgrad accumulates into fp32 main gradients (read + write,
 * 8 bytes per weight, Megatron's gradient-accumulation fusion).
 *
 * Tensor parallelism t divides heads, the QKV, projection and MLP widths
 * and the vocabulary (Megatron's column/row-parallel layers, vocabulary-
 * parallel embedding and loss); norms, dropout and residual activations
 * stay whole (Korthikanti et al. 2022, Table 2), but for sequence
 * parallelism, which runs them on 1/t of the tokens (norm_ms(),
 * dropadd_ms(): their time; block_stash(): their memory).
 * The tensor-parallel all-reduces are not in the layer times: the planner
 * charges them against its links.  With GQA and t > kv_heads, each GPU
 * keeps one (replicated) KV head.
 *
 * Stashed bytes are counted tensor by tensor (see block_stash()); for the
 * GPT block with dropout and unfused attention they are Korthikanti's
 * s b h (34 + 5 a s / h) plus the per-token statistics of the two
 * LayerNorms (mean and 1/std in fp32, 16 bytes per token) that the paper
 * leaves out.  Fused (flash) attention stores no s x s tensor, only the
 * output (kept anyway as the projection's input) and a fp32 log-sum-exp
 * per row and head; its backward recomputes QK^T (2.5x the forward's
 * attention FLOPs) and, for causal models, skips the masked half of the
 * s x s blocks, as FlashAttention does.  fwd_flops counts matmul FLOPs with
 * the full s x s (the model-FLOPs convention), whatever the kernel skips.
 *
 * GEMM efficiency depends on the shape (design.md section 10): the output
 * is cut into tiles, and tiles run in waves over the GPU's SMs, so a GEMM
 * runs at gemm_eff x (useful share of its padded tiles) x (share of its
 * last wave that is full), for the best of cuBLAS's usual tile shapes
 * (128x128, 128x256, 256x128, 64x128), times K / (K + 128) for the
 * prologue and epilogue of each tile's K loop.  gemm_eff is what a large
 * square GEMM reaches.  Without an SM count in the catalog only the K
 * term applies.  FP8 models run their linear layers' GEMMs at the FP8
 * peak (Transformer Engine); attention stays 16-bit.
 *
 * Every op is one kernel; each point counts its kernels (forward and
 * backward) so the planner can put a runtime's host cost per launch
 * against them.
 *
 * Fusions (analytic.h, ANALYTIC_FUSE_*) say which memory-bound chains run
 * as one kernel.  Fused, each is one pass over its tensors; unfused, it
 * runs as the eager PyTorch code of Megatron-Core does it, a pass per
 * operator:
 *  - act: bias + GeLU is two passes (bias add, GeLU), and SwiGLU's
 *    silu(x0) * x1 two forward (silu, mul) and four backward (two muls,
 *    silu's backward, the cat of the two halves' gradients), keeping
 *    silu(x0) for the backward (megatron/core/transformer/mlp.py);
 *    squared ReLU is relu then pow, always (mlp.py fuses only GeLU and
 *    SwiGLU, "Only support fusion of gelu and swiglu");
 *  - dropadd: bias add, dropout and the residual add are one pass each
 *    (megatron/core/fusions/fused_bias_dropout.py);
 *  - rope: x cos + rotate_half(x) sin, with rotate_half's negation and
 *    concatenation and the final concatenation, six passes forward and
 *    five backward for each of Q and K (megatron/core/models/common/
 *    embeddings/rope_utils.py, _apply_rotary_pos_emb_bshd);
 *  - xent: the vocabulary-parallel cross-entropy upcasts the logits, then
 *    max, subtract, exp, sum and divide are a pass each over n V/t fp32
 *    values, and the backward a multiply and the downcast
 *    (megatron/core/tensor_parallel/cross_entropy.py);
 *  - norm: an RMSNorm runs as the Python module of the eager runtimes'
 *    models, eight kernels forward and fourteen backward, keeping its
 *    input in fp32 (norm_x_ms()); a LayerNorm is PyTorch's one kernel
 *    either way.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/analytic.h"
#include "pd2bw/error.h"
#include "pd2bw/names.h"

const int analytic_default_mb[] = {1, 2, 4, 8, 16, 32, 64};
const int analytic_default_nmb =
	(int)(sizeof(analytic_default_mb) / sizeof(analytic_default_mb[0]));

enum op_class { OP_GEMM = ANALYTIC_GEMM, OP_ATTN = ANALYTIC_ATTN,
	OP_VEC = ANALYTIC_VEC };

/* Shapes of one layer on one GPU at one microbatch size. */
struct shape {
	const struct gpu_spec *g;
	double tensor_tflops;
	double attn_tflops;       /* the attention matmuls' peak */
	double block_cost;        /* tiles a query block's fixed work costs
				     (attn_tile_share()) */
	int fp8_attn;             /* the fused attention kernel is cuDNN's
				     FP8 one (analytic_opts attn fp8) */
	double attn_eff;    /* the attention kernel's fraction of the peak
			       (forward) */
	double attn_bwd;    /* its backward's fraction over its forward's */
	double score_f, score_b; /* FLOPs a score costs a pass at least */
	double b, s, n;     /* microbatch, sequence, tokens n = b sq */
	double c, sq;       /* context-parallel degree; queries (tokens) per
			       rank, s / c: each rank's queries meet all s
			       keys over the ring's c steps */
	double h, e;        /* hidden, bytes per element */
	double at, kvt, dh; /* query and KV heads per GPU, head size */
	double ht, qt;      /* attention width at dh, QKV width (at+2kvt) dh */
	double ft, vt;      /* MLP width and vocabulary per GPU */
	double statb;       /* norm statistics per token, bytes */
	double normf;       /* elementwise FLOPs per element of the norm */
	int rms;            /* the norms are RMSNorms (norm_x_ms()) */
	int swiglu, drop, flash, causal, rotary, bert, bias;
	int learned;         /* learned positions (an embedding table) */
	int sqrelu;         /* squared ReLU: never fused (see act_ms) */
	int clamp;          /* the experts' halves clamped eagerly (model
			       act_clamp, analytic_opts clamp_eager) */
	unsigned fuse;      /* ANALYTIC_FUSE_* bits: chains run as one kernel */
	unsigned rcm;       /* ANALYTIC_RC_* bits: selective recomputation */
	int fp8r;           /* enum model_fp8: how FP8 operands are scaled */
	int casts;          /* enum analytic_casts: where they are cast */
	double t;           /* tensor-parallel degree */
	int sp;             /* sequence parallelism: norm and dropout regions
			       hold 1/t of the tokens */
	double *cls_ms;     /* when set, op_ms adds each kernel's time to
			       cls_ms[its class] */
	int fp8;            /* linear layers quantised, at the FP8 peak
			       (blocks only: Megatron keeps the embedding
			       and the output layer 16-bit) */
	int fp4;            /* ... and the quantisation is NVFP4, at the
			       NVFP4 peak */
	double qb;          /* bytes per value of a quantised copy: FP8 1,
			       NVFP4 half a byte and an E4M3 scale per 16 */
	double nk;          /* kernels counted since the point began */
	/* Format 2 parts (all zero for the models of format 1). */
	double lora;        /* LoRA adapters' rank (0: full training) */
	int frozen;         /* the base model's weights take no gradient */
	int lora_on;        /* pricing a block: its linears carry adapters */
	unsigned lora_mask; /* ... those of these ANALYTIC_LORA_* bits */
	unsigned lora_site; /* the linear being priced (ANALYTIC_LORA_*) */
	const unsigned char *site_prec; /* --module-precision (struct
			       analytic_opts), or NULL */
	int psite;          /* the linear being priced (enum
			       analytic_site), -1 none */
	int in_mtp;         /* pricing a multi-token-prediction module */
	double p16;         /* weights the forward ran in 16 bits where
			       --module-precision keeps them so (elements,
			       summed while pricing a block) */
	double doc;         /* tokens per document (packed sequences: the
			       model's doc_len), s when one fills it */
	double afrac;       /* share of the s x s blocks a fused attention
			       kernel computes: 1/2 causal, less in a window */
	double span;        /* keys per query of this layer: s or window */
	int mla;            /* multi-head latent attention */
	double dqk, dv;     /* MLA: score and value head sizes */
	double qr, kvr, rd; /* MLA: query and KV latents, shared rope key */
	int moe;            /* this block's MLP is a mixture of experts */
	double ne, ntok;    /* experts, expert-token rows (n top_k, padded
			       to the capacity factor) */
	double ep, nel;     /* expert-parallel degree, experts per GPU */
	double etp;         /* expert tensor parallelism: t (the experts
			       split t ways, all rows on every GPU) or 1
			       (whole experts, 1/t of the rows) */
	double imb;         /* load imbalance: the busiest GPU's rows over
			       the balanced share */
	double rcap;        /* a per-rank budget over that share whose
			       buffers are static (analytic_par's
			       rank_capacity; 0: none): what the experts'
			       tensors hold */
	double pstash;      /* analytic_opts paged_stash */
	double fe, sf;      /* expert and shared-expert width per GPU */
	double eh;          /* the width the routed experts' rows move and
			       multiply at: h, or LatentMoE's latent */
	int lat;            /* LatentMoE: projections h -> eh and back */
	double shf;         /* moe_ms(): the shared experts' forward ms */
	double gnk;         /* moe_ms(), moe_bwd_ms(): the kernels counted
			       before the dispatch, before the router's
			       backward */
	int qk_norm, post_norms;
	double attn_cap, logit_cap; /* soft-capping on (non-zero) */
	double topk;        /* routed experts per token */
	int xcopy;          /* analytic_opts xent_copy */
	int early;          /* analytic_opts rc_early_stop */
	int ptcp;           /* analytic_opts cp_f32: PyTorch's ring */
	int split;          /* analytic_opts split_proj (not MLA) */
	int spcopy;         /* analytic_opts sp_copy under sequence
			       parallelism (0: none) */
	double spag;        /* ... bytes a value of the forward gathers'
			       copies */
	double kva;         /* K/V heads per GPU the attention kernel reads:
			       kvt, or at where the runtime repeats them
			       (analytic_opts repeat_kv) */
	int fp8head;        /* analytic_opts fp8_head, in an MXFP8 model */
	int dd;             /* dense dispatch: rows move by GEMMs over the
			       one-hot [n, E x C] (dense_dispatch_ms()) */
	int v2;             /* a format-2 model: FLOPs by block_flops_v2() */
	/* A hybrid model's layer (model pattern): which sublayers this
	 * block has; a transformer block has attention and an MLP. */
	int has_attn, has_mlp, mamba;
	double mf, mfk;     /* block_point(): the MoE layer's forward ms
			       and kernels */
	/* Mamba-2 per GPU: heads, their size, the state, groups, taps,
	 * chunk, d_inner (mh mp) and the input projection's width */
	double mh, mp, mN, mg, mconv, mQ, mdi, min;
	/* analytic_profile_kernels(): where each kernel is listed (NULL:
	 * nowhere), under which layer, microbatch and pass (-1: a kernel
	 * priced to derive a figure, not run) */
	struct kernel_list *ks;
	int ks_layer, ks_mb, ks_pass;
	size_t ks_from;     /* the current point's first entry */
	int ks_nosel;       /* block_point(): its selective recomputation
			       is not the layer's (the MTP modules') */
	double core_nk;     /* block_point(): the attention core's
			       forward kernels */
	double gm, gk, gn, ge; /* the GEMM being priced: rows, inputs,
				  outputs, experts (0: one GEMM) */
};

/*
 * The label of a kernel that the function who priced (or an operation's
 * own name): what it computes, as analytic_profile_kernels() lists it.
 */
static const char *
ks_label(const char *who)
{
	static const char *const map[][2] = {
		{"act_ms", "activation"},
		{"act_bwd_ms", "activation"},
		{"core_ms", "attention"},
		{"core_bwd_ms", "attention"},
		{"mla_core_ms", "attention"},
		{"mla_core_bwd_ms", "attention"},
		{"ring_ms", "attention correction"},
		{"dropadd_ms", "dropout-add"},
		{"dropadd_bwd_ms", "dropout-add"},
		{"embed_point", "embedding"},
		{"head_point", "cross-entropy"},
		{"mtp_point", "mtp embedding"},
		{"norm_x_ms", "norm"},
		{"quant_ms", "quantize"},
		{"nvfp4_quant_ms", "quantize"},
		{"rowwise_quant_ms", "quantize"},
		{"spcopy_ms", "sequence-parallel copy"},
		{"sort_chunks_ms", "sort chunks"},
		{"expert_bias_ms", "expert bias"},
		{"fp8_pad_ms", "fp8 padding"},
		{"dense_dispatch_ms", "dense dispatch"},
		{"repeat_kv_ms", "repeat kv"},
		{"split_sum_ms", "split sum"},
		{"clamp_ms", "clamp"},
		{"rope_ms", "rope"},
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(who, map[i][0]))
			return map[i][1];
	return who;
}

/* Add ms over calls kernels to the entry of name in sh's current point
 * and pass. */
static void
ks_put(struct shape *sh, int pass, const char *name, long calls, double ms)
{
	kernels_add(sh->ks, sh->ks_from, sh->ks_layer, sh->ks_mb, pass,
			name, calls, ms);
}

/* A kernel of class cls that who priced, ms long. */
static void
ks_kernel(struct shape *sh, int cls, const char *who, double ms)
{
	char name[96];

	/* the attention kernels, and the SSD scan's by name */
	if (cls == OP_ATTN && strncmp(who, "ssd ", 4))
		who = "attention";
	else if (cls == OP_GEMM && sh->ge > 1)
		snprintf(name, sizeof(name), "experts gemm %.0fx%.0fx%.0f x %.0f",
			 sh->gm, sh->gk, sh->gn, sh->ge);
	else if (cls == OP_GEMM)
		snprintf(name, sizeof(name), "gemm %.0fx%.0fx%.0f", sh->gm,
			 sh->gk, sh->gn);
	ks_put(sh, sh->ks_pass, cls == OP_GEMM ? name : ks_label(who), 1, ms);
}

/* The kernels of an operation priced once and run again (calls of them,
 * ms long), listed again under the current pass. */
static void
ks_again(struct shape *sh, const char *name, double calls, double ms)
{
	if (sh->ks && sh->ks_pass >= 0)
		ks_put(sh, sh->ks_pass, name, (long)calls, ms);
}

/* List the kernels of the point of layer l at microbatch index i in ks
 * (NULL: nowhere) from now on. */
static void
ks_point(struct shape *sh, struct kernel_list *ks, int l, int i)
{
	sh->ks = ks;
	sh->ks_layer = l;
	sh->ks_mb = i;
	sh->ks_pass = -1;
	sh->ks_nosel = 0;
	sh->ks_from = ks ? ks->n : 0;
}

/* A part of the selective recomputation, ms over calls kernels. */
static void
ks_sel(struct shape *sh, const char *name, double calls, double ms)
{
	if (sh->ks && !sh->ks_nosel && ms > 0)
		ks_put(sh, KERNEL_PASS_SEL, name, (long)calls, ms);
}

/* Milliseconds of one kernel running at eff of its class's rate. */
static double
kernel_ms(struct shape *sh, int cls, double flops, double bytes, double eff,
	  const char *who)
{
	const struct gpu_spec *g = sh->g;
	double rate, t;

	if (cls == OP_GEMM)
		rate = (!sh->fp8 ? sh->tensor_tflops
			: sh->fp4 ? g->tflops4 : g->tflops8) * 1e12 *
		       g->gemm_eff * eff;
	else if (cls == OP_ATTN)
		rate = sh->attn_tflops * 1e12 * sh->attn_eff;
	else
		rate = g->tflops32 * 1e12;
	t = fmax(flops / rate, bytes / (g->mem_gb_s * 1e9 * g->mem_eff));
	t = (t + g->kernel_us * 1e-6) * 1e3;
	if (sh->cls_ms)
		sh->cls_ms[cls] += t;
	if (sh->ks && sh->ks_pass >= 0)
		ks_kernel(sh, cls, who, t);
	sh->nk++;
	return t;
}

/* One kernel that who prices (its caller: op_ms()), or an operation
 * named who (op_named()). */
static double
op_ms_at(struct shape *sh, int cls, double flops, double bytes,
	 const char *who)
{
	return kernel_ms(sh, cls, flops, bytes, 1, who);
}

#define op_ms(sh, cls, flops, bytes) \
	op_ms_at((sh), (cls), (flops), (bytes), __func__)
#define op_named(sh, name, cls, flops, bytes) \
	op_ms_at((sh), (cls), (flops), (bytes), (name))

/* k elementwise kernels sharing flops and bytes evenly. */
static double
passes_ms_at(struct shape *sh, int k, double flops, double bytes,
	     const char *who)
{
	double t = 0;
	int i;

	for (i = 0; i < k; i++)
		t += op_ms_at(sh, OP_VEC, flops / k, bytes / k, who);
	return t;
}

#define passes_ms(sh, k, flops, bytes) \
	passes_ms_at((sh), (k), (flops), (bytes), __func__)

static int
fused(const struct shape *sh, unsigned f)
{
	return (sh->fuse & f) != 0;
}

/*
 * Share of gemm_eff an [M x K] x [K x N] GEMM reaches: tile padding and
 * wave quantisation over the SMs for the best tile shape, and the K loop's
 * prologue and epilogue.
 */
double
analytic_gemm_shape_eff(int sms, double M, double K, double N)
{
	static const double tiles[][2] = {
		{128, 128}, {128, 256}, {256, 128}, {64, 128},
	};
	double best = 0, ke = K / (K + 128);
	size_t i;

	if (M < 1 || N < 1 || K < 1)
		return 1;
	if (sms < 1)
		return ke;
	for (i = 0; i < sizeof(tiles) / sizeof(tiles[0]); i++) {
		double tm = tiles[i][0], tn = tiles[i][1];
		double rm = ceil(M / tm), rn = ceil(N / tn), nt = rm * rn;
		double pad = M * N / (rm * tm * rn * tn);
		double wave = nt / (ceil(nt / sms) * sms);
		/* a tile too large for the problem wastes the whole SM */
		double e = pad * wave;

		if (e > best)
			best = e;
	}
	return best * ke;
}

/*
 * Where an FP8 GEMM's [M x K] operand is quantised, as Transformer Engine
 * runs Megatron-Core's layers (@d0067d0da):
 *   Q_OWN    a cast-transpose kernel of its own (TELinear's input, the
 *            attention projection's and the second MLP GEMM's: Megatron
 *            computes the activation itself, use_te_activation_func off
 *            by default, transformer_config.py:1199; every dgrad's grad
 *            output, module/base.py grad_output_preprocess);
 *   Q_NORM   by the norm of a TELayerNormColumnParallelLinear (QKV, the
 *            first MLP GEMM): the delayed recipe's norm kernel writes
 *            FP8 itself, current scaling's writes 16-bit with its amax
 *            and one quantising pass follows, MXFP8 and blockwise quantise
 *            in a pass of their own (csrc/extensions/normalization.cpp
 *            lines 106-120);
 *   Q_SAVED  the copies the forward kept (the wgrad GEMMs: no pass).
 */
enum quant_at { Q_OWN, Q_NORM, Q_SAVED };

/*
 * Quantising x elements of a 16-bit GEMM operand to NVFP4, wherever it
 * happens: the recipe's inputs and gradients take a random Hadamard
 * transform for their columnwise (wgrad) copy, whose amax the norm
 * cannot give, so a norm before the GEMM writes 16 bits as it would
 * alone (transformer_engine/common/recipe/__init__.py NVFP4BlockScaling,
 * fp4_quant_fwd_inp and fp4_quant_bwd_grad; pytorch/csrc/extensions/
 * normalization.cpp lines 119-125: Impl::UNFUSED).  Then two passes
 * (pytorch/csrc/quantizer.cpp NVFP4Quantizer::quantize_impl, lines
 * 2629-2711 @d0067d0da): the amaxes of the values and of their
 * transform (nvte_hadamard_transform_amax, a read), and one kernel that
 * writes the rowwise copy and the transformed columnwise one, each half
 * a byte a value and an E4M3 scale per 16 (nvte_quantize_with_hadamard_
 * transform; the 16 x 16 transform runs on the tensor cores).
 */
static double
nvfp4_quant_ms(struct shape *sh, double x)
{
	double e = sh->e;

	/* frozen (LoRA, quant_ms()): the rowwise copy alone */
	if (sh->frozen)
		return op_ms(sh, OP_VEC, x, x * e) +
		       op_ms(sh, OP_VEC, x, x * e + sh->qb * x);
	return op_ms(sh, OP_VEC, x, x * e) +
	       op_ms(sh, OP_VEC, 2 * x, x * e + 2 * sh->qb * x);
}

/*
 * Quantising x elements of a 16-bit GEMM operand with torchao's rowwise
 * recipe (Float8LinearRecipeName.ROWWISE: every operand scaled along its
 * reduction axis, torchao/float8/config.py), as torchao's own roofline
 * counts a tensor's two copies (torchao/testing/training/roofline_utils.py
 * get_tensor_memory_traffic_ovhd_s, "rowwise", at 36027d82d): the cast
 * along the rows fuses the rows' amaxes (read 16 bits, write one byte a
 * value, an fp32 scale a row), the other axis needs the 16-bit tensor
 * transposed first (read and write 16 bits) and cast again.  A per-tensor
 * cast, against it, reads the tensor for its amax once and then casts
 * (quant_ms()).  The scales are rounded down to powers of two (config.py
 * round_scales_to_power_of_2), within the casts.  Its rowwise_with_gw_hp
 * casts each operand once, along its rows (the same roofline's
 * "rowwise_with_gw_hp": the weight's tensorwise copy for the input
 * gradient is the other operand's, not priced, as no right operand is):
 * the weight gradient's GEMM takes the saved 16-bit tensors (gemm_op()).
 */
static double
rowwise_quant_ms(struct shape *sh, double x)
{
	double e = sh->e;

	if (sh->fp8r == FP8_ROWWISE_GW_HP)
		return op_ms(sh, OP_VEC, 2 * x, x * (e + 1));
	return op_ms(sh, OP_VEC, 2 * x, x * (e + 1)) +
	       op_ms(sh, OP_VEC, 0, 2 * x * e) +
	       op_ms(sh, OP_VEC, 2 * x, x * (e + 1));
}

/* analytic.h */
int
analytic_fp8_copies(int any_layout, int casts, int recipe)
{
	if (any_layout && casts == ANALYTIC_CASTS_TE &&
	    (recipe == FP8_DELAYED || recipe == FP8_TENSORWISE))
		return 1;
	return 2;
}

/*
 * Quantising x elements of a 16-bit GEMM operand to FP8 at q.  A pass of
 * its own reads the 16-bit values once and writes the FP8 copy and its
 * transpose (mxfp8: the rowwise and columnwise copies with an E8M0 scale
 * per 32 values; blockwise: an fp32 scale per 128).  The delayed recipe
 * takes its scale from the amax history and records the new amax in the
 * same pass; tensorwise (current scaling) needs the tensor's amax first,
 * a pass of its own unless the norm before it computed it, and turns it
 * into the scale in a one-thread kernel before the cast; its own amax
 * pass starts from a one-thread kernel that zeroes the amax
 * (Float8CurrentScalingQuantizer::quantize_impl, pytorch/csrc/
 * quantizer.cpp lines 1008-1028, and common/recipe/current_scaling.cu
 * lines 76 and 331 @d0067d0da: zero, amax, scale, cast).  After a
 * delayed-recipe norm only the transpose remains (read and write one
 * byte a value).  Where one copy serves (analytic_fp8_copies():
 * Transformer Engine's per-tensor copies on Blackwell) the cast writes
 * it alone, and a delayed-recipe norm leaves nothing to do.  A frozen
 * linear's (LoRA) input and grad output need their rowwise copy alone:
 * no weight gradient reads the columnwise one (module/linear.py:303,
 * 386-389 and 918-923 at d0067d0da: backward_needs_input and
 * requires_wgrad follow weight.requires_grad).
 */
static double
quant_ms(struct shape *sh, double x, enum quant_at q)
{
	double e = sh->e, t = 0, scales = 0;
	int one = sh->frozen ||
		  analytic_fp8_copies(sh->g->mxfp8, sh->casts, sh->fp8r) == 1;

	if (q == Q_SAVED || x <= 0)
		return 0;
	if (sh->fp4)
		return nvfp4_quant_ms(sh, x);
	if (q == Q_NORM && sh->fp8r == FP8_DELAYED)
		return one ? 0 : op_ms(sh, OP_VEC, 0, 2 * x);
	if (model_fp8_rowwise(sh->fp8r))
		return rowwise_quant_ms(sh, x);
	if (sh->fp8r == FP8_TENSORWISE)
		t += op_ms(sh, OP_VEC, 0, 8) +
		     (q == Q_OWN ? op_ms(sh, OP_VEC, 0, 4) +
					   op_ms(sh, OP_VEC, x, x * e)
				 : 0);
	else if (sh->fp8r == FP8_MXFP8)
		scales = (one ? 1 : 2) * x / 32;
	else if (sh->fp8r == FP8_BLOCKWISE)
		scales = (one ? 1 : 2) * 4 * x / 128;
	return t + op_ms(sh, OP_VEC, 2 * x, x * (e + (one ? 1 : 2)) + scales);
}

/*
 * torchao's rowwise-scaled FP8 GEMMs (torch._scaled_mm with a scale per
 * row of each operand, CUTLASS's rowwise kernel: torchao/float8/config.py,
 * Float8LinearRecipeName.ROWWISE) against cuBLAS's per-tensor ones, the
 * part's gemm_eff8: 0.70, fitted on the one fit row that runs them
 * (torchtitan's Llama 3.1 8B at FSDP 8, TP 8, bench/data/torchtitan.tsv
 * T-2506-11, within 0.1%), held against the other three (70B, and async
 * TP), and taken for every part: no other measurement separates them.
 */
#define ROWWISE_GEMM 0.70
/* What FP8 (or, with its recipe, MXFP8) GEMMs reach against 16-bit ones
 * on sh's GPU: the factor on a shape's efficiency. */
static double
fp8_eff_ratio(const struct shape *sh)
{
	const struct gpu_spec *g = sh->g;
	double e8 = sh->fp4 ? g->gemm_eff4
		    : sh->fp8r == FP8_MXFP8 && g->gemm_eff8mx > 0
			    ? g->gemm_eff8mx
			    : g->gemm_eff8;

	if (model_fp8_rowwise(sh->fp8r) && !sh->fp4)
		e8 *= ROWWISE_GEMM;
	return e8 > 0 ? e8 / g->gemm_eff : 1;
}

/* Name the GEMM about to be priced, [m x k] x [k x n] (E > 1: that of
 * each of E experts, a grouped GEMM), for analytic_profile_kernels(). */
static void
gemm_dims(struct shape *sh, double m, double k, double n, double E)
{
	sh->gm = m;
	sh->gk = k;
	sh->gn = n;
	sh->ge = E > 1 ? E : 0;
}

/*
 * The precision --module-precision gives the linear being priced (the
 * multi-token-prediction modules' for every linear in them), as Megatron-
 * Core's per-module precision config overrides a module's quantisation
 * recipe (megatron/core/extensions/transformer_engine.py TEQuantization-
 * Params, _get_fp8_model_init_for_quant_recipe, 212-300 at d98e8a6): a
 * linear the run quantises runs in 16 bits, at another FP8 recipe or in
 * NVFP4; one that would run in 16 bits (--bf16-layers' blocks, the head)
 * keeps them (TransformerEngineMixedPrecision.md, "Design Goals").
 * prec_enter() sets sh's quantisation for it, prec_leave() restores.
 */
struct prec_state {
	int fp8, fp4, fp8r;
	double qb;
};

static int
site_mp(const struct shape *sh)
{
	int site = sh->psite;

	if (!sh->site_prec)
		return 0;
	if (sh->in_mtp && sh->site_prec[ANALYTIC_SITE_MTP])
		return sh->site_prec[ANALYTIC_SITE_MTP];
	/* a block's four linears are LoRA's sites too */
	if (site < 0)
		site = sh->lora_site == ANALYTIC_LORA_QKV    ? ANALYTIC_SITE_QKV
		       : sh->lora_site == ANALYTIC_LORA_PROJ ? ANALYTIC_SITE_PROJ
		       : sh->lora_site == ANALYTIC_LORA_FC1  ? ANALYTIC_SITE_FC1
		       : sh->lora_site == ANALYTIC_LORA_FC2  ? ANALYTIC_SITE_FC2
							     : -1;
	return site >= 0 ? sh->site_prec[site] : 0;
}

/* Price what follows as site's linears; returns the site before. */
static int
site_set(struct shape *sh, int site)
{
	int was = sh->psite;

	sh->psite = site;
	return was;
}

static void
prec_enter(struct shape *sh, struct prec_state *s)
{
	int mp = site_mp(sh);

	s->fp8 = sh->fp8;
	s->fp4 = sh->fp4;
	s->fp8r = sh->fp8r;
	s->qb = sh->qb;
	if (!mp || !sh->fp8)
		return;
	sh->fp8 = mp != ANALYTIC_MP_16;
	sh->fp4 = mp == ANALYTIC_MP_NVFP4;
	if (mp >= ANALYTIC_MP_FP8)
		sh->fp8r = mp - ANALYTIC_MP_FP8;
	sh->qb = model_prec_quant_bytes(sh->fp4 ? MODEL_NVFP4 : MODEL_FP8);
}

static void
prec_leave(struct shape *sh, const struct prec_state *s)
{
	sh->fp8 = s->fp8;
	sh->fp4 = s->fp4;
	sh->fp8r = s->fp8r;
	sh->qb = s->qb;
}

/* The linear an MLP's input (its pre-norm's output) feeds: a dense MLP's
 * first, or in a MoE layer LatentMoE's projection or the routed
 * experts'. */
static int
mlp_in(int moe, int latent)
{
	return !moe     ? ANALYTIC_SITE_FC1
	       : latent ? ANALYTIC_SITE_LATENT
			: ANALYTIC_SITE_EXPERTS;
}

static int
mlp_in_site(const struct shape *sh)
{
	return mlp_in(sh->moe, sh->lat > 0);
}

/* What a value of a GEMM input the forward saves for the weight gradient
 * spares against 16 bits when it is kept as the quantised copy: e - qb
 * where site's linear runs quantised, else 0. */
static double
site_qsave(struct shape *sh, int site)
{
	struct prec_state ps;
	int was = site_set(sh, site);
	double d;

	prec_enter(sh, &ps);
	d = sh->fp8 ? sh->e - sh->qb : 0;
	prec_leave(sh, &ps);
	site_set(sh, was);
	return d;
}

/* A forward GEMM's k x n weight, counted where the run quantises it and
 * --module-precision keeps it in 16 bits (its quantised copies not held:
 * the layer's params16). */
static void
count_p16(struct shape *sh, const struct prec_state *s, double w)
{
	if (s->fp8 && !sh->fp8 && sh->ks_pass == KERNEL_PASS_FWD)
		sh->p16 += w;
}

/*
 * One GEMM [M x K] x [K x N] with extra bytes (fp32 accumulation).  In an
 * FP8 layer its [M x K] operand is quantised first, at q, over M / qdiv
 * of its rows (qdiv t: the sequence-parallel shard, quantised before the
 * all-gather that feeds the GEMM, layernorm_linear.py:283-313 and
 * base.py grad_output_preprocess), and the GEMM runs at the FP8 rate and
 * efficiency; its output stays 16-bit.
 */
static double
gemm_op(struct shape *sh, double M, double K, double N, double extra,
	enum quant_at q, double qdiv)
{
	double t = 0, eff = analytic_gemm_shape_eff(sh->g->sms, M, K, N);
	struct prec_state ps;
	int fp8;

	prec_enter(sh, &ps);
	if (q != Q_SAVED)
		count_p16(sh, &ps, K * N);
	fp8 = sh->fp8;
	/* torchao's rowwise_with_gw_hp: the weight gradient (the GEMM on
	 * the forward's saved operands) in 16 bits (torchao/float8/
	 * config.py ROWWISE_WITH_GW_HP: input_t_hp @ grad_output_hp) */
	if (fp8 && q == Q_SAVED && sh->casts == ANALYTIC_CASTS_EACH &&
	    sh->fp8r == FP8_ROWWISE_GW_HP)
		sh->fp8 = 0;
	if (sh->fp8) {
		if (sh->casts == ANALYTIC_CASTS_EACH)
			q = Q_OWN, qdiv = 1;
		t += quant_ms(sh, M * K / qdiv, q);
		eff *= fp8_eff_ratio(sh);
	}
	gemm_dims(sh, M, K, N, 0);
	t += kernel_ms(sh, OP_GEMM, 2 * M * K * N,
		       (M * K + K * N) * (sh->fp8 ? sh->qb : sh->e) +
			       M * N * sh->e + extra,
		       eff, "gemm");
	sh->fp8 = fp8;
	prec_leave(sh, &ps);
	return t;
}

double
analytic_gemm_ms(const struct gpu_spec *g, int fp32, double M, double K,
		 double N)
{
	struct shape sh;

	memset(&sh, 0, sizeof(sh));
	sh.g = g;
	sh.tensor_tflops = fp32 ? g->tflops32 : g->tflops16;
	sh.e = fp32 ? 4 : 2;
	return gemm_op(&sh, M, K, N, 0, Q_SAVED, 1);
}

/* analytic.h */
double
analytic_linear_ms(const struct gpu_spec *g, int prec, int recipe, double M,
		   double K, double N, int quantize)
{
	struct shape sh;
	double t;

	memset(&sh, 0, sizeof(sh));
	sh.g = g;
	sh.tensor_tflops = prec == MODEL_FP32 ? g->tflops32 : g->tflops16;
	sh.e = prec == MODEL_FP32 ? 4 : 2;
	sh.fp8 = model_prec_quantised(prec);
	sh.fp4 = prec == MODEL_NVFP4;
	sh.qb = model_prec_quant_bytes(prec);
	sh.fp8r = recipe;
	sh.casts = ANALYTIC_CASTS_TE;
	t = gemm_op(&sh, M, K, N, 0, quantize ? Q_OWN : Q_SAVED, 1);
	if (sh.fp8 && quantize)
		t += quant_ms(&sh, K * N, Q_OWN);
	return t;
}

/* The rows a sequence-parallel layer quantises: 1/t of them. */
static double
sp_div(const struct shape *sh)
{
	return sh->sp && sh->t > 1 ? sh->t : 1;
}

/* Whether the linear being priced carries an adapter. */
static int
lora_here(const struct shape *sh)
{
	return sh->lora_on && (sh->lora_mask & sh->lora_site);
}

/*
 * LoRA (Hu et al. 2021) as Megatron-Bridge runs it (peft/lora_layers.py
 * LoRALinear, peft/utils.py ParallelLinearAdapter at 067f987): beside a
 * frozen linear of m rows, k inputs and c outputs (the rank's shares
 * under tensor parallelism), an adapter of rank r, 16-bit whatever the
 * linear's precision: x A ([m x k] x [k x r]), then B ([m x r] x
 * [r x c]), scaled by alpha / r and added to the linear's output, a
 * kernel each.  Backward: the scale's, B's and A's input and weight
 * gradients (fp32 main gradients, as gemm_bwd_ms()), and A's input
 * gradient added to the frozen linear's.  The skinny GEMMs run at the
 * speed of their bytes.  lora_ms(): forward (bwd 0) or backward.
 */
static double
lora_ms(struct shape *sh, double m, double k, double c, int bwd)
{
	double r = sh->lora, e = sh->e, t;
	int fp8 = sh->fp8;

	if (!lora_here(sh))
		return 0;
	sh->fp8 = 0;
	if (bwd)
		t = op_named(sh, "lora scale", OP_VEC, m * c, 2 * m * c * e) +
		    gemm_op(sh, m, c, r, 0, Q_SAVED, 1) +
		    gemm_op(sh, r, m, c, 8 * r * c - r * c * e, Q_SAVED, 1) +
		    gemm_op(sh, m, r, k, 0, Q_SAVED, 1) +
		    gemm_op(sh, k, m, r, 8 * k * r - k * r * e, Q_SAVED, 1) +
		    op_named(sh, "lora add", OP_VEC, m * k, 3 * m * k * e);
	else
		t = gemm_op(sh, m, k, r, 0, Q_SAVED, 1) +
		    gemm_op(sh, m, r, c, 0, Q_SAVED, 1) +
		    op_named(sh, "lora scale", OP_VEC, m * c, 2 * m * c * e) +
		    op_named(sh, "lora add", OP_VEC, m * c, 3 * m * c * e);
	sh->fp8 = fp8;
	return t;
}

/* Forward GEMM [m x k] x [k x c]. */
static double
gemm_ms(struct shape *sh, double m, double k, double c)
{
	return gemm_op(sh, m, k, c, 0, Q_OWN, 1) + lora_ms(sh, m, k, c, 0);
}

/* The same, its input from a norm (a TELayerNormColumnParallelLinear). */
static double
gemm_norm_ms(struct shape *sh, double m, double k, double c)
{
	return gemm_op(sh, m, k, c, 0, Q_NORM, sp_div(sh)) +
	       lora_ms(sh, m, k, c, 0);
}

/*
 * Its backward: dgrad [m x c] x [c x k], its grad output quantised over
 * 1/gdiv of the rows, and wgrad [k x m] x [m x c] on the saved copies,
 * accumulated into fp32 main gradients (read + write of k c fp32 values
 * instead of a 16-bit output); a frozen weight (LoRA's base) has no
 * wgrad, its adapter's instead.
 */
static double
gemm_bwd_q_ms(struct shape *sh, double m, double k, double c, double gdiv)
{
	return gemm_op(sh, m, c, k, 0, Q_OWN, gdiv) +
	       (sh->frozen ? 0
			   : gemm_op(sh, k, m, c, 8 * k * c - k * c * sh->e,
				     Q_SAVED, 1)) +
	       lora_ms(sh, m, k, c, 1);
}

static double
gemm_bwd_ms(struct shape *sh, double m, double k, double c)
{
	return gemm_bwd_q_ms(sh, m, k, c, 1);
}

/* The backward of a row-parallel layer (the attention projection, the
 * second MLP GEMM): its grad output gathered from the sequence shards. */
static double
gemm_bwd_row_ms(struct shape *sh, double m, double k, double c)
{
	return gemm_bwd_q_ms(sh, m, k, c, sp_div(sh));
}

/*
 * A norm over x elements in r rows, forward or backward.  Fused (and
 * any LayerNorm: PyTorch's layer_norm is one kernel each way even eagerly)
 * one pass: read the input, write the output, the statistics per row.
 * An RMSNorm unfused is the eager chain of the Python modules that
 * torchtitan (models/norms.py RMSNorm at 9dec370), Hugging Face's Llama
 * and IBM's fms write: the input upcast to fp32, squared, averaged over
 * the row, eps added, rsqrt, the product, the downcast and the weight's
 * product, a kernel each (a 16-bit input's casts; an fp32 one has none):
 * 36 bytes a value.  Autograd's backward runs the weight's two products
 * (its gradient summed over the rows), the casts, the product's two
 * gradients (the row's sum), rsqrt's, the mean's spread, the square's
 * (PyTorch's pow_backward: a copy for pow(x, 1), its double, the product
 * with the gradient) and the sum of the two gradients of the fp32 input:
 * 92 bytes a value.  Against published eager timings: B 4, T 4096, H 4096
 * in bf16 on a T4 (320 GB/s), 10.3 ms forward and 26.0 ms backward
 * against fused kernels' 1.1 and 1.6 (The-School-of-AI/LLM pull 514);
 * at 0.8 of 320 GB/s this gives 9.4, 24.2, 1.05 and 1.6 ms.
 */
/* The norms run as the eager RMSNorm chain (norm_x_ms()). */
static int
eager_rms(const struct shape *sh)
{
	return sh->rms && !fused(sh, ANALYTIC_FUSE_NORM);
}

static double
norm_x_ms(struct shape *sh, double x, double r, int bwd)
{
	double e = sh->e, t = 0;
	int casts = e < 4;

	if (!eager_rms(sh))
		return bwd ? op_ms(sh, OP_VEC, 2 * sh->normf * x,
				   3 * x * e + r * sh->statb)
			   : op_ms(sh, OP_VEC, sh->normf * x,
				   2 * x * e + r * sh->statb);
	if (!bwd) {
		if (casts)
			t += op_ms(sh, OP_VEC, 0, x * (e + 4));
		t += op_ms(sh, OP_VEC, x, 8 * x) +
		     op_ms(sh, OP_VEC, x, 4 * x + 4 * r) +
		     passes_ms(sh, 2, 2 * r, 16 * r) +
		     op_ms(sh, OP_VEC, x, 8 * x + 4 * r);
		if (casts)
			t += op_ms(sh, OP_VEC, 0, x * (4 + e));
		return t + op_ms(sh, OP_VEC, x, 2 * x * e);
	}
	/* the weight's product: the input's gradient, the weight's
	 * (a product, then its sum over the rows) */
	t += op_ms(sh, OP_VEC, x, 2 * x * e) + op_ms(sh, OP_VEC, x, 3 * x * e) +
	     op_ms(sh, OP_VEC, x, x * e);
	if (casts)
		t += op_ms(sh, OP_VEC, 0, x * (e + 4));
	/* the product's: the input's gradient, rsqrt's (a product, then
	 * the row's sum); rsqrt's own; the mean's, spread over the row */
	t += op_ms(sh, OP_VEC, x, 8 * x + 4 * r) + op_ms(sh, OP_VEC, x, 12 * x) +
	     op_ms(sh, OP_VEC, x, 4 * x + 4 * r) +
	     op_ms(sh, OP_VEC, 3 * r, 12 * r) +
	     op_ms(sh, OP_VEC, x, 4 * x + 4 * r);
	/* the square's: pow(x, 1) copied, doubled, times the gradient;
	 * then the fp32 input's two gradients summed */
	t += op_ms(sh, OP_VEC, 0, 8 * x) + op_ms(sh, OP_VEC, x, 8 * x) +
	     op_ms(sh, OP_VEC, x, 12 * x) + op_ms(sh, OP_VEC, x, 12 * x);
	if (casts)
		t += op_ms(sh, OP_VEC, 0, x * (4 + e));
	return t;
}

/* What an unfused RMSNorm keeps beyond a fused one over x elements: the
 * fp32 input (squared and scaled in backward) and the normalised value
 * before the weight (its gradient) instead of the input: 4 x bytes. */
static double
norm_x_stash(const struct shape *sh, double x)
{
	return eager_rms(sh) ? 4 * x : 0;
}

/* A block's norm over its tokens: under sequence parallelism the rank's
 * 1/t of them (Korthikanti et al. 2022, section 4.2.2: the norms and
 * dropouts of the sequence-parallel regions; Megatron-Core's and
 * torchtitan's SequenceParallel norms alike) */
static double
norm_ms(struct shape *sh)
{
	double d = sp_div(sh);

	return norm_x_ms(sh, sh->n * sh->h / d, sh->n / d, 0);
}

static double
norm_bwd_ms(struct shape *sh)
{
	double d = sp_div(sh);

	return norm_x_ms(sh, sh->n * sh->h / d, sh->n / d, 1);
}

/* (Bias-)dropout-add of the residual branch, forward. */
static double
dropadd_ms(struct shape *sh)
{
	double nh = sh->n * sh->h / sp_div(sh), e = sh->e, t = 0;

	if (fused(sh, ANALYTIC_FUSE_DROPADD))
		return op_ms(sh, OP_VEC, 3 * nh,
			     sh->drop ? nh * (3 * e + 1) : 3 * nh * e);
	if (sh->bias)
		t += op_ms(sh, OP_VEC, nh, 2 * nh * e);
	if (sh->drop)
		t += op_ms(sh, OP_VEC, nh, nh * (2 * e + 1));
	return t + op_ms(sh, OP_VEC, nh, 3 * nh * e);
}

/* Its backward, plus summing the two gradients at the residual fork. */
static double
dropadd_bwd_ms(struct shape *sh)
{
	double nh = sh->n * sh->h / sp_div(sh), t = 0;

	if (sh->drop)
		t += op_ms(sh, OP_VEC, nh, nh * (2 * sh->e + 1));
	return t + op_ms(sh, OP_VEC, nh, 3 * nh * sh->e);
}

/*
 * The MLP's activation over x = rows x width elements of its output
 * (SwiGLU: the product, from 2x inputs): forward and backward.
 */
static double
act_ms(struct shape *sh, double x)
{
	double e = sh->e;

	if (sh->sqrelu) /* relu, then pow: megatron/core/activations.py */
		return (sh->bias ? op_ms(sh, OP_VEC, x, 3 * x * e) : 0) +
		       op_ms(sh, OP_VEC, x, 2 * x * e) +
		       op_ms(sh, OP_VEC, x, 2 * x * e);
	if (fused(sh, ANALYTIC_FUSE_ACT))
		return op_ms(sh, OP_VEC, (sh->swiglu ? 6 : 8) * x,
			     (sh->swiglu ? 3 : 2) * x * e);
	if (sh->swiglu) /* silu(x0), then its product with x1 */
		return op_ms(sh, OP_VEC, 5 * x, 2 * x * e) +
		       op_ms(sh, OP_VEC, x, 3 * x * e);
	return (sh->bias ? op_ms(sh, OP_VEC, x, 2 * x * e) : 0) +
	       op_ms(sh, OP_VEC, 8 * x, 2 * x * e);
}

static double
act_bwd_ms(struct shape *sh, double x)
{
	double e = sh->e;

	if (sh->sqrelu) /* pow's 2 x grad (two multiplies), relu's */
		return (sh->bias ? op_ms(sh, OP_VEC, x, x * e) : 0) +
		       op_ms(sh, OP_VEC, x, 2 * x * e) +
		       op_ms(sh, OP_VEC, x, 3 * x * e) +
		       op_ms(sh, OP_VEC, x, 3 * x * e);
	if (fused(sh, ANALYTIC_FUSE_ACT))
		return op_ms(sh, OP_VEC, (sh->swiglu ? 12 : 16) * x,
			     (sh->swiglu ? 5 : 3) * x * e);
	if (sh->swiglu) /* d x1, d silu, silu's backward, cat */
		return op_ms(sh, OP_VEC, x, 3 * x * e) +
		       op_ms(sh, OP_VEC, x, 3 * x * e) +
		       op_ms(sh, OP_VEC, 10 * x, 3 * x * e) +
		       op_ms(sh, OP_VEC, 0, 4 * x * e);
	return (sh->bias ? op_ms(sh, OP_VEC, x, x * e) : 0) +
	       op_ms(sh, OP_VEC, 16 * x, 3 * x * e);
}

/*
 * The clamp of a gated MLP's two halves (model act_clamp) where it runs
 * as eager PyTorch (analytic_opts clamp_eager), over x = rows x width
 * elements of each half.  Forward: clamp(max) of the gate and
 * clamp(-l, l) of the linear half, a kernel each (read x, write x);
 * before a fused activation the cat of the two into its input (read and
 * write 2x: Megatron-Core's weighted_bias_quick_geglu_impl, fusions/
 * fused_bias_geglu.py:424-432 at d98e8a6).  Backward: each clamp's
 * gradient is where(in range, grad, 0), a comparison of the saved input
 * (read x, write a byte each) and the select (read x and the mask,
 * write x); the halves' gradients then join in one tensor (the chunk's
 * cat, read and write 2x).  Unfused, the activation's own backward
 * concatenates them (act_bwd_ms), so only the cat of the forward goes.
 */
static double
clamp_ms(struct shape *sh, double x, int bwd)
{
	double e = sh->e, t = 0;
	int cat = fused(sh, ANALYTIC_FUSE_ACT);

	if (!sh->clamp)
		return 0;
	if (!bwd)
		return passes_ms(sh, 2, 2 * x, 4 * x * e) +
		       (cat ? op_ms(sh, OP_VEC, 0, 4 * x * e) : 0);
	t = passes_ms(sh, 2, 2 * x, 2 * (x * e + x)) +
	    passes_ms(sh, 2, 0, 2 * (2 * x * e + x));
	return t + (cat ? op_ms(sh, OP_VEC, 0, 4 * x * e) : 0);
}

/* Unfused SwiGLU keeps silu(x0) for its product's backward too. */
static int
unfused_glu(const struct shape *sh)
{
	return sh->swiglu && !fused(sh, ANALYTIC_FUSE_ACT);
}

/* Rotary embedding of q + k elements (q + k: both), forward or backward. */
static double
rope_ms(struct shape *sh, double q, double k, int bwd)
{
	double e = sh->e;

	if (fused(sh, ANALYTIC_FUSE_ROPE))
		return op_ms(sh, OP_VEC, 3 * (q + k), 2 * (q + k) * e);
	return passes_ms(sh, bwd ? 5 : 6, 3 * q, (bwd ? 10 : 12) * q * e) +
	       passes_ms(sh, bwd ? 5 : 6, 3 * k, (bwd ? 10 : 12) * k * e);
}

/*
 * The share of a fused attention kernel's long-sequence rate it reaches
 * on pairs scores of sh's shape.  Flash kernels (FlashAttention-2 and -3,
 * cuDNN's) give each block of ATTN_BLOCK queries of a head one thread
 * block, which walks the key tiles its mask leaves it: beside the u
 * tiles' worth of scores it keeps, it computes the tiles its mask cuts
 * (half a tile a block on the diagonal of a causal mask, one on the two
 * edges of a window) and pays a fixed cost of block_cost tiles
 * (loading its queries, the softmax's normalisation, writing its output
 * and log-sum-exp; in backward its dQ).  Short sequences give each
 * block few tiles, and the kernel less than its long-sequence rate:
 * u / (u + cut + block_cost).  FlashAttention-2's, ATTN_BLOCK_COST, is
 * what its benchmarks ask for (Dao-AILab/flash-attention, README figures
 * assets/flash2_a100_fwd_bwd_benchmark.png and flash2_h100_fwd_bwd_
 * benchmark.png at 0251105a: forward + backward, head sizes 64 and 128,
 * with and without a causal mask, on A100 and H100 alike; causal, head
 * size 128, on H100 the rate at 512, 1k, 2k, 4k and 8k tokens is 0.50,
 * 0.67, 0.81, 0.90 and 0.94 of the 16k one, against 0.53, 0.70, 0.83,
 * 0.92 and 0.97 here); cuDNN's forward kernels fall off alike
 * (assets/flash3_fp16_fwd.png: 0.58, 0.76, 0.90, 0.96 and 0.98 causal),
 * but its forward + backward, as NVIDIA times them (bench/data/
 * cudnn-sdpa.tsv: causal, heads of 128, 2k-32k tokens on H200, GB200 and
 * GB300), faster: the catalog's attn_block of the parts whose native
 * kernel is cuDNN's, 3.9, which bench/attention.sh fits with their
 * isolated fractions (3.4% rms).
 * Under context parallelism each of the c ring steps has 1/c of the
 * pairs and only the first step the diagonal.
 */
#define ATTN_BLOCK 128.0
#define ATTN_BLOCK_COST 1.4

static double
attn_tile_share(const struct shape *sh, double pairs)
{
	double rows = sh->c * sh->b * sh->at * sh->sq;
	double u = pairs / (rows * ATTN_BLOCK);
	double cut = sh->span < sh->doc ? 1 : sh->causal ? 0.5 : 0;

	if (!(u > 0))
		return 1;
	return u / (u + cut / sh->c + sh->block_cost);
}

/*
 * A fused attention pass, forward (bwd 0) or backward, of flops in all,
 * moving bytes plus the fp32 log-sum-exp (read, and in backward its
 * gradient's row sums too): one kernel.  Under context parallelism c
 * (Transformer Engine's AttnFuncWithCPAndKVP2P, context_parallel.py:
 * 1698-1710 forward, 2459-2495 backward) it is c kernels, one per ring
 * step, each on one rank's K/V chunk and 1/c of the pairs (the zigzag
 * split into 2c chunks gives every step of a causal mask 2 (s/2c)^2
 * pairs), each reading the queries again; after every step but the
 * first a correction: forward rescales the output (q elements) by the
 * log-sum-exps, backward accumulates dQ (q) and dK/dV (kv each), in
 * place at 16 bits.  PyTorch's ring (torchtitan's context parallelism,
 * the shape's ptcp: torch/distributed/tensor/experimental/_attention.py,
 * _SDPAMerger and _templated_ring_attention_backward, convert_to_f32 on
 * by default) works in fp32 with eager operators: forward, each step's
 * output upcast (read 2 bytes, write 4), then out - sigmoid(lse' - lse)
 * (out - out') in three passes (out - out': read 8, write 4; the
 * product: read 4, write 4; the difference: read 8, write 4), 38 bytes
 * an element, and once the first step's upcast and the result cast back
 * (12); backward, each step dQ += dQ' (read 4 + 2, write 4), dK and dV
 * alike updated in one of their halves and concatenated whole (5 + 8
 * bytes each) and copied into the buffer the next rank receives (read 4,
 * write 4): 10 q + 42 kv bytes, and once the fp32 buffers zeroed and
 * cast back (10 q + 20 kv).
 * Each of the pairs scores costs the kernel more than its matmuls: an
 * exponential, forward and backward (P recomputed), the online softmax's
 * scaling and conversions, dS in backward; the kernel runs at the slower
 * of its matmuls and that floor, in 16-bit tensor FLOPs whatever
 * precision the matmuls run in: the native 16-bit kernel's as the
 * catalog's score_flops_fwd and _bwd (fitted on cuDNN's timings:
 * heads of 64 take as long a score as heads of 128), else the
 * exponentials' rate (flops_per_exp).  The native kernels' backward runs
 * at the catalog's attn_bwd of their forward's rate (its five matmuls
 * and dQ's accumulation keep less of the tensor cores busy),
 * FlashAttention-2's at attn_bwd_fa2 where the catalog has one.
 * The catalog's attention figures are what the kernels reach on long
 * sequences; a short one leaves them less (attn_tile_share()).
 */
static double
ring_ms(struct shape *sh, double flops, double pairs, double bytes, double q,
	double kv, int bwd)
{
	double corr = bwd ? q + 2 * kv : q;
	double step = sh->ptcp ? (bwd ? 10 * q + 42 * kv : 38 * q)
			       : 3 * corr * sh->e;
	double once = sh->ptcp ? (bwd ? 10 * q + 20 * kv : 12 * q) : 0;
	double lse = (bwd ? 8 : 4) * sh->b * sh->at * sh->sq, t = 0;
	double x = pairs * (bwd ? sh->score_b : sh->score_f) *
		   sh->attn_tflops / sh->g->tflops16;
	int i, c = (int)sh->c;

	if (x > flops)
		flops = x;
	flops /= attn_tile_share(sh, pairs);
	if (bwd)
		flops /= sh->attn_bwd;
	for (i = 0; i < c; i++) {
		t += op_ms(sh, OP_ATTN, flops / sh->c, bytes + lse);
		if (i > 0)
			t += op_ms(sh, OP_VEC, 4 * corr, step + 2 * lse);
	}
	if (c > 1 && once > 0)
		t += op_ms(sh, OP_VEC, 0, once);
	return t;
}

/*
 * MLA's attention core: heads of dqk (nope + rope) for the scores and dv
 * for the values, all at = heads / t of them (no grouping).  The same
 * kernels as core_ms() and core_bwd_ms() with the two head sizes apart.
 */
static double
mla_core_ms(struct shape *sh)
{
	double bas = sh->b * sh->at * sh->sq * sh->s;
	double q = sh->n * sh->at * sh->dqk, v = sh->n * sh->at * sh->dv;
	double t;

	if (sh->flash)
		return ring_ms(sh, (2 * bas * sh->dqk + 2 * bas * sh->dv) *
					   sh->afrac,
			       bas * sh->afrac, (2 * q + 2 * v) * sh->e, v, 0,
			       0);
	t = op_ms(sh, OP_ATTN, 2 * bas * sh->dqk, (2 * q + bas) * sh->e);
	if (sh->attn_cap)
		t += op_ms(sh, OP_VEC, 3 * bas, 2 * bas * sh->e);
	t += op_ms(sh, OP_VEC, 5 * bas, 2 * bas * sh->e);
	if (sh->drop)
		t += op_ms(sh, OP_VEC, 2 * bas, bas * (2 * sh->e + 1));
	return t + op_ms(sh, OP_ATTN, 2 * bas * sh->dv, (bas + 2 * v) * sh->e);
}

static double
mla_core_bwd_ms(struct shape *sh)
{
	double bas = sh->b * sh->at * sh->sq * sh->s;
	double q = sh->n * sh->at * sh->dqk, v = sh->n * sh->at * sh->dv;
	double t;

	if (sh->flash)
		/* recomputed QK^T, dQ, dK at dqk; dV, dP at dv */
		return op_ms(sh, OP_VEC, 2 * v, 2 * v * sh->e) +
		       ring_ms(sh, (6 * bas * sh->dqk + 4 * bas * sh->dv) *
					   sh->afrac,
			       bas * sh->afrac, (4 * q + 4 * v) * sh->e, q + v,
			       0, 1);
	t = op_ms(sh, OP_ATTN, 2 * bas * sh->dv, (2 * v + bas) * sh->e);
	t += op_ms(sh, OP_ATTN, 2 * bas * sh->dv, (bas + 2 * v) * sh->e);
	if (sh->drop)
		t += op_ms(sh, OP_VEC, bas, bas * (2 * sh->e + 1));
	t += op_ms(sh, OP_VEC, 4 * bas, 3 * bas * sh->e);
	if (sh->attn_cap)
		t += op_ms(sh, OP_VEC, 3 * bas, 3 * bas * sh->e);
	t += op_ms(sh, OP_ATTN, 2 * bas * sh->dqk, (bas + 2 * q) * sh->e);
	return t + op_ms(sh, OP_ATTN, 2 * bas * sh->dqk,
			 (bas + 2 * q) * sh->e);
}

/*
 * Grouped K and V copied out to every query head before the kernel
 * (torchtitan's repeat_kv, models/llama/model.py:201-202 at 9dec370, until
 * ff0829c10 passed SDPA enable_gqa): forward, each read at its kvt heads
 * and written at the kernel's kva; backward, the copies' gradients summed
 * back.  Nothing where the kernel reads them grouped.
 */
static double
repeat_kv_ms(struct shape *sh, int bwd)
{
	double g = sh->n * sh->kvt * sh->dh, r = sh->n * sh->kva * sh->dh;

	if (!(sh->kva > sh->kvt))
		return 0;
	return op_ms(sh, OP_VEC, bwd ? 2 * r : 0, 2 * (g + r) * sh->e);
}

/*
 * Where the runtime's model projects with k separate linears off one
 * input (analytic_opts split_proj: Q, K, V; a gated MLP's two halves),
 * autograd sums their k input gradients, each n x h, whatever tensor
 * parallelism shards (the input is gathered whole): compiled, one kernel
 * reading k and writing one; eagerly, k - 1 pairwise adds.  The GEMMs
 * themselves are priced as the one they would be fused into.
 */
static double
split_sum_ms(struct shape *sh, int k)
{
	double nh = sh->n * sh->h, e = sh->e, t = 0;
	int i;

	if (!sh->split)
		return 0;
	if (sh->fuse)
		return op_ms(sh, OP_VEC, (k - 1) * nh, (k + 1) * nh * e);
	for (i = 1; i < k; i++)
		t += op_ms(sh, OP_VEC, nh, 3 * nh * e);
	return t;
}

/*
 * DTensor's sequence-dimension copies (analytic_opts sp_copy), each of
 * the whole n x h, read and written, per sequence-parallel region (the
 * attention and the MLP; a MoE block's experts are none: the attention
 * alone).  Forward (sp_copy 1), the region's input gathered and its
 * output reduce-scattered, the gathers at spag bytes a value; backward
 * the same two in reverse, 16-bit, or where async TP fused the rest
 * (sp_copy 2) the reduce-scatter of the summed input gradient alone.
 */
static double
spcopy_ms(struct shape *sh, int bwd)
{
	double nh = sh->n * sh->h, e = sh->e, regions = sh->moe ? 1 : 2;

	if (!sh->spcopy || (!bwd && sh->spcopy != 1 && sh->spcopy != 3))
		return 0;
	/* async TP under rowwise FP8 (3): the all-gathers keep their
	 * copies, forward and backward, and the summed reduce-scatter its
	 * own where the projections are split */
	if (sh->spcopy == 3)
		return regions * op_ms(sh, OP_VEC, 0, 2 * nh * e) *
		       (bwd && sh->split ? 2 : 1);
	if (!bwd)
		return regions * (op_ms(sh, OP_VEC, 0, 2 * nh * sh->spag) +
				  op_ms(sh, OP_VEC, 0, 2 * nh * e));
	return regions * (sh->spcopy == 1 ? 2 : 1) *
	       op_ms(sh, OP_VEC, 0, 2 * nh * e);
}

/* Attention core forward: scores, softmax, dropout, probabilities x V. */
static double
core_ms(struct shape *sh)
{
	double bas = sh->b * sh->at * sh->sq * sh->s, mm = 2 * bas * sh->dh;
	double q = sh->n * sh->at * sh->dh, kv = sh->n * sh->kva * sh->dh;
	double t;

	if (sh->mla)
		return mla_core_ms(sh);
	if (sh->flash)
		return repeat_kv_ms(sh, 0) +
		       ring_ms(sh, 2 * mm * sh->afrac, bas * sh->afrac,
			       (2 * q + 2 * kv) * sh->e, q, kv, 0);
	t = op_ms(sh, OP_ATTN, mm, (q + kv + bas) * sh->e);
	if (sh->attn_cap)
		t += op_ms(sh, OP_VEC, 3 * bas, 2 * bas * sh->e);
	t += op_ms(sh, OP_VEC, 5 * bas, 2 * bas * sh->e);
	if (sh->drop)
		t += op_ms(sh, OP_VEC, 2 * bas, bas * (2 * sh->e + 1));
	return t + op_ms(sh, OP_ATTN, mm, (bas + kv + q) * sh->e);
}

static double
core_bwd_ms(struct shape *sh)
{
	double bas = sh->b * sh->at * sh->sq * sh->s, mm = 2 * bas * sh->dh;
	double q = sh->n * sh->at * sh->dh, kv = sh->n * sh->kva * sh->dh;
	double t;

	if (sh->mla)
		return mla_core_bwd_ms(sh);
	if (sh->flash && sh->fp8_attn && sh->span < sh->s) {
		/* cuDNN's FP8 and MXFP8 backward kernels do not skip the
		 * key tiles a window masks: NVIDIA's benchmark of them
		 * (NVIDIA/cudnn-frontend benchmark/sdpa_benchmark_
		 * training/results/gpt_oss, GB200 and GB300, a window of
		 * 128, heads of 64) times the backward growing as s^2, at
		 * 4k tokens 3.7 (FP8) and 4.5 (MXFP8) times bf16's, where
		 * the forward keeps to the window: the whole causal band,
		 * at the FP8 rate */
		struct shape band = *sh;

		band.span = sh->s;
		band.afrac = sh->causal ? 0.5 : 1;
		band.fp8_attn = 0;
		t = core_bwd_ms(&band);
		sh->nk = band.nk;
		return t;
	}
	if (sh->flash)
		/* Row sums of dO * O, then recompute QK^T and P; dV, dP,
		 * dQ, dK: five matmuls. */
		return op_ms(sh, OP_VEC, 2 * q, 2 * q * sh->e) +
		       repeat_kv_ms(sh, 1) +
		       ring_ms(sh, 5 * mm * sh->afrac, bas * sh->afrac,
			       (4 * q + 4 * kv) * sh->e, q, kv, 1);
	t = op_ms(sh, OP_ATTN, mm, (q + kv + bas) * sh->e);     /* dP */
	t += op_ms(sh, OP_ATTN, mm, (bas + q + kv) * sh->e);    /* dV */
	if (sh->drop)
		t += op_ms(sh, OP_VEC, bas, bas * (2 * sh->e + 1));
	t += op_ms(sh, OP_VEC, 4 * bas, 3 * bas * sh->e);       /* softmax */
	if (sh->attn_cap)
		t += op_ms(sh, OP_VEC, 3 * bas, 3 * bas * sh->e);
	t += op_ms(sh, OP_ATTN, mm, (bas + kv + q) * sh->e);    /* dQ */
	return t + op_ms(sh, OP_ATTN, mm, (bas + q + kv) * sh->e); /* dK */
}

/* Stashed bytes of the attention core (dropped by selective recompute). */
static double
core_stash(struct shape *sh)
{
	double bas = sh->b * sh->at * sh->sq * sh->s;

	if (sh->flash)
		return 4 * sh->b * sh->at * sh->sq; /* log-sum-exp, fp32 */
	/* Softmax output; with dropout also its mask and output. */
	return bas * sh->e + (sh->drop ? bas * (1 + sh->e) : 0);
}

/* A norm over w elements per token (MLA's latents, QK-norm's heads). */
static double
wnorm_ms(struct shape *sh, double w)
{
	return norm_x_ms(sh, sh->n * w, sh->n, 0);
}

static double
wnorm_bwd_ms(struct shape *sh, double w)
{
	return norm_x_ms(sh, sh->n * w, sh->n, 1);
}

/*
 * MLA's projections (forward): the query latent (h x q_rank), its norm,
 * its up-projection to at heads of dqk (or h x at dqk directly), the KV
 * latent with the shared rope key (h x (kv_rank + rope)), its norm and
 * the up-projection to at heads of nope + v.  The latents are whole on
 * every tensor-parallel rank (Megatron's MLA duplicates the down
 * projections), the up-projections are column-parallel.
 */
static double
mla_proj_ms(struct shape *sh)
{
	double n = sh->n, h = sh->h, at = sh->at, t;

	if (sh->qr)
		t = gemm_ms(sh, n, h, sh->qr) + wnorm_ms(sh, sh->qr) +
		    gemm_ms(sh, n, sh->qr, at * sh->dqk);
	else
		t = gemm_ms(sh, n, h, at * sh->dqk);
	return t + gemm_ms(sh, n, h, sh->kvr + sh->rd) +
	       wnorm_ms(sh, sh->kvr) +
	       gemm_ms(sh, n, sh->kvr, at * (sh->dqk - sh->rd + sh->dv));
}

static double
mla_proj_bwd_ms(struct shape *sh)
{
	double n = sh->n, h = sh->h, at = sh->at, t;

	t = gemm_bwd_ms(sh, n, sh->kvr, at * (sh->dqk - sh->rd + sh->dv)) +
	    wnorm_bwd_ms(sh, sh->kvr) + gemm_bwd_ms(sh, n, h, sh->kvr + sh->rd);
	if (sh->qr)
		return t + gemm_bwd_ms(sh, n, sh->qr, at * sh->dqk) +
		       wnorm_bwd_ms(sh, sh->qr) + gemm_bwd_ms(sh, n, h, sh->qr);
	return t + gemm_bwd_ms(sh, n, h, at * sh->dqk);
}

/* MLA's latents and their norms' outputs and statistics, stashed. */
static double
mla_stash(struct shape *sh)
{
	double n = sh->n, e = sh->e;

	return (sh->qr ? 2 * n * sh->qr * e + n * sh->statb +
				 norm_x_stash(sh, n * sh->qr)
		       : 0) +
	       n * (sh->kvr + sh->rd) * e + n * sh->kvr * e + n * sh->statb +
	       norm_x_stash(sh, n * sh->kvr);
}

/*
 * One grouped GEMM over the GPU's experts (Megatron's TEGroupedMLP,
 * --moe-grouped-gemm): flops in all, the a_elems operand quantised first
 * in FP8 layers, other_elems the rest it reads and writes, at the
 * efficiency of one expert's shape.  Transformer Engine runs it as one
 * cuBLAS GEMM per expert, spread over its compute streams
 * (transformer_engine/common/gemm/cublaslt_gemm.cu, multi_stream_cublas_
 * gemm, lines 970-1023; nvte_multi_tensor_gemm takes CUTLASS's grouped
 * GEMM only on Hopper with NVTE_USE_CUTLASS_GROUPED_GEMM, which the
 * recipes do not set): a kernel, and its fixed cost, per expert.
 */
static double
group_op(struct shape *sh, double flops, double a_elems, double other_elems,
	 double extra, double eff)
{
	double t = 0, bytes, k = sh->nel > 1 ? sh->nel : 1;
	struct prec_state ps;
	int i;

	prec_enter(sh, &ps);
	/* the forward's: the GPU's k experts' weights (gemm_dims()) */
	if (a_elems > 0)
		count_p16(sh, &ps, sh->gk * sh->gn * k);
	if (sh->fp8) {
		/* the experts' operands are quantised by one fused
		 * multi-tensor cast-transpose under the delayed recipe (no
		 * NVFP4 or other recipe has one), else expert by expert */
		if (sh->fp8r == FP8_DELAYED || sh->fp4 || a_elems <= 0) {
			t += quant_ms(sh, a_elems, Q_OWN);
		} else {
			double nk = sh->nk;

			for (i = 0; i < (int)k; i++)
				t += quant_ms(sh, a_elems / k, Q_OWN);
			sh->nk = nk + (sh->nk - nk) / k;
		}
		eff *= fp8_eff_ratio(sh);
	}
	bytes = (a_elems + other_elems) * (sh->fp8 ? sh->qb : sh->e) + extra;
	for (i = 0; i < (int)k; i++)
		t += kernel_ms(sh, OP_GEMM, flops / k, bytes / k, eff,
			       "experts gemm");
	prec_leave(sh, &ps);
	return t;
}

double
analytic_expert_rows(double n, int64_t top_k, int64_t experts, double cf,
		     int min_capacity)
{
	double c;

	if (cf <= 0 || experts < 1)
		return n * (double)top_k;
	/* the capacity of DeepSpeed-MoE's _capacity() (moe/sharded_moe.py:
	 * 161-170): ceil(tokens / E x cf x k), at least min_capacity; the
	 * [E, C, h] dispatch tensor holds E x C rows (sharded_moe.py:609) */
	c = ceil(n / (double)experts * cf * (double)top_k);
	if (c < min_capacity)
		c = min_capacity;
	return (double)experts * c;
}

/* The experts' [M x K] x [K x N] forward, M rows spread evenly. */
static double
expert_ms(struct shape *sh, double M, double K, double N)
{
	double E = sh->nel, me, used;

	/* under expert parallelism the GPU's E / ep experts receive the
	 * rows the ep ranks route to them: as many in all, in balance */
	M *= sh->imb;
	me = fmax(1, M / E);
	used = fmin(E, M);

	gemm_dims(sh, me, K, N, E);
	return group_op(sh, 2 * M * K * N, M * K, used * K * N + M * N, 0,
			analytic_gemm_shape_eff(sh->g->sms, me, K, N * E));
}

/* Its dgrad and wgrad (fp32 main gradients, as gemm_bwd_ms()). */
static double
expert_bwd_ms(struct shape *sh, double M, double K, double N)
{
	double E = sh->nel, me, used;
	int sms = sh->g->sms;
	double dgrad, wgrad;

	M *= sh->imb;
	me = fmax(1, M / E);
	used = fmin(E, M);

	gemm_dims(sh, me, N, K, E);
	dgrad = group_op(sh, 2 * M * K * N, M * N, used * N * K + M * K, 0,
			 analytic_gemm_shape_eff(sms, me, N, K * E));
	gemm_dims(sh, K, me, N, E);
	wgrad = group_op(sh, 2 * M * K * N, 0, K * M + M * N,
			 8 * used * K * N,
			 analytic_gemm_shape_eff(sms, K, me, N * E));
	return dgrad + wgrad;
}

/*
 * Permutation 2 of the alltoall token dispatcher: with more than one
 * expert per GPU the rows the ep ranks send arrive grouped by sender
 * and are sorted by local expert before the experts (with their routing
 * probabilities, probs 1) and back after them (Megatron-Core
 * token_dispatcher.py dispatch_postprocess and combine_preprocess,
 * sort_chunks_by_idxs; one fused kernel under moe_permute_fusion, which
 * the recipes set).  It runs whenever the GPU holds several experts,
 * with or without expert parallelism; its backward is the inverse sort,
 * the same pass.  Rows: the ones this GPU's experts receive.
 */
static double
sort_chunks_ms(struct shape *sh, int probs)
{
	double R = sh->ntok * sh->imb;

	if (sh->nel <= 1)
		return 0;
	return op_ms(sh, OP_VEC, 0,
		     2 * R * sh->eh * sh->e + (probs ? 8 * R : 0));
}

/*
 * FP8 experts: Megatron-Core pads each expert's rows to the quantization
 * block before the grouped GEMMs and drops the padding after them
 * (experts.py TEGroupedMLP.forward, lines 344-352 and 400-402 at
 * 09cce75b1: quantization_padding of the rows and of their
 * probabilities, quantization_unpadding of the output), copies through
 * Transformer Engine's fused_multi_row_padding (fp8_padding.py) that it
 * skips only when every expert's count is already a multiple of the
 * block, which routed counts are not.  Forward (bwd 0, in 0 before the
 * GEMMs, 1 after): the rows (read and write R h e) and the fp32
 * probabilities (8 R), then the output; backward the reverse copies of
 * their gradients.
 */
static double
fp8_pad_ms(struct shape *sh, int after)
{
	double R = sh->ntok * sh->imb, x = 2 * R * sh->eh * sh->e;
	struct prec_state ps;
	int fp8;

	/* the experts' precision (--module-precision) */
	prec_enter(sh, &ps);
	fp8 = sh->fp8;
	prec_leave(sh, &ps);
	if (!fp8)
		return 0;
	if (after)
		return op_ms(sh, OP_VEC, 0, x);
	return op_ms(sh, OP_VEC, 0, x) + op_ms(sh, OP_VEC, 0, 8 * R);
}

/*
 * The experts' second bias, in a model with linear biases (GPT-OSS): it
 * is added outside the grouped GEMM, weighted by each row's routing
 * probability, in eager PyTorch (Megatron-Core experts.py,
 * TEGroupedMLP._apply_bias: lines 251-268 at 09cce75b1, the host-count
 * path of lines 355-378 at d98e8a6): the GEMM output is split by expert,
 * t + b * p runs once per local expert (b * p promotes to fp32 against
 * the fp32 probabilities, so the product and the sum are fp32), the
 * experts' outputs are concatenated and cast back to 16 bits.  Over the
 * X = rows x h elements of the output (forward 28 bytes per element,
 * backward 40):
 *   forward   per expert b * p (write 4) and t + bp (read e + 4, write
 *             4); cat (read 4, write 4); cast (read 4, write e)
 *   backward  the cast's (read e, write 4); per expert the sum's gradient
 *             to t (read 4, write e) and the product's two (grad * p
 *             reduced over the rows for b, grad * b over h for p: a
 *             multiply, read 4 and write 4, then a reduction, read 4,
 *             each); the split's concatenation (read e, write e)
 * Every per-expert operation is a kernel of its own.
 */
static double
expert_bias_ms(struct shape *sh, int bwd)
{
	double X = sh->ntok * sh->imb * sh->eh, e = sh->e, t = 0;
	int k = (int)sh->nel;

	if (!sh->bias || k < 1)
		return 0;
	if (!bwd) {
		t += passes_ms(sh, k, X, 4 * X);
		t += passes_ms(sh, k, X, (e + 8) * X);
		t += op_ms(sh, OP_VEC, 0, 8 * X);
		return t + op_ms(sh, OP_VEC, 0, (4 + e) * X);
	}
	t += op_ms(sh, OP_VEC, 0, (e + 4) * X);
	t += passes_ms(sh, k, 0, (4 + e) * X);
	t += passes_ms(sh, k, X, 8 * X) + passes_ms(sh, k, X, 4 * X);
	t += passes_ms(sh, k, X, 8 * X) + passes_ms(sh, k, X, 4 * X);
	return t + op_ms(sh, OP_VEC, 0, 2 * e * X);
}

/*
 * DeepSpeed-MoE's dispatch and combine (dense_dispatch of analytic_opts):
 * the gate builds the fp32 one-hot [n, E, C] of each token's slots, and
 * the rows move by two GEMMs over it, "sec,sm->ecm" and "sec,ecm->sm"
 * (moe/sharded_moe.py:609, 669, both a torch.matmul of [n, E C]:
 * 129-137), 2 n (E C) h FLOPs each whatever the routing.  R = E C of
 * the rank's tokens, all of them: the tensor-parallel ranks drop their
 * duplicates only after the dispatch GEMM; without a capacity (drop_
 * tokens off) C is the busiest expert's count (imbalance x the share).
 * Forward: the mask (written fp32, cast to 16 bits for each GEMM) and
 * the two GEMMs; backward the
 * dispatch's input gradient and the combine's two (the rows' and the
 * routing weights').
 */
static double
dense_dispatch_ms(struct shape *sh, int bwd)
{
	double n = sh->n, h = sh->h, e = sh->e;
	double R = sh->ntok * sh->imb * (sh->etp < sh->t ? sh->t : 1);

	if (!bwd)
		return op_ms(sh, OP_VEC, 0, n * R * (4 + 2 * e)) +
		       gemm_ms(sh, R, n, h) + gemm_ms(sh, n, R, h);
	return gemm_ms(sh, n, R, h) + gemm_ms(sh, R, n, h) +
	       gemm_ms(sh, n, h, R);
}

/*
 * The router's GEMM, forward or backward: in the input's 16-bit type (or
 * fp32) whatever the model's FP8 recipe, never quantised (Megatron-Core
 * RouterGatingLinearFunction, moe/moe_utils.py:1443-1461, called by
 * TopKRouter.gating, router.py:105-111, at d98e8a6), over the rank's
 * own tokens (moe_ms()).
 */
static double
router_ms(struct shape *sh, int bwd)
{
	int fp8 = sh->fp8, fp4 = sh->fp4;
	double t;

	sh->fp8 = sh->fp4 = 0;
	t = bwd ? gemm_bwd_ms(sh, sh->n / sp_div(sh), sh->h, sh->ne)
		: gemm_ms(sh, sh->n / sp_div(sh), sh->h, sh->ne);
	sh->fp8 = fp8;
	sh->fp4 = fp4;
	return t;
}

/*
 * A MoE MLP, forward: the router (h x experts, fp32 scores, top-k),
 * permutation of each token to its experts (rows = n top_k, padded to the
 * capacity factor), the experts' up GEMM, activation and down GEMM, the
 * weighted un-permutation, and the shared experts as one dense MLP of
 * their summed width.  Tokens are assumed balanced over the experts
 * (Megatron-Bridge's benchmarks force it; the load-imbalance factor
 * belongs to expert parallelism).  Under sequence parallelism each
 * tensor-parallel rank routes, permutes and (LatentMoE) projects its own
 * 1/t of the tokens, the layer's input as the norm left it sharded
 * (Megatron-Core moe_layer.py route() and preprocess() on the local
 * hidden_states, 470-490 at d98e8a6; torchtitan's router alike under
 * expert parallelism, models/common/moe_sharding.py:89-94 at
 * b5bcd76c6): nl of them.  NEEDSWORK: torchtitan without expert
 * parallelism replicates the tokens and routes all n on every rank.
 */
static double
moe_ms(struct shape *sh)
{
	double n = sh->n, h = sh->h, e = sh->e, M = sh->ntok, fe = sh->fe;
	double E = sh->ne, sf = sh->sf, w = sh->eh, t, nl = n / sp_div(sh);
	int was;

	t = router_ms(sh, 0);
	t += op_named(sh, "router top-k", OP_VEC, 8 * nl * E,
		      8 * nl * E + 12 * M);
	/* LatentMoE: the tokens down to the experts' width, in the
	 * preprocessing (moe_layer.py:488-490 at d98e8a6) */
	was = site_set(sh, ANALYTIC_SITE_LATENT);
	if (sh->lat)
		t += gemm_ms(sh, nl, h, w);
	site_set(sh, ANALYTIC_SITE_EXPERTS);
	if (sh->dd)
		t += dense_dispatch_ms(sh, 0);
	else
		t += op_named(sh, "permute", OP_VEC, 0,
			      nl * w * e + M * w * e + 8 * M);
	/* the end of the MoE layer's preprocess() (the permutation is the
	 * alltoall dispatcher's dispatch_preprocess, moe_layer.py:356-373
	 * at 9ed8b0c4ac): the dispatch and the experts follow */
	sh->gnk = sh->nk;
	t += sort_chunks_ms(sh, 1);
	t += fp8_pad_ms(sh, 0);
	if (sh->swiglu) {
		t += expert_ms(sh, M, w, 2 * fe);
		t += clamp_ms(sh, M * fe, 0) + act_ms(sh, M * fe);
	} else {
		t += expert_ms(sh, M, w, fe);
		t += act_ms(sh, M * fe);
	}
	t += expert_ms(sh, M, fe, w);
	t += expert_bias_ms(sh, 0);
	t += fp8_pad_ms(sh, 1);
	t += sort_chunks_ms(sh, 0);
	if (!sh->dd)
		t += op_named(sh, "unpermute", OP_VEC, 2 * M * w,
			      M * w * e + nl * w * e + 4 * M);
	/* ... and back to h after the combine (moe_layer.py:591-592) */
	site_set(sh, ANALYTIC_SITE_LATENT);
	if (sh->lat)
		t += gemm_ms(sh, nl, w, h);
	site_set(sh, ANALYTIC_SITE_SHARED);
	sh->shf = 0;
	if (sf) {
		double t0 = t;

		if (sh->swiglu) {
			t += gemm_ms(sh, n, h, 2 * sf);
			t += act_ms(sh, n * sf);
		} else {
			t += gemm_ms(sh, n, h, sf);
			t += act_ms(sh, n * sf);
		}
		t += gemm_ms(sh, n, sf, h);
		t += op_named(sh, "shared experts add", OP_VEC, n * h,
			      3 * n * h * e);
		sh->shf = t - t0;
	}
	site_set(sh, was);
	return t;
}

static double
moe_bwd_ms(struct shape *sh)
{
	double n = sh->n, h = sh->h, e = sh->e, M = sh->ntok, fe = sh->fe;
	double E = sh->ne, sf = sh->sf, w = sh->eh, t = 0, nl = n / sp_div(sh);
	int was = site_set(sh, ANALYTIC_SITE_SHARED);

	if (sf) {
		t += op_named(sh, "shared experts add", OP_VEC, n * h,
			      3 * n * h * e);
		t += gemm_bwd_ms(sh, n, sf, h);
		if (sh->swiglu) {
			t += act_bwd_ms(sh, n * sf);
			t += gemm_bwd_ms(sh, n, h, 2 * sf);
		} else {
			t += act_bwd_ms(sh, n * sf);
			t += gemm_bwd_ms(sh, n, h, sf);
		}
	}
	site_set(sh, ANALYTIC_SITE_LATENT);
	if (sh->lat)
		t += gemm_bwd_ms(sh, nl, w, h);
	site_set(sh, ANALYTIC_SITE_EXPERTS);
	/* un-permutation: gradients of the rows and of the probabilities */
	if (sh->dd)
		t += dense_dispatch_ms(sh, 1);
	else
		t += op_named(sh, "unpermute", OP_VEC, 4 * M * w,
			      2 * M * w * e + nl * w * e + 8 * M);
	t += sort_chunks_ms(sh, 0);
	t += fp8_pad_ms(sh, 1);
	t += expert_bias_ms(sh, 1);
	t += expert_bwd_ms(sh, M, fe, w);
	if (sh->swiglu) {
		t += act_bwd_ms(sh, M * fe) + clamp_ms(sh, M * fe, 1);
		t += expert_bwd_ms(sh, M, w, 2 * fe);
	} else {
		t += act_bwd_ms(sh, M * fe);
		t += expert_bwd_ms(sh, M, w, fe);
	}
	t += fp8_pad_ms(sh, 0);
	t += sort_chunks_ms(sh, 1);
	if (!sh->dd)
		t += op_named(sh, "permute", OP_VEC, M * w,
			      M * w * e + nl * w * e + 8 * M);
	site_set(sh, ANALYTIC_SITE_LATENT);
	if (sh->lat)
		t += gemm_bwd_ms(sh, nl, h, w);
	site_set(sh, was);
	sh->gnk = sh->nk;
	t += op_named(sh, "router top-k", OP_VEC, 8 * nl * E, 12 * nl * E);
	return t + router_ms(sh, 1);
}

/* The expert rows a rank's tensors hold: the budget's under a static
 * one, else the balanced share. */
static double
held_rows(const struct shape *sh)
{
	return sh->ntok * (sh->rcap > 0 ? sh->rcap : 1);
}

/*
 * What a MoE MLP keeps: the router's fp32 scores and the chosen experts'
 * indices and weights, the permuted rows (the up GEMM's input), the gate
 * and up outputs and their weighted product (or GELU's input and output),
 * the shared experts' inner activations.  Not the expert outputs: the
 * routing weights multiply inside the activation (Megatron-Core
 * experts.py:964-971, weighted_bias_swiglu_impl with permuted_probs), so
 * the weights' gradient needs the activation's input, which is kept, and
 * the un-permutation is a plain sum.  An eager clamp (clamp_ms()) keeps
 * the raw halves for its own backward and the activation keeps the
 * clamped ones: two more of the width.  The expert-side tensors hold
 * held_rows(), or under a paged stash the pages it sizes from the
 * balanced rows (Megatron-Core moe_paged_stash, transformer_config.py:
 * 1364-1374, paged_stash.py:553-590 at d98e8a6: its CUDA buffer is the
 * average-based peak times moe_paged_stash_buffer_size_factor_cuda).
 * The stash copies the tensors the experts save into their pages, and
 * back, on a stream of its own beside the compute (paged_stash.py:
 * 404-409, 477-540, saved_tensors_hooks around the grouped MLP,
 * experts.py:766-828): no time priced for them.
 */

static double
moe_stash(struct shape *sh)
{
	double n = sh->n, e = sh->e, w = sh->eh, nl = n / sp_div(sh);
	double M = sh->pstash > 0 ? sh->ntok * sh->pstash : held_rows(sh);
	/* LatentMoE keeps the combined rows, the up projection's input */
	double st = 4 * nl * sh->ne + 12 * M + M * w * e +
		    (sh->lat ? nl * w * e : 0) +
		    (sh->swiglu ? 3 + unfused_glu(sh) : 2) *
			    (M * sh->fe + n * sh->sf) * e +
		    (sh->clamp ? 2 * M * sh->fe * e : 0);

	/* dense dispatch: the two 16-bit masks the GEMMs keep, the fp32
	 * one-hot the weights' einsum keeps (sharded_moe.py:442), and the
	 * experts' gathered output the combine keeps */
	if (sh->dd)
		st += (2 * e + 4) * n * M * sh->imb *
			      (sh->etp < sh->t ? sh->t : 1) +
		      M * w * e;
	return st;
}

/*
 * A Mamba-2 mixer as Megatron-Core trains it (mamba_mixer.py at d98e8a6):
 * the input projection with the pre-norm fused (TELayerNormColumn-
 * ParallelLinear), the (l, b) -> (b, l) copy of its output (a view at
 * microbatch 1, 691), mamba_ssm's mamba_split_conv1d_scan_combined
 * (707-722: the causal convolution and SiLU over x, B and C, then the
 * chunked scan, the gate silu(z) inside it), the copy back, the gated
 * RMSNorm over groups of d_inner (730-731) and the output projection.
 * The scan runs as Dao and Gu's SSD (2024, section 6), Triton kernels in
 * chunks of Q tokens: dt's softplus and cumulative sums (fp32), each
 * chunk's state B^T x (heads x head_dim x N, fp32), the pass of the
 * states from chunk to chunk, C^T B within each chunk (Q x Q a group,
 * fp32) and the output: the masked C^T B times x plus C times the
 * incoming state, plus D x, gated.  Their matmuls are priced at the
 * fused-attention rate (OP_ATTN), everything against its bytes.
 * Backward (MambaSplitConv1dScanCombinedFn.backward) runs the
 * convolution, cumulative sums, states and C^T B again, then the
 * output's gradients (dz with the gate, the states' gradient C^T dy,
 * its pass back, dx with ddt, dC, d(C^T B) and from it dB and dC, dB
 * from the states' gradient), dt's, and the convolution's backward.
 */
static double
ssd_state_bytes(const struct shape *sh)
{
	return sh->n / sh->mQ * sh->mh * sh->mp * sh->mN * 4;
}

/* The scan's forward kernels up to its output (again = 1: the
 * backward's rerun, the same kernels) over n tokens. */
static double
ssd_prep_ms(struct shape *sh)
{
	double n = sh->n, e = sh->e, di = sh->mdi, gN = sh->mg * sh->mN;
	double conv = di + 2 * gN, st = ssd_state_bytes(sh);
	double cb = n * sh->mg * sh->mQ * 4, t;

	t = op_named(sh, "mamba conv1d", OP_VEC, 2 * n * conv * sh->mconv,
		     2 * n * conv * e);
	t += op_named(sh, "ssd cumsum", OP_VEC, 10 * n * sh->mh,
		      n * sh->mh * (e + 8));
	t += op_named(sh, "ssd chunk state", OP_ATTN, 2 * n * di * sh->mN,
		      n * (di + gN) * e + n * sh->mh * 8 + st);
	t += op_named(sh, "ssd state passing", OP_VEC, 2 * st / 4, 2 * st);
	t += op_named(sh, "ssd bmm chunk", OP_ATTN, 2 * n * sh->mQ * gN,
		      2 * n * gN * e + cb);
	return t;
}

static double
mamba_fwd_ms(struct shape *sh)
{
	double n = sh->n, e = sh->e, h = sh->h, di = sh->mdi;
	double gN = sh->mg * sh->mN, t;
	int was = site_set(sh, ANALYTIC_SITE_MAMBA_IN);

	t = norm_ms(sh) + gemm_norm_ms(sh, n, h, sh->min);
	site_set(sh, was);
	if (sh->b > 1)
		t += op_named(sh, "mamba transpose", OP_VEC, 0,
			      2 * n * sh->min * e);
	t += ssd_prep_ms(sh);
	t += op_named(sh, "ssd chunk scan", OP_ATTN,
		      2 * n * sh->mQ * di + 2 * n * di * sh->mN,
		      n * sh->mg * sh->mQ * 4 + n * (3 * di + gN) * e +
			      ssd_state_bytes(sh));
	if (sh->b > 1)
		t += op_named(sh, "mamba transpose", OP_VEC, 0,
			      2 * n * di * e);
	t += op_named(sh, "gated norm", OP_VEC, 4 * n * di,
		      2 * n * di * e + n * sh->mg * 4);
	site_set(sh, ANALYTIC_SITE_MAMBA_OUT);
	t += gemm_ms(sh, n, di, h);
	site_set(sh, was);
	return t + dropadd_ms(sh);
}

static double
mamba_bwd_ms(struct shape *sh)
{
	double n = sh->n, e = sh->e, h = sh->h, di = sh->mdi;
	double gN = sh->mg * sh->mN, conv = di + 2 * gN;
	double st = ssd_state_bytes(sh), cb = n * sh->mg * sh->mQ * 4, t;
	int was = site_set(sh, ANALYTIC_SITE_MAMBA_OUT);

	t = dropadd_bwd_ms(sh) + gemm_bwd_row_ms(sh, n, di, h);
	site_set(sh, was);
	t += op_named(sh, "gated norm", OP_VEC, 8 * n * di,
		      3 * n * di * e + n * sh->mg * 4);
	if (sh->b > 1)
		t += op_named(sh, "mamba transpose", OP_VEC, 0,
			      2 * n * di * e);
	t += ssd_prep_ms(sh);
	t += op_named(sh, "ssd dz", OP_VEC, 10 * n * di, 5 * n * di * e);
	t += op_named(sh, "ssd dstates", OP_ATTN, 2 * n * di * sh->mN,
		      n * (di + gN) * e + st);
	t += op_named(sh, "ssd state passing", OP_VEC, 2 * st / 4, 3 * st);
	t += op_named(sh, "ssd dx", OP_ATTN,
		      2 * n * sh->mQ * di + 2 * n * di * sh->mN,
		      cb + n * (3 * di + gN) * e + st + n * sh->mh * 8);
	t += op_named(sh, "ssd dC", OP_ATTN, 2 * n * di * sh->mN,
		      st + n * (di + gN) * e);
	t += op_named(sh, "ssd dcb", OP_ATTN, 2 * n * sh->mQ * di,
		      2 * n * di * e + cb);
	t += 2 * op_named(sh, "ssd bmm chunk", OP_ATTN,
			  2 * n * sh->mQ * gN, cb + 2 * n * gN * e);
	t += op_named(sh, "ssd dB", OP_ATTN, 2 * n * di * sh->mN,
		      st + n * (di + gN) * e);
	t += op_named(sh, "ssd cumsum", OP_VEC, 20 * n * sh->mh,
		      n * sh->mh * (2 * e + 16));
	t += op_named(sh, "mamba conv1d", OP_VEC, 4 * n * conv * sh->mconv,
		      3 * n * conv * e);
	if (sh->b > 1)
		t += op_named(sh, "mamba transpose", OP_VEC, 0,
			      2 * n * sh->min * e);
	site_set(sh, ANALYTIC_SITE_MAMBA_IN);
	t += gemm_bwd_ms(sh, n, h, sh->min);
	site_set(sh, was);
	return t + norm_bwd_ms(sh);
}

/*
 * What a Mamba-2 mixer keeps for backward beyond its layer's input and
 * pre-norm output: what mamba_ssm's combined function saves (the
 * transposed projection output zxbcdt and the scan's output before its
 * gate, out_x), the gated output (the norm's input) with the norm's
 * statistics, and the norm's output for the output projection (its
 * quantised copy under FP8).
 */
static double
mamba_stash(struct shape *sh)
{
	double n = sh->n, e = sh->e;
	double g = e - site_qsave(sh, ANALYTIC_SITE_MAMBA_OUT);

	return n * sh->min * e + n * sh->mdi * (2 * e + g) + n * sh->mg * 4;
}

/*
 * What a hybrid model's layer keeps: its input and pre-norm output (as
 * a block keeps each of its two), then its one sublayer's as a block
 * keeps them, or the Mamba mixer's (mamba_stash()).
 */
static double
sublayer_stash(struct shape *sh)
{
	double n = sh->n, h = sh->h, e = sh->e;
	double sp = sh->sp ? sh->t : 1, st;

	st = n * h * e + n * sh->statb + norm_x_stash(sh, n * h) + n * h * e;
	if (sh->drop)
		st += n * h;
	st /= sp;
	if (sh->fp8)
		st -= site_qsave(sh, sh->mamba	      ? ANALYTIC_SITE_MAMBA_IN
				     : sh->has_attn ? ANALYTIC_SITE_QKV
						    : mlp_in_site(sh)) *
		      n * h / sp;
	if (sh->mamba)
		return st + mamba_stash(sh);
	if (sh->has_attn) {
		st += n * (sh->qt + 2 * (sh->kva - sh->kvt) * sh->dh) * e +
		      core_stash(sh) + n * sh->ht * e;
		if (sh->qk_norm) {
			double qkn = n * (sh->at + sh->kvt) * sh->dh;

			st += qkn * e + 2 * n * sh->statb +
			      norm_x_stash(sh, qkn);
		}
		if (sh->fp8)
			st -= site_qsave(sh, ANALYTIC_SITE_PROJ) * n * sh->ht;
		return st;
	}
	if (sh->moe)
		st += moe_stash(sh);
	else
		st += (sh->swiglu ? 3 + unfused_glu(sh) : 2) * n * sh->ft * e;
	if (sh->fp8)
		st -= sh->moe ? site_qsave(sh, ANALYTIC_SITE_EXPERTS) *
					sh->ntok * (sh->eh + sh->fe) +
				site_qsave(sh, ANALYTIC_SITE_SHARED) * n * sh->sf
			      : site_qsave(sh, ANALYTIC_SITE_FC2) * n * sh->ft;
	return st;
}

/*
 * Everything a block keeps for backward with no recomputation:
 *   norm 1 input and statistics        n h e + n statb
 *   QKV GEMM input (norm 1 output)     n h e
 *   Q, K, V (after rotary, if any)     n qt e (K, V at kva heads)
 *   attention core                     core_stash()
 *   projection input (context)         n ht e
 *   dropout mask after the projection  n h       (with dropout)
 *   norm 2 input and statistics        n h e + n statb
 *   MLP up GEMM input (norm 2 output)  n h e
 *   GELU input and output              2 n ft e
 *   (SwiGLU: gate, up and product      3 n ft e)
 *   dropout mask after the MLP         n h       (with dropout)
 * For GPT (qt = 3h, ft = 4h, t = 1) that is 34 n h + 5 a s n + 16 n
 * bytes in 16-bit.  MLA adds its latents (mla_stash()), QK-norm the
 * queries and keys before it with statistics, post-norms their two
 * inputs and statistics, and a MoE layer keeps moe_stash() instead of the
 * MLP's inner activations.
 */
static double
block_stash(struct shape *sh)
{
	double n = sh->n, h = sh->h, e = sh->e;
	double st;

	if (!sh->has_attn || !sh->has_mlp)
		return sublayer_stash(sh);
	/* The terms tensor parallelism does not split (Korthikanti et
	 * al.'s 10 s b h): sequence parallelism splits them too. */
	st = 2 * (n * h * e + n * sh->statb + norm_x_stash(sh, n * h)) +
	     2 * n * h * e;
	if (sh->drop)
		st += 2 * n * h;
	if (sh->post_norms)
		st += 2 * (n * h * e + n * sh->statb + norm_x_stash(sh, n * h));
	if (sh->sp)
		st /= sh->t;
	/* Q, K and V as the attention kernel keeps them: where the runtime
	 * copies the grouped K/V heads out to every query head first
	 * (repeat_kv_ms()), the kernel saves the copies, and nothing keeps
	 * the grouped K and V (the copy's and the rotary's backward need
	 * no input: torchtitan models/llama/model.py:201-202, 118-121 at
	 * 9dec370) */
	st += n * (sh->qt + 2 * (sh->kva - sh->kvt) * sh->dh) * e +
	      core_stash(sh) + n * sh->ht * e;
	if (sh->moe)
		st += moe_stash(sh);
	else
		st += (sh->swiglu ? 3 + unfused_glu(sh) : 2) * n * sh->ft * e;
	if (sh->mla)
		st += mla_stash(sh);
	if (sh->qk_norm) {
		double qkn = n * (sh->at + sh->kvt) *
			     (sh->mla ? sh->dqk : sh->dh);

		st += qkn * e + 2 * n * sh->statb + norm_x_stash(sh, qkn);
	}
	/* LoRA (frozen, dense blocks only): a frozen linear keeps no input,
	 * which only its weight gradient reads (module/linear.py:303 at
	 * d0067d0da, backward_needs_input); its adapter, where it has one,
	 * keeps that input at 16 bits and its own x A (B's gradient) */
	if (sh->frozen) {
		unsigned mk = sh->lora_mask;
		double in = n * h * e / (sh->sp ? sh->t : 1);

		st -= (mk & ANALYTIC_LORA_QKV ? 0 : in) +
		      (mk & ANALYTIC_LORA_FC1 ? 0 : in) +
		      (mk & ANALYTIC_LORA_PROJ ? 0 : n * sh->ht * e) +
		      (mk & ANALYTIC_LORA_FC2 ? 0 : n * sh->ft * e);
		for (; mk; mk >>= 1)
			st += (mk & 1) * n * sh->lora * e;
		return st;
	}
	/* FP8 layers keep their GEMMs' inputs as the FP8 copies: the norm
	 * outputs feeding QKV and the MLP, the context feeding the
	 * projection, the activation feeding the second MLP GEMM */
	if (sh->fp8)
		st -= (site_qsave(sh, ANALYTIC_SITE_QKV) +
		       site_qsave(sh, mlp_in_site(sh))) *
			      n * h / (sh->sp ? sh->t : 1) +
		      site_qsave(sh, ANALYTIC_SITE_PROJ) * n * sh->ht +
		      (sh->moe ? site_qsave(sh, ANALYTIC_SITE_EXPERTS) *
					 sh->ntok * (sh->eh + sh->fe) +
				 site_qsave(sh, ANALYTIC_SITE_SHARED) * n *
					 sh->sf
			       : site_qsave(sh, ANALYTIC_SITE_FC2) * n * sh->ft);
	return st;
}

/* Forward matmul FLOPs of a format-2 block (model_count.c's rules). */
static double
block_flops_v2(struct shape *sh)
{
	double n = sh->n, h = sh->h, at = sh->at, f;
	double mats = sh->swiglu ? 3 : 2;

	if (sh->mamba)
		return 2 * n * h * sh->min + 2 * n * sh->mdi * h +
		       n * (4 * sh->mN * sh->mdi + 2 * sh->mQ * sh->mdi +
			    2 * sh->mQ * sh->mN * sh->mg);
	if (!sh->has_attn)
		f = 0;
	else
	if (sh->mla)
		f = 2 * n * ((sh->qr ? h * sh->qr + sh->qr * at * sh->dqk
				     : h * at * sh->dqk) +
			     h * (sh->kvr + sh->rd) +
			     sh->kvr * at * (sh->dqk - sh->rd + sh->dv)) +
		    2 * n * sh->span * at * (sh->dqk + sh->dv);
	else
		f = 2 * n * h * sh->qt + 4 * n * sh->span * sh->ht;
	if (sh->has_attn)
		f += 2 * n * sh->ht * h;
	if (!sh->has_mlp)
		return f;
	if (!sh->moe)
		return f + mats * 2 * n * h * sh->ft;
	return f + 2 * n * h * sh->ne +
	       mats * 2 * (sh->eh * n * sh->topk * sh->fe + h * n * sh->sf) +
	       (sh->lat ? 4 * n * h * sh->eh : 0);
}

/*
 * torchtitan's per-op selective recomputation (selective_ac_option "op":
 * torchtitan/distributed/activation_checkpoint.py _apply_op_sac, lines
 * 52-137 at v0.2.2, and the save list of each model's infra/
 * parallelize.py: llama3's lines 36-51, qwen3's 39-54, deepseek_v3's
 * 33-48, llama4's 51-66).  Each block's checkpoint makes a fresh counter
 * (meta = defaultdict(int), lines 126-128); the block's forward runs
 * again in backward but for the ops whose outputs it saved: the
 * attention core (its output and log-sum-exp), the sequence-parallel
 * reduce-scatters, and every odd aten.mm of the block in forward order
 * (lines 108-117 recompute the even ones).  F.linear without a bias
 * reaches aten.mm through matmul's fold of the leading dimensions, below
 * the autograd key where the dispatch mode sees it.  A Llama block calls
 * wq, wk, wv (llama3/model/model.py:251), wo (304), w1, w3, w2 (343):
 * Q, V, w1 and w2 are kept; K, the output projection and w3 run again.
 * MLA calls wq (or wq_a, wq_b), wkv_a, wkv_b, wo (deepseek_v3/model/
 * model.py:273-276, 288, 295, 323).  In a MoE block the router's gate
 * is forced to recompute before it is counted (lines 111-112,
 * per_op_sac_force_recompute_mm_shapes_by_fqns, job_config.py:661-663)
 * and the routed experts are torch._grouped_mm (moe/moe.py:122-128),
 * not on the lists: neither counts, both run again; the shared experts
 * (moe.py:529) continue the count.  The expert all-to-alls
 * (all_to_all_single, expert_parallel.py:138, 175) are on deepseek_v3's
 * and llama4's lists, not on qwen3's (nor llama3's): a MoE without MLA
 * or shared experts is qwen3, whose dispatch and combine run again
 * (block_point() marks them for cost_ep(), and the sequence-parallel
 * all-gathers, on no list, for cost_tp()).  Kept under them:
 * the dispatch's output, the busiest rank's imbalance x its rows, and
 * the combine's, its own rows; with the experts split like tp, every
 * rank dispatches all of them (expert_parallel.py:209-216).
 * torchao's Float8Linear calls torch.mm on Float8TrainingTensor
 * operands (torchao float8/float8_linear.py:89 at 450699a, torchtitan
 * v0.2.2's day); the dispatch mode sees that aten.mm before the
 * subclass turns it into _scaled_mm (float8/float8_ops.py:364-365, 73):
 * FP8 blocks keep the same odd outputs, 16-bit, and only the GEMMs
 * are saved, their inputs' casts run again.  Kept: the block's input
 * (the checkpoint's) and those outputs.  Returns the recomputation's
 * ms, and the bytes kept in *keep.
 */
static int
op_sac_keeps_a2a(const struct shape *sh)
{
	return sh->mla || sh->sf > 0;
}

static double
op_sac(struct shape *sh, double f, double core, double *keep)
{
	double n = sh->n, h = sh->h, e = sh->e, at = sh->at;
	double k[12], w[12], ms = 0, x;
	int m = 0, i;

	/* the block's own GEMMs, without LoRA's adapters */
	sh->lora_site = 0;
	if (sh->mla) {
		if (sh->qr) {
			k[m] = h, w[m++] = sh->qr;
			k[m] = sh->qr, w[m++] = at * sh->dqk;
		} else
			k[m] = h, w[m++] = at * sh->dqk;
		k[m] = h, w[m++] = sh->kvr + sh->rd;
		k[m] = sh->kvr, w[m++] = at * (sh->dqk - sh->rd + sh->dv);
	} else {
		k[m] = h, w[m++] = at * sh->dh;
		k[m] = h, w[m++] = sh->kvt * sh->dh;
		k[m] = h, w[m++] = sh->kvt * sh->dh;
	}
	k[m] = sh->ht, w[m++] = h;
	if (!sh->moe || sh->sf > 0) {
		double ft = sh->moe ? sh->sf : sh->ft;

		k[m] = h, w[m++] = ft;
		if (sh->swiglu)
			k[m] = h, w[m++] = ft;
		k[m] = ft, w[m++] = h;
	}
	x = n * h * e / (sh->sp ? sh->t : 1) + n * sh->ht * e +
	    core_stash(sh);
	for (i = 0; i < m; i += 2) {
		ms += gemm_ms(sh, n, k[i], w[i]);
		if (sh->fp8)
			ms -= quant_ms(sh, n * k[i], Q_OWN);
		x += n * w[i] * e;
	}
	if (sh->sp && sh->t > 1)
		x += 2 * n * h * e / sh->t;
	if (sh->moe && sh->ep > 1 && op_sac_keeps_a2a(sh))
		x += (sh->imb + 1) * sh->ntok * h * e;
	*keep = x;
	return fmax(0, f - ms - core);
}

/*
 * Selective recomputation of a block: the forward time of the modules in
 * sh->rcm run again in backward, returned, and the bytes they no longer
 * stash in *saved (Megatron-Core transformer_config.py recompute_modules;
 * the checkpointed regions of transformer_layer.py, multi_latent_
 * attention.py, experts.py).  core is the attention core's forward.
 *   core_attn    core_stash(); the core again
 *   mla_up_proj  Q, K and V (n qt) from the latents, which stay; the
 *                up-projections and rope again
 *   layernorm    the two pre-norms' outputs (FP8 layers keep their
 *                FP8 copies instead); the two norms again
 *   moe_act      the experts' weighted activation output (the second
 *                grouped GEMM's input); the activation again
 *   mlp          a dense MLP's inner activations; its forward again
 *   op           torchtitan's per-op policy, op_sac()
 */
static double
selective(struct shape *sh, double f, double core, double *saved)
{
	double n = sh->n, h = sh->h, e = sh->e, t = 0, x = 0, t0, k0;
	int pass = sh->ks_pass;

	/* the kernels priced here run again in backward: listed by module
	 * (ks_sel()), not as the forward's */
	sh->ks_pass = -1;
	if (sh->rcm & ANALYTIC_RC_OP) {
		t = op_sac(sh, f, core, &x);
		*saved = fmax(0, block_stash(sh) - x);
		ks_sel(sh, "per-op", 0, t);
		sh->ks_pass = pass;
		return t;
	}

	if ((sh->rcm & ANALYTIC_RC_CORE_ATTN) && sh->has_attn) {
		t += core;
		x += core_stash(sh);
		ks_sel(sh, "core_attn", sh->core_nk, core);
	}
	if ((sh->rcm & ANALYTIC_RC_MLA_UP_PROJ) && sh->mla && sh->has_attn) {
		double at = sh->at;

		t0 = t, k0 = sh->nk;
		t += sh->qr ? gemm_ms(sh, n, sh->qr, at * sh->dqk)
			    : gemm_ms(sh, n, h, at * sh->dqk);
		t += gemm_ms(sh, n, sh->kvr, at * (sh->dqk - sh->rd + sh->dv));
		if (sh->rotary)
			t += rope_ms(sh, n * at * sh->rd, n * sh->rd, 0);
		x += n * sh->qt * e;
		ks_sel(sh, "mla_up_proj", sh->nk - k0, t - t0);
	}
	if (sh->rcm & ANALYTIC_RC_LAYERNORM) {
		/* a hybrid model's layer has one pre-norm */
		double k = sh->has_attn && sh->has_mlp ? 2 : 1;

		/* the norms' outputs as the linears after them keep them
		 * (--module-precision) */
		int in = sh->mamba ? ANALYTIC_SITE_MAMBA_IN : mlp_in_site(sh);
		double keep =
			!sh->fp8	? k * e
			: !sh->has_attn ? e - site_qsave(sh, in)
					: 2 * e - site_qsave(sh, ANALYTIC_SITE_QKV) -
						  (k > 1 ? site_qsave(sh, in) : e);

		t0 = t, k0 = sh->nk;
		t += k * norm_ms(sh);
		x += (n * h * keep + k * norm_x_stash(sh, n * h)) /
		     (sh->sp ? sh->t : 1);
		ks_sel(sh, "layernorm", k * (sh->nk - k0), t - t0);
	}
	if ((sh->rcm & ANALYTIC_RC_MOE) && sh->moe) {
		/* Megatron-Core's "moe": the MoE layer's forward under one
		 * checkpoint (transformer_layer.py, recompute of
		 * _forward_mlp at d98e8a6); it keeps its input alone, the
		 * dispatch runs again (block_point() marks it) */
		t0 = t;
		t += sh->mf;
		x += moe_stash(sh);
		ks_sel(sh, "moe", sh->mfk, t - t0);
	} else if ((sh->rcm & ANALYTIC_RC_MOE_ACT) && sh->moe) {
		/* the checkpoint runs the clamp again, and frees what it
		 * keeps (experts.py:1013-1018) */
		t0 = t, k0 = sh->nk;
		t += clamp_ms(sh, sh->ntok * sh->fe, 0) +
		     act_ms(sh, sh->ntok * sh->fe);
		x += sh->ntok * sh->fe *
			     (e - site_qsave(sh, ANALYTIC_SITE_EXPERTS)) +
		     (sh->clamp ? 2 * sh->ntok * sh->fe * e : 0);
		ks_sel(sh, "moe_act", sh->nk - k0, t - t0);
	}
	if ((sh->rcm & ANALYTIC_RC_MLP) && sh->has_mlp && !sh->moe) {
		double ft = sh->ft;

		t0 = t, k0 = sh->nk;
		sh->lora_site = ANALYTIC_LORA_FC1;
		t += gemm_norm_ms(sh, n, h, (sh->swiglu ? 2 : 1) * ft) +
		     act_ms(sh, n * ft);
		sh->lora_site = ANALYTIC_LORA_FC2;
		t += gemm_ms(sh, n, ft, h);
		sh->lora_site = 0;
		x += (sh->swiglu ? 2 + unfused_glu(sh) : 1) * n * ft * e +
		     n * ft * (e - site_qsave(sh, ANALYTIC_SITE_FC2));
		ks_sel(sh, "mlp", sh->nk - k0, t - t0);
	}
	*saved = x;
	sh->ks_pass = pass;
	return t;
}

/*
 * A block's MLP backward from its residual add to its first GEMM's input
 * gradient (its pre-norm's backward not included); *mb the MoE layer's
 * share (moe_bwd_ms()), *gb the kernels counted before its router's
 * backward.
 */
static double
mlp_bwd_ms(struct shape *sh, double *mb, double *gb)
{
	double n = sh->n, h = sh->h, ft = sh->ft, bw = 0;

	bw += spcopy_ms(sh, 1);
	if (sh->post_norms)
		bw += norm_bwd_ms(sh);
	sh->lora_site = ANALYTIC_LORA_FC2;
	if (sh->moe) {
		*mb = moe_bwd_ms(sh);
		bw += dropadd_bwd_ms(sh) + *mb;
		*gb = sh->gnk;
	} else
		bw += dropadd_bwd_ms(sh) + gemm_bwd_row_ms(sh, n, ft, h);
	sh->lora_site = ANALYTIC_LORA_FC1;
	if (sh->moe) {
		/* in moe_bwd_ms() */
	} else if (sh->swiglu) {
		bw += act_bwd_ms(sh, n * ft);
		bw += gemm_bwd_ms(sh, n, h, 2 * ft) + split_sum_ms(sh, 2);
	} else {
		bw += act_bwd_ms(sh, n * ft);
		bw += gemm_bwd_ms(sh, n, h, ft);
	}
	return bw;
}

static void
block_point(struct shape *sh, struct prof_point *pt)
{
	double n = sh->n, h = sh->h, e = sh->e, ft = sh->ft;
	double rq = n * sh->at * sh->dh, rk = n * sh->kvt * sh->dh;
	double qkn = n * (sh->at + sh->kvt) * (sh->mla ? sh->dqk : sh->dh);
	double f = 0, bw = 0, core, core_b, g2, bas, mf = 0, mb = 0;
	double mats = sh->swiglu ? 3 : 2, last, add, gb = 0;
	int early;

	if (sh->mla) {
		rq = n * sh->at * sh->rd;
		rk = n * sh->rd;
	}
	/* Forward (lora_site: which linear, for LoRA's adapters); a
	 * hybrid model's layer has one of the sublayers */
	sh->ks_pass = KERNEL_PASS_FWD;
	sh->lora_site = ANALYTIC_LORA_QKV;
	core = core_b = 0;
	sh->core_nk = 0;
	if (sh->mamba)
		f += mamba_fwd_ms(sh);
	if (sh->has_attn && sh->mla)
		f += norm_ms(sh) + mla_proj_ms(sh);
	else if (sh->has_attn)
		f += norm_ms(sh) + gemm_norm_ms(sh, n, h, sh->qt);
	if (sh->has_attn && sh->qk_norm)
		f += norm_x_ms(sh, qkn, 2 * n, 0);
	if (sh->has_attn && sh->rotary)
		f += rope_ms(sh, rq, rk, 0);
	if (sh->has_attn) {
		sh->core_nk = sh->nk;
		core = core_ms(sh);
		sh->core_nk = sh->nk - sh->core_nk;
	}
	sh->lora_site = ANALYTIC_LORA_PROJ;
	if (sh->has_attn && sh->post_norms)
		f += core + gemm_ms(sh, n, sh->ht, h) + norm_ms(sh) +
		     dropadd_ms(sh);
	else if (sh->has_attn)
		f += core + gemm_ms(sh, n, sh->ht, h) + dropadd_ms(sh);
	if (sh->has_mlp)
		f += norm_ms(sh);
	sh->lora_site = ANALYTIC_LORA_FC1;
	if (!sh->has_mlp) {
		/* no MLP */
	} else if (sh->moe) {
		sh->mfk = sh->nk;
		mf = moe_ms(sh);
		sh->mf = mf;
		sh->mfk = sh->nk - sh->mfk;
		f += mf;
		pt->graph_fwd_kernels = sh->gnk;
	} else if (sh->swiglu) {
		f += gemm_norm_ms(sh, n, h, 2 * ft);
		f += act_ms(sh, n * ft);
	} else {
		f += gemm_norm_ms(sh, n, h, ft);
		f += act_ms(sh, n * ft);
	}
	/* A full recomputation that stops early (the runtime's
	 * rc_early_stop) ends once the last saved tensor is back: the MLP's
	 * last GEMM packs its input before it runs (nn.Linear), so it, the
	 * tensor-parallel reduction after it and the residual add do not
	 * run again; after a MoE layer's combine, which saves its experts'
	 * outputs, the add alone; with post-norms or dropout, which save
	 * the GEMM's output, nothing.  An autograd Function packs after
	 * its forward: torchao's Float8Linear run eagerly computes its GEMM
	 * again, which this does not price apart (compiled, the partitioner
	 * recomputes only what the backward reads: the same skip). */
	if (sh->has_mlp)
		f += spcopy_ms(sh, 0);
	sh->lora_site = ANALYTIC_LORA_FC2;
	last = sh->moe || !sh->has_mlp ? 0 : gemm_ms(sh, n, ft, h);
	add = sh->has_mlp ? dropadd_ms(sh) : 0;
	f += last + add;
	early = sh->early && !sh->post_norms && !sh->drop && sh->has_mlp;
	if (sh->post_norms && sh->has_mlp)
		f += norm_ms(sh);

	/* Backward, in reverse (the caller counts kernels from 0 at the
	 * block: those so far are the forward's). */
	pt->fwd_kernels = sh->nk;
	sh->ks_pass = KERNEL_PASS_BWD;
	if (sh->has_mlp)
		bw += mlp_bwd_ms(sh, &mb, &gb);
	/* the MLP's pre-norm and the attention's residual add */
	if (sh->has_mlp && sh->has_attn)
		bw += norm_bwd_ms(sh) + dropadd_bwd_ms(sh);
	else if (sh->has_mlp)
		bw += norm_bwd_ms(sh);
	else if (sh->has_attn)
		bw += dropadd_bwd_ms(sh);
	if (sh->has_attn && sh->post_norms)
		bw += norm_bwd_ms(sh);
	sh->lora_site = ANALYTIC_LORA_PROJ;
	if (sh->has_attn) {
		g2 = gemm_bwd_row_ms(sh, n, sh->ht, h);
		core_b = core_bwd_ms(sh);
		bw += g2 + core_b;
	}
	if (sh->has_attn && sh->rotary)
		bw += rope_ms(sh, rq, rk, 1);
	if (sh->has_attn && sh->qk_norm)
		bw += norm_x_ms(sh, qkn, 2 * n, 1);
	sh->lora_site = ANALYTIC_LORA_QKV;
	if (sh->has_attn && sh->mla)
		bw += mla_proj_bwd_ms(sh) + norm_bwd_ms(sh);
	else if (sh->has_attn)
		bw += gemm_bwd_ms(sh, n, h, sh->qt) + split_sum_ms(sh, 3) +
		      norm_bwd_ms(sh);
	if (sh->mamba)
		bw += mamba_bwd_ms(sh);
	sh->lora_site = 0;

	/* the router's backward on, the attention's after it */
	if (sh->moe)
		pt->graph_bwd_kernels = sh->nk - gb;
	/* a hybrid model's Mamba and attention layers: Transformer
	 * Engine's graphs (scope mamba, attn) replay the whole layer */
	if (sh->mamba || (sh->has_attn && !sh->has_mlp)) {
		pt->graph_fwd_kernels = pt->fwd_kernels;
		pt->graph_bwd_kernels = sh->nk - pt->fwd_kernels;
	}
	pt->fwd_ms = f;
	pt->bwd_ms = bw;
	/* Expert parallelism: the dispatch all-to-all sends each of the
	 * GPU's rows (its tokens, 1/t of them under sequence parallelism,
	 * times top-k) of h elements (LatentMoE: its latent width, the
	 * dispatcher's hidden_dim, token_dispatcher.py:1535 at d98e8a6)
	 * to the rank holding its expert; the
	 * combine brings them back (token_dispatcher.py:705, 864); the
	 * busiest rank receives imbalance x the balanced share.  Under
	 * tensor parallelism without expert parallelism the buffer is kept
	 * too: DeepSpeed-MoE gathers its dropped rows all the same
	 * (comm.c ep_tp_gather_ms()). */
	if (sh->moe && (sh->ep > 1 || sh->t > 1))
		pt->ep_a2a_bytes = sh->ntok /
				   (sh->sp && sh->etp == sh->t ? sh->t : 1) *
				   sh->eh * e * sh->imb;
	if (sh->moe && sh->ep > 1) {
		pt->ep_shared_fwd_ms = sh->shf;
		/* Megatron-Core's pre_dispatch_computation, what runs
		 * before the MoE layer's dispatch: the rest of the block */
		pt->ep_pre_fwd_ms = f - mf;
		pt->ep_pre_bwd_ms = bw - mb;
	}
	if (sh->c > 1) {
		/* the ring moves each rank's K and V (MLA: the heads' keys
		 * and values after the up-projection) */
		pt->cp_kv_bytes = sh->mla ? n * sh->at * (sh->dqk + sh->dv) * e
					  : 2 * n * sh->kva * sh->dh * e;
		pt->attn_fwd_ms = core;
		pt->attn_bwd_ms = core_b;
	}
	/* torchtitan's per-op policy saves the reduce-scatters' outputs,
	 * not the all-gathers' (all_gather_into_tensor is on no save
	 * list): the recomputation gathers again; qwen3's (no
	 * all_to_all_single on its list) dispatches and combines again
	 * (op_sac()) */
	pt->sel_rerun = 0;
	if ((sh->rcm & ANALYTIC_RC_OP) && sh->sp && sh->t > 1)
		pt->sel_rerun |= PROF_RERUN_TP_GATHER;
	if ((sh->rcm & ANALYTIC_RC_OP) && sh->moe && sh->ep > 1 &&
	    !op_sac_keeps_a2a(sh))
		pt->sel_rerun |= PROF_RERUN_EP_A2A;
	if ((sh->rcm & ANALYTIC_RC_MOE) && sh->moe && sh->ep > 1)
		pt->sel_rerun |= PROF_RERUN_EP_A2A;
	if (early && !sh->moe && sh->t > 1)
		pt->sel_rerun |= sh->sp ? PROF_RERUN_EARLY_RS
					: PROF_RERUN_EARLY_AR;
	pt->recomp_ms[PROF_RC_NONE] = 0;
	pt->recomp_ms[PROF_RC_FULL] = f - (early ? last + add : 0);
	pt->out_bytes = (int64_t)(n * h * e);
	pt->stash_bytes[PROF_RC_NONE] = (int64_t)block_stash(sh);
	{
		double nk = sh->nk, saved = 0;

		/* its kernels run in backward: not the forward's count */
		pt->recomp_ms[PROF_RC_SELECTIVE] = selective(sh, f, core, &saved);
		sh->nk = nk;
		pt->stash_bytes[PROF_RC_SELECTIVE] =
			(int64_t)(block_stash(sh) - saved);
	}
	pt->stash_bytes[PROF_RC_FULL] =
		(int64_t)(n * h * e / (sh->sp ? sh->t : 1));
	/* Largest transient: the gradient of the MLP's inner activation(s)
	 * or, unfused, dP and dS of the s x s scores side by side. */
	bas = sh->b * sh->at * sh->sq * sh->s;
	pt->work_bytes = (int64_t)fmax(
		sh->mamba     ? n * sh->min * e
		: sh->has_mlp ? (sh->swiglu ? 2 : 1) * n * ft * e
			      : 0,
		sh->flash || !sh->has_attn ? 0 : 2 * bas * e);
	if (sh->moe)
		pt->work_bytes = (int64_t)fmax(
			fmax((sh->swiglu ? 2 : 1) * held_rows(sh) * sh->fe * e,
			     2 * held_rows(sh) * sh->eh * e),
			sh->flash ? 0 : 2 * bas * e);
	/* dense dispatch: the gate's fp32 one-hot of the slots and the
	 * fp32 weights over it, [n, E C] each, and the boolean mask
	 * (sharded_moe.py:440-444) before their 16-bit copies */
	if (sh->moe && sh->dd)
		pt->work_bytes = (int64_t)fmax(
			(double)pt->work_bytes,
			9 * n * sh->ntok * sh->imb *
				(sh->etp < sh->t ? sh->t : 1));
	/* ... or the block's input gradient over the whole sequence, n x h
	 * 16-bit: the tensor-parallel all-reduce's buffer, or under
	 * sequence parallelism the reduce-scatter's input; where DTensor
	 * concatenates it first (sp_copy) its copy beside it */
	pt->work_bytes = (int64_t)fmax((double)pt->work_bytes,
				       (sh->spcopy ? 2 : 1) * n * h * e);
	if (sh->v2)
		pt->fwd_flops = block_flops_v2(sh);
	else
		pt->fwd_flops = 2 * n * h * sh->qt + 4 * n * sh->s * sh->ht +
				2 * n * sh->ht * h + mats * 2 * n * h * ft;
}

/*
 * A layer outside the transformer blocks under every recomputation: what
 * the runtimes run when they recompute ("full") is the blocks alone, each
 * layer of model.layers checkpointed at its input, while the embedding,
 * the final norm, the output layer and the loss run as without
 * recomputation and keep their activations:
 *  - Megatron-Core: --recompute-granularity full calls checkpointed_
 *    forward() on the TransformerBlock's layers (megatron/core/transformer/
 *    transformer_block.py:662-676 at d98e8a6), which wraps self.layers[i]
 *    alone (megatron/core/recompute.py:74-77, 157-181); the final
 *    layernorm runs after it (transformer_block.py:755-756), the embedding
 *    before and the output layer and loss after the decoder
 *    (models/gpt/gpt_model.py:354, 628, 807, 839);
 *  - torchtitan: apply_ac wraps each block of model.layers
 *    (torchtitan/distributed/activation_checkpoint.py:238-247 at v0.2.2);
 *  - PipeDream-2BW (msr-fiddle/pipedream, branch pipedream_2bw at
 *    d6e2538, Megatron's fork): ParallelTransformer._checkpointed_forward
 *    checkpoints self.layers, the final layernorm after it
 *    (megatron/megatron/model/transformer.py:542-563, 586-609);
 *  - DeepSpeed: Megatron-DeepSpeed's GPTModelPipe checkpoints its
 *    ParallelTransformerLayerPipe layers alone, any PipelineModule the
 *    classes in checkpointable_layers (deepspeed/runtime/pipe/module.py:
 *    648-667 at 38327e0), which --emit deepspeed's recipe names.
 * So full's figures are none's: nothing recomputed, everything stashed.
 */
static void
rc_outside_blocks(struct prof_point *pt, double stash)
{
	int r;

	for (r = 0; r < PROF_RC_N; r++) {
		pt->recomp_ms[r] = 0;
		pt->stash_bytes[r] = (int64_t)stash;
	}
}

/*
 * Embedding: token lookup (vocabulary-parallel under t), learned positions
 * added, BERT's token types and LayerNorm, dropout.  Backward scatter-adds
 * into a dense V/t x h gradient (PyTorch's embedding backward: zero it,
 * index-add, then accumulate into the fp32 main gradient: 2e + 8 bytes per
 * weight) and reduces the position gradient over the batch.  It keeps the
 * token ids (int64) and, with dropout, the mask: under sequence
 * parallelism the dropout runs on the rank's 1/t of the tokens, after
 * the scatter to the sequence-parallel region (Megatron-Core
 * models/common/embeddings/language_model_embedding.py:143-156 at
 * d98e8a6; Megatron-LM's language_model.py alike since sequence
 * parallelism came, Korthikanti et al. 2022).
 */
static void
embed_point(struct shape *sh, struct prof_point *pt)
{
	double n = sh->n, h = sh->h, e = sh->e, nh = n * h;
	double nd = sh->sp && sh->t > 1 ? nh / sh->t : nh;
	double f, bw = 0, st = 8 * n;
	/* frozen (LoRA): nothing before it needs a gradient, and autograd
	 * runs none of its backward */
	int back = !sh->frozen;

	sh->ks_pass = KERNEL_PASS_FWD;
	f = op_ms(sh, OP_VEC, 0, 8 * n + 2 * nh * e);
	if (sh->learned) {
		f += op_named(sh, "positions", OP_VEC, nh,
			      (2 * nh + sh->sq * h) * e);
		sh->ks_pass = KERNEL_PASS_BWD;
		if (back)
			bw += op_named(sh, "positions", OP_VEC, nh,
				       nh * e + 4 * sh->sq * h);
	}
	if (sh->bert) {
		sh->ks_pass = KERNEL_PASS_FWD;
		f += op_named(sh, "token types", OP_VEC, nh, 2 * nh * e) +
		     norm_ms(sh);
		sh->ks_pass = KERNEL_PASS_BWD;
		if (back)
			bw += op_named(sh, "token types", OP_VEC, nh,
				       nh * e) +
			      norm_bwd_ms(sh);
		st += nh * e + n * sh->statb;
	}
	if (sh->drop) {
		sh->ks_pass = KERNEL_PASS_FWD;
		f += op_named(sh, "dropout", OP_VEC, 2 * nd, nd * (2 * e + 1));
		sh->ks_pass = KERNEL_PASS_BWD;
		if (back)
			bw += op_named(sh, "dropout", OP_VEC, nd,
				       nd * (2 * e + 1));
		st += nd;
	}
	sh->ks_pass = KERNEL_PASS_BWD;
	if (back) {
		bw += op_ms(sh, OP_VEC, nh, 8 * n + nh * e + 8 * nh);
		bw += op_ms(sh, OP_VEC, sh->vt * h,
			    sh->vt * h * (2 * e + 8));
	}

	pt->fwd_ms = f;
	pt->bwd_ms = bw;
	/* no runtime checkpoints it (rc_outside_blocks()) */
	rc_outside_blocks(pt, st);
	pt->out_bytes = (int64_t)(nh * e);
	pt->work_bytes = (int64_t)(nh * e);
	pt->fwd_flops = 0;
}

/*
 * Head: final norm (BERT: the masked-LM transform, dense + GELU + norm),
 * the output projection to V/t logits, cross-entropy.  The GEMM writes
 * 16-bit logits; the loss upcasts them and keeps the fp32 softmax for
 * backward (Megatron's vocabulary-parallel cross-entropy, PyTorch's
 * cross_entropy on logits.float()), so the stash holds n V/t x 4 bytes and
 * the 16-bit logits (and in backward their gradient) are the transient;
 * a fused PyTorch loss keeps the 16-bit logits instead.
 * Its output is the per-token fp32 loss.
 */
static void
head_point(struct shape *sh, struct prof_point *pt)
{
	double n = sh->n, h = sh->h, e = sh->e, vt = sh->vt, nh = n * h;
	double f = 0, bw = 0, st = 0, flops = 0;

	if (sh->bert) {
		sh->ks_pass = KERNEL_PASS_FWD;
		f += gemm_ms(sh, n, h, h) +
		     act_ms(sh, nh);
		sh->ks_pass = KERNEL_PASS_BWD;
		bw += gemm_bwd_ms(sh, n, h, h) +
		      act_bwd_ms(sh, nh);
		st += 2 * nh * e;
		flops += 2 * nh * h;
	}
	/* the output layer in MXFP8 (Megatron-Core's fp8_output_proj:
	 * TELMHeadColumnParallelLinear, a TELinear run under the FP8
	 * context, megatron/core/extensions/transformer_engine.py:
	 * 1893-1897, in place of the 16-bit ColumnParallelLinear,
	 * models/gpt/gpt_model.py:272-276 at d98e8a6; only under the
	 * mxfp8 recipe, fp8_utils.py:730-746): its three GEMMs at the
	 * MXFP8 rate, its input and the logits' gradient quantised; the
	 * MTP modules compute their logits with the same layer
	 * (gpt_model.py:750, 767) */
	sh->ks_pass = KERNEL_PASS_FWD;
	f += norm_ms(sh);
	sh->fp8 = sh->fp8head;
	f += gemm_ms(sh, n, h, vt);
	sh->fp8 = 0;
	if (sh->logit_cap) {
		/* tanh soft-capping of the logits (Gemma 2) */
		f += op_named(sh, "logit soft-cap", OP_VEC, 3 * n * vt,
			      2 * n * vt * e);
		sh->ks_pass = KERNEL_PASS_BWD;
		bw += op_named(sh, "logit soft-cap", OP_VEC, 3 * n * vt,
			       3 * n * vt * e);
		sh->ks_pass = KERNEL_PASS_FWD;
		st += n * vt * e;
	}
	if (fused(sh, ANALYTIC_FUSE_XENT)) {
		f += op_ms(sh, OP_VEC, 5 * n * vt, n * vt * (e + 4) + 8 * n);
		sh->ks_pass = KERNEL_PASS_BWD;
		bw += op_ms(sh, OP_VEC, n * vt, n * vt * (4 + e) + 8 * n);
	} else {
		/* upcast; max; subtract; exp; sum; divide.  Backward: the
		 * target's entry, the multiply, the downcast. */
		f += op_ms(sh, OP_VEC, n * vt, n * vt * (e + 4)) +
		     op_ms(sh, OP_VEC, n * vt, 4 * n * vt) +
		     passes_ms(sh, 2, 2 * n * vt, 16 * n * vt) +
		     op_ms(sh, OP_VEC, n * vt, 4 * n * vt) +
		     op_ms(sh, OP_VEC, n * vt, 8 * n * vt + 8 * n);
		sh->ks_pass = KERNEL_PASS_BWD;
		bw += op_ms(sh, OP_VEC, n, 16 * n) +
		      op_ms(sh, OP_VEC, n * vt, 8 * n * vt) +
		      op_ms(sh, OP_VEC, 0, n * vt * (4 + e));
	}
	sh->fp8 = sh->fp8head;
	bw += gemm_bwd_ms(sh, n, h, vt);
	sh->fp8 = 0;
	bw += norm_bwd_ms(sh);
	st += nh * e + n * sh->statb + norm_x_stash(sh, nh) + nh * e;
	/* a PyTorch loss that is fused (Inductor's compiled cross_entropy,
	 * flash-attn's CrossEntropyLoss) keeps the 16-bit logits and each
	 * row's log-sum-exp, and computes the softmax again in backward */
	st += sh->xcopy && fused(sh, ANALYTIC_FUSE_XENT) ? n * vt * e + 4 * n
							 : 4 * n * vt;
	flops += 2 * nh * vt;

	pt->fwd_ms = f;
	pt->bwd_ms = bw;
	/* the final norm, the output layer and the loss run outside the
	 * checkpointed blocks (rc_outside_blocks()) */
	rc_outside_blocks(pt, st);
	pt->out_bytes = (int64_t)(4 * n);
	/* the 16-bit logits' gradient; PyTorch's cross_entropy first
	 * writes nll_loss's dense fp32 gradient and log_softmax's from it
	 * beside its saved output (the runtime's xent_copy).  DTensor's
	 * loss parallel (xent_copy 2, the logits sharded over the
	 * vocabulary) computes both backwards in one decomposed expression
	 * (_nll_loss_and_log_softmax_backward): the zeros of the target's
	 * gradient, exp of the saved output, their sum and its product
	 * with the loss's gradient, three of them alive at once beside the
	 * output (torch/distributed/tensor/parallel/loss.py at 02eef6b8b) */
	pt->work_bytes =
		(int64_t)(sh->xcopy && !fused(sh, ANALYTIC_FUSE_XENT)
				  ? (sh->xcopy == 2 && sh->t > 1 ? 12 : 8) * n * vt
				  : n * vt * e);
	pt->fwd_flops = flops;
}

static int64_t
norm_params(const struct model *m)
{
	return m->norm == MODEL_RMSNORM ? m->hidden : 2 * m->hidden;
}

static int
check_inputs(const struct model *m, const struct gpu_spec *g, const int *mb,
	     int nmb, int tp, int etp)
{
	int64_t kv = m->kv_heads > 0 ? m->kv_heads : m->heads;
	int i;

	if (m->layers < 1 || m->hidden < 1 || m->heads < 1 ||
	    m->ffn_hidden < 1 || m->seq_len < 1 || m->vocab < 1)
		return pd2bw_error("model '%s': sizes must be positive",
				   m->name ? m->name : "");
	if (m->doc_len < 0 || m->doc_len > m->seq_len)
		return pd2bw_error("model '%s': documents of %lld tokens do "
				   "not fit its sequences of %lld",
				   m->name ? m->name : "",
				   (long long)m->doc_len,
				   (long long)m->seq_len);
	if (!m->head_dim && m->attention == MODEL_MHA &&
	    m->hidden % m->heads)
		return pd2bw_error("model '%s': heads (%lld) do not divide "
				   "hidden (%lld)", m->name ? m->name : "",
				   (long long)m->heads,
				   (long long)m->hidden);
	if (m->moe.experts &&
	    (m->moe.expert_ffn % etp || m->moe.shared_ffn % tp))
		return pd2bw_error("tensor-parallel degree %d does not divide "
				   "the expert sizes (%lld, %lld) of '%s'",
				   tp, (long long)m->moe.expert_ffn,
				   (long long)m->moe.shared_ffn,
				   m->name ? m->name : "");
	if (g->tflops16 <= 0 || g->tflops32 <= 0 || g->mem_gb_s <= 0 ||
	    g->gemm_eff <= 0 || g->attn_eff <= 0 || g->mem_eff <= 0 ||
	    g->kernel_us < 0)
		return pd2bw_error("GPU '%s': rates and efficiencies must be "
				   "positive", g->name);
	if (m->precision == MODEL_FP8 && g->tflops8 <= 0)
		return pd2bw_error("GPU '%s' has no FP8 tensor cores (model "
				   "'%s' trains in fp8)", g->name,
				   m->name ? m->name : "");
	if (m->precision == MODEL_NVFP4 && g->tflops4 <= 0)
		return pd2bw_error("GPU '%s' has no NVFP4 tensor cores (model "
				   "'%s' trains in nvfp4; Blackwell has them)",
				   g->name, m->name ? m->name : "");
	if (tp < 1)
		return pd2bw_error("tensor-parallel degree %d must be "
				   "positive", tp);
	if (m->heads % tp || m->ffn_hidden % tp ||
	    (kv % tp && tp % kv))
		return pd2bw_error("tensor-parallel degree %d does not divide "
				   "the heads (%lld), KV heads (%lld) and "
				   "ffn_hidden (%lld) of '%s'", tp,
				   (long long)m->heads, (long long)kv,
				   (long long)m->ffn_hidden,
				   m->name ? m->name : "");
	if (m->mamba.heads &&
	    (m->mamba.heads % tp || m->mamba.groups % tp))
		return pd2bw_error("tensor-parallel degree %d does not divide "
				   "the Mamba heads (%lld) and groups (%lld) "
				   "of '%s'", tp, (long long)m->mamba.heads,
				   (long long)m->mamba.groups,
				   m->name ? m->name : "");
	if (nmb < 1)
		return pd2bw_error("no microbatch sizes");
	for (i = 0; i < nmb; i++)
		if (mb[i] < 1 || (i && mb[i] <= mb[i - 1]))
			return pd2bw_error("microbatch sizes must be positive "
					   "and increasing");
	return 0;
}

int
analytic_profile(struct profile *p, const struct model *m,
		 const struct gpu_spec *g, const int *mb, int nmb, int tp)
{
	return analytic_profile_sp(p, m, g, mb, nmb, tp, 0);
}

static int build(struct profile *p, const struct model *m,
		 const struct gpu_spec *g, const int *mb, int nmb,
		 const struct analytic_par *par,
		 const struct analytic_opts *o,
		 double (*cls)[ANALYTIC_NCLASS], struct kernel_list *ks);

/* analytic.h */
void
analytic_par_init(struct analytic_par *par, int tp, int sp)
{
	memset(par, 0, sizeof(*par));
	par->tp = tp;
	par->sp = sp;
	par->cp = par->ep = 1;
	par->etp = tp;
	par->imbalance = 1;
}

int
analytic_profile_sp(struct profile *p, const struct model *m,
		    const struct gpu_spec *g, const int *mb, int nmb, int tp,
		    int sp)
{
	struct analytic_par par;

	analytic_par_init(&par, tp, sp);
	return build(p, m, g, mb, nmb, &par, NULL, NULL, NULL);
}

void
analytic_opts_init(struct analytic_opts *o)
{
	o->fusions = ANALYTIC_FUSE_ALL;
	o->fp8_casts = ANALYTIC_CASTS_TE;
	o->xent_copy = 0;
	o->clamp_eager = 1;
	o->rc_early_stop = 0;
	o->paged_stash = 0;
	o->lora_rank = 0;
	o->tp_dgrad = 0;
	o->cp_f32 = 0;
	o->repeat_kv = 0;
	o->split_proj = 0;
	o->sp_copy = 0;
	o->tp_ub = 0;
	o->moe_graphs = 0;
	o->fp8_head = 0;
	o->vocab_pad = MODEL_MEGATRON_VOCAB_PAD;
	o->capacity_factor = 0;
	o->min_capacity = 0;
	o->dropless = 0;
	o->dense_dispatch = 0;
	o->fp8_recipe = FP8_DELAYED;
	o->bf16_first = o->bf16_last = 0;
	memset(o->site_prec, 0, sizeof(o->site_prec));
	o->attn = ANALYTIC_ATTN_NATIVE;
	o->rc_modules = ANALYTIC_RC_CORE_ATTN;
}

/* analytic.h */
double
analytic_lora_share(const struct model *m, int r, unsigned targets)
{
	double h = (double)m->hidden, d = (double)model_head_dim(m);
	double q = (double)m->heads * d;
	double kv = (double)(m->kv_heads > 0 ? m->kv_heads : m->heads) * d;
	double f = (double)m->ffn_hidden;
	double up = m->activation == MODEL_SWIGLU ||
				    m->activation == MODEL_GEGLU
			    ? 2 * f
			    : f;
	double a;

	if (r <= 0)
		return 0;
	/* QKV h -> q + 2 kv, the projection q -> h, the MLP's h -> up and
	 * f -> h: r (in + out) each */
	if (!targets)
		targets = ANALYTIC_LORA_ALL;
	a = (double)r * ((targets & ANALYTIC_LORA_QKV ? h + q + 2 * kv : 0) +
			 (targets & ANALYTIC_LORA_PROJ ? q + h : 0) +
			 (targets & ANALYTIC_LORA_FC1 ? h + up : 0) +
			 (targets & ANALYTIC_LORA_FC2 ? f + h : 0));
	return a * m->layers / (double)model_params(m);
}

int
analytic_profile_opts(struct profile *p, const struct model *m,
		      const struct gpu_spec *g, const int *mb, int nmb,
		      int tp, int sp, const struct analytic_opts *o)
{
	struct analytic_par par;

	analytic_par_init(&par, tp, sp);
	return analytic_profile_par(p, m, g, mb, nmb, &par, o);
}

const char *const analytic_attn_names[] = {"native", "fa2", "triton",
					   "fp8", NULL};

const char *const analytic_site_names[] = {
	"qkv", "proj", "fc1", "fc2", "experts", "shared-experts", "latent",
	"mamba-in", "mamba-out", "mtp", NULL,
};

/* A site's precision by name: bf16, an FP8 recipe, nvfp4; 0 unknown.
 * Delayed scaling is outside a per-module config (transformer_engine.py
 * TEQuantizationRecipe.parse_from_config, 190-191 at d98e8a6), and so
 * are torchao's rowwise recipes (Megatron-Core has none). */
static int
site_prec_named(const char *s, size_t n)
{
	static const struct {
		const char *name;
		int mp;
	} names[] = {
		{"bf16", ANALYTIC_MP_16},
		{"tensorwise", ANALYTIC_MP_FP8 + FP8_TENSORWISE},
		{"blockwise", ANALYTIC_MP_FP8 + FP8_BLOCKWISE},
		{"mxfp8", ANALYTIC_MP_FP8 + FP8_MXFP8},
		{"nvfp4", ANALYTIC_MP_NVFP4},
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == n && !strncmp(s, names[i].name, n))
			return names[i].mp;
	return 0;
}

static const char *
site_prec_name(int mp)
{
	switch (mp) {
	case ANALYTIC_MP_16:
		return "bf16";
	case ANALYTIC_MP_NVFP4:
		return "nvfp4";
	case ANALYTIC_MP_FP8 + FP8_TENSORWISE:
		return "tensorwise";
	case ANALYTIC_MP_FP8 + FP8_BLOCKWISE:
		return "blockwise";
	case ANALYTIC_MP_FP8 + FP8_MXFP8:
		return "mxfp8";
	default:
		return NULL;
	}
}

/* analytic.h */
int
analytic_site_prec_parse(const char *spec, unsigned char *out, char *err,
			 size_t n)
{
	const char *p = spec;

	memset(out, 0, ANALYTIC_SITES);
	if (!*p) {
		snprintf(err, n, "empty list: give SITE=PRECISION,...");
		return -1;
	}
	while (*p) {
		const char *end = strchr(p, ','), *eq;
		size_t len = end ? (size_t)(end - p) : strlen(p);
		int site, mp;

		eq = memchr(p, '=', len);
		if (!eq) {
			snprintf(err, n, "'%.*s': give SITE=PRECISION",
				 (int)(len > 40 ? 40 : len), p);
			return -1;
		}
		for (site = 0; analytic_site_names[site]; site++)
			if (strlen(analytic_site_names[site]) ==
				    (size_t)(eq - p) &&
			    !strncmp(p, analytic_site_names[site],
				     (size_t)(eq - p)))
				break;
		if (!analytic_site_names[site]) {
			snprintf(err, n,
				 "'%.*s': unknown site (qkv, proj, fc1, fc2, "
				 "experts, shared-experts, latent, mamba-in, "
				 "mamba-out, mtp)",
				 (int)(eq - p > 40 ? 40 : eq - p), p);
			return -1;
		}
		mp = site_prec_named(eq + 1, len - (size_t)(eq + 1 - p));
		if (!mp) {
			snprintf(err, n,
				 "'%.*s': unknown precision (bf16, tensorwise, "
				 "blockwise, mxfp8, nvfp4; delayed scaling is "
				 "not set module by module)",
				 (int)(len > 40 ? 40 : len), p);
			return -1;
		}
		if (out[site]) {
			snprintf(err, n, "site %s given twice",
				 analytic_site_names[site]);
			return -1;
		}
		out[site] = (unsigned char)mp;
		p += len;
		if (*p == ',' && !*++p) {
			snprintf(err, n, "a trailing ','");
			return -1;
		}
	}
	return 0;
}

/* analytic.h */
void
analytic_site_prec_format(const unsigned char *site_prec, char *buf,
			  size_t n)
{
	size_t len = 0;
	int i;

	if (n)
		buf[0] = 0;
	for (i = 0; i < ANALYTIC_SITES; i++) {
		const char *name = site_prec_name(site_prec[i]);

		if (!name)
			continue;
		len += (size_t)snprintf(buf + len, len < n ? n - len : 0,
					"%s%s=%s", len ? "," : "",
					analytic_site_names[i], name);
	}
}

/* analytic.h */
int
analytic_site_prec_any(const unsigned char *site_prec)
{
	int i;

	for (i = 0; i < ANALYTIC_SITES; i++)
		if (site_prec[i])
			return 1;
	return 0;
}

double
analytic_attn_eff(const struct gpu_spec *g, int attn)
{
	double fa2 = g->attn_eff_fa2 > 0 ? g->attn_eff_fa2 : g->attn_eff;

	switch (attn) {
	case ANALYTIC_ATTN_FA2:
		return fa2;
	case ANALYTIC_ATTN_TRITON:
		return fa2 / ANALYTIC_TRITON_SLOWDOWN;
	default:
		return g->attn_eff;
	}
}

const char *const analytic_fusion_names[] = {"act",  "dropadd", "rope",
					     "xent", "norm",    NULL};

int
analytic_fusions_parse(const char *s, unsigned *out)
{
	unsigned f = 0;
	int i;

	if (!strcmp(s, "all") || !strcmp(s, "none")) {
		*out = *s == 'a' ? ANALYTIC_FUSE_ALL : 0;
		return 0;
	}
	while (*s) {
		size_t n = strcspn(s, ",");

		i = pd2bw_name_index(analytic_fusion_names, s, n);
		if (i < 0)
			return pd2bw_error("unknown fusion '%.*s' (valid: act, "
					   "dropadd, rope, xent, norm, all, "
					   "none)",
					   (int)n, s);
		f |= 1u << i;
		s += n;
		if (*s == ',' && !*++s)
			return pd2bw_error("empty fusion name after ','");
	}
	*out = f;
	return 0;
}

const char *const analytic_rc_module_names[] = {
	"core_attn", "mla_up_proj", "moe_act", "layernorm", "mlp", "op", "moe",
	NULL,
};

int
analytic_rc_modules_parse(const char *s, unsigned *out)
{
	unsigned f = 0;
	int i;

	if (!*s)
		return pd2bw_error("empty recompute module list");
	while (*s) {
		size_t n = strcspn(s, ",");

		i = pd2bw_name_index(analytic_rc_module_names, s, n);
		if (i < 0)
			return pd2bw_error("unknown recompute module '%.*s' "
					   "(valid: core_attn, mla_up_proj, "
					   "moe_act, layernorm, mlp, op, moe)",
					   (int)n, s);
		f |= 1u << i;
		s += n;
		if (*s == ',' && !*++s)
			return pd2bw_error("empty recompute module name "
					   "after ','");
	}
	if ((f & ANALYTIC_RC_OP) && f != ANALYTIC_RC_OP)
		return pd2bw_error("recompute module op (torchtitan's per-op "
				   "policy) covers the whole block: give it "
				   "alone");
	*out = f;
	return 0;
}

void
analytic_rc_modules_format(unsigned m, char *buf, size_t n)
{
	pd2bw_names_join(analytic_rc_module_names, m, ",", buf, n);
}

const char *const analytic_lora_target_names[] = {"qkv", "proj", "fc1",
						  "fc2", NULL};

int
analytic_lora_targets_parse(const char *s, unsigned *out)
{
	unsigned f = 0;
	int i;

	while (*s) {
		size_t n = strcspn(s, ",");

		i = pd2bw_name_index(analytic_lora_target_names, s, n);
		if (i < 0)
			return pd2bw_error("unknown LoRA target '%.*s' (valid: "
					   "qkv, proj, fc1, fc2)",
					   (int)n, s);
		f |= 1u << i;
		s += n;
		if (*s == ',' && !*++s)
			return pd2bw_error("empty LoRA target after ','");
	}
	if (!f)
		return pd2bw_error("empty LoRA target list");
	*out = f;
	return 0;
}

void
analytic_lora_targets_format(unsigned m, char *buf, size_t n)
{
	pd2bw_names_join(analytic_lora_target_names, m, ",", buf, n);
}

void
analytic_fusions_format(unsigned f, char *buf, size_t n)
{
	if ((f & ANALYTIC_FUSE_ALL) == ANALYTIC_FUSE_ALL || !(f & ANALYTIC_FUSE_ALL)) {
		snprintf(buf, n, "%s", f ? "all" : "none");
		return;
	}
	pd2bw_names_join(analytic_fusion_names, f, ",", buf, n);
}

int
analytic_ep_check(const struct model *m, int ep, char *why, size_t n)
{
	if (ep < 1) {
		snprintf(why, n, "expert-parallel degree %d must be positive",
			 ep);
		return -1;
	}
	if (ep == 1)
		return 0;
	if (!m->moe.experts) {
		snprintf(why, n, "expert parallelism %d needs a mixture of "
			 "experts; '%s' is dense", ep, m->name ? m->name : "");
		return -1;
	}
	if (m->moe.experts % ep) {
		snprintf(why, n, "expert-parallel degree %d does not divide "
			 "the %lld experts of '%s'", ep,
			 (long long)m->moe.experts, m->name ? m->name : "");
		return -1;
	}
	return 0;
}

int
analytic_cp_check(const struct model *m, int cp, char *why, size_t n)
{
	int64_t chunks = m->causal ? 2 * (int64_t)cp : cp;
	int i;

	if (cp < 1) {
		snprintf(why, n, "context-parallel degree %d must be positive",
			 cp);
		return -1;
	}
	if (cp == 1)
		return 0;
	if (model_is_hybrid(m)) {
		snprintf(why, n, "context parallelism %d of a hybrid (Mamba) "
			 "model is not priced", cp);
		return -1;
	}
	if (m->seq_len % chunks) {
		snprintf(why, n, "context-parallel degree %d does not divide "
			 "the sequence: %lld tokens are not %lld equal "
			 "chunks%s", cp, (long long)m->seq_len,
			 (long long)chunks,
			 m->causal ? " (2 per rank, causal load balancing)"
				   : "");
		return -1;
	}
	if (!m->flash_attention) {
		snprintf(why, n, "context parallelism %d needs fused attention "
			 "(Transformer Engine's); the model has it off", cp);
		return -1;
	}
	for (i = 0; i < m->layers; i++)
		if (model_layer_span(m, i) < m->seq_len) {
			snprintf(why, n, "context parallelism %d: Transformer "
				 "Engine's K/V ring has no sliding-window "
				 "attention (layer %d)", cp, i);
			return -1;
		}
	return 0;
}

int
analytic_profile_par(struct profile *p, const struct model *m,
		     const struct gpu_spec *g, const int *mb, int nmb,
		     const struct analytic_par *par,
		     const struct analytic_opts *o)
{
	return analytic_profile_kernels(p, m, g, mb, nmb, par, o, NULL);
}

/* What a sequence-parallel all-gather feeding site's linear moves over
 * its 16-bit bytes, at the model's precision or --module-precision's for
 * the site: qb over e, times 1.5 where Transformer Engine gathers both
 * copies (MXFP8, blockwise, NVFP4; build() says why). */
static double
gather_share(const struct shape *sh, int site)
{
	int mp = sh->site_prec ? sh->site_prec[site] : 0;
	int fp4 = mp ? mp == ANALYTIC_MP_NVFP4 : sh->fp4;
	int r = mp >= ANALYTIC_MP_FP8 ? mp - ANALYTIC_MP_FP8 : sh->fp8r;
	double qb = !mp ? sh->qb
			: model_prec_quant_bytes(fp4 ? MODEL_NVFP4 : MODEL_FP8);

	if (mp == ANALYTIC_MP_16)
		return 1;
	return (sh->casts == ANALYTIC_CASTS_TE &&
				(fp4 || r == FP8_MXFP8 || r == FP8_BLOCKWISE)
			? 1.5
			: 1) *
	       qb / sh->e;
}

/* The kinds of linear (1 << enum analytic_site) m has: attention's, a
 * dense MLP's, the routed and shared experts', LatentMoE's, a Mamba
 * mixer's, and the MTP modules'. */
static unsigned
site_kinds(const struct model *m)
{
	unsigned has = 0;
	int i;

	for (i = 0; i < m->layers; i++) {
		int k = model_layer_kind(m, i);

		if (k == MODEL_LAYER_MAMBA)
			has |= 1u << ANALYTIC_SITE_MAMBA_IN |
			       1u << ANALYTIC_SITE_MAMBA_OUT;
		if (k == 'B' || k == MODEL_LAYER_ATTN)
			has |= 1u << ANALYTIC_SITE_QKV |
			       1u << ANALYTIC_SITE_PROJ;
		if ((k == 'B' || k == MODEL_LAYER_MLP ||
		     k == MODEL_LAYER_MOE) &&
		    !model_layer_is_moe(m, i))
			has |= 1u << ANALYTIC_SITE_FC1 |
			       1u << ANALYTIC_SITE_FC2;
		if (model_layer_is_moe(m, i)) {
			has |= 1u << ANALYTIC_SITE_EXPERTS;
			if (m->moe.shared_experts > 0)
				has |= 1u << ANALYTIC_SITE_SHARED;
			if (m->moe.latent > 0)
				has |= 1u << ANALYTIC_SITE_LATENT;
		}
	}
	if (m->mtp_layers > 0)
		has |= 1u << ANALYTIC_SITE_MTP;
	return has;
}

/* analytic.h */
int
analytic_profile_kernels(struct profile *p, const struct model *m,
			 const struct gpu_spec *g, const int *mb, int nmb,
			 const struct analytic_par *par,
			 const struct analytic_opts *o,
			 struct kernel_list *ks)
{
	char why[256];

	if (o && m->precision == MODEL_FP8 && o->fp8_recipe == FP8_MXFP8 &&
	    g && !g->mxfp8)
		return pd2bw_error("GPU '%s' has no MXFP8 tensor cores "
				   "(Blackwell); choose --fp8-recipe delayed, "
				   "tensorwise or blockwise", g->name);
	/* --module-precision overrides what a quantised model quantises
	 * (TransformerEngineMixedPrecision.md, "Design Goals"), at
	 * precisions the GPU runs */
	if (o && analytic_site_prec_any(o->site_prec)) {
		int i;

		if (!model_prec_quantised(m->precision))
			return pd2bw_error("--module-precision sets the "
					   "precision of an FP8 or NVFP4 "
					   "model's linear layers: give "
					   "--precision fp8 or nvfp4");
		unsigned has = site_kinds(m);

		for (i = 0; i < ANALYTIC_SITES; i++) {
			int mp = o->site_prec[i];

			if (mp && !(has & (1u << i)))
				return pd2bw_error("--module-precision %s: "
						   "model '%s' has no such "
						   "linear", analytic_site_names[i],
						   m->name ? m->name : "");
			if (g && mp >= ANALYTIC_MP_FP8 && g->tflops8 <= 0)
				return pd2bw_error("GPU '%s' has no FP8 "
						   "tensor cores (%s)", g->name,
						   analytic_site_names[i]);
			if (g && mp == ANALYTIC_MP_FP8 + FP8_MXFP8 &&
			    !g->mxfp8)
				return pd2bw_error("GPU '%s' has no MXFP8 "
						   "tensor cores (%s; "
						   "Blackwell)", g->name,
						   analytic_site_names[i]);
			if (g && mp == ANALYTIC_MP_NVFP4 && g->tflops4 <= 0)
				return pd2bw_error("GPU '%s' has no NVFP4 "
						   "tensor cores (%s; "
						   "Blackwell)", g->name,
						   analytic_site_names[i]);
		}
	}
	if (o && o->attn == ANALYTIC_ATTN_FP8 &&
	    (m->precision != MODEL_FP8 || !g || g->tflops8 <= 0))
		return pd2bw_error("FP8 attention needs an FP8 model (--precision "
				   "fp8) on a GPU with FP8 tensor cores");
	/* Megatron-Core refuses fp8_output_proj outside FP8 and the
	 * mxfp8 recipe (transformer_config.py:1569-1575 at d98e8a6) */
	if (o && o->fp8_head &&
	    (m->precision != MODEL_FP8 || o->fp8_recipe != FP8_MXFP8))
		return pd2bw_error("an FP8 output layer (fp8-output-proj) "
				   "needs an FP8 model (--precision fp8) "
				   "with --fp8-recipe mxfp8");
	if (analytic_cp_check(m, par->cp, why, sizeof(why)))
		return pd2bw_error("model '%s': %s", m->name ? m->name : "",
				   why);
	if (analytic_ep_check(m, par->ep, why, sizeof(why)))
		return pd2bw_error("%s", why);
	if (!(par->imbalance >= 1 && par->imbalance <= 64))
		return pd2bw_error("load imbalance %g must be between 1 and 64",
				   par->imbalance);
	if (!(par->rank_capacity == 0 ||
	      (par->rank_capacity >= 0.01 && par->rank_capacity <= 64)))
		return pd2bw_error("rank capacity %g must be between 0.01 and "
				   "64", par->rank_capacity);
	if (build(p, m, g, mb, nmb, par, o, NULL, ks))
		return -1;
	if (ks && ks->oom)
		return pd2bw_error("out of memory listing the kernels");
	return 0;
}


int
analytic_profile_classes(struct profile *p, const struct model *m,
			 const struct gpu_spec *g, const int *mb, int nmb,
			 int tp, double (*cls)[ANALYTIC_NCLASS])
{
	struct analytic_par par;

	analytic_par_init(&par, tp, 0);
	return build(p, m, g, mb, nmb, &par, NULL, cls, NULL);
}

/*
 * The per-layer parts of the shape: whether block i's MLP is a mixture of
 * experts, and the keys per query of its attention.  A fused kernel with
 * a window of w < s computes the w s - w^2 / 2 pairs of the causal band
 * (2 w s without the mask); unfused attention still forms the whole s x s
 * scores and masks them.  A packed sequence of documents of d tokens
 * (the model's doc_len: Megatron-LM's --dataloader-inter-document-masking,
 * Megatron-Bridge's packed SFT) runs attention within each document, the
 * fused kernel over the documents' boundaries (cu_seqlens, Transformer
 * Engine's thd layout), whose blocks of queries each belong to one
 * document: s / d sequences of d tokens to the kernel, w d - w^2 / 2
 * causal pairs each (w the window, at most d), or d min(2 w, d) without
 * the mask, each block's tiles as in a sequence of d (attn_tile_share()).
 */
static void
layer_shape(struct shape *sh, const struct model *m, int i)
{
	double w = (double)model_layer_span(m, i), s = sh->s, d = sh->doc;
	int kind = model_layer_kind(m, i);

	sh->moe = model_layer_is_moe(m, i);
	sh->has_attn = kind == 'B' || kind == MODEL_LAYER_ATTN;
	sh->has_mlp = kind == 'B' || kind == MODEL_LAYER_MLP ||
		      kind == MODEL_LAYER_MOE;
	sh->mamba = kind == MODEL_LAYER_MAMBA;
	sh->span = w;
	if (w > d)
		w = d;
	sh->afrac = sh->causal ? w / s * (1 - w / (2 * d))
			       : fmin(1, 2 * w / d) * d / s;
}

/* The profile name of a hybrid model's layer of kind k (NULL for a
 * transformer block); every name starts with "block" (tests/emit/
 * check.py counts blocks so). */
static const char *
hybrid_name(int k)
{
	switch (k) {
	case MODEL_LAYER_MAMBA:
		return "block_mamba";
	case MODEL_LAYER_ATTN:
		return "block_attention";
	case MODEL_LAYER_MLP:
		return "block_mlp";
	case MODEL_LAYER_MOE:
		return "block_experts";
	default:
		return NULL;
	}
}

/*
 * Whether block i of a quantised model runs in 16 bits: one of the first
 * bf16_first or the last bf16_last, counted over the model's layers
 * (Megatron-Core's is_first_last_bf16_layer, fp8_utils.py:709-726, and
 * get_fp4_context, fp4_utils.py:247-263 at d98e8a6: the layer number is
 * global, whatever the pipeline).
 */
static int
block_bf16(const struct model *m, const struct analytic_opts *o, int i)
{
	return o && model_prec_quantised(m->precision) &&
	       (i < o->bf16_first || i >= m->layers - o->bf16_last);
}

/* Two blocks priced alike. */
static int
same_block(const struct model *m, const struct analytic_opts *o, int i,
	   int j)
{
	return model_layer_kind(m, i) == model_layer_kind(m, j) &&
	       model_layer_is_moe(m, i) == model_layer_is_moe(m, j) &&
	       model_layer_span(m, i) == model_layer_span(m, j) &&
	       block_bf16(m, o, i) == block_bf16(m, o, j);
}

/*
 * Parameters of block i's routed experts held by one GPU: E / ep experts
 * split t ways (0 for a dense block).  Their gradients are reduced over
 * the expert-data-parallel ranks, not over all replicas.
 */
static int64_t
expert_params_tp(const struct model *m, const struct shape *sh, int i)
{
	int64_t h = model_expert_width(m), fe = (int64_t)sh->fe;
	int64_t E = (int64_t)sh->nel, n, mats = sh->swiglu ? 3 : 2;

	if (!model_layer_is_moe(m, i))
		return 0;
	n = E * mats * h * fe;
	if (m->bias)
		n += E * ((mats - 1) * fe + h);
	return n;
}

/* Parameters of block i held by one GPU at tensor-parallel degree tp. */
/* A Mamba-2 mixer's parameters on one GPU: everything split t ways
 * (heads, groups and d_inner), the output projection's bias whole. */
static int64_t
mamba_params_tp(const struct model *m, const struct shape *sh)
{
	int64_t h = m->hidden, in = (int64_t)sh->min, di = (int64_t)sh->mdi;
	int64_t conv = di + 2 * (int64_t)(sh->mg * sh->mN);
	int64_t n = h * in + conv * ((int64_t)sh->mconv + 1) +
		    3 * (int64_t)sh->mh + di + di * h;

	if (m->bias)
		n += in + h;
	return n;
}

/* Parameters of block i held by one GPU at tensor-parallel degree tp. */
static int64_t
block_params_tp(const struct model *m, const struct shape *sh, int i)
{
	int64_t h = m->hidden, q = (int64_t)sh->qt, ht = (int64_t)sh->ht;
	int64_t ft = (int64_t)sh->ft, mats = sh->swiglu ? 3 : 2;
	int64_t at = (int64_t)sh->at, n = 0;
	int kind = model_layer_kind(m, i);
	/* a transformer block, or a hybrid model's attention layer */
	int attn = kind == 'B' || kind == MODEL_LAYER_ATTN;

	if (kind == MODEL_LAYER_MAMBA)
		return norm_params(m) + mamba_params_tp(m, sh);
	if (attn && m->attention == MODEL_MLA) {
		const struct model_mla *a = &m->mla;
		int64_t qd = a->nope_dim + a->rope_dim;

		n = (a->q_rank ? h * a->q_rank + a->q_rank +
					 a->q_rank * at * qd
			       : h * at * qd) +
		    h * (a->kv_rank + a->rope_dim) + a->kv_rank +
		    a->kv_rank * at * (a->nope_dim + a->v_dim) + ht * h;
		if (m->bias)
			n += at * qd + a->kv_rank + a->rope_dim +
			     at * (a->nope_dim + a->v_dim) + h;
	} else if (attn) {
		n = h * q + ht * h;
		if (m->bias)
			n += q + h;
		else if (m->qkv_bias)
			n += q;
	}
	n += (kind != 'B' ? 1 : m->post_norms ? 4 : 2) * norm_params(m);
	if (m->qk_norm && attn)
		n += 2 * (m->attention == MODEL_MLA
				  ? m->mla.nope_dim + m->mla.rope_dim
				  : (int64_t)sh->dh);
	if (m->attn_sinks && attn)
		n += at;
	if (kind == MODEL_LAYER_ATTN)
		return n;
	if (!model_layer_is_moe(m, i)) {
		n += mats * h * ft;
		if (m->bias)
			n += (mats - 1) * ft + h;
		return n;
	}
	{
		int64_t sf = (int64_t)sh->sf;
		int64_t E = m->moe.experts;

		/* LatentMoE's projections, whole on every rank */
		n += expert_params_tp(m, sh, i) + mats * h * sf + h * E +
		     model_latent_params(m);
		if (m->bias)
			n += sf ? (mats - 1) * sf + h : 0;
		if (m->bias || m->moe.router_bias)
			n += E;
		if (m->moe.shared_gate)
			n += h;
	}
	return n;
}

/*
 * Newton-Schulz iterations of Muon on an r x c matrix, per optimizer step
 * (emerging_optimizers' newton_schulz, quintic, at Megatron's default of
 * 5 steps, --muon-num-ns-steps, arguments.py:2648): with s the smaller
 * side and b the larger, each step forms A = X X^T (2 s^2 b FLOPs),
 * A + A^2 (2 s^3) and that times X (2 s^2 b).
 */
#define MUON_NS_STEPS 5

static double
ns_flops(double r, double c)
{
	double s = fmin(r, c), b = fmax(r, c);

	return MUON_NS_STEPS * (4 * s * s * b + 2 * s * s * s);
}

/*
 * Block i's matrices as Muon orthogonalises them, whole: the query, key
 * and value projections apart (--muon-no-split-qkv off: Megatron splits
 * the fused QKV weight, emerging_optimizers.py:407-436), MLA's latent
 * projections, the output projection, the MLP's up (gate and up fused)
 * and down, the router and the shared experts; *experts the routed
 * experts this GPU holds (E / ep of them, whole under any expert tensor
 * parallelism).
 */
static double
block_ns_flops(const struct model *m, const struct shape *sh, int i,
	       double *experts)
{
	double h = (double)m->hidden, at = (double)m->heads;
	double dh = sh->dh, mats = sh->swiglu ? 3 : 2, t = 0;
	int kind = model_layer_kind(m, i);
	/* a transformer block, or a hybrid model's attention layer */
	int attn = kind == 'B' || kind == MODEL_LAYER_ATTN;

	*experts = 0;
	if (kind == MODEL_LAYER_MAMBA) {
		double di = (double)(m->mamba.heads * m->mamba.head_dim);

		return ns_flops(2 * di + 2 * (double)(m->mamba.groups *
						       m->mamba.state) +
					(double)m->mamba.heads,
				h) +
		       ns_flops(h, di);
	}
	if (attn && m->attention == MODEL_MLA) {
		const struct model_mla *a = &m->mla;
		double qd = (double)(a->nope_dim + a->rope_dim);

		t += a->q_rank ? ns_flops((double)a->q_rank, h) +
					 ns_flops(at * qd, (double)a->q_rank)
			       : ns_flops(at * qd, h);
		t += ns_flops((double)(a->kv_rank + a->rope_dim), h);
		t += ns_flops(at * (double)(a->nope_dim + a->v_dim),
			      (double)a->kv_rank);
		t += ns_flops(h, at * (double)a->v_dim);
	} else if (attn) {
		t += ns_flops(at * dh, h) +
		     2 * ns_flops((double)m->kv_heads * dh, h) +
		     ns_flops(h, at * dh);
	}
	if (kind == MODEL_LAYER_ATTN)
		return t;
	if (!model_layer_is_moe(m, i)) {
		double f = (double)m->ffn_hidden;

		return t + ns_flops((mats - 1) * f, h) + ns_flops(h, f);
	}
	{
		double fe = (double)m->moe.expert_ffn;
		double sf = (double)(m->moe.shared_experts *
				     m->moe.shared_ffn);

		double w = (double)model_expert_width(m);

		t += ns_flops((double)m->moe.experts, h);
		if (sf > 0)
			t += ns_flops((mats - 1) * sf, h) + ns_flops(h, sf);
		if (m->moe.latent > 0)
			t += 2 * ns_flops(w, h);
		*experts = sh->nel * (ns_flops((mats - 1) * fe, w) +
				      ns_flops(w, fe));
	}
	return t + *experts;
}

/*
 * The multi-token-prediction modules, priced with the head they follow
 * (Megatron runs them on the last stage, after the output layer): per
 * module the next tokens' embedding lookup, two norms, the 2h x h
 * projection, one block like the last (a hybrid model's module: the
 * layers of its mtp_pattern, Megatron-Core's unified hybrid pattern
 * after each '/', hybrid_layer_allocation.py:225-276 at d98e8a6), and
 * the shared head again.  Modules sharing their weights (mtp_shared,
 * mtp_use_repeated_layer) still run once each.
 * NEEDSWORK: a module cannot be a pipeline stage of its own.
 */
static void
mtp_module_point(struct shape *sh, const struct model *m,
		 struct prof_point *b)
{
	struct prof_point l;
	int j, r;

	memset(b, 0, sizeof(*b));
	for (j = 0; j < model_mtp_module_layers(m); j++) {
		memset(&l, 0, sizeof(l));
		layer_shape(sh, m, model_mtp_layer(m, j));
		block_point(sh, &l);
		b->fwd_ms += l.fwd_ms;
		b->bwd_ms += l.bwd_ms;
		for (r = 0; r < PROF_RC_N; r++) {
			b->recomp_ms[r] += l.recomp_ms[r];
			b->stash_bytes[r] += l.stash_bytes[r];
		}
		if (l.work_bytes > b->work_bytes)
			b->work_bytes = l.work_bytes;
		b->fwd_flops += l.fwd_flops;
		b->ep_a2a_bytes += l.ep_a2a_bytes;
		b->ep_shared_fwd_ms += l.ep_shared_fwd_ms;
		b->ep_pre_fwd_ms += l.ep_pre_fwd_ms;
		b->ep_pre_bwd_ms += l.ep_pre_bwd_ms;
	}
}

static void
mtp_point(struct shape *sh, const struct model *m, struct prof_point *pt)
{
	struct prof_point b, hd;
	double n = sh->n, h = sh->h, e = sh->e, look, nrm, rp, f, bw, kn;
	int k, r;

	for (k = 0; k < m->mtp_layers; k++) {
		layer_shape(sh, m, model_mtp_layer(m, 0));
		memset(&hd, 0, sizeof(hd));
		/* the lookup, then the norms and the projection (rp) */
		sh->ks_pass = KERNEL_PASS_FWD;
		look = op_ms(sh, OP_VEC, 0, 8 * n + 2 * n * h * e);
		kn = sh->nk;
		nrm = norm_ms(sh);
		/* the module runs its two norms alike: one priced twice */
		ks_again(sh, "norm", sh->nk - kn, nrm);
		rp = gemm_ms(sh, n, 2 * h, h);
		f = look + 2 * nrm + rp;
		rp += 2 * nrm;
		sh->ks_pass = KERNEL_PASS_BWD;
		{
			double g = gemm_bwd_ms(sh, n, 2 * h, h), nb;

			kn = sh->nk;
			nb = norm_bwd_ms(sh);
			ks_again(sh, "norm", sh->nk - kn, nb);
			bw = g + 2 * nb;
		}
		/* the module's block is FP8 like the others; its selective
		 * recomputation is not the head's */
		sh->fp8 = model_prec_quantised(m->precision);
		sh->ks_nosel = 1;
		sh->in_mtp = 1;
		mtp_module_point(sh, m, &b);
		sh->in_mtp = 0;
		sh->ks_nosel = 0;
		sh->fp8 = 0;
		head_point(sh, &hd);
		pt->fwd_ms += f + b.fwd_ms + hd.fwd_ms;
		pt->bwd_ms += bw + b.bwd_ms + hd.bwd_ms;
		/* Megatron's full recomputation checkpoints the module's
		 * norms, projection and block, not the lookup before them
		 * nor the shared head after (multi_token_prediction.py:
		 * 1696-1736, _proj_and_transformer_layer at 1361-1397, at
		 * d98e8a6).  NEEDSWORK: the stash counts their activations
		 * under every recomputation, not only the checkpoint's
		 * inputs under full. */
		pt->recomp_ms[PROF_RC_FULL] += rp + b.fwd_ms;
		for (r = 0; r < PROF_RC_N; r++)
			pt->stash_bytes[r] +=
				(int64_t)(4 * n * h * e + 2 * n * sh->statb) +
				b.stash_bytes[PROF_RC_NONE] +
				hd.stash_bytes[PROF_RC_NONE];
		if (b.work_bytes > pt->work_bytes)
			pt->work_bytes = b.work_bytes;
		pt->fwd_flops += 4 * n * h * h + b.fwd_flops + hd.fwd_flops;
		pt->ep_a2a_bytes += b.ep_a2a_bytes;
		pt->ep_shared_fwd_ms += b.ep_shared_fwd_ms;
		pt->ep_pre_fwd_ms += b.ep_pre_fwd_ms;
		pt->ep_pre_bwd_ms += b.ep_pre_bwd_ms;
	}
}

static int
build(struct profile *p, const struct model *m, const struct gpu_spec *g,
      const int *mb, int nmb, const struct analytic_par *par,
      const struct analytic_opts *o,
      double (*cls)[ANALYTIC_NCLASS], struct kernel_list *ks)
{
	struct shape sh;
	struct prof_layer *L;
	int64_t h = m->hidden, kv, vt;
	int i, r, nruns, *first, tp = par->tp, sp = par->sp, cp = par->cp;
	int ep = par->ep > 1 ? par->ep : 1, mincap, native;
	double cf;
	int tpq;

	if (par->etp > 1 && par->etp != tp)
		return pd2bw_error("expert tensor parallelism %d must be 1 or "
				   "the tensor-parallel degree %d", par->etp,
				   tp);
	if (check_inputs(m, g, mb, nmb, tp, par->etp == 1 ? 1 : tp))
		return -1;
	if (o && o->lora_rank > 0 &&
	    (m->moe.experts || m->attention == MODEL_MLA || m->mtp_layers ||
	     model_is_hybrid(m)))
		return pd2bw_error("model '%s': LoRA is priced on dense "
				   "blocks of multi-head attention (no experts, "
				   "MLA, Mamba or multi-token prediction)",
				   m->name ? m->name : "");
	if (model_is_hybrid(m) && o && (o->rc_modules & ANALYTIC_RC_OP))
		return pd2bw_error("model '%s': torchtitan's per-op "
				   "recomputation has no hybrid (Mamba) model",
				   m->name ? m->name : "");
	/* a rank past the narrower side of a linear is no low-rank
	 * adapter: the hidden size and the query heads' width bound it */
	if (o && o->lora_rank > 0 &&
	    (o->lora_rank > m->hidden ||
	     o->lora_rank > m->heads * model_head_dim(m)))
		return pd2bw_error("model '%s': LoRA rank %d exceeds its hidden "
				   "size %lld or attention width %lld",
				   m->name ? m->name : "", o->lora_rank,
				   (long long)m->hidden,
				   (long long)(m->heads * model_head_dim(m)));
	kv = m->kv_heads > 0 ? m->kv_heads : m->heads;

	memset(&sh, 0, sizeof(sh));
	sh.psite = -1;
	sh.site_prec = o && analytic_site_prec_any(o->site_prec)
			       ? o->site_prec
			       : NULL;
	sh.g = g;
	sh.attn_eff = analytic_attn_eff(g, o ? o->attn : ANALYTIC_ATTN_NATIVE);
	sh.tensor_tflops = m->precision == MODEL_FP32 ? g->tflops32
						      : g->tflops16;
	sh.fp8_attn = o && o->attn == ANALYTIC_ATTN_FP8;
	/* the GPU's own kernel (and its FP8 form) at the catalog's block
	 * cost and backward fraction, the 16-bit one at its floors of a
	 * score; FlashAttention-2 and Triton's at FlashAttention-2's block
	 * cost and the exponentials' bound, FlashAttention-2's backward at
	 * its own fraction, Triton's at one rate (0 in the catalog: 1) */
	native = !o || o->attn == ANALYTIC_ATTN_NATIVE ||
		 o->attn == ANALYTIC_ATTN_FP8;
	sh.block_cost = native && g->attn_block > 0 ? g->attn_block
						    : ATTN_BLOCK_COST;
	sh.attn_bwd = native ? g->attn_bwd
		      : o->attn == ANALYTIC_ATTN_FA2 ? g->attn_bwd_fa2
						     : 1;
	if (!(sh.attn_bwd > 0))
		sh.attn_bwd = 1;
	sh.score_f = sh.score_b = g->flops_per_exp;
	if (native && !sh.fp8_attn) {
		if (g->score_fwd > 0)
			sh.score_f = g->score_fwd;
		if (g->score_bwd > 0)
			sh.score_b = g->score_bwd;
	}
	sh.attn_tflops = sh.fp8_attn ? g->tflops8 : sh.tensor_tflops;
	sh.s = (double)m->seq_len;
	sh.c = cp > 1 ? cp : 1;
	sh.sq = sh.s / sh.c;
	sh.h = (double)h;
	sh.e = model_dtype_bytes(m);
	sh.dh = (double)model_head_dim(m);
	sh.at = (double)(m->heads / tp);
	sh.kvt = (double)(kv >= tp ? kv / tp : 1);
	sh.ht = sh.at * sh.dh;
	sh.qt = (sh.at + 2 * sh.kvt) * sh.dh;
	sh.ft = (double)(m->ffn_hidden / tp);
	vt = model_vocab_shard(m, tp,
			       o ? o->vocab_pad : MODEL_MEGATRON_VOCAB_PAD);
	sh.vt = (double)vt;
	sh.statb = m->norm == MODEL_RMSNORM ? 4 : 8;
	sh.normf = m->norm == MODEL_RMSNORM ? 4 : 8;
	sh.rms = m->norm == MODEL_RMSNORM;
	sh.swiglu = m->activation == MODEL_SWIGLU ||
		    m->activation == MODEL_GEGLU;
	sh.sqrelu = m->activation == MODEL_SQRELU;
	sh.clamp = m->act_clamp > 0 && sh.swiglu && o && o->clamp_eager;
	sh.pstash = o && m->moe.experts ? o->paged_stash : 0;
	sh.drop = m->dropout;
	sh.bias = m->bias;
	sh.fuse = o ? o->fusions & ANALYTIC_FUSE_ALL : ANALYTIC_FUSE_ALL;
	sh.rcm = o && o->rc_modules ? o->rc_modules & ANALYTIC_RC_ALL
				    : ANALYTIC_RC_CORE_ATTN;
	sh.fp8r = o ? o->fp8_recipe : FP8_DELAYED;
	sh.fp4 = m->precision == MODEL_NVFP4;
	sh.qb = model_prec_quant_bytes(m->precision);
	sh.casts = o ? o->fp8_casts : ANALYTIC_CASTS_TE;
	sh.fp8head = o && o->fp8_head && m->precision == MODEL_FP8 &&
		     sh.fp8r == FP8_MXFP8;
	sh.flash = m->flash_attention;
	sh.causal = m->causal;
	sh.rotary = m->positions == MODEL_ROTARY;
	sh.learned = m->positions == MODEL_LEARNED;
	sh.bert = m->family == MODEL_BERT;
	sh.t = tp;
	sh.sp = sp && tp > 1;

	if (m->attention == MODEL_MLA) {
		sh.mla = 1;
		sh.dqk = (double)(m->mla.nope_dim + m->mla.rope_dim);
		sh.dv = (double)m->mla.v_dim;
		sh.qr = (double)m->mla.q_rank;
		sh.kvr = (double)m->mla.kv_rank;
		sh.rd = (double)m->mla.rope_dim;
		sh.dh = sh.dv;
		sh.kvt = sh.at;
		sh.ht = sh.at * sh.dv;
		sh.qt = sh.at * (2 * sh.dqk + sh.dv);
	}
	if (m->mamba.heads) {
		sh.mh = (double)(m->mamba.heads / tp);
		sh.mp = (double)m->mamba.head_dim;
		sh.mN = (double)m->mamba.state;
		sh.mg = (double)(m->mamba.groups / tp);
		sh.mconv = (double)m->mamba.conv;
		sh.mQ = (double)m->mamba.chunk;
		sh.mdi = sh.mh * sh.mp;
		sh.min = 2 * sh.mdi + 2 * sh.mg * sh.mN + sh.mh;
	}
	if (m->moe.experts) {
		sh.ne = (double)m->moe.experts;
		sh.ep = ep;
		sh.nel = sh.ne / ep;
		sh.topk = (double)m->moe.top_k;
		sh.etp = par->etp == 1 ? 1 : tp;
		sh.fe = (double)(m->moe.expert_ffn / sh.etp);
		sh.eh = (double)model_expert_width(m);
		sh.lat = m->moe.latent > 0;
		sh.sf = (double)(m->moe.shared_experts * m->moe.shared_ffn /
				 tp);
	}
	/* the model's capacity factor, else the runtime's; a capacity
	 * bounds every expert's rows, so no rank receives more than its
	 * padded share whatever the routing's imbalance */
	cf = m->moe.capacity_factor > 0 ? m->moe.capacity_factor
		: o ? o->capacity_factor : 0;
	if (o && o->dropless)
		cf = 0;
	/* Megatron-Core's graphs of the router and the preprocessing
	 * (transformer_config.py at d98e8a6): MoE models only (2825-
	 * 2829), and the alltoall dispatcher's preprocessing under a
	 * capacity copies the counts to the host, which no graph holds
	 * (2843-2851) */
	if (o && o->moe_graphs && !m->moe.experts && !model_is_hybrid(m))
		return pd2bw_error("model '%s' has no experts: te-graphs "
				   "graphs the MoE router",
				   m->name ? m->name : "");
	if (o && o->moe_graphs == 1 && m->moe.experts && cf > 0)
		return pd2bw_error("model '%s' caps its experts' rows "
				   "(capacity factor %g): te-graphs cannot "
				   "graph the alltoall dispatcher's "
				   "preprocessing then; add flex-dispatcher",
				   m->name ? m->name : "", cf);
	mincap = o && cf > 0 ? o->min_capacity : 0;
	sh.dd = o && o->dense_dispatch && m->moe.experts;
	sh.xcopy = o ? o->xent_copy : 0;
	sh.early = o && o->rc_early_stop;
	sh.lora = o ? o->lora_rank : 0;
	sh.frozen = sh.lora > 0;
	sh.lora_mask = o && o->lora_targets ? o->lora_targets
					    : ANALYTIC_LORA_ALL;
	sh.ptcp = o && o->cp_f32;
	sh.kva = o && o->repeat_kv && !sh.mla ? sh.at : sh.kvt;
	sh.split = o && o->split_proj && !sh.mla;
	/* DTensor's copies of the sequence dimension (runtime sp_dim_copy);
	 * the forward all-gathers move torchao's FP8 under tensorwise
	 * scaling (as tp_block_bytes below), the rest 16-bit */
	sh.spcopy = o && sh.sp && sh.t > 1 ? o->sp_copy : 0;
	/* ... where async TP fused them (sp_copy 0 or 2: torchtitan's
	 * DTensor collectives), torchao's rowwise recipe casts between
	 * each all-gather and its matmuls, and the gathers stay as
	 * they were (comm.c cost_tp_hidden()) */
	if (o && sh.sp && sh.t > 1 && o->fp8_casts == ANALYTIC_CASTS_EACH &&
	    o->sp_copy != 1 &&
	    model_prec_quantised(m->precision) && model_fp8_rowwise(sh.fp8r))
		sh.spcopy = 3;
	sh.spag = model_prec_quantised(m->precision) &&
				  sh.fp8r == FP8_TENSORWISE
			  ? sh.qb
			  : sh.e;
	sh.imb = par->imbalance > 1 && cf <= 0 ? par->imbalance : 1;
	/* a per-rank budget (HybridEP's): the rows over it are dropped,
	 * and its static buffers hold the whole budget
	 * (token_dispatcher.py:1098-1113 at d98e8a6) */
	sh.rcap = cf <= 0 && par->rank_capacity > 0 ? par->rank_capacity : 0;
	if (sh.rcap > 0)
		sh.imb = fmin(sh.imb, sh.rcap);
	sh.qk_norm = m->qk_norm;
	sh.post_norms = m->post_norms;
	sh.attn_cap = m->attn_softcap;
	sh.logit_cap = m->logit_softcap;
	sh.v2 = model_is_v2(m);
	sh.afrac = sh.causal ? 0.5 : 1;
	sh.span = sh.s;
	sh.doc = m->doc_len > 0 ? (double)m->doc_len : sh.s;

	/* Runs of blocks priced alike: one for the models of format 1. */
	for (i = 1, nruns = 1; i < m->layers; i++)
		if (!same_block(m, o, i, i - 1))
			nruns++;
	if (cls && nruns > 1)
		return pd2bw_error("model '%s': per-class times need blocks "
				   "that are all alike",
				   m->name ? m->name : "");

	p->model = xstrdup(m->name ? m->name : "unnamed");
	p->device = xstrdup(g->name);
	p->backend = xstrdup("analytic");
	p->device_mem_bytes = g->mem_bytes;
	p->precision = xstrdup(model_prec_names[m->precision]);
	p->tp = tp;
	p->cp = cp > 1 ? cp : 1;
	p->ep = ep;
	p->etp = m->moe.experts && par->etp == 1 ? 1 : tp;
	/* Transformer Engine quantises a sequence-parallel layer's input
	 * before the all-gather and gathers FP8 (layernorm_linear.py
	 * 283-313; the grad outputs of the row-parallel layers alike,
	 * module/base.py grad_output_preprocess; NVFP4 alike, its rowwise
	 * copy); the reduce-scatters stay 16-bit: of a block's four
	 * all-gather + reduce-scatter pairs, the all-gathers move qb bytes a
	 * value instead of e (FP8: 0.75 of the 16-bit bytes).  Backward, the
	 * two row-parallel layers gather their grad outputs with both
	 * usages, rowwise for dgrad and columnwise for wgrad (linear.py:903-
	 * 905, module/base.py:1721-1750 at d0067d0da), and only per-tensor
	 * FP8 gathers the rowwise copy alone and transposes it after
	 * (supports_only_rowwise_all_gather, tensor/float8_tensor.py:190,
	 * 396): MXFP8, blockwise and NVFP4 move both copies (distributed.py
	 * _all_gather_mxfp8, _all_gather_nvfp4: 1386-1500; with userbuffers
	 * MXFP8 gathers its columnwise copy apart, linear.py:1185-1215), so
	 * the gathers average 1.5 qb.  torchao's Float8Linear gathers FP8
	 * with tensorwise scaling, by default (torchtitan docs/float8.md:31,
	 * 49 at v0.2.2), rowwise; its other recipes communicate in high
	 * precision */
	/* the gathers feed the QKV projection and the MLP's first linear
	 * (gather_share()), each at its own precision under
	 * --module-precision */
	tpq = model_prec_quantised(m->precision) && sp && tp > 1 &&
	      (sh.casts == ANALYTIC_CASTS_TE || sh.fp8r == FP8_TENSORWISE);
	p->tp_block_bytes =
		tpq ? (1 + (gather_share(&sh, ANALYTIC_SITE_QKV) +
			    gather_share(&sh, mlp_in(m->moe.experts > 0,
						     m->moe.latent > 0))) /
				   2) /
			      2
		    : 1;
	/* Of the block's backward reductions, those of the column-parallel
	 * layers' input gradients (QKV's and the first MLP GEMM's) run
	 * beside their weight-gradient GEMMs where the runtime starts them
	 * asynchronously (runtime tp_dgrad_overlap): two all-reduces, or
	 * under sequence parallelism two reduce-scatters, one all-reduce's
	 * worth (16-bit); the all-gathers of their inputs for the weight
	 * gradient run beside the dgrad GEMMs and are not in the chain's
	 * count.  Where userbuffers overlap the sequence-parallel traffic
	 * (tp_ub, not in NVFP4) their share (runtime tp_hidden) takes the
	 * place of this one.  The weight-gradient GEMM of such a layer
	 * (2 n h (3h / t) FLOPs for QKV) outlasts its reduction (2 n h
	 * bytes) wherever tensor parallelism pays off, which is assumed. */
	if (o && o->tp_dgrad && tp > 1)
		p->tp_block_hidden =
			!sp ? 2
			    : (o->tp_ub && m->precision != MODEL_NVFP4 ? 0 : 1);
	p->route.experts = m->moe.experts;
	p->route.top_k = m->moe.top_k;
	p->route.groups = m->moe.groups;
	p->route.group_top_k = m->moe.group_top_k;
	p->route.capacity = m->moe.experts ? cf : 0;
	p->route.rank_capacity = m->moe.experts ? sh.rcap : 0;
	p->seq_len = m->seq_len;
	p->doc_len = m->doc_len;
	if (sh.lora > 0) {
		p->lora_rank = (int)sh.lora;
		p->trainable = analytic_lora_share(m, (int)sh.lora,
						   sh.lora_mask);
	}
	p->hidden = h;
	profile_alloc(p, nmb, 2 + nruns);
	memcpy(p->mb, mb, (size_t)nmb * sizeof(*mb));

	/* Parameters held by one GPU: matrices and vocabulary split by t. */
	L = &p->layers[0];
	L->name = xstrdup("embedding");
	L->kind = PROF_EMBED;
	L->params = vt * h;
	if (m->positions == MODEL_LEARNED)
		L->params += m->seq_len * h;
	if (sh.bert)
		L->params += 2 * h + norm_params(m);
	/* a quantised model's embedding stays 16-bit: Transformer Engine
	 * quantises its linears alone (and torchao its nn.Linear's) */
	if (model_prec_quantised(m->precision))
		L->outside16 = L->params;
	first = xcalloc((size_t)nruns, sizeof(*first));
	for (i = 0, r = 0; i < m->layers; i++) {
		if (i && same_block(m, o, i, i - 1)) {
			p->layers[r].repeat++;
			continue;
		}
		L = &p->layers[++r];
		first[r - 1] = i;
		/* "block" for the blocks of format 1; every name starts
		 * with it (tests/emit/check.py counts blocks so) */
		{
			const char *hn = hybrid_name(model_layer_kind(m, i));
			int local = model_layer_span(m, i) < m->seq_len;

			if (!hn)
				hn = model_layer_is_moe(m, i)
					     ? (local ? "block_moe_local"
						      : "block_moe")
					     : (local ? "block_local"
						      : "block");
			/* a block kept in 16 bits: its own run */
			if (block_bf16(m, o, i)) {
				size_t n = strlen(hn) + 6;

				L->name = xmalloc(n);
				snprintf(L->name, n, "%s_bf16", hn);
			} else
				L->name = xstrdup(hn);
		}
		L->kind = PROF_BLOCK;
		L->sublayers = model_is_hybrid(m) ? 1 : 0;
		L->bf16 = block_bf16(m, o, i);
		/* --module-precision: its gathers at the precision of the
		 * linears they feed (a hybrid layer's one sublayer's) */
		if (sh.site_prec && tpq) {
			int k = model_layer_kind(m, i);
			double in = gather_share(
				&sh, mlp_in(model_layer_is_moe(m, i),
					    m->moe.latent > 0));
			double qkv = gather_share(&sh, ANALYTIC_SITE_QKV);
			double gs =
				k == MODEL_LAYER_MAMBA
					? gather_share(&sh, ANALYTIC_SITE_MAMBA_IN)
				: k == MODEL_LAYER_ATTN ? qkv
				: k == 'B'		? (qkv + in) / 2
							: in;

			L->tp_bytes = (1 + gs) / 2;
		}
		L->repeat = 1;
		L->params = block_params_tp(m, &sh, i);
		L->expert_params = expert_params_tp(m, &sh, i);
		L->ns_flops = block_ns_flops(m, &sh, i, &L->ns_expert_flops);
		/* its norms' few weights, which stay with Adam, counted
		 * with the matrices */
		L->muon_params = L->params;
	}
	L = &p->layers[nruns + 1];
	L->name = xstrdup("head");
	L->kind = PROF_HEAD;
	L->params = norm_params(m);
	if (sh.bert)
		L->params += h * h + (m->bias ? h : 0) + vt;
	if (!m->tied_embeddings)
		L->params += vt * h;
	/* ... and so does its head: the norm, and the output layer but
	 * where Megatron-Core runs it in FP8 (--fp8-output-proj, fp8head),
	 * as torchtitan's converter leaves "output" (filter_fqns) */
	if (model_prec_quantised(m->precision))
		L->outside16 = L->params - (sh.fp8head && !m->tied_embeddings
						    ? vt * h
						    : 0);
	if (m->mtp_layers) {
		/* one set of weights a module, or one for all when shared */
		int64_t sets = model_mtp_weight_sets(m), bp = 0, xp = 0;
		double ns = 0, nse = 0, e;
		int j;

		for (j = 0; j < model_mtp_module_layers(m); j++) {
			int l = model_mtp_layer(m, j);

			layer_shape(&sh, m, l);
			bp += block_params_tp(m, &sh, l);
			xp += expert_params_tp(m, &sh, l);
			ns += block_ns_flops(m, &sh, l, &e);
			nse += e;
		}
		L->params += sets * (bp + 3 * norm_params(m) + 2 * h * h);
		L->expert_params = sets * xp;
		/* the modules' blocks and 2h x h projection are Muon's; the
		 * shared head's vocabulary matrix is not */
		L->ns_flops = sets * (ns + ns_flops(h, 2 * (double)h));
		L->ns_expert_flops = sets * nse;
		L->muon_params = sets * (bp + 2 * h * h);
	}

	if (cls)
		memset(cls, 0, 3 * (size_t)nmb * sizeof(*cls));
	for (i = 0; i < nmb; i++) {
		sh.b = mb[i];
		sh.n = sh.b * sh.sq;
		sh.cls_ms = cls ? cls[0 * nmb + i] : NULL;
		sh.nk = 0;
		ks_point(&sh, ks, 0, i);
		embed_point(&sh, &p->layers[0].pt[i]);
		p->layers[0].pt[i].kernels = sh.nk;
		for (r = 0; r < nruns; r++) {
			sh.cls_ms = cls ? cls[1 * nmb + i] : NULL;
			sh.nk = 0;
			/* a block kept in 16 bits quantises nothing */
			sh.fp8 = model_prec_quantised(m->precision) &&
				 !block_bf16(m, o, first[r]);
			sh.fp4 = sh.fp8 && m->precision == MODEL_NVFP4;
			ks_point(&sh, ks, 1 + r, i);
			layer_shape(&sh, m, first[r]);
			sh.ntok = analytic_expert_rows(sh.n, m->moe.top_k,
						       m->moe.experts, cf,
						       mincap);
			/* whole experts under expert tensor parallelism 1:
			 * each GPU of the tensor-parallel group computes
			 * 1/t of the rows (its sequence-parallel tokens) */
			if (m->moe.experts && sh.etp < tp)
				sh.ntok /= tp;
			sh.lora_on = sh.lora > 0;
			sh.p16 = 0;
			block_point(&sh, &p->layers[1 + r].pt[i]);
			/* the weights it keeps in 16 bits: the whole block's
			 * (--bf16-layers) or its linears' that
			 * --module-precision keeps so */
			if (!i)
				p->layers[1 + r].params16 =
					p->layers[1 + r].bf16
						? p->layers[1 + r].muon_params
						: (int64_t)sh.p16;
			sh.lora_on = 0;
			sh.fp8 = 0;
			sh.fp4 = m->precision == MODEL_NVFP4;
			p->layers[1 + r].pt[i].kernels = sh.nk;
		}
		sh.cls_ms = cls ? cls[2 * nmb + i] : NULL;
		sh.nk = 0;
		ks_point(&sh, ks, nruns + 1, i);
		head_point(&sh, &p->layers[nruns + 1].pt[i]);
		sh.p16 = 0;
		if (m->mtp_layers)
			mtp_point(&sh, m, &p->layers[nruns + 1].pt[i]);
		/* the modules' weights --module-precision keeps in 16
		 * bits, each module's set once (model_mtp_weight_sets()) */
		if (!i && m->mtp_layers)
			p->layers[nruns + 1].params16 =
				(int64_t)(sh.p16 / m->mtp_layers) *
				model_mtp_weight_sets(m);
		p->layers[nruns + 1].pt[i].kernels = sh.nk;
	}
	free(first);
	return 0;
}
