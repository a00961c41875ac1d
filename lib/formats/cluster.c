/*
 * cluster.c - cluster descriptions (format pd2bw-cluster/1): reading with
 * full checks, byte-stable writing, the intra-node bandwidth matrix, and
 * cluster_open() choosing between a file (FILE or FILE:NODES) and a
 * built-in preset.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pd2bw/cluster.h"
#include "pd2bw/yml.h"

const char *const cluster_link_names[] = {"nvswitch", "nvlink", "pcie",
					  NULL};

#define MAX_GPN CLUSTER_MAX_GPN
#define MAX_NODES 1000000
#define MAX_GB_S 1e6
#define MAX_US 1e7

void
cluster_init(struct cluster *c)
{
	memset(c, 0, sizeof(*c));
	c->nodes = 1;
	c->oversubscription = 1;
}

void
cluster_release(struct cluster *c)
{
	int i;

	free(c->name);
	free(c->gpu);
	free(c->gpu_at);
	free(c->intra_gb_s);
	for (i = 0; i < c->nnics; i++) {
		free(c->nics[i].name);
		free(c->nics[i].gpus);
	}
	free(c->nics);
	cluster_init(c);
}

void
cluster_set_uniform(struct cluster *c, int gpn, double gb_s)
{
	int i, j;

	free(c->intra_gb_s);
	c->gpus_per_node = gpn;
	c->intra_gb_s = xcalloc((size_t)gpn * (size_t)gpn, sizeof(double));
	for (i = 0; i < gpn; i++)
		for (j = 0; j < gpn; j++)
			c->intra_gb_s[i * gpn + j] = i == j ? 0 : gb_s;
}

double
cluster_intra(const struct cluster *c, int i, int j)
{
	int n = c->gpus_per_node;

	if (!c->intra_gb_s || i < 0 || j < 0 || i >= n || j >= n)
		return 0;
	return c->intra_gb_s[i * n + j];
}

/* ---- reading ---- */

static int
read_matrix(struct cluster *c, struct yml_doc *d, yaml_node_t *mat)
{
	int gpn = c->gpus_per_node, i, j;

	if (yml_expect_seq(d, mat, gpn))
		return -1;
	cluster_set_uniform(c, gpn, 0);
	for (i = 0; i < gpn; i++) {
		yaml_node_t *row = yml_seq_item(d, mat, (size_t)i);

		if (yml_expect_seq(d, row, gpn))
			return -1;
		for (j = 0; j < gpn; j++) {
			yaml_node_t *e = yml_seq_item(d, row, (size_t)j);
			double *v = &c->intra_gb_s[i * gpn + j];

			if (yml_to_dbl(d, e, v, 0, MAX_GB_S))
				return -1;
			if (i == j && *v != 0)
				return yml_err(d, e, "diagonal entry [%d][%d] "
					       "must be 0", i, j);
			if (i != j && *v <= 0)
				return yml_err(d, e, "zero bandwidth between "
					       "GPUs %d and %d", i, j);
		}
	}
	return 0;
}

static int
read_intra(struct cluster *c, struct yml_doc *d, yaml_node_t *n)
{
	yaml_node_t *bw = NULL, *mat = NULL;
	double gb_s = 0;
	const struct yml_key keys[] = {
		YK_ENUM("kind", 1, &c->intra_kind, cluster_link_names),
		YK_ANY("bandwidth_gb_s", 0, &bw),
		YK_SEQ("matrix_gb_s", 0, &mat),
		YK_DBL("latency_us", 0, &c->intra_latency_us, 0, MAX_US),
	};

	if (yml_map(d, n, keys, sizeof(keys) / sizeof(keys[0])))
		return -1;
	if (bw && mat)
		return yml_err(d, mat, "give bandwidth_gb_s or matrix_gb_s, "
			       "not both");
	if (mat)
		return read_matrix(c, d, mat);
	if (!bw)
		return yml_err(d, n, "missing key 'bandwidth_gb_s' (or "
			       "'matrix_gb_s')");
	if (yml_to_dbl(d, bw, &gb_s, 0, MAX_GB_S))
		return -1;
	/* One GPU per node has no intra-node link to speak of. */
	if (gb_s <= 0 && c->gpus_per_node > 1)
		return yml_err(d, bw, "zero bandwidth");
	cluster_set_uniform(c, c->gpus_per_node, gb_s);
	return 0;
}

static int
read_nic(struct cluster *c, struct yml_doc *d, yaml_node_t *n,
	 struct cluster_nic *nic)
{
	yaml_node_t *gpus = NULL;
	const struct yml_key keys[] = {
		YK_STR("name", 1, &nic->name),
		YK_DBL("rate_gbit_s", 1, &nic->rate_gbit_s, 0, 8 * MAX_GB_S),
		YK_SEQ("gpus", 1, &gpus),
	};
	yaml_node_t *rate;
	int i;

	if (yml_map(d, n, keys, sizeof(keys) / sizeof(keys[0])))
		return -1;
	rate = yml_get(d, n, "rate_gbit_s");
	if (nic->rate_gbit_s <= 0)
		return yml_err(d, rate, "zero NIC rate");
	nic->ngpus = (int)yml_seq_len(gpus);
	nic->gpus = xcalloc(nic->ngpus ? (size_t)nic->ngpus : 1, sizeof(int));
	for (i = 0; i < nic->ngpus; i++) {
		yaml_node_t *g = yml_seq_item(d, gpus, (size_t)i);
		int j;

		if (yml_to_int(d, g, &nic->gpus[i], 0, MAX_GPN))
			return -1;
		if (nic->gpus[i] >= c->gpus_per_node)
			return yml_err(d, g, "GPU index %d out of range (node "
				       "has %d GPUs)", nic->gpus[i],
				       c->gpus_per_node);
		for (j = 0; j < i; j++)
			if (nic->gpus[j] == nic->gpus[i])
				return yml_err(d, g, "GPU %d listed twice",
					       nic->gpus[i]);
	}
	return 0;
}

static int
read_network(struct cluster *c, struct yml_doc *d, yaml_node_t *n)
{
	yaml_node_t *nics = NULL, *bw;
	const struct yml_key keys[] = {
		YK_DBL("bandwidth_gb_s", 1, &c->net_gb_s, 0, MAX_GB_S),
		YK_DBL("latency_us", 0, &c->net_latency_us, 0, MAX_US),
		YK_INT("nodes_per_leaf", 0, &c->nodes_per_leaf, 0, MAX_NODES),
		YK_DBL("oversubscription", 0, &c->oversubscription, 1, 1e3),
		YK_SEQ("nics", 0, &nics),
	};
	int i;

	if (yml_map(d, n, keys, sizeof(keys) / sizeof(keys[0])))
		return -1;
	bw = yml_get(d, n, "bandwidth_gb_s");
	/* A single node never uses the network. */
	if (c->net_gb_s <= 0 && c->nodes > 1)
		return yml_err(d, bw, "zero bandwidth");
	if (!nics)
		return 0;
	c->nnics = (int)yml_seq_len(nics);
	c->nics = xcalloc(c->nnics ? (size_t)c->nnics : 1, sizeof(*c->nics));
	for (i = 0; i < c->nnics; i++)
		if (read_nic(c, d, yml_seq_item(d, nics, (size_t)i),
			     &c->nics[i]))
			return -1;
	return 0;
}

/* nodes > 0: that many nodes instead of the file's (FILE:NODES), checked
 * as the file's own count is. */
static int
load_doc(struct cluster *c, struct yml_doc *d, int nodes)
{
	yaml_node_t *root = yml_root(d), *intra = NULL, *net = NULL, *mem;
	char *fmt = NULL;
	int ret;

	if (!root || yml_check_format(d, root, "cluster", 1) < 0)
		return -1;
	{
		const struct yml_key keys[] = {
			YK_STR("format", 1, &fmt),
			YK_STR("name", 1, &c->name),
			YK_INT("nodes", 1, &c->nodes, 1, MAX_NODES),
			YK_INT("gpus_per_node", 1, &c->gpus_per_node, 1,
			       MAX_GPN),
			YK_STR("gpu", 1, &c->gpu),
			YK_I64("gpu_memory_bytes", 1, &c->gpu_mem_bytes, 0,
			       1e18),
			YK_MAP("intra", 1, &intra),
			YK_MAP("network", 1, &net),
		};

		ret = yml_map(d, root, keys, sizeof(keys) / sizeof(keys[0]));
		free(fmt);
		if (ret)
			return -1;
	}
	if (nodes > 0)
		c->nodes = nodes;
	if ((int64_t)c->nodes * c->gpus_per_node > CLUSTER_MAX_GPUS)
		return yml_err(d, yml_get(d, root, "nodes"),
			       "%d nodes of %d GPUs: more than the %d GPUs "
			       "pd2bw plans for",
			       c->nodes, c->gpus_per_node, CLUSTER_MAX_GPUS);
	mem = yml_get(d, root, "gpu_memory_bytes");
	if (c->gpu_mem_bytes <= 0)
		return yml_err(d, mem, "zero GPU memory");
	if (!*c->gpu)
		return yml_err(d, yml_get(d, root, "gpu"), "empty GPU name");
	c->gpu_at = yml_where(d, yml_get(d, root, "gpu"));
	if (read_intra(c, d, intra) || read_network(c, d, net))
		return -1;
	return 0;
}

int
cluster_load_string(struct cluster *c, const char *name, const char *buf,
		    size_t len)
{
	struct yml_doc d;
	int ret;

	cluster_release(c);
	ret = yml_load_string(&d, name, buf, len);
	if (!ret)
		ret = load_doc(c, &d, 0);
	yml_release(&d);
	return ret;
}

static int
load_file(struct cluster *c, const char *path, int nodes)
{
	struct yml_doc d;
	int ret;

	cluster_release(c);
	ret = yml_load_file(&d, path);
	if (!ret)
		ret = load_doc(c, &d, nodes);
	yml_release(&d);
	return ret;
}

int
cluster_load(struct cluster *c, const char *path)
{
	return load_file(c, path, 0);
}

/* ---- writing ---- */

/*
 * The uniform figure when every off-diagonal entry is the same (and for a
 * single GPU per node), else the whole matrix: one rule, so the output of
 * a read-write cycle is byte-stable.
 */
static int
uniform(const struct cluster *c, double *gb_s)
{
	int n = c->gpus_per_node, i, j;

	*gb_s = n > 1 ? c->intra_gb_s[1] : 0;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (i != j && c->intra_gb_s[i * n + j] != *gb_s)
				return 0;
	return 1;
}

int
cluster_write(const struct cluster *c, const char *path)
{
	struct yml_out o;
	double gb_s;
	int i, j, n = c->gpus_per_node;

	if (!c->intra_gb_s || n < 1)
		return pd2bw_error("cannot write '%s': no intra-node "
				   "bandwidths", path);
	if (yml_out_open(&o, path))
		return -1;
	yml_out_map(&o, 0);
	yml_out_kstr(&o, "format", "pd2bw-cluster/1");
	yml_out_kstr(&o, "name", c->name ? c->name : "");
	yml_out_kint(&o, "nodes", c->nodes);
	yml_out_kint(&o, "gpus_per_node", n);
	yml_out_kstr(&o, "gpu", c->gpu ? c->gpu : "");
	yml_out_kint(&o, "gpu_memory_bytes", c->gpu_mem_bytes);
	yml_out_str(&o, "intra");
	yml_out_map(&o, 0);
	yml_out_kstr(&o, "kind", cluster_link_names[c->intra_kind]);
	if (uniform(c, &gb_s)) {
		yml_out_kdbl(&o, "bandwidth_gb_s", gb_s);
	} else {
		yml_out_str(&o, "matrix_gb_s");
		yml_out_seq(&o, 0);
		for (i = 0; i < n; i++) {
			yml_out_seq(&o, 1);
			for (j = 0; j < n; j++)
				yml_out_dbl(&o, c->intra_gb_s[i * n + j]);
			yml_out_end_seq(&o);
		}
		yml_out_end_seq(&o);
	}
	yml_out_kdbl(&o, "latency_us", c->intra_latency_us);
	yml_out_end_map(&o);
	yml_out_str(&o, "network");
	yml_out_map(&o, 0);
	yml_out_kdbl(&o, "bandwidth_gb_s", c->net_gb_s);
	yml_out_kdbl(&o, "latency_us", c->net_latency_us);
	yml_out_kint(&o, "nodes_per_leaf", c->nodes_per_leaf);
	yml_out_kdbl(&o, "oversubscription", c->oversubscription);
	yml_out_str(&o, "nics");
	yml_out_seq(&o, 0);
	for (i = 0; i < c->nnics; i++) {
		const struct cluster_nic *nic = &c->nics[i];

		yml_out_map(&o, 1);
		yml_out_kstr(&o, "name", nic->name ? nic->name : "");
		yml_out_kdbl(&o, "rate_gbit_s", nic->rate_gbit_s);
		yml_out_str(&o, "gpus");
		yml_out_seq(&o, 1);
		for (j = 0; j < nic->ngpus; j++)
			yml_out_int(&o, nic->gpus[j]);
		yml_out_end_seq(&o);
		yml_out_end_map(&o);
	}
	yml_out_end_seq(&o);
	yml_out_end_map(&o);
	yml_out_end_map(&o);
	return yml_out_close(&o);
}

/* ---- file or preset ---- */

/* A spec that names a file rather than a preset. */
static int
names_file(const char *spec, size_t n)
{
	struct stat st;
	char *path = xstrdup(spec);
	int ret;

	path[n] = 0;
	ret = !stat(path, &st) || memchr(spec, '/', n) ||
	      (n > 5 && !strncmp(spec + n - 5, ".yaml", 5)) ||
	      (n > 4 && !strncmp(spec + n - 4, ".yml", 4));
	free(path);
	return ret;
}

int
cluster_file_of(const char *spec, char **path)
{
	struct stat st;
	const char *colon = strrchr(spec, ':');
	size_t n = strlen(spec);

	*path = NULL;
	if (!stat(spec, &st) || !colon || !names_file(spec, colon - spec)) {
		if (!names_file(spec, n))
			return 0;
		*path = xstrdup(spec);
		return 1;
	}
	*path = xstrdup(spec);
	(*path)[colon - spec] = 0;
	return 1;
}

/*
 * FILE:NODES: the file's cluster on NODES nodes instead of its own count,
 * which the file's checks then hold (the GPU limit, a network beyond one
 * node: reported at the file's "nodes" and "bandwidth_gb_s").
 */
static int
load_nodes(struct cluster *c, const char *spec, const char *path)
{
	const char *arg = spec + strlen(path) + 1;
	char *end;
	long nodes;

	errno = 0;
	nodes = strtol(arg, &end, 10);
	if (end == arg || *end || errno || nodes < 1 || nodes > MAX_NODES) {
		pd2bw_error("invalid node count in cluster '%s' (FILE:NODES, "
			    "NODES from 1 to %d)",
			    spec, MAX_NODES);
		return -2;
	}
	return load_file(c, path, (int)nodes);
}

int
cluster_open(struct cluster *c, const char *spec)
{
	char *path;
	int ret;

	if (!cluster_file_of(spec, &path))
		return cluster_preset(c, spec);
	ret = strcmp(path, spec) ? load_nodes(c, spec, path)
				 : cluster_load(c, spec);
	free(path);
	return ret;
}
