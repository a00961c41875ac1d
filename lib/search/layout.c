/*
 * layout.c - Megatron-Core's pipeline layouts (--pipeline-model-parallel-
 * layout): a string of layers per virtual stage read into the chain
 * entries each physical stage holds.
 *
 * The grammar, as NVIDIA/Megatron-LM megatron/core/transformer/
 * pipeline_parallel_layer_layout.py reads it (parse_str_to_list,
 * lines 283-321 at d98e8a6): commas are cosmetic; "(...)*n" repeats a
 * group (no nesting), then "x*n" a character; "|" ends a virtual stage;
 * E is the embedding, t a decoder layer, m a multi-token-prediction
 * layer, L the loss (the output layer).  Its checks (validate_layer_
 * layout, lines 75-140): E exactly once and first, L exactly once and
 * last, as many t as the model has layers, the m after every t and on
 * one rank's last virtual stage.  The virtual stages count a multiple
 * of the pipeline depth d; virtual stage k runs on rank k mod d (lines
 * 35-47).
 *
 * pd2bw's chain holds the multi-token-prediction module with the output
 * layer (analytic.c), so an m must share the L's stage.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/error.h"
#include "pd2bw/search.h"

/* Longest expansion accepted (a layout of every layer a profile
 * holds, with room for its separators). */
#define LAYOUT_MAX (4L * PROFILE_MAX_LAYERS + 4096)

static int
fail(char *why, size_t n, const char *fmt, ...) PD2BW_PRINTF(3, 4);

static int
fail(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (n)
		vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return -1;
}

/* The count after a '*' at s[*i]: digits, at most LAYOUT_MAX. */
static long
count_at(const char *s, size_t *i)
{
	long v = 0;

	if (s[*i] < '0' || s[*i] > '9')
		return -1;
	while (s[*i] >= '0' && s[*i] <= '9') {
		v = v * 10 + (s[*i] - '0');
		if (v > LAYOUT_MAX)
			return -1;
		(*i)++;
	}
	return v;
}

/* Append n copies of the len bytes at p to out (cap LAYOUT_MAX). */
static int
repeat(char **out, size_t *len, size_t *cap, const char *p, size_t plen,
       long n)
{
	long k;

	if (plen && (size_t)n > (LAYOUT_MAX - *len) / plen)
		return -1;
	for (k = 0; k < n; k++) {
		if (*len + plen + 1 > *cap) {
			*cap = (*len + plen + 1) * 2;
			*out = xrealloc(*out, *cap);
		}
		memcpy(*out + *len, p, plen);
		*len += plen;
	}
	(*out)[*len] = 0;
	return 0;
}

/*
 * One pass of Megatron's unrolling: groups when groups is set, else
 * single characters.  Returns the new string (owned) or NULL with why.
 */
static char *
unroll(const char *s, int groups, char *why, size_t n)
{
	size_t i = 0, len = 0, cap = strlen(s) + 1;
	char *out = xmalloc(cap);

	out[0] = 0;
	while (s[i]) {
		size_t start = i, plen = 1;
		long k = 1;

		if (groups && s[i] == '(') {
			const char *close = strchr(s + i, ')');
			const char *open = strchr(s + i + 1, '(');

			if (!close || (open && open < close)) {
				fail(why, n, "'(' at %zu without its ')' (no "
				     "nesting)", i + 1);
				goto bad;
			}
			start = i + 1;
			plen = (size_t)(close - s) - start;
			i = (size_t)(close - s) + 1;
			if (s[i] != '*' || !plen) {
				fail(why, n, "group at %zu is not (...)*N",
				     start);
				goto bad;
			}
			i++;
			k = count_at(s, &i);
		} else if (!groups && s[i + 1] == '*') {
			i += 2;
			k = count_at(s, &i);
		} else {
			i++;
		}
		if (k < 0) {
			fail(why, n, "a repeat count at %zu is missing or over "
			     "%ld", i + 1, LAYOUT_MAX);
			goto bad;
		}
		if (repeat(&out, &len, &cap, s + start, plen, k)) {
			fail(why, n, "expands to more than %ld layers",
			     LAYOUT_MAX);
			goto bad;
		}
	}
	return out;
bad:
	free(out);
	return NULL;
}

/* The layout unrolled to E, t, m, L and | alone (owned), or NULL. */
static char *
expand(const char *spec, char *why, size_t n)
{
	char *a, *b, *p;
	size_t i;

	/* commas are cosmetic; anything else must be the grammar's */
	a = xmalloc(strlen(spec) + 1);
	for (i = 0, p = a; spec[i]; i++) {
		if (spec[i] == ',')
			continue;
		if (!strchr("ELtm|()*0123456789", spec[i])) {
			free(a);
			fail(why, n, "'%c' at %zu is none of E, t, m, L, |, "
			     "(...)*N, x*N", spec[i], i + 1);
			return NULL;
		}
		*p++ = spec[i];
	}
	*p = 0;
	b = unroll(a, 1, why, n);
	free(a);
	if (!b)
		return NULL;
	a = unroll(b, 0, why, n);
	free(b);
	if (a && strspn(a, "ELtm|") != strlen(a)) {
		fail(why, n, "'%c' is left after unrolling (a count needs "
		     "a '*' before it)", a[strspn(a, "ELtm|")]);
		free(a);
		return NULL;
	}
	return a;
}

int
search_layout_chunks(const char *spec, int nchunks, int *blocks)
{
	char *a = expand(spec, NULL, 0);
	int k = 0;
	size_t i;

	if (!a)
		return -1;
	memset(blocks, 0, (size_t)nchunks * sizeof(*blocks));
	for (i = 0; a[i] && k < nchunks; i++) {
		if (a[i] == '|')
			k++;
		else if (a[i] == 't')
			blocks[k]++;
	}
	free(a);
	return k == nchunks - 1 ? 0 : -1;
}

int
search_layout(const char *spec, const struct chain *c, int d, int mtp,
	      int *v, int *counts, char *why, size_t n)
{
	char *a;
	int blocks = 0, lo = 0, hi = 0, j, s, k, nch = 1, nt = 0, nm = 0;
	int ne = 0, nl = 0, m_chunk = -1, l_chunk = -1, ok = -1;
	size_t i;

	if (d < 1)
		return fail(why, n, "needs --depth (the pipeline's ranks)");
	for (j = 0; j < c->L; j++)
		blocks += c->kind[j] == PROF_BLOCK;
	for (j = 0; j < c->L && c->kind[j] != PROF_BLOCK; j++)
		lo++;
	for (j = c->L - 1; blocks && j >= 0 && c->kind[j] != PROF_BLOCK; j--)
		hi++;
	if (!blocks)
		return fail(why, n, "the input has no transformer blocks");
	if (!(a = expand(spec, why, n)))
		return -1;
	memset(counts, 0, (size_t)d * sizeof(*counts));
	for (i = 0, k = 0; a[i]; i++)
		nch += a[i] == '|';
	if (nch % d) {
		fail(why, n, "%d virtual stages are no multiple of the depth %d",
		     nch, d);
		goto out;
	}
	for (i = 0, k = 0; a[i]; i++) {
		switch (a[i]) {
		case '|':
			k++;
			continue;
		case 'E':
			if (ne++ || i) {
				fail(why, n, "E must come once, first");
				goto out;
			}
			counts[k % d] += lo;
			break;
		case 'L':
			if (nl++ || a[i + 1]) {
				fail(why, n, "L must come once, last");
				goto out;
			}
			counts[k % d] += hi;
			l_chunk = k;
			break;
		case 'm':
			nm++;
			m_chunk = k;
			break;
		default: /* 't' */
			if (nm) {
				fail(why, n, "a t after an m: the decoder "
				     "layers come before the MTP ones");
				goto out;
			}
			nt++;
			counts[k % d]++;
		}
	}
	if (!ne || !nl) {
		fail(why, n, "needs one E (first) and one L (last)");
		goto out;
	}
	if (nt != blocks) {
		fail(why, n, "has %d decoder layers (t), the model %d", nt,
		     blocks);
		goto out;
	}
	if (mtp >= 0 && nm != mtp) {
		fail(why, n, "has %d MTP layers (m), the model %d", nm, mtp);
		goto out;
	}
	if (nm && m_chunk != l_chunk) {
		fail(why, n, "pd2bw prices the MTP layers with the output "
		     "layer: put every m in L's virtual stage");
		goto out;
	}
	for (s = 0; s < d; s++)
		if (!counts[s]) {
			fail(why, n, "rank %d holds no layer", s);
			goto out;
		}
	*v = nch / d;
	ok = 0;
out:
	free(a);
	return ok;
}
