/*
 * test_yml.c - the strict YAML reader (key tables, types, ranges, format
 * line, libyaml syntax errors) and the byte-stable, atomic writer.
 */
#include <stdint.h>

#include "harness.h"
#include "capture.h"
#include "pd2bw/yml.h"

struct vals {
	char *name;
	int n;
	int64_t big;
	double x;
	int flag;
	int color;
	yaml_node_t *seq, *map;
};

static const char *const colors[] = {"red", "green", NULL};

/* Load buf as "t.yaml" and run yml_map with the test table. */
static int
map_string(const char *buf, struct vals *v)
{
	struct yml_doc d;
	yaml_node_t *root;
	int ret = -1;
	const struct yml_key keys[] = {
		YK_STR("name", 1, &v->name),
		YK_INT("n", 0, &v->n, 1, 100),
		YK_I64("big", 0, &v->big, 0, 1e15),
		YK_DBL("x", 0, &v->x, 0, 10),
		YK_BOOL("flag", 0, &v->flag),
		YK_ENUM("color", 0, &v->color, colors),
		YK_SEQ("seq", 0, &v->seq),
		YK_MAP("map", 0, &v->map),
	};

	memset(v, 0, sizeof(*v));
	if (yml_load_string(&d, "t.yaml", buf, strlen(buf)) == 0) {
		root = yml_root(&d);
		if (root)
			ret = yml_map(&d, root, keys,
				      sizeof(keys) / sizeof(keys[0]));
	}
	yml_release(&d);
	free(v->name);
	v->name = NULL;
	return ret;
}

static void
test_map(void)
{
	struct vals v;

	CHECK(map_string("name: a\nn: 7\nbig: 123456789012\nx: 2.5\n"
			 "flag: true\ncolor: green\n", &v) == 0);
	CHECK_INT_EQ(v.n, 7);
	CHECK_INT_EQ(v.big, 123456789012LL);
	CHECK_NEAR(v.x, 2.5, 0);
	CHECK_INT_EQ(v.flag, 1);
	CHECK_INT_EQ(v.color, 1);

	CHECK_ERR(map_string("name: a\nnn: 1\n", &v),
		  "pd2bw: t.yaml:2:1: unknown key 'nn'");
	CHECK_ERR(map_string("n: 1\n", &v),
		  "pd2bw: t.yaml:1:1: missing key 'name'");
	CHECK_ERR(map_string("name: a\nn: 1\nn: 2\n", &v),
		  "pd2bw: t.yaml:3:1: duplicate key 'n' (first at line 2)");
	CHECK_ERR(map_string("name: a\nn: 1.5\n", &v),
		  "pd2bw: t.yaml:2:4: expected an integer, found '1.5'");
	CHECK_ERR(map_string("name: a\nn: 0\n", &v),
		  "pd2bw: t.yaml:2:4: value 0 out of range [1, 100]");
	CHECK_ERR(map_string("name: a\nn: -3\n", &v),
		  "pd2bw: t.yaml:2:4: value -3 out of range [1, 100]");
	CHECK_ERR(map_string("name: a\nn: \"5\"\n", &v),
		  "pd2bw: t.yaml:2:4: expected a number, found '5'");
	CHECK_ERR(map_string("name: a\nn: [1]\n", &v),
		  "pd2bw: t.yaml:2:4: expected a number, found a sequence");
	CHECK_ERR(map_string("name: a\nx: .nan\n", &v),
		  "pd2bw: t.yaml:2:4: expected a number, found '.nan'");
	CHECK_ERR(map_string("name: a\nx: nan\n", &v),
		  "pd2bw: t.yaml:2:4: number out of range: 'nan'");
	CHECK_ERR(map_string("name: a\nx: inf\n", &v),
		  "pd2bw: t.yaml:2:4: number out of range: 'inf'");
	CHECK_ERR(map_string("name: a\nx: 1e999\n", &v),
		  "pd2bw: t.yaml:2:4: number out of range: '1e999'");
	CHECK_ERR(map_string("name: a\nx: 10.5\n", &v),
		  "pd2bw: t.yaml:2:4: value 10.5 out of range [0, 10]");
	CHECK_ERR(map_string("name: a\nflag: yes\n", &v),
		  "pd2bw: t.yaml:2:7: expected true or false for 'flag'");
	CHECK_ERR(map_string("name: a\ncolor: blue\n", &v),
		  "pd2bw: t.yaml:2:8: invalid color 'blue' (expected red, "
		  "green)");
	CHECK_ERR(map_string("name: a\nseq: 3\n", &v),
		  "pd2bw: t.yaml:2:6: expected a sequence for 'seq'");
	CHECK_ERR(map_string("name: a\nmap: [1]\n", &v),
		  "pd2bw: t.yaml:2:6: expected a mapping for 'map'");
	CHECK_ERR(map_string("name: [a]\n", &v),
		  "pd2bw: t.yaml:1:7: expected a string, found a sequence");
	CHECK_ERR(map_string("- a\n- b\n", &v),
		  "pd2bw: t.yaml:1:1: expected a mapping, found a sequence");
	CHECK_ERR(map_string("", &v), "pd2bw: t.yaml:1:1: empty document");
	CHECK_ERR(map_string("name: [a\n", &v),
		  "pd2bw: t.yaml:2:1: did not find expected ',' or ']' "
		  "while parsing a flow sequence");
	CHECK_ERR(map_string("name: a\n  n: 1\n", &v),
		  "pd2bw: t.yaml:2:4: mapping values are not allowed in "
		  "this context");
}

static int
format_string(const char *buf)
{
	struct yml_doc d;
	int ret = -1;

	if (yml_load_string(&d, "f.yaml", buf, strlen(buf)) == 0 &&
	    yml_root(&d))
		ret = yml_check_format(&d, yml_root(&d), "model", 1);
	yml_release(&d);
	return ret;
}

static void
test_format(void)
{
	CHECK_INT_EQ(format_string("format: pd2bw-model/1\n"), 1);
	CHECK_ERR(format_string("format: pd2bw-model/2\n"),
		  "pd2bw: f.yaml:1:9: format version 2 is newer than this "
		  "program reads (1)");
	CHECK_ERR(format_string("format: pd2bw-cluster/1\n"),
		  "pd2bw: f.yaml:1:9: not a pd2bw model file (format "
		  "'pd2bw-cluster/1')");
	CHECK_ERR(format_string("format: pd2bw-model/x\n"),
		  "pd2bw: f.yaml:1:9: bad format version 'pd2bw-model/x'");
	CHECK_ERR(format_string("name: m\n"),
		  "pd2bw: f.yaml:1:1: missing key 'format'");
	CHECK_ERR(format_string("42\n"),
		  "pd2bw: f.yaml:1:1: expected a mapping, found a scalar");
}

static void
write_sample(struct yml_out *o)
{
	yml_out_map(o, 0);
	yml_out_kstr(o, "name", "175");
	yml_out_kstr(o, "plain", "gpt-2.2b");
	yml_out_kstr(o, "t", "true");
	yml_out_kstr(o, "e", "");
	yml_out_kint(o, "i", -42);
	yml_out_kdbl(o, "d", 0.1);
	yml_out_kdbl(o, "z", -0.0);
	yml_out_kdbl(o, "big", 1e20);
	yml_out_kbool(o, "b", 0);
	yml_out_str(o, "flow");
	yml_out_seq(o, 1);
	yml_out_int(o, 1);
	yml_out_dbl(o, 2.5);
	yml_out_end_seq(o);
	yml_out_end_map(o);
}

/* Write a value that is not UTF-8 to path; yml_out_close()'s result. */
static int
write_not_utf8(const char *path)
{
	struct yml_out o;

	if (yml_out_open(&o, path))
		return -2;
	yml_out_map(&o, 0);
	yml_out_kstr(&o, "name", "GV100GL [Tes\x94\x95 V100]");
	yml_out_kstr(&o, "k\xff", "v");
	yml_out_end_map(&o);
	return yml_out_close(&o);
}

static void
test_write(void)
{
	static const char want[] =
		"name: \"175\"\nplain: gpt-2.2b\nt: \"true\"\ne: \"\"\n"
		"i: -42\nd: 0.1\nz: 0\nbig: 1e+20\nb: false\nflow: [1, 2.5]\n";
	struct yml_out o;
	char *dir = cap_mkdtemp(), path[4400], *got;
	struct yml_doc d;

	snprintf(path, sizeof(path), "%s/out.yaml", dir);
	CHECK(yml_out_open(&o, path) == 0);
	write_sample(&o);
	CHECK(yml_out_close(&o) == 0);
	got = cap_slurp(path);
	CHECK_STR_EQ(got, want);
	free(got);
	CHECK_INT_EQ(cap_count(dir), 1);
	/* The quoted "175" reads back as a string, not a number. */
	CHECK(yml_load_file(&d, path) == 0);
	{
		yaml_node_t *n = yml_get(&d, yml_root(&d), "name");

		CHECK(n && n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE);
	}
	yml_release(&d);

	/* Aborting leaves neither the file nor a temporary. */
	snprintf(path, sizeof(path), "%s/abort.yaml", dir);
	CHECK(yml_out_open(&o, path) == 0);
	write_sample(&o);
	yml_out_abort(&o);
	CHECK_INT_EQ(cap_count(dir), 1);

	/* A missing directory: fails, writes nothing. */
	snprintf(path, sizeof(path), "%s/no/such.yaml", dir);
	{
		char want_err[4600];

		snprintf(want_err, sizeof(want_err),
			 "pd2bw: cannot create '%s': No such file or "
			 "directory", path);
		CHECK_ERR(yml_out_open(&o, path), want_err);
	}
	CHECK_INT_EQ(cap_count(dir), 1);

	/* A directory is refused before anything is written. */
	snprintf(path, sizeof(path), "%s/sub", dir);
	CHECK(mkdir(path, 0777) == 0);
	{
		char want_err[4600];

		snprintf(want_err, sizeof(want_err),
			 "pd2bw: cannot write '%s': Is a directory", path);
		CHECK_ERR(yml_out_open(&o, path), want_err);
	}
	CHECK_INT_EQ(cap_count(dir), 2);
	CHECK_INT_EQ(cap_count(path), 0);

	/* A value libyaml will not take (not UTF-8) fails the file once,
	 * leaving nothing: its event used to be emitted unset. */
	snprintf(path, sizeof(path), "%s/bad.yaml", dir);
	{
		char want_err[4600];

		snprintf(want_err, sizeof(want_err),
			 "pd2bw: cannot write '%s': a value is not UTF-8 text",
			 path);
		CHECK_ERR(write_not_utf8(path), want_err);
	}
	CHECK_INT_EQ(cap_count(dir), 2);
	cap_rmdir(dir);
}

static void
test_missing_file(void)
{
	struct yml_doc d;

	CHECK_ERR(yml_load_file(&d, "/nonexistent/x.yaml"),
		  "pd2bw: cannot open '/nonexistent/x.yaml': No such file "
		  "or directory");
	yml_release(&d);
}

/* Load buf as "t.yaml" and release it; 0 or -1 as yml_load_string. */
static int
load_only(const char *buf, size_t len)
{
	struct yml_doc d;
	int ret = yml_load_string(&d, "t.yaml", buf, len);

	yml_release(&d);
	return ret;
}

#define LOAD(s) load_only((s), sizeof(s) - 1)

/* What every reader refuses now and used to take in silence. */
static void
test_hostile(void)
{
	char *deep;
	size_t i, n = 100000;
	struct vals v;

	/* text after the first document */
	CHECK_ERR(LOAD("name: a\n---\nname: b\n"),
		  "pd2bw: t.yaml:2:1: a second document (a file holds one)");
	CHECK_ERR(LOAD("name: a\n...\njunk\n"),
		  "pd2bw: t.yaml:3:1: did not find expected <document start>");
	CHECK_ERR(LOAD("name: a\n...\n--- junk\n"),
		  "pd2bw: t.yaml:3:1: a second document (a file holds one)");
	CHECK_ERR(LOAD("{\"a\": 1}\n{\"b\": 2}\n"),
		  "pd2bw: t.yaml:2:1: did not find expected <document start>");
	CHECK(LOAD("name: a\n...\n# only a comment\n") == 0);
	CHECK(LOAD("---\nname: a\n...\n") == 0);
	/* a key twice anywhere, JSON included; the first one is named */
	CHECK_ERR(LOAD("{\"a\": 1, \"b\": {\"c\": 1, \"c\": 2}}\n"),
		  "pd2bw: t.yaml:1:24: duplicate key 'c' (first at line 1)");
	CHECK_ERR(LOAD("a: 1\nb: 2\nc: 3\nb: 4\nb: 5\n"),
		  "pd2bw: t.yaml:4:1: duplicate key 'b' (first at line 2)");
	CHECK(map_string("name: a\nmap: {n: 1}\nseq: [{n: 1}, {n: 1}]\n",
			 &v) == 0);
	/* [[[[... 10^5 deep took libyaml half a minute; now the limit */
	deep = malloc(2 * n + 2);
	for (i = 0; i < n; i++) {
		deep[i] = '[';
		deep[2 * n - 1 - i] = ']';
	}
	memcpy(deep + 2 * n, "\n", 2);
	CHECK_ERR(load_only(deep, 2 * n + 1),
		  "pd2bw: t.yaml:1:65: [ ] and { } nested deeper than 64");
	/* 64 is fine, and block nesting does not count */
	CHECK(load_only(deep + n - 64, 128) == 0);
	free(deep);
	CHECK(LOAD("a:\n b:\n  c:\n   - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - 1\n") == 0);
	/* truncation named as such */
	CHECK_ERR(LOAD("a: [1,"),
		  "pd2bw: t.yaml:2:1: did not find expected node content "
		  "while parsing a flow node (the file ends here: truncated?)");
	CHECK_ERR(LOAD("a: [1,\n"),
		  "pd2bw: t.yaml:2:1: did not find expected node content "
		  "while parsing a flow node");
	/* UTF-16 named, a UTF-8 byte-order mark is fine */
	CHECK_ERR(LOAD("\xff\xfen\0a\0m\0e\0:\0 \0a\0\n\0"),
		  "pd2bw: t.yaml:1:1: UTF-16LE text (byte-order mark FF FE): "
		  "pd2bw reads UTF-8");
	CHECK(map_string("\xef\xbb\xbfname: a\n", &v) == 0);
}

static void
test_truncated_format(void)
{
	struct yml_doc d;

	if (CHECK(yml_load_string(&d, "t.yaml", "format: p", 9) == 0))
		CHECK_ERR(yml_check_format(&d, yml_root(&d), "model", 1),
			  "pd2bw: t.yaml:1:9: the file ends in the format name "
			  "'p' (truncated?)");
	yml_release(&d);
	if (CHECK(yml_load_string(&d, "t.yaml", "format: p\n", 10) == 0))
		CHECK_ERR(yml_check_format(&d, yml_root(&d), "model", 1),
			  "pd2bw: t.yaml:1:9: not a pd2bw model file (format "
			  "'p')");
	yml_release(&d);
	CHECK(yml_load_string(&d, "t.yaml", "# x", 3) == 0);
	CHECK_ERR(yml_root(&d) ? 0 : -1,
		  "pd2bw: t.yaml:1:1: empty document (no newline at the end: "
		  "truncated?)");
	yml_release(&d);
}

int
main(int argc, char **argv)
{
	(void)argc;
	(void)h_skip;
	(void)h_skip_all;
	cap_find_top(argv[0]);
	test_map();
	test_format();
	test_write();
	test_missing_file();
	test_hostile();
	test_truncated_format();
	return h_done();
}
