/*
 * capacity.c - capacity planning: for a model, a number of training tokens
 * and one or more GPU types with their node shapes, plan every cluster
 * size of a sweep (one search each, keeping the best configuration) and
 * derive time to train, GPU-hours, cost, scaling efficiency and the sizes
 * worth buying.  pd2bw-plan capacity (planner/capacity.c) reads the
 * options and writes the report.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/capacity.h"
#include "pd2bw/error.h"
#include "pd2bw/plan.h"

/* ---- the data ---- */

void
capacity_init(struct capacity *c)
{
	memset(c, 0, sizeof(*c));
	c->eff_threshold = 0.5;
	c->small_t = c->small_r = -1;
	c->fast_t = c->fast_r = -1;
	c->cheap_t = c->cheap_r = -1;
}

void
capacity_release(struct capacity *c)
{
	int i, j;

	for (i = 0; i < c->ntypes; i++) {
		struct capacity_type *t = &c->types[i];

		for (j = 0; j < t->nrows; j++)
			free(t->rows[j].why);
		free(t->rows);
		free(t->gpu);
		free(t->node);
		free(t->profile);
		free(t->hint);
	}
	free(c->types);
	free(c->model);
	capacity_init(c);
}

struct capacity_type *
capacity_add_type(struct capacity *c, const char *gpu, const char *node)
{
	struct capacity_type *t;

	c->types = xrealloc(c->types,
			    (size_t)(c->ntypes + 1) * sizeof(*c->types));
	t = &c->types[c->ntypes++];
	memset(t, 0, sizeof(*t));
	t->gpu = xstrdup(gpu);
	t->node = xstrdup(node);
	t->usd_per_gpu_hour = -1;
	t->smallest = t->fastest = t->efficient = t->cheapest = -1;
	return t;
}

int
capacity_sizes(int max_nodes, int steps, int *out)
{
	int i, n;

	if (max_nodes < 1 || steps < 1)
		return 0;
	if (max_nodes <= steps || steps == 1) {
		n = max_nodes <= steps ? max_nodes : 1;
		for (i = 0; i < n; i++)
			out[i] = n == 1 && max_nodes > 1 ? max_nodes : i + 1;
		return n;
	}
	for (i = 0; i < steps; i++) {
		double g = pow((double)max_nodes, (double)i / (steps - 1));
		long v = lround(g);

		/* Distinct and leaving room for the sizes still to come. */
		if (i > 0 && v <= out[i - 1])
			v = out[i - 1] + 1;
		if (v > max_nodes - (steps - 1 - i))
			v = max_nodes - (steps - 1 - i);
		out[i] = (int)v;
	}
	return steps;
}

/* ---- planning ---- */

/*
 * The planner's message without "progname: " and the final newline; only
 * its first line.
 */
static char *
tidy_reason(char *msg)
{
	size_t n = strlen(pd2bw_progname);
	char *s = msg, *nl;

	if (!msg)
		return xstrdup("no configuration fits");
	if (!strncmp(s, pd2bw_progname, n) && !strncmp(s + n, ": ", 2))
		s += n + 2;
	nl = strchr(s, '\n');
	if (nl)
		*nl = 0;
	s = xstrdup(s);
	free(msg);
	return s;
}

int
capacity_plan_type(struct capacity_type *t, const struct search_chain *sc,
		   int nsc, struct cluster *cl, const struct cost_opts *co,
		   const struct search_opts *so)
{
	struct search_opts sz = *so;
	int i, ret = 0, prev = 0, most = 0;

	sz.topk = 1;
	sz.lp_k = 1;
	sz.brief = 1;
	if (sz.pick_first <= 0)
		sz.pick_first = CAPACITY_PICK_FIRST;
	/* the memo lists the candidates once, for the largest size */
	for (i = 0; i < t->nrows; i++)
		if (t->rows[i].nodes > most)
			most = t->rows[i].nodes;
	if (sz.memo)
		search_memo_span(sz.memo, most * cl->gpus_per_node);

	/* The search explains on stderr why a size does not fit; in a
	 * sweep that is one message a row, which the row keeps instead. */
	if (pd2bw_capture_begin())
		return -1;
	for (i = 0; i < t->nrows; i++) {
		struct capacity_row *r = &t->rows[i];
		struct search_stats st;
		struct plan p;
		int rc;

		cl->nodes = r->nodes;
		r->gpus = r->nodes * cl->gpus_per_node;
		plan_init(&p);
		/* A larger cluster has every configuration of a smaller
		 * one, most often with the same links: its search starts
		 * from the bound the smaller one's proved (the same plans;
		 * the search tries again without it when it was wrong). */
		if (r->nodes < prev)
			sz.start_bound = 0;
		rc = search_run_tp(sc, nsc, cl, co, &sz, &p, &st);
		prev = r->nodes;
		sz.start_bound = rc == 0 && isfinite(st.kth_ms) ? st.kth_ms
							       : 0;
		if (rc == 0) {
			r->fits = 1;
			r->sched = p.sched;
			r->w = p.w;
			r->d = p.d;
			r->t = p.t;
			r->sp = p.sp;
			r->b = p.b;
			r->m = p.m;
			r->recompute = p.recompute;
			r->place = p.place;
			r->c = p.c > 1 ? p.c : 1;
			r->e = p.e > 1 ? p.e : 1;
			r->v = p.v > 1 ? p.v : 1;
			r->zero = p.zero;
			r->shard = p.shard;
			r->offload = p.offload;
			r->iter_ms = p.iter_ms;
			r->samples_s = p.samples_s;
			r->tflops_per_gpu = p.tflops_per_gpu;
			r->peak_mem_bytes = p.peak_mem_bytes;
			free(pd2bw_capture_take());
		} else {
			/* 3: nothing fits; -1: the batch cannot be split
			 * over this size.  Either way, no plan here. */
			r->fits = 0;
			free(r->why);
			r->why = tidy_reason(pd2bw_capture_take());
		}
		plan_release(&p);
	}
	pd2bw_capture_end();
	return ret;
}

/* ---- derived figures ---- */

void
capacity_row_finish(const struct capacity *c, const struct capacity_type *t,
		    struct capacity_row *r)
{
	double secs;

	r->tokens_s = r->train_days = r->gpu_hours = 0;
	r->cost_usd = -1;
	r->meets_deadline = 0;
	if (!r->fits || !(r->samples_s > 0))
		return;
	r->tokens_s = r->samples_s * (double)c->seq_len;
	secs = c->tokens / r->tokens_s;
	r->train_days = secs / 86400.0;
	r->gpu_hours = r->gpus * secs / 3600.0;
	if (t->usd_per_gpu_hour >= 0)
		r->cost_usd = r->gpu_hours * t->usd_per_gpu_hour;
	r->meets_deadline = c->deadline_days <= 0 ||
			    r->train_days <= c->deadline_days;
}

/* What "cheapest" compares within and across types. */
static double
price_of(const struct capacity_row *r, int by_hours)
{
	return by_hours ? r->gpu_hours : r->cost_usd;
}

static void
summarise_type(struct capacity *c, struct capacity_type *t, int by_hours)
{
	double per0 = 0;
	int i;

	t->smallest = t->fastest = t->efficient = t->cheapest = -1;
	for (i = 0; i < t->nrows; i++) {
		struct capacity_row *r = &t->rows[i];

		capacity_row_finish(c, t, r);
		r->efficiency = 0;
		if (!r->fits)
			continue;
		if (t->smallest < 0) {
			t->smallest = i;
			per0 = r->samples_s / r->gpus;
		}
		r->efficiency = r->samples_s / r->gpus / per0;
		if (t->fastest < 0 ||
		    r->samples_s > t->rows[t->fastest].samples_s)
			t->fastest = i;
		if (r->efficiency >= c->eff_threshold)
			t->efficient = i;
		if (r->meets_deadline &&
		    (by_hours || t->usd_per_gpu_hour >= 0) &&
		    (t->cheapest < 0 ||
		     price_of(r, by_hours) <
			     price_of(&t->rows[t->cheapest], by_hours)))
			t->cheapest = i;
	}
}

void
capacity_summarise(struct capacity *c)
{
	int i, by_hours = 1;

	for (i = 0; i < c->ntypes; i++)
		if (c->types[i].usd_per_gpu_hour >= 0)
			by_hours = 0;
	c->cheap_by_hours = by_hours;
	c->small_t = c->small_r = c->fast_t = c->fast_r = -1;
	c->cheap_t = c->cheap_r = -1;
	for (i = 0; i < c->ntypes; i++) {
		struct capacity_type *t = &c->types[i];
		const struct capacity_row *r;

		/* A type without a price has no cost to compare when others
		 * have one; its own choice is then by GPU-hours. */
		summarise_type(c, t, by_hours || t->usd_per_gpu_hour < 0);
		if (t->smallest >= 0 &&
		    (c->small_t < 0 ||
		     t->rows[t->smallest].gpus <
			     c->types[c->small_t].rows[c->small_r].gpus)) {
			c->small_t = i;
			c->small_r = t->smallest;
		}
		if (t->fastest >= 0 &&
		    (c->fast_t < 0 ||
		     t->rows[t->fastest].train_days <
			     c->types[c->fast_t].rows[c->fast_r].train_days)) {
			c->fast_t = i;
			c->fast_r = t->fastest;
		}
		if (t->cheapest < 0 || (!by_hours && t->usd_per_gpu_hour < 0))
			continue;
		r = &t->rows[t->cheapest];
		if (c->cheap_t < 0 ||
		    price_of(r, by_hours) <
			    price_of(&c->types[c->cheap_t].rows[c->cheap_r],
				     by_hours)) {
			c->cheap_t = i;
			c->cheap_r = t->cheapest;
		}
	}
}
