/*
 * trace.h - a simulated schedule in Chrome's trace-event format (JSON),
 * for Perfetto and chrome://tracing.
 */
#ifndef PD2BW_TRACE_H
#define PD2BW_TRACE_H

#include "pd2bw/plan.h"
#include "pd2bw/sim.h"

/*
 * Write s (the simulation of plan p) to path as {"traceEvents": [...]}:
 * one process per stage (pid = stage), threads for compute (tid 0),
 * transfers (1) and the all-reduce (2); complete ("X") events named F3,
 * R3, B3 (interleaved F3.1: microbatch 3, chunk 1), send, all-reduce with
 * ts and dur in microseconds and args giving the microbatch, iteration,
 * layers and, interleaved, chunk and virtual stage; ops up to
 * sim_show_until(s).  "otherData" carries the configuration and the
 * simulated figures.  Atomic; returns 0 or -1.
 */
int trace_write(const char *path, const struct plan *p, const struct sim *s);

#endif
