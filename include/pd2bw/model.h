/*
 * model.h - the description of a transformer model (format pd2bw-model/1),
 * read from a model YAML file or a Hugging Face config.json, and the
 * closed-form parameter and FLOP counts derived from it.
 */
#ifndef PD2BW_MODEL_H
#define PD2BW_MODEL_H

#include <stddef.h>
#include <stdint.h>

/* The most transformer layers a model may have (its profile then stays
 * within PROFILE_MAX_LAYERS with embeddings and head). */
#define MODEL_MAX_LAYERS 1000

enum model_family { MODEL_GPT, MODEL_BERT, MODEL_LLAMA };
/* geglu: the gated MLP of swiglu with a GELU gate (Gemma): three matrices
 * of ffn_hidden, priced like swiglu.  squared-relu: relu(x)^2 (Nemotron),
 * two matrices like gelu, and no fused kernel in Megatron-Core. */
enum model_act { MODEL_GELU, MODEL_SWIGLU, MODEL_GEGLU, MODEL_SQRELU };
enum model_norm { MODEL_LAYERNORM, MODEL_RMSNORM };
/* none: no position signal but the causal mask's (Nemotron-H's attention
 * layers, Megatron's position_embedding_type none) */
enum model_pos { MODEL_LEARNED, MODEL_ROTARY, MODEL_NOPOS };
/* fp8: bf16 training whose linear layers run FP8 GEMMs (Transformer
 * Engine); weights, gradients and activations stay 16-bit.  nvfp4 the
 * same with NVFP4 GEMMs (E2M1 values, an E4M3 scale per 16 and an fp32
 * one per tensor: Transformer Engine's NVFP4BlockScaling, Blackwell). */
enum model_prec { MODEL_BF16, MODEL_FP16, MODEL_FP32, MODEL_FP8,
	MODEL_NVFP4 };

/* Whether precision p runs its linear layers' GEMMs on quantised copies
 * of 16-bit operands (FP8 or NVFP4). */
static inline int
model_prec_quantised(int p)
{
	return p == MODEL_FP8 || p == MODEL_NVFP4;
}

/* Bytes per value of a quantised copy under precision p: FP8 1, NVFP4
 * half a byte and an E4M3 scale per 16 values. */
static inline double
model_prec_quant_bytes(int p)
{
	return p == MODEL_NVFP4 ? 0.5 + 1.0 / 16 : 1;
}
/* Attention: multi-head (MHA, GQA and MQA through kv_heads) or DeepSeek's
 * multi-head latent attention. */
enum model_attn { MODEL_MHA, MODEL_MLA };

/* Names, indexed by the enums above, NULL-terminated (for YK_ENUM). */
extern const char *const model_family_names[];
extern const char *const model_act_names[];
extern const char *const model_norm_names[];
extern const char *const model_pos_names[];
extern const char *const model_prec_names[];
/*
 * FP8 scaling recipes (Transformer Engine, Megatron-Core's --fp8-recipe):
 * delayed (per tensor, from an amax history), tensorwise (per tensor, the
 * current amax), blockwise (1 x 128 and 128 x 128 blocks), mxfp8 (1 x 32
 * blocks with E8M0 scales, Blackwell).
 */
/* FP8 scaling recipes: Transformer Engine's four, and torchao's two
 * rowwise ones (a scale per row of each operand; the second keeps the
 * weight gradient's GEMM in 16 bits), torchtitan's runtime alone */
enum model_fp8 {
	FP8_DELAYED,
	FP8_TENSORWISE,
	FP8_BLOCKWISE,
	FP8_MXFP8,
	FP8_ROWWISE,
	FP8_ROWWISE_GW_HP
};

/* Whether recipe r is one of torchao's rowwise ones. */
static inline int
model_fp8_rowwise(int r)
{
	return r == FP8_ROWWISE || r == FP8_ROWWISE_GW_HP;
}
extern const char *const model_fp8_names[];
extern const char *const model_attn_names[];

/*
 * Mixture of experts (experts == 0: every MLP is dense).  Layer i (from 0)
 * is a MoE layer when i >= first_dense and (i - first_dense) % every == 0,
 * as Megatron's and DeepSeek's moe_layer_freq; the other layers keep the
 * dense MLP of ffn_hidden.
 */
struct model_moe {
	int64_t experts;        /* routed experts per MoE layer */
	int64_t top_k;          /* routed experts per token */
	int64_t expert_ffn;     /* inner size of one routed expert */
	int64_t shared_experts; /* always-active experts */
	int64_t shared_ffn;     /* inner size of one shared expert */
	int shared_gate;        /* sigmoid gate (h -> 1) on the shared experts
				   (Qwen2-MoE) */
	int router_bias;        /* per-expert bias of the router (DeepSeek-V3's
				   score correction; GPT-OSS through bias) */
	int first_dense;        /* leading dense layers */
	int every;              /* MoE every n-th layer after them (>= 1) */
	double capacity_factor; /* tokens per expert padded to this multiple of
				   the balanced share; 0: dropless */
	/* Group-limited routing (DeepSeek-V2/V3, Megatron's
	 * moe_router_num_groups and moe_router_group_topk): the experts form
	 * groups equal groups and each token picks its top_k among those
	 * of its group_top_k best groups; 0: no limit. */
	int64_t groups;
	int64_t group_top_k;
	/* LatentMoE (Nemotron 3 Super; Megatron-Core's moe_latent_size):
	 * the routed experts work at this width; each token is projected
	 * h -> latent before its dispatch and back after the combine, by
	 * two dense matrices beside the router.  The router and the shared
	 * experts keep h.  0: the experts work at h. */
	int64_t latent;
	/* The routing weights multiplied by this before the experts'
	 * outputs are summed (DeepSeek-V3's and Nemotron 3's
	 * routed_scaling_factor; Megatron-Core's moe_router_topk_scaling_
	 * factor); 0: none.  It prices nothing: the launch files carry it. */
	double scale;
};

/*
 * Multi-head latent attention (attention mla): queries through a q_rank
 * latent (0: a plain h x heads (nope + rope) projection), keys and values
 * through a kv_rank latent plus a shared rope_dim key, heads of nope_dim +
 * rope_dim for scores and v_dim for values.
 */
struct model_mla {
	int64_t q_rank;
	int64_t kv_rank;
	int64_t nope_dim;
	int64_t rope_dim;
	int64_t v_dim;
};

/*
 * A Mamba-2 mixer (Dao and Gu 2024; Megatron-Core's MambaMixer): an input
 * projection to z, x, B, C and dt (2 d_inner + 2 groups state + heads
 * wide, d_inner = heads x head_dim), a causal depthwise convolution of
 * conv taps over x, B and C, the state-space scan in chunks of chunk
 * tokens, a gated RMSNorm over d_inner and an output projection.
 */
struct model_mamba {
	int64_t heads;    /* SSM heads */
	int64_t head_dim; /* channels a head */
	int64_t state;    /* state size N */
	int64_t groups;   /* B and C groups (divide heads) */
	int64_t conv;     /* convolution taps (4) */
	int64_t chunk;    /* the scan's chunk of tokens (128) */
};

/* Layer kinds of a hybrid model's pattern (Megatron-Core's
 * hybrid_layer_pattern symbols): each layer one pre-normed residual
 * sublayer. */
#define MODEL_LAYER_MAMBA 'M'
#define MODEL_LAYER_ATTN '*'
#define MODEL_LAYER_MLP '-'
#define MODEL_LAYER_MOE 'E'
/* Layers of one multi-token-prediction module of a hybrid model. */
#define MODEL_MTP_MAX 16

struct model {
	char *name;           /* owned */
	int family;           /* enum model_family */
	int layers;           /* transformer blocks */
	int64_t hidden;       /* h */
	int64_t heads;        /* a (query heads) */
	int64_t kv_heads;     /* key/value heads (GQA); == heads for MHA */
	int64_t ffn_hidden;   /* MLP inner size */
	int64_t seq_len;      /* s */
	int64_t doc_len;      /* packed sequences: each holds documents of
				 this length, and attention runs within
				 each (for mixed lengths, sum l^2 / sum l,
				 the length that gives the same pairs);
				 0: one document a sequence */
	int64_t vocab;        /* V */
	int activation;       /* enum model_act */
	int norm;             /* enum model_norm */
	int positions;        /* enum model_pos */
	double rope_base;     /* rotary base (theta); 10000 unless given */
	int rope_yarn;        /* rotary positions stretched by YaRN (Hugging
				 Face rope_scaling "yarn"): Megatron's
				 position_embedding_type yarn */
	int causal;           /* causal attention mask (gpt, llama) */
	int tied_embeddings;  /* head shares the embedding matrix */
	int bias;             /* linear layers carry biases */
	int dropout;          /* dropout masks are stashed */
	int flash_attention;  /* fused attention: s x s scores never stored */
	int precision;        /* enum model_prec of activations and weights */
	/* Format 2 (all zero / off for the models of format 1). */
	int64_t head_dim;     /* size of one head; 0: hidden / heads */
	int attention;        /* enum model_attn */
	struct model_mla mla; /* when attention is MODEL_MLA */
	struct model_moe moe; /* when moe.experts > 0 */
	int qkv_bias;         /* q, k, v projections carry biases (Qwen2),
				   whatever bias says */
	int qk_norm;          /* RMSNorm of each query and key head (Qwen3,
				   Gemma 3): 2 head_dim weights per layer */
	int post_norms;       /* a second norm on the attention and MLP
				   outputs before the residual add (Gemma 2,
				   3): 2 more norms per layer */
	int attn_sinks;       /* a learned softmax sink per head (GPT-OSS) */
	int64_t window;       /* sliding-window attention span in tokens;
				   0: every layer attends to the whole
				   sequence */
	int global_every;     /* with window: layer i attends globally when
				   (i + 1) % global_every == 0; 0: every layer
				   is windowed */
	double attn_softcap;  /* tanh soft-capping of attention scores; 0 */
	double logit_softcap; /* and of the output logits (Gemma 2); 0 */
	double act_clamp;     /* a gated MLP's inputs clamped before the
				   activation: the gate at most act_clamp,
				   the linear half within +-act_clamp
				   (GPT-OSS's swiglu_limit 7); 0: none */
	int mtp_layers;       /* multi-token-prediction modules (DeepSeek-V3):
				   each a block and a projection sharing the
				   embedding and output head */
	/* Hybrid models (Nemotron-H): pattern[i] is layer i's kind
	 * (MODEL_LAYER_*), one character a layer; empty: every layer a
	 * transformer block of attention and MLP. */
	char pattern[MODEL_MAX_LAYERS + 1];
	struct model_mamba mamba; /* when the pattern has Mamba layers */
	/* A hybrid model's multi-token-prediction module: its layers, one
	 * character each as in pattern (Megatron-Core's unified hybrid
	 * pattern, the part after each '/'); layer indices layers, layers
	 * + 1, ... name them (model_mtp_layer()).  Empty: a module's block
	 * is like the last. */
	char mtp_pattern[MODEL_MTP_MAX + 1];
	int mtp_shared;       /* the mtp_layers modules are one module run
				 mtp_layers times, its weights shared
				 (Megatron-Core's mtp_use_repeated_layer) */
};

/* Set every field to the GPT defaults (name NULL). */
void model_init(struct model *m);
/* Set every field to the defaults of a family (enum model_family), as a
 * model file naming only its family and sizes gets them. */
void model_init_family(struct model *m, int family);
/* Free owned strings; m may be reused after model_init. */
void model_release(struct model *m);

/*
 * Read a model: a pd2bw-model YAML file, or a Hugging Face config.json
 * (GPT-2, BERT, Llama, Mistral, Mixtral, Qwen2, Qwen2-MoE, Qwen3, Qwen3-MoE,
 * DeepSeek-V2/V3, Gemma 1-3, Phi-3, GPT-OSS, Nemotron-H; recognised by "model_type" or
 * "architectures"), or a directory holding config.json.  Returns 0, or -1 after a file:line:col message.
 */
int model_load(struct model *m, const char *path);
/* Same, from memory (fuzzing, tests). */
int model_load_string(struct model *m, const char *name, const char *buf,
		      size_t len);
/* Write m as pd2bw-model/1 (pd2bw-model/2 when model_is_v2) atomically ("-" = stdout).  Returns 0 or -1. */
int model_write(const struct model *m, const char *path);
/* Check cross-field consistency (heads divide hidden, ...). 0 or -1. */
int model_validate(const struct model *m, const char *path);

/* Non-zero when m uses a key of format 2 (model_write names that version). */
int model_is_v2(const struct model *m);

/* Non-zero when m's positions are YaRN's as a type of their own
 * (Megatron's position_embedding_type yarn): rope_yarn outside MLA,
 * whose YaRN is a rope type of its attention. */
int model_yarn_positions(const struct model *m);
/* Bytes per element of activations and 16-bit weights (2 or 4). */
int model_dtype_bytes(const struct model *m);
/* Size of one head (head_dim, or hidden / heads); for MLA the value head. */
int64_t model_head_dim(const struct model *m);
/*
 * Vocabulary rows of one of tp tensor-parallel shards, the vocabulary
 * padded to a multiple of pad x tp (Megatron's make-vocab-size-divisible-
 * by: every shard equal, and a multiple of pad rows; pad 1: the model's
 * own vocabulary, split evenly).
 */
int64_t model_vocab_shard(const struct model *m, int tp, int pad);
/* Megatron-LM's --make-vocab-size-divisible-by default
 * (megatron/training/arguments.py; build_tokenizer.py
 * vocab_size_with_padding at d98e8a6). */
#define MODEL_MEGATRON_VOCAB_PAD 128
/* Non-zero when m is a hybrid model (a layer pattern). */
int model_is_hybrid(const struct model *m);
/* Layer i's kind: a MODEL_LAYER_* character, or 'B' for a transformer
 * block of attention and MLP (every layer of a model without a
 * pattern).  Indices from layers on name the layers of a hybrid
 * model's multi-token-prediction module (mtp_pattern). */
int model_layer_kind(const struct model *m, int i);
/* Non-zero when block i (0-based) has a MoE MLP. */
int model_layer_is_moe(const struct model *m, int i);
/* Parameters of one Mamba-2 mixer: projections, convolution, the
 * per-head dt bias, A and D, the gated norm (not the pre-norm). */
int64_t model_mamba_params(const struct model *m);
/* Attention span of block i in tokens: window or seq_len. */
int64_t model_layer_span(const struct model *m, int i);
/* Parameters of block i (all experts). */
int64_t model_layer_params(const struct model *m, int i);
/* Parameters block i uses for one token: top_k routed and the shared
 * experts, the router, attention and norms. */
int64_t model_layer_active_params(const struct model *m, int i);
/* Parameters of the routed experts of block i (0 when dense): what expert
 * parallelism shards. */
int64_t model_layer_expert_params(const struct model *m, int i);
/* Parameters of one multi-token-prediction module beyond its block: two
 * norms of h, the 2h x h projection and the shared head's norm. */
int64_t model_mtp_extra_params(const struct model *m);
/* Layers of one multi-token-prediction module: mtp_pattern's, else 1. */
int model_mtp_module_layers(const struct model *m);
/* The layer index that prices layer j of a multi-token-prediction
 * module with the model_layer_* functions: layers + j for a hybrid
 * module (its mtp_pattern), else the last block, layers - 1. */
int model_mtp_layer(const struct model *m, int j);
/* Parameters of one multi-token-prediction module: its layers and the
 * extras (model_mtp_extra_params()). */
int64_t model_mtp_module_params(const struct model *m);
/* Sets of module weights: 1 when shared, else mtp_layers. */
int model_mtp_weight_sets(const struct model *m);
/* Width the routed experts work at: moe.latent, else hidden. */
int64_t model_expert_width(const struct model *m);
/* Parameters of a MoE layer's two latent projections (0 without). */
int64_t model_latent_params(const struct model *m);
/* Parameters of block 0 (of every block when they are alike). */
int64_t model_block_params(const struct model *m);
/* Parameters of the embedding layer (token + learned positions). */
int64_t model_embed_params(const struct model *m);
/* Parameters of final norm + head (0 for the matrix when tied). */
int64_t model_head_params(const struct model *m);
/* All parameters, the multi-token-prediction modules included (they share
 * the embedding and the output head). */
int64_t model_params(const struct model *m);
/* The same without the multi-token-prediction modules. */
int64_t model_params_no_mtp(const struct model *m);
/* Parameters one token uses (model_layer_active_params over the blocks,
 * embedding, head; no multi-token prediction). */
int64_t model_active_params(const struct model *m);
/*
 * Model FLOPs of one training iteration of B samples (Narayanan et al.
 * 2021): 72 B s l h^2 (1 + s/6h + V/12lh), and with recompute != 0 the
 * 96 B s l h^2 (...) form.  For GQA/SwiGLU models the exact per-op count;
 * MoE layers count the router and the active experts (top_k + shared),
 * MLA its projections, windowed layers their span instead of s, and the
 * multi-token-prediction modules their block, projection and head.
 */
double model_flops_per_iter(const struct model *m, int64_t B, int recompute);

#endif
