/*
 * cost.h - the cost model: time and memory of one pipeline stage, the
 * communication each configuration moves, and the iteration time of a
 * whole configuration under the runtime that executes it (design.md
 * sections 5, 9 and 10; pd2bw-plan(1), COST MODEL and RUNTIMES).
 *
 * The pieces live in files named by what they price: comm.c (collectives
 * as NCCL runs them, p2p, tensor- and data-parallel traffic), compute.c
 * (stage compute with host and launch costs), memory.c (bytes per
 * parameter by precision and runtime, stage memory), schedule.c (the
 * closed form of every schedule, and the event simulation that is its
 * reference), runtime.c (what each runtime executes and overlaps).
 *
 * Units: times in ms, sizes in bytes, bandwidths in GB/s (1e9 bytes/s) per
 * direction, latencies in us.
 */
#ifndef PD2BW_COST_H
#define PD2BW_COST_H

#include <math.h>
#include <stdint.h>

#include "pd2bw/chain.h"
#include "pd2bw/plan.h"
#include "pd2bw/place.h"
#include "pd2bw/runtime.h"

/*
 * Bytes per parameter, the memory cap, the precision and the runtimes.
 * A bytes figure < 0 is derived from the precision and the runtime
 * (cost_bytes()); cost_opts_init() sets every figure to "derive".
 */
struct cost_opts {
	double weight_bytes;   /* model weights */
	double grad_bytes;     /* gradient buffer (what is reduced) */
	double opt_bytes;      /* optimizer state incl. fp32 master */
	double version_bytes;  /* 2BW's second weight version */
	double trainable;      /* the parameters trained over the model's
				  (the profile's: LoRA's adapters); 0: all.
				  Scales the gradient, optimizer and version
				  bytes, and adds the adapters' 16-bit
				  weights (cost_bytes()) */
	double cap_bytes;      /* device memory minus the reserve */
	int precision;         /* enum model_prec of the model */
	int fp8_recipe;        /* enum model_fp8 when precision is fp8;
				  -1: each runtime's own (cost_fp8_recipe()) */
	int bf16_most;         /* a quantised model's blocks kept in 16
				  bits at either end, the larger count
				  (analytic_opts bf16_first, _last; 0:
				  none), which not every runtime runs */
	int mixed;             /* linear layers at precisions of their own
				  (analytic_opts site_prec), which
				  Megatron-Core alone runs */
	/* enum runtime_id of every candidate, or -1: the default runtime
	 * of each schedule (runtime_default_for) */
	int runtime;
	struct runtime rts[RUNTIME_N]; /* each runtime with its options */
	double hbm_gb_s;       /* achievable memory bandwidth of the GPU, for
				  the optimizer step; 0 leaves it out */
	double host_gb_s;      /* GPU-host link per direction (PCIe, or
				  NVLink-C2C on Grace systems), for
				  activation offload; 0: none */
	int offload_blocks;    /* activation offload moves the stashes of
				  the model's first this many transformer
				  blocks (Megatron's --cpu-offloading-num-
				  layers); 0: of every layer of a stage
				  but its last */
	int fp8_any_layout;    /* the GPU's per-tensor FP8 GEMMs take either
				  operand layout (Blackwell: the catalog's
				  MXFP8 parts), so one FP8 copy serves
				  (cost_fp8_copies()) */
	int sms;               /* the GPU's streaming multiprocessors, for
				  what NCCL's kernels take from the compute
				  beside them (cost_fsdp()); 0 leaves it
				  out */
	int optimizer;         /* enum plan_optimizer */
	double ns_tflops;      /* the rate of Muon's Newton-Schulz matmuls,
				  the GPU's 16-bit GEMM rate in TFLOP/s (0
				  leaves them out) */
	/* --recompute-every: "full" recomputation means some blocks
	 * only, the other layers none (cost_every_rc()); both 0: every
	 * layer */
	int every_n;           /* > 0: the N-th, 2N-th, ... block */
	double every_p;        /* > 0 (and every_n 0): the fraction p */
};

/*
 * CTAs one NCCL ring collective runs, one per channel, each on an SM of
 * its own: the ring setup duplicates its channels up to MAXCHANNELS, 32
 * (NVIDIA/nccl 2.18, src/graph/connect.cc:396 and, on Hopper across
 * nodes, 410-412; src/include/device.h:54).  NEEDSWORK: NCCL 2.25 raised
 * MAXCHANNELS to 64, and a topology may run fewer rings; the data-parallel
 * and tensor-parallel collectives other runtimes overlap are still
 * priced free of it.
 */
#define COST_NCCL_CTAS 32
/*
 * SMs the flex dispatcher's kernels hold while they run: DeepEP's
 * historical default, which Megatron-Core kept (moe_deepep_num_sms,
 * transformer_config.py:969-971 at d98e8a6).
 */
#define COST_FLEX_SMS 20

/* Every bytes figure derived, runtimes at their defaults, no cap. */
void cost_opts_init(struct cost_opts *o);

struct profile;
struct gpu_spec;
/*
 * Fill o (cost_opts_init'ed) for profile p planned on GPU g (NULL when
 * not in the catalog): the model's precision, the GPU's memory rate for
 * the optimizer step, and the profile's bytes per parameter where they
 * differ from profile_init()'s defaults (a profile that says what its
 * run keeps); the rest is derived per runtime.
 */
void cost_opts_from_profile(struct cost_opts *o, const struct profile *p,
			    const struct gpu_spec *g);

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
	int zero;   /* ZeRO stage: 0 none, 1 optimizer state sharded over
		       the w c data x context-parallel ranks, 2 gradients
		       too, 3 parameters too (FSDP) */
	int sp;     /* sequence parallelism */
	/* what runs it (cost_runtime()); NULL: o's runtime for sched.  A
	 * zeroed struct runtime (sched_mask 0) is neutral: it runs anything,
	 * adds no host cost or memory, and reduces after the last
	 * backward. */
	const struct runtime *rt;
	int c;      /* context-parallel degree (0 or 1: none); the chain
		       holds one rank's s / c tokens */
	int e;      /* expert-parallel degree (0 or 1: none) */
	int etp;    /* expert tensor parallelism: 1 or t (0: t) */
	int offload; /* activations offloaded to host memory */
	int shard;  /* with zero >= 2, shard inside groups of this many
		       data x context-parallel ranks and replicate across
		       (HSDP); 0: all */
};

/* The runtime that runs schedule sched at depth d under o. */
const struct runtime *cost_runtime(const struct cost_opts *o, int sched,
				   int d);

/* The runtime g names, or o's for g's schedule and depth. */
static inline const struct runtime *
cost_cfg_runtime(const struct cost_opts *o, const struct cost_cfg *g)
{
	return g->rt ? g->rt : cost_runtime(o, g->sched, g->d);
}

/* The FP8 recipe g trains with: o's, else its runtime's. */
static inline int
cost_fp8_recipe(const struct cost_opts *o, const struct cost_cfg *g)
{
	return o->fp8_recipe >= 0 ? o->fp8_recipe
				  : cost_cfg_runtime(o, g)->fp8_recipe;
}

/*
 * Non-zero when g keeps its weights in FP8 (NVFP4) alone (Megatron-Core's
 * --fp8-param-gather, --fp4-param-gather): a quantised model under the
 * distributed optimizer or FSDP, a recipe other than FP8 blockwise, the
 * runtime option fp8-param-gather on.
 */
int cost_fp8_params(const struct cost_opts *o, const struct cost_cfg *g);

/*
 * Non-zero when FSDP gathers g's transformer blocks' linear weights in
 * FP8 (torchtitan's enable_fsdp_float8_all_gather): an FP8 model scaled
 * tensorwise under ZeRO-2/3 with more than one data-parallel shard, the
 * runtime option fp8-all-gather on (torchtitan v0.2.2 components/
 * quantization/float8.py:65-69, 85-94).
 */
int cost_fp8_all_gather(const struct cost_opts *o, const struct cost_cfg *g);

/*
 * The share of g's tensor-parallel traffic its runtime hides
 * (runtime.tp_hidden): Transformer Engine's userbuffers act only under
 * sequence parallelism, and carry 16-bit, FP8 and MXFP8 tensors but not
 * NVFP4 ("Unsupported quantizer for Userbuffers", transformer_engine/
 * pytorch/module/base.py:754 at d0067d0; Megatron-Bridge's NVFP4
 * presets switch the overlap off).  0 otherwise.
 */
double cost_tp_hidden(const struct cost_opts *o, const struct cost_cfg *g);

/* Bytes per value of a quantised copy: FP8 1, NVFP4 0.5625 (half a
 * byte and an E4M3 scale per 16 values). */
double cost_quant_bytes(const struct cost_opts *o);

/* The quantised copies an FP8 (NVFP4) model keeps of a weight under g:
 * analytic_fp8_copies() for the GPU (o->fp8_any_layout), the runtime's
 * casts and g's recipe; NVFP4 2. */
int cost_fp8_copies(const struct cost_opts *o, const struct cost_cfg *g);

/* The parameters the optimizer updates over the model's: o's trainable
 * (LoRA's adapters; more than 1 at a rank past the model's own), or 1
 * for all of them (what ZeRO-1/2 gather back after the step). */
double cost_trained(const struct cost_opts *o);
/*
 * Bytes per parameter the optimizer-sharding all-gather moves: the
 * 16-bit weights (fp32 for fp32 models, the quantised copy under
 * cost_fp8_params), without the other copies.
 */
double cost_gather_bytes(const struct cost_opts *o, const struct cost_cfg *g);

/* Bytes per parameter under g (the runtime and precision rules). */
struct cost_bytes {
	double weight, grad, opt, version;
};
void cost_bytes(const struct cost_opts *o, const struct cost_cfg *g,
		struct cost_bytes *b);

/* Microbatches whose stashes stage s of d keeps under schedule sched
 * with m microbatches (design.md section 9). */
static inline int
cost_in_flight_of(int sched, int d, int m, int s)
{
	int n;

	switch (sched) {
	case PLAN_GPIPE:
		return m;
	case PLAN_NONE:
		return 1;
	default:
		n = d - s;
		return n < m ? n : m;
	}
}

static inline int
cost_in_flight(const struct cost_cfg *g, int s)
{
	return cost_in_flight_of(g->sched, g->d, g->m, s);
}

/*
 * Microbatches' worth of stashes (of all the stage's layers) GPU s of d
 * keeps at once under schedule sched with m microbatches and v virtual
 * stages each: cost_in_flight()'s count without interleaving.  Under
 * interleaved 1F1B, its warm-up of 2 (d-s-1) + (v-1) d chunk forwards
 * plus the forward before its first backward, at most all m v chunks,
 * over v: Megatron-Core's get_pp_rank_microbatches()
 * (pipeline_parallel/schedules.py:964-978 at d98e8a6, the group size
 * d by default) and PyTorch's ScheduleInterleaved1F1B (get_rank_warmup_
 * ops: (v-1) d + 2 (d-1-s), capped at m v) alike.  At s = 0 and m > d
 * that is Megatron's estimate d (1 + (d-1)/(d v)); later GPUs keep
 * more than 1F1B's d - s (the last, ((v-1) d + 1) / v), and with m = d
 * the cap leaves GPU 0 m, not d + (d-1)/v.  What the simulator's order
 * holds (sim.c build_interleaved(), stage_peaks()).
 */
static inline double
cost_stash_mbs_of(int sched, int d, int m, int v, int s)
{
	double c;

	if (v <= 1 || sched != PLAN_FLUSH)
		return cost_in_flight_of(sched, d, m, s);
	c = 2.0 * (d - s - 1) + (double)(v - 1) * d + 1;
	if (c > (double)m * v)
		c = (double)m * v;
	return c / v;
}

static inline double
cost_stash_mbs(const struct cost_cfg *g, int s)
{
	return cost_stash_mbs_of(g->sched, g->d, g->m, g->v, s);
}

/*
 * The same for the layers outside the blocks (the embedding on GPU 0,
 * the output layer and the loss on GPU d-1), which sit in one chunk of
 * their GPU, its first on GPU 0, its last on GPU d-1: the most stashes
 * that chunk holds at once.  The forwards run in groups of d microbatches
 * through chunk 0, 1, ... (the last group the m mod d left) and the
 * backwards in the same groups through the chunks in reverse.  GPU d-1
 * runs each forward of its last chunk just before its backward: of its
 * P = min((v-1) d + 1, m v) chunk forwards before the first backward, the
 * last chunk's, one once m > d - 1.  GPU 0 frees none of its first chunk
 * before the next group has been through it: min(m, 2d).  Without
 * interleaving (and on the GPUs between) cost_stash_mbs().  Both as the
 * simulator's order holds them (test_sim).
 */
static inline double
cost_stash_mbs_out(const struct cost_cfg *g, int s)
{
	int d = g->d, m = g->m, v = g->v, G, r;
	double P, c = v - 1;

	if (v <= 1 || g->sched != PLAN_FLUSH || (s != 0 && s != d - 1))
		return cost_stash_mbs(g, s);
	if (s == 0)
		return m < 2 * d ? m : 2 * d;
	P = cost_stash_mbs(g, s) * v;
	G = m / d; /* whole groups */
	r = m - G * d;
	if (P <= (double)G * d * v) {
		double F = floor(P / ((double)d * v)), R = P - F * d * v;

		return F * d + fmin(fmax(R - c * d, 0), d);
	}
	return (double)G * d + fmin(fmax(P - (double)G * d * v - c * r, 0), r);
}

/* Whether layer j of c is outside the transformer blocks (embedding,
 * output layer, loss): cost_stash_mbs_out()'s. */
static inline int
cost_layer_outside(const struct chain *c, int j)
{
	return c->kind && c->kind[j] != PROF_BLOCK;
}

/* Transfer time of bytes over a link: bytes / bandwidth + latency. */
static inline double
cost_xfer_ms(double bytes, double gb_s, double lat_us)
{
	return bytes / (gb_s * 1e6) + lat_us * 1e-3;
}

/* ---- communication (comm.c) ---- */

enum cost_coll {
	COST_ALLREDUCE,
	COST_REDUCE_SCATTER,
	COST_ALLGATHER,
	COST_ALLTOALL,
	COST_SENDRECV
};

/*
 * Time of one collective over n ranks of a buffer of bytes (all-reduce's
 * input, reduce-scatter's input, all-gather's output, all-to-all's send
 * buffer), on a ring whose slowest link runs at gb_s with lat_us per
 * step: bytes per GPU as NCCL moves them (ring all-reduce 2 (n-1)/n,
 * reduce-scatter and all-gather (n-1)/n, all-to-all (n-1)/n) plus a
 * latency per ring step; all-reduce takes the faster of ring and tree
 * (2 log2 n steps, twice the bytes).  0 when n < 2.
 */
double cost_coll_ms(int kind, double bytes, int n, double gb_s,
		    double lat_us);

/*
 * Point-to-point time per microbatch of stage s holding layers [a, e]: the
 * activation received from stage s-1 and its gradient sent back, the
 * activation sent to s+1 and its gradient received.  Under tensor
 * parallelism each of the t GPUs sends its 1/t share (Megatron's
 * scatter-gather); interleaving crosses v boundaries each way.
 */
double cost_p2p(const struct chain *c, const struct cost_cfg *g,
		const struct place_links *l, int s, int a, int e);

/*
 * Tensor-parallel traffic of layers [a, e] per microbatch: all-reduces
 * (or, with sequence parallelism, all-gathers and reduce-scatters of the
 * same volume) of each layer's activation over the group, before any
 * overlap.
 */
double cost_tp(const struct chain *c, const struct cost_cfg *g,
	       const struct place_links *l, int s, int a, int e);

/* Context-parallel degree of g, at least 1. */
static inline int
cost_cp_deg(const struct cost_cfg *g)
{
	return g->c > 1 ? g->c : 1;
}

/* Expert-parallel degree of g, at least 1. */
static inline int
cost_ep_deg(const struct cost_cfg *g)
{
	return g->e > 1 ? g->e : 1;
}

/*
 * Ranks holding the same experts, whose expert gradients are reduced
 * together: w c t / (etp e) (Megatron's expert data parallelism).
 */
static inline int
cost_edp(const struct cost_cfg *g)
{
	int etp = g->etp > 0 ? g->etp : g->t;

	return g->w * cost_cp_deg(g) * (g->t / etp) / cost_ep_deg(g);
}

/*
 * Expert parallelism's all-to-alls of layers [a, e] per microbatch
 * (Megatron-Core's alltoall token dispatcher, or its flex one as
 * place_links_route() prices it; pd2bw-plan(1), RUNTIMES): per MoE
 * block a dispatch and a combine forward, their two conjugates
 * backward, and the forward pair again under full recomputation, each
 * over the e ranks of the expert-parallel group moving (e - 1) / e of
 * the chain's send buffer per GPU; not overlapped.
 */
double cost_ep(const struct chain *c, const struct cost_cfg *g,
	       const struct place_links *l, int s, int a, int e);
/*
 * Non-zero when the all-to-alls are the flex dispatcher's (runtime
 * option flex-dispatcher): g's runtime's, or with g NULL the one runtime
 * every candidate of o runs (0 when that follows the schedule).
 */
int cost_ep_flex(const struct cost_opts *o, const struct cost_cfg *g);
/*
 * What the same all-to-alls leave exposed when Megatron-Core overlaps
 * one microbatch's forward with another's backward, layer by layer
 * (--overlap-moe-expert-parallel-comm; megatron/core/models/common/
 * model_chunk_schedule_plan.py:243-245 at d98e8a6): the backward
 * combine beside the forward's pre-dispatch part (attention, norms),
 * both dispatches beside both MLPs, the forward combine beside the
 * backward's pre-dispatch part; each exposes what its partner does not
 * cover.
 */
double cost_ep_overlap(const struct chain *c, const struct cost_cfg *g,
		       const struct place_links *l, int s, int a, int e);

/*
 * Context parallelism's K/V ring of layers [a, e] per microbatch, the
 * part its attention does not hide (Transformer Engine's
 * AttnFuncWithCPAndKVP2P; pd2bw-plan(1), RUNTIMES).  Each ring step sends
 * the K/V chunk X to the next rank and receives one from the previous,
 * while the attention of the chunk in hand runs (1/c of the layer's
 * attention pass): forward c - 1 steps of X; backward c steps, of X (K/V),
 * 2 X (K/V and the dK/dV travelling back), ..., X (dK/dV); each step
 * exposes max(0, transfer - attention / c).  Recomputing the attention
 * runs the forward ring again.
 */
double cost_cp(const struct chain *c, const struct cost_cfg *g,
	       const struct place_links *l, int s, int a, int e);

/*
 * Data-parallel gradient synchronisation of a stage with params
 * parameters (per GPU) across w replicas, per update: *reduce_ms the
 * all-reduce of the gradient buffer, or with optimizer sharding its
 * reduce-scatter, and *gather_ms the all-gather of the updated 16-bit
 * weights that sharding adds (0 otherwise).
 */
void cost_dp_sync(const struct cost_opts *o, const struct cost_cfg *g,
		  const struct place_links *l, int s, int64_t params,
		  double *reduce_ms, double *gather_ms);
/*
 * The same when eparams of the params are routed experts' under expert
 * parallelism e: their gradients are reduced (and with sharding their
 * state sharded) over the w c / e expert-data-parallel ranks, the rest
 * over the w c data x context-parallel ranks, each in its own buffer
 * (distributed_data_parallel.py:286-291); the times add.
 */
void cost_dp_sync_ep(const struct cost_opts *o, const struct cost_cfg *g,
		     const struct place_links *l, int s, int64_t params,
		     int64_t eparams, double *reduce_ms, double *gather_ms);

/* Ranks of the data x context-parallel group. */
static inline int
cost_dp_ranks(const struct cost_cfg *g)
{
	return g->w * cost_cp_deg(g);
}

/* Ranks the ZeRO stage shards over: the shard group, or all of them. */
static inline int
cost_shard_deg(const struct cost_cfg *g)
{
	int n = cost_dp_ranks(g);

	return g->shard > 0 && g->shard < n ? g->shard : n;
}

/*
 * Ranks the routed experts' state is sharded over under a ZeRO stage: the
 * shard group's w c t / (etp e) ranks that hold the same experts, at
 * least 1 (torchtitan's efsdp mesh, parallel_dims.py:138 at v0.2.2;
 * Megatron's expert data parallelism, cost_edp() without HSDP).
 */
static inline int
cost_eshard_deg(const struct cost_cfg *g)
{
	int etp = g->etp > 0 ? g->etp : g->t, n;

	if (cost_ep_deg(g) < 2)
		return cost_shard_deg(g);
	n = cost_shard_deg(g) * (g->t / (etp > 0 ? etp : 1)) / cost_ep_deg(g);
	return n > 1 ? n : 1;
}

/*
 * FSDP / ZeRO-2 / ZeRO-3 traffic of layers [a, e] per microbatch, the
 * part compute does not hide (pd2bw-plan(1), SHARDING).  Each layer is
 * one unit, as torchtitan and DeepSpeed wrap a transformer block:
 *  - forward (ZeRO-3, or ZeRO-2 where the runtime keeps parameters
 *    sharded): an all-gather of the layer's 16-bit parameters over the
 *    shard group, the next layer's prefetched behind this one's forward;
 *  - backward: ZeRO-3 gathers again (unless the runtime keeps them),
 *    prefetched behind the next backward, and every ZeRO >= 2 layer
 *    reduce-scatters its gradients (in the runtime's reduce dtype) behind
 *    the following backward, plus under HSDP an all-reduce of the shard
 *    over the replicas;
 *  - exposed: the stage's first gather in each direction, per layer what
 *    the traffic in flight takes beyond the compute beside it, and the
 *    last reduction after the last backward;
 *  - hidden is not free: while a collective runs, its COST_NCCL_CTAS
 *    CTAs hold as many of the o->sms SMs, and the compute beside it
 *    runs on the rest, so each hidden millisecond adds COST_NCCL_CTAS /
 *    sms of a millisecond of compute (cost_contention()).
 * Bytes per GPU as NCCL's ring moves them ((n-1)/n of the buffer).
 */
/*
 * What hidden_ms of communication whose kernels hold ctas SMs costs the
 * compute beside it on o's GPU: hidden_ms x ctas / o->sms (0 without an
 * SM count).
 */
double cost_contention(const struct cost_opts *o, double hidden_ms,
		       int ctas);

double cost_fsdp(const struct chain *c, const struct cost_opts *o,
		 const struct cost_cfg *g, const struct place_links *l, int s,
		 int a, int e);
/* The same with per-layer recomputation rc[0..e-a] (NULL: g->r). */
double cost_fsdp_rc(const struct chain *c, const struct cost_opts *o,
		    const struct cost_cfg *g, const struct place_links *l,
		    int s, int a, int e, const int *rc);

/*
 * cost_fsdp()'s share of layer j inside a long stage, without the
 * stage's first gathers and last reduction: what the partition adds up
 * (a lower bound of cost_fsdp() over the layers).
 */
double cost_fsdp_layer(const struct chain *c, const struct cost_opts *o,
		       const struct cost_cfg *g, const struct place_links *l,
		       int s, int j);

/*
 * Activation offload of layers [a, e] per microbatch, the part compute
 * does not hide: every layer but the stage's last (or, with
 * o->offload_blocks, each of the model's first that many blocks) copies
 * its stash to host memory over o->host_gb_s during its forward and back
 * during the backward of the layer after it; each copy exposes what it
 * takes beyond that compute.
 */
double cost_offload(const struct chain *c, const struct cost_opts *o,
		    const struct cost_cfg *g, int a, int e);
/* The same with per-layer recomputation rc[0..e-a] (NULL: g->r). */
double cost_offload_rc(const struct chain *c, const struct cost_opts *o,
		       const struct cost_cfg *g, int a, int e, const int *rc);

/* ---- memory (memory.c) ---- */

/* Bytes per parameter held on a GPU under the configuration. */
double cost_param_bytes(const struct cost_opts *o, const struct cost_cfg *g);
/* A 16-bit block's (--bf16-layers) bytes per parameter at rest beyond a
 * quantised block's: what each of its parameters adds to
 * cost_param_bytes() (negative where it holds less). */
double cost_w16(const struct cost_opts *o, const struct cost_cfg *g);
/*
 * What a parameter Muon manages keeps less than cost_param_bytes() says
 * (<= 0: Adam's second moment, sharded as the state is; 0 under Adam or
 * with the optimizer bytes given).
 */
double cost_muon_delta(const struct cost_opts *o, const struct cost_cfg *g);

/*
 * A stage's memory built up layer by layer, for cost_stage_mem() and for
 * part_solve(), which grows a stage one layer at a time: both sum the
 * same terms, so the partition's memory cap is the final check's.  The
 * sums are of whole bytes (exact in any order).
 */
struct cost_mem {
	/* the configuration's, from cost_mem_init() */
	double weight, state;  /* bytes per parameter at rest */
	double gather, grad;   /* ZeRO-3's window: bytes per gathered
				  parameter, per unsharded gradient (0: none) */
	double gather_blk;     /* ... per gathered block weight (FP8) */
	int keep;              /* the window is the stage's parameters */
	int nosync;            /* ... and the stage's unsharded gradients,
				  grad bytes each (runtime pp_nosync) */
	double ppbufs;         /* the stage's outputs and gradient buffers,
				  in its last layer's p2p message (runtime
				  pp_bufs; cost_mem_stage()) */
	int mbs;               /* microbatches per update */
	int ppv, ppt, ppd;     /* interleave, TP degree, depth */
	/* with EP the routed experts' share of the sharded bytes per
	 * parameter: 1 / cost_eshard_deg() - 1 / the shard group, times the
	 * bytes their ZeRO stage shards (weights, gradients + state) */
	double eweight, eopt, eshare;
	/* Muon: state bytes a parameter it manages saves (Adam's second
	 * moment, sharded as the state is), and a routed expert's more */
	double mdelta, medelta;
	double context, frag;  /* the runtime's context, allocator margin */
	double w16;            /* cost_w16(): a 16-bit block's bytes per
				  parameter at rest beyond a quantised one's */
	int offload;
	int off_blocks;        /* cost_offload_blocks() */
	/* the stage's, from cost_mem_stage() and cost_mem_add() */
	double in_flight;      /* stashes kept (interleaving included) */
	double in_flight_out;  /* ... of the layers outside the blocks */
	int n, last, any_full;
	int64_t params, eparams, mparams;
	int64_t m16;           /* of mparams, the 16-bit blocks' (w16) */
	double big_params, per_mb, peak_full, big_stash, work, last_stash;
	double per_mb_out;     /* the part of per_mb outside the blocks */
	double off_stash, off_big; /* the offloaded blocks': sum, most */
	double last_out;       /* the last layer's output bytes */
	double gathered, big_gathered; /* cost_layer_gather(): sum, most */
};

/*
 * The bytes FSDP gathers of layer j: gather bytes a parameter, blk for a
 * transformer block's dense weights (1 under FP8 all-gather: torchao's
 * Float8Linear; the embedding, the head and the routed experts, grouped
 * GEMMs, stay at gather).  Without the routed experts when own (they
 * gather in a group of their own).
 */
static inline double
cost_layer_gather(const struct chain *c, int j, double gather, double blk,
		  int own)
{
	double pe = (double)c->eparams[j];
	double dense = (double)c->params[j] - pe;

	if (!c->kind || c->kind[j] != PROF_BLOCK)
		blk = gather;
	return dense * blk + (own ? 0 : pe * gather);
}

/* The model's first blocks activation offload moves under o and g:
 * --offload N's, every block but the last under a runtime that counts
 * so (Megatron), or 0: every layer but a stage's last. */
static inline int
cost_offload_blocks(const struct chain *c, const struct cost_opts *o,
		    const struct cost_cfg *g)
{
	if (o->offload_blocks > 0)
		return o->offload_blocks;
	return g->rt && g->rt->offload_blocks && c->nblocks > 1
		       ? c->nblocks - 1
		       : 0;
}

/* Whether activation offload of the model's first n blocks (n > 0)
 * moves layer j's stash. */
static inline int
cost_offloads_block(const struct chain *c, int n, int j)
{
	return c->block_no && c->block_no[j] >= 0 && c->block_no[j] < n;
}

/* The pipelining buffers' bytes (ppbufs, cost_mem_stage()), each a
 * stage output out as the p2p sends it, out / t (comm.c). */
static inline double
cost_mem_pp_bytes(const struct cost_mem *m, double out)
{
	return m->ppbufs * out / m->ppt;
}

/* The memory of a stage layer by layer, in part_solve()'s inner loop:
 * inlined whatever the compiler's size heuristics say (a call there
 * costs the 1024-GPU GPT-3 search 3% of its instructions). */
#define COST_HOT static inline __attribute__((always_inline))

/* The constants of configuration g of chain c into m (no stage yet). */
void cost_mem_init(struct cost_mem *m, const struct chain *c,
		   const struct cost_opts *o, const struct cost_cfg *g);
/* Start stage s of g in m: no layers.  Inline: the partition starts a
 * stage for every memory check it makes. */
COST_HOT void
cost_mem_stage(struct cost_mem *m, const struct cost_cfg *g, int s)
{
	m->in_flight = cost_stash_mbs(g, s);
	m->in_flight_out = cost_stash_mbs_out(g, s);
	/* torch.distributed.pipelining's outputs in flight and gradient
	 * buffers, each chunk's: v (in flight + m) of them, the model's
	 * last chunk none (on GPU d - 1) */
	m->ppbufs = 0;
	if (m->ppd > 1)
		m->ppbufs = (s == m->ppd - 1 ? m->ppv - 1 : m->ppv) *
			    (m->in_flight + m->mbs);
	m->per_mb_out = 0;
	m->n = 0;
	m->last = -1;
	m->any_full = 0;
	m->params = m->eparams = m->mparams = m->m16 = 0;
	m->big_params = m->per_mb = m->peak_full = m->big_stash = 0;
	m->work = m->last_stash = m->last_out = 0;
	m->off_stash = m->off_big = 0;
	m->gathered = m->big_gathered = 0;
}

/* Add layer j at microbatch index k under recomputation r, in any order. */
COST_HOT void
cost_mem_add(struct cost_mem *m, const struct chain *c, int k, int j, int r)
{
	double full = CHAIN_AT(c, c->stash[PROF_RC_NONE], k, j);
	double st = CHAIN_AT(c, c->stash[r], k, j);
	double wk = CHAIN_AT(c, c->work, k, j);

	m->n++;
	m->params += c->params[j];
	m->eparams += c->eparams[j];
	if (m->mdelta < 0)
		m->mparams += c->mparams[j];
	if (m->w16 != 0 && c->p16)
		m->m16 += c->p16[j];
	if ((double)c->params[j] > m->big_params)
		m->big_params = (double)c->params[j];
	if (m->gather > 0) {
		double gb = cost_layer_gather(c, j, m->gather, m->gather_blk,
					      0);

		m->gathered += gb;
		if (gb > m->big_gathered)
			m->big_gathered = gb;
	}
	m->per_mb += st;
	if (cost_layer_outside(c, j))
		m->per_mb_out += st;
	/* only a layer whose full recomputation reruns it rebuilds its
	 * activations in backward (not an embedding or head) */
	if (chain_full_reruns(c, k, j)) {
		m->any_full |= r == PROF_RC_FULL;
		if (full > m->peak_full)
			m->peak_full = full;
	}
	if (st > m->big_stash)
		m->big_stash = st;
	if (wk > m->work)
		m->work = wk;
	if (j > m->last) {
		m->last = j;
		m->last_stash = st;
		m->last_out = CHAIN_AT(c, c->out, k, j);
	}
	if (m->off_blocks > 0 && cost_offloads_block(c, m->off_blocks, j)) {
		m->off_stash += st;
		if (st > m->off_big)
			m->off_big = st;
	}
}

/*
 * The stage's memory: fills st's weight, state, stash, work, runtime and
 * mem bytes and returns mem_bytes.  Inline: part_solve() asks it for
 * every stage it tries.
 */
COST_HOT int64_t
cost_mem_bytes(const struct cost_mem *m, struct plan_stage *st)
{
	double params = (double)m->params, per_mb = m->per_mb, window = 0;

	if (m->gather > 0)
		window = (m->keep ? m->gathered : 2 * m->big_gathered) +
			 (m->nosync ? 0 : m->big_params * m->grad);
	if (m->nosync)
		window += params * m->grad;
	/* offloaded: the last layer's stash and one in transit, or with
	 * some blocks offloaded what the others hold and one in transit
	 * (Transformer Engine's cpu_offload.py: (layers - offloaded) x a
	 * layer's activations) */
	if (m->offload && m->off_blocks > 0)
		per_mb = m->per_mb - m->off_stash + m->off_big;
	else if (m->offload && m->n > 1)
		per_mb = m->last_stash + m->big_stash;
	st->weight_bytes = (int64_t)(params * m->weight + window);
	if (m->m16)
		st->weight_bytes += (int64_t)((double)m->m16 * m->w16);
	st->state_bytes = (int64_t)(params * m->state);
	if (m->eopt > 0)
		st->state_bytes += (int64_t)((double)m->eparams * m->eopt *
					     m->eshare);
	if (m->mdelta < 0)
		st->state_bytes += (int64_t)((double)m->mparams * m->mdelta +
					     (double)m->eparams * m->medelta);
	if (m->eweight > 0)
		st->weight_bytes += (int64_t)((double)m->eparams *
					      m->eweight * m->eshare);
	/* Under full recomputation one layer's activations are rebuilt at a
	 * time during backward: add the stage's largest once (lp.c's rule). */
	st->stash_bytes = (int64_t)(m->in_flight * per_mb +
				    (m->any_full ? m->peak_full : 0) +
				    cost_mem_pp_bytes(m, m->last_out) +
				    (m->offload && !(m->off_blocks > 0)
					     ? 0
					     : (m->in_flight_out - m->in_flight) *
						       m->per_mb_out));
	st->work_bytes = (int64_t)m->work;
	st->runtime_bytes = (int64_t)(m->context +
				      m->frag * (double)(st->stash_bytes +
							 st->work_bytes));
	st->mem_bytes = st->weight_bytes + st->state_bytes + st->stash_bytes +
			st->work_bytes + st->runtime_bytes;
	return st->mem_bytes;
}

/*
 * The pipelining buffers of stage s ending at layer e under g
 * (cost_mem_stage()'s ppbufs, in bytes; 0 but for a runtime with
 * pp_bufs over several stages), before the allocator margin.
 */
double cost_pp_bufs(const struct chain *c, const struct cost_opts *o,
		    const struct cost_cfg *g, int s, int e);

/*
 * Memory of stage s = [a, e] into st (weight, state, stash, work, mem
 * bytes), with per-layer recomputation rc[0..e-a] (NULL: g->r for all).
 * Adds the runtime's context and allocator margin.
 */
void cost_stage_mem(const struct chain *c, const struct cost_opts *o,
		    const struct cost_cfg *g, int s, int a, int e,
		    const int *rc, struct plan_stage *st);

/* ---- compute and the stage (compute.c) ---- */

/*
 * Fill st for stage s holding layers [a, e]: times, link bandwidths and
 * memory.  st->mem_bytes may exceed o->cap_bytes (the caller checks).
 */
void cost_stage(const struct chain *c, const struct cost_opts *o,
		const struct cost_cfg *g, const struct place_links *l, int s,
		int a, int e, struct plan_stage *st);
/*
 * The same with per-layer recomputation rc[0..e-a] (NULL: g->r for all):
 * the one rule for the search's per-layer refinement and for evaluating a
 * written plan.  Every term a layer's choice changes follows it (the
 * extra forward, the all-reduces, rings and all-to-alls it repeats, what
 * hides p2p, the host's slack, FSDP, offload, memory); st->recompute is
 * PLAN_RC_MIXED when the layers differ.  When they do not, the figures
 * are cost_stage()'s under that choice, bit for bit.
 */
void cost_stage_rc(const struct chain *c, const struct cost_opts *o,
		   const struct cost_cfg *g, const struct place_links *l,
		   int s, int a, int e, const int *rc,
		   struct plan_stage *st);

/* Whether o recomputes only some blocks (--recompute-every). */
static inline int
cost_every_on(const struct cost_opts *o)
{
	return o->every_n > 0 || o->every_p > 0;
}
/*
 * The blocks a runtime checkpoints when it wraps only some of them, as
 * rc[0..e-a] for the layers [a, e] one rank holds: PROF_RC_FULL for those
 * it recomputes, PROF_RC_NONE for every other layer (embedding and head
 * too).  The blocks are counted k = 1, 2, ... over the rank's own, in
 * model order, as both runtimes count the blocks they wrap:
 *  - every_n N: k % N == 0 (torchtitan's selective_ac_option = "N",
 *    distributed/activation_checkpoint.py:24-49 at v0.2.2: one counter
 *    per process, carried across the rank's model parts,
 *    pipeline_parallel.py:136-138);
 *  - every_p p: k when k p >= c + 1/2, c the blocks checkpointed before
 *    it (fms-fsdp's selective_checkpointing = p, fms_fsdp/policies/
 *    ac_handler.py:43-58 at 5a296af: 1/2 wraps blocks 1, 3, 5, ...),
 *    in the same double arithmetic.
 * With neither set, every block.
 */
void cost_every_rc(const struct chain *c, const struct cost_opts *o, int a,
		   int e, int *rc);

/*
 * Per-microbatch time the stage keeps its GPU busy: compute,
 * recomputation, exposed tensor-parallel traffic, p2p and host costs.
 */
static inline double
cost_stage_busy(const struct plan_stage *st)
{
	return st->compute_ms + st->recompute_ms + st->tp_ms + st->p2p_ms +
	       st->host_ms + st->cp_ms + st->ep_ms + st->fsdp_ms +
	       st->offload_ms;
}

/* What stage st's compute stream spends once an update after its last
 * backward: the optimizer step and what the hidden data-parallel
 * collectives' SMs took (the simulator's opt_ms). */
static inline double
cost_stage_upd_ms(const struct plan_stage *st)
{
	return st->optimizer_ms + st->sync_sm_ms;
}

/*
 * What any stages of g (d contiguous ranges covering the chain, each
 * cost_stage_rc()'s under links l, whatever their recomputation) add to
 * their compute and recomputation (cost_stage_busy() less compute_ms and
 * recompute_ms), summed over the stages, at least: the tensor-parallel
 * traffic, the host's fixed cost per stage, and the transfers between
 * stages where interleaving does not hide them (0: nothing known).
 */
double cost_stages_extra_lb(const struct chain *c, const struct cost_cfg *g,
			    const struct place_links *l);
/*
 * Per byte and per collective of a stage's layers' tensor-parallel
 * traffic without recomputation (chain_tp_bytes(), chain_tp_count()),
 * what any stage of g under links l pays at least in tp_ms (0, 0 when
 * t < 2 or nothing is known).
 */
void cost_tp_lb(const struct cost_cfg *g, const struct place_links *l,
		double *per_byte, double *per_coll);
/*
 * A reduction time (allreduce_ms) the stage with the most parameters of
 * any such stages takes at least, where no layer holds experts (else 0).
 */
double cost_stages_sync_lb(const struct chain *c, const struct cost_opts *o,
			   const struct cost_cfg *g,
			   const struct place_links *l);

/*
 * The partition's objective for one stage, per microbatch.  2bw (and
 * none) overlap the synchronisation with the next update's work: max(busy,
 * sync / m).  The others add sync / (m + (d-1)/v), the bound of their
 * iteration time / (m + (d-1)/v) when nothing hides it.
 */
double cost_stage_ms(const struct plan_stage *st, const struct cost_cfg *g);

/* The divisor of the synchronisation in cost_stage_ms(). */
static inline double
cost_ar_div(const struct cost_cfg *g)
{
	if (g->sched == PLAN_FLUSH || g->sched == PLAN_GPIPE)
		return g->m + (double)(g->d - 1) / g->v;
	return g->m;
}

/* ---- schedule (schedule.c) ---- */

/*
 * The data-parallel communication of stage st that compute hides, ms per
 * update: of its bucketed reduction (RUNTIME_SYNC_LAST_BWD) what runs
 * while its chunks' last backwards still compute, (1 - the last bucket's
 * share) of it within the span from the first chunk's last backward to
 * the stage's end; and of the sharded weights' all-gather what the next
 * forward hides (overlap-param-gather).  The closed form and the
 * simulator expose the rest.  0 for 2bw, whose reduction the next
 * update's microbatches hide (its SMs not priced).
 */
double cost_sync_hidden(const struct plan_stage *st, const struct cost_cfg *g);

/*
 * Iteration time of the configuration whose stages are st[0..d) in closed
 * form, with the per-term breakdown of its slowest stage (or of all stages
 * for PLAN_NONE).  Exact against cost_simulate() when every stage has the
 * same busy, forward and backward times (tests/unit/test_schedule.c);
 * otherwise the screen the search ranks with.  Returns ms.
 */
double cost_iteration(const struct plan_stage *st, const struct cost_cfg *g,
		      struct plan_terms *terms);

struct sim;
/*
 * Past cost_sim_long x d microbatches (default 64) cost_simulate() runs
 * 32 d and 33 d microbatches and extrapolates the steady state; tests
 * set it higher to compare with the whole run.
 */
extern int cost_sim_long;

/*
 * Simulate the configuration event by event (sim.c) with the same
 * semantics: per-stage forward and backward shares from the chain at
 * microbatch index g->k, each stage's synchronisation overlapped as its
 * runtime does.  Fills sm (sim_release() it) and, when terms is not NULL,
 * the breakdown with the simulated bubble and exposed synchronisation.
 * Returns the iteration time in ms, or -1 on error.
 */
double cost_simulate(const struct chain *c, const struct plan_stage *st,
		     const struct cost_cfg *g, struct sim *sm,
		     struct plan_terms *terms);

struct sim_mem;
/* cost_simulate() in mem's scratch space kept between calls (NULL: its
 * own; see cost_simulate_time()). */
double cost_simulate_mem(const struct chain *c, const struct plan_stage *st,
			 const struct cost_cfg *g, struct sim *sm,
			 struct plan_terms *terms, struct sim_mem *mem);

/*
 * cost_simulate()'s iteration time alone, bit for bit, without keeping
 * the operations, in mem's scratch space kept between calls (NULL: its
 * own): the search re-scores its best with it.  Returns ms, or -1 on
 * error.
 */
double cost_simulate_time(const struct chain *c, const struct plan_stage *st,
			  const struct cost_cfg *g, struct sim_mem *mem);

/*
 * What cost_simulate_time_cut() asks of a long run (one it extrapolates
 * from two shorter ones) before the second of them: whether floor_ms, a
 * time the run is no shorter than, is enough to leave it out (nonzero).
 * The search asks whether topk other alternatives are faster.
 */
struct cost_cut {
	int (*enough)(void *arg, double floor_ms);
	void *arg;
};

/*
 * cost_simulate_time(), or for a long run, when cut->enough() takes the
 * floor found after its first shorter run (cost_simulate_floor()'s of the
 * second, extrapolated as the run's time is from it), that floor instead
 * of the time, *floored then set (else cleared).  Returns ms, or -1 on
 * error.
 */
double cost_simulate_time_cut(const struct chain *c,
			      const struct plan_stage *st,
			      const struct cost_cfg *g, struct sim_mem *mem,
			      const struct cost_cut *cut, int *floored);

/*
 * A time cost_simulate()'s iteration of stages st is no shorter than,
 * without simulating: every stage runs its m forwards, recomputations and
 * backwards one after the other, after the stages before it forwarded
 * the first microbatch and before they take its last backward, then
 * the reduction's, the optimizer step's and the all-gather's part that
 * follows a last backward (tail_of() in schedule.c; 2bw,
 * whose stage 0's updates it measures: per update the largest over s of
 * stage s's work, less s microbatches of it, plus a microbatch of each
 * stage before it, for m >= d - 1, else 0), less a relative 1e-8 for the
 * rounding of the simulation's sums; 0 for a long run, which it
 * extrapolates.  The search skips re-scoring an alternative whose floor
 * is above the times of enough others (test_schedule holds it below the
 * simulation).
 */
double cost_simulate_floor(const struct plan_stage *st,
			   const struct cost_cfg *g);

/*
 * A time cost_simulate_floor() of any stages of configuration g is no
 * lower than (for a long run, whose floor is 0: the simulated time,
 * which tests/unit/test_schedule.c holds it below), knowing of them only
 * that their forwards, recomputations and backwards (durations() in
 * schedule.c: compute, recomputation and the exposed transfers) sum to
 * all_ms or more, and that one stage's are max_ms or more (its slowest
 * layer's).  Unlike the closed form's (m + (d - 1) / v) times the even
 * share, which unequal stages' simulation can beat (one microbatch
 * through stages of 10, 1 and 1 ms takes 12 ms, not 30), it bounds the
 * simulation: what the search holds a candidate it has not partitioned
 * against to leave it unsimulated.  The schedule, d, m and v read from
 * g; 0 when it knows nothing.
 */
double cost_simulate_lb(const struct cost_cfg *g, double all_ms,
			double max_ms);

/*
 * cost_simulate_lb() in two parts: what it reads of g (the schedule, d, m
 * and v) into f, once, and cost_simulate_lb_at() of f, the same number
 * to the bit for any all_ms and max_ms (the search asks many chains and
 * microbatch sizes of one d, m and v).
 */
struct cost_sim_lb {
	double a;   /* the last stage's floor factor (0: nothing known) */
	double den; /* the equalised stages' divisor of all_ms */
};

void cost_simulate_lb_factors(const struct cost_cfg *g,
			      struct cost_sim_lb *f);
double cost_simulate_lb_at(const struct cost_sim_lb *f, double all_ms,
			   double max_ms);

/*
 * The same knowing only that one stage's forwards, recomputations and
 * backwards take t ms or more: this factor times t (0: nothing known).
 */
double cost_simulate_stage_lb(const struct cost_cfg *g);

/*
 * A time the simulation of any stages of configuration g (not 2bw, not a
 * long run) is no shorter than, knowing only that their forwards
 * (durations() in schedule.c) sum to fwd_ms or more and one of them
 * reduces its gradients for red_ms or more (its allreduce_ms): fwd_ms +
 * red_ms, the last microbatch through every stage, then the reduction
 * (0 when it knows nothing).
 */
double cost_simulate_sync_lb(const struct cost_cfg *g, double fwd_ms,
			     double red_ms);

/*
 * Whether some partition of layers 0..L-1 into g->d contiguous stages
 * (g->v 1) might have a cost_simulate_floor() (for a long run, a
 * simulated time) below bound, knowing of each stage only that its
 * forwards, recomputations and backwards take no less than its layers'
 * compute, pre[e + 1] - pre[a] for layers a..e (pre: L + 1 prefix
 * sums, chain_time()'s).  0: none can; 1: some might (always with
 * interleaving, whose ranks hold layers apart).
 */
int cost_simulate_lb_fits(const struct cost_cfg *g, const double *pre, int L,
			  double bound);

/*
 * The same answer as cost_simulate_lb_fits(), to the bit, in O(d log L)
 * instead of O(L): for prefix sums that never go down (pre[j] <= pre[j +
 * 1], no NaN), which the caller knows.
 */
int cost_simulate_lb_fits_up(const struct cost_cfg *g, const double *pre,
			     int L, double bound);

/*
 * What recomputing adds to a stage's compute at least, in prefix sums:
 * for layers a..e at stage s, with left = room - pb (params[e + 1] -
 * params[a]), max(0, phi[e + 1] - phi[a] - per[s] max(left, 0)), or
 * INFINITY when left < -1e-6 |room| (the stage cannot fit).  It grows as
 * the stage takes a layer on either end (phi and params non-decreasing,
 * pb >= 0) and shrinks with s (per non-negative, non-decreasing in s);
 * lp_rc_phi() and lp_rc_row() fill it for the choices lp_stage() makes.
 */
struct cost_rc_lb {
	const double *phi;      /* [L + 1] */
	const int64_t *params;  /* [L + 1]: the chain's pre_params */
	const double *per;      /* [d] */
	double pb, room;
};

/*
 * cost_simulate_lb_fits() with each stage's compute raised by what rl
 * says its recomputation adds (rl NULL: nothing).
 */
int cost_simulate_lb_fits_rc(const struct cost_cfg *g, const double *pre,
			     int L, double bound,
			     const struct cost_rc_lb *rl);

/*
 * cost_simulate_mem()'s iteration time and breakdown (terms, not NULL),
 * bit for bit, keeping of the operations only the few the breakdown reads
 * (no sim to release): a search's chosen plan is reported with it.
 * Returns ms, or -1 on error.
 */
double cost_simulate_terms(const struct chain *c, const struct plan_stage *st,
			   const struct cost_cfg *g, struct plan_terms *terms,
			   struct sim_mem *mem);

/*
 * The configuration plan p (made from chain c) runs: its shape, the index
 * of its microbatch in c, and its runtime, parsed from the plan into rt
 * (o's default for the schedule when the plan names none).  Returns 0, or
 * -1 when the plan's microbatch is not in c.
 */
int cost_cfg_of_plan(const struct plan *p, const struct chain *c,
		     const struct cost_opts *o, struct runtime *rt,
		     struct cost_cfg *g);

#endif
