/*
 * test_pipedream.c - unit tests of the PipeDream graph.txt importer: a
 * chain and a branching graph with hand-computed cut sizes, the metadata
 * it assumes, a round trip through the profile writer, and the exact
 * messages for malformed input (stderr captured into a temporary file).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "pd2bw/error.h"
#include "pd2bw/pipedream.h"
#include "pd2bw/profile.h"

static char data_dir[4096];

/* tests/data/pipedream, found from $TOP or from this file's path. */
static void
find_data(void)
{
	const char *top = getenv("TOP");
	const char *src = __FILE__, *slash = strrchr(src, '/');

	if (top && *top)
		snprintf(data_dir, sizeof(data_dir), "%s/tests/data/pipedream",
			 top);
	else if (slash)
		snprintf(data_dir, sizeof(data_dir),
			 "%.*s/../data/pipedream", (int)(slash - src), src);
	else
		snprintf(data_dir, sizeof(data_dir), "../data/pipedream");
}

static const char *
data(const char *name)
{
	static char path[4200];

	snprintf(path, sizeof(path), "%s/%s", data_dir, name);
	return path;
}

/* ---- stderr capture ---- */

static int saved_fd = -1;
static char cap_path[64];

static void
capture_begin(void)
{
	int fd;

	strcpy(cap_path, "/tmp/pd2bw-test-XXXXXX");
	fd = mkstemp(cap_path);
	if (fd < 0)
		pd2bw_die("mkstemp failed");
	fflush(stderr);
	saved_fd = dup(2);
	dup2(fd, 2);
	close(fd);
}

/* Stop capturing; returns what was written (caller frees). */
static char *
capture_end(void)
{
	FILE *fp;
	char *buf = xcalloc(4096, 1);
	size_t n;

	fflush(stderr);
	dup2(saved_fd, 2);
	close(saved_fd);
	fp = fopen(cap_path, "rb");
	if (fp) {
		n = fread(buf, 1, 4095, fp);
		buf[n] = '\0';
		fclose(fp);
	}
	unlink(cap_path);
	return buf;
}

/* Load text; expect failure with exactly the message want. */
static void
check_error(const char *text, size_t len, const char *want)
{
	struct profile p;
	char *got;
	int ret;

	profile_init(&p);
	capture_begin();
	ret = pipedream_load_string(&p, "bad.txt", text, len);
	got = capture_end();
	CHECK_INT_EQ(ret, -1);
	CHECK_STR_EQ(got, want);
	profile_release(&p);
	free(got);
}

#define BAD(text, want) check_error(text, sizeof(text) - 1, want)

#define ATTRS(f, b, a, p)                                                     \
	"forward_compute_time=" f ", backward_compute_time=" b                \
	", activation_size=" a ", parameter_size=" p

static void
test_chain(void)
{
	struct profile p;
	const struct prof_point *pt;

	profile_init(&p);
	CHECK_INT_EQ(profile_load(&p, data("chain.txt")), 0);
	CHECK_INT_EQ(p.nlayers, 4);
	CHECK_INT_EQ(p.nmb, 1);
	if (p.nlayers != 4 || p.nmb != 1) {
		profile_release(&p);
		return;
	}
	CHECK_INT_EQ(p.mb[0], 1);
	CHECK_STR_EQ(p.model, "chain");
	CHECK_STR_EQ(p.backend, "pipedream");
	CHECK_STR_EQ(p.device, "V100-16GB");
	CHECK_STR_EQ(p.precision, "fp32");
	CHECK_INT_EQ(p.device_mem_bytes, 17179869184LL);
	CHECK_NEAR(p.weight_bytes + p.grad_bytes + p.optimizer_bytes, 16, 0);
	CHECK_NEAR(p.version_bytes, 4, 0);
	/* The file lists node3 first; the order follows the edges. */
	CHECK_STR_EQ(p.layers[0].name, "node1 Input");
	CHECK_STR_EQ(p.layers[1].name,
		     "node2 Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1))");
	CHECK_STR_EQ(p.layers[2].name, "node3 ReLU(inplace)");
	CHECK_STR_EQ(p.layers[3].name,
		     "node4 Linear(in_features=1000, out_features=10, "
		     "bias=True)");
	CHECK_INT_EQ(p.layers[2].kind, PROF_OTHER);
	CHECK_INT_EQ(p.layers[2].repeat, 1);

	/* The data loader's 12 ms are not GPU work. */
	pt = &p.layers[0].pt[0];
	CHECK_NEAR(pt->fwd_ms, 0, 0);
	CHECK_INT_EQ(pt->out_bytes, 1000);
	CHECK_INT_EQ(pt->stash_bytes[PROF_RC_FULL], 1000);

	pt = &p.layers[1].pt[0];
	CHECK_INT_EQ(p.layers[1].params, 224);
	CHECK_NEAR(pt->fwd_ms, 2, 1e-12);
	CHECK_NEAR(pt->bwd_ms, 3, 1e-12);
	CHECK_NEAR(pt->recomp_ms[PROF_RC_NONE], 0, 0);
	CHECK_NEAR(pt->recomp_ms[PROF_RC_SELECTIVE], 0, 0);
	CHECK_NEAR(pt->recomp_ms[PROF_RC_FULL], 2, 1e-12);
	CHECK_INT_EQ(pt->out_bytes, 4000);
	CHECK_INT_EQ(pt->stash_bytes[PROF_RC_NONE], 4000);
	CHECK_INT_EQ(pt->stash_bytes[PROF_RC_SELECTIVE], 4000);
	CHECK_INT_EQ(pt->stash_bytes[PROF_RC_FULL], 1000);
	CHECK_INT_EQ(pt->work_bytes, 0);
	CHECK_NEAR(pt->fwd_flops, 0, 0);

	/* A list of outputs is summed; the last layer's out is its own. */
	pt = &p.layers[3].pt[0];
	CHECK_INT_EQ(p.layers[3].params, 10010);
	CHECK_INT_EQ(pt->out_bytes, 48);
	CHECK_INT_EQ(pt->stash_bytes[PROF_RC_NONE], 48);
	CHECK_INT_EQ(pt->stash_bytes[PROF_RC_FULL], 48);
	CHECK_INT_EQ(profile_params(&p), 10234);
	profile_release(&p);
}

/*
 * diamond.txt: 1 -> 2 -> 3 -> 4 -> 5 -> 6 with a second path 2 -> 7 -> 5
 * and the input reused at the end (1 -> 6).  After node2 both node7 and
 * node3 are ready; node7 comes first in the file, so the order is
 * 1 2 7 3 4 5 6.  Cuts after each position, by hand (activations 1:100
 * 2:200 7:20 3:300 4:50 5:60 6:10):
 *   after 1: {1}                 100
 *   after 2: {1, 2}              300
 *   after 7: {1, 2, 7}           320
 *   after 3: {1, 7, 3}           420  (node2's last consumer is node3)
 *   after 4: {1, 7, 4}           170
 *   after 5: {1, 5}              160
 *   node6 is last: its own 10.
 */
static void
test_diamond(void)
{
	static const char *const names[] = {"node1", "node2", "node7",
					    "node3", "node4", "node5",
					    "node6"};
	static const int64_t out[] = {100, 300, 320, 420, 170, 160, 10};
	/* min(cut before, own activation) */
	static const int64_t full[] = {100, 100, 20, 300, 50, 60, 10};
	static const int64_t act[] = {100, 200, 20, 300, 50, 60, 10};
	struct profile p;
	int i;

	profile_init(&p);
	CHECK_INT_EQ(profile_load(&p, data("diamond.txt")), 0);
	CHECK_INT_EQ(p.nlayers, 7);
	if (p.nlayers != 7) {
		profile_release(&p);
		return;
	}
	for (i = 0; i < 7; i++) {
		const struct prof_point *pt = &p.layers[i].pt[0];

		CHECK(!strncmp(p.layers[i].name, names[i], strlen(names[i])) &&
		      p.layers[i].name[strlen(names[i])] == ' ');
		CHECK_INT_EQ(pt->out_bytes, out[i]);
		CHECK_INT_EQ(pt->stash_bytes[PROF_RC_NONE], act[i]);
		CHECK_INT_EQ(pt->stash_bytes[PROF_RC_FULL], full[i]);
	}
	CHECK_NEAR(p.layers[0].pt[0].fwd_ms, 0, 0);
	CHECK_NEAR(p.layers[5].pt[0].fwd_ms, 0.5, 1e-12);
	CHECK_INT_EQ(p.layers[3].params, 8);
	profile_release(&p);
}

/* Written as pd2bw-profile/1 and read back, nothing changes. */
static void
test_round_trip(void)
{
	struct profile p, q;
	char path[] = "/tmp/pd2bw-test-XXXXXX";
	int fd, i, same = 1;

	profile_init(&p);
	profile_init(&q);
	CHECK_INT_EQ(profile_load(&p, data("diamond.txt")), 0);
	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	CHECK_INT_EQ(profile_write(&p, path), 0);
	CHECK_INT_EQ(profile_load(&q, path), 0);
	unlink(path);
	CHECK_INT_EQ(q.nlayers, p.nlayers);
	CHECK_STR_EQ(q.backend, "pipedream");
	CHECK_STR_EQ(q.model, "diamond");
	for (i = 0; i < p.nlayers && i < q.nlayers; i++) {
		const struct prof_point *a = &p.layers[i].pt[0];
		const struct prof_point *b = &q.layers[i].pt[0];

		if (strcmp(p.layers[i].name, q.layers[i].name) ||
		    a->out_bytes != b->out_bytes ||
		    a->stash_bytes[PROF_RC_FULL] !=
			    b->stash_bytes[PROF_RC_FULL] ||
		    a->fwd_ms != b->fwd_ms || a->bwd_ms != b->bwd_ms ||
		    p.layers[i].params != q.layers[i].params)
			same = 0;
	}
	CHECK_MSG(same, "round trip keeps every layer");
	CHECK_NEAR(q.optimizer_bytes, 8, 0);
	profile_release(&p);
	profile_release(&q);
}

/* BOM, CRLF, blank lines, " -- " inside a description, stage_id fields,
 * nested lists, and the model name taken from a graph.txt's directory. */
static void
test_odd_but_valid(void)
{
	static const char text[] =
		"\xef\xbb\xbf\r\n"
		"node1 -- Input0 -- " ATTRS("0.000", "0.000", "[]", "0.000")
		" -- stage_id=0\r\n"
		"\r\n"
		"node2 -- Odd -- name  with\tblanks -- "
		ATTRS("1.5", "2.5", "[[1.0; 2.0]; 3.0]", "8")
		" -- stage_id=1\r\n"
		"\tnode1 -- node2\r\n"
		"\tnode1 -- node2\r\n";
	struct profile p;

	CHECK(pipedream_sniff(text, sizeof(text) - 1));
	profile_init(&p);
	CHECK_INT_EQ(pipedream_load_string(&p, "runs/gnmt_x/graph.txt", text,
					   sizeof(text) - 1),
		     0);
	CHECK_INT_EQ(p.nlayers, 2);
	if (p.nlayers == 2) {
		CHECK_STR_EQ(p.model, "gnmt_x");
		CHECK_STR_EQ(p.layers[0].name, "node1 Input0");
		CHECK_STR_EQ(p.layers[1].name,
			     "node2 Odd -- name with blanks");
		CHECK_INT_EQ(p.layers[1].pt[0].out_bytes, 6);
		CHECK_INT_EQ(p.layers[1].params, 2);
		CHECK_NEAR(p.layers[1].pt[0].bwd_ms, 2.5, 1e-12);
	}
	profile_release(&p);

	/* Long descriptions are cut, on a character boundary: here after
	 * 79 bytes, since the next character would end at byte 81. */
	{
		char desc[128], buf[512];
		int n;

		memcpy(desc, "\xc3\xa9", 2);
		memset(desc + 2, 'x', 77);
		strcpy(desc + 79, "\xc3\xa9yyyy");
		n = snprintf(buf, sizeof(buf), "node1 -- %s -- %s\n", desc,
			     ATTRS("1", "1", "1", "0"));
		profile_init(&p);
		CHECK_INT_EQ(pipedream_load_string(&p, "x", buf, (size_t)n),
			     0);
		CHECK_INT_EQ(p.nlayers, 1);
		if (p.nlayers == 1) {
			CHECK_INT_EQ(strlen(p.layers[0].name), 6 + 79 + 3);
			CHECK(!strcmp(p.layers[0].name + 85, "..."));
			CHECK_STR_EQ(p.model, "x");
		}
		profile_release(&p);
	}
}

static void
test_sniff(void)
{
	static const char prof[] = "format: pd2bw-profile/1\n";
	static const char blank[] = "\n  \n\tnode1 -- x -- y\n";
	static const char nosep[] = "node: 3\n";
	static const char edge[] = "\tnode1 -- node2\n";

	CHECK(!pipedream_sniff(prof, sizeof(prof) - 1));
	CHECK(pipedream_sniff(blank, sizeof(blank) - 1));
	CHECK(!pipedream_sniff(nosep, sizeof(nosep) - 1));
	CHECK(pipedream_sniff(edge, sizeof(edge) - 1));
	CHECK(!pipedream_sniff("", 0));
	CHECK(!pipedream_sniff("nod", 3));
}

#define N1 "node1 -- A -- "
#define GOOD1 N1 ATTRS("1", "2", "3", "4") "\n"

static void
test_errors(void)
{
	static const char nul[] = "node1 -- A\0 -- x\n";
	char *got;
	struct profile p;

	BAD("", "pd2bw: bad.txt:1:1: no nodes\n");
	BAD("\n\n  \n", "pd2bw: bad.txt:1:1: no nodes\n");
	BAD("hello\n", "pd2bw: bad.txt:1:1: expected 'nodeA -- nodeB' or "
		       "'nodeN -- description -- attributes'\n");
	BAD(N1 "forward_compute_time=1, backward_compute_time=2, "
	       "activation_size=3\n",
	    "pd2bw: bad.txt:1:15: missing 'parameter_size'\n");
	BAD(N1 ATTRS("-1", "2", "3", "4"),
	    "pd2bw: bad.txt:1:36: forward_compute_time is negative\n");
	BAD(N1 ATTRS("1", "nan", "3", "4"),
	    "pd2bw: bad.txt:1:61: backward_compute_time is not a finite "
	    "number\n");
	BAD(N1 ATTRS("1", "2", "x", "4"),
	    "pd2bw: bad.txt:1:80: expected a number for "
	    "'activation_size'\n");
	BAD(N1 ATTRS("1", "2", "[1; x]", "4"),
	    "pd2bw: bad.txt:1:84: expected a number for "
	    "'activation_size'\n");
	BAD(N1 ATTRS("1", "2", "[1, 2]", "4"),
	    "pd2bw: bad.txt:1:82: expected ';' or ']' in activation_size\n");
	BAD(N1 ATTRS("1", "2", "1e16", "4"),
	    "pd2bw: bad.txt:1:80: activation_size out of range (at most "
	    "1e+15)\n");
	BAD(N1 ATTRS("1e8", "2", "3", "4"),
	    "pd2bw: bad.txt:1:36: forward_compute_time out of range (at most "
	    "1e+07)\n");
	BAD(N1 ATTRS("1", "2", "3", "[4]"),
	    "pd2bw: bad.txt:1:98: expected a number for "
	    "'parameter_size'\n");
	BAD(N1 ATTRS("1", "2", "3", "4 junk"),
	    "pd2bw: bad.txt:1:100: expected ',' after 'parameter_size'\n");
	BAD(N1 ATTRS("1", "2", "3", "4") ", color=red",
	    "pd2bw: bad.txt:1:101: unknown attribute 'color'\n");
	BAD(N1 ATTRS("1", "2", "3", "4") ", parameter_size=5",
	    "pd2bw: bad.txt:1:101: duplicate attribute 'parameter_size'\n");
	BAD(N1 "forward_compute_time\n",
	    "pd2bw: bad.txt:1:15: expected 'name=value'\n");
	BAD(N1 ATTRS("1", "2",
		     "[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]", "4"),
	    "pd2bw: bad.txt:1:97: activation_size: lists nested too deeply\n");
	BAD(GOOD1 "node1 -- B -- " ATTRS("1", "2", "3", "4") "\n",
	    "pd2bw: bad.txt:2:1: duplicate node 'node1' (first at line 1)\n");
	BAD(GOOD1 "\tnode1 -- node9\n",
	    "pd2bw: bad.txt:2:11: unknown node 'node9'\n");
	BAD(GOOD1 "\tnode1 -- node1\n",
	    "pd2bw: bad.txt:1:1: the graph has a cycle through 'node1'\n");
	BAD(GOOD1 "\tno de -- node1\n",
	    "pd2bw: bad.txt:2:2: invalid node name 'no de'\n");
	BAD("node 1 -- A -- " ATTRS("1", "2", "3", "4") "\n",
	    "pd2bw: bad.txt:1:1: invalid node name 'node 1'\n");
	BAD(" -- A -- " ATTRS("1", "2", "3", "4") "\n",
	    "pd2bw: bad.txt:1:2: invalid node name '-- A'\n");
	BAD(GOOD1 "node2 -- \x01 -- x\n",
	    "pd2bw: bad.txt:2:10: control character 0x01\n");
	BAD(GOOD1 "node2 -- \xc3\x28 -- x\n",
	    "pd2bw: bad.txt:2:10: invalid UTF-8\n");
	BAD(GOOD1 "node2 -- \xc2\x85 -- x\n",
	    "pd2bw: bad.txt:2:10: control character U+0085\n");

	profile_init(&p);
	capture_begin();
	CHECK_INT_EQ(pipedream_load_string(&p, "bad.txt", nul, sizeof(nul) - 1),
		     -1);
	got = capture_end();
	CHECK_STR_EQ(got, "pd2bw: bad.txt:1:11: NUL byte\n");
	free(got);
	profile_release(&p);

	profile_init(&p);
	capture_begin();
	CHECK_INT_EQ(profile_load(&p, data("cycle.txt")), -1);
	got = capture_end();
	CHECK(strstr(got, "cycle.txt:3:1: the graph has a cycle through "
			  "'node3'\n") != NULL);
	free(got);
	profile_release(&p);
}

int
main(void)
{
	(void)h_skip; /* harness functions this program does not need */
	(void)h_skip_all;
	find_data();
	test_chain();
	test_diamond();
	test_round_trip();
	test_odd_but_valid();
	test_sniff();
	test_errors();
	return h_done();
}
