/*
 * input.c - load the planner's input: profile, PipeDream graph, or model.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "input.h"
#include "pd2bw/analytic.h"
#include "pd2bw/cluster.h"
#include "pd2bw/datadir.h"
#include "pd2bw/error.h"
#include "pd2bw/infile.h"
#include "pd2bw/model.h"
#include "pd2bw/runtime.h"

const char *
input_resolve(const char *path, char *buf, size_t n)
{
	return pd2bw_resolve_model(path, buf, n);
}

/* A model is a pd2bw-model file or JSON (Hugging Face config). */
static int
looks_like_model(const char *buf, size_t len)
{
	size_t i = 0;

	while (i < len && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\t' ||
			   buf[i] == '\r'))
		i++;
	if (i < len && buf[i] == '{')
		return 1;
	for (; i + 12 < len; i++)
		if (!memcmp(buf + i, "pd2bw-model/", 12))
			return 1;
	return 0;
}

/* --precision for every model this run reads; -1: the model's own. */
static int override_prec = -1;

void
input_set_precision(int prec)
{
	override_prec = prec;
}

/* --capacity-factor for every MoE model this run reads; 0: the model's
 * own. */
static double override_cf;

void
input_set_capacity(double cf)
{
	override_cf = cf;
}

/* How every estimate this run makes runs its kernels (--fusions,
 * --fp8-recipe) and what selective recomputation recomputes
 * (--recompute-modules). */
static struct analytic_opts est;
static int est_set;

/* est, at analytic_opts_init()'s defaults until set */
static struct analytic_opts *
opts(void)
{
	if (!est_set) {
		analytic_opts_init(&est);
		est_set = 1;
	}
	return &est;
}

void
input_set_fusions(unsigned f)
{
	opts()->fusions = f;
}

/* The runtime fuses the rotary embedding only for plain rotary
 * positions (runtime.rope_plain); off when --fusions is given. */
static int rope_plain;

void
input_set_rope_plain(int on)
{
	rope_plain = on;
}

/* What m changes of the run's estimates: a runtime that fuses only
 * plain rotary positions runs YaRN's unfused. */
static void
model_fusions(const struct model *m)
{
	if (rope_plain && model_yarn_positions(m))
		opts()->fusions &= ~ANALYTIC_FUSE_ROPE;
}

void
input_set_fp8_recipe(int r)
{
	opts()->fp8_recipe = r;
}

void
input_set_fp8_casts(int c)
{
	opts()->fp8_casts = c;
}

void
input_set_xent_copy(int on)
{
	opts()->xent_copy = on;
}

void
input_set_clamp_eager(int on)
{
	opts()->clamp_eager = on;
}

void
input_set_vocab_pad(int pad)
{
	opts()->vocab_pad = pad;
}

void
input_set_runtime(const struct runtime *rt)
{
	struct analytic_opts *o = opts();

	o->capacity_factor = rt ? rt->capacity_factor : 0;
	o->min_capacity = rt ? rt->min_capacity : 0;
	o->dropless = rt && rt->dropless;
	o->dense_dispatch = rt && rt->moe_dense_dispatch;
	o->rc_early_stop = rt && rt->rc_early_stop;
	o->moe_graphs = rt ? runtime_moe_graphs(rt) : 0;
	o->fp8_head = rt && runtime_has(rt, RUNTIME_OPT_FP8_OUTPUT_PROJ);
	o->paged_stash = rt ? runtime_paged_stash(rt) : 0;
	o->tp_dgrad = rt && rt->tp_dgrad_overlap;
	o->cp_f32 = rt && rt->cp_merge_f32;
	o->repeat_kv = rt && runtime_has(rt, RUNTIME_OPT_REPEAT_KV);
	o->split_proj = rt && rt->split_proj;
	o->sp_copy = rt ? rt->sp_dim_copy : 0;
	o->tp_ub = rt && runtime_has(rt, RUNTIME_OPT_TP_COMM_OVERLAP);
}

void
input_set_rc_modules(unsigned m)
{
	opts()->rc_modules = m;
}

unsigned
input_rc_modules(void)
{
	return opts()->rc_modules;
}

unsigned
input_fusions(void)
{
	return opts()->fusions;
}

void
input_set_attn(int a)
{
	opts()->attn = a;
}

int
input_attn(void)
{
	return opts()->attn;
}

void
input_set_lora(int r)
{
	opts()->lora_rank = r;
}

void
input_set_lora_targets(unsigned t)
{
	opts()->lora_targets = t;
}

unsigned
input_lora_targets(void)
{
	return opts()->lora_targets;
}

void
input_set_bf16_layers(int first, int last)
{
	opts()->bf16_first = first;
	opts()->bf16_last = last;
}

int
input_bf16_first(void)
{
	return opts()->bf16_first;
}

int
input_bf16_last(void)
{
	return opts()->bf16_last;
}

void
input_set_site_prec(const unsigned char *site_prec)
{
	memcpy(opts()->site_prec, site_prec, sizeof(opts()->site_prec));
}

const unsigned char *
input_site_prec(void)
{
	return opts()->site_prec;
}

/* --doc-len for every model this run reads; 0: the model's own. */
static int64_t override_doc;

void
input_set_doc_len(int64_t n)
{
	override_doc = n;
}

/* Train m at seq_len (> 0) instead of its own length, on documents of
 * the length asked for, in the precision and with the expert capacity
 * asked for. */
static void
apply_overrides(struct model *m, int64_t seq_len)
{
	if (override_prec >= 0)
		m->precision = override_prec;
	if (override_cf > 0 && m->moe.experts)
		m->moe.capacity_factor = override_cf;
	if (seq_len > 0)
		m->seq_len = seq_len;
	if (override_doc > 0)
		m->doc_len = override_doc;
}

int
input_load(struct profile *p, const char *path, const struct gpu_catalog *cat,
	   const char *gpu, const char *gpu_at, const int *mb, int nmb,
	   int64_t seq_len, int *is_model)
{
	size_t len = 0;
	const char *file = infile_read(path, &len), *buf = file;
	int ret;

	*is_model = 0;
	if (!file)
		return -1;
	/* a byte-order mark would hide the '{' of a JSON config */
	if (infile_text(path, &buf, &len)) {
		ret = -1;
	} else if (looks_like_model(buf, len)) {
		struct model m;
		const struct gpu_spec *g = catalog_find(cat, gpu);

		*is_model = 1;
		model_init(&m);
		ret = model_load_string(&m, path, buf, len);
		apply_overrides(&m, seq_len);
		model_fusions(&m);
		if (!ret && !g)
			ret = pd2bw_error("%s%sunknown GPU '%s' (see "
					  "pd2bw-profile --list-gpus)",
					  gpu_at ? gpu_at : "",
					  gpu_at ? ": " : "", gpu);
		if (!ret) {
			if (nmb <= 0) {
				mb = analytic_default_mb;
				nmb = analytic_default_nmb;
			}
			ret = analytic_profile_opts(p, &m, g, mb, nmb, 1, 0,
						    opts());
		}
		model_release(&m);
	} else {
		ret = profile_load_string(p, path, buf, len);
	}
	infile_release(file);
	return ret;
}

int
input_tp_chains(struct input_chains *x, const char *path,
		const struct gpu_spec *g, int gpus_per_node, const int *mb,
		int nmb, int64_t seq_len, const int *tps, int ntp, int sp_mode)
{
	struct input_par par;

	memset(&par, 0, sizeof(par));
	par.imbalance = 1;
	return input_par_chains(x, path, g, gpus_per_node, mb, nmb, seq_len,
				tps, ntp, sp_mode, &par);
}

/* The estimator's split: tensor parallelism t (sequence parallelism sp),
 * context cp, experts over ep with expert tensor parallelism etp, load
 * imbalance imb and per-rank budget rcap, as the search's chains and the
 * plan's kernels (input_plan_kernels()) both price it. */
static void
par_of(struct analytic_par *par, int t, int sp, int cp, int ep, int etp,
       double imb, double rcap)
{
	memset(par, 0, sizeof(*par));
	par->tp = t;
	par->sp = sp;
	par->cp = cp;
	par->ep = ep;
	par->etp = etp;
	par->imbalance = imb;
	par->rank_capacity = rcap;
}

/* Whether tensor-parallel degree t divides the node and model m's
 * heads, KV heads, MLP and Mamba heads and groups. */
static int
tp_divides(const struct model *m, int gpus_per_node, int t)
{
	int64_t kv = m->kv_heads > 0 ? m->kv_heads : m->heads;

	return !(gpus_per_node % t || m->heads % t || m->ffn_hidden % t ||
		 (kv % t && t % kv) ||
		 (m->mamba.heads &&
		  (m->mamba.heads % t || m->mamba.groups % t)));
}

/* Add m's chains at context-parallel degree cp over the degrees tps. */
static int
add_chains(struct input_chains *x, const struct model *m,
	   const struct gpu_spec *g, int gpus_per_node, const int *mb,
	   int nmb, const int *tps, int ntp, int sp_mode, int cp, int ep,
	   double imb, double rcap, int etp_one, int rt_id, int prune,
	   int *pruned)
{
	int i, sp;
	struct runtime rt;

	/* runtime rt_id's chains (with prune, those it can run alone:
	 * the search turns the others away; *pruned counts the shapes
	 * left out so) */
	runtime_init(&rt, rt_id >= 0 ? rt_id : RUNTIME_MEGATRON_CORE);
	prune = prune && rt_id >= 0;
	if (prune && ((cp > 1 && !rt.cp) || (ep > 1 && !rt.ep))) {
		++*pruned;
		return 0;
	}
	for (i = 0; i < ntp; i++) {
		int t = tps[i];

		if (!tp_divides(m, gpus_per_node, t))
			continue;
		if (prune && t > 1 && !rt.tp) {
			++*pruned;
			continue;
		}
		/* experts are split t ways too (expert tensor parallelism t),
		 * or whole (1) */
		if (m->moe.experts &&
		    ((!etp_one && m->moe.expert_ffn % t) ||
		     m->moe.shared_ffn % t))
			continue;
		for (sp = 0; sp < 2; sp++) {
			struct analytic_par par;
			int n = x->n;

			if (sp ? t == 1 || sp_mode == 0 ||
				     (prune && !rt.sp)
			       : t > 1 && sp_mode == 1)
				continue;
			if (n == INPUT_MAX_CHAINS)
				return pd2bw_error("more than %d shapes to "
						   "estimate (tensor x sequence "
						   "x context x expert "
						   "parallelism); give fewer "
						   "degrees",
						   INPUT_MAX_CHAINS);
			profile_init(&x->prof[n]);
			x->n++;
			par_of(&par, t, sp, cp, ep, etp_one ? 1 : t, imb, rcap);
			if (analytic_profile_par(&x->prof[n], m, g, mb, nmb,
						 &par, opts()) ||
			    chain_build(&x->ch[n], &x->prof[n]))
				return -1;
			x->sc[n].c = &x->ch[n];
			x->sc[n].t = t;
			x->sc[n].sp = sp;
			x->sc[n].cp = cp;
			x->sc[n].ep = ep;
			x->sc[n].etp = m->moe.experts && etp_one ? 1 : t;
			x->sc[n].runtime = rt_id + 1;
		}
	}
	return 0;
}

int
input_par_chains(struct input_chains *x, const char *path,
		 const struct gpu_spec *g, int gpus_per_node, const int *mb,
		 int nmb, int64_t seq_len, const int *tps, int ntp,
		 int sp_mode, const struct input_par *par)
{
	static const int dflt[] = {1, 2, 4, 8}, one[] = {1};
	const int *cps = par->ncp ? par->cps : one;
	const int *eps = par->nep ? par->eps : one;
	int ncp = par->ncp ? par->ncp : 1, nep = par->nep ? par->nep : 1;
	int strict = par->strict;
	int auto_eps[16];
	struct model m;
	int ci, ei, ri, ti, pruned = 0, ret = -1;

	memset(x, 0, sizeof(*x));
	if (!ntp) {
		tps = dflt;
		ntp = 4;
	}
	if (nmb <= 0) {
		mb = analytic_default_mb;
		nmb = analytic_default_nmb;
	}
	model_init(&m);
	if (model_load(&m, path))
		goto out;
	apply_overrides(&m, seq_len);
	model_fusions(&m);
	if (!m.moe.experts && (override_cf > 0 || par->imbalance != 1 ||
			       par->rank_capacity > 0)) {
		pd2bw_error("%s: model '%s' has no experts for %s", path,
			    m.name ? m.name : "",
			    override_cf > 0	      ? "--capacity-factor"
			    : par->rank_capacity > 0 ? "--moe-rank-capacity"
						     : "--moe-imbalance");
		goto out;
	}
	if (par->rank_capacity > 0 && m.moe.capacity_factor > 0) {
		pd2bw_error("%s: model '%s' pads its experts to capacity_factor "
			    "%g, which sets the dispatcher's buffers in place of "
			    "--moe-rank-capacity", path, m.name ? m.name : "",
			    m.moe.capacity_factor);
		goto out;
	}
	if (par->ep_auto && !par->nep && m.moe.experts > 1) {
		/* (t, sp) shapes per (c, e) pair: at most two per degree
		 * and runtime that runs experts in parallel */
		int per = 2 * ntp * ncp, e, ne = 0;

		for (ri = 0; ri < par->nrt; ri++) {
			struct runtime rt;

			runtime_init(&rt, par->rts[ri]);
			ne += rt.ep;
		}
		per *= ne > 1 ? ne : 1;

		nep = 0;
		/* groups of up to a node's GPUs, so that every all-to-all
		 * can stay in one NVLink domain: on an NVL72 rack 16 to 64
		 * too, which do not tile its 72 GPUs but are the degrees
		 * NVIDIA's rack recipes run (EP 64 for GPT-OSS and Nemotron
		 * 3 Super, 32 and 64 for DeepSeek-V3; Megatron-Bridge
		 * perf_recipes at 067f987); the placement prices a group
		 * that crosses nodes.  Capacity's sweeps keep the groups
		 * that tile the node (ep_tile). */
		for (e = 1; e <= gpus_per_node && e <= m.moe.experts &&
			    nep < (int)(sizeof(auto_eps) / sizeof(*auto_eps)) &&
			    (nep + 1) * per <= INPUT_MAX_CHAINS;
		     e *= 2)
			if (m.moe.experts % e == 0 &&
			    (!par->ep_tile || gpus_per_node % e == 0))
				auto_eps[nep++] = e;
		if (!nep)
			auto_eps[nep++] = 1;
		eps = auto_eps;
	}
	for (ci = 0; ci < ncp + nep; ci++) {
		char why[256];
		int bad = ci < ncp
				  ? analytic_cp_check(&m, cps[ci], why,
						      sizeof(why))
				  : analytic_ep_check(&m, eps[ci - ncp], why,
						      sizeof(why));

		if (!bad)
			continue;
		if (strict) {
			pd2bw_error("%s", why);
			goto out;
		}
		if (x->nskip < INPUT_MAX_SKIPS)
			snprintf(x->skip_why[x->nskip++],
				 sizeof(x->skip_why[0]), "%s", why);
	}
	for (ri = 0; ri < (par->nrt > 0 ? par->nrt : 1); ri++) {
		int id = par->nrt > 0 ? par->rts[ri] : -1;

		if (id >= 0)
			input_par_runtime(par, id, &m);
		for (ci = 0; ci < ncp; ci++)
			for (ei = 0; ei < nep; ei++) {
				char why[256];

				if (analytic_cp_check(&m, cps[ci], why,
						      sizeof(why)) ||
				    analytic_ep_check(&m, eps[ei], why,
						      sizeof(why)))
					continue;
				if (add_chains(x, &m, g, gpus_per_node, mb,
					       nmb, tps, ntp, sp_mode, cps[ci],
					       eps[ei], par->imbalance,
					       par->rank_capacity,
					       par->etp_one, id, !strict,
					       &pruned))
					goto out;
			}
	}
	for (ti = 0; ti < ntp && !tp_divides(&m, gpus_per_node, tps[ti]); ti++)
		;
	if (!x->n && ti == ntp) {
		pd2bw_error("no tensor-parallel degree divides the %d GPUs per "
			    "node and the model",
			    gpus_per_node);
		goto out;
	}
	if (!x->n && pruned) {
		/* every shape asked for is one the default runtimes of the
		 * schedules searched cannot run */
		char names[128];
		size_t k = 0;

		names[0] = 0;
		for (ri = 0; ri < par->nrt; ri++)
			k += (size_t)snprintf(names + k,
					      k < sizeof(names)
						      ? sizeof(names) - k
						      : 0,
					      "%s%s", ri ? ", " : "",
					      runtime_names[par->rts[ri]]);
		pd2bw_error("the runtime%s that run%s the schedules searched "
			    "(%s) cannot run the tensor, context or expert "
			    "parallelism asked for; --runtime names one that "
			    "can",
			    par->nrt > 1 ? "s" : "", par->nrt > 1 ? "" : "s",
			    names);
		goto out;
	}
	if (!x->n && x->nskip) {
		pd2bw_error("%s", x->skip_why[0]);
		goto out;
	}
	if (!x->n) {
		pd2bw_error("no tensor-parallel degree divides the %d GPUs per "
			    "node and the model",
			    gpus_per_node);
		goto out;
	}
	ret = 0;
out:
	if (ret) {
		model_release(&m);
	} else {
		x->model = m;
		x->have_model = 1;
	}
	return ret;
}

int
input_plan_kernels(const struct input_chains *x, const struct plan *pl,
		   const struct gpu_spec *g, struct profile *p,
		   struct kernel_list *ks)
{
	struct analytic_par par;
	int mb = pl->b;

	if (!x->have_model)
		return pd2bw_error("%s", "the kernels are the estimate's of a "
				   "model; a profile holds measured times");
	par_of(&par, pl->t, pl->sp, pl->c > 1 ? pl->c : 1,
	       pl->e > 1 ? pl->e : 1, pl->etp > 0 ? pl->etp : pl->t,
	       pl->moe_imbalance > 0 ? pl->moe_imbalance : 1,
	       pl->moe_rank_capacity);
	return analytic_profile_kernels(p, &x->model, g, &mb, 1, &par, opts(),
					ks);
}

void
input_chains_release(struct input_chains *x)
{
	int i;

	for (i = 0; i < x->n; i++) {
		chain_release(&x->ch[i]);
		profile_release(&x->prof[i]);
	}
	x->n = 0;
	if (x->have_model)
		model_release(&x->model);
	x->have_model = 0;
}

void
input_cost_opts(struct cost_opts *o, const struct profile *p,
		const struct gpu_spec *g, const struct runtime *rt)
{
	cost_opts_from_profile(o, p, g);
	if (rt) {
		o->runtime = rt->id;
		o->rts[rt->id] = *rt;
	}
}

void
input_par_runtime(const struct input_par *par, int id, const struct model *m)
{
	par->set_runtime(par->arg, id);
	model_fusions(m);
}

#define GIB (1024.0 * 1024.0 * 1024.0)

void
input_memory_figures(struct cost_opts *o, double wb, double gb, double ob,
		     double vb, double ctx_gib, double frag)
{
	int i;

	if (wb >= 0)
		o->weight_bytes = wb;
	if (gb >= 0)
		o->grad_bytes = gb;
	if (ob >= 0)
		o->opt_bytes = ob;
	if (vb >= 0)
		o->version_bytes = vb;
	for (i = 0; i < RUNTIME_N; i++) {
		if (ctx_gib >= 0)
			o->rts[i].context_bytes = ctx_gib * GIB;
		if (frag >= 0)
			o->rts[i].frag = frag;
	}
}

int
input_gpu_on_nodes(struct cluster *cl, const struct gpu_catalog *cat,
		   const struct gpu_spec *g, const char *where)
{
	const struct gpu_spec *had = catalog_find(cat, cl->gpu);
	double link;
	int kind, i, j, n = cl->gpus_per_node;

	if (!g || had == g)
		return 0;
	kind = g->nvlink_gb_s > 0 ? CLUSTER_NVSWITCH : CLUSTER_PCIE;
	link = g->nvlink_gb_s > 0 ? g->nvlink_gb_s : g->pcie_gb_s;
	pd2bw_warn("planning %s on %s's nodes, which hold %s: memory "
		   "(%.0f GiB) and links (%s, %.0f GB/s per GPU) from the "
		   "GPU catalog; %d GPUs per node and the network (%.1f GB/s "
		   "per GPU) kept from %s",
		   g->name, where, cl->gpu, g->mem_bytes / GIB,
		   cluster_link_names[kind], link, n, cl->net_gb_s, where);
	free(cl->gpu);
	cl->gpu = xstrdup(g->name);
	cl->gpu_mem_bytes = g->mem_bytes;
	cl->intra_kind = kind;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			cl->intra_gb_s[i * n + j] = i == j ? 0 : link;
	return 1;
}

/* The catalog entry a device name denotes: the name itself, or its tail
 * after a vendor word ("NVIDIA H100 80GB HBM3" -> "H100 80GB HBM3"). */
static const struct gpu_spec *
device_spec(const struct gpu_catalog *cat, const char *device)
{
	const struct gpu_spec *g = NULL;
	const char *sp;

	for (sp = device; !g && sp; sp = strchr(sp + 1, ' '))
		g = catalog_find(cat, *sp == ' ' ? sp + 1 : sp);
	return g;
}

int
input_check_device(const struct profile *p, const char *path,
		   const struct gpu_catalog *cat, const char *gpu)
{
	const struct gpu_spec *want = catalog_find(cat, gpu);
	const struct gpu_spec *had;

	if (!p->device || !*p->device || !gpu)
		return 0;
	had = device_spec(cat, p->device);
	if (had && want ? had == want : !strcasecmp(p->device, gpu))
		return 0;
	pd2bw_warn("'%s' was measured on %s, not on the %s planned: its "
		   "times are that device's; for %s plan the model itself "
		   "(an analytic estimate), or calibrate the estimate to a "
		   "measurement on one: pd2bw-profile --calibrate PROFILE -g "
		   "%s --gpus-out gpus.yaml MODEL, then --gpus-file gpus.yaml",
		   path, p->device, gpu, gpu, gpu);
	return 1;
}
