/*
 * order.c - the best-first order of the candidates (cand_cmp()): sorting
 * and selecting them, the memo's lists of every candidate in that order
 * (search_cand_list_of()), and the pick of the next batch of smallest lower
 * bounds (search_pick_next()).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search_int.h"

/* cand_cmp()'s order of two candidates past their lower bounds: the
 * schedule, depth, width, microbatch, chain, interleaving, ZeRO stage,
 * shard group, offload, recomputation. */
static inline int
cand_cmp_fields(const struct cand *a, const struct cand *b)
{
	if (a->sched != b->sched)
		return a->sched - b->sched;
	if (a->d != b->d)
		return a->d - b->d;
	if (a->w != b->w)
		return a->w - b->w;
	if (a->k != b->k)
		return a->k - b->k;
	if (a->ti != b->ti)
		return a->ti - b->ti;
	if (a->v != b->v)
		return a->v - b->v;
	if (a->zero != b->zero)
		return a->zero - b->zero;
	if (a->shard != b->shard)
		return a->shard - b->shard;
	if (a->offload != b->offload)
		return a->offload - b->offload;
	return a->r - b->r;
}

static int
cand_cmp(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->lb != b->lb)
		return a->lb < b->lb ? -1 : 1;
	return cand_cmp_fields(a, b);
}

/* cand_cmp(a, b) > 0, the lower bounds alone deciding most of the
 * time without a call. */
static inline int
cand_after(const struct cand *a, const struct cand *b)
{
	if (a->lb != b->lb)
		return a->lb > b->lb;
	return cand_cmp(a, b) > 0;
}

static inline void
cand_swap(struct cand *a, struct cand *b)
{
	struct cand t = *a;

	*a = *b;
	*b = t;
}

/*
 * Partition h[lo..hi] (hi - lo >= 2) around the median of its first,
 * middle and last: on return h[lo..*j] are no larger than it, h[*i..hi]
 * no smaller, *j < *i, and anything between is the pivot itself.
 */
static void
cand_part(struct cand *h, long lo, long hi, long *i, long *j)
{
	long mid = lo + (hi - lo) / 2, a = lo, b = hi;
	struct cand p;

	if (cand_after(&h[lo], &h[mid]))
		cand_swap(&h[lo], &h[mid]);
	if (cand_after(&h[mid], &h[hi]))
		cand_swap(&h[mid], &h[hi]);
	if (cand_after(&h[lo], &h[mid]))
		cand_swap(&h[lo], &h[mid]);
	p = h[mid];
	while (a <= b) {
		while (cand_after(&p, &h[a]))
			a++;
		while (cand_after(&h[b], &p))
			b--;
		if (a <= b)
			cand_swap(&h[a++], &h[b--]);
	}
	*i = a;
	*j = b;
}

/* Sort h[0..n) in cand_cmp order (a total order: the one sort there
 * is, whatever the algorithm). */
static void
cand_sort(struct cand *h, long n)
{
	long i, j;

	while (n > 16) {
		cand_part(h, 0, n - 1, &i, &j);
		/* the smaller side first, the larger in the loop */
		if (j + 1 < n - i) {
			cand_sort(h, j + 1);
			h += i;
			n -= i;
		} else {
			cand_sort(h + i, n - i);
			n = j + 1;
		}
	}
	for (i = 1; i < n; i++) {
		struct cand t = h[i];

		for (j = i; j > 0 && cand_after(&h[j - 1], &t); j--)
			h[j] = h[j - 1];
		h[j] = t;
	}
}

/*
 * cand_sort() of a long list h[0..n), the same order (cand_cmp's, a
 * total order): the lower bounds' bits sorted as integers (the order of
 * the doubles, zeros alike), by radix, a digit of 11 bits a pass over
 * keys of 16 bytes rather than the candidates of 40 (the passes
 * whose digit every key shares skipped), then each run of bounds alike
 * in those bits by cand_sort() (a short one of one bound by its other
 * fields alone).  The radix takes the top RADIX_TOP bits
 * alone (sign, exponent and 21 bits of the fraction, three passes where
 * the whole word took six): bounds that share them differ by a few
 * parts in ten million at most, rare but for equal bounds, and their
 * runs are short.  Returns -1, h untouched, when a bound is NaN (which
 * cand_cmp does not order as the bits).
 */
#define RADIX_BITS 11
#define RADIX_TOP 33
#define RADIX_PASSES ((64 + RADIX_BITS - 1) / RADIX_BITS)
#define RADIX_FIRST (RADIX_PASSES - (RADIX_TOP + RADIX_BITS - 1) / RADIX_BITS)
#define RADIX_LOW (64 - RADIX_TOP)

struct radix_key {
	uint64_t k;
	long i;
};

/* cand_sort() of a few candidates h[0..n) of one lower bound. */
static void
cand_sort_ties(struct cand *h, long n)
{
	long i, j;

	for (i = 1; i < n; i++) {
		struct cand t = h[i];

		for (j = i; j > 0 && cand_cmp_fields(&h[j - 1], &t) > 0; j--)
			h[j] = h[j - 1];
		h[j] = t;
	}
}

static int
cand_sort_radix(struct cand *h, long n)
{
	struct radix_key *a, *b, *t;
	struct cand *out;
	long (*cnt)[1 << RADIX_BITS], i, j;
	int p;

	for (i = 0; i < n; i++)
		if (isnan(h[i].lb))
			return -1;
	a = xmalloc((size_t)n * sizeof(*a));
	b = xmalloc((size_t)n * sizeof(*b));
	cnt = xcalloc(RADIX_PASSES, sizeof(*cnt));
	for (i = 0; i < n; i++) {
		double lb = h[i].lb == 0 ? 0.0 : h[i].lb;
		uint64_t u;

		memcpy(&u, &lb, sizeof(u));
		a[i].k = u >> 63 ? ~u : u | (uint64_t)1 << 63;
		a[i].i = i;
		for (p = RADIX_FIRST; p < RADIX_PASSES; p++)
			cnt[p][(a[i].k >> (p * RADIX_BITS)) &
			       ((1 << RADIX_BITS) - 1)]++;
	}
	for (p = RADIX_FIRST; p < RADIX_PASSES; p++) {
		unsigned sh = (unsigned)p * RADIX_BITS;
		long sum = 0;

		if (cnt[p][(a[0].k >> sh) & ((1 << RADIX_BITS) - 1)] == n)
			continue;
		for (j = 0; j < 1 << RADIX_BITS; j++) {
			long c = cnt[p][j];

			cnt[p][j] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			b[cnt[p][(a[i].k >> sh) & ((1 << RADIX_BITS) - 1)]++] =
				a[i];
		t = a;
		a = b;
		b = t;
	}
	out = xmalloc((size_t)n * sizeof(*out));
	for (i = 0; i < n; i++)
		out[i] = h[a[i].i];
	for (i = 0; i < n; i = j) {
		int tie = 1; /* one bound all through */

		for (j = i + 1;
		     j < n && a[j].k >> RADIX_LOW == a[i].k >> RADIX_LOW; j++)
			tie &= a[j].k == a[i].k;
		if (j - i > 16 || (j - i > 1 && !tie))
			cand_sort(out + i, j - i);
		else if (j - i > 1)
			cand_sort_ties(out + i, j - i);
	}
	memcpy(h, out, (size_t)n * sizeof(*h));
	free(out);
	free(cnt);
	free(b);
	free(a);
	return 0;
}

/* cand_sort(), by radix (cand_sort_radix()) when the list is long and
 * plain is not set. */
void
search_cand_sort_long(struct cand *h, long n, int plain)
{
	if (plain || n < 4096 || cand_sort_radix(h, n))
		cand_sort(h, n);
}

/* Quickselect: h[k] (k < n) where the sort of h[0..n) puts it, the
 * smaller ones before it, the larger after. */
static void
cand_select(struct cand *h, long n, long k)
{
	long lo = 0, hi = n - 1, i, j;

	while (hi - lo >= 2) {
		cand_part(h, lo, hi, &i, &j);
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
	if (hi - lo == 1 && cand_after(&h[lo], &h[hi]))
		cand_swap(&h[lo], &h[hi]);
}

/* Every candidate a visit is handed, appended to l->c (room for cap). */
struct list_visit {
	struct visit vt;
	struct cand_list *l;
	long cap;
};

static void
list_visit_fn(struct visit *vt, const struct cand *cd)
{
	struct list_visit *lv = (struct list_visit *)vt;
	struct cand_list *l = lv->l;

	if (l->n == lv->cap) {
		lv->cap = lv->cap ? 2 * lv->cap : 1024;
		l->c = xrealloc(l->c, (size_t)lv->cap * sizeof(*l->c));
	}
	l->c[l->n++] = *cd;
}

/* Build l, of the given kind, for the memo's span: one enumeration
 * that no group turns away, sorted. */
static void
cand_list_build(struct cand_list *l, enum cand_kind kind,
		const struct search_chain *sc, int nsc,
		const struct cluster *cl, const struct cost_opts *o,
		const struct search_opts *so)
{
	int g, span = so->memo->span;
	struct list_visit lv;
	long i, dummy;

	memset(&lv, 0, sizeof(lv));
	/* room for as many as the longest list built (the kinds list
	 * about as many), not doubled a copy at a time */
	for (g = 0; g < KIND_N; g++)
		if (so->memo->lists[g].n > lv.cap)
			lv.cap = so->memo->lists[g].n;
	if (lv.cap)
		l->c = xrealloc(l->c, (size_t)lv.cap * sizeof(*l->c));
	lv.vt.fn = list_visit_fn;
	lv.vt.lp_only = kind == KIND_LP;
	lv.vt.sim = kind == KIND_SIM1 ? 1 : kind == KIND_SIM2 ? 2 : 0;
	lv.vt.scr = l->nscr = xcalloc((size_t)span + 1, sizeof(long));
	lv.vt.skip = l->nskip = xcalloc((size_t)span + 1, sizeof(long));
	lv.l = l;
	search_enumerate(sc, nsc, cl, o, so, span, &lv.vt, &dummy, NULL);
	search_cand_sort_long(l->c, l->n, so->plain);
	l->gpus = xmalloc(((size_t)l->n + 1) * sizeof(*l->gpus));
	l->ncand = xcalloc((size_t)span + 1, sizeof(long));
	for (i = 0; i < l->n; i++) {
		l->gpus[i] = cand_gpus(sc, &l->c[i]);
		l->ncand[l->gpus[i]]++;
	}
	/* the blocks a scan skips (none: plain) */
	l->bmin = so->plain ? NULL
			    : xmalloc(((size_t)l->n / LIST_BLOCK + 1) *
				      sizeof(*l->bmin));
	l->bhi = so->plain ? NULL
			   : xmalloc(((size_t)l->n / LIST_BLOCK + 1) *
				     sizeof(*l->bhi));
	for (i = 0; !so->plain && i + LIST_BLOCK <= l->n; i += LIST_BLOCK) {
		long b = i / LIST_BLOCK, j;

		l->bmin[b] = INT_MAX;
		l->bhi[b] = -INFINITY;
		for (j = i; j < i + LIST_BLOCK; j++) {
			if (l->gpus[j] < l->bmin[b])
				l->bmin[b] = l->gpus[j];
			if (isnan(l->c[j].lb) || l->c[j].lb > l->bhi[b])
				l->bhi[b] = isnan(l->c[j].lb) ? INFINITY
							      : l->c[j].lb;
		}
	}
	for (g = 1; g <= span; g++) {
		l->ncand[g] += l->ncand[g - 1];
		l->nscr[g] += l->nscr[g - 1];
		l->nskip[g] += l->nskip[g - 1];
	}
	l->gpn = cl->gpus_per_node;
}

/*
 * The memo's list of kind for a search on N GPUs of cluster cl (built
 * the first time, and again for a cluster of other nodes), or NULL
 * without a memo with a span of N or more.  The searches sharing the
 * memo share their options (search_memo_span()).
 */
const struct cand_list *
search_cand_list_of(const struct search_chain *sc, int nsc,
		    const struct cluster *cl, const struct cost_opts *o,
		    const struct search_opts *so, int N, enum cand_kind kind)
{
	struct cand_list *l;

	if (!so->memo || N > so->memo->span)
		return NULL;
	l = &so->memo->lists[kind];
	if (l->gpn != cl->gpus_per_node) {
		search_cand_list_release(l);
		cand_list_build(l, kind, sc, nsc, cl, o, so);
	}
	return l;
}

/*
 * Quickselect of bounds: a[k] (k < n) where a sort of a[0..n) puts it
 * (none NaN), the smaller ones before it.  The partitions are Lomuto's
 * without a branch (the bounds' order is random: a branch on each would
 * be mispredicted half the time); a second one takes the pivot's equals
 * off, so that each round takes one away at least.
 */
static double
lb_select(double *a, long n, long k)
{
	long lo = 0, hi = n; /* a[k] in a[lo..hi) */

	while (hi - lo > 1) {
		double x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi - 1], p;
		long i, st = lo;

		/* the median of the three */
		p = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
		for (i = lo; i < hi; i++) {
			double v = a[i];

			a[i] = a[st];
			a[st] = v;
			st += v < p;
		}
		if (k < st) {
			hi = st;
			continue;
		}
		for (i = st; i < hi; i++) {
			double v = a[i];

			a[i] = a[st];
			a[st] = v;
			st += v <= p;
		}
		if (k < st)
			return p;
		lo = st;
	}
	return a[k];
}

#define TRIM_SAMPLE 512 /* pick_trim()'s sample of the bounds */
#define TRIM_MARGIN 40  /* ranks each side of k's in it (3.5 sigma) */

/*
 * The k-th smallest (from 0) of bounds lb[0..n) (none NaN), and in *le
 * how many are at most it; buf room for n.  Quickselect's every
 * comparison is a coin's toss, and mispredicted half the time; instead
 * the bounds of a sample spread over them bracket the k-th (by their
 * ranks around k's), one pass without branches counts those under the
 * bracket and copies those in it, about a tenth, and only they are
 * selected.  Should the sample miss (the bracket's rank past k's either
 * way), all of them are.
 */
static double
trim_bound(const double *lb, long n, long k, double *buf, long *le)
{
	double s[TRIM_SAMPLE], lo = -INFINITY, hi = INFINITY, t;
	long i, nb = 0, under = 0;

	if (n >= 4 * TRIM_SAMPLE) {
		long r = (long)((double)k * TRIM_SAMPLE / n);
		long rlo = r - TRIM_MARGIN, rhi = r + TRIM_MARGIN;

		for (i = 0; i < TRIM_SAMPLE; i++)
			s[i] = lb[(2 * i + 1) * n / (2 * TRIM_SAMPLE)];
		/* lb_select() leaves the smaller ones before the k-th */
		if (rhi < TRIM_SAMPLE)
			hi = lb_select(s, TRIM_SAMPLE, rhi);
		else
			rhi = TRIM_SAMPLE;
		if (rlo >= 0)
			lo = lb_select(s, rhi, rlo);
		for (i = 0; i < n; i++) {
			double v = lb[i];

			under += v < lo;
			buf[nb] = v;
			nb += (v >= lo) & (v <= hi); /* & not &&: no branch */
		}
	}
	if (!(k >= under && k < under + nb)) {
		memcpy(buf, lb, (size_t)n * sizeof(*buf));
		under = 0;
		nb = n;
	}
	t = lb_select(buf, nb, k - under);
	for (i = 0, *le = under; i < nb; i++)
		*le += buf[i] <= t;
	return t;
}

/* Room in pk's arrays of bounds, places and list places for n. */
static void
pick_room(struct pick *pk, long n)
{
	if (pk->room >= n)
		return;
	pk->lbs = xrealloc(pk->lbs, (size_t)n * sizeof(*pk->lbs));
	pk->keys = xrealloc(pk->keys, (size_t)n * sizeof(*pk->keys));
	pk->moves = xrealloc(pk->moves, (size_t)n * sizeof(*pk->moves));
	pk->at = xrealloc(pk->at, (size_t)n * sizeof(*pk->at));
	pk->room = n;
}

/*
 * cand_select() of h = pk->h + from, n of them (k < n), their bounds in
 * pk->lbs + from: by the bounds alone, the k-th smallest t
 * (trim_bound()), the candidates being five times the size and few of
 * them moving.  Those above t among the first at most t are holes, and
 * those at most t after them fill them, as many: their places listed
 * without a branch (each would be a coin's toss), then those few swapped,
 * or copied where the ones past h[k] are not kept (keep 0: what is left
 * there is not read), their bounds alike.  Then those under t first, and
 * cand_select() among those at t alone (whose bounds are all t).
 */
static void
cand_select_lb(struct pick *pk, long from, long n, long k, int keep)
{
	struct cand *h = pk->h + from;
	double *lb = pk->lbs + from, t;
	long i, lt, le, j, nh = 0, nm = 0;
	long *hole, *mover;

	t = trim_bound(lb, n, k, pk->keys, &le);
	hole = pk->moves;
	mover = pk->moves + le;
	for (i = 0; i < le; i++) {
		hole[nh] = i;
		nh += lb[i] > t;
	}
	for (i = le; i < n; i++) {
		mover[nm] = i;
		nm += lb[i] <= t;
	}
	for (i = 0; i < nh; i++) {
		double x = lb[hole[i]];

		lb[hole[i]] = lb[mover[i]];
		if (keep) {
			lb[mover[i]] = x;
			cand_swap(&h[hole[i]], &h[mover[i]]);
		} else {
			h[hole[i]] = h[mover[i]];
		}
	}
	/* under t first (at most k of them), then those at t */
	for (lt = 0, j = le; lt < j;) {
		if (lb[lt] < t) {
			lt++;
		} else if (!(lb[j - 1] < t)) {
			j--;
		} else {
			lb[lt] = lb[--j];
			lb[j] = t;
			cand_swap(&h[lt++], &h[j]);
		}
	}
	cand_select(h + lt, le - lt, k - lt);
}

/*
 * Keep the cap smallest of pk->h in pk->h[0..cap) and the largest of
 * them in pk->top.  Which order the kept ones are in does not matter:
 * search_pick_at() puts them in cand_cmp's, a total order.
 */
static void
pick_trim(struct pick *pk)
{
	cand_select_lb(pk, 0, pk->n, pk->cap - 1, 0);
	pk->n = pk->cap;
	pk->top = pk->h[pk->cap - 1];
	pk->full = 1;
}

/*
 * The candidate at i < pk->n in order: the batch is sorted as far as it
 * is read (a search most often reads a few hundred of it), each time
 * twice as far as before at least.
 */
const struct cand *
search_pick_at(struct pick *pk, long i)
{
	long want = 2 * pk->sorted, from = pk->sorted;

	if (i < pk->sorted)
		return &pk->h[i];
	if (want < i + 1)
		want = i + 1;
	if (want < 64)
		want = 64;
	if (want > pk->n)
		want = pk->n;
	if (want < pk->n)
		cand_select_lb(pk, from, pk->n - from, want - from - 1, 1);
	cand_sort(pk->h + from, want - from);
	pk->sorted = want;
	return &pk->h[i];
}

/* Keep cd when it is among the cap smallest after pk->after so far. */
static void
pick_offer(struct visit *vt, const struct cand *cd)
{
	struct pick *pk = (struct pick *)vt;

	if (pk->after && !cand_after(cd, pk->after))
		return;
	if (pk->full && !cand_after(&pk->top, cd))
		return;
	if (!(cd->lb < pk->cut))
		return;
	pk->lbs[pk->n] = cd->lb;
	pk->h[pk->n++] = *cd;
	if (pk->n == 2 * pk->cap)
		pick_trim(pk);
}

/* Whether any of a group's n candidates, of lower bounds in [lo, hi],
 * may be among those pick_offer() keeps: not when all come before
 * pk->after or after pk->top (cand_cmp orders by the bound first). */
static int
pick_group(struct visit *vt, double lo, double hi, long n)
{
	struct pick *pk = (struct pick *)vt;

	if (pk->after && hi < pk->after->lb)
		return 0;
	if ((pk->full && lo > pk->top.lb) || !(lo < pk->cut)) {
		pk->grouped += n;
		return 0;
	}
	return 1;
}

/* What pick_group() says of a group none of whose bounds is under lo,
 * when that is enough to say it turns the group away (no pk->after,
 * whose test reads the largest bound). */
static int
pick_away(struct visit *vt, double lo, long n)
{
	struct pick *pk = (struct pick *)vt;

	if (pk->after || !((pk->full && lo > pk->top.lb) || lo >= pk->cut))
		return 0;
	pk->grouped += n;
	return 1;
}

/*
 * search_pick_next() from the memo's list l: the first cap of N GPUs or fewer
 * after pk->after and under pk->cut, in order.
 */
static long
pick_listed(struct pick *pk, const struct cand_list *l, int N,
	    long *screened, struct search_stats *stats)
{
	long i = 0, lo, hi;

	if (pk->after) {
		/* the first after it */
		for (lo = 0, hi = l->n; lo < hi;) {
			long mid = lo + (hi - lo) / 2;

			if (cand_after(&l->c[mid], pk->after))
				hi = mid;
			else
				lo = mid + 1;
		}
		i = lo;
	}
	for (; i < l->n && pk->n < pk->cap; i++) {
		/* (a block of candidates on more GPUs, at once) */
		while (list_skips(l, i, N, pk->cut))
			i += LIST_BLOCK;
		if (i == l->n || !(l->c[i].lb < pk->cut))
			break;
		if (l->gpus[i] <= N) {
			pk->at[pk->n] = i;
			pk->h[pk->n++] = l->c[i];
		}
	}
	pk->sorted = pk->n;
	*screened = l->nscr[N];
	if (stats)
		stats->skipped_rt += l->nskip[N];
	return l->ncand[N];
}

/*
 * The next cap candidates in cand_cmp order after `after` (NULL: from
 * the first), into pk->h[0..pk->n), put in order as search_pick_at() reads
 * them; returns how many candidates there are in all.
 */
long
search_pick_next(struct pick *pk, const struct cand *after,
		 const struct search_chain *sc, int nsc,
		 const struct cluster *cl, const struct cost_opts *o,
		 const struct search_opts *so, int N, long *screened,
		 struct search_stats *stats)
{
	const struct cand_list *l =
	    search_cand_list_of(sc, nsc, cl, o, so, N, KIND_PICK);
	long n;

	pk->vt.fn = pick_offer;
	pk->vt.group = so->no_group ? NULL : pick_group;
	pk->vt.away = so->no_group || so->plain ? NULL : pick_away;
	pk->grouped = 0;
	pk->n = 0;
	pk->after = after;
	pk->full = 0;
	pk->sorted = 0;
	pick_room(pk, 2 * pk->cap);
	pk->from = NULL;
	/* the reason a runtime skipped them when that is all there is */
	if (l && l->ncand[N] + l->nscr[N] > 0) {
		n = pick_listed(pk, l, N, screened, stats);
		/* (the memo's own, which search_cand_list_of() hands out
		 * read-only), whose verdicts plain does not take */
		if (!so->plain)
			pk->from = &so->memo->lists[KIND_PICK];
		return n;
	}
	n = search_enumerate(sc, nsc, cl, o, so, N, &pk->vt, screened, stats);
	if (pk->n > pk->cap)
		pick_trim(pk);
	return n;
}
