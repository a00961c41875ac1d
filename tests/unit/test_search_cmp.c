/*
 * test_search_cmp.c - the order of a plan's alternatives: time first,
 * then at equal time less memory, fewer GPUs, the simpler configuration.
 */
#include <string.h>

#include "harness.h"
#include "pd2bw/plan.h"
#include "pd2bw/search.h"

static struct plan_alt
alt(double iter_ms, double mem_gib, int w, int d, int t)
{
	struct plan_alt a;

	memset(&a, 0, sizeof(a));
	a.sched = PLAN_2BW;
	a.iter_ms = iter_ms;
	a.mem_bytes = (int64_t)(mem_gib * 1024 * 1024 * 1024);
	a.w = w;
	a.d = d;
	a.t = t;
	a.v = 1;
	return a;
}

int
main(void)
{
	struct plan_alt a, b;

	(void)h_skip;
	(void)h_skip_all;
	a = alt(100, 13.58, 4, 8, 2);
	b = alt(100.1, 4.32, 4, 8, 2);
	CHECK(search_alt_cmp(&a, &b) < 0);   /* faster wins, whatever */
	CHECK(search_alt_cmp(&b, &a) > 0);
	/* the eight plans at one time: the least memory first */
	b.iter_ms = 100 * (1 + 1e-12);
	CHECK(search_alt_cmp(&b, &a) < 0);
	CHECK(search_alt_cmp(&a, &b) > 0);
	/* equal memory: fewer GPUs */
	a = alt(50, 8, 8, 4, 1);
	b = alt(50, 8, 4, 4, 1);
	CHECK(search_alt_cmp(&b, &a) < 0);
	/* then simpler: no interleaving, no sharding, schedule, stages */
	a = alt(50, 8, 4, 4, 1);
	b = a;
	b.v = 2;
	CHECK(search_alt_cmp(&a, &b) < 0);
	b = a;
	b.zero = 1;
	CHECK(search_alt_cmp(&a, &b) < 0);
	b = a;
	a.sched = PLAN_FLUSH;
	CHECK(search_alt_cmp(&a, &b) < 0);   /* flush before 2bw */
	b.sched = PLAN_GPIPE;
	CHECK(search_alt_cmp(&b, &a) < 0);   /* gpipe before flush */
	b = alt(50, 8, 8, 2, 1);
	a = alt(50, 8, 4, 4, 1);
	CHECK(search_alt_cmp(&b, &a) < 0);   /* same GPUs, fewer stages */
	b = a;
	b.sp = 1;
	CHECK(search_alt_cmp(&a, &b) < 0);
	b = a;
	b.recompute = 2 /* full */;
	CHECK(search_alt_cmp(&a, &b) < 0);
	CHECK_INT_EQ(search_alt_cmp(&a, &a), 0);
	return h_done();
}
