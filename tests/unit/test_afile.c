/*
 * test_afile.c - output files: regular files replaced atomically, devices
 * and FIFOs written in place and never replaced, write errors reported,
 * batches renamed all or nothing, temporaries removed on signals, and
 * output names up to NAME_MAX.
 *
 * Devices are made with mknod(2) inside a scratch directory when running
 * as root, so a regression can never replace the machine's /dev/null;
 * without root the real /dev/full is used, which a non-root run cannot
 * replace either (no write permission on /dev).
 */
#define _DEFAULT_SOURCE /* mknod, makedev */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "capture.h"
#include "pd2bw/afile.h"

static int
write_file(const char *path, const char *text)
{
	struct afile f;

	if (afile_open(&f, path))
		return -1;
	fputs(text, f.fp);
	return afile_commit(&f);
}

static void
test_regular(const char *dir)
{
	char p[4200], *got;
	struct stat st;

	snprintf(p, sizeof(p), "%s/a.yaml", dir);
	CHECK_INT_EQ(write_file(p, "one\n"), 0);
	got = cap_slurp(p);
	CHECK_STR_EQ(got, "one\n");
	free(got);
	chmod(p, 0640);
	CHECK_INT_EQ(write_file(p, "two\n"), 0);
	got = cap_slurp(p);
	CHECK_STR_EQ(got, "two\n");
	free(got);
	CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0640);
	CHECK_MSG(cap_count(dir) == 1, "no temporary file is left behind");
	unlink(p);
}

static void
test_symlink(const char *dir)
{
	char p[4200], l[4200], *got;
	struct stat st;

	snprintf(p, sizeof(p), "%s/target", dir);
	snprintf(l, sizeof(l), "%s/link", dir);
	write_file(p, "old\n");
	CHECK(symlink("target", l) == 0);
	CHECK_INT_EQ(write_file(l, "new\n"), 0);
	CHECK_MSG(lstat(l, &st) == 0 && S_ISLNK(st.st_mode),
		  "a symbolic link stays a link");
	got = cap_slurp(p);
	CHECK_STR_EQ(got, "new\n");
	free(got);
	unlink(l);
	unlink(p);
}

static void
test_fifo(const char *dir)
{
	char p[4200], buf[64];
	struct stat st;
	pid_t pid;
	int fd, status;
	ssize_t n;

	snprintf(p, sizeof(p), "%s/fifo", dir);
	CHECK(mkfifo(p, 0600) == 0);
	pid = fork();
	if (pid == 0)
		_exit(write_file(p, "through the pipe\n") ? 1 : 0);
	fd = open(p, O_RDONLY);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	waitpid(pid, &status, 0);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "writing to a FIFO succeeds");
	CHECK_STR_EQ(buf, "through the pipe\n");
	CHECK_MSG(lstat(p, &st) == 0 && S_ISFIFO(st.st_mode),
		  "the FIFO is still a FIFO");
	unlink(p);
}

static void
test_devices(const char *dir)
{
	char nul[4200], full[4200], *got;
	struct stat st;
	int r;

	if (geteuid() == 0) {
		snprintf(nul, sizeof(nul), "%s/null", dir);
		snprintf(full, sizeof(full), "%s/full", dir);
		if (mknod(nul, S_IFCHR | 0666, makedev(1, 3)) ||
		    mknod(full, S_IFCHR | 0666, makedev(1, 7))) {
			h_skip("devices", "mknod refused (container?)");
			unlink(nul);
			return;
		}
	} else {
		snprintf(nul, sizeof(nul), "/dev/null");
		snprintf(full, sizeof(full), "/dev/full");
	}
	CHECK_INT_EQ(write_file(nul, "gone\n"), 0);
	CHECK_MSG(stat(nul, &st) == 0 && S_ISCHR(st.st_mode),
		  "a null device stays a character device");
	cap_begin();
	r = write_file(full, "no room\n");
	got = cap_end();
	CHECK_MSG(r == -1, "a full device is a write error");
	CHECK_MSG(strstr(got, "No space left on device") != NULL,
		  "the error says why");
	free(got);
	CHECK_MSG(stat(full, &st) == 0 && S_ISCHR(st.st_mode),
		  "a full device stays a character device");
	if (geteuid() == 0) {
		unlink(nul);
		unlink(full);
	}
}

static void
test_batch(const char *dir)
{
	char a[4200], b[4200], c[4200], *got;
	struct afile f;

	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	snprintf(c, sizeof(c), "%s/missing/c", dir);
	write_file(a, "old a\n");
	write_file(b, "old b\n");
	/* the third output fails: neither of the first two is replaced */
	afile_batch_begin();
	CHECK_INT_EQ(write_file(a, "new a\n"), 0);
	CHECK_INT_EQ(write_file(b, "new b\n"), 0);
	cap_begin();
	CHECK_INT_EQ(afile_open(&f, c), -1);
	free(cap_end());
	CHECK_INT_EQ(afile_batch_end(0), -1);
	got = cap_slurp(a);
	CHECK_STR_EQ(got, "old a\n");
	free(got);
	got = cap_slurp(b);
	CHECK_STR_EQ(got, "old b\n");
	free(got);
	CHECK_MSG(cap_count(dir) == 2, "the batch's temporaries are removed");
	/* an aborted output fails the batch even when the caller says ok */
	afile_batch_begin();
	write_file(a, "newer a\n");
	afile_open(&f, b);
	afile_abort(&f);
	CHECK_INT_EQ(afile_batch_end(1), -1);
	got = cap_slurp(a);
	CHECK_STR_EQ(got, "old a\n");
	free(got);
	/* and a good batch replaces all */
	afile_batch_begin();
	write_file(a, "new a\n");
	write_file(b, "new b\n");
	CHECK_INT_EQ(afile_batch_end(1), 0);
	got = cap_slurp(b);
	CHECK_STR_EQ(got, "new b\n");
	free(got);
	CHECK_MSG(cap_count(dir) == 2, "nothing else is left");
	unlink(a);
	unlink(b);
}

static void
test_long_name(const char *dir)
{
	char p[4200];
	size_t n = strlen(dir) + 1;

	snprintf(p, sizeof(p), "%s/", dir);
	memset(p + n, 'x', 255);
	p[n + 255] = 0;
	CHECK_MSG(write_file(p, "long\n") == 0,
		  "a 255-byte file name is written (short temporary name)");
	CHECK(access(p, F_OK) == 0);
	unlink(p);
}

static void
test_signal(const char *dir)
{
	char p[4200];
	int status, sig;
	pid_t pid;

	snprintf(p, sizeof(p), "%s/big", dir);
	for (sig = 0; sig < 3; sig++) {
		static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
		int fds[2];
		char c;

		if (pipe(fds))
			return;
		pid = fork();
		if (pid == 0) {
			struct afile f;

			/* as a program started normally has them, even when
			 * the suite runs under nohup or in the background;
			 * and never wait forever */
			signal(sigs[sig], SIG_DFL);
			alarm(20);
			close(fds[0]);
			if (afile_open(&f, p))
				_exit(3);
			fputs("partial", f.fp);
			fflush(f.fp);
			/* tell the parent the temporary file exists */
			if (write(fds[1], "x", 1) != 1)
				_exit(3);
			pause();
			_exit(4);
		}
		close(fds[1]);
		if (read(fds[0], &c, 1) != 1)
			c = 0;
		close(fds[0]);
		CHECK_MSG(c == 'x' && cap_count(dir) == 1,
			  "the temporary file exists while writing");
		kill(pid, sigs[sig]);
		waitpid(pid, &status, 0);
		CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == sigs[sig],
			  "the signal still ends the program");
		CHECK_MSG(cap_count(dir) == 0,
			  "INT, TERM and HUP remove the temporary file");
	}
}

int
main(void)
{
	char *dir = cap_mkdtemp();

	test_regular(dir);
	test_symlink(dir);
	test_fifo(dir);
	test_devices(dir);
	test_batch(dir);
	test_long_name(dir);
	test_signal(dir);
	cap_rmdir(dir);
	return h_done();
}
