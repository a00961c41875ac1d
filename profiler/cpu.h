/*
 * cpu.h - the reference backend: forward and backward of every op of the
 * layer graph in plain C (fp32), one layer instance at a time.  The GPU
 * kernels are checked against it; it also yields real CPU timings.
 *
 * Every backward accumulates (+=) into the gradients of its inputs and of
 * its parameters, so a tensor read by two ops (a residual) gets both.
 */
#ifndef PD2BW_PROF_CPU_H
#define PD2BW_PROF_CPU_H

#include <stdint.h>

#include "graph.h"

/* One layer of a graph at microbatch b, with all its buffers. */
struct prof_cpu_layer {
	const struct prof_graph *g;  /* borrowed */
	int layer;                   /* index into g->layers */
	int64_t b, T;                /* sequences, tokens (b * s) */
	float *params, *grads;       /* [nparams] */
	float *t[PROF_MAX_TENSORS];  /* activations, [T * cols] */
	float *dt[PROF_MAX_TENSORS]; /* their gradients */
	float *dout;                 /* gradient fed to the output */
	float *stats[PROF_MAX_OPS];  /* NORM: mean and rstd, [2 * T] */
	/* EMBED, ADD with dropout: the mask of the dropped tensor, [T *
	 * cols of the output], 1 = kept; attention redraws its mask */
	uint8_t *mask[PROF_MAX_OPS];
	int *ids;                    /* [T] token ids (embedding) */
	int *targets;                /* [T] next tokens (head) */
	int64_t bytes;               /* allocated, for the memory report */
};

/*
 * Allocate layer `layer` of g at microbatch b, filled from seed with
 * small random parameters, input, ids and targets.  Dies on OOM (x*alloc).
 * Free with prof_cpu_layer_free().
 */
struct prof_cpu_layer *prof_cpu_layer_new(const struct prof_graph *g,
					  int layer, int64_t b,
					  uint64_t seed);
void prof_cpu_layer_free(struct prof_cpu_layer *l);

/* Run op i forward, or backward (accumulating gradients). */
void prof_cpu_op_fwd(struct prof_cpu_layer *l, int i);
void prof_cpu_op_bwd(struct prof_cpu_layer *l, int i);
/* Whole layer: forward; backward from l->dout after zeroing the
 * activation gradients (parameter gradients keep accumulating). */
void prof_cpu_fwd(struct prof_cpu_layer *l);
void prof_cpu_bwd(struct prof_cpu_layer *l);

/* Sum of dout * output, the scalar whose gradient prof_cpu_bwd computes. */
double prof_cpu_objective(const struct prof_cpu_layer *l);

/*
 * The rate of this machine's CBLAS at a mid-sized fp32 GEMM, GFLOP/s
 * (best of a few runs, about 50 ms in all): what the cpu backend's
 * duration estimate divides by.
 */
double prof_cpu_gflops(void);

/* Deterministic uniform values in [-scale, scale). */
void prof_cpu_fill(float *x, int64_t n, float scale, uint64_t *state);

/*
 * The op kernels, exported for unit tests.  Linear: y[T x n] = x[T x k]
 * w[n x k]^T + bias; its backward accumulates into dx, dw and dbias.
 * Linear and attention run their GEMMs through CBLAS; the *_ref
 * versions are the plain loops, the same arithmetic, kept as the
 * reference the BLAS calls are tested against.
 */
void prof_cpu_linear_fwd(float *y, const float *x, const float *w,
			 const float *bias, int64_t T, int64_t k, int64_t n);
void prof_cpu_linear_bwd(float *dx, float *dw, float *dbias,
			 const float *dy, const float *x, const float *w,
			 int64_t T, int64_t k, int64_t n);
void prof_cpu_linear_fwd_ref(float *y, const float *x, const float *w,
			     const float *bias, int64_t T, int64_t k,
			     int64_t n);
void prof_cpu_linear_bwd_ref(float *dx, float *dw, float *dbias,
			     const float *dy, const float *x, const float *w,
			     int64_t T, int64_t k, int64_t n);
void prof_cpu_norm_fwd(float *y, float *stats, const float *x,
		       const float *gamma, const float *beta, int64_t T,
		       int64_t n, int rms);
void prof_cpu_norm_bwd(float *dx, float *dgamma, float *dbeta,
		       const float *dy, const float *x, const float *stats,
		       const float *gamma, int64_t T, int64_t n, int rms);
/*
 * With drop, attention dropout on the probabilities: element j of score
 * row r (r = (sequence * heads + head) * s + query) is kept iff
 * prof_dropout_keep(key, r * s + j), as the GPU's softmax draws it.
 */
void prof_cpu_attn_fwd(float *ctx, const float *qkv,
		       const struct prof_dims *d, int64_t b, int drop,
		       uint32_t key);
void prof_cpu_attn_bwd(float *dqkv, const float *dctx, const float *qkv,
		       const struct prof_dims *d, int64_t b, int drop,
		       uint32_t key);
void prof_cpu_attn_fwd_ref(float *ctx, const float *qkv,
			   const struct prof_dims *d, int64_t b, int drop,
			   uint32_t key);
void prof_cpu_attn_bwd_ref(float *dqkv, const float *dctx,
			   const float *qkv, const struct prof_dims *d,
			   int64_t b, int drop, uint32_t key);
void prof_cpu_gelu_fwd(float *y, const float *x, int64_t n);
void prof_cpu_gelu_bwd(float *dx, const float *dy, const float *x,
		       int64_t n);
void prof_cpu_swiglu_fwd(float *y, const float *x, int64_t T, int64_t f);
void prof_cpu_swiglu_bwd(float *dx, const float *dy, const float *x,
			 int64_t T, int64_t f);
void prof_cpu_xent_fwd(float *loss, const float *logits, const int *target,
		       int64_t T, int64_t v);
void prof_cpu_xent_bwd(float *dlogits, const float *dloss,
		       const float *logits, const int *target, int64_t T,
		       int64_t v);

#endif
