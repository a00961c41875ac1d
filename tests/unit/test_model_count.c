/*
 * test_model_count.c - parameter and FLOP counts of model.h checked against
 * hand-computed values and the published totals of real models.
 */
#include <stddef.h>
#include <stdint.h>

#include "harness.h"
#include "capture.h"
#include "pd2bw/model.h"

#define HF "tests/data/hf/"

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

static void
load(struct model *m, const char *rel)
{
	model_init(m);
	CHECK_MSG(model_load(m, cap_path(rel)) == 0, rel);
}

/*
 * The published counts of today's models, from Hugging Face config.json
 * fixtures (tests/data/hf/README.md), each within the rounding of the
 * model card (half a unit of its last printed digit for totals, one unit
 * for active counts, which cards truncate or round), and the exact value
 * pinned so that a change of the formulas shows.
 */
static void
test_cards(void)
{
	struct model m;

	/* Mixtral-8x7B: 46.7B total, 12.9B active (Mistral AI's post):
	 * attention 41.9M, 8 experts of 3 x 4096 x 14336, router 8h */
	load(&m, HF "mixtral-8x7b");
	CHECK_INT_EQ(m.moe.experts, 8);
	CHECK_INT_EQ(m.moe.top_k, 2);
	CHECK_INT_EQ(model_params(&m), 46702792704LL);
	CHECK_NEAR(model_params(&m) / 1e9, 46.7, 0.05);
	CHECK_INT_EQ(model_active_params(&m), 12879925248LL);
	CHECK_NEAR(model_active_params(&m) / 1e9, 12.9, 0.1);
	model_release(&m);

	/*
	 * DeepSeek-V3: 671B without its MTP module, 37B active (report
	 * Table 1 and section 4.2).  MLA per layer 187107328 (q_a 7168 x
	 * 1536, q_b 1536 x 128 x 192, kv_a 7168 x 576, kv_b 512 x 128 x
	 * 256, o 16384 x 7168, two latent norms); 3 dense layers of 18432,
	 * 58 MoE layers of 256 + 1 experts of 2048, router and its bias.
	 * The card's 685B counts the Hugging Face checkpoint, whose MTP
	 * layer stores its own copies of the embedding and the output head
	 * (2 x 129280 x 7168); training shares them, so they are counted
	 * once here: 682.6B, plus the copies 684.49B; the Hub's 684.53B
	 * ("685B") also counts the checkpoint's FP8 scale tensors, one
	 * per 128 x 128 block (about 41M), hence the card's 0.5%.
	 */
	load(&m, HF "deepseek-v3.json");
	CHECK_INT_EQ(m.attention, MODEL_MLA);
	CHECK_INT_EQ(m.moe.first_dense, 3);
	CHECK_INT_EQ(m.mtp_layers, 1);
	CHECK_INT_EQ(model_layer_params(&m, 0), 583483392);
	CHECK_INT_EQ(model_layer_params(&m, 3), 11507286272LL);
	CHECK_INT_EQ(model_params_no_mtp(&m), 671026419200LL);
	CHECK_NEAR(model_params_no_mtp(&m) / 1e9, 671, 0.5);
	CHECK_INT_EQ(model_params(&m), 682636487424LL);
	CHECK_NEAR((model_params(&m) + 2 * 129280LL * 7168) / 685e9, 1, 0.005);
	CHECK_INT_EQ(model_active_params(&m), 37552297472LL);
	CHECK_NEAR(model_active_params(&m) / 1e9, 37, 1);
	model_release(&m);

	/* Qwen3-30B-A3B: 30.5B total, 3.3B active (Qwen's card). */
	load(&m, HF "qwen3-30b-a3b.json");
	CHECK_INT_EQ(m.qk_norm, 1);
	CHECK_INT_EQ(model_params(&m), 30532122624LL);
	CHECK_NEAR(model_params(&m) / 1e9, 30.5, 0.05);
	CHECK_INT_EQ(model_active_params(&m), 3353032704LL);
	CHECK_NEAR(model_active_params(&m) / 1e9, 3.3, 0.1);
	model_release(&m);

	/* Gemma 7B: 8.54B (Google's card), head_dim 256 > h / heads. */
	load(&m, HF "gemma-7b.json");
	CHECK_INT_EQ(m.activation, MODEL_GEGLU);
	CHECK_INT_EQ(m.head_dim, 256);
	CHECK_INT_EQ(m.tied_embeddings, 1);
	CHECK_INT_EQ(model_params(&m), 8537680896LL);
	CHECK_NEAR(model_params(&m) / 1e9, 8.54, 0.005);
	model_release(&m);

	/* Phi-3-mini: 3.8B (card), 3.82B (technical report's table). */
	load(&m, HF "phi3-mini.json");
	CHECK_INT_EQ(model_params(&m), 3821079552LL);
	CHECK_NEAR(model_params(&m) / 1e9, 3.82, 0.005);
	model_release(&m);

	/* Beyond the list, the same way. */
	/* Qwen3-8B: 8.2B. */
	load(&m, HF "qwen3-8b.json");
	CHECK_INT_EQ(model_params(&m), 8190735360LL);
	CHECK_NEAR(model_params(&m) / 1e9, 8.2, 0.05);
	model_release(&m);
	/* Qwen1.5-MoE-A2.7B: 14.3B total, 2.7B active. */
	load(&m, HF "qwen2-moe-a2.7b.json");
	CHECK_INT_EQ(model_params(&m), 14315784192LL);
	CHECK_NEAR(model_params(&m) / 1e9, 14.3, 0.05);
	CHECK_NEAR(model_active_params(&m) / 1e9, 2.7, 0.1);
	model_release(&m);
	/* DeepSeek-V2-Lite: 15.7B (no query latent). */
	load(&m, HF "deepseek-v2-lite.json");
	CHECK_INT_EQ(m.mla.q_rank, 0);
	CHECK_NEAR(model_params(&m) / 1e9, 15.7, 0.05);
	model_release(&m);
	/* Gemma 2 9B: 9.24B. */
	load(&m, HF "gemma2-9b.json");
	CHECK_NEAR(model_params(&m) / 1e9, 9.24, 0.005);
	model_release(&m);
	/* Gemma 3 4B: the 4.3B of the card less its 0.4B SigLIP vision
	 * tower, which is not counted. */
	load(&m, HF "gemma3-4b.json");
	CHECK_NEAR(model_params(&m) / 1e9, 3.88, 0.005);
	model_release(&m);
	/* GPT-OSS-120B: 116.83B total and 5.13B active without the
	 * embedding (OpenAI's model card): 5.71B with it. */
	load(&m, HF "gpt-oss-120b.json");
	CHECK_INT_EQ(model_params(&m), 116829156672LL);
	CHECK_NEAR(model_params(&m) / 1e9, 116.83, 0.005);
	CHECK_NEAR((model_active_params(&m) - 201088LL * 2880) / 1e9, 5.13,
		   0.005);
	model_release(&m);
}

/* The Nemotron 3 Nano counts, whichever file the model came from. */
static void
nano_counts(const struct model *m)
{
	/*
	 * A Mamba-2 mixer of h 2688, 64 heads of 64 (d_inner 4096), 8
	 * groups of state 128, 4 taps: in_proj h x (2 x 4096 + 2 x 8 x 128
	 * + 64) = 2688 x 10304, the convolution's weights and bias over
	 * 4096 + 2048 = 6144 channels, dt_bias, A_log and D a head, the
	 * gated norm of 4096, out_proj 4096 x h: 27697152 + 24576 + 6144 +
	 * 192 + 4096 + 11010048 = 38742208.
	 */
	CHECK_INT_EQ(model_mamba_params(m), 38742208);
	CHECK_INT_EQ(model_mamba_params(m),
		     2688LL * 10304 + 6144 * 4 + 6144 + 3 * 64 + 4096 +
			     4096LL * 2688);
	/* layer 0 (M): its pre-norm and the mixer; layer 1 (E): the norm,
	 * 128 experts of 2 x 2688 x 1856, the shared one of 2 x 2688 x
	 * 3712, the router 128 x 2688 and its bias; layer 5 (*): 32 query
	 * and 2 KV heads of 128 and the output, 2688 x (4096 + 512) + 4096
	 * x 2688, and the norm */
	CHECK_INT_EQ(model_layer_params(m, 0), 2688 + 38742208);
	CHECK_INT_EQ(model_layer_params(m, 1),
		     2688 + 128 * 2LL * 2688 * 1856 + 2LL * 2688 * 3712 +
			     128 * 2688 + 128);
	CHECK_INT_EQ(model_layer_params(m, 5),
		     2688LL * 4608 + 4096LL * 2688 + 2688);
	/* 23 M, 23 E and 6 * layers, the embedding and the untied head
	 * (131072 x 2688 each) and the final norm: 31.58B, the card's
	 * 31.6B */
	CHECK_INT_EQ(model_params(m), 31577940288LL);
	CHECK_NEAR(model_params(m) / 1e9, 31.58, 0.05);
	/* top-6 of the 128: 3.58B with the embeddings; the card's 3.2B
	 * active leaves out the embedding (0.35B) */
	CHECK_INT_EQ(model_active_params(m), 3580076352LL);
	CHECK_NEAR(model_active_params(m) / 1e9, 3.58, 0.05);
	CHECK_NEAR((model_active_params(m) - 131072LL * 2688) / 1e9, 3.2,
		   0.05);
}

/*
 * Hybrid Mamba models (Nemotron-H): the layer pattern's parameters from
 * the zoo's YAML and from config.json fixtures (models/hf/, where each
 * folder's README.md names its sources).
 */
static void
test_hybrid(void)
{
	struct model m;

	load(&m, "models/nemotron-3-nano.yaml");
	nano_counts(&m);
	model_release(&m);
	load(&m, "models/hf/nemotron-3-nano");
	CHECK_STR_EQ(m.pattern,
		     "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME");
	nano_counts(&m);
	model_release(&m);

	/*
	 * Nemotron-H-8B-Base-8K ("8B" on its card; no finer count found):
	 * h 4096, the mixer 128 heads of 64 (d_inner 8192), 8 groups of
	 * state 128: in_proj 4096 x (2 x 8192 + 2048 + 128) = 76021760,
	 * convolution 10240 x 4 + 10240, dt_bias, A_log, D 3 x 128, gated
	 * norm 8192, out_proj 8192 x 4096 = 33554432: 109635968.
	 * 24 Mamba layers (with the norm 109640064), 4 attention (32 heads
	 * of 128, 8 KV: 4096 x (4096 + 2048) + 4096 x 4096 = 41943040, and
	 * the norm), 24 squared-ReLU MLPs (2 x 4096 x 21504 = 176160768
	 * and the norm), embedding and untied head 2 x 131072 x 4096 =
	 * 1073741824, final norm 4096: 8100852736, 8.10B, 1.3% over the
	 * card's round 8B.
	 */
	load(&m, "models/hf/nemotron-h-8b");
	CHECK_INT_EQ(m.moe.experts, 0);
	CHECK_INT_EQ(model_mamba_params(&m), 109635968);
	CHECK_INT_EQ(model_layer_params(&m, 0), 109640064);
	CHECK_INT_EQ(model_layer_params(&m, 7), 41947136);
	CHECK_INT_EQ(model_layer_params(&m, 1), 176164864);
	CHECK_INT_EQ(model_params(&m),
		     24 * 109640064LL + 4 * 41947136LL + 24 * 176164864LL +
			     2 * 131072LL * 4096 + 4096);
	CHECK_INT_EQ(model_params(&m), 8100852736LL);
	CHECK_NEAR(model_params(&m) / 8e9, 1, 0.02);
	CHECK_INT_EQ(model_active_params(&m), model_params(&m));
	model_release(&m);
}

/* Active FLOPs: the router and top_k + shared experts, MLA, windows. */
static void
test_flops_v2(void)
{
	struct model m;
	double n, blk, head;

	load(&m, HF "mixtral-8x7b");
	m.seq_len = 4096;
	n = 4096;
	blk = 2 * n * 4096 * 6144 + 4 * n * 4096 * 4096 +
	      2 * n * 4096 * 4096 + 2 * n * 4096 * 8 +
	      3 * 2 * n * 4096 * 2.0 * 14336;
	head = 2 * n * 4096 * 32000;
	CHECK_NEAR(model_flops_per_iter(&m, 1, 0) / (3 * 32 * blk + 3 * head),
		   1.0, 1e-12);
	/* A window of 1024 on every other layer. */
	m.window = 1024;
	m.global_every = 2;
	CHECK_INT_EQ(model_layer_span(&m, 0), 1024);
	CHECK_INT_EQ(model_layer_span(&m, 1), 4096);
	CHECK_NEAR(model_flops_per_iter(&m, 1, 0) /
			   (3 * 32 * blk - 3 * 16 * 4 * n * 3072 * 4096 +
			    3 * head),
		   1.0, 1e-12);
	model_release(&m);

	/* DeepSeek-V3 at s = 4096: about 6 x 37B per token plus attention
	 * and MTP. */
	load(&m, HF "deepseek-v3.json");
	m.seq_len = 4096;
	m.mtp_layers = 0;
	CHECK_NEAR(model_flops_per_iter(&m, 1, 0) / 4096 /
			   (6 * (37552297472.0 - 129280.0 * 7168)),
		   1.0, 0.35);
	model_release(&m);
}

int
main(int argc, char **argv)
{
	(void)argc;
	(void)h_skip;
	(void)h_skip_all;
	cap_find_top(argv[0]);
	test_gpt();
	test_bert();
	test_llama();
	test_cards();
	test_hybrid();
	test_flops_v2();
	return h_done();
}
