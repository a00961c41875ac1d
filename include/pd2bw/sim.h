/*
 * sim.h - discrete-event simulation of one pipeline's schedule: given each
 * stage's forward, backward and recomputation times, the point-to-point
 * delay to the next stage and the all-reduce per update, run the schedule
 * (2bw, flush, gpipe or none) and report every operation's start and end,
 * the iteration time, the bubble, and the stashes and weight versions each
 * stage holds at its peak.
 *
 * What is modelled (design.md sections 5 and 9):
 *
 * - Each stage runs its compute operations one at a time in a fixed order
 *   (the schedule's), each starting as soon as the previous one ended and
 *   its input arrived.  Forward of microbatch i on stage s needs stage s-1's
 *   forward of i plus the transfer; backward needs stage s+1's backward of
 *   i plus the transfer.  Recomputation is a separate operation right
 *   before each backward, started (like Megatron's checkpointing) only
 *   when the gradient has arrived.
 * - Transfers run on their own stream, overlapped with compute: one link
 *   per boundary and direction, carrying one transfer at a time (FIFO).
 * - 2bw: 1F1B without flushes over several iterations; weights change at
 *   each stage's last backward of an iteration (a new version).  The
 *   all-reduce of iteration k starts after that backward on its own stream
 *   and must end before the stage first uses version k+2 (the delayed
 *   update W(t+1) = W(t) - lr grad(W(t-1))), so it is overlapped with
 *   compute as the closed form assumes.  The iteration time is measured in
 *   steady state: the mean time between stage 0's updates over the second
 *   half of the run, leaving out the last iteration (its cool-down).
 * - flush: 1F1B with min(d-s-1, m) warm-up forwards, steady 1F1B and
 *   cool-down backwards; gpipe: all forwards, then all backwards (in
 *   microbatch order); none: one microbatch at a time through the whole
 *   pipeline.  For these the gradient reduction runs as the runtime
 *   runs it (sim_cfg.sync): after the stage's last backward, or, as
 *   Megatron-Core's --overlap-grad-reduce and DDP's bucketed hooks do,
 *   started with each model chunk's last backward (1/v of the gradients
 *   each, the last bucket after the backward ends); then the optimizer
 *   step on the compute stream, then with optimizer sharding the weights'
 *   all-gather (only what one forward of the next iteration cannot
 *   hide, when it is overlapped).  The iteration ends when every stage
 *   has done all of that.
 * - flush with v > 1 virtual stages per GPU: Megatron-LM's interleaved
 *   1F1B.  GPU s holds chunks 0..v-1, chunk c being virtual stage c d + s;
 *   a microbatch runs through virtual stages 0..v d-1, so from GPU d-1's
 *   chunk c it goes to GPU 0's chunk c+1 (over the "wrap" link).  Each
 *   chunk's forward, recomputation and backward take the stage's times
 *   divided by v.  GPU s runs min(2 (d-s-1) + (v-1) d, m v) warm-up
 *   forward chunk-steps, then alternates forward and backward chunk-steps,
 *   then drains; the k-th chunk-step takes the microbatches in groups of d
 *   (the last group holds m mod d when d does not divide m, where Megatron
 *   refuses to run and the simulator runs anyway), every chunk in turn
 *   for a group, forwards in chunk order 0..v-1 and backwards in v-1..0.
 *
 * Units: ms and bytes.
 */
#ifndef PD2BW_SIM_H
#define PD2BW_SIM_H

#include <stddef.h>

#include "pd2bw/plan.h"

enum sim_kind {
	SIM_FWD,       /* forward of one microbatch */
	SIM_RC,        /* recomputation before its backward */
	SIM_BWD,       /* backward */
	SIM_SEND_ACT,  /* activation from stage s to s+1 */
	SIM_SEND_GRAD, /* gradient from stage s to s-1 */
	SIM_ALLREDUCE, /* data-parallel gradient all-reduce of an update */
	SIM_OPTIMIZER, /* the optimizer step after the reduction */
	SIM_GATHER,    /* the all-gather of sharded weights (exposed part) */
	SIM_NKIND
};
extern const char *const sim_kind_names[];

/* Times and sizes of one stage, per microbatch unless said otherwise. */
struct sim_stage_in {
	double fwd_ms;
	double bwd_ms;
	double rc_ms;          /* 0: no recomputation operations */
	double send_ms;        /* one transfer to stage s+1 (either way) */
	double allreduce_ms;   /* per update; 0 when w = 1: the all-reduce
				  (or with sharding the reduce-scatter) */
	double gather_ms;      /* per update: sharded weights' all-gather */
	double opt_ms;         /* per update: the optimizer step and the
				  SMs the hidden collectives held (plan
				  stage sync_sm_ms) */
	double bucket_share;   /* share of a chunk's gradients in its last
				  bucket (reduced after its backward) */
	/* Interleaved (v > 1): fwd_ms, bwd_ms and rc_ms are the whole
	 * stage's per microbatch, send_ms one chunk's activation (the
	 * caller divides), stash_bytes all chunks' per microbatch. */
	double stash_bytes;    /* activations kept per microbatch in flight */
	double stash_extra_bytes; /* held once (full recompute's one layer) */
};

struct sim_cfg {
	int sched;     /* enum plan_sched */
	int d, m;      /* stages, microbatches per update */
	int iters;     /* 2bw: iterations to run, >= 4 (0: 8); others 1 */
	int v;         /* chunks (virtual stages) per GPU, flush only (0: 1) */
	double wrap_send_ms; /* v > 1: GPU d-1 to GPU 0 (either way) */
	int sync;      /* flush, gpipe, none: enum runtime_sync (only
			  RUNTIME_SYNC_LAST_BWD differs from "after") */
	int gather_overlap; /* the all-gather hides behind one forward */
	int times_only; /* keep no operations (ops stays NULL) and leave
			   the peaks of stages[] 0: the times alone, the
			   same, without the memory */
	int iter_only;  /* with times_only, iter_ms, measure_from_ms and
			   bubble_frac alone the same: a 2bw run stops
			   once stage 0's update iters - 2, the last it
			   measures, is known (end_ms and
			   update_ms[iters - 1] are then those so far) */
	int terms_only; /* keep of the operations only the optimizer
			   steps, in the order of a full run, and leave the
			   peaks of stages[] 0: the times and
			   compute_end_ms, the same, for a breakdown */
	struct sim_mem *mem; /* scratch kept between runs, or NULL */
	const struct sim_stage_in *st; /* [d], borrowed */
};

/*
 * Scratch space sim_run() may keep from one run to the next (a search
 * simulating many long runs then touches no fresh memory each time):
 * zero-initialise, free with sim_mem_release().
 */
struct sim_mem {
	void *buf;
	size_t alloc;
};

void sim_mem_release(struct sim_mem *m);

struct sim_op {
	int kind;      /* enum sim_kind */
	int stage;     /* GPU (pipeline rank) */
	int chunk;     /* model chunk on that GPU, 0 unless interleaved */
	int mb;        /* microbatch, counted from 0 over all iterations */
	int iter;      /* iteration (update) it belongs to */
	double start_ms, end_ms;
};

struct sim_stage_out {
	int peak_in_flight;      /* microbatches with a stash at once */
	int peak_chunks;         /* chunk stashes at once (v = 1: the same) */
	double peak_stash_bytes; /* peak_chunks * stash / v + extra */
	int peak_versions;       /* weight versions held at once */
	double busy_ms;          /* compute (F + R + B) per iteration */
};

struct sim {
	int sched, d, m, iters, v;
	struct sim_op *ops;      /* in the order they were scheduled */
	size_t nops;
	double iter_ms;          /* steady state (2bw) or the one iteration */
	double measure_from_ms;  /* 2bw: start of the measured iterations */
	double bubble_frac;      /* idle share of stage compute time */
	double end_ms;           /* last operation's end */
	double compute_end_ms;   /* last forward, recomputation or backward's
				    end (cfg->terms_only only, else 0) */
	double *update_ms;       /* [iters]: stage 0's update k (2bw), or end */
	struct sim_stage_out *stages; /* [d] */
};

/*
 * Run cfg into s (which the caller passes uninitialised and later hands
 * to sim_release).  Returns 0, or -1 with a message when the configuration
 * is invalid (d < 1, m < 1, an unknown schedule, v > 1 with another
 * schedule than flush, a negative or non-finite time).
 */
int sim_run(struct sim *s, const struct sim_cfg *cfg);

/* Free what sim_run allocated (not cfg->mem); safe after a failed run. */
void sim_release(struct sim *s);

/*
 * End of what the pictures and the trace show: 2bw the second update of
 * stage 0 (the fill and two iterations, no flush), else the iteration.
 */
double sim_show_until(const struct sim *s);

/* Idle share of the stage's compute time over one iteration. */
double sim_stage_idle(const struct sim *s, int stage);

#endif
