/*
 * afile.h - write a file atomically: into a temporary file beside the
 * target, renamed over it only when everything was written.  A failed or
 * interrupted run therefore never leaves half a file behind.
 */
#ifndef PD2BW_AFILE_H
#define PD2BW_AFILE_H

#include <stdio.h>

struct afile {
	FILE *fp;     /* write here */
	char *path;   /* final name (owned) */
	char *tmp;    /* temporary name (owned); NULL for stdout */
};

/*
 * Open a temporary file beside path ("-" means stdout, written directly).
 * Returns 0, or -1 after printing why.
 */
int afile_open(struct afile *f, const char *path);

/*
 * Flush, check for write errors, close and rename into place.  Returns 0,
 * or -1 after printing why and removing the temporary file.  Always
 * releases f.
 */
int afile_commit(struct afile *f);

/* Close and remove the temporary file; releases f.  Safe after commit. */
void afile_abort(struct afile *f);

#endif
