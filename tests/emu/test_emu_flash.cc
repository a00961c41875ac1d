/*
 * test_emu_flash.cc - the fused attention of profiler/flash.cuh on the
 * host emulation with its WMMA (wmma_emu.h): forward O and log-sum-exp,
 * backward dq, dk, dv against attention done the plain way in double
 * from the same 16-bit inputs, causal or not, bf16 and fp16, sequence
 * lengths that are and are not multiples of the 64-row tiles and head
 * dimensions 8 to 128 (padded to 16, 32, 64, 128 inside).
 *
 * Tolerances: errors are max |got - want| / max |want| over a tensor
 * (the log-sum-exp absolute).  The kernels round P and dS to the input
 * type before their products and their outputs to it at the end, so
 * errors of a few units of the type's precision are expected: bf16
 * (8 bits) 2e-2, fp16 (11 bits) 2e-3; both several times what the
 * errors are.
 */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_emu.h"
#include "flash.cuh"
#include "harness.h"

/* ---- the emulated WMMA on its own ---- */

/* C = A B + 1 for A [16, 32] row-major, B [32, 16] stored transposed. */
__global__ void
k_wmma_check(float *c, const __half *a, const __half *bt)
{
	namespace wm = nvcuda::wmma;
	wm::fragment<wm::matrix_a, 16, 16, 16, __half, wm::row_major> fa;
	wm::fragment<wm::matrix_b, 16, 16, 16, __half, wm::col_major> fb;
	wm::fragment<wm::accumulator, 16, 16, 16, float> acc;

	wm::fill_fragment(acc, 1.0f);
	for (int k = 0; k < 32; k += 16) {
		wm::load_matrix_sync(fa, a + k, 32);
		wm::load_matrix_sync(fb, bt + k, 32);
		wm::mma_sync(acc, fa, fb, acc);
	}
	wm::store_matrix_sync(c, acc, 16, wm::mem_row_major);
}

static void
check_wmma(void)
{
	__half *a, *bt;
	float *c;
	int ok = 1;

	cudaMalloc((void **)&a, 16 * 32 * sizeof(__half));
	cudaMalloc((void **)&bt, 16 * 32 * sizeof(__half));
	cudaMalloc((void **)&c, 16 * 16 * sizeof(float));
	for (int i = 0; i < 16 * 32; i++) {
		a[i] = __float2half((float)(i % 7) - 3.0f);
		bt[i] = __float2half((float)(i % 5) - 2.0f);
	}
	LAUNCH(k_wmma_check, 1, 32, 0, c, a, bt);
	CHECK(cudaGetLastError() == cudaSuccess);
	for (int i = 0; i < 16; i++)
		for (int j = 0; j < 16; j++) {
			float want = 1;

			for (int k = 0; k < 32; k++)
				want += __half2float(a[i * 32 + k]) *
					__half2float(bt[j * 32 + k]);
			ok &= c[i * 16 + j] == want;
		}
	CHECK_MSG(ok, "wmma: A B + C with row- and column-major inputs");
	cudaFree(a);
	cudaFree(bt);
	cudaFree(c);
}

/* ---- attention ---- */

static float
rnd(uint32_t *x)
{
	*x = *x * 1664525u + 1013904223u;
	return (float)(*x >> 8) / 8388608.0f - 1.0f;
}

/* max |g - w| / max |w| */
static double
err(const std::vector<float> &g, const std::vector<double> &w)
{
	double num = 0, den = 1e-12;

	for (size_t i = 0; i < g.size(); i++) {
		double e = fabs(g[i] - w[i]);

		if (!(e <= num))
			num = std::isnan(e) ? INFINITY : e;
		if (fabs(w[i]) > den)
			den = fabs(w[i]);
	}
	return num / den;
}

struct ref {
	std::vector<double> o, lse, dq, dk, dv;
};

/* Attention of bh heads [s, d] in double, forward and backward. */
static void
reference(ref *r, const std::vector<float> &q, const std::vector<float> &k,
	  const std::vector<float> &v, const std::vector<float> &dout,
	  int bh, int s, int d, int causal)
{
	double scale = 1 / sqrt((double)d);
	std::vector<double> p((size_t)s * s), dp((size_t)s * s);
	size_t n = (size_t)bh * s * d;

	r->o.assign(n, 0);
	r->lse.assign((size_t)bh * s, 0);
	r->dq.assign(n, 0);
	r->dk.assign(n, 0);
	r->dv.assign(n, 0);
	for (int h = 0; h < bh; h++) {
		size_t b = (size_t)h * s * d;

		for (int i = 0; i < s; i++) {
			double mx = -INFINITY, sum = 0, dot = 0;
			int nk = causal ? i + 1 : s;

			for (int j = 0; j < nk; j++) {
				double x = 0;

				for (int c = 0; c < d; c++)
					x += (double)q[b + i * d + c] *
					     k[b + j * d + c];
				p[i * s + j] = x * scale;
				mx = fmax(mx, x * scale);
			}
			for (int j = 0; j < nk; j++) {
				p[i * s + j] = exp(p[i * s + j] - mx);
				sum += p[i * s + j];
			}
			for (int j = 0; j < s; j++)
				p[i * s + j] = j < nk ? p[i * s + j] / sum : 0;
			r->lse[(size_t)h * s + i] = mx + log(sum);
			for (int c = 0; c < d; c++) {
				double o = 0;

				for (int j = 0; j < nk; j++)
					o += p[i * s + j] * v[b + j * d + c];
				r->o[b + i * d + c] = o;
				dot += o * dout[b + i * d + c];
			}
			/* dS = P (dP - rowsum(dO O)) */
			for (int j = 0; j < s; j++) {
				double x = 0;

				for (int c = 0; c < d; c++)
					x += (double)dout[b + i * d + c] *
					     v[b + j * d + c];
				dp[i * s + j] = p[i * s + j] * (x - dot);
			}
		}
		for (int i = 0; i < s; i++)
			for (int j = 0; j < s; j++)
				for (int c = 0; c < d; c++) {
					size_t x = b + i * d + c;
					size_t y = b + j * d + c;
					double g = dp[i * s + j];

					r->dq[x] += scale * g * k[y];
					r->dk[y] += scale * g * q[x];
					r->dv[y] += p[i * s + j] * dout[x];
				}
	}
}

template <typename T>
static T *
dev_of(std::vector<float> *h, uint32_t *seed, float amp, size_t n)
{
	T *p;

	cudaMalloc((void **)&p, n * sizeof(T));
	h->resize(n);
	for (size_t i = 0; i < n; i++) {
		p[i] = fa_t<T>(amp * rnd(seed));
		(*h)[i] = fa_f(p[i]);   /* the reference sees the rounding */
	}
	return p;
}

template <typename T>
static std::vector<float>
host_of(const T *p, size_t n)
{
	std::vector<float> h(n);

	for (size_t i = 0; i < n; i++)
		h[i] = fa_f(p[i]);
	return h;
}

template <typename T>
static void
check_case(const char *tname, int bh, int s, int d, int causal, double tol)
{
	size_t n = (size_t)bh * s * d, nr = (size_t)bh * s;
	uint32_t seed = 1 + s * 131 + d * 7 + causal;
	std::vector<float> hq, hk, hv, hdo, got;
	T *q, *k, *v, *dout, *o, *dq, *dk, *dv;
	float *lse, *dd, *dqacc;
	ref r;
	char what[160];
	double e;

	/* q larger than k: peaked rows, so the running max moves */
	q = dev_of<T>(&hq, &seed, 3.0f, n);
	k = dev_of<T>(&hk, &seed, 1.0f, n);
	v = dev_of<T>(&hv, &seed, 1.0f, n);
	dout = dev_of<T>(&hdo, &seed, 1.0f, n);
	cudaMalloc((void **)&o, n * sizeof(T));
	cudaMalloc((void **)&dq, n * sizeof(T));
	cudaMalloc((void **)&dk, n * sizeof(T));
	cudaMalloc((void **)&dv, n * sizeof(T));
	cudaMalloc((void **)&lse, nr * sizeof(float));
	cudaMalloc((void **)&dd, nr * sizeof(float));
	cudaMalloc((void **)&dqacc, n * sizeof(float));
	reference(&r, hq, hk, hv, hdo, bh, s, d, causal);

	snprintf(what, sizeof(what), "%s s=%d d=%d %s: launches", tname, s,
		 d, causal ? "causal" : "full");
	CHECK_MSG(flash_fwd(o, lse, q, k, v, bh, s, d, causal, 0) ==
		  cudaSuccess &&
		  flash_bwd(dq, dk, dv, dqacc, dd, q, k, v, o, dout, lse, bh,
			    s, d, causal, 0) == cudaSuccess &&
		  cudaGetLastError() == cudaSuccess, what);

	struct {
		const char *name;
		const T *p;
		const std::vector<double> *want;
	} outs[] = {
		{"O", o, &r.o}, {"dq", dq, &r.dq}, {"dk", dk, &r.dk},
		{"dv", dv, &r.dv},
	};
	for (size_t t = 0; t < sizeof(outs) / sizeof(outs[0]); t++) {
		got = host_of(outs[t].p, n);
		e = err(got, *outs[t].want);
		snprintf(what, sizeof(what), "%s s=%d d=%d %s: %s (error "
			 "%.1e, tolerance %.0e)", tname, s, d,
			 causal ? "causal" : "full", outs[t].name, e, tol);
		CHECK_MSG(e <= tol, what);
	}
	e = 0;
	for (size_t i = 0; i < nr; i++) {
		double x = fabs(lse[i] - r.lse[i]);

		if (!(x <= e))
			e = std::isnan(x) ? INFINITY : x;
	}
	snprintf(what, sizeof(what), "%s s=%d d=%d %s: log-sum-exp (error "
		 "%.1e, tolerance %.0e)", tname, s, d,
		 causal ? "causal" : "full", e, tol);
	CHECK_MSG(e <= tol, what);

	cudaFree(q);
	cudaFree(k);
	cudaFree(v);
	cudaFree(dout);
	cudaFree(o);
	cudaFree(dq);
	cudaFree(dk);
	cudaFree(dv);
	cudaFree(lse);
	cudaFree(dd);
	cudaFree(dqacc);
}

int
main(void)
{
	/* head dims the kernels pad: 8 as in tiny-llama.yaml, 20 (rows not
	   in 16-byte pieces), 40, 80 */
	static const struct {
		int bf16, s, d, causal;
	} odd[] = {
		{1, 16, 8, 1}, {0, 70, 20, 0}, {1, 70, 40, 1}, {0, 130, 80, 1},
	};
	static const int ss[] = {16, 70, 130}, ds[] = {32, 64, 128};

	check_wmma();
	/* one tile, two with the second partial, three */
	for (int si = 0; si < 3; si++)
		for (int di = 0; di < 3; di++)
			for (int causal = 0; causal < 2; causal++) {
				int bh = ss[si] < 64 ? 2 : 1;

				check_case<__nv_bfloat16>("bf16", bh, ss[si],
							  ds[di], causal,
							  2e-2);
				check_case<__half>("fp16", bh, ss[si], ds[di],
						   causal, 2e-3);
			}
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		if (odd[i].bf16)
			check_case<__nv_bfloat16>("bf16", 1, odd[i].s,
						  odd[i].d, odd[i].causal,
						  2e-2);
		else
			check_case<__half>("fp16", 1, odd[i].s, odd[i].d,
					   odd[i].causal, 2e-3);
	}
	/* what the fused kernels refuse, the caller takes elsewhere */
	CHECK(!flash_head_dim_ok(0) && flash_head_dim_ok(128) &&
	      !flash_head_dim_ok(129));
	CHECK(flash_fwd<__half>(NULL, NULL, NULL, NULL, NULL, 1, 16, 256, 0,
			       0) == cudaErrorInvalidValue);
	return h_done();
}
