/*
 * par_opts.c - parsing and checking of the parallelism, precision and
 * runtime options plan mode and capacity share (par_opts.h).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "par_opts.h"
#include "pd2bw/analytic.h"
#include "pd2bw/cli.h"
#include "pd2bw/error.h"
#include "pd2bw/model.h"
#include "pd2bw/plan.h"

static const char *const onoff_names[] = {"off", "on", "both", NULL};

void
par_opts_init(struct par_opts *p)
{
	memset(p, 0, sizeof(*p));
	p->fp8_recipe = -1;
	p->fusions = ANALYTIC_FUSE_ALL;
	p->sp_mode = 2;
	p->cps[0] = 1;
	p->eps[0] = 1;
	p->imbalance = 1;
	p->zero_one = -1;
	p->offload_one = -1;
}

int
par_opts_parse(struct par_opts *p, struct search_opts *so, int c,
	       const char *arg)
{
	switch (c) {
	case PAR_OPT_RUNTIME:
		if (runtime_parse(&p->rt, arg))
			cli_usage_error("invalid --runtime '%s'", arg);
		p->have_rt = 1;
		return 1;
	case PAR_OPT_PRECISION:
		input_set_precision(cli_name("--precision", arg,
					     model_prec_names));
		return 1;
	case PAR_OPT_FP8_RECIPE:
		p->fp8_recipe = cli_name("--fp8-recipe", arg, model_fp8_names);
		return 1;
	case PAR_OPT_OPTIMIZER:
		p->optimizer = cli_name("--optimizer", arg,
					plan_optimizer_names);
		return 1;
	case PAR_OPT_LORA:
		p->lora = (int)cli_long("--lora", arg, 1, 65536);
		input_set_lora(p->lora);
		return 1;
	case PAR_OPT_BF16_LAYERS: {
		/* N (at both ends) or N,M */
		char buf[64], *comma;

		if (strlen(arg) >= sizeof(buf))
			cli_usage_error("--bf16-layers takes N or N,M "
					"(blocks at the start, at the end)");
		strcpy(buf, arg);
		comma = strchr(buf, ',');
		if (comma)
			*comma = 0;
		p->bf16_first = (int)cli_long("--bf16-layers", buf, 0, 1 << 20);
		p->bf16_last = comma ? (int)cli_long("--bf16-layers", comma + 1,
						     0, 1 << 20)
				     : p->bf16_first;
		input_set_bf16_layers(p->bf16_first, p->bf16_last);
		return 1;
	}
	case PAR_OPT_MODULE_PREC: {
		unsigned char sp[ANALYTIC_SITES];
		char err[200];

		if (analytic_site_prec_parse(arg, sp, err, sizeof(err)))
			cli_usage_error("--module-precision: %s", err);
		input_set_site_prec(sp);
		p->mixed = 1;
		return 1;
	}
	case PAR_OPT_DOC_LEN:
		p->doc_len = cli_long("--doc-len", arg, 1, 1L << 24);
		input_set_doc_len(p->doc_len);
		return 1;
	case PAR_OPT_LORA_TARGETS:
		p->lora_targets = cli_names("--lora-targets", arg,
					    analytic_lora_target_names, NULL);
		input_set_lora_targets(p->lora_targets);
		return 1;
	case PAR_OPT_FUSIONS:
		if (analytic_fusions_parse(arg, &p->fusions))
			cli_usage_error("invalid --fusions '%s'", arg);
		p->have_fusions = 1;
		return 1;
	case PAR_OPT_ATTN:
		p->attn = cli_name("--attention-kernel", arg,
				   analytic_attn_names);
		return 1;
	case PAR_OPT_SP:
		cli_names("--sequence-parallel", arg, onoff_names, &p->sp_mode);
		if (p->sp_mode < 0)
			cli_usage_error("invalid --sequence-parallel '%s'",
					arg);
		return 1;
	case PAR_OPT_CP:
		p->ncp = cli_ints("--context-parallel", arg, p->cps,
				  PAR_MAX_DEG, 1, 4096, 0);
		return 1;
	case PAR_OPT_EP:
		p->nep = cli_ints("--expert-parallel", arg, p->eps,
				  PAR_MAX_DEG, 1, 1 << 20, 0);
		return 1;
	case PAR_OPT_ETP: {
		static const char *const names[] = {"tp", "1", NULL};
		int one = -1;

		cli_names("--expert-tensor-parallel", arg, names, &one);
		if (one < 0)
			cli_usage_error("give one --expert-tensor-parallel, tp "
					"or 1, not '%s'", arg);
		p->etp_one = one;
		return 1;
	}
	case PAR_OPT_IMBALANCE:
		p->imbalance = cli_double("--moe-imbalance", arg, 1, 64);
		return 1;
	case PAR_OPT_RANK_CAPACITY:
		p->rank_capacity = cli_double("--moe-rank-capacity", arg, 0.01,
					      64);
		return 1;
	case PAR_OPT_CAPACITY:
		p->capacity_factor = cli_double("--capacity-factor", arg, 0.01,
						64);
		return 1;
	case PAR_OPT_INTERLEAVE:
		so->nv = cli_ints("--interleave", arg, so->v, SEARCH_MAX_V, 1,
				  64, 0);
		p->have_interleave = 1;
		return 1;
	case PAR_OPT_OPT_SHARDING:
		cli_names("--optimizer-sharding", arg, onoff_names,
			  &p->zero_one);
		if (p->zero_one < 0)
			cli_usage_error("invalid --optimizer-sharding '%s'",
					arg);
		so->zero_mask = p->zero_one == 2 ? 3u : 1u << p->zero_one;
		p->zero_many = p->zero_one == 2;
		p->have_zero = 1;
		p->zero_given = 1;
		return 1;
	case PAR_OPT_ZERO: {
		int zs[4], nz, i;

		if (!strcmp(arg, "all")) {
			/* what the runtime runs, without complaint */
			so->zero_mask = 0xf;
			p->zero_many = 1;
			p->have_zero = 0;
			p->zero_given = 1;
			return 1;
		}
		nz = cli_ints("--zero", arg, zs, 4, 0, 3, 0);
		so->zero_mask = 0;
		for (i = 0; i < nz; i++)
			so->zero_mask |= 1u << zs[i];
		p->zero_one = zs[0];
		p->zero_many = nz > 1;
		p->have_zero = 1;
		p->zero_given = 1;
		return 1;
	}
	case PAR_OPT_SHARD_GROUP:
		so->shard = (int)cli_long("--shard-group", arg, 1, INT_MAX);
		return 1;
	case PAR_OPT_OFFLOAD:
		/* a count: on, for the model's first N blocks (Megatron's
		 * --cpu-offloading-num-layers N) */
		if (arg[0] >= '0' && arg[0] <= '9') {
			p->offload_blocks = (int)cli_long("--offload", arg, 1,
							  1 << 20);
			p->offload_one = 1;
		} else {
			cli_names("--offload", arg, onoff_names,
				  &p->offload_one);
			p->offload_blocks = 0;
		}
		if (p->offload_one < 0)
			cli_usage_error("invalid --offload '%s'", arg);
		so->offload_mask = p->offload_one == 2 ? 3u
						       : 1u << p->offload_one;
		p->have_offload = 1;
		return 1;
	default:
		return 0;
	}
}

/*
 * The ZeRO stages p's optimizer runs with (bit z for stage z): Megatron-
 * Core runs Muon with DDP or its layer-wise distributed optimizer, not
 * FSDP ("Emerging optimizer does not support Megatron-FSDP",
 * arguments.py:1739-1740); Adam with all.
 */
static unsigned
optimizer_zero(const struct par_opts *p)
{
	return p->optimizer == PLAN_MUON ? 0x3u : 0xfu;
}

void
par_opts_check_moe(const struct par_opts *p)
{
	char why[256];

	/* not MoE, but checked wherever these options are: Megatron-
	 * Bridge's LoRA trains its adapters with Adam (Muon orthogonalises
	 * the blocks' matrices, which LoRA freezes) */
	if (p->lora_targets && !p->lora)
		cli_usage_error("--lora-targets needs --lora R");
	if (p->lora > 0 && p->optimizer == PLAN_MUON)
		cli_usage_error("--lora trains adapters with Adam; --optimizer "
				"muon updates the blocks' matrices, which LoRA "
				"freezes");

	/* a padded capacity would set the buffers instead
	 * (token_dispatcher.py:1114-1127 at d98e8a6) */
	if (p->rank_capacity > 0 && p->capacity_factor > 0)
		cli_usage_error("give --capacity-factor (each expert's rows "
				"padded) or --moe-rank-capacity (each GPU's "
				"budget), not both");
	if (runtime_check_moe(p->have_rt ? &p->rt : NULL, p->rank_capacity,
			      p->have_offload && p->offload_one != 0, why,
			      sizeof(why)))
		cli_usage_error("%s", why);
}

void
par_opts_check(struct par_opts *p, struct search_opts *so, int have_sched,
	       int have_rc, const int *tps, int ntp)
{
	const struct runtime *rt = &p->rt;
	char name[96], why[256];
	int i, j;

	/* "all" narrows to what the optimizer runs with, named stages
	 * must be */
	if (p->have_zero && (so->zero_mask & ~optimizer_zero(p)))
		cli_usage_error("--optimizer muon: Megatron-Core runs Muon "
				"without FSDP; give --zero 0 or 1");
	so->zero_mask &= optimizer_zero(p);
	if (!p->have_rt)
		return;
	if (p->rt_via)
		snprintf(name, sizeof(name), "%s (what %s runs on)",
			 runtime_names[rt->id], p->rt_via);
	else
		snprintf(name, sizeof(name), "%s", runtime_names[rt->id]);
	for (i = 0; i < p->ncp; i++)
		if (runtime_check_par(rt, p->cps[i], 1, why, sizeof(why)))
			cli_usage_error("%s", why);
	for (i = 0; i < p->nep; i++)
		if (runtime_check_par(rt, 1, p->eps[i], why, sizeof(why)))
			cli_usage_error("%s", why);
	for (i = 0; i < PLAN_NSCHED; i++)
		if (have_sched && (so->sched_mask & (1u << i)) &&
		    !(rt->sched_mask & (1u << i)) && so->fix_d != 1)
			cli_usage_error("runtime %s cannot run the %s schedule",
					name, plan_sched_names[i]);
	so->sched_mask &= rt->sched_mask;
	if (so->fix_d > rt->max_depth_none &&
	    !(so->sched_mask & ~(1u << PLAN_NONE)))
		cli_usage_error("runtime %s cannot run a pipeline", name);
	for (i = 0, j = 0; i < so->nv; i++) {
		if (so->v[i] > 1 && !rt->interleave) {
			if (!p->have_interleave)
				continue;
			cli_usage_error("runtime %s cannot interleave stages "
					"(--interleave %d)", name, so->v[i]);
		}
		so->v[j++] = so->v[i];
	}
	so->nv = j;
	for (i = 0; i < ntp; i++)
		if (tps[i] > 1 && !rt->tp)
			cli_usage_error("runtime %s has no tensor parallelism "
					"(--tp %d)", name, tps[i]);
	if (!rt->sp && p->sp_mode == 1)
		cli_usage_error("runtime %s has no sequence parallelism "
				"(--sequence-parallel on)", name);
	if (!rt->sp)
		p->sp_mode = 0;
	for (i = 1; i < 4; i++) {
		/* a fixed depth fixes which of the two sets applies */
		unsigned can = so->fix_d > 1    ? rt->zero_pipe_mask
			       : so->fix_d == 1 ? rt->zero_mask
						: rt->zero_mask |
							  rt->zero_pipe_mask;

		if (!(so->zero_mask & (1u << i)) || (can >> i & 1))
			continue;
		if (!p->have_zero) {
			so->zero_mask &= ~(1u << i);
			continue;
		}
		if (i == 1)
			cli_usage_error("runtime %s cannot shard the optimizer "
					"state (--zero 1)", name);
		cli_usage_error("runtime %s cannot run ZeRO stage %d%s (--zero "
				"%d)", name, i,
				so->fix_d > 1 && (rt->zero_mask >> i & 1)
					? " with a pipeline" : "", i);
	}
	if (!(so->zero_mask & (rt->zero_mask | rt->zero_pipe_mask)))
		cli_usage_error("runtime %s runs none of the --zero stages "
				"asked for", name);
	if (so->shard > 0 && !rt->hsdp)
		cli_usage_error("runtime %s cannot shard in groups and "
				"replicate across them (--shard-group %d)",
				name, so->shard);
	/* per-layer graphs run without offload, which runtime_check_moe()
	 * refuses when asked for */
	if ((so->offload_mask & 2) && runtime_has(rt, RUNTIME_OPT_TE_GRAPHS))
		so->offload_mask &= ~2u;
	if ((so->offload_mask & 2) && !rt->offload) {
		if (p->have_offload)
			cli_usage_error("runtime %s cannot offload activations "
					"(--offload on)", name);
		so->offload_mask &= ~2u;
	}
	if ((so->offload_mask & 2) && p->have_offload && so->fix_d > 1)
		cli_usage_error("runtime %s offloads activations only without "
				"a pipeline (--offload on, --depth %d)", name,
				so->fix_d);
	if ((so->offload_mask & 2) && p->have_offload && !rt->offload_rc &&
	    so->fix_rc > PROF_RC_NONE)
		cli_usage_error("runtime %s cannot offload activations with "
				"recomputation (--offload on, -r %s)", name,
				prof_rc_names[so->fix_rc]);
	if (have_rc && (so->rc_mask & (1u << PROF_RC_SELECTIVE)) &&
	    !rt->selective)
		cli_usage_error("runtime %s has no selective recomputation",
				name);
	if (!have_rc && !rt->selective)
		so->rc_mask &= ~(1u << PROF_RC_SELECTIVE);
	/* full recomputation: neither the per-layer graphs nor the EP
	 * overlap run it (runtime_check()) */
	if (runtime_has(rt, RUNTIME_OPT_TE_GRAPHS) ||
	    runtime_has(rt, RUNTIME_OPT_OVERLAP_MOE_EP_COMM)) {
		if (have_rc && (so->rc_mask & (1u << PROF_RC_FULL)))
			cli_usage_error("runtime %s: %s cannot run full "
					"recomputation (-r full)", name,
					runtime_has(rt, RUNTIME_OPT_TE_GRAPHS)
						? "te-graphs"
						: "overlap-moe-ep-comm");
		so->rc_mask &= ~(1u << PROF_RC_FULL);
	}
	/* tp-comm-overlap needs sequence parallelism (megatron/training/
	 * arguments.py:1441-1442): candidates without it run without */
}

void
par_opts_unweighed(const struct par_opts *p, const struct search_opts *so,
		   const struct cost_opts *co, int cp_ok, char *buf, size_t n)
{
	unsigned zero = 0, rc;
	int offload = 0, selective = 0, cp = 0, s, d, z;
	size_t k = 0;

	for (s = 0; s < PLAN_NSCHED; s++)
		for (d = 1; d <= 2; d++) {
			const struct runtime *rt;

			if (!(so->sched_mask & (1u << s)) ||
			    (d > 1 && s == PLAN_NONE) ||
			    (so->fix_d && (so->fix_d > 1) != (d > 1)))
				continue;
			rt = cost_runtime(co, s, d);
			zero |= d > 1 ? rt->zero_pipe_mask : rt->zero_mask;
			offload |= d == 1 && rt->offload;
			selective |= rt->selective;
			cp |= rt->cp;
		}
	/* a degree above 1 given: the search weighed context parallelism */
	for (z = 0; z < p->ncp; z++)
		cp &= p->cps[z] <= 1;
	zero &= optimizer_zero(p) & ~so->zero_mask & 0xeu;
	rc = ~so->rc_mask & ((1u << PROF_RC_FULL) |
			     (selective ? 1u << PROF_RC_SELECTIVE : 0));
	buf[0] = 0;
	for (z = 1; z < 4; z++)
		if (zero >> z & 1)
			k += (size_t)snprintf(buf + k, k < n ? n - k : 0,
					      "%sZeRO-%d", k ? ", " : "", z);
	if (k)
		k += (size_t)snprintf(buf + k, k < n ? n - k : 0, " (--zero)");
	if (offload && !(so->offload_mask & 2))
		k += (size_t)snprintf(buf + k, k < n ? n - k : 0,
				      "%sactivation offload (--offload)",
				      k ? ", " : "");
	if (cp && cp_ok)
		k += (size_t)snprintf(buf + k, k < n ? n - k : 0,
				      "%scontext parallelism "
				      "(--context-parallel)",
				      k ? ", " : "");
	if (rc)
		snprintf(buf + k, k < n ? n - k : 0, "%s%s recomputation (-r)",
			 k ? ", " : "",
			 rc == (1u << PROF_RC_FULL) ? "full"
			 : rc == (1u << PROF_RC_SELECTIVE)
				 ? "selective"
				 : "selective and full");
}

/* The estimator's options under runtime rt (NULL: none named) with FP8
 * recipe r: those given, else rt's, else all fusions. */
static void
apply_input(const struct par_opts *p, const struct runtime *rt, int r)
{
	input_set_fusions(p->have_fusions ? p->fusions
			  : rt		  ? rt->fusions
					  : ANALYTIC_FUSE_ALL);
	input_set_fp8_recipe(r);
	input_set_fp8_casts(rt ? rt->fp8_casts : ANALYTIC_CASTS_TE);
	input_set_xent_copy(rt ? rt->xent_copy : 0);
	input_set_clamp_eager(!rt || rt->clamp_eager);
	input_set_vocab_pad(rt ? rt->vocab_pad : MODEL_MEGATRON_VOCAB_PAD);
	input_set_rope_plain(!p->have_fusions && rt && rt->rope_plain);
	input_set_runtime(rt);
	input_set_attn(p->attn);
	input_set_capacity(p->capacity_factor);
}

void
par_opts_apply_input(struct par_opts *p)
{
	p->fp8_dflt = p->fp8_recipe < 0;
	if (p->fp8_recipe < 0)
		p->fp8_recipe = p->have_rt ? p->rt.fp8_recipe : FP8_DELAYED;
	apply_input(p, p->have_rt ? &p->rt : NULL, p->fp8_recipe);
}

void
par_opts_apply_runtime(const void *arg, int id)
{
	const struct par_opts *p = arg;
	struct runtime rt;

	runtime_init(&rt, id);
	apply_input(p, &rt, p->fp8_dflt ? rt.fp8_recipe : p->fp8_recipe);
}

int
par_opts_default_runtimes(const struct search_opts *so, int *ids)
{
	int s, d, i, id, n = 0;

	for (s = 0; s < PLAN_NSCHED; s++) {
		if (!(so->sched_mask & (1u << s)) ||
		    (so->fix_sched >= 0 && s != so->fix_sched))
			continue;
		/* one stage, then more */
		for (d = 1; d <= 2; d++) {
			if (so->fix_d > 0 && (so->fix_d > 1) != (d > 1))
				continue;
			id = runtime_default_for(s, d);
			for (i = 0; i < n && ids[i] != id; i++)
				;
			if (i == n)
				ids[n++] = id;
		}
	}
	return n;
}

void
par_opts_search_defaults(const struct par_opts *p, struct search_opts *so,
			 int have_rc)
{
	if (!p->zero_given)
		so->zero_mask = 3;
	if (!have_rc)
		so->rc_mask |= 1u << PROF_RC_SELECTIVE;
	if (!p->have_interleave) {
		so->nv = 3;
		so->v[0] = 1;
		so->v[1] = 2;
		so->v[2] = 4;
	}
}

void
par_opts_input_par(const struct par_opts *p, const struct search_opts *so,
		   struct input_par *ip, int strict)
{
	memset(ip, 0, sizeof(*ip));
	ip->cps = p->cps;
	ip->ncp = p->ncp;
	ip->eps = p->eps;
	ip->nep = p->nep;
	ip->imbalance = p->imbalance;
	ip->rank_capacity = p->rank_capacity;
	ip->etp_one = p->etp_one;
	ip->strict = strict;
	/* a search's default, as par_opts_search_defaults()'s */
	ip->ep_auto = !strict;
	if (!p->have_rt) {
		ip->nrt = par_opts_default_runtimes(so, ip->rts);
		ip->set_runtime = par_opts_apply_runtime;
		ip->arg = p;
	}
}

void
par_opts_cost(const struct par_opts *p, struct cost_opts *co,
	      const struct profile *prof, const struct gpu_spec *g)
{
	char why[160];

	cost_opts_init(co);
	input_cost_opts(co, prof, g, p->have_rt ? &p->rt : NULL);
	/* without --runtime or --fp8-recipe, each candidate's runtime's */
	co->fp8_recipe = p->fp8_recipe < 0		  ? FP8_DELAYED
			 : !p->have_rt && p->fp8_dflt ? -1
						      : p->fp8_recipe;
	co->optimizer = p->optimizer;
	co->bf16_most = p->bf16_first > p->bf16_last ? p->bf16_first
						     : p->bf16_last;
	co->mixed = p->mixed;
	co->offload_blocks = p->offload_blocks;
	if (p->offload_blocks > 0) {
		/* Megatron offloads fewer layers than the model has
		 * (transformer_config.py:1884-1889 at d98e8a6) */
		int nb = profile_blocks(prof);

		if (p->offload_blocks >= nb)
			cli_usage_error("--offload %d: the model has %d "
					"transformer blocks; offload at most "
					"%d", p->offload_blocks, nb, nb - 1);
	}
	if (co->optimizer == PLAN_MUON && !profile_ns(prof))
		cli_usage_error("--optimizer muon needs the model's matrices: "
				"plan a model, not a profile file");
	if (p->bf16_first + p->bf16_last > 0) {
		int nb = profile_blocks(prof);

		if (!model_prec_quantised(co->precision))
			cli_usage_error("--bf16-layers keeps blocks of an FP8 "
					"or NVFP4 model in 16 bits: give "
					"--precision fp8 or nvfp4");
		if (p->bf16_first + p->bf16_last > nb)
			cli_usage_error("--bf16-layers %d,%d: the model has "
					"%d transformer blocks",
					p->bf16_first, p->bf16_last, nb);
	}
	if (p->mixed && !model_prec_quantised(co->precision))
		cli_usage_error("--module-precision sets the precision of an "
				"FP8 or NVFP4 model's linear layers: give "
				"--precision fp8 or nvfp4");
	if (p->have_rt &&
	    runtime_check_train(&p->rt, co->precision,
				co->fp8_recipe >= 0 ? co->fp8_recipe
						    : p->rt.fp8_recipe,
				co->bf16_most, co->mixed, co->optimizer,
				why, sizeof(why)))
		cli_usage_error("%s", why);
}

void
par_opts_usage(FILE *fp)
{
	fputs(
		"      --expert-tensor-parallel MODE  tp (experts split like "
		"the tensor-parallel\n"
		"                           layers, default) or 1 (whole "
		"experts)\n"
		"      --moe-imbalance F    busiest GPU's expert tokens over the "
		"balanced share\n"
		"                           (default 1: dropless, balanced)\n"
		"      --capacity-factor F  each expert's rows padded to F times "
		"its balanced share\n"
		"                           (default: the model's "
		"capacity_factor)\n"
		"      --moe-rank-capacity F  each GPU's expert rows held to F "
		"times its balanced\n"
		"                           share in static buffers (HybridEP; "
		"needs the runtime's\n"
		"                           flex-dispatcher)\n"
		"      --interleave LIST    virtual stages per GPU for flush "
		"(search default:\n"
		"                           1,2,4 where the runtime "
		"interleaves)\n"
		"      --optimizer-sharding MODE  off, on (ZeRO-1) or both "
		"(search default:\n"
		"                           both where the runtime shards)\n"
		"      --zero LIST          ZeRO stages: 0 none, 1 optimizer "
		"state, 2 + gradients,\n"
		"                           3 + parameters (FSDP), or all "
		"(default: 0,1)\n"
		"      --shard-group N      HSDP: stages 2 and 3 shard in groups "
		"of N data-parallel\n"
		"                           ranks, replicated across (default: "
		"all ranks)\n"
		"      --offload MODE       activation CPU offload: off, on or "
		"both (default: off),\n"
		"                           or N: on, for the first N "
		"transformer blocks\n"
		"      --optimizer NAME     adam (default) or muon (Newton-Schulz "
		"on the blocks'\n"
		"                           matrices; Megatron-Core)\n"
		"      --lora R             train LoRA adapters of rank R on the "
		"blocks' linear\n"
		"                           layers, the model frozen "
		"(Megatron-Bridge's PEFT)\n"
		"      --lora-targets LIST  the linears that carry them: qkv,proj,"
		"fc1,fc2\n"
		"                           (default: all four)\n"
		"      --doc-len N          the sequences pack documents of N "
		"tokens, attention\n"
		"                           within each (default: the model's "
		"doc_len, or none)\n"
		"      --bf16-layers N[,M]  keep the first N (and last M, default "
		"N) blocks of\n"
		"                           an FP8 or NVFP4 model in 16 bits "
		"(Megatron's\n"
		"                           --first-last-layers-bf16)\n"
		"      --module-precision LIST  SITE=P,...: an FP8 or NVFP4 "
		"model's linears of\n"
		"                           a kind (qkv, proj, fc1, fc2, "
		"experts, shared-experts,\n"
		"                           latent, mamba-in, mamba-out, mtp) "
		"at P: bf16,\n"
		"                           tensorwise, blockwise, mxfp8 or "
		"nvfp4 (Megatron's\n"
		"                           --te-precision-config-file)\n",
	      fp);
}

/*
 * What selective recomputation means on the runtime: torchtitan's is its
 * per-op policy (selective_ac_option "op"; its other, "N", is
 * --recompute-every) and it has no module list; Megatron-Core's is its
 * --recompute-modules, and no other runtime runs the per-op policy.
 */
unsigned
par_opts_rc_modules(const struct par_opts *po, int given, unsigned m)
{
	int tt = po->have_rt && po->rt.rc_op;

	if (tt && !given)
		return ANALYTIC_RC_OP;
	if (tt && m != ANALYTIC_RC_OP)
		cli_usage_error("runtime torchtitan recomputes selectively "
				"per op (selective_ac_option \"op\"), not "
				"by module: --recompute-modules op");
	if (!tt && (m & ANALYTIC_RC_OP))
		cli_usage_error("--recompute-modules op is torchtitan's "
				"per-op policy: it needs --runtime "
				"torchtitan%s",
				po->have_rt ? "" : " (or --emit torchtitan)");
	return m;
}

void
par_opts_warn_profile(const struct par_opts *p, const struct profile *prof)
{
	if (p->have_fusions)
		pd2bw_warn("--fusions applies to models only; the profile's "
			   "times are kept");
	if (p->doc_len)
		pd2bw_warn("--doc-len applies to models only; the profile's "
			   "attention is as it was measured");
	if (p->lora)
		pd2bw_warn("--lora applies to models only; the profile is "
			   "priced as it was taken%s",
			   prof->lora_rank ? " (with its own LoRA)" : "");
	/* the layers' precision is in a profile's times, and the plan
	 * would name what was not priced */
	if (p->bf16_first + p->bf16_last > 0 || p->mixed)
		cli_usage_error("%s applies to models only: a profile's "
				"layers are priced at the precision they "
				"were taken at",
				p->mixed ? "--module-precision"
					 : "--bf16-layers");
}
