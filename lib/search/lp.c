/*
 * lp.c - per-layer recomputation as a multiple-choice knapsack, solved
 * exactly with GLPK's branch and cut.
 *
 * Variables x[j][r] in {0, 1}: layer j recomputes with option r; one per
 * layer (identical layers are grouped, x then counts how many of the group
 * take r).  y in {0, 1}: some layer recomputes fully, so one layer's whole
 * activations are rebuilt during backward (the largest of those a full
 * recomputation reruns, chain_full_reruns(), as cost_stage() counts it).
 * Memory:
 *   weights + state + work + sum inflight_j x[j][r] stash[j][r] + y peak
 *     <= cap
 * (inflight_j the stashes layer j's stage keeps at once, apart for the
 * layers outside the blocks: cost_stash_mbs_out())
 * and x[j][full] <= y for those layers.  Objective: sum x[j][r] (rc[j][r] +
 * tp[j][r]), the recomputation time plus the tensor-parallel all-reduces
 * full recomputation repeats.
 */
#include <glpk.h>
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/lp.h"
#include "pd2bw/error.h"
#include "pd2bw/hash.h"

const char *const lp_status_names[] = {"optimal", "feasible", "infeasible",
				       "error", NULL};

/* The runtime's allocator margin on activations and workspace. */
static double
margin(const struct cost_opts *o, const struct cost_cfg *g)
{
	const struct runtime *rt = cost_cfg_runtime(o, g);

	return 1 + rt->frag;
}

/*
 * Fixed memory of the stage: weights, state, workspace (with its margin)
 * and the runtime's context.
 */
static double
fixed_mem(const struct chain *c, const struct cost_opts *o,
	  const struct cost_cfg *g, int a, int e)
{
	const struct runtime *rt = cost_cfg_runtime(o, g);
	double wk = 0, ns, nse;
	int64_t mp = chain_muon(c, a, e, &ns, &nse);
	int j;

	for (j = a; j <= e; j++)
		if (CHAIN_AT(c, c->work, g->k, j) > wk)
			wk = CHAIN_AT(c, c->work, g->k, j);
	return (double)chain_params(c, a, e) * cost_param_bytes(o, g) +
	       (double)mp * cost_muon_delta(o, g) +
	       (double)chain_m16(c, a, e) * cost_w16(o, g) +
	       wk * margin(o, g) + rt->context_bytes;
}

static double
peak_layer(const struct chain *c, const struct cost_cfg *g, int a, int e)
{
	double pk = 0;
	int j;

	for (j = a; j <= e; j++)
		if (chain_full_reruns(c, g->k, j) &&
		    CHAIN_AT(c, c->stash[PROF_RC_NONE], g->k, j) > pk)
			pk = CHAIN_AT(c, c->stash[PROF_RC_NONE], g->k, j);
	return pk;
}

double
lp_stage_mem(const struct chain *c, const struct cost_opts *o,
	     const struct cost_cfg *g, int s, int a, int e, const int *rc)
{
	struct plan_stage st;

	memset(&st, 0, sizeof(st));
	cost_stage_mem(c, o, g, s, a, e, rc, &st);
	return (double)st.mem_bytes;
}

/* Extra time of layer j under option r, per microbatch. */
static double
extra_ms(const struct chain *c, const struct cost_cfg *g,
	 const struct place_links *l, int s, int j, int r)
{
	double t = CHAIN_AT(c, c->rc[r], g->k, j);

	if (g->t > 1) {
		double n = chain_tp_count(c, g->k, r, j, j) -
			   chain_tp_count(c, g->k, PROF_RC_NONE, j, j);
		double x = chain_tp_bytes(c, g->k, r, j, j) -
			   chain_tp_bytes(c, g->k, PROF_RC_NONE, j, j);

		t += 2.0 * (g->t - 1) / g->t * x / (l->tp_gb_s[s] * 1e6) +
		     n * l->tp_lat_us[s] * 1e-3;
	}
	return t;
}

/* Layers j and i behave alike under every option: one group. */
static int
alike(const struct chain *c, const struct cost_cfg *g, int i, int j)
{
	int r;

	/* their stashes count apart (cost_stash_mbs_out()) */
	if (cost_layer_outside(c, i) != cost_layer_outside(c, j))
		return 0;
	for (r = 0; r < PROF_RC_N; r++)
		if (CHAIN_AT(c, c->rc[r], g->k, i) !=
			    CHAIN_AT(c, c->rc[r], g->k, j) ||
		    CHAIN_AT(c, c->stash[r], g->k, i) !=
			    CHAIN_AT(c, c->stash[r], g->k, j) ||
		    chain_tp_bytes(c, g->k, r, i, i) !=
			    chain_tp_bytes(c, g->k, r, j, j))
			return 0;
	return 1;
}

/*
 * A hash of what alike() compares of layer j: layers alike() groups have
 * the same (each number plus 0, so that -0 hashes as the 0 it equals),
 * and layers of different hashes are not alike, so a stage's layers are
 * compared with the groups of their hash alone (resnext101's stages of
 * a hundred distinct layers: 27,000 calls of chain_tp_bytes() a search).
 */
static uint64_t
alike_sig(const struct chain *c, const struct cost_cfg *g, int j)
{
	double x[3 * PROF_RC_N];
	int r;

	for (r = 0; r < PROF_RC_N; r++) {
		x[3 * r] = CHAIN_AT(c, c->rc[r], g->k, j) + 0.0;
		x[3 * r + 1] = CHAIN_AT(c, c->stash[r], g->k, j) + 0.0;
		x[3 * r + 2] = chain_tp_bytes(c, g->k, r, j, j) + 0.0;
	}
	return pd2bw_hash_bytes(x, sizeof(x));
}

/*
 * GLPK aborts the process when it fails (out of memory included) unless
 * a hook leaves by longjmp; the caller then frees GLPK's whole
 * environment.  lp_stage runs on one thread at a time (the search calls
 * it after its solving threads are done with a round).
 */
static void
glpk_failed(void *info)
{
	longjmp(*(jmp_buf *)info, 1);
}

/* GLPK's output, its error messages included (which turn its terminal
 * output back on), goes nowhere: the caller reports a failure. */
static int
glpk_quiet(void *info, const char *s)
{
	(void)info;
	(void)s;
	return 1;
}

/* setup() and search_solve() stay out of lp_stage(), whose setjmp would
 * otherwise see their variables (gcc's -Wclobbered). */
#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

/* One stage's problem, as lp_stage() sets it up for search_solve(). */
struct lp_in {
	const struct chain *c;
	const struct cost_opts *o;
	const struct cost_cfg *g;
	const struct place_links *l;
	const struct lp_opts *lo;
	int s, a, e, n, nr, ng;
	int opts[PROF_RC_N];
	int *gof, *rep, *size;  /* layer's group, group's first layer, size */
	int *ia, *ja;           /* the matrix, cap 4 ng nr + 4 entries */
	double *ar, inflight, budget;
	double inflight_out; /* of the layers outside the blocks */
	int nz;                 /* its entries (from 1) */
	double *obj;            /* [ng nr] the columns' costs */
	int *count;             /* [ng nr] the answer: how many of each
				   group take each option */
};

/*
 * What search_solve() answered a problem: the problem as GLPK gets it, to the
 * last bit (key, nkey bytes, hash h), its status, objective and counts
 * (NULL: unused slot).
 */
struct lp_answer {
	unsigned char *key;
	size_t nkey;
	uint64_t h;
	int ret;
	double extra;
	int *count; /* [ng nr] */
};

struct lp_memo {
	struct lp_answer *e;
	size_t n, cap; /* cap a power of two */
	unsigned char *buf; /* the key being built */
	size_t nbuf, abuf;
};

struct lp_memo *
lp_memo_new(void)
{
	return xcalloc(1, sizeof(struct lp_memo));
}

void
lp_memo_free(struct lp_memo *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->cap; i++) {
		free(m->e[i].key);
		free(m->e[i].count);
	}
	free(m->e);
	free(m->buf);
	free(m);
}

static void
key_add(struct lp_memo *m, const void *p, size_t n)
{
	xgrow((void **)&m->buf, &m->abuf, m->nbuf + n, 1);
	memcpy(m->buf + m->nbuf, p, n);
	m->nbuf += n;
}

/*
 * in's problem as GLPK gets it, into m->buf: every number search_solve() hands
 * GLPK (the options, the groups' sizes, the costs, the matrix, the
 * budget) and GLPK's own options, which are all its answer reads.
 */
static void
key_of(struct lp_memo *m, const struct lp_in *in)
{
	size_t nc = (size_t)in->ng * in->nr;
	double b = in->budget / 1e9;

	m->nbuf = 0;
	key_add(m, &in->nr, sizeof(in->nr));
	key_add(m, in->opts, (size_t)in->nr * sizeof(*in->opts));
	key_add(m, &in->ng, sizeof(in->ng));
	key_add(m, in->size, (size_t)in->ng * sizeof(*in->size));
	key_add(m, in->obj, nc * sizeof(*in->obj));
	key_add(m, &in->nz, sizeof(in->nz));
	key_add(m, in->ia + 1, (size_t)in->nz * sizeof(*in->ia));
	key_add(m, in->ja + 1, (size_t)in->nz * sizeof(*in->ja));
	key_add(m, in->ar + 1, (size_t)in->nz * sizeof(*in->ar));
	key_add(m, &b, sizeof(b));
	key_add(m, &in->lo->mip_gap, sizeof(in->lo->mip_gap));
	key_add(m, &in->lo->time_limit_ms, sizeof(in->lo->time_limit_ms));
}

/* The free slot for hash h (m->cap > 0). */
static struct lp_answer *
answer_free_slot(struct lp_memo *m, uint64_t h)
{
	size_t i;

	for (i = h & (m->cap - 1); m->e[i].key; i = (i + 1) & (m->cap - 1))
		;
	return &m->e[i];
}

/* The slot of the key in m->buf: its answer, or the free slot for it
 * (key NULL).  Kept at most half full, grown only for a key it lacks, as
 * memo.c's search_slot_find(). */
static struct lp_answer *
answer_find(struct lp_memo *m, uint64_t h)
{
	struct lp_answer *e = NULL;
	size_t i;

	for (i = m->cap ? h & (m->cap - 1) : 0; m->cap;
	     i = (i + 1) & (m->cap - 1)) {
		e = &m->e[i];
		if (!e->key)
			break;
		if (e->h == h && e->nkey == m->nbuf &&
		    !memcmp(e->key, m->buf, m->nbuf))
			return e;
	}
	if (2 * (m->n + 1) > m->cap) {
		struct lp_answer *old = m->e;
		size_t j, ocap = m->cap;

		m->cap = ocap ? 2 * ocap : 256;
		m->e = xcalloc(m->cap, sizeof(*m->e));
		for (j = 0; j < ocap; j++)
			if (old[j].key)
				*answer_free_slot(m, old[j].h) = old[j];
		free(old);
		return answer_free_slot(m, h);
	}
	return e;
}

/*
 * in's costs and matrix, as search_solve() hands them to GLPK.  Columns:
 * x[group][opt] (how many of the group take it), then y.  Rows: counts
 * per group (ng), memory (1), x_full <= size y (ng).
 */
/* The stashes group q keeps at once, margin included: the layers
 * outside the blocks count apart (cost_mem_bytes()'s rule). */
static double
group_inflight(const struct lp_in *in, int q)
{
	return cost_layer_outside(in->c, in->a + in->rep[q]) ? in->inflight_out
							     : in->inflight;
}

static void
fill(struct lp_in *in)
{
	const struct chain *c = in->c;
	const struct cost_cfg *g = in->g;
	int ng = in->ng, nr = in->nr, a = in->a, e = in->e;
	int nz = 0, q, r, row, ycol = ng * nr + 1;
	int *ia = in->ia, *ja = in->ja;
	double *ar = in->ar;

	for (q = 0; q < ng; q++)
		for (r = 0; r < nr; r++)
			in->obj[q * nr + r] = extra_ms(c, g, in->l, in->s,
						       a + in->rep[q],
						       in->opts[r]);
	for (q = 0; q < ng; q++) {
		row = 1 + q;
		for (r = 0; r < nr; r++) {
			nz++;
			ia[nz] = row;
			ja[nz] = 1 + q * nr + r;
			ar[nz] = 1;
		}
	}
	row = ng + 1;
	/* Memory in GB keeps the coefficients well scaled. */
	for (q = 0; q < ng; q++)
		for (r = 0; r < nr; r++) {
			nz++;
			ia[nz] = row;
			ja[nz] = 1 + q * nr + r;
			ar[nz] = group_inflight(in, q) *
				 CHAIN_AT(c, c->stash[in->opts[r]], g->k,
					  a + in->rep[q]) /
				 1e9;
		}
	nz++;
	ia[nz] = row;
	ja[nz] = ycol;
	ar[nz] = peak_layer(c, g, a, e) * margin(in->o, g) / 1e9;
	for (q = 0; q < ng; q++) {
		row = ng + 2 + q;
		nz++;
		ia[nz] = row;
		ja[nz] = ycol;
		ar[nz] = -in->size[q];
		for (r = 0; r < nr; r++)
			if (in->opts[r] == PROF_RC_FULL &&
			    chain_full_reruns(c, g->k, a + in->rep[q])) {
				nz++;
				ia[nz] = row;
				ja[nz] = 1 + q * nr + r;
				ar[nz] = 1;
			}
	}
	in->nz = nz;
}

/*
 * The memory row (GB) of in->count as fill() has it, y 1 where some layer
 * that reruns recomputes fully (cost_mem_add()'s any_full).
 */
static double
mem_row(const struct lp_in *in)
{
	int i, y = 0, ycol = in->ng * in->nr + 1;
	double sum = 0;

	for (i = 1; i <= in->nz; i++)
		if (in->ia[i] > in->ng + 1 && in->ja[i] != ycol &&
		    in->count[in->ja[i] - 1] > 0)
			y = 1;
	for (i = 1; i <= in->nz; i++)
		if (in->ia[i] == in->ng + 1)
			sum +=
			    in->ar[i] *
			    (in->ja[i] == ycol ? y : in->count[in->ja[i] - 1]);
	return sum;
}

/*
 * Solve in's problem (fill()'s): its status, *extra and in->count for
 * LP_OPTIMAL and LP_FEASIBLE, whose mem_row() is within the budget.
 * GLPK may leave it by longjmp (glpk_failed): it touches nothing of its
 * caller's but in's arrays, which the caller frees.
 */
static NOINLINE int
search_solve(struct lp_in *in, double *extra)
{
	int ng = in->ng, nr = in->nr;
	int q, r, col, row, ycol, err, st, ret, k, got;
	double over = 0, slack = 0;
	glp_prob *lp;
	glp_iocp parm;

	glp_term_out(GLP_OFF);
	lp = glp_create_prob();
	glp_set_obj_dir(lp, GLP_MIN);
	glp_add_cols(lp, ng * nr + 1);
	for (q = 0; q < ng; q++)
		for (r = 0; r < nr; r++) {
			col = 1 + q * nr + r;
			glp_set_col_kind(lp, col, GLP_IV);
			glp_set_col_bnds(lp, col, GLP_DB, 0, in->size[q]);
			glp_set_obj_coef(lp, col, in->obj[q * nr + r]);
		}
	ycol = ng * nr + 1;
	glp_set_col_kind(lp, ycol, GLP_BV);
	glp_add_rows(lp, 2 * ng + 1);
	for (q = 0; q < ng; q++)
		glp_set_row_bnds(lp, 1 + q, GLP_FX, in->size[q], in->size[q]);
	glp_set_row_bnds(lp, ng + 1, GLP_UP, 0, in->budget / 1e9);
	for (q = 0; q < ng; q++) {
		row = ng + 2 + q;
		glp_set_row_bnds(lp, row, GLP_UP, 0, 0);
	}
	glp_load_matrix(lp, in->nz, in->ia, in->ja, in->ar);

	glp_init_iocp(&parm);
	parm.msg_lev = GLP_MSG_OFF;
	parm.presolve = GLP_ON;
	parm.mip_gap = in->lo->mip_gap;
	parm.tm_lim = in->lo->time_limit_ms;
	for (q = 1; q <= in->nz; q++)
		if (in->ia[q] == ng + 1)
			slack += parm.tol_int * fabs(in->ar[q]);
	for (k = 0;; k++) {
		err = glp_intopt(lp, &parm);
		st = glp_mip_status(lp);
		got = (err == 0 || err == GLP_ETMLIM || err == GLP_EMIPGAP) &&
		      (st == GLP_OPT || st == GLP_FEAS);
		if (!got)
			break;
		for (q = 0; q < ng; q++)
			for (r = 0; r < nr; r++)
				in->count[q * nr + r] = (int)(glp_mip_col_val(
						lp, 1 + q * nr + r) + 0.5);
		over = mem_row(in) - in->budget / 1e9;
		if (!(over > 0) || k == 16)
			break;
		/* GLPK rounds a relaxation within its integrality
		 * tolerance (tol_int) to integers without checking the
		 * rows again, the memory row then over the budget by a
		 * few kB: again with the row lowered by that and the most
		 * the rounding moves it, doubling */
		glp_set_row_bnds(lp, ng + 1, GLP_UP, 0,
				 in->budget / 1e9 - ldexp(over + slack, k));
	}
	if (got && over > 0) {
		ret = LP_ERROR;
	} else if (got) {
		*extra = glp_mip_obj_val(lp);
		ret = st == GLP_OPT && err == 0 ? LP_OPTIMAL : LP_FEASIBLE;
	} else if (err == GLP_ENOPFS || st == GLP_NOFEAS ||
		   (err == 0 && st != GLP_OPT && st != GLP_FEAS)) {
		ret = LP_INFEASIBLE;
	} else {
		ret = LP_ERROR;
	}
	glp_delete_prob(lp);
	return ret;
}

/* Hand each group's counts out to its layers in order. */
static void
hand_out(const struct lp_in *in, int *rc)
{
	int q, r, j, nr = in->nr;

	for (q = 0; q < in->ng; q++) {
		int left[PROF_RC_N];

		for (r = 0; r < nr; r++)
			left[r] = in->count[q * nr + r];
		for (j = 0, r = 0; j < in->n; j++) {
			if (in->gof[j] != q)
				continue;
			while (r < nr - 1 && left[r] == 0)
				r++;
			rc[j] = in->opts[r];
			left[r]--;
		}
	}
}

/* Set up in for stage s = layers a..e: the options, the groups of alike
 * layers and the matrix arrays.  Returns 0, or LP_INFEASIBLE when no
 * option is allowed. */
static NOINLINE int
setup(struct lp_in *in, const struct chain *c, const struct cost_opts *o,
      const struct cost_cfg *g, const struct place_links *l, int s, int a,
      int e, const struct lp_opts *lo)
{
	int j, r, q, cap_nz;
	uint64_t *gsig; /* by group: its first layer's alike_sig() */

	memset(in, 0, sizeof(*in));
	in->c = c;
	in->o = o;
	in->g = g;
	in->l = l;
	in->lo = lo;
	in->s = s;
	in->a = a;
	in->e = e;
	in->n = e - a + 1;
	for (r = 0; r < PROF_RC_N; r++)
		if (lo->rc_mask & (1u << r))
			in->opts[in->nr++] = r;
	if (!in->nr)
		return LP_INFEASIBLE;
	in->inflight = cost_stash_mbs(g, s) * margin(o, g);
	in->inflight_out = cost_stash_mbs_out(g, s) * margin(o, g);
	in->budget = o->cap_bytes - fixed_mem(c, o, g, a, e) -
		     cost_pp_bufs(c, o, g, s, e) * margin(o, g);

	/*
	 * Identical layers (a stage's transformer blocks) form one group
	 * with an integer count per option: the same optimum without the
	 * symmetric branch-and-bound tree of one binary per layer.
	 */
	in->gof = xcalloc(in->n, sizeof(int));
	in->rep = xcalloc(in->n, sizeof(int));
	in->size = xcalloc(in->n, sizeof(int));
	gsig = xmalloc((size_t)in->n * sizeof(*gsig));
	for (j = 0; j < in->n; j++) {
		uint64_t h = alike_sig(c, g, a + j);

		for (q = 0; q < in->ng; q++)
			if (gsig[q] == h && alike(c, g, a + in->rep[q], a + j))
				break;
		if (q == in->ng) {
			gsig[in->ng] = h;
			in->rep[in->ng++] = j;
		}
		in->gof[j] = q;
		in->size[q]++;
	}
	free(gsig);
	cap_nz = 4 * in->ng * in->nr + 4;
	in->ia = xmalloc((size_t)(cap_nz + 1) * sizeof(int));
	in->ja = xmalloc((size_t)(cap_nz + 1) * sizeof(int));
	in->ar = xmalloc((size_t)(cap_nz + 1) * sizeof(double));
	in->obj = xcalloc((size_t)in->ng * in->nr, sizeof(double));
	in->count = xcalloc((size_t)in->ng * in->nr, sizeof(int));
	fill(in);
	return 0;
}

static void
release(struct lp_in *in)
{
	free(in->ia);
	free(in->ja);
	free(in->ar);
	free(in->gof);
	free(in->rep);
	free(in->size);
	free(in->obj);
	free(in->count);
}

/*
 * search_solve() with GLPK's failures caught: LP_ERROR after one, reported.
 * Nothing here but ret changes between setjmp and a longjmp.
 */
static NOINLINE int
solve_caught(struct lp_in *in, double *extra)
{
	volatile int ret = LP_ERROR;
	jmp_buf fail;

	if (setjmp(fail)) {
		glp_error_hook(NULL, NULL);
		glp_free_env();
		pd2bw_error("GLPK failed (out of memory?): stage %d left "
			    "without a per-layer choice", in->s);
		return ret;
	}
	glp_term_hook(glpk_quiet, NULL);
	glp_error_hook(glpk_failed, &fail);
	ret = search_solve(in, extra);
	glp_error_hook(NULL, NULL);
	return ret;
}

/* in's problem's answer from m: 1 with it in *ret, *extra and
 * in->count, else 0 and *an the slot to keep it in (key in m->buf, its
 * hash *h). */
static int
answer_known(struct lp_memo *m, struct lp_in *in, int *ret, double *extra,
	     struct lp_answer **an, uint64_t *h)
{
	key_of(m, in);
	*h = pd2bw_hash_bytes(m->buf, m->nbuf);
	*an = answer_find(m, *h);
	if (!(*an)->key)
		return 0;
	*ret = (*an)->ret;
	*extra = (*an)->extra;
	memcpy(in->count, (*an)->count,
	       (size_t)in->ng * in->nr * sizeof(*in->count));
	return 1;
}

/* Keep in's answer (ret, extra, in->count) in slot an of m for the key
 * in m->buf of hash h. */
static void
answer_keep(struct lp_memo *m, struct lp_answer *an, uint64_t h,
	    const struct lp_in *in, int ret, double extra)
{
	size_t nc = (size_t)in->ng * in->nr;

	an->key = xmalloc(m->nbuf);
	memcpy(an->key, m->buf, m->nbuf);
	an->nkey = m->nbuf;
	an->h = h;
	an->ret = ret;
	an->extra = extra;
	an->count = xmalloc(nc * sizeof(*an->count) + 1);
	memcpy(an->count, in->count, nc * sizeof(*an->count));
	m->n++;
}

/*
 * Whether in's problem (fill()'s) has one optimum that needs no solver,
 * then in in->count and *extra: every group all on "none" of no extra
 * time while each other option costs more (none: every extra_ms() 0 and
 * every other above it), and that within the memory budget with room to
 * spare for GLPK's tolerances (y 0: no layer reruns).  Every other count
 * costs more: GLPK's first relaxation is that integral point, its
 * optimum with objective 0, which it answers LP_OPTIMAL (GPT-3 175B on
 * 1024 GPUs: 14 of the 16 stages its search refines).  Where another
 * option costs nothing too (a layer with nothing to recompute) the
 * optimum is not one: GLPK decides among them.
 */
static int
one_optimum(struct lp_in *in, double *extra)
{
	const struct chain *c = in->c;
	int ng = in->ng, nr = in->nr, q, r, i0 = -1;
	double mem = 0, room = in->budget / 1e9;

	for (r = 0; r < nr; r++)
		if (in->opts[r] == PROF_RC_NONE)
			i0 = r;
	if (i0 < 0 || !(room > 0))
		return 0;
	for (q = 0; q < ng; q++) {
		for (r = 0; r < nr; r++)
			if (r == i0 ? in->obj[q * nr + r] != 0
				    : !(in->obj[q * nr + r] > 0))
				return 0;
		mem += in->size[q] * (group_inflight(in, q) *
				      CHAIN_AT(c, c->stash[PROF_RC_NONE],
					       in->g->k, in->a + in->rep[q]) /
				      1e9);
	}
	if (!(mem >= 0 && mem <= room * (1 - 1e-6)))
		return 0;
	for (q = 0; q < ng; q++)
		for (r = 0; r < nr; r++)
			in->count[q * nr + r] = r == i0 ? in->size[q] : 0;
	*extra = 0;
	return 1;
}

int
lp_stage(const struct chain *c, const struct cost_opts *o,
	 const struct cost_cfg *g, const struct place_links *l, int s, int a,
	 int e, const struct lp_opts *lo, int *rc, double *extra)
{
	struct lp_in in;
	struct lp_answer *an = NULL;
	uint64_t h = 0;
	double x = 0;
	int ret;

	if (setup(&in, c, o, g, l, s, a, e, lo))
		return LP_INFEASIBLE;
	if (!lo->plain && one_optimum(&in, &x)) {
		ret = LP_OPTIMAL;
	} else if (!lo->memo ||
		   !answer_known(lo->memo, &in, &ret, &x, &an, &h)) {
		ret = solve_caught(&in, &x);
		/* what GLPK answers the same numbers; not a failure,
		 * which may not come again */
		if (an && ret != LP_ERROR)
			answer_keep(lo->memo, an, h, &in, ret, x);
	}
	if (ret == LP_OPTIMAL || ret == LP_FEASIBLE) {
		hand_out(&in, rc);
		*extra = x;
	}
	release(&in);
	return ret;
}

int
lp_rc_phi(const struct chain *c, int k, unsigned rc_mask, double mu,
	  double *phi)
{
	int j, r;

	phi[0] = 0;
	for (j = 0; j < c->L; j++) {
		double least = INFINITY;

		for (r = 0; r < PROF_RC_N; r++) {
			double x = CHAIN_AT(c, c->rc[r], k, j) -
				   CHAIN_AT(c, c->rc[PROF_RC_NONE], k, j);

			if (!(rc_mask & (1u << r)))
				continue;
			if (x < 0)
				return -1;
			x += mu * CHAIN_AT(c, c->stash[r], k, j);
			if (x < least)
				least = x;
		}
		if (!isfinite(least))
			return -1;
		phi[j + 1] = phi[j] + least * (1 - 1e-6);
	}
	return 0;
}

int
lp_rc_row(const struct chain *c, const struct cost_opts *o,
	  const struct cost_cfg *g, double mu, struct cost_rc_lb *rl,
	  double *per)
{
	int s;

	if (c->pre_mparams && c->pre_mparams[c->L] > 0 &&
	    cost_muon_delta(o, g) != 0)
		return -1;
	/* nor a 16-bit block's weights (cost_w16()) */
	if (chain_m16(c, 0, c->L - 1) > 0 && cost_w16(o, g) != 0)
		return -1;
	/* the row's stashes at the least of their two counts: a weaker
	 * row, so a bound still */
	for (s = 0; s < g->d; s++)
		per[s] = mu / (fmin(cost_stash_mbs(g, s),
				    cost_stash_mbs_out(g, s)) *
			       margin(o, g));
	rl->per = per;
	rl->params = c->pre_params;
	rl->pb = cost_param_bytes(o, g);
	rl->room = o->cap_bytes - cost_cfg_runtime(o, g)->context_bytes;
	return 0;
}

int
lp_rc_multipliers(const struct chain *c, int k, unsigned rc_mask,
		  double *mu, int n)
{
	int j, r, r2, i, got = 0;

	for (j = 0; j < c->L && got < n; j++)
		for (r = 0; r < PROF_RC_N; r++)
			for (r2 = 0; r2 < PROF_RC_N && got < n; r2++) {
				double ds = CHAIN_AT(c, c->stash[r], k, j) -
					    CHAIN_AT(c, c->stash[r2], k, j);
				double x = (CHAIN_AT(c, c->rc[r2], k, j) -
					    CHAIN_AT(c, c->rc[r], k, j)) /
					   ds;

				if (!(rc_mask & (1u << r)) ||
				    !(rc_mask & (1u << r2)) || !(ds > 0) ||
				    !(x >= 0) || !isfinite(x))
					continue;
				for (i = 0; i < got && mu[i] != x; i++)
					;
				if (i == got)
					mu[got++] = x;
			}
	return got;
}
