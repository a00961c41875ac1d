/*
 * measure.h - the measurement driver of pd2bw-profile and the interface its
 * backends (cpu in measure.c, cuda in gpu.cu) implement: warm-up, median
 * of repeats with the spread, a microbatch sweep that stops at the first
 * size that does not fit, an optional whole training step as a check of
 * the per-layer sum, all written into a struct profile.
 */
#ifndef PD2BW_PROF_MEASURE_H
#define PD2BW_PROF_MEASURE_H

#include <stdint.h>

#include "pd2bw/model.h"
#include "pd2bw/profile.h"
#include "graph.h"

#ifdef __cplusplus
extern "C" {
/*
 * How long measuring g takes, in ms: every layer at every microbatch
 * mb[0..nmb), runs times (warm-ups + repeats) forward and backward
 * (3 x the forward FLOPs), at gflops GFLOP/s.
 */
double prof_estimate_ms(const struct prof_graph *g, const int *mb, int nmb,
			int runs, double gflops);

/* ms as "1h05m", "4m10s" or "42s" into buf (n bytes); returns buf. */
char *prof_duration_str(double ms, char *buf, size_t n);

#endif

struct prof_trace;

/* What a backend's tagging allocator accounts bytes to. */
enum prof_mem_tag {
	PROF_MEM_WEIGHT,   /* 16-bit parameters */
	PROF_MEM_GRAD,     /* fp32 parameter gradients */
	PROF_MEM_OPTIM,    /* fp32 master weights, Adam m and v */
	PROF_MEM_STASH,    /* kept from forward to backward */
	PROF_MEM_WORK,     /* transient activations, gradients, scratch */
	PROF_MEM_NTAGS
};
extern const char *const prof_mem_tag_names[];   /* NULL-terminated */

struct prof_opts {
	const int *mb;            /* microbatch sizes, increasing */
	int nmb;
	int warmup, repeats;
	int device;               /* CUDA device index */
	int precision;            /* enum model_prec of the measurement */
	int check;                /* verify kernels against the CPU first */
	int check_only;           /* only that: measure nothing */
	int cupti;                /* attribute kernels to layers (CUPTI) */
	int step;                 /* also time whole training steps */
	int flush_l2;             /* flush the L2 cache before each timing */
	int verbose;              /* per-layer table on stderr */
	int progress;             /* progress bar on stderr */
	const char *kernels_path; /* per-kernel breakdown (YAML) or NULL */
	const char *trace_path;   /* measured timeline (JSON) or NULL */
	/* Set by prof_measure while it runs, when trace_path is: backends
	 * add their kernel events here (trace.h). */
	struct prof_trace *trace;
	const char *name;         /* device name in the profile, or NULL */
	/* The cpu backend's GEMM rate for the duration estimate; 0: time
	 * a GEMM to find it (tests set it). */
	double cpu_gflops;
};

/* Times of one repeat of one layer, milliseconds. */
struct prof_times {
	double fwd_ms, bwd_ms, attn_ms;
};

/*
 * A backend.  Every function returns 0 or -1 after a message; layer_new
 * returns 1 (after freeing what it took) when the layer does not fit in
 * memory, so the sweep can stop there.
 */
struct prof_backend {
	const char *name;
	/* Start; fill p's device name, memory and versions. */
	int (*open)(void **ctx, const struct prof_opts *o, struct profile *p);
	void (*close)(void *ctx);
	/* Verify every kernel of g against the CPU reference (may be NULL). */
	int (*check)(void *ctx, const struct model *m,
		     const struct prof_graph *g);
	int (*layer_new)(void *ctx, const struct prof_graph *g, int layer,
			 int64_t b, void **inst);
	void (*layer_free)(void *ctx, void *inst);
	/* One forward and one backward of inst (attn_ms: attention core). */
	int (*time)(void *ctx, void *inst, struct prof_times *t);
	/* Forward through insts[0..n), backward back: one training step. */
	int (*step)(void *ctx, void **insts, int n, double *ms);
	/* Bytes the backend's allocator saw kept for backward (or -1). */
	int64_t (*stash)(void *ctx, void *inst);
	/* With reset, start counting peaks from now; else the allocator's
	 * peak bytes of each tag since then (by_tag[PROF_MEM_NTAGS]) and
	 * the memory pool's high-water mark or -1.  NULL: no allocator. */
	void (*mem)(void *ctx, int reset, int64_t *by_tag, int64_t *pool);
};

extern const struct prof_backend prof_cpu_backend;
extern const struct prof_backend prof_cuda_backend; /* gpu.cu or stub */

/*
 * Profile model m at tensor-parallel degree tp with backend be into p
 * (profile_init'ed by the caller); with o->trace_path, also write the
 * measured timeline there (trace.h).  Returns 0 or -1.
 */
int prof_measure(const struct prof_backend *be, const struct prof_opts *o,
		 const struct model *m, int tp, struct profile *p);

/* Median of x[0..n) (reorders x); spread (max - min) / median in *spread. */
double prof_median(double *x, int n, double *spread);

#ifdef __cplusplus
}
/*
 * How long measuring g takes, in ms: every layer at every microbatch
 * mb[0..nmb), runs times (warm-ups + repeats) forward and backward
 * (3 x the forward FLOPs), at gflops GFLOP/s.
 */
double prof_estimate_ms(const struct prof_graph *g, const int *mb, int nmb,
			int runs, double gflops);

/* ms as "1h05m", "4m10s" or "42s" into buf (n bytes); returns buf. */
char *prof_duration_str(double ms, char *buf, size_t n);

#endif

/*
 * How long measuring g takes, in ms: every layer at every microbatch
 * mb[0..nmb), runs times (warm-ups + repeats) forward and backward
 * (3 x the forward FLOPs), at gflops GFLOP/s.
 */
double prof_estimate_ms(const struct prof_graph *g, const int *mb, int nmb,
			int runs, double gflops);

/* ms as "1h05m", "4m10s" or "42s" into buf (n bytes); returns buf. */
char *prof_duration_str(double ms, char *buf, size_t n);

#endif
