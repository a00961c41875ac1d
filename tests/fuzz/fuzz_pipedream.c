/*
 * fuzz_pipedream.c - libFuzzer target for the PipeDream graph.txt importer
 * (lib/pipedream.c): any input must either be rejected with a message or
 * give a profile whose layers obey the format's rules (stashes do not
 * grow with recomputation, sizes and times are finite and >= 0) and that
 * survives a pd2bw-profile/1 write and read unchanged.
 */
#include <math.h>

#include "fuzz.h"
#include "pd2bw/pipedream.h"
#include "pd2bw/profile.h"

static void
check_layers(const struct profile *p)
{
	int i;

	if (p->nmb != 1 || p->mb[0] != 1 || p->nlayers < 1)
		fz_fail("pipedream: bad shape");
	for (i = 0; i < p->nlayers; i++) {
		const struct prof_layer *l = &p->layers[i];
		const struct prof_point *pt = &l->pt[0];

		if (!l->name || l->repeat != 1 || l->params < 0 ||
		    l->kind != PROF_OTHER)
			fz_fail("pipedream: bad layer");
		if (!isfinite(pt->fwd_ms) || pt->fwd_ms < 0 ||
		    !isfinite(pt->bwd_ms) || pt->bwd_ms < 0 ||
		    pt->recomp_ms[PROF_RC_FULL] != pt->fwd_ms)
			fz_fail("pipedream: bad times");
		if (pt->out_bytes < 0 || pt->stash_bytes[PROF_RC_FULL] < 0 ||
		    pt->stash_bytes[PROF_RC_NONE] <
			    pt->stash_bytes[PROF_RC_SELECTIVE] ||
		    pt->stash_bytes[PROF_RC_SELECTIVE] <
			    pt->stash_bytes[PROF_RC_FULL])
			fz_fail("pipedream: bad sizes");
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile p, q;
	char *buf;
	size_t len;

	profile_init(&p);
	profile_init(&q);
	if (pipedream_load_string(&p, "fuzz/graph.txt", (const char *)data,
				  size) == 0) {
		check_layers(&p);
		if (profile_write(&p, fz_p1))
			fz_fail("pipedream: cannot write the profile");
		buf = fz_read(fz_p1, &len);
		if (profile_load_string(&q, "a.yaml", buf, len))
			fz_fail("pipedream: written profile does not read");
		free(buf);
		if (q.nlayers != p.nlayers)
			fz_fail("pipedream: layers lost in the round trip");
		if (profile_write(&q, fz_p2))
			fz_fail("pipedream: cannot write the profile again");
		fz_same_files();
	}
	profile_release(&p);
	profile_release(&q);
	return 0;
}
