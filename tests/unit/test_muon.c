/*
 * test_muon.c - Muon (--optimizer muon): the Newton-Schulz FLOPs of each
 * block's matrices by hand, what the chain sums of them, and what a stage
 * pays and keeps for them against Adam.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "tiny_llama.h"
#include "pd2bw/analytic.h"
#include "pd2bw/chain.h"
#include "pd2bw/cluster.h"
#include "pd2bw/cost.h"
#include "pd2bw/place.h"
#include "pd2bw/plan.h"

static struct gpu_catalog cat;

/* 5 quintic steps on an r x c matrix: 5 (4 s^2 b + 2 s^3). */
static double
ns(double r, double c)
{
	double s = fmin(r, c), b = fmax(r, c);

	return 5 * (4 * s * s * b + 2 * s * s * s);
}

static int
run(struct profile *p, const struct model *m, int tp, int ep)
{
	static const int mb[] = {1};
	struct analytic_par par;

	memset(&par, 0, sizeof(par));
	par.tp = tp;
	par.sp = tp > 1;
	par.cp = 1;
	par.ep = ep;
	par.etp = 1;
	par.imbalance = 1;
	profile_init(p);
	return analytic_profile_par(p, m, catalog_find(&cat, "H100-SXM"), mb,
				    1, &par, NULL);
}

static void
test_flops(void)
{
	struct profile p;
	struct model m;
	double dense;

	tiny_llama(&m);
	CHECK(run(&p, &m, 1, 1) == 0);
	/* Q 64 x 64, K and V 32 x 64 apart, O 64 x 64, up 256 x 64, down
	 * 64 x 128: 55,705,600 FLOPs */
	dense = ns(64, 64) + 2 * ns(32, 64) + ns(64, 64) + ns(256, 64) +
		ns(64, 128);
	CHECK_NEAR(dense, 55705600, 0);
	CHECK_INT_EQ(p.nlayers, 3);
	CHECK_NEAR(p.layers[0].ns_flops, 0, 0);   /* embedding: Adam */
	CHECK_NEAR(p.layers[1].ns_flops, dense, 0);
	CHECK_NEAR(p.layers[1].ns_expert_flops, 0, 0);
	CHECK_NEAR(p.layers[2].ns_flops, 0, 0);   /* head: Adam */
	CHECK_INT_EQ(p.layers[1].muon_params, p.layers[1].params);
	CHECK_INT_EQ(p.layers[2].muon_params, 0);
	CHECK(profile_ns(&p));
	profile_release(&p);
	/* a multi-token-prediction module: its block and its 64 x 128
	 * projection are Muon's, with the head's vocabulary matrix Adam's */
	m.mtp_layers = 1;
	CHECK(run(&p, &m, 1, 1) == 0);
	CHECK_NEAR(p.layers[2].ns_flops, dense + ns(64, 128), 0);
	CHECK_INT_EQ(p.layers[2].muon_params,
		     p.layers[1].params + 2 * 64 * 64);
	profile_release(&p);
	m.mtp_layers = 0;
	/* tensor parallelism: every rank iterates on the whole matrices */
	CHECK(run(&p, &m, 2, 1) == 0);
	CHECK_NEAR(p.layers[1].ns_flops, dense, 0);
	profile_release(&p);

	/* 8 experts of 32 (top 2) over 2 ranks: 4 experts a GPU, each an
	 * up 64 x 64 and a down 64 x 32, and the 8 x 64 router */
	m.moe.experts = 8;
	m.moe.top_k = 2;
	m.moe.expert_ffn = 32;
	m.moe.every = 1;
	CHECK(run(&p, &m, 1, 2) == 0);
	CHECK_NEAR(p.layers[1].ns_expert_flops,
		   4 * (ns(64, 64) + ns(64, 32)), 0);
	CHECK_NEAR(p.layers[1].ns_flops,
		   ns(64, 64) + 2 * ns(32, 64) + ns(64, 64) + ns(8, 64) +
			   4 * (ns(64, 64) + ns(64, 32)),
		   0);
	profile_release(&p);
}

/* Adam against Muon on one stage of the tiny model: the state drops by
 * 4 bytes a block parameter and the step grows by the iterations at the
 * GPU's 16-bit GEMM rate, both over the data-parallel ranks under the
 * layer-wise distributed optimizer. */
static void
test_stage(void)
{
	const struct gpu_spec *gpu = catalog_find(&cat, "H100-SXM");
	struct profile p;
	struct model m;
	struct chain c;
	struct cost_opts o;
	struct cost_cfg g;
	struct place_links l;
	struct cluster cl;
	struct plan_stage adam, muon;
	struct runtime rt;
	double dense, blocks, rate;
	int zero;

	tiny_llama(&m);
	CHECK(run(&p, &m, 1, 1) == 0);
	CHECK(chain_build(&c, &p) == 0);
	dense = p.layers[1].ns_flops;
	blocks = (double)(2 * p.layers[1].params);
	cluster_init(&cl);
	CHECK(cluster_open(&cl, "dgx-h100:1") == 0);
	place_links_init(&l, &cl, 1);
	place_links_fill_par(&l, &cl, PLAN_STAGES_IN_NODE, 4, 1, 1, 1, 1, 1);
	CHECK(runtime_parse(&rt, "megatron-core") == 0);
	rate = gpu->tflops16 * gpu->gemm_eff;
	for (zero = 0; zero <= 1; zero++) {
		double n = zero ? 4 : 1;

		memset(&g, 0, sizeof(g));
		g.sched = PLAN_FLUSH;
		g.w = 4;
		g.d = g.t = g.v = g.e = g.m = 1;
		g.zero = zero;
		g.rt = &rt;
		cost_opts_init(&o);
		cost_opts_from_profile(&o, &p, gpu);
		CHECK_NEAR(o.ns_tflops, rate, 0);
		cost_stage(&c, &o, &g, &l, 0, 0, 3, &adam);
		o.optimizer = PLAN_MUON;
		cost_stage(&c, &o, &g, &l, 0, 0, 3, &muon);
		CHECK_NEAR((double)(adam.state_bytes - muon.state_bytes),
			   4 * blocks / n, 1);
		CHECK_NEAR(muon.optimizer_ms - adam.optimizer_ms,
			   2 * dense / n / (rate * 1e9), 1e-12);
		CHECK_NEAR(muon.compute_ms, adam.compute_ms, 0);
	}
	place_links_release(&l);
	cluster_release(&cl);
	chain_release(&c);
	profile_release(&p);
}

int
main(void)
{
	catalog_init(&cat);
	test_flops();
	test_stage();
	catalog_release(&cat);
	return h_done();
}
