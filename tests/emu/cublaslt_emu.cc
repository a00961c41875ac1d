/*
 * cublaslt_emu.cc - a host emulation of the cuBLASLt calls that
 * profiler/gpu.cu makes (handle, matmul/layout/preference descriptors,
 * the heuristic and cublasLtMatmul itself), for the test suite on
 * machines without a GPU.  It is compiled as plain C++ against the real
 * <cublasLt.h> and defines the functions that header declares.
 *
 * The emulated matmul is the one cuBLASLt documents: column-major
 * matrices, D = epilogue(alpha op(A) op(B) + beta C), op() being N or T,
 * strided batches, compute type CUBLAS_COMPUTE_32F with scale type
 * CUDA_R_32F, A/B/C/D of CUDA_R_16F, CUDA_R_16BF or CUDA_R_32F in the
 * combinations the library supports.  Products are accumulated in double
 * (by the host's CBLAS dgemm, for speed: the same sums in another order),
 * rounded to float (the compute type) and scaled in float; what is stored
 * is rounded to nearest even into the destination type.
 *
 * The descriptions below quote the documentation shipped in cublasLt.h
 * (CUDA 13.1), which is the text of
 * https://docs.nvidia.com/cuda/cublas/index.html#cublasltepilogue-t,
 * #cublasltmatmuldescattributes-t, #cublasltmatrixlayoutattribute-t and
 * #cublasltmatmulpreferenceattributes-t.
 *
 * Strictness: whatever the library documents as an error is one here;
 * anything this emulation does not model (other compute types, pointer
 * modes, fp8 scaling, ReLU bit-masks, ...) is CUBLAS_STATUS_NOT_SUPPORTED,
 * never silently ignored.  A matrix or vector that is not inside one live
 * device allocation is a bug in the caller: emu_fatal() says which and
 * with what shape.
 *
 * Where the documentation is silent this emulation chooses, and says so
 * where it does: the bias and aux vectors must keep the alignment (at
 * most 16 bytes) they had when the heuristic saw them; batched outputs
 * (D, a written aux, a bias gradient) with a batch stride of 0 are
 * refused; BGRADA/BGRADB sums are not scaled by alpha; a set
 * BIAS_DATA_TYPE may be D's type or, with fp32 D, the inputs' type.
 *
 * The stream id handed to emu_kernel_done is the runtime's
 * (emu_stream_id), so GEMMs and kernels of one stream share it.
 *
 * Environment, for testing the caller's fallbacks and checks:
 * PD2BW_EMU_NO_GELU_EPILOGUE=1 makes the heuristic find no algorithm for
 * a GELU epilogue (as on a GPU or version without one);
 * PD2BW_EMU_GEMM_SKEW=X multiplies every stored result by X (a wrong
 * GEMM that the caller's comparison with a reference must catch).
 * In a dry run (emu_dry) everything is checked and nothing computed.
 */
#include <cblas.h>
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <new>
#include <vector>

#include "emu.h"

#define LT_MAGIC_HANDLE 0x4c54484eu /* "LTHN" */
#define LT_MAGIC_DESC 0x4c544453u   /* "LTDS" */
#define LT_MAGIC_LAYOUT 0x4c544c59u /* "LTLY" */
#define LT_MAGIC_PREF 0x4c545052u   /* "LTPR" */
#define LT_MAGIC_ALGO 0x454d55414c474fULL /* "EMUALGO" */

/*
 * Alignment, in bytes, that the algorithm asks of the bias and aux
 * vectors: at most this, and at most what the pointers had when the
 * heuristic saw them (cublasLt.h: "Routines that don't dereference this
 * pointer, like cublasLtMatmulAlgoGetHeuristic() depend on its value to
 * determine expected pointer alignment").  The cap is this emulation's.
 */
#define LT_VEC_ALIGN 16u

struct lt_handle {
	uint32_t magic;
};

struct lt_layout {
	uint32_t magic;
	uint32_t type;       /* cudaDataType */
	int32_t order;       /* cublasLtOrder_t */
	uint64_t rows, cols;
	int64_t ld;
	int32_t batch;
	int64_t stride;      /* elements */
	int64_t plane;
	uint32_t batch_mode;
};

struct lt_desc {
	uint32_t magic;
	int32_t compute, scale, pointer_mode;
	int32_t transa, transb, transc, fill;
	uint32_t epilogue;
	const void *bias;
	int64_t bias_stride;
	void *aux;
	int64_t aux_ld, aux_stride;
	int64_t alpha_stride;
	int32_t sm_target;
	int32_t aux_type, bias_type;
	int8_t fast_accum;
	const void *scale_ptr[8];  /* A, B, C, D, amax D, aux scale, aux amax,
				      D out scale: fp8 only */
	int32_t scale_mode[6];     /* A, B, C, D, aux, D out */
	cublasLtEmulationDesc_t emulation;
};

struct lt_pref {
	uint32_t magic;
	uint32_t search;
	uint64_t max_ws;
	uint32_t red_mask;
	uint32_t align[4];   /* A, B, C, D */
	float max_waves;
	uint64_t impl_mask;
};

/* One validated problem: the shapes cublasLtMatmul works on. */
struct lt_problem {
	const lt_desc *op;
	const lt_layout *l[4];   /* A, B, C, D */
	uint64_t m, n, k;
	int batch;
	int ta, tb;
	uint32_t ep;
	int uses_bias, bgrad, uses_aux, aux_out;
	uint32_t bias_type, aux_type;
	int64_t bias_len;
};

/* ---- helpers ---- */

/* An environment switch: set, not empty and not "0". */
static int
env_on(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0");
}

static lt_handle *
get_handle(cublasLtHandle_t h)
{
	lt_handle *p = reinterpret_cast<lt_handle *>(h);

	return p && p->magic == LT_MAGIC_HANDLE ? p : NULL;
}

static lt_desc *
get_desc(cublasLtMatmulDesc_t d)
{
	lt_desc *p = reinterpret_cast<lt_desc *>(d);

	return p && p->magic == LT_MAGIC_DESC ? p : NULL;
}

static lt_layout *
get_layout(cublasLtMatrixLayout_t l)
{
	lt_layout *p = reinterpret_cast<lt_layout *>(l);

	return p && p->magic == LT_MAGIC_LAYOUT ? p : NULL;
}

static lt_pref *
get_pref(cublasLtMatmulPreference_t pr)
{
	lt_pref *p = reinterpret_cast<lt_pref *>(pr);

	return p && p->magic == LT_MAGIC_PREF ? p : NULL;
}

/*
 * The SetAttribute functions: "CUBLAS_STATUS_INVALID_VALUE if buf is NULL
 * or sizeInBytes doesn't match size of internal storage for selected
 * attribute".
 */
static cublasStatus_t
set_field(void *dst, size_t dsize, const void *buf, size_t size)
{
	if (!buf || size != dsize)
		return CUBLAS_STATUS_INVALID_VALUE;
	memcpy(dst, buf, size);
	return CUBLAS_STATUS_SUCCESS;
}

static size_t
type_size(uint32_t t)
{
	switch (t) {
	case CUDA_R_16F:
	case CUDA_R_16BF:
		return 2;
	case CUDA_R_32F:
		return 4;
	default:
		return 0;
	}
}

static const char *
type_name(uint32_t t)
{
	switch (t) {
	case CUDA_R_16F:
		return "fp16";
	case CUDA_R_16BF:
		return "bf16";
	case CUDA_R_32F:
		return "fp32";
	default:
		return "unsupported type";
	}
}

/* Elements go through memcpy: a misaligned pointer is the caller's bug,
 * reported as such, not undefined behaviour here. */
static float
load_el(const void *base, uint32_t t, int64_t i)
{
	const unsigned char *p = (const unsigned char *)base;

	switch (t) {
	case CUDA_R_16F: {
		__half h;

		memcpy(&h, p + i * 2, 2);
		return __half2float(h);
	}
	case CUDA_R_16BF: {
		__nv_bfloat16 h;

		memcpy(&h, p + i * 2, 2);
		return __bfloat162float(h);
	}
	default: {
		float f;

		memcpy(&f, p + i * 4, 4);
		return f;
	}
	}
}

static void
store_el(void *base, uint32_t t, int64_t i, float v)
{
	unsigned char *p = (unsigned char *)base;

	switch (t) {
	case CUDA_R_16F: {
		__half h = __float2half_rn(v);

		memcpy(p + i * 2, &h, 2);
		break;
	}
	case CUDA_R_16BF: {
		__nv_bfloat16 h = __float2bfloat16_rn(v);

		memcpy(p + i * 2, &h, 2);
		break;
	}
	default:
		memcpy(p + i * 4, &v, 4);
		break;
	}
}

/* The largest power of two (at most 256) dividing the address. */
static uint32_t
ptr_align(const void *p, uint32_t cap)
{
	uint64_t a = (uint64_t)(uintptr_t)p | cap;

	return (uint32_t)(a & (~a + 1));
}

static int
is_pow2(uint32_t a)
{
	return a && !(a & (a - 1));
}

static const void *
offset(const void *p, int64_t elems, size_t es)
{
	return (const unsigned char *)p + elems * (int64_t)es;
}

/* GELU, tanh approximation, and its derivative. */
#define GELU_K 0.7978845608028654
#define GELU_C 0.044715

static float
gelu(float x)
{
	double xd = x;
	double t = tanh(GELU_K * (xd + GELU_C * xd * xd * xd));

	return (float)(0.5 * xd * (1.0 + t));
}

static float
dgelu(float x)
{
	double xd = x;
	double t = tanh(GELU_K * (xd + GELU_C * xd * xd * xd));

	return (float)(0.5 * (1.0 + t) + 0.5 * xd * (1.0 - t * t) * GELU_K *
		       (1.0 + 3.0 * GELU_C * xd * xd));
}

static const char *
epilogue_name(uint32_t ep)
{
	switch (ep) {
	case CUBLASLT_EPILOGUE_DEFAULT:
		return "emu_cublasLt_gemm";
	case CUBLASLT_EPILOGUE_RELU:
		return "emu_cublasLt_gemm_relu";
	case CUBLASLT_EPILOGUE_BIAS:
		return "emu_cublasLt_gemm_bias";
	case CUBLASLT_EPILOGUE_RELU_BIAS:
		return "emu_cublasLt_gemm_relu_bias";
	case CUBLASLT_EPILOGUE_GELU:
		return "emu_cublasLt_gemm_gelu";
	case CUBLASLT_EPILOGUE_GELU_AUX:
		return "emu_cublasLt_gemm_gelu_aux";
	case CUBLASLT_EPILOGUE_GELU_BIAS:
		return "emu_cublasLt_gemm_gelu_bias";
	case CUBLASLT_EPILOGUE_GELU_AUX_BIAS:
		return "emu_cublasLt_gemm_gelu_aux_bias";
	case CUBLASLT_EPILOGUE_DGELU:
		return "emu_cublasLt_gemm_dgelu";
	case CUBLASLT_EPILOGUE_DGELU_BGRAD:
		return "emu_cublasLt_gemm_dgelu_bgrad";
	case CUBLASLT_EPILOGUE_BGRADA:
		return "emu_cublasLt_gemm_bgrada";
	case CUBLASLT_EPILOGUE_BGRADB:
		return "emu_cublasLt_gemm_bgradb";
	default:
		return "emu_cublasLt_gemm_unknown";
	}
}

static int
epilogue_known(uint32_t ep)
{
	switch (ep) {
	case CUBLASLT_EPILOGUE_DEFAULT:
	case CUBLASLT_EPILOGUE_RELU:
	case CUBLASLT_EPILOGUE_RELU_AUX:
	case CUBLASLT_EPILOGUE_BIAS:
	case CUBLASLT_EPILOGUE_RELU_BIAS:
	case CUBLASLT_EPILOGUE_RELU_AUX_BIAS:
	case CUBLASLT_EPILOGUE_DRELU:
	case CUBLASLT_EPILOGUE_DRELU_BGRAD:
	case CUBLASLT_EPILOGUE_GELU:
	case CUBLASLT_EPILOGUE_GELU_AUX:
	case CUBLASLT_EPILOGUE_GELU_BIAS:
	case CUBLASLT_EPILOGUE_GELU_AUX_BIAS:
	case CUBLASLT_EPILOGUE_DGELU:
	case CUBLASLT_EPILOGUE_DGELU_BGRAD:
	case CUBLASLT_EPILOGUE_BGRADA:
	case CUBLASLT_EPILOGUE_BGRADB:
		return 1;
	default:
		return 0;
	}
}

/* ---- library, handle ---- */

extern "C" {

cublasStatus_t CUBLASWINAPI
cublasLtCreate(cublasLtHandle_t *lightHandle)
{
	lt_handle *h;

	if (!lightHandle)
		return CUBLAS_STATUS_INVALID_VALUE;
	h = new (std::nothrow) lt_handle;
	if (!h)
		return CUBLAS_STATUS_ALLOC_FAILED;
	h->magic = LT_MAGIC_HANDLE;
	*lightHandle = reinterpret_cast<cublasLtHandle_t>(h);
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI
cublasLtDestroy(cublasLtHandle_t lightHandle)
{
	lt_handle *h = get_handle(lightHandle);

	if (!h)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	h->magic = 0;
	delete h;
	return CUBLAS_STATUS_SUCCESS;
}

size_t CUBLASWINAPI
cublasLtGetVersion(void)
{
	return CUBLAS_VERSION;
}

const char *CUBLASWINAPI
cublasLtGetStatusName(cublasStatus_t status)
{
	switch (status) {
	case CUBLAS_STATUS_SUCCESS:
		return "CUBLAS_STATUS_SUCCESS";
	case CUBLAS_STATUS_NOT_INITIALIZED:
		return "CUBLAS_STATUS_NOT_INITIALIZED";
	case CUBLAS_STATUS_ALLOC_FAILED:
		return "CUBLAS_STATUS_ALLOC_FAILED";
	case CUBLAS_STATUS_INVALID_VALUE:
		return "CUBLAS_STATUS_INVALID_VALUE";
	case CUBLAS_STATUS_ARCH_MISMATCH:
		return "CUBLAS_STATUS_ARCH_MISMATCH";
	case CUBLAS_STATUS_MAPPING_ERROR:
		return "CUBLAS_STATUS_MAPPING_ERROR";
	case CUBLAS_STATUS_EXECUTION_FAILED:
		return "CUBLAS_STATUS_EXECUTION_FAILED";
	case CUBLAS_STATUS_INTERNAL_ERROR:
		return "CUBLAS_STATUS_INTERNAL_ERROR";
	case CUBLAS_STATUS_NOT_SUPPORTED:
		return "CUBLAS_STATUS_NOT_SUPPORTED";
	case CUBLAS_STATUS_LICENSE_ERROR:
		return "CUBLAS_STATUS_LICENSE_ERROR";
	default:
		return "<unknown>";
	}
}

const char *CUBLASWINAPI
cublasLtGetStatusString(cublasStatus_t status)
{
	switch (status) {
	case CUBLAS_STATUS_SUCCESS:
		return "success";
	case CUBLAS_STATUS_NOT_INITIALIZED:
		return "the library was not initialized";
	case CUBLAS_STATUS_ALLOC_FAILED:
		return "the resource allocation failed";
	case CUBLAS_STATUS_INVALID_VALUE:
		return "an invalid numeric value was used as an argument";
	case CUBLAS_STATUS_ARCH_MISMATCH:
		return "an absent device architectural feature is required";
	case CUBLAS_STATUS_MAPPING_ERROR:
		return "an access to GPU memory space failed";
	case CUBLAS_STATUS_EXECUTION_FAILED:
		return "the GPU program failed to execute";
	case CUBLAS_STATUS_INTERNAL_ERROR:
		return "an internal operation failed";
	case CUBLAS_STATUS_NOT_SUPPORTED:
		return "the functionality requested is not supported";
	case CUBLAS_STATUS_LICENSE_ERROR:
		return "error detected trying to check the license";
	default:
		return "unknown error";
	}
}

/* ---- matmul descriptor ---- */

cublasStatus_t CUBLASWINAPI
cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *matmulDesc,
			 cublasComputeType_t computeType,
			 cudaDataType_t scaleType)
{
	lt_desc *d;

	if (!matmulDesc)
		return CUBLAS_STATUS_INVALID_VALUE;
	d = new (std::nothrow) lt_desc;
	if (!d)
		return CUBLAS_STATUS_ALLOC_FAILED;
	memset(d, 0, sizeof(*d));
	d->magic = LT_MAGIC_DESC;
	d->compute = (int32_t)computeType;
	d->scale = (int32_t)scaleType;
	d->pointer_mode = CUBLASLT_POINTER_MODE_HOST;
	d->transa = CUBLAS_OP_N;
	d->transb = CUBLAS_OP_N;
	d->transc = CUBLAS_OP_N;
	d->fill = CUBLAS_FILL_MODE_FULL;
	d->epilogue = CUBLASLT_EPILOGUE_DEFAULT;
	d->aux_type = -1;
	d->bias_type = -1;
	*matmulDesc = reinterpret_cast<cublasLtMatmulDesc_t>(d);
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI
cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t matmulDesc)
{
	lt_desc *d = get_desc(matmulDesc);

	if (!matmulDesc)
		return CUBLAS_STATUS_SUCCESS;
	if (!d)
		return CUBLAS_STATUS_INVALID_VALUE;
	d->magic = 0;
	delete d;
	return CUBLAS_STATUS_SUCCESS;
}

/* The fp8 and block-scaling attributes, kept only to be refused. */
static const cublasLtMatmulDescAttributes_t scale_ptr_attr[8] = {
	CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
	CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
	CUBLASLT_MATMUL_DESC_C_SCALE_POINTER,
	CUBLASLT_MATMUL_DESC_D_SCALE_POINTER,
	CUBLASLT_MATMUL_DESC_AMAX_D_POINTER,
	CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER,
	CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER,
	CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER,
};
static const cublasLtMatmulDescAttributes_t scale_mode_attr[6] = {
	CUBLASLT_MATMUL_DESC_A_SCALE_MODE,
	CUBLASLT_MATMUL_DESC_B_SCALE_MODE,
	CUBLASLT_MATMUL_DESC_C_SCALE_MODE,
	CUBLASLT_MATMUL_DESC_D_SCALE_MODE,
	CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_MODE,
	CUBLASLT_MATMUL_DESC_D_OUT_SCALE_MODE,
};

static int
valid_op(int32_t op)
{
	return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C ||
	       op == CUBLAS_OP_CONJG;
}

cublasStatus_t CUBLASWINAPI
cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc,
			       cublasLtMatmulDescAttributes_t attr,
			       const void *buf, size_t sizeInBytes)
{
	lt_desc *d = get_desc(matmulDesc);
	int32_t i32;
	uint32_t u32;
	cublasStatus_t s;

	if (!d)
		return CUBLAS_STATUS_INVALID_VALUE;
	switch (attr) {
	case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE:
		return set_field(&d->compute, sizeof(d->compute), buf,
				 sizeInBytes);
	case CUBLASLT_MATMUL_DESC_SCALE_TYPE:
		return set_field(&d->scale, sizeof(d->scale), buf,
				 sizeInBytes);
	case CUBLASLT_MATMUL_DESC_POINTER_MODE:
		return set_field(&d->pointer_mode, sizeof(d->pointer_mode),
				 buf, sizeInBytes);
	case CUBLASLT_MATMUL_DESC_TRANSA:
	case CUBLASLT_MATMUL_DESC_TRANSB:
	case CUBLASLT_MATMUL_DESC_TRANSC:
		s = set_field(&i32, sizeof(i32), buf, sizeInBytes);
		if (s)
			return s;
		if (!valid_op(i32))
			return CUBLAS_STATUS_INVALID_VALUE;
		if (attr == CUBLASLT_MATMUL_DESC_TRANSA)
			d->transa = i32;
		else if (attr == CUBLASLT_MATMUL_DESC_TRANSB)
			d->transb = i32;
		else
			d->transc = i32;
		return CUBLAS_STATUS_SUCCESS;
	case CUBLASLT_MATMUL_DESC_FILL_MODE:
		return set_field(&d->fill, sizeof(d->fill), buf, sizeInBytes);
	case CUBLASLT_MATMUL_DESC_EPILOGUE:
		s = set_field(&u32, sizeof(u32), buf, sizeInBytes);
		if (s)
			return s;
		if (!epilogue_known(u32))
			return CUBLAS_STATUS_INVALID_VALUE;
		d->epilogue = u32;
		return CUBLAS_STATUS_SUCCESS;
	case CUBLASLT_MATMUL_DESC_BIAS_POINTER:
		return set_field(&d->bias, sizeof(d->bias), buf, sizeInBytes);
	case CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE:
		return set_field(&d->bias_stride, sizeof(d->bias_stride), buf,
				 sizeInBytes);
	case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER:
		return set_field(&d->aux, sizeof(d->aux), buf, sizeInBytes);
	case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD:
		return set_field(&d->aux_ld, sizeof(d->aux_ld), buf,
				 sizeInBytes);
	case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE:
		return set_field(&d->aux_stride, sizeof(d->aux_stride), buf,
				 sizeInBytes);
	case CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE:
		return set_field(&d->alpha_stride, sizeof(d->alpha_stride), buf,
				 sizeInBytes);
	case CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET:
		/* a scheduling hint: it changes no result */
		return set_field(&d->sm_target, sizeof(d->sm_target), buf,
				 sizeInBytes);
	case CUBLASLT_MATMUL_DESC_A_SCALE_POINTER:
	case CUBLASLT_MATMUL_DESC_B_SCALE_POINTER:
	case CUBLASLT_MATMUL_DESC_C_SCALE_POINTER:
	case CUBLASLT_MATMUL_DESC_D_SCALE_POINTER:
	case CUBLASLT_MATMUL_DESC_AMAX_D_POINTER:
	case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER:
	case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER:
	case CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER:
		for (int i = 0; i < 8; i++)
			if (scale_ptr_attr[i] == attr)
				return set_field(&d->scale_ptr[i],
						 sizeof(d->scale_ptr[i]), buf,
						 sizeInBytes);
		return CUBLAS_STATUS_INVALID_VALUE;
	case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE:
		return set_field(&d->aux_type, sizeof(d->aux_type), buf,
				 sizeInBytes);
	case CUBLASLT_MATMUL_DESC_FAST_ACCUM:
		return set_field(&d->fast_accum, sizeof(d->fast_accum), buf,
				 sizeInBytes);
	case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE:
		return set_field(&d->bias_type, sizeof(d->bias_type), buf,
				 sizeInBytes);
	case CUBLASLT_MATMUL_DESC_A_SCALE_MODE:
	case CUBLASLT_MATMUL_DESC_B_SCALE_MODE:
	case CUBLASLT_MATMUL_DESC_C_SCALE_MODE:
	case CUBLASLT_MATMUL_DESC_D_SCALE_MODE:
	case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_MODE:
	case CUBLASLT_MATMUL_DESC_D_OUT_SCALE_MODE:
		for (int i = 0; i < 6; i++)
			if (scale_mode_attr[i] == attr)
				return set_field(&d->scale_mode[i],
						 sizeof(d->scale_mode[i]), buf,
						 sizeInBytes);
		return CUBLAS_STATUS_INVALID_VALUE;
	case CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR:
		return set_field(&d->emulation, sizeof(d->emulation), buf,
				 sizeInBytes);
	default:
		return CUBLAS_STATUS_INVALID_VALUE;
	}
}

/* ---- matrix layout ---- */

cublasStatus_t CUBLASWINAPI
cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *matLayout,
			   cudaDataType type, uint64_t rows, uint64_t cols,
			   int64_t ld)
{
	lt_layout *l;

	if (!matLayout)
		return CUBLAS_STATUS_INVALID_VALUE;
	l = new (std::nothrow) lt_layout;
	if (!l)
		return CUBLAS_STATUS_ALLOC_FAILED;
	memset(l, 0, sizeof(*l));
	l->magic = LT_MAGIC_LAYOUT;
	l->type = (uint32_t)type;
	l->order = CUBLASLT_ORDER_COL;
	l->rows = rows;
	l->cols = cols;
	l->ld = ld;
	l->batch = 1;
	l->batch_mode = CUBLASLT_BATCH_MODE_STRIDED;
	*matLayout = reinterpret_cast<cublasLtMatrixLayout_t>(l);
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI
cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t matLayout)
{
	lt_layout *l = get_layout(matLayout);

	if (!matLayout)
		return CUBLAS_STATUS_SUCCESS;
	if (!l)
		return CUBLAS_STATUS_INVALID_VALUE;
	l->magic = 0;
	delete l;
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI
cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t matLayout,
				 cublasLtMatrixLayoutAttribute_t attr,
				 const void *buf, size_t sizeInBytes)
{
	lt_layout *l = get_layout(matLayout);

	if (!l)
		return CUBLAS_STATUS_INVALID_VALUE;
	switch (attr) {
	case CUBLASLT_MATRIX_LAYOUT_TYPE:
		return set_field(&l->type, sizeof(l->type), buf, sizeInBytes);
	case CUBLASLT_MATRIX_LAYOUT_ORDER:
		return set_field(&l->order, sizeof(l->order), buf,
				 sizeInBytes);
	case CUBLASLT_MATRIX_LAYOUT_ROWS:
		return set_field(&l->rows, sizeof(l->rows), buf, sizeInBytes);
	case CUBLASLT_MATRIX_LAYOUT_COLS:
		return set_field(&l->cols, sizeof(l->cols), buf, sizeInBytes);
	case CUBLASLT_MATRIX_LAYOUT_LD:
		return set_field(&l->ld, sizeof(l->ld), buf, sizeInBytes);
	case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT:
		return set_field(&l->batch, sizeof(l->batch), buf,
				 sizeInBytes);
	case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET:
		return set_field(&l->stride, sizeof(l->stride), buf,
				 sizeInBytes);
	case CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET:
		return set_field(&l->plane, sizeof(l->plane), buf,
				 sizeInBytes);
	case CUBLASLT_MATRIX_LAYOUT_BATCH_MODE:
		return set_field(&l->batch_mode, sizeof(l->batch_mode), buf,
				 sizeInBytes);
	default:
		return CUBLAS_STATUS_INVALID_VALUE;
	}
}

/* ---- preference ---- */

cublasStatus_t CUBLASWINAPI
cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref)
{
	lt_pref *p;

	if (!pref)
		return CUBLAS_STATUS_INVALID_VALUE;
	p = new (std::nothrow) lt_pref;
	if (!p)
		return CUBLAS_STATUS_ALLOC_FAILED;
	memset(p, 0, sizeof(*p));
	p->magic = LT_MAGIC_PREF;
	p->search = CUBLASLT_SEARCH_BEST_FIT;
	p->max_ws = 0;                   /* "default: 0 - no workspace" */
	p->red_mask = CUBLASLT_REDUCTION_SCHEME_MASK;
	for (int i = 0; i < 4; i++)
		p->align[i] = 256;       /* "uint32_t, default: 256" */
	p->max_waves = 0.0f;
	p->impl_mask = ~(uint64_t)0;
	*pref = reinterpret_cast<cublasLtMatmulPreference_t>(p);
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI
cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref)
{
	lt_pref *p = get_pref(pref);

	if (!pref)
		return CUBLAS_STATUS_SUCCESS;
	if (!p)
		return CUBLAS_STATUS_INVALID_VALUE;
	p->magic = 0;
	delete p;
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI
cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
				     cublasLtMatmulPreferenceAttributes_t attr,
				     const void *buf, size_t sizeInBytes)
{
	lt_pref *p = get_pref(pref);

	if (!p)
		return CUBLAS_STATUS_INVALID_VALUE;
	switch (attr) {
	case CUBLASLT_MATMUL_PREF_SEARCH_MODE:
		return set_field(&p->search, sizeof(p->search), buf,
				 sizeInBytes);
	case CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES:
		return set_field(&p->max_ws, sizeof(p->max_ws), buf,
				 sizeInBytes);
	case CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK:
		return set_field(&p->red_mask, sizeof(p->red_mask), buf,
				 sizeInBytes);
	case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES:
		return set_field(&p->align[0], sizeof(p->align[0]), buf,
				 sizeInBytes);
	case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES:
		return set_field(&p->align[1], sizeof(p->align[1]), buf,
				 sizeInBytes);
	case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES:
		return set_field(&p->align[2], sizeof(p->align[2]), buf,
				 sizeInBytes);
	case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES:
		return set_field(&p->align[3], sizeof(p->align[3]), buf,
				 sizeInBytes);
	case CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT:
		return set_field(&p->max_waves, sizeof(p->max_waves), buf,
				 sizeInBytes);
	case CUBLASLT_MATMUL_PREF_IMPL_MASK:
		return set_field(&p->impl_mask, sizeof(p->impl_mask), buf,
				 sizeInBytes);
	default:
		return CUBLAS_STATUS_INVALID_VALUE;
	}
}

} /* extern "C" */

/* ---- validation ---- */

static cublasStatus_t
check_layout(const lt_layout *l)
{
	/* "Usually only values that can be expressed as int32_t are
	 * supported" (ROWS, COLS). */
	if (l->rows > INT32_MAX || l->cols > INT32_MAX)
		return CUBLAS_STATUS_NOT_SUPPORTED;
	if (l->order != CUBLASLT_ORDER_COL || l->plane != 0 ||
	    l->batch_mode != CUBLASLT_BATCH_MODE_STRIDED)
		return CUBLAS_STATUS_NOT_SUPPORTED;
	if (!type_size(l->type))
		return CUBLAS_STATUS_NOT_SUPPORTED;
	/* LD: "Currently only non-negative values are supported, must be
	 * large enough so that matrix memory locations are not overlapping
	 * (e.g. greater or equal to CUBLASLT_MATRIX_LAYOUT_ROWS in case of
	 * CUBLASLT_ORDER_COL)". */
	if (l->ld < 1 || (uint64_t)l->ld < l->rows)
		return CUBLAS_STATUS_INVALID_VALUE;
	if (l->batch < 1 || l->stride < 0)
		return CUBLAS_STATUS_INVALID_VALUE;
	return CUBLAS_STATUS_SUCCESS;
}

/*
 * What cublasLtMatmul and the heuristic both check: supported
 * configuration (else NOT_SUPPORTED) and consistent shapes (else
 * INVALID_VALUE).  Fills *p.
 */
static cublasStatus_t
check_problem(cublasLtMatmulDesc_t opd, cublasLtMatrixLayout_t Adesc,
	      cublasLtMatrixLayout_t Bdesc, cublasLtMatrixLayout_t Cdesc,
	      cublasLtMatrixLayout_t Ddesc, lt_problem *p)
{
	const lt_desc *d = get_desc(opd);
	uint64_t am, ak, bk, bn;
	uint32_t at, dt;
	cublasStatus_t s;

	memset(p, 0, sizeof(*p));
	p->l[0] = get_layout(Adesc);
	p->l[1] = get_layout(Bdesc);
	p->l[2] = get_layout(Cdesc);
	p->l[3] = get_layout(Ddesc);
	if (!d || !p->l[0] || !p->l[1] || !p->l[2] || !p->l[3])
		return CUBLAS_STATUS_INVALID_VALUE;
	p->op = d;

	/* what is emulated: fp32 compute and scale, host alpha/beta */
	if ((d->compute != CUBLAS_COMPUTE_32F &&
	     d->compute != CUBLAS_COMPUTE_32F_PEDANTIC) ||
	    d->scale != CUDA_R_32F)
		return CUBLAS_STATUS_NOT_SUPPORTED;
	if (d->pointer_mode != CUBLASLT_POINTER_MODE_HOST)
		return CUBLAS_STATUS_NOT_SUPPORTED;
	if (d->alpha_stride != 0)
		return CUBLAS_STATUS_INVALID_VALUE;
	if ((d->transa != CUBLAS_OP_N && d->transa != CUBLAS_OP_T) ||
	    (d->transb != CUBLAS_OP_N && d->transb != CUBLAS_OP_T))
		return CUBLAS_STATUS_NOT_SUPPORTED;
	/* TRANSC: "Currently only CUBLAS_OP_N is supported." */
	if (d->transc != CUBLAS_OP_N || d->fill != CUBLAS_FILL_MODE_FULL)
		return CUBLAS_STATUS_NOT_SUPPORTED;
	/* The scale and amax pointers and the scale modes: "If set for an
	 * unsupported matrix data, scale, and compute type combination,
	 * calling cublasLtMatmul() will return CUBLAS_INVALID_VALUE" - they
	 * are for fp8 and block-scaled types, which are not emulated. */
	for (int i = 0; i < 8; i++)
		if (d->scale_ptr[i])
			return CUBLAS_STATUS_INVALID_VALUE;
	for (int i = 0; i < 6; i++)
		if (d->scale_mode[i])
			return CUBLAS_STATUS_INVALID_VALUE;
	if (d->fast_accum || d->emulation)
		return CUBLAS_STATUS_NOT_SUPPORTED;

	for (int i = 0; i < 4; i++) {
		s = check_layout(p->l[i]);
		if (s)
			return s;
	}

	/* The fp32-compute rows of cublasLtMatmul's type table:
	 * A = B in {16F, 16BF, 32F}, C = D, and D of A's type or 32F. */
	at = p->l[0]->type;
	dt = p->l[3]->type;
	if (p->l[1]->type != at || p->l[2]->type != dt)
		return CUBLAS_STATUS_NOT_SUPPORTED;
	if (dt != at && dt != CUDA_R_32F)
		return CUBLAS_STATUS_NOT_SUPPORTED;

	p->ta = d->transa == CUBLAS_OP_T;
	p->tb = d->transb == CUBLAS_OP_T;
	am = p->ta ? p->l[0]->cols : p->l[0]->rows;
	ak = p->ta ? p->l[0]->rows : p->l[0]->cols;
	bk = p->tb ? p->l[1]->cols : p->l[1]->rows;
	bn = p->tb ? p->l[1]->rows : p->l[1]->cols;
	p->m = p->l[3]->rows;
	p->n = p->l[3]->cols;
	p->k = ak;
	/* op(A) m x k, op(B) k x n, C and D m x n */
	if (am != p->m || bk != ak || bn != p->n ||
	    p->l[2]->rows != p->m || p->l[2]->cols != p->n)
		return CUBLAS_STATUS_INVALID_VALUE;
	p->batch = p->l[3]->batch;
	for (int i = 0; i < 3; i++)
		if (p->l[i]->batch != p->batch)
			return CUBLAS_STATUS_INVALID_VALUE;
	/* Batches whose results all land on one D (this emulation's
	 * refusal: "parameters are in conflict"). */
	if (p->batch > 1 && p->l[3]->stride == 0)
		return CUBLAS_STATUS_INVALID_VALUE;

	/* the epilogue */
	p->ep = d->epilogue;
	switch (p->ep) {
	case CUBLASLT_EPILOGUE_DEFAULT:
	case CUBLASLT_EPILOGUE_RELU:
	case CUBLASLT_EPILOGUE_GELU:
		break;
	case CUBLASLT_EPILOGUE_BIAS:
	case CUBLASLT_EPILOGUE_RELU_BIAS:
	case CUBLASLT_EPILOGUE_GELU_BIAS:
		p->uses_bias = 1;
		break;
	case CUBLASLT_EPILOGUE_GELU_AUX:
		p->uses_aux = p->aux_out = 1;
		break;
	case CUBLASLT_EPILOGUE_GELU_AUX_BIAS:
		p->uses_bias = 1;
		p->uses_aux = p->aux_out = 1;
		break;
	case CUBLASLT_EPILOGUE_DGELU:
		p->uses_aux = 1;
		break;
	case CUBLASLT_EPILOGUE_DGELU_BGRAD:
		p->uses_aux = 1;
		p->uses_bias = p->bgrad = 1;
		break;
	case CUBLASLT_EPILOGUE_BGRADA:
	case CUBLASLT_EPILOGUE_BGRADB:
		p->uses_bias = p->bgrad = 1;
		break;
	default:
		/* the ReLU bit-mask epilogues are not emulated */
		return CUBLAS_STATUS_NOT_SUPPORTED;
	}
	if (p->uses_bias) {
		/* BIAS_DATA_TYPE: "Bias vector elements are the same type as
		 * the elements of output matrix (Dtype)"; BIAS_POINTER:
		 * "Bias gradient vector elements are the same type as the
		 * output elements (Ctype)" - C and D have one type here.  A
		 * set type must be D's or, with fp32 D, the inputs' type
		 * (this emulation's reading of the mixed-precision case). */
		p->bias_type = d->bias_type == -1 ? dt :
			       (uint32_t)d->bias_type;
		if (p->bias_type != dt && p->bias_type != at)
			return CUBLAS_STATUS_INVALID_VALUE;
		/* BIAS: "Bias vector length must match matrix D rows";
		 * BGRADB: "The bias size corresponds to the number of
		 * columns of the matrix D." */
		p->bias_len = (int64_t)(p->ep == CUBLASLT_EPILOGUE_BGRADB ?
					p->n : p->m);
		if (d->bias_stride < 0)
			return CUBLAS_STATUS_INVALID_VALUE;
		/* a gradient written by every batch to one vector */
		if (p->bgrad && p->batch > 1 && d->bias_stride == 0)
			return CUBLAS_STATUS_INVALID_VALUE;
	}
	if (p->uses_aux) {
		/* AUX_DATA_TYPE: "If unset, the data type defaults to the type
		 * of elements of the output matrix"; other types are for fp8
		 * outputs: "If set for an unsupported matrix data, scale, and
		 * compute type combination, calling cublasLtMatmul() will
		 * return CUBLAS_INVALID_VALUE." */
		p->aux_type = d->aux_type == -1 ? dt : (uint32_t)d->aux_type;
		if (p->aux_type != dt)
			return CUBLAS_STATUS_INVALID_VALUE;
		/* AUX_LD: "Must be divisible by 8 and be no less than the
		 * number of rows in the output matrix."  AUX_BATCH_STRIDE:
		 * "Must be divisible by 8." */
		if (d->aux_ld < 1 || (uint64_t)d->aux_ld < p->m ||
		    d->aux_ld % 8)
			return CUBLAS_STATUS_INVALID_VALUE;
		if (d->aux_stride < 0 || d->aux_stride % 8)
			return CUBLAS_STATUS_INVALID_VALUE;
		/* likewise an aux written by every batch */
		if (p->aux_out && p->batch > 1 && d->aux_stride == 0)
			return CUBLAS_STATUS_INVALID_VALUE;
	}
	return CUBLAS_STATUS_SUCCESS;
}

/* The numerical implementation this emulation reports for its algorithm. */
static uint64_t
impl_flags(uint32_t at)
{
	switch (at) {
	case CUDA_R_16F:
		return CUBLASLT_NUMERICAL_IMPL_FLAGS_HMMA |
		       CUBLASLT_NUMERICAL_IMPL_FLAGS_ACCUMULATOR_32F |
		       CUBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_16F;
	case CUDA_R_16BF:
		return CUBLASLT_NUMERICAL_IMPL_FLAGS_HMMA |
		       CUBLASLT_NUMERICAL_IMPL_FLAGS_ACCUMULATOR_32F |
		       CUBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_16BF;
	default:
		return CUBLASLT_NUMERICAL_IMPL_FLAGS_FMA |
		       CUBLASLT_NUMERICAL_IMPL_FLAGS_ACCUMULATOR_32F |
		       CUBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_32F;
	}
}

/*
 * The emulated algorithm, in cublasLtMatmulAlgo_t's data[8]:
 * [0] LT_MAGIC_ALGO, [1] A | B << 32, [2] C | D << 32 (minimum pointer
 * alignments, bytes, from the preference), [3] bias | aux << 32
 * (vector alignments), [4] the epilogue it was chosen for, [5] the
 * workspace it needs (0).
 */
static void
algo_make(cublasLtMatmulAlgo_t *a, const lt_pref *pr, const lt_problem *p)
{
	uint32_t vb = ptr_align(p->op->bias, LT_VEC_ALIGN);
	uint32_t va = ptr_align(p->op->aux, LT_VEC_ALIGN);

	memset(a, 0, sizeof(*a));
	a->data[0] = LT_MAGIC_ALGO;
	a->data[1] = pr->align[0] | (uint64_t)pr->align[1] << 32;
	a->data[2] = pr->align[2] | (uint64_t)pr->align[3] << 32;
	a->data[3] = vb | (uint64_t)va << 32;
	a->data[4] = p->ep;
	a->data[5] = 0;
}

extern "C" cublasStatus_t CUBLASWINAPI
cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t lightHandle,
			       cublasLtMatmulDesc_t operationDesc,
			       cublasLtMatrixLayout_t Adesc,
			       cublasLtMatrixLayout_t Bdesc,
			       cublasLtMatrixLayout_t Cdesc,
			       cublasLtMatrixLayout_t Ddesc,
			       cublasLtMatmulPreference_t preference,
			       int requestedAlgoCount,
			       cublasLtMatmulHeuristicResult_t
				       heuristicResultsArray[],
			       int *returnAlgoCount)
{
	const lt_pref *pr = get_pref(preference);
	lt_problem p;
	cublasLtMatmulHeuristicResult_t *r;
	cublasStatus_t s;

	if (!get_handle(lightHandle))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	/* "CUBLAS_STATUS_INVALID_VALUE if requestedAlgoCount is less or
	 * equal to zero" */
	if (requestedAlgoCount <= 0 || !heuristicResultsArray ||
	    !returnAlgoCount || !pr)
		return CUBLAS_STATUS_INVALID_VALUE;
	*returnAlgoCount = 0;
	s = check_problem(operationDesc, Adesc, Bdesc, Cdesc, Ddesc, &p);
	if (s)
		return s;
	if (pr->search != CUBLASLT_SEARCH_BEST_FIT)
		return CUBLAS_STATUS_NOT_SUPPORTED;
	/* No algorithm for an alignment that is not a power of two or is
	 * below the element size, for a numerical implementation the mask
	 * excludes, or for fewer than the one wave it reports. */
	for (int i = 0; i < 4; i++)
		if (!is_pow2(pr->align[i]) ||
		    pr->align[i] < type_size(p.l[i]->type))
			return CUBLAS_STATUS_NOT_SUPPORTED;
	if (impl_flags(p.l[0]->type) & ~pr->impl_mask)
		return CUBLAS_STATUS_NOT_SUPPORTED;
	if (pr->max_waves != 0.0f && pr->max_waves < 1.0f)
		return CUBLAS_STATUS_NOT_SUPPORTED;
	/* the test knob: no algorithm for any GELU epilogue */
	if (env_on("PD2BW_EMU_NO_GELU_EPILOGUE") &&
	    (p.ep & CUBLASLT_EPILOGUE_GELU ||
	     p.ep == CUBLASLT_EPILOGUE_DGELU ||
	     p.ep == CUBLASLT_EPILOGUE_DGELU_BGRAD))
		return CUBLAS_STATUS_SUCCESS;
	r = &heuristicResultsArray[0];
	memset(r, 0, sizeof(*r));
	algo_make(&r->algo, pr, &p);
	r->workspaceSize = 0;
	r->state = CUBLAS_STATUS_SUCCESS;
	r->wavesCount = 1.0f;
	*returnAlgoCount = 1;
	return CUBLAS_STATUS_SUCCESS;
}

/* ---- the matmul ---- */

static const char *const mat_name[4] = {"A", "B", "C", "D"};

/* Bytes a column-major rows x cols matrix with leading dimension ld
 * spans. */
static size_t
mat_bytes(uint64_t rows, uint64_t cols, int64_t ld, size_t es)
{
	if (!rows || !cols)
		return 0;
	return ((cols - 1) * (uint64_t)ld + rows) * es;
}

static void
need_range(const char *what, const void *ptr, uint32_t type, uint64_t rows,
	   uint64_t cols, int64_t ld, int b, int nb)
{
	size_t bytes = mat_bytes(rows, cols, ld, type_size(type));

	if (!bytes)
		return;
	if (!emu_dev_range(ptr, bytes))
		emu_fatal("cublasLtMatmul: %s (%s %llux%llu, ld %lld, batch "
			  "%d of %d) at %p: %zu bytes not inside one device "
			  "allocation", what, type_name(type),
			  (unsigned long long)rows, (unsigned long long)cols,
			  (long long)ld, b + 1, nb, ptr, bytes);
}

static int
aligned(const void *ptr, uint32_t a)
{
	return !((uintptr_t)ptr & (uintptr_t)(a - 1));
}

/* Scratch for gemm_one: op(A) as m rows of k, op(B) as n rows of k, the
 * m x n result (column-major) in the compute type, a bias gradient. */
struct lt_work {
	std::vector<float> opa, opb, acc;
	std::vector<double> grad;
	std::vector<double> da, db, sum; /* op(A), op(B), their product */
};

/* One matmul of a batch: D = epilogue(alpha op(A) op(B) + beta C). */
static void
gemm_one(const lt_problem *p, float al, float be, const void *pa,
	 const void *pb, const void *pc, void *pd, void *bias, void *aux,
	 lt_work *w)
{
	const lt_desc *d = p->op;
	const lt_layout *la = p->l[0], *lb = p->l[1];
	const lt_layout *lc = p->l[2], *ld = p->l[3];
	uint64_t m = p->m, n = p->n, k = p->k;
	float *opa = w->opa.data(), *opb = w->opb.data();
	float *acc = w->acc.data();
	const char *sk = getenv("PD2BW_EMU_GEMM_SKEW");
	float skew = sk && *sk ? strtof(sk, NULL) : 1.0f;

	double *da = w->da.data(), *db = w->db.data(), *ds = w->sum.data();

	for (uint64_t i = 0; i < m; i++)
		for (uint64_t q = 0; q < k; q++) {
			opa[i * k + q] = load_el(pa, la->type, (int64_t)(p->ta ?
				i * la->ld + q : q * la->ld + i));
			da[i * k + q] = opa[i * k + q];
		}
	for (uint64_t j = 0; j < n; j++)
		for (uint64_t q = 0; q < k; q++) {
			opb[j * k + q] = load_el(pb, lb->type, (int64_t)(p->tb ?
				q * lb->ld + j : j * lb->ld + q));
			db[j * k + q] = opb[j * k + q];
		}
	/* sum[j][i] = sum over q of op(A)[i][q] op(B)[q][j], in double */
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)m,
		    (int)k, 1.0, db, (int)k, da, (int)k, 0.0, ds, (int)m);

	/* alpha op(A) op(B) + beta C, in the compute type; beta 0 reads
	 * no C */
	for (uint64_t j = 0; j < n; j++) {
		for (uint64_t i = 0; i < m; i++) {
			float v;

			v = al * (float)ds[j * m + i];
			if (be != 0.0f)
				v += be * load_el(pc, lc->type,
						  (int64_t)(j * lc->ld + i));
			acc[j * m + i] = v;
		}
	}

	/*
	 * The epilogue.  cublasLt.h, cublasLtEpilogue_t: BIAS "Bias vector
	 * is broadcasted to all columns and added before applying final
	 * postprocessing"; GELU_BIAS "apply Bias and then GELU transform";
	 * GELU_AUX "outputs GELU input as a separate matrix" (AUX_POINTER:
	 * "Output of GELU input matrix in forward pass") - so aux gets the
	 * value after the bias, before GELU.
	 */
	if (p->uses_bias && !p->bgrad)
		for (uint64_t j = 0; j < n; j++)
			for (uint64_t i = 0; i < m; i++)
				acc[j * m + i] += load_el(bias, p->bias_type,
							  (int64_t)i);
	if (p->aux_out)
		for (uint64_t j = 0; j < n; j++)
			for (uint64_t i = 0; i < m; i++)
				store_el(aux, p->aux_type,
					 (int64_t)(j * d->aux_ld + i),
					 acc[j * m + i]);
	switch (p->ep) {
	case CUBLASLT_EPILOGUE_RELU:
	case CUBLASLT_EPILOGUE_RELU_BIAS:
		/* "(x:=max(x, 0))" */
		for (uint64_t i = 0; i < m * n; i++)
			acc[i] = acc[i] > 0.0f ? acc[i] : 0.0f;
		break;
	case CUBLASLT_EPILOGUE_GELU:
	case CUBLASLT_EPILOGUE_GELU_AUX:
	case CUBLASLT_EPILOGUE_GELU_BIAS:
	case CUBLASLT_EPILOGUE_GELU_AUX_BIAS:
		/* "apply GELU point-wise transform to the results
		 * (x:=GELU(x))" */
		for (uint64_t i = 0; i < m * n; i++)
			acc[i] = gelu(acc[i]);
		break;
	case CUBLASLT_EPILOGUE_DGELU:
	case CUBLASLT_EPILOGUE_DGELU_BGRAD:
		/*
		 * DGELU: "Apply GELU gradient to matmul output. Store GELU
		 * gradient in the output matrix."  AUX_POINTER: "Input of
		 * GELU input matrix for backward pass".  So D = GELU'(aux)
		 * * (alpha op(A) op(B) + beta C), element by element.
		 */
		for (uint64_t j = 0; j < n; j++)
			for (uint64_t i = 0; i < m; i++)
				acc[j * m + i] *= dgelu(load_el(aux,
					p->aux_type,
					(int64_t)(j * d->aux_ld + i)));
		break;
	default:
		break;
	}

	/*
	 * Bias gradients.  DGELU_BGRAD: "Apply independently GELU and Bias
	 * gradient to matmul output. Store GELU gradient in the output
	 * matrix, and Bias gradient in the auxiliary output (see
	 * CUBLASLT_MATMUL_DESC_BIAS_POINTER)", a vector of D's rows: the
	 * bias that fed the GELU gets the sum over D's columns of the GELU
	 * gradient.  BGRADA: "The bias size corresponds to the number of
	 * rows of the matrix D. The reduction happens over the GEMM's "k"
	 * dimension" - the row sums of op(A); BGRADB likewise the column
	 * sums of op(B), a vector of D's columns.  None is scaled by alpha:
	 * the documentation names no scaling.
	 */
	if (p->bgrad) {
		w->grad.assign((size_t)p->bias_len, 0.0);
		if (p->ep == CUBLASLT_EPILOGUE_DGELU_BGRAD) {
			for (uint64_t j = 0; j < n; j++)
				for (uint64_t i = 0; i < m; i++)
					w->grad[i] += acc[j * m + i];
		} else if (p->ep == CUBLASLT_EPILOGUE_BGRADA) {
			for (uint64_t i = 0; i < m; i++)
				for (uint64_t q = 0; q < k; q++)
					w->grad[i] += opa[i * k + q];
		} else {
			for (uint64_t j = 0; j < n; j++)
				for (uint64_t q = 0; q < k; q++)
					w->grad[j] += opb[j * k + q];
		}
		for (int64_t i = 0; i < p->bias_len; i++)
			store_el(bias, p->bias_type, i, (float)w->grad[i]);
	}

	if (skew != 1.0f)
		for (uint64_t i = 0; i < m * n; i++)
			acc[i] *= skew;
	for (uint64_t j = 0; j < n; j++)
		for (uint64_t i = 0; i < m; i++)
			store_el(pd, ld->type, (int64_t)(j * ld->ld + i),
				 acc[j * m + i]);
}

extern "C" cublasStatus_t CUBLASWINAPI
cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
	       const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc,
	       const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta,
	       const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
	       cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
	       void *workspace, size_t workspaceSizeInBytes,
	       cudaStream_t stream)
{
	lt_problem p;
	const lt_desc *d;
	const void *ptr[4] = {A, B, C, D};
	const lt_layout *const *l;
	float al, be;
	uint64_t m, n, k;
	size_t es[4], bes = 0, aes = 0;
	uint64_t t0, t1;
	cublasStatus_t s;

	(void)workspace;
	if (!get_handle(lightHandle))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	s = check_problem(computeDesc, Adesc, Bdesc, Cdesc, Ddesc, &p);
	if (s)
		return s;
	if (!alpha || !beta)
		return CUBLAS_STATUS_INVALID_VALUE;
	d = p.op;
	l = p.l;
	m = p.m;
	n = p.n;
	k = p.k;
	memcpy(&al, alpha, sizeof(al));
	memcpy(&be, beta, sizeof(be));
	for (int i = 0; i < 4; i++)
		es[i] = type_size(l[i]->type);
	if (p.uses_bias)
		bes = type_size(p.bias_type);
	if (p.uses_aux)
		aes = type_size(p.aux_type);

	/* the pointers the epilogue needs */
	if ((p.uses_bias && !d->bias) || (p.uses_aux && !d->aux))
		return CUBLAS_STATUS_INVALID_VALUE;
	if ((m && n && !D) || (m && n && k && (!A || !B)) ||
	    (m && n && be != 0.0f && !C))
		return CUBLAS_STATUS_INVALID_VALUE;
	/* In place (C == D) the two must be laid out alike. */
	if (C == D && (l[2]->ld != l[3]->ld || l[2]->stride != l[3]->stride))
		return CUBLAS_STATUS_INVALID_VALUE;

	/* The algorithm: one from the heuristic, whose alignments every
	 * pointer must meet; NULL runs an implicit heuristic on the actual
	 * pointers, so anything element-aligned goes. */
	if (algo) {
		uint32_t al4[4] = {
			(uint32_t)algo->data[1],
			(uint32_t)(algo->data[1] >> 32),
			(uint32_t)algo->data[2],
			(uint32_t)(algo->data[2] >> 32),
		};

		if (algo->data[0] != LT_MAGIC_ALGO ||
		    algo->data[4] != p.ep)
			return CUBLAS_STATUS_INVALID_VALUE;
		/* workspace: "CUBLAS_STATUS_INVALID_VALUE ... when
		 * workspaceSizeInBytes is less than workspace required by
		 * configured algo" */
		if (workspaceSizeInBytes < algo->data[5])
			return CUBLAS_STATUS_INVALID_VALUE;
		for (int i = 0; i < 4; i++) {
			if (i == 2 && be == 0.0f)
				continue;
			for (int b = 0; b < p.batch; b++)
				if (!aligned(offset(ptr[i], b * l[i]->stride,
						    es[i]), al4[i]))
					return CUBLAS_STATUS_INVALID_VALUE;
		}
		if (p.uses_bias &&
		    !aligned(d->bias, (uint32_t)algo->data[3]))
			return CUBLAS_STATUS_INVALID_VALUE;
		if (p.uses_aux &&
		    !aligned(d->aux, (uint32_t)(algo->data[3] >> 32)))
			return CUBLAS_STATUS_INVALID_VALUE;
	} else {
		for (int i = 0; i < 4; i++)
			if (ptr[i] && !aligned(ptr[i], (uint32_t)es[i]))
				return CUBLAS_STATUS_INVALID_VALUE;
	}
	if ((p.uses_bias && !aligned(d->bias, (uint32_t)bes)) ||
	    (p.uses_aux && !aligned(d->aux, (uint32_t)aes)))
		return CUBLAS_STATUS_INVALID_VALUE;
	if (!m || !n)
		return CUBLAS_STATUS_SUCCESS;

	/* every region read or written lies in device memory */
	for (int b = 0; b < p.batch; b++) {
		for (int i = 0; i < 4; i++) {
			if ((i == 2 && be == 0.0f) || (i < 2 && !k))
				continue;
			need_range(mat_name[i],
				   offset(ptr[i], b * l[i]->stride, es[i]),
				   l[i]->type, l[i]->rows, l[i]->cols,
				   l[i]->ld, b, p.batch);
		}
		if (p.uses_bias)
			need_range(p.bgrad ? "bias gradient" : "bias",
				   offset(d->bias, b * d->bias_stride, bes),
				   p.bias_type, (uint64_t)p.bias_len, 1,
				   p.bias_len, b, p.batch);
		if (p.uses_aux)
			need_range("epilogue aux",
				   offset(d->aux, b * d->aux_stride, aes),
				   p.aux_type, m, n, d->aux_ld, b, p.batch);
	}

	t0 = emu_now_ns();
	if (!emu_dry()) {
		/* kept across calls: resize() fills only what grows, and
		 * gemm_one writes every element it reads */
		static lt_work w;

		w.opa.resize(m * k);
		w.opb.resize(n * k);
		w.acc.resize(m * n);
		w.da.resize(m * k);
		w.db.resize(n * k);
		w.sum.resize(m * n);
		for (int b = 0; b < p.batch; b++) {
			void *bias = p.uses_bias ? (void *)offset(d->bias,
				b * d->bias_stride, bes) : NULL;
			void *aux = p.uses_aux ? (void *)offset(d->aux,
				b * d->aux_stride, aes) : NULL;

			gemm_one(&p, al, be,
				 offset(A, b * l[0]->stride, es[0]),
				 offset(B, b * l[1]->stride, es[1]),
				 offset(C, b * l[2]->stride, es[2]),
				 (void *)offset(D, b * l[3]->stride, es[3]),
				 bias, aux, &w);
		}
	}
	t1 = emu_now_ns();
	emu_kernel_done(epilogue_name(p.ep), t0, t1, emu_stream_id(stream));
	return CUBLAS_STATUS_SUCCESS;
}
