/*
 * error.c - diagnostics (pd2bw_error/warn/die) and dying allocators.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/error.h"

const char *pd2bw_progname = "pd2bw";

void
pd2bw_set_progname(const char *argv0)
{
	const char *slash;

	if (!argv0 || !*argv0)
		return;
	slash = strrchr(argv0, '/');
	pd2bw_progname = slash ? slash + 1 : argv0;
}

static void
vreport(const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: %s", pd2bw_progname, prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int
pd2bw_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	return -1;
}

void
pd2bw_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void
pd2bw_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	exit(1);
}

int
pd2bw_deterministic(void)
{
	const char *v = getenv("PD2BW_DETERMINISTIC");

	return v && strcmp(v, "0") != 0 && *v;
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		pd2bw_die("out of memory allocating %zu bytes", n);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		pd2bw_die("out of memory allocating %zu x %zu bytes", nmemb,
			  size);
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		pd2bw_die("out of memory allocating %zu bytes", n);
	return q;
}

char *
xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

void
xgrow(void **p, size_t *alloc, size_t want, size_t sz)
{
	size_t n = *alloc ? *alloc : 8;

	if (want <= *alloc)
		return;
	while (n < want)
		n *= 2;
	*p = xrealloc(*p, n * sz);
	*alloc = n;
}
