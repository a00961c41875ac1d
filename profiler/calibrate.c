/*
 * calibrate.c - analytic versus measured, per layer and microbatch, and
 * the efficiency factors of the analytic model that the measurement
 * implies (one common scale of compute and memory efficiencies, from the
 * repeat-weighted totals).
 */
#include <string.h>

#include "pd2bw/analytic.h"
#include "pd2bw/error.h"
#include "pd2bw/yml.h"
#include "calibrate.h"

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
	       const struct gpu_spec *g, const char *path)
{
	struct profile est;
	struct yml_out o;
	double tm = 0, ta = 0, r;
	int i, k, ret = -1;

	profile_init(&est);
	if (meas->nmb < 1 || meas->nlayers < 1) {
		pd2bw_error("measured profile has no layers");
		goto out;
	}
	if (analytic_profile(&est, m, g, meas->mb, meas->nmb,
			     meas->tp > 0 ? meas->tp : 1))
		goto out;
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
	/*
	 * NEEDSWORK: one common scale for all factors; a least-squares fit
	 * of GEMM, attention and memory-bound time separately needs the
	 * per-kernel breakdown (--kernels) as input.
	 */
	r = tm > 0 ? ta / tm : 1;
	yml_out_str(&o, "efficiency");
	yml_out_map(&o, 0);
	yml_out_kdbl(&o, "scale", r);
	yml_out_kdbl(&o, "gemm_eff", cap(g->gemm_eff * r));
	yml_out_kdbl(&o, "attn_eff", cap(g->attn_eff * r));
	yml_out_kdbl(&o, "mem_eff", cap(g->mem_eff * r));
	yml_out_end_map(&o);
	yml_out_end_map(&o);
	ret = yml_out_close(&o);
out:
	profile_release(&est);
	return ret;
}
