/*
 * kernel_entry.h - the entry of a kernel listing (analytic_profile_
 * kernels()) by layer, pass and name (test_lora.c, test_hybrid.c).
 */
#ifndef PD2BW_TESTS_KERNEL_ENTRY_H
#define PD2BW_TESTS_KERNEL_ENTRY_H

#include <string.h>

#include "pd2bw/kernels.h"

/* The entry of name in layer l's pass, or NULL. */
static inline const struct kernel_entry *
entry(const struct kernel_list *ks, int l, int pass, const char *name)
{
	size_t k;

	for (k = 0; k < ks->n; k++)
		if (ks->k[k].layer == l && ks->k[k].pass == pass &&
		    !strcmp(ks->k[k].name, name))
			return &ks->k[k];
	return NULL;
}

#endif
