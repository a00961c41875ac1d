/*
 * gpu_dl.c - the cuda backend as the program sees it: a loader.  The
 * backend itself (gpu.cu, linked with cuBLASLt, the CUDA runtime and
 * CUPTI) is the shared object pd2bw-cuda.so, opened with dlopen only when
 * --backend cuda, --gemm or --check-only asks for it; the analytic and cpu
 * backends never map those libraries (cuBLASLt alone reserves about
 * 700 MB of address space, so under `ulimit -v 500000` a program linked
 * with it died before main).
 *
 * The object is $PD2BW_CUDA_LIB when set, else pd2bw-cuda.so next to the
 * program (the build tree), else PD2BW_LIBDIR/pd2bw-cuda.so (installed).
 * A build without nvcc has no object of its own and says "built without
 * CUDA", as the stub it replaces did, unless PD2BW_CUDA_LIB names one.
 * The object defines prof_gpu_available, prof_gpu_selftest,
 * prof_gpu_gemm_bench and prof_cuda_backend (gpu.h, measure.h); it is
 * linked with -Bsymbolic, so its own calls stay inside it although this
 * program defines the same names.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pd2bw/error.h"
#include "gpu.h"

#ifndef PD2BW_LIBDIR
#define PD2BW_LIBDIR "/usr/local/lib/pd2bw"
#endif
#define CUDA_SO "pd2bw-cuda.so"

static struct {
	int tried, ok;
	char why[512];
	int (*available)(char *, size_t);
	int (*selftest)(void (*)(int, const char *, void *), void *);
	int (*gemm_bench)(const struct prof_opts *, const int64_t *,
			  struct prof_gemm_rate *);
	const struct prof_backend *be;
} so;

/* dlsym into a function pointer without the object/function cast ISO C
 * leaves undefined: copy the pointer's bytes. */
static int
sym(void *h, const char *name, void *fnp, size_t size)
{
	void *p = dlsym(h, name);

	if (!p)
		return -1;
	memcpy(fnp, &p, size);
	return 0;
}

/* Try path; 0, or -1 with the reason in so.why. */
static int
try_open(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	const char *e;

	if (!h) {
		e = dlerror();
		snprintf(so.why, sizeof(so.why), "cannot load '%s': %s", path,
			 e ? e : "unknown error");
		return -1;
	}
	so.be = dlsym(h, "prof_cuda_backend");
	if (sym(h, "prof_gpu_available", &so.available,
		sizeof(so.available)) ||
	    sym(h, "prof_gpu_selftest", &so.selftest, sizeof(so.selftest)) ||
	    sym(h, "prof_gpu_gemm_bench", &so.gemm_bench,
		sizeof(so.gemm_bench)) ||
	    !so.be) {
		snprintf(so.why, sizeof(so.why),
			 "'%s' is not a pd2bw cuda backend (missing symbols)",
			 path);
		dlclose(h);
		return -1;
	}
	return 0; /* kept open until exit */
}

/* Load the backend once; 0, or -1 with the reason in so.why. */
static int
load(void)
{
	const char *env = getenv("PD2BW_CUDA_LIB");
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if (so.tried)
		return so.ok ? 0 : -1;
	so.tried = 1;
	if (env && *env) {
		so.ok = try_open(env) == 0;
		return so.ok ? 0 : -1;
	}
#ifdef PD2BW_HAVE_CUDA
	n = readlink("/proc/self/exe", exe, sizeof(exe) - sizeof(CUDA_SO));
	if (n > 0 && (size_t)n < sizeof(exe) - sizeof(CUDA_SO)) {
		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash) {
			strcpy(slash + 1, CUDA_SO);
			if (access(exe, F_OK) == 0) {
				so.ok = try_open(exe) == 0;
				return so.ok ? 0 : -1;
			}
		}
	}
	so.ok = try_open(PD2BW_LIBDIR "/" CUDA_SO) == 0;
	return so.ok ? 0 : -1;
#else
	(void)exe;
	(void)slash;
	(void)n;
	snprintf(so.why, sizeof(so.why), "built without CUDA");
	return -1;
#endif
}

int
prof_gpu_available(char *why, size_t n)
{
	if (load()) {
		snprintf(why, n, "%s", so.why);
		return 0;
	}
	return so.available(why, n);
}

int
prof_gpu_selftest(void (*report)(int ok, const char *what, void *arg),
		  void *arg)
{
	if (load())
		return pd2bw_error("%s", so.why);
	return so.selftest(report, arg);
}

int
prof_gpu_gemm_bench(const struct prof_opts *o, const int64_t mkn[3],
		    struct prof_gemm_rate *r)
{
	if (load()) {
#ifndef PD2BW_HAVE_CUDA
		if (!getenv("PD2BW_CUDA_LIB"))
			return pd2bw_error("--gemm: built without CUDA "
					   "(rebuild with nvcc on PATH)");
#endif
		return pd2bw_error("--gemm: %s", so.why);
	}
	return so.gemm_bench(o, mkn, r);
}

/* ---- the backend: each call goes to the loaded one ---- */

static int
dl_open(void **ctx, const struct prof_opts *o, struct profile *p)
{
	*ctx = NULL;
	if (load()) {
#ifndef PD2BW_HAVE_CUDA
		if (!getenv("PD2BW_CUDA_LIB"))
			return pd2bw_error("cuda backend: built without CUDA "
					   "(rebuild with nvcc on PATH)");
#endif
		return pd2bw_error("cuda backend: %s", so.why);
	}
	return so.be->open(ctx, o, p);
}

static void
dl_close(void *ctx)
{
	if (so.ok)
		so.be->close(ctx);
}

static int
dl_check(void *ctx, const struct model *m, const struct prof_graph *g)
{
	return so.be->check ? so.be->check(ctx, m, g) : 0;
}

static int
dl_layer_new(void *ctx, const struct prof_graph *g, int layer, int64_t b,
	     void **inst)
{
	return so.be->layer_new(ctx, g, layer, b, inst);
}

static void
dl_layer_free(void *ctx, void *inst)
{
	so.be->layer_free(ctx, inst);
}

static int
dl_time(void *ctx, void *inst, struct prof_times *t)
{
	return so.be->time(ctx, inst, t);
}

static int
dl_step(void *ctx, void **insts, int n, double *ms)
{
	return so.be->step(ctx, insts, n, ms);
}

static int64_t
dl_stash(void *ctx, void *inst)
{
	return so.be->stash ? so.be->stash(ctx, inst) : -1;
}

static void
dl_mem(void *ctx, int reset, int64_t *by_tag, int64_t *pool)
{
	int i;

	if (so.be->mem) {
		so.be->mem(ctx, reset, by_tag, pool);
		return;
	}
	/* the caller asked a backend with an allocator; this one has none */
	if (!reset) {
		for (i = 0; by_tag && i < PROF_MEM_NTAGS; i++)
			by_tag[i] = 0;
		if (pool)
			*pool = -1;
	}
}

const struct prof_backend prof_cuda_backend = {
	"cuda", dl_open, dl_close, dl_check, dl_layer_new, dl_layer_free,
	dl_time, dl_step, dl_stash, dl_mem,
};
