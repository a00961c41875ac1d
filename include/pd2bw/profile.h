/*
 * profile.h - per-layer profile of a model on one GPU type (format
 * pd2bw-profile/1): a chain of layers, each measured or estimated at
 * several microbatch sizes.  Written by pd2bw-profile (cuda, cpu, analytic
 * backends) or imported from PipeDream graph.txt; read by pd2bw-plan.
 */
#ifndef PD2BW_PROFILE_H
#define PD2BW_PROFILE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The most layers a profile may have after expanding 'repeat' (a model:
 * MODEL_MAX_LAYERS transformer layers; a PipeDream graph: nodes).  The
 * planner's search takes time quadratic in layers (1,000 layers on 512
 * GPUs: about 13 s), so the readers refuse more, at once.
 */
#define PROFILE_MAX_LAYERS 1024

enum prof_kind { PROF_EMBED, PROF_BLOCK, PROF_HEAD, PROF_OTHER };
extern const char *const prof_kind_names[];

/* Recomputation options, in order of increasing savings. */
enum prof_rc { PROF_RC_NONE, PROF_RC_SELECTIVE, PROF_RC_FULL, PROF_RC_N };
extern const char *const prof_rc_names[];

/* One layer at one microbatch size. */
struct prof_point {
	double fwd_ms;                  /* forward time */
	double bwd_ms;                  /* backward time (no recomputation) */
	double recomp_ms[PROF_RC_N];    /* extra forward time when recomputing:
					   0, attention core, whole forward */
	int64_t out_bytes;              /* boundary activation to next layer */
	int64_t stash_bytes[PROF_RC_N]; /* kept from forward to backward */
	int64_t work_bytes;             /* transient peak during fwd/bwd */
	double fwd_flops;               /* forward FLOPs; 0 when unknown */
	double kernels;                 /* kernels forward + backward launch
					   (what the host issues); 0 when
					   unknown or already in the times */
	double fwd_kernels;             /* of kernels, those the forward
					   launches; 0 when unknown */
	/* In memory only (never written): what the planner prices against
	 * its links for an analytic profile under context parallelism. */
	double cp_kv_bytes;             /* K and V one rank sends per ring
					   step */
	double attn_fwd_ms, attn_bwd_ms; /* the attention core's passes
					   that the ring steps overlap */
	double ep_a2a_bytes;            /* under expert parallelism: one
					   all-to-all's send buffer per GPU
					   (4 per MoE block, forward and
					   backward) */
	double ep_shared_fwd_ms;        /* ... and the shared experts'
					   forward (torchtitan runs it
					   beside the combine) */
	double ep_pre_fwd_ms, ep_pre_bwd_ms; /* ... and what runs before the
					   dispatch (attention, norms), each
					   way: Megatron's EP overlap hides
					   a combine behind each */
	double graph_fwd_kernels,       /* a MoE block: the kernels of its */
	       graph_bwd_kernels;       /* forward up to the dispatch (the
					   attention, the router, the
					   preprocessing) and of their
					   backward: what Transformer
					   Engine's graphs of them replay */
	unsigned sel_rerun;             /* the collectives a recomputation
					   runs again or leaves out
					   (torchtitan's per-op policy, an
					   early stop): PROF_RERUN_* bits */
};

/* prof_point sel_rerun: the forward's sequence-parallel all-gathers
 * (half its tensor-parallel traffic), the expert all-to-alls, which a
 * selective recomputation runs again; the tensor-parallel reduction
 * after the MLP, which a full recomputation that stops early leaves
 * out: a reduce-scatter under sequence parallelism (half an all-
 * reduce), else an all-reduce. */
#define PROF_RERUN_TP_GATHER 1u
#define PROF_RERUN_EP_A2A 2u
#define PROF_RERUN_EARLY_RS 4u
#define PROF_RERUN_EARLY_AR 8u

struct prof_layer {
	char *name;             /* owned */
	int kind;               /* enum prof_kind */
	int repeat;             /* consecutive identical copies (>= 1) */
	int sublayers;          /* a block's residual sublayers, each
				   with its tensor-parallel pair of
				   collectives: 0 (2, attention and MLP)
				   or 1 (a hybrid model's layer) */
	int64_t params;         /* parameters of one copy */
	int64_t expert_params;  /* of which routed experts' (in memory only:
				   reduced over expert data parallelism) */
	/* In memory only (0 in a profile file): the FLOPs per optimizer
	 * step of the Newton-Schulz iterations Muon runs on one copy's
	 * matrices, each whole (every tensor-parallel rank runs them on
	 * the gathered matrix), and of them the routed experts' the GPU
	 * holds; 0 for a layer Muon does not manage (the embedding, the
	 * head). */
	double ns_flops, ns_expert_flops;
	int64_t muon_params;    /* in memory only: of params, those in the
				   matrices Muon manages */
	int bf16;               /* in memory only: a block of a quantised
				   model kept in 16 bits (--bf16-layers):
				   no quantised weight copies, 16-bit
				   tensor-parallel traffic */
	int64_t params16;       /* in memory only: of muon_params, those a
				   quantised model holds in 16 bits without
				   quantised copies (a --bf16-layers block's
				   all, or the linears --module-precision
				   keeps in 16 bits) */
	double tp_bytes;        /* in memory only: a block's tensor-parallel
				   bytes against 16-bit ones where its own
				   (--module-precision), else 0: the
				   profile's tp_block_bytes */
	int64_t outside16;      /* in memory only: of params, those outside
				   muon_params a quantised model holds in 16
				   bits (the embedding; the head's norm and
				   vocabulary matrix, unless its GEMM runs
				   FP8) */
	struct prof_point *pt;  /* [nmb], owned */
};

/*
 * How a MoE layer's tokens choose their experts (struct model_moe's
 * experts, top_k, groups and group_top_k), for the traffic pattern of
 * the expert-parallel all-to-all; all 0 when unknown (a profile file).
 */
struct moe_route {
	int64_t experts, top_k, groups, group_top_k;
	double capacity; /* the capacity factor the experts' rows are padded
			    to, a fixed E x C a rank (0: dropless, the rows
			    as routed) */
	double rank_capacity; /* HybridEP's per-rank budget (struct
				 analytic_par), static buffers: 0 none */
};

struct profile {
	char *model;             /* model name (owned) */
	char *device;            /* GPU name, e.g. "H100-SXM" (owned) */
	char *backend;           /* cuda | cpu | analytic | pipedream (owned) */
	char *versions;          /* free text: driver, CUDA, ... (owned; may be
				    NULL) */
	int64_t device_mem_bytes;
	char *precision;         /* bf16 | fp16 | fp32 (owned) */
	int tp;                  /* tensor-parallel degree of these shapes */
	int cp;                  /* context-parallel degree (0 or 1: none;
				    in memory only, never written) */
	int ep;                  /* expert-parallel degree (likewise) */
	int etp;                 /* expert tensor parallelism: 1 or tp */
	struct moe_route route;  /* in memory only, like ep */
	double tp_block_bytes;   /* a block's tensor-parallel bytes against
				    16-bit activations (in memory only,
				    default 1): 0.75 for FP8 blocks under
				    sequence parallelism, whose all-gathers
				    move FP8 and reduce-scatters 16-bit */
	double tp_block_hidden;  /* of a block's backward tensor-parallel
				    traffic, the all-reduces' worth its
				    weight-gradient GEMMs hide (in memory
				    only, default 0; analytic.c) */
	int64_t seq_len, hidden; /* 0 when unknown (PipeDream) */
	int lora_rank;           /* LoRA adapters' rank it was estimated
				    with (0: full training) */
	double trainable;        /* the parameters trained over the model's
				    (LoRA: its adapters'; 0: all of them) */
	int64_t doc_len;         /* the packed documents' tokens its
				    attention ran within (the model's
				    doc_len); 0: whole sequences */
	/* Bytes per parameter of training state (design.md section 9). */
	double weight_bytes;     /* 16-bit weights: 2 */
	double grad_bytes;       /* gradients: 2 (4 if kept in fp32) */
	double optimizer_bytes;  /* fp32 master + Adam m, v: 12 */
	double version_bytes;    /* 2BW's second weight version: 4 */
	int nmb;
	int *mb;                 /* [nmb] microbatch sizes, increasing */
	int nlayers;
	struct prof_layer *layers; /* [nlayers] */
};

/* Zero p and set the default bytes per parameter. */
void profile_init(struct profile *p);
void profile_release(struct profile *p);
/* Allocate p->mb and p->layers (with zeroed points) for the given sizes. */
void profile_alloc(struct profile *p, int nmb, int nlayers);

/* Read pd2bw-profile/1, or a PipeDream graph.txt (by content). 0 or -1. */
int profile_load(struct profile *p, const char *path);
int profile_load_string(struct profile *p, const char *name, const char *buf,
			size_t len);
/* Write atomically ("-" = stdout). 0 or -1. */
int profile_write(const struct profile *p, const char *path);

/* Index of microbatch size b in p->mb, or -1. */
int profile_mb_index(const struct profile *p, int b);
/* Layers after expanding repeats. */
int profile_chain_len(const struct profile *p);
/* Its transformer blocks, repeats counted. */
int profile_blocks(const struct profile *p);
/* Whether p gives Muon's Newton-Schulz FLOPs (a model's estimate). */
int profile_ns(const struct profile *p);
/* Total parameters after expanding repeats. */
int64_t profile_params(const struct profile *p);

#endif
