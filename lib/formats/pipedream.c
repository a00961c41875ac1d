/*
 * pipedream.c - import PipeDream's per-layer profiles (graph.txt, written by
 * its profiler's graph.py) as a pd2bw profile: one prof_layer per graph
 * node, in a stable topological order, with the activation bytes that cross
 * each cut of that order as the boundary size.
 *
 * The format, one item per line:
 *
 *   nodeN -- Description -- forward_compute_time=F, backward_compute_time=B,
 *            activation_size=A, parameter_size=P
 *   <TAB>nodeA -- nodeB
 *
 * (the node line is one line in the file).  Times are milliseconds for the
 * whole profiled minibatch, sizes are bytes.  activation_size is a list
 * "[x; y; z]" (possibly nested) for nodes with several output tensors; we
 * sum it.  The description is whatever lies between the first and the last
 * " -- ", so descriptions containing " -- " still read; graphs written by
 * PipeDream's optimizer append " -- stage_id=S", which we accept and ignore.
 *
 * What the importer assumes, since graph.txt does not record it:
 *
 * - Microbatch size 1: PipeDream profiles at one batch size that the file
 *   does not name, so the single point of every layer is "per profiled
 *   minibatch" and the planner must not scale it.
 * - Device V100-16GB: PipeDream's published profiles were taken on V100s.
 * - fp32 training: PipeDream trained in fp32, so parameters are
 *   parameter_size / 4 and the bytes per parameter of training state are
 *   4 (weights) + 4 (gradients) + 8 (Adam m and v; no master copy is needed
 *   since the weights are fp32 already) + 4 (2BW's second fp32 weight
 *   version).  VGG and ResNet used SGD with momentum (4 bytes, not 8), so
 *   for them this overestimates by 4 bytes per parameter: conservative.
 * - Input nodes: a source node whose description starts with "Input" is
 *   the data loader; its forward time is the host's loading time (636 ms in
 *   alexnet's profile), not GPU work, so its times are set to 0 as
 *   PipeDream's own optimizer does (optimizer_graph_hierarchical.py).  That
 *   optimizer also zeroes the input's size; we keep it, since the batch is
 *   memory the first stage holds and crosses any cut before its consumers.
 *
 * Per layer (chain position k, node v):
 *
 * - fwd_ms, bwd_ms: the node's times; recomp_ms[full] = fwd_ms.
 * - stash_bytes[none] = stash_bytes[selective] = activation_size of v, what
 *   PipeDream's runtime keeps for the backward pass (CNN and LSTM layers
 *   have no attention to recompute selectively).
 * - stash_bytes[full]: what must be kept to rerun layer k from scratch,
 *   i.e. every tensor crossing the cut just before k (out_bytes of layer
 *   k-1); for a chain that is the layer's input.  For k = 0 (a source) it
 *   is the node's own output, the sample itself.  The format requires
 *   stashes not to grow with recomputation, so it is capped at the
 *   layer's own activation_size.  At the granularity of single ops this
 *   saves little (each op's input is its predecessor's output); the real
 *   saving of recomputing a whole stage from its input is the planner's to
 *   model from out_bytes.
 * - out_bytes: for k < n-1 the cut between positions k and k+1: the sum of
 *   activation_size over nodes at positions <= k with an edge to a node at
 *   a position > k, which is what PipeDream's optimizer charges for a stage
 *   boundary in a branching graph (ResNet skips, GNMT's residuals and
 *   attention inputs).  For the last layer, its own activation_size.
 *
 * NEEDSWORK: views are counted as new memory, as PipeDream's own memory
 * model counts them: "__getitem__" nodes pick a tensor out of their
 * producer's list and "ReLU(inplace)" overwrites its input, yet each
 * stashes its activation_size again.  Stashes are overestimated (about 2x
 * for conv+ReLU chains); recognising views by description would fix it.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/error.h"
#include "pd2bw/hash.h"
#include "pd2bw/infile.h"
#include "pd2bw/pipedream.h"

/* Ranges beyond which a figure is rejected as absurd. */
#define PD_MAX_MS 1e7      /* almost three hours for one layer */
#define PD_MAX_BYTES 1e15  /* a petabyte; below 2^53, so exact */
#define PD_MAX_DEPTH 16    /* nesting of activation_size lists */
#define PD_NAME_MAX 80     /* bytes of description kept in a layer name */

#define PD_SEP " -- "
#define PD_SEPLEN 4

enum pd_attr {
	PD_FWD,
	PD_BWD,
	PD_ACT,
	PD_PARAM,
	PD_NATTR
};

static const char *const pd_attr_names[PD_NATTR] = {
	"forward_compute_time",
	"backward_compute_time",
	"activation_size",
	"parameter_size",
};

struct pd_node {
	size_t id_off, id_len; /* the id, in the input buffer */
	char *desc;            /* description, whitespace collapsed (owned) */
	double v[PD_NATTR];
	int line;
};

struct pd_edge {
	size_t off[2], len[2]; /* the two ids, in the input buffer */
	int col[2];
	int line;
	int from, to;          /* node indices once resolved */
};

struct pd_graph {
	const char *name;
	const char *buf;
	struct pd_node *nodes;
	size_t nnodes, anodes;
	struct pd_edge *edges;
	size_t nedges, aedges;
	int *hash;             /* open addressing, node index + 1; 0 empty */
	size_t hsize;
};

/* The line being parsed, NUL-terminated, for strtod and messages. */
struct pd_line {
	char *s;
	size_t off;            /* offset of s[0] in the input buffer */
	int no;
};

static int
pd_err(const struct pd_graph *g, int line, int col, const char *fmt, ...)
	PD2BW_PRINTF(4, 5);

static int
pd_err(const struct pd_graph *g, int line, int col, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return pd2bw_error("%s:%d:%d: %s", g->name, line, col, msg);
}

static int
is_blank(int c)
{
	return c == ' ' || c == '\t';
}

/*
 * Check that the text of a line is printable UTF-8 (tabs allowed), so that
 * a layer name always survives the YAML writer.  Returns 0 or -1.
 */
static int
check_text(const struct pd_graph *g, const struct pd_line *l)
{
	const unsigned char *s = (const unsigned char *)l->s, *p;
	size_t n;

	for (p = s; *p; p += n) {
		if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			return pd_err(g, l->no, (int)(p - s) + 1,
				      "control character 0x%02x", *p);
		n = infile_utf8_len(p);
		if (!n)
			return pd_err(g, l->no, (int)(p - s) + 1,
				      "invalid UTF-8");
		/* Only the U+0080..U+009F controls; YAML rejects them too. */
		if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)
			return pd_err(g, l->no, (int)(p - s) + 1,
				      "control character U+%04X",
				      (unsigned)p[1]);
	}
	return 0;
}

/*
 * Check a node id s[0..len) at column col: non-empty, no blanks (it sits
 * between separators, so " -- " cannot appear in it).
 */
static int
check_id(const struct pd_graph *g, const struct pd_line *l, const char *s,
	 size_t len)
{
	size_t i;
	int col = (int)(s - l->s) + 1;

	if (!len)
		return pd_err(g, l->no, col, "missing node name");
	for (i = 0; i < len; i++)
		if (is_blank((unsigned char)s[i]))
			return pd_err(g, l->no, col, "invalid node name '%.*s'",
				      (int)len, s);
	return 0;
}

/*
 * One number at *pp: finite, >= 0, <= max.  Advances *pp past it.
 * Returns 0 or -1.
 */
static int
parse_num(const struct pd_graph *g, const struct pd_line *l, char **pp,
	  const char *what, double max, double *out)
{
	char *p = *pp, *end;
	double v;

	while (is_blank((unsigned char)*p))
		p++;
	errno = 0;
	v = strtod(p, &end);
	if (end == p)
		return pd_err(g, l->no, (int)(p - l->s) + 1,
			      "expected a number for '%s'", what);
	if (!isfinite(v))
		return pd_err(g, l->no, (int)(p - l->s) + 1,
			      "%s is not a finite number", what);
	if (v < 0)
		return pd_err(g, l->no, (int)(p - l->s) + 1,
			      "%s is negative", what);
	if (v > max)
		return pd_err(g, l->no, (int)(p - l->s) + 1,
			      "%s out of range (at most %g)", what, max);
	*out = v;
	*pp = end;
	return 0;
}

/*
 * A list "[x; y; [z; w]]" at *pp (which points at '['): the sum of its
 * numbers.  Nesting is limited so hostile input cannot exhaust the stack.
 */
static int
parse_list(const struct pd_graph *g, const struct pd_line *l, char **pp,
	   const char *what, int depth, double *sum)
{
	char *p = *pp + 1;
	double v;

	if (depth > PD_MAX_DEPTH)
		return pd_err(g, l->no, (int)(*pp - l->s) + 1,
			      "%s: lists nested too deeply", what);
	*sum = 0;
	while (is_blank((unsigned char)*p))
		p++;
	if (*p == ']') {
		*pp = p + 1;
		return 0;
	}
	for (;;) {
		while (is_blank((unsigned char)*p))
			p++;
		if (*p == '[') {
			if (parse_list(g, l, &p, what, depth + 1, &v))
				return -1;
		} else if (parse_num(g, l, &p, what, PD_MAX_BYTES, &v)) {
			return -1;
		}
		*sum += v;
		if (*sum > PD_MAX_BYTES)
			return pd_err(g, l->no, (int)(*pp - l->s) + 1,
				      "%s out of range (at most %g)", what,
				      PD_MAX_BYTES);
		while (is_blank((unsigned char)*p))
			p++;
		if (*p == ']')
			break;
		if (*p != ';')
			return pd_err(g, l->no, (int)(p - l->s) + 1,
				      "expected ';' or ']' in %s", what);
		p++;
	}
	*pp = p + 1;
	return 0;
}

/*
 * The attributes "key=value, key=value, ..." at m (NUL-terminated, inside
 * l->s) into n->v.  Every attribute must be there exactly once.
 */
static int
parse_attrs(const struct pd_graph *g, const struct pd_line *l, char *m,
	    struct pd_node *n)
{
	int seen[PD_NATTR] = {0};
	char *p = m, *k;
	size_t klen;
	int a;

	for (;;) {
		while (is_blank((unsigned char)*p))
			p++;
		k = p;
		while (*p && *p != '=' && *p != ',' && !is_blank(*p))
			p++;
		klen = (size_t)(p - k);
		if (*p != '=' || !klen)
			return pd_err(g, l->no, (int)(k - l->s) + 1,
				      "expected 'name=value'");
		for (a = 0; a < PD_NATTR; a++)
			if (strlen(pd_attr_names[a]) == klen &&
			    !memcmp(pd_attr_names[a], k, klen))
				break;
		if (a == PD_NATTR)
			return pd_err(g, l->no, (int)(k - l->s) + 1,
				      "unknown attribute '%.*s'", (int)klen,
				      k);
		if (seen[a])
			return pd_err(g, l->no, (int)(k - l->s) + 1,
				      "duplicate attribute '%s'",
				      pd_attr_names[a]);
		seen[a] = 1;
		p++;
		while (is_blank((unsigned char)*p))
			p++;
		if (*p == '[') {
			if (a != PD_ACT)
				return pd_err(g, l->no, (int)(p - l->s) + 1,
					      "expected a number for '%s'",
					      pd_attr_names[a]);
			if (parse_list(g, l, &p, pd_attr_names[a], 0,
				       &n->v[a]))
				return -1;
		} else if (parse_num(g, l, &p, pd_attr_names[a],
				     a == PD_FWD || a == PD_BWD ? PD_MAX_MS
								: PD_MAX_BYTES,
				     &n->v[a])) {
			return -1;
		}
		while (is_blank((unsigned char)*p))
			p++;
		if (!*p)
			break;
		if (*p != ',')
			return pd_err(g, l->no, (int)(p - l->s) + 1,
				      "expected ',' after '%s'",
				      pd_attr_names[a]);
		p++;
	}
	for (a = 0; a < PD_NATTR; a++)
		if (!seen[a])
			return pd_err(g, l->no, (int)(m - l->s) + 1,
				      "missing '%s'", pd_attr_names[a]);
	return 0;
}

/* "stage_id=S" as PipeDream's optimizer appends it: a non-negative integer. */
static int
is_stage_field(const char *s)
{
	const char *p;

	if (strncmp(s, "stage_id=", 9) != 0 || !s[9])
		return 0;
	for (p = s + 9; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

/* Description s[0..len) with runs of blanks collapsed (owned copy). */
static char *
collapse(const char *s, size_t len)
{
	char *d = xmalloc(len + 1), *q = d;
	size_t i;

	for (i = 0; i < len; i++) {
		if (is_blank((unsigned char)s[i])) {
			if (q > d && q[-1] != ' ')
				*q++ = ' ';
		} else {
			*q++ = s[i];
		}
	}
	while (q > d && q[-1] == ' ')
		q--;
	*q = '\0';
	return d;
}

static int
parse_node(struct pd_graph *g, struct pd_line *l, char *s, char *const *sep,
	   size_t nsep)
{
	struct pd_node *n;
	char *meta, *desc_end;

	/* The metadata follows the last separator, or the one before a
	 * trailing stage_id field. */
	meta = sep[nsep - 1] + PD_SEPLEN;
	desc_end = sep[nsep - 1];
	if (nsep >= 3 && is_stage_field(meta)) {
		*sep[nsep - 1] = '\0';
		meta = sep[nsep - 2] + PD_SEPLEN;
		desc_end = sep[nsep - 2];
	}
	if (check_id(g, l, s, (size_t)(sep[0] - s)))
		return -1;
	xgrow((void **)&g->nodes, &g->anodes, g->nnodes + 1,
	      sizeof(*g->nodes));
	n = &g->nodes[g->nnodes];
	memset(n, 0, sizeof(*n));
	n->id_off = l->off + (size_t)(s - l->s);
	n->id_len = (size_t)(sep[0] - s);
	n->line = l->no;
	if (parse_attrs(g, l, meta, n))
		return -1;
	n->desc = collapse(sep[0] + PD_SEPLEN,
			   (size_t)(desc_end - (sep[0] + PD_SEPLEN)));
	g->nnodes++;
	return 0;
}

static int
parse_edge(struct pd_graph *g, struct pd_line *l, char *s, char *sep)
{
	struct pd_edge *e;
	char *b = sep + PD_SEPLEN;

	if (check_id(g, l, s, (size_t)(sep - s)))
		return -1;
	while (is_blank((unsigned char)*b))
		b++;
	if (check_id(g, l, b, strlen(b)))
		return -1;
	xgrow((void **)&g->edges, &g->aedges, g->nedges + 1,
	      sizeof(*g->edges));
	e = &g->edges[g->nedges++];
	e->off[0] = l->off + (size_t)(s - l->s);
	e->len[0] = (size_t)(sep - s);
	e->col[0] = (int)(s - l->s) + 1;
	e->off[1] = l->off + (size_t)(b - l->s);
	e->len[1] = strlen(b);
	e->col[1] = (int)(b - l->s) + 1;
	e->line = l->no;
	e->from = e->to = -1;
	return 0;
}

/*
 * One line (l->s, NUL-terminated, trailing blanks removed): a node, an
 * edge, or blank.
 */
static int
parse_line(struct pd_graph *g, struct pd_line *l, char ***sepv, size_t *asep)
{
	char *s = l->s, *p;
	size_t nsep = 0;

	while (is_blank((unsigned char)*s))
		s++;
	if (!*s)
		return 0;
	if (check_text(g, l))
		return -1;
	/* Separators, left to right, never overlapping. */
	for (p = strstr(s, PD_SEP); p; p = strstr(p + PD_SEPLEN, PD_SEP)) {
		xgrow((void **)sepv, asep, nsep + 1, sizeof(**sepv));
		(*sepv)[nsep++] = p;
	}
	if (nsep == 0)
		return pd_err(g, l->no, (int)(s - l->s) + 1,
			      "expected 'nodeA -- nodeB' or 'nodeN -- "
			      "description -- attributes'");
	if (nsep == 1)
		return parse_edge(g, l, s, (*sepv)[0]);
	return parse_node(g, l, s, *sepv, nsep);
}

/* Split buf into lines and parse each.  Returns 0 or -1. */
static int
parse(struct pd_graph *g, const char *buf, size_t len)
{
	struct pd_line l = {NULL, 0, 0};
	char **sepv = NULL;
	size_t asep = 0, lalloc = 0, pos = 0, end, n;
	int ret = 0;

	/* A UTF-8 byte order mark is not part of the first line. */
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		pos = 3;
	while (pos < len && !ret) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		const char *nul;

		end = nl ? (size_t)(nl - buf) : len;
		n = end - pos;
		l.no++;
		nul = memchr(buf + pos, '\0', n);
		if (nul) {
			ret = pd_err(g, l.no, (int)(nul - (buf + pos)) + 1,
				     "NUL byte");
			break;
		}
		xgrow((void **)&l.s, &lalloc, n + 1, 1);
		memcpy(l.s, buf + pos, n);
		while (n && (is_blank((unsigned char)l.s[n - 1]) ||
			     l.s[n - 1] == '\r'))
			n--;
		l.s[n] = '\0';
		l.off = pos;
		ret = parse_line(g, &l, &sepv, &asep);
		pos = end + 1;
	}
	free(l.s);
	free(sepv);
	return ret;
}

/* Index of the node named s[0..len), or -1. */
static int
lookup(const struct pd_graph *g, const char *s, size_t len)
{
	size_t i = (size_t)pd2bw_hash_bytes(s, len) & (g->hsize - 1);

	for (; g->hash[i]; i = (i + 1) & (g->hsize - 1)) {
		const struct pd_node *n = &g->nodes[g->hash[i] - 1];

		if (n->id_len == len && !memcmp(g->buf + n->id_off, s, len))
			return g->hash[i] - 1;
	}
	return -1;
}

/* Index every node by id; a second node of the same id is an error. */
static int
build_index(struct pd_graph *g)
{
	size_t i, j;

	for (g->hsize = 16; g->hsize < 2 * g->nnodes; g->hsize *= 2)
		;
	g->hash = xcalloc(g->hsize, sizeof(*g->hash));
	for (i = 0; i < g->nnodes; i++) {
		const struct pd_node *n = &g->nodes[i];
		int prev = lookup(g, g->buf + n->id_off, n->id_len);

		if (prev >= 0)
			return pd_err(g, n->line, 1,
				      "duplicate node '%.*s' (first at line "
				      "%d)",
				      (int)n->id_len, g->buf + n->id_off,
				      g->nodes[prev].line);
		j = (size_t)pd2bw_hash_bytes(g->buf + n->id_off, n->id_len) &
		    (g->hsize - 1);
		while (g->hash[j])
			j = (j + 1) & (g->hsize - 1);
		g->hash[j] = (int)i + 1;
	}
	return 0;
}

static int
resolve_edges(struct pd_graph *g)
{
	size_t i;
	int k;

	for (i = 0; i < g->nedges; i++) {
		struct pd_edge *e = &g->edges[i];

		for (k = 0; k < 2; k++) {
			int v = lookup(g, g->buf + e->off[k], e->len[k]);

			if (v < 0)
				return pd_err(g, e->line, e->col[k],
					      "unknown node '%.*s'",
					      (int)e->len[k],
					      g->buf + e->off[k]);
			if (k == 0)
				e->from = v;
			else
				e->to = v;
		}
	}
	return 0;
}

/* Binary min-heap of node indices (= original positions). */
static void
heap_push(int *h, size_t *n, int v)
{
	size_t i = (*n)++;

	while (i > 0 && h[(i - 1) / 2] > v) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static int
heap_pop(int *h, size_t *n)
{
	int top = h[0], last = h[--*n];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < *n) {
		if (c + 1 < *n && h[c + 1] < h[c])
			c++;
		if (h[c] >= last)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = last;
	return top;
}

/*
 * Order the nodes topologically (Kahn's algorithm, always taking the ready
 * node that came first in the file, so the order is stable and a file
 * already in order keeps it) into order[]; pos[v] is v's position.  A cycle
 * is reported at the definition of a node on it.
 */
static int
toposort(const struct pd_graph *g, int *order, int *pos)
{
	size_t n = g->nnodes, i, nheap = 0, done = 0;
	size_t *sstart = xcalloc(n + 1, sizeof(*sstart));
	size_t *pstart = xcalloc(n + 1, sizeof(*pstart));
	int *succ = xmalloc((g->nedges + 1) * sizeof(*succ));
	int *pred = xmalloc((g->nedges + 1) * sizeof(*pred));
	size_t *fill = xcalloc(n + 1, sizeof(*fill));
	size_t *indeg = xcalloc(n + 1, sizeof(*indeg));
	int *heap = xmalloc((n + 1) * sizeof(*heap));
	int ret = 0;

	/* Successor and predecessor lists in compressed rows. */
	for (i = 0; i < g->nedges; i++) {
		sstart[g->edges[i].from + 1]++;
		pstart[g->edges[i].to + 1]++;
		indeg[g->edges[i].to]++;
	}
	for (i = 0; i < n; i++) {
		sstart[i + 1] += sstart[i];
		pstart[i + 1] += pstart[i];
	}
	for (i = 0; i < g->nedges; i++) {
		int a = g->edges[i].from;

		succ[sstart[a] + fill[a]++] = g->edges[i].to;
	}
	memset(fill, 0, (n + 1) * sizeof(*fill));
	for (i = 0; i < g->nedges; i++) {
		int b = g->edges[i].to;

		pred[pstart[b] + fill[b]++] = g->edges[i].from;
	}

	for (i = 0; i < n; i++) {
		pos[i] = -1;
		if (!indeg[i])
			heap_push(heap, &nheap, (int)i);
	}
	while (nheap) {
		int v = heap_pop(heap, &nheap);
		size_t j;

		pos[v] = (int)done;
		order[done++] = v;
		for (j = sstart[v]; j < sstart[v + 1]; j++)
			if (--indeg[succ[j]] == 0)
				heap_push(heap, &nheap, succ[j]);
	}
	if (done < n) {
		/* Every node left has a predecessor that is left too; walking
		 * back n steps from any of them ends on a cycle. */
		int v = -1;

		for (i = 0; i < n && v < 0; i++)
			if (pos[i] < 0)
				v = (int)i;
		for (i = 0; i < n; i++) {
			size_t j;

			for (j = pstart[v]; j < pstart[v + 1]; j++)
				if (pos[pred[j]] < 0)
					break;
			v = pred[j];
		}
		ret = pd_err(g, g->nodes[v].line, 1,
			     "the graph has a cycle through '%.*s'",
			     (int)g->nodes[v].id_len,
			     g->buf + g->nodes[v].id_off);
	}
	free(sstart);
	free(pstart);
	free(succ);
	free(pred);
	free(fill);
	free(indeg);
	free(heap);
	return ret;
}

static int64_t
to_bytes(double v)
{
	return (int64_t)llround(v);
}

/* "nodeN Description", the description cut at PD_NAME_MAX bytes on a
 * character boundary. */
static char *
layer_name(const struct pd_graph *g, const struct pd_node *n)
{
	size_t dlen = strlen(n->desc), cut = 0, k;
	char *s;

	while (cut < dlen) {
		k = infile_utf8_len((const unsigned char *)n->desc + cut);
		if (!k || cut + k > PD_NAME_MAX)
			break;
		cut += k;
	}
	s = xmalloc(n->id_len + 1 + cut + 4 + 1);
	memcpy(s, g->buf + n->id_off, n->id_len);
	s[n->id_len] = '\0';
	if (cut) {
		strcat(s, " ");
		strncat(s, n->desc, cut);
		if (cut < dlen)
			strcat(s, "...");
	}
	return s;
}

/* Name of the model: the file's directory for ".../gnmt/graph.txt", else
 * the file name without its extension. */
static char *
model_name(const char *name)
{
	const char *base = strrchr(name, '/'), *dot;
	char *s;

	base = base ? base + 1 : name;
	if (!strcmp(base, "graph.txt") && base > name + 1) {
		const char *e = base - 1, *b = e;

		while (b > name && b[-1] != '/')
			b--;
		if (e > b && !(e - b == 1 && b[0] == '.') &&
		    !(e - b == 2 && b[0] == '.' && b[1] == '.')) {
			s = xmalloc((size_t)(e - b) + 1);
			memcpy(s, b, (size_t)(e - b));
			s[e - b] = '\0';
			return s;
		}
	}
	dot = strrchr(base, '.');
	if (dot == base || !*base || !strcmp(base, "-"))
		return xstrdup("pipedream");
	if (!dot)
		return xstrdup(base);
	s = xmalloc((size_t)(dot - base) + 1);
	memcpy(s, base, (size_t)(dot - base));
	s[dot - base] = '\0';
	return s;
}

static void
set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = xstrdup(s);
}

/* Fill p from the sorted graph. */
static int
convert(const struct pd_graph *g, const int *order, const int *pos,
	struct profile *p)
{
	size_t n = g->nnodes, i, k;
	int64_t *delta = xcalloc(n + 1, sizeof(*delta));
	int *last = xmalloc(n * sizeof(*last));
	char *haspred = xcalloc(n, 1);
	int64_t run = 0, total = 0;

	/* The bytes of node v cross every cut from pos[v] up to the
	 * position before its last consumer: add them on that range with a
	 * difference array. */
	for (i = 0; i < n; i++)
		last[i] = -1;
	for (i = 0; i < g->nedges; i++) {
		int a = g->edges[i].from, b = g->edges[i].to;

		if (pos[b] > last[a])
			last[a] = pos[b];
		haspred[b] = 1;
	}
	for (i = 0; i < n; i++) {
		int64_t a = to_bytes(g->nodes[i].v[PD_ACT]);

		total += a;
		if (total > INT64_MAX / 4) {
			free(delta);
			free(last);
			free(haspred);
			return pd_err(g, g->nodes[i].line, 1,
				      "activation sizes too large in total");
		}
		if (last[i] > pos[i]) {
			delta[pos[i]] += a;
			delta[last[i]] -= a;
		}
	}

	profile_alloc(p, 1, (int)n);
	p->mb[0] = 1;
	set_str(&p->backend, "pipedream");
	set_str(&p->device, "V100-16GB");
	p->device_mem_bytes = (int64_t)16 << 30;
	set_str(&p->precision, "fp32");
	set_str(&p->versions, "PipeDream graph.txt; times per profiled "
			      "minibatch (size not recorded)");
	free(p->model);
	p->model = model_name(g->name);
	p->tp = 1;
	p->seq_len = 0;
	p->hidden = 0;
	p->weight_bytes = 4;
	p->grad_bytes = 4;
	p->optimizer_bytes = 8;
	p->version_bytes = 4;

	for (k = 0; k < n; k++) {
		const struct pd_node *v = &g->nodes[order[k]];
		struct prof_layer *L = &p->layers[k];
		struct prof_point *pt = &L->pt[0];
		int64_t act = to_bytes(v->v[PD_ACT]);
		int64_t prev_cut = k && run < act ? run : act;
		/* Only the data loader's sources get their times cleared. */
		int loader = !strncmp(v->desc, "Input", 5) &&
			     !haspred[order[k]];

		run += delta[k];
		L->name = layer_name(g, v);
		L->kind = PROF_OTHER;
		L->repeat = 1;
		L->params = to_bytes(v->v[PD_PARAM] / 4);
		pt->fwd_ms = loader ? 0 : v->v[PD_FWD];
		pt->bwd_ms = loader ? 0 : v->v[PD_BWD];
		pt->recomp_ms[PROF_RC_NONE] = 0;
		pt->recomp_ms[PROF_RC_SELECTIVE] = 0;
		pt->recomp_ms[PROF_RC_FULL] = pt->fwd_ms;
		pt->out_bytes = k + 1 < n ? run : act;
		pt->stash_bytes[PROF_RC_NONE] = act;
		pt->stash_bytes[PROF_RC_SELECTIVE] = act;
		pt->stash_bytes[PROF_RC_FULL] = prev_cut;
		pt->work_bytes = 0;
		pt->fwd_flops = 0;
	}
	free(delta);
	free(last);
	free(haspred);
	return 0;
}

int
pipedream_sniff(const char *buf, size_t len)
{
	size_t i = 0, end;
	const char *nl;

	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		i = 3;
	/* Skip blank lines. */
	for (;;) {
		size_t j = i;

		while (j < len && (is_blank((unsigned char)buf[j]) ||
				   buf[j] == '\r'))
			j++;
		if (j < len && buf[j] == '\n') {
			i = j + 1;
			continue;
		}
		i = j;
		break;
	}
	if (len - i < 4 || memcmp(buf + i, "node", 4) != 0)
		return 0;
	nl = memchr(buf + i, '\n', len - i);
	end = nl ? (size_t)(nl - buf) : len;
	for (; i + PD_SEPLEN <= end; i++)
		if (!memcmp(buf + i, PD_SEP, PD_SEPLEN))
			return 1;
	return 0;
}

int
pipedream_load_string(struct profile *p, const char *name, const char *buf,
		      size_t len)
{
	struct pd_graph g;
	int *order = NULL, *pos = NULL;
	size_t i;
	int ret = -1;

	memset(&g, 0, sizeof(g));
	g.name = name;
	g.buf = buf;
	if (parse(&g, buf, len))
		goto out;
	if (!g.nnodes) {
		pd_err(&g, 1, 1, "no nodes");
		goto out;
	}
	if (g.nnodes > PROFILE_MAX_LAYERS) {
		pd_err(&g, g.nodes[PROFILE_MAX_LAYERS].line, 1,
		       "more than %d nodes (layers; the limit of pd2bw-plan's "
		       "search)",
		       PROFILE_MAX_LAYERS);
		goto out;
	}
	if (build_index(&g) || resolve_edges(&g))
		goto out;
	order = xmalloc(g.nnodes * sizeof(*order));
	pos = xmalloc(g.nnodes * sizeof(*pos));
	if (toposort(&g, order, pos))
		goto out;
	ret = convert(&g, order, pos, p);
out:
	for (i = 0; i < g.nnodes; i++)
		free(g.nodes[i].desc);
	free(g.nodes);
	free(g.edges);
	free(g.hash);
	free(order);
	free(pos);
	return ret;
}
