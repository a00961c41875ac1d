/*
 * yml.c - strict YAML reading (key tables with type and range checks) and
 * byte-stable YAML writing through libyaml's parser and emitter.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/infile.h"
#include "pd2bw/yml.h"

/* Report libyaml's error: "file:line:col: problem context". */
static int
parse_error(struct yml_doc *d, const yaml_parser_t *p)
{
	const yaml_mark_t *m = &p->problem_mark;
	const char *end = d->cut && m->index >= d->len
				  ? " (the file ends here: truncated?)"
				  : "";

	if (p->error == YAML_MEMORY_ERROR)
		return pd2bw_error("%s: out of memory", d->path);
	if (p->context)
		return pd2bw_error("%s:%zu:%zu: %s %s%s", d->path, m->line + 1,
				   m->column + 1,
				   p->problem ? p->problem : "error",
				   p->context, end);
	return pd2bw_error("%s:%zu:%zu: %s%s", d->path, m->line + 1,
			   m->column + 1,
			   p->problem ? p->problem : "syntax error", end);
}

/*
 * libyaml's scanner checks every pending simple key on every token, one
 * per flow level: [[[[... nested 10^5 deep takes minutes.  A first pass
 * over the events stops at YML_MAX_DEPTH flow levels, before the cost
 * grows; a buffer with too few brackets to nest that deep skips it.
 * (Block nesting costs only linear time: its indentation makes the file
 * quadratic in the depth.)
 */
static int
check_depth(struct yml_doc *d, const char *buf, size_t len)
{
	yaml_parser_t p;
	yaml_event_t ev;
	size_t i, open = 0;
	int depth = 0, ret = 0, done = 0;

	for (i = 0; i < len && open <= YML_MAX_DEPTH; i++)
		open += buf[i] == '[' || buf[i] == '{';
	if (open <= YML_MAX_DEPTH)
		return 0;
	if (!yaml_parser_initialize(&p))
		return pd2bw_error("%s: out of memory", d->path);
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	while (!done) {
		if (!yaml_parser_parse(&p, &ev)) {
			ret = parse_error(d, &p);
			break;
		}
		switch (ev.type) {
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			/* block collections cannot sit inside flow ones */
			if (ev.type == YAML_SEQUENCE_START_EVENT
				    ? ev.data.sequence_start.style !=
					      YAML_FLOW_SEQUENCE_STYLE
				    : ev.data.mapping_start.style !=
					      YAML_FLOW_MAPPING_STYLE)
				break;
			if (++depth > YML_MAX_DEPTH) {
				ret = pd2bw_error("%s:%zu:%zu: [ ] and { } "
						  "nested deeper than %d",
						  d->path,
						  ev.start_mark.line + 1,
						  ev.start_mark.column + 1,
						  YML_MAX_DEPTH);
				done = 1;
			}
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (depth > 0)
				depth--;
			break;
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return ret;
}

struct key_ref {
	const char *s;
	size_t len;
	const yaml_node_t *node;
	size_t pos;
};

static int
cmp_key_ref(const void *a, const void *b)
{
	const struct key_ref *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->s, y->s, n);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/*
 * No mapping anywhere in the document has a scalar key twice (YAML
 * forbids it; JSON leaves it open, and Hugging Face configs would let the
 * first value win silently).  Sorting keeps big mappings near-linear.
 */
static int
check_duplicates(struct yml_doc *d)
{
	yaml_node_t *n;
	struct key_ref *refs = NULL;
	size_t alloc = 0, k, i, j;
	int ret = 0;

	for (n = d->doc.nodes.start; n < d->doc.nodes.top && !ret; n++) {
		yaml_node_pair_t *pr;

		if (n->type != YAML_MAPPING_NODE)
			continue;
		k = 0;
		for (pr = n->data.mapping.pairs.start;
		     pr < n->data.mapping.pairs.top; pr++) {
			const yaml_node_t *kn =
				yaml_document_get_node(&d->doc, pr->key);

			if (!kn || kn->type != YAML_SCALAR_NODE)
				continue;
			xgrow((void **)&refs, &alloc, k + 1, sizeof(*refs));
			refs[k].s = (const char *)kn->data.scalar.value;
			refs[k].len = kn->data.scalar.length;
			refs[k].node = kn;
			refs[k].pos = k;
			k++;
		}
		if (k < 2)
			continue;
		qsort(refs, k, sizeof(*refs), cmp_key_ref);
		for (i = 1; i < k && !ret; i++) {
			if (refs[i].len != refs[i - 1].len ||
			    memcmp(refs[i].s, refs[i - 1].s, refs[i].len))
				continue;
			/* the first of the run is the first in the file */
			for (j = i - 1; j > 0 && refs[j - 1].len == refs[i].len &&
					!memcmp(refs[j - 1].s, refs[i].s,
						refs[i].len);
			     j--)
				;
			ret = yml_err(d, refs[i].node,
				      "duplicate key '%.*s' (first at line %zu)",
				      (int)(refs[i].len > 64 ? 64 : refs[i].len),
				      refs[i].s,
				      refs[j].node->start_mark.line + 1);
		}
	}
	free(refs);
	return ret;
}

/* Parse buf: exactly one document, within the depth, no duplicate keys. */
static int
load(struct yml_doc *d, const char *buf, size_t len)
{
	yaml_parser_t p;
	yaml_document_t extra;
	yaml_node_t *root;
	int ret = 0;

	if (infile_text(d->path, &buf, &len))
		return -1;
	d->len = len;
	d->cut = len > 0 && buf[len - 1] != '\n';
	if (check_depth(d, buf, len))
		return -1;
	if (!yaml_parser_initialize(&p))
		return pd2bw_error("%s: out of memory", d->path);
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&p, &d->doc)) {
		ret = parse_error(d, &p);
		goto out;
	}
	d->loaded = 1;
	/* Text after the document is a second document or an error; both
	 * used to be ignored. */
	if (!yaml_parser_load(&p, &extra)) {
		ret = parse_error(d, &p);
		goto out;
	}
	root = yaml_document_get_root_node(&extra);
	if (root)
		ret = pd2bw_error("%s:%zu:%zu: a second document (a file holds "
				  "one)",
				  d->path, extra.start_mark.line + 1,
				  extra.start_mark.column + 1);
	yaml_document_delete(&extra);
	if (!ret)
		ret = check_duplicates(d);
out:
	yaml_parser_delete(&p);
	return ret;
}

int
yml_load_file(struct yml_doc *d, const char *path)
{
	size_t len;
	const char *buf;
	int ret;

	memset(d, 0, sizeof(*d));
	d->path = xstrdup(path);
	buf = infile_read(path, &len);
	if (!buf)
		return -1;
	ret = load(d, buf, len);
	infile_release(buf);
	return ret;
}

int
yml_load_string(struct yml_doc *d, const char *name, const char *buf,
		size_t len)
{
	memset(d, 0, sizeof(*d));
	d->path = xstrdup(name);
	return load(d, buf, len);
}

void
yml_release(struct yml_doc *d)
{
	if (d->loaded)
		yaml_document_delete(&d->doc);
	d->loaded = 0;
	free(d->path);
	d->path = NULL;
}

yaml_node_t *
yml_root(struct yml_doc *d)
{
	yaml_node_t *n = d->loaded ? yaml_document_get_root_node(&d->doc)
				   : NULL;

	if (!n)
		pd2bw_error("%s:1:1: empty document%s", d->path,
			    d->cut ? " (no newline at the end: truncated?)"
				   : "");
	return n;
}

char *
yml_where(const struct yml_doc *d, const yaml_node_t *n)
{
	size_t len;
	char *s;

	if (!n)
		return xstrdup(d->path);
	len = strlen(d->path) + 48;
	s = xmalloc(len);
	snprintf(s, len, "%s:%zu:%zu", d->path, n->start_mark.line + 1,
		 n->start_mark.column + 1);
	return s;
}

int
yml_err(struct yml_doc *d, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;
	char msg[512];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n)
		return pd2bw_error("%s:%zu:%zu: %s", d->path,
				   n->start_mark.line + 1,
				   n->start_mark.column + 1, msg);
	return pd2bw_error("%s: %s", d->path, msg);
}

const char *
yml_scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE
		       ? (const char *)n->data.scalar.value
		       : NULL;
}

yaml_node_t *
yml_get(struct yml_doc *d, yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *pr;

	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (pr = map->data.mapping.pairs.start;
	     pr < map->data.mapping.pairs.top; pr++) {
		const char *k =
			yml_scalar(yaml_document_get_node(&d->doc, pr->key));

		if (k && strcmp(k, key) == 0)
			return yaml_document_get_node(&d->doc, pr->value);
	}
	return NULL;
}

size_t
yml_seq_len(const yaml_node_t *seq)
{
	if (!seq || seq->type != YAML_SEQUENCE_NODE)
		return 0;
	return (size_t)(seq->data.sequence.items.top -
			seq->data.sequence.items.start);
}

yaml_node_t *
yml_seq_item(struct yml_doc *d, yaml_node_t *seq, size_t i)
{
	return yaml_document_get_node(&d->doc,
				      seq->data.sequence.items.start[i]);
}

static const char *
kind_name(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return "a scalar";
	case YAML_SEQUENCE_NODE:
		return "a sequence";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

/* A number is a plain (unquoted) scalar that strtod consumes entirely. */
static int
parse_number(struct yml_doc *d, yaml_node_t *n, double *out)
{
	const char *s = yml_scalar(n);
	char *end;
	double v;

	if (!s)
		return yml_err(d, n, "expected a number, found %s",
			       kind_name(n));
	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE || !*s)
		return yml_err(d, n, "expected a number, found '%s'", s);
	errno = 0;
	v = strtod(s, &end);
	if (*end || end == s)
		return yml_err(d, n, "expected a number, found '%s'", s);
	if (!isfinite(v) || errno == ERANGE)
		return yml_err(d, n, "number out of range: '%s'", s);
	*out = v;
	return 0;
}

static int
check_range(struct yml_doc *d, yaml_node_t *n, double v, double lo, double hi)
{
	if (v < lo || v > hi)
		return yml_err(d, n, "value %s out of range [%.10g, %.10g]",
			       yml_scalar(n), lo, hi);
	return 0;
}

int
yml_to_dbl(struct yml_doc *d, yaml_node_t *n, double *out, double lo,
	   double hi)
{
	double v;

	if (parse_number(d, n, &v) || check_range(d, n, v, lo, hi))
		return -1;
	*out = v;
	return 0;
}

int
yml_to_i64(struct yml_doc *d, yaml_node_t *n, int64_t *out, double lo,
	   double hi)
{
	double v;

	if (parse_number(d, n, &v))
		return -1;
	if (v != floor(v))
		return yml_err(d, n, "expected an integer, found '%s'",
			       yml_scalar(n));
	if (check_range(d, n, v, lo, hi))
		return -1;
	if (fabs(v) >= 9007199254740992.0)
		return yml_err(d, n, "integer too large: '%s'", yml_scalar(n));
	*out = (int64_t)v;
	return 0;
}

int
yml_to_int(struct yml_doc *d, yaml_node_t *n, int *out, double lo, double hi)
{
	int64_t v;

	if (lo < -2147483647.0)
		lo = -2147483647.0;
	if (hi > 2147483647.0)
		hi = 2147483647.0;
	if (yml_to_i64(d, n, &v, lo, hi))
		return -1;
	*out = (int)v;
	return 0;
}

int
yml_to_str(struct yml_doc *d, yaml_node_t *n, char **out)
{
	const char *s = yml_scalar(n);

	if (!s)
		return yml_err(d, n, "expected a string, found %s",
			       kind_name(n));
	if (strlen(s) != n->data.scalar.length)
		return yml_err(d, n, "string contains a NUL byte");
	free(*out);
	*out = xstrdup(s);
	return 0;
}

int
yml_expect_seq(struct yml_doc *d, yaml_node_t *n, long want)
{
	if (n->type != YAML_SEQUENCE_NODE)
		return yml_err(d, n, "expected a sequence, found %s",
			       kind_name(n));
	if (want >= 0 && yml_seq_len(n) != (size_t)want)
		return yml_err(d, n, "expected %ld items, found %zu", want,
			       yml_seq_len(n));
	return 0;
}

static int
convert(struct yml_doc *d, yaml_node_t *v, const struct yml_key *k)
{
	const char *s;
	size_t i;

	switch (k->type) {
	case YML_STR:
		return yml_to_str(d, v, (char **)k->dst);
	case YML_INT:
		return yml_to_int(d, v, (int *)k->dst, k->min, k->max);
	case YML_I64:
		return yml_to_i64(d, v, (int64_t *)k->dst, k->min, k->max);
	case YML_DBL:
		return yml_to_dbl(d, v, (double *)k->dst, k->min, k->max);
	case YML_BOOL:
		s = yml_scalar(v);
		if (s && v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
		    (!strcmp(s, "true") || !strcmp(s, "false"))) {
			*(int *)k->dst = s[0] == 't';
			return 0;
		}
		return yml_err(d, v, "expected true or false for '%s'",
			       k->name);
	case YML_ENUM:
		s = yml_scalar(v);
		for (i = 0; s && k->choices[i]; i++)
			if (!strcmp(s, k->choices[i])) {
				*(int *)k->dst = (int)i;
				return 0;
			}
		{
			char list[256] = "";

			for (i = 0; k->choices[i]; i++) {
				if (i)
					strncat(list, ", ",
						sizeof(list) - strlen(list) - 1);
				strncat(list, k->choices[i],
					sizeof(list) - strlen(list) - 1);
			}
			return yml_err(d, v, "invalid %s '%s' (expected %s)",
				       k->name, s ? s : "(non-scalar)", list);
		}
	case YML_SEQ:
		if (v->type != YAML_SEQUENCE_NODE)
			return yml_err(d, v, "expected a sequence for '%s'",
				       k->name);
		*(yaml_node_t **)k->dst = v;
		return 0;
	case YML_MAP:
		if (v->type != YAML_MAPPING_NODE)
			return yml_err(d, v, "expected a mapping for '%s'",
				       k->name);
		*(yaml_node_t **)k->dst = v;
		return 0;
	case YML_ANY:
		*(yaml_node_t **)k->dst = v;
		return 0;
	}
	return -1;
}

int
yml_map(struct yml_doc *d, yaml_node_t *map, const struct yml_key *keys,
	size_t nkeys)
{
	yaml_node_pair_t *pr, *q;
	unsigned char seen[128];
	size_t i;

	if (nkeys > sizeof(seen))
		return pd2bw_error("internal error: too many keys");
	if (map->type != YAML_MAPPING_NODE)
		return yml_err(d, map, "expected a mapping, found %s",
			       kind_name(map));
	memset(seen, 0, sizeof(seen));
	for (pr = map->data.mapping.pairs.start;
	     pr < map->data.mapping.pairs.top; pr++) {
		yaml_node_t *kn = yaml_document_get_node(&d->doc, pr->key);
		yaml_node_t *vn = yaml_document_get_node(&d->doc, pr->value);
		const char *k = yml_scalar(kn);

		if (!k)
			return yml_err(d, kn, "expected a scalar key");
		for (q = map->data.mapping.pairs.start; q < pr; q++) {
			const char *k2 = yml_scalar(
				yaml_document_get_node(&d->doc, q->key));

			if (k2 && !strcmp(k, k2))
				return yml_err(d, kn, "duplicate key '%s'", k);
		}
		for (i = 0; i < nkeys; i++)
			if (!strcmp(keys[i].name, k))
				break;
		if (i == nkeys)
			return yml_err(d, kn, "unknown key '%s'", k);
		seen[i] = 1;
		if (convert(d, vn, &keys[i]))
			return -1;
	}
	for (i = 0; i < nkeys; i++)
		if (keys[i].required && !seen[i])
			return yml_err(d, map, "missing key '%s'",
				       keys[i].name);
	return 0;
}

int
yml_check_format(struct yml_doc *d, yaml_node_t *root, const char *kind,
		 int max_version)
{
	yaml_node_t *f;
	const char *s;
	char want[64];
	size_t n;
	char *end;
	long v;

	if (root->type != YAML_MAPPING_NODE)
		return yml_err(d, root, "expected a mapping, found %s",
			       kind_name(root));
	f = yml_get(d, root, "format");
	if (!f)
		return yml_err(d, root, "missing key 'format'");
	s = yml_scalar(f);
	n = (size_t)snprintf(want, sizeof(want), "pd2bw-%s/", kind);
	/* "format: p" and nothing after is a file cut short, not a
	 * file of another kind */
	if (s && d->cut && f->end_mark.index >= d->len && !strchr(s, '/'))
		return yml_err(d, f,
			       "the file ends in the format name '%s' "
			       "(truncated?)",
			       s);
	if (!s || strncmp(s, want, n) != 0)
		return yml_err(d, f, "not a pd2bw %s file (format '%s')", kind,
			       s ? s : "");
	errno = 0;
	v = strtol(s + n, &end, 10);
	if (*end || end == s + n || v < 1)
		return yml_err(d, f, "bad format version '%s'", s);
	if (v > max_version)
		return yml_err(d, f,
			       "format version %ld is newer than this program "
			       "reads (%d)",
			       v, max_version);
	return (int)v;
}

/* ---- writing ---- */

static int
write_handler(void *data, unsigned char *buf, size_t size)
{
	struct yml_out *o = data;

	errno = 0;
	if (fwrite(buf, 1, size, o->f.fp) == size)
		return 1;
	o->werr = errno ? errno : EIO;
	return 0;
}

static void
emit(struct yml_out *o, yaml_event_t *ev)
{
	if (o->failed) {
		yaml_event_delete(ev);
		return;
	}
	if (!yaml_emitter_emit(&o->em, ev)) {
		o->failed = 1;
		pd2bw_error("cannot write '%s': %s", o->f.path,
			    o->werr ? strerror(o->werr)
			    : o->em.problem ? o->em.problem : "emitter error");
	}
}

int
yml_out_open(struct yml_out *o, const char *path)
{
	yaml_event_t ev;

	memset(o, 0, sizeof(*o));
	if (afile_open(&o->f, path))
		return -1;
	if (!yaml_emitter_initialize(&o->em)) {
		afile_abort(&o->f);
		return pd2bw_error("out of memory");
	}
	yaml_emitter_set_output(&o->em, write_handler, o);
	yaml_emitter_set_width(&o->em, -1);
	yaml_emitter_set_unicode(&o->em, 1);
	yaml_emitter_set_indent(&o->em, 2);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	emit(o, &ev);
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	emit(o, &ev);
	return 0;
}

int
yml_out_close(struct yml_out *o)
{
	yaml_event_t ev;

	yaml_document_end_event_initialize(&ev, 1);
	emit(o, &ev);
	yaml_stream_end_event_initialize(&ev);
	emit(o, &ev);
	if (!o->failed && !yaml_emitter_flush(&o->em)) {
		o->failed = 1;
		pd2bw_error("cannot write '%s': %s", o->f.path,
			    strerror(o->werr ? o->werr : EIO));
	}
	yaml_emitter_delete(&o->em);
	if (o->failed) {
		afile_abort(&o->f);
		return -1;
	}
	return afile_commit(&o->f);
}

void
yml_out_abort(struct yml_out *o)
{
	yaml_emitter_delete(&o->em);
	afile_abort(&o->f);
}

void
yml_out_map(struct yml_out *o, int flow)
{
	yaml_event_t ev;

	yaml_mapping_start_event_initialize(
		&ev, NULL, NULL, 1,
		flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
	emit(o, &ev);
}

void
yml_out_seq(struct yml_out *o, int flow)
{
	yaml_event_t ev;

	yaml_sequence_start_event_initialize(
		&ev, NULL, NULL, 1,
		flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
	emit(o, &ev);
}

void
yml_out_end_map(struct yml_out *o)
{
	yaml_event_t ev;

	yaml_mapping_end_event_initialize(&ev);
	emit(o, &ev);
}

void
yml_out_end_seq(struct yml_out *o)
{
	yaml_event_t ev;

	yaml_sequence_end_event_initialize(&ev);
	emit(o, &ev);
}

/*
 * A scalar libyaml would not take (not UTF-8, or no memory): its event is
 * left unset, so emitting it would send garbage.  Fail the file instead.
 */
static void
bad_scalar(struct yml_out *o)
{
	if (!o->failed)
		pd2bw_error("cannot write '%s': a value is not UTF-8 text",
			    o->f.path);
	o->failed = 1;
}

static void
scalar(struct yml_out *o, const char *s, int plain)
{
	yaml_event_t ev;

	if (!yaml_scalar_event_initialize(&ev, NULL, NULL,
					  (yaml_char_t *)(uintptr_t)s, -1,
					  plain, !plain,
					  plain ? YAML_PLAIN_SCALAR_STYLE
						: YAML_ANY_SCALAR_STYLE)) {
		bad_scalar(o);
		return;
	}
	emit(o, &ev);
}

/*
 * Strings that would read back as numbers or booleans are quoted, so a model
 * named "175" stays a string; everything else is left to libyaml.
 */
void
yml_out_str(struct yml_out *o, const char *s)
{
	char *end;
	yaml_event_t ev;
	int looks_typed;

	strtod(s, &end);
	looks_typed = (*s && !*end) || !strcmp(s, "true") ||
		      !strcmp(s, "false") || !strcmp(s, "null") || !*s ||
		      !strcmp(s, "~");
	if (!yaml_scalar_event_initialize(
		    &ev, NULL, NULL, (yaml_char_t *)(uintptr_t)s, -1,
		    !looks_typed, 1,
		    looks_typed ? YAML_DOUBLE_QUOTED_SCALAR_STYLE
				: YAML_ANY_SCALAR_STYLE)) {
		bad_scalar(o);
		return;
	}
	emit(o, &ev);
}

void
yml_out_int(struct yml_out *o, long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	scalar(o, buf, 1);
}

void
yml_out_dbl(struct yml_out *o, double v)
{
	char buf[40];

	if (isnan(v))
		snprintf(buf, sizeof(buf), ".nan");
	else if (isinf(v))
		snprintf(buf, sizeof(buf), v > 0 ? ".inf" : "-.inf");
	else
		snprintf(buf, sizeof(buf), "%.9g", v == 0 ? 0.0 : v);
	scalar(o, buf, 1);
}

void
yml_out_bool(struct yml_out *o, int v)
{
	scalar(o, v ? "true" : "false", 1);
}

void
yml_out_kstr(struct yml_out *o, const char *k, const char *v)
{
	scalar(o, k, 1);
	yml_out_str(o, v);
}

void
yml_out_kint(struct yml_out *o, const char *k, long long v)
{
	scalar(o, k, 1);
	yml_out_int(o, v);
}

void
yml_out_kdbl(struct yml_out *o, const char *k, double v)
{
	scalar(o, k, 1);
	yml_out_dbl(o, v);
}

void
yml_out_kbool(struct yml_out *o, const char *k, int v)
{
	scalar(o, k, 1);
	yml_out_bool(o, v);
}
