/*
 * memo.c - what searches keep of what they worked out: the memo the
 * searches of a sweep share (search_memo_new() to search_memo_free()),
 * and the tables a search or the memo holds, open-addressed on a
 * candidate's key (search_slot_find()): part_fits()'s verdicts
 * (search_cand_fits()), the times and partitions solved on each set of links
 * (search_time_find(), search_time_links()), the links of each grid
 * (search_links_for()), and which of a list's candidates the best-first
 * loop found no time for under a bound (search_none_known()).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search_int.h"

void
search_link_cache_release(struct link_cache *k)
{
	size_t j;

	for (j = 0; j < k->nent; j++)
		free(k->ent[j].v);
	free(k->ent);
	free(k->slot);
	memset(k, 0, sizeof(*k));
}

void
search_rc_phis_release(struct rc_phis *t)
{
	int i, k;

	for (i = 0; t->rcp && i < t->nsc; i++) {
		for (k = 0; t->rcp[i] && k < t->nmb[i]; k++)
			free(t->rcp[i][k].phi);
		free(t->rcp[i]);
	}
	free(t->rcp);
	free(t->nmb);
	memset(t, 0, sizeof(*t));
}

/* Keep the links of d stages of l in e (v and cst). */
static void
lentry_keep(struct lentry *e, const struct place_links *l, int d)
{
	size_t i, nv = 0;
	int j;

	e->cst = 0;
	for (i = 0; i < PLACE_LINK_ARRAYS; i++) {
		const double *a = l->all + i * l->dcap;

		for (j = 1; j < d && !memcmp(&a[j], &a[0], sizeof(*a)); j++)
			;
		if (j >= d)
			e->cst |= 1u << i;
		nv += j >= d ? 1 : (size_t)d;
	}
	e->v = xmalloc(nv * sizeof(double));
	for (i = 0, nv = 0; i < PLACE_LINK_ARRAYS; i++) {
		size_t k = e->cst >> i & 1 ? 1 : (size_t)d;

		memcpy(e->v + nv, l->all + i * l->dcap, k * sizeof(double));
		nv += k;
	}
}

/* The links of d stages that e keeps into l. */
static void
lentry_load(const struct lentry *e, struct place_links *l, int d)
{
	size_t i, nv = 0;
	int j;

	for (i = 0; i < PLACE_LINK_ARRAYS; i++) {
		double *a = l->all + i * l->dcap;

		if (e->cst >> i & 1) {
			for (j = 0; j < d; j++)
				a[j] = e->v[nv];
			nv++;
		} else {
			memcpy(a, e->v + nv, (size_t)d * sizeof(double));
			nv += d;
		}
	}
}

/* Fill x->links for the grid, from the cache when it is there; returns
 * the grid's entry in the cache (NULL: not kept there), which holds
 * until the next call. */
struct lentry *
search_links_for(struct ctx *x, int rule, int w, int d, int t, int c, int ep,
		 int etp)
{
	struct link_cache *k = x->lk;
	int seg = place_segment(x->cl, w * d * t * (c > 1 ? c : 1));
	unsigned h = ((unsigned)w * 2654435761u ^ (unsigned)d * 40503u ^
		      (unsigned)t * 97u ^ (unsigned)c * 7919u ^
		      (unsigned)ep * 104729u ^ (unsigned)etp * 31u ^
		      (unsigned)seg * 65599u) *
			     2 +
		     (unsigned)rule;
	struct lentry *e = NULL;
	int probe, *sl = NULL;

	if (!k->slot)
		k->slot = xcalloc(LCACHE_SIZE, sizeof(*k->slot));
	for (probe = 0; probe < 8; probe++) {
		sl = &k->slot[(h + probe) % LCACHE_SIZE];
		if (!*sl)
			break;
		e = &k->ent[*sl - 1];
		if (e->w == w && e->d == d && e->t == t && e->c == c &&
		    e->e == ep && e->etp == etp && e->rule == rule &&
		    e->seg == seg) {
			if (x->lk_held != *sl)
				lentry_load(e, &x->links, d);
			x->lk_held = *sl;
			return e;
		}
		sl = NULL;
	}
	place_links_fill_par(&x->links, x->cl, rule, w, d, t, c, ep, etp);
	x->lk_held = 0;
	if (!sl)
		return NULL; /* neighbourhood full: compute without caching */
	xgrow((void **)&k->ent, &k->ent_alloc, k->nent + 1, sizeof(*k->ent));
	e = &k->ent[k->nent++];
	*sl = (int)k->nent;
	x->lk_held = *sl;
	e->w = w;
	e->d = d;
	e->t = t;
	e->c = c;
	e->e = ep;
	e->etp = etp;
	e->rule = rule;
	e->seg = seg;
	e->same_prev = -1;
	lentry_keep(e, &x->links, d);
	return e;
}

struct search_memo *
search_memo_new(void)
{
	return xcalloc(1, sizeof(struct search_memo));
}

/* Table t of u as empty as a new memo's, with the room m's t has (u's t
 * untouched). */
#define TABLE_ROOM(u, m, t)                                              \
	do {                                                             \
		(u)->t.cap = (m)->t.cap;                                 \
		(u)->t.e = (m)->t.cap ? xcalloc((m)->t.cap,              \
						sizeof(*(u)->t.e))       \
				      : NULL;                            \
	} while (0)

/* Fit table u with room for as many classes as m has (and their index),
 * not grown a doubling at a time again. */
static void
fit_class_room(struct fit_table *u, const struct fit_table *m)
{
	u->acls = m->acls;
	u->cls = m->acls ? xmalloc(m->acls * sizeof(*u->cls)) : NULL;
	u->ccap = m->ccap;
	u->cslot = m->ccap ? xcalloc(m->ccap, sizeof(*u->cslot)) : NULL;
}

struct search_memo *
search_memo_renew(struct search_memo *m)
{
	struct search_memo *u = search_memo_new();
	int i;

	if (!m)
		return u;
	for (i = 0; i < SEARCH_MAX_THREADS; i++) {
		TABLE_ROOM(u, m, t[i]);
		TABLE_ROOM(u, m, nt[i]);
		fit_class_room(&u->t[i], &m->t[i]);
		fit_class_room(&u->nt[i], &m->nt[i]);
		TABLE_ROOM(u, m, s[i]);
		TABLE_ROOM(u, m, ns[i]);
	}
	TABLE_ROOM(u, m, mins);
	TABLE_ROOM(u, m, mem_lbs);
	TABLE_ROOM(u, m, sims);
	TABLE_ROOM(u, m, floors);
	TABLE_ROOM(u, m, busy);
	TABLE_ROOM(u, m, lbfits);
	TABLE_ROOM(u, m, refined);
	TABLE_ROOM(u, m, gates);
	if (m->lbs) {
		u->lbs = xcalloc(1, sizeof(*u->lbs));
		TABLE_ROOM(u, m, lbs[0]);
	}
	search_memo_free(m);
	return u;
}

void
search_cand_list_release(struct cand_list *l)
{
	free(l->c);
	free(l->gpus);
	free(l->bmin);
	free(l->bhi);
	free(l->ncand);
	free(l->nscr);
	free(l->nskip);
	free(l->gates);
	free(l->refs);
	free(l->none);
	free(l->nseg);
	memset(l, 0, sizeof(*l));
}

void
search_memo_span(struct search_memo *m, int max_gpus)
{
	int i;

	for (i = 0; i < KIND_N; i++)
		search_cand_list_release(&m->lists[i]);
	m->span = max_gpus > 0 ? max_gpus : 0;
}

static void
time_table_release(struct time_table *t)
{
	size_t j;

	for (j = 0; j < t->cap; j++) {
		free(t->e[j].first);
		free(t->e[j].st);
	}
	free(t->e);
	for (j = 0; j < t->pool.cap; j++)
		free(t->pool.slot[j]);
	free(t->pool.slot);
}

void
search_memo_free(struct search_memo *m)
{
	int i;

	if (!m)
		return;
	search_memo_span(m, 0);
	for (i = 0; i < SEARCH_MAX_THREADS; i++) {
		search_link_cache_release(&m->links[i]);
		free(m->t[i].e);
		free(m->t[i].cls);
		free(m->t[i].cslot);
		free(m->nt[i].e);
		free(m->nt[i].cls);
		free(m->nt[i].cslot);
		time_table_release(&m->s[i]);
		time_table_release(&m->ns[i]);
	}
	time_table_release(&m->mins);
	time_table_release(&m->mem_lbs);
	time_table_release(&m->sims);
	time_table_release(&m->floors);
	time_table_release(&m->busy);
	free(m->lbfits.e);
	free(m->refined.e);
	if (m->lbs)
		free(m->lbs->e);
	free(m->lbs);
	search_rc_phis_release(&m->phis);
	lp_memo_free(m->lp);
	free(m->gates.e);
	for (i = 0; i < m->nmaxl; i++)
		free(m->maxl[i].maxl);
	free(m->maxl);
	free(m->tu_id);
	free(m->tu_twin);
	free(m->tu_up);
	free(m);
}

/*
 * The fields same_key() compares, packed four to a word and mixed by one
 * multiplication each, then the high half folded into the low bits the
 * tables index by: about 40 instructions where a multiplication a field
 * (FNV-1a over the twelve) took about 100, on the lookups of every
 * solve and gate (capacity's sweep: 1.2 million).
 */
static size_t
key_hash(const struct cand *c)
{
	uint64_t a = (uint64_t)(uint32_t)c->w << 32 | (uint32_t)c->d;
	uint64_t b = (uint64_t)(uint32_t)c->m << 32 | (uint32_t)c->v;
	uint64_t s = (uint64_t)(uint32_t)c->shard << 32 |
		     (uint64_t)(uint16_t)c->ti << 16 | (uint16_t)c->k;
	uint64_t f = (uint64_t)(uint8_t)c->sched |
		     (uint64_t)(uint8_t)c->r << 8 |
		     (uint64_t)(uint8_t)c->zero << 16 |
		     (uint64_t)(uint8_t)c->offload << 24 |
		     (uint64_t)(uint8_t)c->lp << 32;
	uint64_t h = a * 0x9e3779b97f4a7c15u ^ b * 0xc2b2ae3d27d4eb4fu ^
		     s * 0x165667b19e3779f9u ^ f * 0xd6e8feb86659fd93u;

	h ^= h >> 32;
	h *= 0x9e3779b97f4a7c15u;
	return (size_t)(h ^ h >> 29);
}

/*
 * The slot of key k in an open-addressed table of *cap entries of size
 * sz (cap a power of two), each beginning with its struct cand key (m 0:
 * empty): k's own, or a fresh one with k as its key (*fresh 1, the rest
 * zero for the caller to fill).  Kept at most three quarters full (half
 * left each table of GPT-3 175B's search twice as large, and its pages
 * took 56 more page faults, 0.7 ms in a virtual machine, where linear
 * probes of neighbouring slots cost little): growing moves the entries
 * as they are, so a pointer into the table holds until a key it lacks is
 * added (finding one it has moves nothing).
 */
void *
search_slot_find(void **tab, size_t *n, size_t *cap, size_t sz, size_t cap0,
		 const struct cand *k, int *fresh)
{
	char *e = NULL;
	size_t i;

	for (i = *cap ? key_hash(k) & (*cap - 1) : 0; *cap;
	     i = (i + 1) & (*cap - 1)) {
		e = (char *)*tab + i * sz;
		if (((struct cand *)e)->m <= 0)
			break;
		if (same_key((struct cand *)e, k)) {
			*fresh = 0;
			return e;
		}
	}
	if (4 * (*n + 1) > 3 * *cap) {
		size_t ucap = *cap ? 2 * *cap : cap0, un = 0;
		void *u = xcalloc(ucap, sz);
		int f;

		for (i = 0; i < *cap; i++) {
			const struct cand *ki =
				(const struct cand *)((char *)*tab + i * sz);

			if (ki->m > 0)
				memcpy(search_slot_find(&u, &un, &ucap, sz,
							cap0, ki, &f),
				       ki, sz);
		}
		free(*tab);
		*tab = u;
		*cap = ucap;
		*n = un;
		/* k is not in it: its first empty slot */
		for (i = key_hash(k) & (*cap - 1);; i = (i + 1) & (*cap - 1)) {
			e = (char *)*tab + i * sz;
			if (((struct cand *)e)->m <= 0)
				break;
		}
	}
	memcpy(e, k, sizeof(*k));
	(*n)++;
	*fresh = 1;
	return e;
}

/* The entry of cd in t (a fresh one when it has none). */
static struct fit_entry *
fit_find(struct fit_table *t, const struct cand *cd)
{
	struct cand k = *cd;
	struct fit_entry *e;
	int fresh;

	k.lb = 0;
	e = search_slot_find((void **)&t->e, &t->n, &t->cap, sizeof(*e), 1024,
			     &k, &fresh);
	if (fresh) {
		e->no = -INFINITY;
		e->yes = INFINITY;
		e->cls = 0;
	}
	return e;
}

/* A word's bits mixed into h (fit_class's hash). */
static uint64_t
fit_mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15u;
	return h ^ h >> 31;
}

static uint64_t
fit_bits(double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	return u;
}

/* Stage s's stashes in flight under g, as cost_mem_stage() sets them. */
static double
fit_in_flight(const struct cost_cfg *g, int s)
{
	return cost_stash_mbs(g, s);
}

/* Whether class fc holds candidate ti of configuration g, whose memory
 * constants are mem: part_fits() then reads the same of both. */
static int
fit_class_same(const struct fit_class *fc, int ti, const struct cost_mem *mem,
	       const struct cost_cfg *g)
{
	int s;

	if (fc->ti != ti || fc->g.d != g->d || fc->g.k != g->k ||
	    fc->g.r != g->r || memcmp(&fc->mem, mem, sizeof(*mem)))
		return 0;
	for (s = 0; s < g->d; s++)
		if (cost_stash_mbs(&fc->g, s) != cost_stash_mbs(g, s) ||
		    cost_stash_mbs_out(&fc->g, s) != cost_stash_mbs_out(g, s))
			return 0;
	return 1;
}

/*
 * The class in t of e, candidate ti of chain c and configuration g under
 * options o (found or made the first time e asks).
 */
static struct fit_class *
fit_class_of(struct fit_table *t, struct fit_entry *e, int ti,
	     const struct chain *c, const struct cost_opts *o,
	     const struct cost_cfg *g)
{
	struct fit_class *fc;
	struct cost_mem mem;
	uint64_t h;
	size_t i, j;

	if (e->cls)
		return &t->cls[e->cls - 1];
	/* (cost_mem_init() zeroes the whole struct first: memcmp() is
	 * fair) */
	cost_mem_init(&mem, c, o, g);
	h = fit_mix((uint64_t)ti << 40 | (uint64_t)(uint16_t)g->k << 24 |
			(uint64_t)(uint8_t)g->r << 16 |
			(uint64_t)(uint16_t)g->d,
		    fit_bits(mem.weight));
	h = fit_mix(h, fit_bits(mem.state));
	/* the first stage's stashes, the most (equal classes have equal
	 * hashes; fit_class_same() compares every stage's) */
	h = fit_mix(h, fit_bits(fit_in_flight(g, 0)));
	if (2 * (t->ncls + 1) > t->ccap) {
		free(t->cslot);
		t->ccap = t->ccap ? 2 * t->ccap : 1024;
		t->cslot = xcalloc(t->ccap, sizeof(*t->cslot));
		for (j = 0; j < t->ncls; j++) {
			for (i = t->cls[j].hash & (t->ccap - 1); t->cslot[i];
			     i = (i + 1) & (t->ccap - 1))
				;
			t->cslot[i] = (int)j + 1;
		}
	}
	for (i = h & (t->ccap - 1); t->cslot[i]; i = (i + 1) & (t->ccap - 1)) {
		fc = &t->cls[t->cslot[i] - 1];
		if (fc->hash == h && fit_class_same(fc, ti, &mem, g)) {
			e->cls = t->cslot[i];
			return fc;
		}
	}
	if (t->ncls == t->acls) {
		t->acls = t->acls ? 2 * t->acls : 1024;
		t->cls = xrealloc(t->cls, t->acls * sizeof(*t->cls));
	}
	fc = &t->cls[t->ncls++];
	fc->mem = mem;
	fc->g = *g;
	fc->ti = ti;
	fc->hash = h;
	fc->no = -INFINITY;
	fc->yes = INFINITY;
	t->cslot[i] = (int)t->ncls;
	e->cls = (int)t->ncls;
	return fc;
}

/* The entry of cd under placement place in t (a fresh one when none). */
struct time_entry *
search_time_find(struct time_table *t, const struct cand *cd, int place)
{
	struct cand k = *cd;
	struct time_entry *e;
	int fresh;

	k.lb = 0;
	k.lp = place;
	e = search_slot_find((void **)&t->e, &t->n, &t->cap, sizeof(*e), 1024,
			     &k, &fresh);
	if (fresh) {
		e->lv = NULL;
		e->t = NAN;
		e->lo = -INFINITY;
		e->first = NULL;
		e->st = NULL;
	}
	return e;
}

/* Whether lv holds the links l holds for d stages (the figures to the
 * bit, the node's as ==, as search_time_links() has always compared them). */
static int
link_vec_is(const struct link_vec *lv, const struct place_links *l, int d)
{
	int i, k = PLACE_LINK_ARRAYS;
	size_t sz = (size_t)d * sizeof(double);

	if (lv->n != k * d + 3)
		return 0;
	for (i = 0; i < k; i++)
		if (memcmp(lv->v + i * d, l->all + i * l->dcap, sz))
			return 0;
	return lv->v[k * d] == l->node_gb_s &&
	       lv->v[k * d + 1] == l->node_lat_us &&
	       lv->v[k * d + 2] == l->gpus_per_node;
}

/* A hash of the links l holds for d stages: each array's ends and middle
 * (the lookup compares the whole; the node's figures not, being compared
 * as ==, under which -0 is 0). */
static size_t
link_vec_hash(const struct place_links *l, int d)
{
	uint64_t h = (uint64_t)d * 0x9e3779b97f4a7c15u, b;
	int i, j, at[3] = { 0, d / 2, d - 1 };

	for (i = 0; i < PLACE_LINK_ARRAYS; i++)
		for (j = 0; j < 3; j++) {
			memcpy(&b, l->all + i * l->dcap + at[j], sizeof(b));
			h = (h ^ b) * 0xc2b2ae3d27d4eb4fu;
		}
	return (size_t)(h ^ h >> 29);
}

/* The slot of a link_vec of hash h in p (an empty one: none has it),
 * that holds l's links for d stages. */
static struct link_vec **
link_slot(struct link_pool *p, size_t h, const struct place_links *l, int d)
{
	size_t i;

	for (i = h & (p->cap - 1); p->slot[i]; i = (i + 1) & (p->cap - 1))
		if (p->slot[i]->hash == h && link_vec_is(p->slot[i], l, d))
			break;
	return &p->slot[i];
}

/* p's copy of the links l holds for d stages (made when it has none). */
static const struct link_vec *
link_intern(struct link_pool *p, const struct place_links *l, int d)
{
	int i, k = PLACE_LINK_ARRAYS, n = k * d + 3;
	size_t h, j;
	struct link_vec **sl, *lv;

	if (p->last && link_vec_is(p->last, l, d))
		return p->last;
	h = link_vec_hash(l, d);
	if (2 * (p->n + 1) > p->cap) {
		struct link_pool u = {NULL, NULL, p->n, 0};

		u.cap = p->cap ? 2 * p->cap : 64;
		u.slot = xcalloc(u.cap, sizeof(*u.slot));
		for (j = 0; j < p->cap; j++) {
			struct link_vec *q = p->slot[j];
			size_t s;

			if (!q)
				continue;
			for (s = q->hash & (u.cap - 1); u.slot[s];
			     s = (s + 1) & (u.cap - 1))
				;
			u.slot[s] = q;
		}
		free(p->slot);
		*p = u;
	}
	sl = link_slot(p, h, l, d);
	if (!*sl) {
		lv = xmalloc(sizeof(*lv) + (size_t)n * sizeof(double));
		lv->hash = h;
		lv->n = n;
		for (i = 0; i < k; i++)
			memcpy(lv->v + i * d, l->all + i * l->dcap,
			       (size_t)d * sizeof(double));
		lv->v[k * d] = l->node_gb_s;
		lv->v[k * d + 1] = l->node_lat_us;
		lv->v[k * d + 2] = l->gpus_per_node;
		*sl = lv;
		p->n++;
	}
	p->last = *sl;
	return p->last;
}

/* Whether e (of table t) was solved on the links x holds now for d
 * stages (else it takes them, forgetting what it knew). */
int
search_time_links(struct time_table *t, struct time_entry *e,
		  const struct ctx *x, int d)
{
	if (e->lv && link_vec_is(e->lv, &x->links, d))
		return 1;
	e->lv = link_intern(&t->pool, &x->links, d);
	e->t = NAN;
	e->lo = -INFINITY;
	free(e->first);
	e->first = NULL;
	free(e->st);
	e->st = NULL;
	return 0;
}

void
part_table_release(struct part_table *t)
{
	size_t i;

	for (i = 0; i < t->cap; i++) {
		free(t->e[i].first);
		free(t->e[i].st);
	}
	free(t->e);
	t->e = NULL;
	t->n = t->cap = 0;
}

/*
 * part_fits() for cd (configuration g, under the context's own cost
 * options o) at stage bound tb, from the memo when it knows.
 */
int
search_cand_fits(struct ctx *x, const struct cost_opts *o,
		 const struct cand *cd, const struct cost_cfg *g, double tb)
{
	struct fit_table *ft = o == x->o ? x->fit
				 : o == &x->nocap ? x->nfit : NULL;
	struct fit_entry *e;
	double lo, hi, *no, *yes;
	int ok;

	/* plain: the greedy alone (part_fits_span() asked its span) */
	if ((!ft || cd->m <= 0) && x->so->plain)
		return part_fits_span(x->c, o, g, tb, &lo, &hi);
	if (!ft || cd->m <= 0)
		return part_fits(x->c, o, g, tb);
	e = fit_find(ft, cd);
	no = &e->no;
	yes = &e->yes;
	if (!x->so->plain) {
		/* what part_fits() said of the candidates like it */
		struct fit_class *fc = fit_class_of(ft, e, cd->ti, x->c, o, g);

		no = &fc->no;
		yes = &fc->yes;
	}
	if (tb <= *no)
		return 0;
	if (tb > *yes)
		return 1;
	/* the answer holds over its span, and by monotony beyond it on the
	 * side of that answer */
	ok = part_fits_span(x->c, o, g, tb, &lo, &hi);
	if (ok && lo < *yes)
		*yes = lo;
	else if (!ok && hi > *no)
		*no = hi;
	return ok;
}

/*
 * What the best-first loop of one of capacity's sizes learns of a
 * candidate for the next (search.c's loop asks and keeps it, by the
 * candidate's place in the memo's list, pk->from and pk->at): a candidate its
 * solve found no time for under a bound has none under any smaller one (its
 * closed-form time, the least over its placements, reads the cluster through
 * its grid's links alone, the same at every size of one place_segment()).  A
 * larger cluster's search solves it under a bound no larger than the k-th best
 * time the smaller one's found (its start), under or above which the
 * smaller one solved every candidate it reaches: its solve would only
 * look its answer up again in the memo's tables of fits, links and
 * times (capacity's sweep: 185,000 of 260,000 solves).  The loop counts
 * it solved and cut, as the solve would.  Not plain, which solves every
 * candidate (tests/unit/test_search.c: test_memo_none, and
 * test_memo_plain's statistics).
 */

/* Whether l's place_segment()s (nseg) are those of cl now, set to them
 * (nnodes: the node count they were worked out at). */
static int
none_segs_hold(struct cand_list *l, const struct cluster *cl)
{
	int g, same = 1;

	/* (hosts of up to 8 GPUs are segments of their own whatever the
	 * count, place.h) */
	if (l->nnodes == cl->nodes || cl->gpus_per_node <= 8)
		return 1;
	l->nnodes = cl->nodes;
	for (g = 1; g < l->nseg_n; g++) {
		int seg = place_segment(cl, g);

		same &= seg == l->nseg[g];
		l->nseg[g] = seg;
	}
	return same;
}

/* The slot of pk's i-th candidate in its list's verdicts (NULL: none
 * kept, not from a list), on cluster cl: what was kept under other
 * segments (a grid's links read them) forgotten. */
static double *
none_slot(const struct pick *pk, long i, const struct cluster *cl)
{
	struct cand_list *l = pk->from;
	long j;

	if (!l || !pk->at || i >= pk->n)
		return NULL;
	if (!l->none || l->ncl != cl) {
		free(l->none);
		free(l->nseg);
		l->none = xcalloc((size_t)l->n, sizeof(*l->none));
		for (j = 0, l->nseg_n = 1; j < l->n; j++)
			if (l->gpus[j] >= l->nseg_n)
				l->nseg_n = l->gpus[j] + 1;
		l->nseg = xcalloc((size_t)l->nseg_n, sizeof(*l->nseg));
		l->ncl = cl;
		l->nnodes = -1;
		none_segs_hold(l, cl);
	} else if (!none_segs_hold(l, cl)) {
		memset(l->none, 0, (size_t)l->n * sizeof(*l->none));
	}
	return &l->none[pk->at[i]];
}

int
search_none_known(const struct pick *pk, long i, const struct cluster *cl,
		  double bound)
{
	const double *e;

	if (!pk->from || (e = none_slot(pk, i, cl)) == NULL)
		return 0;
	return *e > 0 && bound <= *e;
}

void
search_none_keep(struct pick *pk, long i, const struct cluster *cl,
		 double bound)
{
	double *e;

	if (pk->from && (e = none_slot(pk, i, cl)) != NULL && bound > *e)
		*e = bound;
}
