/*
 * emit_launch.c - --emit launch (being written).
 */
#include "emit.h"
#include "pd2bw/error.h"

int
emit_launch(FILE *fp, const struct plan *p, const struct profile *prof,
	const struct emit_shape *sh)
{
	(void)fp;
	(void)p;
	(void)prof;
	(void)sh;
	return pd2bw_error("--emit launch is not implemented yet");
}
