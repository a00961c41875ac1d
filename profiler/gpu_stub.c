/*
 * gpu_stub.c - the cuda backend of a pd2bw-profile built without nvcc: it
 * says so and fails cleanly.
 */
#include <stdio.h>

#include "pd2bw/error.h"
#include "gpu.h"

int
prof_gpu_available(char *why, size_t n)
{
	snprintf(why, n, "built without CUDA");
	return 0;
}

int
prof_gpu_selftest(void (*report)(int ok, const char *what, void *arg),
		  void *arg)
{
	(void)report;
	(void)arg;
	return pd2bw_error("built without CUDA");
}

int
prof_gpu_gemm_bench(const struct prof_opts *o, int64_t n,
		    struct prof_gemm_rate *r)
{
	(void)o;
	(void)n;
	(void)r;
	return pd2bw_error("--gemm: built without CUDA (rebuild with nvcc "
			   "on PATH)");
}

static int
stub_open(void **ctx, const struct prof_opts *o, struct profile *p)
{
	(void)o;
	(void)p;
	*ctx = NULL;
	return pd2bw_error("cuda backend: built without CUDA (rebuild "
			   "with nvcc on PATH)");
}

const struct prof_backend prof_cuda_backend = {
	"cuda", stub_open, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};
