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
#include <string.h>

#include "emit/emit.h"
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

static void
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
			arg_str(fp, "--position-embedding-type", "rope");
			snprintf(base, sizeof(base), "%.0f", m->rope_base);
			arg_str(fp, "--rotary-base", base);
		} else {
			arg_str(fp, "--position-embedding-type",
				"learned_absolute");
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
		const char *w[] = {"--recompute-granularity", "selective",
				   NULL};

		fprintf(fp, "# Selective: the attention core of every "
			    "layer.\n");
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

int
emit_megatron(FILE *fp, const struct emit_in *in, const struct emit_shape *sh)
{
	const struct plan *p = in->p;
	int world = p->w * p->d * p->t, s, k;
	int bert = emit_family(in) == MODEL_BERT;
	const char *script = bert ? "examples/bert/pretrain_bert.py"
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
		"every line appends to \"$@\".\n",
		plan_sched_names[p->sched], p->w, p->d, p->t, p->b, p->m,
		MEGATRON_VERSIONS, script);

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
	arg_int(fp, "--tensor-model-parallel-size", p->t);
	arg_int(fp, "--pipeline-model-parallel-size", p->d);
	if (p->sp) {
		fprintf(fp, "# Sequence parallelism in the tensor-parallel "
			    "regions.\n");
		arg1(fp, "--sequence-parallel");
	}
	if (p->zero) {
		fprintf(fp, "# Optimizer state sharded over the data-parallel "
			    "replicas (ZeRO-1).\n");
		arg1(fp, "--use-distributed-optimizer");
	}

	fprintf(fp,
		"\n# Batch: microbatch %d, global batch %lld = %d x %d "
		"(data) x %d microbatches\n"
		"# per pipeline per update.\n",
		p->b, (long long)p->global_batch, p->b, p->w, p->m);
	arg_int(fp, "--micro-batch-size", p->b);
	arg_int(fp, "--global-batch-size", p->global_batch);

	model_args(fp, in, sh);
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
		} else {
			fprintf(fp, "# Precision: fp32 (Megatron's default, "
				    "no flag).\n");
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
	if (mc.use_layout) {
		fprintf(fp, "# Megatron Core's layout (E embedding, t a "
			    "block, L the loss with the\n# output layer; "
			    "no other partition or VPP flag with it).\n");
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
