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
	int ret = -1, s;

	if (p->d < 1 || p->nstages != p->d)
		return pd2bw_error("the plan has %d stages for depth %d",
				   p->nstages, p->d);
	for (s = 0; s < p->d; s++)
		if (p->stages[s].first < 0 || p->stages[s].last >= c->L ||
		    p->stages[s].first > p->stages[s].last)
			return pd2bw_error("stage %d has layers %d-%d outside "
					   "the chain's %d",
					   s, p->stages[s].first,
					   p->stages[s].last, c->L);
	cost_opts_init(&o);
	if (cost_cfg_of_plan(p, c, &o, &rt, &g))
		return pd2bw_error("microbatch %d is not in the profile",
				   p->b);
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
