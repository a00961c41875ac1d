/*
 * place.h - placement of a (width w, depth d) pipeline grid on the GPUs of
 * a cluster, and the link bandwidths that placement implies.
 *
 * Global GPU g sits on node g / gpus_per_node, local GPU g % gpus_per_node.
 * Ranks come in tensor-parallel groups of t consecutive GPUs (t divides
 * the GPUs of a node, so a group never leaves its node); group numbers
 * follow the rule: PLAN_STAGES_IN_NODE numbers group = replica * d + stage
 * (a pipeline's consecutive stages are neighbours), PLAN_REPLICAS_IN_NODE
 * group = stage * w + replica (a stage's replicas are neighbours).
 *
 * Inside a node a pair gets the cluster's intra-node bandwidth.  Between
 * nodes, every flow leaves through the NIC serving its GPU and enters
 * through the NIC serving its peer; flows of the same kind (all stage
 * boundaries at once, or all stages' all-reduce rings at once) share a NIC
 * equally, and traffic between leaf switches is divided by the
 * oversubscription.  A cluster without NICs has one NIC per node carrying
 * the node's whole network bandwidth.
 */
#ifndef PD2BW_PLACE_H
#define PD2BW_PLACE_H

#include "pd2bw/cluster.h"
#include "pd2bw/profile.h"

/* Tensor-parallel group of stage s, replica r (its GPUs: group*t + j). */
int place_gpu(int rule, int w, int d, int s, int r);

/* The per-stage arrays of struct place_links, in the order they lie in
 * its one block (all). */
#define PLACE_LINK_ARRAYS 12

struct place_links {
	double *in_gb_s;   /* [d]: slowest replica's link from stage s-1 */
	double *in_lat_us; /* [d] */
	double *ring_gb_s; /* [d]: bottleneck of the replicas' ring */
	double *ring_lat_us;
	double *tp_gb_s;   /* [d]: bottleneck of the tensor-parallel ring */
	double *tp_lat_us;
	double *cp_gb_s;   /* [d]: bottleneck of the context-parallel rings */
	double *cp_lat_us;
	double *ep_gb_s;   /* [d]: effective rate of the expert-parallel
			      all-to-all (see place_links_fill_par) */
	double *ep_lat_us;
	double *edp_gb_s;  /* [d]: bottleneck of the rings of the ranks that
			      hold the same experts (expert data parallelism;
			      the replicas' ring without expert parallelism) */
	double *edp_lat_us;
	/* The arrays above, PLACE_LINK_ARRAYS blocks of dcap stages. */
	double *all;
	int dcap;
	/* Inside one node: the slowest GPU pair and its latency, for a
	 * group that fits in a node (HSDP's shard groups). */
	double node_gb_s, node_lat_us;
	int gpus_per_node;
	/* Scratch: flows out of / into each (node, NIC). */
	int *out, *in;
	int nslots;
	int nused;         /* slots the last fill counted in */
	int *nic_of;       /* [gpus_per_node] NIC index serving each GPU */
	double *nic_gb_s;  /* [nics] rate in GB/s */
	int nnics;
	/* Inputs of the expert-parallel all-to-all's pattern (zero after
	 * place_links_init: every routed copy travels on its own, the
	 * alltoall dispatcher), set by place_links_route(). */
	struct moe_route route;
	int flex;
	int hit_n;         /* place_ep_nodes_hit(&route, hit_n) is hit */
	double hit;
};

/* Allocate arrays for up to d stages on cluster c. */
void place_links_init(struct place_links *l, const struct cluster *c, int d);
/*
 * The expert-parallel all-to-all of the fills that follow: with flex
 * (Megatron-Core's flex token dispatcher, DeepEP or HybridEP kernels) a
 * token crosses to each other node holding one of its experts once and
 * is forwarded over NVLink inside it; r (NULL: unknown) says how many
 * nodes that is (place_ep_nodes_hit).  Without flex, or r unknown, every
 * routed copy moves on its own.
 */
void place_links_route(struct place_links *l, const struct moe_route *r,
		       int flex);
/*
 * Expected number of the n nodes (NVLink domains) an expert-parallel
 * group spans, experts spread evenly over them, that one token's top_k
 * experts fall in, when routing picks them uniformly within r's group
 * limit (as Megatron-Core's moe_router_force_load_balancing benchmarks
 * route); 0 when r is unknown.
 */
double place_ep_nodes_hit(const struct moe_route *r, int n);
void place_links_release(struct place_links *l);
/* Fill l for the grid (w, d) of groups of t GPUs under rule. */
void place_links_fill(struct place_links *l, const struct cluster *c,
		      int rule, int w, int d, int t);
/*
 * GPUs per node a job of gpus GPUs holds on cluster c.  Nodes of up to 8
 * GPUs are hosts, filled whole.  A larger node is a rack-scale NVLink
 * domain (GB200/GB300 NVL72: 18 trays of 4 GPUs), and a job gets the
 * largest number of trays per domain that divides its trays, as
 * Megatron-Bridge's launcher asks Slurm (scripts/performance/utils/
 * executors.py:168-177, --segment): 256 GPUs run as four domains of 64,
 * so an expert-parallel group of 64 stays on NVLink.  place_links_fill_par
 * prices links under that spread.
 */
int place_segment(const struct cluster *c, int gpus);

/*
 * The same for groups of tp x cp consecutive GPUs: cp blocks of tp, the
 * tensor-parallel groups, whose GPUs of equal rank form the
 * context-parallel rings (Megatron's tp-cp-ep-dp-pp order); the
 * data-parallel rings join the groups' GPUs of equal position.  With ep
 * > 1 the expert-parallel groups are ep consecutive units of the w cp tp
 * / etp blocks of etp GPUs of a stage (tensor-parallel rank fastest,
 * then context-parallel, then replica; etp 1 or tp), GPUs of equal rank
 * in their block; their all-to-all runs
 * over NVLink inside a node and the NICs across nodes at once, and
 * ep_gb_s is the rate that (ep - 1) / ep of a buffer moves at.
 */
void place_links_fill_par(struct place_links *l, const struct cluster *c,
			  int rule, int w, int d, int tp, int cp, int ep,
			  int etp);

/*
 * The same, replica by replica over the whole grid: O(w d tp cp) work.
 * place_links_fill_par() gives the same numbers from a narrower grid when
 * the grid is wide (see place_reduced_width); this is the reference the
 * tests hold it to.
 */
void place_links_fill_full(struct place_links *l, const struct cluster *c,
			   int rule, int w, int d, int tp, int cp, int ep,
			   int etp);

/*
 * Width of a grid of w replicas of d stages of t GPUs (tp x cp) with
 * expert-parallel degree ep whose links are those of the w-wide grid:
 * w itself, or fewer replicas when the grid repeats itself over the
 * cluster's nodes (and leaves when they are oversubscribed).
 */
int place_reduced_width(const struct cluster *c, int rule, int w, int d,
			int t, int ep);

#endif
