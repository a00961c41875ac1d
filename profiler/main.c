/*
 * main.c - pd2bw-profile: options, usage and exit status of the per-layer
 * profiler (backends cuda, cpu and analytic; --calibrate).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pd2bw/afile.h"
#include "pd2bw/analytic.h"
#include "pd2bw/catalog.h"
#include "pd2bw/cli.h"
#include "pd2bw/datadir.h"
#include "pd2bw/error.h"
#include "pd2bw/infile.h"
#include "pd2bw/model.h"
#include "pd2bw/profile.h"
#include "calibrate.h"
#include "gpu.h"
#include "measure.h"

#define MAX_LIST 64

enum {
	OPT_GPUS = 256, OPT_NO_CHECK, OPT_NO_CUPTI, OPT_STEP, OPT_FLUSH_L2,
	OPT_KERNELS, OPT_TRACE, OPT_NAME, OPT_CALIBRATE, OPT_LIST_GPUS,
	OPT_GEMM, OPT_ATTENTION, OPT_ATTN_KERNEL, OPT_GPUS_OUT, OPT_CHECK_ONLY,
	OPT_FUSIONS, OPT_FP8_RECIPE
};

static const struct option options[] = {
	{"backend", required_argument, NULL, 'b'},
	{"gpu", required_argument, NULL, 'g'},
	{"gpus", required_argument, NULL, OPT_GPUS},
	{"list-gpus", no_argument, NULL, OPT_LIST_GPUS},
	{"microbatches", required_argument, NULL, 'm'},
	{"tp", required_argument, NULL, 't'},
	{"precision", required_argument, NULL, 'p'},
	{"device", required_argument, NULL, 'd'},
	{"warmup", required_argument, NULL, 'w'},
	{"repeats", required_argument, NULL, 'r'},
	{"no-check", no_argument, NULL, OPT_NO_CHECK},
	{"check-only", no_argument, NULL, OPT_CHECK_ONLY},
	{"no-cupti", no_argument, NULL, OPT_NO_CUPTI},
	{"step", no_argument, NULL, OPT_STEP},
	{"flush-l2", no_argument, NULL, OPT_FLUSH_L2},
	{"kernels", required_argument, NULL, OPT_KERNELS},
	{"trace", required_argument, NULL, OPT_TRACE},
	{"name", required_argument, NULL, OPT_NAME},
	{"calibrate", required_argument, NULL, OPT_CALIBRATE},
	{"gpus-out", required_argument, NULL, OPT_GPUS_OUT},
	{"gemm", required_argument, NULL, OPT_GEMM},
	{"attention", required_argument, NULL, OPT_ATTENTION},
	{"attention-kernel", required_argument, NULL, OPT_ATTN_KERNEL},
	{"fusions", required_argument, NULL, OPT_FUSIONS},
	{"fp8-recipe", required_argument, NULL, OPT_FP8_RECIPE},
	{"output", required_argument, NULL, 'o'},
	{"verbose", no_argument, NULL, 'v'},
	{"quiet", no_argument, NULL, 'q'},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

static const char usage_line[] =
	"usage: %s [-b cuda|cpu|analytic] [-g GPU] [-m LIST] [-t LIST] "
	"[-o FILE] MODEL\n"
	"       %s --gemm=N|MxKxN,... [-p P] [-g GPU] [-d N] [-w N] [-r N]\n";

static void
usage(void)
{
	printf(usage_line, pd2bw_progname, pd2bw_progname);
	printf("Measure or estimate forward and backward time and memory of "
	       "every layer of\nMODEL (pd2bw-model YAML or Hugging Face "
	       "config.json) and write a profile.\n\n"
	       "  -b, --backend=NAME     cuda (a GPU), cpu (reference C "
	       "code) or analytic\n"
	       "                         (default: analytic with --gpu, "
	       "else cuda)\n"
	       "  -g, --gpu=NAME         catalog GPU for analytic and "
	       "--calibrate\n"
	       "      --gpus=FILE        add the GPUs of a pd2bw-gpus/1 "
	       "file to the catalog\n"
	       "      --list-gpus        write the GPU catalog and exit\n"
	       "  -m, --microbatches=LIST  sizes, e.g. 1,2,4 (default: "
	       "1,2,4,...,64; cpu: 1,2)\n"
	       "  -t, --tp=LIST          tensor-parallel degrees (default: "
	       "1); several need -o\n"
	       "  -p, --precision=P      bf16, fp16, fp32, fp8 or nvfp4 (the "
	       "last two analytic\n"
	       "                         only; default: the model's, cpu: "
	       "fp32)\n"
	       "  -d, --device=N         CUDA device index (default: 0)\n"
	       "  -w, --warmup=N         untimed runs first (default: cuda "
	       "3, cpu 1)\n"
	       "  -r, --repeats=N        timed runs, median reported "
	       "(default: cuda 10, cpu 3)\n"
	       "      --attention=KIND   fused (flash) or unfused attention "
	       "(default: the model's)\n"
	       "      --attention-kernel=K  analytic: native (the GPU's own "
	       "fused kernel)\n"
	       "                         fa2 (FlashAttention-2 class), "
	       "triton or fp8\n"
	       "      --fusions=LIST     analytic: kernels fused, of act, "
	       "dropadd, rope, xent;\n"
	       "                         all or none (default: all)\n"
	       "      --fp8-recipe=R     analytic, fp8: delayed, tensorwise, "
	       "blockwise or mxfp8\n"
	       "                         (default: delayed)\n"
	       "      --no-check         skip the kernel checks against the "
	       "CPU reference\n"
	       "      --check-only       run only those checks (-v lists "
	       "them) and write nothing\n"
	       "      --no-cupti         time with CUDA events alone\n"
	       "      --step             also time whole training steps "
	       "against the layer sum\n"
	       "      --flush-l2         flush the L2 cache before each "
	       "timed run\n"
	       "      --kernels=FILE     write the per-kernel breakdown to "
	       "FILE (cuda: CUPTI's;\n"
	       "                         analytic: the estimate's); with "
	       "--calibrate, read it\n"
	       "                         to fit each efficiency apart\n"
	       "      --trace=FILE       write the measured timeline as "
	       "Chrome trace JSON\n"
	       "      --name=NAME        device name written in the "
	       "profile\n"
	       "      --calibrate=PROFILE  compare a measured PROFILE with "
	       "the analytic estimate\n"
	       "                         for --gpu and write the "
	       "calibration report\n"
	       "      --gpus-out=FILE    with --calibrate, also write --gpu "
	       "with the fitted\n"
	       "                         factors as a pd2bw-gpus/1 file for "
	       "--gpus and pd2bw-plan\n"
	       "      --gemm=N|MxKxN,... time GEMMs on the GPU (no MODEL): "
	       "N x N x N, or M\n"
	       "                         tokens by K inputs by N outputs; "
	       "each against the\n"
	       "                         catalog's peak and the cost model "
	       "(--gpu, or the\n"
	       "                         device's name); -b analytic -g GPU: "
	       "the model's\n"
	       "                         alone, fp8 and nvfp4 too\n"
	       "  -o, --output=FILE      write to FILE (default: standard "
	       "output)\n"
	       "  -v, --verbose          per-layer times and spreads on "
	       "standard error\n"
	       "  -q, --quiet            no progress bar\n"
	       "  -h, --help             show this help and exit\n"
	       "  -V, --version          show the version and exit\n\n"
	       "MODEL may be a zoo name (gpt2-xl, llama3-8b, ...) or a "
	       "Hugging Face model\ndirectory holding config.json.\n\n"
	       "Examples:\n"
	       "  %s -b analytic -g A100-80GB gpt-3.8b -o p.yaml\n"
	       "  %s -b cuda -m 1,2,4,8 gpt2-xl -o gpt2-xl.yaml   "
	       "(on the GPU)\n"
	       "  %s -b cpu -m 1 gpt2-xl -o cpu.yaml              "
	       "(this CPU)\n"
	       "  %s --gemm 8192 -g H200\n\n"
	       "Exit status: 0 success, 1 error, 2 usage error.\n",
	       pd2bw_progname, pd2bw_progname, pd2bw_progname,
	       pd2bw_progname);
}

static int
parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

/* "1,2,4": strictly increasing positive integers. */
static int
parse_list(const char *s, int *out, int *n, int hi)
{
	char *end;
	long v;

	*n = 0;
	for (;;) {
		errno = 0;
		v = strtol(s, &end, 10);
		if (errno || end == s || v < 1 || v > hi || *n >= MAX_LIST ||
		    (*n && v <= out[*n - 1]))
			return -1;
		out[(*n)++] = (int)v;
		if (!*end)
			return 0;
		if (*end != ',')
			return -1;
		s = end + 1;
	}
}

/*
 * --gemm's shapes: "N" (N x N x N, 16 to 65536) or "MxKxN" (each 1 to
 * 2^20), comma-separated, at most MAX_LIST.  Returns the count or -1.
 */
static int
parse_gemms(const char *s, int64_t (*mkn)[3])
{
	int n = 0, d;
	char *end;
	long v;

	for (;;) {
		if (n >= MAX_LIST)
			return -1;
		for (d = 0; d < 3; d++) {
			errno = 0;
			v = strtol(s, &end, 10);
			if (errno || end == s || v < 1 || v > 1048576)
				return -1;
			mkn[n][d] = v;
			s = end + 1;
			if (*end != 'x')
				break;
		}
		if (d == 0 && v >= 16 && v <= 65536)
			mkn[n][1] = mkn[n][2] = v;
		else if (d != 2)
			return -1;
		n++;
		if (!*end)
			return n;
		if (*end != ',')
			return -1;
	}
}

/* path with "-tpN" before its extension, for several --tp values. */
static char *
tp_path(const char *path, int tp)
{
	const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
	size_t n = strlen(path) + 32, stem;
	char *s = xmalloc(n);

	if (!dot || (slash && dot < slash))
		dot = path + strlen(path);
	stem = (size_t)(dot - path);
	snprintf(s, n, "%.*s-tp%d%s", (int)stem, path, tp, dot);
	return s;
}

/*
 * --gemm: the rate of one GEMM against the catalog's peak of spec, or of
 * the catalog entry the device's name ends with, and the time the cost
 * model gives the same GEMM there.
 */
static int
gemm_rate(struct prof_opts *o, const int64_t mkn[3],
	  const struct gpu_catalog *cat, const struct gpu_spec *spec)
{
	struct prof_gemm_rate r;
	int fp32 = o->precision == MODEL_FP32;
	double peak, model;
	const char *sp;

	if (prof_gpu_gemm_bench(o, mkn, &r))
		return -1;
	/* "NVIDIA H200" -> "H200", when -g did not say */
	for (sp = r.device; !spec && sp; sp = strchr(sp + 1, ' '))
		spec = catalog_find(cat, *sp == ' ' ? sp + 1 : sp);
	printf("gemm %lldx%lldx%lld %s on %s: %.4f ms (spread %.2f%%), "
	       "%.1f TFLOP/s", (long long)mkn[0], (long long)mkn[1],
	       (long long)mkn[2], model_prec_names[o->precision], r.device,
	       r.ms, 100 * r.spread, r.tflops);
	peak = !spec ? 0 : fp32 ? spec->tflops32 : spec->tflops16;
	if (peak > 0) {
		model = analytic_gemm_ms(spec, fp32, (double)mkn[0],
					 (double)mkn[1], (double)mkn[2]);
		printf(", %.1f%% of the %s's %s peak (%.0f TFLOP/s); "
		       "model %.4f ms (%+.1f%%)", 100 * r.tflops / peak,
		       spec->name, fp32 ? "fp32" : "dense 16-bit", peak,
		       model, r.ms > 0 ? 100 * (model - r.ms) / r.ms : 0);
	}
	printf("\n");
	return 0;
}

/*
 * --gemm with the analytic backend: what the cost model gives one GEMM on
 * spec at precision prec, alone (pre-quantised operands) and, in FP8 or
 * NVFP4, in a Transformer Engine linear layer's forward that quantises its
 * input and weight on the call (what Transformer Engine's GEMM benchmark
 * times as autocast).
 */
static void
gemm_model(const int64_t mkn[3], const struct gpu_spec *spec, int prec,
	   int recipe)
{
	double m = (double)mkn[0], k = (double)mkn[1], n = (double)mkn[2];
	double raw = analytic_linear_ms(spec, prec, recipe, m, k, n, 0);
	double tf = raw > 0 ? 2 * m * k * n / (raw * 1e-3) / 1e12 : 0;

	printf("gemm %lldx%lldx%lld %s", (long long)mkn[0],
	       (long long)mkn[1], (long long)mkn[2], model_prec_names[prec]);
	if (prec == MODEL_FP8)
		printf(" (%s)", model_fp8_names[recipe]);
	printf(" on %s, the model: %.4f ms, %.1f TFLOP/s", spec->name, raw,
	       tf);
	if (model_prec_quantised(prec))
		printf("; quantising input and weight on the call %.4f ms",
		       analytic_linear_ms(spec, prec, recipe, m, k, n, 1));
	printf("\n");
}

/*
 * The cuda backend needs a device: without one, say which backends work
 * on this machine instead.  Returns 0 or -1.
 */
static int
cuda_here(const char *what)
{
	char why[256];

	if (prof_gpu_available(why, sizeof(why)))
		return 0;
	return pd2bw_error("%s: %s; backends that work on this machine: -b "
			   "cpu (times this CPU) or -b analytic -g GPU (an "
			   "estimate for a GPU of the catalog, see "
			   "--list-gpus)", what, why);
}

static int
write_out(const struct profile *p, const char *out, int ntp)
{
	char *path;
	int ret;

	if (ntp == 1)
		return profile_write(p, out);
	path = tp_path(out, p->tp);
	ret = profile_write(p, path);
	free(path);
	return ret;
}

int
main(int argc, char **argv)
{
	struct prof_opts o;
	struct gpu_catalog cat;
	struct model m;
	const char *backend = NULL, *gpu = NULL, *gpus = NULL, *out = "-";
	const char *calibrate = NULL, *trace = NULL, *gpus_out = NULL, *path;
	int mb[MAX_LIST], nmb = 0, tps[MAX_LIST], ntp = 1, prec = -1;
	int fp8_recipe = -1;
	int64_t gemm_mkn[MAX_LIST][3];
	int list_gpus = 0, quiet = 0, c, i, ret = 1, gemm_n = 0, flash = -1;
	struct analytic_opts ao;
	const struct gpu_spec *spec = NULL;
	char model_buf[4096], why[256];

	pd2bw_set_progname(argv[0]);
	afile_stdout_setup();
	infile_keep(1); /* each input read once: FIFOs and pipes work */
	memset(&o, 0, sizeof(o));
	analytic_opts_init(&ao);
	o.warmup = o.repeats = -1;
	o.check = o.cupti = 1;
	tps[0] = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":b:g:m:t:p:d:w:r:o:vqhV",
				options, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (strcmp(optarg, "cuda") && strcmp(optarg, "cpu") &&
			    strcmp(optarg, "analytic"))
				cli_usage_error("unknown backend '%s' (expected "
					    "cuda, cpu or analytic)", optarg);
			backend = optarg;
			break;
		case 'g':
			gpu = optarg;
			break;
		case OPT_GPUS:
			gpus = optarg;
			break;
		case OPT_LIST_GPUS:
			list_gpus = 1;
			break;
		case 'm':
			if (parse_list(optarg, mb, &nmb, 1 << 20))
				cli_usage_error("invalid microbatch list '%s' "
					    "(expected increasing sizes like "
					    "1,2,4)", optarg);
			break;
		case 't':
			if (parse_list(optarg, tps, &ntp, 1024))
				cli_usage_error("invalid tensor-parallel list "
					    "'%s' (expected e.g. 1,2,4,8)",
					    optarg);
			break;
		case 'p':
			for (prec = 0; model_prec_names[prec]; prec++)
				if (!strcmp(optarg, model_prec_names[prec]))
					break;
			if (!model_prec_names[prec])
				cli_usage_error("unknown precision '%s' (expected "
					    "bf16, fp16, fp32, fp8 or nvfp4)",
					    optarg);
			break;
		case 'd':
			if (parse_int(optarg, 0, 1024, &o.device))
				cli_usage_error("invalid device index '%s'",
					    optarg);
			break;
		case 'w':
			if (parse_int(optarg, 0, 1000000, &o.warmup))
				cli_usage_error("invalid warm-up count '%s'",
					    optarg);
			break;
		case 'r':
			if (parse_int(optarg, 1, 1000000, &o.repeats))
				cli_usage_error("invalid repeat count '%s'",
					    optarg);
			break;
		case OPT_NO_CHECK:
			o.check = 0;
			break;
		case OPT_CHECK_ONLY:
			o.check_only = 1;
			break;
		case OPT_NO_CUPTI:
			o.cupti = 0;
			break;
		case OPT_STEP:
			o.step = 1;
			break;
		case OPT_FLUSH_L2:
			o.flush_l2 = 1;
			break;
		case OPT_KERNELS:
			o.kernels_path = optarg;
			break;
		case OPT_TRACE:
			trace = optarg;
			break;
		case OPT_NAME:
			o.name = optarg;
			break;
		case OPT_CALIBRATE:
			calibrate = optarg;
			break;
		case OPT_ATTENTION:
			if (!strcmp(optarg, "fused"))
				flash = 1;
			else if (!strcmp(optarg, "unfused"))
				flash = 0;
			else
				cli_usage_error("unknown attention '%s' (expected "
					    "fused or unfused)", optarg);
			break;
		case OPT_ATTN_KERNEL:
			ao.attn = cli_name("--attention-kernel", optarg,
					   analytic_attn_names);
			break;
		case OPT_FP8_RECIPE:
			fp8_recipe = cli_name("--fp8-recipe", optarg,
					      model_fp8_names);
			break;
		case OPT_FUSIONS:
			if (analytic_fusions_parse(optarg, &ao.fusions))
				cli_usage_error("invalid --fusions '%s'", optarg);
			break;
		case OPT_GPUS_OUT:
			gpus_out = optarg;
			break;
		case OPT_GEMM:
			if ((gemm_n = parse_gemms(optarg, gemm_mkn)) < 0)
				cli_usage_error("invalid --gemm '%s' (expected N "
					    "from 16 to 65536 or MxKxN from 1 "
					    "to 1048576, comma-separated)",
					    optarg);
			break;
		case 'o':
			out = optarg;
			break;
		case 'v':
			o.verbose = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage();
			return afile_close_stdout() ? 1 : 0;
		case 'V':
			printf("%s %s\n", pd2bw_progname, PD2BW_VERSION);
			return afile_close_stdout() ? 1 : 0;
		default:
			cli_option_error(c == ':' ? ':' : '?', argv);
		}
	}
	{
		/* an output over an input (or another output) would lose it */
		const struct cli_path paths[] = {
			{"MODEL", optind < argc ? argv[optind] : NULL, 0},
			{"--gpus", gpus, 0},
			{"--calibrate", calibrate, 0},
			{"--kernels", o.kernels_path, !calibrate},
			{"-o", out, 1},
			{"--trace", trace, 1},
			{"--gpus-out", gpus_out, 1},
		};

		cli_distinct_paths(paths, sizeof(paths) / sizeof(paths[0]));
	}

	catalog_init(&cat);
	model_init(&m);
	/* A bad output name is refused before a long measurement. */
	if (afile_check(out) || (trace && afile_check(trace)) ||
	    (gpus_out && afile_check(gpus_out)) ||
	    (o.kernels_path && !calibrate && afile_check(o.kernels_path))) {
		model_release(&m);
		catalog_release(&cat);
		return 1;
	}
	/* every output of the run is renamed into place together */
	afile_batch_begin();
	if (gpus && catalog_load(&cat, gpus))
		goto out;
	if (list_gpus) {
		ret = catalog_write(&cat, out) ? 1 : 0;
		goto out;
	}
	if (gemm_n) {
		if (optind != argc)
			cli_usage_error("%s", "--gemm takes no MODEL");
		if (backend && strcmp(backend, "cuda") &&
		    strcmp(backend, "analytic"))
			cli_usage_error("%s", "--gemm times the cuda backend's "
				    "GEMM or gives the analytic one's");
		if (backend && !strcmp(backend, "analytic") && !gpu)
			cli_usage_error("%s", "--gemm with the analytic backend "
				    "needs --gpu");
		if (model_prec_quantised(prec) &&
		    !(backend && !strcmp(backend, "analytic")))
			cli_usage_error("%s", "--gemm times bf16, fp16 or fp32 "
				    "GEMMs (-b analytic prices fp8 and nvfp4)");
		if (fp8_recipe >= 0 && prec != MODEL_FP8)
			cli_usage_error("%s", "--fp8-recipe goes with "
				    "--precision fp8");
		if (gpu && !(spec = catalog_find(&cat, gpu))) {
			pd2bw_error("unknown GPU '%s' (see %s --list-gpus)",
				    gpu, pd2bw_progname);
			goto out;
		}
		if (backend && !strcmp(backend, "analytic")) {
			if ((prec == MODEL_FP8 && spec->tflops8 <= 0) ||
			    (prec == MODEL_NVFP4 && spec->tflops4 <= 0)) {
				pd2bw_error("GPU '%s' has no %s tensor cores",
					    spec->name,
					    prec == MODEL_NVFP4 ? "NVFP4" : "FP8");
				goto out;
			}
			if (fp8_recipe == FP8_MXFP8 && !spec->mxfp8) {
				pd2bw_error("GPU '%s' has no MXFP8 tensor cores "
					    "(Blackwell)", spec->name);
				goto out;
			}
			for (i = 0; i < gemm_n; i++)
				gemm_model(gemm_mkn[i], spec,
					   prec >= 0 ? prec : MODEL_BF16,
					   fp8_recipe >= 0 ? fp8_recipe
							   : FP8_DELAYED);
			ret = 0;
			goto out;
		}
		if (!prof_gpu_available(why, sizeof(why))) {
			pd2bw_error("--gemm times a GPU's GEMM: %s; the "
				    "catalog's peak rates are in --list-gpus",
				    why);
			goto out;
		}
		o.precision = prec >= 0 ? prec : MODEL_BF16;
		o.warmup = o.warmup < 0 ? 3 : o.warmup;
		o.repeats = o.repeats < 0 ? 10 : o.repeats;
		for (i = 0, ret = 0; i < gemm_n && !ret; i++)
			ret = gemm_rate(&o, gemm_mkn[i], &cat, spec) ? 1 : 0;
		goto out;
	}
	if (optind != argc - 1)
		cli_usage_error("%s", optind < argc ? "too many arguments" :
			    "missing MODEL");
	if (!backend)
		backend = gpu || calibrate ? "analytic" : "cuda";
	if (ntp > 1 && !strcmp(out, "-"))
		cli_usage_error("%s", "several --tp values need -o FILE");
	if ((!strcmp(backend, "analytic") || calibrate) && trace)
		cli_usage_error("%s", "--trace needs a measuring backend (cuda "
			    "or cpu)");
	if (o.check_only && (!o.check || strcmp(backend, "cuda")))
		cli_usage_error("%s", "--check-only checks the cuda backend's "
			    "kernels (without --no-check)");
	if (gpus_out && !calibrate)
		cli_usage_error("%s", "--gpus-out goes with --calibrate");
	if ((!strcmp(backend, "analytic") || calibrate) && !gpu)
		cli_usage_error("%s", "the analytic backend needs --gpu NAME");
	if (!strcmp(backend, "cpu") && prec >= 0 && prec != MODEL_FP32)
		cli_usage_error("%s", "the cpu backend computes in fp32");
	/* FP8 and NVFP4 are priced, not measured: no backend here runs
	 * their GEMMs */
	if (model_prec_quantised(prec) &&
	    (strcmp(backend, "analytic") || calibrate))
		cli_usage_error("%s is estimated by the analytic backend "
				"only (-b analytic -g GPU); the cuda backend "
				"measures bf16, fp16 or fp32",
				model_prec_names[prec]);
	if (fp8_recipe >= 0 && prec != MODEL_FP8)
		cli_usage_error("%s", "--fp8-recipe goes with --precision fp8");
	if (fp8_recipe >= 0)
		ao.fp8_recipe = fp8_recipe;
	path = pd2bw_resolve_model(argv[optind], model_buf, sizeof(model_buf));
	if (!path || model_load(&m, path))
		goto out;
	/* what the profile counts and what the cuda backend runs */
	if (flash >= 0)
		m.flash_attention = flash;
	if (prec >= 0 && !strcmp(backend, "analytic"))
		m.precision = prec;
	if (gpu) {
		spec = catalog_find(&cat, gpu);
		if (!spec) {
			pd2bw_error("unknown GPU '%s' (see %s --list-gpus)",
				    gpu, pd2bw_progname);
			goto out;
		}
	}

	if (calibrate) {
		struct profile meas;

		struct gpu_spec fit;

		profile_init(&meas);
		ret = profile_load(&meas, calibrate) ||
		      prof_calibrate(&meas, &m, spec, o.kernels_path, out,
				     &fit) ? 1 : 0;
		if (!ret && gpus_out) {
			/* the same name, so loading it replaces the built-in
			   entry for the planner's presets too */
			struct gpu_catalog one = {&fit, 1, 1};
			size_t n = strlen(calibrate) + strlen(spec->name) + 64;
			char *src = xmalloc(n);

			snprintf(src, n, "%s calibrated by pd2bw-profile from "
				 "%s%s", spec->name, calibrate,
				 o.kernels_path ? " and its kernels" : "");
			fit.source = src;
			ret = catalog_write(&one, gpus_out) ? 1 : 0;
			free(src);
		}
		profile_release(&meas);
		goto out;
	}

	if (!strcmp(backend, "analytic")) {
		if (!nmb) {
			for (nmb = 0; nmb < analytic_default_nmb &&
				      nmb < MAX_LIST; nmb++)
				mb[nmb] = analytic_default_mb[nmb];
		}
		for (i = 0; i < ntp; i++) {
			struct profile p;
			struct analytic_par par;
			struct kernel_list ks;
			char *kpath = o.kernels_path && ntp > 1
					      ? tp_path(o.kernels_path, tps[i])
					      : NULL;
			int r;

			memset(&ks, 0, sizeof(ks));
			profile_init(&p);
			analytic_par_init(&par, tps[i], 0);
			r = analytic_profile_kernels(&p, &m, spec, mb, nmb,
						     &par, &ao,
						     o.kernels_path ? &ks
								    : NULL) ||
			    write_out(&p, out, ntp) ||
			    (o.kernels_path &&
			     kernels_write(kpath ? kpath : o.kernels_path, &p,
					   &ks, "analytic"));
			kernels_free(&ks);
			profile_release(&p);
			free(kpath);
			if (r)
				goto out;
		}
		ret = 0;
		goto out;
	}

	if (!strcmp(backend, "cuda") && cuda_here("cuda backend"))
		goto out;
	o.precision = prec >= 0 ? prec : m.precision;
	if (!strcmp(backend, "cpu"))
		o.precision = MODEL_FP32;
	if (!nmb) {
		if (!strcmp(backend, "cpu")) {
			mb[0] = 1;
			mb[1] = 2;
			nmb = 2;
		} else {
			for (nmb = 0; nmb < 7; nmb++)
				mb[nmb] = 1 << nmb;
		}
	}
	o.mb = mb;
	o.nmb = nmb;
	if (o.warmup < 0)
		o.warmup = strcmp(backend, "cpu") ? 3 : 1;
	if (o.repeats < 0)
		o.repeats = strcmp(backend, "cpu") ? 10 : 3;
	o.progress = !quiet && !o.verbose && isatty(2);
	for (i = 0; i < ntp; i++) {
		struct profile p;
		char *tpath = trace && ntp > 1 ? tp_path(trace, tps[i]) : NULL;
		int r;

		/* One timeline per tensor-parallel degree, named like -o's. */
		o.trace_path = tpath ? tpath : trace;
		profile_init(&p);
		r = prof_measure(strcmp(backend, "cpu") ? &prof_cuda_backend :
				 &prof_cpu_backend, &o, &m, tps[i], &p) ||
		    (!o.check_only && write_out(&p, out, ntp));
		profile_release(&p);
		free(tpath);
		if (r)
			goto out;
		/* the checks do not depend on the tensor-parallel degree */
		if (o.check_only)
			break;
	}
	ret = 0;
out:
	if (afile_batch_end(ret == 0) && ret == 0)
		ret = 1;
	model_release(&m);
	catalog_release(&cat);
	if (afile_close_stdout())
		ret = 1;
	return ret;
}
