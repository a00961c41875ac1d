/*
 * gpu.h - the CUDA backend of pd2bw-profile (gpu.cu, built into the shared
 * object pd2bw-cuda.so that gpu_dl.c loads at run time; gpu_dl.c alone,
 * saying "built without CUDA", without nvcc): 16-bit activations and weights with fp32 accumulation,
 * cuBLASLt GEMMs, own kernels for the other ops, CUDA events as the timer,
 * CUPTI kernel records attributed to layers, NVTX ranges, and a tagging
 * device allocator.  The backend itself is prof_cuda_backend (measure.h).
 */
#ifndef PD2BW_PROF_GPU_H
#define PD2BW_PROF_GPU_H

#include <stddef.h>

#include "measure.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Whether a CUDA device can be used: 1, or 0 with the reason in why
 * ("built without CUDA", "no CUDA device: ...").
 */
int prof_gpu_available(char *why, size_t n);

/*
 * Check every kernel of tiny gpt, bert and llama layers in bf16 and fp16
 * against the CPU reference and time them once; report(ok, what, arg) is
 * called once per check.  Returns the number of failed checks, or -1 on a
 * CUDA error (after a message).
 */
int prof_gpu_selftest(void (*report)(int ok, const char *what, void *arg),
		      void *arg);

/* The rate of one GEMM, timed with CUDA events. */
struct prof_gemm_rate {
	double ms;         /* median of o->repeats after o->warmup */
	double spread;     /* (max - min) / median */
	double tflops;     /* 2 M K N / ms */
	char device[256];  /* the device's name */
};

/*
 * Time Y = X W^T, X [M x K], W [N x K], Y [M x N] (mkn = {M, K, N}), in
 * o->precision on device o->device through the backend's cuBLASLt path,
 * as a linear layer of M tokens runs.  Returns 0 or -1 after a message.
 */
int prof_gpu_gemm_bench(const struct prof_opts *o, const int64_t mkn[3],
			struct prof_gemm_rate *r);

#ifdef __cplusplus
}
#endif

#if defined(__CUDACC__) || defined(PD2BW_EMU)
/* Report a failed CUDA runtime call with file:line and return -1. */
#define PD2BW_CUDA_CHECK(expr)                                               \
	do {                                                                 \
		cudaError_t e_ = (expr);                                     \
		if (e_ != cudaSuccess)                                       \
			return pd2bw_error("%s:%d: %s: %s", __FILE__,        \
					   __LINE__, #expr,                  \
					   cudaGetErrorString(e_));          \
	} while (0)
#endif

#endif
