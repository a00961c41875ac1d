/*
 * refine.c - GLPK's per-layer recomputation beyond the lp_k best: every
 * candidate that recomputes and could beat the best alternative, taken by
 * a bound that leaves its recomputation out, and refined under bounds
 * that stop GLPK early (search_refine_rest()).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search_int.h"

/* struct lp_visit's group (search_exact_rest()'s too): whether the least
 * lower bound of a group, lo, is under the bound. */
int
lp_visit_group(struct visit *vt, double lo, double hi, long n)
{
	(void)hi;
	(void)n;
	return lo < ((struct lp_visit *)vt)->bound;
}

static void
lp_visit_fn(struct visit *vt, const struct cand *cd)
{
	struct lp_visit *lv = (struct lp_visit *)vt;

	if (cd->r == PROF_RC_NONE || !(cd->lb < lv->bound))
		return;
	if (lv->n == lv->cap) {
		lv->cap = lv->cap ? 2 * lv->cap : 64;
		lv->c = xrealloc(lv->c, (size_t)lv->cap * sizeof(*lv->c));
	}
	lv->c[lv->n++] = *cd;
}

/*
 * The candidates of N GPUs or fewer that lv's visit (lp_visit_fn() for
 * KIND_LP, exact_visit_fn()) keeps under lv->bound, into lv->c in
 * cand_cmp order: from the memo's list of that kind when it has one,
 * else enumerated and sorted.
 */
void
lp_collect(struct lp_visit *lv, const struct search_chain *sc, int nsc,
	   const struct cluster *cl, const struct cost_opts *o,
	   const struct search_opts *so, int N, enum cand_kind kind)
{
	const struct cand_list *l =
	    search_cand_list_of(sc, nsc, cl, o, so, N, kind);
	long i, dummy;

	if (!l) {
		search_enumerate(sc, nsc, cl, o, so, N, &lv->vt, &dummy, NULL);
		search_cand_sort_long(lv->c, lv->n, so->plain);
		return;
	}
	/* (the memo's own, which search_cand_list_of() hands out read-only) */
	lv->from = &so->memo->lists[kind];
	/* room for every candidate of N GPUs or fewer at once (untouched
	 * but for those taken), not doubled a copy at a time */
	if (lv->cap < l->ncand[N]) {
		lv->cap = l->ncand[N];
		lv->c = xrealloc(lv->c, (size_t)lv->cap * sizeof(*lv->c));
	}
	free(lv->at);
	lv->at = xmalloc(((size_t)lv->cap + 1) * sizeof(*lv->at));
	for (i = 0; i < l->n; i++) {
		while (list_skips(l, i, N, lv->bound))
			i += LIST_BLOCK;
		if (i == l->n || !(l->c[i].lb < lv->bound))
			break;
		if (l->gpus[i] > N ||
		    (kind == KIND_LP && l->c[i].r == PROF_RC_NONE))
			continue;
		if (lv->known && lv->known(lv, i)) {
			lv->skipped++;
			continue;
		}
		if (lv->n == lv->cap) {
			lv->cap = lv->cap ? 2 * lv->cap : 64;
			lv->c = xrealloc(lv->c,
					 (size_t)lv->cap * sizeof(*lv->c));
			lv->at =
			    xrealloc(lv->at, (size_t)lv->cap * sizeof(*lv->at));
		}
		lv->at[lv->n] = i;
		lv->c[lv->n++] = l->c[i];
	}
}

/*
 * search_apply_lp() of cd (lp set) under place, whose stages x->st hold, unless
 * it cannot come under bound: then INFINITY, and x->st and x->rc are
 * left part refined.  GLPK keeps the partition and only adds some
 * layers' recomputation (and what it repeats), so stages that recompute
 * nothing are no slower than GLPK's, and the iteration time grows with
 * each stage's time: with the stages not refined yet taken without
 * recomputation, the time so far is a lower bound.  The stages are
 * refined most memory first: they recompute the most, and their choice
 * is most often enough to stop.  Under activation offload recomputing
 * shortens the transfers: no bound then.  nst, ord: room for d stages
 * and indices.
 */
static double
apply_lp_under(struct ctx *x, const struct cand *cd, int place,
	       double bound, struct plan_stage *nst, int *ord,
	       struct plan_terms *terms)
{
	struct cand cn = *cd;
	struct cost_cfg g, gn;
	struct lp_opts lo;
	double t0, t = 0;
	int i, j, s, st_lp;

	if (cd->offload)
		return search_apply_lp(x, cd, place, terms);
	cn.r = PROF_RC_NONE;
	cn.lp = 0;
	search_cfg_of(x, &cn, place, &gn);
	search_links_for(x, place, gn.w, gn.d, gn.t, gn.c, gn.e, gn.etp);
	for (s = 0; s < cd->d; s++) {
		cost_stage(x->c, x->o, &gn, &x->links, s, x->st[s].first,
			   x->st[s].last, &nst[s]);
		/* most memory over the cap first, the stage that needs
		 * the most recomputation (ties: in stage order) */
		for (i = s; i > 0 && nst[ord[i - 1]].mem_bytes <
					     nst[s].mem_bytes;
		     i--)
			ord[i] = ord[i - 1];
		ord[i] = s;
	}
	if (!(cost_iteration(nst, &gn, terms) < bound))
		return INFINITY;
	search_cfg_of(x, cd, place, &g);
	lp_opts_of(x, &lo);
	x->lp_status = LP_OPTIMAL;
	t0 = lp_clock_ms(x);
	for (j = 0; j < cd->d && t < INFINITY; j++) {
		s = ord[j];
		st_lp = search_apply_lp_stage(x, &g, &lo, s);
		nst[s] = x->st[s];
		if ((st_lp != LP_OPTIMAL && st_lp != LP_FEASIBLE) ||
		    !(cost_iteration(nst, &g, terms) < bound))
			t = INFINITY;
	}
	x->stats->lp_ms += lp_clock_ms(x) - t0;
	return t < INFINITY ? cost_iteration(x->st, &g, terms) : INFINITY;
}

/*
 * The memo's entry of what search_refine_rest() found of cd under placement
 * place (a fresh one when it has none, or one of another grid), or NULL
 * without a memo.  Its pointer holds until the next call.
 */
static struct refine_mark *
refined_find(struct ctx *x, const struct cand *cd, int place)
{
	struct refine_table *rt;
	struct refine_entry *e;
	struct cand k = *cd;
	int fresh, seg;

	/* (the even split is another partition, as with the times) */
	if (!x->so->memo || x->so->uniform || cd->m <= 0)
		return NULL;
	rt = &x->so->memo->refined;
	if (rt->cl != x->cl) {
		TABLE_EMPTY(rt);
		rt->cl = x->cl;
	}
	/* its GPUs (w d t c), as search_cfg_of() would give them; the chain in
	 * x->c as search_cfg_of() leaves it */
	x->c = x->sc[cd->ti].c;
	seg = place_segment(x->cl, cand_gpus(x->sc, cd));
	k.lb = 0;
	k.lp = place;
	e = search_slot_find((void **)&rt->e, &rt->n, &rt->cap, sizeof(*e),
			     1024, &k, &fresh);
	if (fresh || e->k.seg != seg) {
		e->k.seg = seg;
		e->k.t = NAN;
		e->k.lo = -INFINITY;
	}
	return &e->k;
}

/*
 * refined_find() of lv's i-th candidate cd: by its place in the memo's
 * list when lv was taken from one (the same findings, a list holding
 * each candidate once), else by key.  Its pointer holds until the next
 * call.
 */
static struct refine_mark *
refined_at(struct ctx *x, const struct lp_visit *lv, long i,
	   const struct cand *cd, int place)
{
	struct cand_list *l = lv->from;
	struct refine_mark *e;
	int seg;

	if (!l || x->so->uniform || cd->m <= 0 || place < 0 || place > 1)
		return refined_find(x, cd, place);
	if (!l->refs || l->rcl != x->cl) {
		free(l->refs);
		l->refs = xcalloc(2 * (size_t)l->n, sizeof(*l->refs));
		l->rcl = x->cl;
	}
	/* the chain in x->c as refined_find() leaves it */
	x->c = x->sc[cd->ti].c;
	e = &l->refs[2 * lv->at[i] + place];
	seg = place_segment(x->cl, l->gpus[lv->at[i]]);
	if (e->seg != seg) {
		e->seg = seg;
		e->t = NAN;
		e->lo = -INFINITY;
	}
	return e;
}

/* Whether entry e (or NULL: nothing known) says its candidate has no
 * refined time under bound. */
static int
refined_out(const struct refine_mark *e, double bound)
{
	if (!e)
		return 0;
	return isnan(e->t) ? bound <= e->lo : !(e->t < bound);
}

/*
 * lp_visit's known for search_refine_rest(): the list's i-th candidate
 * is out under lv->bound at every placement by what the memo found of
 * it (refined_at(), refined_out()), as the loop would find before any
 * other work (capacity's sizes ask mostly the same candidates, most of
 * them out by the time a smaller size found).
 */
static int
refine_known(const struct lp_visit *lv, long i)
{
	const struct ctx *x = lv->x;
	const struct cand_list *l = lv->from;
	const struct cand *cd = &l->c[i];
	int pl, seg;

	if (x->so->uniform || x->so->plain || cd->m <= 0 || !l->refs ||
	    l->rcl != x->cl)
		return 0;
	seg = place_segment(x->cl, l->gpus[i]);
	for (pl = place_lo(x->so); pl <= place_hi(x->so, cd); pl++) {
		const struct refine_mark *e = &l->refs[2 * i + pl];

		if (pl < 0 || pl > 1 || e->seg != seg ||
		    !refined_out(e, lv->bound))
			return 0;
	}
	return 1;
}

/* Keep in the memo that lv's i-th candidate cd under place refines to t
 * (INFINITY: to nothing under bound). */
static void
refined_keep(struct ctx *x, const struct lp_visit *lv, long i,
	     const struct cand *cd, int place, double t, double bound)
{
	struct refine_mark *e = refined_at(x, lv, i, cd, place);

	if (!e)
		return;
	if (isfinite(t))
		e->t = t;
	else if (bound > e->lo)
		e->lo = bound;
}

/*
 * GLPK's refinement of every candidate that recomputes and could beat
 * the best alternative (simulated), not only of the lp_k best the
 * closed form kept: a configuration that fits only by recomputing, whose
 * uniform recomputation ranks it out of the kept alternatives, may win
 * once GLPK recomputes only some layers.  Refined stages are those of
 * the configuration's partition with some layers' recomputation added,
 * so no faster than its best partition without recomputation and
 * without the memory cap (an uncapped r = none solve), itself no faster
 * than cand_lb() of r = none: candidates are taken by that bound, the
 * solve is asked before GLPK, GLPK stops as apply_lp_under() says.
 * Those bounds are closed-form times, the ranking's are simulated: the
 * simulation overlaps the transfers between stages with compute and can
 * run well below the closed form of unequal stages, so they only choose
 * the refinements most likely to win, early, to lower the time
 * search_exact_rest() then holds every other candidate to (which makes up for
 * what they leave out).  sims: what the loop over the alternatives
 * refined already; those this refines join it.  A refined candidate whose
 * simulated time beats the best joins alts (the slowest making room when they
 * are full, simt its time) and is then the time to beat.  With a memo, what a
 * search on the same links found of a candidate and placement stands
 * (refined_find()): its refined time, which the bound does not change,
 * or that it has none under a bound (the uncapped solve's verdict
 * included); the sizes of capacity ask mostly the same ones.
 */
void
search_refine_rest(struct ctx *x, const struct search_chain *sc, int nsc,
		   const struct cluster *cl, const struct cost_opts *o,
		   const struct search_opts *so, int N, struct plan_alt *alts,
		   struct cand *ac, double *simt, int *nalt, int k,
		   struct sims *sims)
{
	struct lp_visit lv;
	struct lb_memo mm;
	struct cand ln = {0}; /* the last uncapped r = none solve's */
	double tn = INFINITY; /* its time */
	double tn_at = INFINITY; /* the bound it was solved under */
	struct plan_terms terms;
	struct plan_stage *nst;
	long i;
	int j, *ord, L = sc[0].c->L;

	if (so->lp_k <= 0 || cost_every_on(o) || *nalt == 0)
		return;
	memset(&lv, 0, sizeof(lv));
	lv.vt.fn = lp_visit_fn;
	lv.vt.group = lp_visit_group;
	lv.vt.mono = 1;
	lv.vt.lp_only = 1;
	lv.bound = INFINITY;
	for (j = 0; j < *nalt; j++)
		if (alts[j].iter_ms < lv.bound)
			lv.bound = alts[j].iter_ms;
	lv.known = refine_known;
	lv.x = x;
	lp_collect(&lv, sc, nsc, cl, o, so, N, KIND_LP);
	x->stats->taken += lv.n + lv.skipped;
	/* filled before they are read (apply_lp_under()): not zeroed */
	nst = xmalloc((size_t)L * sizeof(*nst));
	ord = xmalloc((size_t)L * sizeof(*ord));
	search_lb_memo_init(&mm, so, sc, nsc, L);
	for (i = 0; i < lv.n && lv.c[i].lb < lv.bound; i++) {
		struct cand cd = lv.c[i], cn = cd;
		int pl, place, p0 = place_lo(so), p1 = place_hi(so, &cd);
		int out[2] = {0, 0}, left = 0; /* by pl - p0: p1 <= p0 + 1 */

		for (pl = p0; pl <= p1; pl++) {
			struct cand cr = cd;

			cr.lp = 1;
			out[pl - p0] =
			    search_sims_has(sims, &cr, pl) ||
			    refined_out(refined_at(x, &lv, i, &cd, pl),
					lv.bound);
			left += !out[pl - p0];
		}
		if (!left)
			continue;
		/* no partition's floor with what GLPK's refinement must
		 * recompute comes under the bound: under 2bw its closed
		 * form, m times its slowest stage, is no lower */
		if (cd.sched == PLAN_2BW &&
		    !search_exact_fits_rc(x, &mm, &cd, lv.bound)) {
			for (pl = p0; pl <= p1; pl++)
				if (!out[pl - p0])
					refined_keep(x, &lv, i, &cd, pl,
						     INFINITY, lv.bound);
			continue;
		}
		cn.r = PROF_RC_NONE;
		cn.lb = 0;
		/* selective and full share it (and their lower bound:
		 * next to each other in the order) */
		/* ... unless the bound came down since: a solve that
		 * stopped at the first placement under the bound it had may
		 * be over this one where another placement is not */
		if (!cd.offload &&
		    (!(ln.m > 0 && same_key(&ln, &cn)) ||
		     (!so->gate_all && tn < tn_at && !(tn < lv.bound)))) {
			ln = cn;
			x->any_under = !so->gate_all;
			tn = search_solve_best(x, &x->nocap, so, &cn, lv.bound,
					       &place);
			tn_at = lv.bound;
			x->any_under = 0;
		}
		x->stats->gated += cd.offload || tn < lv.bound;
		if (!cd.offload && !(tn < lv.bound)) {
			for (pl = p0; pl <= p1; pl++)
				if (!out[pl - p0])
					refined_keep(x, &lv, i, &cd, pl,
						     INFINITY, lv.bound);
			continue;
		}
		for (pl = p0; pl <= p1; pl++) {
			struct cand cr = cd;
			double t, ts;
			int fl;

			if (out[pl - p0])
				continue;
			cr.lp = 1;
			t = search_solve(x, o, &cr, pl, INFINITY, &terms);
			if (isfinite(t))
				t = apply_lp_under(x, &cr, pl, lv.bound, nst,
						   ord, &terms);
			refined_keep(x, &lv, i, &cd, pl, t, lv.bound);
			if (!(t < lv.bound))
				continue;
			ts = search_rescore(x, &cr, pl, NULL, &fl);
			search_sims_add(sims, &cr, pl);
			if (!(ts * (1 + 1e-9) < lv.bound))
				continue;
			search_keep_sim(x, alts, ac, simt, nalt, k, &cr, pl, ts,
					1);
			lv.bound = ts;
		}
	}
	search_lb_memo_release(&mm);
	free(ord);
	free(nst);
	free(lv.c);
	free(lv.at);
}
