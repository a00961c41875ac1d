/*
 * search.h - the planner's search over (schedule, width w, depth d,
 * tensor-parallel degree t, microbatch b, recomputation, interleaving,
 * optimizer sharding) with w*d*t <= N, w*b*m = global batch, and the best
 * placement of each; exact partition of every promising candidate.
 */
#ifndef PD2BW_SEARCH_H
#define PD2BW_SEARCH_H

#include <stdint.h>

#include "pd2bw/chain.h"
#include "pd2bw/cost.h"
#include "pd2bw/cluster.h"
#include "pd2bw/plan.h"

#define SEARCH_MAX_V 8
#define SEARCH_MAX_THREADS 256

struct search_memo;

struct search_opts {
	int64_t batch;        /* global batch B */
	unsigned sched_mask;  /* bits 1 << PLAN_* */
	unsigned rc_mask;     /* bits 1 << PROF_RC_* */
	unsigned zero_mask;   /* bit z: ZeRO stage z (0: unsharded, 1:
				 optimizer state, 2: + gradients, 3: +
				 parameters, FSDP) */
	int shard;            /* HSDP shard group for stages 2 and 3 (0:
				 all data-parallel ranks) */
	unsigned offload_mask; /* bit 0: activations kept, bit 1: offloaded */
	int nv;               /* interleaving degrees tried for flush */
	int v[SEARCH_MAX_V];  /* (1 = none) */
	int topk;             /* alternatives kept (>= 1) */
	int lp_k;             /* best candidates refined per layer by GLPK */
	double lp_gap;        /* GLPK's relative MIP gap */
	int lp_ms;            /* GLPK's time limit per stage, ms */
	int max_gpus;         /* 0: all GPUs of the cluster */
	int threads;          /* solving threads (<= 1: the caller's
				 alone); the result does not depend on it */
	int threads_eager;    /* start them at once and give them every
				 round, however quick its solves (tests);
				 0: only once a candidate's solve averages
				 100 us */
	int uniform;          /* split blocks evenly (Megatron) instead of
				 the exact min-max partition */
	const int *layout;    /* with uniform: the chain entries each of
				 the fix_d stages holds (search_layout()),
				 or NULL for Megatron's even split */
	long pick_first;      /* candidates taken in the first batch of the
				 best-first order (0: 8192); the plan and
				 its alternatives do not depend on it
				 (the binding reason looks at up to 256
				 of the first batch) */
	struct search_memo *memo; /* what searches over the same chains,
				 cost options and batch learn for one
				 another (capacity's sizes), or NULL; the
				 result does not depend on it */
	int no_group;         /* offer every candidate on its own, never
				 a group at a time by the group's least
				 lower bound (tests: the result and the
				 statistics but grouped do not depend on
				 it) */
	double start_bound;   /* > 0: a time the k-th best configuration's
				 (closed-form) time is expected to be at or
				 below, as a neighbouring smaller cluster's
				 search found it (capacity): the search only
				 solves what may beat it from the start, and
				 searches again without it when fewer than k
				 come under it; the result does not depend
				 on it (0: none) */
	int gate_all;         /* GLPK's refinement of the rest builds
				 every group's template, never turning a
				 group away by its least bound first, and
				 the uncapped solves that gate it solve
				 every placement, never stopping at the
				 first under the bound (tests: the result
				 and stats->gated do not depend on it) */
	int plain;            /* none of the shortcuts that only save
				 arithmetic: every group's template
				 checked anew, every cost_simulate_lb()
				 worked out whole, no verdict shared
				 between twin chains or between candidates
				 part_fits() reads alike, no galloping (tests:
				 the result and the statistics do not
				 depend on it) */
	int rescore_all;      /* simulate every alternative, even those
				 topk others outrun (tests: the result does
				 not depend on it) */
	int brief;            /* the configuration and its prediction
				 alone: no binding or placement reason
				 (p->bind_reason, p->place_reason NULL),
				 which take more solves than the search
				 (capacity); no time spent in GLPK kept
				 (stats->lp_ms 0) */
	/* Evaluate mode: a value > 0 (>= 0 for enums) fixes that choice. */
	int fix_w, fix_d, fix_b, fix_sched, fix_rc, fix_place;
};

/* A chain at one tensor-parallel shape: t-way shards, with or without
 * sequence parallelism. */
struct search_chain {
	const struct chain *c;
	int t;
	int sp;
	int cp;     /* context-parallel degree (0 or 1: none) */
	int ep;     /* expert-parallel degree (0 or 1: none) */
	int etp;    /* expert tensor parallelism, 1 or t (0: t) */
	int runtime; /* 1 + the runtime (enum runtime_id) whose kernels
			priced c: it serves only the candidates that runtime
			runs, by their schedule and depth (cost_runtime());
			0: every candidate */
};

struct search_stats {
	long candidates;   /* configurations enumerated */
	long screened;     /* dropped by the memory lower bound */
	long solved;       /* exact partitions run */
	long bounded;      /* never solved: their lower bound was no
			      better than the k-th best time found */
	long grouped;      /* of those, how many were turned away a group
			      (chain, schedule, d, w, microbatch) at a
			      time, by the least bound of the group, before
			      any work per candidate */
	long cut;          /* solved, but over the memory cap or no better
			      than the k-th best once partitioned */
	long passes;       /* enumerations after the first, each taking
			      the next batch of candidates in order */
	long lp_solves;    /* GLPK stage problems */
	double lp_ms;      /* time spent in them (0 when brief) */
	double ms;         /* CPU time of the search */
	double kth_ms;     /* the k-th best closed-form time (k = 2 topk,
			      before GLPK and the simulation re-score
			      them), INFINITY when fewer were found: a
			      start_bound for a larger cluster */
	int again;         /* searched again without start_bound */
	long rescore_skipped; /* alternatives not simulated: topk others
			      were faster than they could be */
	long rescore_cut;  /* of those, long runs left after the first of
			      the two shorter runs they are extrapolated
			      from (cost_simulate_time_cut()) */
	long taken;        /* candidates GLPK's refinement of the rest
			      (past the lp_k best) took by their lower
			      bound (the best alternative's time) */
	long gated;        /* candidates GLPK's refinement of the rest
			      (past the lp_k best) took, whose uncapped
			      solve let them through */
	long exact;        /* candidates partitioned after the re-scoring
			      because their simulated time could beat the
			      best (search_exact_rest() in exact.c) */
	long exact_sims;   /* of those, how many were simulated: their
			      floor (cost_simulate_floor()) was below it */
	long exact_taken;  /* candidates the exact search took by their
			      lower bound of the simulation (the best
			      alternative's simulated time), before its
			      gates */
	long skipped_rt;   /* configurations the runtime cannot run for a
			      dimension it lacks (context or expert
			      parallelism) */
	char skip_why[256]; /* the first such reason */
};

/*
 * Whether a candidate has a partition left under a bound
 * (part_fits()) reads neither the cluster nor the placement, and comes
 * out the same for every bound in a range its steps give
 * (part_fits_span()): searches over the same chains, cost options and
 * batch (one GPU type's sizes) keep these answers for one another in a
 * memo, each thread its own table.  The memo also keeps what solving a
 * candidate under a placement gave, with the links it was solved on: its
 * time, or that it has none under some bound (below its bound a solve's
 * result does not depend on the bound); a later search on the very same
 * links takes it, and the simulated time of an alternative re-scored
 * on them.  The least memory of a candidate's partitions (what a search
 * that nothing fits in reports) reads no links: kept as well.  So are
 * the links of every grid, for the searches on one cluster (struct
 * cluster) whose node count alone changes between them (a grid's links
 * are the same at every size it fits; another cluster empties them).
 * The per-layer refinement's verdicts as well (GLPK's refined time of a
 * candidate under a placement, or none under some bound, and the
 * uncapped solves that gate it), keyed like those links: the searches
 * sharing a memo also share GLPK's options (lp_gap, lp_ms, rc_mask).
 * And, for the searches on one cluster: the partition each solve found
 * on its links, what every partition of a configuration adds to its
 * compute (exact_lb()) and the bounds under which exact_gate() proved a
 * configuration cannot simulate faster (a proof under a bound holds
 * under every smaller one); GLPK's answer to every stage problem, by the
 * problem's numbers (lp.h's struct lp_memo).
 * search_memo_new() returns one (caller frees with search_memo_free();
 * NULL is fine there).
 */
struct search_memo *search_memo_new(void);
void search_memo_free(struct search_memo *m);

/*
 * A new memo (as search_memo_new()'s, knowing nothing) for searches like
 * m's on other chains (capacity's next GPU type), its tables made as
 * large at once as m's grew one doubling at a time; frees m (NULL: a
 * memo with no room made).  The result does not depend on it.
 */
struct search_memo *search_memo_renew(struct search_memo *m);

/*
 * The searches sharing m take at most max_gpus GPUs (capacity's largest
 * size; 0: no span) and the same search options: m then lists once, in
 * order, every candidate of up to max_gpus GPUs as each kind of visit of
 * a search sees it (its lower bounds read no cluster), and a search on N
 * GPUs takes those of N or fewer from the lists instead of enumerating
 * them, again for every kind of visit (the same candidates in the same
 * order: the result does not depend on it).  A search on more than
 * max_gpus GPUs enumerates; a cluster of other nodes (GPUs per node)
 * lists again.
 */
void search_memo_span(struct search_memo *m, int max_gpus);

/* Defaults: all schedules, none + full recomputation, no optimizer
 * sharding (zero_mask 1), no interleaving, no activation offload, top 10,
 * GLPK on the 10 best, all free, one thread.  pd2bw-plan's defaults are
 * wider (selective recomputation, ZeRO-1 and interleaving 1, 2, 4 where
 * the runtime has them, planner/par_opts.c); set these fields for its
 * space. */
void search_opts_init(struct search_opts *so);

/* Online CPUs, 1 to SEARCH_MAX_THREADS (1 when unknown). */
int search_threads_online(void);

/*
 * Search and fill plan p (plan_init'ed) with the best configuration, its
 * stages, placement, prediction and alternatives.  Inputs' names are left
 * to the caller.  Returns 0 when a plan was found, 3 when nothing fits
 * (after printing why on stderr), -1 on error.  In evaluate mode (every
 * choice fixed) a configuration over the memory cap is still predicted:
 * 3 is returned with p filled and the overflow reported.
 */
int search_run(const struct chain *c, const struct cluster *cl,
	       const struct cost_opts *o, const struct search_opts *so,
	       struct plan *p, struct search_stats *st);

/*
 * The same over several tensor-parallel shapes sc[0..n) (all chains of
 * equal length): the search covers (w, d, t) with w*d*t <= N, t dividing
 * the GPUs per node.
 */
int search_run_tp(const struct search_chain *sc, int n,
		  const struct cluster *cl, const struct cost_opts *o,
		  const struct search_opts *so, struct plan *p,
		  struct search_stats *st);

/*
 * Megatron-Core's pipeline layout spec (--pipeline-model-parallel-layout,
 * e.g. "Et*4|(t*4|)*14tmL") for chain c on d ranks: counts[0..d) the
 * chain entries each rank holds (its virtual stages together; the
 * embedding's entries with E, the output layer's, MTP included, with L),
 * *v the virtual stages per rank.  mtp: the model's MTP layers (-1:
 * unknown).  0, or -1 with why (n bytes; n = 0 asks for the verdict).
 */
int search_layout(const char *spec, const struct chain *c, int d, int mtp,
		  int *v, int *counts, char *why, size_t n);
/* The blocks (t) of each of the nchunks virtual stages of a layout that
 * search_layout() accepted; 0, or -1 when it has another number. */
int search_layout_chunks(const char *spec, int nchunks, int *blocks);

/*
 * The order of alternatives (negative: a first), the tie-breaking rule
 * of pd2bw-plan(1): the faster iteration; at the same time (within a
 * relative 1e-9) the less peak memory; then fewer GPUs (w x d x t); then
 * the simpler configuration: not interleaved, optimizer not sharded, the
 * simpler schedule (none, gpipe, flush, 2bw), fewer stages, less tensor
 * parallelism, no sequence parallelism, less recomputation.  0 when all
 * of that is equal.
 */
int search_alt_cmp(const struct plan_alt *a, const struct plan_alt *b);

#endif
