/*
 * partition.h - exact contiguous partition of the layer chain into d
 * stages, minimising the slowest stage (or the largest stage memory) by
 * dynamic programming over (stage, last layer), in PART_TIME only over
 * the states a greedy partition's cost leaves (the same answer).
 */
#ifndef PD2BW_PARTITION_H
#define PD2BW_PARTITION_H

#include <stddef.h>

#include "pd2bw/chain.h"
#include "pd2bw/cost.h"
#include "pd2bw/place.h"

enum part_mode {
	PART_TIME, /* min over partitions of max stage time, memory capped */
	PART_MEM   /* min over partitions of max stage memory, no cap */
};

struct part_mix;
struct part_tabs;

/* Reusable scratch space; zero-initialise, free with part_ws_release. */
struct part_ws {
	double *dp;
	int *arg;
	size_t alloc;
	double *cpre;     /* [L + 1] prefix sums of cost_cp() per layer */
	size_t cpre_alloc;
	int pruned;       /* the last PART_TIME solve left out a partition
			     for its bound alone (0: it is the unbounded
			     solve's, to the bit) */
	int no_greedy;    /* set: solve without the greedy upper bound
			     (the same answers, slower; tests compare) */
	int no_fast_mem;  /* set: a stage's memory added up layer by layer,
			     never from prefix sums and range maxima (the
			     same answers, slower; tests compare) */
	double cut_ms;    /* > 0: the next PART_TIME solve's caller wants
			     no partition whose slowest stage costs more:
			     with three stages or more it may say INFINITY
			     (pruned 1) when the optimum costs more, and
			     answers as without it otherwise */
	int no_sync;      /* set: a stage's cost leaves out its gradients'
			     synchronisation and what its runtime hides
			     (sequence parallelism's share of the
			     tensor-parallel traffic, the interleaved
			     schedule's transfers): at most its
			     cost_stage_busy(), to rounding, but for the
			     expert-parallel overlap; memory capped as ever */
	int no_lb;        /* set: never turn a solve away under cut_ms by
			     the stages' average cost (the same answers,
			     slower; tests compare) */
	int fits_known;   /* set: part_fits() holds for the next
			     PART_TIME solve's bound, the caller asked it
			     (the solve does not ask again) */
	struct part_stage *stg; /* [d] per-stage constants */
	int *iscr;        /* [3 d] the greedy partition, its band */
	size_t stg_alloc;
	/* the chains' indexes for a stage's memory at once (mix_get()),
	 * by chain, microbatch size and recomputation */
	struct part_mix *mix;
	struct part_tabs *tabs; /* their tables shared by recomputations */
	unsigned long mix_tick; /* their last use's clock */
};

void part_ws_release(struct part_ws *ws);

/*
 * Split layers 0..L-1 into g->d non-empty contiguous stages.  In PART_TIME
 * a stage's cost is cost_stage_ms() of cost_stage() (steady time per
 * microbatch), and stages whose cost_stage_mem() exceeds o->cap_bytes
 * are forbidden (the same sum, so the same verdict).  In PART_MEM the
 * cost is cost_stage_mem()'s total.  Pass INFINITY as bound for an exact
 * answer.  In PART_MEM a finite bound treats costs at or above it as
 * infeasible: the result is the unbounded one when that is below bound,
 * INFINITY otherwise.  In PART_TIME it forbids stages whose compute
 * (forward, backward, recomputation: a lower bound of the cost) is at or
 * above it: the result is the unbounded one when that is below bound,
 * else INFINITY when no partition is left (part_fits()), else one at or
 * above bound and no better than the unbounded one: the best of those
 * left, or (ws->pruned 0) the unbounded one.  On success fills first[0..d)
 * with each stage's first layer and returns the optimum; returns INFINITY
 * when no partition qualifies.  Ties go to the partition whose later
 * stages start later (deterministic).
 */
double part_solve(struct part_ws *ws, const struct chain *c,
		  const struct cost_opts *o, const struct cost_cfg *g,
		  const struct place_links *l, enum part_mode mode,
		  double bound, int *first);

/*
 * A lower bound of part_solve(PART_MEM)'s optimum, memory cap or not:
 * every partition has a stage that needs this many bytes or more (0:
 * none known).  Cheap: one pass over the layers' parameters.
 */
double part_mem_lb(const struct chain *c, const struct cost_opts *o,
		   const struct cost_cfg *g);

/*
 * Whether part_solve(PART_TIME, bound) finds a partition at all (INFINITY
 * otherwise): some partition has every stage computing less than bound
 * (INFINITY: any) within o->cap_bytes.  Needs no links: the search asks
 * it before working them out.  Reads g through its d, k and r and
 * cost_mem_init() and cost_mem_stage() alone (the search shares an
 * answer between configurations alike in those).  Returns 1 or 0.
 */
int part_fits(const struct chain *c, const struct cost_opts *o,
	      const struct cost_cfg *g, double bound);

/*
 * part_fits() that also says for which bounds its answer is the same:
 * every bound in (*lo, *hi] takes the very steps this one took (each
 * comparison of a stage's compute with the bound comes out alike), so
 * part_fits() gives the same answer there.  A memo of answers by
 * candidate can serve them without assuming anything of the cost.
 * With lo and hi NULL it is part_fits(), which for a deep pipeline
 * (4 d >= L) counts the fewest stages under the bound first; with
 * either asked, the greedy alone (the same answer).
 */
int part_fits_span(const struct chain *c, const struct cost_opts *o,
		   const struct cost_cfg *g, double bound, double *lo,
		   double *hi);

#endif
