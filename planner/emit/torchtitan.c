/*
 * torchtitan.c - --emit torchtitan: the plan as a torchtitan job-config
 * TOML (--job.config_file, torchtitan v0.1.0 to v0.2.2; later versions
 * configure in Python and keep these names as --section.option flags):
 * parallelism degrees, pipeline schedule and microbatch, the modules of
 * every (virtual) stage in module_fqns_per_model_part, and the
 * activation-checkpoint mode; for a mixture of experts the qwen3 flavor
 * and the expert-parallel degrees.
 *
 * Upstream facts (pytorch/torchtitan v0.2.2; cited in
 * tests/emit/upstream.py): llama3 flavors 8B, 70B, 405B with modules
 * tok_embeddings, layers.N, norm, output; looped schedules put stage i on
 * pipeline rank i % pp; microbatches = local_batch_size /
 * pipeline_parallel_microbatch_size; gradient accumulation = global /
 * (local x data-parallel degree); DDP (replicate) only without other
 * parallelism; activation_checkpoint.mode none | full | selective |
 * memory_budget, per model, not per layer, but for selective_ac_option
 * "N", which wraps in full every N-th block of a process, counted over
 * the blocks of its model parts in order (distributed/
 * activation_checkpoint.py:24-49, pipeline_parallel.py:136-138; the same
 * counter in v0.1.0's models/llama3/infra/parallelize.py:282-289; gone
 * after v0.2.2, #3674).  qwen3 flavors 30B-A3B and
 * 235B-A22B (models/qwen3/__init__.py:145-190): every block a MoE of
 * top-8 over 128 experts without shared ones; no pipeline (pipelining_fn
 * None, __init__.py:199, refused at train.py:218-223).  deepseek_v3's
 * flavors run flex attention with a block-causal mask (deepseek_v3/
 * __init__.py:100-101, 127-128, 154-155), which pd2bw does not price.
 */
#include <stdio.h>
#include <string.h>

#include "emit/emit.h"
#include "pd2bw/error.h"

#define TORCHTITAN_VERSIONS "torchtitan v0.1.0 to v0.2.2"
/* qwen3's MoE flavors and expert parallelism came in v0.2.0, with another
 * device mesh until v0.2.2 (parallel_dims.py); checked against v0.2.2 */
#define TORCHTITAN_MOE_VERSIONS "torchtitan v0.2.2"
/* the [compile] section (job_config.py:637-645, 901 at v0.2.0; 721-727,
 * 1017 at v0.2.2); v0.1.0 had training.compile instead */
#define TORCHTITAN_COMPILE_VERSIONS "torchtitan v0.2.0 to v0.2.2"

struct flavor {
	const char *name;
	int64_t hidden, layers, heads, kv, ffn;
};

/* torchtitan/models/llama3/__init__.py; ffn from its multiple_of and
 * ffn_dim_multiplier rule. */
static const struct flavor flavors[] = {
	{"8B", 4096, 32, 32, 8, 14336},
	{"70B", 8192, 80, 64, 8, 28672},
	{"405B", 16384, 126, 128, 8, 53248},
};

/* A torchtitan MoE flavor: the shape above (ffn: the dense MLP its args
 * name, unused when every block is MoE), head size, the routed experts,
 * top-k and their inner size; no shared experts. */
struct moe_flavor {
	const char *model;
	struct flavor f;
	int64_t head_dim, experts, top_k, expert_ffn;
};

/* torchtitan/models/qwen3/__init__.py:145-190 at v0.2.2 */
static const struct moe_flavor moe_flavors[] = {
	{"qwen3", {"30B-A3B", 2048, 48, 32, 4, 6144}, 128, 128, 8, 768},
	{"qwen3", {"235B-A22B", 4096, 94, 64, 4, 12288}, 128, 128, 8, 1536},
};

static int
same_shape(const struct flavor *f, const struct model *m)
{
	return f->hidden == m->hidden && f->layers == m->layers &&
	       f->heads == m->heads && f->kv == m->kv_heads &&
	       f->ffn == m->ffn_hidden;
}

/*
 * The torchtitan model and flavor of shape m into *name and *fl: 0, or -1
 * when none has its shape.
 */
static int
match_flavor(const struct model *m, const char **name, const char **fl)
{
	const struct model_moe *e = &m->moe;
	struct model rest = *m;
	size_t i;

	/* what a qwen3 flavor sets; anything else of pd2bw-model/2
	 * (windows, sinks, soft-capping, ...) torchtitan would not run */
	rest.head_dim = rest.qk_norm = 0;
	memset(&rest.moe, 0, sizeof(rest.moe));

	for (i = 0; !model_is_v2(m) && i < sizeof(flavors) / sizeof(flavors[0]);
	     i++)
		if (same_shape(&flavors[i], m)) {
			*name = "llama3";
			*fl = flavors[i].name;
			return 0;
		}
	for (i = 0; e->experts && !model_is_v2(&rest) &&
		    i < sizeof(moe_flavors) / sizeof(moe_flavors[0]);
	     i++) {
		const struct moe_flavor *q = &moe_flavors[i];

		if (same_shape(&q->f, m) && m->head_dim == q->head_dim &&
		    m->qk_norm && !m->tied_embeddings &&
		    e->experts == q->experts && e->top_k == q->top_k &&
		    e->expert_ffn == q->expert_ffn && !e->shared_experts &&
		    !e->first_dense && e->every == 1 &&
		    e->capacity_factor == 0 && !e->shared_gate &&
		    !e->latent) {
			*name = q->model;
			*fl = q->f.name;
			return 0;
		}
	}
	return -1;
}

/* match_flavor(), or -1 after saying why none fits. */
static int
find_flavor(const struct model *m, const char **name, const char **fl)
{
	if (m->attention == MODEL_MLA)
		return pd2bw_error("--emit torchtitan: torchtitan's "
				   "deepseek_v3 flavors run flex attention "
				   "with a block-causal mask (deepseek_v3/"
				   "__init__.py:154-155), which pd2bw does "
				   "not price");
	if (!match_flavor(m, name, fl))
		return 0;
	return pd2bw_error("--emit torchtitan: the model's shape is none of "
			   "torchtitan's flavors (llama3 8B, 70B, 405B; qwen3 "
			   "30B-A3B, 235B-A22B)");
}

int
emit_torchtitan_max_depth(const struct model *m, const char **why)
{
	const char *name, *fl;

	if (!m->moe.experts || match_flavor(m, &name, &fl))
		return 0;
	/* qwen3 has no pipelining_fn (models/qwen3/__init__.py:199) */
	*why = "--emit torchtitan: one stage only (torchtitan v0.2.2 has no "
	       "pipelining for qwen3, models/qwen3/__init__.py:199)";
	return 1;
}

static void
fqn_list(FILE *fp, const struct emit_shape *sh, int chunk)
{
	int i, b = 0, n = 0;

	for (i = 0; i < chunk; i++)
		b += sh->chunk_blocks[i];
	fputc('[', fp);
	if (chunk == 0)
		fprintf(fp, "%s\"tok_embeddings\"", n++ ? ", " : "");
	for (i = 0; i < sh->chunk_blocks[chunk]; i++)
		fprintf(fp, "%s\"layers.%d\"", n++ ? ", " : "", b + i);
	if (chunk == sh->nchunks - 1)
		fprintf(fp, "%s\"norm\", \"output\"", n++ ? ", " : "");
	fputc(']', fp);
}

/*
 * The linears left in 16 bits: the output layer, and the blocks the plan
 * kept in bf16 (--bf16-layers), each by the prefix of its modules' names,
 * which the converter's filter matches as a substring of a module's
 * (components/quantization/utils.py:25 at v0.2.2): "layers.0." is block
 * 0's and no other's.
 */
static void
filter_fqns(FILE *fp, const struct plan *p, int blocks)
{
	int i;

	if (p->bf16_first + p->bf16_last > 0)
		fprintf(fp, "# The first %d and last %d blocks in bf16, as "
			    "priced.\n", p->bf16_first, p->bf16_last);
	fprintf(fp, "filter_fqns = [\"output\"");
	for (i = 0; i < blocks; i++)
		if (i < p->bf16_first || i >= blocks - p->bf16_last)
			fprintf(fp, ", \"layers.%d.\"", i);
	fprintf(fp, "]\n");
}

/*
 * Whether the plan priced FSDP's FP8 all-gather (cost_fp8_all_gather()):
 * it names runtime torchtitan with fp8-all-gather, and the rules hold.
 */
static int
emit_fp8_gather(const struct emit_in *in, int c)
{
	const struct plan *p = in->p;
	struct runtime rt;
	struct cost_cfg g;

	if (!in->o || emit_plan_runtime(p, RUNTIME_TORCHTITAN, &rt) != 1)
		return 0;
	memset(&g, 0, sizeof(g));
	g.w = p->w;
	g.d = p->d;
	g.t = p->t;
	g.c = c;
	g.zero = p->zero;
	g.shard = p->zero >= 2 ? p->shard : 0;
	g.rt = &rt;
	return cost_fp8_all_gather(in->o, &g);
}

/*
 * Whether torchtitan runs p's expert parallelism as planned: its rules
 * (runtime_check_ep()), and under tensor parallelism the all-to-all
 * bytes it moves, which differ from Megatron-Core's (cost_ep()).
 */
static int
emit_ep_check(const struct emit_in *in, int etp, int c)
{
	const struct plan *p = in->p;
	struct runtime rt;
	char why[256];
	int own = emit_plan_runtime(p, RUNTIME_TORCHTITAN, &rt);

	if (own < 0)
		return -1;
	if (runtime_check_ep(&rt, p->w, c, p->t, etp, p->e, p->zero,
			     p->zero >= 2 ? p->shard : 0, why, sizeof(why)))
		return pd2bw_error("--emit torchtitan: %s", why);
	if (p->t > 1 && !own)
		return pd2bw_error("--emit torchtitan: torchtitan's expert "
				   "all-to-alls under tensor parallelism move "
				   "other bytes than the plan's runtime "
				   "priced; plan with --runtime torchtitan");
	return 0;
}

int
emit_torchtitan(FILE *fp, const struct emit_in *in,
		const struct emit_shape *sh)
{
	const struct plan *p = in->p;
	const struct model *m = in->model;
	const char *name = NULL, *flavor = NULL;
	const char *prec = in->prof->precision ? in->prof->precision : "fp32";
	int fp8 = !strcmp(prec, "fp8");
	struct emit_rc rc;
	int j, any = 0, every, cover = 0, k, fsdp, shard;
	/* selective as torchtitan runs it: its per-op policy, in every
	 * block (the plan's recompute_modules op, --runtime torchtitan's) */
	int op = p->recompute == PROF_RC_SELECTIVE && emit_rc_per_op(p);
	int c = p->c > 1 ? p->c : 1;
	int etp = p->etp > 0 ? p->etp : p->t;
	/* torch.compile, as the plan's runtime priced it */
	int compile = emit_runtime_opt(p, RUNTIME_OPT_COMPILE);
	/* async TP (runtime_parse() has refused it without compile) */
	int async_tp = emit_runtime_opt(p, RUNTIME_OPT_ASYNC_TP);
	/* recomputation that stops once the saved tensors are back */
	int early = emit_runtime_opt(p, RUNTIME_OPT_EARLY_STOP);
	/* K/V heads copied out before SDPA: torchtitan before ff0829c10 */
	int repeat = emit_runtime_opt(p, RUNTIME_OPT_REPEAT_KV);
	/* priced as a model with fused projections, which torchtitan's
	 * own models are not */
	int fused = emit_runtime_opt(p, RUNTIME_OPT_FUSED_PROJ);

	/* torchao's converters for training: float8 and MXFP8 (torchtitan
	 * v0.2.2 components/quantization/) */
	if (p->optimizer == PLAN_MUON)
		return pd2bw_error("--emit torchtitan: the plan is priced with "
				   "Megatron-Core's Muon; plan with --optimizer "
				   "adam, or emit megatron");
	/* a precision per kind of linear is Megatron-Core's config file;
	 * torchao's filter keeps modules in 16 bits but sets no other
	 * recipe for some (components/quantization/ at v0.2.2) */
	if (p->module_precision)
		return pd2bw_error("--emit torchtitan: the plan sets the "
				   "precision module by module (%s), which "
				   "torchtitan's one float8 recipe cannot; "
				   "emit megatron", p->module_precision);
	if (!strcmp(prec, "nvfp4"))
		return pd2bw_error("--emit torchtitan: torchtitan trains no "
				   "NVFP4 GEMMs (its quantization converters "
				   "are float8 and mx); plan with --precision "
				   "fp8 or bf16, or emit megatron");
	if (fp8 && in->o && in->o->fp8_recipe != FP8_TENSORWISE &&
	    !model_fp8_rowwise(in->o->fp8_recipe))
		return pd2bw_error("--emit torchtitan: torchao's float8 "
				   "converter scales tensorwise or rowwise; "
				   "the plan priced %s scaling: plan with "
				   "--fp8-recipe tensorwise or rowwise, or "
				   "--runtime torchtitan",
				   model_fp8_names[in->o->fp8_recipe]);
	if (!m || m->family != MODEL_LLAMA)
		return pd2bw_error("--emit torchtitan: torchtitan builds "
				   "llama-family models (llama3, qwen3); the "
				   "plan's is %s",
				   m ? model_family_names[m->family]
				     : "a profile, not a model");
	if (find_flavor(m, &name, &flavor))
		return -1;
	if (m->moe.experts && (p->d > 1 || fp8))
		return pd2bw_error("--emit torchtitan: torchtitan's %s %s",
				   name,
				   p->d > 1 ? "has no pipeline parallelism "
					      "(no pipelining_fn, models/"
					      "qwen3/__init__.py:199); plan "
					      "with --depth 1"
					    : "routed experts are grouped "
					      "GEMMs, which its float8 linear "
					      "converter leaves in bf16");
	if (p->e > 1 && emit_ep_check(in, etp, c))
		return -1;
	if (p->sched == PLAN_2BW)
		return pd2bw_error("--emit torchtitan: torchtitan has no 2bw "
				   "schedule; plan with -s flush or gpipe");
	if (p->sched == PLAN_GPIPE && p->v > 1)
		return pd2bw_error("--emit torchtitan: interleaving needs a "
				   "1F1B schedule");
	if (!strcmp(prec, "fp16"))
		return pd2bw_error("--emit torchtitan: torchtitan trains in "
				   "bf16 or fp32, not fp16");
	/* FSDP2 is ZeRO-3, or ZeRO-2 with fsdp_reshard_after_forward
	 * "never" (job_config.py:336); it has no ZeRO-1 and no activation
	 * offload (enable_cpu_offload offloads parameters and optimizer
	 * state) */
	if (p->zero == 1)
		return pd2bw_error("--emit torchtitan: torchtitan has no "
				   "ZeRO-1 (optimizer-only sharding); plan with "
				   "--runtime torchtitan or --zero 0, 2 or 3");
	if (p->offload)
		return pd2bw_error("--emit torchtitan: torchtitan cannot "
				   "offload activations; plan with --offload "
				   "off");
	if (!sh->embed[0] || !sh->head[p->d - 1])
		return pd2bw_error("--emit torchtitan: the embedding must be "
				   "on the first stage and the head on the "
				   "last");
	memset(&rc, 0, sizeof(rc));
	rc.layer_rc = xcalloc((size_t)p->nlayers, sizeof(int));
	for (j = 0; j < p->nlayers; j++)
		any |= (p->layer_rc ? p->layer_rc[j] : p->recompute) !=
		       PROF_RC_NONE;
	every = emit_every_n(p, sh);
	/* other blocks than torchtitan's every N-th (fms-fsdp's fraction,
	 * GLPK's choice): the every-N-th rule that recomputes as many on
	 * each rank, where it fits, before full everywhere */
	if (!every && any && p->recompute == PLAN_RC_MIXED)
		cover = emit_every_cover(p, sh);
	for (;;) {
		if (cover > 1)
			emit_every_fill(p, sh, cover, rc.layer_rc);
		else
			for (j = 0; j < p->nlayers; j++)
				rc.layer_rc[j] = every ? p->layer_rc[j]
						 : op  ? PROF_RC_SELECTIVE
						 : any ? PROF_RC_FULL
						       : PROF_RC_NONE;
		if (emit_rc_eval(in, &rc)) {
			emit_rc_release(&rc);
			return -1;
		}
		if (cover < 2 || !rc.evaluated || rc.fits)
			break;
		cover = 0;
	}
	/* DDP runs only as the sole parallelism; otherwise the replicas
	 * are FSDP's shards (less memory than planned).  ZeRO-2/3 shard
	 * over the plan's groups (HSDP replicates across them). */
	fsdp = (p->w > 1 && (p->zero >= 2 || p->d > 1 || p->t > 1)) ||
	       c > 1;
	/* the plan's shard group counts data x context ranks (pd2bw(5));
	 * torchtitan's FSDP mesh is dp_shard x cp (parallel_dims.py:137) */
	shard = p->zero >= 2 && p->shard > 0 && p->shard < p->w * c
			? p->shard
			: p->w * c;
	if (shard % c) {
		emit_rc_release(&rc);
		return pd2bw_error("--emit torchtitan: torchtitan shards over "
				   "dp_shard x %d context-parallel ranks; the "
				   "plan's shard group of %d is not a multiple",
				   c, shard);
	}
	shard /= c;

	fprintf(fp, "# torchtitan job config for the pd2bw plan of ");
	emit_text(fp, p->model);
	fprintf(fp, " on %d x ", p->w * p->d * p->t * c);
	emit_text(fp, p->gpu);
	fprintf(fp,
		"\n# (schedule %s, width %d, depth %d, tensor %d, microbatch "
		"%d, accumulation %d).\n"
		"# For %s: torchrun --nproc-per-node ... -m "
		"torchtitan.train\n"
		"# --job.config_file THIS_FILE; NGPU = %d.\n",
		plan_sched_names[p->sched], p->w, p->d, p->t, p->b, p->m,
		m->moe.experts ? TORCHTITAN_MOE_VERSIONS
		: compile      ? TORCHTITAN_COMPILE_VERSIONS
			       : TORCHTITAN_VERSIONS,
		p->w * p->d * p->t * c);
	fprintf(fp, "\n[job]\ndescription = ");
	emit_json_str(fp, p->model);
	fprintf(fp, "\n\n[model]\nname = \"%s\"\nflavor = \"%s\"\n", name,
		flavor);
	/* FP8: torchao's Float8Linear through the converter torchtitan
	 * v0.2 registers as "quantize.linear.float8" (components/
	 * quantization/float8.py:238; job_config.py:118, 731-745), the
	 * output layer kept 16-bit as planned */
	if (fp8)
		fprintf(fp, "# FP8 linear layers (torchtitan v0.2.x naming; "
			    "needs torchao).\nconverters = "
			    "[\"quantize.linear.float8\"]\n");

	if (repeat)
		fprintf(fp, "# Priced with the K/V heads copied out to the "
			    "query heads (repeat-kv), as\n# torchtitan did "
			    "before ff0829c10; later ones read them grouped "
			    "(enable_gqa).\n");
	if (fused)
		fprintf(fp, "# Priced with Q, K, V and the MLP's halves fused "
			    "into one linear each (fused-proj);\n# torchtitan's "
			    "own models project them apart, a little slower "
			    "backward.\n");

	fprintf(fp, "\n[training]\n");
	fprintf(fp, "# Per data-parallel rank and step: %s.\n",
		p->d > 1 ? "all m microbatches go through the pipeline in "
			   "one step"
			 : "one microbatch, accumulated m times");
	fprintf(fp, "local_batch_size = %lld\n",
		(long long)(p->d > 1 ? (long long)p->b * p->m : p->b));
	fprintf(fp, "global_batch_size = %lld\n", (long long)p->global_batch);
	fprintf(fp, "seq_len = %lld\n", (long long)in->prof->seq_len);
	fprintf(fp, "mixed_precision_param = \"%s\"\n",
		!strcmp(prec, "bf16") || fp8 ? "bfloat16" : "float32");

	if (compile)
		fprintf(fp, "\n[compile]\n# torch.compile of each block and "
			    "of the loss: the fusions the plan\n# priced "
			    "(--runtime torchtitan:compile).\nenable = true\n"
			    "components = [\"model\", \"loss\"]\n");

	fprintf(fp, "\n[parallelism]\n");
	if (fsdp && p->zero < 2 && c > 1)
		fprintf(fp, "# torchtitan shards with FSDP over the context-"
			    "parallel ranks too\n# (parallel_dims.py:334-335):"
			    " less memory than planned, all-gathers per "
			    "layer.\n");
	else if (fsdp && p->zero < 2)
		fprintf(fp, "# torchtitan runs DDP only as the sole "
			    "parallelism: the %d replicas are\n# FSDP "
			    "shards here (less memory than planned, "
			    "all-gathers per layer).\n",
			p->w);
	else if (fsdp)
		fprintf(fp, "# ZeRO-%d: FSDP2 over groups of %d%s.\n", p->zero,
			shard * c,
			shard < p->w ? ", replicated across (HSDP)" : "");
	fprintf(fp, "data_parallel_replicate_degree = %d\n",
		fsdp ? p->w / shard : p->w);
	fprintf(fp, "data_parallel_shard_degree = %d\n", fsdp ? shard : 1);
	/* ZeRO-2 keeps the gathered parameters from forward to backward;
	 * ZeRO-3's "default" reshards them, except under a pipeline
	 * (distributed/fsdp.py:128-132), as priced */
	if (fsdp && p->zero == 2)
		fprintf(fp, "fsdp_reshard_after_forward = \"never\"\n");
	fprintf(fp, "tensor_parallel_degree = %d\n", p->t);
	/* job_config.py:357 at v0.2.2; Inductor's micro-pipelined TP,
	 * distributed/tensor_parallel.py:16-25 */
	if (async_tp && p->t > 1 && fp8 && in->o &&
	    model_fp8_rowwise(in->o->fp8_recipe))
		fprintf(fp, "# Async TP: each reduce-scatter of a matmul's "
			    "output runs in chunks under\n# its matmul, as "
			    "priced; rowwise FP8 casts after each all-gather, "
			    "which stays\n# whole (--runtime "
			    "torchtitan:compile,async-tp).\n"
			    "enable_async_tensor_parallel = true\n");
	else if (async_tp && p->t > 1)
		fprintf(fp, "# Async TP: each all-gather, and each "
			    "reduce-scatter of a matmul's output,\n# runs "
			    "in chunks under its matmul, as priced "
			    "(--runtime torchtitan:compile,async-tp).\n"
			    "enable_async_tensor_parallel = true\n");
	if (c > 1) {
		fprintf(fp, "# Context parallelism: the K/V shards rotate "
			    "around the ring during each\n# step's "
			    "attention, as priced (the default all-gathers "
			    "them first).\n");
		fprintf(fp, "context_parallel_degree = %d\n", c);
		fprintf(fp, "context_parallel_rotate_method = \"alltoall\"\n");
	}
	if (p->e > 1) {
		fprintf(fp, "# Expert parallelism over %d ranks%s:\n# tokens "
			    "dispatched and combined by all-to-all, the routed "
			    "experts\n# FSDP-sharded over the ranks that hold "
			    "the same ones (efsdp).\n",
			p->e, etp == 1 && p->t > 1
				      ? ", borrowing the tensor-parallel ones"
				      : "");
		fprintf(fp, "expert_parallel_degree = %d\n", p->e);
		fprintf(fp, "expert_tensor_parallel_degree = %d\n", etp);
	}
	if (p->t > 1 && !p->sp)
		fprintf(fp, "# torchtitan's tensor parallelism also shards "
			    "the norms' sequence (less memory).\n");
	fprintf(fp, "pipeline_parallel_degree = %d\n", p->d);
	if (p->d > 1) {
		fprintf(fp, "pipeline_parallel_schedule = \"%s\"\n",
			p->sched == PLAN_GPIPE ? "GPipe"
			: p->v > 1	       ? "Interleaved1F1B"
					       : "1F1B");
		fprintf(fp, "pipeline_parallel_microbatch_size = %d\n", p->b);
		fprintf(fp, "# %d model parts; part i runs on pipeline rank "
			    "i %% %d.\n",
			sh->nchunks, p->d);
		fprintf(fp, "module_fqns_per_model_part = [\n");
		for (k = 0; k < sh->nchunks; k++) {
			fprintf(fp, "  ");
			fqn_list(fp, sh, k);
			fprintf(fp, ",\n");
		}
		fprintf(fp, "]\n");
	}

	/* enable_fsdp_float8_all_gather is refused with a recipe_name
	 * (float8.py:65-69); without one torchao's default config scales
	 * tensorwise (float8.py:85-100) */
	if (fp8 && emit_fp8_gather(in, c))
		fprintf(fp, "\n[quantize.linear.float8]\n# FSDP2 gathers the "
			    "blocks' weights in FP8, as priced; torchao's "
			    "default\n# (tensorwise) config, which takes no "
			    "recipe_name with it.\n"
			    "enable_fsdp_float8_all_gather = true\n"
			    "precompute_float8_dynamic_scale_for_fsdp = true\n");
	else if (fp8 && in->o && model_fp8_rowwise(in->o->fp8_recipe))
		/* torchao's recipe by name (job_config.py:738 at v0.2.2),
		 * whose collectives stay 16-bit, as priced */
		fprintf(fp, "\n[quantize.linear.float8]\n# torchao's rowwise "
			    "scaling, as priced; FSDP and TP move 16-bit\n# "
			    "tensors under it.\nrecipe_name = \"%s\"\n",
			in->o->fp8_recipe == FP8_ROWWISE ? "rowwise"
							 : "rowwise_with_gw_hp");
	else if (fp8)
		fprintf(fp, "\n[quantize.linear.float8]\nrecipe_name = "
			    "\"tensorwise\"\n");
	if (fp8)
		filter_fqns(fp, p, sh->nblocks);

	fprintf(fp, "\n[activation_checkpoint]\n");
	/* passed to each checkpoint wrapper (activation_checkpoint.py:
	 * 150-156), off by default (job_config.py:675) */
	if (early)
		fprintf(fp, "# Stop each recomputation once the tensors the "
			    "backward needs are back\n# (the last MLP GEMM "
			    "does not run again), as priced.\n"
			    "early_stop = true\n");
	if (op) {
		/* _apply_op_sac (activation_checkpoint.py:52-137): the
		 * policy the plan priced */
		fprintf(fp, "# Per-op selective recomputation in every block, "
			    "as priced: the odd matmuls,\n# attention and "
			    "the reduce-scatters are kept, the rest runs "
			    "again.\nmode = \"selective\"\n"
			    "selective_ac_option = \"op\"\n");
		emit_rc_release(&rc);
		return 0;
	}
	if (every == 1) {
		/* mode full wraps the blocks alone (apply_ac's loop over
		 * model.layers, activation_checkpoint.py:238-247) */
		fprintf(fp, "# The plan recomputes every block in full, not "
			    "the embedding or head,\n# as mode full does.\n"
			    "mode = \"full\"\n");
		emit_rc_release(&rc);
		return 0;
	}
	if (cover > 1) {
		fprintf(fp, "# The plan recomputes in full some blocks of each "
			    "pipeline rank, not torchtitan's\n# every N-th; "
			    "every %d%s block, as selective_ac_option does, "
			    "recomputes as many\n# or more on each rank.\n",
			cover, cover == 2 ? "nd" : cover == 3 ? "rd" : "th");
		emit_rc_note(fp, "# ", in, &rc);
		fprintf(fp, "mode = \"selective\"\nselective_ac_option = "
			    "\"%d\"\n", cover);
		emit_rc_release(&rc);
		return 0;
	}
	if (every) {
		fprintf(fp, "# The plan recomputes in full every %d%s block "
			    "of each pipeline rank\n# (the rank counts "
			    "over its model parts), as selective_ac_option "
			    "does.\n",
			every, every == 2 ? "nd" : every == 3 ? "rd" : "th");
		fprintf(fp, "mode = \"selective\"\nselective_ac_option = "
			    "\"%d\"\n", every);
		emit_rc_release(&rc);
		return 0;
	}
	fprintf(fp, "# The plan's recomputation is %s; torchtitan's mode "
		    "applies to every layer%s.\n",
		plan_rc_names[p->recompute],
		!any || !rc.changed ? ""
		: p->recompute == PLAN_RC_MIXED
			? "\n# or every N-th block of a rank, neither the "
			  "plan's choice: counted as full"
			: " (selective counted as full)");
	emit_rc_note(fp, "# ", in, &rc);
	fprintf(fp, "mode = \"%s\"\n", any ? "full" : "none");
	if (rc.evaluated && !rc.fits) {
		emit_rc_release(&rc);
		return pd2bw_error("--emit torchtitan: full recomputation "
				   "needs more memory than the limit");
	}
	emit_rc_release(&rc);
	return 0;
}
