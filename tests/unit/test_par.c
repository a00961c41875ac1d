/*
 * test_par.c - context parallelism in the cost model, against hand counts:
 * the K/V bytes a rank sends per ring step (analytic.c), the part of the
 * ring its attention does not hide (comm.c cost_cp()), the per-rank
 * shapes (tokens, attention pairs, stash), the data x context-parallel
 * gradient ring (cost_dp_sync()) and the optimizer state sharded over it,
 * the placement of the ring (place.c), and the degrees refused; expert
 * parallelism likewise: the dispatch all-to-all's bytes and the experts
 * per GPU (analytic.c), the all-to-alls' time (cost_ep()), the experts'
 * own gradient ring, the group's links, the degrees refused, torchtitan's
 * bytes, FSDP of the experts and rules; and the
 * search over context-parallel shapes against brute force (the plan and its
 * alternatives).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "capture.h"
#include "pd2bw/analytic.h"
#include "pd2bw/chain.h"
#include "pd2bw/cluster.h"
#include "pd2bw/cost.h"
#include "pd2bw/error.h"
#include "pd2bw/place.h"
#include "pd2bw/plan.h"
#include "pd2bw/search.h"

static struct gpu_catalog cat;

/* Llama 3 8B at 8192 tokens: 32 heads, 8 KV heads of 128. */
static void
llama8(struct model *m)
{
	model_init_family(m, MODEL_LLAMA);
	m->name = "llama-3-8b";
	m->layers = 4;
	m->hidden = 4096;
	m->heads = 32;
	m->kv_heads = 8;
	m->ffn_hidden = 14336;
	m->seq_len = 8192;
	m->vocab = 128256;
}

/* A small Qwen3-30B-A3B: 128 experts of 768, top 8, hidden 2048. */
static void
moe30(struct model *m)
{
	llama8(m);
	m->name = "moe-30";
	m->layers = 2;
	m->hidden = 2048;
	m->heads = 32;
	m->kv_heads = 4;
	m->ffn_hidden = 6144;
	m->seq_len = 4096;
	m->vocab = 151936;
	m->moe.experts = 128;
	m->moe.top_k = 8;
	m->moe.expert_ffn = 768;
	m->moe.every = 1;
}

static int
run_ep(struct profile *p, const struct model *m, int tp, int ep, int etp,
       double imb)
{
	static const int mb[] = {1};
	struct analytic_par par;

	memset(&par, 0, sizeof(par));
	par.tp = tp;
	par.sp = tp > 1;
	par.cp = 1;
	par.ep = ep;
	par.etp = etp;
	par.imbalance = imb;
	profile_init(p);
	return analytic_profile_par(p, m, catalog_find(&cat, "H100-SXM"), mb,
				    1, &par, NULL);
}

static int
run(struct profile *p, const struct model *m, int tp, int cp)
{
	static const int mb[] = {1, 2};
	struct analytic_par par;

	memset(&par, 0, sizeof(par));
	par.tp = tp;
	par.sp = tp > 1;
	par.cp = cp;
	par.ep = 1;
	par.imbalance = 1;
	profile_init(p);
	return analytic_profile_par(p, m, catalog_find(&cat, "H100-SXM"), mb,
				    2, &par, NULL);
}

/* Links of one stage whose context-parallel ring runs at gb_s. */
static void
links(struct place_links *l, double *v, double gb_s)
{
	memset(l, 0, sizeof(*l));
	memset(v, 0, 8 * sizeof(*v));
	l->in_gb_s = l->ring_gb_s = l->edp_gb_s = v;
	l->tp_gb_s = v + 1;
	l->in_lat_us = l->ring_lat_us = l->tp_lat_us = l->edp_lat_us = v + 4;
	l->cp_gb_s = v + 2;
	l->cp_lat_us = v + 3;
	v[2] = gb_s;
}

static void
test_shapes(void)
{
	struct profile p1, p2, p4;
	struct model m;
	const struct prof_point *b1, *b2, *b4;

	llama8(&m);
	CHECK(run(&p1, &m, 1, 1) == 0);
	CHECK(run(&p2, &m, 1, 2) == 0);
	CHECK(run(&p4, &m, 2, 4) == 0);
	CHECK_INT_EQ(p2.cp, 2);
	b1 = &p1.layers[1].pt[0];
	b2 = &p2.layers[1].pt[0];
	b4 = &p4.layers[1].pt[0];
	/* without context parallelism nothing is exchanged */
	CHECK(b1->cp_kv_bytes == 0);
	/* K and V of a rank's 4096 tokens, 8 heads of 128, bf16:
	 * 2 x 4096 x 8 x 128 x 2 bytes */
	CHECK_NEAR(b2->cp_kv_bytes, 16777216.0, 0);
	/* t = 2 keeps 4 KV heads per GPU, c = 4 2048 tokens */
	CHECK_NEAR(b4->cp_kv_bytes, 2.0 * 2048 * 4 * 128 * 2, 0);
	/* per-rank tokens: the boundary activation is b s/c h bytes */
	CHECK_INT_EQ(b2->out_bytes, 4096LL * 4096 * 2);
	/* each rank's queries meet all keys: half the model's FLOPs */
	CHECK_NEAR(b2->fwd_flops / b1->fwd_flops, 0.5, 1e-12);
	/* the attention passes the ring overlaps: about half of the
	 * whole layer's, plus the steps' corrections and launches */
	CHECK(b2->attn_fwd_ms > 0.45 * p1.layers[1].pt[0].recomp_ms[1] &&
	      b2->attn_fwd_ms < 0.6 * p1.layers[1].pt[0].recomp_ms[1]);
	CHECK(b2->attn_bwd_ms > 2 * b2->attn_fwd_ms);
	/* activations per rank: half of every term (the stash is linear in
	 * the tokens with fused attention) */
	CHECK_NEAR((double)b2->stash_bytes[PROF_RC_NONE] /
			   (double)b1->stash_bytes[PROF_RC_NONE],
		   0.5, 1e-9);
	profile_release(&p1);
	profile_release(&p2);
	profile_release(&p4);
}

/* Llama 3 8B's profile at context-parallel degree cp, microbatch 1, with
 * PyTorch's fp32 ring corrections (f32) or Transformer Engine's. */
static void
ring_profile(struct profile *p, int cp, int f32)
{
	static const int mb[] = {1};
	struct analytic_par par;
	struct analytic_opts o;
	struct model m;

	llama8(&m);
	memset(&par, 0, sizeof(par));
	par.tp = par.ep = 1;
	par.cp = cp;
	par.imbalance = 1;
	analytic_opts_init(&o);
	o.cp_f32 = f32;
	profile_init(p);
	CHECK(analytic_profile_par(p, &m, catalog_find(&cat, "H100-SXM"), mb,
				   1, &par, &o) == 0);
}

/*
 * PyTorch's ring (torchtitan: analytic_opts cp_f32) corrects in fp32 with
 * eager operators where Transformer Engine's does it in place at 16 bits
 * (analytic.c ring_ms()).  Llama 3 8B at c = 2, 4096 tokens a rank: q =
 * 4096 x 32 x 128 output elements, kv = 4096 x 8 x 128 per K and V.
 * Forward: one corrected step, 38 q bytes against 6 q, and once 12 q
 * (a kernel of its own, 3 us); backward: 10 q + 42 kv against 6 q +
 * 12 kv, once 10 q + 20 kv; at H100's 3350 GB/s x 0.8.
 */
/*
 * torchtitan's repeat_kv (analytic_opts repeat_kv): Llama 3 8B's 8 K/V
 * heads copied out to its 32 query heads before the kernel, 8192 tokens:
 * forward, read 8192 x 8 x 128 values of K and of V and write 8192 x 32 x
 * 128 of each, 2 bytes a value, in one kernel (3 us) at H100's 3350 GB/s
 * x 0.8; backward, their gradients summed back alike; the kernel itself
 * compute-bound either way.  Under context parallelism the ring moves
 * the copies: four times the K/V bytes.  The kernel keeps the copies for
 * backward: without recomputation the stash grows by K and V at 24 more
 * heads; under torchtitan's per-op policy the copies are made again in
 * backward and the stash stays.
 */
static void
test_repeat_kv(void)
{
	static const int mb[] = {1};
	struct analytic_par par;
	struct analytic_opts o;
	struct profile pg, pr;
	struct model m;
	const double g = 8192.0 * 8 * 128, r = 8192.0 * 32 * 128;
	const double copy = 2 * (g + r) * 2 / (3350e9 * 0.8) * 1e3 + 3e-3;
	int cp;

	llama8(&m);
	for (cp = 1; cp <= 2; cp++) {
		memset(&par, 0, sizeof(par));
		par.tp = par.ep = 1;
		par.cp = cp;
		par.imbalance = 1;
		analytic_opts_init(&o);
		profile_init(&pg);
		CHECK(analytic_profile_par(&pg, &m,
					   catalog_find(&cat, "H100-SXM"), mb, 1,
					   &par, &o) == 0);
		o.repeat_kv = 1;
		profile_init(&pr);
		CHECK(analytic_profile_par(&pr, &m,
					   catalog_find(&cat, "H100-SXM"), mb, 1,
					   &par, &o) == 0);
		if (cp == 1) {
			CHECK_INT_EQ(pr.layers[1].pt[0].stash_bytes[PROF_RC_NONE] -
					     pg.layers[1].pt[0]
						     .stash_bytes[PROF_RC_NONE],
				     (int64_t)(2 * 8192 * 24 * 128 * 2));
			CHECK_NEAR(pr.layers[1].pt[0].fwd_ms -
					   pg.layers[1].pt[0].fwd_ms,
				   copy, 1e-9);
			CHECK_NEAR(pr.layers[1].pt[0].bwd_ms -
					   pg.layers[1].pt[0].bwd_ms,
				   copy, 1e-9);
		} else {
			CHECK_NEAR(pr.layers[1].pt[0].cp_kv_bytes,
				   4 * pg.layers[1].pt[0].cp_kv_bytes, 0);
		}
		profile_release(&pr);
		profile_release(&pg);
	}
	memset(&par, 0, sizeof(par));
	par.tp = par.ep = par.cp = 1;
	par.imbalance = 1;
	analytic_opts_init(&o);
	o.rc_modules = ANALYTIC_RC_OP;
	profile_init(&pg);
	CHECK(analytic_profile_par(&pg, &m, catalog_find(&cat, "H100-SXM"), mb,
				   1, &par, &o) == 0);
	o.repeat_kv = 1;
	profile_init(&pr);
	CHECK(analytic_profile_par(&pr, &m, catalog_find(&cat, "H100-SXM"), mb,
				   1, &par, &o) == 0);
	CHECK_INT_EQ(pr.layers[1].pt[0].stash_bytes[PROF_RC_SELECTIVE],
		     pg.layers[1].pt[0].stash_bytes[PROF_RC_SELECTIVE]);
	profile_release(&pr);
	profile_release(&pg);
}

static void
test_ring_f32(void)
{
	struct profile pte, ppt;
	const double q = 4096.0 * 32 * 128, kv = 4096.0 * 8 * 128;
	const double bw = 3350e9 * 0.8;
	const struct prof_point *a, *b;

	ring_profile(&pte, 2, 0);
	ring_profile(&ppt, 2, 1);
	a = &pte.layers[1].pt[0];
	b = &ppt.layers[1].pt[0];
	CHECK_NEAR(b->attn_fwd_ms - a->attn_fwd_ms,
		   ((38 - 6) * q + 12 * q) / bw * 1e3 + 3e-3, 1e-9);
	CHECK_NEAR(b->attn_bwd_ms - a->attn_bwd_ms,
		   ((10 - 6) * q + (42 - 12) * kv + 10 * q + 20 * kv) / bw *
				   1e3 +
			   3e-3,
		   1e-9);
	profile_release(&ppt);
	profile_release(&pte);
	/* without context parallelism nothing is corrected */
	ring_profile(&pte, 1, 0);
	ring_profile(&ppt, 1, 1);
	CHECK_NEAR(ppt.layers[1].pt[0].fwd_ms, pte.layers[1].pt[0].fwd_ms, 0);
	CHECK_NEAR(ppt.layers[1].pt[0].bwd_ms, pte.layers[1].pt[0].bwd_ms, 0);
	profile_release(&ppt);
	profile_release(&pte);
}

static void
test_ring(void)
{
	struct profile p;
	struct chain c;
	struct place_links l;
	struct cost_cfg g;
	double v[8];

	/* One block by hand: K/V 100 MB per step, attention forward 1 ms
	 * and backward 2.5 ms per rank; the ring at 100 GB/s moves 100 MB
	 * in 1 ms (latency 0). */
	profile_init(&p);
	profile_alloc(&p, 1, 1);
	p.mb[0] = 1;
	p.cp = 2;
	p.seq_len = 1024;
	p.hidden = 64;
	p.layers[0].name = xstrdup("block");
	p.layers[0].kind = PROF_BLOCK;
	p.layers[0].repeat = 3;
	p.layers[0].params = 1000;
	p.layers[0].pt[0].fwd_ms = 4;
	p.layers[0].pt[0].bwd_ms = 8;
	p.layers[0].pt[0].cp_kv_bytes = 1e8;
	p.layers[0].pt[0].attn_fwd_ms = 1;
	p.layers[0].pt[0].attn_bwd_ms = 2.5;
	CHECK(chain_build(&c, &p) == 0);
	links(&l, v, 100);
	memset(&g, 0, sizeof(g));
	g.sched = PLAN_FLUSH;
	g.w = g.d = g.t = g.v = 1;
	/* c = 2: forward one step, 1 ms of transfer against 0.5 ms of
	 * attention: 0.5 exposed; backward two steps of K/V then dK/dV,
	 * 1 ms each against 1.25: hidden.  Per layer 0.5 ms. */
	g.c = 2;
	CHECK_NEAR(cost_cp(&c, &g, &l, 0, 0, 0), 0.5, 1e-12);
	CHECK_NEAR(cost_cp(&c, &g, &l, 0, 0, 2), 1.5, 1e-12);
	/* recomputing the attention runs the forward ring again */
	g.r = PROF_RC_FULL;
	CHECK_NEAR(cost_cp(&c, &g, &l, 0, 0, 0), 1.0, 1e-12);
	g.r = PROF_RC_SELECTIVE;
	CHECK_NEAR(cost_cp(&c, &g, &l, 0, 1, 1), 1.0, 1e-12);
	g.r = PROF_RC_NONE;
	/* c = 4 (the chain's times read as that degree's): forward 3 x
	 * (1 - 0.25) = 2.25; backward K/V 1 - 0.625, two steps of K/V and
	 * dK/dV 2 x (2 - 0.625), dK/dV 1 - 0.625: 3.5; 5.75 ms */
	g.c = 4;
	CHECK_NEAR(cost_cp(&c, &g, &l, 0, 0, 0), 5.75, 1e-12);
	/* a fast enough ring hides everything */
	v[2] = 1000;
	CHECK_NEAR(cost_cp(&c, &g, &l, 0, 0, 2), 0, 1e-12);
	/* no context parallelism, nothing */
	g.c = 1;
	v[2] = 100;
	CHECK_NEAR(cost_cp(&c, &g, &l, 0, 0, 2), 0, 0);
	chain_release(&c);
	profile_release(&p);
}

static void
test_dp_ring(void)
{
	struct cost_opts o;
	struct cost_cfg g;
	struct place_links l;
	double v[8], red, gat, want;

	cost_opts_init(&o);
	o.runtime = RUNTIME_MEGATRON_CORE;
	memset(&g, 0, sizeof(g));
	g.sched = PLAN_FLUSH;
	g.w = 2;
	g.d = g.t = g.v = 1;
	g.c = 4;
	g.rt = &o.rts[RUNTIME_MEGATRON_CORE];
	links(&l, v, 100);
	v[0] = 50;  /* the replicas' ring: the slower */
	v[1] = 0;
	/* 1e9 parameters, fp32 gradients (bf16, grad-reduce-fp32): one
	 * ring all-reduce over w c = 8 ranks at 50 GB/s, 2 x 7/8 x 4e9
	 * bytes = 140 ms (the tree would move 2 x 4e9: slower) */
	cost_dp_sync(&o, &g, &l, 0, 1000000000, &red, &gat);
	CHECK_NEAR(red, 140, 1e-9);
	CHECK_NEAR(gat, 0, 0);
	/* sharded: reduce-scatter 7/8 x 4e9 and all-gather 7/8 x 2e9 */
	g.zero = 1;
	cost_dp_sync(&o, &g, &l, 0, 1000000000, &red, &gat);
	CHECK_NEAR(red, 70, 1e-9);
	CHECK_NEAR(gat, 35, 1e-9);
	/* one replica: the ring is the context-parallel one */
	g.w = 1;
	cost_dp_sync(&o, &g, &l, 0, 1000000000, &red, &gat);
	want = 3.0 / 4 * 4e9 / 100e6;
	CHECK_NEAR(red, want, 1e-9);
	/* optimizer state over w c ranks: 12 / 4 + 2 + 4 bytes */
	CHECK_NEAR(cost_param_bytes(&o, &g), 2 + 4 + 12.0 / 4, 1e-12);
	g.w = 2;
	CHECK_NEAR(cost_param_bytes(&o, &g), 2 + 4 + 12.0 / 8, 1e-12);

	/* FP8 parameters (--fp8-param-gather, on by default): the FP8
	 * weight and its transpose, 2 bytes, gathered in FP8: 7/8 x 1e9 x
	 * 1 byte at 50 GB/s = 17.5 ms */
	o.precision = MODEL_FP8;
	o.fp8_recipe = FP8_TENSORWISE;
	CHECK(cost_fp8_params(&o, &g));
	cost_dp_sync(&o, &g, &l, 0, 1000000000, &red, &gat);
	CHECK_NEAR(red, 70, 1e-9);
	CHECK_NEAR(gat, 17.5, 1e-9);
	CHECK_NEAR(cost_param_bytes(&o, &g), 2 + 4 + 12.0 / 8, 1e-12);
	/* on Blackwell, whose FP8 GEMMs take either layout, Transformer
	 * Engine keeps one per-tensor copy (cost_fp8_copies()): 1 byte;
	 * beside the 16-bit weights (no FP8 parameters) 3, not 4; MXFP8
	 * keeps its rowwise and columnwise copies */
	o.fp8_any_layout = 1;
	CHECK_INT_EQ(cost_fp8_copies(&o, &g), 1);
	CHECK_NEAR(cost_param_bytes(&o, &g), 1 + 4 + 12.0 / 8, 1e-12);
	o.rts[RUNTIME_MEGATRON_CORE].opts &=
		~(1u << RUNTIME_OPT_FP8_PARAM_GATHER);
	o.fp8_recipe = FP8_DELAYED;
	CHECK_INT_EQ(cost_fp8_copies(&o, &g), 1);
	CHECK_NEAR(cost_param_bytes(&o, &g), 3 + 4 + 12.0 / 8, 1e-12);
	o.fp8_recipe = FP8_MXFP8;
	CHECK_INT_EQ(cost_fp8_copies(&o, &g), 2);
	CHECK_NEAR(cost_param_bytes(&o, &g), 4 + 4 + 12.0 / 8, 1e-12);
	o.rts[RUNTIME_MEGATRON_CORE].opts |= 1u << RUNTIME_OPT_FP8_PARAM_GATHER;
	o.fp8_any_layout = 0;
	o.fp8_recipe = FP8_TENSORWISE;
	CHECK_INT_EQ(cost_fp8_copies(&o, &g), 2);
	/* blockwise keeps the 16-bit weights beside FP8 copies: 4 bytes,
	 * gathered in 16 bits */
	o.fp8_recipe = FP8_BLOCKWISE;
	CHECK(!cost_fp8_params(&o, &g));
	cost_dp_sync(&o, &g, &l, 0, 1000000000, &red, &gat);
	CHECK_NEAR(gat, 35, 1e-9);
	CHECK_NEAR(cost_param_bytes(&o, &g), 4 + 4 + 12.0 / 8, 1e-12);
	/* so does a runtime without the option, or no distributed
	 * optimizer (Megatron-LM arguments.py:1095-1097) */
	o.fp8_recipe = FP8_MXFP8;
	o.rts[RUNTIME_MEGATRON_CORE].opts &=
		~(1u << RUNTIME_OPT_FP8_PARAM_GATHER);
	CHECK(!cost_fp8_params(&o, &g));
	CHECK_NEAR(cost_param_bytes(&o, &g), 4 + 4 + 12.0 / 8, 1e-12);
	o.rts[RUNTIME_MEGATRON_CORE].opts |= 1u << RUNTIME_OPT_FP8_PARAM_GATHER;
	CHECK(cost_fp8_params(&o, &g));
	g.zero = 0;
	CHECK(!cost_fp8_params(&o, &g));
	CHECK_NEAR(cost_param_bytes(&o, &g), 4 + 4 + 12, 1e-12);
	/* NVFP4: copies of half a byte and an E4M3 scale per 16 values,
	 * 0.5625 bytes; the 16-bit weights beside two of them (3.125
	 * bytes), or the two alone under --fp4-param-gather, gathered as
	 * NVFP4: 7/8 x 1e9 x 0.5625 bytes at 50 GB/s = 9.84375 ms */
	o.precision = MODEL_NVFP4;
	CHECK_NEAR(cost_quant_bytes(&o), 0.5625, 0);
	CHECK(!cost_fp8_params(&o, &g));
	CHECK_NEAR(cost_param_bytes(&o, &g), 3.125 + 4 + 12, 1e-12);
	g.zero = 1;
	o.fp8_recipe = FP8_BLOCKWISE; /* an FP8 recipe: not NVFP4's */
	CHECK(cost_fp8_params(&o, &g));
	CHECK_NEAR(cost_gather_bytes(&o, &g), 0.5625, 0);
	cost_dp_sync(&o, &g, &l, 0, 1000000000, &red, &gat);
	CHECK_NEAR(gat, 9.84375, 1e-9);
	CHECK_NEAR(cost_param_bytes(&o, &g), 1.125 + 4 + 12.0 / 8, 1e-12);
}

static void
test_place(void)
{
	struct cluster cl;
	struct place_links l;

	/* 2 nodes of 8 H100s: t = 4, c = 2 fills a node, the ring stays
	 * on NVLink; t = 4, c = 4 crosses to the other node. */
	cluster_init(&cl);
	CHECK(cluster_open(&cl, "dgx-h100:2") == 0);
	place_links_init(&l, &cl, 1);
	place_links_fill_par(&l, &cl, PLAN_STAGES_IN_NODE, 2, 1, 4, 2, 1, 4);
	CHECK_NEAR(l.cp_gb_s[0], cluster_intra(&cl, 0, 4) * 370 / 450, 1e-9);
	CHECK_NEAR(l.cp_lat_us[0], cl.intra_latency_us, 1e-9);
	/* the data-parallel ring joins the two groups through the NICs */
	CHECK(l.ring_gb_s[0] < l.cp_gb_s[0]);
	place_links_fill_par(&l, &cl, PLAN_STAGES_IN_NODE, 1, 1, 4, 4, 1, 4);
	CHECK(l.cp_gb_s[0] < cluster_intra(&cl, 0, 4));
	CHECK_NEAR(l.cp_lat_us[0], cl.net_latency_us, 1e-9);
	/* tensor-parallel rings stay within each block of 4 */
	CHECK_NEAR(l.tp_gb_s[0], cluster_intra(&cl, 0, 1) * 370 / 450, 1e-9);
	place_links_release(&l);
	cluster_release(&cl);
}

static void
test_refused(void)
{
	struct model m;
	struct profile p;
	char why[256];

	llama8(&m);
	CHECK(analytic_cp_check(&m, 1, why, sizeof(why)) == 0);
	CHECK(analytic_cp_check(&m, 8, why, sizeof(why)) == 0);
	/* 8192 tokens are not 6 equal chunks (2 per rank, causal) */
	CHECK(analytic_cp_check(&m, 3, why, sizeof(why)) < 0);
	CHECK(strstr(why, "6 equal chunks") != NULL);
	/* non-causal: c chunks */
	m.causal = 0;
	m.seq_len = 6 * 1024;
	CHECK(analytic_cp_check(&m, 3, why, sizeof(why)) == 0);
	m.causal = 1;
	CHECK(analytic_cp_check(&m, 3, why, sizeof(why)) == 0);
	CHECK(analytic_cp_check(&m, 5, why, sizeof(why)) < 0);
	m.seq_len = 8192;
	m.flash_attention = 0;
	CHECK(analytic_cp_check(&m, 2, why, sizeof(why)) < 0);
	CHECK(strstr(why, "fused attention") != NULL);
	m.flash_attention = 1;
	m.window = 4096;
	CHECK(analytic_cp_check(&m, 2, why, sizeof(why)) < 0);
	CHECK(strstr(why, "sliding-window") != NULL);
	m.window = 0;
	profile_init(&p);
	CHECK(run(&p, &m, 1, 5) < 0);
	profile_release(&p);
}

static void
test_ep_shapes(void)
{
	struct profile p1, p8, pt, p1t, pi;
	struct model m;
	const struct prof_point *b1, *b8;
	char why[256];

	moe30(&m);
	CHECK(run_ep(&p1, &m, 1, 1, 0, 1) == 0);
	CHECK(run_ep(&p8, &m, 1, 8, 0, 1) == 0);
	b1 = &p1.layers[1].pt[0];
	b8 = &p8.layers[1].pt[0];
	CHECK(b1->ep_a2a_bytes == 0);
	/* dispatch buffer: 4096 tokens x top 8 rows of 2048 bf16 values */
	CHECK_NEAR(b8->ep_a2a_bytes, 4096.0 * 8 * 2048 * 2, 0);
	/* 16 of the 128 experts per GPU: 16 x 3 x 2048 x 768 */
	CHECK_INT_EQ(p8.layers[1].expert_params, 16LL * 3 * 2048 * 768);
	CHECK_INT_EQ(p1.layers[1].expert_params, 128LL * 3 * 2048 * 768);
	CHECK_INT_EQ(p1.layers[1].params - p8.layers[1].params,
		     112LL * 3 * 2048 * 768);
	/* the same rows on fewer experts: the same FLOPs, no more time */
	CHECK_NEAR(b8->fwd_flops, b1->fwd_flops, 0);
	CHECK(b8->fwd_ms <= b1->fwd_ms * 1.0001);
	/* t = 2 with sequence parallelism: experts split two ways (the
	 * default), each GPU sends its 2048 tokens' rows */
	CHECK(run_ep(&pt, &m, 2, 8, 0, 1) == 0);
	CHECK_NEAR(pt.layers[1].pt[0].ep_a2a_bytes, 2048.0 * 8 * 2048 * 2,
		   0);
	CHECK_INT_EQ(pt.layers[1].expert_params, 16LL * 3 * 2048 * 384);
	/* expert tensor parallelism 1: whole experts, the same rows */
	CHECK(run_ep(&p1t, &m, 2, 8, 1, 1) == 0);
	CHECK_INT_EQ(p1t.etp, 1);
	CHECK_NEAR(p1t.layers[1].pt[0].ep_a2a_bytes, 2048.0 * 8 * 2048 * 2,
		   0);
	CHECK_INT_EQ(p1t.layers[1].expert_params, 16LL * 3 * 2048 * 768);
	/* imbalance 1.5: the busiest GPU receives half as much again */
	CHECK(run_ep(&pi, &m, 1, 8, 0, 1.5) == 0);
	CHECK_NEAR(pi.layers[1].pt[0].ep_a2a_bytes,
		   1.5 * 4096 * 8 * 2048 * 2, 0);
	CHECK(pi.layers[1].pt[0].bwd_ms > b8->bwd_ms);
	/* refused: 3 does not divide 128 experts; a dense model */
	CHECK(analytic_ep_check(&m, 3, why, sizeof(why)) < 0);
	CHECK(strstr(why, "does not divide the 128 experts") != NULL);
	CHECK(analytic_ep_check(&m, 128, why, sizeof(why)) == 0);
	llama8(&m);
	CHECK(analytic_ep_check(&m, 2, why, sizeof(why)) < 0);
	CHECK(strstr(why, "dense") != NULL);
	profile_release(&p1);
	profile_release(&p8);
	profile_release(&pt);
	profile_release(&p1t);
	profile_release(&pi);
}

/* run_ep() on g, expert parallelism only (t = 1). */
static int
run_ep_on(struct profile *p, const struct model *m,
	  const struct gpu_spec *g, int ep)
{
	static const int mb[] = {1};
	struct analytic_par par;

	memset(&par, 0, sizeof(par));
	par.tp = 1;
	par.cp = 1;
	par.ep = ep;
	par.imbalance = 1;
	profile_init(p);
	return analytic_profile_par(p, m, g, mb, 1, &par, NULL);
}

/*
 * The MoE kernels that depend on the experts a GPU holds, against hand
 * counts on an H100 (HBM 3350 GB/s x mem_eff 0.8 = 2680 GB/s, 3 us per
 * kernel), the small Qwen3-30B-A3B at b = 1, s = 4096: R = 4096 x 8 =
 * 32768 routed rows of h = 2048 bf16 values on every GPU.
 *
 * Permutation 2 (token_dispatcher.py sort_chunks_by_idxs): with two
 * experts per GPU (ep 64) and not with one (ep 128), the received rows
 * are sorted by expert before the experts, with their fp32
 * probabilities, and back after them; in backward the same two passes.
 * Each pass reads and writes R h 2 bytes (+ 8 R for the probabilities):
 * forward (2 x 2 R h 2 + 8 R) / 2680e9 s + 2 x 3 us = 0.20642278 ms, and
 * as much backward.  On a GPU without an SM count the expert GEMMs run at
 * K / (K + 128) whatever their shape, so nothing else differs forward;
 * backward the weight gradients' K is each expert's rows, 16384 against
 * 32768: their 2 R h (768 + 1536) = 3.0924e11 FLOPs at 989.4e12 x 0.564
 * take (16512 / 16384 - 32896 / 32768) of 0.55417 ms more, 0.00216473
 * ms, 0.20858750 ms in all.  Transformer Engine runs a grouped GEMM as a
 * cuBLAS GEMM per expert: two experts launch one more kernel (3 us) for
 * each of the 2 forward and 4 backward grouped GEMMs: 0.21242278 ms
 * forward, 0.22058750 ms backward, 4 + 6 more kernels.
 *
 * The experts' second bias in eager PyTorch (experts.py _apply_bias,
 * models with linear biases): X = R h = 67108864 elements; forward 28 X
 * bytes in 2 x 16 per-expert kernels + cat + cast = 34 kernels, 0.70113739
 * + 0.102 = 0.80313739 ms at ep 8 (16 experts per GPU); backward 40 X
 * bytes in 1 + 16 + 4 x 16 + 1 = 82 kernels, 1.00162484 + 0.246 =
 * 1.24762484 ms.
 *
 * FP8 experts pad each expert's rows to the quantization block and drop
 * the padding after the GEMMs (experts.py quantization_padding and
 * _unpadding): at one expert per GPU (no sort, one GEMM per grouped
 * GEMM) an FP8 block runs 14 kernels more than a 16-bit one: 8 casts to
 * FP8 under delayed scaling, one per GEMM input forward (QKV's the
 * transpose after its norm; projection and the two grouped GEMMs; the
 * router's GEMM stays 16-bit, moe_utils.py RouterGatingLinearFunction)
 * and one per dgrad's grad output backward (the wgrads use the
 * forward's saved copies), and 6 padding copies (rows, probabilities and
 * output forward; their gradients backward).
 */
static void
test_ep_kernels(void)
{
	struct gpu_spec g = *catalog_find(&cat, "H100-SXM");
	struct profile p1, p2, pb;
	struct model m;
	const struct prof_point *a, *b;

	moe30(&m);
	g.sms = 0;
	CHECK(run_ep_on(&p1, &m, &g, 128) == 0);
	CHECK(run_ep_on(&p2, &m, &g, 64) == 0);
	a = &p1.layers[1].pt[0];
	b = &p2.layers[1].pt[0];
	CHECK_NEAR(b->fwd_ms - a->fwd_ms, 0.21242278, 1e-8);
	CHECK_NEAR(b->bwd_ms - a->bwd_ms, 0.22058750, 1e-8);
	CHECK_NEAR(b->kernels - a->kernels, 10, 0);
	profile_release(&p1);
	profile_release(&p2);

	CHECK(run_ep_on(&p1, &m, catalog_find(&cat, "H100-SXM"), 8) == 0);
	m.bias = 1;
	CHECK(run_ep_on(&pb, &m, catalog_find(&cat, "H100-SXM"), 8) == 0);
	a = &p1.layers[1].pt[0];
	b = &pb.layers[1].pt[0];
	CHECK_NEAR(b->fwd_ms - a->fwd_ms, 0.80313739, 1e-8);
	CHECK_NEAR(b->bwd_ms - a->bwd_ms, 1.24762484, 1e-8);
	CHECK_NEAR(b->kernels - a->kernels, 34 + 82, 0);
	profile_release(&p1);
	profile_release(&pb);

	m.bias = 0;
	CHECK(run_ep_on(&p1, &m, catalog_find(&cat, "H100-SXM"), 128) == 0);
	m.precision = MODEL_FP8;
	CHECK(run_ep_on(&pb, &m, catalog_find(&cat, "H100-SXM"), 128) == 0);
	CHECK_NEAR(pb.layers[1].pt[0].kernels - p1.layers[1].pt[0].kernels,
		   8 + 6, 0);
	profile_release(&p1);
	profile_release(&pb);
}

/*
 * A stage that recomputes nothing after layers that do: its recomputation
 * is the difference of two prefix sums, 12345.678 + 0.1 + 0.2 + 0.3 less
 * 12345.678 + 0.1 + 0.2 with and without the first layer's recomputation,
 * which rounds to -7.3e-13 in doubles; it must read 0, not a negative
 * time the simulator refuses (DeepSeek-V3 rows of bench/validate.sh with
 * recompute mlp, whose dense first layers alone recompute).
 */
static void
test_recompute_residue(void)
{
	static const double fb[3] = {0.1, 0.2, 0.3};
	struct profile p;
	struct chain c;
	struct cost_opts o;
	struct cost_cfg g;
	struct place_links l;
	struct plan_stage st;
	struct runtime rt;
	double v[12];
	int j;

	profile_init(&p);
	profile_alloc(&p, 1, 3);
	p.mb[0] = 1;
	p.seq_len = 1024;
	p.hidden = 64;
	for (j = 0; j < 3; j++) {
		p.layers[j].name = xstrdup("block");
		p.layers[j].kind = PROF_BLOCK;
		p.layers[j].repeat = 1;
		p.layers[j].params = 1000;
		p.layers[j].pt[0].fwd_ms = fb[j];
	}
	p.layers[0].pt[0].recomp_ms[PROF_RC_SELECTIVE] = 12345.678;
	CHECK(chain_build(&c, &p) == 0);
	CHECK(chain_time(&c, 0, PROF_RC_SELECTIVE, 2, 2) -
		      chain_time(&c, 0, PROF_RC_NONE, 2, 2) <
	      0);
	links(&l, v, 100);
	cost_opts_init(&o);
	memset(&g, 0, sizeof(g));
	g.sched = PLAN_FLUSH;
	g.w = g.d = g.t = g.v = g.e = g.m = 1;
	g.r = PROF_RC_SELECTIVE;
	CHECK(runtime_parse(&rt, "megatron-core") == 0);
	g.rt = &rt;
	cost_stage(&c, &o, &g, &l, 0, 2, 2, &st);
	CHECK(st.recompute_ms == 0);
	CHECK_NEAR(st.compute_ms, 0.3, 1e-12);
	chain_release(&c);
	profile_release(&p);
}

/*
 * MoE blocks by hand (repeat of them): a 100 MB dispatch buffer, 1e9 of
 * each block's 1.5e9 parameters routed experts, 4 ms forward and 8
 * backward, pre_fwd and pre_bwd of them before the dispatch; the chain
 * and one stage's links with an expert-parallel ring of 70 GB/s.
 */
static void
moe_hand(struct profile *p, struct chain *c, struct place_links *l,
	 double *v, int repeat, double pre_fwd, double pre_bwd)
{
	profile_init(p);
	profile_alloc(p, 1, 1);
	p->mb[0] = 1;
	p->ep = 8;
	p->seq_len = 1024;
	p->hidden = 64;
	p->layers[0].name = xstrdup("block_moe");
	p->layers[0].kind = PROF_BLOCK;
	p->layers[0].repeat = repeat;
	p->layers[0].params = 1500000000;
	p->layers[0].expert_params = 1000000000;
	p->layers[0].pt[0].fwd_ms = 4;
	p->layers[0].pt[0].bwd_ms = 8;
	p->layers[0].pt[0].ep_a2a_bytes = 1e8;
	p->layers[0].pt[0].ep_pre_fwd_ms = pre_fwd;
	p->layers[0].pt[0].ep_pre_bwd_ms = pre_bwd;
	CHECK(chain_build(c, p) == 0);
	links(l, v, 100);
	memset(v + 8, 0, 4 * sizeof(*v));
	l->ep_gb_s = v + 8;
	l->ep_lat_us = v + 9;
	v[8] = 70;
}

static void
test_ep_cost(void)
{
	struct profile p;
	struct chain c;
	struct place_links l;
	struct cost_opts o;
	struct cost_cfg g;
	double v[12], red, gat;

	/* Two MoE blocks by hand, of whose forward and backward attention
	 * and norms (before the dispatch) take 1 and 2 ms. */
	moe_hand(&p, &c, &l, v, 2, 1, 2);
	CHECK_INT_EQ(chain_eparams(&c, 0, 1), 2000000000LL);
	memset(&g, 0, sizeof(g));
	g.sched = PLAN_FLUSH;
	g.w = 8;
	g.d = g.t = g.v = 1;
	g.e = 8;
	/* four all-to-alls per layer, each 7/8 x 100 MB at 70 GB/s:
	 * 1.25 ms; 5 ms a layer */
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 0), 5, 1e-12);
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 1), 10, 1e-12);
	/* full recomputation repeats the forward pair */
	g.r = PROF_RC_FULL;
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 0), 7.5, 1e-12);
	/* selective keeps them, but for a layer whose recomputation
	 * dispatches and combines again (torchtitan's per-op policy on
	 * qwen3, whose save list has no all_to_all_single) */
	g.r = PROF_RC_SELECTIVE;
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 1), 10, 1e-12);
	c.rerun[0] = PROF_RERUN_EP_A2A;
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 1), 12.5, 1e-12);
	c.rerun[0] = 0;
	g.r = PROF_RC_NONE;
	/* gradients: 0.5e9 dense over the 8 replicas, 1e9 of experts over
	 * 8 / 8 = 1 rank (nothing); fp32 gradients at 50 GB/s, ring */
	cost_opts_init(&o);
	o.runtime = RUNTIME_MEGATRON_CORE;
	g.rt = &o.rts[RUNTIME_MEGATRON_CORE];
	v[0] = 50;
	cost_dp_sync_ep(&o, &g, &l, 0, 1500000000, 1000000000, &red, &gat);
	CHECK_NEAR(red, 2 * 7.0 / 8 * 0.5e9 * 4 / 50e6, 1e-9);
	/* e = 2: the experts over 4 ranks too, in a buffer of their own */
	g.e = 2;
	cost_dp_sync_ep(&o, &g, &l, 0, 1500000000, 1000000000, &red, &gat);
	CHECK_NEAR(red,
		   2 * 7.0 / 8 * 0.5e9 * 4 / 50e6 + 2 * 3.0 / 4 * 1e9 * 4 / 50e6,
		   1e-9);
	/* expert tensor parallelism 1 with t = 2: 8 x 2 / 2 = 8 ranks */
	g.t = 2;
	g.etp = 1;
	CHECK_INT_EQ(cost_edp(&g), 8);
	g.t = 1;
	g.etp = 0;
	g.e = 8;
	/*
	 * --overlap-moe-expert-parallel-comm: 10 ms of all-to-alls against
	 * 24 ms of compute a microbatch.  Of m = 8 microbatches on one
	 * stage (in flight 1) one has no partner and exposes its 10 ms;
	 * the other 7 pair layer by layer: the backward combine (1.25 ms)
	 * beside the forward attention (1 ms) exposes 0.25, both
	 * dispatches (2.5) beside both MLPs (12 - 3 = 9) nothing, the
	 * forward combine beside the backward attention (2) nothing:
	 * 0.25 a layer, 0.5 a microbatch; (10 + 7 x 0.5) / 8 = 1.6875 ms.
	 */
	CHECK_NEAR(cost_ep_overlap(&c, &g, &l, 0, 0, 1), 0.5, 1e-12);
	{
		struct plan_stage st;
		struct runtime rt;

		g.m = 8;
		CHECK(runtime_parse(&rt, "megatron-core") == 0);
		g.rt = &rt;
		cost_stage(&c, &o, &g, &l, 0, 0, 1, &st);
		CHECK_NEAR(st.ep_ms, 10, 1e-9);
		CHECK(runtime_parse(&rt, "megatron-core:overlap-moe-ep-comm") ==
		      0);
		cost_stage(&c, &o, &g, &l, 0, 0, 1, &st);
		CHECK_NEAR(st.compute_ms, 24, 1e-9);
		CHECK_NEAR(st.ep_ms, (10 + 7 * 0.5) / 8, 1e-9);
		/* what they hide costs the compute their SMs: 32 of 128
		 * (NCCL's channels), 20 under the flex dispatcher */
		o.sms = 128;
		cost_stage(&c, &o, &g, &l, 0, 0, 1, &st);
		CHECK_NEAR(st.ep_ms,
			   (10 + 7 * 0.5) / 8 + (10 - (10 + 7 * 0.5) / 8) *
							32 / 128,
			   1e-9);
		CHECK(runtime_parse(&rt, "megatron-core:overlap-moe-ep-comm,"
					 "flex-dispatcher") == 0);
		cost_stage(&c, &o, &g, &l, 0, 0, 1, &st);
		CHECK_NEAR(st.ep_ms,
			   (10 + 7 * 0.5) / 8 + (10 - (10 + 7 * 0.5) / 8) *
							20 / 128,
			   1e-9);
		o.sms = 0;
		/* a host that issues 1000 kernels a layer forward (65 ms,
		 * past the GPU's forward) waits for what the forward and
		 * its all-to-alls leave it: of those, the overlap keeps only
		 * the exposed share on the compute stream, 1.6875 of 10 ms,
		 * half of them forward: (10 - 1.6875) / 2 ms longer */
		{
			double h0;

			c.kern[0] = c.kern[1] = c.kernf[0] = c.kernf[1] = 1000;
			CHECK(runtime_parse(&rt, "megatron-core") == 0);
			cost_stage(&c, &o, &g, &l, 0, 0, 1, &st);
			h0 = st.host_ms;
			CHECK(h0 > 2 * 65 - 24);
			CHECK(runtime_parse(&rt, "megatron-core:"
						 "overlap-moe-ep-comm") == 0);
			cost_stage(&c, &o, &g, &l, 0, 0, 1, &st);
			CHECK_NEAR(st.host_ms - h0, (10 - 1.6875) / 2, 1e-9);
			c.kern[0] = c.kern[1] = c.kernf[0] = c.kernf[1] = 0;
		}
		/* a pipeline needs virtual stages for it; no full
		 * recomputation (transformer_config.py:3007-3023) */
		{
			char why[160];

			CHECK(runtime_check(&rt, PLAN_FLUSH, 4, 1, 1, 0,
					    PROF_RC_NONE, why,
					    sizeof(why)) == -1);
			CHECK_STR_EQ(why, "runtime megatron-core: "
					  "overlap-moe-ep-comm needs "
					  "--interleave 2 or more with a "
					  "pipeline");
			CHECK(runtime_check(&rt, PLAN_FLUSH, 4, 1, 2, 0,
					    PROF_RC_NONE, why,
					    sizeof(why)) == 0);
			CHECK(runtime_check(&rt, PLAN_FLUSH, 1, 1, 1, 0,
					    PROF_RC_FULL, why,
					    sizeof(why)) == -1);
		}
		g.rt = &o.rts[RUNTIME_MEGATRON_CORE];
	}
	chain_release(&c);
	profile_release(&p);
}

/*
 * DeepSpeed-MoE (runtime deepspeed), by hand.  The capacity of
 * moe/sharded_moe.py:161-170: C = max(min_capacity, ceil(n / E x cf x
 * k)) rows per expert, E x C rows dispatched whatever the routing.
 */
static void
test_ep_deepspeed(void)
{
	static const int mb[] = {1};
	struct runtime ds, dl;
	struct analytic_par par;
	struct analytic_opts ao;
	struct profile p;
	struct chain c;
	struct place_links l;
	struct cost_cfg g;
	struct model m;
	double v[12];
	char why[256];

	/* Qwen3-30B-A3B's 4096 tokens, 128 experts, top-8, cf 1: C = 256,
	 * the dropless 32768 rows exactly */
	CHECK_NEAR(analytic_expert_rows(4096, 8, 128, 1.0, 4), 32768, 0);
	/* Mixtral's 8 experts, top-2, cf 1.25: C = ceil(512 x 2.5) = 1280,
	 * 10240 rows for 8192 routed */
	CHECK_NEAR(analytic_expert_rows(4096, 2, 8, 1.25, 4), 10240, 0);
	/* 100 tokens over 64 experts, top-1: ceil(1.5625) = 2 < 4 */
	CHECK_NEAR(analytic_expert_rows(100, 1, 64, 1.0, 4), 256, 0);
	/* 4097 tokens: ceil(4097 / 128 x 8) = 257 */
	CHECK_NEAR(analytic_expert_rows(4097, 8, 128, 1.0, 4), 32896, 0);
	CHECK_NEAR(analytic_expert_rows(4096, 8, 128, 0, 4), 32768, 0);

	/* the runtime: capacity 1.0, min 4, no host sync; dropless syncs */
	runtime_init(&ds, RUNTIME_DEEPSPEED);
	CHECK(runtime_parse(&dl, "deepspeed:dropless") == 0);
	CHECK(ds.ep && ds.ep_tp_drop && ds.moe_dense_dispatch);
	CHECK_NEAR(ds.capacity_factor, 1.0, 0);
	CHECK_INT_EQ(ds.min_capacity, 4);
	CHECK(!ds.moe_sync && !ds.dropless);
	CHECK(dl.moe_sync && dl.dropless);
	CHECK_NEAR(dl.capacity_factor, 0, 0);

	/* the dispatch bytes of moe30 (b 1, s 4096, h 2048, bf16) on ep 8
	 * under imbalance 1.5: with the capacity E x C = 32768 rows, the
	 * imbalance absorbed (no rank receives more than C an expert);
	 * dropless the busiest rank's 1.5 x */
	moe30(&m);
	memset(&par, 0, sizeof(par));
	par.tp = par.cp = 1;
	par.ep = 8;
	par.imbalance = 1.5;
	analytic_opts_init(&ao);
	ao.capacity_factor = ds.capacity_factor;
	ao.min_capacity = ds.min_capacity;
	profile_init(&p);
	CHECK(analytic_profile_par(&p, &m, catalog_find(&cat, "H100-SXM"), mb,
				   1, &par, &ao) == 0);
	CHECK_NEAR(p.layers[1].pt[0].ep_a2a_bytes, 32768.0 * 2048 * 2, 0);
	profile_release(&p);
	ao.dropless = 1;
	profile_init(&p);
	CHECK(analytic_profile_par(&p, &m, catalog_find(&cat, "H100-SXM"), mb,
				   1, &par, &ao) == 0);
	CHECK_NEAR(p.layers[1].pt[0].ep_a2a_bytes, 1.5 * 32768 * 2048 * 2, 0);
	profile_release(&p);
	/* the model's own factor 1.25 wins over the runtime's: C =
	 * ceil(32 x 1.25 x 8) = 320, 40960 rows */
	ao.dropless = 0;
	m.moe.capacity_factor = 1.25;
	profile_init(&p);
	CHECK(analytic_profile_par(&p, &m, catalog_find(&cat, "H100-SXM"), mb,
				   1, &par, &ao) == 0);
	CHECK_NEAR(p.layers[1].pt[0].ep_a2a_bytes, 40960.0 * 2048 * 2, 0);
	profile_release(&p);

	/* tensor parallelism 2 without sequence parallelism, the experts
	 * split like it: every rank holds all rows but sends its 1/2
	 * (drop_tokens before the all-to-all).  A 100 MB buffer, 7/8 of it
	 * at 70 GB/s: 1.25 ms an all-to-all for Megatron-Core, half for
	 * DeepSpeed; four a layer */
	moe_hand(&p, &c, &l, v, 1, 0, 0);
	memset(&g, 0, sizeof(g));
	g.sched = PLAN_NONE;
	g.w = 8;
	g.d = g.v = 1;
	g.t = 2;
	g.e = 8;
	runtime_init(&dl, RUNTIME_MEGATRON_CORE);
	g.rt = &dl;
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 0), 5, 1e-12);
	g.rt = &ds;
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 0), 2.5, 1e-12);
	/* whole experts: the chain's buffer is already 1/t */
	g.etp = 1;
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 0), 5, 1e-12);
	/* the all-gathers that restore the dropped rows, over a 200 GB/s
	 * tensor-parallel pair: split experts gather the 100 MB buffer
	 * after the dispatch and the combine, 1/2 of it moved, 0.25 ms
	 * each, and as often in the backward: 2.5 + 4 x 0.25; whole
	 * experts gather only after the combine, 200 MB (t x the buffer):
	 * 5 + 2 x 0.5; a full recomputation's forward gathers again; with
	 * sequence parallelism (nothing dropped) and under Megatron-Core
	 * none */
	v[1] = 200;
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 0), 6, 1e-12);
	g.r = PROF_RC_FULL;
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 0), 6 * 1.25 + 3 * 0.5, 1e-12);
	g.r = PROF_RC_NONE;
	g.etp = 2;
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 0), 3.5, 1e-12);
	g.sp = 1;
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 0), 5, 1e-12);
	g.sp = 0;
	g.rt = &dl;
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 0), 5, 1e-12);
	/* without expert parallelism DeepSpeed still drops and gathers
	 * after the combine (sharded_moe.py:626, 663-667), not after the
	 * dispatch (634): split experts 2 x 0.25, whole 2 x 0.5;
	 * Megatron-Core nothing */
	g.e = 1;
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 0), 0, 0);
	g.rt = &ds;
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 0), 0.5, 1e-12);
	g.etp = 1;
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 0), 1, 1e-12);
	g.t = 1;
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 0), 0, 0);
	g.t = 2;
	g.e = 8;
	v[1] = 0;
	chain_release(&c);
	profile_release(&p);

	/* the rules: MoE layers never under ZeRO-3 (engine.py:1675), with
	 * expert parallelism or without; EP groups inside a stage's ranks,
	 * its replicas with expert tensor parallelism (groups.py:258, 403) */
	CHECK(runtime_check_ep(&ds, 8, 1, 1, 1, 1, 3, 0, why, sizeof(why)) ==
	      -1);
	CHECK_STR_EQ(why, "runtime deepspeed cannot run MoE layers under ZeRO "
			  "stage 3 (--zero 3; deepspeed.moe needs 0, 1 or "
			  "2)");
	CHECK(runtime_check_ep(&ds, 8, 1, 1, 1, 8, 2, 0, why, sizeof(why)) ==
	      0);
	CHECK(runtime_check_ep(&ds, 4, 1, 2, 1, 8, 1, 0, why, sizeof(why)) ==
	      0);
	CHECK(runtime_check_ep(&ds, 4, 1, 2, 2, 8, 1, 0, why, sizeof(why)) ==
	      -1);
	CHECK_STR_EQ(why, "runtime deepspeed takes expert-parallel ranks from "
			  "the data-parallel ones with the experts split like "
			  "the tensor-parallel layers (--expert-parallel 8 "
			  "does not divide 4 replicas)");
	CHECK(runtime_check_ep(&ds, 3, 1, 2, 1, 4, 0, 0, why, sizeof(why)) ==
	      -1);
	CHECK_STR_EQ(why, "runtime deepspeed takes expert-parallel ranks from "
			  "one stage's 6 ranks (--expert-parallel 4 does not "
			  "divide them)");
	CHECK(runtime_check_par(&ds, 1, 8, why, sizeof(why)) == 0);

	/* Full recomputation stops early under PyTorch's non-reentrant
	 * checkpoint (plain PyTorch, torchtitan with early-stop), not
	 * under Megatron's, DeepSpeed's or PipeDream's */
	{
		static const struct {
			const char *rt;
			int early;
		} es[] = {
			{"megatron-core", 0}, {"deepspeed", 0},
			{"pipedream-2bw", 0}, {"torchtitan", 0},
			{"torchtitan:compile", 0}, {"torchtitan:early-stop", 1},
			{"torchtitan:early-stop,no-early-stop", 0},
			{"pytorch-ddp", 1},
		};
		struct runtime r;
		size_t i;

		for (i = 0; i < sizeof(es) / sizeof(es[0]); i++) {
			CHECK(runtime_parse(&r, es[i].rt) == 0);
			CHECK_INT_EQ(r.rc_early_stop, es[i].early);
		}
		/* torchtitan's ring is PyTorch's: fp32 corrections;
		 * Megatron's is Transformer Engine's; Megatron reduces
		 * the column-parallel dgrads beside the wgrads */
		CHECK(runtime_parse(&r, "torchtitan") == 0);
		CHECK_INT_EQ(r.cp_merge_f32, 1);
		CHECK_INT_EQ(r.tp_dgrad_overlap, 0);
		CHECK(runtime_parse(&r, "megatron-core") == 0);
		CHECK_INT_EQ(r.cp_merge_f32, 0);
		CHECK_INT_EQ(r.tp_dgrad_overlap, 1);
		CHECK(runtime_parse(&r, "megatron-core:no-tp-dgrad-overlap") ==
		      0);
		CHECK_INT_EQ(r.tp_dgrad_overlap, 0);
		CHECK(runtime_parse(&r, "torchtitan:repeat-kv") == 0);
		CHECK(runtime_has(&r, RUNTIME_OPT_REPEAT_KV));
		CHECK_ERR(runtime_parse(&r, "megatron-core:repeat-kv"),
			  "pd2bw: runtime megatron-core has no option "
			  "'repeat-kv' (valid: overlap-grad-reduce, "
			  "overlap-param-gather, tp-comm-overlap, cuda-graphs, "
			  "grad-reduce-fp32, fp8-param-gather, "
			  "overlap-moe-ep-comm, flex-dispatcher, op-fuser, "
			  "paged-stash, te-graphs, fp8-output-proj, "
			  "tp-dgrad-overlap)");
		CHECK_ERR(runtime_parse(&r, "megatron-core:early-stop"),
			  "pd2bw: runtime megatron-core has no option "
			  "'early-stop' (valid: overlap-grad-reduce, "
			  "overlap-param-gather, tp-comm-overlap, cuda-graphs, "
			  "grad-reduce-fp32, fp8-param-gather, "
			  "overlap-moe-ep-comm, flex-dispatcher, op-fuser, "
			  "paged-stash, te-graphs, fp8-output-proj, "
			  "tp-dgrad-overlap)");
	}

	/* Megatron-Core's op fuser: whole experts only (moe/experts.py:
	 * 286-290, 397-398); it takes the experts' clamp into the
	 * activation, which the others run eagerly */
	{
		struct runtime mc;

		CHECK(runtime_parse(&mc, "megatron-core") == 0);
		CHECK_INT_EQ(mc.clamp_eager, 1);
		CHECK(runtime_check_ep(&mc, 8, 1, 2, 2, 8, 1, 0, why,
				       sizeof(why)) == 0);
		CHECK(runtime_parse(&mc, "megatron-core:op-fuser") == 0);
		CHECK_INT_EQ(mc.clamp_eager, 0);
		CHECK(runtime_check_ep(&mc, 8, 1, 2, 1, 8, 1, 0, why,
				       sizeof(why)) == 0);
		CHECK(runtime_check_ep(&mc, 8, 1, 2, 2, 8, 1, 0, why,
				       sizeof(why)) == -1);
		CHECK_STR_EQ(why, "runtime megatron-core: op-fuser runs whole "
				  "experts only (--expert-tensor-parallel 1, "
				  "not 2-way)");
		CHECK_INT_EQ(ds.clamp_eager, 1);
		runtime_init(&mc, RUNTIME_PIPEDREAM_2BW);
		CHECK_INT_EQ(mc.clamp_eager, 0);
		CHECK_ERR(runtime_parse(&mc, "torchtitan:op-fuser"),
			  "pd2bw: runtime torchtitan has no option 'op-fuser' "
			  "(valid: cuda-graphs, fp8-all-gather, compile, "
			  "async-tp, early-stop, repeat-kv, fused-proj)");
	}

	/* HybridEP's budget needs the flex dispatcher; the paged stash the
	 * budget and no offload (transformer_config.py:1868-1883,
	 * 2210-2217) */
	{
		struct runtime mc;

		CHECK(runtime_check_moe(NULL, 0, 1, why, sizeof(why)) == 0);
		CHECK(runtime_check_moe(NULL, 1.5, 0, why, sizeof(why)) == -1);
		CHECK(runtime_parse(&mc, "megatron-core") == 0);
		CHECK(runtime_check_moe(&mc, 1.5, 0, why, sizeof(why)) == -1);
		CHECK_STR_EQ(why, "a per-GPU budget of expert rows "
				  "(--moe-rank-capacity) is Megatron-Core's "
				  "HybridEP dispatcher's: it needs --runtime "
				  "megatron-core:flex-dispatcher");
		CHECK(runtime_parse(&mc, "megatron-core:flex-dispatcher") == 0);
		CHECK(runtime_check_moe(&mc, 1.5, 1, why, sizeof(why)) == 0);
		CHECK_NEAR(runtime_paged_stash(&mc), 0, 0);
		CHECK(runtime_parse(&mc,
				    "megatron-core:flex-dispatcher,paged-stash") ==
		      0);
		CHECK_NEAR(runtime_paged_stash(&mc), 1.10, 0);
		CHECK(runtime_check_moe(&mc, 1.5, 0, why, sizeof(why)) == 0);
		CHECK(runtime_check_moe(&mc, 0, 0, why, sizeof(why)) == -1);
		CHECK_STR_EQ(why, "runtime megatron-core: paged-stash pages the "
				  "experts' activations under HybridEP's budget: "
				  "give --moe-rank-capacity");
		CHECK(runtime_check_moe(&mc, 1.5, 1, why, sizeof(why)) == -1);
		CHECK_STR_EQ(why, "runtime megatron-core: paged-stash does not "
				  "run with activation offload (--offload off)");
	}
}

/*
 * torchtitan's expert parallelism (runtime torchtitan): the all-to-all
 * bytes per tensor-parallel rank, the experts sharded by FSDP over the
 * ranks holding the same experts (efsdp), and the configurations it
 * refuses.  The hand chain of test_ep_cost(): a 100 MB buffer as
 * analytic.c builds it (Megatron's: 1/t of the rows under sequence
 * parallelism with expert tensor parallelism t, 1/t with etp 1, all of
 * them otherwise), 1e9 of each block's
 * 1.5e9 parameters routed experts, 4 ms forward and 8 backward.
 */
static void
test_ep_torchtitan(void)
{
	struct profile p;
	struct chain c;
	struct place_links l;
	struct cost_opts o;
	struct cost_cfg g;
	struct plan_stage st;
	double v[12];
	char why[256];

	moe_hand(&p, &c, &l, v, 2, 0, 0);
	cost_opts_init(&o);
	o.runtime = RUNTIME_TORCHTITAN;
	memset(&g, 0, sizeof(g));
	g.sched = PLAN_FLUSH;
	g.rt = &o.rts[RUNTIME_TORCHTITAN];
	g.w = 8;
	g.d = g.t = g.v = 1;
	g.e = 8;
	/* t = 1: as Megatron's, 4 x 7/8 x 100 MB at 70 GB/s = 5 ms */
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 0), 5, 1e-12);
	/* t = 2 with sequence parallelism, experts split like tp: the
	 * chain holds each rank's half of the tokens, torchtitan sends all
	 * of them from every rank (the etp mesh's replicated input):
	 * 4 x 7/8 x 200 MB at 70 GB/s = 10 ms */
	g.t = 2;
	g.sp = 1;
	g.etp = 2;
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 0), 10, 1e-12);
	/* Megatron-Core keeps its buffer: 5 ms */
	g.rt = &o.rts[RUNTIME_MEGATRON_CORE];
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 0), 5, 1e-12);
	g.rt = &o.rts[RUNTIME_TORCHTITAN];
	/* etp 1: the chain holds each rank's 1/t of the rows, as the two
	 * tensor-parallel ranks split them (ReordererSequenceParallel):
	 * 5 ms, as Megatron's */
	g.etp = 1;
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 0), 5, 1e-12);
	/* without sequence parallelism, experts split like tp: all of the
	 * tokens either way, 5 ms */
	g.sp = 0;
	g.etp = 2;
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 0), 5, 1e-12);
	/* torchtitan runs the shared experts' forward (here 0.5 ms) beside
	 * the combine: 3 x 1.25 + (1.25 - 0.5) = 4.5 ms; under full
	 * recomputation both forward combines: 4 x 1.25 + 2 x 0.75 = 6.5;
	 * Megatron-Core's (no overlap-moe-ep-comm) still 5 */
	g.t = 1;
	g.sp = 0;
	g.etp = 0;
	c.epsf[0] = 0.5;
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 0), 4.5, 1e-12);
	g.r = PROF_RC_FULL;
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 0), 6.5, 1e-12);
	g.r = PROF_RC_NONE;
	g.rt = &o.rts[RUNTIME_MEGATRON_CORE];
	CHECK_NEAR(cost_ep(&c, &g, &l, 0, 0, 0), 5, 1e-12);
	g.rt = &o.rts[RUNTIME_TORCHTITAN];
	c.epsf[0] = 0;
	/* the experts' FSDP group: the shard group's w c t / (etp e) */
	g.t = 1;
	g.etp = 0;
	g.w = 16;
	CHECK_INT_EQ(cost_eshard_deg(&g), 2);
	g.shard = 8;
	g.zero = 3;
	g.e = 4;
	CHECK_INT_EQ(cost_eshard_deg(&g), 2);
	g.shard = 0;
	g.w = 4;
	g.t = 2;
	g.etp = 1;
	g.e = 8;
	CHECK_INT_EQ(cost_eshard_deg(&g), 1);
	/*
	 * ZeRO-3 on 16 ranks with e = 8: the experts over 16 / 8 = 2
	 * ranks, the rest over 16.  torchtitan: no weights at rest (its
	 * fp32 parameters are the optimizer's master), fp32 gradients, 12
	 * bytes of Adam state with the master.  Two layers, 3e9 parameters
	 * of which 2e9 experts':
	 *   state  3e9 x 16 / 16 + 2e9 x 16 x (1/2 - 1/16) = 17e9
	 *   weight the window of two gathered layers and one gradient
	 *          (2 x 1.5e9 x 2 + 1.5e9 x 4) = 12e9
	 */
	g.w = 16;
	g.t = 1;
	g.etp = 0;
	g.e = 8;
	g.zero = 3;
	g.sched = PLAN_NONE;
	cost_stage_mem(&c, &o, &g, 0, 0, 1, NULL, &st);
	CHECK_INT_EQ(st.state_bytes, 17000000000LL);
	CHECK_INT_EQ(st.weight_bytes, 12000000000LL);
	/*
	 * The same two layers as one stage of a pipeline: torchtitan keeps
	 * the stage's gathered parameters, and torch.distributed.pipelining
	 * reduces their gradients after the last microbatch only, so FSDP2
	 * holds every parameter's whole fp32 gradient until then: the
	 * window is 2 x 1.5e9 x 2 + 3e9 x 4 = 18e9, the weight
	 */
	g.d = 2;
	g.sched = PLAN_FLUSH;
	cost_stage_mem(&c, &o, &g, 0, 0, 1, NULL, &st);
	CHECK_INT_EQ(st.state_bytes, 17000000000LL);
	CHECK_INT_EQ(st.weight_bytes, 18000000000LL);
	g.d = 1;
	g.sched = PLAN_NONE;
	/*
	 * Its FSDP traffic for one layer on a 50 GB/s ring without latency:
	 * gather 15/16 x 0.5e9 x 2 B + 1/2 x 1e9 x 2 B = 18.75 + 20 ms,
	 * reduce-scatter in fp32 15/16 x 0.5e9 x 4 B + 1/2 x 1e9 x 4 B =
	 * 37.5 + 40 ms; exposed: the gather beyond the 4 ms forward, and
	 * gather + reduction beyond the 8 ms backward: 34.75 + 108.25 ms
	 */
	v[0] = 50;
	CHECK_NEAR(cost_fsdp_layer(&c, &o, &g, &l, 0, 0), 143, 1e-9);
	/* the rules: FSDP only, an EP group inside one shard group */
	CHECK(runtime_check_ep(&o.rts[RUNTIME_TORCHTITAN], 8, 1, 1, 1, 8, 0,
			       0, why, sizeof(why)) == -1);
	CHECK_STR_EQ(why, "runtime torchtitan runs expert parallelism under "
			  "FSDP only (--expert-parallel 8 needs --zero 2 or "
			  "3)");
	CHECK(runtime_check_ep(&o.rts[RUNTIME_TORCHTITAN], 1, 1, 8, 1, 8, 0,
			       0, why, sizeof(why)) == 0);
	CHECK(runtime_check_ep(&o.rts[RUNTIME_TORCHTITAN], 16, 1, 1, 1, 16, 3,
			       8, why, sizeof(why)) == -1);
	CHECK_STR_EQ(why, "runtime torchtitan takes expert-parallel ranks "
			  "from one FSDP shard group only (--expert-parallel "
			  "16, shard group 8)");
	CHECK(runtime_check_ep(&o.rts[RUNTIME_TORCHTITAN], 16, 1, 2, 1, 16, 3,
			       8, why, sizeof(why)) == 0);
	CHECK(runtime_check_ep(&o.rts[RUNTIME_TORCHTITAN], 16, 1, 2, 2, 16, 3,
			       8, why, sizeof(why)) == -1);
	CHECK(runtime_check_ep(&o.rts[RUNTIME_MEGATRON_CORE], 16, 1, 1, 1, 16,
			       0, 8, why, sizeof(why)) == 0);
	chain_release(&c);
	profile_release(&p);
	/* the analytic profile carries the shared experts' forward: none
	 * without them; with one of 768 some of the block's forward */
	{
		struct model m;
		const struct prof_point *b;

		moe30(&m);
		CHECK(run_ep(&p, &m, 1, 8, 0, 1) == 0);
		CHECK_NEAR(p.layers[1].pt[0].ep_shared_fwd_ms, 0, 0);
		profile_release(&p);
		m.moe.shared_experts = 1;
		m.moe.shared_ffn = 768;
		CHECK(run_ep(&p, &m, 1, 8, 0, 1) == 0);
		b = &p.layers[1].pt[0];
		CHECK(b->ep_shared_fwd_ms > 0 &&
		      b->ep_shared_fwd_ms < 0.1 * b->fwd_ms);
		profile_release(&p);
	}
}

static void
test_ep_place(void)
{
	struct cluster cl;
	struct place_links l;

	/* 2 nodes of 8: e = 8 inside a node runs at what NCCL reaches of
	 * NVLink, 370 of the H100's 450 GB/s; e = 16 sends 8 of its 15
	 * peers' shares through the NIC, which carries 47 of its 50 GB/s
	 * (PLACE_NIC_EFF): (16 - 1) / max(7 / 370, 8 / 47 GB/s) */
	cluster_init(&cl);
	CHECK(cluster_open(&cl, "dgx-h100:2") == 0);
	CHECK_NEAR(cluster_intra(&cl, 0, 1), 450, 1e-9);
	place_links_init(&l, &cl, 1);
	place_links_fill_par(&l, &cl, PLAN_STAGES_IN_NODE, 16, 1, 1, 1, 8, 1);
	CHECK_NEAR(l.ep_gb_s[0], 370, 1e-9);
	place_links_fill_par(&l, &cl, PLAN_STAGES_IN_NODE, 16, 1, 1, 1, 16,
			     1);
	CHECK_NEAR(l.ep_gb_s[0], 15 / fmax(7 / 370.0, 8 / 47.0), 1e-9);
	CHECK_NEAR(l.ep_lat_us[0], cl.net_latency_us, 1e-9);
	/* t = 2, expert tensor parallelism 1: 8 consecutive GPUs */
	place_links_fill_par(&l, &cl, PLAN_STAGES_IN_NODE, 8, 1, 2, 1, 8, 1);
	CHECK_NEAR(l.ep_gb_s[0], 370, 1e-9);
	/* expert tensor parallelism 2: 8 blocks of 2 span both nodes */
	place_links_fill_par(&l, &cl, PLAN_STAGES_IN_NODE, 8, 1, 2, 1, 8, 2);
	CHECK(l.ep_gb_s[0] < cluster_intra(&cl, 0, 1));
	/* The ranks holding the same experts reduce in rings of their
	 * own.  e = 8 of 16: GPUs g and g + 8, one per node, each ring
	 * leaving its node through one NIC (47 GB/s of its 50), where the
	 * replicas' ring of 16 leaves through all eight (376 GB/s), its
	 * NVLink hops slower still (370) */
	place_links_fill_par(&l, &cl, PLAN_STAGES_IN_NODE, 16, 1, 1, 1, 8, 1);
	CHECK_NEAR(l.ring_gb_s[0], 370, 1e-9);
	CHECK_NEAR(l.edp_gb_s[0], 47, 1e-9);
	CHECK_NEAR(l.edp_lat_us[0], cl.net_latency_us, 1e-9);
	/* e = 2: rings of 8, four members per node on their own NICs */
	place_links_fill_par(&l, &cl, PLAN_STAGES_IN_NODE, 16, 1, 1, 1, 2, 1);
	CHECK_NEAR(l.edp_gb_s[0], 188, 1e-9);
	/* one node, e = 2: rings of 4 over NVLink */
	place_links_fill_par(&l, &cl, PLAN_STAGES_IN_NODE, 8, 1, 1, 1, 2, 1);
	CHECK_NEAR(l.edp_gb_s[0], 370, 1e-9);
	CHECK_NEAR(l.edp_lat_us[0], cl.intra_latency_us, 1e-9);
	/* one replica, t = 8, expert tensor parallelism 1, e = 4: the
	 * tensor-parallel neighbours 4 apart, over NVLink */
	place_links_fill_par(&l, &cl, PLAN_STAGES_IN_NODE, 1, 1, 8, 1, 4, 1);
	CHECK_NEAR(l.edp_gb_s[0], 370, 1e-9);
	/* without expert parallelism: the replicas' ring */
	place_links_fill_par(&l, &cl, PLAN_STAGES_IN_NODE, 16, 1, 1, 1, 1, 1);
	CHECK_NEAR(l.edp_gb_s[0], l.ring_gb_s[0], 0);
	place_links_release(&l);
	cluster_release(&cl);
}

/*
 * A job that does not fill its NVLink domains: 256 GPUs on NVL72 racks
 * run as 4 domains of 64 (Slurm --segment, Megatron-Bridge executors.py:
 * 168-177), so an expert-parallel group of 64 consecutive ranks stays on
 * NVLink; packed, ranks 64-127 would straddle racks 0 and 1.
 */
static void
test_ep_segment(void)
{
	struct cluster cl;
	struct place_links l;

	cluster_init(&cl);
	CHECK(cluster_open(&cl, "gb200-nvl72:4") == 0);
	/* 64 trays of 4: segments of 16 trays, the largest divisor of 64
	 * up to 18 */
	CHECK_INT_EQ(place_segment(&cl, 256), 64);
	CHECK_INT_EQ(place_segment(&cl, 64), 64);
	CHECK_INT_EQ(place_segment(&cl, 288), 72);
	/* 24 trays: 2 segments of 12 */
	CHECK_INT_EQ(place_segment(&cl, 96), 48);
	/* not whole trays: packed */
	CHECK_INT_EQ(place_segment(&cl, 278), 72);
	place_links_init(&l, &cl, 4);
	/* 64 replicas x 4 stages, replicas of a stage consecutive (pp
	 * outermost, Megatron's order): each stage's 64 GPUs one domain */
	place_links_fill_par(&l, &cl, PLAN_REPLICAS_IN_NODE, 64, 4, 1, 1, 64,
			     1);
	/* 370 / 450 of the 900 GB/s NVLink */
	CHECK_NEAR(cluster_intra(&cl, 0, 1), 900, 1e-9);
	CHECK_NEAR(l.ep_gb_s[1], 740, 1e-9);
	CHECK_NEAR(l.ep_lat_us[1], cl.intra_latency_us, 1e-9);
	place_links_release(&l);
	cluster_release(&cl);
	/* hosts of 8 GPUs are filled whole: 12 GPUs as 8 + 4 */
	cluster_init(&cl);
	CHECK(cluster_open(&cl, "dgx-h100:2") == 0);
	CHECK_INT_EQ(place_segment(&cl, 12), 8);
	cluster_release(&cl);
}

#define TOPK 8

static int
cmp_ms(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Chain sc (profile p, chain c) of model m at degrees par, microbatch 1
 * and 2 on an H100. */
static int
shape_chain(const struct model *m, const struct analytic_par *par,
	    struct profile *p, struct chain *c, struct search_chain *sc)
{
	static const int mb[] = {1, 2};
	int ok;

	profile_init(p);
	ok = analytic_profile_par(p, m, catalog_find(&cat, "H100-SXM"), mb, 2,
				  par, NULL) == 0;
	ok &= chain_build(c, p) == 0;
	memset(sc, 0, sizeof(*sc));
	sc->c = c;
	sc->t = par->tp;
	sc->sp = par->sp;
	sc->cp = par->cp;
	sc->ep = par->ep;
	return ok;
}

/* One DGX H100 under Megatron-Core with cap bytes per GPU; a search of
 * batch 16 for the TOPK best of flush and plain data parallelism, without
 * GLPK's per-layer refinement. */
static void
brute_opts(struct cluster *cl, struct cost_opts *o, struct search_opts *so,
	   double cap)
{
	cluster_init(cl);
	CHECK(cluster_open(cl, "dgx-h100:1") == 0);
	cost_opts_init(o);
	o->runtime = RUNTIME_MEGATRON_CORE;
	o->cap_bytes = cap;
	search_opts_init(so);
	so->batch = 16;
	so->sched_mask = (1u << PLAN_FLUSH) | (1u << PLAN_NONE);
	so->topk = TOPK;
	so->lp_k = 0;
}

/*
 * Brute force: each configuration the search so spans over the nsc chains
 * sc (depth 1 to 4, the widths that fit 8 GPUs, microbatch 1 and 2, each
 * recomputation, interleaving, ZeRO stage and schedule so weighs) searched
 * on its own, fixed; the time of each that runs into all (at most n).
 * Returns how many.  The refusals of those that do not fit stay unprinted.
 */
static int
brute_all(const struct search_chain *sc, int nsc, struct cluster *cl,
	  const struct cost_opts *o, const struct search_opts *so,
	  double *all, int n)
{
	static const int mb[] = {1, 2};
	struct search_stats st;
	struct plan p;
	int i, d, w, k, r, v, z, sched, nall = 0;

	for (i = 0; i < nsc; i++)
	for (d = 1; d <= 4; d++)
	for (w = 1; w * d * sc[i].t * sc[i].cp <= 8; w++)
	for (k = 0; k < 2; k++)
	for (r = 0; r < PROF_RC_N; r++)
	for (v = 0; v < so->nv; v++)
	for (z = 0; z < 4; z++)
	for (sched = 0; sched < PLAN_NSCHED; sched++) {
		struct search_opts e = *so;

		if (!(so->rc_mask >> r & 1) || !(so->zero_mask >> z & 1) ||
		    !(so->sched_mask >> sched & 1) ||
		    (sched == PLAN_NONE) != (d == 1) ||
		    so->batch % (w * mb[k]) ||
		    (so->v[v] > 1 && sched != PLAN_FLUSH))
			continue;
		e.fix_w = w;
		e.fix_d = d;
		e.fix_b = mb[k];
		e.fix_sched = sched;
		e.fix_rc = r;
		e.nv = 1;
		e.v[0] = so->v[v];
		e.zero_mask = 1u << z;
		e.topk = 1;
		plan_init(&p);
		cap_begin();
		if (search_run_tp(&sc[i], 1, cl, o, &e, &p, &st) == 0 &&
		    nall < n)
			all[nall++] = p.iter_ms;
		free(cap_end());
		plan_release(&p);
	}
	return nall;
}

/* The search's first TOPK alternatives alt are the nall brute-force times
 * all, sorted, in order. */
static void
check_topk(const double *alt, int nalt, double *all, int nall)
{
	int i;

	CHECK_INT_EQ(nalt, TOPK);
	qsort(all, (size_t)nall, sizeof(*all), cmp_ms);
	CHECK(nall >= TOPK);
	for (i = 0; i < nalt && i < nall; i++)
		CHECK_NEAR(alt[i], all[i], 1e-9 * all[i]);
}

/*
 * The search over context-parallel shapes against brute force: every
 * (shape, width, depth, microbatch, schedule, recomputation) predicted on
 * its own in evaluate mode; the best of them must be the search's plan,
 * and its alternatives the next best, in order (TOPK of them: the bounds
 * turn away only what cannot beat the k-th best).
 */
static void
test_search_brute(void)
{
	static const int shapes[][3] = {{1, 0, 1}, {1, 0, 2}, {2, 1, 1},
					{2, 1, 2}};
	struct profile prof[4];
	struct chain ch[4];
	struct search_chain sc[4];
	struct cluster cl;
	struct cost_opts o;
	struct search_opts so;
	struct search_stats st;
	struct plan p;
	struct model m;
	double best = INFINITY, got, all[256], alt[TOPK];
	int i, nall, nalt, ok = 1;

	llama8(&m);
	m.layers = 4;
	m.seq_len = 8192;
	for (i = 0; i < 4; i++) {
		struct analytic_par par;

		memset(&par, 0, sizeof(par));
		par.tp = shapes[i][0];
		par.sp = shapes[i][1];
		par.cp = shapes[i][2];
		par.ep = 1;
		par.imbalance = 1;
		ok &= shape_chain(&m, &par, &prof[i], &ch[i], &sc[i]);
	}
	CHECK(ok);
	/* tight enough that w=2 x t=2 x c=2 is the best that fits */
	brute_opts(&cl, &o, &so, 22e9);
	plan_init(&p);
	CHECK(search_run_tp(sc, 4, &cl, &o, &so, &p, &st) == 0);
	got = p.iter_ms;
	nalt = p.nalts < TOPK ? p.nalts : TOPK;
	for (i = 0; i < nalt; i++)
		alt[i] = p.alts[i].iter_ms;
	/* the memory cap leaves context parallelism the fastest */
	CHECK_INT_EQ(p.c, 2);
	plan_release(&p);
	/* brute force: each configuration on its own */
	nall = brute_all(sc, 4, &cl, &o, &so, all, 256);
	for (i = 0; i < nall; i++)
		best = fmin(best, all[i]);
	CHECK_NEAR(got, best, 1e-9 * best);
	/* the alternatives: the next best configurations, in order */
	check_topk(alt, nalt, all, nall);
	for (i = 0; i < 4; i++) {
		chain_release(&ch[i]);
		profile_release(&prof[i]);
	}
	cluster_release(&cl);
}

/*
 * The same for a mixture of experts over the dimensions the defaults
 * search: expert-parallel degree 1, 2 or 4, interleaving 1 or 2, the
 * optimizer state whole or sharded (ZeRO-1) or FSDP (ZeRO-3), no,
 * selective or full recomputation, flush or plain data parallelism,
 * microbatch 1 or 2, under a memory cap that 115 configurations pass:
 * the plan and its alternatives are the brute force's best TOPK, in
 * order.
 */
static void
test_search_brute_moe(void)
{
	static const int eps[] = {1, 2, 4};
	struct profile prof[3];
	struct chain ch[3];
	struct search_chain sc[3];
	struct cluster cl;
	struct cost_opts o;
	struct search_opts so;
	struct search_stats st;
	struct plan p;
	struct model m;
	double all[2048], alt[TOPK];
	int i, nall, nalt, ok = 1;

	moe30(&m);
	m.layers = 4;
	for (i = 0; i < 3; i++) {
		struct analytic_par par;

		memset(&par, 0, sizeof(par));
		par.tp = 1;
		par.cp = 1;
		par.ep = eps[i];
		par.etp = 1;
		par.imbalance = 1;
		ok &= shape_chain(&m, &par, &prof[i], &ch[i], &sc[i]);
	}
	CHECK(ok);
	brute_opts(&cl, &o, &so, 20e9);
	so.rc_mask = (1u << PROF_RC_N) - 1;
	so.zero_mask = (1u << 0) | (1u << 1) | (1u << 3);
	so.nv = 2;
	so.v[0] = 1;
	so.v[1] = 2;
	plan_init(&p);
	CHECK(search_run_tp(sc, 3, &cl, &o, &so, &p, &st) == 0);
	nalt = p.nalts < TOPK ? p.nalts : TOPK;
	for (i = 0; i < nalt; i++)
		alt[i] = p.alts[i].iter_ms;
	/* interleaved pipelines under ZeRO-1 over 4-way experts first,
	 * the same under FSDP third, 8-wide data parallelism fifth: the
	 * dimensions all take part */
	CHECK_INT_EQ(p.e, 4);
	CHECK_INT_EQ(p.zero, 1);
	CHECK_INT_EQ(p.v, 2);
	CHECK(nalt > 4 && p.alts[2].zero == 3 && p.alts[2].v == 2 &&
	      p.alts[4].w == 8 && p.alts[4].v == 1);
	plan_release(&p);
	/* brute force: each configuration on its own */
	nall = brute_all(sc, 3, &cl, &o, &so, all, 2048);
	check_topk(alt, nalt, all, nall);
	for (i = 0; i < 3; i++) {
		chain_release(&ch[i]);
		profile_release(&prof[i]);
	}
	cluster_release(&cl);
}

int
main(void)
{
	(void)h_skip;
	(void)h_skip_all;
	catalog_init(&cat);
	test_shapes();
	test_repeat_kv();
	test_ring_f32();
	test_ring();
	test_dp_ring();
	test_place();
	test_refused();
	test_ep_shapes();
	test_ep_kernels();
	test_recompute_residue();
	test_ep_cost();
	test_ep_torchtitan();
	test_ep_deepspeed();
	test_ep_place();
	test_ep_segment();
	test_search_brute();
	test_search_brute_moe();
	catalog_release(&cat);
	return h_done();
}
