/*
 * cluster_presets.c - built-in cluster descriptions for planning before a
 * topology is measured: AWS p3.16xlarge, DGX-1 (V100), DGX A100, DGX H100,
 * DGX H200, an 8 x L40S PCIe server, HGX H800, quad GH200 nodes, DGX B200,
 * DGX B300, and GB200 and GB300 NVL72 racks (one 72-GPU NVLink domain
 * each), each as NAME or NAME:NODES.
 *
 * Bandwidths are GB/s per direction, NIC rates Gbit/s; memory sizes are
 * the marketed capacities taken as GiB.  Latencies are typical NCCL
 * small-message figures, an order of magnitude only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pd2bw/cluster.h"
#include "pd2bw/error.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/*
 * The hybrid cube-mesh of NVLink 2.0 between eight V100 SXM2 (DGX-1V and
 * p3.16xlarge): number of links between each pair, as "nvidia-smi topo
 * -m" prints it on these machines (NV1/NV2; 0 = no direct link, "SYS").
 * Each GPU has six links of 25 GB/s per direction (NVIDIA Tesla V100
 * whitepaper, 2017; DGX-1 with Tesla V100 system architecture whitepaper).
 */
static const unsigned char cube_mesh_links[8][8] = {
	{0, 1, 1, 2, 2, 0, 0, 0},
	{1, 0, 2, 1, 0, 2, 0, 0},
	{1, 2, 0, 2, 0, 0, 1, 0},
	{2, 1, 2, 0, 0, 0, 0, 1},
	{2, 0, 0, 0, 0, 1, 1, 2},
	{0, 2, 0, 0, 1, 0, 2, 1},
	{0, 0, 1, 0, 1, 2, 0, 2},
	{0, 0, 0, 1, 2, 1, 2, 0},
};
#define NVLINK2_GB_S 25.0
/*
 * GPU pairs without an NVLink go through PCIe 3.0 and the CPUs' UPI
 * (16 GB/s raw per x16 link); about 10 GB/s is what peer copies reach.
 */
#define CUBE_MESH_SYS_GB_S 10.0

struct preset {
	const char *name;
	const char *gpu;        /* catalog name */
	double mem_gib;
	int gpn;
	int kind;               /* enum cluster_link */
	double intra_gb_s;      /* uniform figure; 0: the cube mesh */
	double intra_latency_us;
	int nnics;
	double nic_gbit_s;
	const char *nic_prefix;
	double net_latency_us;
};

static const struct preset presets[] = {
	/*
	 * AWS p3.16xlarge: 8 x V100-SXM2 16 GB, NVLink cube mesh, 25 Gbit/s
	 * ENA networking per instance shared by the eight GPUs
	 * (aws.amazon.com/ec2/instance-types/p3/).  The PipeDream-2BW
	 * paper's testbed.
	 */
	{"p3.16xlarge", "V100-16GB", 16, 8, CLUSTER_NVLINK, 0, 5, 1, 25,
	 "eth", 30},
	/*
	 * NVIDIA DGX-1 with V100 32 GB: the same cube mesh, 4 x 100 Gbit/s
	 * EDR InfiniBand, one per pair of GPUs behind a PCIe switch (DGX-1
	 * system architecture whitepaper).
	 */
	{"dgx-1-v100", "V100-32GB", 32, 8, CLUSTER_NVLINK, 0, 5, 4, 100,
	 "mlx5_", 5},
	/*
	 * NVIDIA DGX A100: 8 x A100 SXM4 80 GB, third-generation NVSwitch,
	 * 12 NVLinks of 25 GB/s = 300 GB/s per GPU per direction (600 GB/s
	 * bidirectional); 8 x 200 Gbit/s HDR InfiniBand ConnectX-6 for
	 * compute, one per GPU (DGX A100 datasheet and user guide).
	 */
	{"dgx-a100", "A100-80GB", 80, 8, CLUSTER_NVSWITCH, 300, 3, 8, 200,
	 "mlx5_", 5},
	/*
	 * NVIDIA DGX H100: 8 x H100 SXM5 80 GB, fourth-generation NVSwitch,
	 * 18 NVLinks = 450 GB/s per GPU per direction (900 GB/s
	 * bidirectional); 8 x 400 Gbit/s NDR ConnectX-7, one per GPU (DGX
	 * H100 datasheet, DGX H100/H200 user guide).
	 */
	{"dgx-h100", "H100-SXM", 80, 8, CLUSTER_NVSWITCH, 450, 3, 8, 400,
	 "mlx5_", 5},
	/*
	 * NVIDIA DGX H200: as DGX H100 with 141 GB HBM3e per GPU (DGX H200
	 * datasheet).
	 */
	{"dgx-h200", "H200", 141, 8, CLUSTER_NVSWITCH, 450, 3, 8, 400,
	 "mlx5_", 5},
	/*
	 * An 8 x L40S 48 GB PCIe server in NVIDIA's "PCIe optimized 2-8-5"
	 * enterprise reference layout (2 CPUs, 8 GPUs, 4 east-west NICs, one
	 * per pair of GPUs).  No NVLink: PCIe 4.0 x16 is 32 GB/s raw per
	 * direction, about 25 GB/s reached.  NIC rate 200 Gbit/s, the
	 * figure vendors recommend for L40S clusters.  NEEDSWORK: peer
	 * traffic across the two sockets is slower; measure with pd2bw-topo.
	 */
	{"l40s-pcie", "L40S", 48, 8, CLUSTER_PCIE, 25, 8, 4, 200, "mlx5_", 5},
	/*
	 * An HGX H800 node as DeepSeek trains on: 8 x H800 80 GB on NVSwitch
	 * at the H800's 8 NVLinks, 200 GB/s per GPU per direction; 8 x 400
	 * Gbit/s InfiniBand, one per GPU (DeepSeek-V3 technical report,
	 * section 3.1).
	 */
	{"hgx-h800", "H800", 80, 8, CLUSTER_NVSWITCH, 200, 3, 8, 400, "mlx5_",
	 5},
	/*
	 * A quad GH200 node (HPE Cray EX254n, as in CSCS Alps and Isambard-
	 * AI; JUPITER's nodes alike): four GH200 superchips of 96 GB and
	 * four NICs, one per superchip (cscs-docs, docs/alps/hardware.md,
	 * "NVIDIA GH200 GPU Nodes"); Slingshot 11 (JUPITER: InfiniBand
	 * NDR200), 200 Gbit/s each.  No NVSwitch: each GPU's 18 NVLink4
	 * links are split over its three peers, 6 links between any two,
	 * 150 GB/s per direction.
	 */
	{"gh200-quad", "GH200", 96, 4, CLUSTER_NVLINK, 150, 3, 4, 200, "cxi",
	 5},
	/*
	 * NVIDIA DGX B200: 8 x B200 180 GB, fifth-generation NVSwitch, 18
	 * NVLinks = 900 GB/s per GPU per direction; 8 x 400 Gbit/s
	 * ConnectX-7 for compute, one per GPU (DGX B200 datasheet).
	 */
	{"dgx-b200", "B200", 180, 8, CLUSTER_NVSWITCH, 900, 3, 8, 400,
	 "mlx5_", 5},
	/*
	 * NVIDIA GB200 NVL72: one NVLink domain of 72 GPUs (18 compute
	 * trays of 2 GB200 superchips, 9 NVLink switch trays), 900 GB/s per
	 * GPU per direction; a 400 Gbit/s ConnectX-7 per GPU for the
	 * scale-out network (GB200 NVL72 datasheet and reference
	 * architecture).  A node here is the NVLink domain (the rack).
	 */
	{"gb200-nvl72", "GB200", 186, 72, CLUSTER_NVSWITCH, 900, 3, 72, 400,
	 "mlx5_", 5},
	/*
	 * NVIDIA GB300 NVL72: as GB200 NVL72 with Blackwell Ultra GPUs of
	 * 279 GB and an 800 Gbit/s ConnectX-8 per GPU (GB300 NVL72
	 * datasheet).
	 */
	{"gb300-nvl72", "GB300", 279, 72, CLUSTER_NVSWITCH, 900, 3, 72, 800,
	 "mlx5_", 5},
	/*
	 * NVIDIA DGX B300: 8 x B300 288 GB, fifth-generation NVSwitch at
	 * 900 GB/s per GPU per direction; 8 x 800 Gbit/s ConnectX-8
	 * SuperNICs for compute, one per GPU (DGX B300 datasheet; HGX B300:
	 * 1.6 TB/s of networking for eight).
	 */
	{"dgx-b300", "B300", 288, 8, CLUSTER_NVSWITCH, 900, 3, 8, 800,
	 "mlx5_", 5},
};
#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

const char *const cluster_preset_names[] = {
	"p3.16xlarge", "dgx-1-v100", "dgx-a100", "dgx-h100", "dgx-h200",
	"l40s-pcie", "hgx-h800", "gh200-quad", "dgx-b200", "gb200-nvl72",
	"gb300-nvl72", "dgx-b300", NULL,
};

static double
cube_mesh_gb_s(int i, int j)
{
	int links = cube_mesh_links[i][j];

	return links ? NVLINK2_GB_S * links : CUBE_MESH_SYS_GB_S;
}

static void
fill(struct cluster *c, const struct preset *p, int nodes)
{
	char buf[64];
	int i, j, per;

	cluster_release(c);
	if (nodes > 1)
		snprintf(buf, sizeof(buf), "%s:%d", p->name, nodes);
	else
		snprintf(buf, sizeof(buf), "%s", p->name);
	c->name = xstrdup(buf);
	c->nodes = nodes;
	c->gpu = xstrdup(p->gpu);
	c->gpu_mem_bytes = (int64_t)(p->mem_gib * GIB);
	c->intra_kind = p->kind;
	cluster_set_uniform(c, p->gpn, p->intra_gb_s);
	if (p->intra_gb_s == 0)
		for (i = 0; i < p->gpn; i++)
			for (j = 0; j < p->gpn; j++)
				if (i != j)
					c->intra_gb_s[i * p->gpn + j] =
						cube_mesh_gb_s(i, j);
	c->intra_latency_us = p->intra_latency_us;
	/* What one GPU gets when all of them talk at once. */
	c->net_gb_s = p->nnics * p->nic_gbit_s / 8.0 / p->gpn;
	c->net_latency_us = p->net_latency_us;
	c->nodes_per_leaf = 0;
	c->oversubscription = 1;
	c->nnics = p->nnics;
	c->nics = xcalloc((size_t)p->nnics, sizeof(*c->nics));
	per = p->gpn / p->nnics;
	for (i = 0; i < p->nnics; i++) {
		struct cluster_nic *n = &c->nics[i];

		snprintf(buf, sizeof(buf), "%s%d", p->nic_prefix, i);
		n->name = xstrdup(buf);
		n->rate_gbit_s = p->nic_gbit_s;
		n->ngpus = per;
		n->gpus = xcalloc((size_t)per, sizeof(int));
		for (j = 0; j < per; j++)
			n->gpus[j] = i * per + j;
	}
}

int
cluster_preset(struct cluster *c, const char *spec)
{
	const char *colon = strchr(spec, ':');
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
	long nodes = 1;
	size_t i;
	char names[256];

	if (colon) {
		char *end;

		errno = 0;
		nodes = strtol(colon + 1, &end, 10);
		if (end == colon + 1 || *end || errno || nodes < 1 ||
		    nodes > 1000000) {
			pd2bw_error("invalid node count in cluster '%s' "
				    "(NAME:NODES, NODES from 1 to 1000000)",
				    spec);
			return -2;
		}
	}
	for (i = 0; i < NPRESETS; i++)
		if (strlen(presets[i].name) == len &&
		    !strncasecmp(spec, presets[i].name, len)) {
			long most = CLUSTER_MAX_GPUS / presets[i].gpn;

			if (nodes > most) {
				pd2bw_error("invalid node count in cluster "
					    "'%s' (at most %ld nodes: %d "
					    "GPUs)",
					    spec, most, CLUSTER_MAX_GPUS);
				return -2;
			}
			fill(c, &presets[i], (int)nodes);
			return 0;
		}
	cluster_preset_list(names, sizeof(names));
	return pd2bw_error("unknown cluster '%s' (presets: %s; or a file)",
			   spec, names);
}

void
cluster_preset_list(char *buf, size_t n)
{
	size_t len = 0;
	int i;

	if (n)
		buf[0] = 0;
	for (i = 0; cluster_preset_names[i]; i++)
		len += (size_t)snprintf(buf + len, len < n ? n - len : 0,
					"%s%s", i ? ", " : "",
					cluster_preset_names[i]);
}
