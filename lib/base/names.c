/*
 * names.c - lists of names and their bit masks (names.h).
 */
#include <stdio.h>
#include <string.h>

#include "pd2bw/names.h"

int
pd2bw_name_index(const char *const *names, const char *s, size_t n)
{
	int i;

	for (i = 0; names[i]; i++)
		if (strlen(names[i]) == n && !strncmp(names[i], s, n))
			return i;
	return -1;
}

void
pd2bw_names_join(const char *const *names, unsigned mask, const char *sep,
		 char *buf, size_t n)
{
	size_t len = 0;
	int i;

	if (n)
		buf[0] = 0;
	for (i = 0; names[i]; i++)
		if (mask & (1u << i))
			len += (size_t)snprintf(buf + len,
						len < n ? n - len : 0, "%s%s",
						len ? sep : "", names[i]);
}
