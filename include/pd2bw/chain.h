/*
 * chain.h - a profile flattened for the search: one entry per layer after
 * expanding repeats, with per-microbatch arrays and prefix sums so that any
 * contiguous stage's time is O(1).
 */
#ifndef PD2BW_CHAIN_H
#define PD2BW_CHAIN_H

#include <stdint.h>

#include "pd2bw/profile.h"

struct chain {
	unsigned long id;     /* chain_build()'s own, never 0: what caches of
				 the arrays below key on (the arrays are read
				 only once the chain is searched) */
	int L;                /* layers */
	int nmb;              /* microbatch sizes, as in the profile */
	const int *mb;        /* borrowed from the profile */
	int64_t *params;      /* [L] */
	int64_t *pre_params;  /* [L+1] prefix sums */
	/* Per microbatch index k, arrays of L entries at offset k*L. */
	double *fb;           /* forward + backward ms */
	double *fwd;          /* forward ms alone */
	double *rc[PROF_RC_N];    /* extra recomputation ms */
	double *out;          /* boundary activation bytes after layer j */
	double *stash[PROF_RC_N]; /* stashed bytes */
	double *work;         /* workspace bytes */
	double *flops;        /* forward FLOPs */
	double passes;        /* model FLOPs a step over the forward's: 3
				 (forward, input and weight gradients), 2
				 when the weights are frozen (LoRA: no
				 weight gradients, as NeMo counts it) */
	double *kern;         /* kernels launched forward + backward */
	double *kernf;        /* of those, the forward's (0: unknown) */
	double *kerngf, *kerngb; /* of those, a MoE block's up to its
				  dispatch, forward and backward */
	unsigned *rerun;      /* the collectives selective recomputation
				 runs again (prof_point sel_rerun) */
	/* Prefix sums over j of fb + rc[r], [(k*PROF_RC_N + r)*(L+1) + j]. */
	double *pre_t;
	/* Tensor-parallel all-reduces per microbatch, same indexing: their
	 * count and the bytes of activation they reduce (see chain.c). */
	double *pre_tpn, *pre_tpx;
	int *kind;            /* [L] enum prof_kind */
	int *bf16;            /* [L] a quantised model's block kept in 16
				 bits (the profile's bf16) */
	double *tpb;          /* [L] a block's tensor-parallel bytes against
				 16-bit ones where its own (the profile's
				 tp_bytes), else 0 */
	int64_t *p16;         /* [L] of a layer's parameters, those held in
				 16 bits without quantised copies (the
				 profile's params16 + outside16) */
	double *half;         /* [L] 0.5 for a one-sublayer block, else 1 */
	int *block_no;        /* [L] index among the transformer blocks,
				 from 0; -1 for other layers */
	int nblocks;          /* the transformer blocks */
	int tp;               /* the profile's tensor-parallel degree */
	int cp;               /* its context-parallel degree (1: none) */
	/* With cp > 1, per microbatch index and layer as fb: the K and V
	 * bytes a rank sends per ring step, and the attention passes
	 * (forward, backward) the steps overlap; NULL otherwise. */
	double *cpx, *cpf, *cpb;
	int ep;               /* its expert-parallel degree (1: none) */
	int etp;              /* expert tensor parallelism: 1 or tp */
	struct moe_route route; /* the profile's */
	int64_t *eparams;     /* [L] routed experts' parameters (of params) */
	int64_t *pre_eparams; /* [L+1] prefix sums */
	/* With ep > 1, per microbatch index and layer: the bytes of one
	 * dispatch all-to-all's send buffer, the shared experts' forward
	 * ms and the pre-dispatch part's forward and backward ms; NULL
	 * otherwise. */
	double *epx, *epsf, *epaf, *epab;
	char **names;         /* [L] "block.3" etc. (owned) */
	/* The blocks' matrices: [L] the parameters Muon manages (the
	 * profile's muon_params), which FP8 quantises too,
	 * and [L+1] their prefix sums, and prefix sums of its Newton-Schulz
	 * FLOPs, all and the routed experts' */
	int64_t *mparams, *pre_mparams;
	double *pre_ns, *pre_nse;
	/* [L+1] prefix sums of what a quantised model holds in 16 bits
	 * without quantised copies (p16: the profile's params16 and
	 * outside16), and of the part within mparams (params16), whose
	 * weights are never cast */
	int64_t *pre_m16, *pre_c16;
};

/* The parameters of layers [a, e] a quantised model holds in 16 bits
 * without quantised copies. */
int64_t chain_m16(const struct chain *c, int a, int e);
/* Of chain_muon()'s parameters of layers [a, e], those kept in 16 bits
 * (no weight cast). */
int64_t chain_c16(const struct chain *c, int a, int e);

/*
 * Muon's Newton-Schulz FLOPs per step of layers [a, e], all in *ns and the
 * routed experts' in *nse; their parameters Muon manages.  0 when the
 * profile does not give them (a profile file).
 */
int64_t chain_muon(const struct chain *c, int a, int e, double *ns,
		   double *nse);

/* Build c from p.  Returns 0, or -1 when p has no layers. */
int chain_build(struct chain *c, const struct profile *p);
void chain_release(struct chain *c);

/* Time (fb + rc[r]) of layers [a, e] at microbatch index k. */
double chain_time(const struct chain *c, int k, int r, int a, int e);
/* Tensor-parallel all-reduces of layers [a, e]: count and bytes. */
double chain_tp_count(const struct chain *c, int k, int r, int a, int e);
double chain_tp_bytes(const struct chain *c, int k, int r, int a, int e);
/* Parameters of layers [a, e]. */
int64_t chain_params(const struct chain *c, int a, int e);
/* Of which the routed experts'. */
int64_t chain_eparams(const struct chain *c, int a, int e);
/* Per-layer value at microbatch index k. */
#define CHAIN_AT(c, arr, k, j) ((arr)[(size_t)(k) * (c)->L + (j)])

/*
 * Whether layer j's full recomputation reruns anything at microbatch index
 * k.  The runtimes checkpoint the transformer blocks alone (pd2bw-plan(1),
 * Cost model): an embedding's or a head's "full" figures are its
 * no-recomputation ones, nothing rerun, nothing rebuilt in backward, no
 * all-reduce repeated.
 */
static inline int
chain_full_reruns(const struct chain *c, int k, int j)
{
	return CHAIN_AT(c, c->rc[PROF_RC_FULL], k, j) > 0;
}

#endif
