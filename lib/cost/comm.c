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
#include "pd2bw/model.h"

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
cost_tp_hidden(const struct cost_opts *o, const struct cost_cfg *g)
{
	const struct runtime *rt = cost_cfg_runtime(o, g);

	if (!g->sp || o->precision == MODEL_NVFP4)
		return 0;
	/* torchao's rowwise recipe casts after the all-gathers (torchtitan
	 * gathers 16 bits under it: models/llama3/infra/parallelize.py:
	 * 78-86 at v0.2.2), so what feeds a matmul is the cast, which
	 * async TP's pass does not fuse through: of a block's eight
	 * collectives the reduce-scatters of matmul outputs alone, the
	 * forward's two and, where the projections are fused, the
	 * backward's two (runtime.c tp_hidden) */
	if (rt->id == RUNTIME_TORCHTITAN &&
	    runtime_has(rt, RUNTIME_OPT_ASYNC_TP) &&
	    o->precision == MODEL_FP8 &&
	    model_fp8_rowwise(cost_fp8_recipe(o, g)))
		return 0.8 * (rt->split_proj ? 2.0 : 4.0) / 8;
	return rt->tp_hidden;
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

/*
 * The chain's all-to-all buffer is Megatron's (analytic.c): each rank's
 * 1/t of the rows with whole experts (expert tensor parallelism 1), and
 * with the experts split like the tensor-parallel layers 1/t of them
 * under sequence parallelism, all of them without.  torchtitan splits
 * the rows t ways with whole experts too (ReordererSequenceParallel,
 * distributed/expert_parallel.py:256-293 at v0.2.2, applied by models/
 * llama4/infra/parallelize.py:531-536), but with the experts split like
 * tp every rank of the group dispatches all of them (ExpertTensor-
 * Parallel's input is replicated over the etp mesh, expert_parallel.py:
 * 209-216; the runtime's ep_tp_all_rows): t times the chain's buffer
 * under sequence parallelism.  DeepSpeed-MoE, without sequence
 * parallelism, has every tensor-parallel rank drop all but its 1/t of
 * the rows before each all-to-all and gather them after (moe/
 * sharded_moe.py:626-638, 649-664; the runtime's ep_tp_drop): 1/t of
 * the chain's buffer, which holds all the rows then; ep_tp_gather_ms()
 * prices the all-gathers that restore them.
 */
static double
ep_share(const struct cost_cfg *g)
{
	int t = g->t > 1 ? g->t : 1, etp = g->etp > 0 ? g->etp : t;

	if (g->rt && g->rt->ep_tp_drop && !g->sp && etp == t)
		return 1.0 / t;
	if (!g->rt || !g->rt->ep_tp_all_rows)
		return 1;
	return g->sp && etp == t ? t : 1;
}

int
cost_ep_flex(const struct cost_opts *o, const struct cost_cfg *g)
{
	const struct runtime *rt = g ? cost_cfg_runtime(o, g)
				     : o->runtime >= 0 ? &o->rts[o->runtime]
						       : NULL;

	return rt && runtime_has(rt, RUNTIME_OPT_FLEX_DISPATCHER);
}

/* One all-to-all of layer j, ms (0: none). */
static double
ep_one(const struct chain *c, const struct cost_cfg *g,
       const struct place_links *l, int s, int j)
{
	double x = CHAIN_AT(c, c->epx, g->k, j) * ep_share(g);

	return x > 0 ? cost_coll_ms(COST_ALLTOALL, x, g->e, l->ep_gb_s[s],
				    l->ep_lat_us[s])
		     : 0;
}

/*
 * DeepSpeed-MoE under tensor parallelism t, without sequence parallelism
 * (ep_share()'s 1/t): the rows each rank dropped before an all-to-all
 * come back by an all-gather over the tensor-parallel group
 * (moe/mappings.py gather_tokens, all_gather_into_tensor over the
 * tensor-parallel group: 30-53 at 38327e07f): after the combine always
 * (sharded_moe.py:663-667), after the dispatch too when the experts are
 * split like the tensor-parallel layers (636-640), each output the whole
 * buffer, E x C rows: the chain's buffer with the experts split, t times
 * it with whole experts (whose buffer holds 1/t of the rows).  Without
 * expert parallelism the all-to-alls move nothing, but the ranks still
 * drop their duplicates before them (626, whenever tensor parallelism
 * is on) and gather after the combine; the gather after the dispatch
 * needs expert parallelism too (634).  The
 * backward of each drop_tokens is such an all-gather and that of each
 * gather_tokens a free narrow (mappings.py:75-102), so a backward gathers
 * as often as its forward; k / 2 passes (forward, backward and a full
 * recomputation's forward).  ms of layer j.
 */
static double
ep_tp_gather_ms(const struct chain *c, const struct cost_cfg *g,
		const struct place_links *l, int s, int j, double k)
{
	int t = g->t > 1 ? g->t : 1, etp = g->etp > 0 ? g->etp : t;
	double x = CHAIN_AT(c, c->epx, g->k, j);

	if (!g->rt || !g->rt->ep_tp_drop || g->sp || t < 2 || x <= 0)
		return 0;
	return k / 2 * (etp == t && g->e > 1 ? 2 : 1) *
	       cost_coll_ms(COST_ALLGATHER, etp == t ? x : x * t, t,
			    l->tp_gb_s[s], l->tp_lat_us[s]);
}

double
cost_ep(const struct chain *c, const struct cost_cfg *g,
	const struct place_links *l, int s, int a, int e)
{
	/* k all-to-alls a layer, fc of them forward combines: 6 and 2
	 * when its recomputation dispatches and combines again (full, or
	 * selective that does not keep their outputs: PROF_RERUN_EP_A2A,
	 * torchtitan's per-op policy on qwen3) */
	double t = 0, k, fc;
	int j;

	if (!c->epx)
		return 0;
	if (g->e < 2) {
		for (j = a; j <= e; j++)
			t += ep_tp_gather_ms(c, g, l, s, j,
					     g->r == PROF_RC_FULL ? 6 : 4);
		return t;
	}
	for (j = a; j <= e; j++) {
		double y = ep_one(c, g, l, s, j), sf;

		if (y <= 0)
			continue;
		k = g->r == PROF_RC_FULL ||
				    (g->r == PROF_RC_SELECTIVE &&
				     (CHAIN_AT(c, c->rerun, g->k, j) &
				      PROF_RERUN_EP_A2A))
			    ? 6
			    : 4;
		fc = k / 2 - 1;
		t += ep_tp_gather_ms(c, g, l, s, j, k);
		/* where the shared experts' forward runs while the
		 * combine is in flight (torchtitan), each forward's
		 * combine exposes what they do not cover */
		sf = g->rt && g->rt->ep_shared_overlap && c->epsf
			     ? CHAIN_AT(c, c->epsf, g->k, j)
			     : 0;
		t += (k - fc) * y + fc * fmax(0, y - sf);
	}
	return t;
}

double
cost_ep_overlap(const struct chain *c, const struct cost_cfg *g,
		const struct place_links *l, int s, int a, int e)
{
	double t = 0;
	int j;

	if (g->e < 2 || !c->epx)
		return 0;
	for (j = a; j <= e; j++) {
		double y = ep_one(c, g, l, s, j), af, ab, m;

		if (y <= 0)
			continue;
		af = c->epaf ? CHAIN_AT(c, c->epaf, g->k, j) : 0;
		ab = c->epab ? CHAIN_AT(c, c->epab, g->k, j) : 0;
		m = CHAIN_AT(c, c->fb, g->k, j) - af - ab;
		t += fmax(0, y - af) + fmax(0, 2 * y - m) + fmax(0, y - ab);
	}
	return t;
}

/*
 * The data x context-parallel ring of stage s: as slow as the slower of
 * the replicas' ring and the context-parallel one.
 */
static void
dp_link(const struct cost_cfg *g, const struct place_links *l, int s,
	double *bw, double *lt)
{
	*bw = l->ring_gb_s[s];
	*lt = l->ring_lat_us[s];
	if (g->c > 1) {
		if (g->w < 2 || l->cp_gb_s[s] < *bw)
			*bw = l->cp_gb_s[s];
		if (g->w < 2 || l->cp_lat_us[s] > *lt)
			*lt = l->cp_lat_us[s];
	}
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
	const struct runtime *rt = cost_cfg_runtime(o, g);

	if (n < 2 || p <= 0)
		return;
	/* params are per GPU (a tensor-parallel shard); the t rings of a
	 * stage run side by side on different GPUs */
	if (g->zero >= 2) {
		/* ZeRO-2/3 reduce-scatter every microbatch's gradients
		 * layer by layer (cost_fsdp()); ZeRO-2 with whole
		 * parameters gathers the updated shards once after the
		 * step (DeepSpeed stage 2, Megatron-FSDP optim_grads),
		 * over the shard group */
		if (g->zero == 2 && !rt->zero2_gather_mb)
			*gather_ms += cost_coll_ms(COST_ALLGATHER,
						   p * cost_gather_bytes(o, g) *
							   cost_trained(o),
						   cost_shard_deg(g) < n
							   ? cost_shard_deg(g)
							   : n,
						   bw, lt);
	} else if (g->zero) {
		/* Megatron-Core's distributed optimizer, ZeRO-1: reduce-
		 * scatter the gradient buffer, then all-gather the updated
		 * 16-bit weights (weight bytes without FP8's copies) */
		double wb = cost_gather_bytes(o, g) * cost_trained(o);

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
	dp_link(g, l, s, &bw, &lt);
	if (ne > 1 && eparams > 0) {
		/* experts: their own buffer over the w c t / (etp e) ranks
		 * holding the same experts (intra_expt_dp_group), in their
		 * own rings */
		p -= (double)eparams;
		dp_buffer(o, g, &b, (double)eparams, cost_edp(g),
			  l->edp_gb_s[s], l->edp_lat_us[s], reduce_ms,
			  gather_ms);
	}
	dp_buffer(o, g, &b, p, n, bw, lt, reduce_ms, gather_ms);
}

/* The per-layer collectives of cost_fsdp(). */
struct fsdp_link {
	int n, nr;            /* shard group, replicas */
	int ne;               /* the routed experts' shard group */
	double bw, lt;        /* the shard group's ring */
	double ebw, elt;      /* the experts' shard group's ring */
	double rbw, rlt;      /* the replicas' ring (HSDP) */
	double gather, grad;  /* bytes per parameter gathered, reduced */
	double gather_blk;    /* gathered, a block's dense weights (FP8) */
};

/*
 * Layer j's gather: under expert parallelism the routed experts are a
 * unit of their own, sharded over the ranks holding the same experts
 * (torchtitan's fully_shard of moe.experts on the efsdp mesh, models/
 * llama4/infra/parallelize.py:385-409 at v0.2.2), over the shard
 * group's links (comm.c's dp_buffer() does the same for ZeRO-1).
 */
static double
fsdp_gather(const struct fsdp_link *f, const struct chain *c, int j)
{
	int own = f->ne != f->n;

	return cost_coll_ms(COST_ALLGATHER,
			    cost_layer_gather(c, j, f->gather, f->gather_blk,
					      own),
			    f->n, f->bw, f->lt) +
	       cost_coll_ms(COST_ALLGATHER,
			    own ? (double)c->eparams[j] * f->gather : 0, f->ne,
			    f->ebw, f->elt);
}

/* Reduce-scatter in the shard group, then (HSDP) the shard all-reduced
 * over the replicas; the experts' unit likewise in its own group. */
static double
fsdp_reduce(const struct fsdp_link *f, const struct chain *c, int j)
{
	double pe = f->ne != f->n ? (double)c->eparams[j] : 0;
	double p = (double)c->params[j] - pe;

	return cost_coll_ms(COST_REDUCE_SCATTER, p * f->grad, f->n, f->bw,
			    f->lt) +
	       cost_coll_ms(COST_ALLREDUCE, p * f->grad / f->n, f->nr, f->rbw,
			    f->rlt) +
	       cost_coll_ms(COST_REDUCE_SCATTER, pe * f->grad, f->ne, f->ebw,
			    f->elt) +
	       cost_coll_ms(COST_ALLREDUCE, pe * f->grad / f->ne, f->nr,
			    f->rbw, f->rlt);
}

/* Fill f for stage s of g; returns 0 when g has no ZeRO-2/3 traffic. */
static int
fsdp_setup(const struct cost_opts *o, const struct cost_cfg *g,
	   const struct place_links *l, int s, struct fsdp_link *f,
	   int *fwd_ag, int *bwd_ag)
{
	const struct runtime *rt = cost_cfg_runtime(o, g);
	struct cost_bytes b;
	int n = cost_dp_ranks(g);

	if (g->zero < 2 || n < 2)
		return 0;
	cost_bytes(o, g, &b);
	f->n = cost_shard_deg(g);
	f->ne = cost_eshard_deg(g);
	f->nr = n / f->n;
	dp_link(g, l, s, &f->rbw, &f->rlt);
	f->bw = f->rbw;
	f->lt = f->rlt;
	/* a shard group of consecutive ranks inside one node runs over
	 * NVLink, the replicas' ring across the nodes */
	if (f->n < n && l->node_gb_s > 0 &&
	    f->n * g->t * cost_cp_deg(g) <= l->gpus_per_node) {
		f->bw = l->node_gb_s;
		f->lt = l->node_lat_us;
	}
	/* the experts' shard group: ranks ep apart, in rings of their
	 * own (place_links' edp) unless inside an HSDP shard group */
	f->ebw = f->bw;
	f->elt = f->lt;
	if (f->n == n && cost_ep_deg(g) > 1) {
		f->ebw = l->edp_gb_s[s];
		f->elt = l->edp_lat_us[s];
	}
	/* FSDP gathers the 16-bit parameters (param_dtype bf16) and
	 * reduces in the runtime's reduce dtype: torchtitan fp32
	 * (mixed_precision_reduce, config/configs.py:102), DeepSpeed the
	 * training dtype (runtime/engine.py:939-951) */
	f->gather = cost_gather_bytes(o, g);
	f->gather_blk = cost_fp8_all_gather(o, g) ? 1 : f->gather;
	f->grad = b.grad;
	*fwd_ag = g->zero == 3 || rt->zero2_gather_mb;
	*bwd_ag = g->zero == 3 && !(rt->zero3_keep_pp && g->d > 1);
	return 1;
}

double
cost_contention(const struct cost_opts *o, double hidden_ms, int ctas)
{
	return o->sms > 0 ? hidden_ms * ctas / o->sms : 0;
}

double
cost_fsdp(const struct chain *c, const struct cost_opts *o,
	  const struct cost_cfg *g, const struct place_links *l, int s,
	  int a, int e)
{
	return cost_fsdp_rc(c, o, g, l, s, a, e, NULL);
}

double
cost_fsdp_rc(const struct chain *c, const struct cost_opts *o,
	     const struct cost_cfg *g, const struct place_links *l, int s,
	     int a, int e, const int *rc)
{
	struct fsdp_link f;
	double t = 0, hid = 0;
	int j, fwd_ag, bwd_ag;

	if (!fsdp_setup(o, g, l, s, &f, &fwd_ag, &bwd_ag))
		return 0;
	for (j = a; j <= e; j++) {
		double ag = fwd_ag ? fsdp_gather(&f, c, j) : 0;

		/* layer j's gather was prefetched behind layer j-1 */
		if (j == a) {
			t += ag;
		} else {
			double f_ms = CHAIN_AT(c, c->fwd, g->k, j - 1);

			t += fmax(0, ag - f_ms);
			hid += fmin(ag, f_ms);
		}
	}
	for (j = e; j >= a; j--) {
		double busy = chain_time(c, g->k, rc ? rc[j - a] : g->r, j,
					 j) -
			      CHAIN_AT(c, c->fwd, g->k, j), comm = 0;

		if (j == e && bwd_ag)
			t += fsdp_gather(&f, c, j);
		/* beside layer j's backward: the next layer's gather and
		 * the previous one's reduction */
		if (bwd_ag && j > a)
			comm += fsdp_gather(&f, c, j - 1);
		if (j < e)
			comm += fsdp_reduce(&f, c, j + 1);
		t += fmax(0, comm - busy);
		hid += fmin(comm, busy);
	}
	return t + cost_contention(o, hid, COST_NCCL_CTAS) + fsdp_reduce(&f, c, a);
}

double
cost_fsdp_layer(const struct chain *c, const struct cost_opts *o,
		const struct cost_cfg *g, const struct place_links *l, int s,
		int j)
{
	struct fsdp_link f;
	double ag, f_ms, busy, bwd;
	int fwd_ag, bwd_ag;

	if (!fsdp_setup(o, g, l, s, &f, &fwd_ag, &bwd_ag))
		return 0;
	ag = fsdp_gather(&f, c, j);
	f_ms = CHAIN_AT(c, c->fwd, g->k, j);
	busy = chain_time(c, g->k, g->r, j, j) - f_ms;
	bwd = (bwd_ag ? ag : 0) + fsdp_reduce(&f, c, j);
	return (fwd_ag ? fmax(0, ag - f_ms) : 0) + fmax(0, bwd - busy) +
	       cost_contention(o,
			       (fwd_ag ? fmin(ag, f_ms) : 0) + fmin(bwd, busy),
			       COST_NCCL_CTAS);
}

double
cost_offload(const struct chain *c, const struct cost_opts *o,
	     const struct cost_cfg *g, int a, int e)
{
	return cost_offload_rc(c, o, g, a, e, NULL);
}

double
cost_offload_rc(const struct chain *c, const struct cost_opts *o,
		const struct cost_cfg *g, int a, int e, const int *rc)
{
	double t = 0;
	int j, n = cost_offload_blocks(c, o, g);

	if (!g->offload || o->host_gb_s <= 0)
		return 0;
	for (j = a; j < e; j++) {
		int r0 = rc ? rc[j - a] : g->r, r1 = rc ? rc[j + 1 - a] : g->r;
		double x, bwd;

		if (n > 0 && !cost_offloads_block(c, n, j))
			continue;
		x = cost_xfer_ms(CHAIN_AT(c, c->stash[r0], g->k, j),
				 o->host_gb_s, 0);
		bwd = chain_time(c, g->k, r1, j + 1, j + 1) -
		      CHAIN_AT(c, c->fwd, g->k, j + 1);

		/* out during layer j's forward, back during layer j+1's
		 * backward (and recomputation) */
		t += fmax(0, x - CHAIN_AT(c, c->fwd, g->k, j)) +
		     fmax(0, x - bwd);
	}
	return t;
}
