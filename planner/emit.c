/*
 * emit.c - runtime launch files from a plan (being written).
 */
#include "emit.h"
#include "pd2bw/error.h"

const char *const emit_fmt_names[] = {"megatron", "deepspeed", "launch",
				      NULL};

int
emit_write(const struct plan *p, const struct profile *prof, int fmt,
	   const char *path)
{
	(void)p;
	(void)prof;
	(void)path;
	return pd2bw_error("--emit %s is not implemented yet",
			   emit_fmt_names[fmt]);
}
