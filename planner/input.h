/*
 * input.h - turn the planner's input file into a profile: a pd2bw profile
 * or PipeDream graph.txt as it is, a model (YAML or Hugging Face
 * config.json) through the analytic estimator for a catalogued GPU.
 */
#ifndef PD2BW_INPUT_H
#define PD2BW_INPUT_H

#include "pd2bw/chain.h"
#include "pd2bw/cost.h"
#include "pd2bw/model.h"
#include "pd2bw/runtime.h"
#include "pd2bw/catalog.h"
#include "pd2bw/kernels.h"
#include "pd2bw/plan.h"
#include "pd2bw/profile.h"
#include "pd2bw/search.h"

/*
 * Load path into p (profile_init'ed).  For a model, gpu names the catalog
 * entry (gpu_at, when not NULL, where a file named it: the place an
 * unknown name is reported), mb[0..nmb) the microbatch sizes to estimate
 * (nmb 0: defaults)
 * and seq_len > 0 the sequence length to train at instead of the model's
 * (a Hugging Face config gives the longest it supports).
 * *is_model tells which it was.  Returns 0 or -1.
 */
int input_load(struct profile *p, const char *path,
	       const struct gpu_catalog *cat, const char *gpu,
	       const char *gpu_at, const int *mb, int nmb, int64_t seq_len,
	       int *is_model);

/*
 * The file a PROFILE|MODEL argument names (pd2bw_resolve_model): a
 * Hugging Face model directory's config.json, the path itself when it
 * exists or contains '/', else a zoo model by name (models/NAME.yaml in
 * the current directory, in the checkout of an uninstalled build, then
 * the installed share/pd2bw/models/NAME.yaml).  Returns path or buf, or
 * NULL, the error reported, for a name no zoo holds.
 */
const char *input_resolve(const char *path, char *buf, size_t n);

/*
 * Plan GPUs of type g on cl's nodes.  When cl holds another type (a
 * preset or a cluster file for other GPUs), g's memory and intra-node
 * links come from the catalog (NVLink as all-to-all at its per-GPU rate,
 * or PCIe when g has none) and cl->gpu becomes g's name; the node shape
 * and the network stay, and a warning naming where (the cluster spec)
 * says all of that.  g NULL: nothing.  Returns 1 when cl changed, else 0.
 */
int input_gpu_on_nodes(struct cluster *cl, const struct gpu_catalog *cat,
		       const struct gpu_spec *g, const char *where);

/*
 * Warn when the measured profile p (read from path) comes from another
 * device than the GPU type gpu planned for, naming both and how to get
 * figures for gpu.  A profile without a device name passes.  Returns 1
 * when it warned, else 0.
 */
int input_check_device(const struct profile *p, const char *path,
		       const struct gpu_catalog *cat, const char *gpu);

#define INPUT_MAX_CHAINS 128
#define INPUT_MAX_SKIPS 8

/* A model's chains at several tensor-parallel shapes, for the search. */
struct input_chains {
	struct profile prof[INPUT_MAX_CHAINS];
	struct chain ch[INPUT_MAX_CHAINS];
	struct search_chain sc[INPUT_MAX_CHAINS];
	int n;
	struct model model;     /* the model read (for the emitters) */
	int have_model;
	/* Context-parallel degrees left out, and why (for --stats). */
	char skip_why[INPUT_MAX_SKIPS][256];
	int nskip;
};

/*
 * Estimate the model at path for GPU g at every degree t of tps[0..ntp)
 * (default 1, 2, 4, 8) that divides gpus_per_node and the model's heads
 * and MLP, without sequence parallelism (sp_mode 0), with it (1, t > 1) or
 * both (2); t = 1 is always without.  Microbatch sizes mb[0..nmb) (nmb 0:
 * the defaults), sequence seq_len when > 0.  x is zeroed first; release it with input_chains_release.
 * Returns 0, or -1 (also when no degree qualifies).
 */
int input_tp_chains(struct input_chains *x, const char *path,
		    const struct gpu_spec *g, int gpus_per_node, const int *mb,
		    int nmb, int64_t seq_len, const int *tps, int ntp,
		    int sp_mode);
void input_chains_release(struct input_chains *x);

/*
 * What the estimate of plan pl's layers is made of, kernel by kernel
 * (analytic_profile_kernels()): x's model at pl's tensor, sequence,
 * context and expert parallelism and microbatch size, priced with the
 * options set now (the plan's runtime's), into p (profile_init'ed) and
 * ks (zeroed).  Returns 0 or -1 (a profile, not a model, was planned).
 */
int input_plan_kernels(const struct input_chains *x, const struct plan *pl,
		       const struct gpu_spec *g, struct profile *p,
		       struct kernel_list *ks);

/* The context- and expert-parallel degrees to estimate a model at. */
struct input_par {
	const int *cps;   /* [ncp]; ncp 0: 1 alone */
	int ncp;
	const int *eps;   /* [nep]; nep 0: 1 alone */
	int nep;
	double imbalance; /* expert load imbalance (>= 1) */
	double rank_capacity; /* struct analytic_par's (0: none) */
	int etp_one;      /* expert tensor parallelism 1, not t */
	int strict;       /* evaluate mode: a degree that cannot run is an
			     error */
	int ep_auto;      /* nep 0 and a mixture of experts: every power
			     of two up to gpus_per_node (the NVLink domain)
			     that divides the routed experts, smallest
			     first, as many as INPUT_MAX_CHAINS leaves room
			     for */
	int ep_tile;      /* ... and only those that divide gpus_per_node
			     (capacity's sweeps: 16 to 64 of an NVL72 rack
			     make one about five times as long) */
	/* Without --runtime: the runtimes rts[0..nrt) whose kernels price
	 * the chains, a set of them each (search_chain's runtime), the
	 * estimator's options set by set_runtime(arg, id) before each
	 * (input_par_runtime()); nrt 0: the options set now, chains for
	 * every runtime */
	int rts[RUNTIME_N];
	int nrt;
	void (*set_runtime)(const void *arg, int id);
	const void *arg;
};

/*
 * input_tp_chains() at every context-parallel degree of par->cps and
 * expert-parallel degree of par->eps as well.  A degree the model cannot
 * run (the sequence not in equal chunks, attention not fused, a sliding
 * window; a dense model, experts not divisible) is an error when
 * par->strict, else left out with the reason in x->skip_why.  With
 * par->ep_auto the expert-parallel degrees default as described there.
 * Returns 0, or -1.
 */
int input_par_chains(struct input_chains *x, const char *path,
		     const struct gpu_spec *g, int gpus_per_node, const int *mb,
		     int nmb, int64_t seq_len, const int *tps, int ntp,
		     int sp_mode, const struct input_par *par);

/* Price every model from now on training LoRA adapters of rank r on its
 * blocks' linear layers, the rest frozen (analytic_opts lora_rank; 0:
 * full training). */
void input_set_lora(int r);
/* ... on the linears of t (ANALYTIC_LORA_* bits; 0: all four), and
 * what was set. */
void input_set_lora_targets(unsigned t);
unsigned input_lora_targets(void);

/* Keep the first and the last blocks of a quantised model in 16 bits
 * (--bf16-layers; analytic_opts bf16_first, bf16_last), and what was
 * set. */
void input_set_bf16_layers(int first, int last);
int input_bf16_first(void);
int input_bf16_last(void);

/* Set the precision of a quantised model's linears by kind
 * (--module-precision; analytic_opts site_prec: ANALYTIC_SITES entries),
 * and what was set. */
void input_set_site_prec(const unsigned char *site_prec);
const unsigned char *input_site_prec(void);

/* Pack every model's sequences from now on with documents of n tokens,
 * attention running within each (the model's doc_len; 0: its own). */
void input_set_doc_len(int64_t n);

/* Train every model read from now on in precision prec (enum
 * model_prec), whatever the file says; -1 restores the files' own. */
void input_set_precision(int prec);

/* Estimate every model read from now on with fusions f (ANALYTIC_FUSE_*
 * bits); the default is all of them. */
void input_set_fusions(unsigned f);

/* The FP8 recipe (enum model_fp8) of every fp8 model read from now on. */
void input_set_fp8_recipe(int r);
/* Where FP8 GEMM inputs are cast (enum analytic_casts; the runtime's). */
void input_set_fp8_casts(int c);
/* Whether the loss's backward copies its fp32 gradients (analytic_opts
 * xent_copy). */
void input_set_xent_copy(int on);

/* Whether a gated MLP's clamp runs eagerly before its activation (the
 * runtime's clamp_eager). */
void input_set_clamp_eager(int on);

/* The runtime's vocabulary padding (analytic_opts vocab_pad). */
void input_set_vocab_pad(int pad);
/* Whether the runtime fuses the rotary embedding only for plain rotary
 * positions (runtime.rope_plain): a YaRN model's estimate unfuses it. */
void input_set_rope_plain(int on);
/* What runtime rt fixes of every model read from now on: its MoE layer
 * (capacity_factor, min_capacity, dropless, moe_dense_dispatch), whether
 * its full recomputation stops early (rc_early_stop), its graphs of the
 * MoE layers (runtime_moe_graphs()), its paged stash (runtime_paged_
 * stash(): pages as a multiple of the balanced rows), and an MXFP8
 * output layer (fp8-output-proj); NULL: none of them. */
struct runtime;
void input_set_runtime(const struct runtime *rt);
/* --capacity-factor: every MoE model read from now on pads each
 * expert's rows to cf times its balanced share instead of its own
 * capacity_factor (0: the model's own). */
void input_set_capacity(double cf);

/* What the selective point of every model's estimate recomputes
 * (ANALYTIC_RC_* bits; default core_attn). */
void input_set_rc_modules(unsigned m);
/* The modules set by input_set_rc_modules(). */
unsigned input_rc_modules(void);
/*
 * The memory figures given, each where it is >= 0: bytes per parameter of
 * the weights, gradients, optimizer state and 2BW's second version, and
 * every runtime's context (GiB) and fragmentation share.
 */
void input_memory_figures(struct cost_opts *o, double wb, double gb,
			  double ob, double vb, double ctx_gib, double frag);
/* The estimator's options as par's runtime id runs model m (its
 * set_runtime, then what m changes of them: a runtime that fuses only
 * plain rotary positions runs YaRN's unfused). */
void input_par_runtime(const struct input_par *par, int id,
		       const struct model *m);
/* The fusions set by input_set_fusions(). */
unsigned input_fusions(void);
/* The attention kernel (enum analytic_attn) of every model's estimate
 * from now on, and the one set (default native). */
void input_set_attn(int a);
int input_attn(void);

/*
 * cost_opts_from_profile(), and rt, when not NULL, as the runtime every
 * candidate runs on.
 */
void input_cost_opts(struct cost_opts *o, const struct profile *p,
		     const struct gpu_spec *g, const struct runtime *rt);

#endif
