/*
 * measure.c - the measurement driver (warm-up, median of repeats, spread,
 * microbatch sweep stopping at the first size that does not fit, whole-step
 * check) and the cpu backend, which runs the reference ops of cpu.c;
 * with --trace it records every timed run as a trace event (trace.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pd2bw/error.h"
#include "cpu.h"
#include "measure.h"
#include "trace.h"

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double
prof_median(double *x, int n, double *spread)
{
	double med;

	if (n < 1) {
		if (spread)
			*spread = 0;
		return 0;
	}
	qsort(x, n, sizeof(*x), cmp_dbl);
	med = n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
	if (spread)
		*spread = med > 0 ? (x[n - 1] - x[0]) / med : 0;
	return med;
}

/* ---- the cpu backend ---- */

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int
cpu_open(void **ctx, const struct prof_opts *o, struct profile *p)
{
	char line[256], *name = NULL;
	FILE *fp;
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);

	*ctx = NULL;
	fp = fopen("/proc/cpuinfo", "r");
	while (fp && !name && fgets(line, sizeof(line), fp)) {
		char *c = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && c) {
			c += 1 + (c[1] == ' ');
			c[strcspn(c, "\n")] = '\0';
			name = xstrdup(c);
		}
	}
	if (fp)
		fclose(fp);
	free(p->device);
	p->device = o->name ? xstrdup(o->name) :
		    name ? name : xstrdup("cpu");
	if (o->name || !name)
		free(name);
	p->device_mem_bytes = pages > 0 && psize > 0 ?
			      (int64_t)pages * psize : 0;
	free(p->versions);
	p->versions = xstrdup("cpu reference backend, fp32, GEMMs through "
			      "CBLAS");
	return 0;
}

static void
cpu_close(void *ctx)
{
	(void)ctx;
}

static int
cpu_layer_new(void *ctx, const struct prof_graph *g, int layer, int64_t b,
	      void **inst)
{
	(void)ctx;
	*inst = prof_cpu_layer_new(g, layer, b, 1 + layer);
	return 0;
}

static void
cpu_layer_free(void *ctx, void *inst)
{
	(void)ctx;
	prof_cpu_layer_free(inst);
}

static int
cpu_time(void *ctx, void *inst, struct prof_times *t)
{
	struct prof_cpu_layer *l = inst;
	const struct prof_glayer *gl = &l->g->layers[l->layer];
	double t0, t1;
	int i;

	(void)ctx;
	t->attn_ms = 0;
	t0 = now_ms();
	for (i = 0; i < gl->nops; i++) {
		double a = now_ms();

		prof_cpu_op_fwd(l, i);
		if (gl->ops[i].kind == PROF_OP_ATTN)
			t->attn_ms += now_ms() - a;
	}
	t1 = now_ms();
	prof_cpu_bwd(l);
	t->fwd_ms = t1 - t0;
	t->bwd_ms = now_ms() - t1;
	return 0;
}

static int
cpu_step(void *ctx, void **insts, int n, double *ms)
{
	struct prof_cpu_layer **l = (struct prof_cpu_layer **)insts;
	double t0 = now_ms();
	int i;

	(void)ctx;
	for (i = 0; i < n; i++) {
		const struct prof_glayer *gl = &l[i]->g->layers[l[i]->layer];

		if (i > 0 && gl->kind != PROF_EMBED) {
			const struct prof_glayer *pl =
				&l[i - 1]->g->layers[l[i - 1]->layer];

			memcpy(l[i]->t[0], l[i - 1]->t[pl->out],
			       l[i]->T * gl->cols[0] * sizeof(float));
		}
		prof_cpu_fwd(l[i]);
	}
	for (i = n - 1; i >= 0; i--) {
		const struct prof_glayer *gl = &l[i]->g->layers[l[i]->layer];

		if (i < n - 1)
			memcpy(l[i]->dout, l[i + 1]->dt[0],
			       l[i]->T * gl->cols[gl->out] * sizeof(float));
		prof_cpu_bwd(l[i]);
	}
	*ms = now_ms() - t0;
	return 0;
}

static int64_t
cpu_stash(void *ctx, void *inst)
{
	(void)ctx;
	(void)inst;
	return -1;
}

const char *const prof_mem_tag_names[] = {
	"weights", "gradients", "optimizer", "stash", "workspace", NULL
};

const struct prof_backend prof_cpu_backend = {
	"cpu", cpu_open, cpu_close, NULL, cpu_layer_new, cpu_layer_free,
	cpu_time, cpu_step, cpu_stash, NULL,
};

/* ---- the driver ---- */

double
prof_estimate_ms(const struct prof_graph *g, const int *mb, int nmb,
		 int runs, double gflops)
{
	double flops = 0;
	int i, k;

	for (k = 0; k < nmb; k++)
		for (i = 0; i < g->nlayers; i++)
			flops += 3 * prof_layer_flops(g, i, mb[k]);
	return gflops > 0 ? runs * flops / (gflops * 1e9) * 1e3 : 0;
}

char *
prof_duration_str(double ms, char *buf, size_t n)
{
	long s = (long)(ms / 1e3 + 0.5);

	if (s >= 3600)
		snprintf(buf, n, "%ldh%02ldm", s / 3600, s / 60 % 60);
	else if (s >= 60)
		snprintf(buf, n, "%ldm%02lds", s / 60, s % 60);
	else
		snprintf(buf, n, "%lds", s);
	return buf;
}

/*
 * The bar: done of total work (FLOPs measured so far), the layer now
 * measured, and the time left: from the rate so far, or before any work
 * is done from est_ms (0: none).
 */
static void
progress(const struct prof_opts *o, double done, double total,
	 const char *what, int b, double t0_ms, double est_ms)
{
	int i, w = 30, fill;
	double f = total > 0 ? done / total : 1, el = now_ms() - t0_ms;
	char eta[32] = "", d[16];

	if (!o->progress)
		return;
	if (f > 1)
		f = 1;
	fill = (int)(w * f);
	if (f >= 1)
		snprintf(eta, sizeof(eta), "in %s",
			 prof_duration_str(el, d, sizeof(d)));
	else if (done > 0)
		snprintf(eta, sizeof(eta), "ETA %s",
			 prof_duration_str(el * (1 - f) / f, d, sizeof(d)));
	else if (est_ms > 0)
		snprintf(eta, sizeof(eta), "ETA ~%s",
			 prof_duration_str(est_ms, d, sizeof(d)));
	fprintf(stderr, "\r%s: [", pd2bw_progname);
	for (i = 0; i < w; i++)
		fputc(i < fill ? '#' : ' ', stderr);
	fprintf(stderr, "] %3d%% %-10s b=%-4d %-12s", (int)(100 * f), what, b,
		eta);
	if (f >= 1)
		fputc('\n', stderr);
	fflush(stderr);
}

/* Warm up, then time o->repeats runs; fill point pt of layer li. */
static int
measure_layer(const struct prof_backend *be, void *ctx,
	      const struct prof_opts *o, const struct prof_graph *g, int li,
	      int64_t b, void *inst, struct prof_point *pt)
{
	int n = o->repeats, i, ret = -1;
	double *f = xcalloc(3 * (size_t)n, sizeof(double)), *bw = f + n;
	double *at = bw + n, sf, sb, sa, t0 = 0;
	struct prof_times t;
	int64_t seen;
	char name[96];

	for (i = 0; i < o->warmup; i++)
		if (be->time(ctx, inst, &t))
			goto out;
	for (i = 0; i < n; i++) {
		if (o->trace)
			t0 = prof_trace_now_us(o->trace);
		if (be->time(ctx, inst, &t))
			goto out;
		f[i] = t.fwd_ms;
		bw[i] = t.bwd_ms;
		at[i] = t.attn_ms;
		if (!o->trace)
			continue;
		/* The run began about when time() was called; the backward
		 * follows the forward. */
		snprintf(name, sizeof(name), "%s forward", g->layers[li].name);
		prof_trace_add(o->trace, name, g->layers[li].name, 0,
			       PROF_TID_FWD, 0, b, i, t0, t.fwd_ms * 1e3);
		snprintf(name, sizeof(name), "%s backward",
			 g->layers[li].name);
		prof_trace_add(o->trace, name, g->layers[li].name, 1,
			       PROF_TID_BWD, 0, b, i, t0 + t.fwd_ms * 1e3,
			       t.bwd_ms * 1e3);
	}
	pt->fwd_ms = prof_median(f, n, &sf);
	pt->bwd_ms = prof_median(bw, n, &sb);
	pt->recomp_ms[PROF_RC_NONE] = 0;
	pt->recomp_ms[PROF_RC_SELECTIVE] = prof_median(at, n, &sa);
	/* the blocks alone are checkpointed (analytic.c,
	 * rc_outside_blocks()) */
	pt->recomp_ms[PROF_RC_FULL] =
		g->layers[li].kind == PROF_BLOCK ? pt->fwd_ms : 0;
	pt->out_bytes = prof_layer_out_bytes(g, li, b);
	for (i = 0; i < PROF_RC_N; i++)
		pt->stash_bytes[i] = prof_layer_stash(g, li, b, i);
	pt->work_bytes = prof_layer_work(g, li, b);
	pt->fwd_flops = prof_layer_flops(g, li, b);
	if (o->verbose) {
		fprintf(stderr, "%s: %-9s b=%-3lld fwd %10.4f ms (spread "
			"%5.2f%%)  bwd %10.4f ms (spread %5.2f%%)  "
			"%8.3g TFLOP/s", pd2bw_progname, g->layers[li].name,
			(long long)b, pt->fwd_ms, 100 * sf, pt->bwd_ms,
			100 * sb, pt->fwd_ms + pt->bwd_ms > 0 ?
			3 * pt->fwd_flops / (pt->fwd_ms + pt->bwd_ms) * 1e-9 :
			0);
		seen = be->stash ? be->stash(ctx, inst) : -1;
		if (seen >= 0)
			fprintf(stderr, "  stash allocated %lld, counted %lld",
				(long long)seen,
				(long long)pt->stash_bytes[PROF_RC_NONE]);
		fputc('\n', stderr);
	}
	ret = 0;
out:
	free(f);
	return ret;
}

/*
 * Time whole training steps (every layer instantiated, forward then
 * backward) at microbatch p->mb[k] and compare with the per-layer sum.
 * Returns 0, 1 when the whole model does not fit, or -1.
 */
static int
measure_step(const struct prof_backend *be, void *ctx,
	     const struct prof_opts *o, const struct prof_graph *g,
	     const struct profile *p, int k)
{
	int L = g->layers[1].repeat, n = L + 2, i, made = 0, ret = -1, r;
	void **inst = xcalloc(n, sizeof(*inst));
	double *ms = xcalloc(o->repeats, sizeof(double)), med, spread;
	double sum = 0;
	int64_t b = p->mb[k], tag[PROF_MEM_NTAGS], pool = -1;

	if (be->mem)
		be->mem(ctx, 1, NULL, NULL);
	for (i = 0; i < n; i++, made++) {
		int li = i == 0 ? 0 : i == n - 1 ? 2 : 1;

		r = be->layer_new(ctx, g, li, b, &inst[i]);
		if (r) {
			if (r > 0)
				ret = 1; /* try a smaller microbatch */
			goto out;
		}
	}
	for (i = 0; i < o->warmup + o->repeats; i++) {
		double t, t0 = o->trace ? prof_trace_now_us(o->trace) : 0;

		if (be->step(ctx, inst, n, &t))
			goto out;
		if (i < o->warmup)
			continue;
		ms[i - o->warmup] = t;
		if (o->trace)
			prof_trace_add(o->trace, "step", NULL, -1,
				       PROF_TID_STEP, 0, b, i - o->warmup, t0,
				       t * 1e3);
	}
	if (be->mem)
		be->mem(ctx, 0, tag, &pool);
	med = prof_median(ms, o->repeats, &spread);
	for (i = 0; i < p->nlayers; i++)
		sum += p->layers[i].repeat *
		       (p->layers[i].pt[k].fwd_ms + p->layers[i].pt[k].bwd_ms);
	fprintf(stderr, "%s: step b=%lld: measured %.4f ms (spread %.2f%%), "
		"sum of layers %.4f ms, difference %+.2f%%\n",
		pd2bw_progname, (long long)b, med, 100 * spread, sum,
		med > 0 ? 100 * (sum - med) / med : 0);
	/*
	 * What the step held at its peak, by tag.  Every layer keeps its
	 * workspace for the whole step here, where a framework would free
	 * it between layers, so the training step itself needs about the
	 * rest plus one layer's workspace.
	 */
	if (be->mem) {
		int64_t all = 0;

		for (i = 0; i < PROF_MEM_NTAGS; i++)
			all += tag[i];
		fprintf(stderr, "%s: step b=%lld: peak %.1f MiB:",
			pd2bw_progname, (long long)b, (double)all / 1048576);
		for (i = 0; i < PROF_MEM_NTAGS; i++)
			fprintf(stderr, "%s %s %.1f", i ? "," : "",
				prof_mem_tag_names[i],
				(double)tag[i] / 1048576);
		if (pool >= 0)
			fprintf(stderr, "; pool high-water mark %.1f MiB",
				(double)pool / 1048576);
		fputc('\n', stderr);
	}
	ret = 0;
out:
	for (i = 0; i < made; i++)
		be->layer_free(ctx, inst[i]);
	free(inst);
	free(ms);
	return ret;
}

int
prof_measure(const struct prof_backend *be, const struct prof_opts *opts,
	     const struct model *m, int tp, struct profile *p)
{
	struct prof_graph *g = xmalloc(sizeof(*g));
	struct prof_opts oo = *opts;
	const struct prof_opts *o = &oo;
	struct prof_trace tr;
	void *ctx = NULL;
	int i, k, fit = 0, ret = -1, opened = 0;
	double t0, total, done = 0, est = 0;
	int dtype = o->precision == MODEL_FP32 ? 4 : 2;

	/* The trace lives for this run: the backend sees it through o from
	 * open to close, where the cuda backend adds its kernels. */
	prof_trace_init(&tr, o->device);
	oo.trace = o->trace_path ? &tr : NULL;

	if (prof_graph_build(g, m, tp, dtype))
		goto out;
	if (be->open(&ctx, o, p))
		goto out;
	opened = 1;
	if (o->check && be->check && be->check(ctx, m, g))
		goto out;
	if (o->check_only) {
		if (!be->check)
			pd2bw_warn("the %s backend has no kernel checks",
				   be->name);
		ret = 0;
		goto out;
	}
	free(p->model);
	p->model = xstrdup(m->name ? m->name : "model");
	free(p->backend);
	p->backend = xstrdup(be->name);
	free(p->precision);
	p->precision = xstrdup(model_prec_names[o->precision]);
	p->tp = tp;
	p->seq_len = m->seq_len;
	p->hidden = m->hidden;
	profile_alloc(p, o->nmb, g->nlayers);
	for (i = 0; i < g->nlayers; i++) {
		p->layers[i].name = xstrdup(g->layers[i].name);
		p->layers[i].kind = g->layers[i].kind;
		p->layers[i].repeat = g->layers[i].repeat;
		p->layers[i].params = g->layers[i].counted;
	}
	/* The cpu backend can take hours on a large model: say how long
	 * before starting.  The bar weighs every layer by its FLOPs (done
	 * and total in MFLOP). */
	t0 = now_ms();
	total = prof_estimate_ms(g, o->mb, o->nmb, 1, 1);
	if (!strcmp(be->name, "cpu")) {
		double rate = o->cpu_gflops > 0 ? o->cpu_gflops :
			      prof_cpu_gflops();
		char dur[32];

		est = prof_estimate_ms(g, o->mb, o->nmb,
				       o->warmup + o->repeats, rate);
		if (est > 60e3)
			pd2bw_warn("measuring %s on the cpu backend takes "
				   "about %s (%d layer kinds, %d microbatch "
				   "size%s, %d runs each at %.0f GFLOP/s); "
				   "-m 1, -w 0 -r 1, or an estimate in a second "
				   "(-b analytic -g GPU) are quicker",
				   p->model, prof_duration_str(est, dur,
							      sizeof(dur)),
				   g->nlayers, o->nmb, o->nmb == 1 ? "" : "s",
				   o->warmup + o->repeats, rate);
	}
	for (k = 0; k < o->nmb; k++) {
		int stop = 0;

		p->mb[k] = o->mb[k];
		for (i = 0; i < g->nlayers && !stop; i++) {
			void *inst;
			int r;

			progress(o, done, total, g->layers[i].name, o->mb[k],
				 t0, est);
			r = be->layer_new(ctx, g, i, o->mb[k], &inst);
			if (r < 0)
				goto out;
			if (r > 0) {
				stop = 1;
				break;
			}
			r = measure_layer(be, ctx, o, g, i, o->mb[k], inst,
					  &p->layers[i].pt[k]);
			be->layer_free(ctx, inst);
			if (r)
				goto out;
			done += 3 * prof_layer_flops(g, i, o->mb[k]) / 1e6;
		}
		if (stop) {
			if (o->progress)
				fputc('\n', stderr);
			if (k)
				fprintf(stderr, "%s: microbatch %d does not "
					"fit in memory; the sweep stops at "
					"%d\n", pd2bw_progname, o->mb[k],
					o->mb[k - 1]);
			break;
		}
		fit++;
	}
	progress(o, total, total, "done", fit ? o->mb[fit - 1] : 0, t0, est);
	if (!fit) {
		pd2bw_error("microbatch %d of %s does not fit on %s", o->mb[0],
			    p->model, p->device);
		goto out;
	}
	p->nmb = fit;
	if (o->step) {
		int r = 1;

		for (k = fit - 1; k >= 0 && r > 0; k--)
			r = measure_step(be, ctx, o, g, p, k);
		if (r < 0)
			goto out;
		if (r > 0)
			pd2bw_warn("no whole training step fits in memory; "
				   "step check skipped");
	}
	ret = 0;
out:
	if (opened)
		be->close(ctx);
	if (!ret && o->trace &&
	    prof_trace_write(&tr, o->trace_path, p, o->warmup, o->repeats))
		ret = -1;
	prof_trace_release(&tr);
	free(g);
	return ret;
}
