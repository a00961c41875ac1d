/*
 * names.h - lists of names as the formats and options spell them: a
 * NULL-terminated array of names, a set of them as a bit mask (bit i for
 * names[i]).
 */
#ifndef PD2BW_NAMES_H
#define PD2BW_NAMES_H

#include <stddef.h>

/* The index of the n characters at s among names, or -1. */
int pd2bw_name_index(const char *const *names, const char *s, size_t n);

/* The names of mask's bits joined by sep into buf of n bytes (truncated
 * to fit, always terminated when n > 0). */
void pd2bw_names_join(const char *const *names, unsigned mask,
		      const char *sep, char *buf, size_t n);

#endif
