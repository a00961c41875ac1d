/*
 * test_lora.c - LoRA (--lora R, analytic_opts lora_rank): the adapters'
 * share of the parameters by hand, what the estimate drops (the frozen
 * weights' gradients, the embedding's backward) and adds (each adapter's
 * kernels, hand-priced), and what a stage keeps and pays at the
 * adapters' share against full training.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "tiny_llama.h"
#include "kernel_entry.h"
#include "capture.h"
#include "pd2bw/analytic.h"
#include "pd2bw/chain.h"
#include "pd2bw/cluster.h"
#include "pd2bw/cost.h"
#include "pd2bw/kernels.h"
#include "pd2bw/place.h"
#include "pd2bw/plan.h"

static struct gpu_catalog cat;

static int
run_on(struct profile *p, const struct model *m, int lora, unsigned targets,
       struct kernel_list *ks)
{
	static const int mb[] = {1};
	struct analytic_par par;
	struct analytic_opts o;

	analytic_par_init(&par, 1, 0);
	analytic_opts_init(&o);
	o.lora_rank = lora;
	o.lora_targets = targets;
	profile_init(p);
	return analytic_profile_kernels(p, m, catalog_find(&cat, "H100-SXM"),
					mb, 1, &par, &o, ks);
}

static int
run(struct profile *p, const struct model *m, int lora,
    struct kernel_list *ks)
{
	return run_on(p, m, lora, 0, ks);
}

/* The time layer l's pass lists. */
static double
listed(const struct kernel_list *ks, int l, int pass)
{
	double ms = 0;
	size_t k;

	for (k = 0; k < ks->n; k++)
		if (ks->k[k].layer == l && ks->k[k].pass == pass)
			ms += ks->k[k].ms;
	return ms;
}

/*
 * The share: r (in + out) for each of a block's four linears, QKV
 * 64 -> 64 + 2 x 32, the projection 64 -> 64, the gated MLP 64 -> 256
 * and 128 -> 64: 832 r a block, 6,656 at rank 4 over two blocks, against
 * the model's 86,848 parameters (embedding 6,400; a block 36,992: QKV
 * 8,192, projection 4,096, MLP 16,384 + 8,192, two norms of 64; the
 * final norm and the untied head 6,464).
 */
static void
test_share(void)
{
	struct model m;

	tiny_llama(&m);
	CHECK_INT_EQ((int)model_params(&m), 86848);
	CHECK_NEAR(analytic_lora_share(&m, 4, 0), 6656.0 / 86848, 1e-15);
	CHECK_NEAR(analytic_lora_share(&m, 0, 0), 0, 0);
	/* QKV alone (NeMo 1.0's default target): 192 r a block */
	CHECK_NEAR(analytic_lora_share(&m, 4, ANALYTIC_LORA_QKV),
		   2 * 4 * 192.0 / 86848, 1e-15);
	CHECK_NEAR(analytic_lora_share(&m, 4, ANALYTIC_LORA_PROJ |
						      ANALYTIC_LORA_FC2),
		   2 * 4 * (128.0 + 192) / 86848, 1e-15);
	/* Llama 3 8B (the zoo's) at rank 16: 1,114,112 a block, 32 blocks */
	model_init(&m);
	CHECK(model_load(&m, cap_path("models/llama3-8b.yaml")) == 0);
	CHECK_INT_EQ((int)(model_params(&m) / 1000), 8030261);
	CHECK_NEAR(analytic_lora_share(&m, 16, ANALYTIC_LORA_ALL),
		   32 * 1114112.0 / (double)model_params(&m), 1e-15);
	model_release(&m);
}

/*
 * The estimate at rank 4 against full training, microbatch 1 (32 rows):
 * the frozen linears keep their input gradients and lose their weight
 * gradients (QKV's 64 x 32 x 128, the head's 64 x 32 x 128 of the
 * padded vocabulary); each adapter's x A is a 32 x 64 x 4 GEMM, priced
 * as analytic_gemm_ms() prices one (QKV's, the projection's and the first
 * MLP GEMM's, whose inputs are all 64 wide: three calls); the embedding runs no backward; the profile says what trains.
 */
static void
test_estimate(void)
{
	const struct gpu_spec *g = catalog_find(&cat, "H100-SXM");
	const struct kernel_entry *e;
	struct kernel_list kf, kl;
	struct profile full, lora;
	struct model m;

	tiny_llama(&m);
	memset(&kf, 0, sizeof(kf));
	memset(&kl, 0, sizeof(kl));
	CHECK(run(&full, &m, 0, &kf) == 0);
	CHECK(run(&lora, &m, 4, &kl) == 0);
	CHECK_INT_EQ(full.lora_rank, 0);
	CHECK_NEAR(full.trainable, 0, 0);
	CHECK_INT_EQ(lora.lora_rank, 4);
	CHECK_NEAR(lora.trainable, 6656.0 / 86848, 1e-15);
	CHECK(entry(&kf, 1, KERNEL_PASS_BWD, "gemm 64x32x128") != NULL);
	CHECK(entry(&kl, 1, KERNEL_PASS_BWD, "gemm 64x32x128") == NULL);
	CHECK(entry(&kl, 1, KERNEL_PASS_BWD, "gemm 32x128x64") != NULL);
	CHECK(entry(&kf, 2, KERNEL_PASS_BWD, "gemm 64x32x128") != NULL);
	CHECK(entry(&kl, 2, KERNEL_PASS_BWD, "gemm 64x32x128") == NULL);
	e = entry(&kl, 1, KERNEL_PASS_FWD, "gemm 32x64x4");
	CHECK(e != NULL);
	if (e) {
		CHECK_INT_EQ(e->calls, 3);
		CHECK_NEAR(e->ms, 3 * analytic_gemm_ms(g, 0, 32, 64, 4),
			   1e-15);
	}
	CHECK(entry(&kf, 1, KERNEL_PASS_FWD, "gemm 32x64x4") == NULL);
	CHECK(entry(&kl, 1, KERNEL_PASS_FWD, "lora add") != NULL);
	/* the listing adds up to the point, which runs the adapters */
	CHECK_NEAR(listed(&kl, 1, KERNEL_PASS_FWD), lora.layers[1].pt[0].fwd_ms,
		   1e-12);
	CHECK_NEAR(listed(&kl, 1, KERNEL_PASS_BWD), lora.layers[1].pt[0].bwd_ms,
		   1e-12);
	CHECK(lora.layers[1].pt[0].fwd_ms > full.layers[1].pt[0].fwd_ms);
	CHECK(lora.layers[2].pt[0].bwd_ms < full.layers[2].pt[0].bwd_ms);
	CHECK_NEAR(lora.layers[0].pt[0].bwd_ms, 0, 0);
	CHECK(full.layers[0].pt[0].bwd_ms > 0);
	CHECK_NEAR(lora.layers[0].pt[0].fwd_ms, full.layers[0].pt[0].fwd_ms,
		   0);
	/* each adapter keeps x A (32 x 4, 16-bit) */
	CHECK_INT_EQ((int)(lora.layers[1].pt[0].stash_bytes[PROF_RC_NONE] -
			   full.layers[1].pt[0].stash_bytes[PROF_RC_NONE]),
		     4 * 32 * 4 * 2);
	kernels_free(&kl);
	profile_release(&lora);

	/* on QKV alone: one adapter, its x A the one 32 x 64 x 4 GEMM; the
	 * other linears still frozen (no weight gradient), and keeping no
	 * input: the first MLP GEMM's (32 x 64), the projection's (32 x 64)
	 * and the second MLP GEMM's (32 x 128) 16-bit inputs are gone,
	 * 16,384 bytes, the adapter's x A (256) added */
	memset(&kl, 0, sizeof(kl));
	CHECK(run_on(&lora, &m, 4, ANALYTIC_LORA_QKV, &kl) == 0);
	e = entry(&kl, 1, KERNEL_PASS_FWD, "gemm 32x64x4");
	CHECK(e != NULL && e->calls == 1);
	CHECK(entry(&kl, 1, KERNEL_PASS_BWD, "gemm 128x32x64") == NULL);
	CHECK_NEAR(lora.trainable, 2 * 4 * 192.0 / 86848, 1e-15);
	CHECK_INT_EQ((int)(lora.layers[1].pt[0].stash_bytes[PROF_RC_NONE] -
			   full.layers[1].pt[0].stash_bytes[PROF_RC_NONE]),
		     32 * 4 * 2 - 2 * (32 * 64 + 32 * 64 + 32 * 128));
	kernels_free(&kf);
	kernels_free(&kl);
	profile_release(&full);
	profile_release(&lora);

	/* FP8 (delayed scaling, H100): a frozen linear's input and grad
	 * output are cast rowwise alone, so the norm writes the QKV input's
	 * FP8 copy with nothing after it (no transpose), and every other
	 * cast writes one copy, not two */
	m.precision = MODEL_FP8;
	memset(&kf, 0, sizeof(kf));
	memset(&kl, 0, sizeof(kl));
	CHECK(run(&full, &m, 0, &kf) == 0);
	CHECK(run(&lora, &m, 4, &kl) == 0);
	{
		const struct kernel_entry *qf =
			entry(&kf, 1, KERNEL_PASS_FWD, "quantize");
		const struct kernel_entry *ql =
			entry(&kl, 1, KERNEL_PASS_FWD, "quantize");
		const struct kernel_entry *bf =
			entry(&kf, 1, KERNEL_PASS_BWD, "quantize");
		const struct kernel_entry *bl =
			entry(&kl, 1, KERNEL_PASS_BWD, "quantize");

		CHECK(qf && ql && bf && bl);
		if (qf && ql)
			CHECK(ql->calls < qf->calls && ql->ms < qf->ms);
		if (bf && bl)
			CHECK(bl->calls == bf->calls && bl->ms < bf->ms);
	}
	kernels_free(&kf);
	kernels_free(&kl);
	profile_release(&full);
	profile_release(&lora);
	m.precision = MODEL_BF16;

	/* a rank past the hidden size is no low-rank adapter */
	CHECK_ERR(run(&lora, &m, 65, &kl),
		  "pd2bw: model 'tiny': LoRA rank 65 exceeds its hidden size "
		  "64 or attention width 64");
	profile_release(&lora);

	/* what the estimate does not price */
	m.moe.experts = 8;
	m.moe.top_k = 2;
	m.moe.expert_ffn = 64;
	CHECK_ERR(run(&lora, &m, 4, &kl),
		  "pd2bw: model 'tiny': LoRA is priced on dense blocks of "
		  "multi-head attention (no experts, MLA, Mamba or "
		  "multi-token prediction)");
	profile_release(&lora);
}

/*
 * A stage of the whole model over 4 data-parallel ranks: the frozen
 * weights stay, the adapters' 16-bit copies join them; gradients,
 * optimizer state and the optimizer's step shrink to the adapters'
 * share; the gradient reduction moves that share of the bytes.
 */
static void
test_stage(void)
{
	const struct gpu_spec *gpu = catalog_find(&cat, "H100-SXM");
	struct profile pf, pl;
	struct kernel_list ks;
	struct model m;
	struct chain cf, cl_;
	struct cost_opts of, ol;
	struct cost_cfg g;
	struct place_links l;
	struct cluster cl;
	struct plan_stage full, lora;
	struct runtime rt;
	double t, params;
	int zero;

	tiny_llama(&m);
	memset(&ks, 0, sizeof(ks));
	CHECK(run(&pf, &m, 0, &ks) == 0);
	kernels_free(&ks);
	CHECK(run(&pl, &m, 4, &ks) == 0);
	kernels_free(&ks);
	t = pl.trainable;
	CHECK(chain_build(&cf, &pf) == 0);
	CHECK(chain_build(&cl_, &pl) == 0);
	params = (double)chain_params(&cf, 0, cf.L - 1);
	cluster_init(&cl);
	CHECK(cluster_open(&cl, "dgx-h100:1") == 0);
	place_links_init(&l, &cl, 1);
	place_links_fill_par(&l, &cl, PLAN_STAGES_IN_NODE, 4, 1, 1, 1, 1, 1);
	CHECK(runtime_parse(&rt, "megatron-core") == 0);
	for (zero = 0; zero <= 1; zero++) {
		memset(&g, 0, sizeof(g));
		g.sched = PLAN_FLUSH;
		g.w = 4;
		g.d = g.t = g.v = g.e = g.m = 1;
		g.zero = zero;
		g.rt = &rt;
		cost_opts_init(&of);
		cost_opts_from_profile(&of, &pf, gpu);
		cost_opts_init(&ol);
		cost_opts_from_profile(&ol, &pl, gpu);
		CHECK_NEAR(ol.trainable, t, 0);
		CHECK_NEAR(cost_trained(&ol), t, 0);
		CHECK_NEAR(cost_trained(&of), 1, 0);
		cost_stage(&cf, &of, &g, &l, 0, 0, cf.L - 1, &full);
		cost_stage(&cl_, &ol, &g, &l, 0, 0, cl_.L - 1, &lora);
		CHECK_NEAR((double)lora.state_bytes,
			   t * (double)full.state_bytes, 1);
		CHECK_NEAR((double)(lora.weight_bytes - full.weight_bytes),
			   2 * t * params, 1);
		CHECK_NEAR(lora.optimizer_ms, t * full.optimizer_ms, 1e-15);
		CHECK(lora.allreduce_ms < full.allreduce_ms);
		CHECK(lora.compute_ms != full.compute_ms);
	}
	place_links_release(&l);
	cluster_release(&cl);
	chain_release(&cf);
	chain_release(&cl_);
	profile_release(&pf);
	profile_release(&pl);
}

int
main(int argc, char **argv)
{
	(void)argc;
	(void)h_skip;
	(void)h_skip_all;
	cap_find_top(argv[0]);
	catalog_init(&cat);
	test_share();
	test_estimate();
	test_stage();
	catalog_release(&cat);
	return h_done();
}
