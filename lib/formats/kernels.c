/*
 * kernels.c - per-kernel breakdowns of a profile's points (kernels.h): the
 * list that gathers them and its pd2bw-kernels/1 file.
 */
#include <stdlib.h>
#include <string.h>

#include "pd2bw/error.h"
#include "pd2bw/kernels.h"
#include "pd2bw/yml.h"

/* kernels.h */
void
kernels_add(struct kernel_list *ks, size_t from, int layer, int mb,
		int pass, const char *name, long calls, double ms)
{
	struct kernel_entry *k;
	size_t i;

	for (i = from; i < ks->n; i++) {
		k = &ks->k[i];
		if (k->layer == layer && k->mb == mb && k->pass == pass &&
		    !strcmp(k->name, name)) {
			k->calls += calls;
			k->ms += ms;
			return;
		}
	}
	if (ks->n == ks->alloc) {
		size_t na = ks->alloc ? 2 * ks->alloc : 64;
		void *q = realloc(ks->k, na * sizeof(*ks->k));

		if (!q) {
			ks->oom = 1;
			return;
		}
		ks->k = q;
		ks->alloc = na;
	}
	k = &ks->k[ks->n];
	k->name = strdup(name);
	if (!k->name) {
		ks->oom = 1;
		return;
	}
	k->layer = layer;
	k->mb = mb;
	k->pass = pass;
	k->calls = calls;
	k->ms = ms;
	ks->n++;
}

/* kernels.h */
void
kernels_free(struct kernel_list *ks)
{
	size_t i;

	for (i = 0; i < ks->n; i++)
		free(ks->k[i].name);
	free(ks->k);
	memset(ks, 0, sizeof(*ks));
}

/* kernels.h */
const char *
kernels_pass_name(int pass)
{
	static const char *const names[] = {"forward", "backward",
					    "selective recompute"};

	return pass >= 0 && pass < KERNEL_NPASS ? names[pass] : "?";
}

/* kernels.h */
int
kernels_write(const char *path, const struct profile *p,
	      const struct kernel_list *ks, const char *source)
{
	struct yml_out o;
	size_t i;

	for (i = 0; i < ks->n; i++)
		if (ks->k[i].layer < 0 || ks->k[i].layer >= p->nlayers ||
		    ks->k[i].mb < 0 || ks->k[i].mb >= p->nmb)
			return pd2bw_error("kernel %zu is of no layer and "
					   "microbatch of profile '%s'", i,
					   p->model ? p->model : "");
	if (yml_out_open(&o, path))
		return -1;
	yml_out_map(&o, 0);
	yml_out_kstr(&o, "format", "pd2bw-kernels/1");
	yml_out_kstr(&o, "source", source);
	yml_out_str(&o, "kernels");
	yml_out_seq(&o, 0);
	for (i = 0; i < ks->n; i++) {
		const struct kernel_entry *k = &ks->k[i];
		const char *layer = p->layers[k->layer].name;

		yml_out_map(&o, 1);
		yml_out_kstr(&o, "layer", layer ? layer : "?");
		yml_out_kint(&o, "index", k->layer);
		yml_out_kint(&o, "repeat", p->layers[k->layer].repeat);
		yml_out_kint(&o, "microbatch", p->mb[k->mb]);
		yml_out_kstr(&o, "pass", kernels_pass_name(k->pass));
		yml_out_kstr(&o, "name", k->name);
		yml_out_kint(&o, "calls", k->calls);
		yml_out_kdbl(&o, "total_us", k->ms * 1e3);
		yml_out_end_map(&o);
	}
	yml_out_end_seq(&o);
	yml_out_end_map(&o);
	return yml_out_close(&o);
}
