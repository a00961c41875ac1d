/*
 * test_infile.c - inputs read whole and once: a FIFO read twice gives the
 * same bytes (and the hash of them) under infile_keep(1), files over the
 * 256 MiB limit are refused before they are read, a stream at the
 * first byte past the limit, UTF-16/UTF-32 text and NUL bytes are named
 * and a UTF-8 byte-order mark stepped over; and the hash is
 * standard FNV-1a-64 (published test vectors).
 */
#define _DEFAULT_SOURCE /* mkfifo, ftruncate */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "capture.h"
#include "pd2bw/infile.h"
#include "pd2bw/model.h"
#include "pd2bw/plan.h"

static void
test_fnv(void)
{
	/* Vectors of the FNV reference (test_fnv.c, fnv1a_64): "", "a",
	 * "foobar". */
	char h[17];

	plan_hash_bytes("", 0, h);
	CHECK_STR_EQ(h, "cbf29ce484222325");
	plan_hash_bytes("a", 1, h);
	CHECK_STR_EQ(h, "af63dc4c8601ec8c");
	plan_hash_bytes("foobar", 6, h);
	CHECK_STR_EQ(h, "85944171f73967e8");
}

/* A child writes text into the FIFO once and exits. */
static pid_t
feed_fifo(const char *path, const char *text)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(path, O_WRONLY);
		size_t n = strlen(text);

		_exit(fd >= 0 && write(fd, text, n) == (ssize_t)n ? 0 : 1);
	}
	return pid;
}

static void
test_fifo(const char *dir)
{
	static const char model[] =
		"format: pd2bw-model/1\nname: fifo\nfamily: gpt\nlayers: 2\n"
		"hidden: 64\nheads: 4\nseq_len: 16\nvocab: 100\n";
	char p[4200], h1[17], h2[17];
	const char *a, *b;
	size_t la, lb;
	struct model m;
	pid_t pid;
	int st = -1;

	snprintf(p, sizeof(p), "%s/fifo", dir);
	if (!CHECK(mkfifo(p, 0600) == 0))
		return;
	pid = feed_fifo(p, model);
	infile_keep(1);
	a = infile_read(p, &la);
	/* the second read must not open the FIFO again (it would hang) */
	b = infile_read(p, &lb);
	CHECK(a && a == b && la == strlen(model) && lb == la);
	CHECK(a && !strcmp(a, model));
	model_init(&m);
	CHECK(model_load(&m, p) == 0);
	CHECK_STR_EQ(m.name, "fifo");
	model_release(&m);
	CHECK(plan_hash_file(p, h1) == 0);
	plan_hash_bytes(model, strlen(model), h2);
	CHECK_STR_EQ(h1, h2);
	infile_release(a);
	infile_release(b);
	infile_keep(0);
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	unlink(p);
}

static void
test_limit(const char *dir)
{
	char p[4200], want[4400];
	size_t len;
	int fd;

	snprintf(p, sizeof(p), "%s/big.yaml", dir);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	/* sparse: no disk is used, and nothing is read */
	CHECK(fd >= 0 && ftruncate(fd, (off_t)INFILE_MAX_BYTES + 1) == 0);
	close(fd);
	snprintf(want, sizeof(want),
		 "pd2bw: %s: larger than the 256 MiB input limit", p);
	cap_begin();
	CHECK(infile_read(p, &len) == NULL);
	{
		char *got = cap_end();

		got[strcspn(got, "\n")] = 0;
		CHECK_STR_EQ(got, want);
		free(got);
	}
	unlink(p);
	CHECK_ERR(infile_read("/nonexistent/x.yaml", &len) ? 0 : -1,
		  "pd2bw: cannot open '/nonexistent/x.yaml': No such file or "
		  "directory");
}

/* The limit on a regular file and on a stream, at 1 MiB (infile_limit):
 * exactly the limit is read, one byte more is refused. */
static void
test_small_limit(const char *dir)
{
	size_t n = (size_t)1 << 20, len;
	char p[4200], *text = malloc(n + 2);
	const char *b;
	pid_t pid;
	FILE *f;

	if (!CHECK(text != NULL))
		return;
	memset(text, 'a', n + 1);
	text[n + 1] = 0;
	infile_limit(n);
	snprintf(p, sizeof(p), "%s/exact.yaml", dir);
	f = fopen(p, "w");
	CHECK(f && fwrite(text, 1, n, f) == n);
	if (f)
		fclose(f);
	b = infile_read(p, &len);
	CHECK(b && len == n);
	infile_release(b);
	unlink(p);
	snprintf(p, sizeof(p), "%s/stream", dir);
	if (CHECK(mkfifo(p, 0600) == 0)) {
		char want[4300];

		snprintf(want, sizeof(want),
			 "pd2bw: %s: larger than the 1 MiB input limit", p);
		pid = feed_fifo(p, text);
		CHECK_ERR(infile_read(p, &len) ? 0 : -1, want);
		waitpid(pid, NULL, 0);
		unlink(p);
	}
	infile_limit(0);
	free(text);
}

/* A NUL ends the reading (/dev/zero is refused at once) and is named. */
static void
test_nul(void)
{
	const char *b, *r;
	size_t len;

	b = infile_read("/dev/zero", &len);
	CHECK(b && len > 0 && len <= 65536);
	r = b;
	CHECK_ERR(infile_text("/dev/zero", &r, &len),
		  "pd2bw: /dev/zero:1:1: a NUL byte: binary data, not UTF-8 "
		  "text");
	infile_release(b);
	len = 11;
	r = "a: 1\nb: x\0y";
	CHECK_ERR(infile_text("t.yaml", &r, &len),
		  "pd2bw: t.yaml:2:5: a NUL byte: binary data, not UTF-8 text");
}
static int
text(const char *s, size_t n, const char **rest)
{
	size_t len = n;

	*rest = s;
	return infile_text("t.json", rest, &len);
}

static void
test_text(void)
{
	const char *r;

	CHECK_ERR(text("\xff\xfe{\0", 4, &r),
		  "pd2bw: t.json:1:1: UTF-16LE text (byte-order mark FF FE): "
		  "pd2bw reads UTF-8");
	CHECK_ERR(text("\xfe\xff\0{", 4, &r),
		  "pd2bw: t.json:1:1: UTF-16BE text (byte-order mark FE FF): "
		  "pd2bw reads UTF-8");
	CHECK_ERR(text("\xff\xfe\0\0{\0\0\0", 8, &r),
		  "pd2bw: t.json:1:1: UTF-32LE text (byte-order mark FF FE 00 "
		  "00): pd2bw reads UTF-8");
	CHECK_ERR(text("{\0\"\0", 4, &r),
		  "pd2bw: t.json:1:1: UTF-16LE text (no byte-order mark): "
		  "pd2bw reads UTF-8");
	CHECK_ERR(text("\0{\0\"", 4, &r),
		  "pd2bw: t.json:1:1: UTF-16BE text (no byte-order mark): "
		  "pd2bw reads UTF-8");
	CHECK(text("\xef\xbb\xbf{}", 5, &r) == 0 && !strcmp(r, "{}"));
	CHECK(text("{}", 2, &r) == 0 && !strcmp(r, "{}"));
	CHECK(text("", 0, &r) == 0);
}

int
main(int argc, char **argv)
{
	char *dir;

	(void)argc;
	cap_find_top(argv[0]);
	signal(SIGPIPE, SIG_IGN);
	dir = cap_mkdtemp();
	test_fnv();
	test_fifo(dir);
	test_limit(dir);
	test_small_limit(dir);
	test_nul();
	test_text();
	cap_rmdir(dir);
	return h_done();
}
