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
enum model_act { MODEL_GELU, MODEL_SWIGLU };
enum model_norm { MODEL_LAYERNORM, MODEL_RMSNORM };
enum model_pos { MODEL_LEARNED, MODEL_ROTARY };
/* fp8: bf16 training whose linear layers run FP8 GEMMs (Transformer
 * Engine); weights, gradients and activations stay 16-bit. */
enum model_prec { MODEL_BF16, MODEL_FP16, MODEL_FP32, MODEL_FP8 };

/* Names, indexed by the enums above, NULL-terminated (for YK_ENUM). */
extern const char *const model_family_names[];
extern const char *const model_act_names[];
extern const char *const model_norm_names[];
extern const char *const model_pos_names[];
extern const char *const model_prec_names[];

struct model {
	char *name;           /* owned */
	int family;           /* enum model_family */
	int layers;           /* transformer blocks */
	int64_t hidden;       /* h */
	int64_t heads;        /* a (query heads) */
	int64_t kv_heads;     /* key/value heads (GQA); == heads for MHA */
	int64_t ffn_hidden;   /* MLP inner size */
	int64_t seq_len;      /* s */
	int64_t vocab;        /* V */
	int activation;       /* enum model_act */
	int norm;             /* enum model_norm */
	int positions;        /* enum model_pos */
	double rope_base;     /* rotary base (theta); 10000 unless given */
	int causal;           /* causal attention mask (gpt, llama) */
	int tied_embeddings;  /* head shares the embedding matrix */
	int bias;             /* linear layers carry biases */
	int dropout;          /* dropout masks are stashed */
	int flash_attention;  /* fused attention: s x s scores never stored */
	int precision;        /* enum model_prec of activations and weights */
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
 * (GPT-2, BERT, Llama/Mistral/Qwen2 style; recognised by "model_type" or
 * "architectures").  Returns 0, or -1 after a file:line:col message.
 */
int model_load(struct model *m, const char *path);
/* Same, from memory (fuzzing, tests). */
int model_load_string(struct model *m, const char *name, const char *buf,
		      size_t len);
/* Write m as pd2bw-model/1 atomically ("-" = stdout).  Returns 0 or -1. */
int model_write(const struct model *m, const char *path);
/* Check cross-field consistency (heads divide hidden, ...). 0 or -1. */
int model_validate(const struct model *m, const char *path);

/* Bytes per element of activations and 16-bit weights (2 or 4). */
int model_dtype_bytes(const struct model *m);
/* Parameters of one transformer block. */
int64_t model_block_params(const struct model *m);
/* Parameters of the embedding layer (token + learned positions). */
int64_t model_embed_params(const struct model *m);
/* Parameters of final norm + head (0 for the matrix when tied). */
int64_t model_head_params(const struct model *m);
/* All parameters. */
int64_t model_params(const struct model *m);
/*
 * Model FLOPs of one training iteration of B samples (Narayanan et al.
 * 2021): 72 B s l h^2 (1 + s/6h + V/12lh), and with recompute != 0 the
 * 96 B s l h^2 (...) form.  For GQA/SwiGLU models the exact per-op count.
 */
double model_flops_per_iter(const struct model *m, int64_t B, int recompute);

#endif
