/*
 * error.c - diagnostics (pd2bw_error/warn/die), their capture, and dying
 * allocators.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd2bw/error.h"

const char *pd2bw_progname = "pd2bw";

/*
 * While a capture holds (pd2bw_capture_begin()), the messages go into
 * capture_buf, a memory stream, instead of stderr.  stderr's lock guards
 * both: the messages of threads do not interleave, wherever they go.
 */
static FILE *capture_fp;
static char *capture_buf;
static size_t capture_len;

static FILE *
msg_fp(void)
{
	return capture_fp ? capture_fp : stderr;
}

void
pd2bw_set_progname(const char *argv0)
{
	const char *slash;

	if (!argv0 || !*argv0)
		return;
	slash = strrchr(argv0, '/');
	pd2bw_progname = slash ? slash + 1 : argv0;
}

/*
 * Write s with every control character spelled out (\n, \t, \xHH), so
 * that a name holding a newline cannot split a message into lines, nor an
 * escape sequence reach the terminal.  Bytes >= 0x80 (UTF-8) pass.
 */
static void
put_escaped(const char *s, FILE *fp)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\n')
			fputs("\\n", fp);
		else if (c == '\t')
			fputs("\\t", fp);
		else if (c < 0x20 || c == 0x7f)
			fprintf(fp, "\\x%02x", c);
		else
			fputc(c, fp);
	}
}

void
pd2bw_vreport(const char *prefix, const char *fmt, va_list ap)
{
	char small[1024], *msg = small;
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n >= (int)sizeof(small)) {
		msg = malloc((size_t)n + 1);
		if (msg)
			vsnprintf(msg, (size_t)n + 1, fmt, aq);
		else
			msg = small; /* cut short rather than lost */
	}
	va_end(aq);
	fflush(stdout);
	/* one message at a time: stderr is unbuffered, and threads (the
	 * search's -j) may report together */
	flockfile(stderr);
	fprintf(msg_fp(), "%s: %s", pd2bw_progname, prefix);
	put_escaped(n < 0 ? fmt : msg, msg_fp());
	funlockfile(stderr);
	if (msg != small)
		free(msg);
}

static void
vreport(const char *prefix, const char *fmt, va_list ap)
{
	flockfile(stderr);
	pd2bw_vreport(prefix, fmt, ap);
	fputc('\n', msg_fp());
	funlockfile(stderr);
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

	/* the first thread to die reports and exits holding stderr: a
	 * second one (two searching threads out of memory) waits here
	 * instead of printing into its message or exiting with it; the
	 * message reaches stderr, captured or not */
	flockfile(stderr);
	capture_fp = NULL;
	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	exit(1);
}

int
pd2bw_capture_begin(void)
{
	FILE *fp = open_memstream(&capture_buf, &capture_len);

	if (!fp)
		return pd2bw_error("cannot hold messages in memory: %s",
				   strerror(errno));
	flockfile(stderr);
	capture_fp = fp;
	funlockfile(stderr);
	return 0;
}

char *
pd2bw_capture_take(void)
{
	char *s = NULL;

	flockfile(stderr);
	if (capture_fp) {
		/* closing the stream leaves its buffer to us: hand it on,
		 * and hold the next messages in a new one */
		fclose(capture_fp);
		if (capture_len > 0)
			s = capture_buf;
		else
			free(capture_buf);
		capture_buf = NULL;
		capture_len = 0;
		capture_fp = open_memstream(&capture_buf, &capture_len);
		if (!capture_fp)
			pd2bw_die("cannot hold messages in memory: %s",
				  strerror(errno));
	}
	funlockfile(stderr);
	return s;
}

void
pd2bw_capture_end(void)
{
	flockfile(stderr);
	if (capture_fp) {
		fclose(capture_fp);
		free(capture_buf);
		capture_fp = NULL;
		capture_buf = NULL;
		capture_len = 0;
	}
	funlockfile(stderr);
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
