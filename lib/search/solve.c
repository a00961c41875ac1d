/*
 * solve.c - the exact solve of one candidate: its partition into stages
 * under a placement rule and a bound (solve_checked()), its best
 * placement (search_solve_best()), GLPK's per-layer recomputation of its stages
 * (search_apply_lp()), and the event simulation that re-scores it
 * (search_rescore()).
 */
#include <math.h>
#include <string.h>

#include "search_int.h"

void
search_cfg_of(struct ctx *x, const struct cand *cd, int place,
	      struct cost_cfg *g)
{
	x->c = x->sc[cd->ti].c;
	g->t = x->sc[cd->ti].t;
	g->v = cd->v;
	g->zero = cd->zero;
	g->shard = cd->shard;
	g->offload = cd->offload;
	g->sched = cd->sched;
	g->w = cd->w;
	g->d = cd->d;
	g->k = cd->k;
	g->b = x->c->mb[cd->k];
	g->m = cd->m;
	g->r = cd->r;
	g->place = place;
	g->sp = x->sc[cd->ti].sp;
	g->c = x->sc[cd->ti].cp > 1 ? x->sc[cd->ti].cp : 1;
	g->e = x->sc[cd->ti].ep > 1 ? x->sc[cd->ti].ep : 1;
	g->etp = x->sc[cd->ti].etp > 0 ? x->sc[cd->ti].etp : g->t;
	g->rt = cost_runtime(x->o, cd->sched, cd->d);
}

/*
 * Megatron's split of nb blocks over d stages of v chunks each, as block
 * counts per stage into n[0..d).  Megatron-Core needs the blocks to divide
 * by d * v, unless the embedding and the loss each take a block's slot
 * (account_for_embedding_in_pipeline_split and
 * account_for_loss_in_pipeline_split: the slots divide by d * v, and the
 * first and the last virtual stage build one block fewer;
 * NVIDIA/Megatron-LM megatron/core/transformer/transformer_block.py:147-170,
 * 189-202).  Both slots are tried first, then the loss's alone (the head
 * outweighs the embedding), then the embedding's.  When none divides,
 * the first stages take one block more (a split Megatron runs only as a
 * pipeline layout).
 */
static void
megatron_counts(int nb, int d, int v, int *n)
{
	static const int slot[3][2] = {{1, 1}, {0, 1}, {1, 0}};
	int s, k;

	if (d > 1 && nb % (d * v))
		for (k = 0; k < 3; k++) {
			int slots = nb + slot[k][0] + slot[k][1];

			if (slots % (d * v) || slots / d <= 1)
				continue;
			for (s = 0; s < d; s++)
				n[s] = slots / d;
			n[0] -= slot[k][0];
			n[d - 1] -= slot[k][1];
			return;
		}
	for (s = 0; s < d; s++)
		n[s] = nb / d + (s < nb % d);
}

/*
 * Megatron's split (megatron_counts), layers before the first block on
 * stage 0 and after the last block on stage d - 1, or a pipeline
 * layout's (layout: entries per stage).  A chain without blocks splits
 * its layers evenly.  Returns -1 when a stage would be empty.
 */
static int
uniform_split(const struct chain *c, int d, int v, const int *layout,
	      int *first)
{
	int lo = 0, hi = c->L - 1, j, s, nb, pos, cnt;

	if (layout) {
		/* the ranks' entries, as search_layout() counted them */
		for (s = 0, pos = 0; s < d; s++) {
			first[s] = pos;
			pos += layout[s];
		}
		return pos == c->L ? 0 : -1;
	}

	for (j = 0; j < c->L && c->kind[j] != PROF_BLOCK; j++)
		;
	if (j == c->L) {
		lo = 0;
		hi = c->L - 1;
		v = 1;
	} else {
		lo = j;
		for (hi = c->L - 1; c->kind[hi] != PROF_BLOCK; hi--)
			;
	}
	nb = hi - lo + 1;
	if (nb < d)
		return -1;
	/* the counts, then in place the first layer of each stage */
	megatron_counts(nb, d, v < 1 ? 1 : v, first);
	for (s = 0, pos = lo; s < d; s++) {
		cnt = first[s];
		first[s] = s ? pos : 0;
		pos += cnt;
	}
	return 0;
}

/* The bound on a stage's time per microbatch that an iteration bound
 * puts (INFINITY: none). */
static double
stage_bound(const struct cost_cfg *g, double bound)
{
	if (!isfinite(bound))
		return INFINITY;
	if (g->sched == PLAN_2BW)
		return bound / g->m;
	if (g->sched != PLAN_NONE)
		return bound / (g->m + (double)(g->d - 1) / g->v);
	return INFINITY;
}

/*
 * The memo's entry (this thread's) for cd under place and options o (the
 * context's own or nocap), whose partition (first) a search solving it
 * on the same links (x->links) ends with (first NULL: it knows none
 * yet), or NULL without a memo.
 */
static struct time_entry *
part_known(struct ctx *x, const struct cost_opts *o, const struct cand *cd,
	   int place, int d)
{
	struct time_table *tt = o == x->o ? x->times
				: o == &x->nocap ? x->ntimes : NULL;
	struct time_entry *e;

	if (!tt)
		return NULL;
	e = search_time_find(tt, cd, place);
	search_time_links(tt, e, x, d);
	return e;
}

/*
 * Solve candidate cd under placement rule place; returns its iteration
 * time, or INFINITY when it does not fit or cannot beat bound.  On success
 * x->st[0..d) hold its stages.  fits: part_fits() is known to hold under
 * this bound (it reads neither the placement nor the links).
 */
static double
solve_checked(struct ctx *x, const struct cost_opts *o,
	      const struct cand *cd, int place, double bound, int fits,
	      struct plan_terms *terms)
{
	struct part_entry *pe;
	struct time_entry *me = NULL;
	struct cost_cfg g;
	double tb, t;
	int s, i, ev = cost_every_on(o) && cd->r == PROF_RC_FULL, again = 0;
	int repeat = 0; /* the part table knew its partition */

	search_cfg_of(x, cd, place, &g);
	/* Under --recompute-every the partition is full recomputation's
	 * (NEEDSWORK: not the best one for the blocks each rank then
	 * recomputes), whose time bounds nothing: the stages recompute
	 * less */
	tb = ev ? INFINITY : stage_bound(&g, bound);
	/* Most candidates the bound cuts have no partition left under it:
	 * part_solve() would say INFINITY; say it before the links, which
	 * take O(w d t) to work out on a large cluster. */
	if (!fits && !x->so->uniform && !search_cand_fits(x, o, cd, &g, tb))
		return INFINITY;
	search_links_for(x, place, g.w, g.d, g.t, g.c, g.e, g.etp);
	pe = !x->so->uniform && cd->m > 0 && (o == x->o || o == &x->nocap)
		     ? part_find(&x->parts, cd, place + 2 * (o == &x->nocap))
		     : NULL;
	if (x->so->uniform) {
		if (uniform_split(x->c, g.d, g.v, x->so->layout, x->first))
			return INFINITY;
	} else if (pe && pe->first) {
		/* solved before: what the solve below would end with */
		memcpy(x->first, pe->first, (size_t)g.d * sizeof(int));
		repeat = 1;
	} else if (pe && (me = part_known(x, o, cd, place, g.d)) &&
		   me->first) {
		/* and so in an earlier search of the memo, on these links */
		again = !ev && !x->so->plain;
		pe->first = xmalloc((size_t)g.d * sizeof(int));
		memcpy(pe->first, me->first, (size_t)g.d * sizeof(int));
		memcpy(x->first, me->first, (size_t)g.d * sizeof(int));
	} else {
		/*
		 * Under flush and GPipe the iteration is at least (m + (d -
		 * 1) / v) times the slowest stage's busy time
		 * (cost_iteration()'s P), tb's divisor, and the programme's
		 * stage cost without the synchronisation and what the
		 * runtime hides (ws.no_sync) sums terms of that busy time,
		 * to rounding, or lower bounds of them: with no partition
		 * whose slowest stage costs tb and a hair or less so,
		 * nothing beats bound (tests/unit/test_plan.c,
		 * test_partition_busy).  The solve below cannot say so for
		 * less than the whole programme: it adds the all-reduce,
		 * paid once, to every stage, so no cut of tb holds for it.
		 * Under the cut this one has a narrow band: most
		 * candidates over it cost a fraction of the whole
		 * programme, those under it little more.  (With one or two
		 * stages the programme has no band to narrow.)  The
		 * expert-parallel overlap hides a share of the all-to-alls
		 * that no sum of layers follows: not with it.
		 */
		if ((g.sched == PLAN_FLUSH || g.sched == PLAN_GPIPE) &&
		    g.d >= 3 && isfinite(tb) &&
		    !(cost_ep_deg(&g) > 1 &&
		      runtime_has(cost_cfg_runtime(o, &g),
				  RUNTIME_OPT_OVERLAP_MOE_EP_COMM))) {
			x->ws.no_sync = 1;
			x->ws.cut_ms = tb * (1 + 1e-6);
			t = part_solve(&x->ws, x->c, o, &g, &x->links,
				       PART_TIME, INFINITY, x->first);
			x->ws.no_sync = 0;
			x->ws.cut_ms = 0;
			if (!(t <= tb * (1 + 1e-6)))
				return INFINITY;
		}
		/* part_fits() holds under tb: given, or just asked */
		x->ws.fits_known = 1;
		/* Under 2BW the iteration is m times its slowest stage's
		 * cost_stage_ms(), of which the programme's stage cost is
		 * the sum to rounding (or a lower bound): an optimum above
		 * tb, and a hair, cannot beat bound.  (Under the other
		 * schedules the all-reduce is paid once, not per
		 * microbatch.) */
		x->ws.cut_ms = g.sched == PLAN_2BW && isfinite(tb)
				       ? tb * (1 + 1e-6)
				       : 0;
		t = part_solve(&x->ws, x->c, o, &g, &x->links, PART_TIME, tb,
			       x->first);
		x->ws.fits_known = 0;
		/* The bound prunes by compute alone, which the iteration
		 * pays (m + (d - 1) / v) times at least: with no partition
		 * left nothing beats bound.  A result at or above tb is the
		 * best of the partitions left, not always the unbounded one,
		 * and its iteration may still beat bound (the all-reduce in
		 * a stage's cost is paid once, not per microbatch): take the
		 * unbounded one, the partition evaluation finds.  Its value
		 * is at most t, so a bound just above t gives it exactly
		 * (part_solve()'s contract) and still prunes.  When the
		 * bound left nothing out, t is that one already. */
		if (isfinite(t) && t >= tb && x->ws.pruned)
			t = part_solve(&x->ws, x->c, o, &g, &x->links,
				       PART_TIME, nextafter(t, INFINITY),
				       x->first);
		x->ws.cut_ms = 0;
		if (!isfinite(t))
			return INFINITY;
		if (pe) {
			pe->first = xmalloc((size_t)g.d * sizeof(int));
			memcpy(pe->first, x->first,
			       (size_t)g.d * sizeof(int));
		}
		if (me) {
			me->first = xmalloc((size_t)g.d * sizeof(int));
			memcpy(me->first, x->first,
			       (size_t)g.d * sizeof(int));
		}
	}
	if (pe && pe->st) {
		/* the stages of the same partition on the same links */
		memcpy(x->st, pe->st, (size_t)g.d * sizeof(*x->st));
		goto stages;
	}
	if (again && me->st) {
		/* and as a third search of the memo or later made them */
		memcpy(x->st, me->st, (size_t)g.d * sizeof(*x->st));
		pe->st = xmalloc((size_t)g.d * sizeof(*pe->st));
		memcpy(pe->st, x->st, (size_t)g.d * sizeof(*pe->st));
		goto stages;
	}
	/* the first stage and the last first (the model's ends, the
	 * slowest most often, whose figure can end the solve below); each
	 * stage on its own */
	for (i = 0; i < g.d; i++) {
		int e;

		s = i < 2 ? (i ? g.d - 1 : 0) : i - 1;
		e = s + 1 < g.d ? x->first[s + 1] - 1 : x->c->L - 1;
		if (ev) {
			/* the blocks this rank's runtime wraps */
			cost_every_rc(x->c, o, x->first[s], e,
				      x->rc + x->first[s]);
			cost_stage_rc(x->c, o, &g, &x->links, s, x->first[s],
				      e, x->rc + x->first[s], &x->st[s]);
		} else {
			cost_stage(x->c, o, &g, &x->links, s, x->first[s], e,
				   &x->st[s]);
		}
		if (x->st[s].mem_bytes > o->cap_bytes)
			return INFINITY;
		/*
		 * cost_iteration() from the slowest stage up: under 2BW m
		 * times the largest over the stages of a stage's busy time
		 * or its synchronisation per microbatch, under flush and
		 * GPipe (m + (d - 1) / v) times the largest busy time and
		 * more, the same terms in the same order.  No less than
		 * this stage's figure: with that at the bound or over,
		 * nothing beats it whatever the rest (the stages are not
		 * kept).
		 */
		if (isfinite(bound) && !x->so->plain &&
		    (g.sched == PLAN_2BW || g.sched == PLAN_FLUSH ||
		     g.sched == PLAN_GPIPE)) {
			double busy = cost_stage_busy(&x->st[s]), lb;
			int v = g.v > 1 ? g.v : 1;

			if (g.sched == PLAN_2BW) {
				double sync = (x->st[s].allreduce_ms +
					       x->st[s].gather_ms +
					       cost_stage_upd_ms(&x->st[s])) /
					      g.m;

				lb = g.m * (busy > sync ? busy : sync);
			} else {
				lb = g.m * busy + (g.d - 1) * busy / v;
			}
			if (lb >= bound)
				return INFINITY;
		}
	}
	/*
	 * Kept from its second solve on: most candidates are solved once,
	 * and their stages' copies (d of 192 bytes) would each take new
	 * pages, which cost more than working the stages out again (GPT-3
	 * 175B on 1024 GPUs: 155 page faults of 13 us each, a tenth of its
	 * search, in a virtual machine).
	 */
	if (pe && !ev && repeat) {
		pe->st = xmalloc((size_t)g.d * sizeof(*pe->st));
		memcpy(pe->st, x->st, (size_t)g.d * sizeof(*pe->st));
	}
	if (again) {
		/* kept for the searches after (a partition a second
		 * search takes is most often taken again; the first's are
		 * too many to keep all) */
		me->st = xmalloc((size_t)g.d * sizeof(*me->st));
		memcpy(me->st, x->st, (size_t)g.d * sizeof(*me->st));
	}
stages:
	t = cost_iteration(x->st, &g, terms);
	return t < bound ? t : INFINITY;
}

double
search_solve(struct ctx *x, const struct cost_opts *o, const struct cand *cd,
	     int place, double bound, struct plan_terms *terms)
{
	return solve_checked(x, o, cd, place, bound, 0, terms);
}

/*
 * Refine stage s of x->st (just solved for configuration g) with GLPK's
 * per-layer recomputation choice, left in x->rc; returns lp_stage()'s
 * status, the stage refined when LP_OPTIMAL or LP_FEASIBLE.  The stages
 * are independent of each other: any order gives the same stages.
 */
int
search_apply_lp_stage(struct ctx *x, const struct cost_cfg *g,
		      const struct lp_opts *lo, int s)
{
	struct plan_stage *st = &x->st[s];
	int a = st->first, e = st->last, st_lp, j;
	double extra = 0; /* the LP's figure: the stage's is below */

	st_lp = lp_stage(x->c, x->o, g, &x->links, s, a, e, lo, x->rc + a,
			 &extra);
	/* Among equally good choices prefer the simpler: a layer whose
	 * lighter option is as fast and as small (an embedding has nothing
	 * to recompute selectively) takes it. */
	for (j = a; st_lp <= LP_FEASIBLE && j <= e; j++) {
		int r;

		for (r = 0; r < x->rc[j]; r++)
			if ((lo->rc_mask & (1u << r)) &&
			    CHAIN_AT(x->c, x->c->rc[r], g->k, j) <=
				    CHAIN_AT(x->c, x->c->rc[x->rc[j]], g->k,
					     j) &&
			    CHAIN_AT(x->c, x->c->stash[r], g->k, j) <=
				    CHAIN_AT(x->c, x->c->stash[x->rc[j]],
					     g->k, j) &&
			    (r == PROF_RC_FULL || x->rc[j] != PROF_RC_FULL ||
			     g->t == 1)) {
				x->rc[j] = r;
				break;
			}
	}
	x->stats->lp_solves++;
	if (st_lp > x->lp_status)
		x->lp_status = st_lp;
	if (st_lp != LP_OPTIMAL && st_lp != LP_FEASIBLE)
		return st_lp;
	/* the rule emit_rc_eval() evaluates a written plan by */
	cost_stage_rc(x->c, x->o, g, &x->links, s, a, e, x->rc + a, st);
	return st_lp;
}

void
lp_opts_of(const struct ctx *x, struct lp_opts *lo)
{
	lo->rc_mask = x->so->rc_mask;
	lo->mip_gap = x->so->lp_gap;
	lo->time_limit_ms = x->so->lp_ms;
	/* GLPK's answers, for the searches of the memo (on the caller's
	 * thread, as every GLPK solve) */
	lo->memo = NULL;
	lo->plain = x->so->plain;
	if (x->so->memo && !x->so->memo->lp)
		x->so->memo->lp = lp_memo_new();
	if (x->so->memo)
		lo->memo = x->so->memo->lp;
}

/*
 * Refine the stages in x->st (just solved for cd under place) with a
 * per-layer recomputation choice from GLPK; returns the new iteration
 * time (INFINITY if a stage has no feasible choice) and leaves the choices
 * in x->rc.
 */
double
search_apply_lp(struct ctx *x, const struct cand *cd, int place,
		struct plan_terms *terms)
{
	struct lp_opts lo;
	struct cost_cfg g;
	double t0 = lp_clock_ms(x);
	int s, st_lp;

	search_cfg_of(x, cd, place, &g);
	search_links_for(x, place, g.w, g.d, g.t, g.c, g.e, g.etp);
	lp_opts_of(x, &lo);
	x->lp_status = LP_OPTIMAL;
	for (s = 0; s < g.d; s++) {
		st_lp = search_apply_lp_stage(x, &g, &lo, s);
		if (st_lp != LP_OPTIMAL && st_lp != LP_FEASIBLE) {
			x->stats->lp_ms += lp_clock_ms(x) - t0;
			return INFINITY;
		}
	}
	x->stats->lp_ms += lp_clock_ms(x) - t0;
	return cost_iteration(x->st, &g, terms);
}

/*
 * The event simulation of candidate cd under place, whose stages x->st
 * hold (after search_solve() and, for a per-layer choice, search_apply_lp()):
 * the time every figure reports.  With terms NULL the time alone, without
 * keeping the simulation's operations (the same time, faster).
 */
double
search_simulate_stages(struct ctx *x, const struct cand *cd, int place,
		       struct plan_terms *terms)
{
	struct cost_cfg g;
	double t;

	search_cfg_of(x, cd, place, &g);
	if (!terms)
		t = cost_simulate_time(x->c, x->st, &g, &x->sim);
	else
		t = cost_simulate_terms(x->c, x->st, &g, terms, &x->sim);
	return t < 0 ? INFINITY : t;
}

/*
 * search_simulate_stages() of alternative cd under place for its time alone,
 * from the memo when an earlier search simulated the same configuration
 * on the very same links (x->links, its solve's), and kept there.  With
 * cut (else NULL) a long run may give a floor cut takes instead
 * (cost_simulate_time_cut()): then *floored is set, and the memo keeps
 * nothing.
 */
double
search_rescore(struct ctx *x, const struct cand *cd, int place,
	       const struct cost_cut *cut, int *floored)
{
	struct time_entry *e = NULL;
	struct cost_cfg g;
	double t;

	*floored = 0;
	if (x->so->memo && cd->m > 0) {
		e = search_time_find(&x->so->memo->sims, cd,
				     place + 2 * cd->lp);
		if (search_time_links(&x->so->memo->sims, e, x, cd->d) &&
		    !isnan(e->t))
			return e->t;
	}
	search_cfg_of(x, cd, place, &g);
	t = cut ? cost_simulate_time_cut(x->c, x->st, &g, &x->sim, cut,
					 floored)
		: cost_simulate_time(x->c, x->st, &g, &x->sim);
	if (t < 0)
		t = INFINITY;
	if (e && !*floored)
		e->t = t;
	return t;
}

/* Whether cd's links under placements p0 and p0 + 1 = p1 are the same
 * to the bit (x->links then holds p1's), kept with p1's grid in the
 * cache. */
static int
same_links(struct ctx *x, const struct cand *cd, int p0, int p1)
{
	struct lentry *e;
	struct cost_cfg g;
	size_t i, n;
	int same = 1;

	search_cfg_of(x, cd, p0, &g);
	n = (size_t)g.d * sizeof(double);
	e = search_links_for(x, p1, g.w, g.d, g.t, g.c, g.e, g.etp);
	if (e && p1 == p0 + 1 && e->same_prev >= 0)
		return e->same_prev;
	search_links_for(x, p0, g.w, g.d, g.t, g.c, g.e, g.etp);
	for (i = 0; i < PLACE_LINK_ARRAYS; i++)
		memcpy(x->lsave + i * g.d, x->links.all + i * x->links.dcap,
		       n);
	e = search_links_for(x, p1, g.w, g.d, g.t, g.c, g.e, g.etp);
	for (i = 0; same && i < PLACE_LINK_ARRAYS; i++)
		same = !memcmp(x->lsave + i * g.d,
			       x->links.all + i * x->links.dcap, n);
	if (e && p1 == p0 + 1)
		e->same_prev = same;
	return same;
}

/* Best placement of cd: iteration time, rule in *place. */
double
search_solve_best(struct ctx *x, const struct cost_opts *o,
		  const struct search_opts *so, const struct cand *cd,
		  double bound, int *place)
{
	struct time_table *tt = o == x->o ? x->times
				  : o == &x->nocap ? x->ntimes : NULL;
	struct plan_terms t;
	struct cost_cfg g;
	double best = INFINITY, v;
	int pl;

	*place = place_lo(so);
	x->kept = 0;
	/* Whether any partition is left under the bound does not depend
	 * on the placement: asked once while the bound stays. */
	search_cfg_of(x, cd, *place, &g);
	if (!so->uniform &&
	    !search_cand_fits(x, o, cd, &g, stage_bound(&g, bound)))
		return INFINITY;
	for (pl = place_lo(so); pl <= place_hi(so, cd); pl++) {
		double b = best < bound ? best : bound;
		struct time_entry *e = NULL;
		int known = 0;

		/* What an earlier search solved on the same links: its
		 * time, or no time under a bound at least as large. */
		if (tt && !so->uniform && cd->m > 0) {
			search_cfg_of(x, cd, pl, &g);
			search_links_for(x, pl, g.w, g.d, g.t, g.c, g.e, g.etp);
			e = search_time_find(tt, cd, pl);
			known = search_time_links(tt, e, x, g.d) &&
				(!isnan(e->t) || b <= e->lo);
		}
		if (known) {
			v = !isnan(e->t) && e->t < b ? e->t : INFINITY;
		} else if (pl > place_lo(so) &&
			   same_links(x, cd, pl - 1, pl)) {
			/*
			 * On the very same links the solve repeats the last
			 * one's (every figure reads the placement through
			 * its links alone): under its bound, with the same
			 * check, when it found nothing; else it ends with
			 * the same unbounded partition (solve_checked()),
			 * whose time, best, is not below b = best.
			 */
			v = INFINITY;
			if (e && b > e->lo)
				e->lo = b;
		} else {
			v = solve_checked(x, o, cd, pl, b, !(best < bound),
					  &t);
			if (e && isfinite(v))
				e->t = v;
			else if (e && b > e->lo)
				e->lo = b;
		}
		if (v < best) {
			best = v;
			*place = pl;
			/* the stages of a time below the bound are the
			 * unbounded solve's (part_solve()'s contract) */
			x->kept = x->keep_best && !known;
			if (x->kept)
				memcpy(x->best_st, x->st,
				       (size_t)cd->d * sizeof(*x->st));
		}
		/* the other placements could only be faster, which
		 * such a caller does not ask; what they left unsolved the
		 * memo does not claim */
		if (x->any_under && best < bound)
			break;
	}
	return best;
}
