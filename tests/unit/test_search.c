/*
 * test_search.c - the search's shortcuts leave its answer as it was: the
 * best-first order taken in batches of any size (cut back from a buffer
 * twice the batch, over many passes or in one) gives the same plan and
 * alternatives, and a brief search (capacity's: no binding or placement
 * reason, the simulation's time alone) the same configuration and
 * figures as the full one; searches over a type's sizes sharing a memo
 * (capacity's) the plans each finds from scratch, also when the network
 * between nodes alike changes, and so do searches that start from a
 * bound (capacity's: the one a smaller size proved),
 * and a re-scoring that leaves out what cannot make the top; a search
 * that skips a placement whose links repeat the other's what each
 * placement gives; twin chains (sequence parallelism or not) one after
 * the other what they give apart.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "capture.h"
#include "pd2bw/analytic.h"
#include "pd2bw/chain.h"
#include "pd2bw/cluster.h"
#include "pd2bw/cost.h"
#include "pd2bw/error.h"
#include "pd2bw/plan.h"
#include "pd2bw/search.h"

#define NSHAPE 4

static struct gpu_catalog cat;

/* A Llama-3-8B-like model of 16 blocks on tensor-parallel shapes 1, 2, 4
 * and 8: tens of thousands of candidates on 16 nodes. */
struct setup {
	struct profile prof[NSHAPE];
	struct chain ch[NSHAPE];
	struct search_chain sc[NSHAPE];
	struct cluster cl;
	struct cost_opts o;
	struct search_opts so;
};

static const int setup_mb[] = {1, 2, 4, 8};

static void
setup_model(struct model *m)
{
	model_init_family(m, MODEL_LLAMA);
	m->name = "llama-like";
	m->layers = 16;
	m->hidden = 4096;
	m->heads = 32;
	m->kv_heads = 8;
	m->ffn_hidden = 14336;
	m->seq_len = 4096;
	m->vocab = 128256;
}

static int
setup_init(struct setup *u)
{
	const int *mb = setup_mb;
	struct model m;
	int i, ok = 1;

	setup_model(&m);
	for (i = 0; i < NSHAPE; i++) {
		struct analytic_par par;

		memset(&par, 0, sizeof(par));
		par.tp = 1 << i;
		par.cp = 1;
		par.ep = 1;
		par.imbalance = 1;
		profile_init(&u->prof[i]);
		ok &= analytic_profile_par(&u->prof[i], &m,
					   catalog_find(&cat, "H100-SXM"), mb,
					   4, &par, NULL) == 0;
		ok &= chain_build(&u->ch[i], &u->prof[i]) == 0;
		memset(&u->sc[i], 0, sizeof(u->sc[i]));
		u->sc[i].c = &u->ch[i];
		u->sc[i].t = par.tp;
		u->sc[i].cp = 1;
		u->sc[i].ep = 1;
	}
	cluster_init(&u->cl);
	ok &= cluster_open(&u->cl, "dgx-h100:16") == 0;
	cost_opts_init(&u->o);
	u->o.runtime = RUNTIME_MEGATRON_CORE;
	u->o.cap_bytes = 60e9;
	search_opts_init(&u->so);
	u->so.batch = 1024;
	u->so.rc_mask = (1u << PROF_RC_N) - 1;
	u->so.nv = 3;
	u->so.v[0] = 1;
	u->so.v[1] = 2;
	u->so.v[2] = 4;
	u->so.zero_mask = 3;
	u->so.lp_k = 0;
	return ok ? 0 : -1;
}

static void
setup_release(struct setup *u)
{
	int i;

	for (i = 0; i < NSHAPE; i++) {
		chain_release(&u->ch[i]);
		profile_release(&u->prof[i]);
	}
	cluster_release(&u->cl);
}

/* The configuration and figures of a and b agree to the bit. */
static int
same_alt(const struct plan_alt *a, const struct plan_alt *b)
{
	return a->sched == b->sched && a->w == b->w && a->d == b->d &&
	       a->t == b->t && a->sp == b->sp && a->b == b->b &&
	       a->m == b->m && a->recompute == b->recompute &&
	       a->v == b->v && a->zero == b->zero && a->place == b->place &&
	       a->iter_ms == b->iter_ms && a->mem_bytes == b->mem_bytes &&
	       a->samples_s == b->samples_s;
}

static int
same_plan(const struct plan *a, const struct plan *b, int alts)
{
	int i, s;

	if (a->sched != b->sched || a->w != b->w || a->d != b->d ||
	    a->t != b->t || a->b != b->b || a->m != b->m ||
	    a->recompute != b->recompute || a->v != b->v ||
	    a->zero != b->zero || a->place != b->place ||
	    a->iter_ms != b->iter_ms || a->samples_s != b->samples_s ||
	    a->tflops_per_gpu != b->tflops_per_gpu ||
	    a->peak_mem_bytes != b->peak_mem_bytes)
		return 0;
	for (s = 0; s < a->d; s++)
		if (a->stages[s].first != b->stages[s].first ||
		    a->stages[s].last != b->stages[s].last ||
		    a->stages[s].mem_bytes != b->stages[s].mem_bytes)
			return 0;
	if (!alts)
		return 1;
	if (a->nalts != b->nalts)
		return 0;
	for (i = 0; i < a->nalts; i++)
		if (!same_alt(&a->alts[i], &b->alts[i]))
			return 0;
	return 1;
}

/*
 * The first batch cut back many times from its buffer (a batch far below
 * the candidates), never (a batch of all of them), or taken a few at a
 * time over many passes: the plan and its alternatives are the same.
 */
static void
test_batches(struct setup *u)
{
	struct search_stats st0, st;
	struct plan p0, p;
	long sizes[] = {0, 7, 100, 1000, 0};
	char msg[128];
	size_t i;

	plan_init(&p0);
	CHECK(search_run_tp(u->sc, NSHAPE, &u->cl, &u->o, &u->so, &p0,
			    &st0) == 0);
	/* enough to cut the buffers of the batches below back */
	snprintf(msg, sizeof(msg), "%ld candidates, more than twice 1000",
		 st0.candidates - st0.screened);
	CHECK_MSG(st0.candidates - st0.screened > 2 * 1000, msg);
	CHECK(st0.solved > 100);
	sizes[4] = st0.candidates;
	for (i = 1; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct search_opts so = u->so;

		so.pick_first = sizes[i];
		plan_init(&p);
		CHECK(search_run_tp(u->sc, NSHAPE, &u->cl, &u->o, &so, &p,
				    &st) == 0);
		snprintf(msg, sizeof(msg), "a first batch of %ld: the same "
			 "plan and alternatives", sizes[i]);
		CHECK_MSG(same_plan(&p0, &p, 1), msg);
		CHECK_INT_EQ(st.solved, st0.solved);
		CHECK_INT_EQ(st.candidates, st0.candidates);
		if (sizes[i] < st0.solved)
			CHECK(st.passes > 0);
		plan_release(&p);
	}
	plan_release(&p0);
}

/* One search with and one without the group bound; returns how many
 * candidates the groups turned away. */
static long
group_case(struct setup *u, int nodes, int64_t batch, long first)
{
	struct search_opts so = u->so;
	struct search_stats s0, s1;
	struct cluster cl = u->cl;
	struct plan p0, p1;
	char msg[160];
	int r0, r1;

	cl.nodes = nodes;
	so.batch = batch;
	so.pick_first = first;
	so.threads = 1;
	so.no_group = 1;
	plan_init(&p0);
	plan_init(&p1);
	r0 = search_run_tp(u->sc, NSHAPE, &cl, &u->o, &so, &p0, &s0);
	so.no_group = 0;
	r1 = search_run_tp(u->sc, NSHAPE, &cl, &u->o, &so, &p1, &s1);
	snprintf(msg, sizeof(msg),
		 "%d nodes, batch %lld, cap %.0f GB, first batch %ld: the "
		 "group bound leaves the plan and the statistics",
		 nodes, (long long)batch, u->o.cap_bytes / 1e9, first);
	CHECK_MSG(r0 == r1 && (r0 || same_plan(&p0, &p1, 1)) &&
			  s0.candidates == s1.candidates &&
			  s0.screened == s1.screened &&
			  s0.solved == s1.solved && s0.bounded == s1.bounded &&
			  s0.cut == s1.cut && s0.passes == s1.passes &&
			  s0.skipped_rt == s1.skipped_rt &&
			  !strcmp(s0.skip_why, s1.skip_why) &&
			  s0.grouped == 0 && s1.grouped <= s1.bounded,
		  msg);
	plan_release(&p0);
	plan_release(&p1);
	return s1.grouped;
}

/*
 * Candidates turned away a group (chain, schedule, d, w, microbatch) at
 * a time by the group's least lower bound, or each on its own: the same
 * plan, alternatives and statistics, over clusters, batches, memory caps
 * and first batches of several sizes (one pass or many); the groups do
 * turn some away.
 */
static void
test_groups(struct setup *u)
{
	static const int nodes[] = {1, 3, 16};
	static const int64_t batch[] = {96, 512, 1000};
	static const long first[] = {0, 7, 300};
	double cap = u->o.cap_bytes;
	long grouped = 0;
	size_t i, j, f;
	int caps;

	for (caps = 0; caps < 2; caps++) {
		u->o.cap_bytes = caps ? 24e9 : cap;
		for (i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
			for (j = 0; j < sizeof(batch) / sizeof(batch[0]); j++)
				for (f = 0; f < 3; f++)
					grouped += group_case(u, nodes[i],
							      batch[j],
							      first[f]);
	}
	u->o.cap_bytes = cap;
	CHECK_MSG(grouped > 0, "some candidates turned away a group at a "
			       "time");
}

/* A brief search: the same configuration, stages and figures, and no
 * reasons, nor GLPK's time. */
static void
test_brief(struct setup *u)
{
	struct search_opts so = u->so;
	struct search_stats st;
	struct plan full, brief;
	int lp;

	for (lp = 0; lp <= 1; lp++) {
		so.lp_k = lp;
		so.topk = 1;
		so.brief = 0;
		plan_init(&full);
		plan_init(&brief);
		CHECK(search_run_tp(u->sc, NSHAPE, &u->cl, &u->o, &so, &full,
				    &st) == 0);
		so.brief = 1;
		CHECK(search_run_tp(u->sc, NSHAPE, &u->cl, &u->o, &so,
				    &brief, &st) == 0);
		CHECK_MSG(same_plan(&full, &brief, 1),
			  "a brief search: the same plan and figures");
		CHECK(full.bind_reason && full.place_reason);
		CHECK(!brief.bind_reason && !brief.place_reason);
		/* no clock read for GLPK's time (lp_clock_ms()) */
		CHECK(st.lp_ms == 0);
		plan_release(&full);
		plan_release(&brief);
	}
}

/*
 * One search after another, sharing a memo (on one thread and on three),
 * gives the plan of a search from scratch each time, its alternatives'
 * simulated times and its messages: over growing and shrinking clusters
 * of fast and of slow links (the same candidates under bounds that move
 * both ways, on links that change with the cluster), under a memory cap
 * that leaves many candidates no partition, and one that leaves none (the
 * least memory any needs, which the memo keeps).  Fails when the memo
 * ignores the span of a part_fits() answer, the links of a solve or of a
 * re-scoring simulation, or the bound of a least memory.
 */
static void
test_memo(struct setup *u)
{
	static const int nodes[] = {1, 2, 4, 8, 16, 12, 6, 3, 2, 1};
	static const char *const kinds[] = {"dgx-h100", "l40s-pcie"};
	struct search_opts so = u->so;
	struct search_memo *memo[2];
	struct cluster cl[2];
	double cap = u->o.cap_bytes;
	size_t i;
	int j, caps, kind;

	for (kind = 0; kind < 2; kind++) {
		cluster_init(&cl[kind]);
		CHECK(cluster_open(&cl[kind], kinds[kind]) == 0);
	}
	for (caps = 0; caps < 3; caps++) {
		u->o.cap_bytes = caps == 2 ? 1e9 : caps ? 24e9 : 40e9;
		memo[0] = search_memo_new();
		memo[1] = search_memo_new();
		for (i = 0; i < 2 * sizeof(nodes) / sizeof(nodes[0]); i++) {
			struct cluster *c = &cl[i % 2];
			struct search_stats st;
			struct plan p0, p;
			char msg[160], *e0, *e;
			int r0, r;

			c->nodes = nodes[i / 2];
			so.memo = NULL;
			so.threads = 1;
			plan_init(&p0);
			cap_begin();
			r0 = search_run_tp(u->sc, NSHAPE, c, &u->o, &so, &p0,
					   &st);
			e0 = cap_end();
			for (j = 0; j < 2; j++) {
				so.memo = memo[j];
				so.threads = j ? 3 : 1;
				so.threads_eager = 1;
				plan_init(&p);
				snprintf(msg, sizeof(msg),
					 "%s:%d, cap %.0f GB, %d thread(s), "
					 "a shared memo: the plan from scratch",
					 kinds[i % 2],
					 c->nodes, u->o.cap_bytes / 1e9,
					 so.threads);
				cap_begin();
				r = search_run_tp(u->sc, NSHAPE, c, &u->o, &so,
						  &p, &st);
				e = cap_end();
				CHECK_MSG(r == r0 &&
						  (r0 || same_plan(&p0, &p, 1)) &&
						  !strcmp(e0, e),
					  msg);
				free(e);
				plan_release(&p);
			}
			free(e0);
			plan_release(&p0);
		}
		search_memo_free(memo[0]);
		search_memo_free(memo[1]);
	}
	for (kind = 0; kind < 2; kind++)
		cluster_release(&cl[kind]);
	u->o.cap_bytes = cap;
}

/*
 * A memo with a span (capacity's largest size) lists the candidates once
 * and each search takes those of its GPUs: one search after another
 * gives the plan, the messages and the counts of candidates and of those
 * screened out of a search from scratch, over growing and shrinking
 * clusters, one past the span (enumerated), then on nodes of 4 GPUs
 * (listed again), under memory caps that leave many, few and none, on
 * one thread and on three.  Fails when a list keeps a candidate of more
 * GPUs than the search's, leaves one out, or outlives its cluster's
 * node shape.
 */
static void
test_memo_span(struct setup *u)
{
	static const struct {
		const char *kind;
		int nodes;
	} sizes[] = {{"dgx-h100", 1}, {"dgx-h100", 2}, {"dgx-h100", 5},
		     {"dgx-h100", 12}, {"dgx-h100", 16}, {"dgx-h100", 6},
		     {"dgx-h100", 3}, {"gh200-quad", 2}, {"gh200-quad", 24},
		     {"gh200-quad", 7}, {"dgx-h100", 8}};
	struct search_opts so = u->so;
	double cap = u->o.cap_bytes;
	size_t i;
	int caps;

	for (caps = 0; caps < 3; caps++) {
		struct search_memo *memo = search_memo_new();

		u->o.cap_bytes = caps == 2 ? 1e9 : caps ? 24e9 : 40e9;
		search_memo_span(memo, 96);
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			struct search_stats st0, st;
			struct cluster cl;
			struct plan p0, p;
			char msg[160], *e0, *e;
			int r0, r;

			cluster_init(&cl);
			CHECK(cluster_open(&cl, sizes[i].kind) == 0);
			cl.nodes = sizes[i].nodes;
			so.memo = NULL;
			so.threads = 1;
			plan_init(&p0);
			cap_begin();
			r0 = search_run_tp(u->sc, NSHAPE, &cl, &u->o, &so, &p0,
					   &st0);
			e0 = cap_end();
			so.memo = memo;
			so.threads = i % 2 ? 3 : 1;
			so.threads_eager = i % 4 == 1;
			plan_init(&p);
			cap_begin();
			r = search_run_tp(u->sc, NSHAPE, &cl, &u->o, &so, &p,
					  &st);
			e = cap_end();
			snprintf(msg, sizeof(msg),
				 "%s:%d, cap %.0f GB, a memo spanning 96 GPUs: "
				 "the plan and counts from scratch",
				 sizes[i].kind, cl.nodes, u->o.cap_bytes / 1e9);
			CHECK_MSG(r == r0 && (r0 || same_plan(&p0, &p, 1)) &&
					  !strcmp(e0, e) &&
					  st.candidates == st0.candidates &&
					  st.screened == st0.screened,
				  msg);
			free(e0);
			free(e);
			plan_release(&p);
			plan_release(&p0);
			cluster_release(&cl);
		}
		search_memo_free(memo);
	}
	u->o.cap_bytes = cap;
}

/*
 * A start bound (capacity's: the k-th best time a smaller cluster's
 * search found) leaves the plan and its alternatives as they were: the
 * k-th best time itself, above it, far above, and below it (fewer than k
 * under it: searched again without it), with a memory cap that leaves
 * nothing (no plan either way), on one thread and on three, brief or
 * not; and the k-th best of a search on a smaller cluster, on the larger
 * one.
 */
static void
test_start_bound(struct setup *u)
{
	static const double f[] = {1, 1.0000001, 3, 0.999, 0.5};
	struct search_opts so = u->so;
	double cap = u->o.cap_bytes, kth;
	int caps, j, nodes = u->cl.nodes;

	for (caps = 0; caps < 2; caps++) {
		u->o.cap_bytes = caps ? 1e9 : cap;
		for (j = 0; j < 2 * (int)(sizeof(f) / sizeof(f[0])); j++) {
			struct search_stats st0, st;
			struct plan p0, p;
			char msg[160], *e0, *e;
			int r0, r;

			so.start_bound = 0;
			so.threads = j % 2 ? 3 : 1;
			so.threads_eager = 1;
			so.brief = j % 4 == 1;
			so.topk = j % 3 == 0 ? 1 : 4;
			plan_init(&p0);
			cap_begin();
			r0 = search_run_tp(u->sc, NSHAPE, &u->cl, &u->o, &so,
					   &p0, &st0);
			e0 = cap_end();
			kth = st0.kth_ms;
			/* without a k-th best: some time of the right size */
			so.start_bound = (isfinite(kth) ? kth : 1e4) * f[j / 2];
			plan_init(&p);
			cap_begin();
			r = search_run_tp(u->sc, NSHAPE, &u->cl, &u->o, &so,
					  &p, &st);
			e = cap_end();
			snprintf(msg, sizeof(msg),
				 "start bound %g of the k-th best %g (cap %.0f "
				 "GB, %d thread(s)): the same plan%s",
				 f[j / 2], kth, u->o.cap_bytes / 1e9,
				 so.threads, st.again ? ", searched again" : "");
			CHECK_MSG(r == r0 && (r0 || same_plan(&p0, &p, 1)) &&
					  (r0 || st.kth_ms == kth) &&
					  !strcmp(e0, e) &&
					  st.again == (r0 || f[j / 2] < 1),
				  msg);
			free(e0);
			free(e);
			plan_release(&p);
			plan_release(&p0);
		}
	}
	u->o.cap_bytes = cap;
	/* from 8 nodes to 16 */
	{
		struct search_stats st0, st;
		struct plan p0, p;

		so.threads = 1;
		so.brief = 1;
		so.topk = 1;
		so.start_bound = 0;
		u->cl.nodes = 8;
		plan_init(&p0);
		CHECK(search_run_tp(u->sc, NSHAPE, &u->cl, &u->o, &so, &p0,
				    &st0) == 0);
		plan_release(&p0);
		u->cl.nodes = 16;
		plan_init(&p0);
		CHECK(search_run_tp(u->sc, NSHAPE, &u->cl, &u->o, &so, &p0,
				    &st) == 0);
		so.start_bound = st0.kth_ms;
		plan_init(&p);
		CHECK(search_run_tp(u->sc, NSHAPE, &u->cl, &u->o, &so, &p,
				    &st) == 0);
		CHECK_MSG(same_plan(&p0, &p, 1) && !st.again,
			  "16 nodes from the bound 8 nodes proved: the same "
			  "plan, in one search");
		plan_release(&p);
		plan_release(&p0);
	}
	u->cl.nodes = nodes;
}

/*
 * The re-scoring leaves out the alternatives topk others outrun by their
 * floor (cost_simulate_floor()), and the long runs whose floor after the
 * first of their two shorter runs they outrun: the plan and its
 * alternatives are those of simulating them all, for every topk from 1
 * to 6, on 2 and 16 nodes at batch 1024 and on 2 nodes at batch 16384
 * (long runs), and some are left out, some long runs among them.
 */
static void
test_rescore(struct setup *u)
{
	struct search_opts so = u->so;
	long skipped = 0, cut = 0;
	int topk, nodes = u->cl.nodes, n;

	for (n = 0; n < 3; n++) {
		u->cl.nodes = n == 1 ? 16 : 2;
		so.batch = n == 2 ? 16384 : u->so.batch;
		for (topk = 1; topk <= 6; topk++) {
			struct search_stats st;
			struct plan p0, p;
			char msg[96];
			int r0;

			so.topk = topk;
			so.rescore_all = 1;
			plan_init(&p0);
			r0 = search_run_tp(u->sc, NSHAPE, &u->cl, &u->o, &so,
					   &p0, &st);
			so.rescore_all = 0;
			plan_init(&p);
			snprintf(msg, sizeof(msg), "%d nodes, top %d: the "
				 "alternatives of simulating them all",
				 u->cl.nodes, topk);
			CHECK_MSG(search_run_tp(u->sc, NSHAPE, &u->cl, &u->o,
						&so, &p, &st) == r0 &&
					  (r0 || same_plan(&p0, &p, 1)),
				  msg);
			skipped += st.rescore_skipped;
			cut += st.rescore_cut;
			plan_release(&p);
			plan_release(&p0);
		}
	}
	CHECK_MSG(skipped > 0, "some alternatives were not simulated");
	CHECK_MSG(cut > 0, "some long runs were left after their first "
			   "shorter run");
	u->cl.nodes = nodes;
}

/*
 * Where the placements give every grid the same links (one DGX H100:
 * NVSwitch between every pair of GPUs), the search skips the second
 * placement's solve as the first one's repeat (search_solve_best()): the
 * figures read the placement through the links alone.  A search fixed to either
 * placement, solving each, finds the very same plan and alternatives,
 * their placement apart, and the search over both that of the first.
 */
static void
test_twin_links(struct setup *u)
{
	struct search_opts so = u->so;
	struct search_stats st;
	struct plan p[3];
	int i, r[3], nodes = u->cl.nodes;

	u->cl.nodes = 1;
	for (i = 0; i < 3; i++) {
		plan_init(&p[i]);
		so.fix_place = i < 2 ? i : -1;
		cap_begin();
		r[i] = search_run_tp(u->sc, NSHAPE, &u->cl, &u->o, &so, &p[i],
				     &st);
		free(cap_end());
	}
	CHECK_INT_EQ(r[0], 0);
	CHECK_INT_EQ(r[1], 0);
	CHECK_INT_EQ(r[2], 0);
	CHECK(same_plan(&p[0], &p[2], 1));
	for (i = 0; i < p[1].nalts && i < p[0].nalts; i++)
		p[1].alts[i].place = p[0].alts[i].place;
	p[1].place = p[0].place;
	CHECK(p[0].nalts > 1);
	CHECK(same_plan(&p[0], &p[1], 1));
	for (i = 0; i < 3; i++)
		plan_release(&p[i]);
	u->cl.nodes = nodes;
}

/*
 * The tensor-parallel chains searched twice over, with sequence
 * parallelism and without (the same compute: the exact search's
 * enumeration reads a chain's floors back for the twin that follows
 * it), give what they give in an order where no twin follows its own:
 * the same plan and alternatives, and the exact search takes up as many
 * candidates (a floor read back wrong turns away others' groups), on
 * grids where it takes up some.
 */
static void
test_floor_twins(struct setup *u)
{
	static const int nodes[] = {3, 16};
	static const int64_t batch[] = {64, 96};
	struct search_chain next[2 * NSHAPE - 1], apart[2 * NSHAPE - 1];
	struct search_opts so = u->so;
	struct search_stats st[2];
	struct plan p[2];
	int i, c, r[2], n = 2 * NSHAPE - 1, nn = u->cl.nodes;

	next[0] = apart[0] = u->sc[0];
	for (i = 1; i < NSHAPE; i++) {
		next[2 * i - 1] = apart[i] = u->sc[i];
		next[2 * i] = apart[NSHAPE + i - 1] = u->sc[i];
		next[2 * i].sp = apart[NSHAPE + i - 1].sp = 1;
	}
	for (c = 0; c < 2; c++) {
		u->cl.nodes = nodes[c];
		so.batch = batch[c];
		for (i = 0; i < 2; i++) {
			plan_init(&p[i]);
			cap_begin();
			r[i] = search_run_tp(i ? apart : next, n, &u->cl,
					     &u->o, &so, &p[i], &st[i]);
			free(cap_end());
		}
		CHECK_INT_EQ(r[0], 0);
		CHECK_INT_EQ(r[1], 0);
		CHECK(same_plan(&p[0], &p[1], 1));
		CHECK(st[0].exact > 0);
		CHECK_INT_EQ(st[0].exact, st[1].exact);
		CHECK_INT_EQ(st[0].candidates, st[1].candidates);
		for (i = 0; i < 2; i++)
			plan_release(&p[i]);
	}
	u->cl.nodes = nn;
}

/* Whether two searches' statistics agree on all but the time. */
static int
same_stats(const struct search_stats *a, const struct search_stats *b)
{
	return a->candidates == b->candidates && a->screened == b->screened &&
	       a->solved == b->solved && a->bounded == b->bounded &&
	       a->grouped == b->grouped && a->cut == b->cut &&
	       a->passes == b->passes && a->lp_solves == b->lp_solves &&
	       a->kth_ms == b->kth_ms && a->rescore_skipped ==
	       b->rescore_skipped && a->taken == b->taken &&
	       a->gated == b->gated && a->exact == b->exact &&
	       a->exact_sims == b->exact_sims &&
	       a->exact_taken == b->exact_taken &&
	       a->skipped_rt == b->skipped_rt &&
	       !strcmp(a->skip_why, b->skip_why);
}

/*
 * The shortcuts that only save arithmetic (so.plain off: templates kept
 * per chain, schedule and depth and screened per width,
 * cost_simulate_lb()'s factors memoised, exact_fits()'s verdicts shared
 * by twin chains, its scans galloping, a solve's stages given up at the
 * first whose own figure puts the iteration at the bound) leave the
 * plan, the alternatives and every statistic as the plain search finds
 * them: clusters, batches and memory caps of several sizes, ZeRO stages
 * 0 to 3 with activation offload or not, a shard group (a width the
 * template reads), GLPK's refinement of the rest (search_exact_fits_rc()),
 * twin chains (sequence parallelism or not) one after the other.  Fails
 * when a template's screen, a factor or a verdict is another's, or a
 * stage's figure is over the iteration's.
 */
static void
test_plain(struct setup *u)
{
	static const int nodes[] = {1, 3, 16};
	static const int64_t batch[] = {96, 512, 1000};
	struct search_chain tw[2 * NSHAPE];
	double cap = u->o.cap_bytes;
	int i, j, k, nn = u->cl.nodes, exact = 0, n = 0;

	for (i = 0; i < NSHAPE; i++) {
		tw[2 * i] = tw[2 * i + 1] = u->sc[i];
		tw[2 * i + 1].sp = 1;
	}
	for (k = 0; k < 8; k++)
		for (i = 0; i < 3; i++)
			for (j = 0; j < 3; j++) {
				struct search_opts so = u->so;
				struct search_stats st[2];
				struct plan p[2];
				char msg[200];
				int r[2], q, twins = k & 1;

				u->cl.nodes = nodes[i];
				u->o.cap_bytes = k & 2 ? 24e9 : cap;
				so.batch = batch[j];
				so.threads = 1;
				so.lp_k = k & 4 ? 2 : 0;
				if (k >= 4) {
					so.zero_mask = 0xf;
					so.offload_mask = 3;
					so.shard = k == 6 ? 8 : 0;
				}
				for (q = 0; q < 2; q++) {
					so.plain = !q;
					plan_init(&p[q]);
					cap_begin();
					r[q] = search_run_tp(
						twins ? tw : u->sc,
						twins ? 2 * NSHAPE : NSHAPE,
						&u->cl, &u->o, &so, &p[q], &st[q]);
					free(cap_end());
				}
				snprintf(msg, sizeof(msg),
					 "%d nodes, batch %lld, cap %.0f GB, "
					 "case %d: the shortcuts leave the "
					 "plan and the statistics",
					 nodes[i], (long long)batch[j],
					 u->o.cap_bytes / 1e9, k);
				CHECK_MSG(r[0] == r[1] &&
						  (r[0] ||
						   same_plan(&p[0], &p[1], 1)) &&
						  same_stats(&st[0], &st[1]),
					  msg);
				exact += st[0].exact > 0;
				n++;
				plan_release(&p[0]);
				plan_release(&p[1]);
			}
	u->cl.nodes = nn;
	u->o.cap_bytes = cap;
	CHECK_MSG(exact > n / 5, "the exact search partitions candidates in "
				 "many cases");
}

/*
 * The pick's floor of a group's bounds (pick_away(): most groups turned
 * away before their bounds are worked out) turns away, and counts, the
 * very groups the plain search turns away by their least bound: the
 * same plan, alternatives and statistics, the count of candidates turned
 * away a group at a time among them, over clusters, batches, memory
 * caps and first batches small enough that the pick fills (one pass or
 * many).  Fails when the floor is over a bound of its group.
 */
static void
test_plain_groups(struct setup *u)
{
	static const int nodes[] = {1, 3, 16};
	static const int64_t batch[] = {96, 512, 1000};
	static const long first[] = {5, 40, 300};
	double cap = u->o.cap_bytes;
	long grouped = 0;
	size_t i, j, f;
	int caps, q;

	for (caps = 0; caps < 2; caps++) {
		u->o.cap_bytes = caps ? 24e9 : cap;
		for (i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
			for (j = 0; j < sizeof(batch) / sizeof(batch[0]); j++)
				for (f = 0; f < 3; f++) {
					struct search_opts so = u->so;
					struct search_stats st[2];
					struct cluster cl = u->cl;
					struct plan p[2];
					char msg[160];
					int r[2];

					cl.nodes = nodes[i];
					so.batch = batch[j];
					so.pick_first = first[f];
					so.threads = 1;
					for (q = 0; q < 2; q++) {
						so.plain = !q;
						plan_init(&p[q]);
						cap_begin();
						r[q] = search_run_tp(u->sc, NSHAPE,
								     &cl, &u->o,
								     &so, &p[q],
								     &st[q]);
						free(cap_end());
					}
					snprintf(msg, sizeof(msg),
						 "%d nodes, batch %lld, cap %.0f "
						 "GB, first batch %ld: the "
						 "floors leave the plan and the "
						 "statistics",
						 nodes[i], (long long)batch[j],
						 u->o.cap_bytes / 1e9, first[f]);
					CHECK_MSG(r[0] == r[1] &&
							  (r[0] ||
							   same_plan(&p[0],
								     &p[1], 1)) &&
							  same_stats(&st[0],
								     &st[1]),
						  msg);
					grouped += st[1].grouped;
					plan_release(&p[0]);
					plan_release(&p[1]);
				}
	}
	u->o.cap_bytes = cap;
	CHECK_MSG(grouped > 0, "the floors' searches turn some candidates "
			       "away a group at a time");
}

/* The binding constraint and its reason of a and b agree. */
static int
same_binding(const struct plan *a, const struct plan *b)
{
	return a->bind == b->bind &&
	       !strcmp(a->bind_reason ? a->bind_reason : "",
		       b->bind_reason ? b->bind_reason : "");
}

/*
 * The binding constraint and its reason come out of a search as out of
 * the plain one, which solves each faster candidate search_explain_binding()
 * looks at under the plan's bound: the search solves one that needs the
 * least memory found so far or more, whatever its partition
 * (part_mem_lb()), under the fastest time found so far instead, which
 * leaves the fastest, the least memory and whose it is as they were.
 * Clusters, batches and memory caps such that memory binds most plans.
 * Fails when the bound or the memory bound turns away a candidate that
 * would have named another nearest configuration or fastest time.
 */
static void
test_plain_binding(struct setup *u)
{
	static const int nodes[] = {1, 2, 3, 4, 8, 16};
	static const double caps[] = {20e9, 30e9, 45e9, 60e9};
	static const int64_t batch[] = {512, 1024};
	double cap = u->o.cap_bytes;
	size_t i, j, k;
	int nn = u->cl.nodes, memory = 0;

	for (i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
		for (j = 0; j < sizeof(caps) / sizeof(caps[0]); j++)
			for (k = 0; k < sizeof(batch) / sizeof(batch[0]);
			     k++) {
				struct search_opts so = u->so;
				struct search_stats st[2];
				struct plan p[2];
				char msg[160];
				int r[2], q, same;

				u->cl.nodes = nodes[i];
				u->o.cap_bytes = caps[j];
				so.batch = batch[k];
				so.threads = 1;
				for (q = 0; q < 2; q++) {
					so.plain = !q;
					plan_init(&p[q]);
					r[q] = search_run_tp(u->sc, NSHAPE,
							     &u->cl, &u->o, &so,
							     &p[q], &st[q]);
				}
				snprintf(msg, sizeof(msg),
					 "%d nodes, cap %.0f GB, batch %lld: "
					 "the binding as the plain search's",
					 nodes[i], caps[j] / 1e9,
					 (long long)batch[k]);
				same = r[0] || (same_plan(&p[0], &p[1], 1) &&
						same_binding(&p[0], &p[1]));
				CHECK_MSG(r[0] == r[1] && same, msg);
				memory += !r[0] &&
					  p[0].bind == PLAN_BIND_MEMORY;
				plan_release(&p[0]);
				plan_release(&p[1]);
			}
	u->cl.nodes = nn;
	u->o.cap_bytes = cap;
	CHECK_MSG(memory > 10, "memory binds many of the plans");
	printf("# memory binds %d plans\n", memory);
}

/*
 * When nothing fits, the least memory any candidate needs and whose it is
 * (the first in the order of the enumeration of those that need the
 * least) come out of a search as out of the plain one, which tries each
 * candidate as it comes under the least found so far: clusters of
 * several sizes, batches and caps that leave nothing, on their own and
 * one after another sharing a memo, the sizes out of order.  Fails when
 * the first visit's least bound, the order of the second or the memo's
 * bounds (a memory at or above one, part_mem_lb() of a candidate) change
 * the answer or the tie.
 */
static void
test_minmem(struct setup *u)
{
	static const int nodes[] = {3, 1, 16, 2, 1, 3};
	static const int64_t batch[] = {96, 512};
	static const double caps[] = {1e9, 6e9};
	double cap = u->o.cap_bytes;
	int i, j, k, q, nn = u->cl.nodes, nofit = 0;

	for (k = 0; k < 2; k++)
		for (j = 0; j < 2; j++) {
			struct search_memo *memo = search_memo_new();

			u->o.cap_bytes = caps[k];
			for (i = 0; i < 6; i++) {
				struct search_opts so = u->so;
				struct search_stats st;
				struct plan p[3];
				char msg[200], *e[3];
				int r[3];

				u->cl.nodes = nodes[i];
				so.batch = batch[j];
				so.threads = 1;
				for (q = 0; q < 3; q++) {
					so.plain = q == 0;
					so.memo = q == 2 ? memo : NULL;
					plan_init(&p[q]);
					cap_begin();
					r[q] = search_run_tp(u->sc, NSHAPE, &u->cl,
							     &u->o, &so, &p[q],
							     &st);
					e[q] = cap_end();
				}
				snprintf(msg, sizeof(msg),
					 "%d nodes, batch %lld, cap %.0f GB: "
					 "the least memory, alone and sharing "
					 "a memo, as the plain search's",
					 nodes[i], (long long)batch[j],
					 caps[k] / 1e9);
				CHECK_MSG(r[0] == r[1] && r[0] == r[2] &&
						  !strcmp(e[0], e[1]) &&
						  !strcmp(e[0], e[2]),
					  msg);
				nofit += r[0] == 3 &&
					 strstr(e[0], "the smallest needs");
				for (q = 0; q < 3; q++) {
					free(e[q]);
					plan_release(&p[q]);
				}
			}
			search_memo_free(memo);
		}
	u->cl.nodes = nn;
	u->o.cap_bytes = cap;
	CHECK_MSG(nofit >= 12, "nothing fits in most cases");
}

/*
 * A sweep of growing clusters sharing a memo, each search starting from
 * the bound the last one proved (as capacity runs them), partitions
 * after the re-scoring exactly the candidates each search from scratch
 * does (stats->exact): what the memo keeps of the gates' verdicts
 * (exact_fits(), exact_fits_tp(), exact_gate()'s proofs, part_fits())
 * answers as the gates would, with and without ZeRO and offload, with
 * and without the memo's lists.  Fails
 * when a verdict kept turns a candidate away that its gate lets through
 * (where no later gate turns it away too: a part_fits() answer kept as
 * no over too wide a span fails here, half again too wide on
 * exact_fits_tp()'s no does not).
 */
static void
test_memo_gates(struct setup *u)
{
	static const int nodes[] = {1, 2, 3, 4, 6, 8, 12, 16};
	/* the sizes out of order too: a proof kept under a smaller bound
	 * is asked under a larger one */
	static const int mixed[] = {1, 2, 4, 3, 8, 16, 6, 12};
	double cap = u->o.cap_bytes;
	int i, caps, nn = u->cl.nodes, exact = 0, prev;

	for (caps = 0; caps < 8; caps++) {
		struct search_memo *memo = search_memo_new();
		struct search_opts so = u->so;

		/* with its lists, the proofs by a candidate's place in them
		 * (gate_no()) */
		if (caps & 4)
			search_memo_span(memo, 16 * u->cl.gpus_per_node);
		u->o.cap_bytes = caps & 1 ? 24e9 : cap;
		so.threads = 1;
		so.lp_k = 2;
		so.batch = caps & 2 ? 1000 : 96;
		if (caps & 2) {
			so.zero_mask = 0xf;
			so.offload_mask = 3;
		}
		for (i = 0; i < (int)(sizeof(nodes) / sizeof(nodes[0]));
		     i++) {
			struct search_stats st0, st;
			struct plan p0, p;
			char msg[160];
			int r0, r;

			u->cl.nodes = caps & 4 ? mixed[i] : nodes[i];
			so.memo = NULL;
			so.start_bound = 0;
			plan_init(&p0);
			cap_begin();
			r0 = search_run_tp(u->sc, NSHAPE, &u->cl, &u->o, &so,
					   &p0, &st0);
			free(cap_end());
			so.memo = memo;
			/* the last size's bound holds for a larger one */
			prev = !i ? 0 : caps & 4 ? mixed[i - 1] : nodes[i - 1];
			so.start_bound =
			    i && u->cl.nodes > prev ? so.start_bound : 0;
			plan_init(&p);
			cap_begin();
			r = search_run_tp(u->sc, NSHAPE, &u->cl, &u->o, &so,
					  &p, &st);
			free(cap_end());
			so.start_bound = r == 0 && isfinite(st.kth_ms)
						 ? st.kth_ms
						 : 0;
			snprintf(msg, sizeof(msg),
				 "%d nodes, batch %lld, cap %.0f GB, a sweep's "
				 "memo: the plan and the candidates "
				 "partitioned after the re-scoring (%ld) from "
				 "scratch",
				 nodes[i], (long long)so.batch,
				 u->o.cap_bytes / 1e9, st0.exact);
			CHECK_MSG(r == r0 && (r0 || same_plan(&p0, &p, 1)) &&
					  st.exact == st0.exact &&
					  st.exact_sims == st0.exact_sims,
				  msg);
			exact += st0.exact > 0;
			plan_release(&p0);
			plan_release(&p);
		}
		search_memo_free(memo);
	}
	u->cl.nodes = nn;
	u->o.cap_bytes = cap;
	CHECK_MSG(exact >= 4, "the exact search partitions candidates in "
			      "several sizes");
}

/*
 * One sweep of test_memo_none() over the node counts nodes[0..n) of u's
 * cluster (caps: its memory cap, batch and options); returns how many
 * sizes started from a smaller one's bound.
 */
static int
none_sweep(struct setup *u, int caps, const int *nodes, int n, int most)
{
	struct search_memo *memo = search_memo_new();
	struct search_opts so = u->so;
	int i, nd = 0, prev, checked = 0;

	search_memo_span(memo, most * u->cl.gpus_per_node);
	so.threads = 1;
	so.topk = 1;
	so.lp_k = 1;
	so.brief = 1;
	so.pick_first = 2048;
	so.batch = caps & 2 ? 1000 : caps & 4 ? 24 : 256;
	if (caps & 2) {
		so.zero_mask = 0xf;
		so.offload_mask = 3;
	}
	so.start_bound = 0;
	for (i = 0, prev = 0; i < n; i++, prev = nd) {
		struct search_stats st0, st;
		struct plan p0, p;
		double start;
		char msg[200];
		int r0, r;

		nd = nodes[i];
		start = nd > prev ? so.start_bound : 0;
		u->cl.nodes = nd;
		so.memo = NULL;
		so.start_bound = 0;
		plan_init(&p0);
		cap_begin();
		r0 =
		    search_run_tp(u->sc, NSHAPE, &u->cl, &u->o, &so, &p0, &st0);
		free(cap_end());
		so.memo = memo;
		so.start_bound = start;
		plan_init(&p);
		cap_begin();
		r = search_run_tp(u->sc, NSHAPE, &u->cl, &u->o, &so, &p, &st);
		free(cap_end());
		so.start_bound = r == 0 && isfinite(st.kth_ms) ? st.kth_ms : 0;
		snprintf(msg, sizeof(msg),
			 "%d nodes of %d, batch %lld, cap %.0f GB, a sweep's "
			 "memo: the plan (%d) as from scratch (%d)",
			 nd, u->cl.gpus_per_node, (long long)so.batch,
			 u->o.cap_bytes / 1e9, r, r0);
		CHECK_MSG(r == r0 && (r0 || same_plan(&p0, &p, 0)), msg);
		/* from its start bound the loop solves fewer than from
		 * scratch, and the same with or without the memo: the same
		 * search once more */
		if (!st.again && start > 0) {
			struct search_stats st1;
			struct plan p1;

			so.memo = NULL;
			so.start_bound = start;
			plan_init(&p1);
			cap_begin();
			search_run_tp(u->sc, NSHAPE, &u->cl, &u->o, &so, &p1,
				      &st1);
			free(cap_end());
			plan_release(&p1);
			snprintf(msg, sizeof(msg),
				 "%d nodes of %d, batch %lld, cap %.0f GB, a "
				 "sweep's memo: solved %ld, cut %ld, bounded "
				 "%ld as without it (%ld, %ld, %ld)",
				 nd, u->cl.gpus_per_node, (long long)so.batch,
				 u->o.cap_bytes / 1e9, st.solved, st.cut,
				 st.bounded, st1.solved, st1.cut, st1.bounded);
			CHECK_MSG(st.solved == st1.solved &&
				      st.cut == st1.cut &&
				      st.bounded == st1.bounded,
				  msg);
			checked++;
		}
		plan_release(&p0);
		plan_release(&p);
	}
	search_memo_free(memo);
	return checked;
}

/*
 * A sweep as capacity runs it (every size from one node up, and out of
 * order, each search brief, keeping one alternative, starting from the
 * bound the last one proved when it was smaller, through a memo listing
 * the candidates of the largest size): each size's plan and the
 * candidates its best-first loop solves and cuts are those of the search
 * from scratch, though most of those a size cuts it turns away by what a
 * smaller size's loop found of them (search_none_known()), counted as
 * solved and cut.  Under memory caps that leave many and few, batches
 * that make widths and microbatches plenty and scarce, with ZeRO and
 * offload; and on GB200 NVL72 domains, where a job's segment (and so its
 * links) changes with the node count (place_segment(): 84 GPUs take
 * one domain on two, three segments of 28 on three or more), what was
 * found under other segments forgotten (these sweeps forget it at every
 * node count, though none of them would come out otherwise without).
 * Fails when a candidate is turned away under a bound it was not proved
 * to have no time under (a proof kept half again too large fails), or
 * counted otherwise than its solve would be.
 */
static void
test_memo_none(struct setup *u)
{
	/* and out of order: a size after a larger one asks under a larger
	 * bound than the larger one's loop proved (no start bound) */
	static const int mixed[] = {1, 2, 4, 3, 8, 16, 6, 12,
				    5, 10, 7, 14, 9, 11, 15, 13};
	static const int up[] = {1, 2, 3, 4, 5, 6, 7, 8,
				 9, 10, 11, 12, 13, 14, 15, 16};
	static const int domains[] = {2, 3, 2, 4, 3, 1, 4, 2};
	struct cluster h100 = u->cl;
	double cap = u->o.cap_bytes;
	int caps, checked = 0;

	for (caps = 0; caps < 6; caps++) {
		u->o.cap_bytes = caps & 1 ? 24e9 : cap;
		checked += none_sweep(u, caps, caps & 1 ? mixed : up, 16, 16);
	}
	CHECK_MSG(checked >= 30, "most sizes start from the last one's bound");
	cluster_init(&u->cl);
	CHECK(cluster_open(&u->cl, "gb200-nvl72:4") == 0);
	for (caps = 0; caps < 2; caps++) {
		u->o.cap_bytes = caps ? 24e9 : cap;
		none_sweep(u, caps * 4, domains, 8, 4);
	}
	cluster_release(&u->cl);
	u->cl = h100;
	u->o.cap_bytes = cap;
}

/*
 * One size of a sweep searched plain and not, each through its own memo
 * (memo[0] the shortcuts', memo[1] the plain one's), from start[q] when
 * start is not NULL (then set to each search's k-th best, as capacity
 * does): the same plan and statistics, or the check named what fails.
 * st[0] gets the first search's statistics.
 */
static void
sweep_pair(struct setup *u, struct search_opts so, struct search_memo **memo,
	   double *start, const char *what, struct search_stats *st)
{
	struct search_stats s2[2];
	struct plan p[2];
	char msg[160];
	int q, r[2];

	for (q = 0; q < 2; q++) {
		so.plain = q;
		so.memo = memo[q];
		if (start)
			so.start_bound = start[q];
		plan_init(&p[q]);
		cap_begin();
		r[q] = search_run_tp(u->sc, NSHAPE, &u->cl, &u->o, &so, &p[q],
				     &s2[q]);
		free(cap_end());
		if (start)
			start[q] = r[q] == 0 && isfinite(s2[q].kth_ms)
					   ? s2[q].kth_ms
					   : 0;
	}
	snprintf(msg, sizeof(msg), "%d nodes, cap %.0f GB, %s: plain and not "
		 "alike", u->cl.nodes, u->o.cap_bytes / 1e9, what);
	CHECK_MSG(r[0] == r[1] && (r[0] || same_plan(&p[0], &p[1], 1)) &&
			  same_stats(&s2[0], &s2[1]),
		  msg);
	*st = s2[0];
	plan_release(&p[0]);
	plan_release(&p[1]);
}

/*
 * A sweep sharing a memo that lists its candidates (search_memo_span()),
 * plain and not, the sizes out of order: the same plans and statistics
 * at every size.  The lists are long enough (more than 4096 candidates)
 * that the search sorts them by their bounds' bits (cand_sort_radix()),
 * the plain one by comparisons.  Fails when the two sorts put two
 * candidates in another order (the best-first order then differs and
 * so do the statistics) or a verdict kept across sizes is wrong.
 */
static void
test_memo_plain(struct setup *u)
{
	static const int nodes[] = {1, 2, 4, 3, 8, 16, 6, 12};
	double cap = u->o.cap_bytes;
	long most = 0;
	int i, k, q, nn = u->cl.nodes;

	for (k = 0; k < 2; k++) {
		struct search_memo *memo[2];
		struct search_opts so = u->so;

		u->o.cap_bytes = k ? 24e9 : cap;
		so.threads = 1;
		so.lp_k = 2;
		so.batch = 1024;
		so.zero_mask = 0xf;
		so.offload_mask = 3;
		so.nv = 3;
		so.v[0] = 1;
		so.v[1] = 2;
		so.v[2] = 4;
		for (q = 0; q < 2; q++) {
			memo[q] = search_memo_new();
			search_memo_span(memo[q], 16 * u->cl.gpus_per_node);
		}
		for (i = 0; i < (int)(sizeof(nodes) / sizeof(nodes[0]));
		     i++) {
			struct search_stats st;

			u->cl.nodes = nodes[i];
			sweep_pair(u, so, memo, NULL,
				   "a sweep's memo with its lists", &st);
			if (st.candidates > most)
				most = st.candidates;
		}
		for (q = 0; q < 2; q++)
			search_memo_free(memo[q]);
	}
	u->cl.nodes = nn;
	u->o.cap_bytes = cap;
	CHECK_MSG(most > 4096, "the lists are long enough to sort by radix");
	printf("# %ld candidates at most\n", most);
}

/*
 * A sweep through a memo, plain and not, with batches so small that a
 * width's microbatches come under its depth (each stage then keeps as
 * many stashes as microbatches, no more) and memory caps that the
 * stashes decide: the same plans and statistics at every size.  What
 * part_fits() said of a candidate answers for every other with the same
 * chain, microbatch, recomputation, depth, memory constants and stashes
 * in flight (struct fit_class), the plain search asks each.  Fails when
 * a class takes candidates whose stages keep other stashes or whose
 * memory reads the width (ZeRO).
 */
static void
test_memo_fit_classes(struct setup *u)
{
	static const int nodes[] = {1, 2, 4, 8, 16};
	static const int batches[] = {16, 64};
	static const double caps[] = {8e9, 16e9, 30e9};
	double cap = u->o.cap_bytes;
	int i, j, k, q, nn = u->cl.nodes;

	for (k = 0; k < 3; k++)
		for (j = 0; j < 2; j++) {
			struct search_memo *memo[2];
			struct search_opts so = u->so;

			u->o.cap_bytes = caps[k];
			so.threads = 1;
			so.lp_k = 1;
			so.batch = batches[j];
			so.zero_mask = 3;
			for (q = 0; q < 2; q++) {
				memo[q] = search_memo_new();
				search_memo_span(memo[q],
						 16 * u->cl.gpus_per_node);
			}
			for (i = 0; i < (int)(sizeof(nodes) / sizeof(nodes[0]));
			     i++) {
				struct search_stats st;

				u->cl.nodes = nodes[i];
				sweep_pair(u, so, memo, NULL,
					   "part_fits()'s classes", &st);
			}
			for (q = 0; q < 2; q++)
				search_memo_free(memo[q]);
		}
	u->cl.nodes = nn;
	u->o.cap_bytes = cap;
}

/*
 * Bounds a few parts in a billion apart: a sweep's lists sorted by radix
 * (cand_sort_radix(), which sorts by the bounds' top bits and leaves
 * each run alike in those to comparisons) put the candidates in the
 * order the plain search's comparisons do, and every size finds the
 * same plan and statistics.  The shapes of 1, 2 and 4 and a second of
 * 2 with sequence parallelism, on a GPU a hair faster (its bounds a hair
 * lower than the first's).  Fails when a run of bounds alike in their
 * top bits is taken for one of equal bounds.
 */
static void
test_memo_near_ties(struct setup *u)
{
	static const int nodes[] = {1, 2, 4, 8, 16};
	struct search_chain keep = u->sc[3];
	struct gpu_spec gpu = *catalog_find(&cat, "H100-SXM");
	struct search_memo *memo[2];
	struct search_opts so = u->so;
	struct analytic_par par;
	struct profile prof;
	struct model m;
	struct chain ch;
	int i, q, nn = u->cl.nodes;

	setup_model(&m);
	memset(&par, 0, sizeof(par));
	par.tp = 2;
	par.cp = 1;
	par.ep = 1;
	par.imbalance = 1;
	gpu.tflops16 *= 1 + 4e-9;
	gpu.mem_gb_s *= 1 + 4e-9;
	profile_init(&prof);
	memset(&ch, 0, sizeof(ch));
	if (analytic_profile_par(&prof, &m, &gpu, setup_mb, 4, &par, NULL) ||
	    chain_build(&ch, &prof)) {
		CHECK_MSG(0, "the near twin's chain");
		goto out;
	}
	u->sc[3].c = &ch;
	u->sc[3].t = 2;
	u->sc[3].sp = 1;
	so.threads = 1;
	so.lp_k = 1;
	so.batch = 1024;
	for (q = 0; q < 2; q++) {
		memo[q] = search_memo_new();
		search_memo_span(memo[q], 16 * u->cl.gpus_per_node);
	}
	for (i = 0; i < (int)(sizeof(nodes) / sizeof(nodes[0])); i++) {
		struct search_stats st;

		u->cl.nodes = nodes[i];
		sweep_pair(u, so, memo, NULL, "bounds a hair apart", &st);
	}
	for (q = 0; q < 2; q++)
		search_memo_free(memo[q]);
out:
	u->sc[3] = keep;
	u->cl.nodes = nn;
	chain_release(&ch);
	profile_release(&prof);
}

/*
 * A memo renewed from one a sweep filled (search_memo_renew(), its
 * tables as large) knows nothing of that sweep: a sweep under another
 * memory cap and batch through it gives the plans and statistics a new
 * memo gives.  Fails when the renewed memo keeps an entry or a verdict
 * of the last sweep, or loses the room a table needs.
 */
static void
test_memo_renew(struct setup *u)
{
	static const int nodes[] = {1, 2, 4, 3, 8, 16};
	double cap = u->o.cap_bytes;
	struct search_memo *memo = NULL;
	int i, k, q, nn = u->cl.nodes;

	for (k = 0; k < 3; k++) {
		struct search_memo *fresh = search_memo_new();
		struct search_opts so = u->so;

		memo = search_memo_renew(memo);
		/* a smaller cap first: what it turned away fits under
		 * the next */
		u->o.cap_bytes = k == 0 ? 24e9 : k == 2 ? 1e9 : cap;
		so.threads = 1;
		so.lp_k = 2;
		so.batch = k == 2 ? 1000 : 512;
		so.zero_mask = 0xf;
		so.offload_mask = 3;
		search_memo_span(memo, 16 * u->cl.gpus_per_node);
		search_memo_span(fresh, 16 * u->cl.gpus_per_node);
		for (i = 0; i < (int)(sizeof(nodes) / sizeof(nodes[0]));
		     i++) {
			struct search_stats st[2];
			struct plan p[2];
			char msg[160], *e[2];
			int r[2];

			u->cl.nodes = nodes[i];
			for (q = 0; q < 2; q++) {
				so.memo = q ? fresh : memo;
				plan_init(&p[q]);
				cap_begin();
				r[q] = search_run_tp(u->sc, NSHAPE, &u->cl,
						     &u->o, &so, &p[q], &st[q]);
				e[q] = cap_end();
			}
			snprintf(msg, sizeof(msg),
				 "%d nodes, cap %.0f GB, sweep %d: a renewed "
				 "memo as a new one",
				 nodes[i], u->o.cap_bytes / 1e9, k);
			CHECK_MSG(r[0] == r[1] &&
					  (r[0] || same_plan(&p[0], &p[1], 1)) &&
					  same_stats(&st[0], &st[1]) &&
					  !strcmp(e[0], e[1]),
				  msg);
			for (q = 0; q < 2; q++) {
				free(e[q]);
				plan_release(&p[q]);
			}
		}
		search_memo_free(fresh);
	}
	search_memo_free(memo);
	u->cl.nodes = nn;
	u->o.cap_bytes = cap;
}

/*
 * Capacity's sweep (brief, one alternative, GLPK's refinement of the
 * best, each size from the bound the last proved) through a memo, plain
 * and not, under memory caps that make recomputation pay: the same
 * plans and statistics at every size.  The exact search's refinement
 * takes the stages without recomputation an earlier size made of a
 * partition on the same links (floor_stages()) instead of making them
 * again.  Fails when those stages are another partition's or links'.
 */
static void
test_memo_floors(struct setup *u)
{
	static const int nodes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
	static const double caps[] = {10e9, 14e9, 18e9};
	double cap = u->o.cap_bytes;
	int i, k, q, nn = u->cl.nodes, exact = 0, rt = u->o.runtime;

	/* each schedule's own runtime, as capacity's: PipeDream's
	 * recomputes per layer */
	u->o.runtime = -1;
	for (k = 0; k < 3; k++) {
		struct search_memo *memo[2];
		struct search_opts so = u->so;
		double start[2] = {0, 0};

		u->o.cap_bytes = caps[k];
		so.threads = 1;
		so.topk = 1;
		so.lp_k = 1;
		so.brief = 1;
		so.pick_first = 2048;
		so.batch = k == 1 ? 1024 : 512;
		so.zero_mask = 3;
		so.nv = 2;
		so.v[0] = 1;
		so.v[1] = 2;
		for (q = 0; q < 2; q++) {
			memo[q] = search_memo_new();
			search_memo_span(memo[q], 16 * u->cl.gpus_per_node);
		}
		for (i = 0; i < (int)(sizeof(nodes) / sizeof(nodes[0]));
		     i++) {
			struct search_stats st;

			u->cl.nodes = nodes[i];
			sweep_pair(u, so, memo, start, "capacity's sweep",
				   &st);
			exact += st.exact_sims > 0;
		}
		for (q = 0; q < 2; q++)
			search_memo_free(memo[q]);
	}
	u->cl.nodes = nn;
	u->o.cap_bytes = cap;
	u->o.runtime = rt;
	printf("# %d sizes simulated candidates after the re-scoring\n",
	       exact);
}

/*
 * The same size searched three times through one memo: the second takes
 * the partitions the first solved and keeps the stages it makes of them,
 * the third takes those stages (solve_checked()).  Each gives the plan,
 * its alternatives' times and the statistics of a search with no memo.
 * Fails when stages kept are another partition's or links'.
 */
static void
test_memo_thrice(struct setup *u)
{
	static const int nodes[] = {2, 5, 16};
	double cap = u->o.cap_bytes;
	int i, j, q, nn = u->cl.nodes;

	for (i = 0; i < 3; i++) {
		struct search_memo *memo = search_memo_new();
		struct search_opts so = u->so;
		struct search_stats st0;
		struct plan p0;
		int r0;

		u->cl.nodes = nodes[i];
		u->o.cap_bytes = i == 1 ? 24e9 : cap;
		so.threads = 1;
		so.lp_k = 2;
		so.topk = 4;
		plan_init(&p0);
		cap_begin();
		r0 = search_run_tp(u->sc, NSHAPE, &u->cl, &u->o, &so, &p0,
				   &st0);
		free(cap_end());
		so.memo = memo;
		for (q = 0; q < 3; q++) {
			struct search_stats st;
			struct plan p;
			char msg[160];
			int r, same;

			plan_init(&p);
			cap_begin();
			r = search_run_tp(u->sc, NSHAPE, &u->cl, &u->o, &so,
					  &p, &st);
			free(cap_end());
			same = r == r0 && (r0 || same_plan(&p0, &p, 1)) &&
			       same_stats(&st0, &st);
			for (j = 0; same && !r0 && j < p.nalts; j++)
				same = p.alts[j].iter_ms == p0.alts[j].iter_ms;
			snprintf(msg, sizeof(msg),
				 "%d nodes, search %d through one memo: as "
				 "without it",
				 nodes[i], q + 1);
			CHECK_MSG(same, msg);
			plan_release(&p);
		}
		plan_release(&p0);
		search_memo_free(memo);
	}
	u->cl.nodes = nn;
	u->o.cap_bytes = cap;
}

/*
 * One search after another through one memo, on nodes alike (the node's
 * links the same) whose network alternates between fast and a quarter
 * as fast: each gives the plan and messages of a search from scratch.
 * The memo's solves are kept with the links they were solved on (a
 * table's link_pool), and a candidate's are the node's alike on either
 * network: fails when search_time_links() does not compare the stages' links.
 */
static void
test_memo_network(struct setup *u)
{
	static const int nodes[] = {2, 4, 8, 16, 8, 4, 2};
	struct search_memo *memo = search_memo_new();
	struct search_opts so = u->so;
	struct cluster cl[2];
	int i, j, k;

	for (k = 0; k < 2; k++) {
		cluster_init(&cl[k]);
		CHECK(cluster_open(&cl[k], "dgx-h100") == 0);
	}
	cl[1].net_gb_s /= 4;
	for (j = 0; j < cl[1].nnics; j++)
		cl[1].nics[j].rate_gbit_s /= 4;
	so.threads = 1;
	for (i = 0; i < 2 * (int)(sizeof(nodes) / sizeof(nodes[0])); i++) {
		struct cluster *c = &cl[i % 2];
		struct search_stats st;
		struct plan p[2];
		char msg[160], *e[2];
		int r[2];

		c->nodes = nodes[i / 2];
		for (k = 0; k < 2; k++) {
			so.memo = k ? memo : NULL;
			plan_init(&p[k]);
			cap_begin();
			r[k] = search_run_tp(u->sc, NSHAPE, c, &u->o, &so,
					     &p[k], &st);
			e[k] = cap_end();
		}
		snprintf(msg, sizeof(msg),
			 "%d nodes, %s network, a shared memo: the plan "
			 "from scratch",
			 c->nodes, i % 2 ? "slow" : "fast");
		CHECK_MSG(r[0] == r[1] &&
				  (r[0] || same_plan(&p[0], &p[1], 1)) &&
				  !strcmp(e[0], e[1]),
			  msg);
		for (k = 0; k < 2; k++) {
			free(e[k]);
			plan_release(&p[k]);
		}
	}
	search_memo_free(memo);
	for (k = 0; k < 2; k++)
		cluster_release(&cl[k]);
}

int
main(void)
{
	struct setup u;

	(void)h_skip;
	(void)h_skip_all;
	catalog_init(&cat);
	if (setup_init(&u))
		pd2bw_die("cannot set the search up");
	test_batches(&u);
	test_groups(&u);
	test_brief(&u);
	test_memo(&u);
	test_memo_span(&u);
	test_start_bound(&u);
	test_rescore(&u);
	test_twin_links(&u);
	test_floor_twins(&u);
	test_plain(&u);
	test_plain_groups(&u);
	test_plain_binding(&u);
	test_minmem(&u);
	test_memo_gates(&u);
	test_memo_none(&u);
	test_memo_plain(&u);
	test_memo_fit_classes(&u);
	test_memo_near_ties(&u);
	test_memo_renew(&u);
	test_memo_floors(&u);
	test_memo_thrice(&u);
	test_memo_network(&u);
	setup_release(&u);
	catalog_release(&cat);
	return h_done();
}
