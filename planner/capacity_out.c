/*
 * capacity_out.c - the capacity report as a table for the terminal, as
 * CSV (one row per GPU type and cluster size) and as YAML
 * (pd2bw-capacity/1), both written atomically.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "capacity.h"
#include "pd2bw/afile.h"
#include "pd2bw/error.h"
#include "pd2bw/plan.h"
#include "pd2bw/profile.h"
#include "pd2bw/yml.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* v with a k/M/B/T suffix in 3 or 4 significant digits. */
static const char *
human(double v, char *buf, size_t n)
{
	static const char suf[] = {0, 'k', 'M', 'B', 'T'};
	int i = 0;

	while (fabs(v) >= 999.5 && i < 4) {
		v /= 1000;
		i++;
	}
	if (!i)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.*f%c", fabs(v) < 9.995 ? 2
					   : fabs(v) < 99.95 ? 1 : 0,
			 v, suf[i]);
	return buf;
}

static const char *
days_str(double d, char *buf, size_t n)
{
	if (d >= 1e5)
		return human(d, buf, n);
	snprintf(buf, n, "%.1f", d);
	return buf;
}

/* "smallest,fastest,...": the choices row i of t is. */
static const char *
notes(const struct capacity *c, const struct capacity_type *t, int i,
      const char *sep, char *buf, size_t n)
{
	int ti = (int)(t - c->types);

	buf[0] = 0;
#define NOTE(cond, word)                                                      \
	do {                                                                  \
		if (cond) {                                                   \
			if (buf[0])                                           \
				strncat(buf, sep, n - strlen(buf) - 1);       \
			strncat(buf, word, n - strlen(buf) - 1);              \
		}                                                             \
	} while (0)
	NOTE(t->smallest == i, "smallest");
	NOTE(t->efficient == i, "efficient-limit");
	NOTE(t->fastest == i, "fastest");
	NOTE(t->cheapest == i, "cheapest");
	NOTE(c->cheap_t == ti && c->cheap_r == i, "best-buy");
#undef NOTE
	return buf;
}

/* The planner's reason for a table row: without its prefix and without
 * the parenthesised configuration. */
static void
short_why(const char *why, char *buf, size_t n)
{
	static const char pre[] = "no configuration fits in memory: ";
	const char *s = why ? why : "";
	const char *open, *close;

	if (!strncmp(s, pre, sizeof(pre) - 1))
		s += sizeof(pre) - 1;
	open = strstr(s, " (");
	close = open ? strchr(open, ')') : NULL;
	if (close)
		snprintf(buf, n, "%.*s%s", (int)(open - s), s, close + 1);
	else
		snprintf(buf, n, "%s", s);
}

static void
money(double usd, char *buf, size_t n)
{
	char h[32];

	if (usd < 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "$%s", human(usd, h, sizeof(h)));
}

/* Whether row r uses more than schedule, w, d, t and b: interleaving,
 * context or expert parallelism, ZeRO, activation offload. */
static int
row_extra(const struct capacity_row *r)
{
	return r->fits && (r->v > 1 || r->c > 1 || r->e > 1 || r->zero ||
			   r->offload);
}

/* "v2 c4 e8 z3/8 off": what row_extra() found, or "-". */
static const char *
extra_str(const struct capacity_row *r, char *buf, size_t n)
{
	size_t k = 0;

	buf[0] = 0;
#define ADD(...) \
	k += (size_t)snprintf(buf + k, k < n ? n - k : 0, __VA_ARGS__)
	if (r->v > 1)
		ADD("%sv%d", k ? " " : "", r->v);
	if (r->c > 1)
		ADD("%sc%d", k ? " " : "", r->c);
	if (r->e > 1)
		ADD("%se%d", k ? " " : "", r->e);
	if (r->zero)
		ADD("%sz%d", k ? " " : "", r->zero);
	if (r->zero && r->shard > 0)
		ADD("/%d", r->shard);
	if (r->offload)
		ADD("%soff", k ? " " : "");
#undef ADD
	if (!buf[0])
		snprintf(buf, n, "-");
	return buf;
}

static void
row_line(FILE *fp, const struct capacity *c, const struct capacity_type *t,
	 int i, int extra)
{
	const struct capacity_row *r = &t->rows[i];
	char a[32], b[32], d[32], e[32], why[160], note[96], x[48];

	if (!r->fits) {
		short_why(r->why, why, sizeof(why));
		fprintf(fp, "%6d %7d  does not fit: %s\n", r->nodes, r->gpus,
			why);
		return;
	}
	money(r->cost_usd, d, sizeof(d));
	fprintf(fp, "%6d %7d  %-5s %5d %4d %2d%s %3d  %-9s ", r->nodes,
		r->gpus, plan_sched_names[r->sched], r->w, r->d, r->t,
		r->sp ? "+sp" : "   ", r->b, plan_rc_names[r->recompute]);
	if (extra)
		fprintf(fp, "%-13s ", extra_str(r, x, sizeof(x)));
	fprintf(fp, "%9s %6.1f %8s %9s %8s %4.0f%%  %s\n",
		human(r->tokens_s, a, sizeof(a)), r->tflops_per_gpu,
		days_str(r->train_days, b, sizeof(b)),
		human(r->gpu_hours, e, sizeof(e)), d, 100 * r->efficiency,
		notes(c, t, i, ", ", note, sizeof(note)));
}

/* "H100-SXM x 512 (64 nodes): 80.2 days, 1.23M GPU-hours, $3.07M". */
static void
pick_line(FILE *fp, const char *label, const struct capacity_type *t, int i)
{
	const struct capacity_row *r = &t->rows[i];
	char a[32], b[32], d[32];

	fprintf(fp, "%-28s %s x %d (%d node%s): %s days, %s GPU-hours", label,
		t->gpu, r->gpus, r->nodes, r->nodes == 1 ? "" : "s",
		days_str(r->train_days, a, sizeof(a)),
		human(r->gpu_hours, b, sizeof(b)));
	if (r->cost_usd >= 0) {
		money(r->cost_usd, d, sizeof(d));
		fprintf(fp, ", %s", d);
	}
	fputc('\n', fp);
}

void
capacity_write_table(FILE *fp, const struct capacity *c)
{
	char a[32], b[32], label[64];
	int i, j, extra;

	fprintf(fp, "%s: %s tokens of %lld per sample, global batch %lld "
		    "(%s tokens)",
		c->model ? c->model : "unknown", human(c->tokens, a, sizeof(a)),
		(long long)c->seq_len, (long long)c->batch,
		human((double)c->batch * (double)c->seq_len, b, sizeof(b)));
	if (c->doc_len > 0)
		fprintf(fp, ", documents of %lld tokens packed",
			(long long)c->doc_len);
	if (c->lora_rank > 0)
		fprintf(fp, ", LoRA rank %d", c->lora_rank);
	if (c->deadline_days > 0)
		fprintf(fp, ", deadline %g days", c->deadline_days);
	fputc('\n', fp);
	for (i = 0; i < c->ntypes; i++) {
		const struct capacity_type *t = &c->types[i];

		fprintf(fp, "\n%s on %s: %d per node, %.1f GiB, ", t->gpu,
			t->node, t->gpus_per_node, t->gpu_mem_bytes / GIB);
		if (t->usd_per_gpu_hour >= 0)
			fprintf(fp, "$%.2f per GPU-hour, ", t->usd_per_gpu_hour);
		fprintf(fp, "%s\n", t->profile ? t->profile : "estimated");
		for (j = 0, extra = 0; j < t->nrows; j++)
			extra |= row_extra(&t->rows[j]);
		/* the extra column only where a size uses it: a plain
		 * table stays as it was */
		fprintf(fp, " nodes    GPUs  sched     w    d  t      b  "
			    "recompute %s tokens/s TF/GPU     days GPU-hours  "
			    "   cost   eff\n",
			extra ? "more          " : "");
		for (j = 0; j < t->nrows; j++)
			row_line(fp, c, t, j, extra);
		if (t->smallest < 0) {
			if (t->hint)
				fprintf(fp, "no size fits; %s\n", t->hint);
			else
				fprintf(fp, "no size fits\n");
			continue;
		}
		fputc('\n', fp);
		pick_line(fp, "smallest that fits:", t, t->smallest);
		pick_line(fp, "fastest:", t, t->fastest);
		snprintf(label, sizeof(label), "efficient (>= %.0f%%) up to:",
			 100 * c->eff_threshold);
		pick_line(fp, label, t, t->efficient);
		if (t->cheapest >= 0)
			pick_line(fp, c->deadline_days > 0
					      ? "cheapest meeting deadline:"
					      : "cheapest:",
				  t, t->cheapest);
		else if (c->deadline_days > 0)
			fprintf(fp, "%-28s none\n", "cheapest meeting deadline:");
	}
	fprintf(fp, "\n");
	if (c->small_t < 0) {
		fprintf(fp, "overall: nothing fits\n");
		return;
	}
	pick_line(fp, "overall smallest that fits:", &c->types[c->small_t],
		  c->small_r);
	pick_line(fp, "overall fastest:", &c->types[c->fast_t], c->fast_r);
	snprintf(label, sizeof(label), "overall %s%s:",
		 c->cheap_by_hours ? "fewest GPU-hours" : "cheapest",
		 c->deadline_days > 0 ? " in time" : "");
	if (c->cheap_t >= 0)
		pick_line(fp, label, &c->types[c->cheap_t], c->cheap_r);
	else
		fprintf(fp, "%-28s none meets the deadline\n", label);
}

/* ---- CSV ---- */

/* A CSV field, quoted when it holds a comma, quote or newline. */
static void
csv_str(FILE *fp, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

int
capacity_write_csv(const struct capacity *c, const char *path)
{
	struct afile f;
	int i, j;

	if (afile_open(&f, path))
		return -1;
	fputs("gpu,node,nodes,gpus,fits,schedule,width,depth,tensor,"
	      "sequence_parallel,microbatch,"
	      "accumulation,recompute,placement,iteration_ms,samples_per_s,"
	      "tokens_per_s,tflops_per_gpu,peak_memory_gib,train_days,"
	      "gpu_hours,usd_per_gpu_hour,cost_usd,efficiency,meets_deadline,"
	      "note,interleave,context_parallel,expert_parallel,zero_stage,"
	      "shard_group,activation_offload\n",
	      f.fp);
	for (i = 0; i < c->ntypes; i++) {
		const struct capacity_type *t = &c->types[i];

		for (j = 0; j < t->nrows; j++) {
			const struct capacity_row *r = &t->rows[j];
			char note[96];

			csv_str(f.fp, t->gpu);
			fputc(',', f.fp);
			csv_str(f.fp, t->node);
			fprintf(f.fp, ",%d,%d,", r->nodes, r->gpus);
			if (!r->fits) {
				fputs("no,,,,,,,,,,,,,,,,,,,,,", f.fp);
				csv_str(f.fp, r->why ? r->why : "");
				fputs(",,,,,,\n", f.fp);
				continue;
			}
			fprintf(f.fp, "yes,%s,%d,%d,%d,%s,%d,%d,%s,%s,%.3f,"
				      "%.4f,%.1f,%.2f,%.3f,%.4f,%.1f,",
				plan_sched_names[r->sched], r->w, r->d, r->t,
				r->sp ? "yes" : "no", r->b,
				r->m, plan_rc_names[r->recompute],
				plan_place_names[r->place], r->iter_ms,
				r->samples_s, r->tokens_s, r->tflops_per_gpu,
				r->peak_mem_bytes / GIB, r->train_days,
				r->gpu_hours);
			if (t->usd_per_gpu_hour >= 0)
				fprintf(f.fp, "%.4g,%.2f,", t->usd_per_gpu_hour,
					r->cost_usd);
			else
				fputs(",,", f.fp);
			fprintf(f.fp, "%.4f,%s,", r->efficiency,
				r->meets_deadline ? "yes" : "no");
			csv_str(f.fp, notes(c, t, j, ";", note, sizeof(note)));
			fprintf(f.fp, ",%d,%d,%d,%d,%d,%s\n", r->v, r->c, r->e,
				r->zero, r->shard, r->offload ? "yes" : "no");
		}
	}
	return afile_commit(&f);
}

/* ---- YAML ---- */

static void
yaml_pick(struct yml_out *o, const char *key, const struct capacity *c,
	  int ti, int ri)
{
	const struct capacity_row *r;

	if (ti < 0 || ri < 0)
		return;
	r = &c->types[ti].rows[ri];
	yml_out_str(o, key);
	yml_out_map(o, 1);
	yml_out_kstr(o, "gpu", c->types[ti].gpu);
	yml_out_kstr(o, "node", c->types[ti].node);
	yml_out_kint(o, "gpus", r->gpus);
	yml_out_kdbl(o, "train_days", r->train_days);
	yml_out_kdbl(o, "gpu_hours", r->gpu_hours);
	if (r->cost_usd >= 0)
		yml_out_kdbl(o, "cost_usd", r->cost_usd);
	yml_out_end_map(o);
}

static void
yaml_row(struct yml_out *o, const struct capacity *c,
	 const struct capacity_type *t, int i)
{
	const struct capacity_row *r = &t->rows[i];
	char note[96];

	yml_out_map(o, 1);
	yml_out_kint(o, "nodes", r->nodes);
	yml_out_kint(o, "gpus", r->gpus);
	yml_out_kbool(o, "fits", r->fits);
	if (!r->fits) {
		yml_out_kstr(o, "why", r->why ? r->why : "");
		yml_out_end_map(o);
		return;
	}
	yml_out_kstr(o, "schedule", plan_sched_names[r->sched]);
	yml_out_kint(o, "width", r->w);
	yml_out_kint(o, "depth", r->d);
	yml_out_kint(o, "tensor", r->t);
	yml_out_kbool(o, "sequence_parallel", r->sp);
	yml_out_kint(o, "microbatch", r->b);
	yml_out_kint(o, "accumulation", r->m);
	yml_out_kstr(o, "recompute", plan_rc_names[r->recompute]);
	yml_out_kstr(o, "placement", plan_place_names[r->place]);
	yml_out_kdbl(o, "iteration_ms", r->iter_ms);
	yml_out_kdbl(o, "samples_per_s", r->samples_s);
	yml_out_kdbl(o, "tokens_per_s", r->tokens_s);
	yml_out_kdbl(o, "tflops_per_gpu", r->tflops_per_gpu);
	yml_out_kint(o, "peak_memory_bytes", r->peak_mem_bytes);
	yml_out_kdbl(o, "train_days", r->train_days);
	yml_out_kdbl(o, "gpu_hours", r->gpu_hours);
	if (r->cost_usd >= 0)
		yml_out_kdbl(o, "cost_usd", r->cost_usd);
	yml_out_kdbl(o, "efficiency", r->efficiency);
	yml_out_kbool(o, "meets_deadline", r->meets_deadline);
	if (*notes(c, t, i, ",", note, sizeof(note)))
		yml_out_kstr(o, "note", note);
	yml_out_kint(o, "interleave", r->v);
	yml_out_kint(o, "context_parallel", r->c);
	yml_out_kint(o, "expert_parallel", r->e);
	yml_out_kint(o, "zero_stage", r->zero);
	yml_out_kint(o, "shard_group", r->shard);
	yml_out_kbool(o, "activation_offload", r->offload);
	yml_out_end_map(o);
}

static void
yaml_gpus(struct yml_out *o, const char *key, const struct capacity_type *t,
	  int i)
{
	if (i >= 0)
		yml_out_kint(o, key, t->rows[i].gpus);
}

int
capacity_write_yaml(const struct capacity *c, const char *path)
{
	struct yml_out o;
	int i, j;

	if (yml_out_open(&o, path))
		return -1;
	yml_out_map(&o, 0);
	yml_out_kstr(&o, "format", "pd2bw-capacity/1");
	yml_out_kstr(&o, "model", c->model ? c->model : "unknown");
	yml_out_kdbl(&o, "tokens", c->tokens);
	yml_out_kint(&o, "seq_len", c->seq_len);
	if (c->doc_len > 0)
		yml_out_kint(&o, "doc_len", c->doc_len);
	if (c->lora_rank > 0)
		yml_out_kint(&o, "lora_rank", c->lora_rank);
	yml_out_kint(&o, "global_batch", c->batch);
	if (c->deadline_days > 0)
		yml_out_kdbl(&o, "deadline_days", c->deadline_days);
	yml_out_kdbl(&o, "efficiency_threshold", c->eff_threshold);
	yml_out_kstr(&o, "cost_basis", c->cheap_by_hours ? "gpu_hours"
							 : "usd");
	yml_out_str(&o, "gpu_types");
	yml_out_seq(&o, 0);
	for (i = 0; i < c->ntypes; i++) {
		const struct capacity_type *t = &c->types[i];

		yml_out_map(&o, 0);
		yml_out_kstr(&o, "gpu", t->gpu);
		yml_out_kstr(&o, "node", t->node);
		yml_out_kint(&o, "gpus_per_node", t->gpus_per_node);
		yml_out_kint(&o, "gpu_memory_bytes", t->gpu_mem_bytes);
		yml_out_kstr(&o, "profile",
			     t->profile ? t->profile : "estimated");
		if (t->usd_per_gpu_hour >= 0)
			yml_out_kdbl(&o, "usd_per_gpu_hour",
				     t->usd_per_gpu_hour);
		yaml_gpus(&o, "smallest_fit_gpus", t, t->smallest);
		yaml_gpus(&o, "fastest_gpus", t, t->fastest);
		yaml_gpus(&o, "efficient_up_to_gpus", t, t->efficient);
		yaml_gpus(&o, "cheapest_gpus", t, t->cheapest);
		yml_out_str(&o, "sizes");
		yml_out_seq(&o, 0);
		for (j = 0; j < t->nrows; j++)
			yaml_row(&o, c, t, j);
		yml_out_end_seq(&o);
		yml_out_end_map(&o);
	}
	yml_out_end_seq(&o);
	yml_out_str(&o, "choice");
	yml_out_map(&o, 0);
	yaml_pick(&o, "smallest_fit", c, c->small_t, c->small_r);
	yaml_pick(&o, "fastest", c, c->fast_t, c->fast_r);
	yaml_pick(&o, "cheapest", c, c->cheap_t, c->cheap_r);
	yml_out_end_map(&o);
	yml_out_end_map(&o);
	return yml_out_close(&o);
}
