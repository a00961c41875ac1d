/*
 * gpu.cu - the cuda backend of pd2bw-profile: the layer graph of graph.h
 * executed in bf16, fp16 or fp32 storage with fp32 accumulation; GEMMs
 * (linear layers and the batched attention products) through cuBLASLt with
 * the bias fused as an epilogue, and the GELU after fc1 too (GELU_AUX_BIAS
 * forward, DGELU in fc2's backward) where cuBLASLt has those epilogues;
 * own kernels for embedding, norms, softmax,
 * rotary/GQA packing, GELU, SwiGLU, residual and cross-entropy; with
 * flash_attention in bf16/fp16 the fused tensor-core attention of
 * flash.cuh instead of the score GEMMs and softmax; dropout (graph.h)
 * fused into the embedding, residual and softmax kernels, its masks drawn
 * from the hash the CPU reference uses (dropout.h).  Every kernel is
 * checked against the CPU reference (cpu.c) on a reduced shape before
 * anything is timed.  CUDA events time each layer's forward and
 * backward; CUPTI kernel records with external correlation ids attribute
 * every kernel (cuBLASLt's too) to a layer and pass; NVTX ranges name the
 * layers for Nsight; a tagging allocator on the stream-ordered pool counts
 * current and peak bytes per tag, and reports out-of-memory so the
 * microbatch sweep can stop.
 */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#ifdef PD2BW_HAVE_CUPTI
#include <cupti.h>
#endif

/* error.h is C11; its _Noreturn is spelled [[noreturn]] in C++. */
#define _Noreturn [[noreturn]]
extern "C" {
#include "pd2bw/error.h"
#include "pd2bw/yml.h"
#include "cpu.h"
#include "graph.h"
}
#undef _Noreturn
#include "dropout.h"
#include "gpu.h"
#include "trace.h"

#ifdef PD2BW_EMU
/* the host emulation of tests/emu: kernels run as host fibers */
#include "cuda_emu.h"
#else
#define LAUNCH(k, grid, block, st, ...)                                      \
	k<<<(grid), (block), 0, (st)>>>(__VA_ARGS__)
#define LAUNCH_SMEM(k, grid, block, smem, st, ...)                           \
	k<<<(grid), (block), (smem), (st)>>>(__VA_ARGS__)
#define PD2BW_DYNAMIC_SHARED(type, name)                                     \
	extern __shared__ __align__(16) unsigned char pd2bw_smem_[];         \
	type *name = (type *)pd2bw_smem_
#endif
/* fused attention on tensor cores (WMMA) */
#include "flash.cuh"

#define LT_CHECK(expr)                                                       \
	do {                                                                 \
		cublasStatus_t s_ = (expr);                                  \
		if (s_ != CUBLAS_STATUS_SUCCESS)                             \
			return pd2bw_error("%s:%d: %s: %s", __FILE__,        \
					   __LINE__, #expr,                  \
					   cublasLtGetStatusString(s_));     \
	} while (0)

#define TRY(expr)                                                            \
	do {                                                                 \
		int r_ = (expr);                                             \
		if (r_)                                                      \
			return r_;                                           \
	} while (0)

#define WORKSPACE_BYTES (32 << 20)
#define BATCH_OFFSET CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET
#define ROPE_BASE 10000.0f
#define NORM_EPS 1e-5f

/* ---- element types ---- */

__device__ __forceinline__ float tof(float x) { return x; }
__device__ __forceinline__ float tof(__half x) { return __half2float(x); }
__device__ __forceinline__ float tof(__nv_bfloat16 x)
{
	return __bfloat162float(x);
}
template <typename T> __device__ __forceinline__ T fromf(float x);
template <> __device__ __forceinline__ float fromf<float>(float x)
{
	return x;
}
template <> __device__ __forceinline__ __half fromf<__half>(float x)
{
	return __float2half(x);
}
template <>
__device__ __forceinline__ __nv_bfloat16 fromf<__nv_bfloat16>(float x)
{
	return __float2bfloat16(x);
}

__device__ __forceinline__ float
warp_sum(float v)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}

__device__ __forceinline__ float
warp_max(float v)
{
	for (int o = 16; o > 0; o >>= 1)
		v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
	return v;
}

static unsigned
blocks(int64_t n, int per)
{
	return (unsigned)((n + per - 1) / per);
}

/* ---- kernels ---- */

template <typename T>
__global__ void
k_from_f32(T *dst, const float *src, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		dst[i] = fromf<T>(src[i]);
}

template <typename T>
__global__ void
k_to_f32(float *dst, const T *src, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		dst[i] = tof(src[i]);
}

/* Uniform in [offset - scale, offset + scale) from a hash of the index. */
template <typename T>
__global__ void
k_init(T *dst, int64_t n, float scale, float offset, uint32_t seed)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	uint32_t x;

	if (i >= n)
		return;
	x = (uint32_t)i * 2654435761u ^ seed * 0x9E3779B9u ^
	    (uint32_t)(i >> 32);
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	dst[i] = fromf<T>(offset + scale * (2.0f * (x >> 8) *
					    (1.0f / 16777216.0f) - 1.0f));
}

/* Element i of a tensor under dropout: keep (scaled) or zero. */
__device__ __forceinline__ float
drop(float v, int keep)
{
	return keep ? v * PROF_DROPOUT_SCALE : 0.0f;
}

/* With mask, dropout on the embedding: the mask drawn from key kept. */
template <typename T>
__global__ void
k_embed_fwd(T *y, uint8_t *mask, const int *ids, const T *tok, const T *pos,
	    int64_t rows, int64_t s, int64_t h, uint32_t key)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, t, c;
	float v;

	if (i >= rows * h)
		return;
	t = i / h;
	c = i % h;
	v = tof(tok[(int64_t)ids[t] * h + c]);
	if (pos)
		v += tof(pos[(t % s) * h + c]);
	if (mask) {
		int keep = prof_dropout_keep(key, i);

		mask[i] = (uint8_t)keep;
		v = drop(v, keep);
	}
	y[i] = fromf<T>(v);
}

template <typename T>
__global__ void
k_embed_bwd(float *dtok, float *dpos, const int *ids, const T *dy,
	    const uint8_t *mask, int64_t rows, int64_t s, int64_t h)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, t, c;
	float g;

	if (i >= rows * h)
		return;
	t = i / h;
	c = i % h;
	g = tof(dy[i]);
	if (mask)
		g = drop(g, mask[i]);
	atomicAdd(&dtok[(int64_t)ids[t] * h + c], g);
	if (dpos)
		atomicAdd(&dpos[(t % s) * h + c], g);
}

/*
 * V consecutive elements of a row: one 16-byte load or store where V
 * elements fill it (the row width a multiple of V, rows and parameters
 * 16-byte aligned), else V scalar ones.  The norms read their rows
 * through these: a warp's load of one element each keeps too few bytes
 * in flight to reach the memory's bandwidth.  (The host emulation copies
 * with memcpy: host C++ may not read a T array through a uint4.)
 */
template <typename T, int V>
__device__ inline void
ldv(T *dst, const T *src)
{
	if (V * sizeof(T) == 16)
#ifdef PD2BW_EMU
		memcpy(dst, src, 16);
#else
		*(uint4 *)dst = *(const uint4 *)src;
#endif
	else
		for (int j = 0; j < V; j++)
			dst[j] = src[j];
}

/* The same, storing. */
template <typename T, int V>
__device__ inline void
stv(T *dst, const T *src)
{
	ldv<T, V>(dst, src);
}

/* The elements a lane takes at a time, as a kernel argument. */
template <int V>
struct vw {
};

/* Whether every pointer is 16-byte aligned (NULL is). */
static int
al16(const void *a, const void *b, const void *c, const void *d)
{
	return (((uintptr_t)a | (uintptr_t)b | (uintptr_t)c | (uintptr_t)d) &
		15) == 0;
}

/*
 * One warp per row, V elements a lane at a time (n a multiple of V).
 * Statistics kept for backward: LayerNorm stats[2r] = mean, stats[2r+1]
 * = rstd; RMSNorm only stats[r] = rstd.
 */
template <typename T, int V>
__global__ void
k_norm_fwd(vw<V>, T *y, float *stats, const T *x, const T *gamma,
	   const T *beta, int64_t rows, int64_t n, int rms)
{
	int64_t r = (int64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
	int lane = threadIdx.x % 32;
	float mean = 0, var = 0, rstd;
	const T *xr;

	if (r >= rows)
		return;
	xr = x + r * n;
	if (!rms) {
		for (int64_t i = lane * V; i < n; i += 32 * V) {
			__align__(16) T a[V];

			ldv<T, V>(a, xr + i);
			for (int j = 0; j < V; j++)
				mean += tof(a[j]);
		}
		mean = warp_sum(mean) / (float)n;
	}
	for (int64_t i = lane * V; i < n; i += 32 * V) {
		__align__(16) T a[V];

		ldv<T, V>(a, xr + i);
		for (int j = 0; j < V; j++) {
			float d = tof(a[j]) - mean;

			var += d * d;
		}
	}
	var = warp_sum(var) / (float)n;
	rstd = rsqrtf(var + NORM_EPS);
	for (int64_t i = lane * V; i < n; i += 32 * V) {
		__align__(16) T a[V], g[V], bb[V], o[V];

		ldv<T, V>(a, xr + i);
		ldv<T, V>(g, gamma + i);
		if (beta)
			ldv<T, V>(bb, beta + i);
		for (int j = 0; j < V; j++) {
			float v = (tof(a[j]) - mean) * rstd * tof(g[j]);

			o[j] = fromf<T>(beta ? v + tof(bb[j]) : v);
		}
		stv<T, V>(y + r * n + i, o);
	}
	if (lane == 0 && rms) {
		stats[r] = rstd;
	} else if (lane == 0) {
		stats[2 * r] = mean;
		stats[2 * r + 1] = rstd;
	}
}

template <typename T, int V>
__global__ void
k_norm_bwd(vw<V>, T *dx, const T *dy, const T *x, const float *stats,
	   const T *gamma, int64_t rows, int64_t n, int rms)
{
	int64_t r = (int64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
	int lane = threadIdx.x % 32;
	float mean, rstd, sum = 0, sumx = 0;

	if (r >= rows)
		return;
	mean = rms ? 0.0f : stats[2 * r];
	rstd = rms ? stats[r] : stats[2 * r + 1];
	for (int64_t i = lane * V; i < n; i += 32 * V) {
		__align__(16) T a[V], b[V], g[V];

		ldv<T, V>(a, dy + r * n + i);
		ldv<T, V>(b, x + r * n + i);
		ldv<T, V>(g, gamma + i);
		for (int j = 0; j < V; j++) {
			float gg = tof(a[j]) * tof(g[j]);

			sum += gg;
			sumx += gg * (tof(b[j]) - mean) * rstd;
		}
	}
	sum = rms ? 0 : warp_sum(sum) / (float)n;
	sumx = warp_sum(sumx) / (float)n;
	for (int64_t i = lane * V; i < n; i += 32 * V) {
		__align__(16) T a[V], b[V], g[V], d[V];

		ldv<T, V>(a, dy + r * n + i);
		ldv<T, V>(b, x + r * n + i);
		ldv<T, V>(g, gamma + i);
		ldv<T, V>(d, dx + r * n + i);
		for (int j = 0; j < V; j++) {
			float xhat = (tof(b[j]) - mean) * rstd;
			float gg = tof(a[j]) * tof(g[j]);

			d[j] = fromf<T>(tof(d[j]) + rstd * (gg - sum -
							    xhat * sumx));
		}
		stv<T, V>(dx + r * n + i, d);
	}
}

/*
 * Column sums over rows: db[c] += sum dy (bias, LayerNorm beta) and, with
 * stats (laid out as k_norm_fwd's, rms saying which), dg[c] += sum dy *
 * xhat (norm gain).  Block (32, 8): 32 columns, 8 row lanes reduced in
 * shared memory, one atomic per column per block.
 */
template <typename T>
__global__ void
k_colsum(float *dg, float *db, const T *dy, const T *x, const float *stats,
	 int rms, int64_t rows, int64_t n)
{
	__shared__ float sg[8][33], sb[8][33];
	int64_t c = (int64_t)blockIdx.x * 32 + threadIdx.x;
	int64_t chunk = (rows + gridDim.y - 1) / gridDim.y;
	int64_t r0 = blockIdx.y * chunk, r1 = r0 + chunk;
	float ag = 0, ab = 0;

	if (r1 > rows)
		r1 = rows;
	if (c < n)
		for (int64_t r = r0 + threadIdx.y; r < r1; r += 8) {
			float g = tof(dy[r * n + c]);

			ab += g;
			if (dg)
				ag += rms ? g * tof(x[r * n + c]) * stats[r] :
				      g * (tof(x[r * n + c]) - stats[2 * r]) *
				      stats[2 * r + 1];
		}
	sg[threadIdx.y][threadIdx.x] = ag;
	sb[threadIdx.y][threadIdx.x] = ab;
	__syncthreads();
	if (threadIdx.y == 0 && c < n) {
		for (int k = 1; k < 8; k++) {
			ag += sg[k][threadIdx.x];
			ab += sb[k][threadIdx.x];
		}
		if (dg)
			atomicAdd(&dg[c], ag);
		if (db)
			atomicAdd(&db[c], ab);
	}
}

__device__ __forceinline__ void
rope_cs(int64_t pos, int64_t p, int64_t d, float *c, float *s)
{
	float th = (float)pos * powf(ROPE_BASE, -2.0f * (float)p / (float)d);

	sincosf(th, s, c);
}

/*
 * The rotary pair of element c of a head of d (cos and sin at its
 * position): out = x cs - x' sn in the first half, x' sn + x cs in the
 * second, x' the element half a head away.
 */
__device__ inline float
rope_fwd(float x, float xo, float cs, float sn, int first)
{
	return first ? x * cs - xo * sn : xo * sn + x * cs;
}

/* Its transpose, for the gradients. */
__device__ inline float
rope_bwd(float g, float go, float cs, float sn, int first)
{
	return first ? g * cs + go * sn : -go * sn + g * cs;
}

/*
 * Unpack qkv [T, (a + 2kv) d] into q, k, v [b, a, s, d] (k and v repeated
 * over the query heads of their group), rotating q and k.  Each thread
 * takes V consecutive elements of a head (d a multiple of 2V, so that a
 * chunk and its rotary pair each lie in one half).
 */
template <typename T, int V>
__global__ void
k_attn_split(vw<V>, T *q, T *k, T *v, const T *qkv, int64_t b, int64_t s,
	     int64_t a, int64_t kv, int64_t d, int rotary)
{
	int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * V;
	int64_t c, pos, hh, bi, grp, cols = (a + 2 * kv) * d, half = d / 2;
	__align__(16) T qa[V], ka[V], va[V], qo[V], ko[V];
	const T *row;

	if (i >= b * a * s * d)
		return;
	c = i % d;
	pos = (i / d) % s;
	hh = (i / (d * s)) % a;
	bi = i / (d * s * a);
	grp = hh / (a / kv);
	row = qkv + (bi * s + pos) * cols;
	ldv<T, V>(qa, row + hh * d + c);
	ldv<T, V>(ka, row + (a + grp) * d + c);
	ldv<T, V>(va, row + (a + kv + grp) * d + c);
	if (rotary) {
		int64_t o = c < half ? c + half : c - half;

		ldv<T, V>(qo, row + hh * d + o);
		ldv<T, V>(ko, row + (a + grp) * d + o);
		for (int j = 0; j < V; j++) {
			int64_t cc = c + j;
			float cs, sn;

			rope_cs(pos, cc < half ? cc : cc - half, d, &cs, &sn);
			qa[j] = fromf<T>(rope_fwd(tof(qa[j]), tof(qo[j]), cs,
						  sn, cc < half));
			ka[j] = fromf<T>(rope_fwd(tof(ka[j]), tof(ko[j]), cs,
						  sn, cc < half));
		}
	}
	stv<T, V>(q + i, qa);
	stv<T, V>(k + i, ka);
	stv<T, V>(v + i, va);
}

/*
 * dqkv += the gradients of q, k, v: rotated back, summed over groups; V
 * consecutive elements a thread, as k_attn_split.
 */
template <typename T, int V>
__global__ void
k_attn_unsplit(vw<V>, T *dqkv, const T *dq, const T *dk, const T *dv,
	       int64_t b, int64_t s, int64_t a, int64_t kv, int64_t d,
	       int rotary)
{
	int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * V;
	int64_t cols = (a + 2 * kv) * d, tok, col, head, c, o, pos, bi, half;
	int64_t h0, h1;
	float acc[V], cs[V], sn[V];
	__align__(16) T g[V], go[V], out[V];
	const T *src;
	int rot;

	if (i >= b * s * cols)
		return;
	tok = i / cols;
	col = i % cols;
	head = col / d;
	c = col % d;
	pos = tok % s;
	bi = tok / s;
	half = d / 2;
	o = c < half ? c + half : c - half;
	if (head < a) {
		src = dq;
		h0 = head;
		h1 = head + 1;
		rot = rotary;
	} else {
		int64_t grp = (head - a) % kv, per = a / kv;

		src = head < a + kv ? dk : dv;
		h0 = grp * per;
		h1 = h0 + per;
		rot = rotary && head < a + kv;
	}
	for (int j = 0; j < V; j++) {
		acc[j] = 0;
		if (rot)
			rope_cs(pos, c + j < half ? c + j : c + j - half, d,
				&cs[j], &sn[j]);
	}
	for (int64_t hh = h0; hh < h1; hh++) {
		const T *gr = src + ((bi * a + hh) * s + pos) * d;

		ldv<T, V>(g, gr + c);
		if (rot)
			ldv<T, V>(go, gr + o);
		for (int j = 0; j < V; j++)
			acc[j] += rot ? rope_bwd(tof(g[j]), tof(go[j]), cs[j],
						 sn[j], c < half)
				      : tof(g[j]);
	}
	ldv<T, V>(out, dqkv + i);
	for (int j = 0; j < V; j++)
		out[j] = fromf<T>(tof(out[j]) + acc[j]);
	stv<T, V>(dqkv + i, out);
}

/*
 * o [b, a, s, d] <-> ctx [b s, a d]; dir 0 packs o into ctx.  V
 * consecutive elements of a head a thread.
 */
template <typename T, int V>
__global__ void
k_heads(vw<V>, T *ctx, T *o, int64_t b, int64_t s, int64_t a, int64_t d,
	int dir)
{
	int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * V;
	int64_t c, pos, hh, bi, j;

	if (i >= b * a * s * d)
		return;
	c = i % d;
	pos = (i / d) % s;
	hh = (i / (d * s)) % a;
	bi = i / (d * s * a);
	j = (bi * s + pos) * a * d + hh * d + c;
	if (dir == 0)
		stv<T, V>(ctx + j, o + i);
	else
		stv<T, V>(o + i, ctx + j);
}

/*
 * One warp per score row: P = softmax(scale * S) under the causal mask.
 * With Pd, attention dropout as well: the mask drawn from key (element j
 * of row r is r * s + j) into mask and P' = mask * P / (1 - p) into Pd,
 * both kept for backward with P itself.
 */
template <typename T>
__global__ void
k_softmax_fwd(T *P, T *Pd, uint8_t *mask, const float *S, int64_t rows,
	      int64_t s, float scale, int causal, uint32_t key)
{
	int64_t r = (int64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
	int lane = threadIdx.x % 32;
	int64_t n, i;
	float mx = -INFINITY, sum = 0;

	if (r >= rows)
		return;
	i = r % s;
	n = causal ? i + 1 : s;
	for (int64_t j = lane; j < n; j += 32)
		mx = fmaxf(mx, S[r * s + j] * scale);
	mx = warp_max(mx);
	for (int64_t j = lane; j < n; j += 32)
		sum += __expf(S[r * s + j] * scale - mx);
	sum = warp_sum(sum);
	for (int64_t j = lane; j < s; j += 32) {
		float p = j < n ? __expf(S[r * s + j] * scale - mx) / sum :
			  0.0f;

		P[r * s + j] = fromf<T>(p);
		if (Pd) {
			int keep = prof_dropout_keep(key, r * s + j);

			mask[r * s + j] = (uint8_t)keep;
			Pd[r * s + j] = fromf<T>(drop(p, keep));
		}
	}
}

/*
 * dS = scale * P * (dP - rowsum(P * dP)).  With mask (attention dropout),
 * dP is that of the dropped P' and becomes P's as mask * dP / (1 - p).
 */
template <typename T>
__global__ void
k_softmax_bwd(T *dS, const T *P, const float *dP, const uint8_t *mask,
	      int64_t rows, int64_t s, float scale)
{
	int64_t r = (int64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
	int lane = threadIdx.x % 32;
	float dot = 0;

	if (r >= rows)
		return;
	for (int64_t j = lane; j < s; j += 32) {
		float g = dP[r * s + j];

		dot += tof(P[r * s + j]) * (mask ? drop(g, mask[r * s + j]) :
					    g);
	}
	dot = warp_sum(dot);
	for (int64_t j = lane; j < s; j += 32) {
		float g = dP[r * s + j];

		if (mask)
			g = drop(g, mask[r * s + j]);
		dS[r * s + j] = fromf<T>(scale * tof(P[r * s + j]) *
					 (g - dot));
	}
}

#define GELU_C 0.7978845608028654f

template <typename T>
__global__ void
k_gelu_fwd(T *y, const T *x, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	float u;

	if (i >= n)
		return;
	u = tof(x[i]);
	y[i] = fromf<T>(0.5f * u *
			(1.0f + tanhf(GELU_C * (u + 0.044715f * u * u * u))));
}

template <typename T>
__global__ void
k_gelu_bwd(T *dx, const T *dy, const T *x, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	float u, th, g;

	if (i >= n)
		return;
	u = tof(x[i]);
	th = tanhf(GELU_C * (u + 0.044715f * u * u * u));
	g = 0.5f * (1.0f + th) + 0.5f * u * (1.0f - th * th) * GELU_C *
				 (1.0f + 3.0f * 0.044715f * u * u);
	dx[i] = fromf<T>(tof(dx[i]) + tof(dy[i]) * g);
}

template <typename T>
__global__ void
k_swiglu_fwd(T *y, const T *x, int64_t rows, int64_t f)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, t, c;
	float g, u;

	if (i >= rows * f)
		return;
	t = i / f;
	c = i % f;
	g = tof(x[t * 2 * f + c]);
	u = tof(x[t * 2 * f + f + c]);
	y[i] = fromf<T>(g / (1.0f + __expf(-g)) * u);
}

template <typename T>
__global__ void
k_swiglu_bwd(T *dx, const T *dy, const T *x, int64_t rows, int64_t f)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, t, c;
	float g, u, sg, d;

	if (i >= rows * f)
		return;
	t = i / f;
	c = i % f;
	g = tof(x[t * 2 * f + c]);
	u = tof(x[t * 2 * f + f + c]);
	sg = 1.0f / (1.0f + __expf(-g));
	d = tof(dy[i]);
	dx[t * 2 * f + c] = fromf<T>(tof(dx[t * 2 * f + c]) +
				     d * u * sg * (1.0f + g * (1.0f - sg)));
	dx[t * 2 * f + f + c] = fromf<T>(tof(dx[t * 2 * f + f + c]) +
					 d * g * sg);
}

template <typename T>
__global__ void
k_add(T *y, const T *a, const T *b, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = fromf<T>(tof(a[i]) + tof(b[i]));
}

/* y = a + mask * b / (1 - p): hidden dropout on the branch b, the mask
 * drawn from key kept for backward */
template <typename T>
__global__ void
k_add_drop(T *y, uint8_t *mask, const T *a, const T *b, int64_t n,
	   uint32_t key)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	int keep;

	if (i >= n)
		return;
	keep = prof_dropout_keep(key, i);
	mask[i] = (uint8_t)keep;
	y[i] = fromf<T>(tof(a[i]) + drop(tof(b[i]), keep));
}

/* k_add_drop's backward: da += dy, db += mask * dy / (1 - p) */
template <typename T>
__global__ void
k_add_drop_bwd(T *da, T *db, const T *dy, const uint8_t *mask, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	float g;

	if (i >= n)
		return;
	g = tof(dy[i]);
	da[i] = fromf<T>(tof(da[i]) + g);
	db[i] = fromf<T>(tof(db[i]) + drop(g, mask[i]));
}

/* y[r, c] += bias[c] (when the bias is too misaligned for the epilogue) */
template <typename T>
__global__ void
k_bias_add(T *y, const T *bias, int64_t rows, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < rows * n)
		y[i] = fromf<T>(tof(y[i]) + tof(bias[i % n]));
}

/* dx += dy */
template <typename T>
__global__ void
k_acc(T *dx, const T *dy, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		dx[i] = fromf<T>(tof(dx[i]) + tof(dy[i]));
}

/* Block of 256 per row: max and sum of exp over the vocabulary. */
template <typename T>
__device__ void
row_lse(const T *z, int64_t v, float *mx_out, float *sum_out)
{
	__shared__ float red[32];
	float mx = -INFINITY, sum = 0;
	int lane = threadIdx.x % 32, w = threadIdx.x / 32;
	int nw = blockDim.x / 32;

	for (int64_t i = threadIdx.x; i < v; i += blockDim.x)
		mx = fmaxf(mx, tof(z[i]));
	mx = warp_max(mx);
	if (lane == 0)
		red[w] = mx;
	__syncthreads();
	mx = red[0];
	for (int k = 1; k < nw; k++)
		mx = fmaxf(mx, red[k]);
	__syncthreads();
	for (int64_t i = threadIdx.x; i < v; i += blockDim.x)
		sum += __expf(tof(z[i]) - mx);
	sum = warp_sum(sum);
	if (lane == 0)
		red[w] = sum;
	__syncthreads();
	sum = 0;
	for (int k = 0; k < nw; k++)
		sum += red[k];
	__syncthreads();
	*mx_out = mx;
	*sum_out = sum;
}

template <typename T>
__global__ void
k_xent_fwd(T *loss, const T *logits, const int *tgt, int64_t v)
{
	const T *z = logits + (int64_t)blockIdx.x * v;
	float mx, sum;

	row_lse(z, v, &mx, &sum);
	if (threadIdx.x == 0)
		loss[blockIdx.x] = fromf<T>(logf(sum) + mx -
					    tof(z[tgt[blockIdx.x]]));
}

template <typename T>
__global__ void
k_xent_bwd(T *dz, const T *dloss, const T *logits, const int *tgt,
	   int64_t v)
{
	const T *z = logits + (int64_t)blockIdx.x * v;
	T *dzr = dz + (int64_t)blockIdx.x * v;
	float mx, sum, g = tof(dloss[blockIdx.x]);
	int t = tgt[blockIdx.x];

	row_lse(z, v, &mx, &sum);
	for (int64_t i = threadIdx.x; i < v; i += blockDim.x) {
		float p = __expf(tof(z[i]) - mx) / sum;

		dzr[i] = fromf<T>(tof(dzr[i]) + g * (p - (i == t ? 1.0f :
							 0.0f)));
	}
}

/* ---- context, allocator ---- */

struct gemm_key {
	int tx, tw, batch, ytype, ep;
	int64_t M, N, K, sX, sW, sY;
	uint32_t align[3];   /* bytes: W (A), X (B), Y (C and D) */
	/* the heuristic reads the bias and aux pointers' alignment too */
	uint32_t align_bias, align_aux;
};

struct gemm_plan {
	gemm_key key;
	cublasLtMatmulDesc_t op;
	cublasLtMatrixLayout_t a, b, c;
	cublasLtMatmulAlgo_t algo;
};

struct kernel_rec {
	uint32_t corr;
	uint64_t ns;
	uint64_t start;           /* CUPTI timestamp, ns */
	uint32_t stream;
	std::string name;
};

struct gctx {
	const prof_opts *o;
	int prec;                 /* enum model_prec */
	cudaDataType_t dt;        /* storage type */
	cudaStream_t st;
	cublasLtHandle_t lt;
	void *ws;                 /* cuBLASLt workspace */
	void *l2buf;              /* for --flush-l2 */
	size_t l2bytes;
	cudaEvent_t ev[6];
	cudaMemPool_t pool;
	int64_t cur[PROF_MEM_NTAGS], peak[PROF_MEM_NTAGS];
	int64_t cur_all, peak_all;
	std::vector<gemm_plan> plans;
	int cupti;                /* activity records on */
	int no_gelu_ep;           /* cuBLASLt cannot fuse GELU here */
	int checking;             /* kernel checks: not attributed */
	int cc_major;             /* compute capability */
	std::vector<kernel_rec> kernels;
	std::vector<std::pair<uint32_t, uint64_t> > ext;
	uint64_t ext_id;          /* current external id, 0 = none */
	/* --trace: layer name of each external id, and one moment on both
	 * clocks, CUPTI's (ns) and the trace's (us), to map one onto the
	 * other. */
	std::unordered_map<uint64_t, std::string> ext_layer;
	uint64_t cupti_t0_ns;
	double trace_t0_us;
};

static gctx *the_ctx;         /* for the CUPTI buffer callback */

struct galloc {
	void *p;
	int64_t bytes;
	int tag;
};

struct ginst {
	const prof_graph *g;
	int layer;
	int64_t b, T;
	void *params;
	float *grads, *optim;
	void *t[PROF_MAX_TENSORS], *dt[PROF_MAX_TENSORS];
	void *dout;
	float *stats[PROF_MAX_OPS];
	int *ids, *targets;
	void *q, *k, *v, *P, *O, *dq, *dk, *dv, *dO, *dS;
	float *S;
	/* dropout: the masks of EMBED and ADD ops, attention's mask and
	   dropped probabilities P' (unfused; prof_attn_dropout) */
	uint8_t *mask[PROF_MAX_OPS], *amask;
	void *Pd;
	float *lse, *dd, *dqacc;  /* fused attention (flash.cuh) */
	std::vector<galloc> allocs;
	int64_t tagged[PROF_MEM_NTAGS];
	/* ops whose work a GEMM epilogue did: the GELU after fc1 in forward
	 * (GELU_AUX_BIAS), its gradient in fc2's backward (DGELU) */
	char fused_fwd[PROF_MAX_OPS], fused_bwd[PROF_MAX_OPS];
};

/* 0, 1 when out of memory (error cleared), or -1. */
static int
dev_alloc(gctx *c, ginst *in, void **p, int64_t bytes, int tag)
{
	cudaError_t e;

	*p = NULL;
	if (bytes <= 0)
		bytes = 16;
	e = cudaMallocAsync(p, (size_t)bytes, c->st);
	if (e == cudaErrorMemoryAllocation) {
		(void)cudaGetLastError();
		*p = NULL;
		return 1;
	}
	PD2BW_CUDA_CHECK(e);
	c->cur[tag] += bytes;
	c->cur_all += bytes;
	if (c->cur[tag] > c->peak[tag])
		c->peak[tag] = c->cur[tag];
	if (c->cur_all > c->peak_all)
		c->peak_all = c->cur_all;
	if (in) {
		galloc a = {*p, bytes, tag};

		in->allocs.push_back(a);
		in->tagged[tag] += bytes;
	}
	return 0;
}

static void
inst_release(gctx *c, ginst *in)
{
	for (size_t i = 0; i < in->allocs.size(); i++) {
		(void)cudaFreeAsync(in->allocs[i].p, c->st);
		c->cur[in->allocs[i].tag] -= in->allocs[i].bytes;
		c->cur_all -= in->allocs[i].bytes;
	}
	(void)cudaStreamSynchronize(c->st);
	delete in;
}

static size_t
esize(const gctx *c)
{
	return c->prec == MODEL_FP32 ? 4 : 2;
}

/* ---- typed launches ---- */

template <typename T>
static int
launch_init(gctx *c, void *p, int64_t n, float scale, float offset,
	    uint32_t seed)
{
	if (n <= 0)
		return 0;
	LAUNCH(k_init<T>, blocks(n, 256), 256, c->st, (T *)p, n, scale,
	       offset, seed);
	PD2BW_CUDA_CHECK(cudaGetLastError());
	return 0;
}

static int
init_vals(gctx *c, void *p, int64_t n, float scale, float offset,
	  uint32_t seed)
{
	switch (c->prec) {
	case MODEL_BF16:
		return launch_init<__nv_bfloat16>(c, p, n, scale, offset,
						  seed);
	case MODEL_FP16:
		return launch_init<__half>(c, p, n, scale, offset, seed);
	default:
		return launch_init<float>(c, p, n, scale, offset, seed);
	}
}

/* Copy n host floats into device storage of c's type (through scratch). */
static int
upload(gctx *c, void *dst, const float *src, int64_t n)
{
	float *tmp;

	if (n <= 0)
		return 0;
	PD2BW_CUDA_CHECK(cudaMalloc(&tmp, n * sizeof(float)));
	PD2BW_CUDA_CHECK(cudaMemcpy(tmp, src, n * sizeof(float),
				    cudaMemcpyHostToDevice));
	if (c->prec == MODEL_BF16)
		LAUNCH(k_from_f32, blocks(n, 256), 256, 0,
		       (__nv_bfloat16 *)dst, tmp, n);
	else if (c->prec == MODEL_FP16)
		LAUNCH(k_from_f32, blocks(n, 256), 256, 0, (__half *)dst,
		       tmp, n);
	else
		LAUNCH(k_from_f32, blocks(n, 256), 256, 0, (float *)dst,
		       tmp, n);
	PD2BW_CUDA_CHECK(cudaGetLastError());
	PD2BW_CUDA_CHECK(cudaDeviceSynchronize());
	PD2BW_CUDA_CHECK(cudaFree(tmp));
	return 0;
}

static int
download(gctx *c, float *dst, const void *src, int64_t n)
{
	float *tmp;

	if (n <= 0)
		return 0;
	PD2BW_CUDA_CHECK(cudaDeviceSynchronize());
	PD2BW_CUDA_CHECK(cudaMalloc(&tmp, n * sizeof(float)));
	if (c->prec == MODEL_BF16)
		LAUNCH(k_to_f32, blocks(n, 256), 256, 0, tmp,
		       (const __nv_bfloat16 *)src, n);
	else if (c->prec == MODEL_FP16)
		LAUNCH(k_to_f32, blocks(n, 256), 256, 0, tmp,
		       (const __half *)src, n);
	else
		LAUNCH(k_to_f32, blocks(n, 256), 256, 0, tmp,
		       (const float *)src, n);
	PD2BW_CUDA_CHECK(cudaGetLastError());
	PD2BW_CUDA_CHECK(cudaMemcpy(dst, tmp, n * sizeof(float),
				    cudaMemcpyDeviceToHost));
	PD2BW_CUDA_CHECK(cudaFree(tmp));
	return 0;
}

/*
 * Alignment in bytes (at most 256) of p and of every batch after it: the
 * heuristic assumes 256 unless told, and a less aligned pointer then fails.
 */
static uint32_t
align_of(const void *p, int64_t stride_bytes)
{
	uint64_t a = (uint64_t)(uintptr_t)p | 256;

	if (stride_bytes > 0)
		a |= (uint64_t)stride_bytes;
	return (uint32_t)(a & (~a + 1));
}

static int bias_add(gctx *c, void *y, const void *bias, int64_t rows,
		    int64_t n);

static void
gemm_plan_free(gemm_plan *p)
{
	cublasLtMatrixLayoutDestroy(p->a);
	cublasLtMatrixLayoutDestroy(p->b);
	cublasLtMatrixLayoutDestroy(p->c);
	cublasLtMatmulDescDestroy(p->op);
}

/*
 * What cuBLASLt does to the product before it stores it: nothing, add a
 * bias, or GELU.  GELU_AUX(_BIAS) stores the GELU's input in aux as well
 * (row-major [M, ld]), for the backward pass, where DGELU multiplies the
 * product by GELU'(aux).
 */
struct epi {
	cublasLtEpilogue_t ep;
	const void *bias;        /* [N] */
	void *aux;
	int64_t aux_ld;
};

static int
is_gelu_ep(cublasLtEpilogue_t ep)
{
	return ep == CUBLASLT_EPILOGUE_GELU_AUX ||
	       ep == CUBLASLT_EPILOGUE_GELU_AUX_BIAS ||
	       ep == CUBLASLT_EPILOGUE_DGELU;
}

/*
 * Row-major Y[M,N] = alpha op(X) op(W) + beta Y, then the epilogue e
 * (NULL: none).  op(X) [M,K] is X [M,K] or, with tx, X [K,M] transposed;
 * op(W) [K,N] is W [K,N] or, with tw, W [N,K] transposed.  cuBLASLt is
 * column-major, so it computes Y^T = op(W)^T op(X)^T with W as its A and
 * X as its B (the bias, one value per column of Y, is one per row of
 * Y^T, as cuBLASLt broadcasts it).  batch > 1 runs strided batches
 * (element strides sX, sW, sY).  Returns 0, -1 after a message, or 1
 * when cuBLASLt cannot do a GELU epilogue here (nothing was written; the
 * caller runs the GELU kernels instead).
 */
/* cuBLASLt will not fuse GELU here: say so once, use the kernels. */
static int
gelu_ep_off(gctx *c, const char *why)
{
	c->no_gelu_ep = 1;
	if (c->o->verbose)
		fprintf(stderr, "%s: cuBLASLt GELU epilogue unavailable (%s); "
			"GELU runs as its own kernel\n", pd2bw_progname, why);
	return 1;
}

/* The bias and aux pointers of e on a plan's descriptor. */
static int
set_epi_pointers(cublasLtMatmulDesc_t op, const epi *e)
{
	if (e && e->bias)
		LT_CHECK(cublasLtMatmulDescSetAttribute(op,
			CUBLASLT_MATMUL_DESC_BIAS_POINTER, &e->bias,
			sizeof(e->bias)));
	if (e && e->aux) {
		LT_CHECK(cublasLtMatmulDescSetAttribute(op,
			CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &e->aux,
			sizeof(e->aux)));
		LT_CHECK(cublasLtMatmulDescSetAttribute(op,
			CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &e->aux_ld,
			sizeof(e->aux_ld)));
	}
	return 0;
}

static int
gemm_ep(gctx *c, int tx, int tw, int64_t M, int64_t N, int64_t K,
	const void *X, const void *W, void *Y, cudaDataType_t ytype,
	float alpha, float beta, const epi *e, int batch, int64_t sX,
	int64_t sW, int64_t sY)
{
	gemm_key key;
	gemm_plan *pl = NULL;
	int64_t es = c->prec == MODEL_FP32 ? 4 : 2;
	int64_t ys = ytype == CUDA_R_32F ? 4 : es;
	const void *bias = e ? e->bias : NULL;
	cublasLtEpilogue_t ep = e ? e->ep : CUBLASLT_EPILOGUE_DEFAULT;
	cublasStatus_t st;

	/* the bias epilogue wants a 16-byte aligned vector */
	if (ep == CUBLASLT_EPILOGUE_BIAS && align_of(bias, 0) < 16) {
		TRY(gemm_ep(c, tx, tw, M, N, K, X, W, Y, ytype, alpha, beta,
			    NULL, batch, sX, sW, sY));
		return bias_add(c, Y, bias, M, N);
	}
	/* AUX_LD: "divisible by 8 and no less than the number of rows" */
	if (is_gelu_ep(ep) && (c->no_gelu_ep || batch > 1 || e->aux_ld < N ||
			       e->aux_ld % 8 ||
			       (bias && align_of(bias, 0) < 16)))
		return 1;
	memset(&key, 0, sizeof(key));
	key.align[0] = align_of(W, batch > 1 ? sW * es : 0);
	key.align[1] = align_of(X, batch > 1 ? sX * es : 0);
	key.align[2] = align_of(Y, batch > 1 ? sY * ys : 0);
	key.tx = tx;
	key.tw = tw;
	key.batch = batch;
	key.ytype = (int)ytype;
	key.ep = (int)ep;
	key.align_bias = bias ? align_of(bias, 0) : 0;
	key.align_aux = e && e->aux ? align_of(e->aux, 0) : 0;
	key.M = M;
	key.N = N;
	key.K = K;
	key.sX = sX;
	key.sW = sW;
	key.sY = sY;
	for (size_t i = 0; i < c->plans.size(); i++)
		if (!memcmp(&c->plans[i].key, &key, sizeof(key)))
			pl = &c->plans[i];
	if (!pl) {
		gemm_plan np;
		cublasOperation_t ta = tw ? CUBLAS_OP_T : CUBLAS_OP_N;
		cublasOperation_t tb = tx ? CUBLAS_OP_T : CUBLAS_OP_N;
		cublasLtMatmulPreference_t pref;
		cublasLtMatmulHeuristicResult_t h;
		size_t wsb = WORKSPACE_BYTES;
		int found = 0;
		cublasComputeType_t ct = CUBLAS_COMPUTE_32F;

		np.key = key;
		LT_CHECK(cublasLtMatmulDescCreate(&np.op, ct, CUDA_R_32F));
		LT_CHECK(cublasLtMatmulDescSetAttribute(np.op,
			CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)));
		LT_CHECK(cublasLtMatmulDescSetAttribute(np.op,
			CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)));
		if (ep != CUBLASLT_EPILOGUE_DEFAULT)
			LT_CHECK(cublasLtMatmulDescSetAttribute(np.op,
				CUBLASLT_MATMUL_DESC_EPILOGUE, &ep,
				sizeof(ep)));
		TRY(set_epi_pointers(np.op, e));
		if (ta == CUBLAS_OP_N)
			LT_CHECK(cublasLtMatrixLayoutCreate(&np.a, c->dt, N,
							    K, N));
		else
			LT_CHECK(cublasLtMatrixLayoutCreate(&np.a, c->dt, K,
							    N, K));
		if (tb == CUBLAS_OP_N)
			LT_CHECK(cublasLtMatrixLayoutCreate(&np.b, c->dt, K,
							    M, K));
		else
			LT_CHECK(cublasLtMatrixLayoutCreate(&np.b, c->dt, M,
							    K, M));
		LT_CHECK(cublasLtMatrixLayoutCreate(&np.c, ytype, N, M, N));
		if (batch > 1) {
			cublasLtMatrixLayout_t ls[3] = {np.a, np.b, np.c};
			int64_t strides[3] = {sW, sX, sY};

			for (int i = 0; i < 3; i++) {
				LT_CHECK(cublasLtMatrixLayoutSetAttribute(ls[i],
					CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
					&batch, sizeof(batch)));
				LT_CHECK(cublasLtMatrixLayoutSetAttribute(ls[i],
					BATCH_OFFSET, &strides[i],
					sizeof(strides[i])));
			}
		}
		LT_CHECK(cublasLtMatmulPreferenceCreate(&pref));
		LT_CHECK(cublasLtMatmulPreferenceSetAttribute(pref,
			CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb,
			sizeof(wsb)));
		LT_CHECK(cublasLtMatmulPreferenceSetAttribute(pref,
			CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
			&key.align[0], sizeof(key.align[0])));
		LT_CHECK(cublasLtMatmulPreferenceSetAttribute(pref,
			CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
			&key.align[1], sizeof(key.align[1])));
		LT_CHECK(cublasLtMatmulPreferenceSetAttribute(pref,
			CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
			&key.align[2], sizeof(key.align[2])));
		LT_CHECK(cublasLtMatmulPreferenceSetAttribute(pref,
			CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
			&key.align[2], sizeof(key.align[2])));
		st = cublasLtMatmulAlgoGetHeuristic(c->lt, np.op, np.a, np.b,
						    np.c, np.c, pref, 1, &h,
						    &found);
		cublasLtMatmulPreferenceDestroy(pref);
		if ((st != CUBLAS_STATUS_SUCCESS || !found) &&
		    is_gelu_ep(ep)) {
			gemm_plan_free(&np);
			return gelu_ep_off(c, st != CUBLAS_STATUS_SUCCESS ?
					   cublasLtGetStatusString(st) :
					   "no algorithm");
		}
		LT_CHECK(st);
		if (!found)
			return pd2bw_error("cuBLASLt has no algorithm for a "
					   "%lldx%lldx%lld GEMM",
					   (long long)M, (long long)N,
					   (long long)K);
		np.algo = h.algo;
		c->plans.push_back(np);
		pl = &c->plans.back();
	} else {
		TRY(set_epi_pointers(pl->op, e));
	}
	st = cublasLtMatmul(c->lt, pl->op, &alpha, W, pl->a, X, pl->b, &beta,
			    Y, pl->c, Y, pl->c, &pl->algo, c->ws,
			    WORKSPACE_BYTES, c->st);
	if (st != CUBLAS_STATUS_SUCCESS && is_gelu_ep(ep))
		return gelu_ep_off(c, cublasLtGetStatusString(st));
	LT_CHECK(st);
	return 0;
}

static int
gemm(gctx *c, int tx, int tw, int64_t M, int64_t N, int64_t K,
     const void *X, const void *W, void *Y, cudaDataType_t ytype,
     float alpha, float beta, const void *bias, int batch, int64_t sX,
     int64_t sW, int64_t sY)
{
	epi e = {CUBLASLT_EPILOGUE_BIAS, bias, NULL, 0};

	return gemm_ep(c, tx, tw, M, N, K, X, W, Y, ytype, alpha, beta,
		       bias ? &e : NULL, batch, sX, sW, sY);
}

static int
bias_add(gctx *c, void *y, const void *bias, int64_t rows, int64_t n)
{
	switch (c->prec) {
	case MODEL_BF16:
		LAUNCH(k_bias_add, blocks(rows * n, 256), 256, c->st,
		       (__nv_bfloat16 *)y, (const __nv_bfloat16 *)bias, rows,
		       n);
		break;
	case MODEL_FP16:
		LAUNCH(k_bias_add, blocks(rows * n, 256), 256, c->st,
		       (__half *)y, (const __half *)bias, rows, n);
		break;
	default:
		LAUNCH(k_bias_add, blocks(rows * n, 256), 256, c->st,
		       (float *)y, (const float *)bias, rows, n);
	}
	PD2BW_CUDA_CHECK(cudaGetLastError());
	return 0;
}

/* ---- ops ---- */

/* The op whose output tensor t is, or -1 (the layer's input). */
static int
producer(const prof_glayer *gl, int t)
{
	for (int i = 0; i < gl->nops; i++)
		if (gl->ops[i].out == t)
			return i;
	return -1;
}

static const int64_t *
cols_of(const ginst *in)
{
	return in->g->layers[in->layer].cols;
}

/*
 * Attention through the fused kernels of flash.cuh: what the graph counts
 * when the model says flash, where they exist (WMMA takes 16-bit inputs;
 * head_dim up to 128).  Elsewhere the unfused GEMM-softmax-GEMM path.
 */
static int
attn_fused(const gctx *c, const prof_dims *d)
{
	/* tensor cores take bf16 from sm_80 (flash.cuh) */
	return d->flash && c->prec != MODEL_FP32 &&
	       !(c->prec == MODEL_BF16 && c->cc_major < 8) &&
	       flash_head_dim_ok(d->head_dim);
}

/*
 * The head layout kernels, 16 bytes a thread where a head's halves are
 * whole 16-byte chunks and the tensors aligned, else an element a thread.
 */
template <typename T>
static void
heads(gctx *c, T *ctx, T *o, int64_t b, int64_t s, int64_t a, int64_t d,
      int dir)
{
	const int V = 16 / sizeof(T);
	int64_t n = b * a * s * d;

	if (d % (2 * V) == 0 && al16(ctx, o, NULL, NULL))
		LAUNCH(k_heads, blocks(n / V, 256), 256, c->st, vw<V>(), ctx,
			o, b, s, a, d, dir);
	else
		LAUNCH(k_heads, blocks(n, 256), 256, c->st, vw<1>(), ctx, o,
			b, s, a, d, dir);
}

template <typename T>
static void
attn_split(gctx *c, ginst *in, const T *qkv, int64_t s, int64_t a,
	   int64_t hd)
{
	const int V = 16 / sizeof(T);
	const prof_dims *d = &in->g->d;
	T *q = (T *)in->q, *k = (T *)in->k, *v = (T *)in->v;
	int64_t n = in->b * a * s * hd;

	if (hd % (2 * V) == 0 && al16(q, k, v, qkv))
		LAUNCH(k_attn_split, blocks(n / V, 256), 256, c->st, vw<V>(),
			q, k, v, qkv, in->b, s, a, d->kv_heads, hd, d->rotary);
	else
		LAUNCH(k_attn_split, blocks(n, 256), 256, c->st, vw<1>(), q,
			k, v, qkv, in->b, s, a, d->kv_heads, hd, d->rotary);
}

template <typename T>
static void
attn_unsplit(gctx *c, ginst *in, T *dqkv, int64_t n, int64_t s, int64_t a,
	     int64_t hd)
{
	const int V = 16 / sizeof(T);
	const prof_dims *d = &in->g->d;
	const T *dq = (const T *)in->dq, *dk = (const T *)in->dk;
	const T *dv = (const T *)in->dv;

	if (hd % (2 * V) == 0 && al16(dqkv, dq, dk, dv))
		LAUNCH(k_attn_unsplit, blocks(n / V, 256), 256, c->st,
			vw<V>(), dqkv, dq, dk, dv, in->b, s, a, d->kv_heads,
			hd, d->rotary);
	else
		LAUNCH(k_attn_unsplit, blocks(n, 256), 256, c->st, vw<1>(),
			dqkv, dq, dk, dv, in->b, s, a, d->kv_heads, hd,
			d->rotary);
}

template <typename T>
static int
op_fwd(gctx *c, ginst *in, int i)
{
	const prof_glayer *gl = &in->g->layers[in->layer];
	const prof_op *op = &gl->ops[i];
	const prof_dims *d = &in->g->d;
	T *p = (T *)in->params + op->param_off;
	T *y = (T *)in->t[op->out];
	const T *x = (const T *)in->t[op->in[0]];
	int64_t rows = in->T, n = rows * cols_of(in)[op->out];
	cudaDataType_t dt = c->dt;
	uint32_t key = prof_dropout_key((uint32_t)in->layer, (uint32_t)i);

	switch (op->kind) {
	case PROF_OP_EMBED:
		LAUNCH(k_embed_fwd, blocks(rows * d->h, 256), 256, c->st, y,
			in->mask[i], in->ids, p, d->rotary ? NULL :
			p + d->vocab * d->h, rows, d->s, d->h, key);
		break;
	case PROF_OP_NORM:
		if (op->n % (16 / sizeof(T)) == 0 &&
		    al16(y, x, p, op->bias ? p + op->n : NULL))
			LAUNCH(k_norm_fwd, blocks(rows, 8), 256, c->st,
				vw<16 / sizeof(T)>(), y, in->stats[i], x, p,
				op->bias ? p + op->n : NULL, rows, op->n,
				!op->bias);
		else
			LAUNCH(k_norm_fwd, blocks(rows, 8), 256, c->st, vw<1>(),
				y, in->stats[i], x, p,
				op->bias ? p + op->n : NULL, rows, op->n,
				!op->bias);
		break;
	case PROF_OP_LINEAR: {
		const void *bias = op->bias ? p + op->n * op->k : NULL;

		if (i + 1 < gl->nops && gl->ops[i + 1].kind == PROF_OP_GELU &&
		    gl->ops[i + 1].in[0] == op->out) {
			/* GELU(x W + b) into the GELU's output, x W + b
			   kept as aux: the tensor the GELU reads */
			epi e = {bias ? CUBLASLT_EPILOGUE_GELU_AUX_BIAS :
				 CUBLASLT_EPILOGUE_GELU_AUX, bias, y, op->n};
			int r = gemm_ep(c, 0, 1, rows, op->n, op->k, x, p,
					in->t[gl->ops[i + 1].out], dt, 1, 0,
					&e, 1, 0, 0, 0);

			if (r < 0)
				return -1;
			if (r == 0) {
				in->fused_fwd[i + 1] = 1;
				break;
			}
		}
		TRY(gemm(c, 0, 1, rows, op->n, op->k, x, p, y, dt, 1, 0, bias,
			 1, 0, 0, 0));
		break;
	}
	case PROF_OP_ATTN: {
		int64_t a = d->heads, s = d->s, hd = d->head_dim;
		int64_t bh = in->b * a;
		float scale = 1.0f / sqrtf((float)hd);

		attn_split<T>(c, in, x, s, a, hd);
		if (attn_fused(c, d)) {
			/* O and the row log-sum-exp; no s x s tensor */
			PD2BW_CUDA_CHECK(flash_fwd((T *)in->O, in->lse,
				(const T *)in->q, (const T *)in->k,
				(const T *)in->v, bh, s, hd, d->causal,
				c->st));
		} else {
			/* S = q k^T (fp32), P = softmax, O = P v; with
			   dropout O = P' v, P' being P dropped */
			TRY(gemm(c, 0, 1, s, s, hd, in->q, in->k, in->S,
				 CUDA_R_32F, 1, 0, NULL, (int)bh, s * hd,
				 s * hd, s * s));
			LAUNCH(k_softmax_fwd, blocks(bh * s, 8), 256, c->st,
			       (T *)in->P, (T *)in->Pd, in->amask, in->S,
			       bh * s, s, scale, d->causal, key);
			TRY(gemm(c, 0, 0, s, hd, s, in->Pd ? in->Pd : in->P,
				 in->v, in->O, dt, 1, 0, NULL, (int)bh, s * s,
				 s * hd, s * hd));
		}
		heads<T>(c, y, (T *)in->O, in->b, s, a, hd, 0);
		break;
	}
	case PROF_OP_GELU:
		if (!in->fused_fwd[i])
			LAUNCH(k_gelu_fwd, blocks(n, 256), 256, c->st, y, x,
			       n);
		break;
	case PROF_OP_SWIGLU:
		LAUNCH(k_swiglu_fwd, blocks(n, 256), 256, c->st, y, x, rows,
			cols_of(in)[op->out]);
		break;
	case PROF_OP_ADD:
		/* in[0] is the residual stream, in[1] the branch dropped */
		if (in->mask[i])
			LAUNCH(k_add_drop, blocks(n, 256), 256, c->st, y,
			       in->mask[i], x, (const T *)in->t[op->in[1]], n,
			       key);
		else
			LAUNCH(k_add, blocks(n, 256), 256, c->st, y, x,
			       (const T *)in->t[op->in[1]], n);
		break;
	case PROF_OP_XENT:
		LAUNCH(k_xent_fwd, (unsigned)rows, 256, c->st, y, x,
			in->targets, cols_of(in)[op->in[0]]);
		break;
	}
	PD2BW_CUDA_CHECK(cudaGetLastError());
	return 0;
}

template <typename T>
static int
op_bwd(gctx *c, ginst *in, int i)
{
	const prof_glayer *gl = &in->g->layers[in->layer];
	const prof_op *op = &gl->ops[i];
	const prof_dims *d = &in->g->d;
	T *p = (T *)in->params + op->param_off;
	float *gp = in->grads + op->param_off;
	const T *x = (const T *)in->t[op->in[0]];
	const T *dy = (const T *)in->dt[op->out];
	T *dx = (T *)in->dt[op->in[0]];
	int64_t rows = in->T, n = rows * cols_of(in)[op->out];
	cudaDataType_t dt = c->dt;
	dim3 cb(32, 8), cg((unsigned)((op->n + 31) / 32),
			   (unsigned)(rows < 64 ? 1 : rows / 64 < 256 ?
				      rows / 64 : 256));

	switch (op->kind) {
	case PROF_OP_EMBED:
		LAUNCH(k_embed_bwd, blocks(rows * d->h, 256), 256, c->st, gp,
			d->rotary ? NULL : gp + d->vocab * d->h, in->ids, dy,
			(const uint8_t *)in->mask[i], rows, d->s, d->h);
		break;
	case PROF_OP_NORM:
		if (op->n % (16 / sizeof(T)) == 0 && al16(dx, dy, x, p))
			LAUNCH(k_norm_bwd, blocks(rows, 8), 256, c->st,
				vw<16 / sizeof(T)>(), dx, dy, x, in->stats[i],
				p, rows, op->n, !op->bias);
		else
			LAUNCH(k_norm_bwd, blocks(rows, 8), 256, c->st, vw<1>(),
				dx, dy, x, in->stats[i], p, rows, op->n,
				!op->bias);
		LAUNCH(k_colsum, cg, cb, c->st, gp, op->bias ? gp + op->n :
			NULL, dy, x, in->stats[i], !op->bias, rows, op->n);
		break;
	case PROF_OP_LINEAR: {
		/* dX += dY W; dW += dY^T X (fp32); db += colsum dY */
		int g = producer(gl, op->in[0]), r = 1;

		if (g >= 0 && gl->ops[g].kind == PROF_OP_GELU &&
		    in->fused_fwd[g]) {
			/* X = GELU(U), U the aux of forward: straight to
			   dU = GELU'(U) * (dY W); dX is never formed */
			const prof_op *go = &gl->ops[g];
			epi e = {CUBLASLT_EPILOGUE_DGELU, NULL,
				 in->t[go->in[0]], cols_of(in)[go->in[0]]};

			r = gemm_ep(c, 0, 0, rows, op->k, op->n, dy, p,
				    in->dt[go->in[0]], dt, 1, 0, &e, 1, 0, 0,
				    0);
			if (r < 0)
				return -1;
			in->fused_bwd[g] = r == 0;
		}
		if (r)
			TRY(gemm(c, 0, 0, rows, op->k, op->n, dy, p, dx, dt, 1,
				 1, NULL, 1, 0, 0, 0));
		TRY(gemm(c, 1, 0, op->n, op->k, rows, dy, x, gp, CUDA_R_32F,
			 1, 1, NULL, 1, 0, 0, 0));
		if (op->bias)
			LAUNCH(k_colsum, cg, cb, c->st, (float *)NULL,
				gp + op->n * op->k, dy, (const T *)NULL,
				(const float *)NULL, 0, rows, op->n);
		break;
	}
	case PROF_OP_ATTN: {
		int64_t a = d->heads, s = d->s, hd = d->head_dim;
		int64_t bh = in->b * a;
		float scale = 1.0f / sqrtf((float)hd);

		heads<T>(c, (T *)dy, (T *)in->dO, in->b, s, a, hd, 1);
		/* q, k, v were not kept, qkv was: split them again */
		attn_split<T>(c, in, x, s, a, hd);
		if (attn_fused(c, d)) {
			/* and O from the kept ctx */
			heads<T>(c, (T *)in->t[op->out], (T *)in->O, in->b, s,
				 a, hd, 1);
			PD2BW_CUDA_CHECK(flash_bwd((T *)in->dq, (T *)in->dk,
				(T *)in->dv, in->dqacc, in->dd,
				(const T *)in->q, (const T *)in->k,
				(const T *)in->v, (const T *)in->O,
				(const T *)in->dO, in->lse, bh, s, hd,
				d->causal, c->st));
		} else {
			/* dP = dO v^T (fp32, reusing S), dv = P^T dO;
			   with dropout these are dP' and P'^T dO, and
			   the softmax backward takes dP' through the
			   mask */
			TRY(gemm(c, 0, 1, s, s, hd, in->dO, in->v, in->S,
				 CUDA_R_32F, 1, 0, NULL, (int)bh, s * hd,
				 s * hd, s * s));
			TRY(gemm(c, 1, 0, s, hd, s, in->Pd ? in->Pd : in->P,
				 in->dO, in->dv, dt, 1, 0, NULL, (int)bh,
				 s * s, s * hd, s * hd));
			LAUNCH(k_softmax_bwd, blocks(bh * s, 8), 256, c->st,
			       (T *)in->dS, (const T *)in->P, in->S,
			       (const uint8_t *)in->amask, bh * s, s, scale);
			/* dq = dS k, dk = dS^T q */
			TRY(gemm(c, 0, 0, s, hd, s, in->dS, in->k, in->dq,
				 dt, 1, 0, NULL, (int)bh, s * s, s * hd,
				 s * hd));
			TRY(gemm(c, 1, 0, s, hd, s, in->dS, in->q, in->dk,
				 dt, 1, 0, NULL, (int)bh, s * s, s * hd,
				 s * hd));
		}
		attn_unsplit<T>(c, in, dx, rows * cols_of(in)[op->in[0]], s,
				a, hd);
		break;
	}
	case PROF_OP_GELU:
		if (!in->fused_bwd[i])
			LAUNCH(k_gelu_bwd, blocks(n, 256), 256, c->st, dx, dy,
			       x, n);
		break;
	case PROF_OP_SWIGLU:
		LAUNCH(k_swiglu_bwd, blocks(n, 256), 256, c->st, dx, dy, x,
			rows, cols_of(in)[op->out]);
		break;
	case PROF_OP_ADD:
		if (in->mask[i]) {
			LAUNCH(k_add_drop_bwd, blocks(n, 256), 256, c->st, dx,
			       (T *)in->dt[op->in[1]], dy,
			       (const uint8_t *)in->mask[i], n);
			break;
		}
		LAUNCH(k_acc, blocks(n, 256), 256, c->st, dx, dy, n);
		LAUNCH(k_acc, blocks(n, 256), 256, c->st,
		       (T *)in->dt[op->in[1]], dy, n);
		break;
	case PROF_OP_XENT:
		LAUNCH(k_xent_bwd, (unsigned)rows, 256, c->st, dx, dy, x,
			in->targets, cols_of(in)[op->in[0]]);
		break;
	}
	PD2BW_CUDA_CHECK(cudaGetLastError());
	return 0;
}

static int
run_op(gctx *c, ginst *in, int i, int bwd)
{
	switch (c->prec) {
	case MODEL_BF16:
		return bwd ? op_bwd<__nv_bfloat16>(c, in, i) :
		       op_fwd<__nv_bfloat16>(c, in, i);
	case MODEL_FP16:
		return bwd ? op_bwd<__half>(c, in, i) :
		       op_fwd<__half>(c, in, i);
	default:
		return bwd ? op_bwd<float>(c, in, i) : op_fwd<float>(c, in, i);
	}
}

/* ---- CUPTI ---- */

#ifdef PD2BW_HAVE_CUPTI
#define CUPTI_BUF (8 << 20)

static void CUPTIAPI
cupti_request(uint8_t **buf, size_t *size, size_t *max)
{
	*buf = (uint8_t *)aligned_alloc(8, CUPTI_BUF);
	*size = *buf ? CUPTI_BUF : 0;
	*max = 0;
}

static void CUPTIAPI
cupti_complete(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
	       size_t valid)
{
	CUpti_Activity *rec = NULL;

	(void)ctx;
	(void)stream;
	(void)size;
	while (the_ctx && cuptiActivityGetNextRecord(buf, valid, &rec) ==
	       CUPTI_SUCCESS) {
		if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
		    rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
			const CUpti_ActivityKernel10 *k =
				(const CUpti_ActivityKernel10 *)rec;
			kernel_rec kr;

			kr.corr = k->correlationId;
			kr.ns = k->end - k->start;
			kr.start = k->start;
			kr.stream = k->streamId;
			kr.name = k->name ? k->name : "?";
			the_ctx->kernels.push_back(kr);
		} else if (rec->kind ==
			   CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
			const CUpti_ActivityExternalCorrelation *e =
				(const CUpti_ActivityExternalCorrelation *)rec;

			the_ctx->ext.push_back(std::make_pair(
				e->correlationId, e->externalId));
		}
	}
	free(buf);
}

static int
cupti_start(gctx *c)
{
	CUptiResult r;
	const char *msg = NULL;

	r = cuptiActivityRegisterCallbacks(cupti_request, cupti_complete);
	if (r == CUPTI_SUCCESS)
		r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	if (r == CUPTI_SUCCESS)
		r = cuptiActivityEnable(
			CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
	if (r != CUPTI_SUCCESS) {
		cuptiGetResultString(r, &msg);
		pd2bw_warn("CUPTI unavailable (%s); timing with CUDA events "
			   "alone", msg ? msg : "unknown error");
		return 0;
	}
	c->cupti = 1;
	return 0;
}
#endif

static void
ext_push(gctx *c, const ginst *in, int pass)
{
	if (c->checking) {
		/* the kernel checks run reduced layers: their kernels
		   are nobody's (an NVTX range still names them) */
		nvtxRangePushA("kernel check");
		c->ext_id = 0;
		return;
	}
	/* external id: microbatch, layer, pass; 0 means none */
	c->ext_id = ((uint64_t)in->b << 8 | (uint64_t)in->layer << 1 |
		     (uint64_t)pass) + 1;
#ifdef PD2BW_HAVE_CUPTI
	if (c->cupti)
		cuptiActivityPushExternalCorrelationId(
			CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, c->ext_id);
#endif
	if (c->o->trace && !c->ext_layer.count(c->ext_id))
		c->ext_layer[c->ext_id] = in->g->layers[in->layer].name;
	{
		char name[64];

		snprintf(name, sizeof(name), "%s %s b=%lld",
			 in->g->layers[in->layer].name,
			 pass ? "backward" : "forward", (long long)in->b);
		nvtxRangePushA(name);
	}
}

static void
ext_pop(gctx *c)
{
#ifdef PD2BW_HAVE_CUPTI
	uint64_t id;

	if (c->cupti && c->ext_id)
		cuptiActivityPopExternalCorrelationId(
			CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id);
#endif
	nvtxRangePop();
	c->ext_id = 0;
}

/* Write the per-kernel breakdown: layer, microbatch, pass, kernels. */
static int
write_kernels(gctx *c, const char *path)
{
	struct agg {
		uint64_t ext;
		std::string name;
		uint64_t n, ns;
	};
	std::vector<agg> rows;
	std::unordered_map<uint32_t, uint64_t> ext_of;
	yml_out o;

	for (size_t j = 0; j < c->ext.size(); j++)
		ext_of[c->ext[j].first] = c->ext[j].second;
	for (size_t i = 0; i < c->kernels.size(); i++) {
		std::unordered_map<uint32_t, uint64_t>::const_iterator it =
			ext_of.find(c->kernels[i].corr);
		uint64_t ext = it == ext_of.end() ? 0 : it->second;
		size_t j;

		for (j = 0; j < rows.size(); j++)
			if (rows[j].ext == ext &&
			    rows[j].name == c->kernels[i].name)
				break;
		if (j == rows.size()) {
			agg a = {ext, c->kernels[i].name, 0, 0};

			rows.push_back(a);
		}
		rows[j].n++;
		rows[j].ns += c->kernels[i].ns;
	}
	if (yml_out_open(&o, path))
		return -1;
	yml_out_map(&o, 0);
	yml_out_kstr(&o, "format", "pd2bw-kernels/1");
	yml_out_kstr(&o, "source", "cupti");
	yml_out_str(&o, "kernels");
	yml_out_seq(&o, 0);
	for (size_t j = 0; j < rows.size(); j++) {
		uint64_t e = rows[j].ext ? rows[j].ext - 1 : 0;
		static const char *const names[] = {"embedding", "block",
						    "head"};

		yml_out_map(&o, 1);
		yml_out_kstr(&o, "layer", !rows[j].ext ? "(none)" :
			     names[(e >> 1 & 127) % 3]);
		yml_out_kint(&o, "microbatch", (long long)(e >> 8));
		yml_out_kstr(&o, "pass", e & 1 ? "backward" : "forward");
		yml_out_kstr(&o, "name", rows[j].name.c_str());
		yml_out_kint(&o, "calls", (long long)rows[j].n);
		yml_out_kdbl(&o, "total_us", (double)rows[j].ns * 1e-3);
		yml_out_end_map(&o);
	}
	yml_out_end_seq(&o);
	yml_out_end_map(&o);
	return yml_out_close(&o);
}

/*
 * --trace: every kernel CUPTI recorded as a complete event on its stream's
 * thread, named after the kernel, with the layer, pass and microbatch
 * size its external id gives (none for kernels outside a layer, such as
 * the L2 flush).  Times move from CUPTI's clock to the trace's through the
 * moment gpu_open read both.
 */
static void
trace_kernels(gctx *c)
{
	std::unordered_map<uint32_t, uint64_t> ext_of;
	prof_trace *t = c->o->trace;

	for (size_t j = 0; j < c->ext.size(); j++)
		ext_of[c->ext[j].first] = c->ext[j].second;
	for (size_t i = 0; i < c->kernels.size(); i++) {
		const kernel_rec &k = c->kernels[i];
		std::unordered_map<uint32_t, uint64_t>::const_iterator it =
			ext_of.find(k.corr);
		uint64_t ext = it == ext_of.end() ? 0 : it->second;
		std::unordered_map<uint64_t, std::string>::const_iterator ln =
			c->ext_layer.find(ext);
		const char *layer = ext && ln != c->ext_layer.end() ?
				    ln->second.c_str() : NULL;
		uint64_t e = ext ? ext - 1 : 0;
		/* signed: a kernel queued before gpu_open read the clocks
		 * would start before the trace's zero */
		double ts = c->trace_t0_us +
			    ((double)k.start - (double)c->cupti_t0_ns) * 1e-3;

		prof_trace_add(t, k.name.c_str(), layer,
			       layer ? (int)(e & 1) : -1,
			       PROF_TID_STREAM + (int)k.stream, 1,
			       layer ? (int64_t)(e >> 8) : 0, -1, ts,
			       (double)k.ns * 1e-3);
	}
	t->kernels = 1;
}

/* ---- the backend ---- */

extern "C" int
prof_gpu_available(char *why, size_t n)
{
	int count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);

	if (e == cudaErrorInsufficientDriver) {
		snprintf(why, n, "no NVIDIA driver, or one too old for CUDA "
			 "%d.%d (%s)", CUDART_VERSION / 1000,
			 CUDART_VERSION % 1000 / 10, cudaGetErrorString(e));
		return 0;
	}
	if (e != cudaSuccess) {
		snprintf(why, n, "no usable CUDA device (%s)",
			 cudaGetErrorString(e));
		return 0;
	}
	if (count < 1) {
		snprintf(why, n, "no CUDA device");
		return 0;
	}
	return 1;
}

static int
gpu_open_prec(void **ctxp, const prof_opts *o, profile *p, int prec)
{
	gctx *c;
	cudaDeviceProp prop;
	char why[256], ver[512];
	int drv = 0, rt = 0, clk = 0, mclk = 0, count = 0;
	unsigned cupti_ver = 0;
	uint64_t zero = 0;

	*ctxp = NULL;
	if (!prof_gpu_available(why, sizeof(why)))
		return pd2bw_error("cuda backend: %s", why);
	PD2BW_CUDA_CHECK(cudaGetDeviceCount(&count));
	if (o->device >= count)
		return pd2bw_error("cuda backend: no device %d (%d found)",
				   o->device, count);
	PD2BW_CUDA_CHECK(cudaSetDevice(o->device));
	PD2BW_CUDA_CHECK(cudaGetDeviceProperties(&prop, o->device));
	c = new gctx();
	*ctxp = c;
	c->o = o;
	c->prec = prec;
	c->cc_major = prop.major;
	c->dt = prec == MODEL_BF16 ? CUDA_R_16BF :
		prec == MODEL_FP16 ? CUDA_R_16F : CUDA_R_32F;
	PD2BW_CUDA_CHECK(cudaStreamCreate(&c->st));
	PD2BW_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&c->pool, o->device));
	PD2BW_CUDA_CHECK(cudaMemPoolSetAttribute(c->pool,
		cudaMemPoolAttrUsedMemHigh, &zero));
	for (int i = 0; i < 6; i++)
		PD2BW_CUDA_CHECK(cudaEventCreate(&c->ev[i]));
	LT_CHECK(cublasLtCreate(&c->lt));
	PD2BW_CUDA_CHECK(cudaMalloc(&c->ws, WORKSPACE_BYTES));
	c->l2bytes = 2 * (size_t)prop.l2CacheSize;
	if (o->flush_l2 && c->l2bytes)
		PD2BW_CUDA_CHECK(cudaMalloc(&c->l2buf, c->l2bytes));
	cudaDriverGetVersion(&drv);
	cudaRuntimeGetVersion(&rt);
	cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, o->device);
	cudaDeviceGetAttribute(&mclk, cudaDevAttrMemoryClockRate, o->device);
	the_ctx = c;
#ifdef PD2BW_HAVE_CUPTI
	if (o->cupti && cupti_start(c))
		return -1;
	cuptiGetVersion(&cupti_ver);
	if (c->cupti && o->trace) {
		if (cuptiGetTimestamp(&c->cupti_t0_ns) != CUPTI_SUCCESS) {
			pd2bw_warn("cannot read CUPTI's clock; the trace "
				   "has no kernels");
			c->cupti_t0_ns = 0;
		}
		c->trace_t0_us = prof_trace_now_us(o->trace);
	}
#endif
	snprintf(ver, sizeof(ver),
		 "driver %d.%d, runtime %d.%d, cublasLt %zu, cupti %u%s, "
		 "sm_%d%d, %d SMs, %d MHz, memory %d MHz, L2 %d MiB",
		 drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10,
		 cublasLtGetVersion(), cupti_ver, c->cupti ? "" : " (off)",
		 prop.major, prop.minor, prop.multiProcessorCount, clk / 1000,
		 mclk / 1000, prop.l2CacheSize >> 20);
	if (p) {
		free(p->device);
		p->device = xstrdup(o->name ? o->name : prop.name);
		p->device_mem_bytes = (int64_t)prop.totalGlobalMem;
		free(p->versions);
		p->versions = xstrdup(ver);
	}
	if (o->verbose)
		fprintf(stderr, "%s: %s: %s\n", pd2bw_progname, prop.name,
			ver);
	return 0;
}

static int
gpu_open(void **ctxp, const prof_opts *o, profile *p)
{
	return gpu_open_prec(ctxp, o, p, o->precision);
}

static void
gpu_close(void *ctx)
{
	gctx *c = (gctx *)ctx;

	if (!c)
		return;
#ifdef PD2BW_HAVE_CUPTI
	if (c->cupti) {
		cuptiActivityFlushAll(1);
		cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
		cuptiActivityDisable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
	}
#endif
	if (c->o->kernels_path) {
		if (!c->cupti)
			pd2bw_warn("no kernel breakdown without CUPTI");
		else
			write_kernels(c, c->o->kernels_path);
	}
	if (c->o->trace && c->cupti && c->cupti_t0_ns)
		trace_kernels(c);
	if (c->o->verbose) {
		uint64_t high = 0;

		(void)cudaMemPoolGetAttribute(c->pool,
			cudaMemPoolAttrUsedMemHigh, &high);
		fprintf(stderr, "%s: allocator peak %.1f MiB (", pd2bw_progname,
			(double)c->peak_all / 1048576);
		for (int i = 0; i < PROF_MEM_NTAGS; i++)
			fprintf(stderr, "%s%s %.1f", i ? ", " : "",
				prof_mem_tag_names[i],
				(double)c->peak[i] / 1048576);
		fprintf(stderr, "), pool high-water mark %.1f MiB\n",
			(double)high / 1048576);
	}
	for (size_t i = 0; i < c->plans.size(); i++)
		gemm_plan_free(&c->plans[i]);
	cublasLtDestroy(c->lt);
	cudaFree(c->ws);
	if (c->l2buf)
		cudaFree(c->l2buf);
	for (int i = 0; i < 6; i++)
		cudaEventDestroy(c->ev[i]);
	cudaStreamDestroy(c->st);
	the_ctx = NULL;
	delete c;
}

#define ALLOC(ptr, bytes, tag)                                               \
	do {                                                                 \
		void *p_;                                                    \
		int r_ = dev_alloc(c, in, &p_, (bytes), (tag));              \
		if (r_) {                                                    \
			inst_release(c, in);                                 \
			return r_;                                           \
		}                                                            \
		*(void **)&(ptr) = p_;                                       \
	} while (0)

static int
gpu_layer_new(void *ctx, const prof_graph *g, int layer, int64_t b,
	      void **instp)
{
	gctx *c = (gctx *)ctx;
	const prof_glayer *gl = &g->layers[layer];
	const prof_dims *d = &g->d;
	ginst *in = new ginst();
	size_t es = esize(c);
	char kept[PROF_MAX_TENSORS] = {0};
	int64_t T = b * d->s;
	uint32_t seed = 17 + (uint32_t)layer;

	*instp = NULL;
	in->g = g;
	in->layer = layer;
	in->b = b;
	in->T = T;
	for (int i = 0; i < gl->nops; i++) {
		const prof_op *op = &gl->ops[i];

		/* what backward reads; the embedding reads the token ids
		   (in->ids) rather than its input tensor */
		if (op->kind != PROF_OP_ADD && op->kind != PROF_OP_EMBED)
			kept[op->in[0]] = 1;
		/* with flash the graph counts ctx as kept: the fused
		   backward unpacks O from it */
		if (op->kind == PROF_OP_ATTN && d->flash)
			kept[op->out] = 1;
	}
	ALLOC(in->params, gl->nparams * es, PROF_MEM_WEIGHT);
	ALLOC(in->grads, gl->nparams * 4, PROF_MEM_GRAD);
	/* fp32 master weights, Adam m and v: what a training step holds */
	ALLOC(in->optim, gl->nparams * 12, PROF_MEM_OPTIM);
	for (int j = 0; j < gl->ntensors; j++) {
		ALLOC(in->t[j], T * gl->cols[j] * es,
		      kept[j] ? PROF_MEM_STASH : PROF_MEM_WORK);
		ALLOC(in->dt[j], T * gl->cols[j] * es, PROF_MEM_WORK);
	}
	ALLOC(in->dout, T * gl->cols[gl->out] * es, PROF_MEM_WORK);
	/* token ids are kept by the embedding, targets by the loss */
	ALLOC(in->ids, T * 4, prof_layer_find(gl, PROF_OP_EMBED) >= 0 ?
	      PROF_MEM_STASH : PROF_MEM_WORK);
	ALLOC(in->targets, T * 4, prof_layer_find(gl, PROF_OP_XENT) >= 0 ?
	      PROF_MEM_STASH : PROF_MEM_WORK);
	for (int i = 0; i < gl->nops; i++) {
		const prof_op *op = &gl->ops[i];

		/* fp32 statistics: mean and rstd, or rstd alone (RMSNorm) */
		if (op->kind == PROF_OP_NORM)
			ALLOC(in->stats[i], T * (op->bias ? 8 : 4),
			      PROF_MEM_STASH);
		/* a byte per element of the embedding or the residual
		   branch it drops, as the graph counts */
		if (d->dropout && (op->kind == PROF_OP_EMBED ||
				   op->kind == PROF_OP_ADD))
			ALLOC(in->mask[i], T * gl->cols[op->out],
			      PROF_MEM_STASH);
		if (op->kind == PROF_OP_ATTN) {
			int64_t nq = b * d->heads * d->s * d->head_dim;
			int64_t nr = b * d->heads * d->s;
			int64_t ns = nr * d->s;

			/* Both kernels keep qkv and ctx (above); q, k, v
			   are split again in backward, so they are work, as
			   are O and the gradients of q, k, v and O. */
			ALLOC(in->q, nq * es, PROF_MEM_WORK);
			ALLOC(in->k, nq * es, PROF_MEM_WORK);
			ALLOC(in->v, nq * es, PROF_MEM_WORK);
			ALLOC(in->O, nq * es, PROF_MEM_WORK);
			ALLOC(in->dq, nq * es, PROF_MEM_WORK);
			ALLOC(in->dk, nq * es, PROF_MEM_WORK);
			ALLOC(in->dv, nq * es, PROF_MEM_WORK);
			ALLOC(in->dO, nq * es, PROF_MEM_WORK);
			if (attn_fused(c, d)) {
				/* fused: the fp32 log-sum-exp of each score
				   row, as the graph counts; no s x s tensor */
				ALLOC(in->lse, nr * 4, PROF_MEM_STASH);
				ALLOC(in->dd, nr * 4, PROF_MEM_WORK);
				ALLOC(in->dqacc, nq * 4, PROF_MEM_WORK);
				continue;
			}
			/* unfused: P, the softmax output, as the graph
			   counts (more than it counts when the model says
			   flash but the fused kernels do not apply: fp32) */
			ALLOC(in->P, ns * es, PROF_MEM_STASH);
			ALLOC(in->S, ns * 4, PROF_MEM_WORK);
			ALLOC(in->dS, ns * es, PROF_MEM_WORK);
			/* attention dropout keeps its mask and P' (O's
			   operand, dv's too) besides P, for the softmax
			   backward: the graph's scores * (1 + es) */
			if (prof_attn_dropout(d)) {
				ALLOC(in->amask, ns, PROF_MEM_STASH);
				ALLOC(in->Pd, ns * es, PROF_MEM_STASH);
			}
		}
	}
	/* values: weights ~ 1/sqrt(fan-in), norm gains ~ 1, inputs ~ 1 */
	for (int i = 0; i < gl->nops; i++) {
		const prof_op *op = &gl->ops[i];
		char *p = (char *)in->params + op->param_off * es;

		if (op->kind == PROF_OP_NORM)
			TRY(init_vals(c, p, op->n, 0.1f, 1.0f, seed++));
		if (op->kind == PROF_OP_NORM && op->bias)
			TRY(init_vals(c, p + op->n * es, op->n, 0.1f, 0.0f,
				      seed++));
		if (op->kind == PROF_OP_LINEAR)
			TRY(init_vals(c, p, op->nparams,
				      1.0f / sqrtf((float)op->k), 0, seed++));
		if (op->kind == PROF_OP_EMBED)
			TRY(init_vals(c, p, op->nparams, 0.5f, 0, seed++));
	}
	if (gl->kind != PROF_EMBED)
		TRY(init_vals(c, in->t[0], T * gl->cols[0], 1.0f, 0, seed++));
	TRY(init_vals(c, in->dout, T * gl->cols[gl->out],
		      gl->ops[gl->nops - 1].kind == PROF_OP_XENT ? 0.0f :
		      1.0f, gl->ops[gl->nops - 1].kind == PROF_OP_XENT ?
		      1.0f / (float)T : 0.0f, seed++));
	{
		std::vector<int> ids((size_t)T), tg((size_t)T);

		for (int64_t i = 0; i < T; i++) {
			ids[i] = (int)((uint64_t)(i * 7919 + 1 + layer) %
				       (uint64_t)d->vocab);
			tg[i] = (int)((uint64_t)(i * 104729 + 3 * (1 + layer)) %
				      (uint64_t)d->vocab);
		}
		PD2BW_CUDA_CHECK(cudaMemcpy(in->ids, ids.data(), T * 4,
					    cudaMemcpyHostToDevice));
		PD2BW_CUDA_CHECK(cudaMemcpy(in->targets, tg.data(), T * 4,
					    cudaMemcpyHostToDevice));
	}
	PD2BW_CUDA_CHECK(cudaMemsetAsync(in->grads, 0, gl->nparams * 4,
					 c->st));
	PD2BW_CUDA_CHECK(cudaStreamSynchronize(c->st));
	*instp = in;
	return 0;
}

static void
gpu_layer_free(void *ctx, void *inst)
{
	if (inst)
		inst_release((gctx *)ctx, (ginst *)inst);
}

static int
layer_fwd(gctx *c, ginst *in, cudaEvent_t a0, cudaEvent_t a1)
{
	const prof_glayer *gl = &in->g->layers[in->layer];

	ext_push(c, in, 0);
	memset(in->fused_fwd, 0, sizeof(in->fused_fwd));
	for (int i = 0; i < gl->nops; i++) {
		int attn = gl->ops[i].kind == PROF_OP_ATTN && a0;

		if (attn)
			PD2BW_CUDA_CHECK(cudaEventRecord(a0, c->st));
		TRY(run_op(c, in, i, 0));
		if (attn)
			PD2BW_CUDA_CHECK(cudaEventRecord(a1, c->st));
	}
	ext_pop(c);
	return 0;
}

static int
layer_bwd(gctx *c, ginst *in)
{
	const prof_glayer *gl = &in->g->layers[in->layer];
	size_t es = esize(c);

	ext_push(c, in, 1);
	memset(in->fused_bwd, 0, sizeof(in->fused_bwd));
	for (int j = 0; j < gl->ntensors; j++)
		PD2BW_CUDA_CHECK(cudaMemsetAsync(in->dt[j], 0,
			in->T * gl->cols[j] * es, c->st));
	PD2BW_CUDA_CHECK(cudaMemcpyAsync(in->dt[gl->out], in->dout,
		in->T * gl->cols[gl->out] * es, cudaMemcpyDeviceToDevice,
		c->st));
	for (int i = gl->nops - 1; i >= 0; i--)
		TRY(run_op(c, in, i, 1));
	ext_pop(c);
	return 0;
}

static int
gpu_time(void *ctx, void *inst, prof_times *t)
{
	gctx *c = (gctx *)ctx;
	ginst *in = (ginst *)inst;
	int has_attn = prof_layer_find(&in->g->layers[in->layer],
				       PROF_OP_ATTN) >= 0;
	float f = 0, b = 0, a = 0;

	if (c->l2buf)
		PD2BW_CUDA_CHECK(cudaMemsetAsync(c->l2buf, 0, c->l2bytes,
						 c->st));
	PD2BW_CUDA_CHECK(cudaEventRecord(c->ev[0], c->st));
	TRY(layer_fwd(c, in, has_attn ? c->ev[3] : NULL,
		      has_attn ? c->ev[4] : NULL));
	PD2BW_CUDA_CHECK(cudaEventRecord(c->ev[1], c->st));
	TRY(layer_bwd(c, in));
	PD2BW_CUDA_CHECK(cudaEventRecord(c->ev[2], c->st));
	PD2BW_CUDA_CHECK(cudaEventSynchronize(c->ev[2]));
	PD2BW_CUDA_CHECK(cudaEventElapsedTime(&f, c->ev[0], c->ev[1]));
	PD2BW_CUDA_CHECK(cudaEventElapsedTime(&b, c->ev[1], c->ev[2]));
	if (has_attn)
		PD2BW_CUDA_CHECK(cudaEventElapsedTime(&a, c->ev[3],
						      c->ev[4]));
	t->fwd_ms = f;
	t->bwd_ms = b;
	t->attn_ms = a;
	return 0;
}

static int
gpu_step(void *ctx, void **insts, int n, double *ms)
{
	gctx *c = (gctx *)ctx;
	ginst **in = (ginst **)insts;
	size_t es = esize(c);
	float t = 0;

	PD2BW_CUDA_CHECK(cudaEventRecord(c->ev[0], c->st));
	for (int i = 0; i < n; i++) {
		const prof_glayer *gl = &in[i]->g->layers[in[i]->layer];

		if (i > 0 && gl->kind != PROF_EMBED) {
			const prof_glayer *pl =
				&in[i - 1]->g->layers[in[i - 1]->layer];

			PD2BW_CUDA_CHECK(cudaMemcpyAsync(in[i]->t[0],
				in[i - 1]->t[pl->out],
				in[i]->T * gl->cols[0] * es,
				cudaMemcpyDeviceToDevice, c->st));
		}
		TRY(layer_fwd(c, in[i], NULL, NULL));
	}
	for (int i = n - 1; i >= 0; i--) {
		const prof_glayer *gl = &in[i]->g->layers[in[i]->layer];

		if (i < n - 1)
			PD2BW_CUDA_CHECK(cudaMemcpyAsync(in[i]->dout,
				in[i + 1]->dt[0],
				in[i]->T * gl->cols[gl->out] * es,
				cudaMemcpyDeviceToDevice, c->st));
		TRY(layer_bwd(c, in[i]));
	}
	PD2BW_CUDA_CHECK(cudaEventRecord(c->ev[1], c->st));
	PD2BW_CUDA_CHECK(cudaEventSynchronize(c->ev[1]));
	PD2BW_CUDA_CHECK(cudaEventElapsedTime(&t, c->ev[0], c->ev[1]));
	*ms = t;
	return 0;
}

static int64_t
gpu_stash(void *ctx, void *inst)
{
	(void)ctx;
	return ((ginst *)inst)->tagged[PROF_MEM_STASH];
}

/* ---- checks against the CPU reference ---- */

static double
tolerance(int prec)
{
	return prec == MODEL_BF16 ? 3e-2 : prec == MODEL_FP16 ? 1e-2 : 1e-3;
}

/* max |gpu - cpu| / max |cpu| */
static double
rel_err(const float *g, const float *c, int64_t n)
{
	double num = 0, den = 1e-6;

	for (int64_t i = 0; i < n; i++) {
		double e = fabs((double)g[i] - c[i]);

		if (e > num || std::isnan(e))
			num = std::isnan(e) ? INFINITY : e;
		if (fabs(c[i]) > den)
			den = fabs(c[i]);
	}
	return num / den;
}

typedef void (*report_fn)(int ok, const char *what, void *arg);

/*
 * Run layer li of g on the GPU and the CPU from the same parameters and
 * inputs; compare every tensor, its gradient and the parameter gradients.
 * Returns the number of failures or -1.
 */
static int
check_layer(gctx *c, const prof_graph *g, int li, report_fn report,
	    void *arg, const char *tag)
{
	const prof_glayer *gl = &g->layers[li];
	prof_cpu_layer *cl = prof_cpu_layer_new(g, li, 2, 3);
	ginst *in = NULL;
	void *vin;
	int fails = 0, r;
	std::vector<float> buf;
	char what[256];
	double tol = tolerance(c->prec), e;

	r = gpu_layer_new(c, g, li, 2, &vin);
	if (r) {
		prof_cpu_layer_free(cl);
		return r > 0 ? pd2bw_error("the kernel check (microbatch 2 "
					   "of a reduced %s layer) does not "
					   "fit in device memory", gl->name) :
		       -1;
	}
	in = (ginst *)vin;
	/* same values on both sides, rounded to the GPU's type first */
	TRY(upload(c, in->params, cl->params, gl->nparams));
	TRY(download(c, cl->params, in->params, gl->nparams));
	if (gl->kind != PROF_EMBED) {
		TRY(upload(c, in->t[0], cl->t[0], cl->T * gl->cols[0]));
		TRY(download(c, cl->t[0], in->t[0], cl->T * gl->cols[0]));
	}
	TRY(upload(c, in->dout, cl->dout, cl->T * gl->cols[gl->out]));
	TRY(download(c, cl->dout, in->dout, cl->T * gl->cols[gl->out]));
	PD2BW_CUDA_CHECK(cudaMemcpy(in->ids, cl->ids, cl->T * 4,
				    cudaMemcpyHostToDevice));
	PD2BW_CUDA_CHECK(cudaMemcpy(in->targets, cl->targets, cl->T * 4,
				    cudaMemcpyHostToDevice));
	TRY(layer_fwd(c, in, NULL, NULL));
	TRY(layer_bwd(c, in));
	PD2BW_CUDA_CHECK(cudaStreamSynchronize(c->st));
	prof_cpu_fwd(cl);
	prof_cpu_bwd(cl);
	for (int j = 1; j < gl->ntensors; j++) {
		int64_t n = cl->T * gl->cols[j];

		buf.resize((size_t)n);
		TRY(download(c, buf.data(), in->t[j], n));
		e = rel_err(buf.data(), cl->t[j], n);
		snprintf(what, sizeof(what), "%s %s: forward %s (error %.2e, "
			 "tolerance %.0e)", tag, gl->name, gl->tname[j], e,
			 tol);
		fails += !(e <= tol);
		report(e <= tol, what, arg);
	}
	for (int j = gl->kind == PROF_EMBED; j < gl->ntensors; j++) {
		int64_t n = cl->T * gl->cols[j];

		/* a gradient an epilogue fused away is never formed */
		if (j == gl->out || (producer(gl, j) >= 0 &&
				     in->fused_bwd[producer(gl, j)]))
			continue;
		buf.resize((size_t)n);
		TRY(download(c, buf.data(), in->dt[j], n));
		e = rel_err(buf.data(), cl->dt[j], n);
		snprintf(what, sizeof(what), "%s %s: gradient of %s (error "
			 "%.2e, tolerance %.0e)", tag, gl->name, gl->tname[j],
			 e, tol);
		fails += !(e <= tol);
		report(e <= tol, what, arg);
	}
	for (int i = 0; i < gl->nops; i++) {
		const prof_op *op = &gl->ops[i];

		if (!op->nparams)
			continue;
		buf.resize((size_t)op->nparams);
		PD2BW_CUDA_CHECK(cudaMemcpy(buf.data(),
					    in->grads + op->param_off,
					    op->nparams * 4,
					    cudaMemcpyDeviceToHost));
		e = rel_err(buf.data(), cl->grads + op->param_off,
			    op->nparams);
		snprintf(what, sizeof(what), "%s %s: %s parameter gradient "
			 "(error %.2e, tolerance %.0e)", tag, gl->name,
			 op->name, e, tol);
		fails += !(e <= tol);
		report(e <= tol, what, arg);
	}
	inst_release(c, in);
	prof_cpu_layer_free(cl);
	return fails;
}

struct check_log {
	int verbose;
};

static void
log_report(int ok, const char *what, void *arg)
{
	const check_log *l = (const check_log *)arg;

	if (!ok)
		pd2bw_error("kernel check failed: %s", what);
	else if (l->verbose)
		fprintf(stderr, "%s: ok %s\n", pd2bw_progname, what);
}

/*
 * The reduced model the kernels are checked on: the real head dimension,
 * group size, activation, norm and flags; few heads, short sequence,
 * small vocabulary, so the CPU reference takes a moment.
 */
static void
reduce_model(model *r, const model *m)
{
	int64_t grp = m->heads / m->kv_heads, heads = grp;

	*r = *m;
	while (heads < 4 && heads * 2 <= m->heads)
		heads *= 2;
	r->heads = heads;
	r->kv_heads = heads / grp;
	r->hidden = heads * (m->hidden / m->heads);
	r->ffn_hidden = r->hidden * m->ffn_hidden / m->hidden;
	if (r->ffn_hidden < 1)
		r->ffn_hidden = 1;
	r->seq_len = m->seq_len < 64 ? m->seq_len : 64;
	r->vocab = m->vocab < 512 ? m->vocab : 512;
	r->layers = 1;
}

static int
check_graph(gctx *c, const model *m, report_fn report, void *arg,
	    const char *tag)
{
	model r;
	prof_graph *g = new prof_graph();
	int fails = 0, k;

	reduce_model(&r, m);
	if (prof_graph_build(g, &r, 1, (int)esize(c))) {
		delete g;
		return -1;
	}
	c->checking = 1;
	for (int li = 0; li < g->nlayers; li++) {
		k = check_layer(c, g, li, report, arg, tag);
		if (k < 0) {
			fails = -1;
			break;
		}
		fails += k;
	}
	c->checking = 0;
	delete g;
	return fails;
}

static int
gpu_check(void *ctx, const model *m, const prof_graph *g)
{
	gctx *c = (gctx *)ctx;
	check_log l = {c->o->verbose};
	int k;

	(void)g;
	k = check_graph(c, m, log_report, &l, model_prec_names[c->prec]);
	if (k < 0)
		return -1;
	if (k > 0)
		return pd2bw_error("%d kernel checks failed against the CPU "
				   "reference; nothing timed (--no-check "
				   "skips them)", k);
	return 0;
}

static void
gpu_mem(void *ctx, int reset, int64_t *by_tag, int64_t *pool)
{
	gctx *c = (gctx *)ctx;
	uint64_t high = 0;

	if (reset) {
		c->peak_all = c->cur_all;
		for (int i = 0; i < PROF_MEM_NTAGS; i++)
			c->peak[i] = c->cur[i];
		(void)cudaMemPoolSetAttribute(c->pool,
			cudaMemPoolAttrUsedMemHigh, &high);
		return;
	}
	for (int i = 0; i < PROF_MEM_NTAGS; i++)
		by_tag[i] = c->peak[i];
	*pool = cudaMemPoolGetAttribute(c->pool, cudaMemPoolAttrUsedMemHigh,
					&high) == cudaSuccess ?
		(int64_t)high : -1;
}

extern "C" const struct prof_backend prof_cuda_backend = {
	"cuda", gpu_open, gpu_close, gpu_check, gpu_layer_new,
	gpu_layer_free, gpu_time, gpu_step, gpu_stash, gpu_mem,
};

/* A small model of the family: its defaults (flash attention for llama),
 * BERT's embeddings untied. */
static void
tiny_model(model *m, int family)
{
	model_init_family(m, family);
	m->layers = 2;
	m->hidden = 128;
	m->heads = 4;
	m->kv_heads = family == MODEL_LLAMA ? 2 : 4;
	m->ffn_hidden = family == MODEL_LLAMA ? 192 : 512;
	m->seq_len = 64;
	m->vocab = 300;
	m->tied_embeddings = family == MODEL_GPT;
	m->precision = MODEL_BF16;
	/* all with dropout: gpt and bert drop attention probabilities on
	   the unfused path, llama's flash attention drops none (nor does
	   its fp32 run, unfused); all drop the embedding and branches */
	m->dropout = 1;
}

extern "C" int
prof_gpu_selftest(void (*report)(int ok, const char *what, void *arg),
		  void *arg)
{
	static const int precs[] = {MODEL_BF16, MODEL_FP16, MODEL_FP32};
	static const char *const fams[] = {"gpt", "bert", "llama"};
	prof_opts o;
	int fails = 0;

	memset(&o, 0, sizeof(o));
	o.cupti = 0;
	for (int pi = 0; pi < 3; pi++) {
		void *ctx;
		gctx *c;

		if (gpu_open_prec(&ctx, &o, NULL, precs[pi])) {
			gpu_close(ctx);
			return -1;
		}
		c = (gctx *)ctx;
		for (int f = 0; f < 3; f++) {
			model m;
			prof_graph g;
			char tag[64];
			int k;

			tiny_model(&m, f);
			snprintf(tag, sizeof(tag), "%s %s",
				 model_prec_names[precs[pi]], fams[f]);
			k = check_graph(c, &m, report, arg, tag);
			if (k < 0) {
				gpu_close(ctx);
				return -1;
			}
			fails += k;
			/* and the timer runs: one block, twice */
			if (!prof_graph_build(&g, &m, 1, (int)esize(c))) {
				void *in;
				prof_times t;
				int ok;

				if (gpu_layer_new(c, &g, 1, 2, &in)) {
					gpu_close(ctx);
					return -1;
				}
				ok = !gpu_time(c, in, &t) &&
				     !gpu_time(c, in, &t) && t.fwd_ms > 0 &&
				     t.bwd_ms > 0 && t.attn_ms > 0 &&
				     t.attn_ms < t.fwd_ms;
				gpu_layer_free(c, in);
				snprintf(tag, sizeof(tag), "%s %s: block timed",
					 model_prec_names[precs[pi]], fams[f]);
				fails += !ok;
				report(ok, tag, arg);
			}
		}
		gpu_close(ctx);
	}
	return fails;
}

/* ---- the GEMM rate ---- */

extern "C" int
prof_gpu_gemm_bench(const prof_opts *o, const int64_t mkn[3],
		    struct prof_gemm_rate *r)
{
	void *ctx;
	gctx *c;
	void *x = NULL, *w = NULL, *y = NULL;
	std::vector<double> ms((size_t)(o->repeats > 0 ? o->repeats : 1));
	int64_t M = mkn[0], K = mkn[1], N = mkn[2];
	int ret = -1, k;

	memset(r, 0, sizeof(*r));
	if (gpu_open_prec(&ctx, o, NULL, o->precision)) {
		gpu_close(ctx);
		return -1;
	}
	c = (gctx *)ctx;
	{
		cudaDeviceProp prop;

		if (cudaGetDeviceProperties(&prop, o->device) == cudaSuccess)
			snprintf(r->device, sizeof(r->device), "%s",
				 prop.name);
	}
	k = dev_alloc(c, NULL, &x, M * K * (int64_t)esize(c), PROF_MEM_WORK);
	if (!k)
		k = dev_alloc(c, NULL, &w, N * K * (int64_t)esize(c),
			      PROF_MEM_WORK);
	if (!k)
		k = dev_alloc(c, NULL, &y, M * N * (int64_t)esize(c),
			      PROF_MEM_WORK);
	if (k > 0)
		pd2bw_error("a %lldx%lldx%lld GEMM does not fit in device "
			    "memory", (long long)M, (long long)K,
			    (long long)N);
	if (k || init_vals(c, x, M * K, 1.0f, 0, 1) ||
	    init_vals(c, w, N * K, 1.0f / sqrtf((float)K), 0, 2))
		goto out;
	/* Y = X W^T, as a linear layer runs */
	for (int i = 0; i < o->warmup + o->repeats; i++) {
		float t = 0;

		if (gemm(c, 0, 1, M, N, K, x, w, y, c->dt, 1, 0, NULL, 1, 0,
			 0, 0) < 0)
			goto out;
		if (i < o->warmup)
			continue;
		if (cudaEventRecord(c->ev[0], c->st) ||
		    gemm(c, 0, 1, M, N, K, x, w, y, c->dt, 1, 0, NULL, 1, 0, 0,
			 0) < 0 ||
		    cudaEventRecord(c->ev[1], c->st) ||
		    cudaEventSynchronize(c->ev[1]) ||
		    cudaEventElapsedTime(&t, c->ev[0], c->ev[1])) {
			pd2bw_error("timing the GEMM failed");
			goto out;
		}
		ms[(size_t)(i - o->warmup)] = t;
	}
	r->ms = prof_median(ms.data(), o->repeats, &r->spread);
	r->tflops = r->ms > 0 ? 2.0 * (double)M * (double)K * (double)N /
				(r->ms * 1e9) : 0;
	ret = 0;
out:
	cudaFree(x);
	cudaFree(y);
	cudaFree(w);
	gpu_close(ctx);
	return ret;
}
