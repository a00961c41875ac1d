/*
 * torchtitan.c - --emit torchtitan: the plan as a torchtitan job-config
 * TOML (--job.config_file, torchtitan v0.1.0 to v0.2.2; later versions
 * configure in Python and keep these names as --section.option flags):
 * parallelism degrees, pipeline schedule and microbatch, the modules of
 * every (virtual) stage in module_fqns_per_model_part, and the
 * activation-checkpoint mode.
 *
 * Upstream facts (pytorch/torchtitan v0.2.2; cited in
 * tests/emit/upstream.py): llama3 flavors 8B, 70B, 405B with modules
 * tok_embeddings, layers.N, norm, output; looped schedules put stage i on
 * pipeline rank i % pp; microbatches = local_batch_size /
 * pipeline_parallel_microbatch_size; gradient accumulation = global /
 * (local x data-parallel degree); DDP (replicate) only without other
 * parallelism; activation_checkpoint.mode none | full | selective |
 * memory_budget, per model, not per layer.
 */
#include <stdio.h>
#include <string.h>

#include "emit/emit.h"
#include "pd2bw/error.h"

#define TORCHTITAN_VERSIONS "torchtitan v0.1.0 to v0.2.2"

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

int
emit_torchtitan(FILE *fp, const struct emit_in *in,
		const struct emit_shape *sh)
{
	const struct plan *p = in->p;
	const struct model *m = in->model;
	const struct flavor *fl = NULL;
	const char *prec = in->prof->precision ? in->prof->precision : "fp32";
	int fp8 = !strcmp(prec, "fp8");
	struct emit_rc rc;
	size_t i;
	int j, any = 0, k, fsdp, shard, c = p->c > 1 ? p->c : 1;

	if (fp8 && in->o && in->o->fp8_recipe != FP8_TENSORWISE)
		return pd2bw_error("--emit torchtitan: torchao's float8 "
				   "converter scales tensorwise (or rowwise); "
				   "the plan priced %s scaling: plan with "
				   "--fp8-recipe tensorwise or --runtime "
				   "torchtitan",
				   model_fp8_names[in->o->fp8_recipe]);
	if (!m || m->family != MODEL_LLAMA)
		return pd2bw_error("--emit torchtitan: torchtitan's llama3 "
				   "is the only dense model it builds; the "
				   "plan's is %s",
				   m ? model_family_names[m->family]
				     : "a profile, not a model");
	for (i = 0; i < sizeof(flavors) / sizeof(flavors[0]); i++)
		if (flavors[i].hidden == m->hidden &&
		    flavors[i].layers == m->layers &&
		    flavors[i].heads == m->heads &&
		    flavors[i].kv == m->kv_heads &&
		    flavors[i].ffn == m->ffn_hidden)
			fl = &flavors[i];
	if (!fl)
		return pd2bw_error("--emit torchtitan: the model's shape is "
				   "none of llama3's flavors 8B, 70B, 405B");
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
	for (j = 0; j < p->nlayers; j++)
		rc.layer_rc[j] = any ? PROF_RC_FULL : PROF_RC_NONE;
	if (emit_rc_eval(in, &rc)) {
		emit_rc_release(&rc);
		return -1;
	}
	/* DDP runs only as the sole parallelism; otherwise the replicas
	 * are FSDP's shards (less memory than planned).  ZeRO-2/3 shard
	 * over the plan's groups (HSDP replicates across them). */
	fsdp = (p->w > 1 && (p->zero >= 2 || p->d > 1 || p->t > 1)) ||
	       c > 1;
	shard = p->zero >= 2 && p->shard > 0 && p->shard < p->w ? p->shard
								 : p->w;

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
		TORCHTITAN_VERSIONS, p->w * p->d * p->t * c);
	fprintf(fp, "\n[job]\ndescription = ");
	emit_json_str(fp, p->model);
	fprintf(fp, "\n\n[model]\nname = \"llama3\"\nflavor = \"%s\"\n",
		fl->name);
	/* FP8: torchao's Float8Linear through the converter torchtitan
	 * v0.2 registers as "quantize.linear.float8" (components/
	 * quantization/float8.py:238; job_config.py:118, 731-745), the
	 * output layer kept 16-bit as planned */
	if (fp8)
		fprintf(fp, "# FP8 linear layers (torchtitan v0.2.x naming; "
			    "needs torchao).\nconverters = "
			    "[\"quantize.linear.float8\"]\n");

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
			shard, shard < p->w ? ", replicated across (HSDP)" : "");
	fprintf(fp, "data_parallel_replicate_degree = %d\n",
		fsdp ? p->w / shard : p->w);
	fprintf(fp, "data_parallel_shard_degree = %d\n", fsdp ? shard : 1);
	/* ZeRO-2 keeps the gathered parameters from forward to backward;
	 * ZeRO-3's "default" reshards them, except under a pipeline
	 * (distributed/fsdp.py:128-132), as priced */
	if (fsdp && p->zero == 2)
		fprintf(fp, "fsdp_reshard_after_forward = \"never\"\n");
	fprintf(fp, "tensor_parallel_degree = %d\n", p->t);
	if (c > 1) {
		fprintf(fp, "# Context parallelism: the K/V shards rotate "
			    "around the ring during each\n# step's "
			    "attention, as priced (the default all-gathers "
			    "them first).\n");
		fprintf(fp, "context_parallel_degree = %d\n", c);
		fprintf(fp, "context_parallel_rotate_method = \"alltoall\"\n");
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

	if (fp8)
		fprintf(fp, "\n[quantize.linear.float8]\nrecipe_name = "
			    "\"tensorwise\"\nfilter_fqns = [\"output\"]\n");

	fprintf(fp, "\n[activation_checkpoint]\n");
	fprintf(fp, "# The plan's recomputation is %s; torchtitan's mode "
		    "applies to every layer%s.\n",
		plan_rc_names[p->recompute],
		any && rc.changed ? " (selective counted as full)" : "");
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
