/*
 * node.h - one machine's topology (format pd2bw-node/1): its GPUs with PCI
 * address, NUMA node, CPU set and PCIe link, the bandwidth and path class of
 * every GPU pair, its NICs with rates and the GPUs they serve.  Written by
 * discovery (discover.c), read back by merge.c and matrix.c.
 */
#ifndef PD2BW_TOPO_NODE_H
#define PD2BW_TOPO_NODE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Path classes between two devices, best first, as nvidia-smi topo -m names
 * them: X itself, NV a bonded set of NVLinks, PIX at most one PCIe bridge,
 * PXB several bridges, PHB through a PCIe host bridge, NODE between host
 * bridges of one NUMA node, SYS across the SMP interconnect.
 */
enum topo_path {
	TOPO_X,
	TOPO_NV,
	TOPO_PIX,
	TOPO_PXB,
	TOPO_PHB,
	TOPO_NODE,
	TOPO_SYS,
};

/* Where GPU-GPU bandwidths came from. */
enum topo_links_from {
	TOPO_FROM_PCIE,     /* no NVLink information: PCIe paths only */
	TOPO_FROM_HWLOC,    /* hwloc's "NVLinkBandwidth" distances */
	TOPO_FROM_NVML,     /* NVML, loaded at run time */
};
extern const char *const topo_links_from_names[];

struct topo_pcie {
	int gen, width;          /* current (idle GPUs train down); 0 unknown */
	int max_gen, max_width;  /* the most the link can do; 0 unknown */
	double gb_s;             /* per direction at max_gen x max_width */
};

struct topo_gpu {
	char *pci;          /* "0000:34:00.0" (owned) */
	char *name;         /* model as reported, e.g. "Tesla V100-SXM2-16GB" */
	unsigned vendor_id, device_id;
	int numa;           /* OS index of the nearest NUMA node; -1 unknown */
	char *cpus;         /* nearby CPUs as a list "0-19,40-59" (owned) */
	struct topo_pcie pcie;
	int nvlinks;        /* NVLinks of this GPU (to GPUs or switches) */
	double nvlink_gb_s; /* their sum, per direction */
	int64_t mem_bytes;  /* 0 unknown */
};

struct topo_nic {
	char *name;          /* "mlx5_0", "eth0" (owned) */
	char *pci;           /* PCI address (owned) */
	int infiniband;      /* 1 InfiniBand/RoCE (verbs device), 0 Ethernet */
	double rate_gbit_s;  /* 0 unknown */
	int numa;
	char *cpus;          /* owned */
	int ngpus;
	int *gpus;           /* GPUs this NIC serves (owned) */
};

struct topo_node {
	char *host;          /* owned; NULL unknown */
	char *gpu;           /* catalog name of the GPUs, or NULL (owned) */
	int64_t gpu_mem_bytes;
	int ngpus;
	struct topo_gpu *gpus;
	int nnics;
	struct topo_nic *nics;
	int nvswitches;      /* NVSwitch chips seen */
	int links_from;      /* enum topo_links_from */
	/* Devices are the GPUs, then the NICs: ndev = ngpus + nnics. */
	int *paths;          /* [ndev * ndev] enum topo_path (owned) */
	int *nvlinks;        /* [ngpus * ngpus] NVLinks per pair (owned) */
	double *gb_s;        /* [ngpus * ngpus] per direction, diagonal 0 */
	int numa_nodes;
};

void topo_node_init(struct topo_node *n);
void topo_node_release(struct topo_node *n);

/* Total devices: GPUs then NICs. */
static inline int
topo_node_ndev(const struct topo_node *n)
{
	return n->ngpus + n->nnics;
}

/*
 * Allocate gpus[], nics[] and the matrices for ngpus and nnics, zeroed
 * (paths X on the diagonal, SYS elsewhere).
 */
void topo_node_alloc(struct topo_node *n, int ngpus, int nnics);

/* Path between devices a and b (GPUs first, then NICs). */
int topo_node_path(const struct topo_node *n, int a, int b);

/*
 * Name of a path for display: "X", "NV6", "PIX", ... into buf (>= 16 bytes);
 * nv is the number of NVLinks for TOPO_NV.  Returns buf.
 */
const char *topo_path_name(int path, int nv, char *buf);
/*
 * Parse a path name ("NV12", "PXB", ...).  Returns the class and stores the
 * NVLink count in *nv (0 unless NV#), or -1 when s is not a path name.
 */
int topo_path_parse(const char *s, int *nv);

/* Write n as pd2bw-node/1 atomically ("-" = stdout).  0 or -1. */
int topo_node_write(const struct topo_node *n, const char *path);
/* Read a pd2bw-node/1 file.  0 or -1 (file:line:col message). */
int topo_node_load(struct topo_node *n, const char *path);
int topo_node_load_string(struct topo_node *n, const char *name,
			  const char *buf, size_t len);

#endif
