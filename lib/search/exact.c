/*
 * exact.c - exactness against the simulation: every candidate whose
 * simulated time could beat the best, by the simulation's lower bounds
 * and gates, partitioned and, when its floor says so, simulated
 * (search_exact_rest()).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search_int.h"

/* search_exact_rest()'s visit: the candidates of bounds under bound. */
static void
exact_visit_fn(struct visit *vt, const struct cand *cd)
{
	struct lp_visit *lv = (struct lp_visit *)vt;

	if (!(cd->lb < lv->bound))
		return;
	if (lv->n == lv->cap) {
		lv->cap = lv->cap ? 2 * lv->cap : 64;
		lv->c = xrealloc(lv->c, (size_t)lv->cap * sizeof(*lv->c));
	}
	lv->c[lv->n++] = *cd;
}

/*
 * The memo's entry for a floor of cd under place on the links of x (cd
 * lp: the floor of its stages without recomputation, which no
 * refinement of them goes under; else of its stages), or NULL without a
 * memo.  Its pointer holds until the next call.
 */
static struct time_entry *
floor_find(struct ctx *x, const struct cand *cd, int place)
{
	struct time_entry *e;
	struct cost_cfg g;

	if (!x->so->memo || x->so->uniform || cd->m <= 0)
		return NULL;
	search_cfg_of(x, cd, place, &g);
	search_links_for(x, place, g.w, g.d, g.t, g.c, g.e, g.etp);
	e = search_time_find(&x->so->memo->floors, cd, place + 2 * cd->lp);
	search_time_links(&x->so->memo->floors, e, x, cd->d);
	return e;
}

/* That floor as an earlier search kept it, or NAN. */
static double
floor_known(struct ctx *x, const struct cand *cd, int place)
{
	struct time_entry *e = floor_find(x, cd, place);

	return e ? e->t : NAN;
}

static void
floor_keep(struct ctx *x, const struct cand *cd, int place, double fl)
{
	struct time_entry *e = floor_find(x, cd, place);

	if (e)
		e->t = fl;
}

/*
 * exact_floor_none()'s stages nst of cr's partition, x->st's, kept with
 * its floor on these links (not plain; not under activation offload,
 * where it makes none).
 */
static void
floor_keep_stages(struct ctx *x, const struct cand *cr, int place,
		  const struct plan_stage *nst)
{
	struct time_entry *e;

	if (x->so->plain || cr->offload || !(e = floor_find(x, cr, place)))
		return;
	if (!e->st)
		e->st = xmalloc((size_t)cr->d * sizeof(*e->st));
	memcpy(e->st, nst, (size_t)cr->d * sizeof(*e->st));
}

/*
 * Those stages into nst when kept, of the very partition x->st holds:
 * 1, else 0 (exact_floor_none() makes them).  The same links, cost
 * options and layers give the same stages.
 */
static int
floor_stages(struct ctx *x, const struct cand *cr, int place,
	     struct plan_stage *nst)
{
	struct time_entry *e;
	int s;

	if (x->so->plain || cr->offload || !(e = floor_find(x, cr, place)) ||
	    !e->st)
		return 0;
	for (s = 0; s < cr->d; s++)
		if (e->st[s].first != x->st[s].first ||
		    e->st[s].last != x->st[s].last)
			return 0;
	memcpy(nst, e->st, (size_t)cr->d * sizeof(*nst));
	return 1;
}

/* Simulate cd under place, whose stages x->st hold (their floor below
 * *best); keep it when it beats *best (*best its time then). */
static void
exact_try(struct ctx *x, const struct cand *cd, int place,
	  struct plan_alt *alts, struct cand *ac, double *simt, int *nalt,
	  int k, double *best, int mixed)
{
	double ts;
	int fl;

	x->stats->exact_sims++;
	ts = search_rescore(x, cd, place, NULL, &fl);
	if (!(ts * (1 + 1e-9) < *best))
		return;
	search_keep_sim(x, alts, ac, simt, nalt, k, cd, place, ts, mixed);
	*best = ts;
}

/*
 * The floor (cost_simulate_floor()) of cd's stages in x->st (under
 * place) taken without recomputation: GLPK's refinement keeps the
 * partition and adds some layers' recomputation, and the floor grows
 * with every stage's time, so no refinement's floor is lower.  Not under
 * activation offload, where recomputing shortens the transfers: 0.
 */
static double
exact_floor_none(struct ctx *x, const struct cand *cd, int place,
		 struct plan_stage *nst)
{
	struct cand cn = *cd;
	struct cost_cfg gn;
	int s;

	if (cd->offload)
		return 0;
	cn.r = PROF_RC_NONE;
	cn.lp = 0;
	search_cfg_of(x, &cn, place, &gn);
	search_links_for(x, place, gn.w, gn.d, gn.t, gn.c, gn.e, gn.etp);
	for (s = 0; s < cd->d; s++)
		cost_stage(x->c, x->o, &gn, &x->links, s, x->st[s].first,
			   x->st[s].last, &nst[s]);
	return cost_simulate_floor(nst, &gn);
}

/*
 * GLPK's refinement of cr (lp set) under place, whose stages x->st hold
 * (search_solve()), as search_apply_lp() refines it, unless its floor cannot
 * come under bound: then 0, and x->st left part refined.  As in
 * apply_lp_under(), a stage refined adds recomputation to the stage
 * without it, and the floor grows with each stage's time: with the
 * stages not refined yet taken without recomputation (nst, room for d,
 * holds them from exact_floor_none(); ord room for d indices), the
 * floor so far is one of the refinement's.
 * The stages most over the memory cap go first.  Under activation
 * offload, where recomputing shortens the transfers, every stage is
 * refined before the floor is asked.  1 when all are refined and their
 * floor is under bound.
 */
static int
exact_lp(struct ctx *x, const struct cand *cr, int place, double bound,
	 struct plan_stage *nst, int *ord)
{
	struct lp_opts lo;
	struct cost_cfg g;
	double t0 = lp_clock_ms(x);
	int i, j, s, st_lp, ok = 1;

	for (s = 0; s < cr->d; s++) {
		if (cr->offload)
			nst[s] = x->st[s];
		for (i = s; i > 0 && nst[ord[i - 1]].mem_bytes <
					     nst[s].mem_bytes;
		     i--)
			ord[i] = ord[i - 1];
		ord[i] = s;
	}
	search_cfg_of(x, cr, place, &g);
	search_links_for(x, place, g.w, g.d, g.t, g.c, g.e, g.etp);
	lp_opts_of(x, &lo);
	x->lp_status = LP_OPTIMAL;
	for (j = 0; j < cr->d && ok; j++) {
		s = ord[j];
		st_lp = search_apply_lp_stage(x, &g, &lo, s);
		nst[s] = x->st[s];
		ok = st_lp == LP_OPTIMAL || st_lp == LP_FEASIBLE;
		if (ok && (!cr->offload || j == cr->d - 1))
			ok = cost_simulate_floor(nst, &g) < bound;
	}
	x->stats->lp_ms += lp_clock_ms(x) - t0;
	return ok;
}

/*
 * What every partition of cd under any placement the search tries adds
 * to its stages' compute (cost_stages_extra_lb()), the reduction the
 * stage with the most parameters takes (cost_stages_sync_lb(); not with
 * 2bw, whose reductions overlap), and the tensor-parallel traffic's
 * coefficients (cost_tp_lb()), at least: the least of each over the
 * placements.
 */
static void
exact_links_lb(struct ctx *x, const struct cand *cd, double *extra,
	       double *sync, double *tpx, double *tpn)
{
	struct cost_cfg g;
	double px, pn;
	int pl;

	*extra = *sync = *tpx = *tpn = INFINITY;
	for (pl = place_lo(x->so); pl <= place_hi(x->so, cd); pl++) {
		search_cfg_of(x, cd, pl, &g);
		search_links_for(x, pl, g.w, g.d, g.t, g.c, g.e, g.etp);
		*extra = fmin(*extra,
			      cost_stages_extra_lb(x->c, &g, &x->links));
		*sync = cd->sched == PLAN_2BW
				? 0
				: fmin(*sync, cost_stages_sync_lb(
						      x->c, x->o, &g, &x->links));
		cost_tp_lb(&g, &x->links, &px, &pn);
		*tpx = fmin(*tpx, px);
		*tpn = fmin(*tpn, pn);
	}
	if (!isfinite(*extra))
		*extra = 0;
	if (!isfinite(*sync))
		*sync = 0;
	if (!isfinite(*tpx))
		*tpx = 0;
	if (!isfinite(*tpn))
		*tpn = 0;
}

/* Whether each of the n runs of len numbers from x never goes down (no
 * NaN: a comparison with it fails). */
static int
rises(const double *x, int n, int len)
{
	int i, j;

	for (i = 0; i < n; i++, x += len)
		for (j = 1; j < len; j++)
			if (!(x[j - 1] <= x[j]))
				return 0;
	return 1;
}

/* Whether so's memo knows the twins and rises of chains sc (then in
 * mm): not plain, the same chains (by id) as the last asked. */
static int
lb_memo_known(struct lb_memo *mm, const struct search_opts *so,
	      const struct search_chain *sc, int nsc)
{
	const struct search_memo *m = so->memo;
	int i;

	if (!m || so->plain || m->tu_n != nsc)
		return 0;
	for (i = 0; i < nsc; i++)
		if (!sc[i].c->id || sc[i].c->id != m->tu_id[i])
			return 0;
	memcpy(mm->twin, m->tu_twin, (size_t)nsc * sizeof(*mm->twin));
	memcpy(mm->up, m->tu_up, (size_t)nsc * sizeof(*mm->up));
	return 1;
}

/* Keep mm's twins and rises of chains sc in so's memo (not plain). */
static void
lb_memo_keep(const struct lb_memo *mm, const struct search_opts *so,
	     const struct search_chain *sc, int nsc)
{
	struct search_memo *m = so->memo;
	int i;

	if (!m || so->plain)
		return;
	m->tu_n = 0;
	for (i = 0; i < nsc; i++)
		if (!sc[i].c->id)
			return;
	m->tu_id = xrealloc(m->tu_id, (size_t)nsc * sizeof(*m->tu_id));
	m->tu_twin = xrealloc(m->tu_twin, (size_t)nsc * sizeof(*m->tu_twin));
	m->tu_up = xrealloc(m->tu_up, (size_t)nsc * sizeof(*m->tu_up));
	for (i = 0; i < nsc; i++)
		m->tu_id[i] = sc[i].c->id;
	memcpy(m->tu_twin, mm->twin, (size_t)nsc * sizeof(*mm->twin));
	memcpy(m->tu_up, mm->up, (size_t)nsc * sizeof(*mm->up));
	m->tu_n = nsc;
}

/* mm for the nsc chains sc of L layers under so (its verdicts in so's
 * memo when it has one). */
void
search_lb_memo_init(struct lb_memo *mm, const struct search_opts *so,
		    const struct search_chain *sc, int nsc, int L)
{
	int i, j;

	memset(mm, 0, sizeof(*mm));
	mm->twin = xcalloc((size_t)nsc, sizeof(*mm->twin));
	mm->up = xcalloc((size_t)nsc, sizeof(*mm->up));
	mm->plain = so->plain;
	if (lb_memo_known(mm, so, sc, nsc))
		goto known;
	for (i = 0; i < nsc; i++) {
		const struct chain *a = sc[i].c;

		for (j = 0; j < i && !so->plain; j++) {
			const struct chain *b = sc[j].c;

			if (mm->twin[j] == j && a->L == b->L &&
			    a->nmb == b->nmb &&
			    !memcmp(a->pre_t, b->pre_t,
				    (size_t)a->nmb * PROF_RC_N *
					    (size_t)(a->L + 1) *
					    sizeof(*a->pre_t)))
				break;
		}
		mm->twin[i] = so->plain ? i : j;
	}
	for (i = 0; i < nsc && !so->plain; i++)
		mm->up[i] = rises(sc[i].c->pre_t, sc[i].c->nmb * PROF_RC_N,
				  sc[i].c->L + 1);
	lb_memo_keep(mm, so, sc, nsc);
known:
	mm->pre = xcalloc((size_t)L + 1, sizeof(*mm->pre));
	mm->fits = so->memo ? &so->memo->lbfits : &mm->own;
	if (so->memo && !so->memo->lbs)
		so->memo->lbs = xcalloc(1, sizeof(*so->memo->lbs));
	mm->lbs = so->memo ? so->memo->lbs : &mm->own_lbs;
	mm->phis = so->memo ? &so->memo->phis : &mm->own_phis;
	mm->nsc = nsc;
	mm->per = xcalloc((size_t)L, sizeof(*mm->per));
}

void
search_lb_memo_release(struct lb_memo *mm)
{
	search_rc_phis_release(&mm->own_phis);
	free(mm->own_lbs.e);
	free(mm->own.e);
	free(mm->pre);
	free(mm->per);
	free(mm->twin);
	free(mm->up);
}

/* The entry of cd on x's cluster (*fresh 1: new, its figures for the
 * caller). */
static struct lb_entry *
lb_find(struct ctx *x, struct lb_memo *mm, const struct cand *cd,
	int *fresh)
{
	struct lb_table *t = mm->lbs;
	struct lb_entry *e;
	struct cand k;
	int seg = place_segment(x->cl, cand_gpus(x->sc, cd));

	if (t->cl != x->cl) {
		TABLE_EMPTY(t);
		t->cl = x->cl;
	}
	memset(&k, 0, sizeof(k));
	k.ti = cd->ti;
	k.k = cd->k;
	k.d = cd->d;
	k.w = cd->w;
	k.v = cd->v;
	k.sched = cd->sched;
	k.zero = cd->zero;
	k.shard = cd->shard;
	k.m = 1;
	e = search_slot_find((void **)&t->e, &t->n, &t->cap, sizeof(*e), 256,
			     &k, fresh);
	if (e->seg != seg)
		*fresh = 1;
	e->seg = seg;
	return e;
}

/*
 * A time no partition of cd (its uniform recomputation or GLPK's
 * refinement of it) under any placement the search tries simulates
 * below: cost_simulate_lb() of the chain's compute without recomputation
 * (recomputing adds to it) plus what every partition's stages add to
 * it, or cost_simulate_sync_lb() of the chain's forwards and half of
 * that, and of the reduction of the stage with the most parameters
 * (exact_links_lb(), memoised in mm).
 */
static double
exact_lb(struct ctx *x, struct lb_memo *mm, const struct cand *cd)
{
	const struct chain *c = x->sc[cd->ti].c;
	struct cost_cfg g;
	double lb;
	int j, fresh;
	struct lb_entry *e = lb_find(x, mm, cd, &fresh);

	if (fresh) {
		exact_links_lb(x, cd, &e->extra, &e->sync, &e->tpx,
			       &e->tpn);
		e->tp_m = 0;
		e->fwd = 0;
		for (j = 0; j < c->L; j++)
			e->fwd += CHAIN_AT(c, c->fwd, cd->k, j);
	}
	mm->last = e;
	lb = cand_sim_lb(cd->sched, cd->d, cd->m, cd->v,
			 chain_time(c, cd->k, PROF_RC_NONE, 0, c->L - 1) +
				 e->extra,
			 0);
	search_cfg_of(x, cd, place_lo(x->so), &g);
	/* the forwards: their compute and half of what the stages add */
	return fmax(lb, cost_simulate_sync_lb(&g, e->fwd * (1 - 1e-9) +
							  e->extra / 2,
					      e->sync));
}

/* The verdicts in t of cd's chain, microbatch and shape under
 * recomputation r (cd->m > 0); with weights set, of its width, ZeRO
 * stage and shard group too (what its weights' bytes read). */
static struct lbfit_entry *
lbfit_find(struct lbfit_table *t, const struct cand *cd, int r, int weights)
{
	struct lbfit_entry *e;
	struct cand k;
	int fresh;

	memset(&k, 0, sizeof(k));
	if (weights) {
		k.w = cd->w;
		k.zero = cd->zero;
		k.shard = cd->shard;
	}
	k.ti = cd->ti;
	k.k = cd->k;
	k.d = cd->d;
	k.m = cd->m;
	k.v = cd->v;
	k.sched = cd->sched;
	k.r = (signed char)r;
	e = search_slot_find((void **)&t->e, &t->n, &t->cap, sizeof(*e), 1024,
			     &k, &fresh);
	if (fresh)
		e->no = e->yes = NAN;
	return e;
}

/* What e's verdicts say of bound: 0 or 1, or -1 when they do not tell. */
static int
lbfit_says(const struct lbfit_entry *e, double bound)
{
	if (bound <= e->no)
		return 0;
	return bound >= e->yes ? 1 : -1;
}

/* Verdict ok of bound, kept in e (NULL: no memo). */
static int
lbfit_keep(struct lbfit_entry *e, double bound, int ok)
{
	if (e && ok)
		e->yes = bound;
	else if (e)
		e->no = bound;
	return ok;
}

/* cost_simulate_lb_fits() of cd's schedule over the prefix sums pre
 * (up: they never go down, and the answer is found by galloping). */
static int
cand_lb_fits(const struct cand *cd, const double *pre, int L, double bound,
	     int up)
{
	struct cost_cfg g;

	memset(&g, 0, sizeof(g));
	g.sched = cd->sched;
	g.d = cd->d;
	g.m = cd->m;
	g.v = cd->v;
	return up ? cost_simulate_lb_fits_up(&g, pre, L, bound)
		  : cost_simulate_lb_fits(&g, pre, L, bound);
}

/*
 * Whether any partition of cd's (not interleaved) could have a floor
 * below bound (cost_simulate_lb_fits()), its stages computing as its
 * chain says under recomputation r; from mm's verdicts when they tell
 * (a type's sizes ask the same of its chains under other bounds).
 */
static int
exact_fits(struct ctx *x, struct lb_memo *mm, const struct cand *cd, int r,
	   double bound)
{
	const struct chain *c = x->sc[cd->ti].c;
	struct lbfit_entry *e = NULL;
	int ok;

	if (cd->m > 0) {
		struct cand k = *cd;

		k.ti = (short)mm->twin[cd->ti];
		e = lbfit_find(mm->fits, &k, r, 0);
		if ((ok = lbfit_says(e, bound)) >= 0)
			return ok;
	}
	return lbfit_keep(e, bound,
			  cand_lb_fits(cd,
				       c->pre_t + ((size_t)cd->k * PROF_RC_N +
						   r) * (c->L + 1),
				       c->L, bound, mm->up[cd->ti]));
}

/* mm's multipliers and lp_rc_phi() at each for cd's chain and
 * microbatch (none when a layer's option costs less than none). */
static struct rc_phi *
rc_phi_of(struct ctx *x, struct lb_memo *mm, const struct cand *cd)
{
	const struct chain *c = x->sc[cd->ti].c;
	struct rc_phis *t = mm->phis;
	struct rc_phi *e;
	int i;

	if (!t->rcp) {
		t->nsc = mm->nsc;
		t->rcp = xcalloc((size_t)t->nsc, sizeof(*t->rcp));
		t->nmb = xcalloc((size_t)t->nsc, sizeof(*t->nmb));
	}
	if (!t->rcp[cd->ti]) {
		t->rcp[cd->ti] = xcalloc((size_t)c->nmb, sizeof(*e));
		t->nmb[cd->ti] = c->nmb;
	}
	e = &t->rcp[cd->ti][cd->k];
	if (e->phi)
		return e;
	e->n = lp_rc_multipliers(c, cd->k, x->so->rc_mask, e->mu, 6);
	e->phi = xcalloc((size_t)e->n * (c->L + 1) + 1, sizeof(*e->phi));
	for (i = 0; i < e->n; i++)
		if (lp_rc_phi(c, cd->k, x->so->rc_mask, e->mu[i],
			      e->phi + (size_t)i * (c->L + 1)))
			e->n = 0;
	return e;
}

/*
 * Whether a partition of cd's chain under configuration g (one of its
 * placements) could have a floor below bound once GLPK's refinement adds
 * its recomputation:
 * cost_simulate_lb_fits_rc() of the compute without recomputation and
 * the Lagrangian bound of what the refinement adds (lp_rc_phi(),
 * lp_rc_row()), at each of the multipliers where a layer's cheapest
 * option changes (each a bound of its own; without any, that of no
 * recomputation).
 */
static int
exact_fits_rc_at(struct ctx *x, struct lb_memo *mm, const struct cand *cd,
		 const struct cost_cfg *g, double bound)
{
	const struct chain *c = x->sc[cd->ti].c;
	const double *pre = c->pre_t + ((size_t)cd->k * PROF_RC_N +
					PROF_RC_NONE) *
					       (c->L + 1);
	struct rc_phi *e = rc_phi_of(x, mm, cd);
	struct cost_rc_lb rl;
	int i, j;

	/* Each multiplier's bound says no alone, and lp_rc_row() fails for
	 * all of them or none (it reads no multiplier): any order answers
	 * alike, and the one that said no last most often says it first
	 * (not plain). */
	for (j = 0; j < e->n; j++) {
		i = mm->plain ? j : (e->first + j) % e->n;
		if (lp_rc_row(c, x->o, g, e->mu[i], &rl, mm->per))
			return 1;
		rl.phi = e->phi + (size_t)i * (c->L + 1);
		if (!cost_simulate_lb_fits_rc(g, pre, c->L, bound, &rl)) {
			if (!mm->plain)
				e->first = i;
			return 0;
		}
	}
	return 1;
}

/*
 * exact_fits_rc_at() under some placement the search tries, from mm's
 * verdicts when they tell.  Not under activation offload, which the
 * refinement's memory row does not follow.
 */
int
search_exact_fits_rc(struct ctx *x, struct lb_memo *mm, const struct cand *cd,
		     double bound)
{
	struct lbfit_entry *e = NULL;
	struct cost_cfg g;
	double pb = 0;
	int pl, ok = 0;

	if (cd->offload || cd->v > 1)
		return 1;
	if (cd->m > 0) {
		e = lbfit_find(mm->fits, cd, PROF_RC_N, 1);
		if ((ok = lbfit_says(e, bound)) >= 0)
			return ok;
	}
	ok = 0;
	/* the bound reads the placement only through the weights' bytes */
	for (pl = place_lo(x->so); !ok && pl <= place_hi(x->so, cd); pl++) {
		search_cfg_of(x, cd, pl, &g);
		if (pl > place_lo(x->so) && cost_param_bytes(x->o, &g) == pb)
			continue;
		pb = cost_param_bytes(x->o, &g);
		ok = exact_fits_rc_at(x, mm, cd, &g, bound);
	}
	return lbfit_keep(e, bound, ok);
}

/*
 * exact_fits() with each layer's tensor-parallel traffic added to its
 * compute, no more than any stage of it pays under any placement
 * (exact_links_lb()'s coefficients e, from exact_lb(): cost_tp_lb(), the
 * least over the placements): every stage's forwards,
 * recomputations and backwards still take no less than the difference
 * of the prefix sums, which is all cost_simulate_lb_fits() asks.
 */
static int
exact_fits_tp(struct ctx *x, struct lb_memo *mm, struct lb_entry *e,
	      const struct cand *cd, int r, double bound)
{
	const struct chain *c = x->sc[cd->ti].c;
	size_t off = (size_t)cd->k * PROF_RC_N;
	const double *pre = c->pre_t + (off + r) * (c->L + 1);
	const double *px = c->pre_tpx + (off + PROF_RC_NONE) * (c->L + 1);
	const double *pn = c->pre_tpn + (off + PROF_RC_NONE) * (c->L + 1);
	int j, ok;

	if (!(e->tpx > 0 || e->tpn > 0))
		return 1;
	/* A sweep asks it again at each size (the bound falls): what it
	 * said under larger bounds and smaller ones answers most. */
	if (!mm->plain && e->tp_m != cd->m) {
		e->tp_m = cd->m;
		for (j = 0; j < PROF_RC_N; j++) {
			e->tp_no[j] = -INFINITY;
			e->tp_yes[j] = INFINITY;
		}
	}
	if (!mm->plain && bound <= e->tp_no[r])
		return 0;
	if (!mm->plain && bound >= e->tp_yes[r])
		return 1;
	for (j = 0; j <= c->L; j++)
		mm->pre[j] = pre[j] + e->tpx * (px[j] - px[0]) +
			     e->tpn * (pn[j] - pn[0]);
	ok = cand_lb_fits(cd, mm->pre, c->L, bound,
			  !mm->plain && rises(mm->pre, 1, c->L + 1));
	if (mm->plain)
		return ok;
	if (ok && bound < e->tp_yes[r])
		e->tp_yes[r] = bound;
	else if (!ok && bound > e->tp_no[r])
		e->tp_no[r] = bound;
	return ok;
}

/*
 * Whether some partition of cd under options o (the memory cap, or
 * none), under some placement, has every stage busy (cost_stage_busy())
 * for less than bound over cost_simulate_stage_lb(): else none can
 * simulate below bound.  The programme's stage cost without the
 * synchronisation (ws.no_sync) is at most the busy time, to rounding,
 * and a cut lets the solve stop early (as solve_checked()'s); but not
 * with the expert-parallel overlap, which hides a share of the
 * all-to-alls that no sum of layers follows.
 */
static int
exact_busy(struct ctx *x, const struct cost_opts *o, const struct cand *cd,
	   double bound)
{
	const struct search_opts *so = x->so;
	struct cost_cfg g;
	double cut, t;
	int pl;

	for (pl = place_lo(so); pl <= place_hi(so, cd); pl++) {
		struct time_entry *e = NULL;

		search_cfg_of(x, cd, pl, &g);
		if (cost_ep_deg(&g) > 1 &&
		    runtime_has(cost_cfg_runtime(o, &g),
				RUNTIME_OPT_OVERLAP_MOE_EP_COMM))
			return 1;
		cut = bound / cost_simulate_stage_lb(&g) * (1 + 1e-6);
		search_links_for(x, pl, g.w, g.d, g.t, g.c, g.e, g.etp);
		/* what an earlier search of the memo found on these links:
		 * the least slowest stage, or that it is above some cut */
		if (so->memo && cd->m > 0) {
			e = search_time_find(&so->memo->busy, cd,
					     pl + 2 * (o == &x->nocap));
			if (search_time_links(&so->memo->busy, e, x, cd->d) &&
			    (!isnan(e->t) || cut <= e->lo)) {
				if (!isnan(e->t) && e->t <= cut)
					return 1;
				continue;
			}
		}
		x->ws.no_sync = 1;
		x->ws.cut_ms = cut;
		t = part_solve(&x->ws, x->c, o, &g, &x->links, PART_TIME,
			       INFINITY, x->first);
		x->ws.no_sync = 0;
		x->ws.cut_ms = 0;
		/* under the cut the solve's optimum, above it none */
		if (e && t <= cut)
			e->t = t;
		else if (e && cut > e->lo)
			e->lo = cut;
		if (t <= cut)
			return 1;
	}
	return 0;
}

/*
 * Clear *uni (its uniform recomputation) and *ref (GLPK's refinement of
 * it) when cd's partition cannot simulate below bound, before solving
 * it.  Its stages' floor is at least a_s times the forwards,
 * recomputations and backwards of each stage s plus those of the stages
 * before it over q (cost_simulate_lb_fits()), and at least a times each
 * stage's alone (cost_simulate_stage_lb()): with no partition whose
 * stages' compute keeps under bound so (the second under the memory cap
 * as well: part_fits(), which reads neither the links nor the
 * placement), its own does not.  The refinement's stages compute no
 * less than without recomputation, on a partition that fits without
 * the cap; so do --recompute-every's, which recompute less than full.
 * Those are asked exact_busy() as well, which turns away enough of them
 * to spare GLPK; for the others it costs about what solving them does.
 * Between the two, exact_lb() (mm its memo), which reads the links: what
 * every partition adds to the compute, or the reduction.
 */
static void
exact_gate(struct ctx *x, const struct cost_opts *o, const struct cand *cd,
	   int place, double bound, struct lb_memo *mm, int *uni, int *ref)
{
	struct cand cn = *cd;
	struct cost_cfg g;
	double tb;
	int ev = cost_every_on(o) && cd->r == PROF_RC_FULL;

	cn.r = PROF_RC_NONE;
	if (*uni && !ev && !exact_fits(x, mm, cd, cd->r, bound))
		*uni = 0;
	if ((*ref || (*uni && ev)) &&
	    !exact_fits(x, mm, cd, PROF_RC_NONE, bound)) {
		*uni = *ref = 0;
		return;
	}
	/* what every partition's stages add, or its reduction */
	if ((*uni || *ref) && exact_lb(x, mm, cd) >= bound) {
		*uni = *ref = 0;
		return;
	}
	/* the partitions with each layer's tensor-parallel traffic */
	if (*uni && !ev &&
	    !exact_fits_tp(x, mm, mm->last, cd, cd->r, bound))
		*uni = 0;
	if ((*ref || (*uni && ev)) &&
	    !exact_fits_tp(x, mm, mm->last, cd, PROF_RC_NONE, bound)) {
		*uni = *ref = 0;
		return;
	}
	/* the refinement's with what it must recompute to fit */
	if (*ref && !search_exact_fits_rc(x, mm, cd, bound))
		*ref = 0;
	if (!*uni && !*ref)
		return;
	search_cfg_of(x, cd, place, &g);
	tb = bound / cost_simulate_stage_lb(&g) * (1 + 1e-9);
	if (*uni && !ev)
		*uni = search_cand_fits(x, o, cd, &g, tb);
	if (*ref || (*uni && ev)) {
		search_cfg_of(x, &cn, place, &g);
		if (!search_cand_fits(x, &x->nocap, &cn, &g, tb) ||
		    (!cd->offload && !exact_busy(x, &x->nocap, &cn, bound)))
			*uni = *ref = 0;
	}
}

/* The memo's entry for cd on x's cluster, or NULL without a memo. */
static struct gate_entry *
gate_find(struct ctx *x, const struct cand *cd)
{
	struct gate_table *t;
	struct gate_entry *e;
	struct cand k = *cd;
	int fresh, seg;

	if (!x->so->memo || cd->m <= 0)
		return NULL;
	t = &x->so->memo->gates;
	if (t->cl != x->cl) {
		TABLE_EMPTY(t);
		t->cl = x->cl;
	}
	seg = place_segment(x->cl, cand_gpus(x->sc, cd));
	k.lb = 0;
	k.lp = 0;
	e = search_slot_find((void **)&t->e, &t->n, &t->cap, sizeof(*e), 1024,
			     &k, &fresh);
	if (fresh || e->seg != seg) {
		e->seg = seg;
		e->no[0] = e->no[1] = -INFINITY;
	}
	return e;
}

/*
 * What the memo proved of lv's i-th candidate cd (no[2] as a
 * gate_entry's), or NULL without a memo: by its place in the memo's
 * list when lv was taken from one (the same proofs as gate_find() keeps
 * by key, a list holding each candidate once), else gate_find()'s.
 */
static double *
gate_no(struct ctx *x, struct lp_visit *lv, long i, const struct cand *cd)
{
	struct cand_list *l = lv->from;
	struct gate_entry *e;
	struct gate_slot *g;
	int seg;

	if (!l || cd->m <= 0) {
		e = gate_find(x, cd);
		return e ? e->no : NULL;
	}
	if (!l->gates || l->gcl != x->cl) {
		free(l->gates);
		l->gates = xcalloc((size_t)l->n, sizeof(*l->gates));
		l->gcl = x->cl;
	}
	g = &l->gates[lv->at[i]];
	seg = place_segment(x->cl, l->gpus[lv->at[i]]);
	if (g->seg != seg) {
		g->seg = seg;
		g->no[0] = g->no[1] = -INFINITY;
	}
	return g->no;
}

/*
 * lp_visit's known for search_exact_rest(): what the memo proved of the
 * list's i-th candidate (gate_no()'s proofs) turns away both its uniform
 * recomputation and, when it would be refined, its refinement under
 * lv->bound, as the loop would find before any other work (capacity's
 * sizes ask mostly the same candidates, most of them proved by the time
 * a smaller size proved them under).
 */
static int
exact_known(const struct lp_visit *lv, long i)
{
	const struct ctx *x = lv->x;
	const struct cand_list *l = lv->from;
	const struct cand *cd = &l->c[i];
	const struct gate_slot *g;

	if (x->so->uniform || x->so->plain || cd->m <= 0 || !l->gates ||
	    l->gcl != x->cl)
		return 0;
	g = &l->gates[i];
	if (g->seg != place_segment(x->cl, l->gpus[i]) ||
	    !(lv->bound <= g->no[0]))
		return 0;
	return lv->bound <= g->no[1] || cd->r == PROF_RC_NONE ||
	       x->so->lp_k <= 0 || cost_every_on(x->o) ||
	       !cost_runtime(x->o, cd->sched, cd->d)->mixed_rc;
}

/*
 * exact_gate() under place_lo(), first from what it proved of cd in an
 * earlier search of the memo on these links (capacity's sizes; no: its
 * gate_no(), NULL: none): a proof under a bound holds under every
 * smaller one.  A proof left out would only let through what then
 * cannot beat the bound, as the search finds by solving and simulating
 * it.
 */
static void
exact_gate_known(struct ctx *x, const struct cost_opts *o,
		 const struct cand *cd, double bound, struct lb_memo *mm,
		 double *no, int *uni, int *ref)
{
	int u0, r0;

	if (no && *uni && bound <= no[0])
		*uni = 0;
	if (no && *ref && bound <= no[1])
		*ref = 0;
	if (!*uni && !*ref)
		return;
	u0 = *uni;
	r0 = *ref;
	exact_gate(x, o, cd, place_lo(x->so), bound, mm, uni, ref);
	if (no && u0 && !*uni && bound > no[0])
		no[0] = bound;
	if (no && r0 && !*ref && bound > no[1])
		no[1] = bound;
}

/*
 * What search_exact_rest() learnt of a candidate whose gate let it
 * through, kept with the gate's proofs (no, gate_no()'s; NULL: none):
 * its uniform recomputation (uni) cannot simulate below fu, the floor
 * of its stages under its best placement, nor its refinement (ref)
 * below fr, the floor of those stages without recomputation
 * (INFINITY: it fits under no placement).  The same links give the same
 * partition and floors, so a later search of the memo (capacity's next
 * size, whose bound is lower) turns it away at once instead of gating,
 * solving and looking up its floors again; under a bound above a floor
 * it goes through as before.  NAN: nothing learnt.
 */
static void
floor_proof(double *no, int uni, int ref, double fu, double fr)
{
	if (!no)
		return;
	if (uni && fu > no[0])
		no[0] = fu;
	if (ref && fr > no[1])
		no[1] = fr;
}

/*
 * x->st, x->first and the links of place in x->links: cd's stages under
 * place, whose search_solve_best() (with keep_best) just found it its best, as
 * search_solve() gives them: the copy search_solve_best() kept (the unbounded
 * solve's, whose partition the part table then holds for search_solve()), else
 * solved. Not under --recompute-every, whose stages leave x->rc to
 * search_keep_sim().
 */
static void
best_stages(struct ctx *x, const struct cost_opts *o, const struct cand *cd,
	    int place)
{
	struct plan_terms terms;
	struct cost_cfg g;
	int s;

	if (!x->kept) {
		search_solve(x, o, cd, place, INFINITY, &terms);
		return;
	}
	memcpy(x->st, x->best_st, (size_t)cd->d * sizeof(*x->st));
	for (s = 0; s < cd->d; s++)
		x->first[s] = x->st[s].first;
	search_cfg_of(x, cd, place, &g);
	search_links_for(x, place, g.w, g.d, g.t, g.c, g.e, g.etp);
}

/*
 * Make the best alternative the best simulated time of all candidates,
 * as simulating every one of them would find it (tests/unit/
 * test_search_lp.c): the closed form the search ranks by charges the
 * transfers between stages on both ends of each stage, which the
 * simulation overlaps with compute, so it can run well below the closed
 * form (up to 40% on unequal stages) and a candidate the closed form
 * ranked out of the alternatives kept can simulate faster than all of
 * them.  Every candidate whose simulated time could beat the best one
 * (best, the time to beat) is taken, in the order of a lower bound of
 * its simulated time whatever its partition (cost_simulate_lb(), the
 * visit's sim), until that bound reaches the best: solved as the search
 * solves it (its best placement by the closed form, its stages the
 * partition of that placement), and simulated when the floor of its
 * stages is below the best; kept when faster.  A candidate that
 * recomputes under a runtime that takes a per-layer choice is refined
 * by GLPK as well, as the loop over the alternatives refines the lp_k
 * best: its bound counts no recomputation, and GLPK only runs when the
 * floor of its stages without recomputation is below the best (no
 * refinement of them is faster).  sims: the candidates and placements
 * simulated already (or known not to beat it), left out.  On a fast
 * network the floors of most candidates lie above the best: few are
 * simulated.
 */
void
search_exact_rest(struct ctx *x, const struct search_chain *sc, int nsc,
		  const struct cluster *cl, const struct cost_opts *o,
		  const struct search_opts *so, int N, struct plan_alt *alts,
		  struct cand *ac, double *simt, int *nalt, int k,
		  const struct sims *sims)
{
	struct lp_visit lv;
	struct lb_memo mm;
	struct plan_stage *nst;
	long i;
	int j, *ord, ev = cost_every_on(o), lp = so->lp_k > 0 && !ev;

	memset(&lv, 0, sizeof(lv));
	lv.vt.fn = exact_visit_fn;
	lv.vt.group = lp_visit_group;
	lv.vt.mono = 1;
	lv.vt.sim = lp ? 2 : 1;
	lv.bound = INFINITY;
	for (j = 0; j < *nalt; j++)
		if (simt[j] < lv.bound)
			lv.bound = simt[j];
	if (!isfinite(lv.bound))
		return;
	lv.vt.over = lv.bound; /* lp_visit_group()'s */
	lv.known = exact_known;
	lv.x = x;
	lp_collect(&lv, sc, nsc, cl, o, so, N,
		   lv.vt.sim == 2 ? KIND_SIM2 : KIND_SIM1);
	x->stats->exact_taken += lv.n + lv.skipped;
	/* filled before they are read (exact_floor_none(), floor_stages(),
	 * exact_lp()): not zeroed, 16 KB a search */
	nst = xmalloc((size_t)sc[0].c->L * sizeof(*nst));
	ord = xmalloc((size_t)sc[0].c->L * sizeof(*ord));
	search_lb_memo_init(&mm, so, sc, nsc, sc[0].c->L);
	for (i = 0; i < lv.n && lv.c[i].lb < lv.bound; i++) {
		struct cand cd = lv.c[i], cr = cd;
		struct cost_cfg g;
		double fu, fr, t, *no = NULL;
		int place, refine, uni, ref;

		cd.lb = 0;
		cr.lb = 0;
		cr.lp = 1;
		refine = lp && cd.r != PROF_RC_NONE &&
			 cost_runtime(o, cd.sched, cd.d)->mixed_rc;
		/* simulated already: under its best placement */
		place = search_sims_has(sims, &cd, -1);
		uni = place < 0;
		ref =
		    refine && (place < 0 || !search_sims_has(sims, &cr, place));
		if (!so->uniform && (uni || ref)) {
			no = gate_no(x, &lv, i, &cd);
			exact_gate_known(x, o, &cd, lv.bound, &mm, no, &uni,
					 &ref);
		} else if ((uni || ref) && exact_lb(x, &mm, &cd) >= lv.bound)
			uni = ref = 0;
		if (!uni && !ref)
			continue;
		x->stats->exact++;
		x->keep_best = !ev;
		t = search_solve_best(x, o, so, &cd, INFINITY, &place);
		x->keep_best = 0;
		if (!isfinite(t)) {
			/* no placement fits: not under any bound */
			floor_proof(no, uni, ref, INFINITY, INFINITY);
			continue;
		}
		/* what its floors were on these links, in an earlier
		 * search of the memo (capacity's sizes) */
		uni = uni && !search_sims_has(sims, &cd, place);
		ref = ref && !search_sims_has(sims, &cr, place);
		fu = uni ? floor_known(x, &cd, place) : NAN;
		fr = ref ? floor_known(x, &cr, place) : NAN;
		floor_proof(no, uni, ref, fu, fr);
		uni = uni && !(fu >= lv.bound);
		ref = ref && !(fr >= lv.bound);
		if (!uni && !ref)
			continue;
		best_stages(x, o, &cd, place);
		if (uni) {
			search_cfg_of(x, &cd, place, &g);
			fu = cost_simulate_floor(x->st, &g);
			floor_keep(x, &cd, place, fu);
			floor_proof(no, 1, 0, fu, NAN);
			if (fu < lv.bound)
				exact_try(x, &cd, place, alts, ac, simt, nalt,
					  k, &lv.bound,
					  ev && cd.r == PROF_RC_FULL);
		}
		if (!ref)
			continue;
		/* nst: the stages without recomputation, for exact_lp() */
		if (isnan(fr)) {
			fr = exact_floor_none(x, &cd, place, nst);
			floor_keep(x, &cr, place, fr);
			floor_proof(no, 0, 1, NAN, fr);
			if (fr < lv.bound)
				floor_keep_stages(x, &cr, place, nst);
		} else if (fr < lv.bound &&
			   !floor_stages(x, &cr, place, nst)) {
			exact_floor_none(x, &cd, place, nst);
			floor_keep_stages(x, &cr, place, nst);
		}
		if (!(fr < lv.bound))
			continue;
		/* x->st: its stages, what search_solve() of cr gives */
		if (exact_lp(x, &cr, place, lv.bound, nst, ord))
			exact_try(x, &cr, place, alts, ac, simt, nalt, k,
				  &lv.bound, 1);
	}
	search_lb_memo_release(&mm);
	free(ord);
	free(nst);
	free(lv.c);
	free(lv.at);
}
