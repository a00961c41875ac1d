/*
 * model_count.c - closed-form parameter and FLOP counts of a model
 * description (the counting half of model.h; loading lives in model.c).
 *
 * Parameters are exact for every variant the format describes: multi-head
 * or grouped-query attention, GELU MLP (two matrices) or SwiGLU (three
 * matrices of ffn_hidden), LayerNorm (weight and bias, 2h) or RMSNorm
 * (weight, h), with or without linear biases, learned (seq_len x h) or
 * rotary (no parameters) positions, tied or untied output head.  For the
 * plain GPT block this is 12h^2 + 13h (design.md section 8).
 *
 * BERT adds what the BERT paper's model has beyond GPT: token-type
 * embeddings (2 x h) and a LayerNorm on the embedding output, and a
 * masked-LM head made of a dense h x h layer with bias, a LayerNorm and a
 * decoder bias of V; it has no final norm (post-LN blocks).
 * NEEDSWORK: BERT's pooler and next-sentence head (h^2 + 3h + 2) are not
 * counted: pretraining with the masked-LM loss alone does not need them.
 */
#include <stddef.h>

#include "pd2bw/model.h"

int
model_dtype_bytes(const struct model *m)
{
	return m->precision == MODEL_FP32 ? 4 : 2;
}

static int64_t
norm_params(const struct model *m)
{
	return m->norm == MODEL_RMSNORM ? m->hidden : 2 * m->hidden;
}

/* Width of the fused QKV projection's output: h + 2 kv_heads head_dim. */
static int64_t
qkv_width(const struct model *m)
{
	int64_t dh = m->hidden / m->heads;
	int64_t kv = m->kv_heads > 0 ? m->kv_heads : m->heads;

	return m->hidden + 2 * kv * dh;
}

/* Matrices of the MLP that have ffn_hidden on one side. */
static int64_t
mlp_mats(const struct model *m)
{
	return m->activation == MODEL_SWIGLU ? 3 : 2;
}

int64_t
model_block_params(const struct model *m)
{
	int64_t h = m->hidden, f = m->ffn_hidden, q = qkv_width(m);
	int64_t n;

	n = h * q + h * h + mlp_mats(m) * h * f + 2 * norm_params(m);
	if (m->bias)
		/* QKV, output projection, MLP up (x2 for SwiGLU), down. */
		n += q + h + (mlp_mats(m) - 1) * f + h;
	return n;
}

int64_t
model_embed_params(const struct model *m)
{
	int64_t n = m->vocab * m->hidden;

	if (m->positions == MODEL_LEARNED)
		n += m->seq_len * m->hidden;
	if (m->family == MODEL_BERT)
		n += 2 * m->hidden + norm_params(m);
	return n;
}

int64_t
model_head_params(const struct model *m)
{
	int64_t h = m->hidden, n;

	if (m->family == MODEL_BERT) {
		/* Masked-LM transform (dense + norm), decoder bias. */
		n = h * h + norm_params(m) + m->vocab;
		if (m->bias)
			n += h;
	} else {
		n = norm_params(m);
	}
	if (!m->tied_embeddings)
		n += m->vocab * h;
	return n;
}

int64_t
model_params(const struct model *m)
{
	return model_embed_params(m) + (int64_t)m->layers *
		model_block_params(m) + model_head_params(m);
}

/*
 * Model FLOPs are matrix-multiply FLOPs only (2 per multiply-add), counted
 * per matmul of one block's forward pass:
 *   QKV 2 N h (h + 2 kv dh), scores 2 N s h, probabilities x V 2 N s h,
 *   output projection 2 N h^2, MLP (2 or 3) x 2 N h f,
 * with N = B s tokens, and the output projection to the vocabulary 2 N h V.
 * Backward is twice the forward; full recomputation repeats the blocks'
 * forward once more but not the head's (Megatron never recomputes the
 * loss).  Causal masking is not subtracted, as in the paper.  For the GPT
 * shape (kv = a, f = 4h, GELU) this reduces exactly to Narayanan et al.'s
 * 72 B s l h^2 (1 + s/6h + V/12lh), and with recomputation to their
 * equation 3, 96 B s l h^2 (1 + s/6h + V/16lh).
 */
double
model_flops_per_iter(const struct model *m, int64_t B, int recompute)
{
	double n = (double)B * (double)m->seq_len;
	double h = (double)m->hidden, s = (double)m->seq_len;
	double block, head;

	block = 2 * n * h * (double)qkv_width(m) + 4 * n * s * h +
		2 * n * h * h +
		(double)mlp_mats(m) * 2 * n * h * (double)m->ffn_hidden;
	head = 2 * n * h * (double)m->vocab;
	return (recompute ? 4.0 : 3.0) * (double)m->layers * block +
		3.0 * head;
}
