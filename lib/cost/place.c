/*
 * place.c - rank placement rules and the bandwidth of the links they use,
 * with network flows sharing the NICs they cross.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/error.h"
#include "pd2bw/plan.h"
#include "pd2bw/place.h"

/* GPUs of one host (a GB200/GB300 compute tray) in a rack-scale NVLink
 * domain, the unit a scheduler allocates */
#define PLACE_TRAY 4

/* Direct NVLink meshes hold a few GPUs (4 to 8); a larger node of that
 * kind is priced as single rings */
#define PLACE_MESH_MAX 16

/*
 * What NCCL moves through a NIC: of a 400 Gbit/s NDR port's 50 GB/s,
 * NVIDIA's engineers expect 46 to 48 (NVIDIA/nccl-tests issue 290; 48 to
 * 49 at best for a ConnectX-7, issue 267), the rest going to the IB
 * headers and the protocol: 47 of 50.  A cluster's NIC rates are line
 * rates.
 */
#define PLACE_NIC_EFF (47.0 / 50.0)

/*
 * What NCCL moves over NVLink: about 370 of the 450 GB/s line rate of an
 * H100 per direction (its protocol's overhead, ~20%: the bus bandwidth
 * nccl-tests shows for every collective but the NVLink-SHARP all-reduce,
 * NVIDIA/nccl-tests issue 212, S. Jeaugey), the same share of any NVLink
 * generation's.  Every NCCL collective and transfer over NVLink runs at
 * it: tensor-, context- and data-parallel rings, the all-to-alls and the
 * pipeline's sends.  NVLink SHARP's all-reduce is not assumed: the
 * measured runs' recipes turn it off (Megatron-Bridge perf_recipes,
 * "NCCL_NVLS_ENABLE": 0, e.g. llama/gb200/llama3.py:69 at 067f987df).
 * A cluster's NVLink rates are line rates (presets, pd2bw-topo's link
 * counts); PCIe rates are what peers reach already.
 */
#define PLACE_NVLINK_P2P_EFF (370.0 / 450.0)

/* the rate NCCL reaches between local GPUs i and j */
static double
intra(const struct cluster *c, int i, int j)
{
	return cluster_intra(c, i, j) *
	       (c->intra_kind == CLUSTER_PCIE ? 1 : PLACE_NVLINK_P2P_EFF);
}

int
place_gpu(int rule, int w, int d, int s, int r)
{
	return rule == PLAN_STAGES_IN_NODE ? r * d + s : s * w + r;
}

void
place_links_init(struct place_links *l, const struct cluster *c, int d)
{
	int i, j, g, gpn = c->gpus_per_node;

	memset(l, 0, sizeof(*l));
	l->all = xcalloc((size_t)PLACE_LINK_ARRAYS * d, sizeof(double));
	l->dcap = d;
	l->in_gb_s = l->all;
	l->in_lat_us = l->all + d;
	l->ring_gb_s = l->all + 2 * d;
	l->ring_lat_us = l->all + 3 * d;
	l->tp_gb_s = l->all + 4 * d;
	l->tp_lat_us = l->all + 5 * d;
	l->cp_gb_s = l->all + 6 * d;
	l->cp_lat_us = l->all + 7 * d;
	l->ep_gb_s = l->all + 8 * d;
	l->ep_lat_us = l->all + 9 * d;
	l->edp_gb_s = l->all + 10 * d;
	l->edp_lat_us = l->all + 11 * d;
	l->nic_of = xcalloc(gpn, sizeof(int));
	l->nnics = c->nnics > 0 ? c->nnics : 1;
	l->nic_gb_s = xcalloc(l->nnics, sizeof(double));
	if (c->nnics > 0) {
		for (i = 0; i < c->nnics; i++)
			l->nic_gb_s[i] =
				c->nics[i].rate_gbit_s / 8 * PLACE_NIC_EFF;
		/* A GPU no NIC lists uses the first NIC. */
		for (g = 0; g < gpn; g++)
			for (i = c->nnics - 1; i >= 0; i--)
				for (j = 0; j < c->nics[i].ngpus; j++)
					if (c->nics[i].gpus[j] == g)
						l->nic_of[g] = i;
	} else {
		l->nic_gb_s[0] = c->net_gb_s * gpn * PLACE_NIC_EFF;
	}
	l->gpus_per_node = gpn;
	l->node_lat_us = c->intra_latency_us;
	for (i = 0; i < gpn; i++)
		for (j = 0; j < gpn; j++)
			if (i != j && (l->node_gb_s <= 0 ||
				       intra(c, i, j) < l->node_gb_s))
				l->node_gb_s = intra(c, i, j);
	l->nslots = c->nodes * l->nnics;
	l->out = xcalloc(l->nslots, sizeof(int));
	l->in = xcalloc(l->nslots, sizeof(int));
}

void
place_links_release(struct place_links *l)
{
	free(l->all);
	free(l->out);
	free(l->in);
	free(l->nic_of);
	free(l->nic_gb_s);
	memset(l, 0, sizeof(*l));
}

static int
slot(const struct place_links *l, const struct cluster *c, int g)
{
	int gpn = c->gpus_per_node;

	return (g / gpn) * l->nnics + l->nic_of[g % gpn];
}

/* Count a flow g1 -> g2 when it crosses the network. */
static void
count(struct place_links *l, const struct cluster *c, int g1, int g2)
{
	int gpn = c->gpus_per_node;

	if (g1 / gpn == g2 / gpn)
		return;
	l->out[slot(l, c, g1)]++;
	l->in[slot(l, c, g2)]++;
}

/* Bandwidth of the flow g1 -> g2 given the counted flows. */
static double
flow_bw(const struct place_links *l, const struct cluster *c, int g1, int g2)
{
	int gpn = c->gpus_per_node, n1 = g1 / gpn, n2 = g2 / gpn;
	int s1, s2;
	double a, b, bw;

	if (n1 == n2)
		return intra(c, g1 % gpn, g2 % gpn);
	s1 = slot(l, c, g1);
	s2 = slot(l, c, g2);
	a = l->nic_gb_s[s1 % l->nnics] / (l->out[s1] > 0 ? l->out[s1] : 1);
	b = l->nic_gb_s[s2 % l->nnics] / (l->in[s2] > 0 ? l->in[s2] : 1);
	bw = a < b ? a : b;
	if (c->nodes_per_leaf > 0 && c->oversubscription > 1 &&
	    n1 / c->nodes_per_leaf != n2 / c->nodes_per_leaf)
		bw /= c->oversubscription;
	return bw;
}

/*
 * What a ring collective over the n GPUs m[] of one node (local indices)
 * moves per GPU, where the node has direct NVLinks between pairs and no
 * switch (a mesh: the V100 cube mesh, quad GH200 nodes), or -1 where a
 * single ring's slowest hop stands (switches, PCIe, rings that cannot
 * stay on NVLink).  NCCL builds one ring per channel, each over other
 * links of the mesh, and splits the data over the channels
 * (NVIDIA/nccl src/graph/search.cc, ncclTopoCompute: rings are searched
 * channel after channel on the bandwidth the earlier ones left), so a
 * member sends over all its NVLinks to the other members at once: the
 * rate is the least member's sum over them.  A member's NVLinks are its
 * pairs at half its fastest pair or more (a bond of one link beside
 * bonds of two counts; the mesh's PCIe path for GPUs without a link
 * does not), and each member needs two of them in the group (one for
 * a pair) to sit on rings of NVLink alone.
 */
static double
mesh_ring_gb_s(const struct cluster *c, const int *m, int n)
{
	int gpn = c->gpus_per_node, i, j, links;
	double bw = -1, top, sum, x;

	if (c->intra_kind != CLUSTER_NVLINK || n < 2 || gpn > PLACE_MESH_MAX)
		return -1;
	for (i = 0; i < n; i++) {
		top = 0;
		for (j = 0; j < gpn; j++)
			top = fmax(top, intra(c, m[i], j));
		sum = 0;
		links = 0;
		for (j = 0; j < n; j++) {
			x = j != i ? intra(c, m[i], m[j]) : 0;
			if (x > 0 && x >= top / 2) {
				sum += x;
				links++;
			}
		}
		if (links < (n > 2 ? 2 : 1))
			return -1;
		if (bw < 0 || sum < bw)
			bw = sum;
	}
	return bw;
}

static double
lat(const struct cluster *c, int g1, int g2)
{
	int gpn = c->gpus_per_node;

	return g1 / gpn == g2 / gpn ? c->intra_latency_us : c->net_latency_us;
}

/* Clear the counts of the slots the current grid uses. */
static void
reset(struct place_links *l)
{
	memset(l->out, 0, l->nused * sizeof(int));
	memset(l->in, 0, l->nused * sizeof(int));
}

/*
 * Slowest flow (bandwidth, and the largest latency) from group a to group
 * b member by member, counted flows as they stand.
 */
static void
group_link(const struct place_links *l, const struct cluster *c, int a,
	   int b, int t, double *bw, double *lt, int *first)
{
	int j;

	for (j = 0; j < t; j++) {
		int g1 = a * t + j, g2 = b * t + j;
		double x = flow_bw(l, c, g1, g2);

		if (*first || x < *bw)
			*bw = x;
		if (lat(c, g1, g2) > *lt)
			*lt = lat(c, g1, g2);
		*first = 0;
	}
}

void
place_links_fill(struct place_links *l, const struct cluster *c, int rule,
		 int w, int d, int t)
{
	place_links_fill_par(l, c, rule, w, d, t, 1, 1, t);
}

/*
 * GPU of expert unit u of stage s, rank j of its expert-tensor-parallel
 * group of etp: units number the stage's w cp tp / etp blocks of etp GPUs,
 * tensor-parallel rank fastest, then context-parallel rank, then replica
 * (Megatron's expert grid, parallel_state.py:880-895).
 */
static int
unit_gpu(int rule, int w, int d, int tp, int cp, int etp, int s, int u,
	 int j)
{
	int q = tp / etp;

	return place_gpu(rule, w, d, s, u / (cp * q)) * tp * cp +
	       u / q % cp * tp + u % q * etp + j;
}

/*
 * A ring of n GPUs that ascend with k, so that the members of a node are
 * consecutive: the replicas' ring of stage s, tensor-parallel rank j
 * (edp 0), or the ring of the ranks holding expert unit u0's experts,
 * rank j of their expert-tensor-parallel group (edp 1, see fill_edp()).
 */
struct ring {
	int rule, w, d, t, s, j;
	int edp, tp, cp, etp, u0, ep;
};

/* Inlined whatever the compiler's size heuristics say: ring_link() asks
 * it twice for every member of every ring of a grid. */
static inline __attribute__((always_inline)) int
ring_gpu(const struct ring *r, int k)
{
	if (r->edp)
		return unit_gpu(r->rule, r->w, r->d, r->tp, r->cp, r->etp,
				r->s, r->u0 + k * r->ep, r->j);
	return place_gpu(r->rule, r->w, r->d, r->s, k) * r->t + r->j;
}

/* The tensor-parallel ring of GPUs g to g + tp - 1. */
static double
tp_ring(const struct place_links *l, const struct cluster *c, int g, int tp)
{
	int n = c->gpus_per_node, m[PLACE_MESH_MAX], j;
	double bw = -1, x;

	if (tp <= PLACE_MESH_MAX && g / n == (g + tp - 1) / n) {
		for (j = 0; j < tp; j++)
			m[j] = (g + j) % n;
		bw = mesh_ring_gb_s(c, m, tp);
		if (bw >= 0)
			return bw;
	}
	for (j = 0; j < tp; j++) {
		x = flow_bw(l, c, g + j, g + (j + 1) % tp);
		if (j == 0 || x < bw)
			bw = x;
	}
	return bw;
}

/*
 * mesh_ring_gb_s() of the members of ring r from the k-th on that share
 * its node (members ascend, so those of a node are consecutive).
 */
static double
run_mesh(const struct cluster *c, const struct ring *r, int k, int n)
{
	int gpn = c->gpus_per_node, node = ring_gpu(r, k) / gpn, len = 0;
	int m[PLACE_MESH_MAX];

	if (c->intra_kind != CLUSTER_NVLINK || gpn > PLACE_MESH_MAX)
		return -1;
	for (; k < n && len < gpn; k++) {
		int g = ring_gpu(r, k);

		if (g / gpn != node)
			break;
		m[len++] = g % gpn;
	}
	return mesh_ring_gb_s(c, m, len);
}

/*
 * Fold ring r of n >= 2 members into the slowest link (*bw, *first) and
 * the largest latency (*lt): its hops inside a node at the cluster's
 * intra-node rate (on a mesh, what its members there move over all
 * their links, run_mesh()) and, when it spans nodes, the rate at which
 * it leaves its slowest node: the sum over its members there of their
 * NIC's rate over the ring members that NIC serves (counted in l->out),
 * less the oversubscription when the ring spans leaf switches.
 */
static void
ring_link(const struct place_links *l, const struct cluster *c,
	  const struct ring *r, int n, double *bw, double *lt, int *first)
{
	int gpn = c->gpus_per_node, k, node = -1, leaf0 = -1;
	int spans = 0, multi = 0;
	double sum = 0, exit = -1, mesh = -1;
	/* member k's GPU and node, then member k + 1's: each member's
	 * worked out once, not as both ends of two hops */
	int g = ring_gpu(r, 0), gn = g / gpn, h, hn;

	for (k = 0; k <= n; k++) {
		h = k < n ? ring_gpu(r, (k + 1) % n) : g;
		hn = h / gpn;
		if (k == n || gn != node) {
			if (node >= 0 && (exit < 0 || sum < exit))
				exit = sum;
			multi |= node >= 0 && k < n;
			node = gn;
			sum = 0;
			mesh = k < n ? run_mesh(c, r, k, n) : -1;
		}
		if (k == n)
			break;
		{
			int sl = slot(l, c, g);

			sum += l->nic_gb_s[sl % l->nnics] /
			       (l->out[sl] > 0 ? l->out[sl] : 1);
		}
		if (c->nodes_per_leaf > 0) {
			int leaf = gn / c->nodes_per_leaf;

			if (leaf0 < 0)
				leaf0 = leaf;
			spans |= leaf != leaf0;
		}
		if (gn == hn) {
			double x = mesh > 0 ? mesh
					    : intra(c, g % gpn, h % gpn);

			if (*first || x < *bw)
				*bw = x;
			*first = 0;
		}
		{
			double lg = gn == hn ? c->intra_latency_us
					     : c->net_latency_us;

			if (lg > *lt)
				*lt = lg;
		}
		g = h;
		gn = hn;
	}
	if (multi) {
		if (spans && c->oversubscription > 1)
			exit /= c->oversubscription;
		if (*first || exit < *bw)
			*bw = exit;
		*first = 0;
	}
}

void
place_links_route(struct place_links *l, const struct moe_route *r,
		  int flex)
{
	memset(&l->route, 0, sizeof(l->route));
	if (r)
		l->route = *r;
	l->flex = flex;
	l->hit_n = 0;
}

/* C(n, k) as a double, for the small counts of groups */
static double
binom(int64_t n, int64_t k)
{
	double b = 1;
	int64_t i;

	if (k < 0 || k > n)
		return 0;
	for (i = 0; i < k; i++)
		b = b * (double)(n - i) / (double)(i + 1);
	return b;
}

/* Probability that k picks without replacement from a experts all
 * avoid x of them. */
static double
avoid(double a, int64_t k, double x)
{
	double p = 1;
	int64_t j;

	for (j = 0; j < k; j++) {
		if (a - x - (double)j <= 0)
			return 0;
		p *= (a - x - (double)j) / (a - (double)j);
	}
	return p;
}

/*
 * A given node holds E / n of the E experts.  Without a group limit the
 * token's top_k are top_k of the E; with G groups of which it takes its
 * best g (G a multiple of n, so that a node holds G / n whole groups),
 * i of the node's groups are among the g with the hypergeometric
 * probability and the top_k then avoid those i groups' experts among
 * the g groups' ones.  A limit that does not align with the nodes is
 * taken as none.
 */
double
place_ep_nodes_hit(const struct moe_route *r, int n)
{
	double E, miss = 0;
	int64_t G, g, k, i, m;

	if (!r || r->experts < 1 || r->top_k < 1 || n < 1)
		return 0;
	if (n == 1)
		return 1;
	E = (double)r->experts;
	k = r->top_k;
	G = r->groups;
	g = r->group_top_k;
	if (G > 1 && g >= 1 && g < G && G % n == 0) {
		double eg = E / (double)G, all = binom(G, g);

		m = G / n;
		for (i = 0; i <= m && i <= g; i++)
			miss += binom(m, i) * binom(G - m, g - i) / all *
				avoid((double)g * eg, k, (double)i * eg);
	} else {
		miss = avoid(E, k, E / n);
	}
	return n * (1 - miss);
}

/*
 * Under a flex dispatcher (place_links_route) a GPU sends each token
 * once to every other node that holds one of its experts, nodes hit of
 * the nn its group spans, and the copies arriving at a node go on over
 * NVLink to the GPU of their expert unless they landed on it (DeepEP's
 * internode kernels, NVIDIA/Megatron-LM megatron/core/transformer/moe/
 * token_dispatcher.py _DeepepManager and _HybridEPManager): in units of
 * buffer / ep, the ep - k remote copies become ep hit (nn - 1) / (nn
 * top_k) and the k - 1 NVLink ones ep (k - 1) / k.  Inside one node it
 * is the all-to-all.
 */
static void
flex_counts(struct place_links *l, int ep, double *in, double *out)
{
	double k = *in + 1, nn = ep / k;
	int n = (int)(nn + 0.5);

	if (!l->flex || *out <= 0 || nn <= 1 || l->route.top_k < 1)
		return;
	/* every GPU of a fill asks for the same few node counts */
	if (l->hit_n != n) {
		l->hit = place_ep_nodes_hit(&l->route, n);
		l->hit_n = n;
	}
	if (l->hit <= 0)
		return;
	*out = ep * l->hit * (nn - 1) / (nn * (double)l->route.top_k);
	*in = ep * (k - 1) / k;
}

/*
 * Expert-parallel all-to-alls: every GPU sends 1/ep of its buffer to
 * each peer; the k - 1 peers in its node over NVLink and the ep - k
 * others through its NIC, both at once, so (ep - 1) / ep of the buffer
 * moves at (ep - 1) / max((k - 1) / nvlink, (ep - k) / nic), NVLink at
 * what NCCL reaches of its line rate.
 */
static void
fill_ep(struct place_links *l, const struct cluster *c, int rule, int w,
	int d, int tp, int cp, int etp, int ep)
{
	int gpn = c->gpus_per_node, s, u0, u, v, j, n = w * cp * (tp / etp);

	/* every GPU with peers in other nodes sends through its NIC,
	 * shared with the other such GPUs it serves */
	reset(l);
	for (s = 0; s < d; s++)
		for (u = 0; u < n; u++)
			for (j = 0; j < etp; j++) {
				int g = unit_gpu(rule, w, d, tp, cp, etp, s, u, j);

				for (v = u / ep * ep; v < u / ep * ep + ep; v++) {
					int h = unit_gpu(rule, w, d, tp, cp, etp,
							 s, v, j);

					if (h / gpn != g / gpn) {
						l->out[slot(l, c, g)]++;
						break;
					}
				}
			}
	for (s = 0; s < d; s++) {
		double bw = -1, lt = 0;

		for (u0 = 0; u0 + ep <= n; u0 += ep)
			for (j = 0; j < etp; j++)
				for (u = u0; u < u0 + ep; u++) {
					int g = unit_gpu(rule, w, d, tp, cp, etp,
							 s, u, j);
					double in = 0, out = 0, nv = 0, nic = 0;
					double x, peers;

					for (v = u0; v < u0 + ep; v++) {
						int h = unit_gpu(rule, w, d, tp,
								 cp, etp, s, v,
								 j);

						if (h == g)
							continue;
						if (h / gpn == g / gpn) {
							x = intra(c, g % gpn,
								  h % gpn);
							if (!nv || x < nv)
								nv = x;
							in++;
						} else {
							int sl = slot(l, c, g);

							x = l->nic_gb_s[sl % l->nnics] /
							    l->out[sl];
							if (c->nodes_per_leaf > 0 &&
							    c->oversubscription > 1 &&
							    g / gpn / c->nodes_per_leaf !=
								    h / gpn / c->nodes_per_leaf)
								x /= c->oversubscription;
							if (!nic || x < nic)
								nic = x;
							out++;
						}
						if (lat(c, g, h) > lt)
							lt = lat(c, g, h);
					}
					/* on a mesh each peer in the node has
					 * links of its own: the in-node chunks
					 * move at once, the slowest pair's */
					peers = c->intra_kind == CLUSTER_NVLINK
							? in
							: 1;
					flex_counts(l, ep, &in, &out);
					x = fmax(in ? in / (peers * nv) : 0,
						 out ? out / nic : 0);
					x = x > 0 ? (ep - 1) / x : 0;
					if (bw < 0 || x < bw)
						bw = x;
				}
		l->ep_gb_s[s] = bw > 0 ? bw : 0;
		l->ep_lat_us[s] = lt;
	}
}

/*
 * Expert data parallelism: the ranks that hold the same experts, unit u0
 * and every ep-th after it, reduce their expert gradients in a ring of
 * their own (Megatron's intra_expt_dp_group, parallel_state.py:880-895:
 * ep consecutive units form an expert-parallel group, so the group's
 * members are ep units apart).  Counted flows as the data-parallel rings
 * left them: every GPU is a member of one such ring, as of one
 * replicas' ring.  A ring of one member per node leaves it through that
 * member's NIC alone, where the replicas' ring has all of the node's.
 */
static void
fill_edp(struct place_links *l, const struct cluster *c, int rule, int w,
	 int d, int tp, int cp, int etp, int ep)
{
	int n = w * cp * (tp / etp), ne = n / ep, s;

	for (s = 0; s < d; s++) {
		struct ring r = {rule, w, d, 0, s, 0, 1, tp, cp, etp, 0, ep};
		double bw = 0, lt = 0;
		int first = 1;

		for (r.u0 = 0; ne > 1 && r.u0 < ep; r.u0++)
			for (r.j = 0; r.j < etp; r.j++)
				ring_link(l, c, &r, ne, &bw, &lt, &first);
		l->edp_gb_s[s] = bw;
		l->edp_lat_us[s] = lt;
	}
}

/*
 * place_links_fill_full(), its stages' numbers worked out for the first
 * ne of them alone (the flows counted over the whole grid): the caller
 * spreads them over the rest (fill_stages()).  Expert parallelism fills
 * its own arrays over all d.
 */
static void
fill_full_to(struct place_links *l, const struct cluster *c, int rule, int w,
	     int d, int tp, int cp, int ep, int etp, int ne)
{
	int s, r, j, i, t = tp * (cp > 1 ? cp : 1);
	int64_t used = ((int64_t)w * d * t + c->gpus_per_node - 1) /
		       c->gpus_per_node * l->nnics;

	l->nused = used < l->nslots ? (int)used : l->nslots;
	/* Stage boundaries: activations of every replica cross at once. */
	reset(l);
	for (s = 1; s < d; s++)
		for (r = 0; r < w; r++)
			for (j = 0; j < t; j++)
				count(l, c,
				      place_gpu(rule, w, d, s - 1, r) * t + j,
				      place_gpu(rule, w, d, s, r) * t + j);
	for (s = 0; s < ne; s++) {
		double bw = 0, lt = 0;
		int first = 1;

		for (r = 0; s > 0 && r < w; r++)
			group_link(l, c, place_gpu(rule, w, d, s - 1, r),
				   place_gpu(rule, w, d, s, r), t, &bw, &lt,
				   &first);
		l->in_gb_s[s] = bw;
		l->in_lat_us[s] = lt;
	}

	/*
	 * Data-parallel rings: every stage's rings (one per tensor-parallel
	 * rank) run at the update.  NCCL runs a ring over several nodes as
	 * one channel per rail: each of the ring's GPUs in a node crosses to
	 * the next node through its own NIC with its share of the data, so
	 * the ring leaves a node at the sum of its members' NIC rates, each
	 * NIC divided among the ring members it serves.
	 */
	reset(l);
	for (s = 0; w > 1 && s < d; s++)
		for (r = 0; r < w; r++)
			for (j = 0; j < t; j++) {
				int g = place_gpu(rule, w, d, s, r) * t + j;

				l->out[slot(l, c, g)]++;
			}
	for (s = 0; s < ne; s++) {
		double bw = 0, lt = 0;
		int first = 1;

		struct ring rg = {rule, w, d, t, s, 0, 0, 0, 0, 0, 0, 0};

		for (rg.j = 0; w > 1 && rg.j < t; rg.j++)
			ring_link(l, c, &rg, w, &bw, &lt, &first);
		l->ring_gb_s[s] = bw;
		l->ring_lat_us[s] = lt;
	}
	if (ep > 1 && etp >= 1 && tp % etp == 0 &&
	    (w * (cp > 1 ? cp : 1) * (tp / etp)) % ep == 0 &&
	    (w * (cp > 1 ? cp : 1) * (tp / etp)) / ep > 1) {
		/* the replicas' rings counted every GPU once when w > 1;
		 * each GPU is in one expert ring either way */
		if (w < 2)
			for (s = 0; s < d; s++)
				for (r = 0; r < w; r++)
					for (j = 0; j < t; j++)
						l->out[slot(l, c,
							    place_gpu(rule, w, d,
								      s, r) *
								    t +
							    j)]++;
		fill_edp(l, c, rule, w, d, tp, cp > 1 ? cp : 1, etp, ep);
	} else {
		memcpy(l->edp_gb_s, l->ring_gb_s, ne * sizeof(double));
		memcpy(l->edp_lat_us, l->ring_lat_us, ne * sizeof(double));
	}

	/* Tensor-parallel rings stay inside a node: the first tp GPUs of
	 * a group, and each of its cp blocks of tp. */
	for (s = 0; s < ne; s++) {
		double bw = 0;
		int first = 1;

		for (r = 0; tp > 1 && r < w; r++) {
			double x = tp_ring(l, c,
					   place_gpu(rule, w, d, s, r) * t, tp);

			if (first || x < bw)
				bw = x;
			first = 0;
		}
		l->tp_gb_s[s] = bw;
		l->tp_lat_us[s] = tp > 1 ? c->intra_latency_us : 0;
	}

	/*
	 * Context-parallel rings (Megatron's order tp-cp-ep-dp-pp,
	 * parallel_state.py:617): the cp ranks holding tensor-parallel
	 * rank j of a group, tp GPUs apart, inside a node while tp x cp
	 * fits in it.  Every ring sends at once (each layer's K/V exchange
	 * runs on all of them together).
	 */
	reset(l);
	for (s = 0; cp > 1 && s < d; s++)
		for (r = 0; r < w; r++)
			for (j = 0; j < tp; j++)
				for (i = 0; i < cp; i++) {
					int g = place_gpu(rule, w, d, s, r) * t;

					count(l, c, g + i * tp + j,
					      g + (i + 1) % cp * tp + j);
				}
	for (s = 0; s < ne; s++) {
		double bw = 0, lt = 0;
		int first = 1;

		for (r = 0; cp > 1 && r < w; r++)
			for (j = 0; j < tp; j++)
				for (i = 0; i < cp; i++) {
					int g = place_gpu(rule, w, d, s, r) * t;
					int g1 = g + i * tp + j;
					int g2 = g + (i + 1) % cp * tp + j;
					double x = flow_bw(l, c, g1, g2);

					if (first || x < bw)
						bw = x;
					if (lat(c, g1, g2) > lt)
						lt = lat(c, g1, g2);
					first = 0;
				}
		l->cp_gb_s[s] = bw;
		l->cp_lat_us[s] = lt;
	}
	if (ep > 1 && etp >= 1 && tp % etp == 0 &&
	    (w * (cp > 1 ? cp : 1) * (tp / etp)) % ep == 0)
		fill_ep(l, c, rule, w, d, tp, cp > 1 ? cp : 1, etp, ep);
}

void
place_links_fill_full(struct place_links *l, const struct cluster *c,
		      int rule, int w, int d, int tp, int cp, int ep, int etp)
{
	fill_full_to(l, c, rule, w, d, tp, cp, ep, etp, d);
}

int
place_segment(const struct cluster *c, int gpus)
{
	int gpn = c->gpus_per_node, trays, per, seg;

	/* hosts of 8 GPUs or fewer are whole nodes, packed */
	if (gpn <= 8 || gpus % PLACE_TRAY || gpn % PLACE_TRAY)
		return gpn;
	trays = gpus / PLACE_TRAY;
	per = gpn / PLACE_TRAY;
	for (seg = trays < per ? trays : per; trays % seg; seg--)
		;
	seg *= PLACE_TRAY;
	return gpus / seg <= c->nodes ? seg : gpn;
}

static int64_t
gcd64(int64_t a, int64_t b)
{
	while (b) {
		int64_t r = a % b;

		a = b;
		b = r;
	}
	return a;
}

int
place_reduced_width(const struct cluster *c, int rule, int w, int d, int t,
		    int ep)
{
	int64_t per = c->gpus_per_node, step, q;

	/* Leaves matter only when the fabric above them is oversubscribed. */
	if (c->nodes_per_leaf > 0 && c->oversubscription > 1)
		per *= c->nodes_per_leaf;
	/* GPUs by which one replica more moves the rest of the grid: its
	 * whole pipeline when stages sit together, one group otherwise. */
	step = rule == PLAN_STAGES_IN_NODE ? (int64_t)d * t : t;
	q = per / gcd64(per, step);
	if (ep > 1)
		q = q / gcd64(q, ep) * ep;
	if (q > w / 4)
		return w;
	return (int)(3 * q + w % q);
}

/*
 * place_links_fill_full() of a grid whose stages repeat, from two of
 * them.  Under PLAN_REPLICAS_IN_NODE stage s holds GPUs s w t to (s + 1)
 * w t - 1: with w t a multiple of the node, whole nodes, each stage's
 * alone.  Every node then sees the same flows at every stage boundary
 * (each of its GPUs sends one to the next stage, or receives one from
 * the previous), every stage's rings the same members at the same places
 * in their nodes and the same counts (every GPU once), and without
 * oversubscribed leaves no flow's rate depends on which nodes it joins.
 * So every stage's rings are the first's and every incoming link the
 * second's, the same numbers from the same sums: filled at depth 2 and
 * spread.  Context and expert parallelism, whose rings the argument
 * leaves out, fill the whole grid (as does a grid that does not repeat).
 * Stages in a node repeat too, below.
 */
static void
fill_stages(struct place_links *l, const struct cluster *c, int rule,
	    int w, int d, int tp, int cp, int ep, int etp)
{
	/* the arrays fill_full() writes without expert parallelism: all
	 * but ep's */
	double *a[] = {l->in_gb_s,  l->in_lat_us, l->ring_gb_s,
		       l->ring_lat_us, l->tp_gb_s, l->tp_lat_us,
		       l->cp_gb_s,  l->cp_lat_us, l->edp_gb_s,
		       l->edp_lat_us};
	size_t i;
	int s, gpn = c->gpus_per_node, p = tp > 0 ? gpn / tp : 0;

	if (cp > 1 || ep > 1 ||
	    (c->nodes_per_leaf > 0 && c->oversubscription > 1)) {
		place_links_fill_full(l, c, rule, w, d, tp, cp, ep, etp);
		return;
	}
	if (rule == PLAN_REPLICAS_IN_NODE && d >= 3 &&
	    (int64_t)w * tp % gpn == 0) {
		place_links_fill_full(l, c, rule, w, 2, tp, cp, ep, etp);
		for (i = 0; i < sizeof(a) / sizeof(a[0]); i++)
			for (s = 2; s < d; s++)
				a[i][s] = a[i][1];
		return;
	}
	/*
	 * Under PLAN_STAGES_IN_NODE with p = gpn / tp stages to a node and
	 * d a multiple of p, each replica's pipeline holds whole nodes of
	 * its own, p stages apiece: stage s sits at the same places in its
	 * node as stage s + p, every stage's rings have the same members at
	 * the same places (one per replica, each in a node of its own,
	 * every GPU counted once), and every boundary that leaves a node
	 * the same flows, out of the GPUs of a node's last stage and into
	 * those of the next node's first, counted alike.  So the grid of 2
	 * p stages (one boundary between nodes) has every stage's numbers:
	 * stage s's are its stage s % p's, and the incoming link of a stage
	 * that starts a node (s % p == 0) its stage p's.
	 */
	if (rule == PLAN_STAGES_IN_NODE && p > 0 && gpn % tp == 0 &&
	    d % p == 0 && d > 2 * p) {
		place_links_fill_full(l, c, rule, w, 2 * p, tp, cp, ep, etp);
		for (i = 0; i < sizeof(a) / sizeof(a[0]); i++)
			for (s = 2 * p; s < d; s++)
				a[i][s] = a[i][i < 2 && s % p == 0 ? p
								   : s % p];
		return;
	}
	/*
	 * Stages in a node with whole nodes throughout (w d tp a multiple
	 * of gpn) but replicas that share them: stage s + p is stage s one
	 * node on, replica by replica, at the same places in it.  A node
	 * holds p consecutive groups, so at most one boundary leaves it
	 * (from its last group to the same replica's next stage, when
	 * there is one) and at most one enters it (into its first group):
	 * every crossing flow leaves and enters at the same places, counted
	 * alike.  Every GPU counts once for the
	 * rings, in full nodes alike.  So stage s's numbers are stage s -
	 * p's (its incoming link for s > p, stage 0 having none): worked out
	 * for the first p + 1 stages of the whole grid and spread.
	 */
	if (rule == PLAN_STAGES_IN_NODE && p > 0 && gpn % tp == 0 &&
	    (int64_t)w * d * tp % gpn == 0 && d > p + 1) {
		fill_full_to(l, c, rule, w, d, tp, cp, ep, etp, p + 1);
		for (i = 0; i < sizeof(a) / sizeof(a[0]); i++)
			for (s = p + 1; s < d; s++)
				a[i][s] = a[i][s - p];
		return;
	}
	place_links_fill_full(l, c, rule, w, d, tp, cp, ep, etp);
}

/*
 * Every node of a cluster is alike, so what a flow gets depends only on
 * the flows in the nodes it touches, seen from the position of those nodes
 * in their period (a node, or a leaf when leaves are oversubscribed).
 * Take out a whole number of periods' worth of replicas from the middle
 * of a wide grid and every node left sees what it saw before: the first
 * and last replicas keep their neighbours, the middle ones are copies of
 * each other.  The minima and maxima over replicas are then the same
 * numbers, found in O(period) instead of O(N).  place_reduced_width()
 * keeps three periods plus the remainder, so that the grid's ends, its
 * middle and every position in the period all stay.
 */
void
place_links_fill_par(struct place_links *l, const struct cluster *c,
		     int rule, int w, int d, int tp, int cp, int ep, int etp)
{
	int t = tp * (cp > 1 ? cp : 1), gpus = w * d * t;
	int seg = place_segment(c, gpus), i, j;
	struct cluster v;

	if (seg == c->gpus_per_node) {
		fill_stages(l, c, rule,
			    place_reduced_width(c, rule, w, d, t, ep), d, tp,
			    cp, ep, etp);
		return;
	}
	/* the same cluster seen as gpus / seg nodes of its first seg GPUs
	 * (each GPU keeps its NIC: place_links_init mapped them) */
	v = *c;
	v.gpus_per_node = seg;
	v.nodes = gpus / seg;
	v.intra_gb_s = xcalloc((size_t)seg * (size_t)seg, sizeof(double));
	for (i = 0; i < seg; i++)
		for (j = 0; j < seg; j++)
			v.intra_gb_s[i * seg + j] = cluster_intra(c, i, j);
	fill_stages(l, &v, rule, place_reduced_width(&v, rule, w, d, t, ep), d,
		    tp, cp, ep, etp);
	free(v.intra_gb_s);
}
