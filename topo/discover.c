/*
 * discover.c - node discovery with hwloc (I/O filter KEEP_ALL): NVIDIA GPUs
 * and NVSwitches found as PCI devices, NICs with their verbs or network
 * names, locality, PCIe links (sysfs for the maximum), nvidia-smi style path
 * classes from the common ancestor of two devices, and NVLinks from hwloc's
 * "NVLinkBandwidth" distances or else from NVML.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwloc.h>

#include "pd2bw/catalog.h"
#include "pd2bw/error.h"
#include "pd2bw/infile.h"
#include "discover.h"
#include "nvml.h"
#include "sysfs.h"

#define NVIDIA 0x10de

/* Per-direction bandwidth that hwloc's NVML backend reports per link
 * (MB/s) for NVLink 2 to 4; used to turn bandwidth into link counts. */
#define HWLOC_LINK_MB_S 25000.0

/* Catalog names (catalog.h) of the NVIDIA parts pd2bw knows. */
static const struct {
	unsigned id;
	const char *name;
} gpu_ids[] = {
	{0x1db1, "V100-16GB"}, {0x1db4, "V100-16GB"}, {0x1db5, "V100-32GB"},
	{0x1db6, "V100-32GB"}, {0x1db8, "V100-32GB"}, {0x20b0, "A100-40GB"},
	{0x20f1, "A100-40GB"}, {0x20b2, "A100-80GB"}, {0x20b5, "A100-80GB"},
	{0x2330, "H100-SXM"},  {0x2335, "H200"},      {0x26b9, "L40S"},
	{0x2324, "H800"},      {0x2342, "GH200"},     {0x2348, "GH200-144GB"},
};

const char *
topo_gpu_guess(unsigned device_id)
{
	size_t i;

	for (i = 0; i < sizeof(gpu_ids) / sizeof(gpu_ids[0]); i++)
		if (gpu_ids[i].id == device_id)
			return gpu_ids[i].name;
	return NULL;
}

enum { D_GPU, D_SWITCH, D_NIC };

struct ctx {
	hwloc_topology_t t;
	hwloc_obj_t *dev;   /* GPUs then NICs, as in the node */
	hwloc_obj_t *sw;
	int nsw;
	double *direct;     /* [g*g] NVLink GB/s GPU to GPU */
	double *dlinks;     /* [g*g] NVLinks GPU to GPU */
	double *swbw;       /* [g] NVLink GB/s GPU to switches */
	double *swlinks;    /* [g] */
};

static int
kind_of(hwloc_obj_t o)
{
	unsigned cls = o->attr->pcidev.class_id;

	if (o->attr->pcidev.vendor_id == NVIDIA && cls >> 8 == 0x03)
		return D_GPU;
	if (o->attr->pcidev.vendor_id == NVIDIA && cls == 0x0680)
		return D_SWITCH;
	if (cls >> 8 == 0x02)
		return D_NIC;
	return -1;
}

static unsigned long long
bus_key(hwloc_obj_t o)
{
	const struct hwloc_pcidev_attr_s *p = &o->attr->pcidev;

	return ((unsigned long long)p->domain << 24) |
	       ((unsigned long long)p->bus << 16) |
	       ((unsigned long long)p->dev << 8) | p->func;
}

static int
cmp_bus(const void *a, const void *b)
{
	unsigned long long x = bus_key(*(hwloc_obj_t const *)a);
	unsigned long long y = bus_key(*(hwloc_obj_t const *)b);

	return x < y ? -1 : x > y;
}

static char *
bus_id(hwloc_obj_t o)
{
	const struct hwloc_pcidev_attr_s *p = &o->attr->pcidev;
	char buf[32];

	snprintf(buf, sizeof(buf), "%04x:%02x:%02x.%x", p->domain & 0xffffu,
		 p->bus, p->dev, p->func);
	return xstrdup(buf);
}

/* NUMA node (OS index) and CPU list of the place an I/O object hangs. */
static void
locality(hwloc_topology_t t, hwloc_obj_t o, int *numa, char **cpus)
{
	hwloc_obj_t a = hwloc_get_non_io_ancestor_obj(t, o);
	char buf[4096];

	*numa = -1;
	buf[0] = 0;
	if (a && a->nodeset && hwloc_bitmap_weight(a->nodeset) == 1)
		*numa = hwloc_bitmap_first(a->nodeset);
	if (a && a->cpuset)
		hwloc_bitmap_list_snprintf(buf, sizeof(buf), a->cpuset);
	*cpus = xstrdup(buf);
}

/*
 * Guess generation and width from hwloc's link speed when sysfs cannot
 * say (XML from another machine): the widest link that matches, since
 * GPUs and NICs are mostly x16.
 */
static void
infer_pcie(double gb_s, struct topo_pcie *p)
{
	static const int widths[] = {16, 8, 4, 2, 1};
	int w, g;

	memset(p, 0, sizeof(*p));
	if (!(gb_s > 0))
		return;
	p->gb_s = gb_s;
	for (w = 0; w < 5; w++)
		for (g = 1; g <= 6; g++) {
			double want = topo_pcie_lane_gb_s(g) * widths[w];

			if (fabs(want - gb_s) <= 0.01 * want) {
				p->gen = p->max_gen = g;
				p->width = p->max_width = widths[w];
				return;
			}
		}
}

static int
count_bridges(hwloc_obj_t o, hwloc_obj_t stop)
{
	int n = 0;

	for (o = o->parent; o && o != stop; o = o->parent)
		if (o->type == HWLOC_OBJ_BRIDGE)
			n++;
	return n;
}

/*
 * The lowest object that is a or one of a's ancestors and also b or one of
 * b's.  hwloc_get_common_ancestor_obj() compares depths, and I/O objects
 * have negative virtual depths: when two devices hang at different numbers
 * of bridges below different packages it walks past the root (a NULL
 * dereference).  The parent chains are short, so walk them explicitly.
 */
static hwloc_obj_t
common_ancestor(hwloc_obj_t a, hwloc_obj_t b)
{
	hwloc_obj_t x;

	for (; a; a = a->parent)
		for (x = b; x; x = x->parent)
			if (x == a)
				return a;
	return NULL;
}

/* Path class between two PCI devices from their common ancestor. */
static int
pci_path(hwloc_topology_t t, hwloc_obj_t a, hwloc_obj_t b)
{
	hwloc_obj_t anc, na, nb;

	if (a == b)
		return TOPO_X;
	anc = common_ancestor(a, b);
	if (anc && anc->type == HWLOC_OBJ_BRIDGE) {
		if (anc->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST)
			return TOPO_PHB;
		/* One switch: each device right below a port of the
		 * bridge where the two paths meet. */
		if (count_bridges(a, anc) <= 1 && count_bridges(b, anc) <= 1)
			return TOPO_PIX;
		return TOPO_PXB;
	}
	if (anc && anc->type == HWLOC_OBJ_PCI_DEVICE)
		return TOPO_PIX;
	na = hwloc_get_non_io_ancestor_obj(t, a);
	nb = hwloc_get_non_io_ancestor_obj(t, b);
	if (na && nb && na->nodeset && nb->nodeset &&
	    hwloc_bitmap_isequal(na->nodeset, nb->nodeset))
		return TOPO_NODE;
	return TOPO_SYS;
}

/* Verbs (OpenFabrics) name first, else the network interface name. */
static void
nic_name(hwloc_obj_t o, struct topo_nic *c)
{
	hwloc_obj_t k;
	const char *net = NULL, *ib = NULL;

	for (k = o->io_first_child; k; k = k->next_sibling) {
		if (k->type != HWLOC_OBJ_OS_DEVICE || !k->name)
			continue;
		if (k->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS &&
		    !ib)
			ib = k->name;
		if (k->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK && !net)
			net = k->name;
	}
	c->infiniband = ib != NULL || o->attr->pcidev.class_id == 0x0207;
	if (ib)
		c->name = xstrdup(ib);
	else if (net)
		c->name = xstrdup(net);
	else
		c->name = bus_id(o);
}

static const char *
gpu_model(hwloc_obj_t o)
{
	hwloc_obj_t k;
	const char *s;

	for (k = o->io_first_child; k; k = k->next_sibling)
		if (k->type == HWLOC_OBJ_OS_DEVICE &&
		    (s = hwloc_obj_get_info_by_name(k, "GPUModel")))
			return s;
	return hwloc_obj_get_info_by_name(o, "PCIDevice");
}

/* The PCI device an object of a distances matrix stands for. */
static hwloc_obj_t
pci_of(hwloc_obj_t o)
{
	while (o && o->type == HWLOC_OBJ_OS_DEVICE)
		o = o->parent;
	return o && o->type == HWLOC_OBJ_PCI_DEVICE ? o : NULL;
}

static int
gpu_index(const struct ctx *c, int ngpus, hwloc_obj_t o)
{
	int i;

	for (i = 0; i < ngpus; i++)
		if (c->dev[i] == o)
			return i;
	return -1;
}

/* NVLinks from hwloc's distances.  1 when found, 0 when absent. */
static int
links_from_hwloc(struct ctx *c, int ngpus, int *nswitches)
{
	struct hwloc_distances_s *d = NULL;
	unsigned nr = 1, i, j, nb;
	int *map, any = 0, sws = 0;

	if (hwloc_distances_get_by_name(c->t, "NVLinkBandwidth", &nr, &d, 0) ||
	    nr == 0)
		return 0;
	nb = d->nbobjs;
	map = xcalloc(nb, sizeof(int));
	for (i = 0; i < nb; i++) {
		hwloc_obj_t p = pci_of(d->objs[i]);
		int g = p ? gpu_index(c, ngpus, p) : -1;

		/* Anything linked that is not one of our GPUs is a
		 * switch (NVSwitch); unknown objects count as switches. */
		map[i] = g >= 0 ? g : -2;
		if (g < 0)
			sws++;
	}
	for (i = 0; i < nb; i++)
		for (j = 0; j < nb; j++) {
			double v = (double)d->values[i * nb + j];
			int a = map[i], b = map[j];

			if (i == j || v <= 0)
				continue;
			if (a >= 0 && b >= 0) {
				c->direct[a * ngpus + b] += v / 1000.0;
				c->dlinks[a * ngpus + b] +=
					fmax(1, round(v / HWLOC_LINK_MB_S));
				any = 1;
			} else if (a >= 0) {
				c->swbw[a] += v / 1000.0;
				c->swlinks[a] += fmax(1, round(v / HWLOC_LINK_MB_S));
				any = 1;
			}
		}
	free(map);
	hwloc_distances_release(c->t, d);
	if (sws > *nswitches)
		*nswitches = sws;
	return any;
}

static int
same_pci(hwloc_obj_t o, unsigned dom, unsigned bus, unsigned dev)
{
	return o->attr->pcidev.domain == dom && o->attr->pcidev.bus == bus &&
	       o->attr->pcidev.dev == dev;
}

/* NVLinks from NVML.  1 when found, 0 when absent, -1 on error. */
static int
links_from_nvml(struct ctx *c, struct topo_node *n, const char *lib)
{
	struct topo_nvml_gpu *ng;
	int count, i, j, l, any = 0, r;
	int ngpus = n->ngpus;

	r = topo_nvml_query(lib, &ng, &count);
	if (r)
		return r > 0 ? 0 : -1;
	for (i = 0; i < count; i++) {
		int gi = -1;

		for (j = 0; j < ngpus; j++)
			if (same_pci(c->dev[j], ng[i].domain, ng[i].bus,
				     ng[i].dev))
				gi = j;
		if (gi < 0) {
			pd2bw_warn("NVML GPU %04x:%02x:%02x.0 is not in the "
				   "topology: ignored",
				   ng[i].domain, ng[i].bus, ng[i].dev);
			continue;
		}
		if (ng[i].mem_bytes)
			n->gpus[gi].mem_bytes = ng[i].mem_bytes;
		if (ng[i].name[0]) {
			free(n->gpus[gi].name);
			n->gpus[gi].name = xstrdup(ng[i].name);
		}
		for (l = 0; l < ng[i].nlinks; l++) {
			const struct topo_nvml_link *k = &ng[i].links[l];
			double bw = topo_nvlink_gb_s(k->version);
			int gj = -1;

			for (j = 0; j < ngpus; j++)
				if (same_pci(c->dev[j], k->domain, k->bus,
					     k->dev))
					gj = j;
			any = 1;
			if (gj >= 0 && gj != gi) {
				c->direct[gi * ngpus + gj] += bw;
				c->dlinks[gi * ngpus + gj] += 1;
			} else if (gj < 0) {
				c->swbw[gi] += bw;
				c->swlinks[gi] += 1;
			}
		}
	}
	free(ng);
	return any;
}

/*
 * Pair bandwidths: direct NVLinks plus, when both GPUs link to switches,
 * the smaller of their switch bandwidths (NVSwitch fabrics are
 * non-blocking); PCIe otherwise, limited by the slower of the two links.
 */
static void
fill_pairs(struct ctx *c, struct topo_node *n)
{
	int i, j, g = n->ngpus, nd = topo_node_ndev(n);

	for (i = 0; i < g; i++) {
		double links = c->swlinks[i], bw = c->swbw[i];

		for (j = 0; j < g; j++) {
			links += c->dlinks[i * g + j];
			bw += c->direct[i * g + j];
		}
		n->gpus[i].nvlinks = (int)links;
		n->gpus[i].nvlink_gb_s = bw;
	}
	for (i = 0; i < g; i++)
		for (j = 0; j < g; j++) {
			double bw = c->direct[i * g + j];
			double links = c->dlinks[i * g + j];
			double pa = n->gpus[i].pcie.gb_s;
			double pb = n->gpus[j].pcie.gb_s;

			if (i == j)
				continue;
			if (c->swbw[i] > 0 && c->swbw[j] > 0) {
				bw += fmin(c->swbw[i], c->swbw[j]);
				links += fmin(c->swlinks[i], c->swlinks[j]);
			}
			if (bw > 0) {
				n->paths[i * nd + j] = TOPO_NV;
				n->nvlinks[i * g + j] = (int)links;
				n->gb_s[i * g + j] = bw;
			} else {
				n->gb_s[i * g + j] =
					pa > 0 && pb > 0 ? fmin(pa, pb)
							 : fmax(pa, pb);
			}
		}
}

/*
 * Each GPU is served by the nearest fast NIC (rate at least a quarter of
 * the fastest, so 1 GbE management ports serve none); among equals, the
 * one serving fewest GPUs so far, then the first.
 */
static void
assign_nics(struct topo_node *n)
{
	int g, k, nd = topo_node_ndev(n);
	double fastest = 0;

	for (k = 0; k < n->nnics; k++)
		fastest = fmax(fastest, n->nics[k].rate_gbit_s);
	for (k = 0; k < n->nnics; k++)
		n->nics[k].gpus = xcalloc((size_t)n->ngpus, sizeof(int));
	for (g = 0; g < n->ngpus; g++) {
		int best = -1;

		for (k = 0; k < n->nnics; k++) {
			struct topo_nic *c = &n->nics[k];
			int p = n->paths[g * nd + n->ngpus + k];

			if (fastest > 0 && c->rate_gbit_s < fastest / 4)
				continue;
			if (best < 0) {
				best = k;
				continue;
			}
			{
				int bp = n->paths[g * nd + n->ngpus + best];

				if (p < bp || (p == bp && c->ngpus <
							 n->nics[best].ngpus))
					best = k;
			}
		}
		if (best >= 0) {
			struct topo_nic *c = &n->nics[best];

			c->gpus[c->ngpus++] = g;
		}
	}
}

static int
collect(struct ctx *c, hwloc_obj_t **gpus, int *ng, hwloc_obj_t **nics,
	int *nn)
{
	hwloc_obj_t o = NULL;
	size_t ag = 0, an = 0, as = 0;

	*gpus = *nics = NULL;
	*ng = *nn = 0;
	while ((o = hwloc_get_next_pcidev(c->t, o))) {
		switch (kind_of(o)) {
		case D_GPU:
			xgrow((void **)gpus, &ag, (size_t)*ng + 1,
			      sizeof(**gpus));
			(*gpus)[(*ng)++] = o;
			break;
		case D_SWITCH:
			xgrow((void **)&c->sw, &as, (size_t)c->nsw + 1,
			      sizeof(*c->sw));
			c->sw[c->nsw++] = o;
			break;
		case D_NIC:
			xgrow((void **)nics, &an, (size_t)*nn + 1,
			      sizeof(**nics));
			(*nics)[(*nn)++] = o;
			break;
		}
	}
	if (*ng)
		qsort(*gpus, (size_t)*ng, sizeof(**gpus), cmp_bus);
	if (*nn)
		qsort(*nics, (size_t)*nn, sizeof(**nics), cmp_bus);
	return 0;
}

/*
 * hwloc's XML reader gives no line or column (its built-in parser reports
 * none, and with libxml2 it silences libxml2's messages): say so, and
 * where its own reason can be seen.
 */
static int
bad_xml(const char *xml)
{
	return pd2bw_error("%s: not a valid hwloc XML topology (hwloc reports "
			   "no line or column; HWLOC_XML_VERBOSE=1 shows its "
			   "reason)",
			   xml);
}

/* A space to hwloc's XML parsers (and to strtoul). */
static int
xml_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

/* Where buf[off] is, 1-based, for a message. */
static void
xml_where(const char *buf, size_t off, size_t *line, size_t *col)
{
	size_t i, col0 = 0;

	*line = 1;
	for (i = 0; i < off; i++)
		if (buf[i] == '\n') {
			++*line;
			col0 = i + 1;
		}
	*col = off - col0 + 1;
}

/*
 * Does the tag text t[0..n) have the attribute name (name="...")?  A name
 * inside a quoted value does not count; one right after the closing quote
 * of the value before does, as hwloc's parser reads it.
 */
static int
has_attr(const char *t, size_t n, const char *name)
{
	size_t k = strlen(name), i;
	char q = 0;

	for (i = 1; i + k < n; i++) {
		if (q) {
			q = t[i] == q ? 0 : q;
			continue;
		}
		if (t[i] == '"' || t[i] == '\'') {
			q = t[i];
			continue;
		}
		if ((xml_space(t[i - 1]) || t[i - 1] == '"' ||
		     t[i - 1] == '\'') &&
		    !memcmp(t + i, name, k) && t[i + k] == '=')
			return 1;
	}
	return 0;
}

/*
 * The next attribute name="value" in buf from offset from on, anywhere
 * (inside or outside tags, in values too): name after a space, a quote or
 * a namespace colon, then '=' and a quote, with the spaces libxml2 allows
 * around '='.  Returns the offset of the name and its value's start in *v,
 * or -1.  This finds every attribute hwloc's parser or libxml2 would, and
 * more: checks built on it are stricter than hwloc, never looser (hwloc's
 * exports escape the quotes a value would need to fake one).
 */
static long
xml_attr(const char *buf, size_t len, const char *name, size_t from,
	 const char **v)
{
	size_t k = strlen(name), i, j;
	const char *p;

	for (i = from; i < len && (p = memchr(buf + i, name[0], len - i));
	     i = (size_t)(p - buf) + 1) {
		size_t at = (size_t)(p - buf);

		if (len - at < k || memcmp(p, name, k) ||
		    (at > 0 && !xml_space(buf[at - 1]) &&
		     !strchr("\"':", buf[at - 1])))
			continue;
		for (j = at + k; j < len && xml_space(buf[j]); j++)
			;
		if (j >= len || buf[j] != '=')
			continue;
		for (j++; j < len && xml_space(buf[j]); j++)
			;
		if (j >= len || (buf[j] != '"' && buf[j] != '\''))
			continue;
		*v = buf + j + 1;
		return (long)at;
	}
	return -1;
}

/*
 * The number an attribute value at v (buf ends at end) stands for to
 * hwloc, which reads it with strtoul(v, NULL, 10) after unescaping (&#9;,
 * &#10;, &#13; are spaces); saturated at ULONG_MAX.  A minus sign before
 * anything but zero (strtoul wraps it) and any other character reference
 * near the digits (libxml2 would make digits of it) give ULONG_MAX.
 */
static unsigned long
xml_number(const char *v, const char *end)
{
	unsigned long x = 0;
	int neg = 0, any = 0;

	for (;;) {
		if (v < end && xml_space(*v))
			v++;
		else if (end - v >= 4 && !memcmp(v, "&#9;", 4))
			v += 4;
		else if (end - v >= 5 && (!memcmp(v, "&#10;", 5) ||
					  !memcmp(v, "&#13;", 5)))
			v += 5;
		else
			break;
	}
	if (v < end && (*v == '+' || *v == '-'))
		neg = *v++ == '-';
	for (; v < end && *v >= '0' && *v <= '9'; v++) {
		unsigned d = (unsigned)(*v - '0');

		x = x > (ULONG_MAX - d) / 10 ? ULONG_MAX : x * 10 + d;
		any |= d != 0;
	}
	if (v < end && *v == '&')
		return ULONG_MAX;
	return neg && any ? ULONG_MAX : x;
}

/* How much of a value at v to quote in a message: printable, at most 24. */
static int
xml_quote_len(const char *v, const char *end)
{
	int m = 0;

	while (m < 24 && v + m < end && v[m] >= 0x20 && v[m] < 0x7f &&
	       v[m] != '"' && v[m] != '\'')
		m++;
	return m;
}

/*
 * Does hwloc's own parser reach attribute name in the object tag t[0..n)
 * ("<object ...", up to its '>')?  It reads name="value" pairs one after
 * another from a space after the tag name, and stops at the first one that
 * is not such a pair or whose value holds an escape it does not know.
 */
static int
xml_reaches(const char *t, size_t n, const char *name)
{
	static const char *const esc[] = {"#10;", "#13;", "#9;", "quot;",
					  "lt;", "gt;", "amp;"};
	size_t i = 7, k = strlen(name), m, e, j;
	const char *q;

	if (i >= n || t[i] != ' ')
		return 0;
	for (;;) {
		while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n'))
			i++;
		for (m = i; m < n && ((t[m] >= 'a' && t[m] <= 'z') ||
				      t[m] == '_');
		     m++)
			;
		if (m + 1 >= n || t[m] != '=' || t[m + 1] != '"')
			return 0;
		if (m - i == k && !memcmp(t + i, name, k))
			return 1;
		q = memchr(t + m + 2, '"', n - m - 2);
		if (!q)
			return 0;
		for (j = m + 2; j < (size_t)(q - t); j++) {
			if (t[j] != '&')
				continue;
			for (e = 0; e < sizeof(esc) / sizeof(esc[0]); e++)
				if ((size_t)(q - t) - j - 1 >= strlen(esc[e]) &&
				    !memcmp(t + j + 1, esc[e], strlen(esc[e])))
					break;
			if (e == sizeof(esc) / sizeof(esc[0]))
				return 0;
		}
		i = (size_t)(q - t) + 1;
	}
}

/*
 * Does some type="..." in the object tag t[0..n) make it a PU or a NUMA
 * node to hwloc_type_sscanf(), as hwloc reads it?  1 and that type in
 * *type, or 0.
 */
static int
xml_pu_or_numa(const char *t, size_t n, hwloc_obj_type_t *type)
{
	const char *v;
	char val[64];
	size_t from = 0, m;
	long a;

	while ((a = xml_attr(t, n, "type", from, &v)) >= 0) {
		from = (size_t)a + 1;
		for (m = 0; m < sizeof(val) - 1 && v + m < t + n &&
			    v[m] != '"' && v[m] != '\'' && v[m];
		     m++)
			val[m] = v[m];
		val[m] = 0;
		if (hwloc_type_sscanf(val, type, NULL, 0) == 0 &&
		    (*type == HWLOC_OBJ_PU || *type == HWLOC_OBJ_NUMANODE))
			return 1;
	}
	return 0;
}

/*
 * The largest os_index taken.  hwloc 2.9 sets bit os_index of a PU's cpuset
 * or a NUMA node's nodeset: os_index="4000000000" makes it build and walk
 * half-gigabyte bitmaps (4 s and 490 MB an import).  Linux numbers CPUs
 * below 8192 and NUMA nodes below 1024.
 */
#define XML_MAX_OS_INDEX 1048575UL

/*
 * What hwloc 2.9 cannot import safely or quickly, refused first with
 * file:line:col; each check is one pass over buf.
 *  - An object with a cpuset or nodeset but no complete_ counterpart (the
 *    root, a NUMA node): hwloc dereferences NULL.  hwloc's own exports
 *    always write the pairs.  Tags end at their first '>', as hwloc's
 *    parser has it, and the next starts after it.
 *  - An os_index above XML_MAX_OS_INDEX, or a PU or NUMA node without one:
 *    hwloc then takes 4294967295 (unknown) as the bit to set.
 *  - A distances matrix over more objects than the file has, or with more
 *    values than it could hold (each takes two bytes or more): hwloc
 *    allocates nbobjs * nbobjs values before it reads one (nbobjs="100000"
 *    in a 12 kB file: 11 GB, which the sanitizers take 30 s to poison).
 *  - Bytes that are not UTF-8, and control characters other than tab, CR
 *    and LF: not XML (the file says it is UTF-8), and hwloc hands them on
 *    in names that no YAML or XML writer can take.
 */
static int
check_xml(const char *xml, const char *buf, size_t len)
{
	static const char *const pairs[][2] = {
		{"cpuset", "complete_cpuset"},
		{"nodeset", "complete_nodeset"},
	};
	size_t i, n, nobj = 0, line, col, most_at = 0;
	unsigned long most = 0, x;
	const char *lt, *gt, *v;
	hwloc_obj_type_t type;
	long a;
	int k;

	for (i = 0; i < len && (lt = memchr(buf + i, '<', len - i));
	     i = gt ? (size_t)(gt - buf) + 1 : len) {
		i = (size_t)(lt - buf);
		gt = memchr(lt, '>', len - i);
		n = gt ? (size_t)(gt - lt) : len - i;
		if (n < 7 || memcmp(lt, "<object", 7) ||
		    (n > 7 && !xml_space(lt[7]) && lt[7] != '/'))
			continue;
		nobj++;
		for (k = 0; k < 2; k++)
			if (has_attr(lt, n, pairs[k][0]) &&
			    !has_attr(lt, n, pairs[k][1])) {
				xml_where(buf, i, &line, &col);
				return pd2bw_error("%s:%zu:%zu: object with "
						   "%s but no %s (hwloc "
						   "cannot import it)",
						   xml, line, col, pairs[k][0],
						   pairs[k][1]);
			}
		if (xml_pu_or_numa(lt, n, &type) &&
		    !xml_reaches(lt, n, "os_index")) {
			xml_where(buf, i, &line, &col);
			return pd2bw_error("%s:%zu:%zu: %s object without "
					   "os_index",
					   xml, line, col,
					   hwloc_obj_type_string(type));
		}
	}
	for (i = 0; (a = xml_attr(buf, len, "os_index", i, &v)) >= 0;
	     i = (size_t)a + 1)
		if (xml_number(v, buf + len) > XML_MAX_OS_INDEX) {
			xml_where(buf, (size_t)a, &line, &col);
			return pd2bw_error("%s:%zu:%zu: os_index \"%.*s\" is "
					   "not a number from 0 to %lu",
					   xml, line, col,
					   xml_quote_len(v, buf + len), v,
					   XML_MAX_OS_INDEX);
		}
	for (i = 0; (a = xml_attr(buf, len, "nbobjs", i, &v)) >= 0;
	     i = (size_t)a + 1) {
		x = xml_number(v, buf + len);
		if (x > most) {
			most = x;
			most_at = (size_t)a;
		}
	}
	if (most > nobj || (most > 1 && 2 * (unsigned long long)most * most -
						 1 > len)) {
		xml_where(buf, most_at, &line, &col);
		if (most > nobj)
			return pd2bw_error("%s:%zu:%zu: distances over %lu "
					   "objects, but the file has %zu",
					   xml, line, col, most, nobj);
		return pd2bw_error("%s:%zu:%zu: distances over %lu objects "
				   "need %llu values, more than the file holds",
				   xml, line, col, most,
				   (unsigned long long)most * most);
	}
	/* buf[len] is the NUL infile_read() adds: no sequence runs past it */
	for (i = 0; i < len; i += n) {
		const unsigned char *p = (const unsigned char *)buf + i;

		n = infile_utf8_len(p);
		if (n && (*p >= 0x20 || *p == '\t' || *p == '\n' ||
			  *p == '\r'))
			continue;
		xml_where(buf, i, &line, &col);
		if (n)
			return pd2bw_error("%s:%zu:%zu: control character "
					   "0x%02x, which XML does not allow",
					   xml, line, col, *p);
		return pd2bw_error("%s:%zu:%zu: not UTF-8 (byte 0x%02x)", xml,
				   line, col, *p);
	}
	return 0;
}

/*
 * hwloc's XML import dereferences NULL on some malformed files that
 * check_xml() cannot foresee (attributes it splits its own way).
 * Import buf once in a child first: if that child dies, say so instead of
 * crashing.  0 when the import is safe to do here, -1 after a message.
 */
static int
import_survives(const char *xml, const char *buf, size_t len)
{
	hwloc_topology_t t;
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 0; /* no guard, but no reason to refuse either */
	if (pid == 0) {
		/* a crash here just ends the child: no sanitizer or fuzzer
		 * handler inherited from the parent runs in it */
		static const int sigs[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE,
					   SIGILL};
		size_t k;

		for (k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++)
			signal(sigs[k], SIG_DFL);
		close(2); /* the parent's import says what hwloc says */
		if (hwloc_topology_init(&t))
			_exit(2);
		hwloc_topology_set_io_types_filter(t,
						   HWLOC_TYPE_FILTER_KEEP_ALL);
		if (hwloc_topology_set_xmlbuffer(t, buf, (int)len + 1) ||
		    hwloc_topology_load(t))
			_exit(2);
		hwloc_topology_destroy(t);
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 0;
	/* 0: imported, 2: refused cleanly (the import here says why);
	 * anything else is a crash (a signal, or the sanitizers' exit) */
	if (WIFEXITED(st) && (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 2))
		return 0;
	return pd2bw_error("%s: not a valid hwloc XML topology (hwloc crashed "
			   "reading it and reports no line or column)",
			   xml);
}

static int
load_topology(hwloc_topology_t *t, const char *xml)
{
	const char *file = NULL, *buf = NULL;
	size_t len = 0;
	int ret = 0;

	/* Read once (a FIFO works, an oversized file is refused) and hand
	 * hwloc the bytes, so its vague message for a missing file never
	 * shows. */
	if (xml) {
		file = buf = infile_read(xml, &len);
		if (!file)
			return -1;
		if (infile_text(xml, &buf, &len) ||
		    check_xml(xml, buf, len))
			goto fail;
		if (len >= INT_MAX) {
			ret = pd2bw_error("%s: too large for hwloc", xml);
			goto fail;
		}
		if (import_survives(xml, buf, len))
			goto fail;
	}
	if (hwloc_topology_init(t)) {
		ret = pd2bw_error("cannot initialise hwloc: %s",
				  strerror(errno));
		goto fail;
	}
	hwloc_topology_set_io_types_filter(*t, HWLOC_TYPE_FILTER_KEEP_ALL);
	/* the size hwloc wants counts the NUL infile_read() puts after */
	if (xml && hwloc_topology_set_xmlbuffer(*t, buf, (int)len + 1)) {
		hwloc_topology_destroy(*t);
		ret = bad_xml(xml);
		goto fail;
	}
	if (hwloc_topology_load(*t)) {
		int e = errno;

		hwloc_topology_destroy(*t);
		ret = xml ? bad_xml(xml)
			  : pd2bw_error("cannot discover the topology: %s",
					strerror(e));
		goto fail;
	}
	infile_release(file);
	return 0;
fail:
	infile_release(file);
	return ret ? ret : -1;
}

static void
set_host(struct topo_node *n, hwloc_topology_t t, int live)
{
	char buf[256];
	const char *h;

	if (live) {
		if (!gethostname(buf, sizeof(buf))) {
			buf[sizeof(buf) - 1] = 0;
			n->host = xstrdup(buf);
		}
		return;
	}
	h = hwloc_obj_get_info_by_name(hwloc_get_root_obj(t), "HostName");
	if (h)
		n->host = xstrdup(h);
}

static int
fill_devices(struct ctx *c, struct topo_node *n, const char *sysfs)
{
	int i, k;

	for (i = 0; i < n->ngpus; i++) {
		struct topo_gpu *g = &n->gpus[i];
		hwloc_obj_t o = c->dev[i];
		const char *model = gpu_model(o);
		char id[32];

		g->pci = bus_id(o);
		g->vendor_id = o->attr->pcidev.vendor_id;
		g->device_id = o->attr->pcidev.device_id;
		snprintf(id, sizeof(id), "NVIDIA %04x", g->device_id);
		g->name = xstrdup(model ? model : id);
		locality(c->t, o, &g->numa, &g->cpus);
		infer_pcie(o->attr->pcidev.linkspeed, &g->pcie);
		if (sysfs && topo_sysfs_pcie(sysfs, g->pci, &g->pcie) < 0)
			return -1;
	}
	for (k = 0; k < n->nnics; k++) {
		struct topo_nic *c2 = &n->nics[k];
		hwloc_obj_t o = c->dev[n->ngpus + k];

		nic_name(o, c2);
		c2->pci = bus_id(o);
		locality(c->t, o, &c2->numa, &c2->cpus);
		if (sysfs && topo_sysfs_nic_rate(sysfs, c2->name,
						 c2->infiniband,
						 &c2->rate_gbit_s) < 0)
			return -1;
	}
	return 0;
}

/*
 * GPU memory: what NVML measured, else the catalog's figure for the GPU
 * type, else 0 (unknown).
 */
static void
set_memory(struct topo_node *n)
{
	struct gpu_catalog cat;
	const struct gpu_spec *g;

	if (n->ngpus && n->gpus[0].mem_bytes) {
		n->gpu_mem_bytes = n->gpus[0].mem_bytes;
		return;
	}
	if (!n->gpu)
		return;
	catalog_init(&cat);
	g = catalog_find(&cat, n->gpu);
	if (g)
		n->gpu_mem_bytes = g->mem_bytes;
	catalog_release(&cat);
}

int
topo_discover(struct topo_node *n, const struct topo_discover_opts *o)
{
	struct ctx c;
	hwloc_obj_t *gpus = NULL, *nics = NULL;
	int ng = 0, nn = 0, i, j, nd, ret = -1, found;
	const char *sysfs = o->sysfs ? o->sysfs : o->xml ? NULL : "/sys";

	topo_node_init(n);
	memset(&c, 0, sizeof(c));
	if (load_topology(&c.t, o->xml))
		return -1;
	collect(&c, &gpus, &ng, &nics, &nn);
	topo_node_alloc(n, ng, nn);
	nd = ng + nn;
	c.dev = xcalloc((size_t)nd, sizeof(*c.dev));
	for (i = 0; i < ng; i++)
		c.dev[i] = gpus[i];
	for (i = 0; i < nn; i++)
		c.dev[ng + i] = nics[i];
	c.direct = xcalloc((size_t)ng * (size_t)ng, sizeof(double));
	c.dlinks = xcalloc((size_t)ng * (size_t)ng, sizeof(double));
	c.swbw = xcalloc((size_t)ng, sizeof(double));
	c.swlinks = xcalloc((size_t)ng, sizeof(double));
	set_host(n, c.t, !o->xml);
	n->numa_nodes = hwloc_get_nbobjs_by_type(c.t, HWLOC_OBJ_NUMANODE);
	n->nvswitches = c.nsw;
	if (fill_devices(&c, n, sysfs))
		goto out;
	for (i = 0; i < nd; i++)
		for (j = 0; j < nd; j++)
			n->paths[i * nd + j] = pci_path(c.t, c.dev[i], c.dev[j]);

	found = links_from_hwloc(&c, ng, &n->nvswitches);
	if (found)
		n->links_from = TOPO_FROM_HWLOC;
	else if (ng && (o->nvml_use == TOPO_NVML_ALWAYS ||
			(o->nvml_use == TOPO_NVML_AUTO && !o->xml))) {
		found = links_from_nvml(&c, n, o->nvml);
		if (found < 0)
			goto out;
		if (found)
			n->links_from = TOPO_FROM_NVML;
	}
	fill_pairs(&c, n);
	assign_nics(n);
	if (o->gpu) {
		n->gpu = xstrdup(o->gpu);
	} else if (ng) {
		const char *guess = topo_gpu_guess(n->gpus[0].device_id);

		if (guess)
			n->gpu = xstrdup(guess);
	}
	set_memory(n);
	ret = 0;
out:
	free(gpus);
	free(nics);
	free(c.dev);
	free(c.sw);
	free(c.direct);
	free(c.dlinks);
	free(c.swbw);
	free(c.swlinks);
	hwloc_topology_destroy(c.t);
	if (ret)
		topo_node_release(n);
	return ret;
}
