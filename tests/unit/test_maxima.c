/*
 * test_maxima.c - the documented maxima, at full size: a plan of
 * CLUSTER_MAX_GPUS ranks and a cluster of 128 nodes of 1,024 GPUs write
 * and read back, one more is refused.  Their cost is their size: make
 * check runs this program from the optimised build (tests/run.sh), while
 * the sanitizers see the same writers and readers at small sizes in
 * test_plan and test_cluster.
 */
#include <math.h>
#include <stdint.h>
#include <unistd.h>

#include "harness.h"
#include "capture.h"
#include "plan_fixtures.h"

#include "pd2bw/chain.h"
#include "pd2bw/search.h"
#include "pd2bw/plan.h"

/*
 * A plan at the documented maximum, 131,072 GPUs (CLUSTER_MAX_GPUS),
 * writes and reads back byte for byte; a 100 MB plan once ran libyaml out
 * of memory, and clusters are now capped so that a plan stays near 9 MB.
 */
static void
test_plan_maxima(void)
{
	struct profile p;
	struct cluster cl;
	struct chain c;
	struct cost_opts o;
	struct search_opts so;
	struct search_stats st;
	struct plan a, b;
	char dir[] = "/tmp/pd2bw-plan-XXXXXX", f1[64], f2[64];

	uniform_profile(&p, 8);
	one_node(&cl, 8, 300);
	cl.nodes = CLUSTER_MAX_GPUS / 8;
	default_opts(&o, 70e9);
	chain_build(&c, &p);
	search_opts_init(&so);
	so.batch = 1 << 20;
	plan_init(&a);
	CHECK_INT_EQ(search_run(&c, &cl, &o, &so, &a, &st), 0);
	a.model = xstrdup("uniform");
	a.gpu = xstrdup("TEST");
	a.profile = xstrdup("p.yaml");
	a.profile_hash = xstrdup("0123456789abcdef");
	a.cluster = xstrdup("c.yaml");
	a.cluster_hash = xstrdup("preset");
	a.nodes = cl.nodes;
	a.gpus_per_node = 8;
	a.gpu_mem_bytes = 80LL << 30;
	CHECK(a.nranks == CLUSTER_MAX_GPUS);
	CHECK(mkdtemp(dir) != NULL);
	snprintf(f1, sizeof(f1), "%s/a.yaml", dir);
	snprintf(f2, sizeof(f2), "%s/b.yaml", dir);
	CHECK_INT_EQ(plan_write(&a, f1), 0);
	plan_init(&b);
	CHECK_INT_EQ(plan_load(&b, f1), 0);
	CHECK_INT_EQ(b.nranks, a.nranks);
	CHECK_INT_EQ(plan_write(&b, f2), 0);
	{
		char *x1 = cap_slurp(f1), *x2 = cap_slurp(f2);

		CHECK(x1 && x2 && !strcmp(x1, x2));
		CHECK(x1 && strlen(x1) < 16u << 20);
		free(x1);
		free(x2);
	}
	plan_release(&b);
	unlink(f1);
	unlink(f2);
	rmdir(dir);
	plan_release(&a);
	chain_release(&c);
	cluster_release(&cl);
	profile_release(&p);
}

/*
 * The documented maxima write and read back (a 4,096-GPU node once made
 * libyaml run out of memory): 128 nodes of 1,024 GPUs, 131,072 in all;
 * one GPU more per node, or one node more, is refused.
 */
static void
test_cluster_maxima(void)
{
	struct cluster a, b;
	char dir[] = "/tmp/pd2bw-cl-XXXXXX", f[64], want[256], *txt;
	int i;

	cluster_init(&a);
	a.name = xstrdup("max");
	a.gpu = xstrdup("H100-SXM");
	a.nodes = CLUSTER_MAX_GPUS / CLUSTER_MAX_GPN;
	a.gpus_per_node = CLUSTER_MAX_GPN;
	a.gpu_mem_bytes = 80LL << 30;
	a.net_gb_s = 50;
	cluster_set_uniform(&a, CLUSTER_MAX_GPN, 450);
	/* not uniform, so the whole matrix is written */
	for (i = 1; i < CLUSTER_MAX_GPN; i += 2)
		a.intra_gb_s[i] = a.intra_gb_s[(size_t)i * CLUSTER_MAX_GPN] =
			400;
	CHECK(mkdtemp(dir) != NULL);
	snprintf(f, sizeof(f), "%s/c.yaml", dir);
	CHECK_INT_EQ(cluster_write(&a, f), 0);
	cluster_init(&b);
	CHECK_INT_EQ(cluster_load(&b, f), 0);
	CHECK_INT_EQ(b.gpus_per_node, CLUSTER_MAX_GPN);
	CHECK_INT_EQ(b.nodes, 128);
	CHECK_NEAR(cluster_intra(&b, 1023, 0), 400, 0);
	CHECK_NEAR(cluster_intra(&b, 1023, 2), 450, 0);
	cluster_release(&b);
	/* one node more */
	txt = cap_slurp(f);
	if (CHECK(txt && strstr(txt, "nodes: 128\n"))) {
		FILE *fp = fopen(f, "w");

		i = (int)(strstr(txt, "nodes: 128\n") - txt);
		fprintf(fp, "%.*snodes: 129\n%s", i, txt,
			strstr(txt, "nodes: 128\n") + 11);
		fclose(fp);
		cluster_init(&b);
		snprintf(want, sizeof(want),
			 "pd2bw: %s:3:8: 129 nodes of 1024 GPUs: more than "
			 "the 131072 GPUs pd2bw plans for",
			 f);
		CHECK_ERR(cluster_load(&b, f) ? -1 : 0, want);
		cluster_release(&b);
	}
	free(txt);
	unlink(f);
	rmdir(dir);
	cluster_release(&a);
	/* presets: 16384 DGX H100 nodes are the most */
	cluster_init(&b);
	CHECK(cluster_preset(&b, "dgx-h100:16384") == 0);
	CHECK_ERR(cluster_preset(&b, "dgx-h100:16385") == -2 ? -1 : 0,
		  "pd2bw: invalid node count in cluster 'dgx-h100:16385' (at "
		  "most 16384 nodes: 131072 GPUs)");
	cluster_release(&b);
}

int
main(int argc, char **argv)
{
	(void)argc;
	(void)h_skip;
	(void)h_skip_all;
	cap_find_top(argv[0]);
	test_plan_maxima();
	test_cluster_maxima();
	return h_done();
}
