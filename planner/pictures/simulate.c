/*
 * simulate.c - sim_outputs(): turn a plan's stages into the simulator's
 * per-stage times (sim.c), run the plan's schedule, and write the Gantt
 * chart and memory picture (svg.c) and the Chrome trace (trace.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/error.h"
#include "pd2bw/profile.h"
#include "pd2bw/sim.h"
#include "pictures/simulate.h"
#include "pictures/svg.h"
#include "pictures/trace.h"

int
sim_plan_inputs(const struct plan *p, const struct chain *c,
		struct sim_stage_in *in)
{
	int k, s, j, v = p->v > 1 ? p->v : 1;

	for (k = 0; k < c->nmb && c->mb[k] != p->b; k++)
		;
	if (k == c->nmb)
		return pd2bw_error("microbatch %d is not in the profile",
				   p->b);
	for (s = 0; s < p->d; s++) {
		const struct plan_stage *st = &p->stages[s];
		double fwd = 0, fb = 0, per_mb = 0, peak = 0, frac;

		if (st->first < 0 || st->last >= c->L || st->first > st->last)
			return pd2bw_error("stage %d has layers %d-%d outside "
					   "the chain's %d",
					   s, st->first, st->last, c->L);
		for (j = st->first; j <= st->last; j++) {
			double full = CHAIN_AT(c, c->stash[PROF_RC_NONE], k, j);

			fwd += CHAIN_AT(c, c->fwd, k, j);
			fb += CHAIN_AT(c, c->fb, k, j);
			per_mb += CHAIN_AT(c, c->stash[p->recompute], k, j);
			if (full > peak)
				peak = full;
		}
		/* The chain gives the forward share; the plan the total. */
		frac = fb > 0 ? fwd / fb : 0.5;
		memset(&in[s], 0, sizeof(in[s]));
		/* Tensor-parallel all-reduces block the compute stream: half
		 * in forward, half in backward. */
		in[s].fwd_ms = st->compute_ms * frac + st->tp_ms / 2;
		in[s].bwd_ms = st->compute_ms * (1 - frac) + st->tp_ms / 2;
		in[s].rc_ms = st->recompute_ms > 0 ? st->recompute_ms : 0;
		in[s].allreduce_ms = st->allreduce_ms;
		in[s].stash_bytes = per_mb;
		in[s].stash_extra_bytes =
			p->recompute == PROF_RC_FULL ? peak : 0;
	}
	/*
	 * Stage s's p2p_ms is v (2 x[s] + 2 x[s+1]) (x[s]: one transfer
	 * across the boundary into stage s, each way; interleaved, each
	 * microbatch crosses it once per chunk), so the per-boundary times
	 * follow from the first stage on, latency included.
	 */
	for (s = 0; s + 1 < p->d; s++) {
		double x = p->stages[s].p2p_ms / (2.0 * v) -
			   (s > 0 ? in[s - 1].send_ms : 0);

		in[s].send_ms = x > 0 ? x : 0;
	}
	return 0;
}

/*
 * Interleaved, a microbatch also crosses from the last GPU to the first
 * between chunks, which the closed form does not charge and the plan
 * gives no link for.  NEEDSWORK: take the slowest boundary's transfer,
 * since placement puts the ends of the pipeline furthest apart (for d = 2
 * it is boundary 0's own link, the other way).
 */
static double
wrap_ms(const struct plan *p, const struct sim_stage_in *in)
{
	double x = 0;
	int s;

	if (p->v < 2)
		return 0;
	for (s = 0; s + 1 < p->d; s++)
		if (in[s].send_ms > x)
			x = in[s].send_ms;
	return x;
}

int
sim_outputs(const struct plan *p, const struct chain *c,
	    const char *timeline_svg, const char *memory_svg,
	    const char *trace_json)
{
	struct sim_stage_in *in;
	struct sim_cfg cfg;
	struct sim sm;
	int ret = -1;

	if (p->d < 1 || p->nstages != p->d)
		return pd2bw_error("the plan has %d stages for depth %d",
				   p->nstages, p->d);
	in = xcalloc((size_t)p->d, sizeof(*in));
	memset(&sm, 0, sizeof(sm));
	if (sim_plan_inputs(p, c, in))
		goto out;
	memset(&cfg, 0, sizeof(cfg));
	cfg.sched = p->sched;
	cfg.d = p->d;
	cfg.m = p->m;
	cfg.v = p->v;
	cfg.wrap_send_ms = wrap_ms(p, in);
	cfg.st = in;
	if (sim_run(&sm, &cfg))
		goto out;
	if (timeline_svg && svg_timeline(timeline_svg, p, &sm))
		goto out;
	if (memory_svg && svg_memory(memory_svg, p, &sm))
		goto out;
	if (trace_json && trace_write(trace_json, p, &sm))
		goto out;
	ret = 0;
out:
	sim_release(&sm);
	free(in);
	return ret;
}
