/*
 * partition.c - min-max contiguous partition by dynamic programming.
 *
 * dp[s][e] is the best achievable max cost of stages 0..s when stage s ends
 * at layer e.  Stage s = [a, e] is grown downwards from a = e, so its
 * compute time and memory only increase: the scan stops as soon as either
 * makes the stage unable to improve on the best found (or on the bound).
 */
#include <math.h>
#include <stdlib.h>

#include "partition.h"
#include "pd2bw/error.h"

void
part_ws_release(struct part_ws *ws)
{
	free(ws->dp);
	free(ws->arg);
	ws->dp = NULL;
	ws->arg = NULL;
	ws->alloc = 0;
}

double
part_solve(struct part_ws *ws, const struct chain *c,
	   const struct cost_opts *o, const struct cost_cfg *g,
	   const struct place_links *l, enum part_mode mode, double bound,
	   int *first)
{
	int L = c->L, d = g->d, k = g->k, r = g->r, s, e, a;
	size_t need = (size_t)d * L;
	double pb = o->weight_bytes + o->grad_bytes + o->opt_bytes +
		    (g->sched == PLAN_2BW ? o->version_bytes : 0);
	const double *stash = c->stash[r] + (size_t)k * L;
	const double *full = c->stash[PROF_RC_NONE] + (size_t)k * L;
	const double *work = c->work + (size_t)k * L;
	double *dp;
	int *arg;

	if (d < 1 || d > L)
		return INFINITY;
	if (need > ws->alloc) {
		ws->dp = xrealloc(ws->dp, need * sizeof(double));
		ws->arg = xrealloc(ws->arg, need * sizeof(int));
		ws->alloc = need;
	}
	dp = ws->dp;
	arg = ws->arg;
	for (s = 0; s < d; s++) {
		int inflight = cost_in_flight(g, s);
		int elo = s, ehi = L - d + s;

		for (e = 0; e < L; e++)
			dp[(size_t)s * L + e] = INFINITY;
		for (e = elo; e <= ehi; e++) {
			double best = INFINITY, per_mb = 0, peak = 0, wk = 0;
			double limit = mode == PART_TIME ? bound : INFINITY;
			int64_t params = 0;
			int besta = -1;

			for (a = e; a >= s; a--) {
				double mem, t, v, ar;

				params += c->params[a];
				per_mb += stash[a];
				if (full[a] > peak)
					peak = full[a];
				if (work[a] > wk)
					wk = work[a];
				mem = (double)params * pb + inflight * per_mb +
				      (r == PROF_RC_FULL ? peak : 0) + wk;
				if (s == 0 && a > 0)
					continue;
				if (mode == PART_MEM) {
					if (mem >= best)
						break;
					v = mem;
				} else {
					if (mem > o->cap_bytes)
						break;
					t = chain_time(c, k, r, a, e);
					if (t >= best || t >= limit)
						break;
					t += cost_p2p(c, g, l, s, a, e);
					ar = cost_allreduce(g, o, l, s, params) /
					     g->m;
					v = t > ar ? t : ar;
					if (v >= limit)
						continue;
				}
				if (s > 0) {
					double prev = dp[(size_t)(s - 1) * L +
							 a - 1];

					if (prev > v)
						v = prev;
				}
				if (v < best) {
					best = v;
					besta = a;
				}
			}
			dp[(size_t)s * L + e] = best;
			arg[(size_t)s * L + e] = besta;
		}
	}
	if (!isfinite(dp[(size_t)(d - 1) * L + L - 1]))
		return INFINITY;
	e = L - 1;
	for (s = d - 1; s >= 0; s--) {
		first[s] = arg[(size_t)s * L + e];
		e = first[s] - 1;
	}
	return dp[(size_t)(d - 1) * L + L - 1];
}
