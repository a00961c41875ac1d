/*
 * matrix.h - the connection matrix users know from "nvidia-smi topo -m":
 * one row and column per GPU and NIC with NV#, PIX, PXB, PHB, NODE or SYS,
 * each row's CPU and NUMA affinity, then a legend.
 */
#ifndef PD2BW_TOPO_MATRIX_H
#define PD2BW_TOPO_MATRIX_H

#include <stdio.h>

#include "node.h"

/* Print the matrix of n to fp.  Returns 0, or -1 on a write error. */
int topo_matrix_print(const struct topo_node *n, FILE *fp);

#endif
