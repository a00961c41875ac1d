/*
 * graph.h - the layer graph pd2bw-profile measures: a model becomes a chain
 * of three distinct layers (embedding, one transformer block that repeats,
 * final norm + head + loss), each a short list of ops over tensors of T =
 * b * s rows.  The backends (cpu.c, gpu.cu) execute the same op lists; the
 * graph alone decides parameters, FLOPs and the bytes kept for backward, so
 * every backend reports them alike.
 */
#ifndef PD2BW_PROF_GRAPH_H
#define PD2BW_PROF_GRAPH_H

#include <stdint.h>

#include "pd2bw/model.h"

enum prof_op_kind {
	PROF_OP_EMBED,   /* ids -> token (+ learned position) embedding */
	PROF_OP_NORM,    /* LayerNorm or RMSNorm over the row */
	PROF_OP_LINEAR,  /* y[T,n] = x[T,k] W[n,k]^T (+ bias) */
	PROF_OP_ATTN,    /* packed qkv -> context; rotary, GQA, causal */
	PROF_OP_GELU,    /* tanh approximation */
	PROF_OP_SWIGLU,  /* [gate | up] -> silu(gate) * up */
	PROF_OP_ADD,     /* residual: y = a + b */
	PROF_OP_XENT,    /* logits -> per-token cross-entropy */
	PROF_OP_N
};
extern const char *const prof_op_names[];

/*
 * Dropout probability where the model has dropout: Megatron's default for
 * both hidden and attention dropout.  Where it applies (both backends alike;
 * the masks and their hash are dropout.h's):
 *   - EMBED: on the embedding output, y = mask * e / (1 - p);
 *   - ADD: on its second input, the branch (in[1]: the attention
 *     projection or the MLP output; in[0] is the residual stream), y = a +
 *     mask * b / (1 - p);
 *   - ATTN: on the softmax probabilities before they weigh v, only where
 *     prof_attn_dropout() says so: not with flash attention, whose fused
 *     kernel would regenerate the mask from its RNG state and keeps none.
 *     The rule follows the model, not the kernels that run: an fp32 run of
 *     a flash model takes the unfused path and still drops nothing there,
 *     so the CPU reference and every GPU path agree.
 * The graph stashes one byte per mask element (and, for attention, the
 * dropped probabilities), as Megatron keeps them.
 */
#define PROF_DROPOUT_P 0.1

#define PROF_MAX_TENSORS 16
#define PROF_MAX_OPS 16

/* Shapes after tensor-parallel sharding (heads, kv heads, ffn, vocab / tp). */
struct prof_dims {
	int64_t s;          /* sequence length */
	int64_t h;          /* hidden size (full: it is replicated) */
	int64_t heads;      /* query heads of this shard */
	int64_t kv_heads;   /* key/value heads of this shard */
	int64_t head_dim;
	int64_t ffn;        /* MLP inner size of this shard */
	int64_t vocab;      /* vocabulary rows of this shard */
	int tp;
	int rms;            /* RMSNorm instead of LayerNorm */
	int swiglu;
	int causal;
	int rotary;         /* rotary positions; else learned */
	int bias;
	int post_norm;      /* BERT: norm after the residual */
	int bert_head;      /* dense + GELU + norm before the vocabulary */
	int tied;           /* head matrix is the embedding's */
	int dropout;        /* dropout after embedding, attention, residual
			       branches (PROF_DROPOUT_P); masks stashed */
	int flash;          /* fused attention: scores never stored */
	int dtype_bytes;    /* activation and weight element size */
};

/* Attention dropout applies: dropout without flash attention (above). */
static inline int
prof_attn_dropout(const struct prof_dims *d)
{
	return d->dropout && !d->flash;
}

struct prof_op {
	int kind;            /* enum prof_op_kind */
	const char *name;    /* "qkv", "attn", ... (static) */
	int in[2];           /* tensor indices; -1 when unused */
	int out;
	int64_t n, k;        /* LINEAR: out and in features; NORM: width */
	int bias;            /* LINEAR: has a bias; NORM: LayerNorm beta */
	int tied;            /* LINEAR: weight not counted (tied embedding) */
	int64_t param_off;   /* offset into the layer's parameter vector */
	int64_t nparams;     /* elements it owns there */
};

struct prof_glayer {
	const char *name;    /* "embedding", "block", "head" */
	int kind;            /* enum prof_kind of profile.h */
	int repeat;
	int ntensors;
	int64_t cols[PROF_MAX_TENSORS];      /* tensor t is [T, cols[t]] */
	const char *tname[PROF_MAX_TENSORS];
	int nops;
	struct prof_op ops[PROF_MAX_OPS];
	int64_t nparams;     /* elements allocated (tied weights included) */
	int64_t counted;     /* parameters reported (tied weights excluded) */
	int out;             /* output tensor (input is tensor 0) */
};

struct prof_graph {
	struct prof_dims d;
	int nlayers;
	struct prof_glayer layers[3];
};

/*
 * Build the graph of model m at tensor-parallel degree tp with elements of
 * dtype_bytes (2 or 4).  Returns 0, or -1 after a message when tp does not
 * divide the heads, kv heads, ffn or vocabulary.
 */
int prof_graph_build(struct prof_graph *g, const struct model *m, int tp,
		     int dtype_bytes);

/* Forward FLOPs of one op, one layer, at T tokens (b sequences). */
double prof_op_flops(const struct prof_graph *g, const struct prof_op *op,
		     int64_t b);
double prof_layer_flops(const struct prof_graph *g, int layer, int64_t b);

/*
 * Bytes one copy of layer keeps from its forward to its backward pass at
 * microbatch b, under recomputation rc (enum prof_rc): none stores what
 * every op needs; selective drops the attention core's scores, softmax and
 * dropout masks (the core is recomputed); full keeps only a block's input
 * (an embedding or head, which no runtime checkpoints, keeps what none does).
 */
int64_t prof_layer_stash(const struct prof_graph *g, int layer, int64_t b,
			 int rc);
/* Boundary activation bytes sent to the next layer (its output). */
int64_t prof_layer_out_bytes(const struct prof_graph *g, int layer,
			     int64_t b);
/*
 * Transient peak bytes outside the stash: the largest op's output and
 * gradients alive at once, plus the attention scores when they are
 * transient (flash) or being differentiated.
 */
int64_t prof_layer_work(const struct prof_graph *g, int layer, int64_t b);

/* Index of the first op of kind in layer, or -1. */
int prof_layer_find(const struct prof_glayer *l, int kind);

#endif
