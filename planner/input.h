/*
 * input.h - turn the planner's input file into a profile: a pd2bw profile
 * or PipeDream graph.txt as it is, a model (YAML or Hugging Face
 * config.json) through the analytic estimator for a catalogued GPU.
 */
#ifndef PD2BW_INPUT_H
#define PD2BW_INPUT_H

#include "pd2bw/catalog.h"
#include "pd2bw/profile.h"

/*
 * Load path into p (profile_init'ed).  For a model, gpu names the catalog
 * entry and mb[0..nmb) the microbatch sizes to estimate (nmb 0: defaults).
 * *is_model tells which it was.  Returns 0 or -1.
 */
int input_load(struct profile *p, const char *path,
	       const struct gpu_catalog *cat, const char *gpu, const int *mb,
	       int nmb, int *is_model);

#endif
