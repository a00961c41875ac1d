/*
 * emit_deepspeed.c - --emit deepspeed: the plan as a DeepSpeed config
 * (JSON, keys as in deepspeed/runtime/config.py and its pipeline section),
 * with the pipeline partition and what DeepSpeed cannot run of the plan
 * under pipeline.pd2bw_*, which DeepSpeed passes through unread.
 */
#include <stdio.h>
#include <string.h>

#include "emit/emit.h"
#include "pd2bw/error.h"

/* s as a JSON string; names and notes are plain text. */
static void
json_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(fp, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(fp, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, fp);
	}
	fputc('"', fp);
}

int
emit_deepspeed(FILE *fp, const struct plan *p, const struct profile *prof,
	       const struct emit_shape *sh)
{
	const char *prec = prof->precision ? prof->precision : "fp32";
	char note[512];
	int s, nnotes = 0;

	(void)sh;
	fprintf(fp, "{\n");
	fprintf(fp, "  \"train_batch_size\": %lld,\n",
		(long long)p->global_batch);
	fprintf(fp, "  \"train_micro_batch_size_per_gpu\": %d,\n", p->b);
	fprintf(fp, "  \"gradient_accumulation_steps\": %d,\n", p->m);
	if (!strcmp(prec, "fp16"))
		fprintf(fp, "  \"fp16\": {\"enabled\": true},\n");
	else if (!strcmp(prec, "bf16"))
		fprintf(fp, "  \"bf16\": {\"enabled\": true},\n");
	/* Pipeline parallelism takes ZeRO stage 0 or 1; the plan's memory
	 * keeps optimizer state unsharded, which is stage 0. */
	fprintf(fp, "  \"zero_optimization\": {\"stage\": %d},\n",
		p->zero ? 1 : 0);
	if (p->recompute == PROF_RC_FULL)
		fprintf(fp, "  \"activation_checkpointing\": "
			    "{\"partition_activations\": false, "
			    "\"contiguous_memory_optimization\": false, "
			    "\"cpu_checkpointing\": false},\n");
	fprintf(fp, "  \"pipeline\": {\n");
	fprintf(fp, "    \"stages\": %d,\n", p->d);
	fprintf(fp, "    \"activation_checkpoint_interval\": %d,\n",
		p->recompute == PROF_RC_FULL ? 1 : 0);
	fprintf(fp, "    \"pd2bw_schedule\": ");
	json_str(fp, plan_sched_names[p->sched]);
	fprintf(fp, ",\n    \"pd2bw_parts\": [");
	for (s = 0; s < p->nstages; s++)
		fprintf(fp, "%d, ", p->stages[s].first);
	fprintf(fp, "%d],\n", p->nlayers);
	fprintf(fp, "    \"pd2bw_stage_layers\": [");
	for (s = 0; s < p->nstages; s++) {
		const struct plan_stage *st = &p->stages[s];

		snprintf(note, sizeof(note), "%s..%s",
			 p->layer_names[st->first], p->layer_names[st->last]);
		if (st->first == st->last)
			snprintf(note, sizeof(note), "%s",
				 p->layer_names[st->first]);
		fprintf(fp, "%s", s ? ", " : "");
		json_str(fp, note);
	}
	fprintf(fp, "],\n    \"pd2bw_notes\": [\n");

#define NOTE(...)                                                             \
	do {                                                                  \
		snprintf(note, sizeof(note), __VA_ARGS__);                    \
		fprintf(fp, "%s      ", nnotes++ ? ",\n" : "");               \
		json_str(fp, note);                                           \
	} while (0)

	NOTE("data parallelism: WORLD_SIZE = %d = %d stages x %d replicas; "
	     "DeepSpeed's pipe-major topology gives stage s, replica r the "
	     "rank s x %d + r: start ranks with pd2bw-plan --emit launch",
	     p->w * p->d, p->d, p->w, p->w);
	NOTE("partition: PipelineModule(layers, num_stages=%d) with layers "
	     "the %d chain layers of the plan (%s first, %s last); "
	     "partition_method takes uniform, parameters or type:REGEX, not "
	     "a list, so set self.parts = pd2bw_parts (stage s runs layers "
	     "parts[s] to parts[s+1]-1) in an override of "
	     "_partition_layers",
	     p->d, p->nlayers, p->layer_names[0],
	     p->layer_names[p->nlayers - 1]);
	if (p->recompute == PROF_RC_FULL)
		NOTE("recompute full: pass activation_checkpoint_interval=1 "
		     "to PipelineModule (every layer recomputes its forward)");
	else if (p->recompute == PROF_RC_SELECTIVE)
		NOTE("recompute selective: DeepSpeed has no attention-only "
		     "recomputation; without it a stage keeps more "
		     "activations than the plan predicts (run full, or "
		     "recompute the attention core in the model's code)");
	switch (p->sched) {
	case PLAN_2BW:
		NOTE("schedule 2bw: DeepSpeed's pipeline engine runs 1F1B "
		     "with a flush per update (PipeDream-Flush), the same "
		     "batch semantics plus a bubble of (d-1)/m = %d/%d of the "
		     "ideal time that the 2BW prediction does not have",
		     p->d - 1, p->m);
		break;
	case PLAN_GPIPE:
		NOTE("schedule gpipe: DeepSpeed runs 1F1B (PipeDream-Flush): "
		     "the same bubble, fewer stashed activations, so the "
		     "plan's memory is an upper bound");
		break;
	default:
		break;
	}
	NOTE("zero stage 0: the plan keeps optimizer state on every "
	     "replica; stage 1 (the most pipeline parallelism allows) would "
	     "shard it over the %d replicas", p->w);
#undef NOTE
	fprintf(fp, "\n    ]\n  }\n}\n");
	return 0;
}
