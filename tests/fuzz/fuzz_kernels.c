/*
 * fuzz_kernels.c - libFuzzer target for the reader of pd2bw-profile's
 * per-kernel breakdown (prof_kernels_load_string, pd2bw-kernels/1 YAML,
 * read by --calibrate): reject with a message or accept; what is accepted
 * adds only finite, non-negative times, to layers and sizes the profile
 * has.
 */
#include <math.h>

#include "fuzz.h"
#include "pd2bw/analytic.h"
#include "../../profiler/calibrate.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int mb[] = {1, 2};
	struct gpu_catalog cat;
	struct profile p;
	struct model m;
	double km[6][ANALYTIC_NCLASS] = {{0}};
	int flash = 0;

	catalog_init(&cat);
	model_init(&m);
	m.layers = 2;
	m.hidden = 64;
	m.heads = 4;
	m.kv_heads = 4;
	m.ffn_hidden = 256;
	m.seq_len = 16;
	m.vocab = 100;
	profile_init(&p);
	if (analytic_profile(&p, &m, catalog_find(&cat, "H100-SXM"), mb, 2, 1))
		fz_fail("kernels: the fixed profile does not build");
	if (prof_kernels_load_string("fuzz.yaml", (const char *)data, size,
				     &p, km, &flash) == 0)
		for (int i = 0; i < 6; i++)
			for (int c = 0; c < ANALYTIC_NCLASS; c++)
				if (!(km[i][c] >= 0) || isinf(km[i][c]))
					fz_fail("kernels: a time that is not "
						"finite and non-negative");
	profile_release(&p);
	catalog_release(&cat);
	return 0;
}
