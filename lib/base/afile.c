/*
 * afile.c - output files: temporary file + fsync + rename for regular
 * files, direct checked writes for devices, FIFOs and stdout, batches that
 * rename all or nothing, and removal of temporaries on fatal signals.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pd2bw/afile.h"
#include "pd2bw/error.h"

/*
 * Every temporary file that exists right now, for the signal handler, and
 * the committed ones waiting for the end of a batch.  A fixed table keeps
 * the handler free of anything but unlink(); a run writes a handful of
 * outputs, far below the bound.
 */
#define AFILE_MAX 64
static char *volatile live[AFILE_MAX];
static struct {
	char *tmp, *dest, *path;
} queued[AFILE_MAX];
static int nqueued, in_batch, batch_failed;

static void
on_signal(int sig)
{
	int i;

	for (i = 0; i < AFILE_MAX; i++)
		if (live[i])
			unlink(live[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
set_handlers(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		/* a signal the caller ignores (nohup) stays ignored, one it
		 * handles itself stays its own */
		if (sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler != SIG_DFL)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

static int
live_add(char *tmp)
{
	int i;

	for (i = 0; i < AFILE_MAX; i++)
		if (!live[i]) {
			live[i] = tmp;
			return 0;
		}
	return -1;
}

static void
live_remove(const char *tmp)
{
	int i;

	for (i = 0; i < AFILE_MAX; i++)
		if (live[i] == tmp)
			live[i] = NULL;
}

static void
release(struct afile *f)
{
	if (f->tmp)
		live_remove(f->tmp);
	free(f->tmp);
	free(f->dest);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

/*
 * The name to replace: path itself, or for a symbolic link the file it
 * resolves to, so the link survives.  Caller frees.
 */
static char *
destination(const char *path)
{
	struct stat st;
	char *r;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		r = realpath(path, NULL);
		if (r)
			return r;
	}
	return xstrdup(path);
}

/* "DIR/.pd2bw-XXXXXX" beside dest: short, whatever dest's own length. */
static char *
temp_name(const char *dest)
{
	const char *slash = strrchr(dest, '/');
	size_t dlen = slash ? (size_t)(slash - dest) + 1 : 0;
	char *t = xmalloc(dlen + 16);

	memcpy(t, dest, dlen);
	memcpy(t + dlen, ".pd2bw-XXXXXX", 14);
	return t;
}

static int
open_direct(struct afile *f, const char *path)
{
	f->fp = fopen(path, "w");
	if (!f->fp) {
		int e = errno;

		release(f);
		return pd2bw_error("cannot open '%s': %s", path, strerror(e));
	}
	return 0;
}

int
afile_open(struct afile *f, const char *path)
{
	struct stat st;
	mode_t mask;
	int fd, e;

	memset(f, 0, sizeof(*f));
	f->path = xstrdup(path);
	if (strcmp(path, "-") == 0) {
		f->fp = stdout;
		return 0;
	}
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			release(f);
			return pd2bw_error("cannot write '%s': Is a directory",
					   path);
		}
		if (!S_ISREG(st.st_mode))
			return open_direct(f, path);
	}
	f->dest = destination(path);
	f->tmp = temp_name(f->dest);
	set_handlers();
	fd = mkstemp(f->tmp);
	if (fd < 0) {
		e = errno;
		release(f);
		return pd2bw_error("cannot create '%s': %s", path,
				   strerror(e));
	}
	if (live_add(f->tmp)) {
		close(fd);
		unlink(f->tmp);
		release(f);
		return pd2bw_error("cannot create '%s': too many open outputs",
				   path);
	}
	/* the mode a plain fopen() would give; an existing file keeps its */
	mask = umask(0);
	umask(mask);
	if (stat(f->dest, &st) == 0)
		fchmod(fd, st.st_mode & 07777);
	else
		fchmod(fd, 0666 & ~mask);
	f->fp = fdopen(fd, "w");
	if (!f->fp) {
		e = errno;
		close(fd);
		unlink(f->tmp);
		release(f);
		return pd2bw_error("cannot open '%s': %s", path, strerror(e));
	}
	return 0;
}

static int
finish_stream(struct afile *f, int do_close)
{
	int ret = 0, e;

	errno = 0;
	if (fflush(f->fp) || ferror(f->fp)) {
		e = errno ? errno : EIO;
		ret = pd2bw_error("cannot write '%s': %s", f->path,
				  strerror(e));
	}
	if (!ret && f->tmp && fsync(fileno(f->fp))) {
		e = errno;
		ret = pd2bw_error("cannot write '%s': %s", f->path,
				  strerror(e));
	}
	if (do_close && fclose(f->fp) && !ret) {
		e = errno;
		ret = pd2bw_error("cannot write '%s': %s", f->path,
				  strerror(e));
	}
	f->fp = NULL;
	return ret;
}

static int
rename_into_place(const char *tmp, const char *dest, const char *path)
{
	if (rename(tmp, dest) == 0)
		return 0;
	{
		int e = errno;

		unlink(tmp);
		return pd2bw_error("cannot replace '%s': %s", path,
				   strerror(e));
	}
}

int
afile_check(const char *path)
{
	struct afile f;
	struct stat st;

	if (!strcmp(path, "-") ||
	    (stat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
	     !S_ISDIR(st.st_mode)))
		return 0;
	if (afile_open(&f, path))
		return -1;
	afile_abort(&f);
	return 0;
}

int
afile_commit(struct afile *f)
{
	int ret;

	if (!f->fp) {
		release(f);
		return -1;
	}
	if (f->fp == stdout && !f->tmp) {
		ret = finish_stream(f, 0);
		release(f);
		if (ret && in_batch)
			batch_failed = 1;
		return ret;
	}
	ret = finish_stream(f, 1);
	if (ret) {
		if (f->tmp)
			unlink(f->tmp);
		if (in_batch)
			batch_failed = 1;
		release(f);
		return ret;
	}
	if (!f->tmp) {
		release(f);
		return 0;
	}
	if (in_batch && nqueued < AFILE_MAX) {
		/* keep the temporary file (still live for the handler) */
		queued[nqueued].tmp = f->tmp;
		queued[nqueued].dest = f->dest;
		queued[nqueued].path = f->path;
		nqueued++;
		f->tmp = f->dest = f->path = NULL;
		release(f);
		return 0;
	}
	ret = rename_into_place(f->tmp, f->dest, f->path);
	release(f);
	return ret;
}

void
afile_abort(struct afile *f)
{
	if (f->fp && f->tmp) {
		fclose(f->fp);
		unlink(f->tmp);
	} else if (f->fp == stdout) {
		fflush(f->fp);
	} else if (f->fp) {
		fclose(f->fp);
	}
	if (f->fp && in_batch)
		batch_failed = 1;
	f->fp = NULL;
	release(f);
}

void
afile_batch_begin(void)
{
	if (in_batch++ == 0) {
		batch_failed = 0;
		nqueued = 0;
	}
}

int
afile_batch_end(int ok)
{
	int i, ret = 0;

	if (!ok)
		batch_failed = 1;
	if (in_batch > 1) {
		/* an inner batch: the outermost one renames */
		in_batch--;
		return batch_failed ? -1 : 0;
	}
	ok = ok && !batch_failed;
	for (i = 0; i < nqueued; i++) {
		if (ok && ret == 0)
			ret = rename_into_place(queued[i].tmp, queued[i].dest,
						queued[i].path);
		else
			unlink(queued[i].tmp);
		live_remove(queued[i].tmp);
		free(queued[i].tmp);
		free(queued[i].dest);
		free(queued[i].path);
	}
	nqueued = 0;
	in_batch = 0;
	batch_failed = 0;
	return ok ? ret : -1;
}

static int stdout_closed;

int
afile_close_stdout(void)
{
	int e, had;

	if (stdout_closed)
		return 0;
	stdout_closed = 1;
	/* a write that failed earlier left no errno: retry what is still
	 * buffered to learn why */
	had = ferror(stdout);
	clearerr(stdout);
	errno = 0;
	if (fflush(stdout) || ferror(stdout) || had) {
		e = errno ? errno : EIO;
		return pd2bw_error("write error on standard output: %s",
				   strerror(e));
	}
	if (fclose(stdout)) {
		e = errno;
		return pd2bw_error("write error on standard output: %s",
				   strerror(e));
	}
	return 0;
}

void
afile_stdout_at_exit(void)
{
	if (afile_close_stdout())
		_exit(1);
}

void
afile_stdout_setup(void)
{
	static char buf[1 << 16];

	/* Help texts and summaries fit whole: a full device fails them at
	 * the final flush, where the reason is still known. */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	atexit(afile_stdout_at_exit);
}
