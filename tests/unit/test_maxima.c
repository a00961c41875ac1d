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
 * A plan of PLAN_MAX_LISTED_RANKS ranks (131,072), listed, and one at the
 * documented maximum, CLUSTER_MAX_GPUS (2^20), numbered by the rule,
 * write and read back byte for byte; a 100 MB plan once ran libyaml out
 * of memory, and a listed plan stays near 9 MB.
 */
static void
plan_maxima(int gpus, const char *format, size_t most)
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
	cl.nodes = gpus / 8;
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
	CHECK(a.nranks == gpus);
	CHECK(mkdtemp(dir) != NULL);
	snprintf(f1, sizeof(f1), "%s/a.yaml", dir);
	snprintf(f2, sizeof(f2), "%s/b.yaml", dir);
	CHECK_INT_EQ(plan_write(&a, f1), 0);
	plan_init(&b);
	CHECK_INT_EQ(plan_load(&b, f1), 0);
	CHECK_INT_EQ(b.nranks, a.nranks);
	CHECK(b.nranks == a.nranks &&
	      !memcmp(b.ranks, a.ranks, (size_t)a.nranks * sizeof(*a.ranks)));
	CHECK_INT_EQ(plan_write(&b, f2), 0);
	{
		char *x1 = cap_slurp(f1), *x2 = cap_slurp(f2);

		CHECK(x1 && x2 && !strcmp(x1, x2));
		CHECK(x1 && strlen(x1) < most);
		CHECK(x1 && !strncmp(x1, format, strlen(format)));
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
 * libyaml run out of memory): 1,024 nodes of 1,024 GPUs, 2^20 in all;
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
	CHECK_INT_EQ(b.nodes, 1024);
	CHECK_NEAR(cluster_intra(&b, 1023, 0), 400, 0);
	CHECK_NEAR(cluster_intra(&b, 1023, 2), 450, 0);
	cluster_release(&b);
	/* one node more */
	txt = cap_slurp(f);
	if (CHECK(txt && strstr(txt, "nodes: 1024\n"))) {
		FILE *fp = fopen(f, "w");

		i = (int)(strstr(txt, "nodes: 1024\n") - txt);
		fprintf(fp, "%.*snodes: 1025\n%s", i, txt,
			strstr(txt, "nodes: 1024\n") + 12);
		fclose(fp);
		cluster_init(&b);
		snprintf(want, sizeof(want),
			 "pd2bw: %s:3:8: 1025 nodes of 1024 GPUs: more than "
			 "the 1048576 GPUs pd2bw plans for",
			 f);
		CHECK_ERR(cluster_load(&b, f) ? -1 : 0, want);
		cluster_release(&b);
	}
	free(txt);
	unlink(f);
	rmdir(dir);
	cluster_release(&a);
	/* presets: 131072 DGX H100 nodes are the most */
	cluster_init(&b);
	CHECK(cluster_preset(&b, "dgx-h100:131072") == 0);
	CHECK_ERR(cluster_preset(&b, "dgx-h100:131073") == -2 ? -1 : 0,
		  "pd2bw: invalid node count in cluster 'dgx-h100:131073' (at "
		  "most 131072 nodes: 1048576 GPUs)");
	cluster_release(&b);
}

int
main(int argc, char **argv)
{
	(void)argc;
	(void)h_skip;
	(void)h_skip_all;
	cap_find_top(argv[0]);
	plan_maxima(PLAN_MAX_LISTED_RANKS, "format: pd2bw-plan/1\n", 16u << 20);
	plan_maxima(CLUSTER_MAX_GPUS, "format: pd2bw-plan/2\n", 16u << 10);
	test_cluster_maxima();
	return h_done();
}
