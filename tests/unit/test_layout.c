/*
 * test_layout.c - Megatron pipeline layouts read into the entries each
 * rank holds (search_layout()): DeepSeek-V3's recipe layouts counted by
 * hand, Megatron's unrolling rules, and every refusal with its message.
 */
#include <string.h>

#include "harness.h"

#include "pd2bw/chain.h"
#include "pd2bw/error.h"
#include "pd2bw/search.h"

/* embedding, nb blocks, head: the chain of a model */
static void
model_chain(struct chain *c, struct profile *p, int nb)
{
	profile_init(p);
	profile_alloc(p, 1, 3);
	p->mb[0] = 1;
	p->layers[0].name = xstrdup("embedding");
	p->layers[0].kind = PROF_EMBED;
	p->layers[0].repeat = 1;
	p->layers[1].name = xstrdup("block");
	p->layers[1].kind = PROF_BLOCK;
	p->layers[1].repeat = nb;
	p->layers[2].name = xstrdup("head");
	p->layers[2].kind = PROF_HEAD;
	p->layers[2].repeat = 1;
	CHECK(chain_build(c, p) == 0);
}

static int
counts_are(const int *got, const int *want, int d)
{
	return !memcmp(got, want, (size_t)d * sizeof(*got));
}

static void
test_deepseek(void)
{
	struct chain c;
	struct profile p;
	int n[16], v = 0;
	/* (16,1): E + 4, fourteen of 4, 1 + MTP + L */
	static const int pp16[16] = {5, 4, 4, 4, 4, 4, 4, 4,
				     4, 4, 4, 4, 4, 4, 4, 2};
	/* PP 2, VP 8 (GB300): rank 0 holds chunks 0, 2, .., 14 (E + 4 +
	 * 7 x 4), rank 1 chunks 1, 3, .., 15 (7 x 4 + 1 + L) */
	static const int pp2[2] = {33, 30};
	/* PP 8, VP 4 (H100): chunk 0 E t, 30 of tt, chunk 31 m L; rank 0
	 * chunks 0, 8, 16, 24: 2 + 3 x 2, rank 7 chunks 7, 15, 23, 31:
	 * 3 x 2 + 1 */
	static const int pp8[8] = {8, 8, 8, 8, 8, 8, 8, 7};

	model_chain(&c, &p, 61);
	CHECK(search_layout("Et*4|(t*4|)*14tmL", &c, 16, 1, &v, n, NULL,
			    0) == 0);
	CHECK_INT_EQ(v, 1);
	CHECK(counts_are(n, pp16, 16));
	CHECK(search_layout("Et*4|(t*4|)*14tmL", &c, 2, 1, &v, n, NULL,
			    0) == 0);
	CHECK_INT_EQ(v, 8);
	CHECK(counts_are(n, pp2, 2));
	CHECK(search_layout("Et|(tt|)*30mL", &c, 8, 1, &v, n, NULL, 0) == 0);
	CHECK_INT_EQ(v, 4);
	CHECK(counts_are(n, pp8, 8));
	/* commas are cosmetic; the MTP count unknown (-1) is not checked */
	CHECK(search_layout("Et*4|(t*4|)*14,tmL", &c, 16, -1, &v, n, NULL,
			    0) == 0);
	CHECK(counts_are(n, pp16, 16));
	chain_release(&c);
	profile_release(&p);
}

static void
test_refused(void)
{
	static const struct {
		const char *spec;
		int d, mtp;
		const char *why;
	} bad[] = {
		{"Et*4|(t*4|)*13tmL", 16, 1,
		 "15 virtual stages are no multiple of the depth 16"},
		{"t*4|(t*4|)*14tmL", 16, 1,
		 "needs one E (first) and one L (last)"},
		{"tEt*60mL", 1, 1, "E must come once, first"},
		{"Et*4|(t*4|)*14tLm", 16, 1, "L must come once, last"},
		{"Et*4|(t*4|)*14t|mL", 16, 1,
		 "17 virtual stages are no multiple of the depth 16"},
		{"Et*60|tm|L", 3, 1,
		 "pd2bw prices the MTP layers with the output layer: put every "
		 "m in L's virtual stage"},
		{"Et*4|(t*4|)*14mtL", 16, 1,
		 "a t after an m: the decoder layers come before the MTP ones"},
		{"Et*4|(t*4|)*14ttL", 16, 1,
		 "has 62 decoder layers (t), the model 61"},
		{"Et*4|(t*4|)*14tL", 16, 1, "has 0 MTP layers (m), the model 1"},
		{"Et*4|((t*4|)*14)tmL", 16, 1,
		 "'(' at 6 without its ')' (no nesting)"},
		{"Et*4|(t*4|)tmL", 16, 1, "group at 6 is not (...)*N"},
		{"Et4|(t*4|)*14tmL", 16, 1,
		 "'4' is left after unrolling (a count needs a '*' before it)"},
		{"Ex*4|(t*4|)*14tmL", 16, 1,
		 "'x' at 2 is none of E, t, m, L, |, (...)*N, x*N"},
		{"E(t)*99999999999|L", 2, 0,
		 "a repeat count at 9 is missing or over 8192"},
		{"E(t*61|)*1000L", 2, 0, "expands to more than 8192 layers"},
		{"Et*61|||mL", 4, 1, "rank 1 holds no layer"},
		{"Et*61mL", 0, 1, "needs --depth (the pipeline's ranks)"},
	};
	struct chain c;
	struct profile p;
	int n[16], v;
	char why[256];
	size_t i;

	model_chain(&c, &p, 61);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = 0;
		CHECK_MSG(search_layout(bad[i].spec, &c, bad[i].d, bad[i].mtp,
					&v, n, why, sizeof(why)) == -1,
			  bad[i].spec);
		CHECK_STR_EQ(why, bad[i].why);
	}
	chain_release(&c);
	profile_release(&p);
}

int
main(void)
{
	test_deepseek();
	test_refused();
	return h_done();
}
