/*
 * matrix.c - print a node's connection matrix in the manner of
 * "nvidia-smi topo -m", from the same node data whatever its source (live
 * machine, hwloc XML or a node file).
 */
#include <stdio.h>
#include <string.h>

#include "matrix.h"

static void
label(const struct topo_node *n, int d, char *buf, size_t len)
{
	if (d < n->ngpus)
		snprintf(buf, len, "GPU%d", d);
	else
		snprintf(buf, len, "NIC%d", d - n->ngpus);
}

int
topo_matrix_print(const struct topo_node *n, FILE *fp)
{
	int nd = topo_node_ndev(n), i, j, w = 6, cw = 14;
	char buf[32];

	for (i = 0; i < nd; i++) {
		const char *cpus = i < n->ngpus ? n->gpus[i].cpus
						: n->nics[i - n->ngpus].cpus;
		int l = cpus ? (int)strlen(cpus) + 2 : 0;

		if (l > cw)
			cw = l;
	}
	if (!nd)
		fprintf(fp, "no GPUs or NICs found\n");
	else {
		fprintf(fp, "%-*s", w, "");
		for (j = 0; j < nd; j++) {
			label(n, j, buf, sizeof(buf));
			fprintf(fp, "%-*s", w, buf);
		}
		fprintf(fp, "%-*s%s\n", cw, "CPU Affinity", "NUMA Affinity");
	}
	for (i = 0; i < nd; i++) {
		const char *cpus;
		int numa;

		if (i < n->ngpus) {
			cpus = n->gpus[i].cpus;
			numa = n->gpus[i].numa;
		} else {
			cpus = n->nics[i - n->ngpus].cpus;
			numa = n->nics[i - n->ngpus].numa;
		}
		label(n, i, buf, sizeof(buf));
		fprintf(fp, "%-*s", w, buf);
		for (j = 0; j < nd; j++) {
			int nv = i < n->ngpus && j < n->ngpus
					 ? n->nvlinks[i * n->ngpus + j]
					 : 0;

			fprintf(fp, "%-*s", w,
				topo_path_name(topo_node_path(n, i, j), nv,
					       buf));
		}
		fprintf(fp, "%-*s", cw, cpus && *cpus ? cpus : "N/A");
		if (numa >= 0)
			fprintf(fp, "%d\n", numa);
		else
			fprintf(fp, "N/A\n");
	}
	fprintf(fp, "\nLegend:\n\n"
		    "  X    = the device itself\n"
		    "  SYS  = PCIe plus the SMP link between NUMA nodes "
		    "(QPI/UPI, Infinity Fabric)\n"
		    "  NODE = PCIe plus the link between PCIe host bridges "
		    "of one NUMA node\n"
		    "  PHB  = PCIe through a PCIe host bridge (the CPU)\n"
		    "  PXB  = PCIe through several bridges, no host bridge\n"
		    "  PIX  = PCIe through at most one bridge (switch)\n"
		    "  NV#  = a bonded set of # NVLinks (through NVSwitches "
		    "when there are any)\n");
	if (n->nnics) {
		fprintf(fp, "\nNIC Legend:\n\n");
		for (i = 0; i < n->nnics; i++)
			fprintf(fp, "  NIC%d: %s\n", i, n->nics[i].name);
	}
	return ferror(fp) ? -1 : 0;
}
