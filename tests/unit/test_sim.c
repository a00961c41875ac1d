/*
 * test_sim.c - the schedule simulator (planner/sim.c) against hand-checked
 * timelines and the closed form of planner/cost.c, and the pictures and
 * trace written by planner/simulate.c.
 */
#include "harness.h"
#include "capture.h"

#include "../../planner/cost.h"
#include "../../planner/sim.h"

/* Stage s of uniform stages: forward f, backward b, no transfers. */
static void
uniform(struct sim_stage_in *st, int d, double f, double b)
{
	int s;

	memset(st, 0, (size_t)d * sizeof(*st));
	for (s = 0; s < d; s++) {
		st[s].fwd_ms = f;
		st[s].bwd_ms = b;
		st[s].stash_bytes = 100;
	}
}

static int
run(struct sim *sm, int sched, int d, int m, const struct sim_stage_in *st)
{
	struct sim_cfg c;

	memset(&c, 0, sizeof(c));
	c.sched = sched;
	c.d = d;
	c.m = m;
	c.st = st;
	return sim_run(sm, &c);
}

/* Start of the compute operation (kind, stage, mb), or -1. */
static double
start_of(const struct sim *sm, int kind, int stage, int mb)
{
	size_t i;

	for (i = 0; i < sm->nops; i++)
		if (sm->ops[i].kind == kind && sm->ops[i].stage == stage &&
		    sm->ops[i].mb == mb)
			return sm->ops[i].start_ms;
	return -1;
}

/* "F0 F1 B0 ..." of stage s's first max operations, into buf. */
static const char *
order_of(const struct sim *sm, int stage, int max, char *buf, size_t n)
{
	static const char code[] = "FRB";
	size_t i, k = 0;

	buf[0] = 0;
	for (i = 0; i < sm->nops && max > 0 && k + 16 < n; i++) {
		const struct sim_op *o = &sm->ops[i];

		if (o->stage != stage || o->kind > SIM_BWD)
			continue;
		k += (size_t)snprintf(buf + k, n - k, "%s%c%d", k ? " " : "",
				      code[o->kind], o->mb);
		max--;
	}
	return buf;
}

/* The closed form of cost.c for stages with the given times. */
static double
closed_form(int sched, int d, int m, const struct sim_stage_in *in)
{
	struct plan_stage st[16];
	struct cost_cfg g;
	struct plan_terms t;
	int s;

	memset(st, 0, sizeof(st));
	memset(&g, 0, sizeof(g));
	g.sched = sched;
	g.d = d;
	g.m = m;
	g.w = 1;
	g.t = 1;
	g.v = 1;
	for (s = 0; s < d; s++) {
		st[s].compute_ms = in[s].fwd_ms + in[s].bwd_ms;
		st[s].recompute_ms = in[s].rc_ms;
		/* Both boundaries, both ways, as cost_p2p charges them. */
		st[s].p2p_ms = 2 * in[s].send_ms +
			       (s > 0 ? 2 * in[s - 1].send_ms : 0);
		st[s].allreduce_ms = in[s].allreduce_ms;
	}
	return cost_iteration(st, &g, &t);
}

/*
 * d = 2, m = 3, forward 1 ms, backward 2 ms, flush.  By hand:
 *   stage 1: F0 1-2, B0 2-4, F1 4-5, B1 5-7, F2 7-8, B2 8-10
 *   stage 0: F0 0-1, F1 1-2, B0 4-6, F2 6-7, B1 7-9, B2 10-12
 * so the iteration is 12 = (m + d - 1) (f + b).
 */
static void
test_flush_d2_m3(void)
{
	struct sim_stage_in st[2];
	struct sim sm;
	char buf[256];

	uniform(st, 2, 1, 2);
	CHECK_INT_EQ(run(&sm, PLAN_FLUSH, 2, 3, st), 0);
	CHECK_STR_EQ(order_of(&sm, 0, 99, buf, sizeof(buf)),
		     "F0 F1 B0 F2 B1 B2");
	CHECK_STR_EQ(order_of(&sm, 1, 99, buf, sizeof(buf)),
		     "F0 B0 F1 B1 F2 B2");
	CHECK_NEAR(start_of(&sm, SIM_FWD, 0, 1), 1, 0);
	CHECK_NEAR(start_of(&sm, SIM_BWD, 0, 0), 4, 0);
	CHECK_NEAR(start_of(&sm, SIM_FWD, 0, 2), 6, 0);
	CHECK_NEAR(start_of(&sm, SIM_BWD, 0, 1), 7, 0);
	CHECK_NEAR(start_of(&sm, SIM_BWD, 0, 2), 10, 0);
	CHECK_NEAR(start_of(&sm, SIM_FWD, 1, 0), 1, 0);
	CHECK_NEAR(start_of(&sm, SIM_FWD, 1, 1), 4, 0);
	CHECK_NEAR(start_of(&sm, SIM_BWD, 1, 1), 5, 0);
	CHECK_NEAR(start_of(&sm, SIM_FWD, 1, 2), 7, 0);
	CHECK_NEAR(start_of(&sm, SIM_BWD, 1, 2), 8, 0);
	CHECK_NEAR(sm.iter_ms, 12, 0);
	CHECK_NEAR(sm.iter_ms, closed_form(PLAN_FLUSH, 2, 3, st), 0);
	/* Idle: 3 of 12 ms on each stage. */
	CHECK_NEAR(sm.bubble_frac, 0.25, 1e-15);
	CHECK_INT_EQ(sm.stages[0].peak_in_flight, 2);
	CHECK_INT_EQ(sm.stages[1].peak_in_flight, 1);
	CHECK_NEAR(sm.stages[0].peak_stash_bytes, 200, 0);
	CHECK_INT_EQ(sm.stages[0].peak_versions, 1);
	sim_release(&sm);
}

/*
 * GPipe, d = 2, m = 3, f = 1, b = 2: stage 1 runs F0-F2 at 1, 2, 3 and
 * B0-B2 at 4, 6, 8; stage 0 runs B0-B2 at 6, 8, 10; 12 ms, 3 stashed.
 */
static void
test_gpipe_d2_m3(void)
{
	struct sim_stage_in st[2];
	struct sim sm;
	char buf[256];

	uniform(st, 2, 1, 2);
	CHECK_INT_EQ(run(&sm, PLAN_GPIPE, 2, 3, st), 0);
	CHECK_STR_EQ(order_of(&sm, 0, 99, buf, sizeof(buf)),
		     "F0 F1 F2 B0 B1 B2");
	CHECK_NEAR(start_of(&sm, SIM_FWD, 1, 2), 3, 0);
	CHECK_NEAR(start_of(&sm, SIM_BWD, 1, 0), 4, 0);
	CHECK_NEAR(start_of(&sm, SIM_BWD, 1, 2), 8, 0);
	CHECK_NEAR(start_of(&sm, SIM_BWD, 0, 0), 6, 0);
	CHECK_NEAR(start_of(&sm, SIM_BWD, 0, 2), 10, 0);
	CHECK_NEAR(sm.iter_ms, 12, 0);
	CHECK_NEAR(sm.iter_ms, closed_form(PLAN_GPIPE, 2, 3, st), 0);
	CHECK_INT_EQ(sm.stages[0].peak_in_flight, 3);
	CHECK_INT_EQ(sm.stages[1].peak_in_flight, 3);
	sim_release(&sm);
}

/*
 * 2bw, d = 2, m = 2, f = 1, b = 2: no flush, so stage 0 keeps running
 * F(i+1), B(i); in steady state each stage is busy all the time and an
 * iteration takes m (f + b) = 6 ms.  Stage 0 holds two weight versions at
 * the update (microbatch 2 was forwarded with the old one), stage 1 one.
 */
static void
test_2bw_d2_m2(void)
{
	struct sim_stage_in st[2];
	struct sim sm;
	char buf[256];

	uniform(st, 2, 1, 2);
	CHECK_INT_EQ(run(&sm, PLAN_2BW, 2, 2, st), 0);
	CHECK_INT_EQ(sm.iters, 8);
	CHECK_STR_EQ(order_of(&sm, 0, 7, buf, sizeof(buf)), "F0 F1 B0 F2 B1 F3 B2");
	/* Stage 0: B0 at 4, then F(i+2) at 6 + 3i, B(i+1) at 7 + 3i. */
	CHECK_NEAR(start_of(&sm, SIM_BWD, 0, 0), 4, 0);
	CHECK_NEAR(start_of(&sm, SIM_FWD, 0, 2), 6, 0);
	CHECK_NEAR(start_of(&sm, SIM_BWD, 0, 1), 7, 0);
	CHECK_NEAR(start_of(&sm, SIM_FWD, 0, 3), 9, 0);
	CHECK_NEAR(start_of(&sm, SIM_BWD, 1, 3), 11, 0);
	CHECK_NEAR(sm.iter_ms, 6, 0);
	CHECK_NEAR(sm.iter_ms, closed_form(PLAN_2BW, 2, 2, st), 0);
	CHECK_NEAR(sm.bubble_frac, 0, 0);
	CHECK_INT_EQ(sm.stages[0].peak_in_flight, 2);
	CHECK_INT_EQ(sm.stages[1].peak_in_flight, 1);
	CHECK_INT_EQ(sm.stages[0].peak_versions, 2);
	CHECK_INT_EQ(sm.stages[1].peak_versions, 1);
	sim_release(&sm);
}

/* Balanced pipelines: simulation = closed form, in flight as cost.h. */
static void
test_balanced_sweep(void)
{
	static const int sched[] = {PLAN_2BW, PLAN_FLUSH, PLAN_GPIPE};
	struct sim_stage_in st[8];
	struct sim sm;
	int i, d, m, s, bad_t = 0, bad_n = 0, n = 0;

	for (i = 0; i < 3; i++)
		for (d = 1; d <= 8; d++)
			for (m = 1; m <= 12; m++) {
				struct cost_cfg g;
				double want;

				if (sched[i] == PLAN_2BW && m < d)
					continue;
				uniform(st, d, 0.5, 1.25);
				if (run(&sm, sched[i], d, m, st))
					return;
				want = sched[i] == PLAN_2BW
					       ? m * 1.75
					       : (m + d - 1) * 1.75;
				bad_t += sm.iter_ms != want ||
					 sm.iter_ms != closed_form(sched[i], d,
								   m, st);
				memset(&g, 0, sizeof(g));
				g.sched = sched[i];
				g.d = d;
				g.m = m;
				g.t = 1;
				g.v = 1;
				for (s = 0; s < d; s++)
					bad_n += sm.stages[s].peak_in_flight !=
						 cost_in_flight(&g, s);
				n++;
				sim_release(&sm);
			}
	CHECK_INT_EQ(n, 260);
	CHECK_INT_EQ(bad_t, 0);
	CHECK_INT_EQ(bad_n, 0);
}

int
main(int argc, char **argv)
{
	cap_find_top(argv[0]);
	(void)argc;
	test_flush_d2_m3();
	test_gpipe_d2_m3();
	test_2bw_d2_m2();
	test_balanced_sweep();
	return h_done();
}
