/*
 * test_model_count.c - parameter and FLOP counts of model.h checked against
 * hand-computed values and the published totals of real models.
 */
#include <stddef.h>
#include <stdint.h>

#include "harness.h"
#include "pd2bw/model.h"

static void
gpt(struct model *m, int layers, int64_t h, int64_t a, int64_t s, int64_t v)
{
	model_init(m);
	m->layers = layers;
	m->hidden = h;
	m->heads = a;
	m->kv_heads = a;
	m->ffn_hidden = 4 * h;
	m->seq_len = s;
	m->vocab = v;
}

static void
llama(struct model *m, int layers, int64_t h, int64_t a, int64_t kv,
      int64_t f)
{
	model_init(m);
	m->family = MODEL_LLAMA;
	m->layers = layers;
	m->hidden = h;
	m->heads = a;
	m->kv_heads = kv;
	m->ffn_hidden = f;
	m->seq_len = 8192;
	m->vocab = 128256;
	m->activation = MODEL_SWIGLU;
	m->norm = MODEL_RMSNORM;
	m->positions = MODEL_ROTARY;
	m->tied_embeddings = 0;
	m->bias = 0;
	m->dropout = 0;
	m->precision = MODEL_BF16;
}

static void
test_gpt(void)
{
	struct model m;
	double want;

	/*
	 * The paper's GPT 2.2B: 32 layers, h 2304, 32 heads, s 512, GPT-2
	 * vocabulary 50257.  Block: QKV 3h^2 + 3h, projection h^2 + h, MLP
	 * 8h^2 + 4h + h, two LayerNorms 4h: 12h^2 + 13h =
	 * 12 * 5308416 + 13 * 2304 = 63700992 + 29952 = 63730944.
	 * Embedding: 50257 * 2304 + 512 * 2304 = 115792128 + 1179648 =
	 * 116971776.  Head (tied): the final LayerNorm, 2h = 4608.
	 * Total: 32 * 63730944 + 116971776 + 4608 = 2156366592.
	 */
	gpt(&m, 32, 2304, 32, 512, 50257);
	CHECK_INT_EQ(model_block_params(&m), 63730944);
	CHECK_INT_EQ(model_block_params(&m), 12 * 2304 * 2304 + 13 * 2304);
	CHECK_INT_EQ(model_embed_params(&m), 116971776);
	CHECK_INT_EQ(model_head_params(&m), 4608);
	CHECK_INT_EQ(model_params(&m), 2156366592LL);
	CHECK_INT_EQ(model_dtype_bytes(&m), 2);

	/* Untied head adds V x h; fp32 doubles the element size. */
	m.tied_embeddings = 0;
	m.precision = MODEL_FP32;
	CHECK_INT_EQ(model_head_params(&m), 4608 + 50257LL * 2304);
	CHECK_INT_EQ(model_dtype_bytes(&m), 4);

	/*
	 * Narayanan et al. for B = 8: 72 B s l h^2 (1 + s/6h + V/12lh) and
	 * 96 B s l h^2 (1 + s/6h + V/16lh) with recomputation.
	 */
	gpt(&m, 32, 2304, 32, 512, 50257);
	want = 72.0 * 8 * 512 * 32 * 2304.0 * 2304 *
	       (1 + 512 / (6.0 * 2304) + 50257 / (12.0 * 32 * 2304));
	CHECK_NEAR(model_flops_per_iter(&m, 8, 0) / want, 1.0, 1e-12);
	want = 96.0 * 8 * 512 * 32 * 2304.0 * 2304 *
	       (1 + 512 / (6.0 * 2304) + 50257 / (16.0 * 32 * 2304));
	CHECK_NEAR(model_flops_per_iter(&m, 8, 1) / want, 1.0, 1e-12);
	CHECK_NEAR(model_flops_per_iter(&m, 8, 0), 54797631750144.0, 1.0);

	/*
	 * GPT-3 175B: 96 layers, h 12288, s 2048, V 50257.  12h^2 + 13h =
	 * 1812099072 per block; embedding 50257 * 12288 + 2048 * 12288 =
	 * 642723840; head 24576: 174604259328 in all ("175B").
	 */
	gpt(&m, 96, 12288, 96, 2048, 50257);
	CHECK_INT_EQ(model_block_params(&m), 1812099072LL);
	CHECK_INT_EQ(model_params(&m), 174604259328LL);

	/* Rotary positions and no biases: 12h^2 + 4h, embedding V h. */
	gpt(&m, 2, 64, 4, 128, 1000);
	m.positions = MODEL_ROTARY;
	m.bias = 0;
	CHECK_INT_EQ(model_block_params(&m), 12 * 64 * 64 + 4 * 64);
	CHECK_INT_EQ(model_embed_params(&m), 64000);
	m.norm = MODEL_RMSNORM;
	CHECK_INT_EQ(model_block_params(&m), 12 * 64 * 64 + 2 * 64);
	CHECK_INT_EQ(model_head_params(&m), 64);
}

static void
test_bert(void)
{
	struct model m;

	/*
	 * BERT-style, h 64, s 128, V 1000, 2 layers: the embedding adds
	 * token types 2h = 128 and a LayerNorm 2h = 128 to 1000 * 64 + 128 *
	 * 64 = 72192: 72448.  Head: dense 64 * 64 + 64, LayerNorm 128,
	 * decoder bias 1000 (matrix tied): 5288.
	 */
	gpt(&m, 2, 64, 4, 128, 1000);
	m.family = MODEL_BERT;
	m.causal = 0;
	CHECK_INT_EQ(model_embed_params(&m), 72448);
	CHECK_INT_EQ(model_head_params(&m), 5288);
	CHECK_INT_EQ(model_params(&m),
		     72448 + 2 * (12 * 64 * 64 + 13 * 64) + 5288);
}

static void
test_llama(void)
{
	struct model m;
	double n, blk;

	/*
	 * Llama-3 8B: h 4096, 32 heads, 8 KV heads (dh 128), ffn 14336,
	 * V 128256, untied, RMSNorm, no biases.  Block: QKV 4096 * (4096 +
	 * 2 * 8 * 128) = 25165824, o_proj 16777216, MLP 3 * 4096 * 14336 =
	 * 176160768, norms 8192: 218112000.  32 blocks 6979584000, embedding
	 * and head 2 * 128256 * 4096 = 1050673152, final norm 4096:
	 * 8030261248, the count Meta publishes.
	 */
	llama(&m, 32, 4096, 32, 8, 14336);
	CHECK_INT_EQ(model_block_params(&m), 218112000);
	CHECK_INT_EQ(model_embed_params(&m), 525336576);
	CHECK_INT_EQ(model_head_params(&m), 525336576 + 4096);
	CHECK_INT_EQ(model_params(&m), 8030261248LL);

	/* Llama-3 70B: 80 layers, h 8192, 64/8 heads, ffn 28672. */
	llama(&m, 80, 8192, 64, 8, 28672);
	CHECK_INT_EQ(model_block_params(&m), 855654400);
	CHECK_INT_EQ(model_params(&m), 70553706496LL);

	/* Llama-3.1 405B: 126 layers, h 16384, 128/8 heads, ffn 53248. */
	llama(&m, 126, 16384, 128, 8, 53248);
	CHECK_INT_EQ(model_params(&m), 405853388800LL);

	/* Llama 2 7B, 13B (no GQA) and 70B: vocabulary 32000. */
	llama(&m, 32, 4096, 32, 32, 11008);
	m.vocab = 32000;
	CHECK_INT_EQ(model_params(&m), 6738415616LL);
	llama(&m, 40, 5120, 40, 40, 13824);
	m.vocab = 32000;
	CHECK_INT_EQ(model_params(&m), 13015864320LL);
	llama(&m, 80, 8192, 64, 8, 28672);
	m.vocab = 32000;
	CHECK_INT_EQ(model_params(&m), 68976648192LL);

	/*
	 * FLOPs from the matmuls, B = 2, Llama-3 8B: N = 16384 tokens;
	 * block forward 2N h 6144 + 4 N s h + 2 N h^2 + 3 * 2 N h f.
	 */
	llama(&m, 32, 4096, 32, 8, 14336);
	n = 2.0 * 8192;
	blk = 2 * n * 4096 * 6144 + 4 * n * 8192 * 4096 + 2 * n * 4096 * 4096 +
	      6 * n * 4096 * 14336;
	CHECK_NEAR(model_flops_per_iter(&m, 2, 0) /
			   (3 * 32 * blk + 3 * 2 * n * 4096 * 128256),
		   1.0, 1e-12);
	CHECK_NEAR(model_flops_per_iter(&m, 2, 1) /
			   (4 * 32 * blk + 3 * 2 * n * 4096 * 128256),
		   1.0, 1e-12);
}

int
main(void)
{
	(void)h_skip;
	(void)h_skip_all;
	test_gpt();
	test_bert();
	test_llama();
	return h_done();
}
