/*
 * test_model.c - pd2bw-model/1 and Hugging Face config.json reading, the
 * defaults, validation messages, byte-stable round trips, and the zoo.
 */
#include "harness.h"
#include "capture.h"
#include "pd2bw/error.h"
#include "pd2bw/model.h"

#define FX "tests/data/formats/"

static int
load_str(struct model *m, const char *buf)
{
	return model_load_string(m, "m.yaml", buf, strlen(buf));
}

static int
load_json(struct model *m, const char *buf)
{
	return model_load_string(m, "c.json", buf, strlen(buf));
}

static const char head[] = "format: pd2bw-model/1\nname: t\n";

/* head + extra + the remaining required keys, unless extra names them. */
static int
load_with(struct model *m, const char *extra)
{
	char buf[2048];

	snprintf(buf, sizeof(buf), "%s%s", head, extra);
	return load_str(m, buf);
}

static void
test_defaults(void)
{
	struct model m;

	model_init(&m);
	CHECK(model_load(&m, cap_path(FX "model-min.yaml")) == 0);
	CHECK_STR_EQ(m.name, "tiny");
	CHECK_INT_EQ(m.family, MODEL_GPT);
	CHECK_INT_EQ(m.layers, 2);
	CHECK_INT_EQ(m.kv_heads, 4);
	CHECK_INT_EQ(m.ffn_hidden, 256);
	CHECK_INT_EQ(m.activation, MODEL_GELU);
	CHECK_INT_EQ(m.causal, 1);
	CHECK_INT_EQ(m.tied_embeddings, 1);
	CHECK_INT_EQ(m.flash_attention, 0);
	CHECK_INT_EQ(m.precision, MODEL_FP16);

	/* llama: SwiGLU with Llama's 2/3 * 4h rounded up to 256 (11008). */
	CHECK(load_with(&m, "family: llama\nlayers: 2\nhidden: 4096\n"
			    "heads: 32\nseq_len: 16\nvocab: 100\n") == 0);
	CHECK_INT_EQ(m.ffn_hidden, 11008);
	CHECK_INT_EQ(m.activation, MODEL_SWIGLU);
	CHECK_INT_EQ(m.norm, MODEL_RMSNORM);
	CHECK_INT_EQ(m.positions, MODEL_ROTARY);
	CHECK_INT_EQ(m.tied_embeddings, 0);
	CHECK_INT_EQ(m.bias, 0);
	CHECK_INT_EQ(m.dropout, 0);
	CHECK_INT_EQ(m.flash_attention, 1);
	CHECK_INT_EQ(m.precision, MODEL_BF16);

	/* bert is bidirectional; explicit keys beat family defaults. */
	CHECK(load_with(&m, "family: bert\nlayers: 2\nhidden: 64\nheads: 4\n"
			    "seq_len: 16\nvocab: 100\ncausal: true\n"
			    "ffn_hidden: 100\n") == 0);
	CHECK_INT_EQ(m.causal, 1);
	CHECK_INT_EQ(m.ffn_hidden, 100);
	CHECK(load_with(&m, "family: bert\nlayers: 2\nhidden: 64\nheads: 4\n"
			    "seq_len: 16\nvocab: 100\n") == 0);
	CHECK_INT_EQ(m.causal, 0);
	model_release(&m);
}

static void
test_bad(void)
{
	struct model m;
	const char *rest = "layers: 2\nhidden: 64\nheads: 4\nseq_len: 16\n";
	char buf[1024];

	model_init(&m);
	snprintf(buf, sizeof(buf), "%svocab: 100\nlayrs: 3\n", rest);
	CHECK_ERR(load_with(&m, buf), "pd2bw: m.yaml:8:1: unknown key 'layrs'");
	CHECK_ERR(load_with(&m, rest),
		  "pd2bw: m.yaml:1:1: missing key 'vocab'");
	snprintf(buf, sizeof(buf), "%svocab: lots\n", rest);
	CHECK_ERR(load_with(&m, buf),
		  "pd2bw: m.yaml:7:8: expected a number, found 'lots'");
	snprintf(buf, sizeof(buf), "%svocab: .nan\n", rest);
	CHECK_ERR(load_with(&m, buf),
		  "pd2bw: m.yaml:7:8: expected a number, found '.nan'");
	snprintf(buf, sizeof(buf), "%svocab: -5\n", rest);
	CHECK_ERR(load_with(&m, buf),
		  "pd2bw: m.yaml:7:8: value -5 out of range [1, 1000000000]");
	CHECK_ERR(load_with(&m, "layers: 0\nhidden: 64\nheads: 4\n"
			    "seq_len: 16\nvocab: 100\n"),
		  "pd2bw: m.yaml:3:9: value 0 out of range [1, 1000]");
	CHECK_ERR(load_with(&m, "layers: 2000000\nhidden: 64\nheads: 4\n"
			    "seq_len: 16\nvocab: 100\n"),
		  "pd2bw: m.yaml:3:9: value 2000000 out of range [1, "
		  "1000]");
	/* the search is quadratic in layers: 1001 refused at the reader */
	CHECK_ERR(load_with(&m, "layers: 1001\nhidden: 64\nheads: 4\n"
			    "seq_len: 16\nvocab: 100\n"),
		  "pd2bw: m.yaml:3:9: value 1001 out of range [1, 1000]");
	snprintf(buf, sizeof(buf), "%svocab: 100\ncausal: 1\n", rest);
	CHECK_ERR(load_with(&m, buf),
		  "pd2bw: m.yaml:8:9: expected true or false for 'causal'");
	snprintf(buf, sizeof(buf), "%svocab: 100\nactivation: relu\n", rest);
	CHECK_ERR(load_with(&m, buf),
		  "pd2bw: m.yaml:8:13: invalid activation 'relu' (expected "
		  "gelu, swiglu, geglu, squared-relu)");
	snprintf(buf, sizeof(buf), "family: t5\n%svocab: 100\n", rest);
	CHECK_ERR(load_with(&m, buf),
		  "pd2bw: m.yaml:3:9: invalid family 't5' (expected gpt, "
		  "bert, llama)");
	snprintf(buf, sizeof(buf), "%svocab: 100\nkv_heads: 3\n", rest);
	CHECK_ERR(load_with(&m, buf),
		  "pd2bw: m.yaml:8:11: kv_heads (3) do not divide heads (4)");
	snprintf(buf, sizeof(buf), "%svocab: 100\nkv_heads: 8\n", rest);
	CHECK_ERR(load_with(&m, buf),
		  "pd2bw: m.yaml:8:11: kv_heads 8 out of range [1, heads]");
	CHECK_ERR(model_load(&m, cap_path(FX "model-bad-heads.yaml")),
		  "pd2bw: " FX "model-bad-heads.yaml:5:8: heads (5) do not "
		  "divide hidden (64)");
	CHECK_ERR(model_load(&m, cap_path(FX "model-truncated.yaml")),
		  "pd2bw: " FX "model-truncated.yaml:4:1: did not find "
		  "expected node content while parsing a flow node");
	CHECK_ERR(model_load(&m, cap_path(FX "empty.yaml")),
		  "pd2bw: " FX "empty.yaml:1:1: empty document");
	CHECK_ERR(load_str(&m, "- 1\n- 2\n"),
		  "pd2bw: m.yaml:1:1: expected a mapping, found a sequence");
	CHECK_ERR(load_str(&m, "just text\n"),
		  "pd2bw: m.yaml:1:1: expected a mapping, found a scalar");
	CHECK_ERR(load_str(&m, "format: pd2bw-model/3\n"),
		  "pd2bw: m.yaml:1:9: format version 3 is newer than this "
		  "program reads (2)");
	CHECK_ERR(load_str(&m, "name: x\n"),
		  "pd2bw: m.yaml:1:1: missing key 'format'");
	CHECK_ERR(model_load(&m, "/nonexistent/m.yaml"),
		  "pd2bw: cannot open '/nonexistent/m.yaml': No such file or "
		  "directory");
	model_release(&m);
}

static void
test_hf(void)
{
	struct model m;

	model_init(&m);
	CHECK(model_load(&m, cap_path(FX "hf-gpt2/config.json")) == 0);
	CHECK_STR_EQ(m.name, "hf-gpt2");
	CHECK_INT_EQ(m.family, MODEL_GPT);
	CHECK_INT_EQ(m.layers, 48);
	CHECK_INT_EQ(m.hidden, 1600);
	CHECK_INT_EQ(m.heads, 25);
	CHECK_INT_EQ(m.kv_heads, 25);
	CHECK_INT_EQ(m.ffn_hidden, 6400);
	CHECK_INT_EQ(m.seq_len, 1024);
	CHECK_INT_EQ(m.vocab, 50257);
	CHECK_INT_EQ(m.tied_embeddings, 1);
	CHECK_INT_EQ(m.dropout, 1);
	CHECK_INT_EQ(m.bias, 1);
	CHECK_INT_EQ(m.flash_attention, 1);

	CHECK(model_load(&m, cap_path(FX "hf-bert.json")) == 0);
	CHECK_STR_EQ(m.name, "hf-bert");
	CHECK_INT_EQ(m.family, MODEL_BERT);
	CHECK_INT_EQ(m.layers, 24);
	CHECK_INT_EQ(m.hidden, 1024);
	CHECK_INT_EQ(m.ffn_hidden, 4096);
	CHECK_INT_EQ(m.seq_len, 512);
	CHECK_INT_EQ(m.vocab, 30522);
	CHECK_INT_EQ(m.causal, 0);

	CHECK(model_load(&m, cap_path(FX "hf-llama/config.json")) == 0);
	CHECK_STR_EQ(m.name, "hf-llama");
	CHECK_INT_EQ(m.family, MODEL_LLAMA);
	CHECK_INT_EQ(m.heads, 32);
	CHECK_INT_EQ(m.kv_heads, 8);
	CHECK_INT_EQ(m.ffn_hidden, 14336);
	CHECK_INT_EQ(m.seq_len, 8192);
	CHECK_INT_EQ(m.vocab, 128256);
	CHECK_INT_EQ(m.activation, MODEL_SWIGLU);
	CHECK_INT_EQ(m.norm, MODEL_RMSNORM);
	CHECK_INT_EQ(m.tied_embeddings, 0);
	CHECK_INT_EQ(m.bias, 0);
	CHECK_INT_EQ(m.dropout, 0);
	CHECK_INT_EQ(m.precision, MODEL_BF16);

	CHECK(model_load(&m, cap_path(FX "hf-mistral.json")) == 0);
	CHECK_STR_EQ(m.name, "hf-mistral");
	CHECK_INT_EQ(m.family, MODEL_LLAMA);
	CHECK_INT_EQ(m.seq_len, 32768);
	CHECK_INT_EQ(m.vocab, 32000);

	CHECK(model_load(&m, cap_path(FX "hf-qwen2.json")) == 0);
	CHECK_STR_EQ(m.name, "Qwen/Qwen2-0.5B");
	CHECK_INT_EQ(m.hidden, 896);
	CHECK_INT_EQ(m.heads, 14);
	CHECK_INT_EQ(m.kv_heads, 2);
	CHECK_INT_EQ(m.tied_embeddings, 1);
	CHECK_INT_EQ(m.bias, 0);

	CHECK_ERR(load_json(&m,
			    "{\"model_type\": \"gpt2\",\n"
			    " \"n_embd\": 64, \"n_head\": 4,\n"
			    " \"n_positions\": 16, \"vocab_size\": 9}"),
		  "pd2bw: c.json:1:1: missing key 'n_layer'");
	CHECK_ERR(load_json(&m,
			    "{\"model_type\": \"gpt2\", \"n_layer\": 2,"
			    "\n \"n_embd\": \"64\", \"n_head\": 4}"),
		  "pd2bw: c.json:2:12: expected a number, found '64'");
	CHECK_ERR(load_json(&m,
			    "{\"model_type\": \"gpt2\", \"n_layer\": 2,"
			    "\n \"n_embd\": 64, \"n_head\": 5,\n"
			    " \"n_ctx\": 8, \"vocab_size\": 9}"),
		  "pd2bw: c.json:2:26: heads (5) do not divide hidden (64)");
	CHECK_ERR(load_json(&m,
			    "{\"model_type\": \"t5\"}"),
		  "pd2bw: c.json:1:16: unsupported model_type 't5' (expected "
		  "gpt2, bert, llama, mistral, mixtral, qwen2, qwen2_moe, "
		  "qwen3, qwen3_moe, deepseek_v2, deepseek_v3, gemma, gemma2, "
		  "gemma3, gemma3_text, phi3, gpt_oss or nemotron_h)");
	CHECK_ERR(load_json(&m,
			    "{\"architectures\": [\"T5Model\"]}"),
		  "pd2bw: c.json:1:19: unsupported architectures (expected "
		  "GPT2*, Bert*, Llama*, Mistral*, Mixtral*, Qwen2*, Qwen3*, "
		  "DeepseekV2*, DeepseekV3*, Gemma*, Phi3*, GptOss* or "
		  "NemotronH*)");
	CHECK_ERR(load_json(&m,
			    "{\"model_type\": \"llama\",\n"
			    " \"num_hidden_layers\": 2, "
			    "\"hidden_size\": 64,\n"
			    " \"num_attention_heads\": 4, "
			    "\"num_key_value_heads\": 3,\n"
			    " \"intermediate_size\": 8, "
			    "\"max_position_embeddings\": 8,\n"
			    " \"vocab_size\": 9}"),
		  "pd2bw: c.json:3:51: kv_heads (3) do not divide heads (4)");
	CHECK_ERR(load_json(&m,
			    "{\"model_type\": \"llama\",\n"
			    " \"num_hidden_layers\": 2, "
			    "\"hidden_size\": 64,\n"
			    " \"num_attention_heads\": 4, "
			    "\"hidden_act\": \"gelu\",\n"
			    " \"intermediate_size\": 8, "
			    "\"max_position_embeddings\": 8,\n"
			    " \"vocab_size\": 9}"),
		  "pd2bw: c.json:3:42: unsupported hidden_act 'gelu' "
		  "(expected silu)");
	CHECK_ERR(load_json(&m,
			    "{\"model_type\": \"bert\",\n"
			    " \"num_hidden_layers\": 2, "
			    "\"hidden_size\": 64,\n"
			    " \"num_attention_heads\": 4, "
			    "\"tie_word_embeddings\": 1,\n"
			    " \"intermediate_size\": 8, "
			    "\"max_position_embeddings\": 8,\n"
			    " \"vocab_size\": 9}"),
		  "pd2bw: c.json:3:51: expected true or false for "
		  "'tie_word_embeddings'");
	model_release(&m);
}

/* Write m, read it back, write again: identical bytes, equal fields. */
static void
round_trip(const struct model *m, const char *dir)
{
	char p1[4400], p2[4400], *a, *b;
	struct model r;

	snprintf(p1, sizeof(p1), "%s/a.yaml", dir);
	snprintf(p2, sizeof(p2), "%s/b.yaml", dir);
	model_init(&r);
	CHECK(model_write(m, p1) == 0);
	CHECK(model_load(&r, p1) == 0);
	CHECK(model_write(&r, p2) == 0);
	a = cap_slurp(p1);
	b = cap_slurp(p2);
	CHECK_MSG(a && b && !strcmp(a, b), m->name);
	CHECK_STR_EQ(r.name, m->name);
	CHECK(r.family == m->family && r.layers == m->layers &&
	      r.hidden == m->hidden && r.heads == m->heads &&
	      r.kv_heads == m->kv_heads && r.ffn_hidden == m->ffn_hidden &&
	      r.seq_len == m->seq_len && r.vocab == m->vocab &&
	      r.activation == m->activation && r.norm == m->norm &&
	      r.positions == m->positions && r.causal == m->causal &&
	      r.tied_embeddings == m->tied_embeddings &&
	      r.bias == m->bias && r.dropout == m->dropout &&
	      r.flash_attention == m->flash_attention &&
	      r.precision == m->precision);
	/* a hybrid model's pattern and mixer */
	CHECK(!strcmp(r.pattern, m->pattern) &&
	      r.mamba.heads == m->mamba.heads &&
	      r.mamba.head_dim == m->mamba.head_dim &&
	      r.mamba.state == m->mamba.state &&
	      r.mamba.groups == m->mamba.groups &&
	      r.mamba.conv == m->mamba.conv &&
	      r.mamba.chunk == m->mamba.chunk);
	free(a);
	free(b);
	model_release(&r);
}

static void
test_write(void)
{
	static const char want[] =
		"format: pd2bw-model/1\nname: tiny\nfamily: gpt\nlayers: 2\n"
		"hidden: 64\nheads: 4\nkv_heads: 4\nffn_hidden: 256\n"
		"seq_len: 16\nvocab: 100\nactivation: gelu\nnorm: layernorm\n"
		"positions: learned\ncausal: true\ntied_embeddings: true\n"
		"bias: true\ndropout: true\nflash_attention: false\n"
		"precision: fp16\n";
	char *dir = cap_mkdtemp(), p[4400], *got;
	struct model m;

	model_init(&m);
	CHECK(model_load(&m, cap_path(FX "model-min.yaml")) == 0);
	snprintf(p, sizeof(p), "%s/w.yaml", dir);
	CHECK(model_write(&m, p) == 0);
	got = cap_slurp(p);
	CHECK_STR_EQ(got, want);
	free(got);
	round_trip(&m, dir);
	CHECK(model_load(&m, cap_path(FX "hf-qwen2.json")) == 0);
	round_trip(&m, dir);
	/* A name that looks like a number stays a string. */
	free(m.name);
	m.name = xstrdup("1.5");
	round_trip(&m, dir);

	CHECK_INT_EQ(cap_count(dir), 3);
	snprintf(p, sizeof(p), "%s/missing/w.yaml", dir);
	{
		char want_err[4600];

		snprintf(want_err, sizeof(want_err),
			 "pd2bw: cannot create '%s': No such file or "
			 "directory", p);
		CHECK_ERR(model_write(&m, p), want_err);
	}
	CHECK_INT_EQ(cap_count(dir), 3);
	/* An invalid model is refused before anything is written. */
	m.heads = 5;
	snprintf(p, sizeof(p), "%s/bad.yaml", dir);
	{
		char want_err[4600];

		snprintf(want_err, sizeof(want_err),
			 "pd2bw: %s: heads (5) do not divide hidden (896)", p);
		CHECK_ERR(model_write(&m, p), want_err);
	}
	CHECK_INT_EQ(cap_count(dir), 3);
	model_release(&m);
	cap_rmdir(dir);
}

/* Format 2: its keys, their checks, format 1 refusing them. */
static void
test_v2(void)
{
	static const char v2[] =
		"format: pd2bw-model/2\nname: t\nfamily: llama\nlayers: 4\n"
		"hidden: 64\nheads: 4\nseq_len: 16\nvocab: 100\n";
	char buf[2048], *dir = cap_mkdtemp();
	struct model m;

	model_init(&m);
	snprintf(buf, sizeof(buf), "%shead_dim: 32\nqk_norm: true\n"
		 "post_norms: true\nactivation: geglu\nwindow: 8\n"
		 "global_every: 2\nattn_softcap: 50\nlogit_softcap: 30\n"
		 "moe: {experts: 8, top_k: 2, expert_ffn: 32, "
		 "shared_experts: 1, first_dense: 1, every: 1, "
		 "capacity_factor: 1.25}\nmtp_layers: 1\n", v2);
	CHECK(load_str(&m, buf) == 0);
	CHECK_INT_EQ(m.head_dim, 32);
	CHECK_INT_EQ(m.activation, MODEL_GEGLU);
	CHECK_INT_EQ(m.moe.shared_ffn, 32);
	CHECK_INT_EQ(model_layer_is_moe(&m, 0), 0);
	CHECK_INT_EQ(model_layer_is_moe(&m, 1), 1);
	CHECK_INT_EQ(model_layer_span(&m, 0), 8);
	CHECK_INT_EQ(model_layer_span(&m, 1), 16);
	CHECK(model_is_v2(&m));
	round_trip(&m, dir);
	/* group-limited routing: written only when set, read back */
	snprintf(buf, sizeof(buf), "%smoe: {experts: 8, top_k: 2, "
		 "expert_ffn: 32, groups: 4, group_top_k: 2}\n", v2);
	CHECK(load_str(&m, buf) == 0);
	CHECK_INT_EQ(m.moe.groups, 4);
	CHECK_INT_EQ(m.moe.group_top_k, 2);
	round_trip(&m, dir);
	snprintf(buf, sizeof(buf), "%smoe: {experts: 8, top_k: 2, "
		 "expert_ffn: 32, groups: 3, group_top_k: 2}\n", v2);
	CHECK_ERR(load_str(&m, buf),
		  "pd2bw: m.yaml:9:53: groups 3, group_top_k 2: the groups "
		  "must divide the 8 experts and the group_top_k best of them "
		  "hold top_k 2");
	/* top_k 6 cannot come from the best 2 groups of 2 experts */
	snprintf(buf, sizeof(buf), "%smoe: {experts: 8, top_k: 6, "
		 "expert_ffn: 32, groups: 4, group_top_k: 2}\n", v2);
	CHECK_ERR(load_str(&m, buf),
		  "pd2bw: m.yaml:9:53: groups 4, group_top_k 2: the groups "
		  "must divide the 8 experts and the group_top_k best of them "
		  "hold top_k 6");
	snprintf(buf, sizeof(buf), "%smoe: {experts: 8, top_k: 2, "
		 "expert_ffn: 32, group_top_k: 2}\n", v2);
	CHECK_ERR(load_str(&m, buf),
		  "pd2bw: m.yaml:9:6: group_top_k needs groups");
	snprintf(buf, sizeof(buf), "%sattention: mla\nmla: {q_rank: 0, "
		 "kv_rank: 16, nope_dim: 16, rope_dim: 8, v_dim: 16}\n", v2);
	CHECK(load_str(&m, buf) == 0);
	CHECK_INT_EQ(m.attention, MODEL_MLA);
	CHECK_INT_EQ(model_head_dim(&m), 16);
	round_trip(&m, dir);

	CHECK_ERR(load_with(&m, "layers: 2\nhidden: 64\nheads: 4\n"
			    "seq_len: 16\nvocab: 100\nmoe: {}\n"),
		  "pd2bw: m.yaml:1:1: key 'moe' needs format pd2bw-model/2");
	CHECK_ERR(load_with(&m, "layers: 2\nhidden: 64\nheads: 4\n"
			    "seq_len: 16\nvocab: 100\nactivation: geglu\n"),
		  "pd2bw: m.yaml:8:13: activation geglu needs format "
		  "pd2bw-model/2");
	CHECK_ERR(load_with(&m, "layers: 2\nhidden: 64\nheads: 4\n"
			    "seq_len: 16\nvocab: 100\n"
			    "activation: squared-relu\n"),
		  "pd2bw: m.yaml:8:13: activation squared-relu needs format "
		  "pd2bw-model/2");
	/* squared ReLU: two matrices of 4h, like GeLU */
	snprintf(buf, sizeof(buf), "%sactivation: squared-relu\n", v2);
	CHECK(load_str(&m, buf) == 0);
	CHECK_INT_EQ(m.activation, MODEL_SQRELU);
	CHECK_INT_EQ(m.ffn_hidden, 256);
	CHECK(model_is_v2(&m));
	round_trip(&m, dir);
	snprintf(buf, sizeof(buf), "%smoe: {experts: 8, top_k: 9, "
		 "expert_ffn: 32}\n", v2);
	CHECK_ERR(load_str(&m, buf),
		  "pd2bw: m.yaml:9:26: top_k 9 out of range [1, experts]");
	snprintf(buf, sizeof(buf), "%smoe: {experts: 8, top_k: 2, "
		 "expert_ffn: 32, first_dense: 4}\n", v2);
	CHECK_ERR(load_str(&m, buf),
		  "pd2bw: m.yaml:9:58: first_dense 4 leaves no MoE layer of 4");
	/* packed documents: read, written back, held to the sequence and
	 * to format 2 */
	snprintf(buf, sizeof(buf), "%sdoc_len: 4\n", v2);
	CHECK(load_str(&m, buf) == 0);
	CHECK_INT_EQ(m.doc_len, 4);
	CHECK(model_is_v2(&m));
	round_trip(&m, dir);
	snprintf(buf, sizeof(buf), "%sdoc_len: 17\n", v2);
	CHECK_ERR(load_str(&m, buf),
		  "pd2bw: m.yaml:9:10: doc_len 17 out of range [1, seq_len "
		  "16]");
	snprintf(buf, sizeof(buf), "%sdoc_len: 0\n", v2);
	CHECK_ERR(load_str(&m, buf),
		  "pd2bw: m.yaml:9:10: value 0 out of range [1, 100000000]");
	CHECK_ERR(load_with(&m, "layers: 2\nhidden: 64\nheads: 4\n"
			    "seq_len: 16\nvocab: 100\ndoc_len: 8\n"),
		  "pd2bw: m.yaml:1:1: key 'doc_len' needs format "
		  "pd2bw-model/2");
	snprintf(buf, sizeof(buf), "%sglobal_every: 2\n", v2);
	CHECK_ERR(load_str(&m, buf),
		  "pd2bw: m.yaml:9:15: global_every 2 needs a window and at "
		  "most layers");
	snprintf(buf, sizeof(buf), "%sattention: mla\n", v2);
	CHECK_ERR(load_str(&m, buf),
		  "pd2bw: m.yaml:9:12: attention mla needs the mla map");
	/* GPT-OSS's clamp of a gated MLP's halves: written back, and
	 * refused for an ungated activation, at its key */
	snprintf(buf, sizeof(buf), "%sact_clamp: 7.5\n", v2);
	CHECK(load_str(&m, buf) == 0);
	CHECK_NEAR(m.act_clamp, 7.5, 0);
	CHECK(model_is_v2(&m));
	round_trip(&m, dir);
	snprintf(buf, sizeof(buf), "%sactivation: gelu\nact_clamp: 7\n", v2);
	CHECK_ERR(load_str(&m, buf),
		  "pd2bw: m.yaml:10:12: act_clamp needs a gated activation "
		  "(swiglu or geglu)");
	snprintf(buf, sizeof(buf), "%sact_clamp: -1\n", v2);
	CHECK_ERR(load_str(&m, buf),
		  "pd2bw: m.yaml:9:12: value -1 out of range [0, 1000000]");
	model_release(&m);
	cap_rmdir(dir);
}

/* The new Hugging Face readers: what they take, what they refuse. */
static void
test_hf_v2(void)
{
	struct model m;
	static const char q3[] =
		"{\"model_type\": \"qwen3_moe\", \"num_hidden_layers\": 2,\n"
		" \"hidden_size\": 64, \"num_attention_heads\": 4,\n"
		" \"intermediate_size\": 8, \"max_position_embeddings\": 8,\n"
		" \"vocab_size\": 9, \"num_experts\": 4, "
		"\"num_experts_per_tok\": 2,\n"
		" \"moe_intermediate_size\": 8";
	static const struct {
		const char *json;
		int is;
	} yarn[] = {
		{"\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 4.0}", 1},
		{"\"rope_scaling\": {\"type\": \"yarn\"}", 1},
		{"\"rope_parameters\": {\"rope_type\": \"yarn\", "
		 "\"rope_theta\": 1e6}", 1},
		{"\"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": 4.0}",
		 0},
	};
	char buf[1024];
	size_t i;

	model_init(&m);
	/* A model directory holding config.json. */
	CHECK(model_load(&m, cap_path("tests/data/hf/mixtral-8x7b")) == 0);
	CHECK_STR_EQ(m.name, "mixtral-8x7b");
	/* Qwen2-MoE without model_type is not a dense Qwen2. */
	CHECK(model_load(&m, cap_path("tests/data/hf/qwen2-moe-a2.7b.json")) ==
	      0);
	CHECK_INT_EQ(m.moe.experts, 60);
	CHECK_INT_EQ(m.moe.shared_experts, 1);
	CHECK_INT_EQ(m.moe.shared_ffn, 5632);
	CHECK_INT_EQ(m.qkv_bias, 1);
	CHECK(load_json(&m, "{\"architectures\": [\"Qwen2ForCausalLM\"],\n"
			    " \"num_hidden_layers\": 2, \"hidden_size\": 64,\n"
			    " \"num_attention_heads\": 4, "
			    "\"intermediate_size\": 8,\n"
			    " \"max_position_embeddings\": 8, "
			    "\"vocab_size\": 9,\n \"num_experts\": 4, "
			    "\"num_experts_per_tok\": 2, "
			    "\"moe_intermediate_size\": 8}") == 0);
	CHECK_INT_EQ(m.moe.experts, 4);
	/* The newer dtype key. */
	CHECK(model_load(&m, cap_path("tests/data/hf/qwen3-8b.json")) == 0);
	CHECK_INT_EQ(m.precision, MODEL_BF16);
	CHECK_INT_EQ(m.qk_norm, 1);
	CHECK_INT_EQ(m.head_dim, 0);
	/* Gemma 3's sparse text_config over Gemma3TextConfig's defaults. */
	CHECK(model_load(&m, cap_path("tests/data/hf/gemma3-4b.json")) == 0);
	CHECK(m.layers == 34 && m.hidden == 2560 && m.heads == 8 &&
	      m.kv_heads == 4 && m.head_dim == 256 && m.vocab == 262208 &&
	      m.window == 1024 && m.global_every == 6 && m.qk_norm &&
	      m.post_norms && m.tied_embeddings &&
	      m.activation == MODEL_GEGLU);
	CHECK(model_load(&m, cap_path("tests/data/hf/gemma2-9b.json")) == 0);
	CHECK(m.window == 4096 && m.global_every == 2 &&
	      m.attn_softcap == 50 && m.logit_softcap == 30 &&
	      m.precision == MODEL_FP32);
	CHECK(model_load(&m, cap_path("tests/data/hf/phi3-mini.json")) == 0);
	CHECK(m.window == 2047 && m.global_every == 0);
	CHECK(model_load(&m, cap_path("tests/data/hf/deepseek-v2-lite.json")) ==
	      0);
	CHECK(m.attention == MODEL_MLA && m.mla.q_rank == 0 &&
	      m.moe.shared_experts == 2 && m.moe.first_dense == 1 &&
	      !m.moe.router_bias && m.mtp_layers == 0);
	/* V2-Lite routes greedily: no group limit */
	CHECK(m.moe.groups == 0 && m.moe.group_top_k == 0);
	/* V3: top-8 within the best 4 of 8 groups (n_group, topk_group) */
	CHECK(model_load(&m, cap_path("tests/data/hf/deepseek-v3.json")) == 0);
	CHECK(m.moe.groups == 8 && m.moe.group_top_k == 4 &&
	      m.moe.router_bias);

	/* YaRN: rope_scaling's rope_type (or type), transformers 5's
	 * rope_parameters, and any gpt_oss config, as Megatron-Bridge reads
	 * them; other scalings are not YaRN */
	CHECK(model_load(&m, cap_path("tests/data/hf/gpt-oss-120b.json")) == 0);
	CHECK_INT_EQ(m.rope_yarn, 1);
	CHECK_NEAR(m.act_clamp, 7, 0); /* its swiglu_limit */
	CHECK(model_load(&m, cap_path("tests/data/hf/qwen3-8b.json")) == 0);
	CHECK_INT_EQ(m.rope_yarn, 0);
	for (i = 0; i < sizeof(yarn) / sizeof(yarn[0]); i++) {
		snprintf(buf, sizeof(buf), "%s,\n %s}", q3, yarn[i].json);
		CHECK_MSG(load_json(&m, buf) == 0 && m.rope_yarn == yarn[i].is,
			  yarn[i].json);
	}

	/* What cannot be priced is refused, naming the key. */
	snprintf(buf, sizeof(buf), "%s,\n \"decoder_sparse_step\": 2}", q3);
	CHECK_ERR(load_json(&m, buf),
		  "pd2bw: c.json:6:25: decoder_sparse_step other than 1 (not "
		  "supported)");
	snprintf(buf, sizeof(buf), "%s,\n \"mlp_only_layers\": [0]}", q3);
	CHECK_ERR(load_json(&m, buf),
		  "pd2bw: c.json:6:21: mlp_only_layers not empty (not "
		  "supported)");
	snprintf(buf, sizeof(buf), "%s,\n \"use_sliding_window\": true}",
		 q3);
	CHECK_ERR(load_json(&m, buf),
		  "pd2bw: c.json:6:24: use_sliding_window true (not "
		  "supported)");
	snprintf(buf, sizeof(buf), "%s,\n \"sliding_window\": 4,\n"
		 " \"layer_types\": [\"full_attention\", "
		 "\"sliding_attention\"]}", q3);
	CHECK_ERR(load_json(&m, buf),
		  "pd2bw: c.json:7:17: layer_types: full attention every 1-th "
		  "layer and sliding otherwise is the only mix supported");
	snprintf(buf, sizeof(buf), "%s,\n \"layer_types\": [\"x\", "
		 "\"y\"]}", q3);
	CHECK_ERR(load_json(&m, buf),
		  "pd2bw: c.json:6:18: unsupported layer type 'x'");
	CHECK_ERR(load_json(&m, "{\"model_type\": \"gemma\",\n"
			    " \"num_hidden_layers\": 2, \"hidden_size\": 64,\n"
			    " \"num_attention_heads\": 4, "
			    "\"intermediate_size\": 8,\n"
			    " \"max_position_embeddings\": 8, "
			    "\"vocab_size\": 9,\n \"num_experts\": 4}"),
		  "pd2bw: c.json:5:17: 'num_experts' in a gemma config (a "
		  "dense model_type)");
	CHECK_ERR(load_json(&m, "{\"model_type\": \"mixtral\",\n"
			    " \"num_hidden_layers\": 2, \"hidden_size\": 64,\n"
			    " \"num_attention_heads\": 4, "
			    "\"intermediate_size\": 8,\n"
			    " \"max_position_embeddings\": 8, "
			    "\"vocab_size\": 9}"),
		  "pd2bw: c.json:1:1: missing key 'num_local_experts'");
	CHECK_ERR(load_json(&m, "{\"model_type\": \"llama\",\n"
			    " \"num_hidden_layers\": 2, \"hidden_size\": 64,\n"
			    " \"num_attention_heads\": 4, "
			    "\"intermediate_size\": 8,\n"
			    " \"max_position_embeddings\": 8, "
			    "\"vocab_size\": 9, \"dtype\": \"int8\"}"),
		  "pd2bw: c.json:4:58: unsupported dtype 'int8'");
	model_release(&m);
}

/* Hybrid models in pd2bw-model/2: pattern, mamba map, positions none. */
static void
test_hybrid(void)
{
	static const char v2[] =
		"format: pd2bw-model/2\nname: h\nfamily: llama\nlayers: 4\n"
		"hidden: 64\nheads: 4\nseq_len: 16\nvocab: 100\n"
		"activation: squared-relu\npositions: none\n";
	static const char mamba[] =
		"mamba: {heads: 8, head_dim: 16, state: 16, groups: 2}\n";
	static const char moe[] =
		"moe: {experts: 4, top_k: 2, expert_ffn: 32, "
		"shared_experts: 1, shared_ffn: 64, router_bias: true}\n";
	char buf[2048], *dir = cap_mkdtemp(), p[4400], *got;
	struct model m;

	model_init(&m);
	snprintf(buf, sizeof(buf), "%spattern: M*-E\n%s%s", v2, mamba, moe);
	CHECK(load_str(&m, buf) == 0);
	CHECK_STR_EQ(m.pattern, "M*-E");
	CHECK(model_is_hybrid(&m) && model_is_v2(&m));
	CHECK_INT_EQ(m.positions, MODEL_NOPOS);
	/* conv and chunk: Megatron-Core's 4 and 128 unless given */
	CHECK(m.mamba.heads == 8 && m.mamba.head_dim == 16 &&
	      m.mamba.state == 16 && m.mamba.groups == 2 &&
	      m.mamba.conv == 4 && m.mamba.chunk == 128);
	CHECK(model_layer_kind(&m, 0) == MODEL_LAYER_MAMBA &&
	      model_layer_kind(&m, 1) == MODEL_LAYER_ATTN &&
	      model_layer_kind(&m, 2) == MODEL_LAYER_MLP &&
	      model_layer_kind(&m, 3) == MODEL_LAYER_MOE);
	CHECK(!model_layer_is_moe(&m, 2) && model_layer_is_moe(&m, 3));
	/* written with the pattern, the mixer and positions none, and
	 * read back the same (round_trip() compares them) */
	snprintf(p, sizeof(p), "%s/h.yaml", dir);
	CHECK(model_write(&m, p) == 0);
	got = cap_slurp(p);
	CHECK(got && strstr(got, "\npositions: none\n") &&
	      strstr(got, "\npattern: M*-E\nmamba: {heads: 8, head_dim: 16, "
			  "state: 16, groups: 2, conv: 4, chunk: 128}\n") &&
	      !strstr(got, "rope_base"));
	free(got);
	round_trip(&m, dir);
	snprintf(buf, sizeof(buf), "%spattern: MM--\nmamba: {heads: 4, "
		 "head_dim: 32, state: 64, groups: 1, conv: 2, chunk: 64}\n",
		 v2);
	CHECK(load_str(&m, buf) == 0);
	CHECK(m.mamba.conv == 2 && m.mamba.chunk == 64 && !m.moe.experts);
	round_trip(&m, dir);

	/* what is refused, at the key that says it */
	snprintf(buf, sizeof(buf), "%spattern: M*-\n%s", v2, mamba);
	CHECK_ERR(load_str(&m, buf),
		  "pd2bw: m.yaml:11:10: pattern has 3 layers, layers says 4");
	snprintf(buf, sizeof(buf), "%spattern: M*-X\n%s", v2, mamba);
	CHECK_ERR(load_str(&m, buf),
		  "pd2bw: m.yaml:11:10: pattern: layer 3 is 'X' (expected M "
		  "for Mamba, * attention, - MLP, E MoE)");
	snprintf(buf, sizeof(buf), "%spattern: M*-E\n%s", v2, mamba);
	CHECK_ERR(load_str(&m, buf),
		  "pd2bw: m.yaml:11:10: pattern has MoE layers (E) but no moe "
		  "map");
	snprintf(buf, sizeof(buf), "%spattern: M*--\n%s%s", v2, mamba, moe);
	CHECK_ERR(load_str(&m, buf),
		  "pd2bw: m.yaml:13:16: moe map but no MoE layer (E) in the "
		  "pattern");
	snprintf(buf, sizeof(buf), "%spattern: M*--\n", v2);
	CHECK_ERR(load_str(&m, buf),
		  "pd2bw: m.yaml:11:10: pattern has Mamba layers (M) but no "
		  "mamba map");
	snprintf(buf, sizeof(buf), "%s%s", v2, mamba);
	CHECK_ERR(load_str(&m, buf),
		  "pd2bw: m.yaml:11:16: mamba map without a pattern");
	snprintf(buf, sizeof(buf), "%spattern: M*--\nmamba: {heads: 6, "
		 "head_dim: 16, state: 16, groups: 4}\n", v2);
	CHECK_ERR(load_str(&m, buf),
		  "pd2bw: m.yaml:12:16: mamba: heads 6, groups 4: the groups "
		  "must divide the heads, and every size be at least 1");
	snprintf(buf, sizeof(buf), "%spattern: M*--\nmamba: {heads: 8, "
		 "head_dim: 16, groups: 2}\n", v2);
	CHECK_ERR(load_str(&m, buf),
		  "pd2bw: m.yaml:12:8: missing key 'state'");
	snprintf(buf, sizeof(buf), "%spattern: ''\n", v2);
	CHECK_ERR(load_str(&m, buf),
		  "pd2bw: m.yaml:11:10: pattern of 0 layers (expected 1 to "
		  "1000)");
	/* MoE layers come from the pattern alone */
	snprintf(buf, sizeof(buf), "%spattern: M*-E\n%smoe: {experts: 4, "
		 "top_k: 2, expert_ffn: 32, first_dense: 1}\n", v2, mamba);
	CHECK_ERR(load_str(&m, buf),
		  "pd2bw: m.yaml:13:58: a hybrid model places its MoE layers "
		  "by its pattern: first_dense 0, every 1");
	snprintf(buf, sizeof(buf), "%spattern: M*-E\n%smoe: {experts: 4, "
		 "top_k: 2, expert_ffn: 32, every: 2}\n", v2, mamba);
	CHECK_ERR(load_str(&m, buf),
		  "pd2bw: m.yaml:13:6: a hybrid model places its MoE layers by "
		  "its pattern: first_dense 0, every 1");
	/* format 1 knows neither the pattern nor positions none */
	CHECK_ERR(load_with(&m, "layers: 2\nhidden: 64\nheads: 4\n"
			    "seq_len: 16\nvocab: 100\npositions: none\n"),
		  "pd2bw: m.yaml:8:12: positions none needs format "
		  "pd2bw-model/2");
	CHECK_ERR(load_with(&m, "layers: 2\nhidden: 64\nheads: 4\n"
			    "seq_len: 16\nvocab: 100\npattern: '**'\n"),
		  "pd2bw: m.yaml:1:1: key 'pattern' needs format "
		  "pd2bw-model/2");
	model_release(&m);
	cap_rmdir(dir);
}

/*
 * A small nemotron_h config.json, one key a line after "{"; nh_json()
 * leaves out the keys named in drop (separated by spaces) and appends
 * extra on the last line.
 */
static const char *const nh_keys[] = {
	"\"model_type\": \"nemotron_h\"",
	"\"num_hidden_layers\": 4",
	"\"hidden_size\": 64",
	"\"num_attention_heads\": 4",
	"\"intermediate_size\": 128",
	"\"max_position_embeddings\": 16",
	"\"vocab_size\": 100",
	"\"hybrid_override_pattern\": \"M*-E\"",
	"\"mamba_num_heads\": 8",
	"\"mamba_head_dim\": 16",
	"\"ssm_state_size\": 16",
	"\"n_groups\": 2",
	"\"conv_kernel\": 4",
	"\"chunk_size\": 8",
	"\"n_routed_experts\": 4",
	"\"num_experts_per_tok\": 2",
	"\"moe_intermediate_size\": 32",
	"\"moe_shared_expert_intermediate_size\": 64",
	NULL,
};

/* Whether the space-separated list drop names key (kn bytes). */
static int
nh_dropped(const char *drop, const char *key, size_t kn)
{
	const char *w = drop;

	while (w && *w) {
		size_t wn = strcspn(w, " ");

		if (wn == kn && !strncmp(w, key, kn))
			return 1;
		w += wn;
		w += strspn(w, " ");
	}
	return 0;
}

static int
nh_json(struct model *m, const char *drop, const char *extra)
{
	char buf[2048];
	size_t i, n = 0;

	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "{");
	for (i = 0; nh_keys[i]; i++) {
		const char *k = nh_keys[i] + 1;

		if (nh_dropped(drop, k, strcspn(k, "\"")))
			continue;
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s",
				      n > 1 ? ",\n " : "", nh_keys[i]);
	}
	if (extra)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ",\n %s",
				      extra);
	snprintf(buf + n, sizeof(buf) - n, "}");
	return load_json(m, buf);
}

/* A Hugging Face hybrid model and its zoo entry alike in every shape
 * field, the Mamba and MoE maps whole (head sizes as priced: the reader
 * keeps a coupled hidden / heads as 0). */
static int
same_hybrid(const struct model *m, const struct model *y)
{
	return m->family == y->family && m->layers == y->layers &&
	       m->hidden == y->hidden && m->heads == y->heads &&
	       m->kv_heads == y->kv_heads &&
	       model_head_dim(m) == model_head_dim(y) &&
	       m->ffn_hidden == y->ffn_hidden && m->vocab == y->vocab &&
	       m->activation == y->activation && m->norm == y->norm &&
	       m->positions == y->positions && m->causal == y->causal &&
	       m->tied_embeddings == y->tied_embeddings &&
	       m->bias == y->bias && m->dropout == y->dropout &&
	       m->flash_attention == y->flash_attention &&
	       m->precision == y->precision && m->rope_yarn == y->rope_yarn &&
	       !memcmp(&m->mamba, &y->mamba, sizeof(m->mamba)) &&
	       !memcmp(&m->moe, &y->moe, sizeof(m->moe));
}

/* Nemotron-H's config.json: the fixtures and what the reader refuses. */
static void
test_hf_hybrid(void)
{
	struct model m, y;
	char *dir = cap_mkdtemp();

	model_init(&m);
	model_init(&y);
	/* Nemotron 3 Nano: the zoo's model but for its name and sequence
	 * (max_position_embeddings, as every reader takes it) */
	CHECK(model_load(&m, cap_path("models/hf/nemotron-3-nano")) == 0);
	CHECK(model_load(&y, cap_path("models/nemotron-3-nano.yaml")) == 0);
	CHECK_STR_EQ(m.name, "nemotron-3-nano");
	CHECK_INT_EQ(m.seq_len, 262144);
	CHECK_STR_EQ(m.pattern, y.pattern);
	CHECK(same_hybrid(&m, &y));
	CHECK(m.positions == MODEL_NOPOS && m.activation == MODEL_SQRELU &&
	      m.head_dim == 128 && m.moe.router_bias &&
	      m.moe.shared_experts == 1 && m.moe.shared_ffn == 3712 &&
	      !m.moe.groups);
	round_trip(&m, dir);
	/* Nemotron 3 Super: LatentMoE and one multi-token-prediction module
	 * of its own weights, as the checkpoint holds it; the zoo's trains
	 * two depths of one shared module, which count once.  Its head_dim
	 * is the coupled 4096 / 32, which the reader keeps as 0 */
	CHECK(model_load(&m, cap_path("models/hf/nemotron-3-super")) == 0);
	CHECK(model_load(&y, cap_path("models/nemotron-3-super.yaml")) == 0);
	CHECK_STR_EQ(m.name, "nemotron-3-super");
	CHECK_INT_EQ(m.seq_len, 262144);
	CHECK_STR_EQ(m.pattern, y.pattern);
	CHECK_STR_EQ(m.mtp_pattern, "*E");
	CHECK_STR_EQ(m.mtp_pattern, y.mtp_pattern);
	CHECK(same_hybrid(&m, &y));
	CHECK_INT_EQ(m.moe.latent, 1024);
	CHECK_NEAR(m.moe.scale, 5.0, 0);
	CHECK_INT_EQ(m.mtp_layers, 1);
	CHECK_INT_EQ(m.mtp_shared, 0);
	CHECK(y.mtp_layers == 2 && y.mtp_shared);
	CHECK_INT_EQ(model_params_no_mtp(&m), 120668707840LL);
	CHECK_INT_EQ(model_mtp_module_params(&m), 2942325248LL);
	CHECK_INT_EQ(model_params(&m), 123611033088LL);
	CHECK_INT_EQ(model_active_params(&m), 12770237440LL);
	CHECK_INT_EQ(model_params(&y), 123611033088LL);
	CHECK_INT_EQ(model_params_no_mtp(&y), 120668707840LL);
	round_trip(&m, dir);
	/* Nemotron-H 8B: dense, head_dim the coupled 4096 / 32 */
	CHECK(model_load(&m, cap_path("models/hf/nemotron-h-8b")) == 0);
	CHECK(m.layers == 52 && m.hidden == 4096 && m.kv_heads == 8 &&
	      m.head_dim == 0 && m.ffn_hidden == 21504 && !m.moe.experts &&
	      m.mamba.heads == 128 && m.mamba.groups == 8 &&
	      m.seq_len == 8192 && !m.tied_embeddings);
	round_trip(&m, dir);

	/* the small config, and its other spellings */
	CHECK(nh_json(&m, NULL, NULL) == 0);
	CHECK_STR_EQ(m.pattern, "M*-E");
	CHECK(m.mamba.heads == 8 && m.mamba.chunk == 8 &&
	      m.moe.experts == 4 && m.moe.shared_experts == 1 &&
	      m.moe.shared_ffn == 64 && m.moe.router_bias && !m.bias);
	CHECK(nh_json(&m, "hybrid_override_pattern",
		      "\"hybrid_layer_pattern\": \"ME*-\"") == 0);
	CHECK_STR_EQ(m.pattern, "ME*-");
	/* transformers 5: the list, num_hidden_layers from it */
	CHECK(nh_json(&m, "num_hidden_layers hybrid_override_pattern",
		      "\"hybrid_override_pattern\": null, "
		      "\"layers_block_type\": [\"mamba\", \"moe\", "
		      "\"attention\", \"mlp\", \"mamba\"]") == 0);
	CHECK_STR_EQ(m.pattern, "ME*-M");
	CHECK_INT_EQ(m.layers, 5);
	CHECK(nh_json(&m, "conv_kernel", "\"mamba_d_conv\": 3, "
		      "\"attention_head_dim\": 32, \"use_bias\": true") == 0);
	CHECK(m.mamba.conv == 3 && m.head_dim == 32 && m.bias);
	/* n_shared_experts counts the shared experts; 0 has none */
	CHECK(nh_json(&m, NULL, "\"n_shared_experts\": 0") == 0);
	CHECK(m.moe.shared_experts == 0 && m.moe.shared_ffn == 0);
	/* NemotronHConfig's defaults for absent layer kinds are ignored */
	CHECK(nh_json(&m, "hybrid_override_pattern",
		      "\"hybrid_override_pattern\": \"M*--\"") == 0);
	CHECK(!m.moe.experts && !m.moe.router_bias);
	CHECK(nh_json(&m, "mamba_num_heads hybrid_override_pattern",
		      "\"hybrid_override_pattern\": null, "
		      "\"hybrid_layer_pattern\": \"E*-E\"") == 0);
	CHECK(m.mamba.heads == 0 && m.moe.experts == 4);
	CHECK(load_json(&m, "{\"architectures\": [\"NemotronHForCausalLM\"],"
			    "\n \"num_hidden_layers\": 2, \"hidden_size\": 64,"
			    "\n \"num_attention_heads\": 4, "
			    "\"intermediate_size\": 8,\n"
			    " \"max_position_embeddings\": 8, "
			    "\"vocab_size\": 9,\n"
			    " \"hybrid_override_pattern\": \"*-\"}") == 0);
	CHECK_STR_EQ(m.pattern, "*-");
	/* LatentMoE; null or absent is none */
	CHECK(nh_json(&m, NULL, "\"moe_latent_size\": 32") == 0);
	CHECK_INT_EQ(m.moe.latent, 32);
	CHECK(nh_json(&m, NULL, "\"moe_latent_size\": null") == 0);
	CHECK_INT_EQ(m.moe.latent, 0);
	/* multi-token prediction: separate modules of the pattern's layers;
	 * without modules the pattern is not kept */
	CHECK(nh_json(&m, NULL, "\"num_nextn_predict_layers\": 2, "
		      "\"mtp_hybrid_override_pattern\": \"*EM-\"") == 0);
	CHECK(m.mtp_layers == 2 && !m.mtp_shared && m.moe.experts == 4);
	CHECK_STR_EQ(m.mtp_pattern, "*EM-");
	CHECK(nh_json(&m, NULL, "\"num_nextn_predict_layers\": 0, "
		      "\"mtp_hybrid_override_pattern\": \"*E\"") == 0);
	CHECK(m.mtp_layers == 0 && !m.mtp_pattern[0]);
	CHECK(nh_json(&m, NULL, "\"num_nextn_predict_layers\": null, "
		      "\"mtp_hybrid_override_pattern\": null") == 0);
	CHECK(m.mtp_layers == 0 && !m.mtp_pattern[0]);

	/* refused with the key: the pattern, the mixer, the experts */
	CHECK_ERR(nh_json(&m, "hybrid_override_pattern",
			  "\"hybrid_override_pattern\": \"M*-X\""),
		  "pd2bw: c.json:18:29: hybrid_override_pattern: layer 3 is "
		  "'X' (expected M for Mamba, * attention, - MLP, E MoE)");
	CHECK_ERR(nh_json(&m, "hybrid_override_pattern",
			  "\"hybrid_override_pattern\": \"M*-EM\""),
		  "pd2bw: c.json:18:29: hybrid_override_pattern has 5 layers, "
		  "num_hidden_layers says 4");
	CHECK_ERR(nh_json(&m, "hybrid_override_pattern",
			  "\"hybrid_override_pattern\": \"\""),
		  "pd2bw: c.json:18:29: hybrid_override_pattern of 0 layers "
		  "(expected 1 to 1000)");
	CHECK_ERR(nh_json(&m, "hybrid_override_pattern",
			  "\"hybrid_override_pattern\": 4"),
		  "pd2bw: c.json:18:29: expected a string for "
		  "'hybrid_override_pattern'");
	CHECK_ERR(nh_json(&m, "hybrid_override_pattern", NULL),
		  "pd2bw: c.json:1:1: missing key 'hybrid_override_pattern'");
	CHECK_ERR(nh_json(&m, "hybrid_override_pattern",
			  "\"layers_block_type\": [\"mamba\", \"ssm\"]"),
		  "pd2bw: c.json:18:33: unsupported layer type 'ssm' (expected "
		  "mamba, attention, mlp or moe)");
	CHECK_ERR(nh_json(&m, "hybrid_override_pattern",
			  "\"layers_block_type\": \"mamba\""),
		  "pd2bw: c.json:18:23: expected a sequence of 1 to 1000 layer "
		  "types for 'layers_block_type'");
	CHECK_ERR(nh_json(&m, "ssm_state_size", NULL),
		  "pd2bw: c.json:1:1: missing key 'ssm_state_size'");
	CHECK_ERR(nh_json(&m, "chunk_size", NULL),
		  "pd2bw: c.json:1:1: missing key 'chunk_size'");
	CHECK_ERR(nh_json(&m, "mamba_num_heads", "\"mamba_num_heads\": 0"),
		  "pd2bw: c.json:18:21: value 0 out of range [1, 65536]");
	CHECK_ERR(nh_json(&m, "n_groups", "\"n_groups\": 3"),
		  "pd2bw: c.json:18:14: mamba: heads 8, groups 3: the groups "
		  "must divide the heads, and every size be at least 1");
	CHECK_ERR(nh_json(&m, "n_routed_experts", NULL),
		  "pd2bw: c.json:1:1: missing key 'n_routed_experts'");
	CHECK_ERR(nh_json(&m, NULL, "\"moe_latent_size\": 0"),
		  "pd2bw: c.json:19:21: value 0 out of range [1, 1048576]");
	CHECK_ERR(nh_json(&m, NULL, "\"num_nextn_predict_layers\": 1"),
		  "pd2bw: c.json:19:30: num_nextn_predict_layers 1 needs "
		  "'mtp_hybrid_override_pattern', the layers of a module");
	CHECK_ERR(nh_json(&m, NULL, "\"num_nextn_predict_layers\": 1, "
			  "\"mtp_hybrid_override_pattern\": \"*X\""),
		  "pd2bw: c.json:19:64: mtp_hybrid_override_pattern: layer 1 "
		  "is 'X' (expected M for Mamba, * attention, - MLP, E MoE)");
	CHECK_ERR(nh_json(&m, NULL, "\"num_nextn_predict_layers\": 1, "
			  "\"mtp_hybrid_override_pattern\": "
			  "\"*E*E*E*E*E*E*E*E*\""),
		  "pd2bw: c.json:19:64: mtp_hybrid_override_pattern of 17 "
		  "layers (expected 1 to 16)");
	CHECK_ERR(nh_json(&m, "hybrid_override_pattern",
			  "\"hybrid_override_pattern\": \"M*--\", "
			  "\"num_nextn_predict_layers\": 1, "
			  "\"mtp_hybrid_override_pattern\": \"*E\""),
		  "pd2bw: c.json:18:99: mtp_hybrid_override_pattern: layer 1 "
		  "('E') of a kind the model's layers lack (not supported)");
	CHECK_ERR(nh_json(&m, NULL, "\"num_nextn_predict_layers\": 65"),
		  "pd2bw: c.json:19:30: value 65 out of range [0, 64]");
	CHECK_ERR(nh_json(&m, NULL, "\"mlp_hidden_act\": \"silu\""),
		  "pd2bw: c.json:19:20: unsupported mlp_hidden_act 'silu' "
		  "(expected relu2)");
	CHECK_ERR(nh_json(&m, NULL, "\"sliding_window\": 4"),
		  "pd2bw: c.json:19:20: sliding_window in a hybrid model (not "
		  "supported)");
	/* one as long as the sequence is no window */
	CHECK(nh_json(&m, NULL, "\"sliding_window\": 16") == 0);
	CHECK_INT_EQ(m.window, 0);
	model_release(&m);
	model_release(&y);
	cap_rmdir(dir);
}

static void
test_validate(void)
{
	struct model m;

	model_init(&m);
	m.name = xstrdup("v");
	m.layers = 2;
	m.hidden = 64;
	m.heads = 4;
	m.kv_heads = 4;
	m.ffn_hidden = 256;
	m.seq_len = 16;
	m.vocab = 100;
	CHECK(model_validate(&m, "v") == 0);
	m.heads = 6;
	CHECK_ERR(model_validate(&m, "v"),
		  "pd2bw: v: heads (6) do not divide hidden (64)");
	m.heads = 4;
	m.seq_len = 0;
	CHECK_ERR(model_validate(&m, "v"),
		  "pd2bw: v: seq_len 0 out of range [1, 100000000]");
	m.seq_len = 16;
	m.layers = 0;
	CHECK_ERR(model_validate(&m, "v"),
		  "pd2bw: v: layers 0 out of range [1, 1000]");
	m.layers = 2;
	m.precision = 7;
	CHECK_ERR(model_validate(&m, "v"),
		  "pd2bw: v: invalid enumeration value");
	model_release(&m);
}

static const char *const zoo[] = {
	"gpt-1.3b", "gpt-2.2b", "gpt-3.8b", "bert-2.2b", "bert-3.8b",
	"gpt2-xl", "megatron-gpt-8.3b", "gpt3-175b", "llama2-7b", "llama2-13b",
	"llama2-70b", "llama3-8b", "llama3-70b", "llama3.1-405b",
	"deepseek-v3", "qwen3-30b-a3b", "qwen3-235b-a22b", "gpt-oss-120b",
	"mixtral-8x7b", "mixtral-8x22b", "kimi-k2", "nemotron-3-nano",
	"nemotron-3-super", "nemotron-3.5-lightning", NULL,
};

static void
test_zoo(void)
{
	char rel[256], *dir = cap_mkdtemp();
	struct model m;
	int i;

	model_init(&m);
	for (i = 0; zoo[i]; i++) {
		snprintf(rel, sizeof(rel), "models/%s.yaml", zoo[i]);
		CHECK_MSG(model_load(&m, cap_path(rel)) == 0, zoo[i]);
		CHECK_STR_EQ(m.name, zoo[i]);
		CHECK_MSG(model_validate(&m, rel) == 0, zoo[i]);
		round_trip(&m, dir);
	}
	/* Nemotron 3.5 Lightning: Nano's 31,577,940,288 and one shared
	 * "*E" module of 1,335,325,952, the checkpoint's 32,913,266,240
	 * (Megatron-Bridge's verification card, card.yaml:62 at 067f987) */
	CHECK(model_load(&m, cap_path("models/nemotron-3.5-lightning.yaml")) ==
	      0);
	CHECK_INT_EQ(model_params_no_mtp(&m), 31577940288LL);
	CHECK_INT_EQ(model_mtp_module_params(&m), 1335325952LL);
	CHECK_INT_EQ(model_params(&m), 32913266240LL);
	CHECK(model_load(&m, cap_path("models/gpt-2.2b.yaml")) == 0);
	CHECK(m.layers == 32 && m.hidden == 2304 && m.heads == 32 &&
	      m.seq_len == 512 && m.vocab == 51200 && m.dropout &&
	      !m.flash_attention && m.causal);
	CHECK(model_load(&m, cap_path("models/bert-3.8b.yaml")) == 0);
	CHECK(m.family == MODEL_BERT && m.layers == 32 && m.hidden == 3072 &&
	      m.seq_len == 512 && m.vocab == 30592 && !m.causal);
	CHECK(model_load(&m, cap_path("models/llama3-70b.yaml")) == 0);
	CHECK(m.layers == 80 && m.hidden == 8192 && m.heads == 64 &&
	      m.kv_heads == 8 && m.ffn_hidden == 28672 &&
	      m.seq_len == 8192 && m.vocab == 128256 &&
	      m.activation == MODEL_SWIGLU && m.norm == MODEL_RMSNORM &&
	      !m.tied_embeddings && !m.bias && m.flash_attention);
	CHECK(model_load(&m, cap_path("models/gpt3-175b.yaml")) == 0);
	CHECK(m.layers == 96 && m.hidden == 12288 && m.heads == 96 &&
	      m.seq_len == 2048);
	/* The MoE zoo against the model cards (half a unit of the last
	 * printed digit for totals, one unit for active counts). */
	CHECK(model_load(&m, cap_path("models/deepseek-v3.yaml")) == 0);
	CHECK(m.moe.groups == 8 && m.moe.group_top_k == 4);
	CHECK_NEAR(model_params_no_mtp(&m) / 1e9, 671, 0.5);
	CHECK_NEAR(model_active_params(&m) / 1e9, 37, 1);
	/* Kimi K2: "1 trillion total parameters, 32 billion activated" */
	CHECK(model_load(&m, cap_path("models/kimi-k2.yaml")) == 0);
	CHECK(m.moe.experts == 384 && m.moe.first_dense == 1 && !m.mtp_layers);
	CHECK_NEAR(model_params(&m) / 1e12, 1, 0.05);
	CHECK_NEAR(model_active_params(&m) / 1e9, 32, 1);
	CHECK(model_load(&m, cap_path("models/qwen3-235b-a22b.yaml")) == 0);
	CHECK_NEAR(model_params(&m) / 1e9, 235, 0.5);
	CHECK_NEAR(model_active_params(&m) / 1e9, 22, 1);
	CHECK(model_load(&m, cap_path("models/mixtral-8x22b.yaml")) == 0);
	CHECK_NEAR(model_params(&m) / 1e9, 141, 0.5);
	CHECK_NEAR(model_active_params(&m) / 1e9, 39, 1);
	CHECK(model_load(&m, cap_path("models/gpt-oss-120b.yaml")) == 0);
	CHECK(m.window == 128 && m.global_every == 2 && m.attn_sinks &&
	      m.bias && m.head_dim == 64 && m.rope_yarn && m.act_clamp == 7);
	/* YaRN stretches rotary positions only; a key of format 2 */
	CHECK_ERR(load_str(&m, "format: pd2bw-model/2\nname: t\nlayers: 2\n"
			   "hidden: 64\nheads: 4\nseq_len: 8\nvocab: 9\n"
			   "positions: learned\nrope_yarn: true\n"),
		  "pd2bw: m.yaml:9:12: rope_yarn needs positions: rotary");
	CHECK_ERR(load_with(&m, "layers: 2\nhidden: 64\nheads: 4\n"
			    "seq_len: 8\nvocab: 9\nrope_yarn: true\n"),
		  "pd2bw: m.yaml:1:1: key 'rope_yarn' needs format "
		  "pd2bw-model/2");
	model_release(&m);
	cap_rmdir(dir);
}

int
main(int argc, char **argv)
{
	(void)argc;
	(void)h_skip;
	(void)h_skip_all;
	cap_find_top(argv[0]);
	test_defaults();
	test_bad();
	test_hf();
	test_write();
	test_validate();
	test_v2();
	test_hf_v2();
	test_hybrid();
	test_hf_hybrid();
	test_zoo();
	return h_done();
}
