/*
 * cli.c - usage errors and checked option values for the programs.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pd2bw/cli.h"

const char *cli_help;

void
cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pd2bw_vreport("", fmt, ap);
	va_end(ap);
	if (cli_help)
		fprintf(stderr, "\nTry '%s'.\n", cli_help);
	else
		fprintf(stderr, "\nTry '%s --help'.\n", pd2bw_progname);
	exit(2);
}

void
cli_option_error(int c, char *const *argv)
{
	const char *arg = argv[optind - 1];
	char shortopt[3] = {'-', (char)optopt, 0};
	char longopt[128];

	/* optopt is the letter of a short option, 0 or a long option's
	 * value for a long one; argv[optind - 1] may hold "--opt=x". */
	if (optopt > 0 && optopt < 256 && strncmp(arg, "--", 2))
		arg = shortopt;
	else if (!strncmp(arg, "--", 2)) {
		snprintf(longopt, sizeof(longopt), "%.*s",
			 (int)strcspn(arg, "="), arg);
		arg = longopt;
	}
	if (c == ':')
		cli_usage_error("option '%s' needs a value", arg);
	cli_usage_error("unknown option '%s'", arg);
}

long
cli_long(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		cli_usage_error("invalid %s '%s' (expected %ld..%ld)", opt, s,
				lo, hi);
	return v;
}

double
cli_double(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || !(v >= lo) ||
	    !(v <= hi))
		cli_usage_error("invalid %s '%s'", opt, s);
	return v;
}

/* "a, b, c" of the NULL-terminated names into valid[n]. */
static void
list_names(const char *const *names, char *valid, size_t n)
{
	size_t len = 0;
	int i;

	valid[0] = 0;
	for (i = 0; names[i] && len < n; i++)
		len += (size_t)snprintf(valid + len, n - len, "%s%s",
					i ? ", " : "", names[i]);
}

int
cli_name(const char *opt, const char *s, const char *const *names)
{
	int one = -1;
	char valid[512];

	cli_names(opt, s, names, &one);
	if (one < 0) {
		list_names(names, valid, sizeof(valid));
		cli_usage_error("%s takes one of %s", opt, valid);
	}
	return one;
}

unsigned
cli_names(const char *opt, const char *s, const char *const *names, int *one)
{
	char *copy = xstrdup(s), *tok, *save = NULL;
	unsigned mask = 0;
	int n = 0, i, last = -1;

	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; names[i]; i++)
			if (!strcmp(tok, names[i]))
				break;
		if (!names[i]) {
			char valid[512];

			list_names(names, valid, sizeof(valid));
			cli_usage_error("invalid %s '%s' (valid: %s)", opt, tok,
					valid);
		}
		mask |= 1u << i;
		last = i;
		n++;
	}
	free(copy);
	if (!mask)
		cli_usage_error("empty list for %s", opt);
	if (one)
		*one = n == 1 ? last : -1;
	return mask;
}

int
cli_ints(const char *opt, const char *s, int *out, int max, long lo,
	 long hi, int increasing)
{
	char *copy = xstrdup(s), *tok, *save = NULL;
	int n = 0, i;

	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == max)
			cli_usage_error("too many values for %s in '%s'", opt,
					s);
		out[n] = (int)cli_long(opt, tok, lo, hi);
		if (increasing && n > 0 && out[n] <= out[n - 1])
			cli_usage_error("%s must increase: '%s'", opt, s);
		for (i = 0; !increasing && i < n; i++)
			if (out[i] == out[n])
				cli_usage_error("repeated value in %s '%s'",
						opt, s);
		n++;
	}
	free(copy);
	if (!n)
		cli_usage_error("empty list for %s", opt);
	return n;
}

/* What file path names: 0 and its identity, or -1 (nothing to compare). */
struct file_id {
	dev_t dev;
	ino_t ino;
	const char *name; /* last component when the file does not exist */
	size_t name_len;
};

static int
file_id(const char *path, int output, struct file_id *id)
{
	struct stat st;
	const char *slash;
	char dir[4096];

	memset(id, 0, sizeof(*id));
	if (!strcmp(path, "-"))
		return -1;
	if (stat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode))
			return -1;
		id->dev = st.st_dev;
		id->ino = st.st_ino;
		return 0;
	}
	if (!output) /* an input that is not there replaces nothing */
		return -1;
	/* not there yet: the directory it will be made in, and its name */
	slash = strrchr(path, '/');
	if (slash) {
		size_t n = (size_t)(slash - path);

		if (n >= sizeof(dir))
			return -1;
		memcpy(dir, path, n);
		dir[n ? n : 1] = 0;
		if (!n)
			dir[0] = '/';
	} else {
		strcpy(dir, ".");
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return -1;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->name = slash ? slash + 1 : path;
	id->name_len = strlen(id->name);
	return 0;
}

static int
same_file(const struct file_id *a, const struct file_id *b)
{
	if (a->dev != b->dev || a->ino != b->ino || !a->name != !b->name)
		return 0;
	return !a->name || (a->name_len == b->name_len &&
			    !memcmp(a->name, b->name, a->name_len));
}

void
cli_distinct_paths(const struct cli_path *p, int n)
{
	struct file_id *ids = xcalloc((size_t)(n > 0 ? n : 1), sizeof(*ids));
	int *ok = xcalloc((size_t)(n > 0 ? n : 1), sizeof(*ok));
	int i, j;

	for (i = 0; i < n; i++)
		ok[i] = p[i].path &&
			file_id(p[i].path, p[i].output, &ids[i]) == 0;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (ok[i] && ok[j] && (p[i].output || p[j].output) &&
			    same_file(&ids[i], &ids[j]))
				cli_usage_error("%s '%s' and %s '%s' name the "
						"same file",
						p[i].opt, p[i].path, p[j].opt,
						p[j].path);
	free(ids);
	free(ok);
}
