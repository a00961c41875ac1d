/*
 * trace.h - the measured timeline of pd2bw-profile (--trace) as Chrome
 * trace-event JSON, for Perfetto and chrome://tracing: the driver
 * (measure.c) adds one event per layer, pass and timed repeat and one per
 * timed training step, in measurement order; the cuda backend (gpu.cu)
 * adds every kernel CUPTI recorded, attributed to its layer and pass.
 */
#ifndef PD2BW_PROF_TRACE_H
#define PD2BW_PROF_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "pd2bw/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Threads (tid) of the trace. */
enum prof_trace_tid {
	PROF_TID_FWD = 0,      /* layer forwards */
	PROF_TID_BWD = 1,      /* layer backwards */
	PROF_TID_STEP = 2,     /* whole training steps (--step) */
	PROF_TID_STREAM = 100  /* + CUDA stream id: that stream's kernels */
};

/* One complete event; times in microseconds since the trace began. */
struct prof_tev {
	char *name;     /* layer and pass, "step", or the kernel (owned) */
	char *layer;    /* layer name (owned), NULL: a step or a kernel
			 * outside any layer */
	int pass;       /* 0 forward, 1 backward, -1 neither */
	int tid;        /* enum prof_trace_tid */
	int kernel;     /* 1: a kernel */
	int64_t b;      /* microbatch size, 0 when unknown */
	int repeat;     /* timed repeat, -1 for kernels */
	double ts_us, dur_us;
};

struct prof_trace {
	struct prof_tev *ev;
	size_t n, alloc;
	double origin_ms; /* CLOCK_MONOTONIC when the trace began */
	int pid;          /* device index */
	int kernels;      /* 1 once a backend added its kernels */
};

/* Start an empty trace for device pid, its clock at zero now. */
void prof_trace_init(struct prof_trace *t, int pid);

/* Free the events; t may be initialised again. */
void prof_trace_release(struct prof_trace *t);

/* Microseconds since prof_trace_init, on the host's monotonic clock. */
double prof_trace_now_us(const struct prof_trace *t);

/*
 * Append an event; name and layer (may be NULL) are copied.  The
 * arguments are those of struct prof_tev.
 */
void prof_trace_add(struct prof_trace *t, const char *name,
		    const char *layer, int pass, int tid, int kernel,
		    int64_t b, int repeat, double ts_us, double dur_us);

/*
 * Write t to path, atomically: metadata naming the process after
 * p->device and the threads, the events in the order added, an end
 * marker, and "otherData" with p's model, device, backend, precision,
 * tensor-parallel degree and microbatches and the warm-up and repeat
 * counts.  Returns 0 or -1.
 */
int prof_trace_write(const struct prof_trace *t, const char *path,
		     const struct profile *p, int warmup, int repeats);

#ifdef __cplusplus
}
#endif

#endif
