/* plan_model.c - plan a model in-process on a cluster preset, as
 * pd2bw-plan MODEL -c PRESET:NODES -B BATCH --tp 1 does.  Build:
 * cc -Iinclude plan_model.c libpd2bw.a -lyaml -lglpk -lm. */
#include <stdio.h>
#include <stdlib.h>

#include "pd2bw/analytic.h"
#include "pd2bw/search.h"

int
main(int argc, char **argv)
{
	struct model m;
	struct gpu_catalog cat;
	struct cluster cl;
	struct profile prof;
	struct chain c;
	struct cost_opts co; /* bytes, runtimes, memory cap */
	struct search_opts so;
	struct search_stats st;
	struct plan p;

	model_init(&m), catalog_init(&cat), cluster_init(&cl);
	profile_init(&prof), plan_init(&p);
	cost_opts_init(&co), search_opts_init(&so);
	if (argc != 4 || model_load(&m, argv[1]) || cluster_preset(&cl, argv[2]) ||
	    analytic_profile(&prof, &m, catalog_find(&cat, cl.gpu),
			     analytic_default_mb, analytic_default_nmb, 1) ||
	    chain_build(&c, &prof))
		return 1;
	cost_opts_from_profile(&co, &prof, catalog_find(&cat, cl.gpu));
	co.cap_bytes = (double)cl.gpu_mem_bytes - (1 << 30); /* 1 GiB reserve */
	so.batch = atol(argv[3]);
	if (search_run(&c, &cl, &co, &so, &p, &st))
		return 3;
	printf("%s w=%d d=%d b=%d: %.1f ms\n", plan_sched_names[p.sched], p.w,
	       p.d, p.b, p.iter_ms);
	return 0;
}
