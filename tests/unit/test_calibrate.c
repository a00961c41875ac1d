/*
 * test_calibrate.c - pd2bw-profile --calibrate with a kernel breakdown:
 * kernels sorted into the analytic model's classes by name, the analytic
 * time split by class adding up, and a round trip: a "measurement" made
 * by the analytic model with known efficiencies, with the kernel
 * breakdown it implies, gives those efficiencies back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "harness.h"
#include "pd2bw/analytic.h"
#include "pd2bw/error.h"
#include "pd2bw/yml.h"
#include "../../profiler/calibrate.h"

/* A GPT-like model large enough that its GEMMs are compute-bound. */
static void
model(struct model *m, int flash)
{
	model_init(m);
	m->name = "calib";
	m->layers = 4;
	m->hidden = 1024;
	m->heads = 8;
	m->kv_heads = 8;
	m->ffn_hidden = 4096;
	m->seq_len = 1024;
	m->vocab = 32000;
	m->flash_attention = flash;
	m->dropout = 0;
	m->precision = MODEL_BF16;
}

/* An H100-like GPU with the given efficiencies and no launch cost. */
static void
gpu(struct gpu_spec *g, double ge, double ae, double me)
{
	memset(g, 0, sizeof(*g));
	g->name = "test";
	g->mem_bytes = (int64_t)80 << 30;
	g->tflops16 = 989;
	g->tflops32 = 67;
	g->mem_gb_s = 3350;
	g->gemm_eff = ge;
	g->attn_eff = ae;
	g->mem_eff = me;
}

static void
test_classes(void)
{
	CHECK_INT_EQ(prof_kernel_class("k_norm_fwd"), ANALYTIC_VEC);
	CHECK_INT_EQ(prof_kernel_class("_Z10k_norm_fwdI13__nv_bfloat16EvPT_"),
		     ANALYTIC_VEC);
	CHECK_INT_EQ(prof_kernel_class("void k_flash_fwd<__half, 64>(...)"),
		     ANALYTIC_ATTN);
	CHECK_INT_EQ(prof_kernel_class("_Z11k_flash_bwdI6__halfLi64EEv"),
		     ANALYTIC_ATTN);
	CHECK_INT_EQ(prof_kernel_class("k_flash_dot"), ANALYTIC_VEC);
	CHECK_INT_EQ(prof_kernel_class("sm90_xmma_gemm_bf16bf16_bf16f32_f32_"
				       "tn_n_segment_k_off_kernel"),
		     ANALYTIC_GEMM);
	CHECK_INT_EQ(prof_kernel_class("nvjet_tst_128x256_64x4_2x1_v_bz"),
		     ANALYTIC_GEMM);
	CHECK_INT_EQ(prof_kernel_class("emu_cublasLt_gemm_bias"),
		     ANALYTIC_GEMM);
}

/* The classes of every point add up to its forward + backward time. */
static void
test_split(void)
{
	static const int mb[] = {1, 4};
	struct model m;
	struct gpu_spec g;
	struct profile p;
	double cls[6][ANALYTIC_NCLASS];
	int ok = 1;

	model(&m, 1);
	gpu(&g, 0.7, 0.5, 0.8);
	profile_init(&p);
	CHECK(analytic_profile_classes(&p, &m, &g, mb, 2, 1, cls) == 0);
	for (int l = 0; l < 3; l++)
		for (int k = 0; k < 2; k++) {
			const double *c = cls[l * 2 + k];
			const struct prof_point *pt = &p.layers[l].pt[k];
			double t = pt->fwd_ms + pt->bwd_ms;

			ok &= fabs(c[0] + c[1] + c[2] - t) <= 1e-9 * t;
		}
	CHECK_MSG(ok, "classes add up to forward + backward, every point");
	CHECK(cls[2][ANALYTIC_GEMM] > 0 && cls[2][ANALYTIC_ATTN] > 0);
	CHECK(cls[0][ANALYTIC_GEMM] == 0 && cls[0][ANALYTIC_ATTN] == 0);
	profile_release(&p);
}

/* Read efficiency.key of a calibration report. */
static double
eff(const char *path, const char *key)
{
	struct yml_doc d;
	yaml_node_t *e;
	double v = -1;

	if (yml_load_file(&d, path))
		return -1;
	e = yml_get(&d, yml_root(&d), "efficiency");
	if (e)
		yml_to_dbl(&d, yml_get(&d, e, key), &v, 0, 10);
	yml_release(&d);
	return v;
}

/*
 * Measure with the analytic model at efficiencies (0.4, 0.3, 0.6), write
 * the breakdown those times imply (one kernel per class, names as the
 * profiler sees them), calibrate against (0.8, 0.6, 0.9).
 */
static void
round_trip(int flash)
{
	/* from 4 sequences on, every GEMM is compute-bound under both */
	static const int mb[] = {4, 8, 16};
	static const char *const names[] = {
		"sm90_xmma_gemm_bf16bf16", "_Z11k_flash_fwdI6__halfLi64EEv",
		"_Z10k_norm_fwdI6__halfEvPT_"
	};
	struct model m;
	struct gpu_spec truth, cat;
	struct profile meas;
	double cls[9][ANALYTIC_NCLASS];
	char kpath[] = "/tmp/pd2bw-kernels-XXXXXX";
	char rpath[] = "/tmp/pd2bw-calib-XXXXXX";
	char what[128];
	FILE *f;
	int fd;

	model(&m, flash);
	gpu(&truth, 0.4, 0.3, 0.6);
	gpu(&cat, 0.8, 0.6, 0.9);
	profile_init(&meas);
	CHECK(analytic_profile_classes(&meas, &m, &truth, mb, 3, 1, cls) ==
	      0);
	fd = mkstemp(kpath);
	close(mkstemp(rpath));
	f = fdopen(fd, "w");
	fprintf(f, "format: pd2bw-kernels/1\nkernels:\n");
	fprintf(f, "- {layer: (none), microbatch: 0, pass: forward, "
		"name: k_init, calls: 9, total_us: 12345}\n");
	for (int l = 0; l < 3; l++)
		for (int k = 0; k < 3; k++)
			for (int c = 0; c < ANALYTIC_NCLASS; c++)
				if (cls[l * 3 + k][c] > 0)
					fprintf(f, "- {layer: %s, microbatch: "
						"%d, pass: forward, name: %s, "
						"calls: 3, total_us: %.17g}\n",
						meas.layers[l].name, mb[k],
						names[c],
						1e3 * cls[l * 3 + k][c]);
	fclose(f);
	{
		struct gpu_spec fit;

		CHECK(prof_calibrate(&meas, &m, &cat, kpath, rpath, &fit) ==
		      0);
		CHECK(fabs(fit.gemm_eff - 0.4) < 1e-6 &&
		      fabs(fit.mem_eff - 0.6) < 1e-6 &&
		      fit.tflops16 == cat.tflops16);
	}
	snprintf(what, sizeof(what), "%s: gemm_eff 0.4 back",
		 flash ? "flash" : "unfused");
	CHECK_MSG(fabs(eff(rpath, "gemm_eff") - 0.4) < 1e-6, what);
	snprintf(what, sizeof(what), "%s: mem_eff 0.6 back",
		 flash ? "flash" : "unfused");
	CHECK_MSG(fabs(eff(rpath, "mem_eff") - 0.6) < 1e-6, what);
	if (flash)
		CHECK_MSG(fabs(eff(rpath, "attn_eff") - 0.3) < 1e-6,
			  "flash: attn_eff 0.3 back");
	/* without the breakdown: one scale, between the true factors */
	CHECK(prof_calibrate(&meas, &m, &cat, NULL, rpath, NULL) == 0);
	CHECK(eff(rpath, "gemm_eff") > 0.4 && eff(rpath, "mem_eff") < 0.6);
	unlink(kpath);
	unlink(rpath);
	profile_release(&meas);
}

/* A breakdown that is not one names file:line:col. */
static void
test_bad_file(void)
{
	static const int mb[] = {1};
	char kpath[] = "/tmp/pd2bw-kernels-XXXXXX";
	struct model m;
	struct gpu_spec g;
	struct profile meas;
	FILE *f;

	model(&m, 1);
	gpu(&g, 0.5, 0.5, 0.5);
	profile_init(&meas);
	analytic_profile(&meas, &m, &g, mb, 1, 1);
	f = fdopen(mkstemp(kpath), "w");
	fprintf(f, "format: pd2bw-kernels/1\nkernels:\n"
		"- {layer: block, microbatch: 1, pass: sideways, name: x, "
		"calls: 1, total_us: 1}\n");
	fclose(f);
	{
		char *got, opath[64];
		int r;

		/* never an output over a device: a name that must not appear */
		snprintf(opath, sizeof(opath), "%s.out", kpath);
		cap_begin();
		r = prof_calibrate(&meas, &m, &g, kpath, opath, NULL);
		CHECK_MSG(access(opath, F_OK) != 0,
			  "a failed calibration writes no output");
		got = cap_end();
		CHECK_MSG(r == -1 && strstr(got, kpath) && strstr(got, ":3:") &&
			  strstr(got, "sideways"),
			  "a bad pass names file:line:col and the value");
		free(got);
	}
	unlink(kpath);
	profile_release(&meas);
}

int
main(void)
{
	(void)h_skip;
	test_classes();
	test_split();
	round_trip(1);
	round_trip(0);
	test_bad_file();
	return h_done();
}
