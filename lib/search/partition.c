/*
 * partition.c - min-max contiguous partition by dynamic programming.
 *
 * dp[s][e] is the best achievable max cost of stages 0..s when stage s ends
 * at layer e.  Stage s = [a, e] is grown downwards from a = e, so its
 * compute time and memory only increase: the scan stops as soon as either
 * makes the stage unable to improve on the best found (or on the bound).
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "pd2bw/partition.h"
#include "pd2bw/error.h"

void
part_ws_release(struct part_ws *ws)
{
	free(ws->dp);
	free(ws->arg);
	free(ws->cpre);
	ws->cpre = NULL;
	ws->cpre_alloc = 0;
	ws->dp = NULL;
	ws->arg = NULL;
	ws->alloc = 0;
}

/*
 * cost_dp_sync()'s bytes per parameter per update, (n-1)/n = wf: the
 * gradients' all-reduce; ZeRO-1 their reduce-scatter plus the 16-bit
 * weights' all-gather; ZeRO-2 with whole weights that all-gather alone;
 * ZeRO-2/3 reduce per microbatch instead (cost_fsdp(), per layer).
 */
static double
dp_wire(const struct cost_opts *o, const struct cost_cfg *g,
	const struct cost_bytes *by, double wf)
{
	if (g->zero >= 2)
		return g->zero == 2 && !cost_cfg_runtime(o, g)->zero2_gather_mb
			       ? wf * cost_gather_bytes(o, g)
			       : 0;
	return g->zero ? wf * (by->grad + cost_gather_bytes(o, g))
		       : 2 * wf * by->grad;
}

double
part_solve(struct part_ws *ws, const struct chain *c,
	   const struct cost_opts *o, const struct cost_cfg *g,
	   const struct place_links *l, enum part_mode mode, double bound,
	   int *first)
{
	int L = c->L, d = g->d, k = g->k, r = g->r, s, e, a;
	size_t need = (size_t)d * L;
	struct cost_bytes by;
	struct cost_mem mem0, mem;
	struct plan_stage scratch;
	const double *out = c->out + (size_t)k * L;
	const double *pre = c->pre_t + ((size_t)k * PROF_RC_N + r) * (L + 1);
	const double *tpn = c->pre_tpn + ((size_t)k * PROF_RC_N + r) * (L + 1);
	const double *tpx = c->pre_tpx + ((size_t)k * PROF_RC_N + r) * (L + 1);
	double inv_t = 1.0 / g->t;
	int add_ar = g->sched == PLAN_FLUSH || g->sched == PLAN_GPIPE;
	double limit = bound;
	int timed = mode == PART_TIME && isfinite(bound);
	double *dp;
	int *arg, nr = g->w * cost_cp_deg(g), ne = cost_ep_deg(g);
	double cp_bw = -1;
	const double *cpre = NULL;

	ws->pruned = 0;
	if (d < 1 || d > L)
		return INFINITY;
	cost_bytes(o, g, &by);
	cost_mem_init(&mem0, o, g);
	if (need > ws->alloc) {
		ws->dp = xrealloc(ws->dp, need * sizeof(double));
		ws->arg = xrealloc(ws->arg, need * sizeof(int));
		ws->alloc = need;
	}
	dp = ws->dp;
	arg = ws->arg;
	for (s = 0; s < d; s++) {
		int elo = s, ehi = L - d + s, any = 0;
		/* The terms of cost_p2p() and cost_allreduce(), hoisted. */
		double in_coef = 0, in_lat = 0, ar_coef = 0, ar_lat = 0;
		double tp_coef = 0, tp_lat = 0, are_coef = 0, are_lat = 0;
		double *row = dp + (size_t)s * L;

		if (s > 0) {
			in_coef = 2.0 * g->v * inv_t / (l->in_gb_s[s] * 1e6);
			in_lat = 2.0 * g->v * l->in_lat_us[s] * 1e-3;
		}
		if (g->t > 1) {
			tp_coef = 2.0 * (g->t - 1) / g->t /
				  (l->tp_gb_s[s] * 1e6);
			tp_lat = l->tp_lat_us[s] * 1e-3;
		}
		if (nr > 1) {
			double wf = (nr - 1.0) / nr, wire;
			double bw = l->ring_gb_s[s], lt = l->ring_lat_us[s];

			/* cost_dp_sync()'s ring of w x c ranks */
			if (g->c > 1) {
				if (g->w < 2 || l->cp_gb_s[s] < bw)
					bw = l->cp_gb_s[s];
				if (g->w < 2 || l->cp_lat_us[s] > lt)
					lt = l->cp_lat_us[s];
			}
			/* cost_dp_sync()'s bytes per parameter: all-reduce of
			 * the gradients, or their reduce-scatter plus the
			 * 16-bit weights' all-gather */
			wire = dp_wire(o, g, &by, wf);
			ar_coef = wire / (bw * 1e6) / cost_ar_div(g);
			ar_lat = 2.0 * (nr - 1) * lt * 1e-3 / cost_ar_div(g);
			/* the routed experts' buffer, over nr / ne ranks */
			if (ne > 1 && cost_edp(g) > 1) {
				int n2 = cost_edp(g);

				wf = (n2 - 1.0) / n2;
				wire = dp_wire(o, g, &by, wf);
				are_coef = wire / (bw * 1e6) / cost_ar_div(g);
				are_lat = 2.0 * (n2 - 1) * lt * 1e-3 /
					  cost_ar_div(g);
			}
		}
		/* cost_ep() layer by layer, with cost_cp() below */
		/* cost_cp() layer by layer, summed once per link rate */
		if ((g->c > 1 || ne > 1 || g->zero >= 2) &&
		    l->cp_gb_s[s] + l->ep_gb_s[s] + l->ring_gb_s[s] != cp_bw) {
			double *p;

			if ((size_t)L + 1 > ws->cpre_alloc) {
				ws->cpre = xrealloc(ws->cpre, ((size_t)L + 1) *
							      sizeof(double));
				ws->cpre_alloc = (size_t)L + 1;
			}
			p = ws->cpre;
			p[0] = 0;
			for (a = 0; a < L; a++)
				/* FSDP's steady share per layer, a lower
				 * bound (offload's too: 0) */
				p[a + 1] = p[a] + cost_cp(c, g, l, s, a, a) +
					   cost_ep(c, g, l, s, a, a) +
					   cost_fsdp_layer(c, o, g, l, s, a);
			cpre = p;
			cp_bw = l->cp_gb_s[s] + l->ep_gb_s[s] +
				l->ring_gb_s[s];
		}
		if (s == d - 1)
			elo = L - 1; /* only the whole chain matters */
		/* The layers after e go to d - 1 - s stages, each computing
		 * less than the limit: ends that leave more compute than that
		 * lead to no partition under it (a hair of room for the
		 * rounding of the prefix sums). */
		while (s < d - 1 && timed && elo < ehi &&
		       pre[L] - pre[elo + 1] >=
			       (d - 1 - s) * limit * (1 + 1e-9)) {
			ws->pruned = 1;
			row[elo] = INFINITY;
			arg[(size_t)s * L + elo] = -1;
			elo++;
		}
		/* Likewise the layers up to e go to s + 1 stages. */
		while (timed && ehi > elo &&
		       pre[ehi + 1] >= (s + 1) * limit * (1 + 1e-9)) {
			ws->pruned = 1;
			row[ehi] = INFINITY;
			arg[(size_t)s * L + ehi] = -1;
			ehi--;
		}
		/* Stage 0 starts at layer 0: its memory for [0, e] extends
		 * that for [0, e - 1]. */
		cost_mem_stage(&mem0, g, s);
		for (a = 0; s == 0 && a < elo; a++)
			cost_mem_add(&mem0, c, k, a, r);
		for (e = elo; e <= ehi; e++) {
			double best = INFINITY, out_t = 0;
			int besta = -1, alo = s;

			if (s < d - 1)
				out_t = 2.0 * g->v *
					cost_xfer_ms(out[e] * inv_t,
						     l->in_gb_s[s + 1],
						     l->in_lat_us[s + 1]);
			if (s == 0) {
				alo = e;
				cost_mem_add(&mem0, c, k, e, r);
				mem = mem0;
			} else {
				mem = mem0; /* the stage's constants, no layer */
			}
			for (a = e; a >= alo; a--) {
				double mb, t, v;
				int64_t params, eparams;

				if (s > 0)
					cost_mem_add(&mem, c, k, a, r);
				else
					a = 0;
				params = mem.params;
				eparams = mem.eparams;
				if (mode == PART_MEM) {
					/* a longer stage only needs more */
					mb = (double)cost_mem_bytes(&mem,
								    &scratch);
					if (mb >= best || mb >= limit)
						break;
					v = mb;
				} else {
					double ar;

					/* Compute alone is a lower bound of
					 * the stage's time per microbatch
					 * that longer stages only raise: it
					 * is what the bound prunes (the
					 * rest, the all-reduce above all,
					 * is not paid per microbatch). */
					t = pre[e + 1] - pre[a];
					if (t >= best)
						break;
					if (t >= limit) {
						ws->pruned = 1;
						break;
					}
					t += out_t;
					if (g->t > 1)
						t += tp_coef * (tpx[e + 1] -
								tpx[a]) +
						     tp_lat * (tpn[e + 1] -
							       tpn[a]);
					if (cpre)
						t += cpre[e + 1] - cpre[a];
					ar = (double)(params - eparams) *
						     ar_coef +
					     ar_lat;
					if (eparams)
						ar += (double)eparams *
							      are_coef +
						      are_lat;
					/* every term so far only grows with
					 * the stage (the incoming transfer
					 * below depends on where it starts):
					 * a lower bound of v here and for
					 * every longer stage */
					v = add_ar ? t + ar : t > ar ? t : ar;
					if (v >= best)
						break;
					/* cost_stage_mem()'s sum, the final
					 * check's (after the cheaper tests) */
					mb = (double)cost_mem_bytes(&mem,
								    &scratch);
					if (mb > o->cap_bytes)
						break;
					if (s > 0)
						t += out[a - 1] * in_coef +
						     in_lat;
					if (add_ar)
						v = t + ar;
					else
						v = t > ar ? t : ar;
				}
				if (s > 0 && row[(ptrdiff_t)a - 1 - L] > v)
					v = row[(ptrdiff_t)a - 1 - L];
				if (v < best) {
					best = v;
					besta = a;
				}
			}
			row[e] = best;
			arg[(size_t)s * L + e] = besta;
			if (mode == PART_MEM ? best < limit : isfinite(best))
				any = 1;
		}
		/* No prefix of stages can stay under the bound: give up. */
		if (!any) {
			ws->pruned |= timed;
			return INFINITY;
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
