/*
 * pipedream.h - import PipeDream's per-layer profiles (graph.txt: node lines
 * "nodeN -- Desc -- forward_compute_time=..., backward_compute_time=...,
 * activation_size=..., parameter_size=..." and edge lines "nodeA -- nodeB")
 * as a pd2bw profile chain in topological order.
 */
#ifndef PD2BW_PIPEDREAM_H
#define PD2BW_PIPEDREAM_H

#include <stddef.h>

#include "pd2bw/profile.h"

/* Non-zero when buf looks like a graph.txt (first line starts "node"). */
int pipedream_sniff(const char *buf, size_t len);

/*
 * Fill p (profile_init'ed) from graph.txt text; name is used in messages
 * (name:line:col).  One microbatch size (PipeDream profiles one).
 * Returns 0 or -1.
 */
int pipedream_load_string(struct profile *p, const char *name, const char *buf,
			  size_t len);

#endif
