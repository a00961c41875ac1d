/*
 * merge.h - turn node descriptions into a pd2bw-cluster/1 description: one
 * node times a count, or many node files gathered on the nodes of a
 * cluster, saying where they differ.
 */
#ifndef PD2BW_TOPO_MERGE_H
#define PD2BW_TOPO_MERGE_H

#include <stdint.h>

#include "pd2bw/cluster.h"
#include "node.h"

/* What discovery cannot see: the network beyond the node, names. */
struct topo_net {
	const char *name;        /* cluster name; NULL: host or "node" */
	const char *gpu;         /* GPU type instead of the node's */
	int64_t gpu_mem_bytes;   /* 0: the node's */
	double net_gbit_s;       /* per-GPU network rate; 0: from the NICs */
	double net_latency_us;   /* < 0: 5 (InfiniBand) or 30 (Ethernet) */
	double intra_latency_us; /* < 0: 3 NVSwitch, 5 NVLink, 8 PCIe */
	int nodes_per_leaf;      /* 0: one flat fabric */
	double oversubscription; /* 1: non-blocking */
};

/* Defaults: everything from the node, flat non-blocking fabric. */
void topo_net_init(struct topo_net *o);

/*
 * Fill c (initialised here; caller releases) with nodes copies of node n.
 * Returns 0, or -1 after a message when n cannot make a cluster (no GPU,
 * unknown GPU type or memory, unknown bandwidth).
 */
int topo_cluster_from_node(struct cluster *c, const struct topo_node *n,
			   int nodes, const struct topo_net *o);

/*
 * Merge count nodes (names[i] names nodes[i] in messages) into c.  GPU
 * count and type must agree (else -1 listing the groups of nodes); other
 * differences (bandwidths, NICs, PCIe links, NVLink source) are warned
 * about, group by group, and the lowest figure of each is used.  0 or -1.
 */
int topo_merge(struct cluster *c, const struct topo_node *nodes,
	       const char *const *names, int count, const struct topo_net *o);

#endif
