/*
 * nccl_xml.c - NCCL topology XML from a node description: one <cpu> per
 * NUMA node, under it a <pci> per GPU (with its <nvlink>s) and per NIC
 * (with its <net>).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/afile.h"
#include "pd2bw/error.h"
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

/* Compute capability (as NCCL's "sm") from the catalog name's family. */
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
	if (!strncmp(gpu, "H100", 4) || !strncmp(gpu, "H200", 4))
		return 90;
	if (!strncmp(gpu, "B200", 4))
		return 100;
	return 0;
}

static void
write_gpu(FILE *fp, const struct topo_node *n, int i)
{
	const struct topo_gpu *g = &n->gpus[i];
	int j, g2 = n->ngpus;

	fprintf(fp,
		"    <pci busid=\"%s\" class=\"0x030200\" vendor=\"0x%04x\" "
		"device=\"0x%04x\" link_speed=\"%s\" link_width=\"%d\">\n",
		g->pci, g->vendor_id, g->device_id,
		g->pcie.max_gen == 1   ? "2.5 GT/s PCIe"
		: g->pcie.max_gen == 2 ? "5.0 GT/s PCIe"
		: g->pcie.max_gen == 3 ? "8.0 GT/s PCIe"
		: g->pcie.max_gen == 4 ? "16.0 GT/s PCIe"
		: g->pcie.max_gen == 5 ? "32.0 GT/s PCIe"
		: g->pcie.max_gen == 6 ? "64.0 GT/s PCIe"
				       : "Unknown",
		g->pcie.max_width);
	fprintf(fp, "      <gpu dev=\"%d\" sm=\"%d\" rank=\"%d\" gdr=\"1\">\n",
		i, sm_of(n->gpu), i);
	if (n->nvswitches) {
		/* NCCL joins every link of class NVSwitch into one switch
		 * node, whatever the target's address. */
		if (g->nvlinks)
			fprintf(fp,
				"        <nvlink target=\"ffffffff:ff:1f.0\" "
				"count=\"%d\" tclass=\"0x068000\"/>\n",
				g->nvlinks);
	} else {
		for (j = 0; j < g2; j++)
			if (j != i && n->nvlinks[i * g2 + j])
				fprintf(fp,
					"        <nvlink target=\"%s\" "
					"count=\"%d\" tclass=\"0x030200\"/>\n",
					n->gpus[j].pci, n->nvlinks[i * g2 + j]);
	}
	fprintf(fp, "      </gpu>\n    </pci>\n");
}

static void
write_nic(FILE *fp, const struct topo_node *n, int k)
{
	const struct topo_nic *c = &n->nics[k];

	fprintf(fp,
		"    <pci busid=\"%s\" class=\"%s\" link_speed=\"Unknown\" "
		"link_width=\"0\">\n"
		"      <nic>\n"
		"        <net name=\"%s\" dev=\"%d\" speed=\"%.0f\" port=\"1\" "
		"gdr=\"%d\"/>\n"
		"      </nic>\n    </pci>\n",
		c->pci, c->infiniband ? "0x020700" : "0x020000", c->name, k,
		c->rate_gbit_s * 1000.0, c->infiniband);
}

int
topo_nccl_xml_write(const struct topo_node *n, const char *path)
{
	struct afile f;
	int numa, i, maxnuma = -1;

	if (afile_open(&f, path))
		return -1;
	for (i = 0; i < n->ngpus; i++)
		if (n->gpus[i].numa > maxnuma)
			maxnuma = n->gpus[i].numa;
	for (i = 0; i < n->nnics; i++)
		if (n->nics[i].numa > maxnuma)
			maxnuma = n->nics[i].numa;
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
		if (!cpus || topo_cpumask(cpus, mask, sizeof(mask))) {
			afile_abort(&f);
			return pd2bw_error("bad CPU list '%s'",
					   cpus ? cpus : "");
		}
		fprintf(f.fp, "  <cpu numaid=\"%d\" affinity=\"%s\">\n",
			numa < 0 ? 0 : numa, mask);
		for (i = 0; i < n->ngpus; i++)
			if (n->gpus[i].numa == numa)
				write_gpu(f.fp, n, i);
		for (i = 0; i < n->nnics; i++)
			if (n->nics[i].numa == numa)
				write_nic(f.fp, n, i);
		fprintf(f.fp, "  </cpu>\n");
	}
	fprintf(f.fp, "</system>\n");
	return afile_commit(&f);
}
