/*
 * datadir.c - the installed data directory, found from the executable,
 * and the resolution of model arguments (zoo names, Hugging Face model
 * directories).
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pd2bw/datadir.h"
#include "pd2bw/error.h"

#ifndef PD2BW_DATADIR
#define PD2BW_DATADIR "/usr/local/share/pd2bw"
#endif

static int
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * Into dir (PATH_MAX bytes): the running executable's path without its
 * last up components (1: its directory, 2: the one above).  0, or -1
 * when it cannot be read or is not that deep.
 */
static int
exe_above(char *dir, int up)
{
	ssize_t n = readlink("/proc/self/exe", dir, PATH_MAX - 1);

	if (n <= 0)
		return -1;
	dir[n] = 0;
	while (up-- > 0) {
		char *slash = strrchr(dir, '/');

		if (!slash || slash == dir)
			return -1;
		*slash = 0;
	}
	return 0;
}

/*
 * Into dir (PATH_MAX bytes) the directory sub of base when it exists:
 * 1, else 0.  The copy's result is used: at -O1 GCC cannot see that the
 * check leaves room, and warns otherwise.
 */
static int
sub_dir(char *dir, const char *base, const char *sub)
{
	char cand[PATH_MAX + 64];

	return snprintf(cand, sizeof(cand), "%s/%s", base, sub) <
		       (int)sizeof(cand) &&
	       is_dir(cand) &&
	       snprintf(dir, PATH_MAX, "%s", cand) < PATH_MAX;
}

const char *
pd2bw_datadir(void)
{
	static char dir[PATH_MAX];
	static int done;
	char prefix[PATH_MAX];

	if (done)
		return dir;
	done = 1;
	snprintf(dir, sizeof(dir), "%s", PD2BW_DATADIR);
	/* DATADIR is fixed at build time; PREFIX and DESTDIR at install
	 * time may put the programs elsewhere, so look next to them
	 * first: <prefix>/bin/prog -> <prefix>/share/pd2bw */
	if (exe_above(prefix, 2) == 0 && !sub_dir(dir, prefix, "share/pd2bw"))
		snprintf(dir, sizeof(dir), "%s", PD2BW_DATADIR);
	return dir;
}

/*
 * The models/ of the source checkout an uninstalled program runs from
 * (<checkout>/build/prog, or build/san/prog under make check): the first
 * of the executable's parent and grandparent directories that holds this
 * file's source beside its models/.  "" when there is none.  Static
 * storage.
 */
static const char *
checkout_models(void)
{
	static char dir[PATH_MAX];
	static int done;
	char top[PATH_MAX], src[PATH_MAX + 32];
	int up;

	if (done)
		return dir;
	done = 1;
	for (up = 2; up <= 3; up++) {
		if (exe_above(top, up) != 0)
			break;
		snprintf(src, sizeof(src), "%s/lib/base/datadir.c", top);
		if (access(src, F_OK) == 0 && sub_dir(dir, top, "models"))
			return dir;
	}
	dir[0] = 0;
	return dir;
}

/* A file name the user means as a path, not a zoo name: one with an
 * extension the programs read. */
static int
file_like(const char *arg)
{
	static const char *const ext[] = {".yaml", ".yml", ".json", ".txt"};
	size_t i, n = strlen(arg);

	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
		if (n > strlen(ext[i]) &&
		    !strcmp(arg + n - strlen(ext[i]), ext[i]))
			return 1;
	return 0;
}

/* Edit distance of a and b (insertions, deletions, substitutions), or
 * a number over 64 for strings that long. */
static int
edits(const char *a, const char *b)
{
	int row[65], i, j, la = (int)strlen(a), lb = (int)strlen(b);

	if (la > 64 || lb > 64)
		return 65;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		int diag = row[0], up;

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			int best = diag + (a[i - 1] != b[j - 1]);

			up = row[j];
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

/*
 * The zoo model in dirs[0..nd) nearest to name, into near (n bytes),
 * when one is within a typo (two edits, or a quarter of the name, the
 * first in byte order of those as near): 1, else 0.
 */
static int
nearest_model(const char *name, const char *const *dirs, size_t nd,
	      char *near, size_t n)
{
	int best = (int)strlen(name) / 4 > 2 ? (int)strlen(name) / 4 : 2;
	int found = 0;
	size_t i;

	for (i = 0; i < nd; i++) {
		DIR *d = *dirs[i] ? opendir(dirs[i]) : NULL;
		struct dirent *e;

		while (d && (e = readdir(d))) {
			char stem[256];
			size_t l = strlen(e->d_name);
			int k;

			if (l <= 5 || l - 5 >= sizeof(stem) ||
			    strcmp(e->d_name + l - 5, ".yaml"))
				continue;
			memcpy(stem, e->d_name, l - 5);
			stem[l - 5] = 0;
			k = edits(name, stem);
			/* ties to the first in byte order: readdir()'s
			 * order is the file system's */
			if (k < best ||
			    (k == best && (!found || strcmp(stem, near) < 0))) {
				best = k;
				found = 1;
				snprintf(near, n, "%s", stem);
			}
		}
		if (d)
			closedir(d);
	}
	return found;
}

const char *
pd2bw_resolve_model(const char *arg, char *buf, size_t n)
{
	char installed[PATH_MAX + 16], near[256];
	const char *dirs[3];
	size_t i;

	if (is_dir(arg)) {
		snprintf(buf, n, "%s/config.json", arg);
		return access(buf, F_OK) == 0 ? buf : arg;
	}
	if (strchr(arg, '/') || access(arg, F_OK) == 0)
		return arg;
	snprintf(installed, sizeof(installed), "%s/models", pd2bw_datadir());
	dirs[0] = "models";
	dirs[1] = checkout_models();
	dirs[2] = installed;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (!*dirs[i])
			continue;
		snprintf(buf, n, "%s/%s.yaml", dirs[i], arg);
		if (access(buf, R_OK) == 0)
			return buf;
	}
	if (file_like(arg))
		return arg;
	near[0] = 0;
	nearest_model(arg, dirs, sizeof(dirs) / sizeof(dirs[0]), near,
		      sizeof(near));
	pd2bw_error("no file '%s', nor a model of that name in the zoo "
		    "(models/ here%s%s, %s)%s%s%s",
		    arg, *dirs[1] ? ", " : "", dirs[1], installed,
		    *near ? "; did you mean '" : "", near, *near ? "'?" : "");
	return NULL;
}
