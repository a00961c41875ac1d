/*
 * test_lp.c - GLPK's per-layer recomputation choice against brute force
 * over every combination on small random stages.
 */
#include <math.h>
#include <stdint.h>

#include "harness.h"

#include "pd2bw/chain.h"
#include "pd2bw/cost.h"
#include "pd2bw/lp.h"
#include "pd2bw/place.h"
#include "pd2bw/cluster.h"
#include "pd2bw/error.h"
#include "pd2bw/profile.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static double
urand(void)
{
	return h_urand(&rng);
}

/* Best extra time over all 3^n choices that fit; INFINITY if none. */
static double
brute(const struct chain *c, const struct cost_opts *o,
      const struct cost_cfg *g, int n, int *rc, int j)
{
	double best = INFINITY;
	int r;

	if (j == n) {
		double t = 0;
		int i;

		if (lp_stage_mem(c, o, g, 0, 0, n - 1, rc) > o->cap_bytes)
			return INFINITY;
		for (i = 0; i < n; i++)
			t += CHAIN_AT(c, c->rc[rc[i]], g->k, i);
		return t;
	}
	for (r = 0; r < PROF_RC_N; r++) {
		double v;

		rc[j] = r;
		v = brute(c, o, g, n, rc, j + 1);
		if (v < best)
			best = v;
	}
	return best;
}

int
main(void)
{
	int trial, agree = 0, feasible = 0, fits = 0, trials = 200;

	for (trial = 0; trial < trials; trial++) {
		struct profile p;
		struct cluster cl;
		struct chain c;
		struct cost_opts o = {.weight_bytes = 2, .grad_bytes = 2,
				      .opt_bytes = 12, .version_bytes = 4};
		struct cost_cfg g = {
			.sched = PLAN_2BW, .w = 1, .d = 2, .b = 1, .m = 4,
			.r = PROF_RC_NONE, .place = PLAN_STAGES_IN_NODE,
			.t = 1, .v = 1, .c = 1, .e = 1
		};
		struct place_links l;
		struct lp_opts lo = {7, 0, 10000};
		int n = 1 + (int)(urand() * 6), j, rc[8], rcb[8], st;
		double want, got = INFINITY, extra = 0;

		profile_init(&p);
		profile_alloc(&p, 1, n);
		p.mb[0] = 1;
		for (j = 0; j < n; j++) {
			struct prof_point *pt = &p.layers[j].pt[0];
			double none = 1e8 + urand() * 2e9;

			/* Every other trial: identical layers, which the
			 * solver groups. */
			if (trial % 2 && j > 0) {
				p.layers[j].name = xstrdup("x");
				p.layers[j].repeat = 1;
				p.layers[j].params = p.layers[0].params;
				*pt = p.layers[0].pt[0];
				continue;
			}
			p.layers[j].name = xstrdup("x");
			p.layers[j].repeat = 1;
			p.layers[j].params = (int64_t)(urand() * 1e7);
			pt->fwd_ms = 1 + urand() * 10;
			pt->bwd_ms = 2 * pt->fwd_ms;
			pt->recomp_ms[PROF_RC_SELECTIVE] = urand() * pt->fwd_ms;
			pt->recomp_ms[PROF_RC_FULL] = pt->fwd_ms;
			pt->stash_bytes[PROF_RC_NONE] = (int64_t)none;
			pt->stash_bytes[PROF_RC_SELECTIVE] =
				(int64_t)(none * (0.3 + 0.6 * urand()));
			pt->stash_bytes[PROF_RC_FULL] = (int64_t)(none * 0.05);
			pt->work_bytes = (int64_t)(urand() * 1e8);
		}
		cluster_init(&cl);
		cl.nodes = 1;
		cl.gpus_per_node = 2;
		cluster_set_uniform(&cl, 2, 100);
		chain_build(&c, &p);
		o.cap_bytes = 1e9 + urand() * 1.6e10;
		place_links_init(&l, &cl, 2);
		place_links_fill(&l, &cl, g.place, g.w, g.d, g.t);
		want = brute(&c, &o, &g, n, rcb, 0);
		st = lp_stage(&c, &o, &g, &l, 0, 0, n - 1, &lo, rc, &extra);
		if (st == LP_OPTIMAL) {
			feasible++;
			got = 0;
			for (j = 0; j < n; j++)
				got += CHAIN_AT(&c, c.rc[rc[j]], 0, j);
			if (lp_stage_mem(&c, &o, &g, 0, 0, n - 1, rc) <=
			    o.cap_bytes)
				fits++;
		}
		if ((isinf(want) && st == LP_INFEASIBLE) ||
		    (st == LP_OPTIMAL && fabs(got - want) < 1e-6 &&
		     fabs(extra - got) < 1e-6))
			agree++;
		else
			printf("# trial %d: n=%d status %s lp %.9g brute "
			       "%.9g\n",
			       trial, n, lp_status_names[st], got, want);
		place_links_release(&l);
		chain_release(&c);
		cluster_release(&cl);
		profile_release(&p);
	}
	CHECK_INT_EQ(agree, trials);
	CHECK_INT_EQ(fits, feasible);
	CHECK(feasible > trials / 4);
	CHECK(feasible < trials);
	return h_done();
}
