/*
 * model.c - the model description: name tables, reading pd2bw-model/1 and
 * Hugging Face config.json files (GPT-2, BERT, Llama/Mistral/Qwen2 style),
 * writing pd2bw-model/1, and the consistency checks.  The closed-form
 * counts live in model_count.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/model.h"
#include "pd2bw/yml.h"

const char *const model_family_names[] = {"gpt", "bert", "llama", NULL};
const char *const model_act_names[] = {"gelu", "swiglu", NULL};
const char *const model_norm_names[] = {"layernorm", "rmsnorm", NULL};
const char *const model_pos_names[] = {"learned", "rotary", NULL};
const char *const model_prec_names[] = {"bf16", "fp16", "fp32", "fp8",
					  NULL};

/* Limits beyond which a description is surely a typo. */
#define MAX_LAYERS ((double)MODEL_MAX_LAYERS) /* profile.h says why */
#define MAX_HIDDEN 1048576.0
#define MAX_HEADS 65536.0
#define MAX_SEQ 1e8
#define MAX_VOCAB 1e9

/*
 * Where each checked field came from, so validation can point at the line
 * of the offending value; NULL entries fall back to the document root.
 */
enum field {
	F_LAYERS, F_HIDDEN, F_HEADS, F_KV_HEADS, F_FFN, F_SEQ, F_VOCAB,
	F_NAME, F_N
};

struct origin {
	struct yml_doc *d;
	yaml_node_t *root;
	yaml_node_t *at[F_N];
	const char *path; /* when there is no document */
};

static const char *const field_names[F_N] = {
	"layers", "hidden", "heads", "kv_heads", "ffn_hidden", "seq_len",
	"vocab", "name",
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

/*
 * Llama's rule for the SwiGLU inner size: two thirds of 4h, rounded up to
 * a multiple of 256.
 */
static int64_t
default_ffn(const struct model *m)
{
	int64_t f;

	if (m->activation != MODEL_SWIGLU)
		return 4 * m->hidden;
	f = (8 * m->hidden + 2) / 3;
	return (f + 255) / 256 * 256;
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
	if (m->heads < 1 || m->heads > m->hidden)
		return bad(o, F_HEADS, "heads %lld out of range [1, hidden]",
			   (long long)m->heads);
	if (m->hidden % m->heads)
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
	if (m->ffn_hidden < 1 || m->ffn_hidden > 64 * MAX_HIDDEN)
		return bad(o, F_FFN, "ffn_hidden %lld out of range",
			   (long long)m->ffn_hidden);
	if (m->seq_len < 1 || m->seq_len > MAX_SEQ)
		return bad(o, F_SEQ, "seq_len %lld out of range [1, %.0f]",
			   (long long)m->seq_len, MAX_SEQ);
	if (m->vocab < 1 || m->vocab > MAX_VOCAB)
		return bad(o, F_VOCAB, "vocab %lld out of range [1, %.0f]",
			   (long long)m->vocab, MAX_VOCAB);
	if (m->family < 0 || m->family > MODEL_LLAMA ||
	    m->activation < 0 || m->activation > MODEL_SWIGLU ||
	    m->norm < 0 || m->norm > MODEL_RMSNORM || m->positions < 0 ||
	    m->positions > MODEL_ROTARY || m->precision < 0 ||
	    m->precision > MODEL_FP8)
		return bad(o, F_NAME, "invalid enumeration value");
	return 0;
}

int
model_validate(const struct model *m, const char *path)
{
	struct origin o;

	memset(&o, 0, sizeof(o));
	o.path = path ? path : "model";
	return check(m, &o);
}

/* ---- pd2bw-model/1 ---- */

static int
load_native(struct model *m, struct yml_doc *d, yaml_node_t *root)
{
	struct origin o;
	char *fmt = NULL;
	int64_t kv = 0, ffn = 0;
	int family = MODEL_GPT, ret;
	yaml_node_t *fam;
	size_t i;

	if (yml_check_format(d, root, "model", 1) < 0)
		return -1;
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
			YK_I64("ffn_hidden", 0, &ffn, 1, 64 * MAX_HIDDEN),
			YK_I64("seq_len", 1, &m->seq_len, 1, MAX_SEQ),
			YK_I64("vocab", 1, &m->vocab, 1, MAX_VOCAB),
			YK_ENUM("activation", 0, &m->activation,
				model_act_names),
			YK_ENUM("norm", 0, &m->norm, model_norm_names),
			YK_ENUM("positions", 0, &m->positions,
				model_pos_names),
			YK_DBL("rope_base", 0, &m->rope_base, 1, 1e12),
			YK_BOOL("causal", 0, &m->causal),
			YK_BOOL("tied_embeddings", 0, &m->tied_embeddings),
			YK_BOOL("bias", 0, &m->bias),
			YK_BOOL("dropout", 0, &m->dropout),
			YK_BOOL("flash_attention", 0, &m->flash_attention),
			YK_ENUM("precision", 0, &m->precision,
				model_prec_names),
		};

		ret = yml_map(d, root, keys, sizeof(keys) / sizeof(keys[0]));
	}
	free(fmt);
	if (ret)
		return -1;
	m->kv_heads = kv ? kv : m->heads;
	m->ffn_hidden = ffn ? ffn : default_ffn(m);
	memset(&o, 0, sizeof(o));
	o.d = d;
	o.root = root;
	for (i = 0; i < F_N; i++)
		o.at[i] = yml_get(d, root, field_names[i]);
	if (!o.at[F_KV_HEADS])
		o.at[F_KV_HEADS] = o.at[F_HEADS];
	return check(m, &o);
}

/* ---- Hugging Face config.json ---- */

enum hf_style { HF_GPT2, HF_BERT, HF_LLAMA, HF_QWEN2 };

static const struct {
	const char *model_type;  /* exact "model_type" */
	const char *arch_prefix; /* prefix of an "architectures" entry */
	enum hf_style style;
} hf_kinds[] = {
	{"gpt2", "GPT2", HF_GPT2},
	{"bert", "Bert", HF_BERT},
	{"llama", "Llama", HF_LLAMA},
	{"mistral", "Mistral", HF_LLAMA},
	{"qwen2", "Qwen2", HF_QWEN2},
};
#define HF_NKINDS (sizeof(hf_kinds) / sizeof(hf_kinds[0]))

/* Fetch key of the config as an integer; required ones must exist. */
static int
hf_i64(struct yml_doc *d, yaml_node_t *root, const char *key, int required,
       int64_t *out, double hi, yaml_node_t **at)
{
	yaml_node_t *n = yml_get(d, root, key);

	if (!n) {
		if (required)
			return yml_err(d, root, "missing key '%s'", key);
		return 0;
	}
	if (at)
		*at = n;
	return yml_to_i64(d, n, out, 1, hi);
}

static int
hf_bool(struct yml_doc *d, yaml_node_t *root, const char *key, int *out)
{
	yaml_node_t *n = yml_get(d, root, key);
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
		yaml_node_t *n = yml_get(d, root, keys[i]);

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
			       "gpt2, bert, llama, mistral or qwen2)", s);
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
		       "Bert*, Llama*, Mistral* or Qwen2*)");
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

static int
hf_precision(struct yml_doc *d, yaml_node_t *root, struct model *m)
{
	yaml_node_t *at = NULL;
	const char *s;

	if (hf_str(d, root, "torch_dtype", &s, &at))
		return -1;
	if (!s)
		return 0;
	if (!strcmp(s, "bfloat16"))
		m->precision = MODEL_BF16;
	else if (!strcmp(s, "float16"))
		m->precision = MODEL_FP16;
	else if (!strcmp(s, "float32"))
		m->precision = MODEL_FP32;
	else
		return yml_err(d, at, "unsupported torch_dtype '%s'", s);
	return 0;
}

static int
hf_act(struct yml_doc *d, yaml_node_t *root, const char *key, int want,
       int required)
{
	yaml_node_t *at = NULL;
	const char *s;

	if (hf_str(d, root, key, &s, &at))
		return -1;
	if (!s)
		return required ? yml_err(d, root, "missing key '%s'", key)
				: 0;
	if (want == MODEL_GELU && !strncmp(s, "gelu", 4))
		return 0;
	if (want == MODEL_SWIGLU && (!strcmp(s, "silu") ||
				     !strcmp(s, "swish")))
		return 0;
	return yml_err(d, at, "unsupported %s '%s' (expected %s)", key, s,
		       want == MODEL_GELU ? "gelu*" : "silu");
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
	static const char *const llama_drop[] = {
		"attention_dropout", "hidden_dropout", NULL,
	};
	struct origin o;
	int64_t layers = 0, head_dim = 0;
	yaml_node_t *n, *hd = NULL;
	const char *name;
	int k;

	k = hf_kind(d, root);
	if (k < 0)
		return -1;
	memset(&o, 0, sizeof(o));
	o.d = d;
	o.root = root;
	switch (hf_kinds[k].style) {
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
		if (n && !(yml_scalar(n) &&
			   n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
			   !strcmp(yml_scalar(n), "null"))) {
			if (hf_i64(d, root, "n_inner", 1, &m->ffn_hidden,
				   64 * MAX_HIDDEN, &o.at[F_FFN]))
				return -1;
		}
		if (hf_dropout(d, root, gpt2_drop, &m->dropout) ||
		    hf_act(d, root, "activation_function", MODEL_GELU, 0))
			return -1;
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
			   64 * MAX_HIDDEN, &o.at[F_FFN]) ||
		    hf_i64(d, root, "max_position_embeddings", 1, &m->seq_len,
			   MAX_SEQ, &o.at[F_SEQ]) ||
		    hf_dropout(d, root, bert_drop, &m->dropout) ||
		    hf_act(d, root, "hidden_act", MODEL_GELU, 0))
			return -1;
		break;
	case HF_LLAMA:
	case HF_QWEN2:
		family_defaults(m, MODEL_LLAMA);
		if (hf_i64(d, root, "num_hidden_layers", 1, &layers,
			   MAX_LAYERS, &o.at[F_LAYERS]) ||
		    hf_i64(d, root, "hidden_size", 1, &m->hidden, MAX_HIDDEN,
			   &o.at[F_HIDDEN]) ||
		    hf_i64(d, root, "num_attention_heads", 1, &m->heads,
			   MAX_HEADS, &o.at[F_HEADS]) ||
		    hf_i64(d, root, "num_key_value_heads", 0, &m->kv_heads,
			   MAX_HEADS, &o.at[F_KV_HEADS]) ||
		    hf_i64(d, root, "intermediate_size", 1, &m->ffn_hidden,
			   64 * MAX_HIDDEN, &o.at[F_FFN]) ||
		    hf_i64(d, root, "max_position_embeddings", 1, &m->seq_len,
			   MAX_SEQ, &o.at[F_SEQ]) ||
		    hf_i64(d, root, "head_dim", 0, &head_dim, MAX_HIDDEN,
			   &hd) ||
		    hf_bool(d, root, "attention_bias", &m->bias) ||
		    hf_dropout(d, root, llama_drop, &m->dropout) ||
		    hf_act(d, root, "hidden_act", MODEL_SWIGLU, 0))
			return -1;
		/*
		 * Qwen2's q, k, v projections carry biases and nothing else
		 * does: under 0.01% of the parameters, so bias stays false.
		 */
		if (head_dim && m->heads * head_dim != m->hidden)
			return yml_err(d, hd, "head_dim %lld times "
				       "num_attention_heads is not hidden_size "
				       "(not supported)", (long long)head_dim);
		break;
	}
	if (yml_get(d, root, "rope_theta") &&
	    yml_to_dbl(d, yml_get(d, root, "rope_theta"), &m->rope_base, 1,
		       1e12))
		return -1;
	if (hf_i64(d, root, "vocab_size", 1, &m->vocab, MAX_VOCAB,
		   &o.at[F_VOCAB]) ||
	    hf_bool(d, root, "tie_word_embeddings", &m->tied_embeddings) ||
	    hf_precision(d, root, m))
		return -1;
	m->layers = (int)layers;
	/* Current runtimes use fused attention (SDPA, FlashAttention). */
	m->flash_attention = 1;
	if (!m->kv_heads)
		m->kv_heads = m->heads;
	if (!o.at[F_KV_HEADS])
		o.at[F_KV_HEADS] = o.at[F_HEADS];
	if (!m->ffn_hidden)
		m->ffn_hidden = default_ffn(m);
	if (hf_str(d, root, "_name_or_path", &name, &o.at[F_NAME]))
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
	int ret;

	ret = yml_load_file(&d, path);
	if (!ret)
		ret = load_doc(m, &d);
	yml_release(&d);
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

int
model_write(const struct model *m, const char *path)
{
	struct yml_out o;

	if (model_validate(m, path))
		return -1;
	if (yml_out_open(&o, path))
		return -1;
	yml_out_map(&o, 0);
	yml_out_kstr(&o, "format", "pd2bw-model/1");
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
	yml_out_end_map(&o);
	return yml_out_close(&o);
}
