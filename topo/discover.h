/*
 * discover.h - build a node description with hwloc, from the live machine
 * or from an hwloc 2.x XML export: GPUs (NVIDIA PCI display and 3D
 * controllers, whether or not hwloc has a CUDA/NVML plugin), NVSwitches,
 * NICs, NUMA and CPU locality, PCIe links, path classes and NVLinks.
 */
#ifndef PD2BW_TOPO_DISCOVER_H
#define PD2BW_TOPO_DISCOVER_H

#include "node.h"

enum topo_nvml_use {
	TOPO_NVML_AUTO, /* live machine only, when the XML has no NVLinks */
	TOPO_NVML_NEVER,
	TOPO_NVML_ALWAYS, /* also for XML input (tests, one's own export) */
};

struct topo_discover_opts {
	const char *xml;   /* hwloc XML file, or NULL for this machine */
	const char *sysfs; /* sysfs root; NULL: "/sys" live, none for XML */
	const char *nvml;  /* NVML library; NULL: libnvidia-ml.so.1 */
	int nvml_use;      /* enum topo_nvml_use */
	const char *gpu;   /* catalog name to use instead of the guess */
};

/*
 * Discover into n (initialised here; the caller releases it).  Returns 0,
 * or -1 after a message (unreadable or malformed XML or sysfs content).
 */
int topo_discover(struct topo_node *n, const struct topo_discover_opts *o);

/*
 * Catalog name (catalog.h) of an NVIDIA GPU from its PCI device id: a
 * static string, or NULL when the id is not known.
 */
const char *topo_gpu_guess(unsigned device_id);

#endif
