/*
 * merge.c - cluster descriptions from node descriptions: per-pair GPU
 * bandwidths, the network bandwidth each GPU gets from the NIC that serves
 * it, latencies by link kind; merging many nodes groups them by what they
 * report and says which groups differ.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/catalog.h"
#include "pd2bw/error.h"
#include "merge.h"

void
topo_net_init(struct topo_net *o)
{
	memset(o, 0, sizeof(*o));
	o->net_latency_us = -1;
	o->intra_latency_us = -1;
	o->oversubscription = 1;
}

static int64_t
catalog_mem(const char *gpu)
{
	struct gpu_catalog cat;
	const struct gpu_spec *g;
	int64_t mem = 0;

	catalog_init(&cat);
	g = catalog_find(&cat, gpu);
	if (g)
		mem = g->mem_bytes;
	catalog_release(&cat);
	return mem;
}

static int
fill_cluster(struct cluster *c, const struct topo_node *n, int nodes,
	     const struct topo_net *o, const char *what)
{
	int i, j, g = n->ngpus, any_nv = 0, ib = 0;
	double per_gpu = -1;

	if (!g)
		return pd2bw_error("%s: no GPUs found: cannot make a cluster",
				   what);
	if (g > CLUSTER_MAX_GPN || (int64_t)nodes * g > CLUSTER_MAX_GPUS)
		return pd2bw_error("%s: %d nodes of %d GPUs: more than pd2bw "
				   "plans for (%d GPUs, %d per node)",
				   what, nodes, g, CLUSTER_MAX_GPUS,
				   CLUSTER_MAX_GPN);
	c->gpu = xstrdup(o->gpu ? o->gpu : n->gpu ? n->gpu : "");
	if (!*c->gpu)
		return pd2bw_error("%s: unknown GPU type '%s' (PCI id "
				   "%04x:%04x): give --gpu NAME",
				   what, n->gpus[0].name, n->gpus[0].vendor_id,
				   n->gpus[0].device_id);
	c->gpu_mem_bytes = o->gpu_mem_bytes
				   ? o->gpu_mem_bytes
				   : o->gpu ? catalog_mem(o->gpu) : n->gpu_mem_bytes;
	if (!c->gpu_mem_bytes)
		return pd2bw_error("%s: memory of GPU type '%s' unknown: give "
				   "--gpu-mem BYTES",
				   what, c->gpu);
	c->name = xstrdup(o->name ? o->name : n->host ? n->host : "node");
	c->nodes = nodes;
	cluster_set_uniform(c, g, 0);
	for (i = 0; i < g; i++)
		for (j = 0; j < g; j++) {
			double bw = n->gb_s[i * g + j];

			if (i == j)
				continue;
			if (!(bw > 0))
				return pd2bw_error("%s: bandwidth between GPU "
						   "%d and GPU %d unknown",
						   what, i, j);
			c->intra_gb_s[i * g + j] = bw;
			if (topo_node_path(n, i, j) == TOPO_NV)
				any_nv = 1;
		}
	c->intra_kind = !any_nv ? CLUSTER_PCIE
			: n->nvswitches ? CLUSTER_NVSWITCH
					: CLUSTER_NVLINK;
	c->intra_latency_us = o->intra_latency_us >= 0 ? o->intra_latency_us
			      : c->intra_kind == CLUSTER_NVSWITCH ? 3
			      : c->intra_kind == CLUSTER_NVLINK   ? 5
								  : 8;
	/* NICs that serve GPUs and whose rate is known. */
	c->nics = xcalloc((size_t)n->nnics + 1, sizeof(*c->nics));
	for (i = 0; i < n->nnics; i++) {
		const struct topo_nic *k = &n->nics[i];
		struct cluster_nic *cn;
		double share;

		if (!k->ngpus || !(k->rate_gbit_s > 0))
			continue;
		cn = &c->nics[c->nnics++];
		cn->name = xstrdup(k->name);
		cn->rate_gbit_s = k->rate_gbit_s;
		cn->ngpus = k->ngpus;
		cn->gpus = xcalloc((size_t)k->ngpus, sizeof(int));
		memcpy(cn->gpus, k->gpus, (size_t)k->ngpus * sizeof(int));
		ib |= k->infiniband;
		/* The GPUs behind one NIC share it when all talk at once. */
		share = k->rate_gbit_s / 8.0 / k->ngpus;
		if (per_gpu < 0 || share < per_gpu)
			per_gpu = share;
	}
	if (o->net_gbit_s > 0)
		c->net_gb_s = o->net_gbit_s / 8.0;
	else
		c->net_gb_s = per_gpu > 0 ? per_gpu : 0;
	if (nodes > 1 && !(c->net_gb_s > 0))
		return pd2bw_error("%s: no NIC with a known rate serves the "
				   "GPUs: give --net-gbit RATE",
				   what);
	c->net_latency_us = o->net_latency_us >= 0 ? o->net_latency_us
			    : ib			? 5
							: 30;
	c->nodes_per_leaf = o->nodes_per_leaf;
	c->oversubscription = o->oversubscription;
	return 0;
}

int
topo_cluster_from_node(struct cluster *c, const struct topo_node *n,
		       int nodes, const struct topo_net *o)
{
	cluster_init(c);
	if (fill_cluster(c, n, nodes, o, n->host ? n->host : "node")) {
		cluster_release(c);
		return -1;
	}
	return 0;
}

/* ---- merging ---- */

/* A growing string. */
struct sb {
	char *s;
	size_t len, alloc;
};

static void sb_add(struct sb *b, const char *fmt, ...) PD2BW_PRINTF(2, 3);

static void
sb_add(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	xgrow((void **)&b->s, &b->alloc, b->len + (size_t)n + 1, 1);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

enum { S_GPUS, S_BW, S_NICS, S_PCIE, S_LINKS, NSIG };
static const char *const sig_what[] = {
	"GPUs", "GPU-GPU bandwidth (GB/s)", "NICs (name:Gbit/s:GPUs)",
	"PCIe links", "NVLink source"};

/* Space-separated tokens describing one aspect of a node. */
static char *
signature(const struct topo_node *n, const struct cluster *c, int which)
{
	struct sb b = {NULL, 0, 0};
	int i, j;

	sb_add(&b, "%s", "");
	switch (which) {
	case S_GPUS:
		sb_add(&b, "%dx%s", n->ngpus,
		       c->gpu			 ? c->gpu
		       : n->gpu			 ? n->gpu
		       : n->ngpus && n->gpus[0].name ? n->gpus[0].name
						 : "none");
		break;
	case S_BW:
		for (i = 0; i < n->ngpus; i++)
			for (j = 0; j < n->ngpus; j++)
				if (i != j)
					sb_add(&b, "%s%d-%d:%g", b.len ? " " : "",
					       i, j, n->gb_s[i * n->ngpus + j]);
		break;
	case S_NICS:
		for (i = 0; i < c->nnics; i++) {
			sb_add(&b, "%s%s:%g:", b.len ? " " : "",
			       c->nics[i].name, c->nics[i].rate_gbit_s);
			for (j = 0; j < c->nics[i].ngpus; j++)
				sb_add(&b, "%s%d", j ? "," : "",
				       c->nics[i].gpus[j]);
		}
		if (!b.len)
			sb_add(&b, "none");
		break;
	case S_PCIE:
		for (i = 0; i < n->ngpus; i++)
			sb_add(&b, "%sGPU%d:gen%dx%d", i ? " " : "", i,
			       n->gpus[i].pcie.max_gen,
			       n->gpus[i].pcie.max_width);
		break;
	case S_LINKS:
		sb_add(&b, "%s", topo_links_from_names[n->links_from]);
		break;
	}
	return b.s;
}

/* First token of a that differs from b, into buf. */
static void
first_diff(const char *a, const char *b, char *buf, size_t len)
{
	const char *sa = a, *sb = b;

	while (*a && *a == *b) {
		if (*a == ' ') {
			sa = a + 1;
			sb = b + 1;
		}
		a++;
		b++;
	}
	(void)sb;
	snprintf(buf, len, "%.*s", (int)strcspn(sa, " "), sa);
}

/*
 * Group the nodes by signature and, when there is more than one group,
 * print one line naming each group: how many nodes, one of them, and the
 * first item where it differs from the first group.  Returns the number of
 * groups.
 */
static int
report(int which, char **sig, const char *const *names, int count, int fatal)
{
	int *rep = xmalloc((size_t)count * sizeof(int));
	int *size = xcalloc((size_t)count, sizeof(int));
	int ng = 0, i, k;
	struct sb b = {NULL, 0, 0};

	for (i = 0; i < count; i++) {
		for (k = 0; k < ng; k++)
			if (!strcmp(sig[rep[k]], sig[i]))
				break;
		if (k == ng)
			rep[ng++] = i;
		size[k]++;
	}
	if (ng > 1) {
		sb_add(&b, "nodes differ in %s:", sig_what[which]);
		for (k = 0; k < ng && k < 8; k++) {
			char d[256];

			first_diff(sig[rep[k]], sig[rep[k ? 0 : 1]], d,
				   sizeof(d));
			sb_add(&b, "%s %d node%s like '%s' (%s)", k ? ";" : "",
			       size[k], size[k] == 1 ? "" : "s",
			       names[rep[k]], d);
		}
		if (ng > 8)
			sb_add(&b, "; and %d more groups", ng - 8);
		if (fatal)
			pd2bw_error("%s", b.s);
		else
			pd2bw_warn("%s; using the lowest figures", b.s);
	}
	free(b.s);
	free(rep);
	free(size);
	return ng;
}

int
topo_merge(struct cluster *c, const struct topo_node *nodes,
	   const char *const *names, int count, const struct topo_net *o)
{
	struct cluster *each;
	char **sig[NSIG];
	int i, j, k, g, s, ret = -1, ok = 1;

	cluster_init(c);
	if (count < 1)
		return pd2bw_error("no node files to merge");
	each = xcalloc((size_t)count, sizeof(*each));
	for (s = 0; s < NSIG; s++)
		sig[s] = xcalloc((size_t)count, sizeof(char *));
	/* GPU count and type first: nothing else compares without them. */
	for (i = 0; i < count; i++) {
		cluster_init(&each[i]);
		each[i].gpu = o->gpu ? xstrdup(o->gpu) : NULL;
		sig[S_GPUS][i] = signature(&nodes[i], &each[i], S_GPUS);
		cluster_release(&each[i]);
	}
	if (report(S_GPUS, sig[S_GPUS], names, count, 1) > 1)
		goto out;
	/* The first node that cannot make a cluster says why; one line
	 * for 1000 nodes alike is enough. */
	for (i = 0; i < count && ok; i++)
		if (fill_cluster(&each[i], &nodes[i], count, o, names[i]))
			ok = 0;
	if (!ok)
		goto out;
	for (s = S_BW; s < NSIG; s++)
		for (i = 0; i < count; i++)
			sig[s][i] = signature(&nodes[i], &each[i], s);
	for (s = S_BW; s < NSIG; s++)
		report(s, sig[s], names, count, 0);

	/* The first node, with the lowest figure of every node. */
	cluster_init(c);
	if (fill_cluster(c, &nodes[0], count, o, names[0]))
		goto out;
	g = c->gpus_per_node;
	for (i = 1; i < count; i++) {
		const struct cluster *e = &each[i];

		for (j = 0; j < g * g; j++)
			c->intra_gb_s[j] = fmin(c->intra_gb_s[j],
						e->intra_gb_s[j]);
		c->net_gb_s = fmin(c->net_gb_s, e->net_gb_s);
		c->intra_latency_us =
			fmax(c->intra_latency_us, e->intra_latency_us);
		c->net_latency_us = fmax(c->net_latency_us, e->net_latency_us);
		if (e->intra_kind > c->intra_kind)
			c->intra_kind = e->intra_kind;
		for (k = 0; k < c->nnics && k < e->nnics; k++)
			if (!strcmp(c->nics[k].name, e->nics[k].name))
				c->nics[k].rate_gbit_s =
					fmin(c->nics[k].rate_gbit_s,
					     e->nics[k].rate_gbit_s);
		c->gpu_mem_bytes = c->gpu_mem_bytes < e->gpu_mem_bytes
					   ? c->gpu_mem_bytes
					   : e->gpu_mem_bytes;
	}
	ret = 0;
out:
	for (i = 0; i < count; i++)
		cluster_release(&each[i]);
	free(each);
	for (s = 0; s < NSIG; s++) {
		for (i = 0; i < count; i++)
			free(sig[s][i]);
		free(sig[s]);
	}
	if (ret)
		cluster_release(c);
	return ret;
}
