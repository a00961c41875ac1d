/*
 * nvml.h - NVLink links and GPU facts from NVIDIA's NVML, loaded with
 * dlopen at run time so that pd2bw-topo neither links against the driver
 * nor needs it: without libnvidia-ml the caller falls back to hwloc's
 * distances or the PCIe paths.
 */
#ifndef PD2BW_TOPO_NVML_H
#define PD2BW_TOPO_NVML_H

#include <stdint.h>

#define TOPO_NVML_MAX_LINKS 18

struct topo_nvml_link {
	unsigned domain, bus, dev, fn; /* PCI address of the far end */
	unsigned remote_id;            /* its vendor | device << 16, or 0 */
	int version;                   /* NVLink version, 0 unknown */
};

struct topo_nvml_gpu {
	unsigned domain, bus, dev, fn; /* PCI address of this GPU */
	char name[96];
	int64_t mem_bytes;
	int nlinks;                    /* active links */
	struct topo_nvml_link links[TOPO_NVML_MAX_LINKS];
};

/*
 * Load lib (NULL: "libnvidia-ml.so.1"), initialise NVML and describe every
 * GPU into *gpus (caller frees) and *n.  Returns 0; 1 when the library or
 * the driver is not available (a warning printed, *n = 0); -1 on an error
 * (message printed).
 */
int topo_nvml_query(const char *lib, struct topo_nvml_gpu **gpus, int *n);

/* Per-direction bandwidth of one NVLink of the given version, GB/s. */
double topo_nvlink_gb_s(int version);

#endif
