/*
 * plan.h - a training plan (format pd2bw-plan/1, /2 above 131,072
 * ranks): what pd2bw-plan chose and predicts, in a form any runtime can
 * consume.  libpd2bw reads and writes it; a runtime links libpd2bw to
 * load a plan and ask which stage a rank runs.
 */
#ifndef PD2BW_PLAN_H
#define PD2BW_PLAN_H

#include <stddef.h>
#include <stdint.h>

enum plan_sched { PLAN_2BW, PLAN_FLUSH, PLAN_GPIPE, PLAN_NONE, PLAN_NSCHED };
extern const char *const plan_sched_names[];

/* Recomputation of a plan, a stage or an alternative: a prof_rc value, or
 * PLAN_RC_MIXED when layers differ (see layer_recompute). */
#define PLAN_RC_MIXED 3
extern const char *const plan_rc_names[]; /* none ... mixed, NULL */

/*
 * The optimizer the runtime steps with.  Adam keeps two fp32 moments
 * beside the fp32 master weights (12 bytes a parameter).  Muon (Megatron-
 * Core's TensorParallelMuon, megatron/core/optimizer/emerging_optimizers.
 * py) keeps one momentum for the 2-D matrices of the blocks (4 bytes
 * less) and orthogonalises each matrix's update by Newton-Schulz
 * iterations at every step; the embedding, the output layer and the 1-D
 * parameters stay with Adam (_is_nonlinear_or_embedding).
 */
enum plan_optimizer { PLAN_ADAM, PLAN_MUON, PLAN_NOPTIMIZER };
extern const char *const plan_optimizer_names[];

enum plan_place { PLAN_STAGES_IN_NODE, PLAN_REPLICAS_IN_NODE };
extern const char *const plan_place_names[];

enum plan_bind {
	PLAN_BIND_COMPUTE,
	PLAN_BIND_P2P,
	PLAN_BIND_ALLREDUCE,
	PLAN_BIND_MEMORY,
	PLAN_BIND_HOST
};
extern const char *const plan_bind_names[];

/* Per-iteration time of one pipeline, split by cause (ms). */
struct plan_terms {
	double compute_ms;   /* forward + backward of the slowest stage */
	double recompute_ms; /* extra forward passes */
	double tp_ms;        /* tensor-parallel all-reduces */
	double p2p_ms;       /* inter-stage activation/gradient transfers */
	double allreduce_ms; /* exposed data-parallel synchronisation */
	double bubble_ms;    /* pipeline fill and drain (flush, gpipe) */
	double host_ms;      /* host and launch costs left on the GPU */
	double cp_ms;        /* context parallelism's exposed K/V ring */
	double ep_ms;        /* expert parallelism's all-to-alls */
	double optimizer_ms; /* the optimizer step after the last backward */
	double fsdp_ms;      /* FSDP / ZeRO-2/3 gathers and reductions */
	double offload_ms;   /* activation offload copies */
};

struct plan_stage {
	int first, last;        /* chain layers [first, last], 0-based */
	int recompute;          /* enum prof_rc */
	int in_flight;          /* microbatches whose stashes are kept */
	int64_t params;
	double compute_ms;      /* fwd + bwd per microbatch */
	double fwd_ms;          /* of which the forward */
	double recompute_ms;    /* per microbatch */
	double tp_ms;           /* tensor-parallel all-reduces, per microbatch */
	double p2p_ms;          /* per microbatch, both boundaries */
	double allreduce_ms;    /* per update: all-reduce, or with optimizer
				   sharding reduce-scatter, of the gradients */
	double gather_ms;       /* per update: all-gather of the sharded
				   weights (0 without sharding) */
	double optimizer_ms;    /* per update: the optimizer step */
	double sync_sm_ms;      /* per update: what the data-parallel
				   collectives compute hides cost it, by the
				   SMs they hold meanwhile */
	double host_ms;         /* per microbatch: host and launch costs the
				   GPU waits for */
	double cp_ms;           /* per microbatch: the context-parallel K/V
				   ring its attention does not hide */
	double ep_ms;           /* per microbatch: the expert-parallel
				   all-to-alls */
	double fsdp_ms;         /* per microbatch: the FSDP / ZeRO-2/3
				   gathers and reduce-scatters compute does
				   not hide */
	double offload_ms;      /* per microbatch: activation offload copies
				   compute does not hide */
	double in_gb_s;         /* link to the previous stage; 0 for first */
	double ring_gb_s;       /* bottleneck of its replicas' ring; 0 if w=1 */
	int64_t weight_bytes;   /* weights (+ 2BW's second version) */
	int64_t state_bytes;    /* gradients + optimizer state */
	int64_t stash_bytes;    /* activations kept for backward */
	int64_t work_bytes;     /* transient workspace */
	int64_t runtime_bytes;  /* CUDA context, NCCL and cuBLAS buffers,
				   allocator margin */
	int64_t mem_bytes;      /* total per GPU */
};

struct plan_rank {
	int node, gpu;          /* where global rank r runs */
	int stage, replica;
	int tp;                 /* rank inside its tensor-parallel group */
	int cp;                 /* rank inside its context-parallel group */
};

/* One evaluated configuration (the chosen one is alts[0]). */
struct plan_alt {
	int sched, w, d, b, m, recompute, place;
	int t, sp, v, zero;     /* as in struct plan */
	int shard, offload;     /* as in struct plan */
	int c;                  /* context-parallel degree (0 read as 1) */
	int e;                  /* expert-parallel degree (0 read as 1) */
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
	int t;                  /* tensor-parallel degree */
	int c;                  /* context-parallel degree: each rank of a
				   group of c holds 1/c of every sequence
				   (0 in plans that predate it: read as 1) */
	int e;                  /* expert-parallel degree: the routed experts
				   of each MoE layer split over groups of e
				   data x context-parallel ranks (1: none) */
	int etp;                /* expert tensor parallelism, 1 or t (0 in
				   plans that predate it: t) */
	double moe_imbalance;   /* the busiest GPU's expert rows over the
				   balanced share priced (0 in plans that
				   predate it: 1) */
	double capacity_factor; /* each expert's rows padded to this multiple
				   of its share, the model's or
				   --capacity-factor (0: none priced from
				   the model) */
	double moe_rank_capacity; /* each GPU's expert rows held to this
				     multiple of its share in static
				     buffers (--moe-rank-capacity; 0:
				     none) */
	int sp;                 /* sequence parallelism (with t > 1) */
	int v;                  /* interleaved virtual stages per GPU */
	int zero;               /* ZeRO stage 0-3 (1: optimizer state sharded
				   over the replicas, 2: gradients too, 3:
				   parameters too, FSDP) */
	int shard;              /* HSDP: shard groups of this many replicas
				   (0: all replicas, full sharding) */
	int offload;            /* activations offloaded to host memory */
	int offload_blocks;     /* ... of the model's first this many
				   transformer blocks (0: of every layer
				   but the stage's last) */
	int place;              /* enum plan_place */
	char *place_reason;
	char *runtime;          /* what runs it: "NAME[:OPT,...]" (owned) */
	char *pipeline_layout;  /* the Megatron layout string it was planned
				   with (--pipeline-layout; owned), or NULL */
	/* How a model's estimate ran its kernels (owned; NULL when the plan
	 * does not say: a profile's own, or an older plan): the precision
	 * trained ("bf16", "fp8", ...), the FP8 recipe and the fusions. */
	char *precision, *fp8_recipe, *fusions;
	/* the sequence a model was estimated at when not its file's own
	 * (--seq-len), else 0 */
	int64_t seq_len;
	int64_t doc_len;  /* packed documents' tokens (the model's doc_len;
			     0: one document a sequence) */
	int lora_rank;    /* LoRA adapters' rank (--lora); 0: full training */
	int bf16_first,   /* a quantised model's blocks kept in 16 bits at */
	    bf16_last;    /* the start and at the end (--bf16-layers) */
	char *module_precision; /* its linears' precisions by kind,
				   "SITE=P,..." (--module-precision;
				   owned), NULL: the model's */
	char *lora_targets; /* the linears they train on (--lora-targets;
			       owned), NULL: all four */
	double trainable; /* the parameters trained over the model's (LoRA's
			     adapters); 0: all */
	/* memory figures given in place of the defaults, -1 where not:
	 * bytes per parameter of the weights, gradients, optimizer state
	 * and 2BW's second version (--weight-bytes, ...), the runtime's
	 * context in GiB (--context-memory) and its fragmentation share
	 * (--fragmentation) */
	double weight_bytes, grad_bytes, opt_bytes, version_bytes;
	double context_gib, frag;
	/* the attention kernel when not the GPU's own ("fa2"), else NULL */
	char *attention;
	/* what selective recomputation recomputed, a comma list of
	 * analytic_rc_module_names; NULL: core_attn alone */
	char *recompute_modules;
	int optimizer;          /* enum plan_optimizer (the key is written
				   when not Adam) */

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
	int *layer_rc;          /* [nlayers] enum prof_rc of every layer */
	char *lp_status;        /* GLPK's per-layer choice: "not run",
				   "optimal", "feasible", ... (owned) */
	int nstages;
	struct plan_stage *stages;
	int nranks;
	struct plan_rank *ranks;
	int nalts;
	struct plan_alt *alts;
};

void plan_init(struct plan *p);
void plan_release(struct plan *p);

/*
 * Plans list every rank up to this many (format pd2bw-plan/1, whatever
 * their size); above it a rule numbers them instead (pd2bw-plan/2): a
 * listed 1,048,576-rank plan is 72 MB, and libyaml needs 2.5 GB and 40 s
 * to read it back.
 */
#define PLAN_MAX_LISTED_RANKS 131072

/*
 * Number p->w x p->d x p->t x p->c ranks as the placement p->place lays
 * them out, into p->ranks (allocated here, replacing what was there;
 * plan_release frees it): rank g has tensor-parallel rank g mod t, then
 * the context-parallel rank, then the stage and replica, stage first
 * under stages-in-node and replica first under replicas-in-node; it runs
 * on node g / gpn, GPU g mod gpn.
 */
void plan_ranks_fill(struct plan *p, int gpn);
/*
 * The gpn for which plan_ranks_fill() gives exactly p->ranks, or 0 when
 * the ranks follow no such rule (a hand-edited plan, for one).
 */
int plan_ranks_rule(const struct plan *p);

/*
 * Write atomically ("-" = stdout): as pd2bw-plan/1, or pd2bw-plan/2 when
 * the plan has more than PLAN_MAX_LISTED_RANKS ranks that follow
 * plan_ranks_fill()'s rule.  0 or -1.
 */
int plan_write(const struct plan *p, const char *path);
/* Read pd2bw-plan/1 or /2. 0 or -1 (file:line:col message). */
int plan_load(struct plan *p, const char *path);
int plan_load_string(struct plan *p, const char *name, const char *buf,
		     size_t len);

/* Stage that global rank r runs, or -1 when r is not in the plan. */
int plan_stage_of_rank(const struct plan *p, int r);

/*
 * Standard 64-bit FNV-1a (offset basis 0xcbf29ce484222325, prime
 * 0x100000001b3) of buf[0..len) as 16 lowercase hex digits into out[17];
 * "a" gives af63dc4c8601ec8c.
 */
void plan_hash_bytes(const char *buf, size_t len, char out[17]);
/*
 * The same of the bytes of path, read with infile_read() (so, under
 * infile_keep(1), the very bytes a reader parsed).  0 or -1 after a
 * message.
 */
int plan_hash_file(const char *path, char out[17]);

/*
 * Queries a runtime makes of a loaded plan (lib/plan_query.c); p is
 * only read.  Only plan_ranks_of_stage() allocates (w + 1 ints while it
 * runs, through xcalloc).
 */

/*
 * Chain layers of stage s: *first and *last (0-based, inclusive, indices
 * into p->layer_names).  Returns 0, or -1 when s is not a stage of p (then
 * *first and *last are left alone).
 */
int plan_layers_of_stage(const struct plan *p, int s, int *first, int *last);

/*
 * Global ranks that run stage s, in increasing replica order, written to
 * out[0..n-1] (out may be NULL when n is 0).  Returns how many ranks run
 * the stage (p->w for a valid plan), which may exceed n: only the first n
 * are written.  Returns -1 when s is not a stage of p.
 */
int plan_ranks_of_stage(const struct plan *p, int s, int *out, int n);

/* Data-parallel replica of global rank r (0..w-1), or -1. */
int plan_replica_of_rank(const struct plan *p, int r);

/*
 * The rank Megatron-LM and DeepSpeed give the process that runs rank r's
 * stage and replica: stage x w + replica (pipeline-major, tensor parallel
 * 1), or -1 when r is not in the plan.  It differs from r (the plan's
 * global GPU number, node x gpus_per_node + gpu) whenever a node holds
 * several stages of one replica; the launch script maps one to the other.
 */
int plan_runtime_rank(const struct plan *p, int r);

enum plan_op_kind { PLAN_OP_FORWARD, PLAN_OP_BACKWARD, PLAN_OP_RECOMPUTE };
extern const char *const plan_op_names[]; /* "F", "B", "R" */

/* One operation of a stage's schedule: kind on microbatch mb. */
struct plan_op {
	int kind; /* enum plan_op_kind */
	int mb;
};

/*
 * The operations stage s runs in one iteration (one weight update), in
 * order, written to out[0..n-1].  Returns their number (which may exceed
 * n: only the first n are written), or -1 when s is not a stage of p.
 * Microbatches are numbered 0..m-1 within the update, m = p->m; d = p->d.
 *
 * - gpipe: F 0, F 1, ..., F m-1, then B 0, B 1, ..., B m-1.
 * - flush (1F1B, PipeDream-Flush) and none (d = 1): k = min(d-s-1, m)
 *   warm-up forwards F 0..F k-1; then for j = 0..m-k-1 the pair
 *   F k+j, B j; then the cool-down B m-k..B m-1.  Every backward of the
 *   update ends before the next update's first forward.
 * - 2bw: the steady state, with no flush: with k = d-s-1, for j =
 *   0..m-1 the pair F j+k, B j.  Forward indices j+k >= m are
 *   microbatches j+k-m of the next update (run with the next weight
 *   version).  The very first update starts with the warm-up forwards
 *   F 0..F k-1, which this list does not repeat.
 *
 * When stage s recomputes fully (its recompute is full), every B i is
 * preceded by R i, the forward redone to rebuild its activations.
 * Selective recomputation happens inside the backward and adds no op.
 */
int plan_stage_schedule(const struct plan *p, int s, struct plan_op *out,
			int n);

/* plan_stage_schedule() of the stage global rank r runs; -1 if none. */
int plan_schedule(const struct plan *p, int r, struct plan_op *out, int n);

#endif
