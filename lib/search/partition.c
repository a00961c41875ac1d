/*
 * partition.c - min-max contiguous partition by dynamic programming.
 *
 * dp[s][e] is the best achievable max cost of stages 0..s when stage s ends
 * at layer e.  Stage s = [a, e] is grown downwards from a = e, so its
 * compute time and memory only increase: the scan stops as soon as either
 * makes the stage unable to improve on the best found (or on the bound).
 *
 * In PART_TIME a greedy partition comes first (each stage as long as a
 * threshold on its cost allows, the threshold found by bisection): its
 * cost U is an upper bound of the optimum, so the dynamic programme only
 * needs the states whose cost can be U or less.  Those it keeps exactly,
 * ties included, and the optimum is one of them: the answer is the plain
 * programme's to the bit, found in a narrow band of (stage, last layer).
 */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/partition.h"
#include "pd2bw/error.h"

/* Chains, microbatch sizes and recomputations a ws keeps indexes of:
 * PART_MIX_SETS sets of PART_MIX_WAYS, the least recently used of a set
 * replaced (a search asks dozens of them in turn: GPT-3 175B on 1024
 * GPUs 42, which 16 slots by hash alone rebuilt 1,238 times; a capacity
 * sweep of Llama 3 70B more than 16 sets of 4 hold, each rebuilt about
 * 1,500 instructions a part_fits() call). */
#define PART_MIX_SETS 64
#define PART_MIX_WAYS 4
#define PART_MIX (PART_MIX_SETS * PART_MIX_WAYS)

/* One stage's constants: the terms of cost_p2p() and cost_allreduce(). */
struct part_stage {
	double in_coef, in_lat, ar_coef, ar_lat;
	double tp_coef, tp_lat, are_coef, are_lat;
	double out_gb_s, out_lat_us; /* the link to stage s + 1 */
	double lat;                  /* the least the transfers in and out
					cost: their latencies and the
					smallest activation's bytes */
	const double *cpre;          /* [L + 1] per-layer terms summed, or
					NULL when there are none */
	long cpre_off;
};

/* What every stage of one solve shares. */
struct part_run {
	const struct chain *c;
	const struct cost_opts *o;
	const struct cost_cfg *g;
	const double *out, *pre, *tpn, *tpx;
	const struct part_stage *ps;
	struct cost_mem mem0; /* the configuration's constants */
	double inv_t;
	double minout; /* least_out() of the chain at the microbatch size */
	int add_ar;
	/* mem_over(), when fast is set: the stashes' prefix sums, the
	 * counts of layers full recomputation reruns, the log2 table and
	 * sparse tables (level j at j L) of the work and of the rerun
	 * layers' whole stashes; mono: memory only grows with the stage */
	int fast, mono;
	int lb_mono; /* lb_grows() */
	/* part_solve()'s scan keeps no layers in its memory: a stage's
	 * parameters from the prefix sums (the same integers), its memory
	 * from mem_over() (fast) or not asked (no cap) */
	int lite;
	/* with fast: a stage's memory constants to work mem_over() in,
	 * mem0 but for the stage's in_flight (cost_mem_stage()), in place
	 * of a copy of mem0 at every check (NULL: copies) */
	struct cost_mem *scr;
	/* the compute's prefix sums never go down: a stage's compute only
	 * grows with it, and the first end it goes over a limit at is one
	 * (first_over()), however it is searched */
	int up;
	const double *pst, *pso, *tw, *tf;
	const int *prun, *lg;
};

/*
 * What mem_over() reads of a chain at microbatch size k whatever the
 * recomputation: the counts of the layers full recomputation reruns
 * (prun), a log2 table (lg) and sparse tables, level i at i L, of the
 * work (tw) and of the rerun layers' whole stashes (tf).  ok: every
 * number of them >= 0 (else the tables are not all filled).  Built once
 * per chain and k (the chain's id) in a ws, for its recomputations'
 * part_mix to share (GPT-3 175B on 1024 GPUs: a third of the tables,
 * whose 100 pages cost its search 1.3 ms of faults in a virtual
 * machine); gen tells a part_mix that took them whether they are still
 * those (PART_TABS of them, the least recently used replaced).
 */
struct part_tabs {
	unsigned long id; /* 0: empty */
	unsigned long used, gen; /* ws->mix_tick when last asked, built */
	int k, ok;
	double *buf, *tw, *tf;
	int *ibuf, *prun, *lg;
	size_t alloc, ialloc;
};

#define PART_TABS 64

/*
 * What mem_over() reads of a chain at microbatch size k under
 * recomputation r: the stashes' prefix sums (pst) and the chain's
 * part_tabs (tw, tf, prun, lg: tabs's, built at gen).  ok: the stashes
 * are whole bytes below 2^53 in all and every number >= 0 (else the
 * tables are not filled); grows: no layer's parameter counts are
 * negative; lb_ok: lb_grows()'s checks of the chain.  Built once per
 * chain, k and r (the chain's id) in a ws.
 */
struct part_mix {
	unsigned long id; /* 0: empty */
	unsigned long used; /* when last asked (ws->mix_tick) */
	int k, r;
	int ok, grows, lb_ok;
	int up; /* the compute's prefix sums never go down (pr->up) */
	int whole; /* the stashes whole bytes >= 0, below 2^53 in all (in
		      order), part_solve()'s test of them */
	double minout; /* least_out() of the activations */
	double *pst;
	double *pso; /* pst's of the layers outside the blocks
			(cost_layer_outside()) */
	const double *tw, *tf;
	const int *prun, *lg;
	const struct part_tabs *tabs;
	unsigned long gen;
	size_t alloc;
};

void
part_ws_release(struct part_ws *ws)
{
	int i;

	free(ws->dp);
	free(ws->arg);
	free(ws->cpre);
	free(ws->stg);
	free(ws->iscr);
	ws->cpre = NULL;
	ws->cpre_alloc = 0;
	ws->dp = NULL;
	ws->arg = NULL;
	ws->alloc = 0;
	ws->stg = NULL;
	ws->iscr = NULL;
	ws->stg_alloc = 0;
	if (ws->mix)
		for (i = 0; i < PART_MIX; i++) {
			free(ws->mix[i].pst);
			free(ws->mix[i].pso);
		}
	free(ws->mix);
	ws->mix = NULL;
	if (ws->tabs)
		for (i = 0; i < PART_TABS; i++) {
			free(ws->tabs[i].buf);
			free(ws->tabs[i].ibuf);
		}
	free(ws->tabs);
	ws->tabs = NULL;
}

/*
 * Whether the memory cap can stop a stage at all: no stage's memory, a
 * finite number of bytes, is over an infinite cap (the explanation's and
 * the plan's solves without it), and the checks of it can go.
 */
static int
capped_run(const struct part_run *pr)
{
	return pr->o->cap_bytes < INFINITY;
}

/*
 * A ws of the calling thread's own, released with the thread: it keeps
 * the chains' indexes (mix_get()) for every solve on the thread, across
 * searches (a capacity sweep's sizes share their chains; a search's ws
 * lives as long as the search), and serves part_fits_span(), which has
 * no ws of its own.  NULL when none can be had (each ws keeps its own,
 * and part_fits_span() adds the layers one by one: the same answers).
 */
static pthread_key_t fits_key;
static pthread_once_t fits_once = PTHREAD_ONCE_INIT;
static int fits_key_ok;

static void
fits_ws_free(void *p)
{
	part_ws_release(p);
	free(p);
}

static void
fits_key_make(void)
{
	fits_key_ok = pthread_key_create(&fits_key, fits_ws_free) == 0;
}

static struct part_ws *
fits_ws(void)
{
	struct part_ws *ws;

	if (pthread_once(&fits_once, fits_key_make) || !fits_key_ok)
		return NULL;
	ws = pthread_getspecific(fits_key);
	if (!ws) {
		ws = xcalloc(1, sizeof(*ws));
		if (pthread_setspecific(fits_key, ws)) {
			free(ws);
			return NULL;
		}
	}
	return ws;
}

/*
 * The smallest activation a stage boundary can carry: the least of
 * out[0..L-2] (the last layer's goes nowhere), 0 when that is not a
 * number >= 0.
 */
static double
least_out(const double *out, int L)
{
	double m = INFINITY;
	int j;

	for (j = 0; j < L - 1; j++)
		if (out[j] < m)
			m = out[j];
	return m >= 0 ? m : 0;
}

/* x's tables (part_tabs) of chain c at microbatch size k: ws's, built
 * the first time, the least recently used replaced. */
static void
tabs_of(struct part_ws *ws, struct part_mix *x, const struct chain *c, int k)
{
	struct part_tabs *t = NULL;
	int L = c->L, i, j, lv, n;

	if (!ws->tabs)
		ws->tabs = xcalloc(PART_TABS, sizeof(*ws->tabs));
	for (i = 0; i < PART_TABS; i++) {
		if (c->id && ws->tabs[i].id == c->id && ws->tabs[i].k == k) {
			t = &ws->tabs[i];
			goto found;
		}
		if (!t || ws->tabs[i].used < t->used)
			t = &ws->tabs[i];
	}
	t->id = c->id;
	t->k = k;
	t->gen = ++ws->mix_tick;
	t->ok = 0;
	for (lv = 1; (1 << lv) <= L; lv++)
		;
	n = 2 * lv * L;
	if ((size_t)n > t->alloc) {
		t->buf = xrealloc(t->buf, (size_t)n * sizeof(double));
		t->alloc = n;
	}
	if ((size_t)(2 * (L + 1)) > t->ialloc) {
		t->ibuf = xrealloc(t->ibuf, 2 * (size_t)(L + 1) * sizeof(int));
		t->ialloc = 2 * (size_t)(L + 1);
	}
	t->tw = t->buf;
	t->tf = t->tw + (size_t)lv * L;
	t->prun = t->ibuf;
	t->lg = t->prun + L + 1;
	t->prun[0] = 0;
	t->lg[0] = t->lg[1] = 0;
	for (j = 0; j < L; j++) {
		double full = CHAIN_AT(c, c->stash[PROF_RC_NONE], k, j);
		double wk = CHAIN_AT(c, c->work, k, j);
		int rerun = chain_full_reruns(c, k, j);

		if (!(wk >= 0 && (!rerun || full >= 0)))
			goto found;
		t->prun[j + 1] = t->prun[j] + rerun;
		t->tw[j] = wk;
		t->tf[j] = rerun ? full : 0;
		if (j + 2 <= L)
			t->lg[j + 2] = t->lg[(j + 2) / 2] + 1;
	}
	for (i = 1; i < lv; i++)
		for (j = 0; j + (1 << i) <= L; j++) {
			const double *w0 = t->tw + (size_t)(i - 1) * L;
			const double *f0 = t->tf + (size_t)(i - 1) * L;
			double *w1 = t->tw + (size_t)i * L;
			double *f1 = t->tf + (size_t)i * L;
			int h = j + (1 << (i - 1));

			w1[j] = w0[j] > w0[h] ? w0[j] : w0[h];
			f1[j] = f0[j] > f0[h] ? f0[j] : f0[h];
		}
	t->ok = 1;
found:
	t->used = ++ws->mix_tick;
	x->tabs = t;
	x->gen = t->gen;
	x->tw = t->tw;
	x->tf = t->tf;
	x->prun = t->prun;
	x->lg = t->lg;
}

static const struct part_mix *
mix_get(struct part_ws *ws, const struct part_run *pr)
{
	const struct chain *c = pr->c;
	int L = c->L, k = pr->g->k, r = pr->g->r, j, i;
	struct part_mix *x, *set;
	double sum = 0;
	unsigned long hash;
	struct part_ws *own = fits_ws();

	if (own)
		ws = own;
	if (!ws->mix)
		ws->mix = xcalloc(PART_MIX, sizeof(*ws->mix));
	hash = (c->id * PROF_RC_N + (unsigned long)r) * 0x9e3779b97f4a7c15UL +
	       (unsigned long)k * 0x85ebca6bUL;
	set = &ws->mix[((hash >> 32) % PART_MIX_SETS) * PART_MIX_WAYS];
	x = set;
	for (i = 0; i < PART_MIX_WAYS; i++) {
		if (c->id && set[i].id == c->id && set[i].k == k &&
		    set[i].r == r) {
			set[i].used = ++ws->mix_tick;
			/* its tables replaced since: taken again */
			if (set[i].ok && set[i].tabs->gen != set[i].gen)
				tabs_of(ws, &set[i], c, k);
			return &set[i];
		}
		if (set[i].used < x->used)
			x = &set[i];
	}
	x->used = ++ws->mix_tick;
	x->id = c->id;
	x->k = k;
	x->r = r;
	x->minout = least_out(c->out + (size_t)k * L, L);
	x->ok = x->grows = x->lb_ok = 0;
	x->up = 1;
	for (j = 0; x->up && j < L; j++)
		x->up = pr->pre[j + 1] >= pr->pre[j];
	x->whole = 1;
	for (j = 0; x->whole && j < L; j++) {
		double st = CHAIN_AT(c, c->stash[r], k, j);

		x->whole = st >= 0 && st == floor(st);
		sum += st;
	}
	x->whole = x->whole && sum < 9007199254740992.0;
	sum = 0;
	/* lb_grows()'s part: the parameter counts and the tensor-parallel
	 * traffic's prefix sums */
	x->lb_ok = c->pre_eparams != NULL;
	for (j = 0; x->lb_ok && j < L; j++)
		x->lb_ok = c->eparams[j] >= 0 &&
			   c->params[j] >= c->eparams[j] &&
			   pr->tpx[j + 1] >= pr->tpx[j] &&
			   pr->tpn[j + 1] >= pr->tpn[j];
	if ((size_t)(L + 1) > x->alloc) {
		x->pst = xrealloc(x->pst, (size_t)(L + 1) * sizeof(double));
		x->pso = xrealloc(x->pso, (size_t)(L + 1) * sizeof(double));
		x->alloc = L + 1;
	}
	x->pst[0] = x->pso[0] = 0;
	for (j = 0; j < L; j++) {
		double st = CHAIN_AT(c, c->stash[r], k, j);

		if (!(st >= 0 && st == floor(st)))
			return x;
		sum += st;
		x->pst[j + 1] = sum;
		x->pso[j + 1] = x->pso[j] + (cost_layer_outside(c, j) ? st : 0);
	}
	if (!(sum < 9007199254740992.0))
		return x;
	tabs_of(ws, x, c, k);
	if (!x->tabs->ok)
		return x;
	x->ok = 1;
	x->grows = 1;
	for (j = 0; x->grows && j < L; j++)
		x->grows = c->params[j] >= 0 && c->eparams[j] >= 0;
	return x;
}

/*
 * Set pr up for mem_over(): a stage's memory from prefix sums and range
 * maxima in O(1), the very number cost_mem_bytes() gives for its layers
 * added one by one.  It takes the fields cost_mem_add() fills that
 * cost_mem_bytes() reads without offload and without an FSDP window
 * (neither: pr->fast stays 0), and they come out the same to the bit:
 * the parameter counts are sums of integers, the stashes too when they
 * are whole bytes below 2^53 in all (else pr->fast stays 0), the rest
 * maxima from 0 of numbers no smaller (all are checked to be >= 0).
 * pr->mono is set when no term shrinks as a layer is added: then the
 * first end a stage's memory goes over the cap at can be bisected.
 */
static void
mem_prep(const struct part_mix *x, struct part_run *pr)
{
	const struct chain *c = pr->c;
	const struct cost_mem *m = &pr->mem0;

	pr->fast = pr->mono = 0;
	if (!capped_run(pr) || m->gather > 0 || m->offload ||
	    !c->pre_eparams || (m->mdelta < 0 && !c->pre_mparams) || !x->ok)
		return;
	pr->pst = x->pst;
	pr->pso = x->pso;
	pr->tw = x->tw;
	pr->tf = x->tf;
	pr->prun = x->prun;
	pr->lg = x->lg;
	pr->fast = 1;
	/* every term a sum or maximum of numbers >= 0 times a factor >= 0,
	 * each truncation of a growing number growing too */
	pr->mono = m->weight >= 0 && m->state >= 0 && !(m->mdelta < 0) &&
		   /* a 16-bit block's weights less than a quantised one's
		    * take their share off as the stage grows */
		   !(m->w16 < 0) &&
		   m->eopt >= 0 && m->eweight >= 0 && m->eshare >= 0 &&
		   m->frag >= 0 && x->grows &&
		   /* the pipelining buffers follow the stage's last layer's
		    * output, which need not grow */
		   !(m->ppd > 1);
}

/* The larger of t's entries a..e (a sparse table of pr's). */
static inline double
range_max(const struct part_run *pr, const double *t, int a, int e)
{
	int j = pr->lg[e - a + 1], L = pr->c->L;
	double x = t[(size_t)j * L + a];
	double y = t[(size_t)j * L + e - (1 << j) + 1];

	return x > y ? x : y;
}

/*
 * Whether stage [a, e] goes over the memory cap (pr->fast), m holding
 * the stage's constants (cost_mem_stage()): its layers' fields set from
 * mem_prep()'s sums and maxima.
 */
static inline int
mem_over(const struct part_run *pr, struct cost_mem *m, int a, int e)
{
	const struct chain *c = pr->c;
	struct plan_stage scratch;

	m->params = c->pre_params[e + 1] - c->pre_params[a];
	m->eparams = c->pre_eparams[e + 1] - c->pre_eparams[a];
	if (m->mdelta < 0)
		m->mparams = c->pre_mparams[e + 1] - c->pre_mparams[a];
	if (m->w16 != 0)
		m->m16 = c->pre_m16[e + 1] - c->pre_m16[a];
	m->per_mb = pr->pst[e + 1] - pr->pst[a];
	m->per_mb_out = pr->pso[e + 1] - pr->pso[a];
	m->any_full = pr->g->r == PROF_RC_FULL && pr->prun[e + 1] > pr->prun[a];
	m->peak_full = range_max(pr, pr->tf, a, e);
	m->work = range_max(pr, pr->tw, a, e);
	m->last_out = CHAIN_AT(c, c->out, pr->g->k, e);
	return (double)cost_mem_bytes(m, &scratch) > pr->o->cap_bytes;
}

/*
 * cost_dp_sync()'s bytes per parameter per update, (n-1)/n = wf: the
 * gradients' all-reduce; ZeRO-1 their reduce-scatter plus the 16-bit
 * weights' all-gather; ZeRO-2 with whole weights that all-gather alone;
 * ZeRO-2/3 reduce per microbatch instead (cost_fsdp(), per layer).
 */
static double
dp_wire(const struct cost_opts *o, const struct cost_cfg *g,
	const struct cost_bytes *by, double wf)
{
	if (g->zero >= 2)
		return g->zero == 2 && !cost_cfg_runtime(o, g)->zero2_gather_mb
			       ? wf * cost_gather_bytes(o, g)
			       : 0;
	return g->zero ? wf * (by->grad + cost_gather_bytes(o, g))
		       : 2 * wf * by->grad;
}

/*
 * ps without what cost_stage_busy() leaves out or its runtime hides: the
 * synchronisation (paid per update), the share of the tensor-parallel
 * traffic sequence parallelism hides (tp_ms's factor, cost_stage_rc()),
 * the transfers the interleaved schedule hides (all of them: it hides
 * them whenever compute is longer).  What is left sums, to rounding,
 * terms of cost_stage_busy() that cost_stage_rc() leaves whole, or lower
 * bounds of them (FSDP's steady share); the expert-parallel overlap it
 * does not follow (the caller's to exclude).
 */
static void
busy_only(const struct cost_opts *o, const struct cost_cfg *g,
	  struct part_stage *ps)
{
	const struct runtime *rt = cost_cfg_runtime(o, g);
	double keep = 1 - cost_tp_hidden(o, g);

	ps->ar_coef = ps->ar_lat = ps->are_coef = ps->are_lat = 0;
	ps->tp_coef *= keep;
	ps->tp_lat *= keep;
	if (rt->p2p_hidden_v && g->v > 1) {
		ps->in_coef = ps->in_lat = ps->out_lat_us = 0;
		ps->out_gb_s = INFINITY;
	}
}

/*
 * ps->lat: the least stage s's transfers in and out cost wherever it
 * starts and ends, each the programme's term for the smallest activation
 * (minout) at the boundary: a part of stage_lb() that does not shrink
 * the stage (a chain of equal blocks: the transfers to the bit, so that
 * band() leaves out every stage over the cut).  The latencies alone
 * where that is not a number.
 */
static void
stage_lat(const struct cost_cfg *g, double inv_t, double minout, int s,
	  struct part_stage *ps)
{
	double lat = ps->in_lat, x = 0;

	if (s < g->d - 1)
		lat += 2.0 * g->v * ps->out_lat_us * 1e-3;
	if (s > 0)
		x = minout * ps->in_coef + ps->in_lat;
	if (s < g->d - 1)
		x += 2.0 * g->v *
		     cost_xfer_ms(minout * inv_t, ps->out_gb_s, ps->out_lat_us);
	ps->lat = x >= lat ? x : lat;
}

/*
 * Fill ws->stg[0..d) for g: the terms of cost_p2p() and cost_allreduce()
 * hoisted, and cost_cp() + cost_ep() + FSDP's share summed layer by layer
 * once per link rate (a stage whose rates sum as the previous one's takes
 * its sums).
 */
static void
stages_init(struct part_ws *ws, const struct chain *c,
	    const struct cost_opts *o, const struct cost_cfg *g,
	    const struct place_links *l, double minout)
{
	int L = c->L, d = g->d, s, a;
	int nr = g->w * cost_cp_deg(g), ne = cost_ep_deg(g);
	double inv_t = 1.0 / g->t, cp_bw = -1;
	long off = -1, used = 0;
	struct cost_bytes by;

	cost_bytes(o, g, &by);
	if ((size_t)d > ws->stg_alloc) {
		ws->stg = xrealloc(ws->stg, (size_t)d * sizeof(*ws->stg));
		ws->iscr = xrealloc(ws->iscr, 3 * (size_t)d * sizeof(int));
		ws->stg_alloc = d;
	}
	for (s = 0; s < d; s++) {
		struct part_stage *ps = &ws->stg[s];

		ps->in_coef = ps->in_lat = ps->ar_coef = ps->ar_lat = 0;
		ps->tp_coef = ps->tp_lat = ps->are_coef = ps->are_lat = 0;
		ps->out_gb_s = ps->out_lat_us = 0;
		if (s > 0) {
			ps->in_coef = 2.0 * g->v * inv_t /
				      (l->in_gb_s[s] * 1e6);
			ps->in_lat = 2.0 * g->v * l->in_lat_us[s] * 1e-3;
		}
		if (s < d - 1) {
			ps->out_gb_s = l->in_gb_s[s + 1];
			ps->out_lat_us = l->in_lat_us[s + 1];
		}
		if (g->t > 1) {
			ps->tp_coef = 2.0 * (g->t - 1) / g->t /
				      (l->tp_gb_s[s] * 1e6);
			ps->tp_lat = l->tp_lat_us[s] * 1e-3;
		}
		if (nr > 1) {
			double wf = (nr - 1.0) / nr, wire;
			double bw = l->ring_gb_s[s], lt = l->ring_lat_us[s];

			/* cost_dp_sync()'s ring of w x c ranks */
			if (g->c > 1) {
				if (g->w < 2 || l->cp_gb_s[s] < bw)
					bw = l->cp_gb_s[s];
				if (g->w < 2 || l->cp_lat_us[s] > lt)
					lt = l->cp_lat_us[s];
			}
			/* cost_dp_sync()'s bytes per parameter: all-reduce of
			 * the gradients, or their reduce-scatter plus the
			 * 16-bit weights' all-gather */
			wire = dp_wire(o, g, &by, wf);
			ps->ar_coef = wire / (bw * 1e6) / cost_ar_div(g);
			ps->ar_lat = 2.0 * (nr - 1) * lt * 1e-3 /
				     cost_ar_div(g);
		}
		/* the routed experts' buffer, over their own rings of
		 * nr t / (etp ne) ranks */
		if (ne > 1 && cost_edp(g) > 1) {
			int n2 = cost_edp(g);
			double wire = dp_wire(o, g, &by, (n2 - 1.0) / n2);

			ps->are_coef = wire / (l->edp_gb_s[s] * 1e6) /
				       cost_ar_div(g);
			ps->are_lat = 2.0 * (n2 - 1) * l->edp_lat_us[s] * 1e-3 /
				      cost_ar_div(g);
		}
		/* cost_cp() and cost_ep() layer by layer, summed once per
		 * link rate */
		if ((g->c > 1 || ne > 1 || g->zero >= 2 || c->epx) &&
		    l->cp_gb_s[s] + l->ep_gb_s[s] + l->ring_gb_s[s] +
				    l->edp_gb_s[s] + l->tp_gb_s[s] !=
			    cp_bw) {
			double *p;

			if ((size_t)(used + L + 1) > ws->cpre_alloc) {
				ws->cpre_alloc = 2 * (size_t)(used + L + 1);
				ws->cpre = xrealloc(ws->cpre, ws->cpre_alloc *
							      sizeof(double));
			}
			off = used;
			used += L + 1;
			p = ws->cpre + off;
			p[0] = 0;
			for (a = 0; a < L; a++)
				/* FSDP's steady share per layer, a lower
				 * bound (offload's too: 0) */
				p[a + 1] = p[a] + cost_cp(c, g, l, s, a, a) +
					   cost_ep(c, g, l, s, a, a) +
					   cost_fsdp_layer(c, o, g, l, s, a);
			/* DeepSpeed-MoE's gathers ride the tensor-parallel
			 * links (comm.c ep_tp_gather_ms()) */
			cp_bw = l->cp_gb_s[s] + l->ep_gb_s[s] +
				l->ring_gb_s[s] + l->edp_gb_s[s] +
				l->tp_gb_s[s];
		}
		ps->cpre_off = off;
		if (ws->no_sync)
			busy_only(o, g, ps);
		stage_lat(g, inv_t, minout, s, ps);
	}
	/* the sums are all there: ws->cpre moves no more */
	for (s = 0; s < d; s++)
		ws->stg[s].cpre = ws->stg[s].cpre_off >= 0
					  ? ws->cpre + ws->stg[s].cpre_off
					  : NULL;
}

/*
 * Stage s = [a, e]'s time per microbatch without its incoming transfer
 * (compute, out_t, the tensor-parallel and per-layer terms), and in *ar
 * its gradients' synchronisation: the terms in the order the programme
 * sums them, so that greedy() and part_solve() agree to the bit.
 * Inlined, as stage_lb() is, whatever the compiler's size heuristics say:
 * the programme, the greedy and the band ask them for every stage they
 * try (a call costs the 1024-GPU GPT-3 search 3% of its instructions).
 */
COST_HOT double
stage_terms(const struct part_run *pr, int s, int a, int e, double out_t,
	    int64_t params, int64_t eparams, double *ar)
{
	const struct part_stage *ps = &pr->ps[s];
	double t = pr->pre[e + 1] - pr->pre[a];

	t += out_t;
	if (pr->g->t > 1)
		t += ps->tp_coef * (pr->tpx[e + 1] - pr->tpx[a]) +
		     ps->tp_lat * (pr->tpn[e + 1] - pr->tpn[a]);
	if (ps->cpre)
		t += ps->cpre[e + 1] - ps->cpre[a];
	*ar = (double)(params - eparams) * ps->ar_coef + ps->ar_lat;
	if (eparams)
		*ar += (double)eparams * ps->are_coef + ps->are_lat;
	return t;
}

/*
 * A lower bound of stage s = [a, e]'s cost that only grows with the stage
 * (the transfers in and out, which depend on the layers at its ends, count
 * their latencies alone).
 */
COST_HOT double
stage_lb(const struct part_run *pr, int s, int a, int e)
{
	const struct chain *c = pr->c;
	int64_t params = c->pre_params[e + 1] - c->pre_params[a];
	int64_t eparams = c->pre_eparams ? c->pre_eparams[e + 1] -
						   c->pre_eparams[a]
					 : 0;
	double ar, t = stage_terms(pr, s, a, e, pr->ps[s].lat, params,
				   eparams, &ar);

	return pr->add_ar ? t + ar : t > ar ? t : ar;
}

/*
 * Whether stage_lb() only grows with the stage, both ways: every term it
 * sums grows, each a difference of prefix sums of numbers >= 0 or a
 * count of parameters (experts' among them) times a factor >= 0.  The
 * compute's prefix sums are taken to grow everywhere (compute_end()).
 */
static int
lb_grows(const struct part_run *pr, const struct part_mix *x)
{
	int L = pr->c->L, d = pr->g->d, s, j;

	for (s = 0; s < d; s++) {
		const struct part_stage *ps = &pr->ps[s];

		if (!(ps->tp_coef >= 0 && ps->tp_lat >= 0 && ps->ar_coef >= 0 &&
		      ps->ar_lat >= 0 && ps->are_coef >= 0 &&
		      ps->are_lat >= 0))
			return 0;
		/* stages on the same rates share their sums */
		for (j = 0; ps->cpre && (s == 0 || ps->cpre != ps[-1].cpre) &&
			    j < L;
		     j++)
			if (!(ps->cpre[j + 1] >= ps->cpre[j]))
				return 0;
	}
	return x->lb_ok;
}

/*
 * With pr->up: the first end e in [a, ehi] whose compute is not below
 * lim (!(pre[e + 1] - pre[a] < lim)), or with gt over it (pre[e + 1] -
 * pre[a] > lim), ehi + 1 when none is.  The compute only grows with e,
 * so that is one end however it is found (the bisections and galloping
 * it stands in for find it too): here by galloping from guess either
 * way, then bisection, a few steps where a stage is about as long as
 * the one before it (a chain of equal blocks: every stage), against the
 * bisection's log2 L.
 */
static inline int
over_at(const double *pre, int a, int e, double lim, int gt)
{
	double x = pre[e + 1] - pre[a];

	return gt ? x > lim : !(x < lim);
}

static inline int
first_over_by(const double *pre, int a, int ehi, double lim, int guess,
	      int gt)
{
	int lo, hi, mid, step;

	if (ehi < a)
		return ehi + 1;
	if (guess < a)
		guess = a;
	if (guess > ehi)
		guess = ehi;
	/* not over lim up to lo (a - 1: none), over it from hi on */
	if (!over_at(pre, a, guess, lim, gt)) {
		for (lo = guess, step = 1;; step *= 2) {
			hi = lo + step;
			if (hi > ehi) {
				hi = ehi + 1;
				break;
			}
			if (over_at(pre, a, hi, lim, gt))
				break;
			lo = hi;
		}
	} else {
		for (hi = guess, step = 1;; step *= 2) {
			lo = hi - step;
			if (lo < a) {
				lo = a - 1;
				break;
			}
			if (!over_at(pre, a, lo, lim, gt))
				break;
			hi = lo;
		}
	}
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (!over_at(pre, a, mid, lim, gt))
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

static int
first_over(const double *pre, int a, int ehi, double lim, int guess)
{
	return first_over_by(pre, a, ehi, lim, guess, 0);
}

/* Whether stage s from a to e is over lim: its compute, or with lb its
 * lower bound (both grow with e where grow_end() bisects). */
static int
end_over(const struct part_run *pr, int s, int a, int e, double lim, int lb)
{
	return lb ? stage_lb(pr, s, a, e) > lim
		  : !(pr->pre[e + 1] - pr->pre[a] < lim);
}

/* Galloping up from lo (not over lim) to the first hi over it, or ehi + 1;
 * *lop gets the last end not over it passed on the way. */
static int
gallop_up(const struct part_run *pr, int s, int a, int lo, int ehi,
	  double lim, int lb, int *lop)
{
	int hi, step;

	for (step = 1;; step *= 2) {
		hi = lo + step;
		if (hi > ehi) {
			hi = ehi + 1;
			break;
		}
		if (end_over(pr, s, a, hi, lim, lb))
			break;
		lo = hi;
	}
	*lop = lo;
	return hi;
}

/*
 * The greedy from the front: the first layer from a that stage s cannot
 * take (ehi + 1 when it takes them all), the stage grown while its memory
 * stays within the cap and its cost within lim: stage_lb()'s bound (lb),
 * or compute alone, strictly below lim.  With span (compute alone), the
 * limits that compare alike narrow span[0] < lim <= span[1].
 *
 * The first end over lim is found by galloping and bisection when the
 * cost compared grows with the stage (compute always, stage_lb() with
 * pr->lb_mono), and the first end over the cap by bisection when memory
 * grows too (pr->mono): the ends the scan one layer at a time stops at,
 * and the same limits.  mguess (-1: none), where both searches start:
 * the caller's guess of the first end over, a stage about as long as
 * the one before.
 */
static int
grow_end(const struct part_run *pr, int s, int a, int ehi, double lim,
	 int lb, double *span, int known, int mguess)
{
	const struct cost_cfg *g = pr->g;
	const double *pre = pr->pre;
	struct cost_mem mem, *mp = &mem;
	struct plan_stage scratch;
	int e, lo, hi, mid, step, capped = capped_run(pr);

	if ((!lb && !pr->fast && capped) || (lb && !pr->lb_mono)) {
		/* one layer at a time */
		mem = pr->mem0;
		cost_mem_stage(&mem, g, s);
		for (e = a; e <= ehi; e++) {
			double t = pre[e + 1] - pre[a];

			if (capped)
				cost_mem_add(&mem, pr->c, g->k, e, g->r);
			if (lb ? stage_lb(pr, s, a, e) > lim : !(t < lim)) {
				if (span && t < span[1])
					span[1] = t;
				break;
			}
			if (span && t > span[0])
				span[0] = t;
			if (capped && (double)cost_mem_bytes(&mem, &scratch) >
					      pr->o->cap_bytes)
				break;
		}
		return e;
	}
	/* the first end over lim, ehi + 1 when none is: known (compute
	 * alone, pr->up: the caller found it), else galloping from a (a
	 * stage is often a few layers of a long chain), then bisected */
	if (known >= 0) {
		e = known;
		goto found;
	}
	if (pr->up && mguess > a && mguess <= ehi) {
		/* from the caller's guess, either way: where a stage is
		 * about as long as the one before (every stage of a chain
		 * of equal blocks) a few steps, not two log2 of its length
		 * (the compute's prefix sums never go down: one first end,
		 * however it is searched) */
		if (!end_over(pr, s, a, mguess, lim, lb)) {
			hi = gallop_up(pr, s, a, mguess, ehi, lim, lb, &lo);
		} else {
			for (hi = mguess, step = 1;; step *= 2) {
				lo = hi - step;
				if (lo < a) {
					lo = a - 1;
					break;
				}
				if (!end_over(pr, s, a, lo, lim, lb))
					break;
				hi = lo;
			}
		}
	} else {
		hi = gallop_up(pr, s, a, a - 1, ehi, lim, lb, &lo);
	}
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (end_over(pr, s, a, mid, lim, lb))
			hi = mid;
		else
			lo = mid;
	}
	e = hi;
found:
	/* the first end before it over the cap */
	if (!capped)
		goto fits;
	if (pr->fast && pr->scr)
		mp = pr->scr;
	else
		mem = pr->mem0;
	cost_mem_stage(mp, g, s);
	if (pr->fast && pr->mono && mp->in_flight >= 0) {
		/* one check when the whole stage fits, the usual case */
		if (e > a && mem_over(pr, mp, a, e - 1)) {
			lo = a - 1;
			hi = e - 1;
			/* memory only grows with the stage: galloping from
			 * the caller's guess (about as long as the stage
			 * before) narrows the same first end over the cap */
			if (mguess >= a && mguess < e - 1) {
				if (mem_over(pr, mp, a, mguess)) {
					for (hi = mguess, step = 1;;
					     step *= 2) {
						lo = hi - step;
						if (lo < a) {
							lo = a - 1;
							break;
						}
						if (!mem_over(pr, mp, a, lo))
							break;
						hi = lo;
					}
				} else {
					for (lo = mguess, step = 1;;
					     step *= 2) {
						mid = lo + step;
						if (mid >= e - 1)
							break;
						if (mem_over(pr, mp, a, mid)) {
							hi = mid;
							break;
						}
						lo = mid;
					}
				}
			}
			while (hi - lo > 1) {
				mid = lo + (hi - lo) / 2;
				if (mem_over(pr, mp, a, mid))
					hi = mid;
				else
					lo = mid;
			}
			mid = hi;
			goto capped;
		}
	} else {
		for (mid = a; mid < e; mid++) {
			if (pr->fast) {
				if (mem_over(pr, mp, a, mid))
					goto capped;
				continue;
			}
			cost_mem_add(&mem, pr->c, g->k, mid, g->r);
			if ((double)cost_mem_bytes(&mem, &scratch) >
			    pr->o->cap_bytes)
				goto capped;
		}
	}
fits:
	if (span && e <= ehi && pre[e + 1] - pre[a] < span[1])
		span[1] = pre[e + 1] - pre[a];
	if (span && e > a && pre[e] - pre[a] > span[0])
		span[0] = pre[e] - pre[a];
	return e;
capped:
	/* the stage stops at mid for its memory, its compute under lim */
	if (span && pre[mid + 1] - pre[a] > span[0])
		span[0] = pre[mid + 1] - pre[a];
	return mid;
}

/*
 * Stage s = [a, e]'s cost as the programme works it out (its memory
 * apart): the same terms in the same order, so to the bit.
 */
static inline double
stage_cost_out(const struct part_run *pr, int s, int a, int e, double out)
{
	const struct chain *c = pr->c;
	const struct part_stage *ps = &pr->ps[s];
	int64_t params = c->pre_params[e + 1] - c->pre_params[a];
	int64_t eparams = c->pre_eparams ? c->pre_eparams[e + 1] -
						   c->pre_eparams[a]
					 : 0;
	double t, ar, out_t = 0;

	if (s < pr->g->d - 1)
		out_t = 2.0 * pr->g->v *
			cost_xfer_ms(out * pr->inv_t, ps->out_gb_s,
				     ps->out_lat_us);
	t = stage_terms(pr, s, a, e, out_t, params, eparams, &ar);
	if (s > 0)
		t += pr->out[a - 1] * ps->in_coef + ps->in_lat;
	return pr->add_ar ? t + ar : t > ar ? t : ar;
}

static double
stage_cost(const struct part_run *pr, int s, int a, int e)
{
	return stage_cost_out(pr, s, a, e, pr->out[e]);
}

/*
 * The last end in [elo, e] of stage s from a whose cost is T or less
 * (elo - 1 when none), its cost in *v.  Costs are not monotone in the
 * end (the transfer out depends on it): the ends are tried from e down.
 */
static inline int
last_within(const struct part_run *pr, int s, int a, int elo, int e,
	    double T, double *v)
{
	/* Then blocks of 8 ends whose every cost is over T are passed by at
	 * once: each term of the cost only grows with the end (pr->up,
	 * pr->lb_mono) but the transfer out, which grows with its bytes,
	 * so the cost at the block's first end with the least bytes of the
	 * block (the same terms in the same order, each no larger) is no
	 * more than any of its costs.  (resnext101: a stage's transfer out
	 * and reduction put a few dozen ends past the compute's last.) */
	int blocks = pr->up && pr->lb_mono, e1, j, stop;
	double least;

	/* the first two one by one (most stages end there) */
	for (stop = e - 1; e >= elo && e >= stop; e--)
		if ((*v = stage_cost(pr, s, a, e)) <= T)
			return e;
	while (e >= elo) {
		stop = elo;
		if (blocks && e - elo >= 8) {
			e1 = e - 7;
			for (least = pr->out[e], j = e1; j < e; j++)
				if (pr->out[j] < least)
					least = pr->out[j];
			if (stage_cost_out(pr, s, a, e1, least) > T) {
				e = e1 - 1;
				continue;
			}
			stop = e1;
		}
		for (; e >= stop; e--)
			if ((*v = stage_cost(pr, s, a, e)) <= T)
				return e;
	}
	return e;
}

/* Whether stage s = [a, e] fits in the memory cap. */
static int
mem_fits(const struct part_run *pr, int s, int a, int e)
{
	struct cost_mem mem;
	struct plan_stage scratch;
	int j;

	if (!capped_run(pr))
		return 1;
	if (pr->fast && pr->scr) {
		cost_mem_stage(pr->scr, pr->g, s);
		return !mem_over(pr, pr->scr, a, e);
	}
	mem = pr->mem0;
	cost_mem_stage(&mem, pr->g, s);
	if (pr->fast)
		return !mem_over(pr, &mem, a, e);
	for (j = a; j <= e; j++)
		cost_mem_add(&mem, pr->c, pr->g->k, j, pr->g->r);
	return (double)cost_mem_bytes(&mem, &scratch) <= pr->o->cap_bytes;
}

/*
 * A greedy partition under threshold T: each stage in turn ends as late
 * as its compute allows (one layer left for each stage after it) and
 * then as late as its cost allows, within the memory cap.  Returns its
 * cost (the slowest stage's, as the dynamic programme works it out) with
 * first[0..d), or INFINITY when it finds none.  A heuristic: it may miss
 * a partition under T, and any partition it finds bounds the optimum
 * (all part_solve() asks of it), so it works the cost out only where a
 * stage ends, and the memory once per stage unless that goes over.
 */
static double
greedy(const struct part_run *pr, double T, int *first)
{
	const double *pre = pr->pre;
	int L = pr->c->L, d = pr->g->d, s, a = 0, e, lo, hi, mid, len = 1;
	double worst = 0, v;

	for (s = 0; s < d; s++) {
		int ehi = s == d - 1 ? L - 1 : L - d + s;
		int elo = s == d - 1 ? L - 1 : a;

		/* compute only grows with the stage: the last end it
		 * allows, by bisection of the prefix sums (pr->up: from
		 * the previous stage's length, the same end) */
		if (pr->up && a <= ehi)
			lo = first_over_by(pre, a, ehi, T, a + len, 1) - 1;
		else
			for (lo = a - 1, hi = ehi; lo < hi;) {
				mid = hi - (hi - lo) / 2;
				if (pre[mid + 1] - pre[a] > T)
					hi = mid - 1;
				else
					lo = mid;
			}
		if (lo >= a)
			len = lo - a + 1;
		e = last_within(pr, s, a, elo, lo, T, &v);
		/* over the cap: no further than the memory allows */
		if (e >= elo && !mem_fits(pr, s, a, e))
			e = last_within(pr, s, a, elo,
					grow_end(pr, s, a, e, INFINITY, 0,
						 NULL, -1, -1) - 1,
					T, &v);
		if (e < elo)
			return INFINITY;
		if (v > worst)
			worst = v;
		first[s] = a;
		a = e + 1;
	}
	return worst;
}

/*
 * The greedy from the front of band(): each stage s as long as stage_lb()
 * and the memory cap allow under lim (hi[s] its last layer when hi is not
 * NULL).  Returns the first layer no stage takes (L when they take the
 * whole chain), or -1 when some stage cannot take a single layer.  Under
 * L no partition has every stage's cost within lim: each ends no later
 * than the greedy's (stage_lb() and memory only grow with the stage).
 */
static int
front(const struct part_run *pr, double lim, int *hi)
{
	int L = pr->c->L, d = pr->g->d, s, a, e, len = 0;

	for (s = 0, a = 0; s < d; s++) {
		/* guessed about as long as the stage before */
		e = grow_end(pr, s, a, s == d - 1 ? L - 1 : L - d + s, lim, 1,
			     NULL, -1, len > 0 ? a + len : -1);
		if (e == a)
			return -1;
		if (hi)
			hi[s] = e - 1;
		len = e - a;
		a = e;
	}
	return a;
}

/*
 * front() under lim, and whether that shows that no partition has every
 * stage's stage_lb() within lim and its memory within the cap: when
 * both only grow with the stage, each stage of such a partition ends no
 * later than the front's (a stage the front starts later than it does
 * can end no earlier than it: it is no longer), so the front's leaving
 * layers over shows it.  A stage that takes no layer shows nothing (*a
 * < 0): the stage of such a partition may end before the front's
 * starts, and the layer it cannot take go to a later stage, whose links
 * (and memory) differ.
 */
static int
none_within(const struct part_run *pr, double lim, int *hi, int *a)
{
	*a = front(pr, lim, hi);
	return *a >= 0 && *a != pr->c->L && pr->lb_mono &&
	       (!capped_run(pr) || (pr->fast && pr->mono));
}

/*
 * The band of (stage, last layer) states a partition whose stages all
 * cost at most cut can pass through: stage s ends in [lo[s], hi[s]].
 * Stage costs bounded from below by stage_lb() (and memory) only grow
 * with the stage, so the greedy from the front, each stage as long as
 * the bound allows, ends each stage as late as any such partition can,
 * and the greedy from the back starts each as early.  Returns -1 when
 * none_within() shows there is no such partition.  When one of the
 * greedy ones finds a stage that cannot take a single layer, there may
 * be such a partition all the same (none_within()): the band is then
 * every state.
 */
static int
band(const struct part_run *pr, double cut, int *lo, int *hi)
{
	const struct chain *c = pr->c;
	const struct cost_cfg *g = pr->g;
	int L = c->L, d = g->d, s, a, e, capped = capped_run(pr), len = 0;
	double lim = cut * (1 + 1e-9);

	if (none_within(pr, lim, hi, &a))
		return -1;
	if (a < 0)
		goto all;
	for (s = d - 1, e = L - 1; s >= 0; s--) {
		struct cost_mem mem = pr->mem0;
		struct plan_stage scratch;

		lo[s] = e;
		cost_mem_stage(&mem, g, s);
		if (pr->lb_mono && (!capped || (pr->fast && pr->mono &&
						mem.in_flight >= 0))) {
			/* both grow as the start comes down: the first
			 * start over either, bisected (s - 1: none) */
			int lo2 = s - 1, hi2 = e + 1, mid, step;
			int guess = e - len; /* as long as the stage after */

#define BAND_OVER(x) \
	(stage_lb(pr, s, (x), e) > lim || (capped && mem_over(pr, &mem, (x), e)))
			/* galloping from the guess first (pr->up: the same
			 * first start however it is searched), a few steps
			 * on a chain of equal blocks */
			if (pr->up && len > 0 && guess > s - 1 && guess <= e) {
				if (BAND_OVER(guess)) {
					for (lo2 = guess, step = 1;; step *= 2) {
						hi2 = lo2 + step;
						if (hi2 > e) {
							hi2 = e + 1;
							break;
						}
						if (!BAND_OVER(hi2))
							break;
						lo2 = hi2;
					}
				} else {
					for (hi2 = guess, step = 1;; step *= 2) {
						lo2 = hi2 - step;
						if (lo2 < s) {
							lo2 = s - 1;
							break;
						}
						if (BAND_OVER(lo2))
							break;
						hi2 = lo2;
					}
				}
			}
			while (hi2 - lo2 > 1) {
				mid = lo2 + (hi2 - lo2) / 2;
				if (BAND_OVER(mid))
					lo2 = mid;
				else
					hi2 = mid;
			}
#undef BAND_OVER
			a = lo2;
		} else {
			for (a = e; a >= s; a--) {
				if (capped && !pr->fast)
					cost_mem_add(&mem, c, g->k, a, g->r);
				if (stage_lb(pr, s, a, e) > lim ||
				    (capped &&
				     (pr->fast ? mem_over(pr, &mem, a, e)
					       : (double)cost_mem_bytes(
							 &mem, &scratch) >
							 pr->o->cap_bytes)))
					break;
			}
		}
		if (a == e)
			goto all;
		len = e - a;
		e = a;
	}
	return 0;
all:
	for (s = 0; s < d; s++) {
		lo[s] = s;
		hi[s] = s == d - 1 ? L - 1 : L - d + s;
	}
	return 0;
}

/*
 * grow_end() by compute alone: the first end from a that stage s cannot
 * take, with the limits that compare alike.  Compute only grows with the
 * stage, so a bisection of the prefix sums finds it, and the limits are
 * those of the ends on either side of it.
 */
static int
compute_end(const struct part_run *pr, int a, int ehi, double lim,
	    double *span, int guess)
{
	const double *pre = pr->pre;
	int lo = a - 1, hi = ehi + 1, mid;

	/* pre[e + 1] - pre[a] < lim up to lo, not from hi on */
	if (pr->up) {
		hi = first_over(pre, a, ehi, lim, guess);
		lo = hi - 1;
	}
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (pre[mid + 1] - pre[a] < lim)
			lo = mid;
		else
			hi = mid;
	}
	if (span && hi <= ehi && pre[hi + 1] - pre[a] < span[1])
		span[1] = pre[hi + 1] - pre[a];
	if (span && lo >= a && pre[lo + 1] - pre[a] > span[0])
		span[0] = pre[lo + 1] - pre[a];
	return hi;
}

/*
 * fits() where its greedy finds a stage that cannot take a single layer:
 * the states (stage, last layer) a partition with every stage computing
 * less than limit within the memory cap can reach, stage by stage, each
 * stage grown from each start the stage before can end at, its layers
 * added in order (as the programme adds them).  O(d L^2) memory checks
 * at most; the greedy is stuck only where a layer too heavy for one stage
 * index fits a later one (fewer microbatches in flight).
 */
static int
fits_states(struct part_run *pr, double limit)
{
	const struct chain *c = pr->c;
	const struct cost_cfg *g = pr->g;
	const double *pre = pr->pre;
	struct cost_mem mem;
	struct plan_stage scratch;
	int L = c->L, d = g->d, s, a, e, ok;
	/* reach[e]: some stage so far can end at layer e */
	char *reach = xcalloc((size_t)L, 1), *next = xcalloc((size_t)L, 1);

	for (s = 0; s < d; s++) {
		int ehi = s == d - 1 ? L - 1 : L - d + s;

		memset(next, 0, (size_t)L);
		for (a = s; a <= ehi; a++) {
			if (s > 0 && !reach[a - 1])
				continue;
			if (s == 0 && a > 0)
				break;
			mem = pr->mem0;
			cost_mem_stage(&mem, g, s);
			for (e = a; e <= ehi; e++) {
				if (!(pre[e + 1] - pre[a] < limit))
					break;
				cost_mem_add(&mem, c, g->k, e, g->r);
				if ((double)cost_mem_bytes(&mem, &scratch) >
				    pr->o->cap_bytes)
					break;
				next[e] = 1;
			}
		}
		memcpy(reach, next, (size_t)L);
	}
	ok = reach[L - 1];
	free(reach);
	free(next);
	return ok;
}

/*
 * Whether some partition has every stage computing less than limit within
 * the memory cap: what the bounded programme leaves (its bound prunes by
 * compute alone).  Compute and memory only grow with a stage, and memory
 * only shrinks with the stage's index, so the greedy from the front, each
 * stage as long as both allow (one layer left for each stage after it),
 * ends each stage as late as any partition can; the last stage is then
 * the shortest there is.  But a stage that cannot take its first layer
 * shows nothing: such a partition may put that layer in a later stage,
 * which holds fewer microbatches in flight, by ending the stages before
 * it earlier (fits_states() decides then; its answer holds for that
 * bound alone).  The same greedy by compute alone comes first:
 * a bisection a stage, it answers no for most bounds that leave nothing
 * (and for every bound its span gives: memory only shortens a stage).
 */
static int
fits(struct part_run *pr, double limit, double *span)
{
	const struct chain *c = pr->c;
	const struct cost_cfg *g = pr->g;
	int L = c->L, d = g->d, s, a, e, len = 0;
	double cspan[2] = {-INFINITY, INFINITY};
	/* the ends the greedy by compute alone took, for the greedy by
	 * memory where it starts a stage where that one did (pr->up) */
	int ends[256], keep = pr->up && d <= 256;

	for (s = 0, a = 0; s < d; s++) {
		e = compute_end(pr, a, s == d - 1 ? L - 1 : L - d + s, limit,
				cspan, a + len);
		if (keep)
			ends[s] = e;
		if (e == a)
			break;
		len = e - a;
		a = e;
	}
	/* Without a cap the greedy below takes the very stages this one
	 * took, comparing the same sums with the limit (compute only grows
	 * with the stage): the same answer and limits. */
	if (s < d || a != L || !capped_run(pr)) {
		if (span) {
			span[0] = cspan[0];
			span[1] = cspan[1];
		}
		return s == d && a == L;
	}
	for (s = 0, a = 0, len = 0; s < d; s++) {
		int ehi = s == d - 1 ? L - 1 : L - d + s, known = -1;

		/* compute alone ends the stage where it did above when it
		 * starts there, else about as long as the one before */
		if (keep && a == (s ? ends[s - 1] : 0))
			known = ends[s];
		else if (pr->up)
			known = first_over(pr->pre, a, ehi, limit, a + len);
		e = grow_end(pr, s, a, ehi, limit, 0, span, known,
			     len > 0 ? a + len : -1);
		if (e == a) {
			if (span) {
				span[0] = nextafter(limit, -INFINITY);
				span[1] = limit;
			}
			return fits_states(pr, limit);
		}
		len = e - a;
		a = e;
	}
	return a == L;
}

/*
 * Whether the chain splits into d stages (d <= L) each computing less
 * than lim, when the compute's prefix sums never go down (pr->up): by
 * the greedy from the front that leaves no layer for the stages after
 * it, each stage as long as it can be, which takes the fewest stages
 * there are (d or fewer: as many more as wanted by splitting, each part
 * computing no more than its stage).  Its answer is fits()'s greedy by
 * compute alone, which leaves a layer for each later stage: a stage a
 * layer or two long most often (a deep pipeline), where that one
 * gallops and bisects, the layers one by one first.
 */
static int
compute_fits(const struct part_run *pr, double lim)
{
	const double *pre = pr->pre;
	int L = pr->c->L, d = pr->g->d, a = 0, e, n = 0;

	while (a < L) {
		if (++n > d)
			return 0;
		for (e = a; e < L && e < a + 4 && pre[e + 1] - pre[a] < lim;
		     e++)
			;
		if (e == a + 4)
			e = first_over(pre, a, L - 1, lim, e);
		if (e == a)
			return 0;
		a = e;
	}
	return 1;
}

int
part_fits_span(const struct chain *c, const struct cost_opts *o,
	       const struct cost_cfg *g, double bound, double *lo,
	       double *hi)
{
	struct part_run pr;
	struct cost_mem scr_mem;
	struct part_ws *ws;
	double span[2] = {-INFINITY, INFINITY};
	int ok;

	if (g->d < 1 || g->d > c->L) {
		ok = 0;
		goto out;
	}
	memset(&pr, 0, sizeof(pr));
	pr.c = c;
	pr.o = o;
	pr.g = g;
	pr.pre = c->pre_t + ((size_t)g->k * PROF_RC_N + g->r) * (c->L + 1);
	pr.tpn = c->pre_tpn + ((size_t)g->k * PROF_RC_N + g->r) * (c->L + 1);
	pr.tpx = c->pre_tpx + ((size_t)g->k * PROF_RC_N + g->r) * (c->L + 1);
	cost_mem_init(&pr.mem0, c, o, g);
	scr_mem = pr.mem0;
	pr.scr = &scr_mem;
	ws = fits_ws();
	if (ws) {
		const struct part_mix *x = mix_get(ws, &pr);

		pr.up = x->up;
		mem_prep(x, &pr);
	}
	/* no span asked (part_fits()): most bounds it is asked under leave
	 * no partition by compute alone (GPT-3 175B on 1024 GPUs: 1,189 of
	 * 2,011), said by compute_fits() */
	if (!lo && !hi && pr.up && 4 * g->d >= c->L &&
	    !compute_fits(&pr, bound)) {
		ok = 0;
		goto out;
	}
	ok = fits(&pr, bound, span);
out:
	if (lo)
		*lo = span[0];
	if (hi)
		*hi = span[1];
	return ok;
}

/*
 * Every stage's cost_mem_bytes() is at least its parameters' weights and
 * state at rest (params x (weight + state), each term truncated to whole
 * bytes: less than a byte each), plus its stashes (in_flight x their sum,
 * truncated; in_flight, and in_flight_out of the layers outside the
 * blocks, no less than the least of both over the stages), plus the
 * runtime's context (the runtime bytes, truncated, when the allocator
 * margin adds nothing negative): the rest (the FSDP window, the routed
 * experts' shares, full recomputation's peak, workspace) adds bytes,
 * never takes them, when their factors are not negative (else this says
 * 0).  Offloaded, the stashes are two layers' and count nothing here.
 * So a stage needs at least A x params + F x stash + context, A = weight
 * + state, F = the least in_flight: some stage holds the layer for which
 * that is largest, and some at least the average over the d stages of
 * the chain's sum (the largest of d numbers is at least their mean); less
 * the truncations' 4 bytes and a relative hair for the rounding of the
 * products.
 */
double
part_mem_lb(const struct chain *c, const struct cost_opts *o,
	    const struct cost_cfg *g)
{
	struct cost_mem m;
	double a, f = INFINITY, big = 0, sum_p = 0, sum_x = 0, lb;
	double p_muon = 0;
	int j, s;

	if (g->d < 1 || g->d > c->L)
		return 0;
	cost_mem_init(&m, c, o, g);
	if (!(m.weight >= 0 && m.state >= 0 && m.context >= 0 &&
	      m.frag >= 0 && m.gather >= 0 && m.grad >= 0 &&
	      m.gather_blk >= 0 && m.eopt >= 0 && m.eweight >= 0 &&
	      m.eshare >= 0))
		return 0;
	for (s = 0; s < g->d; s++) {
		cost_mem_stage(&m, g, s);
		if (m.in_flight < f)
			f = m.in_flight;
		if (m.in_flight_out < f)
			f = m.in_flight_out;
	}
	if (!(f >= 0) || m.offload)
		f = 0;
	a = m.weight + m.state;
	for (j = 0; j < c->L; j++) {
		double p = (double)c->params[j];
		double x = CHAIN_AT(c, c->stash[g->r], g->k, j);
		double one;

		if (!(x >= 0))
			return 0;
		/* Muon's parameters keep 4 bytes less (the experts' share
		 * apart, which nets eshare (eopt - 4) >= 0 and is left
		 * out like the rest of it) */
		if (c->mparams && c->mparams[j])
			p_muon += m.mdelta * p;
		one = a * p + (c->mparams && c->mparams[j] ? m.mdelta * p : 0) +
		      f * x;
		/* a 16-bit block's weights (cost_w16()) */
		if (m.w16 != 0 && c->bf16[j]) {
			p_muon += m.w16 * (double)c->mparams[j];
			one += m.w16 * (double)c->mparams[j];
		}
		if (one > big)
			big = one;
		sum_p += p;
		sum_x += x;
	}
	lb = (a * sum_p + p_muon + f * sum_x) / g->d;
	if (big > lb)
		lb = big;
	/* each truncation to whole bytes (cost_mem_bytes()) a byte; the
	 * 16-bit blocks' weights one more */
	lb = (lb + m.context) * (1 - 1e-12) - (m.w16 != 0 ? 5 : 4);
	return lb > 0 ? lb : 0;
}

int
part_fits(const struct chain *c, const struct cost_opts *o,
	  const struct cost_cfg *g, double bound)
{
	return part_fits_span(c, o, g, bound, NULL, NULL);
}

/*
 * A lower bound of the optimum (the least, over partitions, of the
 * slowest stage's cost): at least the stages' average.  Their costs sum
 * the whole chain's compute, its tensor-parallel traffic at the least
 * rate of any stage, its per-layer sums (exactly when all stages share
 * one rate, else none), a transfer out and in at every boundary of at
 * least the smallest activation, and the gradients' synchronisation of
 * all parameters at the least rate, each stage's latency once (2BW: a
 * stage costs the larger of its time and its synchronisation, each then
 * averaged alone).  Needs pr->lb_mono: every term of a stage then a
 * difference of prefix sums that grow, or a count of parameters, times
 * a factor >= 0, so that taking the least factor of any stage under-
 * counts.  Cheap: O(L + d), against a greedy bisection and the
 * programme's band, which the caller's cut (cut_ms) spares when the
 * bound is over it.
 */
static double
part_lb(const struct part_run *pr)
{
	const struct chain *c = pr->c;
	const struct cost_cfg *g = pr->g;
	const struct part_stage *ps = pr->ps;
	int L = c->L, d = g->d, s, share = 1;
	double t = pr->pre[L] - pr->pre[0], ar = 0, minout = pr->minout;
	double tpc = INFINITY, tpl = INFINITY, arc = INFINITY, arec = INFINITY;
	int64_t params = c->pre_params[L] - c->pre_params[0];
	int64_t eparams = c->pre_eparams ? c->pre_eparams[L] -
						   c->pre_eparams[0]
					 : 0;

	for (s = 0; s < d; s++) {
		/* (lb_grows(): none is NAN) */
		if (ps[s].tp_coef < tpc)
			tpc = ps[s].tp_coef;
		if (ps[s].tp_lat < tpl)
			tpl = ps[s].tp_lat;
		if (ps[s].ar_coef < arc)
			arc = ps[s].ar_coef;
		if (ps[s].are_coef < arec)
			arec = ps[s].are_coef;
		ar += ps[s].ar_lat;
		share = share && ps[s].cpre == ps[0].cpre;
		if (s < d - 1)
			t += 2.0 * g->v * cost_xfer_ms(minout * pr->inv_t,
						       ps[s].out_gb_s,
						       ps[s].out_lat_us) +
			     minout * ps[s + 1].in_coef + ps[s + 1].in_lat;
	}
	if (g->t > 1)
		t += tpc * (pr->tpx[L] - pr->tpx[0]) +
		     tpl * (pr->tpn[L] - pr->tpn[0]);
	if (share && ps[0].cpre)
		t += ps[0].cpre[L] - ps[0].cpre[0];
	ar += (double)(params - eparams) * arc;
	if (eparams)
		ar += (double)eparams * arec;
	if (pr->add_ar)
		return (t + ar) / d;
	return (t > ar ? t : ar) / d;
}

/*
 * An upper bound of the optimum under limit: the cost of the best greedy
 * partition found by bisecting its threshold between the compute's share
 * per stage (a lower bound of the optimum) and limit.  INFINITY when no
 * greedy partition costs less than limit.
 */
static double
greedy_bound(const struct part_run *pr, double limit, int *first)
{
	double lo = pr->pre[pr->c->L] / pr->g->d, hi = INFINITY;
	double best = INFINITY;
	double step = 1.0 / 4, T;
	int i, fails, most;

	/* widen until a greedy partition is found */
	for (;;) {
		double v;

		T = lo * (1 + step);
		if (!(T < limit))
			T = limit;
		v = greedy(pr, T, first);
		if (v < best)
			best = v;
		if (isfinite(v)) {
			hi = v;
			break;
		}
		lo = T;
		if (!(T < limit) || step > 1e6)
			return best < limit ? best : INFINITY;
		step *= 2;
	}
	/* then narrow down between lo (no partition) and hi, until two
	 * thresholds in a row find none: the bound serves the band alone,
	 * and on chains of equal layers (GPT-3: 381 of 573 solves) no
	 * step of the four finds a better one.  A deep pipeline (4 d >= L,
	 * stages of a layer or a few) stops at the first: the greedy
	 * partition found first is most often the optimum there (GPT-3
	 * 175B's 2bw pipelines of 63 to 85 stages: 1.9 M instructions of
	 * greedy partitions that found nothing better). */
	most = 4 * pr->g->d >= pr->c->L ? 1 : 2;
	for (i = 0, fails = 0; i < 4 && fails < most && hi - lo > 1e-4 * hi;
	     i++) {
		double v;

		T = lo + (hi - lo) / 2;
		v = greedy(pr, T, first);
		if (isfinite(v)) {
			if (v < best)
				best = v;
			hi = v;
			fails = 0;
		} else {
			lo = T;
			fails++;
		}
	}
	return best < limit ? best : INFINITY;
}

/*
 * The first start from which stage [a, e] fits the memory cap (e + 1:
 * none), for the programme's scan of one stage's starts, end after end,
 * when memory only grows with the stage (pr->mono): it only moves up
 * with the end, so it is bisected once (from base, the scan's lowest
 * start) and then moved a start at a time, in place of a mem_over() at
 * every start the scan tries.  Worked out for an end when first asked.
 */
struct fit_from {
	int on;            /* used */
	int base;          /* the scan's lowest start */
	int e, amin;       /* amin for end e (e -1: none yet) */
	struct cost_mem m; /* the stage's constants */
};

static __attribute__((noinline)) int
fit_from(const struct part_run *pr, struct fit_from *ff, int e)
{
	int lo, hi, mid;

	if (ff->e == e)
		return ff->amin;
	if (ff->e < 0) {
		/* over the cap below the first start that fits */
		for (lo = ff->base - 1, hi = e + 1; hi - lo > 1;) {
			mid = lo + (hi - lo) / 2;
			if (mem_over(pr, &ff->m, mid, e))
				lo = mid;
			else
				hi = mid;
		}
		ff->amin = hi;
	} else {
		while (ff->amin <= e && mem_over(pr, &ff->m, ff->amin, e))
			ff->amin++;
	}
	ff->e = e;
	return ff->amin;
}

/*
 * The cost of stage s = [a, e] (s > 0) on the programme's path through
 * start a, as the programme works it out (mem holding the stage's
 * layers, or with pr->fast its constants alone; ff, when not NULL, its
 * memory checks; prow the previous stage's row), or INFINITY when the programme
 * would not take that start (over cut, or over the memory cap).
 */
static double
start_cost(const struct part_run *pr, const struct part_stage *ps, int s, int a,
	   int e, double out_t, struct cost_mem *mem, struct fit_from *ff,
	   double cut, const double *prow)
{
	const struct chain *c = pr->c;
	struct plan_stage scratch;
	double t, v, ar;

	t = pr->pre[e + 1] - pr->pre[a];
	if (t > cut)
		return INFINITY;
	if (pr->lite)
		t = stage_terms(pr, s, a, e, out_t,
				c->pre_params[e + 1] - c->pre_params[a],
				c->pre_eparams[e + 1] - c->pre_eparams[a], &ar);
	else
		t = stage_terms(pr, s, a, e, out_t, mem->params, mem->eparams,
				&ar);
	v = pr->add_ar ? t + ar : t > ar ? t : ar;
	if (v > cut)
		return INFINITY;
	if (capped_run(pr) &&
	    (ff		? a < fit_from(pr, ff, e)
	     : pr->fast ? mem_over(pr, mem, a, e)
			: (double)cost_mem_bytes(mem, &scratch) >
				  pr->o->cap_bytes))
		return INFINITY;
	t += pr->out[a - 1] * ps->in_coef + ps->in_lat;
	v = pr->add_ar ? t + ar : t > ar ? t : ar;
	return prow[a - 1] > v ? prow[a - 1] : v;
}

double
part_solve(struct part_ws *ws, const struct chain *c,
	   const struct cost_opts *o, const struct cost_cfg *g,
	   const struct place_links *l, enum part_mode mode, double bound,
	   int *first)
{
	int L = c->L, d = g->d, k = g->k, r = g->r, s, e, a, j;
	size_t need = (size_t)d * L;
	struct cost_mem mem0, mem, scr_mem;
	struct plan_stage scratch;
	struct part_run pr;
	const double *out = c->out + (size_t)k * L;
	const double *pre = c->pre_t + ((size_t)k * PROF_RC_N + r) * (L + 1);
	const double *tpn = c->pre_tpn + ((size_t)k * PROF_RC_N + r) * (L + 1);
	const double *tpx = c->pre_tpx + ((size_t)k * PROF_RC_N + r) * (L + 1);
	double inv_t = 1.0 / g->t;
	int add_ar = g->sched == PLAN_FLUSH || g->sched == PLAN_GPIPE;
	double limit = bound, cut = INFINITY;
	int timed = mode == PART_TIME && isfinite(bound);
	int prev_lo = 0, prev_hi = L - 1, whole;
	int capped = o->cap_bytes < INFINITY; /* capped_run()'s */
	int mix_whole = -1; /* the mix's whole, -1: unknown */
	const struct part_mix *mx;
	double avg = INFINITY; /* part_lb(), when asked */
	double *dp;
	int *arg;

	ws->pruned = 0;
	if (d < 1 || d > L)
		return INFINITY;
	cost_mem_init(&mem0, c, o, g);
	if (need > ws->alloc) {
		ws->dp = xrealloc(ws->dp, need * sizeof(double));
		ws->arg = xrealloc(ws->arg, need * sizeof(int));
		ws->alloc = need;
	}
	dp = ws->dp;
	arg = ws->arg;
	pr.c = c;
	pr.o = o;
	pr.g = g;
	pr.out = out;
	pr.pre = pre;
	pr.tpn = tpn;
	pr.tpx = tpx;
	pr.mem0 = mem0;
	scr_mem = mem0;
	pr.scr = &scr_mem;
	pr.inv_t = inv_t;
	pr.add_ar = add_ar;
	pr.fast = pr.mono = pr.lb_mono = pr.lite = pr.up = 0;
	/* stage_lb()'s transfers: the smallest activation's (PART_MEM
	 * asks no stage_lb()) */
	pr.minout = 0;
	mx = mode == PART_TIME ? mix_get(ws, &pr) : NULL;
	if (mx)
		pr.minout = mx->minout;
	stages_init(ws, c, o, g, l, pr.minout);
	pr.ps = ws->stg;
	if (mx) {
		pr.up = mx->up;
		mix_whole = mx->whole;
		pr.lb_mono = lb_grows(&pr, mx);
		if (!ws->no_fast_mem)
			mem_prep(mx, &pr);
	}
	pr.lite = mode == PART_TIME && (pr.fast || (!capped && c->pre_eparams));
	/*
	 * The caller wants nothing above cut_ms (three stages or more):
	 * with the optimum over it by more than the programme's hairs
	 * (the band's 1e-9; the bound's rounding), every path below says
	 * INFINITY too, only later.
	 */
	if (mode == PART_TIME && d >= 3 && !ws->no_greedy &&
	    !ws->no_lb && ws->cut_ms > 0 && pr.lb_mono) {
		avg = part_lb(&pr);
		if (avg * (1 - 1e-9) > ws->cut_ms * (1 + 1e-6)) {
			ws->pruned = 1;
			return INFINITY;
		}
	}
	/* With three stages or more (two: the programme is one scan), a
	 * greedy partition under the limit bounds the search from above:
	 * every state left out costs more than it, so the optimum, its ties
	 * and its partition are the plain programme's, and the result is
	 * the unbounded one, nothing left out for the bound. */
	if (mode == PART_TIME && d >= 3 && !ws->no_greedy) {
		double u;

		/* Under a bound: with no partition left the answer is
		 * INFINITY; with some, the unbounded one serves (below the
		 * bound it is the answer, above it is no better than the
		 * best left, and it is what the caller needs then). */
		if (timed && !ws->fits_known && !fits(&pr, limit, NULL)) {
			ws->pruned = 1;
			return INFINITY;
		}
		/*
		 * The caller wants nothing above cut_ms: with no partition
		 * whose stages' stage_lb() (no more than their costs, to a
		 * hair for the rounding) are all within it, the greedy below
		 * finds none under it and band() of it says so after it:
		 * said at once, not after the greedy's threshold widened to
		 * the cut in vain (GPT-3 175B on 1024 GPUs: a third of its
		 * solves, mostly a second placement that cannot beat the
		 * first).  Asked where the stages' average cost (avg, when
		 * known) is three quarters of the cut or more: below, the
		 * cut has so far always left room for a partition
		 * (resnext101's solves), and the front is work lost.
		 */
		if (ws->cut_ms > 0 && pr.lb_mono && avg >= 0.75 * ws->cut_ms &&
		    none_within(&pr, ws->cut_ms * (1 + 1e-9), NULL, &e)) {
			ws->pruned = 1;
			return INFINITY;
		}
		u = greedy_bound(&pr, ws->cut_ms > 0 ? ws->cut_ms : INFINITY,
				 ws->iscr);
		/* The caller wants nothing above cut_ms: with no greedy
		 * partition under it, it bounds the optimum the same way
		 * when that is under it (and else nothing is wanted). */
		if (!isfinite(u) && ws->cut_ms > 0)
			u = ws->cut_ms;
		if (isfinite(u) &&
		    band(&pr, u * (1 + 1e-9), ws->iscr + d, ws->iscr + 2 * d) ==
			    0) {
			/* a hair above: every term of a stage's cost the
			 * programme sums in the same order, the hair is for
			 * safety alone */
			cut = u * (1 + 1e-9);
			timed = 0;
			limit = INFINITY;
		} else if (u == ws->cut_ms) {
			/* some stage of every partition costs more */
			ws->pruned = 1;
			return INFINITY;
		}
	}
	/*
	 * Whether a stage's stashes add up to one sum in any order (whole
	 * bytes, all of them together below 2^53) and it gathers no FSDP
	 * window (a sum of products): then every term of a stage's memory
	 * comes out the same whatever order its layers are added in, and
	 * under the greedy bound the layers after the previous stage's
	 * last state (which no start there can follow: the scan passes
	 * them by) are added once per end below, not once per end and
	 * start.
	 */
	whole = isfinite(cut) && mem0.gather <= 0;
	if (whole && !pr.fast && mix_whole >= 0) /* mem_prep() found them
						     whole, else mix_get() */
		whole = mix_whole;
	else if (whole && !pr.fast) {
		double sum = 0;

		for (j = 0; whole && j < L; j++) {
			double x = CHAIN_AT(c, c->stash[r], k, j);

			whole = x >= 0 && x == floor(x);
			sum += x;
		}
		whole = whole && sum < 9007199254740992.0;
	}
	for (s = 0; s < d; s++) {
		const struct part_stage *ps = &ws->stg[s];
		int elo = s, ehi = L - d + s, any = 0, lo = -1, hi = -1;
		double *row = dp + (size_t)s * L;
		/* the layers [pass, e] no start of stage s follows */
		int pass = prev_hi + 2;
		struct cost_mem passed;
		/* with memory that only grows, the scan's memory checks
		 * (fit_from()) */
		struct fit_from ff;
		int by_ff, skip_prev;

		if (s == d - 1)
			elo = L - 1; /* only the whole chain matters */
		/* Under the greedy bound the stage starts after a state of
		 * the previous one that can stay under it. */
		if (isfinite(cut)) {
			if (s > 0 && elo < prev_lo + 1)
				elo = prev_lo + 1;
			if (elo < ws->iscr[d + s])
				elo = ws->iscr[d + s];
			if (ehi > ws->iscr[2 * d + s])
				ehi = ws->iscr[2 * d + s];
		}
		/* The layers after e go to d - 1 - s stages, each computing
		 * less than the limit: ends that leave more compute than that
		 * lead to no partition under it (a hair of room for the
		 * rounding of the prefix sums). */
		while (s < d - 1 && timed && elo < ehi &&
		       pre[L] - pre[elo + 1] >=
			       (d - 1 - s) * limit * (1 + 1e-9)) {
			ws->pruned = 1;
			row[elo] = INFINITY;
			arg[(size_t)s * L + elo] = -1;
			elo++;
		}
		/* Likewise the layers up to e go to s + 1 stages. */
		while (timed && ehi > elo &&
		       pre[ehi + 1] >= (s + 1) * limit * (1 + 1e-9)) {
			ws->pruned = 1;
			row[ehi] = INFINITY;
			arg[(size_t)s * L + ehi] = -1;
			ehi--;
		}
		/* The same under the greedy bound, for more than it. */
		while (s < d - 1 && elo < ehi &&
		       pre[L] - pre[elo + 1] > (d - 1 - s) * cut * (1 + 1e-9))
			elo++;
		while (ehi > elo && pre[ehi + 1] > (s + 1) * cut * (1 + 1e-9))
			ehi--;
		/* Stage 0 starts at layer 0: its memory for [0, e] extends
		 * that for [0, e - 1]. */
		cost_mem_stage(&mem0, g, s);
		ff.on = capped && pr.fast && pr.mono && mem0.in_flight >= 0;
		if (ff.on)
			ff.m = mem0;
		by_ff = ff.on; /* in a register: ff's address is taken */
		/*
		 * Under the greedy bound a start whose previous stage alone
		 * costs the best so far or more cannot better it (nor tie:
		 * a tie keeps the later start): the scan passes it by,
		 * where what it would have stopped at there stops every
		 * start below it too (the stage's cost so far, memory, only
		 * grow as it does: lb_mono, up, memory by fit_from() or no
		 * cap), so that only states over the bound, which no
		 * partition under it passes through, can come out
		 * otherwise.
		 */
		skip_prev = isfinite(cut) && s > 0 && pr.lb_mono && pr.up &&
			    (!capped || by_ff);
		ff.e = -1;
		ff.amin = -1;
		ff.base = s == 0 ? 0 : isfinite(cut) ? prev_lo + 1 : s;
		/* with pr.fast mem_over() works out the memory, from the
		 * stage's constants alone: no layer is added */
		for (a = 0; !pr.lite && s == 0 && a < elo; a++)
			cost_mem_add(&mem0, c, k, a, r);
		/* lite: mem holds the stage's constants throughout */
		mem = mem0;
		if (!pr.lite)
			passed = mem0;
		for (a = pass; !pr.lite && s > 0 && whole && a < elo; a++)
			cost_mem_add(&passed, c, k, a, r);
		for (e = elo; e <= ehi; e++) {
			double best = INFINITY, out_t = 0, seed = INFINITY;
			int besta = -1, alo = s, atop = e, sa;

			if (s < d - 1)
				out_t = 2.0 * g->v *
					cost_xfer_ms(out[e] * inv_t,
						     ps->out_gb_s,
						     ps->out_lat_us);
			if (s == 0) {
				alo = e;
				if (!pr.lite) {
					cost_mem_add(&mem0, c, k, e, r);
					mem = mem0;
				}
			} else {
				if (!pr.lite) /* the stage's constants, no layer */
					mem = mem0;
				if (isfinite(cut))
					alo = prev_lo + 1;
			}
			/* The starts in [pass, e] the scan would pass by,
			 * unless their compute goes over cut first (it only
			 * grows as the start comes down): at once. */
			if (s > 0 && whole && e >= pass) {
				if (!pr.lite)
					cost_mem_add(&passed, c, k, e, r);
				if (pre[e + 1] - pre[pass] > cut)
					atop = -1; /* the scan stops there */
				else {
					if (!pr.lite)
						mem = passed;
					atop = pass - 1;
				}
			}
			/*
			 * A seed: the cost through the start the previous
			 * end took, an upper bound of the best here.  A
			 * start whose previous stage alone costs more can
			 * be neither the best nor tie with it: the scan adds
			 * its layer and goes on without working its stage
			 * out (the tests it skips, memory and cut, only grow
			 * as the stage does: the next start it works out
			 * makes them).  Needs the memory whatever order the
			 * layers come in (whole).
			 */
			sa = s > 0 && whole && e > elo
				 ? arg[(size_t)s * L + e - 1]
				 : -1;
			if (sa >= alo && sa <= atop && pr.lite) {
				seed = start_cost(&pr, ps, s, sa, e, out_t, &mem,
						  ff.on ? &ff : NULL, cut,
						  row - L);
			} else if (sa >= alo && sa <= atop) {
				struct cost_mem sm = mem;

				for (j = atop; j >= sa; j--)
					cost_mem_add(&sm, c, k, j, r);
				seed = start_cost(&pr, ps, s, sa, e, out_t, &sm,
						  ff.on ? &ff : NULL, cut,
						  row - L);
			}
			/*
			 * The scan below for PART_TIME with no layers kept
			 * in its memory (lite), stage 1 on: the same tests in
			 * the same order, what every start shares hoisted
			 * (the resnext101 search's 166,000 starts).
			 */
			if (mode == PART_TIME && pr.lite && s > 0) {
				const double pe1 = pre[e + 1];
				const int64_t pp1 = c->pre_params[e + 1];
				const int64_t ep1 = c->pre_eparams[e + 1];
				/* prow[a]: the previous stage ending at a - 1 */
				const double *prow = row - L - 1;
				const double seedc = isfinite(seed) ? seed
								    : INFINITY;
				const int askip = isfinite(cut) ? prev_hi + 1
								: INT_MAX;

				for (a = atop; a >= alo; a--) {
					double t = pe1 - pre[a], v, ar, pv;

					if (t >= best || t > cut)
						break;
					if (t >= limit) {
						ws->pruned = 1;
						break;
					}
					if (a > askip)
						continue;
					pv = prow[a];
					if (pv > seedc || (skip_prev && pv >= best))
						continue;
					t = stage_terms(&pr, s, a, e, out_t,
							pp1 - c->pre_params[a],
							ep1 - c->pre_eparams[a],
							&ar);
					v = add_ar ? t + ar : t > ar ? t : ar;
					if (v >= best || v > cut)
						break;
					/* lite under a cap: pr.fast */
					if (capped &&
					    (by_ff ? a < (ff.e == e ? ff.amin
								   : fit_from(&pr, &ff,
									      e))
						   : mem_over(&pr, &mem, a, e)))
						break;
					t += out[a - 1] * ps->in_coef + ps->in_lat;
					v = add_ar ? t + ar : t > ar ? t : ar;
					if (pv > v)
						v = pv;
					if (v < best) {
						best = v;
						besta = a;
					}
				}
				alo = atop + 1; /* the scan below: none */
			}
			for (a = atop; a >= alo; a--) {
				double mb, t, v;
				int64_t params, eparams;

				if (s == 0)
					a = 0;
				if (pr.lite) {
					params = c->pre_params[e + 1] -
						 c->pre_params[a];
					eparams = c->pre_eparams[e + 1] -
						  c->pre_eparams[a];
				} else {
					if (s > 0)
						cost_mem_add(&mem, c, k, a, r);
					params = mem.params;
					eparams = mem.eparams;
				}
				if (mode == PART_MEM) {
					/* a longer stage only needs more */
					mb = (double)cost_mem_bytes(&mem,
								    &scratch);
					if (mb >= best || mb >= limit)
						break;
					v = mb;
				} else {
					double ar;

					/* Compute alone is a lower bound of
					 * the stage's time per microbatch
					 * that longer stages only raise: it
					 * is what the bound prunes (the
					 * rest, the all-reduce above all,
					 * is not paid per microbatch). */
					t = pre[e + 1] - pre[a];
					if (t >= best || t > cut)
						break;
					if (t >= limit) {
						ws->pruned = 1;
						break;
					}
					/* no state of the previous stage
					 * under the greedy bound ends here */
					if (isfinite(cut) && s > 0 &&
					    a - 1 > prev_hi)
						continue;
					if (isfinite(seed) &&
					    row[(ptrdiff_t)a - 1 - L] > seed)
						continue;
					if (skip_prev &&
					    row[(ptrdiff_t)a - 1 - L] >= best)
						continue;
					t = stage_terms(&pr, s, a, e, out_t,
							params, eparams, &ar);
					/* every term so far only grows with
					 * the stage (the incoming transfer
					 * below depends on where it starts):
					 * a lower bound of v here and for
					 * every longer stage */
					v = add_ar ? t + ar : t > ar ? t : ar;
					if (v >= best || v > cut)
						break;
					/* cost_stage_mem()'s sum, the final
					 * check's (after the cheaper tests) */
					if (capped &&
					    (by_ff ? a < (ff.e == e ? ff.amin
								   : fit_from(&pr, &ff,
									      e))
					     : pr.fast ? mem_over(&pr, &mem, a,
								  e)
						       : (double)cost_mem_bytes(
								 &mem,
								 &scratch) >
							 o->cap_bytes))
						break;
					if (s > 0)
						t += out[a - 1] * ps->in_coef +
						     ps->in_lat;
					if (add_ar)
						v = t + ar;
					else
						v = t > ar ? t : ar;
				}
				if (s > 0 && row[(ptrdiff_t)a - 1 - L] > v)
					v = row[(ptrdiff_t)a - 1 - L];
				if (v < best) {
					best = v;
					besta = a;
				}
			}
			row[e] = best;
			arg[(size_t)s * L + e] = besta;
			if (mode == PART_MEM ? best < limit : isfinite(best))
				any = 1;
			if (best <= cut) {
				if (lo < 0)
					lo = e;
				hi = e;
			}
		}
		/* No prefix of stages can stay under the bound: give up. */
		if (!any) {
			ws->pruned |= timed;
			return INFINITY;
		}
		/* Nor under the caller's cut: every partition costs more
		 * (and the next stage would have no start to follow).  Under
		 * the greedy bound alone some state is always at or under
		 * it, the greedy partition's. */
		if (ws->cut_ms > 0 && lo < 0) {
			ws->pruned = 1;
			return INFINITY;
		}
		prev_lo = lo;
		prev_hi = hi;
	}
	if (!isfinite(dp[(size_t)(d - 1) * L + L - 1]))
		return INFINITY;
	/* Over the caller's cut the states left out may hide the optimum
	 * (each state's cost is cut before its incoming transfer): what
	 * is left is no answer.  At or under it, it is the optimum. */
	if (ws->cut_ms > 0 && dp[(size_t)(d - 1) * L + L - 1] > cut) {
		ws->pruned = 1;
		return INFINITY;
	}
	e = L - 1;
	for (s = d - 1; s >= 0; s--) {
		first[s] = arg[(size_t)s * L + e];
		e = first[s] - 1;
	}
	return dp[(size_t)(d - 1) * L + L - 1];
}
