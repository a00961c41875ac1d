/*
 * cpu.c - the reference backend: forward and backward of every op of the
 * layer graph in C with fp32 values (double where a reduction would
 * otherwise lose the digits the finite-difference tests need).  The
 * GEMMs of the linear layers and of attention go through CBLAS
 * (OpenBLAS); the hand-written loops they replace stay as *_ref, the
 * independent reference the unit tests hold the BLAS calls to.
 */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pd2bw/error.h"
#include "pd2bw/profile.h"
#include "cpu.h"
#include "dropout.h"

#define NORM_EPS 1e-5f
#define ROPE_BASE 10000.0

void
prof_cpu_fill(float *x, int64_t n, float scale, uint64_t *state)
{
	int64_t i;

	for (i = 0; i < n; i++) {
		/* xorshift64*: cheap, reproducible everywhere */
		uint64_t s = *state;

		s ^= s >> 12;
		s ^= s << 25;
		s ^= s >> 27;
		*state = s;
		s *= 2685821657736338717ULL;
		/* top 53 bits scaled to [-1, 1) */
		x[i] = scale * (float)((double)(s >> 11) * 0x1p-52 - 1.0);
	}
}

void
prof_cpu_linear_fwd_ref(float *y, const float *x, const float *w,
		    const float *bias, int64_t T, int64_t k, int64_t n)
{
	int64_t t, j, i;

	for (t = 0; t < T; t++) {
		const float *xr = x + t * k;

		for (j = 0; j < n; j++) {
			const float *wr = w + j * k;
			float acc = bias ? bias[j] : 0.0f;

			for (i = 0; i < k; i++)
				acc += xr[i] * wr[i];
			y[t * n + j] = acc;
		}
	}
}

void
prof_cpu_linear_bwd_ref(float *dx, float *dw, float *dbias, const float *dy,
		    const float *x, const float *w, int64_t T, int64_t k,
		    int64_t n)
{
	int64_t t, j, i;

	for (t = 0; t < T; t++) {
		const float *xr = x + t * k;
		float *dxr = dx + t * k;

		for (j = 0; j < n; j++) {
			float g = dy[t * n + j];
			const float *wr = w + j * k;
			float *dwr = dw + j * k;

			if (g == 0.0f)
				continue;
			for (i = 0; i < k; i++) {
				dxr[i] += g * wr[i];
				dwr[i] += g * xr[i];
			}
			if (dbias)
				dbias[j] += g;
		}
	}
}

void
prof_cpu_norm_fwd(float *y, float *stats, const float *x, const float *gamma,
		  const float *beta, int64_t T, int64_t n, int rms)
{
	int64_t t, i;

	for (t = 0; t < T; t++) {
		const float *xr = x + t * n;
		double mean = 0, var = 0;
		float rstd;

		if (!rms) {
			for (i = 0; i < n; i++)
				mean += xr[i];
			mean /= (double)n;
		}
		for (i = 0; i < n; i++)
			var += (xr[i] - mean) * (xr[i] - mean);
		var /= (double)n;
		rstd = (float)(1.0 / sqrt(var + NORM_EPS));
		for (i = 0; i < n; i++) {
			float v = (float)(xr[i] - mean) * rstd * gamma[i];

			y[t * n + i] = beta ? v + beta[i] : v;
		}
		stats[2 * t] = (float)mean;
		stats[2 * t + 1] = rstd;
	}
}

void
prof_cpu_norm_bwd(float *dx, float *dgamma, float *dbeta, const float *dy,
		  const float *x, const float *stats, const float *gamma,
		  int64_t T, int64_t n, int rms)
{
	int64_t t, i;

	for (t = 0; t < T; t++) {
		const float *xr = x + t * n, *dyr = dy + t * n;
		float mean = stats[2 * t], rstd = stats[2 * t + 1];
		double sum = 0, sumx = 0;

		for (i = 0; i < n; i++) {
			float xhat = (xr[i] - mean) * rstd;
			float g = dyr[i] * gamma[i];

			sum += g;
			sumx += g * xhat;
			dgamma[i] += dyr[i] * xhat;
			if (dbeta)
				dbeta[i] += dyr[i];
		}
		sum /= (double)n;
		sumx /= (double)n;
		if (rms)
			sum = 0;
		for (i = 0; i < n; i++) {
			float xhat = (xr[i] - mean) * rstd;
			float g = dyr[i] * gamma[i];

			dx[t * n + i] += rstd * (g - (float)sum -
						 xhat * (float)sumx);
		}
	}
}

/* Rotate (or with inverse, rotate back) one head vector at position pos. */
static void
rope(float *v, int64_t dim, int64_t pos, int inverse)
{
	int64_t half = dim / 2, p;

	for (p = 0; p < half; p++) {
		double th = (double)pos * pow(ROPE_BASE, -2.0 * (double)p /
						       (double)dim);
		float c = (float)cos(th), s = (float)sin(th);
		float a = v[p], b = v[p + half];

		if (inverse)
			s = -s;
		v[p] = a * c - b * s;
		v[p + half] = a * s + b * c;
	}
}

/* Gather head hh's q, its group's k and v of sequence bi into [s, d]. */
static void
gather_head(float *q, float *k, float *v, const float *qkv,
	    const struct prof_dims *d, int64_t bi, int64_t hh)
{
	int64_t cols = (d->heads + 2 * d->kv_heads) * d->head_dim;
	int64_t grp = hh / (d->heads / d->kv_heads), i;
	int64_t D = d->head_dim;

	for (i = 0; i < d->s; i++) {
		const float *row = qkv + (bi * d->s + i) * cols;

		memcpy(q + i * D, row + hh * D, D * sizeof(float));
		memcpy(k + i * D, row + (d->heads + grp) * D,
		       D * sizeof(float));
		memcpy(v + i * D, row + (d->heads + d->kv_heads + grp) * D,
		       D * sizeof(float));
		if (d->rotary) {
			rope(q + i * D, D, i, 0);
			rope(k + i * D, D, i, 0);
		}
	}
}

/* gather_head()'s inverse for gradients: undo the rope of dq and dk
 * (in place) and add dq, dk, dv into head hh's columns of dqkv (its
 * group's k and v columns gather every head of the group). */
static void
scatter_head(float *dqkv, float *dq, float *dk, const float *dv,
	     const struct prof_dims *d, int64_t bi, int64_t hh)
{
	int64_t cols = (d->heads + 2 * d->kv_heads) * d->head_dim;
	int64_t grp = hh / (d->heads / d->kv_heads), i, c;
	int64_t D = d->head_dim;

	for (i = 0; i < d->s; i++) {
		float *row = dqkv + (bi * d->s + i) * cols;

		if (d->rotary) {
			rope(dq + i * D, D, i, 1);
			rope(dk + i * D, D, i, 1);
		}
		for (c = 0; c < D; c++) {
			row[hh * D + c] += dq[i * D + c];
			row[(d->heads + grp) * D + c] += dk[i * D + c];
			row[(d->heads + d->kv_heads + grp) * D + c] +=
				dv[i * D + c];
		}
	}
}

/* Softmax row i of q k^T / sqrt(d) into p[0..s); returns the row length. */
static int64_t
softmax_row(float *p, const float *q, const float *k,
	    const struct prof_dims *d, int64_t i)
{
	int64_t D = d->head_dim, n = d->causal ? i + 1 : d->s, j, c;
	float scale = 1.0f / sqrtf((float)D), mx = -INFINITY;
	double sum = 0;

	for (j = 0; j < n; j++) {
		float acc = 0;

		for (c = 0; c < D; c++)
			acc += q[i * D + c] * k[j * D + c];
		p[j] = acc * scale;
		if (p[j] > mx)
			mx = p[j];
	}
	for (j = 0; j < n; j++) {
		p[j] = expf(p[j] - mx);
		sum += p[j];
	}
	for (j = 0; j < n; j++)
		p[j] = (float)(p[j] / sum);
	return n;
}

/* Element j of score row r (a probability or its gradient) through the
 * attention dropout mask; unchanged without dropout. */
static float
attn_drop(float p, int drop, uint32_t key, int64_t r, int64_t s, int64_t j)
{
	if (!drop)
		return p;
	return prof_dropout_keep(key, r * s + j) ? p * PROF_DROPOUT_SCALE :
	       0.0f;
}

void
prof_cpu_attn_fwd_ref(float *ctx, const float *qkv, const struct prof_dims *d,
		  int64_t b, int drop, uint32_t key)
{
	int64_t D = d->head_dim, S = d->s, bi, hh, i, j, c;
	float *q = xmalloc(3 * S * D * sizeof(float) + S * sizeof(float));
	float *k = q + S * D, *v = k + S * D, *p = v + S * D;

	for (bi = 0; bi < b; bi++)
		for (hh = 0; hh < d->heads; hh++) {
			gather_head(q, k, v, qkv, d, bi, hh);
			for (i = 0; i < S; i++) {
				int64_t n = softmax_row(p, q, k, d, i);
				int64_t r = (bi * d->heads + hh) * S + i;
				float *o = ctx + (bi * S + i) * d->heads * D +
					   hh * D;

				for (c = 0; c < D; c++)
					o[c] = 0;
				for (j = 0; j < n; j++) {
					float pj = attn_drop(p[j], drop, key,
							     r, S, j);

					for (c = 0; c < D; c++)
						o[c] += pj * v[j * D + c];
				}
			}
		}
	free(q);
}

void
prof_cpu_attn_bwd_ref(float *dqkv, const float *dctx, const float *qkv,
		  const struct prof_dims *d, int64_t b, int drop,
		  uint32_t key)
{
	int64_t D = d->head_dim, S = d->s, bi, hh, i, j, c;
	float scale = 1.0f / sqrtf((float)D);
	float *q = xmalloc((6 * S * D + 2 * S) * sizeof(float));
	float *k = q + S * D, *v = k + S * D, *dq = v + S * D;
	float *dk = dq + S * D, *dv = dk + S * D, *p = dv + S * D;
	float *dp = p + S;

	/* Scores are recomputed from q and k (as fused kernels do), and so
	 * is the dropout mask, from its hash. */
	for (bi = 0; bi < b; bi++)
		for (hh = 0; hh < d->heads; hh++) {
			gather_head(q, k, v, qkv, d, bi, hh);
			memset(dq, 0, 3 * S * D * sizeof(float));
			for (i = 0; i < S; i++) {
				int64_t n = softmax_row(p, q, k, d, i);
				int64_t r = (bi * d->heads + hh) * S + i;
				const float *go = dctx +
					(bi * S + i) * d->heads * D + hh * D;
				double dot = 0;

				/* O = P' v, P' = mask * P / (1 - p): so
				 * dv = P'^T dO and dP = mask * dP' / (1 - p)
				 * with dP' = dO v^T; then softmax's */
				for (j = 0; j < n; j++) {
					float pj = attn_drop(p[j], drop, key,
							     r, S, j);
					float acc = 0;

					for (c = 0; c < D; c++) {
						acc += go[c] * v[j * D + c];
						dv[j * D + c] += pj * go[c];
					}
					dp[j] = attn_drop(acc, drop, key, r, S,
							  j);
					dot += (double)p[j] * dp[j];
				}
				for (j = 0; j < n; j++) {
					float ds = p[j] * (dp[j] - (float)dot) *
						   scale;

					const float *kj = k + j * D;
					const float *qi = q + i * D;

					for (c = 0; c < D; c++) {
						dq[i * D + c] += ds * kj[c];
						dk[j * D + c] += ds * qi[c];
					}
				}
			}
			scatter_head(dqkv, dq, dk, dv, d, bi, hh);
		}
	free(q);
}

/* ---- the same through CBLAS ---- */

void
prof_cpu_linear_fwd(float *y, const float *x, const float *w,
		    const float *bias, int64_t T, int64_t k, int64_t n)
{
	int64_t t;

	if (bias)
		for (t = 0; t < T; t++)
			memcpy(y + t * n, bias, n * sizeof(float));
	/* y[T x n] = x[T x k] w[n x k]^T (+ bias) */
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)T, (int)n,
		    (int)k, 1.0f, x, (int)k, w, (int)k, bias ? 1.0f : 0.0f, y,
		    (int)n);
}

void
prof_cpu_linear_bwd(float *dx, float *dw, float *dbias, const float *dy,
		    const float *x, const float *w, int64_t T, int64_t k,
		    int64_t n)
{
	int64_t t, j;

	/* dx += dy w; dw += dy^T x */
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)T, (int)k,
		    (int)n, 1.0f, dy, (int)n, w, (int)k, 1.0f, dx, (int)k);
	cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)n, (int)k,
		    (int)T, 1.0f, dy, (int)n, x, (int)k, 1.0f, dw, (int)k);
	if (dbias)
		for (t = 0; t < T; t++)
			for (j = 0; j < n; j++)
				dbias[j] += dy[t * n + j];
}

double
prof_cpu_gflops(void)
{
	enum { N = 512 };
	float *a = xmalloc(3 * N * N * sizeof(float)), *b = a + N * N;
	float *c = b + N * N;
	uint64_t st = 5;
	double best = 0;
	struct timespec t0, t1;
	int i;

	prof_cpu_fill(a, 2 * N * N, 1, &st);
	for (i = 0; i < 4; i++) {
		double s;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N,
			    N, 1.0f, a, N, b, N, 0.0f, c, N);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		s = (double)(t1.tv_sec - t0.tv_sec) +
		    (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
		/* the first run warms up OpenBLAS's threads */
		if (i > 0 && s > 0 && 2.0 * N * N * N / s / 1e9 > best)
			best = 2.0 * N * N * N / s / 1e9;
	}
	free(a);
	return best > 0 ? best : 1;
}

/* Query rows per block: bounds the score buffers to ATTN_ROWS x s. */
#define ATTN_ROWS 128

/*
 * Rows [i0, i0 + nr) of one head's probabilities into p[nr x nc] from
 * the scaled scores already there: softmax over each row's first n
 * columns (all nc, or i + 1 when causal), zero beyond.
 */
static void
softmax_block(float *p, const struct prof_dims *d, int64_t i0, int64_t nr,
	      int64_t nc)
{
	int64_t i, j;

	for (i = 0; i < nr; i++) {
		float *row = p + i * nc, mx = -INFINITY;
		int64_t n = d->causal ? i0 + i + 1 : nc;
		double sum = 0;

		for (j = 0; j < n; j++)
			if (row[j] > mx)
				mx = row[j];
		for (j = 0; j < n; j++) {
			row[j] = expf(row[j] - mx);
			sum += row[j];
		}
		for (j = 0; j < n; j++)
			row[j] = (float)(row[j] / sum);
		for (; j < nc; j++)
			row[j] = 0;
	}
}

void
prof_cpu_attn_fwd(float *ctx, const float *qkv, const struct prof_dims *d,
		  int64_t b, int drop, uint32_t key)
{
	int64_t D = d->head_dim, S = d->s, R = S < ATTN_ROWS ? S : ATTN_ROWS;
	int64_t ldo = d->heads * D, bi, hh, i0, i, j;
	float scale = 1.0f / sqrtf((float)D);
	float *q = xmalloc((3 * S * D + R * S) * sizeof(float));
	float *k = q + S * D, *v = k + S * D, *p = v + S * D;

	for (bi = 0; bi < b; bi++)
		for (hh = 0; hh < d->heads; hh++) {
			gather_head(q, k, v, qkv, d, bi, hh);
			for (i0 = 0; i0 < S; i0 += R) {
				int64_t nr = S - i0 < R ? S - i0 : R;
				int64_t nc = d->causal ? i0 + nr : S;

				cblas_sgemm(CblasRowMajor, CblasNoTrans,
					    CblasTrans, (int)nr, (int)nc,
					    (int)D, scale, q + i0 * D, (int)D,
					    k, (int)D, 0.0f, p, (int)nc);
				softmax_block(p, d, i0, nr, nc);
				for (i = 0; drop && i < nr; i++) {
					int64_t r = (bi * d->heads + hh) * S +
						    i0 + i;

					for (j = 0; j < nc; j++)
						p[i * nc + j] = attn_drop(
							p[i * nc + j], drop,
							key, r, S, j);
				}
				cblas_sgemm(CblasRowMajor, CblasNoTrans,
					    CblasNoTrans, (int)nr, (int)D,
					    (int)nc, 1.0f, p, (int)nc, v,
					    (int)D, 0.0f,
					    ctx + (bi * S + i0) * ldo + hh * D,
					    (int)ldo);
			}
		}
	free(q);
}

void
prof_cpu_attn_bwd(float *dqkv, const float *dctx, const float *qkv,
		  const struct prof_dims *d, int64_t b, int drop,
		  uint32_t key)
{
	int64_t D = d->head_dim, S = d->s, R = S < ATTN_ROWS ? S : ATTN_ROWS;
	int64_t ldo = d->heads * D, bi, hh, i0, i, j;
	float scale = 1.0f / sqrtf((float)D);
	float *q = xmalloc((6 * S * D + 2 * R * S) * sizeof(float));
	float *k = q + S * D, *v = k + S * D, *dq = v + S * D;
	float *dk = dq + S * D, *dv = dk + S * D, *p = dv + S * D;
	float *g = p + R * S;

	/* Scores are recomputed from q and k (as fused kernels do), and so
	 * is the dropout mask, from its hash.  O = P' v with P' = mask * P
	 * / (1 - p): dv = P'^T dO, dP = mask * (dO v^T) / (1 - p), then
	 * softmax's dS = P (dP - rowsum(P dP)). */
	for (bi = 0; bi < b; bi++)
		for (hh = 0; hh < d->heads; hh++) {
			gather_head(q, k, v, qkv, d, bi, hh);
			memset(dq, 0, 3 * S * D * sizeof(float));
			for (i0 = 0; i0 < S; i0 += R) {
				int64_t nr = S - i0 < R ? S - i0 : R;
				int64_t nc = d->causal ? i0 + nr : S;
				const float *go = dctx + (bi * S + i0) * ldo +
						  hh * D;

				cblas_sgemm(CblasRowMajor, CblasNoTrans,
					    CblasTrans, (int)nr, (int)nc,
					    (int)D, scale, q + i0 * D, (int)D,
					    k, (int)D, 0.0f, p, (int)nc);
				softmax_block(p, d, i0, nr, nc);
				/* g = P' for dv */
				for (i = 0; i < nr; i++) {
					int64_t r = (bi * d->heads + hh) * S +
						    i0 + i;

					for (j = 0; j < nc; j++)
						g[i * nc + j] = attn_drop(
							p[i * nc + j], drop,
							key, r, S, j);
				}
				cblas_sgemm(CblasRowMajor, CblasTrans,
					    CblasNoTrans, (int)nc, (int)D,
					    (int)nr, 1.0f, g, (int)nc, go,
					    (int)ldo, 1.0f, dv, (int)D);
				/* g = dO v^T, then dP, then dS */
				cblas_sgemm(CblasRowMajor, CblasNoTrans,
					    CblasTrans, (int)nr, (int)nc,
					    (int)D, 1.0f, go, (int)ldo, v,
					    (int)D, 0.0f, g, (int)nc);
				for (i = 0; i < nr; i++) {
					int64_t r = (bi * d->heads + hh) * S +
						    i0 + i;
					float *pr = p + i * nc, *gr = g + i * nc;
					double dot = 0;

					for (j = 0; j < nc; j++) {
						gr[j] = attn_drop(gr[j], drop,
								  key, r, S, j);
						dot += (double)pr[j] * gr[j];
					}
					for (j = 0; j < nc; j++)
						gr[j] = pr[j] *
							(gr[j] - (float)dot) *
							scale;
				}
				cblas_sgemm(CblasRowMajor, CblasNoTrans,
					    CblasNoTrans, (int)nr, (int)D,
					    (int)nc, 1.0f, g, (int)nc, k,
					    (int)D, 1.0f, dq + i0 * D, (int)D);
				cblas_sgemm(CblasRowMajor, CblasTrans,
					    CblasNoTrans, (int)nc, (int)D,
					    (int)nr, 1.0f, g, (int)nc,
					    q + i0 * D, (int)D, 1.0f, dk,
					    (int)D);
			}
			scatter_head(dqkv, dq, dk, dv, d, bi, hh);
		}
	free(q);
}

#define GELU_C 0.7978845608028654f /* sqrt(2 / pi) */

void
prof_cpu_gelu_fwd(float *y, const float *x, int64_t n)
{
	int64_t i;

	for (i = 0; i < n; i++) {
		float u = x[i];

		y[i] = 0.5f * u *
		       (1.0f + tanhf(GELU_C * (u + 0.044715f * u * u * u)));
	}
}

void
prof_cpu_gelu_bwd(float *dx, const float *dy, const float *x, int64_t n)
{
	int64_t i;

	for (i = 0; i < n; i++) {
		float u = x[i];
		float th = tanhf(GELU_C * (u + 0.044715f * u * u * u));
		float g = 0.5f * (1.0f + th) +
			  0.5f * u * (1.0f - th * th) * GELU_C *
				  (1.0f + 3.0f * 0.044715f * u * u);

		dx[i] += dy[i] * g;
	}
}

void
prof_cpu_swiglu_fwd(float *y, const float *x, int64_t T, int64_t f)
{
	int64_t t, i;

	for (t = 0; t < T; t++)
		for (i = 0; i < f; i++) {
			float g = x[t * 2 * f + i], u = x[t * 2 * f + f + i];

			y[t * f + i] = g / (1.0f + expf(-g)) * u;
		}
}

void
prof_cpu_swiglu_bwd(float *dx, const float *dy, const float *x, int64_t T,
		    int64_t f)
{
	int64_t t, i;

	for (t = 0; t < T; t++)
		for (i = 0; i < f; i++) {
			float g = x[t * 2 * f + i], u = x[t * 2 * f + f + i];
			float sg = 1.0f / (1.0f + expf(-g));
			float dyv = dy[t * f + i];

			dx[t * 2 * f + i] += dyv * u * sg *
					     (1.0f + g * (1.0f - sg));
			dx[t * 2 * f + f + i] += dyv * g * sg;
		}
}

/* Max of row z[0..v) in *mx, and the sum of exp(z - max) (double). */
static double
row_sumexp(const float *z, int64_t v, float *mx)
{
	double sum = 0;
	int64_t i;

	*mx = -INFINITY;
	for (i = 0; i < v; i++)
		if (z[i] > *mx)
			*mx = z[i];
	for (i = 0; i < v; i++)
		sum += exp((double)(z[i] - *mx));
	return sum;
}

void
prof_cpu_xent_fwd(float *loss, const float *logits, const int *target,
		  int64_t T, int64_t v)
{
	int64_t t;

	for (t = 0; t < T; t++) {
		const float *z = logits + t * v;
		float mx;
		double sum = row_sumexp(z, v, &mx);

		loss[t] = (float)(log(sum) + mx - z[target[t]]);
	}
}

void
prof_cpu_xent_bwd(float *dlogits, const float *dloss, const float *logits,
		  const int *target, int64_t T, int64_t v)
{
	int64_t t, i;

	for (t = 0; t < T; t++) {
		const float *z = logits + t * v;
		float mx;
		double sum = row_sumexp(z, v, &mx);

		for (i = 0; i < v; i++) {
			float pr = (float)(exp((double)(z[i] - mx)) / sum);

			dlogits[t * v + i] += dloss[t] *
				(pr - (i == target[t] ? 1.0f : 0.0f));
		}
	}
}

struct prof_cpu_layer *
prof_cpu_layer_new(const struct prof_graph *g, int layer, int64_t b,
		   uint64_t seed)
{
	struct prof_cpu_layer *l = xcalloc(1, sizeof(*l));
	const struct prof_glayer *gl = &g->layers[layer];
	uint64_t st = seed * 0x9E3779B97F4A7C15ULL + 1;
	int64_t T = b * g->d.s, i, n;
	int j;

	l->g = g;
	l->layer = layer;
	l->b = b;
	l->T = T;
	l->params = xmalloc(gl->nparams * sizeof(float));
	l->grads = xcalloc(gl->nparams, sizeof(float));
	l->bytes = 2 * gl->nparams * (int64_t)sizeof(float);
	for (j = 0; j < gl->ntensors; j++) {
		n = T * gl->cols[j];
		l->t[j] = xcalloc(n, sizeof(float));
		l->dt[j] = xcalloc(n, sizeof(float));
		l->bytes += 2 * n * (int64_t)sizeof(float);
	}
	n = T * gl->cols[gl->out];
	l->dout = xmalloc(n * sizeof(float));
	l->ids = xmalloc(T * sizeof(int));
	l->targets = xmalloc(T * sizeof(int));
	for (i = 0; i < T; i++) {
		l->ids[i] = (int)((uint64_t)(i * 7919 + seed) %
				  (uint64_t)g->d.vocab);
		l->targets[i] = (int)((uint64_t)(i * 104729 + 3 * seed) %
				      (uint64_t)g->d.vocab);
	}
	/* Parameters: weights ~ 1/sqrt(fan-in); norm gains near 1. */
	for (j = 0; j < gl->nops; j++) {
		const struct prof_op *op = &gl->ops[j];
		float *p = l->params + op->param_off;

		switch (op->kind) {
		case PROF_OP_NORM:
			prof_cpu_fill(p, op->nparams, 0.1f, &st);
			for (i = 0; i < op->n; i++)
				p[i] += 1.0f;
			break;
		case PROF_OP_LINEAR:
			prof_cpu_fill(p, op->nparams,
				      1.0f / sqrtf((float)op->k), &st);
			break;
		case PROF_OP_EMBED:
			prof_cpu_fill(p, op->nparams, 0.5f, &st);
			break;
		}
		if (gl->ops[j].kind == PROF_OP_NORM)
			l->stats[j] = xcalloc(2 * T, sizeof(float));
		/* the dropout masks backward reads, a byte an element */
		if (g->d.dropout && (op->kind == PROF_OP_EMBED ||
				     op->kind == PROF_OP_ADD)) {
			l->mask[j] = xcalloc(T * gl->cols[op->out], 1);
			l->bytes += T * gl->cols[op->out];
		}
	}
	if (gl->kind != PROF_EMBED)
		prof_cpu_fill(l->t[0], T * gl->cols[0], 1.0f, &st);
	if (gl->ops[gl->nops - 1].kind == PROF_OP_XENT)
		for (i = 0; i < n; i++)
			l->dout[i] = 1.0f / (float)T;  /* mean loss */
	else
		prof_cpu_fill(l->dout, n, 1.0f, &st);
	return l;
}

void
prof_cpu_layer_free(struct prof_cpu_layer *l)
{
	int j;

	if (!l)
		return;
	for (j = 0; j < PROF_MAX_TENSORS; j++) {
		free(l->t[j]);
		free(l->dt[j]);
	}
	for (j = 0; j < PROF_MAX_OPS; j++) {
		free(l->stats[j]);
		free(l->mask[j]);
	}
	free(l->params);
	free(l->grads);
	free(l->dout);
	free(l->ids);
	free(l->targets);
	free(l);
}

void
prof_cpu_op_fwd(struct prof_cpu_layer *l, int i)
{
	const struct prof_glayer *gl = &l->g->layers[l->layer];
	const struct prof_op *op = &gl->ops[i];
	const struct prof_dims *d = &l->g->d;
	float *p = l->params + op->param_off, *y = l->t[op->out];
	const float *x = l->t[op->in[0]];
	uint8_t *mask = l->mask[i];
	uint32_t key = prof_dropout_key((uint32_t)l->layer, (uint32_t)i);
	int64_t T = l->T, t, c;

	/* the masks: drawn here, read back by prof_cpu_op_bwd */
	if (mask)
		for (t = 0; t < T * gl->cols[op->out]; t++)
			mask[t] = (uint8_t)prof_dropout_keep(key, t);
	switch (op->kind) {
	case PROF_OP_EMBED:
		for (t = 0; t < T; t++)
			for (c = 0; c < d->h; c++) {
				float v = p[(int64_t)l->ids[t] * d->h + c];

				if (!d->rotary)
					v += p[d->vocab * d->h +
					       (t % d->s) * d->h + c];
				if (mask)
					v = mask[t * d->h + c] ?
					    v * PROF_DROPOUT_SCALE : 0.0f;
				y[t * d->h + c] = v;
			}
		break;
	case PROF_OP_NORM:
		prof_cpu_norm_fwd(y, l->stats[i], x, p, op->bias ? p + op->n :
				  NULL, T, op->n, !op->bias);
		break;
	case PROF_OP_LINEAR:
		prof_cpu_linear_fwd(y, x, p, op->bias ? p + op->n * op->k :
				    NULL, T, op->k, op->n);
		break;
	case PROF_OP_ATTN:
		prof_cpu_attn_fwd(y, x, d, l->b, prof_attn_dropout(d), key);
		break;
	case PROF_OP_GELU:
		prof_cpu_gelu_fwd(y, x, T * gl->cols[op->in[0]]);
		break;
	case PROF_OP_SWIGLU:
		prof_cpu_swiglu_fwd(y, x, T, gl->cols[op->out]);
		break;
	case PROF_OP_ADD:
		/* in[0] is the residual stream, in[1] the branch dropped */
		for (t = 0; t < T * gl->cols[op->out]; t++) {
			float v = l->t[op->in[1]][t];

			if (mask)
				v = mask[t] ? v * PROF_DROPOUT_SCALE : 0.0f;
			y[t] = x[t] + v;
		}
		break;
	case PROF_OP_XENT:
		prof_cpu_xent_fwd(y, x, l->targets, T, gl->cols[op->in[0]]);
		break;
	}
}

void
prof_cpu_op_bwd(struct prof_cpu_layer *l, int i)
{
	const struct prof_glayer *gl = &l->g->layers[l->layer];
	const struct prof_op *op = &gl->ops[i];
	const struct prof_dims *d = &l->g->d;
	float *p = l->params + op->param_off, *gp = l->grads + op->param_off;
	const float *x = l->t[op->in[0]], *dy = l->dt[op->out];
	const uint8_t *mask = l->mask[i];
	float *dx = l->dt[op->in[0]];
	int64_t T = l->T, t, c;

	switch (op->kind) {
	case PROF_OP_EMBED:
		for (t = 0; t < T; t++)
			for (c = 0; c < d->h; c++) {
				float g = dy[t * d->h + c];

				if (mask)
					g = mask[t * d->h + c] ?
					    g * PROF_DROPOUT_SCALE : 0.0f;

				gp[(int64_t)l->ids[t] * d->h + c] += g;
				if (!d->rotary)
					gp[d->vocab * d->h +
					   (t % d->s) * d->h + c] += g;
			}
		break;
	case PROF_OP_NORM:
		prof_cpu_norm_bwd(dx, gp, op->bias ? gp + op->n : NULL, dy, x,
				  l->stats[i], p, T, op->n, !op->bias);
		break;
	case PROF_OP_LINEAR:
		prof_cpu_linear_bwd(dx, gp, op->bias ? gp + op->n * op->k :
				    NULL, dy, x, p, T, op->k, op->n);
		break;
	case PROF_OP_ATTN:
		prof_cpu_attn_bwd(dx, dy, x, d, l->b, prof_attn_dropout(d),
				  prof_dropout_key((uint32_t)l->layer,
						   (uint32_t)i));
		break;
	case PROF_OP_GELU:
		prof_cpu_gelu_bwd(dx, dy, x, T * gl->cols[op->in[0]]);
		break;
	case PROF_OP_SWIGLU:
		prof_cpu_swiglu_bwd(dx, dy, x, T, gl->cols[op->out]);
		break;
	case PROF_OP_ADD:
		for (t = 0; t < T * gl->cols[op->out]; t++) {
			dx[t] += dy[t];
			l->dt[op->in[1]][t] += !mask ? dy[t] : mask[t] ?
					       dy[t] * PROF_DROPOUT_SCALE :
					       0.0f;
		}
		break;
	case PROF_OP_XENT:
		prof_cpu_xent_bwd(dx, dy, x, l->targets, T,
				  gl->cols[op->in[0]]);
		break;
	}
}

void
prof_cpu_fwd(struct prof_cpu_layer *l)
{
	const struct prof_glayer *gl = &l->g->layers[l->layer];
	int i;

	for (i = 0; i < gl->nops; i++)
		prof_cpu_op_fwd(l, i);
}

void
prof_cpu_bwd(struct prof_cpu_layer *l)
{
	const struct prof_glayer *gl = &l->g->layers[l->layer];
	int i;

	for (i = 0; i < gl->ntensors; i++)
		memset(l->dt[i], 0, l->T * gl->cols[i] * sizeof(float));
	memcpy(l->dt[gl->out], l->dout,
	       l->T * gl->cols[gl->out] * sizeof(float));
	for (i = gl->nops - 1; i >= 0; i--)
		prof_cpu_op_bwd(l, i);
}

double
prof_cpu_objective(const struct prof_cpu_layer *l)
{
	const struct prof_glayer *gl = &l->g->layers[l->layer];
	int64_t i, n = l->T * gl->cols[gl->out];
	double s = 0;

	for (i = 0; i < n; i++)
		s += (double)l->dout[i] * l->t[gl->out][i];
	return s;
}
