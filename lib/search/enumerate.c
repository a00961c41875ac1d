/*
 * enumerate.c - every candidate configuration and its lower bound: the
 * templates of a group's checks (tmpl_build()), the closed-form and the
 * simulation's bounds (cand_lb(), cand_sim_lb()), the floors that turn
 * whole groups away, and search_enumerate(), which hands them to a visit.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search_int.h"

/*
 * Per chain and (microbatch, recomputation): the slowest single layer at
 * [0], the whole chain's time at [1] ([c->nmb * PROF_RC_N][2]), what
 * every candidate's lower bound reads.
 */
static double *
max_layers(const struct chain *c)
{
	double *maxl = xcalloc((size_t)c->nmb * PROF_RC_N * 2, sizeof(double));
	int k, r, j;

	for (k = 0; k < c->nmb; k++)
		for (r = 0; r < PROF_RC_N; r++) {
			double *x = maxl + 2 * (k * PROF_RC_N + r);

			for (j = 0; j < c->L; j++) {
				double t = chain_time(c, k, r, j, j);

				if (t > x[0])
					x[0] = t;
			}
			x[1] = chain_time(c, k, r, 0, c->L - 1);
		}
	return maxl;
}

/* max_layers(c), from the memo when it has one (*own NULL), else into
 * *own, the caller's to free. */
static const double *
maxl_of(const struct search_opts *so, const struct chain *c, double **own)
{
	struct search_memo *m = so->memo;
	int i;

	*own = NULL;
	if (!m || !c->id)
		return *own = max_layers(c);
	for (i = 0; i < m->nmaxl; i++)
		if (m->maxl[i].id == c->id)
			return m->maxl[i].maxl;
	m->maxl = xrealloc(m->maxl, (size_t)(m->nmaxl + 1) * sizeof(*m->maxl));
	m->maxl[m->nmaxl].id = c->id;
	m->maxl[m->nmaxl].maxl = max_layers(c);
	return m->maxl[m->nmaxl++].maxl;
}

/*
 * What the checks that read neither the microbatch size nor m say of one
 * (recomputation, interleaving, ZeRO stage, offload) of a group (chain,
 * schedule, d, w): a candidate, screened out by memory, or skipped for a
 * runtime's reason.  An entry with v > 1 counts only where d divides m.
 */
enum tmpl_kind { TMPL_CAND, TMPL_SCREENED, TMPL_SKIP_SHARD, TMPL_SKIP_RT };

struct tmpl_entry {
	int r, v, zero, shard, offload;
	enum tmpl_kind kind;
	int rvi; /* a candidate's: the index of its (r, v) in the rv */
};

/* One (recomputation, interleaving) of a group's candidates and how many
 * candidates share it (their lower bounds are equal). */
struct tmpl_rv {
	int r, v, n;
};

struct tmpl {
	struct tmpl_entry e[PROF_RC_N * SEARCH_MAX_V * 8];
	struct tmpl_rv rv[PROF_RC_N * SEARCH_MAX_V];
	int n, nrv;
	long screened[2], skipped[2]; /* [v > 1] */
	/*
	 * The entries of (chain sk_ti, sk_sched, sk_d) before the memory
	 * screen (its candidates TMPL_CAND), sk_n of them (-1: none kept),
	 * P and Pm the chain's parameters as tmpl_build() reads them: with
	 * w c > 1, no shard group and no experts nothing else the checks
	 * read depends on the width, so the widths of a depth screen these
	 * by their own bytes (tmpl_screen()) instead of checking anew.
	 */
	struct tmpl_entry sk[PROF_RC_N * SEARCH_MAX_V * 8];
	int sk_n, sk_ti, sk_sched, sk_d;
	double sk_P, sk_Pm, sk_P16;
	/*
	 * What tmpl_screen() read at the last width: whether ZeRO was
	 * left out for one rank (scr_one) and by z the screen's verdicts
	 * (bit z of scr) on the z of sk's candidates (sk_z); scr_ok: e,
	 * rv and the counts are still those it built from them (not
	 * plain).  The bytes of the z of ZeRO stage 0 (pz, bit z of pz_ok),
	 * which read no width: kept with sk.
	 */
	int sk_z, scr_ok, scr_one, scr, pz_ok;
	double pz[2];
	int moe_ti, moe; /* whether chain moe_ti has experts (-1: none) */
	/* tmpl_sums()'s, by whether interleaving is allowed ([vok]): the
	 * candidates, the most interleaving among them and the mask of
	 * their recomputations as lb_rc() counts them (bit rb) */
	long cnt[2];
	int vmax[2], rbmask[2];
	/* runtime_check()'s answers for (chain ck_ti, ck_sched, ck_d),
	 * which read no width, by recomputation, interleaving and ZeRO
	 * stage (-1: not asked yet): the widths of a depth ask once */
	int ck_ti, ck_sched, ck_d;
	signed char ck[PROF_RC_N][SEARCH_MAX_V][4];
	/* the z (ZeRO stage z >> 1, offload z & 1) the masks let through,
	 * in order, nz of them: set with ck_ti */
	int zl[8], nz;
};


/* The bytes of P parameters (Pm of them Muon's) that a rank of the group
 * (sched, w, d, cp, ep) holds under ZeRO stage zero, shard group shard
 * and optimizer offload off: what the templates' memory screen reads. */
static double
tmpl_param_bytes(const struct cost_opts *o, int sched, int w, int d, int cp,
		 int ep, int zero, int shard, int off, double P, double Pm,
		 double P16)
{
	struct cost_cfg g;

	memset(&g, 0, sizeof(g));
	g.sched = sched;
	g.w = w;
	g.d = d;
	g.c = cp;
	g.e = ep;
	g.zero = zero;
	g.shard = shard;
	g.offload = off;
	return P * cost_param_bytes(o, &g) + Pm * cost_muon_delta(o, &g) +
	       (P16 > 0 ? P16 * cost_w16(o, &g) : 0);
}

/*
 * The template of the group (chain ti, sched, d, w) into tp: every check
 * add_cands() made per candidate, in its order (recomputation, then
 * interleaving, then ZeRO stage and offload).
 */
static void
tmpl_check(const struct search_chain *sc, int ti, const struct cost_opts *o,
	   const struct search_opts *so, int sched, int d, int w, int screen,
	   struct tmpl *tp)
{
	const struct chain *c = sc[ti].c;
	int cp = sc[ti].cp > 1 ? sc[ti].cp : 1;
	int ep = sc[ti].ep > 1 ? sc[ti].ep : 1;
	int etp = sc[ti].etp > 0 ? sc[ti].etp : sc[ti].t;
	double P = (double)chain_params(c, 0, c->L - 1), ns, nse;
	/* the parameters Muon manages keep less (cost_muon_delta()) */
	double Pm = (double)chain_muon(c, 0, c->L - 1, &ns, &nse);
	double P16 = (double)chain_m16(c, 0, c->L - 1);
	const struct runtime *rt = cost_runtime(o, sched, d);
	double pbz[8]; /* the bytes of all parameters by z, which alone
			  they read */
	int r, vi, z, zi, have = 0;
	/* the checks that read neither the width nor the candidate's
	 * recomputation, interleaving, ZeRO stage or offload, once */
	int bad_every = cost_every_on(o) && runtime_check_every(rt, NULL, 0);
	/* runtime_check_ep() judges every mixture of experts, with expert
	 * parallelism or without (DeepSpeed-MoE's ZeRO rule) */
	int moe = ep > 1 || chain_eparams(c, 0, c->L - 1) > 0;
	int fp8r = o->fp8_recipe >= 0 ? o->fp8_recipe : rt->fp8_recipe;
	int bad_all = runtime_check_train(rt, o->precision, fp8r,
					  o->bf16_most, o->mixed, o->optimizer,
					  NULL, 0) ||
		      runtime_check_par(rt, cp, ep, NULL, 0) ||
		      runtime_check_bf16(rt, o->bf16_most, c->nblocks, d,
					 NULL, 0);

	tp->scr_ok = 0; /* e, rv and the counts change below */
	if (tp->ck_ti < 0)
		for (tp->nz = z = 0; z < 8; z++)
			if ((so->zero_mask & (1u << (z >> 1))) &&
			    (so->offload_mask & (1u << (z & 1))))
				tp->zl[tp->nz++] = z;
	if (tp->ck_ti != ti || tp->ck_sched != sched || tp->ck_d != d) {
		memset(tp->ck, -1, sizeof(tp->ck));
		tp->ck_ti = ti;
		tp->ck_sched = sched;
		tp->ck_d = d;
	}
	tp->n = tp->nrv = 0;
	tp->screened[0] = tp->screened[1] = 0;
	tp->skipped[0] = tp->skipped[1] = 0;
	for (r = 0; r < PROF_RC_N; r++) {
		if (so->fix_rc >= 0 ? r != so->fix_rc
				    : !(so->rc_mask & (1u << r)))
			continue;
		for (vi = 0; vi < so->nv; vi++) {
			int iv = so->v[vi], ncand = 0;

			/* Interleaving is a flush schedule with d > 1 whose
			 * microbatches come in groups of d (Megatron): the
			 * last, d | m, is the group's visit's to check. */
			if (iv > 1 &&
			    (sched != PLAN_FLUSH || d == 1 || iv * d > c->L))
				continue;
			for (zi = 0; zi < tp->nz; zi++) {
				struct tmpl_entry *e = &tp->e[tp->n];
				int zs, off, sh = 0;

				z = tp->zl[zi];
				zs = z >> 1;
				off = z & 1;
				if (zs && w * cp == 1 && (so->zero_mask & 1))
					continue;
				e->r = r;
				e->v = iv;
				e->zero = zs;
				e->offload = off;
				/* HSDP: a shard group smaller than the data x
				 * context ranks, that divides them */
				if (zs >= 2 && so->shard > 0 &&
				    so->shard < w * cp) {
					if ((w * cp) % so->shard) {
						e->kind = TMPL_SKIP_SHARD;
						e->shard = 0;
						tp->skipped[iv > 1]++;
						tp->n++;
						continue;
					}
					sh = so->shard;
				}
				e->shard = sh;
				if (tp->ck[r][vi][zs] < 0)
					tp->ck[r][vi][zs] = runtime_check(
						rt, sched, d, sc[ti].t, iv, zs,
						r, NULL, 0) != 0;
				/* runtime_check_shard() finds nothing to
				 * refuse without a shard group or offload */
				if (tp->ck[r][vi][zs] ||
				    ((sh > 0 || off) &&
				     runtime_check_shard(rt, d, zs, sh, off, r,
							 NULL, 0)))
					continue;
				/* and runtime_check_ep() none without
				 * experts */
				if ((r == PROF_RC_FULL && bad_every) ||
				    bad_all ||
				    (moe &&
				     runtime_check_ep(rt, w, cp, sc[ti].t, etp,
						      ep, zs, sh, NULL, 0))) {
					e->kind = TMPL_SKIP_RT;
					tp->skipped[iv > 1]++;
					tp->n++;
					continue;
				}
				if (!screen) {
					e->kind = TMPL_CAND;
					tp->n++;
					continue;
				}
				if (!(have & (1 << z))) {
					pbz[z] = tmpl_param_bytes(o, sched, w, d,
								  cp, ep, zs, sh,
								  off, P, Pm,
								  P16);
					have |= 1 << z;
				}
				if (pbz[z] / d > o->cap_bytes &&
				    !(so->fix_w > 0 && so->fix_d > 0)) {
					e->kind = TMPL_SCREENED;
					tp->screened[iv > 1]++;
					tp->n++;
					continue;
				}
				e->kind = TMPL_CAND;
				e->rvi = tp->nrv; /* the rv this (r, v) adds */
				tp->n++;
				ncand++;
			}
			if (ncand) {
				tp->rv[tp->nrv].r = r;
				tp->rv[tp->nrv].v = iv;
				tp->rv[tp->nrv].n = ncand;
				tp->nrv++;
			}
		}
	}
}

/*
 * tmpl_check()'s memory screen of the entries kept in tp->sk, at width w:
 * the same template as tmpl_check() with the screen on builds, when the
 * width reads nothing else (tmpl_build()).  Returns 0 when that is the
 * template tp holds already, 1 when it built it anew.
 */
static int
tmpl_screen(const struct search_chain *sc, int ti, const struct cost_opts *o,
	    const struct search_opts *so, int sched, int d, int w,
	    struct tmpl *tp)
{
	int cp = sc[ti].cp > 1 ? sc[ti].cp : 1;
	int ep = sc[ti].ep > 1 ? sc[ti].ep : 1;
	int fix = so->fix_w > 0 && so->fix_d > 0, i, z, have, scr = 0;
	/* tmpl_check()'s first check, the one that reads w c: one rank
	 * leaves ZeRO out when plain data parallelism is allowed */
	int one = w * cp == 1 && (so->zero_mask & 1);
	double pbz[8]; /* as tmpl_check()'s */

	/* the verdicts first: the z of ZeRO stage 0 (z < 2) read no
	 * width (no shard group, no division by the ranks) */
	have = one ? tp->sk_z & 3 : tp->sk_z;
	for (z = 0; z < 8; z++) {
		if (!(have & (1 << z)))
			continue;
		if (z < 2 && (tp->pz_ok & (1 << z))) {
			pbz[z] = tp->pz[z];
		} else {
			pbz[z] = tmpl_param_bytes(o, sched, w, d, cp, ep,
						  z >> 1, 0, z & 1, tp->sk_P,
						  tp->sk_Pm, tp->sk_P16);
			if (z < 2) {
				tp->pz[z] = pbz[z];
				tp->pz_ok |= 1 << z;
			}
		}
		if (pbz[z] / d > o->cap_bytes && !fix)
			scr |= 1 << z;
	}
	/* the template of the last width, when it read the same (GPT-3
	 * 175B on 1024 GPUs: 7,591 widths of 12,359) */
	if (tp->scr_ok && tp->scr_one == one && tp->scr == scr)
		return 0;
	tp->scr_ok = 1;
	tp->scr_one = one;
	tp->scr = scr;
	tp->n = tp->nrv = 0;
	tp->screened[0] = tp->screened[1] = 0;
	tp->skipped[0] = tp->skipped[1] = 0;
	for (i = 0; i < tp->sk_n; i++) {
		struct tmpl_entry *e;
		struct tmpl_rv *rv;

		if (one && tp->sk[i].zero)
			continue;
		e = &tp->e[tp->n++];
		*e = tp->sk[i];
		if (e->kind != TMPL_CAND) {
			tp->skipped[e->v > 1]++;
			continue;
		}
		z = e->zero << 1 | e->offload;
		if (scr & (1 << z)) {
			e->kind = TMPL_SCREENED;
			tp->screened[e->v > 1]++;
			continue;
		}
		/* an (r, v)'s entries are consecutive, in tmpl_check()'s
		 * order of its rv */
		rv = tp->nrv ? &tp->rv[tp->nrv - 1] : NULL;
		if (!rv || rv->r != e->r || rv->v != e->v) {
			rv = &tp->rv[tp->nrv++];
			rv->r = e->r;
			rv->v = e->v;
			rv->n = 0;
		}
		rv->n++;
		e->rvi = (int)(rv - tp->rv);
	}
	return 1;
}

/*
 * The template of the group (chain ti, sched, d, w) into tp, as
 * tmpl_check() with its screen builds it: from the entries kept for the
 * chain, schedule and depth when the width reads nothing but the
 * screen and ZeRO's rule for one rank (no shard group, whose division
 * reads it; no experts, whose checks read it).
 */
static int
tmpl_build(const struct search_chain *sc, int ti, const struct cost_opts *o,
	   const struct search_opts *so, int sched, int d, int w,
	   struct tmpl *tp)
{
	const struct chain *c = sc[ti].c;
	double ns, nse;
	int i;

	if (tp->moe_ti != ti) {
		tp->moe_ti = ti;
		tp->moe = sc[ti].ep > 1 || chain_eparams(c, 0, c->L - 1) > 0;
	}
	if (so->shard > 0 || tp->moe || so->plain) {
		tmpl_check(sc, ti, o, so, sched, d, w, 1, tp);
		return 1;
	}
	if (tp->sk_n < 0 || tp->sk_ti != ti || tp->sk_sched != sched ||
	    tp->sk_d != d) {
		/* the entries of any width of w c > 1 (2: with no shard
		 * group and no experts nothing else reads it), which
		 * tmpl_screen() narrows for one rank */
		tmpl_check(sc, ti, o, so, sched, d, 2, 0, tp);
		memcpy(tp->sk, tp->e, (size_t)tp->n * sizeof(*tp->e));
		tp->sk_n = tp->n;
		tp->sk_ti = ti;
		tp->sk_sched = sched;
		tp->sk_d = d;
		tp->sk_P = (double)chain_params(c, 0, c->L - 1);
		tp->sk_Pm = (double)chain_muon(c, 0, c->L - 1, &ns, &nse);
		tp->sk_P16 = (double)chain_m16(c, 0, c->L - 1);
		tp->sk_z = tp->pz_ok = 0;
		for (i = 0; i < tp->sk_n; i++)
			if (tp->sk[i].kind == TMPL_CAND)
				tp->sk_z |= 1 << (tp->sk[i].zero << 1 |
						  tp->sk[i].offload);
	}
	return tmpl_screen(sc, ti, o, so, sched, d, w, tp);
}

/* The reason runtime_check_train(), runtime_check_par() or
 * runtime_check_ep() gives for e. */
static void
tmpl_why(const struct search_chain *sc, int ti, const struct cost_opts *o,
	 int sched, int d, int w, const struct tmpl_entry *e, char *why,
	 size_t n)
{
	int cp = sc[ti].cp > 1 ? sc[ti].cp : 1;
	int ep = sc[ti].ep > 1 ? sc[ti].ep : 1;
	int etp = sc[ti].etp > 0 ? sc[ti].etp : sc[ti].t;
	const struct runtime *rt = cost_runtime(o, sched, d);

	why[0] = 0;
	if (cost_every_on(o) && e->r == PROF_RC_FULL &&
	    runtime_check_every(rt, why, n))
		return;
	if (!runtime_check_train(rt, o->precision,
				 o->fp8_recipe >= 0 ? o->fp8_recipe
						    : rt->fp8_recipe,
				 o->bf16_most, o->mixed, o->optimizer, why,
				 n) &&
	    !runtime_check_bf16(rt, o->bf16_most, sc[ti].c->nblocks, d, why,
				n) &&
	    !runtime_check_par(rt, cp, ep, why, n) &&
	    (ep > 1 || chain_eparams(sc[ti].c, 0, sc[ti].c->L - 1) > 0))
		runtime_check_ep(rt, w, cp, sc[ti].t, etp, ep, e->zero,
				 e->shard, why, n);
}

/* The recomputation a candidate's time bound counts: under
 * --recompute-every "full" recomputes some blocks only, no more time than
 * none (its memory at least full's, which the screen counts). */
static int
lb_rc(const struct cost_opts *o, int r)
{
	return cost_every_on(o) && r == PROF_RC_FULL ? PROF_RC_NONE : r;
}

/* A candidate's lower bound: its compute alone, all on one GPU for
 * "none", split evenly (no stage below its slowest layer) otherwise, with
 * the pipeline's fill and drain for the flush schedules. */
static double
cand_lb(int sched, int d, int m, int v, double all, double t)
{
	if (sched == PLAN_NONE)
		return m * all;
	if (sched == PLAN_2BW)
		return m * t;
	return (m + (double)(d - 1) / v) * t;
}

/* tp's cnt, vmax and rbmask, from its rv (lb_rc() under o). */
static void
tmpl_sums(const struct cost_opts *o, struct tmpl *tp)
{
	int i, f, every = cost_every_on(o);

	for (f = 0; f < 2; f++) {
		tp->cnt[f] = 0;
		tp->vmax[f] = 1;
		tp->rbmask[f] = 0;
	}
	for (i = 0; i < tp->nrv; i++) {
		const struct tmpl_rv *e = &tp->rv[i];
		/* lb_rc() */
		int rb = every && e->r == PROF_RC_FULL ? PROF_RC_NONE : e->r;

		for (f = e->v > 1; f < 2; f++) {
			tp->cnt[f] += e->n;
			if (e->v > tp->vmax[f])
				tp->vmax[f] = e->v;
			tp->rbmask[f] |= 1 << rb;
		}
	}
}

#define RB_MASKS (1 << PROF_RC_N)

/*
 * For each microbatch size k of a chain of max_layers() maxl (nmb of
 * them) and each mask of recomputations (bit rb), the least slowest
 * layer and the least whole chain over them into fm[2 (k RB_MASKS +
 * mask)] (the order of maxl's pairs): NAN when one of them is NAN or
 * negative.
 */
static void
floor_mins(const double *maxl, int nmb, double *fm)
{
	int k, mask, rb;

	for (k = 0; k < nmb; k++)
		for (mask = 0; mask < RB_MASKS; mask++) {
			double *f = fm + 2 * (k * RB_MASKS + mask);

			f[0] = f[1] = INFINITY;
			for (rb = 0; rb < PROF_RC_N; rb++) {
				const double *x = maxl + 2 * (k * PROF_RC_N + rb);

				if (!(mask & (1 << rb)))
					continue;
				if (!(x[0] >= 0 && x[1] >= 0)) {
					f[0] = f[1] = NAN;
					break;
				}
				if (x[0] < f[0])
					f[0] = x[0];
				if (x[1] < f[1])
					f[1] = x[1];
			}
		}
}

/*
 * A floor of the closed-form bounds visit_lb() works out (neither lp_only
 * nor sim) for the candidates of template tp at (sched, d, m), vok
 * whether they may interleave, f their chain's floor_mins() at their
 * microbatch size: cand_lb() of the least slowest layer and chain over
 * their recomputations, at their most interleaving (which only shortens
 * the fill).  Each step of cand_lb() only grows with its arguments when
 * they are 0 or more, and rounds monotonically: no candidate's bound is
 * under it.  -INFINITY where floor_mins() said NAN.
 */
static inline double
group_floor(const struct tmpl *tp, const double *f, int sched, int d, int m,
	    int vok)
{
	const double *x = f + 2 * tp->rbmask[vok];
	double t = x[1] / d;

	if (isnan(x[0]))
		return -INFINITY;
	if (x[0] > t)
		t = x[0];
	return cand_lb(sched, d, m, tp->vmax[vok], x[1], t);
}

/*
 * cost_simulate_lb()'s factors by (schedule, d, m, v), what
 * cand_sim_lb() reads of a candidate: one enumeration asks the same ones
 * of every chain, width and microbatch size whose m is the same, and
 * working them out (expm1(), log1p()) costs more than the rest of a
 * group.  Direct-mapped: an entry asked for another key is replaced.
 */
#define SIMLB_N 1024

struct simlb_cache {
	struct simlb_entry {
		int sched, d, m, v; /* d 0: empty */
		struct cost_sim_lb f;
	} e[SIMLB_N];
};

/* cand_sim_lb() to the bit, its factors from mc (NULL: worked out). */
static double
cand_sim_lb_memo(struct simlb_cache *mc, int sched, int d, int m, int v,
		 double all, double maxl)
{
	unsigned h = ((unsigned)d * 2654435761u ^ (unsigned)m * 40503u ^
		      (unsigned)v * 97u ^ (unsigned)sched * 7919u) %
		     SIMLB_N;
	struct simlb_entry *e;

	if (!mc)
		return cand_sim_lb(sched, d, m, v, all, maxl);
	e = &mc->e[h];
	if (e->d != d || e->m != m || e->v != v || e->sched != sched) {
		struct cost_cfg g;

		memset(&g, 0, sizeof(g));
		g.sched = sched;
		g.d = d;
		g.m = m;
		g.v = v;
		cost_simulate_lb_factors(&g, &e->f);
		e->sched = sched;
		e->d = d;
		e->m = m;
		e->v = v;
	}
	return cost_simulate_lb_at(&e->f, all, maxl);
}

/* The recomputation a visit's lower bound of candidate (sched, d, r)
 * counts; mixed: the runtime of (sched, d) takes a per-layer choice. */
static int
visit_rc(const struct visit *vt, const struct cost_opts *o, int mixed,
	 int r)
{
	if (vt->lp_only || (vt->sim == 2 && r != PROF_RC_NONE && mixed))
		return PROF_RC_NONE;
	return lb_rc(o, r);
}

/* A visit's lower bound of a candidate: cand_lb(), or with vt->sim
 * cand_sim_lb() (its factors from mc); mk the chain's max_layers() at
 * its microbatch. */
static double
visit_lb(const struct visit *vt, struct simlb_cache *mc, const double *mk,
	 int sched, int d, int m, int v, int rb)
{
	const double *x = mk + 2 * rb;
	double t = x[1] / d;

	if (vt->sim)
		return cand_sim_lb_memo(mc, sched, d, m, v, x[1], x[0]);
	if (x[0] > t)
		t = x[0];
	return cand_lb(sched, d, m, v, x[1], t);
}

/*
 * Hand vt the candidates of one (chain, schedule, d, w, b, m) from the
 * group's template tp: all at once to vt->group first (their lower
 * bounds' range; with vt->away a floor of them, from fm, the chain's
 * floor_mins(), before), each in turn when it wants them.  Counts them in *n,
 * those screened out by memory in *screened, those skipped in stats.
 */
static void
add_cands(const struct search_chain *sc, int ti, const double *maxl,
	  const double *fm, const struct cost_opts *o, const struct tmpl *tp,
	  int sched, int d, int w, int k, int m, int mixed,
	  struct simlb_cache *mc, struct visit *vt, long *n, long *screened,
	  struct search_stats *stats)
{
	const double *mk = maxl + 2 * (k * PROF_RC_N);
	double lo = INFINITY, hi = -INFINITY;
	double lbs[PROF_RC_N * SEARCH_MAX_V]; /* by tp->rv */
	struct cand cd;
	int i, vok = m % d == 0, rb;
	long cnt = 0;

	*screened += tp->screened[0] + (vok ? tp->screened[1] : 0);
	if (vt->scr) {
		long g = (long)w * d * sc[ti].t *
			 (sc[ti].cp > 1 ? sc[ti].cp : 1);

		vt->scr[g] += tp->screened[0] + (vok ? tp->screened[1] : 0);
		vt->skip[g] += tp->skipped[0] + (vok ? tp->skipped[1] : 0);
	}
	if (stats && (tp->skipped[0] || (vok && tp->skipped[1]))) {
		stats->skipped_rt +=
			tp->skipped[0] + (vok ? tp->skipped[1] : 0);
		/* the reason of the first configuration skipped */
		for (i = 0; !stats->skip_why[0] && i < tp->n; i++) {
			const struct tmpl_entry *e = &tp->e[i];

			if (e->v > 1 && !vok)
				continue;
			if (e->kind == TMPL_SKIP_SHARD)
				snprintf(stats->skip_why,
					 sizeof(stats->skip_why), "%s",
					 "--shard-group does not divide the "
					 "data-parallel ranks");
			else if (e->kind == TMPL_SKIP_RT)
				tmpl_why(sc, ti, o, sched, d, w, e,
					 stats->skip_why,
					 sizeof(stats->skip_why));
		}
	}
	if (!tp->nrv)
		return;
	/* what group says of the whole group, said of a floor of its
	 * bounds first: most that it turns away are turned away by it */
	if (vt->away && (cnt = tp->cnt[vok]) > 0 &&
	    vt->away(vt,
		     group_floor(tp, fm + 2 * k * RB_MASKS, sched, d, m, vok),
		     cnt)) {
		*n += cnt;
		return;
	}
	cnt = 0;
	for (i = 0; i < tp->nrv; i++) {
		const struct tmpl_rv *e = &tp->rv[i];
		double lb;

		if (e->v > 1 && !vok)
			continue;
		rb = visit_rc(vt, o, mixed, e->r);
		lb = lbs[i] = visit_lb(vt, mc, mk, sched, d, m, e->v, rb);
		if (lb < lo)
			lo = lb;
		if (lb > hi)
			hi = lb;
		cnt += e->n;
	}
	*n += cnt;
	if (!cnt || (vt->group && !vt->group(vt, lo, hi, cnt)))
		return;
	/* the group's fields once, each candidate's own in turn */
	memset(&cd, 0, sizeof(cd));
	cd.sched = sched;
	cd.w = w;
	cd.d = d;
	cd.k = k;
	cd.m = m;
	cd.ti = ti;
	for (i = 0; i < tp->n; i++) {
		const struct tmpl_entry *e = &tp->e[i];

		if (e->kind != TMPL_CAND || (e->v > 1 && !vok))
			continue;
		cd.r = e->r;
		cd.v = e->v;
		cd.zero = e->zero;
		cd.shard = e->shard;
		cd.offload = e->offload;
		/* the bound of its (recomputation, interleaving) */
		cd.lb = lbs[e->rvi];
		vt->fn(vt, &cd);
	}
}

/*
 * The least lower bound an lp_only visit can see in the group (chain,
 * schedule, d, w, microbatch size k, m): add_cands()'s without
 * recomputation, at the most interleaving tried (vmax), which only
 * lowers it; no template needed.
 */
static double
lp_floor(const double *maxl, int k, int sched, int d, int m, int vmax)
{
	const double *x = maxl + 2 * (k * PROF_RC_N + PROF_RC_NONE);
	double t = x[1] / d;

	if (x[0] > t)
		t = x[0];
	return cand_lb(sched, d, m, vmax, x[1], t);
}

/* sim_floor()'s all m / d, a hair under. */
static inline double
sim_most(double all, int d, int m)
{
	return all * m / d * ((1 - 1e-9) * (1 - 1e-7));
}

/*
 * The least lower bound a sim visit can see in the group (chain,
 * schedule, d, w, microbatch size k, m): cand_sim_lb() without
 * recomputation, at the most interleaving tried (vmax), which only
 * lowers it (it shortens the fill); no template needed.
 */
static double
sim_floor(struct simlb_cache *mc, const double *maxl, int k, int sched,
	  int d, int m, int vmax, double over)
{
	const double *x = maxl + 2 * (k * PROF_RC_N + PROF_RC_NONE);
	double all = x[1], most;

	/*
	 * Without 2bw the floor is at least all m / d: its last stage's
	 * factor is m, and the equalised stages' divisor at most d / m (1
	 * - (1 - y)^d <= d y), both to a few units in the last place.
	 * With that a relative 1e-9 over (0: none known) or more, so is
	 * the floor, and the group is turned away whatever it is: this
	 * is said instead, without expm1() and log1p().
	 */
	if (mc && over > 0 && sched != PLAN_2BW && all > 0) {
		most = sim_most(all, d, m);
		if (most >= over)
			return most;
	}
	return cand_sim_lb_memo(mc, sched, d, m,
				sched == PLAN_FLUSH ? vmax : 1, all, x[0]);
}

/*
 * sim_floor() as search_enumerate() asks it: the next of the floors kept in
 * (*fl)[0..*nfl) when it replays them (*ifl the next to read), else
 * worked out and kept.
 */
static double
floor_of(double **fl, size_t *nfl, size_t *afl, size_t *ifl, int replay,
	 struct simlb_cache *mc, const double *maxl, int k, int sched, int d,
	 int m, int vmax, double over)
{
	double f;

	if (replay && *ifl < *nfl)
		return (*fl)[(*ifl)++];
	f = sim_floor(mc, maxl, k, sched, d, m, vmax, over);
	if (!replay) {
		if (*nfl == *afl) /* (a call a floor is the loop's cost) */
			xgrow((void **)fl, afl, *nfl + 1, sizeof(**fl));
		(*fl)[(*nfl)++] = f;
	}
	return f;
}

/*
 * Whether search_enumerate() passes the group (chain of max_layers() maxl,
 * schedule, d, width w, microbatch size k of b) by before its template
 * for its floor alone, where that floor only grows with m: an lp_only
 * visit's lp_floor() (its times >= 0), a sim visit's sim_floor() where
 * its all m / d decides (mc, an over, no 2bw).  Or for m over 10^9,
 * which it passes by too.  0: not passed by, or not for those reasons.
 */
static int
floor_away(struct visit *vt, const struct search_opts *so,
	   struct simlb_cache *mc, const double *maxl, int64_t B, int64_t w,
	   int b, int k, int sched, int d, int vmax)
{
	const double *x = maxl + 2 * (k * PROF_RC_N + PROF_RC_NONE);
	int64_t m = B / w / b;
	double f;

	if (m > 1000000000)
		return 1;
	if (m < 1)
		return 0;
	if (vt->lp_only) {
		if (so->gate_all || !(x[0] >= 0 && x[1] >= 0) ||
		    !isfinite(x[0]) || !isfinite(x[1]))
			return 0;
		f = lp_floor(maxl, k, sched, d, (int)m, vmax);
	} else {
		if (!vt->sim || !mc || !(vt->over > 0) || sched == PLAN_2BW ||
		    !(x[1] > 0) || !isfinite(x[1]))
			return 0;
		f = sim_most(x[1], d, (int)m);
		if (!(f >= vt->over))
			return 0;
	}
	return !vt->group(vt, f, INFINITY, 1);
}

/*
 * For each microbatch size k of chain c, wf[k]: the first of the nwd
 * widths ws (ascending) whose groups search_enumerate() does not pass by under
 * floor_away(), which passes every one before it by (m, and with it the
 * floor, only comes down as the width grows; vt->mono: so does the
 * visit's verdict).  Bisected: a few floors where the loops over the
 * widths would work out each (the refinement's and the exact search's
 * enumerations of GPT-3 175B on 1024 GPUs pass most groups by, the
 * narrow ones of many microbatches).  Returns the least of them; all 0
 * when the visit has none such (or so->plain).
 */
static long
floor_widths(struct visit *vt, const struct search_opts *so,
	     struct simlb_cache *mc, const double *maxl,
	     const struct chain *c, const int64_t *ws, long nwd, int64_t B,
	     int sched, int d, int vmax, long *wf)
{
	long least = nwd, lo, hi, mid;
	int k;

	for (k = 0; k < c->nmb; k++)
		wf[k] = 0;
	if (so->plain || !vt->group || !vt->mono ||
	    !(vt->lp_only || vt->sim))
		return 0;
	for (k = 0; k < c->nmb; k++) {
		/* away before lo, not from hi on */
		for (lo = 0, hi = nwd; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			if (floor_away(vt, so, mc, maxl, B, ws[mid], c->mb[k],
				       k, sched, d, vmax))
				lo = mid + 1;
			else
				hi = mid;
		}
		wf[k] = lo;
		if (lo < least)
			least = lo;
	}
	return least;
}

/*
 * Whether search_enumerate()'s loops over chain b ask sim_floor() what they
 * asked over chain a, in the same order: the same grid (tensor, context
 * and expert parallelism, layers, microbatch sizes) and the same
 * max_layers() (ma, mb), which is all the floors read of a chain.
 * Sequence parallelism or not: the same compute, the same floors.
 */
static int
same_floors(const struct search_chain *a, const double *ma,
	    const struct search_chain *b, const double *mb)
{
	const struct chain *x = a->c, *y = b->c;

	return a->t == b->t && a->cp == b->cp && a->ep == b->ep &&
	       a->etp == b->etp && x->L == y->L && x->nmb == y->nmb &&
	       !memcmp(x->mb, y->mb, (size_t)x->nmb * sizeof(*x->mb)) &&
	       !memcmp(ma, mb, 2 * (size_t)x->nmb * PROF_RC_N * sizeof(*ma));
}

/*
 * One stage is plain data parallelism, whatever the schedule: a schedule
 * other than the one that stands for it (none when searched, else the
 * first searched; none alone when the schedule is fixed) repeats it,
 * unless the two run on runtimes of their own (without --runtime one stage of flush
 * runs on megatron-core, of none on pytorch-ddp), whose overlap, bytes
 * and memory differ: then both are candidates, so that searching more
 * synchronous schedules never finds a slower plan than searching one of
 * them.
 */
static int
one_stage_repeats(const struct cost_opts *o, const struct search_opts *so,
		  int sched)
{
	int rep;

	/* evaluate mode: the schedule fixed is the one stage's */
	if (so->fix_sched >= 0)
		return 0;
	if (so->sched_mask & (1u << PLAN_NONE))
		rep = PLAN_NONE;
	else
		for (rep = 0; !(so->sched_mask & (1u << rep)); rep++)
			;
	/* 2BW on one stage would be data parallelism whose weights lag
	 * an update: the schedule that stands for one stage keeps it */
	return rep != sched &&
	       (sched == PLAN_2BW ||
		cost_runtime(o, rep, 1) == cost_runtime(o, sched, 1));
}

/* Enumerate the candidates, each handed to vt; returns their number
 * (an lp_only visit's, and its *screened, leave out the groups whose
 * least bound it turns away before their template is built). */
long
search_enumerate(const struct search_chain *sc, int nsc,
		 const struct cluster *cl, const struct cost_opts *o,
		 const struct search_opts *so, int N, struct visit *vt,
		 long *screened, struct search_stats *stats)
{
	long n = 0, nw = 0, nwd, wi, *wf = NULL;
	int64_t B = so->batch, w, *ws;
	int d, k, sched, ti, cp, ep, etp, vi, vmax = 1;
	struct tmpl *tp = xmalloc(sizeof(*tp));
	/*
	 * A sim visit's floors (sim_floor()) of the last chain its loops
	 * ran over, in the order asked: a chain that asks the same ones
	 * (same_floors()) reads them back (GPT-3 with and without sequence
	 * parallelism: 3 of its 7 chains).  Not with an lp_only visit,
	 * whose groups it turns away can leave out others' floors.
	 */
	double *fl = NULL, *pown = NULL, *fm = NULL;
	const double *pmaxl = NULL;
	size_t nfl = 0, afl = 0, ifl;
	int pti = -1, replay, mixed;
	struct simlb_cache *mc =
		vt->sim && !so->plain ? xcalloc(1, sizeof(*mc)) : NULL;

	tp->ck_ti = -1; /* nothing asked yet */
	tp->sk_n = -1;
	tp->scr_ok = 0;
	tp->moe_ti = -1;
	*screened = 0;
	for (vi = 0; vi < so->nv; vi++)
		if (so->v[vi] > vmax)
			vmax = so->v[vi];
	/* the widths that divide the batch, once: not a test of every
	 * width up to the GPUs for every depth */
	ws = xmalloc(((size_t)(N < B ? N : B) + 1) * sizeof(*ws));
	for (w = 1; w <= N && w <= B; w++)
		if (B % w == 0)
			ws[nw++] = w;
	for (ti = 0; ti < nsc; ti++) {
		const struct chain *c = sc[ti].c;
		int t = sc[ti].t, L = c->L;
		const double *maxl;
		double *own;

		/* A tensor-parallel group stays inside one node; a
		 * context-parallel group of them counts as one unit of t c
		 * GPUs below. */
		if (t < 1 || cl->gpus_per_node % t || t > N)
			continue;
		cp = sc[ti].cp > 1 ? sc[ti].cp : 1;
		ep = sc[ti].ep > 1 ? sc[ti].ep : 1;
		etp = sc[ti].etp > 0 ? sc[ti].etp : sc[ti].t;
		if (sc[ti].t % etp)
			continue;
		t *= cp;
		if (t > N)
			continue;
		maxl = maxl_of(so, c, &own);
		wf = xrealloc(wf, (size_t)c->nmb * sizeof(*wf));
		if (vt->away) {
			fm = xrealloc(fm, 2 * (size_t)c->nmb * RB_MASKS *
						  sizeof(*fm));
			floor_mins(maxl, c->nmb, fm);
		}
		replay = vt->sim && vt->group && !vt->lp_only && pti >= 0 &&
			 same_floors(&sc[pti], pmaxl, &sc[ti], maxl);
		if (!replay)
			nfl = 0;
		ifl = 0;
		for (sched = 0; sched < PLAN_NSCHED; sched++) {
			if (!(so->sched_mask & (1u << sched)))
				continue;
			if (so->fix_sched >= 0 && sched != so->fix_sched)
				continue;
			for (d = 1; d <= L && (int64_t)d * t <= N; d++) {
				if (d == 1 && sched != PLAN_NONE &&
				    one_stage_repeats(o, so, sched))
					continue;
				if (d > 1 && sched == PLAN_NONE &&
				    so->fix_d <= 0 &&
				    (so->sched_mask & ~(1u << PLAN_NONE)))
					continue;
				if (!fixed(d, so->fix_d))
					continue;
				/* a chain priced for one runtime serves
				 * the candidates that runtime runs */
				if (sc[ti].runtime &&
				    cost_runtime(o, sched, d)->id !=
					    sc[ti].runtime - 1)
					continue;
				if (vt->lp_only &&
				    !cost_runtime(o, sched, d)->mixed_rc)
					continue;
				/* what visit_rc() reads of the runtime */
				mixed = vt->sim == 2 &&
					cost_runtime(o, sched, d)->mixed_rc;
				/* the widths of this depth, and the first
				 * each microbatch size's floor lets through:
				 * those before it are passed by below
				 * anyway, floors asked or not (the floors a
				 * replay reads are those of the same widths) */
				for (nwd = 0; nwd < nw && ws[nwd] * d * t <= N;
				     nwd++)
					;
				for (wi = floor_widths(vt, so, mc, maxl, c, ws,
						       nwd, B, sched, d, vmax,
						       wf);
				     wi < nwd; wi++) {
					int built = 0;
					int64_t bw;

					w = ws[wi];
					if (!fixed((int)w, so->fix_w))
						continue;
					/* an expert-parallel group is ep of
					 * the w c t / etp blocks of etp */
					if (w * cp * (sc[ti].t / etp) % ep)
						continue;
					/* each replica's share of the
					 * batch, divided once a width */
					bw = B / w;

					for (k = 0; k < c->nmb; k++) {
						int b = c->mb[k];
						int64_t m;

						if (wi < wf[k] || bw % b ||
						    !fixed(b, so->fix_b))
							continue;
						m = bw / b;
						if (m > 1000000000 ||
						    (sched == PLAN_2BW && m < d))
							continue;
						if (vt->lp_only && vt->group &&
						    !so->gate_all &&
						    !vt->group(vt,
							       lp_floor(maxl,
									k, sched,
									d, (int)m,
									vmax),
							       INFINITY, 1))
							continue;
						if (vt->sim && vt->group &&
						    !vt->group(vt,
							       floor_of(&fl, &nfl,
									&afl, &ifl,
									replay, mc,
									maxl,
									k, sched, d,
									(int)m, vmax,
									vt->over),
							       INFINITY, 1))
							continue;
						/* (tmpl_sums() of a template
						 * unchanged: as it was) */
						if (!built++ &&
						    tmpl_build(sc, ti, o, so,
							       sched, d, (int)w,
							       tp) &&
						    vt->away)
							tmpl_sums(o, tp);
						add_cands(sc, ti, maxl, fm, o, tp,
							  sched, d, (int)w, k,
							  (int)m, mixed, mc, vt,
							  &n, screened, stats);
					}
				}
			}
		}
		free(pown);
		pown = own;
		pmaxl = maxl;
		pti = ti;
	}
	free(pown);
	free(fl);
	free(fm);
	free(ws);
	free(wf);
	free(tp);
	free(mc);
	return n;
}
