/*
 * emit.h - turn a plan into what a runtime launches: Megatron-LM command
 * line arguments, a DeepSpeed config and pipeline recipe, a torchtitan
 * job-config TOML, a Megatron-Bridge (NeMo) recipe override, or a
 * Slurm/torchrun launch snippet whose rank order realises the placement.
 *
 * Every emitter states the upstream versions it was checked against and
 * refuses, with a message naming the reason, a plan its runtime cannot
 * run as planned; what the runtime runs differently (recomputation it
 * cannot mix, a schedule it lacks) is said in the file, and the
 * recomputation it will run is re-evaluated with the cost model.
 */
#ifndef PD2BW_EMIT_H
#define PD2BW_EMIT_H

#include <stdint.h>
#include <stdio.h>

#include "pd2bw/catalog.h"
#include "pd2bw/chain.h"
#include "pd2bw/cluster.h"
#include "pd2bw/cost.h"
#include "pd2bw/model.h"
#include "pd2bw/plan.h"
#include "pd2bw/profile.h"

enum emit_fmt {
	EMIT_MEGATRON,
	EMIT_DEEPSPEED,
	EMIT_LAUNCH,
	EMIT_TORCHTITAN,
	EMIT_BRIDGE,
};
extern const char *const emit_fmt_names[]; /* NULL-terminated */
/* "megatron, deepspeed, ..." for usage messages (static). */
const char *emit_fmt_list(void);
/* The enum runtime_id of what format fmt launches; -1 for none (launch). */
int emit_fmt_runtime(int fmt);

/*
 * What an emitter reads.  p and prof are required; the rest may be NULL:
 * model when the input was a profile (then what only a model knows is
 * named as missing), c, o and cl when the recomputation the runtime will
 * run cannot be re-evaluated (then the file says so).  All borrowed.
 */
struct emit_in {
	const struct plan *p;
	const struct profile *prof;
	const struct model *model;
	const struct chain *c;     /* the chain the plan was made from */
	const struct cost_opts *o;
	const struct cluster *cl;
	const struct gpu_spec *gpu; /* the plan's GPU in the catalog, or
				       NULL */
};

/*
 * Write in's plan in format fmt to path ("-" = stdout), atomically.
 * Returns 0, or -1 after a message (nothing is written then).
 */
int emit_write(const struct emit_in *in, int fmt, const char *path);

/*
 * Megatron-FSDP's groups for a ZeRO-2/3 plan (--emit megatron and
 * megatron-bridge): write its comment line after prefix and return the
 * HSDP instances (1: one group of every data-parallel rank).
 */
int emit_mfsdp_note(FILE *fp, const char *prefix, const struct plan *p);

/*
 * rt = runtime id's defaults, or the plan's own options when the plan
 * names that runtime.  Returns 1 when it does, 0 when it names another
 * (or none), -1 after a message when its options do not parse.
 */
int emit_plan_runtime(const struct plan *p, int id, struct runtime *rt);

/* One --emit and where it writes. */
#define EMIT_MAX 8
struct emit_req {
	int fmt;
	const char *path;   /* "-": standard output */
};

/*
 * Write every request: each format that can run the plan is written, each
 * that cannot is reported.  Returns 0, or -1 when any failed; inside an
 * output batch (afile.h) a failure then writes none of them.
 */
int emit_write_all(const struct emit_in *in, const struct emit_req *r,
		   int n);

/*
 * The most pipeline stages the formats of r[0..n) can run model m at
 * (torchtitan's qwen3 flavors: one), with why (static), or 0 for no
 * limit.
 */
int emit_max_depth(const struct emit_req *r, int n, const struct model *m,
		   const char **why);

/*
 * Shared by the emitters (planner/emit/ *.c), not by main.c: the plan's
 * chain seen as a transformer, embedding + blocks + head.
 */
struct emit_shape {
	const char *fmt;   /* the format being written, for messages */
	int transformer;   /* chain is embedding? blocks head?: 1, else 0 */
	int nblocks;       /* transformer blocks in the chain */
	int *blocks;       /* [p->nstages] blocks per stage (owned) */
	int *embed;        /* [p->nstages] 1 when the stage holds the embedding */
	int *head;         /* [p->nstages] 1 when it holds the head */
	int *first_block;  /* [p->nstages] index of its first block (owned) */
	/* Virtual chunks (interleaving, v = p->v): chunk i = k * d + s is
	 * the k-th chunk of stage s, in model order.  blocks of chunk i in
	 * chunk_blocks[i] (owned, [d * v]); a stage's chunks share its
	 * blocks as evenly as they can, the larger ones first. */
	int nchunks;
	int *chunk_blocks;
};

/* Fill sh from p and prof.  Returns 0, or -1 when they disagree. */
int emit_shape_init(struct emit_shape *sh, const struct plan *p,
		    const struct profile *prof);
void emit_shape_release(struct emit_shape *sh);

/*
 * The recomputation a runtime will run, per chain layer, and the cost
 * model's prediction of it.
 */
struct emit_rc {
	int *layer_rc;      /* [p->nlayers] enum prof_rc (owned) */
	int changed;        /* differs from the plan's layer_recompute */
	int evaluated;      /* iter_ms and peak are filled */
	double iter_ms;
	int64_t peak_bytes;
	int fits;           /* every stage under the memory cap */
};

/*
 * N when p recomputes in full exactly the N-th, 2N-th, ... block of each
 * stage and nothing else, the embedding and head neither (pd2bw-plan
 * --recompute-every N; 1: every block; with interleaving counted over the
 * stage's blocks, as torchtitan counts over a rank's chunks: as many of
 * them); else 0.
 */
int emit_every_n(const struct plan *p, const struct emit_shape *sh);
/* Whether p's selective recomputation was priced as torchtitan's per-op
 * policy (recompute_modules op), which only torchtitan runs. */
int emit_rc_per_op(const struct plan *p);
/* That rule for n in layer_rc[p->nlayers]: full for the n-th, 2n-th, ...
 * block of each stage, none elsewhere. */
void emit_every_fill(const struct plan *p, const struct emit_shape *sh, int n,
		     int *layer_rc);
/*
 * The largest N whose every-N-th rule recomputes on each stage at least
 * as many blocks as p recomputes there in any way (selective counted as
 * full): 1 when only every block does, 0 when p recomputes no block.
 * With blocks alike that rule stashes no more than the plan, whichever
 * blocks the plan chose (fms-fsdp's fraction, GLPK's per-layer choice).
 */
int emit_every_cover(const struct plan *p, const struct emit_shape *sh);

/*
 * Re-evaluate rc->layer_rc with the cost model (in->c, o, cl needed;
 * else rc->evaluated stays 0).  Never more memory than the plan when every
 * layer's option saves at least as much as the planned one.  0 or -1.
 */
int emit_rc_eval(const struct emit_in *in, struct emit_rc *rc);
void emit_rc_release(struct emit_rc *rc);
/* "# The plan predicts ...; what runs: ..." lines with prefix (e.g.
 * "# ") to fp. */
void emit_rc_note(FILE *fp, const char *prefix, const struct emit_in *in,
		  const struct emit_rc *rc);

/* Write s to fp quoted for the shell when it needs quoting. */
void emit_sh_word(FILE *fp, const char *s);
/* Write s for the inside of a comment or a message: control characters
 * (newline, carriage return, ...) as \xNN, so it cannot end the line. */
void emit_text(FILE *fp, const char *s);
/* s as a JSON string, quotes included (also valid TOML and YAML
 * double-quoted strings: only \" \\ and \uXXXX escapes). */
void emit_json_str(FILE *fp, const char *s);

/* The model's family as far as it is known: from the model, else from
 * the profile's model name (bert...).  enum model_family. */
int emit_family(const struct emit_in *in);

/* Non-zero when the plan keeps FP8 parameters (cost_fp8_params: FP8, not
 * blockwise, optimizer sharded, the plan's megatron-core runtime with
 * fp8-param-gather, or another runtime's plan run with Megatron-Core's
 * defaults). */
int emit_fp8_params(const struct emit_in *in);
/* Whether the plan's Megatron-Core runtime (or its defaults) reduces
 * the gradients in fp32 (option grad-reduce-fp32). */
int emit_grad_reduce_fp32(const struct emit_in *in);
/* Whether p's runtime replays CUDA graphs (its cuda-graphs option). */
int emit_cuda_graphs(const struct plan *p);
/* Whether rt hides part of the plan's tensor-parallel traffic as priced
 * (cost_tp_hidden(): sequence parallelism, and not in NVFP4). */
int emit_tp_overlap(const struct emit_in *in, const struct runtime *rt);
/* Whether p's runtime has option opt (enum runtime_opt) on. */
int emit_runtime_opt(const struct plan *p, int opt);

/* One writer per format; fp is open, the caller commits it.  0 or -1. */
int emit_megatron(FILE *fp, const struct emit_in *in,
		  const struct emit_shape *sh);
int emit_deepspeed(FILE *fp, const struct emit_in *in,
		   const struct emit_shape *sh);
int emit_launch(FILE *fp, const struct emit_in *in,
		const struct emit_shape *sh);
/* 1 when m is a torchtitan model without pipelining (qwen3), with why
 * (static), else 0. */
int emit_torchtitan_max_depth(const struct model *m, const char **why);
int emit_torchtitan(FILE *fp, const struct emit_in *in,
		    const struct emit_shape *sh);
int emit_bridge(FILE *fp, const struct emit_in *in,
		const struct emit_shape *sh);

/*
 * Megatron Core's partition of sh: the recomputation (granularity,
 * method block + layers) and the layout string, shared by the Megatron-LM
 * and Megatron-Bridge emitters.
 */
struct emit_mcore {
	int granularity;    /* PROF_RC_NONE, _SELECTIVE or _FULL */
	int block_layers;   /* with _FULL: --recompute-num-layers (block) */
	int uniform;        /* with _FULL: method uniform, 1 layer */
	int every;          /* the plan's every N-th block (emit_every_n()) */
	int first, last;    /* decoder first/last stage layers, 0: unset */
	int use_layout;     /* the layout string is needed */
	char *layout;       /* owned */
	struct emit_rc rc;  /* what runs */
};
int emit_mcore_init(struct emit_mcore *mc, const struct emit_in *in,
		    const struct emit_shape *sh);
void emit_mcore_release(struct emit_mcore *mc);
/*
 * The first part of pd2bw-model/2 model m that Megatron Core's
 * TransformerConfig cannot express (post-norms, a GeGLU MLP,
 * soft-capping) as a phrase for a message ("a GeGLU MLP"), or NULL.
 */
const char *emit_mcore_v2_lacks(const struct model *m);
/* The ANALYTIC_FUSE_* bits of the chains plan p priced fused (its
 * fusions; all where it names none, as the estimate's default). */
unsigned emit_plan_fusions(const struct plan *p);
/*
 * The integer MoE settings of m, as both Megatron emitters write them:
 * Megatron Core's TransformerConfig field, Megatron-LM's flag and the
 * value (0: unset, the field's None).  Fills f and returns how many
 * (EMIT_MOE_INTS; 0 for a dense model).
 */
struct emit_moe_int {
	const char *field;
	const char *flag;
	long long v;
};
#define EMIT_MOE_INTS 6
int emit_mcore_moe_ints(const struct model *m,
			struct emit_moe_int f[EMIT_MOE_INTS]);
/*
 * The token dispatcher a plan priced, as Megatron Core names it: "flex"
 * when its megatron-core runtime has flex-dispatcher, with *backend
 * "hybridep" (which NVIDIA's recipes run on every system and the only
 * one for multi-node NVLink, transformer_config.py:898-902 at d98e8a6),
 * else "alltoall" with *backend NULL; NULL after a message when the
 * plan's runtime options do not parse.
 */
const char *emit_mcore_dispatcher(const struct plan *p, const char **backend);

/*
 * Emit from a saved plan: read plan_path, reload the input and cluster it
 * names (for the model's shape and the re-evaluation), and write the n
 * requests, all of them or, when one fails, none.  Returns the exit
 * status (0 or 1).
 */
int emit_from_plan(const struct emit_req *r, int n, const char *plan_path);

#endif
