/*
 * datadir.c - the installed data directory, found from the executable,
 * and the resolution of model arguments (zoo names, Hugging Face model
 * directories).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pd2bw/datadir.h"

#ifndef PD2BW_DATADIR
#define PD2BW_DATADIR "/usr/local/share/pd2bw"
#endif

static int
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *
pd2bw_datadir(void)
{
	static char dir[PATH_MAX];
	static int done;
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;

	if (done)
		return dir;
	done = 1;
	snprintf(dir, sizeof(dir), "%s", PD2BW_DATADIR);
	/* DATADIR is fixed at build time; PREFIX and DESTDIR at install
	 * time may put the programs elsewhere, so look next to them
	 * first. */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return dir;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return dir;
	*slash = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return dir;
	/* <prefix>/bin/prog -> <prefix>/share/pd2bw */
	*slash = 0;
	if (strlen(exe) + sizeof("/share/pd2bw") < sizeof(exe)) {
		char cand[PATH_MAX];

		/* the result is used: at -O1, GCC cannot see that the
		 * length check above leaves room, and warns otherwise */
		if (snprintf(cand, sizeof(cand), "%s/share/pd2bw", exe) <
		    (int)sizeof(cand) && is_dir(cand))
			snprintf(dir, sizeof(dir), "%s", cand);
	}
	return dir;
}

const char *
pd2bw_resolve_model(const char *arg, char *buf, size_t n)
{
	const char *dirs[2];
	size_t i;

	if (is_dir(arg)) {
		snprintf(buf, n, "%s/config.json", arg);
		return access(buf, F_OK) == 0 ? buf : arg;
	}
	if (strchr(arg, '/') || access(arg, F_OK) == 0)
		return arg;
	dirs[0] = "models";
	dirs[1] = pd2bw_datadir();
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(buf, n, "%s%s%s.yaml", dirs[i],
			 i ? "/models/" : "/", arg);
		if (access(buf, R_OK) == 0)
			return buf;
	}
	return arg;
}
