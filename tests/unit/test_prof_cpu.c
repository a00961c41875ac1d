/*
 * test_prof_cpu.c - finite-difference checks of every CPU backward op of
 * the profiler, through whole layers of tiny gpt, bert and llama models
 * (LayerNorm/RMSNorm, GELU/SwiGLU, MHA/GQA, causal or not, rotary or
 * learned positions, tied head, cross-entropy; with dropout on the
 * embedding, the residual branches and, unfused, the attention
 * probabilities: the masks are a hash, the same for every forward, so the
 * finite differences see a smooth function), plus a few direct op checks.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "pd2bw/profile.h"
#include "../../profiler/cpu.h"
#include "../../profiler/graph.h"

#define EPS 1e-2
#define ATOL 2e-3
#define RTOL 2e-2

static void
tiny(struct model *m, int family, int dropout, int flash)
{
	model_init_family(m, family);
	m->layers = 2;
	m->hidden = 16;
	m->heads = 4;
	m->kv_heads = family == MODEL_LLAMA ? 2 : 4;
	m->ffn_hidden = family == MODEL_LLAMA ? 24 : 64;
	m->seq_len = 6;
	m->vocab = 23;
	m->tied_embeddings = family == MODEL_GPT;
	m->precision = MODEL_FP32;
	m->dropout = dropout;
	m->flash_attention = flash;
}

/* Worst |analytic - numeric| / (ATOL + RTOL |numeric|) over samples. */
static double
check_values(struct prof_cpu_layer *l, float *v, const float *grad,
	     int64_t n, int64_t nsamples)
{
	double worst = 0;
	int64_t i, step = n / nsamples > 1 ? n / nsamples : 1;

	for (i = 0; i < n; i += step) {
		int64_t k = (i * 7 + 3) % n;
		float save = v[k];
		double jp, jm, num, r;

		v[k] = save + (float)EPS;
		prof_cpu_fwd(l);
		jp = prof_cpu_objective(l);
		v[k] = save - (float)EPS;
		prof_cpu_fwd(l);
		jm = prof_cpu_objective(l);
		v[k] = save;
		num = (jp - jm) / (2 * EPS);
		r = fabs(num - grad[k]) / (ATOL + RTOL * fabs(num));
		if (r > worst)
			worst = r;
		if (r > 1)
			printf("#   element %lld: analytic %.6g numeric %.6g\n",
			       (long long)k, grad[k], num);
	}
	return worst;
}

static void
check_model(int family, int tp, int dropout, int flash, const char *what)
{
	struct model m;
	struct prof_graph g;
	int li;
	char name[128];

	tiny(&m, family, dropout, flash);
	if (!CHECK(prof_graph_build(&g, &m, tp, 4) == 0))
		return;
	for (li = 0; li < g.nlayers; li++) {
		const struct prof_glayer *gl = &g.layers[li];
		struct prof_cpu_layer *l = prof_cpu_layer_new(&g, li, 2, 5);
		double w;
		int i;

		prof_cpu_fwd(l);
		prof_cpu_bwd(l);
		for (i = 0; i < gl->nops; i++) {
			const struct prof_op *op = &gl->ops[i];

			if (!op->nparams)
				continue;
			w = check_values(l, l->params + op->param_off,
					 l->grads + op->param_off, op->nparams,
					 40);
			snprintf(name, sizeof(name),
				 "%s %s %s: parameter gradient (%.2f)", what,
				 gl->name, op->name, w);
			CHECK_MSG(w <= 1, name);
		}
		if (gl->kind != PROF_EMBED) {
			w = check_values(l, l->t[0], l->dt[0],
					 l->T * gl->cols[0], 60);
			snprintf(name, sizeof(name),
				 "%s %s: input gradient (%.2f)", what,
				 gl->name, w);
			CHECK_MSG(w <= 1, name);
		}
		prof_cpu_layer_free(l);
	}
}

static void
check_ops(void)
{
	float x[6] = {1, 2, 3, 4, 5, 6}, w[4] = {1, 0, -1, 2}, y[6];
	float bias[2] = {0.5f, -0.5f};
	float logits[3] = {0, 0, 0}, loss;
	int tgt = 1;

	/* x [3,2] w [2,2]: y = x w^T + b */
	prof_cpu_linear_fwd(y, x, w, bias, 3, 2, 2);
	CHECK_NEAR(y[0], 1.5, 1e-6);
	CHECK_NEAR(y[1], 2.5, 1e-6);
	CHECK_NEAR(y[5], 6.5, 1e-6);
	prof_cpu_xent_fwd(&loss, logits, &tgt, 1, 3);
	CHECK_NEAR(loss, log(3.0), 1e-6);
	prof_cpu_gelu_fwd(y, x, 1);
	CHECK_NEAR(y[0], 0.841192, 1e-5);
}

int
main(void)
{
	(void)h_skip;
	(void)h_skip_all;
	check_ops();
	check_model(MODEL_GPT, 1, 0, 0, "gpt");
	check_model(MODEL_BERT, 1, 0, 0, "bert");
	check_model(MODEL_LLAMA, 1, 0, 0, "llama");
	/* a tensor-parallel shard: 2 query heads sharing 1 kv head */
	check_model(MODEL_LLAMA, 2, 0, 0, "llama tp=2");
	/* dropout: attention probabilities dropped (unfused), or not
	 * (flash); embedding and residual branches dropped in all */
	check_model(MODEL_GPT, 1, 1, 0, "gpt dropout");
	check_model(MODEL_BERT, 1, 1, 0, "bert dropout");
	check_model(MODEL_GPT, 1, 1, 1, "gpt dropout flash");
	check_model(MODEL_LLAMA, 2, 1, 1, "llama tp=2 dropout flash");
	check_model(MODEL_LLAMA, 1, 1, 0, "llama dropout");
	return h_done();
}
