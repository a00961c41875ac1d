/*
 * megatron.c - --emit megatron: the plan as Megatron-LM command line
 * arguments, a POSIX shell fragment of "set -- "$@" ..." lines with the
 * reasons in comments, to be sourced before running pretrain_gpt.py (or
 * examples/bert/pretrain_bert.py) "$@".  Flag names as in Megatron-LM's
 * megatron/training/arguments.py and the TransformerConfig fields it turns
 * into flags; checked against Megatron-LM core_v0.12 to core_v0.15 (the
 * pipeline layout needs Megatron Core 0.13 or newer).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/emit.h"
#include "pd2bw/analytic.h"
#include "pd2bw/error.h"

#define MEGATRON_VERSIONS "Megatron-LM core_v0.13.0 to core_v0.15 (main " \
			  "d98e8a6)"

/* One "set -- "$@" a b ..." line of words (NULL-terminated). */
static void
args(FILE *fp, const char *const *w)
{
	fputs("set -- \"$@\"", fp);
	for (; *w; w++) {
		fputc(' ', fp);
		emit_sh_word(fp, *w);
	}
	fputc('\n', fp);
}

/* "set -- "$@" FLAG N". */
static void
arg_int(FILE *fp, const char *flag, long long n)
{
	char v[32];
	const char *w[] = {flag, v, NULL};

	snprintf(v, sizeof(v), "%lld", n);
	args(fp, w);
}

static void
arg1(FILE *fp, const char *flag)
{
	const char *w[] = {flag, NULL};

	args(fp, w);
}

static void
arg_str(FILE *fp, const char *flag, const char *s)
{
	const char *w[] = {flag, s, NULL};

	args(fp, w);
}

/*
 * A plan's precision module by module (module_precision) as Megatron-
 * Core's per-module config, the YAML --te-precision-config-file reads
 * (megatron/core/quantization/quant_config.py RecipeConfig, matchers in
 * order, the first enabled glob to match a module's path wins, fnmatch;
 * extensions/transformer_engine.py TEQuantizationParams, 212-260, each
 * config a training_recipe of fp8_quantization_recipe or
 * fp4_quantization_recipe, {} for 16 bits; at d98e8a6), on the module
 * names Megatron-Core gives them (attention.py:413, 1692, multi_latent_
 * attention.py:510-604, mlp.py:219-240, moe/experts.py:217-236,
 * moe/moe_layer.py:279-346, ssm/mamba_mixer.py:281, 437, gpt_model.py:
 * 245).  The file is written where the arguments are sourced, under
 * $TMPDIR, one per shell.
 */
static const char *
te_config_name(int mp)
{
	return mp == ANALYTIC_MP_16	 ? "bf16"
	       : mp == ANALYTIC_MP_NVFP4 ? "nvfp4"
					 : model_fp8_names[mp - ANALYTIC_MP_FP8];
}

static int
te_precision_args(FILE *fp, const struct plan *p)
{
	static const char *const pat[ANALYTIC_SITES][3] = {
		{"*.self_attention.linear_q*", "*.self_attention.linear_kv*",
		 NULL},
		{"*.self_attention.linear_proj", NULL, NULL},
		{"*.mlp.linear_fc1", NULL, NULL},
		{"*.mlp.linear_fc2", NULL, NULL},
		{"*.mlp.experts.linear_fc1", "*.mlp.experts.linear_fc2", NULL},
		{"*.mlp.shared_experts.linear_fc1",
		 "*.mlp.shared_experts.linear_fc2", NULL},
		{"*.mlp.fc1_latent_proj", "*.mlp.fc2_latent_proj", NULL},
		{"*.mixer.in_proj", NULL, NULL},
		{"*.mixer.out_proj", NULL, NULL},
		{"mtp.*", NULL, NULL},
	};
	unsigned char sp[ANALYTIC_SITES];
	char err[200], name[32], hash[17], *y = NULL;
	size_t ylen = 0;
	int used[256] = {0}, i, j, k;
	FILE *yf;

	if (!p->module_precision)
		return 0;
	if (analytic_site_prec_parse(p->module_precision, sp, err,
				     sizeof(err)))
		return pd2bw_error("--emit megatron: the plan's "
				   "module_precision: %s", err);
	yf = open_memstream(&y, &ylen);
	if (!yf)
		return pd2bw_error("--emit megatron: out of memory");
	fputs("configs:\n", yf);
	for (i = 0; i < ANALYTIC_SITES; i++)
		used[sp[i]] = 1;
	for (k = 1; k < 256; k++) {
		if (!used[k])
			continue;
		fprintf(yf, "  %s:\n    transformer_engine_config_type: "
			    "\"TEQuantizationParams\"\n    training_recipe:",
			te_config_name(k));
		if (k == ANALYTIC_MP_16)
			fputs(" {}\n", yf);
		else if (k == ANALYTIC_MP_NVFP4)
			fputs("\n      fp4_quantization_recipe: \"nvfp4\"\n", yf);
		else
			fprintf(yf, "\n      fp8_quantization_recipe: \"%s\"\n",
				model_fp8_names[k - ANALYTIC_MP_FP8]);
	}
	fputs("matchers:\n", yf);
	/* the MTP modules first: their blocks' linears match the other
	 * patterns too */
	for (j = 0; j < ANALYTIC_SITES; j++) {
		i = j ? j - 1 : ANALYTIC_SITE_MTP;
		if (!sp[i])
			continue;
		for (k = 0; k < 3 && pat[i][k]; k++) {
			snprintf(name, sizeof(name), "%s_%d",
				 analytic_site_names[i], k);
			fprintf(yf, "  %s:\n    config: \"%s\"\n    type: "
				    "\"glob\"\n    pattern: \"%s\"\n    "
				    "enabled: true\n",
				name, te_config_name(sp[i]), pat[i][k]);
		}
	}
	fclose(yf);
	/* named by its content: the same config, the same file */
	plan_hash_bytes(y, ylen, hash);
	fprintf(fp, "# Precision module by module, as priced (%s):\n"
		    "# Megatron-Core's per-module config "
		    "(--te-precision-config-file), written\n"
		    "# where this file is sourced: the current directory "
		    "(shared by the nodes\n"
		    "# on a cluster), or $PD2BW_TE_PRECISION.\n",
		p->module_precision);
	fprintf(fp, "PD2BW_TE_PRECISION=\"${PD2BW_TE_PRECISION:-$PWD/"
		    "pd2bw-te-precision.%.8s.yaml}\"\n",
		hash);
	fprintf(fp, "cat > \"$PD2BW_TE_PRECISION\" <<'PD2BW_EOF'\n%s"
		    "PD2BW_EOF\n",
		y);
	free(y);
	fputs("set -- \"$@\" --te-precision-config-file "
	      "\"$PD2BW_TE_PRECISION\"\n",
	      fp);
	return 0;
}

/*
 * The parts of pd2bw-model/2 as Megatron-LM's flags (NVIDIA/Megatron-LM
 * d98e8a6: TransformerConfig fields become --field-name, arguments.py
 * :2373; tests/emit/upstream.py cites each).  Returns -1 after a message
 * for a part Megatron-LM's command line cannot express.
 */
static int
v2_args(FILE *fp, const struct plan *p, const struct model *m,
	const char *disp, const char *backend)
{
	const struct model_moe *e = &m->moe;
	char buf[64];
	const char *lacks = emit_mcore_v2_lacks(m);
	int i, run, n;

	if (lacks)
		return pd2bw_error("--emit megatron: model '%s' has %s, which "
				   "Megatron-LM's command line does not "
				   "express",
				   m->name ? m->name : "", lacks);
	fprintf(fp, "# pd2bw-model/2 parts.\n");
	if (m->doc_len > 0) {
		/* cu_seqlens at the data's end-of-document tokens, attention
		 * within each document (arguments.py:3326-3329 at
		 * d98e8a6; pretrain_gpt.py:119) */
		fprintf(fp, "# Sequences pack documents (%lld tokens each as "
			    "planned); attention within each.\n",
			(long long)m->doc_len);
		arg1(fp, "--dataloader-inter-document-masking");
	}
	if (m->head_dim && m->head_dim * m->heads != m->hidden)
		arg_int(fp, "--kv-channels", m->head_dim);
	if (m->activation == MODEL_SQRELU)
		arg1(fp, "--squared-relu");
	if (m->qkv_bias)
		arg1(fp, "--add-qkv-bias");
	if (m->qk_norm)
		arg1(fp, "--qk-layernorm");
	if (m->attn_sinks)
		arg_str(fp, "--softmax-type", "learnable");
	if (m->act_clamp > 0) {
		snprintf(buf, sizeof(buf), "%g", m->act_clamp);
		arg_str(fp, "--activation-func-clamp-value", buf);
	}
	if (m->window > 0) {
		/* TE's (left, right): the query and w - 1 before it, as
		 * Megatron-Bridge's Gemma 2 bridge converts sliding_window */
		snprintf(buf, sizeof(buf), "(%lld,0)",
			 (long long)m->window - 1);
		arg_str(fp, "--window-size", buf);
		if (m->global_every > 0)
			arg_int(fp, "--window-attn-skip-freq", m->global_every);
	}
	if (m->attention == MODEL_MLA) {
		arg1(fp, "--multi-latent-attention");
		if (m->mla.q_rank > 0)
			arg_int(fp, "--q-lora-rank", m->mla.q_rank);
		arg_int(fp, "--kv-lora-rank", m->mla.kv_rank);
		arg_int(fp, "--qk-head-dim", m->mla.nope_dim);
		arg_int(fp, "--qk-pos-emb-head-dim", m->mla.rope_dim);
		arg_int(fp, "--v-head-dim", m->mla.v_dim);
	}
	if (e->experts > 0) {
		struct emit_moe_int f[EMIT_MOE_INTS];

		n = emit_mcore_moe_ints(m, f);
		for (i = 0; i < n; i++)
			if (f[i].v)
				arg_int(fp, f[i].flag, f[i].v);
		if (e->shared_gate)
			arg1(fp, "--moe-shared-expert-gate");
		/* the router of DeepSeek-V3, Kimi K2 and Nemotron-H:
		 * sigmoid scores and the score-correction bias of aux-
		 * loss-free balancing (the model's router_bias; an expert
		 * bias needs sigmoid scores, transformer_config.py:2617-
		 * 2623 at d98e8a6); GPT-OSS's linear router bias is the
		 * model's bias, which Megatron's router lacks */
		if (e->router_bias) {
			arg_str(fp, "--moe-router-score-function", "sigmoid");
			arg1(fp, "--moe-router-enable-expert-bias");
		}
		/* the routing weights' scale (transformer_config.py:804) */
		if (e->scale > 0) {
			snprintf(buf, sizeof(buf), "%g", e->scale);
			arg_str(fp, "--moe-router-topk-scaling-factor", buf);
		}
		/* which layers are MoE, as a run-length list expression */
		if (e->first_dense > 0 || e->every > 1) {
			size_t len = 0;
			char pat[256];

			pat[0] = 0;
			for (i = 0; i < m->layers; i += run) {
				int moe = model_layer_is_moe(m, i);

				for (run = 1; i + run < m->layers &&
					      model_layer_is_moe(m, i + run) ==
						      moe;
				     run++)
					;
				n = snprintf(pat + len, sizeof(pat) - len,
					     "%s[%d]*%d", len ? "+" : "", moe,
					     run);
				if (n < 0 || (size_t)n >= sizeof(pat) - len)
					return pd2bw_error("--emit megatron: "
							   "MoE layer pattern "
							   "too long");
				len += (size_t)n;
			}
			arg_str(fp, "--moe-layer-freq", pat);
		}
		/* a capacity as priced: every expert padded to it, E x C
		 * rows a rank (without the padding Megatron drops the
		 * overflow and pads nothing, transformer_config.py:917-
		 * 925 at d98e8a6) */
		if (e->capacity_factor > 0) {
			snprintf(buf, sizeof(buf), "%g", e->capacity_factor);
			arg_str(fp, "--moe-expert-capacity-factor", buf);
			arg1(fp, "--moe-pad-expert-input-to-capacity");
		}
		/* what pd2bw priced: one grouped GEMM over the experts, the
		 * permutations fused (one kernel each way, as the recipes
		 * set it; Megatron-Core's default is the unfused PyTorch
		 * ops, transformer_config.py:941 at d98e8a6), the router
		 * fused, the plan's dispatcher */
		arg1(fp, "--moe-grouped-gemm");
		arg1(fp, "--moe-permute-fusion");
		/* the router's scores, top-k and aux loss as the one kernel
		 * priced (transformer_config.py:944, off by default;
		 * router.py:384, 438, 490) */
		arg1(fp, "--moe-router-fusion");
		arg_str(fp, "--moe-token-dispatcher-type", disp);
		if (backend)
			arg_str(fp, "--moe-flex-dispatcher-backend", backend);
		/* HybridEP's per-rank budget as priced: static buffers of
		 * that multiple of the rank's share, which HybridEP fills
		 * through the op fuser's or the grouped tensors' expert
		 * layers (transformer_config.py:1019-1024, 1868-1883 at
		 * d98e8a6) */
		if (p->moe_rank_capacity > 0) {
			snprintf(buf, sizeof(buf), "%g", p->moe_rank_capacity);
			arg_str(fp, "--moe-expert-rank-capacity-factor", buf);
			if (!emit_runtime_opt(p, RUNTIME_OPT_OP_FUSER))
				arg1(fp, "--moe-use-grouped-tensor");
		}
		/* the paged stash as priced, at Megatron-Core's default
		 * buffer factor (transformer_config.py:1364-1374) */
		if (emit_runtime_opt(p, RUNTIME_OPT_PAGED_STASH))
			arg1(fp, "--moe-paged-stash");
	}
	/* LatentMoE's width (transformer_config.py:952 at d98e8a6) */
	if (e->experts > 0 && e->latent > 0)
		arg_int(fp, "--moe-latent-size", e->latent);
	if (m->mtp_layers > 0)
		arg_int(fp, "--mtp-num-layers", m->mtp_layers);
	/* one module run at every depth (transformer_config.py:82) */
	if (m->mtp_layers > 0 && m->mtp_shared)
		arg1(fp, "--mtp-use-repeated-layer");
	if (model_is_hybrid(m)) {
		/* pretrain_hybrid.py builds the layers of its spec
		 * (hybrid_builders.py:22-25; megatron/core/models/hybrid/
		 * hybrid_layer_specs.py:107 at d98e8a6) and the Mamba sizes
		 * of TransformerConfig (transformer_config.py:1259-1268);
		 * the pattern with the partition below */
		const char *spec[] = {"--spec",
				      "megatron.core.models.hybrid."
				      "hybrid_layer_specs",
				      "hybrid_stack_spec", NULL};

		fprintf(fp, "# A hybrid model: Megatron Core's hybrid layer "
			    "spec, the Mamba-2 mixers' sizes.\n");
		args(fp, spec);
		arg_int(fp, "--mamba-num-heads", m->mamba.heads);
		arg_int(fp, "--mamba-head-dim", m->mamba.head_dim);
		arg_int(fp, "--mamba-state-dim", m->mamba.state);
		arg_int(fp, "--mamba-num-groups", m->mamba.groups);
	}
	return 0;
}

/*
 * A hybrid model's --hybrid-layer-pattern: its pattern cut at the plan's
 * stages, and under interleaving at its chunks in model order (segment i
 * the chunk i / d of stage i % d), by '|' (arguments.py:787-858 at
 * d98e8a6: the segments are the pipeline layout, their number a multiple
 * of the pipeline size, the virtual stages their quotient); then each
 * multi-token-prediction depth's module after a '/' (the unified
 * pattern, arguments.py:757-785, 864-874: the depths' patterns alike,
 * their count mtp_num_layers; hybrid_layer_allocation.py:225-276).
 */
static void
hybrid_pattern_arg(FILE *fp, const struct model *m,
		   const struct emit_shape *sh, const struct plan *p)
{
	int n = p->v > 1 ? sh->nchunks : p->d, i, at = 0, len;
	const int *per = p->v > 1 ? sh->chunk_blocks : sh->blocks;
	size_t k = strlen(m->mtp_pattern);
	char *pat = xmalloc((size_t)m->layers + (size_t)n + 1 +
			    (size_t)m->mtp_layers * (k + 1));

	for (i = 0, len = 0; i < n; i++) {
		if (i)
			pat[len++] = '|';
		memcpy(pat + len, m->pattern + at, (size_t)per[i]);
		len += per[i];
		at += per[i];
	}
	for (i = 0; k && i < m->mtp_layers; i++) {
		pat[len++] = '/';
		memcpy(pat + len, m->mtp_pattern, k);
		len += (int)k;
	}
	pat[len] = 0;
	fprintf(fp, "# The hybrid layer pattern (M Mamba, * attention, - MLP, "
		    "E experts), '|' between\n# %s%s; no other partition or "
		    "VPP flag with it.\n",
		p->v > 1 ? "the chunks, segment i the chunk i / d of stage "
			   "i % d"
			 : "stages",
		k && m->mtp_layers ? ", '/' before each multi-token-"
				     "prediction depth"
				   : "");
	arg_str(fp, "--hybrid-layer-pattern", pat);
	free(pat);
}

/*
 * The fused chains the plan priced (its fusions, all unless it says):
 * Megatron-LM fuses bias-activation, bias-dropout-add and rope unless
 * told not to (arguments.py:2892-2904 at d98e8a6, store_false), but not
 * the cross-entropy (model_parallel_config.py:320, its native kernel
 * :325); its RMSNorm is Transformer Engine's fused one, whatever the
 * plan says.
 */
static void
fusion_args(FILE *fp, const struct emit_in *in)
{
	const struct model *m = in->model;
	unsigned f = emit_plan_fusions(in->p);

	fprintf(fp, "\n# Fused kernels as priced (%s).\n",
		in->p->fusions ? in->p->fusions : "all");
	if (!(f & ANALYTIC_FUSE_ACT) && m && m->activation == MODEL_SWIGLU)
		arg1(fp, "--no-bias-swiglu-fusion");
	if (!(f & ANALYTIC_FUSE_ACT) && m && m->activation == MODEL_GELU)
		arg1(fp, "--no-bias-gelu-fusion");
	if (!(f & ANALYTIC_FUSE_DROPADD))
		arg1(fp, "--no-bias-dropout-fusion");
	if (!(f & ANALYTIC_FUSE_ROPE) && m && m->positions == MODEL_ROTARY)
		arg1(fp, "--no-rope-fusion");
	if (f & ANALYTIC_FUSE_XENT)
		arg1(fp, "--cross-entropy-loss-fusion");
}

static int
model_args(FILE *fp, const struct emit_in *in, const struct emit_shape *sh)
{
	const struct model *m = in->model;
	const struct profile *prof = in->prof;

	fprintf(fp, "\n# Model shape and architecture from the %s.\n",
		m ? "model" : "profile");
	arg_int(fp, "--num-layers", sh->nblocks);
	if (m) {
		char base[32];

		arg_int(fp, "--hidden-size", m->hidden);
		arg_int(fp, "--num-attention-heads", m->heads);
		/* Megatron's default FFN differs (4h, or 8h/3 rounded to
		 * 64 with --swiglu): always give the model's. */
		arg_int(fp, "--ffn-hidden-size", m->ffn_hidden);
		if (m->kv_heads > 0 && m->kv_heads != m->heads) {
			arg1(fp, "--group-query-attention");
			arg_int(fp, "--num-query-groups", m->kv_heads);
		}
		arg_int(fp, "--seq-length", prof->seq_len > 0 ? prof->seq_len
							      : m->seq_len);
		arg_int(fp, "--max-position-embeddings",
			m->seq_len > prof->seq_len ? m->seq_len
						   : prof->seq_len);
		if (m->activation == MODEL_SWIGLU)
			arg1(fp, "--swiglu");
		arg_str(fp, "--normalization",
			m->norm == MODEL_RMSNORM ? "RMSNorm" : "LayerNorm");
		if (m->positions == MODEL_ROTARY) {
			/* YaRN outside MLA is a type of its own
			 * (arguments.py:2397-2399 at d98e8a6), which
			 * Megatron runs without the rope fusion pd2bw
			 * then prices (runtime.rope_plain); its scaling
			 * factor is not in the model file: Megatron's
			 * default, 1 */
			arg_str(fp, "--position-embedding-type",
				model_yarn_positions(m) ? "yarn" : "rope");
			snprintf(base, sizeof(base), "%.0f", m->rope_base);
			arg_str(fp, "--rotary-base", base);
		} else {
			arg_str(fp, "--position-embedding-type",
				m->positions == MODEL_NOPOS
					? "none"
					: "learned_absolute");
		}
		if (!m->tied_embeddings)
			arg1(fp, "--untie-embeddings-and-output-weights");
		if (!m->bias)
			arg1(fp, "--disable-bias-linear");
		if (!m->dropout) {
			arg_str(fp, "--attention-dropout", "0");
			arg_str(fp, "--hidden-dropout", "0");
		}
		fprintf(fp,
			"# Vocabulary %lld: Megatron takes it from the "
			"tokenizer (pad with\n"
			"# --make-vocab-size-divisible-by; --vocab-size %lld "
			"with --tokenizer-type NullTokenizer).\n",
			(long long)m->vocab, (long long)m->vocab);
		const char *backend;
		const char *disp = emit_mcore_dispatcher(in->p, &backend);

		if (!disp ||
		    (model_is_v2(m) && v2_args(fp, in->p, m, disp, backend)))
			return -1;
	} else {
		if (prof->hidden > 0)
			arg_int(fp, "--hidden-size", prof->hidden);
		if (prof->seq_len > 0) {
			arg_int(fp, "--seq-length", prof->seq_len);
			arg_int(fp, "--max-position-embeddings",
				prof->seq_len);
		}
		fprintf(fp,
			"# The input was a profile, which does not give the "
			"heads, FFN size or\n"
			"# architecture: add --num-attention-heads (required), "
			"--ffn-hidden-size and the\n"
			"# architecture flags of the model it was taken "
			"from.\n");
	}
	return 0;
}

static void
recompute_args(FILE *fp, const struct emit_in *in,
	       const struct emit_mcore *mc)
{
	const struct plan *p = in->p;

	fprintf(fp, "\n# Recomputation: the plan's is %s",
		plan_rc_names[p->recompute]);
	if (p->recompute == PLAN_RC_MIXED)
		fprintf(fp, " (chosen per layer)");
	fprintf(fp, ".\n");
	switch (mc->granularity) {
	case PROF_RC_NONE:
		fprintf(fp, "# None (Megatron's default).\n");
		break;
	case PROF_RC_SELECTIVE: {
		const char *w[9] = {"--recompute-granularity", "selective"};
		char mods[128], *q;
		int i = 4;

		if (!p->recompute_modules) {
			fprintf(fp, "# Selective: the attention core of every "
				    "layer.\n");
			args(fp, w);
			break;
		}
		/* --recompute-modules takes its modules as separate
		 * words (Megatron-LM arguments.py, nargs='*') */
		snprintf(mods, sizeof(mods), "%s", p->recompute_modules);
		w[2] = "--recompute-modules";
		w[3] = mods;
		for (q = mods; i < 8 && (q = strchr(q, ',')); ) {
			*q++ = 0;
			w[i++] = q;
		}
		fprintf(fp, "# Selective: the modules the estimate "
			    "recomputed.\n");
		args(fp, w);
		break;
	}
	default:
		if (mc->uniform) {
			const char *w[] = {"--recompute-granularity", "full",
					   "--recompute-method", "uniform",
					   "--recompute-num-layers", "1",
					   NULL};

			fprintf(fp, "# Full: every layer recomputes its "
				    "forward.\n");
			args(fp, w);
		} else {
			char n[32];
			const char *w[] = {"--recompute-granularity", "full",
					   "--recompute-method", "block",
					   "--recompute-num-layers", n, NULL};

			snprintf(n, sizeof(n), "%d", mc->block_layers);
			/* --recompute-method block checkpoints the first
			 * --recompute-num-layers of a chunk, uniform every
			 * layer in groups of them (megatron/core/
			 * recompute.py:157-178 at d98e8a6): never every
			 * N-th block */
			if (mc->every > 1)
				fprintf(fp,
					"# The plan recomputes every %d%s block "
					"of a stage (torchtitan's selective\n"
					"# option); Megatron has no such method "
					"(block: the first N of a chunk,\n"
					"# uniform: all, in groups), so at "
					"least as many, the first ones:\n",
					mc->every,
					mc->every == 2	 ? "nd"
					: mc->every == 3 ? "rd"
							 : "th");
			fprintf(fp,
				"# Full for the first %d layers of every "
				"model chunk, the rest none.  Megatron\n"
				"# cannot mix selective and full, nor give "
				"stages different counts, so this\n"
				"# recomputes at least the layers the plan "
				"recomputes on every stage\n"
				"# (selective counted as full).\n",
				mc->block_layers);
			args(fp, w);
		}
		break;
	}
	emit_rc_note(fp, "# ", in, &mc->rc);
}

/*
 * The overlaps and CUDA graphs the plan was priced with, as Megatron-LM
 * flags: its own defaults are all off (--overlap-grad-reduce and
 * --overlap-param-gather are store_true, arguments.py:3121, 3148;
 * tp_comm_overlap and overlap_moe_expert_parallel_comm are
 * ModelParallelConfig fields defaulting to False, model_parallel_config.py:
 * 265, 343; cuda_graph_impl "none", transformer_config.py:1075), while
 * the megatron-core runtime prices what the recipes switch on.  The
 * parameter all-gather overlaps only under the distributed optimizer or
 * Megatron-FSDP and with the reduction overlapped (arguments.py:1024-1029);
 * Transformer Engine's overlap only with sequence parallelism (1441-1442)
 * and not in NVFP4, which its userbuffers do not carry (cost_tp_hidden()).
 * A plan for another runtime gets Megatron-Core's defaults
 * (emit_plan_runtime()).  Returns 0, or -1 after a message.
 */
static int
overlap_args(FILE *fp, const struct emit_in *in, int e)
{
	const struct plan *p = in->p;
	struct runtime rt;
	int grad, any = 0, own = emit_plan_runtime(p, RUNTIME_MEGATRON_CORE,
						  &rt);

	if (own < 0)
		return -1;
	grad = runtime_has(&rt, RUNTIME_OPT_OVERLAP_GRAD_REDUCE);
	if (own) {
		fprintf(fp, "# Overlaps as priced (runtime ");
		emit_text(fp, p->runtime);
		fprintf(fp, ").\n");
	} else {
		fprintf(fp, "# Overlaps: Megatron-Core's defaults (the plan "
			    "was priced for ");
		emit_text(fp, p->runtime ? p->runtime : "no runtime");
		fprintf(fp, ").\n");
	}
	if (grad) {
		arg1(fp, "--overlap-grad-reduce");
		any = 1;
	}
	if (grad && p->zero >= 1 &&
	    runtime_has(&rt, RUNTIME_OPT_OVERLAP_PARAM_GATHER)) {
		arg1(fp, "--overlap-param-gather");
		any = 1;
	}
	if (p->sp && p->t > 1 &&
	    runtime_has(&rt, RUNTIME_OPT_TP_COMM_OVERLAP)) {
		if (emit_tp_overlap(in, &rt)) {
			arg1(fp, "--tp-comm-overlap");
			any = 1;
		} else {
			fprintf(fp, "# No --tp-comm-overlap: Transformer "
				    "Engine's userbuffers do not carry NVFP4 "
				    "(priced so).\n");
		}
	}
	/* Megatron-LM has no switch for it since the 2021 one went
	 * (core/tensor_parallel/layers.py:694-708 at d98e8a6 starts the
	 * reduction asynchronously whenever it reduces): say so */
	if (p->t > 1 && !runtime_has(&rt, RUNTIME_OPT_TP_DGRAD_OVERLAP) &&
	    !(p->sp && runtime_has(&rt, RUNTIME_OPT_TP_COMM_OVERLAP) &&
	      emit_tp_overlap(in, &rt)))
		fprintf(fp, "# Priced without tp-dgrad-overlap, which "
			    "Megatron-LM cannot turn off: it reduces\n"
			    "# the column-parallel input gradients beside "
			    "their weight gradients, so\n# expect this run "
			    "faster than predicted.\n");
	if (e > 1 && runtime_has(&rt, RUNTIME_OPT_OVERLAP_MOE_EP_COMM)) {
		arg1(fp, "--overlap-moe-expert-parallel-comm");
		any = 1;
	}
	if (emit_cuda_graphs(p)) {
		/* one graph of forward and backward; the loss's NaN check
		 * must be off (arguments.py:1235-1237) */
		arg_str(fp, "--cuda-graph-impl", "full_iteration");
		arg1(fp, "--no-check-for-nan-in-loss-and-grad");
		any = 1;
	} else if (runtime_has(&rt, RUNTIME_OPT_TE_GRAPHS)) {
		/* Transformer Engine's graphs of each layer's attention,
		 * router and MoE preprocessing (arguments.py:2047-2049 at
		 * d98e8a6: --cuda-graph-modules, --cuda-graph-scope
		 * deprecated) */
		const char *w[8] = {"--cuda-graph-impl", "transformer_engine",
				    "--cuda-graph-modules", "attn"};
		int n = 4;

		/* ... the router only where there are experts (2825-2829),
		 * and a hybrid model's Mamba layers whole, as priced
		 * (transformer_config.py:1101, "mamba") */
		if (!in->model || in->model->moe.experts) {
			w[n++] = "moe_router";
			w[n++] = "moe_preprocess";
		}
		if (in->model && model_is_hybrid(in->model))
			w[n++] = "mamba";
		args(fp, w);
		any = 1;
	}
	/* Transformer Engine's op fuser: the experts' clamp inside their
	 * activation, as priced */
	if (runtime_has(&rt, RUNTIME_OPT_OP_FUSER)) {
		arg1(fp, "--use-transformer-engine-op-fuser");
		any = 1;
	}
	if (!any)
		fprintf(fp, "# (none)\n");
	return 0;
}

/*
 * CUDA_DEVICE_MAX_CONNECTIONS as Megatron-LM asserts it
 * (arguments.py:1451-1479): before Blackwell, tensor or context
 * parallelism needs it 1, so that the kernels of one stream keep their
 * order against the communication they overlap with, unless Megatron-FSDP
 * or the EP all-to-all overlap wants more queues (a warning then); and
 * Megatron-FSDP refuses 1 (1166-1167).  A GPU the catalog does not know
 * is taken for one before Blackwell (1 is harmless on Blackwell).
 */
static void
connections_env(FILE *fp, const struct emit_in *in, int c, int e)
{
	const struct plan *p = in->p;
	struct runtime rt;
	int blackwell = in->gpu && in->gpu->mxfp8;

	if (p->zero > 1) {
		fprintf(fp, "# Megatron-FSDP refuses "
			    "CUDA_DEVICE_MAX_CONNECTIONS 1 "
			    "(arguments.py:1166-1167).\n"
			    "unset CUDA_DEVICE_MAX_CONNECTIONS\n");
		return;
	}
	if ((p->t < 2 && c < 2) || blackwell)
		return;
	if (emit_plan_runtime(p, RUNTIME_MEGATRON_CORE, &rt) >= 0 && e > 1 &&
	    runtime_has(&rt, RUNTIME_OPT_OVERLAP_MOE_EP_COMM))
		return;
	fprintf(fp, "# Tensor or context parallelism before Blackwell: one "
		    "hardware queue\n# (arguments.py:1451-1479).\n"
		    "export CUDA_DEVICE_MAX_CONNECTIONS=1\n");
}

int
emit_megatron(FILE *fp, const struct emit_in *in, const struct emit_shape *sh)
{
	const struct plan *p = in->p;
	int c = p->c > 1 ? p->c : 1, e = p->e > 1 ? p->e : 1;
	int world = p->w * p->d * p->t * c, s, k;
	int bert = emit_family(in) == MODEL_BERT;
	const char *script = bert ? "examples/bert/pretrain_bert.py"
			     : in->model && model_is_hybrid(in->model)
				     ? "pretrain_hybrid.py"
				     : "pretrain_gpt.py";
	struct emit_mcore mc;

	if (p->sched == PLAN_2BW || p->sched == PLAN_GPIPE)
		return pd2bw_error("--emit megatron: Megatron-LM has no %s "
				   "schedule (only 1F1B, with a flush); plan "
				   "with -s flush",
				   plan_sched_names[p->sched]);
	if (p->v > 1 && p->d < 2)
		return pd2bw_error("--emit megatron: interleaving needs two "
				   "or more stages");
	if (p->offload && (p->d > 1 || p->recompute != PROF_RC_NONE ||
			   sh->nblocks < 2))
		return pd2bw_error("--emit megatron: Megatron offloads "
				   "activations only without a pipeline and "
				   "without recomputation "
				   "(transformer_config.py:1891-1899)");
	if (emit_mcore_init(&mc, in, sh))
		return -1;

	fprintf(fp, "# Megatron-LM arguments for the pd2bw plan of ");
	emit_text(fp, p->model);
	fprintf(fp, " on %d x ", world);
	emit_text(fp, p->gpu);
	fprintf(fp,
		"\n# (schedule %s, width %d, depth %d, tensor %d, "
		"microbatch %d, accumulation %d).\n"
		"# For %s.\n"
		"# Source this file, then run %s \"$@\" followed by the "
		"data,\n"
		"# tokenizer, optimizer and training-length arguments; "
		"every set line appends\n# to \"$@\", and the file sets "
		"CUDA_DEVICE_MAX_CONNECTIONS where Megatron needs it.\n",
		plan_sched_names[p->sched], p->w, p->d, p->t, p->b, p->m,
		MEGATRON_VERSIONS, script);

	if (c > 1) {
		fprintf(fp,
			"\n# Parallelism: WORLD_SIZE = %d = %d (tensor) x %d "
			"(context) x %d (pipeline)\n# x %d (data); Megatron "
			"orders ranks tensor, context, data, pipeline\n"
			"# (parallel_state.py).\n",
			world, p->t, c, p->d, p->w);
	} else {
		fprintf(fp,
			"\n# Parallelism: WORLD_SIZE = %d = %d (tensor) x %d "
			"(pipeline) x %d (data).\n"
			"# Megatron derives the data-parallel size from WORLD_SIZE "
			"and numbers ranks\n"
			"# tensor-fastest, pipeline-major (stage s, replica r, "
			"tensor rank j:\n"
			"# rank (s x %d + r) x %d + j); pd2bw-plan --emit launch "
			"starts them on the\n"
			"# GPUs the plan chose.\n",
			world, p->t, p->d, p->w, p->w, p->t);
	}
	arg_int(fp, "--tensor-model-parallel-size", p->t);
	arg_int(fp, "--pipeline-model-parallel-size", p->d);
	if (c > 1) {
		fprintf(fp, "# Context parallelism: %d ranks share each "
			    "sequence (WORLD_SIZE counts them: the\n# data-"
			    "parallel size stays %d).\n", c, p->w);
		arg_int(fp, "--context-parallel-size", c);
	}
	if (e > 1) {
		int etp = p->etp > 0 ? p->etp : p->t;

		fprintf(fp, "# Expert parallelism: the routed experts spread "
			    "over %d ranks of the data- and\n# context-"
			    "parallel ones, %s.\n", e,
			etp == 1 ? "whole experts (no tensor parallelism "
				   "inside them)"
				 : "each split as the tensor-parallel layers");
		arg_int(fp, "--expert-model-parallel-size", e);
		arg_int(fp, "--expert-tensor-parallel-size", etp);
	}
	if (p->sp) {
		fprintf(fp, "# Sequence parallelism in the tensor-parallel "
			    "regions.\n");
		arg1(fp, "--sequence-parallel");
	}
	if (p->optimizer == PLAN_MUON) {
		/* Megatron-Core's Muon: with --use-distributed-optimizer
		 * its layer-wise distributed optimizer (arguments.py:
		 * 1724-1735); default 5 Newton-Schulz steps, QKV split and
		 * tp_mode duplicated, as priced (arguments.py:2628-2655) */
		fprintf(fp, "# Muon on the blocks' matrices (Adam on the "
			    "rest), as priced.\n");
		arg_str(fp, "--optimizer", "muon");
	}
	if (p->zero == 1) {
		fprintf(fp, "# Optimizer state sharded over the data-parallel "
			    "replicas (ZeRO-1%s).\n",
			p->optimizer == PLAN_MUON ? ": Muon's layer-wise "
						    "distributed optimizer"
						  : "");
		arg1(fp, "--use-distributed-optimizer");
	} else if (p->zero > 1) {
		/* Megatron-FSDP (v1 needs the distributed optimizer,
		 * arguments.py:1128-1135); HSDP over the optimizer
		 * instances (core/distributed/fsdp/mcore_fsdp_adapter.py:
		 * 346), the outer group replicated (no_shard, the default) */
		int inst = emit_mfsdp_note(fp, "# ", p);

		arg1(fp, "--use-megatron-fsdp");
		arg1(fp, "--use-distributed-optimizer");
		arg_str(fp, "--data-parallel-sharding-strategy",
			p->zero == 2 ? "optim_grads" : "optim_grads_params");
		if (inst > 1)
			arg_int(fp, "--num-distributed-optimizer-instances",
				inst);
	}
	if (p->offload) {
		/* every layer but the last, or the plan's first blocks
		 * (transformer_config.py:1884-1889); no pipeline, no
		 * recomputation (1891-1899) */
		int n = p->offload_blocks > 0 ? p->offload_blocks
					       : sh->nblocks - 1;

		fprintf(fp, "# Activations offloaded to host memory: the "
			    "first %d blocks'.\n", n);
		arg_int(fp, "--cpu-offloading-num-layers", n);
	}

	if (overlap_args(fp, in, e)) {
		emit_mcore_release(&mc);
		return -1;
	}
	connections_env(fp, in, c, e);

	fprintf(fp,
		"\n# Batch: microbatch %d, global batch %lld = %d x %d "
		"(data) x %d microbatches\n"
		"# per pipeline per update.\n",
		p->b, (long long)p->global_batch, p->b, p->w, p->m);
	arg_int(fp, "--micro-batch-size", p->b);
	arg_int(fp, "--global-batch-size", p->global_batch);

	fusion_args(fp, in);
	if (model_args(fp, in, sh)) {
		emit_mcore_release(&mc);
		return -1;
	}
	{
		const char *prec = in->prof->precision ? in->prof->precision
						      : "fp32";

		if (!strcmp(prec, "fp16")) {
			fprintf(fp, "# Precision: fp16.\n");
			arg1(fp, "--fp16");
		} else if (!strcmp(prec, "bf16")) {
			fprintf(fp, "# Precision: bf16.\n");
			arg1(fp, "--bf16");
		} else if (!strcmp(prec, "fp8")) {
			int r = in->o ? in->o->fp8_recipe : FP8_DELAYED;

			/* e4m3 throughout for MXFP8, E5M2 gradients
			 * (hybrid) otherwise, as Megatron-Bridge's
			 * mixed-precision recipes set them */
			fprintf(fp, "# Precision: bf16 with FP8 GEMMs "
				    "(Transformer Engine), %s scaling.\n",
				model_fp8_names[r]);
			arg1(fp, "--bf16");
			arg_str(fp, "--fp8-format",
				r == FP8_MXFP8 ? "e4m3" : "hybrid");
			arg_str(fp, "--fp8-recipe", model_fp8_names[r]);
			if (emit_fp8_params(in)) {
				fprintf(fp, "# FP8 parameters, gathered in FP8 "
					    "(the distributed optimizer keeps "
					    "the fp32 ones).\n");
				arg1(fp, "--fp8-param-gather");
			}
			/* the plan's attention kernel (transformer_config.py
			 * :640 at d98e8a6) */
			if (in->p->attention &&
			    !strcmp(in->p->attention, "fp8"))
				arg1(fp, "--fp8-dot-product-attention");
			/* the output layer in MXFP8: TransformerConfig's
			 * fp8_output_proj, a flag of its own (training/
			 * arguments.py:2373 at d98e8a6) */
			if (emit_runtime_opt(in->p,
					     RUNTIME_OPT_FP8_OUTPUT_PROJ))
				arg1(fp, "--fp8-output-proj");
		} else if (!strcmp(prec, "nvfp4")) {
			/* fp4 (--fp4-format e2m1), fp4_recipe nvfp4 and
			 * fp4_param (--fp4-param-gather): megatron/core/
			 * transformer/transformer_config.py:673-688 at
			 * d98e8a6; not with --fp8-format (megatron/
			 * training/arguments.py:1100-1101) */
			fprintf(fp, "# Precision: bf16 with NVFP4 GEMMs "
				    "(Transformer Engine's NVFP4BlockScaling).\n");
			arg1(fp, "--bf16");
			arg_str(fp, "--fp4-format", "e2m1");
			arg_str(fp, "--fp4-recipe", "nvfp4");
			if (emit_fp8_params(in)) {
				fprintf(fp, "# NVFP4 parameters, gathered in "
					    "NVFP4 (the distributed optimizer "
					    "keeps the fp32 ones).\n");
				arg1(fp, "--fp4-param-gather");
			}
		} else {
			fprintf(fp, "# Precision: fp32 (Megatron's default, "
				    "no flag).\n");
		}
		/* TransformerConfig's first_last_layers_bf16 and the two
		 * counts (transformer_config.py:649-658, flags of their own,
		 * training/arguments.py:2373 at d98e8a6) */
		if (in->p->bf16_first + in->p->bf16_last > 0) {
			fprintf(fp, "# The first %d and last %d blocks in bf16, "
				    "as priced.\n",
				in->p->bf16_first, in->p->bf16_last);
			arg1(fp, "--first-last-layers-bf16");
			arg_int(fp, "--num-layers-at-start-in-bf16",
				in->p->bf16_first);
			arg_int(fp, "--num-layers-at-end-in-bf16",
				in->p->bf16_last);
		}
		if (te_precision_args(fp, in->p))
			return -1;
		/* bf16 accumulates and reduces the gradients in fp32 unless
		 * --grad-reduce-in-bf16 (megatron/training/arguments.py:
		 * 1204-1217, 3053 at d98e8a6) */
		if (strcmp(prec, "fp16") && strcmp(prec, "fp32") &&
		    !emit_grad_reduce_fp32(in)) {
			fprintf(fp, "# Gradients reduced in bf16, as planned "
				    "(runtime option no-grad-reduce-fp32).\n");
			arg1(fp, "--grad-reduce-in-bf16");
		}
	}

	recompute_args(fp, in, &mc);

	fprintf(fp, "\n# Partition: the embedding on the first stage, the "
		    "head on the last, and\n# blocks per stage:");
	for (s = 0; s < p->d; s++)
		fprintf(fp, "%s%d", s && s % 24 == 0 ? "\n#" : " ",
			sh->blocks[s]);
	fprintf(fp, ".\n");
	if (p->v > 1) {
		fprintf(fp,
			"# Interleaved 1F1B, %d virtual stages per GPU: "
			"the layout has %d x %d entries,\n"
			"# entry i the model chunk i / %d of stage i %% %d "
			"(blocks per chunk:",
			p->v, p->d, p->v, p->d, p->d);
		for (k = 0; k < sh->nchunks; k++)
			fprintf(fp, "%s%d", k && k % 24 == 0 ? "\n#" : " ",
				sh->chunk_blocks[k]);
		fprintf(fp, ").\n");
	}
	if (in->model && model_is_hybrid(in->model)) {
		hybrid_pattern_arg(fp, in->model, sh, p);
	} else if (mc.use_layout) {
		if (in->model && in->model->mtp_layers > 0)
			fprintf(fp, "# Megatron Core's layout (E embedding, t "
				    "a block, m an MTP layer, L the\n# loss "
				    "with the output layer; no other partition "
				    "or VPP flag with it).\n");
		else
			fprintf(fp, "# Megatron Core's layout (E embedding, t "
				    "a block, L the loss with the\n# output "
				    "layer; no other partition or VPP flag with "
				    "it).\n");
		arg_str(fp, "--pipeline-model-parallel-layout", mc.layout);
	} else if (mc.first || mc.last) {
		fprintf(fp, "# Uneven first or last stage; the middle stages "
			    "split the rest evenly.\n");
		if (mc.first)
			arg_int(fp, "--decoder-first-pipeline-num-layers",
				mc.first);
		if (mc.last)
			arg_int(fp, "--decoder-last-pipeline-num-layers",
				mc.last);
	} else {
		fprintf(fp, "# Even: Megatron's default split.\n");
	}

	fprintf(fp, "\n# Schedule %s.  ", plan_sched_names[p->sched]);
	if (p->sched == PLAN_FLUSH)
		fprintf(fp, "Megatron-LM's default 1F1B schedule is "
			    "PipeDream-Flush: no flag.\n");
	else
		fprintf(fp, "One stage: no pipelining.\n");
	emit_mcore_release(&mc);
	return 0;
}
