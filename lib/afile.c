/*
 * afile.c - atomic file output: temporary file + fsync + rename.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pd2bw/afile.h"
#include "pd2bw/error.h"

int
afile_open(struct afile *f, const char *path)
{
	int fd;
	mode_t mask;
	size_t n;

	memset(f, 0, sizeof(*f));
	f->path = xstrdup(path);
	if (strcmp(path, "-") == 0) {
		f->fp = stdout;
		return 0;
	}
	n = strlen(path) + 16;
	f->tmp = xmalloc(n);
	snprintf(f->tmp, n, "%s.tmp.XXXXXX", path);
	fd = mkstemp(f->tmp);
	if (fd < 0) {
		int e = errno;

		free(f->tmp);
		free(f->path);
		f->tmp = f->path = NULL;
		return pd2bw_error("cannot create '%s': %s", path,
				   strerror(e));
	}
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	f->fp = fdopen(fd, "w");
	if (!f->fp) {
		int e = errno;

		close(fd);
		unlink(f->tmp);
		free(f->tmp);
		free(f->path);
		f->tmp = f->path = NULL;
		return pd2bw_error("cannot open '%s': %s", path, strerror(e));
	}
	return 0;
}

int
afile_commit(struct afile *f)
{
	int ret = 0;

	if (!f->fp)
		return -1;
	if (!f->tmp) {
		if (fflush(f->fp) || ferror(f->fp))
			ret = pd2bw_error("write error on standard output: %s",
					  strerror(errno));
		f->fp = NULL;
		free(f->path);
		f->path = NULL;
		return ret;
	}
	if (fflush(f->fp) || ferror(f->fp) || fsync(fileno(f->fp)))
		ret = pd2bw_error("cannot write '%s': %s", f->path,
				  strerror(errno));
	if (fclose(f->fp) && !ret)
		ret = pd2bw_error("cannot write '%s': %s", f->path,
				  strerror(errno));
	f->fp = NULL;
	if (!ret && rename(f->tmp, f->path))
		ret = pd2bw_error("cannot rename '%s' to '%s': %s", f->tmp,
				  f->path, strerror(errno));
	if (ret)
		unlink(f->tmp);
	free(f->tmp);
	free(f->path);
	f->tmp = f->path = NULL;
	return ret;
}

void
afile_abort(struct afile *f)
{
	if (f->fp && f->tmp) {
		fclose(f->fp);
		unlink(f->tmp);
	} else if (f->fp) {
		fflush(f->fp);
	}
	f->fp = NULL;
	free(f->tmp);
	free(f->path);
	f->tmp = f->path = NULL;
}
