/*
 * topo_gen.c - generate hwloc 2.x XML topologies of GPU servers for
 * pd2bw-topo's tests and benchmarks: sockets with a NUMA node and a few
 * cores each, PCIe switches under root ports holding GPUs and NICs,
 * optional NVSwitches, and NVLinks added as hwloc's "NVLinkBandwidth"
 * distances through the hwloc API; the result is exported by hwloc itself.
 *
 * usage: topo_gen OUT.xml [key=value...]
 *   gpus=8 per_switch=2 sockets=2 cores=4 nics=4 nic_every=1
 *   device=1db1 speed=15.753846 nvlink=none|mesh|switch nvswitches=6
 *   links=6 split=0|1 host=NAME
 * split=1 puts each PCIe switch under its own host bridge.
 * nvlink=mesh: GPU i links to i^1 twice, to the other two GPUs of its
 * quad once and to i^4 twice (a cube mesh of 6 links per GPU);
 * nvlink=full: every pair of GPUs joined by `links` links, no switch (a
 * quad GH200 node: gpus=4 links=6);
 * nvlink=switch: each GPU has `links` links spread over the NVSwitches of
 * its half of the machine (boards of 8 GPUs).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#define LINK_MB_S 25000

struct gen {
	int gpus, per_switch, sockets, cores, nics, nic_every, nvswitches;
	int links, split;
	const char *device, *speed, *nvlink, *host;
};

struct buf {
	char *s;
	size_t len, alloc;
};

static void put(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (b->len + (size_t)n + 1 > b->alloc) {
		b->alloc = (b->len + (size_t)n + 1) * 2;
		b->s = realloc(b->s, b->alloc);
		if (!b->s) {
			perror("topo_gen");
			exit(1);
		}
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

static unsigned long
mask(int first, int count)
{
	return ((1UL << count) - 1) << first;
}

/* One PCIe switch on bus `bus` holding GPUs [g0, g1) and maybe a NIC. */
static void
pci_switch(struct buf *b, const struct gen *g, int bus, int g0, int g1,
	   int nic, int *gp)
{
	int port = 0, i, sub = bus + 1;
	int last = bus + 2 + (g1 - g0) * 2 + 2;

	put(b, "<object type=\"Bridge\" gp_index=\"%d\" bridge_type=\"1-1\" "
	       "depth=\"1\" bridge_pci=\"0000:[%02x-%02x]\" "
	       "pci_busid=\"0000:%02x:00.0\" pci_type=\"0604 [10b5:9797] "
	       "[10b5:9797] b0\" pci_link_speed=\"%s\">\n",
	    (*gp)++, sub, last, bus - 1, g->speed);
	put(b, "<object type=\"Bridge\" gp_index=\"%d\" bridge_type=\"1-1\" "
	       "depth=\"2\" bridge_pci=\"0000:[%02x-%02x]\" "
	       "pci_busid=\"0000:%02x:00.0\" pci_type=\"0604 [10b5:9797] "
	       "[10b5:9797] b0\" pci_link_speed=\"%s\">\n",
	    (*gp)++, sub + 1, last, sub, g->speed);
	for (i = g0; i < g1; i++, port++) {
		int dbus = sub + 2 + port;

		put(b, "<object type=\"Bridge\" gp_index=\"%d\" "
		       "bridge_type=\"1-1\" depth=\"3\" "
		       "bridge_pci=\"0000:[%02x-%02x]\" "
		       "pci_busid=\"0000:%02x:%02x.0\" pci_type=\"0604 "
		       "[10b5:9797] [10b5:9797] b0\" pci_link_speed=\"%s\">\n",
		    (*gp)++, dbus, dbus, sub + 1, port * 4, g->speed);
		put(b, "<object type=\"PCIDev\" gp_index=\"%d\" "
		       "pci_busid=\"0000:%02x:00.0\" pci_type=\"0302 "
		       "[10de:%s] [10de:1212] a1\" pci_link_speed=\"%s\">\n"
		       "<info name=\"PCIVendor\" value=\"NVIDIA Corporation\"/>\n"
		       "</object>\n</object>\n",
		    (*gp)++, dbus, g->device, g->speed);
	}
	if (nic >= 0) {
		int dbus = sub + 2 + port;

		put(b, "<object type=\"Bridge\" gp_index=\"%d\" "
		       "bridge_type=\"1-1\" depth=\"3\" "
		       "bridge_pci=\"0000:[%02x-%02x]\" "
		       "pci_busid=\"0000:%02x:%02x.0\" pci_type=\"0604 "
		       "[10b5:9797] [10b5:9797] b0\" pci_link_speed=\"%s\">\n",
		    (*gp)++, dbus, dbus, sub + 1, port * 4, g->speed);
		put(b, "<object type=\"PCIDev\" gp_index=\"%d\" "
		       "pci_busid=\"0000:%02x:00.0\" pci_type=\"0207 "
		       "[15b3:101b] [15b3:0007] 00\" pci_link_speed=\"%s\">\n"
		       "<object type=\"OSDev\" gp_index=\"%d\" name=\"ib%d\" "
		       "osdev_type=\"2\"/>\n"
		       "<object type=\"OSDev\" gp_index=\"%d\" name=\"mlx5_%d\" "
		       "osdev_type=\"3\"/>\n</object>\n</object>\n",
		    *gp, dbus, g->speed, *gp + 1, nic, *gp + 2, nic);
		*gp += 3;
	}
	put(b, "</object>\n</object>\n");
}

static int
add_nvlinks(hwloc_topology_t t, const struct gen *g)
{
	int n = g->gpus + (strcmp(g->nvlink, "switch") ? 0 : g->nvswitches);
	hwloc_obj_t *objs = calloc((size_t)n, sizeof(*objs));
	hwloc_uint64_t *v = calloc((size_t)n * (size_t)n, sizeof(*v));
	hwloc_distances_add_handle_t h;
	hwloc_obj_t o = NULL;
	int k = 0, sw = 0, i, j;

	/* GPUs first (bus order), then the switches, as hwloc lists them. */
	while ((o = hwloc_get_next_pcidev(t, o)))
		if (o->attr->pcidev.vendor_id == 0x10de &&
		    o->attr->pcidev.class_id == 0x0302 && k < g->gpus)
			objs[k++] = o;
	while ((o = hwloc_get_next_pcidev(t, o)))
		if (o->attr->pcidev.class_id == 0x0680 && k < n)
			objs[k++] = o;
	if (k != n) {
		fprintf(stderr, "topo_gen: found %d of %d linked devices\n", k,
			n);
		return -1;
	}
	for (i = 0; i < g->gpus; i++) {
		if (!strcmp(g->nvlink, "full")) {
			for (j = 0; j < g->gpus; j++)
				if (j != i)
					v[i * n + j] = g->links * LINK_MB_S;
		} else if (!strcmp(g->nvlink, "mesh")) {
			int q = i & ~3;

			for (j = q; j < q + 4 && j < g->gpus; j++)
				if (j != i)
					v[i * n + j] = (j == (i ^ 1) ? 2 : 1) *
						       LINK_MB_S;
			if ((i ^ 4) < g->gpus)
				v[i * n + (i ^ 4)] = 2 * LINK_MB_S;
		} else {
			/* Switches of this GPU's board of 8. */
			int boards = (g->gpus + 7) / 8;
			int per = g->nvswitches / boards;
			int first = (i / 8) * per, l;

			for (l = 0; l < g->links; l++) {
				int s = g->gpus + first + l % per;

				v[i * n + s] += LINK_MB_S;
				v[s * n + i] += LINK_MB_S;
			}
			sw++;
		}
	}
	h = hwloc_distances_add_create(t, "NVLinkBandwidth",
				       HWLOC_DISTANCES_KIND_FROM_OS |
					       HWLOC_DISTANCES_KIND_MEANS_BANDWIDTH,
				       0);
	if (!h || hwloc_distances_add_values(t, h, (unsigned)n, objs, v, 0) ||
	    hwloc_distances_add_commit(t, h, 0)) {
		perror("topo_gen: adding NVLinkBandwidth");
		return -1;
	}
	free(objs);
	free(v);
	return 0;
}

int
main(int argc, char **argv)
{
	struct gen g = {8, 2, 2, 4, 4, 1, 6, 6, 0, "1db1", "15.753846", "none",
			"gen"};
	struct buf b = {NULL, 0, 0};
	hwloc_topology_t t;
	int gp = 1, s, i, gpu = 0, nic = 0, sw = 0, bus = 0x10;
	int cpus, gpus_per_socket, switches_per_socket;

	if (argc < 2) {
		fprintf(stderr, "usage: topo_gen OUT.xml [key=value...]\n");
		return 2;
	}
	for (i = 2; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		const char *k = argv[i], *val = eq ? eq + 1 : "";

		if (!eq) {
			fprintf(stderr, "topo_gen: bad argument '%s'\n", k);
			return 2;
		}
		*eq = 0;
		if (!strcmp(k, "gpus"))
			g.gpus = atoi(val);
		else if (!strcmp(k, "per_switch"))
			g.per_switch = atoi(val);
		else if (!strcmp(k, "sockets"))
			g.sockets = atoi(val);
		else if (!strcmp(k, "cores"))
			g.cores = atoi(val);
		else if (!strcmp(k, "nics"))
			g.nics = atoi(val);
		else if (!strcmp(k, "nvswitches"))
			g.nvswitches = atoi(val);
		else if (!strcmp(k, "split"))
			g.split = atoi(val);
		else if (!strcmp(k, "links"))
			g.links = atoi(val);
		else if (!strcmp(k, "device"))
			g.device = val;
		else if (!strcmp(k, "speed"))
			g.speed = val;
		else if (!strcmp(k, "nvlink"))
			g.nvlink = val;
		else if (!strcmp(k, "host"))
			g.host = val;
		else {
			fprintf(stderr, "topo_gen: unknown key '%s'\n", k);
			return 2;
		}
	}
	cpus = g.sockets * g.cores;
	gpus_per_socket = g.gpus / g.sockets;
	switches_per_socket = (gpus_per_socket + g.per_switch - 1) / g.per_switch;
	put(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
		"<topology version=\"2.0\">\n");
	put(&b, "<object type=\"Machine\" os_index=\"0\" cpuset=\"0x%lx\" "
		"complete_cpuset=\"0x%lx\" allowed_cpuset=\"0x%lx\" "
		"nodeset=\"0x%lx\" complete_nodeset=\"0x%lx\" "
		"allowed_nodeset=\"0x%lx\" gp_index=\"%d\">\n"
		"<info name=\"HostName\" value=\"%s\"/>\n",
	    mask(0, cpus), mask(0, cpus), mask(0, cpus), mask(0, g.sockets),
	    mask(0, g.sockets), mask(0, g.sockets), gp++, g.host);
	for (s = 0; s < g.sockets; s++) {
		unsigned long cs = mask(s * g.cores, g.cores), ns = 1UL << s;
		int c;

		put(&b, "<object type=\"Package\" os_index=\"%d\" "
			"cpuset=\"0x%lx\" complete_cpuset=\"0x%lx\" "
			"nodeset=\"0x%lx\" complete_nodeset=\"0x%lx\" "
			"gp_index=\"%d\">\n",
		    s, cs, cs, ns, ns, gp++);
		put(&b, "<object type=\"NUMANode\" os_index=\"%d\" "
			"cpuset=\"0x%lx\" complete_cpuset=\"0x%lx\" "
			"nodeset=\"0x%lx\" complete_nodeset=\"0x%lx\" "
			"gp_index=\"%d\" local_memory=\"68719476736\"/>\n",
		    s, cs, cs, ns, ns, gp++);
		for (c = 0; c < g.cores; c++) {
			int pu = s * g.cores + c;

			put(&b, "<object type=\"Core\" os_index=\"%d\" "
				"cpuset=\"0x%lx\" complete_cpuset=\"0x%lx\" "
				"nodeset=\"0x%lx\" complete_nodeset=\"0x%lx\" "
				"gp_index=\"%d\">\n"
				"<object type=\"PU\" os_index=\"%d\" "
				"cpuset=\"0x%lx\" complete_cpuset=\"0x%lx\" "
				"nodeset=\"0x%lx\" complete_nodeset=\"0x%lx\" "
				"gp_index=\"%d\"/>\n</object>\n",
			    pu, 1UL << pu, 1UL << pu, ns, ns, gp, pu, 1UL << pu,
			    1UL << pu, ns, ns, gp + 1);
			gp += 2;
		}
		/* One host bridge per socket; PCIe switches below its
		 * root ports; NVSwitches below socket 0's. */
		put(&b, "<object type=\"Bridge\" gp_index=\"%d\" "
			"bridge_type=\"0-1\" depth=\"0\" "
			"bridge_pci=\"0000:[%02x-%02x]\">\n",
		    gp++, bus, bus + 0x3f);
		for (i = 0; i < switches_per_socket; i++) {
			int g0 = gpu, g1 = gpu + g.per_switch;

			if (g1 > (s + 1) * gpus_per_socket)
				g1 = (s + 1) * gpus_per_socket;
			if (g.split && i)
				put(&b, "</object>\n<object type=\"Bridge\" "
					"gp_index=\"%d\" bridge_type=\"0-1\" "
					"depth=\"0\" "
					"bridge_pci=\"0000:[%02x-%02x]\">\n",
				    gp++, bus + 1 + i * 0x10,
				    bus + 0x10 + i * 0x10);
			pci_switch(&b, &g, bus + 1 + i * 0x10, g0, g1,
				   nic < g.nics ? nic : -1, &gp);
			if (nic < g.nics)
				nic++;
			gpu = g1;
		}
		if (s == 0 && !strcmp(g.nvlink, "switch"))
			for (sw = 0; sw < g.nvswitches; sw++)
				put(&b, "<object type=\"PCIDev\" gp_index=\"%d\" "
					"pci_busid=\"0000:%02x:%02x.0\" "
					"pci_type=\"0680 [10de:1ac2] "
					"[10de:0000] a1\" "
					"pci_link_speed=\"0.250000\"/>\n",
				    gp++, bus + 0x3f, sw);
		put(&b, "</object>\n</object>\n");
		bus += 0x40;
	}
	put(&b, "</object>\n</topology>\n");

	setenv("HWLOC_DONT_ADD_VERSION_INFO", "1", 1);
	if (hwloc_topology_init(&t) ||
	    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL) ||
	    hwloc_topology_set_xmlbuffer(t, b.s, (int)b.len + 1) ||
	    hwloc_topology_load(t)) {
		perror("topo_gen: loading the generated XML");
		return 1;
	}
	if (strcmp(g.nvlink, "none") && add_nvlinks(t, &g))
		return 1;
	if (hwloc_topology_export_xml(t, argv[1], 0)) {
		perror("topo_gen: export");
		return 1;
	}
	hwloc_topology_destroy(t);
	free(b.s);
	return 0;
}
