/*
 * test_capacity.c - the capacity subcommand's arithmetic on hand-checked
 * cases: the sweep of cluster sizes, time to train, GPU-hours and cost of
 * a row, efficiency, the smallest fit, the fastest size, the efficiency
 * limit and the cheapest size meeting a deadline within and across GPU
 * types; planning a sweep of the tiny profile; and the capture of the
 * messages that keeps a row's reason.
 */
#include <math.h>
#include <stdint.h>

#include "harness.h"
#include "capture.h"

#include "pd2bw/capacity.h"
#include "pd2bw/chain.h"
#include "pd2bw/search.h"
#include "pd2bw/cluster.h"
#include "pd2bw/error.h"
#include "pd2bw/profile.h"

static void
test_sizes(void)
{
	int v[64], n, i, ok = 1;

	n = capacity_sizes(5, 64, v);
	CHECK_INT_EQ(n, 5);
	CHECK_INT_EQ(v[0], 1);
	CHECK_INT_EQ(v[4], 5);
	/* 16^(i/4): 1, 2, 4, 8, 16 exactly. */
	n = capacity_sizes(16, 5, v);
	CHECK_INT_EQ(n, 5);
	CHECK_INT_EQ(v[1], 2);
	CHECK_INT_EQ(v[2], 4);
	CHECK_INT_EQ(v[3], 8);
	CHECK_INT_EQ(v[4], 16);
	/* 10^(i/3) = 1, 2.15, 4.64, 10. */
	n = capacity_sizes(10, 4, v);
	CHECK_INT_EQ(n, 4);
	CHECK_INT_EQ(v[1], 2);
	CHECK_INT_EQ(v[2], 5);
	CHECK_INT_EQ(v[3], 10);
	/* 6^(i/4) = 1, 1.57, 2.45, 3.83, 6: 2 twice, so the third is 3. */
	n = capacity_sizes(6, 5, v);
	CHECK_INT_EQ(n, 5);
	CHECK_INT_EQ(v[1], 2);
	CHECK_INT_EQ(v[2], 3);
	CHECK_INT_EQ(v[3], 4);
	CHECK_INT_EQ(v[4], 6);
	/* The default: 64 distinct sizes from 1 to 128. */
	n = capacity_sizes(128, 64, v);
	CHECK_INT_EQ(n, 64);
	for (i = 1; i < n; i++)
		ok &= v[i] > v[i - 1];
	CHECK_MSG(ok, "sizes increase");
	CHECK_INT_EQ(v[0], 1);
	CHECK_INT_EQ(v[63], 128);
	n = capacity_sizes(100, 1, v);
	CHECK_INT_EQ(n, 1);
	CHECK_INT_EQ(v[0], 100);
}

static void
test_row(void)
{
	struct capacity c;
	struct capacity_type *t;
	struct capacity_row *r;

	capacity_init(&c);
	c.tokens = 1e9;
	c.seq_len = 128;
	c.deadline_days = 1;
	t = capacity_add_type(&c, "TEST-GPU", "tiny");
	t->usd_per_gpu_hour = 2;
	t->nrows = 1;
	t->rows = xcalloc(1, sizeof(*t->rows));
	r = &t->rows[0];
	r->gpus = 8;
	r->fits = 1;
	r->samples_s = 100;
	/* 12800 tokens/s: 1e9 / 12800 = 78125 s = 0.904 days; 8 GPUs x
	 * 78125 s = 173.6 GPU-hours, $347.2 at $2. */
	capacity_row_finish(&c, t, r);
	CHECK_NEAR(r->tokens_s, 12800, 1e-9);
	CHECK_NEAR(r->train_days, 78125.0 / 86400, 1e-12);
	CHECK_NEAR(r->gpu_hours, 8 * 78125.0 / 3600, 1e-9);
	CHECK_NEAR(r->cost_usd, 2 * 8 * 78125.0 / 3600, 1e-9);
	CHECK_INT_EQ(r->meets_deadline, 1);
	c.deadline_days = 0.5;
	capacity_row_finish(&c, t, r);
	CHECK_INT_EQ(r->meets_deadline, 0);
	c.deadline_days = 0;
	t->usd_per_gpu_hour = -1;
	capacity_row_finish(&c, t, r);
	CHECK_INT_EQ(r->meets_deadline, 1);
	CHECK(r->cost_usd < 0);
	r->fits = 0;
	capacity_row_finish(&c, t, r);
	CHECK_NEAR(r->train_days, 0, 0);
	CHECK_INT_EQ(r->meets_deadline, 0);
	capacity_release(&c);
}

/* A type with rows of the given GPUs and samples/s (0: no fit). */
static struct capacity_type *
add(struct capacity *c, const char *gpu, double usd, int n, const int *gpus,
    const double *sps)
{
	struct capacity_type *t = capacity_add_type(c, gpu, "node");
	int i;

	t->usd_per_gpu_hour = usd;
	t->gpus_per_node = gpus[0];
	t->nrows = n;
	t->rows = xcalloc((size_t)n, sizeof(*t->rows));
	for (i = 0; i < n; i++) {
		t->rows[i].gpus = gpus[i];
		t->rows[i].nodes = gpus[i] / gpus[0];
		t->rows[i].fits = sps[i] > 0;
		t->rows[i].samples_s = sps[i];
	}
	return t;
}

static void
test_summary(void)
{
	static const int g1[] = {8, 16, 32, 64, 128};
	static const double s1[] = {0, 10, 20, 30, 30};
	static const double s2[] = {5, 10, 15, 20, 25};
	struct capacity c;
	struct capacity_type *a, *b;

	capacity_init(&c);
	/* 1e6 samples of 100 tokens; samples/s 10 on 16 GPUs is 1e5 s =
	 * 1.157 days, 444.4 GPU-hours. */
	c.tokens = 1e8;
	c.seq_len = 100;
	a = add(&c, "A", 3, 5, g1, s1);
	/* Per GPU 0.625, 0.625, 0.469, 0.234 samples/s: efficiency 1, 1,
	 * 0.75, 0.375. */
	capacity_summarise(&c);
	CHECK_INT_EQ(a->smallest, 1);
	CHECK_NEAR(a->rows[0].efficiency, 0, 0);
	CHECK_NEAR(a->rows[2].efficiency, 1, 1e-12);
	CHECK_NEAR(a->rows[3].efficiency, 0.75, 1e-12);
	CHECK_NEAR(a->rows[4].efficiency, 0.375, 1e-12);
	CHECK_INT_EQ(a->fastest, 3);     /* 30 on 64; 128 is no faster */
	CHECK_INT_EQ(a->efficient, 3);   /* 0.75 >= 0.5 > 0.375 */
	CHECK_INT_EQ(a->cheapest, 1);    /* 16 and 32 cost the same */
	CHECK_NEAR(a->rows[1].gpu_hours, 16 * 1e5 / 3600, 1e-9);
	CHECK_NEAR(a->rows[1].cost_usd, 3 * 16 * 1e5 / 3600, 1e-9);
	CHECK_NEAR(a->rows[3].train_days, 1e6 / 30 / 86400, 1e-12);
	CHECK_INT_EQ(c.small_t, 0);
	CHECK_INT_EQ(c.small_r, 1);
	CHECK_INT_EQ(c.cheap_t, 0);
	CHECK_INT_EQ(c.cheap_r, 1);
	CHECK_INT_EQ(c.cheap_by_hours, 0);

	/* A deadline of 0.5 days: 1e6 / 0.5 / 86400 = 23.1 samples/s
	 * needed, so only 64 and 128 GPUs meet it; 64 is cheaper. */
	c.deadline_days = 0.5;
	capacity_summarise(&c);
	CHECK_INT_EQ(a->cheapest, 3);
	CHECK_INT_EQ(a->rows[2].meets_deadline, 0);
	CHECK_INT_EQ(a->rows[4].meets_deadline, 1);

	/* A second type at $1: 5 samples/s on 8 GPUs, fits smaller; per
	 * GPU 0.625, 0.625, 0.469, 0.313, 0.195; 25 samples/s on 128 GPUs
	 * meets the deadline (0.463 days) at 128 x 40000 s = 1422 GPU-hours
	 * = $1422 against type A's 64 x 33333 s x $3 = $1778. */
	b = add(&c, "B", 1, 5, g1, s2);
	a = &c.types[0]; /* adding b may have moved it */
	capacity_summarise(&c);
	CHECK_INT_EQ(b->smallest, 0);
	CHECK_INT_EQ(b->efficient, 3);   /* 0.5 exactly still counts */
	CHECK_INT_EQ(b->fastest, 4);
	CHECK_INT_EQ(b->cheapest, 4);
	CHECK_NEAR(b->rows[4].cost_usd, 128 * 40000.0 / 3600, 1e-9);
	CHECK_NEAR(a->rows[3].cost_usd, 3 * 64 * (1e6 / 30) / 3600, 1e-9);
	CHECK_INT_EQ(c.small_t, 1);
	CHECK_INT_EQ(c.small_r, 0);
	CHECK_INT_EQ(c.fast_t, 0);       /* 30 samples/s beats 25 */
	CHECK_INT_EQ(c.fast_r, 3);
	CHECK_INT_EQ(c.cheap_t, 1);
	CHECK_INT_EQ(c.cheap_r, 4);

	/* Without prices the choice is by GPU-hours: A on 64 GPUs uses
	 * 592.6, B on 128 1422.2. */
	a->usd_per_gpu_hour = b->usd_per_gpu_hour = -1;
	capacity_summarise(&c);
	CHECK_INT_EQ(c.cheap_by_hours, 1);
	CHECK_INT_EQ(c.cheap_t, 0);
	CHECK_INT_EQ(c.cheap_r, 3);
	/* A type with a price beats one without when any has a price. */
	b->usd_per_gpu_hour = 100;
	capacity_summarise(&c);
	CHECK_INT_EQ(c.cheap_by_hours, 0);
	CHECK_INT_EQ(c.cheap_t, 1);
	CHECK_INT_EQ(a->cheapest, 3);
	/* Nothing meets an impossible deadline. */
	c.deadline_days = 0.01;
	capacity_summarise(&c);
	CHECK_INT_EQ(c.cheap_t, -1);
	CHECK_INT_EQ(a->cheapest, -1);
	capacity_release(&c);
}

/*
 * The tiny profile on the tiny cluster's nodes, batch 8, runtimes neutral
 * (zeroed: no host cost, reduction after the last backward).  On one node
 * (4 GPUs) plain data parallelism with microbatch 2 takes the chain's
 * forward + backward at b = 2, 3 + 4 x 9 + 6 = 45 ms, then the ring
 * all-reduce of 42 M parameters x 2 bytes over 4 GPUs whose NVLinks join
 * each pair at 100 GB/s (a mesh: NCCL's rings use a GPU's three links at
 * once, 300 GB/s, of which NCCL reaches 370/450: 246.67), 2 x 3/4 x 84
 * MB / 246.67 GB/s = 0.51081 ms, which nothing hides: 45.51081 ms for 8
 * samples.
 * On two nodes width 8 would all-reduce over the 3.125 GB/s network
 * (47 ms exposed); 2bw with width 4 x depth 2 at b = 1, m = 2 hides its
 * reduction instead: stages [embedding, 2 blocks] 13.5 ms and [2 blocks,
 * head] 15 ms plus 2 x 64 KiB / 82.22 GB/s of p2p, 2 x 15.0016 = 30.0032
 * ms (the reduction, 2 x 3/4 x 42 MB / 3.125 GB/s = 20.2 ms per update,
 * is less than the two microbatches it overlaps).  With 100 MB per GPU
 * nothing fits.
 */
#define TINY_S ((45 + 0.42 * 450 / 370) / 1e3)
#define TINY2_MS (2 * (15 + 2 * 65536 / (1e8 * 370 / 450)))
static void
test_plan_tiny(void)
{
	struct capacity c;
	struct capacity_type *t;
	struct profile p;
	struct chain ch;
	struct cluster cl;
	struct cost_opts co;
	struct search_opts so;
	struct search_chain sc;
	char *err;
	int ret;

	profile_init(&p);
	cluster_init(&cl);
	memset(&ch, 0, sizeof(ch));
	if (profile_load(&p, cap_path("tests/data/plan/tiny-profile.yaml")) ||
	    cluster_load(&cl, cap_path("tests/data/plan/tiny-cluster.yaml")) ||
	    chain_build(&ch, &p))
		pd2bw_die("cannot load the tiny fixtures");
	sc.c = &ch;
	sc.t = 1;
	sc.sp = 0;
	sc.cp = 1;
	sc.ep = 1;
	sc.etp = 0;
	sc.runtime = 0;
	memset(&co, 0, sizeof(co));
	co.weight_bytes = p.weight_bytes;
	co.grad_bytes = p.grad_bytes;
	co.opt_bytes = p.optimizer_bytes;
	co.version_bytes = p.version_bytes;
	co.cap_bytes = 3.5 * 1024 * 1024 * 1024;
	search_opts_init(&so);
	so.batch = 8;
	so.topk = 1;

	capacity_init(&c);
	c.tokens = 1e9;
	c.seq_len = 128;
	t = capacity_add_type(&c, "TEST-GPU", "tiny");
	t->gpus_per_node = 4;
	t->nrows = 2;
	t->rows = xcalloc(2, sizeof(*t->rows));
	t->rows[0].nodes = 1;
	t->rows[1].nodes = 2;
	ret = capacity_plan_type(t, &sc, 1, &cl, &co, &so);
	CHECK_INT_EQ(ret, 0);
	CHECK_INT_EQ(t->rows[0].gpus, 4);
	CHECK_INT_EQ(t->rows[0].fits, 1);
	CHECK_INT_EQ(t->rows[0].w, 4);
	CHECK_INT_EQ(t->rows[0].d, 1);
	CHECK_INT_EQ(t->rows[0].b, 2);
	CHECK_NEAR(t->rows[0].iter_ms, 45 + 0.42 * 450 / 370, 1e-9);
	CHECK_NEAR(t->rows[0].samples_s, 8 / TINY_S, 1e-9);
	CHECK_INT_EQ(t->rows[1].gpus, 8);
	CHECK_INT_EQ(t->rows[1].w, 4);
	CHECK_INT_EQ(t->rows[1].d, 2);
	CHECK_INT_EQ(t->rows[1].b, 1);
	CHECK_NEAR(t->rows[1].iter_ms, TINY2_MS, 1e-9);
	capacity_summarise(&c);
	/* 1e9 / (175.8 x 128) s on 4 GPUs: 49.4 GPU-hours. */
	CHECK_NEAR(t->rows[0].gpu_hours, 4 * 1e9 / (8 / TINY_S * 128) / 3600,
		   1e-9);
	/* per GPU on 8 against per GPU on 4 */
	CHECK_NEAR(t->rows[1].efficiency,
		   (8 / (TINY2_MS / 1e3) / 8) / (8 / TINY_S / 4),
		   1e-9);
	CHECK_INT_EQ(t->smallest, 0);
	CHECK_INT_EQ(t->fastest, 1);

	/* 100 MB per GPU: no size fits, and the planner's explanation is
	 * kept in the row instead of printed. */
	co.cap_bytes = 100e6;
	cap_begin();
	ret = capacity_plan_type(t, &sc, 1, &cl, &co, &so);
	err = cap_end();
	CHECK_INT_EQ(ret, 0);
	CHECK_STR_EQ(err, "");
	free(err);
	CHECK_INT_EQ(t->rows[0].fits, 0);
	CHECK_INT_EQ(t->rows[1].fits, 0);
	CHECK(t->rows[1].why &&
	      !strncmp(t->rows[1].why, "no configuration fits in memory",
		       31));
	capacity_summarise(&c);
	CHECK_INT_EQ(t->smallest, -1);
	CHECK_INT_EQ(c.small_t, -1);
	CHECK_INT_EQ(c.cheap_t, -1);

	capacity_release(&c);
	chain_release(&ch);
	profile_release(&p);
	cluster_release(&cl);
}

/*
 * The message capture capacity_plan_type() keeps its rows' reasons with:
 * messages held while it holds, whole lines as stderr would have had them
 * (control characters spelled out), nothing on stderr meanwhile; a take
 * empties it; after the end, stderr again.
 */
static void
test_capture(void)
{
	const char *prog = pd2bw_progname;
	char *got, *err;

	pd2bw_progname = "cap";
	cap_begin();
	CHECK_INT_EQ(pd2bw_capture_begin(), 0);
	CHECK(pd2bw_capture_take() == NULL);
	CHECK_INT_EQ(pd2bw_error("size %d: %s", 8, "a\nb"), -1);
	pd2bw_warn("tight");
	got = pd2bw_capture_take();
	CHECK_STR_EQ(got, "cap: size 8: a\\nb\ncap: warning: tight\n");
	free(got);
	CHECK(pd2bw_capture_take() == NULL);
	pd2bw_error("dropped");
	pd2bw_capture_end();
	pd2bw_error("after");
	err = cap_end();
	CHECK_STR_EQ(err, "cap: after\n");
	free(err);
	pd2bw_progname = prog;
}

int
main(int argc, char **argv)
{
	(void)argc;
	cap_find_top(argv[0]);
	test_sizes();
	test_row();
	test_summary();
	test_plan_tiny();
	test_capture();
	return h_done();
}
