/*
 * test_analytic.c - the analytic profile: FLOPs, parameters and stashed
 * bytes per layer against hand counts and Korthikanti et al.'s formulas,
 * times against the roofline, metadata and rejected inputs.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "capture.h"
#include "pd2bw/analytic.h"
#include "pd2bw/chain.h"
#include "pd2bw/error.h"
#include "pd2bw/kernels.h"

static struct gpu_catalog cat;

static void
gpt22(struct model *m)
{
	model_init(m);
	m->name = "gpt-2.2b";
	m->layers = 32;
	m->hidden = 2304;
	m->heads = 32;
	m->kv_heads = 32;
	m->ffn_hidden = 4 * 2304;
	m->seq_len = 512;
	m->vocab = 50257;
}

static void
llama8(struct model *m)
{
	model_init_family(m, MODEL_LLAMA);
	m->name = "llama-3-8b";
	m->layers = 32;
	m->hidden = 4096;
	m->heads = 32;
	m->kv_heads = 8;
	m->ffn_hidden = 14336;
	m->seq_len = 8192;
	m->vocab = 128256;
}

/* Qwen3-30B-A3B from its Hugging Face config, at s = 4096. */
static void
qwen3_30b(struct model *m)
{
	model_init(m);
	CHECK(model_load(m, cap_path("tests/data/hf/qwen3-30b-a3b.json")) ==
	      0);
	m->seq_len = 4096;
}

static int
run(struct profile *p, const struct model *m, const char *gpu, const int *mb,
    int nmb, int tp)
{
	profile_init(p);
	return analytic_profile(p, m, catalog_find(&cat, gpu), mb, nmb, tp);
}

static void
test_gpt_block(void)
{
	static const int mb[] = {1, 2, 4, 8};
	struct profile p;
	struct model m;
	const struct prof_point *pt;
	double s = 512, h = 2304, a = 32, sbh, formula;
	int i;

	gpt22(&m);
	CHECK_INT_EQ(run(&p, &m, "V100-16GB", mb, 4, 1), 0);
	CHECK_STR_EQ(p.model, "gpt-2.2b");
	CHECK_STR_EQ(p.device, "V100-16GB");
	CHECK_STR_EQ(p.backend, "analytic");
	CHECK_STR_EQ(p.precision, "fp16");
	CHECK_INT_EQ(p.device_mem_bytes, 16LL << 30);
	CHECK_INT_EQ(p.tp, 1);
	CHECK_INT_EQ(p.seq_len, 512);
	CHECK_INT_EQ(p.hidden, 2304);
	CHECK_INT_EQ(p.nmb, 4);
	CHECK_INT_EQ(p.mb[3], 8);
	CHECK_INT_EQ(p.nlayers, 3);
	CHECK_INT_EQ(p.layers[0].kind, PROF_EMBED);
	CHECK_INT_EQ(p.layers[1].kind, PROF_BLOCK);
	CHECK_INT_EQ(p.layers[1].repeat, 32);
	CHECK_INT_EQ(p.layers[2].kind, PROF_HEAD);
	CHECK_STR_EQ(p.layers[1].name, "block");
	/* the vocabulary padded as Megatron-Core pads it, 50257 -> 50304
	 * rows (a multiple of 128); the head is tied */
	CHECK_INT_EQ(p.layers[0].params, model_embed_params(&m) + 47 * 2304);
	CHECK_INT_EQ(p.layers[1].params, model_block_params(&m));
	CHECK_INT_EQ(p.layers[2].params, model_head_params(&m));
	CHECK_INT_EQ(profile_params(&p), model_params(&m) + 47 * 2304);

	for (i = 0; i < 4; i++) {
		double b = mb[i];

		pt = &p.layers[1].pt[i];
		/* design.md section 8: 24 b s h^2 + 4 b s^2 h. */
		CHECK_NEAR(pt->fwd_flops / (24 * b * s * h * h +
					    4 * b * s * s * h),
			   1.0, 1e-14);
		CHECK_INT_EQ(pt->out_bytes, (int64_t)(2 * b * s * h));
		CHECK_INT_EQ(pt->stash_bytes[PROF_RC_FULL],
			     (int64_t)(2 * b * s * h));
		/*
		 * Korthikanti: s b h (34 + 5 a s / h); our count adds the
		 * two LayerNorms' fp32 mean and 1/std, 16 bytes per token.
		 */
		sbh = s * b * h;
		formula = sbh * (34 + 5 * a * s / h);
		CHECK_INT_EQ(pt->stash_bytes[PROF_RC_NONE],
			     (int64_t)(formula + 16 * s * b));
		CHECK_NEAR(pt->stash_bytes[PROF_RC_NONE] / formula,
			   1 + 16 / (34 * h + 5 * a * s), 1e-12);
		CHECK_INT_EQ(pt->stash_bytes[PROF_RC_SELECTIVE],
			     (int64_t)(34 * sbh + 16 * s * b));
		CHECK(pt->recomp_ms[PROF_RC_NONE] == 0);
		CHECK(pt->recomp_ms[PROF_RC_SELECTIVE] > 0);
		CHECK(pt->recomp_ms[PROF_RC_SELECTIVE] <
		      pt->recomp_ms[PROF_RC_FULL]);
		CHECK(pt->recomp_ms[PROF_RC_FULL] == pt->fwd_ms);
		/*
		 * Backward: twice the GEMM work; the elementwise kernels of
		 * the s x s scores cost less backward than forward (1.88
		 * here).
		 */
		CHECK(pt->bwd_ms > 1.8 * pt->fwd_ms &&
		      pt->bwd_ms < 2.6 * pt->fwd_ms);
		if (i) {
			const struct prof_point *q = &p.layers[1].pt[i - 1];
			int j;

			CHECK(pt->fwd_ms > q->fwd_ms);
			CHECK(pt->bwd_ms > q->bwd_ms);
			for (j = 0; j < 3; j++) {
				CHECK(p.layers[j].pt[i].fwd_ms >
				      p.layers[j].pt[i - 1].fwd_ms);
				CHECK(p.layers[j].pt[i].bwd_ms >
				      p.layers[j].pt[i - 1].bwd_ms);
			}
		}
	}
	/* b = 1 by hand: 34 * 512 * 2304 + 5 * 32 * 512^2 + 16 * 512. */
	CHECK_INT_EQ(p.layers[1].pt[0].stash_bytes[PROF_RC_NONE], 82059264);
	CHECK_INT_EQ(p.layers[1].pt[0].stash_bytes[PROF_RC_SELECTIVE],
		     40116224);
	/* Transient: dP and dS of the scores, 2 * 2 * 32 * 512^2. */
	CHECK_INT_EQ(p.layers[1].pt[0].work_bytes, 33554432);

	/*
	 * Head (tied): no matrix parameters but the logits' FLOPs, 2 b s h V;
	 * stash: norm input + statistics, GEMM input, fp32 softmax; V the
	 * padded 50304.
	 */
	pt = &p.layers[2].pt[0];
	CHECK_NEAR(pt->fwd_flops, 2 * s * h * 50304, 0);
	CHECK_INT_EQ(pt->stash_bytes[PROF_RC_NONE],
		     (int64_t)(2 * 2 * s * h + 8 * s + 4 * s * 50304));
	CHECK_INT_EQ(pt->work_bytes, (int64_t)(2 * s * 50304));
	CHECK_INT_EQ(pt->out_bytes, (int64_t)(4 * s));
	/* Embedding: ids (int64) and the dropout mask. */
	pt = &p.layers[0].pt[0];
	CHECK_INT_EQ(pt->stash_bytes[PROF_RC_NONE], (int64_t)(8 * s + s * h));
	CHECK_INT_EQ(pt->out_bytes, (int64_t)(2 * s * h));
	CHECK(pt->fwd_ms > 0 && pt->bwd_ms > 0);
	profile_release(&p);

	/*
	 * Tensor parallel t = 2 (Korthikanti Table 2, no sequence
	 * parallelism): s b h (10 + 24/t + 5 a s / (h t)), plus statistics.
	 */
	CHECK_INT_EQ(run(&p, &m, "V100-16GB", mb, 1, 2), 0);
	pt = &p.layers[1].pt[0];
	CHECK_INT_EQ(pt->stash_bytes[PROF_RC_NONE],
		     (int64_t)(s * h * (10 + 24 / 2.0) + 5 * a * s * s / 2 +
			       16 * s));
	CHECK_INT_EQ(pt->stash_bytes[PROF_RC_SELECTIVE],
		     (int64_t)(s * h * (10 + 24 / 2.0) + 16 * s));
	CHECK_NEAR(pt->fwd_flops, (24 * s * h * h + 4 * s * s * h) / 2, 0);
	/*
	 * Per GPU: half of the 12h^2 weights, half of the QKV (3h) and MLP
	 * up (4h) biases; the projection and MLP down biases (h each) and
	 * both LayerNorms (4h) whole: 6h^2 + 3.5h + 6h.
	 */
	CHECK_INT_EQ(p.layers[1].params, 6 * 2304LL * 2304 + 21888);
	profile_release(&p);

	/* Fused attention: the s x s stash becomes a fp32 LSE per row. */
	m.flash_attention = 1;
	CHECK_INT_EQ(run(&p, &m, "V100-16GB", mb, 1, 1), 0);
	pt = &p.layers[1].pt[0];
	CHECK_INT_EQ(pt->stash_bytes[PROF_RC_NONE],
		     (int64_t)(34 * s * h + 16 * s + 4 * a * s));
	CHECK_NEAR(pt->fwd_flops, 24 * s * h * h + 4 * s * s * h, 0);
	CHECK_INT_EQ(pt->work_bytes, (int64_t)(2 * s * 4 * h));
	profile_release(&p);

	/*
	 * No dropout: the masks (2 s b h + a s^2 b) and the dropped
	 * probabilities (2 a s^2 b) go: 32 s b h + 2 a s^2 b.
	 */
	m.flash_attention = 0;
	m.dropout = 0;
	CHECK_INT_EQ(run(&p, &m, "V100-16GB", mb, 1, 1), 0);
	CHECK_INT_EQ(p.layers[1].pt[0].stash_bytes[PROF_RC_NONE],
		     (int64_t)(32 * s * h + 2 * a * s * s + 16 * s));
	profile_release(&p);
}

/*
 * The embedding keeps the token ids (8 bytes each) and its dropout's mask,
 * a byte an element: under sequence parallelism the dropout runs after
 * the scatter to the sequence-parallel region, on 1/t of the tokens
 * (Megatron-Core language_model_embedding.py:143-156 at d98e8a6).  GPT
 * 2.2B at 512 tokens, t = 4: 8 x 512 + 512 x 2304 without, 8 x 512 +
 * 512 x 2304 / 4 with.
 */
static void
test_embed_sp(void)
{
	static const int mb[] = {1};
	struct profile p;
	struct model m;
	int sp;

	gpt22(&m);
	for (sp = 0; sp <= 1; sp++) {
		profile_init(&p);
		CHECK_INT_EQ(analytic_profile_sp(&p, &m,
						 catalog_find(&cat, "A100-80GB"),
						 mb, 1, 4, sp),
			     0);
		CHECK_INT_EQ(p.layers[0].kind, PROF_EMBED);
		CHECK_INT_EQ(p.layers[0].pt[0].stash_bytes[PROF_RC_NONE],
			     8 * 512 + 512 * 2304 / (sp ? 4 : 1));
		CHECK_INT_EQ(p.layers[0].pt[0].stash_bytes[PROF_RC_FULL],
			     8 * 512 + 512 * 2304 / (sp ? 4 : 1));
		profile_release(&p);
	}
}

/*
 * Sequence parallelism runs a block's two LayerNorms and its two fused
 * bias-dropout-adds on the rank's 1/t of the tokens (Korthikanti et al.
 * 2022, section 4.2.2).  GPT 2.2B, 8 x 512 tokens, t = 4, A100 (2039 GB/s
 * x 0.8), all of them memory-bound: forward, a LayerNorm moves 4 bytes an
 * element and 8 a token (fp32 mean and 1/std), a dropout-add 7 an
 * element (two 16-bit inputs, the output, the mask); backward 6 and 8,
 * and 5 + 6 (the mask's pass, the sum at the fork).  Without sequence
 * parallelism the block's times are 3/4 of those bytes longer, the
 * kernels the same.
 */
static void
test_norm_sp(void)
{
	static const int mb[] = {8};
	const double x = 8.0 * 512 * 2304, r = 8.0 * 512;
	const double bw = 2039e9 * 0.8;
	struct profile p[2];
	struct model m;
	int sp;

	gpt22(&m);
	for (sp = 0; sp <= 1; sp++) {
		profile_init(&p[sp]);
		CHECK_INT_EQ(analytic_profile_sp(&p[sp], &m,
						 catalog_find(&cat, "A100-80GB"),
						 mb, 1, 4, sp),
			     0);
	}
	CHECK_NEAR(p[0].layers[1].pt[0].fwd_ms - p[1].layers[1].pt[0].fwd_ms,
		   (2 * (4 * x + 8 * r) + 2 * 7 * x) * 0.75 / bw * 1e3, 1e-9);
	CHECK_NEAR(p[0].layers[1].pt[0].bwd_ms - p[1].layers[1].pt[0].bwd_ms,
		   (2 * (6 * x + 8 * r) + 2 * 11 * x) * 0.75 / bw * 1e3, 1e-9);
	profile_release(&p[0]);
	profile_release(&p[1]);
}

/*
 * torchtitan's models project Q, K and V, and the gated MLP's halves,
 * with separate linears (analytic_opts split_proj), whose input
 * gradients autograd sums, each n x h whole: Llama 3 8B at 8,192 tokens
 * on an H100 (3350 GB/s x 0.8, 3 us a kernel).  Compiled, one kernel per
 * sum reading its k inputs and writing one: 4 n h and 3 n h 16-bit
 * values; eagerly, pairwise adds of 3 n h each, two for Q, K, V and one
 * for the MLP.  Forward nothing.
 */
static void
test_split_proj(void)
{
	static const int mb[] = {1};
	const double nh = 8192.0 * 4096, bw = 3350e9 * 0.8, us = 3e-3;
	struct analytic_opts o;
	struct profile p[2];
	struct model m;
	int fz, k;

	llama8(&m);
	m.flash_attention = 1;
	for (fz = 0; fz <= 1; fz++) {
		for (k = 0; k < 2; k++) {
			analytic_opts_init(&o);
			o.fusions = fz ? ANALYTIC_FUSE_ALL : 0;
			o.split_proj = k;
			profile_init(&p[k]);
			CHECK_INT_EQ(analytic_profile_opts(
					     &p[k], &m,
					     catalog_find(&cat, "H100-SXM"), mb,
					     1, 1, 0, &o),
				     0);
		}
		CHECK_NEAR(p[1].layers[1].pt[0].fwd_ms,
			   p[0].layers[1].pt[0].fwd_ms, 0);
		CHECK_NEAR(p[1].layers[1].pt[0].bwd_ms -
				   p[0].layers[1].pt[0].bwd_ms,
			   fz ? (4 + 3) * nh * 2 / bw * 1e3 + 2 * us
			      : 3 * 3 * nh * 2 / bw * 1e3 + 3 * us,
			   1e-9);
		profile_release(&p[0]);
		profile_release(&p[1]);
	}
}

/*
 * DTensor's sequence-parallel collectives (analytic_opts sp_copy) copy
 * what they gather or scatter along the sequence, the whole n x h:
 * Llama 3 8B at 8,192 tokens, t = 8 with sequence parallelism, bf16, on
 * an H100 (3350 GB/s x 0.8, 3 us a kernel).  Every collective's (1):
 * forward two all-gathers and two reduce-scatters, 4 n h bytes each
 * (read and written), backward the same four; those async TP leaves
 * (2): the two backward reduce-scatters alone.  Their memory: the
 * concatenated copy of the input gradient beside it.
 */
static void
test_sp_copy(void)
{
	static const int mb[] = {1};
	const double nhb = 2 * 8192.0 * 4096 * 2, bw = 3350e9 * 0.8;
	const double us = 3e-3;
	struct analytic_opts o;
	struct profile p[3];
	struct model m;
	int k;

	llama8(&m);
	m.flash_attention = 1;
	for (k = 0; k < 3; k++) {
		analytic_opts_init(&o);
		o.sp_copy = k;
		profile_init(&p[k]);
		CHECK_INT_EQ(analytic_profile_opts(&p[k], &m,
						   catalog_find(&cat, "H100-SXM"),
						   mb, 1, 8, 1, &o),
			     0);
	}
	CHECK_NEAR(p[1].layers[1].pt[0].fwd_ms - p[0].layers[1].pt[0].fwd_ms,
		   4 * (nhb / bw * 1e3 + us), 1e-9);
	CHECK_NEAR(p[1].layers[1].pt[0].bwd_ms - p[0].layers[1].pt[0].bwd_ms,
		   4 * (nhb / bw * 1e3 + us), 1e-9);
	CHECK_NEAR(p[2].layers[1].pt[0].fwd_ms, p[0].layers[1].pt[0].fwd_ms, 0);
	CHECK_NEAR(p[2].layers[1].pt[0].bwd_ms - p[0].layers[1].pt[0].bwd_ms,
		   2 * (nhb / bw * 1e3 + us), 1e-9);
	/* The largest transient: the block's input gradient over the whole
	 * sequence, n h 16-bit (8192 x 4096 x 2), above the MLP's two inner
	 * gradients at t = 8 (2 x 8192 x 1792 x 2); with the copies, the
	 * concatenated one beside it */
	CHECK_INT_EQ(p[0].layers[1].pt[0].work_bytes, 67108864);
	CHECK_INT_EQ(p[1].layers[1].pt[0].work_bytes, 134217728);
	CHECK_INT_EQ(p[2].layers[1].pt[0].work_bytes, 134217728);
	for (k = 0; k < 3; k++)
		profile_release(&p[k]);
}

static void
test_llama(void)
{
	static const int mb[] = {1, 2};
	struct profile p;
	struct model m;
	const struct prof_point *pt;
	double n = 8192, h = 4096, f = 14336, s = 8192, st;

	llama8(&m);
	CHECK_INT_EQ(run(&p, &m, "h100", mb, 2, 1), 0);
	CHECK_STR_EQ(p.device, "H100-SXM");
	CHECK_STR_EQ(p.precision, "bf16");
	CHECK_INT_EQ(p.layers[1].params, 218112000);
	CHECK_INT_EQ(profile_params(&p), 8030261248LL);
	pt = &p.layers[1].pt[0];
	/*
	 * b = 1: two RMSNorm inputs + 1/std, QKV and MLP inputs, Q K V
	 * (6144 wide), LSE, context, gate, up and their product.
	 */
	st = 2 * (2 * n * h + 4 * n) + 2 * 2 * n * h + 2 * n * 6144 +
	     4 * 32 * s + 2 * n * h + 3 * 2 * n * f;
	CHECK_INT_EQ(pt->stash_bytes[PROF_RC_NONE], (int64_t)st);
	CHECK_INT_EQ(pt->stash_bytes[PROF_RC_SELECTIVE],
		     (int64_t)(st - 4 * 32 * s));
	CHECK_NEAR(pt->fwd_flops / (2 * n * h * 6144 + 4 * n * s * h +
				    2 * n * h * h + 6 * n * h * f),
		   1.0, 1e-14);
	CHECK_INT_EQ(pt->work_bytes, (int64_t)(2 * 2 * n * f));
	/* Untied head: the V x h matrix is its own. */
	CHECK_INT_EQ(p.layers[2].params, 128256LL * 4096 + 4096);
	profile_release(&p);

	/* GQA with t = 8: one KV head per GPU, vocabulary split after
	 * padding to a multiple of 128 x 8: 128256 -> 129024 rows */
	CHECK_INT_EQ(run(&p, &m, "H100-SXM", mb, 1, 8), 0);
	CHECK_INT_EQ(p.layers[1].params,
		     4096LL * 768 + 512LL * 4096 + 3 * 4096LL * 1792 +
			     2 * 4096);
	CHECK_INT_EQ(p.layers[0].params, 16128LL * 4096);
	profile_release(&p);
}

/*
 * FP8 runs the blocks' linear layers at the FP8 peak; the embedding and
 * the output layer stay 16-bit (Megatron keeps them out of TE's FP8), so
 * their times equal the bf16 model's exactly, and the head's GEMM is at
 * least its 16-bit roofline (it once ran at the FP8 peak).
 */
static void
test_fp8_parts(void)
{
	static const int mb[] = {1};
	struct profile p16, p8;
	struct model m;
	double n = 8192, h = 4096, V = 128256;

	llama8(&m);
	CHECK_INT_EQ(run(&p16, &m, "H100-SXM", mb, 1, 1), 0);
	m.precision = MODEL_FP8;
	CHECK_INT_EQ(run(&p8, &m, "H100-SXM", mb, 1, 1), 0);
	CHECK_NEAR(p8.layers[0].pt[0].fwd_ms, p16.layers[0].pt[0].fwd_ms, 0);
	CHECK_NEAR(p8.layers[0].pt[0].bwd_ms, p16.layers[0].pt[0].bwd_ms, 0);
	CHECK_NEAR(p8.layers[2].pt[0].fwd_ms, p16.layers[2].pt[0].fwd_ms, 0);
	CHECK_NEAR(p8.layers[2].pt[0].bwd_ms, p16.layers[2].pt[0].bwd_ms, 0);
	CHECK(p8.layers[2].pt[0].fwd_ms > 2 * n * h * V / (989.4e12 * 0.7) * 1e3);
	CHECK(p8.layers[1].pt[0].fwd_ms < 0.75 * p16.layers[1].pt[0].fwd_ms);
	profile_release(&p16);
	profile_release(&p8);
}

static int
run_fused(struct profile *p, const struct model *m, const int *mb, unsigned f)
{
	struct analytic_opts o;

	profile_init(p);
	analytic_opts_init(&o);
	o.fusions = f;
	return analytic_profile_opts(p, m, catalog_find(&cat, "H100-SXM"), mb,
				     1, 1, 0, &o);
}

/*
 * An RMSNorm unfused, by hand on Llama 3 8B at b = 1 on H100 (memory-
 * bound, 3350 GB/s x 0.8, 3 us a kernel), over x = n h values in r = n
 * rows: forward 36 x + 24 r bytes in 8 kernels (upcast 6 x, square 8 x,
 * mean 4 x + 4 r, eps and rsqrt 16 r, product 8 x + 4 r, downcast 6 x,
 * weight 4 x) against the fused 4 x + 4 r in one; backward 92 x + 24 r in
 * 14 against 6 x + 4 r.  A block has two, the head the final one; the
 * block keeps the fp32 input of each, 4 x bytes more.  A LayerNorm is one
 * kernel each way, fused or not.
 */
static void
test_fusion_norm(void)
{
	static const int mb[] = {1};
	struct profile pa, pn;
	struct model m;
	double bw = 3350e9 * 0.8, x = 8192.0 * 4096, r = 8192, d;
	double df = ((32 * x + 20 * r) / bw + 7 * 3e-6) * 1e3;
	double db = ((86 * x + 20 * r) / bw + 13 * 3e-6) * 1e3;
	int i;

	llama8(&m);
	CHECK_INT_EQ(run_fused(&pa, &m, mb, ANALYTIC_FUSE_ALL), 0);
	CHECK_INT_EQ(run_fused(&pn, &m, mb,
			       ANALYTIC_FUSE_ALL & ~ANALYTIC_FUSE_NORM), 0);
	d = pn.layers[1].pt[0].fwd_ms - pa.layers[1].pt[0].fwd_ms;
	CHECK_NEAR(d, 2 * df, 1e-9);
	d = pn.layers[1].pt[0].bwd_ms - pa.layers[1].pt[0].bwd_ms;
	CHECK_NEAR(d, 2 * db, 1e-9);
	d = pn.layers[2].pt[0].fwd_ms - pa.layers[2].pt[0].fwd_ms;
	CHECK_NEAR(d, df, 1e-9);
	CHECK_NEAR(pn.layers[1].pt[0].kernels - pa.layers[1].pt[0].kernels,
		   2 * (7 + 13), 0);
	CHECK_NEAR(pn.layers[1].pt[0].fwd_kernels -
			   pa.layers[1].pt[0].fwd_kernels,
		   2 * 7, 0);
	CHECK_INT_EQ(pn.layers[1].pt[0].stash_bytes[PROF_RC_NONE] -
			     pa.layers[1].pt[0].stash_bytes[PROF_RC_NONE],
		     (int64_t)(2 * 4 * x));
	profile_release(&pa);
	profile_release(&pn);
	/* recomputing the norms (Megatron's recompute_modules layernorm)
	 * frees what each keeps, the fp32 input too: the same stash left */
	for (i = 0; i < 2; i++) {
		struct analytic_opts o;

		profile_init(i ? &pn : &pa);
		analytic_opts_init(&o);
		o.fusions = i ? ANALYTIC_FUSE_ALL & ~ANALYTIC_FUSE_NORM
			      : ANALYTIC_FUSE_ALL;
		o.rc_modules = ANALYTIC_RC_LAYERNORM;
		CHECK_INT_EQ(analytic_profile_opts(i ? &pn : &pa, &m,
						   catalog_find(&cat, "H100-SXM"),
						   mb, 1, 1, 0, &o),
			     0);
	}
	CHECK_INT_EQ(pn.layers[1].pt[0].stash_bytes[PROF_RC_SELECTIVE],
		     pa.layers[1].pt[0].stash_bytes[PROF_RC_SELECTIVE]);
	CHECK(pn.layers[1].pt[0].stash_bytes[PROF_RC_NONE] >
	      pa.layers[1].pt[0].stash_bytes[PROF_RC_NONE]);
	profile_release(&pa);
	profile_release(&pn);

	m.norm = MODEL_LAYERNORM;
	CHECK_INT_EQ(run_fused(&pa, &m, mb, ANALYTIC_FUSE_ALL), 0);
	CHECK_INT_EQ(run_fused(&pn, &m, mb,
			       ANALYTIC_FUSE_ALL & ~ANALYTIC_FUSE_NORM), 0);
	CHECK_NEAR(pn.layers[1].pt[0].fwd_ms, pa.layers[1].pt[0].fwd_ms, 0);
	CHECK_NEAR(pn.layers[1].pt[0].bwd_ms, pa.layers[1].pt[0].bwd_ms, 0);
	profile_release(&pa);
	profile_release(&pn);
}

/*
 * Fusions, by hand on Llama 3 8B at b = 1 on H100 (every kernel involved
 * is memory-bound: 3350 GB/s x 0.8, 3 us a kernel).  Unfused, SwiGLU adds
 * one kernel and 2 n f e bytes forward (three kernels backward), rope ten
 * (q + k) e bytes and 11 kernels (9 backward), the cross-entropy 32 n V bytes and 5 kernels; dropout-add has
 * nothing to fuse without bias and dropout.  Squared ReLU is never fused:
 * against fused GeLU, 2 n f e bytes and one kernel more forward.
 */
static void
test_fusions(void)
{
	static const int mb[] = {1};
	struct profile pa, pn, pr;
	struct model m;
	double bw = 3350e9 * 0.8, n = 8192, f = 14336, e = 2, V = 128256;
	double q = n * 32 * 128, k = n * 8 * 128, d;
	unsigned x = 0;
	char buf[64];

	llama8(&m);
	CHECK_INT_EQ(run_fused(&pa, &m, mb, ANALYTIC_FUSE_ALL), 0);
	CHECK_INT_EQ(run_fused(&pn, &m, mb, ANALYTIC_FUSE_NORM), 0);
	CHECK_INT_EQ(run_fused(&pr, &m, mb, ANALYTIC_FUSE_ALL &
						~ANALYTIC_FUSE_ROPE), 0);
	d = pn.layers[1].pt[0].fwd_ms - pa.layers[1].pt[0].fwd_ms;
	CHECK_NEAR(d, ((2 * n * f * e + 10 * (q + k) * e) / bw +
		       12 * 3e-6) * 1e3, 1e-9);
	d = pr.layers[1].pt[0].fwd_ms - pa.layers[1].pt[0].fwd_ms;
	CHECK_NEAR(d, (10 * (q + k) * e / bw + 11 * 3e-6) * 1e3, 1e-9);
	d = pn.layers[2].pt[0].fwd_ms - pa.layers[2].pt[0].fwd_ms;
	CHECK_NEAR(d, (32 * n * V / bw + 5 * 3e-6) * 1e3, 1e-9);
	CHECK_NEAR(pn.layers[1].pt[0].kernels - pa.layers[1].pt[0].kernels,
		   (1 + 11) + (3 + 9), 0);
	CHECK_INT_EQ(pn.layers[1].pt[0].stash_bytes[PROF_RC_NONE] -
			     pa.layers[1].pt[0].stash_bytes[PROF_RC_NONE],
		     (int64_t)(n * f * e));
	/* the embedding has nothing fused */
	CHECK_NEAR(pn.layers[0].pt[0].fwd_ms, pa.layers[0].pt[0].fwd_ms, 0);
	profile_release(&pa);
	profile_release(&pn);
	profile_release(&pr);

	m.activation = MODEL_SQRELU;
	m.ffn_hidden = 16384;
	m.positions = MODEL_LEARNED;
	CHECK_INT_EQ(run_fused(&pa, &m, mb, ANALYTIC_FUSE_ALL), 0);
	CHECK_INT_EQ(run_fused(&pn, &m, mb, ANALYTIC_FUSE_ALL & ~ANALYTIC_FUSE_XENT), 0);
	CHECK_NEAR(pn.layers[1].pt[0].fwd_ms, pa.layers[1].pt[0].fwd_ms, 0);
	CHECK_NEAR(pn.layers[1].pt[0].bwd_ms, pa.layers[1].pt[0].bwd_ms, 0);
	m.activation = MODEL_GELU;
	CHECK_INT_EQ(run_fused(&pr, &m, mb, ANALYTIC_FUSE_ALL), 0);
	d = pa.layers[1].pt[0].fwd_ms - pr.layers[1].pt[0].fwd_ms;
	CHECK_NEAR(d, (2 * n * 16384 * e / bw + 3e-6) * 1e3, 1e-9);
	CHECK_INT_EQ(pa.layers[1].params, pr.layers[1].params);
	profile_release(&pa);
	profile_release(&pn);
	profile_release(&pr);

	/* names */
	CHECK_INT_EQ(analytic_fusions_parse("norm", &x), 0);
	CHECK_INT_EQ(x, ANALYTIC_FUSE_NORM);
	analytic_fusions_format(ANALYTIC_FUSE_ALL & ~ANALYTIC_FUSE_NORM, buf,
				sizeof(buf));
	CHECK_STR_EQ(buf, "act,dropadd,rope,xent");
	CHECK_INT_EQ(analytic_fusions_parse("rope,xent", &x), 0);
	CHECK_INT_EQ(x, ANALYTIC_FUSE_ROPE | ANALYTIC_FUSE_XENT);
	analytic_fusions_format(x, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "rope,xent");
	CHECK_INT_EQ(analytic_fusions_parse("none", &x), 0);
	CHECK_INT_EQ(x, 0);
	analytic_fusions_format(ANALYTIC_FUSE_ALL, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "all");
	{
		char *msg;

		cap_begin();
		CHECK_INT_EQ(analytic_fusions_parse("rope,", &x), -1);
		CHECK_INT_EQ(analytic_fusions_parse("gelu", &x), -1);
		msg = cap_end();
		CHECK(strstr(msg, "empty fusion name") != NULL);
		CHECK(strstr(msg, "unknown fusion 'gelu' (valid: act, dropadd, "
				  "rope, xent, norm, all, none)") != NULL);
		free(msg);
	}
}

/*
 * --attention-kernel fa2 on H100: the Llama 3 8B block at b = 1, s = 8192
 * runs its causal attention, 2 s^2 (32 x 128) FLOPs forward (half of
 * 4 s^2 h), at 28.2% of 989.4 TFLOP/s instead of cuDNN's 60.4%, each
 * times the tile share of its 64 query blocks (32 key tiles each, half a
 * tile cut on the diagonal, and FlashAttention-2's 1.4 tiles a block,
 * 32 / 33.9, against the catalog's 3.9 for cuDNN, 32 / 36.4): 1.040930
 * ms more forward.  Backward 2.5 times the FLOPs (five matmuls to two),
 * FlashAttention-2's at 0.882 of its forward's rate (attn_bwd_fa2),
 * cuDNN's at 0.825 of its forward's (attn_bwd): 2.745553 ms more.  On
 * A100 FlashAttention-2 is the native kind: nothing changes.
 */
static void
test_attn_kernel(void)
{
	static const int mb[] = {1};
	struct profile pa, pf;
	struct analytic_opts o;
	struct model m;
	double flops = 2.0 * 8192 * 8192 * 4096, d;

	llama8(&m);
	analytic_opts_init(&o);
	CHECK_INT_EQ(o.attn, ANALYTIC_ATTN_NATIVE);
	o.attn = ANALYTIC_ATTN_FA2;
	CHECK_INT_EQ(run(&pa, &m, "H100-SXM", mb, 1, 1), 0);
	profile_init(&pf);
	CHECK_INT_EQ(analytic_profile_opts(&pf, &m,
					   catalog_find(&cat, "H100-SXM"), mb,
					   1, 1, 0, &o),
		     0);
	d = flops / 989.4e12 * (33.9 / 32 / 0.282 - 36.4 / 32 / 0.604) * 1e3;
	CHECK_NEAR(d, 1.040930, 1e-6);
	CHECK_NEAR(pf.layers[1].pt[0].fwd_ms - pa.layers[1].pt[0].fwd_ms, d,
		   1e-9);
	d = 2.5 * flops / 989.4e12 *
	    (33.9 / 32 / (0.282 * 0.882) - 36.4 / 32 / (0.604 * 0.825)) * 1e3;
	CHECK_NEAR(d, 2.745553, 1e-6);
	CHECK_NEAR(pf.layers[1].pt[0].bwd_ms - pa.layers[1].pt[0].bwd_ms, d,
		   1e-9);
	CHECK_NEAR(pf.layers[2].pt[0].fwd_ms, pa.layers[2].pt[0].fwd_ms, 0);
	profile_release(&pa);
	profile_release(&pf);
	CHECK_INT_EQ(run(&pa, &m, "A100-80GB", mb, 1, 1), 0);
	profile_init(&pf);
	CHECK_INT_EQ(analytic_profile_opts(&pf, &m,
					   catalog_find(&cat, "A100-80GB"), mb,
					   1, 1, 0, &o),
		     0);
	CHECK_NEAR(pf.layers[1].pt[0].fwd_ms, pa.layers[1].pt[0].fwd_ms, 0);
	CHECK_NEAR(pf.layers[1].pt[0].bwd_ms, pa.layers[1].pt[0].bwd_ms, 0);
	profile_release(&pf);
	/* a catalog's attn_bwd_fa2 holds wherever it is given: 0.5 on A100
	 * doubles FA2's backward, 2.5 x 2 s^2 x 4096 FLOPs at 0.5 of 312
	 * TFLOP/s over the share 32 / 33.9 more, 9.333294 ms; the forward
	 * and the native kernel keep theirs (A100's native kernel is FA2
	 * too, at its attn_bwd) */
	{
		struct gpu_spec a = *catalog_find(&cat, "A100-80GB");

		a.attn_bwd_fa2 = 0.5;
		profile_init(&pf);
		CHECK_INT_EQ(analytic_profile_opts(&pf, &m, &a, mb, 1, 1, 0, &o),
			     0);
		CHECK_NEAR(pf.layers[1].pt[0].fwd_ms, pa.layers[1].pt[0].fwd_ms,
			   0);
		CHECK_NEAR(pf.layers[1].pt[0].bwd_ms - pa.layers[1].pt[0].bwd_ms,
			   2.5 * flops / (312e12 * 0.5) * 33.9 / 32 * 1e3, 1e-9);
		CHECK_NEAR(pf.layers[1].pt[0].bwd_ms - pa.layers[1].pt[0].bwd_ms,
			   9.333294, 1e-6);
		profile_release(&pf);
		profile_init(&pf);
		CHECK_INT_EQ(analytic_profile(&pf, &m, &a, mb, 1, 1), 0);
		CHECK_NEAR(pf.layers[1].pt[0].bwd_ms, pa.layers[1].pt[0].bwd_ms,
			   0);
		profile_release(&pf);
		/* ... as attn_bwd does for the native kernel, with or
		 * without an attn_block */
		a.attn_bwd_fa2 = 0;
		a.attn_bwd = 0.5;
		profile_init(&pf);
		CHECK_INT_EQ(analytic_profile(&pf, &m, &a, mb, 1, 1), 0);
		CHECK_NEAR(pf.layers[1].pt[0].bwd_ms - pa.layers[1].pt[0].bwd_ms,
			   9.333294, 1e-6);
		profile_release(&pf);
	}
	profile_release(&pa);
	CHECK_STR_EQ(analytic_attn_names[ANALYTIC_ATTN_FA2], "fa2");
}

/*
 * --attention-kernel triton (llm-foundry's attn_impl triton): the
 * FlashAttention-2-class rate over 1.4.  H100: 0.282 / 1.4 = 0.201 of the
 * peak; A100 (no attn_eff_fa2: its native 0.5) 0.5 / 1.4 = 0.357142857.
 * The Llama 3 8B block at b = 1, s = 8192 on A100: its causal attention,
 * 2 s^2 (32 x 128) FLOPs forward, at 0.357142857 of 312 TFLOP/s instead
 * of 0.5, at the tile share 32 / 33.9 (test_attn_kernel): 2 x 8192^2 x
 * 4096 / 312e12 x (1.4 / 0.5 - 1 / 0.5) x 33.9 / 32 = 1.493327 ms more
 * forward, 2.5 times that backward.
 */
static void
test_attn_triton(void)
{
	static const int mb[] = {1};
	const struct gpu_spec *a100 = catalog_find(&cat, "A100-80GB");
	struct profile pa, pt;
	struct analytic_opts o;
	struct model m;

	CHECK_STR_EQ(analytic_attn_names[ANALYTIC_ATTN_TRITON], "triton");
	CHECK_NEAR(analytic_attn_eff(catalog_find(&cat, "H100-SXM"),
				     ANALYTIC_ATTN_TRITON),
		   0.282 / 1.4, 1e-12);
	CHECK_NEAR(analytic_attn_eff(a100, ANALYTIC_ATTN_TRITON),
		   0.357142857, 1e-9);
	CHECK_NEAR(analytic_attn_eff(a100, ANALYTIC_ATTN_NATIVE), 0.5, 0);
	llama8(&m);
	analytic_opts_init(&o);
	o.attn = ANALYTIC_ATTN_TRITON;
	CHECK_INT_EQ(run(&pa, &m, "A100-80GB", mb, 1, 1), 0);
	profile_init(&pt);
	CHECK_INT_EQ(analytic_profile_opts(&pt, &m, a100, mb, 1, 1, 0, &o), 0);
	CHECK_NEAR(pt.layers[1].pt[0].fwd_ms - pa.layers[1].pt[0].fwd_ms,
		   1.493327, 1e-6);
	CHECK_NEAR(pt.layers[1].pt[0].bwd_ms - pa.layers[1].pt[0].bwd_ms,
		   2.5 * 1.493327, 1e-5);
	profile_release(&pa);
	profile_release(&pt);
}

/*
 * What a score costs a fused attention kernel besides its matmuls.
 * cuDNN's 16-bit kernel (the native one of the Hopper and Blackwell
 * parts) at the catalog's floors, fitted on NVIDIA's timings of it
 * (bench/attention.sh): on B200 460 FLOPs forward and 840 backward.
 * Llama 3 8B with 64 heads of 64, b = 1, s = 8192, causal: bas = 64 x
 * 8192^2 pairs in full, half of them computed; the forward's 4 x 64
 * FLOPs a score wait for the floor's 460, the backward's 10 x 64 for
 * 840.  The forward takes bas / 2 x (460 - 256) / (2250e12 x 0.490) s
 * more than without the floors, over cuDNN's tile share 32 / 36.4
 * (test_attn_kernel): 0.451994 ms; the backward bas / 2 x (840 - 640)
 * at 0.798 of that rate (attn_bwd): 0.555303 ms.  At heads of 128 the
 * matmuls take longer than both floors: nothing changes.
 * FlashAttention-2 on the same part waits for the exponentials instead
 * (the catalog's flops_per_exp: 8192 tensor FLOPs a clock per SM, 16
 * exponentials, 512), forward and backward alike: bas / 2 x (512 - 256)
 * more forward, over its tile share 32 / 33.9, 0.528252 ms; the
 * backward's 640 do not wait.
 */
static void
test_attn_exp(void)
{
	static const int mb[] = {1};
	struct gpu_spec nob = *catalog_find(&cat, "B200");
	double bas2 = 64.0 * 8192 * 8192 / 2, rate = 2250e12 * 0.490;
	struct analytic_opts o;
	struct profile pa, pb;
	struct model m;
	int i;

	CHECK_NEAR(nob.score_fwd, 460, 0);
	CHECK_NEAR(nob.score_bwd, 840, 0);
	CHECK_NEAR(nob.attn_bwd, 0.798, 0);
	CHECK_NEAR(nob.flops_per_exp, 512, 0);
	nob.score_fwd = nob.score_bwd = nob.flops_per_exp = 0;
	llama8(&m);
	m.flash_attention = 1;
	for (i = 0; i < 2; i++) {
		if (i)
			m.heads = 64, m.kv_heads = 8;
		CHECK_INT_EQ(run(&pa, &m, "B200", mb, 1, 1), 0);
		profile_init(&pb);
		CHECK_INT_EQ(analytic_profile(&pb, &m, &nob, mb, 1, 1), 0);
		CHECK_NEAR(pa.layers[1].pt[0].fwd_ms - pb.layers[1].pt[0].fwd_ms,
			   i ? bas2 * (460 - 256) / rate * 36.4 / 32 * 1e3 : 0,
			   1e-9);
		CHECK_NEAR(pa.layers[1].pt[0].bwd_ms - pb.layers[1].pt[0].bwd_ms,
			   i ? bas2 * (840 - 640) / (rate * 0.798) * 36.4 / 32 *
					   1e3
			     : 0,
			   1e-9);
		if (i) {
			CHECK_NEAR(pa.layers[1].pt[0].fwd_ms -
					   pb.layers[1].pt[0].fwd_ms,
				   0.451994, 1e-6);
			CHECK_NEAR(pa.layers[1].pt[0].bwd_ms -
					   pb.layers[1].pt[0].bwd_ms,
				   0.555303, 1e-6);
		}
		profile_release(&pa);
		profile_release(&pb);
	}
	/* FlashAttention-2 at heads of 64: the exponentials' bound */
	analytic_opts_init(&o);
	o.attn = ANALYTIC_ATTN_FA2;
	profile_init(&pa);
	profile_init(&pb);
	CHECK_INT_EQ(analytic_profile_opts(&pa, &m, catalog_find(&cat, "B200"),
					   mb, 1, 1, 0, &o),
		     0);
	CHECK_INT_EQ(analytic_profile_opts(&pb, &m, &nob, mb, 1, 1, 0, &o), 0);
	CHECK_NEAR(pa.layers[1].pt[0].fwd_ms - pb.layers[1].pt[0].fwd_ms,
		   bas2 * (512 - 256) / rate * 33.9 / 32 * 1e3, 1e-9);
	CHECK_NEAR(pa.layers[1].pt[0].fwd_ms - pb.layers[1].pt[0].fwd_ms,
		   0.528252, 1e-6);
	CHECK_NEAR(pa.layers[1].pt[0].bwd_ms, pb.layers[1].pt[0].bwd_ms, 1e-12);
	profile_release(&pa);
	profile_release(&pb);
}

/*
 * The tile share of a fused attention kernel (attn_tile_share()): the
 * Llama 3 8B block at b = 1 on H100, its forward attention 2 s^2 x 4096
 * FLOPs at 0.604 of 989.4 TFLOP/s, over u / (u + 0.5 + 3.9) with u =
 * s / 256 key tiles a query block and cuDNN's block cost (the catalog's
 * attn_block): 8 / 12.4 at s = 2048, 32 / 36.4 at 8192.  Doubling the
 * kernel's rate halves that time: the difference is half of it, 2 x
 * 2048^2 x 4096 / (989.4e12 x 0.604) x 12.4 / 8 / 2 = 0.044560 ms and
 * 0.523218 ms at 8192; per FLOP the short sequence takes (12.4 / 8) /
 * (36.4 / 32) = 1.362637 times as long.  A window of 128 on every layer
 * at s = 8192: 8192 x 128 x (1 - 128 / 16384) pairs a head, u = 1 - 128
 * / 16384 = 0.992188 key tiles a block, one tile cut on the window's two
 * edges: 0.168390 of the rate, 0.084695 ms.  Without the catalog's block
 * cost the kernel pays FlashAttention-2's, 1.4.
 */
static void
test_attn_tiles(void)
{
	static const int mb[] = {1};
	struct gpu_spec fast = *catalog_find(&cat, "H100-SXM");
	struct profile pa, pb;
	struct model m;
	double d[2], want;
	int i;

	fast.attn_eff *= 2;
	llama8(&m);
	m.flash_attention = 1;
	for (i = 0; i < 2; i++) {
		double s = i ? 8192 : 2048, u = s / 256;

		m.seq_len = (int64_t)s;
		CHECK_INT_EQ(run(&pa, &m, "H100-SXM", mb, 1, 1), 0);
		profile_init(&pb);
		CHECK_INT_EQ(analytic_profile(&pb, &m, &fast, mb, 1, 1), 0);
		d[i] = pa.layers[1].pt[0].fwd_ms - pb.layers[1].pt[0].fwd_ms;
		want = 2 * s * s * 4096 / (989.4e12 * 0.604) *
		       (u + 4.4) / u / 2 * 1e3;
		CHECK_NEAR(d[i], want, 1e-9);
		profile_release(&pa);
		profile_release(&pb);
	}
	CHECK_NEAR(d[0], 0.044560, 1e-6);
	CHECK_NEAR(d[1], 0.523218, 1e-6);
	CHECK_NEAR(d[0] * 16 / d[1], 1.362637, 1e-6);
	/* a window of 128 tokens on every layer at s = 8192 */
	m.window = 128;
	CHECK_INT_EQ(run(&pa, &m, "H100-SXM", mb, 1, 1), 0);
	profile_init(&pb);
	CHECK_INT_EQ(analytic_profile(&pb, &m, &fast, mb, 1, 1), 0);
	{
		double u = 1 - 128.0 / 16384;
		double pairs = 8192.0 * 128 * u;

		CHECK_NEAR(u / (u + 1 + 3.9), 0.168390, 1e-6);
		CHECK_NEAR(pa.layers[1].pt[0].fwd_ms -
				   pb.layers[1].pt[0].fwd_ms,
			   4 * pairs * 4096 / (989.4e12 * 0.604) * (u + 4.9) /
				   u / 2 * 1e3,
			   1e-9);
		CHECK_NEAR(pa.layers[1].pt[0].fwd_ms -
				   pb.layers[1].pt[0].fwd_ms,
			   0.084695, 1e-6);
	}
	profile_release(&pa);
	profile_release(&pb);
	/* without the catalog's block cost: FlashAttention-2's, 32 / 33.9 */
	{
		struct gpu_spec fa = *catalog_find(&cat, "H100-SXM");

		fa.attn_block = 0;
		fast.attn_block = 0;
		m.window = 0;
		profile_init(&pa);
		profile_init(&pb);
		CHECK_INT_EQ(analytic_profile(&pa, &m, &fa, mb, 1, 1), 0);
		CHECK_INT_EQ(analytic_profile(&pb, &m, &fast, mb, 1, 1), 0);
		CHECK_NEAR(pa.layers[1].pt[0].fwd_ms -
				   pb.layers[1].pt[0].fwd_ms,
			   2 * 8192.0 * 8192 * 4096 / (989.4e12 * 0.604) *
				   33.9 / 32 / 2 * 1e3,
			   1e-9);
		profile_release(&pa);
		profile_release(&pb);
	}
}

/*
 * Full recomputation that stops early (analytic_opts rc_early_stop,
 * PyTorch's non-reentrant checkpoint): the Llama 3 8B block at b = 1, s
 * = 8192 on H100 leaves out its MLP's last GEMM, 8192 x 14336 x 4096
 * (2 x 8192 x 14336 x 4096 FLOPs at 989.4e12 x 0.564 x 0.961116: 1024
 * tiles of 128 x 256 in 8 waves of 132, 1024 / 1056, and K 14336 /
 * 14464; 1.793829 ms + 3 us), and the residual add after it (3 x 8192
 * x 4096 bf16 values at 2680 GB/s, 0.075122 ms + 3 us): 1.874952 ms
 * less.  Its forward, backward and stash are the same; with dropout
 * the add's mask needs the GEMM's output, and nothing is left out.
 * Under tensor parallelism the reduction after that GEMM goes too.
 */
static void
test_rc_early_stop(void)
{
	static const int mb[] = {1};
	const struct gpu_spec *h100 = catalog_find(&cat, "H100-SXM");
	struct profile pa, pe;
	struct analytic_opts o;
	struct model m;
	const struct prof_point *a, *e;

	llama8(&m);
	m.flash_attention = 1;
	analytic_opts_init(&o);
	CHECK_INT_EQ(o.rc_early_stop, 0);
	profile_init(&pa);
	CHECK_INT_EQ(analytic_profile_opts(&pa, &m, h100, mb, 1, 1, 0, &o), 0);
	o.rc_early_stop = 1;
	profile_init(&pe);
	CHECK_INT_EQ(analytic_profile_opts(&pe, &m, h100, mb, 1, 1, 0, &o), 0);
	a = &pa.layers[1].pt[0];
	e = &pe.layers[1].pt[0];
	CHECK_NEAR(a->recomp_ms[PROF_RC_FULL], a->fwd_ms, 0);
	CHECK_NEAR(a->recomp_ms[PROF_RC_FULL] - e->recomp_ms[PROF_RC_FULL],
		   analytic_gemm_ms(h100, 0, 8192, 14336, 4096) + 0.078122,
		   1e-6);
	CHECK_NEAR(a->recomp_ms[PROF_RC_FULL] - e->recomp_ms[PROF_RC_FULL],
		   1.874952, 1e-6);
	CHECK_NEAR(e->fwd_ms, a->fwd_ms, 0);
	CHECK_NEAR(e->bwd_ms, a->bwd_ms, 0);
	CHECK_NEAR(e->recomp_ms[PROF_RC_SELECTIVE],
		   a->recomp_ms[PROF_RC_SELECTIVE], 0);
	CHECK_INT_EQ(e->stash_bytes[PROF_RC_FULL],
		     a->stash_bytes[PROF_RC_FULL]);
	profile_release(&pa);
	profile_release(&pe);
	/* tensor parallelism: the reduction after that GEMM is left out
	 * too, a reduce-scatter under sequence parallelism (1.5 of the
	 * forward's 2 all-reduces' worth again), else an all-reduce (1) */
	{
		struct chain c;
		int sp;

		for (sp = 0; sp < 2; sp++) {
			profile_init(&pe);
			CHECK_INT_EQ(analytic_profile_opts(&pe, &m, h100, mb, 1,
							   2, sp, &o),
				     0);
			CHECK_INT_EQ(pe.layers[1].pt[0].sel_rerun,
				     sp ? PROF_RERUN_EARLY_RS
					: PROF_RERUN_EARLY_AR);
			CHECK(chain_build(&c, &pe) == 0);
			CHECK_NEAR(chain_tp_count(&c, 0, PROF_RC_FULL, 1, 1) -
					   chain_tp_count(&c, 0, PROF_RC_NONE,
							  1, 1),
				   sp ? 1.5 : 1, 0);
			chain_release(&c);
			profile_release(&pe);
		}
	}
	/* dropout: the whole forward again */
	m.dropout = 1;
	profile_init(&pe);
	CHECK_INT_EQ(analytic_profile_opts(&pe, &m, h100, mb, 1, 1, 0, &o), 0);
	CHECK_NEAR(pe.layers[1].pt[0].recomp_ms[PROF_RC_FULL],
		   pe.layers[1].pt[0].fwd_ms, 0);
	CHECK_INT_EQ(pe.layers[1].pt[0].sel_rerun, 0);
	profile_release(&pe);
}

/*
 * FP8 attention (--attention-kernel fp8): the attention matmuls at the
 * FP8 peak.  On a GPU whose FP8 peak is its 16-bit one nothing changes;
 * on B200 (twice) the block's backward gets faster, its forward not: at
 * heads of 128 the 16-bit forward already balances its matmuls against
 * its exponentials (test_attn_exp), which FP8 does not speed; the
 * embedding and the head, which have no attention, do not move.  Under
 * a window of 128 its backward is the whole causal band's (cuDNN's FP8
 * backward computes the tiles the window masks): the same as without the
 * window, where the 16-bit kernel's is less; the forward keeps to the
 * window either way.  A 16-bit model is refused.
 */
static void
test_attn_fp8(void)
{
	static const int mb[] = {1};
	struct gpu_spec same = *catalog_find(&cat, "B200");
	const struct gpu_spec *b200 = catalog_find(&cat, "B200");
	struct profile pn, pf;
	struct analytic_opts o;
	struct model m;

	CHECK_STR_EQ(analytic_attn_names[ANALYTIC_ATTN_FP8], "fp8");
	llama8(&m);
	m.precision = MODEL_FP8;
	analytic_opts_init(&o);
	same.tflops8 = same.tflops16;
	profile_init(&pn);
	profile_init(&pf);
	CHECK_INT_EQ(analytic_profile_opts(&pn, &m, &same, mb, 1, 1, 0, &o),
		     0);
	o.attn = ANALYTIC_ATTN_FP8;
	CHECK_INT_EQ(analytic_profile_opts(&pf, &m, &same, mb, 1, 1, 0, &o),
		     0);
	CHECK_NEAR(pf.layers[1].pt[0].fwd_ms, pn.layers[1].pt[0].fwd_ms, 0);
	profile_release(&pn);
	profile_release(&pf);
	profile_init(&pn);
	profile_init(&pf);
	o.attn = ANALYTIC_ATTN_NATIVE;
	CHECK_INT_EQ(analytic_profile_opts(&pn, &m, b200, mb, 1, 1, 0, &o), 0);
	o.attn = ANALYTIC_ATTN_FP8;
	CHECK_INT_EQ(analytic_profile_opts(&pf, &m, b200, mb, 1, 1, 0, &o), 0);
	CHECK_NEAR(pf.layers[1].pt[0].fwd_ms, pn.layers[1].pt[0].fwd_ms, 1e-12);
	CHECK(pf.layers[1].pt[0].bwd_ms < pn.layers[1].pt[0].bwd_ms);
	CHECK_NEAR(pf.layers[0].pt[0].fwd_ms, pn.layers[0].pt[0].fwd_ms, 0);
	CHECK_NEAR(pf.layers[2].pt[0].fwd_ms, pn.layers[2].pt[0].fwd_ms, 0);
	profile_release(&pn);
	profile_release(&pf);
	/* a window of 128 on every layer (pf: FP8 attention, pn: with
	 * the window, pw: without it) */
	{
		struct profile pw;
		struct model w = m;

		w.window = 128;
		profile_init(&pn);
		profile_init(&pf);
		profile_init(&pw);
		CHECK_INT_EQ(analytic_profile_opts(&pw, &m, b200, mb, 1, 1, 0,
						   &o), 0);
		CHECK_INT_EQ(analytic_profile_opts(&pf, &w, b200, mb, 1, 1, 0,
						   &o), 0);
		CHECK_NEAR(pf.layers[1].pt[0].bwd_ms,
			   pw.layers[1].pt[0].bwd_ms, 1e-12);
		CHECK(pf.layers[1].pt[0].fwd_ms < pw.layers[1].pt[0].fwd_ms);
		o.attn = ANALYTIC_ATTN_NATIVE;
		CHECK_INT_EQ(analytic_profile_opts(&pn, &w, b200, mb, 1, 1, 0,
						   &o), 0);
		CHECK(pn.layers[1].pt[0].bwd_ms < pf.layers[1].pt[0].bwd_ms);
		CHECK_NEAR(pn.layers[1].pt[0].fwd_ms,
			   pf.layers[1].pt[0].fwd_ms, 1e-12);
		o.attn = ANALYTIC_ATTN_FP8;
		profile_release(&pn);
		profile_release(&pf);
		profile_release(&pw);
	}
	m.precision = MODEL_BF16;
	profile_init(&pf);
	CHECK_ERR(analytic_profile_opts(&pf, &m, b200, mb, 1, 1, 0, &o),
		  "pd2bw: FP8 attention needs an FP8 model (--precision fp8) "
		  "on a GPU with FP8 tensor cores");
	profile_release(&pf);
}

/*
 * NVFP4 against the delayed FP8 recipe, on a B200 whose NVFP4 GEMMs run
 * at its FP8 rate (so that only the casts differ; the GEMMs are compute
 * bound, their operands' bytes do not count), Llama 3 8B block at b = 1,
 * forward.  Each of the four GEMM inputs (QKV and MLP-in n h after a
 * norm, projection n h, MLP-out n f) takes two NVFP4 passes: the amaxes
 * (read 2 bytes a value) and the quantisation (read 2, write two copies
 * of 0.5625): 5.125 bytes, two kernels.  Delayed, on Blackwell (one
 * per-tensor copy, no transpose): nothing after a norm, a cast of 2 + 1
 * bytes elsewhere (one kernel).  The difference: 12.375 n h + 2.125 n f
 * bytes, 6 kernels.
 */
static void
test_nvfp4(void)
{
	static const int mb[] = {1};
	struct profile pd, p4;
	struct model m;
	struct analytic_opts o;
	struct gpu_spec same = *catalog_find(&cat, "B200");
	double bw = 7700e9 * 0.8, n = 8192, h = 4096, f = 14336;

	same.tflops4 = same.tflops8;
	same.gemm_eff4 = same.gemm_eff8;
	llama8(&m);
	analytic_opts_init(&o);
	profile_init(&pd);
	profile_init(&p4);
	m.precision = MODEL_FP8;
	CHECK_INT_EQ(analytic_profile_opts(&pd, &m, &same, mb, 1, 1, 0, &o), 0);
	m.precision = MODEL_NVFP4;
	CHECK_INT_EQ(analytic_profile_opts(&p4, &m, &same, mb, 1, 1, 0, &o), 0);
	CHECK_NEAR(p4.layers[1].pt[0].fwd_ms - pd.layers[1].pt[0].fwd_ms,
		   ((12.375 * n * h + 2.125 * n * f) / bw + 6 * 3e-6) * 1e3,
		   1e-9);
	/* kernels, forward and backward: the four dgrads' grad outputs
	 * take two passes too, against delayed's one */
	CHECK_NEAR(p4.layers[1].pt[0].kernels - pd.layers[1].pt[0].kernels,
		   10, 0);
	/* the head stays 16-bit */
	CHECK_NEAR(p4.layers[2].pt[0].fwd_ms, pd.layers[2].pt[0].fwd_ms, 0);
	profile_release(&p4);
	/* the catalog's B200: 9 PFLOP/s at 0.512, faster GEMMs than FP8's
	 * 4.5 at 0.477 */
	profile_init(&p4);
	CHECK_INT_EQ(analytic_profile_opts(&p4, &m, catalog_find(&cat, "B200"),
					   mb, 1, 1, 0, &o), 0);
	CHECK(p4.layers[1].pt[0].fwd_ms < pd.layers[1].pt[0].fwd_ms * 0.8);
	profile_release(&p4);
	/* sequence parallelism gathers NVFP4: forward the rowwise copy,
	 * backward the grad outputs' two copies (0.5625 bytes a value each),
	 * the reduce-scatters 16-bit: of a block's all-gather +
	 * reduce-scatter pairs, (1 + 1.5 x 0.5625 / 2) / 2 */
	profile_init(&p4);
	CHECK_INT_EQ(analytic_profile_opts(&p4, &m, &same, mb, 1, 2, 1, &o), 0);
	CHECK_NEAR(p4.tp_block_bytes, 0.7109375, 0);
	profile_release(&p4);
	/* Hopper has no NVFP4 tensor cores */
	profile_init(&p4);
	CHECK_ERR(analytic_profile_opts(&p4, &m, catalog_find(&cat, "H100-SXM"),
					mb, 1, 1, 0, &o),
		  "pd2bw: GPU 'H100-SXM' has no NVFP4 tensor cores (model "
		  "'llama-3-8b' trains in nvfp4; Blackwell has them)");
	profile_release(&p4);
	profile_release(&pd);
}

/*
 * FP8 recipes on B200 (3 us a kernel, 7700 GB/s x 0.8), Llama 3 8B block
 * at b = 1 (no tensor parallelism), forward.  Two GEMM inputs come from
 * a norm (QKV, MLP in: n h elements each), two are quantised by a pass
 * of their own (projection: n h; MLP out: n f).  On Blackwell a
 * per-tensor copy needs no transpose: after a delayed-recipe norm
 * nothing is left to do, and a pass of its own reads 2 and writes 1
 * byte a value.  Against delayed:
 *  - tensorwise: after a norm, a quantising pass (read 2, write 1 byte)
 *    and its scale kernel: 3 bytes a value, two kernels; a pass of its
 *    own gains an amax pass (2 bytes, one kernel) and a one-thread kernel
 *    zeroing the amax (4 bytes), every quantisation a one-thread kernel
 *    turning the amax into the scale (8 bytes): 3 (2 n h) + 2 (n h + n f)
 *    + 2 x 4 + 4 x 8 bytes and ten kernels;
 *  - mxfp8: after a norm, the quantising pass (read 2, write the two
 *    copies, 2, and their E8M0 scales, 2/32 byte a value): 4 + 1/16
 *    bytes a value, a kernel; a pass of its own: the second copy and the
 *    scales, (1 + 1/16) (n h + n f).
 */
/* A block's tensor-parallel bytes against 16-bit ones (tp_block_bytes)
 * at microbatch 1. */
static double
tp_bytes(const struct model *m, const struct gpu_spec *g, int tp, int sp,
	 const struct analytic_opts *o)
{
	static const int mb[] = {1};
	struct profile p;
	double x;

	profile_init(&p);
	CHECK_INT_EQ(analytic_profile_opts(&p, m, g, mb, 1, tp, sp, o), 0);
	x = p.tp_block_bytes;
	profile_release(&p);
	return x;
}

/* What a block's weight-gradient GEMMs hide of its backward tensor-
 * parallel traffic (tp_block_hidden): nothing unless the runtime starts
 * the column-parallel dgrad reductions beside them (tp_dgrad); then two
 * all-reduces without sequence parallelism, the two reduce-scatters
 * (one all-reduce's worth) with it, none where userbuffers overlap the
 * sequence-parallel traffic instead (tp_ub), except in NVFP4, which
 * they do not carry; nothing at TP 1. */
static void
test_tp_dgrad(void)
{
	static const int mb[] = {1};
	const struct gpu_spec *g = catalog_find(&cat, "H100-SXM");
	struct analytic_opts o;
	struct model m;
	struct {
		int dgrad, ub, tp, sp, nvfp4;
		double hid;
	} cs[] = {
		{0, 0, 8, 1, 0, 0}, {1, 0, 8, 0, 0, 2}, {1, 0, 8, 1, 0, 1},
		{1, 1, 8, 1, 0, 0}, {1, 1, 8, 0, 0, 2}, {1, 1, 8, 1, 1, 1},
		{1, 0, 1, 0, 0, 0},
	};
	size_t i;

	llama8(&m);
	for (i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		struct profile p;
		const struct gpu_spec *gg =
			cs[i].nvfp4 ? catalog_find(&cat, "GB200") : g;

		analytic_opts_init(&o);
		o.tp_dgrad = cs[i].dgrad;
		o.tp_ub = cs[i].ub;
		m.precision = cs[i].nvfp4 ? MODEL_NVFP4 : MODEL_BF16;
		profile_init(&p);
		CHECK_INT_EQ(analytic_profile_opts(&p, &m, gg, mb, 1, cs[i].tp,
						   cs[i].sp, &o),
			     0);
		CHECK_NEAR(p.tp_block_hidden, cs[i].hid, 0);
		profile_release(&p);
	}
}

/*
 * A te.Linear forward as Transformer Engine's GEMM benchmark times it
 * (analytic_linear_ms()), NVFP4 on B300 (13.5 PFLOP/s at 0.370, 8 TB/s at
 * 0.8, 3 us a kernel), M x K x N = 15872 x 4096 x 4096: the GEMM at
 * 13.5e15 x 0.370 x the shape's share, its launch; quantising, the input's
 * x = 65,011,712 values in two passes (read 2 bytes; then read 2, write
 * two copies of 0.5625) and the weight's 16,777,216 alike.
 */
static void
test_linear_ms(void)
{
	const struct gpu_spec *g = catalog_find(&cat, "B300");
	double M = 15872, K = 4096, N = 4096, bw = 8000e9 * 0.8, us = 3e-6;
	double raw = 2 * M * K * N /
			     (13500e12 * 0.370 *
			      analytic_gemm_shape_eff(g->sms, M, K, N)) +
		     us;
	double x = M * K, w = K * N;

	/* the GEMM moves its 4-bit operands and 16-bit output: below the
	 * FLOPs' time */
	CHECK_NEAR(analytic_linear_ms(g, MODEL_NVFP4, FP8_DELAYED, M, K, N, 0),
		   raw * 1e3, 1e-9);
	CHECK_NEAR(analytic_linear_ms(g, MODEL_NVFP4, FP8_DELAYED, M, K, N, 1),
		   (raw + (2 * x + 2 * x + 1.125 * x) / bw + 2 * us +
		    (2 * w + 2 * w + 1.125 * w) / bw + 2 * us) *
			   1e3,
		   1e-9);
	/* 16-bit: nothing to quantise */
	CHECK_NEAR(analytic_linear_ms(g, MODEL_BF16, FP8_DELAYED, M, K, N, 1),
		   analytic_gemm_ms(g, 0, M, K, N), 0);
}

static void
test_fp8_recipes(void)
{
	static const int mb[] = {1};
	struct profile pd, pt, px;
	struct model m;
	struct analytic_opts o;
	/* MXFP8 GEMMs at the per-tensor rate, so that only the scales
	 * differ (the catalog's own B200 runs them slower: below) */
	struct gpu_spec same = *catalog_find(&cat, "B200");
	const struct gpu_spec *b200 = &same;
	struct profile pb;
	double bw = 7700e9 * 0.8, n = 8192, h = 4096, f = 14336;
	double own = n * (h + f);

	same.gemm_eff8mx = 0;

	llama8(&m);
	m.precision = MODEL_FP8;
	analytic_opts_init(&o);
	profile_init(&pd);
	profile_init(&pt);
	profile_init(&px);
	CHECK_INT_EQ(analytic_profile_opts(&pd, &m, b200, mb, 1, 1, 0, &o), 0);
	o.fp8_recipe = FP8_TENSORWISE;
	CHECK_INT_EQ(analytic_profile_opts(&pt, &m, b200, mb, 1, 1, 0, &o), 0);
	o.fp8_recipe = FP8_MXFP8;
	CHECK_INT_EQ(analytic_profile_opts(&px, &m, b200, mb, 1, 1, 0, &o), 0);
	CHECK_NEAR(pt.layers[1].pt[0].fwd_ms - pd.layers[1].pt[0].fwd_ms,
		   ((6 * n * h + 2 * own + 40) / bw + 10 * 3e-6) * 1e3, 1e-9);
	CHECK_NEAR(px.layers[1].pt[0].fwd_ms - pd.layers[1].pt[0].fwd_ms,
		   (((4 + 1.0 / 16) * 2 * n * h + (1 + 1.0 / 16) * own) / bw +
		    2 * 3e-6) * 1e3, 1e-9);
	/* the catalog's B200: MXFP8 GEMMs at gemm_eff_mxfp8 < gemm_eff8 */
	profile_init(&pb);
	CHECK(catalog_find(&cat, "B200")->gemm_eff8mx <
	      catalog_find(&cat, "B200")->gemm_eff8);
	CHECK_INT_EQ(analytic_profile_opts(&pb, &m, catalog_find(&cat, "B200"),
					   mb, 1, 1, 0, &o), 0);
	/* slower, by less than the GEMMs' ratio (the rest is not GEMMs) */
	CHECK(pb.layers[1].pt[0].fwd_ms > px.layers[1].pt[0].fwd_ms * 1.001);
	CHECK(pb.layers[1].pt[0].fwd_ms <
	      px.layers[1].pt[0].fwd_ms * b200->gemm_eff8 /
		      catalog_find(&cat, "B200")->gemm_eff8mx);
	profile_release(&pb);
	/* the head is 16-bit: no recipe touches it */
	CHECK_NEAR(pt.layers[2].pt[0].fwd_ms, pd.layers[2].pt[0].fwd_ms, 0);
	/* ... unless the runtime runs it in MXFP8 (fp8_output_proj): its
	 * GEMMs at twice the 16-bit rate, nearly all of the head, the
	 * blocks unchanged; outside mxfp8 Megatron-Core refuses it */
	{
		struct profile ph;

		o.fp8_head = 1;
		profile_init(&ph);
		CHECK_INT_EQ(analytic_profile_opts(&ph, &m, b200, mb, 1, 1, 0,
						   &o),
			     0);
		CHECK_NEAR(ph.layers[1].pt[0].fwd_ms,
			   px.layers[1].pt[0].fwd_ms, 0);
		CHECK(ph.layers[2].pt[0].fwd_ms <
		      px.layers[2].pt[0].fwd_ms * 0.7);
		CHECK(ph.layers[2].pt[0].bwd_ms <
		      px.layers[2].pt[0].bwd_ms * 0.7);
		profile_release(&ph);
		o.fp8_recipe = FP8_TENSORWISE;
		profile_init(&ph);
		CHECK_ERR(analytic_profile_opts(&ph, &m, b200, mb, 1, 1, 0, &o),
			  "pd2bw: an FP8 output layer (fp8-output-proj) needs "
			  "an FP8 model (--precision fp8) with --fp8-recipe "
			  "mxfp8");
		profile_release(&ph);
		o.fp8_recipe = FP8_MXFP8;
		o.fp8_head = 0;
	}
	/* torchao's casts (torchtitan): every cast writes both copies (its
	 * _scaled_mm takes one layout), where Transformer Engine's delayed
	 * recipe on Blackwell keeps one.  Forward: the norms' outputs (QKV
	 * and MLP-in inputs, 2 n h) cast on their own, 4 bytes a value and a
	 * kernel each, where TE's norm leaves nothing to do; the other two
	 * inputs (n h + n f) one byte a value more.  Backward: the weight
	 * gradients cast their inputs again, one kernel of 2 + 2 bytes a
	 * value each (n h three times and n f), and each grad output's cast
	 * one byte a value more (QKV 1.5 h, projection h, MLP-in 2 f,
	 * MLP-out h a token) */
	{
		struct profile pe;

		o.fp8_recipe = FP8_DELAYED;
		o.fp8_casts = ANALYTIC_CASTS_EACH;
		profile_init(&pe);
		CHECK_INT_EQ(analytic_profile_opts(&pe, &m, b200, mb, 1, 1, 0, &o),
			     0);
		CHECK_NEAR(pe.layers[1].pt[0].fwd_ms - pd.layers[1].pt[0].fwd_ms,
			   ((9 * n * h + n * f) / bw + 2 * 3e-6) * 1e3, 1e-9);
		CHECK_NEAR(pe.layers[1].pt[0].bwd_ms - pd.layers[1].pt[0].bwd_ms,
			   ((4 * (3 * n * h + n * f) + n * (3.5 * h + 2 * f)) /
				    bw +
			    4 * 3e-6) * 1e3,
			   1e-9);
		CHECK_NEAR(pe.layers[1].pt[0].kernels -
				   pd.layers[1].pt[0].kernels,
			   6, 0);
		profile_release(&pe);
		o.fp8_casts = ANALYTIC_CASTS_TE;
		o.fp8_recipe = FP8_MXFP8;
	}
	/* without tensor parallelism nothing is gathered; with sequence
	 * parallelism an FP8 block gathers FP8, a 16-bit one 16-bit: per-
	 * tensor FP8 the rowwise copy alone (0.75 of the 16-bit bytes),
	 * MXFP8 the grad outputs' two copies backward ((1 + 1.5 / 2) / 2) */
	CHECK_NEAR(pd.tp_block_bytes, 1, 0);
	CHECK_NEAR(tp_bytes(&m, b200, 2, 1, &o), 0.875, 0);
	CHECK_NEAR(tp_bytes(&m, b200, 2, 0, &o), 1, 0);
	o.fp8_recipe = FP8_TENSORWISE;
	CHECK_NEAR(tp_bytes(&m, b200, 2, 1, &o), 0.75, 0);
	o.fp8_recipe = FP8_DELAYED;
	CHECK_NEAR(tp_bytes(&m, b200, 2, 1, &o), 0.75, 0);
	o.fp8_recipe = FP8_BLOCKWISE;
	CHECK_NEAR(tp_bytes(&m, b200, 2, 1, &o), 0.875, 0);
	o.fp8_recipe = FP8_MXFP8;
	/* torchao's casts (torchtitan): tensorwise gathers FP8, its other
	 * recipes 16-bit (docs/float8.md:31 at v0.2.2) */
	o.fp8_casts = ANALYTIC_CASTS_EACH;
	o.fp8_recipe = FP8_TENSORWISE;
	CHECK_NEAR(tp_bytes(&m, b200, 2, 1, &o), 0.75, 0);
	o.fp8_recipe = FP8_MXFP8;
	CHECK_NEAR(tp_bytes(&m, b200, 2, 1, &o), 1, 0);
	o.fp8_casts = ANALYTIC_CASTS_TE;
	m.precision = MODEL_BF16;
	CHECK_NEAR(tp_bytes(&m, b200, 2, 1, &o), 1, 0);
	m.precision = MODEL_FP8;
	profile_release(&pd);
	profile_release(&pt);
	profile_release(&px);
	profile_init(&px);
	cap_begin();
	CHECK_INT_EQ(analytic_profile_opts(&px, &m, catalog_find(&cat, "H100-SXM"),
					   mb, 1, 1, 0, &o), -1);
	free(cap_end());
	profile_release(&px);
}

/* The kernel listing of m's estimate at microbatch 1 under o. */
static void
listing(const struct model *m, const struct gpu_spec *g,
	const struct analytic_opts *o, struct profile *p,
	struct kernel_list *ks)
{
	static const int mb[] = {1};
	struct analytic_par par;

	analytic_par_init(&par, 1, 0);
	memset(ks, 0, sizeof(*ks));
	profile_init(p);
	CHECK_INT_EQ(analytic_profile_kernels(p, m, g, mb, 1, &par, o, ks), 0);
}

/* The first block's entries of pass named name: ms, kernels in *calls. */
static double
named_ms(const struct kernel_list *ks, int pass, const char *name,
	 long *calls)
{
	double ms = 0;
	size_t i;

	*calls = 0;
	for (i = 0; i < ks->n; i++)
		if (ks->k[i].layer == 1 && ks->k[i].pass == pass &&
		    !strcmp(ks->k[i].name, name)) {
			ms += ks->k[i].ms;
			*calls += ks->k[i].calls;
		}
	return ms;
}

/* Of a's GEMMs in pass, how many take f(b's of the same name) exactly
 * (f: 0 the same time, else the time at 1 / f of the rate past the
 * launch of launch_ms). */
static int
gemms_like(const struct kernel_list *a, const struct kernel_list *b,
	   int pass, double f, double launch_ms)
{
	size_t i;
	int n = 0;

	for (i = 0; i < a->n; i++) {
		const struct kernel_entry *r = &a->k[i];
		long c;
		double t;

		if (r->layer != 1 || r->pass != pass ||
		    strncmp(r->name, "gemm ", 5))
			continue;
		t = named_ms(b, pass, r->name, &c);
		if (!c)
			continue;
		if (f > 0)
			t = (t - c * launch_ms) / f + c * launch_ms;
		n += fabs(r->ms - t) <= 1e-9 * r->ms;
	}
	return n;
}

/*
 * torchao's rowwise recipe (torchtitan's casts, one per GEMM operand),
 * by hand against its tensorwise one on Llama 3 8B at microbatch 1 on
 * the H100: each cast is two passes along either axis and the transpose
 * between them, 4 e + 2 bytes a value in three kernels (torchao's
 * roofline), where tensorwise zeroes and turns the amax into a scale in
 * two one-thread kernels (8 and 4 bytes), reads the tensor for its amax
 * and casts both copies, 2 e + 2 bytes a value in four: forward, the
 * inputs of QKV, the projection and the MLP's two GEMMs, 3 n h + n f
 * values, 4 (3 n h + n f) - 48 bytes more and four kernels fewer.  Every
 * GEMM runs at ROWWISE_GEMM of the tensorwise rate: (t - launch) / 0.70
 * + launch; the collectives move 16 bits.
 */
static void
test_fp8_rowwise(void)
{
	const struct gpu_spec *g = catalog_find(&cat, "H100-SXM");
	double bw = g->mem_gb_s * 1e9 * g->mem_eff, n = 8192, h = 4096;
	double f = 14336, k = g->kernel_us * 1e-3, qt, qr;
	struct kernel_list kt, kr;
	struct profile pt, pr;
	struct analytic_opts o;
	struct model m;
	long ct, cr;

	llama8(&m);
	m.precision = MODEL_FP8;
	analytic_opts_init(&o);
	o.fp8_casts = ANALYTIC_CASTS_EACH;
	o.fp8_recipe = FP8_TENSORWISE;
	listing(&m, g, &o, &pt, &kt);
	o.fp8_recipe = FP8_ROWWISE;
	listing(&m, g, &o, &pr, &kr);
	CHECK_INT_EQ(gemms_like(&kr, &kt, KERNEL_PASS_FWD, 0.70, k), 4);
	qt = named_ms(&kt, KERNEL_PASS_FWD, "quantize", &ct);
	qr = named_ms(&kr, KERNEL_PASS_FWD, "quantize", &cr);
	CHECK_INT_EQ(ct, 16);
	CHECK_INT_EQ(cr, 12);
	CHECK_NEAR(qr - qt, (4 * (3 * n * h + n * f) - 48) / bw * 1e3 - 4 * k,
		   1e-9);
	/* 16-bit gathers under sequence parallelism, tensorwise's FP8 */
	CHECK_NEAR(tp_bytes(&m, g, 2, 1, &o), 1, 0);
	o.fp8_recipe = FP8_TENSORWISE;
	CHECK_NEAR(tp_bytes(&m, g, 2, 1, &o), 0.75, 0);
	kernels_free(&kt);
	kernels_free(&kr);
	profile_release(&pt);
	profile_release(&pr);

	/* rowwise_with_gw_hp: one pass a cast (e + 1 bytes a value), the
	 * forward's four inputs and the backward's four grad outputs (QKV's
	 * 1.5 h, the projection's h, the MLP's 2 f and h a token); the
	 * weight gradients' GEMMs the 16-bit model's, and cast nothing */
	m.precision = MODEL_BF16;
	listing(&m, g, &o, &pt, &kt);
	m.precision = MODEL_FP8;
	o.fp8_recipe = FP8_ROWWISE_GW_HP;
	listing(&m, g, &o, &pr, &kr);
	CHECK_INT_EQ(gemms_like(&kr, &kt, KERNEL_PASS_BWD, 0, k), 4);
	qt = named_ms(&kr, KERNEL_PASS_FWD, "quantize", &ct);
	qr = named_ms(&kr, KERNEL_PASS_BWD, "quantize", &cr);
	CHECK_INT_EQ(ct, 4);
	CHECK_INT_EQ(cr, 4);
	CHECK_NEAR(qt, 3 * (3 * n * h + n * f) / bw * 1e3 + 4 * k, 1e-9);
	CHECK_NEAR(qr, 3 * n * (3.5 * h + 2 * f) / bw * 1e3 + 4 * k, 1e-9);
	kernels_free(&kt);
	kernels_free(&kr);
	profile_release(&pt);
	profile_release(&pr);
}

/*
 * --bf16-layers: Llama 3 8B in FP8 (current scaling) on the H100 at TP 2
 * with sequence parallelism, its first block and last two in 16 bits: the
 * profile's runs are block_bf16 (1), block (29), block_bf16 (2), the 16-bit
 * ones priced exactly as the 16-bit model's blocks and the others as the
 * FP8 model's; the chain moves their tensor-parallel traffic at 16 bits
 * (the FP8 blocks' all-gathers at one byte, tp_block_bytes 0.75) and
 * counts their matrices apart, which have no quantised copies to cast,
 * with the embedding and the head, which hold none either.
 */
static void
test_bf16_layers(void)
{
	static const int mb[] = {1};
	const struct gpu_spec *g = catalog_find(&cat, "H100-SXM");
	struct profile p8, p16, pm;
	struct analytic_opts o;
	struct model m;
	struct chain c;
	double x;
	int j;

	llama8(&m);
	m.precision = MODEL_FP8;
	analytic_opts_init(&o);
	o.fp8_recipe = FP8_TENSORWISE;
	profile_init(&p8);
	profile_init(&p16);
	profile_init(&pm);
	CHECK_INT_EQ(analytic_profile_opts(&p8, &m, g, mb, 1, 2, 1, &o), 0);
	o.bf16_first = 1;
	o.bf16_last = 2;
	CHECK_INT_EQ(analytic_profile_opts(&pm, &m, g, mb, 1, 2, 1, &o), 0);
	m.precision = MODEL_BF16;
	CHECK_INT_EQ(analytic_profile_opts(&p16, &m, g, mb, 1, 2, 1, &o), 0);
	CHECK_INT_EQ(pm.nlayers, 5);
	CHECK_STR_EQ(pm.layers[1].name, "block_bf16");
	CHECK_STR_EQ(pm.layers[2].name, "block");
	CHECK_STR_EQ(pm.layers[3].name, "block_bf16");
	CHECK_INT_EQ(pm.layers[1].repeat, 1);
	CHECK_INT_EQ(pm.layers[2].repeat, 29);
	CHECK_INT_EQ(pm.layers[3].repeat, 2);
	CHECK_INT_EQ(pm.layers[1].bf16 + pm.layers[3].bf16, 2);
	CHECK_INT_EQ(pm.layers[2].bf16, 0);
	CHECK(pm.layers[1].pt[0].fwd_ms == p16.layers[1].pt[0].fwd_ms);
	CHECK(pm.layers[3].pt[0].bwd_ms == p16.layers[1].pt[0].bwd_ms);
	CHECK(pm.layers[2].pt[0].fwd_ms == p8.layers[1].pt[0].fwd_ms);
	CHECK(pm.layers[2].pt[0].bwd_ms == p8.layers[1].pt[0].bwd_ms);
	CHECK(pm.layers[1].pt[0].fwd_ms > p8.layers[1].pt[0].fwd_ms);
	CHECK_NEAR(pm.tp_block_bytes, 0.75, 0);
	/* the 16-bit model keeps them all: one run */
	CHECK_INT_EQ(p16.nlayers, 3);
	CHECK(chain_build(&c, &pm) == 0);
	CHECK_INT_EQ(c.L, 34);
	CHECK_INT_EQ(c.bf16[1] + c.bf16[2] + c.bf16[31] + c.bf16[32], 3);
	CHECK(chain_c16(&c, 0, 33) == 3 * pm.layers[1].muon_params);
	CHECK(chain_c16(&c, 2, 30) == 0);
	/* the embedding and the head (its norm and output layer) hold 16
	 * bits in an FP8 model, outside the matrices weights are cast of */
	CHECK(chain_m16(&c, 0, 0) == pm.layers[0].params);
	CHECK(chain_m16(&c, 33, 33) == pm.layers[4].params);
	CHECK(chain_c16(&c, 0, 0) + chain_c16(&c, 33, 33) == 0);
	CHECK(chain_m16(&c, 0, 33) ==
	      3 * pm.layers[1].muon_params + pm.layers[0].params +
		      pm.layers[4].params);
	/* one block's all-gathers: 8192 x 4096 16-bit values, four
	 * collectives; the FP8 blocks' at 0.75 of it */
	x = 8192.0 * 4096 * 2;
	CHECK_NEAR(chain_tp_bytes(&c, 0, PROF_RC_NONE, 1, 1) -
			   chain_tp_bytes(&c, 0, PROF_RC_NONE, 2, 2),
		   (1 - 0.75) * 4 * x, 1e-3);
	for (j = 0; j < c.L; j++)
		if (c.kind[j] != PROF_BLOCK)
			CHECK_INT_EQ(c.bf16[j], 0);
	chain_release(&c);
	profile_release(&p8);
	profile_release(&p16);
	profile_release(&pm);
}

static void
test_roofline(void)
{
	static const int mb[] = {1};
	struct profile p;
	struct model m;
	const struct gpu_spec *g;
	double gemm_ms;

	/*
	 * GPT-3 175B at b = 1 on A100-80GB is GEMM-bound: the forward
	 * takes the FLOPs at 0.75 x 312 TFLOP/s plus the attention core,
	 * the elementwise kernels and launches: a little more, not less.
	 */
	model_init(&m);
	m.name = "gpt3";
	m.layers = 96;
	m.hidden = 12288;
	m.heads = 96;
	m.kv_heads = 96;
	m.ffn_hidden = 4 * 12288;
	m.seq_len = 2048;
	m.vocab = 51200;
	m.flash_attention = 1;
	g = catalog_find(&cat, "A100-80GB");
	CHECK_INT_EQ(run(&p, &m, "a100", mb, 1, 1), 0);
	gemm_ms = 24.0 * 2048 * 12288.0 * 12288 / (312e12 * g->gemm_eff) *
		  1e3;
	CHECK(p.layers[1].pt[0].fwd_ms > gemm_ms);
	CHECK(p.layers[1].pt[0].fwd_ms < 1.25 * gemm_ms);
	profile_release(&p);

	/* The same layer is faster on H100 and faster still on B200. */
	{
		double a100, h100, b200;

		run(&p, &m, "A100-80GB", mb, 1, 1);
		a100 = p.layers[1].pt[0].fwd_ms;
		profile_release(&p);
		run(&p, &m, "H100-SXM", mb, 1, 1);
		h100 = p.layers[1].pt[0].fwd_ms;
		profile_release(&p);
		run(&p, &m, "B200", mb, 1, 1);
		b200 = p.layers[1].pt[0].fwd_ms;
		profile_release(&p);
		CHECK(h100 < a100 && b200 < h100);
	}
}

static char errbuf[1024];

static int
run_captured(struct profile *p, const struct model *m, const int *mb,
	     int nmb, int tp)
{
	FILE *tmp = tmpfile();
	int saved, ret;
	size_t n;

	if (!tmp)
		pd2bw_die("tmpfile failed");
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(tmp), 2);
	ret = run(p, m, "V100-16GB", mb, nmb, tp);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(errbuf, 1, sizeof(errbuf) - 1, tmp);
	errbuf[n] = '\0';
	fclose(tmp);
	return ret;
}

static void
test_errors(void)
{
	static const int bad_mb[] = {2, 2};
	static const int mb[] = {1};
	struct profile p;
	struct model m;

	gpt22(&m);
	CHECK_INT_EQ(run_captured(&p, &m, mb, 1, 3), -1);
	CHECK_STR_EQ(errbuf, "pd2bw: tensor-parallel degree 3 does not "
			     "divide the heads (32), KV heads (32) and "
			     "ffn_hidden (9216) of 'gpt-2.2b'\n");
	profile_release(&p);
	CHECK_INT_EQ(run_captured(&p, &m, bad_mb, 2, 1), -1);
	CHECK_STR_EQ(errbuf, "pd2bw: microbatch sizes must be positive and "
			     "increasing\n");
	profile_release(&p);
	m.heads = 7;
	CHECK_INT_EQ(run_captured(&p, &m, mb, 1, 1), -1);
	CHECK_STR_EQ(errbuf, "pd2bw: model 'gpt-2.2b': heads (7) do not "
			     "divide hidden (2304)\n");
	profile_release(&p);

	CHECK_INT_EQ(analytic_default_nmb, 7);
	CHECK_INT_EQ(analytic_default_mb[0], 1);
	CHECK_INT_EQ(analytic_default_mb[6], 64);
}

/* Sum of a profile's forward FLOPs over its expanded chain. */
static double
chain_flops(const struct profile *p, int k)
{
	double f = 0;
	int i;

	for (i = 0; i < p->nlayers; i++)
		f += p->layers[i].repeat * p->layers[i].pt[k].fwd_flops;
	return f;
}

/*
 * Format-2 models: every parameter counted once (all experts, MTP with
 * the head), forward FLOPs that agree with model_flops_per_iter() (the
 * active experts only), blocks that differ split into runs.
 */
static void
test_v2(void)
{
	static const char *const files[] = {
		"mixtral-8x7b", "deepseek-v3.json", "deepseek-v2-lite.json",
		"qwen3-30b-a3b.json", "qwen2-moe-a2.7b.json", "gemma-7b.json",
		"gemma2-9b.json", "gemma3-4b.json", "phi3-mini.json",
		"gpt-oss-120b.json", "qwen3-8b.json", NULL,
	};
	static const int mb[] = {1, 2};
	char rel[128];
	struct analytic_opts o;
	struct profile p;
	struct model m;
	int i;

	/* the model's own vocabulary: the model cards' counts and FLOPs */
	analytic_opts_init(&o);
	o.vocab_pad = 1;
	for (i = 0; files[i]; i++) {
		snprintf(rel, sizeof(rel), "tests/data/hf/%s", files[i]);
		model_init(&m);
		CHECK_MSG(model_load(&m, cap_path(rel)) == 0, rel);
		/* keep the s x s work small */
		m.seq_len = 4096;
		profile_init(&p);
		CHECK_MSG(analytic_profile_opts(&p, &m,
						catalog_find(&cat, "H100-SXM"),
						mb, 2, 1, 0, &o) == 0,
			  rel);
		CHECK_MSG(profile_params(&p) == model_params(&m), rel);
		CHECK_MSG(fabs(3 * chain_flops(&p, 1) /
				       model_flops_per_iter(&m, 2, 0) -
			       1) < 1e-12,
			  rel);
		CHECK_MSG(p.layers[1].pt[0].fwd_ms > 0 &&
				  p.layers[1].pt[0].bwd_ms >
					  p.layers[1].pt[0].fwd_ms,
			  rel);
		profile_release(&p);
		model_release(&m);
	}

	/* Megatron-Core's padding (the default): Gemma 3's 262208 rows
	 * (tied) to 262272, Phi-3's 32064 (untied) to 32128 */
	model_init(&m);
	CHECK(model_load(&m, cap_path("tests/data/hf/gemma3-4b.json")) == 0);
	CHECK(run(&p, &m, "H100-SXM", mb, 1, 1) == 0);
	CHECK_INT_EQ(profile_params(&p) - model_params(&m), 64 * m.hidden);
	profile_release(&p);
	model_release(&m);
	model_init(&m);
	CHECK(model_load(&m, cap_path("tests/data/hf/phi3-mini.json")) == 0);
	CHECK(run(&p, &m, "H100-SXM", mb, 1, 1) == 0);
	CHECK_INT_EQ(profile_params(&p) - model_params(&m), 2 * 64 * m.hidden);
	profile_release(&p);
	model_release(&m);

	/* DeepSeek-V3: 3 dense blocks, 58 MoE blocks, MTP in the head. */
	model_init(&m);
	CHECK(model_load(&m, cap_path("tests/data/hf/deepseek-v3.json")) ==
	      0);
	m.seq_len = 4096;
	CHECK(run(&p, &m, "H100-SXM", mb, 2, 1) == 0);
	CHECK_INT_EQ(p.nlayers, 4);
	CHECK_STR_EQ(p.layers[1].name, "block");
	CHECK_INT_EQ(p.layers[1].repeat, 3);
	CHECK_STR_EQ(p.layers[2].name, "block_moe");
	CHECK_INT_EQ(p.layers[2].repeat, 58);
	CHECK_INT_EQ(p.layers[2].params, 11507286272LL);
	/* a MoE block's FLOPs are near a dense one's (8 + 1 experts of
	 * 2048 against 18432), its parameters 20 times as many */
	CHECK(p.layers[2].pt[0].fwd_flops < 1.01 * p.layers[1].pt[0].fwd_flops);
	CHECK(p.layers[2].params > 19 * p.layers[1].params);
	CHECK_INT_EQ(p.layers[3].params,
		     129280LL * 7168 + 7168 + model_layer_params(&m, 60) +
			     model_mtp_extra_params(&m));
	profile_release(&p);
	/* tensor parallelism must divide the experts' width */
	m.moe.expert_ffn = 2050;
	CHECK_ERR(run(&p, &m, "H100-SXM", mb, 2, 4),
		  "pd2bw: tensor-parallel degree 4 does not divide the expert "
		  "sizes (2050, 2048) of 'deepseek-v3'");
	profile_release(&p);
	model_release(&m);

	/* Sliding windows: Gemma 2's local layers do less attention work
	 * than its global ones, by the band of 4096 in 8192. */
	model_init(&m);
	CHECK(model_load(&m, cap_path("tests/data/hf/gemma2-9b.json")) == 0);
	CHECK(run(&p, &m, "H100-SXM", mb, 2, 1) == 0);
	CHECK_INT_EQ(p.nlayers, 2 + 42);
	CHECK_STR_EQ(p.layers[1].name, "block_local");
	CHECK_STR_EQ(p.layers[2].name, "block");
	CHECK(p.layers[1].pt[0].recomp_ms[PROF_RC_SELECTIVE] <
	      0.8 * p.layers[2].pt[0].recomp_ms[PROF_RC_SELECTIVE]);
	CHECK(p.layers[1].params == p.layers[2].params);
	profile_release(&p);
	/* without fused attention a window saves nothing */
	m.flash_attention = 0;
	CHECK(run(&p, &m, "H100-SXM", mb, 2, 1) == 0);
	CHECK_NEAR(p.layers[1].pt[0].recomp_ms[PROF_RC_SELECTIVE],
		   p.layers[2].pt[0].recomp_ms[PROF_RC_SELECTIVE], 1e-9);
	profile_release(&p);
	model_release(&m);

	/* Per-class times need alike blocks. */
	model_init(&m);
	CHECK(model_load(&m, cap_path("tests/data/hf/gemma2-9b.json")) == 0);
	{
		double cls[3 * 2][ANALYTIC_NCLASS];

		profile_init(&p);
		CHECK_ERR(analytic_profile_classes(
				  &p, &m, catalog_find(&cat, "H100-SXM"), mb,
				  2, 1, cls),
			  "pd2bw: model 'gemma2-9b': per-class times need "
			  "blocks that are all alike");
		profile_release(&p);
	}
	model_release(&m);
}

/*
 * A MoE block keeps, per routed row (n top_k of them), 12 bytes of
 * routing state, the permuted row (h) and the SwiGLU input and weighted
 * output (2 fe + fe), all 16-bit; not the expert outputs, since the
 * routing weights multiply inside the activation (Megatron-Core
 * experts.py:964-971).  Qwen3-30B-A3B (h 2048, fe 768) at top-8 against
 * top-4, b = 1, s = 4096: 4 s more rows of 12 + 2 (2048 + 3 x 768) bytes.
 */
static void
test_moe_stash(void)
{
	static const int mb[] = {1};
	struct profile p8, p4;
	struct model m;

	qwen3_30b(&m);
	CHECK(run(&p8, &m, "H100-SXM", mb, 1, 1) == 0);
	m.moe.top_k = 4;
	CHECK(run(&p4, &m, "H100-SXM", mb, 1, 1) == 0);
	CHECK_STR_EQ(p8.layers[1].name, "block_moe");
	CHECK_INT_EQ(p8.layers[1].pt[0].stash_bytes[PROF_RC_NONE] -
			     p4.layers[1].pt[0].stash_bytes[PROF_RC_NONE],
		     4LL * 4096 * (12 + 2 * (2048 + 3 * 768)));
	profile_release(&p8);
	profile_release(&p4);
	model_release(&m);
}

/*
 * HybridEP's per-rank budget (Megatron-Core moe_expert_rank_capacity_
 * factor, token_dispatcher.py:1098-1113 at d98e8a6): its buffers hold
 * F x the balanced rows whatever arrives, so a MoE block keeps F x
 * the per-row part of test_moe_stash() (Qwen3-30B-A3B, b = 1, s = 4096,
 * top-8: 8 s rows of 12 + 2 (2048 + 3 x 768) bytes, 0.5 x that more at
 * F 1.5), and computes the rows that arrive: the same times in balance,
 * and at imbalance 2 those of imbalance 1.5, the budget dropping the
 * rest.  The route records it, for the dispatcher's host read.  A
 * paged stash (moe/paged_stash.py) keeps the balanced rows' pages
 * instead, copying on a stream of its own.
 */
static void
test_moe_rank_capacity(void)
{
	static const int mb[] = {1};
	const struct gpu_spec *g = catalog_find(&cat, "H100-SXM");
	struct analytic_par par;
	struct profile p0, p1, p2, p3;
	struct model m;
	const int64_t rows = 8LL * 4096, per = 12 + 2 * (2048 + 3 * 768);

	memset(&par, 0, sizeof(par));
	par.tp = par.cp = 1;
	par.ep = 8;
	par.imbalance = 1;
	qwen3_30b(&m);
	profile_init(&p0);
	CHECK(analytic_profile_par(&p0, &m, g, mb, 1, &par, NULL) == 0);
	par.rank_capacity = 1.5;
	profile_init(&p1);
	CHECK(analytic_profile_par(&p1, &m, g, mb, 1, &par, NULL) == 0);
	CHECK_STR_EQ(p1.layers[1].name, "block_moe");
	CHECK_INT_EQ(p1.layers[1].pt[0].stash_bytes[PROF_RC_NONE] -
			     p0.layers[1].pt[0].stash_bytes[PROF_RC_NONE],
		     rows * per / 2);
	CHECK_NEAR(p1.layers[1].pt[0].fwd_ms, p0.layers[1].pt[0].fwd_ms, 0);
	CHECK_NEAR(p1.layers[1].pt[0].bwd_ms, p0.layers[1].pt[0].bwd_ms, 0);
	CHECK_NEAR(p1.route.rank_capacity, 1.5, 0);
	CHECK_NEAR(p0.route.rank_capacity, 0, 0);
	par.imbalance = 2;
	profile_init(&p2);
	CHECK(analytic_profile_par(&p2, &m, g, mb, 1, &par, NULL) == 0);
	par.imbalance = 1.5;
	par.rank_capacity = 0;
	profile_init(&p3);
	CHECK(analytic_profile_par(&p3, &m, g, mb, 1, &par, NULL) == 0);
	CHECK_NEAR(p2.layers[1].pt[0].fwd_ms, p3.layers[1].pt[0].fwd_ms, 0);
	CHECK_NEAR(p2.layers[1].pt[0].bwd_ms, p3.layers[1].pt[0].bwd_ms, 0);
	CHECK_NEAR(p2.layers[1].pt[0].ep_a2a_bytes,
		   p3.layers[1].pt[0].ep_a2a_bytes, 0);
	CHECK(p2.layers[1].pt[0].fwd_ms > p1.layers[1].pt[0].fwd_ms);
	/* a paged stash (Megatron-Core's default 1.10 x the balanced rows)
	 * keeps 0.1 x the per-row part more than without a budget; its
	 * copies run on a stream of their own: the same times */
	{
		struct analytic_opts o;
		struct profile ps;

		analytic_opts_init(&o);
		o.paged_stash = 1.1;
		par.imbalance = 1;
		par.rank_capacity = 1.5;
		profile_init(&ps);
		CHECK(analytic_profile_par(&ps, &m, g, mb, 1, &par, &o) == 0);
		CHECK_INT_EQ(ps.layers[1].pt[0].stash_bytes[PROF_RC_NONE] -
				     p0.layers[1].pt[0].stash_bytes[PROF_RC_NONE],
			     rows * per / 10);
		CHECK_NEAR(ps.layers[1].pt[0].fwd_ms, p0.layers[1].pt[0].fwd_ms,
			   0);
		CHECK_NEAR(ps.layers[1].pt[0].bwd_ms, p0.layers[1].pt[0].bwd_ms,
			   0);
		profile_release(&ps);
	}
	par.rank_capacity = 65;
	profile_release(&p0);
	profile_init(&p0);
	CHECK_ERR(analytic_profile_par(&p0, &m, g, mb, 1, &par, NULL),
		  "pd2bw: rank capacity 65 must be between 0.01 and 64");
	profile_release(&p0);
	profile_release(&p1);
	profile_release(&p2);
	profile_release(&p3);
	model_release(&m);
}

/*
 * The experts' operands under FP8 (Transformer Engine's GroupedLinear,
 * pytorch/csrc/extensions/cast.cpp split_quantize and multi_tensor_
 * quantize_impl @d0067d0da): one fused cast-transpose for all experts
 * under the delayed recipe, expert by expert otherwise.  Qwen3-30B-A3B
 * at b = 1, s = 4096, ep 8 (k = 16 experts a GPU), H100 (3 us a kernel,
 * 3350 GB/s x 0.8), forward, tensorwise against delayed: the QKV input
 * (x = n h, after the norm) takes the scale kernel and a cast for the
 * transpose, 2 x + 8 bytes and one kernel more; the projection's input
 * (n x 32 x 128) zero, amax and scale kernels, 2 x + 12 bytes and three
 * kernels; each of the experts' two inputs (n top_k h, n top_k fe) the
 * same four kernels for each of the 16 experts instead of one pass:
 * 2 x + 12 k bytes and 4 k - 1 kernels.  The router's GEMM stays
 * 16-bit, unquantised, under both.  The host counts one expert's kernels
 * for a split (one C++ loop issues them): 1 + 3 + 2 x 3 more forward,
 * and backward 3 for each grad output quantised by its own pass (the
 * attention's two dgrads, the experts' two).
 */
static void
test_moe_fp8_split(void)
{
	static const int mb[] = {1};
	const struct gpu_spec *g = catalog_find(&cat, "H100-SXM");
	struct analytic_opts o;
	struct analytic_par par = {1, 0, 1, 8, 1, 1, 0};
	struct profile pd, pt;
	struct model m;
	double n = 4096, k = 16, bw = 3350e9 * 0.8, x;

	qwen3_30b(&m);
	m.precision = MODEL_FP8;
	analytic_opts_init(&o);
	profile_init(&pd);
	profile_init(&pt);
	CHECK_INT_EQ(analytic_profile_par(&pd, &m, g, mb, 1, &par, &o), 0);
	o.fp8_recipe = FP8_TENSORWISE;
	CHECK_INT_EQ(analytic_profile_par(&pt, &m, g, mb, 1, &par, &o), 0);
	CHECK_STR_EQ(pt.layers[1].name, "block_moe");
	x = 2 * n * 2048 + 8 + 2 * n * 4096 + 12 +
	    2 * n * 8 * 2048 + 12 * k + 2 * n * 8 * 768 + 12 * k;
	CHECK_NEAR(pt.layers[1].pt[0].fwd_ms - pd.layers[1].pt[0].fwd_ms,
		   (x / bw + (1 + 3 + 2 * (4 * k - 1)) * 3e-6) * 1e3, 1e-9);
	CHECK_NEAR(pt.layers[1].pt[0].kernels - pd.layers[1].pt[0].kernels,
		   1 + 3 + 2 * 3 + 4 * 3, 0);
	profile_release(&pd);
	profile_release(&pt);
	model_release(&m);
}

/*
 * Selective recomputation by module (Megatron's --recompute-modules):
 * each module drops what it stashes, and its forward runs again.  At
 * b = 1, s = 4096, 16-bit: Qwen3-30B-A3B's moe_act drops the experts'
 * weighted activation, n top_k fe = 4096 x 8 x 768 elements; layernorm
 * the two pre-norm outputs, 2 n h = 2 x 4096 x 2048; DeepSeek-V3's
 * mla_up_proj its Q, K and V, n x 128 heads x (192 + 192 + 128).
 */
static void
test_rc_modules(void)
{
	static const int mb[] = {1};
	const struct gpu_spec *g = catalog_find(&cat, "H100-SXM");
	struct analytic_opts o;
	struct profile p;
	struct model m;
	const struct prof_point *pt;
	unsigned mods;
	char buf[64];

	CHECK(analytic_rc_modules_parse("moe_act,layernorm", &mods) == 0);
	CHECK_INT_EQ(mods, ANALYTIC_RC_MOE_ACT | ANALYTIC_RC_LAYERNORM);
	analytic_rc_modules_format(mods, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "moe_act,layernorm");
	CHECK_ERR(analytic_rc_modules_parse("mlp,attn", &mods),
		  "pd2bw: unknown recompute module 'attn' (valid: core_attn, "
		  "mla_up_proj, moe_act, layernorm, mlp, op, moe)");
	CHECK(analytic_rc_modules_parse("moe,layernorm", &mods) == 0);
	CHECK_INT_EQ(mods, ANALYTIC_RC_MOE | ANALYTIC_RC_LAYERNORM);
	analytic_rc_modules_format(mods, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "layernorm,moe");
	CHECK_ERR(analytic_rc_modules_parse("op,layernorm", &mods),
		  "pd2bw: recompute module op (torchtitan's per-op policy) "
		  "covers the whole block: give it alone");
	CHECK(analytic_rc_modules_parse("op", &mods) == 0);
	CHECK_INT_EQ(mods, ANALYTIC_RC_OP);

	qwen3_30b(&m);
	analytic_opts_init(&o);
	CHECK_INT_EQ(o.rc_modules, ANALYTIC_RC_CORE_ATTN);
	o.rc_modules = ANALYTIC_RC_MOE_ACT;
	profile_init(&p);
	CHECK(analytic_profile_opts(&p, &m, g, mb, 1, 1, 0, &o) == 0);
	pt = &p.layers[1].pt[0];
	CHECK_INT_EQ(pt->stash_bytes[PROF_RC_NONE] -
			     pt->stash_bytes[PROF_RC_SELECTIVE],
		     4096LL * 8 * 768 * 2);
	CHECK(pt->recomp_ms[PROF_RC_SELECTIVE] > 0 &&
	      pt->recomp_ms[PROF_RC_SELECTIVE] < 0.1 * pt->fwd_ms);
	profile_release(&p);
	o.rc_modules = ANALYTIC_RC_MOE_ACT | ANALYTIC_RC_LAYERNORM;
	profile_init(&p);
	CHECK(analytic_profile_opts(&p, &m, g, mb, 1, 1, 0, &o) == 0);
	pt = &p.layers[1].pt[0];
	CHECK_INT_EQ(pt->stash_bytes[PROF_RC_NONE] -
			     pt->stash_bytes[PROF_RC_SELECTIVE],
		     4096LL * 8 * 768 * 2 + 2 * 4096LL * 2048 * 2);
	profile_release(&p);
	model_release(&m);

	model_init(&m);
	CHECK(model_load(&m, cap_path("tests/data/hf/deepseek-v3.json")) ==
	      0);
	m.seq_len = 4096;
	o.rc_modules = ANALYTIC_RC_MLA_UP_PROJ;
	profile_init(&p);
	CHECK(analytic_profile_opts(&p, &m, g, mb, 1, 1, 0, &o) == 0);
	pt = &p.layers[2].pt[0];
	CHECK_STR_EQ(p.layers[2].name, "block_moe");
	CHECK_INT_EQ(pt->stash_bytes[PROF_RC_NONE] -
			     pt->stash_bytes[PROF_RC_SELECTIVE],
		     4096LL * 128 * (192 + 192 + 128) * 2);
	/* the up-projections again: a share of the forward */
	CHECK(pt->recomp_ms[PROF_RC_SELECTIVE] > 0.02 * pt->fwd_ms &&
	      pt->recomp_ms[PROF_RC_SELECTIVE] < 0.3 * pt->fwd_ms);
	profile_release(&p);
	model_release(&m);
}

/*
 * torchtitan's per-op selective recomputation keeps a Llama block's
 * input, the odd matmuls' outputs (Q, V, w1, w2: the 1st, 3rd, 5th and
 * 7th aten.mm), the attention core's output and log-sum-exp; Llama 3 8B
 * at b = 1, s = 8192, 16-bit: 8192 x 2 x (4096 + 4096 + 4096 + 1024 +
 * 14336 + 4096) + 4 x 32 heads x 8192.  Under torchao's float8 the
 * SAC mode still sees each linear's aten.mm (on Float8TrainingTensor,
 * before the subclass calls _scaled_mm): the same bytes are kept, and
 * the saved GEMMs' input casts run again, a little more of the forward
 * than in 16-bit but far from all of it.  With sequence
 * parallelism (t = 2) the input is a shard, each rank's Q, V and w1 are
 * halves, w2's partial sums whole, and the two reduce-scatters' outputs
 * (n h / t each) are kept too.
 */
static void
test_rc_op(void)
{
	static const int mb[] = {1};
	const struct gpu_spec *g = catalog_find(&cat, "H100-SXM");
	struct analytic_opts o;
	struct profile p, p8, pt;
	struct model m;
	struct chain c;
	const struct prof_point *a, *b;

	llama8(&m);
	analytic_opts_init(&o);
	o.rc_modules = ANALYTIC_RC_OP;
	profile_init(&p);
	CHECK(analytic_profile_opts(&p, &m, g, mb, 1, 1, 0, &o) == 0);
	a = &p.layers[1].pt[0];
	CHECK_INT_EQ(a->stash_bytes[PROF_RC_SELECTIVE],
		     8192LL * 2 * (4096 + 4096 + 4096 + 1024 + 14336 + 4096) +
			     4LL * 32 * 8192);
	/* K, the output projection, w3, the norms, rope and the SwiGLU
	 * again: more than a tenth of the forward, not all of it */
	CHECK(a->recomp_ms[PROF_RC_SELECTIVE] > 0.1 * a->fwd_ms &&
	      a->recomp_ms[PROF_RC_SELECTIVE] < 0.6 * a->fwd_ms);
	m.precision = MODEL_FP8;
	o.fp8_recipe = FP8_TENSORWISE;
	o.fp8_casts = ANALYTIC_CASTS_EACH;
	profile_init(&p8);
	CHECK(analytic_profile_opts(&p8, &m, g, mb, 1, 1, 0, &o) == 0);
	b = &p8.layers[1].pt[0];
	CHECK_INT_EQ(b->stash_bytes[PROF_RC_SELECTIVE],
		     8192LL * 2 * (4096 + 4096 + 4096 + 1024 + 14336 + 4096) +
			     4LL * 32 * 8192);
	CHECK(b->recomp_ms[PROF_RC_SELECTIVE] / b->fwd_ms >
		      a->recomp_ms[PROF_RC_SELECTIVE] / a->fwd_ms &&
	      b->recomp_ms[PROF_RC_SELECTIVE] < 0.7 * b->fwd_ms);
	m.precision = MODEL_BF16;
	profile_init(&pt);
	CHECK(analytic_profile_opts(&pt, &m, g, mb, 1, 2, 1, &o) == 0);
	CHECK_INT_EQ(pt.layers[1].pt[0].stash_bytes[PROF_RC_SELECTIVE],
		     8192LL * 2 * (2048 + 2048 + 2048 + 512 + 7168 + 4096 +
				   2 * 2048) +
			     4LL * 16 * 8192);
	/* the all-gathers (all_gather_into_tensor, on no save list) run
	 * again: the forward's two, the bytes of one all-reduce more */
	CHECK_INT_EQ(a->sel_rerun, 0);
	CHECK_INT_EQ(pt.layers[1].pt[0].sel_rerun, PROF_RERUN_TP_GATHER);
	CHECK(chain_build(&c, &pt) == 0);
	CHECK_NEAR(chain_tp_count(&c, 0, PROF_RC_SELECTIVE, 1, 1) -
			   chain_tp_count(&c, 0, PROF_RC_NONE, 1, 1),
		   1, 0);
	CHECK_NEAR(chain_tp_count(&c, 0, PROF_RC_FULL, 1, 1) -
			   chain_tp_count(&c, 0, PROF_RC_NONE, 1, 1),
		   2, 0);
	chain_release(&c);
	profile_release(&p);
	profile_release(&p8);
	profile_release(&pt);
}

/*
 * The per-op policy in MoE and MLA blocks, b = 1, s = 4096, 16-bit.
 * Qwen3-30B-A3B: the router's gate is forced to recompute uncounted and
 * the routed experts are grouped GEMMs, so Q and V (the 1st and 3rd
 * aten.mm of q, k, v, o) are the block's odd mms: 4096 x 2 x (2048 input
 * + 4096 Q + 512 V + 4096 attention output) + 4 x 32 x 4096 log-sum-exp.
 * qwen3's save list has no all_to_all_single: under expert parallelism
 * (8) nothing more is kept.  With a shared expert (768) the count goes
 * on into it, w1 (5th) and w2 (7th) kept, and llama4's and deepseek_v3's
 * lists keep the all-to-alls: the dispatch's n top_k rows (balanced;
 * imbalance x them on the busiest rank) and the combine's, 2 x 4096 x 8
 * x 2048 x 2 bytes (2.25 x at imbalance 1.25).  DeepSeek-V3 (MLA
 * with a query latent): wq_a, wq_b, wkv_a, wkv_b, wo, then w1, w3, w2,
 * so wq_a (1536), wkv_a (512 + 64), wo (7168) and w3 are kept, w3 the
 * dense MLP's (18432) in a dense block, the shared expert's (2048) in a
 * MoE one; the input 7168 and attention output 128 x 128.
 */
static void
test_rc_op_moe(void)
{
	static const int mb[] = {1};
	const struct gpu_spec *g = catalog_find(&cat, "H100-SXM");
	struct analytic_opts o;
	struct analytic_par par;
	struct profile p;
	struct model m;
	const int64_t qkeep = 4096LL * 2 * (2048 + 4096 + 512 + 4096) +
			      4LL * 32 * 4096;
	int ep;

	analytic_opts_init(&o);
	o.rc_modules = ANALYTIC_RC_OP;
	memset(&par, 0, sizeof(par));
	par.tp = 1;
	par.cp = 1;
	par.imbalance = 1;
	qwen3_30b(&m);
	for (ep = 1; ep <= 8; ep += 7) {
		par.ep = ep;
		profile_init(&p);
		CHECK(analytic_profile_par(&p, &m, g, mb, 1, &par, &o) == 0);
		CHECK_STR_EQ(p.layers[1].name, "block_moe");
		CHECK_INT_EQ(p.layers[1].pt[0].stash_bytes[PROF_RC_SELECTIVE],
			     qkeep);
		/* ... and its recomputation dispatches and combines again */
		CHECK_INT_EQ(p.layers[1].pt[0].sel_rerun,
			     ep > 1 ? PROF_RERUN_EP_A2A : 0);
		profile_release(&p);
	}
	m.moe.shared_experts = 1;
	m.moe.shared_ffn = 768;
	profile_init(&p);
	CHECK(analytic_profile_par(&p, &m, g, mb, 1, &par, &o) == 0);
	CHECK_INT_EQ(p.layers[1].pt[0].stash_bytes[PROF_RC_SELECTIVE],
		     qkeep + 4096LL * 2 * (768 + 2048) +
			     2 * 4096LL * 8 * 2048 * 2);
	CHECK_INT_EQ(p.layers[1].pt[0].sel_rerun, 0);
	profile_release(&p);
	/* the busiest rank receives 1.25 x its rows; the combine returns
	 * its own (expert_parallel.py:168-181) */
	par.imbalance = 1.25;
	profile_init(&p);
	CHECK(analytic_profile_par(&p, &m, g, mb, 1, &par, &o) == 0);
	CHECK_INT_EQ(p.layers[1].pt[0].stash_bytes[PROF_RC_SELECTIVE],
		     qkeep + 4096LL * 2 * (768 + 2048) +
			     (1.25 + 1) * 4096LL * 8 * 2048 * 2);
	profile_release(&p);
	par.imbalance = 1;
	model_release(&m);

	model_init(&m);
	CHECK(model_load(&m, cap_path("tests/data/hf/deepseek-v3.json")) ==
	      0);
	m.seq_len = 4096;
	par.ep = 1;
	profile_init(&p);
	CHECK(analytic_profile_par(&p, &m, g, mb, 1, &par, &o) == 0);
	CHECK_STR_EQ(p.layers[1].name, "block");
	CHECK_STR_EQ(p.layers[2].name, "block_moe");
	CHECK_INT_EQ(p.layers[1].pt[0].stash_bytes[PROF_RC_SELECTIVE],
		     4096LL * 2 *
				     (7168 + 128 * 128 + 1536 + 576 + 7168 +
				      18432) +
			     4LL * 128 * 4096);
	CHECK_INT_EQ(p.layers[2].pt[0].stash_bytes[PROF_RC_SELECTIVE],
		     4096LL * 2 *
				     (7168 + 128 * 128 + 1536 + 576 + 7168 +
				      2048) +
			     4LL * 128 * 4096);
	profile_release(&p);
	model_release(&m);
}

/*
 * The loss's backward transient: Megatron's vocabulary-parallel loss
 * turns its saved fp32 softmax into the gradient in place, leaving the
 * 16-bit logits' gradient (n V 2 bytes); PyTorch's cross_entropy on the
 * upcast logits (torchtitan) writes nll_loss's dense fp32 gradient and
 * log_softmax's beside it, 8 n V (under DTensor's loss parallel three
 * such beside its output, 12 n V / t); a fused loss works in place
 * again.
 * What the loss keeps for backward: the fp32 softmax (4 n V), but a
 * fused PyTorch loss (Inductor's compiled cross_entropy, torchtitan's
 * compile; flash-attn's CrossEntropyLoss) keeps the 16-bit logits and
 * each row's log-sum-exp, 2 n V + 4 n: 2 n V - 4 n = 2,101,313,536 bytes
 * less.  Megatron's fused loss (i = 3) keeps the fp32 softmax.  Llama 3
 * 8B at b = 1, s = 8192, V = 128256.
 */
static void
test_xent_copy(void)
{
	static const int mb[] = {1};
	const struct gpu_spec *g = catalog_find(&cat, "H100-SXM");
	struct analytic_opts o;
	struct profile p;
	struct model m;
	int64_t st[4];
	int i;

	llama8(&m);
	analytic_opts_init(&o);
	for (i = 0; i < 4; i++) {
		o.xent_copy = i == 1 || i == 2;
		o.fusions = i >= 2 ? ANALYTIC_FUSE_XENT : 0;
		profile_init(&p);
		CHECK(analytic_profile_opts(&p, &m, g, mb, 1, 1, 0, &o) == 0);
		CHECK_STR_EQ(p.layers[p.nlayers - 1].name, "head");
		CHECK_INT_EQ(p.layers[p.nlayers - 1].pt[0].work_bytes,
			     (i == 1 ? 8LL : 2LL) * 8192 * 128256);
		st[i] = p.layers[p.nlayers - 1].pt[0].stash_bytes[0];
		profile_release(&p);
	}
	CHECK_INT_EQ(st[1], st[0]);
	CHECK_INT_EQ(st[3], st[0]);
	CHECK_INT_EQ(st[0] - st[2], 2101313536LL);
	/* DTensor's loss parallel (xent_copy 2) at t = 8, V / t = 16032:
	 * the zeros, exp of the output, their sum and the product, three
	 * fp32 copies alive beside the output, 12 n V / t; at t = 1 it is
	 * PyTorch's own cross_entropy, 8 n V */
	o.xent_copy = 2;
	o.fusions = 0;
	o.vocab_pad = 1;     /* torchtitan's vocabulary, unpadded */
	for (i = 0; i < 2; i++) {
		profile_init(&p);
		CHECK(analytic_profile_opts(&p, &m, g, mb, 1, i ? 8 : 1, 0,
					    &o) == 0);
		CHECK_INT_EQ(p.layers[p.nlayers - 1].pt[0].work_bytes,
			     i ? 12LL * 8192 * 16032 : 8LL * 8192 * 128256);
		profile_release(&p);
	}
}

/*
 * GPT-OSS's clamp of the experts' gate and linear halves (act_clamp), by
 * hand on Qwen3-30B-A3B's shape (fe 768, top-8) at b = 1, s = 4096 on
 * H100 (memory-bound: 3350 GB/s x 0.8, 3 us a kernel), x = n k fe
 * elements a half, 2 bytes each.  Eager before the fused activation
 * (Megatron-Core): forward two clamps (read and write x) and their cat
 * (2x), 16 x bytes in 3 kernels; backward each clamp's comparison (x in,
 * a byte out) and select (x and the mask in, x out), then the halves'
 * cat, 24 x bytes in 5 kernels; and the raw halves kept beside the
 * clamped ones, 4 x bytes more.  Unfused, the activation's own backward
 * joins the halves: no cat either way (8 x and 16 x bytes, 2 and 4
 * kernels).  Inside the activation (the op fuser, clamp_eager 0) or
 * without act_clamp: nothing.  moe_act recomputation runs the forward
 * clamp again and keeps neither copy.
 */
static void
test_clamp(void)
{
	static const int mb[] = {1};
	const struct gpu_spec *g = catalog_find(&cat, "H100-SXM");
	struct analytic_opts o;
	struct profile p[4];
	struct model m;
	double bw = 3350e9 * 0.8, x = 4096.0 * 8 * 768, us = 1e-3;
	const struct prof_point *a, *b;
	int i;

	qwen3_30b(&m);
	m.act_clamp = 7;
	analytic_opts_init(&o);
	CHECK_INT_EQ(o.clamp_eager, 1);
	for (i = 0; i < 4; i++) {
		o.clamp_eager = i == 0 || i == 2;
		o.fusions = i < 2 ? ANALYTIC_FUSE_ALL : 0;
		profile_init(&p[i]);
		CHECK(analytic_profile_opts(&p[i], &m, g, mb, 1, 1, 0, &o) ==
		      0);
	}
	a = &p[0].layers[1].pt[0];
	b = &p[1].layers[1].pt[0];
	CHECK_STR_EQ(p[0].layers[1].name, "block_moe");
	CHECK_NEAR(a->fwd_ms - b->fwd_ms, 16 * x / bw * 1e3 + 3 * 3 * us,
		   1e-9);
	CHECK_NEAR(a->bwd_ms - b->bwd_ms, 24 * x / bw * 1e3 + 5 * 3 * us,
		   1e-9);
	CHECK_NEAR(a->kernels - b->kernels, 8, 0);
	CHECK_INT_EQ(a->stash_bytes[PROF_RC_NONE] -
			     b->stash_bytes[PROF_RC_NONE],
		     (int64_t)(4 * x));
	a = &p[2].layers[1].pt[0];
	b = &p[3].layers[1].pt[0];
	CHECK_NEAR(a->fwd_ms - b->fwd_ms, 8 * x / bw * 1e3 + 2 * 3 * us,
		   1e-9);
	CHECK_NEAR(a->bwd_ms - b->bwd_ms, 16 * x / bw * 1e3 + 4 * 3 * us,
		   1e-9);
	CHECK_NEAR(a->kernels - b->kernels, 6, 0);
	for (i = 0; i < 4; i++)
		profile_release(&p[i]);
	/* moe_act recomputation runs the forward's clamp again and keeps
	 * neither copy */
	o.rc_modules = ANALYTIC_RC_MOE_ACT;
	o.fusions = ANALYTIC_FUSE_ALL;
	for (i = 0; i < 2; i++) {
		o.clamp_eager = i == 0;
		profile_init(&p[i]);
		CHECK(analytic_profile_opts(&p[i], &m, g, mb, 1, 1, 0, &o) ==
		      0);
	}
	a = &p[0].layers[1].pt[0];
	b = &p[1].layers[1].pt[0];
	CHECK_NEAR(a->recomp_ms[PROF_RC_SELECTIVE] -
			   b->recomp_ms[PROF_RC_SELECTIVE],
		   16 * x / bw * 1e3 + 3 * 3 * us, 1e-9);
	CHECK_INT_EQ(a->stash_bytes[PROF_RC_SELECTIVE],
		     b->stash_bytes[PROF_RC_SELECTIVE]);
	CHECK(a->stash_bytes[PROF_RC_NONE] > a->stash_bytes[PROF_RC_SELECTIVE]);
	profile_release(&p[0]);
	profile_release(&p[1]);
	o.rc_modules = ANALYTIC_RC_CORE_ATTN;
	/* no act_clamp: the eager runtime prices nothing more */
	m.act_clamp = 0;
	for (i = 0; i < 2; i++) {
		o.clamp_eager = i;
		o.fusions = ANALYTIC_FUSE_ALL;
		profile_init(&p[i]);
		CHECK(analytic_profile_opts(&p[i], &m, g, mb, 1, 1, 0, &o) ==
		      0);
	}
	CHECK_NEAR(p[0].layers[1].pt[0].fwd_ms, p[1].layers[1].pt[0].fwd_ms, 0);
	CHECK_NEAR(p[0].layers[1].pt[0].bwd_ms, p[1].layers[1].pt[0].bwd_ms, 0);
	profile_release(&p[0]);
	profile_release(&p[1]);
	model_release(&m);
}

/*
 * One linear GEMM as --gemm compares it, worked by hand on the H100
 * (132 SMs, 989.4 TFLOP/s at gemm_eff 0.564, 3350 GB/s at 0.8, 3 us a
 * launch).  8192^3: the 64 x 128 tile gives 8192 tiles in 63 waves of
 * 132 (8192 / 8316), the K loop 8192 / 8320; 2 * 8192^3 flops at
 * 989.4e12 * 0.564 * 0.969934 = 2.031453 ms, + 0.003.  An expert's
 * 256 x 4096 x 1536: 48 tiles of 64 x 128 in one wave (48 / 132), K
 * 4096 / 4224: eff 0.352617 of 0.564, 3.221e9 flops in 0.016371 ms, more
 * than its 15.47 MB at 2680 GB/s (0.005772 ms).
 */
static void
test_gemm_ms(void)
{
	const struct gpu_spec *h100 = catalog_find(&cat, "H100-SXM");

	CHECK_NEAR(analytic_gemm_shape_eff(132, 8192, 8192, 8192),
		   8192.0 / 8316 * 8192 / 8320, 1e-12);
	CHECK_NEAR(analytic_gemm_ms(h100, 0, 8192, 8192, 8192), 2.034453,
		   1e-6);
	CHECK_NEAR(analytic_gemm_shape_eff(132, 256, 4096, 1536),
		   48.0 / 132 * 4096 / 4224, 1e-12);
	CHECK_NEAR(analytic_gemm_ms(h100, 0, 256, 4096, 1536), 0.019371,
		   1e-6);
	/* fp32: the fp32 rate and 4 bytes a value */
	CHECK_NEAR(analytic_gemm_ms(h100, 1, 8192, 8192, 8192),
		   2.0 * 8192 * 8192 * 8192 /
				   (67e12 * 0.564 * 8192.0 / 8316 * 8192 /
				    8320) * 1e3 + 0.003, 1e-6);
}

int
main(int argc, char **argv)
{
	(void)argc;
	(void)h_skip;
	(void)h_skip_all;
	cap_find_top(argv[0]);
	catalog_init(&cat);
	test_gpt_block();
	test_embed_sp();
	test_norm_sp();
	test_split_proj();
	test_sp_copy();
	test_llama();
	test_fp8_parts();
	test_fusions();
	test_fusion_norm();
	test_attn_kernel();
	test_attn_triton();
	test_attn_exp();
	test_attn_tiles();
	test_rc_early_stop();
	test_attn_fp8();
	test_tp_dgrad();
	test_linear_ms();
	test_fp8_recipes();
	test_nvfp4();
	test_fp8_rowwise();
	test_bf16_layers();
	test_roofline();
	test_errors();
	test_v2();
	test_moe_stash();
	test_moe_rank_capacity();
	test_moe_fp8_split();
	test_rc_modules();
	test_rc_op();
	test_rc_op_moe();
	test_xent_copy();
	test_clamp();
	test_gemm_ms();
	catalog_release(&cat);
	return h_done();
}
