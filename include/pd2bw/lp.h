/*
 * lp.h - exact per-layer recomputation choice for one stage with GLPK: a
 * multiple-choice knapsack that picks, for every layer, none, selective or
 * full recomputation, minimising the stage's recomputation time (and the
 * tensor-parallel all-reduces full recomputation repeats) under its memory
 * budget.
 */
#ifndef PD2BW_LP_H
#define PD2BW_LP_H

#include "pd2bw/chain.h"
#include "pd2bw/cost.h"
#include "pd2bw/place.h"

struct lp_opts {
	unsigned rc_mask;  /* options allowed per layer, bits 1 << PROF_RC_* */
	double mip_gap;    /* relative gap at which GLPK may stop */
	int time_limit_ms; /* per solve */
};

enum lp_status { LP_OPTIMAL, LP_FEASIBLE, LP_INFEASIBLE, LP_ERROR };
extern const char *const lp_status_names[];

/*
 * Choose rc[j - a] for layers j in [a, e] of stage s under g (g->r is
 * ignored) so that the stage fits in o->cap_bytes with the least extra
 * time; *extra_ms gets that time (recomputation plus the extra
 * tensor-parallel all-reduces).  Returns an enum lp_status; rc is filled
 * for LP_OPTIMAL and LP_FEASIBLE.
 */
int lp_stage(const struct chain *c, const struct cost_opts *o,
	     const struct cost_cfg *g, const struct place_links *l, int s,
	     int a, int e, const struct lp_opts *lo, int *rc, double *extra_ms);

/*
 * Memory of stage s = [a, e] with per-layer choices rc, by the same rule
 * as cost_stage() (which the uniform case reduces to).
 */
double lp_stage_mem(const struct chain *c, const struct cost_opts *o,
		    const struct cost_cfg *g, int s, int a, int e,
		    const int *rc);

#endif
