/*
 * par_opts.h - the parallelism, precision and runtime options plan mode
 * and "pd2bw-plan capacity" share: --runtime, --precision, --fp8-recipe,
 * --fusions, --attention-kernel, --sequence-parallel, --context-parallel, --expert-parallel,
 * --expert-tensor-parallel, --moe-imbalance, --capacity-factor, --interleave,
 * --optimizer-sharding, --zero, --shard-group, --offload, --optimizer,
 * --lora, --lora-targets, --doc-len, --bf16-layers and --module-precision.
 * One parser
 * and one set of checks, so a value means the same in both and is refused
 * with the same message.
 */
#ifndef PD2BW_PAR_OPTS_H
#define PD2BW_PAR_OPTS_H

#include <getopt.h>
#include <stdio.h>

#include "input.h"
#include "pd2bw/cost.h"
#include "pd2bw/catalog.h"
#include "pd2bw/profile.h"
#include "pd2bw/runtime.h"
#include "pd2bw/search.h"

#define PAR_MAX_DEG 8

/* getopt_long values of the shared options, above both tables' own. */
enum par_opt {
	PAR_OPT_RUNTIME = 512,
	PAR_OPT_PRECISION,
	PAR_OPT_FP8_RECIPE,
	PAR_OPT_FUSIONS,
	PAR_OPT_ATTN,
	PAR_OPT_SP,
	PAR_OPT_CP,
	PAR_OPT_EP,
	PAR_OPT_ETP,
	PAR_OPT_IMBALANCE,
	PAR_OPT_RANK_CAPACITY,
	PAR_OPT_CAPACITY,
	PAR_OPT_INTERLEAVE,
	PAR_OPT_OPT_SHARDING,
	PAR_OPT_ZERO,
	PAR_OPT_SHARD_GROUP,
	PAR_OPT_OFFLOAD,
	PAR_OPT_OPTIMIZER,
	PAR_OPT_LORA,
	PAR_OPT_LORA_TARGETS,
	PAR_OPT_DOC_LEN,
	PAR_OPT_BF16_LAYERS,
	PAR_OPT_MODULE_PREC,
};

/* The struct option entries, for a program's longopts table. */
#define PAR_OPTS_LONGOPTS                                                     \
	{"runtime", required_argument, NULL, PAR_OPT_RUNTIME},                \
	{"precision", required_argument, NULL, PAR_OPT_PRECISION},            \
	{"fp8-recipe", required_argument, NULL, PAR_OPT_FP8_RECIPE},          \
	{"fusions", required_argument, NULL, PAR_OPT_FUSIONS},                \
	{"attention-kernel", required_argument, NULL, PAR_OPT_ATTN},          \
	{"sequence-parallel", required_argument, NULL, PAR_OPT_SP},           \
	{"context-parallel", required_argument, NULL, PAR_OPT_CP},            \
	{"expert-parallel", required_argument, NULL, PAR_OPT_EP},             \
	{"expert-tensor-parallel", required_argument, NULL, PAR_OPT_ETP},     \
	{"moe-imbalance", required_argument, NULL, PAR_OPT_IMBALANCE},        \
	{"moe-rank-capacity", required_argument, NULL,                        \
	 PAR_OPT_RANK_CAPACITY},                                              \
	{"capacity-factor", required_argument, NULL, PAR_OPT_CAPACITY},       \
	{"interleave", required_argument, NULL, PAR_OPT_INTERLEAVE},          \
	{"optimizer-sharding", required_argument, NULL,                       \
	 PAR_OPT_OPT_SHARDING},                                               \
	{"zero", required_argument, NULL, PAR_OPT_ZERO},                      \
	{"shard-group", required_argument, NULL, PAR_OPT_SHARD_GROUP},        \
	{"offload", required_argument, NULL, PAR_OPT_OFFLOAD},                \
	{"optimizer", required_argument, NULL, PAR_OPT_OPTIMIZER},           \
	{"lora", required_argument, NULL, PAR_OPT_LORA},                     \
	{"lora-targets", required_argument, NULL, PAR_OPT_LORA_TARGETS},     \
	{"doc-len", required_argument, NULL, PAR_OPT_DOC_LEN},               \
	{"bf16-layers", required_argument, NULL, PAR_OPT_BF16_LAYERS},        \
	{"module-precision", required_argument, NULL, PAR_OPT_MODULE_PREC}

struct par_opts {
	struct runtime rt;       /* --runtime, when have_rt */
	int have_rt;
	const char *rt_via;      /* not --runtime but this option chose rt
				    ("--emit megatron"), for messages */
	int fp8_recipe;          /* enum model_fp8; -1: the runtime's */
	int fp8_dflt;            /* fp8_recipe was not given (set by
				    par_opts_apply_input()) */
	unsigned fusions;        /* ANALYTIC_FUSE_* bits, when have_fusions */
	int have_fusions;
	int attn;                /* enum analytic_attn (--attention-kernel) */
	int sp_mode;             /* sequence parallelism: 0 off, 1 on, 2
				    both (default) */
	int cps[PAR_MAX_DEG], ncp; /* ncp 0: not given (1 alone) */
	int eps[PAR_MAX_DEG], nep; /* nep 0: not given (1 alone) */
	int etp_one;             /* --expert-tensor-parallel 1 */
	double imbalance;        /* --moe-imbalance, >= 1 */
	double rank_capacity;    /* --moe-rank-capacity; 0: none */
	double capacity_factor;  /* --capacity-factor; 0: the model's */
	int have_zero;           /* stages named: the runtime must run them */
	int zero_given;          /* --zero or --optimizer-sharding given
				    ("all" too): no search default */
	int have_interleave;     /* --interleave given: the runtime must
				    run it */
	int zero_one;            /* the one stage given, or -1 */
	int zero_many;           /* several stages (or "all", "both") */
	int have_offload;
	int offload_one;         /* 0 off, 1 on, 2 both; -1 not given */
	int offload_blocks;      /* --offload N: the first N blocks' (0:
				    every layer's but the last) */
	int optimizer;           /* enum plan_optimizer (--optimizer) */
	int lora;                /* --lora: the adapters' rank; 0: full
				    training */
	unsigned lora_targets;   /* --lora-targets (ANALYTIC_LORA_* bits);
				    0: not given */
	long doc_len;            /* --doc-len; 0: the model's */
	int bf16_first, bf16_last; /* --bf16-layers: blocks kept in 16
				      bits at the start, at the end */
	int mixed;               /* --module-precision given (the input's
				    analytic_opts site_prec) */
};

/* The defaults of plan mode. */
void par_opts_init(struct par_opts *p);

/*
 * Handle getopt_long's c with argument arg when it is one of the shared
 * options: set p and the search options so (sequence, interleaving,
 * sharding, offload masks).  A bad value is a usage error (exit 2).
 * --precision takes effect at once (input_set_precision).  Returns 1 when
 * c was one of them, else 0.
 */
int par_opts_parse(struct par_opts *p, struct search_opts *so, int c,
		   const char *arg);

/*
 * What a search (plan mode and capacity; not evaluate mode) weighs unless
 * told, the choices today's runtimes offer and their recipes take:
 *  - the optimizer state sharded over the data-parallel replicas (ZeRO-1,
 *    Megatron's distributed optimizer) or not;
 *  - selective recomputation beside none and full (have_rc 0: no -r);
 *  - 1, 2 or 4 virtual stages per GPU in a flush pipeline;
 *  - for a mixture of experts, the expert-parallel degrees that tile the
 *    node (par_opts_input_par()'s ep_auto, read where the model is).
 * Each is kept where it is faster and fits.  A runtime that cannot run one
 * drops it without complaint (par_opts_check(), or the search's own
 * checks without --runtime); one named is a usage error there.  Call
 * after parsing, before par_opts_check().
 */
void par_opts_search_defaults(const struct par_opts *p,
			      struct search_opts *so, int have_rc);

/*
 * With --runtime: what the user asked for that the runtime cannot run is
 * a usage error naming both; what was left to the search (p->sp_mode
 * too) is narrowed to what it runs.  have_sched and have_rc say whether
 * -s and -r were given, tps[0..ntp) the tensor-parallel degrees given
 * (ntp 0: none).  Without a runtime (have_rt) nothing happens.
 */
void par_opts_check(struct par_opts *p, struct search_opts *so,
		    int have_sched, int have_rc, const int *tps, int ntp);

/*
 * With or without --runtime: --moe-rank-capacity needs the runtime's
 * flex dispatcher and no --capacity-factor beside it, the runtime's
 * paged-stash needs --moe-rank-capacity and no --offload; --lora takes
 * Adam, not --optimizer muon (usage errors).
 */
void par_opts_check_moe(const struct par_opts *p);

/*
 * Set the estimator's fusions and FP8 recipe for every model read from now
 * on: the ones given, else the runtime's, else all fusions and delayed
 * scaling.  Resolves p->fp8_recipe.
 */
void par_opts_apply_input(struct par_opts *p);

/*
 * Without --runtime: the estimator's options as runtime id (enum
 * runtime_id) would set them, those given still first; arg is the struct
 * par_opts, after par_opts_apply_input() (input_par's set_runtime).
 */
void par_opts_apply_runtime(const void *arg, int id);

/*
 * Without --runtime: the default runtimes (runtime_default_for()) of the
 * schedules and depths so searches, each once, into ids (RUNTIME_N of
 * room); returns their number.
 */
int par_opts_default_runtimes(const struct search_opts *so, int *ids);

/*
 * What selective recomputation recomputes under p's runtime, given the
 * user's module list m (given: --recompute-modules was set): torchtitan's
 * per-op policy under torchtitan, the list elsewhere.  A usage error
 * where the runtime cannot run the list.
 */
unsigned par_opts_rc_modules(const struct par_opts *p, int given, unsigned m);

/* The degrees to estimate a model at (borrowing p's arrays); strict for
 * evaluate mode, else a search's (input_par's ep_auto).  Without
 * --runtime, the estimates of the default runtimes of what so searches
 * (par_opts_default_runtimes()), each runtime's candidates priced with its
 * own. */
void par_opts_input_par(const struct par_opts *p,
			const struct search_opts *so,
			struct input_par *ip, int strict);

/*
 * Cost options for profile prof on GPU g: input_cost_opts() with the
 * runtime given, and the FP8 recipe.
 */
void par_opts_cost(const struct par_opts *p, struct cost_opts *co,
		   const struct profile *prof, const struct gpu_spec *g);

/*
 * The memory savers the runtimes of the searched schedules (co's, by
 * cost_runtime()) can run that the search so did not weigh: ZeRO stages,
 * activation offload, selective and full recomputation, and context
 * parallelism where cp_ok (a model that can split its sequence over 2
 * ranks, searched at degree 1 alone), each with the option that weighs
 * it ("ZeRO-2, ZeRO-3 (--zero), activation offload (--offload)").
 * Writes "" when there is none.  For the hint after a plan that memory
 * binds.
 */
void par_opts_unweighed(const struct par_opts *p, const struct search_opts *so,
			const struct cost_opts *co, int cp_ok, char *buf,
			size_t n);

/* The --help lines of the options both subcommands describe alike
 * (--expert-tensor-parallel to --offload). */
void par_opts_usage(FILE *fp);

/* With a profile for input (not a model): warn of each option given that
 * only a model's estimate takes (--fusions, --doc-len, --lora), and
 * refuse those a plan would record unpriced (--bf16-layers,
 * --module-precision). */
void par_opts_warn_profile(const struct par_opts *p,
			   const struct profile *prof);

#endif
