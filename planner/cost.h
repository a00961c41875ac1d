/*
 * cost.h - the cost model of design.md section 5: time and memory of one
 * pipeline stage, and the iteration time of a whole configuration.
 *
 * Units: times in ms, sizes in bytes, bandwidths in GB/s (1e9 bytes/s) per
 * direction, latencies in us.
 */
#ifndef PD2BW_COST_H
#define PD2BW_COST_H

#include <stdint.h>

#include "chain.h"
#include "pd2bw/plan.h"
#include "place.h"

/* Bytes per parameter and the memory cap; see design.md section 9. */
struct cost_opts {
	double weight_bytes;   /* 16-bit weights */
	double grad_bytes;     /* gradients */
	double opt_bytes;      /* optimizer state incl. fp32 master */
	double version_bytes;  /* 2BW's second weight version */
	double cap_bytes;      /* device memory minus the reserve */
};

/* One configuration of the search. */
struct cost_cfg {
	int sched;  /* enum plan_sched */
	int w, d;
	int k;      /* microbatch index into the chain */
	int b, m;
	int r;      /* enum prof_rc */
	int place;  /* enum plan_place */
};

/* Microbatches whose stashes stage s keeps (design.md section 9). */
static inline int
cost_in_flight(const struct cost_cfg *g, int s)
{
	int n;

	switch (g->sched) {
	case PLAN_GPIPE:
		return g->m;
	case PLAN_NONE:
		return 1;
	default:
		n = g->d - s;
		return n < g->m ? n : g->m;
	}
}

/* Transfer time of bytes over a link: bytes / bandwidth + latency. */
static inline double
cost_xfer_ms(double bytes, double gb_s, double lat_us)
{
	return bytes / (gb_s * 1e6) + lat_us * 1e-3;
}

/*
 * Point-to-point time per microbatch of stage s holding layers [a, e]: the
 * activation received from stage s-1 and its gradient sent back, the
 * activation sent to s+1 and its gradient received.
 */
static inline double
cost_p2p(const struct chain *c, const struct cost_cfg *g,
	 const struct place_links *l, int s, int a, int e)
{
	double t = 0;

	if (s > 0)
		t += 2 * cost_xfer_ms(CHAIN_AT(c, c->out, g->k, a - 1),
				      l->in_gb_s[s], l->in_lat_us[s]);
	if (s < g->d - 1)
		t += 2 * cost_xfer_ms(CHAIN_AT(c, c->out, g->k, e),
				      l->in_gb_s[s + 1], l->in_lat_us[s + 1]);
	return t;
}

/* Ring all-reduce of a stage's gradients across w replicas, per update. */
static inline double
cost_allreduce(const struct cost_cfg *g, const struct cost_opts *o,
	       const struct place_links *l, int s, int64_t params)
{
	double w = g->w;

	if (g->w < 2)
		return 0;
	return 2 * (w - 1) / w * (double)params * o->grad_bytes /
		       (l->ring_gb_s[s] * 1e6) +
	       2 * (w - 1) * l->ring_lat_us[s] * 1e-3;
}

/* Bytes per parameter held on a GPU under the schedule. */
double cost_param_bytes(const struct cost_opts *o, int sched);

/*
 * Fill st for stage s holding layers [a, e]: times, link bandwidths and
 * memory.  st->mem_bytes may exceed o->cap_bytes (the caller checks).
 */
void cost_stage(const struct chain *c, const struct cost_opts *o,
		const struct cost_cfg *g, const struct place_links *l, int s,
		int a, int e, struct plan_stage *st);

/* Steady-state time per microbatch of one stage: max(work, all-reduce/m). */
double cost_stage_ms(const struct plan_stage *st, int m);

/*
 * Iteration time of the configuration whose stages are st[0..d), with the
 * per-term breakdown of its slowest stage (or of all stages for PLAN_NONE).
 * Returns the iteration time in ms.
 */
double cost_iteration(const struct plan_stage *st, const struct cost_cfg *g,
		      struct plan_terms *terms);

#endif
