/*
 * from_plan.c - pd2bw-plan --emit FORMAT --from-plan PLAN: emit from a
 * saved plan without planning again.  The plan names its input (model or
 * profile) and cluster; both are read again for what the plan does not
 * keep (the model's architecture, the layer kinds, the chain for the
 * re-evaluation), and the plan's own prediction is re-evaluated first to
 * catch inputs that changed since.
 */
#include <math.h>
#include <string.h>

#include "emit/emit.h"
#include "input.h"
#include "pd2bw/afile.h"
#include "pd2bw/analytic.h"
#include "pd2bw/catalog.h"
#include "pd2bw/error.h"

/* Index of s in the NULL-terminated names, or -1. */
static int
name_index(const char *const *names, const char *s)
{
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

int
emit_from_plan(const struct emit_req *r, int n, const char *plan_path)
{
	struct plan p;
	struct gpu_catalog cat;
	struct cluster cl;
	struct profile prof;
	struct input_chains tc;
	struct chain ch;
	struct cost_opts co;
	struct emit_in ei;
	struct emit_rc self;
	char hash[17];
	int is_model = 0, ret = 1, mb[1], tps[1], r8 = FP8_DELAYED;

	plan_init(&p);
	catalog_init(&cat);
	cluster_init(&cl);
	profile_init(&prof);
	memset(&tc, 0, sizeof(tc));
	memset(&ch, 0, sizeof(ch));
	memset(&self, 0, sizeof(self));
	if (plan_load(&p, plan_path))
		goto out;
	if (!p.profile || !*p.profile || !p.cluster || !*p.cluster) {
		pd2bw_error("%s: the plan names no input or cluster", plan_path);
		goto out;
	}
	if (!plan_hash_file(p.profile, hash) && p.profile_hash &&
	    *p.profile_hash && strcmp(hash, p.profile_hash))
		pd2bw_warn("'%s' changed since the plan was made (hash %s, "
			   "the plan's %s)",
			   p.profile, hash, p.profile_hash);
	if (cluster_open(&cl, p.cluster))
		goto out;
	mb[0] = p.b;
	tps[0] = p.t;
	/* what the plan's estimate ran: its precision, FP8 recipe, fusions */
	if (p.precision && *p.precision) {
		int i = name_index(model_prec_names, p.precision);

		if (i < 0) {
			pd2bw_error("%s: unknown precision '%s'", plan_path,
				    p.precision);
			goto out;
		}
		input_set_precision(i);
	}
	if (p.fp8_recipe) {
		r8 = name_index(model_fp8_names, p.fp8_recipe);
		if (r8 < 0) {
			pd2bw_error("%s: unknown fp8_recipe '%s'", plan_path,
				    p.fp8_recipe);
			goto out;
		}
		input_set_fp8_recipe(r8);
	}
	if (p.fusions) {
		unsigned f;

		if (analytic_fusions_parse(p.fusions, &f)) {
			pd2bw_error("%s: bad fusions '%s'", plan_path,
				    p.fusions);
			goto out;
		}
		/* a list from before the norm fusion named the fused chains
		 * without it, where the norms were fused */
		if (strcmp(p.fusions, "none") && !(f & ANALYTIC_FUSE_NORM))
			pd2bw_warn("%s: fusions '%s' leave RMSNorms unfused; a "
				   "plan written before pd2bw priced the norm "
				   "fusion fused them: add norm to the list "
				   "for that",
				   plan_path, p.fusions);
		input_set_fusions(f);
	}
	if (p.attention) {
		int a = name_index(analytic_attn_names, p.attention);

		if (a < 0) {
			pd2bw_error("%s: unknown attention '%s'", plan_path,
				    p.attention);
			goto out;
		}
		input_set_attn(a);
	}
	if (p.recompute_modules) {
		unsigned rm;

		if (analytic_rc_modules_parse(p.recompute_modules, &rm)) {
			pd2bw_error("%s: bad recompute_modules '%s'",
				    plan_path, p.recompute_modules);
			goto out;
		}
		input_set_rc_modules(rm);
	}
	{
		/* what the plan's runtime fixes of the estimate */
		struct runtime rt;
		char why[256];
		int have = p.runtime && *p.runtime &&
			   runtime_parse(&rt, p.runtime) == 0;

		if (have)
			input_set_runtime(&rt);
		/* the op fuser runs the experts' clamp inside their
		 * activation (par_opts_apply_input() takes it from the
		 * runtime, which only --runtime names) */
		if (have && runtime_has(&rt, RUNTIME_OPT_OP_FUSER))
			input_set_clamp_eager(rt.clamp_eager);
		/* who casts the FP8 operands (torchao each GEMM's, as
		 * par_opts_apply_input() takes it from the runtime) */
		if (have)
			input_set_fp8_casts(rt.fp8_casts);
		/* HybridEP's budget and the paged stash, as
		 * par_opts_check_moe() holds them */
		if (runtime_check_moe(have ? &rt : NULL, p.moe_rank_capacity,
				      p.offload, why, sizeof(why))) {
			pd2bw_error("%s: %s", plan_path, why);
			goto out;
		}
		if (p.moe_rank_capacity > 0 && p.capacity_factor > 0) {
			pd2bw_error("%s: capacity_factor and moe_rank_capacity "
				    "both set; a plan prices one", plan_path);
			goto out;
		}
		/* the model's or --capacity-factor's, as the plan priced */
		input_set_capacity(p.capacity_factor);
	}
	input_set_doc_len(p.doc_len);
	input_set_lora(p.lora_rank);
	input_set_bf16_layers(p.bf16_first, p.bf16_last);
	{
		unsigned char sp[ANALYTIC_SITES];
		char err[200];

		memset(sp, 0, sizeof(sp));
		if (p.module_precision &&
		    analytic_site_prec_parse(p.module_precision, sp, err,
					     sizeof(err))) {
			pd2bw_error("%s: bad module_precision: %s", plan_path,
				    err);
			goto out;
		}
		input_set_site_prec(sp);
	}
	if (p.lora_targets) {
		unsigned lt;

		if (analytic_lora_targets_parse(p.lora_targets, &lt)) {
			pd2bw_error("%s: bad lora_targets '%s'", plan_path,
				    p.lora_targets);
			goto out;
		}
		input_set_lora_targets(lt);
	}
	if (input_load(&prof, p.profile, &cat, p.gpu, NULL, mb, 1, p.seq_len,
		       &is_model))
		goto out;
	if (chain_build(&ch, &prof))
		goto out;
	if (is_model) {
		/* the plan's context and expert parallelism, and what its
		 * MoE layers were priced with */
		struct input_par ip;
		int cps[1], eps[1];

		memset(&ip, 0, sizeof(ip));
		cps[0] = p.c > 1 ? p.c : 1;
		eps[0] = p.e > 1 ? p.e : 1;
		ip.cps = cps;
		ip.ncp = 1;
		ip.eps = eps;
		ip.nep = 1;
		ip.imbalance = p.moe_imbalance > 1 ? p.moe_imbalance : 1;
		ip.rank_capacity = p.moe_rank_capacity;
		ip.etp_one = p.etp == 1 && p.t > 1;
		ip.strict = 1;
		if (input_par_chains(&tc, p.profile, catalog_find(&cat, p.gpu),
				     cl.gpus_per_node, mb, 1, p.seq_len, tps, 1,
				     p.sp ? 1 : 0, &ip))
			goto out;
	}
	cost_opts_init(&co);
	{
		struct runtime rt;
		int have = p.runtime && *p.runtime &&
			   runtime_parse(&rt, p.runtime) == 0;

		input_cost_opts(&co, &prof, catalog_find(&cat, p.gpu),
				have ? &rt : NULL);
	}
	co.cap_bytes = (double)p.gpu_mem_bytes - (double)p.reserve_bytes;
	/* the memory figures the plan was made with */
	input_memory_figures(&co, p.weight_bytes, p.grad_bytes, p.opt_bytes,
			     p.version_bytes, p.context_gib, p.frag);
	co.fp8_recipe = r8;
	co.bf16_most = p.bf16_first > p.bf16_last ? p.bf16_first : p.bf16_last;
	co.mixed = p.module_precision != NULL;
	co.optimizer = p.optimizer;
	co.offload_blocks = p.offload ? p.offload_blocks : 0;

	memset(&ei, 0, sizeof(ei));
	ei.p = &p;
	ei.prof = &prof;
	ei.model = tc.have_model ? &tc.model : NULL;
	ei.c = is_model ? (tc.n ? tc.sc[0].c : NULL) : &ch;
	ei.o = &co;
	ei.cl = &cl;
	ei.gpu = catalog_find(&cat, p.gpu);
	/* The plan's own recomputation must give the plan's prediction, or
	 * the re-evaluation of what runs would compare unlike things. */
	self.layer_rc = xcalloc((size_t)p.nlayers, sizeof(int));
	if (p.layer_rc)
		memcpy(self.layer_rc, p.layer_rc,
		       (size_t)p.nlayers * sizeof(int));
	if (emit_rc_eval(&ei, &self))
		goto out;
	if (!self.evaluated ||
	    fabs(self.iter_ms - p.iter_ms) > 1e-3 * p.iter_ms + 1e-6) {
		pd2bw_warn("%s: the inputs no longer give the plan's "
			   "prediction (the model, profile or cluster "
			   "changed, or an older pd2bw-plan made it): not "
			   "re-evaluating",
			   plan_path);
		ei.c = NULL;
	}
	/* several outputs: all of them or none */
	afile_batch_begin();
	ret = emit_write_all(&ei, r, n) ? 1 : 0;
	if (afile_batch_end(ret == 0))
		ret = 1;
out:
	emit_rc_release(&self);
	input_chains_release(&tc);
	chain_release(&ch);
	profile_release(&prof);
	cluster_release(&cl);
	catalog_release(&cat);
	plan_release(&p);
	return ret;
}
