/*
 * emit.h - turn a plan into what a runtime launches: Megatron-LM command
 * line arguments, a DeepSpeed config and pipeline partition, or a
 * Slurm/torchrun launch snippet whose rank order realises the placement.
 */
#ifndef PD2BW_EMIT_H
#define PD2BW_EMIT_H

#include <stdio.h>

#include "pd2bw/plan.h"
#include "pd2bw/profile.h"

enum emit_fmt { EMIT_MEGATRON, EMIT_DEEPSPEED, EMIT_LAUNCH };
extern const char *const emit_fmt_names[]; /* NULL-terminated */

/*
 * Write plan p in format fmt to path ("-" = stdout), atomically.  prof is
 * the profile the plan was made from (model shape: seq_len, hidden, layer
 * kinds).  Returns 0 or -1.
 */
int emit_write(const struct plan *p, const struct profile *prof, int fmt,
	       const char *path);

/*
 * Shared by the emitters (planner/emit_*.c), not by main.c: the plan's
 * chain seen as a transformer, embedding + blocks + head.
 */
struct emit_shape {
	int transformer;   /* chain is embedding? blocks head?: 1, else 0 */
	int nblocks;       /* transformer blocks in the chain */
	int *blocks;       /* [p->nstages] blocks per stage (owned) */
	int *embed;        /* [p->nstages] 1 when the stage holds the embedding */
	int *head;         /* [p->nstages] 1 when it holds the head */
};

/* Fill sh from p and prof.  Returns 0, or -1 when they disagree. */
int emit_shape_init(struct emit_shape *sh, const struct plan *p,
		    const struct profile *prof);
void emit_shape_release(struct emit_shape *sh);

/* Write s to fp quoted for the shell when it needs quoting. */
void emit_sh_word(FILE *fp, const char *s);

/* One writer per format; fp is open, the caller commits it.  0 or -1. */
int emit_megatron(FILE *fp, const struct plan *p, const struct profile *prof,
		  const struct emit_shape *sh);
int emit_deepspeed(FILE *fp, const struct plan *p, const struct profile *prof,
		   const struct emit_shape *sh);
int emit_launch(FILE *fp, const struct plan *p, const struct profile *prof,
		const struct emit_shape *sh);

#endif
