/*
 * kernels.h - per-kernel breakdowns of a profile's points, and their file,
 * pd2bw-kernels/1 (pd2bw-profile(1) --kernels): what CUPTI measured of
 * each kernel, or what the analytic estimate is made of.
 */
#ifndef PD2BW_KERNELS_H
#define PD2BW_KERNELS_H

#include <stddef.h>

#include "pd2bw/profile.h"

/* The passes a point's kernels run in. */
enum kernel_pass {
	KERNEL_PASS_FWD,    /* the forward */
	KERNEL_PASS_BWD,    /* the backward */
	KERNEL_PASS_SEL,    /* selective recomputation's, by module (full
			       recomputation runs the forward again) */
	KERNEL_NPASS
};

/* The kernels of one name in one point and pass. */
struct kernel_entry {
	int layer;          /* index in the profile's layers */
	int mb;             /* index in its microbatch sizes */
	int pass;           /* enum kernel_pass */
	char *name;
	long calls;         /* kernels */
	double ms;          /* their time, milliseconds */
};

struct kernel_list {
	struct kernel_entry *k;
	size_t n, alloc;
	int oom;            /* an allocation failed: entries are missing */
};

/* Add ms over calls kernels to the entry of (layer, mb, pass, name),
 * looking for it from entry from on (a point's first).  On allocation
 * failure sets oom. */
void kernels_add(struct kernel_list *ks, size_t from, int layer,
		     int mb, int pass, const char *name, long calls,
		     double ms);

void kernels_free(struct kernel_list *ks);

/* "forward", "backward" or "selective recompute". */
const char *kernels_pass_name(int pass);

/*
 * Write ks as a pd2bw-kernels/1 file at path ("-": stdout): one entry
 * per layer (p's name, index and repeat), microbatch size, pass and name,
 * in ks's order, with source (what timed them: "analytic", ...).
 * Returns 0 or -1 (nothing written).
 */
int kernels_write(const char *path, const struct profile *p,
		  const struct kernel_list *ks, const char *source);

#endif
