/*
 * bridge.c - --emit megatron-bridge: the plan as a Megatron-Bridge (NeMo)
 * recipe override, a YAML file whose sections match the ConfigContainer
 * (model, train, ddp, optimizer), as the recipes' --config-file takes it.
 * The model section holds Megatron Core TransformerConfig / GPT provider
 * fields, so the partition and recomputation are Megatron Core's (see
 * mcore.c).  Checked against Megatron-Bridge v0.1 to v0.2 (main 067f987).
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

int
emit_bridge(FILE *fp, const struct emit_in *in, const struct emit_shape *sh)
{
	const struct plan *p = in->p;
	const struct model *m = in->model;
	const char *prec = in->prof->precision ? in->prof->precision : "fp32";
	struct emit_mcore mc;
	int c = p->c > 1 ? p->c : 1;

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
