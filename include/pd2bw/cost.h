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

#include "pd2bw/chain.h"
#include "pd2bw/plan.h"
#include "pd2bw/place.h"

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
	int t;      /* tensor-parallel degree (the chain's shard shapes) */
	int v;      /* interleaved virtual stages per GPU (flush), 1 = off */
	int zero;   /* optimizer state sharded over the w replicas */
};

/* Stash multiplier of interleaved 1F1B (Megatron's estimator). */
static inline double
cost_interleave_factor(const struct cost_cfg *g)
{
	return g->v > 1 ? 1 + (double)(g->d - 1) / ((double)g->d * g->v) : 1;
}

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
 * activation sent to s+1 and its gradient received.  Under tensor
 * parallelism each of the t GPUs sends its 1/t share (Megatron's
 * scatter-gather); interleaving crosses v boundaries each way.
 */
static inline double
cost_p2p(const struct chain *c, const struct cost_cfg *g,
	 const struct place_links *l, int s, int a, int e)
{
	double t = 0;

	if (s > 0)
		t += 2 * cost_xfer_ms(CHAIN_AT(c, c->out, g->k, a - 1) / g->t,
				      l->in_gb_s[s], l->in_lat_us[s]);
	if (s < g->d - 1)
		t += 2 * cost_xfer_ms(CHAIN_AT(c, c->out, g->k, e) / g->t,
				      l->in_gb_s[s + 1], l->in_lat_us[s + 1]);
	return t * g->v;
}

/*
 * Tensor-parallel all-reduces of layers [a, e] per microbatch: each moves
 * 2 (t-1)/t of its activation over the group's ring (a reduce-scatter plus
 * all-gather under sequence parallelism moves the same).
 */
static inline double
cost_tp(const struct chain *c, const struct cost_cfg *g,
	const struct place_links *l, int s, int a, int e)
{
	double x, n;

	if (g->t < 2)
		return 0;
	x = chain_tp_bytes(c, g->k, g->r, a, e);
	n = chain_tp_count(c, g->k, g->r, a, e);
	return 2.0 * (g->t - 1) / g->t * x / (l->tp_gb_s[s] * 1e6) +
	       n * l->tp_lat_us[s] * 1e-3;
}

/* Ring all-reduce of a stage's gradients across w replicas, per update. */
static inline double
cost_allreduce(const struct cost_cfg *g, const struct cost_opts *o,
	       const struct place_links *l, int s, int64_t params)
{
	double w = g->w;

	if (g->w < 2)
		return 0;
	/* params are per GPU (a tensor-parallel shard); the t rings of a
	 * stage run side by side on different GPUs. */
	return 2 * (w - 1) / w * (double)params * o->grad_bytes /
		       (l->ring_gb_s[s] * 1e6) +
	       2 * (w - 1) * l->ring_lat_us[s] * 1e-3;
}

/* Bytes per parameter held on a GPU under the configuration. */
double cost_param_bytes(const struct cost_opts *o, const struct cost_cfg *g);

/*
 * Fill st for stage s holding layers [a, e]: times, link bandwidths and
 * memory.  st->mem_bytes may exceed o->cap_bytes (the caller checks).
 */
void cost_stage(const struct chain *c, const struct cost_opts *o,
		const struct cost_cfg *g, const struct place_links *l, int s,
		int a, int e, struct plan_stage *st);

/*
 * The partition's objective for one stage, per microbatch.  2bw (and
 * none) overlap the all-reduce with the next update's work: max(busy,
 * all-reduce / m).  flush and gpipe all-reduce after the flush, when the
 * last backward is done: busy + all-reduce / (m + (d-1)/v), whose maximum
 * bounds their iteration time / (m + (d-1)/v) from above.
 */
double cost_stage_ms(const struct plan_stage *st, const struct cost_cfg *g);

/* The divisor of the all-reduce in cost_stage_ms(). */
static inline double
cost_ar_div(const struct cost_cfg *g)
{
	if (g->sched == PLAN_FLUSH || g->sched == PLAN_GPIPE)
		return g->m + (double)(g->d - 1) / g->v;
	return g->m;
}

/*
 * Iteration time of the configuration whose stages are st[0..d), with the
 * per-term breakdown of its slowest stage (or of all stages for PLAN_NONE).
 * Returns the iteration time in ms.
 */
double cost_iteration(const struct plan_stage *st, const struct cost_cfg *g,
		      struct plan_terms *terms);

#endif
