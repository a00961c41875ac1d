/*
 * plan_query.c - what a runtime asks of a loaded plan: the layers of a
 * stage, the ranks of a stage, a rank's replica and runtime rank, and the
 * order of forward, backward and recompute operations a stage runs per
 * iteration under 2BW, flush (1F1B) or GPipe.
 */
#include <stdlib.h>

#include "pd2bw/error.h"
#include "pd2bw/plan.h"
#include "pd2bw/profile.h"

const char *const plan_op_names[] = {"F", "B", "R", NULL};

int
plan_layers_of_stage(const struct plan *p, int s, int *first, int *last)
{
	if (s < 0 || s >= p->nstages)
		return -1;
	*first = p->stages[s].first;
	*last = p->stages[s].last;
	return 0;
}

int
plan_ranks_of_stage(const struct plan *p, int s, int *out, int n)
{
	int r, k = 0, *at;

	if (s < 0 || s >= p->nstages)
		return -1;
	/* Replicas in order, whatever order the ranks are listed in: a
	 * counting sort of the stage's ranks by replica, stable. */
	at = xcalloc((size_t)p->w + 1, sizeof(*at));
	for (r = 0; r < p->nranks; r++)
		if (p->ranks[r].stage == s) {
			at[p->ranks[r].replica + 1]++;
			k++;
		}
	for (r = 0; r < p->w; r++)
		at[r + 1] += at[r];
	for (r = 0; r < p->nranks; r++)
		if (p->ranks[r].stage == s && at[p->ranks[r].replica] < n)
			out[at[p->ranks[r].replica]++] = r;
		else if (p->ranks[r].stage == s)
			at[p->ranks[r].replica]++;
	free(at);
	return k;
}

int
plan_replica_of_rank(const struct plan *p, int r)
{
	if (r < 0 || r >= p->nranks)
		return -1;
	return p->ranks[r].replica;
}

int
plan_runtime_rank(const struct plan *p, int r)
{
	if (r < 0 || r >= p->nranks)
		return -1;
	/* Megatron's order tp-cp-dp-pp: tensor-parallel rank fastest */
	return ((p->ranks[r].stage * p->w + p->ranks[r].replica) *
			(p->c > 1 ? p->c : 1) +
		p->ranks[r].cp) * p->t +
	       p->ranks[r].tp;
}

/* Append op (kind, mb) at out[*k] when there is room; count it anyway. */
static void
put(struct plan_op *out, int n, int *k, int kind, int mb)
{
	if (*k < n) {
		out[*k].kind = kind;
		out[*k].mb = mb;
	}
	(*k)++;
}

/* A backward, preceded by its recomputation when the stage needs one. */
static void
put_bwd(struct plan_op *out, int n, int *k, int rc, int mb)
{
	if (rc)
		put(out, n, k, PLAN_OP_RECOMPUTE, mb);
	put(out, n, k, PLAN_OP_BACKWARD, mb);
}

int
plan_stage_schedule(const struct plan *p, int s, struct plan_op *out, int n)
{
	int m = p->m, d = p->d, k = 0, warm, j, rc;

	if (s < 0 || s >= p->nstages || m < 1)
		return -1;
	rc = p->stages[s].recompute == PROF_RC_FULL;
	warm = d - s - 1;
	if (warm < 0)
		warm = 0;
	switch (p->sched) {
	case PLAN_GPIPE:
		for (j = 0; j < m; j++)
			put(out, n, &k, PLAN_OP_FORWARD, j);
		for (j = 0; j < m; j++)
			put_bwd(out, n, &k, rc, j);
		break;
	case PLAN_2BW:
		for (j = 0; j < m; j++) {
			put(out, n, &k, PLAN_OP_FORWARD, j + warm);
			put_bwd(out, n, &k, rc, j);
		}
		break;
	default: /* flush, none */
		if (warm > m)
			warm = m;
		for (j = 0; j < warm; j++)
			put(out, n, &k, PLAN_OP_FORWARD, j);
		for (j = 0; j < m - warm; j++) {
			put(out, n, &k, PLAN_OP_FORWARD, warm + j);
			put_bwd(out, n, &k, rc, j);
		}
		for (j = m - warm; j < m; j++)
			put_bwd(out, n, &k, rc, j);
		break;
	}
	return k;
}

int
plan_schedule(const struct plan *p, int r, struct plan_op *out, int n)
{
	return plan_stage_schedule(p, plan_stage_of_rank(p, r), out, n);
}
