/*
 * catalog.h - GPU catalog: peak rates, memory and links of GPU types, built
 * in for common parts and extendable from a user file (format
 * pd2bw-gpus/1) without recompiling.
 */
#ifndef PD2BW_CATALOG_H
#define PD2BW_CATALOG_H

#include <stddef.h>
#include <stdint.h>

struct gpu_spec {
	char *name;          /* canonical name, e.g. "H100-SXM" (owned) */
	int64_t mem_bytes;   /* device memory */
	double tflops16;     /* dense 16-bit tensor-core peak, TFLOP/s */
	double tflops32;     /* fp32 (non-tensor) peak, TFLOP/s */
	double mem_gb_s;     /* HBM/GDDR bandwidth, GB/s */
	double nvlink_gb_s;  /* NVLink per GPU per direction, GB/s; 0 = none */
	double pcie_gb_s;    /* PCIe per direction, GB/s */
	double gemm_eff;     /* achievable fraction of tflops16 on large GEMMs */
	double attn_eff;     /* achievable fraction for attention GEMMs */
	double attn_eff_fa2; /* the same for FlashAttention-2-class kernels
				(--attention fa2); 0: attn_eff */
	double mem_eff;      /* achievable fraction of mem_gb_s */
	double kernel_us;    /* fixed overhead per kernel launch */
	double tflops8;      /* dense FP8 tensor-core peak; 0 = none */
	double gemm_eff8;    /* achievable fraction of tflops8 on large GEMMs */
	double gemm_eff8mx;  /* the same for MXFP8 (block-scaled) GEMMs; 0:
				gemm_eff8 */
	int sms;             /* streaming multiprocessors; 0 = unknown */
	int mxfp8;           /* MXFP8 block-scaled tensor cores (Blackwell) */
	double tflops4;      /* dense NVFP4 tensor-core peak; 0 = none */
	double gemm_eff4;    /* achievable fraction of tflops4 on large
				NVFP4 GEMMs */
	double flops_per_exp; /* 16-bit tensor FLOPs per exponential of the
				 special-function units, per SM and clock;
				 0 = no bound on attention's softmax */
	double attn_block;   /* the native fused attention kernel's fixed
				cost per block of queries, in key tiles
				(analytic.c attn_tile_share()); 0 = 1.4,
				FlashAttention-2's */
	double attn_bwd;     /* its backward's fraction over its forward's
				(attn_eff); 0 = 1 */
	double score_fwd, score_bwd; /* 16-bit tensor FLOPs' worth of time
				a score costs its 16-bit forward, backward
				at least (its softmax work); 0 =
				flops_per_exp */
	double attn_bwd_fa2; /* FlashAttention-2-class kernels' backward
				fraction over their forward's
				(attn_eff_fa2); 0 = 1 */
	char *source;        /* where the figures come from (owned) */
};

struct gpu_catalog {
	struct gpu_spec *gpus;
	size_t n, alloc;
};

/* Fill c with the built-in catalog. */
void catalog_init(struct gpu_catalog *c);
/* Free everything in c. */
void catalog_release(struct gpu_catalog *c);
/*
 * Add the GPUs of a pd2bw-gpus/1 file; an entry with an existing name
 * replaces it.  Returns 0 or -1 (file:line:col message).
 */
int catalog_load(struct gpu_catalog *c, const char *path);
int catalog_load_string(struct gpu_catalog *c, const char *name,
			const char *buf, size_t len);
/* Find by name, case-insensitively, ignoring '-', '_' and ' '; or NULL. */
const struct gpu_spec *catalog_find(const struct gpu_catalog *c,
				    const char *name);
/* Write the whole catalog as pd2bw-gpus/1 ("-" = stdout). 0 or -1. */
int catalog_write(const struct gpu_catalog *c, const char *path);

#endif
