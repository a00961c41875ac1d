/*
 * test_fsdp.c - sharded data parallelism and activation offload by hand:
 * the bytes and times of ZeRO-2, ZeRO-3 (FSDP) and HSDP collectives,
 * their overlap with each layer's compute (cost_fsdp()), the memory of
 * every ZeRO stage with FSDP's gathered-layer window, the offload's
 * exposed copies and kept stash, which runtime runs which stage, and
 * torchtitan's FP8 all-gather.
 *
 * The chain: three blocks of 1e8 parameters, forward 1 ms, backward
 * 2 ms, stash 1e9 bytes each; bf16 (2-byte gathers); latencies 0.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "pd2bw/analytic.h"
#include "pd2bw/cluster.h"
#include "pd2bw/cost.h"
#include "pd2bw/error.h"
#include "pd2bw/model.h"
#include "pd2bw/profile.h"
#include "pd2bw/runtime.h"

#define P 100000000.0

static void
make_chain(struct chain *c)
{
	struct profile p;
	int j;

	profile_init(&p);
	profile_alloc(&p, 1, 3);
	p.mb[0] = 1;
	p.seq_len = 128;
	p.hidden = 64;
	p.precision = xstrdup("bf16");
	for (j = 0; j < 3; j++) {
		struct prof_layer *ly = &p.layers[j];
		int r;

		ly->name = xstrdup("block");
		ly->kind = PROF_BLOCK;
		ly->repeat = 1;
		ly->params = (int64_t)P;
		ly->pt[0].fwd_ms = 1;
		ly->pt[0].bwd_ms = 2;
		ly->pt[0].out_bytes = 1 << 20;
		for (r = 0; r < PROF_RC_N; r++)
			ly->pt[0].stash_bytes[r] = 1000000000;
	}
	chain_build(c, &p);
	profile_release(&p);
}

/* One stage over links: replicas' ring 100 GB/s, inside a node 200. */
static void
make_links(struct place_links *l, struct cluster *cl)
{
	cluster_init(cl);
	cluster_preset(cl, "dgx-a100:1");
	place_links_init(l, cl, 1);
	l->ring_gb_s[0] = 100;
	l->ring_lat_us[0] = 0;
	l->node_gb_s = 200;
	l->node_lat_us = 0;
	l->gpus_per_node = 8;
}

static void
test_collectives(const struct chain *c, const struct place_links *l)
{
	struct runtime tt, ds;
	struct cost_opts o;
	struct cost_cfg g;
	double red, gat;

	runtime_init(&tt, RUNTIME_TORCHTITAN);
	runtime_init(&ds, RUNTIME_DEEPSPEED);
	/* torchtitan's FP8 is torchao's: each GEMM casts its own inputs,
	 * tensorwise; DeepSpeed's runs Transformer Engine's modules */
	CHECK_INT_EQ(tt.fp8_casts, ANALYTIC_CASTS_EACH);
	CHECK_INT_EQ(tt.fp8_recipe, FP8_TENSORWISE);
	CHECK_INT_EQ(ds.fp8_casts, ANALYTIC_CASTS_TE);
	cost_opts_init(&o);
	memset(&g, 0, sizeof(g));
	g.sched = PLAN_NONE;
	g.w = 4;
	g.d = g.t = g.v = g.m = 1;
	g.r = PROF_RC_NONE;
	g.zero = 3;
	g.rt = &tt;
	/*
	 * torchtitan ZeRO-3 over 4 ranks at 100 GB/s: a layer's gather
	 * 3/4 x 2e8 B = 1.5 ms, its fp32 reduce-scatter 3/4 x 4e8 B = 3 ms.
	 * Forward: 1.5 + (1.5 - 1) + (1.5 - 1) = 2.5.  Backward, layer 2:
	 * its gather 1.5, then the next gather beside it, 1.5 < 2: 0;
	 * layer 1: gather 1.5 + layer 2's reduction 3 = 4.5 - 2 = 2.5;
	 * layer 0: 3 - 2 = 1; then layer 0's reduction 3.  10.5 in all.
	 */
	CHECK_NEAR(cost_fsdp(c, &o, &g, l, 0, 0, 2), 10.5, 1e-9);
	/* the steady share of one layer: 0.5 + (1.5 + 3 - 2) = 3 */
	CHECK_NEAR(cost_fsdp_layer(c, &o, &g, l, 0, 1), 3, 1e-9);
	/*
	 * The same on a GPU of 128 SMs: NCCL's 32 CTAs slow the compute
	 * beside each collective by 32/128 of the time it hides.  Hidden:
	 * forward min(1.5, 1) twice = 2; backward layer 2 min(1.5, 2) =
	 * 1.5, layer 1 min(4.5, 2) = 2, layer 0 min(3, 2) = 2: 7.5 ms,
	 * a quarter of it 1.875: 12.375.  One layer: hidden 1 + 2 = 3,
	 * 0.75 more: 3.75.
	 */
	o.sms = 128;
	CHECK_NEAR(cost_contention(&o, 7.5, COST_NCCL_CTAS), 1.875, 1e-12);
	CHECK_NEAR(cost_fsdp(c, &o, &g, l, 0, 0, 2), 12.375, 1e-9);
	CHECK_NEAR(cost_fsdp_layer(c, &o, &g, l, 0, 1), 3.75, 1e-9);
	o.sms = 0;
	/* no reduction per update: it ran per microbatch */
	cost_dp_sync(&o, &g, l, 0, (int64_t)(3 * P), &red, &gat);
	CHECK_NEAR(red, 0, 0);
	CHECK_NEAR(gat, 0, 0);
	/*
	 * HSDP, groups of 2 inside a node at 200 GB/s: gather 1/2 x 2e8 /
	 * 2e11 = 0.5 ms; reduce-scatter 1/2 x 4e8 / 2e11 = 1 ms, then the
	 * 2e8-byte shard all-reduced over 2 replicas at 100 GB/s: ring
	 * 2 x 1/2 x 2e8 / 1e11 = 2 ms; reduction 3.  Forward 0.5; backward
	 * 0.5 + 0 + (0.5 + 3 - 2) + (3 - 2) + 3 = 6; 6.5 in all.
	 */
	g.shard = 2;
	CHECK_NEAR(cost_fsdp(c, &o, &g, l, 0, 0, 2), 6.5, 1e-9);
	g.shard = 0;
	/*
	 * torchtitan ZeRO-2 (reshard_after_forward never): the forward
	 * gathers as above, 2.5; backward reduces only: layer 2 nothing,
	 * layer 1 3 - 2 = 1, layer 0 1, then 3: 7.5.
	 */
	g.zero = 2;
	CHECK_NEAR(cost_fsdp(c, &o, &g, l, 0, 0, 2), 7.5, 1e-9);
	/*
	 * DeepSpeed ZeRO-2 keeps whole 16-bit weights: no forward gathers;
	 * it reduces in bf16 (1.5 ms a layer, hidden behind 2 ms) and the
	 * last one, 1.5; after the step it gathers the updated weights
	 * once: 3/4 x 6e8 B / 1e11 = 4.5 ms.
	 */
	g.rt = &ds;
	CHECK_NEAR(cost_fsdp(c, &o, &g, l, 0, 0, 2), 1.5, 1e-9);
	cost_dp_sync(&o, &g, l, 0, (int64_t)(3 * P), &red, &gat);
	CHECK_NEAR(red, 0, 0);
	CHECK_NEAR(gat, 4.5, 1e-9);
	/* ZeRO-1 and none are not FSDP traffic */
	g.zero = 1;
	CHECK_NEAR(cost_fsdp(c, &o, &g, l, 0, 0, 2), 0, 0);
	/* torchtitan under a pipeline keeps the gathered parameters to the
	 * backward: ZeRO-3 then gathers only in the forward */
	g.rt = &tt;
	g.zero = 3;
	g.d = 2;
	g.sched = PLAN_FLUSH;
	CHECK_NEAR(cost_fsdp(c, &o, &g, l, 0, 0, 2), 7.5, 1e-9);
	g.d = 1;
	g.sched = PLAN_NONE;
	/*
	 * An FP8 model, tensorwise, under torchtitan:fp8-all-gather: the
	 * blocks' weights gathered in FP8, 3/4 x 1e8 B = 0.75 ms a layer,
	 * reduced in fp32 as before (3 ms).  Forward 0.75 (the next two
	 * hide behind 1 ms); backward: layer 2's gather 0.75, layer 1's
	 * beside it hidden, then 0.75 + 3 - 2 = 1.75, 3 - 2 = 1 and the
	 * last reduction 3: 7.25 in all.  Without the option FP8 changes
	 * nothing (2-byte gathers): 10.5.
	 */
	o.precision = MODEL_FP8;
	o.fp8_recipe = FP8_TENSORWISE;
	CHECK_NEAR(cost_fsdp(c, &o, &g, l, 0, 0, 2), 10.5, 1e-9);
	CHECK(runtime_parse(&tt, "torchtitan:fp8-all-gather") == 0);
	CHECK(cost_fp8_all_gather(&o, &g));
	CHECK_NEAR(cost_fsdp(c, &o, &g, l, 0, 0, 2), 7.25, 1e-9);
	/* float8.py:65-69, 85-94: not for rowwise scaling, not without a
	 * data-parallel shard (FSDP over context-parallel ranks alone) */
	o.fp8_recipe = FP8_DELAYED;
	CHECK(!cost_fp8_all_gather(&o, &g));
	o.fp8_recipe = FP8_TENSORWISE;
	g.w = 1;
	g.c = 4;
	CHECK(!cost_fp8_all_gather(&o, &g));
	g.w = 4;
	g.c = 0;
	o.precision = MODEL_BF16;
	CHECK(!cost_fp8_all_gather(&o, &g));
	runtime_init(&tt, RUNTIME_TORCHTITAN);
}

static void
test_memory(const struct chain *c)
{
	struct runtime tt;
	struct cost_opts o;
	struct cost_cfg g;
	struct plan_stage st;

	runtime_init(&tt, RUNTIME_TORCHTITAN);
	cost_opts_init(&o);
	memset(&g, 0, sizeof(g));
	g.sched = PLAN_NONE;
	g.w = 4;
	g.d = g.t = g.v = g.m = 1;
	g.r = PROF_RC_NONE;
	g.rt = &tt;
	/* torchtitan bf16: no weights at rest (fp32 parameters, the
	 * optimizer's master), fp32 gradients 4, Adam 12 bytes per
	 * parameter with the master: 16 in all; 3e8 parameters */
	g.zero = 0;
	cost_stage_mem(c, &o, &g, 0, 0, 2, NULL, &st);
	CHECK_INT_EQ(st.weight_bytes, 0);
	CHECK_INT_EQ(st.state_bytes, 4800000000);
	/* ZeRO-2: gradients and state / 4; the gathered bf16 weights kept
	 * from forward to backward, 2 x 3e8 */
	g.zero = 2;
	cost_stage_mem(c, &o, &g, 0, 0, 2, NULL, &st);
	CHECK_INT_EQ(st.weight_bytes, 600000000);
	CHECK_INT_EQ(st.state_bytes, 1200000000);
	/* ZeRO-3: two gathered layers in bf16 (4e8) and one unsharded fp32
	 * gradient (4e8) */
	g.zero = 3;
	cost_stage_mem(c, &o, &g, 0, 0, 2, NULL, &st);
	CHECK_INT_EQ(st.weight_bytes, 800000000);
	CHECK_INT_EQ(st.state_bytes, 1200000000);
	CHECK_NEAR(cost_param_bytes(&o, &g), 4, 1e-12);
	{
		/* an FP8 model under torchtitan:fp8-all-gather gathers its
		 * blocks' weights in FP8: the two gathered layers take
		 * 2 x 1e8 bytes instead of 2 x 2e8; kept over a pipeline
		 * (all three layers) 3e8 instead of 6e8 */
		int64_t w0, k0;

		o.precision = MODEL_FP8;
		o.fp8_recipe = FP8_TENSORWISE;
		cost_stage_mem(c, &o, &g, 0, 0, 2, NULL, &st);
		w0 = st.weight_bytes;
		g.d = 2;
		g.sched = PLAN_FLUSH;
		cost_stage_mem(c, &o, &g, 0, 0, 2, NULL, &st);
		k0 = st.weight_bytes;
		CHECK(runtime_parse(&tt, "torchtitan:fp8-all-gather") == 0);
		cost_stage_mem(c, &o, &g, 0, 0, 2, NULL, &st);
		CHECK_INT_EQ(k0 - st.weight_bytes, 300000000);
		g.d = 1;
		g.sched = PLAN_NONE;
		cost_stage_mem(c, &o, &g, 0, 0, 2, NULL, &st);
		CHECK_INT_EQ(w0 - st.weight_bytes, 200000000);
		runtime_init(&tt, RUNTIME_TORCHTITAN);
		o.precision = MODEL_BF16;
	}
	{
		/* torchao keeps no FP8 copies of the weights: an FP8 model
		 * holds none at rest; under ZeRO-2 the kept gathered copy is
		 * bf16 (6e8), or FP8 under fp8-all-gather (3e8) */
		o.precision = MODEL_FP8;
		o.fp8_recipe = FP8_TENSORWISE;
		g.zero = 0;
		cost_stage_mem(c, &o, &g, 0, 0, 2, NULL, &st);
		CHECK_INT_EQ(st.weight_bytes, 0);
		g.zero = 2;
		cost_stage_mem(c, &o, &g, 0, 0, 2, NULL, &st);
		CHECK_INT_EQ(st.weight_bytes, 600000000);
		CHECK(runtime_parse(&tt, "torchtitan:fp8-all-gather") == 0);
		cost_stage_mem(c, &o, &g, 0, 0, 2, NULL, &st);
		CHECK_INT_EQ(st.weight_bytes, 300000000);
		runtime_init(&tt, RUNTIME_TORCHTITAN);
		o.precision = MODEL_BF16;
		g.zero = 3;
	}
	/* HSDP in groups of 2: the state / 2, the gathered window as
	 * before */
	g.shard = 2;
	cost_stage_mem(c, &o, &g, 0, 0, 2, NULL, &st);
	CHECK_INT_EQ(st.weight_bytes, 800000000);
	CHECK_INT_EQ(st.state_bytes, 2400000000);
	{
		/* torch.distributed.pipelining (torchtitan over 2 stages,
		 * 4 microbatches, flush): stage 0 keeps its 2 outputs in
		 * flight and 4 gradient buffers beside the 2 x 3 stashes,
		 * each a 1 MiB output; under TP 2 halved (the p2p's out /
		 * t); the last stage none; interleaved (v 2) stage 0 keeps
		 * every chunk's, 2 x (5/2 in flight + 4) = 13 of them
		 * (cost_stash_mbs(): min(2 + 2 + 1, 8) / 2), the last
		 * stage its first chunk's, 3/2 + 4 = 5.5 */
		struct cost_cfg p = g;

		p.shard = 0;
		p.zero = 0;
		p.d = 2;
		p.m = 4;
		p.sched = PLAN_FLUSH;
		cost_stage_mem(c, &o, &p, 0, 0, 2, NULL, &st);
		CHECK_INT_EQ(st.stash_bytes, 2 * 3000000000LL + 6 * 1048576);
		CHECK_NEAR(cost_pp_bufs(c, &o, &p, 0, 2), 6 * 1048576.0, 0);
		cost_stage_mem(c, &o, &p, 1, 0, 2, NULL, &st);
		CHECK_INT_EQ(st.stash_bytes, 3000000000LL);
		p.t = 2;
		CHECK_NEAR(cost_pp_bufs(c, &o, &p, 0, 2), 3 * 1048576.0, 0);
		p.t = 1;
		p.v = 2;
		CHECK_NEAR(cost_pp_bufs(c, &o, &p, 0, 2), 13 * 1048576.0, 0);
		CHECK_NEAR(cost_pp_bufs(c, &o, &p, 1, 2), 5.5 * 1048576.0, 0);
		/* Megatron-Core frees what it sent: none */
		p.v = 1;
		p.rt = NULL;
		o.runtime = RUNTIME_MEGATRON_CORE;
		CHECK_NEAR(cost_pp_bufs(c, &o, &p, 0, 2), 0, 0);
		o.runtime = -1;
	}
	/* offload keeps the last layer's stash and one in transit; with
	 * --offload N the first N blocks' stashes leave, one of them in
	 * transit stays: N 2 keeps block 2 and one (2e9), N 1 blocks 1
	 * and 2 and one (3e9, no saving with equal layers); on a stage of
	 * blocks 1-2, N 2 moves block 1 alone: block 2 and block 1 in
	 * transit */
	g.shard = 0;
	g.zero = 0;
	{
		static const struct {
			int offload, n, a;
			int64_t stash;
		} k[] = {
			{0, 0, 0, 3000000000}, {1, 0, 0, 2000000000},
			{1, 2, 0, 2000000000}, {1, 1, 0, 3000000000},
			{1, 2, 1, 2000000000},
		};
		size_t i;

		for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
			g.offload = k[i].offload;
			o.offload_blocks = k[i].n;
			cost_stage_mem(c, &o, &g, 0, k[i].a, 2, NULL, &st);
			CHECK_INT_EQ(st.stash_bytes, k[i].stash);
		}
		o.offload_blocks = 0;
	}
}

static void
test_offload(const struct chain *c)
{
	struct runtime ddp;
	struct cost_opts o;
	struct cost_cfg g;

	runtime_init(&ddp, RUNTIME_PYTORCH_DDP);
	cost_opts_init(&o);
	memset(&g, 0, sizeof(g));
	g.sched = PLAN_NONE;
	g.w = g.d = g.t = g.v = g.m = 1;
	g.r = PROF_RC_NONE;
	g.rt = &ddp;
	g.offload = 1;
	/* 1e9 bytes at 500 GB/s: 2 ms a copy, against 1 ms of forward
	 * (1 exposed) and 2 ms of backward (0), for layers 0 and 1 */
	o.host_gb_s = 500;
	CHECK_NEAR(cost_offload(c, &o, &g, 0, 2), 2, 1e-9);
	/* --offload 1: layer 0's copy alone (1 exposed) */
	o.offload_blocks = 1;
	CHECK_NEAR(cost_offload(c, &o, &g, 0, 2), 1, 1e-9);
	/* a stage of blocks 1-2 holds none of the model's first block */
	CHECK_NEAR(cost_offload(c, &o, &g, 1, 2), 0, 0);
	o.offload_blocks = 2;
	CHECK_NEAR(cost_offload(c, &o, &g, 1, 2), 1, 1e-9);
	o.offload_blocks = 0;
	/* PCIe Gen4 at 32 GB/s: 31.25 ms a copy: 30.25 + 29.25, twice */
	o.host_gb_s = 32;
	CHECK_NEAR(cost_offload(c, &o, &g, 0, 2), 2 * (30.25 + 29.25), 1e-9);
	/* NVLink-C2C (GB200's 450 GB/s): 2.222 ms: 1.222 + 0.222, twice */
	o.host_gb_s = 450;
	CHECK_NEAR(cost_offload(c, &o, &g, 0, 2), 2 * (1e9 / 450e6 - 1 +
						       1e9 / 450e6 - 2),
		   1e-9);
	g.offload = 0;
	CHECK_NEAR(cost_offload(c, &o, &g, 0, 2), 0, 0);
}

static void
test_runtimes(void)
{
	struct runtime rt;
	char why[256];

	runtime_init(&rt, RUNTIME_TORCHTITAN);
	CHECK(runtime_check(&rt, PLAN_NONE, 1, 1, 1, 3, PROF_RC_NONE, why,
			    sizeof(why)) == 0);
	CHECK(runtime_check(&rt, PLAN_NONE, 1, 1, 1, 1, PROF_RC_NONE, why,
			    sizeof(why)) < 0);
	CHECK(strstr(why, "torchtitan") && strstr(why, "--zero 1"));
	CHECK(runtime_check_shard(&rt, 1, 3, 8, 0, PROF_RC_NONE, why,
				  sizeof(why)) == 0);
	CHECK(runtime_check_shard(&rt, 1, 3, 0, 1, PROF_RC_NONE, why,
				  sizeof(why)) < 0);
	CHECK(strstr(why, "--offload"));
	/* DeepSpeed's pipeline engine: ZeRO < 2 (pipe/engine.py:77-78) */
	runtime_init(&rt, RUNTIME_DEEPSPEED);
	CHECK(runtime_check(&rt, PLAN_NONE, 1, 1, 1, 3, PROF_RC_NONE, why,
			    sizeof(why)) == 0);
	CHECK(runtime_check(&rt, PLAN_FLUSH, 4, 1, 1, 2, PROF_RC_NONE, why,
			    sizeof(why)) < 0);
	CHECK(strstr(why, "deepspeed") && strstr(why, "with a pipeline"));
	CHECK(runtime_check_shard(&rt, 1, 3, 8, 0, PROF_RC_NONE, why,
				  sizeof(why)) < 0);
	CHECK(strstr(why, "--shard-group"));
	/* Megatron: offload without pipeline and recomputation
	 * (transformer_config.py:1891-1899) */
	runtime_init(&rt, RUNTIME_MEGATRON_CORE);
	CHECK(runtime_check_shard(&rt, 1, 0, 0, 1, PROF_RC_NONE, why,
				  sizeof(why)) == 0);
	CHECK(runtime_check_shard(&rt, 2, 0, 0, 1, PROF_RC_NONE, why,
				  sizeof(why)) < 0);
	CHECK(runtime_check_shard(&rt, 1, 0, 0, 1, PROF_RC_FULL, why,
				  sizeof(why)) < 0);
	CHECK(strstr(why, "recomputation"));
	runtime_init(&rt, RUNTIME_PYTORCH_DDP);
	CHECK(runtime_check(&rt, PLAN_NONE, 1, 0, 1, 2, PROF_RC_NONE, why,
			    sizeof(why)) < 0);
}

int
main(void)
{
	struct chain c;
	struct place_links l;
	struct cluster cl;

	make_chain(&c);
	make_links(&l, &cl);
	test_collectives(&c, &l);
	test_memory(&c);
	test_offload(&c);
	test_runtimes();
	place_links_release(&l);
	cluster_release(&cl);
	chain_release(&c);
	return h_done();
}
