/*
 * emit_megatron.c - --emit megatron: the plan as Megatron-LM command line
 * arguments, a POSIX shell fragment of "set -- "$@" ..." lines with the
 * reasons in comments, to be sourced before running pretrain_gpt.py "$@".
 * Flag names as in Megatron-LM's megatron/training/arguments.py.
 */
#include <stdio.h>
#include <string.h>

#include "emit/emit.h"
#include "pd2bw/error.h"

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

/* The stage's part of a --pipeline-model-parallel-layout string. */
static void
stage_layout(char *buf, size_t n, const struct emit_shape *sh, int s)
{
	char t[32] = "";

	if (sh->blocks[s] == 1)
		snprintf(t, sizeof(t), "t");
	else if (sh->blocks[s] > 1)
		snprintf(t, sizeof(t), "t*%d", sh->blocks[s]);
	snprintf(buf, n, "%s%s%s", sh->embed[s] ? "E" : "", t,
		 sh->head[s] ? "L" : "");
}

/*
 * Megatron Core's layout string for the partition: stages split by "|",
 * E embedding, t a block, L the loss (with the output layer); three or
 * more identical stages in a row written "(stage|)*k".
 */
static void
layout(FILE *fp, const struct plan *p, const struct emit_shape *sh)
{
	char cur[64], next[64];
	int s = 0, k;

	while (s < p->nstages) {
		stage_layout(cur, sizeof(cur), sh, s);
		for (k = 1; s + k < p->nstages; k++) {
			stage_layout(next, sizeof(next), sh, s + k);
			if (strcmp(cur, next))
				break;
		}
		if (k >= 3) {
			/* The comma only separates, as in Megatron's docs. */
			fprintf(fp, "(%s|)*%d%s", cur, k,
				s + k < p->nstages ? "," : "");
		} else {
			fprintf(fp, "%s", cur);
			if (k == 2)
				fprintf(fp, "|%s", cur);
			if (s + k < p->nstages)
				fputc('|', fp);
		}
		s += k;
	}
}

static void
partition(FILE *fp, const struct plan *p, const struct emit_shape *sh)
{
	int d = p->nstages, s, mid = -1, even = 1, fl = 1, zero = 0;
	int first, last;
	char a[32], b[32];

	fprintf(fp, "\n# Partition: the embedding on the first stage, the head "
		    "on the last, and\n# blocks per stage:");
	for (s = 0; s < d; s++)
		fprintf(fp, "%s%d", s && s % 24 == 0 ? "\n#" : " ",
			sh->blocks[s]);
	fprintf(fp, ".\n");
	for (s = 0; s < d; s++) {
		if (sh->blocks[s] != sh->blocks[0])
			even = 0;
		if (sh->blocks[s] < 1)
			zero = 1;
		if (s > 0 && s < d - 1) {
			if (mid < 0)
				mid = sh->blocks[s];
			else if (sh->blocks[s] != mid)
				fl = 0;
		}
	}
	if (zero)
		fl = 0;
	if (even) {
		fprintf(fp, "# Even: Megatron's default split.\n");
		return;
	}
	first = sh->blocks[0];
	last = sh->blocks[d - 1];
	snprintf(a, sizeof(a), "%d", first);
	snprintf(b, sizeof(b), "%d", last);
	if (fl) {
		fprintf(fp,
			"# Uneven first or last stage: Megatron's "
			"--decoder-first/last-pipeline-num-layers\n"
			"# (the middle stages split the rest evenly).  The "
			"same partition as an\n"
			"# experimental layout (Megatron Core 0.15; use one or "
			"the other):\n"
			"#   --pipeline-model-parallel-layout '");
		layout(fp, p, sh);
		fprintf(fp, "'\n");
		if (d == 2 || first != mid) {
			const char *w[] = {"--decoder-first-pipeline-num-layers",
					   a, NULL};

			args(fp, w);
		}
		if (d > 2 && last != mid) {
			const char *w[] = {"--decoder-last-pipeline-num-layers",
					   b, NULL};

			args(fp, w);
		}
		return;
	}
	fprintf(fp,
		"# %s, which --decoder-first/last-pipeline-num-layers\n"
		"# cannot express: Megatron Core's experimental layout "
		"(documented from 0.15)\n"
		"# gives every stage its own blocks; older Megatron-LM "
		"cannot run this partition.\n",
		zero ? "A stage has no block" : "The middle stages differ");
	fprintf(fp, "set -- \"$@\" --pipeline-model-parallel-layout '");
	layout(fp, p, sh);
	fprintf(fp, "'\n");
}

/*
 * Per-layer recomputation: Megatron recomputes either the attention core
 * of every layer (selective) or the first N layers of every stage fully
 * (method block).  Blocks are alike, so which layers does not matter, only
 * how many per stage: take the largest count.
 */
static void
mixed(FILE *fp, const struct plan *p)
{
	int s, j, maxfull = 0, sel = 0;
	char n[32];

	for (s = 0; s < p->nstages; s++) {
		int full = 0;

		for (j = p->stages[s].first; j <= p->stages[s].last; j++) {
			full += p->layer_rc[j] == PROF_RC_FULL;
			sel += p->layer_rc[j] == PROF_RC_SELECTIVE;
		}
		if (full > maxfull)
			maxfull = full;
	}
	fprintf(fp, " up to %d fully recomputed layers per stage", maxfull);
	if (sel)
		fprintf(fp, ", %d selectively", sel);
	fprintf(fp, ".\n");
	if (maxfull) {
		const char *w[] = {"--recompute-granularity", "full",
				   "--recompute-method", "block",
				   "--recompute-num-layers", n, NULL};

		snprintf(n, sizeof(n), "%d", maxfull);
		if (sel)
			fprintf(fp, "# Megatron cannot mix selective and full "
				    "recomputation: the selective\n"
				    "# layers run without recomputation here "
				    "(check the memory).\n");
		args(fp, w);
	} else {
		const char *w[] = {"--recompute-granularity", "selective",
				   NULL};

		fprintf(fp, "# Megatron recomputes the attention core of "
			    "every layer, not only those chosen.\n");
		args(fp, w);
	}
}

int
emit_megatron(FILE *fp, const struct plan *p, const struct profile *prof,
	      const struct emit_shape *sh)
{
	char ws[32], d[32], b[32], B[32], L[32], h[32], sq[32], t[32];
	int world = p->w * p->d * p->t;

	snprintf(ws, sizeof(ws), "%d", world);
	snprintf(d, sizeof(d), "%d", p->d);
	snprintf(t, sizeof(t), "%d", p->t);
	snprintf(b, sizeof(b), "%d", p->b);
	snprintf(B, sizeof(B), "%lld", (long long)p->global_batch);
	snprintf(L, sizeof(L), "%d", sh->nblocks);
	snprintf(h, sizeof(h), "%lld", (long long)prof->hidden);
	snprintf(sq, sizeof(sq), "%lld", (long long)prof->seq_len);

	fprintf(fp,
		"# Megatron-LM arguments for the pd2bw plan of %s on %d x "
		"%s\n"
		"# (schedule %s, width %d, depth %d, microbatch %d, "
		"accumulation %d).\n"
		"# Source this file, then run pretrain_gpt.py \"$@\" "
		"followed by the data,\n"
		"# tokenizer, optimizer and training-length arguments; "
		"every line appends to \"$@\".\n",
		p->model, world, p->gpu, plan_sched_names[p->sched], p->w,
		p->d, p->b, p->m);

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
	{
		const char *w[] = {"--tensor-model-parallel-size", t,
				   "--pipeline-model-parallel-size", d, NULL};

		args(fp, w);
	}
	if (p->sp) {
		const char *w[] = {"--sequence-parallel", NULL};

		fprintf(fp, "# Sequence parallelism in the tensor-parallel "
			    "regions.\n");
		args(fp, w);
	}
	if (p->v > 1 && sh->nblocks % (p->d * p->v) == 0) {
		char per[32];
		const char *w[] = {"--num-layers-per-virtual-pipeline-stage",
				   per, NULL};

		snprintf(per, sizeof(per), "%d", sh->nblocks / (p->d * p->v));
		fprintf(fp, "# Interleaved 1F1B: %d virtual stages per GPU.\n",
			p->v);
		args(fp, w);
	} else if (p->v > 1) {
		fprintf(fp, "# TODO: interleaving %d ways needs the %d blocks "
			    "to divide by %d x %d.\n",
			p->v, sh->nblocks, p->d, p->v);
	}
	if (p->zero) {
		const char *w[] = {"--use-distributed-optimizer", NULL};

		fprintf(fp, "# Optimizer state sharded over the data-parallel "
			    "replicas (ZeRO-1).\n");
		args(fp, w);
	}

	fprintf(fp,
		"\n# Batch: microbatch %d, global batch %lld: "
		"%lld / (%d x %d) = %d microbatches\n"
		"# per pipeline per update.\n",
		p->b, (long long)p->global_batch,
		(long long)p->global_batch, p->b, p->w, p->m);
	{
		const char *w[] = {"--micro-batch-size", b,
				   "--global-batch-size", B, NULL};

		args(fp, w);
	}

	fprintf(fp, "\n# Model shape from the profile.\n");
	if (!sh->transformer) {
		fprintf(fp,
			"# TODO: the profile's chain is not embedding, "
			"blocks, head (a PipeDream graph?):\n"
			"# give --num-layers, --hidden-size, "
			"--num-attention-heads and --seq-length\n"
			"# of the model, and check that Megatron's partition "
			"matches the plan's stages.\n");
	} else {
		const char *w[] = {"--num-layers", L, NULL, NULL, NULL, NULL,
				   NULL};
		int k = 2;

		if (prof->hidden > 0) {
			w[k++] = "--hidden-size";
			w[k++] = h;
		}
		if (prof->seq_len > 0) {
			w[k++] = "--seq-length";
			w[k++] = sq;
		}
		args(fp, w);
		if (prof->hidden <= 0 || prof->seq_len <= 0)
			fprintf(fp, "# TODO: the profile gives no %s: take it "
				    "from the model.\n",
				prof->hidden <= 0 ? "--hidden-size"
						  : "--seq-length");
		fprintf(fp,
			"# TODO: --num-attention-heads (and --ffn-hidden-size, "
			"--max-position-embeddings,\n"
			"# the vocabulary and the architecture flags) are not "
			"in the profile: take them\n"
			"# from the model.\n");
	}
	if (prof->precision && !strcmp(prof->precision, "fp16")) {
		const char *w[] = {"--fp16", NULL};

		fprintf(fp, "# Precision of the profile: fp16.\n");
		args(fp, w);
	} else if (prof->precision && !strcmp(prof->precision, "bf16")) {
		const char *w[] = {"--bf16", NULL};

		fprintf(fp, "# Precision of the profile: bf16.\n");
		args(fp, w);
	} else {
		fprintf(fp, "# Precision of the profile: %s (Megatron's "
			    "default, no flag).\n",
			prof->precision ? prof->precision : "fp32");
	}

	fprintf(fp, "\n# Recomputation: %s", plan_rc_names[p->recompute]);
	if (p->recompute == PROF_RC_FULL) {
		const char *w[] = {"--recompute-granularity", "full",
				   "--recompute-method", "uniform",
				   "--recompute-num-layers", "1", NULL};

		fprintf(fp, ", every block recomputes its forward.\n");
		args(fp, w);
	} else if (p->recompute == PROF_RC_SELECTIVE) {
		const char *w[] = {"--recompute-granularity", "selective",
				   NULL};

		fprintf(fp, ", the attention core only.\n");
		args(fp, w);
	} else if (p->recompute == PLAN_RC_MIXED) {
		fprintf(fp, ", chosen per layer:");
		mixed(fp, p);
	} else {
		fprintf(fp, " (Megatron's default).\n");
	}

	if (sh->transformer)
		partition(fp, p, sh);

	fprintf(fp, "\n# Schedule %s.  ", plan_sched_names[p->sched]);
	switch (p->sched) {
	case PLAN_2BW:
		fprintf(fp,
			"Megatron-LM has no 2BW schedule: with the arguments "
			"above it\n"
			"# runs 1F1B with a flush per update (PipeDream-Flush), "
			"the same batch semantics\n"
			"# plus a bubble of (d-1)/m = %d/%d of the ideal time "
			"that the 2BW prediction\n"
			"# does not have.  The PipeDream-2BW authors' Megatron "
			"fork (msr-fiddle/pipedream,\n"
			"# directory megatron/) runs 2BW with "
			"--pipeline-no-flushes; it predates the\n"
			"# uneven-partition and --recompute-* flags (it has "
			"--checkpoint-activations).\n",
			p->d - 1, p->m);
		break;
	case PLAN_GPIPE:
		fprintf(fp,
			"Megatron-LM has no GPipe schedule: it runs 1F1B "
			"(PipeDream-Flush),\n"
			"# with the same bubble and fewer stashed activations "
			"(at most d-s\n"
			"# microbatches on stage s instead of m), so the plan's "
			"memory is an upper bound.\n"
			"# The PipeDream-2BW authors' fork has --gpipe.\n");
		break;
	case PLAN_FLUSH:
		fprintf(fp, "Megatron-LM's default 1F1B schedule is "
			    "PipeDream-Flush: no flag.\n");
		break;
	default:
		fprintf(fp, "One stage: no pipelining.\n");
		break;
	}
	return 0;
}
