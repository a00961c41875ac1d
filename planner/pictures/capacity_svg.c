/*
 * capacity_svg.c - the capacity plot as plain SVG 1.1: time to train (top)
 * and cost, or GPU-hours when no price is given (bottom), against the
 * number of GPUs, all on log axes, one line per GPU type, the deadline as
 * a dashed line and the overall best buy ringed.  Coordinates are printed
 * with one decimal, so the file is byte-stable.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "capacity.h"
#include "pictures/svg.h"
#include "pd2bw/afile.h"
#include "pd2bw/error.h"
#include "pd2bw/xml.h"

#define W 820
#define H 640
#define LEFT 86   /* plot area */
#define RIGHT 600
#define TOP1 56
#define BOT1 286
#define TOP2 336
#define BOT2 566

/* Okabe and Ito's colour-blind safe palette, yellow last. */
static const char *const colours[] = {
	"#0072b2", "#d55e00", "#009e73", "#cc79a7",
	"#e69f00", "#56b4e9", "#000000", "#f0e442",
};
#define NCOLOURS (sizeof(colours) / sizeof(colours[0]))

struct axis {
	double lo, hi;   /* data range (> 0), log scale */
	double p0, p1;   /* pixels of lo and hi */
};

static double
ax_map(const struct axis *a, double v)
{
	return a->p0 + (a->p1 - a->p0) * (log(v) - log(a->lo)) /
			       (log(a->hi) - log(a->lo));
}

/* A value for a tick label: 0.5, 2, 50, 2k, 1.5M, ... */
static void
tick_label(double v, const char *unit, char *buf, size_t n)
{
	static const char suf[] = {0, 'k', 'M', 'B', 'T'};
	int i = 0;

	while (v >= 1000 && i < 4) {
		v /= 1000;
		i++;
	}
	if (i)
		snprintf(buf, n, "%s%g%c", unit, v, suf[i]);
	else
		snprintf(buf, n, "%s%g", unit, v);
}

/* What a row plots in the bottom panel, or a value <= 0 for nothing. */
static double
bottom_value(const struct capacity *c, const struct capacity_row *r)
{
	return c->cheap_by_hours ? r->gpu_hours : r->cost_usd;
}

/* Data range of the top (which 0) or bottom (1) panel; 0 if empty. */
static int
y_range(const struct capacity *c, int which, double *lo, double *hi)
{
	int i, j, n = 0;

	*lo = INFINITY;
	*hi = 0;
	for (i = 0; i < c->ntypes; i++)
		for (j = 0; j < c->types[i].nrows; j++) {
			const struct capacity_row *r = &c->types[i].rows[j];
			double v = which ? bottom_value(c, r) : r->train_days;

			if (!r->fits || !(v > 0))
				continue;
			if (v < *lo)
				*lo = v;
			if (v > *hi)
				*hi = v;
			n++;
		}
	if (!which && c->deadline_days > 0 && n) {
		if (c->deadline_days < *lo)
			*lo = c->deadline_days;
		if (c->deadline_days > *hi)
			*hi = c->deadline_days;
	}
	return n;
}

/* Widen [lo, hi] to whole decades (at least one). */
static void
decades(double *lo, double *hi)
{
	double a = floor(log10(*lo) + 1e-9), b = ceil(log10(*hi) - 1e-9);

	if (b <= a)
		b = a + 1;
	*lo = pow(10, a);
	*hi = pow(10, b);
}

static void
y_axis(FILE *fp, const struct axis *a, const char *unit, const char *title,
       int top, int bot)
{
	static const double steps[] = {1, 2, 5};
	int nd = (int)lround(log10(a->hi / a->lo)), e, k;
	char buf[32];

	for (e = (int)lround(log10(a->lo)); e <= (int)lround(log10(a->hi));
	     e++)
		for (k = 0; k < 3; k++) {
			double v = steps[k] * pow(10, e);
			double y;

			if (v > a->hi * 1.0001 || (k && nd > 3))
				continue;
			y = ax_map(a, v);
			fprintf(fp, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
				    "y2=\"%.1f\" stroke=\"%s\"/>\n",
				LEFT, y, RIGHT, y, k ? "#eeeeee" : "#d0d0d0");
			tick_label(v, unit, buf, sizeof(buf));
			fprintf(fp, "<text x=\"%d\" y=\"%.1f\" "
				    "text-anchor=\"end\">%s</text>\n",
				LEFT - 6, y + 4, buf);
		}
	fprintf(fp, "<text x=\"18\" y=\"%.1f\" text-anchor=\"middle\" "
		    "transform=\"rotate(-90 18 %.1f)\">%s</text>\n",
		(top + bot) / 2.0, (top + bot) / 2.0, title);
}

static void
x_axis(FILE *fp, const struct axis *a, int top, int bot, int labels)
{
	int e0 = (int)floor(log2(a->lo) + 1e-9);
	int e1 = (int)ceil(log2(a->hi) - 1e-9), e, step = 1;
	char buf[32];

	while ((e1 - e0) / step > 10)
		step++;
	for (e = e0; e <= e1; e += step) {
		double v = ldexp(1, e), x;

		if (v < a->lo * 0.9999 || v > a->hi * 1.0001)
			continue;
		x = ax_map(a, v);
		fprintf(fp, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
			    "y2=\"%d\" stroke=\"#eeeeee\"/>\n",
			x, top, x, bot);
		if (labels) {
			snprintf(buf, sizeof(buf), "%.0f", v);
			fprintf(fp, "<text x=\"%.1f\" y=\"%d\" "
				    "text-anchor=\"middle\">%s</text>\n",
				x, bot + 18, buf);
		}
	}
}

/* One polyline per run of consecutive fitting sizes, and markers. */
static void
series(FILE *fp, const struct capacity *c, const struct capacity_type *t,
       int which, const struct axis *ax, const struct axis *ay,
       const char *col)
{
	int j, open = 0;

	for (j = 0; j < t->nrows; j++) {
		const struct capacity_row *r = &t->rows[j];
		double v = which ? bottom_value(c, r) : r->train_days;

		if (!r->fits || !(v > 0)) {
			if (open)
				fputs("\"/>\n", fp);
			open = 0;
			continue;
		}
		if (!open)
			fprintf(fp, "<polyline fill=\"none\" stroke=\"%s\" "
				    "stroke-width=\"2\" points=\"",
				col);
		else
			fputc(' ', fp);
		fprintf(fp, "%.1f,%.1f", ax_map(ax, r->gpus), ax_map(ay, v));
		open = 1;
	}
	if (open)
		fputs("\"/>\n", fp);
	for (j = 0; j < t->nrows; j++) {
		const struct capacity_row *r = &t->rows[j];
		double v = which ? bottom_value(c, r) : r->train_days;

		if (r->fits && v > 0)
			fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" "
				    "fill=\"%s\"/>\n",
				ax_map(ax, r->gpus), ax_map(ay, v), col);
	}
}

static void
panel(FILE *fp, const struct capacity *c, int which, const struct axis *ax,
      int top, int bot)
{
	struct axis ay;
	int i;

	fprintf(fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		    "fill=\"#ffffff\" stroke=\"#888888\"/>\n",
		LEFT, top, RIGHT - LEFT, bot - top);
	if (!y_range(c, which, &ay.lo, &ay.hi)) {
		fprintf(fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">"
			    "%s</text>\n",
			(LEFT + RIGHT) / 2, (top + bot) / 2,
			which && c->small_t >= 0 ? "no prices given"
						 : "nothing fits");
		return;
	}
	decades(&ay.lo, &ay.hi);
	ay.p0 = bot;
	ay.p1 = top;
	x_axis(fp, ax, top, bot, which);
	y_axis(fp, &ay, which && !c->cheap_by_hours ? "$" : "",
	       which ? (c->cheap_by_hours ? "GPU-hours" : "cost (USD)")
		     : "time to train (days)",
	       top, bot);
	if (!which && c->deadline_days > 0) {
		double y = ax_map(&ay, c->deadline_days);

		fprintf(fp, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			    "stroke=\"#555555\" stroke-dasharray=\"6 4\"/>\n",
			LEFT, y, RIGHT, y);
		fprintf(fp, "<text x=\"%d\" y=\"%.1f\" "
			    "fill=\"#555555\">deadline %g days</text>\n",
			LEFT + 6, y - 4, c->deadline_days);
	}
	for (i = 0; i < c->ntypes; i++)
		series(fp, c, &c->types[i], which, ax, &ay,
		       colours[i % NCOLOURS]);
	if (c->cheap_t >= 0) {
		const struct capacity_row *r =
			&c->types[c->cheap_t].rows[c->cheap_r];
		double v = which ? bottom_value(c, r) : r->train_days;

		if (v > 0)
			fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"7\" "
				    "fill=\"none\" stroke=\"#000000\" "
				    "stroke-width=\"1.5\"/>\n",
				ax_map(ax, r->gpus), ax_map(&ay, v));
	}
}

static void
legend(FILE *fp, const struct capacity *c)
{
	int i, y = TOP1 + 8;

	for (i = 0; i < c->ntypes; i++, y += 36) {
		const struct capacity_type *t = &c->types[i];

		fprintf(fp, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
			    "stroke=\"%s\" stroke-width=\"3\"/>\n",
			RIGHT + 16, y, RIGHT + 40, y, colours[i % NCOLOURS]);
		fprintf(fp, "<text x=\"%d\" y=\"%d\">", RIGHT + 46, y + 4);
		xml_escape(fp, t->gpu, 1);
		fprintf(fp, "</text>\n<text x=\"%d\" y=\"%d\" "
			    "fill=\"#555555\">",
			RIGHT + 46, y + 19);
		xml_escape(fp, t->node, 1);
		if (t->usd_per_gpu_hour >= 0)
			fprintf(fp, ", $%.2f/h", t->usd_per_gpu_hour);
		fputs("</text>\n", fp);
	}
	if (c->cheap_t >= 0) {
		fprintf(fp, "<circle cx=\"%d\" cy=\"%d\" r=\"7\" fill=\"none\" "
			    "stroke=\"#000000\" stroke-width=\"1.5\"/>\n",
			RIGHT + 28, y);
		fprintf(fp, "<text x=\"%d\" y=\"%d\">%s</text>\n", RIGHT + 46,
			y + 4,
			c->cheap_by_hours ? "fewest GPU-hours"
					  : "cheapest");
		fprintf(fp, "<text x=\"%d\" y=\"%d\" fill=\"#555555\">%s"
			    "</text>\n",
			RIGHT + 46, y + 19,
			c->deadline_days > 0 ? "meeting the deadline"
					     : "overall");
	}
}

int
capacity_write_svg(const struct capacity *c, const char *path)
{
	struct axis ax;
	struct afile f;
	char buf[32];
	int i, j;

	ax.lo = INFINITY;
	ax.hi = 0;
	for (i = 0; i < c->ntypes; i++)
		for (j = 0; j < c->types[i].nrows; j++) {
			double g = c->types[i].rows[j].gpus;

			if (!c->types[i].rows[j].fits)
				continue;
			if (g < ax.lo)
				ax.lo = g;
			if (g > ax.hi)
				ax.hi = g;
		}
	if (!(ax.hi > 0))
		ax.lo = ax.hi = 8;
	/* A little room so that end points are not on the frame. */
	ax.lo /= 1.15;
	ax.hi *= 1.15;
	ax.p0 = LEFT;
	ax.p1 = RIGHT;

	if (afile_open(&f, path))
		return -1;
	fprintf(f.fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		      "<svg xmlns=\"http://www.w3.org/2000/svg\" "
		      "version=\"1.1\" width=\"%d\" height=\"%d\" "
		      "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
		      "font-size=\"12\">\n"
		      "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
		W, H, W, H, W, H);
	fprintf(f.fp, "<text x=\"%d\" y=\"28\" font-size=\"16\" "
		      "text-anchor=\"middle\">",
		(LEFT + RIGHT) / 2);
	xml_escape(f.fp, c->model ? c->model : "unknown", 1);
	tick_label(c->tokens, "", buf, sizeof(buf));
	fprintf(f.fp, ": %s tokens, global batch %lld x %lld</text>\n", buf,
		(long long)c->batch, (long long)c->seq_len);
	panel(f.fp, c, 0, &ax, TOP1, BOT1);
	panel(f.fp, c, 1, &ax, TOP2, BOT2);
	fprintf(f.fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">GPUs"
		      "</text>\n",
		(LEFT + RIGHT) / 2, BOT2 + 42);
	legend(f.fp, c);
	fputs("</svg>\n", f.fp);
	return afile_commit(&f);
}
