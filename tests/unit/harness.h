/*
 * harness.h - a tiny TAP-like unit test harness (after sds testhelp.h).
 * Each check prints "ok N - what" or "not ok N - what (file:line)";
 * h_done() prints the totals and returns the exit status.  A test program
 * that cannot run here calls h_skip_all(), which exits 77.
 */
#ifndef PD2BW_HARNESS_H
#define PD2BW_HARNESS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int h_n, h_failed, h_skipped;

/* xorshift64: the reproducible generator of the tests' random cases;
 * each test keeps its own state (and seed), so its draws do not depend
 * on the others'. */
static inline uint64_t
h_xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Another seed for a test's random trials: PD2BW_TEST_SEED=n mixed into
 * state s (a soak: n = 1, 2, ... over build/tests/test_plan and the other
 * randomised tests); the suite runs without it, the default seeds.
 */
static inline void
h_seed(uint64_t *s)
{
	const char *e = getenv("PD2BW_TEST_SEED");

	if (e)
		*s ^= strtoull(e, NULL, 10) * 0x9E3779B97F4A7C15ULL;
	/* xorshift stays at 0 from 0: a seed that cancels the state's
	 * start (1 where it starts at the multiplier) draws another */
	if (!*s)
		*s = 0x2545F4914F6CDD1DULL;
}

/* A uniform double in [0, 1) from state s. */
static inline double
h_urand(uint64_t *s)
{
	return (double)(h_xorshift(s) >> 11) / 9007199254740992.0;
}

static inline int
h_check(int ok, const char *what, const char *file, int line)
{
	h_n++;
	if (ok) {
		printf("ok %d - %s\n", h_n, what);
	} else {
		h_failed++;
		printf("not ok %d - %s (%s:%d)\n", h_n, what, file, line);
	}
	return ok;
}

static inline void
h_skip(const char *what, const char *why)
{
	h_n++;
	h_skipped++;
	printf("ok %d - %s # SKIP %s\n", h_n, what, why);
}

static inline void
h_skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	exit(77);
}

static inline int
h_done(void)
{
	printf("# %d checks, %d failed, %d skipped\n", h_n, h_failed,
	       h_skipped);
	return h_failed ? 1 : 0;
}

#define CHECK(c) h_check(!!(c), #c, __FILE__, __LINE__)
#define CHECK_MSG(c, msg) h_check(!!(c), msg, __FILE__, __LINE__)
#define CHECK_INT_EQ(a, b)                                                    \
	do {                                                                  \
		long long h_a = (long long)(a), h_b = (long long)(b);         \
		if (!h_check(h_a == h_b, #a " == " #b, __FILE__, __LINE__))   \
			printf("#   got %lld, want %lld\n", h_a, h_b);        \
	} while (0)
#define CHECK_NEAR(a, b, tol)                                                 \
	do {                                                                  \
		double h_a = (double)(a), h_b = (double)(b);                  \
		if (!h_check(fabs(h_a - h_b) <= (tol), #a " ~= " #b,          \
			     __FILE__, __LINE__))                             \
			printf("#   got %.12g, want %.12g\n", h_a, h_b);      \
	} while (0)
#define CHECK_STR_EQ(a, b)                                                    \
	do {                                                                  \
		const char *h_a = (a), *h_b = (b);                            \
		if (!h_check(h_a && h_b && !strcmp(h_a, h_b), #a " == " #b,   \
			     __FILE__, __LINE__))                             \
			printf("#   got '%s', want '%s'\n",                   \
			       h_a ? h_a : "(null)", h_b ? h_b : "(null)");   \
	} while (0)

#endif
