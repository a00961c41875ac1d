/* capacity_model.c - plan a model on 1..NODES nodes of a cluster preset
 * in-process and say how long each trains on TOKENS tokens, as
 * pd2bw-plan capacity MODEL --gpu GPU:PRESET --nodes 1,...,NODES --tp 1
 * does.  Build: cc -Iinclude capacity_model.c libpd2bw.a -lyaml -lglpk
 * -lm -lpthread.  Usage: capacity_model MODEL PRESET BATCH TOKENS NODES */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/analytic.h"
#include "pd2bw/capacity.h"

int
main(int argc, char **argv)
{
	struct model m;
	struct gpu_catalog cat;
	struct cluster cl;
	struct profile prof;
	struct chain c;
	struct cost_opts co;
	struct search_opts so;
	struct search_chain sc;
	struct capacity cap;
	struct capacity_type *t;
	int i;

	model_init(&m), catalog_init(&cat), cluster_init(&cl);
	profile_init(&prof), cost_opts_init(&co), search_opts_init(&so);
	if (argc != 6 || model_load(&m, argv[1]) || cluster_preset(&cl, argv[2]) ||
	    analytic_profile(&prof, &m, catalog_find(&cat, cl.gpu),
			     analytic_default_mb, analytic_default_nmb, 1) ||
	    chain_build(&c, &prof))
		return 1;
	cost_opts_from_profile(&co, &prof, catalog_find(&cat, cl.gpu));
	co.cap_bytes = (double)cl.gpu_mem_bytes - (1 << 30); /* 1 GiB reserve */
	so.batch = atol(argv[3]);
	memset(&sc, 0, sizeof(sc));
	sc.c = &c, sc.t = 1, sc.cp = 1, sc.ep = 1; /* one shape: t = 1 */
	capacity_init(&cap);
	cap.tokens = atof(argv[4]), cap.seq_len = prof.seq_len;
	t = capacity_add_type(&cap, cl.gpu, argv[2]);
	t->gpus_per_node = cl.gpus_per_node, t->usd_per_gpu_hour = -1;
	t->nrows = atoi(argv[5]);
	t->rows = calloc(t->nrows > 0 ? t->nrows : 1, sizeof(*t->rows));
	for (i = 0; i < t->nrows; i++)
		t->rows[i].nodes = i + 1;
	if (capacity_plan_type(t, &sc, 1, &cl, &co, &so))
		return 3;
	capacity_summarise(&cap);
	for (i = 0; i < t->nrows; i++)
		if (t->rows[i].fits)
			printf("%d GPUs: %.3f ms, %.4f days%s\n", t->rows[i].gpus,
			       t->rows[i].iter_ms, t->rows[i].train_days,
			       i == t->fastest ? " (fastest)" : "");
	return 0;
}
