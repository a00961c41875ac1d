/*
 * test_prof_dropout.c - the dropout masks both profiler backends draw
 * (profiler/dropout.h): the share of elements they keep, that they are the
 * same on every call and unrelated between masks, and how the CPU
 * reference applies them (embedding, residual branch, attention only
 * without flash), which the GPU kernels are checked against.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "pd2bw/profile.h"
#include "../../profiler/cpu.h"
#include "../../profiler/dropout.h"
#include "../../profiler/graph.h"

#define DRAWS 1000000

/* Share kept of DRAWS elements from index first on. */
static double
kept_share(uint32_t key, int64_t first)
{
	int64_t i, n = 0;

	for (i = first; i < first + DRAWS; i++)
		n += prof_dropout_keep(key, i);
	return (double)n / DRAWS;
}

/* Share of DRAWS elements on which two masks agree. */
static double
agreement(uint32_t ka, int64_t fa, uint32_t kb, int64_t fb)
{
	int64_t i, n = 0;

	for (i = 0; i < DRAWS; i++)
		n += prof_dropout_keep(ka, fa + i) ==
		     prof_dropout_keep(kb, fb + i);
	return (double)n / DRAWS;
}

static void
check_masks(void)
{
	/* two independent masks agree on p^2 + (1 - p)^2 of elements */
	double p = PROF_DROPOUT_P, indep = p * p + (1 - p) * (1 - p);
	uint8_t *a = malloc(DRAWS), *b = malloc(DRAWS);
	uint32_t seed, op, key;
	int64_t i;
	char what[128];

	CHECK_NEAR(PROF_DROPOUT_P, 0.1, 1e-12);
	CHECK_NEAR(PROF_DROPOUT_SCALE, 1 / 0.9, 1e-6);
	for (seed = 0; seed < 3; seed++)
		for (op = 0; op < 16; op += 5) {
			key = prof_dropout_key(seed, op);
			snprintf(what, sizeof(what), "seed %u op %u keeps "
				 "1 - p of its elements (%.4f)", seed, op,
				 kept_share(key, 0));
			CHECK_MSG(fabs(kept_share(key, 0) - (1 - p)) < 0.005,
				  what);
		}
	/* across 2^32, where the high index bits start to count */
	key = prof_dropout_key(1, 4);
	CHECK(fabs(kept_share(key, ((int64_t)1 << 32) - DRAWS / 2) -
		   (1 - p)) < 0.005);
	/* the same mask on every call */
	for (i = 0; i < DRAWS; i++)
		a[i] = (uint8_t)prof_dropout_keep(key, i);
	for (i = 0; i < DRAWS; i++)
		b[i] = (uint8_t)prof_dropout_keep(key, i);
	CHECK_MSG(!memcmp(a, b, DRAWS), "a mask is the same on every call");
	CHECK(prof_dropout_key(1, 4) == key);
	/* unrelated: other op, other seed, other high index bits */
	CHECK(fabs(agreement(key, 0, prof_dropout_key(1, 5), 0) - indep) <
	      0.005);
	CHECK(fabs(agreement(key, 0, prof_dropout_key(2, 4), 0) - indep) <
	      0.005);
	CHECK(fabs(agreement(key, 0, key, (int64_t)1 << 32) - indep) <
	      0.005);
	/* nor a shifted copy of itself */
	CHECK(fabs(agreement(key, 0, key, 1) - indep) < 0.005);
	free(a);
	free(b);
}

/* A tiny GPT (model_init's defaults) with or without dropout, flash. */
static void
tiny(struct model *m, int dropout, int flash)
{
	model_init(m);
	m->layers = 2;
	m->hidden = 16;
	m->heads = 4;
	m->kv_heads = 4;
	m->ffn_hidden = 64;
	m->seq_len = 8;
	m->vocab = 23;
	m->precision = MODEL_FP32;
	m->dropout = dropout;
	m->flash_attention = flash;
}

/* Index of the tensor named name in layer gl. */
static int
tensor(const struct prof_glayer *gl, const char *name)
{
	int j;

	for (j = 0; j < gl->ntensors; j++)
		if (!strcmp(gl->tname[j], name))
			return j;
	return -1;
}

/* Largest |a - b| over n elements. */
static double
max_diff(const float *a, const float *b, int64_t n)
{
	double w = 0;
	int64_t i;

	for (i = 0; i < n; i++)
		if (fabs((double)a[i] - b[i]) > w)
			w = fabs((double)a[i] - b[i]);
	return w;
}

/*
 * The CPU reference with dropout against the same layer without: same
 * parameters and input (same seed), so every difference is dropout's.
 */
static void
check_cpu(int flash)
{
	struct model m;
	struct prof_graph g0, g1;
	struct prof_cpu_layer *l0, *l1;
	const struct prof_glayer *gl;
	int64_t T, n, i, zeros = 0, bad = 0;
	int j, x, o, r1, ctx, qkv;
	const char *tag = flash ? "flash" : "unfused";
	char what[128];

	tiny(&m, 0, flash);
	if (!CHECK(prof_graph_build(&g0, &m, 1, 4) == 0))
		return;
	tiny(&m, 1, flash);
	if (!CHECK(prof_graph_build(&g1, &m, 1, 4) == 0))
		return;

	/* embedding: y = mask * e / (1 - p), the mask kept */
	l0 = prof_cpu_layer_new(&g0, 0, 4, 7);
	l1 = prof_cpu_layer_new(&g1, 0, 4, 7);
	prof_cpu_fwd(l0);
	prof_cpu_fwd(l1);
	T = l1->T;
	n = T * g1.d.h;
	CHECK(l0->mask[0] == NULL && l1->mask[0] != NULL);
	for (i = 0; i < n; i++) {
		float want = l1->mask[0][i] ? l0->t[1][i] * PROF_DROPOUT_SCALE :
			     0.0f;

		zeros += !l1->mask[0][i];
		bad += l1->mask[0][i] != prof_dropout_keep(
			prof_dropout_key(0, 0), i) ||
		       fabsf(l1->t[1][i] - want) > 1e-6f;
	}
	snprintf(what, sizeof(what), "%s: embedding dropped as its mask "
		 "says (%lld of %lld elements zero)", tag, (long long)zeros,
		 (long long)n);
	CHECK_MSG(!bad && zeros > 0 && zeros < n / 5, what);
	prof_cpu_layer_free(l0);
	prof_cpu_layer_free(l1);

	/* block: the residual adds drop their second input, the branch */
	l0 = prof_cpu_layer_new(&g0, 1, 2, 7);
	l1 = prof_cpu_layer_new(&g1, 1, 2, 7);
	prof_cpu_fwd(l0);
	prof_cpu_fwd(l1);
	gl = &g1.layers[1];
	T = l1->T;
	x = tensor(gl, "x");
	o = tensor(gl, "proj_out");
	r1 = tensor(gl, "residual1");
	ctx = tensor(gl, "context");
	qkv = tensor(gl, "qkv");
	if (!CHECK(x >= 0 && o >= 0 && r1 >= 0 && ctx >= 0 && qkv >= 0))
		goto out;
	for (j = 0; j < gl->nops; j++)
		if (gl->ops[j].kind == PROF_OP_ADD)
			CHECK(l1->mask[j] != NULL && l0->mask[j] == NULL &&
			      gl->ops[j].in[1] != x);
		else
			CHECK(l1->mask[j] == NULL);
	j = prof_layer_find(gl, PROF_OP_ADD);
	n = T * g1.d.h;
	bad = 0;
	for (i = 0; i < n; i++) {
		float v = l1->mask[j][i] ? l1->t[o][i] * PROF_DROPOUT_SCALE :
			  0.0f;

		bad += fabsf(l1->t[r1][i] - (l1->t[x][i] + v)) > 1e-6f;
	}
	snprintf(what, sizeof(what), "%s: residual1 = x + mask * proj_out "
		 "/ (1 - p)", tag);
	CHECK_MSG(!bad, what);
	/* attention: same qkv; context dropped only without flash */
	n = T * gl->cols[qkv];
	CHECK(max_diff(l0->t[qkv], l1->t[qkv], n) == 0);
	n = T * gl->cols[ctx];
	snprintf(what, sizeof(what), "%s: attention probabilities %s",
		 tag, flash ? "not dropped (flash)" : "dropped");
	CHECK_MSG(flash ? max_diff(l0->t[ctx], l1->t[ctx], n) == 0 :
		  max_diff(l0->t[ctx], l1->t[ctx], n) > 1e-3, what);
	/* the graph's stash: masks of both branches, and unfused the
	 * attention mask with the dropped probabilities */
	snprintf(what, sizeof(what), "%s: dropout stash counted", tag);
	CHECK_MSG(prof_layer_stash(&g1, 1, 2, PROF_RC_NONE) -
		  prof_layer_stash(&g0, 1, 2, PROF_RC_NONE) ==
		  2 * T * g1.d.h + (flash ? 0 : 2 * g1.d.heads * g1.d.s *
				    g1.d.s * (1 + 4)), what);
out:
	prof_cpu_layer_free(l0);
	prof_cpu_layer_free(l1);
}

int
main(void)
{
	(void)h_skip;
	(void)h_skip_all;
	check_masks();
	check_cpu(0);
	check_cpu(1);
	return h_done();
}
