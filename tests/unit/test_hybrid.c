/*
 * test_hybrid.c - hybrid Mamba models (a model's pattern): a tiny
 * "M*-EM" model's layers as the estimate builds them (one sublayer each,
 * named by kind, its parameters by hand), a Mamba-2 mixer's FLOPs and
 * one of its scan's kernels hand-priced, what a Mamba layer keeps
 * against an MLP layer, half a block's tensor-parallel traffic, and
 * LatentMoE with a multi-token-prediction module of its own pattern, and
 * the MoE layer routing its own tokens under sequence parallelism.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "tiny_llama.h"
#include "kernel_entry.h"
#include "capture.h"
#include "pd2bw/analytic.h"
#include "pd2bw/catalog.h"
#include "pd2bw/chain.h"
#include "pd2bw/kernels.h"

static struct gpu_catalog cat;

/*
 * tiny_llama's sizes (hidden 64, 4 heads of 16, 2 KV heads, SwiGLU of
 * 128) as five layers: Mamba (8 heads of 16, state 16, 2 groups, 4 taps,
 * chunks of 8), attention, MLP, MoE (4 experts of 32, top 2), Mamba.
 */
static void
tiny_hybrid(struct model *m)
{
	tiny_llama(m);
	m->layers = 5;
	strcpy(m->pattern, "M*-EM");
	m->mamba.heads = 8;
	m->mamba.head_dim = 16;
	m->mamba.state = 16;
	m->mamba.groups = 2;
	m->mamba.conv = 4;
	m->mamba.chunk = 8;
	m->moe.experts = 4;
	m->moe.top_k = 2;
	m->moe.expert_ffn = 32;
	m->moe.every = 1;
}

static int
run(struct profile *p, const struct model *m, int tp,
    struct kernel_list *ks)
{
	static const int mb[] = {1};
	struct analytic_par par;
	struct analytic_opts o;

	analytic_par_init(&par, tp, tp > 1);
	analytic_opts_init(&o);
	profile_init(p);
	return analytic_profile_kernels(p, m, catalog_find(&cat, "H100-SXM"),
					mb, 1, &par, &o, ks);
}

/*
 * The mixer's weights: the input projection 64 x (2 x 128 + 2 x 2 x 16
 * + 8) = 64 x 328 = 20,992, the convolution over 128 + 64 = 192
 * channels of 4 taps and a bias, 960, dt bias, A and D of 8 heads, 24,
 * the gated norm 128 and the output projection 128 x 64 = 8,192: 30,296.
 * The layers add their pre-norm of 64: attention 64 x 128 (QKV) +
 * 64 x 64, 12,352; the MLP 3 x 64 x 128, 24,640; the MoE layer 4 x 3 x
 * 64 x 32 and the router 64 x 4, 24,896.
 */
static void
test_layers(void)
{
	static const char *const names[] = {
		"embedding", "block_mamba", "block_attention", "block_mlp",
		"block_experts", "block_mamba", "head",
	};
	static const int64_t params[] = {0, 30360, 12352, 24640, 24896,
					 30360, 0};
	struct model m;
	struct profile p;
	struct kernel_list ks;
	int i;

	tiny_hybrid(&m);
	CHECK(model_validate(&m, "tiny") == 0);
	CHECK_INT_EQ(model_mamba_params(&m), 30296);
	CHECK_INT_EQ(model_layer_params(&m, 0), 30360);
	CHECK_INT_EQ(model_layer_params(&m, 3), 24896);
	CHECK_INT_EQ(model_layer_active_params(&m, 3), 64 + 2 * 3 * 64 * 32 +
							 256);
	memset(&ks, 0, sizeof(ks));
	CHECK(run(&p, &m, 1, &ks) == 0);
	CHECK_INT_EQ(p.nlayers, 7);
	for (i = 0; i < p.nlayers && i < 7; i++) {
		CHECK_STR_EQ(p.layers[i].name, names[i]);
		if (i > 0 && i < 6) {
			CHECK_INT_EQ(p.layers[i].sublayers, 1);
			CHECK_INT_EQ(p.layers[i].params, params[i]);
		}
	}
	/* Muon's Newton-Schulz on the mixer's two projections, 5 steps of
	 * 4 s^2 b + 2 s^3 FLOPs (s, b the smaller and larger side):
	 * 328 x 64, 29,491,200; 64 x 128, 13,107,200 */
	CHECK_NEAR(p.layers[1].ns_flops, 29491200.0 + 13107200.0, 1e-6);
	/* each layer its own kernels: the scan in the Mamba layers alone,
	 * attention in the attention layer alone, no MLP around either */
	CHECK(entry(&ks, 1, KERNEL_PASS_FWD, "ssd chunk scan") != NULL);
	CHECK(entry(&ks, 1, KERNEL_PASS_BWD, "ssd dx") != NULL);
	CHECK(entry(&ks, 1, KERNEL_PASS_FWD, "attention") == NULL);
	CHECK(entry(&ks, 1, KERNEL_PASS_FWD, "activation") == NULL);
	CHECK(entry(&ks, 2, KERNEL_PASS_FWD, "attention") != NULL);
	CHECK(entry(&ks, 2, KERNEL_PASS_FWD, "activation") == NULL);
	CHECK(entry(&ks, 2, KERNEL_PASS_FWD, "ssd chunk scan") == NULL);
	CHECK(entry(&ks, 3, KERNEL_PASS_FWD, "activation") != NULL);
	CHECK(entry(&ks, 3, KERNEL_PASS_FWD, "attention") == NULL);
	CHECK(entry(&ks, 4, KERNEL_PASS_FWD, "router top-k") != NULL);
	CHECK(entry(&ks, 4, KERNEL_PASS_FWD, "attention") == NULL);
	profile_release(&p);
	kernels_free(&ks);
}

/*
 * The Mamba layer's forward FLOPs for 32 tokens: its projections
 * 2 x 32 x 64 x 328 + 2 x 32 x 128 x 64 = 1,867,776 and the scan's
 * 32 x (4 x 16 x 128 + 2 x 8 x 128 + 2 x 8 x 16 x 2) = 344,064; one of
 * its kernels by hand: the pass of the states between the 4 chunks
 * reads and writes 4 x 8 x 16 x 16 fp32 values (32 KiB) each way, at
 * the H100's bandwidth, plus the kernel's fixed cost.
 */
static void
test_mamba_kernels(void)
{
	const struct gpu_spec *g = catalog_find(&cat, "H100-SXM");
	const struct kernel_entry *k;
	struct model m;
	struct profile p;
	struct kernel_list ks;
	double st = 4.0 * 8 * 16 * 16 * 4, t;

	tiny_hybrid(&m);
	memset(&ks, 0, sizeof(ks));
	CHECK(run(&p, &m, 1, &ks) == 0);
	CHECK_NEAR(p.layers[1].pt[0].fwd_flops, 1867776.0 + 344064.0, 1e-6);
	t = fmax(2 * st / 4 / (g->tflops32 * 1e12),
		 2 * st / (g->mem_gb_s * 1e9 * g->mem_eff));
	t = (t + g->kernel_us * 1e-6) * 1e3;
	k = entry(&ks, 1, KERNEL_PASS_FWD, "ssd state passing");
	CHECK(k != NULL);
	if (k) {
		CHECK_INT_EQ(k->calls, 1);
		CHECK_NEAR(k->ms, t, 1e-12);
	}
	/* the model's count: three times the layers' forwards (the two
	 * Mamba layers; attention 2 x 32 x 64 x 128 + 4 x 32 x 32 x 64 +
	 * 2 x 32 x 64 x 64 = 1,048,576; the MLP 3 x 2 x 32 x 64 x 128 =
	 * 1,572,864; the MoE layer's router 16,384 and two experts 786,432)
	 * and the head's 2 x 32 x 64 x 100 */
	CHECK_NEAR(model_flops_per_iter(&m, 1, 0),
		   3 * (2 * 2211840.0 + 1048576 + 1572864 + 802816) +
			   3 * 409600.0,
		   1e-6);
	/*
	 * What the Mamba layer keeps beyond the MLP layer (both keep their
	 * input and pre-norm alike): the transposed projection output
	 * 32 x 328, the scan's output before and after its gate and the
	 * gated norm's output, 3 x 32 x 128, 16-bit, and the norm's
	 * statistics 32 x 2 fp32, against the SwiGLU's three 32 x 128:
	 * 45,824 - 24,576 bytes.
	 */
	CHECK_INT_EQ(p.layers[1].pt[0].stash_bytes[PROF_RC_NONE] -
			     p.layers[3].pt[0].stash_bytes[PROF_RC_NONE],
		     45824 - 24576);
	profile_release(&p);
	kernels_free(&ks);
}

/*
 * Tensor parallelism 2: a hybrid layer reduces half what a block of
 * the same sizes does (one sublayer's all-gather and reduce-scatter
 * each way), the same bytes a collective.
 */
static void
test_tp(void)
{
	struct model m, b;
	struct profile p, q;
	struct chain c, d;

	tiny_hybrid(&m);
	tiny_llama(&b);
	b.layers = 5;
	CHECK(run(&p, &m, 2, NULL) == 0);
	CHECK(run(&q, &b, 2, NULL) == 0);
	CHECK(chain_build(&c, &p) == 0);
	CHECK(chain_build(&d, &q) == 0);
	CHECK_NEAR(chain_tp_count(&c, 0, PROF_RC_NONE, 1, 1),
		   chain_tp_count(&d, 0, PROF_RC_NONE, 1, 1) / 2, 1e-12);
	CHECK_NEAR(chain_tp_count(&c, 0, PROF_RC_NONE, 1, 5),
		   chain_tp_count(&d, 0, PROF_RC_NONE, 1, 5) / 2, 1e-12);
	CHECK_NEAR(chain_tp_bytes(&c, 0, PROF_RC_NONE, 1, 5),
		   chain_tp_bytes(&d, 0, PROF_RC_NONE, 1, 5) / 2, 1e-6);
	chain_release(&c);
	chain_release(&d);
	profile_release(&p);
	profile_release(&q);
}

/*
 * LatentMoE and a hybrid multi-token-prediction module: the tiny model's
 * experts at a latent width of 16, and two MTP depths sharing one "*E"
 * module.  The MoE layer: its norm 64, four experts 3 x 16 x 32 = 1,536
 * each, the router 64 x 4 and the two projections 2 x 64 x 16 = 2,048,
 * 8,512 (5,440 with its two experts).  The module: its two norms and
 * the final one, 3 x 64, the 2h x h projection 8,192, the attention
 * layer 12,352 and the MoE layer, 29,248, counted once.  Its forward
 * FLOPs for 32 tokens: the router 16,384, the two experts 3 x 2 x 32 x
 * 16 x 2 x 32 = 196,608 and the projections 4 x 32 x 64 x 16 = 131,072.
 */
static void
test_latent_mtp(void)
{
	struct model m, d;
	struct profile p, q;
	struct kernel_list ks;
	double f0, f1;

	tiny_hybrid(&m);
	m.moe.latent = 16;
	m.mtp_layers = 2;
	m.mtp_shared = 1;
	strcpy(m.mtp_pattern, "*E");
	CHECK(model_validate(&m, "tiny") == 0);
	CHECK_INT_EQ(model_latent_params(&m), 2048);
	CHECK_INT_EQ(model_layer_params(&m, 3), 8512);
	CHECK_INT_EQ(model_layer_active_params(&m, 3), 5440);
	CHECK_INT_EQ(model_layer_expert_params(&m, 3), 4 * 1536);
	CHECK_INT_EQ(model_mtp_module_layers(&m), 2);
	CHECK_INT_EQ(model_layer_kind(&m, 5), '*');
	CHECK_INT_EQ(model_layer_kind(&m, 6), 'E');
	CHECK_INT_EQ(model_layer_kind(&m, 7), 'B');
	CHECK_INT_EQ(model_mtp_module_params(&m), 29248);
	CHECK_INT_EQ(model_params(&m) - model_params_no_mtp(&m), 29248);
	m.mtp_shared = 0;
	CHECK_INT_EQ(model_params(&m) - model_params_no_mtp(&m), 2 * 29248);
	m.mtp_shared = 1;
	memset(&ks, 0, sizeof(ks));
	CHECK(run(&p, &m, 1, &ks) == 0);
	CHECK_NEAR(p.layers[4].pt[0].fwd_flops, 16384.0 + 196608 + 131072,
		   1e-6);
	/* the projections down before the dispatch and up after it, the
	 * experts' GEMMs at the latent width */
	CHECK(entry(&ks, 4, KERNEL_PASS_FWD, "gemm 32x64x16") != NULL);
	CHECK(entry(&ks, 4, KERNEL_PASS_FWD, "gemm 32x16x64") != NULL);
	/* the head (its norm, the vocabulary of 100 padded to 128 by 64)
	 * holds the shared module's weights once, and prices both depths:
	 * its forward grows by two modules, twice one depth's */
	CHECK_INT_EQ(p.layers[6].params - 64 - 128 * 64, 29248);
	d = m;
	d.mtp_layers = 1;
	CHECK(run(&q, &d, 1, NULL) == 0);
	CHECK_INT_EQ(q.layers[6].params, p.layers[6].params);
	f1 = q.layers[6].pt[0].fwd_ms;
	profile_release(&q);
	d.mtp_layers = 0;
	d.mtp_shared = 0;
	d.mtp_pattern[0] = 0;
	CHECK(run(&q, &d, 1, NULL) == 0);
	f0 = q.layers[6].pt[0].fwd_ms;
	CHECK(f1 > f0);
	CHECK_NEAR(p.layers[6].pt[0].fwd_ms - f0, 2 * (f1 - f0), 1e-9);
	profile_release(&p);
	profile_release(&q);
	kernels_free(&ks);
	/* under tensor and sequence parallelism 2 each rank routes and
	 * projects its own 16 of the 32 tokens: the router's GEMM 16 x 64
	 * x 4 experts, the projections 16 x 64 x 16 and back */
	memset(&ks, 0, sizeof(ks));
	CHECK(run(&p, &m, 2, &ks) == 0);
	CHECK(entry(&ks, 4, KERNEL_PASS_FWD, "gemm 16x64x4") != NULL);
	CHECK(entry(&ks, 4, KERNEL_PASS_FWD, "gemm 32x64x4") == NULL);
	CHECK(entry(&ks, 4, KERNEL_PASS_FWD, "gemm 16x64x16") != NULL);
	CHECK(entry(&ks, 4, KERNEL_PASS_FWD, "gemm 16x16x64") != NULL);
	profile_release(&p);
	kernels_free(&ks);
	/* a module's layers need their maps, and a pattern only in a
	 * hybrid model */
	tiny_hybrid(&m);
	m.mtp_layers = 1;
	CHECK(model_validate(&m, "tiny") != 0);
	strcpy(m.mtp_pattern, "*X");
	CHECK(model_validate(&m, "tiny") != 0);
	tiny_llama(&d);
	d.mtp_layers = 1;
	strcpy(d.mtp_pattern, "*");
	CHECK(model_validate(&d, "tiny") != 0);
}

static int
run_o(struct profile *p, const struct model *m, const char *gpu, int tp,
      const struct analytic_opts *o)
{
	static const int mb[] = {2};
	struct analytic_par par;

	analytic_par_init(&par, tp, tp > 1);
	profile_init(p);
	return analytic_profile_kernels(p, m, catalog_find(&cat, gpu), mb, 1,
					&par, o, NULL);
}

/* Whether the profiles' layers (all but the embedding) are priced
 * alike: forward, backward, and what they keep under each
 * recomputation. */
static int
same_layers(const struct profile *a, const struct profile *b)
{
	int j, r;

	if (a->nlayers != b->nlayers)
		return 0;
	for (j = 1; j < a->nlayers; j++) {
		const struct prof_point *x = &a->layers[j].pt[0];
		const struct prof_point *y = &b->layers[j].pt[0];

		if (x->fwd_ms != y->fwd_ms || x->bwd_ms != y->bwd_ms)
			return 0;
		for (r = 0; r < PROF_RC_N; r++)
			if (x->stash_bytes[r] != y->stash_bytes[r])
				return 0;
	}
	return 1;
}

/*
 * --module-precision: the tiny hybrid with LatentMoE, a shared expert
 * and MTP modules, NVFP4 on GB200 at TP 2 with sequence parallelism.
 * Every kind of linear at bf16 prices every layer (the head with its
 * modules too) as the 16-bit model does, to the bit, moves 16-bit
 * tensor-parallel gathers and keeps each block's GEMM weights in 16
 * bits: the Mamba layer 64 x 328 + 128 x 64, attention 64 x 128 +
 * 64 x 64, the MLP 64 x 256 + 128 x 64, the MoE layer four experts of
 * 16 x 64 + 32 x 16 and the shared one 64 x 64 + 32 x 64, each over the
 * two ranks, and the latent projections 2 x 64 x 16 whole on each.
 * Every kind at MXFP8 prices it as the MXFP8 model does.  One kind set
 * moves that kind's layers alone.  Selective recomputation covers the
 * norms, the experts' activation and the MLP, whose saved inputs count.
 */
static void
test_module_precision(void)
{
	static const int w16[] = {(20992 + 8192) / 2, (8192 + 4096) / 2,
				  (16384 + 8192) / 2,
				  2048 + (4 * (1024 + 512) + 4096 + 2048) / 2,
				  (20992 + 8192) / 2};
	struct model m;
	struct profile pq, p16, pm, p8;
	struct analytic_opts o;
	int i, j;

	tiny_hybrid(&m);
	m.moe.latent = 16;
	m.moe.shared_experts = 1;
	m.moe.shared_ffn = 32;
	m.mtp_layers = 1;
	strcpy(m.mtp_pattern, "*E");
	CHECK(model_validate(&m, "tiny") == 0);
	analytic_opts_init(&o);
	/* what selective recomputation spares, the saved GEMM inputs
	 * among it, alike too */
	o.rc_modules = ANALYTIC_RC_CORE_ATTN | ANALYTIC_RC_LAYERNORM |
		       ANALYTIC_RC_MOE_ACT | ANALYTIC_RC_MLP;
	m.precision = MODEL_BF16;
	CHECK(run_o(&p16, &m, "GB200", 2, &o) == 0);
	m.precision = MODEL_FP8;
	o.fp8_recipe = FP8_MXFP8;
	CHECK(run_o(&p8, &m, "GB200", 2, &o) == 0);
	o.fp8_recipe = FP8_DELAYED;
	m.precision = MODEL_NVFP4;
	CHECK(run_o(&pq, &m, "GB200", 2, &o) == 0);
	for (i = 0; i < ANALYTIC_SITES; i++)
		o.site_prec[i] = ANALYTIC_MP_16;
	CHECK(run_o(&pm, &m, "GB200", 2, &o) == 0);
	CHECK(same_layers(&pm, &p16));
	CHECK(!same_layers(&pq, &p16));
	CHECK_NEAR(pm.tp_block_bytes, 1, 0);
	CHECK(pq.tp_block_bytes < 1);
	for (j = 0; j < 5; j++) {
		CHECK_INT_EQ(pm.layers[1 + j].params16, w16[j]);
		CHECK_INT_EQ(pq.layers[1 + j].params16, 0);
	}
	/* the MTP module's attention and MoE layers, one set of weights */
	CHECK_INT_EQ(pm.layers[6].params16, w16[1] + w16[3]);
	profile_release(&pm);
	for (i = 0; i < ANALYTIC_SITES; i++)
		o.site_prec[i] = ANALYTIC_MP_FP8 + FP8_MXFP8;
	CHECK(run_o(&pm, &m, "GB200", 2, &o) == 0);
	CHECK(same_layers(&pm, &p8));
	CHECK_NEAR(pm.tp_block_bytes, p8.tp_block_bytes, 0);
	CHECK_INT_EQ(pm.layers[1].params16, 0);
	profile_release(&pm);
	/* the Mamba output projection alone: the Mamba layers move, the
	 * others are the NVFP4 model's */
	memset(o.site_prec, 0, sizeof(o.site_prec));
	o.site_prec[ANALYTIC_SITE_MAMBA_OUT] = ANALYTIC_MP_16;
	CHECK(run_o(&pm, &m, "GB200", 2, &o) == 0);
	CHECK(pm.layers[1].pt[0].fwd_ms != pq.layers[1].pt[0].fwd_ms);
	CHECK(pm.layers[5].pt[0].bwd_ms != pq.layers[5].pt[0].bwd_ms);
	for (j = 2; j <= 4; j++)
		CHECK(pm.layers[j].pt[0].fwd_ms == pq.layers[j].pt[0].fwd_ms &&
		      pm.layers[j].pt[0].bwd_ms == pq.layers[j].pt[0].bwd_ms);
	CHECK_INT_EQ(pm.layers[1].params16, 8192 / 2);
	CHECK_NEAR(pm.tp_block_bytes, pq.tp_block_bytes, 0);
	profile_release(&pm);
	/* QKV alone in 16 bits: the attention layer's gathers at 16 bits,
	 * the others' at NVFP4's (each copy 0.5625 bytes a value, both
	 * gathered: 1.5 x 0.5625 / 2 of the 16-bit bytes, on half the
	 * pairs) */
	memset(o.site_prec, 0, sizeof(o.site_prec));
	o.site_prec[ANALYTIC_SITE_QKV] = ANALYTIC_MP_16;
	CHECK(run_o(&pm, &m, "GB200", 2, &o) == 0);
	CHECK_NEAR(pq.tp_block_bytes, (1 + 1.5 * 0.5625 / 2) / 2, 1e-12);
	CHECK_NEAR(pm.layers[2].tp_bytes, 1, 0);
	for (j = 1; j <= 5; j++)
		if (j != 2)
			CHECK_NEAR(pm.layers[j].tp_bytes, pq.tp_block_bytes,
				   1e-12);
	CHECK_NEAR(pq.layers[2].tp_bytes, 0, 0);
	{
		struct chain cq, cm;

		CHECK(chain_build(&cq, &pq) == 0);
		CHECK(chain_build(&cm, &pm) == 0);
		CHECK_NEAR(chain_tp_bytes(&cm, 0, PROF_RC_NONE, 2, 2) /
				   chain_tp_bytes(&cq, 0, PROF_RC_NONE, 2, 2),
			   1 / pq.tp_block_bytes, 1e-12);
		CHECK_NEAR(chain_tp_bytes(&cm, 0, PROF_RC_NONE, 1, 1),
			   chain_tp_bytes(&cq, 0, PROF_RC_NONE, 1, 1), 0);
		chain_release(&cq);
		chain_release(&cm);
	}
	profile_release(&pm);
	/* a kind the model lacks is refused, not ignored */
	m.moe.latent = 0;
	CHECK(model_validate(&m, "tiny") == 0);
	o.site_prec[ANALYTIC_SITE_MAMBA_OUT] = 0;
	o.site_prec[ANALYTIC_SITE_LATENT] = ANALYTIC_MP_16;
	CHECK(run_o(&pm, &m, "GB200", 2, &o) != 0);
	profile_release(&pm);
	m.moe.latent = 16;
	o.site_prec[ANALYTIC_SITE_LATENT] = 0;
	o.site_prec[ANALYTIC_SITE_MAMBA_OUT] = ANALYTIC_MP_16;
	/* a 16-bit model has nothing to override; nor has a GPU without
	 * NVFP4 */
	m.precision = MODEL_BF16;
	CHECK(run_o(&pm, &m, "GB200", 2, &o) != 0);
	profile_release(&pm);
	m.precision = MODEL_FP8;
	o.site_prec[ANALYTIC_SITE_QKV] = ANALYTIC_MP_NVFP4;
	CHECK(run_o(&pm, &m, "H100-SXM", 2, &o) != 0);
	profile_release(&pm);
	profile_release(&pq);
	profile_release(&p16);
	profile_release(&p8);
}

/* The list's canonical form, and what it refuses. */
static void
test_site_prec_parse(void)
{
	unsigned char sp[ANALYTIC_SITES];
	char buf[256], err[200];

	CHECK(analytic_site_prec_parse("mtp=bf16,qkv=bf16,mamba-out=mxfp8,"
				       "experts=nvfp4,shared-experts=tensorwise",
				       sp, err, sizeof(err)) == 0);
	CHECK_INT_EQ(sp[ANALYTIC_SITE_QKV], ANALYTIC_MP_16);
	CHECK_INT_EQ(sp[ANALYTIC_SITE_PROJ], 0);
	CHECK_INT_EQ(sp[ANALYTIC_SITE_EXPERTS], ANALYTIC_MP_NVFP4);
	CHECK_INT_EQ(sp[ANALYTIC_SITE_MAMBA_OUT],
		     ANALYTIC_MP_FP8 + FP8_MXFP8);
	CHECK(analytic_site_prec_any(sp));
	analytic_site_prec_format(sp, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "qkv=bf16,experts=nvfp4,shared-experts=tensorwise,"
			  "mamba-out=mxfp8,mtp=bf16");
	CHECK(analytic_site_prec_parse(buf, sp, err, sizeof(err)) == 0);
	analytic_site_prec_format(sp, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "qkv=bf16,experts=nvfp4,shared-experts=tensorwise,"
			  "mamba-out=mxfp8,mtp=bf16");
	CHECK(analytic_site_prec_parse("qkv=delayed", sp, err,
				       sizeof(err)) != 0);
	CHECK(strstr(err, "delayed") != NULL);
	CHECK(analytic_site_prec_parse("qkv=bf16,qkv=mxfp8", sp, err,
				       sizeof(err)) != 0);
	CHECK_STR_EQ(err, "site qkv given twice");
	CHECK(analytic_site_prec_parse("fc3=bf16", sp, err, sizeof(err)) !=
	      0);
	CHECK(analytic_site_prec_parse("qkv=bf16,", sp, err, sizeof(err)) !=
	      0);
	CHECK(analytic_site_prec_parse("", sp, err, sizeof(err)) != 0);
	CHECK(analytic_site_prec_parse("qkv", sp, err, sizeof(err)) != 0);
	CHECK(analytic_site_prec_parse("=bf16", sp, err, sizeof(err)) != 0);
	memset(sp, 0, sizeof(sp));
	CHECK(!analytic_site_prec_any(sp));
	analytic_site_prec_format(sp, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "");
}

int
main(int argc, char **argv)
{
	(void)argc;
	(void)h_skip;
	(void)h_skip_all;
	cap_find_top(argv[0]);
	catalog_init(&cat);
	test_layers();
	test_mamba_kernels();
	test_tp();
	test_latent_mtp();
	test_module_precision();
	test_site_prec_parse();
	catalog_release(&cat);
	return h_done();
}
