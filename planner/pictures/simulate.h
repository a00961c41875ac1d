/*
 * simulate.h - discrete-event simulation of a plan's schedule (2bw, flush,
 * gpipe) over its stages, and the pictures drawn from it: a Gantt chart
 * (SVG), memory per stage (SVG), and a Chrome trace-event JSON.
 */
#ifndef PD2BW_SIMULATE_H
#define PD2BW_SIMULATE_H

#include "pd2bw/chain.h"
#include "pd2bw/plan.h"
#include "pd2bw/sim.h"

/*
 * Simulate plan p (made from chain c) and write whichever of timeline_svg,
 * memory_svg and trace_json is not NULL, atomically.  Returns 0 or -1.
 */
int sim_outputs(const struct plan *p, const struct chain *c,
		const char *timeline_svg, const char *memory_svg,
		const char *trace_json);


#endif
