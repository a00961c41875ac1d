/*
 * flash.cuh - fused attention for the cuda backend, after FlashAttention-2:
 * softmax(scale q k^T) v over [b a, s, d] heads in bf16 or fp16 with fp32
 * accumulation on tensor cores (WMMA m16n16k16), without ever storing an
 * s x s tensor.  Forward keeps O and the fp32 log-sum-exp of every score
 * row; backward recomputes the scores from them a tile at a time.
 *
 * A block of 4 warps works on one (batch, head) and 64 rows: in forward
 * 64 queries (16 a warp) against tiles of 64 keys, in backward 64 keys
 * against tiles of 64 queries.  Tiles are staged in dynamic shared memory
 * with the head dimension zero-padded to D, a power of two from 16 to 128,
 * so any head_dim up to 128 works.  Which lane holds which element of a
 * fragment is unspecified, so fragments are only ever loaded, stored,
 * multiplied or scaled as a whole; everything done per row (masking, the
 * online softmax, rescaling the output) happens in shared memory.
 *
 * Included by gpu.cu and by tests/emu/test_emu_flash.cc after
 * LAUNCH_SMEM and PD2BW_DYNAMIC_SHARED are defined (by gpu.cu on the
 * device, by cuda_emu.h in the host emulation, which also brings the
 * emulated WMMA of wmma_emu.h).
 */
#ifndef PD2BW_FLASH_CUH
#define PD2BW_FLASH_CUH

#include <cstdint>
#include <cstring>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#ifndef PD2BW_EMU
#include <mma.h>
#define FA_BOUNDS __launch_bounds__(FA_THREADS)
/* WMMA wants 32-byte aligned tiles: say so of the dynamic shared memory
   (it starts the block's shared window, these kernels having no static
   shared memory, so this costs nothing) */
#define FA_SHARED(name)                                                      \
	extern __shared__ __align__(128) unsigned char name[]
#else
#define FA_BOUNDS
#define FA_SHARED(name) PD2BW_DYNAMIC_SHARED(unsigned char, name)
#endif

#define FA_ROWS 64         /* rows a block owns: 16 per warp */
#define FA_TILE 64         /* rows of the tiles it loops over */
#define FA_THREADS 128
#define FA_MAX_D 128

/* head_dim the fused kernels take (padded to D inside) */
static inline int
flash_head_dim_ok(int64_t d)
{
	return d >= 1 && d <= FA_MAX_D;
}

/* The padded head dimension as a type, so that launches deduce it. */
template <int D> struct fa_hd {};

__device__ __forceinline__ float fa_f(__half x) { return __half2float(x); }
__device__ __forceinline__ float fa_f(__nv_bfloat16 x)
{
	return __bfloat162float(x);
}
template <typename T> __device__ __forceinline__ T fa_t(float x);
template <> __device__ __forceinline__ __half fa_t<__half>(float x)
{
	return __float2half(x);
}
template <>
__device__ __forceinline__ __nv_bfloat16 fa_t<__nv_bfloat16>(float x)
{
	return __float2bfloat16(x);
}

/*
 * Shared memory.  Rows of 16-bit tiles are D + 8 elements and rows of
 * fp32 tiles D + 4 (or 64 + 4): 16 bytes more than needed, so that the
 * rows of a fragment fall on different banks, while every 16 x 16 tile
 * stays 32-byte aligned and every leading dimension a multiple of 16
 * bytes, as WMMA requires.
 */
template <int D> struct fa_fwd_smem {
	enum {
		LDT = D + 8,                    /* q, k, v rows (16-bit) */
		LDS = FA_TILE + 4,              /* scores (fp32) */
		LDP = FA_TILE + 8,              /* probabilities (16-bit) */
		LDO = D + 4,                    /* output accumulator */
		Q = 0,
		K = Q + FA_ROWS * LDT * 2,
		V = K + FA_TILE * LDT * 2,
		S = V + FA_TILE * LDT * 2,
		P = S + FA_ROWS * LDS * 4,
		O = P + FA_ROWS * LDP * 2,
		R = O + FA_ROWS * LDO * 4,      /* 1 / row sum */
		BYTES = R + FA_ROWS * 4
	};
	static_assert(K % 32 == 0 && S % 32 == 0 && P % 32 == 0 &&
		      O % 32 == 0 && R % 32 == 0, "WMMA tiles 32-byte aligned");
};

template <int D> struct fa_bwd_smem {
	enum {
		LDT = D + 8,
		LDS = FA_TILE + 4,
		LDP = FA_TILE + 8,
		K = 0,                          /* the block's keys */
		V = K + FA_ROWS * LDT * 2,
		Q = V + FA_ROWS * LDT * 2,      /* the query tile */
		DO = Q + FA_TILE * LDT * 2,     /* its output gradient */
		S = DO + FA_TILE * LDT * 2,     /* S; dP; dQ, dK, dV out */
		P = S + FA_TILE * LDS * 4,
		DS = P + FA_TILE * LDP * 2,
		LSE = DS + FA_TILE * LDP * 2,
		DD = LSE + FA_TILE * 4,         /* rowsum(dO * O) */
		BYTES = DD + FA_TILE * 4
	};
	static_assert(V % 32 == 0 && Q % 32 == 0 && DO % 32 == 0 &&
		      S % 32 == 0 && P % 32 == 0 && DS % 32 == 0,
		      "WMMA tiles 32-byte aligned");
};

/* 16 bytes (zeros when src is NULL), in one access on the device. */
__device__ __forceinline__ void
fa_copy16(void *dst, const void *src)
{
#ifdef PD2BW_EMU
	if (src)
		memcpy(dst, src, 16);
	else
		memset(dst, 0, 16);
#else
	if (src)
		*(uint4 *)dst = *(const uint4 *)src;
	else
		*(uint4 *)dst = make_uint4(0, 0, 0, 0);
#endif
}

/*
 * Rows r0 .. r0 + 63 of a [s, d] head into a 64 x D tile with rows of ld
 * elements; rows past s and columns past d are zero, so they add nothing
 * to any product.  Whole 16-byte pieces when the rows allow.
 */
template <typename T, int D>
__device__ __forceinline__ void
fa_load_tile(T *dst, int ld, const T *src, int64_t r0, int64_t s, int64_t d)
{
	if (d % 8 == 0) {
		for (int i = threadIdx.x; i < FA_TILE * D / 8;
		     i += FA_THREADS) {
			int r = i / (D / 8), c = i % (D / 8) * 8;

			fa_copy16(dst + r * ld + c, r0 + r < s && c < d ?
				  src + (r0 + r) * d + c : NULL);
		}
		return;
	}
	for (int i = threadIdx.x; i < FA_TILE * D; i += FA_THREADS) {
		int r = i / D, c = i % D;

		dst[r * ld + c] = r0 + r < s && c < d ?
				  src[(r0 + r) * d + c] : fa_t<T>(0.0f);
	}
}

/*
 * Forward: grid (b a, query tiles), the last tiles first (under a causal
 * mask they have the most keys).  o [b a, s, d]; lse [b a, s] is the log
 * of each row's softmax denominator in units of scale q k^T.
 */
template <typename T, int D>
__device__ __forceinline__ void
fa_fwd_body(fa_hd<D>, T *o, float *lse, const T *q, const T *k, const T *v,
	    int64_t s, int64_t d, int causal, float scale)
{
	namespace wm = nvcuda::wmma;
	typedef fa_fwd_smem<D> L;
	typedef wm::fragment<wm::accumulator, 16, 16, 16, float> acc_t;
	FA_SHARED(sm);
	T *qs = (T *)(sm + L::Q), *ks = (T *)(sm + L::K);
	T *vs = (T *)(sm + L::V), *ps = (T *)(sm + L::P);
	float *ss = (float *)(sm + L::S), *os = (float *)(sm + L::O);
	float *rinv = (float *)(sm + L::R);
	int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
	/* softmax: two lanes a row, alternate columns */
	int row = warp * 16 + lane / 2, half = lane % 2;
	int64_t q0 = (int64_t)(gridDim.y - 1 - blockIdx.y) * FA_ROWS;
	int64_t head = (int64_t)blockIdx.x * s * d, i = q0 + row;
	int64_t nk = causal && q0 + FA_ROWS < s ? q0 + FA_ROWS : s;
	float m = -INFINITY, l = 0;
	wm::fragment<wm::matrix_a, 16, 16, 16, T, wm::row_major> qf[D / 16];

	fa_load_tile<T, D>(qs, L::LDT, q + head, q0, s, d);
	for (int j = threadIdx.x; j < FA_ROWS * L::LDO; j += FA_THREADS)
		os[j] = 0;
	__syncthreads();
	for (int c = 0; c < D / 16; c++)
		wm::load_matrix_sync(qf[c], qs + warp * 16 * L::LDT + c * 16,
				     L::LDT);
	for (int64_t k0 = 0; k0 < nk; k0 += FA_TILE) {
		float *sr = ss + row * L::LDS, *orow = os + row * L::LDO;
		T *pr = ps + row * L::LDP;
		float mx = -INFINITY, mn, mref, alpha, sum = 0;

		__syncthreads();        /* every warp is done with k, v */
		fa_load_tile<T, D>(ks, L::LDT, k + head, k0, s, d);
		fa_load_tile<T, D>(vs, L::LDT, v + head, k0, s, d);
		__syncthreads();
		/* this warp's 16 rows of q k^T */
		for (int n = 0; n < FA_TILE / 16; n++) {
			acc_t acc;

			wm::fill_fragment(acc, 0.0f);
			for (int c = 0; c < D / 16; c++) {
				wm::fragment<wm::matrix_b, 16, 16, 16, T,
					     wm::col_major> kf;

				wm::load_matrix_sync(kf, ks + n * 16 * L::LDT +
						     c * 16, L::LDT);
				wm::mma_sync(acc, qf[c], kf, acc);
			}
			wm::store_matrix_sync(ss + warp * 16 * L::LDS + n * 16,
					      acc, L::LDS, wm::mem_row_major);
		}
		__syncwarp();
		/* online softmax: new running max, P = exp(S - max) */
		for (int j = half; j < FA_TILE; j += 2) {
			int64_t kj = k0 + j;
			float x = kj < s && !(causal && kj > i) ?
				  sr[j] * scale : -INFINITY;

			sr[j] = x;
			mx = fmaxf(mx, x);
		}
		mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
		mn = fmaxf(m, mx);
		/* a row with no key yet must not make inf - inf */
		mref = mn == -INFINITY ? 0.0f : mn;
		alpha = __expf(m - mref);
		for (int j = half; j < FA_TILE; j += 2) {
			T p = fa_t<T>(__expf(sr[j] - mref));

			/* the sum of what P V multiplies */
			pr[j] = p;
			sum += fa_f(p);
		}
		sum += __shfl_xor_sync(0xffffffffu, sum, 1);
		l = l * alpha + sum;
		m = mn;
		for (int c = half; c < D; c += 2)
			orow[c] *= alpha;
		__syncwarp();
		/* O += P V on this warp's rows */
		for (int n = 0; n < D / 16; n++) {
			acc_t acc;
			float *ot = os + warp * 16 * L::LDO + n * 16;

			wm::load_matrix_sync(acc, ot, L::LDO,
					     wm::mem_row_major);
			for (int c = 0; c < FA_TILE / 16; c++) {
				wm::fragment<wm::matrix_a, 16, 16, 16, T,
					     wm::row_major> pf;
				wm::fragment<wm::matrix_b, 16, 16, 16, T,
					     wm::row_major> vf;

				wm::load_matrix_sync(pf, ps + warp * 16 *
						     L::LDP + c * 16,
						     L::LDP);
				wm::load_matrix_sync(vf, vs + c * 16 * L::LDT +
						     n * 16, L::LDT);
				wm::mma_sync(acc, pf, vf, acc);
			}
			wm::store_matrix_sync(ot, acc, L::LDO,
					      wm::mem_row_major);
		}
	}
	if (!half) {
		rinv[row] = l > 0 ? 1.0f / l : 0.0f;
		if (i < s)
			lse[(int64_t)blockIdx.x * s + i] = m + logf(l);
	}
	__syncthreads();
	for (int j = threadIdx.x; j < FA_ROWS * d; j += FA_THREADS) {
		int r = j / (int)d, c = j % (int)d;

		if (q0 + r < s)
			o[head + (q0 + r) * d + c] =
				fa_t<T>(os[r * L::LDO + c] * rinv[r]);
	}
}

/* dd[r] = sum over the row of dO * O: one warp a row. */
template <typename T>
__global__ void
k_flash_dot(float *dd, const T *dout, const T *o, int64_t rows, int64_t d)
{
	int64_t r = (int64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
	int lane = threadIdx.x % 32;
	float acc = 0;

	if (r >= rows)
		return;
	for (int64_t c = lane; c < d; c += 32)
		acc += fa_f(dout[r * d + c]) * fa_f(o[r * d + c]);
	for (int w = 16; w > 0; w >>= 1)
		acc += __shfl_xor_sync(0xffffffffu, acc, w);
	if (lane == 0)
		dd[r] = acc;
}

template <typename T>
__global__ void
k_flash_dq(T *dq, const float *acc, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		dq[i] = fa_t<T>(acc[i]);
}

/*
 * Lanes of a warp move its 16 rows x w columns of scratch (rows of ld
 * floats) to [.., d] rows r0.. and columns c0.. of a head: dQ by adding
 * (other blocks add to the same rows), dK and dV by storing.
 */
template <typename T>
__device__ __forceinline__ void
fa_rows_out(T *dst, float *add, const float *scr, int ld, int w, int64_t r0,
	    int c0, int64_t s, int64_t d, float mul)
{
	int lane = threadIdx.x % 32;

	for (int e = lane; e < 16 * w; e += 32) {
		int rr = e / w, cc = e % w;
		int64_t r = r0 + rr, c = c0 + cc;

		if (r >= s || c >= d)
			continue;
		if (add)
			atomicAdd(&add[r * d + c], mul * scr[rr * ld + cc]);
		else
			dst[r * d + c] = fa_t<T>(mul * scr[rr * ld + cc]);
	}
}

/*
 * Backward: grid (b a, key blocks).  A block keeps dK and dV of its 64
 * keys in fragments (16 keys a warp) and, for every query tile that sees
 * them, recomputes P = exp(scale q k^T - lse), then dV += P^T dO,
 * dP = dO v^T, dS = P (dP - dd), dK += scale dS^T q, and adds
 * scale dS k to the fp32 dq accumulator.
 */
/*
 * One warp's 16 x FA_TILE block of a b^T in fp32: a holds 16 rows and b
 * FA_TILE rows of D 16-bit values in shared memory, both with row stride
 * ldt; the result goes to out with row stride lds.
 */
template <typename T, int D>
__device__ __forceinline__ void
fa_warp_abt(float *out, int lds, const T *a, const T *b, int ldt)
{
	namespace wm = nvcuda::wmma;

	for (int n = 0; n < FA_TILE / 16; n++) {
		wm::fragment<wm::accumulator, 16, 16, 16, float> acc;

		wm::fill_fragment(acc, 0.0f);
		for (int c = 0; c < D / 16; c++) {
			wm::fragment<wm::matrix_a, 16, 16, 16, T,
				     wm::row_major> af;
			wm::fragment<wm::matrix_b, 16, 16, 16, T,
				     wm::col_major> bf;

			wm::load_matrix_sync(af, a + c * 16, ldt);
			wm::load_matrix_sync(bf, b + n * 16 * ldt + c * 16,
					     ldt);
			wm::mma_sync(acc, af, bf, acc);
		}
		wm::store_matrix_sync(out + n * 16, acc, lds,
				      wm::mem_row_major);
	}
}

template <typename T, int D>
__device__ __forceinline__ void
fa_bwd_body(fa_hd<D>, float *dqacc, T *dk, T *dv, const T *q, const T *k,
	    const T *v, const T *dout, const float *lse, const float *dd,
	    int64_t s, int64_t d, int causal, float scale)
{
	namespace wm = nvcuda::wmma;
	typedef fa_bwd_smem<D> L;
	typedef wm::fragment<wm::accumulator, 16, 16, 16, float> acc_t;
	typedef wm::fragment<wm::matrix_a, 16, 16, 16, T, wm::row_major> ar_t;
	typedef wm::fragment<wm::matrix_a, 16, 16, 16, T, wm::col_major> ac_t;
	typedef wm::fragment<wm::matrix_b, 16, 16, 16, T, wm::row_major> br_t;
	FA_SHARED(sm);
	T *ks = (T *)(sm + L::K), *vs = (T *)(sm + L::V);
	T *qs = (T *)(sm + L::Q), *dos = (T *)(sm + L::DO);
	T *ps = (T *)(sm + L::P), *dss = (T *)(sm + L::DS);
	float *ss = (float *)(sm + L::S), *ls = (float *)(sm + L::LSE);
	float *dds = (float *)(sm + L::DD);
	int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
	int row = warp * 16 + lane / 2, half = lane % 2;
	int64_t k0 = (int64_t)blockIdx.y * FA_ROWS;
	int64_t head = (int64_t)blockIdx.x * s * d;
	float *sw = ss + warp * 16 * L::LDS;     /* this warp's scratch */
	acc_t dkf[D / 16], dvf[D / 16];

	for (int n = 0; n < D / 16; n++) {
		wm::fill_fragment(dkf[n], 0.0f);
		wm::fill_fragment(dvf[n], 0.0f);
	}
	fa_load_tile<T, D>(ks, L::LDT, k + head, k0, s, d);
	fa_load_tile<T, D>(vs, L::LDT, v + head, k0, s, d);
	/* under the mask only queries from k0 on see these keys */
	for (int64_t q0 = causal ? k0 : 0; q0 < s; q0 += FA_TILE) {
		float *sr = ss + row * L::LDS;
		T *pr = ps + row * L::LDP, *dsr = dss + row * L::LDP;
		int64_t i = q0 + row;

		__syncthreads();        /* the last tile is used up */
		fa_load_tile<T, D>(qs, L::LDT, q + head, q0, s, d);
		fa_load_tile<T, D>(dos, L::LDT, dout + head, q0, s, d);
		for (int j = threadIdx.x; j < FA_TILE; j += FA_THREADS) {
			int64_t r = (int64_t)blockIdx.x * s + q0 + j;

			/* rows past s: P = exp(-inf) = 0 */
			ls[j] = q0 + j < s ? lse[r] : INFINITY;
			dds[j] = q0 + j < s ? dd[r] : 0.0f;
		}
		__syncthreads();
		/* S = q k^T for this warp's 16 queries */
		fa_warp_abt<T, D>(sw, L::LDS, qs + warp * 16 * L::LDT, ks,
				  L::LDT);
		__syncwarp();
		for (int j = half; j < FA_TILE; j += 2) {
			int64_t kj = k0 + j;

			pr[j] = fa_t<T>(kj < s && !(causal && kj > i) ?
					__expf(sr[j] * scale - ls[row]) :
					0.0f);
		}
		__syncwarp();           /* S is read: dP goes there */
		/* dP = dO v^T */
		fa_warp_abt<T, D>(sw, L::LDS, dos + warp * 16 * L::LDT, vs,
				  L::LDT);
		__syncwarp();
		for (int j = half; j < FA_TILE; j += 2)
			dsr[j] = fa_t<T>(fa_f(pr[j]) * (sr[j] - dds[row]));
		__syncthreads();        /* all rows of P and dS are in */
		/* dV += P^T dO, dK += dS^T q for this warp's 16 keys */
		for (int c = 0; c < FA_TILE / 16; c++) {
			ac_t pt, dst;

			wm::load_matrix_sync(pt, ps + c * 16 * L::LDP +
					     warp * 16, L::LDP);
			wm::load_matrix_sync(dst, dss + c * 16 * L::LDP +
					     warp * 16, L::LDP);
			for (int n = 0; n < D / 16; n++) {
				br_t of, qf;

				wm::load_matrix_sync(of, dos + c * 16 * L::LDT +
						     n * 16, L::LDT);
				wm::mma_sync(dvf[n], pt, of, dvf[n]);
				wm::load_matrix_sync(qf, qs + c * 16 * L::LDT +
						     n * 16, L::LDT);
				wm::mma_sync(dkf[n], dst, qf, dkf[n]);
			}
		}
		/* dQ of this warp's queries += scale dS k, 64 columns at a
		   time through its scratch rows */
		for (int n0 = 0; n0 < D / 16; n0 += 4) {
			int nn = D / 16 - n0 < 4 ? D / 16 - n0 : 4;

			for (int n = 0; n < nn; n++) {
				acc_t acc;

				wm::fill_fragment(acc, 0.0f);
				for (int c = 0; c < FA_TILE / 16; c++) {
					ar_t sf;
					br_t kf;

					wm::load_matrix_sync(sf, dss + warp *
							     16 * L::LDP +
							     c * 16, L::LDP);
					wm::load_matrix_sync(kf, ks + c * 16 *
							     L::LDT + (n0 +
							     n) * 16, L::LDT);
					wm::mma_sync(acc, sf, kf, acc);
				}
				wm::store_matrix_sync(sw + n * 16, acc,
						      L::LDS,
						      wm::mem_row_major);
			}
			__syncwarp();
			fa_rows_out<T>(NULL, dqacc + head, sw, L::LDS, nn * 16,
				       q0 + warp * 16, n0 * 16, s, d, scale);
			__syncwarp();
		}
	}
	/* dK (scaled like dQ) and dV out through the scratch */
	for (int n0 = 0; n0 < D / 16; n0 += 4) {
		int nn = D / 16 - n0 < 4 ? D / 16 - n0 : 4;

		for (int n = 0; n < nn; n++)
			wm::store_matrix_sync(sw + n * 16, dkf[n0 + n], L::LDS,
					      wm::mem_row_major);
		__syncwarp();
		fa_rows_out<T>(dk + head, NULL, sw, L::LDS, nn * 16,
			       k0 + warp * 16, n0 * 16, s, d, scale);
		__syncwarp();
		for (int n = 0; n < nn; n++)
			wm::store_matrix_sync(sw + n * 16, dvf[n0 + n], L::LDS,
					      wm::mem_row_major);
		__syncwarp();
		fa_rows_out<T>(dv + head, NULL, sw, L::LDS, nn * 16,
			       k0 + warp * 16, n0 * 16, s, d, 1.0f);
		__syncwarp();
	}
}

/*
 * The kernels.  Tensor cores take bf16 from sm_80 on: built for an older
 * target, the bf16 kernels only trap (attn_fused() does not choose them
 * on such a device), so that the fp16 ones still build there.
 */
template <typename T> struct fa_arch_ok {
	enum { value = 1 };
};
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
template <> struct fa_arch_ok<__nv_bfloat16> {
	enum { value = 0 };
};
#endif

template <typename T, int D>
__global__ void FA_BOUNDS
k_flash_fwd(fa_hd<D> hd, T *o, float *lse, const T *q, const T *k,
	    const T *v, int64_t s, int64_t d, int causal, float scale)
{
	if constexpr (fa_arch_ok<T>::value)
		fa_fwd_body<T, D>(hd, o, lse, q, k, v, s, d, causal, scale);
	else
		__trap();
}

template <typename T, int D>
__global__ void FA_BOUNDS
k_flash_bwd(fa_hd<D> hd, float *dqacc, T *dk, T *dv, const T *q,
	    const T *k, const T *v, const T *dout, const float *lse,
	    const float *dd, int64_t s, int64_t d, int causal, float scale)
{
	if constexpr (fa_arch_ok<T>::value)
		fa_bwd_body<T, D>(hd, dqacc, dk, dv, q, k, v, dout, lse, dd, s,
				  d, causal, scale);
	else
		__trap();
}

/* ---- host side ---- */

static inline unsigned
fa_blocks(int64_t n, int per)
{
	return (unsigned)((n + per - 1) / per);
}

/*
 * More than 48 KiB of dynamic shared memory is opt-in, once a kernel.
 * Through the C entry point: the host emulation has no nvcc, so not the
 * template that cuda_runtime.h declares for it.
 */
template <typename K>
static cudaError_t
fa_smem_opt_in(K *kernel, int *done, size_t bytes)
{
	cudaError_t e;

	if (*done)
		return cudaSuccess;
	e = cudaFuncSetAttribute((const void *)kernel,
				 cudaFuncAttributeMaxDynamicSharedMemorySize,
				 (int)bytes);
	if (e == cudaSuccess)
		*done = 1;
	return e;
}

template <typename T, int D>
static cudaError_t
fa_fwd(T *o, float *lse, const T *q, const T *k, const T *v, int64_t bh,
       int64_t s, int64_t d, int causal, cudaStream_t st)
{
	static int opted;
	size_t bytes = fa_fwd_smem<D>::BYTES;
	dim3 grid((unsigned)bh, fa_blocks(s, FA_ROWS));
	cudaError_t e = fa_smem_opt_in(k_flash_fwd<T, D>, &opted, bytes);

	if (e != cudaSuccess)
		return e;
	LAUNCH_SMEM(k_flash_fwd, grid, FA_THREADS, bytes, st, fa_hd<D>(), o,
		    lse, q, k, v, s, d, causal, 1.0f / sqrtf((float)d));
	return cudaSuccess;
}

template <typename T, int D>
static cudaError_t
fa_bwd(T *dk, T *dv, float *dqacc, const T *q, const T *k, const T *v,
       const T *dout, const float *lse, const float *dd, int64_t bh,
       int64_t s, int64_t d, int causal, cudaStream_t st)
{
	static int opted;
	size_t bytes = fa_bwd_smem<D>::BYTES;
	dim3 grid((unsigned)bh, fa_blocks(s, FA_ROWS));
	cudaError_t e = fa_smem_opt_in(k_flash_bwd<T, D>, &opted, bytes);

	if (e != cudaSuccess)
		return e;
	LAUNCH_SMEM(k_flash_bwd, grid, FA_THREADS, bytes, st, fa_hd<D>(),
		    dqacc, dk, dv, q, k, v, dout, lse, dd, s, d, causal,
		    1.0f / sqrtf((float)d));
	return cudaSuccess;
}

/*
 * o = softmax(q k^T / sqrt(d)) v, causal or not, for bh heads of [s, d]
 * (q, k, v, o all [bh, s, d]); lse [bh, s] fp32.  Launch errors show in
 * cudaGetLastError as usual.
 */
template <typename T>
static cudaError_t
flash_fwd(T *o, float *lse, const T *q, const T *k, const T *v, int64_t bh,
	  int64_t s, int64_t d, int causal, cudaStream_t st)
{
	if (!flash_head_dim_ok(d) || bh < 1 || s < 1)
		return cudaErrorInvalidValue;
	if (d <= 16)
		return fa_fwd<T, 16>(o, lse, q, k, v, bh, s, d, causal, st);
	if (d <= 32)
		return fa_fwd<T, 32>(o, lse, q, k, v, bh, s, d, causal, st);
	if (d <= 64)
		return fa_fwd<T, 64>(o, lse, q, k, v, bh, s, d, causal, st);
	return fa_fwd<T, 128>(o, lse, q, k, v, bh, s, d, causal, st);
}

/*
 * The gradients dq, dk, dv [bh, s, d] of flash_fwd from dout, the output
 * o and lse of forward.  Work: dd [bh, s] and dqacc [bh, s, d], fp32.
 */
template <typename T>
static cudaError_t
flash_bwd(T *dq, T *dk, T *dv, float *dqacc, float *dd, const T *q,
	  const T *k, const T *v, const T *o, const T *dout, const float *lse,
	  int64_t bh, int64_t s, int64_t d, int causal, cudaStream_t st)
{
	int64_t n = bh * s * d;
	cudaError_t e;

	if (!flash_head_dim_ok(d) || bh < 1 || s < 1)
		return cudaErrorInvalidValue;
	LAUNCH(k_flash_dot, fa_blocks(bh * s, 8), 256, st, dd, dout, o,
	       bh * s, d);
	e = cudaMemsetAsync(dqacc, 0, (size_t)n * sizeof(float), st);
	if (e != cudaSuccess)
		return e;
	if (d <= 16)
		e = fa_bwd<T, 16>(dk, dv, dqacc, q, k, v, dout, lse, dd, bh,
				  s, d, causal, st);
	else if (d <= 32)
		e = fa_bwd<T, 32>(dk, dv, dqacc, q, k, v, dout, lse, dd, bh,
				  s, d, causal, st);
	else if (d <= 64)
		e = fa_bwd<T, 64>(dk, dv, dqacc, q, k, v, dout, lse, dd, bh,
				  s, d, causal, st);
	else
		e = fa_bwd<T, 128>(dk, dv, dqacc, q, k, v, dout, lse, dd, bh,
				   s, d, causal, st);
	if (e != cudaSuccess)
		return e;
	LAUNCH(k_flash_dq, fa_blocks(n, 256), 256, st, dq, dqacc, n);
	return cudaSuccess;
}

/* fp32 storage has no WMMA path: callers take the unfused one. */
static inline cudaError_t
flash_fwd(float *, float *, const float *, const float *, const float *,
	  int64_t, int64_t, int64_t, int, cudaStream_t)
{
	return cudaErrorNotSupported;
}

static inline cudaError_t
flash_bwd(float *, float *, float *, float *, float *, const float *,
	  const float *, const float *, const float *, const float *,
	  const float *, int64_t, int64_t, int64_t, int, cudaStream_t)
{
	return cudaErrorNotSupported;
}

#endif
