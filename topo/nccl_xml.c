/*
 * nccl_xml.c - NCCL topology XML from a node description: one <cpu> per
 * NUMA node, under it the PCIe switches the node's path classes imply
 * (devices at PIX under one switch, groups at PXB under a switch of
 * switches), a <pci> per GPU (with its <nvlink>s) and per NIC (with its
 * <net>).  What is unknown is left out, so NCCL detects it instead of
 * taking a placeholder for the truth.
 *
 * Element and attribute names as NCCL reads them (NVIDIA/nccl 5067397,
 * src/graph/xml.cc, topo.cc; tests/topo/nccl_paths.py derives NCCL's path
 * types from the output by the rules of paths.cc).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/afile.h"
#include "pd2bw/error.h"
#include "pd2bw/xml.h"
#include "nccl_xml.h"

#define MAX_CPUS 4096

int
topo_cpumask(const char *list, char *buf, size_t len)
{
	unsigned char bits[MAX_CPUS / 8];
	const char *s = list;
	int hi = 0, w, words, i;
	size_t off = 0;

	memset(bits, 0, sizeof(bits));
	while (*s) {
		char *end;
		long a, b;

		errno = 0;
		a = strtol(s, &end, 10);
		if (end == s || errno || a < 0 || a >= MAX_CPUS)
			return -1;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || errno || b < a || b >= MAX_CPUS)
				return -1;
		}
		for (i = (int)a; i <= (int)b; i++)
			bits[i / 8] |= (unsigned char)(1u << (i % 8));
		if (b > hi)
			hi = (int)b;
		if (*end == ',')
			end++;
		else if (*end)
			return -1;
		s = end;
	}
	words = hi / 32 + 1;
	for (w = words - 1; w >= 0; w--) {
		unsigned v = 0;

		for (i = 0; i < 4; i++)
			v |= (unsigned)bits[w * 4 + i] << (8 * i);
		if (off + 10 > len)
			return -1;
		off += (size_t)snprintf(buf + off, len - off, "%s%08x",
					w == words - 1 ? "" : ",", v);
	}
	return 0;
}

/* Compute capability (as NCCL's "sm") from the catalog name's family;
 * 0 when unknown (then the attribute is left out and NCCL reads it from
 * the device). */
static int
sm_of(const char *gpu)
{
	if (!gpu)
		return 0;
	if (!strncmp(gpu, "V100", 4))
		return 70;
	if (!strncmp(gpu, "A100", 4))
		return 80;
	if (!strncmp(gpu, "L40", 3))
		return 89;
	if (!strncmp(gpu, "H100", 4) || !strncmp(gpu, "H200", 4) ||
	    !strncmp(gpu, "H800", 4) || !strncmp(gpu, "GH200", 5))
		return 90;
	if (!strncmp(gpu, "B200", 4))
		return 100;
	return 0;
}

/* NCCL's link_speed names (topo.cc kvDictPciGen); NULL when unknown. */
static const char *
gen_name(int gen)
{
	static const char *const names[] = {
		NULL,		  "2.5 GT/s PCIe",  "5.0 GT/s PCIe",
		"8.0 GT/s PCIe",  "16.0 GT/s PCIe", "32.0 GT/s PCIe",
		"64.0 GT/s PCIe",
	};

	return gen >= 1 && gen <= 6 ? names[gen] : NULL;
}

/* Attribute name="value", the value escaped for XML (xml.h). */
static void
attr(FILE *fp, const char *name, const char *value)
{
	fprintf(fp, " %s=\"", name);
	xml_escape(fp, value, 0);
	fputc('"', fp);
}

/* link_speed and link_width when known: NCCL fills in what is left out
 * from sysfs (xml.cc), while a written "Unknown" or 0 caps the link. */
static void
link_attrs(FILE *fp, int gen, int width)
{
	char w[16];

	if (!gen_name(gen) || width <= 0)
		return;
	snprintf(w, sizeof(w), "%d", width);
	attr(fp, "link_speed", gen_name(gen));
	attr(fp, "link_width", w);
}

static void
indent(FILE *fp, int depth)
{
	int i;

	for (i = 0; i < depth; i++)
		fputs("  ", fp);
}

static void
write_gpu(FILE *fp, const struct topo_node *n, int i, int depth)
{
	const struct topo_gpu *g = &n->gpus[i];
	int j, g2 = n->ngpus, sm = sm_of(n->gpu);
	char buf[32];

	indent(fp, depth);
	fputs("<pci", fp);
	attr(fp, "busid", g->pci);
	attr(fp, "class", "0x030200");
	if (g->vendor_id) {
		snprintf(buf, sizeof(buf), "0x%04x", g->vendor_id);
		attr(fp, "vendor", buf);
		snprintf(buf, sizeof(buf), "0x%04x", g->device_id);
		attr(fp, "device", buf);
	}
	link_attrs(fp, g->pcie.max_gen, g->pcie.max_width);
	fputs(">\n", fp);
	indent(fp, depth + 1);
	fprintf(fp, "<gpu dev=\"%d\"", i);
	if (sm)
		fprintf(fp, " sm=\"%d\"", sm);
	fprintf(fp, " rank=\"%d\">\n", i);
	if (n->nvswitches) {
		/* NCCL joins every link of class NVSwitch into one switch
		 * node, whatever the target's address. */
		if (g->nvlinks) {
			indent(fp, depth + 2);
			fprintf(fp,
				"<nvlink target=\"ffffffff:ff:1f.0\" "
				"count=\"%d\" tclass=\"0x068000\"/>\n",
				g->nvlinks);
		}
	} else {
		for (j = 0; j < g2; j++)
			if (j != i && n->nvlinks[i * g2 + j]) {
				indent(fp, depth + 2);
				fputs("<nvlink", fp);
				attr(fp, "target", n->gpus[j].pci);
				fprintf(fp,
					" count=\"%d\" tclass=\"0x030200\"/>\n",
					n->nvlinks[i * g2 + j]);
			}
	}
	indent(fp, depth + 1);
	fputs("</gpu>\n", fp);
	indent(fp, depth);
	fputs("</pci>\n", fp);
}

static void
write_nic(FILE *fp, const struct topo_node *n, int k, int depth)
{
	const struct topo_nic *c = &n->nics[k];

	indent(fp, depth);
	fputs("<pci", fp);
	attr(fp, "busid", c->pci);
	attr(fp, "class", c->infiniband ? "0x020700" : "0x020000");
	fputs(">\n", fp);
	indent(fp, depth + 1);
	fputs("<nic>\n", fp);
	indent(fp, depth + 2);
	fputs("<net", fp);
	attr(fp, "name", c->name);
	fprintf(fp, " dev=\"%d\"", k);
	/* Mbit/s; left out when unknown (NCCL reads the device's). */
	if (c->rate_gbit_s > 0)
		fprintf(fp, " speed=\"%.0f\"", c->rate_gbit_s * 1000.0);
	fputs("/>\n", fp);
	indent(fp, depth + 1);
	fputs("</nic>\n", fp);
	indent(fp, depth);
	fputs("</pci>\n", fp);
}

/* Device x: a GPU (x < ngpus) or a NIC. */
static void
write_dev(FILE *fp, const struct topo_node *n, int x, int depth)
{
	if (x < n->ngpus)
		write_gpu(fp, n, x, depth);
	else
		write_nic(fp, n, x - n->ngpus, depth);
}

static int
numa_of(const struct topo_node *n, int x)
{
	return x < n->ngpus ? n->gpus[x].numa : n->nics[x - n->ngpus].numa;
}

/*
 * PCIe closeness of devices a and b: the path class when it describes
 * PCIe (GPU pairs joined by NVLink hide theirs: -1).
 */
static int
pcie_path(const struct topo_node *n, int a, int b)
{
	int p = topo_node_path(n, a, b);

	return p == TOPO_NV || p == TOPO_X ? -1 : p;
}

static int
find(int *up, int x)
{
	while (up[x] != x)
		x = up[x] = up[up[x]];
	return x;
}

/* Join a and b's groups when their path is at most level. */
static void
group(const struct topo_node *n, int *up, int level)
{
	int a, b, nd = topo_node_ndev(n);

	for (a = 0; a < nd; a++)
		up[a] = a;
	for (a = 0; a < nd; a++)
		for (b = a + 1; b < nd; b++) {
			int p = pcie_path(n, a, b);

			if (p >= 0 && p <= level && numa_of(n, a) == numa_of(n, b))
				up[find(up, a)] = find(up, b);
		}
}

/* Best link below a switch: the fastest known GPU link of its devices,
 * members of group g (by root in up). */
static void
switch_link(const struct topo_node *n, const int *sel, int nd, int *gen,
	    int *width)
{
	int x;

	*gen = *width = 0;
	for (x = 0; x < nd; x++)
		if (sel[x] && x < n->ngpus &&
		    n->gpus[x].pcie.max_gen * 100 + n->gpus[x].pcie.max_width >
			    *gen * 100 + *width) {
			*gen = n->gpus[x].pcie.max_gen;
			*width = n->gpus[x].pcie.max_width;
		}
}

/* A PCIe switch: node files keep the path classes, not the bridges'
 * addresses, so switches get addresses in PCI domain ffff, which no
 * device has. */
static void
open_switch(FILE *fp, const struct topo_node *n, const int *sel, int nd,
	    int id, int depth)
{
	char busid[32];
	int gen, width;

	snprintf(busid, sizeof(busid), "ffff:%02x:00.0", id & 0xff);
	indent(fp, depth);
	fputs("<pci", fp);
	attr(fp, "busid", busid);
	attr(fp, "class", "0x060400");
	switch_link(n, sel, nd, &gen, &width);
	link_attrs(fp, gen, width);
	fputs(">\n", fp);
}

static void
close_switch(FILE *fp, int depth)
{
	indent(fp, depth);
	fputs("</pci>\n", fp);
}

/*
 * The devices of one NUMA node: those sharing a switch (PIX) under one
 * switch, groups joined by several switches (PXB) under a switch of
 * switches, the rest directly under the CPU.
 */
static void
write_numa(FILE *fp, const struct topo_node *n, int numa, int *next_id)
{
	int nd = topo_node_ndev(n), x, y, z;
	int *pxb = xcalloc((size_t)nd, sizeof(int));
	int *pix = xcalloc((size_t)nd, sizeof(int));
	int *sel = xcalloc((size_t)nd, sizeof(int));
	int *done = xcalloc((size_t)nd, sizeof(int));

	group(n, pxb, TOPO_PXB);
	group(n, pix, TOPO_PIX);
	for (x = 0; x < nd; x++) {
		int members = 0, subs = 0;

		if (done[x] || numa_of(n, x) != numa)
			continue;
		for (y = 0; y < nd; y++) {
			sel[y] = numa_of(n, y) == numa &&
				 find(pxb, y) == find(pxb, x);
			members += sel[y];
			if (sel[y] && find(pix, y) == y)
				subs++;
		}
		if (members == 1) {
			write_dev(fp, n, x, 2);
			done[x] = 1;
			continue;
		}
		open_switch(fp, n, sel, nd, (*next_id)++, 2);
		for (y = 0; y < nd; y++) {
			int *in;

			if (!sel[y] || done[y])
				continue;
			if (subs == 1) {
				write_dev(fp, n, y, 3);
				done[y] = 1;
				continue;
			}
			/* One switch per PIX group below the top one. */
			in = xcalloc((size_t)nd, sizeof(int));
			for (z = 0; z < nd; z++)
				in[z] = sel[z] && find(pix, z) == find(pix, y);
			open_switch(fp, n, in, nd, (*next_id)++, 3);
			for (z = 0; z < nd; z++)
				if (in[z]) {
					write_dev(fp, n, z, 4);
					done[z] = 1;
				}
			close_switch(fp, 3);
			free(in);
		}
		close_switch(fp, 2);
	}
	free(pxb);
	free(pix);
	free(sel);
	free(done);
}

int
topo_nccl_xml_write(const struct topo_node *n, const char *path)
{
	struct afile f;
	int numa, i, maxnuma = -1, next_id = 1;

	for (i = 0; i < n->ngpus; i++)
		if (n->gpus[i].numa > maxnuma)
			maxnuma = n->gpus[i].numa;
	for (i = 0; i < n->nnics; i++)
		if (n->nics[i].numa > maxnuma)
			maxnuma = n->nics[i].numa;
	/* Check the CPU lists before opening anything. */
	for (i = 0; i < topo_node_ndev(n); i++) {
		const char *cpus = i < n->ngpus ? n->gpus[i].cpus
						: n->nics[i - n->ngpus].cpus;
		char mask[MAX_CPUS / 4 + MAX_CPUS / 32 + 1];

		if (!cpus || topo_cpumask(cpus, mask, sizeof(mask)))
			return pd2bw_error("bad CPU list '%s'",
					   cpus ? cpus : "");
	}
	if (afile_open(&f, path))
		return -1;
	fprintf(f.fp, "<system version=\"1\">\n");
	/* numa -1 (unknown) comes first as NUMA node 0's neighbour. */
	for (numa = -1; numa <= maxnuma; numa++) {
		const char *cpus = NULL;
		char mask[MAX_CPUS / 4 + MAX_CPUS / 32 + 1];
		int any = 0;

		for (i = 0; i < n->ngpus && !any; i++)
			if (n->gpus[i].numa == numa)
				any = 1, cpus = n->gpus[i].cpus;
		for (i = 0; i < n->nnics && !any; i++)
			if (n->nics[i].numa == numa)
				any = 1, cpus = n->nics[i].cpus;
		if (!any)
			continue;
		topo_cpumask(cpus, mask, sizeof(mask));
		fprintf(f.fp, "  <cpu numaid=\"%d\" affinity=\"%s\">\n",
			numa < 0 ? 0 : numa, mask);
		write_numa(f.fp, n, numa, &next_id);
		fprintf(f.fp, "  </cpu>\n");
	}
	fprintf(f.fp, "</system>\n");
	return afile_commit(&f);
}
