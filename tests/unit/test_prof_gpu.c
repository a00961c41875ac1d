/*
 * test_prof_gpu.c - the CUDA kernels of pd2bw-profile against the CPU
 * reference (bf16, fp16, fp32; gpt, bert and llama layers), and one timed
 * block per case.  Skipped (exit 77) without a GPU or without CUDA.
 */
#include <stdio.h>

#include "harness.h"
#include "../../profiler/gpu.h"

#if defined(__SANITIZE_ADDRESS__)
/*
 * The CUDA runtime maps memory where AddressSanitizer's shadow gap is;
 * without this, cudaGetDeviceCount fails under make check (SAN=1).  The
 * name is AddressSanitizer's hook, hence the leading underscores.
 */
const char *__asan_default_options(void);

const char *
__asan_default_options(void)
{
	return "protect_shadow_gap=0";
}
#endif

static void
report(int ok, const char *what, void *arg)
{
	(void)arg;
	h_check(ok, what, __FILE__, __LINE__);
}

int
main(void)
{
	char why[256];
	int r;

	(void)h_skip;
	if (!prof_gpu_available(why, sizeof(why)))
		h_skip_all(why);
	r = prof_gpu_selftest(report, NULL);
	CHECK_MSG(r >= 0, "GPU self-test ran without CUDA errors");
	CHECK_MSG(h_n > 20, "GPU self-test made its checks");
	return h_done();
}
