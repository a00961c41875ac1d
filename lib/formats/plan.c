/*
 * plan.c - the plan format pd2bw-plan/1 and /2: writer, strict reader,
 * and the small queries a runtime needs (stage of a rank, input hashes).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/infile.h"
#include "pd2bw/plan.h"
#include "pd2bw/profile.h"
#include "pd2bw/yml.h"

const char *const plan_sched_names[] = {"2bw", "flush", "gpipe", "none", NULL};
const char *const plan_optimizer_names[] = {"adam", "muon", NULL};
const char *const plan_place_names[] = {"stages-in-node", "replicas-in-node",
					NULL};
const char *const plan_rc_names[] = {"none", "selective", "full", "mixed",
				     NULL};
const char *const plan_bind_names[] = {"compute", "p2p", "allreduce",
				       "memory", "host", NULL};

void
plan_init(struct plan *p)
{
	memset(p, 0, sizeof(*p));
	p->t = 1;
	p->c = 1;
	p->e = 1;
	p->v = 1;
	p->weight_bytes = p->grad_bytes = p->opt_bytes = p->version_bytes = -1;
	p->context_gib = p->frag = -1;
}

void
plan_release(struct plan *p)
{
	int i;

	free(p->model);
	free(p->gpu);
	free(p->profile);
	free(p->profile_hash);
	free(p->cluster);
	free(p->cluster_hash);
	free(p->place_reason);
	free(p->runtime);
	free(p->precision);
	free(p->fp8_recipe);
	free(p->fusions);
	free(p->attention);
	free(p->recompute_modules);
	free(p->lora_targets);
	free(p->module_precision);
	free(p->pipeline_layout);
	free(p->bind_reason);
	for (i = 0; i < p->nlayers; i++)
		free(p->layer_names[i]);
	free(p->layer_names);
	free(p->layer_rc);
	free(p->lp_status);
	free(p->stages);
	free(p->ranks);
	free(p->alts);
	plan_init(p);
}

int
plan_stage_of_rank(const struct plan *p, int r)
{
	if (r < 0 || r >= p->nranks)
		return -1;
	return p->ranks[r].stage;
}

/* The two orders of plan_ranks_fill(), as pd2bw-plan/2 names them: index
 * enum plan_place. */
static const char *const rank_orders[] = {"tp,cp,stage,replica",
					  "tp,cp,replica,stage", NULL};

/* Rank g of plan_ranks_fill()'s rule, gpn GPUs a node, into *rk. */
static void
rank_at(const struct plan *p, int g, int gpn, struct plan_rank *rk)
{
	int c = p->c > 1 ? p->c : 1, grp = g / (p->t * c);

	rk->stage = p->place == PLAN_STAGES_IN_NODE ? grp % p->d : grp / p->w;
	rk->replica = p->place == PLAN_STAGES_IN_NODE ? grp / p->d : grp % p->w;
	rk->tp = g % p->t;
	rk->cp = g / p->t % c;
	rk->node = g / gpn;
	rk->gpu = g % gpn;
}

void
plan_ranks_fill(struct plan *p, int gpn)
{
	int c = p->c > 1 ? p->c : 1, g, n = p->w * p->d * p->t * c;

	free(p->ranks);
	p->nranks = n;
	p->ranks = xcalloc((size_t)n, sizeof(*p->ranks));
	for (g = 0; g < n; g++)
		rank_at(p, g, gpn, &p->ranks[g]);
}

int
plan_ranks_rule(const struct plan *p)
{
	int c = p->c > 1 ? p->c : 1, g, gpn;

	if (p->nranks < 1 || p->t < 1 || p->w < 1 || p->d < 1 ||
	    p->nranks != p->w * p->d * p->t * c)
		return 0;
	/* the first rank of node 1 says how many node 0 holds */
	for (gpn = 1; gpn < p->nranks && p->ranks[gpn].node == 0; gpn++)
		;
	for (g = 0; g < p->nranks; g++) {
		const struct plan_rank *rk = &p->ranks[g];
		struct plan_rank want;

		rank_at(p, g, gpn, &want);
		if (rk->stage != want.stage || rk->replica != want.replica ||
		    rk->tp != want.tp || rk->cp != want.cp ||
		    rk->node != want.node || rk->gpu != want.gpu)
			return 0;
	}
	return gpn;
}

void
plan_hash_bytes(const char *buf, size_t len, char out[17])
{
	/* FNV-1a, 64 bits: offset basis and prime of the reference
	 * (http://www.isthe.com/chongo/tech/comp/fnv/). */
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)buf[i];
		h *= 0x100000001b3ULL;
	}
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

int
plan_hash_file(const char *path, char out[17])
{
	size_t len;
	const char *buf = infile_read(path, &len);

	if (!buf)
		return -1;
	plan_hash_bytes(buf, len, out);
	infile_release(buf);
	return 0;
}

/* ---- writing ---- */

static void
write_alt(struct yml_out *o, const struct plan_alt *a)
{
	yml_out_map(o, 1);
	yml_out_kstr(o, "schedule", plan_sched_names[a->sched]);
	yml_out_kint(o, "width", a->w);
	yml_out_kint(o, "depth", a->d);
	yml_out_kint(o, "microbatch", a->b);
	yml_out_kint(o, "accumulation", a->m);
	yml_out_kstr(o, "recompute", plan_rc_names[a->recompute]);
	yml_out_kint(o, "tensor_parallel", a->t);
	yml_out_kbool(o, "sequence_parallel", a->sp);
	if (a->c > 1)
		yml_out_kint(o, "context_parallel", a->c);
	if (a->e > 1)
		yml_out_kint(o, "expert_parallel", a->e);
	yml_out_kint(o, "interleave", a->v);
	yml_out_kbool(o, "optimizer_sharding", a->zero > 0);
	if (a->zero > 1)
		yml_out_kint(o, "zero_stage", a->zero);
	if (a->shard > 0)
		yml_out_kint(o, "shard_group", a->shard);
	if (a->offload)
		yml_out_kbool(o, "activation_offload", a->offload);
	yml_out_kstr(o, "placement", plan_place_names[a->place]);
	yml_out_kdbl(o, "iteration_ms", a->iter_ms);
	yml_out_kdbl(o, "samples_per_s", a->samples_s);
	yml_out_kint(o, "memory_bytes", a->mem_bytes);
	yml_out_end_map(o);
}

static void
write_stage(struct yml_out *o, const struct plan_stage *s, int cp, int ep,
	    int zero, int offload)
{
	yml_out_map(o, 1);
	yml_out_kint(o, "first", s->first);
	yml_out_kint(o, "last", s->last);
	yml_out_kstr(o, "recompute", plan_rc_names[s->recompute]);
	yml_out_kint(o, "in_flight", s->in_flight);
	yml_out_kint(o, "params", s->params);
	yml_out_kdbl(o, "compute_ms", s->compute_ms);
	yml_out_kdbl(o, "fwd_ms", s->fwd_ms);
	yml_out_kdbl(o, "recompute_ms", s->recompute_ms);
	yml_out_kdbl(o, "tp_ms", s->tp_ms);
	yml_out_kdbl(o, "p2p_ms", s->p2p_ms);
	yml_out_kdbl(o, "allreduce_ms", s->allreduce_ms);
	yml_out_kdbl(o, "gather_ms", s->gather_ms);
	yml_out_kdbl(o, "optimizer_ms", s->optimizer_ms);
	if (s->sync_sm_ms > 0)
		yml_out_kdbl(o, "sync_sm_ms", s->sync_sm_ms);
	yml_out_kdbl(o, "host_ms", s->host_ms);
	if (cp > 1)
		yml_out_kdbl(o, "cp_ms", s->cp_ms);
	if (ep > 1 || s->ep_ms > 0)
		yml_out_kdbl(o, "ep_ms", s->ep_ms);
	if (zero > 1)
		yml_out_kdbl(o, "fsdp_ms", s->fsdp_ms);
	if (offload)
		yml_out_kdbl(o, "offload_ms", s->offload_ms);
	yml_out_kdbl(o, "in_gb_s", s->in_gb_s);
	yml_out_kdbl(o, "ring_gb_s", s->ring_gb_s);
	yml_out_kint(o, "weight_bytes", s->weight_bytes);
	yml_out_kint(o, "state_bytes", s->state_bytes);
	yml_out_kint(o, "stash_bytes", s->stash_bytes);
	yml_out_kint(o, "work_bytes", s->work_bytes);
	yml_out_kint(o, "runtime_bytes", s->runtime_bytes);
	yml_out_kint(o, "memory_bytes", s->mem_bytes);
	yml_out_end_map(o);
}

int
plan_write(const struct plan *p, const char *path)
{
	struct yml_out o;
	int i, gpn = 0;

	if (p->nranks > PLAN_MAX_LISTED_RANKS)
		gpn = plan_ranks_rule(p);
	if (yml_out_open(&o, path))
		return -1;
	yml_out_map(&o, 0);
	yml_out_kstr(&o, "format", gpn ? "pd2bw-plan/2" : "pd2bw-plan/1");

	yml_out_str(&o, "inputs");
	yml_out_map(&o, 0);
	yml_out_kstr(&o, "model", p->model);
	yml_out_kstr(&o, "gpu", p->gpu);
	yml_out_kstr(&o, "profile", p->profile);
	yml_out_kstr(&o, "profile_hash", p->profile_hash);
	yml_out_kstr(&o, "cluster", p->cluster);
	yml_out_kstr(&o, "cluster_hash", p->cluster_hash);
	yml_out_kint(&o, "nodes", p->nodes);
	yml_out_kint(&o, "gpus_per_node", p->gpus_per_node);
	yml_out_kint(&o, "gpu_memory_bytes", p->gpu_mem_bytes);
	yml_out_kint(&o, "reserve_bytes", p->reserve_bytes);
	yml_out_end_map(&o);

	yml_out_str(&o, "config");
	yml_out_map(&o, 0);
	yml_out_kstr(&o, "runtime", p->runtime ? p->runtime : "");
	if (p->precision)
		yml_out_kstr(&o, "precision", p->precision);
	if (p->fp8_recipe)
		yml_out_kstr(&o, "fp8_recipe", p->fp8_recipe);
	if (p->seq_len > 0)
		yml_out_kint(&o, "seq_len", p->seq_len);
	if (p->doc_len > 0)
		yml_out_kint(&o, "doc_len", p->doc_len);
	if (p->lora_rank > 0)
		yml_out_kint(&o, "lora_rank", p->lora_rank);
	if (p->bf16_first > 0)
		yml_out_kint(&o, "bf16_first_layers", p->bf16_first);
	if (p->bf16_last > 0)
		yml_out_kint(&o, "bf16_last_layers", p->bf16_last);
	if (p->module_precision)
		yml_out_kstr(&o, "module_precision", p->module_precision);
	if (p->lora_targets)
		yml_out_kstr(&o, "lora_targets", p->lora_targets);
	if (p->trainable > 0)
		yml_out_kdbl(&o, "trainable", p->trainable);
	{
		/* the memory figures given, each where it was */
		const struct {
			const char *k;
			double v;
		} mem[] = {
			{"weight_bytes", p->weight_bytes},
			{"grad_bytes", p->grad_bytes},
			{"optimizer_bytes", p->opt_bytes},
			{"version_bytes", p->version_bytes},
			{"context_memory_gib", p->context_gib},
			{"fragmentation", p->frag},
		};
		size_t j;

		for (j = 0; j < sizeof(mem) / sizeof(mem[0]); j++)
			if (mem[j].v >= 0)
				yml_out_kdbl(&o, mem[j].k, mem[j].v);
	}
	if (p->fusions)
		yml_out_kstr(&o, "fusions", p->fusions);
	if (p->attention)
		yml_out_kstr(&o, "attention", p->attention);
	if (p->recompute_modules)
		yml_out_kstr(&o, "recompute_modules", p->recompute_modules);
	if (p->optimizer != PLAN_ADAM)
		yml_out_kstr(&o, "optimizer",
			     plan_optimizer_names[p->optimizer]);
	if (p->pipeline_layout)
		yml_out_kstr(&o, "pipeline_layout", p->pipeline_layout);
	yml_out_kstr(&o, "schedule", plan_sched_names[p->sched]);
	yml_out_kint(&o, "width", p->w);
	yml_out_kint(&o, "depth", p->d);
	yml_out_kint(&o, "microbatch", p->b);
	yml_out_kint(&o, "accumulation", p->m);
	yml_out_kint(&o, "global_batch", p->global_batch);
	yml_out_kstr(&o, "recompute", plan_rc_names[p->recompute]);
	yml_out_kint(&o, "tensor_parallel", p->t);
	yml_out_kbool(&o, "sequence_parallel", p->sp);
	if (p->c > 1)
		yml_out_kint(&o, "context_parallel", p->c);
	if (p->e > 1)
		yml_out_kint(&o, "expert_parallel", p->e);
	if (p->e > 1 && p->etp > 0 && p->etp != p->t)
		yml_out_kint(&o, "expert_tensor_parallel", p->etp);
	if (p->moe_imbalance > 1)
		yml_out_kdbl(&o, "moe_imbalance", p->moe_imbalance);
	if (p->capacity_factor > 0)
		yml_out_kdbl(&o, "capacity_factor", p->capacity_factor);
	if (p->moe_rank_capacity > 0)
		yml_out_kdbl(&o, "moe_rank_capacity", p->moe_rank_capacity);
	yml_out_kint(&o, "interleave", p->v);
	yml_out_kbool(&o, "optimizer_sharding", p->zero > 0);
	if (p->zero > 1)
		yml_out_kint(&o, "zero_stage", p->zero);
	if (p->shard > 0)
		yml_out_kint(&o, "shard_group", p->shard);
	if (p->offload)
		yml_out_kbool(&o, "activation_offload", p->offload);
	if (p->offload && p->offload_blocks > 0)
		yml_out_kint(&o, "offload_blocks", p->offload_blocks);
	yml_out_kstr(&o, "placement", plan_place_names[p->place]);
	yml_out_kstr(&o, "placement_reason", p->place_reason);
	yml_out_end_map(&o);

	yml_out_str(&o, "prediction");
	yml_out_map(&o, 0);
	yml_out_kdbl(&o, "iteration_ms", p->iter_ms);
	yml_out_kdbl(&o, "samples_per_s", p->samples_s);
	yml_out_kdbl(&o, "tflops_per_gpu", p->tflops_per_gpu);
	yml_out_kdbl(&o, "bubble_fraction", p->bubble_frac);
	yml_out_kint(&o, "peak_memory_bytes", p->peak_mem_bytes);
	yml_out_kstr(&o, "binding", plan_bind_names[p->bind]);
	yml_out_kstr(&o, "binding_reason", p->bind_reason);
	yml_out_str(&o, "breakdown_ms");
	yml_out_map(&o, 1);
	yml_out_kdbl(&o, "compute", p->terms.compute_ms);
	yml_out_kdbl(&o, "recompute", p->terms.recompute_ms);
	yml_out_kdbl(&o, "tp", p->terms.tp_ms);
	yml_out_kdbl(&o, "p2p", p->terms.p2p_ms);
	yml_out_kdbl(&o, "allreduce", p->terms.allreduce_ms);
	yml_out_kdbl(&o, "bubble", p->terms.bubble_ms);
	yml_out_kdbl(&o, "host", p->terms.host_ms);
	yml_out_kdbl(&o, "optimizer", p->terms.optimizer_ms);
	if (p->c > 1)
		yml_out_kdbl(&o, "cp", p->terms.cp_ms);
	if (p->e > 1 || p->terms.ep_ms > 0)
		yml_out_kdbl(&o, "ep", p->terms.ep_ms);
	if (p->zero > 1)
		yml_out_kdbl(&o, "fsdp", p->terms.fsdp_ms);
	if (p->offload)
		yml_out_kdbl(&o, "offload", p->terms.offload_ms);
	yml_out_end_map(&o);
	yml_out_end_map(&o);

	yml_out_str(&o, "layers");
	yml_out_seq(&o, 1);
	for (i = 0; i < p->nlayers; i++)
		yml_out_str(&o, p->layer_names[i]);
	yml_out_end_seq(&o);

	yml_out_str(&o, "layer_recompute");
	yml_out_seq(&o, 1);
	for (i = 0; i < p->nlayers; i++)
		yml_out_str(&o, prof_rc_names[p->layer_rc ? p->layer_rc[i]
							   : p->recompute]);
	yml_out_end_seq(&o);
	yml_out_kstr(&o, "layer_recompute_solver",
		     p->lp_status ? p->lp_status : "not run");

	yml_out_str(&o, "stages");
	yml_out_seq(&o, 0);
	for (i = 0; i < p->nstages; i++)
		write_stage(&o, &p->stages[i], p->c, p->e, p->zero,
			    p->offload);
	yml_out_end_seq(&o);

	yml_out_str(&o, "ranks");
	if (gpn) {
		/* the rule that numbers them, too many to list */
		yml_out_map(&o, 1);
		yml_out_kstr(&o, "order", rank_orders[p->place]);
		yml_out_kint(&o, "gpus_per_node", gpn);
		yml_out_end_map(&o);
	} else {
		yml_out_seq(&o, 0);
	}
	for (i = 0; !gpn && i < p->nranks; i++) {
		yml_out_map(&o, 1);
		yml_out_kint(&o, "rank", i);
		yml_out_kint(&o, "node", p->ranks[i].node);
		yml_out_kint(&o, "gpu", p->ranks[i].gpu);
		yml_out_kint(&o, "stage", p->ranks[i].stage);
		yml_out_kint(&o, "replica", p->ranks[i].replica);
		yml_out_kint(&o, "tp", p->ranks[i].tp);
		if (p->c > 1)
			yml_out_kint(&o, "cp", p->ranks[i].cp);
		yml_out_end_map(&o);
	}
	if (!gpn)
		yml_out_end_seq(&o);

	yml_out_str(&o, "alternatives");
	yml_out_seq(&o, 0);
	for (i = 0; i < p->nalts; i++)
		write_alt(&o, &p->alts[i]);
	yml_out_end_seq(&o);

	yml_out_end_map(&o);
	return yml_out_close(&o);
}

/* ---- reading ---- */

#define BIG 1e15
#define HUGE_COUNT 1e9

/*
 * optimizer_sharding (every version) with zero_stage (2 or 3, written
 * only then): the stage into *zero.
 */
static int
zero_stage(struct yml_doc *d, yaml_node_t *n, int *zero, int zs)
{
	if (zs <= 0)
		return 0;
	if (!*zero)
		return yml_err(d, n, "zero_stage %d needs optimizer_sharding "
			       "true", zs);
	*zero = zs;
	return 0;
}

static int
read_alt(struct yml_doc *d, yaml_node_t *n, struct plan_alt *a)
{
	int zs = 0;
	struct yml_key keys[] = {
		YK_ENUM("schedule", 1, &a->sched, plan_sched_names),
		YK_INT("width", 1, &a->w, 1, HUGE_COUNT),
		YK_INT("depth", 1, &a->d, 1, HUGE_COUNT),
		YK_INT("microbatch", 1, &a->b, 1, HUGE_COUNT),
		YK_INT("accumulation", 1, &a->m, 1, HUGE_COUNT),
		YK_ENUM("recompute", 1, &a->recompute, plan_rc_names),
		YK_INT("tensor_parallel", 1, &a->t, 1, 4096),
		YK_BOOL("sequence_parallel", 1, &a->sp),
		YK_INT("context_parallel", 0, &a->c, 1, 4096),
		YK_INT("expert_parallel", 0, &a->e, 1, 1 << 20),
		YK_INT("interleave", 1, &a->v, 1, 4096),
		YK_BOOL("optimizer_sharding", 1, &a->zero),
		YK_INT("zero_stage", 0, &zs, 2, 3),
		YK_INT("shard_group", 0, &a->shard, 1, HUGE_COUNT),
		YK_BOOL("activation_offload", 0, &a->offload),
		YK_ENUM("placement", 1, &a->place, plan_place_names),
		YK_DBL("iteration_ms", 1, &a->iter_ms, 0, BIG),
		YK_DBL("samples_per_s", 1, &a->samples_s, 0, BIG),
		YK_I64("memory_bytes", 1, &a->mem_bytes, 0, BIG),
	};

	a->c = a->e = 1;
	if (yml_map(d, n, keys, sizeof(keys) / sizeof(keys[0])))
		return -1;
	return zero_stage(d, n, &a->zero, zs);
}

static int
read_stage(struct yml_doc *d, yaml_node_t *n, struct plan_stage *s)
{
	struct yml_key keys[] = {
		YK_INT("first", 1, &s->first, 0, HUGE_COUNT),
		YK_INT("last", 1, &s->last, 0, HUGE_COUNT),
		YK_ENUM("recompute", 1, &s->recompute, plan_rc_names),
		YK_INT("in_flight", 1, &s->in_flight, 0, HUGE_COUNT),
		YK_I64("params", 1, &s->params, 0, BIG),
		YK_DBL("compute_ms", 1, &s->compute_ms, 0, BIG),
		YK_DBL("fwd_ms", 0, &s->fwd_ms, 0, BIG),
		YK_DBL("recompute_ms", 1, &s->recompute_ms, 0, BIG),
		YK_DBL("tp_ms", 1, &s->tp_ms, 0, BIG),
		YK_DBL("p2p_ms", 1, &s->p2p_ms, 0, BIG),
		YK_DBL("allreduce_ms", 1, &s->allreduce_ms, 0, BIG),
		YK_DBL("gather_ms", 0, &s->gather_ms, 0, BIG),
		YK_DBL("optimizer_ms", 0, &s->optimizer_ms, 0, BIG),
		YK_DBL("sync_sm_ms", 0, &s->sync_sm_ms, 0, BIG),
		YK_DBL("host_ms", 0, &s->host_ms, 0, BIG),
		YK_DBL("cp_ms", 0, &s->cp_ms, 0, BIG),
		YK_DBL("ep_ms", 0, &s->ep_ms, 0, BIG),
		YK_DBL("fsdp_ms", 0, &s->fsdp_ms, 0, BIG),
		YK_DBL("offload_ms", 0, &s->offload_ms, 0, BIG),
		YK_DBL("in_gb_s", 1, &s->in_gb_s, 0, BIG),
		YK_DBL("ring_gb_s", 1, &s->ring_gb_s, 0, BIG),
		YK_I64("weight_bytes", 1, &s->weight_bytes, 0, BIG),
		YK_I64("state_bytes", 1, &s->state_bytes, 0, BIG),
		YK_I64("stash_bytes", 1, &s->stash_bytes, 0, BIG),
		YK_I64("work_bytes", 1, &s->work_bytes, 0, BIG),
		YK_I64("runtime_bytes", 0, &s->runtime_bytes, 0, BIG),
		YK_I64("memory_bytes", 1, &s->mem_bytes, 0, BIG),
	};

	if (yml_map(d, n, keys, sizeof(keys) / sizeof(keys[0])))
		return -1;
	if (s->last < s->first)
		return yml_err(d, n, "stage ends before it starts");
	return 0;
}

static int
read_rank(struct yml_doc *d, yaml_node_t *n, struct plan_rank *r, int want,
	  const struct plan *p)
{
	int rank = -1;
	struct yml_key keys[] = {
		YK_INT("rank", 1, &rank, 0, HUGE_COUNT),
		YK_INT("node", 1, &r->node, 0, p->nodes - 1),
		YK_INT("gpu", 1, &r->gpu, 0, p->gpus_per_node - 1),
		YK_INT("stage", 1, &r->stage, 0, p->d - 1),
		YK_INT("replica", 1, &r->replica, 0, p->w - 1),
		YK_INT("tp", 1, &r->tp, 0, p->t - 1),
		YK_INT("cp", 0, &r->cp, 0, p->c - 1),
	};

	if (yml_map(d, n, keys, sizeof(keys) / sizeof(keys[0])))
		return -1;
	if (rank != want)
		return yml_err(d, n, "expected rank %d, found %d", want, rank);
	return 0;
}

/* pd2bw-plan/2's ranks: the rule of plan_ranks_fill(), expanded. */
static int
read_rank_rule(struct yml_doc *d, yaml_node_t *n, struct plan *p)
{
	int order = -1, gpn = 0;
	int64_t nr = (int64_t)p->w * p->d * p->t * p->c, need;
	struct yml_key keys[] = {
		YK_ENUM("order", 1, &order, rank_orders),
		YK_INT("gpus_per_node", 1, &gpn, 1, p->gpus_per_node),
	};

	if (yml_map(d, n, keys, sizeof(keys) / sizeof(keys[0])))
		return -1;
	if (order != p->place)
		return yml_err(d, n, "ranks in order %s, but placement %s "
			       "numbers them %s",
			       rank_orders[order], plan_place_names[p->place],
			       rank_orders[p->place]);
	need = (nr + gpn - 1) / gpn;
	if (need > p->nodes)
		return yml_err(d, n, "%lld ranks at %d per node need %lld "
			       "nodes, more than the plan's %d",
			       (long long)nr, gpn, (long long)need, p->nodes);
	plan_ranks_fill(p, gpn);
	return 0;
}

static int
read_plan(struct yml_doc *d, struct plan *p)
{
	yaml_node_t *root, *inputs = NULL, *config = NULL, *pred = NULL;
	yaml_node_t *layers = NULL, *stages = NULL, *ranks = NULL;
	yaml_node_t *lrc = NULL;
	yaml_node_t *alts = NULL, *brk = NULL;
	char *format = NULL;
	size_t i, n;
	int ret = -1, zs = 0, version;
	struct yml_key top[] = {
		YK_STR("format", 1, &format),
		YK_MAP("inputs", 1, &inputs),
		YK_MAP("config", 1, &config),
		YK_MAP("prediction", 1, &pred),
		YK_SEQ("layers", 1, &layers),
		YK_SEQ("layer_recompute", 1, &lrc),
		YK_STR("layer_recompute_solver", 1, &p->lp_status),
		YK_SEQ("stages", 1, &stages),
		YK_ANY("ranks", 1, &ranks),
		YK_SEQ("alternatives", 1, &alts),
	};
	struct yml_key kin[] = {
		YK_STR("model", 1, &p->model),
		YK_STR("gpu", 1, &p->gpu),
		YK_STR("profile", 1, &p->profile),
		YK_STR("profile_hash", 1, &p->profile_hash),
		YK_STR("cluster", 1, &p->cluster),
		YK_STR("cluster_hash", 1, &p->cluster_hash),
		YK_INT("nodes", 1, &p->nodes, 1, HUGE_COUNT),
		YK_INT("gpus_per_node", 1, &p->gpus_per_node, 1, 4096),
		YK_I64("gpu_memory_bytes", 1, &p->gpu_mem_bytes, 1, BIG),
		YK_I64("reserve_bytes", 1, &p->reserve_bytes, 0, BIG),
	};
	struct yml_key kcfg[] = {
		YK_STR("runtime", 0, &p->runtime),
		YK_STR("precision", 0, &p->precision),
		YK_STR("fp8_recipe", 0, &p->fp8_recipe),
		YK_I64("seq_len", 0, &p->seq_len, 1, 1 << 30),
		YK_I64("doc_len", 0, &p->doc_len, 1, 1 << 30),
		YK_INT("lora_rank", 0, &p->lora_rank, 1, 65536),
		YK_INT("bf16_first_layers", 0, &p->bf16_first, 0, 1 << 20),
		YK_INT("bf16_last_layers", 0, &p->bf16_last, 0, 1 << 20),
		YK_STR("module_precision", 0, &p->module_precision),
		YK_STR("lora_targets", 0, &p->lora_targets),
		YK_DBL("trainable", 0, &p->trainable, 1e-12, 1e6),
		YK_DBL("weight_bytes", 0, &p->weight_bytes, 0, 64),
		YK_DBL("grad_bytes", 0, &p->grad_bytes, 0, 64),
		YK_DBL("optimizer_bytes", 0, &p->opt_bytes, 0, 64),
		YK_DBL("version_bytes", 0, &p->version_bytes, 0, 64),
		YK_DBL("context_memory_gib", 0, &p->context_gib, 0, 1024),
		YK_DBL("fragmentation", 0, &p->frag, 0, 1),
		YK_STR("fusions", 0, &p->fusions),
		YK_STR("attention", 0, &p->attention),
		YK_STR("recompute_modules", 0, &p->recompute_modules),
		YK_ENUM("optimizer", 0, &p->optimizer, plan_optimizer_names),
		YK_STR("pipeline_layout", 0, &p->pipeline_layout),
		YK_ENUM("schedule", 1, &p->sched, plan_sched_names),
		YK_INT("width", 1, &p->w, 1, HUGE_COUNT),
		YK_INT("depth", 1, &p->d, 1, HUGE_COUNT),
		YK_INT("microbatch", 1, &p->b, 1, HUGE_COUNT),
		YK_INT("accumulation", 1, &p->m, 1, HUGE_COUNT),
		YK_I64("global_batch", 1, &p->global_batch, 1, BIG),
		YK_ENUM("recompute", 1, &p->recompute, plan_rc_names),
		YK_INT("tensor_parallel", 1, &p->t, 1, 4096),
		YK_BOOL("sequence_parallel", 1, &p->sp),
		YK_INT("context_parallel", 0, &p->c, 1, 4096),
		YK_INT("expert_parallel", 0, &p->e, 1, 1 << 20),
		YK_INT("expert_tensor_parallel", 0, &p->etp, 1, 4096),
		YK_DBL("moe_imbalance", 0, &p->moe_imbalance, 1, 64),
		YK_DBL("capacity_factor", 0, &p->capacity_factor, 0.01, 64),
		YK_DBL("moe_rank_capacity", 0, &p->moe_rank_capacity, 0.01,
		       64),
		YK_INT("interleave", 1, &p->v, 1, 4096),
		YK_BOOL("optimizer_sharding", 1, &p->zero),
		YK_INT("zero_stage", 0, &zs, 2, 3),
		YK_INT("shard_group", 0, &p->shard, 1, HUGE_COUNT),
		YK_BOOL("activation_offload", 0, &p->offload),
		YK_INT("offload_blocks", 0, &p->offload_blocks, 1, 1 << 20),
		YK_ENUM("placement", 1, &p->place, plan_place_names),
		YK_STR("placement_reason", 1, &p->place_reason),
	};
	struct yml_key kpred[] = {
		YK_DBL("iteration_ms", 1, &p->iter_ms, 0, BIG),
		YK_DBL("samples_per_s", 1, &p->samples_s, 0, BIG),
		YK_DBL("tflops_per_gpu", 1, &p->tflops_per_gpu, 0, BIG),
		YK_DBL("bubble_fraction", 1, &p->bubble_frac, 0, 1e6),
		YK_I64("peak_memory_bytes", 1, &p->peak_mem_bytes, 0, BIG),
		YK_ENUM("binding", 1, &p->bind, plan_bind_names),
		YK_STR("binding_reason", 1, &p->bind_reason),
		YK_MAP("breakdown_ms", 1, &brk),
	};
	struct yml_key kbrk[] = {
		YK_DBL("compute", 1, &p->terms.compute_ms, 0, BIG),
		YK_DBL("recompute", 1, &p->terms.recompute_ms, 0, BIG),
		YK_DBL("tp", 1, &p->terms.tp_ms, 0, BIG),
		YK_DBL("p2p", 1, &p->terms.p2p_ms, 0, BIG),
		YK_DBL("allreduce", 1, &p->terms.allreduce_ms, 0, BIG),
		YK_DBL("bubble", 1, &p->terms.bubble_ms, 0, BIG),
		YK_DBL("host", 0, &p->terms.host_ms, 0, BIG),
		YK_DBL("optimizer", 0, &p->terms.optimizer_ms, 0, BIG),
		YK_DBL("cp", 0, &p->terms.cp_ms, 0, BIG),
		YK_DBL("ep", 0, &p->terms.ep_ms, 0, BIG),
		YK_DBL("fsdp", 0, &p->terms.fsdp_ms, 0, BIG),
		YK_DBL("offload", 0, &p->terms.offload_ms, 0, BIG),
	};

	root = yml_root(d);
	if (!root || (version = yml_check_format(d, root, "plan", 2)) < 0 ||
	    yml_map(d, root, top, sizeof(top) / sizeof(top[0])) ||
	    yml_map(d, inputs, kin, sizeof(kin) / sizeof(kin[0])) ||
	    yml_map(d, config, kcfg, sizeof(kcfg) / sizeof(kcfg[0])) ||
	    yml_map(d, pred, kpred, sizeof(kpred) / sizeof(kpred[0])) ||
	    yml_map(d, brk, kbrk, sizeof(kbrk) / sizeof(kbrk[0])) ||
	    zero_stage(d, config, &p->zero, zs))
		goto out;
	if (p->shard > 0 &&
	    (p->zero < 2 || (p->w * (p->c > 1 ? p->c : 1)) % p->shard)) {
		yml_err(d, config, "shard_group %d needs zero_stage 2 or 3 and "
			"must divide width x context_parallel", p->shard);
		goto out;
	}
	if ((int64_t)p->w * p->d * p->b * p->m < 1 ||
	    (int64_t)p->w * p->b * p->m != p->global_batch) {
		yml_err(d, config,
			"global_batch is not width x microbatch x accumulation");
		goto out;
	}

	n = yml_seq_len(layers);
	if (n < 1 || n > HUGE_COUNT) {
		yml_err(d, layers, "expected at least one layer");
		goto out;
	}
	p->layer_names = xcalloc(n, sizeof(char *));
	p->nlayers = (int)n;
	for (i = 0; i < n; i++)
		if (yml_to_str(d, yml_seq_item(d, layers, i),
			       &p->layer_names[i]))
			goto out;

	if (yml_expect_seq(d, lrc, p->nlayers))
		goto out;
	p->layer_rc = xcalloc((size_t)p->nlayers, sizeof(int));
	for (i = 0; i < (size_t)p->nlayers; i++) {
		yaml_node_t *item = yml_seq_item(d, lrc, i);
		const char *v = yml_scalar(item);
		int k;

		for (k = 0; v && prof_rc_names[k]; k++)
			if (!strcmp(v, prof_rc_names[k]))
				break;
		if (!v || !prof_rc_names[k]) {
			yml_err(d, item, "invalid layer_recompute '%s'",
				v ? v : "(non-scalar)");
			goto out;
		}
		p->layer_rc[i] = k;
	}
	if (yml_expect_seq(d, stages, p->d))
		goto out;
	p->stages = xcalloc((size_t)p->d, sizeof(*p->stages));
	p->nstages = p->d;
	for (i = 0; i < (size_t)p->d; i++) {
		yaml_node_t *sn = yml_seq_item(d, stages, i);

		if (read_stage(d, sn, &p->stages[i]))
			goto out;
		if (p->stages[i].first !=
			    (i ? p->stages[i - 1].last + 1 : 0) ||
		    p->stages[i].last >= p->nlayers) {
			yml_err(d, sn, "stage %zu does not continue the chain",
				i);
			goto out;
		}
	}
	if (p->stages[p->d - 1].last != p->nlayers - 1) {
		yml_err(d, stages, "stages do not cover all %d layers",
			p->nlayers);
		goto out;
	}

	if (ranks->type == YAML_MAPPING_NODE && version < 2) {
		yml_err(d, ranks, "ranks given by a rule need format "
			"pd2bw-plan/2");
		goto out;
	}
	if (ranks->type == YAML_MAPPING_NODE) {
		if (read_rank_rule(d, ranks, p))
			goto out;
	} else {
		if (yml_expect_seq(d, ranks, (long)p->w * p->d * p->t * p->c))
			goto out;
		p->nranks = p->w * p->d * p->t * p->c;
		p->ranks = xcalloc((size_t)p->nranks, sizeof(*p->ranks));
		for (i = 0; i < (size_t)p->nranks; i++)
			if (read_rank(d, yml_seq_item(d, ranks, i),
				      &p->ranks[i], (int)i, p))
				goto out;
	}

	n = yml_seq_len(alts);
	if (n > 1000) {
		yml_err(d, alts, "too many alternatives");
		goto out;
	}
	p->alts = xcalloc(n, sizeof(*p->alts));
	p->nalts = (int)n;
	for (i = 0; i < n; i++)
		if (read_alt(d, yml_seq_item(d, alts, i), &p->alts[i]))
			goto out;
	ret = 0;
out:
	free(format);
	return ret;
}

int
plan_load(struct plan *p, const char *path)
{
	struct yml_doc d;
	int ret;

	plan_init(p);
	ret = yml_load_file(&d, path);
	if (!ret)
		ret = read_plan(&d, p);
	yml_release(&d);
	if (ret)
		plan_release(p);
	return ret;
}

int
plan_load_string(struct plan *p, const char *name, const char *buf,
		 size_t len)
{
	struct yml_doc d;
	int ret;

	plan_init(p);
	ret = yml_load_string(&d, name, buf, len);
	if (!ret)
		ret = read_plan(&d, p);
	yml_release(&d);
	if (ret)
		plan_release(p);
	return ret;
}
