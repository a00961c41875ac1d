/*
 * test_schedule.c - the closed form against the event simulation, which
 * is its reference (lib/cost/schedule.c): random configurations of every
 * schedule, with and without interleaving, with every synchronisation
 * rule (after the last backward, bucketed into it, 2BW's overlap), with
 * and without optimizer sharding and its overlapped all-gather, ZeRO-2
 * and ZeRO-3 (FSDP's exposed per-microbatch gathers and reductions, the
 * update's gather of ZeRO-2), activation offload, tensor-parallel,
 * context-parallel and host costs, under every runtime.  For stages of equal times the two must agree
 * to 0.1%; for unequal stages the planner reports the simulation, which
 * an end-to-end search checks.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "capture.h"
#include "pd2bw/cost.h"
#include "pd2bw/error.h"
#include "pd2bw/place.h"
#include "pd2bw/search.h"
#include "pd2bw/sim.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double
urand(void)
{
	return h_urand(&rng);
}

static int
irand(int lo, int hi)
{
	return lo + (int)(urand() * (hi - lo + 1));
}

/* One random stage; equal when proto is given. */
static void
random_stage(struct plan_stage *st, const struct plan_stage *proto)
{
	if (proto) {
		*st = *proto;
		return;
	}
	memset(st, 0, sizeof(*st));
	st->fwd_ms = 1 + 9 * urand();
	st->compute_ms = st->fwd_ms * (2.5 + urand());
	st->recompute_ms = urand() < 0.3 ? st->fwd_ms : 0;
	st->tp_ms = urand() < 0.5 ? 2 * urand() : 0;
	st->p2p_ms = urand() < 0.7 ? urand() : 0;
	st->host_ms = urand() < 0.5 ? 0.5 * urand() : 0;
	st->params = (int64_t)(1e6 + 3e8 * urand());
	st->allreduce_ms = urand() < 0.8 ? 60 * urand() : 0;
	st->optimizer_ms = urand() < 0.5 ? 5 * urand() : 0;
	/* the SMs of the collectives compute hid */
	st->sync_sm_ms = urand() < 0.5 ? 3 * urand() : 0;
	/* context parallelism's exposed K/V ring */
	st->cp_ms = urand() < 0.3 ? urand() : 0;
}

static void
test_equal_stages(void)
{
	static const int scheds[] = {PLAN_2BW, PLAN_FLUSH, PLAN_GPIPE,
				     PLAN_NONE};
	struct runtime rts[5];
	int trial, worst_trial = -1, n = 0;
	double worst = 0;
	char msg[160];

	runtime_init(&rts[0], RUNTIME_MEGATRON_CORE);
	runtime_parse(&rts[1], "megatron-core:no-overlap-param-gather,"
		      "no-overlap-grad-reduce");
	runtime_init(&rts[2], RUNTIME_PIPEDREAM_2BW);
	runtime_init(&rts[3], RUNTIME_TORCHTITAN);
	runtime_init(&rts[4], RUNTIME_DEEPSPEED);
	for (trial = 0; trial < 3000; trial++) {
		struct plan_stage st[8], proto;
		struct cost_cfg g;
		struct plan_terms t;
		struct sim sm;
		double cf, sm_ms, err;
		int s;

		memset(&g, 0, sizeof(g));
		g.sched = scheds[trial % 4];
		g.d = irand(1, 6);
		g.v = 1;
		if (g.sched == PLAN_FLUSH && g.d > 1 && urand() < 0.5)
			g.v = irand(2, 3);
		g.m = g.sched == PLAN_2BW ? irand(g.d, 3 * g.d)
		      : g.v > 1 ? g.d * irand(1, 4) : irand(1, 12);
		g.w = irand(2, 8);
		g.t = 1;
		g.zero = irand(0, 3);
		g.rt = &rts[irand(0, 4)];
		random_stage(&proto, NULL);
		if (g.zero == 1 || g.zero == 2)
			proto.gather_ms = 20 * urand();
		if (g.zero >= 2) {
			/* reduced per microbatch, in fsdp_ms */
			proto.allreduce_ms = 0;
			proto.fsdp_ms = 3 * urand();
		}
		if (urand() < 0.3)
			proto.offload_ms = urand();
		for (s = 0; s < g.d; s++)
			random_stage(&st[s], &proto);
		cf = cost_iteration(st, &g, &t);
		sm_ms = cost_simulate(NULL, st, &g, &sm, NULL);
		sim_release(&sm);
		err = fabs(cf - sm_ms) / sm_ms;
		n++;
		if (err > worst) {
			worst = err;
			worst_trial = trial;
		}
	}
	snprintf(msg, sizeof(msg),
		 "closed form = simulation to 0.1%% on %d configurations of "
		 "equal stages (worst %.2e, trial %d)", n, worst, worst_trial);
	CHECK_MSG(worst < 1e-3, msg);
}

/*
 * Unequal stages: the closed form is the screen; the plan the search
 * returns carries the simulated time of its own stages, summary and
 * plan file alike.
 */
static void
test_search_reports_simulation(void)
{
	struct profile p;
	struct chain c;
	struct cluster cl;
	struct cost_opts o;
	struct search_opts so;
	struct search_stats stats;
	struct search_chain sc;
	int trial, agree = 0, plans = 0;

	for (trial = 0; trial < 30; trial++) {
		struct plan plan;
		struct cost_cfg g;
		struct sim sm;
		double t;
		int k, L = irand(3, 10), j;

		profile_init(&p);
		profile_alloc(&p, 1, L);
		p.mb[0] = 1;
		p.seq_len = 128;
		p.hidden = 64;
		p.precision = xstrdup("bf16");
		for (j = 0; j < L; j++) {
			struct prof_layer *ly = &p.layers[j];

			ly->name = xstrdup("layer");
			ly->kind = PROF_BLOCK;
			ly->repeat = 1;
			ly->params = (int64_t)(1e6 + 1e8 * urand());
			ly->pt[0].fwd_ms = 1 + 5 * urand();
			ly->pt[0].bwd_ms = 2 * ly->pt[0].fwd_ms;
			ly->pt[0].out_bytes = 1 << 20;
		}
		chain_build(&c, &p);
		cluster_init(&cl);
		cluster_preset(&cl, "dgx-a100:2");
		cost_opts_init(&o);
		o.cap_bytes = 70e9;
		search_opts_init(&so);
		so.batch = 8 * irand(1, 8);
		/* every ZeRO stage the default runtimes run */
		so.zero_mask = 0xf;
		so.topk = 3;
		sc.c = &c;
		sc.t = 1;
		sc.sp = 0;
		sc.cp = 1;
		sc.ep = 1;
		sc.etp = 0;
		sc.runtime = 0;
		plan_init(&plan);
		if (search_run_tp(&sc, 1, &cl, &o, &so, &plan, &stats) == 0) {
			plans++;
			memset(&g, 0, sizeof(g));
			g.sched = plan.sched;
			g.w = plan.w;
			g.d = plan.d;
			g.m = plan.m;
			g.v = plan.v;
			g.zero = plan.zero;
			g.shard = plan.shard;
			g.offload = plan.offload;
			g.t = 1;
			for (k = 0; k < c.nmb && c.mb[k] != plan.b; k++)
				;
			g.k = k;
			g.rt = cost_runtime(&o, plan.sched, plan.d);
			t = cost_simulate(&c, plan.stages, &g, &sm, NULL);
			sim_release(&sm);
			agree += fabs(t - plan.iter_ms) <= 1e-9 * t;
		}
		plan_release(&plan);
		chain_release(&c);
		cluster_release(&cl);
		profile_release(&p);
	}
	CHECK_MSG(plans > 20, "the random searches found plans");
	CHECK_MSG(agree == plans,
		  "every plan's time is the simulation of its own stages");
}

/* Two stages of forward 1 and backward 2 ms, two microbatches over two
 * replicas in a flush pipeline, run by rt. */
static void
two_stages(struct plan_stage st[2], struct cost_cfg *g,
	   const struct runtime *rt)
{
	int s;

	memset(st, 0, 2 * sizeof(*st));
	for (s = 0; s < 2; s++) {
		st[s].fwd_ms = 1;
		st[s].compute_ms = 3;
	}
	memset(g, 0, sizeof(*g));
	g->sched = PLAN_FLUSH;
	g->d = 2;
	g->m = 2;
	g->w = 2;
	g->t = 1;
	g->v = 1;
	g->rt = rt;
}

/*
 * By hand: flush, d = 2, m = 2, F = 1, B = 2, all-reduce 4 per update.
 * Stage 1: F0 1-2, B0 2-4, F1 4-5, B1 5-7; stage 0: F0 0-1, F1 1-2,
 * B0 4-6, B1 7-9.  After the last backward (megatron-core without
 * overlap): stage 0 reduces 9-13; bucketed (one bucket: the whole
 * reduction waits for the end of B1): also 13; with a bucket of a
 * quarter of the gradients, 7-11 overlapped and the last bucket after
 * 9: max(7 + 4, 9 + 1) = 11.
 */
static void
test_hand_checked(void)
{
	struct plan_stage st[2];
	struct runtime after, bucketed;
	struct cost_cfg g;
	struct plan_terms t;
	struct sim sm;
	int s;

	runtime_parse(&after, "megatron-core:no-overlap-param-gather,"
		      "no-overlap-grad-reduce");
	runtime_init(&bucketed, RUNTIME_MEGATRON_CORE);
	two_stages(st, &g, &after);
	for (s = 0; s < 2; s++) {
		st[s].allreduce_ms = 4;
		st[s].params = 160000000;
	}
	CHECK_NEAR(cost_iteration(st, &g, &t), 13, 1e-12);
	CHECK_NEAR(t.bubble_ms, 3, 1e-12);
	CHECK_NEAR(t.allreduce_ms, 4, 1e-12);
	CHECK_NEAR(cost_simulate(NULL, st, &g, &sm, &t), 13, 1e-12);
	sim_release(&sm);
	g.rt = &bucketed;
	/* 160 M parameters, 40 M per bucket: a quarter after the end */
	CHECK_NEAR(cost_iteration(st, &g, &t), 11, 1e-12);
	CHECK_NEAR(cost_simulate(NULL, st, &g, &sm, &t), 11, 1e-12);
	CHECK_NEAR(t.allreduce_ms, 2, 1e-12);
	sim_release(&sm);
}

/*
 * The step the breakdown books when the weights' all-gather after it
 * ends the run: two stages of forward 1 and backward 2 ms, two
 * microbatches, optimizer sharded, a 4 ms gather of which the next
 * forward hides 1.  The pipeline ends at 2 x 3 + 3 = 9 ms; stage 0 steps
 * 0.5 ms after its last backward and gathers 3 exposed ms after that:
 * 12.5 ms, of which the optimizer 0.5 and the sync 3, in the closed form
 * and in the simulation's breakdown alike (which booked the step as sync
 * while it kept no gathers).
 */
static void
test_gather_after_step(void)
{
	struct plan_stage st[2];
	struct plan_terms t;
	struct cost_cfg g;
	struct runtime rt;
	struct sim sm;
	int s;

	runtime_init(&rt, RUNTIME_MEGATRON_CORE);
	two_stages(st, &g, &rt);
	for (s = 0; s < 2; s++) {
		st[s].gather_ms = 4;
		st[s].optimizer_ms = 0.5;
	}
	g.zero = 1;
	CHECK_NEAR(cost_iteration(st, &g, &t), 12.5, 1e-12);
	CHECK_NEAR(t.optimizer_ms, 0.5, 1e-12);
	CHECK_NEAR(t.allreduce_ms, 3, 1e-12);
	CHECK_NEAR(cost_simulate(NULL, st, &g, &sm, &t), 12.5, 1e-12);
	CHECK_NEAR(t.optimizer_ms, 0.5, 1e-12);
	CHECK_NEAR(t.allreduce_ms, 3, 1e-12);
	sim_release(&sm);
	CHECK_NEAR(cost_simulate_terms(NULL, st, &g, &t, NULL), 12.5, 1e-12);
	CHECK_NEAR(t.optimizer_ms, 0.5, 1e-12);
	CHECK_NEAR(t.allreduce_ms, 3, 1e-12);
}

/* Long runs extrapolate from 32 d and 33 d microbatches: the same time
 * as simulating them all, for unequal stages too. */
static void
test_long_runs(void)
{
	static const int scheds[] = {PLAN_2BW, PLAN_FLUSH, PLAN_GPIPE};
	struct runtime rt;
	int trial, ok = 0, n = 0;
	double worst = 0;

	runtime_init(&rt, RUNTIME_MEGATRON_CORE);
	for (trial = 0; trial < 60; trial++) {
		struct plan_stage st[4];
		struct cost_cfg g;
		struct sim sm;
		double a, b;
		int s;

		memset(&g, 0, sizeof(g));
		g.sched = scheds[trial % 3];
		g.d = irand(2, 4);
		g.v = g.sched == PLAN_FLUSH && trial % 2 ? 2 : 1;
		g.m = g.d * irand(70, 90);
		g.w = 4;
		g.t = 1;
		g.rt = &rt;
		for (s = 0; s < g.d; s++)
			random_stage(&st[s], NULL);
		a = cost_simulate(NULL, st, &g, &sm, NULL);
		sim_release(&sm);
		cost_sim_long = 1 << 20;
		b = cost_simulate(NULL, st, &g, &sm, NULL);
		sim_release(&sm);
		cost_sim_long = 64;
		n++;
		if (fabs(a - b) / b > worst)
			worst = fabs(a - b) / b;
		ok += fabs(a - b) <= 1e-6 * b;
	}
	{
		char msg[128];

		snprintf(msg, sizeof(msg), "extrapolated long runs equal the "
			 "whole simulation (%d of %d, worst %.2e)", ok, n,
			 worst);
		CHECK_MSG(ok == n, msg);
	}
}

/*
 * A random run of trial's schedule (2BW, flush, GPipe, none in turn) on
 * up to dmax stages, a third of the flush ones interleaved up to vmax
 * ways, up to mmax microbatches, each stage random_stage()'s.
 */
static void
random_run(struct cost_cfg *g, struct plan_stage *st, int trial, int dmax,
	   int vmax, int mmax, const struct runtime *rt)
{
	static const int scheds[] = {PLAN_2BW, PLAN_FLUSH, PLAN_GPIPE,
				     PLAN_NONE};
	int s;

	memset(g, 0, sizeof(*g));
	g->sched = scheds[trial % 4];
	g->d = irand(1, dmax);
	g->v = g->sched == PLAN_FLUSH && g->d > 1 && trial % 3 ? irand(2, vmax)
							       : 1;
	g->m = g->sched == PLAN_2BW ? irand(g->d, 3 * g->d)
	       : g->v > 1	    ? g->d * irand(1, 90)
				    : irand(1, mmax);
	g->w = irand(1, 8);
	g->t = 1;
	g->zero = irand(0, 1);
	g->rt = rt;
	for (s = 0; s < g->d; s++)
		random_stage(&st[s], NULL);
}

/*
 * cost_simulate_floor() never exceeds the simulated time: random stages,
 * all schedules, interleaving, d up to 12, m up to past the long runs
 * (where it gives 0), the reduction bucketed into the last backward or
 * after it, with and without an all-gather after the step (overlapped
 * with the next forward or not), each of which the floor's tail after
 * the last backward counts; and it says something (above 60% of the
 * time) for most runs of the flush schedules.
 */
static void
test_floor(void)
{
	struct runtime rts[3];
	struct sim_mem mem = {0};
	int trial, ok = 0, n = 0, close = 0, flush = 0, s;

	runtime_init(&rts[0], RUNTIME_MEGATRON_CORE);
	runtime_init(&rts[1], RUNTIME_MEGATRON_CORE);
	runtime_parse(&rts[1], "megatron-core:no-overlap-grad-reduce,"
			       "no-overlap-param-gather");
	runtime_init(&rts[2], RUNTIME_PIPEDREAM_2BW);
	for (trial = 0; trial < 900; trial++) {
		struct plan_stage st[12];
		struct cost_cfg g;
		double a, f;

		random_run(&g, st, trial, 12, 4, 900, &rts[trial / 4 % 3]);
		if (trial / 12 % 2)
			for (s = 0; s < g.d; s++)
				st[s].gather_ms = 20 * urand();
		a = cost_simulate_time(NULL, st, &g, &mem);
		f = cost_simulate_floor(st, &g);
		n++;
		ok += a >= 0 && f <= a;
		if (!(a >= 0 && f <= a))
			printf("# trial %d: sched %d d %d v %d m %d: floor "
			       "%.17g above the simulation's %.17g\n",
			       trial, g.sched, g.d, g.v, g.m, f, a);
		if (g.sched == PLAN_FLUSH || g.sched == PLAN_GPIPE) {
			flush++;
			close += f > 0.6 * a;
		}
	}
	sim_mem_release(&mem);
	CHECK_MSG(ok == n, "the floor is below every simulated time");
	CHECK_MSG(close > flush / 2, "the floor of most flush runs is above "
				     "60% of their time");
}

/*
 * A long run (m over 64 d: extrapolated from two runs of 32 d and 33 d
 * microbatches) is never priced below its floor, each stage's own work
 * over the m microbatches, which the search's bounds read: GPipe over two
 * stages of 5.81 and 3.86 ms (the second's p2p, K/V ring and a 57 ms
 * reduction beside), 840 microbatches, whose extrapolated steady state
 * once came out 0.4% under stage 0's 840 x 5.81 ms (trial 354 of
 * test_sim_lb() under PD2BW_TEST_SEED=136).
 */
static void
test_long_run(void)
{
	struct runtime rt;
	struct sim_mem mem = {0};
	struct plan_stage st[2];
	struct cost_cfg g;
	double a, pre[3];

	runtime_init(&rt, RUNTIME_MEGATRON_CORE);
	CHECK(runtime_parse(&rt, "megatron-core:no-overlap-grad-reduce,"
				 "no-overlap-param-gather") == 0);
	memset(st, 0, sizeof(st));
	memset(&g, 0, sizeof(g));
	st[0].compute_ms = 5.8123463231851593;
	st[0].fwd_ms = 1.9687238880137283;
	st[0].sync_sm_ms = 2.0412409295699483;
	st[1].compute_ms = st[1].fwd_ms = 0.35084906152897732;
	st[1].recompute_ms = 3.508490615289773;
	st[1].p2p_ms = 0.1458221105029911;
	st[1].allreduce_ms = 57.460402475564557;
	st[1].cp_ms = 0.33529295494675926;
	st[0].params = 114723398;
	st[1].params = 279965889;
	g.sched = PLAN_GPIPE;
	g.d = 2;
	g.w = 3;
	g.t = g.v = 1;
	g.m = 840;
	g.rt = &rt;
	a = cost_simulate_time(NULL, st, &g, &mem);
	CHECK(a >= 840 * 5.8123463231851593 * (1 - 1e-8));
	pre[0] = 0;
	pre[1] = 5.8123463231851593;
	pre[2] = pre[1] + 0.35084906152897732 + 3.508490615289773;
	CHECK(cost_simulate_lb_fits(&g, pre, 2, a * (1 + 1e-9)));
	sim_mem_release(&mem);
}

/*
 * The 2bw floor in steady state: m from d to 64 d (long runs start above),
 * d up to 12, unequal stages, weight-version waits and reductions
 * included: never above the simulated time, and within 2% of it for most
 * runs (stage 0's work alone, the floor before, fell 10% and more below
 * when a later stage was the slowest).
 */
static void
test_floor_2bw(void)
{
	struct runtime rt;
	struct sim_mem mem = {0};
	int trial, ok = 0, n = 0, close = 0;

	runtime_init(&rt, RUNTIME_PIPEDREAM_2BW);
	for (trial = 0; trial < 300; trial++) {
		struct plan_stage st[12];
		struct cost_cfg g;
		double a, f;

		random_run(&g, st, 4 * trial, 12, 1, 1, &rt);
		g.m = irand(g.d - 1 > 1 ? g.d - 1 : 1, 64 * g.d);
		a = cost_simulate_time(NULL, st, &g, &mem);
		f = cost_simulate_floor(st, &g);
		n++;
		ok += a >= 0 && f <= a;
		close += f > 0.98 * a;
		if (!(a >= 0 && f <= a))
			printf("# trial %d: d %d m %d: floor %.17g above the "
			       "simulation's %.17g\n", trial, g.d, g.m, f, a);
	}
	sim_mem_release(&mem);
	CHECK_MSG(ok == n, "the 2bw floor is below every simulated time");
	CHECK_MSG(close > 3 * n / 4, "the 2bw floor of most runs is within "
				     "2% of their time");
}

/*
 * Reduction-bound runs (each stage's gradient reduction 30 to 3000 times
 * its compute per microbatch, as many replicas over a slow network make
 * it; 1 to 10 times for a third): every schedule but 2bw, interleaving, m from 1, the reduction
 * bucketed into the last backwards or after them, stages of a tenth of
 * the compute for half of them.  cost_simulate_floor() (whose tail after
 * the last backward counts the bucketed reduction's (red - b) / v) and
 * cost_simulate_sync_lb() of the stages' forwards and the largest
 * reduction are never above the
 * simulated time, and each is within 5% of it for many runs: either
 * taken 5% higher fails.
 */
static void
test_floor_sync(void)
{
	struct runtime rts[2];
	struct sim_mem mem = {0};
	int trial, ok = 0, n = 0, fclose = 0, sclose = 0, s;

	runtime_init(&rts[0], RUNTIME_MEGATRON_CORE);
	runtime_init(&rts[1], RUNTIME_MEGATRON_CORE);
	runtime_parse(&rts[1], "megatron-core:no-overlap-grad-reduce,"
			       "no-overlap-param-gather");
	for (trial = 0; trial < 600; trial++) {
		struct plan_stage st[12];
		struct cost_cfg g;
		double a, f, lb, red = 0, fwd = 0;

		/* flush, GPipe and none (random_run()'s trial % 4 1 to 3) */
		random_run(&g, st, 4 * (trial / 3) + 1 + trial % 3, 12, 4, 8,
			   &rts[trial / 3 % 2]);
		if (g.v > 1)
			g.m = g.d * irand(1, 2);
		for (s = 0; s < g.d; s++) {
			if (trial / 6 % 2) {
				st[s].fwd_ms *= 0.1;
				st[s].compute_ms *= 0.1;
				st[s].recompute_ms *= 0.1;
			}
			/* a third with reductions of a few microbatches */
			st[s].allreduce_ms = st[s].compute_ms *
					     (trial / 2 % 3 ? 30 + 2970 * urand()
							    : 1 + 9 * urand());
			if (st[s].allreduce_ms > red)
				red = st[s].allreduce_ms;
			/* durations()' F */
			fwd += st[s].fwd_ms +
			       (st[s].tp_ms + st[s].p2p_ms + st[s].host_ms +
				st[s].cp_ms) / 2;
		}
		a = cost_simulate_time(NULL, st, &g, &mem);
		f = cost_simulate_floor(st, &g);
		lb = cost_simulate_sync_lb(&g, fwd, red);
		n++;
		ok += a >= 0 && f <= a && lb <= a;
		fclose += f > 0.95 * a;
		sclose += lb > 0.95 * a;
		if (!(a >= 0 && f <= a && lb <= a))
			printf("# trial %d: sched %d d %d v %d m %d: floor "
			       "%.17g or bound %.17g above the simulation's "
			       "%.17g\n",
			       trial, g.sched, g.d, g.v, g.m, f, lb, a);
	}
	sim_mem_release(&mem);
	printf("# reduction-bound runs within 5%%: floor %d, bound %d of "
	       "%d\n", fclose, sclose, n);
	CHECK_MSG(ok == n, "the floor and the reduction's bound are below "
			   "every simulated time");
	CHECK_MSG(fclose > n / 4, "the floor of many reduction-bound runs is "
				  "within 5% of their time");
	CHECK_MSG(sclose > n / 10, "the reduction's bound of many runs is "
				   "within 5% of their time");
}

/*
 * cost_stages_extra_lb() and cost_stages_sync_lb() against the stages
 * cost_stage_rc() makes of random chains (an embedding, blocks and a
 * head, each with parameters of its own) split at random into d
 * contiguous stages, each layer's recomputation at random for half of
 * them (none for the rest), t 1 to 8 with or without sequence
 * parallelism, w, v (interleaving, whose transfers the runtime may hide),
 * every schedule and runtime's default, ZeRO-1 or not, both placements
 * of four 8-GPU nodes: what the stages add to their compute and
 * recomputation, summed, is never below the first, and the most any
 * stage reduces never below the second, each stage's tensor-parallel
 * traffic never below cost_tp_lb() of its layers; each is within 5% of
 * it for many (blocks alike on links alike), so any taken 5% higher
 * fails.  The second is the least of every stage's reduction of an
 * equal share of the parameters, to the bit: fails when it leaves out a
 * stage whose links differ from the last one's.
 */
static void
test_stages_lb(void)
{
	static const int ts[] = {1, 2, 4, 8};
	int trial, ok = 0, n = 0, xclose = 0, sclose = 0, xn = 0, sn = 0;
	int tok = 0, tn = 0, tpos = 0, tclose = 0, exact = 0, differ = 0;

	for (trial = 0; trial < 400; trial++) {
		struct profile p;
		struct chain c;
		struct cluster cl;
		struct cost_opts o;
		struct place_links l;
		struct cost_cfg g;
		struct plan_stage st;
		int L = irand(3, 24), j, s, a, cut[33], rc[24];
		double add = 0, red = 0, xlb, slb, out = (1 << 20) * (1 + urand());
		double pb, pc, tlb, least;

		profile_init(&p);
		profile_alloc(&p, 1, L);
		p.mb[0] = irand(1, 4);
		p.seq_len = 1024;
		p.hidden = 1024 * irand(1, 8);
		p.precision = xstrdup("bf16");
		for (j = 0; j < L; j++) {
			struct prof_layer *ly = &p.layers[j];
			struct prof_point *pt = &ly->pt[0];

			ly->name = xstrdup("layer");
			ly->kind = j == 0 ? PROF_EMBED
				   : j == L - 1 ? PROF_HEAD : PROF_BLOCK;
			ly->repeat = 1;
			ly->params = (int64_t)(1e6 + 3e8 * urand());
			pt->fwd_ms = 1 + 5 * urand();
			pt->bwd_ms = 2 * pt->fwd_ms;
			pt->recomp_ms[PROF_RC_SELECTIVE] = 0.3 * pt->fwd_ms;
			pt->recomp_ms[PROF_RC_FULL] = pt->fwd_ms;
			pt->out_bytes = (int64_t)(trial % 2 ? out
							    : out * (1 + urand()));
		}
		chain_build(&c, &p);
		cluster_init(&cl);
		cluster_preset(&cl, "dgx-a100:4");
		cost_opts_init(&o);
		memset(&g, 0, sizeof(g));
		g.t = ts[irand(0, 3)];
		g.d = irand(1, L < 32 / g.t ? L : 32 / g.t);
		g.w = irand(1, 32 / (g.t * g.d));
		g.sched = irand(0, PLAN_NSCHED - 1);
		g.v = g.sched == PLAN_FLUSH && trial % 3 == 0 ? 2 : 1;
		g.m = irand(1, 16);
		g.k = 0;
		g.b = p.mb[0];
		g.r = irand(0, PROF_RC_N - 1);
		g.zero = irand(0, 1);
		g.sp = g.t > 1 && trial % 4 < 2;
		g.c = g.e = 1;
		g.etp = g.t;
		g.place = irand(0, 1);
		g.rt = cost_runtime(&o, g.sched, g.d);
		place_links_init(&l, &cl, g.d);
		place_links_fill_par(&l, &cl, g.place, g.w, g.d, g.t, 1, 1,
				     g.t);
		cost_tp_lb(&g, &l, &pb, &pc);
		/* d - 1 distinct cuts in 1..L-1, in order */
		for (s = 0; s < g.d; s++)
			cut[s] = s;
		for (j = g.d; j < L; j++) {
			int r = irand(0, j);

			if (r < g.d)
				cut[r] = j;
		}
		for (s = 1; s < g.d; s++)
			for (j = s; j > 0 && cut[j - 1] > cut[j]; j--) {
				int tmp = cut[j];

				cut[j] = cut[j - 1];
				cut[j - 1] = tmp;
			}
		cut[0] = 0;
		for (s = 1; s < g.d; s++)
			if (cut[s] <= cut[s - 1])
				cut[s] = cut[s - 1] + 1;
		cut[g.d] = L;
		for (s = 0; s < g.d; s++) {
			a = cut[s];
			for (j = a; j < cut[s + 1]; j++)
				rc[j - a] = trial % 2 ? irand(0, PROF_RC_N - 1)
						      : PROF_RC_NONE;
			cost_stage_rc(&c, &o, &g, &l, s, a, cut[s + 1] - 1, rc,
				      &st);
			/* its own tensor-parallel traffic */
			tlb = pb * chain_tp_bytes(&c, 0, PROF_RC_NONE, a,
						  cut[s + 1] - 1) +
			      pc * chain_tp_count(&c, 0, PROF_RC_NONE, a,
						  cut[s + 1] - 1);
			tok += tlb <= st.tp_ms;
			tn++;
			if (st.tp_ms > 0) {
				tpos++;
				tclose += tlb > 0.95 * st.tp_ms;
			}
			add += cost_stage_busy(&st) - st.compute_ms -
			       st.recompute_ms;
			if (st.allreduce_ms > red)
				red = st.allreduce_ms;
		}
		xlb = cost_stages_extra_lb(&c, &g, &l);
		slb = cost_stages_sync_lb(&c, &o, &g, &l);
		/* the least over every stage's reduction, to the bit (the
		 * bound asks a stage on the last one's links no more) */
		least = INFINITY;
		for (s = 0; s < g.d; s++) {
			double r1, g1;

			cost_dp_sync(&o, &g, &l, s,
				     chain_params(&c, 0, L - 1) / g.d, &r1,
				     &g1);
			least = fmin(least, r1);
			differ +=
			    s > 0 && (l.ring_gb_s[s] != l.ring_gb_s[0] ||
				      l.ring_lat_us[s] != l.ring_lat_us[0]);
		}
		exact += slb == (isfinite(least) ? least : 0);
		n++;
		ok += cut[g.d - 1] < L && xlb <= add && slb <= red;
		if (add > 0) {
			xn++;
			xclose += xlb > 0.95 * add;
		}
		if (red > 0) {
			sn++;
			sclose += slb > 0.95 * red;
		}
		if (!(xlb <= add && slb <= red))
			printf("# trial %d: t %d d %d w %d v %d: bounds %.17g, "
			       "%.17g above %.17g, %.17g\n",
			       trial, g.t, g.d, g.w, g.v, xlb, slb, add, red);
		place_links_release(&l);
		chain_release(&c);
		cluster_release(&cl);
		profile_release(&p);
	}
	printf("# within 5%%: added time %d of %d, reduction %d of %d\n",
	       xclose, xn, sclose, sn);
	CHECK_MSG(ok == n, "what the stages add and their largest reduction "
			   "are never below their bounds");
	CHECK_MSG(exact == n, "the reduction's bound is the least of every "
			      "stage's");
	CHECK_MSG(differ > 20, "stages on links unlike the first's");
	printf("# stages on links unlike the first's: %d\n", differ);
	CHECK_MSG(xclose > xn / 4, "the bound of what stages add is within 5% "
				   "for many");
	CHECK_MSG(sclose > sn / 10, "the bound of the largest reduction is "
				    "within 5% for many");
	printf("# tensor-parallel traffic within 5%%: %d of %d stages\n",
	       tclose, tpos);
	CHECK_MSG(tok == tn, "no stage's tensor-parallel traffic is below "
			     "cost_tp_lb() of its layers");
	CHECK_MSG(tclose > tpos / 4, "cost_tp_lb() is within 5% of many "
				     "stages' traffic");
}

/*
 * cost_simulate_lb() of random stages, from their total and the largest
 * share of one layer alone, is never above their floor
 * (cost_simulate_floor()) nor their simulated time: every schedule,
 * interleaving, d up to 12, m up to past the long runs (floor 0: held
 * against the extrapolated time), 2bw from m = d.  A layer is taken as
 * up to the whole of its stage's compute, the rest of the stage's time
 * (transfers, the exposed host and tensor-parallel time) on top.  The
 * search's closed-form bound (m + (d - 1) / v) x max(all / d, layer) is
 * not one: unequal stages beat it, and the test says how often.  Fails
 * when the bound counts the pipeline's whole fill, d - 1 stages' worth.
 * And cost_simulate_lb_fits() finds a partition of the stages' layers
 * (one to three each) under the floor (the simulated time of a long
 * run) and a hair, the stages' own one at least, and none under 90% of
 * the simulated time for many runs; fails when its greedy goes from
 * the first stage on with 2bw's factors (m - s / P, larger for the
 * earlier stages: a partition ahead of another then costs more).
 */
static void
test_sim_lb(void)
{
	struct runtime rts[3];
	struct sim_mem mem = {0};
	int trial, ok = 0, n = 0, beaten = 0, useful = 0, none = 0, s;

	runtime_init(&rts[0], RUNTIME_MEGATRON_CORE);
	runtime_init(&rts[1], RUNTIME_MEGATRON_CORE);
	runtime_parse(&rts[1], "megatron-core:no-overlap-grad-reduce,"
			       "no-overlap-param-gather");
	runtime_init(&rts[2], RUNTIME_PIPEDREAM_2BW);
	for (trial = 0; trial < 1200; trial++) {
		struct plan_stage st[12];
		struct cost_cfg g;
		double a, f, lb, all = 0, most = 0, even, pre[12 * 3 + 1];
		int L, fits;

		random_run(&g, st, trial, 12, 4, 900, &rts[trial / 4 % 3]);
		if (g.sched == PLAN_2BW && trial % 8 == 0)
			g.m = irand(g.d, 80 * g.d); /* long runs too */
		/* a third with one heavy stage, the rest light */
		if (trial % 3 == 0)
			for (s = 0; s < g.d; s++)
				if (s != trial / 3 % g.d)
					st[s].compute_ms = st[s].fwd_ms *=
						0.1;
		for (s = 0; s < g.d; s++) {
			double c = st[s].compute_ms + st[s].recompute_ms;

			all += c;
			c *= 0.3 + 0.7 * urand();
			if (c > most)
				most = c;
		}
		lb = cost_simulate_lb(&g, all, most);
		a = cost_simulate_time(NULL, st, &g, &mem);
		f = cost_simulate_floor(st, &g);
		/* the stages' compute as one to three layers each */
		for (s = 0, L = 0, pre[0] = 0; s < g.d; s++) {
			double c = st[s].compute_ms + st[s].recompute_ms;
			int j, nl = irand(1, 3);

			for (j = 0; j < nl; j++, L++)
				pre[L + 1] = pre[L] + c / nl;
		}
		fits = cost_simulate_lb_fits(&g, pre, L,
					     (f > 0 ? f : a) * (1 + 1e-9));
		n++;
		ok += a >= 0 && lb <= a && lb <= (f > 0 ? f : a) && fits;
		if (g.v == 1 && a >= 0)
			none += !cost_simulate_lb_fits(&g, pre, L, 0.9 * a);
		useful += lb > 0.5 * a;
		even = all / g.d > most ? all / g.d : most;
		beaten += g.sched != PLAN_2BW && g.sched != PLAN_NONE &&
			  (g.m + (double)(g.d - 1) / g.v) * even > a;
		if (!(a >= 0 && lb <= a && lb <= (f > 0 ? f : a) && fits))
			printf("# trial %d: sched %d d %d v %d m %d: bound "
			       "%.17g above the floor %.17g or the "
			       "simulation's %.17g (its partition %s)\n",
			       trial, g.sched, g.d, g.v, g.m, lb, f, a,
			       fits ? "fits" : "does not fit");
	}
	sim_mem_release(&mem);
	printf("# the closed-form bound above the simulation %d times of "
	       "%d\n", beaten, n);
	CHECK_MSG(ok == n, "the bound is below every floor and simulated "
			   "time");
	CHECK_MSG(useful > n / 2, "the bound is above half the simulated "
				  "time for most runs");
	CHECK_MSG(none > n / 10, "no partition fits under 90% of the "
				 "simulated time of many runs");
	printf("# no partition under 90%% of the time: %d of %d\n", none, n);
}

/* The side of stage s from layer j to last that cost_simulate_lb_fits()
 * compares with its bound: its own expression, a = m - s / P (2bw) or
 * m, q = P or v. */
static double
lb_side_of(const struct cost_cfg *g, const double *pre, int s, int j,
	   int last)
{
	double q = g->sched == PLAN_2BW ? (g->m * g->d * g->v > 20000 ? 1 : 3)
					: (g->v > 1 ? g->v : 1);
	double a = g->sched == PLAN_2BW ? g->m - (double)s / q : g->m;

	return (a * (pre[last + 1] - pre[j] + 0.0) + (pre[j] - pre[0]) / q) *
	       (1 - 1e-7);
}

/*
 * cost_simulate_lb_fits_up() (galloping over prefix sums that never go
 * down) says what cost_simulate_lb_fits() (one start at a time) says:
 * random chains of up to 400 layers (equal blocks, random ones, runs of
 * zeros, one heavy layer), flush, GPipe and 2bw, d up to the layers,
 * bounds at the very sides the scan compares (and the doubles either
 * side of them), where a jump that missed one would answer otherwise.
 * Fails when the galloping jumps over a start without its margin.
 */
static void
test_lb_fits_up(void)
{
	static const int scheds[] = {PLAN_FLUSH, PLAN_GPIPE, PLAN_2BW};
	double *pre = xcalloc(402, sizeof(*pre));
	int trial, n = 0, same = 0, yes = 0;

	for (trial = 0; trial < 3000; trial++) {
		struct cost_cfg g;
		int L = irand(1, trial % 10 ? 60 : 400), j, k;

		memset(&g, 0, sizeof(g));
		g.sched = scheds[trial % 3];
		g.d = irand(1, L);
		g.m = g.sched == PLAN_2BW ? irand(g.d, 4 * g.d) : irand(1, 64);
		g.v = 1;
		for (j = 0; j < L; j++) {
			double x = trial % 4 == 0 ? 1.25
				   : trial % 4 == 1 && urand() < 0.3 ? 0
								   : urand();

			if (trial % 5 == 0 && j == L / 2)
				x *= 50;
			pre[j + 1] = pre[j] + x;
		}
		for (k = 0; k < 8; k++) {
			/* a side the scan compares, or any bound */
			int s = irand(0, g.d - 1), last = irand(s, L - 1);
			double b = lb_side_of(&g, pre, s, irand(s, last), last);

			if (k == 7)
				b = urand() * pre[L] * g.m;
			else if (k % 3 == 1)
				b = nextafter(b, INFINITY);
			else if (k % 3 == 2)
				b = nextafter(b, 0);
			n++;
			j = cost_simulate_lb_fits(&g, pre, L, b);
			yes += j;
			same += j == cost_simulate_lb_fits_up(&g, pre, L, b);
			if (j != cost_simulate_lb_fits_up(&g, pre, L, b))
				printf("# trial %d: sched %d L %d d %d m %d "
				       "bound %.17g: %d by one start at a "
				       "time\n",
				       trial, g.sched, L, g.d, g.m, b, j);
		}
	}
	free(pre);
	CHECK_MSG(same == n, "galloping over rising prefix sums: the scan's "
			     "answer at every bound");
	CHECK_MSG(yes > n / 10 && yes < n - n / 10,
		  "the bounds tried both ways");
	printf("# %d of %d bounds some partition might meet\n", yes, n);
}

/* A struct cost_cut that takes every floor (or none), noting the last. */
struct cut_arg {
	int take, asked;
	double floor;
};

static int
cut_take(void *arg, double floor)
{
	struct cut_arg *a = arg;

	a->asked++;
	a->floor = floor;
	return a->take;
}

/*
 * cost_simulate_time_cut() on long runs of every schedule (2bw, flush,
 * GPipe, interleaved flush), extrapolated from two shorter ones: a cut
 * that takes nothing gets the time bit for bit, asked at most once
 * (after the first shorter run, when the floor is positive) with a floor
 * no higher; one that takes everything gets that floor back, and
 * *floored; a short run asks nothing.  The floors of most long 2bw runs
 * are within 10% of their time.
 */
static void
test_cut(void)
{
	static const int scheds[] = {PLAN_2BW, PLAN_FLUSH, PLAN_GPIPE};
	struct runtime rt;
	struct sim_mem mem = {0};
	int trial, ok = 0, n = 0, close = 0, n2bw = 0;

	runtime_init(&rt, RUNTIME_MEGATRON_CORE);
	for (trial = 0; trial < 90; trial++) {
		struct plan_stage st[6];
		struct cost_cfg g;
		struct cut_arg ca = {0, 0, 0};
		struct cost_cut cut = {cut_take, &ca};
		double a, b, c;
		int s, fa, fb, good;

		memset(&g, 0, sizeof(g));
		g.sched = scheds[trial % 3];
		g.d = irand(1, 6);
		g.v = g.sched == PLAN_FLUSH && g.d > 1 && trial % 2 ? 2 : 1;
		g.m = trial % 5 ? g.d * irand(65, 200) : g.d * irand(1, 64);
		g.w = 4;
		g.t = 1;
		g.rt = &rt;
		for (s = 0; s < g.d; s++)
			random_stage(&st[s], NULL);
		a = cost_simulate_time(NULL, st, &g, &mem);
		b = cost_simulate_time_cut(NULL, st, &g, &mem, &cut, &fa);
		good = a >= 0 && a == b && !fa &&
		       ca.asked <= (g.m > 64 * g.d) && ca.floor <= a;
		ca.take = 1;
		ca.asked = 0;
		ca.floor = 0;
		c = cost_simulate_time_cut(NULL, st, &g, NULL, &cut, &fb);
		good = good && fb == ca.asked && (fb ? c == ca.floor : c == a);
		n++;
		ok += good;
		if (g.sched == PLAN_2BW && g.m > 64 * g.d) {
			n2bw++;
			close += ca.floor > 0.9 * a;
		}
		if (!good)
			printf("# trial %d: sched %d d %d v %d m %d: time "
			       "%.17g, with a cut %.17g (%d), floor %.17g "
			       "(%d)\n", trial, g.sched, g.d, g.v, g.m, a, b,
			       fa, c, fb);
	}
	sim_mem_release(&mem);
	CHECK_MSG(ok == n, "a cut that takes nothing leaves the time as it "
			   "was; one that takes all gets a floor below it");
	CHECK_MSG(close > n2bw / 2, "the floors of most long 2bw runs are "
				    "within 10% of their time");
}

/*
 * cost_simulate_time(), which keeps no operations and reuses one scratch
 * space from run to run (larger and smaller ones in turn, long runs
 * extrapolated included), gives cost_simulate()'s time bit for bit; and
 * cost_simulate_terms(), which keeps only the optimizer steps and the
 * weight gathers, its time and breakdown.
 */
static void
test_time_only(void)
{
	struct runtime rt;
	struct sim_mem mem = {0};
	int trial, ok = 0, n = 0;

	runtime_init(&rt, RUNTIME_MEGATRON_CORE);
	for (trial = 0; trial < 400; trial++) {
		struct plan_stage st[8];
		struct cost_cfg g;
		struct sim sm;
		struct plan_terms ta, tb;
		double a, b, c, e;

		random_run(&g, st, trial, 8, 2, 700, &rt);
		a = cost_simulate(NULL, st, &g, &sm, &ta);
		sim_release(&sm);
		b = cost_simulate_time(NULL, st, &g, &mem);
		c = cost_simulate_time(NULL, st, &g, NULL);
		memset(&tb, 0x55, sizeof(tb));
		e = cost_simulate_terms(NULL, st, &g, &tb,
					trial % 2 ? &mem : NULL);
		n++;
		ok += a == b && a == c && a == e &&
		      !memcmp(&ta, &tb, sizeof(ta));
		if (a != b || a != c || a != e ||
		    memcmp(&ta, &tb, sizeof(ta)))
			printf("# trial %d: %.17g, time only %.17g, %.17g, "
			       "with terms %.17g (bubble %.17g, %.17g)\n",
			       trial, a, b, c, e, ta.bubble_ms,
			       tb.bubble_ms);
	}
	sim_mem_release(&mem);
	CHECK_MSG(ok == n, "the time alone, and the time and breakdown "
			   "with the optimizer steps alone, equal the full "
			   "simulation's");
}

/*
 * What the data-parallel collectives compute hides cost it
 * (cost_sync_hidden(), then cost_contention()): by hand on one stage of
 * 400M parameters (Megatron's 40M buckets: the last holds 0.1 of them),
 * forward 10 ms and backward 20 per microbatch, a 50 ms reduce-scatter
 * and an 8 ms all-gather per update.  Bucketed into the last backward,
 * 0.9 x 50 = 45 ms could overlap it, but the backward lasts 20; the
 * gather hides behind the next forward, 8 of its 10: 28 ms hidden, at
 * NCCL's 32 CTAs of an H100's 132 SMs 28 x 32 / 132 = 6.79 ms of
 * compute.  Interleaved over 2 chunks on 4 stages, the first chunk's
 * last backward starts d (r + b) / v = 40 ms earlier, and each chunk's
 * last bucket is 0.2 of its 200M: all of 0.8 x 50 = 40 hides.
 * Reduced after the last backward (no overlap-grad-reduce) only the
 * gather hides; without it, nothing; 2bw's reduction is not counted.
 * In the iteration the cost is sync's, not the optimizer's.
 */
static void
test_sync_hidden(void)
{
	struct plan_stage st;
	struct runtime rt;
	struct cost_cfg g;
	struct cost_opts o;
	struct plan_terms t;

	memset(&st, 0, sizeof(st));
	st.params = 400000000;
	st.fwd_ms = 10;
	st.compute_ms = 30;
	st.allreduce_ms = 50;
	st.gather_ms = 8;
	memset(&g, 0, sizeof(g));
	runtime_init(&rt, RUNTIME_MEGATRON_CORE);
	g.rt = &rt;
	g.sched = PLAN_FLUSH;
	g.d = 1;
	g.v = 1;
	g.m = 4;
	g.w = 8;
	g.zero = 1;
	CHECK_NEAR(cost_sync_hidden(&st, &g), 20 + 8, 1e-12);
	cost_opts_init(&o);
	o.sms = 132;
	CHECK_NEAR(cost_contention(&o, cost_sync_hidden(&st, &g),
				   COST_NCCL_CTAS),
		   28.0 * 32 / 132, 1e-12);
	g.d = 4;
	g.v = 2;
	g.m = 8;
	CHECK_NEAR(cost_sync_hidden(&st, &g), 40 + 8, 1e-12);
	g.d = 1;
	g.v = 1;
	g.m = 4;
	CHECK(runtime_parse(&rt, "megatron-core:no-overlap-param-gather,"
				 "no-overlap-grad-reduce") == 0);
	CHECK_NEAR(cost_sync_hidden(&st, &g), 0, 0);
	CHECK(runtime_parse(&rt, "megatron-core:overlap-grad-reduce,"
				 "no-overlap-param-gather") == 0);
	CHECK_NEAR(cost_sync_hidden(&st, &g), 20, 1e-12);
	g.sched = PLAN_2BW;
	CHECK_NEAR(cost_sync_hidden(&st, &g), 0, 0);
	/* in the iteration: sync's, beside the 1 ms optimizer step */
	g.sched = PLAN_FLUSH;
	st.optimizer_ms = 1;
	st.sync_sm_ms = 5;
	cost_iteration(&st, &g, &t);
	CHECK_NEAR(t.optimizer_ms, 1, 1e-12);
	{
		struct plan_stage z = st;

		z.sync_sm_ms = 0;
		CHECK_NEAR(cost_iteration(&st, &g, &t) -
				   cost_iteration(&z, &g, &t),
			   5, 1e-9);
	}
}

int
main(void)
{
	h_seed(&rng);
	test_long_runs();
	test_time_only();
	test_floor();
	test_floor_2bw();
	test_long_run();
	test_sim_lb();
	test_lb_fits_up();
	test_floor_sync();
	test_stages_lb();
	test_cut();
	test_hand_checked();
	test_equal_stages();
	test_sync_hidden();
	test_gather_after_step();
	test_search_reports_simulation();
	return h_done();
}
