/*
 * trace.c - a simulated schedule as Chrome trace-event JSON: metadata
 * events naming each stage (process) and stream (thread), then one
 * complete event per operation, times in microseconds with three decimals
 * so the file is byte-stable (the format's pieces are lib/trace_json.c's).
 */
#include <stdio.h>

#include "pd2bw/afile.h"
#include "pd2bw/error.h"
#include "pd2bw/profile.h"
#include "pd2bw/trace_json.h"
#include "pictures/trace.h"

int
trace_write(const char *path, const struct plan *p, const struct sim *s)
{
	static const char *const name[] = {"F", "R", "B", "send", "send",
					   "all-reduce", "optimizer",
					   "all-gather"};
	static const char *const cat[] = {"forward", "recompute", "backward",
					  "p2p", "p2p", "allreduce",
					  "optimizer", "allgather"};
	double until = sim_show_until(s);
	struct afile f;
	FILE *fp;
	size_t i;
	int st;
	char ename[64];

	if (afile_open(&f, path))
		return -1;
	fp = f.fp;
	tj_begin(fp);
	for (st = 0; st < s->d; st++) {
		const struct plan_stage *ps =
			st < p->nstages ? &p->stages[st] : NULL;
		char pname[64];

		if (ps)
			snprintf(pname, sizeof(pname), "stage %d (layers %d-%d)",
				 st, ps->first, ps->last);
		else
			snprintf(pname, sizeof(pname), "stage %d", st);
		tj_meta(fp, "process_name", st, 0, pname);
		tj_sort_index(fp, st, st);
		tj_meta(fp, "thread_name", st, 0, "compute");
		tj_meta(fp, "thread_name", st, 1, "p2p");
		tj_meta(fp, "thread_name", st, 2, "all-reduce");
	}
	for (i = 0; i < s->nops; i++) {
		const struct sim_op *o = &s->ops[i];
		const struct plan_stage *ps =
			o->stage < p->nstages ? &p->stages[o->stage] : NULL;
		int tid = o->kind <= SIM_BWD || o->kind == SIM_OPTIMIZER ? 0
			  : o->kind == SIM_ALLREDUCE || o->kind == SIM_GATHER
				  ? 2 : 1;

		if (o->start_ms >= until && until > 0)
			continue;
		if (o->kind > SIM_BWD)
			snprintf(ename, sizeof(ename), "%s", name[o->kind]);
		else if (s->v > 1)
			snprintf(ename, sizeof(ename), "%s%d.%d", name[o->kind],
				 o->mb, o->chunk);
		else
			snprintf(ename, sizeof(ename), "%s%d", name[o->kind],
				 o->mb);
		tj_event(fp, ename, cat[o->kind], o->stage, tid,
			 o->start_ms * 1e3, (o->end_ms - o->start_ms) * 1e3);
		if (o->kind >= SIM_ALLREDUCE)
			fprintf(fp, "\"iteration\": %d, \"replicas\": %d",
				o->iter, p->w);
		else
			fprintf(fp, "\"microbatch\": %d, \"iteration\": %d",
				o->mb, o->iter);
		if (s->v > 1 && o->kind < SIM_ALLREDUCE)
			fprintf(fp, ", \"chunk\": %d, \"virtual_stage\": %d",
				o->chunk, o->chunk * s->d + o->stage);
		/* Interleaved, GPU d-1 sends on to GPU 0 (the next chunk). */
		if (o->kind == SIM_SEND_ACT)
			fprintf(fp, ", \"to_stage\": %d, \"what\": "
				"\"activation\"", (o->stage + 1) % s->d);
		if (o->kind == SIM_SEND_GRAD)
			fprintf(fp, ", \"to_stage\": %d, \"what\": "
				"\"gradient\"", (o->stage + s->d - 1) % s->d);
		if (ps)
			fprintf(fp, ", \"layers\": \"%d-%d\"", ps->first,
				ps->last);
		tj_event_end(fp);
	}
	/* The last event: a marker at the end of what is shown, so every
	 * other line can end with a comma. */
	tj_end_events(fp, until * 1e3);
	fputs("\"displayTimeUnit\": \"ms\",\n\"otherData\": {\"model\": ", fp);
	tj_str(fp, p->model ? p->model : "");
	fputs(", \"gpu\": ", fp);
	tj_str(fp, p->gpu ? p->gpu : "");
	fprintf(fp,
		", \"schedule\": \"%s\", \"w\": %d, \"d\": %d, \"b\": %d, "
		"\"m\": %d, \"t\": %d, \"v\": %d, \"recompute\": \"%s\",\n"
		"  \"simulated_iteration_ms\": %.6f, "
		"\"closed_form_iteration_ms\": %.6f, \"bubble\": %.6f,\n"
		"  \"stages\": [",
		s->sched >= 0 && s->sched < PLAN_NSCHED
			? plan_sched_names[s->sched] : "?",
		p->w, p->d, p->b, p->m, p->t, p->v,
		p->recompute >= 0 && p->recompute < PROF_RC_N
			? prof_rc_names[p->recompute] : "?",
		s->iter_ms, p->iter_ms, s->bubble_frac);
	for (st = 0; st < s->d; st++) {
		fprintf(fp,
			"%s\n    {\"stage\": %d, \"in_flight\": %d, "
			"\"stash_bytes\": %.0f, \"weight_versions\": %d, "
			"\"idle\": %.6f",
			st ? "," : "", st, s->stages[st].peak_in_flight,
			s->stages[st].peak_stash_bytes,
			s->stages[st].peak_versions, sim_stage_idle(s, st));
		if (s->v > 1)
			fprintf(fp, ", \"chunks_in_flight\": %d",
				s->stages[st].peak_chunks);
		fputc('}', fp);
	}
	fputs("]}\n}\n", fp);
	return afile_commit(&f);
}
