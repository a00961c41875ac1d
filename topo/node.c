/*
 * node.c - the pd2bw-node/1 node file: allocation, path names, a byte-stable
 * writer and a strict reader (unknown keys, wrong types and inconsistent
 * matrices are reported with file:line:col).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/error.h"
#include "pd2bw/yml.h"
#include "node.h"

const char *const topo_links_from_names[] = {"pcie", "hwloc", "nvml", NULL};
static const char *const path_names[] = {"X",   "NV",   "PIX", "PXB",
					 "PHB", "NODE", "SYS"};
static const char *const nic_kinds[] = {"ethernet", "infiniband", NULL};

void
topo_node_init(struct topo_node *n)
{
	memset(n, 0, sizeof(*n));
}

void
topo_node_release(struct topo_node *n)
{
	int i;

	for (i = 0; i < n->ngpus; i++) {
		free(n->gpus[i].pci);
		free(n->gpus[i].name);
		free(n->gpus[i].cpus);
	}
	for (i = 0; i < n->nnics; i++) {
		free(n->nics[i].name);
		free(n->nics[i].pci);
		free(n->nics[i].cpus);
		free(n->nics[i].gpus);
	}
	free(n->gpus);
	free(n->nics);
	free(n->paths);
	free(n->nvlinks);
	free(n->gb_s);
	free(n->host);
	free(n->gpu);
	topo_node_init(n);
}

void
topo_node_alloc(struct topo_node *n, int ngpus, int nnics)
{
	int i, nd = ngpus + nnics;

	n->ngpus = ngpus;
	n->nnics = nnics;
	n->gpus = xcalloc((size_t)ngpus, sizeof(*n->gpus));
	n->nics = xcalloc((size_t)nnics, sizeof(*n->nics));
	n->paths = xcalloc((size_t)nd * (size_t)nd, sizeof(int));
	n->nvlinks = xcalloc((size_t)ngpus * (size_t)ngpus, sizeof(int));
	n->gb_s = xcalloc((size_t)ngpus * (size_t)ngpus, sizeof(double));
	for (i = 0; i < nd * nd; i++)
		n->paths[i] = i % (nd + 1) == 0 ? TOPO_X : TOPO_SYS;
	for (i = 0; i < ngpus; i++)
		n->gpus[i].numa = -1;
	for (i = 0; i < nnics; i++)
		n->nics[i].numa = -1;
}

int
topo_node_path(const struct topo_node *n, int a, int b)
{
	return n->paths[a * topo_node_ndev(n) + b];
}

const char *
topo_path_name(int path, int nv, char *buf)
{
	if (path == TOPO_NV)
		snprintf(buf, 16, "NV%d", nv);
	else if (path >= 0 && path <= TOPO_SYS)
		snprintf(buf, 16, "%s", path_names[path]);
	else
		snprintf(buf, 16, "?");
	return buf;
}

int
topo_path_parse(const char *s, int *nv)
{
	int i;

	*nv = 0;
	if (!strncmp(s, "NV", 2) && s[2]) {
		char *end;
		long v = strtol(s + 2, &end, 10);

		if (*end || v < 1 || v > 1000 || s[2] == '+' || s[2] == '-')
			return -1;
		*nv = (int)v;
		return TOPO_NV;
	}
	for (i = 0; i <= TOPO_SYS; i++)
		if (i != TOPO_NV && !strcmp(s, path_names[i]))
			return i;
	return -1;
}

/* ---- writing ---- */

static void
write_pcie(struct yml_out *o, const struct topo_pcie *p)
{
	yml_out_str(o, "pcie");
	yml_out_map(o, 1);
	yml_out_kint(o, "gen", p->gen);
	yml_out_kint(o, "width", p->width);
	yml_out_kint(o, "max_gen", p->max_gen);
	yml_out_kint(o, "max_width", p->max_width);
	yml_out_kdbl(o, "gb_s", p->gb_s);
	yml_out_end_map(o);
}

int
topo_node_write(const struct topo_node *n, const char *path)
{
	struct yml_out o;
	int i, j, nd = topo_node_ndev(n);
	char buf[16];

	if (yml_out_open(&o, path))
		return -1;
	yml_out_map(&o, 0);
	yml_out_kstr(&o, "format", "pd2bw-node/1");
	if (n->host && !pd2bw_deterministic())
		yml_out_kstr(&o, "host", n->host);
	if (n->gpu)
		yml_out_kstr(&o, "gpu", n->gpu);
	yml_out_kint(&o, "gpu_mem_bytes", n->gpu_mem_bytes);
	yml_out_kint(&o, "numa_nodes", n->numa_nodes);
	yml_out_kint(&o, "nvswitches", n->nvswitches);
	yml_out_kstr(&o, "links_from", topo_links_from_names[n->links_from]);
	yml_out_str(&o, "gpus");
	yml_out_seq(&o, 0);
	for (i = 0; i < n->ngpus; i++) {
		const struct topo_gpu *g = &n->gpus[i];
		char id[16];

		yml_out_map(&o, 0);
		yml_out_kstr(&o, "pci", g->pci ? g->pci : "");
		yml_out_kstr(&o, "name", g->name ? g->name : "");
		snprintf(id, sizeof(id), "%04x:%04x", g->vendor_id & 0xffff,
			 g->device_id & 0xffff);
		yml_out_kstr(&o, "pci_id", id);
		yml_out_kint(&o, "numa", g->numa);
		yml_out_kstr(&o, "cpus", g->cpus ? g->cpus : "");
		write_pcie(&o, &g->pcie);
		yml_out_kint(&o, "nvlinks", g->nvlinks);
		yml_out_kdbl(&o, "nvlink_gb_s", g->nvlink_gb_s);
		yml_out_kint(&o, "mem_bytes", g->mem_bytes);
		yml_out_end_map(&o);
	}
	yml_out_end_seq(&o);
	yml_out_str(&o, "nics");
	yml_out_seq(&o, 0);
	for (i = 0; i < n->nnics; i++) {
		const struct topo_nic *c = &n->nics[i];

		yml_out_map(&o, 0);
		yml_out_kstr(&o, "name", c->name ? c->name : "");
		yml_out_kstr(&o, "pci", c->pci ? c->pci : "");
		yml_out_kstr(&o, "kind", nic_kinds[c->infiniband ? 1 : 0]);
		yml_out_kdbl(&o, "rate_gbit_s", c->rate_gbit_s);
		yml_out_kint(&o, "numa", c->numa);
		yml_out_kstr(&o, "cpus", c->cpus ? c->cpus : "");
		yml_out_str(&o, "gpus");
		yml_out_seq(&o, 1);
		for (j = 0; j < c->ngpus; j++)
			yml_out_int(&o, c->gpus[j]);
		yml_out_end_seq(&o);
		yml_out_end_map(&o);
	}
	yml_out_end_seq(&o);
	yml_out_str(&o, "bandwidth_gb_s");
	yml_out_seq(&o, 0);
	for (i = 0; i < n->ngpus; i++) {
		yml_out_seq(&o, 1);
		for (j = 0; j < n->ngpus; j++)
			yml_out_dbl(&o, n->gb_s[i * n->ngpus + j]);
		yml_out_end_seq(&o);
	}
	yml_out_end_seq(&o);
	yml_out_str(&o, "paths");
	yml_out_seq(&o, 0);
	for (i = 0; i < nd; i++) {
		yml_out_seq(&o, 1);
		for (j = 0; j < nd; j++) {
			int nv = i < n->ngpus && j < n->ngpus
					 ? n->nvlinks[i * n->ngpus + j]
					 : 0;

			yml_out_str(&o, topo_path_name(n->paths[i * nd + j],
						       nv, buf));
		}
		yml_out_end_seq(&o);
	}
	yml_out_end_seq(&o);
	yml_out_end_map(&o);
	return yml_out_close(&o);
}

/* ---- reading ---- */

static int
read_gpu(struct yml_doc *d, yaml_node_t *m, struct topo_gpu *g)
{
	yaml_node_t *pcie = NULL;
	char *id = NULL;
	unsigned v, dv;
	int ret = -1;
	struct yml_key keys[] = {
		YK_STR("pci", 1, &g->pci),
		YK_STR("name", 1, &g->name),
		YK_STR("pci_id", 1, &id),
		YK_INT("numa", 1, &g->numa, -1, 1 << 20),
		YK_STR("cpus", 1, &g->cpus),
		YK_MAP("pcie", 1, &pcie),
		YK_INT("nvlinks", 0, &g->nvlinks, 0, 1000),
		YK_DBL("nvlink_gb_s", 0, &g->nvlink_gb_s, 0, 1e9),
		YK_I64("mem_bytes", 0, &g->mem_bytes, 0, 1e18),
	};
	struct yml_key pkeys[] = {
		YK_INT("gen", 1, &g->pcie.gen, 0, 64),
		YK_INT("width", 1, &g->pcie.width, 0, 64),
		YK_INT("max_gen", 1, &g->pcie.max_gen, 0, 64),
		YK_INT("max_width", 1, &g->pcie.max_width, 0, 64),
		YK_DBL("gb_s", 1, &g->pcie.gb_s, 0, 1e6),
	};

	if (yml_map(d, m, keys, sizeof(keys) / sizeof(keys[0])) ||
	    yml_map(d, pcie, pkeys, sizeof(pkeys) / sizeof(pkeys[0])))
		goto out;
	if (sscanf(id, "%4x:%4x", &v, &dv) != 2 || strlen(id) != 9) {
		yml_err(d, yml_get(d, m, "pci_id"),
			"bad pci_id '%s' (expected vvvv:dddd)", id);
		goto out;
	}
	g->vendor_id = v;
	g->device_id = dv;
	ret = 0;
out:
	free(id);
	return ret;
}

static int
read_nic(struct yml_doc *d, yaml_node_t *m, struct topo_nic *c, int ngpus)
{
	yaml_node_t *gpus = NULL;
	size_t i;
	struct yml_key keys[] = {
		YK_STR("name", 1, &c->name),
		YK_STR("pci", 1, &c->pci),
		YK_ENUM("kind", 1, &c->infiniband, nic_kinds),
		YK_DBL("rate_gbit_s", 1, &c->rate_gbit_s, 0, 1e6),
		YK_INT("numa", 1, &c->numa, -1, 1 << 20),
		YK_STR("cpus", 1, &c->cpus),
		YK_SEQ("gpus", 1, &gpus),
	};

	if (yml_map(d, m, keys, sizeof(keys) / sizeof(keys[0])))
		return -1;
	c->ngpus = (int)yml_seq_len(gpus);
	c->gpus = xcalloc((size_t)c->ngpus, sizeof(int));
	for (i = 0; i < (size_t)c->ngpus; i++)
		if (yml_to_int(d, yml_seq_item(d, gpus, i), &c->gpus[i], 0,
			       ngpus - 1))
			return -1;
	return 0;
}

static int
read_doc(struct topo_node *n, struct yml_doc *d)
{
	yaml_node_t *root, *gpus = NULL, *nics = NULL, *bw = NULL;
	yaml_node_t *paths = NULL, *fmt = NULL;
	int i, j, nd;
	struct yml_key keys[] = {
		YK_ANY("format", 1, &fmt),
		YK_STR("host", 0, &n->host),
		YK_STR("gpu", 0, &n->gpu),
		YK_I64("gpu_mem_bytes", 1, &n->gpu_mem_bytes, 0, 1e18),
		YK_INT("numa_nodes", 1, &n->numa_nodes, 0, 1 << 20),
		YK_INT("nvswitches", 1, &n->nvswitches, 0, 1 << 20),
		YK_ENUM("links_from", 1, &n->links_from,
			topo_links_from_names),
		YK_SEQ("gpus", 1, &gpus),
		YK_SEQ("nics", 1, &nics),
		YK_SEQ("bandwidth_gb_s", 1, &bw),
		YK_SEQ("paths", 1, &paths),
	};

	root = yml_root(d);
	if (!root || yml_check_format(d, root, "node", 1) < 0 ||
	    yml_map(d, root, keys, sizeof(keys) / sizeof(keys[0])))
		return -1;
	{
		/* Parse into locals first: topo_node_alloc resets counts. */
		char *host = n->host, *gpu = n->gpu;
		int64_t mem = n->gpu_mem_bytes;
		int numa = n->numa_nodes, sw = n->nvswitches;
		int from = n->links_from;

		topo_node_alloc(n, (int)yml_seq_len(gpus),
				(int)yml_seq_len(nics));
		n->host = host;
		n->gpu = gpu;
		n->gpu_mem_bytes = mem;
		n->numa_nodes = numa;
		n->nvswitches = sw;
		n->links_from = from;
	}
	for (i = 0; i < n->ngpus; i++)
		if (read_gpu(d, yml_seq_item(d, gpus, (size_t)i),
			     &n->gpus[i]))
			return -1;
	for (i = 0; i < n->nnics; i++)
		if (read_nic(d, yml_seq_item(d, nics, (size_t)i), &n->nics[i],
			     n->ngpus))
			return -1;
	if (yml_expect_seq(d, bw, n->ngpus))
		return -1;
	for (i = 0; i < n->ngpus; i++) {
		yaml_node_t *row = yml_seq_item(d, bw, (size_t)i);

		if (yml_expect_seq(d, row, n->ngpus))
			return -1;
		for (j = 0; j < n->ngpus; j++) {
			yaml_node_t *v = yml_seq_item(d, row, (size_t)j);
			double *dst = &n->gb_s[i * n->ngpus + j];

			if (yml_to_dbl(d, v, dst, 0, 1e9))
				return -1;
			if (i == j && *dst != 0)
				return yml_err(d, v,
					       "bandwidth of GPU %d to itself "
					       "must be 0",
					       i);
		}
	}
	nd = topo_node_ndev(n);
	if (yml_expect_seq(d, paths, nd))
		return -1;
	for (i = 0; i < nd; i++) {
		yaml_node_t *row = yml_seq_item(d, paths, (size_t)i);

		if (yml_expect_seq(d, row, nd))
			return -1;
		for (j = 0; j < nd; j++) {
			yaml_node_t *v = yml_seq_item(d, row, (size_t)j);
			const char *s = yml_scalar(v);
			int nv, p = s ? topo_path_parse(s, &nv) : -1;

			if (p < 0)
				return yml_err(d, v, "bad path class '%s'",
					       s ? s : "");
			if ((p == TOPO_X) != (i == j))
				return yml_err(d, v,
					       "path X is only for a device "
					       "to itself");
			if (p == TOPO_NV && (i >= n->ngpus || j >= n->ngpus))
				return yml_err(d, v,
					       "NVLink path to a NIC");
			n->paths[i * nd + j] = p;
			if (i < n->ngpus && j < n->ngpus)
				n->nvlinks[i * n->ngpus + j] = nv;
		}
	}
	return 0;
}

int
topo_node_load(struct topo_node *n, const char *path)
{
	struct yml_doc d;
	int ret;

	topo_node_init(n);
	ret = yml_load_file(&d, path);
	if (!ret)
		ret = read_doc(n, &d);
	yml_release(&d);
	if (ret)
		topo_node_release(n);
	return ret;
}

int
topo_node_load_string(struct topo_node *n, const char *name, const char *buf,
		      size_t len)
{
	struct yml_doc d;
	int ret;

	topo_node_init(n);
	ret = yml_load_string(&d, name, buf, len);
	if (!ret)
		ret = read_doc(n, &d);
	yml_release(&d);
	if (ret)
		topo_node_release(n);
	return ret;
}
