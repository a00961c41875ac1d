/*
 * search.c - enumerate every configuration, bound it from below, and solve
 * the promising ones exactly (best first), keeping the top k.
 *
 * Lower bound of a candidate's iteration time: no stage can be faster than
 * an equal share of the chain's compute or than its slowest single layer.
 * Candidates are solved in increasing order of that bound; once the bound
 * reaches the k-th best time found, no later candidate can enter the top k.
 * Those times are the closed form's; the best are then simulated, and
 * every other candidate whose simulated time could beat the best one, by
 * a lower bound of the simulation (search_exact_rest()), simulated too.
 *
 * This file is the driver (search_from()) and keeps the top k
 * alternatives; the rest of the search is in modules of its own, which
 * search_int.h ties together: enumerate.c (the candidates and their
 * bounds), order.c (best first), solve.c (one candidate's exact solve),
 * memo.c (the tables of what was solved), crew.c (the solving
 * threads), refine.c (GLPK beyond the lp_k best), exact.c (exactness
 * against the simulation) and explain.c (the plan and why).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "search_int.h"

/* Candidates taken in the first batch of the best-first order: more than
 * searches solve, and more than the 256 search_explain_binding() looks at. */
#define PICK_FIRST 8192

void
search_opts_init(struct search_opts *so)
{
	memset(so, 0, sizeof(*so));
	so->sched_mask = (1u << PLAN_NSCHED) - 1;
	so->rc_mask = (1u << PROF_RC_NONE) | (1u << PROF_RC_FULL);
	so->topk = 10;
	so->fix_sched = so->fix_rc = so->fix_place = -1;
	so->zero_mask = 1;
	so->offload_mask = 1;
	so->lp_k = 10;
	so->lp_gap = 1e-4;
	so->lp_ms = 2000;
	so->nv = 1;
	so->v[0] = 1;
}

int
search_threads_online(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > SEARCH_MAX_THREADS ? SEARCH_MAX_THREADS : (int)n;
}

/* Simplicity rank of a schedule: none, gpipe, flush, 2bw. */
static int
sched_rank(int sched)
{
	switch (sched) {
	case PLAN_NONE:
		return 0;
	case PLAN_GPIPE:
		return 1;
	case PLAN_FLUSH:
		return 2;
	default:
		return 3;
	}
}

int
search_alt_cmp(const struct plan_alt *a, const struct plan_alt *b)
{
	double big = a->iter_ms > b->iter_ms ? a->iter_ms : b->iter_ms;
	long ga = (long)a->w * a->d * a->t * (a->c > 1 ? a->c : 1);
	long gb = (long)b->w * b->d * b->t * (b->c > 1 ? b->c : 1);

	if (fabs(a->iter_ms - b->iter_ms) > 1e-9 * big)
		return a->iter_ms < b->iter_ms ? -1 : 1;
	if (a->mem_bytes != b->mem_bytes)
		return a->mem_bytes < b->mem_bytes ? -1 : 1;
	if (ga != gb)
		return ga < gb ? -1 : 1;
	if (a->v != b->v)
		return a->v - b->v;
	if (a->zero != b->zero)
		return a->zero - b->zero;
	if (a->offload != b->offload)
		return a->offload - b->offload;
	if (a->shard != b->shard)
		return a->shard - b->shard;
	if (sched_rank(a->sched) != sched_rank(b->sched))
		return sched_rank(a->sched) - sched_rank(b->sched);
	if (a->d != b->d)
		return a->d - b->d;
	if (a->t != b->t)
		return a->t - b->t;
	if (a->sp != b->sp)
		return a->sp - b->sp;
	if (a->c != b->c)
		return a->c - b->c;
	if (a->e != b->e)
		return a->e - b->e;
	return a->recompute - b->recompute;
}

static int
same_alt(const struct plan_alt *a, const struct plan_alt *b)
{
	return a->sched == b->sched && a->w == b->w && a->d == b->d &&
	       a->b == b->b && a->m == b->m && a->recompute == b->recompute &&
	       a->t == b->t && a->sp == b->sp && a->v == b->v &&
	       a->zero == b->zero && a->c == b->c && a->e == b->e &&
	       a->shard == b->shard && a->offload == b->offload;
}

/*
 * Whether alternative i, whose simulated time is floor or more, is
 * outrun by topk others already simulated (simt[0..i)): topk different
 * configurations (same_alt() apart: of duplicates one is kept) whose
 * times are below floor by more than search_alt_cmp()'s tie window.  It
 * then stays out of the topk however it would have simulated.
 */
static int
outrun(const struct plan_alt *alts, const double *simt, long i, double floor,
       int topk)
{
	long j, j2, n = 0;

	if (!(floor > 0))
		return 0;
	for (j = 0; j < i && n < topk; j++) {
		if (!(simt[j] * (1 + 1e-8) < floor))
			continue;
		for (j2 = 0; j2 < j; j2++)
			if (simt[j2] * (1 + 1e-8) < floor &&
			    same_alt(&alts[j2], &alts[j]))
				break;
		n += j2 == j;
	}
	return n >= topk;
}

/* outrun()'s question as a struct cost_cut asks it. */
struct outrun_arg {
	const struct plan_alt *alts;
	const double *simt;
	long i;
	int topk;
};

static int
outrun_cut(void *arg, double floor)
{
	const struct outrun_arg *a = arg;

	return outrun(a->alts, a->simt, a->i, floor, a->topk);
}

/* Keep the k best in alts (sorted), with their candidates in ac. */
void
search_insert_alt(const struct ctx *x, struct plan_alt *alts, struct cand *ac,
		  int *n, int k, const struct cand *cd, int place, double iter)
{
	int i;
	struct plan_alt a;

	if (*n == k && !(iter < alts[k - 1].iter_ms))
		return;
	memset(&a, 0, sizeof(a));
	a.sched = cd->sched;
	a.w = cd->w;
	a.d = cd->d;
	a.b = x->sc[cd->ti].c->mb[cd->k];
	a.m = cd->m;
	a.recompute = cd->r;
	a.t = x->sc[cd->ti].t;
	a.sp = x->sc[cd->ti].sp;
	a.c = x->sc[cd->ti].cp > 1 ? x->sc[cd->ti].cp : 1;
	a.e = x->sc[cd->ti].ep > 1 ? x->sc[cd->ti].ep : 1;
	a.v = cd->v;
	a.zero = cd->zero;
	a.shard = cd->shard;
	a.offload = cd->offload;
	a.place = place;
	a.iter_ms = iter;
	i = *n < k ? (*n)++ : k - 1;
	while (i > 0 && iter < alts[i - 1].iter_ms) {
		alts[i] = alts[i - 1];
		ac[i] = ac[i - 1];
		i--;
	}
	alts[i] = a;
	ac[i] = *cd;
}

void
search_ctx_init(struct ctx *x, const struct search_chain *sc, int nsc,
		const struct cluster *cl, const struct cost_opts *o,
		const struct search_opts *so, struct search_stats *st)
{
	int L = sc[0].c->L, N = cl->nodes * cl->gpus_per_node;
	/* the most stages a candidate has: no more than the layers, nor
	 * than the GPUs (resnext101's 347 layers on 16 GPUs: 50 pages
	 * fewer to fault in, 13 us each in a virtual machine) */
	int D = N > 0 && N < L ? N : L;

	memset(x, 0, sizeof(*x));
	x->sc = sc;
	x->nsc = nsc;
	x->c = sc[0].c;
	x->cl = cl;
	x->o = o;
	x->nocap = *o;
	x->nocap.cap_bytes = INFINITY;
	place_links_init(&x->links, cl, D);
	/* every candidate's all-to-all is its runtime's: one per search */
	place_links_route(&x->links, &x->c->route, cost_ep_flex(o, NULL));
	x->lk = &x->own;
	x->st = xcalloc(D, sizeof(*x->st));
	x->best_st = xcalloc(D, sizeof(*x->best_st));
	x->lsave = xcalloc((size_t)PLACE_LINK_ARRAYS * D, sizeof(double));
	x->first = xcalloc(L, sizeof(int));
	x->rc = xcalloc(L, sizeof(int));
	x->so = so;
	x->stats = st;
}

void
search_ctx_release(struct ctx *x)
{
	free(x->st);
	free(x->best_st);
	free(x->lsave);
	free(x->first);
	free(x->rc);
	place_links_release(&x->links);
	search_link_cache_release(&x->own);
	part_ws_release(&x->ws);
	part_table_release(&x->parts);
	sim_mem_release(&x->sim);
}

/* Give x thread i's tables of memo m (its links: those of x's cluster). */
void
search_ctx_memo(struct ctx *x, struct search_memo *m, int i)
{
	x->fit = &m->t[i];
	x->times = &m->s[i];
	x->nfit = &m->nt[i];
	x->ntimes = &m->ns[i];
	if (m->links[i].cl != x->cl) {
		search_link_cache_release(&m->links[i]);
		m->links[i].cl = x->cl;
	}
	x->lk = &m->links[i];
	x->lk_held = 0;
}

int
search_run(const struct chain *c, const struct cluster *cl,
	   const struct cost_opts *o, const struct search_opts *so,
	   struct plan *p, struct search_stats *st)
{
	struct search_chain sc;

	sc.c = c;
	sc.t = c->tp;
	sc.sp = 0;
	sc.cp = c->cp;
	sc.ep = c->ep;
	sc.etp = c->etp;
	sc.runtime = 0;
	return search_run_tp(&sc, 1, cl, o, so, p, st);
}

/* search_from()'s answer when fewer than k came under its start bound */
#define SEARCH_AGAIN (-2)

void
search_sims_add(struct sims *sm, const struct cand *cd, int place)
{
	if (sm->n == sm->cap) {
		sm->cap = sm->cap ? 2 * sm->cap : 32;
		sm->c = xrealloc(sm->c, (size_t)sm->cap * sizeof(*sm->c));
		sm->place = xrealloc(sm->place,
				     (size_t)sm->cap * sizeof(*sm->place));
	}
	sm->c[sm->n] = *cd;
	sm->place[sm->n++] = place;
}

/* The placement cd was simulated under (the first: -1 when none) with
 * place < 0, else whether it was under place. */
int
search_sims_has(const struct sims *sm, const struct cand *cd, int place)
{
	long i;

	for (i = 0; i < sm->n; i++)
		if ((place < 0 || sm->place[i] == place) &&
		    same_key(&sm->c[i], cd))
			return place < 0 ? sm->place[i] : 1;
	return place < 0 ? -1 : 0;
}

static void
sims_release(struct sims *sm)
{
	free(sm->c);
	free(sm->place);
	memset(sm, 0, sizeof(*sm));
}

/*
 * Keep cd under place, whose stages x->st hold and simulate to ts, among
 * the alternatives alts (with their candidates ac and simulated times
 * simt, *nalt of at most k): the slowest makes room when they are full.
 * mixed: its recomputation is what x->rc says (GLPK's, or
 * --recompute-every's), not cd->r alone.
 */
void
search_keep_sim(struct ctx *x, struct plan_alt *alts, struct cand *ac,
		double *simt, int *nalt, int k, const struct cand *cd,
		int place, double ts, int mixed)
{
	int w, j, one = 0;

	if (*nalt < k) {
		w = (*nalt)++;
	} else {
		for (w = 0, j = 1; j < k; j++)
			if (alts[j].iter_ms > alts[w].iter_ms)
				w = j;
	}
	search_insert_alt(x, alts + w, ac + w, &one, 1, cd, place, ts);
	if (mixed)
		alts[w].recompute = overall_rc(x, x->c->L);
	alts[w].mem_bytes = (int64_t)stages_peak(x->st, cd->d);
	simt[w] = ts;
}

/*
 * search_run_tp() with the bound start (INFINITY: none) until k
 * configurations are found: SEARCH_AGAIN when fewer than k come under
 * it.  With k of them under it, the k best are those of the search from
 * INFINITY: every configuration left out costs start or more, more than
 * the k kept, and those below it are solved and kept in the same order.
 */
static int
search_from(const struct search_chain *sc, int nsc,
	    const struct cluster *cl, const struct cost_opts *o,
	    const struct search_opts *so, struct plan *p,
	    struct search_stats *st, double start)
{
	struct ctx x;
	struct cand *v = NULL, *ac, last;
	struct pick pk;
	struct crew cw;
	long n, i, oi, r, used, nv = 0, dummy;
	int N = cl->nodes * cl->gpus_per_node, nalt = 0, ret = -1;
	/* Keep spares: a per-layer refinement that comes back uniform
	 * duplicates another alternative and is dropped. */
	int k = 2 * (so->topk > 0 ? so->topk : 1), L = sc[0].c->L;
	struct plan_alt *alts = xcalloc(k, sizeof(*alts));
	double *simt = xcalloc(k, sizeof(*simt)); /* alts' simulated times */
	/* the alternatives simulated, and refined by GLPK */
	struct sims sims = {0};
	double t0 = now_ms();
	int evaluate = so->fix_w > 0 && so->fix_d > 0 && so->fix_b > 0 &&
		       so->fix_rc >= 0 && so->fix_sched >= 0;
	struct outrun_arg oa;
	struct cost_cut cut = {outrun_cut, &oa};

	memset(st, 0, sizeof(*st));
	memset(&pk, 0, sizeof(pk));
	ac = xcalloc(k, sizeof(*ac));
	if (so->max_gpus > 0 && so->max_gpus < N)
		N = so->max_gpus;
	search_ctx_init(&x, sc, nsc, cl, o, so, st);
	if (so->memo)
		search_ctx_memo(&x, so->memo, 0);
	search_crew_start(&cw, &x, so->threads);

	/*
	 * Best first without sorting everything: take the PICK_FIRST
	 * smallest lower bounds, solve them in order until a bound reaches
	 * the k-th best time, and only when all of them were needed take
	 * the next ones (twice as many) by enumerating again.  The order is
	 * cand_cmp's, a total order, so the candidates solved and the
	 * result are those of one sort of all of them.
	 */
	pk.cap = so->pick_first > 0 ? so->pick_first : PICK_FIRST;
	/*
	 * A brief search reads no candidate it does not solve, and solves
	 * none at start or above (the bound is start until k are found,
	 * then below it): the pick leaves them out, which turns whole
	 * groups away.  When more than its cap come under start it keeps
	 * the same ones; else the pass ends with the same solves, the
	 * pick not full.
	 */
	pk.cut = so->brief && !evaluate ? start : INFINITY;
	/* filled before it is read (pk.n): not zeroed, 650 KB a search */
	pk.h = xmalloc(2 * pk.cap * sizeof(*pk.h));
	n = search_pick_next(&pk, NULL, sc, nsc, cl, o, so, N, &st->screened,
			     st);
	v = pk.h;
	nv = pk.n;
	st->candidates = n + st->screened;
	if (n == 0 && st->screened == 0 && st->skipped_rt) {
		pd2bw_error("%s", st->skip_why);
		goto out;
	}
	if (n == 0 && st->screened == 0) {
		pd2bw_error("no configuration splits a global batch of %lld "
			    "over at most %d GPUs with microbatch sizes of "
			    "the profile",
			    (long long)so->batch, N);
		goto out;
	}
	for (;;) {
		int done = 0;

		for (i = 0; i < pk.n && !done; i += used) {
			double bound = nalt == k ? alts[k - 1].iter_ms
						 : start;
			long j, round = search_crew_size(&cw);

			/* none under a larger bound, as a smaller cluster's
			 * search found it: its solve would say so */
			if (search_pick_at(&pk, i)->lb < bound &&
			    search_none_known(&pk, i, cl, bound)) {
				st->solved++;
				st->cut++;
				used = 1;
				continue;
			}
			/* sorted by lower bound: a prefix can be solved */
			for (r = 0; r < round && i + r < pk.n &&
				    search_pick_at(&pk, i + r)->lb < bound;
			     r++)
				;
			if (r == 0)
				break;
			search_crew_round(&cw, pk.h + i, r, bound);
			/* The results hold while the bound stays: the bound
			 * prunes inside the partition, and a solve under
			 * another bound might not give what the one-by-one
			 * search gets.  The rest go to the next round. */
			for (used = 0; used < r; used++) {
				double t = cw.t[used];

				if ((nalt == k ? alts[k - 1].iter_ms
					       : start) != bound)
					break;
				st->solved++;
				if (t < bound) {
					search_insert_alt(&x, alts, ac, &nalt,
							  k, &pk.h[i + used],
							  cw.place[used], t);
				} else {
					st->cut++;
					search_none_keep(&pk, i + used, cl,
							 bound);
				}
			}
			j = i + used;
			bound = nalt == k ? alts[k - 1].iter_ms : start;
			if (j < pk.n && !(search_pick_at(&pk, j)->lb < bound))
				done = 1;
		}
		done |= i < pk.n;
		if (done || pk.n < pk.cap)
			break;
		/* The first batch stays for search_explain_binding(). */
		last = *search_pick_at(&pk, pk.n - 1);
		if (pk.h == v)
			pk.h = NULL;
		pk.cap *= 2;
		pk.h = xrealloc(pk.h, 2 * pk.cap * sizeof(*pk.h));
		/* A later batch serves the solves alone, and none at or
		 * above the bound is solved: the bound only falls, so the
		 * pick leaves those out now, which turns whole groups away
		 * (the same solves in the same order; plain too, its
		 * passes counted alike). */
		pk.cut = fmin(pk.cut, nalt == k ? alts[k - 1].iter_ms : start);
		search_pick_next(&pk, &last, sc, nsc, cl, o, so, N, &dummy,
				 NULL);
		st->passes++;
	}
	if (nalt < k && isfinite(start)) {
		ret = SEARCH_AGAIN;
		goto out;
	}
	st->kth_ms = nalt == k ? alts[k - 1].iter_ms : INFINITY;
	st->bounded = n - st->solved;
	/* those of the last pass: the earlier ones' were taken since */
	st->grouped = pk.grouped;
	/*
	 * The simulation re-scores what the closed form kept, re-ranked
	 * below; each alternative's peak memory is kept for the
	 * tie-breaking order.  First GLPK: per-layer recomputation for the
	 * lp_k best candidates that recompute at all, kept where it is
	 * faster, its stages then the ones re-scored.  Only the
	 * alternatives before one and its refinement decide whether it is
	 * outrun, so refining each just before it is re-scored is
	 * refining them all first (oi: its index before any was dropped).
	 * Then search_refine_rest() refines whatever else could beat the best
	 * by the closed form, and search_exact_rest() simulates whatever else
	 * could by the simulation's bounds: the best alternative is then the
	 * best simulated time of all candidates (the others are the best
	 * of those simulated).
	 */
	for (i = 0, oi = 0; i < nalt; i++, oi++) {
		struct plan_terms terms;
		struct cost_cfg g;
		struct cand cd = ac[i];
		double t;
		int refined = 0, floored;

		/* its simulated time, or that topk others beat it, which
		 * search_exact_rest() need not ask again */
		search_sims_add(&sims, &cd, alts[i].place);
		if (oi < so->lp_k && cd.r != PROF_RC_NONE &&
		    !cost_every_on(o) &&
		    cost_runtime(o, cd.sched, cd.d)->mixed_rc) {
			cd.lp = 1;
			/* refined: what the brute force would simulate of
			 * it, the refinement or the uniform choice */
			search_sims_add(&sims, &cd, alts[i].place);
			search_solve(&x, o, &cd, alts[i].place, INFINITY,
				     &terms);
			t = search_apply_lp(&x, &cd, alts[i].place, &terms);
			if (t < alts[i].iter_ms * (1 - 1e-9)) {
				alts[i].iter_ms = t;
				alts[i].recompute = overall_rc(&x, L);
				ac[i] = cd;
				refined = 1; /* x.st holds its stages */
			}
		}
		if (!refined)
			search_solve(&x, o, &ac[i], alts[i].place, INFINITY,
				     &terms);
		if (cost_every_on(o) && ac[i].r == PROF_RC_FULL)
			alts[i].recompute = overall_rc(&x, L);
		alts[i].mem_bytes = (int64_t)stages_peak(x.st, ac[i].d);
		search_cfg_of(&x, &ac[i], alts[i].place, &g);
		oa.alts = alts;
		oa.simt = simt;
		oa.i = i;
		oa.topk = so->topk > 0 ? so->topk : 1;
		floored = !so->rescore_all &&
			  outrun_cut(&oa, cost_simulate_floor(x.st, &g));
		if (!floored) {
			t = search_rescore(&x, &ac[i], alts[i].place,
					   so->rescore_all ? NULL : &cut,
					   &floored);
			st->rescore_cut += floored;
		}
		if (floored) {
			/* It cannot be among the topk: dropped unsimulated
			 * (or a long run, simulated in part).  It would
			 * have sorted after them (the order's tie window
			 * is 1e-9), and so after every alternative faster
			 * than it, whose order it does not touch. */
			memmove(&alts[i], &alts[i + 1],
				(nalt - i - 1) * sizeof(*alts));
			memmove(&ac[i], &ac[i + 1], (nalt - i - 1) * sizeof(*ac));
			nalt--;
			i--;
			st->rescore_skipped++;
			continue;
		}
		simt[i] = t;
		if (isfinite(t))
			alts[i].iter_ms = t;
	}
	search_refine_rest(&x, sc, nsc, cl, o, so, N, alts, ac, simt, &nalt, k,
			   &sims);
	search_exact_rest(&x, sc, nsc, cl, o, so, N, alts, ac, simt, &nalt, k,
			  &sims);
	for (i = 1; i < nalt; i++) {
		long j2;

		for (j2 = i; j2 > 0 &&
			     search_alt_cmp(&alts[j2], &alts[j2 - 1]) < 0;
		     j2--) {
			struct plan_alt ta = alts[j2];
			struct cand tc = ac[j2];
			double tt = simt[j2];

			alts[j2] = alts[j2 - 1];
			ac[j2] = ac[j2 - 1];
			simt[j2] = simt[j2 - 1];
			alts[j2 - 1] = ta;
			ac[j2 - 1] = tc;
			simt[j2 - 1] = tt;
		}
	}
	/* A refinement that came back uniform may repeat an alternative. */
	for (i = 1; i < nalt; i++) {
		long j2;

		for (j2 = 0; j2 < i; j2++)
			if (same_alt(&alts[i], &alts[j2]))
				break;
		if (j2 < i) {
			memmove(&alts[i], &alts[i + 1],
				(nalt - i - 1) * sizeof(*alts));
			memmove(&ac[i], &ac[i + 1], (nalt - i - 1) * sizeof(*ac));
			memmove(&simt[i], &simt[i + 1],
				(nalt - i - 1) * sizeof(*simt));
			nalt--;
			i--;
		}
	}
	if (nalt > so->topk)
		nalt = so->topk > 0 ? so->topk : 1;
	for (i = 0; i < nalt; i++)
		alts[i].samples_s = (double)alts[i].w * alts[i].b * alts[i].m /
				    (alts[i].iter_ms / 1e3);
	if (nalt == 0 && evaluate && nv > 0) {
		int place;

		/* the placement it would run fastest under, had it room */
		if (pk.h == v) /* still being read: in order so far */
			search_pick_at(&pk, 0);
		search_solve_best(&x, &x.nocap, so, &v[0], INFINITY, &place);
		search_fill_plan(&x, so, &v[0], place, NAN, p);
		p->bind = PLAN_BIND_MEMORY;
		p->bind_reason = fmt("does not fit: it needs %.2f GiB per GPU, "
				     "%.2f GiB are available",
				     p->peak_mem_bytes / GIB,
				     o->cap_bytes / GIB);
		pd2bw_error("this configuration does not fit: it needs %.2f "
			    "GiB per GPU, %.2f GiB are available",
			    p->peak_mem_bytes / GIB, o->cap_bytes / GIB);
		ret = 3;
		goto out;
	}
	if (nalt == 0) {
		struct search_opts so2 = *so;
		struct cand arg;
		double mem;

		/* Include the screened-out candidates: search without the
		 * memory screen to find the least memory anything needs. */
		so2.fix_place = -1;
		mem = search_minmem_of(&x, sc, nsc, cl, o, &so2, N, &arg);
		/* under --recompute-every the least is full
		 * recomputation's, every block: a floor of what the blocks
		 * it wraps need (NEEDSWORK: not their own least) */
		if (isfinite(mem) && cost_every_on(o) &&
		    arg.r == PROF_RC_FULL && mem <= o->cap_bytes)
			/* the floor fits: every block recomputed would */
			pd2bw_error("no configuration fits in memory with "
				    "--recompute-every: recomputing every "
				    "block (-r full) the smallest needs "
				    "%.2f GiB per GPU (%s w=%d d=%d t=%d "
				    "b=%d), %.2f GiB are available",
				    mem / GIB, plan_sched_names[arg.sched],
				    arg.w, arg.d, sc[arg.ti].t,
				    sc[arg.ti].c->mb[arg.k],
				    o->cap_bytes / GIB);
		else if (isfinite(mem))
			pd2bw_error("no configuration fits in memory: the "
				    "smallest needs %s%.2f GiB per GPU (%s w=%d "
				    "d=%d t=%d b=%d recompute=%s), %.2f GiB "
				    "are available",
				    cost_every_on(o) ? "more than " : "",
				    mem / GIB, plan_sched_names[arg.sched],
				    arg.w, arg.d, sc[arg.ti].t,
				    sc[arg.ti].c->mb[arg.k],
				    cost_every_on(o) && arg.r == PROF_RC_FULL
					    ? "every (--recompute-every)"
					    : prof_rc_names[arg.r],
				    o->cap_bytes / GIB);
		else
			pd2bw_error("no configuration fits in memory");
		ret = 3;
		goto out;
	}
	search_fill_plan(&x, so, &ac[0], alts[0].place, simt[0], p);
	p->alts = alts;
	p->nalts = nalt;
	alts = NULL;
	if (!so->brief) {
		/* it reads up to 256 of the first batch (all in order when
		 * the search went past it) */
		if (pk.h == v && nv > 0)
			search_pick_at(&pk, nv < 256 ? nv - 1 : 255);
		search_explain_binding(&x, so, v, nv, p);
	}
	ret = 0;
out:
	st->ms = now_ms() - t0;
	free(alts);
	free(simt);
	sims_release(&sims);
	free(ac);
	if (pk.h != v)
		free(pk.h);
	free(v);
	free(pk.lbs);
	free(pk.keys);
	free(pk.moves);
	free(pk.at);
	search_crew_stop(&cw);
	search_ctx_release(&x);
	return ret;
}

int
search_run_tp(const struct search_chain *sc, int nsc,
	      const struct cluster *cl, const struct cost_opts *o,
	      const struct search_opts *so, struct plan *p,
	      struct search_stats *st)
{
	double start = INFINITY, ms;
	int ret;

	/* just above: a configuration at the bound itself still counts */
	if (so->start_bound > 0 && isfinite(so->start_bound))
		start = nextafter(so->start_bound, INFINITY);
	ret = search_from(sc, nsc, cl, o, so, p, st, start);
	if (ret != SEARCH_AGAIN)
		return ret;
	ms = st->ms;
	ret = search_from(sc, nsc, cl, o, so, p, st, INFINITY);
	st->ms += ms;
	st->again = 1;
	return ret;
}
