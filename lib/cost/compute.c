/*
 * compute.c - what a stage's GPU spends per microbatch and per update:
 * forward and backward (from the profile), recomputation, the tensor-
 * parallel traffic its runtime does not hide, point-to-point transfers,
 * the host's launch and scheduling costs the GPU waits for, and per
 * update the data-parallel synchronisation and the optimizer step.
 *
 * Host cost: eager PyTorch issues one kernel every host_us_per_kernel at
 * best (framework dispatch plus launch); when a microbatch's kernels
 * take less GPU time than the host needs to issue them the GPU waits for
 * the difference.  A runtime adds a fixed cost per microbatch (schedule,
 * p2p setup, loss).  CUDA graphs remove most of both.
 *
 * Expert-parallel overlap (Megatron-Core --overlap-moe-expert-parallel-
 * comm): in the 1F1B phase a microbatch's forward and another's backward
 * run as one merged schedule, each's all-to-alls on their own stream
 * behind the other's compute (model_parallel_config.py:343-346, "with
 * independent computations of different micro-batches in 1f1b phase").
 * The stage's warm-up forwards and cool-down backwards have no partner:
 * of its m microbatches, in_flight run their all-to-alls exposed; the
 * rest expose, layer by layer, what the partner's compute beside each
 * cannot cover (cost_ep_overlap()), and what they hide
 * costs the compute the SMs their kernels hold (cost_contention(): NCCL's
 * channels, or the flex dispatcher's COST_FLEX_SMS).
 *
 * Data-parallel synchronisation: what of it the compute hides
 * (cost_sync_hidden()) holds NCCL's SMs meanwhile, sync_sm_ms a stage's
 * compute stream loses each update (cost_contention()).
 *
 * Optimizer step: Adam reads and writes its fp32 state, the master
 * weights and the gradient (fused multi-tensor kernels, memory bound):
 * about 30 bytes per parameter it updates, at the GPU's memory rate.
 */
#include <math.h>
#include <string.h>

#include "pd2bw/analytic.h"
#include "pd2bw/cost.h"
#include "pd2bw/model.h"

#define ADAM_BYTES_PER_PARAM 30.0

/*
 * Muon's orthogonalisation of stage s = [a, e] per step.  Under the
 * distributed optimizer Megatron's LayerWiseDistributedOptimizer gives
 * each data-parallel rank whole matrices to update, balanced by their
 * Newton-Schulz cost (layer_wise_optimizer.py:184-300, LPT bin-packing),
 * so a rank runs 1/n of the dense matrices' iterations and 1/n_e of the
 * routed experts' (over the ranks holding the same experts); without it
 * every rank runs all of its own.  Tensor parallelism gathers each
 * momentum whole, fp32, over the group and every rank iterates on it
 * (TensorParallelMuon's default tp_mode "duplicated", emerging_
 * optimizers.py:197, 209-236).
 */
static double
muon_ms(const struct chain *c, const struct cost_opts *o,
	const struct cost_cfg *g, const struct place_links *l, int s, int a,
	int e)
{
	double ns, nse, n = 1, ne = 1, mine, t = 0;
	int64_t mp = chain_muon(c, a, e, &ns, &nse);

	if (o->ns_tflops <= 0 || mp <= 0)
		return 0;
	if (g->zero) {
		n = (double)cost_shard_deg(g);
		ne = (double)cost_eshard_deg(g);
	}
	t = ((ns - nse) / n + nse / ne) / (o->ns_tflops * 1e9);
	/* the momenta this rank gathers: its share of the stage's */
	mine = (double)mp / n;
	if (g->t > 1)
		t += cost_coll_ms(COST_ALLGATHER, 4 * mine * g->t, g->t,
				  l->tp_gb_s[s], l->tp_lat_us[s]);
	return t;
}

void
cost_stage(const struct chain *c, const struct cost_opts *o,
	   const struct cost_cfg *g, const struct place_links *l, int s,
	   int a, int e, struct plan_stage *st)
{
	cost_stage_rc(c, o, g, l, s, a, e, NULL, st);
}

/*
 * The terms a layer's recomputation changes, layer by layer under rc
 * (some layers differ): the extra forward, the tensor-parallel
 * all-reduces it repeats (hidden like the others under sequence
 * parallelism), context parallelism's K/V ring and expert parallelism's
 * all-to-alls run again; returns the stage's compute plus recomputation.
 */
static double
mixed_terms(const struct chain *c, const struct cost_cfg *g,
	    const struct place_links *l, int s, int a, int e, const int *rc,
	    struct plan_stage *st)
{
	int j;

	st->recompute = PLAN_RC_MIXED;
	st->recompute_ms = 0;
	st->tp_ms = st->cp_ms = st->ep_ms = 0;
	for (j = a; j <= e; j++) {
		struct cost_cfg gj = *g;

		gj.r = rc[j - a];
		st->recompute_ms += CHAIN_AT(c, c->rc[gj.r], g->k, j);
		st->tp_ms += cost_tp(c, &gj, l, s, j, j);
		st->cp_ms += cost_cp(c, &gj, l, s, j, j);
		st->ep_ms += cost_ep(c, &gj, l, s, j, j);
	}
	return st->compute_ms + st->recompute_ms;
}

/*
 * The host time a microbatch of stage [a, e] leaves the GPU waiting for:
 * the host issues the kernels while the GPU runs those before, so the
 * GPU waits for what the host needs beyond the GPU's own time (under
 * full recomputation the host issues a block's forward kernels twice,
 * where the profile says which they are: fwd_kernels).  A layer of
 * experts synchronises the two: the dispatcher reads the routing's
 * counts on the host before its all-to-all or grouped GEMMs (Megatron-
 * Core token_dispatcher.py, cuda_sync_point "before_ep_alltoall" or
 * "before_finish" for dropless routing; DeepEP and HybridEP alike;
 * torchtitan's all-to-all splits .tolist()), so the host cannot run
 * ahead past it and each MoE layer's forward weighs its own kernels
 * (the profile's fwd_kernels) against its own forward time, at the
 * runtime's host_us_moe a kernel.  The backward reads nothing: its
 * all-to-alls take the split sizes the forward kept on the host
 * (Megatron-Core tensor_parallel/mappings.py:429-430, 470-477 at
 * d98e8a6; Transformer Engine's grouped linear layers keep their
 * m_splits alike), so its kernels join the other layers of the stage in
 * one stretch, where the host runs ahead.  Full recomputation issues
 * the forward's kernels again, and reads again, as does a selective one
 * that dispatches again (the chain's rerun PROF_RERUN_EP_A2A: torchtitan's
 * per-op policy, whose split sizes come from a blocking copy to the host,
 * torchtitan/models/common/token_dispatcher.py:305 at b5bcd76c6), so its
 * backward weighs its own kernels too.  After each read the GPU also
 * idles while the host turns the counts into split sizes and issues the
 * next kernel: the runtime's host_ms_moe_sync, added to the layer's time
 * whichever of host and GPU is the longer.  A profile that does not split its
 * kernels (no fwd_kernels) weighs each MoE layer's forward and backward
 * together.
 * A dispatcher with a fixed capacity reads nothing: DeepSpeed-MoE's
 * drop_tokens (the runtime's moe_sync), and any whose rows are padded to
 * the capacity factor pd2bw priced (the chain's route.capacity: Megatron-
 * Core's moe_pad_expert_input_to_capacity, whose output size is E x C,
 * token_dispatcher.py:517-540 at d98e8a6, where only a dropping dispatch
 * without the padding syncs, 545-551), and HybridEP under a per-rank
 * budget, whose buffers are sized on the host beforehand (the chain's
 * route.rank_capacity; token_dispatcher.py:1098-1113, 1167-1178: only
 * without one does the dispatch read the counts).  Their MoE layers join
 * the stretch, their kernels still at host_us_moe.
 * Transformer Engine's graphs of the attention, the router and the
 * preprocessing (the runtime's te-graphs: cuda_graph_impl
 * "transformer_engine", cuda_graph_scope attn, moe_router and
 * moe_preprocess) replay a MoE layer's forward up to its dispatch, and
 * their backward, as one graph each (Megatron-Core transformer_layer.py
 * _te_cuda_graph_replay, 1071-1150 at 9ed8b0c4ac: the graph's outputs are
 * the preprocessed rows, the dispatch and the experts run eagerly; TE's
 * make_graphed_callables captures forward and backward): those kernels
 * (the chain's kerngf and kerngb) cost the host nothing.  Nor does the
 * read leave a gap: host_ms_moe_sync is the host issuing, after the read,
 * the next layer's eager attention, norms and router, which the GPU waits
 * for once through the experts (the host cannot have issued them sooner);
 * under the graph the host issues them with one launch right after the
 * combine, ahead of the GPU, and what remains is the read's latency (not
 * priced).  The graph of the router and preprocessing alone leaves the
 * attention eager: the gap stays.
 * Under the expert-parallel overlap only the exposed share of the all-to-
 * alls (epx) keeps the GPU busy while the host issues: the hidden share
 * runs on its own stream beside the partner microbatch's compute, which
 * the stage's time already holds.
 */
static double
host_ms(const struct chain *c, const struct cost_cfg *g,
	const struct place_links *l, int s, int a, int e, const int *rc,
	double epx)
{
	const struct runtime *rt = g->rt;
	double kern = 0, kmoe = 0, gpu = 0, moe = 0, host;
	int teg = runtime_has(rt, RUNTIME_OPT_TE_GRAPHS), j;

	for (j = a; j <= e; j++) {
		int r = rc ? rc[j - a] : g->r;
		double k = CHAIN_AT(c, c->kern, g->k, j);
		double kf = CHAIN_AT(c, c->kernf, g->k, j);
		double t = chain_time(c, g->k, r, j, j);

		/* full recomputation issues the forward's kernels again */
		if (r == PROF_RC_FULL)
			k += kf;
		if (c->eparams[j] > 0 && rt->moe_sync &&
		    !(c->route.capacity > 0) &&
		    !(c->route.rank_capacity > 0)) {
			double ep = cost_ep(c, g, l, s, j, j) * epx;
			double tf = CHAIN_AT(c, c->fwd, g->k, j) + ep / 2;
			double hk = rt->host_us_moe * 1e-3;
			/* a layer whose graphed part is unknown (a measured
			 * profile, the MTP module) keeps the gap */
			double gf = teg ? CHAIN_AT(c, c->kerngf, g->k, j) : 0;
			double gap = gf > 0 ? 0 : rt->host_ms_moe_sync;
			/* a recomputation that dispatches again reads again */
			int again = r == PROF_RC_FULL ||
				    (r == PROF_RC_SELECTIVE &&
				     (CHAIN_AT(c, c->rerun, g->k, j) &
				      PROF_RERUN_EP_A2A));

			if (!(kf > 0)) {
				/* forward and backward apart unknown */
				moe += fmax(0, k * hk - t - ep) +
				       (again ? 2 : 1) * gap;
				continue;
			}
			/* the graphed kernels; full recomputation replays
			 * the forward's graph again */
			if (gf > 0) {
				kf -= gf;
				k -= gf + CHAIN_AT(c, c->kerngb, g->k, j);
				if (r == PROF_RC_FULL)
					k -= gf;
			}
			moe += fmax(0, kf * hk - tf) + gap;
			if (again) {
				moe += fmax(0, (k - kf) * hk - (t + ep - tf)) +
				       gap;
			} else {
				kmoe += k - kf;
				gpu += t + ep - tf;
			}
		} else if (c->eparams[j] > 0) {
			if (teg)
				k -= CHAIN_AT(c, c->kerngf, g->k, j) *
					     (r == PROF_RC_FULL ? 2 : 1) +
				     CHAIN_AT(c, c->kerngb, g->k, j);
			kmoe += k;
			gpu += t + cost_ep(c, g, l, s, j, j) * epx;
		} else {
			/* a hybrid model's Mamba or attention layer, which
			 * the graphs replay whole (0 for other blocks) */
			if (teg)
				k -= CHAIN_AT(c, c->kerngf, g->k, j) *
					     (r == PROF_RC_FULL ? 2 : 1) +
				     CHAIN_AT(c, c->kerngb, g->k, j);
			kern += k;
			gpu += t;
		}
	}
	host = (kern * rt->host_us_per_kernel + kmoe * rt->host_us_moe) * 1e-3;
	return moe + (host > gpu ? host - gpu : 0);
}

/*
 * The quantised copies of stage [a, e]'s block weights each update makes,
 * at the GPU's memory rate, under Transformer Engine's caching (the
 * runtime's fp8_casts te; torchao casts per GEMM, in the estimate).
 * With 16-bit weights, the first microbatch of a step casts each into
 * its FP8 copy and transpose (MXFP8 and NVFP4: the rowwise and
 * columnwise copies), which the later microbatches reuse (Megatron passes
 * is_first_microbatch, extensions/transformer_engine.py; TE's
 * quantize with caching): read the 16-bit value, write the copies
 * (cost_fp8_copies(): one for per-tensor FP8 on Blackwell), and under
 * current scaling read it once more for its amax.  With FP8 parameters
 * (cost_fp8_params()) the distributed optimizer writes its shard's
 * quantised copy from the fp32 master (read 4 bytes, write one copy),
 * and a columnwise copy, where there is one, is made from the gathered
 * rowwise one (read and write a copy a value).  The quantised weights are the
 * blocks' matrices, those Muon would manage (chain_muon()): the embedding
 * and the output layer stay 16-bit.
 */
static double
weight_cast_ms(const struct chain *c, const struct cost_opts *o,
	       const struct cost_cfg *g, int a, int e)
{
	double ns, nse, p = (double)chain_muon(c, a, e, &ns, &nse), qb, bytes;
	int nc;

	/* the blocks and linears kept in 16 bits have no quantised
	 * copies */
	p -= (double)chain_c16(c, a, e);
	if (!model_prec_quantised(o->precision) || o->hbm_gb_s <= 0 ||
	    g->rt->fp8_casts != ANALYTIC_CASTS_TE || p <= 0)
		return 0;
	qb = cost_quant_bytes(o);
	nc = cost_fp8_copies(o, g);
	if (cost_fp8_params(o, g))
		bytes = p * (4 + qb) / (double)cost_shard_deg(g) +
			(nc - 1) * p * 2 * qb;
	else
		bytes = p * (2 + nc * qb +
			     (o->precision == MODEL_FP8 &&
				      cost_fp8_recipe(o, g) == FP8_TENSORWISE
			      ? 2
			      : 0));
	return bytes / (o->hbm_gb_s * 1e6);
}

void
cost_stage_rc(const struct chain *c, const struct cost_opts *o,
	      const struct cost_cfg *g0, const struct place_links *l, int s,
	      int a, int e, const int *rc, struct plan_stage *st)
{
	struct cost_cfg g = *g0;
	const struct runtime *rt;
	double upd, busy, epx = 1;
	int j;

	/* one choice for the whole stage: the uniform rule's figures to
	 * the last bit, whoever asks */
	for (j = a + 1; rc && j <= e && rc[j - a] == rc[0]; j++)
		;
	if (rc && j > e) {
		g.r = rc[0];
		rc = NULL;
	}
	if (!g.rt)
		g.rt = cost_runtime(o, g.sched, g.d);
	rt = g.rt;
	memset(st, 0, sizeof(*st));
	st->first = a;
	st->last = e;
	st->recompute = g.r;
	st->in_flight = cost_in_flight(&g, s);
	st->params = chain_params(c, a, e);
	st->compute_ms = chain_time(c, g.k, PROF_RC_NONE, a, e);
	for (j = a; j <= e; j++)
		st->fwd_ms += CHAIN_AT(c, c->fwd, g.k, j);
	if (rc) {
		busy = mixed_terms(c, &g, l, s, a, e, rc, st);
	} else {
		/* a difference of two prefix sums: where the stage
		 * recomputes nothing, what earlier layers recompute can
		 * leave a rounding residue of either sign (-7e-13 ms), and
		 * the simulator refuses negative times */
		st->recompute_ms = fmax(0, chain_time(c, g.k, g.r, a, e) -
					   st->compute_ms);
		st->tp_ms = cost_tp(c, &g, l, s, a, e);
		st->cp_ms = cost_cp(c, &g, l, s, a, e);
		st->ep_ms = cost_ep(c, &g, l, s, a, e);
		busy = chain_time(c, g.k, g.r, a, e);
	}
	st->tp_ms *= 1 - cost_tp_hidden(o, &g);
	st->p2p_ms = cost_p2p(c, &g, l, s, a, e);
	/* FSDP and offload overlap each layer's own backward */
	st->fsdp_ms = cost_fsdp_rc(c, o, &g, l, s, a, e, rc);
	st->offload_ms = cost_offload_rc(c, o, &g, a, e, rc);
	/* Megatron's interleaved schedule overlaps p2p with the chunks
	 * around it: nothing left to wait for while compute (with the
	 * recomputation) is longer */
	if (rt->p2p_hidden_v && g.v > 1 && st->p2p_ms < busy)
		st->p2p_ms = 0;
	if (runtime_has(rt, RUNTIME_OPT_OVERLAP_MOE_EP_COMM) &&
	    st->ep_ms > 0 && g.m > 0) {
		double u = fmin(1, (double)st->in_flight / g.m), x;
		double ep0 = st->ep_ms;

		x = u * st->ep_ms +
		    (1 - u) * fmin(st->ep_ms, cost_ep_overlap(c, &g, l, s, a,
							     e));
		st->ep_ms = x + cost_contention(o, st->ep_ms - x,
						cost_ep_flex(o, &g)
							? COST_FLEX_SMS
							: COST_NCCL_CTAS);
		epx = fmin(1, st->ep_ms / ep0);
	}
	st->host_ms = host_ms(c, &g, l, s, a, e, rc, epx) +
		      rt->host_ms_per_mb;
	cost_dp_sync_ep(o, &g, l, s, st->params, chain_eparams(c, a, e),
			&st->allreduce_ms, &st->gather_ms);
	upd = (double)st->params;
	if (g.zero) {
		double n = (double)cost_shard_deg(&g);
		double ep = (double)chain_eparams(c, a, e);

		/* the experts' state is sharded over their own ranks */
		upd = (upd - ep) / n + ep / cost_eshard_deg(&g);
	}
	/* LoRA: the adapters' share alone (cost_trained()) */
	st->optimizer_ms = o->hbm_gb_s > 0
			   ? upd * cost_trained(o) * ADAM_BYTES_PER_PARAM /
				     (o->hbm_gb_s * 1e6)
			   : 0;
	if (o->optimizer == PLAN_MUON)
		st->optimizer_ms += muon_ms(c, o, &g, l, s, a, e);
	st->optimizer_ms += weight_cast_ms(c, o, &g, a, e);
	st->sync_sm_ms =
		cost_contention(o, cost_sync_hidden(st, &g), COST_NCCL_CTAS);
	st->in_gb_s = s > 0 ? l->in_gb_s[s] : 0;
	st->ring_gb_s = g.w > 1 ? l->ring_gb_s[s] : 0;
	cost_stage_mem(c, o, &g, s, a, e, rc, st);
}

void
cost_every_rc(const struct chain *c, const struct cost_opts *o, int a,
	      int e, int *rc)
{
	double cut = 0.5; /* fms-fsdp's cut_off */
	int j, k = 0;

	for (j = a; j <= e; j++) {
		int ck = 1;

		if (c->kind[j] != PROF_BLOCK) {
			rc[j - a] = PROF_RC_NONE;
			continue;
		}
		k++;
		if (o->every_n > 0) {
			ck = k % o->every_n == 0;
		} else if (o->every_p > 0) {
			ck = k * o->every_p >= cut;
			if (ck)
				cut += 1;
		}
		rc[j - a] = ck ? PROF_RC_FULL : PROF_RC_NONE;
	}
}

double
cost_stage_ms(const struct plan_stage *st, const struct cost_cfg *g)
{
	double busy = cost_stage_busy(st);
	double ar = (st->allreduce_ms + st->gather_ms + cost_stage_upd_ms(st)) /
		    cost_ar_div(g);

	if (g->sched == PLAN_FLUSH || g->sched == PLAN_GPIPE)
		return busy + ar;
	return busy > ar ? busy : ar;
}

/*
 * cost_tp_lb(): stage s's cost_tp() is n_s (2 (t - 1) / t (x_s / n_s) /
 * bw_s + lat_s), x_s and n_s the bytes and collectives of its layers
 * (at its recomputation, each layer's under a per-layer choice: never
 * fewer than without), so no less than 2 (t - 1) / t x_s / (the fastest
 * stage's link) + n_s (the least latency of any stage); times the share
 * sequence parallelism leaves the runtime at most (cost_tp_hidden()
 * hides none in NVFP4, which g alone cannot tell: a bound all the
 * same).  Rounded down a hair.
 */
void
cost_tp_lb(const struct cost_cfg *g, const struct place_links *l,
	   double *per_byte, double *per_coll)
{
	double bw = 0, lat = INFINITY, keep = 1;
	int s;

	*per_byte = *per_coll = 0;
	if (g->t < 2 || !g->rt)
		return;
	for (s = 0; s < g->d; s++) {
		bw = fmax(bw, l->tp_gb_s[s]);
		lat = fmin(lat, l->tp_lat_us[s]);
	}
	if (g->sp)
		keep = fmax(0, 1 - g->rt->tp_hidden);
	if (!(bw > 0) || !isfinite(bw) || !(lat >= 0) || !isfinite(lat))
		return;
	*per_byte = keep * 2.0 * (g->t - 1) / g->t / (bw * 1e6) * (1 - 1e-9);
	*per_coll = keep * lat * 1e-3 * (1 - 1e-9);
}

/*
 * cost_stages_extra_lb(), from cost_stage_rc():
 *  - tensor parallelism: cost_tp_lb() of each stage's bytes and
 *    collectives, which sum to the chain's (prefix sums);
 *  - the host: each stage's host_ms_per_mb at least (host_ms() is a sum
 *    of non-negative terms);
 *  - the transfers between stages (cost_p2p()), unless interleaving can
 *    hide them (p2p_hidden_v): both stages at a boundary after layer j
 *    send 2 v transfers of layer j's output over the later stage's link,
 *    d - 1 boundaries, each no less than the least output of any layer
 *    but the last over the slowest such link;
 * the rest (context and expert parallelism, FSDP, offload) 0 or more.
 * Rounded down a hair (1e-9) for the sums' rounding.
 */
double
cost_stages_extra_lb(const struct chain *c, const struct cost_cfg *g,
		     const struct place_links *l)
{
	const struct runtime *rt = g->rt;
	double tp = 0, p2p = 0, host, bw, lat, xf = INFINITY;
	double out = INFINITY;
	int s, j;

	if (!rt || g->d < 1)
		return 0;
	cost_tp_lb(g, l, &bw, &lat);
	tp = bw * chain_tp_bytes(c, g->k, PROF_RC_NONE, 0, c->L - 1) +
	     lat * chain_tp_count(c, g->k, PROF_RC_NONE, 0, c->L - 1);
	tp = fmax(0, tp);
	host = fmax(0, rt->host_ms_per_mb) * g->d;
	if (g->d > 1 && !(rt->p2p_hidden_v && g->v > 1)) {
		for (j = 0; j + 1 < c->L; j++)
			out = fmin(out, CHAIN_AT(c, c->out, g->k, j));
		for (s = 1; s < g->d && out >= 0 && isfinite(out); s++)
			xf = fmin(xf, cost_xfer_ms(out / g->t, l->in_gb_s[s],
						   l->in_lat_us[s]));
		if (xf > 0 && isfinite(xf))
			p2p = 4.0 * (g->v > 1 ? g->v : 1) * (g->d - 1) * xf;
	}
	return (tp + host + p2p) * (1 - 1e-9);
}

/* Whether v[s] is v[s - 1] to the bit. */
static int
same_at(const double *v, int s)
{
	return !memcmp(&v[s], &v[s - 1], sizeof(*v));
}

/*
 * cost_stages_sync_lb(): the stages' parameters sum to the chain's, so
 * the stage with the most holds params / d or more, and its reduction
 * (cost_dp_sync_ep(), a sum of collectives each growing with the bytes,
 * over that stage's ring) takes at least that share's on the cheapest
 * ring of any stage.  Experts have their own rings and sharding: 0.
 */
double
cost_stages_sync_lb(const struct chain *c, const struct cost_opts *o,
		    const struct cost_cfg *g, const struct place_links *l)
{
	double least = INFINITY, red, gather;
	int64_t params;
	int s;

	if (g->d < 1 || chain_eparams(c, 0, c->L - 1) > 0)
		return 0;
	params = chain_params(c, 0, c->L - 1) / g->d;
	for (s = 0; s < g->d; s++) {
		/* the reduction reads stage s through its ring's links
		 * alone (and the context-parallel ring's): a stage on the
		 * same links as the last, to the bit, adds the same (most
		 * stages of a grid; capacity's sweep asks 250,000) */
		if (s > 0 && same_at(l->ring_gb_s, s) &&
		    same_at(l->ring_lat_us, s) &&
		    (g->c <= 1 ||
		     (same_at(l->cp_gb_s, s) && same_at(l->cp_lat_us, s))))
			continue;
		cost_dp_sync_ep(o, g, l, s, params, 0, &red, &gather);
		least = fmin(least, red);
	}
	return isfinite(least) ? least : 0;
}
