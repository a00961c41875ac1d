/*
 * test_prof_measure.c - the measurement driver of pd2bw-profile with a fake
 * backend: median and spread, the microbatch sweep stopping at the first
 * size that does not fit, the step check falling back to a smaller size,
 * and what the driver writes into the profile; then the cpu backend end
 * to end on a tiny model.
 */
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "capture.h"
#include "pd2bw/error.h"
#include "pd2bw/profile.h"
#include "../../profiler/measure.h"

struct fake {
	int64_t oom_at;   /* layer_new fails from this microbatch on */
	int64_t step_oom; /* a whole step does not fit from here on */
	int calls, live, steps;
	int64_t live_b;
};

static struct fake fk;

static int
f_open(void **ctx, const struct prof_opts *o, struct profile *p)
{
	(void)o;
	*ctx = &fk;
	free(p->device);
	p->device = xstrdup("fake");
	p->device_mem_bytes = 1 << 20;
	return 0;
}

static void
f_close(void *ctx)
{
	(void)ctx;
}

static int
f_new(void *ctx, const struct prof_graph *g, int layer, int64_t b,
      void **inst)
{
	(void)ctx;
	(void)g;
	if (b >= fk.oom_at || (fk.live > 3 && b >= fk.step_oom))
		return 1;
	fk.live++;
	fk.live_b = b;
	*inst = (void *)(intptr_t)(layer + 1);
	return 0;
}

static void
f_free(void *ctx, void *inst)
{
	(void)ctx;
	(void)inst;
	fk.live--;
}

static int
f_time(void *ctx, void *inst, struct prof_times *t)
{
	/* repeats 1, 2, 3, 100, ...: the median ignores the outlier */
	static const double seq[] = {1, 2, 3, 100, 2.5};

	(void)ctx;
	t->fwd_ms = seq[fk.calls % 5] * (double)(intptr_t)inst;
	t->bwd_ms = 2 * t->fwd_ms;
	t->attn_ms = 0.25;
	fk.calls++;
	return 0;
}

static int
f_step(void *ctx, void **insts, int n, double *ms)
{
	(void)ctx;
	(void)insts;
	fk.steps++;
	*ms = n;
	return 0;
}

static const struct prof_backend fake_backend = {
	"fake", f_open, f_close, NULL, f_new, f_free, f_time, f_step, NULL,
	NULL,
};

static void
tiny(struct model *m)
{
	memset(m, 0, sizeof(*m));
	m->name = "tiny";
	m->family = MODEL_GPT;
	m->layers = 3;
	m->hidden = 16;
	m->heads = 2;
	m->kv_heads = 2;
	m->ffn_hidden = 64;
	m->seq_len = 8;
	m->vocab = 32;
	m->causal = 1;
	m->bias = 1;
	m->tied_embeddings = 1;
	m->precision = MODEL_BF16;
}

int
main(void)
{
	struct prof_opts o;
	struct profile p;
	struct model m;
	int mb[] = {1, 2, 4, 8};
	double x[] = {5, 1, 3, 2, 4}, y[] = {4, 1, 3, 2}, spread;

	(void)h_skip;
	(void)h_skip_all;
	pd2bw_set_progname("test_prof_measure");
	CHECK_NEAR(prof_median(x, 5, &spread), 3, 0);
	CHECK_NEAR(spread, 4.0 / 3, 1e-12);
	CHECK_NEAR(prof_median(y, 4, NULL), 2.5, 0);

	tiny(&m);
	memset(&o, 0, sizeof(o));
	o.mb = mb;
	o.nmb = 4;
	o.warmup = 0;
	o.repeats = 5;
	o.precision = MODEL_BF16;
	o.step = 1;
	fk.oom_at = 4;
	fk.step_oom = 2;
	profile_init(&p);
	CHECK(prof_measure(&fake_backend, &o, &m, 1, &p) == 0);
	CHECK_INT_EQ(p.nmb, 2);            /* 4 does not fit: sweep stops */
	CHECK_INT_EQ(p.mb[1], 2);
	CHECK_INT_EQ(p.nlayers, 3);
	CHECK_INT_EQ(p.layers[1].repeat, 3);
	CHECK_NEAR(p.layers[0].pt[0].fwd_ms, 2.5, 1e-12);
	CHECK_NEAR(p.layers[0].pt[0].bwd_ms, 5, 1e-12);
	CHECK_NEAR(p.layers[1].pt[0].recomp_ms[PROF_RC_SELECTIVE], 0.25,
		   1e-12);
	CHECK_NEAR(p.layers[1].pt[0].recomp_ms[PROF_RC_FULL],
		   p.layers[1].pt[0].fwd_ms, 0);
	CHECK(p.layers[1].pt[1].stash_bytes[PROF_RC_NONE] >
	      p.layers[1].pt[1].stash_bytes[PROF_RC_FULL]);
	CHECK_INT_EQ(p.layers[1].pt[1].out_bytes, 2 * 8 * 16 * 2);
	CHECK_STR_EQ(p.precision, "bf16");
	CHECK_STR_EQ(p.backend, "fake");
	CHECK_INT_EQ(fk.live, 0);          /* every instance freed */
	CHECK(fk.steps > 0);               /* step ran at microbatch 1 */
	CHECK_INT_EQ(fk.live_b, 1);
	profile_release(&p);

	/* nothing fits: an error, not an empty profile */
	fk.oom_at = 1;
	profile_init(&p);
	CHECK(prof_measure(&fake_backend, &o, &m, 1, &p) == -1);
	profile_release(&p);

	/* the cpu backend end to end, with a step */
	o.precision = MODEL_FP32;
	o.nmb = 2;
	o.repeats = 2;
	profile_init(&p);
	CHECK(prof_measure(&prof_cpu_backend, &o, &m, 2, &p) == 0);
	CHECK_INT_EQ(p.nmb, 2);
	CHECK_INT_EQ(p.tp, 2);
	CHECK(p.layers[1].pt[1].fwd_ms > 0 && p.layers[1].pt[1].bwd_ms > 0);
	CHECK(p.layers[1].pt[0].recomp_ms[PROF_RC_SELECTIVE] > 0);
	CHECK(p.layers[2].pt[0].fwd_ms > 0);
	CHECK(p.layers[1].pt[1].fwd_flops > p.layers[1].pt[0].fwd_flops);
	profile_release(&p);

	/* the duration: said before starting when over a minute, then an
	 * ETA in the bar */
	{
		char buf[32], *err;

		CHECK_STR_EQ(prof_duration_str(42.4e3, buf, sizeof(buf)),
			     "42s");
		CHECK_STR_EQ(prof_duration_str(250e3, buf, sizeof(buf)),
			     "4m10s");
		CHECK_STR_EQ(prof_duration_str(3900e3, buf, sizeof(buf)),
			     "1h05m");
		o.step = 0;
		o.nmb = 1;
		o.warmup = 0;
		o.repeats = 1;
		o.progress = 1;
		/* a machine that slow makes the tiny model take long */
		o.cpu_gflops = 1e-6;
		profile_init(&p);
		cap_begin();
		CHECK(prof_measure(&prof_cpu_backend, &o, &m, 1, &p) == 0);
		err = cap_end();
		CHECK_MSG(strstr(err, "warning: measuring tiny on the cpu "
				 "backend takes about ") != NULL,
			  "cpu backend warns of a long run");
		CHECK_MSG(strstr(err, "ETA ~") != NULL, "estimate at 0%");
		CHECK_MSG(strstr(err, "ETA ") && strstr(err, "] 100% done"),
			  "ETA in the bar, total at the end");
		free(err);
		profile_release(&p);
		o.cpu_gflops = 1e6;
		profile_init(&p);
		cap_begin();
		CHECK(prof_measure(&prof_cpu_backend, &o, &m, 1, &p) == 0);
		err = cap_end();
		CHECK_MSG(!strstr(err, "warning"), "no warning for a short run");
		free(err);
		profile_release(&p);
	}
	return h_done();
}
