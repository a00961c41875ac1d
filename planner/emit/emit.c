/*
 * emit.c - --emit: open the output atomically, work out the plan's
 * transformer shape (embedding, blocks, head per stage and per virtual
 * chunk) and hand both to the writer of the format; the helpers the
 * writers share: escaping for every place a value lands (comments, shell
 * words, JSON/TOML/YAML strings, XML) and the re-evaluation of the
 * recomputation a runtime will actually run.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit/emit.h"
#include "pd2bw/afile.h"
#include "pd2bw/analytic.h"
#include "pd2bw/error.h"
#include "pd2bw/runtime.h"
#include "pd2bw/sim.h"
#include "pd2bw/lp.h"
#include "pd2bw/place.h"
#include "pd2bw/search.h"

const char *const emit_fmt_names[] = {"megatron",   "deepspeed",
				      "launch",     "torchtitan",
				      "megatron-bridge", NULL};

const char *
emit_fmt_list(void)
{
	return "megatron, deepspeed, launch, torchtitan, megatron-bridge";
}

int
emit_fmt_runtime(int fmt)
{
	switch (fmt) {
	case EMIT_MEGATRON:
	case EMIT_BRIDGE:
		return RUNTIME_MEGATRON_CORE;
	case EMIT_DEEPSPEED:
		return RUNTIME_DEEPSPEED;
	case EMIT_TORCHTITAN:
		return RUNTIME_TORCHTITAN;
	default:
		return -1;
	}
}

int
emit_max_depth(const struct emit_req *r, int n, const struct model *m,
	       const char **why)
{
	int i, d, most = 0;

	for (i = 0; m && i < n; i++) {
		const char *w = NULL;

		d = r[i].fmt == EMIT_TORCHTITAN
			    ? emit_torchtitan_max_depth(m, &w)
			    : 0;
		if (d > 0 && (!most || d < most)) {
			most = d;
			*why = w;
		}
	}
	return most;
}

int
emit_shape_init(struct emit_shape *sh, const struct plan *p,
		const struct profile *prof)
{
	int *kind, n = 0, i, j, s, k, v = p->v > 1 ? p->v : 1;

	memset(sh, 0, sizeof(*sh));
	if (p->nstages < 1 || p->nstages != p->d)
		return pd2bw_error("the plan has %d stages for depth %d",
				   p->nstages, p->d);
	kind = xcalloc((size_t)profile_chain_len(prof) + 1, sizeof(*kind));
	for (i = 0; i < prof->nlayers; i++)
		for (j = 0; j < prof->layers[i].repeat; j++)
			kind[n++] = prof->layers[i].kind;
	if (n != p->nlayers) {
		free(kind);
		return pd2bw_error("the plan has %d layers but the profile %d",
				   p->nlayers, n);
	}
	sh->blocks = xcalloc((size_t)p->nstages, sizeof(*sh->blocks));
	sh->embed = xcalloc((size_t)p->nstages, sizeof(*sh->embed));
	sh->head = xcalloc((size_t)p->nstages, sizeof(*sh->head));
	sh->first_block = xcalloc((size_t)p->nstages,
				  sizeof(*sh->first_block));
	/* A transformer chain: at most one embedding first, blocks, at most
	 * one head last (design.md section 4). */
	sh->transformer = 1;
	for (i = 0; i < n; i++) {
		if (kind[i] == PROF_BLOCK)
			sh->nblocks++;
		else if (!(kind[i] == PROF_EMBED && i == 0) &&
			 !(kind[i] == PROF_HEAD && i == n - 1))
			sh->transformer = 0;
	}
	for (s = 0, k = 0; s < p->nstages; s++) {
		sh->first_block[s] = k;
		for (i = p->stages[s].first; i <= p->stages[s].last; i++) {
			if (i < 0 || i >= n)
				continue;
			if (kind[i] == PROF_BLOCK)
				sh->blocks[s]++, k++;
			else if (kind[i] == PROF_EMBED)
				sh->embed[s] = 1;
			else if (kind[i] == PROF_HEAD)
				sh->head[s] = 1;
		}
	}
	sh->nchunks = p->d * v;
	sh->chunk_blocks = xcalloc((size_t)sh->nchunks,
				   sizeof(*sh->chunk_blocks));
	/* The chunks of a stage differ by one block at most; the
	 * embedding's stage gives its first chunk the fewer, as Megatron
	 * does when the embedding takes a block's slot (the head's stage
	 * its last chunk, which the order below already does). */
	for (s = 0; s < p->d; s++)
		for (k = 0; k < v; k++) {
			int r = sh->blocks[s] % v;

			sh->chunk_blocks[k * p->d + s] =
				sh->blocks[s] / v +
				(sh->embed[s] ? k >= v - r : k < r);
		}
	/* a plan made with a layout string: its virtual stages (which
	 * hold the stages' blocks, search_layout() saw to it) */
	if (p->pipeline_layout) {
		int bad = search_layout_chunks(p->pipeline_layout, sh->nchunks,
					       sh->chunk_blocks);

		for (s = 0; !bad && s < p->d; s++) {
			int sum = 0;

			for (k = 0; k < v; k++)
				sum += sh->chunk_blocks[k * p->d + s];
			bad = sum != sh->blocks[s];
		}
		if (bad) {
			free(kind);
			emit_shape_release(sh);
			return pd2bw_error("--emit: the plan's "
					   "pipeline_layout does not hold its "
					   "stages' blocks in %d virtual "
					   "stages",
					   p->d * v);
		}
	}
	free(kind);
	return 0;
}

void
emit_shape_release(struct emit_shape *sh)
{
	free(sh->blocks);
	free(sh->embed);
	free(sh->head);
	free(sh->first_block);
	free(sh->chunk_blocks);
	memset(sh, 0, sizeof(*sh));
}

void
emit_sh_word(FILE *fp, const char *s)
{
	const char *c;

	if (!*s) {
		fputs("''", fp);
		return;
	}
	for (c = s; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%",
			    *c))
			break;
	if (!*c) {
		fputs(s, fp);
		return;
	}
	/* Single quotes keep everything but a single quote: close, write
	 * it escaped, reopen. */
	fputc('\'', fp);
	for (c = s; *c; c++) {
		if (*c == '\'')
			fputs("'\\''", fp);
		else
			fputc(*c, fp);
	}
	fputc('\'', fp);
}

void
emit_text(FILE *fp, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f || c == '\\')
			fprintf(fp, "\\x%02x", c);
		else
			fputc(c, fp);
	}
}

void
emit_json_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(fp, "\\u%04x", c);
		else
			fputc(c, fp);
	}
	fputc('"', fp);
}

int
emit_family(const struct emit_in *in)
{
	const char *name = in->prof->model;

	if (in->model)
		return in->model->family;
	if (name && !strncmp(name, "bert", 4))
		return MODEL_BERT;
	return MODEL_GPT;
}

int
emit_plan_runtime(const struct plan *p, int id, struct runtime *rt)
{
	const char *name = runtime_names[id];
	size_t n = strlen(name);

	runtime_init(rt, id);
	if (!p->runtime || strncmp(p->runtime, name, n) ||
	    (p->runtime[n] && p->runtime[n] != ':'))
		return 0;
	return runtime_parse(rt, p->runtime) ? -1 : 1;
}

int
emit_fp8_params(const struct emit_in *in)
{
	struct runtime rt;
	struct cost_cfg g;

	if (!in->o)
		return 0;
	/* a plan for another runtime is run as Megatron-Core's defaults */
	if (emit_plan_runtime(in->p, RUNTIME_MEGATRON_CORE, &rt) < 0)
		return 0;
	memset(&g, 0, sizeof(g));
	g.zero = in->p->zero;
	g.rt = &rt;
	return cost_fp8_params(in->o, &g);
}

int
emit_tp_overlap(const struct emit_in *in, const struct runtime *rt)
{
	struct cost_cfg g;

	if (!in->o)
		return 0;
	memset(&g, 0, sizeof(g));
	g.sp = in->p->sp;
	g.rt = rt;
	return cost_tp_hidden(in->o, &g) > 0;
}

int
emit_runtime_opt(const struct plan *p, int opt)
{
	struct runtime rt;

	return p->runtime && !runtime_parse(&rt, p->runtime) &&
	       runtime_has(&rt, opt);
}

int
emit_cuda_graphs(const struct plan *p)
{
	return emit_runtime_opt(p, RUNTIME_OPT_CUDA_GRAPHS);
}

unsigned
emit_plan_fusions(const struct plan *p)
{
	unsigned f = ANALYTIC_FUSE_ALL;

	if (p->fusions && analytic_fusions_parse(p->fusions, &f))
		f = ANALYTIC_FUSE_ALL;
	return f;
}

int
emit_grad_reduce_fp32(const struct emit_in *in)
{
	struct runtime rt;

	if (emit_plan_runtime(in->p, RUNTIME_MEGATRON_CORE, &rt) < 0)
		return 1;
	return runtime_has(&rt, RUNTIME_OPT_GRAD_REDUCE_FP32);
}

/* ---- re-evaluation of what a runtime runs ---- */

void
emit_every_fill(const struct plan *p, const struct emit_shape *sh, int n,
		 int *layer_rc)
{
	int s, j, k;

	for (s = 0; s < p->d; s++)
		for (j = p->stages[s].first; j <= p->stages[s].last; j++) {
			k = j - p->stages[s].first - sh->embed[s] + 1;
			layer_rc[j] = k >= 1 && k <= sh->blocks[s] && k % n == 0
					      ? PROF_RC_FULL
					      : PROF_RC_NONE;
		}
}

int
emit_rc_per_op(const struct plan *p)
{
	return p->recompute_modules && !strcmp(p->recompute_modules, "op");
}

int
emit_every_n(const struct plan *p, const struct emit_shape *sh)
{
	int s, j, k, n = 0, *rule;

	if (!p->layer_rc || p->recompute != PLAN_RC_MIXED)
		return 0;
	for (s = 0; s < p->d && !n; s++)
		for (k = 1; k <= sh->blocks[s] && !n; k++)
			if (p->layer_rc[p->stages[s].first + sh->embed[s] + k -
					1] == PROF_RC_FULL)
				n = k;
	if (!n)
		return 0;
	rule = xcalloc((size_t)p->nlayers, sizeof(int));
	emit_every_fill(p, sh, n, rule);
	for (j = 0; n && j < p->nlayers; j++)
		if (p->layer_rc[j] != rule[j])
			n = 0;
	free(rule);
	return n;
}

int
emit_every_cover(const struct plan *p, const struct emit_shape *sh)
{
	int s, j, n, most = 0, any = 0, ok;
	int *need = xcalloc((size_t)p->d, sizeof(int));

	for (s = 0; s < p->d; s++) {
		int a = p->stages[s].first + sh->embed[s];

		for (j = a; j < a + sh->blocks[s]; j++)
			need[s] += (p->layer_rc ? p->layer_rc[j]
						: p->recompute) != PROF_RC_NONE;
		any |= need[s] > 0;
		if (sh->blocks[s] > most)
			most = sh->blocks[s];
	}
	for (n = any ? most : 0; n > 1; n--) {
		for (s = 0, ok = 1; s < p->d && ok; s++)
			ok = sh->blocks[s] / n >= need[s];
		if (ok)
			break;
	}
	free(need);
	return n;
}


int
emit_rc_eval(const struct emit_in *in, struct emit_rc *rc)
{
	const struct plan *p = in->p;
	const struct chain *c = in->c;
	struct plan_stage *st;
	struct place_links l;
	struct plan_terms terms;
	struct cost_cfg g;
	struct runtime rt;
	struct sim sm;
	int s, j;
	double peak = 0;

	rc->changed = 0;
	for (j = 0; j < p->nlayers; j++)
		if (rc->layer_rc[j] != (p->layer_rc ? p->layer_rc[j]
						    : p->recompute))
			rc->changed = 1;
	rc->evaluated = 0;
	if (!c || !in->o || !in->cl || c->L != p->nlayers)
		return 0;
	if (cost_cfg_of_plan(p, c, in->o, &rt, &g))
		return 0;
	g.r = PROF_RC_NONE;
	st = xcalloc((size_t)p->d, sizeof(*st));
	place_links_init(&l, in->cl, p->d);
	place_links_route(&l, &c->route, cost_ep_flex(in->o, &g));
	/* the links the search priced it with, context and expert
	 * parallelism's included (memo.c search_links_for()) */
	place_links_fill_par(&l, in->cl, p->place, p->w, p->d, p->t, g.c, g.e,
			     g.etp);
	rc->fits = 1;
	/* The rule the search prices a stage by, uniform or per layer
	 * (cost_stage_rc()): the plan's own choices give its prediction. */
	for (s = 0; s < p->d; s++) {
		int a = p->stages[s].first, e = p->stages[s].last;
		double mem;

		cost_stage_rc(c, in->o, &g, &l, s, a, e, rc->layer_rc + a,
			      &st[s]);
		mem = (double)st[s].mem_bytes;
		if (mem > peak)
			peak = mem;
		if (mem > in->o->cap_bytes)
			rc->fits = 0;
	}
	/* the simulation, as the plan's own figure */
	rc->iter_ms = cost_simulate(c, st, &g, &sm, &terms);
	sim_release(&sm);
	rc->peak_bytes = (int64_t)peak;
	rc->evaluated = 1;
	place_links_release(&l);
	free(st);
	return 0;
}

void
emit_rc_release(struct emit_rc *rc)
{
	free(rc->layer_rc);
	memset(rc, 0, sizeof(*rc));
}

void
emit_rc_note(FILE *fp, const char *prefix, const struct emit_in *in,
	     const struct emit_rc *rc)
{
	const double gib = 1024.0 * 1024.0 * 1024.0;

	if (!rc->changed) {
		fprintf(fp, "%sThe recomputation runs as planned.\n", prefix);
		return;
	}
	fprintf(fp,
		"%sPredicted: the plan %.1f ms per iteration, peak %.2f GiB "
		"per GPU;\n",
		prefix, in->p->iter_ms, in->p->peak_mem_bytes / gib);
	if (rc->evaluated)
		fprintf(fp,
			"%swhat runs %.1f ms per iteration, peak %.2f GiB "
			"per GPU%s.\n",
			prefix, rc->iter_ms, rc->peak_bytes / gib,
			rc->fits ? "" : " (over the memory limit)");
	else
		fprintf(fp,
			"%swhat runs not re-evaluated (no chain or cluster): "
			"more recomputation, so\n%sno more memory and more "
			"time than planned.\n",
			prefix, prefix);
}

int
emit_mfsdp_note(FILE *fp, const char *prefix, const struct plan *p)
{
	int n = p->w * (p->c > 1 ? p->c : 1);
	int g = p->shard > 0 && p->shard < n ? p->shard : n;

	fprintf(fp, "%sMegatron-FSDP, ZeRO-%d: %s sharded over %s%d "
		    "data-parallel ranks%s.\n", prefix, p->zero,
		p->zero == 2 ? "optimizer state and gradients"
			     : "optimizer state, gradients and parameters",
		g < n ? "groups of " : "", g,
		g < n ? ", replicated across them (HSDP)" : "");
	return n / g;
}

int
emit_write_all(const struct emit_in *in, const struct emit_req *r, int n)
{
	int i, ret = 0;

	/* every request is tried, so that each refusal is reported */
	for (i = 0; i < n; i++)
		if (emit_write(in, r[i].fmt, r[i].path))
			ret = -1;
	return ret;
}

int
emit_write(const struct emit_in *in, int fmt, const char *path)
{
	struct emit_shape sh;
	struct afile f;
	int ret = -1;

	/* Megatron and Megatron-Bridge write the parts of pd2bw-model/2
	 * they have settings for (megatron.c, bridge.c), torchtitan those
	 * of its qwen3 flavors (torchtitan.c), DeepSpeed the experts
	 * (deepspeed.c, deepspeed.moe.layer.MoE); its files would be
	 * silently without the rest.  NEEDSWORK: DeepSpeed's others. */
	if (in->model && fmt == EMIT_DEEPSPEED) {
		struct model dense = *in->model;

		dense.moe.experts = 0;
		dense.doc_len = 0; /* its own message below */
		if (model_is_v2(&dense))
			return pd2bw_error("--emit %s: model '%s' uses parts "
					   "of pd2bw-model/2 (MLA, windows, "
					   "head_dim, ...) that this emitter "
					   "does not write yet (--emit "
					   "megatron does)",
					   emit_fmt_names[fmt],
					   in->model->name ? in->model->name
							   : "");
	}
	/* Hybrid Mamba models: Megatron-LM trains them with
	 * pretrain_hybrid.py and --hybrid-layer-pattern (its pipeline
	 * stages split by '|' in the pattern, arguments.py:787-844 at
	 * d98e8a6) and the mamba sizes, which pd2bw does not write yet;
	 * DeepSpeed and torchtitan have no Mamba layer (refused rather than
	 * written as a transformer) */
	if (in->model && model_is_hybrid(in->model) && fmt >= 0 &&
	    fmt <= EMIT_BRIDGE && fmt != EMIT_LAUNCH && fmt != EMIT_MEGATRON)
		return pd2bw_error("--emit %s: model '%s' is a hybrid (Mamba) "
				   "model, which this emitter does not write "
				   "(--emit megatron does)",
				   emit_fmt_names[fmt],
				   in->model->name ? in->model->name : "");
	/* LoRA: Megatron-Bridge's PEFT config, which pd2bw does not write
	 * (refused rather than dropped) */
	if (in->p->lora_rank > 0 && fmt >= 0 && fmt <= EMIT_BRIDGE &&
	    fmt != EMIT_LAUNCH)
		return pd2bw_error("--emit %s: the plan trains LoRA adapters "
				   "(rank %d) on a frozen model, which this "
				   "emitter does not write",
				   emit_fmt_names[fmt], in->p->lora_rank);
	/* packed documents: Megatron-LM's flag (megatron.c); the other
	 * runtimes take them from their data configuration, which pd2bw
	 * does not write (refused rather than dropped) */
	if (in->model && in->model->doc_len > 0 && fmt >= 0 &&
	    fmt <= EMIT_BRIDGE && fmt != EMIT_MEGATRON && fmt != EMIT_LAUNCH)
		return pd2bw_error("--emit %s: the plan's sequences pack "
				   "documents of %lld tokens (doc_len), whose "
				   "attention this emitter does not write "
				   "(--emit megatron does)",
				   emit_fmt_names[fmt],
				   (long long)in->model->doc_len);
	/* Megatron writes context and expert parallelism (megatron.c),
	 * Megatron-Bridge context parallelism, torchtitan both, and launch
	 * starts every rank
	 * of the plan; NEEDSWORK: the others' (refused rather than
	 * dropped) */
	if (in->p->c > 1 && fmt >= 0 && fmt <= EMIT_BRIDGE &&
	    fmt != EMIT_MEGATRON && fmt != EMIT_LAUNCH && fmt != EMIT_BRIDGE &&
	    fmt != EMIT_TORCHTITAN)
		return pd2bw_error("--emit %s: the plan is context-parallel "
				   "(%d ranks per sequence), which this emitter "
				   "does not write yet (--emit megatron does)",
				   emit_fmt_names[fmt], in->p->c);
	/* FP8 attention: Megatron-LM's flag; NEEDSWORK: Bridge's mixed-
	 * precision config (refused rather than dropped) */
	if (in->p->attention && !strcmp(in->p->attention, "fp8") &&
	    fmt >= 0 && fmt <= EMIT_BRIDGE && fmt != EMIT_MEGATRON &&
	    fmt != EMIT_LAUNCH)
		return pd2bw_error("--emit %s: the plan prices FP8 attention "
				   "(--attention-kernel fp8, Transformer "
				   "Engine's), which this emitter does not "
				   "write (--emit megatron does)",
				   emit_fmt_names[fmt]);
	/* expert parallelism: Megatron-Bridge and DeepSpeed too (bridge.c,
	 * deepspeed.c) */
	if (in->p->e > 1 && fmt >= 0 && fmt <= EMIT_BRIDGE &&
	    fmt != EMIT_MEGATRON && fmt != EMIT_LAUNCH &&
	    fmt != EMIT_TORCHTITAN && fmt != EMIT_BRIDGE &&
	    fmt != EMIT_DEEPSPEED)
		return pd2bw_error("--emit %s: the plan is expert-parallel "
				   "(%d), which this emitter does not write yet "
				   "(--emit megatron does)",
				   emit_fmt_names[fmt], in->p->e);
	/* CUDA graphs of the whole iteration (the runtime's cuda-graphs):
	 * Megatron and Megatron-Bridge capture them (megatron.c, bridge.c),
	 * a mixture of experts only at a fixed expert capacity: padded to
	 * the model's capacity factor ("moe cuda graph is only supported
	 * with drop-padding MoE", transformer_config.py:2838-2844 at
	 * d98e8a6), or HybridEP's rank capacity factor of Megatron-Bridge's
	 * recipes (perf_recipes/qwen/common.py:36-44 at 067f987), the
	 * plan's moe_rank_capacity, whose buffers are static
	 * (token_dispatcher.py:1098-1113); torchtitan's and DeepSpeed's
	 * files get no setting for them (refused rather than dropped) */
	if (emit_cuda_graphs(in->p) && (fmt == EMIT_TORCHTITAN ||
					fmt == EMIT_DEEPSPEED))
		return pd2bw_error("--emit %s: the plan is priced with CUDA "
				   "graphs (the runtime's cuda-graphs), which "
				   "pd2bw writes no %s setting for; plan "
				   "without them",
				   emit_fmt_names[fmt], emit_fmt_names[fmt]);
	if (emit_cuda_graphs(in->p) && in->model &&
	    in->model->moe.experts > 0 &&
	    !(in->model->moe.capacity_factor > 0) &&
	    !(in->p->moe_rank_capacity > 0) &&
	    (fmt == EMIT_MEGATRON || fmt == EMIT_BRIDGE))
		return pd2bw_error("--emit %s: the plan replays CUDA graphs of "
				   "the whole iteration, which a mixture of "
				   "experts captures only with a fixed expert "
				   "capacity: give the model a capacity_factor "
				   "(its experts padded to it), plan with "
				   "--moe-rank-capacity (HybridEP's static "
				   "buffers), or plan without the runtime's "
				   "cuda-graphs",
				   emit_fmt_names[fmt]);
	if (emit_shape_init(&sh, in->p, in->prof))
		return -1;
	sh.fmt = emit_fmt_names[fmt];
	if (afile_open(&f, path))
		goto out;
	switch (fmt) {
	case EMIT_MEGATRON:
		ret = emit_megatron(f.fp, in, &sh);
		break;
	case EMIT_DEEPSPEED:
		ret = emit_deepspeed(f.fp, in, &sh);
		break;
	case EMIT_LAUNCH:
		ret = emit_launch(f.fp, in, &sh);
		break;
	case EMIT_TORCHTITAN:
		ret = emit_torchtitan(f.fp, in, &sh);
		break;
	case EMIT_BRIDGE:
		ret = emit_bridge(f.fp, in, &sh);
		break;
	default:
		ret = pd2bw_error("unknown --emit format %d", fmt);
		break;
	}
	if (ret) {
		afile_abort(&f);
		goto out;
	}
	ret = afile_commit(&f);
out:
	emit_shape_release(&sh);
	return ret;
}
