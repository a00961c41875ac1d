/*
 * cost.c - stage memory and time, and iteration time per schedule.
 */
#include <string.h>

#include "pd2bw/cost.h"

double
cost_param_bytes(const struct cost_opts *o, const struct cost_cfg *g)
{
	return o->weight_bytes + o->grad_bytes +
	       (g->zero ? o->opt_bytes / g->w : o->opt_bytes) +
	       (g->sched == PLAN_2BW ? o->version_bytes : 0);
}

void
cost_stage(const struct chain *c, const struct cost_opts *o,
	   const struct cost_cfg *g, const struct place_links *l, int s,
	   int a, int e, struct plan_stage *st)
{
	double per_mb = 0, peak_layer = 0, work = 0;
	int j, r = g->r;

	memset(st, 0, sizeof(*st));
	st->first = a;
	st->last = e;
	st->recompute = r;
	st->in_flight = cost_in_flight(g, s);
	st->params = chain_params(c, a, e);
	st->compute_ms = chain_time(c, g->k, PROF_RC_NONE, a, e);
	st->recompute_ms = chain_time(c, g->k, r, a, e) - st->compute_ms;
	st->tp_ms = cost_tp(c, g, l, s, a, e);
	st->p2p_ms = cost_p2p(c, g, l, s, a, e);
	st->allreduce_ms = cost_allreduce(g, o, l, s, st->params);
	st->in_gb_s = s > 0 ? l->in_gb_s[s] : 0;
	st->ring_gb_s = g->w > 1 ? l->ring_gb_s[s] : 0;
	for (j = a; j <= e; j++) {
		double full = CHAIN_AT(c, c->stash[PROF_RC_NONE], g->k, j);
		double wk = CHAIN_AT(c, c->work, g->k, j);

		per_mb += CHAIN_AT(c, c->stash[r], g->k, j);
		if (full > peak_layer)
			peak_layer = full;
		if (wk > work)
			work = wk;
	}
	st->weight_bytes =
		(int64_t)((double)st->params *
			  (o->weight_bytes +
			   (g->sched == PLAN_2BW ? o->version_bytes : 0)));
	st->state_bytes = (int64_t)((double)st->params *
				    (o->grad_bytes +
				     (g->zero ? o->opt_bytes / g->w : o->opt_bytes)));
	/* Under full recomputation one layer's activations are rebuilt at a
	 * time during backward: add the largest once. */
	st->stash_bytes = (int64_t)(st->in_flight * cost_interleave_factor(g) *
					    per_mb +
				    (r == PROF_RC_FULL ? peak_layer : 0));
	st->work_bytes = (int64_t)work;
	st->mem_bytes = st->weight_bytes + st->state_bytes + st->stash_bytes +
			st->work_bytes;
}

double
cost_stage_ms(const struct plan_stage *st, const struct cost_cfg *g)
{
	double busy = st->compute_ms + st->recompute_ms + st->tp_ms +
		      st->p2p_ms;
	double ar = st->allreduce_ms / cost_ar_div(g);

	if (g->sched == PLAN_FLUSH || g->sched == PLAN_GPIPE)
		return busy + ar;
	return busy > ar ? busy : ar;
}

double
cost_iteration(const struct plan_stage *st, const struct cost_cfg *g,
	       struct plan_terms *t)
{
	double tmb = -1, iter, busy;
	int s, slow = 0;

	memset(t, 0, sizeof(*t));
	if (g->sched == PLAN_NONE) {
		double ar = 0;

		for (s = 0; s < g->d; s++) {
			t->compute_ms += g->m * st[s].compute_ms;
			t->recompute_ms += g->m * st[s].recompute_ms;
			t->tp_ms += g->m * st[s].tp_ms;
			t->p2p_ms += g->m * st[s].p2p_ms;
			if (st[s].allreduce_ms > ar)
				ar = st[s].allreduce_ms;
		}
		busy = t->compute_ms + t->recompute_ms + t->tp_ms + t->p2p_ms;
		t->allreduce_ms = ar > busy ? ar - busy : 0;
		return busy + t->allreduce_ms;
	}
	if (g->sched == PLAN_FLUSH || g->sched == PLAN_GPIPE) {
		double ar = 0;

		/* The slowest stage sets the pace; the all-reduces start
		 * after the flush and the longest ends the iteration. */
		for (s = 0; s < g->d; s++) {
			double x = st[s].compute_ms + st[s].recompute_ms +
				   st[s].tp_ms + st[s].p2p_ms;

			if (x > tmb) {
				tmb = x;
				slow = s;
			}
			if (st[s].allreduce_ms > ar)
				ar = st[s].allreduce_ms;
		}
		t->compute_ms = g->m * st[slow].compute_ms;
		t->recompute_ms = g->m * st[slow].recompute_ms;
		t->tp_ms = g->m * st[slow].tp_ms;
		t->p2p_ms = g->m * st[slow].p2p_ms;
		t->allreduce_ms = ar;
		t->bubble_ms = (g->d - 1) * tmb / g->v;
		return g->m * tmb + t->bubble_ms + ar;
	}
	for (s = 0; s < g->d; s++) {
		double x = cost_stage_ms(&st[s], g);

		if (x > tmb) {
			tmb = x;
			slow = s;
		}
	}
	t->compute_ms = g->m * st[slow].compute_ms;
	t->recompute_ms = g->m * st[slow].recompute_ms;
	t->tp_ms = g->m * st[slow].tp_ms;
	t->p2p_ms = g->m * st[slow].p2p_ms;
	busy = t->compute_ms + t->recompute_ms + t->tp_ms + t->p2p_ms;
	iter = g->m * tmb;
	t->allreduce_ms = iter > busy ? iter - busy : 0;
	return iter;
}
