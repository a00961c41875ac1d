/*
 * gpu.cu - the cuda backend of pd2bw-profile (first slice: device
 * discovery and metadata; the kernels follow).
 */
#include <cstdio>
#include <cstring>

#include <cuda_runtime.h>

/* error.h is C11; its _Noreturn is spelled [[noreturn]] in C++. */
#define _Noreturn [[noreturn]]
extern "C" {
#include "pd2bw/error.h"
}
#undef _Noreturn
#include "gpu.h"

const char *const prof_mem_tag_names[] = {
	"weights", "gradients", "optimizer", "stash", "workspace", NULL
};

extern "C" int
prof_gpu_available(char *why, size_t n)
{
	int count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);

	if (e != cudaSuccess) {
		snprintf(why, n, "no usable CUDA device: %s",
			 cudaGetErrorString(e));
		return 0;
	}
	if (count < 1) {
		snprintf(why, n, "no CUDA device");
		return 0;
	}
	return 1;
}

extern "C" int
prof_gpu_selftest(void (*report)(int ok, const char *what, void *arg),
		  void *arg)
{
	(void)report;
	(void)arg;
	return pd2bw_error("GPU kernels not built yet");
}

static int
gpu_open(void **ctx, const struct prof_opts *o, struct profile *p)
{
	char why[256];

	(void)o;
	(void)p;
	*ctx = NULL;
	if (!prof_gpu_available(why, sizeof(why)))
		return pd2bw_error("cuda backend: %s", why);
	return pd2bw_error("cuda backend: kernels not built yet");
}

extern "C" const struct prof_backend prof_cuda_backend = {
	"cuda", gpu_open, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};
