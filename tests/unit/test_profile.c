/*
 * test_profile.c - pd2bw-profile/1 reading (good and bad input), the
 * byte-stable writer, the queries, and the PipeDream graph.txt hand-off.
 */
#include "harness.h"
#include "capture.h"
#include "pd2bw/error.h"
#include "pd2bw/profile.h"

#define FX "tests/data/formats/"

static int
load_str(struct profile *p, const char *buf)
{
	return profile_load_string(p, "p.yaml", buf, strlen(buf));
}

/*
 * A one-layer profile; %s slots: extra top-level keys (line 3), the
 * microbatch list (line 6), the layer's extra keys (line 10), its points
 * (from line 12).
 */
static const char tmpl[] =
	"format: pd2bw-profile/1\n"
	"model: m\n"
	"%s"
	"device: {name: X, backend: analytic, memory_bytes: 1000}\n"
	"precision: bf16\n"
	"microbatches: %s\n"
	"layers:\n"
	"- name: b\n"
	"  kind: block\n"
	"%s"
	"  params: 10\n"
	"  points:\n"
	"%s";

static const char pt1[] =
	"  - {fwd_ms: 1, bwd_ms: 2, recompute_ms: [0, 0.5, 1], "
	"out_bytes: 8, stash_bytes: [30, 20, 8]}\n";

static int
load_t(struct profile *p, const char *top, const char *mbs,
       const char *layer, const char *points)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), tmpl, top, mbs, layer, points);
	return load_str(p, buf);
}

static void
test_good(void)
{
	struct profile p;

	profile_init(&p);
	CHECK(load_t(&p, "", "[4]", "", pt1) == 0);
	CHECK_INT_EQ(p.nmb, 1);
	CHECK_INT_EQ(p.mb[0], 4);
	CHECK_INT_EQ(p.tp, 1);
	CHECK_NEAR(p.weight_bytes, 2, 0);
	CHECK_NEAR(p.grad_bytes, 2, 0);
	CHECK_NEAR(p.optimizer_bytes, 12, 0);
	CHECK_NEAR(p.version_bytes, 4, 0);
	CHECK_STR_EQ(p.backend, "analytic");
	CHECK_STR_EQ(p.precision, "bf16");
	CHECK(p.versions == NULL);
	CHECK_INT_EQ(p.layers[0].repeat, 1);
	CHECK_INT_EQ(p.layers[0].pt[0].work_bytes, 0);
	CHECK_NEAR(p.layers[0].pt[0].kernels, 0, 0);
	CHECK_NEAR(p.layers[0].pt[0].fwd_kernels, 0, 0);
	CHECK(load_t(&p, "", "[4]", "",
		     "  - {fwd_ms: 1, bwd_ms: 2, recompute_ms: [0, 0.5, 1], "
		     "out_bytes: 8, stash_bytes: [30, 20, 8], kernels: 90, "
		     "fwd_kernels: 30}\n") == 0);
	CHECK_NEAR(p.layers[0].pt[0].kernels, 90, 0);
	CHECK_NEAR(p.layers[0].pt[0].fwd_kernels, 30, 0);

	CHECK(profile_load(&p, cap_path(FX "profile-good.yaml")) == 0);
	CHECK_STR_EQ(p.model, "tiny");
	CHECK_STR_EQ(p.device, "V100-16GB");
	CHECK_STR_EQ(p.backend, "cpu");
	CHECK_STR_EQ(p.versions, "test 1.0");
	CHECK_INT_EQ(p.device_mem_bytes, 17179869184LL);
	CHECK_STR_EQ(p.precision, "fp16");
	CHECK_INT_EQ(p.seq_len, 16);
	CHECK_INT_EQ(p.hidden, 64);
	CHECK_NEAR(p.grad_bytes, 4, 0);
	CHECK_INT_EQ(p.nmb, 2);
	CHECK_INT_EQ(p.mb[1], 2);
	CHECK_INT_EQ(p.nlayers, 3);
	CHECK_INT_EQ(p.layers[1].kind, PROF_BLOCK);
	CHECK_INT_EQ(p.layers[1].repeat, 4);
	CHECK_NEAR(p.layers[1].pt[1].bwd_ms, 1.5, 0);
	CHECK_NEAR(p.layers[1].pt[1].recomp_ms[PROF_RC_SELECTIVE], 0.25, 0);
	CHECK_INT_EQ(p.layers[1].pt[1].stash_bytes[PROF_RC_FULL], 4096);
	CHECK_INT_EQ(p.layers[1].pt[0].work_bytes, 8192);
	CHECK_NEAR(p.layers[2].pt[1].fwd_flops, 409600, 0);
	CHECK_INT_EQ(profile_chain_len(&p), 6);
	CHECK_INT_EQ(profile_params(&p), 7424 + 4 * 49984 + 128);
	CHECK_INT_EQ(profile_mb_index(&p, 2), 1);
	CHECK_INT_EQ(profile_mb_index(&p, 1), 0);
	CHECK_INT_EQ(profile_mb_index(&p, 3), -1);
	profile_release(&p);
}

static void
test_bad(void)
{
	struct profile p;
	char pts[1024];

	profile_init(&p);
	CHECK_ERR(load_t(&p, "", "[1, 2]", "", pt1),
		  "pd2bw: p.yaml:11:3: expected 2 points (one per microbatch "
		  "size), found 1");
	snprintf(pts, sizeof(pts), "%s%s", pt1, pt1);
	CHECK_ERR(load_t(&p, "", "[2, 1]", "", pts),
		  "pd2bw: p.yaml:5:19: microbatch sizes must be strictly "
		  "increasing");
	CHECK_ERR(load_t(&p, "", "[2, 2]", "", pts),
		  "pd2bw: p.yaml:5:19: microbatch sizes must be strictly "
		  "increasing");
	CHECK_ERR(load_t(&p, "", "[0]", "", pt1),
		  "pd2bw: p.yaml:5:16: value 0 out of range [1, 1048576]");
	CHECK_ERR(load_t(&p, "", "[]", "", pt1),
		  "pd2bw: p.yaml:5:15: expected 1 to 64 microbatch sizes, "
		  "found 0");
	CHECK_ERR(load_t(&p, "", "[1]", "",
			 "  - {fwd_ms: -1, bwd_ms: 2, recompute_ms: [0, 0, 1], "
			 "out_bytes: 8, stash_bytes: [8, 8, 8]}\n"),
		  "pd2bw: p.yaml:11:14: value -1 out of range [0, "
		  "1000000000]");
	CHECK_ERR(load_t(&p, "", "[1]", "",
			 "  - {fwd_ms: 1, bwd_ms: 2, recompute_ms: [0, 0, 1], "
			 "out_bytes: 8, stash_bytes: [8, 8, 8], kernels: 9, "
			 "fwd_kernels: 10}\n"),
		  "pd2bw: p.yaml:11:5: fwd_kernels 10 exceeds kernels 9");
	CHECK_ERR(load_t(&p, "", "[1]", "",
			 "  - {fwd_ms: .nan, bwd_ms: 2, "
			 "recompute_ms: [0, 0, 1], "
			 "out_bytes: 8, stash_bytes: [8, 8, 8]}\n"),
		  "pd2bw: p.yaml:11:14: expected a number, found '.nan'");
	CHECK_ERR(load_t(&p, "", "[1]", "",
			 "  - {fwd_ms: 1, bwd_ms: .inf, "
			 "recompute_ms: [0, 0, 1], "
			 "out_bytes: 8, stash_bytes: [8, 8, 8]}\n"),
		  "pd2bw: p.yaml:11:25: expected a number, found '.inf'");
	CHECK_ERR(load_t(&p, "", "[1]", "",
			 "  - {fwd_ms: 1, bwd_ms: 2, recompute_ms: [0, 0, 1], "
			 "out_bytes: 8, stash_bytes: [8, 9, 8]}\n"),
		  "pd2bw: p.yaml:11:80: stash_bytes must not grow with "
		  "recomputation (none >= selective >= full)");
	CHECK_ERR(load_t(&p, "", "[1]", "",
			 "  - {fwd_ms: 1, bwd_ms: 2, recompute_ms: [1, 1, 1], "
			 "out_bytes: 8, stash_bytes: [8, 8, 8]}\n"),
		  "pd2bw: p.yaml:11:42: recompute_ms without recomputation "
		  "must be 0");
	CHECK_ERR(load_t(&p, "", "[1]", "",
			 "  - {fwd_ms: 1, bwd_ms: 2, recompute_ms: [0, 2, 1], "
			 "out_bytes: 8, stash_bytes: [8, 8, 8]}\n"),
		  "pd2bw: p.yaml:11:42: selective recomputation takes longer "
		  "than full");
	CHECK_ERR(load_t(&p, "", "[1]", "",
			 "  - {fwd_ms: 1, bwd_ms: 2, recompute_ms: [0, 1], "
			 "out_bytes: 8, stash_bytes: [8, 8, 8]}\n"),
		  "pd2bw: p.yaml:11:42: expected 3 items, found 2");
	CHECK_ERR(load_t(&p, "", "[1]", "",
			 "  - {fwd_ms: 1, bwd_ms: 2, recompute_ms: [0, 0, 1], "
			 "out_bytes: 8, stash_bytes: [8, 8, 8], fwd_us: 3}\n"),
		  "pd2bw: p.yaml:11:91: unknown key 'fwd_us'");
	CHECK_ERR(load_t(&p, "", "[1]", "",
			 "  - {fwd_ms: 1, bwd_ms: 2, recompute_ms: [0, 0, 1], "
			 "stash_bytes: [8, 8, 8]}\n"),
		  "pd2bw: p.yaml:11:5: missing key 'out_bytes'");
	CHECK_ERR(load_t(&p, "", "[1]", "", "  - 3\n"),
		  "pd2bw: p.yaml:11:5: expected a mapping, found a scalar");
	CHECK_ERR(load_t(&p, "", "[1]", "  repeat: 0\n", pt1),
		  "pd2bw: p.yaml:9:11: value 0 out of range [1, 1024]");
	/* the search is quadratic in layers: refused at the reader */
	CHECK_ERR(load_t(&p, "", "[1]", "  repeat: 1025\n", pt1),
		  "pd2bw: p.yaml:9:11: value 1025 out of range [1, 1024]");
	{
		char big[4096];
		const char *two = "  repeat: 600\n";

		snprintf(big, sizeof(big), tmpl, "", "[1]", two, pt1);
		/* a second layer of 600: 1200 after repeats */
		strcat(big, "- name: c\n  kind: block\n  repeat: 600\n"
			    "  params: 10\n  points:\n");
		strcat(big, pt1);
		CHECK_ERR(load_str(&p, big),
			  "pd2bw: p.yaml:7:1: more than 1024 layers after "
			  "repeats (the limit of pd2bw-plan's search)");
	}
	CHECK_ERR(load_t(&p, "", "[1]", "  kind: block\n", pt1),
		  "pd2bw: p.yaml:9:3: duplicate key 'kind' (first at line 8)");
	CHECK_ERR(load_t(&p, "tp: 0\n", "[1]", "", pt1),
		  "pd2bw: p.yaml:3:5: value 0 out of range [1, 65536]");
	/* packed documents: within the sequence */
	CHECK(load_t(&p, "seq_len: 16\ndoc_len: 16\n", "[1]", "", pt1) == 0);
	CHECK_INT_EQ(p.doc_len, 16);
	CHECK_ERR(load_t(&p, "seq_len: 16\ndoc_len: 17\n", "[1]", "", pt1),
		  "pd2bw: p.yaml:4:10: doc_len 17 exceeds seq_len 16");
	CHECK(load_t(&p, "lora_rank: 8\ntrainable: 0.0025\n", "[1]", "",
		     pt1) == 0);
	CHECK_INT_EQ(p.lora_rank, 8);
	CHECK_NEAR(p.trainable, 0.0025, 0);
	CHECK_ERR(load_t(&p, "trainable: 0\n", "[1]", "", pt1),
		  "pd2bw: p.yaml:3:12: value 0 out of range [1e-12, 1000000]");
	CHECK_ERR(load_t(&p, "doc_len: 0\n", "[1]", "", pt1),
		  "pd2bw: p.yaml:3:10: value 0 out of range [1, 1000000000]");
	/* a second precision used to lose silently to the first */
	CHECK_ERR(load_t(&p, "precision: fp8\n", "[1]", "", pt1),
		  "pd2bw: p.yaml:5:1: duplicate key 'precision' (first at "
		  "line 3)");
	snprintf(pts, sizeof(pts), tmpl, "", "[1]", "", pt1);
	memcpy(strstr(pts, "bf16"), "fp4 ", 4);
	CHECK_ERR(load_str(&p, pts),
		  "pd2bw: p.yaml:4:12: invalid precision 'fp4' (expected bf16, "
		  "fp16, fp32, fp8, nvfp4)");
	CHECK_ERR(load_t(&p, "bytes_per_param: {weight: -2}\n", "[1]", "",
			 pt1),
		  "pd2bw: p.yaml:3:27: value -2 out of range [0, 64]");
	CHECK_ERR(load_str(&p, "format: pd2bw-profile/1\nmodel: m\n"),
		  "pd2bw: p.yaml:1:1: missing key 'device'");
	CHECK_ERR(load_str(&p, "format: pd2bw-profile/1\nmodel: m\n"
			       "device: {name: X, backend: tpu, "
			       "memory_bytes: 1}\nprecision: fp32\n"
			       "microbatches: [1]\nlayers: []\n"),
		  "pd2bw: p.yaml:3:28: invalid backend 'tpu' (expected cuda, "
		  "cpu, analytic, pipedream)");
	CHECK_ERR(load_str(&p, "format: pd2bw-model/1\n"),
		  "pd2bw: p.yaml:1:9: not a pd2bw profile file (format "
		  "'pd2bw-model/1')");
	CHECK_ERR(load_str(&p, ""), "pd2bw: p.yaml:1:1: empty document");
	CHECK_ERR(load_str(&p, "[1, 2]\n"),
		  "pd2bw: p.yaml:1:1: expected a mapping, found a sequence");
	CHECK_ERR(load_str(&p, "format: pd2bw-profile/1\nlayers: [\n"),
		  "pd2bw: p.yaml:3:1: did not find expected node content "
		  "while parsing a flow node");
	CHECK_ERR(profile_load(&p, "/nonexistent/p.yaml"),
		  "pd2bw: cannot open '/nonexistent/p.yaml': No such file or "
		  "directory");
	profile_release(&p);
}

static void
test_write(void)
{
	char *dir = cap_mkdtemp(), p1[4400], p2[4400], *a, *b;
	struct profile p, r;

	profile_init(&p);
	profile_init(&r);
	unsetenv("PD2BW_DETERMINISTIC");
	CHECK(profile_load(&p, cap_path(FX "profile-good.yaml")) == 0);
	snprintf(p1, sizeof(p1), "%s/a.yaml", dir);
	snprintf(p2, sizeof(p2), "%s/b.yaml", dir);
	CHECK(profile_write(&p, p1) == 0);
	CHECK(profile_load(&r, p1) == 0);
	CHECK(profile_write(&r, p2) == 0);
	a = cap_slurp(p1);
	b = cap_slurp(p2);
	CHECK(a && b && !strcmp(a, b));
	/* Exact layout: flow points, fixed key order. */
	CHECK(a && strstr(a, "bytes_per_param: {weight: 2, grad: 4, "
			     "optimizer: 12, version: 4}\nmicrobatches: "
			     "[1, 2]\nlayers:\n- name: embedding\n  kind: "
			     "embed\n  repeat: 1\n  params: 7424\n  points:\n"
			     "  - {fwd_ms: 0.01, bwd_ms: 0.02, recompute_ms: "
			     "[0, 0, 0.01], out_bytes: 2048, stash_bytes: "
			     "[2048, 2048, 0], work_bytes: 0, "
			     "fwd_flops: 0}\n"));
	{
		static const char top[] = "format: pd2bw-profile/1\nmodel: "
			"tiny\ndevice:\n  name: V100-16GB\n  backend: cpu\n"
			"  memory_bytes: 17179869184\n  versions: test 1.0\n"
			"precision: fp16\ntp: 1\nseq_len: 16\nhidden: 64\n";

		CHECK(a && !strncmp(a, top, sizeof(top) - 1));
	}
	free(a);
	free(b);
	CHECK_INT_EQ(r.nlayers, 3);
	CHECK_INT_EQ(r.layers[1].pt[0].stash_bytes[PROF_RC_SELECTIVE],
		     35000);
	CHECK_NEAR(r.layers[1].pt[0].fwd_flops, 1600000, 0);
	CHECK_NEAR(r.grad_bytes, 4, 0);
	/* Deterministic output leaves the versions out. */
	setenv("PD2BW_DETERMINISTIC", "1", 1);
	CHECK(profile_write(&p, p2) == 0);
	unsetenv("PD2BW_DETERMINISTIC");
	b = cap_slurp(p2);
	CHECK(b && !strstr(b, "versions") && strstr(b, "memory_bytes: "
						  "17179869184\nprecision"));
	free(b);

	/* What a LoRA estimate and packed documents add: written after the
	 * sequence, read back */
	p.doc_len = 8;
	p.lora_rank = 4;
	p.trainable = 0.0625;
	CHECK(profile_write(&p, p2) == 0);
	b = cap_slurp(p2);
	CHECK(b && strstr(b, "seq_len: 16\ndoc_len: 8\nlora_rank: 4\n"
			     "trainable: 0.0625\nhidden: 64\n"));
	free(b);
	profile_release(&r);
	profile_init(&r);
	CHECK(profile_load(&r, p2) == 0);
	CHECK_INT_EQ(r.doc_len, 8);
	CHECK_INT_EQ(r.lora_rank, 4);
	CHECK_NEAR(r.trainable, 0.0625, 0);

	/* Built in memory with profile_alloc. */
	profile_release(&p);
	profile_alloc(&p, 1, 1);
	p.model = xstrdup("mem");
	p.device = xstrdup("H100-SXM");
	p.backend = xstrdup("analytic");
	p.precision = xstrdup("bf16");
	p.device_mem_bytes = 85899345920LL;
	p.mb[0] = 8;
	p.layers[0].name = xstrdup("blk");
	p.layers[0].kind = PROF_BLOCK;
	p.layers[0].repeat = 3;
	p.layers[0].params = 12;
	p.layers[0].pt[0].fwd_ms = 0.123456789;
	p.layers[0].pt[0].recomp_ms[PROF_RC_FULL] = 0.123456789;
	CHECK(profile_write(&p, p1) == 0);
	CHECK(profile_load(&r, p1) == 0);
	CHECK_NEAR(r.layers[0].pt[0].fwd_ms, 0.123456789, 0);
	CHECK_INT_EQ(r.layers[0].repeat, 3);
	CHECK_INT_EQ(profile_chain_len(&r), 3);
	CHECK_INT_EQ(profile_params(&r), 36);

	CHECK_INT_EQ(cap_count(dir), 2);
	snprintf(p1, sizeof(p1), "%s/none/x.yaml", dir);
	{
		char want[4600];

		snprintf(want, sizeof(want),
			 "pd2bw: cannot create '%s': No such file or "
			 "directory", p1);
		CHECK_ERR(profile_write(&p, p1), want);
	}
	CHECK_INT_EQ(cap_count(dir), 2);
	profile_release(&p);
	profile_release(&r);
	cap_rmdir(dir);
}

static void
test_pipedream(void)
{
	struct profile p;

	profile_init(&p);
	CHECK(profile_load(&p, cap_path(FX "graph-tiny.txt")) == 0);
	CHECK_STR_EQ(p.backend, "pipedream");
	CHECK_INT_EQ(p.nmb, 1);
	CHECK(profile_chain_len(&p) >= 2);
	profile_release(&p);
}

int
main(int argc, char **argv)
{
	(void)argc;
	(void)h_skip;
	(void)h_skip_all;
	cap_find_top(argv[0]);
	test_good();
	test_bad();
	test_write();
	test_pipedream();
	return h_done();
}
