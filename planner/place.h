/*
 * place.h - placement of a (width w, depth d) pipeline grid on the GPUs of
 * a cluster, and the link bandwidths that placement implies.
 *
 * Global GPU g sits on node g / gpus_per_node, local GPU g % gpus_per_node.
 * PLAN_STAGES_IN_NODE numbers rank = replica * d + stage (a pipeline's
 * consecutive stages are neighbours), PLAN_REPLICAS_IN_NODE numbers
 * rank = stage * w + replica (a stage's replicas are neighbours).
 */
#ifndef PD2BW_PLACE_H
#define PD2BW_PLACE_H

#include "pd2bw/cluster.h"

/* Global GPU of stage s, replica r. */
int place_gpu(int rule, int w, int d, int s, int r);

/* Bandwidth (GB/s per direction) and latency (us) between global GPUs. */
double place_bw(const struct cluster *c, int g1, int g2);
double place_lat(const struct cluster *c, int g1, int g2);

struct place_links {
	double *in_gb_s;   /* [d]: slowest replica's link from stage s-1 */
	double *in_lat_us; /* [d] */
	double *ring_gb_s; /* [d]: bottleneck of the replicas' ring */
	double *ring_lat_us;
};

/* Allocate arrays for d stages. */
void place_links_init(struct place_links *l, int d);
void place_links_release(struct place_links *l);
/* Fill l for the grid (w, d) under rule. */
void place_links_fill(struct place_links *l, const struct cluster *c,
		      int rule, int w, int d);

#endif
