/*
 * test_emu_cublaslt.cc - the cuBLASLt emulation (cublaslt_emu.cc) against
 * hand-checked small GEMMs: transposes, leading dimensions larger than
 * the rows, strided batches, alpha/beta with C, in-place C == D, fp16 and
 * bf16 rounding of D, and the BIAS, GELU, GELU_AUX_BIAS, DGELU,
 * DGELU_BGRAD, BGRADA and BGRADB epilogues; and against the errors the
 * library reports: inconsistent shapes, pointers less aligned than the
 * preference promised, missing epilogue pointers, unsupported
 * configurations, and a matrix outside device memory (emu_fatal).
 *
 * All matrices are column-major, as cuBLASLt's are.  Device buffers come
 * from cudaMalloc and are filled with cudaMemcpy.
 */
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <fcntl.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

#include "emu.h"
#include "dies.h"
#include "harness.h"

/* GELU (tanh approximation) and its derivative at the points used,
 * worked out by hand in double and rounded to float. */
#define GELU_2_5 2.4849157333374023f    /* GELU(2.5) */
#define GELU_M1 -0.15880800783634186f   /* GELU(-1) */
#define DGELU_1 1.0829640626907349f     /* GELU'(1) */
#define DGELU_M2 -0.08609925955533981f  /* GELU'(-2) */

/* One GEMM to run: everything a caller of cuBLASLt sets. */
struct gemm_case {
	cudaDataType_t at, dt;       /* A and B; C and D */
	int ta, tb;
	uint64_t m, n, k;
	int64_t lda, ldb, ldc, ldd;
	int batch;
	int64_t sa, sb, sc, sd;      /* batch strides, elements */
	uint32_t epilogue;
	const void *bias;
	int64_t bias_stride;
	void *aux;
	int64_t aux_ld, aux_stride;
	uint32_t align[4];           /* 0: derive from the pointers */
	cublasComputeType_t compute;
	int32_t pointer_mode;
	int null_algo;
	/* results */
	int found;
	cublasLtMatmulHeuristicResult_t h;
};

static cublasLtHandle_t lt;

static void
case_init(gemm_case *g, cudaDataType_t at, cudaDataType_t dt, uint64_t m,
	  uint64_t n, uint64_t k)
{
	memset(g, 0, sizeof(*g));
	g->at = at;
	g->dt = dt;
	g->m = m;
	g->n = n;
	g->k = k;
	g->lda = (int64_t)m;
	g->ldb = (int64_t)k;
	g->ldc = g->ldd = (int64_t)m;
	g->batch = 1;
	g->epilogue = CUBLASLT_EPILOGUE_DEFAULT;
	g->compute = CUBLAS_COMPUTE_32F;
	g->pointer_mode = CUBLASLT_POINTER_MODE_HOST;
}

/* As profiler/gpu.cu does: the alignment of p and of every batch after
 * it, at most 256. */
static uint32_t
align_of(const void *p, int64_t stride_bytes)
{
	uint64_t a = (uint64_t)(uintptr_t)p | 256;

	if (stride_bytes > 0)
		a |= (uint64_t)stride_bytes;
	return (uint32_t)(a & (~a + 1));
}

static size_t
esize(cudaDataType_t t)
{
	return t == CUDA_R_32F ? 4 : 2;
}

/*
 * Describe, plan (heuristic) and run g.  Returns the first status that is
 * not CUBLAS_STATUS_SUCCESS, else success; *stage says which call gave
 * it (0 heuristic, 1 matmul).
 */
static cublasStatus_t
run(gemm_case *g, float alpha, float beta, const void *A, const void *B,
    const void *C, void *D, int *stage)
{
	cublasLtMatmulDesc_t op = NULL;
	cublasLtMatrixLayout_t la = NULL, lb = NULL, lc = NULL, ld = NULL;
	cublasLtMatmulPreference_t pref = NULL;
	cublasOperation_t ta = g->ta ? CUBLAS_OP_T : CUBLAS_OP_N;
	cublasOperation_t tb = g->tb ? CUBLAS_OP_T : CUBLAS_OP_N;
	uint64_t ws = 1 << 20;
	cublasStatus_t s;
	int dummy;

	if (!stage)
		stage = &dummy;
	*stage = -1;
#define TRYS(x)                                                              \
	do {                                                                 \
		s = (x);                                                     \
		if (s != CUBLAS_STATUS_SUCCESS) {                            \
			printf("# %s: %s\n", #x,                              \
			       cublasLtGetStatusString(s));                  \
			goto out;                                            \
		}                                                            \
	} while (0)
	TRYS(cublasLtMatmulDescCreate(&op, g->compute, CUDA_R_32F));
	TRYS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA,
					    &ta, sizeof(ta)));
	TRYS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB,
					    &tb, sizeof(tb)));
	TRYS(cublasLtMatmulDescSetAttribute(op,
		CUBLASLT_MATMUL_DESC_POINTER_MODE, &g->pointer_mode,
		sizeof(g->pointer_mode)));
	TRYS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE,
					    &g->epilogue,
					    sizeof(g->epilogue)));
	if (g->bias) {
		TRYS(cublasLtMatmulDescSetAttribute(op,
			CUBLASLT_MATMUL_DESC_BIAS_POINTER, &g->bias,
			sizeof(g->bias)));
		TRYS(cublasLtMatmulDescSetAttribute(op,
			CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE,
			&g->bias_stride, sizeof(g->bias_stride)));
	}
	if (g->aux) {
		TRYS(cublasLtMatmulDescSetAttribute(op,
			CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &g->aux,
			sizeof(g->aux)));
		TRYS(cublasLtMatmulDescSetAttribute(op,
			CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &g->aux_ld,
			sizeof(g->aux_ld)));
		TRYS(cublasLtMatmulDescSetAttribute(op,
			CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE,
			&g->aux_stride, sizeof(g->aux_stride)));
	}
	TRYS(cublasLtMatrixLayoutCreate(&la, g->at, g->ta ? g->k : g->m,
					g->ta ? g->m : g->k, g->lda));
	TRYS(cublasLtMatrixLayoutCreate(&lb, g->at, g->tb ? g->n : g->k,
					g->tb ? g->k : g->n, g->ldb));
	TRYS(cublasLtMatrixLayoutCreate(&lc, g->dt, g->m, g->n, g->ldc));
	TRYS(cublasLtMatrixLayoutCreate(&ld, g->dt, g->m, g->n, g->ldd));
	if (g->batch > 1) {
		cublasLtMatrixLayout_t ls[4] = {la, lb, lc, ld};
		int64_t st[4] = {g->sa, g->sb, g->sc, g->sd};

		for (int i = 0; i < 4; i++) {
			TRYS(cublasLtMatrixLayoutSetAttribute(ls[i],
				CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &g->batch,
				sizeof(g->batch)));
			TRYS(cublasLtMatrixLayoutSetAttribute(ls[i],
				CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
				&st[i], sizeof(st[i])));
		}
	}
	TRYS(cublasLtMatmulPreferenceCreate(&pref));
	TRYS(cublasLtMatmulPreferenceSetAttribute(pref,
		CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)));
	{
		const void *p[4] = {A, B, C, D};
		int64_t st[4] = {g->sa, g->sb, g->sc, g->sd};
		size_t es[4] = {esize(g->at), esize(g->at), esize(g->dt),
				esize(g->dt)};
		cublasLtMatmulPreferenceAttributes_t at[4] = {
			CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
			CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
			CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
			CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
		};

		for (int i = 0; i < 4; i++) {
			uint32_t a = g->align[i] ? g->align[i] :
				align_of(p[i], g->batch > 1 ?
					 st[i] * (int64_t)es[i] : 0);

			TRYS(cublasLtMatmulPreferenceSetAttribute(pref, at[i],
				&a, sizeof(a)));
		}
	}
	*stage = 0;
	memset(&g->h, 0, sizeof(g->h));
	g->found = -1;
	TRYS(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, ld, pref, 1,
					    &g->h, &g->found));
	*stage = 1;
	TRYS(cublasLtMatmul(lt, op, &alpha, A, la, B, lb, &beta, C, lc, D, ld,
			    g->null_algo ? NULL : &g->h.algo, NULL, 0, NULL));
#undef TRYS
out:
	cublasLtMatmulPreferenceDestroy(pref);
	cublasLtMatrixLayoutDestroy(la);
	cublasLtMatrixLayoutDestroy(lb);
	cublasLtMatrixLayoutDestroy(lc);
	cublasLtMatrixLayoutDestroy(ld);
	cublasLtMatmulDescDestroy(op);
	return s;
}

/* ---- device buffers ---- */

static std::vector<void *> bufs;

static void *
dev_f32(const std::vector<float> &v)
{
	void *p = NULL;

	if (cudaMalloc(&p, v.size() * 4) != cudaSuccess)
		abort();
	cudaMemcpy(p, v.data(), v.size() * 4, cudaMemcpyHostToDevice);
	bufs.push_back(p);
	return p;
}

static void *
dev_h(const std::vector<float> &v, cudaDataType_t t)
{
	std::vector<uint16_t> h(v.size());
	void *p = NULL;

	for (size_t i = 0; i < v.size(); i++) {
		if (t == CUDA_R_16F) {
			__half x = __float2half_rn(v[i]);

			memcpy(&h[i], &x, 2);
		} else {
			__nv_bfloat16 x = __float2bfloat16_rn(v[i]);

			memcpy(&h[i], &x, 2);
		}
	}
	if (cudaMalloc(&p, v.size() * 2) != cudaSuccess)
		abort();
	cudaMemcpy(p, h.data(), v.size() * 2, cudaMemcpyHostToDevice);
	bufs.push_back(p);
	return p;
}

static void *
dev(const std::vector<float> &v, cudaDataType_t t)
{
	return t == CUDA_R_32F ? dev_f32(v) : dev_h(v, t);
}

static std::vector<float>
host(const void *p, size_t n, cudaDataType_t t)
{
	std::vector<float> out(n);

	if (t == CUDA_R_32F) {
		cudaMemcpy(out.data(), p, n * 4, cudaMemcpyDeviceToHost);
	} else {
		std::vector<uint16_t> h(n);

		cudaMemcpy(h.data(), p, n * 2, cudaMemcpyDeviceToHost);
		for (size_t i = 0; i < n; i++) {
			if (t == CUDA_R_16F) {
				__half x;

				memcpy((void *)&x, &h[i], 2);
				out[i] = __half2float(x);
			} else {
				__nv_bfloat16 x;

				memcpy((void *)&x, &h[i], 2);
				out[i] = __bfloat162float(x);
			}
		}
	}
	return out;
}

static void
free_all(void)
{
	for (size_t i = 0; i < bufs.size(); i++)
		cudaFree(bufs[i]);
	bufs.clear();
}

/* Every element of got equals want exactly. */
static int
same(const std::vector<float> &got, const std::vector<float> &want)
{
	int ok = got.size() == want.size();

	for (size_t i = 0; ok && i < got.size(); i++)
		if (!(got[i] == want[i])) {
			printf("#   element %zu: got %.9g, want %.9g\n", i,
			       (double)got[i], (double)want[i]);
			ok = 0;
		}
	return ok;
}

/* Like same(), to a relative tolerance. */
static int
near(const std::vector<float> &got, const std::vector<float> &want,
     double rel)
{
	int ok = got.size() == want.size();

	for (size_t i = 0; ok && i < got.size(); i++)
		if (!(fabs((double)got[i] - want[i]) <=
		      rel * fabs((double)want[i]) + 1e-30)) {
			printf("#   element %zu: got %.9g, want %.9g\n", i,
			       (double)got[i], (double)want[i]);
			ok = 0;
		}
	return ok;
}

/*
 * The 2x3 times 3x2 of every basic case:
 *   A = [1 2 3; 4 5 6], B = [7 8; 9 10; 11 12], A B = [58 64; 139 154].
 */
static const std::vector<float> A_N = {1, 4, 2, 5, 3, 6};     /* 2x3 */
static const std::vector<float> A_T = {1, 2, 3, 4, 5, 6};     /* A^T 3x2 */
static const std::vector<float> B_N = {7, 9, 11, 8, 10, 12};  /* 3x2 */
static const std::vector<float> B_T = {7, 8, 9, 10, 11, 12};  /* B^T 2x3 */
static const std::vector<float> AB = {58, 139, 64, 154};

static void
test_transposes(void)
{
	for (int ta = 0; ta < 2; ta++) {
		for (int tb = 0; tb < 2; tb++) {
			gemm_case g;
			void *A = dev_f32(ta ? A_T : A_N);
			void *B = dev_f32(tb ? B_T : B_N);
			void *D = dev_f32({-1, -1, -1, -1});
			char what[64];
			int st;

			case_init(&g, CUDA_R_32F, CUDA_R_32F, 2, 2, 3);
			g.ta = ta;
			g.tb = tb;
			g.lda = ta ? 3 : 2;
			g.ldb = tb ? 2 : 3;
			snprintf(what, sizeof(what), "fp32 2x3x2 op %c%c runs",
				 ta ? 'T' : 'N', tb ? 'T' : 'N');
			CHECK_MSG(run(&g, 1, 0, A, B, D, D, &st) ==
				  CUBLAS_STATUS_SUCCESS, what);
			snprintf(what, sizeof(what), "op %c%c: D = A B",
				 ta ? 'T' : 'N', tb ? 'T' : 'N');
			CHECK_MSG(same(host(D, 4, CUDA_R_32F), AB), what);
			free_all();
		}
	}
}

static void
test_heuristic_result(void)
{
	gemm_case g;
	void *A = dev_f32(A_N), *B = dev_f32(B_N), *D = dev_f32({0, 0, 0, 0});

	case_init(&g, CUDA_R_32F, CUDA_R_32F, 2, 2, 3);
	CHECK(run(&g, 1, 0, A, B, D, D, NULL) == CUBLAS_STATUS_SUCCESS);
	CHECK_INT_EQ(g.found, 1);
	CHECK_INT_EQ(g.h.state, CUBLAS_STATUS_SUCCESS);
	CHECK_INT_EQ(g.h.workspaceSize, 0);
	free_all();
}

/* lda 4 with garbage below the rows; ldd 3 whose padding must stay. */
static void
test_leading_dims(void)
{
	gemm_case g;
	void *A = dev_f32({1, 4, 999, 999, 2, 5, 999, 999, 3, 6, 999, 999});
	void *B = dev_f32(B_T);
	void *D = dev_f32({-7, -7, -7, -7, -7, -7});

	case_init(&g, CUDA_R_32F, CUDA_R_32F, 2, 2, 3);
	g.lda = 4;
	g.tb = 1;
	g.ldb = 2;
	g.ldc = g.ldd = 3;
	CHECK(run(&g, 1, 0, A, B, D, D, NULL) == CUBLAS_STATUS_SUCCESS);
	CHECK_MSG(same(host(D, 6, CUDA_R_32F), {58, 139, -7, 64, 154, -7}),
		  "lda 4, ldd 3: D = A B, padding untouched");
	free_all();
}

/*
 * Two batches, m 2, n 1, k 2, strides A 6 (a gap), B 2, D 4 (a gap):
 *   A0 = [1 2; 3 4], B0 = [1; 1] -> [3; 7]
 *   A1 = [2 0; 0 2], B1 = [5; 6] -> [10; 12]
 */
static void
test_batch(void)
{
	gemm_case g;
	void *A = dev_f32({1, 3, 2, 4, 99, 99, 2, 0, 0, 2});
	void *B = dev_f32({1, 1, 5, 6});
	void *D = dev_f32({-7, -7, -7, -7, -7, -7});

	case_init(&g, CUDA_R_32F, CUDA_R_32F, 2, 1, 2);
	g.batch = 2;
	g.sa = 6;
	g.sb = 2;
	g.sc = g.sd = 4;
	CHECK(run(&g, 1, 0, A, B, D, D, NULL) == CUBLAS_STATUS_SUCCESS);
	CHECK_MSG(same(host(D, 6, CUDA_R_32F), {3, 7, -7, -7, 10, 12}),
		  "strided batch of 2: both products, gap untouched");
	/* both batches' D on one matrix */
	g.sc = g.sd = 0;
	CHECK_INT_EQ(run(&g, 1, 0, A, B, D, D, NULL),
		     CUBLAS_STATUS_INVALID_VALUE);

	/* batch counts that differ */
	{
		cublasLtMatrixLayout_t la, lb, ld;
		cublasLtMatmulDesc_t op;
		int two = 2;
		float one = 1, zero = 0;

		cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
		cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, 2, 2, 2);
		cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, 2, 1, 2);
		cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, 2, 1, 2);
		cublasLtMatrixLayoutSetAttribute(la,
			CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &two, sizeof(two));
		CHECK_INT_EQ(cublasLtMatmul(lt, op, &one, A, la, B, lb, &zero,
					    D, ld, D, ld, NULL, NULL, 0, NULL),
			     CUBLAS_STATUS_INVALID_VALUE);
		cublasLtMatrixLayoutDestroy(la);
		cublasLtMatrixLayoutDestroy(lb);
		cublasLtMatrixLayoutDestroy(ld);
		cublasLtMatmulDescDestroy(op);
	}
	free_all();
}

/* D = 2 A B + 0.5 C = [121 143; 288 328], C apart and in place. */
static void
test_alpha_beta(void)
{
	const std::vector<float> c = {10, 20, 30, 40};
	const std::vector<float> want = {121, 288, 143, 328};
	gemm_case g;
	void *A = dev_f32(A_N), *B = dev_f32(B_N);
	void *C = dev_f32(c), *D = dev_f32({0, 0, 0, 0});
	void *CD = dev_f32(c);
	float nan = NAN;
	void *N4 = dev_f32({nan, nan, nan, nan});

	case_init(&g, CUDA_R_32F, CUDA_R_32F, 2, 2, 3);
	CHECK(run(&g, 2, 0.5f, A, B, C, D, NULL) == CUBLAS_STATUS_SUCCESS);
	CHECK_MSG(same(host(D, 4, CUDA_R_32F), want),
		  "alpha 2, beta 0.5: D = 2 A B + 0.5 C");
	CHECK_MSG(same(host(C, 4, CUDA_R_32F), c), "C is left alone");
	CHECK(run(&g, 2, 0.5f, A, B, CD, CD, NULL) == CUBLAS_STATUS_SUCCESS);
	CHECK_MSG(same(host(CD, 4, CUDA_R_32F), want),
		  "in place (C == D): D = 2 A B + 0.5 D");
	/* beta 0: C is not read, so its NaNs do not reach D */
	CHECK(run(&g, 1, 0, A, B, N4, D, NULL) == CUBLAS_STATUS_SUCCESS);
	CHECK_MSG(same(host(D, 4, CUDA_R_32F), AB), "beta 0 ignores C (NaN)");
	free_all();
}

/*
 * Rounding of D.  A = [1 1], B = [1 1; x y]:
 *   bf16 (8 significant bits, spacing 2^-7 at 1): 1 + 3*2^-9 ->
 *   1 + 2^-7; 1 + 2^-8 is a tie -> 1 (even);
 *   fp16 (spacing 2^-10 at 1): 1 + 3*2^-12 -> 1 + 2^-10; 1 + 2^-11 is a
 *   tie -> 1.
 * With fp32 D the sums are exact.
 */
static void
test_rounding(void)
{
	gemm_case g;
	void *A, *B, *D;

	A = dev_h({1, 1}, CUDA_R_16BF);
	B = dev_h({1, 0.005859375f, 1, 0.00390625f}, CUDA_R_16BF);
	D = dev_h({0, 0}, CUDA_R_16BF);
	case_init(&g, CUDA_R_16BF, CUDA_R_16BF, 1, 2, 2);
	CHECK(run(&g, 1, 0, A, B, D, D, NULL) == CUBLAS_STATUS_SUCCESS);
	CHECK_MSG(same(host(D, 2, CUDA_R_16BF), {1.0078125f, 1.0f}),
		  "bf16 D rounds to nearest, ties to even");
	D = dev_f32({0, 0});
	case_init(&g, CUDA_R_16BF, CUDA_R_32F, 1, 2, 2);
	CHECK(run(&g, 1, 0, A, B, D, D, NULL) == CUBLAS_STATUS_SUCCESS);
	CHECK_MSG(same(host(D, 2, CUDA_R_32F), {1.005859375f, 1.00390625f}),
		  "bf16 inputs, fp32 D: exact");

	A = dev_h({1, 1}, CUDA_R_16F);
	B = dev_h({1, 0.00048828125f, 1, 0.000732421875f}, CUDA_R_16F);
	D = dev_h({0, 0}, CUDA_R_16F);
	case_init(&g, CUDA_R_16F, CUDA_R_16F, 1, 2, 2);
	CHECK(run(&g, 1, 0, A, B, D, D, NULL) == CUBLAS_STATUS_SUCCESS);
	CHECK_MSG(same(host(D, 2, CUDA_R_16F), {1.0f, 1.0009765625f}),
		  "fp16 D rounds to nearest, ties to even");
	free_all();
}

/* BIAS: [58 64; 139 154] + [1; -1] broadcast over the columns. */
static void
test_bias(void)
{
	gemm_case g;
	void *A = dev_f32(A_N), *B = dev_f32(B_N), *D = dev_f32({0, 0, 0, 0});
	void *bias = dev_f32({1, -1});

	case_init(&g, CUDA_R_32F, CUDA_R_32F, 2, 2, 3);
	g.epilogue = CUBLASLT_EPILOGUE_BIAS;
	g.bias = bias;
	CHECK(run(&g, 1, 0, A, B, D, D, NULL) == CUBLAS_STATUS_SUCCESS);
	CHECK_MSG(same(host(D, 4, CUDA_R_32F), {59, 138, 65, 153}),
		  "BIAS: bias[row] added to every column");

	/* bf16 throughout, the bias in bf16 (D's type) */
	A = dev_h(A_N, CUDA_R_16BF);
	B = dev_h(B_N, CUDA_R_16BF);
	D = dev_h({0, 0, 0, 0}, CUDA_R_16BF);
	case_init(&g, CUDA_R_16BF, CUDA_R_16BF, 2, 2, 3);
	g.epilogue = CUBLASLT_EPILOGUE_BIAS;
	g.bias = dev_h({0.5f, 2}, CUDA_R_16BF);
	CHECK(run(&g, 1, 0, A, B, D, D, NULL) == CUBLAS_STATUS_SUCCESS);
	/* 58.5 -> 58.5, 141 -> 141, 64.5 -> 64.5, 156 -> 156 (all exact) */
	CHECK_MSG(same(host(D, 4, CUDA_R_16BF), {58.5f, 141, 64.5f, 156}),
		  "BIAS with bf16 D and bf16 bias");

	/* the bias pointer is required */
	case_init(&g, CUDA_R_32F, CUDA_R_32F, 2, 2, 3);
	A = dev_f32(A_N);
	B = dev_f32(B_N);
	D = dev_f32({0, 0, 0, 0});
	g.epilogue = CUBLASLT_EPILOGUE_BIAS;
	CHECK_INT_EQ(run(&g, 1, 0, A, B, D, D, NULL),
		     CUBLAS_STATUS_INVALID_VALUE);
	free_all();
}

/*
 * GELU_AUX_BIAS: A = [1; 2], B = [1], bias = [-1; 0.5]: the GELU input is
 * [0; 2.5], stored in aux (ld 8, rows 2..7 untouched), D = GELU of it.
 * GELU_BIAS without aux, GELU_AUX without bias.
 */
static void
test_gelu(void)
{
	gemm_case g;
	void *A = dev_f32({1, 2}), *B = dev_f32({1});
	void *D = dev_f32({0, 0});
	void *bias = dev_f32({-1, 0.5f});
	std::vector<float> s8(8, -7.0f), want_aux(8, -7.0f);
	void *aux = dev_f32(s8);

	case_init(&g, CUDA_R_32F, CUDA_R_32F, 2, 1, 1);
	g.epilogue = CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
	g.bias = bias;
	g.aux = aux;
	g.aux_ld = 8;
	CHECK(run(&g, 1, 0, A, B, D, D, NULL) == CUBLAS_STATUS_SUCCESS);
	want_aux[0] = 0.0f;
	want_aux[1] = 2.5f;
	CHECK_MSG(same(host(aux, 8, CUDA_R_32F), want_aux),
		  "GELU_AUX_BIAS: aux = A B + bias (the GELU input)");
	CHECK_MSG(near(host(D, 2, CUDA_R_32F), {0.0f, GELU_2_5}, 1e-6),
		  "GELU_AUX_BIAS: D = GELU(A B + bias)");

	g.epilogue = CUBLASLT_EPILOGUE_GELU_BIAS;
	g.aux = NULL;
	CHECK(run(&g, 1, 0, A, B, D, D, NULL) == CUBLAS_STATUS_SUCCESS);
	CHECK_MSG(near(host(D, 2, CUDA_R_32F), {0.0f, GELU_2_5}, 1e-6),
		  "GELU_BIAS: D = GELU(A B + bias)");

	/* GELU_AUX: alpha -1 gives [-1; -2] */
	aux = dev_f32(s8);
	g.epilogue = CUBLASLT_EPILOGUE_GELU_AUX;
	g.bias = NULL;
	g.aux = aux;
	CHECK(run(&g, -1, 0, A, B, D, D, NULL) == CUBLAS_STATUS_SUCCESS);
	want_aux[0] = -1.0f;
	want_aux[1] = -2.0f;
	CHECK_MSG(same(host(aux, 8, CUDA_R_32F), want_aux),
		  "GELU_AUX: aux = alpha A B");
	CHECK_MSG(near(host(D, 1, CUDA_R_32F), {GELU_M1}, 1e-6),
		  "GELU_AUX: D = GELU(alpha A B)");

	/* AUX_LD: "Must be divisible by 8 and be no less than the number of
	 * rows in the output matrix." */
	g.aux_ld = 4;
	CHECK_INT_EQ(run(&g, 1, 0, A, B, D, D, NULL),
		     CUBLAS_STATUS_INVALID_VALUE);
	g.aux = NULL;
	g.aux_ld = 8;
	CHECK_INT_EQ(run(&g, 1, 0, A, B, D, D, NULL),
		     CUBLAS_STATUS_INVALID_VALUE);
	free_all();
}

/*
 * DGELU: D = GELU'(aux) * (A B).  A = [1; 2], B = [3 1]: A B = [3 1; 6 2],
 * aux = [0 -2; 1 0] (ld 8): D = [1.5 DGELU_M2; 6 DGELU_1 1].
 * DGELU_BGRAD also writes the row sums of D to the bias pointer.
 */
static void
test_dgelu(void)
{
	gemm_case g;
	std::vector<float> auxv(16, 0.0f);
	void *A = dev_f32({1, 2}), *B = dev_f32({3, 1});
	void *D = dev_f32({0, 0, 0, 0});
	void *aux, *bg;
	std::vector<float> want = {1.5f, 6 * DGELU_1, DGELU_M2, 1.0f};

	auxv[0] = 0;
	auxv[1] = 1;
	auxv[8] = -2;
	auxv[9] = 0;
	aux = dev_f32(auxv);
	case_init(&g, CUDA_R_32F, CUDA_R_32F, 2, 2, 1);
	g.epilogue = CUBLASLT_EPILOGUE_DGELU;
	g.aux = aux;
	g.aux_ld = 8;
	CHECK(run(&g, 1, 0, A, B, D, D, NULL) == CUBLAS_STATUS_SUCCESS);
	CHECK_MSG(near(host(D, 4, CUDA_R_32F), want, 1e-6),
		  "DGELU: D = GELU'(aux) * A B");
	CHECK_MSG(same(host(aux, 16, CUDA_R_32F), auxv), "DGELU: aux is read");

	bg = dev_f32({-7, -7});
	g.epilogue = CUBLASLT_EPILOGUE_DGELU_BGRAD;
	g.bias = bg;
	CHECK(run(&g, 1, 0, A, B, D, D, NULL) == CUBLAS_STATUS_SUCCESS);
	CHECK_MSG(near(host(D, 4, CUDA_R_32F), want, 1e-6),
		  "DGELU_BGRAD: D = GELU'(aux) * A B");
	CHECK_MSG(near(host(bg, 2, CUDA_R_32F),
		       {1.5f + DGELU_M2, 6 * DGELU_1 + 1.0f}, 1e-6),
		  "DGELU_BGRAD: bias gradient = row sums of D");
	free_all();
}

/*
 * BGRADA: the row sums of op(A) (over k), one per row of D;
 * BGRADB: the column sums of op(B), one per column of D.
 * A = [1 2 3; 4 5 6] -> [6; 15]; B = [7 8; 9 10; 11 12] -> [27 30].
 */
static void
test_bgrad_ab(void)
{
	gemm_case g;
	void *A = dev_f32(A_N), *B = dev_f32(B_N), *D = dev_f32({0, 0, 0, 0});
	void *bg = dev_f32({-7, -7});

	case_init(&g, CUDA_R_32F, CUDA_R_32F, 2, 2, 3);
	g.epilogue = CUBLASLT_EPILOGUE_BGRADA;
	g.bias = bg;
	CHECK(run(&g, 1, 0, A, B, D, D, NULL) == CUBLAS_STATUS_SUCCESS);
	CHECK_MSG(same(host(D, 4, CUDA_R_32F), AB), "BGRADA: D = A B");
	CHECK_MSG(same(host(bg, 2, CUDA_R_32F), {6, 15}),
		  "BGRADA: row sums of op(A)");
	g.epilogue = CUBLASLT_EPILOGUE_BGRADB;
	CHECK(run(&g, 1, 0, A, B, D, D, NULL) == CUBLAS_STATUS_SUCCESS);
	CHECK_MSG(same(host(bg, 2, CUDA_R_32F), {27, 30}),
		  "BGRADB: column sums of op(B)");
	free_all();
}

/*
 * Non-square shapes (m 3, n 2, k 4) in every transpose pair, with lds
 * above the rows, against the definition D(i,j) = sum_q op(A)(i,q)
 * op(B)(q,j) worked out here element by element.  A(i,q) = i + 2q + 1
 * and B(q,j) = q - 3j + 2 (small integers, exact in fp32).
 */
static void
test_nonsquare(void)
{
	const int m = 3, n = 2, k = 4;

	for (int ta = 0; ta < 2; ta++) {
		for (int tb = 0; tb < 2; tb++) {
			int lda = (ta ? k : m) + 1, ldb = (tb ? n : k) + 2;
			std::vector<float> a((size_t)lda * (ta ? m : k), 99);
			std::vector<float> b((size_t)ldb * (tb ? k : n), 99);
			std::vector<float> want((size_t)m * n);
			gemm_case g;
			void *A, *B, *D;
			char what[64];

			for (int i = 0; i < m; i++)
				for (int q = 0; q < k; q++)
					a[ta ? i * lda + q : q * lda + i] =
						(float)(i + 2 * q + 1);
			for (int q = 0; q < k; q++)
				for (int j = 0; j < n; j++)
					b[tb ? q * ldb + j : j * ldb + q] =
						(float)(q - 3 * j + 2);
			for (int j = 0; j < n; j++)
				for (int i = 0; i < m; i++) {
					float sum = 0;

					for (int q = 0; q < k; q++)
						sum += (float)(i + 2 * q + 1) *
						       (float)(q - 3 * j + 2);
					want[j * m + i] = sum;
				}
			A = dev_f32(a);
			B = dev_f32(b);
			D = dev_f32(std::vector<float>((size_t)m * n, -1));
			case_init(&g, CUDA_R_32F, CUDA_R_32F, m, n, k);
			g.ta = ta;
			g.tb = tb;
			g.lda = lda;
			g.ldb = ldb;
			CHECK(run(&g, 1, 0, A, B, D, D, NULL) ==
			      CUBLAS_STATUS_SUCCESS);
			snprintf(what, sizeof(what), "3x4 times 4x2, op %c%c",
				 ta ? 'T' : 'N', tb ? 'T' : 'N');
			CHECK_MSG(same(host(D, (size_t)m * n, CUDA_R_32F),
				       want), what);
			free_all();
		}
	}
}

/*
 * BIAS over a batch of 2 with a bias batch stride of 2: m 2, n 1, k 1,
 * A0 = [1; 2], B0 = [1], bias0 = [10; 20] -> [11; 22];
 * A1 = [3; 4], B1 = [2], bias1 = [30; 40] -> [36; 48].
 */
static void
test_batch_bias(void)
{
	gemm_case g;
	void *A = dev_f32({1, 2, 3, 4}), *B = dev_f32({1, 2});
	void *D = dev_f32({0, 0, 0, 0});

	case_init(&g, CUDA_R_32F, CUDA_R_32F, 2, 1, 1);
	g.batch = 2;
	g.sa = 2;
	g.sb = 1;
	g.sc = g.sd = 2;
	g.epilogue = CUBLASLT_EPILOGUE_BIAS;
	g.bias = dev_f32({10, 20, 30, 40});
	g.bias_stride = 2;
	CHECK(run(&g, 1, 0, A, B, D, D, NULL) == CUBLAS_STATUS_SUCCESS);
	CHECK_MSG(same(host(D, 4, CUDA_R_32F), {11, 22, 36, 48}),
		  "BIAS per batch with BIAS_BATCH_STRIDE");
	free_all();
}

static void
test_alignment(void)
{
	gemm_case g;
	void *A = dev_f32({0, 1, 4, 2, 5, 3, 6});   /* A_N from element 1 */
	void *B = dev_f32(B_N), *D = dev_f32({0, 0, 0, 0});
	const float *A1 = (const float *)A + 1;
	int st;

	/* the preference promises 16-byte A; A is 4 bytes past that */
	case_init(&g, CUDA_R_32F, CUDA_R_32F, 2, 2, 3);
	g.align[0] = 16;
	CHECK_INT_EQ(run(&g, 1, 0, A1, B, D, D, &st),
		     CUBLAS_STATUS_INVALID_VALUE);
	CHECK_MSG(st == 1, "misaligned A passes the heuristic, fails matmul");
	g.align[0] = 4;
	CHECK(run(&g, 1, 0, A1, B, D, D, NULL) == CUBLAS_STATUS_SUCCESS);
	CHECK_MSG(same(host(D, 4, CUDA_R_32F), AB),
		  "4-byte A with a 4-byte preference");
	/* default preference (256 bytes) and a 4-byte-aligned D */
	{
		cublasLtMatmulDesc_t op;
		cublasLtMatrixLayout_t la, lb, ld;
		cublasLtMatmulPreference_t pref;
		cublasLtMatmulHeuristicResult_t h;
		float one = 1, zero = 0;
		int found = 0;
		void *D2 = dev_f32({0, 0, 0, 0, 0});
		float *D21 = (float *)D2 + 1;

		cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
		cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, 2, 3, 2);
		cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, 3, 2, 3);
		cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, 2, 2, 2);
		cublasLtMatmulPreferenceCreate(&pref);
		CHECK(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, ld, ld,
			pref, 1, &h, &found) == CUBLAS_STATUS_SUCCESS &&
		      found == 1);
		CHECK_INT_EQ(cublasLtMatmul(lt, op, &one, A1, la, B, lb,
					    &zero, D21, ld, D21, ld, &h.algo,
					    NULL, 0, NULL),
			     CUBLAS_STATUS_INVALID_VALUE);
		/* NULL algo: the implicit heuristic sees the pointers */
		CHECK_INT_EQ(cublasLtMatmul(lt, op, &one, A1, la, B, lb,
					    &zero, D21, ld, D21, ld, NULL,
					    NULL, 0, NULL),
			     CUBLAS_STATUS_SUCCESS);
		CHECK_MSG(same(host(D21, 4, CUDA_R_32F), AB),
			  "NULL algo with 4-byte aligned pointers");
		cublasLtMatmulPreferenceDestroy(pref);
		cublasLtMatrixLayoutDestroy(la);
		cublasLtMatrixLayoutDestroy(lb);
		cublasLtMatrixLayoutDestroy(ld);
		cublasLtMatmulDescDestroy(op);
	}
	free_all();
}

static void
test_shapes(void)
{
	cublasLtMatmulDesc_t op;
	cublasLtMatrixLayout_t la, lb, lb2, ld, ld3, lbad;
	cublasLtMatmulPreference_t pref;
	cublasLtMatmulHeuristicResult_t h;
	float one = 1, zero = 0;
	int found = 7;
	void *A = dev_f32(A_N), *B = dev_f32(B_N);
	void *D = dev_f32({0, 0, 0, 0, 0, 0});

	cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
	cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, 2, 3, 2);
	cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, 3, 2, 3);
	cublasLtMatrixLayoutCreate(&lb2, CUDA_R_32F, 2, 2, 2); /* k 2 != 3 */
	cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, 2, 2, 2);
	cublasLtMatrixLayoutCreate(&ld3, CUDA_R_32F, 3, 2, 3); /* m 3 != 2 */
	cublasLtMatrixLayoutCreate(&lbad, CUDA_R_32F, 3, 2, 2); /* ld < rows */
	cublasLtMatmulPreferenceCreate(&pref);

	CHECK_INT_EQ(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb2, ld, ld,
						    pref, 1, &h, &found),
		     CUBLAS_STATUS_INVALID_VALUE);
	CHECK_INT_EQ(found, 0);
	CHECK_INT_EQ(cublasLtMatmul(lt, op, &one, A, la, B, lb2, &zero, D, ld,
				    D, ld, NULL, NULL, 0, NULL),
		     CUBLAS_STATUS_INVALID_VALUE);
	CHECK_INT_EQ(cublasLtMatmul(lt, op, &one, A, la, B, lb, &zero, D, ld3,
				    D, ld3, NULL, NULL, 0, NULL),
		     CUBLAS_STATUS_INVALID_VALUE);
	CHECK_INT_EQ(cublasLtMatmul(lt, op, &one, A, la, B, lb, &zero, D, ld,
				    D, ld3, NULL, NULL, 0, NULL),
		     CUBLAS_STATUS_INVALID_VALUE);
	CHECK_INT_EQ(cublasLtMatmul(lt, op, &one, A, la, B, lbad, &zero, D,
				    ld, D, ld, NULL, NULL, 0, NULL),
		     CUBLAS_STATUS_INVALID_VALUE);
	CHECK_INT_EQ(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, ld, ld,
						    pref, 0, &h, &found),
		     CUBLAS_STATUS_INVALID_VALUE);
	CHECK_INT_EQ(cublasLtMatmul(lt, op, &one, A, la, B, lb, &zero, D, ld,
				    D, ld, NULL, NULL, 0, NULL),
		     CUBLAS_STATUS_SUCCESS);
	CHECK_MSG(same(host(D, 4, CUDA_R_32F), AB), "the consistent case runs");

	cublasLtMatmulPreferenceDestroy(pref);
	cublasLtMatrixLayoutDestroy(la);
	cublasLtMatrixLayoutDestroy(lb);
	cublasLtMatrixLayoutDestroy(lb2);
	cublasLtMatrixLayoutDestroy(ld);
	cublasLtMatrixLayoutDestroy(ld3);
	cublasLtMatrixLayoutDestroy(lbad);
	cublasLtMatmulDescDestroy(op);
	free_all();
}

static void
test_unsupported(void)
{
	gemm_case g;
	cublasLtMatmulDesc_t op;
	void *A = dev_f32(A_N), *B = dev_f32(B_N), *D = dev_f32({0, 0, 0, 0});
	uint32_t ep = 12345, relu_aux = CUBLASLT_EPILOGUE_RELU_AUX;
	int32_t t = CUBLAS_OP_T;
	int64_t x64 = 0;

	case_init(&g, CUDA_R_32F, CUDA_R_32F, 2, 2, 3);
	g.compute = CUBLAS_COMPUTE_16F;
	CHECK_INT_EQ(run(&g, 1, 0, A, B, D, D, NULL),
		     CUBLAS_STATUS_NOT_SUPPORTED);
	case_init(&g, CUDA_R_32F, CUDA_R_32F, 2, 2, 3);
	g.pointer_mode = CUBLASLT_POINTER_MODE_DEVICE;
	CHECK_INT_EQ(run(&g, 1, 0, A, B, D, D, NULL),
		     CUBLAS_STATUS_NOT_SUPPORTED);
	case_init(&g, CUDA_R_32F, CUDA_R_16BF, 2, 2, 3);
	CHECK_INT_EQ(run(&g, 1, 0, A, B, D, D, NULL),
		     CUBLAS_STATUS_NOT_SUPPORTED);
	case_init(&g, CUDA_R_32F, CUDA_R_32F, 2, 2, 3);
	g.epilogue = relu_aux;
	g.aux = D;
	g.aux_ld = 8;
	CHECK_INT_EQ(run(&g, 1, 0, A, B, D, D, NULL),
		     CUBLAS_STATUS_NOT_SUPPORTED);

	/* attributes: size and NULL checks, values outside the enums */
	cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
	CHECK_INT_EQ(cublasLtMatmulDescSetAttribute(op,
			CUBLASLT_MATMUL_DESC_TRANSA, &t, 8),
		     CUBLAS_STATUS_INVALID_VALUE);
	CHECK_INT_EQ(cublasLtMatmulDescSetAttribute(op,
			CUBLASLT_MATMUL_DESC_TRANSA, NULL, 4),
		     CUBLAS_STATUS_INVALID_VALUE);
	CHECK_INT_EQ(cublasLtMatmulDescSetAttribute(op,
			CUBLASLT_MATMUL_DESC_EPILOGUE, &ep, sizeof(ep)),
		     CUBLAS_STATUS_INVALID_VALUE);
	CHECK_INT_EQ(cublasLtMatmulDescSetAttribute(op,
			CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &x64, 4),
		     CUBLAS_STATUS_INVALID_VALUE);
	CHECK_INT_EQ(cublasLtMatmulDescSetAttribute(op,
			(cublasLtMatmulDescAttributes_t)9999, &t, 4),
		     CUBLAS_STATUS_INVALID_VALUE);
	CHECK_INT_EQ(cublasLtMatmulDescSetAttribute(op,
			CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof(t)),
		     CUBLAS_STATUS_SUCCESS);
	cublasLtMatmulDescDestroy(op);
	free_all();
}

/* A D that is one element short: emu_fatal. */
static void
run_out_of_range(void *)
{
	gemm_case g;
	void *A = dev_f32(A_N), *B = dev_f32(B_N);
	void *D = dev_f32({0, 0, 0});

	case_init(&g, CUDA_R_32F, CUDA_R_32F, 2, 2, 3);
	g.null_algo = 1;
	run(&g, 1, 0, A, B, D, D, NULL);
}

static void
test_out_of_range(void)
{
	CHECK_MSG(dies_with(run_out_of_range, NULL, "D (fp32 2x2"),
		  "a D past its allocation is fatal");
}

int
main(void)
{
	(void)h_skip;
	(void)h_skip_all;
	CHECK(cublasLtCreate(&lt) == CUBLAS_STATUS_SUCCESS);
	CHECK_INT_EQ(cublasLtGetVersion(), CUBLAS_VERSION);
	CHECK(cublasLtGetStatusString(CUBLAS_STATUS_NOT_SUPPORTED) != NULL);
	test_heuristic_result();
	test_transposes();
	test_leading_dims();
	test_nonsquare();
	test_batch();
	test_batch_bias();
	test_alpha_beta();
	test_rounding();
	test_bias();
	test_gelu();
	test_dgelu();
	test_bgrad_ab();
	test_alignment();
	test_shapes();
	test_unsupported();
	test_out_of_range();
	CHECK(cublasLtDestroy(lt) == CUBLAS_STATUS_SUCCESS);
	return h_done();
}
