/*
 * explain.c - what a search says of its answer: the plan of the chosen
 * candidate (search_fill_plan()), the constraint that binds its speed
 * (search_explain_binding()), and, when nothing fits, the least memory any
 * candidate needs (search_minmem_of()).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search_int.h"

/*
 * The least peak stage memory of the candidates visited, and whose: the
 * first in the order of the visit of those that need that least.  Two
 * visits of the same candidates in the same order: the first finds the
 * one that looks least (the least known memory or lower bound), whose
 * memory then bounds every solve of the second, so that few are solved
 * (a bound of the last least found, INFINITY at first, solves many).
 */
struct minmem {
	struct visit vt;
	struct ctx *x;
	struct cost_opts o; /* without the cap */
	double best;
	struct cand arg;
	long i;     /* candidates visited so far in this visit */
	long at;    /* arg's place in the order (-1: none yet) */
	double key; /* the first visit's least known memory or bound */
	/* the second visit's candidates that may need best or less, by
	 * their known memory or bound (key) and place in the order (lb, i) */
	struct minmem_cand {
		struct cand cd;
		double key;
		long i;
	} *c;
	long n;
	size_t alloc;
	int over; /* more than MINMEM_KEEP of them: none kept */
};

#define MINMEM_KEEP 65536

/* The memo's entry of cd (NULL: none), which knows its least memory
 * (t), or that it is lo or more. */
static struct time_entry *
minmem_entry(struct minmem *mm, const struct cand *cd)
{
	struct ctx *x = mm->x;

	if (!x->so->memo || cd->m <= 0)
		return NULL;
	return search_time_find(&x->so->memo->mins, cd, 0);
}

/* part_mem_lb() of cd, from the memo when it knows (not plain): a search
 * that nothing fits in asks it of every candidate twice, and so do the
 * sizes after it that nothing fits in either. */
static double
minmem_lb(struct minmem *mm, const struct cand *cd)
{
	struct ctx *x = mm->x;
	struct time_entry *e = NULL;
	struct cost_cfg g;
	double lb;

	if (x->so->memo && !x->so->plain && cd->m > 0) {
		e = search_time_find(&x->so->memo->mem_lbs, cd, 0);
		if (!isnan(e->t))
			return e->t;
	}
	search_cfg_of(x, cd, 0, &g);
	lb = part_mem_lb(x->c, &mm->o, &g);
	if (e)
		e->t = lb;
	return lb;
}

/* Its least memory under bound (part_solve(PART_MEM)'s: INFINITY when it
 * is bound or more), kept in e. */
static double
minmem_solve(struct minmem *mm, const struct cand *cd,
	     struct time_entry *e, double bound)
{
	struct ctx *x = mm->x;
	struct cost_cfg g;
	double mem;

	search_cfg_of(x, cd, 0, &g);
	search_links_for(x, 0, g.w, g.d, g.t, g.c, g.e, g.etp);
	mem = part_solve(&x->ws, x->c, &mm->o, &g, &x->links, PART_MEM,
			 bound, x->first);
	if (e && isfinite(mem))
		e->t = mem;
	else if (e && bound > e->lo)
		e->lo = bound;
	return mem;
}

/* The first visit: the candidate whose known memory, else lower bound,
 * is least (the first of those). */
static void
minmem_peek(struct visit *vt, const struct cand *cd)
{
	struct minmem *mm = (struct minmem *)vt;
	struct time_entry *e = minmem_entry(mm, cd);
	double key;

	key = e && !isnan(e->t) ? e->t : minmem_lb(mm, cd);
	if (mm->at < 0 || key < mm->key) {
		mm->key = key;
		mm->arg = *cd;
		mm->at = mm->i;
	}
	mm->i++;
}

/*
 * The candidate of the second visit: whether it may need best or less
 * (its memory or lower bound, *key, not above best); *e its memo entry.
 */
static int
minmem_may(struct minmem *mm, const struct cand *cd, struct time_entry **e,
	   double *key)
{
	*e = minmem_entry(mm, cd);
	if (*e && !isnan((*e)->t)) {
		*key = (*e)->t;
		return *key <= mm->best;
	}
	if (*e && (*e)->lo > mm->best)
		return 0; /* it needs lo or more */
	*key = minmem_lb(mm, cd);
	return *key <= mm->best;
}

/* Candidate i, of memory or lower bound key, against the least so far:
 * solved under a bound just above best, which gives its memory when that
 * is best or less; the first in the order of those that need the least
 * wins, as one visit under the least found so far would have found it. */
static void
minmem_try(struct minmem *mm, const struct cand *cd, struct time_entry *e,
	   long i)
{
	double mem = e && !isnan(e->t)
			     ? e->t
			     : minmem_solve(mm, cd, e,
					    nextafter(mm->best, INFINITY));

	if (mem < mm->best || (mem == mm->best && i < mm->at)) {
		mm->best = mem;
		mm->arg = *cd;
		mm->at = i;
	}
}

/* The second visit: the candidates that may need best or less, kept to
 * be tried least bound first (the best then falls soonest and bounds
 * the most), or tried at once when more than MINMEM_KEEP are. */
static void
minmem_visit(struct visit *vt, const struct cand *cd)
{
	struct minmem *mm = (struct minmem *)vt;
	long i = mm->i++;
	struct time_entry *e;
	double key;

	if (i == mm->at || !minmem_may(mm, cd, &e, &key))
		return;
	if (mm->over) {
		minmem_try(mm, cd, e, i);
		return;
	}
	if (mm->n == MINMEM_KEEP) {
		mm->over = 1;
		return;
	}
	xgrow((void **)&mm->c, &mm->alloc, mm->n + 1, sizeof(*mm->c));
	mm->c[mm->n].cd = *cd;
	mm->c[mm->n].key = key;
	mm->c[mm->n].i = i;
	mm->n++;
}

static int
minmem_cmp(const void *a, const void *b)
{
	const struct minmem_cand *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* The least peak stage memory of the candidates search_enumerate() visits with
 * so and o (o's cap, if any, left out), whose in *arg; INFINITY when
 * none has a partition. */
double
search_minmem_of(struct ctx *x, const struct search_chain *sc, int nsc,
		 const struct cluster *cl, const struct cost_opts *o,
		 const struct search_opts *so, int N, struct cand *arg)
{
	struct minmem mm;
	struct time_entry *e;
	long dummy, j;

	memset(&mm, 0, sizeof(mm));
	mm.x = x;
	mm.o = *o;
	mm.o.cap_bytes = INFINITY;
	mm.best = INFINITY;
	mm.at = -1;
	/* plain: one visit, each tried as it comes under the least so far
	 * (tests: the answer does not depend on it) */
	mm.over = so->plain;
	mm.vt.fn = minmem_peek;
	if (!so->plain)
		search_enumerate(sc, nsc, cl, &mm.o, so, N, &mm.vt, &dummy,
				 NULL);
	if (mm.at >= 0) {
		e = minmem_entry(&mm, &mm.arg);
		mm.best = e && !isnan(e->t)
				  ? e->t
				  : minmem_solve(&mm, &mm.arg, e, INFINITY);
		if (!isfinite(mm.best))
			mm.at = -1;
	}
	mm.i = 0;
	mm.vt.fn = minmem_visit;
	search_enumerate(sc, nsc, cl, &mm.o, so, N, &mm.vt, &dummy, NULL);
	if (mm.over) {
		/* too many to keep: once more, each tried as it comes */
		mm.i = 0;
		mm.n = 0;
		search_enumerate(sc, nsc, cl, &mm.o, so, N, &mm.vt, &dummy,
				 NULL);
	}
	if (mm.n > 1) /* mm.c NULL when none was kept */
		qsort(mm.c, (size_t)mm.n, sizeof(*mm.c), minmem_cmp);
	/* in order of their bounds: none after one above best needs
	 * best or less */
	for (j = 0; j < mm.n && mm.c[j].key <= mm.best; j++) {
		e = minmem_entry(&mm, &mm.c[j].cd);
		if (!(e && isnan(e->t) && e->lo > mm.best))
			minmem_try(&mm, &mm.c[j].cd, e, mm.c[j].i);
	}
	free(mm.c);
	*arg = mm.arg;
	return mm.best;
}

/* Explain which constraint set the chosen configuration's speed. */
void
search_explain_binding(struct ctx *x, const struct search_opts *so,
		       const struct cand *v, long n, struct plan *p)
{
	const struct plan_stage *slow = NULL;
	double tmb = -1;
	long i, tried = 0;
	int s, place;

	/* Of the faster configurations that do not fit, name the one that
	 * needs the least memory: the nearest within reach, and how much
	 * more memory per GPU it takes. */
	{
		double best_mem = INFINITY, best_t = 0, fastest = INFINITY;
		long best = -1;
		/* part_mem_lb() bounds the peak of every partition: not
		 * under --recompute-every, whose stages recompute other
		 * layers than the candidate's own choice says */
		int lbs = !so->plain && !cost_every_on(x->o);

		for (i = 0; i < n && tried < 256 &&
			    v[i].lb < p->iter_ms * 0.99;
		     i++) {
			struct plan_terms terms;
			struct cost_cfg g;
			double t, mem, b = p->iter_ms * 0.99;

			tried++;
			/* One that needs best_mem or more whatever its
			 * partition names nothing new unless it is faster
			 * than the fastest so far: solved under that bound.
			 * Asked where its lower bound is at that bound
			 * already (resnext101: 16 of 52, each turned away
			 * at once), not of every one (GPT-3's 256). */
			if (lbs && fastest < b && v[i].lb >= fastest) {
				search_cfg_of(x, &v[i], place_lo(so), &g);
				if (part_mem_lb(x->c, &x->nocap, &g) >=
				    best_mem)
					b = fastest;
			}
			x->keep_best = 1;
			t = search_solve_best(x, &x->nocap, so, &v[i], b,
					      &place);
			x->keep_best = 0;
			if (!isfinite(t))
				continue;
			if (t < fastest)
				fastest = t;
			/* the stages of the unbounded solve: kept by
			 * search_solve_best() (not solved again), or solved */
			if (x->kept) {
				mem = stages_peak(x->best_st, v[i].d);
			} else {
				search_solve(x, &x->nocap, &v[i], place,
					     INFINITY, &terms);
				mem = stages_peak(x->st, v[i].d);
			}
			if (mem < best_mem) {
				best_mem = mem;
				best_t = t;
				best = i;
			}
		}
		if (best >= 0) {
			const struct cand *b = &v[best];

			p->bind = PLAN_BIND_MEMORY;
			p->bind_reason = fmt(
				"faster configurations need more memory per "
				"GPU: the nearest, %s w=%d d=%d t=%d b=%d "
				"recompute=%s, would take %.1f ms (%.0f%% "
				"faster; the fastest %.0f%%) with %.2f GiB, "
				"%.2f GiB over the %.2f GiB limit (GPUs with "
				"more memory, or a smaller --reserve)",
				plan_sched_names[b->sched], b->w, b->d,
				x->sc[b->ti].t, x->c->mb[b->k],
				cost_every_on(x->o) && b->r == PROF_RC_FULL
					? "every (--recompute-every)"
					: prof_rc_names[b->r],
				best_t,
				100 * (1 - best_t / p->iter_ms),
				100 * (1 - fastest / p->iter_ms),
				best_mem / GIB,
				(best_mem - x->o->cap_bytes) / GIB,
				x->o->cap_bytes / GIB);
			return;
		}
	}
	for (s = 0; s < p->d; s++) {
		struct cost_cfg g;
		double t;

		memset(&g, 0, sizeof(g));
		g.sched = p->sched;
		g.w = p->w;
		g.d = p->d;
		g.m = p->m;
		g.v = p->v;
		t = cost_stage_ms(&p->stages[s], &g);

		if (t > tmb) {
			tmb = t;
			slow = &p->stages[s];
		}
	}
	if ((p->sched == PLAN_2BW &&
	     slow->allreduce_ms / p->m > slow->compute_ms + slow->recompute_ms +
						 slow->tp_ms + slow->p2p_ms) ||
	    ((p->sched == PLAN_FLUSH || p->sched == PLAN_GPIPE) &&
	     p->terms.allreduce_ms > 0.2 * p->iter_ms)) {
		p->bind = PLAN_BIND_ALLREDUCE;
		p->bind_reason = fmt(
			p->sched == PLAN_2BW
				? "stage %d's gradient all-reduce (%.1f ms per "
				  "update at %.1f GB/s) exceeds its %d "
				  "microbatches of work"
				: "stage %d's gradient all-reduce (%.1f ms per "
				  "update at %.1f GB/s) follows the flush of %d "
				  "microbatches, a fifth of the iteration or "
				  "more",
			(int)(slow - p->stages), slow->allreduce_ms,
			slow->ring_gb_s, p->m);
	} else if (slow->host_ms >
		   0.25 * (slow->compute_ms + slow->recompute_ms)) {
		/* eager kernels shorter than the host needs to issue them,
		 * MoE layers most (they synchronise host and GPU) */
		p->bind = PLAN_BIND_HOST;
		p->bind_reason = fmt(
			"stage %d waits %.2f ms per microbatch for the host to "
			"issue its kernels, beside %.2f ms of compute: CUDA "
			"graphs (the runtime's cuda-graphs) or a larger "
			"microbatch take it off",
			(int)(slow - p->stages), slow->host_ms,
			slow->compute_ms + slow->recompute_ms);
	} else if (slow->p2p_ms + slow->tp_ms >
		   slow->compute_ms + slow->recompute_ms) {
		p->bind = PLAN_BIND_P2P;
		p->bind_reason = fmt(
			"stage %d spends %.2f ms per microbatch on transfers "
			"(%.2f ms tensor-parallel), more than its %.2f ms of "
			"compute",
			(int)(slow - p->stages), slow->p2p_ms + slow->tp_ms,
			slow->tp_ms,
			slow->compute_ms + slow->recompute_ms);
	} else {
		p->bind = PLAN_BIND_COMPUTE;
		p->bind_reason = fmt(
			"stage %d computes %.2f ms per microbatch (layers "
			"%d-%d); transfers add %.2f ms",
			(int)(slow - p->stages),
			slow->compute_ms + slow->recompute_ms, slow->first,
			slow->last, slow->p2p_ms + slow->tp_ms);
	}
}

/* Fill p's configuration, stages, ranks and prediction from cd (sim_ms:
 * the simulated time of its stages when known, else NAN). */
void
search_fill_plan(struct ctx *x, const struct search_opts *so,
		 const struct cand *cd, int place, double sim_ms,
		 struct plan *p)
{
	struct plan_terms terms;
	double iter, other = INFINITY, flops = 0;
	int s, j, gpn = x->cl->gpus_per_node, n;

	if (place_hi(so, cd) > place_lo(so) && !so->brief) {
		other = search_solve(x, x->o, cd, 1 - place, INFINITY, &terms);
	}
	iter = search_solve(x, x->o, cd, place, INFINITY, &terms);
	if (!isfinite(iter)) /* evaluate mode over the cap */
		iter = search_solve(x, &x->nocap, cd, place, INFINITY, &terms);
	p->layer_rc = xcalloc(x->c->L, sizeof(int));
	if (cd->lp) {
		search_apply_lp(x, cd, place, &terms);
		memcpy(p->layer_rc, x->rc, x->c->L * sizeof(int));
		p->lp_status = xstrdup(lp_status_names[x->lp_status]);
	} else if (cost_every_on(x->o) && cd->r == PROF_RC_FULL) {
		/* the blocks search_solve() priced (cost_every_rc()) */
		memcpy(p->layer_rc, x->rc, x->c->L * sizeof(int));
		p->lp_status = xstrdup("not run");
	} else {
		for (j = 0; j < x->c->L; j++)
			p->layer_rc[j] = cd->r;
		p->lp_status = xstrdup(x->so->lp_k > 0 && cd->r != PROF_RC_NONE
					       ? "no gain over uniform"
					       : "not run");
	}
	/* One number everywhere: the simulation's.  A brief plan shows no
	 * terms: the time the re-scoring simulated for these very stages
	 * (sim_ms, NAN when there is none) serves. */
	if (so->brief && !isnan(sim_ms))
		iter = sim_ms;
	else
		iter = search_simulate_stages(x, cd, place,
					      so->brief ? NULL : &terms);
	{
		char rt[256];

		runtime_format(cost_runtime(x->o, cd->sched, cd->d), rt,
			       sizeof(rt));
		p->runtime = xstrdup(rt);
	}
	p->sched = cd->sched;
	p->w = cd->w;
	p->d = cd->d;
	p->b = x->c->mb[cd->k];
	p->m = cd->m;
	p->global_batch = (int64_t)p->w * p->b * p->m;
	p->recompute = cd->lp || (cost_every_on(x->o) &&
				  cd->r == PROF_RC_FULL)
			       ? overall_rc(x, x->c->L)
			       : cd->r;
	p->t = x->sc[cd->ti].t;
	p->sp = x->sc[cd->ti].sp;
	p->c = x->sc[cd->ti].cp > 1 ? x->sc[cd->ti].cp : 1;
	p->e = x->sc[cd->ti].ep > 1 ? x->sc[cd->ti].ep : 1;
	p->etp = x->sc[cd->ti].etp > 0 ? x->sc[cd->ti].etp : p->t;
	p->v = cd->v;
	p->zero = cd->zero;
	p->shard = cd->shard;
	p->offload = cd->offload;
	p->place = place;
	p->iter_ms = iter;
	p->samples_s = p->global_batch / (iter / 1e3);
	p->terms = terms;
	p->bubble_frac = iter > 0 ? terms.bubble_ms / iter : 0;
	p->nstages = p->d;
	p->stages = xcalloc(p->d, sizeof(*p->stages));
	memcpy(p->stages, x->st, p->d * sizeof(*p->stages));
	p->peak_mem_bytes = (int64_t)stages_peak(p->stages, p->d);
	for (j = 0; j < x->c->L; j++)
		flops += CHAIN_AT(x->c, x->c->flops, cd->k, j);
	/* Model FLOPs: forward + backward = 3 x forward (2 x with frozen
	 * weights), per sample; the chain's FLOPs are one GPU's shard, so t
	 * cancels. */
	p->tflops_per_gpu = x->c->passes * flops / p->b * p->global_batch /
			    (iter / 1e3) / (p->w * p->d) / 1e12;
	n = p->w * p->d * p->t * p->c;
	/* nodes as the links were priced: spread evenly when the job does
	 * not fill them (place_segment) */
	gpn = place_segment(x->cl, n);
	plan_ranks_fill(p, gpn);
	p->nlayers = x->c->L;
	p->layer_names = xcalloc(x->c->L, sizeof(char *));
	for (j = 0; j < x->c->L; j++)
		p->layer_names[j] = xstrdup(x->c->names[j]);
	if (!so->brief) {
		double ar = 0, pp = 0;
		struct cost_cfg gc;
		struct cost_bytes by;

		search_cfg_of(x, cd, place, &gc);
		cost_bytes(x->o, &gc, &by);
		for (s = 0; s < p->d; s++) {
			double g2 = 2.0 * (p->w - 1) / p->w *
				    (double)p->stages[s].params * by.grad;

			if (g2 > ar)
				ar = g2;
			if (s < p->d - 1)
				pp += 2 * CHAIN_AT(x->c, x->c->out, cd->k,
						   p->stages[s].last) *
				      p->m;
		}
		if (p->w == 1 || p->d == 1)
			p->place_reason = fmt(
				"%s: with %s there is only one way to "
				"place ranks",
				plan_place_names[place],
				p->w == 1 ? "one replica" : "one stage");
		else if (so->fix_place >= 0)
			p->place_reason =
				fmt("%s: fixed by the user",
				    plan_place_names[place]);
		else
			p->place_reason = fmt(
				"%s: per GPU the all-reduce moves %.1f MB per "
				"update and the pipeline %.1f MB per "
				"iteration; %.1f ms vs %.1f ms with %s",
				plan_place_names[place], ar / 1e6, pp / 1e6,
				iter, other, plan_place_names[1 - place]);
	}
}
