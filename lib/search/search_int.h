/*
 * search_int.h - what the modules of the search (lib/search/) share; not
 * installed.  The candidate, the visit that search_enumerate() hands
 * candidates to, the memo's and a search's tables, a solving thread's
 * context, and the functions one module calls in another, each defined,
 * with its contract, in the file its group names.  Those functions are
 * global symbols of the installed libpd2bw.a, so each is named search_*
 * (like its public API, pd2bw/search.h) and cannot take the name of a
 * function of the program that links it.  The small helpers that the hot
 * loops of several modules call are static inline here.
 */
#ifndef PD2BW_SEARCH_INT_H
#define PD2BW_SEARCH_INT_H

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pd2bw/error.h"
#include "pd2bw/lp.h"
#include "pd2bw/partition.h"
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
 * What search_enumerate() hands each candidate to: the candidates are never all
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
	 * (0: none known), that search_enumerate() may say of its floor before
	 * working it out */
	double over;
	/* NULL, or [GPUs]: the candidates screened out by memory and
	 * skipped for a runtime's reason, added up by the GPUs they take
	 * (cand_list_build()) */
	long *scr, *skip;
	/* set: group turns away every group whose lo is at or above one
	 * it turns away (lp_visit_group()), which search_enumerate() may then
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
	/* [room]: h's bounds, h[i].lb in lbs[i] from sorted on, kept
	 * alongside (a pass over them reads 8 bytes where h's read 40);
	 * cand_select_lb()'s copies of them and places */
	double *lbs, *keys;
	long *moves;
	long room;
	const struct cand *after;
	struct cand top;
	int full;       /* top is set */
	long sorted;    /* h[0..sorted) are in order, before the rest */
	long grouped;   /* candidates turned away a group at a time by top
			   or cut */
	/* no candidate of this bound or above is kept (INFINITY: none):
	 * the search would not solve it */
	double cut;
	/* taken from the memo's list from (else NULL): the place in it of
	 * each of h[0..n) ([room]), by which search_none_known() reads, as
	 * lp_visit's from and at */
	struct cand_list *from;
	long *at;
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
 * at most half full); last: the one search_time_links() found last. */
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
 * What search_refine_rest() found of a candidate under a placement on the grid
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

/*
 * exact_lb()'s parts that read the links, by what they depend on (the
 * chain, microbatch size, d, w, v, schedule, ZeRO stage and shard group,
 * whatever m, recomputation and offload: the key holds those, m 1), in
 * search_slot_find()'s table (struct lb_table).
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
 * search_exact_fits_rc()'s multipliers and lp_rc_phi() at each, by chain and
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
 * best-first pick's (closed-form bounds), search_refine_rest()'s (lp_only) and
 * search_exact_rest()'s (the simulation's, sim 1 or 2).
 */
enum cand_kind { KIND_PICK, KIND_LP, KIND_SIM1, KIND_SIM2, KIND_N };

/*
 * Every candidate of up to the memo's span of GPUs that search_enumerate()
 * hands one kind of visit, with its lower bound, in cand_cmp order, and
 * the GPUs each takes: a search on N GPUs wants those of N or fewer
 * (search_enumerate() reads N only there, and the bounds read no cluster), in
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
	 * kinds search_exact_rest() takes (NULL: none asked yet): read by the
	 * candidate's place in the list, not by its key's hash */
	struct gate_slot {
		int seg;
		double no[2];
	} *gates;
	const struct cluster *gcl;
	/* and search_refine_rest()'s findings, as the refined table keeps them,
	 * two a candidate (placements 0 and 1; seg 0: none yet), on
	 * cluster rcl */
	struct refine_mark *refs;
	const struct cluster *rcl;
	/* and the best-first loop's (KIND_PICK's list): no closed-form time
	 * below none[i] (search_none_keep(); 0: nothing known), on cluster
	 * ncl of nnodes nodes, each count of GPUs g placed in segments of
	 * nseg[g] GPUs (place_segment(), up to the most any candidate
	 * takes), as when they were found */
	double *none;
	int *nseg, nseg_n, nnodes;
	const struct cluster *ncl;
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
	 * per-layer refinement asks of every size (search_refine_rest()) */
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
	/* the floors search_exact_rest() found: t as in a time_entry, lp the
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
	/* what search_refine_rest() found, on the caller's thread */
	struct refine_table refined;
	/* exact_lb()'s parts that read the links, and search_exact_fits_rc()'s
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
	/* search_lb_memo_init()'s twins and rises (not plain) of the tu_n
	 * chains of ids tu_id (none yet: tu_n 0), which every search of a sweep
	 * asks twice, on the caller's thread */
	unsigned long *tu_id;
	int *tu_twin, *tu_up, tu_n;
};

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
	struct plan_stage *st; /* [D]: D the most stages, search_ctx_init()'s */
	int *first;            /* [L] */
	int *rc;	       /* [L] per-layer recomputation of the last
				  search_apply_lp() */
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
	/* with keep_best, search_solve_best() copies the stages of its best
	 * placement's solve here ([D]; kept: it did, for its result) */
	struct plan_stage *best_st;
	int keep_best, kept;
	/* set: search_solve_best() stops at the first placement under its
	 * bound, for a caller that asks only whether one is
	 * (search_refine_rest()) */
	int any_under;
	double *lsave; /* [PLACE_LINK_ARRAYS D]: same_links()'s */
	/* 1 + the index in lk's entries of the grid whose links x->links
	 * holds (0: none known): search_links_for() copies them once, not at
	 * every call for the same grid (a search's context sees one
	 * cluster, and search_links_for() alone writes x->links) */
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
	/* with from, or NULL: whether the list's i-th candidate is known
	 * (what the memo keeps by its place, for search x) to be turned
	 * away under bound, then left out and counted in skipped */
	int (*known)(const struct lp_visit *lv, long i);
	struct ctx *x;
	long skipped;
};

/*
 * The candidates (lp set: GLPK's refinement of them) and placements one
 * search simulated, or whose simulated time it knows cannot beat the
 * best: search_exact_rest() does not simulate them again.
 */
struct sims {
	struct cand *c;
	int *place;
	long n, cap;
};

struct lb_memo {
	struct lb_table *lbs, own_lbs; /* the memo's, else own_lbs */
	/* exact_fits()'s verdicts: the memo's, else own's */
	struct lbfit_table *fits, own;
	/* search_exact_fits_rc()'s multipliers: the memo's, else own_phis; and
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

/* memo.c: the tables */
void search_link_cache_release(struct link_cache *k);
void search_rc_phis_release(struct rc_phis *t);
struct lentry *search_links_for(struct ctx *x, int rule, int w, int d, int t,
				int c, int ep, int etp);
void search_cand_list_release(struct cand_list *l);
void *search_slot_find(void **tab, size_t *n, size_t *cap, size_t sz,
		       size_t cap0, const struct cand *k, int *fresh);
struct time_entry *search_time_find(struct time_table *t, const struct cand *cd,
				    int place);
int search_time_links(struct time_table *t, struct time_entry *e,
		      const struct ctx *x, int d);
void part_table_release(struct part_table *t);
int search_cand_fits(struct ctx *x, const struct cost_opts *o,
		     const struct cand *cd, const struct cost_cfg *g,
		     double tb);

/* solve.c: one candidate's exact solve */
void search_cfg_of(struct ctx *x, const struct cand *cd, int place,
		   struct cost_cfg *g);
double search_solve(struct ctx *x, const struct cost_opts *o,
		    const struct cand *cd, int place, double bound,
		    struct plan_terms *terms);
int search_apply_lp_stage(struct ctx *x, const struct cost_cfg *g,
			  const struct lp_opts *lo, int s);
void lp_opts_of(const struct ctx *x, struct lp_opts *lo);
double search_apply_lp(struct ctx *x, const struct cand *cd, int place,
		       struct plan_terms *terms);
double search_simulate_stages(struct ctx *x, const struct cand *cd, int place,
			      struct plan_terms *terms);
double search_rescore(struct ctx *x, const struct cand *cd, int place,
		      const struct cost_cut *cut, int *floored);
double search_solve_best(struct ctx *x, const struct cost_opts *o,
			 const struct search_opts *so, const struct cand *cd,
			 double bound, int *place);

/* enumerate.c: the candidates and their bounds */
long search_enumerate(const struct search_chain *sc, int nsc,
		      const struct cluster *cl, const struct cost_opts *o,
		      const struct search_opts *so, int N, struct visit *vt,
		      long *screened, struct search_stats *stats);

/* order.c: best first */
void search_cand_sort_long(struct cand *h, long n, int plain);
const struct cand_list *search_cand_list_of(const struct search_chain *sc,
					    int nsc, const struct cluster *cl,
					    const struct cost_opts *o,
					    const struct search_opts *so, int N,
					    enum cand_kind kind);
const struct cand *search_pick_at(struct pick *pk, long i);
/* Whether an earlier search of the memo found pk's i-th candidate no
 * time under a bound of bound or more (capacity's sizes; memo.c),
 * and keeping that it found none under bound. */
int search_none_known(const struct pick *pk, long i, const struct cluster *cl,
		      double bound);
void search_none_keep(struct pick *pk, long i, const struct cluster *cl,
		      double bound);
long search_pick_next(struct pick *pk, const struct cand *after,
		      const struct search_chain *sc, int nsc,
		      const struct cluster *cl, const struct cost_opts *o,
		      const struct search_opts *so, int N, long *screened,
		      struct search_stats *stats);

/* explain.c: the plan and why */
double search_minmem_of(struct ctx *x, const struct search_chain *sc, int nsc,
			const struct cluster *cl, const struct cost_opts *o,
			const struct search_opts *so, int N, struct cand *arg);
void search_explain_binding(struct ctx *x, const struct search_opts *so,
			    const struct cand *v, long n, struct plan *p);
void search_fill_plan(struct ctx *x, const struct search_opts *so,
		      const struct cand *cd, int place, double sim_ms,
		      struct plan *p);

/* search.c: the driver, the top k and the contexts */
void search_insert_alt(const struct ctx *x, struct plan_alt *alts,
		       struct cand *ac, int *n, int k, const struct cand *cd,
		       int place, double iter);
void search_ctx_init(struct ctx *x, const struct search_chain *sc, int nsc,
		     const struct cluster *cl, const struct cost_opts *o,
		     const struct search_opts *so, struct search_stats *st);
void search_ctx_release(struct ctx *x);
void search_ctx_memo(struct ctx *x, struct search_memo *m, int i);
void search_sims_add(struct sims *sm, const struct cand *cd, int place);
int search_sims_has(const struct sims *sm, const struct cand *cd, int place);
void search_keep_sim(struct ctx *x, struct plan_alt *alts, struct cand *ac,
		     double *simt, int *nalt, int k, const struct cand *cd,
		     int place, double ts, int mixed);

/* crew.c: the solving threads */
void search_crew_start(struct crew *cw, struct ctx *x, int nthr);
long search_crew_size(const struct crew *cw);
void search_crew_round(struct crew *cw, const struct cand *v, long n,
		       double bound);
void search_crew_stop(struct crew *cw);

/* refine.c: GLPK beyond the lp_k best */
int lp_visit_group(struct visit *vt, double lo, double hi, long n);
void lp_collect(struct lp_visit *lv, const struct search_chain *sc, int nsc,
		const struct cluster *cl, const struct cost_opts *o,
		const struct search_opts *so, int N, enum cand_kind kind);
void search_refine_rest(struct ctx *x, const struct search_chain *sc, int nsc,
			const struct cluster *cl, const struct cost_opts *o,
			const struct search_opts *so, int N,
			struct plan_alt *alts, struct cand *ac, double *simt,
			int *nalt, int k, struct sims *sims);

/* exact.c: exactness against the simulation; search_exact_rest()'s bounds
 * (search_lb_memo_init() to search_exact_fits_rc()), which search_refine_rest()
 * asks too */
void search_lb_memo_init(struct lb_memo *mm, const struct search_opts *so,
			 const struct search_chain *sc, int nsc, int L);
void search_lb_memo_release(struct lb_memo *mm);
int search_exact_fits_rc(struct ctx *x, struct lb_memo *mm,
			 const struct cand *cd, double bound);
void search_exact_rest(struct ctx *x, const struct search_chain *sc, int nsc,
		       const struct cluster *cl, const struct cost_opts *o,
		       const struct search_opts *so, int N,
		       struct plan_alt *alts, struct cand *ac, double *simt,
		       int *nalt, int k, const struct sims *sims);

/* CPU time of the process: the search is single-threaded, and CPU time
 * does not count what other processes on a busy machine take. */
static inline double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* now_ms() for the time spent in GLPK (stats->lp_ms), 0 in a brief
 * search (capacity's sizes), which reports none: each reading of the
 * process's clock is a system call (2 us in a virtual machine), and
 * capacity's sweep took 5,400 of them. */
static inline double
lp_clock_ms(const struct ctx *x)
{
	return x->so->brief ? 0 : now_ms();
}

/* Table t (e, n, cap) of search_slot_find()'s emptied, its room kept (entries
 * that own nothing; one with no entry is empty already). */
#define TABLE_EMPTY(t)                                                   \
	do {                                                             \
		if ((t)->n)                                              \
			memset((t)->e, 0, (t)->cap * sizeof(*(t)->e));   \
		(t)->n = 0;                                              \
	} while (0)

static inline int
same_key(const struct cand *a, const struct cand *b)
{
	return a->sched == b->sched && a->w == b->w && a->d == b->d &&
	       a->k == b->k && a->r == b->r && a->m == b->m &&
	       a->ti == b->ti && a->v == b->v && a->zero == b->zero &&
	       a->shard == b->shard && a->offload == b->offload &&
	       a->lp == b->lp;
}

/* The entry of cd under lp in t (a fresh one, first NULL, when none). */
static inline struct part_entry *
part_find(struct part_table *t, const struct cand *cd, int lp)
{
	struct cand k = *cd;
	int fresh;

	k.lb = 0;
	k.lp = lp;
	return search_slot_find((void **)&t->e, &t->n, &t->cap,
				sizeof(struct part_entry), 256, &k, &fresh);
}

/* Recomputation of a whole configuration: uniform or mixed. */
static inline int
overall_rc(const struct ctx *x, int L)
{
	int j;

	for (j = 1; j < L; j++)
		if (x->rc[j] != x->rc[0])
			return PLAN_RC_MIXED;
	return x->rc[0];
}

/* Number of placements worth trying: they coincide when w or d is 1. */
static inline int
place_lo(const struct search_opts *so)
{
	return so->fix_place >= 0 ? so->fix_place : 0;
}

static inline int
place_hi(const struct search_opts *so, const struct cand *cd)
{
	if (so->fix_place >= 0)
		return so->fix_place;
	return cd->w == 1 || cd->d == 1 ? 0 : 1;
}

static inline int
fixed(int v, int want)
{
	return want <= 0 || v == want;
}

/*
 * A candidate's lower bound of its simulated time, whatever its
 * partition (cost_simulate_lb(); cand_lb() bounds its closed-form time
 * only, which unequal stages' simulation beats): all, the chain's
 * compute, maxl its slowest layer's.
 */
static inline double
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

/* The GPUs candidate cd takes: w d t c. */
static inline int
cand_gpus(const struct search_chain *sc, const struct cand *cd)
{
	int cp = sc[cd->ti].cp > 1 ? sc[cd->ti].cp : 1;

	return cd->w * cd->d * sc[cd->ti].t * cp;
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

static inline double
stages_peak(const struct plan_stage *st, int d)
{
	double m = 0;
	int s;

	for (s = 0; s < d; s++)
		if (st[s].mem_bytes > m)
			m = (double)st[s].mem_bytes;
	return m;
}

static inline char *fmt(const char *f, ...) PD2BW_PRINTF(1, 2);

static inline char *
fmt(const char *f, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, sizeof(buf), f, ap);
	va_end(ap);
	return xstrdup(buf);
}

#endif /* PD2BW_SEARCH_INT_H */
