/*
 * emit.c - --emit: open the output atomically, work out the plan's
 * transformer shape (embedding, blocks, head per stage) and hand both to
 * the writer of the format (emit_megatron.c, emit_deepspeed.c,
 * emit_launch.c).
 */
#include <stdlib.h>
#include <string.h>

#include "emit/emit.h"
#include "pd2bw/afile.h"
#include "pd2bw/error.h"

const char *const emit_fmt_names[] = {"megatron", "deepspeed", "launch",
				      NULL};

int
emit_shape_init(struct emit_shape *sh, const struct plan *p,
		const struct profile *prof)
{
	int *kind, n = 0, i, j, s;

	memset(sh, 0, sizeof(*sh));
	if (p->nstages < 1)
		return pd2bw_error("the plan has no stages");
	kind = xcalloc((size_t)profile_chain_len(prof) + 1, sizeof(*kind));
	for (i = 0; i < prof->nlayers; i++)
		for (j = 0; j < prof->layers[i].repeat; j++)
			kind[n++] = prof->layers[i].kind;
	if (n != p->nlayers) {
		free(kind);
		return pd2bw_error("the plan has %d layers but the profile %d",
				   p->nlayers, n);
	}
	sh->blocks = xcalloc((size_t)p->nstages, sizeof(*sh->blocks));
	sh->embed = xcalloc((size_t)p->nstages, sizeof(*sh->embed));
	sh->head = xcalloc((size_t)p->nstages, sizeof(*sh->head));
	/* A transformer chain: at most one embedding first, blocks, at most
	 * one head last (design.md section 4). */
	sh->transformer = 1;
	for (i = 0; i < n; i++) {
		if (kind[i] == PROF_BLOCK)
			sh->nblocks++;
		else if (!(kind[i] == PROF_EMBED && i == 0) &&
			 !(kind[i] == PROF_HEAD && i == n - 1))
			sh->transformer = 0;
	}
	for (s = 0; s < p->nstages; s++)
		for (i = p->stages[s].first; i <= p->stages[s].last; i++) {
			if (i < 0 || i >= n)
				continue;
			if (kind[i] == PROF_BLOCK)
				sh->blocks[s]++;
			else if (kind[i] == PROF_EMBED)
				sh->embed[s] = 1;
			else if (kind[i] == PROF_HEAD)
				sh->head[s] = 1;
		}
	free(kind);
	return 0;
}

void
emit_shape_release(struct emit_shape *sh)
{
	free(sh->blocks);
	free(sh->embed);
	free(sh->head);
	memset(sh, 0, sizeof(*sh));
}

void
emit_sh_word(FILE *fp, const char *s)
{
	const char *c;

	if (!*s) {
		fputs("''", fp);
		return;
	}
	for (c = s; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%",
			    *c))
			break;
	if (!*c) {
		fputs(s, fp);
		return;
	}
	/* Single quotes keep everything but a single quote: close, write
	 * it escaped, reopen. */
	fputc('\'', fp);
	for (c = s; *c; c++) {
		if (*c == '\'')
			fputs("'\\''", fp);
		else
			fputc(*c, fp);
	}
	fputc('\'', fp);
}

int
emit_write(const struct plan *p, const struct profile *prof, int fmt,
	   const char *path)
{
	struct emit_shape sh;
	struct afile f;
	int ret = -1;

	if (emit_shape_init(&sh, p, prof))
		return -1;
	if (afile_open(&f, path))
		goto out;
	switch (fmt) {
	case EMIT_MEGATRON:
		ret = emit_megatron(f.fp, p, prof, &sh);
		break;
	case EMIT_DEEPSPEED:
		ret = emit_deepspeed(f.fp, p, prof, &sh);
		break;
	case EMIT_LAUNCH:
		ret = emit_launch(f.fp, p, prof, &sh);
		break;
	default:
		ret = pd2bw_error("unknown --emit format %d", fmt);
		break;
	}
	if (ret) {
		afile_abort(&f);
		goto out;
	}
	ret = afile_commit(&f);
out:
	emit_shape_release(&sh);
	return ret;
}
