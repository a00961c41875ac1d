/*
 * schedule.c - the iteration time of a configuration: the closed form the
 * search screens with, and the event simulation (sim.c) that is the
 * reference and gives every reported figure.
 *
 * Both share one semantics.  A stage runs, per microbatch, a forward F, a
 * recomputation R (before each backward) and a backward B; exposed
 * tensor-parallel traffic, point-to-point transfers and host costs block
 * its stream (Megatron's p2p waits for its receives), half in the
 * forward and half in the backward.  Per update each stage then
 * synchronises its gradients as its runtime does (runtime.h): overlapped
 * with the next update's microbatches (2BW), bucketed into each chunk's
 * last backward, or after it; then the optimizer step; then, with
 * optimizer sharding, the weights' all-gather, of which one forward of
 * the next iteration hides what the runtime overlaps.
 *
 * Closed form, with T = F + R + B the slowest stage's busy time:
 *  - 2bw: m max_s max(T_s, sync_s / m) (no flush, no bubble);
 *  - flush, gpipe: the pipeline ends at P = m T + (d - 1) T / v; stage s's
 *    last backward ends sum_{j<s} (R_j + B_j) / v before stage 0's (the
 *    gradient reaches it first); the iteration ends when the last stage
 *    has synchronised, stepped and gathered;
 *  - none: P = m sum_s T_s, the stages' ends as above.
 * For equal stages this is exact (tests/unit/test_schedule.c checks it
 * against the simulation for every schedule and runtime); unequal
 * stages wait for each other in ways only the simulation follows, which
 * is why the search re-scores its best candidates with it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/cost.h"
#include "pd2bw/error.h"
#include "pd2bw/sim.h"

int cost_sim_long = 64;
#define SIM_LONG cost_sim_long

/* The operations' durations of stage st per microbatch (v = 1). */
static void
durations(const struct plan_stage *st, double *f, double *r, double *b)
{
	double extra = (st->tp_ms + st->p2p_ms + st->host_ms + st->cp_ms +
			st->ep_ms + st->fsdp_ms + st->offload_ms) / 2;

	*f = st->fwd_ms + extra;
	*r = st->recompute_ms;
	*b = st->compute_ms - st->fwd_ms + extra;
}

/* Share of one chunk's gradients in its last bucket. */
static double
bucket_share(const struct plan_stage *st, const struct cost_cfg *g)
{
	double chunk = (double)st->params / g->v, bucket = 40e6;

	if (g->rt)
		bucket = g->rt->bucket_params;
	return chunk > bucket ? bucket / chunk : 1;
}

static int
sync_of(const struct cost_cfg *g)
{
	return g->rt ? g->rt->sync : RUNTIME_SYNC_AFTER;
}

static int
gather_overlap(const struct cost_cfg *g)
{
	return g->rt && g->zero &&
	       runtime_has(g->rt, RUNTIME_OPT_OVERLAP_PARAM_GATHER);
}

double
cost_sync_hidden(const struct plan_stage *st, const struct cost_cfg *g)
{
	double f, r, b, red = 0, v = g->v > 1 ? g->v : 1;

	if (g->sched == PLAN_2BW)
		return 0;
	durations(st, &f, &r, &b);
	if (sync_of(g) == RUNTIME_SYNC_LAST_BWD && st->allreduce_ms > 0)
		red = fmin((1 - bucket_share(st, g)) * st->allreduce_ms,
			   b / v + (v - 1) * g->d * (r + b) / v);
	return red + (gather_overlap(g) ? fmin(st->gather_ms, f) : 0);
}

/* The per-microbatch terms of stage st, times m. */
static void
add_terms(struct plan_terms *t, const struct plan_stage *st, double m)
{
	t->compute_ms += m * st->compute_ms;
	t->recompute_ms += m * st->recompute_ms;
	t->tp_ms += m * st->tp_ms;
	t->p2p_ms += m * st->p2p_ms;
	t->host_ms += m * st->host_ms;
	t->cp_ms += m * st->cp_ms;
	t->ep_ms += m * st->ep_ms;
	t->fsdp_ms += m * st->fsdp_ms;
	t->offload_ms += m * st->offload_ms;
}

double
cost_iteration(const struct plan_stage *st, const struct cost_cfg *g,
	       struct plan_terms *t)
{
	double tmb = -1, P, iter, acc = 0, sum = 0;
	int s, slow = 0, last = 0, v = g->v > 1 ? g->v : 1;

	memset(t, 0, sizeof(*t));
	if (g->sched == PLAN_2BW) {
		for (s = 0; s < g->d; s++) {
			double busy = cost_stage_busy(&st[s]);
			double sync = (st[s].allreduce_ms + st[s].gather_ms +
				       cost_stage_upd_ms(&st[s])) /
				      g->m;
			double x = busy > sync ? busy : sync;

			if (x > tmb) {
				tmb = x;
				slow = s;
			}
		}
		add_terms(t, &st[slow], g->m);
		iter = g->m * tmb;
		t->allreduce_ms = iter - g->m * cost_stage_busy(&st[slow]);
		if (t->allreduce_ms < 0)
			t->allreduce_ms = 0;
		return iter;
	}
	for (s = 0; s < g->d; s++) {
		double x = cost_stage_busy(&st[s]);

		sum += x;
		if (x > tmb) {
			tmb = x;
			slow = s;
		}
	}
	if (g->sched == PLAN_NONE) {
		P = g->m * sum;
		for (s = 0; s < g->d; s++)
			add_terms(t, &st[s], g->m);
		v = 1;
	} else {
		P = g->m * tmb + (g->d - 1) * tmb / v;
		add_terms(t, &st[slow], g->m);
		t->bubble_ms = P - g->m * tmb;
	}
	iter = P;
	for (s = 0; s < g->d; s++) {
		double f, r, b, e, red = st[s].allreduce_ms, red_end, end, gx;

		durations(&st[s], &f, &r, &b);
		e = P - acc;
		acc += (r + b) / v;
		if (sync_of(g) == RUNTIME_SYNC_LAST_BWD && red > 0) {
			double q = bucket_share(&st[s], g), fr = -1e300;
			int ch;

			/* chunk c's last backward comes c groups of d
			 * chunk-steps before chunk 0's; each queues 1/v of
			 * the reduction behind the previous one */
			for (ch = v - 1; ch >= 0; ch--) {
				double bs = e - b / v -
					    ch * (double)g->d * (r + b) / v;
				double a = fmax(fr, bs);

				fr = fmax(a + red / v, bs + b / v + q * red / v);
			}
			red_end = fr;
		} else
			red_end = e + red;
		gx = gather_overlap(g) ? fmax(0, st[s].gather_ms - f)
				       : st[s].gather_ms;
		end = fmax(e, red_end) + cost_stage_upd_ms(&st[s]) + gx;
		if (end > iter) {
			iter = end;
			last = s;
		}
	}
	t->optimizer_ms = st[last].optimizer_ms;
	t->allreduce_ms = iter - P - t->optimizer_ms;
	if (t->allreduce_ms < 0)
		t->allreduce_ms = 0;
	return iter;
}

/* What simulate() keeps of the operations: all, none (the time alone),
 * or what the breakdown needs (sim_cfg's times_only, terms_only). */
enum keep { KEEP_ALL, KEEP_TIME, KEEP_TERMS };

/* Iterations simulate() runs of 2bw: enough for its steady state, fewer
 * when long. */
static int
sim_iters(const struct cost_cfg *g)
{
	return (double)g->m * g->d * g->v > 20000 ? 4 : 8;
}

static double floor_of(const struct plan_stage *st, const struct cost_cfg *g,
		       int m, int iters);

/* With cut (else NULL), a long run asks cut->enough() whether a floor of
 * its time, found after its probe, will do: then *floored is set and the
 * floor returned, not the time.  */
static double
simulate(const struct chain *c, const struct plan_stage *st,
	 const struct cost_cfg *g, struct sim *sm, struct plan_terms *terms,
	 enum keep keep, struct sim_mem *mem, const struct cost_cut *cut,
	 int *floored)
{
	struct sim_stage_in *in = xcalloc((size_t)g->d, sizeof(*in));
	struct sim_cfg cfg;
	double ret = -1, tmb = -1, P = 0, slope = 0, extra = 0;
	int s, slow = 0, j, last;
	size_t i;

	for (s = 0; s < g->d; s++) {
		double f, r, b, nf = cost_stash_mbs(g, s);

		durations(&st[s], &f, &r, &b);
		in[s].fwd_ms = f;
		in[s].rc_ms = r;
		in[s].bwd_ms = b;
		in[s].allreduce_ms = st[s].allreduce_ms;
		in[s].gather_ms = st[s].gather_ms;
		in[s].opt_ms = cost_stage_upd_ms(&st[s]);
		in[s].bucket_share = bucket_share(&st[s], g);
		if (st[s].recompute >= 0 && st[s].recompute < PROF_RC_N &&
		    c && st[s].last < c->L) {
			double peak = 0;

			for (j = st[s].first; j <= st[s].last; j++) {
				double full = CHAIN_AT(c, c->stash[PROF_RC_NONE],
						       g->k, j);

				in[s].stash_bytes += CHAIN_AT(
					c, c->stash[st[s].recompute], g->k, j);
				if (chain_full_reruns(c, g->k, j) && full > peak)
					peak = full;
			}
			if (st[s].recompute == PROF_RC_FULL)
				in[s].stash_extra_bytes = peak;
		} else if (nf > 0) {
			in[s].stash_bytes = (double)st[s].stash_bytes / nf;
		}
		if (cost_stage_busy(&st[s]) > tmb) {
			tmb = cost_stage_busy(&st[s]);
			slow = s;
		}
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.sched = g->sched;
	cfg.d = g->d;
	cfg.m = g->m;
	cfg.v = g->v;
	cfg.st = in;
	cfg.sync = sync_of(g);
	cfg.gather_overlap = gather_overlap(g);
	cfg.times_only = keep == KEEP_TIME;
	cfg.iter_only = keep == KEEP_TIME;
	cfg.terms_only = keep == KEEP_TERMS;
	cfg.mem = mem;
	cfg.iters = sim_iters(g);
	/*
	 * Many more microbatches than stages: past the fill the schedule
	 * repeats every d microbatches, so two runs at 32 d and 33 d give
	 * the time each further microbatch adds, and the rest follows
	 * without simulating thousands of identical steps.
	 */
	if (g->m > SIM_LONG * g->d) {
		struct sim probe;

		cfg.m = SIM_LONG / 2 * g->d;
		if (sim_run(&probe, &cfg))
			goto out;
		slope = probe.iter_ms;
		sim_release(&probe);
		cfg.m += g->d;
		if (cut) {
			/*
			 * The time below is increasing in the main run's: a
			 * floor of that run, put through the very same
			 * operations (each rounded monotonically, the
			 * factor g->m - cfg.m positive), floors it.
			 */
			double lo = floor_of(st, g, cfg.m, cfg.iters);

			lo += (g->m - cfg.m) * ((lo - slope) / g->d);
			if (lo > 0 && cut->enough(cut->arg, lo)) {
				*floored = 1;
				ret = lo;
				goto out;
			}
		}
		if (sim_run(sm, &cfg))
			goto out;
		slope = (sm->iter_ms - slope) / g->d;
		extra = (g->m - cfg.m) * slope;
		sm->iter_ms += extra;
		/*
		 * ... but never below the whole run's floor (floor_of():
		 * each stage's own work of the m microbatches at least),
		 * which the search's bounds read: the steady state timed
		 * over the two runs can come out a hair under the slowest
		 * stage's work (GPipe over two stages, 840 microbatches and
		 * a 57 ms reduction after the last backward: 0.4% under
		 * it, test_schedule.c test_long_run()).
		 */
		{
			double lo = floor_of(st, g, g->m, cfg.iters);

			if (lo > sm->iter_ms) {
				extra += lo - sm->iter_ms;
				sm->iter_ms = lo;
			}
		}
	} else if (sim_run(sm, &cfg)) {
		goto out;
	}
	ret = sm->iter_ms;
	if (terms) {
		memset(terms, 0, sizeof(*terms));
		if (g->sched == PLAN_NONE)
			for (s = 0; s < g->d; s++)
				add_terms(terms, &st[s], g->m);
		else
			add_terms(terms, &st[slow], g->m);
		if (g->sched == PLAN_2BW) {
			terms->allreduce_ms =
				fmax(0, ret - g->m * cost_stage_busy(&st[slow]));
		} else {
			/* the pipeline's own end: its last compute */
			if (keep == KEEP_TERMS)
				P = sm->compute_end_ms;
			for (i = 0; i < sm->nops; i++)
				if (sm->ops[i].kind <= SIM_BWD &&
				    sm->ops[i].end_ms > P)
					P = sm->ops[i].end_ms;
			if (g->sched != PLAN_NONE)
				terms->bubble_ms =
					fmax(0, P + extra - g->m * tmb);
			/* the step of the stage that ends the run, by its
			 * step or by the weights' exposed all-gather after
			 * it (cost_iteration()'s last stage) */
			last = -1;
			for (i = 0; i < sm->nops; i++)
				if ((sm->ops[i].kind == SIM_OPTIMIZER ||
				     sm->ops[i].kind == SIM_GATHER) &&
				    sm->ops[i].end_ms >= ret - extra - 1e-9)
					last = sm->ops[i].stage;
			for (i = 0; i < sm->nops && last >= 0; i++)
				if (sm->ops[i].kind == SIM_OPTIMIZER &&
				    sm->ops[i].stage == last)
					terms->optimizer_ms =
						sm->ops[i].end_ms -
						sm->ops[i].start_ms -
						st[last].sync_sm_ms;
			terms->allreduce_ms =
				fmax(0, ret - P - extra - terms->optimizer_ms);
		}
	}
out:
	free(in);
	return ret;
}

/*
 * cost_simulate_floor() of 2bw, whose time sim_run() measures as
 * (U_b - U_a) / P: U_k stage 0's end of the last backward of update k,
 * P = (I - 2) / 2 of I iterations, b = I - 2, a = b - P.  With m >= d - 1
 * every stage s is in its steady phase, F(s' + i) [R(i)] B(i) with
 * s' = d - s - 1 warm-up forwards, from update a's last microbatch to
 * update b's (its cool-down starts at microbatch I m - s' > (b + 1) m).
 * Stage 0 runs F(d - 1 + (a + 1) m) after B((a + 1) m - 1), so from U_a
 * on; that forward reaches stage s no earlier than U_a plus the forwards
 * of the stages before it, where it is F(s' + i0), i0 = (a + 1) m + s.
 * From it to B((b + 1) m - 1) stage s runs P m - s whole F R B in turn,
 * and that backward's gradient reaches stage 0's end U_b after the
 * recomputations and backwards of the stages before s.  So
 *   U_b - U_a >= sum_{j<s} T_j + (P m - s) T_s   for each s < P m,
 * T the stage's F + R + B; s = 0 is stage 0's work alone.  (The 2bw
 * weight-version waits and the transfers only add to it.)
 */
static double
floor_2bw(const struct plan_stage *st, const struct cost_cfg *g, int m,
	  int iters)
{
	double most = 0, before = 0;
	int s, P = (iters - 2) / 2;

	/* not one the search makes (it takes m >= d for 2bw) */
	if (m < g->d - 1)
		return 0;
	for (s = 0; s < g->d && s < (double)P * m; s++) {
		double f, r, b, t;

		durations(&st[s], &f, &r, &b);
		t = (before + ((double)P * m - s) * (f + r + b)) / P;
		if (t > most)
			most = t;
		before += f + r + b;
	}
	return most * (1 - 1e-8);
}

/*
 * What follows stage s's last backward (its first chunk's of the last
 * microbatch) before a schedule without 2bw ends, at least (update_end()
 * in sim.c): the gradients' reduction the optimizer step waits for, all
 * of it after the backward, or with the bucketed reduction the first
 * chunk's 1/v of it, which starts no earlier than that backward (of b / v,
 * b the stage's backward per microbatch) and ends no earlier than its
 * end plus the last bucket's share: so its end is the backward's end
 * plus the larger of share red / v and (red - b) / v, or later; then the
 * step, then the all-gather (less the next forward it hides behind, when
 * it overlaps).  Each of them starts no earlier than the one before it
 * ends, and the run's time is the last end of any of them, so no shorter
 * than the backward's end plus this.
 */
static double
tail_of(const struct plan_stage *st, const struct cost_cfg *g, double f,
	double b, int v)
{
	double red = 0;

	if (st->allreduce_ms > 0)
		red = sync_of(g) == RUNTIME_SYNC_LAST_BWD
			      ? fmax(bucket_share(st, g) * st->allreduce_ms,
				     st->allreduce_ms - b) / v
			      : st->allreduce_ms;
	return red + cost_stage_upd_ms(st) +
	       (gather_overlap(g) ? fmax(0, st->gather_ms - f)
				  : st->gather_ms);
}

/* cost_simulate_floor() of a run of m microbatches simulated as such,
 * over iters iterations when 2bw. */
static double
floor_of(const struct plan_stage *st, const struct cost_cfg *g, int m,
	 int iters)
{
	double most = 0, fill = 0, drain = 0, f0, r0, b0, tail0;
	int s, v = g->v > 1 ? g->v : 1;

	if (g->sched == PLAN_2BW)
		return floor_2bw(st, g, m, iters);
	durations(&st[0], &f0, &r0, &b0);
	tail0 = tail_of(&st[0], g, f0, b0, v);
	for (s = 0; s < g->d; s++) {
		double f, r, b, t, own;

		durations(&st[s], &f, &r, &b);
		/* Stage s starts once the stages before it forwarded the
		 * first microbatch's first chunk, runs all its work one
		 * operation after another, and its last backward (a first
		 * chunk's) goes back through the stages before it, to
		 * stage 0's last backward, whose tail_of() follows; its
		 * own tail_of() follows its own last backward. */
		t = m * (f + r + b);
		t += fill;
		own = t + tail_of(&st[s], g, f, b, v);
		t += drain + tail0;
		if (own > t)
			t = own;
		if (t > most)
			most = t;
		fill += f / v;
		drain += (r + b) / v;
	}
	return most * (1 - 1e-8);
}

double
cost_simulate_floor(const struct plan_stage *st, const struct cost_cfg *g)
{
	/* extrapolated runs are not simulated microbatch by microbatch
	 * (see simulate()) */
	if (g->m > SIM_LONG * g->d)
		return 0;
	return floor_of(st, g, g->m, sim_iters(g));
}

/*
 * The least c for which stages of times T_0..T_{d-1} summing to all can
 * keep a T_s + S_s / q below c for every s (S_s the sum of the T before
 * s; a q >= 1): were they all below, the prefix sums U_s = S_s + T_s
 * would grow as U_s < U_{s-1} (1 - 1 / (a q)) + c / a (increasing in
 * U_{s-1} when a q >= 1), so U_{d-1} < c q (1 - (1 - 1 / (a q))^d), which
 * is all: c is no more than all / (q (1 - (1 - 1 / (a q))^d)).  The stages
 * equal to it, geometrically decreasing, reach it: all over this, which
 * reads neither all nor the stages.
 */
static double
lb_den(double a, double q, int d)
{
	double x = 1 / (a * q);

	/* 1 - (1 - x)^d without losing it when x is small */
	return q * -expm1(d * log1p(-x));
}

/*
 * The floors as cost_simulate_lb() reads them: each is at least
 * a_s T_s + S_s / q for every stage s (T_s its forwards, recomputations
 * and backwards, S_s those of the stages before it); floor_factor()
 * returns a_s, q in *q, or 0 when a floor says nothing.  a_s q >= 1
 * where it says something.  floor_factors() works out what reads no
 * stage once (0: the floors say nothing), floor_at() a stage's a_s from
 * it: the bounds' scans ask every stage.  Inlined whatever the
 * compiler's size heuristics say.
 */
static inline __attribute__((always_inline)) int
floor_factors(const struct cost_cfg *g, double *q, int *P)
{
	if (g->d < 1 || g->m < 1)
		return 0;
	if (g->sched == PLAN_2BW) {
		/* floor_2bw(): (m - s / P) T_s + S_s / P for each s < d,
		 * where P m >= d (m >= d - 1 is floor_2bw()'s own) */
		*P = (sim_iters(g) - 2) / 2;
		if ((double)*P * g->m < g->d || g->m < g->d - 1)
			return 0;
		*q = *P;
		return 1;
	}
	/* floor_of(): stage s's m T_s after the forwards and before the
	 * backwards of the stages before it, S_s / v */
	*P = 0;
	*q = g->v > 1 ? g->v : 1;
	return 1;
}

/* a_s of floor_factors()'s P (stage s: what alone reads it). */
static inline __attribute__((always_inline)) double
floor_at(const struct cost_cfg *g, int P, int s)
{
	return P ? g->m - (double)s / P : g->m;
}

static inline __attribute__((always_inline)) double
floor_factor(const struct cost_cfg *g, int s, double *q)
{
	int P;

	return floor_factors(g, q, &P) ? floor_at(g, P, s) : 0;
}

/* What the floors' own 1e-8 and the rounding of the stages' compute
 * (differences of prefix sums) against the chain's leave of a bound. */
#define LB_SLACK (1 - 1e-7)

void
cost_simulate_lb_factors(const struct cost_cfg *g, struct cost_sim_lb *f)
{
	double q;

	/* the least a_s, at the last stage */
	f->a = floor_factor(g, g->d - 1, &q);
	f->den = f->a > 0 ? lb_den(f->a, q, g->d) : 0;
}

double
cost_simulate_lb_at(const struct cost_sim_lb *f, double all_ms,
		    double max_ms)
{
	double lb;

	if (!(f->a > 0) || !(all_ms > 0))
		return 0;
	lb = all_ms / f->den;
	/* the stage holding the slowest layer */
	if (f->a * max_ms > lb)
		lb = f->a * max_ms;
	return lb * LB_SLACK;
}

double
cost_simulate_lb(const struct cost_cfg *g, double all_ms, double max_ms)
{
	struct cost_sim_lb f;

	cost_simulate_lb_factors(g, &f);
	return cost_simulate_lb_at(&f, all_ms, max_ms);
}

double
cost_simulate_stage_lb(const struct cost_cfg *g)
{
	double q;

	return floor_factor(g, g->d - 1, &q) * LB_SLACK;
}

/* What rl says stage s of layers a..e adds to its compute, at least:
 * INFINITY when the layers leave no room at all (by more than the
 * prefix sums' rounding, under which they leave none). */
static double
rc_lb_of(const struct cost_rc_lb *rl, int s, int a, int e)
{
	double left, x;

	if (!rl)
		return 0;
	left = rl->room - rl->pb * (double)(rl->params[e + 1] - rl->params[a]);
	if (left < -1e-6 * fabs(rl->room))
		return INFINITY;
	/* (not fmax(), a call: the same number, NaN and zeros alike) */
	x = rl->phi[e + 1] - rl->phi[a] - rl->per[s] * (left > 0 ? left : 0);
	return x > 0 ? x : 0;
}

/*
 * A partition whose floor is below bound has every stage's a_s T_s +
 * S_s / q below it, and T_s, S_s are at least the compute of its layers
 * and of the layers before it (T_s plus what rl says its recomputation
 * adds).  A stage's side of that grows with its last layer and shrinks
 * as its first moves on (by a_s x - x / q for a layer of x, a_s q >= 1,
 * and the recomputation's bound grows with the stage's layers).  So the
 * greedy partition from the last stage back, each stage starting as
 * early as the bound lets it, is ahead of (starts no later than) any
 * such partition at every stage, and finds one if there is any: a layer
 * it gives stage s that the other gives an earlier stage s', whose a_s'
 * is no smaller (2bw's shrink with s) and whose recomputation's bound
 * is no smaller (rl's per grows with s), costs stage s no more alone
 * than it costs s' alone, which is no more than s' itself.  (From the
 * first stage on, being ahead could cost more.)  O(L).
 */
int
cost_simulate_lb_fits_rc(const struct cost_cfg *g, const double *pre, int L,
			 double bound, const struct cost_rc_lb *rl)
{
	double a, q;
	int s, first, last = L - 1, P, ok;

	if (g->v > 1 || g->d > L)
		return g->d <= L; /* chunks are not contiguous */
	ok = floor_factors(g, &q, &P);
	for (s = g->d - 1; s >= 0; s--) {
		a = ok ? floor_at(g, P, s) : 0;
		if (!(a > 0))
			return 1;
		/* the layers before it leave one to each stage before it */
		for (first = last + 1;
		     first > s &&
		     (a * (pre[last + 1] - pre[first - 1] +
			   rc_lb_of(rl, s, first - 1, last)) +
		      (pre[first - 1] - pre[0]) / q) *
				     LB_SLACK <
			     bound;
		     first--)
			;
		if (first == last + 1)
			return 0;
		last = first - 1;
	}
	return last == -1;
}

int
cost_simulate_lb_fits(const struct cost_cfg *g, const double *pre, int L,
		      double bound)
{
	return cost_simulate_lb_fits_rc(g, pre, L, bound, NULL);
}

/*
 * A stage's side of cost_simulate_lb_fits_rc()'s test without rl, first
 * layer j, last layer's prefix sum P: the very expression, to the bit.
 */
static inline double
lb_side(double a, double q, const double *pre, double P, int j)
{
	return (a * (P - pre[j] + 0.0) + (pre[j] - pre[0]) / q) * LB_SLACK;
}

/*
 * cost_simulate_lb_fits() over prefix sums that never go down, by
 * galloping: with x = pre[j] a stage's side a (P - x) + (x - pre[0]) / q
 * never grows with x in the reals (a q >= 1, to a few units of rounding
 * in the last place under 2bw, s + 1 of them at most), every term of
 * it is >= 0 (P >= x >= pre[0]), so each rounding moves it by a
 * relative 2^-53 at most and the five of them by less than 1e-15: where
 * the computed side is below bound by a relative 1e-9 at j, it is below
 * bound at every j' in [j, last] (x no smaller) as the scan computes
 * it.  So the scan of the starts from the last layer down may jump over
 * such a run at once, found by galloping, and go on one start at a time
 * from there, to the same first start that goes over (O(d log L) for
 * L starts).
 */
int
cost_simulate_lb_fits_up(const struct cost_cfg *g, const double *pre, int L,
			 double bound)
{
	double a, q, P, safe = bound / (1 + 1e-9);
	int s, j, step, first, last = L - 1, np, ok;

	if (g->v > 1 || g->d > L)
		return g->d <= L; /* chunks are not contiguous */
	ok = floor_factors(g, &q, &np);
	for (s = g->d - 1; s >= 0; s--) {
		a = ok ? floor_at(g, np, s) : 0;
		if (!(a > 0))
			return 1;
		P = pre[last + 1];
		/* cost_simulate_lb_fits_rc()'s scan, four starts (most
		 * stages of a long pipeline are a few layers) */
		for (first = last + 1, j = 0;
		     j < 4 && first > s &&
		     lb_side(a, q, pre, P, first - 1) < bound;
		     j++, first--)
			;
		if (j == 4) {
			/* [j, last] all below bound: galloping down by
			 * safe, then the scan from there */
			for (j = first, step = 1;
			     j - step > s &&
			     lb_side(a, q, pre, P, j - step) < safe;
			     step *= 2)
				j -= step;
			for (first = j; first > s &&
					lb_side(a, q, pre, P, first - 1) < bound;
			     first--)
				;
		}
		if (first == last + 1)
			return 0;
		last = first - 1;
	}
	return last == -1;
}

/*
 * A time the simulation of stages of g is no shorter than, when one of
 * them reduces its gradients for red_ms (allreduce_ms) and the stages'
 * forwards (durations()' F, compute and half the exposed transfers)
 * sum to fwd_ms: without 2bw, whose reductions overlap the next update,
 * update_end() in sim.c queues a stage's reduction after its last
 * backward (or, bucketed, each chunk's red / v from its last backward's
 * start on, one after the other on the stage's queue, from the last
 * chunk's on), so it ends red_ms or more after that backward's start.
 * That backward is the last microbatch's, which waits for the gradient
 * from the last stage (chunk), which waits for the microbatch's forward
 * through every stage and chunk, each chunk a 1 / v share of its
 * stage's F: fwd_ms in all.  The run's time is the last end of anything
 * (sums of non-negative times, rounded monotonically: a hair off).  0
 * for a long run, which the simulation extrapolates, as
 * cost_simulate_floor().
 */
double
cost_simulate_sync_lb(const struct cost_cfg *g, double fwd_ms, double red_ms)
{
	if (g->sched == PLAN_2BW || g->m < 1 || g->m > SIM_LONG * g->d ||
	    !(red_ms > 0))
		return 0;
	return (fmax(0, fwd_ms) + red_ms) * (1 - 1e-8);
}

double
cost_simulate(const struct chain *c, const struct plan_stage *st,
	      const struct cost_cfg *g, struct sim *sm,
	      struct plan_terms *terms)
{
	return simulate(c, st, g, sm, terms, KEEP_ALL, NULL, NULL, NULL);
}

double
cost_simulate_mem(const struct chain *c, const struct plan_stage *st,
		  const struct cost_cfg *g, struct sim *sm,
		  struct plan_terms *terms, struct sim_mem *mem)
{
	return simulate(c, st, g, sm, terms, KEEP_ALL, mem, NULL, NULL);
}

/* simulate() in a simulator of its own, released after. */
static double
simulate_once(const struct chain *c, const struct plan_stage *st,
	      const struct cost_cfg *g, struct plan_terms *terms,
	      enum keep keep, struct sim_mem *mem, const struct cost_cut *cut,
	      int *floored)
{
	struct sim sm;
	double t;

	memset(&sm, 0, sizeof(sm)); /* for sim_release() after an error */
	t = simulate(c, st, g, &sm, terms, keep, mem, cut, floored);
	sim_release(&sm);
	return t;
}

double
cost_simulate_time(const struct chain *c, const struct plan_stage *st,
		   const struct cost_cfg *g, struct sim_mem *mem)
{
	return simulate_once(c, st, g, NULL, KEEP_TIME, mem, NULL, NULL);
}

double
cost_simulate_time_cut(const struct chain *c, const struct plan_stage *st,
		       const struct cost_cfg *g, struct sim_mem *mem,
		       const struct cost_cut *cut, int *floored)
{
	*floored = 0;
	return simulate_once(c, st, g, NULL, KEEP_TIME, mem, cut, floored);
}

double
cost_simulate_terms(const struct chain *c, const struct plan_stage *st,
		    const struct cost_cfg *g, struct plan_terms *terms,
		    struct sim_mem *mem)
{
	return simulate_once(c, st, g, terms, KEEP_TERMS, mem, NULL, NULL);
}

int
cost_cfg_of_plan(const struct plan *p, const struct chain *c,
		 const struct cost_opts *o, struct runtime *rt,
		 struct cost_cfg *g)
{
	int k;

	for (k = 0; k < c->nmb && c->mb[k] != p->b; k++)
		;
	if (k == c->nmb)
		return -1;
	memset(g, 0, sizeof(*g));
	g->sched = p->sched;
	g->w = p->w;
	g->d = p->d;
	g->k = k;
	g->b = p->b;
	g->m = p->m;
	g->r = p->recompute;
	g->place = p->place;
	g->t = p->t;
	g->v = p->v > 1 ? p->v : 1;
	g->zero = p->zero;
	g->shard = p->shard;
	g->offload = p->offload;
	g->sp = p->sp;
	g->c = p->c > 1 ? p->c : 1;
	g->e = p->e > 1 ? p->e : 1;
	g->etp = p->etp > 0 ? p->etp : p->t;
	if (p->runtime && *p->runtime && runtime_parse(rt, p->runtime) == 0)
		g->rt = rt;
	else
		g->rt = cost_runtime(o, p->sched, p->d);
	return 0;
}
