/*
 * simulate.c - schedule simulation and pictures (being written).
 */
#include "pd2bw/error.h"
#include "simulate.h"

int
sim_outputs(const struct plan *p, const struct chain *c,
	    const char *timeline_svg, const char *memory_svg,
	    const char *trace_json)
{
	(void)p;
	(void)c;
	(void)timeline_svg;
	(void)memory_svg;
	(void)trace_json;
	return pd2bw_error("--timeline, --memory and --trace are not "
			   "implemented yet");
}
