/*
 * plan_example.c - how a C runtime consumes a pd2bw plan: load it, then
 * print for every rank its place, stage, layers and the first operations
 * of its schedule.  Build: cc -Iinclude plan_example.c libpd2bw.a -lyaml.
 * tests/unit/test_plan_api.c runs it and compares with read_plan.py.
 */
#include <stdio.h>

#include "pd2bw/plan.h"

#define NOPS 8

int
main(int argc, char **argv)
{
	struct plan p;
	struct plan_op ops[NOPS];
	int r, i, n, first = 0, last = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: plan_example PLAN.yaml\n");
		return 2;
	}
	plan_init(&p);
	if (plan_load(&p, argv[1])) {
		plan_release(&p);
		return 1;
	}
	printf("%s: schedule %s, width %d, depth %d, microbatch %d, "
	       "accumulation %d\n",
	       p.model, plan_sched_names[p.sched], p.w, p.d, p.b, p.m);
	for (r = 0; r < p.nranks; r++) {
		int s = plan_stage_of_rank(&p, r);

		plan_layers_of_stage(&p, s, &first, &last);
		printf("rank %d: node %d gpu %d stage %d replica %d "
		       "runtime-rank %d layers %s..%s ops",
		       r, p.ranks[r].node, p.ranks[r].gpu, s,
		       plan_replica_of_rank(&p, r), plan_runtime_rank(&p, r),
		       p.layer_names[first], p.layer_names[last]);
		n = plan_schedule(&p, r, ops, NOPS);
		for (i = 0; i < n && i < NOPS; i++)
			printf(" %s%d", plan_op_names[ops[i].kind], ops[i].mb);
		printf("%s\n", n > NOPS ? " ..." : "");
	}
	plan_release(&p);
	return 0;
}
