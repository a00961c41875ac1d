/*
 * bridge.c - --emit megatron-bridge: the plan as a Megatron-Bridge (NeMo)
 * recipe override, a YAML file whose sections match the ConfigContainer
 * (model, train, ddp, optimizer), as the recipes' --config-file takes it.
 * The model section holds Megatron Core TransformerConfig / GPT provider
 * fields, so the partition and recomputation are Megatron Core's (see
 * mcore.c).  Expert parallelism and the parts of pd2bw-model/2 that
 * TransformerConfig has fields for (experts, head_dim, QK-norm, ...) are
 * written for any GPT recipe.  Multi-latent attention and sliding windows
 * only a recipe whose provider sets them runs: DeepSeek-V3's, Kimi K2's
 * and GPT-OSS 120B's, recognised by shape (bridge_recipes), the file
 * naming the recipe and leaving the architecture to it; other parts
 * (post-norms, GeGLU, soft-capping) are refused.  Checked against
 * Megatron-Bridge v0.1 to v0.2 and main 067f987 (DeepSeek-V3 and GPT-OSS:
 * v0.2 on; Kimi K2: v0.3 on).
 */
#include <stdio.h>
#include <string.h>

#include "emit/emit.h"
#include "pd2bw/analytic.h"
#include "pd2bw/error.h"

#define BRIDGE_VERSIONS "Megatron-Bridge v0.1.0 to v0.2 (main 067f987)"

static void
kint(FILE *fp, const char *k, long long v)
{
	fprintf(fp, "  %s: %lld\n", k, v);
}

static void
kbool(FILE *fp, const char *k, int v)
{
	fprintf(fp, "  %s: %s\n", k, v ? "true" : "false");
}

static void
kstr(FILE *fp, const char *k, const char *v)
{
	fprintf(fp, "  %s: ", k);
	emit_json_str(fp, v);
	fputc('\n', fp);
}

static void
knull(FILE *fp, const char *k)
{
	fprintf(fp, "  %s: null\n", k);
}

/*
 * One architecture field a provider fixes: its value there and the
 * model's (booleans as 0/1, written true/false in a message).
 */
struct arch_field {
	const char *field;
	long long want;
	long long got;
	int is_bool;
};

static int
af(struct arch_field *f, int n, const char *field, long long want,
   long long got)
{
	f[n].field = field;
	f[n].want = want;
	f[n].got = got;
	f[n].is_bool = 0;
	return n + 1;
}

static int
afb(struct arch_field *f, int n, const char *field, int want, int got)
{
	n = af(f, n, field, want, got != 0);
	f[n - 1].is_bool = 1;
	return n;
}

/* 1 when the model's MoE layers are the first_dense dense ones, then
 * every layer (moe_layer_freq [0] * first_dense + [1] * rest). */
static int
moe_after(const struct model *m, int first_dense)
{
	int i;

	for (i = 0; i < m->layers; i++)
		if ((model_layer_is_moe(m, i) != 0) != (i >= first_dense))
			return 0;
	return 1;
}

/* Fields every recognised provider sets alike: the MoE extras its
 * recipe leaves unset (moe_shared_expert_gate, moe_expert_capacity_factor
 * default False and None, transformer_config.py:713, 917) and what pd2bw
 * models outside the provider's fields (a causal decoder, no dropout). */
static int
common_fields(struct arch_field *f, int n, const struct model *m)
{
	n = afb(f, n, "moe_shared_expert_gate", 0, m->moe.shared_gate);
	n = afb(f, n, "moe_expert_capacity_factor (set)", 0,
		m->moe.capacity_factor > 0);
	n = afb(f, n, "hidden_dropout and attention_dropout (0.0)", 0,
		m->dropout);
	n = afb(f, n, "a causal decoder", 1, m->causal && m->family !=
						 MODEL_BERT);
	n = afb(f, n, "normalization RMSNorm", 1, m->norm == MODEL_RMSNORM);
	n = afb(f, n, "gated_linear_unit (SwiGLU)", 1,
		m->activation == MODEL_SWIGLU);
	n = afb(f, n, "share_embeddings_and_output_weights", 0,
		m->tied_embeddings);
	n = afb(f, n, "rotary positions", 1, m->positions == MODEL_ROTARY);
	n = afb(f, n, "qk norm of the heads", 0, m->qk_norm);
	return n;
}

/*
 * What a provider of DeepSeek-V3's architecture fixes apart from the
 * shape it shares (61 layers of 7168, MLA of ranks 1536 and 512, experts
 * of 2048 and one shared, top-8, RMSNorm, SwiGLU, rope, no bias).
 */
struct dsv3_shape {
	int heads;             /* also the query groups */
	long long vocab;
	int experts;
	int dense;             /* first layers with a dense MLP */
	const char *freq;      /* moe_layer_freq as the provider writes it */
	int groups, group_topk;
	long long rope_base;
	int no_mtp;            /* the provider has no MTP layer to add */
};

static int
dsv3_family_fields(const struct model *m, struct arch_field *f,
		   const struct dsv3_shape *v)
{
	const struct model_moe *e = &m->moe;
	int n = 0;

	n = af(f, n, "num_layers", 61, m->layers);
	n = af(f, n, "hidden_size", 7168, m->hidden);
	n = af(f, n, "num_attention_heads", v->heads, m->heads);
	n = af(f, n, "num_query_groups", v->heads, m->kv_heads);
	n = af(f, n, "ffn_hidden_size", 18432, m->ffn_hidden);
	n = af(f, n, "vocab_size", v->vocab, m->vocab);
	n = afb(f, n, "multi_latent_attention", 1, m->attention == MODEL_MLA);
	n = af(f, n, "q_lora_rank", 1536, m->mla.q_rank);
	n = af(f, n, "kv_lora_rank", 512, m->mla.kv_rank);
	n = af(f, n, "qk_head_dim", 128, m->mla.nope_dim);
	n = af(f, n, "qk_pos_emb_head_dim", 64, m->mla.rope_dim);
	n = af(f, n, "v_head_dim", 128, m->mla.v_dim);
	n = af(f, n, "num_moe_experts", v->experts, e->experts);
	n = af(f, n, "moe_router_topk", 8, e->top_k);
	n = af(f, n, "moe_ffn_hidden_size", 2048, e->expert_ffn);
	n = af(f, n, "moe_shared_expert_intermediate_size", 2048,
	       e->shared_experts * e->shared_ffn);
	n = afb(f, n, v->freq, 1, moe_after(m, v->dense));
	n = afb(f, n, "moe_router_enable_expert_bias", 1, e->router_bias);
	/* one group of all the experts, its one best group taken: every
	 * expert a candidate, as without groups (group_limited_topk,
	 * megatron/core/transformer/moe/moe_utils.py:711-726 at 2a75ac1) */
	n = af(f, n, "moe_router_num_groups", v->groups,
	       e->groups > 1 ? e->groups : 1);
	n = af(f, n, "moe_router_group_topk", v->group_topk,
	       e->groups > 1 ? e->group_top_k : 1);
	n = afb(f, n, "add_bias_linear", 0, m->bias);
	n = afb(f, n, "add_qkv_bias", 0, m->qkv_bias);
	n = af(f, n, "rotary_base", v->rope_base, (long long)m->rope_base);
	if (v->no_mtp)
		n = af(f, n, "mtp_num_layers (none)", 0, m->mtp_layers);
	n = af(f, n, "window_size (none)", 0, m->window);
	n = afb(f, n, "softmax_type learnable", 0, m->attn_sinks);
	return common_fields(f, n, m);
}

/*
 * DeepSeek-V3, the provider AutoBridge makes of the Hugging Face config
 * (main 067f987: models/deepseek/deepseek_v3_bridge.py:53-99 on the
 * generic config mapping; v0.2.0: DeepSeekV3ModelProvider from it,
 * deepseek_v3_bridge.py:39-56, models/deepseek/deepseek_provider.py:
 * 43-103, 166-191).  MLA ranks and dims v0.2.0 deepseek_provider.py:82-86;
 * 256 experts of 2048, one shared of 2048, top-8, 3 dense layers
 * :174-180; vocab :191; RMSNorm, SwiGLU, no bias, untied main
 * deepseek_v3_bridge.py:58-61; the router's expert bias bridge.py:74,
 * its groups (n_group 8, topk_group 4) models/conversion/
 * model_bridge.py:487-488;
 * rope base 10000 the recipe's (recipes/deepseek/h100/deepseek_v3.py:142).
 * Its MTP layers are a recipe setting (h100/deepseek_v3.py:137, "0 or
 * None to disable"), written as the model has them.
 */
static int
deepseek_v3_fields(const struct model *m, struct arch_field *f)
{
	static const struct dsv3_shape v = {
		128, 129280, 256, 3, "moe_layer_freq ([0] * 3 + [1] * 58)",
		8, 4, 10000, 0};

	return dsv3_family_fields(m, f, &v);
}

/*
 * Kimi K2, the provider AutoBridge makes of moonshotai/Kimi-K2-Instruct's
 * config (main 067f987: models/kimi/kimi_bridge.py:44-88 on the generic
 * config mapping, recipes/kimi/h100/kimi_k2.py:99-101; v0.3.0: the
 * KimiK2Provider of models/kimi/kimi_provider.py:41-129, the same
 * values).  Shape v0.3.0 :51-56, 64, 119 (the query groups left to
 * Megatron Core, which makes them the heads); MLA ranks and dims :95-100;
 * 384 experts of 2048, one shared of 2048, top-8, one dense layer
 * :54-57, 79 (main kimi_bridge.py:82-85); RMSNorm, SwiGLU, rope, no
 * bias, untied :58-63 (main :49-53); the router's expert bias :85 (main
 * :62), one expert group :80-81 (main model_bridge.py:487-488 from the
 * config's n_group and topk_group, 1 and 1); rope base 50000 :68 (main
 * model_bridge.py:476 from rope_theta, the recipe leaving it).  No MTP
 * layer (v0.3.0 :70; main from the config's num_nextn_predict_layers, 0,
 * model_bridge.py:497): unlike DeepSeek-V3's, not one the recipe adds,
 * and v0.3.0's provider leaves mtp_loss_scaling_factor None (:71), which
 * an MTP block divides (megatron/core/transformer/
 * multi_token_prediction.py:876 at Megatron-LM 2a75ac1).
 */
static int
kimi_k2_fields(const struct model *m, struct arch_field *f)
{
	static const struct dsv3_shape v = {
		64, 163840, 384, 1, "moe_layer_freq ([0] * 1 + [1] * 60)",
		1, 1, 50000, 1};

	return dsv3_family_fields(m, f, &v);
}

/*
 * GPT-OSS 120B, the provider AutoBridge makes of the Hugging Face config
 * (main 067f987: models/gpt_oss/gpt_oss_bridge.py:56-102; v0.2.0: a
 * GPTOSSProvider of its shape, gpt_oss_bridge.py:70-79, with the defaults
 * of models/gpt_oss/gpt_oss_provider.py:44-84).  Shape v0.2.0
 * :44-48, 53, 97-98; RMSNorm, GLU, biases, untied bridge.py:60-64; top-4
 * experts of 2880 :69, 74 and bridge.py:91; rope base :60 (YaRN, bridge.py:
 * 65, 93-100); learnable softmax, window (sliding_window - 1, 0) on every
 * layer but each second, bridge.py:86-88.
 */
static int
gpt_oss_120b_fields(const struct model *m, struct arch_field *f)
{
	const struct model_moe *e = &m->moe;
	int n = 0;

	n = af(f, n, "num_layers", 36, m->layers);
	n = af(f, n, "hidden_size", 2880, m->hidden);
	n = af(f, n, "num_attention_heads", 64, m->heads);
	n = af(f, n, "num_query_groups", 8, m->kv_heads);
	n = af(f, n, "kv_channels", 64, model_head_dim(m));
	n = af(f, n, "ffn_hidden_size", 2880, m->ffn_hidden);
	n = af(f, n, "vocab_size", 201088, m->vocab);
	n = afb(f, n, "multi_latent_attention", 0, m->attention == MODEL_MLA);
	n = af(f, n, "num_moe_experts", 128, e->experts);
	n = af(f, n, "moe_router_topk", 4, e->top_k);
	n = af(f, n, "moe_ffn_hidden_size", 2880, e->expert_ffn);
	n = af(f, n, "moe_shared_expert_intermediate_size (none)", 0,
	       e->shared_experts * e->shared_ffn);
	n = afb(f, n, "moe_layer_freq (1: every layer)", 1, moe_after(m, 0));
	n = af(f, n, "moe_router_num_groups (none)", 0, e->groups);
	n = afb(f, n, "add_bias_linear", 1, m->bias);
	n = af(f, n, "rotary_base", 150000, (long long)m->rope_base);
	n = afb(f, n, "softmax_type learnable", 1, m->attn_sinks);
	/* (127, 0): the token and the 127 before it, the model's window of
	 * 128 */
	n = af(f, n, "window_size span", 128, m->window);
	n = af(f, n, "window_attn_skip_freq", 2, m->global_every);
	return common_fields(f, n, m);
}

/*
 * A Megatron-Bridge pretrain recipe whose provider fixes an architecture
 * that an override of another recipe cannot set: an MLA provider's fields
 * exist only there (an override skips a key its provider lacks, training/
 * utils/omegaconf_utils.py:470-474), and a sliding window is the
 * provider's (left, right) tuple (transformer_config.py:247).  The
 * emitted file names the recipe and writes only what the provider leaves
 * to its user (parallelism, batch, recomputation, sequence length).
 */
struct bridge_recipe {
	const char *model;      /* "DeepSeek-V3" */
	const char *recipe;     /* the recipe's function, module path */
	const char *versions;   /* Bridge versions that have it */
	int mla;                /* recognised among MLA models */
	int window;             /* among sliding-window models */
	int layers;             /* shape it is recognised by */
	int64_t hidden;
	int (*fields)(const struct model *m, struct arch_field *f);
	const char *note;       /* header lines, "# " prefixed, or NULL */
	/* the recipe trains with Muon, run without the distributed
	 * optimizer as this cites (bridge_muon_check), or NULL for Adam */
	const char *muon;
};

static const struct bridge_recipe bridge_recipes[] = {
	{"DeepSeek-V3",
	 /* recipes/deepseek/deepseek_v3.py:26-28 at 067f987 (an alias of
	  * h100/deepseek_v3.py:105); v0.2 the function itself
	  * (recipes/deepseek/deepseek_v3.py:93 at v0.2.0).  NEEDSWORK: v0.1
	  * names it pretrain_config, of a DeepSeekV3Provider (recipes/
	  * deepseek/deepseek_v3.py:83, 154 at v0.1.0rc4), unchecked */
	 "megatron.bridge.recipes.deepseek.deepseek_v3.deepseek_v3_pretrain_"
	 "config",
	 "Megatron-Bridge v0.2.0 to main 067f987 (v0.1 unchecked)", 1, 0, 61,
	 7168,
	 deepseek_v3_fields,
	 /* main's recipe applies HybridEP, recipes/deepseek/h100/
	  * deepseek_v3.py:160, 256; v0.2.0's no flex backend by default
	  * (recipes/deepseek/deepseek_v3.py:191, 260) */
	 "# The recipe's token dispatcher gives way to the one pd2bw priced "
	 "(below);\n# the MTP layers run on the last stage, with the loss, "
	 "as planned.\n",
	 NULL},
	{"GPT-OSS 120B",
	 /* recipes/gpt_oss/gpt_oss.py:59-60 at 067f987 (an alias of
	  * h100/gpt_oss.py:162); v0.2 the function itself
	  * (recipes/gpt_oss/gpt_oss.py:146 at v0.2.0); v0.1 has no GPT-OSS */
	 "megatron.bridge.recipes.gpt_oss.gpt_oss.gpt_oss_120b_pretrain_config",
	 "Megatron-Bridge v0.2.0 to main 067f987 (v0.1 has no GPT-OSS)", 0, 1,
	 36, 2880, gpt_oss_120b_fields,
	 /* v0.2.x: window_size (128, 0), gpt_oss_provider.py:77 at v0.2.0;
	  * main: (sliding_window - 1, 0), gpt_oss_bridge.py:87 */
	 "# Its window is (127, 0) on main, (128, 0) in v0.2.x (one token "
	 "more than the\n# model's 128).  The override, as any, turns the "
	 "window's tuple into a list\n# (omegaconf_utils.py:139-158, 515); "
	 "Transformer Engine compares it only with\n# (-1, 0) and (-1, -1) "
	 "(dot_product_attention/utils.py:2659-2678).\n",
	 NULL},
	{"Kimi K2",
	 /* recipes/kimi/kimi_k2.py:23-25 at 067f987 (an alias of
	  * h100/kimi_k2.py:91); the function itself from v0.3.0 (recipes/
	  * kimi/kimi_k2.py:88) to 26.06 (63b08b397 :53); v0.2 has no Kimi */
	 "megatron.bridge.recipes.kimi.kimi_k2.kimi_k2_pretrain_config",
	 "Megatron-Bridge v0.3.0 to main 067f987 (v0.2 has no Kimi K2)", 1, 0,
	 61, 7168, kimi_k2_fields,
	 /* Muon: optimizer "dist_muon" (recipes/utils/optimizer_utils.py:79
	  * at 067f987), the recipe's default (h100/kimi_k2.py:200; the
	  * optimizer_type argument's, recipes/kimi/kimi_k2.py:235 at v0.3.0,
	  * :53 at 63b08b397); Megatron Core's layer-wise optimizer for it
	  * (megatron/core/optimizer/__init__.py:744-754 at 2a75ac1) has each
	  * data-parallel rank update its share of the weights, then
	  * all-gathers them (layer_wise_optimizer.py:174-180); the recipe
	  * keeps the all-to-all dispatcher (h100/kimi_k2.py:138-139, its
	  * DeepEP backend never applied) */
	 "# The recipe trains with Muon (dist_muon: each data-parallel rank "
	 "updates its\n# share of the layers with Newton-Schulz steps, then "
	 "all-gathers them), which\n# pd2bw priced as unsharded Adam.\n",
	 /* ddp.use_distributed_optimizer False with Muon: main h100/
	  * kimi_k2.py:74; "Muon needs this to be False", recipes/kimi/
	  * kimi_k2.py:199 at 63b08b397 (26.06), :352 at v0.3.0; "keep all
	  * megatron distributed-optimizer related options OFF",
	  * layer_wise_optimizer.py:172 at Megatron-LM 2a75ac1 */
	 "recipes/kimi/h100/kimi_k2.py:74 at 067f987; \"Muon needs this to "
	 "be False\", kimi_k2.py:199 at 26.06"},
};

#define N_BRIDGE_RECIPES (sizeof(bridge_recipes) / sizeof(bridge_recipes[0]))

/* 1 when recipe b is among those model m could run on: its kind of
 * attention, its shape. */
static int
bridge_recipe_fits(const struct bridge_recipe *b, const struct model *m)
{
	if (m->attention == MODEL_MLA ? !b->mla : !b->window)
		return 0;
	return m->layers == b->layers && m->hidden == b->hidden;
}

/*
 * The recipe to override for model m when it has multi-latent attention
 * or sliding windows: *r is set, or NULL for a model any GPT recipe takes.
 * Providers of one shape (DeepSeek-V3's and Kimi K2's) are told apart by
 * their fields: the one that fixes none differently is taken.  Returns 0,
 * or -1 after a message naming the first field that differs from the
 * nearest provider's (the fewest differing, the first in bridge_recipes
 * on a tie), or saying that no provider has the model's shape.
 */
static int
bridge_recipe_find(const struct model *m, const struct bridge_recipe **r)
{
	const char *name = m->name ? m->name : "";
	const char *what = m->attention == MODEL_MLA ? "multi-latent attention"
						     : "sliding-window attention";
	const struct bridge_recipe *near = NULL;
	struct arch_field f[48], nf = {0};
	char names[128] = "";
	size_t i;
	int j, n, bad, near_bad = 0, shapes = 0;

	*r = NULL;
	if (m->attention != MODEL_MLA && m->window <= 0)
		return 0;
	for (i = 0; i < N_BRIDGE_RECIPES; i++) {
		const struct bridge_recipe *b = &bridge_recipes[i];
		struct arch_field first = {0};

		if (!bridge_recipe_fits(b, m))
			continue;
		snprintf(names + strlen(names), sizeof(names) - strlen(names),
			 "%s%s", shapes ? " and " : "", b->model);
		shapes++;
		n = b->fields(m, f);
		for (bad = 0, j = 0; j < n; j++)
			if (f[j].want != f[j].got && !bad++)
				first = f[j];
		if (!bad) {
			*r = b;
			return 0;
		}
		if (!near || bad < near_bad) {
			near = b;
			near_bad = bad;
			nf = first;
		}
	}
	if (near) {
		char want[32], got[32];

		if (nf.is_bool) {
			snprintf(want, sizeof(want), "%s",
				 nf.want ? "true" : "false");
			snprintf(got, sizeof(got), "%s",
				 nf.got ? "true" : "false");
		} else {
			snprintf(want, sizeof(want), "%lld", nf.want);
			snprintf(got, sizeof(got), "%lld", nf.got);
		}
		if (shapes == 1)
			return pd2bw_error(
				"--emit megatron-bridge: model '%s' has the "
				"shape of Megatron-Bridge's %s provider, the "
				"only one to run its %s, but not its %s (the "
				"provider's %s, the model's %s)",
				name, near->model, what, nf.field, want, got);
		return pd2bw_error("--emit megatron-bridge: model '%s' has the "
				   "shape of Megatron-Bridge's %s providers, "
				   "the only ones to run its %s, and is "
				   "nearest %s's, but not its %s (the "
				   "provider's %s, the model's %s)",
				   name, names, what, near->model, nf.field,
				   want, got);
	}
	return pd2bw_error("--emit megatron-bridge: model '%s' has %s, which "
			   "only a recipe whose provider sets it runs (an "
			   "override of another skips an MLA field, "
			   "omegaconf_utils.py:470-474, and a window is the "
			   "provider's tuple), and its shape (%d layers, "
			   "hidden %lld) is none of those pd2bw knows: %s",
			   name, what, m->layers, (long long)m->hidden,
			   m->attention == MODEL_MLA
				   ? "DeepSeek-V3 and Kimi K2 (61 layers, "
				     "hidden 7168)"
				   : "GPT-OSS 120B (36 layers, hidden 2880)");
}

/*
 * The mixed-precision preset of a plan in prec, which Megatron-Bridge
 * applies over the model's dtype flags (training/config.py:2016 at
 * 067f987; the recipes default to bf16_mixed, recipes/common.py:130):
 * a 16-bit plan its own (mixed_precision.py:185, 201), an FP8 one its
 * recipe's (:217, 285, 373, 255), an NVFP4 one bf16_with_nvfp4_mixed
 * (:405), fp32 none (NULL), leaving the model's.  *gathers: the preset
 * keeps FP8 or NVFP4 parameters and gathers them (fp8_param_gather
 * :231, 264, 302, 384, every FP8 preset but subchannel's;
 * fp4_param_gather :416), which needs the distributed optimizer.
 */
static const char *
bridge_preset(const struct emit_in *in, const char *prec, int *gathers)
{
	static const char *const fp8[] = {
		"bf16_with_fp8_delayed_scaling_mixed",
		"bf16_with_fp8_current_scaling_mixed",
		"bf16_with_fp8_subchannel_scaling_mixed",
		"bf16_with_mxfp8_mixed",
	};
	int r = in->o ? in->o->fp8_recipe : FP8_DELAYED;

	*gathers = 0;
	if (!strcmp(prec, "bf16"))
		return "bf16_mixed";
	if (!strcmp(prec, "fp16"))
		return "fp16_mixed";
	if (!strcmp(prec, "nvfp4")) {
		*gathers = 1;
		return "bf16_with_nvfp4_mixed";
	}
	if (!strcmp(prec, "fp8") && r >= 0 &&
	    r < (int)(sizeof(fp8) / sizeof(fp8[0]))) {
		*gathers = r != FP8_BLOCKWISE;
		return fp8[r];
	}
	return NULL;
}

/*
 * What a recipe that trains with Muon (rec->muon) cannot run of plan p in
 * precision prec: a sharded optimizer (the recipe runs Muon without the
 * distributed one), fp16 (Megatron Core runs no emerging optimizer in
 * it, megatron/core/optimizer/__init__.py:772-773 at Megatron-LM
 * 2a75ac1), or FP8 and NVFP4 parameters (every preset but the
 * subchannel one gathers them, mixed_precision.py:231, 264, 302, 416 at
 * 067f987, which pd2bw plans only with a sharded optimizer).  Returns 0,
 * or -1 after a message saying which.
 */
static int
bridge_muon_check(const struct emit_in *in, const struct bridge_recipe *rec,
		  const char *prec)
{
	const struct plan *p = in->p;
	int gathers;

	bridge_preset(in, prec, &gathers);
	/* priced with Muon: the recipe's dist_muon is Megatron Core's
	 * layer-wise distributed optimizer, Muon's state sharded over the
	 * data-parallel ranks (layer_wise_optimizer.py:184-300) */
	if (p->optimizer == PLAN_MUON && p->zero != 1)
		return pd2bw_error("--emit megatron-bridge: Megatron-Bridge's "
				   "%s recipe runs Muon as dist_muon, its "
				   "state sharded over the data-parallel "
				   "ranks, but the plan %s: plan with "
				   "--optimizer-sharding on",
				   rec->model,
				   p->zero ? "runs FSDP" : "does not shard it");
	if (p->zero && p->optimizer != PLAN_MUON)
		return pd2bw_error("--emit megatron-bridge: Megatron-Bridge's "
				   "%s recipe trains with Muon (dist_muon), "
				   "which runs without the distributed "
				   "optimizer (%s), but the plan shards the "
				   "optimizer (ZeRO-%d): plan with --zero 0%s",
				   rec->model, rec->muon, p->zero,
				   p->zero == 1 ? ", or price Muon (--optimizer "
						  "muon)"
						: "");
	if (!strcmp(prec, "fp16"))
		return pd2bw_error("--emit megatron-bridge: Megatron-Bridge's "
				   "%s recipe trains with Muon (dist_muon), "
				   "which Megatron Core does not run in fp16 "
				   "(\"emerging optimizer with fp16 is not "
				   "supported\", megatron/core/optimizer/"
				   "__init__.py:772-773 at Megatron-LM "
				   "2a75ac1): plan in bf16",
				   rec->model);
	if (gathers && !strcmp(prec, "fp8"))
		return pd2bw_error("--emit megatron-bridge: Megatron-Bridge's "
				   "%s recipe trains with Muon (dist_muon), "
				   "without the distributed optimizer, which "
				   "FP8 parameters need (every FP8 preset but "
				   "the subchannel one gathers them, "
				   "fp8_param_gather): plan with --fp8-recipe "
				   "blockwise",
				   rec->model);
	if (gathers)
		return pd2bw_error("--emit megatron-bridge: Megatron-Bridge's "
				   "%s recipe trains with Muon (dist_muon), "
				   "without the distributed optimizer, which "
				   "NVFP4 parameters need "
				   "(bf16_with_nvfp4_mixed gathers them, "
				   "fp4_param_gather): plan in "
				   "bf16, or fp8 with --fp8-recipe blockwise",
				   rec->model);
	return 0;
}

/* A float for a YAML float field: "1.0", not the int "1", and no
 * exponent without a dot, which YAML 1.1 reads as a string. */
static void
kfloat(FILE *fp, const char *k, double v)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%g", v);
	if (strchr(buf, 'e'))
		snprintf(buf, sizeof(buf), "%f", v);
	fprintf(fp, "  %s: %s%s\n", k, buf, strchr(buf, '.') ? "" : ".0");
}

/*
 * The model/2 parts as TransformerConfig / GPTModelProvider fields, each
 * written, its default value too, so that the recipe's own (a Qwen3
 * recipe's QK-norm, a MoE recipe's experts) cannot remain.  Fields (TC =
 * megatron/core/transformer/transformer_config.py at d98e8a6, G =
 * Megatron-Bridge's models/gpt_provider.py): kv_channels TC:184,
 * add_qkv_bias TC:218, qk_layernorm G:189, softmax_type TC:170,
 * mtp_num_layers TC:68 (G:345-378 builds its block from it; the layer
 * spec reads num_moe_experts, moe_grouped_gemm and qk_layernorm when the
 * model is built, G:51-66), num_moe_experts G:187, moe_router_topk TC:760,
 * moe_ffn_hidden_size TC:740, moe_shared_expert_intermediate_size
 * TC:701, moe_shared_expert_gate TC:713, moe_layer_freq TC:735 (an int
 * or a list of 0/1, one per layer), moe_expert_capacity_factor TC:917,
 * moe_grouped_gemm G:188, moe_token_dispatcher_type TC:891.
 */
/* The dispatcher the plan priced (emit_mcore_dispatcher()). */
static void
dispatcher_keys(FILE *fp, const char *disp, const char *backend)
{
	kstr(fp, "moe_token_dispatcher_type", disp);
	if (backend)
		kstr(fp, "moe_flex_dispatcher_backend", backend);
}

static void
v2_keys(FILE *fp, const struct model *m, const char *disp,
	const char *backend)
{
	const struct model_moe *e = &m->moe;
	struct emit_moe_int f[EMIT_MOE_INTS];
	int i, n, all = 1;

	fprintf(fp, "  # pd2bw-model/2 parts, defaults written too.\n");
	kint(fp, "kv_channels", model_head_dim(m));
	kbool(fp, "add_qkv_bias", m->qkv_bias);
	kbool(fp, "qk_layernorm", m->qk_norm);
	kstr(fp, "softmax_type", m->attn_sinks ? "learnable" : "vanilla");
	if (m->activation == MODEL_SQRELU)
		fprintf(fp, "  # activation_func (squared ReLU) is the "
			    "recipe's: a callable, not a YAML value.\n");
	if (m->mtp_layers > 0)
		kint(fp, "mtp_num_layers", m->mtp_layers);
	else
		knull(fp, "mtp_num_layers");
	n = emit_mcore_moe_ints(m, f);
	if (!n) {
		knull(fp, "num_moe_experts");
		return;
	}
	for (i = 0; i < n; i++)
		if (f[i].v)
			kint(fp, f[i].field, f[i].v);
		else
			knull(fp, f[i].field);
	kbool(fp, "moe_shared_expert_gate", e->shared_gate);
	/* the score-correction bias of aux-loss-free routing, with the
	 * sigmoid scores it needs (transformer_config.py:816, 2617-2623) */
	if (e->router_bias) {
		kstr(fp, "moe_router_score_function", "sigmoid");
		kbool(fp, "moe_router_enable_expert_bias", 1);
	}
	if (e->scale > 0)
		kfloat(fp, "moe_router_topk_scaling_factor", e->scale);
	/* which layers are MoE: 1 (every one), else the list of 0/1
	 * gpt_layer_specs.py:647-657 takes, one per layer; either replaces
	 * the recipe's int or list, the config being merged into an untyped
	 * one (omegaconf_utils.py:78, 148; OmegaConf's _map_merge
	 * replaces a value with a list and a list with a value) */
	for (i = 0; i < m->layers; i++)
		all &= model_layer_is_moe(m, i) != 0;
	if (all) {
		kint(fp, "moe_layer_freq", 1);
	} else {
		fprintf(fp, "  moe_layer_freq: [");
		for (i = 0; i < m->layers; i++)
			fprintf(fp, "%s%d",
				i == 0 ? "" : i % 20 ? ", " : ",\n    ",
				model_layer_is_moe(m, i) != 0);
		fprintf(fp, "]\n");
	}
	if (e->capacity_factor > 0)
		kfloat(fp, "moe_expert_capacity_factor", e->capacity_factor);
	else
		knull(fp, "moe_expert_capacity_factor");
	/* padded to the capacity as priced (--emit megatron's comment) */
	kbool(fp, "moe_pad_expert_input_to_capacity", e->capacity_factor > 0);
	/* what pd2bw priced, as --emit megatron writes it: one grouped GEMM
	 * over the experts, the permutations fused (the recipes' setting,
	 * transformer_config.py:941 at d98e8a6, whose default is off), the
	 * plan's dispatcher */
	kbool(fp, "moe_grouped_gemm", 1);
	kbool(fp, "moe_permute_fusion", 1);
	/* the router as the one kernel priced (transformer_config.py:944) */
	kbool(fp, "moe_router_fusion", 1);
	dispatcher_keys(fp, disp, backend);
}

/*
 * The fused kernels the plan priced (its fusions, all unless it says),
 * whatever the recipe's provider says: TransformerConfig's bias-
 * activation, bias-dropout-add and rope fusions (transformer_config.py:
 * 496, 510, 513 at d98e8a6, all off by default) and the cross-entropy's
 * (model_parallel_config.py:320); the activation's only where Megatron-
 * Core fuses it (SwiGLU; GeLU with the linear biases, transformer_
 * config.py:2426-2434), the norm Transformer Engine's.
 */
static void
fusion_keys(FILE *fp, const struct emit_in *in)
{
	const struct model *m = in->model;
	unsigned f = emit_plan_fusions(in->p);

	kbool(fp, "bias_activation_fusion",
	      (f & ANALYTIC_FUSE_ACT) &&
		      (m->activation == MODEL_SWIGLU ||
		       (m->activation == MODEL_GELU && m->bias)));
	kbool(fp, "bias_dropout_fusion", (f & ANALYTIC_FUSE_DROPADD) != 0);
	kbool(fp, "apply_rope_fusion", (f & ANALYTIC_FUSE_ROPE) &&
					       m->positions == MODEL_ROTARY);
	kbool(fp, "cross_entropy_loss_fusion", (f & ANALYTIC_FUSE_XENT) != 0);
}

/* The architecture, for a model any GPT recipe takes: every field
 * written (model/2's too, v2_keys), so that the recipe's cannot remain. */
static void
arch_keys(FILE *fp, const struct emit_in *in, const struct emit_shape *sh,
	  const char *disp, const char *backend)
{
	const struct model *m = in->model;

	kint(fp, "num_layers", sh->nblocks);
	kint(fp, "hidden_size", m->hidden);
	kint(fp, "num_attention_heads", m->heads);
	kint(fp, "num_query_groups", m->kv_heads);
	kint(fp, "ffn_hidden_size", m->ffn_hidden);
	kint(fp, "seq_length", in->prof->seq_len);
	kint(fp, "vocab_size", m->vocab);
	kstr(fp, "normalization",
	     m->norm == MODEL_RMSNORM ? "RMSNorm" : "LayerNorm");
	kbool(fp, "gated_linear_unit", m->activation == MODEL_SWIGLU);
	if (m->activation == MODEL_SWIGLU)
		fprintf(fp, "  # activation_func (SiLU) is the recipe's: a "
			    "callable, not a YAML value.\n");
	kbool(fp, "add_bias_linear", m->bias);
	kbool(fp, "share_embeddings_and_output_weights", m->tied_embeddings);
	kstr(fp, "position_embedding_type",
	     m->positions == MODEL_ROTARY  ? "rope"
	     : m->positions == MODEL_NOPOS ? "none"
					   : "learned_absolute");
	if (m->positions == MODEL_ROTARY)
		kint(fp, "rotary_base", (long long)m->rope_base);
	if (!m->dropout) {
		fprintf(fp, "  hidden_dropout: 0.0\n");
		fprintf(fp, "  attention_dropout: 0.0\n");
	}
	fusion_keys(fp, in);
	if (model_is_v2(m))
		v2_keys(fp, m, disp, backend);
}

/*
 * For a recipe whose provider sets the architecture: only what the
 * provider leaves to its user, the MTP layers too (a recipe setting, the
 * layout counting them, pipeline_parallel_layer_layout.py:112-114 at
 * Megatron-LM 2a75ac1).  The dispatcher pd2bw priced replaces the
 * recipe's: the all-to-all, or the flex one with HybridEP (a flex
 * backend is used only with moe_token_dispatcher_type flex, training/
 * flex_dispatcher_backend.py:90 at 067f987).
 */
static void
recipe_keys(FILE *fp, const struct emit_in *in, const struct bridge_recipe *r,
	    const char *disp, const char *backend)
{
	fprintf(fp, "  # Architecture: %s's provider (num_layers, hidden_size, "
		    "...).\n", r->model);
	kint(fp, "seq_length", in->prof->seq_len);
	if (in->model->mtp_layers > 0)
		kint(fp, "mtp_num_layers", in->model->mtp_layers);
	else
		knull(fp, "mtp_num_layers");
	dispatcher_keys(fp, disp, backend);
}

/*
 * The note for overlaps the plan was priced without: the recipe's
 * CommOverlapConfig decides them (training/comm_overlap.py:562-586: the
 * gradient reduction and parameter gather overlap whenever data
 * parallelism is used), which an override of ddp does not change.
 */
static void
bridge_overlap_note(FILE *fp, const struct plan *p)
{
	struct runtime rt;
	int g, pg;

	if (emit_plan_runtime(p, RUNTIME_MEGATRON_CORE, &rt) != 1 ||
	    p->w < 2)
		return;
	g = runtime_has(&rt, RUNTIME_OPT_OVERLAP_GRAD_REDUCE);
	pg = runtime_has(&rt, RUNTIME_OPT_OVERLAP_PARAM_GATHER);
	if (g && (pg || !p->zero))
		return;
	fprintf(fp, "# pd2bw priced the %s without overlap; a recipe with a "
		    "comm_overlap\n# config overlaps %s with data "
		    "parallelism (training/comm_overlap.py:575-579),\n# "
		    "unless it sets comm_overlap.%s = False.\n",
		g ? "parameter all-gather" : "gradient reduction",
		g ? "it" : "them", g ? "overlap_param_gather"
				    : "overlap_grad_reduce");
}

int
emit_bridge(FILE *fp, const struct emit_in *in, const struct emit_shape *sh)
{
	const struct plan *p = in->p;
	const struct model *m = in->model;
	const char *prec = in->prof->precision ? in->prof->precision : "fp32";
	const struct bridge_recipe *rec = NULL;
	struct emit_mcore mc;
	struct runtime dflt;
	const char *part, *backend, *disp = emit_mcore_dispatcher(p, &backend);
	const char *mp;
	int c = p->c > 1 ? p->c : 1, e = p->e > 1 ? p->e : 1, gathers;
	int graphs = emit_cuda_graphs(p);

	if (p->sched == PLAN_2BW || p->sched == PLAN_GPIPE)
		return pd2bw_error("--emit megatron-bridge: Megatron Core has "
				   "no %s schedule (only 1F1B, with a flush); "
				   "plan with -s flush",
				   plan_sched_names[p->sched]);
	if (!m)
		return pd2bw_error("--emit megatron-bridge: needs the model "
				   "(the input was a profile)");
	if (m->family == MODEL_BERT)
		return pd2bw_error("--emit megatron-bridge: Megatron-Bridge "
				   "has no BERT recipe");
	if (model_is_v2(m) && (part = emit_mcore_v2_lacks(m)))
		return pd2bw_error("--emit megatron-bridge: model '%s' has %s, "
				   "which a Megatron-Bridge override does not "
				   "express",
				   m->name ? m->name : "", part);
	/* the overrides written below name neither moe_latent_size nor
	 * mtp_use_repeated_layer */
	if (m->moe.latent || m->mtp_shared)
		return pd2bw_error("--emit megatron-bridge: model '%s' has %s, "
				   "which the overrides pd2bw writes do not "
				   "express; emit megatron",
				   m->name ? m->name : "",
				   m->moe.latent ? "latent experts (LatentMoE)"
						 : "multi-token-prediction "
						   "modules sharing weights");
	if (!disp || bridge_recipe_find(m, &rec))
		return -1;
	if (p->optimizer == PLAN_MUON && !(rec && rec->muon))
		return pd2bw_error("--emit megatron-bridge: the plan is priced "
				   "with Muon, but Megatron-Bridge's %s%s "
				   "train%s with Adam: plan with --optimizer "
				   "adam, or emit megatron",
				   rec ? rec->model : "recipes",
				   rec ? " recipe" : " for this model",
				   rec ? "s" : "");
	if (rec && rec->muon && bridge_muon_check(in, rec, prec))
		return -1;
	/* HybridEP's rank budget fills the experts through the op fuser
	 * (transformer_config.py:1875-1883 at d98e8a6; Bridge's recipes
	 * that set the budget turn the fuser on, perf_recipes/gpt_oss/
	 * common.py:30, 45 at 067f987) */
	if (p->moe_rank_capacity > 0 &&
	    !emit_runtime_opt(p, RUNTIME_OPT_OP_FUSER))
		return pd2bw_error("--emit megatron-bridge: the plan holds "
				   "each GPU's expert rows to a HybridEP budget "
				   "(--moe-rank-capacity), which Bridge's "
				   "recipes run with Transformer Engine's op "
				   "fuser: plan with the runtime's op-fuser");
	/* Transformer Engine runs a learnable (or off-by-one) softmax under
	 * context parallelism only with the a2a exchange (pytorch/attention/
	 * dot_product_attention/utils.py:1147-1154 at TE d0067d0; so the
	 * GPT-OSS recipes, recipes/gpt_oss/h100/gpt_oss.py:194-195), not
	 * the p2p ring pd2bw priced */
	if (c > 1 && m->attn_sinks)
		return pd2bw_error("--emit megatron-bridge: model '%s' has "
				   "attention sinks (softmax_type learnable), "
				   "which Transformer Engine runs under context "
				   "parallelism only with cp_comm_type a2a, not "
				   "the p2p ring the plan priced: plan with "
				   "--context-parallel 1",
				   m->name ? m->name : "");
	if (e > 1 && m->moe.experts <= 0)
		return pd2bw_error("--emit megatron-bridge: the plan is "
				   "expert-parallel (%d) but model '%s' has "
				   "no experts",
				   e, m->name ? m->name : "");
	if (p->offload && (p->d > 1 || p->recompute != PROF_RC_NONE ||
			   sh->nblocks < 2))
		return pd2bw_error("--emit megatron-bridge: Megatron Core "
				   "offloads activations only without a "
				   "pipeline and without recomputation "
				   "(transformer_config.py:1891-1899)");
	if (emit_mcore_init(&mc, in, sh))
		return -1;

	fprintf(fp, "# Megatron-Bridge recipe overrides for the pd2bw plan "
		    "of ");
	emit_text(fp, p->model);
	fprintf(fp, " on %d x ", p->w * p->d * p->t);
	emit_text(fp, p->gpu);
	fprintf(fp,
		"\n# (schedule %s, width %d, depth %d, tensor %d, microbatch "
		"%d, accumulation %d).\n",
		plan_sched_names[p->sched], p->w, p->d, p->t, p->b, p->m);
	if (rec) {
		/* check.py reads the recipe from this line */
		fprintf(fp, "# Recipe: %s\n# (%s: its provider sets the "
			    "architecture, checked equal to the model's,\n# "
			    "left out here).  For %s:\n# that recipe's "
			    "--config-file THIS_FILE; the data (but its "
			    "sequence), tokenizer,\n# optimizer and schedule "
			    "sections stay the recipe's.\n# ",
			rec->recipe, rec->model, rec->versions);
	} else {
		fprintf(fp, "# For %s: the pretrain recipe's\n"
			    "# --config-file THIS_FILE; the data (but its "
			    "sequence), tokenizer, optimizer and\n"
			    "# schedule sections stay the recipe's.  ",
			BRIDGE_VERSIONS);
	}
	if (c > 1)
		fprintf(fp, "WORLD_SIZE = %d = %d x %d x %d x %d (tensor x "
			    "context x\n# pipeline x data).\n",
			p->w * p->d * p->t * c, p->t, c, p->d, p->w);
	else
		fprintf(fp, "WORLD_SIZE = %d = %d x %d x %d (tensor x "
			    "pipeline x data).\n",
			p->w * p->d * p->t, p->t, p->d, p->w);
	if (rec && rec->muon && p->optimizer == PLAN_MUON)
		fputs("# The recipe trains with Muon (dist_muon: each "
		      "data-parallel rank updates its\n# share of the layers "
		      "with Newton-Schulz steps, then all-gathers them), as\n"
		      "# pd2bw priced it.\n", fp);
	else if (rec && rec->note)
		fputs(rec->note, fp);

	fprintf(fp, "model:\n");
	kint(fp, "tensor_model_parallel_size", p->t);
	kint(fp, "pipeline_model_parallel_size", p->d);
	if (c > 1) {
		/* the K/V ring pd2bw priced (Transformer Engine's p2p,
		 * transformer_config.py:1030-1036) */
		kint(fp, "context_parallel_size", c);
		kstr(fp, "cp_comm_type", "p2p");
	}
	if (m->moe.experts > 0) {
		/* written even when 1: Bridge sets an unset expert tensor
		 * size to 1 under expert parallelism (models/
		 * transformer_config.py:80-88), Megatron Core to the tensor
		 * size (model_parallel_config.py:506-507) */
		int etp = p->etp > 0 ? p->etp : p->t;

		if (e > 1)
			fprintf(fp, "  # Expert parallelism: the routed "
				    "experts over %d of the data- and\n"
				    "  # context-parallel ranks, %s.\n", e,
				etp == 1 ? "whole experts"
					 : "split as tensor-parallel layers");
		kint(fp, "expert_model_parallel_size", e);
		kint(fp, "expert_tensor_parallel_size", etp);
	}
	kbool(fp, "sequence_parallel", p->sp);
	/* The layout carries the virtual stages; a VPP size given with it
	 * must equal the layout's. */
	if (p->v > 1)
		kint(fp, "virtual_pipeline_model_parallel_size", p->v);
	else
		fprintf(fp, "  virtual_pipeline_model_parallel_size: null\n");
	/* all three written, null when unset, so that a recipe's own
	 * (DeepSeek-V3's layout for its 16 stages, recipes/deepseek/h100/
	 * deepseek_v3.py:50-68) cannot remain: a layout excludes the
	 * others (transformer_config.py:2242-2258) */
	if (mc.use_layout)
		kstr(fp, "pipeline_model_parallel_layout", mc.layout);
	else
		knull(fp, "pipeline_model_parallel_layout");
	if (mc.first)
		kint(fp, "num_layers_in_first_pipeline_stage", mc.first);
	else
		knull(fp, "num_layers_in_first_pipeline_stage");
	if (mc.last)
		kint(fp, "num_layers_in_last_pipeline_stage", mc.last);
	else
		knull(fp, "num_layers_in_last_pipeline_stage");
	if (rec)
		recipe_keys(fp, in, rec, disp, backend);
	else
		arch_keys(fp, in, sh, disp, backend);
	if (p->offload) {
		/* every layer but the last (transformer_config.py:
		 * 1884-1889), activations only (model_parallel_config.py:
		 * 471-474, the defaults) */
		int n = p->offload_blocks > 0 ? p->offload_blocks
					       : sh->nblocks - 1;

		fprintf(fp, "  # Activations offloaded to host memory: the "
			    "first %d blocks'.\n", n);
		kbool(fp, "cpu_offloading", 1);
		kint(fp, "cpu_offloading_num_layers", n);
	}
	kbool(fp, "bf16", !strcmp(prec, "bf16") || !strcmp(prec, "fp8") ||
			      !strcmp(prec, "nvfp4"));
	kbool(fp, "fp16", !strcmp(prec, "fp16"));
	fprintf(fp, "  # Recomputation: the plan's is %s.\n",
		plan_rc_names[p->recompute]);
	if (mc.granularity == PROF_RC_FULL && !mc.uniform)
		fprintf(fp, "  # Full for the first %d layers of every model "
			    "chunk (selective counted as full).\n",
			mc.block_layers);
	emit_rc_note(fp, "  # ", in, &mc.rc);
	if (mc.granularity == PROF_RC_NONE) {
		fprintf(fp, "  recompute_granularity: null\n");
	} else if (mc.granularity == PROF_RC_SELECTIVE) {
		kstr(fp, "recompute_granularity", "selective");
		/* the modules the estimate recomputed, as Megatron-Core's
		 * list (transformer_config.py:560-562 at d98e8a6); absent,
		 * its default, the attention core (:1940-1941) */
		if (p->recompute_modules) {
			const char *s = p->recompute_modules;

			fprintf(fp, "  recompute_modules: [");
			while (*s) {
				size_t n = strcspn(s, ",");

				fprintf(fp, "\"%.*s\"%s", (int)n, s,
					s[n] ? ", " : "");
				s += n + (s[n] != 0);
			}
			fprintf(fp, "]\n");
		}
	} else {
		kstr(fp, "recompute_granularity", "full");
		kstr(fp, "recompute_method", mc.uniform ? "uniform" : "block");
		kint(fp, "recompute_num_layers",
		     mc.uniform ? 1 : mc.block_layers);
	}

	/* a graph takes Transformer Engine's RNG tracker, which the
	 * performance scripts switch on with it (scripts/performance/utils/
	 * overrides.py:102-124 at cfeddcd94; the config sets the rng
	 * section's alike, training/config.py:1415-1416 at 067f987) */
	if (graphs) {
		kstr(fp, "cuda_graph_impl", "full_iteration");
		kbool(fp, "use_te_rng_tracker", 1);
	} else if (emit_runtime_opt(p, RUNTIME_OPT_TE_GRAPHS)) {
		/* the partial graphs of the eager MoE presets, by the
		 * scope name the recipes use (Megatron-Core migrates it to
		 * cuda_graph_modules) */
		kstr(fp, "cuda_graph_impl", "transformer_engine");
		fprintf(fp, "  cuda_graph_scope: [\"attn\", \"moe_router\", "
			    "\"moe_preprocess\"]\n");
		kbool(fp, "use_te_rng_tracker", 1);
	}
	if (emit_runtime_opt(p, RUNTIME_OPT_OP_FUSER))
		kbool(fp, "use_transformer_engine_op_fuser", 1);
	/* the output layer in MXFP8 (transformer_config.py:635) */
	if (emit_runtime_opt(p, RUNTIME_OPT_FP8_OUTPUT_PROJ))
		kbool(fp, "fp8_output_proj", 1);
	if (p->moe_rank_capacity > 0)
		kfloat(fp, "moe_expert_rank_capacity_factor",
		       p->moe_rank_capacity);
	/* the paged stash as priced; its buffer factor Megatron-Core's
	 * default, where Bridge's recipes set their own (perf_recipes/
	 * gpt_oss/common.py:37-39 at 067f987) */
	if (emit_runtime_opt(p, RUNTIME_OPT_PAGED_STASH))
		kbool(fp, "moe_paged_stash", 1);
	bridge_overlap_note(fp, p);
	fprintf(fp, "train:\n");
	kint(fp, "micro_batch_size", p->b);
	kint(fp, "global_batch_size", p->global_batch);
	/* the dataset's sequence, which Bridge asserts the model's equals
	 * (training/config.py:1642-1647 at 067f987, 1348-1359 at v0.2.0):
	 * seq_length from v0.6 (GPTDatasetConfig, config.py:231 at
	 * 067f987; its finalize() copies it to sequence_length, :304),
	 * Megatron-Core's sequence_length before; a version skips the key
	 * it does not have with a warning (_apply_overrides, utils/
	 * omegaconf_utils.py:470-474 at 067f987, 385-388 at v0.2.0) */
	if (in->prof->seq_len > 0) {
		fprintf(fp, "dataset:\n");
		kint(fp, "seq_length", in->prof->seq_len);
		kint(fp, "sequence_length", in->prof->seq_len);
	}
	fprintf(fp, "ddp:\n");
	/* dist_muon shards without the distributed optimizer (recipes/
	 * kimi/kimi_k2.py:199 at 63b08b397, "Muon needs this to be
	 * False") */
	kbool(fp, "use_distributed_optimizer",
	      p->zero && p->optimizer != PLAN_MUON);
	if (p->zero > 1) {
		/* Megatron-FSDP (v1: the distributed optimizer too, config.
		 * py:1080-1085); HSDP over the optimizer instances, the
		 * outer group replicated, as --emit megatron writes it */
		int inst = emit_mfsdp_note(fp, "  # ", p);

		kbool(fp, "use_megatron_fsdp", 1);
		kstr(fp, "data_parallel_sharding_strategy",
		     p->zero == 2 ? "optim_grads" : "optim_grads_params");
		if (inst > 1)
			kint(fp, "num_distributed_optimizer_instances", inst);
	}
	fprintf(fp, "optimizer:\n");
	kbool(fp, "use_distributed_optimizer",
	      p->zero && p->optimizer != PLAN_MUON);
	if (p->optimizer == PLAN_MUON) {
		/* the recipe's own (recipes/utils/optimizer_utils.py:79 at
		 * 63b08b397), and the tensor-parallel mode pd2bw priced:
		 * each momentum gathered whole (Megatron's default; the
		 * recipe's blockwise, :27, iterates on the shards) */
		kstr(fp, "optimizer", "dist_muon");
		kstr(fp, "muon_tp_mode", "duplicated");
	}
	if (p->zero > 1) {
		/* saving or loading under Megatron-FSDP asserts this format
		 * (config.py:1105-1109) */
		fprintf(fp, "checkpoint:\n");
		kstr(fp, "ckpt_format", "fsdp_dtensor");
	}
	/* Megatron-Bridge takes a per-module config as a Python object
	 * (model.quant_recipe, a RecipeConfig: perf_recipes/nemotronh/
	 * gb300/nemotronh.py:199 at 067f987), which no override names */
	if (p->module_precision) {
		emit_mcore_release(&mc);
		return pd2bw_error("--emit megatron-bridge: the plan sets the "
				   "precision module by module (%s), which "
				   "Megatron-Bridge takes as a Python "
				   "RecipeConfig (model.quant_recipe), not an "
				   "override; emit megatron",
				   p->module_precision);
	}
	mp = bridge_preset(in, prec, &gathers);
	/* the blocks the preset keeps in bf16: the current-scaling one the
	 * first and the last (mixed_precision.py:296-303 at 067f987), the
	 * others none */
	{
		int keep = mp && !strcmp(mp, "bf16_with_fp8_current_scaling_mixed");

		if (p->bf16_first != keep || p->bf16_last != keep) {
			emit_mcore_release(&mc);
			return pd2bw_error("--emit megatron-bridge: its %s preset "
					   "keeps %s in bf16, the plan %d and "
					   "%d blocks: plan with %s",
					   mp ? mp : "(none)",
					   keep ? "the first and the last block"
						: "no block",
					   p->bf16_first, p->bf16_last,
					   keep ? "--bf16-layers 1"
						: "no --bf16-layers");
		}
	}
	if (gathers && !emit_fp8_params(in)) {
		int f4 = !strcmp(prec, "nvfp4");

		emit_mcore_release(&mc);
		return pd2bw_error("--emit megatron-bridge: its %s preset keeps "
				   "%s parameters (%s_param_gather), which "
				   "the plan does not: plan with optimizer "
				   "sharding and megatron-core's "
				   "fp8-param-gather",
				   mp, f4 ? "NVFP4" : "FP8", f4 ? "fp4" : "fp8");
	}
	/* every preset reduces the gradients in fp32 (MixedPrecisionConfig's
	 * grad_reduce_in_fp32, mixed_precision.py:47, applied to the ddp
	 * section too); the performance recipes turn it off in Python
	 * (perf_recipes/_common.py:73-74), which an override cannot */
	if (strcmp(prec, "fp16") && strcmp(prec, "fp32") &&
	    !emit_grad_reduce_fp32(in))
		fprintf(fp, "# pd2bw priced the gradients reduced in bf16 "
			    "(no-grad-reduce-fp32); the preset\n# reduces "
			    "them in fp32 unless the recipe sets "
			    "mixed_precision.grad_reduce_in_fp32\n# = False, "
			    "as Megatron-Bridge's performance recipes do.\n");
	if (!strcmp(prec, "fp8") && p->bf16_first + p->bf16_last > 0)
		fprintf(fp, "# FP8 GEMMs, %s scaling; the preset keeps the "
			    "first and the last block in\n# bf16, as "
			    "priced.\n",
			model_fp8_names[in->o ? in->o->fp8_recipe
					      : FP8_DELAYED]);
	else if (!strcmp(prec, "fp8"))
		fprintf(fp, "# FP8 GEMMs, %s scaling.\n",
			model_fp8_names[in->o ? in->o->fp8_recipe
					      : FP8_DELAYED]);
	if (!strcmp(prec, "nvfp4"))
		fprintf(fp, "# NVFP4 GEMMs (Transformer Engine's "
			    "NVFP4BlockScaling).\n");
	/* a recipe's CommOverlapConfig may switch Transformer Engine's TP
	 * overlap on (training/comm_overlap.py:442-451 at 067f987 checks
	 * only TP, sequence parallelism and TE), where Megatron-Core's
	 * default overlap cannot act for this plan (cost_tp_hidden(): its
	 * userbuffers raise on NVFP4) */
	runtime_init(&dflt, RUNTIME_MEGATRON_CORE);
	if (p->t > 1 && p->sp && !emit_tp_overlap(in, &dflt))
		fprintf(fp, "# pd2bw priced the tensor-parallel traffic "
			    "without Transformer Engine's overlap,\n# whose "
			    "userbuffers carry no NVFP4: the recipe must "
			    "keep\n# comm_overlap.tp_comm_overlap = False, as "
			    "Megatron-Bridge's NVFP4 performance\n# configs "
			    "do.\n");
	if (graphs) {
		/* the config refuses the graph with the loss's NaN check
		 * on (training/config.py:1508-1513) */
		fprintf(fp, "rerun_state_machine:\n");
		kbool(fp, "check_for_nan_in_loss", 0);
	}
	if (mp)
		fprintf(fp, "mixed_precision: \"%s\"\n", mp);
	else
		fprintf(fp, "mixed_precision: null\n");
	emit_mcore_release(&mc);
	return 0;
}
