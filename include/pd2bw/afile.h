/*
 * afile.h - write output files without ever losing what was there.
 *
 * A regular file (or a path that does not exist yet) is written into a
 * short-named temporary file in the same directory and renamed over the
 * target only when everything was written; a symbolic link keeps pointing
 * at its (replaced) target.  Anything else that exists - a character
 * device such as /dev/null or /dev/full, a FIFO, a socket - is opened and
 * written directly, never replaced, and every write and the close are
 * checked.  "-" is standard output, also written directly.
 *
 * Several outputs of one run commit together: between afile_batch_begin()
 * and afile_batch_end() afile_commit() only finishes its temporary file,
 * and afile_batch_end() renames all of them or, if any output failed,
 * none.  Temporary files are removed on SIGINT, SIGTERM and SIGHUP.
 */
#ifndef PD2BW_AFILE_H
#define PD2BW_AFILE_H

#include <stdio.h>

struct afile {
	FILE *fp;     /* write here */
	char *path;   /* name as given (owned), for messages */
	char *dest;   /* what the temporary file is renamed to (owned) */
	char *tmp;    /* temporary name (owned); NULL when written directly */
};

/*
 * Open path for writing as described above.  Returns 0, or -1 after
 * printing why (a directory, a missing directory, no permission).
 */
int afile_open(struct afile *f, const char *path);

/*
 * Whether path can be written, checked the way afile_open would write it
 * (a temporary file in its directory, removed at once), so a long run
 * can refuse a bad output name before it starts.  "-", devices and FIFOs
 * are not opened.  Returns 0, or -1 after afile_open's message.
 */
int afile_check(const char *path);

/*
 * Flush, check for write errors and close; then rename into place, or,
 * inside a batch, leave the rename to afile_batch_end().  Returns 0, or -1
 * after printing why and removing the temporary file.  Always releases f.
 */
int afile_commit(struct afile *f);

/* Close and remove the temporary file; releases f.  Safe after commit. */
void afile_abort(struct afile *f);

/*
 * Start a batch: from now on committed temporary files wait for
 * afile_batch_end().  Batches nest: an inner end only reports whether
 * anything failed so far; the outermost renames all or nothing.
 */
void afile_batch_begin(void);

/*
 * End the batch.  With ok non-zero and no output failed since
 * afile_batch_begin(), rename every committed file into place; otherwise
 * remove them all and leave every target as it was.  Returns 0 when all
 * were renamed, -1 otherwise (after printing why for a failed rename).
 */
int afile_batch_end(int ok);

/*
 * Check that standard output was written completely (fflush, ferror,
 * fclose), as coreutils does at exit.  Returns 0, or -1 after printing
 * "write error on standard output: ...".
 */
int afile_close_stdout(void);

/*
 * For atexit() in main: afile_close_stdout(), and on failure _exit(1), so
 * that every way out of a program (--help, --version, early returns)
 * reports a lost standard output.  A second call does nothing.
 */
void afile_stdout_at_exit(void);

/*
 * Call first in main: buffers standard output in 64 KiB when it is not a
 * terminal and registers afile_stdout_at_exit().
 */
void afile_stdout_setup(void);

#endif
