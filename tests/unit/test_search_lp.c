/*
 * test_search_lp.c - the search is exact with GLPK's per-layer
 * recomputation: on random chains and clusters, whatever few
 * alternatives it keeps and refines, its plan is no slower than that of
 * a search that keeps every candidate and refines every one that
 * recomputes (a topk and an lp_k above the candidates' number; it can be
 * slower, taking a refinement the closed form prefers over a uniform
 * choice the simulation would).  Fails when the refinement is left to the
 * lp_k best alternatives alone: a configuration that fits only by
 * recomputing, ranked out of them by its uniform recomputation, can win
 * once GLPK recomputes some layers only.  And searches one after another
 * sharing a memo (capacity's sizes) find what searches from scratch do.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "pd2bw/chain.h"
#include "pd2bw/cluster.h"
#include "pd2bw/cost.h"
#include "pd2bw/error.h"
#include "pd2bw/plan.h"
#include "pd2bw/profile.h"
#include "pd2bw/search.h"

#include "plan_fixtures.h"

/* xorshift: a reproducible generator for the random chains. */
static uint64_t rng = 88172645463325252ULL;

static double
urand(void)
{
	return h_urand(&rng);
}

/* L layers of random times and stashes, microbatches of 1 and 2: full
 * recomputation repeats the forward and keeps the layer's input,
 * selective a share of it and of the stash. */
static void
random_profile(struct profile *p, int L)
{
	int j, k;

	profile_init(p);
	profile_alloc(p, 2, L);
	p->mb[0] = 1;
	p->mb[1] = 2;
	p->model = xstrdup("random");
	for (j = 0; j < L; j++) {
		struct prof_layer *l = &p->layers[j];
		double f = 1 + urand() * 10, stash = 1e8 + urand() * 9e8;
		double out = 1e7 + urand() * 1e8, sel = 0.2 + urand() * 0.5;

		l->name = xstrdup("x");
		l->kind = PROF_BLOCK;
		l->repeat = 1;
		l->params = (int64_t)(1e6 + urand() * 5e7);
		for (k = 0; k < 2; k++) {
			struct prof_point *pt = &l->pt[k];

			pt->fwd_ms = f * (k + 1) * 0.9;
			pt->bwd_ms = 2 * pt->fwd_ms;
			pt->recomp_ms[PROF_RC_FULL] = pt->fwd_ms;
			pt->recomp_ms[PROF_RC_SELECTIVE] = pt->fwd_ms * sel / 2;
			pt->out_bytes = (int64_t)(out * (k + 1));
			pt->stash_bytes[PROF_RC_NONE] =
				(int64_t)(stash * (k + 1));
			pt->stash_bytes[PROF_RC_SELECTIVE] =
				(int64_t)(stash * (1 - sel) * (k + 1));
			pt->stash_bytes[PROF_RC_FULL] = pt->out_bytes;
			pt->work_bytes = (int64_t)(urand() * 1e8);
			pt->fwd_flops = 1e12;
		}
	}
}

/* The cost and search options of test_exact() and test_gate(). */
static void
random_opts(struct cost_opts *o, struct search_opts *so)
{
	cost_opts_init(o);
	/* a cap that most configurations meet only by recomputing */
	o->cap_bytes = (1 + urand() * 6) * 1e9;
	search_opts_init(so);
	so->batch = 16 << (int)(urand() * 3);
	so->rc_mask = (1u << PROF_RC_N) - 1;
	so->threads = 1;
	so->brief = 1;
	/* few alternatives kept, few refined among them: the rest of the
	 * candidates that recompute still count */
	so->topk = 1 + (int)(urand() * 3);
	so->lp_k = 1 + (int)(urand() * 3);
}

/* Nodes of 8 GPUs: 2 to 4 on a slow network (slow), else 1 or 2. */
static void
random_cluster(struct cluster *cl, int slow)
{
	one_node(cl, 8, 10 + urand() * 100);
	if (slow) {
		cl->nodes = 2 + (int)(urand() * 3);
		cl->net_gb_s = 0.2 + urand() * 3;
	} else {
		cl->nodes = 1 + (int)(urand() * 2);
	}
}

/*
 * Searches and brute-force searches of trials random chains on random
 * clusters (slow: 2 to 4 nodes on a slow network, else 1 or 2 fast
 * ones); returns how many agree, the brute force's plans found and
 * mixed in *found and *mixed, the search's statistics summed in *sum.
 */
static int
exact_trials(int trials, int slow, int *found, int *mixed,
	     struct search_stats *sum)
{
	int trial, agree = 0;

	*found = *mixed = 0;
	memset(sum, 0, sizeof(*sum));
	for (trial = 0; trial < trials; trial++) {
		struct profile p;
		struct chain c;
		struct cluster cl;
		struct cost_opts o;
		struct search_opts so;
		struct search_stats st;
		struct plan p0, p1;
		int L = 4 + (int)(urand() * 12), r0, r1;

		random_profile(&p, L);
		random_cluster(&cl, slow);
		random_opts(&o, &so);
		if (chain_build(&c, &p))
			pd2bw_die("cannot build a chain");
		plan_init(&p0);
		plan_init(&p1);
		r0 = search_run(&c, &cl, &o, &so, &p0, &st);
		sum->solved += st.solved;
		sum->exact += st.exact;
		sum->exact_sims += st.exact_sims;
		/* brute force: every candidate kept, each that recomputes
		 * refined */
		so.topk = 100000;
		so.lp_k = 1 << 30;
		so.rescore_all = 1;
		r1 = search_run(&c, &cl, &o, &so, &p1, &st);
		if (r0 == r1 &&
		    (r0 != 0 || p0.iter_ms <= p1.iter_ms * (1 + 1e-9)))
			agree++;
		else
			printf("# trial %d: L=%d cap %.2f GB: search %d "
			       "%.17g (s%d w%d d%d b%d rc %d), brute force "
			       "%d %.17g (s%d w%d d%d b%d rc %d)\n",
			       trial, L, o.cap_bytes / 1e9, r0, p0.iter_ms,
			       p0.sched, p0.w, p0.d, p0.b, p0.recompute, r1,
			       p1.iter_ms, p1.sched, p1.w, p1.d, p1.b,
			       p1.recompute);
		*found += r1 == 0;
		*mixed += r1 == 0 && p1.recompute == PLAN_RC_MIXED;
		plan_release(&p0);
		plan_release(&p1);
		chain_release(&c);
		cluster_release(&cl);
		profile_release(&p);
	}
	return agree;
}

static void
test_exact(void)
{
	struct search_stats sum;
	int trials = 200, agree, found, mixed;

	agree = exact_trials(trials, 0, &found, &mixed, &sum);
	CHECK_INT_EQ(agree, trials);
	/* the cases mean something: plans found, some of them mixed */
	CHECK(found > trials / 2);
	CHECK(mixed > 0);
	printf("# %d plans, %d of them mixed\n", found, mixed);
}

/*
 * The same on 2 to 4 nodes on a slow network, where the closed form the
 * search ranks by charges the transfers between stages that the
 * simulation overlaps with compute: up to 40% above the simulated time
 * on unequal stages, so a candidate it ranks out of the alternatives
 * kept can simulate faster than all of them.  The search simulates
 * every candidate whose simulated time could beat its best
 * (search_exact_rest()) and finds the brute force's plan.  Fails without that
 * pass: 2 of these 300 trials then pick a plan 11% slower (12 stages
 * under GPipe where 13 under flush simulate faster) and 1.3% slower
 * (selective recomputation where full simulates faster).
 */
static void
test_exact_slow(void)
{
	struct search_stats sum;
	int trials = 300, agree, found, mixed;

	agree = exact_trials(trials, 1, &found, &mixed, &sum);
	CHECK_INT_EQ(agree, trials);
	CHECK(found > trials / 2);
	printf("# %d plans, %d of them mixed; %ld solved, then %ld "
	       "partitioned and %ld simulated for exactness\n", found, mixed,
	       sum.solved, sum.exact, sum.exact_sims);
}

/* Plans a and b have the same configuration and figures, to the bit. */
static int
same_plan(const struct plan *a, const struct plan *b)
{
	int i;

	if (a->sched != b->sched || a->w != b->w || a->d != b->d ||
	    a->t != b->t || a->b != b->b || a->m != b->m ||
	    a->recompute != b->recompute || a->place != b->place ||
	    a->iter_ms != b->iter_ms ||
	    a->peak_mem_bytes != b->peak_mem_bytes || a->nalts != b->nalts)
		return 0;
	for (i = 0; i < a->nalts; i++)
		if (a->alts[i].iter_ms != b->alts[i].iter_ms ||
		    a->alts[i].recompute != b->alts[i].recompute ||
		    a->alts[i].mem_bytes != b->alts[i].mem_bytes)
			return 0;
	return 1;
}

/*
 * Searches one after another on one cluster whose node count grows and
 * shrinks, sharing a memo as capacity's sizes do, each find the plan of
 * a search from scratch: GLPK's refinement of every candidate that could
 * beat the plan takes what an earlier search found of a candidate (its
 * refined time, or none under a bound; search_refine_rest()), and the uncapped
 * solves that gate it, and what exact_gate() proved of a candidate under
 * a bound.  Fails when the memo keeps that a candidate has no refinement
 * (or, by exact_gate(), no simulated time) under a bound for a larger
 * bound, or takes a refined time or an uncapped solve of other links.
 */
static void
test_memo(void)
{
	/* the second: large and small by turns, the bound rising and
	 * falling (exact_gate()'s proofs hold under smaller bounds only) */
	static const int sizes[2][7] = {{1, 2, 4, 1, 3, 1, 2},
					{8, 1, 8, 2, 8, 4, 1}};
	int trial, trials = 160, same = 0, n = 0, i;

	for (trial = 0; trial < trials; trial++) {
		const int *nodes = sizes[trial >= 60];
		struct search_memo *memo = search_memo_new();
		struct profile p;
		struct chain c;
		struct cluster cl;
		struct cost_opts o;
		struct search_opts so;
		struct search_stats st;
		int L = 4 + (int)(urand() * 12);

		random_profile(&p, L);
		one_node(&cl, 8, 10 + urand() * 100);
		cost_opts_init(&o);
		o.cap_bytes = (1 + urand() * 6) * 1e9;
		search_opts_init(&so);
		so.batch = 16 << (int)(urand() * 3);
		so.rc_mask = (1u << PROF_RC_N) - 1;
		so.threads = 1;
		so.brief = 1;
		so.topk = 1 + (int)(urand() * 2);
		so.lp_k = 1;
		if (chain_build(&c, &p))
			pd2bw_die("cannot build a chain");
		for (i = 0; i < 7; i++) {
			struct plan p0, p1;
			int r0, r1;

			cl.nodes = nodes[i];
			plan_init(&p0);
			plan_init(&p1);
			so.memo = NULL;
			r0 = search_run(&c, &cl, &o, &so, &p0, &st);
			so.memo = memo;
			r1 = search_run(&c, &cl, &o, &so, &p1, &st);
			n++;
			if (r0 == r1 && (r0 != 0 || same_plan(&p0, &p1)))
				same++;
			else
				printf("# trial %d, %d nodes: from scratch %d "
				       "%.17g, with the memo %d %.17g\n",
				       trial, cl.nodes, r0, p0.iter_ms, r1,
				       p1.iter_ms);
			plan_release(&p0);
			plan_release(&p1);
		}
		search_memo_free(memo);
		chain_release(&c);
		cluster_release(&cl);
		profile_release(&p);
	}
	CHECK_INT_EQ(same, n);
}

/*
 * GLPK's refinement of the rest (search_refine_rest()) turns a group of
 * candidates away by its least lower bound before building its
 * template, and the uncapped solve that gates a candidate asks only
 * whether some placement comes under the bound: it stops at the first
 * that does.  On clusters of 2 to 4 nodes on a slow network, where the
 * two placements (stages or replicas in the node) differ most, the
 * plans, the candidates taken and those let through the gate are those
 * of searches that do neither (so.gate_all), to the bit.  Fails when
 * the solve stops after the first placement whatever its time (fewer let
 * through), or when the groups' least bound is 1% high (fewer taken).
 */
/* One trial of test_gate() from the generator's state: 1 when both
 * searches agree, with the gate's count in *passed. */
static int
gate_trial(int trial, long *passed)
{
	struct profile p;
	struct chain c;
	struct cluster cl;
	struct cost_opts o;
	struct search_opts so;
	struct search_stats st;
	struct plan p0, p1;
	int L = 4 + (int)(urand() * 12), r0, r1, j, k, same;
	long gated, taken;

	random_profile(&p, L);
	/* half with less activation: the all-reduce across the nodes
	 * weighs more, which replicas in the node keep off the network */
	for (j = 0; trial % 2 && j < L; j++) {
		for (k = 0; k < 2; k++)
			p.layers[j].pt[k].out_bytes /= 10;
	}
	random_cluster(&cl, 1);
	random_opts(&o, &so);
	if (chain_build(&c, &p))
		pd2bw_die("cannot build a chain");
	plan_init(&p0);
	plan_init(&p1);
	r0 = search_run(&c, &cl, &o, &so, &p0, &st);
	gated = st.gated;
	taken = st.taken;
	so.gate_all = 1;
	r1 = search_run(&c, &cl, &o, &so, &p1, &st);
	*passed += gated;
	same = r0 == r1 && (r0 != 0 || same_plan(&p0, &p1)) &&
	       gated == st.gated && taken == st.taken;
	if (!same)
		printf("# trial %d: first under the bound %d %.17g "
		       "(%ld through), every placement %d %.17g (%ld)\n",
		       trial, r0, p0.iter_ms, gated, r1, p1.iter_ms,
		       st.gated);
	plan_release(&p0);
	plan_release(&p1);
	chain_release(&c);
	cluster_release(&cl);
	profile_release(&p);
	return same;
}

static void
test_gate(void)
{
	int trial, trials = 300, same = 0;
	long passed = 0;

	for (trial = 0; trial < trials; trial++)
		same += gate_trial(trial, &passed);
	CHECK_INT_EQ(same, trials);
	CHECK(passed > trials);
}

/*
 * The gate's solve of a candidate serves the next of the same key (its
 * selective and full recomputation, side by side in the order), but not
 * once the bound came down between them: the solve stopped at the first
 * placement under the bound it had, which the new bound may be below
 * where the other placement is not, and the candidate was turned away.
 * The trial a soak found it in (PD2BW_TEST_SEED=25, trial 85 of
 * test_gate(), from the generator's state there): same plan, one
 * candidate fewer let through than gate_all lets.
 */
static void
test_gate_bound_down(void)
{
	uint64_t keep = rng;
	long passed = 0;

	rng = 6263315791422522136ULL;
	CHECK(gate_trial(85, &passed));
	rng = keep;
}

int
main(void)
{
	h_seed(&rng);
	(void)h_skip;
	(void)h_skip_all;
	test_exact();
	test_memo();
	test_gate();
	test_gate_bound_down();
	test_exact_slow();
	return h_done();
}
