/*
 * simulate.c - sim_outputs(): simulate a plan with the cost model's event
 * simulation (cost_simulate(), the one that gave its predicted time) and
 * write the Gantt chart and memory picture (svg.c) and the Chrome trace
 * (trace.c).
 */
#include <string.h>

#include "pd2bw/cost.h"
#include "pd2bw/error.h"
#include "pd2bw/profile.h"
#include "pd2bw/runtime.h"
#include "pd2bw/sim.h"
#include "pictures/simulate.h"
#include "pictures/svg.h"
#include "pictures/trace.h"

int
sim_outputs(const struct plan *p, const struct chain *c,
	    const char *timeline_svg, const char *memory_svg,
	    const char *trace_json)
{
	struct cost_opts o;
	struct cost_cfg g;
	struct runtime rt;
	struct sim sm;
	int ret = -1, k, s;

	if (p->d < 1 || p->nstages != p->d)
		return pd2bw_error("the plan has %d stages for depth %d",
				   p->nstages, p->d);
	for (k = 0; k < c->nmb && c->mb[k] != p->b; k++)
		;
	if (k == c->nmb)
		return pd2bw_error("microbatch %d is not in the profile",
				   p->b);
	for (s = 0; s < p->d; s++)
		if (p->stages[s].first < 0 || p->stages[s].last >= c->L ||
		    p->stages[s].first > p->stages[s].last)
			return pd2bw_error("stage %d has layers %d-%d outside "
					   "the chain's %d",
					   s, p->stages[s].first,
					   p->stages[s].last, c->L);
	cost_opts_init(&o);
	memset(&g, 0, sizeof(g));
	g.sched = p->sched;
	g.w = p->w;
	g.d = p->d;
	g.k = k;
	g.b = p->b;
	g.m = p->m;
	g.r = p->recompute;
	g.t = p->t;
	g.sp = p->sp;
	g.v = p->v > 1 ? p->v : 1;
	g.zero = p->zero;
	g.place = p->place;
	if (p->runtime && *p->runtime && runtime_parse(&rt, p->runtime) == 0)
		g.rt = &rt;
	else
		g.rt = cost_runtime(&o, p->sched, p->d);
	memset(&sm, 0, sizeof(sm));
	if (cost_simulate(c, p->stages, &g, &sm, NULL) < 0)
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
	return ret;
}
