/*
 * infile.c - input files read whole and once: one open, reads to the end
 * within INFILE_MAX_BYTES, optionally kept per path for the rest of the
 * run; and the check that the bytes are UTF-8 text.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pd2bw/error.h"
#include "pd2bw/infile.h"

/* Files kept by path (infile_keep); a run reads a handful. */
struct kept {
	struct kept *next;
	char *path;
	char *buf;
	size_t len;
};
static struct kept *kept;
static int keeping;
static size_t max_bytes = INFILE_MAX_BYTES;

void
infile_limit(size_t bytes)
{
	max_bytes = bytes ? bytes : INFILE_MAX_BYTES;
}

void
infile_keep(int keep)
{
	keeping = keep != 0;
}

void
infile_forget(void)
{
	struct kept *k, *next;

	for (k = kept; k; k = next) {
		next = k->next;
		free(k->path);
		free(k->buf);
		free(k);
	}
	kept = NULL;
}

static const struct kept *
find_kept(const char *path)
{
	const struct kept *k;

	for (k = kept; k; k = k->next)
		if (!strcmp(k->path, path))
			return k;
	return NULL;
}

static int
too_large(const char *path)
{
	return pd2bw_error("%s: larger than the %zu MiB input limit", path,
			   max_bytes >> 20);
}

/* Read fd to its end into a new buffer; NULL after a message.  A NUL
 * byte ends the reading there: no text format holds one, infile_text()
 * names it, and /dev/zero is refused at once instead of after the limit's
 * worth of page faults (seconds; a minute under ASan). */
static char *
read_all(int fd, const char *path, size_t *len)
{
	struct stat st;
	size_t alloc = 65536, n = 0;
	char *buf;
	ssize_t got;

	/* A regular file says its size: refuse a big one before reading,
	 * and read a small one in one allocation. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		if ((unsigned long long)st.st_size > max_bytes) {
			too_large(path);
			return NULL;
		}
		alloc = (size_t)st.st_size + 1;
	}
	buf = xmalloc(alloc + 1);
	for (;;) {
		if (n == alloc) {
			if (alloc > max_bytes) {
				free(buf);
				too_large(path);
				return NULL;
			}
			alloc = alloc * 2 > max_bytes + 1 ? max_bytes + 1
							  : alloc * 2;
			buf = xrealloc(buf, alloc + 1);
		}
		got = read(fd, buf + n, alloc - n);
		if (got == 0)
			break;
		if (got < 0) {
			if (errno == EINTR)
				continue;
			pd2bw_error("cannot read '%s': %s", path,
				    strerror(errno));
			free(buf);
			return NULL;
		}
		n += (size_t)got;
		if (memchr(buf + n - (size_t)got, 0, (size_t)got))
			break;
	}
	if (n > max_bytes) {
		free(buf);
		too_large(path);
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

const char *
infile_read(const char *path, size_t *len)
{
	const struct kept *k = find_kept(path);
	struct kept *nk;
	char *buf;
	int fd;

	if (k) {
		*len = k->len;
		return k->buf;
	}
	do
		fd = open(path, O_RDONLY);
	while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		pd2bw_error("cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	buf = read_all(fd, path, len);
	close(fd);
	if (!buf || !keeping)
		return buf;
	nk = xmalloc(sizeof(*nk));
	nk->path = xstrdup(path);
	nk->buf = buf;
	nk->len = *len;
	nk->next = kept;
	kept = nk;
	return buf;
}

void
infile_release(const char *buf)
{
	const struct kept *k;

	if (!buf)
		return;
	for (k = kept; k; k = k->next)
		if (k->buf == buf)
			return;
	free((char *)buf);
}

/* "name:L:C: a NUL byte: ..." for the NUL at offset at; C counts bytes. */
static int
nul_error(const char *name, const unsigned char *b, size_t at)
{
	size_t line = 1, col = 1, i;

	for (i = 0; i < at; i++, col++)
		if (b[i] == '\n')
			line++, col = 0;
	return pd2bw_error("%s:%zu:%zu: a NUL byte: binary data, not UTF-8 "
			   "text",
			   name, line, col);
}

int
infile_text(const char *name, const char **buf, size_t *len)
{
	const unsigned char *b = (const unsigned char *)*buf;
	size_t n = *len;
	const char *enc = NULL, *bom = NULL;
	const unsigned char *z;

	if (n >= 4 && !memcmp(b, "\xff\xfe\0\0", 4))
		enc = "UTF-32LE", bom = "FF FE 00 00";
	else if (n >= 4 && !memcmp(b, "\0\0\xfe\xff", 4))
		enc = "UTF-32BE", bom = "00 00 FE FF";
	else if (n >= 2 && b[0] == 0xff && b[1] == 0xfe)
		enc = "UTF-16LE", bom = "FF FE";
	else if (n >= 2 && b[0] == 0xfe && b[1] == 0xff)
		enc = "UTF-16BE", bom = "FE FF";
	else if (n >= 4 && b[0] && !b[1] && !b[2] && !b[3])
		enc = "UTF-32LE";
	else if (n >= 4 && !b[0] && !b[1] && !b[2] && b[3])
		enc = "UTF-32BE";
	else if (n >= 2 && b[0] && !b[1])
		enc = "UTF-16LE";
	else if (n >= 2 && !b[0] && b[1])
		enc = "UTF-16BE";
	if (enc && bom)
		return pd2bw_error("%s:1:1: %s text (byte-order mark %s): "
				   "pd2bw reads UTF-8",
				   name, enc, bom);
	if (enc)
		return pd2bw_error("%s:1:1: %s text (no byte-order mark): "
				   "pd2bw reads UTF-8",
				   name, enc);
	z = memchr(b, 0, n);
	if (z)
		return nul_error(name, b, (size_t)(z - b));
	if (n >= 3 && !memcmp(b, "\xef\xbb\xbf", 3)) {
		*buf += 3;
		*len -= 3;
	}
	return 0;
}

size_t
infile_utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n, i;
	unsigned long cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}
