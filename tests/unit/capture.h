/*
 * capture.h - helpers for the format tests: capture what a call prints on
 * stderr, find the source tree's data directories, make scratch
 * directories, compare files.  Include after harness.h.
 */
#ifndef PD2BW_CAPTURE_H
#define PD2BW_CAPTURE_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int cap_saved = -1;
static FILE *cap_fp;

/* Redirect stderr into a temporary file until cap_end(). */
static inline void
cap_begin(void)
{
	fflush(stderr);
	cap_fp = tmpfile();
	if (!cap_fp) {
		perror("tmpfile");
		exit(99);
	}
	cap_saved = dup(2);
	dup2(fileno(cap_fp), 2);
}

/* Restore stderr; return what was written (caller frees). */
static inline char *
cap_end(void)
{
	char *buf;
	long n;

	fflush(stderr);
	dup2(cap_saved, 2);
	close(cap_saved);
	n = ftell(cap_fp);
	buf = calloc(1, (size_t)(n > 0 ? n : 0) + 1);
	rewind(cap_fp);
	if (n > 0 && fread(buf, 1, (size_t)n, cap_fp) != (size_t)n)
		buf[0] = 0;
	fclose(cap_fp);
	return buf;
}

/*
 * The source tree's top directory: the current directory when it holds
 * tests/data, else three levels above the test binary (B/tests/test_x).
 */
static char cap_top[4096] = ".";

static inline void
cap_find_top(const char *argv0)
{
	struct stat st;
	const char *slash;
	size_t n;

	if (!stat("tests/data", &st))
		return;
	slash = strrchr(argv0, '/');
	n = slash ? (size_t)(slash - argv0) : 0;
	snprintf(cap_top, sizeof(cap_top), "%.*s%s../../..", (int)n, argv0,
		 n ? "/" : "");
}

/* cap_top + "/" + rel, in a static buffer (one at a time). */
static inline const char *
cap_path(const char *rel)
{
	static char buf[8192];

	snprintf(buf, sizeof(buf), "%s/%s", cap_top, rel);
	return buf;
}

/*
 * Check that a call returned -1 and printed exactly want (one line, no
 * newline in want).  In the message, the prefix cap_top + "/" is removed
 * so expectations can name fixtures relative to the source tree.
 */
#define CHECK_ERR(call, want)                                                 \
	do {                                                                  \
		char *c_got, *c_msg, c_pre[4200];                             \
		int c_rc;                                                     \
		size_t c_n;                                                   \
		cap_begin();                                                  \
		c_rc = (call);                                                \
		c_got = cap_end();                                            \
		c_n = strlen(c_got);                                          \
		if (c_n && c_got[c_n - 1] == '\n')                            \
			c_got[--c_n] = 0;                                     \
		snprintf(c_pre, sizeof(c_pre), "pd2bw: %s/", cap_top);        \
		c_msg = c_got;                                                \
		if (!strncmp(c_got, c_pre, strlen(c_pre))) {                  \
			c_msg = c_got + strlen(c_pre) - 7;                    \
			memcpy(c_msg, "pd2bw: ", 7);                          \
		}                                                             \
		if (!h_check(c_rc == -1 && !strcmp(c_msg, (want)),            \
			     #call " fails", __FILE__, __LINE__))             \
			printf("#   rc %d, got '%s'\n#   want '%s'\n", c_rc,  \
			       c_msg, (want));                                \
		free(c_got);                                                  \
	} while (0)

/* Make a scratch directory (caller removes it with cap_rmdir). */
static inline char *
cap_mkdtemp(void)
{
	const char *t = getenv("TMPDIR");
	char *d = malloc(4200);

	snprintf(d, 4200, "%s/pd2bw-test.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(d)) {
		perror("mkdtemp");
		exit(99);
	}
	return d;
}

/* Number of entries in directory d (not counting . and ..). */
static inline int
cap_count(const char *d)
{
	DIR *dp = opendir(d);
	struct dirent *e;
	int n = 0;

	if (!dp)
		return -1;
	while ((e = readdir(dp)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(dp);
	return n;
}

/* Remove the files in d, then d (one level only). */
static inline void
cap_rmdir(char *d)
{
	DIR *dp = opendir(d);
	struct dirent *e;
	char p[8400];

	while (dp && (e = readdir(dp)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof(p), "%s/%s", d, e->d_name);
			if (unlink(p))
				rmdir(p);
		}
	if (dp)
		closedir(dp);
	rmdir(d);
	free(d);
}

/* Whole file as a string (caller frees), or NULL. */
static inline char *
cap_slurp(const char *path)
{
	FILE *fp = fopen(path, "rb");
	char *buf;
	long n;

	if (!fp)
		return NULL;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = calloc(1, (size_t)n + 1);
	if (fread(buf, 1, (size_t)n, fp) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(fp);
	return buf;
}

#endif
