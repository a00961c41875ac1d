/*
 * trace.c - the profiler's measured timeline (trace.h): events collected
 * in memory while measuring, then written as Chrome trace-event JSON with
 * the writer pieces of lib/trace_json.c.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pd2bw/afile.h"
#include "pd2bw/error.h"
#include "pd2bw/trace_json.h"
#include "trace.h"

static double
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void
prof_trace_init(struct prof_trace *t, int pid)
{
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->origin_ms = mono_ms();
}

void
prof_trace_release(struct prof_trace *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->ev[i].name);
		free(t->ev[i].layer);
	}
	free(t->ev);
	memset(t, 0, sizeof(*t));
}

double
prof_trace_now_us(const struct prof_trace *t)
{
	return (mono_ms() - t->origin_ms) * 1e3;
}

void
prof_trace_add(struct prof_trace *t, const char *name, const char *layer,
	       int pass, int tid, int kernel, int64_t b, int repeat,
	       double ts_us, double dur_us)
{
	struct prof_tev *e;

	xgrow((void **)&t->ev, &t->alloc, t->n + 1, sizeof(*t->ev));
	e = &t->ev[t->n++];
	e->name = xstrdup(name ? name : "?");
	e->layer = layer ? xstrdup(layer) : NULL;
	e->pass = pass;
	e->tid = tid;
	e->kernel = kernel;
	e->b = b;
	e->repeat = repeat;
	e->ts_us = ts_us;
	e->dur_us = dur_us;
}

/* Metadata naming each thread that has events, in tid order. */
static void
put_threads(FILE *fp, const struct prof_trace *t)
{
	int last = -1, next, found;
	size_t i;
	char name[64];

	for (;;) {
		/* The smallest tid above the last one named. */
		found = 0;
		next = 0;
		for (i = 0; i < t->n; i++)
			if (t->ev[i].tid > last &&
			    (!found || t->ev[i].tid < next)) {
				next = t->ev[i].tid;
				found = 1;
			}
		if (!found)
			return;
		if (next >= PROF_TID_STREAM)
			snprintf(name, sizeof(name), "stream %d",
				 next - PROF_TID_STREAM);
		else
			snprintf(name, sizeof(name), "%s",
				 next == PROF_TID_FWD ? "forward"
				 : next == PROF_TID_BWD ? "backward"
							: "training step");
		tj_meta(fp, "thread_name", t->pid, next, name);
		last = next;
	}
}

int
prof_trace_write(const struct prof_trace *t, const char *path,
		 const struct profile *p, int warmup, int repeats)
{
	static const char *const pass_name[] = {"forward", "backward"};
	struct afile f;
	FILE *fp;
	double end = 0;
	size_t i;
	int k;

	if (afile_open(&f, path))
		return -1;
	fp = f.fp;
	tj_begin(fp);
	tj_meta(fp, "process_name", t->pid, 0, p->device ? p->device : "");
	put_threads(fp, t);
	for (i = 0; i < t->n; i++) {
		const struct prof_tev *e = &t->ev[i];
		const char *pass = e->pass >= 0 && e->pass <= 1
					   ? pass_name[e->pass] : NULL;
		const char *sep = "";

		tj_event(fp, e->name, e->kernel ? "kernel" : pass ? pass
							   : "step",
			 t->pid, e->tid, e->ts_us, e->dur_us);
		if (e->layer) {
			fputs("\"layer\": ", fp);
			tj_str(fp, e->layer);
			sep = ", ";
		}
		if (pass) {
			fprintf(fp, "%s\"pass\": \"%s\"", sep, pass);
			sep = ", ";
		}
		if (e->b > 0) {
			fprintf(fp, "%s\"microbatch\": %lld", sep,
				(long long)e->b);
			sep = ", ";
		}
		if (e->repeat >= 0)
			fprintf(fp, "%s\"repeat\": %d", sep, e->repeat);
		tj_event_end(fp);
		if (e->ts_us + e->dur_us > end)
			end = e->ts_us + e->dur_us;
	}
	tj_end_events(fp, end);
	fputs("\"displayTimeUnit\": \"ms\",\n\"otherData\": {\"model\": ", fp);
	tj_str(fp, p->model);
	fputs(", \"device\": ", fp);
	tj_str(fp, p->device);
	fputs(", \"backend\": ", fp);
	tj_str(fp, p->backend);
	fputs(", \"precision\": ", fp);
	tj_str(fp, p->precision);
	fprintf(fp, ", \"tp\": %d, \"warmup\": %d, \"repeats\": %d, "
		"\"microbatches\": [", p->tp, warmup, repeats);
	for (k = 0; k < p->nmb; k++)
		fprintf(fp, "%s%d", k ? ", " : "", p->mb[k]);
	fprintf(fp, "], \"kernels\": %s}\n}\n",
		t->kernels ? "true" : "false");
	return afile_commit(&f);
}
