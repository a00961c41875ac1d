/*
 * wmma_emu.h - the host emulation (emu.h) of the WMMA subset that
 * profiler/flash.cuh uses: m16n16k16 fragments of __half or
 * __nv_bfloat16 inputs with fp32 accumulators, fill_fragment,
 * load_matrix_sync, store_matrix_sync and mma_sync, plus __syncwarp.
 * Included by cuda_emu.h.
 *
 * The device spreads a fragment over the 32 lanes of a warp in an
 * unspecified way (8 elements a lane for 16-bit inputs); here every lane
 * holds the whole 16 x 16 tile, so num_elements is 256.  Code that
 * touches x[] only uniformly (every element the same way, as in scaling
 * by a constant) behaves the same on both; code that indexes elements
 * by position is wrong on the device and not caught here.
 *
 * mma_sync is a warp collective as on the device: all 32 lanes must call
 * it together.  Each lane computes 8 of the 256 products in fp32 (the
 * 16-bit inputs converted to float, accumulated in k order), publishes
 * them in a per-warp buffer and, after a warp barrier, copies the whole
 * tile; so the emulation costs one tile product a warp, not one a lane.
 */
#ifndef PD2BW_WMMA_EMU_H
#define PD2BW_WMMA_EMU_H

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "emu.h"

/*
 * A barrier of the warp: every lane must reach it (the full mask is the
 * only one emulated).  Fragment stores are followed by one before lanes
 * read what other lanes stored.
 */
static inline void
__syncwarp(unsigned mask = 0xffffffffu)
{
	(void)emu_warp_exchange(mask, 0, emu_lane());
}

namespace nvcuda {
namespace wmma {

struct row_major;
struct col_major;
struct matrix_a;
struct matrix_b;
struct accumulator;

enum layout_t { mem_row_major, mem_col_major };

static inline float emu_tof(__half x) { return __half2float(x); }
static inline float emu_tof(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename Use, typename T> struct emu_frag_ok {
	enum { value = 0 };
};
template <> struct emu_frag_ok<matrix_a, __half> { enum { value = 1 }; };
template <> struct emu_frag_ok<matrix_b, __half> { enum { value = 1 }; };
template <> struct emu_frag_ok<matrix_a, __nv_bfloat16> {
	enum { value = 1 };
};
template <> struct emu_frag_ok<matrix_b, __nv_bfloat16> {
	enum { value = 1 };
};
template <> struct emu_frag_ok<accumulator, float> { enum { value = 1 }; };

/* Element (r, c) of the tile is x[16 r + c] here; not on the device. */
template <typename Use, int M, int N, int K, typename T,
	  typename Layout = void>
class fragment {
	static_assert(M == 16 && N == 16 && K == 16,
		      "only m16n16k16 fragments are emulated");
	static_assert(emu_frag_ok<Use, T>::value,
		      "only __half or __nv_bfloat16 inputs with float "
		      "accumulators are emulated");

public:
	typedef T element_type;
	enum { num_elements = M * N };
	T x[M * N];
};

/*
 * The device's rules (CUDA C++ Programming Guide, WMMA): the tile pointer
 * 256-bit (32-byte) aligned, ldm a multiple of 16 bytes.
 */
static inline void
emu_check_tile(const void *p, unsigned ldm, size_t esize, const char *what)
{
	if ((uintptr_t)p % 32)
		emu_fatal("%s: tile at %p is not 32-byte aligned", what, p);
	if (ldm * esize % 16 || ldm < 16)
		emu_fatal("%s: leading dimension %u is not a multiple of 16 "
			  "bytes of at least 16 elements", what, ldm);
}

template <typename L> struct emu_is_col {
	enum { value = 0 };
};
template <> struct emu_is_col<col_major> { enum { value = 1 }; };

template <typename Use, typename T, typename Layout>
static inline void
load_matrix_sync(fragment<Use, 16, 16, 16, T, Layout> &f, const T *p,
		 unsigned ldm)
{
	emu_check_tile(p, ldm, sizeof(T), "load_matrix_sync");
	for (int r = 0; r < 16; r++)
		for (int c = 0; c < 16; c++)
			f.x[16 * r + c] = emu_is_col<Layout>::value ?
					  p[r + (size_t)c * ldm] :
					  p[(size_t)r * ldm + c];
}

static inline void
load_matrix_sync(fragment<accumulator, 16, 16, 16, float> &f,
		 const float *p, unsigned ldm, layout_t l)
{
	emu_check_tile(p, ldm, sizeof(float), "load_matrix_sync");
	for (int r = 0; r < 16; r++)
		for (int c = 0; c < 16; c++)
			f.x[16 * r + c] = l == mem_col_major ?
					  p[r + (size_t)c * ldm] :
					  p[(size_t)r * ldm + c];
}

static inline void
store_matrix_sync(float *p, const fragment<accumulator, 16, 16, 16, float> &f,
		  unsigned ldm, layout_t l)
{
	emu_check_tile(p, ldm, sizeof(float), "store_matrix_sync");
	for (int r = 0; r < 16; r++)
		for (int c = 0; c < 16; c++) {
			float *q = l == mem_col_major ?
				   &p[r + (size_t)c * ldm] :
				   &p[(size_t)r * ldm + c];

			*q = f.x[16 * r + c];
		}
}

template <typename Use, typename T, typename Layout, typename V>
static inline void
fill_fragment(fragment<Use, 16, 16, 16, T, Layout> &f, const V &v)
{
	for (int i = 0; i < 256; i++)
		f.x[i] = v;
}

/*
 * Where the lanes of the calling warp publish their products: two
 * buffers a warp, used in turn (a lane reuses one only after the next
 * mma_sync's barrier, which every lane passes after it has copied this
 * one out).  Blocks run one after another, so one set serves them all.
 */
static inline float *
emu_mma_slot(void)
{
	static float buf[2][32][256];
	static unsigned char turn[1024];
	unsigned n = emu_blockDim.x * emu_blockDim.y * emu_blockDim.z;
	unsigned t = (emu_threadIdx.z * emu_blockDim.y + emu_threadIdx.y) *
		     emu_blockDim.x + emu_threadIdx.x;

	if (n % 32)
		emu_fatal("mma_sync in a block of %u threads: partial warp",
			  n);
	return buf[turn[t]++ & 1][t / 32];
}

template <typename T, typename LA, typename LB>
static inline void
mma_sync(fragment<accumulator, 16, 16, 16, float> &d,
	 const fragment<matrix_a, 16, 16, 16, T, LA> &a,
	 const fragment<matrix_b, 16, 16, 16, T, LB> &b,
	 const fragment<accumulator, 16, 16, 16, float> &c)
{
	float *out = emu_mma_slot();
	int e0 = emu_lane() * 8;

	for (int e = e0; e < e0 + 8; e++) {
		int i = e / 16, j = e % 16;
		float acc = c.x[e];

		for (int k = 0; k < 16; k++)
			acc += emu_tof(a.x[16 * i + k]) *
			       emu_tof(b.x[16 * k + j]);
		out[e] = acc;
	}
	__syncwarp();
	for (int e = 0; e < 256; e++)
		d.x[e] = out[e];
}

} /* namespace wmma */
} /* namespace nvcuda */

#endif
