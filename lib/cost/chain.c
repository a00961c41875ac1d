/*
 * chain.c - flatten a profile's layer chain (repeats expanded) into arrays
 * and prefix sums for the partitioner.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/chain.h"
#include "pd2bw/error.h"

/*
 * Megatron's tensor-parallel all-reduces per microbatch: a block has two
 * forward (after attention and after the MLP) and two backward (their
 * conjugates at the QKV and MLP inputs), and its forward pair again when
 * fully recomputed; the vocabulary-parallel embedding reduces its output
 * (again when recomputed: rerun, chain_full_reruns()), the head reduces
 * its input gradient.  Under sequence parallelism each is a reduce-
 * scatter and an all-gather; a selective recomputation that gathers
 * again but keeps the reduce-scatters' outputs (sel, torchtitan's per-op
 * policy: PROF_RERUN_TP_GATHER) adds the forward's two all-gathers, the
 * bytes of one all-reduce; a full one that stops before the MLP's last
 * GEMM (PROF_RERUN_EARLY_RS, _AR) leaves the reduction after it out.
 * The chain keeps what the runtime leaves exposed: a block's backward
 * less what its weight-gradient GEMMs hide (the profile's
 * tp_block_hidden, analytic.c).
 */
static double
tp_allreduces(int kind, int r, int rerun, unsigned sel)
{
	int again = r == PROF_RC_FULL && rerun;
	double early = (sel & PROF_RERUN_EARLY_AR)   ? 1
		       : (sel & PROF_RERUN_EARLY_RS) ? 0.5
						     : 0;

	switch (kind) {
	case PROF_BLOCK:
		return 4 + (again ? 2 - early : 0) +
		       (r == PROF_RC_SELECTIVE &&
				(sel & PROF_RERUN_TP_GATHER)
			    ? 1
			    : 0);
	case PROF_EMBED:
		return 1 + (again ? 1 : 0);
	case PROF_HEAD:
		return 1;
	default:
		return 0;
	}
}

/* the last chain id handed out (threads may build chains at once) */
static atomic_ulong chain_ids;

int
chain_build(struct chain *c, const struct profile *p)
{
	int i, j, k, r, L = 0, n, nblk = 0;
	size_t nk;

	memset(c, 0, sizeof(*c));
	c->id = atomic_fetch_add(&chain_ids, 1) + 1;
	for (i = 0; i < p->nlayers; i++)
		L += p->layers[i].repeat;
	if (L < 1 || p->nmb < 1)
		return pd2bw_error("profile has no layers");
	c->L = L;
	c->passes = p->lora_rank > 0 ? 2 : 3;
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
	c->kern = xcalloc(nk, sizeof(double));
	c->kernf = xcalloc(nk, sizeof(double));
	c->kerngf = xcalloc(nk, sizeof(double));
	c->kerngb = xcalloc(nk, sizeof(double));
	c->cp = p->cp > 1 ? p->cp : 1;
	c->ep = p->ep > 1 ? p->ep : 1;
	c->etp = p->etp > 0 ? p->etp : c->tp;
	c->route = p->route;
	c->eparams = xcalloc(L, sizeof(int64_t));
	c->pre_eparams = xcalloc(L + 1, sizeof(int64_t));
	c->mparams = xcalloc(L, sizeof(int64_t));
	c->pre_mparams = xcalloc(L + 1, sizeof(int64_t));
	c->pre_m16 = xcalloc(L + 1, sizeof(int64_t));
	c->pre_c16 = xcalloc(L + 1, sizeof(int64_t));
	c->bf16 = xcalloc(L, sizeof(int));
	c->p16 = xcalloc(L, sizeof(int64_t));
	c->tpb = xcalloc(L, sizeof(double));
	c->pre_ns = xcalloc(L + 1, sizeof(double));
	c->pre_nse = xcalloc(L + 1, sizeof(double));
	/* the expert buffer under expert or tensor parallelism */
	if (c->ep > 1 || (p->tp > 1 && p->route.experts > 0))
		c->epx = xcalloc(nk, sizeof(double));
	if (c->ep > 1) {
		c->epsf = xcalloc(nk, sizeof(double));
		c->epaf = xcalloc(nk, sizeof(double));
		c->epab = xcalloc(nk, sizeof(double));
	}
	if (c->cp > 1) {
		c->cpx = xcalloc(nk, sizeof(double));
		c->cpf = xcalloc(nk, sizeof(double));
		c->cpb = xcalloc(nk, sizeof(double));
	}
	for (r = 0; r < PROF_RC_N; r++) {
		c->rc[r] = xcalloc(nk, sizeof(double));
		c->stash[r] = xcalloc(nk, sizeof(double));
	}
	c->pre_t = xcalloc((size_t)p->nmb * PROF_RC_N * (L + 1),
			   sizeof(double));
	c->pre_tpn = xcalloc((size_t)p->nmb * PROF_RC_N * (L + 1),
			     sizeof(double));
	c->pre_tpx = xcalloc((size_t)p->nmb * PROF_RC_N * (L + 1),
			     sizeof(double));
	c->rerun = xcalloc(nk, sizeof(unsigned));
	c->kind = xcalloc(L, sizeof(int));
	c->half = xcalloc(L, sizeof(double));
	c->block_no = xcalloc(L, sizeof(int));
	c->tp = p->tp > 0 ? p->tp : 1;
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
			c->eparams[j] = ly->expert_params;
			c->kind[j] = ly->kind;
			c->half[j] = ly->sublayers == 1 ? 0.5 : 1;
			c->block_no[j] = ly->kind == PROF_BLOCK ? nblk++ : -1;
			c->mparams[j] = ly->muon_params;
			c->pre_mparams[j + 1] = c->pre_mparams[j] + c->mparams[j];
			c->p16[j] = ly->params16 + ly->outside16;
			c->pre_m16[j + 1] = c->pre_m16[j] + c->p16[j];
			c->pre_c16[j + 1] = c->pre_c16[j] + ly->params16;
			c->bf16[j] = ly->bf16;
			c->tpb[j] = ly->tp_bytes;
			c->pre_ns[j + 1] = c->pre_ns[j] + ly->ns_flops;
			c->pre_nse[j + 1] = c->pre_nse[j] + ly->ns_expert_flops;
			for (k = 0; k < p->nmb; k++) {
				const struct prof_point *pt = &ly->pt[k];
				size_t at = (size_t)k * L + j;

				c->fb[at] = pt->fwd_ms + pt->bwd_ms;
				c->fwd[at] = pt->fwd_ms;
				c->out[at] = (double)pt->out_bytes;
				c->work[at] = (double)pt->work_bytes;
				c->flops[at] = pt->fwd_flops;
				c->kern[at] = pt->kernels;
				c->kernf[at] = pt->fwd_kernels;
				c->kerngf[at] = pt->graph_fwd_kernels;
				c->kerngb[at] = pt->graph_bwd_kernels;
				c->rerun[at] = pt->sel_rerun;
				if (c->epx)
					c->epx[at] = pt->ep_a2a_bytes;
				if (c->ep > 1) {
					c->epsf[at] = pt->ep_shared_fwd_ms;
					c->epaf[at] = pt->ep_pre_fwd_ms;
					c->epab[at] = pt->ep_pre_bwd_ms;
				}
				if (c->cp > 1) {
					c->cpx[at] = pt->cp_kv_bytes;
					c->cpf[at] = pt->attn_fwd_ms;
					c->cpb[at] = pt->attn_bwd_ms;
				}
				for (r = 0; r < PROF_RC_N; r++) {
					c->rc[r][at] = pt->recomp_ms[r];
					c->stash[r][at] =
						(double)pt->stash_bytes[r];
				}
			}
		}
	}
	c->nblocks = nblk;
	for (j = 0; j < L; j++) {
		c->pre_params[j + 1] = c->pre_params[j] + c->params[j];
		c->pre_eparams[j + 1] = c->pre_eparams[j] + c->eparams[j];
	}
	n = L + 1;
	for (k = 0; k < p->nmb; k++) {
		/* The full activation a tensor-parallel layer reduces (one
		 * rank's s / cp tokens under context parallelism). */
		double x = (double)p->mb[k] * (double)p->seq_len *
			   (double)p->hidden *
			   (p->precision && !strcmp(p->precision, "fp32") ? 4
									  : 2) /
			   c->cp;
		/* a block's share of it (FP8 all-gathers) */
		double xb = x * p->tp_block_bytes;

		for (r = 0; r < PROF_RC_N; r++) {
			size_t off = ((size_t)k * PROF_RC_N + r) * n;
			double *pre = c->pre_t + off;

			for (j = 0; j < L; j++) {
				/* a hybrid model's one-sublayer block
				 * reduces half a block's */
				double na = c->half[j] *
					    tp_allreduces(
						    c->kind[j], r,
						    chain_full_reruns(c, k, j),
						    c->rerun[(size_t)k * L + j]);
				/* what the block's weight-gradient GEMMs
				 * hide: 16-bit all-reduces' worth */
				double nh = c->kind[j] == PROF_BLOCK
						    ? c->half[j] *
							      p->tp_block_hidden
						    : 0;

				pre[j + 1] = pre[j] + CHAIN_AT(c, c->fb, k, j) +
					     CHAIN_AT(c, c->rc[r], k, j);
				c->pre_tpn[off + j + 1] =
					c->pre_tpn[off + j] + na - nh;
				c->pre_tpx[off + j + 1] =
					c->pre_tpx[off + j] +
					na * (c->kind[j] != PROF_BLOCK ||
							      c->bf16[j]
						      ? x
						      : c->tpb[j] > 0
						      ? x * c->tpb[j]
						      : xb) -
					nh * x;
			}
		}
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
	free(c->kern);
	free(c->kernf);
	free(c->kerngf);
	free(c->kerngb);
	free(c->cpx);
	free(c->cpf);
	free(c->cpb);
	free(c->eparams);
	free(c->pre_eparams);
	free(c->mparams);
	free(c->pre_mparams);
	free(c->pre_m16);
	free(c->pre_c16);
	free(c->bf16);
	free(c->p16);
	free(c->tpb);
	free(c->pre_ns);
	free(c->pre_nse);
	free(c->epx);
	free(c->epsf);
	free(c->epaf);
	free(c->epab);
	for (r = 0; r < PROF_RC_N; r++) {
		free(c->rc[r]);
		free(c->stash[r]);
	}
	free(c->pre_t);
	free(c->rerun);
	free(c->pre_tpn);
	free(c->pre_tpx);
	free(c->kind);
	free(c->half);
	free(c->block_no);
	memset(c, 0, sizeof(*c));
}

double
chain_time(const struct chain *c, int k, int r, int a, int e)
{
	const double *pre = c->pre_t + ((size_t)k * PROF_RC_N + r) * (c->L + 1);

	return pre[e + 1] - pre[a];
}

double
chain_tp_count(const struct chain *c, int k, int r, int a, int e)
{
	const double *pre =
		c->pre_tpn + ((size_t)k * PROF_RC_N + r) * (c->L + 1);

	return pre[e + 1] - pre[a];
}

double
chain_tp_bytes(const struct chain *c, int k, int r, int a, int e)
{
	const double *pre =
		c->pre_tpx + ((size_t)k * PROF_RC_N + r) * (c->L + 1);

	return pre[e + 1] - pre[a];
}

int64_t
chain_params(const struct chain *c, int a, int e)
{
	return c->pre_params[e + 1] - c->pre_params[a];
}

int64_t
chain_eparams(const struct chain *c, int a, int e)
{
	return c->pre_eparams ? c->pre_eparams[e + 1] - c->pre_eparams[a] : 0;
}

int64_t
chain_m16(const struct chain *c, int a, int e)
{
	return c->pre_m16 ? c->pre_m16[e + 1] - c->pre_m16[a] : 0;
}

int64_t
chain_c16(const struct chain *c, int a, int e)
{
	return c->pre_c16 ? c->pre_c16[e + 1] - c->pre_c16[a] : 0;
}

int64_t
chain_muon(const struct chain *c, int a, int e, double *ns, double *nse)
{
	*ns = *nse = 0;
	if (!c->pre_ns)
		return 0;
	*ns = c->pre_ns[e + 1] - c->pre_ns[a];
	*nse = c->pre_nse[e + 1] - c->pre_nse[a];
	return c->pre_mparams[e + 1] - c->pre_mparams[a];
}
