/*
 * cuda_emu.h - the device side of the host emulation (emu.h): included by
 * profiler/gpu.cu after the CUDA headers when it is compiled as host C++
 * with -DPD2BW_EMU.  It gives kernels their built-in variables, barriers,
 * warp shuffles and atomics, and turns LAUNCH(kernel, grid, block,
 * stream, args...) into a call of emu_launch, which runs every thread of
 * every block on the calling thread: threads of a block are fibers that
 * switch only at __syncthreads and at warp collectives, so a kernel's
 * shared memory (static storage here), its reductions and its races on
 * barriers behave as on the device, and a barrier that not every live
 * thread reaches is reported instead of hanging.
 */
#ifndef PD2BW_CUDA_EMU_H
#define PD2BW_CUDA_EMU_H

#include <cmath>
#include <cstdint>
#include <cstring>

#include <cuda_runtime.h>

#include "emu.h"

/* ---- built-in variables: set by the scheduler before a thread runs ---- */

extern "C" {
extern uint3 emu_threadIdx, emu_blockIdx;
extern dim3 emu_blockDim, emu_gridDim;
}
#define threadIdx emu_threadIdx
#define blockIdx emu_blockIdx
#define blockDim emu_blockDim
#define gridDim emu_gridDim

/* Shared memory: one instance, used by the block that is running. */
#undef __shared__
#define __shared__ static

/* ---- barriers and collectives (cudart_emu.cc) ---- */

extern "C" {
/*
 * __syncthreads: wait for every thread of the block that has not exited.
 * The site (file, line) tells barriers apart; a call's address would not,
 * as the compiler may duplicate or merge calls.
 */
void emu_syncthreads(const char *file, int line);
/*
 * A warp collective: publish v in this lane's slot, wait for the whole
 * warp (every lane must be alive and must name all of them in mask, as
 * the 0xffffffff masks here do), and return the slot of lane src.
 */
uint64_t emu_warp_exchange(unsigned mask, uint64_t v, int src);
/* The running thread's lane (threadIdx linearised, modulo 32). */
int emu_lane(void);
/*
 * Run body(arg) for every thread of grid x block with smem bytes of
 * dynamic shared memory (see PD2BW_DYNAMIC_SHARED); name is the kernel's
 * name for CUPTI; *mode is the launch site's memory of whether its
 * kernel ever used a barrier (0 unknown, 1 yes, 2 never: then threads
 * run one after the other, without fibers).  Sets the runtime's last
 * error on an invalid configuration, as the device would.
 */
void emu_launch_raw(const char *name, dim3 grid, dim3 block, size_t smem,
		    cudaStream_t st, int *mode, void (*body)(void *),
		    void *arg);
/* The running launch's dynamic shared memory (16-byte aligned). */
void *emu_dynamic_shared(void);
}

/* A kernel's dynamic shared memory: extern __shared__ on the device. */
#define PD2BW_DYNAMIC_SHARED(type, name)                                     \
	type *name = (type *)emu_dynamic_shared()

#define __syncthreads() emu_syncthreads(__FILE__, __LINE__)

/* The device's abort. */
static inline void
__trap(void)
{
	emu_fatal("a kernel called __trap()");
}

template <typename V>
static inline V
__shfl_xor_sync(unsigned mask, V v, int lanemask)
{
	uint64_t bits = 0;
	V r;

	static_assert(sizeof(V) <= sizeof(bits), "shuffle of a wide type");
	memcpy(&bits, &v, sizeof(v));
	bits = emu_warp_exchange(mask, bits, emu_lane() ^ lanemask);
	memcpy(&r, &bits, sizeof(r));
	return r;
}

/* Fibers switch only at barriers, so a read-modify-write is atomic. */
template <typename V>
static inline V
atomicAdd(V *p, V v)
{
	V old = *p;

	*p = old + v;
	return old;
}

/* Device math (cudart_emu.cc); the CUDA headers declare __expf. */
extern "C" float rsqrtf(float x);

template <typename F>
static void
emu_body(void *f)
{
	(*(F *)f)();
}

template <typename F>
static void
emu_launch(const char *name, dim3 grid, dim3 block, size_t smem,
	   cudaStream_t st, F f)
{
	static int mode;

	emu_launch_raw(name, grid, block, smem, st, &mode, emu_body<F>, &f);
}

#define LAUNCH(k, grid, block, st, ...)                                      \
	emu_launch(#k, dim3(grid), dim3(block), 0, (st),                     \
		   [&]() { k(__VA_ARGS__); })
#define LAUNCH_SMEM(k, grid, block, smem, st, ...)                           \
	emu_launch(#k, dim3(grid), dim3(block), (smem), (st),                \
		   [&]() { k(__VA_ARGS__); })

/* Tensor cores: the WMMA subset flash.cuh uses, and __syncwarp. */
#include "wmma_emu.h"

#endif
