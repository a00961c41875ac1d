/*
 * test_cluster.c - pd2bw-cluster/1 reading (good and bad input), the
 * writer's uniform-or-matrix rule and byte stability, atomic output, the
 * presets' figures and cluster_open().
 */
#include "harness.h"
#include "capture.h"
#include "pd2bw/cluster.h"
#include "pd2bw/error.h"

#define FX "tests/data/formats/"
#define GIB 1073741824LL

static int
load_str(struct cluster *c, const char *buf)
{
	return cluster_load_string(c, "c.yaml", buf, strlen(buf));
}

/* %s slots: node count line 3, intra body from line 8, network line 11. */
static const char tmpl[] =
	"format: pd2bw-cluster/1\n"
	"name: t\n"
	"nodes: %s\n"
	"gpus_per_node: 2\n"
	"gpu: H100-SXM\n"
	"gpu_memory_bytes: %s\n"
	"intra:\n"
	"  kind: nvswitch\n"
	"%s"
	"network:\n"
	"  bandwidth_gb_s: %s\n"
	"%s";

static int
load_t(struct cluster *c, const char *nodes, const char *mem,
       const char *intra, const char *net, const char *nics)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), tmpl, nodes, mem, intra, net, nics);
	return load_str(c, buf);
}

#define BW "  bandwidth_gb_s: 450\n"

static void
test_good(void)
{
	struct cluster c;

	cluster_init(&c);
	CHECK(load_t(&c, "4", "1000", BW, "50", "") == 0);
	CHECK_INT_EQ(c.nodes, 4);
	CHECK_INT_EQ(c.gpus_per_node, 2);
	CHECK_STR_EQ(c.gpu, "H100-SXM");
	CHECK_INT_EQ(c.intra_kind, CLUSTER_NVSWITCH);
	CHECK_NEAR(cluster_intra(&c, 0, 1), 450, 0);
	CHECK_NEAR(cluster_intra(&c, 1, 1), 0, 0);
	CHECK_NEAR(cluster_intra(&c, 0, 2), 0, 0);
	CHECK_NEAR(c.net_gb_s, 50, 0);
	CHECK_NEAR(c.oversubscription, 1, 0);
	CHECK_INT_EQ(c.nodes_per_leaf, 0);
	CHECK_INT_EQ(c.nnics, 0);

	CHECK(cluster_load(&c, cap_path(FX "cluster-matrix.yaml")) == 0);
	CHECK_STR_EQ(c.name, "lab");
	CHECK_INT_EQ(c.gpus_per_node, 4);
	CHECK_INT_EQ(c.gpu_mem_bytes, 40 * GIB);
	CHECK_INT_EQ(c.intra_kind, CLUSTER_NVLINK);
	CHECK_NEAR(cluster_intra(&c, 0, 1), 100, 0);
	CHECK_NEAR(cluster_intra(&c, 3, 0), 20, 0);
	CHECK_NEAR(c.intra_latency_us, 2.5, 0);
	CHECK_NEAR(c.net_latency_us, 4, 0);
	CHECK_INT_EQ(c.nodes_per_leaf, 1);
	CHECK_NEAR(c.oversubscription, 2, 0);
	CHECK_INT_EQ(c.nnics, 2);
	CHECK_STR_EQ(c.nics[1].name, "mlx5_1");
	CHECK_NEAR(c.nics[1].rate_gbit_s, 200, 0);
	CHECK_INT_EQ(c.nics[1].ngpus, 2);
	CHECK_INT_EQ(c.nics[1].gpus[1], 3);

	/* One GPU per node, one node: no links needed. */
	CHECK(load_str(&c, "format: pd2bw-cluster/1\nname: one\nnodes: 1\n"
			   "gpus_per_node: 1\ngpu: L40S\ngpu_memory_bytes: 9\n"
			   "intra: {kind: pcie, bandwidth_gb_s: 0}\n"
			   "network: {bandwidth_gb_s: 0}\n") == 0);
	CHECK_INT_EQ(c.gpus_per_node, 1);
	cluster_release(&c);
}

static void
test_bad(void)
{
	struct cluster c;

	cluster_init(&c);
	CHECK_ERR(load_t(&c, "4", "0", BW, "50", ""),
		  "pd2bw: c.yaml:6:19: zero GPU memory");
	CHECK_ERR(load_t(&c, "4", "-1", BW, "50", ""),
		  "pd2bw: c.yaml:6:19: value -1 out of range [0, 1e+18]");
	CHECK_ERR(load_t(&c, "4", "1000", "  bandwidth_gb_s: 0\n", "50", ""),
		  "pd2bw: c.yaml:9:19: zero bandwidth");
	CHECK_ERR(load_t(&c, "4", "1000", "  bandwidth_gb_s: .nan\n", "50",
			 ""),
		  "pd2bw: c.yaml:9:19: expected a number, found '.nan'");
	CHECK_ERR(load_t(&c, "4", "1000", "  bandwidth_gb_s: -3\n", "50",
			 ""),
		  "pd2bw: c.yaml:9:19: value -3 out of range [0, 1000000]");
	CHECK_ERR(load_t(&c, "4", "1000", BW, "0", ""),
		  "pd2bw: c.yaml:11:19: zero bandwidth");
	CHECK_ERR(load_t(&c, "4", "1000", BW, ".inf", ""),
		  "pd2bw: c.yaml:11:19: expected a number, found '.inf'");
	CHECK_ERR(load_t(&c, "0", "1000", BW, "50", ""),
		  "pd2bw: c.yaml:3:8: value 0 out of range [1, 1000000]");
	CHECK_ERR(load_t(&c, "4", "1000", "", "50", ""),
		  "pd2bw: c.yaml:8:3: missing key 'bandwidth_gb_s' (or "
		  "'matrix_gb_s')");
	CHECK_ERR(load_t(&c, "4", "1000",
			 "  matrix_gb_s: [[0, 1], [1, 0], [1, 1]]\n", "50", ""),
		  "pd2bw: c.yaml:9:16: expected 2 items, found 3");
	CHECK_ERR(load_t(&c, "4", "1000", "  matrix_gb_s: [[0, 1], [1]]\n",
			 "50", ""),
		  "pd2bw: c.yaml:9:25: expected 2 items, found 1");
	CHECK_ERR(load_t(&c, "4", "1000", "  matrix_gb_s: [[0, 1], [0, 0]]\n",
			 "50", ""),
		  "pd2bw: c.yaml:9:26: zero bandwidth between GPUs 1 and 0");
	CHECK_ERR(load_t(&c, "4", "1000", "  matrix_gb_s: [[5, 1], [1, 0]]\n",
			 "50", ""),
		  "pd2bw: c.yaml:9:18: diagonal entry [0][0] must be 0");
	CHECK_ERR(load_t(&c, "4", "1000", "  matrix_gb_s: 7\n", "50", ""),
		  "pd2bw: c.yaml:9:16: expected a sequence for 'matrix_gb_s'");
	CHECK_ERR(load_t(&c, "4", "1000",
			 BW "  matrix_gb_s: [[0, 1], [1, 0]]\n", "50", ""),
		  "pd2bw: c.yaml:10:16: give bandwidth_gb_s or matrix_gb_s, "
		  "not both");
	CHECK_ERR(load_t(&c, "4", "1000", BW "  kind: nvlink\n", "50", ""),
		  "pd2bw: c.yaml:10:3: duplicate key 'kind' (first at line 8)");
	CHECK_ERR(load_t(&c, "4", "1000", BW "  speed: 3\n", "50", ""),
		  "pd2bw: c.yaml:10:3: unknown key 'speed'");
	CHECK_ERR(load_t(&c, "4", "1000", BW, "50",
			 "  nics: [{name: a, rate_gbit_s: 100, "
			 "gpus: [0, 2]}]\n"),
		  "pd2bw: c.yaml:12:48: GPU index 2 out of range (node has 2 "
		  "GPUs)");
	CHECK_ERR(load_t(&c, "4", "1000", BW, "50",
			 "  nics: [{name: a, rate_gbit_s: 100, "
			 "gpus: [1, 1]}]\n"),
		  "pd2bw: c.yaml:12:48: GPU 1 listed twice");
	CHECK_ERR(load_t(&c, "4", "1000", BW, "50",
			 "  nics: [{name: a, rate_gbit_s: 0, gpus: [0]}]\n"),
		  "pd2bw: c.yaml:12:33: zero NIC rate");
	CHECK_ERR(load_t(&c, "4", "1000", BW, "50",
			 "  nics: [{name: a, gpus: [0]}]\n"),
		  "pd2bw: c.yaml:12:10: missing key 'rate_gbit_s'");
	CHECK_ERR(load_t(&c, "4", "1000", BW, "50",
			 "  oversubscription: 0.5\n"),
		  "pd2bw: c.yaml:12:21: value 0.5 out of range [1, 1000]");
	CHECK_ERR(load_str(&c, "format: pd2bw-cluster/1\nname: x\n"),
		  "pd2bw: c.yaml:1:1: missing key 'nodes'");
	CHECK_ERR(load_str(&c, ""), "pd2bw: c.yaml:1:1: empty document");
	CHECK_ERR(load_str(&c, "cluster\n"),
		  "pd2bw: c.yaml:1:1: expected a mapping, found a scalar");
	CHECK_ERR(load_str(&c, "format: pd2bw-cluster/1\nintra: {kind: "),
		  "pd2bw: c.yaml:3:1: did not find expected node content "
		  "while parsing a flow node (the file ends here: "
		  "truncated?)");
	CHECK_ERR(cluster_load(&c, "/nonexistent/c.yaml"),
		  "pd2bw: cannot open '/nonexistent/c.yaml': No such file or "
		  "directory");
	cluster_release(&c);
}

/* Write, read, write: identical bytes and the same figures. */
static void
round_trip(const struct cluster *c, const char *dir)
{
	char p1[4400], p2[4400], *a, *b;
	struct cluster r;
	int i, j, n = c->gpus_per_node, same = 1;

	snprintf(p1, sizeof(p1), "%s/a.yaml", dir);
	snprintf(p2, sizeof(p2), "%s/b.yaml", dir);
	cluster_init(&r);
	CHECK(cluster_write(c, p1) == 0);
	CHECK(cluster_load(&r, p1) == 0);
	CHECK(cluster_write(&r, p2) == 0);
	a = cap_slurp(p1);
	b = cap_slurp(p2);
	CHECK_MSG(a && b && !strcmp(a, b), c->name);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			same &= cluster_intra(&r, i, j) ==
				cluster_intra(c, i, j);
	same &= r.nodes == c->nodes && r.gpu_mem_bytes == c->gpu_mem_bytes &&
		r.net_gb_s == c->net_gb_s && r.nnics == c->nnics &&
		r.intra_kind == c->intra_kind &&
		r.intra_latency_us == c->intra_latency_us &&
		r.net_latency_us == c->net_latency_us;
	for (i = 0; same && i < c->nnics; i++) {
		same &= r.nics[i].ngpus == c->nics[i].ngpus &&
			r.nics[i].rate_gbit_s == c->nics[i].rate_gbit_s &&
			!strcmp(r.nics[i].name, c->nics[i].name);
		for (j = 0; same && j < c->nics[i].ngpus; j++)
			same &= r.nics[i].gpus[j] == c->nics[i].gpus[j];
	}
	CHECK_MSG(same, c->name);
	free(a);
	free(b);
	cluster_release(&r);
}

static void
test_write(void)
{
	static const char want[] =
		"format: pd2bw-cluster/1\nname: dgx-h100:2\nnodes: 2\n"
		"gpus_per_node: 8\ngpu: H100-SXM\n"
		"gpu_memory_bytes: 85899345920\nintra:\n  kind: nvswitch\n"
		"  bandwidth_gb_s: 450\n  latency_us: 3\nnetwork:\n"
		"  bandwidth_gb_s: 50\n  latency_us: 5\n  nodes_per_leaf: 0\n"
		"  oversubscription: 1\n  nics:\n"
		"  - {name: mlx5_0, rate_gbit_s: 400, gpus: [0]}\n";
	char *dir = cap_mkdtemp(), p[4400], *got;
	struct cluster c;
	int i;

	cluster_init(&c);
	CHECK(cluster_preset(&c, "dgx-h100:2") == 0);
	snprintf(p, sizeof(p), "%s/w.yaml", dir);
	CHECK(cluster_write(&c, p) == 0);
	got = cap_slurp(p);
	CHECK(got && !strncmp(got, want, sizeof(want) - 1));
	free(got);
	for (i = 0; cluster_preset_names[i]; i++) {
		CHECK(cluster_preset(&c, cluster_preset_names[i]) == 0);
		round_trip(&c, dir);
	}
	CHECK(cluster_load(&c, cap_path(FX "cluster-matrix.yaml")) == 0);
	round_trip(&c, dir);
	/* A matrix with equal entries is written as the uniform figure. */
	CHECK(cluster_preset(&c, "p3.16xlarge") == 0);
	CHECK(cluster_write(&c, p) == 0);
	got = cap_slurp(p);
	CHECK(got && strstr(got, "  matrix_gb_s:\n  - [0, 25, 25, 50, 50, "
				 "10, 10, 10]\n"));
	free(got);
	for (i = 1; i < 64; i++)
		if (i % 9)
			c.intra_gb_s[i] = 25;
	CHECK(cluster_write(&c, p) == 0);
	got = cap_slurp(p);
	CHECK(got && strstr(got, "  kind: nvlink\n  bandwidth_gb_s: 25\n"));
	free(got);

	CHECK_INT_EQ(cap_count(dir), 3);
	snprintf(p, sizeof(p), "%s/gone/w.yaml", dir);
	{
		char want_err[4600];

		snprintf(want_err, sizeof(want_err),
			 "pd2bw: cannot create '%s': No such file or "
			 "directory", p);
		CHECK_ERR(cluster_write(&c, p), want_err);
	}
	CHECK_INT_EQ(cap_count(dir), 3);
	/* A failed rename leaves no temporary file behind. */
	snprintf(p, sizeof(p), "%s/d", dir);
	CHECK(mkdir(p, 0777) == 0);
	cap_begin();
	CHECK(cluster_write(&c, p) == -1);
	free(cap_end());
	CHECK_INT_EQ(cap_count(dir), 4);
	CHECK_INT_EQ(cap_count(p), 0);
	cluster_release(&c);
	cap_rmdir(dir);
}

static void
test_presets(void)
{
	struct cluster c;
	int i, j, nv1 = 0, nv2 = 0, sys = 0;

	cluster_init(&c);
	CHECK(cluster_preset(&c, "p3.16xlarge") == 0);
	CHECK_STR_EQ(c.name, "p3.16xlarge");
	CHECK_INT_EQ(c.nodes, 1);
	CHECK_INT_EQ(c.gpus_per_node, 8);
	CHECK_STR_EQ(c.gpu, "V100-16GB");
	CHECK_INT_EQ(c.gpu_mem_bytes, 16 * GIB);
	CHECK_INT_EQ(c.intra_kind, CLUSTER_NVLINK);
	CHECK_NEAR(cluster_intra(&c, 0, 1), 25, 0);
	CHECK_NEAR(cluster_intra(&c, 0, 3), 50, 0);
	CHECK_NEAR(cluster_intra(&c, 0, 5), 10, 0);
	CHECK_NEAR(cluster_intra(&c, 4, 7), 50, 0);
	CHECK_NEAR(cluster_intra(&c, 6, 2), 25, 0);
	/* The cube mesh: 6 links per GPU, symmetric. */
	for (i = 0; i < 8; i++) {
		double links = 0;

		for (j = 0; j < 8; j++) {
			double v = cluster_intra(&c, i, j);

			CHECK_MSG(v == cluster_intra(&c, j, i), "symmetric");
			if (i == j)
				continue;
			links += v == 10 ? 0 : v / 25;
			nv1 += v == 25;
			nv2 += v == 50;
			sys += v == 10;
		}
		CHECK_NEAR(links, 6, 0);
	}
	CHECK_INT_EQ(nv1, 16);
	CHECK_INT_EQ(nv2, 16);
	CHECK_INT_EQ(sys, 24);
	CHECK_NEAR(c.net_gb_s, 25.0 / 8 / 8, 0);
	CHECK_INT_EQ(c.nnics, 1);
	CHECK_NEAR(c.nics[0].rate_gbit_s, 25, 0);
	CHECK_INT_EQ(c.nics[0].ngpus, 8);

	CHECK(cluster_preset(&c, "p3.16xlarge:8") == 0);
	CHECK_STR_EQ(c.name, "p3.16xlarge:8");
	CHECK_INT_EQ(c.nodes, 8);

	CHECK(cluster_preset(&c, "dgx-1-v100:2") == 0);
	CHECK_STR_EQ(c.gpu, "V100-32GB");
	CHECK_INT_EQ(c.gpu_mem_bytes, 32 * GIB);
	CHECK_NEAR(cluster_intra(&c, 1, 5), 50, 0);
	CHECK_INT_EQ(c.nnics, 4);
	CHECK_INT_EQ(c.nics[2].gpus[0], 4);
	CHECK_INT_EQ(c.nics[2].gpus[1], 5);
	CHECK_NEAR(c.net_gb_s, 6.25, 0);

	CHECK(cluster_preset(&c, "dgx-a100:4") == 0);
	CHECK_INT_EQ(c.nodes, 4);
	CHECK_STR_EQ(c.gpu, "A100-80GB");
	CHECK_INT_EQ(c.gpu_mem_bytes, 80 * GIB);
	CHECK_INT_EQ(c.intra_kind, CLUSTER_NVSWITCH);
	CHECK_NEAR(cluster_intra(&c, 0, 7), 300, 0);
	CHECK_NEAR(c.net_gb_s, 25, 0);
	CHECK_INT_EQ(c.nnics, 8);
	CHECK_NEAR(c.nics[5].rate_gbit_s, 200, 0);
	CHECK_INT_EQ(c.nics[5].ngpus, 1);
	CHECK_INT_EQ(c.nics[5].gpus[0], 5);

	CHECK(cluster_preset(&c, "DGX-H100") == 0);
	CHECK_STR_EQ(c.name, "dgx-h100");
	CHECK_STR_EQ(c.gpu, "H100-SXM");
	CHECK_NEAR(cluster_intra(&c, 3, 4), 450, 0);
	CHECK_NEAR(c.net_gb_s, 50, 0);
	CHECK_NEAR(c.nics[7].rate_gbit_s, 400, 0);

	CHECK(cluster_preset(&c, "dgx-h200:16") == 0);
	CHECK_STR_EQ(c.gpu, "H200");
	CHECK_INT_EQ(c.gpu_mem_bytes, 141 * GIB);
	CHECK_NEAR(cluster_intra(&c, 3, 4), 450, 0);
	CHECK_INT_EQ(c.nodes, 16);

	CHECK(cluster_preset(&c, "l40s-pcie") == 0);
	CHECK_STR_EQ(c.gpu, "L40S");
	CHECK_INT_EQ(c.gpu_mem_bytes, 48 * GIB);
	CHECK_INT_EQ(c.intra_kind, CLUSTER_PCIE);
	CHECK_NEAR(cluster_intra(&c, 0, 1), 25, 0);
	CHECK_NEAR(c.net_gb_s, 12.5, 0);

	/* an NVL72 rack is one node of 72 GPUs, a NIC each */
	CHECK(cluster_preset(&c, "gb200-nvl72:2") == 0);
	CHECK_STR_EQ(c.gpu, "GB200");
	CHECK_INT_EQ(c.gpus_per_node, 72);
	CHECK_INT_EQ(c.nodes, 2);
	CHECK_INT_EQ(c.gpu_mem_bytes, 186 * GIB);
	CHECK_NEAR(cluster_intra(&c, 0, 71), 900, 0);
	CHECK_NEAR(c.net_gb_s, 50, 0);
	CHECK_INT_EQ(c.nnics, 72);
	CHECK(cluster_preset(&c, "gb300-nvl72") == 0);
	CHECK_STR_EQ(c.gpu, "GB300");
	CHECK_NEAR(c.net_gb_s, 100, 0);
	CHECK(cluster_preset(&c, "dgx-b200") == 0);
	CHECK_INT_EQ(c.gpu_mem_bytes, 180 * GIB);
	CHECK_NEAR(cluster_intra(&c, 1, 2), 900, 0);
	/* DGX B300: an 800 Gbit/s ConnectX-8 per GPU */
	CHECK(cluster_preset(&c, "dgx-b300:2") == 0);
	CHECK_STR_EQ(c.gpu, "B300");
	CHECK_INT_EQ(c.gpu_mem_bytes, 288 * GIB);
	CHECK_INT_EQ(c.nnics, 8);
	CHECK_NEAR(c.net_gb_s, 100, 0);
	CHECK_NEAR(cluster_intra(&c, 1, 2), 900, 0);

	/* HGX H800: NVSwitch at the H800's 8 NVLinks, 400 Gbit/s a GPU */
	CHECK(cluster_preset(&c, "hgx-h800:4") == 0);
	CHECK_STR_EQ(c.gpu, "H800");
	CHECK_INT_EQ(c.intra_kind, CLUSTER_NVSWITCH);
	CHECK_NEAR(cluster_intra(&c, 0, 7), 200, 0);
	CHECK_NEAR(c.net_gb_s, 50, 0);
	/* quad GH200: no switch, 6 NVLinks (150 GB/s) between any two,
	 * a 200 Gbit/s NIC per superchip */
	CHECK(cluster_preset(&c, "gh200-quad:8") == 0);
	CHECK_STR_EQ(c.gpu, "GH200");
	CHECK_INT_EQ(c.gpus_per_node, 4);
	CHECK_INT_EQ(c.nodes, 8);
	CHECK_INT_EQ(c.gpu_mem_bytes, 96 * GIB);
	CHECK_INT_EQ(c.intra_kind, CLUSTER_NVLINK);
	CHECK_NEAR(cluster_intra(&c, 0, 3), 150, 0);
	CHECK_NEAR(cluster_intra(&c, 2, 1), 150, 0);
	CHECK_INT_EQ(c.nnics, 4);
	CHECK_INT_EQ(c.nics[3].ngpus, 1);
	CHECK_INT_EQ(c.nics[3].gpus[0], 3);
	CHECK_NEAR(c.net_gb_s, 25, 0);

	CHECK_ERR(cluster_preset(&c, "dgx-z"),
		  "pd2bw: unknown cluster 'dgx-z' (presets: p3.16xlarge, "
		  "dgx-1-v100, dgx-a100, dgx-h100, dgx-h200, l40s-pcie, "
		  "hgx-h800, gh200-quad, dgx-b200, gb200-nvl72, gb300-nvl72, "
		  "dgx-b300; or a file)");
	/* -2: a usage error for the programs (exit status 2) */
	CHECK_ERR(cluster_preset(&c, "dgx-h100:0") == -2 ? -1 : 0,
		  "pd2bw: invalid node count in cluster 'dgx-h100:0' (NAME:NODES, "
		  "NODES from 1 to 1000000)");
	/* -2: a usage error for the programs (exit status 2) */
	CHECK_ERR(cluster_preset(&c, "dgx-h100:2x") == -2 ? -1 : 0,
		  "pd2bw: invalid node count in cluster 'dgx-h100:2x' (NAME:NODES, "
		  "NODES from 1 to 1000000)");
	/* -2: a usage error for the programs (exit status 2) */
	CHECK_ERR(cluster_preset(&c, "dgx-h100:") == -2 ? -1 : 0,
		  "pd2bw: invalid node count in cluster 'dgx-h100:' (NAME:NODES, "
		  "NODES from 1 to 1000000)");
	cluster_release(&c);
}

static void
test_open(void)
{
	struct cluster c;

	cluster_init(&c);
	CHECK(cluster_open(&c, "dgx-a100:2") == 0);
	CHECK_INT_EQ(c.nodes, 2);
	CHECK(cluster_open(&c, cap_path(FX "cluster-matrix.yaml")) == 0);
	CHECK_STR_EQ(c.name, "lab");
	CHECK_ERR(cluster_open(&c, "nosuch.yaml"),
		  "pd2bw: cannot open 'nosuch.yaml': No such file or "
		  "directory");
	CHECK_ERR(cluster_open(&c, "./dgx-h100"),
		  "pd2bw: cannot open './dgx-h100': No such file or "
		  "directory");
	cluster_release(&c);
}

int
main(int argc, char **argv)
{
	(void)argc;
	(void)h_skip;
	(void)h_skip_all;
	cap_find_top(argv[0]);
	test_good();
	test_bad();
	test_write();
	test_presets();
	test_open();
	return h_done();
}
