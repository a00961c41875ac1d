/*
 * graph.c - the layer graph of a model (embedding, transformer block, head)
 * as op lists over row-major [T, cols] tensors, and what the graph alone
 * decides: parameters, forward FLOPs, bytes stashed for backward under each
 * recomputation option, boundary and transient bytes.
 */
#include <string.h>

#include "pd2bw/error.h"
#include "pd2bw/profile.h"
#include "graph.h"

const char *const prof_op_names[] = {
	"embed", "norm", "linear", "attention", "gelu", "swiglu", "add",
	"cross_entropy", NULL
};

static int
add_tensor(struct prof_glayer *l, const char *name, int64_t cols)
{
	l->tname[l->ntensors] = name;
	l->cols[l->ntensors] = cols;
	return l->ntensors++;
}

static struct prof_op *
add_op(struct prof_glayer *l, int kind, const char *name, int in0, int in1,
       int out)
{
	struct prof_op *op = &l->ops[l->nops++];

	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->name = name;
	op->in[0] = in0;
	op->in[1] = in1;
	op->out = out;
	op->param_off = l->nparams;
	return op;
}

static void
own_params(struct prof_glayer *l, struct prof_op *op, int64_t n, int counted)
{
	op->nparams = n;
	l->nparams += n;
	if (counted)
		l->counted += n;
}

/* y = norm(x) with gamma (and beta for LayerNorm); returns y. */
static int
norm(struct prof_glayer *l, const struct prof_dims *d, const char *name,
     const char *yname, int x)
{
	int y = add_tensor(l, yname, d->h);
	struct prof_op *op = add_op(l, PROF_OP_NORM, name, x, -1, y);

	op->n = d->h;
	op->bias = !d->rms;
	own_params(l, op, d->rms ? d->h : 2 * d->h, 1);
	return y;
}

static int
linear(struct prof_glayer *l, const char *name, const char *yname, int x,
       int64_t n, int bias, int tied)
{
	int y = add_tensor(l, yname, n);
	struct prof_op *op = add_op(l, PROF_OP_LINEAR, name, x, -1, y);

	op->n = n;
	op->k = l->cols[x];
	op->bias = bias;
	op->tied = tied;
	own_params(l, op, n * op->k + (bias ? n : 0), !tied);
	return y;
}

static int
unary(struct prof_glayer *l, int kind, const char *name, const char *yname,
      int x, int64_t cols)
{
	int y = add_tensor(l, yname, cols);

	add_op(l, kind, name, x, -1, y);
	return y;
}

static int
add(struct prof_glayer *l, const char *name, const char *yname, int a, int b)
{
	int y = add_tensor(l, yname, l->cols[a]);

	add_op(l, PROF_OP_ADD, name, a, b, y);
	return y;
}

static void
build_embed(struct prof_glayer *l, const struct prof_dims *d)
{
	int ids, x;
	struct prof_op *op;

	l->name = "embedding";
	l->kind = PROF_EMBED;
	l->repeat = 1;
	ids = add_tensor(l, "ids", 1);
	x = add_tensor(l, "x", d->h);
	op = add_op(l, PROF_OP_EMBED, "embed", ids, -1, x);
	op->n = d->h;
	op->k = d->vocab;
	own_params(l, op, d->vocab * d->h + (d->rotary ? 0 : d->s * d->h), 1);
	if (d->post_norm)
		x = norm(l, d, "embed_norm", "y", x);
	l->out = x;
}

static void
build_block(struct prof_glayer *l, const struct prof_dims *d, int repeat)
{
	int64_t qkv_cols = (d->heads + 2 * d->kv_heads) * d->head_dim;
	int x, a, qkv, ctx, o, r1, m, f1, act, f2, r2;

	l->name = "block";
	l->kind = PROF_BLOCK;
	l->repeat = repeat;
	x = add_tensor(l, "x", d->h);
	a = d->post_norm ? x : norm(l, d, "norm1", "norm1_out", x);
	qkv = linear(l, "qkv", "qkv", a, qkv_cols, d->bias, 0);
	ctx = add_tensor(l, "context", d->heads * d->head_dim);
	add_op(l, PROF_OP_ATTN, "attention", qkv, -1, ctx);
	o = linear(l, "proj", "proj_out", ctx, d->h, d->bias, 0);
	r1 = add(l, "residual1", "residual1", x, o);
	if (d->post_norm)
		r1 = norm(l, d, "norm1", "norm1_out", r1);
	m = d->post_norm ? r1 : norm(l, d, "norm2", "norm2_out", r1);
	f1 = linear(l, "fc1", "fc1_out", m, d->swiglu ? 2 * d->ffn : d->ffn,
		    d->bias, 0);
	if (d->swiglu)
		act = unary(l, PROF_OP_SWIGLU, "swiglu", "act_out", f1, d->ffn);
	else
		act = unary(l, PROF_OP_GELU, "gelu", "act_out", f1, d->ffn);
	f2 = linear(l, "fc2", "fc2_out", act, d->h, d->bias, 0);
	r2 = add(l, "residual2", "residual2", r1, f2);
	if (d->post_norm)
		r2 = norm(l, d, "norm2", "out", r2);
	l->out = r2;
}

static void
build_head(struct prof_glayer *l, const struct prof_dims *d)
{
	int x, y, loss;

	l->name = "head";
	l->kind = PROF_HEAD;
	l->repeat = 1;
	x = add_tensor(l, "x", d->h);
	y = x;
	if (!d->post_norm)
		y = norm(l, d, "final_norm", "norm_out", y);
	if (d->bert_head) {
		y = linear(l, "transform", "transform_out", y, d->h, d->bias,
			   0);
		y = unary(l, PROF_OP_GELU, "transform_gelu", "gelu_out", y,
			  d->h);
		y = norm(l, d, "transform_norm", "transform_norm_out", y);
	}
	y = linear(l, "vocab", "logits", y, d->vocab, 0, d->tied);
	loss = unary(l, PROF_OP_XENT, "loss", "loss", y, 1);
	l->out = loss;
}

int
prof_graph_build(struct prof_graph *g, const struct model *m, int tp,
		 int dtype_bytes)
{
	struct prof_dims *d = &g->d;

	memset(g, 0, sizeof(*g));
	if (tp < 1)
		return pd2bw_error("tensor-parallel degree %d is not positive",
				   tp);
	/* NEEDSWORK: the measured backends have no kernels for these yet;
	 * a dense stand-in would be a silent approximation */
	if (model_is_v2(m))
		return pd2bw_error("model '%s' uses %s, which only the "
				   "analytic backend prices",
				   m->name ? m->name : "",
				   m->moe.experts ? "experts (moe)"
				   : m->attention == MODEL_MLA ? "attention mla"
				   : m->window ? "a sliding window"
				   : m->doc_len ? "packed documents (doc_len)"
				   : m->activation == MODEL_GEGLU ? "geglu"
				   : m->head_dim ? "head_dim"
				   : "format-2 keys");
	if (m->heads < 1 || m->hidden % m->heads)
		return pd2bw_error("%lld heads do not divide hidden size %lld",
				   (long long)m->heads, (long long)m->hidden);
	if (m->heads % tp || m->kv_heads % tp || m->ffn_hidden % tp)
		return pd2bw_error("tensor-parallel degree %d does not divide "
				   "heads %lld, kv_heads %lld and ffn_hidden "
				   "%lld", tp, (long long)m->heads,
				   (long long)m->kv_heads,
				   (long long)m->ffn_hidden);
	if (m->kv_heads < 1 || m->heads % m->kv_heads)
		return pd2bw_error("kv_heads %lld do not divide heads %lld",
				   (long long)m->kv_heads,
				   (long long)m->heads);
	d->s = m->seq_len;
	d->h = m->hidden;
	d->head_dim = m->hidden / m->heads;
	d->heads = m->heads / tp;
	d->kv_heads = m->kv_heads / tp;
	d->ffn = m->ffn_hidden / tp;
	/* padded as Megatron pads it: GPT-2's 50257 rows would otherwise
	 * leave the output layer's GEMM without the alignment cuBLASLt's
	 * fast kernels need (on an H200 its sm75 kernels took a quarter of
	 * GPT-2 XL's measured time) */
	d->vocab = model_vocab_shard(m, tp, MODEL_MEGATRON_VOCAB_PAD);
	d->tp = tp;
	d->rms = m->norm == MODEL_RMSNORM;
	d->swiglu = m->activation == MODEL_SWIGLU;
	d->causal = m->causal;
	d->rotary = m->positions == MODEL_ROTARY;
	if (m->positions == MODEL_NOPOS || model_is_hybrid(m))
		return pd2bw_error("model '%s': the measured backends build "
				   "transformer blocks with learned or rotary "
				   "positions; use --backend analytic",
				   m->name ? m->name : "");
	d->bias = m->bias;
	d->post_norm = m->family == MODEL_BERT;
	d->bert_head = m->family == MODEL_BERT;
	d->tied = m->tied_embeddings;
	d->dropout = m->dropout;
	d->flash = m->flash_attention;
	d->dtype_bytes = dtype_bytes;
	if (d->rotary && d->head_dim % 2)
		return pd2bw_error("rotary positions need an even head "
				   "dimension, not %lld",
				   (long long)d->head_dim);
	g->nlayers = 3;
	build_embed(&g->layers[0], d);
	build_block(&g->layers[1], d, m->layers);
	build_head(&g->layers[2], d);
	return 0;
}

double
prof_op_flops(const struct prof_graph *g, const struct prof_op *op,
	      int64_t b)
{
	const struct prof_dims *d = &g->d;
	double T = (double)b * (double)d->s;

	switch (op->kind) {
	case PROF_OP_LINEAR:
		return 2.0 * T * (double)op->n * (double)op->k;
	case PROF_OP_ATTN:
		/* QK^T and PV over the full square (causal may skip half) */
		return 4.0 * (double)b * (double)d->heads * (double)d->s *
		       (double)d->s * (double)d->head_dim;
	case PROF_OP_NORM:
		return 7.0 * T * (double)op->n;
	case PROF_OP_GELU:
		return 8.0 * T * (double)d->ffn;
	case PROF_OP_SWIGLU:
		return 5.0 * T * (double)d->ffn;
	case PROF_OP_ADD:
	case PROF_OP_EMBED:
		return T * (double)d->h;
	case PROF_OP_XENT:
		return 4.0 * T * (double)d->vocab;
	}
	return 0;
}

double
prof_layer_flops(const struct prof_graph *g, int layer, int64_t b)
{
	const struct prof_glayer *l = &g->layers[layer];
	double f = 0;
	int i;

	for (i = 0; i < l->nops; i++)
		f += prof_op_flops(g, &l->ops[i], b);
	return f;
}

int
prof_layer_find(const struct prof_glayer *l, int kind)
{
	int i;

	for (i = 0; i < l->nops; i++)
		if (l->ops[i].kind == kind)
			return i;
	return -1;
}

/* Bytes of one element of tensor t of layer l (token ids are int32). */
static int64_t
tensor_bytes(const struct prof_graph *g, const struct prof_glayer *l, int t,
	     int64_t T)
{
	if (l->kind == PROF_EMBED && t == 0)
		return T * 4;
	if (l->ops[l->nops - 1].kind == PROF_OP_XENT && t == l->out)
		return T * 4;
	return T * l->cols[t] * g->d.dtype_bytes;
}

int64_t
prof_layer_stash(const struct prof_graph *g, int layer, int64_t b, int rc)
{
	const struct prof_dims *d = &g->d;
	const struct prof_glayer *l = &g->layers[layer];
	int64_t T = b * d->s, bytes = 0, scores = b * d->heads * d->s * d->s;
	char kept[PROF_MAX_TENSORS] = {0};
	int i;

	/* full recomputation checkpoints the blocks alone; the embedding
	 * and the head keep everything (analytic.c, rc_outside_blocks()) */
	if (rc == PROF_RC_FULL && l->kind == PROF_BLOCK)
		return tensor_bytes(g, l, 0, T);
	for (i = 0; i < l->nops; i++) {
		const struct prof_op *op = &l->ops[i];

		switch (op->kind) {
		case PROF_OP_EMBED:
			kept[op->in[0]] = 1;    /* ids, to scatter grads */
			if (d->dropout)
				bytes += T * d->h;
			break;
		case PROF_OP_NORM:
			kept[op->in[0]] = 1;
			bytes += T * 4 * (d->rms ? 1 : 2); /* fp32 stats */
			break;
		case PROF_OP_LINEAR:
		case PROF_OP_GELU:
		case PROF_OP_SWIGLU:
		case PROF_OP_XENT:
			kept[op->in[0]] = 1;
			if (op->kind == PROF_OP_XENT)
				bytes += T * 4;  /* targets */
			break;
		case PROF_OP_ATTN:
			kept[op->in[0]] = 1;
			if (d->flash) {
				kept[op->out] = 1;
				if (rc == PROF_RC_NONE)
					bytes += b * d->heads * d->s * 4;
			} else if (rc == PROF_RC_NONE) {
				/* softmax; dropout mask and output */
				bytes += scores * d->dtype_bytes;
				if (d->dropout)
					bytes += scores *
						 (1 + d->dtype_bytes);
			}
			break;
		case PROF_OP_ADD:
			/* dropout on the branch before the residual */
			if (d->dropout)
				bytes += T * l->cols[op->out];
			break;
		}
	}
	for (i = 0; i < l->ntensors; i++)
		if (kept[i])
			bytes += tensor_bytes(g, l, i, T);
	return bytes;
}

int64_t
prof_layer_out_bytes(const struct prof_graph *g, int layer, int64_t b)
{
	const struct prof_glayer *l = &g->layers[layer];

	return tensor_bytes(g, l, l->out, b * g->d.s);
}

int64_t
prof_layer_work(const struct prof_graph *g, int layer, int64_t b)
{
	const struct prof_dims *d = &g->d;
	const struct prof_glayer *l = &g->layers[layer];
	int64_t T = b * d->s, best = 0, w;
	int i;

	for (i = 0; i < l->nops; i++) {
		const struct prof_op *op = &l->ops[i];

		/* an op's output and input with their gradients */
		w = 2 * tensor_bytes(g, l, op->out, T) +
		    2 * tensor_bytes(g, l, op->in[0], T);
		if (op->kind == PROF_OP_ATTN)
			/* fp32 scores and their gradient (unfused kernels) */
			w += d->flash ? 0 :
			     2 * b * d->heads * d->s * d->s * 4;
		if (w > best)
			best = w;
	}
	return best;
}
