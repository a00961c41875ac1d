/*
 * comm.c - what communication costs: collectives as NCCL runs them, the
 * pipeline's point-to-point transfers, tensor-parallel traffic, and the
 * data-parallel synchronisation of a stage's gradients.
 *
 * A collective over n ranks of a buffer of X bytes moves, per GPU, what
 * NCCL's ring moves (nccl-tests doc/PERFORMANCE.md: the bus bandwidth
 * factors): all-reduce 2 (n-1)/n X, reduce-scatter and all-gather
 * (n-1)/n X, all-to-all (n-1)/n X.  Time = a latency per algorithm step
 * plus the bytes over the ring's slowest link, so the effective
 * bandwidth grows with the message as nccl-tests' curves do: with the
 * presets' few microseconds per step, an 8-GPU NVLink all-reduce reaches
 * half its bus bandwidth near 16 MB.  For all-reduce NCCL also has a tree
 * (2 log2 n steps, each GPU sending and receiving about 2 X), which wins
 * for small messages on many ranks; the faster of the two is used, as
 * NCCL's tuner picks.
 */
#include <math.h>

#include "pd2bw/cost.h"

double
cost_coll_ms(int kind, double bytes, int n, double gb_s, double lat_us)
{
	double f, bw = gb_s * 1e6, lat = lat_us * 1e-3, ring, tree;

	if (n < 2 || bytes <= 0 || gb_s <= 0)
		return 0;
	f = (n - 1.0) / n;
	switch (kind) {
	case COST_ALLREDUCE:
		ring = 2 * f * bytes / bw + 2 * (n - 1) * lat;
		tree = 2 * bytes / bw + 2 * ceil(log2((double)n)) * lat;
		return ring < tree ? ring : tree;
	case COST_REDUCE_SCATTER:
	case COST_ALLGATHER:
		return f * bytes / bw + (n - 1) * lat;
	case COST_ALLTOALL:
		/* n - 1 concurrent exchanges */
		return f * bytes / bw + lat;
	default:
		return bytes / bw + lat;
	}
}

double
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

double
cost_tp(const struct chain *c, const struct cost_cfg *g,
	const struct place_links *l, int s, int a, int e)
{
	double x, n;

	if (g->t < 2)
		return 0;
	x = chain_tp_bytes(c, g->k, g->r, a, e);
	n = chain_tp_count(c, g->k, g->r, a, e);
	if (n <= 0)
		return 0;
	/* n collectives of x / n bytes each; sequence parallelism's
	 * reduce-scatter + all-gather pair moves what one all-reduce does
	 * (ring; the tree does not apply inside the small group) */
	return n * (2.0 * (g->t - 1) / g->t * (x / n) / (l->tp_gb_s[s] * 1e6) +
		    l->tp_lat_us[s] * 1e-3);
}

double
cost_cp(const struct chain *c, const struct cost_cfg *g,
	const struct place_links *l, int s, int a, int e)
{
	double t = 0, bw, lt;
	int j, n = g->c;

	if (n < 2 || !c->cpx)
		return 0;
	bw = l->cp_gb_s[s];
	lt = l->cp_lat_us[s];
	for (j = a; j <= e; j++) {
		double x = CHAIN_AT(c, c->cpx, g->k, j), x1, x2, f, b, fwd;

		if (x <= 0 || bw <= 0)
			continue;
		f = CHAIN_AT(c, c->cpf, g->k, j) / n;
		b = CHAIN_AT(c, c->cpb, g->k, j) / n;
		x1 = cost_xfer_ms(x, bw, lt);
		x2 = cost_xfer_ms(2 * x, bw, lt);
		fwd = (n - 1) * fmax(0, x1 - f);
		t += fwd + 2 * fmax(0, x1 - b) + (n - 2) * fmax(0, x2 - b);
		if (g->r == PROF_RC_SELECTIVE || g->r == PROF_RC_FULL)
			t += fwd;
	}
	return t;
}

double
cost_ep(const struct chain *c, const struct cost_cfg *g,
	const struct place_links *l, int s, int a, int e)
{
	double t = 0, k = g->r == PROF_RC_FULL ? 6 : 4;
	int j, n = g->e;

	if (n < 2 || !c->epx)
		return 0;
	for (j = a; j <= e; j++) {
		double x = CHAIN_AT(c, c->epx, g->k, j);

		if (x > 0)
			t += k * cost_coll_ms(COST_ALLTOALL, x, n,
					      l->ep_gb_s[s], l->ep_lat_us[s]);
	}
	return t;
}

void
cost_dp_sync(const struct cost_opts *o, const struct cost_cfg *g,
	     const struct place_links *l, int s, int64_t params,
	     double *reduce_ms, double *gather_ms)
{
	cost_dp_sync_ep(o, g, l, s, params, 0, reduce_ms, gather_ms);
}

/* One gradient buffer of params parameters reduced over n ranks. */
static void
dp_buffer(const struct cost_opts *o, const struct cost_cfg *g,
	  const struct cost_bytes *b, double p, int n, double bw, double lt,
	  double *reduce_ms, double *gather_ms)
{
	if (n < 2 || p <= 0)
		return;
	/* params are per GPU (a tensor-parallel shard); the t rings of a
	 * stage run side by side on different GPUs */
	if (g->zero) {
		/* Megatron-Core's distributed optimizer, ZeRO-1: reduce-
		 * scatter the gradient buffer, then all-gather the updated
		 * 16-bit weights (weight bytes without FP8's copies) */
		double wb = cost_gather_bytes(o, g);

		*reduce_ms += cost_coll_ms(COST_REDUCE_SCATTER, p * b->grad,
					   n, bw, lt);
		*gather_ms += cost_coll_ms(COST_ALLGATHER, p * wb, n, bw, lt);
	} else {
		*reduce_ms += cost_coll_ms(COST_ALLREDUCE, p * b->grad, n, bw,
					   lt);
	}
}

void
cost_dp_sync_ep(const struct cost_opts *o, const struct cost_cfg *g,
		const struct place_links *l, int s, int64_t params,
		int64_t eparams, double *reduce_ms, double *gather_ms)
{
	struct cost_bytes b;
	double p = (double)params, bw, lt;
	int n = g->w * cost_cp_deg(g), ne = cost_ep_deg(g);

	*reduce_ms = *gather_ms = 0;
	if (n < 2 && cost_edp(g) < 2)
		return;
	cost_bytes(o, g, &b);
	/* Megatron reduces the gradients over data x context parallelism
	 * (distributed_data_parallel.py:286-291, intra_dp_cp_group) and
	 * its distributed optimizer shards over the same group
	 * (optimizer/__init__.py:934): one ring of w c ranks, as slow as
	 * the slower of the replicas' ring and the context-parallel one */
	bw = l->ring_gb_s[s];
	lt = l->ring_lat_us[s];
	if (g->c > 1) {
		if (g->w < 2 || l->cp_gb_s[s] < bw)
			bw = l->cp_gb_s[s];
		if (g->w < 2 || l->cp_lat_us[s] > lt)
			lt = l->cp_lat_us[s];
	}
	if (ne > 1 && eparams > 0) {
		/* experts: their own buffer over the w c t / (etp e) ranks
		 * holding the same experts (intra_expt_dp_group); with one
		 * data x context rank those are tensor-parallel neighbours */
		p -= (double)eparams;
		dp_buffer(o, g, &b, (double)eparams, cost_edp(g),
			  n < 2 ? l->tp_gb_s[s] : bw,
			  n < 2 ? l->tp_lat_us[s] : lt, reduce_ms, gather_ms);
	}
	dp_buffer(o, g, &b, p, n, bw, lt, reduce_ms, gather_ms);
}
