/*
 * capacity.c - the capacity subcommand: its options, each GPU type's
 * model (estimated once per type, or a measured profile read) and node
 * shape, the hint for a type no size fits, and the report.  The sweep
 * itself, one search a size, and the figures derived from it are
 * libpd2bw's (pd2bw/capacity.h, lib/search/capacity.c).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "capacity.h"
#include "input.h"
#include "par_opts.h"
#include "pd2bw/analytic.h"
#include "pd2bw/afile.h"
#include "pd2bw/catalog.h"
#include "pd2bw/cli.h"
#include "pd2bw/error.h"
#include "pd2bw/model.h"
#include "pd2bw/plan.h"
#include "pd2bw/profile.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
#define MAX_MB 64
#define MAX_SIZES 4096
#define MAX_TP 8

/* ---- options ---- */

enum {
	OPT_BATCH_TOKENS = 256,
	OPT_SEQ_LEN,
	OPT_PROFILE,
	OPT_STEPS,
	OPT_NODES,
	OPT_EFFICIENCY,
	OPT_MICROBATCHES,
	OPT_RESERVE,
	OPT_GPUS_FILE,
	OPT_SVG,
	OPT_TOKENS,
};

static const struct option longopts[] = {
	{"tokens", required_argument, NULL, OPT_TOKENS},
	{"gpu", required_argument, NULL, 'g'},
	{"profile", required_argument, NULL, OPT_PROFILE},
	{"deadline", required_argument, NULL, 'd'},
	{"price", required_argument, NULL, 'p'},
	{"max-nodes", required_argument, NULL, 'n'},
	{"steps", required_argument, NULL, OPT_STEPS},
	{"nodes", required_argument, NULL, OPT_NODES},
	{"batch", required_argument, NULL, 'B'},
	{"batch-tokens", required_argument, NULL, OPT_BATCH_TOKENS},
	{"seq-len", required_argument, NULL, OPT_SEQ_LEN},
	{"efficiency", required_argument, NULL, OPT_EFFICIENCY},
	{"tp", required_argument, NULL, 't'},
	{"schedule", required_argument, NULL, 's'},
	{"recompute", required_argument, NULL, 'r'},
	{"microbatches", required_argument, NULL, OPT_MICROBATCHES},
	{"reserve", required_argument, NULL, OPT_RESERVE},
	{"gpus-file", required_argument, NULL, OPT_GPUS_FILE},
	PAR_OPTS_LONGOPTS,
	{"format", required_argument, NULL, 'f'},
	{"output", required_argument, NULL, 'o'},
	{"svg", required_argument, NULL, OPT_SVG},
	{"jobs", required_argument, NULL, 'j'},
	{"quiet", no_argument, NULL, 'q'},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

static void
usage(FILE *fp)
{
	fprintf(fp,
		"usage: %s capacity [options] MODEL --tokens N --gpu TYPE "
		"[--gpu TYPE ...]\n"
		"\n"
		"Plan MODEL on a sweep of cluster sizes for each GPU type and "
		"report\nthroughput, time to train, GPU-hours and cost; the "
		"smallest cluster that\nfits, the cheapest that meets the "
		"deadline, where scaling stops paying.\n"
		"MODEL is a pd2bw model or Hugging Face config.json "
		"(estimated for each\nGPU type) or a profile.  For a mixture "
		"of experts the search tries expert\nparallelism too; when "
		"no size fits, the report names an option that would.\n"
		"\n"
		"      --tokens N           tokens to train on; suffix k, M, "
		"G or B, T (1e3..1e12)\n"
		"  -g, --gpu TYPE[:NODE]    a GPU type and its node (preset or "
		"cluster file);\n"
		"                           default node: dgx-h100 for "
		"H100-SXM, dgx-h200,\n"
		"                           dgx-a100, p3.16xlarge (V100-16GB), "
		"l40s-pcie, hgx-h800,\n"
		"                           gh200-quad (GH200), dgx-b200, "
		"gb200-nvl72 (GB200),\n"
		"                           gb300-nvl72 (GB300), dgx-b300\n"
		"      --profile TYPE:FILE  a measured profile for TYPE instead "
		"of the estimate\n"
		"  -d, --deadline DAYS      time to train allowed\n"
		"  -p, --price [TYPE:]USD   price per GPU-hour (of TYPE, or of "
		"every type)\n"
		"  -n, --max-nodes K        largest cluster in nodes (default "
		"128)\n"
		"      --steps N            cluster sizes at most (default 64): "
		"every node count\n"
		"                           up to K, or N geometric steps from 1 "
		"to K\n"
		"      --nodes LIST         node counts to plan instead "
		"(1,2,4,...)\n"
		"  -B, --batch N            global batch in samples\n"
		"      --batch-tokens T     global batch in tokens (default "
		"4194304)\n"
		"      --seq-len S          tokens per sample (default: the "
		"model's)\n"
		"      --efficiency PCT     scaling efficiency still worth "
		"paying for (default 50)\n"
		"  -t, --tp LIST            tensor-parallel degrees for a "
		"model (default 1,2,4,8)\n"
		"  -s, --schedule LIST      2bw,flush,gpipe,none (default: "
		"2bw,flush,none)\n"
		"  -r, --recompute LIST     none,selective,full (default: "
		"all)\n",
		pd2bw_progname);
	fputs("      --sequence-parallel MODE  off, on or both (default: "
		"both)\n"
		"      --context-parallel LIST  context-parallel degrees for a "
		"model (default 1):\n"
		"                           each rank holds seq/N tokens, K/V "
		"ring in attention\n"
		"      --expert-parallel LIST  expert-parallel degrees for a MoE "
		"model (default:\n"
		"                           the powers of two that divide "
		"the GPUs per node\n"
		"                           and the experts; 1 for a dense "
		"model)\n",
	      fp);
	par_opts_usage(fp);
	fprintf(fp,
		"      --precision P        train the model in bf16, fp16, fp32, "
		"fp8 or nvfp4\n"
		"      --fp8-recipe R       with fp8: delayed (default), "
		"tensorwise, blockwise\n"
		"                           or mxfp8 (Blackwell)\n"
		"      --fusions LIST       kernels the estimate fuses: act, "
		"dropadd, rope, xent,\n"
		"                           norm, all or none (default: the "
		"--runtime's, else all)\n"
		"      --attention-kernel K attention kernel: native "
		"(default), fa2\n"
		"                           (FlashAttention-2 class), "
		"triton or fp8\n"
		"      --runtime NAME[:OPT,no-OPT,...]\n"
		"                           what runs the plans: pipedream-2bw, "
		"megatron-core,\n"
		"                           deepspeed, torchtitan, pytorch-ddp "
		"(default: per\n"
		"                           schedule)\n"
		"      --microbatches LIST  microbatch sizes to estimate "
		"(default 1,2,4,...,64)\n"
		"      --reserve GIB        memory kept free per GPU (default "
		"1)\n"
		"      --gpus-file FILE     add GPU types from a pd2bw-gpus "
		"file\n"
		"  -f, --format FMT         table, csv or yaml (default: from "
		"-o's name, or table)\n"
		"  -o, --output FILE        write the report there; the table "
		"still goes to stdout\n"
		"      --svg FILE           plot time to train and cost against "
		"GPUs\n"
		"  -j, --jobs N             threads that search (default: one "
		"per online CPU)\n"
		"  -q, --quiet              no table on stdout when -o is "
		"given\n"
		"  -h, --help               show this help\n"
		"  -V, --version            show the version\n"
		"\n"
		"Examples:\n"
		"  %s capacity llama3-70b --tokens 2T --gpu H100-SXM "
		"--gpu H200 \\\n"
		"      --price H100-SXM:2.5 --price H200:3.5 --deadline 90\n"
		"  %s capacity gpt-2.2b --tokens 100G --gpu V100-16GB "
		"--nodes 1,2,4,8 -f csv\n"
		"  %s capacity gpt-3.8b --tokens 300G --gpu H200:dgx-a100 "
		"-n 16   (H200s in DGX A100 nodes)\n"
		"  %s capacity mixtral-8x7b --tokens 1T --gpu H100-SXM "
		"--zero all   (ZeRO and EP)\n",
		pd2bw_progname, pd2bw_progname, pd2bw_progname,
		pd2bw_progname);
}

/* A number > lo and <= hi (>= lo when lo_ok), with an optional decimal
 * suffix k, M, G or B, T when suffix is set. */
static double
parse_num(const char *opt, const char *s, double lo, int lo_ok, double hi,
	  int suffix)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s)
		cli_usage_error("invalid %s '%s'", opt, s);
	if (suffix && *end && !end[1]) {
		switch (*end) {
		case 'k':
		case 'K':
			v *= 1e3;
			end++;
			break;
		case 'M':
			v *= 1e6;
			end++;
			break;
		case 'G':
		case 'B':
			v *= 1e9;
			end++;
			break;
		case 'T':
			v *= 1e12;
			end++;
			break;
		}
	}
	if (*end || !(lo_ok ? v >= lo : v > lo) || !(v <= hi))
		cli_usage_error("invalid %s '%s'", opt, s);
	return v;
}

/* "TYPE:REST" options, collected for later. */
struct pair {
	char *key;   /* owned; NULL for a plain value */
	char *val;   /* owned */
};

struct pairs {
	struct pair *v;
	size_t n, alloc;
};

static void
pairs_add(struct pairs *p, const char *s, int need_key)
{
	const char *colon = strchr(s, ':');
	struct pair *e;

	xgrow((void **)&p->v, &p->alloc, p->n + 1, sizeof(*p->v));
	e = &p->v[p->n++];
	if (colon) {
		e->key = xmalloc((size_t)(colon - s) + 1);
		memcpy(e->key, s, (size_t)(colon - s));
		e->key[colon - s] = 0;
		e->val = xstrdup(colon + 1);
	} else {
		e->key = NULL;
		e->val = xstrdup(s);
	}
	if ((need_key && !e->key) || (e->key && !*e->key) || !*e->val)
		cli_usage_error(need_key == 2 ? "invalid --profile '%s' (expected "
					  "TYPE:FILE)"
					: "invalid value '%s'", s);
}

static void
pairs_release(struct pairs *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		free(p->v[i].key);
		free(p->v[i].val);
	}
	free(p->v);
}

/* Two GPU names are the same type: catalog aliases, else case-blind. */
static int
same_gpu(const struct gpu_catalog *cat, const char *a, const char *b)
{
	const struct gpu_spec *x = catalog_find(cat, a),
			      *y = catalog_find(cat, b);

	if (x || y)
		return x == y;
	return !strcasecmp(a, b);
}

/* The first preset whose nodes hold GPUs of type gpu, or NULL. */
static const char *
default_node(const struct gpu_catalog *cat, const char *gpu)
{
	const char *found = NULL;
	struct cluster cl;
	int i;

	cluster_init(&cl);
	for (i = 0; !found && cluster_preset_names[i]; i++)
		if (!cluster_preset(&cl, cluster_preset_names[i]) &&
		    same_gpu(cat, cl.gpu, gpu))
			found = cluster_preset_names[i];
	cluster_release(&cl);
	return found;
}

struct copts {
	const char *model;
	struct pairs gpus, prices, profiles;
	int nodes[MAX_SIZES], nnodes;
	int max_nodes, steps;
	int64_t batch;
	double batch_tokens;
	int64_t seq_len;
	int mb[MAX_MB], nmb;
	int tps[MAX_TP], ntp;
	int have_tp, have_sched, have_rc;
	double reserve_gib;
	const char *gpus_file;
	struct search_opts so;
	struct par_opts po;
};

/*
 * Set up one type: node shape, memory, price and profile name; the sweep
 * sizes as rows.  Returns 0 or -1.
 */
static int
setup_type(struct capacity *c, const struct copts *o,
	   const struct gpu_catalog *cat, const struct pair *g,
	   struct cluster *cl)
{
	const char *name = g->key ? g->key : g->val;
	const char *node = g->key ? g->val : NULL;
	const struct gpu_spec *spec = catalog_find(cat, name);
	struct capacity_type *t;
	size_t i;
	int j;

	if (spec)
		name = spec->name;
	if (!node) {
		node = default_node(cat, name);
		if (!node)
			return pd2bw_error("no preset has %s nodes; give "
					   "--gpu %s:PRESET or :CLUSTER_FILE",
					   name, name);
	}
	for (j = 0; j < c->ntypes; j++)
		if (!strcmp(c->types[j].gpu, name) &&
		    !strcmp(c->types[j].node, node))
			return pd2bw_error("%s on %s is given twice", name,
					   node);
	if (cluster_open(cl, node))
		return -1;
	t = capacity_add_type(c, name, node);
	t->gpus_per_node = cl->gpus_per_node;
	/* A node shape borrowed from another GPU type: memory and links
	 * are the catalog's for this type, as in plain pd2bw-plan. */
	input_gpu_on_nodes(cl, cat, spec, node);
	t->gpu_mem_bytes = cl->gpu_mem_bytes;
	for (i = 0; i < o->prices.n; i++) {
		const struct pair *p = &o->prices.v[i];

		if (!p->key || same_gpu(cat, p->key, name))
			t->usd_per_gpu_hour = strtod(p->val, NULL);
	}
	for (i = 0; i < o->profiles.n; i++)
		if (same_gpu(cat, o->profiles.v[i].key, name)) {
			free(t->profile);
			t->profile = xstrdup(o->profiles.v[i].val);
		}
	t->nrows = o->nnodes;
	t->rows = xcalloc((size_t)t->nrows, sizeof(*t->rows));
	for (j = 0; j < t->nrows; j++) {
		t->rows[j].nodes = o->nodes[j];
		t->rows[j].gpus = o->nodes[j] * t->gpus_per_node;
	}
	return 0;
}

/* A profile holds one split of the sequence and the experts: -1 with
 * plan mode's message when more were asked for, else 0. */
static int
par_not_model(const struct par_opts *po)
{
	int i;

	for (i = 0; i < po->ncp; i++)
		if (po->cps[i] > 1)
			return pd2bw_error("--context-parallel applies to "
					   "models: a profile holds one "
					   "sequence split");
	for (i = 0; i < po->nep; i++)
		if (po->eps[i] > 1)
			return pd2bw_error("--expert-parallel applies to "
					   "models: a profile holds one split "
					   "of the experts");
	return 0;
}

/* Whether a search at this many nodes finds a plan (its messages are
 * dropped). */
static int
fits_at(const struct search_chain *sc, int nsc, struct cluster *cl,
	const struct cost_opts *co, const struct search_opts *so, int nodes)
{
	struct capacity_type t;
	struct capacity_row r;
	int fits;

	memset(&t, 0, sizeof(t));
	memset(&r, 0, sizeof(r));
	r.nodes = nodes;
	t.nrows = 1;
	t.rows = &r;
	fits = !capacity_plan_type(&t, sc, nsc, cl, co, so) && r.fits;
	free(r.why);
	return fits;
}

/*
 * No size of t fits: try the options that save memory at its largest size,
 * one at a time (ZeRO stages 2 and 3, activation offload, context
 * parallelism for a model), then together, and keep in t->hint the first
 * that fits or that none does.
 */
static void
probe_hint(struct capacity_type *t, const struct copts *o,
	   const struct gpu_catalog *cat, const struct input_chains *x,
	   struct cluster *cl, const struct cost_opts *co,
	   const struct search_opts *so0, int is_model)
{
	static const int cps[] = {1, 2, 4, 8};
	int nodes = t->rows[t->nrows - 1].nodes, i, have_cp = 0;
	int zero = (so0->zero_mask & 0xc) != 0xc;
	int off = !(so0->offload_mask & 2);
	struct input_chains *y = NULL;
	struct search_opts so;
	char all[128] = "", msg[192];
	const char *last = "";

	for (i = 0; i < o->po.ncp; i++)
		have_cp |= o->po.cps[i] > 1;
	if (zero) {
		so = *so0;
		so.zero_mask = 0xf;
		strcat(all, " --zero all");
		last = "--zero all";
		if (fits_at(x->sc, x->n, cl, co, &so, nodes))
			goto found;
	}
	if (off) {
		so = *so0;
		so.offload_mask = 3;
		strcat(all, " --offload both");
		last = "--offload both";
		if (fits_at(x->sc, x->n, cl, co, &so, nodes))
			goto found;
	}
	if (is_model && !have_cp) {
		struct input_par ip;
		int bad;

		y = xcalloc(1, sizeof(*y));
		par_opts_input_par(&o->po, so0, &ip, 0);
		ip.ep_tile = 1;
		ip.cps = cps;
		ip.ncp = 4;
		/* a probe: what it says of context parallelism is not for
		 * the user */
		if (pd2bw_capture_begin())
			goto out;
		bad = input_par_chains(y, o->model, catalog_find(cat, t->gpu),
				       t->gpus_per_node, o->mb, o->nmb,
				       o->seq_len, o->tps, o->ntp,
				       o->po.sp_mode, &ip);
		pd2bw_capture_end();
		if (!bad) {
			strcat(all, " --context-parallel 1,2,4,8");
			so = *so0;
			if (fits_at(y->sc, y->n, cl, co, &so, nodes)) {
				snprintf(msg, sizeof(msg), "--context-parallel "
					 "1,2,4,8 makes %d node%s fit", nodes,
					 nodes == 1 ? "" : "s");
				goto done;
			}
			if (zero)
				so.zero_mask = 0xf;
			if (off)
				so.offload_mask = 3;
			if ((zero || off) &&
			    fits_at(y->sc, y->n, cl, co, &so, nodes))
				goto found_all;
		}
	}
	so = *so0;
	if (zero)
		so.zero_mask = 0xf;
	if (off)
		so.offload_mask = 3;
	if (zero && off && fits_at(x->sc, x->n, cl, co, &so, nodes)) {
		snprintf(msg, sizeof(msg), "--zero all --offload both makes "
			 "%d node%s fit", nodes, nodes == 1 ? "" : "s");
		goto done;
	}
	if (!all[0])
		goto out;
	snprintf(msg, sizeof(msg), "%d node%s do%s not fit even with%s",
		 nodes, nodes == 1 ? "" : "s", nodes == 1 ? "es" : "", all);
	goto done;
found:
	snprintf(msg, sizeof(msg), "%s makes %d node%s fit", last, nodes,
		 nodes == 1 ? "" : "s");
	goto done;
found_all:
	snprintf(msg, sizeof(msg), "%s makes %d node%s fit", all + 1, nodes,
		 nodes == 1 ? "" : "s");
done:
	free(t->hint);
	t->hint = xstrdup(msg);
out:
	if (y) {
		input_chains_release(y);
		free(y);
	}
}

/* Estimate or load the type's profile, then plan every size. */
static int
run_type(struct capacity *c, const struct copts *o,
	 const struct gpu_catalog *cat, struct capacity_type *t,
	 struct cluster *cl, struct search_memo **last)
{
	const char *path = t->profile ? t->profile : o->model;
	struct input_chains x;
	struct profile *prof = &x.prof[0];
	struct cost_opts co;
	struct search_opts so = o->so;
	int is_model = 0, ret = -1, i;
	int64_t seq;

	/* input_chains_release() reads have_model */
	x.n = 1;
	x.have_model = 0;
	profile_init(prof);
	memset(&x.ch[0], 0, sizeof(x.ch[0]));
	if (input_load(prof, path, cat, t->gpu, NULL, o->mb, o->nmb, o->seq_len,
		       &is_model))
		goto out;
	if (!is_model && !t->profile)
		t->profile = xstrdup(path);
	if (!is_model)
		input_check_device(prof, path, cat, t->gpu);
	if (!is_model && t == c->types)
		par_opts_warn_profile(&o->po, prof);
	seq = o->seq_len > 0 ? o->seq_len : prof->seq_len;
	if (seq <= 0) {
		pd2bw_error("'%s' gives no sequence length; use --seq-len",
			    path);
		goto out;
	}
	if (!c->seq_len) {
		c->seq_len = seq;
		c->doc_len = prof->doc_len;
		c->lora_rank = prof->lora_rank;
		c->model = xstrdup(prof->model ? prof->model : "unknown");
		c->batch = o->batch;
		if (!c->batch) {
			c->batch = llround(o->batch_tokens / (double)seq);
			if (c->batch < 1)
				c->batch = 1;
		}
	} else if (seq != c->seq_len) {
		pd2bw_error("'%s' has sequence length %lld, not %lld as "
			    "for %s",
			    path, (long long)seq, (long long)c->seq_len,
			    c->types[0].gpu);
		goto out;
	}
	par_opts_cost(&o->po, &co, prof, catalog_find(cat, t->gpu));
	co.cap_bytes = (double)t->gpu_mem_bytes - o->reserve_gib * GIB;
	if (co.cap_bytes <= 0) {
		pd2bw_error("--reserve %.3g GiB leaves no memory on a %.3g "
			    "GiB %s",
			    o->reserve_gib, t->gpu_mem_bytes / GIB, t->gpu);
		goto out;
	}
	if (is_model) {
		struct input_par ip;

		/* The estimate at t = 1 gave the figures above; the
		 * search takes every tensor-parallel shape, and for a
		 * mixture of experts the expert-parallel degrees that fit
		 * the node unless --expert-parallel names them. */
		input_chains_release(&x);
		par_opts_input_par(&o->po, &so, &ip, 0);
		ip.ep_tile = 1;
		if (input_par_chains(&x, o->model, catalog_find(cat, t->gpu),
				     t->gpus_per_node, o->mb, o->nmb,
				     o->seq_len, o->tps, o->ntp,
				     o->po.sp_mode, &ip))
			goto out;
	} else {
		if (par_not_model(&o->po))
			goto out;
		if (chain_build(&x.ch[0], prof))
			goto out;
		x.sc[0].c = &x.ch[0];
		x.sc[0].t = x.ch[0].tp;
		x.sc[0].sp = 0;
		x.sc[0].cp = 1;
		x.sc[0].ep = 1;
		x.sc[0].etp = 0;
		x.sc[0].runtime = 0;
	}
	cl->gpu_mem_bytes = t->gpu_mem_bytes;
	so.batch = c->batch;
	/* the sizes share what they learn of the candidates (the same
	 * chains, cost options and batch); the hint's searches below have
	 * other chains or options */
	so.memo = search_memo_renew(*last);
	*last = NULL;
	ret = capacity_plan_type(t, x.sc, x.n, cl, &co, &so);
	/* the next type's memo takes its tables' room */
	*last = so.memo;
	so.memo = NULL;
	for (i = 0; !ret && i < t->nrows && !t->rows[i].fits; i++)
		;
	if (!ret && t->nrows && i == t->nrows)
		probe_hint(t, o, cat, &x, cl, &co, &so, is_model);
out:
	input_chains_release(&x);
	return ret;
}

/* The format a name asks for, or -1. */
static int
format_of(const char *s)
{
	static const char *const names[] = {"table", "csv", "yaml", NULL};
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static int
format_from_name(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (dot && !strcasecmp(dot, ".csv"))
		return 1;
	if (dot && (!strcasecmp(dot, ".yaml") || !strcasecmp(dot, ".yml")))
		return 2;
	return 0;
}

static int
write_report(const struct capacity *c, int fmt, const char *path)
{
	struct afile f;

	if (fmt == 1)
		return capacity_write_csv(c, path);
	if (fmt == 2)
		return capacity_write_yaml(c, path);
	if (afile_open(&f, path))
		return -1;
	capacity_write_table(f.fp, c);
	return afile_commit(&f);
}

/*
 * Refuse (exit 2) an output that names the same file as an input or as
 * the other output, as pd2bw-plan does: the model, the cluster files of
 * --gpu TYPE:FILE, the --profile files and --gpus-file against -o and
 * --svg.
 */
static void
check_paths(const struct copts *o, const char *output, const char *svg)
{
	size_t n = 0, k, max = o->gpus.n + o->profiles.n + 4;
	struct cli_path *p = xcalloc(max, sizeof(*p));

	p[n++] = (struct cli_path){"MODEL", o->model, 0};
	for (k = 0; k < o->gpus.n; k++)
		if (o->gpus.v[k].key) /* TYPE:NODE, a preset or a file */
			p[n++] = (struct cli_path){"--gpu", o->gpus.v[k].val,
						   0};
	for (k = 0; k < o->profiles.n; k++)
		p[n++] = (struct cli_path){"--profile", o->profiles.v[k].val,
					   0};
	p[n++] = (struct cli_path){"--gpus-file", o->gpus_file, 0};
	p[n++] = (struct cli_path){"-o", output, 1};
	p[n++] = (struct cli_path){"--svg", svg, 1};
	cli_distinct_paths(p, (int)n);
	free(p);
}

int
capacity_main(int argc, char **argv)
{
	struct copts o;
	struct capacity cap;
	struct gpu_catalog cat;
	struct cluster cl;
	struct search_memo *memo = NULL; /* the last type's */
	const char *output = NULL, *svg = NULL;
	double tokens = 0, deadline = 0, eff = 50;
	int fmt = -1, quiet = 0, ch, ret = 1, i, any = 0;
	size_t k;

	static char hint[256];
	char model_buf[4096];

	snprintf(hint, sizeof(hint), "%s capacity --help", pd2bw_progname);
	cli_help = hint;
	memset(&o, 0, sizeof(o));
	o.max_nodes = 128;
	o.steps = 64;
	o.batch_tokens = 4194304;
	o.reserve_gib = 1.0;
	o.ntp = 4;
	o.tps[0] = 1;
	o.tps[1] = 2;
	o.tps[2] = 4;
	o.tps[3] = 8;
	search_opts_init(&o.so);
	par_opts_init(&o.po);
	o.so.threads = search_threads_online();
	/* GPipe has flush's bubble and keeps more stashes (m against
	 * min(d - s, m)): it never wins, so it is not searched unless
	 * asked for. */
	o.so.sched_mask &= ~(1u << PLAN_GPIPE);
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":t:g:d:p:n:B:s:r:f:o:j:qhV",
				 longopts, NULL)) != -1) {
		switch (ch) {
		case OPT_TOKENS:
			tokens = parse_num("--tokens", optarg, 0, 0, 1e18, 1);
			break;
		case 'g':
			pairs_add(&o.gpus, optarg, 0);
			break;
		case OPT_PROFILE:
			pairs_add(&o.profiles, optarg, 2);
			break;
		case 'd':
			deadline = parse_num("--deadline", optarg, 0, 0, 1e9,
					     0);
			break;
		case 'p':
			pairs_add(&o.prices, optarg, 0);
			parse_num("--price", o.prices.v[o.prices.n - 1].val,
				  0, 1, 1e9, 0);
			break;
		case 'n':
			o.max_nodes = (int)cli_long("--max-nodes", optarg, 1,
						      1000000);
			break;
		case OPT_STEPS:
			o.steps = (int)cli_long("--steps", optarg, 1,
						  MAX_SIZES);
			break;
		case OPT_NODES:
			o.nnodes = cli_ints("--nodes", optarg, o.nodes,
					      MAX_SIZES, 1, 1000000, 1);
			break;
		case 'B':
			o.batch = cli_long("--batch", optarg, 1, 1L << 40);
			break;
		case OPT_BATCH_TOKENS:
			o.batch_tokens = parse_num("--batch-tokens", optarg, 0,
						   0, 1e15, 1);
			break;
		case OPT_SEQ_LEN:
			o.seq_len = cli_long("--seq-len", optarg, 1,
					       1L << 30);
			break;
		case OPT_EFFICIENCY:
			eff = parse_num("--efficiency", optarg, 0, 1, 100, 0);
			break;
		case 't':
			o.ntp = cli_ints("--tp", optarg, o.tps, MAX_TP, 1, 64, 1);
			o.have_tp = 1;
			break;
		case 's':
			o.so.sched_mask = cli_names("--schedule", optarg,
						      plan_sched_names, NULL);
			o.have_sched = 1;
			break;
		case 'r':
			o.so.rc_mask = cli_names("--recompute", optarg,
						   prof_rc_names, NULL);
			o.have_rc = 1;
			break;
		case OPT_MICROBATCHES:
			o.nmb = cli_ints("--microbatches", optarg, o.mb,
					 MAX_MB, 1, 1 << 20, 1);
			break;
		case OPT_RESERVE:
			o.reserve_gib = parse_num("--reserve", optarg, 0, 1,
						  1e6, 0);
			break;
		case OPT_GPUS_FILE:
			o.gpus_file = optarg;
			break;
		case 'f':
			fmt = format_of(optarg);
			if (fmt < 0)
				cli_usage_error("invalid %s '%s'", "--format", optarg);
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_SVG:
			svg = optarg;
			break;
		case 'j':
			o.so.threads = (int)cli_long("--jobs", optarg, 1,
						     SEARCH_MAX_THREADS);
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			ret = 0;
			goto out_opts;
		case 'V':
			printf("%s %s\n", pd2bw_progname, PD2BW_VERSION);
			ret = 0;
			goto out_opts;
		default:
			if (par_opts_parse(&o.po, &o.so, ch, optarg))
				break;
			cli_option_error(ch == ':' ? ':' : '?', argv);
		}
	}
	if (optind != argc - 1)
		cli_usage_error("%s", optind < argc ? "give one MODEL"
					      : "missing MODEL");
	o.model = input_resolve(argv[optind], model_buf, sizeof(model_buf));
	if (!o.model)
		goto out_opts;
	if (!(tokens > 0))
		cli_usage_error("%s", "missing --tokens");
	if (!o.gpus.n)
		cli_usage_error("%s", "missing --gpu");
	/* an output over an input (or the other output) would lose it */
	check_paths(&o, output, svg);
	par_opts_search_defaults(&o.po, &o.so, o.have_rc);
	par_opts_check_moe(&o.po);
	par_opts_check(&o.po, &o.so, o.have_sched, o.have_rc, o.tps,
		       o.have_tp ? o.ntp : 0);
	input_set_rc_modules(par_opts_rc_modules(&o.po, 0,
						 ANALYTIC_RC_CORE_ATTN));
	par_opts_apply_input(&o.po);
	if (fmt < 0)
		fmt = output ? format_from_name(output) : 0;
	if (!o.nnodes)
		o.nnodes = capacity_sizes(o.max_nodes, o.steps, o.nodes);
	capacity_init(&cap);
	catalog_init(&cat);
	cluster_init(&cl);
	/* A bad output name is refused before the sweep. */
	if ((output && afile_check(output)) || (svg && afile_check(svg)))
		goto out;
	cap.tokens = tokens;
	cap.deadline_days = deadline;
	cap.eff_threshold = eff / 100.0;
	if (o.gpus_file && catalog_load(&cat, o.gpus_file))
		goto out;
	for (k = 0; k < o.prices.n; k++) {
		const char *key = o.prices.v[k].key;
		size_t j;
		int hit = !key;

		for (j = 0; !hit && j < o.gpus.n; j++)
			hit = same_gpu(&cat, key,
				       o.gpus.v[j].key ? o.gpus.v[j].key
						       : o.gpus.v[j].val);
		if (!hit) {
			pd2bw_error("--price for '%s', which no --gpu names",
				    key);
			fprintf(stderr, "Try '%s capacity --help'.\n",
				pd2bw_progname);
			ret = 2;
			goto out;
		}
	}
	for (k = 0; k < o.gpus.n; k++) {
		if (setup_type(&cap, &o, &cat, &o.gpus.v[k], &cl))
			goto out;
		if (run_type(&cap, &o, &cat, &cap.types[cap.ntypes - 1], &cl,
			     &memo))
			goto out;
	}
	search_memo_free(memo);
	memo = NULL;
	capacity_summarise(&cap);
	for (i = 0; i < cap.ntypes; i++)
		any |= cap.types[i].smallest >= 0;
	/* the report and the picture are renamed into place together */
	afile_batch_begin();
	if (write_report(&cap, fmt, output ? output : "-")) {
		afile_batch_end(0);
		goto out;
	}
	if (output && !quiet && strcmp(output, "-"))
		capacity_write_table(stdout, &cap);
	if (svg && capacity_write_svg(&cap, svg)) {
		afile_batch_end(0);
		goto out;
	}
	if (afile_batch_end(1))
		goto out;
	ret = any ? 0 : 3;
	if (!any) {
		const struct capacity_type *h = NULL;

		/* one line: the first type an option helps, else the first
		 * that tried some */
		for (i = 0; i < cap.ntypes; i++)
			if (cap.types[i].hint &&
			    (!h || (strstr(h->hint, "even with") &&
				    !strstr(cap.types[i].hint, "even with"))))
				h = &cap.types[i];
		if (h)
			pd2bw_error("no cluster size of any GPU type fits the "
				    "model; %s: %s", h->gpu, h->hint);
		else
			pd2bw_error("no cluster size of any GPU type fits the "
				    "model");
	}
out:
	search_memo_free(memo);
	capacity_release(&cap);
	cluster_release(&cl);
	catalog_release(&cat);
	if (afile_close_stdout())
		ret = 1;
out_opts:
	pairs_release(&o.gpus);
	pairs_release(&o.prices);
	pairs_release(&o.profiles);
	return ret;
}
