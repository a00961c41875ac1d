/*
 * nccl_xml.h - write a node as NCCL's topology XML (the file NCCL reads
 * from NCCL_TOPO_FILE), so NCCL and pd2bw see the same machine.
 */
#ifndef PD2BW_TOPO_NCCL_XML_H
#define PD2BW_TOPO_NCCL_XML_H

#include "node.h"

/*
 * Write n atomically to path ("-" = stdout).  Devices hang below the CPU
 * of their NUMA node through the PCIe switches their path classes imply
 * (node files keep the classes, not the bridges: switches get addresses
 * in PCI domain ffff).  Unknown values are left out for NCCL to detect.
 * Returns 0, or -1 (nothing written).
 */
int topo_nccl_xml_write(const struct topo_node *n, const char *path);

/*
 * Turn a CPU list ("0-3,8") into a Linux cpumask ("00000000,0000010f"),
 * 32-bit words, most significant first, into buf of len bytes.  Returns 0,
 * or -1 when the list is malformed or does not fit.
 */
int topo_cpumask(const char *list, char *buf, size_t len);

#endif
