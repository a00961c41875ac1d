/*
 * infile.h - read an input file whole, once, within a size limit.
 *
 * Every reader of libpd2bw and of the three programs gets a file's bytes
 * through infile_read(): the file is opened once, read to the end into
 * memory and closed, and the parser and the hash (plan_hash_file) both
 * work on those bytes.  With infile_keep(1), as the programs' main()
 * sets, a second infile_read() of the same path hands out the bytes of
 * the first, so a FIFO, a pipe (/dev/stdin, <(cmd)) or a file that
 * changes while the program runs is parsed and hashed as one and the same
 * content.  An input larger than INFILE_MAX_BYTES is refused before more
 * is read.
 *
 * infile_text() then names what is not UTF-8 text: a UTF-16 or UTF-32
 * byte-order mark, UTF-16 without one, or a NUL byte (reading stops at
 * the first: /dev/zero is refused at once).
 */
#ifndef PD2BW_INFILE_H
#define PD2BW_INFILE_H

#include <stddef.h>

/* The largest input file read: 256 MiB, unless infile_limit() says. */
#define INFILE_MAX_BYTES ((size_t)256 << 20)

/* Set the largest input read to bytes (0: back to INFILE_MAX_BYTES). */
void infile_limit(size_t bytes);

/*
 * Keep (keep != 0) every file read from now on until exit, and hand out
 * the kept bytes when the same path is read again; keep == 0 forgets
 * nothing already kept but keeps no new file.  Off by default, so that a
 * library caller reading a file, rewriting it and reading it again sees
 * the new bytes.
 */
void infile_keep(int keep);

/* Free every kept file; buffers handed out for them become invalid. */
void infile_forget(void);

/*
 * The whole of path: *len bytes, followed by a NUL that *len does not
 * count.  Returns a buffer to give back with infile_release(), or NULL
 * after printing "cannot open 'path': ...", "cannot read ...", or
 * "path: larger than the 256 MiB input limit".
 */
const char *infile_read(const char *path, size_t *len);

/* Give back a buffer from infile_read() (a kept one stays); NULL is OK. */
void infile_release(const char *buf);

/*
 * Check that buf[0..*len) is text pd2bw reads (UTF-8) and step over a
 * UTF-8 byte-order mark (*buf and *len move past it).  UTF-16 and UTF-32,
 * with or without a byte-order mark, are refused with
 * "name:1:1: UTF-16LE text (byte-order mark FF FE): pd2bw reads UTF-8",
 * and a NUL byte with "name:L:C: a NUL byte: binary data, not UTF-8 text"
 * (infile_read() stops reading at the first NUL, so *len may end there).
 * Returns 0 or -1 after the message.
 */
int infile_text(const char *name, const char **buf, size_t *len);

/*
 * Length of the valid UTF-8 sequence at s (1 to 4), or 0 when it is not
 * one: a bad lead byte, a missing continuation byte (the NUL ending a
 * string is one), an overlong form, a surrogate, above U+10FFFF.
 */
size_t infile_utf8_len(const unsigned char *s);

#endif
