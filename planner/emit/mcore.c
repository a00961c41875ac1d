/*
 * mcore.c - what Megatron Core can run of a plan, shared by the
 * Megatron-LM and Megatron-Bridge emitters: the partition (even,
 * first/last stage layers, or a pipeline layout string with d x v
 * entries) and the recomputation (selective for all layers, or full for
 * the first N layers of every model chunk), never holding more memory
 * than the plan.
 *
 * Upstream facts (NVIDIA/Megatron-LM at d98e8a6, core_v0.15.0rc7-2333;
 * tests/emit/upstream.py cites the lines):
 * - layout: stages split by '|', E embedding, t decoder layer, m MTP
 *   layer, L loss;
 *   "(x|)*n" and "x*n" repeat; commas are cosmetic; entry i is virtual
 *   stage i / pp of pipeline rank i % pp; E first, L last, once each;
 *   the count of t equals --num-layers; empty stages are allowed;
 * - the layout excludes first/last-stage layers and VPP arguments;
 * - recompute method block recomputes the first N layers of every
 *   model chunk (TransformerBlock), and selective applies to all layers.
 */
#include <stdlib.h>
#include <string.h>

#include "emit/emit.h"
#include "pd2bw/error.h"

/* Chunk i of the layout as a string into buf; the last chunk holds the
 * head, and with it the model's mtp multi-token-prediction layers. */
static void
chunk_str(char *buf, size_t n, const struct emit_shape *sh, int i, int mtp)
{
	int b = sh->chunk_blocks[i], last = i == sh->nchunks - 1;
	char t[32] = "", m[32] = "";

	if (b == 1)
		snprintf(t, sizeof(t), "t");
	else if (b > 1)
		snprintf(t, sizeof(t), "t*%d", b);
	if (last && mtp == 1)
		snprintf(m, sizeof(m), "m");
	else if (last && mtp > 1)
		snprintf(m, sizeof(m), "m*%d", mtp);
	snprintf(buf, n, "%s%s%s%s", i == 0 ? "E" : "", t, m, last ? "L" : "");
}

/*
 * The layout: chunks joined by '|'; three or more equal chunks in a row
 * (never the last) written "(x|)*k", which Megatron unrolls to "x|x|...x|"
 * before the next chunk.  The mtp layers go after the last decoder layer,
 * in the last virtual stage of the last pipeline rank, where Megatron puts
 * them without a layout (multi_token_prediction.py:632-633) and a layout
 * must count them (pipeline_parallel_layer_layout.py:112-131).
 */
static char *
layout_str(const struct emit_shape *sh, int mtp)
{
	size_t cap = (size_t)sh->nchunks * 48 + 32, len = 0;
	char *out = xmalloc(cap), cur[40], next[40];
	int i = 0, k;

	out[0] = 0;
	while (i < sh->nchunks) {
		chunk_str(cur, sizeof(cur), sh, i, mtp);
		for (k = 1; i + k < sh->nchunks - 1; k++) {
			chunk_str(next, sizeof(next), sh, i + k, mtp);
			if (strcmp(cur, next))
				break;
		}
		if (k >= 3 && i + k < sh->nchunks) {
			len += (size_t)snprintf(out + len, cap - len,
						"(%s|)*%d", cur, k);
			i += k;
			continue;
		}
		len += (size_t)snprintf(out + len, cap - len, "%s%s", cur,
					i + 1 < sh->nchunks ? "|" : "");
		i++;
	}
	return out;
}

/* Stage layers for --decoder-first/last-pipeline-num-layers, if they
 * express the partition (v = 1).  Returns 1 and sets *first, *last (0:
 * unset), or 0. */
static int
first_last(const struct plan *p, const struct emit_shape *sh, int *first,
	   int *last)
{
	int d = p->d, s, mid = -1;

	*first = *last = 0;
	for (s = 0; s < d; s++)
		if (sh->blocks[s] < 1)
			return 0;
	for (s = 1; s < d - 1; s++) {
		if (mid < 0)
			mid = sh->blocks[s];
		else if (sh->blocks[s] != mid)
			return 0;
	}
	if (d == 2) {
		if (sh->blocks[0] != sh->blocks[1])
			*first = sh->blocks[0];
		return 1;
	}
	if (sh->blocks[0] != mid)
		*first = sh->blocks[0];
	if (sh->blocks[d - 1] != mid)
		*last = sh->blocks[d - 1];
	return 1;
}

int
emit_mcore_init(struct emit_mcore *mc, const struct emit_in *in,
		const struct emit_shape *sh)
{
	const struct plan *p = in->p;
	int d = p->d, v = p->v > 1 ? p->v : 1, s, k, j, even = 1;
	int any = 0, full = 0, sel = 0, n = 0;

	memset(mc, 0, sizeof(*mc));
	/* what Megatron-Core cannot train of a plan made for another
	 * runtime, by its runtime's rules: rowwise scaling (torchao's),
	 * blocks kept in 16 bits under delayed scaling or beyond a stage's
	 * share (runtime_check_train(), runtime_check_bf16()) */
	if (in->o) {
		struct runtime rt;
		char why[256];
		int most = p->bf16_first > p->bf16_last ? p->bf16_first
							: p->bf16_last;

		runtime_init(&rt, RUNTIME_MEGATRON_CORE);
		if (runtime_check_train(&rt, in->o->precision,
					in->o->fp8_recipe, most, 0, PLAN_ADAM,
					why, sizeof(why)) ||
		    runtime_check_bf16(&rt, most, sh->nblocks, p->d, why,
				       sizeof(why)))
			return pd2bw_error("--emit %s: %s", sh->fmt, why);
	}
	if (!sh->transformer)
		return pd2bw_error("--emit %s: the plan's chain is not "
				   "embedding, blocks, head (a PipeDream "
				   "graph?): Megatron builds only transformers",
				   sh->fmt);
	if (!sh->embed[0] || !sh->head[d - 1])
		return pd2bw_error("--emit %s: Megatron puts the embedding on "
				   "the first stage and the head on the last",
				   sh->fmt);
	for (s = 0; s < d; s++)
		if (sh->blocks[s] != sh->blocks[0])
			even = 0;
	if (p->pipeline_layout) {
		/* the string it was planned with, as given */
		mc->use_layout = 1;
		mc->layout = xstrdup(p->pipeline_layout);
	} else if (v > 1 ||
		   (!even && !first_last(p, sh, &mc->first, &mc->last))) {
		mc->use_layout = 1;
		mc->layout = layout_str(sh, in->model ? in->model->mtp_layers
						      : 0);
	} else if (!even) {
		first_last(p, sh, &mc->first, &mc->last);
	}

	/* Recomputation of the blocks; Megatron recomputes no embedding or
	 * head (their full is their none in the profile: analytic.c,
	 * rc_outside_blocks()). */
	mc->every = emit_every_n(p, sh);
	mc->rc.layer_rc = xcalloc((size_t)p->nlayers, sizeof(int));
	for (s = 0; s < d; s++)
		for (j = p->stages[s].first; j <= p->stages[s].last; j++) {
			int r = p->layer_rc ? p->layer_rc[j] : p->recompute;
			int blk = j > p->stages[s].first || !sh->embed[s];

			if (j == p->stages[s].last && sh->head[s])
				blk = 0;
			if (!blk)
				continue;
			any |= r != PROF_RC_NONE;
			full |= r == PROF_RC_FULL;
			sel |= r == PROF_RC_SELECTIVE;
		}
	if (sel && emit_rc_per_op(p)) {
		pd2bw_error("--emit %s: the plan recomputes per op, "
			    "torchtitan's policy, which Megatron-Core does not "
			    "run (its --recompute-modules are modules); plan "
			    "with --runtime megatron-core", sh->fmt);
		emit_mcore_release(mc);
		return -1;
	}
	if (!any) {
		mc->granularity = PROF_RC_NONE;
	} else if (!full) {
		/* Selective everywhere saves at least what was planned. */
		mc->granularity = PROF_RC_SELECTIVE;
		for (s = 0; s < d; s++)
			for (j = p->stages[s].first + sh->embed[s];
			     j <= p->stages[s].last - sh->head[s]; j++)
				mc->rc.layer_rc[j] = PROF_RC_SELECTIVE;
	} else {
		int maxc = 0;

		/* Full for the first N blocks of every chunk: the least N
		 * that recomputes, on every stage, at least the blocks the
		 * plan recomputes in any way (selective counted as full). */
		mc->granularity = PROF_RC_FULL;
		for (k = 0; k < sh->nchunks; k++)
			if (sh->chunk_blocks[k] > maxc)
				maxc = sh->chunk_blocks[k];
		for (n = 1; n < maxc; n++) {
			int ok = 1;

			for (s = 0; s < d && ok; s++) {
				int need = 0, got = 0;

				for (j = p->stages[s].first + sh->embed[s];
				     j <= p->stages[s].last - sh->head[s]; j++)
					need += (p->layer_rc ? p->layer_rc[j]
							     : p->recompute) !=
						PROF_RC_NONE;
				for (k = 0; k < v; k++) {
					int c = sh->chunk_blocks[k * d + s];

					got += c < n ? c : n;
				}
				ok = got >= need;
			}
			if (ok)
				break;
		}
		if (n >= maxc)
			mc->uniform = 1;
		else
			mc->block_layers = n;
		for (s = 0; s < d; s++) {
			j = p->stages[s].first + sh->embed[s];
			for (k = 0; k < v; k++) {
				int c = sh->chunk_blocks[k * d + s], i;

				for (i = 0; i < c; i++, j++)
					mc->rc.layer_rc[j] =
						mc->uniform || i < n
							? PROF_RC_FULL
							: PROF_RC_NONE;
			}
		}
	}
	if (emit_rc_eval(in, &mc->rc)) {
		emit_mcore_release(mc);
		return -1;
	}
	if (mc->rc.evaluated && !mc->rc.fits) {
		char what[64];

		if (mc->granularity != PROF_RC_FULL)
			snprintf(what, sizeof(what), "%s of every block",
				 mc->granularity == PROF_RC_SELECTIVE
					 ? "selective"
					 : "none");
		else if (mc->uniform)
			snprintf(what, sizeof(what), "full of every block");
		else
			snprintf(what, sizeof(what),
				 "full of the first %d blocks of each chunk",
				 mc->block_layers);
		pd2bw_error("--emit %s: Megatron cannot run the plan's "
			    "recomputation (it runs %s): what it would run "
			    "needs %.2f GiB per GPU, over the limit",
			    sh->fmt, what,
			    mc->rc.peak_bytes / (1024.0 * 1024.0 * 1024.0));
		emit_mcore_release(mc);
		return -1;
	}
	return 0;
}

const char *
emit_mcore_v2_lacks(const struct model *m)
{
	/* parts pd2bw maps to no TransformerConfig field; a GeGLU gate is
	 * activation_func gelu (transformer_config.py:224), a callable
	 * Megatron-Bridge v0.1-v0.2 overrides leave out
	 * (omegaconf_utils.py, callables excluded) and megatron.c has no
	 * flag for */
	if (m->post_norms)
		return "post-norms";
	if (m->activation == MODEL_GEGLU)
		return "a GeGLU MLP";
	if (m->attn_softcap > 0 || m->logit_softcap > 0)
		return "soft-capping";
	/* MambaMixer's d_conv and chunk_size are its own defaults, no
	 * TransformerConfig field (mamba_mixer.py:183-194 at d98e8a6) */
	if (model_is_hybrid(m) && m->mamba.heads &&
	    (m->mamba.conv != 4 || m->mamba.chunk != 128))
		return "a Mamba convolution or scan chunk other than 4 and 128";
	return NULL;
}

int
emit_mcore_moe_ints(const struct model *m,
		    struct emit_moe_int f[EMIT_MOE_INTS])
{
	/* transformer_config.py's fields, the flags Megatron-LM derives
	 * from them (moe_router_num_groups and moe_router_group_topk:
	 * group-limited routing, moe_utils.py group_limited_topk) */
	static const char *const names[EMIT_MOE_INTS][2] = {
		{"num_moe_experts", "--num-experts"},
		{"moe_router_topk", "--moe-router-topk"},
		{"moe_ffn_hidden_size", "--moe-ffn-hidden-size"},
		{"moe_shared_expert_intermediate_size",
		 "--moe-shared-expert-intermediate-size"},
		{"moe_router_num_groups", "--moe-router-num-groups"},
		{"moe_router_group_topk", "--moe-router-group-topk"},
	};
	const struct model_moe *e = &m->moe;
	long long v[EMIT_MOE_INTS];
	int i;

	if (e->experts <= 0)
		return 0;
	v[0] = e->experts;
	v[1] = e->top_k;
	v[2] = e->expert_ffn;
	/* the shared experts as one MLP of their summed size */
	v[3] = e->shared_experts > 0 ? e->shared_experts * e->shared_ffn : 0;
	v[4] = e->groups;
	v[5] = e->group_top_k;
	for (i = 0; i < EMIT_MOE_INTS; i++) {
		f[i].field = names[i][0];
		f[i].flag = names[i][1];
		f[i].v = v[i];
	}
	return EMIT_MOE_INTS;
}

const char *
emit_mcore_dispatcher(const struct plan *p, const char **backend)
{
	struct runtime rt;
	int r = emit_plan_runtime(p, RUNTIME_MEGATRON_CORE, &rt);

	*backend = NULL;
	if (r < 0)
		return NULL;
	if (!r || !runtime_has(&rt, RUNTIME_OPT_FLEX_DISPATCHER))
		return "alltoall";
	*backend = "hybridep";
	return "flex";
}

void
emit_mcore_release(struct emit_mcore *mc)
{
	free(mc->layout);
	emit_rc_release(&mc->rc);
	memset(mc, 0, sizeof(*mc));
}
