/*
 * dropout.h - the dropout masks of both backends: a counter-based hash of
 * (key, element index), so the CPU reference (cpu.c, C11) and every CUDA
 * kernel (gpu.cu, device code or its host emulation) draw the very same
 * mask without sharing any RNG state, and backward could redraw it.
 *
 * A key names one mask: prof_dropout_key(seed, op) for op `op` of a layer
 * whose seed is the layer's index in its graph (0 embedding, 1 block, 2
 * head).  Both backends derive it so, which makes the GPU layer and the
 * CPU layer it is checked against agree; every instance of the repeated
 * block draws the same masks, which changes no time or byte the profiler
 * measures.
 */
#ifndef PD2BW_PROF_DROPOUT_H
#define PD2BW_PROF_DROPOUT_H

#include <stdint.h>

#include "graph.h"

#if defined(__CUDACC__) || defined(PD2BW_EMU)
#define PROF_HD __host__ __device__
#else
#define PROF_HD
#endif

/* Element kept iff its hash is at least p * 2^32: P(keep) = 1 - p. */
#define PROF_DROPOUT_CUT ((uint32_t)(PROF_DROPOUT_P * 4294967296.0))
/* Kept elements are scaled so the expectation is unchanged. */
#define PROF_DROPOUT_SCALE ((float)(1.0 / (1.0 - PROF_DROPOUT_P)))

/* A 32-bit finaliser (xor-shift-multiply): every input bit reaches every
 * output bit, so consecutive indices give independent-looking values. */
static inline PROF_HD uint32_t
prof_mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

/* The key of op `op`'s mask in a layer drawn from seed. */
static inline PROF_HD uint32_t
prof_dropout_key(uint32_t seed, uint32_t op)
{
	return prof_mix32(seed * 0x9e3779b1u ^
			  prof_mix32(op + 0x632be5abu));
}

/*
 * Keep element i of the mask named by key?  The key scrambles the low
 * index bits before the first round (a bijection, so no two elements of
 * one mask share an input); the second round folds in the high bits,
 * which tensors past 2^32 elements (scores at large microbatches) have.
 */
static inline PROF_HD int
prof_dropout_keep(uint32_t key, int64_t i)
{
	uint32_t x = prof_mix32((uint32_t)i ^ key);

	x = prof_mix32(x ^ (uint32_t)((uint64_t)i >> 32));
	return x >= PROF_DROPOUT_CUT;
}

#endif
