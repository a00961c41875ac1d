/*
 * hash.h - the byte hash of pd2bw's open-addressed tables: 64-bit FNV-1a
 * (Fowler, Noll and Vo's offset basis and prime).  Tables index it by its
 * low bits, a power of two of them.
 */
#ifndef PD2BW_HASH_H
#define PD2BW_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t
pd2bw_hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 14695981039346656037ull;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ull;
	}
	return h;
}

#endif
