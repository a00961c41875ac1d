/*
 * error.h - diagnostics and checked allocation for every pd2bw program.
 *
 * Messages go to stderr as "progname: message".  Library code reports with
 * pd2bw_error() and returns its -1 to the caller; only main.c, the x*alloc
 * wrappers and tests end the process with pd2bw_die().
 */
#ifndef PD2BW_ERROR_H
#define PD2BW_ERROR_H

#include <stdarg.h>
#include <stddef.h>

#define PD2BW_VERSION "0.1.0"

#if defined(__GNUC__)
#define PD2BW_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PD2BW_PRINTF(f, a)
#endif

/* Program name used as the prefix of every message; "pd2bw" until set. */
extern const char *pd2bw_progname;

/* Set pd2bw_progname to the basename of argv0 (kept by pointer, not copied). */
void pd2bw_set_progname(const char *argv0);

/*
 * Print "progname: <prefix><message>" to stderr without the newline, the
 * message on one line: control characters in it (a newline in a name
 * given on the command line or read from a file) are written as \n, \t
 * or \xHH.  What the functions below and cli_usage_error() use.
 */
void pd2bw_vreport(const char *prefix, const char *fmt, va_list ap);

/* Print "progname: <message>" to stderr; always returns -1. */
int pd2bw_error(const char *fmt, ...) PD2BW_PRINTF(1, 2);

/* Print "progname: warning: <message>" to stderr. */
void pd2bw_warn(const char *fmt, ...) PD2BW_PRINTF(1, 2);

/*
 * Capture: from pd2bw_capture_begin() to pd2bw_capture_end() the messages
 * of pd2bw_error() and pd2bw_warn(), of every thread, are held in memory
 * instead of going to stderr (pd2bw_die()'s still go there), for a caller
 * that keeps them (capacity: the reason a cluster size does not fit).
 * begin returns 0, or -1 with a message on stderr; captures do not nest.
 * pd2bw_capture_take() returns what was held since begin or the last take,
 * whole lines as stderr would have had them (the caller frees it), or NULL
 * when nothing was.  end drops what is still held.
 */
int pd2bw_capture_begin(void);
char *pd2bw_capture_take(void);
void pd2bw_capture_end(void);

/* Print "progname: <message>" and exit(1). */
_Noreturn void pd2bw_die(const char *fmt, ...) PD2BW_PRINTF(1, 2);

/*
 * Non-zero when PD2BW_DETERMINISTIC=1 is set in the environment: writers then
 * leave out dates, host names and versions so output is byte-stable.
 */
int pd2bw_deterministic(void);

/* Allocation that dies with a message on failure; never returns NULL. */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* Grow *p (holding *alloc elements of size sz) to hold at least want. */
void xgrow(void **p, size_t *alloc, size_t want, size_t sz);

#endif
