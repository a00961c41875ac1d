/*
 * memory.c - what a GPU holds: bytes per parameter by precision and
 * runtime, and a stage's weights, gradients, optimizer state, activation
 * stash, workspace, and the runtime's own context and allocator margin.
 *
 * Bytes per parameter (design.md section 9), unless given:
 *  - weights: 2 in 16-bit; 4 for fp32 models; FP8 models keep the 16-bit
 *    weights plus an FP8 copy and its transpose (Transformer Engine caches
 *    both across microbatches): 4.
 *  - gradients: the buffer the runtime accumulates and reduces in.
 *    Megatron-Core accumulates and reduces bf16 models' gradients in fp32
 *    (megatron/training/arguments.py:1204-1216, grad-reduce-fp32 on) and
 *    keeps fp16 models' in 16-bit; torchtitan reduces in fp32
 *    (mixed_precision_reduce "float32"); PyTorch AMP (pytorch-ddp) keeps
 *    fp32 parameters and gradients; fp32 models 4; otherwise 2.
 *  - optimizer: Adam's fp32 m and v plus the fp32 master weights, 12; 8
 *    when the weights themselves are fp32 (fp32 models, PyTorch AMP).
 *  - 2BW's second weight version: 4 (the authors' runtime keeps an fp32
 *    master copy).
 *
 * ZeRO stages divide by the shard group (the data x context-parallel
 * ranks, or HSDP's group): 1 the optimizer state, 2 the gradients too,
 * 3 the weights too.  ZeRO-3 then holds the gathered 16-bit parameters
 * of the layer computing and of the one prefetched, and the layer's
 * unsharded gradient before its reduce-scatter: FSDP2 frees a layer's
 * gathered parameters after its forward and backward and prefetches one
 * layer ahead (torch FSDP2's implicit prefetching; DeepSpeed stage 3
 * bounds the same window by stage3_prefetch_bucket_size, zero/config.py:
 * 208); when the runtime keeps them from forward to backward (torchtitan
 * under a pipeline, distributed/fsdp.py:128-132) the stage's parameters
 * stay gathered, and, ZeRO-2 or 3, the stage's whole gradients in the
 * reduce dtype until the last microbatch (runtime pp_nosync).
 * Activation offload keeps on the GPU the stage's last layer's stash
 * (used at once by the backward) and one layer in transit.
 */
#include <string.h>

#include "pd2bw/analytic.h"
#include "pd2bw/catalog.h"
#include "pd2bw/profile.h"

#include "pd2bw/cost.h"
#include "pd2bw/model.h"

void
cost_opts_init(struct cost_opts *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->weight_bytes = o->grad_bytes = o->opt_bytes = o->version_bytes = -1;
	o->cap_bytes = 1e300;
	o->precision = MODEL_BF16;
	o->fp8_recipe = FP8_DELAYED;
	o->runtime = -1;
	for (i = 0; i < RUNTIME_N; i++)
		runtime_init(&o->rts[i], i);
}

const struct runtime *
cost_runtime(const struct cost_opts *o, int sched, int d)
{
	int id = o->runtime >= 0 ? o->runtime : runtime_default_for(sched, d);

	return &o->rts[id];
}

/*
 * torchtitan keeps no 16-bit weights at rest: its parameters are fp32,
 * the optimizer's master itself (the model is built and initialised in
 * fp32, train.py; FSDP2's MixedPrecisionPolicy casts to bf16 only in
 * its all-gather, distributed/fsdp.py at v0.2.2, and without FSDP
 * autocast casts each layer's weights as it runs), counted with the
 * optimizer state (12 bytes: fp32 weight, m, v); nor FP8 copies:
 * torchao's Float8Linear casts its weight in each forward, or FSDP2
 * gathers it as FP8.  What remains is the gathered copy: per layer
 * under ZeRO-3 (the gather bytes, cost_mem_init()), the whole stage's
 * from forward to backward under ZeRO-2 (fsdp_reshard_after_forward
 * "never"), in bf16 or, gathered as FP8, one byte.
 */
static double
torchtitan_weight(const struct cost_opts *o, const struct cost_cfg *g)
{
	if (g->zero != 2)
		return 0;
	if (o->precision == MODEL_FP32)
		return 4;
	return cost_fp8_all_gather(o, g) ? 1 : 2;
}

void
cost_bytes(const struct cost_opts *o, const struct cost_cfg *g,
	   struct cost_bytes *b)
{
	const struct runtime *rt = cost_cfg_runtime(o, g);
	int fp32 = o->precision == MODEL_FP32;
	int amp = rt->id == RUNTIME_PYTORCH_DDP;
	double grad = 2;

	if (fp32 || amp)
		grad = 4;
	else if (rt->id == RUNTIME_MEGATRON_CORE &&
		 o->precision != MODEL_FP16 &&
		 runtime_has(rt, RUNTIME_OPT_GRAD_REDUCE_FP32))
		grad = 4;
	else if (rt->id == RUNTIME_TORCHTITAN)
		grad = 4;
	/* FP8: the 16-bit weights and Transformer Engine's FP8 copy and
	 * its transpose (or MXFP8's columnwise copy; cost_fp8_copies());
	 * FP8 parameters keep the quantised copies alone.  NVFP4 alike,
	 * each copy half a byte and an E4M3 scale per 16 values (its
	 * weights' 16 x 16 blocks: less) */
	b->weight = o->weight_bytes >= 0 ? o->weight_bytes
		    : rt->id == RUNTIME_TORCHTITAN ? torchtitan_weight(o, g)
		    : cost_fp8_params(o, g) ? cost_fp8_copies(o, g) *
						     cost_quant_bytes(o)
		    : fp32 || amp ? 4
		    : model_prec_quantised(o->precision)
			    ? 2 + cost_fp8_copies(o, g) *
					  cost_quant_bytes(o)
			    : 2;
	b->grad = o->grad_bytes >= 0 ? o->grad_bytes : grad;
	b->opt = o->opt_bytes >= 0 ? o->opt_bytes : fp32 || amp ? 8 : 12;
	b->version = o->version_bytes >= 0 ? o->version_bytes : 4;
	/* LoRA: the frozen model keeps its weights alone; its adapters,
	 * trainable x its parameters, take 16-bit weights, gradients,
	 * optimizer state and 2BW's versions (the figures given are per
	 * trained parameter) */
	if (o->trainable > 0) {
		b->weight += 2 * cost_trained(o);
		b->grad *= cost_trained(o);
		b->opt *= cost_trained(o);
		b->version *= cost_trained(o);
	}
}

double
cost_trained(const struct cost_opts *o)
{
	return o->trainable > 0 ? o->trainable : 1;
}

/* Bytes per value of a quantised weight or activation copy. */
double
cost_quant_bytes(const struct cost_opts *o)
{
	return model_prec_quant_bytes(o->precision);
}

int
cost_fp8_copies(const struct cost_opts *o, const struct cost_cfg *g)
{
	if (o->precision != MODEL_FP8)
		return 2;
	return analytic_fp8_copies(o->fp8_any_layout,
				   cost_cfg_runtime(o, g)->fp8_casts,
				   cost_fp8_recipe(o, g));
}

/*
 * --fp8-param-gather needs the distributed optimizer or FSDP
 * (NVIDIA/Megatron-LM megatron/training/arguments.py:1095-1097); NeMo's
 * and Megatron-Bridge's FP8 presets switch it on but for blockwise
 * scaling (NeMo recipes/precision/mixed_precision.py:70, 101, 137, 215;
 * Megatron-Bridge training/mixed_precision.py:231, 264, 302, 384).
 */
int
cost_fp8_params(const struct cost_opts *o, const struct cost_cfg *g)
{
	return model_prec_quantised(o->precision) &&
	       (o->precision == MODEL_NVFP4 ||
		cost_fp8_recipe(o, g) != FP8_BLOCKWISE) &&
	       g->zero &&
	       runtime_has(cost_cfg_runtime(o, g), RUNTIME_OPT_FP8_PARAM_GATHER);
}

/*
 * torchao's Float8Linear casts its weight to FP8 before FSDP2 gathers it
 * when the converter is built without a recipe name (tensorwise), the
 * option is on and the data-parallel shard degree is over 1 (float8.py:
 * 65-69, 85-94 at v0.2.2): dp_shard, torchtitan's FSDP mesh without its
 * context-parallel ranks (parallel_dims.py:137).
 */
int
cost_fp8_all_gather(const struct cost_opts *o, const struct cost_cfg *g)
{
	return o->precision == MODEL_FP8 &&
	       cost_fp8_recipe(o, g) == FP8_TENSORWISE &&
	       g->zero >= 2 && cost_shard_deg(g) / cost_cp_deg(g) > 1 &&
	       runtime_has(cost_cfg_runtime(o, g), RUNTIME_OPT_FP8_ALL_GATHER);
}

double
cost_gather_bytes(const struct cost_opts *o, const struct cost_cfg *g)
{
	if (o->precision == MODEL_FP32)
		return 4;
	return cost_fp8_params(o, g) ? cost_quant_bytes(o) : 2;
}

/* The ranks the optimizer state is sharded over: data x context
 * parallelism (Megatron's distributed optimizer, intra_dp_cp_group), or
 * HSDP's shard group. */
static double
zero_ranks(const struct cost_cfg *g)
{
	return (double)cost_shard_deg(g);
}

/* Bytes per parameter at rest: weights (+ 2BW's version), and gradients
 * + optimizer state, under g's ZeRO stage. */
static void
rest_bytes(const struct cost_bytes *b, const struct cost_cfg *g,
	   double *weight, double *state)
{
	double n = zero_ranks(g);

	*weight = b->weight + (g->sched == PLAN_2BW ? b->version : 0);
	if (g->zero >= 3)
		*weight /= n;
	*state = (g->zero >= 2 ? b->grad / n : b->grad) +
		 (g->zero ? b->opt / n : b->opt);
}

/*
 * What a block a quantised model keeps in 16 bits (--bf16-layers) holds
 * at rest per parameter beyond one of its quantised blocks: its 16-bit
 * weights (torchtitan's only where ZeRO-2 keeps them gathered) where the
 * quantised blocks hold 16-bit weights and their quantised copies, or
 * the quantised copies alone (FP8 or NVFP4 parameters); sharded as the
 * weights are.  0 for a 16-bit model, or weight bytes given.
 */
double
cost_w16(const struct cost_opts *o, const struct cost_cfg *g)
{
	const struct runtime *rt = cost_cfg_runtime(o, g);
	struct cost_bytes b;
	double w16, d;

	if (!model_prec_quantised(o->precision) || o->weight_bytes >= 0)
		return 0;
	cost_bytes(o, g, &b);
	w16 = rt->id == RUNTIME_TORCHTITAN ? (g->zero == 2 ? 2 : 0) : 2;
	if (o->trainable > 0)
		w16 += 2 * cost_trained(o);
	d = w16 - b.weight;
	return g->zero >= 3 ? d / zero_ranks(g) : d;
}

double
cost_param_bytes(const struct cost_opts *o, const struct cost_cfg *g)
{
	struct cost_bytes b;
	double w, st;

	cost_bytes(o, g, &b);
	rest_bytes(&b, g, &w, &st);
	return w + st;
}

/* Muon keeps one moment where Adam keeps two: 4 bytes less for each
 * parameter it manages, unless the bytes were given. */
double
cost_muon_delta(const struct cost_opts *o, const struct cost_cfg *g)
{
	if (o->optimizer != PLAN_MUON || o->opt_bytes >= 0)
		return 0;
	return -4.0 / (g->zero ? zero_ranks(g) : 1);
}

void
cost_mem_init(struct cost_mem *m, const struct chain *c,
	      const struct cost_opts *o, const struct cost_cfg *g)
{
	const struct runtime *rt = cost_cfg_runtime(o, g);
	struct cost_bytes b;

	memset(m, 0, sizeof(*m));
	cost_bytes(o, g, &b);
	rest_bytes(&b, g, &m->weight, &m->state);
	/* ZeRO-3's gathered parameters and unsharded gradient (see above) */
	if (g->zero >= 3 && zero_ranks(g) >= 2) {
		m->gather = cost_gather_bytes(o, g);
		m->gather_blk = cost_fp8_all_gather(o, g) ? 1 : m->gather;
		m->grad = b.grad;
		m->keep = rt->zero3_keep_pp && g->d > 1;
	}
	/* gradients reduced after the last microbatch alone: the stage's
	 * whole gradients at the reduce bytes until then, ZeRO-2 or 3 */
	if (rt->pp_nosync && g->d > 1 && g->zero >= 2 && zero_ranks(g) >= 2) {
		m->nosync = 1;
		m->grad = b.grad;
	}
	/* the routed experts' sharded bytes are sharded over the ranks
	 * that hold the same experts, not over the whole shard group: the
	 * optimizer state (ZeRO-1), the gradients too (ZeRO-2), the
	 * weights too (ZeRO-3; torchtitan's fully_shard of moe.experts on
	 * the efsdp mesh, models/llama4/infra/parallelize.py:385-409 at
	 * v0.2.2; Megatron-FSDP's expt_dp_group) */
	if (g->zero && cost_ep_deg(g) > 1) {
		m->eopt = b.opt + (g->zero >= 2 ? b.grad : 0);
		m->eweight = g->zero >= 3 ? b.weight : 0;
		m->eshare = 1.0 / cost_eshard_deg(g) - 1.0 / zero_ranks(g);
	}
	m->mdelta = cost_muon_delta(o, g);
	m->w16 = c && c->pre_m16 && c->pre_m16[c->L] > 0 ? cost_w16(o, g) : 0;
	m->medelta = m->mdelta < 0 && m->eshare != 0 ? -4.0 * m->eshare : 0;
	/* torch.distributed.pipelining's buffers (cost_mem_stage(),
	 * cost_mem_pp_bytes()) */
	m->ppd = rt->pp_bufs && g->d > 1 ? g->d : 0;
	m->ppv = g->v > 1 ? g->v : 1;
	m->ppt = g->t > 1 ? g->t : 1;
	m->mbs = g->m;
	m->context = rt->context_bytes;
	m->frag = rt->frag;
	m->offload = g->offload;
	m->off_blocks = cost_offload_blocks(c, o, g);
}

double
cost_pp_bufs(const struct chain *c, const struct cost_opts *o,
	     const struct cost_cfg *g, int s, int e)
{
	struct cost_mem m;

	cost_mem_init(&m, c, o, g);
	cost_mem_stage(&m, g, s);
	return cost_mem_pp_bytes(&m, CHAIN_AT(c, c->out, g->k, e));
}

void
cost_stage_mem(const struct chain *c, const struct cost_opts *o,
	       const struct cost_cfg *g, int s, int a, int e, const int *rc,
	       struct plan_stage *st)
{
	struct cost_mem m;
	int j;

	cost_mem_init(&m, c, o, g);
	cost_mem_stage(&m, g, s);
	for (j = a; j <= e; j++)
		cost_mem_add(&m, c, g->k, j, rc ? rc[j - a] : g->r);
	cost_mem_bytes(&m, st);
}

void
cost_opts_from_profile(struct cost_opts *o, const struct profile *p,
		       const struct gpu_spec *g)
{
	struct profile def;
	int i;

	profile_init(&def);
	for (i = 0; model_prec_names[i]; i++)
		if (p->precision && !strcmp(p->precision, model_prec_names[i]))
			o->precision = i;
	if (p->weight_bytes != def.weight_bytes)
		o->weight_bytes = p->weight_bytes;
	if (p->grad_bytes != def.grad_bytes)
		o->grad_bytes = p->grad_bytes;
	if (p->optimizer_bytes != def.optimizer_bytes)
		o->opt_bytes = p->optimizer_bytes;
	if (p->version_bytes != def.version_bytes)
		o->version_bytes = p->version_bytes;
	o->trainable = p->trainable;
	profile_release(&def);
	if (g) {
		o->hbm_gb_s = g->mem_gb_s * g->mem_eff;
		/* PCIe, or NVLink-C2C for a Grace superchip's GPU: the
		 * catalog's host link per direction */
		o->host_gb_s = g->pcie_gb_s;
		o->sms = g->sms;
		o->fp8_any_layout = g->mxfp8;
		/* Muon's Newton-Schulz runs its fp32 matmuls at "medium"
		 * precision (--muon-fp32-matmul-prec, arguments.py:2640):
		 * bf16 tensor cores */
		o->ns_tflops = g->tflops16 * g->gemm_eff;
	}
}
