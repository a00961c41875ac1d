/*
 * test_prof_trace.c - the profiler's measured timeline (--trace,
 * profiler/trace.c): the cpu backend on the tiny model writes a trace that
 * parses (libyaml reads JSON's flow style) and holds exactly the expected
 * events, in measurement order; the writer's escaping and a failed write.
 */
#include <string.h>

#include "harness.h"
#include "capture.h"

#include "pd2bw/error.h"
#include "pd2bw/model.h"
#include "pd2bw/profile.h"
#include "pd2bw/yml.h"
#include "../../profiler/measure.h"
#include "../../profiler/trace.h"

/* The string at key of mapping n, or "". */
static const char *
str_at(struct yml_doc *d, yaml_node_t *n, const char *key)
{
	const char *s = yml_scalar(yml_get(d, n, key));

	return s ? s : "";
}

/* The number at key of mapping n, or -1. */
static double
num_at(struct yml_doc *d, yaml_node_t *n, const char *key)
{
	const char *s = yml_scalar(yml_get(d, n, key));

	return s ? strtod(s, NULL) : -1;
}

/*
 * tiny (embedding, block, head) at microbatches 1 and 2, no warm-up, 3
 * repeats: for each microbatch and layer, 3 forward and 3 backward events,
 * 36 in all, after the process name and the two thread names, then the
 * end marker.  Event k of a layer's group alternates forward, backward;
 * each backward begins where its forward ended; times never go back.
 */
static void
test_cpu_trace(void)
{
	static const char *const layer[] = {"embedding", "block", "head"};
	static const int mbs[] = {1, 2};
	struct prof_opts o;
	struct profile p;
	struct model m;
	struct yml_doc doc;
	yaml_node_t *ev, *e;
	char *dir = cap_mkdtemp(), path[4400];
	int k, l, r, pass, idx, bad_name = 0, bad_args = 0, bad_time = 0;
	double last_ts = -1, fwd_end = 0;

	model_init(&m);
	if (!CHECK(model_load(&m, cap_path("tests/data/profile/tiny.yaml")) ==
		   0))
		return;
	snprintf(path, sizeof(path), "%s/t.json", dir);
	memset(&o, 0, sizeof(o));
	o.mb = mbs;
	o.nmb = 2;
	o.warmup = 0;
	o.repeats = 3;
	o.precision = MODEL_FP32;
	o.name = "tiny \"cpu\"";
	o.trace_path = path;
	profile_init(&p);
	CHECK_INT_EQ(prof_measure(&prof_cpu_backend, &o, &m, 1, &p), 0);
	CHECK(o.trace == NULL); /* the caller's options stay untouched */
	profile_release(&p);
	model_release(&m);

	memset(&doc, 0, sizeof(doc));
	if (!CHECK(yml_load_file(&doc, path) == 0))
		goto out;
	ev = yml_get(&doc, yml_root(&doc), "traceEvents");
	if (!CHECK(ev && ev->type == YAML_SEQUENCE_NODE))
		goto out;
	CHECK_INT_EQ(yml_seq_len(ev), 3 + 36 + 1);
	e = yml_seq_item(&doc, ev, 0);
	CHECK_STR_EQ(str_at(&doc, e, "name"), "process_name");
	CHECK_STR_EQ(str_at(&doc, yml_get(&doc, e, "args"), "name"),
		     "tiny \"cpu\"");
	e = yml_seq_item(&doc, ev, 2);
	CHECK_STR_EQ(str_at(&doc, e, "name"), "thread_name");
	CHECK_INT_EQ((int)num_at(&doc, e, "tid"), 1);
	CHECK_STR_EQ(str_at(&doc, yml_get(&doc, e, "args"), "name"),
		     "backward");
	idx = 3;
	for (k = 0; k < 2; k++)
		for (l = 0; l < 3; l++)
			for (r = 0; r < 3; r++)
				for (pass = 0; pass < 2; pass++, idx++) {
					yaml_node_t *a;
					char want[64];
					double ts, dur;

					e = yml_seq_item(&doc, ev, (size_t)idx);
					a = yml_get(&doc, e, "args");
					snprintf(want, sizeof(want), "%s %s",
						 layer[l], pass ? "backward"
								: "forward");
					bad_name +=
						strcmp(str_at(&doc, e, "name"),
						       want) ||
						strcmp(str_at(&doc, e, "ph"),
						       "X") ||
						num_at(&doc, e, "pid") != 0 ||
						num_at(&doc, e, "tid") != pass;
					bad_args +=
						strcmp(str_at(&doc, a, "layer"),
						       layer[l]) ||
						strcmp(str_at(&doc, a, "pass"),
						       want + strlen(layer[l]) +
							       1) ||
						num_at(&doc, a, "microbatch") !=
							mbs[k] ||
						num_at(&doc, a, "repeat") != r;
					ts = num_at(&doc, e, "ts");
					dur = num_at(&doc, e, "dur");
					/* %.3f: a backward starts within a
					 * rounding step of its forward's end */
					bad_time +=
						ts < last_ts || dur < 0 ||
						(pass &&
						 fabs(ts - fwd_end) > 0.0015);
					last_ts = ts;
					fwd_end = ts + dur;
				}
	CHECK_INT_EQ(bad_name, 0);
	CHECK_INT_EQ(bad_args, 0);
	CHECK_INT_EQ(bad_time, 0);
	e = yml_seq_item(&doc, ev, 39);
	CHECK_STR_EQ(str_at(&doc, e, "name"), "end");
	CHECK(num_at(&doc, e, "ts") >= last_ts);
	e = yml_get(&doc, yml_root(&doc), "otherData");
	CHECK_STR_EQ(str_at(&doc, e, "model"), "tiny");
	CHECK_STR_EQ(str_at(&doc, e, "backend"), "cpu");
	CHECK_STR_EQ(str_at(&doc, e, "kernels"), "false");
	CHECK_INT_EQ((int)num_at(&doc, e, "repeats"), 3);
	CHECK_INT_EQ((int)yml_seq_len(yml_get(&doc, e, "microbatches")), 2);
out:
	yml_release(&doc);
	cap_rmdir(dir);
}

/*
 * The writer by hand: a kernel event on stream 7 with a name that needs
 * escaping, a step; thread names in tid order; a path in a missing
 * directory fails and leaves nothing.
 */
static void
test_writer(void)
{
	struct prof_trace t;
	struct profile p;
	char *dir = cap_mkdtemp(), path[4400], *txt;
	int mb[] = {4};

	profile_init(&p);
	p.model = xstrdup("m");
	p.device = xstrdup("GPU \\0");
	p.backend = xstrdup("cuda");
	p.precision = xstrdup("bf16");
	p.tp = 2;
	p.nmb = 1;
	p.mb = xmalloc(sizeof(int));
	p.mb[0] = mb[0];
	prof_trace_init(&t, 3);
	CHECK(prof_trace_now_us(&t) >= 0);
	prof_trace_add(&t, "k<\"x\">", "block", 1, PROF_TID_STREAM + 7, 1, 4,
		       -1, 10.5, 2.25);
	prof_trace_add(&t, "step", NULL, -1, PROF_TID_STEP, 0, 4, 0, 20, 5);
	t.kernels = 1;
	snprintf(path, sizeof(path), "%s/t.json", dir);
	CHECK_INT_EQ(prof_trace_write(&t, path, &p, 1, 2), 0);
	txt = cap_slurp(path);
	CHECK_STR_EQ(txt ? txt : "",
		     "{\"traceEvents\": [\n"
		     "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 3, "
		     "\"tid\": 0, \"args\": {\"name\": \"GPU \\\\0\"}},\n"
		     "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 3, "
		     "\"tid\": 2, \"args\": {\"name\": \"training step\"}},\n"
		     "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 3, "
		     "\"tid\": 107, \"args\": {\"name\": \"stream 7\"}},\n"
		     "{\"name\": \"k<\\\"x\\\">\", \"cat\": \"kernel\", "
		     "\"ph\": \"X\", \"pid\": 3, \"tid\": 107, \"ts\": 10.500, "
		     "\"dur\": 2.250, \"args\": {\"layer\": \"block\", "
		     "\"pass\": \"backward\", \"microbatch\": 4}},\n"
		     "{\"name\": \"step\", \"cat\": \"step\", \"ph\": \"X\", "
		     "\"pid\": 3, \"tid\": 2, \"ts\": 20.000, \"dur\": 5.000, "
		     "\"args\": {\"microbatch\": 4, \"repeat\": 0}},\n"
		     "{\"name\": \"end\", \"ph\": \"i\", \"s\": \"g\", "
		     "\"pid\": 0, \"tid\": 0, \"ts\": 25.000}\n],\n"
		     "\"displayTimeUnit\": \"ms\",\n"
		     "\"otherData\": {\"model\": \"m\", \"device\": "
		     "\"GPU \\\\0\", \"backend\": \"cuda\", \"precision\": "
		     "\"bf16\", \"tp\": 2, \"warmup\": 1, \"repeats\": 2, "
		     "\"microbatches\": [4], \"kernels\": true}\n}\n");
	free(txt);
	snprintf(path, sizeof(path), "%s/no/t.json", dir);
	cap_begin();
	CHECK_INT_EQ(prof_trace_write(&t, path, &p, 1, 2), -1);
	free(cap_end());
	CHECK_INT_EQ(cap_count(dir), 1);
	prof_trace_release(&t);
	profile_release(&p);
	cap_rmdir(dir);
}

int
main(int argc, char **argv)
{
	cap_find_top(argv[0]);
	(void)argc;
	test_cpu_trace();
	test_writer();
	return h_done();
}
