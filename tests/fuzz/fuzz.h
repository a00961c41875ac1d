/*
 * fuzz.h - helpers shared by the libFuzzer targets: a private temporary
 * directory for write/read round trips, reading a file back into memory,
 * and failing loudly (abort, so libFuzzer keeps the input) when a reader
 * and its writer disagree.
 */
#ifndef PD2BW_FUZZ_H
#define PD2BW_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pd2bw/error.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fz_dir[64];
static char fz_p1[128], fz_p2[128];

static void
fz_cleanup(void)
{
	unlink(fz_p1);
	unlink(fz_p2);
	rmdir(fz_dir);
}

/* Make the private directory; writers leave dates and hosts out. */
static void
fz_setup(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(fz_dir, sizeof(fz_dir), "%s/pd2bw-fuzz-XXXXXX",
		 tmp && *tmp && strlen(tmp) < 32 ? tmp : "/tmp");
	if (!mkdtemp(fz_dir))
		pd2bw_die("cannot create '%s'", fz_dir);
	snprintf(fz_p1, sizeof(fz_p1), "%s/a.yaml", fz_dir);
	snprintf(fz_p2, sizeof(fz_p2), "%s/b.yaml", fz_dir);
	setenv("PD2BW_DETERMINISTIC", "1", 1);
	atexit(fz_cleanup);
}

/* The whole of path (caller frees); aborts when it cannot be read. */
static char *
fz_read(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	size_t alloc = 0, n;

	*len = 0;
	if (!fp) {
		fprintf(stderr, "fuzz: cannot open '%s'\n", path);
		abort();
	}
	do {
		xgrow((void **)&buf, &alloc, *len + 4096, 1);
		n = fread(buf + *len, 1, alloc - *len, fp);
		*len += n;
	} while (n > 0);
	fclose(fp);
	return buf;
}

static void
fz_fail(const char *what)
{
	fprintf(stderr, "fuzz: %s\n", what);
	abort();
}

/* Abort unless the two written files are byte-identical. */
static void
fz_same_files(void)
{
	size_t n1, n2;
	char *a = fz_read(fz_p1, &n1), *b = fz_read(fz_p2, &n2);

	if (n1 != n2 || memcmp(a, b, n1) != 0)
		fz_fail("writing what was read back changes the file");
	free(a);
	free(b);
}

/* Every target starts the same way: a private directory for round trips. */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_setup();
	return 0;
}

#endif
