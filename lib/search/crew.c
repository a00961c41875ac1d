/*
 * crew.c - the solving threads (struct crew): rounds of candidates solved
 * at once against the bound as each round starts, on the caller's thread
 * alone until solves take long enough to pay for waking the others.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "search_int.h"

#define CREW_ROUND 4 /* candidates per thread and round */
/*
 * Waking the threads and waiting for them costs tens of microseconds a
 * round, more than a memoised solve: capacity's 256 searches solve most
 * candidates in a few microseconds, and took three times as long on two
 * threads as on one.  So the threads start, and rounds go to them, only
 * once the caller's solves average CREW_ON_US a candidate; they stop at a
 * quarter of that.  Who solves a candidate never changes its result.
 */
#define CREW_ON_US 100.0

/* Take candidates of the round and solve them, until none is left. */
static void
crew_work(struct crew *cw, struct ctx *x, int alone)
{
	for (;;) {
		long i;

		/* alone, no lock (search_crew_round()) */
		if (!alone)
			pthread_mutex_lock(&cw->mu);
		i = cw->next < cw->n ? cw->next++ : -1;
		if (!alone)
			pthread_mutex_unlock(&cw->mu);
		if (i < 0)
			return;
		cw->t[i] = search_solve_best(x, x->o, x->so, &cw->v[i],
					     cw->bound, &cw->place[i]);
	}
}

static void *
crew_main(void *arg)
{
	struct ctx *x = arg;
	struct crew *cw = x->crew;
	int seen = 0;

	pthread_mutex_lock(&cw->mu);
	for (;;) {
		while (cw->round == seen && !cw->quit)
			pthread_cond_wait(&cw->go, &cw->mu);
		if (cw->quit)
			break;
		seen = cw->round;
		pthread_mutex_unlock(&cw->mu);
		crew_work(cw, x, 0);
		pthread_mutex_lock(&cw->mu);
		if (--cw->busy == 0)
			pthread_cond_signal(&cw->idle);
	}
	pthread_mutex_unlock(&cw->mu);
	return NULL;
}

static void crew_turn_on(struct crew *cw);

/*
 * A crew of nthr threads, the caller's (context x) included; the other
 * threads start when the rounds need them (search_crew_round()), or at once
 * under threads_eager.
 */
void
search_crew_start(struct crew *cw, struct ctx *x, int nthr)
{
	memset(cw, 0, sizeof(*cw));
	if (nthr < 1)
		nthr = 1;
	pthread_mutex_init(&cw->mu, NULL);
	pthread_cond_init(&cw->go, NULL);
	pthread_cond_init(&cw->idle, NULL);
	cw->x = xcalloc(nthr, sizeof(*cw->x));
	cw->tid = xcalloc(nthr, sizeof(*cw->tid));
	cw->t = xcalloc((size_t)nthr * CREW_ROUND, sizeof(*cw->t));
	cw->place = xcalloc((size_t)nthr * CREW_ROUND, sizeof(*cw->place));
	cw->self = x;
	cw->nthr = 1;
	cw->want = nthr;
	if (x->so->threads_eager)
		crew_turn_on(cw);
}

/*
 * Start the want - 1 threads beside the caller, each with its own
 * context, alike.  A thread that cannot be started is done without:
 * fewer threads give the same result.
 */
static void
crew_spawn(struct crew *cw)
{
	struct ctx *x = cw->self;

	while (cw->nthr < cw->want) {
		struct ctx *y = &cw->x[cw->nthr];

		search_ctx_init(y, x->sc, x->nsc, x->cl, x->o, x->so, x->stats);
		y->crew = cw;
		if (x->so->memo)
			search_ctx_memo(y, x->so->memo, cw->nthr);
		if (pthread_create(&cw->tid[cw->nthr - 1], NULL, crew_main,
				   y)) {
			search_ctx_release(y);
			cw->want = cw->nthr;
			break;
		}
		cw->nthr++;
	}
}

/* Rounds go to the threads, started now if they were not. */
static void
crew_turn_on(struct crew *cw)
{
	crew_spawn(cw);
	cw->on = cw->nthr > 1;
}

/* Candidates a round takes: one at a time alone (the bound always the
 * newest), CREW_ROUND a thread with the threads on. */
long
search_crew_size(const struct crew *cw)
{
	return cw->on ? (long)cw->nthr * CREW_ROUND : 1;
}

static double
wall_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* A round of n candidates over the started threads and the caller. */
static void
crew_share(struct crew *cw, const struct cand *v, long n, double bound)
{
	pthread_mutex_lock(&cw->mu);
	cw->v = v;
	cw->n = n;
	cw->next = 0;
	cw->bound = bound;
	cw->busy = cw->nthr - 1;
	cw->round++;
	pthread_cond_broadcast(&cw->go);
	pthread_mutex_unlock(&cw->mu);
	crew_work(cw, cw->self, 0);
	pthread_mutex_lock(&cw->mu);
	while (cw->busy > 0)
		pthread_cond_wait(&cw->idle, &cw->mu);
	pthread_mutex_unlock(&cw->mu);
}

/* Solve v[0..n) against bound on every thread: cw->t[], cw->place[]. */
void
search_crew_round(struct crew *cw, const struct cand *v, long n, double bound)
{
	/* The caller alone (-j 1, the threads off: CREW_ON_US), or a
	 * round of one candidate, which no other thread could share,
	 * takes no lock and wakes no thread, here or in crew_work():
	 * capacity's sweep runs 260,000 rounds, most of one candidate,
	 * whose locks cost 70 M instructions.  The threads wait for a
	 * round number that does not move. */
	int alone = !cw->on || n == 1;
	double t0 = cw->want > 1 ? wall_us() : 0, us;

	if (alone) {
		cw->v = v;
		cw->n = n;
		cw->next = 0;
		cw->bound = bound;
		crew_work(cw, cw->self, 1);
	} else {
		crew_share(cw, v, n, bound);
	}
	if (cw->want < 2)
		return;
	/* a candidate's solve as one thread would take it */
	us = (wall_us() - t0) / (double)n * (alone ? 1 : cw->nthr);
	cw->avg_us = cw->avg_us > 0 ? 0.75 * cw->avg_us + 0.25 * us : us;
	if (!cw->on && cw->avg_us >= CREW_ON_US) {
		crew_turn_on(cw);
	} else if (cw->on && cw->avg_us < CREW_ON_US / 4 &&
		   !cw->self->so->threads_eager) {
		cw->on = 0;
	}
}

void
search_crew_stop(struct crew *cw)
{
	int i;

	if (!cw->x)
		return;
	pthread_mutex_lock(&cw->mu);
	cw->quit = 1;
	pthread_cond_broadcast(&cw->go);
	pthread_mutex_unlock(&cw->mu);
	for (i = 1; i < cw->nthr; i++) {
		pthread_join(cw->tid[i - 1], NULL);
		search_ctx_release(&cw->x[i]);
	}
	pthread_mutex_destroy(&cw->mu);
	pthread_cond_destroy(&cw->go);
	pthread_cond_destroy(&cw->idle);
	free(cw->x);
	free(cw->tid);
	free(cw->t);
	free(cw->place);
	memset(cw, 0, sizeof(*cw));
}
