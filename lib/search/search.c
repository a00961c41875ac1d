/*
 * search.c - enumerate every configuration, bound it from below, and solve
 * the promising ones exactly (best first), keeping the top k.
 *
 * Lower bound of a candidate's iteration time: no stage can be faster than
 * an equal share of the chain's compute or than its slowest single layer.
 * Candidates are solved in increasing order of that bound; once the bound
 * reaches the k-th best time found, no later candidate can enter the top k.
 * Those times are the closed form's; the best are then simulated, and
 * every other candidate whose simulated time could beat the best one, by
 * a lower bound of the simulation (exact_rest()), simulated too.
 */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pd2bw/lp.h"
#include "pd2bw/partition.h"
#include "pd2bw/error.h"
#include "pd2bw/search.h"
#include "pd2bw/sim.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* 40 bytes, not 56: the best-first pick keeps up to 16,384 of them, and
 * every page of that buffer is a page fault the first time it fills. */
struct cand {
	double lb;
	int w, d, m;
	int v;        /* interleaving */
	int shard;    /* HSDP shard group (0: all ranks) */
	short ti;     /* index of the tensor-parallel chain */
	short k;      /* microbatch size index */
	signed char sched, r;
	signed char zero;    /* ZeRO stage */
	signed char offload; /* activation offload */
	signed char lp;      /* recomputation chosen per layer by GLPK */
};

/*
 * What enumerate() hands each candidate to: the candidates are never all
 * kept (a million GPUs enumerate tens of millions of them).
 */
struct visit {
	void (*fn)(struct visit *vt, const struct cand *cd);
	/* NULL, or whether to hand fn the n candidates of a group whose
	 * lower bounds lie in [lo, hi] (0: fn would want none of them) */
	int (*group)(struct visit *vt, double lo, double hi, long n);
	/* only the candidates whose runtime takes a per-layer
	 * recomputation choice, their lower bounds (lb, group's lo and hi)
	 * without the time of any recomputation: the least a choice
	 * costs; the counts of groups group turns away by their least
	 * bound alone (lp_floor()) are left out */
	int lp_only;
	/* set: the lower bounds are the simulation's (cand_sim_lb()), not
	 * the closed form's; 2: GLPK refines the candidates that
	 * recompute under a runtime that takes a per-layer choice, whose
	 * bound then leaves their recomputation out */
	int sim;
	/* with sim: a bound at or above which group turns a group away
	 * (0: none known), that enumerate() may say of its floor before
	 * working it out */
	double over;
	/* NULL, or [GPUs]: the candidates screened out by memory and
	 * skipped for a runtime's reason, added up by the GPUs they take
	 * (cand_list_build()) */
	long *scr, *skip;
	/* set: group turns away every group whose lo is at or above one
	 * it turns away (lp_visit_group()), which enumerate() may then
	 * bisect (floor_widths()) */
	int mono;
	/* NULL, or whether group turns away, counting them, the n
	 * candidates of a group whose lower bounds are all lo or more (0:
	 * it cannot tell): asked of a floor of the group's bounds
	 * (group_floor()) before they are worked out, by a visit of
	 * closed-form bounds (neither lp_only nor sim) */
	int (*away)(struct visit *vt, double lo, long n);
};

/*
 * The cap smallest candidates in cand_cmp order among those after
 * `after` (all when NULL): appended to h (room for 2 cap), and when it
 * is full cut back to its cap smallest, the largest of which (top) then
 * turns away every candidate no smaller.
 */
struct pick {
	struct visit vt;
	struct cand *h; /* [2 cap] */
	long n, cap;
	const struct cand *after;
	struct cand top;
	int full;       /* top is set */
	long sorted;    /* h[0..sorted) are in order, before the rest */
	long grouped;   /* candidates turned away a group at a time by top
			   or cut */
	/* no candidate of this bound or above is kept (INFINITY: none):
	 * the search would not solve it */
	double cut;
};

/*
 * What part_fits() said of a candidate.  Its answer is monotone in the
 * bound (a partition whose stages each compute less than a bound does
 * under every larger one, and fits()'s greedy finds one whenever there
 * is one), so two numbers keep all it said over every span
 * (part_fits_span()) it was asked in: no, the largest bound known to
 * leave nothing (so does every bound up to it), and yes, one over which
 * a partition is known to be left (so is one over every larger bound).
 * The sizes of a sweep ask under bounds that fall as the cluster grows:
 * a candidate with nothing left under one has nothing under the next.
 */
struct fit_entry {
	struct cand key; /* lb 0; used: key.m > 0 */
	double no, yes;
	int cls; /* 1 + its fit_class in the table (0: none yet; plain:
		    none, no and yes its own) */
};

/*
 * part_fits() reads a configuration only through its chain, microbatch,
 * recomputation and depth (the compute's prefix sums it compares with
 * the bound) and its memory: cost_mem_init()'s constants and each
 * stage's stashes in flight (cost_mem_stage()).  Candidates alike in all
 * of that answer alike under every bound: widths whose memory reads no
 * width (no ZeRO), microbatch counts past the depth under 1F1B (a stage
 * keeps d - s stashes at most).  A class holds what part_fits() said of
 * any of them (no and yes as a fit_entry's), for them all (about half
 * of the part_fits() calls of capacity's sweep, most of them asked once
 * of a candidate).
 */
struct fit_class {
	struct cost_mem mem; /* cost_mem_init()'s */
	struct cost_cfg g;   /* the first candidate's: the in_flight of
				each of its stages is every other's */
	int ti;
	uint64_t hash;
	double no, yes;
};

struct fit_table {
	struct fit_entry *e;
	size_t n, cap; /* cap a power of two */
	/* the classes of its entries in the order found, and their index
	 * by hash (1 + a class, 0: empty; ccap a power of two, at most
	 * half full) */
	struct fit_class *cls;
	size_t ncls, acls, ccap;
	int *cslot;
};

/*
 * Links a time table's entries were solved on: PLACE_LINK_ARRAYS x d
 * rates and latencies, then the node's rate, latency and GPUs (n of
 * them).  Each kept once by the table (struct link_pool), which its
 * entries point into: most share them (a grid's links are the same at
 * every size), and a copy an entry took 7.7 KB (80 stages), 28 MB of
 * capacity's sweep, each page a fault the first time.
 */
struct link_vec {
	size_t hash; /* link_vec_hash()'s */
	int n;
	double v[];
};

/* The distinct links of a table, open addressing (cap a power of two,
 * at most half full); last: the one time_links() found last. */
struct link_pool {
	struct link_vec **slot, *last;
	size_t n, cap;
};

/*
 * What solving a candidate under a placement gave, on links lv: its
 * iteration time t when a solve found one (the unbounded optimum: below
 * its bound a solve's result does not depend on the bound), else lo, the
 * largest bound under which it found none (-INFINITY: none asked).
 */
struct time_entry {
	struct cand key; /* lb 0, lp the placement; used: key.m > 0 */
	const struct link_vec *lv; /* in its table's pool; NULL: none yet */
	double t, lo;
	/* the solves' tables (search_memo's s and ns): the partition
	 * part_solve() found on these links, as a search's part_entry
	 * keeps it (NULL: none yet) */
	int *first;
	/* [key.d] or NULL (none kept), stages on these links: in the
	 * solves' tables, those cost_stage() made of first when a second
	 * search took it (solve_checked()); in the floors' table, under
	 * GLPK's refinement, those without recomputation that
	 * exact_floor_none() made of the candidate's partition */
	struct plan_stage *st;
};

struct time_table {
	struct time_entry *e;
	size_t n, cap;
	struct link_pool pool;
};

/*
 * What exact_fits() said of a chain's partitions into a candidate's
 * stages (key: its chain, microbatch, d, m, v, schedule and
 * recomputation, the rest 0): whether any has a floor below a bound
 * grows with the bound, so no, the largest bound it said no to (NAN:
 * none), and yes, the least it said yes to (NAN: none), answer every
 * bound outside (no, yes).
 */
struct lbfit_entry {
	struct cand key; /* used: key.m > 0 */
	double no, yes;
};

struct lbfit_table {
	struct lbfit_entry *e;
	size_t n, cap; /* cap a power of two */
};

/*
 * What refine_rest() found of a candidate under a placement on the grid
 * seg says (place_segment()): GLPK's refined time t (its closed form,
 * which does not depend on the bound), else lo, the largest bound under
 * which it found none (-INFINITY: none asked).  No links: those of a
 * grid are the same at every size of one cluster (struct link_cache).
 */
struct refine_mark {
	int seg;
	double t, lo;
};

struct refine_entry {
	struct cand key; /* lb 0, lp the placement; used: key.m > 0 */
	struct refine_mark k;
};

struct refine_table {
	struct refine_entry *e;
	size_t n, cap;
	const struct cluster *cl; /* the cluster its entries are of */
};

/*
 * The partition part_solve() found for a candidate under a placement in
 * this search (its cluster's links, the context's cost options with or
 * without their memory cap: lp is the placement, plus 2 without): the
 * unbounded optimum's stages, by first layer.  Once part_fits() holds
 * under a bound, solve_checked() ends with exactly these whatever the
 * bound (part_solve()'s contract: below the bound the unbounded answer;
 * at or above it the unbounded one, or a bounded one it solves again
 * just above), so a candidate solved again (the re-scoring, the plan,
 * the explanation, a later round) takes them without solving.
 */
struct part_entry {
	struct cand key; /* lb 0, lp as above; used: key.m > 0 */
	int *first;      /* [key.d], NULL: not solved yet */
	/* [key.d]: the stages cost_stage() made of first on this search's
	 * links (they read nothing else: the same every time), NULL: none
	 * yet (or under --recompute-every, whose choices it does not keep) */
	struct plan_stage *st;
};

struct part_table {
	struct part_entry *e;
	size_t n, cap; /* cap a power of two */
};

/* Link bandwidths of a (w, d, t, c, rule) grid, computed once per grid. */
struct lentry {
	int w, d, t, c, e, etp, rule;
	int seg; /* place_segment() of the grid's GPUs */
	/* whether the links under rule - 1 are the same to the bit
	 * (same_links(); -1: not asked yet) */
	int same_prev;
	/* the PLACE_LINK_ARRAYS arrays of d in turn (in, in latency, ring,
	 * ring latency, tp, tp latency, ...), each one number when every
	 * stage's is the same to the bit (bit i of cst): most are (GPT-3
	 * 175B's: all but in and in latency), and d numbers of each took
	 * page faults that cost its search 0.6 ms in a virtual machine */
	double *v;
	unsigned cst;
};

#define LCACHE_SIZE 8192

/*
 * The links of the grids one search has filled, or (the memo's) those
 * the searches sharing it have, on one cluster whose node count alone
 * changes between them: the links read the count only through
 * place_segment() (how many GPUs a node stands for, part of the key) and
 * the size of their flow counts (a grid that fits counts within it), so
 * a grid's links are the same at every size.
 */
struct link_cache {
	/* [LCACHE_SIZE], open addressing: 1 + the index of a grid's entry
	 * in ent, 0 empty.  Indices, not the entries: a search fills a
	 * few dozen grids, and a table of entries (48 bytes each) would
	 * touch a page for most of them, each page a fault the first
	 * time (GPT-3 175B on 1024 GPUs: about a hundred). */
	int *slot;
	struct lentry *ent; /* in the order filled */
	size_t nent, ent_alloc;
	const struct cluster *cl; /* the memo's: filled on it */
};

static void
link_cache_release(struct link_cache *k)
{
	size_t j;

	for (j = 0; j < k->nent; j++)
		free(k->ent[j].v);
	free(k->ent);
	free(k->slot);
	memset(k, 0, sizeof(*k));
}

/*
 * exact_lb()'s parts that read the links, by what they depend on (the
 * chain, microbatch size, d, w, v, schedule, ZeRO stage and shard group,
 * whatever m, recomputation and offload: the key holds those, m 1), in
 * slot_find()'s table (struct lb_table).
 */
struct lb_entry {
	struct cand key;
	double extra, sync, fwd, tpx, tpn;
	int seg; /* place_segment() of its GPUs, which its links read */
	/* exact_fits_tp()'s verdicts for microbatches tp_m (0: none yet),
	 * by recomputation, as lbfit_entry's: no under tp_no[r] or any
	 * smaller bound, yes under tp_yes[r] or any larger (tpx and tpn
	 * are the entry's, the rest the key's) */
	int tp_m;
	double tp_no[PROF_RC_N], tp_yes[PROF_RC_N];
};

/* lb_entry's table: one search's, or the memo's for the searches on
 * one cluster (as refine_entry's, the links of a grid are the same at
 * every size; another cluster empties it). */
struct lb_table {
	struct lb_entry *e;
	size_t n, cap; /* cap a power of two */
	const struct cluster *cl; /* the cluster its entries are of */
};

/*
 * exact_fits_rc()'s multipliers and lp_rc_phi() at each, by chain and
 * microbatch (rcp[ti] of nmb[ti], NULL until asked; phi NULL: not yet),
 * which read the chains alone: one search's, or the memo's.
 */
struct rc_phi {
	int n;
	double mu[6], *phi; /* n (L + 1) */
	int first; /* the multiplier asked first: the last that said no */
};

struct rc_phis {
	struct rc_phi **rcp; /* [nsc], NULL: none asked */
	int *nmb;
	int nsc;
};

static void
rc_phis_release(struct rc_phis *t)
{
	int i, k;

	for (i = 0; t->rcp && i < t->nsc; i++) {
		for (k = 0; t->rcp[i] && k < t->nmb[i]; k++)
			free(t->rcp[i][k].phi);
		free(t->rcp[i]);
	}
	free(t->rcp);
	free(t->nmb);
	memset(t, 0, sizeof(*t));
}

/*
 * What exact_gate() proved of a candidate on one cluster (key: the
 * candidate, lb 0; seg: place_segment() of its GPUs, which its links
 * read): neither its uniform recomputation nor GLPK's refinement of it
 * simulates below no[0], no[1] (the largest bounds it turned them away
 * under; -INFINITY: none), nor so below any smaller bound.
 */
struct gate_entry {
	struct cand key; /* used: key.m > 0 */
	int seg;
	double no[2];
};

struct gate_table {
	struct gate_entry *e;
	size_t n, cap; /* cap a power of two */
	const struct cluster *cl; /* the cluster its entries are of */
};

/*
 * The kinds of visit whose candidates a memo with a span lists: the
 * best-first pick's (closed-form bounds), refine_rest()'s (lp_only) and
 * exact_rest()'s (the simulation's, sim 1 or 2).
 */
enum cand_kind { KIND_PICK, KIND_LP, KIND_SIM1, KIND_SIM2, KIND_N };

/*
 * Every candidate of up to the memo's span of GPUs that enumerate()
 * hands one kind of visit, with its lower bound, in cand_cmp order, and
 * the GPUs each takes: a search on N GPUs wants those of N or fewer
 * (enumerate() reads N only there, and the bounds read no cluster), in
 * the same order, which a pass over the list gives without enumerating.
 * ncand and nscr: how many candidates take up to g GPUs ([g], span + 1),
 * and how many of those are screened out by memory or skipped.
 */
struct cand_list {
	struct cand *c;
	int *gpus;
	long n;
	/* by block of LIST_BLOCK candidates (the last one whole or not
	 * kept): the fewest GPUs any takes, and the largest lower bound
	 * (INFINITY for a NaN): a scan skips a block none of which it
	 * takes and none of which stops it (NULL: plain, no skips) */
	int *bmin;
	double *bhi;
	long *ncand, *nscr, *nskip;
	int gpn; /* the cluster's GPUs per node it holds (0: not built) */
	/* exact_gate()'s proofs by candidate (as the gates table keeps
	 * them, struct gate_entry; seg 0: none yet) on cluster gcl, for the
	 * kinds exact_rest() takes (NULL: none asked yet): read by the
	 * candidate's place in the list, not by its key's hash */
	struct gate_slot {
		int seg;
		double no[2];
	} *gates;
	const struct cluster *gcl;
	/* and refine_rest()'s findings, as the refined table keeps them,
	 * two a candidate (placements 0 and 1; seg 0: none yet), on
	 * cluster rcl */
	struct refine_mark *refs;
	const struct cluster *rcl;
};

struct search_memo {
	/* search_memo_span()'s GPUs (0: none), the lists by enum
	 * cand_kind (on the caller's thread) */
	int span;
	struct cand_list lists[KIND_N];
	struct link_cache links[SEARCH_MAX_THREADS]; /* one a thread */
	struct fit_table t[SEARCH_MAX_THREADS]; /* one a thread */
	struct time_table s[SEARCH_MAX_THREADS];
	/* the same without the memory cap (ctx's nocap): what the
	 * per-layer refinement asks of every size (refine_rest()) */
	struct fit_table nt[SEARCH_MAX_THREADS];
	struct time_table ns[SEARCH_MAX_THREADS];
	/* the least memory of a candidate's partitions (PART_MEM), which
	 * reads neither the cluster nor the links: t as in a time_entry,
	 * no links (the search that nothing fits in asks, on its own
	 * thread) */
	struct time_table mins;
	/* part_mem_lb() of the candidates that search asks, t as the
	 * bound (it reads neither the cluster nor the links either) */
	struct time_table mem_lbs;
	/* the simulated times of the alternatives re-scored: t as in a
	 * time_entry, lp the placement plus 2 with GLPK's refinement (the
	 * same configuration on the same links has the same stages) */
	struct time_table sims;
	/* the floors exact_rest() found: t as in a time_entry, lp the
	 * placement plus 2 for that of the stages without recomputation
	 * (a floor of GLPK's refinement of them) */
	struct time_table floors;
	/* exact_busy()'s solves: t the least slowest stage without the
	 * synchronisation, or lo a cut it is above; lp the placement plus
	 * 2 without the memory cap */
	struct time_table busy;
	/* exact_fits()'s verdicts, which read the chains alone (on the
	 * caller's thread) */
	struct lbfit_table lbfits;
	/* what refine_rest() found, on the caller's thread */
	struct refine_table refined;
	/* exact_lb()'s parts that read the links, and exact_fits_rc()'s
	 * multipliers, on the caller's thread */
	struct lb_table *lbs;
	struct rc_phis phis;
	/* GLPK's answers (lp_memo_new()), on the caller's thread */
	struct lp_memo *lp;
	/* exact_gate()'s proofs, on the caller's thread */
	struct gate_table gates;
	/* max_layers() of the chains enumerated (by chain id), on the
	 * caller's thread: every size enumerates twice */
	struct maxl_entry {
		unsigned long id;
		double *maxl;
	} *maxl;
	int nmaxl;
	/* lb_memo_init()'s twins and rises (not plain) of the tu_n chains
	 * of ids tu_id (none yet: tu_n 0), which every search of a sweep
	 * asks twice, on the caller's thread */
	unsigned long *tu_id;
	int *tu_twin, *tu_up, tu_n;
};

/* Candidates taken in the first batch of the best-first order: more than
 * searches solve, and more than the 256 explain_binding() looks at. */
#define PICK_FIRST 8192

/* Candidates of a memo's list a block (struct cand_list's bmin, bhi). */
#define LIST_BLOCK 64

struct ctx {
	struct link_cache own; /* without a memo */
	struct link_cache *lk; /* own, or this thread's of the memo */
	const struct search_chain *sc;
	int nsc;
	const struct chain *c; /* sc[current candidate].c */
	const struct cluster *cl;
	const struct cost_opts *o;
	/* *o without the memory cap: what a configuration that does not
	 * fit would take (the plan in evaluate mode, the explanation) */
	struct cost_opts nocap;
	struct part_ws ws;
	struct place_links links;
	struct plan_stage *st; /* [D]: D the most stages, ctx_init()'s */
	int *first;            /* [L] */
	int *rc;               /* [L] per-layer recomputation of the last
				  apply_lp() */
	int lp_status;         /* worst enum lp_status of that call */
	const struct search_opts *so;
	struct search_stats *stats;
	struct crew *crew;     /* the solving threads this one belongs to */
	struct fit_table *fit; /* this thread's verdicts, or NULL */
	struct time_table *times; /* this thread's solves, or NULL */
	struct fit_table *nfit;   /* the same under nocap */
	struct time_table *ntimes;
	struct part_table parts; /* this search's partitions */
	struct sim_mem sim;    /* the re-scoring simulations' scratch */
	/* with keep_best, solve_best() copies the stages of its best
	 * placement's solve here ([D]; kept: it did, for its result) */
	struct plan_stage *best_st;
	int keep_best, kept;
	/* set: solve_best() stops at the first placement under its bound,
	 * for a caller that asks only whether one is (refine_rest()) */
	int any_under;
	double *lsave; /* [PLACE_LINK_ARRAYS D]: same_links()'s */
	/* 1 + the index in lk's entries of the grid whose links x->links
	 * holds (0: none known): links_for() copies them once, not at
	 * every call for the same grid (a search's context sees one
	 * cluster, and links_for() alone writes x->links) */
	int lk_held;
};

/*
 * Solving threads.  A round's candidates are solved at once against the
 * k-th best time as the round starts, never smaller than the bound each
 * would meet one by one: a solve's result does not depend on the bound
 * when it is below it (the bound only prunes), so the caller, going
 * through the round in order with the bound as it stands, keeps exactly
 * what the one-by-one search keeps.  Some work past the stopping point is
 * wasted, no more than a round.
 */
struct crew {
	pthread_mutex_t mu;
	pthread_cond_t go, idle;
	int round, busy, quit;
	int nthr;               /* threads, the caller's included */
	pthread_t *tid;         /* [nthr - 1] */
	struct ctx *self;       /* the caller's */
	struct ctx *x;          /* [nthr], x[0] unused */
	const struct cand *v;   /* the round's candidates */
	long n, next;
	double bound;
	double *t;              /* [CREW_ROUND * want] results */
	int *place;
	int want;               /* threads asked for (-j), the caller's too */
	int on;                 /* rounds go to the threads */
	double avg_us;          /* a candidate's solve, recent average */
};

#define CREW_ROUND 4 /* candidates per thread and round */
/*
 * Waking the threads and waiting for them costs tens of microseconds a
 * round, more than a memoised solve: capacity's 256 searches solve most
 * candidates in a few microseconds, and took three times as long on two
 * threads as on one.  So the threads start, and rounds go to them, only
 * once the caller's solves average CREW_ON_US a candidate; they stop at a
 * quarter of that.  Who solves a candidate never changes its result.
 */
#define CREW_ON_US 100.0

void
search_opts_init(struct search_opts *so)
{
	memset(so, 0, sizeof(*so));
	so->sched_mask = (1u << PLAN_NSCHED) - 1;
	so->rc_mask = (1u << PROF_RC_NONE) | (1u << PROF_RC_FULL);
	so->topk = 10;
	so->fix_sched = so->fix_rc = so->fix_place = -1;
	so->zero_mask = 1;
	so->offload_mask = 1;
	so->lp_k = 10;
	so->lp_gap = 1e-4;
	so->lp_ms = 2000;
	so->nv = 1;
	so->v[0] = 1;
}

int
search_threads_online(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > SEARCH_MAX_THREADS ? SEARCH_MAX_THREADS : (int)n;
}

/* cand_cmp()'s order of two candidates past their lower bounds: the
 * schedule, depth, width, microbatch, chain, interleaving, ZeRO stage,
 * shard group, offload, recomputation. */
static inline int
cand_cmp_fields(const struct cand *a, const struct cand *b)
{
	if (a->sched != b->sched)
		return a->sched - b->sched;
	if (a->d != b->d)
		return a->d - b->d;
	if (a->w != b->w)
		return a->w - b->w;
	if (a->k != b->k)
		return a->k - b->k;
	if (a->ti != b->ti)
		return a->ti - b->ti;
	if (a->v != b->v)
		return a->v - b->v;
	if (a->zero != b->zero)
		return a->zero - b->zero;
	if (a->shard != b->shard)
		return a->shard - b->shard;
	if (a->offload != b->offload)
		return a->offload - b->offload;
	return a->r - b->r;
}

static int
cand_cmp(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->lb != b->lb)
		return a->lb < b->lb ? -1 : 1;
	return cand_cmp_fields(a, b);
}

/* Simplicity rank of a schedule: none, gpipe, flush, 2bw. */
static int
sched_rank(int sched)
{
	switch (sched) {
	case PLAN_NONE:
		return 0;
	case PLAN_GPIPE:
		return 1;
	case PLAN_FLUSH:
		return 2;
	default:
		return 3;
	}
}

int
search_alt_cmp(const struct plan_alt *a, const struct plan_alt *b)
{
	double big = a->iter_ms > b->iter_ms ? a->iter_ms : b->iter_ms;
	long ga = (long)a->w * a->d * a->t * (a->c > 1 ? a->c : 1);
	long gb = (long)b->w * b->d * b->t * (b->c > 1 ? b->c : 1);

	if (fabs(a->iter_ms - b->iter_ms) > 1e-9 * big)
		return a->iter_ms < b->iter_ms ? -1 : 1;
	if (a->mem_bytes != b->mem_bytes)
		return a->mem_bytes < b->mem_bytes ? -1 : 1;
	if (ga != gb)
		return ga < gb ? -1 : 1;
	if (a->v != b->v)
		return a->v - b->v;
	if (a->zero != b->zero)
		return a->zero - b->zero;
	if (a->offload != b->offload)
		return a->offload - b->offload;
	if (a->shard != b->shard)
		return a->shard - b->shard;
	if (sched_rank(a->sched) != sched_rank(b->sched))
		return sched_rank(a->sched) - sched_rank(b->sched);
	if (a->d != b->d)
		return a->d - b->d;
	if (a->t != b->t)
		return a->t - b->t;
	if (a->sp != b->sp)
		return a->sp - b->sp;
	if (a->c != b->c)
		return a->c - b->c;
	if (a->e != b->e)
		return a->e - b->e;
	return a->recompute - b->recompute;
}

/* CPU time of the process: the search is single-threaded, and CPU time
 * does not count what other processes on a busy machine take. */
static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Keep the links of d stages of l in e (v and cst). */
static void
lentry_keep(struct lentry *e, const struct place_links *l, int d)
{
	size_t i, nv = 0;
	int j;

	e->cst = 0;
	for (i = 0; i < PLACE_LINK_ARRAYS; i++) {
		const double *a = l->all + i * l->dcap;

		for (j = 1; j < d && !memcmp(&a[j], &a[0], sizeof(*a)); j++)
			;
		if (j >= d)
			e->cst |= 1u << i;
		nv += j >= d ? 1 : (size_t)d;
	}
	e->v = xmalloc(nv * sizeof(double));
	for (i = 0, nv = 0; i < PLACE_LINK_ARRAYS; i++) {
		size_t k = e->cst >> i & 1 ? 1 : (size_t)d;

		memcpy(e->v + nv, l->all + i * l->dcap, k * sizeof(double));
		nv += k;
	}
}

/* The links of d stages that e keeps into l. */
static void
lentry_load(const struct lentry *e, struct place_links *l, int d)
{
	size_t i, nv = 0;
	int j;

	for (i = 0; i < PLACE_LINK_ARRAYS; i++) {
		double *a = l->all + i * l->dcap;

		if (e->cst >> i & 1) {
			for (j = 0; j < d; j++)
				a[j] = e->v[nv];
			nv++;
		} else {
			memcpy(a, e->v + nv, (size_t)d * sizeof(double));
			nv += d;
		}
	}
}

/* Fill x->links for the grid, from the cache when it is there; returns
 * the grid's entry in the cache (NULL: not kept there), which holds
 * until the next call. */
static struct lentry *
links_for(struct ctx *x, int rule, int w, int d, int t, int c, int ep,
	  int etp)
{
	struct link_cache *k = x->lk;
	int seg = place_segment(x->cl, w * d * t * (c > 1 ? c : 1));
	unsigned h = ((unsigned)w * 2654435761u ^ (unsigned)d * 40503u ^
		      (unsigned)t * 97u ^ (unsigned)c * 7919u ^
		      (unsigned)ep * 104729u ^ (unsigned)etp * 31u ^
		      (unsigned)seg * 65599u) *
			     2 +
		     (unsigned)rule;
	struct lentry *e = NULL;
	int probe, *sl = NULL;

	if (!k->slot)
		k->slot = xcalloc(LCACHE_SIZE, sizeof(*k->slot));
	for (probe = 0; probe < 8; probe++) {
		sl = &k->slot[(h + probe) % LCACHE_SIZE];
		if (!*sl)
			break;
		e = &k->ent[*sl - 1];
		if (e->w == w && e->d == d && e->t == t && e->c == c &&
		    e->e == ep && e->etp == etp && e->rule == rule &&
		    e->seg == seg) {
			if (x->lk_held != *sl)
				lentry_load(e, &x->links, d);
			x->lk_held = *sl;
			return e;
		}
		sl = NULL;
	}
	place_links_fill_par(&x->links, x->cl, rule, w, d, t, c, ep, etp);
	x->lk_held = 0;
	if (!sl)
		return NULL; /* neighbourhood full: compute without caching */
	xgrow((void **)&k->ent, &k->ent_alloc, k->nent + 1, sizeof(*k->ent));
	e = &k->ent[k->nent++];
	*sl = (int)k->nent;
	x->lk_held = *sl;
	e->w = w;
	e->d = d;
	e->t = t;
	e->c = c;
	e->e = ep;
	e->etp = etp;
	e->rule = rule;
	e->seg = seg;
	e->same_prev = -1;
	lentry_keep(e, &x->links, d);
	return e;
}

static void
cfg_of(struct ctx *x, const struct cand *cd, int place, struct cost_cfg *g)
{
	x->c = x->sc[cd->ti].c;
	g->t = x->sc[cd->ti].t;
	g->v = cd->v;
	g->zero = cd->zero;
	g->shard = cd->shard;
	g->offload = cd->offload;
	g->sched = cd->sched;
	g->w = cd->w;
	g->d = cd->d;
	g->k = cd->k;
	g->b = x->c->mb[cd->k];
	g->m = cd->m;
	g->r = cd->r;
	g->place = place;
	g->sp = x->sc[cd->ti].sp;
	g->c = x->sc[cd->ti].cp > 1 ? x->sc[cd->ti].cp : 1;
	g->e = x->sc[cd->ti].ep > 1 ? x->sc[cd->ti].ep : 1;
	g->etp = x->sc[cd->ti].etp > 0 ? x->sc[cd->ti].etp : g->t;
	g->rt = cost_runtime(x->o, cd->sched, cd->d);
}

/*
 * Megatron's split of nb blocks over d stages of v chunks each, as block
 * counts per stage into n[0..d).  Megatron-Core needs the blocks to divide
 * by d * v, unless the embedding and the loss each take a block's slot
 * (account_for_embedding_in_pipeline_split and
 * account_for_loss_in_pipeline_split: the slots divide by d * v, and the
 * first and the last virtual stage build one block fewer;
 * NVIDIA/Megatron-LM megatron/core/transformer/transformer_block.py:147-170,
 * 189-202).  Both slots are tried first, then the loss's alone (the head
 * outweighs the embedding), then the embedding's.  When none divides,
 * the first stages take one block more (a split Megatron runs only as a
 * pipeline layout).
 */
static void
megatron_counts(int nb, int d, int v, int *n)
{
	static const int slot[3][2] = {{1, 1}, {0, 1}, {1, 0}};
	int s, k;

	if (d > 1 && nb % (d * v))
		for (k = 0; k < 3; k++) {
			int slots = nb + slot[k][0] + slot[k][1];

			if (slots % (d * v) || slots / d <= 1)
				continue;
			for (s = 0; s < d; s++)
				n[s] = slots / d;
			n[0] -= slot[k][0];
			n[d - 1] -= slot[k][1];
			return;
		}
	for (s = 0; s < d; s++)
		n[s] = nb / d + (s < nb % d);
}

/*
 * Megatron's split (megatron_counts), layers before the first block on
 * stage 0 and after the last block on stage d - 1, or a pipeline
 * layout's (layout: entries per stage).  A chain without blocks splits
 * its layers evenly.  Returns -1 when a stage would be empty.
 */
static int
uniform_split(const struct chain *c, int d, int v, const int *layout,
	      int *first)
{
	int lo = 0, hi = c->L - 1, j, s, nb, pos, cnt;

	if (layout) {
		/* the ranks' entries, as search_layout() counted them */
		for (s = 0, pos = 0; s < d; s++) {
			first[s] = pos;
			pos += layout[s];
		}
		return pos == c->L ? 0 : -1;
	}

	for (j = 0; j < c->L && c->kind[j] != PROF_BLOCK; j++)
		;
	if (j == c->L) {
		lo = 0;
		hi = c->L - 1;
		v = 1;
	} else {
		lo = j;
		for (hi = c->L - 1; c->kind[hi] != PROF_BLOCK; hi--)
			;
	}
	nb = hi - lo + 1;
	if (nb < d)
		return -1;
	/* the counts, then in place the first layer of each stage */
	megatron_counts(nb, d, v < 1 ? 1 : v, first);
	for (s = 0, pos = lo; s < d; s++) {
		cnt = first[s];
		first[s] = s ? pos : 0;
		pos += cnt;
	}
	return 0;
}

struct search_memo *
search_memo_new(void)
{
	return xcalloc(1, sizeof(struct search_memo));
}

/* Table t (e, n, cap) of slot_find()'s emptied, its room kept (entries
 * that own nothing; one with no entry is empty already). */
#define TABLE_EMPTY(t)                                                   \
	do {                                                             \
		if ((t)->n)                                              \
			memset((t)->e, 0, (t)->cap * sizeof(*(t)->e));   \
		(t)->n = 0;                                              \
	} while (0)

/* Table t of u as empty as a new memo's, with the room m's t has (u's t
 * untouched). */
#define TABLE_ROOM(u, m, t)                                              \
	do {                                                             \
		(u)->t.cap = (m)->t.cap;                                 \
		(u)->t.e = (m)->t.cap ? xcalloc((m)->t.cap,              \
						sizeof(*(u)->t.e))       \
				      : NULL;                            \
	} while (0)

/* Fit table u with room for as many classes as m has (and their index),
 * not grown a doubling at a time again. */
static void
fit_class_room(struct fit_table *u, const struct fit_table *m)
{
	u->acls = m->acls;
	u->cls = m->acls ? xmalloc(m->acls * sizeof(*u->cls)) : NULL;
	u->ccap = m->ccap;
	u->cslot = m->ccap ? xcalloc(m->ccap, sizeof(*u->cslot)) : NULL;
}

struct search_memo *
search_memo_renew(struct search_memo *m)
{
	struct search_memo *u = search_memo_new();
	int i;

	if (!m)
		return u;
	for (i = 0; i < SEARCH_MAX_THREADS; i++) {
		TABLE_ROOM(u, m, t[i]);
		TABLE_ROOM(u, m, nt[i]);
		fit_class_room(&u->t[i], &m->t[i]);
		fit_class_room(&u->nt[i], &m->nt[i]);
		TABLE_ROOM(u, m, s[i]);
		TABLE_ROOM(u, m, ns[i]);
	}
	TABLE_ROOM(u, m, mins);
	TABLE_ROOM(u, m, mem_lbs);
	TABLE_ROOM(u, m, sims);
	TABLE_ROOM(u, m, floors);
	TABLE_ROOM(u, m, busy);
	TABLE_ROOM(u, m, lbfits);
	TABLE_ROOM(u, m, refined);
	TABLE_ROOM(u, m, gates);
	if (m->lbs) {
		u->lbs = xcalloc(1, sizeof(*u->lbs));
		TABLE_ROOM(u, m, lbs[0]);
	}
	search_memo_free(m);
	return u;
}

static void
cand_list_release(struct cand_list *l)
{
	free(l->c);
	free(l->gpus);
	free(l->bmin);
	free(l->bhi);
	free(l->ncand);
	free(l->nscr);
	free(l->nskip);
	free(l->gates);
	free(l->refs);
	memset(l, 0, sizeof(*l));
}

void
search_memo_span(struct search_memo *m, int max_gpus)
{
	int i;

	for (i = 0; i < KIND_N; i++)
		cand_list_release(&m->lists[i]);
	m->span = max_gpus > 0 ? max_gpus : 0;
}

static void
time_table_release(struct time_table *t)
{
	size_t j;

	for (j = 0; j < t->cap; j++) {
		free(t->e[j].first);
		free(t->e[j].st);
	}
	free(t->e);
	for (j = 0; j < t->pool.cap; j++)
		free(t->pool.slot[j]);
	free(t->pool.slot);
}

void
search_memo_free(struct search_memo *m)
{
	int i;

	if (!m)
		return;
	search_memo_span(m, 0);
	for (i = 0; i < SEARCH_MAX_THREADS; i++) {
		link_cache_release(&m->links[i]);
		free(m->t[i].e);
		free(m->t[i].cls);
		free(m->t[i].cslot);
		free(m->nt[i].e);
		free(m->nt[i].cls);
		free(m->nt[i].cslot);
		time_table_release(&m->s[i]);
		time_table_release(&m->ns[i]);
	}
	time_table_release(&m->mins);
	time_table_release(&m->mem_lbs);
	time_table_release(&m->sims);
	time_table_release(&m->floors);
	time_table_release(&m->busy);
	free(m->lbfits.e);
	free(m->refined.e);
	if (m->lbs)
		free(m->lbs->e);
	free(m->lbs);
	rc_phis_release(&m->phis);
	lp_memo_free(m->lp);
	free(m->gates.e);
	for (i = 0; i < m->nmaxl; i++)
		free(m->maxl[i].maxl);
	free(m->maxl);
	free(m->tu_id);
	free(m->tu_twin);
	free(m->tu_up);
	free(m);
}

static int
same_key(const struct cand *a, const struct cand *b)
{
	return a->sched == b->sched && a->w == b->w && a->d == b->d &&
	       a->k == b->k && a->r == b->r && a->m == b->m &&
	       a->ti == b->ti && a->v == b->v && a->zero == b->zero &&
	       a->shard == b->shard && a->offload == b->offload &&
	       a->lp == b->lp;
}

/*
 * The fields same_key() compares, packed four to a word and mixed by one
 * multiplication each, then the high half folded into the low bits the
 * tables index by: about 40 instructions where a multiplication a field
 * (FNV-1a over the twelve) took about 100, on the lookups of every
 * solve and gate (capacity's sweep: 1.2 million).
 */
static size_t
key_hash(const struct cand *c)
{
	uint64_t a = (uint64_t)(uint32_t)c->w << 32 | (uint32_t)c->d;
	uint64_t b = (uint64_t)(uint32_t)c->m << 32 | (uint32_t)c->v;
	uint64_t s = (uint64_t)(uint32_t)c->shard << 32 |
		     (uint64_t)(uint16_t)c->ti << 16 | (uint16_t)c->k;
	uint64_t f = (uint64_t)(uint8_t)c->sched |
		     (uint64_t)(uint8_t)c->r << 8 |
		     (uint64_t)(uint8_t)c->zero << 16 |
		     (uint64_t)(uint8_t)c->offload << 24 |
		     (uint64_t)(uint8_t)c->lp << 32;
	uint64_t h = a * 0x9e3779b97f4a7c15u ^ b * 0xc2b2ae3d27d4eb4fu ^
		     s * 0x165667b19e3779f9u ^ f * 0xd6e8feb86659fd93u;

	h ^= h >> 32;
	h *= 0x9e3779b97f4a7c15u;
	return (size_t)(h ^ h >> 29);
}

/*
 * The slot of key k in an open-addressed table of *cap entries of size
 * sz (cap a power of two), each beginning with its struct cand key (m 0:
 * empty): k's own, or a fresh one with k as its key (*fresh 1, the rest
 * zero for the caller to fill).  Kept at most three quarters full (half
 * left each table of GPT-3 175B's search twice as large, and its pages
 * took 56 more page faults, 0.7 ms in a virtual machine, where linear
 * probes of neighbouring slots cost little): growing moves the entries
 * as they are, so a pointer into the table holds until a key it lacks is
 * added (finding one it has moves nothing).
 */
static void *
slot_find(void **tab, size_t *n, size_t *cap, size_t sz, size_t cap0,
	  const struct cand *k, int *fresh)
{
	char *e = NULL;
	size_t i;

	for (i = *cap ? key_hash(k) & (*cap - 1) : 0; *cap;
	     i = (i + 1) & (*cap - 1)) {
		e = (char *)*tab + i * sz;
		if (((struct cand *)e)->m <= 0)
			break;
		if (same_key((struct cand *)e, k)) {
			*fresh = 0;
			return e;
		}
	}
	if (4 * (*n + 1) > 3 * *cap) {
		size_t ucap = *cap ? 2 * *cap : cap0, un = 0;
		void *u = xcalloc(ucap, sz);
		int f;

		for (i = 0; i < *cap; i++) {
			const struct cand *ki =
				(const struct cand *)((char *)*tab + i * sz);

			if (ki->m > 0)
				memcpy(slot_find(&u, &un, &ucap, sz, cap0, ki,
						 &f),
				       ki, sz);
		}
		free(*tab);
		*tab = u;
		*cap = ucap;
		*n = un;
		/* k is not in it: its first empty slot */
		for (i = key_hash(k) & (*cap - 1);; i = (i + 1) & (*cap - 1)) {
			e = (char *)*tab + i * sz;
			if (((struct cand *)e)->m <= 0)
				break;
		}
	}
	memcpy(e, k, sizeof(*k));
	(*n)++;
	*fresh = 1;
	return e;
}

/* The entry of cd in t (a fresh one when it has none). */
static struct fit_entry *
fit_find(struct fit_table *t, const struct cand *cd)
{
	struct cand k = *cd;
	struct fit_entry *e;
	int fresh;

	k.lb = 0;
	e = slot_find((void **)&t->e, &t->n, &t->cap, sizeof(*e), 1024, &k,
		      &fresh);
	if (fresh) {
		e->no = -INFINITY;
		e->yes = INFINITY;
		e->cls = 0;
	}
	return e;
}

/* A word's bits mixed into h (fit_class's hash). */
static uint64_t
fit_mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15u;
	return h ^ h >> 31;
}

static uint64_t
fit_bits(double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	return u;
}

/* Stage s's stashes in flight under g, as cost_mem_stage() sets them. */
static double
fit_in_flight(const struct cost_cfg *g, int s)
{
	return cost_in_flight(g, s) * cost_interleave_factor(g);
}

/* Whether class fc holds candidate ti of configuration g, whose memory
 * constants are mem: part_fits() then reads the same of both. */
static int
fit_class_same(const struct fit_class *fc, int ti, const struct cost_mem *mem,
	       const struct cost_cfg *g)
{
	double fa, fb;
	int s;

	if (fc->ti != ti || fc->g.d != g->d || fc->g.k != g->k ||
	    fc->g.r != g->r || memcmp(&fc->mem, mem, sizeof(*mem)))
		return 0;
	fa = cost_interleave_factor(&fc->g);
	fb = cost_interleave_factor(g);
	for (s = 0; s < g->d; s++)
		if (cost_in_flight(&fc->g, s) * fa != cost_in_flight(g, s) * fb)
			return 0;
	return 1;
}

/*
 * The class in t of e, candidate ti of chain c and configuration g under
 * options o (found or made the first time e asks).
 */
static struct fit_class *
fit_class_of(struct fit_table *t, struct fit_entry *e, int ti,
	     const struct chain *c, const struct cost_opts *o,
	     const struct cost_cfg *g)
{
	struct fit_class *fc;
	struct cost_mem mem;
	uint64_t h;
	size_t i, j;

	if (e->cls)
		return &t->cls[e->cls - 1];
	/* (cost_mem_init() zeroes the whole struct first: memcmp() is
	 * fair) */
	cost_mem_init(&mem, c, o, g);
	h = fit_mix((uint64_t)ti << 40 | (uint64_t)(uint16_t)g->k << 24 |
			(uint64_t)(uint8_t)g->r << 16 |
			(uint64_t)(uint16_t)g->d,
		    fit_bits(mem.weight));
	h = fit_mix(h, fit_bits(mem.state));
	/* the first stage's stashes, the most (equal classes have equal
	 * hashes; fit_class_same() compares every stage's) */
	h = fit_mix(h, fit_bits(fit_in_flight(g, 0)));
	if (2 * (t->ncls + 1) > t->ccap) {
		free(t->cslot);
		t->ccap = t->ccap ? 2 * t->ccap : 1024;
		t->cslot = xcalloc(t->ccap, sizeof(*t->cslot));
		for (j = 0; j < t->ncls; j++) {
			for (i = t->cls[j].hash & (t->ccap - 1); t->cslot[i];
			     i = (i + 1) & (t->ccap - 1))
				;
			t->cslot[i] = (int)j + 1;
		}
	}
	for (i = h & (t->ccap - 1); t->cslot[i]; i = (i + 1) & (t->ccap - 1)) {
		fc = &t->cls[t->cslot[i] - 1];
		if (fc->hash == h && fit_class_same(fc, ti, &mem, g)) {
			e->cls = t->cslot[i];
			return fc;
		}
	}
	if (t->ncls == t->acls) {
		t->acls = t->acls ? 2 * t->acls : 1024;
		t->cls = xrealloc(t->cls, t->acls * sizeof(*t->cls));
	}
	fc = &t->cls[t->ncls++];
	fc->mem = mem;
	fc->g = *g;
	fc->ti = ti;
	fc->hash = h;
	fc->no = -INFINITY;
	fc->yes = INFINITY;
	t->cslot[i] = (int)t->ncls;
	e->cls = (int)t->ncls;
	return fc;
}

/* The entry of cd under placement place in t (a fresh one when none). */
static struct time_entry *
time_find(struct time_table *t, const struct cand *cd, int place)
{
	struct cand k = *cd;
	struct time_entry *e;
	int fresh;

	k.lb = 0;
	k.lp = place;
	e = slot_find((void **)&t->e, &t->n, &t->cap, sizeof(*e), 1024, &k,
		      &fresh);
	if (fresh) {
		e->lv = NULL;
		e->t = NAN;
		e->lo = -INFINITY;
		e->first = NULL;
		e->st = NULL;
	}
	return e;
}

/* Whether lv holds the links l holds for d stages (the figures to the
 * bit, the node's as ==, as time_links() has always compared them). */
static int
link_vec_is(const struct link_vec *lv, const struct place_links *l, int d)
{
	int i, k = PLACE_LINK_ARRAYS;
	size_t sz = (size_t)d * sizeof(double);

	if (lv->n != k * d + 3)
		return 0;
	for (i = 0; i < k; i++)
		if (memcmp(lv->v + i * d, l->all + i * l->dcap, sz))
			return 0;
	return lv->v[k * d] == l->node_gb_s &&
	       lv->v[k * d + 1] == l->node_lat_us &&
	       lv->v[k * d + 2] == l->gpus_per_node;
}

/* A hash of the links l holds for d stages: each array's ends and middle
 * (the lookup compares the whole; the node's figures not, being compared
 * as ==, under which -0 is 0). */
static size_t
link_vec_hash(const struct place_links *l, int d)
{
	uint64_t h = (uint64_t)d * 0x9e3779b97f4a7c15u, b;
	int i, j, at[3] = { 0, d / 2, d - 1 };

	for (i = 0; i < PLACE_LINK_ARRAYS; i++)
		for (j = 0; j < 3; j++) {
			memcpy(&b, l->all + i * l->dcap + at[j], sizeof(b));
			h = (h ^ b) * 0xc2b2ae3d27d4eb4fu;
		}
	return (size_t)(h ^ h >> 29);
}

/* The slot of a link_vec of hash h in p (an empty one: none has it),
 * that holds l's links for d stages. */
static struct link_vec **
link_slot(struct link_pool *p, size_t h, const struct place_links *l, int d)
{
	size_t i;

	for (i = h & (p->cap - 1); p->slot[i]; i = (i + 1) & (p->cap - 1))
		if (p->slot[i]->hash == h && link_vec_is(p->slot[i], l, d))
			break;
	return &p->slot[i];
}

/* p's copy of the links l holds for d stages (made when it has none). */
static const struct link_vec *
link_intern(struct link_pool *p, const struct place_links *l, int d)
{
	int i, k = PLACE_LINK_ARRAYS, n = k * d + 3;
	size_t h, j;
	struct link_vec **sl, *lv;

	if (p->last && link_vec_is(p->last, l, d))
		return p->last;
	h = link_vec_hash(l, d);
	if (2 * (p->n + 1) > p->cap) {
		struct link_pool u = {NULL, NULL, p->n, 0};

		u.cap = p->cap ? 2 * p->cap : 64;
		u.slot = xcalloc(u.cap, sizeof(*u.slot));
		for (j = 0; j < p->cap; j++) {
			struct link_vec *q = p->slot[j];
			size_t s;

			if (!q)
				continue;
			for (s = q->hash & (u.cap - 1); u.slot[s];
			     s = (s + 1) & (u.cap - 1))
				;
			u.slot[s] = q;
		}
		free(p->slot);
		*p = u;
	}
	sl = link_slot(p, h, l, d);
	if (!*sl) {
		lv = xmalloc(sizeof(*lv) + (size_t)n * sizeof(double));
		lv->hash = h;
		lv->n = n;
		for (i = 0; i < k; i++)
			memcpy(lv->v + i * d, l->all + i * l->dcap,
			       (size_t)d * sizeof(double));
		lv->v[k * d] = l->node_gb_s;
		lv->v[k * d + 1] = l->node_lat_us;
		lv->v[k * d + 2] = l->gpus_per_node;
		*sl = lv;
		p->n++;
	}
	p->last = *sl;
	return p->last;
}

/* Whether e (of table t) was solved on the links x holds now for d
 * stages (else it takes them, forgetting what it knew). */
static int
time_links(struct time_table *t, struct time_entry *e, const struct ctx *x,
	   int d)
{
	if (e->lv && link_vec_is(e->lv, &x->links, d))
		return 1;
	e->lv = link_intern(&t->pool, &x->links, d);
	e->t = NAN;
	e->lo = -INFINITY;
	free(e->first);
	e->first = NULL;
	free(e->st);
	e->st = NULL;
	return 0;
}

/* The entry of cd under lp in t (a fresh one, first NULL, when none). */
static struct part_entry *
part_find(struct part_table *t, const struct cand *cd, int lp)
{
	struct cand k = *cd;
	int fresh;

	k.lb = 0;
	k.lp = lp;
	return slot_find((void **)&t->e, &t->n, &t->cap,
			 sizeof(struct part_entry), 256, &k, &fresh);
}

static void
part_table_release(struct part_table *t)
{
	size_t i;

	for (i = 0; i < t->cap; i++) {
		free(t->e[i].first);
		free(t->e[i].st);
	}
	free(t->e);
	t->e = NULL;
	t->n = t->cap = 0;
}

/*
 * part_fits() for cd (configuration g, under the context's own cost
 * options o) at stage bound tb, from the memo when it knows.
 */
static int
cand_fits(struct ctx *x, const struct cost_opts *o, const struct cand *cd,
	  const struct cost_cfg *g, double tb)
{
	struct fit_table *ft = o == x->o ? x->fit
				 : o == &x->nocap ? x->nfit : NULL;
	struct fit_entry *e;
	double lo, hi, *no, *yes;
	int ok;

	/* plain: the greedy alone (part_fits_span() asked its span) */
	if ((!ft || cd->m <= 0) && x->so->plain)
		return part_fits_span(x->c, o, g, tb, &lo, &hi);
	if (!ft || cd->m <= 0)
		return part_fits(x->c, o, g, tb);
	e = fit_find(ft, cd);
	no = &e->no;
	yes = &e->yes;
	if (!x->so->plain) {
		/* what part_fits() said of the candidates like it */
		struct fit_class *fc = fit_class_of(ft, e, cd->ti, x->c, o, g);

		no = &fc->no;
		yes = &fc->yes;
	}
	if (tb <= *no)
		return 0;
	if (tb > *yes)
		return 1;
	/* the answer holds over its span, and by monotony beyond it on the
	 * side of that answer */
	ok = part_fits_span(x->c, o, g, tb, &lo, &hi);
	if (ok && lo < *yes)
		*yes = lo;
	else if (!ok && hi > *no)
		*no = hi;
	return ok;
}

/* The bound on a stage's time per microbatch that an iteration bound
 * puts (INFINITY: none). */
static double
stage_bound(const struct cost_cfg *g, double bound)
{
	if (!isfinite(bound))
		return INFINITY;
	if (g->sched == PLAN_2BW)
		return bound / g->m;
	if (g->sched != PLAN_NONE)
		return bound / (g->m + (double)(g->d - 1) / g->v);
	return INFINITY;
}

/*
 * The memo's entry (this thread's) for cd under place and options o (the
 * context's own or nocap), whose partition (first) a search solving it
 * on the same links (x->links) ends with (first NULL: it knows none
 * yet), or NULL without a memo.
 */
static struct time_entry *
part_known(struct ctx *x, const struct cost_opts *o, const struct cand *cd,
	   int place, int d)
{
	struct time_table *tt = o == x->o ? x->times
				: o == &x->nocap ? x->ntimes : NULL;
	struct time_entry *e;

	if (!tt)
		return NULL;
	e = time_find(tt, cd, place);
	time_links(tt, e, x, d);
	return e;
}

/*
 * Solve candidate cd under placement rule place; returns its iteration
 * time, or INFINITY when it does not fit or cannot beat bound.  On success
 * x->st[0..d) hold its stages.  fits: part_fits() is known to hold under
 * this bound (it reads neither the placement nor the links).
 */
static double
solve_checked(struct ctx *x, const struct cost_opts *o,
	      const struct cand *cd, int place, double bound, int fits,
	      struct plan_terms *terms)
{
	struct part_entry *pe;
	struct time_entry *me = NULL;
	struct cost_cfg g;
	double tb, t;
	int s, i, ev = cost_every_on(o) && cd->r == PROF_RC_FULL, again = 0;
	int repeat = 0; /* the part table knew its partition */

	cfg_of(x, cd, place, &g);
	/* Under --recompute-every the partition is full recomputation's
	 * (NEEDSWORK: not the best one for the blocks each rank then
	 * recomputes), whose time bounds nothing: the stages recompute
	 * less */
	tb = ev ? INFINITY : stage_bound(&g, bound);
	/* Most candidates the bound cuts have no partition left under it:
	 * part_solve() would say INFINITY; say it before the links, which
	 * take O(w d t) to work out on a large cluster. */
	if (!fits && !x->so->uniform && !cand_fits(x, o, cd, &g, tb))
		return INFINITY;
	links_for(x, place, g.w, g.d, g.t, g.c, g.e, g.etp);
	pe = !x->so->uniform && cd->m > 0 && (o == x->o || o == &x->nocap)
		     ? part_find(&x->parts, cd, place + 2 * (o == &x->nocap))
		     : NULL;
	if (x->so->uniform) {
		if (uniform_split(x->c, g.d, g.v, x->so->layout, x->first))
			return INFINITY;
	} else if (pe && pe->first) {
		/* solved before: what the solve below would end with */
		memcpy(x->first, pe->first, (size_t)g.d * sizeof(int));
		repeat = 1;
	} else if (pe && (me = part_known(x, o, cd, place, g.d)) &&
		   me->first) {
		/* and so in an earlier search of the memo, on these links */
		again = !ev && !x->so->plain;
		pe->first = xmalloc((size_t)g.d * sizeof(int));
		memcpy(pe->first, me->first, (size_t)g.d * sizeof(int));
		memcpy(x->first, me->first, (size_t)g.d * sizeof(int));
	} else {
		/*
		 * Under flush and GPipe the iteration is at least (m + (d -
		 * 1) / v) times the slowest stage's busy time
		 * (cost_iteration()'s P), tb's divisor, and the programme's
		 * stage cost without the synchronisation and what the
		 * runtime hides (ws.no_sync) sums terms of that busy time,
		 * to rounding, or lower bounds of them: with no partition
		 * whose slowest stage costs tb and a hair or less so,
		 * nothing beats bound (tests/unit/test_plan.c,
		 * test_partition_busy).  The solve below cannot say so for
		 * less than the whole programme: it adds the all-reduce,
		 * paid once, to every stage, so no cut of tb holds for it.
		 * Under the cut this one has a narrow band: most
		 * candidates over it cost a fraction of the whole
		 * programme, those under it little more.  (With one or two
		 * stages the programme has no band to narrow.)  The
		 * expert-parallel overlap hides a share of the all-to-alls
		 * that no sum of layers follows: not with it.
		 */
		if ((g.sched == PLAN_FLUSH || g.sched == PLAN_GPIPE) &&
		    g.d >= 3 && isfinite(tb) &&
		    !(cost_ep_deg(&g) > 1 &&
		      runtime_has(cost_cfg_runtime(o, &g),
				  RUNTIME_OPT_OVERLAP_MOE_EP_COMM))) {
			x->ws.no_sync = 1;
			x->ws.cut_ms = tb * (1 + 1e-6);
			t = part_solve(&x->ws, x->c, o, &g, &x->links,
				       PART_TIME, INFINITY, x->first);
			x->ws.no_sync = 0;
			x->ws.cut_ms = 0;
			if (!(t <= tb * (1 + 1e-6)))
				return INFINITY;
		}
		/* part_fits() holds under tb: given, or just asked */
		x->ws.fits_known = 1;
		/* Under 2BW the iteration is m times its slowest stage's
		 * cost_stage_ms(), of which the programme's stage cost is
		 * the sum to rounding (or a lower bound): an optimum above
		 * tb, and a hair, cannot beat bound.  (Under the other
		 * schedules the all-reduce is paid once, not per
		 * microbatch.) */
		x->ws.cut_ms = g.sched == PLAN_2BW && isfinite(tb)
				       ? tb * (1 + 1e-6)
				       : 0;
		t = part_solve(&x->ws, x->c, o, &g, &x->links, PART_TIME, tb,
			       x->first);
		x->ws.fits_known = 0;
		/* The bound prunes by compute alone, which the iteration
		 * pays (m + (d - 1) / v) times at least: with no partition
		 * left nothing beats bound.  A result at or above tb is the
		 * best of the partitions left, not always the unbounded one,
		 * and its iteration may still beat bound (the all-reduce in
		 * a stage's cost is paid once, not per microbatch): take the
		 * unbounded one, the partition evaluation finds.  Its value
		 * is at most t, so a bound just above t gives it exactly
		 * (part_solve()'s contract) and still prunes.  When the
		 * bound left nothing out, t is that one already. */
		if (isfinite(t) && t >= tb && x->ws.pruned)
			t = part_solve(&x->ws, x->c, o, &g, &x->links,
				       PART_TIME, nextafter(t, INFINITY),
				       x->first);
		x->ws.cut_ms = 0;
		if (!isfinite(t))
			return INFINITY;
		if (pe) {
			pe->first = xmalloc((size_t)g.d * sizeof(int));
			memcpy(pe->first, x->first,
			       (size_t)g.d * sizeof(int));
		}
		if (me) {
			me->first = xmalloc((size_t)g.d * sizeof(int));
			memcpy(me->first, x->first,
			       (size_t)g.d * sizeof(int));
		}
	}
	if (pe && pe->st) {
		/* the stages of the same partition on the same links */
		memcpy(x->st, pe->st, (size_t)g.d * sizeof(*x->st));
		goto stages;
	}
	if (again && me->st) {
		/* and as a third search of the memo or later made them */
		memcpy(x->st, me->st, (size_t)g.d * sizeof(*x->st));
		pe->st = xmalloc((size_t)g.d * sizeof(*pe->st));
		memcpy(pe->st, x->st, (size_t)g.d * sizeof(*pe->st));
		goto stages;
	}
	/* the first stage and the last first (the model's ends, the
	 * slowest most often, whose figure can end the solve below); each
	 * stage on its own */
	for (i = 0; i < g.d; i++) {
		int e;

		s = i < 2 ? (i ? g.d - 1 : 0) : i - 1;
		e = s + 1 < g.d ? x->first[s + 1] - 1 : x->c->L - 1;
		if (ev) {
			/* the blocks this rank's runtime wraps */
			cost_every_rc(x->c, o, x->first[s], e,
				      x->rc + x->first[s]);
			cost_stage_rc(x->c, o, &g, &x->links, s, x->first[s],
				      e, x->rc + x->first[s], &x->st[s]);
		} else {
			cost_stage(x->c, o, &g, &x->links, s, x->first[s], e,
				   &x->st[s]);
		}
		if (x->st[s].mem_bytes > o->cap_bytes)
			return INFINITY;
		/*
		 * cost_iteration() from the slowest stage up: under 2BW m
		 * times the largest over the stages of a stage's busy time
		 * or its synchronisation per microbatch, under flush and
		 * GPipe (m + (d - 1) / v) times the largest busy time and
		 * more, the same terms in the same order.  No less than
		 * this stage's figure: with that at the bound or over,
		 * nothing beats it whatever the rest (the stages are not
		 * kept).
		 */
		if (isfinite(bound) && !x->so->plain &&
		    (g.sched == PLAN_2BW || g.sched == PLAN_FLUSH ||
		     g.sched == PLAN_GPIPE)) {
			double busy = cost_stage_busy(&x->st[s]), lb;
			int v = g.v > 1 ? g.v : 1;

			if (g.sched == PLAN_2BW) {
				double sync = (x->st[s].allreduce_ms +
					       x->st[s].gather_ms +
					       x->st[s].optimizer_ms) /
					      g.m;

				lb = g.m * (busy > sync ? busy : sync);
			} else {
				lb = g.m * busy + (g.d - 1) * busy / v;
			}
			if (lb >= bound)
				return INFINITY;
		}
	}
	/*
	 * Kept from its second solve on: most candidates are solved once,
	 * and their stages' copies (d of 192 bytes) would each take new
	 * pages, which cost more than working the stages out again (GPT-3
	 * 175B on 1024 GPUs: 155 page faults of 13 us each, a tenth of its
	 * search, in a virtual machine).
	 */
	if (pe && !ev && repeat) {
		pe->st = xmalloc((size_t)g.d * sizeof(*pe->st));
		memcpy(pe->st, x->st, (size_t)g.d * sizeof(*pe->st));
	}
	if (again) {
		/* kept for the searches after (a partition a second
		 * search takes is most often taken again; the first's are
		 * too many to keep all) */
		me->st = xmalloc((size_t)g.d * sizeof(*me->st));
		memcpy(me->st, x->st, (size_t)g.d * sizeof(*me->st));
	}
stages:
	t = cost_iteration(x->st, &g, terms);
	return t < bound ? t : INFINITY;
}

static double
solve(struct ctx *x, const struct cost_opts *o, const struct cand *cd,
      int place, double bound, struct plan_terms *terms)
{
	return solve_checked(x, o, cd, place, bound, 0, terms);
}

/*
 * Refine stage s of x->st (just solved for configuration g) with GLPK's
 * per-layer recomputation choice, left in x->rc; returns lp_stage()'s
 * status, the stage refined when LP_OPTIMAL or LP_FEASIBLE.  The stages
 * are independent of each other: any order gives the same stages.
 */
static int
apply_lp_stage(struct ctx *x, const struct cost_cfg *g,
	       const struct lp_opts *lo, int s)
{
	struct plan_stage *st = &x->st[s];
	int a = st->first, e = st->last, st_lp, j;
	double extra = 0; /* the LP's figure: the stage's is below */

	st_lp = lp_stage(x->c, x->o, g, &x->links, s, a, e, lo, x->rc + a,
			 &extra);
	/* Among equally good choices prefer the simpler: a layer whose
	 * lighter option is as fast and as small (an embedding has nothing
	 * to recompute selectively) takes it. */
	for (j = a; st_lp <= LP_FEASIBLE && j <= e; j++) {
		int r;

		for (r = 0; r < x->rc[j]; r++)
			if ((lo->rc_mask & (1u << r)) &&
			    CHAIN_AT(x->c, x->c->rc[r], g->k, j) <=
				    CHAIN_AT(x->c, x->c->rc[x->rc[j]], g->k,
					     j) &&
			    CHAIN_AT(x->c, x->c->stash[r], g->k, j) <=
				    CHAIN_AT(x->c, x->c->stash[x->rc[j]],
					     g->k, j) &&
			    (r == PROF_RC_FULL || x->rc[j] != PROF_RC_FULL ||
			     g->t == 1)) {
				x->rc[j] = r;
				break;
			}
	}
	x->stats->lp_solves++;
	if (st_lp > x->lp_status)
		x->lp_status = st_lp;
	if (st_lp != LP_OPTIMAL && st_lp != LP_FEASIBLE)
		return st_lp;
	/* the rule emit_rc_eval() evaluates a written plan by */
	cost_stage_rc(x->c, x->o, g, &x->links, s, a, e, x->rc + a, st);
	return st_lp;
}

static void
lp_opts_of(const struct ctx *x, struct lp_opts *lo)
{
	lo->rc_mask = x->so->rc_mask;
	lo->mip_gap = x->so->lp_gap;
	lo->time_limit_ms = x->so->lp_ms;
	/* GLPK's answers, for the searches of the memo (on the caller's
	 * thread, as every GLPK solve) */
	lo->memo = NULL;
	lo->plain = x->so->plain;
	if (x->so->memo && !x->so->memo->lp)
		x->so->memo->lp = lp_memo_new();
	if (x->so->memo)
		lo->memo = x->so->memo->lp;
}

/*
 * Refine the stages in x->st (just solved for cd under place) with a
 * per-layer recomputation choice from GLPK; returns the new iteration
 * time (INFINITY if a stage has no feasible choice) and leaves the choices
 * in x->rc.
 */
static double
apply_lp(struct ctx *x, const struct cand *cd, int place,
	 struct plan_terms *terms)
{
	struct lp_opts lo;
	struct cost_cfg g;
	double t0 = now_ms();
	int s, st_lp;

	cfg_of(x, cd, place, &g);
	links_for(x, place, g.w, g.d, g.t, g.c, g.e, g.etp);
	lp_opts_of(x, &lo);
	x->lp_status = LP_OPTIMAL;
	for (s = 0; s < g.d; s++) {
		st_lp = apply_lp_stage(x, &g, &lo, s);
		if (st_lp != LP_OPTIMAL && st_lp != LP_FEASIBLE) {
			x->stats->lp_ms += now_ms() - t0;
			return INFINITY;
		}
	}
	x->stats->lp_ms += now_ms() - t0;
	return cost_iteration(x->st, &g, terms);
}

/*
 * The event simulation of candidate cd under place, whose stages x->st
 * hold (after solve() and, for a per-layer choice, apply_lp()): the time
 * every figure reports.  With terms NULL the time alone, without keeping
 * the simulation's operations (the same time, faster).
 */
static double
simulate_stages(struct ctx *x, const struct cand *cd, int place,
		struct plan_terms *terms)
{
	struct cost_cfg g;
	double t;

	cfg_of(x, cd, place, &g);
	if (!terms)
		t = cost_simulate_time(x->c, x->st, &g, &x->sim);
	else
		t = cost_simulate_terms(x->c, x->st, &g, terms, &x->sim);
	return t < 0 ? INFINITY : t;
}

/*
 * simulate_stages() of alternative cd under place for its time alone,
 * from the memo when an earlier search simulated the same configuration
 * on the very same links (x->links, its solve's), and kept there.  With
 * cut (else NULL) a long run may give a floor cut takes instead
 * (cost_simulate_time_cut()): then *floored is set, and the memo keeps
 * nothing.
 */
static double
rescore(struct ctx *x, const struct cand *cd, int place,
	const struct cost_cut *cut, int *floored)
{
	struct time_entry *e = NULL;
	struct cost_cfg g;
	double t;

	*floored = 0;
	if (x->so->memo && cd->m > 0) {
		e = time_find(&x->so->memo->sims, cd, place + 2 * cd->lp);
		if (time_links(&x->so->memo->sims, e, x, cd->d) &&
		    !isnan(e->t))
			return e->t;
	}
	cfg_of(x, cd, place, &g);
	t = cut ? cost_simulate_time_cut(x->c, x->st, &g, &x->sim, cut,
					 floored)
		: cost_simulate_time(x->c, x->st, &g, &x->sim);
	if (t < 0)
		t = INFINITY;
	if (e && !*floored)
		e->t = t;
	return t;
}

static int
same_alt(const struct plan_alt *a, const struct plan_alt *b)
{
	return a->sched == b->sched && a->w == b->w && a->d == b->d &&
	       a->b == b->b && a->m == b->m && a->recompute == b->recompute &&
	       a->t == b->t && a->sp == b->sp && a->v == b->v &&
	       a->zero == b->zero && a->c == b->c && a->e == b->e &&
	       a->shard == b->shard && a->offload == b->offload;
}

/* Recomputation of a whole configuration: uniform or mixed. */
static int
overall_rc(const struct ctx *x, int L)
{
	int j;

	for (j = 1; j < L; j++)
		if (x->rc[j] != x->rc[0])
			return PLAN_RC_MIXED;
	return x->rc[0];
}

/* Number of placements worth trying: they coincide when w or d is 1. */
static int
place_lo(const struct search_opts *so)
{
	return so->fix_place >= 0 ? so->fix_place : 0;
}

static int
place_hi(const struct search_opts *so, const struct cand *cd)
{
	if (so->fix_place >= 0)
		return so->fix_place;
	return cd->w == 1 || cd->d == 1 ? 0 : 1;
}

/* Whether cd's links under placements p0 and p0 + 1 = p1 are the same
 * to the bit (x->links then holds p1's), kept with p1's grid in the
 * cache. */
static int
same_links(struct ctx *x, const struct cand *cd, int p0, int p1)
{
	struct lentry *e;
	struct cost_cfg g;
	size_t i, n;
	int same = 1;

	cfg_of(x, cd, p0, &g);
	n = (size_t)g.d * sizeof(double);
	e = links_for(x, p1, g.w, g.d, g.t, g.c, g.e, g.etp);
	if (e && p1 == p0 + 1 && e->same_prev >= 0)
		return e->same_prev;
	links_for(x, p0, g.w, g.d, g.t, g.c, g.e, g.etp);
	for (i = 0; i < PLACE_LINK_ARRAYS; i++)
		memcpy(x->lsave + i * g.d, x->links.all + i * x->links.dcap,
		       n);
	e = links_for(x, p1, g.w, g.d, g.t, g.c, g.e, g.etp);
	for (i = 0; same && i < PLACE_LINK_ARRAYS; i++)
		same = !memcmp(x->lsave + i * g.d,
			       x->links.all + i * x->links.dcap, n);
	if (e && p1 == p0 + 1)
		e->same_prev = same;
	return same;
}

/* Best placement of cd: iteration time, rule in *place. */
static double
solve_best(struct ctx *x, const struct cost_opts *o,
	   const struct search_opts *so, const struct cand *cd, double bound,
	   int *place)
{
	struct time_table *tt = o == x->o ? x->times
				  : o == &x->nocap ? x->ntimes : NULL;
	struct plan_terms t;
	struct cost_cfg g;
	double best = INFINITY, v;
	int pl;

	*place = place_lo(so);
	x->kept = 0;
	/* Whether any partition is left under the bound does not depend
	 * on the placement: asked once while the bound stays. */
	cfg_of(x, cd, *place, &g);
	if (!so->uniform &&
	    !cand_fits(x, o, cd, &g, stage_bound(&g, bound)))
		return INFINITY;
	for (pl = place_lo(so); pl <= place_hi(so, cd); pl++) {
		double b = best < bound ? best : bound;
		struct time_entry *e = NULL;
		int known = 0;

		/* What an earlier search solved on the same links: its
		 * time, or no time under a bound at least as large. */
		if (tt && !so->uniform && cd->m > 0) {
			cfg_of(x, cd, pl, &g);
			links_for(x, pl, g.w, g.d, g.t, g.c, g.e, g.etp);
			e = time_find(tt, cd, pl);
			known = time_links(tt, e, x, g.d) &&
				(!isnan(e->t) || b <= e->lo);
		}
		if (known) {
			v = !isnan(e->t) && e->t < b ? e->t : INFINITY;
		} else if (pl > place_lo(so) &&
			   same_links(x, cd, pl - 1, pl)) {
			/*
			 * On the very same links the solve repeats the last
			 * one's (every figure reads the placement through
			 * its links alone): under its bound, with the same
			 * check, when it found nothing; else it ends with
			 * the same unbounded partition (solve_checked()),
			 * whose time, best, is not below b = best.
			 */
			v = INFINITY;
			if (e && b > e->lo)
				e->lo = b;
		} else {
			v = solve_checked(x, o, cd, pl, b, !(best < bound),
					  &t);
			if (e && isfinite(v))
				e->t = v;
			else if (e && b > e->lo)
				e->lo = b;
		}
		if (v < best) {
			best = v;
			*place = pl;
			/* the stages of a time below the bound are the
			 * unbounded solve's (part_solve()'s contract) */
			x->kept = x->keep_best && !known;
			if (x->kept)
				memcpy(x->best_st, x->st,
				       (size_t)cd->d * sizeof(*x->st));
		}
		/* the other placements could only be faster, which
		 * such a caller does not ask; what they left unsolved the
		 * memo does not claim */
		if (x->any_under && best < bound)
			break;
	}
	return best;
}

/*
 * Whether alternative i, whose simulated time is floor or more, is
 * outrun by topk others already simulated (simt[0..i)): topk different
 * configurations (same_alt() apart: of duplicates one is kept) whose
 * times are below floor by more than search_alt_cmp()'s tie window.  It
 * then stays out of the topk however it would have simulated.
 */
static int
outrun(const struct plan_alt *alts, const double *simt, long i, double floor,
       int topk)
{
	long j, j2, n = 0;

	if (!(floor > 0))
		return 0;
	for (j = 0; j < i && n < topk; j++) {
		if (!(simt[j] * (1 + 1e-8) < floor))
			continue;
		for (j2 = 0; j2 < j; j2++)
			if (simt[j2] * (1 + 1e-8) < floor &&
			    same_alt(&alts[j2], &alts[j]))
				break;
		n += j2 == j;
	}
	return n >= topk;
}

/* outrun()'s question as a struct cost_cut asks it. */
struct outrun_arg {
	const struct plan_alt *alts;
	const double *simt;
	long i;
	int topk;
};

static int
outrun_cut(void *arg, double floor)
{
	const struct outrun_arg *a = arg;

	return outrun(a->alts, a->simt, a->i, floor, a->topk);
}

/* Keep the k best in alts (sorted), with their candidates in ac. */
static void
insert_alt(const struct ctx *x, struct plan_alt *alts, struct cand *ac,
	   int *n, int k, const struct cand *cd, int place, double iter)
{
	int i;
	struct plan_alt a;

	if (*n == k && !(iter < alts[k - 1].iter_ms))
		return;
	memset(&a, 0, sizeof(a));
	a.sched = cd->sched;
	a.w = cd->w;
	a.d = cd->d;
	a.b = x->sc[cd->ti].c->mb[cd->k];
	a.m = cd->m;
	a.recompute = cd->r;
	a.t = x->sc[cd->ti].t;
	a.sp = x->sc[cd->ti].sp;
	a.c = x->sc[cd->ti].cp > 1 ? x->sc[cd->ti].cp : 1;
	a.e = x->sc[cd->ti].ep > 1 ? x->sc[cd->ti].ep : 1;
	a.v = cd->v;
	a.zero = cd->zero;
	a.shard = cd->shard;
	a.offload = cd->offload;
	a.place = place;
	a.iter_ms = iter;
	i = *n < k ? (*n)++ : k - 1;
	while (i > 0 && iter < alts[i - 1].iter_ms) {
		alts[i] = alts[i - 1];
		ac[i] = ac[i - 1];
		i--;
	}
	alts[i] = a;
	ac[i] = *cd;
}

static int
fixed(int v, int want)
{
	return want <= 0 || v == want;
}

/*
 * Per chain and (microbatch, recomputation): the slowest single layer at
 * [0], the whole chain's time at [1] ([c->nmb * PROF_RC_N][2]), what
 * every candidate's lower bound reads.
 */
static double *
max_layers(const struct chain *c)
{
	double *maxl = xcalloc((size_t)c->nmb * PROF_RC_N * 2, sizeof(double));
	int k, r, j;

	for (k = 0; k < c->nmb; k++)
		for (r = 0; r < PROF_RC_N; r++) {
			double *x = maxl + 2 * (k * PROF_RC_N + r);

			for (j = 0; j < c->L; j++) {
				double t = chain_time(c, k, r, j, j);

				if (t > x[0])
					x[0] = t;
			}
			x[1] = chain_time(c, k, r, 0, c->L - 1);
		}
	return maxl;
}

/* max_layers(c), from the memo when it has one (*own NULL), else into
 * *own, the caller's to free. */
static const double *
maxl_of(const struct search_opts *so, const struct chain *c, double **own)
{
	struct search_memo *m = so->memo;
	int i;

	*own = NULL;
	if (!m || !c->id)
		return *own = max_layers(c);
	for (i = 0; i < m->nmaxl; i++)
		if (m->maxl[i].id == c->id)
			return m->maxl[i].maxl;
	m->maxl = xrealloc(m->maxl, (size_t)(m->nmaxl + 1) * sizeof(*m->maxl));
	m->maxl[m->nmaxl].id = c->id;
	m->maxl[m->nmaxl].maxl = max_layers(c);
	return m->maxl[m->nmaxl++].maxl;
}

/*
 * What the checks that read neither the microbatch size nor m say of one
 * (recomputation, interleaving, ZeRO stage, offload) of a group (chain,
 * schedule, d, w): a candidate, screened out by memory, or skipped for a
 * runtime's reason.  An entry with v > 1 counts only where d divides m.
 */
enum tmpl_kind { TMPL_CAND, TMPL_SCREENED, TMPL_SKIP_SHARD, TMPL_SKIP_RT };

struct tmpl_entry {
	int r, v, zero, shard, offload;
	enum tmpl_kind kind;
	int rvi; /* a candidate's: the index of its (r, v) in the rv */
};

/* One (recomputation, interleaving) of a group's candidates and how many
 * candidates share it (their lower bounds are equal). */
struct tmpl_rv {
	int r, v, n;
};

struct tmpl {
	struct tmpl_entry e[PROF_RC_N * SEARCH_MAX_V * 8];
	struct tmpl_rv rv[PROF_RC_N * SEARCH_MAX_V];
	int n, nrv;
	long screened[2], skipped[2]; /* [v > 1] */
	/*
	 * The entries of (chain sk_ti, sk_sched, sk_d) before the memory
	 * screen (its candidates TMPL_CAND), sk_n of them (-1: none kept),
	 * P and Pm the chain's parameters as tmpl_build() reads them: with
	 * w c > 1, no shard group and no experts nothing else the checks
	 * read depends on the width, so the widths of a depth screen these
	 * by their own bytes (tmpl_screen()) instead of checking anew.
	 */
	struct tmpl_entry sk[PROF_RC_N * SEARCH_MAX_V * 8];
	int sk_n, sk_ti, sk_sched, sk_d;
	double sk_P, sk_Pm;
	/*
	 * What tmpl_screen() read at the last width: whether ZeRO was
	 * left out for one rank (scr_one) and by z the screen's verdicts
	 * (bit z of scr) on the z of sk's candidates (sk_z); scr_ok: e,
	 * rv and the counts are still those it built from them (not
	 * plain).  The bytes of the z of ZeRO stage 0 (pz, bit z of pz_ok),
	 * which read no width: kept with sk.
	 */
	int sk_z, scr_ok, scr_one, scr, pz_ok;
	double pz[2];
	int moe_ti, moe; /* whether chain moe_ti has experts (-1: none) */
	/* tmpl_sums()'s, by whether interleaving is allowed ([vok]): the
	 * candidates, the most interleaving among them and the mask of
	 * their recomputations as lb_rc() counts them (bit rb) */
	long cnt[2];
	int vmax[2], rbmask[2];
	/* runtime_check()'s answers for (chain ck_ti, ck_sched, ck_d),
	 * which read no width, by recomputation, interleaving and ZeRO
	 * stage (-1: not asked yet): the widths of a depth ask once */
	int ck_ti, ck_sched, ck_d;
	signed char ck[PROF_RC_N][SEARCH_MAX_V][4];
	/* the z (ZeRO stage z >> 1, offload z & 1) the masks let through,
	 * in order, nz of them: set with ck_ti */
	int zl[8], nz;
};


/* The bytes of P parameters (Pm of them Muon's) that a rank of the group
 * (sched, w, d, cp, ep) holds under ZeRO stage zero, shard group shard
 * and optimizer offload off: what the templates' memory screen reads. */
static double
tmpl_param_bytes(const struct cost_opts *o, int sched, int w, int d, int cp,
		 int ep, int zero, int shard, int off, double P, double Pm)
{
	struct cost_cfg g;

	memset(&g, 0, sizeof(g));
	g.sched = sched;
	g.w = w;
	g.d = d;
	g.c = cp;
	g.e = ep;
	g.zero = zero;
	g.shard = shard;
	g.offload = off;
	return P * cost_param_bytes(o, &g) + Pm * cost_muon_delta(o, &g);
}

/*
 * The template of the group (chain ti, sched, d, w) into tp: every check
 * add_cands() made per candidate, in its order (recomputation, then
 * interleaving, then ZeRO stage and offload).
 */
static void
tmpl_check(const struct search_chain *sc, int ti, const struct cost_opts *o,
	   const struct search_opts *so, int sched, int d, int w, int screen,
	   struct tmpl *tp)
{
	const struct chain *c = sc[ti].c;
	int cp = sc[ti].cp > 1 ? sc[ti].cp : 1;
	int ep = sc[ti].ep > 1 ? sc[ti].ep : 1;
	int etp = sc[ti].etp > 0 ? sc[ti].etp : sc[ti].t;
	double P = (double)chain_params(c, 0, c->L - 1), ns, nse;
	/* the parameters Muon manages keep less (cost_muon_delta()) */
	double Pm = (double)chain_muon(c, 0, c->L - 1, &ns, &nse);
	const struct runtime *rt = cost_runtime(o, sched, d);
	double pbz[8]; /* the bytes of all parameters by z, which alone
			  they read */
	int r, vi, z, zi, have = 0;
	/* the checks that read neither the width nor the candidate's
	 * recomputation, interleaving, ZeRO stage or offload, once */
	int bad_every = cost_every_on(o) && runtime_check_every(rt, NULL, 0);
	/* runtime_check_ep() judges every mixture of experts, with expert
	 * parallelism or without (DeepSpeed-MoE's ZeRO rule) */
	int moe = ep > 1 || chain_eparams(c, 0, c->L - 1) > 0;
	int bad_all = runtime_check_train(rt, o->precision, o->optimizer,
					  NULL, 0) ||
		      runtime_check_par(rt, cp, ep, NULL, 0);

	tp->scr_ok = 0; /* e, rv and the counts change below */
	if (tp->ck_ti < 0)
		for (tp->nz = z = 0; z < 8; z++)
			if ((so->zero_mask & (1u << (z >> 1))) &&
			    (so->offload_mask & (1u << (z & 1))))
				tp->zl[tp->nz++] = z;
	if (tp->ck_ti != ti || tp->ck_sched != sched || tp->ck_d != d) {
		memset(tp->ck, -1, sizeof(tp->ck));
		tp->ck_ti = ti;
		tp->ck_sched = sched;
		tp->ck_d = d;
	}
	tp->n = tp->nrv = 0;
	tp->screened[0] = tp->screened[1] = 0;
	tp->skipped[0] = tp->skipped[1] = 0;
	for (r = 0; r < PROF_RC_N; r++) {
		if (so->fix_rc >= 0 ? r != so->fix_rc
				    : !(so->rc_mask & (1u << r)))
			continue;
		for (vi = 0; vi < so->nv; vi++) {
			int iv = so->v[vi], ncand = 0;

			/* Interleaving is a flush schedule with d > 1 whose
			 * microbatches come in groups of d (Megatron): the
			 * last, d | m, is the group's visit's to check. */
			if (iv > 1 &&
			    (sched != PLAN_FLUSH || d == 1 || iv * d > c->L))
				continue;
			for (zi = 0; zi < tp->nz; zi++) {
				struct tmpl_entry *e = &tp->e[tp->n];
				int zs, off, sh = 0;

				z = tp->zl[zi];
				zs = z >> 1;
				off = z & 1;
				if (zs && w * cp == 1 && (so->zero_mask & 1))
					continue;
				e->r = r;
				e->v = iv;
				e->zero = zs;
				e->offload = off;
				/* HSDP: a shard group smaller than the data x
				 * context ranks, that divides them */
				if (zs >= 2 && so->shard > 0 &&
				    so->shard < w * cp) {
					if ((w * cp) % so->shard) {
						e->kind = TMPL_SKIP_SHARD;
						e->shard = 0;
						tp->skipped[iv > 1]++;
						tp->n++;
						continue;
					}
					sh = so->shard;
				}
				e->shard = sh;
				if (tp->ck[r][vi][zs] < 0)
					tp->ck[r][vi][zs] = runtime_check(
						rt, sched, d, sc[ti].t, iv, zs,
						r, NULL, 0) != 0;
				/* runtime_check_shard() finds nothing to
				 * refuse without a shard group or offload */
				if (tp->ck[r][vi][zs] ||
				    ((sh > 0 || off) &&
				     runtime_check_shard(rt, d, zs, sh, off, r,
							 NULL, 0)))
					continue;
				/* and runtime_check_ep() none without
				 * experts */
				if ((r == PROF_RC_FULL && bad_every) ||
				    bad_all ||
				    (moe &&
				     runtime_check_ep(rt, w, cp, sc[ti].t, etp,
						      ep, zs, sh, NULL, 0))) {
					e->kind = TMPL_SKIP_RT;
					tp->skipped[iv > 1]++;
					tp->n++;
					continue;
				}
				if (!screen) {
					e->kind = TMPL_CAND;
					tp->n++;
					continue;
				}
				if (!(have & (1 << z))) {
					pbz[z] = tmpl_param_bytes(o, sched, w, d,
								  cp, ep, zs, sh,
								  off, P, Pm);
					have |= 1 << z;
				}
				if (pbz[z] / d > o->cap_bytes &&
				    !(so->fix_w > 0 && so->fix_d > 0)) {
					e->kind = TMPL_SCREENED;
					tp->screened[iv > 1]++;
					tp->n++;
					continue;
				}
				e->kind = TMPL_CAND;
				e->rvi = tp->nrv; /* the rv this (r, v) adds */
				tp->n++;
				ncand++;
			}
			if (ncand) {
				tp->rv[tp->nrv].r = r;
				tp->rv[tp->nrv].v = iv;
				tp->rv[tp->nrv].n = ncand;
				tp->nrv++;
			}
		}
	}
}

/*
 * tmpl_check()'s memory screen of the entries kept in tp->sk, at width w:
 * the same template as tmpl_check() with the screen on builds, when the
 * width reads nothing else (tmpl_build()).  Returns 0 when that is the
 * template tp holds already, 1 when it built it anew.
 */
static int
tmpl_screen(const struct search_chain *sc, int ti, const struct cost_opts *o,
	    const struct search_opts *so, int sched, int d, int w,
	    struct tmpl *tp)
{
	int cp = sc[ti].cp > 1 ? sc[ti].cp : 1;
	int ep = sc[ti].ep > 1 ? sc[ti].ep : 1;
	int fix = so->fix_w > 0 && so->fix_d > 0, i, z, have, scr = 0;
	/* tmpl_check()'s first check, the one that reads w c: one rank
	 * leaves ZeRO out when plain data parallelism is allowed */
	int one = w * cp == 1 && (so->zero_mask & 1);
	double pbz[8]; /* as tmpl_check()'s */

	/* the verdicts first: the z of ZeRO stage 0 (z < 2) read no
	 * width (no shard group, no division by the ranks) */
	have = one ? tp->sk_z & 3 : tp->sk_z;
	for (z = 0; z < 8; z++) {
		if (!(have & (1 << z)))
			continue;
		if (z < 2 && (tp->pz_ok & (1 << z))) {
			pbz[z] = tp->pz[z];
		} else {
			pbz[z] = tmpl_param_bytes(o, sched, w, d, cp, ep,
						  z >> 1, 0, z & 1, tp->sk_P,
						  tp->sk_Pm);
			if (z < 2) {
				tp->pz[z] = pbz[z];
				tp->pz_ok |= 1 << z;
			}
		}
		if (pbz[z] / d > o->cap_bytes && !fix)
			scr |= 1 << z;
	}
	/* the template of the last width, when it read the same (GPT-3
	 * 175B on 1024 GPUs: 7,591 widths of 12,359) */
	if (tp->scr_ok && tp->scr_one == one && tp->scr == scr)
		return 0;
	tp->scr_ok = 1;
	tp->scr_one = one;
	tp->scr = scr;
	tp->n = tp->nrv = 0;
	tp->screened[0] = tp->screened[1] = 0;
	tp->skipped[0] = tp->skipped[1] = 0;
	for (i = 0; i < tp->sk_n; i++) {
		struct tmpl_entry *e;
		struct tmpl_rv *rv;

		if (one && tp->sk[i].zero)
			continue;
		e = &tp->e[tp->n++];
		*e = tp->sk[i];
		if (e->kind != TMPL_CAND) {
			tp->skipped[e->v > 1]++;
			continue;
		}
		z = e->zero << 1 | e->offload;
		if (scr & (1 << z)) {
			e->kind = TMPL_SCREENED;
			tp->screened[e->v > 1]++;
			continue;
		}
		/* an (r, v)'s entries are consecutive, in tmpl_check()'s
		 * order of its rv */
		rv = tp->nrv ? &tp->rv[tp->nrv - 1] : NULL;
		if (!rv || rv->r != e->r || rv->v != e->v) {
			rv = &tp->rv[tp->nrv++];
			rv->r = e->r;
			rv->v = e->v;
			rv->n = 0;
		}
		rv->n++;
		e->rvi = (int)(rv - tp->rv);
	}
	return 1;
}

/*
 * The template of the group (chain ti, sched, d, w) into tp, as
 * tmpl_check() with its screen builds it: from the entries kept for the
 * chain, schedule and depth when the width reads nothing but the
 * screen and ZeRO's rule for one rank (no shard group, whose division
 * reads it; no experts, whose checks read it).
 */
static int
tmpl_build(const struct search_chain *sc, int ti, const struct cost_opts *o,
	   const struct search_opts *so, int sched, int d, int w,
	   struct tmpl *tp)
{
	const struct chain *c = sc[ti].c;
	double ns, nse;
	int i;

	if (tp->moe_ti != ti) {
		tp->moe_ti = ti;
		tp->moe = sc[ti].ep > 1 || chain_eparams(c, 0, c->L - 1) > 0;
	}
	if (so->shard > 0 || tp->moe || so->plain) {
		tmpl_check(sc, ti, o, so, sched, d, w, 1, tp);
		return 1;
	}
	if (tp->sk_n < 0 || tp->sk_ti != ti || tp->sk_sched != sched ||
	    tp->sk_d != d) {
		/* the entries of any width of w c > 1 (2: with no shard
		 * group and no experts nothing else reads it), which
		 * tmpl_screen() narrows for one rank */
		tmpl_check(sc, ti, o, so, sched, d, 2, 0, tp);
		memcpy(tp->sk, tp->e, (size_t)tp->n * sizeof(*tp->e));
		tp->sk_n = tp->n;
		tp->sk_ti = ti;
		tp->sk_sched = sched;
		tp->sk_d = d;
		tp->sk_P = (double)chain_params(c, 0, c->L - 1);
		tp->sk_Pm = (double)chain_muon(c, 0, c->L - 1, &ns, &nse);
		tp->sk_z = tp->pz_ok = 0;
		for (i = 0; i < tp->sk_n; i++)
			if (tp->sk[i].kind == TMPL_CAND)
				tp->sk_z |= 1 << (tp->sk[i].zero << 1 |
						  tp->sk[i].offload);
	}
	return tmpl_screen(sc, ti, o, so, sched, d, w, tp);
}

/* The reason runtime_check_train(), runtime_check_par() or
 * runtime_check_ep() gives for e. */
static void
tmpl_why(const struct search_chain *sc, int ti, const struct cost_opts *o,
	 int sched, int d, int w, const struct tmpl_entry *e, char *why,
	 size_t n)
{
	int cp = sc[ti].cp > 1 ? sc[ti].cp : 1;
	int ep = sc[ti].ep > 1 ? sc[ti].ep : 1;
	int etp = sc[ti].etp > 0 ? sc[ti].etp : sc[ti].t;
	const struct runtime *rt = cost_runtime(o, sched, d);

	why[0] = 0;
	if (cost_every_on(o) && e->r == PROF_RC_FULL &&
	    runtime_check_every(rt, why, n))
		return;
	if (!runtime_check_train(rt, o->precision, o->optimizer, why, n) &&
	    !runtime_check_par(rt, cp, ep, why, n) &&
	    (ep > 1 || chain_eparams(sc[ti].c, 0, sc[ti].c->L - 1) > 0))
		runtime_check_ep(rt, w, cp, sc[ti].t, etp, ep, e->zero,
				 e->shard, why, n);
}

/* The recomputation a candidate's time bound counts: under
 * --recompute-every "full" recomputes some blocks only, no more time than
 * none (its memory at least full's, which the screen counts). */
static int
lb_rc(const struct cost_opts *o, int r)
{
	return cost_every_on(o) && r == PROF_RC_FULL ? PROF_RC_NONE : r;
}

/* A candidate's lower bound: its compute alone, all on one GPU for
 * "none", split evenly (no stage below its slowest layer) otherwise, with
 * the pipeline's fill and drain for the flush schedules. */
static double
cand_lb(int sched, int d, int m, int v, double all, double t)
{
	if (sched == PLAN_NONE)
		return m * all;
	if (sched == PLAN_2BW)
		return m * t;
	return (m + (double)(d - 1) / v) * t;
}

/* tp's cnt, vmax and rbmask, from its rv (lb_rc() under o). */
static void
tmpl_sums(const struct cost_opts *o, struct tmpl *tp)
{
	int i, f, every = cost_every_on(o);

	for (f = 0; f < 2; f++) {
		tp->cnt[f] = 0;
		tp->vmax[f] = 1;
		tp->rbmask[f] = 0;
	}
	for (i = 0; i < tp->nrv; i++) {
		const struct tmpl_rv *e = &tp->rv[i];
		/* lb_rc() */
		int rb = every && e->r == PROF_RC_FULL ? PROF_RC_NONE : e->r;

		for (f = e->v > 1; f < 2; f++) {
			tp->cnt[f] += e->n;
			if (e->v > tp->vmax[f])
				tp->vmax[f] = e->v;
			tp->rbmask[f] |= 1 << rb;
		}
	}
}

#define RB_MASKS (1 << PROF_RC_N)

/*
 * For each microbatch size k of a chain of max_layers() maxl (nmb of
 * them) and each mask of recomputations (bit rb), the least slowest
 * layer and the least whole chain over them into fm[2 (k RB_MASKS +
 * mask)] (the order of maxl's pairs): NAN when one of them is NAN or
 * negative.
 */
static void
floor_mins(const double *maxl, int nmb, double *fm)
{
	int k, mask, rb;

	for (k = 0; k < nmb; k++)
		for (mask = 0; mask < RB_MASKS; mask++) {
			double *f = fm + 2 * (k * RB_MASKS + mask);

			f[0] = f[1] = INFINITY;
			for (rb = 0; rb < PROF_RC_N; rb++) {
				const double *x = maxl + 2 * (k * PROF_RC_N + rb);

				if (!(mask & (1 << rb)))
					continue;
				if (!(x[0] >= 0 && x[1] >= 0)) {
					f[0] = f[1] = NAN;
					break;
				}
				if (x[0] < f[0])
					f[0] = x[0];
				if (x[1] < f[1])
					f[1] = x[1];
			}
		}
}

/*
 * A floor of the closed-form bounds visit_lb() works out (neither lp_only
 * nor sim) for the candidates of template tp at (sched, d, m), vok
 * whether they may interleave, f their chain's floor_mins() at their
 * microbatch size: cand_lb() of the least slowest layer and chain over
 * their recomputations, at their most interleaving (which only shortens
 * the fill).  Each step of cand_lb() only grows with its arguments when
 * they are 0 or more, and rounds monotonically: no candidate's bound is
 * under it.  -INFINITY where floor_mins() said NAN.
 */
static inline double
group_floor(const struct tmpl *tp, const double *f, int sched, int d, int m,
	    int vok)
{
	const double *x = f + 2 * tp->rbmask[vok];
	double t = x[1] / d;

	if (isnan(x[0]))
		return -INFINITY;
	if (x[0] > t)
		t = x[0];
	return cand_lb(sched, d, m, tp->vmax[vok], x[1], t);
}

/*
 * A candidate's lower bound of its simulated time, whatever its
 * partition (cost_simulate_lb(); cand_lb() bounds its closed-form time
 * only, which unequal stages' simulation beats): all, the chain's
 * compute, maxl its slowest layer's.
 */
static double
cand_sim_lb(int sched, int d, int m, int v, double all, double maxl)
{
	struct cost_cfg g;

	memset(&g, 0, sizeof(g));
	g.sched = sched;
	g.d = d;
	g.m = m;
	g.v = v;
	return cost_simulate_lb(&g, all, maxl);
}

/*
 * cost_simulate_lb()'s factors by (schedule, d, m, v), what
 * cand_sim_lb() reads of a candidate: one enumeration asks the same ones
 * of every chain, width and microbatch size whose m is the same, and
 * working them out (expm1(), log1p()) costs more than the rest of a
 * group.  Direct-mapped: an entry asked for another key is replaced.
 */
#define SIMLB_N 1024

struct simlb_cache {
	struct simlb_entry {
		int sched, d, m, v; /* d 0: empty */
		struct cost_sim_lb f;
	} e[SIMLB_N];
};

/* cand_sim_lb() to the bit, its factors from mc (NULL: worked out). */
static double
cand_sim_lb_memo(struct simlb_cache *mc, int sched, int d, int m, int v,
		 double all, double maxl)
{
	unsigned h = ((unsigned)d * 2654435761u ^ (unsigned)m * 40503u ^
		      (unsigned)v * 97u ^ (unsigned)sched * 7919u) %
		     SIMLB_N;
	struct simlb_entry *e;

	if (!mc)
		return cand_sim_lb(sched, d, m, v, all, maxl);
	e = &mc->e[h];
	if (e->d != d || e->m != m || e->v != v || e->sched != sched) {
		struct cost_cfg g;

		memset(&g, 0, sizeof(g));
		g.sched = sched;
		g.d = d;
		g.m = m;
		g.v = v;
		cost_simulate_lb_factors(&g, &e->f);
		e->sched = sched;
		e->d = d;
		e->m = m;
		e->v = v;
	}
	return cost_simulate_lb_at(&e->f, all, maxl);
}

/* The recomputation a visit's lower bound of candidate (sched, d, r)
 * counts; mixed: the runtime of (sched, d) takes a per-layer choice. */
static int
visit_rc(const struct visit *vt, const struct cost_opts *o, int mixed,
	 int r)
{
	if (vt->lp_only || (vt->sim == 2 && r != PROF_RC_NONE && mixed))
		return PROF_RC_NONE;
	return lb_rc(o, r);
}

/* A visit's lower bound of a candidate: cand_lb(), or with vt->sim
 * cand_sim_lb() (its factors from mc); mk the chain's max_layers() at
 * its microbatch. */
static double
visit_lb(const struct visit *vt, struct simlb_cache *mc, const double *mk,
	 int sched, int d, int m, int v, int rb)
{
	const double *x = mk + 2 * rb;
	double t = x[1] / d;

	if (vt->sim)
		return cand_sim_lb_memo(mc, sched, d, m, v, x[1], x[0]);
	if (x[0] > t)
		t = x[0];
	return cand_lb(sched, d, m, v, x[1], t);
}

/*
 * Hand vt the candidates of one (chain, schedule, d, w, b, m) from the
 * group's template tp: all at once to vt->group first (their lower
 * bounds' range; with vt->away a floor of them, from fm, the chain's
 * floor_mins(), before), each in turn when it wants them.  Counts them in *n,
 * those screened out by memory in *screened, those skipped in stats.
 */
static void
add_cands(const struct search_chain *sc, int ti, const double *maxl,
	  const double *fm, const struct cost_opts *o, const struct tmpl *tp,
	  int sched, int d, int w, int k, int m, int mixed,
	  struct simlb_cache *mc, struct visit *vt, long *n, long *screened,
	  struct search_stats *stats)
{
	const double *mk = maxl + 2 * (k * PROF_RC_N);
	double lo = INFINITY, hi = -INFINITY;
	double lbs[PROF_RC_N * SEARCH_MAX_V]; /* by tp->rv */
	struct cand cd;
	int i, vok = m % d == 0, rb;
	long cnt = 0;

	*screened += tp->screened[0] + (vok ? tp->screened[1] : 0);
	if (vt->scr) {
		long g = (long)w * d * sc[ti].t *
			 (sc[ti].cp > 1 ? sc[ti].cp : 1);

		vt->scr[g] += tp->screened[0] + (vok ? tp->screened[1] : 0);
		vt->skip[g] += tp->skipped[0] + (vok ? tp->skipped[1] : 0);
	}
	if (stats && (tp->skipped[0] || (vok && tp->skipped[1]))) {
		stats->skipped_rt +=
			tp->skipped[0] + (vok ? tp->skipped[1] : 0);
		/* the reason of the first configuration skipped */
		for (i = 0; !stats->skip_why[0] && i < tp->n; i++) {
			const struct tmpl_entry *e = &tp->e[i];

			if (e->v > 1 && !vok)
				continue;
			if (e->kind == TMPL_SKIP_SHARD)
				snprintf(stats->skip_why,
					 sizeof(stats->skip_why), "%s",
					 "--shard-group does not divide the "
					 "data-parallel ranks");
			else if (e->kind == TMPL_SKIP_RT)
				tmpl_why(sc, ti, o, sched, d, w, e,
					 stats->skip_why,
					 sizeof(stats->skip_why));
		}
	}
	if (!tp->nrv)
		return;
	/* what group says of the whole group, said of a floor of its
	 * bounds first: most that it turns away are turned away by it */
	if (vt->away && (cnt = tp->cnt[vok]) > 0 &&
	    vt->away(vt,
		     group_floor(tp, fm + 2 * k * RB_MASKS, sched, d, m, vok),
		     cnt)) {
		*n += cnt;
		return;
	}
	cnt = 0;
	for (i = 0; i < tp->nrv; i++) {
		const struct tmpl_rv *e = &tp->rv[i];
		double lb;

		if (e->v > 1 && !vok)
			continue;
		rb = visit_rc(vt, o, mixed, e->r);
		lb = lbs[i] = visit_lb(vt, mc, mk, sched, d, m, e->v, rb);
		if (lb < lo)
			lo = lb;
		if (lb > hi)
			hi = lb;
		cnt += e->n;
	}
	*n += cnt;
	if (!cnt || (vt->group && !vt->group(vt, lo, hi, cnt)))
		return;
	/* the group's fields once, each candidate's own in turn */
	memset(&cd, 0, sizeof(cd));
	cd.sched = sched;
	cd.w = w;
	cd.d = d;
	cd.k = k;
	cd.m = m;
	cd.ti = ti;
	for (i = 0; i < tp->n; i++) {
		const struct tmpl_entry *e = &tp->e[i];

		if (e->kind != TMPL_CAND || (e->v > 1 && !vok))
			continue;
		cd.r = e->r;
		cd.v = e->v;
		cd.zero = e->zero;
		cd.shard = e->shard;
		cd.offload = e->offload;
		/* the bound of its (recomputation, interleaving) */
		cd.lb = lbs[e->rvi];
		vt->fn(vt, &cd);
	}
}

/*
 * The least lower bound an lp_only visit can see in the group (chain,
 * schedule, d, w, microbatch size k, m): add_cands()'s without
 * recomputation, at the most interleaving tried (vmax), which only
 * lowers it; no template needed.
 */
static double
lp_floor(const double *maxl, int k, int sched, int d, int m, int vmax)
{
	const double *x = maxl + 2 * (k * PROF_RC_N + PROF_RC_NONE);
	double t = x[1] / d;

	if (x[0] > t)
		t = x[0];
	return cand_lb(sched, d, m, vmax, x[1], t);
}

/* sim_floor()'s all m / d, a hair under. */
static inline double
sim_most(double all, int d, int m)
{
	return all * m / d * ((1 - 1e-9) * (1 - 1e-7));
}

/*
 * The least lower bound a sim visit can see in the group (chain,
 * schedule, d, w, microbatch size k, m): cand_sim_lb() without
 * recomputation, at the most interleaving tried (vmax), which only
 * lowers it (it shortens the fill); no template needed.
 */
static double
sim_floor(struct simlb_cache *mc, const double *maxl, int k, int sched,
	  int d, int m, int vmax, double over)
{
	const double *x = maxl + 2 * (k * PROF_RC_N + PROF_RC_NONE);
	double all = x[1], most;

	/*
	 * Without 2bw the floor is at least all m / d: its last stage's
	 * factor is m, and the equalised stages' divisor at most d / m (1
	 * - (1 - y)^d <= d y), both to a few units in the last place.
	 * With that a relative 1e-9 over (0: none known) or more, so is
	 * the floor, and the group is turned away whatever it is: this
	 * is said instead, without expm1() and log1p().
	 */
	if (mc && over > 0 && sched != PLAN_2BW && all > 0) {
		most = sim_most(all, d, m);
		if (most >= over)
			return most;
	}
	return cand_sim_lb_memo(mc, sched, d, m,
				sched == PLAN_FLUSH ? vmax : 1, all, x[0]);
}

/*
 * sim_floor() as enumerate() asks it: the next of the floors kept in
 * (*fl)[0..*nfl) when it replays them (*ifl the next to read), else
 * worked out and kept.
 */
static double
floor_of(double **fl, size_t *nfl, size_t *afl, size_t *ifl, int replay,
	 struct simlb_cache *mc, const double *maxl, int k, int sched, int d,
	 int m, int vmax, double over)
{
	double f;

	if (replay && *ifl < *nfl)
		return (*fl)[(*ifl)++];
	f = sim_floor(mc, maxl, k, sched, d, m, vmax, over);
	if (!replay) {
		if (*nfl == *afl) /* (a call a floor is the loop's cost) */
			xgrow((void **)fl, afl, *nfl + 1, sizeof(**fl));
		(*fl)[(*nfl)++] = f;
	}
	return f;
}

/*
 * Whether enumerate() passes the group (chain of max_layers() maxl,
 * schedule, d, width w, microbatch size k of b) by before its template
 * for its floor alone, where that floor only grows with m: an lp_only
 * visit's lp_floor() (its times >= 0), a sim visit's sim_floor() where
 * its all m / d decides (mc, an over, no 2bw).  Or for m over 10^9,
 * which it passes by too.  0: not passed by, or not for those reasons.
 */
static int
floor_away(struct visit *vt, const struct search_opts *so,
	   struct simlb_cache *mc, const double *maxl, int64_t B, int64_t w,
	   int b, int k, int sched, int d, int vmax)
{
	const double *x = maxl + 2 * (k * PROF_RC_N + PROF_RC_NONE);
	int64_t m = B / w / b;
	double f;

	if (m > 1000000000)
		return 1;
	if (m < 1)
		return 0;
	if (vt->lp_only) {
		if (so->gate_all || !(x[0] >= 0 && x[1] >= 0) ||
		    !isfinite(x[0]) || !isfinite(x[1]))
			return 0;
		f = lp_floor(maxl, k, sched, d, (int)m, vmax);
	} else {
		if (!vt->sim || !mc || !(vt->over > 0) || sched == PLAN_2BW ||
		    !(x[1] > 0) || !isfinite(x[1]))
			return 0;
		f = sim_most(x[1], d, (int)m);
		if (!(f >= vt->over))
			return 0;
	}
	return !vt->group(vt, f, INFINITY, 1);
}

/*
 * For each microbatch size k of chain c, wf[k]: the first of the nwd
 * widths ws (ascending) whose groups enumerate() does not pass by under
 * floor_away(), which passes every one before it by (m, and with it the
 * floor, only comes down as the width grows; vt->mono: so does the
 * visit's verdict).  Bisected: a few floors where the loops over the
 * widths would work out each (the refinement's and the exact search's
 * enumerations of GPT-3 175B on 1024 GPUs pass most groups by, the
 * narrow ones of many microbatches).  Returns the least of them; all 0
 * when the visit has none such (or so->plain).
 */
static long
floor_widths(struct visit *vt, const struct search_opts *so,
	     struct simlb_cache *mc, const double *maxl,
	     const struct chain *c, const int64_t *ws, long nwd, int64_t B,
	     int sched, int d, int vmax, long *wf)
{
	long least = nwd, lo, hi, mid;
	int k;

	for (k = 0; k < c->nmb; k++)
		wf[k] = 0;
	if (so->plain || !vt->group || !vt->mono ||
	    !(vt->lp_only || vt->sim))
		return 0;
	for (k = 0; k < c->nmb; k++) {
		/* away before lo, not from hi on */
		for (lo = 0, hi = nwd; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			if (floor_away(vt, so, mc, maxl, B, ws[mid], c->mb[k],
				       k, sched, d, vmax))
				lo = mid + 1;
			else
				hi = mid;
		}
		wf[k] = lo;
		if (lo < least)
			least = lo;
	}
	return least;
}

/*
 * Whether enumerate()'s loops over chain b ask sim_floor() what they
 * asked over chain a, in the same order: the same grid (tensor, context
 * and expert parallelism, layers, microbatch sizes) and the same
 * max_layers() (ma, mb), which is all the floors read of a chain.
 * Sequence parallelism or not: the same compute, the same floors.
 */
static int
same_floors(const struct search_chain *a, const double *ma,
	    const struct search_chain *b, const double *mb)
{
	const struct chain *x = a->c, *y = b->c;

	return a->t == b->t && a->cp == b->cp && a->ep == b->ep &&
	       a->etp == b->etp && x->L == y->L && x->nmb == y->nmb &&
	       !memcmp(x->mb, y->mb, (size_t)x->nmb * sizeof(*x->mb)) &&
	       !memcmp(ma, mb, 2 * (size_t)x->nmb * PROF_RC_N * sizeof(*ma));
}

/*
 * One stage is plain data parallelism, whatever the schedule: a schedule
 * other than the one that stands for it (none when searched, else the
 * first searched; none alone when the schedule is fixed) repeats it,
 * unless the two run on runtimes of their own (without --runtime one stage of flush
 * runs on megatron-core, of none on pytorch-ddp), whose overlap, bytes
 * and memory differ: then both are candidates, so that searching more
 * synchronous schedules never finds a slower plan than searching one of
 * them.
 */
static int
one_stage_repeats(const struct cost_opts *o, const struct search_opts *so,
		  int sched)
{
	int rep;

	if (so->fix_sched >= 0)
		return 1;
	if (so->sched_mask & (1u << PLAN_NONE))
		rep = PLAN_NONE;
	else
		for (rep = 0; !(so->sched_mask & (1u << rep)); rep++)
			;
	/* 2BW on one stage would be data parallelism whose weights lag
	 * an update: the schedule that stands for one stage keeps it */
	return rep != sched &&
	       (sched == PLAN_2BW ||
		cost_runtime(o, rep, 1) == cost_runtime(o, sched, 1));
}

/* Enumerate the candidates, each handed to vt; returns their number
 * (an lp_only visit's, and its *screened, leave out the groups whose
 * least bound it turns away before their template is built). */
static long
enumerate(const struct search_chain *sc, int nsc, const struct cluster *cl,
	  const struct cost_opts *o, const struct search_opts *so, int N,
	  struct visit *vt, long *screened, struct search_stats *stats)
{
	long n = 0, nw = 0, nwd, wi, *wf = NULL;
	int64_t B = so->batch, w, *ws;
	int d, k, sched, ti, cp, ep, etp, vi, vmax = 1;
	struct tmpl *tp = xmalloc(sizeof(*tp));
	/*
	 * A sim visit's floors (sim_floor()) of the last chain its loops
	 * ran over, in the order asked: a chain that asks the same ones
	 * (same_floors()) reads them back (GPT-3 with and without sequence
	 * parallelism: 3 of its 7 chains).  Not with an lp_only visit,
	 * whose groups it turns away can leave out others' floors.
	 */
	double *fl = NULL, *pown = NULL, *fm = NULL;
	const double *pmaxl = NULL;
	size_t nfl = 0, afl = 0, ifl;
	int pti = -1, replay, mixed;
	struct simlb_cache *mc =
		vt->sim && !so->plain ? xcalloc(1, sizeof(*mc)) : NULL;

	tp->ck_ti = -1; /* nothing asked yet */
	tp->sk_n = -1;
	tp->scr_ok = 0;
	tp->moe_ti = -1;
	*screened = 0;
	for (vi = 0; vi < so->nv; vi++)
		if (so->v[vi] > vmax)
			vmax = so->v[vi];
	/* the widths that divide the batch, once: not a test of every
	 * width up to the GPUs for every depth */
	ws = xmalloc(((size_t)(N < B ? N : B) + 1) * sizeof(*ws));
	for (w = 1; w <= N && w <= B; w++)
		if (B % w == 0)
			ws[nw++] = w;
	for (ti = 0; ti < nsc; ti++) {
		const struct chain *c = sc[ti].c;
		int t = sc[ti].t, L = c->L;
		const double *maxl;
		double *own;

		/* A tensor-parallel group stays inside one node; a
		 * context-parallel group of them counts as one unit of t c
		 * GPUs below. */
		if (t < 1 || cl->gpus_per_node % t || t > N)
			continue;
		cp = sc[ti].cp > 1 ? sc[ti].cp : 1;
		ep = sc[ti].ep > 1 ? sc[ti].ep : 1;
		etp = sc[ti].etp > 0 ? sc[ti].etp : sc[ti].t;
		if (sc[ti].t % etp)
			continue;
		t *= cp;
		if (t > N)
			continue;
		maxl = maxl_of(so, c, &own);
		wf = xrealloc(wf, (size_t)c->nmb * sizeof(*wf));
		if (vt->away) {
			fm = xrealloc(fm, 2 * (size_t)c->nmb * RB_MASKS *
						  sizeof(*fm));
			floor_mins(maxl, c->nmb, fm);
		}
		replay = vt->sim && vt->group && !vt->lp_only && pti >= 0 &&
			 same_floors(&sc[pti], pmaxl, &sc[ti], maxl);
		if (!replay)
			nfl = 0;
		ifl = 0;
		for (sched = 0; sched < PLAN_NSCHED; sched++) {
			if (!(so->sched_mask & (1u << sched)))
				continue;
			if (so->fix_sched >= 0 && sched != so->fix_sched)
				continue;
			for (d = 1; d <= L && (int64_t)d * t <= N; d++) {
				if (d == 1 && sched != PLAN_NONE &&
				    one_stage_repeats(o, so, sched))
					continue;
				if (d > 1 && sched == PLAN_NONE &&
				    so->fix_d <= 0 &&
				    (so->sched_mask & ~(1u << PLAN_NONE)))
					continue;
				if (!fixed(d, so->fix_d))
					continue;
				if (vt->lp_only &&
				    !cost_runtime(o, sched, d)->mixed_rc)
					continue;
				/* what visit_rc() reads of the runtime */
				mixed = vt->sim == 2 &&
					cost_runtime(o, sched, d)->mixed_rc;
				/* the widths of this depth, and the first
				 * each microbatch size's floor lets through:
				 * those before it are passed by below
				 * anyway, floors asked or not (the floors a
				 * replay reads are those of the same widths) */
				for (nwd = 0; nwd < nw && ws[nwd] * d * t <= N;
				     nwd++)
					;
				for (wi = floor_widths(vt, so, mc, maxl, c, ws,
						       nwd, B, sched, d, vmax,
						       wf);
				     wi < nwd; wi++) {
					int built = 0;
					int64_t bw;

					w = ws[wi];
					if (!fixed((int)w, so->fix_w))
						continue;
					/* an expert-parallel group is ep of
					 * the w c t / etp blocks of etp */
					if (w * cp * (sc[ti].t / etp) % ep)
						continue;
					/* each replica's share of the
					 * batch, divided once a width */
					bw = B / w;

					for (k = 0; k < c->nmb; k++) {
						int b = c->mb[k];
						int64_t m;

						if (wi < wf[k] || bw % b ||
						    !fixed(b, so->fix_b))
							continue;
						m = bw / b;
						if (m > 1000000000 ||
						    (sched == PLAN_2BW && m < d))
							continue;
						if (vt->lp_only && vt->group &&
						    !so->gate_all &&
						    !vt->group(vt,
							       lp_floor(maxl,
									k, sched,
									d, (int)m,
									vmax),
							       INFINITY, 1))
							continue;
						if (vt->sim && vt->group &&
						    !vt->group(vt,
							       floor_of(&fl, &nfl,
									&afl, &ifl,
									replay, mc,
									maxl,
									k, sched, d,
									(int)m, vmax,
									vt->over),
							       INFINITY, 1))
							continue;
						/* (tmpl_sums() of a template
						 * unchanged: as it was) */
						if (!built++ &&
						    tmpl_build(sc, ti, o, so,
							       sched, d, (int)w,
							       tp) &&
						    vt->away)
							tmpl_sums(o, tp);
						add_cands(sc, ti, maxl, fm, o, tp,
							  sched, d, (int)w, k,
							  (int)m, mixed, mc, vt,
							  &n, screened, stats);
					}
				}
			}
		}
		free(pown);
		pown = own;
		pmaxl = maxl;
		pti = ti;
	}
	free(pown);
	free(fl);
	free(fm);
	free(ws);
	free(wf);
	free(tp);
	free(mc);
	return n;
}

/* cand_cmp(a, b) > 0, the lower bounds alone deciding most of the
 * time without a call. */
static inline int
cand_after(const struct cand *a, const struct cand *b)
{
	if (a->lb != b->lb)
		return a->lb > b->lb;
	return cand_cmp(a, b) > 0;
}

static inline void
cand_swap(struct cand *a, struct cand *b)
{
	struct cand t = *a;

	*a = *b;
	*b = t;
}

/*
 * Partition h[lo..hi] (hi - lo >= 2) around the median of its first,
 * middle and last: on return h[lo..*j] are no larger than it, h[*i..hi]
 * no smaller, *j < *i, and anything between is the pivot itself.
 */
static void
cand_part(struct cand *h, long lo, long hi, long *i, long *j)
{
	long mid = lo + (hi - lo) / 2, a = lo, b = hi;
	struct cand p;

	if (cand_after(&h[lo], &h[mid]))
		cand_swap(&h[lo], &h[mid]);
	if (cand_after(&h[mid], &h[hi]))
		cand_swap(&h[mid], &h[hi]);
	if (cand_after(&h[lo], &h[mid]))
		cand_swap(&h[lo], &h[mid]);
	p = h[mid];
	while (a <= b) {
		while (cand_after(&p, &h[a]))
			a++;
		while (cand_after(&h[b], &p))
			b--;
		if (a <= b)
			cand_swap(&h[a++], &h[b--]);
	}
	*i = a;
	*j = b;
}

/* Sort h[0..n) in cand_cmp order (a total order: the one sort there
 * is, whatever the algorithm). */
static void
cand_sort(struct cand *h, long n)
{
	long i, j;

	while (n > 16) {
		cand_part(h, 0, n - 1, &i, &j);
		/* the smaller side first, the larger in the loop */
		if (j + 1 < n - i) {
			cand_sort(h, j + 1);
			h += i;
			n -= i;
		} else {
			cand_sort(h + i, n - i);
			n = j + 1;
		}
	}
	for (i = 1; i < n; i++) {
		struct cand t = h[i];

		for (j = i; j > 0 && cand_after(&h[j - 1], &t); j--)
			h[j] = h[j - 1];
		h[j] = t;
	}
}

/*
 * cand_sort() of a long list h[0..n), the same order (cand_cmp's, a
 * total order): the lower bounds' bits sorted as integers (the order of
 * the doubles, zeros alike), by radix, a digit of 11 bits a pass over
 * keys of 16 bytes rather than the candidates of 40 (the passes
 * whose digit every key shares skipped), then each run of bounds alike
 * in those bits by cand_sort() (a short one of one bound by its other
 * fields alone).  The radix takes the top RADIX_TOP bits
 * alone (sign, exponent and 21 bits of the fraction, three passes where
 * the whole word took six): bounds that share them differ by a few
 * parts in ten million at most, rare but for equal bounds, and their
 * runs are short.  Returns -1, h untouched, when a bound is NaN (which
 * cand_cmp does not order as the bits).
 */
#define RADIX_BITS 11
#define RADIX_TOP 33
#define RADIX_PASSES ((64 + RADIX_BITS - 1) / RADIX_BITS)
#define RADIX_FIRST (RADIX_PASSES - (RADIX_TOP + RADIX_BITS - 1) / RADIX_BITS)
#define RADIX_LOW (64 - RADIX_TOP)

struct radix_key {
	uint64_t k;
	long i;
};

/* cand_sort() of a few candidates h[0..n) of one lower bound. */
static void
cand_sort_ties(struct cand *h, long n)
{
	long i, j;

	for (i = 1; i < n; i++) {
		struct cand t = h[i];

		for (j = i; j > 0 && cand_cmp_fields(&h[j - 1], &t) > 0; j--)
			h[j] = h[j - 1];
		h[j] = t;
	}
}

static int
cand_sort_radix(struct cand *h, long n)
{
	struct radix_key *a, *b, *t;
	struct cand *out;
	long (*cnt)[1 << RADIX_BITS], i, j;
	int p;

	for (i = 0; i < n; i++)
		if (isnan(h[i].lb))
			return -1;
	a = xmalloc((size_t)n * sizeof(*a));
	b = xmalloc((size_t)n * sizeof(*b));
	cnt = xcalloc(RADIX_PASSES, sizeof(*cnt));
	for (i = 0; i < n; i++) {
		double lb = h[i].lb == 0 ? 0.0 : h[i].lb;
		uint64_t u;

		memcpy(&u, &lb, sizeof(u));
		a[i].k = u >> 63 ? ~u : u | (uint64_t)1 << 63;
		a[i].i = i;
		for (p = RADIX_FIRST; p < RADIX_PASSES; p++)
			cnt[p][(a[i].k >> (p * RADIX_BITS)) &
			       ((1 << RADIX_BITS) - 1)]++;
	}
	for (p = RADIX_FIRST; p < RADIX_PASSES; p++) {
		unsigned sh = (unsigned)p * RADIX_BITS;
		long sum = 0;

		if (cnt[p][(a[0].k >> sh) & ((1 << RADIX_BITS) - 1)] == n)
			continue;
		for (j = 0; j < 1 << RADIX_BITS; j++) {
			long c = cnt[p][j];

			cnt[p][j] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			b[cnt[p][(a[i].k >> sh) & ((1 << RADIX_BITS) - 1)]++] =
				a[i];
		t = a;
		a = b;
		b = t;
	}
	out = xmalloc((size_t)n * sizeof(*out));
	for (i = 0; i < n; i++)
		out[i] = h[a[i].i];
	for (i = 0; i < n; i = j) {
		int tie = 1; /* one bound all through */

		for (j = i + 1;
		     j < n && a[j].k >> RADIX_LOW == a[i].k >> RADIX_LOW; j++)
			tie &= a[j].k == a[i].k;
		if (j - i > 16 || (j - i > 1 && !tie))
			cand_sort(out + i, j - i);
		else if (j - i > 1)
			cand_sort_ties(out + i, j - i);
	}
	memcpy(h, out, (size_t)n * sizeof(*h));
	free(out);
	free(cnt);
	free(b);
	free(a);
	return 0;
}

/* cand_sort(), by radix (cand_sort_radix()) when the list is long and
 * plain is not set. */
static void
cand_sort_long(struct cand *h, long n, int plain)
{
	if (plain || n < 4096 || cand_sort_radix(h, n))
		cand_sort(h, n);
}

/* Quickselect: h[k] (k < n) where the sort of h[0..n) puts it, the
 * smaller ones before it, the larger after. */
static void
cand_select(struct cand *h, long n, long k)
{
	long lo = 0, hi = n - 1, i, j;

	while (hi - lo >= 2) {
		cand_part(h, lo, hi, &i, &j);
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
	if (hi - lo == 1 && cand_after(&h[lo], &h[hi]))
		cand_swap(&h[lo], &h[hi]);
}

/* The GPUs candidate cd takes: w d t c. */
static int
cand_gpus(const struct search_chain *sc, const struct cand *cd)
{
	int cp = sc[cd->ti].cp > 1 ? sc[cd->ti].cp : 1;

	return cd->w * cd->d * sc[cd->ti].t * cp;
}

/* Every candidate a visit is handed, appended to l->c (room for cap). */
struct list_visit {
	struct visit vt;
	struct cand_list *l;
	long cap;
};

static void
list_visit_fn(struct visit *vt, const struct cand *cd)
{
	struct list_visit *lv = (struct list_visit *)vt;
	struct cand_list *l = lv->l;

	if (l->n == lv->cap) {
		lv->cap = lv->cap ? 2 * lv->cap : 1024;
		l->c = xrealloc(l->c, (size_t)lv->cap * sizeof(*l->c));
	}
	l->c[l->n++] = *cd;
}

/* Whether a scan of l under N GPUs and a bound bound may skip the
 * block of candidates from i on (i a multiple of LIST_BLOCK): all of them
 * there, none on more than N GPUs, and all below bound. */
static inline int
list_skips(const struct cand_list *l, long i, int N, double bound)
{
	long b = i / LIST_BLOCK;

	return l->bmin && i % LIST_BLOCK == 0 && i + LIST_BLOCK <= l->n &&
	       l->bmin[b] > N && l->bhi[b] < bound;
}

/* Build l, of the given kind, for the memo's span: one enumeration
 * that no group turns away, sorted. */
static void
cand_list_build(struct cand_list *l, enum cand_kind kind,
		const struct search_chain *sc, int nsc,
		const struct cluster *cl, const struct cost_opts *o,
		const struct search_opts *so)
{
	int g, span = so->memo->span;
	struct list_visit lv;
	long i, dummy;

	memset(&lv, 0, sizeof(lv));
	/* room for as many as the longest list built (the kinds list
	 * about as many), not doubled a copy at a time */
	for (g = 0; g < KIND_N; g++)
		if (so->memo->lists[g].n > lv.cap)
			lv.cap = so->memo->lists[g].n;
	if (lv.cap)
		l->c = xrealloc(l->c, (size_t)lv.cap * sizeof(*l->c));
	lv.vt.fn = list_visit_fn;
	lv.vt.lp_only = kind == KIND_LP;
	lv.vt.sim = kind == KIND_SIM1 ? 1 : kind == KIND_SIM2 ? 2 : 0;
	lv.vt.scr = l->nscr = xcalloc((size_t)span + 1, sizeof(long));
	lv.vt.skip = l->nskip = xcalloc((size_t)span + 1, sizeof(long));
	lv.l = l;
	enumerate(sc, nsc, cl, o, so, span, &lv.vt, &dummy, NULL);
	cand_sort_long(l->c, l->n, so->plain);
	l->gpus = xmalloc(((size_t)l->n + 1) * sizeof(*l->gpus));
	l->ncand = xcalloc((size_t)span + 1, sizeof(long));
	for (i = 0; i < l->n; i++) {
		l->gpus[i] = cand_gpus(sc, &l->c[i]);
		l->ncand[l->gpus[i]]++;
	}
	/* the blocks a scan skips (none: plain) */
	l->bmin = so->plain ? NULL
			    : xmalloc(((size_t)l->n / LIST_BLOCK + 1) *
				      sizeof(*l->bmin));
	l->bhi = so->plain ? NULL
			   : xmalloc(((size_t)l->n / LIST_BLOCK + 1) *
				     sizeof(*l->bhi));
	for (i = 0; !so->plain && i + LIST_BLOCK <= l->n; i += LIST_BLOCK) {
		long b = i / LIST_BLOCK, j;

		l->bmin[b] = INT_MAX;
		l->bhi[b] = -INFINITY;
		for (j = i; j < i + LIST_BLOCK; j++) {
			if (l->gpus[j] < l->bmin[b])
				l->bmin[b] = l->gpus[j];
			if (isnan(l->c[j].lb) || l->c[j].lb > l->bhi[b])
				l->bhi[b] = isnan(l->c[j].lb) ? INFINITY
							      : l->c[j].lb;
		}
	}
	for (g = 1; g <= span; g++) {
		l->ncand[g] += l->ncand[g - 1];
		l->nscr[g] += l->nscr[g - 1];
		l->nskip[g] += l->nskip[g - 1];
	}
	l->gpn = cl->gpus_per_node;
}

/*
 * The memo's list of kind for a search on N GPUs of cluster cl (built
 * the first time, and again for a cluster of other nodes), or NULL
 * without a memo with a span of N or more.  The searches sharing the
 * memo share their options (search_memo_span()).
 */
static const struct cand_list *
cand_list_of(const struct search_chain *sc, int nsc,
	     const struct cluster *cl, const struct cost_opts *o,
	     const struct search_opts *so, int N, enum cand_kind kind)
{
	struct cand_list *l;

	if (!so->memo || N > so->memo->span)
		return NULL;
	l = &so->memo->lists[kind];
	if (l->gpn != cl->gpus_per_node) {
		cand_list_release(l);
		cand_list_build(l, kind, sc, nsc, cl, o, so);
	}
	return l;
}

/* Keep the cap smallest of pk->h in pk->h[0..cap) and the largest of
 * them in pk->top. */
static void
pick_trim(struct pick *pk)
{
	cand_select(pk->h, pk->n, pk->cap - 1);
	pk->n = pk->cap;
	pk->top = pk->h[pk->cap - 1];
	pk->full = 1;
}

/*
 * The candidate at i < pk->n in order: the batch is sorted as far as it
 * is read (a search most often reads a few hundred of it), each time
 * twice as far as before at least.
 */
static const struct cand *
pick_at(struct pick *pk, long i)
{
	long want = 2 * pk->sorted, from = pk->sorted;

	if (i < pk->sorted)
		return &pk->h[i];
	if (want < i + 1)
		want = i + 1;
	if (want < 64)
		want = 64;
	if (want > pk->n)
		want = pk->n;
	if (want < pk->n)
		cand_select(pk->h + from, pk->n - from, want - from - 1);
	cand_sort(pk->h + from, want - from);
	pk->sorted = want;
	return &pk->h[i];
}

/* Keep cd when it is among the cap smallest after pk->after so far. */
static void
pick_offer(struct visit *vt, const struct cand *cd)
{
	struct pick *pk = (struct pick *)vt;

	if (pk->after && !cand_after(cd, pk->after))
		return;
	if (pk->full && !cand_after(&pk->top, cd))
		return;
	if (!(cd->lb < pk->cut))
		return;
	pk->h[pk->n++] = *cd;
	if (pk->n == 2 * pk->cap)
		pick_trim(pk);
}

/* Whether any of a group's n candidates, of lower bounds in [lo, hi],
 * may be among those pick_offer() keeps: not when all come before
 * pk->after or after pk->top (cand_cmp orders by the bound first). */
static int
pick_group(struct visit *vt, double lo, double hi, long n)
{
	struct pick *pk = (struct pick *)vt;

	if (pk->after && hi < pk->after->lb)
		return 0;
	if ((pk->full && lo > pk->top.lb) || !(lo < pk->cut)) {
		pk->grouped += n;
		return 0;
	}
	return 1;
}

/* What pick_group() says of a group none of whose bounds is under lo,
 * when that is enough to say it turns the group away (no pk->after,
 * whose test reads the largest bound). */
static int
pick_away(struct visit *vt, double lo, long n)
{
	struct pick *pk = (struct pick *)vt;

	if (pk->after || !((pk->full && lo > pk->top.lb) || lo >= pk->cut))
		return 0;
	pk->grouped += n;
	return 1;
}

/*
 * pick_next() from the memo's list l: the first cap of N GPUs or fewer
 * after pk->after and under pk->cut, in order.
 */
static long
pick_listed(struct pick *pk, const struct cand_list *l, int N,
	    long *screened, struct search_stats *stats)
{
	long i = 0, lo, hi;

	if (pk->after) {
		/* the first after it */
		for (lo = 0, hi = l->n; lo < hi;) {
			long mid = lo + (hi - lo) / 2;

			if (cand_after(&l->c[mid], pk->after))
				hi = mid;
			else
				lo = mid + 1;
		}
		i = lo;
	}
	for (; i < l->n && pk->n < pk->cap; i++) {
		/* (a block of candidates on more GPUs, at once) */
		while (list_skips(l, i, N, pk->cut))
			i += LIST_BLOCK;
		if (i == l->n || !(l->c[i].lb < pk->cut))
			break;
		if (l->gpus[i] <= N)
			pk->h[pk->n++] = l->c[i];
	}
	pk->sorted = pk->n;
	*screened = l->nscr[N];
	if (stats)
		stats->skipped_rt += l->nskip[N];
	return l->ncand[N];
}

/*
 * The next cap candidates in cand_cmp order after `after` (NULL: from
 * the first), into pk->h[0..pk->n), put in order as pick_at() reads
 * them; returns how many candidates there are in all.
 */
static long
pick_next(struct pick *pk, const struct cand *after,
	  const struct search_chain *sc, int nsc, const struct cluster *cl,
	  const struct cost_opts *o, const struct search_opts *so, int N,
	  long *screened, struct search_stats *stats)
{
	const struct cand_list *l =
		cand_list_of(sc, nsc, cl, o, so, N, KIND_PICK);
	long n;

	pk->vt.fn = pick_offer;
	pk->vt.group = so->no_group ? NULL : pick_group;
	pk->vt.away = so->no_group || so->plain ? NULL : pick_away;
	pk->grouped = 0;
	pk->n = 0;
	pk->after = after;
	pk->full = 0;
	pk->sorted = 0;
	/* the reason a runtime skipped them when that is all there is */
	if (l && l->ncand[N] + l->nscr[N] > 0)
		return pick_listed(pk, l, N, screened, stats);
	n = enumerate(sc, nsc, cl, o, so, N, &pk->vt, screened, stats);
	if (pk->n > pk->cap)
		pick_trim(pk);
	return n;
}

/*
 * The least peak stage memory of the candidates visited, and whose: the
 * first in the order of the visit of those that need that least.  Two
 * visits of the same candidates in the same order: the first finds the
 * one that looks least (the least known memory or lower bound), whose
 * memory then bounds every solve of the second, so that few are solved
 * (a bound of the last least found, INFINITY at first, solves many).
 */
struct minmem {
	struct visit vt;
	struct ctx *x;
	struct cost_opts o; /* without the cap */
	double best;
	struct cand arg;
	long i;     /* candidates visited so far in this visit */
	long at;    /* arg's place in the order (-1: none yet) */
	double key; /* the first visit's least known memory or bound */
	/* the second visit's candidates that may need best or less, by
	 * their known memory or bound (key) and place in the order (lb, i) */
	struct minmem_cand {
		struct cand cd;
		double key;
		long i;
	} *c;
	long n;
	size_t alloc;
	int over; /* more than MINMEM_KEEP of them: none kept */
};

#define MINMEM_KEEP 65536

/* The memo's entry of cd (NULL: none), which knows its least memory
 * (t), or that it is lo or more. */
static struct time_entry *
minmem_entry(struct minmem *mm, const struct cand *cd)
{
	struct ctx *x = mm->x;

	if (!x->so->memo || cd->m <= 0)
		return NULL;
	return time_find(&x->so->memo->mins, cd, 0);
}

/* part_mem_lb() of cd, from the memo when it knows (not plain): a search
 * that nothing fits in asks it of every candidate twice, and so do the
 * sizes after it that nothing fits in either. */
static double
minmem_lb(struct minmem *mm, const struct cand *cd)
{
	struct ctx *x = mm->x;
	struct time_entry *e = NULL;
	struct cost_cfg g;
	double lb;

	if (x->so->memo && !x->so->plain && cd->m > 0) {
		e = time_find(&x->so->memo->mem_lbs, cd, 0);
		if (!isnan(e->t))
			return e->t;
	}
	cfg_of(x, cd, 0, &g);
	lb = part_mem_lb(x->c, &mm->o, &g);
	if (e)
		e->t = lb;
	return lb;
}

/* Its least memory under bound (part_solve(PART_MEM)'s: INFINITY when it
 * is bound or more), kept in e. */
static double
minmem_solve(struct minmem *mm, const struct cand *cd,
	     struct time_entry *e, double bound)
{
	struct ctx *x = mm->x;
	struct cost_cfg g;
	double mem;

	cfg_of(x, cd, 0, &g);
	links_for(x, 0, g.w, g.d, g.t, g.c, g.e, g.etp);
	mem = part_solve(&x->ws, x->c, &mm->o, &g, &x->links, PART_MEM,
			 bound, x->first);
	if (e && isfinite(mem))
		e->t = mem;
	else if (e && bound > e->lo)
		e->lo = bound;
	return mem;
}

/* The first visit: the candidate whose known memory, else lower bound,
 * is least (the first of those). */
static void
minmem_peek(struct visit *vt, const struct cand *cd)
{
	struct minmem *mm = (struct minmem *)vt;
	struct time_entry *e = minmem_entry(mm, cd);
	double key;

	key = e && !isnan(e->t) ? e->t : minmem_lb(mm, cd);
	if (mm->at < 0 || key < mm->key) {
		mm->key = key;
		mm->arg = *cd;
		mm->at = mm->i;
	}
	mm->i++;
}

/*
 * The candidate of the second visit: whether it may need best or less
 * (its memory or lower bound, *key, not above best); *e its memo entry.
 */
static int
minmem_may(struct minmem *mm, const struct cand *cd, struct time_entry **e,
	   double *key)
{
	*e = minmem_entry(mm, cd);
	if (*e && !isnan((*e)->t)) {
		*key = (*e)->t;
		return *key <= mm->best;
	}
	if (*e && (*e)->lo > mm->best)
		return 0; /* it needs lo or more */
	*key = minmem_lb(mm, cd);
	return *key <= mm->best;
}

/* Candidate i, of memory or lower bound key, against the least so far:
 * solved under a bound just above best, which gives its memory when that
 * is best or less; the first in the order of those that need the least
 * wins, as one visit under the least found so far would have found it. */
static void
minmem_try(struct minmem *mm, const struct cand *cd, struct time_entry *e,
	   long i)
{
	double mem = e && !isnan(e->t)
			     ? e->t
			     : minmem_solve(mm, cd, e,
					    nextafter(mm->best, INFINITY));

	if (mem < mm->best || (mem == mm->best && i < mm->at)) {
		mm->best = mem;
		mm->arg = *cd;
		mm->at = i;
	}
}

/* The second visit: the candidates that may need best or less, kept to
 * be tried least bound first (the best then falls soonest and bounds
 * the most), or tried at once when more than MINMEM_KEEP are. */
static void
minmem_visit(struct visit *vt, const struct cand *cd)
{
	struct minmem *mm = (struct minmem *)vt;
	long i = mm->i++;
	struct time_entry *e;
	double key;

	if (i == mm->at || !minmem_may(mm, cd, &e, &key))
		return;
	if (mm->over) {
		minmem_try(mm, cd, e, i);
		return;
	}
	if (mm->n == MINMEM_KEEP) {
		mm->over = 1;
		return;
	}
	xgrow((void **)&mm->c, &mm->alloc, mm->n + 1, sizeof(*mm->c));
	mm->c[mm->n].cd = *cd;
	mm->c[mm->n].key = key;
	mm->c[mm->n].i = i;
	mm->n++;
}

static int
minmem_cmp(const void *a, const void *b)
{
	const struct minmem_cand *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* The least peak stage memory of the candidates enumerate() visits with
 * so and o (o's cap, if any, left out), whose in *arg; INFINITY when
 * none has a partition. */
static double
minmem_of(struct ctx *x, const struct search_chain *sc, int nsc,
	  const struct cluster *cl, const struct cost_opts *o,
	  const struct search_opts *so, int N, struct cand *arg)
{
	struct minmem mm;
	struct time_entry *e;
	long dummy, j;

	memset(&mm, 0, sizeof(mm));
	mm.x = x;
	mm.o = *o;
	mm.o.cap_bytes = INFINITY;
	mm.best = INFINITY;
	mm.at = -1;
	/* plain: one visit, each tried as it comes under the least so far
	 * (tests: the answer does not depend on it) */
	mm.over = so->plain;
	mm.vt.fn = minmem_peek;
	if (!so->plain)
		enumerate(sc, nsc, cl, &mm.o, so, N, &mm.vt, &dummy, NULL);
	if (mm.at >= 0) {
		e = minmem_entry(&mm, &mm.arg);
		mm.best = e && !isnan(e->t)
				  ? e->t
				  : minmem_solve(&mm, &mm.arg, e, INFINITY);
		if (!isfinite(mm.best))
			mm.at = -1;
	}
	mm.i = 0;
	mm.vt.fn = minmem_visit;
	enumerate(sc, nsc, cl, &mm.o, so, N, &mm.vt, &dummy, NULL);
	if (mm.over) {
		/* too many to keep: once more, each tried as it comes */
		mm.i = 0;
		mm.n = 0;
		enumerate(sc, nsc, cl, &mm.o, so, N, &mm.vt, &dummy, NULL);
	}
	if (mm.n > 1) /* mm.c NULL when none was kept */
		qsort(mm.c, (size_t)mm.n, sizeof(*mm.c), minmem_cmp);
	/* in order of their bounds: none after one above best needs
	 * best or less */
	for (j = 0; j < mm.n && mm.c[j].key <= mm.best; j++) {
		e = minmem_entry(&mm, &mm.c[j].cd);
		if (!(e && isnan(e->t) && e->lo > mm.best))
			minmem_try(&mm, &mm.c[j].cd, e, mm.c[j].i);
	}
	free(mm.c);
	*arg = mm.arg;
	return mm.best;
}

static double
stages_peak(const struct plan_stage *st, int d)
{
	double m = 0;
	int s;

	for (s = 0; s < d; s++)
		if (st[s].mem_bytes > m)
			m = (double)st[s].mem_bytes;
	return m;
}

static char *fmt(const char *f, ...) PD2BW_PRINTF(1, 2);

static char *
fmt(const char *f, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, sizeof(buf), f, ap);
	va_end(ap);
	return xstrdup(buf);
}

/* Explain which constraint set the chosen configuration's speed. */
static void
explain_binding(struct ctx *x, const struct search_opts *so,
		const struct cand *v, long n, struct plan *p)
{
	const struct plan_stage *slow = NULL;
	double tmb = -1;
	long i, tried = 0;
	int s, place;

	/* Of the faster configurations that do not fit, name the one that
	 * needs the least memory: the nearest within reach, and how much
	 * more memory per GPU it takes. */
	{
		double best_mem = INFINITY, best_t = 0, fastest = INFINITY;
		long best = -1;
		/* part_mem_lb() bounds the peak of every partition: not
		 * under --recompute-every, whose stages recompute other
		 * layers than the candidate's own choice says */
		int lbs = !so->plain && !cost_every_on(x->o);

		for (i = 0; i < n && tried < 256 &&
			    v[i].lb < p->iter_ms * 0.99;
		     i++) {
			struct plan_terms terms;
			struct cost_cfg g;
			double t, mem, b = p->iter_ms * 0.99;

			tried++;
			/* One that needs best_mem or more whatever its
			 * partition names nothing new unless it is faster
			 * than the fastest so far: solved under that bound.
			 * Asked where its lower bound is at that bound
			 * already (resnext101: 16 of 52, each turned away
			 * at once), not of every one (GPT-3's 256). */
			if (lbs && fastest < b && v[i].lb >= fastest) {
				cfg_of(x, &v[i], place_lo(so), &g);
				if (part_mem_lb(x->c, &x->nocap, &g) >=
				    best_mem)
					b = fastest;
			}
			x->keep_best = 1;
			t = solve_best(x, &x->nocap, so, &v[i], b, &place);
			x->keep_best = 0;
			if (!isfinite(t))
				continue;
			if (t < fastest)
				fastest = t;
			/* the stages of the unbounded solve: kept by
			 * solve_best() (not solved again), or solved */
			if (x->kept) {
				mem = stages_peak(x->best_st, v[i].d);
			} else {
				solve(x, &x->nocap, &v[i], place, INFINITY,
				      &terms);
				mem = stages_peak(x->st, v[i].d);
			}
			if (mem < best_mem) {
				best_mem = mem;
				best_t = t;
				best = i;
			}
		}
		if (best >= 0) {
			const struct cand *b = &v[best];

			p->bind = PLAN_BIND_MEMORY;
			p->bind_reason = fmt(
				"faster configurations need more memory per "
				"GPU: the nearest, %s w=%d d=%d t=%d b=%d "
				"recompute=%s, would take %.1f ms (%.0f%% "
				"faster; the fastest %.0f%%) with %.2f GiB, "
				"%.2f GiB over the %.2f GiB limit (GPUs with "
				"more memory, or a smaller --reserve)",
				plan_sched_names[b->sched], b->w, b->d,
				x->sc[b->ti].t, x->c->mb[b->k],
				cost_every_on(x->o) && b->r == PROF_RC_FULL
					? "every (--recompute-every)"
					: prof_rc_names[b->r],
				best_t,
				100 * (1 - best_t / p->iter_ms),
				100 * (1 - fastest / p->iter_ms),
				best_mem / GIB,
				(best_mem - x->o->cap_bytes) / GIB,
				x->o->cap_bytes / GIB);
			return;
		}
	}
	for (s = 0; s < p->d; s++) {
		struct cost_cfg g;
		double t;

		memset(&g, 0, sizeof(g));
		g.sched = p->sched;
		g.w = p->w;
		g.d = p->d;
		g.m = p->m;
		g.v = p->v;
		t = cost_stage_ms(&p->stages[s], &g);

		if (t > tmb) {
			tmb = t;
			slow = &p->stages[s];
		}
	}
	if ((p->sched == PLAN_2BW &&
	     slow->allreduce_ms / p->m > slow->compute_ms + slow->recompute_ms +
						 slow->tp_ms + slow->p2p_ms) ||
	    ((p->sched == PLAN_FLUSH || p->sched == PLAN_GPIPE) &&
	     p->terms.allreduce_ms > 0.2 * p->iter_ms)) {
		p->bind = PLAN_BIND_ALLREDUCE;
		p->bind_reason = fmt(
			p->sched == PLAN_2BW
				? "stage %d's gradient all-reduce (%.1f ms per "
				  "update at %.1f GB/s) exceeds its %d "
				  "microbatches of work"
				: "stage %d's gradient all-reduce (%.1f ms per "
				  "update at %.1f GB/s) follows the flush of %d "
				  "microbatches, a fifth of the iteration or "
				  "more",
			(int)(slow - p->stages), slow->allreduce_ms,
			slow->ring_gb_s, p->m);
	} else if (slow->host_ms >
		   0.25 * (slow->compute_ms + slow->recompute_ms)) {
		/* eager kernels shorter than the host needs to issue them,
		 * MoE layers most (they synchronise host and GPU) */
		p->bind = PLAN_BIND_HOST;
		p->bind_reason = fmt(
			"stage %d waits %.2f ms per microbatch for the host to "
			"issue its kernels, beside %.2f ms of compute: CUDA "
			"graphs (the runtime's cuda-graphs) or a larger "
			"microbatch take it off",
			(int)(slow - p->stages), slow->host_ms,
			slow->compute_ms + slow->recompute_ms);
	} else if (slow->p2p_ms + slow->tp_ms >
		   slow->compute_ms + slow->recompute_ms) {
		p->bind = PLAN_BIND_P2P;
		p->bind_reason = fmt(
			"stage %d spends %.2f ms per microbatch on transfers "
			"(%.2f ms tensor-parallel), more than its %.2f ms of "
			"compute",
			(int)(slow - p->stages), slow->p2p_ms + slow->tp_ms,
			slow->tp_ms,
			slow->compute_ms + slow->recompute_ms);
	} else {
		p->bind = PLAN_BIND_COMPUTE;
		p->bind_reason = fmt(
			"stage %d computes %.2f ms per microbatch (layers "
			"%d-%d); transfers add %.2f ms",
			(int)(slow - p->stages),
			slow->compute_ms + slow->recompute_ms, slow->first,
			slow->last, slow->p2p_ms + slow->tp_ms);
	}
}

/* Fill p's configuration, stages, ranks and prediction from cd (sim_ms:
 * the simulated time of its stages when known, else NAN). */
static void
fill_plan(struct ctx *x, const struct search_opts *so, const struct cand *cd,
	  int place, double sim_ms, struct plan *p)
{
	struct plan_terms terms;
	double iter, other = INFINITY, flops = 0;
	int s, j, gpn = x->cl->gpus_per_node, n;

	if (place_hi(so, cd) > place_lo(so) && !so->brief) {
		other = solve(x, x->o, cd, 1 - place, INFINITY, &terms);
	}
	iter = solve(x, x->o, cd, place, INFINITY, &terms);
	if (!isfinite(iter)) /* evaluate mode over the cap */
		iter = solve(x, &x->nocap, cd, place, INFINITY, &terms);
	p->layer_rc = xcalloc(x->c->L, sizeof(int));
	if (cd->lp) {
		apply_lp(x, cd, place, &terms);
		memcpy(p->layer_rc, x->rc, x->c->L * sizeof(int));
		p->lp_status = xstrdup(lp_status_names[x->lp_status]);
	} else if (cost_every_on(x->o) && cd->r == PROF_RC_FULL) {
		/* the blocks solve() priced (cost_every_rc()) */
		memcpy(p->layer_rc, x->rc, x->c->L * sizeof(int));
		p->lp_status = xstrdup("not run");
	} else {
		for (j = 0; j < x->c->L; j++)
			p->layer_rc[j] = cd->r;
		p->lp_status = xstrdup(x->so->lp_k > 0 && cd->r != PROF_RC_NONE
					       ? "no gain over uniform"
					       : "not run");
	}
	/* One number everywhere: the simulation's.  A brief plan shows no
	 * terms: the time the re-scoring simulated for these very stages
	 * (sim_ms, NAN when there is none) serves. */
	if (so->brief && !isnan(sim_ms))
		iter = sim_ms;
	else
		iter = simulate_stages(x, cd, place,
				       so->brief ? NULL : &terms);
	{
		char rt[256];

		runtime_format(cost_runtime(x->o, cd->sched, cd->d), rt,
			       sizeof(rt));
		p->runtime = xstrdup(rt);
	}
	p->sched = cd->sched;
	p->w = cd->w;
	p->d = cd->d;
	p->b = x->c->mb[cd->k];
	p->m = cd->m;
	p->global_batch = (int64_t)p->w * p->b * p->m;
	p->recompute = cd->lp || (cost_every_on(x->o) &&
				  cd->r == PROF_RC_FULL)
			       ? overall_rc(x, x->c->L)
			       : cd->r;
	p->t = x->sc[cd->ti].t;
	p->sp = x->sc[cd->ti].sp;
	p->c = x->sc[cd->ti].cp > 1 ? x->sc[cd->ti].cp : 1;
	p->e = x->sc[cd->ti].ep > 1 ? x->sc[cd->ti].ep : 1;
	p->etp = x->sc[cd->ti].etp > 0 ? x->sc[cd->ti].etp : p->t;
	p->v = cd->v;
	p->zero = cd->zero;
	p->shard = cd->shard;
	p->offload = cd->offload;
	p->place = place;
	p->iter_ms = iter;
	p->samples_s = p->global_batch / (iter / 1e3);
	p->terms = terms;
	p->bubble_frac = iter > 0 ? terms.bubble_ms / iter : 0;
	p->nstages = p->d;
	p->stages = xcalloc(p->d, sizeof(*p->stages));
	memcpy(p->stages, x->st, p->d * sizeof(*p->stages));
	p->peak_mem_bytes = (int64_t)stages_peak(p->stages, p->d);
	for (j = 0; j < x->c->L; j++)
		flops += CHAIN_AT(x->c, x->c->flops, cd->k, j);
	/* Model FLOPs: forward + backward = 3 x forward, per sample; the
	 * chain's FLOPs are one GPU's shard, so t cancels. */
	p->tflops_per_gpu = 3 * flops / p->b * p->global_batch /
			    (iter / 1e3) / (p->w * p->d) / 1e12;
	n = p->w * p->d * p->t * p->c;
	/* nodes as the links were priced: spread evenly when the job does
	 * not fill them (place_segment) */
	gpn = place_segment(x->cl, n);
	plan_ranks_fill(p, gpn);
	p->nlayers = x->c->L;
	p->layer_names = xcalloc(x->c->L, sizeof(char *));
	for (j = 0; j < x->c->L; j++)
		p->layer_names[j] = xstrdup(x->c->names[j]);
	if (!so->brief) {
		double ar = 0, pp = 0;
		struct cost_cfg gc;
		struct cost_bytes by;

		cfg_of(x, cd, place, &gc);
		cost_bytes(x->o, &gc, &by);
		for (s = 0; s < p->d; s++) {
			double g2 = 2.0 * (p->w - 1) / p->w *
				    (double)p->stages[s].params * by.grad;

			if (g2 > ar)
				ar = g2;
			if (s < p->d - 1)
				pp += 2 * CHAIN_AT(x->c, x->c->out, cd->k,
						   p->stages[s].last) *
				      p->m;
		}
		if (p->w == 1 || p->d == 1)
			p->place_reason = fmt(
				"%s: with %s there is only one way to "
				"place ranks",
				plan_place_names[place],
				p->w == 1 ? "one replica" : "one stage");
		else if (so->fix_place >= 0)
			p->place_reason =
				fmt("%s: fixed by the user",
				    plan_place_names[place]);
		else
			p->place_reason = fmt(
				"%s: per GPU the all-reduce moves %.1f MB per "
				"update and the pipeline %.1f MB per "
				"iteration; %.1f ms vs %.1f ms with %s",
				plan_place_names[place], ar / 1e6, pp / 1e6,
				iter, other, plan_place_names[1 - place]);
	}
}

static void
ctx_init(struct ctx *x, const struct search_chain *sc, int nsc,
	 const struct cluster *cl, const struct cost_opts *o,
	 const struct search_opts *so, struct search_stats *st)
{
	int L = sc[0].c->L, N = cl->nodes * cl->gpus_per_node;
	/* the most stages a candidate has: no more than the layers, nor
	 * than the GPUs (resnext101's 347 layers on 16 GPUs: 50 pages
	 * fewer to fault in, 13 us each in a virtual machine) */
	int D = N > 0 && N < L ? N : L;

	memset(x, 0, sizeof(*x));
	x->sc = sc;
	x->nsc = nsc;
	x->c = sc[0].c;
	x->cl = cl;
	x->o = o;
	x->nocap = *o;
	x->nocap.cap_bytes = INFINITY;
	place_links_init(&x->links, cl, D);
	/* every candidate's all-to-all is its runtime's: one per search */
	place_links_route(&x->links, &x->c->route, cost_ep_flex(o, NULL));
	x->lk = &x->own;
	x->st = xcalloc(D, sizeof(*x->st));
	x->best_st = xcalloc(D, sizeof(*x->best_st));
	x->lsave = xcalloc((size_t)PLACE_LINK_ARRAYS * D, sizeof(double));
	x->first = xcalloc(L, sizeof(int));
	x->rc = xcalloc(L, sizeof(int));
	x->so = so;
	x->stats = st;
}

static void
ctx_release(struct ctx *x)
{
	free(x->st);
	free(x->best_st);
	free(x->lsave);
	free(x->first);
	free(x->rc);
	place_links_release(&x->links);
	link_cache_release(&x->own);
	part_ws_release(&x->ws);
	part_table_release(&x->parts);
	sim_mem_release(&x->sim);
}

/* Give x thread i's tables of memo m (its links: those of x's cluster). */
static void
ctx_memo(struct ctx *x, struct search_memo *m, int i)
{
	x->fit = &m->t[i];
	x->times = &m->s[i];
	x->nfit = &m->nt[i];
	x->ntimes = &m->ns[i];
	if (m->links[i].cl != x->cl) {
		link_cache_release(&m->links[i]);
		m->links[i].cl = x->cl;
	}
	x->lk = &m->links[i];
	x->lk_held = 0;
}

/* Take candidates of the round and solve them, until none is left. */
static void
crew_work(struct crew *cw, struct ctx *x, int alone)
{
	for (;;) {
		long i;

		/* alone, no lock (crew_round()) */
		if (!alone)
			pthread_mutex_lock(&cw->mu);
		i = cw->next < cw->n ? cw->next++ : -1;
		if (!alone)
			pthread_mutex_unlock(&cw->mu);
		if (i < 0)
			return;
		cw->t[i] = solve_best(x, x->o, x->so, &cw->v[i], cw->bound,
				      &cw->place[i]);
	}
}

static void *
crew_main(void *arg)
{
	struct ctx *x = arg;
	struct crew *cw = x->crew;
	int seen = 0;

	pthread_mutex_lock(&cw->mu);
	for (;;) {
		while (cw->round == seen && !cw->quit)
			pthread_cond_wait(&cw->go, &cw->mu);
		if (cw->quit)
			break;
		seen = cw->round;
		pthread_mutex_unlock(&cw->mu);
		crew_work(cw, x, 0);
		pthread_mutex_lock(&cw->mu);
		if (--cw->busy == 0)
			pthread_cond_signal(&cw->idle);
	}
	pthread_mutex_unlock(&cw->mu);
	return NULL;
}

static void crew_turn_on(struct crew *cw);

/*
 * A crew of nthr threads, the caller's (context x) included; the other
 * threads start when the rounds need them (crew_round()), or at once
 * under threads_eager.
 */
static void
crew_start(struct crew *cw, struct ctx *x, int nthr)
{
	memset(cw, 0, sizeof(*cw));
	if (nthr < 1)
		nthr = 1;
	pthread_mutex_init(&cw->mu, NULL);
	pthread_cond_init(&cw->go, NULL);
	pthread_cond_init(&cw->idle, NULL);
	cw->x = xcalloc(nthr, sizeof(*cw->x));
	cw->tid = xcalloc(nthr, sizeof(*cw->tid));
	cw->t = xcalloc((size_t)nthr * CREW_ROUND, sizeof(*cw->t));
	cw->place = xcalloc((size_t)nthr * CREW_ROUND, sizeof(*cw->place));
	cw->self = x;
	cw->nthr = 1;
	cw->want = nthr;
	if (x->so->threads_eager)
		crew_turn_on(cw);
}

/*
 * Start the want - 1 threads beside the caller, each with its own
 * context, alike.  A thread that cannot be started is done without:
 * fewer threads give the same result.
 */
static void
crew_spawn(struct crew *cw)
{
	struct ctx *x = cw->self;

	while (cw->nthr < cw->want) {
		struct ctx *y = &cw->x[cw->nthr];

		ctx_init(y, x->sc, x->nsc, x->cl, x->o, x->so, x->stats);
		y->crew = cw;
		if (x->so->memo)
			ctx_memo(y, x->so->memo, cw->nthr);
		if (pthread_create(&cw->tid[cw->nthr - 1], NULL, crew_main,
				   y)) {
			ctx_release(y);
			cw->want = cw->nthr;
			break;
		}
		cw->nthr++;
	}
}

/* Rounds go to the threads, started now if they were not. */
static void
crew_turn_on(struct crew *cw)
{
	crew_spawn(cw);
	cw->on = cw->nthr > 1;
}

/* Candidates a round takes: one at a time alone (the bound always the
 * newest), CREW_ROUND a thread with the threads on. */
static long
crew_size(const struct crew *cw)
{
	return cw->on ? (long)cw->nthr * CREW_ROUND : 1;
}

static double
wall_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* A round of n candidates over the started threads and the caller. */
static void
crew_share(struct crew *cw, const struct cand *v, long n, double bound)
{
	pthread_mutex_lock(&cw->mu);
	cw->v = v;
	cw->n = n;
	cw->next = 0;
	cw->bound = bound;
	cw->busy = cw->nthr - 1;
	cw->round++;
	pthread_cond_broadcast(&cw->go);
	pthread_mutex_unlock(&cw->mu);
	crew_work(cw, cw->self, 0);
	pthread_mutex_lock(&cw->mu);
	while (cw->busy > 0)
		pthread_cond_wait(&cw->idle, &cw->mu);
	pthread_mutex_unlock(&cw->mu);
}

/* Solve v[0..n) against bound on every thread: cw->t[], cw->place[]. */
static void
crew_round(struct crew *cw, const struct cand *v, long n, double bound)
{
	/* The caller alone (-j 1, the threads off: CREW_ON_US), or a
	 * round of one candidate, which no other thread could share,
	 * takes no lock and wakes no thread, here or in crew_work():
	 * capacity's sweep runs 260,000 rounds, most of one candidate,
	 * whose locks cost 70 M instructions.  The threads wait for a
	 * round number that does not move. */
	int alone = !cw->on || n == 1;
	double t0 = cw->want > 1 ? wall_us() : 0, us;

	if (alone) {
		cw->v = v;
		cw->n = n;
		cw->next = 0;
		cw->bound = bound;
		crew_work(cw, cw->self, 1);
	} else {
		crew_share(cw, v, n, bound);
	}
	if (cw->want < 2)
		return;
	/* a candidate's solve as one thread would take it */
	us = (wall_us() - t0) / (double)n * (alone ? 1 : cw->nthr);
	cw->avg_us = cw->avg_us > 0 ? 0.75 * cw->avg_us + 0.25 * us : us;
	if (!cw->on && cw->avg_us >= CREW_ON_US) {
		crew_turn_on(cw);
	} else if (cw->on && cw->avg_us < CREW_ON_US / 4 &&
		   !cw->self->so->threads_eager) {
		cw->on = 0;
	}
}

static void
crew_stop(struct crew *cw)
{
	int i;

	if (!cw->x)
		return;
	pthread_mutex_lock(&cw->mu);
	cw->quit = 1;
	pthread_cond_broadcast(&cw->go);
	pthread_mutex_unlock(&cw->mu);
	for (i = 1; i < cw->nthr; i++) {
		pthread_join(cw->tid[i - 1], NULL);
		ctx_release(&cw->x[i]);
	}
	pthread_mutex_destroy(&cw->mu);
	pthread_cond_destroy(&cw->go);
	pthread_cond_destroy(&cw->idle);
	free(cw->x);
	free(cw->tid);
	free(cw->t);
	free(cw->place);
	memset(cw, 0, sizeof(*cw));
}

int
search_run(const struct chain *c, const struct cluster *cl,
	   const struct cost_opts *o, const struct search_opts *so,
	   struct plan *p, struct search_stats *st)
{
	struct search_chain sc;

	sc.c = c;
	sc.t = c->tp;
	sc.sp = 0;
	sc.cp = c->cp;
	sc.ep = c->ep;
	sc.etp = c->etp;
	return search_run_tp(&sc, 1, cl, o, so, p, st);
}

/* search_from()'s answer when fewer than k came under its start bound */
#define SEARCH_AGAIN (-2)

/*
 * The candidates that recompute, whose per-layer refinement could beat
 * bound, by lower bounds (the visit's lp_only) that leave recomputation
 * out: they hold whatever GLPK chooses.
 */
struct lp_visit {
	struct visit vt;
	double bound;
	struct cand *c;
	long n, cap;
	/* taken from the memo's list from (NULL: enumerated): c[i] is its
	 * at[i]-th candidate */
	struct cand_list *from;
	long *at;
};

static int
lp_visit_group(struct visit *vt, double lo, double hi, long n)
{
	(void)hi;
	(void)n;
	return lo < ((struct lp_visit *)vt)->bound;
}

static void
lp_visit_fn(struct visit *vt, const struct cand *cd)
{
	struct lp_visit *lv = (struct lp_visit *)vt;

	if (cd->r == PROF_RC_NONE || !(cd->lb < lv->bound))
		return;
	if (lv->n == lv->cap) {
		lv->cap = lv->cap ? 2 * lv->cap : 64;
		lv->c = xrealloc(lv->c, (size_t)lv->cap * sizeof(*lv->c));
	}
	lv->c[lv->n++] = *cd;
}

/*
 * The candidates of N GPUs or fewer that lv's visit (lp_visit_fn() for
 * KIND_LP, exact_visit_fn()) keeps under lv->bound, into lv->c in
 * cand_cmp order: from the memo's list of that kind when it has one,
 * else enumerated and sorted.
 */
static void
lp_collect(struct lp_visit *lv, const struct search_chain *sc, int nsc,
	   const struct cluster *cl, const struct cost_opts *o,
	   const struct search_opts *so, int N, enum cand_kind kind)
{
	const struct cand_list *l = cand_list_of(sc, nsc, cl, o, so, N, kind);
	long i, dummy;

	if (!l) {
		enumerate(sc, nsc, cl, o, so, N, &lv->vt, &dummy, NULL);
		cand_sort_long(lv->c, lv->n, so->plain);
		return;
	}
	/* (the memo's own, which cand_list_of() hands out read-only) */
	lv->from = &so->memo->lists[kind];
	/* room for every candidate of N GPUs or fewer at once (untouched
	 * but for those taken), not doubled a copy at a time */
	if (lv->cap < l->ncand[N]) {
		lv->cap = l->ncand[N];
		lv->c = xrealloc(lv->c, (size_t)lv->cap * sizeof(*lv->c));
	}
	free(lv->at);
	lv->at = xmalloc(((size_t)lv->cap + 1) * sizeof(*lv->at));
	for (i = 0; i < l->n; i++) {
		while (list_skips(l, i, N, lv->bound))
			i += LIST_BLOCK;
		if (i == l->n || !(l->c[i].lb < lv->bound))
			break;
		if (l->gpus[i] > N ||
		    (kind == KIND_LP && l->c[i].r == PROF_RC_NONE))
			continue;
		if (lv->n == lv->cap) {
			lv->cap = lv->cap ? 2 * lv->cap : 64;
			lv->c = xrealloc(lv->c,
					 (size_t)lv->cap * sizeof(*lv->c));
			lv->at =
			    xrealloc(lv->at, (size_t)lv->cap * sizeof(*lv->at));
		}
		lv->at[lv->n] = i;
		lv->c[lv->n++] = l->c[i];
	}
}

/*
 * apply_lp() of cd (lp set) under place, whose stages x->st hold, unless
 * it cannot come under bound: then INFINITY, and x->st and x->rc are
 * left part refined.  GLPK keeps the partition and only adds some
 * layers' recomputation (and what it repeats), so stages that recompute
 * nothing are no slower than GLPK's, and the iteration time grows with
 * each stage's time: with the stages not refined yet taken without
 * recomputation, the time so far is a lower bound.  The stages are
 * refined most memory first: they recompute the most, and their choice
 * is most often enough to stop.  Under activation offload recomputing
 * shortens the transfers: no bound then.  nst, ord: room for d stages
 * and indices.
 */
static double
apply_lp_under(struct ctx *x, const struct cand *cd, int place,
	       double bound, struct plan_stage *nst, int *ord,
	       struct plan_terms *terms)
{
	struct cand cn = *cd;
	struct cost_cfg g, gn;
	struct lp_opts lo;
	double t0, t = 0;
	int i, j, s, st_lp;

	if (cd->offload)
		return apply_lp(x, cd, place, terms);
	cn.r = PROF_RC_NONE;
	cn.lp = 0;
	cfg_of(x, &cn, place, &gn);
	links_for(x, place, gn.w, gn.d, gn.t, gn.c, gn.e, gn.etp);
	for (s = 0; s < cd->d; s++) {
		cost_stage(x->c, x->o, &gn, &x->links, s, x->st[s].first,
			   x->st[s].last, &nst[s]);
		/* most memory over the cap first, the stage that needs
		 * the most recomputation (ties: in stage order) */
		for (i = s; i > 0 && nst[ord[i - 1]].mem_bytes <
					     nst[s].mem_bytes;
		     i--)
			ord[i] = ord[i - 1];
		ord[i] = s;
	}
	if (!(cost_iteration(nst, &gn, terms) < bound))
		return INFINITY;
	cfg_of(x, cd, place, &g);
	lp_opts_of(x, &lo);
	x->lp_status = LP_OPTIMAL;
	t0 = now_ms();
	for (j = 0; j < cd->d && t < INFINITY; j++) {
		s = ord[j];
		st_lp = apply_lp_stage(x, &g, &lo, s);
		nst[s] = x->st[s];
		if ((st_lp != LP_OPTIMAL && st_lp != LP_FEASIBLE) ||
		    !(cost_iteration(nst, &g, terms) < bound))
			t = INFINITY;
	}
	x->stats->lp_ms += now_ms() - t0;
	return t < INFINITY ? cost_iteration(x->st, &g, terms) : INFINITY;
}

/*
 * The memo's entry of what refine_rest() found of cd under placement
 * place (a fresh one when it has none, or one of another grid), or NULL
 * without a memo.  Its pointer holds until the next call.
 */
static struct refine_mark *
refined_find(struct ctx *x, const struct cand *cd, int place)
{
	struct refine_table *rt;
	struct refine_entry *e;
	struct cand k = *cd;
	int fresh, seg;

	/* (the even split is another partition, as with the times) */
	if (!x->so->memo || x->so->uniform || cd->m <= 0)
		return NULL;
	rt = &x->so->memo->refined;
	if (rt->cl != x->cl) {
		TABLE_EMPTY(rt);
		rt->cl = x->cl;
	}
	/* its GPUs (w d t c), as cfg_of() would give them; the chain in
	 * x->c as cfg_of() leaves it */
	x->c = x->sc[cd->ti].c;
	seg = place_segment(x->cl, cand_gpus(x->sc, cd));
	k.lb = 0;
	k.lp = place;
	e = slot_find((void **)&rt->e, &rt->n, &rt->cap, sizeof(*e), 1024,
		      &k, &fresh);
	if (fresh || e->k.seg != seg) {
		e->k.seg = seg;
		e->k.t = NAN;
		e->k.lo = -INFINITY;
	}
	return &e->k;
}

/*
 * refined_find() of lv's i-th candidate cd: by its place in the memo's
 * list when lv was taken from one (the same findings, a list holding
 * each candidate once), else by key.  Its pointer holds until the next
 * call.
 */
static struct refine_mark *
refined_at(struct ctx *x, const struct lp_visit *lv, long i,
	   const struct cand *cd, int place)
{
	struct cand_list *l = lv->from;
	struct refine_mark *e;
	int seg;

	if (!l || x->so->uniform || cd->m <= 0 || place < 0 || place > 1)
		return refined_find(x, cd, place);
	if (!l->refs || l->rcl != x->cl) {
		free(l->refs);
		l->refs = xcalloc(2 * (size_t)l->n, sizeof(*l->refs));
		l->rcl = x->cl;
	}
	/* the chain in x->c as refined_find() leaves it */
	x->c = x->sc[cd->ti].c;
	e = &l->refs[2 * lv->at[i] + place];
	seg = place_segment(x->cl, l->gpus[lv->at[i]]);
	if (e->seg != seg) {
		e->seg = seg;
		e->t = NAN;
		e->lo = -INFINITY;
	}
	return e;
}

/* Whether entry e (or NULL: nothing known) says its candidate has no
 * refined time under bound. */
static int
refined_out(const struct refine_mark *e, double bound)
{
	if (!e)
		return 0;
	return isnan(e->t) ? bound <= e->lo : !(e->t < bound);
}

/* Keep in the memo that lv's i-th candidate cd under place refines to t
 * (INFINITY: to nothing under bound). */
static void
refined_keep(struct ctx *x, const struct lp_visit *lv, long i,
	     const struct cand *cd, int place, double t, double bound)
{
	struct refine_mark *e = refined_at(x, lv, i, cd, place);

	if (!e)
		return;
	if (isfinite(t))
		e->t = t;
	else if (bound > e->lo)
		e->lo = bound;
}

/*
 * The candidates (lp set: GLPK's refinement of them) and placements one
 * search simulated, or whose simulated time it knows cannot beat the
 * best: exact_rest() does not simulate them again.
 */
struct sims {
	struct cand *c;
	int *place;
	long n, cap;
};

static void
sims_add(struct sims *sm, const struct cand *cd, int place)
{
	if (sm->n == sm->cap) {
		sm->cap = sm->cap ? 2 * sm->cap : 32;
		sm->c = xrealloc(sm->c, (size_t)sm->cap * sizeof(*sm->c));
		sm->place = xrealloc(sm->place,
				     (size_t)sm->cap * sizeof(*sm->place));
	}
	sm->c[sm->n] = *cd;
	sm->place[sm->n++] = place;
}

/* The placement cd was simulated under (the first: -1 when none) with
 * place < 0, else whether it was under place. */
static int
sims_has(const struct sims *sm, const struct cand *cd, int place)
{
	long i;

	for (i = 0; i < sm->n; i++)
		if ((place < 0 || sm->place[i] == place) &&
		    same_key(&sm->c[i], cd))
			return place < 0 ? sm->place[i] : 1;
	return place < 0 ? -1 : 0;
}

static void
sims_release(struct sims *sm)
{
	free(sm->c);
	free(sm->place);
	memset(sm, 0, sizeof(*sm));
}

/*
 * Keep cd under place, whose stages x->st hold and simulate to ts, among
 * the alternatives alts (with their candidates ac and simulated times
 * simt, *nalt of at most k): the slowest makes room when they are full.
 * mixed: its recomputation is what x->rc says (GLPK's, or
 * --recompute-every's), not cd->r alone.
 */
static void
keep_sim(struct ctx *x, struct plan_alt *alts, struct cand *ac,
	 double *simt, int *nalt, int k, const struct cand *cd, int place,
	 double ts, int mixed)
{
	int w, j, one = 0;

	if (*nalt < k) {
		w = (*nalt)++;
	} else {
		for (w = 0, j = 1; j < k; j++)
			if (alts[j].iter_ms > alts[w].iter_ms)
				w = j;
	}
	insert_alt(x, alts + w, ac + w, &one, 1, cd, place, ts);
	if (mixed)
		alts[w].recompute = overall_rc(x, x->c->L);
	alts[w].mem_bytes = (int64_t)stages_peak(x->st, cd->d);
	simt[w] = ts;
}

struct lb_memo {
	struct lb_table *lbs, own_lbs; /* the memo's, else own_lbs */
	/* exact_fits()'s verdicts: the memo's, else own's */
	struct lbfit_table *fits, own;
	/* exact_fits_rc()'s multipliers: the memo's, else own_phis; and
	 * its lp_rc_row()'s per, L */
	struct rc_phis *phis, own_phis;
	int nsc;
	double *per;
	double *pre;   /* exact_fits_tp()'s prefix sums, L + 1 */
	/* by chain: the first chain whose compute's prefix sums (pre_t)
	 * are the same to the bit, all that exact_fits() reads of it (with
	 * and without sequence parallelism: twins), whose verdicts it
	 * shares */
	int *twin;
	/* by chain: whether its pre_t never goes down (no NaN), each
	 * microbatch size's and recomputation's: exact_fits() may then
	 * gallop (cost_simulate_lb_fits_up()) */
	int *up;
	int plain; /* so->plain: neither */
	struct lb_entry *last; /* exact_lb()'s */
};

/* exact_rest()'s bounds (below), which refine_rest() asks too */
static void lb_memo_init(struct lb_memo *mm, const struct search_opts *so,
			 const struct search_chain *sc, int nsc, int L);
static void lb_memo_release(struct lb_memo *mm);
static int exact_fits_rc(struct ctx *x, struct lb_memo *mm,
			 const struct cand *cd, double bound);

/*
 * GLPK's refinement of every candidate that recomputes and could beat
 * the best alternative (simulated), not only of the lp_k best the
 * closed form kept: a configuration that fits only by recomputing, whose
 * uniform recomputation ranks it out of the kept alternatives, may win
 * once GLPK recomputes only some layers.  Refined stages are those of
 * the configuration's partition with some layers' recomputation added,
 * so no faster than its best partition without recomputation and
 * without the memory cap (an uncapped r = none solve), itself no faster
 * than cand_lb() of r = none: candidates are taken by that bound, the
 * solve is asked before GLPK, GLPK stops as apply_lp_under() says.
 * Those bounds are closed-form times, the ranking's are simulated: the
 * simulation overlaps the transfers between stages with compute and can
 * run well below the closed form of unequal stages, so they only choose
 * the refinements most likely to win, early, to lower the time
 * exact_rest() then holds every other candidate to (which makes up for
 * what they leave out).  sims: what the loop over the alternatives
 * refined already; those this refines join it.  A refined candidate whose simulated
 * time beats the best joins alts (the slowest making room when they are
 * full, simt its time) and is then the time to beat.  With a memo, what
 * a search on the same links found of a candidate and placement stands
 * (refined_find()): its refined time, which the bound does not change,
 * or that it has none under a bound (the uncapped solve's verdict
 * included); the sizes of capacity ask mostly the same ones.
 */
static void
refine_rest(struct ctx *x, const struct search_chain *sc, int nsc,
	    const struct cluster *cl, const struct cost_opts *o,
	    const struct search_opts *so, int N, struct plan_alt *alts,
	    struct cand *ac, double *simt, int *nalt, int k,
	    struct sims *sims)
{
	struct lp_visit lv;
	struct lb_memo mm;
	struct cand ln = {0}; /* the last uncapped r = none solve's */
	double tn = INFINITY; /* its time */
	struct plan_terms terms;
	struct plan_stage *nst;
	long i;
	int j, *ord, L = sc[0].c->L;

	if (so->lp_k <= 0 || cost_every_on(o) || *nalt == 0)
		return;
	memset(&lv, 0, sizeof(lv));
	lv.vt.fn = lp_visit_fn;
	lv.vt.group = lp_visit_group;
	lv.vt.mono = 1;
	lv.vt.lp_only = 1;
	lv.bound = INFINITY;
	for (j = 0; j < *nalt; j++)
		if (alts[j].iter_ms < lv.bound)
			lv.bound = alts[j].iter_ms;
	lp_collect(&lv, sc, nsc, cl, o, so, N, KIND_LP);
	x->stats->taken += lv.n;
	nst = xcalloc(L, sizeof(*nst));
	ord = xcalloc(L, sizeof(*ord));
	lb_memo_init(&mm, so, sc, nsc, L);
	for (i = 0; i < lv.n && lv.c[i].lb < lv.bound; i++) {
		struct cand cd = lv.c[i], cn = cd;
		int pl, place, p0 = place_lo(so), p1 = place_hi(so, &cd);
		int out[2] = {0, 0}, left = 0; /* by pl - p0: p1 <= p0 + 1 */

		for (pl = p0; pl <= p1; pl++) {
			struct cand cr = cd;

			cr.lp = 1;
			out[pl - p0] =
			    sims_has(sims, &cr, pl) ||
			    refined_out(refined_at(x, &lv, i, &cd, pl),
					lv.bound);
			left += !out[pl - p0];
		}
		if (!left)
			continue;
		/* no partition's floor with what GLPK's refinement must
		 * recompute comes under the bound: under 2bw its closed
		 * form, m times its slowest stage, is no lower */
		if (cd.sched == PLAN_2BW &&
		    !exact_fits_rc(x, &mm, &cd, lv.bound)) {
			for (pl = p0; pl <= p1; pl++)
				if (!out[pl - p0])
					refined_keep(x, &lv, i, &cd, pl,
						     INFINITY, lv.bound);
			continue;
		}
		cn.r = PROF_RC_NONE;
		cn.lb = 0;
		/* selective and full share it (and their lower bound:
		 * next to each other in the order) */
		if (!cd.offload && !(ln.m > 0 && same_key(&ln, &cn))) {
			ln = cn;
			x->any_under = !so->gate_all;
			tn = solve_best(x, &x->nocap, so, &cn, lv.bound,
					&place);
			x->any_under = 0;
		}
		x->stats->gated += cd.offload || tn < lv.bound;
		if (!cd.offload && !(tn < lv.bound)) {
			for (pl = p0; pl <= p1; pl++)
				if (!out[pl - p0])
					refined_keep(x, &lv, i, &cd, pl,
						     INFINITY, lv.bound);
			continue;
		}
		for (pl = p0; pl <= p1; pl++) {
			struct cand cr = cd;
			double t, ts;
			int fl;

			if (out[pl - p0])
				continue;
			cr.lp = 1;
			t = solve(x, o, &cr, pl, INFINITY, &terms);
			if (isfinite(t))
				t = apply_lp_under(x, &cr, pl, lv.bound, nst,
						   ord, &terms);
			refined_keep(x, &lv, i, &cd, pl, t, lv.bound);
			if (!(t < lv.bound))
				continue;
			ts = rescore(x, &cr, pl, NULL, &fl);
			sims_add(sims, &cr, pl);
			if (!(ts * (1 + 1e-9) < lv.bound))
				continue;
			keep_sim(x, alts, ac, simt, nalt, k, &cr, pl, ts, 1);
			lv.bound = ts;
		}
	}
	lb_memo_release(&mm);
	free(ord);
	free(nst);
	free(lv.c);
	free(lv.at);
}

/* exact_rest()'s visit: the candidates of bounds under bound. */
static void
exact_visit_fn(struct visit *vt, const struct cand *cd)
{
	struct lp_visit *lv = (struct lp_visit *)vt;

	if (!(cd->lb < lv->bound))
		return;
	if (lv->n == lv->cap) {
		lv->cap = lv->cap ? 2 * lv->cap : 64;
		lv->c = xrealloc(lv->c, (size_t)lv->cap * sizeof(*lv->c));
	}
	lv->c[lv->n++] = *cd;
}

/*
 * The memo's entry for a floor of cd under place on the links of x (cd
 * lp: the floor of its stages without recomputation, which no
 * refinement of them goes under; else of its stages), or NULL without a
 * memo.  Its pointer holds until the next call.
 */
static struct time_entry *
floor_find(struct ctx *x, const struct cand *cd, int place)
{
	struct time_entry *e;
	struct cost_cfg g;

	if (!x->so->memo || x->so->uniform || cd->m <= 0)
		return NULL;
	cfg_of(x, cd, place, &g);
	links_for(x, place, g.w, g.d, g.t, g.c, g.e, g.etp);
	e = time_find(&x->so->memo->floors, cd, place + 2 * cd->lp);
	time_links(&x->so->memo->floors, e, x, cd->d);
	return e;
}

/* That floor as an earlier search kept it, or NAN. */
static double
floor_known(struct ctx *x, const struct cand *cd, int place)
{
	struct time_entry *e = floor_find(x, cd, place);

	return e ? e->t : NAN;
}

static void
floor_keep(struct ctx *x, const struct cand *cd, int place, double fl)
{
	struct time_entry *e = floor_find(x, cd, place);

	if (e)
		e->t = fl;
}

/*
 * exact_floor_none()'s stages nst of cr's partition, x->st's, kept with
 * its floor on these links (not plain; not under activation offload,
 * where it makes none).
 */
static void
floor_keep_stages(struct ctx *x, const struct cand *cr, int place,
		  const struct plan_stage *nst)
{
	struct time_entry *e;

	if (x->so->plain || cr->offload || !(e = floor_find(x, cr, place)))
		return;
	if (!e->st)
		e->st = xmalloc((size_t)cr->d * sizeof(*e->st));
	memcpy(e->st, nst, (size_t)cr->d * sizeof(*e->st));
}

/*
 * Those stages into nst when kept, of the very partition x->st holds:
 * 1, else 0 (exact_floor_none() makes them).  The same links, cost
 * options and layers give the same stages.
 */
static int
floor_stages(struct ctx *x, const struct cand *cr, int place,
	     struct plan_stage *nst)
{
	struct time_entry *e;
	int s;

	if (x->so->plain || cr->offload || !(e = floor_find(x, cr, place)) ||
	    !e->st)
		return 0;
	for (s = 0; s < cr->d; s++)
		if (e->st[s].first != x->st[s].first ||
		    e->st[s].last != x->st[s].last)
			return 0;
	memcpy(nst, e->st, (size_t)cr->d * sizeof(*nst));
	return 1;
}

/* Simulate cd under place, whose stages x->st hold (their floor below
 * *best); keep it when it beats *best (*best its time then). */
static void
exact_try(struct ctx *x, const struct cand *cd, int place,
	  struct plan_alt *alts, struct cand *ac, double *simt, int *nalt,
	  int k, double *best, int mixed)
{
	double ts;
	int fl;

	x->stats->exact_sims++;
	ts = rescore(x, cd, place, NULL, &fl);
	if (!(ts * (1 + 1e-9) < *best))
		return;
	keep_sim(x, alts, ac, simt, nalt, k, cd, place, ts, mixed);
	*best = ts;
}

/*
 * The floor (cost_simulate_floor()) of cd's stages in x->st (under
 * place) taken without recomputation: GLPK's refinement keeps the
 * partition and adds some layers' recomputation, and the floor grows
 * with every stage's time, so no refinement's floor is lower.  Not under
 * activation offload, where recomputing shortens the transfers: 0.
 */
static double
exact_floor_none(struct ctx *x, const struct cand *cd, int place,
		 struct plan_stage *nst)
{
	struct cand cn = *cd;
	struct cost_cfg gn;
	int s;

	if (cd->offload)
		return 0;
	cn.r = PROF_RC_NONE;
	cn.lp = 0;
	cfg_of(x, &cn, place, &gn);
	links_for(x, place, gn.w, gn.d, gn.t, gn.c, gn.e, gn.etp);
	for (s = 0; s < cd->d; s++)
		cost_stage(x->c, x->o, &gn, &x->links, s, x->st[s].first,
			   x->st[s].last, &nst[s]);
	return cost_simulate_floor(nst, &gn);
}

/*
 * GLPK's refinement of cr (lp set) under place, whose stages x->st hold
 * (solve()), as apply_lp() refines it, unless its floor cannot come
 * under bound: then 0, and x->st left part refined.  As in
 * apply_lp_under(), a stage refined adds recomputation to the stage
 * without it, and the floor grows with each stage's time: with the
 * stages not refined yet taken without recomputation (nst, room for d,
 * holds them from exact_floor_none(); ord room for d indices), the
 * floor so far is one of the refinement's.
 * The stages most over the memory cap go first.  Under activation
 * offload, where recomputing shortens the transfers, every stage is
 * refined before the floor is asked.  1 when all are refined and their
 * floor is under bound.
 */
static int
exact_lp(struct ctx *x, const struct cand *cr, int place, double bound,
	 struct plan_stage *nst, int *ord)
{
	struct lp_opts lo;
	struct cost_cfg g;
	double t0 = now_ms();
	int i, j, s, st_lp, ok = 1;

	for (s = 0; s < cr->d; s++) {
		if (cr->offload)
			nst[s] = x->st[s];
		for (i = s; i > 0 && nst[ord[i - 1]].mem_bytes <
					     nst[s].mem_bytes;
		     i--)
			ord[i] = ord[i - 1];
		ord[i] = s;
	}
	cfg_of(x, cr, place, &g);
	links_for(x, place, g.w, g.d, g.t, g.c, g.e, g.etp);
	lp_opts_of(x, &lo);
	x->lp_status = LP_OPTIMAL;
	for (j = 0; j < cr->d && ok; j++) {
		s = ord[j];
		st_lp = apply_lp_stage(x, &g, &lo, s);
		nst[s] = x->st[s];
		ok = st_lp == LP_OPTIMAL || st_lp == LP_FEASIBLE;
		if (ok && (!cr->offload || j == cr->d - 1))
			ok = cost_simulate_floor(nst, &g) < bound;
	}
	x->stats->lp_ms += now_ms() - t0;
	return ok;
}

/*
 * What every partition of cd under any placement the search tries adds
 * to its stages' compute (cost_stages_extra_lb()), the reduction the
 * stage with the most parameters takes (cost_stages_sync_lb(); not with
 * 2bw, whose reductions overlap), and the tensor-parallel traffic's
 * coefficients (cost_tp_lb()), at least: the least of each over the
 * placements.
 */
static void
exact_links_lb(struct ctx *x, const struct cand *cd, double *extra,
	       double *sync, double *tpx, double *tpn)
{
	struct cost_cfg g;
	double px, pn;
	int pl;

	*extra = *sync = *tpx = *tpn = INFINITY;
	for (pl = place_lo(x->so); pl <= place_hi(x->so, cd); pl++) {
		cfg_of(x, cd, pl, &g);
		links_for(x, pl, g.w, g.d, g.t, g.c, g.e, g.etp);
		*extra = fmin(*extra,
			      cost_stages_extra_lb(x->c, &g, &x->links));
		*sync = cd->sched == PLAN_2BW
				? 0
				: fmin(*sync, cost_stages_sync_lb(
						      x->c, x->o, &g, &x->links));
		cost_tp_lb(&g, &x->links, &px, &pn);
		*tpx = fmin(*tpx, px);
		*tpn = fmin(*tpn, pn);
	}
	if (!isfinite(*extra))
		*extra = 0;
	if (!isfinite(*sync))
		*sync = 0;
	if (!isfinite(*tpx))
		*tpx = 0;
	if (!isfinite(*tpn))
		*tpn = 0;
}

/* Whether each of the n runs of len numbers from x never goes down (no
 * NaN: a comparison with it fails). */
static int
rises(const double *x, int n, int len)
{
	int i, j;

	for (i = 0; i < n; i++, x += len)
		for (j = 1; j < len; j++)
			if (!(x[j - 1] <= x[j]))
				return 0;
	return 1;
}

/* Whether so's memo knows the twins and rises of chains sc (then in
 * mm): not plain, the same chains (by id) as the last asked. */
static int
lb_memo_known(struct lb_memo *mm, const struct search_opts *so,
	      const struct search_chain *sc, int nsc)
{
	const struct search_memo *m = so->memo;
	int i;

	if (!m || so->plain || m->tu_n != nsc)
		return 0;
	for (i = 0; i < nsc; i++)
		if (!sc[i].c->id || sc[i].c->id != m->tu_id[i])
			return 0;
	memcpy(mm->twin, m->tu_twin, (size_t)nsc * sizeof(*mm->twin));
	memcpy(mm->up, m->tu_up, (size_t)nsc * sizeof(*mm->up));
	return 1;
}

/* Keep mm's twins and rises of chains sc in so's memo (not plain). */
static void
lb_memo_keep(const struct lb_memo *mm, const struct search_opts *so,
	     const struct search_chain *sc, int nsc)
{
	struct search_memo *m = so->memo;
	int i;

	if (!m || so->plain)
		return;
	m->tu_n = 0;
	for (i = 0; i < nsc; i++)
		if (!sc[i].c->id)
			return;
	m->tu_id = xrealloc(m->tu_id, (size_t)nsc * sizeof(*m->tu_id));
	m->tu_twin = xrealloc(m->tu_twin, (size_t)nsc * sizeof(*m->tu_twin));
	m->tu_up = xrealloc(m->tu_up, (size_t)nsc * sizeof(*m->tu_up));
	for (i = 0; i < nsc; i++)
		m->tu_id[i] = sc[i].c->id;
	memcpy(m->tu_twin, mm->twin, (size_t)nsc * sizeof(*mm->twin));
	memcpy(m->tu_up, mm->up, (size_t)nsc * sizeof(*mm->up));
	m->tu_n = nsc;
}

/* mm for the nsc chains sc of L layers under so (its verdicts in so's
 * memo when it has one). */
static void
lb_memo_init(struct lb_memo *mm, const struct search_opts *so,
	     const struct search_chain *sc, int nsc, int L)
{
	int i, j;

	memset(mm, 0, sizeof(*mm));
	mm->twin = xcalloc((size_t)nsc, sizeof(*mm->twin));
	mm->up = xcalloc((size_t)nsc, sizeof(*mm->up));
	mm->plain = so->plain;
	if (lb_memo_known(mm, so, sc, nsc))
		goto known;
	for (i = 0; i < nsc; i++) {
		const struct chain *a = sc[i].c;

		for (j = 0; j < i && !so->plain; j++) {
			const struct chain *b = sc[j].c;

			if (mm->twin[j] == j && a->L == b->L &&
			    a->nmb == b->nmb &&
			    !memcmp(a->pre_t, b->pre_t,
				    (size_t)a->nmb * PROF_RC_N *
					    (size_t)(a->L + 1) *
					    sizeof(*a->pre_t)))
				break;
		}
		mm->twin[i] = so->plain ? i : j;
	}
	for (i = 0; i < nsc && !so->plain; i++)
		mm->up[i] = rises(sc[i].c->pre_t, sc[i].c->nmb * PROF_RC_N,
				  sc[i].c->L + 1);
	lb_memo_keep(mm, so, sc, nsc);
known:
	mm->pre = xcalloc((size_t)L + 1, sizeof(*mm->pre));
	mm->fits = so->memo ? &so->memo->lbfits : &mm->own;
	if (so->memo && !so->memo->lbs)
		so->memo->lbs = xcalloc(1, sizeof(*so->memo->lbs));
	mm->lbs = so->memo ? so->memo->lbs : &mm->own_lbs;
	mm->phis = so->memo ? &so->memo->phis : &mm->own_phis;
	mm->nsc = nsc;
	mm->per = xcalloc((size_t)L, sizeof(*mm->per));
}

static void
lb_memo_release(struct lb_memo *mm)
{
	rc_phis_release(&mm->own_phis);
	free(mm->own_lbs.e);
	free(mm->own.e);
	free(mm->pre);
	free(mm->per);
	free(mm->twin);
	free(mm->up);
}

/* The entry of cd on x's cluster (*fresh 1: new, its figures for the
 * caller). */
static struct lb_entry *
lb_find(struct ctx *x, struct lb_memo *mm, const struct cand *cd,
	int *fresh)
{
	struct lb_table *t = mm->lbs;
	struct lb_entry *e;
	struct cand k;
	int seg = place_segment(x->cl, cand_gpus(x->sc, cd));

	if (t->cl != x->cl) {
		TABLE_EMPTY(t);
		t->cl = x->cl;
	}
	memset(&k, 0, sizeof(k));
	k.ti = cd->ti;
	k.k = cd->k;
	k.d = cd->d;
	k.w = cd->w;
	k.v = cd->v;
	k.sched = cd->sched;
	k.zero = cd->zero;
	k.shard = cd->shard;
	k.m = 1;
	e = slot_find((void **)&t->e, &t->n, &t->cap, sizeof(*e), 256, &k,
		      fresh);
	if (e->seg != seg)
		*fresh = 1;
	e->seg = seg;
	return e;
}

/*
 * A time no partition of cd (its uniform recomputation or GLPK's
 * refinement of it) under any placement the search tries simulates
 * below: cost_simulate_lb() of the chain's compute without recomputation
 * (recomputing adds to it) plus what every partition's stages add to
 * it, or cost_simulate_sync_lb() of the chain's forwards and half of
 * that, and of the reduction of the stage with the most parameters
 * (exact_links_lb(), memoised in mm).
 */
static double
exact_lb(struct ctx *x, struct lb_memo *mm, const struct cand *cd)
{
	const struct chain *c = x->sc[cd->ti].c;
	struct cost_cfg g;
	double lb;
	int j, fresh;
	struct lb_entry *e = lb_find(x, mm, cd, &fresh);

	if (fresh) {
		exact_links_lb(x, cd, &e->extra, &e->sync, &e->tpx,
			       &e->tpn);
		e->tp_m = 0;
		e->fwd = 0;
		for (j = 0; j < c->L; j++)
			e->fwd += CHAIN_AT(c, c->fwd, cd->k, j);
	}
	mm->last = e;
	lb = cand_sim_lb(cd->sched, cd->d, cd->m, cd->v,
			 chain_time(c, cd->k, PROF_RC_NONE, 0, c->L - 1) +
				 e->extra,
			 0);
	cfg_of(x, cd, place_lo(x->so), &g);
	/* the forwards: their compute and half of what the stages add */
	return fmax(lb, cost_simulate_sync_lb(&g, e->fwd * (1 - 1e-9) +
							  e->extra / 2,
					      e->sync));
}

/* The verdicts in t of cd's chain, microbatch and shape under
 * recomputation r (cd->m > 0); with weights set, of its width, ZeRO
 * stage and shard group too (what its weights' bytes read). */
static struct lbfit_entry *
lbfit_find(struct lbfit_table *t, const struct cand *cd, int r, int weights)
{
	struct lbfit_entry *e;
	struct cand k;
	int fresh;

	memset(&k, 0, sizeof(k));
	if (weights) {
		k.w = cd->w;
		k.zero = cd->zero;
		k.shard = cd->shard;
	}
	k.ti = cd->ti;
	k.k = cd->k;
	k.d = cd->d;
	k.m = cd->m;
	k.v = cd->v;
	k.sched = cd->sched;
	k.r = (signed char)r;
	e = slot_find((void **)&t->e, &t->n, &t->cap, sizeof(*e), 1024, &k,
		      &fresh);
	if (fresh)
		e->no = e->yes = NAN;
	return e;
}

/* What e's verdicts say of bound: 0 or 1, or -1 when they do not tell. */
static int
lbfit_says(const struct lbfit_entry *e, double bound)
{
	if (bound <= e->no)
		return 0;
	return bound >= e->yes ? 1 : -1;
}

/* Verdict ok of bound, kept in e (NULL: no memo). */
static int
lbfit_keep(struct lbfit_entry *e, double bound, int ok)
{
	if (e && ok)
		e->yes = bound;
	else if (e)
		e->no = bound;
	return ok;
}

/* cost_simulate_lb_fits() of cd's schedule over the prefix sums pre
 * (up: they never go down, and the answer is found by galloping). */
static int
cand_lb_fits(const struct cand *cd, const double *pre, int L, double bound,
	     int up)
{
	struct cost_cfg g;

	memset(&g, 0, sizeof(g));
	g.sched = cd->sched;
	g.d = cd->d;
	g.m = cd->m;
	g.v = cd->v;
	return up ? cost_simulate_lb_fits_up(&g, pre, L, bound)
		  : cost_simulate_lb_fits(&g, pre, L, bound);
}

/*
 * Whether any partition of cd's (not interleaved) could have a floor
 * below bound (cost_simulate_lb_fits()), its stages computing as its
 * chain says under recomputation r; from mm's verdicts when they tell
 * (a type's sizes ask the same of its chains under other bounds).
 */
static int
exact_fits(struct ctx *x, struct lb_memo *mm, const struct cand *cd, int r,
	   double bound)
{
	const struct chain *c = x->sc[cd->ti].c;
	struct lbfit_entry *e = NULL;
	int ok;

	if (cd->m > 0) {
		struct cand k = *cd;

		k.ti = (short)mm->twin[cd->ti];
		e = lbfit_find(mm->fits, &k, r, 0);
		if ((ok = lbfit_says(e, bound)) >= 0)
			return ok;
	}
	return lbfit_keep(e, bound,
			  cand_lb_fits(cd,
				       c->pre_t + ((size_t)cd->k * PROF_RC_N +
						   r) * (c->L + 1),
				       c->L, bound, mm->up[cd->ti]));
}

/* mm's multipliers and lp_rc_phi() at each for cd's chain and
 * microbatch (none when a layer's option costs less than none). */
static struct rc_phi *
rc_phi_of(struct ctx *x, struct lb_memo *mm, const struct cand *cd)
{
	const struct chain *c = x->sc[cd->ti].c;
	struct rc_phis *t = mm->phis;
	struct rc_phi *e;
	int i;

	if (!t->rcp) {
		t->nsc = mm->nsc;
		t->rcp = xcalloc((size_t)t->nsc, sizeof(*t->rcp));
		t->nmb = xcalloc((size_t)t->nsc, sizeof(*t->nmb));
	}
	if (!t->rcp[cd->ti]) {
		t->rcp[cd->ti] = xcalloc((size_t)c->nmb, sizeof(*e));
		t->nmb[cd->ti] = c->nmb;
	}
	e = &t->rcp[cd->ti][cd->k];
	if (e->phi)
		return e;
	e->n = lp_rc_multipliers(c, cd->k, x->so->rc_mask, e->mu, 6);
	e->phi = xcalloc((size_t)e->n * (c->L + 1) + 1, sizeof(*e->phi));
	for (i = 0; i < e->n; i++)
		if (lp_rc_phi(c, cd->k, x->so->rc_mask, e->mu[i],
			      e->phi + (size_t)i * (c->L + 1)))
			e->n = 0;
	return e;
}

/*
 * Whether a partition of cd's chain under configuration g (one of its
 * placements) could have a floor below bound once GLPK's refinement adds
 * its recomputation:
 * cost_simulate_lb_fits_rc() of the compute without recomputation and
 * the Lagrangian bound of what the refinement adds (lp_rc_phi(),
 * lp_rc_row()), at each of the multipliers where a layer's cheapest
 * option changes (each a bound of its own; without any, that of no
 * recomputation).
 */
static int
exact_fits_rc_at(struct ctx *x, struct lb_memo *mm, const struct cand *cd,
		 const struct cost_cfg *g, double bound)
{
	const struct chain *c = x->sc[cd->ti].c;
	const double *pre = c->pre_t + ((size_t)cd->k * PROF_RC_N +
					PROF_RC_NONE) *
					       (c->L + 1);
	struct rc_phi *e = rc_phi_of(x, mm, cd);
	struct cost_rc_lb rl;
	int i, j;

	/* Each multiplier's bound says no alone, and lp_rc_row() fails for
	 * all of them or none (it reads no multiplier): any order answers
	 * alike, and the one that said no last most often says it first
	 * (not plain). */
	for (j = 0; j < e->n; j++) {
		i = mm->plain ? j : (e->first + j) % e->n;
		if (lp_rc_row(c, x->o, g, e->mu[i], &rl, mm->per))
			return 1;
		rl.phi = e->phi + (size_t)i * (c->L + 1);
		if (!cost_simulate_lb_fits_rc(g, pre, c->L, bound, &rl)) {
			if (!mm->plain)
				e->first = i;
			return 0;
		}
	}
	return 1;
}

/*
 * exact_fits_rc_at() under some placement the search tries, from mm's
 * verdicts when they tell.  Not under activation offload, which the
 * refinement's memory row does not follow.
 */
static int
exact_fits_rc(struct ctx *x, struct lb_memo *mm, const struct cand *cd,
	      double bound)
{
	struct lbfit_entry *e = NULL;
	struct cost_cfg g;
	double pb = 0;
	int pl, ok = 0;

	if (cd->offload || cd->v > 1)
		return 1;
	if (cd->m > 0) {
		e = lbfit_find(mm->fits, cd, PROF_RC_N, 1);
		if ((ok = lbfit_says(e, bound)) >= 0)
			return ok;
	}
	ok = 0;
	/* the bound reads the placement only through the weights' bytes */
	for (pl = place_lo(x->so); !ok && pl <= place_hi(x->so, cd); pl++) {
		cfg_of(x, cd, pl, &g);
		if (pl > place_lo(x->so) && cost_param_bytes(x->o, &g) == pb)
			continue;
		pb = cost_param_bytes(x->o, &g);
		ok = exact_fits_rc_at(x, mm, cd, &g, bound);
	}
	return lbfit_keep(e, bound, ok);
}

/*
 * exact_fits() with each layer's tensor-parallel traffic added to its
 * compute, no more than any stage of it pays under any placement
 * (exact_links_lb()'s coefficients e, from exact_lb(): cost_tp_lb(), the
 * least over the placements): every stage's forwards,
 * recomputations and backwards still take no less than the difference
 * of the prefix sums, which is all cost_simulate_lb_fits() asks.
 */
static int
exact_fits_tp(struct ctx *x, struct lb_memo *mm, struct lb_entry *e,
	      const struct cand *cd, int r, double bound)
{
	const struct chain *c = x->sc[cd->ti].c;
	size_t off = (size_t)cd->k * PROF_RC_N;
	const double *pre = c->pre_t + (off + r) * (c->L + 1);
	const double *px = c->pre_tpx + (off + PROF_RC_NONE) * (c->L + 1);
	const double *pn = c->pre_tpn + (off + PROF_RC_NONE) * (c->L + 1);
	int j, ok;

	if (!(e->tpx > 0 || e->tpn > 0))
		return 1;
	/* A sweep asks it again at each size (the bound falls): what it
	 * said under larger bounds and smaller ones answers most. */
	if (!mm->plain && e->tp_m != cd->m) {
		e->tp_m = cd->m;
		for (j = 0; j < PROF_RC_N; j++) {
			e->tp_no[j] = -INFINITY;
			e->tp_yes[j] = INFINITY;
		}
	}
	if (!mm->plain && bound <= e->tp_no[r])
		return 0;
	if (!mm->plain && bound >= e->tp_yes[r])
		return 1;
	for (j = 0; j <= c->L; j++)
		mm->pre[j] = pre[j] + e->tpx * (px[j] - px[0]) +
			     e->tpn * (pn[j] - pn[0]);
	ok = cand_lb_fits(cd, mm->pre, c->L, bound,
			  !mm->plain && rises(mm->pre, 1, c->L + 1));
	if (mm->plain)
		return ok;
	if (ok && bound < e->tp_yes[r])
		e->tp_yes[r] = bound;
	else if (!ok && bound > e->tp_no[r])
		e->tp_no[r] = bound;
	return ok;
}

/*
 * Whether some partition of cd under options o (the memory cap, or
 * none), under some placement, has every stage busy (cost_stage_busy())
 * for less than bound over cost_simulate_stage_lb(): else none can
 * simulate below bound.  The programme's stage cost without the
 * synchronisation (ws.no_sync) is at most the busy time, to rounding,
 * and a cut lets the solve stop early (as solve_checked()'s); but not
 * with the expert-parallel overlap, which hides a share of the
 * all-to-alls that no sum of layers follows.
 */
static int
exact_busy(struct ctx *x, const struct cost_opts *o, const struct cand *cd,
	   double bound)
{
	const struct search_opts *so = x->so;
	struct cost_cfg g;
	double cut, t;
	int pl;

	for (pl = place_lo(so); pl <= place_hi(so, cd); pl++) {
		struct time_entry *e = NULL;

		cfg_of(x, cd, pl, &g);
		if (cost_ep_deg(&g) > 1 &&
		    runtime_has(cost_cfg_runtime(o, &g),
				RUNTIME_OPT_OVERLAP_MOE_EP_COMM))
			return 1;
		cut = bound / cost_simulate_stage_lb(&g) * (1 + 1e-6);
		links_for(x, pl, g.w, g.d, g.t, g.c, g.e, g.etp);
		/* what an earlier search of the memo found on these links:
		 * the least slowest stage, or that it is above some cut */
		if (so->memo && cd->m > 0) {
			e = time_find(&so->memo->busy, cd,
				      pl + 2 * (o == &x->nocap));
			if (time_links(&so->memo->busy, e, x, cd->d) &&
			    (!isnan(e->t) || cut <= e->lo)) {
				if (!isnan(e->t) && e->t <= cut)
					return 1;
				continue;
			}
		}
		x->ws.no_sync = 1;
		x->ws.cut_ms = cut;
		t = part_solve(&x->ws, x->c, o, &g, &x->links, PART_TIME,
			       INFINITY, x->first);
		x->ws.no_sync = 0;
		x->ws.cut_ms = 0;
		/* under the cut the solve's optimum, above it none */
		if (e && t <= cut)
			e->t = t;
		else if (e && cut > e->lo)
			e->lo = cut;
		if (t <= cut)
			return 1;
	}
	return 0;
}

/*
 * Clear *uni (its uniform recomputation) and *ref (GLPK's refinement of
 * it) when cd's partition cannot simulate below bound, before solving
 * it.  Its stages' floor is at least a_s times the forwards,
 * recomputations and backwards of each stage s plus those of the stages
 * before it over q (cost_simulate_lb_fits()), and at least a times each
 * stage's alone (cost_simulate_stage_lb()): with no partition whose
 * stages' compute keeps under bound so (the second under the memory cap
 * as well: part_fits(), which reads neither the links nor the
 * placement), its own does not.  The refinement's stages compute no
 * less than without recomputation, on a partition that fits without
 * the cap; so do --recompute-every's, which recompute less than full.
 * Those are asked exact_busy() as well, which turns away enough of them
 * to spare GLPK; for the others it costs about what solving them does.
 * Between the two, exact_lb() (mm its memo), which reads the links: what
 * every partition adds to the compute, or the reduction.
 */
static void
exact_gate(struct ctx *x, const struct cost_opts *o, const struct cand *cd,
	   int place, double bound, struct lb_memo *mm, int *uni, int *ref)
{
	struct cand cn = *cd;
	struct cost_cfg g;
	double tb;
	int ev = cost_every_on(o) && cd->r == PROF_RC_FULL;

	cn.r = PROF_RC_NONE;
	if (*uni && !ev && !exact_fits(x, mm, cd, cd->r, bound))
		*uni = 0;
	if ((*ref || (*uni && ev)) &&
	    !exact_fits(x, mm, cd, PROF_RC_NONE, bound)) {
		*uni = *ref = 0;
		return;
	}
	/* what every partition's stages add, or its reduction */
	if ((*uni || *ref) && exact_lb(x, mm, cd) >= bound) {
		*uni = *ref = 0;
		return;
	}
	/* the partitions with each layer's tensor-parallel traffic */
	if (*uni && !ev &&
	    !exact_fits_tp(x, mm, mm->last, cd, cd->r, bound))
		*uni = 0;
	if ((*ref || (*uni && ev)) &&
	    !exact_fits_tp(x, mm, mm->last, cd, PROF_RC_NONE, bound)) {
		*uni = *ref = 0;
		return;
	}
	/* the refinement's with what it must recompute to fit */
	if (*ref && !exact_fits_rc(x, mm, cd, bound))
		*ref = 0;
	if (!*uni && !*ref)
		return;
	cfg_of(x, cd, place, &g);
	tb = bound / cost_simulate_stage_lb(&g) * (1 + 1e-9);
	if (*uni && !ev)
		*uni = cand_fits(x, o, cd, &g, tb);
	if (*ref || (*uni && ev)) {
		cfg_of(x, &cn, place, &g);
		if (!cand_fits(x, &x->nocap, &cn, &g, tb) ||
		    (!cd->offload && !exact_busy(x, &x->nocap, &cn, bound)))
			*uni = *ref = 0;
	}
}

/* The memo's entry for cd on x's cluster, or NULL without a memo. */
static struct gate_entry *
gate_find(struct ctx *x, const struct cand *cd)
{
	struct gate_table *t;
	struct gate_entry *e;
	struct cand k = *cd;
	int fresh, seg;

	if (!x->so->memo || cd->m <= 0)
		return NULL;
	t = &x->so->memo->gates;
	if (t->cl != x->cl) {
		TABLE_EMPTY(t);
		t->cl = x->cl;
	}
	seg = place_segment(x->cl, cand_gpus(x->sc, cd));
	k.lb = 0;
	k.lp = 0;
	e = slot_find((void **)&t->e, &t->n, &t->cap, sizeof(*e), 1024, &k,
		      &fresh);
	if (fresh || e->seg != seg) {
		e->seg = seg;
		e->no[0] = e->no[1] = -INFINITY;
	}
	return e;
}

/*
 * What the memo proved of lv's i-th candidate cd (no[2] as a
 * gate_entry's), or NULL without a memo: by its place in the memo's
 * list when lv was taken from one (the same proofs as gate_find() keeps
 * by key, a list holding each candidate once), else gate_find()'s.
 */
static double *
gate_no(struct ctx *x, struct lp_visit *lv, long i, const struct cand *cd)
{
	struct cand_list *l = lv->from;
	struct gate_entry *e;
	struct gate_slot *g;
	int seg;

	if (!l || cd->m <= 0) {
		e = gate_find(x, cd);
		return e ? e->no : NULL;
	}
	if (!l->gates || l->gcl != x->cl) {
		free(l->gates);
		l->gates = xcalloc((size_t)l->n, sizeof(*l->gates));
		l->gcl = x->cl;
	}
	g = &l->gates[lv->at[i]];
	seg = place_segment(x->cl, l->gpus[lv->at[i]]);
	if (g->seg != seg) {
		g->seg = seg;
		g->no[0] = g->no[1] = -INFINITY;
	}
	return g->no;
}

/*
 * exact_gate() under place_lo(), first from what it proved of cd in an
 * earlier search of the memo on these links (capacity's sizes; no: its
 * gate_no(), NULL: none): a proof under a bound holds under every
 * smaller one.  A proof left out would only let through what then
 * cannot beat the bound, as the search finds by solving and simulating
 * it.
 */
static void
exact_gate_known(struct ctx *x, const struct cost_opts *o,
		 const struct cand *cd, double bound, struct lb_memo *mm,
		 double *no, int *uni, int *ref)
{
	int u0, r0;

	if (no && *uni && bound <= no[0])
		*uni = 0;
	if (no && *ref && bound <= no[1])
		*ref = 0;
	if (!*uni && !*ref)
		return;
	u0 = *uni;
	r0 = *ref;
	exact_gate(x, o, cd, place_lo(x->so), bound, mm, uni, ref);
	if (no && u0 && !*uni && bound > no[0])
		no[0] = bound;
	if (no && r0 && !*ref && bound > no[1])
		no[1] = bound;
}

/*
 * x->st, x->first and the links of place in x->links: cd's stages under
 * place, whose solve_best() (with keep_best) just found it its best, as
 * solve() gives them: the copy solve_best() kept (the unbounded solve's,
 * whose partition the part table then holds for solve()), else solved.
 * Not under --recompute-every, whose stages leave x->rc to keep_sim().
 */
static void
best_stages(struct ctx *x, const struct cost_opts *o, const struct cand *cd,
	    int place)
{
	struct plan_terms terms;
	struct cost_cfg g;
	int s;

	if (!x->kept) {
		solve(x, o, cd, place, INFINITY, &terms);
		return;
	}
	memcpy(x->st, x->best_st, (size_t)cd->d * sizeof(*x->st));
	for (s = 0; s < cd->d; s++)
		x->first[s] = x->st[s].first;
	cfg_of(x, cd, place, &g);
	links_for(x, place, g.w, g.d, g.t, g.c, g.e, g.etp);
}

/*
 * Make the best alternative the best simulated time of all candidates,
 * as simulating every one of them would find it (tests/unit/
 * test_search_lp.c): the closed form the search ranks by charges the
 * transfers between stages on both ends of each stage, which the
 * simulation overlaps with compute, so it can run well below the closed
 * form (up to 40% on unequal stages) and a candidate the closed form
 * ranked out of the alternatives kept can simulate faster than all of
 * them.  Every candidate whose simulated time could beat the best one
 * (best, the time to beat) is taken, in the order of a lower bound of
 * its simulated time whatever its partition (cost_simulate_lb(), the
 * visit's sim), until that bound reaches the best: solved as the search
 * solves it (its best placement by the closed form, its stages the
 * partition of that placement), and simulated when the floor of its
 * stages is below the best; kept when faster.  A candidate that
 * recomputes under a runtime that takes a per-layer choice is refined
 * by GLPK as well, as the loop over the alternatives refines the lp_k
 * best: its bound counts no recomputation, and GLPK only runs when the
 * floor of its stages without recomputation is below the best (no
 * refinement of them is faster).  sims: the candidates and placements
 * simulated already (or known not to beat it), left out.  On a fast
 * network the floors of most candidates lie above the best: few are
 * simulated.
 */
static void
exact_rest(struct ctx *x, const struct search_chain *sc, int nsc,
	   const struct cluster *cl, const struct cost_opts *o,
	   const struct search_opts *so, int N, struct plan_alt *alts,
	   struct cand *ac, double *simt, int *nalt, int k,
	   const struct sims *sims)
{
	struct lp_visit lv;
	struct lb_memo mm;
	struct plan_stage *nst;
	long i;
	int j, *ord, ev = cost_every_on(o), lp = so->lp_k > 0 && !ev;

	memset(&lv, 0, sizeof(lv));
	lv.vt.fn = exact_visit_fn;
	lv.vt.group = lp_visit_group;
	lv.vt.mono = 1;
	lv.vt.sim = lp ? 2 : 1;
	lv.bound = INFINITY;
	for (j = 0; j < *nalt; j++)
		if (simt[j] < lv.bound)
			lv.bound = simt[j];
	if (!isfinite(lv.bound))
		return;
	lv.vt.over = lv.bound; /* lp_visit_group()'s */
	lp_collect(&lv, sc, nsc, cl, o, so, N,
		   lv.vt.sim == 2 ? KIND_SIM2 : KIND_SIM1);
	x->stats->exact_taken += lv.n;
	nst = xcalloc(sc[0].c->L, sizeof(*nst));
	ord = xcalloc(sc[0].c->L, sizeof(*ord));
	lb_memo_init(&mm, so, sc, nsc, sc[0].c->L);
	for (i = 0; i < lv.n && lv.c[i].lb < lv.bound; i++) {
		struct cand cd = lv.c[i], cr = cd;
		struct cost_cfg g;
		double fu, fr, t;
		int place, refine, uni, ref;

		cd.lb = 0;
		cr.lb = 0;
		cr.lp = 1;
		refine = lp && cd.r != PROF_RC_NONE &&
			 cost_runtime(o, cd.sched, cd.d)->mixed_rc;
		/* simulated already: under its best placement */
		place = sims_has(sims, &cd, -1);
		uni = place < 0;
		ref = refine && (place < 0 || !sims_has(sims, &cr, place));
		if (!so->uniform && (uni || ref))
			exact_gate_known(x, o, &cd, lv.bound, &mm,
					 gate_no(x, &lv, i, &cd), &uni, &ref);
		else if ((uni || ref) && exact_lb(x, &mm, &cd) >= lv.bound)
			uni = ref = 0;
		if (!uni && !ref)
			continue;
		x->stats->exact++;
		x->keep_best = !ev;
		t = solve_best(x, o, so, &cd, INFINITY, &place);
		x->keep_best = 0;
		if (!isfinite(t))
			continue;
		/* what its floors were on these links, in an earlier
		 * search of the memo (capacity's sizes) */
		uni = uni && !sims_has(sims, &cd, place);
		ref = ref && !sims_has(sims, &cr, place);
		fu = uni ? floor_known(x, &cd, place) : NAN;
		fr = ref ? floor_known(x, &cr, place) : NAN;
		uni = uni && !(fu >= lv.bound);
		ref = ref && !(fr >= lv.bound);
		if (!uni && !ref)
			continue;
		best_stages(x, o, &cd, place);
		if (uni) {
			cfg_of(x, &cd, place, &g);
			fu = cost_simulate_floor(x->st, &g);
			floor_keep(x, &cd, place, fu);
			if (fu < lv.bound)
				exact_try(x, &cd, place, alts, ac, simt, nalt,
					  k, &lv.bound,
					  ev && cd.r == PROF_RC_FULL);
		}
		if (!ref)
			continue;
		/* nst: the stages without recomputation, for exact_lp() */
		if (isnan(fr)) {
			fr = exact_floor_none(x, &cd, place, nst);
			floor_keep(x, &cr, place, fr);
			if (fr < lv.bound)
				floor_keep_stages(x, &cr, place, nst);
		} else if (fr < lv.bound &&
			   !floor_stages(x, &cr, place, nst)) {
			exact_floor_none(x, &cd, place, nst);
			floor_keep_stages(x, &cr, place, nst);
		}
		if (!(fr < lv.bound))
			continue;
		/* x->st: its stages, what solve() of cr gives */
		if (exact_lp(x, &cr, place, lv.bound, nst, ord))
			exact_try(x, &cr, place, alts, ac, simt, nalt, k,
				  &lv.bound, 1);
	}
	lb_memo_release(&mm);
	free(ord);
	free(nst);
	free(lv.c);
	free(lv.at);
}

/*
 * search_run_tp() with the bound start (INFINITY: none) until k
 * configurations are found: SEARCH_AGAIN when fewer than k come under
 * it.  With k of them under it, the k best are those of the search from
 * INFINITY: every configuration left out costs start or more, more than
 * the k kept, and those below it are solved and kept in the same order.
 */
static int
search_from(const struct search_chain *sc, int nsc,
	    const struct cluster *cl, const struct cost_opts *o,
	    const struct search_opts *so, struct plan *p,
	    struct search_stats *st, double start)
{
	struct ctx x;
	struct cand *v = NULL, *ac, last;
	struct pick pk;
	struct crew cw;
	long n, i, oi, r, used, nv = 0, dummy;
	int N = cl->nodes * cl->gpus_per_node, nalt = 0, ret = -1;
	/* Keep spares: a per-layer refinement that comes back uniform
	 * duplicates another alternative and is dropped. */
	int k = 2 * (so->topk > 0 ? so->topk : 1), L = sc[0].c->L;
	struct plan_alt *alts = xcalloc(k, sizeof(*alts));
	double *simt = xcalloc(k, sizeof(*simt)); /* alts' simulated times */
	/* the alternatives simulated, and refined by GLPK */
	struct sims sims = {0};
	double t0 = now_ms();
	int evaluate = so->fix_w > 0 && so->fix_d > 0 && so->fix_b > 0 &&
		       so->fix_rc >= 0 && so->fix_sched >= 0;
	struct outrun_arg oa;
	struct cost_cut cut = {outrun_cut, &oa};

	memset(st, 0, sizeof(*st));
	memset(&pk, 0, sizeof(pk));
	ac = xcalloc(k, sizeof(*ac));
	if (so->max_gpus > 0 && so->max_gpus < N)
		N = so->max_gpus;
	ctx_init(&x, sc, nsc, cl, o, so, st);
	if (so->memo)
		ctx_memo(&x, so->memo, 0);
	crew_start(&cw, &x, so->threads);

	/*
	 * Best first without sorting everything: take the PICK_FIRST
	 * smallest lower bounds, solve them in order until a bound reaches
	 * the k-th best time, and only when all of them were needed take
	 * the next ones (twice as many) by enumerating again.  The order is
	 * cand_cmp's, a total order, so the candidates solved and the
	 * result are those of one sort of all of them.
	 */
	pk.cap = so->pick_first > 0 ? so->pick_first : PICK_FIRST;
	/*
	 * A brief search reads no candidate it does not solve, and solves
	 * none at start or above (the bound is start until k are found,
	 * then below it): the pick leaves them out, which turns whole
	 * groups away.  When more than its cap come under start it keeps
	 * the same ones; else the pass ends with the same solves, the
	 * pick not full.
	 */
	pk.cut = so->brief && !evaluate ? start : INFINITY;
	/* filled before it is read (pk.n): not zeroed, 650 KB a search */
	pk.h = xmalloc(2 * pk.cap * sizeof(*pk.h));
	n = pick_next(&pk, NULL, sc, nsc, cl, o, so, N, &st->screened, st);
	v = pk.h;
	nv = pk.n;
	st->candidates = n + st->screened;
	if (n == 0 && st->screened == 0 && st->skipped_rt) {
		pd2bw_error("%s", st->skip_why);
		goto out;
	}
	if (n == 0 && st->screened == 0) {
		pd2bw_error("no configuration splits a global batch of %lld "
			    "over at most %d GPUs with microbatch sizes of "
			    "the profile",
			    (long long)so->batch, N);
		goto out;
	}
	for (;;) {
		int done = 0;

		for (i = 0; i < pk.n && !done; i += used) {
			double bound = nalt == k ? alts[k - 1].iter_ms
						 : start;
			long j, round = crew_size(&cw);

			/* sorted by lower bound: a prefix can be solved */
			for (r = 0; r < round && i + r < pk.n &&
				    pick_at(&pk, i + r)->lb < bound;
			     r++)
				;
			if (r == 0)
				break;
			crew_round(&cw, pk.h + i, r, bound);
			/* The results hold while the bound stays: the bound
			 * prunes inside the partition, and a solve under
			 * another bound might not give what the one-by-one
			 * search gets.  The rest go to the next round. */
			for (used = 0; used < r; used++) {
				double t = cw.t[used];

				if ((nalt == k ? alts[k - 1].iter_ms
					       : start) != bound)
					break;
				st->solved++;
				if (t < bound)
					insert_alt(&x, alts, ac, &nalt, k,
						   &pk.h[i + used],
						   cw.place[used], t);
				else
					st->cut++;
			}
			j = i + used;
			bound = nalt == k ? alts[k - 1].iter_ms : start;
			if (j < pk.n && !(pick_at(&pk, j)->lb < bound))
				done = 1;
		}
		done |= i < pk.n;
		if (done || pk.n < pk.cap)
			break;
		/* The first batch stays for explain_binding(). */
		last = *pick_at(&pk, pk.n - 1);
		if (pk.h == v)
			pk.h = NULL;
		pk.cap *= 2;
		pk.h = xrealloc(pk.h, 2 * pk.cap * sizeof(*pk.h));
		pick_next(&pk, &last, sc, nsc, cl, o, so, N, &dummy, NULL);
		st->passes++;
	}
	if (nalt < k && isfinite(start)) {
		ret = SEARCH_AGAIN;
		goto out;
	}
	st->kth_ms = nalt == k ? alts[k - 1].iter_ms : INFINITY;
	st->bounded = n - st->solved;
	/* those of the last pass: the earlier ones' were taken since */
	st->grouped = pk.grouped;
	/*
	 * The simulation re-scores what the closed form kept, re-ranked
	 * below; each alternative's peak memory is kept for the
	 * tie-breaking order.  First GLPK: per-layer recomputation for the
	 * lp_k best candidates that recompute at all, kept where it is
	 * faster, its stages then the ones re-scored.  Only the
	 * alternatives before one and its refinement decide whether it is
	 * outrun, so refining each just before it is re-scored is
	 * refining them all first (oi: its index before any was dropped).
	 * Then refine_rest() refines whatever else could beat the best by
	 * the closed form, and exact_rest() simulates whatever else could
	 * by the simulation's bounds: the best alternative is then the
	 * best simulated time of all candidates (the others are the best
	 * of those simulated).
	 */
	for (i = 0, oi = 0; i < nalt; i++, oi++) {
		struct plan_terms terms;
		struct cost_cfg g;
		struct cand cd = ac[i];
		double t;
		int refined = 0, floored;

		/* its simulated time, or that topk others beat it, which
		 * exact_rest() need not ask again */
		sims_add(&sims, &cd, alts[i].place);
		if (oi < so->lp_k && cd.r != PROF_RC_NONE &&
		    !cost_every_on(o) &&
		    cost_runtime(o, cd.sched, cd.d)->mixed_rc) {
			cd.lp = 1;
			/* refined: what the brute force would simulate of
			 * it, the refinement or the uniform choice */
			sims_add(&sims, &cd, alts[i].place);
			solve(&x, o, &cd, alts[i].place, INFINITY, &terms);
			t = apply_lp(&x, &cd, alts[i].place, &terms);
			if (t < alts[i].iter_ms * (1 - 1e-9)) {
				alts[i].iter_ms = t;
				alts[i].recompute = overall_rc(&x, L);
				ac[i] = cd;
				refined = 1; /* x.st holds its stages */
			}
		}
		if (!refined)
			solve(&x, o, &ac[i], alts[i].place, INFINITY, &terms);
		if (cost_every_on(o) && ac[i].r == PROF_RC_FULL)
			alts[i].recompute = overall_rc(&x, L);
		alts[i].mem_bytes = (int64_t)stages_peak(x.st, ac[i].d);
		cfg_of(&x, &ac[i], alts[i].place, &g);
		oa.alts = alts;
		oa.simt = simt;
		oa.i = i;
		oa.topk = so->topk > 0 ? so->topk : 1;
		floored = !so->rescore_all &&
			  outrun_cut(&oa, cost_simulate_floor(x.st, &g));
		if (!floored) {
			t = rescore(&x, &ac[i], alts[i].place,
				    so->rescore_all ? NULL : &cut, &floored);
			st->rescore_cut += floored;
		}
		if (floored) {
			/* It cannot be among the topk: dropped unsimulated
			 * (or a long run, simulated in part).  It would
			 * have sorted after them (the order's tie window
			 * is 1e-9), and so after every alternative faster
			 * than it, whose order it does not touch. */
			memmove(&alts[i], &alts[i + 1],
				(nalt - i - 1) * sizeof(*alts));
			memmove(&ac[i], &ac[i + 1], (nalt - i - 1) * sizeof(*ac));
			nalt--;
			i--;
			st->rescore_skipped++;
			continue;
		}
		simt[i] = t;
		if (isfinite(t))
			alts[i].iter_ms = t;
	}
	refine_rest(&x, sc, nsc, cl, o, so, N, alts, ac, simt, &nalt, k,
		    &sims);
	exact_rest(&x, sc, nsc, cl, o, so, N, alts, ac, simt, &nalt, k,
		   &sims);
	for (i = 1; i < nalt; i++) {
		long j2;

		for (j2 = i; j2 > 0 &&
			     search_alt_cmp(&alts[j2], &alts[j2 - 1]) < 0;
		     j2--) {
			struct plan_alt ta = alts[j2];
			struct cand tc = ac[j2];
			double tt = simt[j2];

			alts[j2] = alts[j2 - 1];
			ac[j2] = ac[j2 - 1];
			simt[j2] = simt[j2 - 1];
			alts[j2 - 1] = ta;
			ac[j2 - 1] = tc;
			simt[j2 - 1] = tt;
		}
	}
	/* A refinement that came back uniform may repeat an alternative. */
	for (i = 1; i < nalt; i++) {
		long j2;

		for (j2 = 0; j2 < i; j2++)
			if (same_alt(&alts[i], &alts[j2]))
				break;
		if (j2 < i) {
			memmove(&alts[i], &alts[i + 1],
				(nalt - i - 1) * sizeof(*alts));
			memmove(&ac[i], &ac[i + 1], (nalt - i - 1) * sizeof(*ac));
			memmove(&simt[i], &simt[i + 1],
				(nalt - i - 1) * sizeof(*simt));
			nalt--;
			i--;
		}
	}
	if (nalt > so->topk)
		nalt = so->topk > 0 ? so->topk : 1;
	for (i = 0; i < nalt; i++)
		alts[i].samples_s = (double)alts[i].w * alts[i].b * alts[i].m /
				    (alts[i].iter_ms / 1e3);
	if (nalt == 0 && evaluate && nv > 0) {
		int place;

		/* the placement it would run fastest under, had it room */
		if (pk.h == v) /* still being read: in order so far */
			pick_at(&pk, 0);
		solve_best(&x, &x.nocap, so, &v[0], INFINITY, &place);
		fill_plan(&x, so, &v[0], place, NAN, p);
		p->bind = PLAN_BIND_MEMORY;
		p->bind_reason = fmt("does not fit: it needs %.2f GiB per GPU, "
				     "%.2f GiB are available",
				     p->peak_mem_bytes / GIB,
				     o->cap_bytes / GIB);
		pd2bw_error("this configuration does not fit: it needs %.2f "
			    "GiB per GPU, %.2f GiB are available",
			    p->peak_mem_bytes / GIB, o->cap_bytes / GIB);
		ret = 3;
		goto out;
	}
	if (nalt == 0) {
		struct search_opts so2 = *so;
		struct cand arg;
		double mem;

		/* Include the screened-out candidates: search without the
		 * memory screen to find the least memory anything needs. */
		so2.fix_place = -1;
		mem = minmem_of(&x, sc, nsc, cl, o, &so2, N, &arg);
		/* under --recompute-every the least is full
		 * recomputation's, every block: a floor of what the blocks
		 * it wraps need (NEEDSWORK: not their own least) */
		if (isfinite(mem))
			pd2bw_error("no configuration fits in memory: the "
				    "smallest needs %s%.2f GiB per GPU (%s w=%d "
				    "d=%d t=%d b=%d recompute=%s), %.2f GiB "
				    "are available",
				    cost_every_on(o) ? "more than " : "",
				    mem / GIB, plan_sched_names[arg.sched],
				    arg.w, arg.d, sc[arg.ti].t,
				    sc[arg.ti].c->mb[arg.k],
				    cost_every_on(o) && arg.r == PROF_RC_FULL
					    ? "every (--recompute-every)"
					    : prof_rc_names[arg.r],
				    o->cap_bytes / GIB);
		else
			pd2bw_error("no configuration fits in memory");
		ret = 3;
		goto out;
	}
	fill_plan(&x, so, &ac[0], alts[0].place, simt[0], p);
	p->alts = alts;
	p->nalts = nalt;
	alts = NULL;
	if (!so->brief) {
		/* it reads up to 256 of the first batch (all in order when
		 * the search went past it) */
		if (pk.h == v && nv > 0)
			pick_at(&pk, nv < 256 ? nv - 1 : 255);
		explain_binding(&x, so, v, nv, p);
	}
	ret = 0;
out:
	st->ms = now_ms() - t0;
	free(alts);
	free(simt);
	sims_release(&sims);
	free(ac);
	if (pk.h != v)
		free(pk.h);
	free(v);
	crew_stop(&cw);
	ctx_release(&x);
	return ret;
}

int
search_run_tp(const struct search_chain *sc, int nsc,
	      const struct cluster *cl, const struct cost_opts *o,
	      const struct search_opts *so, struct plan *p,
	      struct search_stats *st)
{
	double start = INFINITY, ms;
	int ret;

	/* just above: a configuration at the bound itself still counts */
	if (so->start_bound > 0 && isfinite(so->start_bound))
		start = nextafter(so->start_bound, INFINITY);
	ret = search_from(sc, nsc, cl, o, so, p, st, start);
	if (ret != SEARCH_AGAIN)
		return ret;
	ms = st->ms;
	ret = search_from(sc, nsc, cl, o, so, p, st, INFINITY);
	st->ms += ms;
	st->again = 1;
	return ret;
}
