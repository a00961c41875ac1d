/*
 * model_count.c - closed-form parameter and FLOP counts of a model
 * description (the counting half of model.h; loading lives in model.c).
 *
 * Parameters are exact for every variant the format describes: multi-head
 * or grouped-query attention, GELU MLP (two matrices) or SwiGLU/GeGLU
 * (three matrices of ffn_hidden), LayerNorm (weight and bias, 2h) or
 * RMSNorm (weight, h), with or without linear biases, learned (seq_len x h)
 * or rotary (no parameters) positions, tied or untied output head.  For
 * the plain GPT block this is 12h^2 + 13h (design.md section 8).
 *
 * Format 2 adds, per block:
 *   head_dim d: the query and output projections are h x heads d, K and V
 *     h x kv_heads d each (Gemma's 16 x 256 heads on h = 3072);
 *   qkv_bias: q, k, v biases only (Qwen2); qk_norm: one RMSNorm of d for
 *     queries and one for keys (Qwen3, Gemma 3); post_norms: two more
 *     norms of h (Gemma 2, 3); attn_sinks: one logit per head (GPT-OSS);
 *   MLA (DeepSeek-V2/V3): q_a h x q_rank, its RMSNorm, q_b q_rank x heads
 *     (nope + rope) (or one h x heads (nope + rope) without q_rank),
 *     kv_a h x (kv_rank + rope), its RMSNorm, kv_b kv_rank x heads (nope +
 *     v), o heads v x h;
 *   MoE layers: experts x one gated MLP of expert_ffn (with biases when
 *     bias is on: GPT-OSS), shared_experts x one of shared_ffn, the router
 *     h x experts (plus a bias of experts with router_bias or bias), the
 *     shared-expert gate h (Qwen2-MoE);
 * and each multi-token-prediction module (DeepSeek-V3) one more block of
 * the last layer's kind, two RMSNorms of h, a 2h x h projection and the
 * shared head's RMSNorm; the embedding and the output head are shared.
 *
 * BERT adds what the BERT paper's model has beyond GPT: token-type
 * embeddings (2 x h) and a LayerNorm on the embedding output, and a
 * masked-LM head made of a dense h x h layer with bias, a LayerNorm and a
 * decoder bias of V; it has no final norm (post-LN blocks).
 * NEEDSWORK: BERT's pooler and next-sentence head (h^2 + 3h + 2) are not
 * counted: pretraining with the masked-LM loss alone does not need them.
 */
#include <stddef.h>
#include <string.h>

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

int64_t
model_vocab_shard(const struct model *m, int tp, int pad)
{
	int t = tp > 1 ? tp : 1;
	int64_t q = (int64_t)(pad > 1 ? pad : 1) * t;

	return (m->vocab + q - 1) / q * q / t;
}

int64_t
model_head_dim(const struct model *m)
{
	if (m->attention == MODEL_MLA)
		return m->mla.v_dim;
	if (m->head_dim)
		return m->head_dim;
	return m->heads > 0 ? m->hidden / m->heads : 0;
}

int
model_is_hybrid(const struct model *m)
{
	return m->pattern[0] != 0;
}

int
model_layer_kind(const struct model *m, int i)
{
	size_t k = strnlen(m->mtp_pattern, sizeof(m->mtp_pattern));

	if (!model_is_hybrid(m) || i < 0)
		return 'B';
	if (i < m->layers)
		return (unsigned char)m->pattern[i];
	if ((size_t)(i - m->layers) < k)
		return (unsigned char)m->mtp_pattern[i - m->layers];
	return 'B';
}

int
model_mtp_module_layers(const struct model *m)
{
	size_t k = strnlen(m->mtp_pattern, sizeof(m->mtp_pattern));

	return model_is_hybrid(m) && k ? (int)k : 1;
}

int
model_mtp_layer(const struct model *m, int j)
{
	if (model_is_hybrid(m) && m->mtp_pattern[0])
		return m->layers + j;
	return m->layers - 1;
}

int
model_mtp_weight_sets(const struct model *m)
{
	return m->mtp_shared && m->mtp_layers > 0 ? 1 : m->mtp_layers;
}

int64_t
model_expert_width(const struct model *m)
{
	return m->moe.latent > 0 ? m->moe.latent : m->hidden;
}

/*
 * LatentMoE's projections (Megatron-Core moe_layer.py:266-300 at
 * d98e8a6): fc1_latent_proj h x latent before the dispatch and
 * fc2_latent_proj latent x h after the combine, TELinear in the
 * "duplicated" mode (every tensor-parallel rank holds them whole), with
 * the model's linear biases.
 */
int64_t
model_latent_params(const struct model *m)
{
	int64_t h = m->hidden, l = m->moe.latent;

	if (l <= 0)
		return 0;
	return 2 * h * l + (m->bias ? l + h : 0);
}

int
model_layer_is_moe(const struct model *m, int i)
{
	int every = m->moe.every > 0 ? m->moe.every : 1;

	if (model_is_hybrid(m))
		return model_layer_kind(m, i) == MODEL_LAYER_MOE;
	return m->moe.experts > 0 && i >= m->moe.first_dense &&
	       (i - m->moe.first_dense) % every == 0;
}

/*
 * A Mamba-2 mixer's weights (Megatron-Core's MambaMixer, mamba_mixer.py
 * at d98e8a6: in_proj 281-286, conv1d with its bias 321-335, dt_bias,
 * A_log and D of a head each (D_has_hdim off), the gated RMSNorm of
 * d_inner 422-430, out_proj 437-444); the projections carry biases
 * where the model's linears do.
 */
int64_t
model_mamba_params(const struct model *m)
{
	const struct model_mamba *b = &m->mamba;
	int64_t h = m->hidden, di = b->heads * b->head_dim;
	int64_t conv = di + 2 * b->groups * b->state;
	int64_t in = 2 * di + 2 * b->groups * b->state + b->heads;
	int64_t n = h * in + conv * b->conv + conv + 3 * b->heads + di +
		    di * h;

	if (m->bias)
		n += in + h;
	return n;
}

int64_t
model_layer_span(const struct model *m, int i)
{
	if (!m->window || m->window >= m->seq_len)
		return m->seq_len;
	if (m->global_every > 0 && (i + 1) % m->global_every == 0)
		return m->seq_len;
	return m->window;
}

/* Width of the fused QKV projection's output: h + 2 kv_heads head_dim. */
static int64_t
qkv_width(const struct model *m)
{
	int64_t dh = model_head_dim(m);
	int64_t kv = m->kv_heads > 0 ? m->kv_heads : m->heads;

	if (!m->head_dim)
		return m->hidden + 2 * kv * dh;
	return (m->heads + 2 * kv) * dh;
}

/* Matrices of the MLP that have ffn_hidden on one side. */
static int64_t
mlp_mats(const struct model *m)
{
	return m->activation == MODEL_GELU || m->activation == MODEL_SQRELU
		       ? 2
		       : 3;
}

/* The weights of MLA's five (or four) matrices. */
static int64_t
mla_matrices(const struct model *m)
{
	const struct model_mla *a = &m->mla;
	int64_t h = m->hidden, qd = a->nope_dim + a->rope_dim;

	return (a->q_rank ? h * a->q_rank + a->q_rank * m->heads * qd
			  : h * m->heads * qd) +
	       h * (a->kv_rank + a->rope_dim) +
	       a->kv_rank * m->heads * (a->nope_dim + a->v_dim) +
	       m->heads * a->v_dim * h;
}

/* Parameters of the attention half: projections, biases, extra norms. */
static int64_t
attn_params(const struct model *m)
{
	int64_t h = m->hidden, n, dh = model_head_dim(m);

	if (m->attention == MODEL_MLA) {
		const struct model_mla *a = &m->mla;
		int64_t qd = a->nope_dim + a->rope_dim;

		/* and the RMSNorms of the two latents */
		n = mla_matrices(m) + a->q_rank + a->kv_rank;
		if (m->bias)
			n += m->heads * qd + a->kv_rank + a->rope_dim +
			     m->heads * (a->nope_dim + a->v_dim) + h;
	} else {
		int64_t q = qkv_width(m), ctx = m->heads * dh;

		n = h * q + ctx * h;
		if (m->bias)
			n += q + h;
		else if (m->qkv_bias)
			n += q;
	}
	if (m->qk_norm)
		n += 2 * (m->attention == MODEL_MLA
				  ? m->mla.nope_dim + m->mla.rope_dim
				  : dh);
	if (m->attn_sinks)
		n += m->heads;
	return n;
}

/* One gated or plain MLP of inner size f on an input of width in. */
static int64_t
mlp_params_in(const struct model *m, int64_t in, int64_t f)
{
	int64_t n = mlp_mats(m) * in * f;

	if (m->bias)
		/* up (x2 when gated), down */
		n += (mlp_mats(m) - 1) * f + in;
	return n;
}

static int64_t
mlp_params(const struct model *m, int64_t f)
{
	return mlp_params_in(m, m->hidden, f);
}

/* One routed expert: at the latent width under LatentMoE. */
static int64_t
expert_params(const struct model *m)
{
	return mlp_params_in(m, model_expert_width(m), m->moe.expert_ffn);
}

/* Router and shared-expert gate of a MoE layer. */
static int64_t
router_params(const struct model *m)
{
	int64_t n = m->hidden * m->moe.experts;

	if (m->bias || m->moe.router_bias)
		n += m->moe.experts;
	if (m->moe.shared_gate)
		n += m->hidden;
	return n;
}

static int64_t
block_norms(const struct model *m)
{
	return (m->post_norms ? 4 : 2) * norm_params(m);
}

/* Parameters of block i with `routed` of its routed experts counted. */
static int64_t
layer_params(const struct model *m, int i, int64_t routed)
{
	int64_t n = attn_params(m) + block_norms(m);

	/* a hybrid model's layer: its pre-norm and one sublayer */
	switch (model_layer_kind(m, i)) {
	case MODEL_LAYER_MAMBA:
		return norm_params(m) + model_mamba_params(m);
	case MODEL_LAYER_ATTN:
		return norm_params(m) + attn_params(m);
	case MODEL_LAYER_MLP:
		return norm_params(m) + mlp_params(m, m->ffn_hidden);
	case MODEL_LAYER_MOE:
		return norm_params(m) + routed * expert_params(m) +
		       m->moe.shared_experts *
			       mlp_params(m, m->moe.shared_ffn) +
		       router_params(m) + model_latent_params(m);
	default:
		break;
	}

	if (!model_layer_is_moe(m, i))
		return n + mlp_params(m, m->ffn_hidden);
	return n + routed * expert_params(m) +
	       m->moe.shared_experts * mlp_params(m, m->moe.shared_ffn) +
	       router_params(m) + model_latent_params(m);
}

int64_t
model_layer_params(const struct model *m, int i)
{
	return layer_params(m, i, m->moe.experts);
}

int64_t
model_layer_active_params(const struct model *m, int i)
{
	return layer_params(m, i, m->moe.top_k);
}

int64_t
model_layer_expert_params(const struct model *m, int i)
{
	if (!model_layer_is_moe(m, i))
		return 0;
	return m->moe.experts * expert_params(m);
}

int64_t
model_block_params(const struct model *m)
{
	return model_layer_params(m, 0);
}

int64_t
model_mtp_extra_params(const struct model *m)
{
	int64_t h = m->hidden;

	return 2 * norm_params(m) + 2 * h * h + norm_params(m);
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

/* Sum of the blocks: every block alike unless MoE placement says not. */
static int64_t
blocks_params(const struct model *m, int active)
{
	int64_t n = 0;
	int i;

	if (!m->moe.experts && !model_is_hybrid(m))
		return (int64_t)m->layers * model_layer_params(m, 0);
	for (i = 0; i < m->layers; i++)
		n += active ? model_layer_active_params(m, i)
			    : model_layer_params(m, i);
	return n;
}

int64_t
model_params_no_mtp(const struct model *m)
{
	return model_embed_params(m) + blocks_params(m, 0) +
	       model_head_params(m);
}

int64_t
model_mtp_module_params(const struct model *m)
{
	int64_t n = model_mtp_extra_params(m);
	int j;

	for (j = 0; j < model_mtp_module_layers(m); j++)
		n += model_layer_params(m, model_mtp_layer(m, j));
	return n;
}

int64_t
model_params(const struct model *m)
{
	return model_params_no_mtp(m) +
	       model_mtp_weight_sets(m) * model_mtp_module_params(m);
}

int64_t
model_active_params(const struct model *m)
{
	return model_embed_params(m) + blocks_params(m, 1) +
	       model_head_params(m);
}

/*
 * Forward FLOPs of a Mamba-2 mixer for n tokens: its two projections,
 * and the chunked scan's matmuls per token (Dao and Gu 2024, section 6):
 * the chunk's states B^T x and their output C h, 2 N d_inner each, the
 * diagonal block (C^T B within the chunk, masked, times x) 2 Q d_inner
 * and 2 Q N per group, at chunk size Q.
 */
static double
mamba_flops(const struct model *m, double n)
{
	const struct model_mamba *b = &m->mamba;
	double h = (double)m->hidden, di = (double)(b->heads * b->head_dim);
	double N = (double)b->state, g = (double)b->groups;
	double Q = (double)b->chunk, in = 2 * di + 2 * g * N +
					   (double)b->heads;

	return 2 * n * h * in + 2 * n * di * h +
	       n * (4 * N * di + 2 * Q * di + 2 * Q * N * g);
}

/*
 * Forward matmul FLOPs of block i for n tokens of sequences of s: the
 * projections, scores and probabilities x V over the layer's span (the
 * whole s x s, causal masking not subtracted), and the MLP: dense, or the
 * router, top_k routed and the shared experts per token.
 */
static double
block_flops(const struct model *m, int i, double n)
{
	double h = (double)m->hidden, span = (double)model_layer_span(m, i);
	double a = (double)m->heads, f, mats = (double)mlp_mats(m);
	int kind = model_layer_kind(m, i);

	if (kind == MODEL_LAYER_MAMBA)
		return mamba_flops(m, n);

	if (m->attention == MODEL_MLA) {
		const struct model_mla *l = &m->mla;
		double qd = (double)(l->nope_dim + l->rope_dim);

		f = 2 * n * (double)mla_matrices(m) +
		    2 * n * span * a * (qd + (double)l->v_dim);
	} else if (!m->head_dim) {
		f = 2 * n * h * (double)qkv_width(m) + 4 * n * span * h +
		    2 * n * h * h;
	} else {
		double ctx = a * (double)model_head_dim(m);

		f = 2 * n * h * (double)qkv_width(m) + 4 * n * span * ctx +
		    2 * n * ctx * h;
	}
	if (kind == MODEL_LAYER_ATTN)
		return f;
	if (kind == MODEL_LAYER_MLP || kind == MODEL_LAYER_MOE)
		f = 0;
	if (!model_layer_is_moe(m, i))
		return f + mats * 2 * n * h * (double)m->ffn_hidden;
	return f + 2 * n * h * (double)m->moe.experts +
	       mats * 2 * n * (double)model_expert_width(m) *
		       (double)m->moe.top_k * (double)m->moe.expert_ffn +
	       mats * 2 * n * h * (double)m->moe.shared_experts *
		       (double)m->moe.shared_ffn +
	       (m->moe.latent > 0 ? 4 * n * h * (double)m->moe.latent : 0);
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
 * equation 3, 96 B s l h^2 (1 + s/6h + V/16lh).  MLA's projections cost
 * 2 N per weight of its matrices, its scores 2 N s heads (nope + rope)
 * and probabilities x V 2 N s heads v; a multi-token-prediction module
 * adds a block, its 2h x h projection and another head.
 */
double
model_flops_per_iter(const struct model *m, int64_t B, int recompute)
{
	double n = (double)B * (double)m->seq_len;
	double h = (double)m->hidden, s = (double)m->seq_len;
	double block, head, blocks = 0, mtp;
	int i;

	head = 2 * n * h * (double)m->vocab;
	if (!model_is_v2(m)) {
		block = 2 * n * h * (double)qkv_width(m) + 4 * n * s * h +
			2 * n * h * h +
			(double)mlp_mats(m) * 2 * n * h *
				(double)m->ffn_hidden;
		return (recompute ? 4.0 : 3.0) * (double)m->layers * block +
		       3.0 * head;
	}
	for (i = 0; i < m->layers; i++)
		blocks += block_flops(m, i, n);
	mtp = 2 * n * 2 * h * h + head;
	for (i = 0; i < model_mtp_module_layers(m); i++)
		mtp += block_flops(m, model_mtp_layer(m, i), n);
	mtp *= m->mtp_layers;
	return (recompute ? 4.0 : 3.0) * blocks + 3.0 * head + 3.0 * mtp;
}
