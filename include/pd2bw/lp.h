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

struct lp_memo;

struct lp_opts {
	unsigned rc_mask;  /* options allowed per layer, bits 1 << PROF_RC_* */
	double mip_gap;    /* relative gap at which GLPK may stop */
	int time_limit_ms; /* per solve */
	struct lp_memo *memo; /* NULL, or GLPK's answers to earlier stages'
				 problems (lp_memo_new()) */
	int plain; /* every stage to GLPK, even one whose optimum needs no
		      solver (search_opts.plain: the same answers) */
};

enum lp_status { LP_OPTIMAL, LP_FEASIBLE, LP_INFEASIBLE, LP_ERROR };
extern const char *const lp_status_names[];

/*
 * GLPK's answers, each kept with its problem as GLPK got it (every
 * coefficient, bound and option, to the bit): a stage whose problem is
 * the same (another width, or the same configuration at another cluster
 * size, often sets the same one up) takes the answer without solving,
 * the same choice and time GLPK gives it.  Not for more than one thread
 * at a time.  lp_memo_new() returns one (caller frees with
 * lp_memo_free(); NULL is fine there).
 */
struct lp_memo *lp_memo_new(void);
void lp_memo_free(struct lp_memo *m);

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

/*
 * A lower bound on what lp_stage() adds to a stage by recomputing (its
 * layers' rc[r] - rc[none], summed), in struct cost_rc_lb's terms, by
 * the Lagrangian relaxation of its memory row at multiplier mu >= 0 (ms
 * per byte of stash): the row keeps in_flight x margin x sum_j stash_j
 * (plus a full recomputation's peak) within the cap less the stage's
 * weights, state and context (and workspace), so for every choice
 * within it sum_j cost_j >= sum_j min_r (cost_jr + mu stash_jr) - mu
 * (cap - context - weights) / (in_flight x margin).
 *
 * lp_rc_phi(): phi (L + 1), the prefix sums of each layer's min_r of
 * c's microbatch k over the options in rc_mask (a hair under: the sums'
 * rounding, GLPK's tolerances); -1 when an option costs less than none.
 */
int lp_rc_phi(const struct chain *c, int k, unsigned rc_mask, double mu,
	      double *phi);

/*
 * lp_rc_row(): the rest of rl (pb, room and per, room for g->d) for the
 * stages of g under o at multiplier mu; -1 when the row has terms the
 * bound leaves out (Muon's smaller state).
 */
int lp_rc_row(const struct chain *c, const struct cost_opts *o,
	      const struct cost_cfg *g, double mu, struct cost_rc_lb *rl,
	      double *per);

/*
 * The multipliers at which some layer's cheapest option under
 * lp_rc_phi() changes (where the Lagrangian's best lies), the first n
 * of them at most, distinct, in mu; returns how many.
 */
int lp_rc_multipliers(const struct chain *c, int k, unsigned rc_mask,
		      double *mu, int n);

#endif
