/*
 * test_place.c - the link bandwidths of a wide grid, taken from a narrower
 * one (place_links_fill_par), or a grid's repeating stages taken from
 * two of them, are those of the whole grid replica by
 * replica (place_links_fill_full): on every preset and on random irregular
 * clusters (odd NIC maps, uneven intra-node matrices, oversubscribed
 * leaves), for both placement rules and tensor, context and expert
 * parallel degrees; and the rates of direct NVLink meshes.
 */
#include <stdint.h>
#include <string.h>

#include "harness.h"

#include "pd2bw/cluster.h"
#include "pd2bw/error.h"
#include "pd2bw/place.h"
#include "pd2bw/plan.h"

static uint64_t rng = 88172645463325252ull;

static unsigned
rnd(unsigned n)
{
	return (unsigned)(h_xorshift(&rng) % n);
}

/* The arrays of a fill, one after the other, for comparison. */
static void
flat(const struct place_links *l, int d, double *v)
{
	int i;

	for (i = 0; i < PLACE_LINK_ARRAYS; i++)
		memcpy(v + i * d, l->all + i * l->dcap, d * sizeof(double));
}

/* Whether stage s's numbers repeat every p = gpn / tp stages (stages in
 * a node, whole nodes to a replica and more than two nodes' worth, or
 * whole nodes throughout and more than p + 1 stages). */
static int
stages_repeat(int rule, int gpn, int tp, int d, int w)
{
	int p = gpn % tp ? 0 : gpn / tp;

	return rule == PLAN_STAGES_IN_NODE && p > 0 &&
	       ((d % p == 0 && d > 2 * p) ||
		((int64_t)w * d * tp % gpn == 0 && d > p + 1));
}

/*
 * Compare both paths on every grid of cluster c that the reduction
 * narrows or whose stages may repeat (replicas in a node, three stages
 * or more; stages in a node, whole nodes to a replica), for w up to wmax;
 * returns the number of grids compared and counts the mismatches in *bad
 * (the first printed).
 */
static long
compare(const struct cluster *c, int wmax, long *bad)
{
	static const int ds[] = { 1, 2, 3, 5, 8, 6, 12, 16, 24, 36,
				  7, 9, 10, 13, 21 };
	int gpn = c->gpus_per_node, N = c->nodes * gpn;
	int rule, tp, cp, ep, etp, di, w;
	struct place_links l;
	double a[PLACE_LINK_ARRAYS * 36], b[PLACE_LINK_ARRAYS * 36];
	long n = 0;

	place_links_init(&l, c, 36);
	for (rule = 0; rule < 2; rule++)
	for (tp = 1; tp <= gpn; tp++)
	for (cp = 1; cp <= 2; cp++)
	for (ep = 1; ep <= 8; ep *= 2)
	for (etp = 1; etp <= tp; etp += tp > 1 ? tp - 1 : 1)
	for (di = 0; di < 15; di++) {
		int d = ds[di], t = tp * cp;

		if (gpn % tp || (tp > 1 && tp % 2 && rnd(2)) ||
		    (di >= 5 && rule != PLAN_STAGES_IN_NODE))
			continue;
		for (w = 1; w <= wmax && (int64_t)w * d * t <= N; w++) {
			/* a rack-scale node (over 8 GPUs) runs a job on its
			 * trays: the narrow path prices the tray view
			 * (place_segment), by design not the packed grid */
			if ((di >= 5 && !stages_repeat(rule, gpn, tp, d, w)) ||
			    (place_reduced_width(c, rule, w, d, t, ep) == w &&
			     (rule != PLAN_REPLICAS_IN_NODE || d < 3) &&
			     !stages_repeat(rule, gpn, tp, d, w)) ||
			    place_segment(c, w * d * t) != gpn)
				continue;
			place_links_fill_full(&l, c, rule, w, d, tp, cp, ep,
					      etp);
			flat(&l, d, a);
			place_links_fill_par(&l, c, rule, w, d, tp, cp, ep,
					     etp);
			flat(&l, d, b);
			n++;
			if (memcmp(a, b, PLACE_LINK_ARRAYS * d * sizeof(double))) {
				if (!*bad)
					printf("# %s: rule %d w %d d %d tp %d "
					       "cp %d ep %d etp %d differ\n",
					       c->name, rule, w, d, tp, cp, ep,
					       etp);
				(*bad)++;
			}
		}
	}
	place_links_release(&l);
	return n;
}

static void
test_presets(void)
{
	int i;

	for (i = 0; cluster_preset_names[i]; i++) {
		struct cluster c;
		char spec[64];
		long bad = 0, n;

		cluster_init(&c);
		snprintf(spec, sizeof(spec), "%s:%d", cluster_preset_names[i],
			 strstr(cluster_preset_names[i], "nvl72") ? 4 : 24);
		if (!CHECK(cluster_preset(&c, spec) == 0))
			continue;
		n = compare(&c, 96, &bad);
		printf("# %s: %ld grids\n", spec, n);
		CHECK_MSG(n > 0 && bad == 0, cluster_preset_names[i]);
		cluster_release(&c);
	}
}

/* gpn GPUs per node, a random matrix, NICs serving random GPUs (some
 * none: they use the first NIC), leaves of 1 to 4 nodes. */
static void
random_cluster(struct cluster *c, int gpn, int nodes)
{
	int i, j;

	cluster_init(c);
	c->name = xstrdup("random");
	c->gpu = xstrdup("TEST");
	c->nodes = nodes;
	c->gpus_per_node = gpn;
	c->gpu_mem_bytes = 80LL << 30;
	cluster_set_uniform(c, gpn, 0);
	for (i = 0; i < gpn; i++)
		for (j = 0; j < gpn; j++)
			if (i != j)
				c->intra_gb_s[i * gpn + j] = 10 + rnd(300);
	/* switch, mesh (whose rings sum links) or PCIe */
	c->intra_kind = (int)rnd(3);
	c->intra_latency_us = 1 + rnd(5);
	c->net_gb_s = 5 + rnd(50);
	c->net_latency_us = 5 + rnd(10);
	c->nodes_per_leaf = rnd(2) ? 1 + (int)rnd(4) : 0;
	c->oversubscription = rnd(3) ? 1 + rnd(3) : 1;
	c->nnics = rnd(3);
	c->nics = c->nnics ? xcalloc(c->nnics, sizeof(*c->nics)) : NULL;
	for (i = 0; i < c->nnics; i++) {
		c->nics[i].name = xstrdup("nic");
		c->nics[i].rate_gbit_s = 100 + 100 * rnd(4);
		c->nics[i].gpus = xcalloc(gpn, sizeof(int));
		for (j = 0; j < gpn; j++)
			if (rnd(3) == 0)
				c->nics[i].gpus[c->nics[i].ngpus++] = j;
	}
}

static void
test_random(void)
{
	int i;
	long bad = 0, n = 0;

	for (i = 0; i < 8; i++) {
		struct cluster c;
		int gpn = 2 + (int)rnd(11);

		random_cluster(&c, gpn, 300 / gpn + 8);
		n += compare(&c, 80, &bad);
		cluster_release(&c);
	}
	printf("# random clusters: %ld grids\n", n);
	CHECK_MSG(n > 0 && bad == 0, "random irregular clusters");
}

/* The narrower grid is narrow: at 65,536 GPUs a few periods are left. */
static void
test_narrow(void)
{
	struct cluster c;

	cluster_init(&c);
	CHECK(cluster_preset(&c, "dgx-h100:8192") == 0);
	CHECK(place_reduced_width(&c, PLAN_STAGES_IN_NODE, 8192, 8, 1, 1) <
	      16);
	CHECK(place_reduced_width(&c, PLAN_REPLICAS_IN_NODE, 8192, 8, 1, 1) <
	      32);
	CHECK_INT_EQ(place_reduced_width(&c, PLAN_STAGES_IN_NODE, 20, 3, 1, 1),
		     20);
	cluster_release(&c);
}

/*
 * The flex dispatcher's pattern: nodes a token reaches (by hand: 8
 * experts, top-2, 2 nodes: 2 (1 - C(4,2) / C(8,2)) = 2 x 22/28; DeepSeek-
 * V3 over 8 nodes, a node one of its 8 groups: it misses the token when
 * its group is not among the 4 (1/2) or is but none of the 8 picks of
 * the 128 falls in its 32 (1/2 x prod (96-j)/(128-j), j < 8); without
 * the limit prod (224-j)/(256-j)), and what that does to EP 64 over 8
 * DGX H100: the NIC carries 7 hit copies in place of 56, NVLink stays
 * faster.
 */
static void
test_flex(void)
{
	struct moe_route r8 = { 8, 2, 0, 0, 0, 0 }, ds = { 256, 8, 8, 4, 0, 0 };
	struct moe_route dsu = { 256, 8, 0, 0, 0, 0 };
	struct cluster c;
	struct place_links l;
	double nccl, flex, hit = 3.6290109244257005;

	CHECK_NEAR(place_ep_nodes_hit(&r8, 2), 2.0 * 22 / 28, 1e-12);
	CHECK_NEAR(place_ep_nodes_hit(&ds, 8), hit, 1e-12);
	CHECK_NEAR(place_ep_nodes_hit(&dsu, 8), 5.294652000382481, 1e-12);
	CHECK_NEAR(place_ep_nodes_hit(&ds, 1), 1, 0);
	CHECK_NEAR(place_ep_nodes_hit(NULL, 8), 0, 0);
	/* a limit that does not align with 3 nodes is taken as none */
	CHECK_NEAR(place_ep_nodes_hit(&ds, 3),
		   place_ep_nodes_hit(&dsu, 3), 0);

	cluster_init(&c);
	CHECK(cluster_preset(&c, "dgx-h100:8") == 0);
	place_links_init(&l, &c, 1);
	place_links_fill_par(&l, &c, PLAN_STAGES_IN_NODE, 64, 1, 1, 1, 64, 1);
	nccl = l.ep_gb_s[0];
	place_links_route(&l, &ds, 1);
	place_links_fill_par(&l, &c, PLAN_STAGES_IN_NODE, 64, 1, 1, 1, 64, 1);
	flex = l.ep_gb_s[0];
	CHECK_NEAR(flex / nccl, 56 / (7 * hit), 1e-12);
	/* inside one node the pattern is the all-to-all's */
	place_links_fill_par(&l, &c, PLAN_STAGES_IN_NODE, 8, 1, 1, 1, 8, 1);
	flex = l.ep_gb_s[0];
	place_links_route(&l, NULL, 1);
	place_links_fill_par(&l, &c, PLAN_STAGES_IN_NODE, 8, 1, 1, 1, 8, 1);
	CHECK_NEAR(l.ep_gb_s[0], flex, 0);
	/* the routing unknown: every copy on its own */
	place_links_fill_par(&l, &c, PLAN_STAGES_IN_NODE, 64, 1, 1, 1, 64, 1);
	CHECK_NEAR(l.ep_gb_s[0], nccl, 0);
	place_links_release(&l);
	cluster_release(&c);
}

/*
 * Direct NVLink meshes (pd2bw(5), kind nvlink): a ring collective moves
 * the least member's sum of its NVLinks to the others (NCCL's channels
 * take different links), an all-to-all reaches every peer at once; an
 * NVSwitch port is shared by all.  Every NVLink rate at what NCCL
 * reaches of it, 370 of 450 GB/s (place.c, PLACE_NVLINK_P2P_EFF).
 */
static void
test_mesh(void)
{
	struct cluster c;
	struct place_links l;
	double eff = 370.0 / 450.0;

	cluster_init(&c);
	CHECK(cluster_preset(&c, "gh200-quad:2") == 0);
	place_links_init(&l, &c, 1);
	/* four-way tensor parallelism: three peers at 150 GB/s each */
	place_links_fill_par(&l, &c, PLAN_STAGES_IN_NODE, 1, 1, 4, 1, 1, 4);
	CHECK_NEAR(l.tp_gb_s[0], 450 * eff, 1e-12);
	/* two-way: the pair's own six links */
	place_links_fill_par(&l, &c, PLAN_STAGES_IN_NODE, 1, 1, 2, 1, 1, 2);
	CHECK_NEAR(l.tp_gb_s[0], 150 * eff, 1e-12);
	/* the replicas' ring of a node, and a four-way all-to-all in it */
	place_links_fill_par(&l, &c, PLAN_STAGES_IN_NODE, 4, 1, 1, 1, 4, 1);
	CHECK_NEAR(l.ring_gb_s[0], 450 * eff, 1e-12);
	CHECK_NEAR(l.ep_gb_s[0], 3 * 150 * eff, 1e-12);
	place_links_release(&l);

	/* the V100 cube mesh: GPUs 0 to 3 are joined by one or two links a
	 * pair, GPU 0 by 25 + 25 + 50 and GPU 1 by 25 + 50 + 25: 100; a ring
	 * of all eight uses every GPU's six links, 150, not the 10 GB/s PCIe
	 * path of its three unlinked pairs */
	CHECK(cluster_preset(&c, "p3.16xlarge") == 0);
	place_links_init(&l, &c, 1);
	place_links_fill_par(&l, &c, PLAN_STAGES_IN_NODE, 1, 1, 4, 1, 1, 4);
	CHECK_NEAR(l.tp_gb_s[0], 100 * eff, 1e-12);
	place_links_fill_par(&l, &c, PLAN_STAGES_IN_NODE, 8, 1, 1, 1, 1, 1);
	CHECK_NEAR(l.ring_gb_s[0], 150 * eff, 1e-12);
	place_links_release(&l);

	/* NVSwitch: one port of 450 for the ring and the all-to-all */
	CHECK(cluster_preset(&c, "dgx-h100") == 0);
	place_links_init(&l, &c, 1);
	place_links_fill_par(&l, &c, PLAN_STAGES_IN_NODE, 8, 1, 1, 1, 8, 1);
	CHECK_NEAR(l.ring_gb_s[0], 450 * eff, 1e-12);
	CHECK_NEAR(l.ep_gb_s[0], 450 * eff, 1e-12);
	place_links_fill_par(&l, &c, PLAN_STAGES_IN_NODE, 1, 1, 8, 1, 1, 8);
	CHECK_NEAR(l.tp_gb_s[0], 450 * eff, 1e-12);
	place_links_release(&l);
	cluster_release(&c);
}

/*
 * What leaves the node moves at what NCCL gets through each NIC, 47 of a
 * 400 Gbit/s port's 50 GB/s (place.c, PLACE_NIC_EFF).  Two DGX H100: two
 * replicas of eight-way tensor parallelism, one a node, reduce over
 * eight rings, each GPU's through its own NIC; an all-to-all over all
 * sixteen sends 7 of its 15 chunks over NVLink and 8 through its NIC,
 * the NIC the slower: 15 chunks in the time of 8 at 47 GB/s.
 */
static void
test_nic(void)
{
	struct cluster c;
	struct place_links l;

	cluster_init(&c);
	CHECK(cluster_preset(&c, "dgx-h100:2") == 0);
	place_links_init(&l, &c, 1);
	place_links_fill_par(&l, &c, PLAN_REPLICAS_IN_NODE, 2, 1, 8, 1, 1, 8);
	CHECK_NEAR(l.ring_gb_s[0], 47, 1e-12);
	place_links_fill_par(&l, &c, PLAN_REPLICAS_IN_NODE, 16, 1, 1, 1, 16,
			     1);
	CHECK_NEAR(l.ep_gb_s[0], 15 * 47 / 8.0, 1e-12);
	place_links_release(&l);
	cluster_release(&c);
}

int
main(void)
{
	h_seed(&rng);
	test_nic();
	test_mesh();
	test_flex();
	test_narrow();
	test_presets();
	test_random();
	return h_done();
}
