/*
 * sysfs.h - what hwloc does not say, read from Linux sysfs under a root
 * that tests can point at a fake tree: the maximum PCIe link of a device
 * (idle GPUs train their links down, so hwloc's current speed is not it)
 * and NIC port rates.
 */
#ifndef PD2BW_TOPO_SYSFS_H
#define PD2BW_TOPO_SYSFS_H

#include "node.h"

/*
 * Fill p from root/bus/pci/devices/<pci>/{current,max}_link_{speed,width}
 * and set p->gb_s from the maximum.  Returns 1 when the device has no sysfs
 * entry (p untouched), 0 when read, -1 on malformed content (message
 * printed, naming the file).
 */
int topo_sysfs_pcie(const char *root, const char *pci, struct topo_pcie *p);

/*
 * Rate of a NIC in Gbit/s: the fastest port of root/class/infiniband/<name>
 * when ib, else root/class/net/<name>/speed (Mbit/s).  Returns 1 when there
 * is no entry or the link is down (*gbit_s = 0), 0 when read, -1 on
 * malformed content.
 */
int topo_sysfs_nic_rate(const char *root, const char *name, int ib,
			double *gbit_s);

/* Per-direction data rate of one lane of PCIe generation gen, GB/s (0 for
 * unknown generations). */
double topo_pcie_lane_gb_s(int gen);

/* Generation for a transfer rate in GT/s (2.5 -> 1, ... 64 -> 6), or 0. */
int topo_pcie_gen_of_gts(double gts);

#endif
