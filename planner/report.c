/*
 * report.c - print a plan as tables a person can check: what was chosen,
 * where the time goes, what each stage holds, and what came close.
 */
#include <stdio.h>
#include <string.h>

#include "pd2bw/profile.h"
#include "report.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
#define MAX_ROWS 32

static const char *
human_count(double v, char *buf, size_t n)
{
	if (v >= 1e9)
		snprintf(buf, n, "%.2fB", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, n, "%.1fM", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, n, "%.1fK", v / 1e3);
	else
		snprintf(buf, n, "%.0f", v);
	return buf;
}

/*
 * An alternative's schedule label, e.g. "flush/v2/e8+z": interleaved
 * twice, experts over 8 GPUs, optimizer sharded.  Returns its length.
 */
static int
alt_label(const struct plan_alt *a, char *buf, size_t n)
{
	char v[40] = "";

	if (a->v > 1)
		snprintf(v, sizeof(v), "/v%d", a->v);
	if (a->c > 1)
		snprintf(v + strlen(v), sizeof(v) - strlen(v), "/c%d", a->c);
	if (a->e > 1)
		snprintf(v + strlen(v), sizeof(v) - strlen(v), "/e%d", a->e);
	if (a->offload)
		snprintf(v + strlen(v), sizeof(v) - strlen(v), "/o");
	return snprintf(buf, n, "%s%s%s", plan_sched_names[a->sched], v,
			a->zero == 1   ? "+z"
			: a->zero == 2 ? "+z2"
			: a->zero == 3 ? "+z3"
				       : "");
}

/*
 * The per-microbatch columns of the stage table beyond compute and
 * recomputation, each shown when the plan has that parallelism.
 */
static const struct {
	const char *name, *what;
} stage_cols[] = {
	{"tp", ""},
	{"cp", "the context-parallel K/V exchange the attention does not "
	       "hide"},
	{"a2a", "the expert-parallel all-to-alls"},
	{"fsdp", "what the FSDP / ZeRO-2/3 gathers and reductions add"},
	{"offload", "what the activation offload copies add"},
};
#define NCOLS (sizeof(stage_cols) / sizeof(stage_cols[0]))

static int
stage_col_on(const struct plan *p, size_t k)
{
	switch (k) {
	case 0: return p->t > 1;
	case 1: return p->c > 1;
	case 2: return p->e > 1;
	case 3: return p->zero >= 2;
	default: return p->offload;
	}
}

static double
stage_col_ms(const struct plan_stage *g, size_t k)
{
	switch (k) {
	case 0: return g->tp_ms;
	case 1: return g->cp_ms;
	case 2: return g->ep_ms;
	case 3: return g->fsdp_ms;
	default: return g->offload_ms;
	}
}

/* Each stage: its layers, parameters, per-microbatch times, per-update
 * reduction, in-flight microbatches and memory. */
static void
stage_table(FILE *fp, const struct plan *p)
{
	char buf[32];
	size_t k;
	int s;

	fprintf(fp, "\nstage  layers     params  compute  recomp");
	for (k = 0; k < NCOLS; k++)
		if (stage_col_on(p, k))
			fprintf(fp, " %7s", stage_cols[k].name);
	fprintf(fp, "     p2p  allred/upd  in-flight  memory GiB\n");
	for (s = 0; s < p->nstages; s++) {
		const struct plan_stage *g = &p->stages[s];
		char range[24];

		if (s == MAX_ROWS / 2 && p->nstages > MAX_ROWS) {
			fprintf(fp, "  ... %d more stages\n",
				p->nstages - MAX_ROWS);
			s = p->nstages - MAX_ROWS / 2;
			g = &p->stages[s];
		}
		snprintf(range, sizeof(range), "%d-%d", g->first, g->last);
		fprintf(fp, "%5d  %-9s %7s %8.2f %7.2f", s, range,
			human_count((double)g->params, buf, sizeof(buf)),
			g->compute_ms, g->recompute_ms);
		for (k = 0; k < NCOLS; k++)
			if (stage_col_on(p, k))
				fprintf(fp, " %7.2f", stage_col_ms(g, k));
		fprintf(fp, " %7.2f %11.1f %10d %11.2f\n", g->p2p_ms,
			g->allreduce_ms, g->in_flight, g->mem_bytes / GIB);
	}
	fprintf(fp, "ms per microbatch: compute (forward + backward), "
		    "recomp, %sp2p (both\nboundaries); allred/upd: the "
		    "gradient all-reduce, ms per update; in-flight:\n"
		    "microbatches whose activations a stage keeps\n",
		p->t > 1 ? "tp, " : "");
	for (k = 1; k < NCOLS; k++)
		if (stage_col_on(p, k))
			fprintf(fp, "%s: %s, ms per microbatch\n",
				stage_cols[k].name, stage_cols[k].what);
}

void
report_plan(FILE *fp, const struct plan *p)
{
	const struct plan_terms *t = &p->terms;
	int i;

	fprintf(fp, "%s on %s: %d node%s x %d %s (%.1f GiB), global batch "
		    "%lld",
		p->model, p->cluster, p->nodes, p->nodes == 1 ? "" : "s",
		p->gpus_per_node, p->gpu, p->gpu_mem_bytes / GIB,
		(long long)p->global_batch);
	if (p->doc_len > 0)
		fprintf(fp, ", documents of %lld tokens packed",
			(long long)p->doc_len);
	if (p->lora_rank > 0)
		fprintf(fp, ", LoRA rank %d%s%s (%.2f%% of the parameters "
			    "trained)",
			p->lora_rank, p->lora_targets ? " on " : "",
			p->lora_targets ? p->lora_targets : "",
			100 * p->trainable);
	/* a quantised model's precision as priced: its recipe, the blocks
	 * and the kinds of linear kept apart */
	if (p->precision && (!strcmp(p->precision, "fp8") ||
			     !strcmp(p->precision, "nvfp4"))) {
		fprintf(fp, ", %s%s%s", p->precision,
			p->fp8_recipe ? " " : "",
			p->fp8_recipe ? p->fp8_recipe : "");
		if (p->bf16_first + p->bf16_last > 0)
			fprintf(fp, " (the first %d and last %d blocks in "
				    "bf16)",
				p->bf16_first, p->bf16_last);
		if (p->module_precision)
			fprintf(fp, ", %s", p->module_precision);
	}
	fputc('\n', fp);
	fprintf(fp, "\nchosen:     %s, %d-wide x %d-deep", plan_sched_names[p->sched],
		p->w, p->d);
	if (p->t > 1)
		fprintf(fp, " x %d-way tensor%s", p->t,
			p->sp ? " + sequence" : "");
	if (p->c > 1)
		fprintf(fp, " x %d-way context", p->c);
	if (p->e > 1)
		fprintf(fp, ", experts over %d", p->e);
	if (p->moe_rank_capacity > 0)
		fprintf(fp, " (rows held to %g x their share)",
			p->moe_rank_capacity);
	fprintf(fp, " = %d GPUs, microbatch %d x %d per update, recompute %s",
		p->w * p->d * p->t * p->c, p->b, p->m,
		plan_rc_names[p->recompute]);
	if (p->v > 1)
		fprintf(fp, ", %d virtual stages per GPU", p->v);
	if (p->zero == 1)
		fprintf(fp, ", optimizer sharded");
	else if (p->zero > 1)
		fprintf(fp, ", ZeRO-%d%s", p->zero,
			p->zero == 3 ? " (FSDP)" : "");
	if (p->shard > 0)
		fprintf(fp, " in groups of %d (HSDP)", p->shard);
	if (p->offload)
		fprintf(fp, ", activations offloaded");
	fputc('\n', fp);
	fprintf(fp, "placement:  %s\n", p->place_reason);
	fprintf(fp, "predicted:  %.1f ms per iteration, %.1f samples/s, "
		    "%.1f TFLOP/s per GPU, bubble %.1f%%, peak %.2f GiB\n",
		p->iter_ms, p->samples_s, p->tflops_per_gpu,
		100 * p->bubble_frac, p->peak_mem_bytes / GIB);
	fprintf(fp, "binding:    %s: %s\n", plan_bind_names[p->bind],
		p->bind_reason);
	fprintf(fp, "breakdown:  compute %.1f + recompute %.1f + ",
		t->compute_ms, t->recompute_ms);
	if (p->t > 1)
		fprintf(fp, "tensor-parallel %.1f + ", t->tp_ms);
	if (p->c > 1)
		fprintf(fp, "context-parallel %.1f + ", t->cp_ms);
	/* DeepSpeed-MoE gathers its dropped rows without expert
	 * parallelism too */
	if (p->e > 1)
		fprintf(fp, "expert all-to-all %.1f + ", t->ep_ms);
	else if (t->ep_ms > 0)
		fprintf(fp, "expert gathers %.1f + ", t->ep_ms);
	if (p->zero > 1)
		fprintf(fp, "fsdp %.1f + ", t->fsdp_ms);
	if (p->offload)
		fprintf(fp, "offload %.1f + ", t->offload_ms);
	fprintf(fp, "p2p %.1f + host %.1f + bubble %.1f + sync %.1f + "
		    "optimizer %.1f = %.1f ms\n",
		t->p2p_ms, t->host_ms, t->bubble_ms, t->allreduce_ms,
		t->optimizer_ms,
		t->compute_ms + t->recompute_ms + t->tp_ms + t->p2p_ms +
			t->host_ms + t->bubble_ms + t->allreduce_ms +
			t->optimizer_ms + t->cp_ms + t->ep_ms + t->fsdp_ms +
			t->offload_ms);
	if (p->runtime && *p->runtime)
		fprintf(fp, "runtime:    %s\n", p->runtime);

	stage_table(fp, p);

	if (p->nalts > 1) {
		int wl = 11, ep = 0, cp = 0;

		for (i = 0; i < p->nalts; i++) {
			char sched[40];
			int n = alt_label(&p->alts[i], sched, sizeof(sched));

			wl = n > wl ? n : wl;
			ep |= p->alts[i].e > 1;
			cp |= p->alts[i].c > 1;
		}
		fprintf(fp, "\n  #  %-*s    w    d    t    b     m  recompute  "
			    "placement           iter ms   samples/s  mem GiB\n",
			wl, "schedule");
		for (i = 0; i < p->nalts; i++) {
			const struct plan_alt *a = &p->alts[i];
			char sched[40];

			alt_label(a, sched, sizeof(sched));
			fprintf(fp, "%3d  %-*s %4d %4d %3d%s %4d %5d  %-9s  %-16s "
				    "%10.1f %11.1f %8.2f\n",
				i + 1, wl, sched, a->w, a->d, a->t,
				a->sp ? "s" : " ", a->b, a->m,
				plan_rc_names[a->recompute],
				plan_place_names[a->place], a->iter_ms,
				a->samples_s, a->mem_bytes / GIB);
		}
		fprintf(fp, "w width, d depth, t tensor-parallel degree "
			    "(2s: with sequence parallelism),\nb microbatch, "
			    "m microbatches per update; flush/v3: 3 virtual "
			    "stages per GPU,\n");
		if (ep || cp)
			fprintf(fp, "%s%s%s,\n",
				ep ? "/e8: experts over 8 GPUs" : "",
				ep && cp ? ", " : "",
				cp ? "/c2: the sequence over 2 (context "
				     "parallelism)"
				   : "");
		for (i = 0; i < p->nalts; i++)
			if (p->alts[i].zero > 1 || p->alts[i].offload)
				break;
		if (i < p->nalts)
			fprintf(fp, "+z: optimizer sharded (+z2, +z3: ZeRO-2, "
				    "ZeRO-3), /o: activations offloaded;\n"
				    "mem: peak per GPU\n");
		else
			fprintf(fp, "+z: optimizer sharded; mem: peak per "
				    "GPU\n");
	}
}
