/*
 * main.c - pd2bw-plan: options, usage and exit status.
 */
#define _DEFAULT_SOURCE /* madvise, sbrk */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#include <stdint.h>
#include <sys/mman.h>
#endif

#include "capacity.h"
#include "pd2bw/chain.h"
#include "pd2bw/cost.h"
#include "emit/emit.h"
#include "input.h"
#include "par_opts.h"
#include "pd2bw/afile.h"
#include "pd2bw/analytic.h"
#include "pd2bw/catalog.h"
#include "pd2bw/cli.h"
#include "pd2bw/cluster.h"
#include "pd2bw/error.h"
#include "pd2bw/infile.h"
#include "pd2bw/model.h"
#include "pd2bw/plan.h"
#include "pd2bw/profile.h"
#include "pd2bw/runtime.h"
#include "report.h"
#include "pd2bw/search.h"
#include "pictures/simulate.h"

#define MAX_MB 64

enum {
	OPT_GPUS_FILE = 256,
	OPT_MICROBATCHES,
	OPT_WIDTH,
	OPT_DEPTH,
	OPT_MICROBATCH,
	OPT_PLACEMENT,
	OPT_RESERVE,
	OPT_MAX_GPUS,
	OPT_TOP,
	OPT_WEIGHT_BYTES,
	OPT_GRAD_BYTES,
	OPT_OPT_BYTES,
	OPT_VERSION_BYTES,
	OPT_STATS,
	OPT_EMIT,
	OPT_EMIT_OUTPUT,
	OPT_FROM_PLAN,
	OPT_TIMELINE,
	OPT_MEMORY,
	OPT_TRACE,
	OPT_KERNELS,
	OPT_PARTITION,
	OPT_PIPELINE_LAYOUT,
	OPT_SEQ_LEN,
	OPT_LP_K,
	OPT_LP_GAP,
	OPT_LP_TIME,
	OPT_CONTEXT_MEM,
	OPT_FRAG,
	OPT_RC_MODULES,
	OPT_RC_EVERY,
	OPT_LIST_GPUS,
};

static const struct option longopts[] = {
	{"cluster", required_argument, NULL, 'c'},
	{"batch", required_argument, NULL, 'B'},
	{"gpu", required_argument, NULL, 'g'},
	{"gpus-file", required_argument, NULL, OPT_GPUS_FILE},
	{"list-gpus", no_argument, NULL, OPT_LIST_GPUS},
	{"microbatches", required_argument, NULL, OPT_MICROBATCHES},
	{"seq-len", required_argument, NULL, OPT_SEQ_LEN},
	{"context-memory", required_argument, NULL, OPT_CONTEXT_MEM},
	{"fragmentation", required_argument, NULL, OPT_FRAG},
	{"schedule", required_argument, NULL, 's'},
	{"recompute", required_argument, NULL, 'r'},
	{"recompute-modules", required_argument, NULL, OPT_RC_MODULES},
	{"recompute-every", required_argument, NULL, OPT_RC_EVERY},
	{"tp", required_argument, NULL, 't'},
	PAR_OPTS_LONGOPTS,
	{"evaluate", no_argument, NULL, 'e'},
	{"width", required_argument, NULL, OPT_WIDTH},
	{"depth", required_argument, NULL, OPT_DEPTH},
	{"microbatch", required_argument, NULL, OPT_MICROBATCH},
	{"placement", required_argument, NULL, OPT_PLACEMENT},
	{"reserve", required_argument, NULL, OPT_RESERVE},
	{"max-gpus", required_argument, NULL, OPT_MAX_GPUS},
	{"top", required_argument, NULL, OPT_TOP},
	{"weight-bytes", required_argument, NULL, OPT_WEIGHT_BYTES},
	{"grad-bytes", required_argument, NULL, OPT_GRAD_BYTES},
	{"optimizer-bytes", required_argument, NULL, OPT_OPT_BYTES},
	{"version-bytes", required_argument, NULL, OPT_VERSION_BYTES},
	{"stats", no_argument, NULL, OPT_STATS},
	{"partition", required_argument, NULL, OPT_PARTITION},
	{"pipeline-layout", required_argument, NULL, OPT_PIPELINE_LAYOUT},
	{"lp-candidates", required_argument, NULL, OPT_LP_K},
	{"lp-gap", required_argument, NULL, OPT_LP_GAP},
	{"lp-time", required_argument, NULL, OPT_LP_TIME},
	{"emit", required_argument, NULL, OPT_EMIT},
	{"emit-output", required_argument, NULL, OPT_EMIT_OUTPUT},
	{"from-plan", required_argument, NULL, OPT_FROM_PLAN},
	{"timeline", required_argument, NULL, OPT_TIMELINE},
	{"memory", required_argument, NULL, OPT_MEMORY},
	{"trace", required_argument, NULL, OPT_TRACE},
	{"kernels", required_argument, NULL, OPT_KERNELS},
	{"output", required_argument, NULL, 'o'},
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
		"usage: %s [options] PROFILE|MODEL --cluster SPEC --batch N\n"
		"       %s --emit FORMAT --from-plan PLAN [--emit-output FILE]\n"
		"       %s capacity [options] MODEL ...   (see %s capacity "
		"--help)\n"
		"\n"
		"Search pipeline-parallel configurations (PipeDream-2BW) and "
		"write a plan.\n"
		"PROFILE is a pd2bw profile or a PipeDream graph.txt; MODEL a "
		"pd2bw model\nor a Hugging Face config.json, estimated "
		"analytically for the GPU.\n"
		"\n"
		"  -c, --cluster SPEC       cluster FILE[:NODES] or preset "
		"NAME[:NODES] (dgx-h100:4)\n"
		"  -B, --batch N            global batch size (samples per "
		"update)\n"
		"  -g, --gpu NAME           GPU type for a MODEL (default: the "
		"cluster's)\n"
		"      --gpus-file FILE     add GPU types from a pd2bw-gpus "
		"file\n"
		"      --list-gpus          write the GPU catalog (with "
		"--gpus-file's) and exit\n"
		"      --microbatches LIST  microbatch sizes to estimate for a "
		"MODEL (1,2,4,...)\n"
		"      --seq-len N          train a MODEL at sequence length N "
		"(default: its own)\n"
		"  -s, --schedule LIST      2bw,flush,gpipe,none (default: "
		"all)\n"
		"  -r, --recompute LIST     none,selective,full (default: all;"
		"\n"
		"                           --evaluate: one)\n"
		"      --recompute-modules LIST  what selective recomputes for a "
		"MODEL:\n"
		"                           core_attn, mla_up_proj, moe_act, "
		"layernorm,\n"
		"                           mlp (default: core_attn)\n"
		"      --recompute-every N  full recomputation of every N-th "
		"block a rank holds\n"
		"                           only (torchtitan's selective "
		"N), or with a / or .\n"
		"                           of that fraction of them "
		"(fms-fsdp's rule)\n"
		"  -t, --tp LIST            tensor-parallel degrees (default "
		"for a MODEL: 1,2,4,8\n"
		"                           where they divide the node and "
		"the heads)\n"
		"      --sequence-parallel MODE  off, on or both (default: "
		"both)\n"
		"      --context-parallel LIST  context-parallel degrees for a "
		"MODEL (default 1):\n"
		"                           each rank holds seq/N tokens, K/V "
		"ring in attention\n"
		"      --expert-parallel LIST  expert-parallel degrees for a MoE "
		"MODEL: experts split\n"
		"                           N ways, all-to-alls per MoE layer "
		"(default: the powers\n"
		"                           of two up to the GPUs per node "
		"that divide the experts)\n",
		pd2bw_progname, pd2bw_progname, pd2bw_progname,
		pd2bw_progname);
	par_opts_usage(fp);
	fputs("  -e, --evaluate           predict one configuration: needs "
		"--width, --depth,\n"
		"                           --microbatch, one --schedule and "
		"one --recompute\n"
		"      --width W            data-parallel width\n"
		"      --depth D            pipeline depth\n"
		"      --microbatch B       microbatch size\n"
		"      --placement RULE     stages-in-node or replicas-in-node\n"
		"      --reserve GIB        memory kept free per GPU (default "
		"1)\n"
		"      --max-gpus N         use at most N GPUs of the cluster\n"
		"      --top K              alternatives to keep (default 10)\n"
		"      --weight-bytes X     bytes per parameter: weights "
		"(default from profile, 2)\n"
		"      --grad-bytes X       gradients (2)\n"
		"      --optimizer-bytes X  optimizer state with fp32 master "
		"(12)\n"
		"      --version-bytes X    2BW's second weight version (4)\n",
	      fp);
	fprintf(fp,
		"      --precision P        train a model in bf16, fp16, fp32, fp8 or\n"
		"                           nvfp4 (FP8 or NVFP4 GEMMs, 16-bit elsewhere)\n"
		"      --context-memory GIB CUDA context, NCCL and cuBLAS buffers\n"
		"                           per GPU (default 1.25)\n"
		"      --fragmentation F    allocator margin, share of activations\n"
		"                           and workspace (default 0.07)\n"
		"      --runtime NAME[:OPT,no-OPT,...]\n"
		"                           what runs the plan: pipedream-2bw,\n"
		"                           megatron-core, deepspeed, torchtitan,\n"
		"                           pytorch-ddp (default: per schedule)\n"
		"      --fp8-recipe R       with fp8: delayed (default), tensorwise,\n"
		"                           blockwise, mxfp8 (Blackwell), rowwise or\n"
		"                           rowwise-with-gw-hp (torchtitan)\n"
		"      --fusions LIST       kernels a model's estimate fuses: act,\n"
		"                           dropadd, rope, xent, norm, all or\n"
		"                           none\n"
		"                           (default: the --runtime's, else all)\n"
		"      --attention-kernel K a model's attention kernel: native (the\n"
		"                           GPU's own, default), fa2\n"
		"                           (FlashAttention-2 class: slower on Hopper)\n"
		"                           triton (FlashAttention in "
		"Triton) or fp8\n"
		"                           (the GPU's own in FP8, for an "
		"FP8 model)\n"
		"      --partition RULE     balanced (exact min-max, default) "
		"or uniform\n"
		"                           (blocks split evenly, as "
		"Megatron-LM does)\n"
		"      --pipeline-layout S  Megatron's layout string, e.g. "
		"Et*4|(t*4|)*14tmL:\n"
		"                           the layers of each virtual stage "
		"(needs --depth)\n"
		"      --lp-candidates K    best configurations whose "
		"recomputation GLPK chooses\n"
		"                           per layer (default 10; 0: off)\n"
		"      --lp-gap X           GLPK's relative MIP gap (default "
		"1e-4)\n"
		"      --lp-time MS         GLPK's time limit per stage "
		"(default 2000)\n"
		"      --stats              print search statistics\n"
		"  -j, --jobs N             threads that search (default: one "
		"per online CPU;\n"
		"                           the plan is the same for any N)\n"
		"      --emit FORMAT        also write what a runtime launches: "
		"megatron, deepspeed,\n"
		"                           launch, torchtitan or "
		"megatron-bridge (repeatable:\n"
		"                           all are written, or none when one "
		"cannot be)\n"
		"      --emit-output FILE   where the --emit before it writes "
		"(default: stdout)\n"
		"      --from-plan PLAN     emit from a saved plan instead of "
		"planning\n"
		"      --timeline FILE      draw the simulated schedule as SVG\n"
		"      --memory FILE        draw memory per stage as SVG\n"
		"      --trace FILE         write the simulated schedule as a "
		"Chrome trace\n"
		"      --kernels FILE       write what the estimate of the "
		"plan's layers is made\n"
		"                           of, kernel by kernel "
		"(pd2bw-kernels/1; a MODEL)\n"
		"  -o, --output FILE        write the plan (YAML) to FILE; '-' "
		"for stdout\n"
		"  -q, --quiet              do not print the summary\n"
		"  -h, --help               show this help\n"
		"  -V, --version            show the version\n"
		"\n"
		"MODEL may be a zoo name (gpt-2.2b, llama3-70b, ...: "
		"models/ or the installed zoo)\nor a Hugging Face model "
		"directory holding config.json.\n"
		"\n"
		"Examples:\n"
		"  %s gpt-2.2b -c p3.16xlarge:8 -B 512 -o plan.yaml\n"
		"  %s models/hf/gpt2-xl -c dgx-a100:4 --gpu H200 -B 512\n"
		"  %s gpt-2.2b -c p3.16xlarge:8 -B 512 -e --width 8 "
		"--depth 8 \\\n"
		"      --microbatch 4 -s 2bw -r full      "
		"(evaluate one configuration)\n"
		"  %s gpt-3.8b -c dgx-a100:2 -B 512 -o plan.yaml "
		"--timeline t.svg \\\n"
		"      --emit megatron --emit-output args.sh\n",
		pd2bw_progname, pd2bw_progname, pd2bw_progname,
		pd2bw_progname);
}

/* The chain a plan was made from, under runtime rt (enum runtime_id). */
static const struct chain *
chain_of(const struct search_chain *sc, int nsc, const struct plan *p,
	 int rt)
{
	int i;

	for (i = 0; i < nsc; i++)
		if (sc[i].t == p->t && sc[i].sp == p->sp &&
		    (sc[i].cp > 1 ? sc[i].cp : 1) == p->c &&
		    (sc[i].ep > 1 ? sc[i].ep : 1) == p->e &&
		    (!sc[i].runtime || sc[i].runtime - 1 == rt))
			return sc[i].c;
	return sc[0].c;
}

/* Whether -o or --kernels writes to standard output, in place of the
 * summary. */
static int
to_stdout(const char *output, const char *kernels)
{
	return (output && !strcmp(output, "-")) ||
	       (kernels && !strcmp(kernels, "-"));
}

/* --kernels: what the estimate of plan pl's layers is made of. */
static int
write_kernels(const struct input_chains *x, const struct plan *pl,
	      const struct gpu_spec *g, const char *path)
{
	struct profile p;
	struct kernel_list ks;
	int r;

	profile_init(&p);
	memset(&ks, 0, sizeof(ks));
	r = input_plan_kernels(x, pl, g, &p, &ks) ||
	    kernels_write(path, &p, &ks, "analytic");
	kernels_free(&ks);
	profile_release(&p);
	return r;
}

/*
 * --recompute-every S: an integer N >= 1 into *n (torchtitan's every
 * N-th block), else a fraction in (0, 1], "a/b" divided as fms-fsdp's
 * eval() divides it, into *p; a usage error otherwise.
 */
static void
parse_every(const char *s, int *n, double *p)
{
	const char *sl = strchr(s, '/');
	char num[64];

	*n = 0;
	*p = 0;
	if (!strpbrk(s, "./")) {
		*n = (int)cli_long("--recompute-every", s, 1, 1 << 20);
		return;
	}
	if (sl && (size_t)(sl - s) < sizeof(num)) {
		memcpy(num, s, (size_t)(sl - s));
		num[sl - s] = 0;
		*p = cli_double("--recompute-every", num, 0, 1e9) /
		     cli_double("--recompute-every", sl + 1, 1e-9, 1e9);
	} else if (!sl) {
		*p = cli_double("--recompute-every", s, 0, 1);
	}
	if (!(*p > 0 && *p <= 1))
		cli_usage_error("invalid --recompute-every '%s' (a fraction "
				"in (0, 1])", s);
}

/* After the summary: where the plan went and what to try next. */
static void
next_steps(const struct plan *p, const char *output, int evaluate,
	   int emitted, const char *timeline, int have_rt, const char *every,
	   const char *unweighed)
{
	if (output)
		fprintf(stderr, "%s: plan written to %s\n", pd2bw_progname,
			output);
	else
		fprintf(stderr, "%s: no plan file written (-o FILE writes "
			"one)\n", pd2bw_progname);
	/* LoRA: only the launch script (emit.c refuses the runtimes') */
	if (!emitted && p->lora_rank > 0)
		fprintf(stderr, "%s: next: --emit launch writes the launch "
			"script for it\n",
			pd2bw_progname);
	else if (!emitted)
		fprintf(stderr, "%s: next: --emit megatron, deepspeed or "
			"launch writes launch files for it\n",
			pd2bw_progname);
	if (!timeline)
		fprintf(stderr, "%s: next: --timeline FILE.svg draws its "
			"schedule, --memory FILE.svg its memory\n",
			pd2bw_progname);
	if (!evaluate && p->bind == PLAN_BIND_MEMORY && *unweighed)
		fprintf(stderr, "%s: next: memory binds this plan, and the "
			"search did not weigh %s, which hold less per GPU\n",
			pd2bw_progname, unweighed);
	if (!evaluate) {
		fprintf(stderr, "%s: next: -e --width %d --depth %d "
			"--microbatch %d -s %s -r %s --tp %d",
			pd2bw_progname, p->w, p->d, p->b,
			plan_sched_names[p->sched],
			prof_rc_names[p->recompute < PROF_RC_N ? p->recompute
							       : PROF_RC_FULL],
			p->t);
		if (p->t > 1)
			fprintf(stderr, " --sequence-parallel %s",
				p->sp ? "on" : "off");
		if (p->c > 1)
			fprintf(stderr, " --context-parallel %d", p->c);
		if (p->e > 1)
			fprintf(stderr, " --expert-parallel %d", p->e);
		if (p->v > 1)
			fprintf(stderr, " --interleave %d", p->v);
		if (p->zero)
			fprintf(stderr, " --zero %d", p->zero);
		if (p->shard > 0)
			fprintf(stderr, " --shard-group %d", p->shard);
		if (p->offload && p->offload_blocks > 0)
			fprintf(stderr, " --offload %d", p->offload_blocks);
		else if (p->offload)
			fprintf(stderr, " --offload on");
		/* the runtime the search priced, not the schedule's default */
		if (have_rt && p->runtime)
			fprintf(stderr, " --runtime %s", p->runtime);
		if (every)
			fprintf(stderr, " --recompute-every %s", every);
		fprintf(stderr, " predicts one configuration%s; change a value "
			"to see what it costs\n",
			p->recompute < PROF_RC_N || every
				? ""
				: " (every layer recomputed: the plan chooses "
				  "per layer, which -e does not)");
	}
}

/*
 * --pipeline-layout: the stages' entries from Megatron's layout string
 * (search_layout()), which fixes the partition and the virtual stages.
 * A usage error when it contradicts --partition or --interleave; an
 * error naming the problem when it does not fit the model; 0 or -1.
 */
static int
apply_layout(const char *spec, const struct chain *c, struct search_opts *so,
	     int mtp, int partition_given, int **layout)
{
	char why[256];
	int v;

	if (so->fix_d <= 0)
		cli_usage_error("%s", "--pipeline-layout needs --depth (its "
				"virtual stages are split over the ranks)");
	if (partition_given && !so->uniform)
		cli_usage_error("%s", "--pipeline-layout fixes the partition: "
				"leave out --partition balanced");
	*layout = xcalloc((size_t)so->fix_d, sizeof(**layout));
	if (search_layout(spec, c, so->fix_d, mtp, &v, *layout, why,
			  sizeof(why)))
		return pd2bw_error("--pipeline-layout '%s': %s", spec, why);
	if (so->nv > 1 || (so->v[0] != 1 && so->v[0] != v))
		cli_usage_error("--pipeline-layout '%s' runs %d virtual "
				"stage%s a rank, not --interleave %d",
				spec, v, v == 1 ? "" : "s", so->v[0]);
	so->nv = 1;
	so->v[0] = v;
	so->uniform = 1;
	so->layout = *layout;
	return 0;
}


/*
 * The search's large buffers (candidate lists, sorts, tables a doubling
 * at a time) are freed and asked for again, search after search: glibc
 * maps each above its sliding threshold afresh and gives the heap's top
 * back, and every page of either faults in zeroed the next time (7,000
 * of capacity's sweep's 22,000 faults, each about 7 us on a virtual
 * machine).  Kept instead: the heap grows to the peak the process holds,
 * once.
 */
static void
keep_freed_memory(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, 32 << 20); /* glibc's largest */
	mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
}

#define HEAP_HUGE ((size_t)2 << 20)  /* a transparent huge page */
#define HEAP_PAD ((size_t)256 << 20) /* the heap's first, in huge pages */

/*
 * The heap's pages, even kept, fault in once each: 15,000 of them (60
 * MB) in capacity's sweep, 0.1 to 0.15 s of its 0.6 s of CPU time on a
 * virtual machine.  In transparent huge pages, where the system lends
 * them on request (transparent_hugepage/enabled "madvise"; glibc's own
 * glibc.malloc.hugetlb=1 asks them so), 2 MB fault in at once: the heap's
 * first block makes it grow by HEAP_PAD more (M_TOP_PAD), and that room
 * is asked for in huge pages.  Only addresses: a page costs nothing until
 * touched.  Where the room cannot be had the heap grows as before.
 *
 * The break starts at a random page (ASLR), and a huge page maps only
 * where no page of its 2 MB was touched before the madvise(): the
 * heap's start is moved (addresses skipped) to the last page below a
 * huge page boundary, the one page malloc() writes its first block's
 * and its top's headers to before the advice.  Else the heap's first
 * 0 to 2 MB, what a run touches first, fault a page at a time (up to
 * 500 faults, a fifth of a search's time, varying run to run).
 */
static void
heap_huge_pages(void)
{
#if defined(__GLIBC__) && defined(MADV_HUGEPAGE)
	long pg = sysconf(_SC_PAGESIZE);
	char *b = sbrk(0), *p, *end;
	uintptr_t skip;

	if (b == (char *)-1 || pg <= 0 || (size_t)pg >= HEAP_HUGE)
		return;
	skip = (-(uintptr_t)b - (uintptr_t)pg) & (HEAP_HUGE - 1);
	if (skip && sbrk((intptr_t)skip) == (void *)-1)
		return;
	b += skip;
	mallopt(M_TOP_PAD, (int)HEAP_PAD);
	/* the heap's first: it grows (a heap there already would not
	 * move the break, and goes without) */
	p = malloc((size_t)pg / 4);
	end = sbrk(0);
	if (p && (char *)p >= b && (char *)p < b + pg && end > b + pg)
		madvise(b + pg, (size_t)(end - b - pg), MADV_HUGEPAGE);
	free(p);
	mallopt(M_TOP_PAD, 128 << 10); /* glibc's default */
#endif
}

int
main(int argc, char **argv)
{
	const char *cluster_spec = NULL, *gpu = NULL, *gpus_file = NULL;
	const char *output = NULL, *input;
	char input_buf[4096];
	const char *timeline = NULL, *memory = NULL, *emit_pending = NULL;
	struct emit_req emits[EMIT_MAX];
	int emit_set[EMIT_MAX];
	const char *trace = NULL, *from_plan = NULL, *kernels = NULL;
	int list_gpus = 0;
	int nemit = 0, emit;
	char emit_via[32];
	const char *depth_why = NULL;
	struct search_opts so;
	struct search_stats st;
	struct cost_opts co;
	struct gpu_catalog cat;
	struct cluster cl;
	struct profile prof;
	struct chain ch;
	struct plan plan;
	double reserve_gib = 1.0;
	double wb = -1, gb = -1, ob = -1, vb = -1, ctx_gib = -1, frag = -1;
	double every_p = 0; /* --recompute-every as a fraction */
	int every_n = 0;    /* ... or as every N-th block */
	const char *every_arg = NULL; /* as given */
	int mb[MAX_MB], nmb = 0, evaluate = 0, quiet = 0, stats = 0;
	int is_model = 0, c, ret = 1, sched_one = -1, rc_one = -1;
	int have_sched = 0, have_rc = 0, in_batch = 0;
	unsigned rc_modules = ANALYTIC_RC_CORE_ATTN;
	int have_rc_modules = 0;
	struct par_opts po;
	int tps[8] = {1, 2, 4, 8}, ntp = 0;
	const int *cps = po.cps, *eps = po.eps;
	struct input_par ipar;
	int64_t seq_len = 0;
	struct input_chains tc;
	struct search_chain single;
	const struct search_chain *sc = &single;
	int nsc = 0;
	char hash[17];
	const char *layout_spec = NULL;
	int partition_given = 0, *layout = NULL;
	int plan_rt = -1;

	keep_freed_memory();
	heap_huge_pages();
	pd2bw_set_progname(argv[0]);
	cli_help = NULL; /* capacity's hint is its own run's alone */
	afile_stdout_setup();
	infile_keep(1); /* each input read once: FIFOs and pipes work */
	if (argc > 1 && !strcmp(argv[1], "capacity"))
		return capacity_main(argc - 1, argv + 1);
	search_opts_init(&so);
	par_opts_init(&po);
	so.threads = search_threads_online();
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:B:g:s:r:t:eo:j:qhV", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'c':
			cluster_spec = optarg;
			break;
		case 'B':
			so.batch = cli_long("--batch", optarg, 1,
					      1L << 40);
			break;
		case 'g':
			gpu = optarg;
			break;
		case OPT_GPUS_FILE:
			gpus_file = optarg;
			break;
		case OPT_LIST_GPUS:
			list_gpus = 1;
			break;
		case OPT_MICROBATCHES:
			nmb = cli_ints("--microbatches", optarg, mb, MAX_MB, 1,
				       1 << 20, 1);
			break;
		case OPT_CONTEXT_MEM:
			ctx_gib = cli_double("--context-memory", optarg, 0, 1024);
			break;
		case OPT_FRAG:
			frag = cli_double("--fragmentation", optarg, 0, 1);
			break;
		case OPT_RC_EVERY:
			every_arg = optarg;
			parse_every(optarg, &every_n, &every_p);
			break;
		case OPT_RC_MODULES:
			if (analytic_rc_modules_parse(optarg, &rc_modules))
				cli_usage_error("invalid --recompute-modules "
						"'%s'", optarg);
			have_rc_modules = 1;
			break;
		case 's':
			so.sched_mask = cli_names("--schedule", optarg,
						    plan_sched_names,
						    &sched_one);
			have_sched = 1;
			break;
		case 'r':
			so.rc_mask = cli_names("--recompute", optarg,
						 prof_rc_names, &rc_one);
			have_rc = 1;
			break;
		case 't':
			ntp = cli_ints("--tp", optarg, tps, 8, 1, 64, 0);
			break;
		case 'e':
			evaluate = 1;
			break;
		case OPT_WIDTH:
			so.fix_w = (int)cli_long("--width", optarg, 1,
						   INT_MAX);
			break;
		case OPT_DEPTH:
			so.fix_d = (int)cli_long("--depth", optarg, 1,
						   INT_MAX);
			break;
		case OPT_MICROBATCH:
			so.fix_b = (int)cli_long("--microbatch", optarg, 1,
						   INT_MAX);
			break;
		case OPT_PLACEMENT: {
			int one = -1;

			cli_names("--placement", optarg, plan_place_names,
				    &one);
			if (one < 0)
				cli_usage_error("give one --placement, not '%s'",
					  optarg);
			so.fix_place = one;
			break;
		}
		case OPT_RESERVE:
			reserve_gib = cli_double("--reserve", optarg, 0, 1e6);
			break;
		case OPT_MAX_GPUS:
			so.max_gpus = (int)cli_long("--max-gpus", optarg, 1,
						      INT_MAX);
			break;
		case OPT_TOP:
			so.topk = (int)cli_long("--top", optarg, 1, 1000);
			break;
		case OPT_WEIGHT_BYTES:
			wb = cli_double("--weight-bytes", optarg, 0, 64);
			break;
		case OPT_GRAD_BYTES:
			gb = cli_double("--grad-bytes", optarg, 0, 64);
			break;
		case OPT_OPT_BYTES:
			ob = cli_double("--optimizer-bytes", optarg, 0, 64);
			break;
		case OPT_VERSION_BYTES:
			vb = cli_double("--version-bytes", optarg, 0, 64);
			break;
		case OPT_STATS:
			stats = 1;
			break;
		case OPT_SEQ_LEN:
			seq_len = cli_long("--seq-len", optarg, 1, 1L << 24);
			break;
		case OPT_PARTITION: {
			static const char *const names[] = {"balanced",
							    "uniform", NULL};
			int one = -1;

			cli_names("--partition", optarg, names, &one);
			if (one < 0)
				cli_usage_error("give one --partition, not '%s'",
					  optarg);
			so.uniform = one;
			partition_given = 1;
			break;
		}
		case OPT_PIPELINE_LAYOUT:
			layout_spec = optarg;
			break;
		case OPT_LP_K:
			so.lp_k = (int)cli_long("--lp-candidates", optarg, 0,
						  1000);
			break;
		case OPT_LP_GAP:
			so.lp_gap = cli_double("--lp-gap", optarg, 0, 1);
			break;
		case OPT_LP_TIME:
			so.lp_ms = (int)cli_long("--lp-time", optarg, 1,
						   3600000);
			break;
		case OPT_EMIT:
			emit = -1;
			for (c = 0; emit_fmt_names[c]; c++)
				if (!strcmp(optarg, emit_fmt_names[c]))
					emit = c;
			if (emit < 0)
				cli_usage_error("unknown --emit format '%s' "
						"(formats: %s)",
						optarg, emit_fmt_list());
			if (nemit == EMIT_MAX)
				cli_usage_error("more than %d --emit",
						EMIT_MAX);
			/* an --emit-output given before the first --emit is
			 * that one's */
			emits[nemit].fmt = emit;
			emits[nemit].path = emit_pending ? emit_pending : "-";
			emit_set[nemit++] = emit_pending != NULL;
			emit_pending = NULL;
			break;
		case OPT_FROM_PLAN:
			from_plan = optarg;
			break;
		case OPT_EMIT_OUTPUT:
			/* the output of the --emit before it (or, ahead of
			 * every --emit, of the first) */
			if (nemit > 0 && !emit_set[nemit - 1]) {
				emits[nemit - 1].path = optarg;
				emit_set[nemit - 1] = 1;
			} else if (nemit == 0 && !emit_pending) {
				emit_pending = optarg;
			} else {
				cli_usage_error("--emit-output '%s': each --emit "
						"FORMAT takes one --emit-output, "
						"given after it",
						optarg);
			}
			break;
		case OPT_TIMELINE:
			timeline = optarg;
			break;
		case OPT_MEMORY:
			memory = optarg;
			break;
		case OPT_KERNELS:
			kernels = optarg;
			break;
		case OPT_TRACE:
			trace = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'j':
			so.threads = (int)cli_long("--jobs", optarg, 1,
						   SEARCH_MAX_THREADS);
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("%s %s\n", pd2bw_progname, PD2BW_VERSION);
			return 0;
		default:
			if (par_opts_parse(&po, &so, c, optarg))
				break;
			cli_option_error(c == ':' ? ':' : '?', argv);
		}
	}
	if (emit_pending)
		cli_usage_error("--emit-output '%s' without --emit FORMAT",
				emit_pending);
	for (c = 0, emit = 0; c < nemit; c++)
		if (!strcmp(emits[c].path, "-") && emit++)
			cli_usage_error("%s", "two --emit write to standard "
					"output: give each an --emit-output "
					"FILE");
	if (from_plan) {
		struct cli_path paths[EMIT_MAX + 1];

		if (!nemit)
			cli_usage_error("%s", "--from-plan needs --emit FORMAT");
		if (kernels)
			cli_usage_error("%s", "--kernels lists a plan's estimate "
					"as it plans, not --from-plan's");
		if (optind != argc)
			cli_usage_error("%s", "--from-plan takes no PROFILE or "
					"MODEL");
		paths[0].opt = "--from-plan";
		paths[0].path = from_plan;
		paths[0].output = 0;
		for (c = 0; c < nemit; c++) {
			paths[c + 1].opt = "--emit-output";
			paths[c + 1].path = emits[c].path;
			paths[c + 1].output = 1;
		}
		cli_distinct_paths(paths, nemit + 1);
		ret = emit_from_plan(emits, nemit, from_plan);
		if (afile_close_stdout())
			ret = 1;
		return ret;
	}
	if (list_gpus) {
		/* the catalog this run prices with: the built-in GPUs and
		 * --gpus-file's, as a pd2bw-gpus/1 file */
		if (optind != argc)
			cli_usage_error("%s", "--list-gpus takes no PROFILE or "
					"MODEL");
		catalog_init(&cat);
		ret = (gpus_file && catalog_load(&cat, gpus_file)) ||
		      catalog_write(&cat, "-") || afile_close_stdout();
		catalog_release(&cat);
		return ret;
	}
	if (optind != argc - 1)
		cli_usage_error("%s", optind < argc ? "give one PROFILE or MODEL"
					      : "missing PROFILE or MODEL");
	input = input_resolve(argv[optind], input_buf, sizeof(input_buf));
	if (!input)
		return 1;
	if (!cluster_spec)
		cli_usage_error("%s", "missing --cluster");
	if (!so.batch)
		cli_usage_error("%s", "missing --batch");
	if (every_n || every_p > 0) {
		/* the blocks it wraps recompute in full, the rest nothing */
		if (have_rc && so.rc_mask != 1u << PROF_RC_FULL)
			cli_usage_error("%s", "--recompute-every recomputes "
					"blocks in full: give -r full or no -r");
		so.rc_mask = 1u << PROF_RC_FULL;
		rc_one = PROF_RC_FULL;
		have_rc = 1;
	}
	if (evaluate) {
		if (so.fix_w <= 0 || so.fix_d <= 0 || so.fix_b <= 0)
			cli_usage_error("%s", "--evaluate needs --width, --depth "
					"and --microbatch");
		if (!have_sched || sched_one < 0 || !have_rc || rc_one < 0)
			cli_usage_error("%s", "--evaluate needs one --schedule and "
					"one --recompute");
		/* the schedule asked for, on one stage too (as a search of
		 * it alone keeps it, one_stage_repeats()); below, once the
		 * runtime is known, schedule none where it cannot */
		so.fix_sched = sched_one;
		so.sched_mask |= 1u << so.fix_sched;
		so.fix_rc = rc_one;
		if (ntp > 1 || so.nv > 1 || po.zero_many || po.ncp > 1 ||
		    po.nep > 1 ||
		    (ntp == 1 && tps[0] > 1 && po.sp_mode == 2) ||
		    po.offload_one == 2)
			cli_usage_error("%s", "--evaluate needs one --tp, one "
					"--interleave, one --sequence-parallel, "
					"one --context-parallel, one "
					"--expert-parallel, one --zero (or "
					"--optimizer-sharding) and one "
					"--offload");
		if (so.shard > 0 && po.zero_one < 2)
			cli_usage_error("--shard-group %d needs --zero 2 or 3",
					so.shard);
		if (so.shard > 0 && ((long)so.fix_w * cps[0]) % so.shard)
			cli_usage_error("--shard-group %d must divide --width %d "
					"x --context-parallel %d", so.shard,
					so.fix_w, cps[0]);
		if (((long)so.fix_w * cps[0] * (po.etp_one ? tps[0] : 1)) %
		    eps[0])
			cli_usage_error("--expert-parallel %d must divide "
					"--width %d x --context-parallel %d%s "
					"(an expert-parallel group is data- and "
					"context-parallel ranks%s)",
					eps[0], so.fix_w, cps[0],
					po.etp_one ? " x --tp" : "",
					po.etp_one ? ", and tensor-parallel ones "
						  "under --expert-tensor-parallel 1"
						: "");
		if (!ntp)
			ntp = 1, tps[0] = 1;
		if (so.batch % ((long)so.fix_w * so.fix_b))
			cli_usage_error("%s", "--batch must be a multiple of "
					"--width x --microbatch");
		/* 2BW keeps a stage's d - s microbatches in flight: an
		 * update needs at least d of them (the search skips the
		 * rest). */
		if (so.fix_sched == PLAN_2BW &&
		    so.batch / ((long)so.fix_w * so.fix_b) < so.fix_d)
			cli_usage_error("2bw needs at least as many microbatches "
					"per update as stages: --batch %ld / "
					"(--width %d x --microbatch %d) = %ld, "
					"fewer than --depth %d; use --batch %ld "
					"or more, a smaller --microbatch or "
					"--depth, or -s flush",
					(long)so.batch, so.fix_w, so.fix_b,
					(long)(so.batch / ((long)so.fix_w *
							   so.fix_b)),
					so.fix_d,
					(long)so.fix_d * so.fix_w * so.fix_b);
	}
	{
		/* an output over an input (or another output) would lose it */
		struct cli_path paths[8 + EMIT_MAX] = {
			{"input", input, 0},
			{"--cluster", cluster_spec, 0},
			{"--gpus-file", gpus_file, 0},
			{"-o", output, 1},
			{"--timeline", timeline, 1},
			{"--memory", memory, 1},
			{"--trace", trace, 1},
			{"--kernels", kernels, 1},
		};

		for (c = 0; c < nemit; c++) {
			paths[8 + c].opt = "--emit-output";
			paths[8 + c].path = emits[c].path;
			paths[8 + c].output = 1;
		}
		cli_distinct_paths(paths, 8 + nemit);
	}

	/* a search for what --emit launches searches what its runtime
	 * runs (an evaluation keeps the emitter's own refusal) */
	for (c = 0; !po.have_rt && !evaluate && c < nemit; c++) {
		int id = emit_fmt_runtime(emits[c].fmt), k;

		for (k = c + 1; id >= 0 && k < nemit; k++)
			if (emit_fmt_runtime(emits[k].fmt) >= 0 &&
			    emit_fmt_runtime(emits[k].fmt) != id)
				cli_usage_error("--emit %s and --emit %s run "
						"on different runtimes; choose "
						"one with --runtime",
						emit_fmt_names[emits[c].fmt],
						emit_fmt_names[emits[k].fmt]);
		if (id >= 0) {
			runtime_init(&po.rt, id);
			po.have_rt = 1;
			snprintf(emit_via, sizeof(emit_via), "--emit %s",
				 emit_fmt_names[emits[c].fmt]);
			po.rt_via = emit_via;
			if (!quiet)
				fprintf(stderr, "%s: %s: searching what %s runs "
					"(--runtime chooses another)\n",
					pd2bw_progname, emit_via,
					runtime_names[id]);
		}
	}
	/* One stage of a schedule the runtime named cannot run is plain
	 * data parallelism: schedule none. */
	if (evaluate && so.fix_d == 1 && po.have_rt &&
	    !(po.rt.sched_mask & (1u << so.fix_sched))) {
		so.fix_sched = PLAN_NONE;
		so.sched_mask |= 1u << PLAN_NONE;
	}
	rc_modules = par_opts_rc_modules(&po, have_rc_modules, rc_modules);
	if (!evaluate)
		par_opts_search_defaults(&po, &so, have_rc);
	par_opts_check_moe(&po);
	if (po.have_rt)
		par_opts_check(&po, &so, have_sched, have_rc, tps, ntp);
	else if (evaluate) {
		/* the schedule's default runtime must run what was fixed */
		struct runtime def;
		char why[256];
		int z = po.zero_one > 0 && po.zero_one < 4 ? po.zero_one : 0;

		runtime_init(&def, runtime_default_for(so.fix_sched, so.fix_d));
		if (runtime_check(&def, so.fix_sched, so.fix_d,
				  ntp ? tps[0] : 1, so.nv ? so.v[0] : 1, z,
				  so.fix_rc, why, sizeof(why)) ||
		    runtime_check_shard(&def, so.fix_d, z, z >= 2 ? so.shard : 0,
					so.offload_mask >> 1 & 1, so.fix_rc,
					why, sizeof(why)))
			cli_usage_error("%s; --runtime names one that can", why);
	}
	if ((every_n || every_p > 0) && (po.have_rt || evaluate)) {
		struct runtime def;
		const struct runtime *rt = &po.rt;
		char why[256];

		if (!po.have_rt) {
			runtime_init(&def, runtime_default_for(so.fix_sched,
							       so.fix_d));
			rt = &def;
		}
		if (runtime_check_every(rt, why, sizeof(why)))
			cli_usage_error("%s%s", why,
					po.have_rt ? ""
						   : "; --runtime names one "
						     "that can");
	}
	catalog_init(&cat);
	cluster_init(&cl);
	profile_init(&prof);
	plan_init(&plan);
	memset(&ch, 0, sizeof(ch));
	memset(&tc, 0, sizeof(tc));
	/* A bad output name is refused before the search, not after. */
	for (c = 0; c < nemit; c++)
		if (afile_check(emits[c].path))
			goto out;
	if ((output && afile_check(output)) ||
	    (timeline && afile_check(timeline)) ||
	    (memory && afile_check(memory)) || (trace && afile_check(trace)) ||
	    (kernels && afile_check(kernels)))
		goto out;
	if (gpus_file && catalog_load(&cat, gpus_file))
		goto out;
	switch (cluster_open(&cl, cluster_spec)) {
	case 0:
		break;
	case -2: /* NAME:NODES with a bad NODES: a usage error */
		fprintf(stderr, "Try '%s --help'.\n", pd2bw_progname);
		ret = 2;
		goto out;
	default:
		goto out;
	}
	if (gpu)
		input_gpu_on_nodes(&cl, &cat, catalog_find(&cat, gpu),
				   cluster_spec);
	else
		gpu = cl.gpu;
	par_opts_apply_input(&po);
	input_set_rc_modules(rc_modules);
	if (input_load(&prof, input, &cat, gpu,
		       gpu == cl.gpu ? cl.gpu_at : NULL, mb, nmb, seq_len,
		       &is_model))
		goto out;
	if (kernels && !is_model) {
		pd2bw_error("--kernels lists the estimate of a MODEL's layers; "
			    "'%s' is a profile, whose times were measured",
			    input);
		goto out;
	}
	if (!is_model)
		par_opts_warn_profile(&po, &prof);
	if (!is_model)
		input_check_device(&prof, input, &cat, gpu);
	if (!is_model && nmb)
		pd2bw_warn("--microbatches applies to models only; using the "
			   "profile's sizes");
	if (!is_model && seq_len)
		pd2bw_warn("--seq-len applies to models only; the profile was "
			   "taken at %lld",
			   (long long)prof.seq_len);
	if (so.fix_b > 0 && profile_mb_index(&prof, so.fix_b) < 0) {
		pd2bw_error("microbatch %d is not in the profile", so.fix_b);
		goto out;
	}
	if (chain_build(&ch, &prof))
		goto out;
	if (is_model) {
		par_opts_input_par(&po, &so, &ipar, evaluate);
		if (input_par_chains(&tc, input, catalog_find(&cat, gpu),
				     cl.gpus_per_node, mb, nmb, seq_len, tps,
				     ntp, po.sp_mode, &ipar))
			goto out;
		sc = tc.sc;
		nsc = tc.n;
	} else {
		if (ntp && (ntp > 1 || tps[0] != ch.tp))
			pd2bw_warn("--tp applies to models; the profile was "
				   "taken at t=%d",
				   ch.tp);
		for (c = 0; c < po.ncp; c++)
			if (cps[c] > 1) {
				pd2bw_error("--context-parallel applies to "
					    "models: a profile holds one "
					    "sequence split");
				goto out;
			}
		for (c = 0; c < po.nep; c++)
			if (eps[c] > 1) {
				pd2bw_error("--expert-parallel applies to "
					    "models: a profile holds one "
					    "split of the experts");
				goto out;
			}
		single.c = &ch;
		single.t = ch.tp;
		single.sp = 0;
		single.cp = 1;
		single.ep = 1;
		single.etp = 0;
		single.runtime = 0;
		nsc = 1;
	}

	par_opts_cost(&po, &co, &prof, catalog_find(&cat, gpu));
	co.every_n = every_n;
	co.every_p = every_p;
	input_memory_figures(&co, wb, gb, ob, vb, ctx_gib, frag);
	co.cap_bytes = (double)cl.gpu_mem_bytes -
		       reserve_gib * 1024.0 * 1024.0 * 1024.0;
	if (co.cap_bytes <= 0) {
		pd2bw_error("--reserve %.3g GiB leaves no memory on a %.3g GiB "
			    "GPU",
			    reserve_gib,
			    cl.gpu_mem_bytes / (1024.0 * 1024.0 * 1024.0));
		goto out;
	}

	/* a pipeline the emitted runtime cannot build is not searched */
	c = emit_max_depth(emits, nemit, tc.have_model ? &tc.model : NULL,
			   &depth_why);
	if (c > 0 && !so.fix_d && !evaluate) {
		so.fix_d = c;
		if (!quiet)
			fprintf(stderr, "%s: %s\n", pd2bw_progname, depth_why);
	}
	if (layout_spec && apply_layout(layout_spec, sc[0].c, &so,
					tc.have_model ? tc.model.mtp_layers : -1,
					partition_given, &layout))
		goto out;
	ret = search_run_tp(sc, nsc, &cl, &co, &so, &plan, &st);
	if (stats) {
		struct rusage ru;

		getrusage(RUSAGE_SELF, &ru);
		fprintf(stderr,
			"%s: searched %ld configurations (%ld screened out by "
			"memory, %ld solved exactly) in %.1f ms, of which GLPK "
			"%.1f ms (%ld stage problems); peak RSS %.1f MiB\n",
			pd2bw_progname, st.candidates, st.screened, st.solved,
			st.ms, st.lp_ms, st.lp_solves, ru.ru_maxrss / 1024.0);
		fprintf(stderr,
			"%s: bounded away: %ld by memory, %ld by their lower "
			"bound (%ld of them a group of one chain, schedule, "
			"d, w and microbatch at a time), %ld by the exact "
			"partition (memory or the k-th best); %ld solved in "
			"%ld batch%s\n",
			pd2bw_progname, st.screened, st.bounded, st.grouped,
			st.cut, st.solved, st.passes + 1,
			st.passes ? "es" : "");
		for (c = 0; c < tc.nskip; c++)
			fprintf(stderr, "%s: skipped: %s\n", pd2bw_progname,
				tc.skip_why[c]);
		if (st.skipped_rt)
			fprintf(stderr, "%s: skipped %ld configurations: %s\n",
				pd2bw_progname, st.skipped_rt, st.skip_why);
	}
	if (ret < 0) {
		ret = 1;
		goto out;
	}
	if (ret == 3 && !evaluate)
		goto out;
	plan.model = xstrdup(prof.model ? prof.model : "unknown");
	plan.doc_len = prof.doc_len;
	plan.lora_rank = prof.lora_rank;
	plan.trainable = prof.trainable;
	if (plan.lora_rank > 0 && input_lora_targets() &&
	    input_lora_targets() != ANALYTIC_LORA_ALL) {
		char lt[64];

		analytic_lora_targets_format(input_lora_targets(), lt,
					     sizeof(lt));
		plan.lora_targets = xstrdup(lt);
	}
	plan_rt = cost_runtime(&co, plan.sched, plan.d)->id;
	if (is_model && !po.have_rt) {
		/* what the plan's runtime priced it with */
		if (tc.have_model)
			input_par_runtime(&ipar, plan_rt, &tc.model);
		if (po.fp8_dflt) {
			po.fp8_recipe = co.rts[plan_rt].fp8_recipe;
			co.fp8_recipe = po.fp8_recipe;
		}
	}
	if (is_model) {
		char fb[64];

		analytic_fusions_format(input_fusions(), fb, sizeof(fb));
		plan.precision = xstrdup(prof.precision ? prof.precision : "");
		if (co.precision == MODEL_FP8)
			plan.fp8_recipe = xstrdup(model_fp8_names[po.fp8_recipe]);
		plan.bf16_first = input_bf16_first();
		plan.bf16_last = input_bf16_last();
		if (analytic_site_prec_any(input_site_prec())) {
			char mp[256];

			analytic_site_prec_format(input_site_prec(), mp,
						  sizeof(mp));
			plan.module_precision = xstrdup(mp);
		}
		plan.fusions = xstrdup(fb);
		plan.seq_len = seq_len;
		if (input_attn() != ANALYTIC_ATTN_NATIVE)
			plan.attention = xstrdup(analytic_attn_names[input_attn()]);
		if (input_rc_modules() != ANALYTIC_RC_CORE_ATTN) {
			analytic_rc_modules_format(input_rc_modules(), fb,
						   sizeof(fb));
			plan.recompute_modules = xstrdup(fb);
		}
		/* what the MoE layers were priced with, for --from-plan */
		if (tc.have_model && tc.model.moe.experts) {
			plan.moe_imbalance = po.imbalance;
			plan.capacity_factor = tc.model.moe.capacity_factor;
			plan.moe_rank_capacity = po.rank_capacity;
		}
	}
	if (layout_spec)
		plan.pipeline_layout = xstrdup(layout_spec);
	plan.optimizer = co.optimizer;
	plan.weight_bytes = wb;
	plan.grad_bytes = gb;
	plan.opt_bytes = ob;
	plan.version_bytes = vb;
	plan.context_gib = ctx_gib;
	plan.frag = frag;
	if (plan.offload)
		plan.offload_blocks = co.offload_blocks;
	plan.gpu = xstrdup(gpu ? gpu : prof.device);
	plan.profile = xstrdup(input);
	plan.profile_hash = xstrdup(plan_hash_file(input, hash) ? "" : hash);
	plan.cluster = xstrdup(cluster_spec);
	/* A preset has no file to hash. */
	{
		char *cpath;

		plan.cluster_hash = xstrdup(
			!cluster_file_of(cluster_spec, &cpath) ? "preset"
			: plan_hash_file(cpath, hash)	       ? ""
							       : hash);
		free(cpath);
	}
	plan.nodes = cl.nodes;
	plan.gpus_per_node = cl.gpus_per_node;
	plan.gpu_mem_bytes = cl.gpu_mem_bytes;
	plan.reserve_bytes =
		(int64_t)(reserve_gib * 1024.0 * 1024.0 * 1024.0);
	if (!quiet && !to_stdout(output, kernels))
		report_plan(stdout, &plan);
	/* The pictures draw every microbatch on every stage: refuse sizes
	 * that would take minutes and gigabytes (2^20 makes 20 MB of
	 * trace), before anything is written. */
	if ((timeline || memory || trace) &&
	    (int64_t)plan.m * plan.d * (plan.v > 0 ? plan.v : 1) > 1 << 20) {
		pd2bw_error("--timeline, --memory and --trace draw every "
			    "microbatch: %d microbatches on %d stages (x%d) "
			    "are more than 1048576; give a smaller --batch",
			    plan.m, plan.d, plan.v > 0 ? plan.v : 1);
		ret = 1;
		goto out;
	}
	/* All outputs are renamed into place together, or none is. */
	afile_batch_begin();
	in_batch = 1;
	/* Evaluate mode writes its prediction even over the memory limit
	 * (exit status 3 says so). */
	if (output && plan_write(&plan, output)) {
		ret = 1;
		goto out;
	}
	/* ... and what its estimate is made of */
	if (kernels && write_kernels(&tc, &plan, catalog_find(&cat, plan.gpu),
				     kernels)) {
		ret = 1;
		goto out;
	}
	if (ret == 3)
		goto out;
	if (nemit) {
		struct emit_in ei;

		memset(&ei, 0, sizeof(ei));
		ei.p = &plan;
		ei.prof = &prof;
		ei.model = tc.have_model ? &tc.model : NULL;
		ei.c = chain_of(sc, nsc, &plan, plan_rt);
		ei.o = &co;
		ei.cl = &cl;
		ei.gpu = catalog_find(&cat, plan.gpu);
		if (emit_write_all(&ei, emits, nemit)) {
			ret = 1;
			goto out;
		}
	}
	if ((timeline || memory || trace) &&
	    sim_outputs(&plan, chain_of(sc, nsc, &plan, plan_rt), timeline, memory,
			trace)) {
		ret = 1;
		goto out;
	}
	ret = 0;
out:
	if (in_batch && afile_batch_end(ret == 0 || ret == 3) && ret != 3)
		ret = 1;
	if (ret == 0 && !quiet && !to_stdout(output, kernels)) {
		char unweighed[320], why[256];
		/* a model whose sequence splits over two ranks (the
		 * check any degree the search weighs passes) */
		int cp_ok = is_model && tc.have_model &&
			    !analytic_cp_check(&tc.model, 2, why, sizeof(why));

		par_opts_unweighed(&po, &so, &co, cp_ok, unweighed,
				   sizeof(unweighed));
		next_steps(&plan, output, evaluate, nemit > 0, timeline,
			   po.have_rt, every_arg, unweighed);
	}
	plan_release(&plan);
	free(layout);
	chain_release(&ch);
	profile_release(&prof);
	input_chains_release(&tc);
	cluster_release(&cl);
	catalog_release(&cat);
	if (afile_close_stdout())
		ret = 1;
	return ret;
}
