/*
 * calibrate.h - compare a measured profile with the analytic estimate of
 * the same model on a catalog GPU, layer by layer, and derive the
 * achieved efficiency factors that would make the estimate match
 * (pd2bw-profile --calibrate).
 */
#ifndef PD2BW_PROF_CALIBRATE_H
#define PD2BW_PROF_CALIBRATE_H

#include <stddef.h>

#include "pd2bw/analytic.h"
#include "pd2bw/catalog.h"
#include "pd2bw/model.h"
#include "pd2bw/profile.h"

/*
 * Estimate model m on g at the microbatch sizes and tensor-parallel degree
 * of measured, compare per layer and point, and write a
 * pd2bw-calibration/1 report to path ("-" = stdout).  With kernels (the
 * pd2bw-kernels/1 breakdown of the same run, or NULL) the GEMM, attention
 * and memory-bound efficiencies are fitted each to their own kernels'
 * share of the measured time; without, one common scale.  Returns 0 or
 * -1.
 */
int prof_calibrate(const struct profile *measured, const struct model *m,
		   const struct gpu_spec *g, const char *kernels,
		   const char *path, struct gpu_spec *fitted);
/* (fitted, when not NULL, becomes a copy of *g with the fitted factors;
 * its strings are g's.) */

/*
 * The analytic class (enum analytic_class) of a measured kernel, by name:
 * pd2bw-profile's own kernels are k_* (also mangled, _Z<n>k_..., or
 * demangled, "void k_..."), its fused attention k_flash_fwd and _bwd;
 * anything else a layer runs is a cuBLASLt GEMM.
 */
int prof_kernel_class(const char *name);

/*
 * Read a pd2bw-kernels/1 breakdown from buf (name for messages) and add
 * its kernel times to km[l * meas->nmb + k][class] (microseconds) for the
 * layers and microbatch sizes of meas; *flash becomes 1 when a fused
 * attention kernel is among them.  Returns 0 or -1 (file:line:col).
 */
int prof_kernels_load_string(const char *name, const char *buf, size_t len,
			     const struct profile *meas,
			     double (*km)[ANALYTIC_NCLASS], int *flash);

#endif
