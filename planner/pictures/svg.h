/*
 * svg.h - the two pictures of a simulated plan, as plain SVG 1.1 text,
 * byte-stable and written atomically.
 */
#ifndef PD2BW_SVG_H
#define PD2BW_SVG_H

#include <stdio.h>

#include "pd2bw/plan.h"
#include "pd2bw/sim.h"

/*
 * Gantt chart of s (the simulation of plan p) into path: one row per
 * stage, forward, backward, recomputation, transfers and all-reduces in
 * their colours, idle time grey, microbatch numbers where they fit, a time
 * axis in ms, up to sim_show_until(s).  Returns 0 or -1.
 */
int svg_timeline(const char *path, const struct plan *p, const struct sim *s);

/*
 * Memory per GPU of each stage of p, stacked by kind (weights, gradients
 * and optimizer state, stashes, workspace) against the usable memory
 * gpu_mem_bytes - reserve_bytes, into path.  s may be NULL; when given,
 * stages whose simulated peak in-flight count differs from the plan's say
 * so.  Returns 0 or -1.
 */
int svg_memory(const char *path, const struct plan *p, const struct sim *s);

#endif
