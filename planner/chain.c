/*
 * chain.c - flatten a profile's layer chain (repeats expanded) into arrays
 * and prefix sums for the partitioner.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "pd2bw/error.h"

int
chain_build(struct chain *c, const struct profile *p)
{
	int i, j, k, r, L = 0, n;
	size_t nk;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < p->nlayers; i++)
		L += p->layers[i].repeat;
	if (L < 1 || p->nmb < 1)
		return pd2bw_error("profile has no layers");
	c->L = L;
	c->nmb = p->nmb;
	c->mb = p->mb;
	nk = (size_t)p->nmb * L;
	c->params = xcalloc(L, sizeof(int64_t));
	c->pre_params = xcalloc(L + 1, sizeof(int64_t));
	c->fb = xcalloc(nk, sizeof(double));
	c->fwd = xcalloc(nk, sizeof(double));
	c->out = xcalloc(nk, sizeof(double));
	c->work = xcalloc(nk, sizeof(double));
	c->flops = xcalloc(nk, sizeof(double));
	for (r = 0; r < PROF_RC_N; r++) {
		c->rc[r] = xcalloc(nk, sizeof(double));
		c->stash[r] = xcalloc(nk, sizeof(double));
	}
	c->pre_t = xcalloc((size_t)p->nmb * PROF_RC_N * (L + 1),
			   sizeof(double));
	c->names = xcalloc(L, sizeof(char *));
	for (i = 0, j = 0; i < p->nlayers; i++) {
		const struct prof_layer *ly = &p->layers[i];
		int cp;

		for (cp = 0; cp < ly->repeat; cp++, j++) {
			size_t len = strlen(ly->name) + 16;

			c->names[j] = xmalloc(len);
			if (ly->repeat > 1)
				snprintf(c->names[j], len, "%s.%d", ly->name,
					 cp);
			else
				snprintf(c->names[j], len, "%s", ly->name);
			c->params[j] = ly->params;
			for (k = 0; k < p->nmb; k++) {
				const struct prof_point *pt = &ly->pt[k];
				size_t at = (size_t)k * L + j;

				c->fb[at] = pt->fwd_ms + pt->bwd_ms;
				c->fwd[at] = pt->fwd_ms;
				c->out[at] = (double)pt->out_bytes;
				c->work[at] = (double)pt->work_bytes;
				c->flops[at] = pt->fwd_flops;
				for (r = 0; r < PROF_RC_N; r++) {
					c->rc[r][at] = pt->recomp_ms[r];
					c->stash[r][at] =
						(double)pt->stash_bytes[r];
				}
			}
		}
	}
	for (j = 0; j < L; j++)
		c->pre_params[j + 1] = c->pre_params[j] + c->params[j];
	n = L + 1;
	for (k = 0; k < p->nmb; k++)
		for (r = 0; r < PROF_RC_N; r++) {
			double *pre = c->pre_t + ((size_t)k * PROF_RC_N + r) * n;

			for (j = 0; j < L; j++)
				pre[j + 1] = pre[j] + CHAIN_AT(c, c->fb, k, j) +
					     CHAIN_AT(c, c->rc[r], k, j);
		}
	return 0;
}

void
chain_release(struct chain *c)
{
	int j, r;

	for (j = 0; j < c->L && c->names; j++)
		free(c->names[j]);
	free(c->names);
	free(c->params);
	free(c->pre_params);
	free(c->fb);
	free(c->fwd);
	free(c->out);
	free(c->work);
	free(c->flops);
	for (r = 0; r < PROF_RC_N; r++) {
		free(c->rc[r]);
		free(c->stash[r]);
	}
	free(c->pre_t);
	memset(c, 0, sizeof(*c));
}

double
chain_time(const struct chain *c, int k, int r, int a, int e)
{
	const double *pre = c->pre_t + ((size_t)k * PROF_RC_N + r) * (c->L + 1);

	return pre[e + 1] - pre[a];
}

int64_t
chain_params(const struct chain *c, int a, int e)
{
	return c->pre_params[e + 1] - c->pre_params[a];
}
