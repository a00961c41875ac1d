/*
 * calibrate.c - analytic versus measured, per layer and microbatch, and
 * the efficiency factors of the analytic model that the measurement
 * implies: from the repeat-weighted totals, one common scale of compute
 * and memory efficiencies; or, given the run's per-kernel breakdown, each
 * factor from its own kernels (GEMMs, attention, memory-bound).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/analytic.h"
#include "pd2bw/error.h"
#include "pd2bw/yml.h"
#include "calibrate.h"

int
prof_kernel_class(const char *name)
{
	const char *p = name;

	if (!strncmp(p, "void ", 5))
		p += 5;
	else if (!strncmp(p, "_Z", 2) && isdigit((unsigned char)p[2]))
		for (p += 2; isdigit((unsigned char)*p); p++)
			;
	if (strncmp(p, "k_", 2))
		return ANALYTIC_GEMM;
	if (!strncmp(p, "k_flash_fwd", 11) || !strncmp(p, "k_flash_bwd", 11))
		return ANALYTIC_ATTN;
	return ANALYTIC_VEC;
}

/* The parsed document d; its release is the caller's. */
static int
read_kernels(struct yml_doc *d, const struct profile *meas,
	     double (*km)[ANALYTIC_NCLASS], int *flash)
{
	/* the analytic estimate's lists (kernels_write()) add the
	 * selective recomputation by module: not a point's time */
	static const char *const passes[] = {"forward", "backward",
					     "selective recompute", NULL};
	yaml_node_t *root, *seq = NULL;
	char *fmt = NULL, *source = NULL;
	size_t i;
	int ret = -1;

	root = yml_root(d);
	if (!root || yml_check_format(d, root, "kernels", 1) < 0)
		goto out;
	{
		const struct yml_key keys[] = {
			YK_STR("format", 1, &fmt),
			YK_STR("source", 0, &source),
			YK_SEQ("kernels", 1, &seq),
		};

		if (yml_map(d, root, keys, sizeof(keys) / sizeof(keys[0])))
			goto out;
	}
	/* the estimate's own breakdown (kernels_write()) would fit the
	 * estimate to itself */
	if (source && strcmp(source, "cupti")) {
		yml_err(d, yml_get(d, root, "source"),
			"the kernels of source '%s' are no measurement: "
			"--calibrate fits what CUPTI timed (pd2bw-profile -b "
			"cuda --kernels)", source);
		goto out;
	}
	for (i = 0; i < yml_seq_len(seq); i++) {
		char *layer = NULL, *name = NULL;
		int mb = 0, pass = 0, index = -1, repeat = 1, l, k, cls;
		int64_t calls = 0;
		double us = 0;
		const struct yml_key keys[] = {
			YK_STR("layer", 1, &layer),
			YK_INT("index", 0, &index, 0, 1 << 30),
			YK_INT("repeat", 0, &repeat, 1, 1 << 30),
			YK_INT("microbatch", 1, &mb, 0, 1 << 30),
			YK_ENUM("pass", 1, &pass, passes),
			YK_STR("name", 1, &name),
			YK_I64("calls", 1, &calls, 0, 9e18),
			YK_DBL("total_us", 1, &us, 0, 1e300),
		};
		int r = yml_map(d, yml_seq_item(d, seq, i), keys,
				sizeof(keys) / sizeof(keys[0]));

		/* by its index where it names one of that name, else the
		 * first layer of the name */
		if (!r && index >= 0 && index < meas->nlayers &&
		    meas->layers[index].name &&
		    !strcmp(meas->layers[index].name, layer))
			l = index;
		else
			for (l = 0; !r && l < meas->nlayers; l++)
				if (meas->layers[l].name &&
				    !strcmp(meas->layers[l].name, layer))
					break;
		for (k = 0; !r && k < meas->nmb; k++)
			if (meas->mb[k] == mb)
				break;
		if (!r && l < meas->nlayers && k < meas->nmb &&
		    pass != KERNEL_PASS_SEL) {
			cls = prof_kernel_class(name);
			km[l * meas->nmb + k][cls] += us;
			*flash |= cls == ANALYTIC_ATTN;
		}
		free(layer);
		free(name);
		if (r)
			goto out;
	}
	ret = 0;
out:
	free(fmt);
	free(source);
	return ret;
}

int
prof_kernels_load_string(const char *name, const char *buf, size_t len,
			 const struct profile *meas,
			 double (*km)[ANALYTIC_NCLASS], int *flash)
{
	struct yml_doc d;
	int r;

	/* released even when loading fails: it holds the name */
	r = yml_load_string(&d, name, buf, len);
	if (!r)
		r = read_kernels(&d, meas, km, flash);
	yml_release(&d);
	return r;
}

static int
load_kernels(const char *path, const struct profile *meas,
	     double (*km)[ANALYTIC_NCLASS], int *flash)
{
	struct yml_doc d;
	int r;

	r = yml_load_file(&d, path);
	if (!r)
		r = read_kernels(&d, meas, km, flash);
	yml_release(&d);
	return r;
}

static double
cap(double x)
{
	return x > 1 ? 1 : x;
}

static const struct prof_layer *
find_layer(const struct profile *p, const char *name, int kind)
{
	int i;

	for (i = 0; i < p->nlayers; i++)
		if (p->layers[i].kind == kind && p->layers[i].name && name &&
		    !strcmp(p->layers[i].name, name))
			return &p->layers[i];
	for (i = 0; i < p->nlayers; i++)
		if (p->layers[i].kind == kind)
			return &p->layers[i];
	return NULL;
}

int
prof_calibrate(const struct profile *meas, const struct model *m,
	       const struct gpu_spec *g, const char *kernels,
	       const char *path, struct gpu_spec *fitted)
{
	struct profile est;
	struct yml_out o;
	double tm = 0, ta = 0, r;
	double (*acls)[ANALYTIC_NCLASS] = NULL, (*km)[ANALYTIC_NCLASS] = NULL;
	double sa[ANALYTIC_NCLASS] = {0}, sm[ANALYTIC_NCLASS] = {0};
	int i, k, c, ret = -1, flash = 0;

	profile_init(&est);
	if (meas->nmb < 1 || meas->nlayers < 1) {
		pd2bw_error("measured profile has no layers");
		goto out;
	}
	acls = xcalloc(3 * (size_t)meas->nmb, sizeof(*acls));
	km = xcalloc((size_t)meas->nlayers * (size_t)meas->nmb, sizeof(*km));
	if (analytic_profile_classes(&est, m, g, meas->mb, meas->nmb,
				     meas->tp > 0 ? meas->tp : 1, acls))
		goto out;
	if (kernels && load_kernels(kernels, meas, km, &flash))
		goto out;
	if (kernels) {
		double any = 0;

		for (i = 0; i < meas->nlayers * meas->nmb; i++)
			any += km[i][0] + km[i][1] + km[i][2];
		if (!(any > 0)) {
			pd2bw_warn("%s: no kernel times for the layers and "
				   "microbatch sizes of the profile; one "
				   "common scale instead", kernels);
			kernels = NULL;
		}
	}
	if (yml_out_open(&o, path))
		goto out;
	yml_out_map(&o, 0);
	yml_out_kstr(&o, "format", "pd2bw-calibration/1");
	yml_out_kstr(&o, "model", meas->model ? meas->model : "");
	yml_out_kstr(&o, "gpu", g->name);
	yml_out_kstr(&o, "measured_on", meas->device ? meas->device : "");
	yml_out_kstr(&o, "measured_backend",
		     meas->backend ? meas->backend : "");
	yml_out_str(&o, "layers");
	yml_out_seq(&o, 0);
	for (i = 0; i < meas->nlayers; i++) {
		const struct prof_layer *ml = &meas->layers[i];
		const struct prof_layer *al = find_layer(&est, ml->name,
							 ml->kind);

		if (!al)
			continue;
		yml_out_map(&o, 0);
		yml_out_kstr(&o, "name", ml->name ? ml->name : "");
		yml_out_kint(&o, "repeat", ml->repeat);
		yml_out_str(&o, "points");
		yml_out_seq(&o, 0);
		for (k = 0; k < meas->nmb; k++) {
			const struct prof_point *mp = &ml->pt[k];
			const struct prof_point *ap = &al->pt[k];
			double mt = mp->fwd_ms + mp->bwd_ms;
			double at = ap->fwd_ms + ap->bwd_ms;

			/* the measured time split as the kernels split it,
			   against the analytic classes of this layer */
			{
				const double *kk = km[i * meas->nmb + k];
				const double *aa =
					acls[(al - est.layers) * meas->nmb +
					     k];
				double kt = kk[0] + kk[1] + kk[2];

				for (c = 0; kt > 0 && c < ANALYTIC_NCLASS;
				     c++) {
					sm[c] += ml->repeat * mt * kk[c] / kt;
					sa[c] += ml->repeat * aa[c];
				}
			}
			yml_out_map(&o, 1);
			yml_out_kint(&o, "microbatch", meas->mb[k]);
			yml_out_kdbl(&o, "measured_ms", mt);
			yml_out_kdbl(&o, "analytic_ms", at);
			yml_out_kdbl(&o, "analytic_over_measured",
				     mt > 0 ? at / mt : 0);
			yml_out_kdbl(&o, "achieved_tflops",
				     mt > 0 ? 3 * ap->fwd_flops / mt * 1e-9 :
				     0);
			yml_out_end_map(&o);
			tm += ml->repeat * mt;
			ta += ml->repeat * at;
		}
		yml_out_end_seq(&o);
		yml_out_end_map(&o);
	}
	yml_out_end_seq(&o);
	r = tm > 0 ? ta / tm : 1;
	if (fitted) {
		*fitted = *g;
		fitted->gemm_eff = cap(g->gemm_eff * r);
		fitted->attn_eff = cap(g->attn_eff * r);
		fitted->attn_eff_fa2 = cap(g->attn_eff_fa2 * r);
		fitted->mem_eff = cap(g->mem_eff * r);
	}
	yml_out_str(&o, "efficiency");
	yml_out_map(&o, 0);
	yml_out_kdbl(&o, "scale", r);
	if (!kernels) {
		yml_out_kstr(&o, "method", "common scale");
		yml_out_kdbl(&o, "gemm_eff", cap(g->gemm_eff * r));
		yml_out_kdbl(&o, "attn_eff", cap(g->attn_eff * r));
		yml_out_kdbl(&o, "mem_eff", cap(g->mem_eff * r));
	} else {
		/*
		 * Each factor scaled by analytic over measured time of its
		 * kernels.  Unfused attention's matmuls are cuBLASLt GEMMs
		 * in the breakdown, so then they count as GEMMs on both
		 * sides and attn_eff follows gemm_eff.  Approximate where
		 * kernels are bound by the other resource (the roofline's
		 * max) or by launch overhead.
		 */
		double f[ANALYTIC_NCLASS];

		if (!flash) {
			sa[ANALYTIC_GEMM] += sa[ANALYTIC_ATTN];
			sm[ANALYTIC_GEMM] += sm[ANALYTIC_ATTN];
			sa[ANALYTIC_ATTN] = sa[ANALYTIC_GEMM];
			sm[ANALYTIC_ATTN] = sm[ANALYTIC_GEMM];
		}
		for (c = 0; c < ANALYTIC_NCLASS; c++)
			f[c] = sm[c] > 0 ? sa[c] / sm[c] : r;
		if (fitted) {
			fitted->gemm_eff = cap(g->gemm_eff * f[ANALYTIC_GEMM]);
			fitted->attn_eff = cap(g->attn_eff * f[ANALYTIC_ATTN]);
			/* the other kernel family keeps its ratio to the
			 * one measured */
			fitted->attn_eff_fa2 =
				cap(g->attn_eff_fa2 * f[ANALYTIC_ATTN]);
			fitted->mem_eff = cap(g->mem_eff * f[ANALYTIC_VEC]);
		}
		yml_out_kstr(&o, "method", flash ? "kernels" :
			     "kernels (attention on cuBLASLt: as GEMMs)");
		yml_out_kdbl(&o, "gemm_eff",
			     cap(g->gemm_eff * f[ANALYTIC_GEMM]));
		yml_out_kdbl(&o, "attn_eff",
			     cap(g->attn_eff * f[ANALYTIC_ATTN]));
		yml_out_kdbl(&o, "mem_eff", cap(g->mem_eff * f[ANALYTIC_VEC]));
		yml_out_kdbl(&o, "gemm_measured_ms", sm[ANALYTIC_GEMM]);
		yml_out_kdbl(&o, "gemm_analytic_ms", sa[ANALYTIC_GEMM]);
		if (flash) {
			yml_out_kdbl(&o, "attn_measured_ms",
				     sm[ANALYTIC_ATTN]);
			yml_out_kdbl(&o, "attn_analytic_ms",
				     sa[ANALYTIC_ATTN]);
		}
		yml_out_kdbl(&o, "mem_measured_ms", sm[ANALYTIC_VEC]);
		yml_out_kdbl(&o, "mem_analytic_ms", sa[ANALYTIC_VEC]);
	}
	yml_out_end_map(&o);
	yml_out_end_map(&o);
	ret = yml_out_close(&o);
out:
	free(acls);
	free(km);
	profile_release(&est);
	return ret;
}
