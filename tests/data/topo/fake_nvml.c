/*
 * fake_nvml.c - a tiny stand-in for libnvidia-ml.so.1, built by the tests
 * (cc -shared -fPIC), describing the four GPUs of pcie4.xml: NVLink 3
 * bridges GPU0-GPU1 and GPU2-GPU3 with 4 links each, GPU0-GPU2 and
 * GPU1-GPU3 with 2; no link between GPU0-GPU3 and GPU1-GPU2.  With
 * FAKE_NVML_FAIL set, nvmlInit_v2 fails as without a driver.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pci {
	char bus_id_legacy[16];
	unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];
};

struct mem {
	unsigned long long total, free, used;
};

static const unsigned buses[4] = {0x14, 0x15, 0x24, 0x25};
/* links[g][l]: peer GPU of link l of GPU g, -1 inactive. */
static const int links[4][12] = {
	{1, 1, 1, 1, 2, 2, -1, -1, -1, -1, -1, -1},
	{0, 0, 0, 0, 3, 3, -1, -1, -1, -1, -1, -1},
	{3, 3, 3, 3, 0, 0, -1, -1, -1, -1, -1, -1},
	{2, 2, 2, 2, 1, 1, -1, -1, -1, -1, -1, -1},
};

/* Handles are GPU index + 1 disguised as pointers. */
typedef struct dev *dev_t_;

int nvmlInit_v2(void);
int nvmlShutdown(void);
const char *nvmlErrorString(int r);
int nvmlDeviceGetCount_v2(unsigned *n);
int nvmlDeviceGetHandleByIndex_v2(unsigned i, dev_t_ *d);
int nvmlDeviceGetPciInfo_v3(dev_t_ d, struct pci *p);
int nvmlDeviceGetName(dev_t_ d, char *buf, unsigned len);
int nvmlDeviceGetMemoryInfo(dev_t_ d, struct mem *m);
int nvmlDeviceGetNvLinkState(dev_t_ d, unsigned l, int *active);
int nvmlDeviceGetNvLinkVersion(dev_t_ d, unsigned l, unsigned *v);
int nvmlDeviceGetNvLinkRemotePciInfo_v2(dev_t_ d, unsigned l, struct pci *p);

static int
idx(dev_t_ d)
{
	return (int)((char *)d - (char *)0) - 1;
}

static void
fill(unsigned bus, struct pci *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->bus_id, sizeof(p->bus_id), "00000000:%02x:00.0", bus);
	p->bus = bus;
	p->pci_device_id = 0x20f110de;
}

int nvmlInit_v2(void) { return getenv("FAKE_NVML_FAIL") ? 9 : 0; }
int nvmlShutdown(void) { return 0; }
const char *nvmlErrorString(int r) { return r == 9 ? "Driver Not Loaded" : "Unknown Error"; }
int nvmlDeviceGetCount_v2(unsigned *n) { *n = 4; return 0; }

int
nvmlDeviceGetHandleByIndex_v2(unsigned i, dev_t_ *d)
{
	if (i >= 4)
		return 2;
	*d = (dev_t_)((char *)0 + i + 1);
	return 0;
}

int
nvmlDeviceGetPciInfo_v3(dev_t_ d, struct pci *p)
{
	fill(buses[idx(d)], p);
	return 0;
}

int
nvmlDeviceGetName(dev_t_ d, char *buf, unsigned len)
{
	(void)d;
	snprintf(buf, len, "NVIDIA A100-PCIE-40GB");
	return 0;
}

int
nvmlDeviceGetMemoryInfo(dev_t_ d, struct mem *m)
{
	(void)d;
	m->total = 42505273344ULL;
	m->free = m->total;
	m->used = 0;
	return 0;
}

int
nvmlDeviceGetNvLinkState(dev_t_ d, unsigned l, int *active)
{
	if (l >= 12)
		return 2;
	*active = links[idx(d)][l] >= 0;
	return 0;
}

int
nvmlDeviceGetNvLinkVersion(dev_t_ d, unsigned l, unsigned *v)
{
	(void)d;
	(void)l;
	*v = 3;
	return 0;
}

int
nvmlDeviceGetNvLinkRemotePciInfo_v2(dev_t_ d, unsigned l, struct pci *p)
{
	int peer = l < 12 ? links[idx(d)][l] : -1;

	if (peer < 0)
		return 2;
	fill(buses[peer], p);
	return 0;
}
