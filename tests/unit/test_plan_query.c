/*
 * test_plan_query.c - the plan query API (lib/plan_query.c): layers and
 * ranks of a stage, replicas and runtime ranks, the per-iteration schedule
 * of every schedule kind; and the examples: tests/api/plan_example.c
 * (compiled here with cc against the build's libpd2bw.a; skipped without
 * a compiler) and tests/api/read_plan.py (run when python3 has PyYAML,
 * else skipped), on a plan written by plan_write(); tests/api/plan_model.c
 * and tests/api/capacity_model.c, which plan in-process what pd2bw-plan
 * and pd2bw-plan capacity plan on the command line.
 */
#include "harness.h"
#include "capture.h"

#include "pd2bw/error.h"
#include "pd2bw/plan.h"
#include "pd2bw/profile.h"

static char build_dir[4096] = ".";

/* 2 nodes x 4 GPUs, w = 2, d = 4, stages-in-node, chain of 6 layers. */
static void
make_plan(struct plan *p, int sched, int m, int rc)
{
	static const char *names[] = {"embedding", "block.0", "block.1",
				      "block.2", "block.3", "head"};
	static const int first[] = {0, 2, 3, 4}, last[] = {1, 2, 3, 5};
	int i;

	plan_init(p);
	p->model = xstrdup("tiny");
	p->gpu = xstrdup("TEST-GPU");
	p->profile = xstrdup("p.yaml");
	p->profile_hash = xstrdup("0000000000000000");
	p->cluster = xstrdup("c.yaml");
	p->cluster_hash = xstrdup("0000000000000000");
	p->place_reason = xstrdup("test");
	p->bind_reason = xstrdup("test");
	p->nodes = 2;
	p->gpus_per_node = 4;
	p->gpu_mem_bytes = 1LL << 32;
	p->sched = sched;
	p->w = 2;
	p->d = 4;
	p->b = 1;
	p->m = m;
	p->global_batch = 2 * m;
	p->recompute = rc;
	p->nlayers = 6;
	p->layer_names = xcalloc(6, sizeof(char *));
	for (i = 0; i < 6; i++)
		p->layer_names[i] = xstrdup(names[i]);
	p->nstages = 4;
	p->stages = xcalloc(4, sizeof(*p->stages));
	for (i = 0; i < 4; i++) {
		p->stages[i].first = first[i];
		p->stages[i].last = last[i];
		p->stages[i].recompute = rc;
		p->stages[i].in_flight = 4 - i;
	}
	p->nranks = 8;
	p->ranks = xcalloc(8, sizeof(*p->ranks));
	for (i = 0; i < 8; i++) {
		p->ranks[i].node = i / 4;
		p->ranks[i].gpu = i % 4;
		p->ranks[i].stage = i % 4;
		p->ranks[i].replica = i / 4;
	}
}

/* The schedule of stage s as "F0 F1 B0 ..." in a static buffer. */
static const char *
sched_str(const struct plan *p, int s)
{
	static char buf[4096];
	struct plan_op ops[256];
	int n = plan_stage_schedule(p, s, ops, 256), i;
	size_t k = 0;

	buf[0] = 0;
	for (i = 0; i < n && i < 256; i++)
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%s%s%d",
				      i ? " " : "", plan_op_names[ops[i].kind],
				      ops[i].mb);
	return buf;
}

static void
test_queries(void)
{
	struct plan p;
	int first = -7, last = -7, out[4] = {-1, -1, -1, -1};

	make_plan(&p, PLAN_2BW, 4, PROF_RC_NONE);
	CHECK_INT_EQ(plan_layers_of_stage(&p, 0, &first, &last), 0);
	CHECK_INT_EQ(first, 0);
	CHECK_INT_EQ(last, 1);
	CHECK_INT_EQ(plan_layers_of_stage(&p, 3, &first, &last), 0);
	CHECK_INT_EQ(first, 4);
	CHECK_INT_EQ(last, 5);
	first = last = -7;
	CHECK_INT_EQ(plan_layers_of_stage(&p, 4, &first, &last), -1);
	CHECK_INT_EQ(first, -7);
	CHECK_INT_EQ(plan_layers_of_stage(&p, -1, &first, &last), -1);

	CHECK_INT_EQ(plan_ranks_of_stage(&p, 1, out, 4), 2);
	CHECK_INT_EQ(out[0], 1);
	CHECK_INT_EQ(out[1], 5);
	CHECK_INT_EQ(out[2], -1);
	out[0] = -1;
	CHECK_INT_EQ(plan_ranks_of_stage(&p, 3, out, 1), 2);
	CHECK_INT_EQ(out[0], 3);
	CHECK_INT_EQ(out[1], 5);
	CHECK_INT_EQ(plan_ranks_of_stage(&p, 2, NULL, 0), 2);
	CHECK_INT_EQ(plan_ranks_of_stage(&p, 4, out, 4), -1);

	CHECK_INT_EQ(plan_replica_of_rank(&p, 6), 1);
	CHECK_INT_EQ(plan_replica_of_rank(&p, 8), -1);
	/* Pipeline-major: stage s, replica r -> s x w + r. */
	CHECK_INT_EQ(plan_runtime_rank(&p, 0), 0);
	CHECK_INT_EQ(plan_runtime_rank(&p, 1), 2);
	CHECK_INT_EQ(plan_runtime_rank(&p, 4), 1);
	CHECK_INT_EQ(plan_runtime_rank(&p, 7), 7);
	CHECK_INT_EQ(plan_runtime_rank(&p, -1), -1);

	/* The rule pd2bw-plan/2 writes instead of the list: these ranks
	 * follow it (stages-in-node, 4 GPUs a node), one moved rank does
	 * not; replicas-in-node numbers replica first. */
	p.t = 1;
	p.place = PLAN_STAGES_IN_NODE;
	CHECK_INT_EQ(plan_ranks_rule(&p), 4);
	p.ranks[5].gpu = 2;
	CHECK_INT_EQ(plan_ranks_rule(&p), 0);
	plan_ranks_fill(&p, 4);
	CHECK_INT_EQ(p.ranks[5].gpu, 1);
	CHECK_INT_EQ(plan_ranks_rule(&p), 4);
	p.place = PLAN_REPLICAS_IN_NODE;
	CHECK_INT_EQ(plan_ranks_rule(&p), 0);
	plan_ranks_fill(&p, 8);
	CHECK_INT_EQ(p.nranks, 8);
	CHECK_INT_EQ(p.ranks[1].stage, 0);
	CHECK_INT_EQ(p.ranks[1].replica, 1);
	CHECK_INT_EQ(p.ranks[6].stage, 3);
	CHECK_INT_EQ(p.ranks[6].node, 0);
	CHECK_INT_EQ(p.ranks[6].gpu, 6);
	CHECK_INT_EQ(plan_ranks_rule(&p), 8);
	plan_release(&p);
}

static void
test_schedules(void)
{
	struct plan p;
	struct plan_op two[2];
	int s, sched, i, n, f, b;

	make_plan(&p, PLAN_FLUSH, 4, PROF_RC_NONE);
	CHECK_STR_EQ(sched_str(&p, 0), "F0 F1 F2 F3 B0 B1 B2 B3");
	CHECK_STR_EQ(sched_str(&p, 1), "F0 F1 F2 B0 F3 B1 B2 B3");
	CHECK_STR_EQ(sched_str(&p, 2), "F0 F1 B0 F2 B1 F3 B2 B3");
	CHECK_STR_EQ(sched_str(&p, 3), "F0 B0 F1 B1 F2 B2 F3 B3");
	CHECK_INT_EQ(plan_stage_schedule(&p, 4, two, 2), -1);
	/* Fewer microbatches than warm-up slots: all forwards first. */
	p.m = 2;
	CHECK_STR_EQ(sched_str(&p, 0), "F0 F1 B0 B1");
	CHECK_STR_EQ(sched_str(&p, 2), "F0 F1 B0 B1");
	CHECK_STR_EQ(sched_str(&p, 3), "F0 B0 F1 B1");
	/* Only the first n are written; the count is the whole list. */
	CHECK_INT_EQ(plan_schedule(&p, 4, two, 1), 4);
	CHECK_INT_EQ(two[0].kind, PLAN_OP_FORWARD);
	CHECK_INT_EQ(two[0].mb, 0);
	CHECK_INT_EQ(plan_schedule(&p, 8, two, 2), -1);
	plan_release(&p);

	make_plan(&p, PLAN_2BW, 4, PROF_RC_NONE);
	CHECK_STR_EQ(sched_str(&p, 0), "F3 B0 F4 B1 F5 B2 F6 B3");
	CHECK_STR_EQ(sched_str(&p, 2), "F1 B0 F2 B1 F3 B2 F4 B3");
	CHECK_STR_EQ(sched_str(&p, 3), "F0 B0 F1 B1 F2 B2 F3 B3");
	plan_release(&p);

	make_plan(&p, PLAN_GPIPE, 3, PROF_RC_FULL);
	CHECK_STR_EQ(sched_str(&p, 1), "F0 F1 F2 R0 B0 R1 B1 R2 B2");
	plan_release(&p);

	make_plan(&p, PLAN_FLUSH, 3, PROF_RC_FULL);
	CHECK_STR_EQ(sched_str(&p, 2), "F0 F1 R0 B0 F2 R1 B1 R2 B2");
	p.stages[2].recompute = PROF_RC_SELECTIVE;
	CHECK_STR_EQ(sched_str(&p, 2), "F0 F1 B0 F2 B1 B2");
	plan_release(&p);

	/* Every schedule runs m forwards and m backwards per stage. */
	for (sched = 0; sched < PLAN_NSCHED; sched++) {
		int ok = 1;

		make_plan(&p, sched, 5, PROF_RC_NONE);
		for (s = 0; s < 4; s++) {
			struct plan_op ops[64];

			n = plan_stage_schedule(&p, s, ops, 64);
			f = b = 0;
			for (i = 0; i < n; i++) {
				f += ops[i].kind == PLAN_OP_FORWARD;
				b += ops[i].kind == PLAN_OP_BACKWARD;
			}
			if (n != 10 || f != 5 || b != 5)
				ok = 0;
		}
		CHECK_MSG(ok, plan_sched_names[sched]);
		plan_release(&p);
	}
}

/*
 * Compile tests/api/plan_example.c into dir as a user would, against this
 * build's libpd2bw.a (adding the sanitizers when the library has them),
 * run it on path and return its output (caller frees), or NULL when it
 * cannot be built.
 */
static char *
run_example(const char *dir, const char *path)
{
	const char *cc = getenv("CC");
	char cmd[40000], out[4400], inc[8200];
	int i;

	/* cap_path() returns one static buffer: copy the first. */
	snprintf(inc, sizeof(inc), "%s", cap_path("include"));

	if (!cc || !*cc)
		cc = "cc";
	for (i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd),
			 "%s -std=c11 -I'%s' -o '%s/plan_example' '%s' "
			 "'%s/libpd2bw.a' -lyaml -lm%s >/dev/null 2>&1",
			 cc, inc, dir,
			 cap_path("tests/api/plan_example.c"), build_dir,
			 i ? " -fsanitize=address,undefined" : "");
		if (system(cmd) == 0)
			break;
	}
	if (i == 2)
		return NULL;
	snprintf(cmd, sizeof(cmd), "'%s/plan_example' '%s' >'%s/c.out'", dir,
		 path, dir);
	if (system(cmd) != 0)
		return xstrdup("(plan_example failed)");
	snprintf(out, sizeof(out), "%s/c.out", dir);
	return cap_slurp(out);
}

static const char want_example[] =
	"tiny: schedule 2bw, width 2, depth 4, microbatch 1, accumulation 4\n"
	"rank 0: node 0 gpu 0 stage 0 replica 0 runtime-rank 0 layers "
	"embedding..block.0 ops F3 R0 B0 F4 R1 B1 F5 R2 ...\n"
	"rank 1: node 0 gpu 1 stage 1 replica 0 runtime-rank 2 layers "
	"block.1..block.1 ops F2 R0 B0 F3 R1 B1 F4 R2 ...\n"
	"rank 2: node 0 gpu 2 stage 2 replica 0 runtime-rank 4 layers "
	"block.2..block.2 ops F1 R0 B0 F2 R1 B1 F3 R2 ...\n"
	"rank 3: node 0 gpu 3 stage 3 replica 0 runtime-rank 6 layers "
	"block.3..head ops F0 R0 B0 F1 R1 B1 F2 R2 ...\n"
	"rank 4: node 1 gpu 0 stage 0 replica 1 runtime-rank 1 layers "
	"embedding..block.0 ops F3 R0 B0 F4 R1 B1 F5 R2 ...\n"
	"rank 5: node 1 gpu 1 stage 1 replica 1 runtime-rank 3 layers "
	"block.1..block.1 ops F2 R0 B0 F3 R1 B1 F4 R2 ...\n"
	"rank 6: node 1 gpu 2 stage 2 replica 1 runtime-rank 5 layers "
	"block.2..block.2 ops F1 R0 B0 F2 R1 B1 F3 R2 ...\n"
	"rank 7: node 1 gpu 3 stage 3 replica 1 runtime-rank 7 layers "
	"block.3..head ops F0 R0 B0 F1 R1 B1 F2 R2 ...\n";

static void
test_examples(void)
{
	struct plan p;
	char *dir = cap_mkdtemp(), path[4300], cmd[13000], *got, *py;
	int have_py;

	snprintf(path, sizeof(path), "%s/plan.yaml", dir);
	make_plan(&p, PLAN_2BW, 4, PROF_RC_FULL);
	CHECK_INT_EQ(plan_write(&p, path), 0);
	plan_release(&p);

	got = run_example(dir, path);
	if (got)
		CHECK_STR_EQ(got, want_example);
	else
		h_skip("plan_example prints the plan", "cannot compile it");

	have_py = system("python3 -c 'import yaml' >/dev/null 2>&1") == 0;
	if (!have_py) {
		h_skip("read_plan.py prints what plan_example prints",
		       "python3 with PyYAML not found");
	} else {
		snprintf(cmd, sizeof(cmd),
			 "python3 '%s' '%s' >'%s/py.out' 2>&1",
			 cap_path("tests/api/read_plan.py"), path, dir);
		CHECK_INT_EQ(system(cmd), 0);
		snprintf(cmd, sizeof(cmd), "%s/py.out", dir);
		py = cap_slurp(cmd);
		CHECK_STR_EQ(py, want_example);
		free(py);
	}
	free(got);
	cap_rmdir(dir);
}

/*
 * Build tests/api/NAME.c into dir/NAME as a user would, against this
 * build's headers and libpd2bw.a (with the sanitizers when the library
 * has them); 0 when no compiler can.
 */
static int
compile_api(const char *dir, const char *name)
{
	const char *cc = getenv("CC");
	char cmd[40000], inc[8200], rel[64], src[8200];
	int i;

	snprintf(inc, sizeof(inc), "%s", cap_path("include"));
	snprintf(rel, sizeof(rel), "tests/api/%s.c", name);
	snprintf(src, sizeof(src), "%s", cap_path(rel));
	if (!cc || !*cc)
		cc = "cc";
	for (i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd),
			 "%s -std=c11 -D_POSIX_C_SOURCE=200809L -I'%s' -o "
			 "'%s/%s' '%s' '%s/libpd2bw.a' -lyaml -lglpk -lm "
			 "-lpthread%s >/dev/null 2>&1",
			 cc, inc, dir, name, src, build_dir,
			 i ? " -fsanitize=address,undefined" : "");
		if (system(cmd) == 0)
			return 1;
	}
	return 0;
}

/*
 * tests/api/plan_model.c, built as a user would against libpd2bw.a,
 * plans GPT 1.3B on one DGX A100 in-process: the same plan and time as
 * pd2bw-plan gives on the command line.
 */
static void
test_plan_in_process(void)
{
	char *dir = cap_mkdtemp(), cmd[40000], model[8200];
	char want[256], path[4400], *got;
	struct plan p;

	snprintf(model, sizeof(model), "%s", cap_path("models/gpt-1.3b.yaml"));
	if (!compile_api(dir, "plan_model")) {
		h_skip("plan_model plans in-process", "cannot compile it");
		cap_rmdir(dir);
		return;
	}
	snprintf(cmd, sizeof(cmd),
		 /* a short-lived program: it leaves freeing to exit */
		 "ASAN_OPTIONS=detect_leaks=0 "
		 "'%s/plan_model' '%s' dgx-a100:1 64 >'%s/c.out' && "
		 "'%s/pd2bw-plan' '%s' -c dgx-a100:1 -B 64 --tp 1 -q -o "
		 "'%s/cli.yaml' 2>/dev/null",
		 dir, model, dir, build_dir, model, dir);
	CHECK_INT_EQ(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/cli.yaml", dir);
	plan_init(&p);
	if (CHECK(plan_load(&p, path) == 0)) {
		snprintf(want, sizeof(want), "%s w=%d d=%d b=%d: %.1f ms\n",
			 plan_sched_names[p.sched], p.w, p.d, p.b, p.iter_ms);
		snprintf(path, sizeof(path), "%s/c.out", dir);
		got = cap_slurp(path);
		CHECK_STR_EQ(got, want);
		free(got);
	}
	plan_release(&p);
	cap_rmdir(dir);
}

/*
 * tests/api/capacity_model.c, built the same way, plans GPT 1.3B on one
 * and two DGX A100 nodes in-process: each size's time and days to train
 * 1G tokens, and the fastest, as pd2bw-plan capacity reports them for
 * the same search space (the library's defaults: t 1, no optimizer
 * sharding, recomputation none or full, no interleaving, every
 * schedule).
 */
static void
test_capacity_in_process(void)
{
	char *dir = cap_mkdtemp(), cmd[40000], model[8200], path[4400];
	char want[1024], *csv, *got, *line, *save = NULL;
	size_t n = 0;
	int row = 0;

	snprintf(model, sizeof(model), "%s", cap_path("models/gpt-1.3b.yaml"));
	if (!compile_api(dir, "capacity_model")) {
		h_skip("capacity_model plans in-process", "cannot compile it");
		cap_rmdir(dir);
		return;
	}
	snprintf(cmd, sizeof(cmd),
		 "ASAN_OPTIONS=detect_leaks=0 "
		 "'%s/capacity_model' '%s' dgx-a100:1 64 1e9 2 >'%s/c.out' && "
		 "'%s/pd2bw-plan' capacity '%s' --tokens 1G --gpu "
		 "A100-80GB:dgx-a100 --nodes 1,2 -B 64 --tp 1 "
		 "--optimizer-sharding off -r none,full --interleave 1 "
		 "-s 2bw,flush,gpipe,none -f csv -o '%s/cli.csv' >/dev/null "
		 "2>&1",
		 dir, model, dir, build_dir, model, dir);
	CHECK_INT_EQ(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/cli.csv", dir);
	csv = cap_slurp(path);
	want[0] = 0;
	/* columns 4 gpus, 5 fits, 15 iteration_ms, 20 train_days, 26 note */
	for (line = strtok_r(csv, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f[32], *q;
		int k = 1;

		if (row++ == 0)
			continue;
		/* no field of these rows is quoted; some are empty */
		for (f[0] = q = line; *q && k < 32; q++)
			if (*q == ',')
				*q = 0, f[k++] = q + 1;
		if (k < 27 || strcmp(f[4], "yes"))
			continue;
		n += snprintf(want + n, sizeof(want) - n,
			      "%s GPUs: %s ms, %s days%s\n", f[3], f[14],
			      f[19], strstr(f[25], "fastest") ? " (fastest)" : "");
	}
	snprintf(path, sizeof(path), "%s/c.out", dir);
	got = cap_slurp(path);
	CHECK_INT_EQ(row, 3);
	CHECK_STR_EQ(got, want);
	free(got);
	free(csv);
	cap_rmdir(dir);
}

int
main(int argc, char **argv)
{
	const char *slash = strrchr(argv[0], '/');

	(void)argc;
	cap_find_top(argv[0]);
	/* The test binary is B/tests/test_plan_query. */
	snprintf(build_dir, sizeof(build_dir), "%.*s/..",
		 slash ? (int)(slash - argv[0]) : 1, slash ? argv[0] : ".");
	test_queries();
	test_schedules();
	test_examples();
	test_plan_in_process();
	test_capacity_in_process();
	return h_done();
}
