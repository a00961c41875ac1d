/*
 * cluster.h - the machines a job runs on (format pd2bw-cluster/1): nodes of
 * identical GPUs, the GPU-GPU bandwidth inside a node, the network between
 * nodes.  Written by pd2bw-topo or taken from a built-in preset; read by
 * pd2bw-plan.  Bandwidths are GB/s per direction; NIC rates Gbit/s.
 */
#ifndef PD2BW_CLUSTER_H
#define PD2BW_CLUSTER_H

#include <stddef.h>
#include <stdint.h>

enum cluster_link { CLUSTER_NVSWITCH, CLUSTER_NVLINK, CLUSTER_PCIE };
extern const char *const cluster_link_names[];

struct cluster_nic {
	char *name;        /* e.g. "mlx5_0" (owned) */
	double rate_gbit_s;
	int ngpus;
	int *gpus;         /* local GPU indices it serves (owned) */
};

struct cluster {
	char *name;              /* owned */
	int nodes;
	int gpus_per_node;
	char *gpu;               /* GPU type, a catalog name (owned) */
	char *gpu_at;            /* "file:line:col" of the gpu key when a
				    file gave it, else NULL (owned): where
				    an unknown name is reported */
	int64_t gpu_mem_bytes;
	int intra_kind;          /* enum cluster_link */
	double *intra_gb_s;      /* [gpn*gpn], row-major, diagonal 0 */
	double intra_latency_us;
	double net_gb_s;         /* network bandwidth per GPU, per direction */
	double net_latency_us;
	int nodes_per_leaf;      /* 0: one flat, non-blocking fabric */
	double oversubscription; /* above the leaf; 1 = non-blocking */
	int nnics;
	struct cluster_nic *nics;
};

/*
 * Size limits every reader and maker of clusters enforces.  A cluster
 * file holds the whole intra-node matrix, and libyaml holds a document
 * whole: 1,024 GPUs per node make a matrix of 10^6 numbers, read back in
 * seconds.  A plan lists its ranks up to PLAN_MAX_LISTED_RANKS (131,072,
 * about 9 MB) and gives the rule that numbers them above, so 2^20 GPUs
 * (131,072 DGX nodes) plan, write and read back in about a second.
 */
#define CLUSTER_MAX_GPN 1024
#define CLUSTER_MAX_GPUS 1048576

void cluster_init(struct cluster *c);
void cluster_release(struct cluster *c);
/* Allocate the intra matrix for gpn GPUs and fill it with gb_s off the
 * diagonal. */
void cluster_set_uniform(struct cluster *c, int gpn, double gb_s);

/* Read pd2bw-cluster/1. Returns 0 or -1 (file:line:col message). */
int cluster_load(struct cluster *c, const char *path);
int cluster_load_string(struct cluster *c, const char *name, const char *buf,
			size_t len);
/* Write atomically ("-" = stdout). 0 or -1. */
int cluster_write(const struct cluster *c, const char *path);

/*
 * Built-in presets: "p3.16xlarge", "dgx-a100", "dgx-h100", "dgx-h200",
 * ...; spec is NAME or NAME:NODES (e.g. "dgx-h100:4").  Returns 0, -1
 * with a message listing the presets, or -2 with a message when NODES is
 * not a whole number from 1 to 1000000 (a usage error: exit status 2).
 */
int cluster_preset(struct cluster *c, const char *spec);
/* NULL-terminated preset names. */
extern const char *const cluster_preset_names[];

/* The preset names as "a, b, c" into buf (for messages). */
void cluster_preset_list(char *buf, size_t n);

/*
 * Load spec: a file when it exists or contains '/' or ends in .yaml, the
 * same followed by :NODES (that many of its nodes), else a preset.  0,
 * -1, or -2 (a bad NODES) as cluster_preset().
 */
int cluster_open(struct cluster *c, const char *spec);

/* 1 and the file's path in *path (the caller frees it) when spec names a
 * cluster file, with or without :NODES; 0 for a preset. */
int cluster_file_of(const char *spec, char **path);

/* Bandwidth between local GPUs i and j of a node (GB/s, per direction). */
double cluster_intra(const struct cluster *c, int i, int j);

#endif
