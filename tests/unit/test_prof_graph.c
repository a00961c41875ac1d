/*
 * test_prof_graph.c - the profiler's layer graph: shapes, parameter counts
 * against 12h^2 + 13h, tensor-parallel shards, and stashed bytes against
 * Korthikanti et al. (design.md sections 8 and 9).
 */
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "pd2bw/profile.h"
#include "../../profiler/graph.h"

static void
paper_gpt(struct model *m)
{
	memset(m, 0, sizeof(*m));
	m->family = MODEL_GPT;
	m->layers = 24;
	m->hidden = 2048;
	m->heads = 16;
	m->kv_heads = 16;
	m->ffn_hidden = 8192;
	m->seq_len = 512;
	m->vocab = 50257;
	m->activation = MODEL_GELU;
	m->norm = MODEL_LAYERNORM;
	m->positions = MODEL_LEARNED;
	m->causal = 1;
	m->tied_embeddings = 1;
	m->bias = 1;
	m->dropout = 1;
	m->precision = MODEL_FP16;
}

int
main(void)
{
	struct model m;
	struct prof_graph g;
	int64_t s = 512, h = 2048, a = 16, b = 4, sbh;
	const struct prof_glayer *blk;

	(void)h_skip;
	(void)h_skip_all;
	sbh = s * b * h;
	paper_gpt(&m);
	CHECK(prof_graph_build(&g, &m, 1, 2) == 0);
	blk = &g.layers[1];
	CHECK_INT_EQ(g.nlayers, 3);
	CHECK_INT_EQ(blk->repeat, 24);
	CHECK_INT_EQ(blk->counted, 12 * h * h + 13 * h);
	/* the vocabulary padded as Megatron pads it, to 128 x tp: 50304 */
	CHECK_INT_EQ(g.layers[0].counted, 50304 * h + s * h);
	CHECK_INT_EQ(g.layers[2].counted, 2 * h);  /* tied head: norm only */
	CHECK_INT_EQ(g.layers[2].nparams, 2 * h + 50304 * h);
	CHECK_INT_EQ(prof_layer_find(blk, PROF_OP_ATTN), 2);
	CHECK_INT_EQ(blk->cols[blk->ops[1].out], 3 * h);
	/* 34 sbh + 5 a s^2 b, plus fp32 LayerNorm statistics (2 x 8 bytes) */
	CHECK_INT_EQ(prof_layer_stash(&g, 1, b, PROF_RC_NONE),
		     34 * sbh + 5 * a * s * s * b + 16 * s * b);
	CHECK_INT_EQ(prof_layer_stash(&g, 1, b, PROF_RC_SELECTIVE),
		     34 * sbh + 16 * s * b);
	CHECK_INT_EQ(prof_layer_stash(&g, 1, b, PROF_RC_FULL), 2 * sbh);
	CHECK_INT_EQ(prof_layer_out_bytes(&g, 1, b), 2 * sbh);
	CHECK_NEAR(prof_layer_flops(&g, 1, b) / (24.0 * b * s * h * h +
						 4.0 * b * s * s * h),
		   1.0, 0.01);

	/* tensor parallel t = 4: sbh (10 + 24/t + 5as/ht) */
	CHECK(prof_graph_build(&g, &m, 4, 2) == 0);
	blk = &g.layers[1];
	CHECK_INT_EQ(g.d.heads, 4);
	CHECK_INT_EQ(g.d.ffn, 2048);
	CHECK_INT_EQ(g.d.vocab, 50688 / 4);  /* 396 x 128, a multiple of 512 */
	CHECK_INT_EQ(blk->cols[blk->ops[1].out], 3 * h / 4);
	CHECK_INT_EQ(prof_layer_stash(&g, 1, b, PROF_RC_NONE),
		     16 * sbh + 5 * a * s * s * b / 4 + 16 * s * b);
	CHECK_INT_EQ(prof_layer_stash(&g, 1, b, PROF_RC_SELECTIVE),
		     16 * sbh + 16 * s * b);
	CHECK(prof_graph_build(&g, &m, 3, 2) == -1);

	/* no dropout, fused attention: scores gone, lse per row kept */
	m.dropout = 0;
	m.flash_attention = 1;
	CHECK(prof_graph_build(&g, &m, 1, 2) == 0);
	CHECK_INT_EQ(prof_layer_stash(&g, 1, b, PROF_RC_NONE),
		     32 * sbh + 4 * a * s * b + 16 * s * b);

	/* llama-style: GQA, SwiGLU, RMSNorm, no bias, untied */
	m.family = MODEL_LLAMA;
	m.kv_heads = 4;
	m.ffn_hidden = 5632;
	m.activation = MODEL_SWIGLU;
	m.norm = MODEL_RMSNORM;
	m.positions = MODEL_ROTARY;
	m.bias = 0;
	m.tied_embeddings = 0;
	CHECK(prof_graph_build(&g, &m, 2, 2) == 0);
	blk = &g.layers[1];
	CHECK_INT_EQ(blk->cols[blk->ops[1].out], (8 + 2 * 2) * 128);
	CHECK_INT_EQ(blk->counted, 2 * h + h * 12 * 128 + 8 * 128 * h +
		     h * 2 * 2816 + 2816 * h);
	CHECK_INT_EQ(g.layers[0].counted, 25216 * h); /* 50432 / 2 */
	CHECK_INT_EQ(g.layers[2].counted, h + 25216 * h);
	m.kv_heads = 3;
	CHECK(prof_graph_build(&g, &m, 1, 2) == -1);

	/* bert: post-norm block, embedding norm, transform in the head */
	paper_gpt(&m);
	m.family = MODEL_BERT;
	m.causal = 0;
	CHECK(prof_graph_build(&g, &m, 1, 2) == 0);
	CHECK_INT_EQ(g.layers[0].nops, 2);
	CHECK_INT_EQ(g.layers[1].ops[0].kind, PROF_OP_LINEAR);
	CHECK_INT_EQ(g.layers[1].counted, 12 * h * h + 13 * h);
	CHECK_INT_EQ(g.layers[2].ops[0].kind, PROF_OP_LINEAR);
	return h_done();
}
