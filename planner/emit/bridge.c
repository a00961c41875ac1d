/*
 * bridge.c - --emit megatron-bridge: the plan as a Megatron-Bridge (NeMo)
 * recipe override, a YAML file whose sections match the ConfigContainer
 * (model, train, ddp, optimizer), as the recipes' --config-file takes it.
 * The model section holds Megatron Core TransformerConfig / GPT provider
 * fields, so the partition and recomputation are Megatron Core's (see
 * mcore.c).  Expert parallelism and the parts of pd2bw-model/2 that
 * TransformerConfig has fields for (experts, head_dim, QK-norm, ...) are
 * written; the others (MLA, sliding windows, ...) refused.  Checked
 * against Megatron-Bridge v0.1 to v0.2 (main 067f987).
 */
#include <stdio.h>
#include <string.h>

#include "emit/emit.h"
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
 * The first part of pd2bw-model/2 model m that a Megatron-Bridge override
 * cannot set as planned, as a phrase for a message, or NULL; *why gets
 * the upstream reason ("" when it is Megatron Core's).  Upstream:
 * NVIDIA-NeMo/Megatron-Bridge 067f987 and the Megatron-LM it pins
 * (2a75ac1; its TransformerConfig has the fields of d98e8a6 that
 * tests/emit/upstream.py cites).
 */
static const char *
v2_refused(const struct model *m, const char **why)
{
	const char *lacks = emit_mcore_v2_lacks(m);

	*why = "";
	if (lacks)
		return lacks;
	/* q_lora_rank, kv_lora_rank, ... are fields of MLAModelProvider
	 * only (models/mla_provider.py:28-33); an override of a GPT
	 * recipe skips a key its provider lacks with a warning
	 * (training/utils/omegaconf_utils.py:470-474) */
	if (m->attention == MODEL_MLA) {
		*why = " (only an MLA provider has its fields, another "
		       "recipe skips them: omegaconf_utils.py:470-474)";
		return "multi-latent attention";
	}
	/* NEEDSWORK: window_size is a (left, right) tuple
	 * (transformer_config.py:247) that an override sets as the YAML
	 * list, unconverted (omegaconf_utils.py:515); unchecked that
	 * Megatron Core runs a list as the tuple */
	if (m->window > 0) {
		*why = " (window_size is a tuple, transformer_config.py:247, "
		       "that an override sets as a list, omegaconf_utils.py:"
		       "515)";
		return "sliding-window attention";
	}
	return NULL;
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
static void
v2_keys(FILE *fp, const struct model *m)
{
	const struct model_moe *e = &m->moe;
	struct emit_moe_int f[4];
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
	if (e->router_bias)
		fprintf(fp, "  # The router's bias (%lld per MoE layer) has no "
			    "TransformerConfig field.\n",
			(long long)e->experts);
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
	/* what pd2bw priced, as --emit megatron writes it: one grouped GEMM
	 * over the experts, the all-to-all dispatcher */
	kbool(fp, "moe_grouped_gemm", 1);
	kstr(fp, "moe_token_dispatcher_type", "alltoall");
}

int
emit_bridge(FILE *fp, const struct emit_in *in, const struct emit_shape *sh)
{
	const struct plan *p = in->p;
	const struct model *m = in->model;
	const char *prec = in->prof->precision ? in->prof->precision : "fp32";
	struct emit_mcore mc;
	const char *part, *why;
	int c = p->c > 1 ? p->c : 1, e = p->e > 1 ? p->e : 1;

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
	if (model_is_v2(m) && (part = v2_refused(m, &why)))
		return pd2bw_error("--emit megatron-bridge: model '%s' has %s, "
				   "which a Megatron-Bridge override does not "
				   "express%s",
				   m->name ? m->name : "", part, why);
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
		"%d, accumulation %d).\n"
		"# For %s: the pretrain recipe's\n"
		"# --config-file THIS_FILE; the data, tokenizer, optimizer "
		"and schedule sections\n"
		"# stay the recipe's.  ",
		plan_sched_names[p->sched], p->w, p->d, p->t, p->b, p->m,
		BRIDGE_VERSIONS);
	if (c > 1)
		fprintf(fp, "WORLD_SIZE = %d = %d x %d x %d x %d (tensor x "
			    "context x\n# pipeline x data).\n",
			p->w * p->d * p->t * c, p->t, c, p->d, p->w);
	else
		fprintf(fp, "WORLD_SIZE = %d = %d x %d x %d (tensor x "
			    "pipeline x data).\n",
			p->w * p->d * p->t, p->t, p->d, p->w);

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
	if (mc.use_layout)
		kstr(fp, "pipeline_model_parallel_layout", mc.layout);
	if (mc.first)
		kint(fp, "num_layers_in_first_pipeline_stage", mc.first);
	if (mc.last)
		kint(fp, "num_layers_in_last_pipeline_stage", mc.last);
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
	     m->positions == MODEL_ROTARY ? "rope" : "learned_absolute");
	if (m->positions == MODEL_ROTARY)
		kint(fp, "rotary_base", (long long)m->rope_base);
	if (!m->dropout) {
		fprintf(fp, "  hidden_dropout: 0.0\n");
		fprintf(fp, "  attention_dropout: 0.0\n");
	}
	if (model_is_v2(m))
		v2_keys(fp, m);
	if (p->offload) {
		/* every layer but the last (transformer_config.py:
		 * 1884-1889), activations only (model_parallel_config.py:
		 * 471-474, the defaults) */
		fprintf(fp, "  # Activations offloaded to host memory, every "
			    "layer but the last.\n");
		kbool(fp, "cpu_offloading", 1);
		kint(fp, "cpu_offloading_num_layers", sh->nblocks - 1);
	}
	kbool(fp, "bf16", !strcmp(prec, "bf16") || !strcmp(prec, "fp8"));
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
	} else {
		kstr(fp, "recompute_granularity", "full");
		kstr(fp, "recompute_method", mc.uniform ? "uniform" : "block");
		kint(fp, "recompute_num_layers",
		     mc.uniform ? 1 : mc.block_layers);
	}

	fprintf(fp, "train:\n");
	kint(fp, "micro_batch_size", p->b);
	kint(fp, "global_batch_size", p->global_batch);
	fprintf(fp, "ddp:\n");
	kbool(fp, "use_distributed_optimizer", p->zero);
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
	kbool(fp, "use_distributed_optimizer", p->zero);
	if (p->zero > 1) {
		/* saving or loading under Megatron-FSDP asserts this format
		 * (config.py:1105-1109) */
		fprintf(fp, "checkpoint:\n");
		kstr(fp, "ckpt_format", "fsdp_dtensor");
	}
	if (!strcmp(prec, "fp8")) {
		/* the registered presets of src/megatron/bridge/training/
		 * mixed_precision.py (lines 217, 285, 373, 255) */
		static const char *const preset[] = {
			"bf16_with_fp8_delayed_scaling_mixed",
			"bf16_with_fp8_current_scaling_mixed",
			"bf16_with_fp8_subchannel_scaling_mixed",
			"bf16_with_mxfp8_mixed",
		};
		int r = in->o ? in->o->fp8_recipe : FP8_DELAYED;

		/* every preset but subchannel (blockwise) sets
		 * fp8_param_gather (mixed_precision.py:231, 264, 302, 384),
		 * which needs the distributed optimizer */
		if (r != FP8_BLOCKWISE && !emit_fp8_params(in)) {
			emit_mcore_release(&mc);
			return pd2bw_error("--emit megatron-bridge: its %s "
					   "preset keeps FP8 parameters "
					   "(fp8_param_gather), which the plan "
					   "does not: plan with optimizer "
					   "sharding and megatron-core's "
					   "fp8-param-gather",
					   preset[r]);
		}
		fprintf(fp, "# FP8 GEMMs, %s scaling; the current-scaling and "
			    "subchannel presets keep the\n# first and last "
			    "layers in bf16, which pd2bw priced in FP8.\n",
			model_fp8_names[r]);
		fprintf(fp, "mixed_precision: \"%s\"\n", preset[r]);
	}
	emit_mcore_release(&mc);
	return 0;
}
