/*
 * plan.h - a training plan (format pd2bw-plan/1): what pd2bw-plan chose and
 * predicts, in a form any runtime can consume.  libpd2bw reads and writes it;
 * a runtime links libpd2bw to load a plan and ask which stage a rank runs.
 */
#ifndef PD2BW_PLAN_H
#define PD2BW_PLAN_H

#include <stddef.h>
#include <stdint.h>

enum plan_sched { PLAN_2BW, PLAN_FLUSH, PLAN_GPIPE, PLAN_NONE, PLAN_NSCHED };
extern const char *const plan_sched_names[];

enum plan_place { PLAN_STAGES_IN_NODE, PLAN_REPLICAS_IN_NODE };
extern const char *const plan_place_names[];

enum plan_bind {
	PLAN_BIND_COMPUTE,
	PLAN_BIND_P2P,
	PLAN_BIND_ALLREDUCE,
	PLAN_BIND_MEMORY
};
extern const char *const plan_bind_names[];

/* Per-iteration time of one pipeline, split by cause (ms). */
struct plan_terms {
	double compute_ms;   /* forward + backward of the slowest stage */
	double recompute_ms; /* extra forward passes */
	double p2p_ms;       /* inter-stage activation/gradient transfers */
	double allreduce_ms; /* exposed data-parallel gradient all-reduce */
	double bubble_ms;    /* pipeline fill and drain (flush, gpipe) */
};

struct plan_stage {
	int first, last;        /* chain layers [first, last], 0-based */
	int recompute;          /* enum prof_rc */
	int in_flight;          /* microbatches whose stashes are kept */
	int64_t params;
	double compute_ms;      /* fwd + bwd per microbatch */
	double recompute_ms;    /* per microbatch */
	double p2p_ms;          /* per microbatch, both boundaries */
	double allreduce_ms;    /* per update */
	double in_gb_s;         /* link to the previous stage; 0 for first */
	double ring_gb_s;       /* bottleneck of its replicas' ring; 0 if w=1 */
	int64_t weight_bytes;   /* weights (+ 2BW's second version) */
	int64_t state_bytes;    /* gradients + optimizer state */
	int64_t stash_bytes;    /* activations kept for backward */
	int64_t work_bytes;     /* transient workspace */
	int64_t mem_bytes;      /* total per GPU */
};

struct plan_rank {
	int node, gpu;          /* where global rank r runs */
	int stage, replica;
};

/* One evaluated configuration (the chosen one is alts[0]). */
struct plan_alt {
	int sched, w, d, b, m, recompute, place;
	double iter_ms;
	double samples_s;
	int64_t mem_bytes;      /* peak over stages */
};

struct plan {
	char *model;            /* owned strings */
	char *gpu;
	char *profile;          /* input names and FNV-1a content hashes */
	char *profile_hash;
	char *cluster;
	char *cluster_hash;
	int nodes, gpus_per_node;
	int64_t gpu_mem_bytes;
	int64_t reserve_bytes;

	int sched;              /* enum plan_sched */
	int w, d, b, m;
	int64_t global_batch;
	int recompute;          /* enum prof_rc, all stages */
	int place;              /* enum plan_place */
	char *place_reason;

	double iter_ms;
	double samples_s;
	double tflops_per_gpu;  /* model FLOPs (3x forward), per GPU used */
	double bubble_frac;
	int bind;               /* enum plan_bind */
	char *bind_reason;
	int64_t peak_mem_bytes;
	struct plan_terms terms;

	int nlayers;            /* chain length */
	char **layer_names;     /* [nlayers] */
	int nstages;
	struct plan_stage *stages;
	int nranks;
	struct plan_rank *ranks;
	int nalts;
	struct plan_alt *alts;
};

void plan_init(struct plan *p);
void plan_release(struct plan *p);

/* Write atomically as pd2bw-plan/1 ("-" = stdout). 0 or -1. */
int plan_write(const struct plan *p, const char *path);
/* Read pd2bw-plan/1. 0 or -1 (file:line:col message). */
int plan_load(struct plan *p, const char *path);
int plan_load_string(struct plan *p, const char *name, const char *buf,
		     size_t len);

/* Stage that global rank r runs, or -1 when r is not in the plan. */
int plan_stage_of_rank(const struct plan *p, int r);

/* 64-bit FNV-1a of a file's bytes as 16 hex digits into out[17]. 0 or -1. */
int plan_hash_file(const char *path, char out[17]);

#endif
