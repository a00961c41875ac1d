/*
 * test_catalog.c - the built-in GPU catalog (figures, lookup), user GPU
 * files (load, override, round trip) and the exact message of every
 * rejected input.
 */
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "harness.h"
#include "pd2bw/catalog.h"
#include "pd2bw/error.h"

/* the built-in catalog's GPUs */
#define NBUILT 15

#define GIB 1073741824LL

/* tests/unit/test_catalog.c -> tests/data/catalog/NAME */
static void
data_path(char *buf, size_t len, const char *name)
{
	const char *f = __FILE__;
	const char *p = strstr(f, "unit/test_catalog.c");

	snprintf(buf, len, "%.*sdata/catalog/%s", (int)(p ? p - f : 0), f,
		 name);
}

static char stderr_buf[4096];

/* Load text as "bad.yaml" with stderr captured into stderr_buf. */
static int
load_captured(struct gpu_catalog *c, const char *text)
{
	FILE *tmp = tmpfile();
	int saved, ret;
	size_t n;

	if (!tmp)
		pd2bw_die("tmpfile failed");
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(tmp), 2);
	ret = catalog_load_string(c, "bad.yaml", text, strlen(text));
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(stderr_buf, 1, sizeof(stderr_buf) - 1, tmp);
	stderr_buf[n] = '\0';
	fclose(tmp);
	return ret;
}

static const char *const good_lines[] = {
	"format: pd2bw-gpus/1",     /* 1 */
	"gpus:",                    /* 2 */
	"  - name: X1",             /* 3 */
	"    memory_gib: 16",       /* 4 */
	"    tflops16: 100",        /* 5 */
	"    tflops32: 10",         /* 6 */
	"    memory_gb_s: 900",     /* 7 */
	"    nvlink_gb_s: 0",       /* 8 */
	"    pcie_gb_s: 16",        /* 9 */
	"    gemm_eff: 0.7",        /* 10 */
	"    attn_eff: 0.5",        /* 11 */
	"    mem_eff: 0.8",         /* 12 */
	"    kernel_us: 4",         /* 13 */
	NULL,
};

/*
 * The good document with line `line` (1-based) replaced by `repl` (NULL:
 * deleted) and `extra` appended.
 */
static const char *
doc(int line, const char *repl, const char *extra)
{
	static char buf[2048];
	int i;

	buf[0] = '\0';
	for (i = 0; good_lines[i]; i++) {
		const char *l = i + 1 == line ? repl : good_lines[i];

		if (!l)
			continue;
		strcat(buf, l);
		strcat(buf, "\n");
	}
	if (extra)
		strcat(buf, extra);
	return buf;
}

static void
expect_error(int line, const char *repl, const char *extra, const char *msg)
{
	struct gpu_catalog c;
	char want[512];
	size_t n;

	catalog_init(&c);
	n = c.n;
	snprintf(want, sizeof(want), "pd2bw: bad.yaml:%s\n", msg);
	if (!CHECK_MSG(load_captured(&c, doc(line, repl, extra)) == -1, msg))
		printf("#   loaded\n");
	CHECK_STR_EQ(stderr_buf, want);
	CHECK_INT_EQ(c.n, n);
	catalog_release(&c);
}

static void
test_builtin(void)
{
	struct gpu_catalog c;
	const struct gpu_spec *g;
	static const char *const names[] = {
		"V100-16GB", "V100-32GB", "A100-40GB", "A100-80GB",
		"H100-SXM",  "H200",      "B200",      "L40S",
		"GB200",     "GB300",     "B300",      "H800",
		"GH200",     "GH200-144GB", "H100-96GB-500W",
	};
	size_t i;

	catalog_init(&c);
	CHECK_INT_EQ(c.n, NBUILT);
	for (i = 0; i < NBUILT; i++) {
		g = catalog_find(&c, names[i]);
		CHECK_MSG(g && !strcmp(g->name, names[i]), names[i]);
		CHECK_MSG(g && g->source && strstr(g->source, "datasheet"),
			  "source cites a datasheet");
		CHECK_MSG(g && g->gemm_eff > 0 && g->gemm_eff <= 1 &&
				  g->attn_eff > 0 && g->attn_eff <= 1 &&
				  g->mem_eff > 0 && g->mem_eff <= 1,
			  "efficiencies in (0, 1]");
	}
	g = catalog_find(&c, "V100-16GB");
	CHECK_INT_EQ(g->mem_bytes, 16 * GIB);
	CHECK_NEAR(g->tflops16, 125, 0);
	CHECK_NEAR(g->tflops32, 15.7, 0);
	CHECK_NEAR(g->mem_gb_s, 900, 0);
	CHECK_NEAR(g->nvlink_gb_s, 150, 0);
	g = catalog_find(&c, "A100-80GB");
	CHECK_INT_EQ(g->mem_bytes, 80 * GIB);
	CHECK_NEAR(g->tflops16, 312, 0);
	CHECK_NEAR(g->mem_gb_s, 2039, 0);
	CHECK_NEAR(g->nvlink_gb_s, 300, 0);
	CHECK_NEAR(g->gemm_eff, 0.701, 0); /* bench/fit.sh */
	g = catalog_find(&c, "A100-40GB");
	CHECK_INT_EQ(g->mem_bytes, 40 * GIB);
	CHECK_NEAR(g->mem_gb_s, 1555, 0);
	g = catalog_find(&c, "H100-SXM");
	CHECK_NEAR(g->tflops16, 989.4, 0);
	CHECK_NEAR(g->mem_gb_s, 3350, 0);
	CHECK_NEAR(g->nvlink_gb_s, 450, 0);
	g = catalog_find(&c, "H200");
	CHECK_INT_EQ(g->mem_bytes, 141 * GIB);
	CHECK_NEAR(g->mem_gb_s, 4800, 0);
	g = catalog_find(&c, "B200");
	CHECK_NEAR(g->tflops16, 2250, 0);
	CHECK_NEAR(g->nvlink_gb_s, 900, 0);
	g = catalog_find(&c, "L40S");
	CHECK_NEAR(g->nvlink_gb_s, 0, 0);
	CHECK_INT_EQ(g->mem_bytes, 48 * GIB);
	/* GB200 NVL72's GPU at 1200 W; GB300's Blackwell Ultra */
	g = catalog_find(&c, "gb200");
	CHECK_INT_EQ(g->mem_bytes, 186 * GIB);
	CHECK_NEAR(g->tflops16, 2500, 0);
	CHECK_NEAR(g->tflops8, 5000, 0);
	CHECK_NEAR(g->mem_gb_s, 8000, 0);
	CHECK_INT_EQ(g->sms, 148);
	g = catalog_find(&c, "GB300");
	CHECK_INT_EQ(g->mem_bytes, 279 * GIB);
	CHECK_NEAR(g->tflops8, 5000, 0);
	CHECK_INT_EQ(g->sms, 160);
	/* HGX B300: the same die at HGX B200's peaks, GB300's efficiencies */
	g = catalog_find(&c, "b300");
	CHECK_INT_EQ(g->mem_bytes, 288 * GIB);
	CHECK_NEAR(g->tflops16, 2250, 0);
	CHECK_NEAR(g->tflops8, 4500, 0);
	CHECK_NEAR(g->pcie_gb_s, 128, 0);
	CHECK_INT_EQ(g->sms, 160);
	CHECK(g->mxfp8);
	CHECK_NEAR(g->gemm_eff8, catalog_find(&c, "GB300")->gemm_eff8, 0);
	CHECK_NEAR(g->gemm_eff, catalog_find(&c, "GB300")->gemm_eff, 0);
	/* Blackwell 16-bit GEMMs: the part's FP8 figure times Hopper's
	 * 16-bit / FP8 ratio, 0.564 / 0.550, to three decimals: 0.471 ->
	 * 0.483, 0.482 -> 0.494, 0.615 -> 0.631.  GB300's per-tensor FP8
	 * and B200's MXFP8 (no fit rows) take GB200's ratio of the two
	 * recipes, 0.482 / 0.475: 0.606 -> 0.615, 0.471 -> 0.464 */
	CHECK_NEAR(catalog_find(&c, "H100-SXM")->gemm_eff, 0.564, 0);
	CHECK_NEAR(catalog_find(&c, "H100-SXM")->gemm_eff8, 0.550, 0);
	CHECK_NEAR(catalog_find(&c, "B200")->gemm_eff, 0.483, 0);
	CHECK_NEAR(catalog_find(&c, "B200")->gemm_eff8, 0.471, 0);
	CHECK_NEAR(catalog_find(&c, "B200")->gemm_eff8mx, 0.464, 0);
	CHECK_NEAR(catalog_find(&c, "GB200")->gemm_eff, 0.494, 0);
	CHECK_NEAR(catalog_find(&c, "GB200")->gemm_eff8, 0.482, 0);
	CHECK_NEAR(catalog_find(&c, "GB200")->gemm_eff8mx, 0.475, 0);
	CHECK_NEAR(catalog_find(&c, "GB300")->gemm_eff, 0.631, 0);
	CHECK_NEAR(catalog_find(&c, "GB300")->gemm_eff8, 0.615, 0);
	CHECK_NEAR(catalog_find(&c, "GB300")->gemm_eff8mx, 0.606, 0);
	/* attention: the isolated fraction (cuDNN's, bench/attention.sh)
	 * times the part's 16-bit GEMM figure over isolated GEMMs' 0.70
	 * (TRAIN_ATTN), forward: H100 0.750 x 0.564 / 0.7 = 0.6043 ->
	 * 0.604, FlashAttention-2 0.35 -> 0.282; B200 0.710 x 0.483 / 0.7 =
	 * 0.4899 -> 0.490, GB200 0.501, GB300 0.843 x 0.631 / 0.7 = 0.7599
	 * -> 0.760; the 500 W part 0.750 x 0.538 / 0.7 = 0.5764 -> 0.576,
	 * FlashAttention-2 0.35 x 0.538 / 0.7 = 0.269;
	 * A100 as isolated */
	CHECK_NEAR(catalog_find(&c, "H100-SXM")->attn_eff, 0.604, 0);
	CHECK_NEAR(catalog_find(&c, "H100-SXM")->attn_eff_fa2, 0.282, 0);
	CHECK_NEAR(catalog_find(&c, "B200")->attn_eff, 0.490, 0);
	CHECK_NEAR(catalog_find(&c, "GB200")->attn_eff, 0.501, 0);
	CHECK_NEAR(catalog_find(&c, "GB300")->attn_eff, 0.760, 0);
	CHECK_NEAR(catalog_find(&c, "H100-96GB-500W")->attn_eff, 0.576, 0);
	CHECK_NEAR(catalog_find(&c, "H100-96GB-500W")->attn_eff_fa2, 0.269, 0);
	/* cuDNN's backward over its forward, and the floors of a score
	 * (bench/attention.sh), per die; none where FlashAttention-2 is
	 * the native kernel */
	CHECK_NEAR(catalog_find(&c, "H200")->attn_bwd, 0.825, 0);
	CHECK_NEAR(catalog_find(&c, "H200")->score_fwd, 330, 0);
	CHECK_NEAR(catalog_find(&c, "H200")->score_bwd, 800, 0);
	CHECK_NEAR(catalog_find(&c, "H100-96GB-500W")->score_bwd, 800, 0);
	CHECK_NEAR(catalog_find(&c, "GB200")->attn_bwd, 0.798, 0);
	CHECK_NEAR(catalog_find(&c, "GB200")->score_fwd, 460, 0);
	CHECK_NEAR(catalog_find(&c, "GB200")->score_bwd, 840, 0);
	CHECK_NEAR(catalog_find(&c, "B300")->attn_bwd, 0.745, 0);
	CHECK_NEAR(catalog_find(&c, "B300")->score_fwd, 490, 0);
	CHECK_NEAR(catalog_find(&c, "B300")->score_bwd, 890, 0);
	CHECK_NEAR(catalog_find(&c, "A100-80GB")->attn_bwd, 0, 0);
	/* FlashAttention-2's backward over its forward where the catalog
	 * times it apart (Hopper); none elsewhere */
	CHECK_NEAR(catalog_find(&c, "H100-SXM")->attn_bwd_fa2, 0.882, 0);
	CHECK_NEAR(catalog_find(&c, "H100-96GB-500W")->attn_bwd_fa2, 0.882, 0);
	CHECK_NEAR(catalog_find(&c, "GB200")->attn_bwd_fa2, 0, 0);
	CHECK_NEAR(catalog_find(&c, "A100-80GB")->attn_bwd_fa2, 0, 0);
	CHECK_NEAR(catalog_find(&c, "A100-80GB")->score_fwd, 0, 0);
	CHECK_NEAR(catalog_find(&c, "L40S")->score_bwd, 0, 0);
	CHECK_NEAR(catalog_find(&c, "A100-80GB")->attn_eff, 0.5, 0);
	/* cuDNN's block cost on the parts whose native attention is
	 * cuDNN's (bench/attention.sh); FlashAttention-2's (0: 1.4) else */
	CHECK_NEAR(catalog_find(&c, "H100-SXM")->attn_block, 3.9, 0);
	CHECK_NEAR(catalog_find(&c, "GH200")->attn_block, 3.9, 0);
	CHECK_NEAR(catalog_find(&c, "B200")->attn_block, 3.9, 0);
	CHECK_NEAR(catalog_find(&c, "GB300")->attn_block, 3.9, 0);
	CHECK_NEAR(catalog_find(&c, "A100-80GB")->attn_block, 0, 0);
	CHECK_NEAR(catalog_find(&c, "L40S")->attn_block, 0, 0);
	/* NVFP4: the datasheets' dense peaks; GB200 and GB300 fitted,
	 * B200 its FP8 figure times GB200's NVFP4 / FP8 ratio (0.471 x
	 * 0.488 / 0.482 = 0.4769 -> 0.477), B300 GB300's die */
	CHECK_NEAR(catalog_find(&c, "B200")->tflops4, 9000, 0);
	CHECK_NEAR(catalog_find(&c, "GB200")->tflops4, 10000, 0);
	CHECK_NEAR(catalog_find(&c, "GB300")->tflops4, 15000, 0);
	CHECK_NEAR(catalog_find(&c, "B300")->tflops4, 13500, 0);
	CHECK_NEAR(catalog_find(&c, "GB200")->gemm_eff4, 0.488, 0);
	CHECK_NEAR(catalog_find(&c, "GB300")->gemm_eff4, 0.370, 0);
	CHECK_NEAR(catalog_find(&c, "B300")->gemm_eff4, 0.370, 0);
	CHECK_NEAR(catalog_find(&c, "B200")->gemm_eff4, 0.477, 0);
	CHECK_NEAR(catalog_find(&c, "H100-SXM")->tflops4, 0, 0);

	/* the Hopper die elsewhere: H800's 8 NVLinks; GH200's HBM and its
	 * NVLink-C2C as the host link, 450 GB/s per direction */
	g = catalog_find(&c, "H800");
	CHECK_INT_EQ(g->mem_bytes, 80 * GIB);
	CHECK_NEAR(g->nvlink_gb_s, 200, 0);
	CHECK_NEAR(g->tflops8, 1978.9, 0);
	g = catalog_find(&c, "GH200");
	CHECK_INT_EQ(g->mem_bytes, 96 * GIB);
	CHECK_NEAR(g->mem_gb_s, 4000, 0);
	CHECK_NEAR(g->pcie_gb_s, 450, 0);
	CHECK_NEAR(g->nvlink_gb_s, 450, 0);
	CHECK_INT_EQ(g->sms, 132);
	g = catalog_find(&c, "GH200-144GB");
	CHECK_INT_EQ(g->mem_bytes, 144 * GIB);
	CHECK_NEAR(g->mem_gb_s, 4900, 0);
	for (i = 0; i < 3; i++) {
		static const char *const hop[] = {"H800", "GH200",
						  "GH200-144GB"};

		g = catalog_find(&c, hop[i]);
		CHECK_NEAR(g->tflops16, 989.4, 0);
		CHECK_NEAR(g->gemm_eff, 0.564, 0);
		CHECK_NEAR(g->gemm_eff8, 0.550, 0);
		CHECK_NEAR(g->attn_eff_fa2, 0.282, 0);
	}

	/* Forgiving names and aliases. */
	g = catalog_find(&c, "h100sxm");
	CHECK_STR_EQ(g ? g->name : NULL, "H100-SXM");
	g = catalog_find(&c, "H100_SXM");
	CHECK_STR_EQ(g ? g->name : NULL, "H100-SXM");
	g = catalog_find(&c, "h100");
	CHECK_STR_EQ(g ? g->name : NULL, "H100-SXM");
	g = catalog_find(&c, "a100");
	CHECK_STR_EQ(g ? g->name : NULL, "A100-80GB");
	g = catalog_find(&c, "a100 40gb");
	CHECK_STR_EQ(g ? g->name : NULL, "A100-40GB");
	g = catalog_find(&c, "NVIDIA A100-SXM4-40GB");
	CHECK_STR_EQ(g ? g->name : NULL, "A100-40GB");
	g = catalog_find(&c, "Tesla V100-SXM2-16GB");
	CHECK_STR_EQ(g ? g->name : NULL, "V100-16GB");
	g = catalog_find(&c, "NVIDIA H100 80GB HBM3");
	CHECK_STR_EQ(g ? g->name : NULL, "H100-SXM");
	g = catalog_find(&c, "NVIDIA L40S");
	CHECK_STR_EQ(g ? g->name : NULL, "L40S");
	/* the names nvidia-smi gives the GH200 parts and the H800 */
	g = catalog_find(&c, "NVIDIA GH200 480GB");
	CHECK_STR_EQ(g ? g->name : NULL, "GH200");
	g = catalog_find(&c, "NVIDIA GH200 144G HBM3e");
	CHECK_STR_EQ(g ? g->name : NULL, "GH200-144GB");
	g = catalog_find(&c, "NVIDIA H800 80GB HBM3");
	CHECK_STR_EQ(g ? g->name : NULL, "H800");
	CHECK(catalog_find(&c, "v100") == catalog_find(&c, "V100-16GB"));
	CHECK(catalog_find(&c, "H300") == NULL);
	CHECK(catalog_find(&c, "") == NULL);
	CHECK(catalog_find(&c, "--") == NULL);
	catalog_release(&c);
}

static int
same_spec(const struct gpu_spec *a, const struct gpu_spec *b)
{
	return !strcmp(a->name, b->name) && a->mem_bytes == b->mem_bytes &&
	       a->tflops16 == b->tflops16 && a->tflops32 == b->tflops32 &&
	       a->mem_gb_s == b->mem_gb_s && a->nvlink_gb_s == b->nvlink_gb_s &&
	       a->pcie_gb_s == b->pcie_gb_s && a->gemm_eff == b->gemm_eff &&
	       a->attn_eff == b->attn_eff &&
	       a->attn_eff_fa2 == b->attn_eff_fa2 && a->mem_eff == b->mem_eff &&
	       a->kernel_us == b->kernel_us &&
	       a->flops_per_exp == b->flops_per_exp &&
	       a->attn_block == b->attn_block && a->attn_bwd == b->attn_bwd &&
	       a->score_fwd == b->score_fwd && a->score_bwd == b->score_bwd &&
	       a->attn_bwd_fa2 == b->attn_bwd_fa2 &&
	       !strcmp(a->source, b->source);
}

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = xmalloc((size_t)n + 1);
	buf[fread(buf, 1, (size_t)n, f)] = '\0';
	fclose(f);
	return buf;
}

static void
test_user_file(void)
{
	struct gpu_catalog c, r;
	const struct gpu_spec *g;
	char path[512], dir[] = "/tmp/pd2bw-cat-XXXXXX", f1[600], f2[600];
	const char *over = "format: pd2bw-gpus/1\n"
			   "gpus:\n"
			   "  - name: a100_80gb\n"
			   "    memory_gib: 80\n"
			   "    tflops16: 312\n"
			   "    tflops32: 19.5\n"
			   "    memory_gb_s: 2039\n"
			   "    nvlink_gb_s: 300\n"
			   "    pcie_gb_s: 32\n"
			   "    gemm_eff: 0.6\n"
			   "    attn_eff: 0.4\n"
			   "    mem_eff: 0.9\n"
			   "    kernel_us: 5\n";
	char *t1, *t2;
	size_t i;

	catalog_init(&c);
	data_path(path, sizeof(path), "user-gpus.yaml");
	CHECK_INT_EQ(catalog_load(&c, path), 0);
	CHECK_INT_EQ(c.n, NBUILT + 2);
	g = catalog_find(&c, "gh200 96gb");
	CHECK_STR_EQ(g ? g->name : NULL, "GH200-96GB");
	CHECK_INT_EQ(g ? g->mem_bytes : 0, 96 * GIB);
	CHECK_NEAR(g ? g->mem_gb_s : 0, 4000, 0);
	g = catalog_find(&c, "mi300x");
	CHECK_STR_EQ(g ? g->name : NULL, "MI300X");
	CHECK_NEAR(g ? g->tflops16 : 0, 1307.4, 0);
	CHECK_INT_EQ(g ? g->mem_bytes : 0, 192 * GIB);
	CHECK_NEAR(g ? g->gemm_eff : 0, 0.5, 0);

	/* Same normalised name replaces in place; source defaults to "". */
	CHECK_INT_EQ(catalog_load_string(&c, "over.yaml", over, strlen(over)),
		     0);
	CHECK_INT_EQ(c.n, NBUILT + 2);
	g = catalog_find(&c, "A100-80GB");
	CHECK_STR_EQ(g ? g->name : NULL, "a100_80gb");
	CHECK_NEAR(g ? g->gemm_eff : 0, 0.6, 0);
	/* FlashAttention-2-class kernels: their own figure on Hopper */
	CHECK_NEAR(g ? g->attn_eff_fa2 : 1, 0, 0);
	CHECK_NEAR(catalog_find(&c, "H100-SXM")->attn_eff_fa2, 0.282, 0);
	CHECK_NEAR(catalog_find(&c, "H200")->attn_eff_fa2, 0.282, 0);
	CHECK_STR_EQ(g ? g->source : NULL, "");
	CHECK(catalog_find(&c, "a100") == g);

	/* Round trip: write, read into an empty catalog, write again. */
	if (!mkdtemp(dir))
		pd2bw_die("mkdtemp failed");
	snprintf(f1, sizeof(f1), "%s/a.yaml", dir);
	snprintf(f2, sizeof(f2), "%s/b.yaml", dir);
	CHECK_INT_EQ(catalog_write(&c, f1), 0);
	memset(&r, 0, sizeof(r));
	CHECK_INT_EQ(catalog_load(&r, f1), 0);
	CHECK_INT_EQ(r.n, c.n);
	for (i = 0; i < c.n && i < r.n; i++)
		CHECK_MSG(same_spec(&c.gpus[i], &r.gpus[i]), c.gpus[i].name);
	CHECK_INT_EQ(catalog_write(&r, f2), 0);
	t1 = slurp(f1);
	t2 = slurp(f2);
	CHECK(t1 && t2 && !strcmp(t1, t2));
	{
		const char *head = "format: pd2bw-gpus/1\ngpus:\n- name: "
				   "V100-16GB\n  memory_gib: 16\n  tflops16: "
				   "125\n";

		CHECK(t1 && !strncmp(t1, head, strlen(head)));
	}
	free(t1);
	free(t2);
	unlink(f1);
	unlink(f2);
	rmdir(dir);
	catalog_release(&r);
	catalog_release(&c);

	/* The template of the error cases is itself good. */
	catalog_init(&c);
	CHECK_INT_EQ(load_captured(&c, doc(0, NULL, NULL)), 0);
	CHECK_INT_EQ(c.n, NBUILT + 1);
	catalog_release(&c);
}

static void
test_errors(void)
{
	expect_error(4, "    memry_gib: 16", NULL,
		     "4:5: unknown key 'memry_gib'");
	expect_error(13, NULL, NULL, "3:5: missing key 'kernel_us'");
	expect_error(4, "    memory_gib: 0", NULL,
		     "4:17: 'memory_gib' must be positive");
	expect_error(4, "    memory_gib: -2", NULL,
		     "4:17: value -2 out of range [0, 1048576]");
	expect_error(4, "    memory_gib: nan", NULL,
		     "4:17: number out of range: 'nan'");
	expect_error(7, "    memory_gb_s: 0", NULL,
		     "7:18: 'memory_gb_s' must be positive");
	expect_error(9, "    pcie_gb_s: 0", NULL,
		     "9:16: 'pcie_gb_s' must be positive");
	expect_error(5, "    tflops16: fast", NULL,
		     "5:15: expected a number, found 'fast'");
	expect_error(5, "    tflops16: [1]", NULL,
		     "5:15: expected a number, found a sequence");
	expect_error(6, "    tflops32: \"10\"", NULL,
		     "6:15: expected a number, found '10'");
	expect_error(8, "    nvlink_gb_s: -1", NULL,
		     "8:18: value -1 out of range [0, 1000000]");
	expect_error(10, "    gemm_eff: 1.5", NULL,
		     "10:15: value 1.5 out of range [0, 1]");
	expect_error(11, "    attn_eff: 0", NULL,
		     "11:15: 'attn_eff' must be in (0, 1]");
	expect_error(11, "    attn_eff: 0.5\n    attn_eff_fa2: 1.5", NULL,
		     "12:19: value 1.5 out of range [0, 1]");
	expect_error(12, "    mem_eff: 0.0", NULL,
		     "12:14: 'mem_eff' must be in (0, 1]");
	expect_error(3, "  - name: A/B", NULL,
		     "3:11: invalid character '/' in GPU name 'A/B'");
	expect_error(3, "  - name: '--'", NULL,
		     "3:11: GPU name '--' has no letter or digit");
	expect_error(3, "  - name: [x]", NULL,
		     "3:11: expected a string, found a sequence");
	expect_error(1, "format: pd2bw-model/1", NULL,
		     "1:9: not a pd2bw gpus file (format 'pd2bw-model/1')");
	expect_error(1, "format: pd2bw-gpus/2", NULL,
		     "1:9: format version 2 is newer than this program reads "
		     "(1)");
	expect_error(0, NULL, "extra: 1\n", "14:1: unknown key 'extra'");
	expect_error(0, NULL,
		     "  - name: x_1\n    memory_gib: 8\n    tflops16: 1\n"
		     "    tflops32: 1\n    memory_gb_s: 1\n    nvlink_gb_s: 0\n"
		     "    pcie_gb_s: 1\n    gemm_eff: 1\n    attn_eff: 1\n"
		     "    mem_eff: 1\n    kernel_us: 0\n",
		     "14:11: GPU 'x_1' is listed twice");
	expect_error(13, "    kernel_us: 4\n    kernel_us: 5", NULL,
		     "14:5: duplicate key 'kernel_us' (first at line 13)");

	{
		struct gpu_catalog c;
		const char *empty = "format: pd2bw-gpus/1\ngpus: []\n";

		catalog_init(&c);
		CHECK_INT_EQ(load_captured(&c, empty), -1);
		CHECK_STR_EQ(stderr_buf, "pd2bw: bad.yaml:2:7: no GPUs in "
					 "'gpus'\n");
		CHECK_INT_EQ(load_captured(&c, "gpus: 3\n"), -1);
		CHECK_STR_EQ(stderr_buf, "pd2bw: bad.yaml:1:1: missing key "
					 "'format'\n");
		CHECK_INT_EQ(load_captured(&c, "format: pd2bw-gpus/1\n"
					       "gpus: 3\n"),
			     -1);
		CHECK_STR_EQ(stderr_buf, "pd2bw: bad.yaml:2:7: expected a "
					 "sequence for 'gpus'\n");
		CHECK_INT_EQ(catalog_load(&c, "/nonexistent/g.yaml"), -1);
		CHECK_INT_EQ(c.n, NBUILT);
		catalog_release(&c);
	}
}

int
main(void)
{
	(void)h_skip;
	(void)h_skip_all;
	test_builtin();
	test_user_file();
	test_errors();
	return h_done();
}
