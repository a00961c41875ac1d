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

/* Largest |a - b| over n values, relative to the largest |b|. */
static double
max_rel(const float *a, const float *b, int64_t n)
{
	double err = 0, big = 1e-30;
	int64_t i;

	for (i = 0; i < n; i++) {
		if (fabs(a[i] - b[i]) > err)
			err = fabs(a[i] - b[i]);
		if (fabs(b[i]) > big)
			big = fabs(b[i]);
	}
	return err / big;
}

/* The CBLAS linear layer against the hand-written loops. */
static void
check_linear_blas(void)
{
	int64_t T = 37, k = 29, n = 19;
	float *x = malloc(T * k * sizeof(float)), *w = malloc(n * k * 4);
	float *bias = malloc(n * 4), *dy = malloc(T * n * 4);
	float *y[2], *dx[2], *dw[2], *db[2];
	uint64_t st = 7;
	int i;

	prof_cpu_fill(x, T * k, 1, &st);
	prof_cpu_fill(w, n * k, 1, &st);
	prof_cpu_fill(bias, n, 1, &st);
	prof_cpu_fill(dy, T * n, 1, &st);
	for (i = 0; i < 2; i++) {
		y[i] = malloc(T * n * 4);
		dx[i] = malloc(T * k * 4);
		dw[i] = malloc(n * k * 4);
		db[i] = malloc(n * 4);
		/* backward accumulates: start from the same non-zero values */
		st = 11;
		prof_cpu_fill(dx[i], T * k, 1, &st);
		prof_cpu_fill(dw[i], n * k, 1, &st);
		prof_cpu_fill(db[i], n, 1, &st);
	}
	prof_cpu_linear_fwd(y[0], x, w, bias, T, k, n);
	prof_cpu_linear_fwd_ref(y[1], x, w, bias, T, k, n);
	CHECK_MSG(max_rel(y[0], y[1], T * n) < 1e-5, "blas linear forward");
	prof_cpu_linear_fwd(y[0], x, w, NULL, T, k, n);
	prof_cpu_linear_fwd_ref(y[1], x, w, NULL, T, k, n);
	CHECK_MSG(max_rel(y[0], y[1], T * n) < 1e-5,
		  "blas linear forward, no bias");
	prof_cpu_linear_bwd(dx[0], dw[0], db[0], dy, x, w, T, k, n);
	prof_cpu_linear_bwd_ref(dx[1], dw[1], db[1], dy, x, w, T, k, n);
	CHECK_MSG(max_rel(dx[0], dx[1], T * k) < 1e-5, "blas linear dx");
	CHECK_MSG(max_rel(dw[0], dw[1], n * k) < 1e-5, "blas linear dw");
	CHECK_MSG(max_rel(db[0], db[1], n) < 1e-5, "blas linear dbias");
	for (i = 0; i < 2; i++) {
		free(y[i]);
		free(dx[i]);
		free(dw[i]);
		free(db[i]);
	}
	free(x);
	free(w);
	free(bias);
	free(dy);
}

/*
 * Blocked CBLAS attention against the row-by-row loops: causal or not,
 * grouped heads, rotary, dropout, and a sequence longer than one block
 * of query rows.
 */
static void
check_attn_blas(int64_t s, int causal, int rotary, int64_t kv, int drop,
		const char *name)
{
	struct prof_dims d;
	int64_t b = 2, cols, n, nc;
	float *qkv, *dctx, *ctx[2], *dqkv[2];
	uint64_t st = 3;
	char what[128];
	int i;

	memset(&d, 0, sizeof(d));
	d.s = s;
	d.heads = 4;
	d.kv_heads = kv;
	d.head_dim = 8;
	d.causal = causal;
	d.rotary = rotary;
	cols = (d.heads + 2 * kv) * d.head_dim;
	n = b * s * cols;
	nc = b * s * d.heads * d.head_dim;
	qkv = malloc(n * sizeof(float));
	dctx = malloc(nc * sizeof(float));
	prof_cpu_fill(qkv, n, 1, &st);
	prof_cpu_fill(dctx, nc, 1, &st);
	for (i = 0; i < 2; i++) {
		ctx[i] = malloc(nc * sizeof(float));
		dqkv[i] = calloc(n, sizeof(float));
	}
	prof_cpu_attn_fwd(ctx[0], qkv, &d, b, drop, 42);
	prof_cpu_attn_fwd_ref(ctx[1], qkv, &d, b, drop, 42);
	snprintf(what, sizeof(what), "blas attention forward, %s", name);
	CHECK_MSG(max_rel(ctx[0], ctx[1], nc) < 1e-5, what);
	prof_cpu_attn_bwd(dqkv[0], dctx, qkv, &d, b, drop, 42);
	prof_cpu_attn_bwd_ref(dqkv[1], dctx, qkv, &d, b, drop, 42);
	snprintf(what, sizeof(what), "blas attention backward, %s", name);
	CHECK_MSG(max_rel(dqkv[0], dqkv[1], n) < 1e-5, what);
	for (i = 0; i < 2; i++) {
		free(ctx[i]);
		free(dqkv[i]);
	}
	free(qkv);
	free(dctx);
}

int
main(void)
{
	(void)h_skip;
	(void)h_skip_all;
	check_ops();
	check_linear_blas();
	check_attn_blas(6, 1, 0, 4, 0, "causal");
	check_attn_blas(6, 0, 0, 4, 0, "bidirectional");
	check_attn_blas(300, 1, 1, 2, 0, "causal, rotary, grouped, 3 blocks");
	check_attn_blas(300, 0, 0, 4, 1, "bidirectional, dropout, 3 blocks");
	check_attn_blas(200, 1, 1, 1, 1, "causal, rotary, one kv head, dropout");
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
