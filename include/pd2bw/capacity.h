/*
 * capacity.h - capacity planning: how many GPUs, of which type, to train a
 * model on a number of tokens, by planning every cluster size of a sweep.
 *
 * The caller fills a struct capacity with its GPU types and their rows'
 * node counts (capacity_sizes), plans each type with the chains of its
 * model (capacity_plan_type), then derives time to train, GPU-hours, cost
 * and the choices (capacity_summarise).  pd2bw-plan capacity is this
 * plus its options and report (planner/capacity.c, capacity_out.c).
 */
#ifndef PD2BW_CAPACITY_H
#define PD2BW_CAPACITY_H

#include <stdint.h>

#include "pd2bw/chain.h"
#include "pd2bw/cluster.h"
#include "pd2bw/cost.h"
#include "pd2bw/search.h"

/* One cluster size of one GPU type. */
/* A size's first best-first pick, in candidates: a size solves a few
 * hundred (2,473 at most in bench/capacity.sh), and a smaller pick sets
 * its cut sooner, which turns whole groups of candidates away. */
#define CAPACITY_PICK_FIRST 2048

struct capacity_row {
	int nodes, gpus;           /* gpus = nodes x GPUs per node */
	int fits;                  /* the planner found a configuration */
	/* The best configuration (when fits). */
	int sched, w, d, t, sp, b, m, recompute, place;
	int c, e, v;               /* context-, expert-parallel degree,
				      interleaving (1: none) */
	int zero, shard, offload;  /* ZeRO stage, HSDP shard group (0:
				      all), activations offloaded */
	double iter_ms, samples_s, tflops_per_gpu;
	int64_t peak_mem_bytes;
	/* Derived by capacity_row_finish (0 when it does not fit). */
	double tokens_s;           /* samples/s x sequence length */
	double train_days;         /* tokens / tokens_s */
	double gpu_hours;          /* gpus x time to train (the whole cluster
				      is paid for, used or not) */
	double cost_usd;           /* gpu_hours x price; < 0 without price */
	double efficiency;         /* (samples/s per GPU) / (that of the type's
				      smallest fitting size); 0 if no fit */
	int meets_deadline;        /* fits and train_days <= deadline */
	char *why;                 /* no fit: the planner's reason (owned) */
};

struct capacity_type {
	char *gpu;                 /* GPU type, canonical name (owned) */
	char *node;                /* preset or cluster file (owned) */
	char *profile;             /* measured profile, or NULL (owned) */
	int gpus_per_node;
	int64_t gpu_mem_bytes;
	double usd_per_gpu_hour;   /* < 0: no price given */
	int nrows;
	struct capacity_row *rows; /* increasing size (owned) */
	/* Row indices, -1 when there is none. */
	int smallest;              /* fewest GPUs that fit */
	int fastest;               /* highest throughput (fewest GPUs on a
				      tie): beyond it more GPUs do not help */
	int efficient;             /* most GPUs still >= the efficiency
				      threshold */
	int cheapest;              /* lowest cost (GPU-hours without a price)
				      among those meeting the deadline */
	char *hint;                /* no size fits: which options make the
				      largest fit ("--zero all makes 128
				      nodes fit"), or that none does; else
				      NULL (owned) */
};

struct capacity {
	char *model;               /* owned */
	double tokens;             /* tokens to train on */
	int64_t seq_len;           /* tokens per sample */
	int64_t doc_len;           /* packed documents' tokens (0: none) */
	int lora_rank;             /* LoRA adapters' rank (0: full training) */
	int64_t batch;             /* global batch, samples */
	double deadline_days;      /* <= 0: none */
	double eff_threshold;      /* fraction, e.g. 0.5 */
	int ntypes;
	struct capacity_type *types; /* owned */
	/* Over all types: type and row indices, -1 when none. */
	int small_t, small_r;      /* fewest GPUs that fit */
	int fast_t, fast_r;        /* shortest time to train */
	int cheap_t, cheap_r;      /* cheapest meeting the deadline */
	int cheap_by_hours;        /* no type has a price: fewest GPU-hours */
};

/* Zero c (all indices -1, threshold 0.5). */
void capacity_init(struct capacity *c);
/* Free what c owns. */
void capacity_release(struct capacity *c);
/* Append a type with the given names (copied); returns it, zeroed.  It
 * moves c->types: earlier pointers into it are then stale. */
struct capacity_type *capacity_add_type(struct capacity *c, const char *gpu,
					const char *node);

/*
 * Node counts to sweep: every count 1..max_nodes when max_nodes <= steps,
 * else steps counts from 1 to max_nodes, spaced geometrically and each
 * at least one more than the one before (so consecutive at the low end).
 * out must hold min(max_nodes, steps) entries; returns that number.
 */
int capacity_sizes(int max_nodes, int steps, int *out);

/*
 * Plan t's rows (nodes set, gpus filled here) on the node shape cl (its
 * node count is changed) with the chains sc[0..nsc) (one per
 * tensor-parallel shape, as search_run_tp takes them), the search
 * options so (batch, spaces, runtimes) and the sweep's own on top: each
 * size keeps its best configuration alone (topk 1, brief), GLPK refines
 * that one's recomputation per layer (lp_k 1), and the best-first pick
 * starts at CAPACITY_PICK_FIRST candidates unless so sets pick_first
 * (the same plans: it only sets the pick's cut sooner).  so->memo, when
 * the caller keeps one for these chains and options (search_memo_new()),
 * is shared by the sizes, its candidates listed once for the largest.
 * The search's messages for sizes that do not fit are kept in row->why,
 * not printed.  Returns 0, or -1 on an error.
 */
int capacity_plan_type(struct capacity_type *t, const struct search_chain *sc,
		       int nsc, struct cluster *cl, const struct cost_opts *co,
		       const struct search_opts *so);

/* Time to train, GPU-hours, cost and the deadline of one row. */
void capacity_row_finish(const struct capacity *c,
			 const struct capacity_type *t,
			 struct capacity_row *r);

/* Finish every row, then efficiency and the choices per type and over
 * all types. */
void capacity_summarise(struct capacity *c);

#endif
