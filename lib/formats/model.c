/*
 * model.c - the model description: name tables, reading pd2bw-model/1 and
 * /2 and Hugging Face config.json files (hf.c-like readers for GPT-2, BERT
 * and the Llama family: Llama, Mistral, Mixtral, Qwen2/3 and their MoE
 * variants, DeepSeek-V2/V3, Gemma 1-3, Phi-3, GPT-OSS, and the hybrid
 * Nemotron-H), writing, and the consistency checks.  The closed-form
 * counts live in model_count.c.
 */
#include <sys/stat.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/model.h"
#include "pd2bw/yml.h"

const char *const model_family_names[] = {"gpt", "bert", "llama", NULL};
const char *const model_act_names[] = {"gelu", "swiglu", "geglu",
				       "squared-relu", NULL};
const char *const model_norm_names[] = {"layernorm", "rmsnorm", NULL};
const char *const model_pos_names[] = {"learned", "rotary", "none", NULL};
const char *const model_fp8_names[] = {"delayed", "tensorwise",
				       "blockwise", "mxfp8", "rowwise",
				       "rowwise-with-gw-hp", NULL};
const char *const model_prec_names[] = {"bf16", "fp16", "fp32", "fp8",
					  "nvfp4", NULL};
const char *const model_attn_names[] = {"mha", "mla", NULL};

/* Limits beyond which a description is surely a typo. */
#define MAX_LAYERS ((double)MODEL_MAX_LAYERS) /* profile.h says why */
#define MAX_HIDDEN 1048576.0
#define MAX_HEADS 65536.0
#define MAX_SEQ 1e8
#define MAX_VOCAB 1e9
#define MAX_EXPERTS 1048576.0
#define MAX_FFN (64 * MAX_HIDDEN)

/*
 * Where each checked field came from, so validation can point at the line
 * of the offending value; NULL entries fall back to the document root.
 */
enum field {
	F_LAYERS, F_HIDDEN, F_HEADS, F_KV_HEADS, F_FFN, F_SEQ, F_VOCAB,
	F_NAME, F_HEAD_DIM, F_ATTN, F_KV_RANK, F_V_DIM, F_NOPE, F_EXPERTS,
	F_TOPK, F_EXPERT_FFN, F_FIRST_DENSE, F_WINDOW, F_GLOBAL, F_ACT,
	F_GROUPS, F_CLAMP, F_DOC, F_PATTERN, F_MAMBA, F_LATENT, F_MTP,
	F_MTP_PATTERN, F_N
};

struct origin {
	struct yml_doc *d;
	yaml_node_t *root;
	yaml_node_t *at[F_N];
	const char *path; /* when there is no document */
};

/* Keys of pd2bw-model/2 files, "map.key" inside the moe and mla maps. */
static const char *const field_names[F_N] = {
	"layers", "hidden", "heads", "kv_heads", "ffn_hidden", "seq_len",
	"vocab", "name", "head_dim", "attention", "mla.kv_rank", "mla.v_dim",
	"mla.nope_dim", "moe.experts", "moe.top_k", "moe.expert_ffn",
	"moe.first_dense", "window", "global_every", "activation",
	"moe.groups", "act_clamp", "doc_len", "pattern", "mamba.heads",
	"moe.latent", "mtp_layers", "mtp_pattern",
};

static int
bad(const struct origin *o, enum field f, const char *fmt, ...)
	PD2BW_PRINTF(3, 4);

static int
bad(const struct origin *o, enum field f, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (o->d)
		return yml_err(o->d, o->at[f] ? o->at[f] : o->root, "%s",
			       msg);
	return pd2bw_error("%s: %s", o->path, msg);
}

void
model_init(struct model *m)
{
	memset(m, 0, sizeof(*m));
	m->family = MODEL_GPT;
	m->activation = MODEL_GELU;
	m->norm = MODEL_LAYERNORM;
	m->positions = MODEL_LEARNED;
	m->rope_base = 10000;
	m->causal = 1;
	m->tied_embeddings = 1;
	m->bias = 1;
	m->dropout = 1;
	m->flash_attention = 0;
	m->precision = MODEL_FP16;
	m->attention = MODEL_MHA;
	m->moe.every = 1;
}

void
model_release(struct model *m)
{
	free(m->name);
	m->name = NULL;
}

/* Defaults of a family, applied before the optional keys are read. */
static void
family_defaults(struct model *m, int family)
{
	m->family = family;
	switch (family) {
	case MODEL_BERT:
		m->causal = 0;
		break;
	case MODEL_LLAMA:
		m->activation = MODEL_SWIGLU;
		m->norm = MODEL_RMSNORM;
		m->positions = MODEL_ROTARY;
		m->tied_embeddings = 0;
		m->bias = 0;
		m->dropout = 0;
		m->flash_attention = 1;
		m->precision = MODEL_BF16;
		break;
	}
}

void
model_init_family(struct model *m, int family)
{
	model_init(m);
	family_defaults(m, family);
}

int
model_is_v2(const struct model *m)
{
	return m->head_dim || m->attention != MODEL_MHA ||
	       m->moe.experts || m->qkv_bias || m->qk_norm ||
	       m->post_norms || m->attn_sinks || m->window ||
	       m->global_every || m->attn_softcap || m->logit_softcap ||
	       m->act_clamp || m->mtp_layers || m->activation == MODEL_GEGLU ||
	       m->activation == MODEL_SQRELU || m->rope_yarn || m->doc_len ||
	       model_is_hybrid(m) || m->positions == MODEL_NOPOS;
}

int
model_yarn_positions(const struct model *m)
{
	return m->positions == MODEL_ROTARY && m->rope_yarn &&
	       m->attention != MODEL_MLA;
}

/*
 * Llama's rule for the SwiGLU inner size: two thirds of 4h, rounded up to
 * a multiple of 256.
 */
static int64_t
default_ffn(const struct model *m)
{
	int64_t f;

	if (m->activation == MODEL_GELU || m->activation == MODEL_SQRELU)
		return 4 * m->hidden;
	f = (8 * m->hidden + 2) / 3;
	return (f + 255) / 256 * 256;
}

static int
check_moe(const struct model *m, const struct origin *o)
{
	const struct model_moe *e = &m->moe;

	if (e->experts < 0 || e->experts > MAX_EXPERTS)
		return bad(o, F_EXPERTS, "experts %lld out of range",
			   (long long)e->experts);
	if (!e->experts)
		return 0;
	if (e->top_k < 1 || e->top_k > e->experts)
		return bad(o, F_TOPK, "top_k %lld out of range [1, experts]",
			   (long long)e->top_k);
	if (e->expert_ffn < 1 || e->expert_ffn > MAX_FFN)
		return bad(o, F_EXPERT_FFN, "expert_ffn %lld out of range",
			   (long long)e->expert_ffn);
	if (e->shared_experts < 0 || e->shared_experts > MAX_EXPERTS ||
	    e->shared_ffn < 0 || e->shared_ffn > MAX_FFN ||
	    (e->shared_experts && e->shared_ffn < 1))
		return bad(o, F_EXPERTS, "shared experts out of range");
	if (e->every < 1 || e->every > m->layers)
		return bad(o, F_FIRST_DENSE, "every %d out of range [1, "
			   "layers]", e->every);
	if (e->first_dense < 0 || e->first_dense >= m->layers)
		return bad(o, F_FIRST_DENSE, "first_dense %d leaves no MoE "
			   "layer of %d", e->first_dense, m->layers);
	if (e->capacity_factor < 0 || e->capacity_factor > 1024 ||
	    (e->capacity_factor && e->capacity_factor < 0.01))
		return bad(o, F_EXPERTS, "capacity_factor %g out of range "
			   "(0 for dropless, else [0.01, 1024])",
			   e->capacity_factor);
	if (e->scale < 0 || e->scale > 1e3)
		return bad(o, F_EXPERTS, "scale %g out of range [0, 1000]",
			   e->scale);
	if (e->latent < 0 || e->latent > MAX_HIDDEN)
		return bad(o, F_LATENT, "latent %lld out of range",
			   (long long)e->latent);
	if (!e->groups && e->group_top_k)
		return bad(o, F_GROUPS, "group_top_k needs groups");
	if (e->groups &&
	    (e->groups < 1 || e->experts % e->groups ||
	     e->group_top_k < 1 || e->group_top_k > e->groups ||
	     e->top_k > e->group_top_k * (e->experts / e->groups)))
		return bad(o, F_GROUPS, "groups %lld, group_top_k %lld: the "
			   "groups must divide the %lld experts and the "
			   "group_top_k best of them hold top_k %lld",
			   (long long)e->groups, (long long)e->group_top_k,
			   (long long)e->experts, (long long)e->top_k);
	return 0;
}

static int
check_attention(const struct model *m, const struct origin *o)
{
	const struct model_mla *a = &m->mla;

	if (m->head_dim < 0 || m->head_dim > MAX_HIDDEN)
		return bad(o, F_HEAD_DIM, "head_dim %lld out of range",
			   (long long)m->head_dim);
	if (m->attention == MODEL_MLA) {
		if (m->kv_heads != m->heads)
			return bad(o, F_KV_HEADS, "kv_heads (%lld) must "
				   "equal heads with mla",
				   (long long)m->kv_heads);
		if (a->kv_rank < 1 || a->kv_rank > MAX_HIDDEN)
			return bad(o, F_KV_RANK, "kv_rank %lld out of range",
				   (long long)a->kv_rank);
		if (a->v_dim < 1 || a->v_dim > MAX_HIDDEN)
			return bad(o, F_V_DIM, "v_dim %lld out of range",
				   (long long)a->v_dim);
		if (a->nope_dim < 0 || a->rope_dim < 0 || a->q_rank < 0 ||
		    a->nope_dim + a->rope_dim < 1 ||
		    a->nope_dim > MAX_HIDDEN || a->rope_dim > MAX_HIDDEN ||
		    a->q_rank > MAX_HIDDEN)
			return bad(o, F_NOPE, "mla head sizes out of range");
	} else if (m->attention != MODEL_MHA) {
		return bad(o, F_ATTN, "invalid enumeration value");
	}
	if (m->window < 0 || m->window > MAX_SEQ)
		return bad(o, F_WINDOW, "window %lld out of range",
			   (long long)m->window);
	if (m->global_every < 0 || m->global_every > m->layers ||
	    (m->global_every && !m->window))
		return bad(o, F_GLOBAL, "global_every %d needs a window and "
			   "at most layers", m->global_every);
	if (m->mtp_layers < 0 || m->mtp_layers > 64)
		return bad(o, F_MTP, "mtp_layers %d out of range [0, 64]",
			   m->mtp_layers);
	if (m->mtp_shared && !m->mtp_layers)
		return bad(o, F_MTP, "mtp_shared without mtp_layers");
	if (m->mtp_pattern[0] && (!m->mtp_layers || !m->pattern[0]))
		return bad(o, F_MTP_PATTERN, "mtp_pattern needs mtp_layers "
			   "and a hybrid model (pattern)");
	if (m->attn_softcap < 0 || m->logit_softcap < 0)
		return bad(o, F_NAME, "soft-capping out of range");
	if (m->act_clamp < 0 ||
	    (m->act_clamp > 0 && m->activation != MODEL_SWIGLU &&
	     m->activation != MODEL_GEGLU))
		return bad(o, F_CLAMP, "act_clamp needs a gated activation "
			   "(swiglu or geglu)");
	return 0;
}

/* A hybrid model's pattern and Mamba mixer. */
static int
check_hybrid(const struct model *m, const struct origin *o)
{
	const struct model_mamba *b = &m->mamba;
	size_t n = strnlen(m->pattern, sizeof(m->pattern));
	int i, mamba = 0, moe = 0;

	if (!n)
		return 0;
	if (n != (size_t)m->layers)
		return bad(o, F_PATTERN, "pattern has %zu layers, layers says "
			   "%d", n, m->layers);
	for (i = 0; i < m->layers; i++) {
		switch (m->pattern[i]) {
		case MODEL_LAYER_MAMBA:
			mamba = 1;
			break;
		case MODEL_LAYER_MOE:
			moe = 1;
			break;
		case MODEL_LAYER_ATTN:
		case MODEL_LAYER_MLP:
			break;
		default:
			return bad(o, F_PATTERN, "pattern: layer %d is '%c' "
				   "(expected M for Mamba, * attention, - "
				   "MLP, E MoE)", i, m->pattern[i]);
		}
	}
	if (moe && !m->moe.experts)
		return bad(o, F_PATTERN, "pattern has MoE layers (E) but no "
			   "moe map");
	if (!moe && m->moe.experts)
		return bad(o, F_EXPERTS, "moe map but no MoE layer (E) in "
			   "the pattern");
	if (mamba && b->heads < 1)
		return bad(o, F_PATTERN, "pattern has Mamba layers (M) but "
			   "no mamba map");
	if (b->heads && (b->head_dim < 1 || b->state < 1 || b->groups < 1 ||
			 b->heads % b->groups || b->conv < 1 ||
			 b->chunk < 1))
		return bad(o, F_MAMBA, "mamba: heads %lld, groups %lld: the "
			   "groups must divide the heads, and every size "
			   "be at least 1", (long long)b->heads,
			   (long long)b->groups);
	for (i = 0; m->mtp_pattern[i] && i < MODEL_MTP_MAX; i++) {
		int c = m->mtp_pattern[i];

		if (c != MODEL_LAYER_MAMBA && c != MODEL_LAYER_MOE &&
		    c != MODEL_LAYER_ATTN && c != MODEL_LAYER_MLP)
			return bad(o, F_MTP_PATTERN, "mtp_pattern: layer %d "
				   "is '%c' (expected M, *, - or E)", i, c);
		if ((c == MODEL_LAYER_MOE && !m->moe.experts) ||
		    (c == MODEL_LAYER_MAMBA && b->heads < 1))
			return bad(o, F_MTP_PATTERN, "mtp_pattern: layer %d "
				   "('%c') needs the %s map", i, c,
				   c == MODEL_LAYER_MOE ? "moe" : "mamba");
	}
	if (m->mtp_layers && !m->mtp_pattern[0])
		return bad(o, F_MTP, "a hybrid model's multi-token "
			   "prediction needs mtp_pattern, the layers of its "
			   "module");
	if (m->attention == MODEL_MLA || m->window ||
	    m->family == MODEL_BERT || m->post_norms)
		return bad(o, F_PATTERN, "a hybrid model (pattern) has "
			   "multi-head attention without windows or "
			   "post-norms, and is not bert");
	if (m->moe.first_dense || m->moe.every != 1)
		return bad(o, F_FIRST_DENSE, "a hybrid model places its MoE "
			   "layers by its pattern: first_dense 0, every 1");
	return 0;
}

static int
check(const struct model *m, const struct origin *o)
{
	if (!m->name || !*m->name)
		return bad(o, F_NAME, "model name is empty");
	if (m->layers < 1 || m->layers > MAX_LAYERS)
		return bad(o, F_LAYERS, "layers %d out of range [1, %.0f]",
			   m->layers, MAX_LAYERS);
	if (m->hidden < 1 || m->hidden > MAX_HIDDEN)
		return bad(o, F_HIDDEN, "hidden %lld out of range [1, %.0f]",
			   (long long)m->hidden, MAX_HIDDEN);
	if (m->heads < 1 || m->heads > (m->head_dim ? MAX_HEADS : m->hidden))
		return bad(o, F_HEADS, "heads %lld out of range [1, hidden]",
			   (long long)m->heads);
	if (!m->head_dim && m->attention == MODEL_MHA &&
	    m->hidden % m->heads)
		return bad(o, F_HEADS, "heads (%lld) do not divide hidden "
			   "(%lld)", (long long)m->heads,
			   (long long)m->hidden);
	if (m->kv_heads < 1 || m->kv_heads > m->heads)
		return bad(o, F_KV_HEADS,
			   "kv_heads %lld out of range [1, heads]",
			   (long long)m->kv_heads);
	if (m->heads % m->kv_heads)
		return bad(o, F_KV_HEADS, "kv_heads (%lld) do not divide "
			   "heads (%lld)", (long long)m->kv_heads,
			   (long long)m->heads);
	if (m->ffn_hidden < 1 || m->ffn_hidden > MAX_FFN)
		return bad(o, F_FFN, "ffn_hidden %lld out of range",
			   (long long)m->ffn_hidden);
	if (m->seq_len < 1 || m->seq_len > MAX_SEQ)
		return bad(o, F_SEQ, "seq_len %lld out of range [1, %.0f]",
			   (long long)m->seq_len, MAX_SEQ);
	if (m->doc_len < 0 || m->doc_len > m->seq_len)
		return bad(o, F_DOC, "doc_len %lld out of range [1, seq_len "
			   "%lld]", (long long)m->doc_len,
			   (long long)m->seq_len);
	if (m->vocab < 1 || m->vocab > MAX_VOCAB)
		return bad(o, F_VOCAB, "vocab %lld out of range [1, %.0f]",
			   (long long)m->vocab, MAX_VOCAB);
	if (m->family < 0 || m->family > MODEL_LLAMA ||
	    m->activation < 0 || m->activation > MODEL_SQRELU ||
	    m->norm < 0 || m->norm > MODEL_RMSNORM || m->positions < 0 ||
	    m->positions > MODEL_NOPOS || m->precision < 0 ||
	    m->precision > MODEL_NVFP4)
		return bad(o, F_NAME, "invalid enumeration value");
	if (!model_is_hybrid(m) && m->mamba.heads)
		return bad(o, F_MAMBA, "mamba map without a pattern");
	return check_attention(m, o) || check_moe(m, o) ||
			       check_hybrid(m, o)
		       ? -1
		       : 0;
}

int
model_validate(const struct model *m, const char *path)
{
	struct origin o;

	memset(&o, 0, sizeof(o));
	o.path = path ? path : "model";
	return check(m, &o);
}

/* ---- pd2bw-model/1 and /2 ---- */

/* Point o at every field's node, nested "map.key" ones included. */
static void
native_origins(struct origin *o)
{
	size_t i;

	for (i = 0; i < F_N; i++) {
		const char *dot = strchr(field_names[i], '.');

		if (dot) {
			char map[8];
			size_t n = (size_t)(dot - field_names[i]);

			memcpy(map, field_names[i], n);
			map[n] = 0;
			o->at[i] = yml_get(o->d, yml_get(o->d, o->root, map),
					   dot + 1);
			if (!o->at[i])
				o->at[i] = yml_get(o->d, o->root, map);
		} else {
			o->at[i] = yml_get(o->d, o->root, field_names[i]);
		}
	}
	if (!o->at[F_KV_HEADS])
		o->at[F_KV_HEADS] = o->at[F_HEADS];
}

/* The mla and moe maps of format 2. */
static int
load_maps(struct model *m, struct yml_doc *d, yaml_node_t *mla,
	  yaml_node_t *moe, yaml_node_t *mamba)
{
	if (mamba) {
		const struct yml_key keys[] = {
			YK_I64("heads", 1, &m->mamba.heads, 1, MAX_HEADS),
			YK_I64("head_dim", 1, &m->mamba.head_dim, 1,
			       MAX_HIDDEN),
			YK_I64("state", 1, &m->mamba.state, 1, MAX_HIDDEN),
			YK_I64("groups", 1, &m->mamba.groups, 1, MAX_HEADS),
			YK_I64("conv", 0, &m->mamba.conv, 1, 64),
			YK_I64("chunk", 0, &m->mamba.chunk, 1, MAX_SEQ),
		};

		m->mamba.conv = 4;
		m->mamba.chunk = 128;
		if (yml_map(d, mamba, keys, sizeof(keys) / sizeof(keys[0])))
			return -1;
	}
	if (mla) {
		const struct yml_key keys[] = {
			YK_I64("q_rank", 0, &m->mla.q_rank, 0, MAX_HIDDEN),
			YK_I64("kv_rank", 1, &m->mla.kv_rank, 1, MAX_HIDDEN),
			YK_I64("nope_dim", 1, &m->mla.nope_dim, 0,
			       MAX_HIDDEN),
			YK_I64("rope_dim", 1, &m->mla.rope_dim, 0,
			       MAX_HIDDEN),
			YK_I64("v_dim", 1, &m->mla.v_dim, 1, MAX_HIDDEN),
		};

		if (yml_map(d, mla, keys, sizeof(keys) / sizeof(keys[0])))
			return -1;
	}
	if (moe) {
		const struct yml_key keys[] = {
			YK_I64("experts", 1, &m->moe.experts, 1, MAX_EXPERTS),
			YK_I64("top_k", 1, &m->moe.top_k, 1, MAX_EXPERTS),
			YK_I64("expert_ffn", 1, &m->moe.expert_ffn, 1,
			       MAX_FFN),
			YK_I64("shared_experts", 0, &m->moe.shared_experts, 0,
			       MAX_EXPERTS),
			YK_I64("shared_ffn", 0, &m->moe.shared_ffn, 1,
			       MAX_FFN),
			YK_BOOL("shared_gate", 0, &m->moe.shared_gate),
			YK_BOOL("router_bias", 0, &m->moe.router_bias),
			YK_INT("first_dense", 0, &m->moe.first_dense, 0,
			       MAX_LAYERS),
			YK_INT("every", 0, &m->moe.every, 1, MAX_LAYERS),
			YK_DBL("capacity_factor", 0, &m->moe.capacity_factor,
			       0, 1024),
			YK_I64("groups", 0, &m->moe.groups, 1, MAX_EXPERTS),
			YK_I64("group_top_k", 0, &m->moe.group_top_k, 1,
			       MAX_EXPERTS),
			YK_I64("latent", 0, &m->moe.latent, 1, MAX_HIDDEN),
			YK_DBL("scale", 0, &m->moe.scale, 0, 1e3),
		};

		if (yml_map(d, moe, keys, sizeof(keys) / sizeof(keys[0])))
			return -1;
		if (m->moe.shared_experts && !m->moe.shared_ffn)
			m->moe.shared_ffn = m->moe.expert_ffn;
	}
	return 0;
}

/* Keys that only format 2 knows. */
static const char *const v2_keys[] = {
	"head_dim", "attention", "mla", "moe", "qkv_bias", "qk_norm",
	"post_norms", "attn_sinks", "window", "global_every", "attn_softcap",
	"logit_softcap", "mtp_layers", "rope_yarn", "act_clamp", "doc_len",
	"pattern", "mamba", "mtp_pattern", "mtp_shared", NULL,
};

/* A layer pattern read from key (NULL: absent) into dst, of at most max
 * layers. */
static int
take_pattern(struct yml_doc *d, yaml_node_t *root, const char *key,
	     const char *src, char *dst, int max)
{
	size_t n = src ? strlen(src) : 0;

	if (!src)
		return 0;
	if (!n || n > (size_t)max)
		return yml_err(d, yml_get(d, root, key),
			       "%s of %zu layers (expected 1 to %d)", key, n,
			       max);
	memcpy(dst, src, n + 1);
	return 0;
}

static int
load_native(struct model *m, struct yml_doc *d, yaml_node_t *root)
{
	struct origin o;
	char *fmt = NULL;
	int64_t kv = 0, ffn = 0;
	int family = MODEL_GPT, ret, version;
	yaml_node_t *fam, *mla = NULL, *moe = NULL, *mamba = NULL, *n;
	char *pattern = NULL, *mtp_pattern = NULL;
	size_t i;

	version = yml_check_format(d, root, "model", 2);
	if (version < 0)
		return -1;
	for (i = 0; version == 1 && v2_keys[i]; i++)
		if (yml_get(d, root, v2_keys[i]))
			return yml_err(d, root, "key '%s' needs format "
				       "pd2bw-model/2", v2_keys[i]);
	n = yml_get(d, root, "activation");
	if (version == 1 && n && yml_scalar(n) &&
	    (!strcmp(yml_scalar(n), "geglu") ||
	     !strcmp(yml_scalar(n), "squared-relu")))
		return yml_err(d, n, "activation %s needs format "
			       "pd2bw-model/2", yml_scalar(n));
	n = yml_get(d, root, "positions");
	if (version == 1 && n && yml_scalar(n) &&
	    !strcmp(yml_scalar(n), "none"))
		return yml_err(d, n, "positions none needs format "
			       "pd2bw-model/2");
	/* The family decides the defaults of the other keys. */
	fam = yml_get(d, root, "family");
	if (fam) {
		const char *f = yml_scalar(fam);

		for (i = 0; f && model_family_names[i]; i++)
			if (!strcmp(f, model_family_names[i]))
				break;
		if (!f || !model_family_names[i])
			return yml_err(d, fam, "invalid family '%s' (expected "
				       "gpt, bert, llama)",
				       f ? f : "(non-scalar)");
		family = (int)i;
	}
	family_defaults(m, family);
	{
		const struct yml_key keys[] = {
			YK_STR("format", 1, &fmt),
			YK_STR("name", 1, &m->name),
			YK_ENUM("family", 0, &m->family, model_family_names),
			YK_INT("layers", 1, &m->layers, 1, MAX_LAYERS),
			YK_I64("hidden", 1, &m->hidden, 1, MAX_HIDDEN),
			YK_I64("heads", 1, &m->heads, 1, MAX_HEADS),
			YK_I64("kv_heads", 0, &kv, 1, MAX_HEADS),
			YK_I64("ffn_hidden", 0, &ffn, 1, MAX_FFN),
			YK_I64("seq_len", 1, &m->seq_len, 1, MAX_SEQ),
			YK_I64("vocab", 1, &m->vocab, 1, MAX_VOCAB),
			YK_ENUM("activation", 0, &m->activation,
				model_act_names),
			YK_ENUM("norm", 0, &m->norm, model_norm_names),
			YK_ENUM("positions", 0, &m->positions,
				model_pos_names),
			YK_DBL("rope_base", 0, &m->rope_base, 1, 1e12),
			YK_BOOL("rope_yarn", 0, &m->rope_yarn),
			YK_BOOL("causal", 0, &m->causal),
			YK_BOOL("tied_embeddings", 0, &m->tied_embeddings),
			YK_BOOL("bias", 0, &m->bias),
			YK_BOOL("dropout", 0, &m->dropout),
			YK_BOOL("flash_attention", 0, &m->flash_attention),
			YK_ENUM("precision", 0, &m->precision,
				model_prec_names),
			YK_I64("head_dim", 0, &m->head_dim, 1, MAX_HIDDEN),
			YK_ENUM("attention", 0, &m->attention,
				model_attn_names),
			YK_MAP("mla", 0, &mla),
			YK_MAP("moe", 0, &moe),
			YK_BOOL("qkv_bias", 0, &m->qkv_bias),
			YK_BOOL("qk_norm", 0, &m->qk_norm),
			YK_BOOL("post_norms", 0, &m->post_norms),
			YK_BOOL("attn_sinks", 0, &m->attn_sinks),
			YK_I64("window", 0, &m->window, 1, MAX_SEQ),
			YK_I64("doc_len", 0, &m->doc_len, 1, MAX_SEQ),
			YK_INT("global_every", 0, &m->global_every, 1,
			       MAX_LAYERS),
			YK_DBL("attn_softcap", 0, &m->attn_softcap, 0, 1e6),
			YK_DBL("logit_softcap", 0, &m->logit_softcap, 0, 1e6),
			YK_DBL("act_clamp", 0, &m->act_clamp, 0, 1e6),
			YK_INT("mtp_layers", 0, &m->mtp_layers, 0, 64),
			YK_STR("pattern", 0, &pattern),
			YK_MAP("mamba", 0, &mamba),
			YK_STR("mtp_pattern", 0, &mtp_pattern),
			YK_BOOL("mtp_shared", 0, &m->mtp_shared),
		};

		ret = yml_map(d, root, keys, sizeof(keys) / sizeof(keys[0]));
	}
	free(fmt);
	if (!ret)
		ret = take_pattern(d, root, "pattern", pattern, m->pattern,
				   MODEL_MAX_LAYERS);
	if (!ret)
		ret = take_pattern(d, root, "mtp_pattern", mtp_pattern,
				   m->mtp_pattern, MODEL_MTP_MAX);
	free(pattern);
	free(mtp_pattern);
	if (ret || load_maps(m, d, mla, moe, mamba))
		return -1;
	memset(&o, 0, sizeof(o));
	o.d = d;
	o.root = root;
	native_origins(&o);
	if (m->attention == MODEL_MLA && !mla)
		return yml_err(d, o.at[F_ATTN], "attention mla needs the mla "
			       "map");
	if (m->attention != MODEL_MLA && mla)
		return yml_err(d, mla, "mla map without attention: mla");
	if (m->rope_yarn && m->positions != MODEL_ROTARY)
		return yml_err(d, yml_get(d, root, "rope_yarn"),
			       "rope_yarn needs positions: rotary");
	m->kv_heads = kv ? kv : m->heads;
	m->ffn_hidden = ffn ? ffn : default_ffn(m);
	return check(m, &o);
}

/* ---- Hugging Face config.json ---- */

/*
 * The readers.  GPT-2 and BERT have their own keys; every other style
 * reads the Llama keys and then its own (hf_extra()).
 */
enum hf_style {
	HF_GPT2, HF_BERT, HF_LLAMA, HF_MISTRAL, HF_MIXTRAL, HF_QWEN2,
	HF_QWEN2_MOE, HF_QWEN3, HF_QWEN3_MOE, HF_DEEPSEEK_V2, HF_DEEPSEEK_V3,
	HF_GEMMA, HF_GEMMA2, HF_GEMMA3, HF_GEMMA3_TEXT, HF_PHI3, HF_GPT_OSS,
	HF_NEMOTRON_H
};

/* Longer architecture prefixes first: "Qwen2Moe" before "Qwen2". */
static const struct {
	const char *model_type;  /* exact "model_type" */
	const char *arch_prefix; /* prefix of an "architectures" entry */
	enum hf_style style;
} hf_kinds[] = {
	{"gpt2", "GPT2", HF_GPT2},
	{"bert", "Bert", HF_BERT},
	{"llama", "Llama", HF_LLAMA},
	{"mistral", "Mistral", HF_MISTRAL},
	{"mixtral", "Mixtral", HF_MIXTRAL},
	{"qwen2_moe", "Qwen2Moe", HF_QWEN2_MOE},
	{"qwen2", "Qwen2", HF_QWEN2},
	{"qwen3_moe", "Qwen3Moe", HF_QWEN3_MOE},
	{"qwen3", "Qwen3", HF_QWEN3},
	{"deepseek_v2", "DeepseekV2", HF_DEEPSEEK_V2},
	{"deepseek_v3", "DeepseekV3", HF_DEEPSEEK_V3},
	{"gemma3_text", "Gemma3ForCausalLM", HF_GEMMA3_TEXT},
	{"gemma3", "Gemma3", HF_GEMMA3},
	{"gemma2", "Gemma2", HF_GEMMA2},
	{"gemma", "Gemma", HF_GEMMA},
	{"phi3", "Phi3", HF_PHI3},
	{"gpt_oss", "GptOss", HF_GPT_OSS},
	{"nemotron_h", "NemotronH", HF_NEMOTRON_H},
};
#define HF_NKINDS (sizeof(hf_kinds) / sizeof(hf_kinds[0]))
#define HF_TYPES "gpt2, bert, llama, mistral, mixtral, qwen2, qwen2_moe, " \
	"qwen3, qwen3_moe, deepseek_v2, deepseek_v3, gemma, gemma2, gemma3, " \
	"gemma3_text, phi3, gpt_oss or nemotron_h"

/* JSON null: an optional key given as null is absent. */
static int
hf_null(const yaml_node_t *n)
{
	return n && yml_scalar(n) &&
	       n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       !strcmp(yml_scalar(n), "null");
}

/* Key of the config, NULL when absent or null. */
static yaml_node_t *
hf_get(struct yml_doc *d, yaml_node_t *root, const char *key)
{
	yaml_node_t *n = yml_get(d, root, key);

	return hf_null(n) ? NULL : n;
}

/*
 * Whether the config's rope_scaling (rope_parameters) is YaRN:
 * transformers' rope_type, or type in older configs, "yarn" (DeepSeek's
 * "deepseek_yarn" alike).
 */
static int
hf_yarn(struct yml_doc *d, yaml_node_t *root)
{
	yaml_node_t *rs = hf_get(d, root, "rope_scaling"), *t;
	const char *s;

	/* transformers 5 names it rope_parameters */
	if (!rs)
		rs = hf_get(d, root, "rope_parameters");

	if (!rs || rs->type != YAML_MAPPING_NODE)
		return 0;
	t = hf_get(d, rs, "rope_type");
	if (!t)
		t = hf_get(d, rs, "type");
	s = t ? yml_scalar(t) : NULL;
	return s && strstr(s, "yarn") != NULL;
}

/* Fetch key of the config as an integer; required ones must exist. */
static int
hf_i64(struct yml_doc *d, yaml_node_t *root, const char *key, int required,
       int64_t *out, double hi, yaml_node_t **at)
{
	yaml_node_t *n = hf_get(d, root, key);

	if (!n) {
		if (required)
			return yml_err(d, root, "missing key '%s'", key);
		return 0;
	}
	if (at)
		*at = n;
	return yml_to_i64(d, n, out, 1, hi);
}

/* The same, 0 allowed (counts of optional parts). */
static int
hf_i64z(struct yml_doc *d, yaml_node_t *root, const char *key, int64_t *out,
	double hi, yaml_node_t **at)
{
	yaml_node_t *n = hf_get(d, root, key);

	if (!n)
		return 0;
	if (at)
		*at = n;
	return yml_to_i64(d, n, out, 0, hi);
}

static int
hf_bool(struct yml_doc *d, yaml_node_t *root, const char *key, int *out)
{
	yaml_node_t *n = hf_get(d, root, key);
	const char *s = yml_scalar(n);

	if (!n)
		return 0;
	if (s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    (!strcmp(s, "true") || !strcmp(s, "false"))) {
		*out = s[0] == 't';
		return 0;
	}
	return yml_err(d, n, "expected true or false for '%s'", key);
}

static int
hf_dbl(struct yml_doc *d, yaml_node_t *root, const char *key, double *out)
{
	yaml_node_t *n = hf_get(d, root, key);

	return n ? yml_to_dbl(d, n, out, 0, 1e12) : 0;
}

/* A string-valued key, or NULL when absent; wrong types are errors. */
static int
hf_str(struct yml_doc *d, yaml_node_t *root, const char *key,
       const char **out, yaml_node_t **at)
{
	yaml_node_t *n = yml_get(d, root, key);

	*out = NULL;
	if (!n)
		return 0;
	if (!yml_scalar(n) || n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
		return yml_err(d, n, "expected a string for '%s'", key);
	*out = yml_scalar(n);
	if (at)
		*at = n;
	return 0;
}

/* Non-zero when any of the listed dropout probabilities is above 0. */
static int
hf_dropout(struct yml_doc *d, yaml_node_t *root, const char *const *keys,
	   int *out)
{
	double p;
	size_t i;

	for (i = 0; keys[i]; i++) {
		yaml_node_t *n = hf_get(d, root, keys[i]);

		if (!n)
			continue;
		if (yml_to_dbl(d, n, &p, 0, 1))
			return -1;
		if (p > 0)
			*out = 1;
	}
	return 0;
}

/*
 * Which style: "model_type" when present, else the first "architectures"
 * entry.  Returns the index in hf_kinds or -1 after a message.
 */
static int
hf_kind(struct yml_doc *d, yaml_node_t *root)
{
	yaml_node_t *mt = yml_get(d, root, "model_type");
	yaml_node_t *ar = yml_get(d, root, "architectures");
	const char *s;
	size_t i, j;

	if (mt) {
		s = yml_scalar(mt);
		if (!s)
			return yml_err(d, mt, "expected a string for "
				       "'model_type'");
		for (i = 0; i < HF_NKINDS; i++)
			if (!strcmp(s, hf_kinds[i].model_type))
				return (int)i;
		return yml_err(d, mt, "unsupported model_type '%s' (expected "
			       HF_TYPES ")", s);
	}
	if (ar->type != YAML_SEQUENCE_NODE)
		return yml_err(d, ar, "expected a sequence for "
			       "'architectures'");
	for (j = 0; j < yml_seq_len(ar); j++) {
		s = yml_scalar(yml_seq_item(d, ar, j));
		for (i = 0; s && i < HF_NKINDS; i++)
			if (!strncmp(s, hf_kinds[i].arch_prefix,
				     strlen(hf_kinds[i].arch_prefix)))
				return (int)i;
	}
	return yml_err(d, ar, "unsupported architectures (expected GPT2*, "
		       "Bert*, Llama*, Mistral*, Mixtral*, Qwen2*, Qwen3*, "
		       "DeepseekV2*, DeepseekV3*, Gemma*, Phi3*, GptOss* or "
		       "NemotronH*)");
}

/* Index of a style in hf_kinds. */
static int
hf_index(enum hf_style st)
{
	size_t i;

	for (i = 0; i < HF_NKINDS; i++)
		if (hf_kinds[i].style == st)
			break;
	return (int)i;
}

/*
 * Name of a config without "_name_or_path": the file's base name without
 * extension, or the directory's name for the usual ".../NAME/config.json".
 */
static char *
hf_default_name(const char *path)
{
	const char *b = strrchr(path, '/');
	const char *dot;
	char *s;
	size_t n;

	b = b ? b + 1 : path;
	dot = strrchr(b, '.');
	n = dot && dot != b ? (size_t)(dot - b) : strlen(b);
	if (n == 6 && !strncmp(b, "config", 6) && b != path) {
		const char *e = b - 1, *p = e;

		while (p > path && p[-1] != '/')
			p--;
		if (e > p && !(e - p == 1 && *p == '.')) {
			b = p;
			n = (size_t)(e - p);
		}
	}
	s = xmalloc(n + 1);
	memcpy(s, b, n);
	s[n] = 0;
	return s;
}

/* "dtype" (newer transformers) or "torch_dtype". */
static int
hf_precision(struct yml_doc *d, yaml_node_t *root, struct model *m)
{
	const char *key = hf_get(d, root, "dtype") ? "dtype" : "torch_dtype";
	yaml_node_t *at = NULL;
	const char *s;

	if (!hf_get(d, root, key))
		return 0;
	if (hf_str(d, root, key, &s, &at))
		return -1;
	if (!strcmp(s, "bfloat16"))
		m->precision = MODEL_BF16;
	else if (!strcmp(s, "float16"))
		m->precision = MODEL_FP16;
	else if (!strcmp(s, "float32"))
		m->precision = MODEL_FP32;
	else
		return yml_err(d, at, "unsupported %s '%s'", key, s);
	return 0;
}

static int
hf_act(struct yml_doc *d, yaml_node_t *root, const char *key, int want,
       int required)
{
	const char *expect = want == MODEL_SWIGLU ? "silu" : "gelu*";
	yaml_node_t *at = NULL;
	const char *s;

	if (hf_str(d, root, key, &s, &at))
		return -1;
	if (!s)
		return required ? yml_err(d, root, "missing key '%s'", key)
				: 0;
	if ((want == MODEL_GELU || want == MODEL_GEGLU) &&
	    !strncmp(s, "gelu", 4))
		return 0;
	if (want == MODEL_SWIGLU && (!strcmp(s, "silu") ||
				     !strcmp(s, "swish")))
		return 0;
	if (want == MODEL_SQRELU && !strcmp(s, "relu2"))
		return 0;
	if (want == MODEL_SQRELU)
		expect = "relu2";
	return yml_err(d, at, "unsupported %s '%s' (expected %s)", key, s,
		       expect);
}

/*
 * Sliding-window layers from "layer_types" ("sliding_attention" or
 * "full_attention" per layer): all full (no window), all sliding
 * (global_every 0), or full exactly where (i + 1) % k == 0.
 */
static int
hf_layer_types(struct yml_doc *d, yaml_node_t *lt, struct model *m,
	       int *windowed)
{
	size_t n = yml_seq_len(lt), i, full = 0, k = 0;

	if (lt->type != YAML_SEQUENCE_NODE || (int)n != m->layers)
		return yml_err(d, lt, "expected a sequence of %d layer types "
			       "for 'layer_types'", m->layers);
	for (i = 0; i < n; i++) {
		const char *s = yml_scalar(yml_seq_item(d, lt, i));

		if (s && !strcmp(s, "full_attention")) {
			if (!k)
				k = i + 1;
			full++;
		} else if (!s || strcmp(s, "sliding_attention")) {
			return yml_err(d, yml_seq_item(d, lt, i),
				       "unsupported layer type '%s'",
				       s ? s : "(non-scalar)");
		}
	}
	*windowed = full < n;
	if (full == n || !full) {
		m->global_every = 0;
		return 0;
	}
	for (i = 0; i < n; i++) {
		const char *s = yml_scalar(yml_seq_item(d, lt, i));

		if (!strcmp(s, "full_attention") != ((i + 1) % k == 0))
			return yml_err(d, lt, "layer_types: full attention "
				       "every %zu-th layer and sliding "
				       "otherwise is the only mix supported",
				       k);
	}
	m->global_every = (int)k;
	return 0;
}

/* Sliding window of the config ("sliding_window", null = none). */
static int
hf_window(struct yml_doc *d, yaml_node_t *root, struct model *m,
	  struct origin *o)
{
	return hf_i64(d, root, "sliding_window", 0, &m->window, MAX_SEQ,
		      &o->at[F_WINDOW]);
}

/* A key this reader cannot price: an error naming it. */
static int
hf_refuse(struct yml_doc *d, yaml_node_t *n, const char *key, const char *why)
{
	return yml_err(d, n, "%s %s (not supported)", key, why);
}

/* Qwen's MoE layer placement: every layer, nothing dense. */
static int
hf_qwen_moe(struct yml_doc *d, yaml_node_t *root, struct model *m,
	    struct origin *o)
{
	yaml_node_t *n = NULL;
	int64_t step = 1;

	if (hf_i64(d, root, "num_experts", 1, &m->moe.experts, MAX_EXPERTS,
		   &o->at[F_EXPERTS]) ||
	    hf_i64(d, root, "num_experts_per_tok", 1, &m->moe.top_k,
		   MAX_EXPERTS, &o->at[F_TOPK]) ||
	    hf_i64(d, root, "moe_intermediate_size", 1, &m->moe.expert_ffn,
		   MAX_FFN, &o->at[F_EXPERT_FFN]) ||
	    hf_i64(d, root, "decoder_sparse_step", 0, &step, MAX_LAYERS, &n))
		return -1;
	if (step != 1)
		return hf_refuse(d, n, "decoder_sparse_step",
				 "other than 1");
	n = hf_get(d, root, "mlp_only_layers");
	if (n && (n->type != YAML_SEQUENCE_NODE || yml_seq_len(n)))
		return hf_refuse(d, n, "mlp_only_layers", "not empty");
	return 0;
}

/* Qwen's sliding window applies from max_window_layers on. */
static int
hf_qwen_window(struct yml_doc *d, yaml_node_t *root)
{
	int on = 0;

	if (hf_bool(d, root, "use_sliding_window", &on))
		return -1;
	if (on)
		return hf_refuse(d, yml_get(d, root, "use_sliding_window"),
				 "use_sliding_window", "true");
	return 0;
}

/*
 * A string of Megatron-Core layer symbols (M Mamba-2, * attention, - MLP,
 * E MoE) of 1 to max layers, s of key at node at, into out (max + 1
 * bytes).
 */
static int
hf_symbols(struct yml_doc *d, yaml_node_t *at, const char *key,
	   const char *s, char *out, int max)
{
	size_t i, n = strlen(s);

	if (!n || n > (size_t)max)
		return yml_err(d, at, "%s of %zu layers (expected 1 to %d)",
			       key, n, max);
	for (i = 0; i < n; i++)
		if (!strchr("M*-E", s[i]))
			return yml_err(d, at, "%s: layer %zu is '%c' (expected "
				       "M for Mamba, * attention, - MLP, E "
				       "MoE)", key, i, s[i]);
	memcpy(out, s, n + 1);
	return 0;
}

/*
 * A Nemotron-H layer pattern (one Megatron-Core symbol a layer: M Mamba-2,
 * * attention, - MLP, E MoE): hybrid_override_pattern, or its newer name
 * hybrid_layer_pattern, or transformers 5's layers_block_type list
 * ("mamba", "attention", "mlp", "moe"), into m->pattern.  *at is the node
 * that gave it, *key its key.
 */
static int
hf_pattern(struct yml_doc *d, yaml_node_t *root, struct model *m,
	   yaml_node_t **at, const char **key)
{
	static const char *const keys[] = {
		"hybrid_override_pattern", "hybrid_layer_pattern", NULL,
	};
	static const struct {
		const char *name;
		char c;
	} types[] = {
		{"mamba", MODEL_LAYER_MAMBA},
		{"attention", MODEL_LAYER_ATTN},
		{"mlp", MODEL_LAYER_MLP},
		{"moe", MODEL_LAYER_MOE},
	};
	const char *s = NULL;
	size_t i, j, n;

	for (i = 0; keys[i] && !s; i++) {
		*key = keys[i];
		if (hf_get(d, root, keys[i]) &&
		    hf_str(d, root, keys[i], &s, at))
			return -1;
	}
	if (s)
		return hf_symbols(d, *at, *key, s, m->pattern,
				  MODEL_MAX_LAYERS);
	*key = "layers_block_type";
	*at = hf_get(d, root, *key);
	if (!*at)
		return yml_err(d, root, "missing key "
			       "'hybrid_override_pattern'");
	n = yml_seq_len(*at);
	if ((*at)->type != YAML_SEQUENCE_NODE || !n || n > MODEL_MAX_LAYERS)
		return yml_err(d, *at, "expected a sequence of 1 to %d layer "
			       "types for 'layers_block_type'",
			       MODEL_MAX_LAYERS);
	for (i = 0; i < n; i++) {
		yaml_node_t *it = yml_seq_item(d, *at, i);

		s = yml_scalar(it);
		for (j = 0; s && j < sizeof(types) / sizeof(types[0]); j++)
			if (!strcmp(s, types[j].name))
				break;
		if (!s || j == sizeof(types) / sizeof(types[0]))
			return yml_err(d, it, "unsupported layer type '%s' "
				       "(expected mamba, attention, mlp or "
				       "moe)", s ? s : "(non-scalar)");
		m->pattern[i] = types[j].c;
	}
	m->pattern[n] = 0;
	return 0;
}

/*
 * Nemotron-H's Mamba-2 mixer (NemotronHConfig's saved attribute names;
 * the remote code's constructor arguments as older spellings): every key
 * required, no default taken.
 */
static int
hf_mamba(struct yml_doc *d, yaml_node_t *root, struct model *m,
	 struct origin *o)
{
	struct model_mamba *b = &m->mamba;
	const struct {
		const char *key, *alias;
		int64_t *out;
		double hi;
		yaml_node_t **at;
	} keys[] = {
		{"mamba_num_heads", NULL, &b->heads, MAX_HEADS, NULL},
		{"mamba_head_dim", NULL, &b->head_dim, MAX_HIDDEN, NULL},
		{"ssm_state_size", NULL, &b->state, MAX_HIDDEN, NULL},
		/* the groups dividing the heads is the usual mistake */
		{"n_groups", "mamba_n_groups", &b->groups, MAX_HEADS,
		 &o->at[F_MAMBA]},
		{"conv_kernel", "mamba_d_conv", &b->conv, 64, NULL},
		{"chunk_size", "mamba_chunk_size", &b->chunk, MAX_SEQ, NULL},
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *k = keys[i].key;

		if (!hf_get(d, root, k) && keys[i].alias &&
		    hf_get(d, root, keys[i].alias))
			k = keys[i].alias;
		if (hf_i64(d, root, k, 1, keys[i].out, keys[i].hi,
			   keys[i].at))
			return -1;
	}
	return 0;
}

/*
 * Nemotron 3's MoE layers: n_routed_experts of moe_intermediate_size,
 * top num_experts_per_tok, n_shared_experts (1 when only the size is
 * given) of moe_shared_expert_intermediate_size, a sigmoid router with a
 * bias per expert (e_score_correction_bias), group-limited routing when
 * n_group > 1, and for Nemotron 3 Super's LatentMoE the routed experts'
 * width moe_latent_size (null or absent: the hidden size).
 */
static int
hf_nemotron_moe(struct yml_doc *d, yaml_node_t *root, struct model *m,
		struct origin *o)
{
	struct model_moe *e = &m->moe;
	int64_t shared = -1;

	if (hf_i64(d, root, "moe_latent_size", 0, &e->latent, MAX_HIDDEN,
		   &o->at[F_LATENT]) ||
	    hf_i64(d, root, "n_routed_experts", 1, &e->experts, MAX_EXPERTS,
		   &o->at[F_EXPERTS]) ||
	    hf_i64(d, root, "num_experts_per_tok", 1, &e->top_k, MAX_EXPERTS,
		   &o->at[F_TOPK]) ||
	    hf_i64(d, root, "moe_intermediate_size", 1, &e->expert_ffn,
		   MAX_FFN, &o->at[F_EXPERT_FFN]) ||
	    hf_i64z(d, root, "moe_shared_expert_intermediate_size",
		    &e->shared_ffn, MAX_FFN, NULL) ||
	    hf_i64z(d, root, "n_shared_experts", &shared, MAX_EXPERTS, NULL) ||
	    hf_i64z(d, root, "n_group", &e->groups, MAX_EXPERTS,
		    &o->at[F_GROUPS]) ||
	    hf_i64z(d, root, "topk_group", &e->group_top_k, MAX_EXPERTS,
		    &o->at[F_GROUPS]))
		return -1;
	if (shared < 0)
		shared = e->shared_ffn > 0;
	e->shared_experts = e->shared_ffn ? shared : 0;
	if (!e->shared_experts)
		e->shared_ffn = 0;
	if (e->groups <= 1)
		e->groups = e->group_top_k = 0;
	e->router_bias = 1;
	return hf_dbl(d, root, "routed_scaling_factor", &e->scale);
}

/*
 * Nemotron-H's multi-token prediction (Nemotron 3 Super):
 * num_nextn_predict_layers modules, each of the layers that
 * mtp_hybrid_override_pattern gives.  The checkpoint holds that many
 * modules, so their weights are not shared (mtp_shared 0).  Without
 * modules the pattern is checked but not kept.  It is read before the
 * mixer's and the MoE's keys, which only the model's pattern asks for.
 */
static int
hf_nemotron_mtp(struct yml_doc *d, yaml_node_t *root, struct model *m,
		struct origin *o)
{
	static const char *const key = "mtp_hybrid_override_pattern";
	char pattern[MODEL_MTP_MAX + 1];
	yaml_node_t *n = NULL, *at = NULL;
	const char *s = NULL;
	int64_t v = 0;
	size_t i;

	if (hf_i64z(d, root, "num_nextn_predict_layers", &v, 64, &n) ||
	    (hf_get(d, root, key) && hf_str(d, root, key, &s, &at)) ||
	    (s && hf_symbols(d, at, key, s, pattern, MODEL_MTP_MAX)))
		return -1;
	if (!v)
		return 0;
	if (!s)
		return yml_err(d, n, "num_nextn_predict_layers %lld needs "
			       "'%s', the layers of a module", (long long)v,
			       key);
	/* the module's Mamba and MoE layers are the model's kinds, priced
	 * by the model's mixer and experts */
	for (i = 0; pattern[i]; i++)
		if ((pattern[i] == MODEL_LAYER_MAMBA ||
		     pattern[i] == MODEL_LAYER_MOE) &&
		    !strchr(m->pattern, pattern[i]))
			return yml_err(d, at, "%s: layer %zu ('%c') of a kind "
				       "the model's layers lack (not "
				       "supported)", key, i, pattern[i]);
	m->mtp_layers = (int)v;
	m->mtp_shared = 0;
	memcpy(m->mtp_pattern, pattern, sizeof(pattern));
	o->at[F_MTP] = n;
	o->at[F_MTP_PATTERN] = at;
	return 0;
}

/*
 * Nemotron-H (NVIDIA's NemotronHConfig): a layer pattern instead of
 * blocks, Mamba-2 mixers, squared-ReLU MLPs (mlp_hidden_act relu2),
 * attention without position embeddings, and for Nemotron 3 MoE layers
 * (LatentMoE in Super) and multi-token prediction (hf_nemotron_mtp()).
 * The mixer's and the MoE's keys are read when the pattern has such
 * layers: configs also carry NemotronHConfig's defaults for the others.
 */
static int
hf_nemotron_h(struct yml_doc *d, yaml_node_t *root, struct model *m,
	      struct origin *o)
{
	/* pd2bw has one bias flag: on when any linear layer has one */
	static const char *const bias_keys[] = {
		"use_bias", "mamba_proj_bias", "mlp_bias", NULL,
	};
	const char *key = NULL;
	yaml_node_t *at = NULL;
	size_t i, len;
	int on;

	m->positions = MODEL_NOPOS;
	m->activation = MODEL_SQRELU;
	if (hf_pattern(d, root, m, &at, &key))
		return -1;
	o->at[F_PATTERN] = at;
	len = strlen(m->pattern);
	if (!m->layers) {
		/* transformers 5 derives num_hidden_layers from the list */
		m->layers = (int)len;
		o->at[F_LAYERS] = at;
	} else if (len != (size_t)m->layers) {
		return yml_err(d, at, "%s has %zu layers, num_hidden_layers "
			       "says %d", key, len, m->layers);
	}
	/* older configs name the attention head attention_head_dim */
	if (!m->head_dim &&
	    hf_i64(d, root, "attention_head_dim", 0, &m->head_dim,
		   MAX_HIDDEN, &o->at[F_HEAD_DIM]))
		return -1;
	if (m->head_dim && !(m->hidden % m->heads) &&
	    m->head_dim == m->hidden / m->heads)
		m->head_dim = 0;
	if (hf_act(d, root, "mlp_hidden_act", MODEL_SQRELU, 0))
		return -1;
	for (i = 0; bias_keys[i]; i++) {
		on = 0;
		if (hf_bool(d, root, bias_keys[i], &on))
			return -1;
		m->bias |= on;
	}
	if (hf_nemotron_mtp(d, root, m, o))
		return -1;
	/* NEEDSWORK: use_conv_bias false still counts the convolution's
	 * bias (every released Nemotron-H has it) */
	if (strchr(m->pattern, MODEL_LAYER_MAMBA) && hf_mamba(d, root, m, o))
		return -1;
	if (strchr(m->pattern, MODEL_LAYER_MOE) &&
	    hf_nemotron_moe(d, root, m, o))
		return -1;
	if (hf_window(d, root, m, o))
		return -1;
	/* (a window as long as the sequence is none: hf_llama() drops it) */
	if (m->window && m->window < m->seq_len)
		return hf_refuse(d, o->at[F_WINDOW], "sliding_window",
				 "in a hybrid model");
	return 0;
}

/* What each style reads beyond the Llama keys. */
static int
hf_extra(struct model *m, struct yml_doc *d, yaml_node_t *root,
	 enum hf_style st, struct origin *o)
{
	int64_t v = 0;
	const char *s;

	switch (st) {
	case HF_MISTRAL:
	case HF_PHI3:
		return hf_window(d, root, m, o);
	case HF_MIXTRAL:
		m->moe.expert_ffn = m->ffn_hidden;
		o->at[F_EXPERT_FFN] = o->at[F_FFN];
		return hf_i64(d, root, "num_local_experts", 1, &m->moe.experts,
			      MAX_EXPERTS, &o->at[F_EXPERTS]) ||
		       hf_i64(d, root, "num_experts_per_tok", 1,
			      &m->moe.top_k, MAX_EXPERTS, &o->at[F_TOPK]) ||
		       hf_window(d, root, m, o);
	case HF_QWEN2:
		m->qkv_bias = 1;
		return hf_qwen_window(d, root);
	case HF_QWEN2_MOE:
		m->qkv_bias = 1;
		if (hf_qwen_moe(d, root, m, o) ||
		    hf_i64z(d, root, "shared_expert_intermediate_size",
			    &m->moe.shared_ffn, MAX_FFN, NULL))
			return -1;
		if (m->moe.shared_ffn) {
			m->moe.shared_experts = 1;
			m->moe.shared_gate = 1;
		}
		return hf_qwen_window(d, root);
	case HF_QWEN3:
		m->qk_norm = 1;
		return hf_qwen_window(d, root);
	case HF_QWEN3_MOE:
		m->qk_norm = 1;
		return hf_qwen_moe(d, root, m, o) || hf_qwen_window(d, root);
	case HF_DEEPSEEK_V2:
	case HF_DEEPSEEK_V3:
		m->attention = MODEL_MLA;
		m->kv_heads = m->heads;
		o->at[F_ATTN] = o->at[F_HEADS];
		if (hf_i64z(d, root, "q_lora_rank", &m->mla.q_rank,
			    MAX_HIDDEN, NULL) ||
		    hf_i64(d, root, "kv_lora_rank", 1, &m->mla.kv_rank,
			   MAX_HIDDEN, &o->at[F_KV_RANK]) ||
		    hf_i64(d, root, "qk_nope_head_dim", 1, &m->mla.nope_dim,
			   MAX_HIDDEN, &o->at[F_NOPE]) ||
		    hf_i64z(d, root, "qk_rope_head_dim", &m->mla.rope_dim,
			    MAX_HIDDEN, NULL) ||
		    hf_i64(d, root, "v_head_dim", 1, &m->mla.v_dim,
			   MAX_HIDDEN, &o->at[F_V_DIM]) ||
		    hf_i64z(d, root, "n_routed_experts", &m->moe.experts,
			    MAX_EXPERTS, &o->at[F_EXPERTS]))
			return -1;
		if (!m->moe.experts)
			return 0;
		v = 1;
		if (hf_i64(d, root, "num_experts_per_tok", 1, &m->moe.top_k,
			   MAX_EXPERTS, &o->at[F_TOPK]) ||
		    hf_i64(d, root, "moe_intermediate_size", 1,
			   &m->moe.expert_ffn, MAX_FFN,
			   &o->at[F_EXPERT_FFN]) ||
		    hf_i64z(d, root, "n_shared_experts",
			    &m->moe.shared_experts, MAX_EXPERTS, NULL) ||
		    hf_i64z(d, root, "first_k_dense_replace", &v,
			    MAX_LAYERS, &o->at[F_FIRST_DENSE]))
			return -1;
		m->moe.first_dense = (int)v;
		v = 1;
		if (hf_i64(d, root, "moe_layer_freq", 0, &v, MAX_LAYERS, NULL))
			return -1;
		m->moe.every = (int)v;
		m->moe.shared_ffn = m->moe.shared_experts ? m->moe.expert_ffn
							  : 0;
		if (hf_str(d, root, "topk_method", &s, NULL))
			return -1;
		/* V3's aux-loss-free balancing adds a bias per expert */
		m->moe.router_bias = s && !strcmp(s, "noaux_tc");
		if (hf_dbl(d, root, "routed_scaling_factor", &m->moe.scale))
			return -1;
		/* group-limited routing (V2's group_limited_greedy, V3's
		 * noaux_tc): n_group groups, topk_group of them a token */
		if (s && (!strcmp(s, "noaux_tc") ||
			  !strcmp(s, "group_limited_greedy"))) {
			if (hf_i64z(d, root, "n_group", &m->moe.groups,
				    MAX_EXPERTS, &o->at[F_GROUPS]) ||
			    hf_i64z(d, root, "topk_group",
				    &m->moe.group_top_k, MAX_EXPERTS,
				    &o->at[F_GROUPS]))
				return -1;
			if (m->moe.groups <= 1)
				m->moe.groups = m->moe.group_top_k = 0;
		}
		v = 0;
		if (hf_i64z(d, root, "num_nextn_predict_layers", &v, 64, NULL))
			return -1;
		m->mtp_layers = (int)v;
		return 0;
	case HF_GEMMA2:
	case HF_GEMMA3:
	case HF_GEMMA3_TEXT:
		m->post_norms = 1;
		m->qk_norm = st != HF_GEMMA2;
		if (hf_window(d, root, m, o) ||
		    hf_dbl(d, root, "attn_logit_softcapping",
			   &m->attn_softcap) ||
		    hf_dbl(d, root, "final_logit_softcapping",
			   &m->logit_softcap))
			return -1;
		if (!m->window)
			return 0;
		m->global_every = 2;
		if (st == HF_GEMMA2)
			return 0;
		m->global_every = 6;
		if (hf_i64(d, root, "sliding_window_pattern", 0, &v,
			   MAX_LAYERS, &o->at[F_GLOBAL]))
			return -1;
		if (v)
			m->global_every = (int)v;
		return 0;
	case HF_NEMOTRON_H:
		return hf_nemotron_h(d, root, m, o);
	case HF_GPT_OSS:
		m->attn_sinks = 1;
		/* the gate and linear halves clamped at swiglu_limit
		 * (transformers' GptOssExperts; Megatron-Bridge's
		 * activation_func_clamp_value, gpt_oss_bridge.py:83) */
		if (hf_dbl(d, root, "swiglu_limit", &m->act_clamp))
			return -1;
		o->at[F_CLAMP] = hf_get(d, root, "swiglu_limit");
		if (hf_get(d, root, "num_experts_per_tok")) {
			if (hf_i64(d, root, "num_experts_per_tok", 1,
				   &m->moe.top_k, MAX_EXPERTS,
				   &o->at[F_TOPK]))
				return -1;
		} else if (hf_i64(d, root, "experts_per_token", 1,
				  &m->moe.top_k, MAX_EXPERTS,
				  &o->at[F_TOPK])) {
			return -1;
		}
		m->moe.expert_ffn = m->ffn_hidden;
		o->at[F_EXPERT_FFN] = o->at[F_FFN];
		return hf_i64(d, root, "num_local_experts", 1, &m->moe.experts,
			      MAX_EXPERTS, &o->at[F_EXPERTS]) ||
		       hf_window(d, root, m, o);
	default:
		break;
	}
	return 0;
}

/*
 * Gemma 3's text_config lists only what differs from Gemma3TextConfig's
 * defaults (transformers 4.50): those are filled in first.
 */
static void
gemma3_defaults(struct model *m)
{
	m->layers = 26;
	m->hidden = 2304;
	m->ffn_hidden = 9216;
	m->heads = 8;
	m->kv_heads = 4;
	m->head_dim = 256;
	m->vocab = 262208;
	m->seq_len = 131072;
	m->rope_base = 1e6;
	m->window = 4096;
	m->tied_embeddings = 1;
}

/* The Llama family's common keys. */
static int
hf_llama(struct model *m, struct yml_doc *d, yaml_node_t *root,
	 enum hf_style st, struct origin *o)
{
	static const char *const llama_drop[] = {
		"attention_dropout", "hidden_dropout", NULL,
	};
	int req = st != HF_GEMMA3 && st != HF_GEMMA3_TEXT;
	int gemma = st == HF_GEMMA || st == HF_GEMMA2 || req == 0;
	int64_t layers = m->layers;
	yaml_node_t *lt;
	int windowed = 0;

	family_defaults(m, MODEL_LLAMA);
	if (gemma) {
		m->activation = MODEL_GEGLU;
		m->tied_embeddings = 1;
	}
	if (!req)
		gemma3_defaults(m);
	layers = m->layers;
	/* Nemotron-H's pattern may give the layers (hf_nemotron_h()) */
	if (hf_i64(d, root, "num_hidden_layers", req && st != HF_NEMOTRON_H,
		   &layers, MAX_LAYERS, &o->at[F_LAYERS]) ||
	    hf_i64(d, root, "hidden_size", req, &m->hidden, MAX_HIDDEN,
		   &o->at[F_HIDDEN]) ||
	    hf_i64(d, root, "num_attention_heads", req, &m->heads, MAX_HEADS,
		   &o->at[F_HEADS]) ||
	    hf_i64(d, root, "num_key_value_heads", 0, &m->kv_heads,
		   MAX_HEADS, &o->at[F_KV_HEADS]) ||
	    hf_i64(d, root, "intermediate_size", req, &m->ffn_hidden,
		   MAX_FFN, &o->at[F_FFN]) ||
	    hf_i64(d, root, "max_position_embeddings", req, &m->seq_len,
		   MAX_SEQ, &o->at[F_SEQ]) ||
	    hf_i64(d, root, "vocab_size", req, &m->vocab, MAX_VOCAB,
		   &o->at[F_VOCAB]) ||
	    hf_i64(d, root, "head_dim", 0, &m->head_dim, MAX_HIDDEN,
		   &o->at[F_HEAD_DIM]) ||
	    hf_bool(d, root, "attention_bias", &m->bias) ||
	    hf_dropout(d, root, llama_drop, &m->dropout))
		return -1;
	m->layers = (int)layers;
	if (gemma) {
		/* Gemma names it hidden_activation, older files hidden_act */
		if (hf_act(d, root, hf_get(d, root, "hidden_activation")
					    ? "hidden_activation"
					    : "hidden_act",
			   MODEL_GEGLU, 0))
			return -1;
	} else if (st != HF_NEMOTRON_H &&
		   hf_act(d, root, "hidden_act", MODEL_SWIGLU, 0)) {
		/* Nemotron-H's is mlp_hidden_act (hf_nemotron_h()) */
		return -1;
	}
	if (st != HF_DEEPSEEK_V2 && st != HF_DEEPSEEK_V3 &&
	    st != HF_QWEN2_MOE && st != HF_QWEN3_MOE &&
	    st != HF_MIXTRAL && st != HF_GPT_OSS && st != HF_NEMOTRON_H) {
		static const char *const moe_keys[] = {
			"num_experts", "num_local_experts", "n_routed_experts",
			NULL,
		};
		size_t i;

		for (i = 0; moe_keys[i]; i++) {
			yaml_node_t *n = hf_get(d, root, moe_keys[i]);
			int64_t e = 0;

			if (n && (yml_to_i64(d, n, &e, 0, MAX_EXPERTS) || e))
				return yml_err(d, n, "'%s' in a %s config "
					       "(a dense model_type)",
					       moe_keys[i],
					       hf_kinds[hf_index(st)]
						       .model_type);
		}
	}
	/* head_dim equal to hidden / heads is the coupled default */
	if (m->head_dim && !(m->hidden % m->heads) &&
	    m->head_dim == m->hidden / m->heads)
		m->head_dim = 0;
	if (hf_extra(m, d, root, st, o))
		return -1;
	lt = hf_get(d, root, "layer_types");
	if (lt) {
		if (hf_layer_types(d, lt, m, &windowed))
			return -1;
		if (!windowed)
			m->window = 0;
		else if (!m->window)
			return yml_err(d, lt, "sliding layers without "
				       "'sliding_window'");
	}
	/* a window at least as long as the sequence changes nothing */
	if (m->window >= m->seq_len) {
		m->window = 0;
		m->global_every = 0;
	}
	o->at[F_GLOBAL] = o->at[F_GLOBAL] ? o->at[F_GLOBAL] : lt;
	return 0;
}

static int
load_hf(struct model *m, struct yml_doc *d, yaml_node_t *root)
{
	static const char *const gpt2_drop[] = {
		"resid_pdrop", "embd_pdrop", "attn_pdrop", NULL,
	};
	static const char *const bert_drop[] = {
		"hidden_dropout_prob", "attention_probs_dropout_prob", NULL,
	};
	struct origin o;
	int64_t layers = 0;
	yaml_node_t *n, *top = root;
	const char *name;
	int k;
	enum hf_style st;

	k = hf_kind(d, root);
	if (k < 0)
		return -1;
	st = hf_kinds[k].style;
	/* Without model_type, an MoE key tells the MoE variant. */
	if (!yml_get(d, root, "model_type")) {
		if (st == HF_QWEN2 && hf_get(d, root, "num_experts"))
			st = HF_QWEN2_MOE;
		else if (st == HF_QWEN3 && hf_get(d, root, "num_experts"))
			st = HF_QWEN3_MOE;
		else if ((st == HF_LLAMA || st == HF_MISTRAL) &&
			 hf_get(d, root, "num_local_experts"))
			st = HF_MIXTRAL;
	}
	memset(&o, 0, sizeof(o));
	o.d = d;
	o.root = root;
	if (st == HF_GEMMA3) {
		/* the multimodal config: plan its language model */
		n = yml_get(d, root, "text_config");
		if (n && n->type != YAML_MAPPING_NODE)
			return yml_err(d, n, "expected a mapping for "
				       "'text_config'");
		if (n) {
			root = n;
			o.root = n;
		}
	}
	switch (st) {
	case HF_GPT2:
		family_defaults(m, MODEL_GPT);
		m->dropout = 0;
		if (hf_i64(d, root, "n_layer", 1, &layers, MAX_LAYERS,
			   &o.at[F_LAYERS]) ||
		    hf_i64(d, root, "n_embd", 1, &m->hidden, MAX_HIDDEN,
			   &o.at[F_HIDDEN]) ||
		    hf_i64(d, root, "n_head", 1, &m->heads, MAX_HEADS,
			   &o.at[F_HEADS]))
			return -1;
		if (yml_get(d, root, "n_positions")) {
			if (hf_i64(d, root, "n_positions", 1, &m->seq_len,
				   MAX_SEQ, &o.at[F_SEQ]))
				return -1;
		} else if (yml_get(d, root, "n_ctx")) {
			if (hf_i64(d, root, "n_ctx", 1, &m->seq_len, MAX_SEQ,
				   &o.at[F_SEQ]))
				return -1;
		} else {
			return yml_err(d, root, "missing key 'n_positions'");
		}
		n = yml_get(d, root, "n_inner");
		if (n && !hf_null(n)) {
			if (hf_i64(d, root, "n_inner", 1, &m->ffn_hidden,
				   MAX_FFN, &o.at[F_FFN]))
				return -1;
		}
		if (hf_dropout(d, root, gpt2_drop, &m->dropout) ||
		    hf_act(d, root, "activation_function", MODEL_GELU, 0) ||
		    hf_i64(d, root, "vocab_size", 1, &m->vocab, MAX_VOCAB,
			   &o.at[F_VOCAB]))
			return -1;
		m->layers = (int)layers;
		break;
	case HF_BERT:
		family_defaults(m, MODEL_BERT);
		m->dropout = 0;
		if (hf_i64(d, root, "num_hidden_layers", 1, &layers,
			   MAX_LAYERS, &o.at[F_LAYERS]) ||
		    hf_i64(d, root, "hidden_size", 1, &m->hidden, MAX_HIDDEN,
			   &o.at[F_HIDDEN]) ||
		    hf_i64(d, root, "num_attention_heads", 1, &m->heads,
			   MAX_HEADS, &o.at[F_HEADS]) ||
		    hf_i64(d, root, "intermediate_size", 1, &m->ffn_hidden,
			   MAX_FFN, &o.at[F_FFN]) ||
		    hf_i64(d, root, "max_position_embeddings", 1, &m->seq_len,
			   MAX_SEQ, &o.at[F_SEQ]) ||
		    hf_dropout(d, root, bert_drop, &m->dropout) ||
		    hf_act(d, root, "hidden_act", MODEL_GELU, 0) ||
		    hf_i64(d, root, "vocab_size", 1, &m->vocab, MAX_VOCAB,
			   &o.at[F_VOCAB]))
			return -1;
		m->layers = (int)layers;
		break;
	default:
		if (hf_llama(m, d, root, st, &o))
			return -1;
		break;
	}
	if (hf_get(d, root, "rope_theta") &&
	    yml_to_dbl(d, yml_get(d, root, "rope_theta"), &m->rope_base, 1,
		       1e12))
		return -1;
	/* Megatron-Bridge reads every gpt_oss config as YaRN (models/
	 * gpt_oss/gpt_oss_bridge.py:65, position_embedding_type "yarn") */
	m->rope_yarn = st == HF_GPT_OSS || hf_yarn(d, root);
	/* without rotary positions (Nemotron-H) a rope_scaling is moot */
	if (m->positions == MODEL_NOPOS)
		m->rope_yarn = 0;
	/* The multimodal Gemma 3 keeps these at the top. */
	if (hf_bool(d, top, "tie_word_embeddings", &m->tied_embeddings) ||
	    (root != top &&
	     hf_bool(d, root, "tie_word_embeddings", &m->tied_embeddings)) ||
	    hf_precision(d, top, m) ||
	    (root != top && hf_precision(d, root, m)))
		return -1;
	/* Current runtimes use fused attention (SDPA, FlashAttention). */
	m->flash_attention = 1;
	if (!m->kv_heads)
		m->kv_heads = m->heads;
	if (!o.at[F_KV_HEADS])
		o.at[F_KV_HEADS] = o.at[F_HEADS];
	if (!m->ffn_hidden)
		m->ffn_hidden = default_ffn(m);
	if (hf_str(d, top, "_name_or_path", &name, &o.at[F_NAME]))
		return -1;
	free(m->name);
	m->name = name && *name ? xstrdup(name) : hf_default_name(d->path);
	return check(m, &o);
}

static int
load_doc(struct model *m, struct yml_doc *d)
{
	yaml_node_t *root = yml_root(d);

	if (!root)
		return -1;
	model_release(m);
	model_init(m);
	if (root->type == YAML_MAPPING_NODE && !yml_get(d, root, "format") &&
	    (yml_get(d, root, "model_type") ||
	     yml_get(d, root, "architectures")))
		return load_hf(m, d, root);
	return load_native(m, d, root);
}

int
model_load(struct model *m, const char *path)
{
	struct yml_doc d;
	struct stat st;
	char *cfg = NULL;
	int ret;

	/* a Hugging Face model directory */
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		size_t n = strlen(path) + sizeof("/config.json");

		cfg = xmalloc(n);
		snprintf(cfg, n, "%s/config.json", path);
		path = cfg;
	}
	ret = yml_load_file(&d, path);
	if (!ret)
		ret = load_doc(m, &d);
	yml_release(&d);
	free(cfg);
	return ret;
}

int
model_load_string(struct model *m, const char *name, const char *buf,
		  size_t len)
{
	struct yml_doc d;
	int ret;

	ret = yml_load_string(&d, name, buf, len);
	if (!ret)
		ret = load_doc(m, &d);
	yml_release(&d);
	return ret;
}

/* The keys of format 2, after those of format 1, each only when set. */
static void
write_v2(struct yml_out *o, const struct model *m)
{
	if (m->rope_yarn)
		yml_out_kbool(o, "rope_yarn", 1);
	if (m->head_dim)
		yml_out_kint(o, "head_dim", m->head_dim);
	if (m->attention == MODEL_MLA) {
		yml_out_kstr(o, "attention", "mla");
		yml_out_str(o, "mla");
		yml_out_map(o, 1);
		yml_out_kint(o, "q_rank", m->mla.q_rank);
		yml_out_kint(o, "kv_rank", m->mla.kv_rank);
		yml_out_kint(o, "nope_dim", m->mla.nope_dim);
		yml_out_kint(o, "rope_dim", m->mla.rope_dim);
		yml_out_kint(o, "v_dim", m->mla.v_dim);
		yml_out_end_map(o);
	}
	if (m->moe.experts) {
		yml_out_str(o, "moe");
		yml_out_map(o, 0);
		yml_out_kint(o, "experts", m->moe.experts);
		yml_out_kint(o, "top_k", m->moe.top_k);
		yml_out_kint(o, "expert_ffn", m->moe.expert_ffn);
		yml_out_kint(o, "shared_experts", m->moe.shared_experts);
		if (m->moe.shared_experts)
			yml_out_kint(o, "shared_ffn", m->moe.shared_ffn);
		yml_out_kbool(o, "shared_gate", m->moe.shared_gate);
		yml_out_kbool(o, "router_bias", m->moe.router_bias);
		yml_out_kint(o, "first_dense", m->moe.first_dense);
		yml_out_kint(o, "every", m->moe.every);
		yml_out_kdbl(o, "capacity_factor", m->moe.capacity_factor);
		if (m->moe.groups) {
			yml_out_kint(o, "groups", m->moe.groups);
			yml_out_kint(o, "group_top_k", m->moe.group_top_k);
		}
		if (m->moe.latent)
			yml_out_kint(o, "latent", m->moe.latent);
		if (m->moe.scale > 0)
			yml_out_kdbl(o, "scale", m->moe.scale);
		yml_out_end_map(o);
	}
	if (m->qkv_bias)
		yml_out_kbool(o, "qkv_bias", 1);
	if (m->qk_norm)
		yml_out_kbool(o, "qk_norm", 1);
	if (m->post_norms)
		yml_out_kbool(o, "post_norms", 1);
	if (m->attn_sinks)
		yml_out_kbool(o, "attn_sinks", 1);
	if (m->window)
		yml_out_kint(o, "window", m->window);
	if (m->global_every)
		yml_out_kint(o, "global_every", m->global_every);
	if (m->doc_len)
		yml_out_kint(o, "doc_len", m->doc_len);
	if (m->attn_softcap)
		yml_out_kdbl(o, "attn_softcap", m->attn_softcap);
	if (m->logit_softcap)
		yml_out_kdbl(o, "logit_softcap", m->logit_softcap);
	if (m->act_clamp)
		yml_out_kdbl(o, "act_clamp", m->act_clamp);
	if (m->mtp_layers)
		yml_out_kint(o, "mtp_layers", m->mtp_layers);
	if (m->mtp_shared)
		yml_out_kbool(o, "mtp_shared", 1);
	if (model_is_hybrid(m)) {
		yml_out_kstr(o, "pattern", m->pattern);
		if (m->mtp_pattern[0])
			yml_out_kstr(o, "mtp_pattern", m->mtp_pattern);
		if (m->mamba.heads) {
			yml_out_str(o, "mamba");
			yml_out_map(o, 1);
			yml_out_kint(o, "heads", m->mamba.heads);
			yml_out_kint(o, "head_dim", m->mamba.head_dim);
			yml_out_kint(o, "state", m->mamba.state);
			yml_out_kint(o, "groups", m->mamba.groups);
			yml_out_kint(o, "conv", m->mamba.conv);
			yml_out_kint(o, "chunk", m->mamba.chunk);
			yml_out_end_map(o);
		}
	}
}

int
model_write(const struct model *m, const char *path)
{
	struct yml_out o;
	int v2 = model_is_v2(m);

	if (model_validate(m, path))
		return -1;
	if (yml_out_open(&o, path))
		return -1;
	yml_out_map(&o, 0);
	yml_out_kstr(&o, "format", v2 ? "pd2bw-model/2" : "pd2bw-model/1");
	yml_out_kstr(&o, "name", m->name);
	yml_out_kstr(&o, "family", model_family_names[m->family]);
	yml_out_kint(&o, "layers", m->layers);
	yml_out_kint(&o, "hidden", m->hidden);
	yml_out_kint(&o, "heads", m->heads);
	yml_out_kint(&o, "kv_heads", m->kv_heads);
	yml_out_kint(&o, "ffn_hidden", m->ffn_hidden);
	yml_out_kint(&o, "seq_len", m->seq_len);
	yml_out_kint(&o, "vocab", m->vocab);
	yml_out_kstr(&o, "activation", model_act_names[m->activation]);
	yml_out_kstr(&o, "norm", model_norm_names[m->norm]);
	yml_out_kstr(&o, "positions", model_pos_names[m->positions]);
	if (m->positions == MODEL_ROTARY)
		yml_out_kdbl(&o, "rope_base", m->rope_base);
	yml_out_kbool(&o, "causal", m->causal);
	yml_out_kbool(&o, "tied_embeddings", m->tied_embeddings);
	yml_out_kbool(&o, "bias", m->bias);
	yml_out_kbool(&o, "dropout", m->dropout);
	yml_out_kbool(&o, "flash_attention", m->flash_attention);
	yml_out_kstr(&o, "precision", model_prec_names[m->precision]);
	if (v2)
		write_v2(&o, m);
	yml_out_end_map(&o);
	return yml_out_close(&o);
}
