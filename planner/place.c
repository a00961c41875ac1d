/*
 * place.c - rank placement rules and the bandwidth of the links they use.
 */
#include <stdlib.h>

#include "pd2bw/error.h"
#include "pd2bw/plan.h"
#include "place.h"

int
place_gpu(int rule, int w, int d, int s, int r)
{
	return rule == PLAN_STAGES_IN_NODE ? r * d + s : s * w + r;
}

/* Network bandwidth between two nodes, reduced above the leaf switch. */
static double
net_bw(const struct cluster *c, int n1, int n2)
{
	double bw = c->net_gb_s;

	if (c->nodes_per_leaf > 0 &&
	    n1 / c->nodes_per_leaf != n2 / c->nodes_per_leaf &&
	    c->oversubscription > 1)
		bw /= c->oversubscription;
	return bw;
}

double
place_bw(const struct cluster *c, int g1, int g2)
{
	int gpn = c->gpus_per_node;
	int n1 = g1 / gpn, n2 = g2 / gpn;

	if (n1 == n2)
		return cluster_intra(c, g1 % gpn, g2 % gpn);
	return net_bw(c, n1, n2);
}

double
place_lat(const struct cluster *c, int g1, int g2)
{
	int gpn = c->gpus_per_node;

	return g1 / gpn == g2 / gpn ? c->intra_latency_us : c->net_latency_us;
}

void
place_links_init(struct place_links *l, int d)
{
	l->in_gb_s = xcalloc(d, sizeof(double));
	l->in_lat_us = xcalloc(d, sizeof(double));
	l->ring_gb_s = xcalloc(d, sizeof(double));
	l->ring_lat_us = xcalloc(d, sizeof(double));
}

void
place_links_release(struct place_links *l)
{
	free(l->in_gb_s);
	free(l->in_lat_us);
	free(l->ring_gb_s);
	free(l->ring_lat_us);
}

void
place_links_fill(struct place_links *l, const struct cluster *c, int rule,
		 int w, int d)
{
	int s, r;

	for (s = 0; s < d; s++) {
		double bw = 0, lat = 0;

		if (s > 0) {
			for (r = 0; r < w; r++) {
				int g1 = place_gpu(rule, w, d, s - 1, r);
				int g2 = place_gpu(rule, w, d, s, r);
				double b = place_bw(c, g1, g2);
				double t = place_lat(c, g1, g2);

				if (r == 0 || b < bw)
					bw = b;
				if (t > lat)
					lat = t;
			}
		}
		l->in_gb_s[s] = bw;
		l->in_lat_us[s] = lat;
		bw = 0;
		lat = 0;
		if (w > 1) {
			for (r = 0; r < w; r++) {
				int g1 = place_gpu(rule, w, d, s, r);
				int g2 = place_gpu(rule, w, d, s, (r + 1) % w);
				double b = place_bw(c, g1, g2);
				double t = place_lat(c, g1, g2);

				if (r == 0 || b < bw)
					bw = b;
				if (t > lat)
					lat = t;
			}
		}
		l->ring_gb_s[s] = bw;
		l->ring_lat_us[s] = lat;
	}
}
