/*
 * emit.h - turn a plan into what a runtime launches: Megatron-LM command
 * line arguments, a DeepSpeed config and pipeline partition, or a
 * Slurm/torchrun launch snippet whose rank order realises the placement.
 */
#ifndef PD2BW_EMIT_H
#define PD2BW_EMIT_H

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

#endif
