/*
 * deepspeed.c - --emit deepspeed: the plan as a DeepSpeed config (JSON,
 * keys as in deepspeed/runtime/config.py, constants.py and
 * activation_checkpointing/config.py) for its pipeline engine, with the
 * partition and the Python recipe that builds the PipelineModule under
 * pipeline.pd2bw_*, which DeepSpeed copies into its pipeline config
 * unread.  A plan without a pipeline that shards gradients or
 * parameters (ZeRO-2, ZeRO-3) gets the config deepspeed.initialize
 * takes for a plain module instead: the pipeline engine refuses those
 * stages.  Checked against DeepSpeed v0.14 to v0.16.4.
 *
 * Upstream facts (microsoft/DeepSpeed at 38327e0, v0.16.4-6; cited in
 * tests/emit/upstream.py): train_batch_size = micro x accumulation x the
 * data-parallel world size, which is the PipelineModule grid's
 * (deepspeed.initialize passes model.mpu()); the pipeline engine takes
 * ZeRO stage 0 or 1 only; PipeModelDataParallelTopology(num_pp, num_mp,
 * num_dp) numbers ranks pipe, data, model (model fastest); a partition
 * of one's own is set in _partition_layers, which must end with
 * _set_bounds(start=parts[stage], stop=parts[stage + 1]), else every stage
 * builds every layer; activation_checkpoint_interval k checkpoints every
 * run of k layers, so it recomputes all layers or none, of those
 * checkpointable_layers names (every layer with parameters without it,
 * pipe/module.py:648-667); overlap_comm
 * defaults to on for ZeRO-3 only (zero/config.py:351-353), gradients are
 * reduced in buckets of reduce_bucket_size elements (zero/config.py:109).
 */
#include <stdio.h>
#include <string.h>

#include "emit/emit.h"
#include "pd2bw/error.h"
#include "pd2bw/runtime.h"

#define DEEPSPEED_VERSIONS "DeepSpeed v0.14 to v0.16.4"

/* One line of the recipe: a JSON string. */
static void
line(FILE *fp, int *n, const char *s)
{
	fprintf(fp, "%s      ", (*n)++ ? ",\n" : "");
	emit_json_str(fp, s);
}

/* The config's opening: batch sizes and the 16-bit precision. */
static void
batch_and_precision(FILE *fp, const struct plan *p, const char *prec)
{
	fprintf(fp, "{\n");
	fprintf(fp, "  \"train_batch_size\": %lld,\n",
		(long long)p->global_batch);
	fprintf(fp, "  \"train_micro_batch_size_per_gpu\": %d,\n", p->b);
	fprintf(fp, "  \"gradient_accumulation_steps\": %d,\n", p->m);
	if (!strcmp(prec, "fp16"))
		fprintf(fp, "  \"fp16\": {\"enabled\": true},\n");
	else if (!strcmp(prec, "bf16"))
		fprintf(fp, "  \"bf16\": {\"enabled\": true},\n");
}

/*
 * What every MoE block builds, deepspeed.moe.layer.MoE's arguments
 * (moe/layer.py:38-53), as the plan was priced (struct runtime: its
 * capacity, dispatch and expert-parallel rules).
 */
struct ds_moe {
	long long experts, top_k, hidden;
	int ep;        /* ep_size */
	int etp;       /* enable_expert_tensor_parallelism */
	double cf;     /* capacity_factor; 0: drop_tokens off */
	int min_capacity;
	int priced;    /* the plan names runtime deepspeed */
};

/*
 * Fill mo for the plan of in under DeepSpeed runtime rt (ds: the plan
 * names it).  Returns 1 for a mixture of experts, 0 for a dense model,
 * -1 after a message when DeepSpeed-MoE cannot run the plan: expert
 * parallelism against runtime_check_ep()'s rules, group-limited routing
 * or a router bias, which TopKGate has not (its router is a Linear
 * without bias, top-k over all experts: moe/sharded_moe.py:480, 383).
 */
static int
moe_settings(const struct emit_in *in, const struct runtime *rt, int ds,
	     struct ds_moe *mo)
{
	const struct plan *p = in->p;
	const struct moe_route *r = &in->prof->route;
	const struct model *m = in->model;
	int etp = p->etp > 0 ? p->etp : p->t, ep = p->e > 1 ? p->e : 1;
	char why[256];

	memset(mo, 0, sizeof(*mo));
	if (r->experts < 1)
		return 0;
	if (runtime_check_ep(rt, p->w, 1, p->t, etp, ep, p->zero, p->shard,
			     why, sizeof(why)))
		return pd2bw_error("--emit deepspeed: %s", why);
	if (r->groups > 1 && r->group_top_k > 0)
		return pd2bw_error("--emit deepspeed: DeepSpeed-MoE's TopKGate "
				   "has no group-limited routing (the model "
				   "routes within its best %lld of %lld expert "
				   "groups); emit megatron",
				   (long long)r->group_top_k,
				   (long long)r->groups);
	/* deepspeed.moe.layer.MoE routes and runs its experts at the
	 * model's width (moe/layer.py:38-53): no latent projections */
	if (m && m->moe.latent)
		return pd2bw_error("--emit deepspeed: DeepSpeed-MoE runs its "
				   "experts at the hidden size; model '%s' "
				   "projects them to a latent %lld "
				   "(LatentMoE); "
				   "emit megatron",
				   m->name ? m->name : "",
				   (long long)m->moe.latent);
	if (m && m->moe.router_bias)
		return pd2bw_error("--emit deepspeed: DeepSpeed-MoE's TopKGate "
				   "has no router bias (a Linear without "
				   "bias, moe/sharded_moe.py:480); emit "
				   "megatron");
	mo->experts = (long long)r->experts;
	mo->top_k = (long long)r->top_k;
	mo->hidden = (long long)in->prof->hidden;
	mo->ep = ep;
	mo->etp = p->t > 1 && etp == p->t;
	mo->cf = m && m->moe.capacity_factor > 0 ? m->moe.capacity_factor
						 : rt->capacity_factor;
	if (rt->dropless)
		mo->cf = 0;
	mo->min_capacity = rt->min_capacity;
	mo->priced = ds;
	return 1;
}

/*
 * The MoE object under key (a JSON member, indented by ind), with the
 * recipe lines that build the layers and the optimizer's groups.
 */
static void
moe_write(FILE *fp, const struct ds_moe *mo, const char *key,
	  const char *ind)
{
	char buf[512], cap[128];
	int n = 0;

	fprintf(fp, "%s\"%s\": {\"num_experts\": %lld, \"ep_size\": %d, "
		    "\"k\": %lld, ",
		ind, key, mo->experts, mo->ep, mo->top_k);
	if (mo->cf > 0)
		fprintf(fp, "\"capacity_factor\": %g, \"min_capacity\": %d, ",
			mo->cf, mo->min_capacity);
	fprintf(fp, "\"drop_tokens\": %s, "
		    "\"enable_expert_tensor_parallelism\": %s,\n",
		mo->cf > 0 ? "true" : "false", mo->etp ? "true" : "false");
	fprintf(fp, "%s  \"recipe\": [\n", ind);
	line(fp, &n, "from deepspeed.moe.layer import MoE");
	line(fp, &n, "from deepspeed.moe.utils import "
		     "split_params_into_different_moe_groups_for_optimizer");
	/* the capacity's arguments, or drop_tokens off */
	if (mo->cf > 0)
		snprintf(cap, sizeof(cap),
			 "capacity_factor=%g, eval_capacity_factor=%g, "
			 "min_capacity=%d, drop_tokens=True",
			 mo->cf, mo->cf, mo->min_capacity);
	else
		snprintf(cap, sizeof(cap), "drop_tokens=False");
	snprintf(buf, sizeof(buf),
		 "moe = MoE(hidden_size=%lld, expert=EXPERT, num_experts=%lld, "
		 "ep_size=%d, k=%lld, %s, use_residual=False, "
		 "enable_expert_tensor_parallelism=%s)",
		 mo->hidden, mo->experts, mo->ep, mo->top_k, cap,
		 mo->etp ? "True" : "False");
	line(fp, &n, buf);
	line(fp, &n, "hidden_states, l_aux, _ = moe(hidden_states)");
	line(fp, &n, "param_groups = "
		     "split_params_into_different_moe_groups_for_optimizer("
		     "{'params': list(model.parameters()), 'name': 'dense'})");
	fprintf(fp, "\n%s  ]}", ind);
}

/* The notes on the MoE layers, lines of a JSON list (*n so far). */
static void
moe_notes(FILE *fp, int *n, const struct ds_moe *mo, const struct plan *p)
{
	char buf[1024];
	int ranks = mo->etp ? p->w : p->w * p->t;

	line(fp, n, "moe: every MoE block's MLP is deepspeed.moe.layer.MoE "
		    "as the recipe builds it (EXPERT: one routed expert's "
		    "MLP); it returns the gate's l_aux, which the loss adds "
		    "(moe/layer.py:105-132); deepspeed.initialize makes the "
		    "expert groups itself (runtime/engine.py:1262-1263)");
	if (mo->ep > 1) {
		int edp = ranks / mo->ep;
		size_t len;

		len = (size_t)snprintf(
			buf, sizeof(buf),
			"expert parallelism %d: ep_size %d of a stage's %d "
			"%s ranks%s; ", mo->ep, mo->ep, ranks,
			mo->etp ? "data-parallel" : "data- and tensor-parallel",
			mo->etp ? " (the experts split over the tensor ranks, "
				  "utils/groups.py:376-403)"
				: " (consecutive ranks, utils/"
				  "groups.py:236-300)");
		if (edp > 1)
			snprintf(buf + len, sizeof(buf) - len,
				 "the experts' gradients are reduced over the "
				 "%d ranks holding the same experts (runtime/"
				 "engine.py:2588-2609)", edp);
		else
			snprintf(buf + len, sizeof(buf) - len,
				 "one rank of a stage holds each expert: its "
				 "gradients are not reduced");
		line(fp, n, buf);
	}
	if (mo->cf > 0)
		snprintf(buf, sizeof(buf),
			 "capacity: each expert takes C = max(%d, ceil(tokens "
			 "/ %lld x %g x %lld)) of a rank's tokens and drops "
			 "the rest; the all-to-alls move all %lld x C rows, "
			 "padded (moe/sharded_moe.py:161-170)%s",
			 mo->min_capacity, mo->experts, mo->cf, mo->top_k,
			 mo->experts,
			 mo->priced ? ", as priced"
				    : "; the plan names another runtime and "
				      "was priced with its dispatcher: plan "
				      "with --runtime deepspeed for "
				      "DeepSpeed-MoE's");
	else
		snprintf(buf, sizeof(buf),
			 "drop_tokens off: the capacity is the busiest "
			 "expert's count, all-reduced over the expert-parallel "
			 "group and read on the host every layer (moe/"
			 "sharded_moe.py:422-431)%s",
			 mo->priced ? ", as priced"
				    : "; the plan names another runtime and "
				      "was priced with its dispatcher");
	line(fp, n, buf);
	line(fp, n, "optimizer: a client optimizer takes param_groups, the "
		  "experts' parameters in groups of their own (moe/utils.py:"
		  "72); an optimizer section gets them from deepspeed."
		  "initialize (runtime/engine.py:1357-1358)");
	if (p->zero == 2)
		line(fp, n, "zero stage 2 with MoE: contiguous_gradients and "
			  "reduce_scatter stay on, their defaults (zero/"
			  "stage_1_and_2.py:619, 624)");
}

/*
 * ZeRO-2 or -3 without a pipeline: deepspeed.initialize(model=MODULE,
 * config=THIS_FILE) on a plain module.  The plan's overlap and bucket
 * size are written out, so that what runs is what was priced: overlap_comm
 * as its deepspeed runtime's overlap-grad-reduce (a plan for another
 * runtime: DeepSpeed's default), reduce_bucket_size as the buckets
 * priced.  Recomputation is the model code's (deepspeed.checkpointing.
 * checkpoint around each recomputed block or attention core), so any
 * per-layer choice runs as planned.
 */
static int
emit_deepspeed_zero(FILE *fp, const struct emit_in *in, const char *prec)
{
	const struct plan *p = in->p;
	struct runtime rt;
	int ds = emit_plan_runtime(p, RUNTIME_DEEPSPEED, &rt);
	int overlap, j, any = 0, moe, nn = 1;
	struct ds_moe mo;

	if (ds < 0)
		return -1;
	moe = moe_settings(in, &rt, ds, &mo);
	if (moe < 0)
		return -1;
	if (p->shard > 0 && p->shard < p->w)
		return pd2bw_error("--emit deepspeed: the plan shards over "
				   "groups of %d of its %d replicas (HSDP), "
				   "which this emitter does not write for "
				   "DeepSpeed; plan with --shard-group 0 or "
				   "emit torchtitan",
				   p->shard, p->w);
	if (p->sp)
		return pd2bw_error("--emit deepspeed: DeepSpeed has no "
				   "sequence parallelism; plan with "
				   "--sequence-parallel off");
	overlap = ds ? runtime_has(&rt, RUNTIME_OPT_OVERLAP_GRAD_REDUCE)
		     : p->zero == 3;
	for (j = 0; j < p->nlayers; j++)
		any |= (p->layer_rc ? p->layer_rc[j] : p->recompute) !=
		       PROF_RC_NONE;

	batch_and_precision(fp, p, prec);
	fprintf(fp, "  \"zero_optimization\": {\"stage\": %d, "
		    "\"overlap_comm\": %s, \"reduce_bucket_size\": %.0f}",
		p->zero, overlap ? "true" : "false", rt.bucket_params);
	if (any)
		fprintf(fp, ",\n  \"activation_checkpointing\": "
			    "{\"partition_activations\": false, "
			    "\"contiguous_memory_optimization\": false, "
			    "\"cpu_checkpointing\": false}");
	fprintf(fp, ",\n  \"pd2bw\": {\n    \"versions\": ");
	emit_json_str(fp, DEEPSPEED_VERSIONS);
	fprintf(fp, ",\n    \"model\": ");
	emit_json_str(fp, p->model);
	fprintf(fp, ",\n    \"runtime\": ");
	emit_json_str(fp, p->runtime ? p->runtime : "");
	if (moe) {
		fprintf(fp, ",\n");
		moe_write(fp, &mo, "moe", "    ");
	}
	fprintf(fp, ",\n    \"notes\": [\n      ");
	emit_json_str(fp, "deepspeed.initialize(model=MODULE, config=THIS_FILE) "
			  "on the whole model: no pipeline engine, which "
			  "refuses ZeRO-2 and -3 (pipe/engine.py:77-78)");
	{
		char note[512];

		snprintf(note, sizeof(note),
			 "ranks: WORLD_SIZE = %d = %d data-parallel ranks x "
			 "%d tensor ranks%s",
			 p->w * p->t, p->w, p->t,
			 p->t > 1 ? "; the model shards its layers over the "
				    "tensor ranks itself and passes its "
				    "groups as deepspeed.initialize(mpu=...), "
				    "as Megatron-DeepSpeed does"
				  : "");
		fprintf(fp, ",\n      ");
		emit_json_str(fp, note);
		snprintf(note, sizeof(note),
			 "zero stage %d: %s sharded over the %d replicas; "
			 "overlap_comm %s and buckets of %.0f elements as "
			 "priced%s",
			 p->zero,
			 p->zero == 3 ? "parameters, gradients and optimizer "
					"state"
				      : "gradients and optimizer state",
			 p->w, overlap ? "on" : "off", rt.bucket_params,
			 ds ? "" : " (the plan names another runtime: "
				   "DeepSpeed's own overlap rule is written)");
		fprintf(fp, ",\n      ");
		emit_json_str(fp, note);
		if (any) {
			snprintf(note, sizeof(note),
				 "recompute %s: the model wraps each "
				 "recomputed %s in deepspeed.checkpointing."
				 "checkpoint",
				 plan_rc_names[p->recompute],
				 p->recompute == PROF_RC_SELECTIVE
					 ? "attention core"
					 : "block");
			fprintf(fp, ",\n      ");
			emit_json_str(fp, note);
		}
	}
	if (moe)
		moe_notes(fp, &nn, &mo, p);
	fprintf(fp, "\n    ]\n  }\n}\n");
	return 0;
}

int
emit_deepspeed(FILE *fp, const struct emit_in *in, const struct emit_shape *sh)
{
	const struct plan *p = in->p;
	const char *prec = in->prof->precision ? in->prof->precision : "fp32";
	struct emit_rc rc;
	char note[1024];
	int s, j, nnotes = 0, nrec = 0, any = 0, world = p->w * p->d * p->t;
	int interval, moe;
	struct runtime rt;
	struct ds_moe mo;

	(void)sh;
	/* cpu_checkpointing offloads only checkpointed (fully recomputed)
	 * inputs, not what pd2bw's offload prices */
	if (p->offload)
		return pd2bw_error("--emit deepspeed: DeepSpeed cannot offload "
				   "the activations as planned; plan with "
				   "--offload off");
	if (p->optimizer == PLAN_MUON)
		return pd2bw_error("--emit deepspeed: the plan is priced with "
				   "Megatron-Core's Muon; plan with --optimizer "
				   "adam, or emit megatron");
	if (!strcmp(prec, "fp8") || !strcmp(prec, "nvfp4"))
		return pd2bw_error("--emit deepspeed: DeepSpeed's config has "
				   "no %s training (only fp16 and bf16 "
				   "sections); plan with --precision bf16, or "
				   "emit megatron%s", prec,
				   !strcmp(prec, "fp8") ? " or torchtitan" : "");
	if (p->d == 1 && p->zero >= 2 &&
	    (p->sched == PLAN_FLUSH || p->sched == PLAN_NONE))
		return emit_deepspeed_zero(fp, in, prec);
	moe = emit_plan_runtime(p, RUNTIME_DEEPSPEED, &rt);
	if (moe >= 0)
		moe = moe_settings(in, &rt, moe, &mo);
	if (moe < 0)
		return -1;
	if (p->sched == PLAN_2BW || p->sched == PLAN_GPIPE)
		return pd2bw_error("--emit deepspeed: DeepSpeed's pipeline "
				   "engine has no %s schedule (only 1F1B with "
				   "a flush); plan with -s flush",
				   plan_sched_names[p->sched]);
	if (p->v > 1)
		return pd2bw_error("--emit deepspeed: DeepSpeed's pipeline "
				   "engine does not interleave; plan with "
				   "--interleave 1");
	if (p->sp)
		return pd2bw_error("--emit deepspeed: DeepSpeed's pipeline "
				   "engine has no sequence parallelism; plan "
				   "with --sequence-parallel off");
	/* ZeRO-2/3 under a pipeline: the pipeline engine asserts stage < 2
	 * (runtime/pipe/engine.py:77-78) */
	if (p->zero >= 2)
		return pd2bw_error("--emit deepspeed: DeepSpeed's pipeline "
				   "engine runs ZeRO stage 0 or 1 only (pipe/"
				   "engine.py:77-78); the plan is ZeRO-%d over "
				   "%d stages: plan with --zero 0 or 1, or "
				   "--depth 1", p->zero, p->d);

	/* activation_checkpoint_interval recomputes all layers it may
	 * checkpoint or none: any recomputation becomes full for every
	 * layer (the embedding's and head's full is their none: the recipe
	 * names the blocks alone in checkpointable_layers). */
	memset(&rc, 0, sizeof(rc));
	rc.layer_rc = xcalloc((size_t)p->nlayers, sizeof(int));
	for (j = 0; j < p->nlayers; j++)
		any |= (p->layer_rc ? p->layer_rc[j] : p->recompute) !=
		       PROF_RC_NONE;
	for (j = 0; j < p->nlayers; j++)
		rc.layer_rc[j] = any ? PROF_RC_FULL : PROF_RC_NONE;
	interval = any ? 1 : 0;
	if (emit_rc_eval(in, &rc)) {
		emit_rc_release(&rc);
		return -1;
	}
	if (rc.evaluated && !rc.fits) {
		emit_rc_release(&rc);
		return pd2bw_error("--emit deepspeed: what DeepSpeed would run "
				   "(every layer recomputed) needs %.2f GiB "
				   "per GPU, over the limit",
				   rc.peak_bytes / 1073741824.0);
	}

	batch_and_precision(fp, p, prec);
	fprintf(fp, "  \"zero_optimization\": {\"stage\": %d},\n",
		p->zero ? 1 : 0);
	if (any)
		fprintf(fp, "  \"activation_checkpointing\": "
			    "{\"partition_activations\": false, "
			    "\"contiguous_memory_optimization\": false, "
			    "\"cpu_checkpointing\": false},\n");
	fprintf(fp, "  \"pipeline\": {\n");
	fprintf(fp, "    \"stages\": %d,\n", p->d);
	fprintf(fp, "    \"activation_checkpoint_interval\": %d,\n", interval);
	fprintf(fp, "    \"pd2bw_versions\": ");
	emit_json_str(fp, DEEPSPEED_VERSIONS);
	fprintf(fp, ",\n    \"pd2bw_model\": ");
	emit_json_str(fp, p->model);
	fprintf(fp, ",\n    \"pd2bw_schedule\": ");
	emit_json_str(fp, plan_sched_names[p->sched]);
	fprintf(fp, ",\n    \"pd2bw_topology\": {\"num_pp\": %d, \"num_mp\": "
		    "%d, \"num_dp\": %d},\n",
		p->d, p->t, p->w);
	fprintf(fp, "    \"pd2bw_parts\": [");
	for (s = 0; s < p->nstages; s++)
		fprintf(fp, "%d, ", p->stages[s].first);
	fprintf(fp, "%d],\n", p->nlayers);
	fprintf(fp, "    \"pd2bw_stage_layers\": [");
	for (s = 0; s < p->nstages; s++) {
		const struct plan_stage *st = &p->stages[s];

		if (st->first == st->last)
			snprintf(note, sizeof(note), "%s",
				 p->layer_names[st->first]);
		else
			snprintf(note, sizeof(note), "%s..%s",
				 p->layer_names[st->first],
				 p->layer_names[st->last]);
		fprintf(fp, "%s", s ? ", " : "");
		emit_json_str(fp, note);
	}
	fprintf(fp, "],\n    \"pd2bw_recipe\": [\n");
	line(fp, &nrec, "from deepspeed.pipe import PipelineModule, "
			"PipeModelDataParallelTopology");
	line(fp, &nrec, "class Pd2bwPipe(PipelineModule):");
	line(fp, &nrec, "    def _partition_layers(self, method=None):");
	snprintf(note, sizeof(note),
		 "        self.parts = ds_config['pipeline']['pd2bw_parts']");
	line(fp, &nrec, note);
	line(fp, &nrec, "        stage_id = self._topo.get_coord("
			"self.global_rank).pipe");
	line(fp, &nrec, "        self._set_bounds(start=self.parts[stage_id], "
			"stop=self.parts[stage_id + 1])");
	snprintf(note, sizeof(note),
		 "topo = PipeModelDataParallelTopology(num_pp=%d, num_mp=%d, "
		 "num_dp=%d)",
		 p->d, p->t, p->w);
	line(fp, &nrec, note);
	/* checkpointable_layers: the blocks alone, as priced; without it a
	 * PipelineModule checkpoints every layer with parameters, the
	 * embedding and the head too (pipe/module.py:661-667) */
	snprintf(note, sizeof(note),
		 "model = Pd2bwPipe(layers=LAYERS, topology=topo, "
		 "loss_fn=LOSS, activation_checkpoint_interval=%d%s)",
		 interval,
		 interval ? ", checkpointable_layers=BLOCK_CLASSES" : "");
	line(fp, &nrec, note);
	fprintf(fp, "\n    ],\n");
	if (moe) {
		moe_write(fp, &mo, "pd2bw_moe", "    ");
		fprintf(fp, ",\n");
	}
	fprintf(fp, "    \"pd2bw_notes\": [\n");

#define NOTE(...)                                                             \
	do {                                                                  \
		snprintf(note, sizeof(note), __VA_ARGS__);                    \
		fprintf(fp, "%s      ", nnotes++ ? ",\n" : "");               \
		emit_json_str(fp, note);                                      \
	} while (0)

	NOTE("ranks: WORLD_SIZE = %d = %d stages x %d replicas x %d tensor "
	     "ranks; PipeModelDataParallelTopology numbers stage s, replica "
	     "r, tensor rank j as (s x %d + r) x %d + j: start ranks with "
	     "pd2bw-plan --emit launch",
	     world, p->d, p->w, p->t, p->w, p->t);
	if (p->t > 1)
		NOTE("tensor parallelism %d: DeepSpeed's pipeline engine "
		     "only groups the ranks; the layers must shard "
		     "themselves over the topology's model axis (as "
		     "Megatron-DeepSpeed's do)",
		     p->t);
	NOTE("partition: LAYERS are the %d chain layers of the plan (%s "
	     "first, %s last); the recipe's _partition_layers takes "
	     "pd2bw_parts (stage s runs layers parts[s] to parts[s+1]-1) "
	     "and must call _set_bounds, or every stage builds every "
	     "layer",
	     p->nlayers, p->layer_names[0], p->layer_names[p->nlayers - 1]);
	if (any && rc.changed)
		NOTE("recompute: the plan's is %s; DeepSpeed's "
		     "activation_checkpoint_interval recomputes every block "
		     "or none, so every block recomputes its forward "
		     "(selective counted as full: no more memory, more "
		     "time)",
		     plan_rc_names[p->recompute]);
	else if (any)
		NOTE("recompute full: activation_checkpoint_interval 1, "
		     "every block recomputes its forward");
	if (any)
		NOTE("checkpointable_layers: BLOCK_CLASSES names the class "
		     "of the transformer blocks among LAYERS, which DeepSpeed "
		     "then checkpoints alone, as planned; without it every "
		     "layer with parameters is checkpointed, the embedding "
		     "and head too (pipe/module.py:661-667), and a reentrant "
		     "checkpoint leaves the embedding without gradients "
		     "(module.py:650-652)");
	if (rc.changed && rc.evaluated)
		NOTE("predicted: the plan %.1f ms per iteration, peak %.2f "
		     "GiB per GPU; what runs %.1f ms, peak %.2f GiB",
		     p->iter_ms, p->peak_mem_bytes / 1073741824.0, rc.iter_ms,
		     rc.peak_bytes / 1073741824.0);
	NOTE("zero stage %d: %s", p->zero ? 1 : 0,
	     p->zero ? "optimizer state sharded over the data-parallel "
		       "replicas, as planned (stage 1 is the most the "
		       "pipeline engine allows)"
		     : "optimizer state on every replica, as planned");
	if (moe)
		moe_notes(fp, &nnotes, &mo, p);
#undef NOTE
	fprintf(fp, "\n    ]\n  }\n}\n");
	emit_rc_release(&rc);
	return 0;
}
