/*
 * test_emu_runtime.cc - the runtime half of the host emulation: barriers,
 * shared memory and warp shuffles give the device's results, misuse (a
 * divergent barrier, a collective after lanes exited) is reported, bad
 * launch shapes set the last error, memory is capped and accounted, and
 * events measure elapsed time.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuda_emu.h"
#include "dies.h"
#include "harness.h"

/* Tree reduction in shared memory: out[block] = sum of in[block]. */
__global__ void
k_block_sum(int *out, const int *in)
{
	__shared__ int s[256];
	int t = threadIdx.x;

	s[t] = in[blockIdx.x * blockDim.x + t];
	__syncthreads();
	for (int o = blockDim.x / 2; o > 0; o >>= 1) {
		if (t < o)
			s[t] += s[t + o];
		__syncthreads();
	}
	if (t == 0)
		out[blockIdx.x] = s[0];
}

/* Butterfly over each warp: every lane ends with its warp's sum. */
__global__ void
k_warp_sum(float *out, const float *in)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v = in[i];

	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	out[i] = v;
}

/* 2-D blocks and grids: each element gets its coordinates. */
__global__ void
k_coords(int *out, int w)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;

	if (x < w)
		out[y * w + x] = y * 1000 + x;
}

/*
 * Each thread reads what its neighbour wrote to shared memory in this
 * launch (v differs between launches); with barrier after a
 * __syncthreads (correct), else without one (a race).
 */
__global__ void
k_neighbour(int *out, int v, int barrier)
{
	__shared__ int s[64];
	int t = threadIdx.x;

	s[t] = t + v;
	if (barrier)
		__syncthreads();
	out[t] = s[(t + 1) % 64];
}

/* Whether every thread read its neighbour's value, in forward and in
 * reverse order. */
static int
right_both_orders(int *out, int barrier)
{
	static int v;
	int ok = 1;

	for (int o = 0; o < 2; o++) {
		v += 100;
		setenv("PD2BW_EMU_ORDER", o ? "reverse" : "forward", 1);
		LAUNCH(k_neighbour, 1, 64, 0, out, v, barrier);
		for (int t = 0; t < 64; t++)
			ok &= out[t] == (t + 1) % 64 + v;
	}
	setenv("PD2BW_EMU_ORDER", "forward", 1);
	return ok;
}

/* Reverse each block's values through dynamic shared memory. */
__global__ void
k_reverse(int *out, const int *in)
{
	PD2BW_DYNAMIC_SHARED(int, buf);
	int t = threadIdx.x, base = blockIdx.x * blockDim.x;

	buf[t] = in[base + t];
	__syncthreads();
	out[base + t] = buf[blockDim.x - 1 - t];
}

__global__ void
k_atomic(float *acc)
{
	atomicAdd(acc, 1.0f);
}

/* Only the first half of the block reaches the barrier: fine, the rest
 * has exited (sm_70 and later). */
__global__ void
k_half_barrier(int *out)
{
	if (threadIdx.x >= blockDim.x / 2)
		return;
	out[threadIdx.x] = threadIdx.x;
	__syncthreads();
	out[blockDim.x / 2 + threadIdx.x] = out[threadIdx.x] +
		out[blockDim.x / 2 - 1 - threadIdx.x];
}

/*
 * The two halves of the block wait at different barriers (the work
 * around each keeps the compiler from merging the two calls).
 */
__global__ void
k_divergent(int *out)
{
	if (threadIdx.x < blockDim.x / 2) {
		out[threadIdx.x] = 1;
		__syncthreads();
		out[threadIdx.x] += 10;
	} else {
		out[threadIdx.x] = 2;
		__syncthreads();
		out[threadIdx.x] *= 20;
	}
}

/* Half a warp at a barrier, the other half at a shuffle. */
__global__ void
k_deadlock(float *out)
{
	if (threadIdx.x < 16)
		__syncthreads();
	else
		out[threadIdx.x] = __shfl_xor_sync(0xffffffffu, 1.0f, 1);
}

/* Half the warp exits, the rest shuffles with a full mask. */
__global__ void
k_half_warp(float *out)
{
	if (threadIdx.x >= 16)
		return;
	out[threadIdx.x] = __shfl_xor_sync(0xffffffffu, 1.0f, 1);
}

static void
run_divergent(void *)
{
	int *out;

	cudaMalloc((void **)&out, 64 * sizeof(int));
	LAUNCH(k_divergent, 1, 64, 0, out);
}

static void
run_deadlock(void *)
{
	float *out;

	cudaMalloc((void **)&out, 32 * sizeof(float));
	LAUNCH(k_deadlock, 1, 32, 0, out);
}

static void
run_half_warp(void *)
{
	float *out;

	cudaMalloc((void **)&out, 32 * sizeof(float));
	LAUNCH(k_half_warp, 1, 32, 0, out);
}

static void
run_copy_outside(void *)
{
	char *p, host[64];

	cudaMalloc((void **)&p, 32);
	cudaMemcpy(host, p + 16, 32, cudaMemcpyDeviceToHost);
}

int
main(void)
{
	int *in, *out, *co;
	float *f, *g, *acc;
	cudaEvent_t e0, e1;
	float ms = -1;
	void *big;
	uint64_t high = 0;
	cudaMemPool_t pool;
	int ok;

	/* a small device, so that running out of memory is cheap */
	setenv("PD2BW_EMU_MEM", "1048576", 1);
	CHECK(cudaMalloc((void **)&in, 3 * 256 * sizeof(int)) == cudaSuccess);
	CHECK(cudaMalloc((void **)&out, 3 * sizeof(int)) == cudaSuccess);
	for (int i = 0; i < 3 * 256; i++)
		in[i] = i;
	LAUNCH(k_block_sum, 3, 256, 0, out, in);
	CHECK(cudaGetLastError() == cudaSuccess);
	CHECK_INT_EQ(out[0], 255 * 256 / 2);
	CHECK_INT_EQ(out[1], (256 + 511) * 256 / 2);
	CHECK_INT_EQ(out[2], (512 + 767) * 256 / 2);
	/* the launch site remembers the barrier and keeps using fibers */
	LAUNCH(k_block_sum, 3, 256, 0, out, in);
	CHECK_INT_EQ(out[2], (512 + 767) * 256 / 2);

	CHECK(cudaMalloc((void **)&f, 128 * sizeof(float)) == cudaSuccess);
	CHECK(cudaMalloc((void **)&g, 128 * sizeof(float)) == cudaSuccess);
	for (int i = 0; i < 128; i++)
		f[i] = (float)i;
	LAUNCH(k_warp_sum, 2, 64, 0, g, f);
	ok = 1;
	for (int i = 0; i < 128; i++) {
		int w0 = i / 32 * 32;

		ok &= g[i] == (float)(32 * w0 + 31 * 32 / 2);
	}
	CHECK_MSG(ok, "warp butterfly: every lane holds its warp's sum");

	CHECK(cudaMalloc((void **)&co, 3 * 256 * sizeof(int)) == cudaSuccess);
	LAUNCH(k_coords, dim3(3, 2), dim3(16, 3), 0, co, 40);
	CHECK_INT_EQ(co[0], 0);
	CHECK_INT_EQ(co[39], 39);
	CHECK_INT_EQ(co[5 * 40 + 17], 5017);

	LAUNCH_SMEM(k_reverse, 3, 256, 256 * sizeof(int), 0, co, in);
	CHECK_INT_EQ(co[0], 255);
	CHECK_INT_EQ(co[255], 0);
	CHECK_INT_EQ(co[256], 511);
	LAUNCH_SMEM(k_reverse, 1, 64, 300 * 1024, 0, co, in);
	CHECK(cudaGetLastError() == cudaErrorInvalidValue);

	/* the order threads run in shows a race and only a race */
	CHECK_MSG(right_both_orders(co, 1),
		  "a kernel with its barriers: right in either order");
	CHECK_MSG(!right_both_orders(co, 0),
		  "a racing kernel: wrong in one order at least");

	CHECK(cudaMalloc((void **)&acc, sizeof(float)) == cudaSuccess);
	*acc = 0;
	LAUNCH(k_atomic, 5, 96, 0, acc);
	CHECK(*acc == 480.0f);

	/* shapes the device refuses set the sticky error, read once */
	LAUNCH(k_atomic, 0, 32, 0, acc);
	CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
	CHECK(cudaGetLastError() == cudaSuccess);
	LAUNCH(k_atomic, 1, 2048, 0, acc);
	CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
	CHECK(*acc == 480.0f);

	/* memory: capped, accounted in 256-byte granules, range checks */
	CHECK(cudaMalloc(&big, 2 << 20) == cudaErrorMemoryAllocation);
	CHECK(big == NULL);
	CHECK(cudaGetLastError() == cudaErrorMemoryAllocation);
	CHECK(emu_dev_range(in, 3 * 256 * sizeof(int)));
	CHECK(!emu_dev_range(in, 3 * 256 * sizeof(int) + 1));
	CHECK(!emu_dev_range(in - 1, 4));
	CHECK(!emu_dev_range(&ok, sizeof(ok)));
	CHECK(cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess);
	CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh,
				      &high) == cudaSuccess);
	CHECK_INT_EQ(high, 3072 + 256 + 512 + 512 + 3072 + 256);
	CHECK(cudaFree(co) == cudaSuccess);
	high = 0;
	CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh,
				      &high) == cudaSuccess);
	CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh,
				      &high) == cudaSuccess);
	CHECK_INT_EQ(high, 3072 + 256 + 512 + 512 + 256);

	CHECK(cudaEventCreate(&e0) == cudaSuccess);
	CHECK(cudaEventCreate(&e1) == cudaSuccess);
	CHECK(cudaEventElapsedTime(&ms, e0, e1) ==
	      cudaErrorInvalidResourceHandle);
	cudaGetLastError();
	cudaEventRecord(e0, 0);
	LAUNCH(k_block_sum, 3, 256, 0, out, in);
	cudaEventRecord(e1, 0);
	CHECK(cudaEventElapsedTime(&ms, e0, e1) == cudaSuccess);
	CHECK(ms > 0 && ms < 10000);

	CHECK(cudaMalloc((void **)&co, 64 * sizeof(int)) == cudaSuccess);
	LAUNCH(k_half_barrier, 1, 64, 0, co);
	CHECK_INT_EQ(co[32], 31);
	CHECK_INT_EQ(co[63], 31);
	cudaFree(co);
	CHECK_MSG(dies_with(run_divergent, NULL, "threads wait at different "
			    "__syncthreads"),
		  "two barriers that split the block are reported");
	CHECK_MSG(dies_with(run_deadlock, NULL, "deadlocks: 16 threads wait at "
			    "__syncthreads, 16 at warp collectives, 0 "
			    "exited"),
		  "a barrier against a shuffle is reported");
	CHECK_MSG(dies_with(run_half_warp, NULL, "full-mask collective "
			    "after 16 of its lanes exited"),
		  "a shuffle after lanes exited is reported");
	CHECK_MSG(dies_with(run_copy_outside, NULL, "cudaMemcpy source of 32 "
			    "bytes"),
		  "a copy past an allocation is reported");

	cudaFree(in);
	cudaFree(out);
	cudaFree(f);
	cudaFree(g);
	cudaFree(acc);
	cudaEventDestroy(e0);
	cudaEventDestroy(e1);
	return h_done();
}
