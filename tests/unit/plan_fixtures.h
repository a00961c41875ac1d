/*
 * plan_fixtures.h - small profiles, clusters and cost options the planner's
 * unit tests (test_plan.c, test_maxima.c) build their cases from.
 */
#ifndef PD2BW_TEST_PLAN_FIXTURES_H
#define PD2BW_TEST_PLAN_FIXTURES_H

#include <stdint.h>
#include <string.h>

#include "pd2bw/cluster.h"
#include "pd2bw/cost.h"
#include "pd2bw/error.h"
#include "pd2bw/profile.h"

/* L layers, one microbatch size b=1, all layers alike (see the cases). */
static inline void
uniform_profile(struct profile *p, int L)
{
	int j;

	profile_init(p);
	profile_alloc(p, 1, L);
	p->mb[0] = 1;
	p->model = xstrdup("uniform");
	for (j = 0; j < L; j++) {
		struct prof_layer *l = &p->layers[j];
		struct prof_point *pt = &l->pt[0];

		l->name = xstrdup("layer");
		l->kind = PROF_BLOCK;
		l->repeat = 1;
		l->params = 1000000;
		pt->fwd_ms = 3;
		pt->bwd_ms = 7;
		pt->recomp_ms[PROF_RC_FULL] = 4;
		pt->out_bytes = 100000000;
		pt->stash_bytes[PROF_RC_NONE] = 1000000000;
		pt->stash_bytes[PROF_RC_SELECTIVE] = 500000000;
		pt->stash_bytes[PROF_RC_FULL] = 100000000;
		pt->fwd_flops = 1e12;
	}
}

/*
 * One node of gpn GPUs on an NVSwitch whose collectives reach gb_s GB/s:
 * its line rate is gb_s over the share of it NCCL reaches (place.c,
 * PLACE_NVLINK_P2P_EFF, 370 of 450), so hand costs count gb_s.
 */
static inline void
one_node(struct cluster *c, int gpn, double gb_s)
{
	cluster_init(c);
	c->name = xstrdup("test");
	c->gpu = xstrdup("TEST");
	c->nodes = 1;
	c->gpus_per_node = gpn;
	c->gpu_mem_bytes = 80LL << 30;
	c->net_gb_s = 10;
	cluster_set_uniform(c, gpn, gb_s * 450 / 370);
}

static inline void
default_opts(struct cost_opts *o, double cap)
{
	/* zeroed runtimes are neutral (cost.h): the figures below alone */
	memset(o, 0, sizeof(*o));
	o->weight_bytes = 2;
	o->grad_bytes = 2;
	o->opt_bytes = 12;
	o->version_bytes = 4;
	o->cap_bytes = cap;
}

#endif
