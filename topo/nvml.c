/*
 * nvml.c - query NVML through dlopen: GPUs, their memory and their active
 * NVLinks with the PCI address of each far end.  The few NVML types used are
 * declared here with the layouts of NVML's public header, so no NVIDIA
 * header or library is needed to build.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/error.h"
#include "nvml.h"

typedef int nv_ret;
typedef struct nv_device *nv_dev;

/* nvmlPciInfo_t as returned by the _v3 / _v2 entry points. */
struct nv_pci {
	char bus_id_legacy[16];
	unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];
};

struct nv_memory {
	unsigned long long total, free, used;
};

struct nv_api {
	void *h;
	nv_ret (*init)(void);
	nv_ret (*shutdown)(void);
	const char *(*error_string)(nv_ret);
	nv_ret (*count)(unsigned *);
	nv_ret (*handle)(unsigned, nv_dev *);
	nv_ret (*pci)(nv_dev, struct nv_pci *);
	nv_ret (*name)(nv_dev, char *, unsigned);
	nv_ret (*memory)(nv_dev, struct nv_memory *);
	nv_ret (*link_state)(nv_dev, unsigned, int *);
	nv_ret (*link_version)(nv_dev, unsigned, unsigned *);
	nv_ret (*link_remote)(nv_dev, unsigned, struct nv_pci *);
};

double
topo_nvlink_gb_s(int version)
{
	/* NVLink 1: 20 GB/s per direction per link; 2 to 4: 25; 5: 50. */
	if (version == 1)
		return 20;
	if (version >= 5)
		return 50;
	return 25;
}

/* dlsym into a function pointer without the object/function cast ISO C
 * does not define: copy the pointer's bytes. */
static int
sym(struct nv_api *a, const char *name, void *fnp, size_t size, int need)
{
	void *p = dlsym(a->h, name);

	if (!p && need)
		return pd2bw_error("NVML: missing symbol '%s'", name);
	memcpy(fnp, &p, size);
	return 0;
}

#define SYM(a, f, name, need) sym((a), (name), &(a)->f, sizeof((a)->f), (need))

static const char *
errstr(const struct nv_api *a, nv_ret r)
{
	const char *s = a->error_string ? a->error_string(r) : NULL;

	return s ? s : "unknown error";
}

static int
parse_bus_id(const struct nv_pci *p, unsigned *dom, unsigned *bus,
	     unsigned *dev, unsigned *fn)
{
	char id[33];

	memcpy(id, p->bus_id, 32);
	id[32] = 0;
	if (sscanf(id, "%x:%x:%x.%x", dom, bus, dev, fn) == 4)
		return 0;
	/* Older drivers fill only the legacy fields. */
	*dom = p->domain;
	*bus = p->bus;
	*dev = p->device;
	*fn = 0;
	return 0;
}

static int
query_gpu(struct nv_api *a, unsigned idx, struct topo_nvml_gpu *g)
{
	struct nv_pci pci;
	struct nv_memory mem;
	nv_dev d;
	nv_ret r;
	unsigned l;

	memset(g, 0, sizeof(*g));
	r = a->handle(idx, &d);
	if (r)
		return pd2bw_error("NVML: cannot get GPU %u: %s", idx,
				   errstr(a, r));
	memset(&pci, 0, sizeof(pci));
	r = a->pci(d, &pci);
	if (r)
		return pd2bw_error("NVML: cannot get the PCI address of GPU "
				   "%u: %s",
				   idx, errstr(a, r));
	parse_bus_id(&pci, &g->domain, &g->bus, &g->dev, &g->fn);
	if (a->name && a->name(d, g->name, sizeof(g->name)))
		g->name[0] = 0;
	g->name[sizeof(g->name) - 1] = 0;
	if (a->memory && !a->memory(d, &mem))
		g->mem_bytes = (int64_t)mem.total;
	if (!a->link_state || !a->link_remote)
		return 0;
	for (l = 0; l < TOPO_NVML_MAX_LINKS; l++) {
		struct topo_nvml_link *k = &g->links[g->nlinks];
		unsigned ver = 0;
		int active = 0;

		/* Links past the last one answer an error: skip them. */
		if (a->link_state(d, l, &active) || !active)
			continue;
		memset(&pci, 0, sizeof(pci));
		if (a->link_remote(d, l, &pci))
			continue;
		parse_bus_id(&pci, &k->domain, &k->bus, &k->dev, &k->fn);
		k->remote_id = pci.pci_device_id;
		if (a->link_version && !a->link_version(d, l, &ver))
			k->version = (int)ver;
		g->nlinks++;
	}
	return 0;
}

int
topo_nvml_query(const char *lib, struct topo_nvml_gpu **gpus, int *n)
{
	struct nv_api a;
	unsigned count = 0, i;
	nv_ret r;
	int ret = -1;

	*gpus = NULL;
	*n = 0;
	memset(&a, 0, sizeof(a));
	if (!lib)
		lib = "libnvidia-ml.so.1";
	a.h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!a.h) {
		const char *e = dlerror();

		pd2bw_warn("NVML not available (%s): NVLinks not read",
			   e ? e : lib);
		return 1;
	}
	if (SYM(&a, init, "nvmlInit_v2", 1) ||
	    SYM(&a, shutdown, "nvmlShutdown", 1) ||
	    SYM(&a, error_string, "nvmlErrorString", 0) ||
	    SYM(&a, count, "nvmlDeviceGetCount_v2", 1) ||
	    SYM(&a, handle, "nvmlDeviceGetHandleByIndex_v2", 1) ||
	    SYM(&a, pci, "nvmlDeviceGetPciInfo_v3", 1) ||
	    SYM(&a, name, "nvmlDeviceGetName", 0) ||
	    SYM(&a, memory, "nvmlDeviceGetMemoryInfo", 0) ||
	    SYM(&a, link_state, "nvmlDeviceGetNvLinkState", 0) ||
	    SYM(&a, link_version, "nvmlDeviceGetNvLinkVersion", 0) ||
	    SYM(&a, link_remote, "nvmlDeviceGetNvLinkRemotePciInfo_v2", 0))
		goto out_close;
	r = a.init();
	if (r) {
		pd2bw_warn("NVML cannot start (%s): NVLinks not read",
			   errstr(&a, r));
		ret = 1;
		goto out_close;
	}
	r = a.count(&count);
	if (r) {
		pd2bw_error("NVML: cannot count GPUs: %s", errstr(&a, r));
		goto out_shutdown;
	}
	*gpus = xcalloc(count, sizeof(**gpus));
	for (i = 0; i < count; i++)
		if (query_gpu(&a, i, &(*gpus)[i]))
			goto out_shutdown;
	*n = (int)count;
	ret = 0;
out_shutdown:
	a.shutdown();
	if (ret) {
		free(*gpus);
		*gpus = NULL;
	}
out_close:
	dlclose(a.h);
	return ret;
}
