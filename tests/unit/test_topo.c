/*
 * test_topo.c - unit tests of pd2bw-topo's modules: path names, sysfs
 * parsing on fake trees, CPU masks, discovery of generated hwloc XML
 * fixtures (exact paths, bandwidths, NIC assignment), node file round
 * trip, cluster conversion and merging.  Run from the source tree root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "pd2bw/error.h"

#include "../../topo/discover.h"
#include "../../topo/merge.h"
#include "../../topo/nccl_xml.h"
#include "../../topo/node.h"
#include "../../topo/sysfs.h"

#define DATA "tests/data/topo/"

static void
test_paths(void)
{
	char buf[16];
	int nv;

	CHECK_STR_EQ(topo_path_name(TOPO_NV, 12, buf), "NV12");
	CHECK_STR_EQ(topo_path_name(TOPO_PXB, 0, buf), "PXB");
	CHECK_INT_EQ(topo_path_parse("NV18", &nv), TOPO_NV);
	CHECK_INT_EQ(nv, 18);
	CHECK_INT_EQ(topo_path_parse("SYS", &nv), TOPO_SYS);
	CHECK_INT_EQ(topo_path_parse("NV", &nv), -1);
	CHECK_INT_EQ(topo_path_parse("NV-1", &nv), -1);
	CHECK_INT_EQ(topo_path_parse("pix", &nv), -1);
}

static void
test_sysfs(void)
{
	struct topo_pcie p;
	double r;

	CHECK_NEAR(topo_pcie_lane_gb_s(3), 0.984615385, 1e-8);
	CHECK_NEAR(topo_pcie_lane_gb_s(1), 0.25, 1e-12);
	CHECK_INT_EQ(topo_pcie_gen_of_gts(16), 4);
	CHECK_INT_EQ(topo_pcie_gen_of_gts(3), 0);
	memset(&p, 0, sizeof(p));
	CHECK_INT_EQ(topo_sysfs_pcie(DATA "sysfs-pcie4", "0000:25:00.0", &p),
		     0);
	CHECK_INT_EQ(p.gen, 1);
	CHECK_INT_EQ(p.width, 16);
	CHECK_INT_EQ(p.max_gen, 4);
	CHECK_INT_EQ(p.max_width, 8);
	CHECK_NEAR(p.gb_s, 15.7538462, 1e-6);
	CHECK_INT_EQ(topo_sysfs_pcie(DATA "sysfs-pcie4", "0000:99:00.0", &p),
		     1);
	fprintf(stderr, "(an error message is expected here)\n");
	CHECK_INT_EQ(topo_sysfs_pcie(DATA "sysfs-bad", "0000:14:00.0", &p),
		     -1);
	CHECK_INT_EQ(topo_sysfs_nic_rate(DATA "sysfs-pcie4", "mlx5_0", 1, &r),
		     0);
	CHECK_NEAR(r, 200, 0);
	CHECK_INT_EQ(topo_sysfs_nic_rate(DATA "sysfs-mesh8", "mlx5_3", 1, &r),
		     0);
	CHECK_NEAR(r, 100, 0);
	CHECK_INT_EQ(topo_sysfs_nic_rate(DATA "sysfs-pcie4", "eth0", 0, &r),
		     0);
	CHECK_NEAR(r, 25, 0);
	CHECK_INT_EQ(topo_sysfs_nic_rate(DATA "sysfs-pcie4", "eth1", 0, &r),
		     1);
	CHECK_NEAR(r, 0, 0);
	CHECK_INT_EQ(topo_sysfs_nic_rate(DATA "sysfs-pcie4", "eth9", 0, &r),
		     1);
}

static void
test_cpumask(void)
{
	char buf[64];

	CHECK_INT_EQ(topo_cpumask("0-3,8", buf, sizeof(buf)), 0);
	CHECK_STR_EQ(buf, "0000010f");
	CHECK_INT_EQ(topo_cpumask("0,33", buf, sizeof(buf)), 0);
	CHECK_STR_EQ(buf, "00000002,00000001");
	CHECK_INT_EQ(topo_cpumask("3-1", buf, sizeof(buf)), -1);
	CHECK_INT_EQ(topo_cpumask("x", buf, sizeof(buf)), -1);
}

static int
discover(struct topo_node *n, const char *xml, const char *sysfs)
{
	struct topo_discover_opts o;

	memset(&o, 0, sizeof(o));
	o.xml = xml;
	o.sysfs = sysfs;
	return topo_discover(n, &o);
}

static void
test_mesh8(void)
{
	struct topo_node n, m;
	struct topo_net net;
	struct cluster c;
	int nd;

	if (!CHECK(discover(&n, DATA "mesh8.xml", DATA "sysfs-mesh8") == 0))
		return;
	nd = topo_node_ndev(&n);
	CHECK_INT_EQ(n.ngpus, 8);
	CHECK_INT_EQ(n.nnics, 4);
	CHECK_INT_EQ(n.links_from, TOPO_FROM_HWLOC);
	CHECK_STR_EQ(n.gpu, "V100-16GB");
	CHECK_STR_EQ(n.gpus[5].pci, "0000:55:00.0");
	CHECK_INT_EQ(n.gpus[5].numa, 1);
	CHECK_STR_EQ(n.gpus[5].cpus, "4-7");
	CHECK_INT_EQ(n.gpus[0].nvlinks, 6);
	CHECK_NEAR(n.gpus[0].nvlink_gb_s, 150, 1e-9);
	/* Cube mesh: i^1 two links, quad once, i^4 two, else PCIe. */
	CHECK_INT_EQ(n.paths[0 * nd + 1], TOPO_NV);
	CHECK_INT_EQ(n.nvlinks[0 * 8 + 1], 2);
	CHECK_NEAR(n.gb_s[0 * 8 + 1], 50, 1e-9);
	CHECK_INT_EQ(n.nvlinks[0 * 8 + 2], 1);
	CHECK_NEAR(n.gb_s[0 * 8 + 4], 50, 1e-9);
	CHECK_INT_EQ(n.paths[0 * nd + 5], TOPO_SYS);
	CHECK_NEAR(n.gb_s[0 * 8 + 5], 15.7538462, 1e-6);
	/* GPU-NIC: same switch PIX, same host bridge PHB, else SYS. */
	CHECK_INT_EQ(n.paths[0 * nd + 8], TOPO_PIX);
	CHECK_INT_EQ(n.paths[0 * nd + 9], TOPO_PHB);
	CHECK_INT_EQ(n.paths[0 * nd + 10], TOPO_SYS);
	CHECK_NEAR(n.nics[3].rate_gbit_s, 100, 0);
	CHECK_INT_EQ(n.nics[3].ngpus, 2);
	CHECK_INT_EQ(n.nics[3].gpus[0], 6);
	CHECK_INT_EQ(n.nics[3].gpus[1], 7);

	/* Node file round trip. */
	CHECK(topo_node_write(&n, "test_topo.tmp.yaml") == 0);
	if (CHECK(topo_node_load(&m, "test_topo.tmp.yaml") == 0)) {
		CHECK_INT_EQ(m.ngpus, 8);
		CHECK_INT_EQ(m.nvlinks[0 * 8 + 4], 2);
		CHECK_NEAR(m.gb_s[7 * 8 + 3], 50, 1e-9);
		CHECK_INT_EQ(m.paths[3 * nd + 9], TOPO_PIX);
		CHECK_INT_EQ(m.paths[3 * nd + 11], TOPO_SYS);
		CHECK_STR_EQ(m.nics[1].name, "mlx5_1");
		CHECK_INT_EQ(m.gpus[2].pcie.max_width, 16);
		topo_node_release(&m);
	}
	remove("test_topo.tmp.yaml");

	topo_net_init(&net);
	if (CHECK(topo_cluster_from_node(&c, &n, 2, &net) == 0)) {
		CHECK_INT_EQ(c.intra_kind, CLUSTER_NVLINK);
		CHECK_NEAR(c.net_gb_s, 6.25, 1e-12);
		CHECK_NEAR(c.net_latency_us, 5, 0);
		CHECK_INT_EQ(c.nnics, 4);
		CHECK_NEAR(cluster_intra(&c, 2, 6), 50, 1e-9);
		cluster_release(&c);
	}
	topo_node_release(&n);
}

static void
test_nvswitch16(void)
{
	struct topo_node n;
	int i, j, ok = 1;

	if (!CHECK(discover(&n, DATA "nvswitch16.xml", NULL) == 0))
		return;
	CHECK_INT_EQ(n.ngpus, 16);
	CHECK_INT_EQ(n.nvswitches, 12);
	for (i = 0; i < 16; i++)
		for (j = 0; j < 16; j++)
			if (i != j && (n.gb_s[i * 16 + j] != 150 ||
				       n.nvlinks[i * 16 + j] != 6))
				ok = 0;
	CHECK_MSG(ok, "every GPU pair of nvswitch16 is NV6 at 150 GB/s");
	/* No sysfs for XML input: the rate stays unknown. */
	CHECK_NEAR(n.nics[0].rate_gbit_s, 0, 0);
	CHECK_INT_EQ(n.gpus[0].pcie.max_gen, 3);
	topo_node_release(&n);
}

/* A quad GH200 node (tests/data/topo/gh200q4.xml: bench/topo_gen.c
 * gpus=4 per_switch=1 sockets=4 cores=2 nics=4 device=2342
 * speed=31.507692 nvlink=full links=6): its GPUs named from their PCI
 * id, six NVLinks between any two and no switch, so a mesh, and a
 * 200 Gbit/s NIC beside each. */
static void
test_gh200q4(void)
{
	struct topo_node n;
	struct topo_net net;
	struct cluster c;

	if (!CHECK(discover(&n, DATA "gh200q4.xml", DATA "sysfs-gh200q4") ==
		   0))
		return;
	CHECK_INT_EQ(n.ngpus, 4);
	CHECK_INT_EQ(n.nnics, 4);
	CHECK_STR_EQ(n.gpu, "GH200");
	CHECK_INT_EQ(n.nvswitches, 0);
	CHECK_INT_EQ(n.nvlinks[0 * 4 + 3], 6);
	CHECK_NEAR(n.gb_s[2 * 4 + 1], 150, 1e-9);
	CHECK_INT_EQ(n.gpus[0].nvlinks, 18);
	CHECK_INT_EQ(n.nics[2].ngpus, 1);
	CHECK_INT_EQ(n.nics[2].gpus[0], 2);
	CHECK_NEAR(n.nics[2].rate_gbit_s, 200, 0);
	topo_net_init(&net);
	if (CHECK(topo_cluster_from_node(&c, &n, 8, &net) == 0)) {
		CHECK_INT_EQ(c.intra_kind, CLUSTER_NVLINK);
		CHECK_NEAR(cluster_intra(&c, 3, 0), 150, 1e-9);
		CHECK_NEAR(c.net_gb_s, 25, 1e-12);
		cluster_release(&c);
	}
	topo_node_release(&n);
}

static void
test_pcie4(void)
{
	struct topo_node n;
	int nd;

	if (!CHECK(discover(&n, DATA "pcie4.xml", DATA "sysfs-pcie4") == 0))
		return;
	nd = topo_node_ndev(&n);
	CHECK_INT_EQ(n.links_from, TOPO_FROM_PCIE);
	CHECK_INT_EQ(n.paths[0 * nd + 1], TOPO_PIX);
	CHECK_INT_EQ(n.paths[0 * nd + 2], TOPO_NODE);
	/* Idle links trained down to gen 1; the maximum counts. */
	CHECK_INT_EQ(n.gpus[0].pcie.gen, 1);
	CHECK_NEAR(n.gb_s[0 * 4 + 1], 31.5076923, 1e-6);
	CHECK_NEAR(n.gb_s[0 * 4 + 3], 15.7538462, 1e-6);
	CHECK_INT_EQ(n.nics[0].ngpus, 4);
	topo_node_release(&n);
	fprintf(stderr, "(an error message is expected here)\n");
	CHECK(discover(&n, DATA "bad.xml", NULL) == -1);
}

static struct topo_node *
load_mesh8_twice(void)
{
	struct topo_node *n = xcalloc(3, sizeof(*n));

	if (discover(&n[0], DATA "mesh8.xml", DATA "sysfs-mesh8") ||
	    discover(&n[1], DATA "mesh8.xml", DATA "sysfs-mesh8") ||
	    discover(&n[2], DATA "mesh8.xml", DATA "sysfs-mesh8"))
		pd2bw_die("cannot discover mesh8.xml");
	return n;
}

static void
test_merge(void)
{
	struct topo_node *n = load_mesh8_twice();
	const char *names[3] = {"a", "b", "c"};
	struct topo_net net;
	struct cluster c;
	int i;

	topo_net_init(&net);
	/* Node c has a slower pair and a slower NIC: the lowest wins. */
	n[2].gb_s[0 * 8 + 1] = 20;
	n[2].nics[0].rate_gbit_s = 40;
	fprintf(stderr, "(two warnings are expected here)\n");
	if (CHECK(topo_merge(&c, n, names, 3, &net) == 0)) {
		CHECK_INT_EQ(c.nodes, 3);
		CHECK_NEAR(cluster_intra(&c, 0, 1), 20, 0);
		CHECK_NEAR(cluster_intra(&c, 1, 0), 50, 0);
		CHECK_NEAR(c.nics[0].rate_gbit_s, 40, 0);
		CHECK_NEAR(c.net_gb_s, 2.5, 1e-12);
		cluster_release(&c);
	}
	/* A node with fewer GPUs cannot be merged. */
	n[1].ngpus = 7;
	fprintf(stderr, "(an error message is expected here)\n");
	CHECK(topo_merge(&c, n, names, 3, &net) == -1);
	n[1].ngpus = 8;
	for (i = 0; i < 3; i++)
		topo_node_release(&n[i]);
	free(n);
}

/* PCI device ids to catalog names: the names the catalog holds, per
 * NVIDIA's device id list (10de:2324 H800, 2342 GH200 120GB / 480GB,
 * 2348 GH200 144G HBM3e). */
static void
test_gpu_guess(void)
{
	CHECK_STR_EQ(topo_gpu_guess(0x2330), "H100-SXM");
	CHECK_STR_EQ(topo_gpu_guess(0x2324), "H800");
	CHECK_STR_EQ(topo_gpu_guess(0x2342), "GH200");
	CHECK_STR_EQ(topo_gpu_guess(0x2348), "GH200-144GB");
	CHECK(topo_gpu_guess(0xffff) == NULL);
}

int
main(void)
{
	test_gpu_guess();
	test_paths();
	test_sysfs();
	test_cpumask();
	test_mesh8();
	test_nvswitch16();
	test_gh200q4();
	test_pcie4();
	test_merge();
	return h_done();
}
