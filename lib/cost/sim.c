/*
 * sim.c - the discrete-event schedule simulator of sim.h: builds each
 * stage's operation order for the schedule, then advances every stage as
 * far as its inputs allow until all operations have run, and derives the
 * iteration time, bubble, stashes and weight versions from the result.
 * Interleaved 1F1B runs on the same engine: a step names a model chunk as
 * well as a microbatch, and inputs are kept per virtual stage.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/error.h"
#include "pd2bw/runtime.h"
#include "pd2bw/sim.h"

const char *const sim_kind_names[] = {
	"forward", "recompute", "backward", "send", "send", "all-reduce",
	"optimizer", "all-gather",
};

/* The later of two times, neither NaN (check_cfg()): fmax() without
 * its call, in the steps every run takes. */
static inline double
later(double a, double b)
{
	return a > b ? a : b;
}

/*
 * The times one virtual stage hands the next (activations up, gradients
 * down), in the order of their microbatches, which the receiver takes
 * them in too: every schedule's order runs each virtual stage's
 * forwards, and its backwards, in microbatch order (build_orders()).
 * So microbatch i's time is known once more than i were sent, and only
 * those sent and not yet taken need room: about d in 1F1B, up to all of
 * them in GPipe (the ring doubles when full).  Not V M times, each
 * marked unknown first: the long runs a search re-scores then touch
 * a few kilobytes, not megabytes of fresh pages.
 */
struct queue {
	double *v;        /* [cap], cap a power of two: microbatch i at
			     v[i & (cap - 1)] */
	int cap, sent, taken;
	int own;          /* v is its own block (grown), not the run's */
};

#define QUEUE_CAP0 16

/* Double a full queue's ring. */
static void
queue_grow(struct queue *q)
{
	double *nv = xmalloc(2 * (size_t)q->cap * sizeof(double));
	int j;

	for (j = q->taken; j < q->sent; j++)
		nv[j & (2 * q->cap - 1)] = q->v[j & (q->cap - 1)];
	if (q->own)
		free(q->v);
	q->v = nv;
	q->cap *= 2;
	q->own = 1;
}

/* Append microbatch q->sent's time x (inline: every step sends). */
static inline void
queue_put(struct queue *q, double x)
{
	if (q->sent - q->taken == q->cap)
		queue_grow(q);
	q->v[q->sent & (q->cap - 1)] = x;
	q->sent++;
}

/* One entry of a stage's operation order. */
struct step {
	int kind; /* SIM_FWD, SIM_RC or SIM_BWD */
	int mb;
	int chunk;
};

struct run {
	const struct sim_cfg *cfg;
	int d, m, M;           /* M: microbatches over all iterations */
	int v, V;              /* chunks per GPU; V = v d virtual stages */
	int *len, *pos, *warm;
	/* act[u]: the times activations reach virtual stage u, grad[u] its
	 * gradients (only the microbatches not taken yet) */
	struct queue *act, *grad;
	int *tab;              /* v > 1: [2 m v] build_interleaved()'s table,
				  microbatch and chunk of each entry (the
				  same on every GPU) */
	double *ar_end;        /* [s*iters + k] */
	/* link_fwd[s] carries GPU s to s+1, link_bwd[s] GPU s to s-1; with
	 * v > 1, link_fwd[d-1] and link_bwd[0] are the wrap link between
	 * GPU d-1 and GPU 0. */
	double *stage_free, *link_fwd, *link_bwd, *ar_free;
	struct step *head;     /* [d]: the step at head_pos[s] of s's order */
	int *head_pos;
	struct lane *lane;     /* [d] with lanes(), else NULL */
	int stop;              /* cfg->iter_only: the last update measured
				  is known */
	size_t alloc;
};

/*
 * Where stage s stands in its order, for advance() (v = 1): every such
 * order is 1F1B's with w warm-up forwards (none: w = 0; GPipe: w = M, all
 * forwards first), so the next step is a forward while fewer than w + 1
 * forwards are ahead of the backwards, else the recomputation (when the
 * stage has one and it did not run yet) or the backward of microbatch nb.
 */
struct lane {
	int nf, nb;    /* forwards, backwards run */
	int w;
	int rc, rc_done;
	int ib;        /* backwards run of the current update */
	int gate, gk;  /* 2bw: the next forward that waits for an update's
			  end (version gk + 2), else INT_MAX */
	double fv, bv, rv; /* v > 1 (advance_v()): a chunk's forward,
			      backward and recomputation */
	double xf, xb;     /* v > 1: the sends up and down (x_up(),
			      x_down()) */
	int W;             /* v > 1: the warm-up before its cap (rounds_v()) */
	double cend;       /* v > 1: its last backward's end so far of an
			      update's last microbatch (terms_only) */
};

static void
keep_op(struct sim *s, struct run *r, int kind, int stage,
	const struct step *st, double start, double end)
{
	struct sim_op *o;
	int mb = st->mb;

	xgrow((void **)&s->ops, &r->alloc, s->nops + 1, sizeof(*s->ops));
	o = &s->ops[s->nops++];
	o->kind = kind;
	o->stage = stage;
	o->chunk = st->chunk;
	o->mb = mb;
	o->iter = mb / r->m;
	o->start_ms = start;
	o->end_ms = end;
}

/* An operation run: kept (keep_op()), or with times_only its end alone,
 * with terms_only its end and the optimizer steps and weight gathers
 * alone, inline in the steps every run takes. */
static inline void
push_op(struct sim *s, struct run *r, int kind, int stage,
	const struct step *st, double start, double end)
{
	/* the search re-scores many long runs and needs only when the last
	 * operation ends (the same maximum sim_run() takes over ops) */
	if (r->cfg->times_only) {
		if (end > s->end_ms)
			s->end_ms = end;
		return;
	}
	if (r->cfg->terms_only) {
		if (end > s->end_ms)
			s->end_ms = end;
		if (kind <= SIM_BWD && end > s->compute_end_ms)
			s->compute_end_ms = end;
		if (kind != SIM_OPTIMIZER && kind != SIM_GATHER)
			return;
	}
	keep_op(s, r, kind, stage, st, start, end);
}

/*
 * Interleaved 1F1B (Megatron-LM's forward_backward_pipelining_with_
 * interleaving) on GPU s.  tab lists the (microbatch, chunk) of each
 * forward chunk-step: microbatches in groups of d, each group through
 * chunk 0, then chunk 1, ...; the k-th backward chunk-step takes the k-th
 * entry with the chunk mirrored (v-1-c), as gradients flow back.  The
 * warm-up is Megatron's get_num_warmup_microbatches: 2 (d-s-1) forwards
 * to fill the pipeline for the first chunk plus (v-1) d to reach the
 * last chunk, at most all m v.  (Megatron runs every step as warm-up when
 * m = d: the iteration time is the same, as simulated for d <= 6 and
 * v <= 4 with transfers, but GPUs s > 0 then hold all m v chunk stashes
 * at once, which the peaks here do not show.)  Megatron
 * requires d to divide m; otherwise the last group is short, as newer
 * Megatron-Core does with microbatch_group_size_per_vp_stage.
 */
static void
build_interleaved(struct run *r, int s)
{
	int n = r->m * r->v, rc = r->cfg->st[s].rc_ms > 0, w;

	w = 2 * (r->d - s - 1) + (r->v - 1) * r->d;
	w = w < n ? w : n;
	r->warm[s] = w;
	r->len[s] = w + (n - w) * (2 + rc) + w * (1 + rc);
}

/* Fill r->tab: microbatches in groups of d (the last one short when d
 * does not divide m), each group through chunk 0, then chunk 1, ... */
static void
build_tab(struct run *r)
{
	int d = r->d, g, c, i, e = 0;

	for (g = 0; g < r->m; g += d)
		for (c = 0; c < r->v; c++)
			for (i = g; i < g + d && i < r->m; i++) {
				r->tab[2 * e] = i;
				r->tab[2 * e++ + 1] = c;
			}
}

/* Entry k of build_interleaved()'s table: its microbatch and chunk into
 * *st. */
static inline void
tab_at(const struct run *r, int k, struct step *st)
{
	st->mb = r->tab[2 * k];
	st->chunk = r->tab[2 * k + 1];
}

/* A backward step (j = 0 its recomputation when rc) of table entry k,
 * the chunk mirrored as gradients flow back. */
static void
tab_back(const struct run *r, int rc, int j, int k, struct step *st)
{
	tab_at(r, k, st);
	st->kind = rc && j == 0 ? SIM_RC : SIM_BWD;
	st->chunk = r->v - 1 - st->chunk;
}

/*
 * Fill each stage's operation order for the schedule: only their lengths
 * and warm-ups (long runs: thousands of microbatches on tens of stages),
 * step_at() working out each step as a list would hold it:
 *   none:  F(i) [R(i)] B(i) for each i;
 *   gpipe: F(0..M-1), then [R(i)] B(i) for each i;
 *   1F1B (flush, and 2bw over all iterations): F(0..w-1), then
 *          F(w+i) [R(i)] B(i) for i < M - w, then [R(i)] B(i) for the
 *          last w, w = min(d - s - 1, M).
 */
static void
build_orders(struct run *r)
{
	int s, M = r->M;

	for (s = 0; s < r->d; s++) {
		int rc = r->cfg->st[s].rc_ms > 0, w;

		if (r->v > 1) {
			build_interleaved(r, s);
			continue;
		}
		switch (r->cfg->sched) {
		case PLAN_NONE:
			r->len[s] = M * (2 + rc);
			break;
		case PLAN_GPIPE:
			r->len[s] = M + M * (1 + rc);
			break;
		default:
			w = r->d - s - 1 < M ? r->d - s - 1 : M;
			r->warm[s] = w;
			r->len[s] = w + (M - w) * (2 + rc) + w * (1 + rc);
			break;
		}
	}
}

/* A backward step of microbatch i: j = 0 its recomputation when rc. */
static void
back_step(int rc, int j, int i, struct step *st)
{
	st->kind = rc && j == 0 ? SIM_RC : SIM_BWD;
	st->mb = i;
	st->chunk = 0;
}

/* n / k for n >= 0 and k of 1 to 3 (steps per microbatch): by the
 * constants, without a division instruction in the steps every run
 * takes. */
static inline int
quot(int n, int k)
{
	return k == 1 ? n : k == 2 ? n / 2 : k == 3 ? n / 3 : n / k;
}

/* Step n of stage s's order (see build_orders()) into *st.  Inlined
 * whatever the compiler's size heuristics say: the run asks it for every
 * step of an interleaved schedule (the 1024-GPU GPT-3 search's re-scoring
 * spends a tenth of its instructions there). */
static inline __attribute__((always_inline)) void
step_at(const struct run *r, int s, int n, struct step *st)
{
	int rc = r->cfg->st[s].rc_ms > 0, k = 2 + rc, w, q, j;

	if (r->v > 1) {
		int nt = r->m * r->v;

		w = r->warm[s];
		if (n < w) {
			tab_at(r, n, st);
			st->kind = SIM_FWD;
			return;
		}
		n -= w;
		if (n < (nt - w) * k) {
			q = quot(n, k);
			if ((j = n - q * k) == 0) {
				tab_at(r, q + w, st);
				st->kind = SIM_FWD;
			} else {
				tab_back(r, rc, j - 1, q, st);
			}
			return;
		}
		n -= (nt - w) * k;
		q = quot(n, k - 1);
		tab_back(r, rc, n - q * (k - 1), nt - w + q, st);
		return;
	}
	switch (r->cfg->sched) {
	case PLAN_NONE:
		q = quot(n, k);
		if ((j = n - q * k) == 0) {
			st->kind = SIM_FWD;
			st->mb = q;
			st->chunk = 0;
		} else {
			back_step(rc, j - 1, q, st);
		}
		return;
	case PLAN_GPIPE:
		if (n < r->M) {
			st->kind = SIM_FWD;
			st->mb = n;
			st->chunk = 0;
		} else {
			n -= r->M;
			q = quot(n, k - 1);
			back_step(rc, n - q * (k - 1), q, st);
		}
		return;
	default:
		w = r->warm[s];
		if (n < w) {
			st->kind = SIM_FWD;
			st->mb = n;
			st->chunk = 0;
			return;
		}
		n -= w;
		if (n < (r->M - w) * k) {
			q = quot(n, k);
			if ((j = n - q * k) == 0) {
				st->kind = SIM_FWD;
				st->mb = w + q;
				st->chunk = 0;
			} else {
				back_step(rc, j - 1, q, st);
			}
			return;
		}
		n -= (r->M - w) * k;
		q = quot(n, k - 1);
		back_step(rc, n - q * (k - 1), r->M - w + q, st);
		return;
	}
}

/*
 * When the operation at the head of stage s's order may start, or -1 when
 * an input is not known yet.
 */
static double
ready_at(const struct run *r, int s, const struct step *st)
{
	double t = r->stage_free[s], x;
	int j, i = st->mb, u = st->chunk * r->d + s;

	if (st->kind == SIM_FWD) {
		if (u > 0) {
			const struct queue *q = &r->act[u];

			if (q->sent <= i)
				return -1;
			t = later(t, q->v[i & (q->cap - 1)]);
		}
		/* 2bw: the first forward after update k+1 uses version k+2,
		 * which holds iteration k's all-reduced gradients. */
		j = i - r->warm[s];
		if (r->cfg->sched == PLAN_2BW && j >= 2 * r->m &&
		    j % r->m == 0) {
			x = r->ar_end[(size_t)s * r->cfg->iters + j / r->m - 2];
			if (!(x >= 0))
				return -1;
			t = later(t, x);
		}
		return t;
	}
	if (u < r->V - 1) {
		const struct queue *q = &r->grad[u];

		if (q->sent <= i)
			return -1;
		t = later(t, q->v[i & (q->cap - 1)]);
	}
	return t;
}

/* Run the operation at the head of stage s's order from time t. */
static void update_end(struct sim *sm, struct run *r, int s,
		       const struct step *st, double t, double end);

static void
execute(struct sim *sm, struct run *r, int s, const struct step *st,
	double t)
{
	const struct sim_stage_in *in = &r->cfg->st[s];
	double dur, end, a, e, x;
	int i = st->mb, u = st->chunk * r->d + s;

	dur = st->kind == SIM_FWD ? in->fwd_ms
	      : st->kind == SIM_RC ? in->rc_ms : in->bwd_ms;
	/* A chunk holds 1/v of the stage's layers: exact for v = 1. */
	end = t + dur / r->v;
	push_op(sm, r, st->kind, s, st, t, end);
	r->stage_free[s] = end;
	/* its input is taken (microbatch i, the first not yet taken) */
	if (st->kind == SIM_FWD && u > 0)
		r->act[u].taken++;
	else if (st->kind == SIM_BWD && u < r->V - 1)
		r->grad[u].taken++;
	if (st->kind == SIM_FWD && u < r->V - 1) {
		x = s < r->d - 1 ? in->send_ms : r->cfg->wrap_send_ms;
		a = later(end, r->link_fwd[s]);
		e = a + x;
		r->link_fwd[s] = e;
		queue_put(&r->act[u + 1], e);
		if (x > 0)
			push_op(sm, r, SIM_SEND_ACT, s, st, a, e);
	}
	if (st->kind != SIM_BWD)
		return;
	if (u > 0) {
		x = s > 0 ? r->cfg->st[s - 1].send_ms : r->cfg->wrap_send_ms;
		a = later(end, r->link_bwd[s]);
		e = a + x;
		r->link_bwd[s] = e;
		queue_put(&r->grad[u - 1], e);
		if (x > 0)
			push_op(sm, r, SIM_SEND_GRAD, s, st, a, e);
	}
	if (i % r->m != r->m - 1)
		return;
	update_end(sm, r, s, st, t, end);
}

/*
 * What follows a chunk's last backward of an update (st, from t to end)
 * on stage s: its gradients' reduction, and after chunk 0's the update
 * (2bw: overlapped), the optimizer step and the gather.
 */
static void
update_end(struct sim *sm, struct run *r, int s, const struct step *st,
	   double t, double end)
{
	const struct sim_stage_in *in = &r->cfg->st[s];
	double a, e, x;
	int k, i = st->mb;

	/* Each chunk's last backward of the update: with bucketed
	 * reduction its gradients go out while it runs, the last bucket
	 * after it ends. */
	if (r->cfg->sched != PLAN_2BW &&
	    r->cfg->sync == RUNTIME_SYNC_LAST_BWD && in->allreduce_ms > 0) {
		double red = in->allreduce_ms / r->v;

		a = later(t, r->ar_free[s]);
		e = later(a + red, end + in->bucket_share * red);
		r->ar_free[s] = e;
		push_op(sm, r, SIM_ALLREDUCE, s, st, a, e);
	}
	/* The update follows the GPU's last backward: chunk 0's of the
	 * iteration's last microbatch. */
	if (st->chunk != 0)
		return;
	k = i / r->m;
	if (s == 0)
		sm->update_ms[k] = end;
	/* 2bw measures up to update iters - 2 (sim_run()) */
	if (s == 0 && k == r->cfg->iters - 2 && r->cfg->iter_only &&
	    r->cfg->sched == PLAN_2BW)
		r->stop = 1;
	if (r->cfg->sched == PLAN_2BW) {
		/* overlapped with the next update's microbatches; the step
		 * and the gather come with it */
		x = in->allreduce_ms + in->gather_ms + in->opt_ms;
		a = later(end, r->ar_free[s]);
		e = a + x;
		r->ar_free[s] = e;
		r->ar_end[(size_t)s * r->cfg->iters + k] = e;
		if (x > 0)
			push_op(sm, r, SIM_ALLREDUCE, s, st, a, e);
		return;
	}
	if (r->cfg->sync != RUNTIME_SYNC_LAST_BWD && in->allreduce_ms > 0) {
		a = later(end, r->ar_free[s]);
		e = a + in->allreduce_ms;
		r->ar_free[s] = e;
		push_op(sm, r, SIM_ALLREDUCE, s, st, a, e);
	}
	/* the optimizer step, on the compute stream once the gradients are
	 * reduced; then the weights' all-gather */
	a = later(end, r->ar_free[s]);
	e = a + in->opt_ms;
	if (in->opt_ms > 0)
		push_op(sm, r, SIM_OPTIMIZER, s, st, a, e);
	r->stage_free[s] = e;
	x = r->cfg->gather_overlap ? fmax(0, in->gather_ms - in->fwd_ms)
				   : in->gather_ms;
	if (x > 0)
		push_op(sm, r, SIM_GATHER, s, st, e, e + x);
	r->ar_end[(size_t)s * r->cfg->iters + k] = e + x;
}

/*
 * Run stage s's steps as far as its inputs allow, for v = 1 and the time
 * alone (lanes()): ready_at() and execute() on the same values in the
 * same order of operations, so the same times to the bit, with the next
 * step known from the last (struct lane) instead of worked out anew by
 * step_at(), and the update's end counted instead of divided out.
 * Returns whether it ran a step.
 */
static int
advance(struct sim *sm, struct run *r, int s)
{
	struct lane *l = &r->lane[s];
	const struct sim_stage_in *in = &r->cfg->st[s];
	int M = r->M, last = s == r->d - 1, moved = 0;
	double t, end, a, e, x;

	while (l->nb < M && !r->stop) {
		if (l->nf < M && l->nf - l->nb <= l->w) {
			int i = l->nf;

			t = r->stage_free[s];
			if (s > 0) {
				const struct queue *q = &r->act[s];

				if (q->sent <= i)
					break;
				t = later(t, q->v[i & (q->cap - 1)]);
			}
			if (i == l->gate) {
				x = r->ar_end[(size_t)s * r->cfg->iters +
					      l->gk];
				if (!(x >= 0))
					break;
				t = later(t, x);
				l->gate += r->m;
				l->gk++;
			}
			end = t + in->fwd_ms;
			if (end > sm->end_ms)
				sm->end_ms = end;
			r->stage_free[s] = end;
			if (s > 0)
				r->act[s].taken++;
			if (!last) {
				x = in->send_ms;
				a = later(end, r->link_fwd[s]);
				e = a + x;
				r->link_fwd[s] = e;
				queue_put(&r->act[s + 1], e);
				if (x > 0 && e > sm->end_ms)
					sm->end_ms = e;
			}
			l->nf++;
			moved = 1;
			continue;
		}
		t = r->stage_free[s];
		if (!last) {
			const struct queue *q = &r->grad[s];

			if (q->sent <= l->nb)
				break;
			t = later(t, q->v[l->nb & (q->cap - 1)]);
		}
		moved = 1;
		if (l->rc && !l->rc_done) {
			end = t + in->rc_ms;
			if (end > sm->end_ms)
				sm->end_ms = end;
			r->stage_free[s] = end;
			l->rc_done = 1;
			continue;
		}
		end = t + in->bwd_ms;
		if (end > sm->end_ms)
			sm->end_ms = end;
		r->stage_free[s] = end;
		if (!last)
			r->grad[s].taken++;
		if (s > 0) {
			x = r->cfg->st[s - 1].send_ms;
			a = later(end, r->link_bwd[s]);
			e = a + x;
			r->link_bwd[s] = e;
			queue_put(&r->grad[s - 1], e);
			if (x > 0 && e > sm->end_ms)
				sm->end_ms = e;
		}
		l->rc_done = 0;
		if (++l->ib == r->m) {
			struct step st = {SIM_BWD, l->nb, 0};

			l->ib = 0;
			update_end(sm, r, s, &st, t, end);
		}
		l->nb++;
	}
	return moved;
}

/*
 * The steps of interleaved 1F1B (v > 1, flush; see build_interleaved())
 * for the time alone, advance_v() and rounds_v(): forwards of table
 * entries nf, backwards of entries nb with the chunk mirrored, each
 * chunk-step on its virtual stage's queues; ready_at() and execute() on
 * the same values in the same order of operations (a chunk's durations
 * divided once, the same quotients), but the step known from the last
 * instead of step_at()'s.  The ends are left to the caller: each
 * resource's times only grow, so the last end is the largest of the
 * stream's and links' last (see rounds()).
 *
 * GPU s's next forward (entry l->nf), if its input is known: returns
 * whether it ran.
 */
static inline __attribute__((always_inline)) int
v_fwd(struct run *r, struct lane *l, int s, double x_f)
{
	int i = r->tab[2 * l->nf], ch = r->tab[2 * l->nf + 1];
	int u = ch * r->d + s;
	double t = r->stage_free[s], end, a, e;

	if (u > 0) {
		struct queue *q = &r->act[u];

		if (q->sent <= i)
			return 0;
		t = later(t, q->v[i & (q->cap - 1)]);
		q->taken++;
	}
	end = t + l->fv;
	r->stage_free[s] = end;
	if (u < r->V - 1) {
		a = later(end, r->link_fwd[s]);
		e = a + x_f;
		r->link_fwd[s] = e;
		queue_put(&r->act[u + 1], e);
	}
	l->nf++;
	return 1;
}

/* GPU s's next recomputation or backward (entry l->nb, the chunk
 * mirrored), if its input is known: returns whether it ran. */
static inline __attribute__((always_inline)) int
v_bwd(struct sim *sm, struct run *r, struct lane *l, int s, double x_b)
{
	int i = r->tab[2 * l->nb], ch = r->v - 1 - r->tab[2 * l->nb + 1];
	int u = ch * r->d + s;
	struct queue *q = &r->grad[u];
	double t = r->stage_free[s], end, a, e;

	if (u < r->V - 1) {
		if (q->sent <= i)
			return 0;
		t = later(t, q->v[i & (q->cap - 1)]);
	}
	if (l->rc && !l->rc_done) {
		r->stage_free[s] = t + l->rv;
		l->rc_done = 1;
		return 1;
	}
	end = t + l->bv;
	r->stage_free[s] = end;
	if (u < r->V - 1)
		q->taken++;
	if (u > 0) {
		a = later(end, r->link_bwd[s]);
		e = a + x_b;
		r->link_bwd[s] = e;
		queue_put(&r->grad[u - 1], e);
	}
	l->rc_done = 0;
	l->nb++;
	/* the update's last microbatch (v > 1 runs flush, one update);
	 * the GPU's last backward is one */
	if (i == r->m - 1) {
		struct step st = {SIM_BWD, i, ch};

		l->cend = end;
		update_end(sm, r, s, &st, t, end);
	}
	return 1;
}

/* GPU s's sends up and down (the wrap link at either end). */
static inline double
x_up(const struct run *r, int s)
{
	return s < r->d - 1 ? r->cfg->st[s].send_ms : r->cfg->wrap_send_ms;
}

static inline double
x_down(const struct run *r, int s)
{
	return s > 0 ? r->cfg->st[s - 1].send_ms : r->cfg->wrap_send_ms;
}

/* advance() of interleaved 1F1B: its order, the warm-up w, as far as
 * the inputs allow (d not dividing m, where rounds_v() does not run). */
static int
advance_v(struct sim *sm, struct run *r, int s)
{
	struct lane *l = &r->lane[s];
	int nt = r->m * r->v, moved = 0;

	while (l->nb < nt) {
		if (l->nf < nt && l->nf - l->nb <= l->w) {
			if (!v_fwd(r, l, s, l->xf))
				break;
		} else if (!v_bwd(sm, r, l, s, l->xb)) {
			break;
		}
		moved = 1;
	}
	return moved;
}

/*
 * rounds() of interleaved 1F1B (the time alone or the breakdown's terms,
 * v > 1) when d divides m
 * (groups of d microbatches, as Megatron asks): GPU s's order in units,
 * unit j at tick s + j: its warm-up forwards F(e) at e < w, then from
 * j = W on unit W + q runs F(w + q) (while there is one), [R(q)] and
 * B(q), W = 2 (d - s - 1) + (v - 1) d the warm-up before the cap at all
 * m v entries (w = W unless capped; a capped GPU waits W - w ticks).
 * Every input is sent a tick or more before: a forward takes entry e of
 * GPU s - 1 (tick s - 1 + e), or at GPU 0 with a chunk past the first,
 * entry e - d of GPU d - 1 (tick e - 1); a backward takes GPU s + 1's
 * entry q (a tick before, W two less), or at GPU d - 1 GPU 0's entry
 * q - d (tick W_0 + q - d, W_0 = W_{d-1} + 2 d - 2).  So the ticks run
 * one after the other, every GPU's unit of the tick in any order, each
 * step's input known (checked all the same: a bug would be an error, not
 * a wrong time), and the times are the sweeps' to the bit (see rounds()).
 * The optimizer steps terms_only keeps come one per GPU, after its last
 * backward (chunk 0's of the last microbatch), GPU d - 1's first as in
 * the full run (see rounds()): GPU s's last tick, W_0 - s + m v - 1,
 * comes later the lower s.  Returns -1 if an input was missing.
 */
static int
rounds_v(struct sim *sm, struct run *r)
{
	int d = r->d, nt = r->m * r->v, s, tau, last;

	last = 2 * (d - 1) + (r->v - 1) * d + nt - 1; /* GPU 0's last */
	for (tau = 0; tau <= last; tau++)
		for (s = 0; s < d && s <= tau; s++) {
			struct lane *l = &r->lane[s];
			int j = tau - s;

			if (j < l->w) {
				if (!v_fwd(r, l, s, l->xf))
					return -1;
				continue;
			}
			if (j < l->W || l->nb >= nt)
				continue;
			if (l->nf < nt && !v_fwd(r, l, s, l->xf))
				return -1;
			if (l->rc && !v_bwd(sm, r, l, s, l->xb))
				return -1;
			if (!v_bwd(sm, r, l, s, l->xb))
				return -1;
		}
	return 0;
}

/* Set up advance()'s lanes (advance_v()'s with v > 1) when the run takes
 * it: the time alone, or the breakdown's terms where rounds_v() runs
 * (v > 1, d dividing m). */
static void
lanes(struct run *r)
{
	int s;

	if (!r->cfg->times_only &&
	    !(r->cfg->terms_only && r->v > 1 && r->m % r->d == 0))
		return;
	r->lane = xcalloc((size_t)r->d, sizeof(*r->lane));
	for (s = 0; s < r->d; s++) {
		struct lane *l = &r->lane[s];
		const struct sim_stage_in *in = &r->cfg->st[s];

		l->w = r->v > 1			     ? r->warm[s]
		       : r->cfg->sched == PLAN_NONE  ? 0
		       : r->cfg->sched == PLAN_GPIPE ? r->M
						     : r->warm[s];
		l->rc = in->rc_ms > 0;
		l->gate = r->cfg->sched == PLAN_2BW ? r->warm[s] + 2 * r->m
						    : INT_MAX;
		l->fv = in->fwd_ms / r->v;
		l->bv = in->bwd_ms / r->v;
		l->rv = in->rc_ms / r->v;
		l->xf = x_up(r, s);
		l->xb = x_down(r, s);
		l->W = 2 * (r->d - s - 1) + (r->v - 1) * r->d;
	}
}

/*
 * The time alone (or the breakdown's terms) of 1F1B (flush, and 2bw over
 * all its iterations) for v = 1 when every stage has its full warm-up
 * (M >= d - 1: stage s runs w = d - s - 1 forwards first), in an order
 * known in advance instead of sweeps that find each stage's next step
 * ready or not (advance()).
 * Stage s's order is its warm-up F(0..w-1), then in round k = 0, 1, ...
 * F(w + k) while w + k < M, and [R(k)] B(k).  Every input is known when
 * the stage takes it if the warm-ups run first, stage 0 up (F(i) of
 * stage s takes F(i) of stage s - 1, whose warm-up is one longer), then
 * the rounds one after the other, each from the last stage down:
 * F(w + k) of stage s takes F(w + k) = F(w' + k - 1) of stage s - 1
 * (w' = w + 1 its warm-up), which it ran in round k - 1, and B(k) takes
 * stage s + 1's B(k), which it ran just before, in this round.  So a
 * step checks nothing, and an input needs room for one value: the
 * activation stage s takes next (in, written in the round before) and
 * the gradient stage s + 1 just sent (carried down the round).  Each
 * stage runs its own order on resources of its own (its stream and
 * links, its all-reduce), so the times are the sweeps' to the bit: the
 * same values through the same operations; only with iter_only, which
 * stops once stage 0's update iters - 2 is known, does end_ms (the ends
 * so far) differ, as the sweeps' did from a full run's.  terms_only keeps
 * the optimizer steps in the full run's order: 2bw has none; flush has
 * one per stage, after its last backward, which the full run's sweeps
 * (each from stage 0 up) reach a sweep after the stage above's, so from
 * the last stage down, as the last round does.
 */
struct rstage {
	double free, lf, lb;      /* r->stage_free, link_fwd, link_bwd */
	double in;                /* the activation the next forward takes */
	double cend;              /* its last update's last backward's end */
	double fwd, bwd, rc, send, sendb; /* sendb: stage s - 1's send_ms */
	int has_rc;
};

/* Whether rounds() runs r. */
static int
roundable(const struct run *r)
{
	return r->v == 1 && (r->cfg->times_only || r->cfg->terms_only) &&
	       (r->cfg->sched == PLAN_FLUSH || r->cfg->sched == PLAN_2BW) &&
	       r->M >= r->d - 1;
}

/* Round k's steps of stage s (see rounds()): with fwd its forward
 * F(d - s - 1 + k), with gate the 2bw weight version's wait on
 * ar_end[gk]; first and last say which neighbours it has.  Returns the
 * gradient it sends down (g: the one stage s + 1 sent). */
static inline __attribute__((always_inline)) double
round_step(struct sim *sm, struct run *r, struct rstage *L, int s, int k,
	   double g, int fwd, int gate, int gk, int upd, int first, int last)
{
	struct rstage *l = &L[s];
	double t, end, a, e;

	if (fwd) {
		t = l->free;
		if (!first)
			t = later(t, l->in);
		if (gate)
			t = later(t, r->ar_end[(size_t)s * r->cfg->iters + gk]);
		end = t + l->fwd;
		l->free = end;
		if (!last) {
			a = later(end, l->lf);
			e = a + l->send;
			l->lf = e;
			l[1].in = e;
		}
	}
	t = l->free;
	if (!last)
		t = later(t, g);
	if (l->has_rc) {
		end = t + l->rc;
		l->free = end;
		t = end;
		if (!last)
			t = later(t, g);
	}
	end = t + l->bwd;
	l->free = end;
	if (!first) {
		a = later(end, l->lb);
		e = a + l->sendb;
		l->lb = e;
		g = e;
	}
	if (upd) {
		struct step st = {SIM_BWD, k, 0};

		/* the stage's last backward is an update's last */
		l->cend = end;
		r->stage_free[s] = l->free;
		update_end(sm, r, s, &st, t, end);
		l->free = r->stage_free[s];
	}
	return g;
}

static void
rounds(struct sim *sm, struct run *r)
{
	const struct sim_cfg *c = r->cfg;
	int d = r->d, M = r->M, m = r->m, s, k, i;
	struct rstage *L = xcalloc((size_t)d, sizeof(*L));
	double *buf = xcalloc((size_t)d, sizeof(double));
	double most;

	for (s = 0; s < d; s++) {
		L[s].fwd = c->st[s].fwd_ms;
		L[s].bwd = c->st[s].bwd_ms;
		L[s].rc = c->st[s].rc_ms;
		L[s].has_rc = c->st[s].rc_ms > 0;
		L[s].send = c->st[s].send_ms;
		L[s].sendb = s > 0 ? c->st[s - 1].send_ms : 0;
	}
	/* the warm-ups, stage 0 up: buf[i] holds the activation of
	 * microbatch i the stage below sent (then its own) */
	for (s = 0; s < d - 1; s++) {
		struct rstage *l = &L[s];

		for (i = 0; i < d - 1 - s; i++) {
			double t = l->free, end, a, e;

			if (s > 0)
				t = later(t, buf[i]);
			end = t + l->fwd;
			l->free = end;
			a = later(end, l->lf);
			e = a + l->send;
			l->lf = e;
			buf[i] = e;
		}
		/* what stage s + 1 takes in round 0 */
		L[s + 1].in = buf[d - 2 - s];
	}
	for (k = 0; k < M && !r->stop; k++) {
		/* stages above sf run a forward (those at or below it are
		 * in their cool-down); a 2bw forward F(w + k), k >= 2 m a
		 * multiple of m, waits for update k / m - 2 */
		int sf = d - 1 - M + k, upd = k % m == m - 1;
		int gate = c->sched == PLAN_2BW && k >= 2 * m && k % m == 0;
		int gk = k / m - 2;
		double g = 0;

		if (d == 1) {
			round_step(sm, r, L, 0, k, g, 1, gate, gk, upd, 1, 1);
			continue;
		}
		g = round_step(sm, r, L, d - 1, k, g, d - 1 > sf, gate, gk,
			       upd, 0, 1);
		if (sf < 1 && !gate && !upd) /* most rounds: constants */
			for (s = d - 2; s > 0; s--)
				g = round_step(sm, r, L, s, k, g, 1, 0, 0, 0,
					       0, 0);
		else
			for (s = d - 2; s > 0; s--)
				g = round_step(sm, r, L, s, k, g, s > sf,
					       gate, gk, upd, 0, 0);
		round_step(sm, r, L, 0, k, g, 0 > sf, gate, gk, upd, 1, 0);
	}
	/* Each resource's times only grow, and every operation's end is
	 * one of them (or at most one: a transfer of no time), so the last
	 * end is the largest of their last; update_end() kept its own. */
	most = sm->end_ms;
	for (s = 0; s < d; s++) {
		r->stage_free[s] = L[s].free;
		r->link_fwd[s] = L[s].lf;
		r->link_bwd[s] = L[s].lb;
		most = later(most, L[s].free);
		most = later(most, L[s].lf);
		most = later(most, L[s].lb);
	}
	sm->end_ms = most;
	/* terms_only: the last compute (a backward, each stage's order
	 * ends with them) */
	if (c->terms_only)
		for (s = 0; s < d; s++)
			sm->compute_end_ms = later(sm->compute_end_ms,
						   L[s].cend);
	free(L);
	free(buf);
}

/*
 * Peak stashes and weight versions of stage s, walking its order: a
 * chunk's stash lives from its forward to its backward, a microbatch is
 * in flight while any of its chunks has a stash.
 */
static void
stage_peaks(struct sim *sm, const struct run *r, int s)
{
	struct sim_stage_out *o = &sm->stages[s];
	const struct sim_stage_in *in = &r->cfg->st[s];
	int *ver = xcalloc((size_t)r->M, sizeof(int));
	int *chunks = xcalloc((size_t)r->M, sizeof(int));
	int *live = xcalloc((size_t)r->cfg->iters + 1, sizeof(int));
	int n, cur = 0, cnt = 0, nch = 0, v, held;

	for (n = 0; n < r->len[s]; n++) {
		struct step step, *st = &step;

		step_at(r, s, n, &step);

		if (st->kind == SIM_FWD) {
			if (chunks[st->mb]++ == 0) {
				ver[st->mb] = cur;
				if (++cnt > o->peak_in_flight)
					o->peak_in_flight = cnt;
			}
			live[ver[st->mb]]++;
			if (++nch > o->peak_chunks)
				o->peak_chunks = nch;
		} else if (st->kind == SIM_BWD) {
			nch--;
			live[ver[st->mb]]--;
			if (--chunks[st->mb] == 0)
				cnt--;
			if (st->chunk == 0 && st->mb % r->m == r->m - 1)
				cur++;
		}
		/* The current version plus older ones still stashed. */
		held = 1;
		for (v = 0; v < cur; v++)
			held += live[v] > 0;
		if (held > o->peak_versions)
			o->peak_versions = held;
	}
	o->peak_stash_bytes = o->peak_chunks * in->stash_bytes / r->v +
			      in->stash_extra_bytes;
	free(ver);
	free(chunks);
	free(live);
}

static int
check_cfg(const struct sim_cfg *c)
{
	int s;

	if (c->d < 1 || c->m < 1)
		return pd2bw_error("simulation needs d >= 1 and m >= 1 "
				   "(got d=%d, m=%d)", c->d, c->m);
	if (c->sched < 0 || c->sched >= PLAN_NSCHED)
		return pd2bw_error("simulation: unknown schedule %d",
				   c->sched);
	if (c->sched == PLAN_2BW && c->iters < 4)
		return pd2bw_error("simulation of 2bw needs 4 iterations or "
				   "more");
	if (c->v > 1 && c->sched != PLAN_FLUSH)
		return pd2bw_error("simulation: interleaving (v=%d) needs the "
				   "flush schedule", c->v);
	if (!isfinite(c->wrap_send_ms) || c->wrap_send_ms < 0)
		return pd2bw_error("simulation: a negative or non-finite "
				   "transfer time from the last GPU to the "
				   "first");
	for (s = 0; s < c->d; s++) {
		const struct sim_stage_in *t = &c->st[s];
		double v[] = {t->fwd_ms, t->bwd_ms, t->rc_ms, t->send_ms,
			      t->allreduce_ms, t->stash_bytes,
			      t->stash_extra_bytes, t->gather_ms, t->opt_ms,
			      t->bucket_share};
		size_t j;

		for (j = 0; j < sizeof(v) / sizeof(v[0]); j++)
			if (!isfinite(v[j]) || v[j] < 0)
				return pd2bw_error("simulation: stage %d has "
						   "a negative or non-finite "
						   "time or size", s);
	}
	return 0;
}

int
sim_run(struct sim *sm, const struct sim_cfg *cfg)
{
	struct sim_cfg c = *cfg;
	struct run r;
	size_t n, ndb, bytes;
	int s, done, progress, ret = -1, P, sweep = 0;
	double busy = 0, *buf, *own = NULL;

	memset(sm, 0, sizeof(*sm));
	memset(&r, 0, sizeof(r));
	if (c.sched != PLAN_2BW)
		c.iters = 1;
	else if (c.iters <= 0)
		c.iters = 8;
	if (c.v <= 0)
		c.v = 1;
	if (check_cfg(&c))
		return -1;
	sm->sched = c.sched;
	sm->d = c.d;
	sm->m = c.m;
	sm->iters = c.iters;
	sm->v = c.v;
	sm->update_ms = xcalloc((size_t)c.iters, sizeof(double));
	sm->stages = xcalloc((size_t)c.d, sizeof(*sm->stages));
	r.cfg = &c;
	r.d = c.d;
	r.m = c.m;
	r.M = c.m * c.iters;
	r.v = c.v;
	r.V = c.v * c.d;
	r.len = xcalloc((size_t)c.d, sizeof(int));
	r.pos = xcalloc((size_t)c.d, sizeof(int));
	r.warm = xcalloc((size_t)c.d, sizeof(int));
	/* One block: ar_end, then the queues' first rings, then with v > 1
	 * the interleaved table, cfg->mem's when there is one. */
	ndb = (size_t)c.d * c.iters + 2 * (size_t)r.V * QUEUE_CAP0;
	bytes = ndb * sizeof(double) +
		(r.v > 1 ? 2 * (size_t)r.m * r.v * sizeof(int) : 0);
	if (c.mem) {
		/* Doubled at least: a long run's probe and main run
		 * differ by one group of microbatches, and a search's
		 * runs come in any order of size (a fresh block is fresh
		 * pages, each one faulted in as the run first writes it:
		 * fewer, larger blocks fault in fewer pages). */
		if (c.mem->alloc < bytes) {
			size_t want = 2 * c.mem->alloc;

			free(c.mem->buf);
			c.mem->alloc = want > bytes ? want : bytes;
			c.mem->buf = xmalloc(c.mem->alloc);
		}
		buf = c.mem->buf;
	} else {
		buf = own = xmalloc(bytes);
	}
	r.ar_end = buf;
	r.act = xcalloc(2 * (size_t)r.V, sizeof(*r.act));
	r.grad = r.act + r.V;
	for (s = 0; s < 2 * r.V; s++) {
		r.act[s].v = buf + (size_t)c.d * c.iters +
			     (size_t)s * QUEUE_CAP0;
		r.act[s].cap = QUEUE_CAP0;
	}
	/* the updates' ends not known yet: all bits set, a NaN no time
	 * compares with (one memset, not a store per entry) */
	memset(r.ar_end, 0xff, (size_t)c.d * c.iters * sizeof(double));
	if (r.v > 1) {
		r.tab = (int *)(buf + ndb);
		build_tab(&r);
	}
	r.stage_free = xcalloc((size_t)c.d, sizeof(double));
	r.link_fwd = xcalloc((size_t)c.d, sizeof(double));
	r.link_bwd = xcalloc((size_t)c.d, sizeof(double));
	r.ar_free = xcalloc((size_t)c.d, sizeof(double));
	r.head = xcalloc((size_t)c.d, sizeof(*r.head));
	r.head_pos = xmalloc((size_t)c.d * sizeof(int));
	for (s = 0; s < c.d; s++)
		r.head_pos[s] = -1;
	build_orders(&r);
	if (roundable(&r))
		rounds(sm, &r);
	else
		lanes(&r);
	if (!c.times_only && !c.terms_only) {
		/* Room for every operation at once, as many as the steps
		 * (each with its send) and per stage and iteration an
		 * all-reduce per chunk, another, an optimizer step and a
		 * gather: grown step
		 * by step, the array would be copied as it doubles. */
		size_t most = (3 + (size_t)c.v) * c.d * c.iters;

		for (s = 0; s < c.d; s++)
			most += 2 * (size_t)r.len[s];
		xgrow((void **)&sm->ops, &r.alloc, most, sizeof(*sm->ops));
	}

	/*
	 * Advance every stage as far as its inputs allow, until done.  The
	 * orders are those of real schedules, so some stage always moves.
	 * Each stage runs its own order on resources of its own, so the
	 * times do not depend on the order the stages are visited in; only
	 * the operations kept do (their order in sm->ops).  For the time
	 * alone every other sweep goes down: a backward's gradient then
	 * reaches the stage below within the sweep, as a forward's
	 * activation reaches the stage above going up, and a stage waits
	 * about once in three steps instead of once in two.
	 */
	done = roundable(&r);
	if (r.lane && r.v > 1 && r.m % r.d == 0) {
		if (rounds_v(sm, &r)) {
			pd2bw_error("simulation: the schedule deadlocked");
			goto out;
		}
		done = 1;
	}
	while (!done) {
		int j;

		progress = 0;
		done = 1;
		for (j = 0; j < c.d && !r.stop; j++) {
			s = c.times_only && (sweep & 1) ? c.d - 1 - j : j;
			if (r.lane && r.v > 1) {
				progress |= advance_v(sm, &r, s);
				if (r.lane[s].nb < r.m * r.v)
					done = 0;
				continue;
			}
			if (r.lane) {
				progress |= advance(sm, &r, s);
				if (r.lane[s].nb < r.M)
					done = 0;
				continue;
			}
			while (r.pos[s] < r.len[s] && !r.stop) {
				struct step *st = &r.head[s];
				double t;

				/* a step that waited is known already */
				if (r.head_pos[s] != r.pos[s]) {
					step_at(&r, s, r.pos[s], st);
					r.head_pos[s] = r.pos[s];
				}
				t = ready_at(&r, s, st);

				if (t < 0)
					break;
				execute(sm, &r, s, st, t);
				r.pos[s]++;
				progress = 1;
			}
			if (r.pos[s] < r.len[s])
				done = 0;
		}
		sweep++;
		if (!progress || r.stop)
			break;
	}
	if (!done && !r.stop) {
		pd2bw_error("simulation: the schedule deadlocked");
		goto out;
	}
	if (r.lane && r.v > 1)
		for (s = 0; s < c.d; s++) {
			sm->end_ms = later(sm->end_ms, r.stage_free[s]);
			sm->end_ms = later(sm->end_ms, r.link_fwd[s]);
			sm->end_ms = later(sm->end_ms, r.link_bwd[s]);
			if (c.terms_only)
				sm->compute_end_ms = later(sm->compute_end_ms,
							   r.lane[s].cend);
		}

	for (n = 0; n < sm->nops; n++)
		if (sm->ops[n].end_ms > sm->end_ms)
			sm->end_ms = sm->ops[n].end_ms;
	for (s = 0; s < c.d; s++) {
		const struct sim_stage_in *in = &c.st[s];

		/* the peaks walk every step again: not for the time */
		if (!c.times_only && !c.terms_only)
			stage_peaks(sm, &r, s);
		sm->stages[s].busy_ms = r.m * (in->fwd_ms + in->rc_ms +
					       in->bwd_ms);
		busy += sm->stages[s].busy_ms;
	}
	if (c.sched == PLAN_2BW) {
		/* Average over the second half of the run, where the fill is
		 * over and a periodic steady state has set in, leaving out
		 * the last iteration: its cool-down has no forwards left to
		 * interleave and runs faster than the steady state. */
		P = (c.iters - 2) / 2;
		sm->measure_from_ms = sm->update_ms[c.iters - 2 - P];
		sm->iter_ms = (sm->update_ms[c.iters - 2] -
			       sm->measure_from_ms) / P;
	} else {
		sm->iter_ms = sm->end_ms;
		sm->update_ms[0] = sm->end_ms;
	}
	sm->bubble_frac =
		sm->iter_ms > 0 ? fmax(0, 1 - busy / (c.d * sm->iter_ms)) : 0;
	ret = 0;
out:
	free(r.len);
	free(r.pos);
	free(r.warm);
	free(own);
	free(r.stage_free);
	free(r.link_fwd);
	free(r.link_bwd);
	free(r.ar_free);
	free(r.head);
	free(r.head_pos);
	free(r.lane);
	for (s = 0; r.act && s < 2 * r.V; s++)
		if (r.act[s].own)
			free(r.act[s].v);
	free(r.act);
	return ret;
}

void
sim_mem_release(struct sim_mem *m)
{
	free(m->buf);
	m->buf = NULL;
	m->alloc = 0;
}

void
sim_release(struct sim *s)
{
	free(s->ops);
	free(s->update_ms);
	free(s->stages);
	memset(s, 0, sizeof(*s));
}

double
sim_stage_idle(const struct sim *s, int stage)
{
	if (s->iter_ms <= 0)
		return 0;
	return fmax(0, 1 - s->stages[stage].busy_ms / s->iter_ms);
}

double
sim_show_until(const struct sim *s)
{
	if (s->sched == PLAN_2BW && s->iters >= 2)
		return s->update_ms[1];
	return s->end_ms;
}
