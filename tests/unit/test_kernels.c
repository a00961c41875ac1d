/*
 * test_kernels.c - what an analytic estimate is made of, kernel by kernel
 * (analytic_profile_kernels()), and its pd2bw-kernels/1 file: the listing
 * leaves the estimate as it is and adds up to it, layer by layer and
 * pass by pass, over dense, MoE, MLA, windowed and soft-capped models at
 * every kind of parallelism; hand-checked entries; the file round-trips.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "capture.h"
#include "pd2bw/analytic.h"
#include "pd2bw/error.h"
#include "pd2bw/kernels.h"
#include "pd2bw/yml.h"

static struct gpu_catalog cat;

/* The listing's time of layer l, microbatch index i and pass. */
static double
sum_of(const struct kernel_list *ks, int l, int i, int pass, long *calls)
{
	double ms = 0;
	size_t k;

	*calls = 0;
	for (k = 0; k < ks->n; k++)
		if (ks->k[k].layer == l && ks->k[k].mb == i &&
		    ks->k[k].pass == pass) {
			ms += ks->k[k].ms;
			*calls += ks->k[k].calls;
		}
	return ms;
}

/* The entry of name in layer l, microbatch index i and pass, or NULL. */
static const struct kernel_entry *
entry(const struct kernel_list *ks, int l, int i, int pass,
      const char *name)
{
	size_t k;

	for (k = 0; k < ks->n; k++)
		if (ks->k[k].layer == l && ks->k[k].mb == i &&
		    ks->k[k].pass == pass && !strcmp(ks->k[k].name, name))
			return &ks->k[k];
	return NULL;
}

static int
near(double a, double b)
{
	double d = a - b;

	if (d < 0)
		d = -d;
	return d <= 1e-9 * (b > 1 ? b : 1);
}

/*
 * m at par with options o (NULL: defaults) on GPU gpu: the listing's
 * profile is the estimate's, bit for bit, and each point's forward,
 * backward and selective recomputation add up from its entries.
 */
static void
check_sums(const struct model *m, const char *gpu,
	   const struct analytic_par *par, const struct analytic_opts *o,
	   const char *what)
{
	static const int mb[] = {1, 2};
	const struct gpu_spec *g = catalog_find(&cat, gpu);
	struct profile ref, p;
	struct kernel_list ks;
	int l, i, bad = 0, diff = 0;
	size_t k;

	memset(&ks, 0, sizeof(ks));
	profile_init(&ref);
	profile_init(&p);
	CHECK_MSG(g != NULL, what);
	CHECK_MSG(analytic_profile_par(&ref, m, g, mb, 2, par, o) == 0, what);
	CHECK_MSG(analytic_profile_kernels(&p, m, g, mb, 2, par, o, &ks) == 0,
		  what);
	CHECK_MSG(p.nlayers == ref.nlayers && p.nlayers > 2, what);
	CHECK_MSG(ks.n > 0 && !ks.oom, what);
	for (l = 0; l < p.nlayers && l < ref.nlayers; l++)
		for (i = 0; i < 2; i++) {
			const struct prof_point *a = &p.layers[l].pt[i];
			const struct prof_point *b = &ref.layers[l].pt[i];
			long c;

			diff |= a->fwd_ms != b->fwd_ms ||
				a->bwd_ms != b->bwd_ms ||
				a->recomp_ms[PROF_RC_SELECTIVE] !=
					b->recomp_ms[PROF_RC_SELECTIVE] ||
				a->recomp_ms[PROF_RC_FULL] !=
					b->recomp_ms[PROF_RC_FULL] ||
				a->stash_bytes[PROF_RC_NONE] !=
					b->stash_bytes[PROF_RC_NONE] ||
				a->kernels != b->kernels;
			bad |= !near(sum_of(&ks, l, i, KERNEL_PASS_FWD, &c),
				     a->fwd_ms) ||
			       !near(sum_of(&ks, l, i, KERNEL_PASS_BWD, &c),
				     a->bwd_ms) ||
			       !near(sum_of(&ks, l, i, KERNEL_PASS_SEL, &c),
				     a->recomp_ms[PROF_RC_SELECTIVE]);
		}
	CHECK_MSG(!diff, what);
	CHECK_MSG(!bad, what);
	for (k = 0; k < ks.n; k++)
		bad |= ks.k[k].ms < 0 || ks.k[k].calls < 0 ||
		       !ks.k[k].name[0] || ks.k[k].layer < 0 ||
		       ks.k[k].layer >= p.nlayers;
	CHECK_MSG(!bad, what);
	kernels_free(&ks);
	CHECK(ks.n == 0 && ks.k == NULL);
	profile_release(&p);
	profile_release(&ref);
}

static void
load(struct model *m, const char *path)
{
	model_init(m);
	CHECK_MSG(model_load(m, cap_path(path)) == 0, path);
}

static void
test_sums(void)
{
	static const char *const dense[] = {
		"models/llama3-8b.yaml", "models/gpt-2.2b.yaml",
		"models/bert-2.2b.yaml", "tests/data/hf/gemma2-9b.json",
	};
	static const char *const moe[] = {
		"tests/data/hf/gpt-oss-120b.json",
		"tests/data/hf/deepseek-v3.json",
		"tests/data/hf/qwen3-30b-a3b.json",
	};
	struct analytic_par par;
	struct analytic_opts o;
	struct model m;
	size_t i;

	for (i = 0; i < sizeof(dense) / sizeof(dense[0]); i++) {
		load(&m, dense[i]);
		if (m.seq_len > 4096)
			m.seq_len = 4096;
		analytic_par_init(&par, 1, 0);
		check_sums(&m, "H100-SXM", &par, NULL, dense[i]);
		analytic_par_init(&par, 2, 1);
		check_sums(&m, "H100-SXM", &par, NULL, dense[i]);
		analytic_opts_init(&o);
		o.fusions = 0;
		o.rc_modules = ANALYTIC_RC_CORE_ATTN | ANALYTIC_RC_LAYERNORM |
			       ANALYTIC_RC_MLP;
		check_sums(&m, "H100-SXM", &par, &o, dense[i]);
		o.rc_modules = ANALYTIC_RC_OP;
		check_sums(&m, "H100-SXM", &par, &o, dense[i]);
		m.precision = MODEL_FP8;
		analytic_opts_init(&o);
		o.fp8_recipe = FP8_MXFP8;
		check_sums(&m, "B200", &par, &o, dense[i]);
		m.precision = MODEL_NVFP4;
		check_sums(&m, "B200", &par, NULL, dense[i]);
		/* packed documents (doc_len) */
		m.precision = MODEL_BF16;
		m.doc_len = 300;
		check_sums(&m, "H100-SXM", &par, NULL, dense[i]);
		/* LoRA: the adapters' kernels, no frozen weight gradient */
		analytic_opts_init(&o);
		o.lora_rank = 16;
		check_sums(&m, "H100-SXM", &par, &o, dense[i]);
		m.precision = MODEL_FP8;
		check_sums(&m, "B200", &par, &o, dense[i]);
		model_release(&m);
	}
	for (i = 0; i < sizeof(moe) / sizeof(moe[0]); i++) {
		load(&m, moe[i]);
		m.seq_len = 4096;
		analytic_par_init(&par, 1, 0);
		par.ep = 8;
		par.etp = 1;
		check_sums(&m, "GB200", &par, NULL, moe[i]);
		analytic_par_init(&par, 2, 1);
		par.ep = 4;
		par.imbalance = 1.25;
		analytic_opts_init(&o);
		o.rc_modules = ANALYTIC_RC_LAYERNORM | ANALYTIC_RC_MOE_ACT |
			       ANALYTIC_RC_MLA_UP_PROJ | ANALYTIC_RC_CORE_ATTN;
		check_sums(&m, "GB200", &par, &o, moe[i]);
		if (!m.window) {
			/* context parallelism: the ring's steps */
			analytic_par_init(&par, 2, 1);
			par.cp = 2;
			check_sums(&m, "H100-SXM", &par, NULL, moe[i]);
		}
		m.precision = MODEL_FP8;
		analytic_opts_init(&o);
		o.fp8_recipe = FP8_BLOCKWISE;
		analytic_par_init(&par, 1, 0);
		par.ep = 8;
		check_sums(&m, "H100-SXM", &par, &o, moe[i]);
		model_release(&m);
	}
}

/*
 * GPT 2.2B (h 2304, s 512) at microbatch 1 on an H100, 16-bit: the QKV
 * GEMM is one kernel of 512 x 2304 x 6912 priced as analytic_gemm_ms()
 * prices it; its weight gradient 2304 x 512 x 6912 in backward; the
 * output layer 512 x 2304 x 51200 (the zoo file's padded vocabulary) in the head.
 */
static void
test_hand(void)
{
	static const int mb[] = {1};
	const struct gpu_spec *g = catalog_find(&cat, "H100-SXM");
	const struct kernel_entry *e;
	struct analytic_par par;
	struct profile p;
	struct kernel_list ks;
	struct model m;
	long c;

	load(&m, "models/gpt-2.2b.yaml");
	memset(&ks, 0, sizeof(ks));
	profile_init(&p);
	analytic_par_init(&par, 1, 0);
	CHECK(analytic_profile_kernels(&p, &m, g, mb, 1, &par, NULL, &ks) ==
	      0);
	CHECK_INT_EQ(p.nlayers, 3);
	e = entry(&ks, 1, 0, KERNEL_PASS_FWD, "gemm 512x2304x6912");
	CHECK(e != NULL);
	if (e) {
		CHECK_INT_EQ(e->calls, 1);
		CHECK(e->ms == analytic_gemm_ms(g, 0, 512, 2304, 6912));
	}
	CHECK(entry(&ks, 1, 0, KERNEL_PASS_BWD, "gemm 2304x512x6912") != NULL);
	CHECK(entry(&ks, 1, 0, KERNEL_PASS_FWD, "attention") != NULL);
	CHECK(entry(&ks, 1, 0, KERNEL_PASS_BWD, "attention") != NULL);
	CHECK(entry(&ks, 1, 0, KERNEL_PASS_FWD, "norm") != NULL);
	CHECK(entry(&ks, 2, 0, KERNEL_PASS_FWD, "gemm 512x2304x51200") !=
	      NULL);
	CHECK(entry(&ks, 2, 0, KERNEL_PASS_FWD, "cross-entropy") != NULL);
	CHECK(entry(&ks, 0, 0, KERNEL_PASS_FWD, "embedding") != NULL);
	/* no selective recomputation asked for: Megatron's default,
	 * core_attn, alone */
	CHECK(sum_of(&ks, 1, 0, KERNEL_PASS_SEL, &c) ==
	      p.layers[1].pt[0].recomp_ms[PROF_RC_SELECTIVE]);
	e = entry(&ks, 1, 0, KERNEL_PASS_SEL, "core_attn");
	CHECK(e != NULL && e->ms == p.layers[1].pt[0].recomp_ms
					    [PROF_RC_SELECTIVE]);
	kernels_free(&ks);
	profile_release(&p);
	model_release(&m);
}

/*
 * Qwen3-30B-A3B at s 4096, microbatch 1, expert parallelism 4 on a B200:
 * 32 experts a GPU share 4096 x 8 rows, 1024 each; the grouped GEMMs of
 * the gate and up projections are [1024 x 2048] x [2048 x 1536] an
 * expert; the router, the permutations and the module-by-module
 * selective recomputation are named.
 */
static void
test_moe(void)
{
	static const int mb[] = {1};
	const struct gpu_spec *g = catalog_find(&cat, "B200");
	const struct kernel_entry *e;
	struct analytic_par par;
	struct analytic_opts o;
	struct profile p;
	struct kernel_list ks;
	struct model m;
	long c;
	double sel;

	load(&m, "tests/data/hf/qwen3-30b-a3b.json");
	m.seq_len = 4096;
	memset(&ks, 0, sizeof(ks));
	profile_init(&p);
	analytic_par_init(&par, 1, 0);
	par.ep = 4;
	analytic_opts_init(&o);
	o.rc_modules = ANALYTIC_RC_LAYERNORM | ANALYTIC_RC_MOE_ACT;
	CHECK(analytic_profile_kernels(&p, &m, g, mb, 1, &par, &o, &ks) == 0);
	e = entry(&ks, 1, 0, KERNEL_PASS_FWD, "experts gemm 1024x2048x1536 x 32");
	CHECK(e != NULL && e && e->calls == 32);
	CHECK(entry(&ks, 1, 0, KERNEL_PASS_FWD,
		    "experts gemm 1024x768x2048 x 32") != NULL);
	CHECK(entry(&ks, 1, 0, KERNEL_PASS_FWD, "router top-k") != NULL);
	CHECK(entry(&ks, 1, 0, KERNEL_PASS_FWD, "permute") != NULL);
	CHECK(entry(&ks, 1, 0, KERNEL_PASS_FWD, "unpermute") != NULL);
	CHECK(entry(&ks, 1, 0, KERNEL_PASS_BWD, "permute") != NULL);
	CHECK(entry(&ks, 1, 0, KERNEL_PASS_FWD, "sort chunks") != NULL);
	CHECK(entry(&ks, 1, 0, KERNEL_PASS_FWD, "gemm 4096x2048x128") !=
	      NULL);
	sel = sum_of(&ks, 1, 0, KERNEL_PASS_SEL, &c);
	CHECK(near(sel, p.layers[1].pt[0].recomp_ms[PROF_RC_SELECTIVE]));
	CHECK(entry(&ks, 1, 0, KERNEL_PASS_SEL, "layernorm") != NULL);
	CHECK(entry(&ks, 1, 0, KERNEL_PASS_SEL, "moe_act") != NULL);
	CHECK(entry(&ks, 1, 0, KERNEL_PASS_SEL, "core_attn") == NULL);
	kernels_free(&ks);
	profile_release(&p);
	model_release(&m);
}

/* The list merges by layer, microbatch, pass and name; the file holds
 * every entry, in order, and refuses one of no layer of the profile. */
static void
test_file(void)
{
	static const int mb[] = {1, 4};
	const struct gpu_spec *g = catalog_find(&cat, "H100-SXM");
	struct analytic_par par;
	struct kernel_list ks;
	struct profile p;
	struct model m;
	struct yml_doc d;
	yaml_node_t *root, *seq, *it;
	char path[] = "/tmp/pd2bw-kernels-XXXXXX";
	int fd;

	memset(&ks, 0, sizeof(ks));
	kernels_add(&ks, 0, 1, 0, KERNEL_PASS_FWD, "a", 1, 1.5);
	kernels_add(&ks, 0, 1, 0, KERNEL_PASS_FWD, "a", 2, 0.25);
	kernels_add(&ks, 0, 1, 0, KERNEL_PASS_BWD, "a", 1, 1);
	kernels_add(&ks, 1, 1, 0, KERNEL_PASS_FWD, "a", 1, 1);
	CHECK_INT_EQ((long long)ks.n, 3);
	CHECK_INT_EQ(ks.k[0].calls, 3);
	CHECK(ks.k[0].ms == 1.75);
	CHECK_STR_EQ(kernels_pass_name(KERNEL_PASS_SEL), "selective recompute");
	CHECK_STR_EQ(kernels_pass_name(7), "?");
	kernels_free(&ks);

	load(&m, "models/gpt-2.2b.yaml");
	profile_init(&p);
	analytic_par_init(&par, 1, 0);
	CHECK(analytic_profile_kernels(&p, &m, g, mb, 2, &par, NULL, &ks) ==
	      0);
	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	CHECK(kernels_write(path, &p, &ks, "analytic") == 0);
	memset(&d, 0, sizeof(d));
	CHECK(yml_load_file(&d, path) == 0);
	root = yml_root(&d);
	CHECK(root != NULL);
	seq = root ? yml_get(&d, root, "kernels") : NULL;
	CHECK(seq != NULL);
	if (seq && ks.n) {
		char *layer = NULL, *name = NULL, *pass = NULL;
		int index = -1, mbs = 0, repeat = 0;
		int64_t calls = 0;
		double us = 0;
		const struct yml_key keys[] = {
			YK_STR("layer", 1, &layer),
			YK_INT("index", 1, &index, 0, 1000),
			YK_INT("repeat", 1, &repeat, 1, 1000),
			YK_INT("microbatch", 1, &mbs, 0, 1000),
			YK_STR("pass", 1, &pass),
			YK_STR("name", 1, &name),
			YK_I64("calls", 1, &calls, 0, 1e9),
			YK_DBL("total_us", 1, &us, 0, 1e12),
		};
		const struct kernel_entry *e = &ks.k[ks.n - 1];

		CHECK_INT_EQ((long long)yml_seq_len(seq), (long long)ks.n);
		it = yml_seq_item(&d, seq, ks.n - 1);
		CHECK(yml_map(&d, it, keys, sizeof(keys) / sizeof(keys[0])) ==
		      0);
		CHECK_STR_EQ(layer, p.layers[e->layer].name);
		CHECK_INT_EQ(index, e->layer);
		/* the head: once; GPT 2.2B's 32 blocks are one layer of
		 * the profile, listed once */
		CHECK_INT_EQ(repeat, p.layers[e->layer].repeat);
		CHECK_INT_EQ(p.layers[1].repeat, 32);
		CHECK_INT_EQ(mbs, 4);
		CHECK_STR_EQ(pass, kernels_pass_name(e->pass));
		CHECK_STR_EQ(name, e->name);
		CHECK_INT_EQ(calls, e->calls);
		/* written to nine significant digits */
		CHECK(us / (e->ms * 1e3) > 1 - 1e-8 &&
		      us / (e->ms * 1e3) < 1 + 1e-8);
		free(layer);
		free(name);
		free(pass);
	}
	yml_release(&d);
	/* an entry of no layer: an error, the file as it was */
	ks.k[0].layer = p.nlayers;
	{
		char *err;

		cap_begin();
		CHECK(kernels_write(path, &p, &ks, "analytic") == -1);
		err = cap_end();
		CHECK(err && strstr(err, "of no layer") != NULL);
		free(err);
	}
	CHECK(yml_load_file(&d, path) == 0);
	yml_release(&d);
	unlink(path);
	kernels_free(&ks);
	profile_release(&p);
	model_release(&m);
}

/*
 * Packed documents: a sequence of 4096 tokens packing documents of 512
 * runs attention within each, whose blocks of queries each belong to one
 * document (Transformer Engine's thd layout): to the kernels it is 8
 * sequences of 512.  Llama 3 8B at microbatch 1 so packed is priced,
 * kernel by kernel and in all, as at microbatch 8 of 512 tokens (every
 * other kernel sees the same 4096 rows); unpacked, its attention costs
 * more (three times as much here: eight times the pairs, at the higher
 * rate of long sequences, attn_tile_share()); documents as long as the
 * sequence change nothing, nor does a window as long as the documents
 * (Gemma 2's 4096 against 512).
 */
static void
test_packed(void)
{
	static const int one[] = {1}, eight[] = {8};
	static const char *const files[] = {
		"models/llama3-8b.yaml", "tests/data/hf/gemma2-9b.json",
	};
	const struct gpu_spec *g = catalog_find(&cat, "H100-SXM");
	struct analytic_par par;
	struct profile a, b, c;
	struct kernel_list ka, kb, kc;
	struct model m;
	size_t i, k;
	int pass, l, same;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		load(&m, files[i]);
		analytic_par_init(&par, 2, 1);
		memset(&ka, 0, sizeof(ka));
		memset(&kb, 0, sizeof(kb));
		memset(&kc, 0, sizeof(kc));
		profile_init(&a);
		profile_init(&b);
		profile_init(&c);
		m.seq_len = 4096;
		m.doc_len = 512;
		CHECK(analytic_profile_kernels(&a, &m, g, one, 1, &par, NULL,
					       &ka) == 0);
		CHECK_INT_EQ((int)a.doc_len, 512);
		m.doc_len = 0;
		CHECK(analytic_profile_kernels(&c, &m, g, one, 1, &par, NULL,
					       &kc) == 0);
		m.seq_len = 512;
		CHECK(analytic_profile_kernels(&b, &m, g, eight, 1, &par,
					       NULL, &kb) == 0);
		CHECK_INT_EQ(a.nlayers, b.nlayers);
		same = a.nlayers == b.nlayers;
		for (l = 1; same && l + 1 < a.nlayers; l++)
			same = a.layers[l].pt[0].fwd_ms ==
				       b.layers[l].pt[0].fwd_ms &&
			       a.layers[l].pt[0].bwd_ms ==
				       b.layers[l].pt[0].bwd_ms;
		CHECK_MSG(same, files[i]);
		for (pass = KERNEL_PASS_FWD; pass <= KERNEL_PASS_BWD; pass++) {
			const struct kernel_entry *ea =
				entry(&ka, 1, 0, pass, "attention");
			const struct kernel_entry *eb =
				entry(&kb, 1, 0, pass, "attention");
			const struct kernel_entry *ec =
				entry(&kc, 1, 0, pass, "attention");

			CHECK_MSG(ea && eb && ec, files[i]);
			if (!ea || !eb || !ec)
				continue;
			CHECK_MSG(ea->ms == eb->ms && ea->calls == eb->calls,
				  files[i]);
			CHECK_MSG(ea->ms < ec->ms / 2, files[i]);
		}
		for (k = 0; k < ka.n && k < kb.n; k++)
			if (strcmp(ka.k[k].name, kb.k[k].name) ||
			    ka.k[k].ms != kb.k[k].ms)
				break;
		CHECK_MSG(k == ka.n && ka.n == kb.n, files[i]);
		kernels_free(&ka);
		kernels_free(&kb);
		kernels_free(&kc);
		profile_release(&a);
		profile_release(&b);
		profile_release(&c);

		/* documents of the whole sequence: unpacked, bit for bit */
		profile_init(&a);
		profile_init(&b);
		m.seq_len = 4096;
		m.doc_len = 4096;
		CHECK(analytic_profile_par(&a, &m, g, one, 1, &par, NULL) ==
		      0);
		m.doc_len = 0;
		CHECK(analytic_profile_par(&b, &m, g, one, 1, &par, NULL) ==
		      0);
		same = a.nlayers == b.nlayers;
		for (l = 0; same && l < a.nlayers; l++)
			same = a.layers[l].pt[0].fwd_ms ==
				       b.layers[l].pt[0].fwd_ms &&
			       a.layers[l].pt[0].bwd_ms ==
				       b.layers[l].pt[0].bwd_ms;
		CHECK_MSG(same, files[i]);
		/* longer than the sequence: refused */
		m.doc_len = 4097;
		CHECK_ERR(analytic_profile_par(&c, &m, g, one, 1, &par, NULL),
			  i ? "pd2bw: model 'gemma2-9b': documents of 4097 "
			      "tokens do not fit its sequences of 4096"
			    : "pd2bw: model 'llama3-8b': documents of 4097 "
			      "tokens do not fit its sequences of 4096");
		profile_release(&a);
		profile_release(&b);
		profile_release(&c);
		model_release(&m);
	}
}

int
main(int argc, char **argv)
{
	(void)argc;
	(void)h_skip;
	(void)h_skip_all;
	cap_find_top(argv[0]);
	catalog_init(&cat);
	test_sums();
	test_hand();
	test_moe();
	test_packed();
	test_file();
	catalog_release(&cat);
	return h_done();
}
