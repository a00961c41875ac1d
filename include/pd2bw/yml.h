/*
 * yml.h - strict reading and byte-stable writing of YAML with libyaml.
 *
 * Reading: yml_load_file() parses one document into a yaml_document_t;
 * yml_map() then checks a mapping against a key table (unknown, missing,
 * duplicate keys, wrong types, ranges, NaN) and stores converted values.
 * Every complaint is one line "progname: file:line:col: message".
 *
 * Writing: struct yml_out wraps a libyaml emitter writing into an afile, so
 * the output appears only when yml_out_close() succeeds.
 */
#ifndef PD2BW_YML_H
#define PD2BW_YML_H

#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "pd2bw/afile.h"
#include "pd2bw/error.h"

struct yml_doc {
	yaml_document_t doc;
	char *path; /* name used in messages (owned) */
	int loaded;
	size_t len; /* bytes parsed */
	int cut;    /* they do not end with a newline (truncated?) */
};

/* Deepest nesting of flow collections ([ ] and { }) a file may have. */
#define YML_MAX_DEPTH 64

/*
 * Parse path (read with infile_read(), so within its size limit) as
 * UTF-8 YAML holding exactly one document: text after it, a mapping with
 * a key twice, [ ] or { } nested deeper than YML_MAX_DEPTH, UTF-16 are
 * errors with file:line:col.  Returns 0 or -1 (message printed).
 */
int yml_load_file(struct yml_doc *d, const char *path);
/* Same, from memory; name is used in messages. */
int yml_load_string(struct yml_doc *d, const char *name, const char *buf,
		    size_t len);
/* Free the document; safe on a zeroed or failed struct. */
void yml_release(struct yml_doc *d);
/* Root node, or NULL (after a message) when the document is empty. */
yaml_node_t *yml_root(struct yml_doc *d);

/* "file:line:col" of node n ("file" when n is NULL), xmalloc'ed: for a
 * message about n that a later stage reports. */
char *yml_where(const struct yml_doc *d, const yaml_node_t *n);
/* Print "file:line:col: message" for node n; returns -1. */
int yml_err(struct yml_doc *d, const yaml_node_t *n, const char *fmt, ...)
	PD2BW_PRINTF(3, 4);

enum yml_type {
	YML_STR,  /* char ** (xstrdup'ed; caller frees) */
	YML_INT,  /* int *, integral, within [min, max] */
	YML_I64,  /* int64_t *, integral, within [min, max] */
	YML_DBL,  /* double *, finite, within [min, max] */
	YML_BOOL, /* int *, true or false */
	YML_ENUM, /* int *, index of the scalar in choices */
	YML_SEQ,  /* yaml_node_t **, a sequence */
	YML_MAP,  /* yaml_node_t **, a mapping */
	YML_ANY,  /* yaml_node_t **, any node */
};

struct yml_key {
	const char *name;
	enum yml_type type;
	int required;
	void *dst;
	double min, max;            /* numbers only */
	const char *const *choices; /* YML_ENUM: NULL-terminated */
};

#define YK_STR(n, r, p) {(n), YML_STR, (r), (p), 0, 0, NULL}
#define YK_INT(n, r, p, lo, hi) {(n), YML_INT, (r), (p), (lo), (hi), NULL}
#define YK_I64(n, r, p, lo, hi) {(n), YML_I64, (r), (p), (lo), (hi), NULL}
#define YK_DBL(n, r, p, lo, hi) {(n), YML_DBL, (r), (p), (lo), (hi), NULL}
#define YK_BOOL(n, r, p) {(n), YML_BOOL, (r), (p), 0, 0, NULL}
#define YK_ENUM(n, r, p, c) {(n), YML_ENUM, (r), (p), 0, 0, (c)}
#define YK_SEQ(n, r, p) {(n), YML_SEQ, (r), (p), 0, 0, NULL}
#define YK_MAP(n, r, p) {(n), YML_MAP, (r), (p), 0, 0, NULL}
#define YK_ANY(n, r, p) {(n), YML_ANY, (r), (p), 0, 0, NULL}

/*
 * Check that map is a mapping whose keys are all in keys[0..nkeys), none
 * twice, every required one present, and convert each value into its dst.
 * Optional keys that are absent leave dst untouched (set defaults first).
 * Returns 0 or -1 after one message.
 */
int yml_map(struct yml_doc *d, yaml_node_t *map, const struct yml_key *keys,
	    size_t nkeys);

/* Value of key in mapping map, or NULL; no checks. */
yaml_node_t *yml_get(struct yml_doc *d, yaml_node_t *map, const char *key);
/* Number of items of a sequence node (0 for other nodes). */
size_t yml_seq_len(const yaml_node_t *seq);
/* Item i of a sequence node. */
yaml_node_t *yml_seq_item(struct yml_doc *d, yaml_node_t *seq, size_t i);
/* Scalar text of n, or NULL when n is not a scalar. */
const char *yml_scalar(const yaml_node_t *n);

/* Convert one scalar node; same checks as yml_map.  Return 0 or -1. */
int yml_to_int(struct yml_doc *d, yaml_node_t *n, int *out, double lo,
	       double hi);
int yml_to_i64(struct yml_doc *d, yaml_node_t *n, int64_t *out, double lo,
	       double hi);
int yml_to_dbl(struct yml_doc *d, yaml_node_t *n, double *out, double lo,
	       double hi);
int yml_to_str(struct yml_doc *d, yaml_node_t *n, char **out);
/* Require node n to be a sequence of exactly want items (want < 0: any). */
int yml_expect_seq(struct yml_doc *d, yaml_node_t *n, long want);

/*
 * Check the "format" scalar: "pd2bw-<kind>/<version>".  Accepts versions
 * up to max_version; returns the version or -1.
 */
int yml_check_format(struct yml_doc *d, yaml_node_t *root, const char *kind,
		     int max_version);

/* ---- writing ---- */

struct yml_out {
	yaml_emitter_t em;
	struct afile f;
	int failed;
	int werr;     /* errno of the first failed write, or 0 */
};

/* Start writing path ("-" is stdout).  Returns 0 or -1. */
int yml_out_open(struct yml_out *o, const char *path);
/* Finish the document and commit the file.  Returns 0 or -1. */
int yml_out_close(struct yml_out *o);
/* Give up: nothing is written to path. */
void yml_out_abort(struct yml_out *o);

/* Structure; flow != 0 writes [a, b] / {k: v} on one line. */
void yml_out_map(struct yml_out *o, int flow);
void yml_out_seq(struct yml_out *o, int flow);
void yml_out_end_map(struct yml_out *o);
void yml_out_end_seq(struct yml_out *o);

/* Scalars. Doubles are written with %.9g, non-finite as .nan/.inf. */
void yml_out_str(struct yml_out *o, const char *s);
void yml_out_int(struct yml_out *o, long long v);
void yml_out_dbl(struct yml_out *o, double v);
void yml_out_bool(struct yml_out *o, int v);

/* key: value pairs inside a mapping. */
void yml_out_kstr(struct yml_out *o, const char *k, const char *v);
void yml_out_kint(struct yml_out *o, const char *k, long long v);
void yml_out_kdbl(struct yml_out *o, const char *k, double v);
void yml_out_kbool(struct yml_out *o, const char *k, int v);

#endif
