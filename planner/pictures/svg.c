/*
 * svg.c - the pictures of a simulated plan as SVG 1.1: the Gantt chart of
 * its schedule (svg_timeline) and memory per stage by kind (svg_memory).
 * Coordinates are printed with two decimals and everything is in a fixed
 * order, so the files are byte-stable.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pd2bw/afile.h"
#include "pd2bw/cost.h"
#include "pd2bw/error.h"
#include "pd2bw/profile.h"
#include "pd2bw/xml.h"
#include "pictures/svg.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
#define FONT "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\""

/* Fill and text colours by sim_kind, then idle. */
static const char *const fill[] = {
	"#4e79a7", "#59a14f", "#f28e2b", "#9c755f", "#9c755f", "#b07aa1",
	"#edc948", "#76b7b2",
};
static const char *const ink[] = {
	"#ffffff", "#ffffff", "#1a1a1a", "#ffffff", "#ffffff", "#ffffff",
	"#1a1a1a", "#1a1a1a",
};
static const char *const label[] = {
	"forward", "recompute", "backward", "send (p2p)", "", "all-reduce",
	"optimizer", "all-gather",
};
static const char code[] = "FRB";
#define IDLE "#e4e4e4"

/* "gpt-2.2b: 2bw, w=2 d=4 b=1 m=4, recompute none" (escaped). */
static void
put_config(FILE *fp, const struct plan *p)
{
	const char *sched = p->sched >= 0 && p->sched < PLAN_NSCHED
				    ? plan_sched_names[p->sched] : "?";
	const char *rc = p->recompute >= 0 && p->recompute < PROF_RC_N
				 ? prof_rc_names[p->recompute] : "?";

	xml_escape(fp, p->model ? p->model : "plan", 1);
	fprintf(fp, ": %s, w=%d d=%d b=%d m=%d", sched, p->w, p->d, p->b,
		p->m);
	if (p->t > 1)
		fprintf(fp, " t=%d%s", p->t, p->sp ? "+sp" : "");
	if (p->v > 1)
		fprintf(fp, " v=%d", p->v);
	fprintf(fp, ", recompute %s", rc);
	if (p->zero)
		fprintf(fp, ", ZeRO-%d", p->zero);
	if (p->shard > 0)
		fprintf(fp, " in groups of %d", p->shard);
	if (p->offload)
		fputs(", activations offloaded", fp);
}

/* Axis step: 1, 2 or 5 times a power of ten, giving about n ticks. */
static double
nice_step(double span, int n)
{
	double raw = span / n, e, f;

	if (!(raw > 0))
		return 1;
	e = pow(10, floor(log10(raw)));
	f = raw / e;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * e;
}

/* Decimals that show step exactly (up to 3). */
static int
step_decimals(double step)
{
	int d = 0;

	while (d < 3 && fabs(step * pow(10, d) - floor(step * pow(10, d) +
						       0.5)) > 1e-9)
		d++;
	return d;
}

static void
svg_head(FILE *fp, double w, double h)
{
	fprintf(fp,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n"
		"<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
		"fill=\"#ffffff\"/>\n",
		w, h, w, h, w, h);
}

/* A legend entry at x, y; returns the x of the next one. */
static double
legend(FILE *fp, double x, double y, const char *colour, const char *text,
       int line)
{
	if (line)
		fprintf(fp,
			"<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
			"stroke=\"%s\" stroke-width=\"2\"/>\n",
			x + 6, y - 10, x + 6, y + 2, colour);
	else
		fprintf(fp,
			"<rect x=\"%.2f\" y=\"%.2f\" width=\"12\" "
			"height=\"12\" fill=\"%s\" stroke=\"#555555\" "
			"stroke-width=\"0.5\"/>\n",
			x, y - 10, colour);
	fprintf(fp, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"12\" " FONT
		">%s</text>\n",
		x + 17, y, text);
	return x + 17 + 7.0 * (double)strlen(text) + 18;
}

/* Operations drawn: those starting before the end of the window. */
static int
shown(const struct sim_op *o, double until)
{
	return o->start_ms < until || until <= 0;
}

int
svg_timeline(const char *path, const struct plan *p, const struct sim *s)
{
	struct afile f;
	FILE *fp;
	double until = sim_show_until(s), left = 120, right = 30, top = 92;
	double rowh = 26, lane = 0, gap = 8, chart_w, scale, h, y, x, step;
	double t, w, shortest = 0;
	int present[SIM_NKIND] = {0}, st, per_row = 0, dec;
	size_t i;
	char num[32];

	for (i = 0; i < s->nops; i++) {
		const struct sim_op *o = &s->ops[i];

		if (!shown(o, until))
			continue;
		present[o->kind] = 1;
		if (o->stage == 0 && o->kind <= SIM_BWD) {
			per_row++;
			if (shortest <= 0 || o->end_ms - o->start_ms < shortest)
				shortest = o->end_ms - o->start_ms;
		}
	}
	for (st = SIM_SEND_ACT; st < SIM_NKIND; st++)
		if (present[st])
			lane = 9;
	/* About 30 px per operation of the busiest row, within limits. */
	chart_w = per_row * 30.0;
	/* Interleaved chunks are short: room for "F3.1" on the shortest. */
	if (s->v > 1 && shortest > 0 && until > 0 &&
	    34 * until / shortest > chart_w)
		chart_w = 34 * until / shortest;
	chart_w = chart_w < 840 ? 840 : chart_w > 4000 ? 4000 : chart_w;
	scale = until > 0 ? chart_w / until : 1;
	h = top + s->d * (rowh + lane + gap) + 48;
	if (afile_open(&f, path))
		return -1;
	fp = f.fp;
	svg_head(fp, left + chart_w + right, h);
	fputs("<title>", fp);
	put_config(fp, p);
	fputs("</title>\n<desc>pd2bw-plan simulated schedule", fp);
	fprintf(fp, ": iteration %.6g ms, bubble %.6g", s->iter_ms,
		s->bubble_frac);
	for (st = 0; st < s->d; st++) {
		fprintf(fp, "; stage %d in flight %d, versions %d", st,
			s->stages[st].peak_in_flight,
			s->stages[st].peak_versions);
		if (s->v > 1)
			fprintf(fp, ", chunks %d", s->stages[st].peak_chunks);
	}
	fputs("</desc>\n", fp);

	/* Title, figures, legend. */
	fprintf(fp, "<text x=\"%.2f\" y=\"24\" font-size=\"16\" "
		"font-weight=\"bold\" " FONT ">", left);
	put_config(fp, p);
	fputs("</text>\n", fp);
	fprintf(fp,
		"<text x=\"%.2f\" y=\"44\" font-size=\"12\" " FONT
		">simulated iteration %.2f ms (closed form %.2f ms), idle "
		"(bubble) %.1f%%%s</text>\n",
		left, s->iter_ms, p->iter_ms, 100 * s->bubble_frac,
		s->sched == PLAN_2BW
			? "; steady state; the fill and two updates shown"
			: "; one iteration");
	x = left;
	for (st = SIM_FWD; st < SIM_NKIND; st++)
		if (present[st] && *label[st])
			x = legend(fp, x, 70, fill[st], label[st], 0);
	if (present[SIM_SEND_GRAD] && !present[SIM_SEND_ACT])
		x = legend(fp, x, 70, fill[SIM_SEND_GRAD],
			   label[SIM_SEND_ACT], 0);
	x = legend(fp, x, 70, IDLE, "idle", 0);
	if (s->sched == PLAN_2BW)
		legend(fp, x, 70, "#d62728", "weight update", 1);

	/* Rows: grey background is idle time; boxes on top. */
	fprintf(fp, "<defs><clipPath id=\"chart\"><rect x=\"%.2f\" "
		"y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/></clipPath>"
		"</defs>\n",
		left, top, chart_w, s->d * (rowh + lane + gap));
	for (st = 0; st < s->d; st++) {
		const struct plan_stage *ps =
			st < p->nstages ? &p->stages[st] : NULL;

		y = top + st * (rowh + lane + gap);
		fprintf(fp,
			"<text x=\"%.2f\" y=\"%.2f\" font-size=\"12\" "
			"font-weight=\"bold\" text-anchor=\"end\" " FONT
			">stage %d</text>\n",
			left - 8, y + 12, st);
		if (ps)
			fprintf(fp,
				"<text x=\"%.2f\" y=\"%.2f\" font-size=\"10\" "
				"text-anchor=\"end\" fill=\"#555555\" " FONT
				">layers %d-%d</text>\n",
				left - 8, y + 24, ps->first, ps->last);
		fprintf(fp,
			"<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
			"height=\"%.2f\" fill=\"%s\"/>\n",
			left, y, chart_w, rowh, IDLE);
		if (lane > 0)
			fprintf(fp,
				"<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
				"height=\"%.2f\" fill=\"#f4f4f4\"/>\n",
				left, y + rowh + 1, chart_w, lane - 2);
	}
	fputs("<g clip-path=\"url(#chart)\" stroke=\"#ffffff\" "
	      "stroke-width=\"0.5\">\n", fp);
	for (i = 0; i < s->nops; i++) {
		const struct sim_op *o = &s->ops[i];

		if (!shown(o, until))
			continue;
		y = top + o->stage * (rowh + lane + gap);
		x = left + o->start_ms * scale;
		w = (o->end_ms - o->start_ms) * scale;
		if (o->kind <= SIM_BWD)
			fprintf(fp,
				"<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
				"height=\"%.2f\" fill=\"%s\"/>\n",
				x, y, w, rowh, fill[o->kind]);
		else
			fprintf(fp,
				"<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
				"height=\"%.2f\" fill=\"%s\" "
				"stroke-width=\"0.3\"/>\n",
				x, y + rowh + 1, w, lane - 2, fill[o->kind]);
	}
	fputs("</g>\n", fp);
	/* Microbatch numbers where they fit (about 7 px a character);
	 * interleaved, F3.1 is microbatch 3's forward through chunk 1. */
	fputs("<g font-size=\"11\" text-anchor=\"middle\" " FONT ">\n", fp);
	for (i = 0; i < s->nops; i++) {
		const struct sim_op *o = &s->ops[i];

		if (!shown(o, until) || o->kind > SIM_BWD)
			continue;
		if (s->v > 1)
			snprintf(num, sizeof(num), "%c%d.%d", code[o->kind],
				 o->mb, o->chunk);
		else
			snprintf(num, sizeof(num), "%c%d", code[o->kind],
				 o->mb);
		w = (fmin(o->end_ms, until) - o->start_ms) * scale;
		if (w < 7.0 * (double)strlen(num) + 2)
			continue;
		x = left + o->start_ms * scale + w / 2;
		y = top + o->stage * (rowh + lane + gap);
		fprintf(fp, "<text x=\"%.2f\" y=\"%.2f\" fill=\"%s\">%s</text>\n",
			x, y + rowh / 2 + 4, ink[o->kind], num);
	}
	fputs("</g>\n", fp);
	/* 2bw: a new weight version at each stage's last backward. */
	if (s->sched == PLAN_2BW)
		for (i = 0; i < s->nops; i++) {
			const struct sim_op *o = &s->ops[i];

			if (o->kind != SIM_BWD || o->mb % s->m != s->m - 1 ||
			    o->end_ms > until)
				continue;
			x = left + o->end_ms * scale;
			y = top + o->stage * (rowh + lane + gap);
			fprintf(fp,
				"<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
				"y2=\"%.2f\" stroke=\"#d62728\" "
				"stroke-width=\"2\"/>\n",
				x, y - 3, x, y + rowh + 3);
		}

	/* Time axis. */
	y = top + s->d * (rowh + lane + gap);
	step = nice_step(until, 10);
	dec = step_decimals(step);
	fprintf(fp,
		"<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
		"stroke=\"#333333\"/>\n",
		left, y, left + chart_w, y);
	for (t = 0; t <= until * (1 + 1e-9); t += step) {
		x = left + t * scale;
		fprintf(fp,
			"<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
			"stroke=\"#333333\"/>\n"
			"<text x=\"%.2f\" y=\"%.2f\" font-size=\"11\" "
			"text-anchor=\"middle\" " FONT ">%.*f</text>\n",
			x, y, x, y + 5, x, y + 18, dec, t);
	}
	fprintf(fp,
		"<text x=\"%.2f\" y=\"%.2f\" font-size=\"12\" "
		"text-anchor=\"end\" " FONT ">time (ms)</text>\n",
		left - 8, y + 18);
	fputs("</svg>\n", fp);
	return afile_commit(&f);
}

int
svg_memory(const char *path, const struct plan *p, const struct sim *s)
{
	static const char *const kcol[] = {"#4e79a7", "#f28e2b", "#59a14f",
					   "#bab0ac"};
	static const char *const kname[] = {
		"weights", "gradients + optimizer", "activation stashes",
		"workspace"};
	struct afile f;
	FILE *fp;
	double cap = (double)(p->gpu_mem_bytes - p->reserve_bytes) / GIB;
	double dev = (double)p->gpu_mem_bytes / GIB, top_v = dev;
	double left = 80, top = 92, ch = 300, barw = 56, pitch = 96, w, y;
	double x, step, v, base;
	int st, k, dec;

	for (st = 0; st < p->nstages; st++)
		if ((double)p->stages[st].mem_bytes / GIB > top_v)
			top_v = (double)p->stages[st].mem_bytes / GIB;
	if (!(top_v > 0))
		top_v = 1;
	step = nice_step(top_v * 1.08, 6);
	dec = step_decimals(step);
	top_v = ceil(top_v * 1.08 / step) * step;
	w = left + 40 + p->nstages * pitch + 170;
	if (w < 720)
		w = 720;
	if (afile_open(&f, path))
		return -1;
	fp = f.fp;
	svg_head(fp, w, top + ch + 70);
	fputs("<title>", fp);
	put_config(fp, p);
	fputs("</title>\n", fp);
	fprintf(fp, "<text x=\"%.2f\" y=\"24\" font-size=\"16\" "
		"font-weight=\"bold\" " FONT ">Memory per GPU: ", left);
	put_config(fp, p);
	fputs("</text>\n", fp);
	fprintf(fp,
		"<text x=\"%.2f\" y=\"44\" font-size=\"12\" " FONT
		">usable %.2f GiB of ", left, cap);
	xml_escape(fp, p->gpu ? p->gpu : "the GPU", 1);
	fprintf(fp, "'s %.2f GiB (reserve %.2f GiB); peak %.2f GiB</text>\n",
		dev, (double)p->reserve_bytes / GIB,
		(double)p->peak_mem_bytes / GIB);
	x = left;
	for (k = 0; k < 4; k++)
		x = legend(fp, x, 70, kcol[k], kname[k], 0);
	legend(fp, x, 70, "#d62728", "usable", 1);

	/* Axis and grid. */
	for (v = 0; v <= top_v * (1 + 1e-9); v += step) {
		y = top + ch - v / top_v * ch;
		fprintf(fp,
			"<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
			"stroke=\"#dddddd\"/>\n"
			"<text x=\"%.2f\" y=\"%.2f\" font-size=\"11\" "
			"text-anchor=\"end\" " FONT ">%.*f</text>\n",
			left, y, left + 40 + p->nstages * pitch, y, left - 6,
			y + 4, dec, v);
	}
	fprintf(fp,
		"<text x=\"%.2f\" y=\"%.2f\" font-size=\"12\" "
		"text-anchor=\"middle\" transform=\"rotate(-90 %.2f %.2f)\" "
		FONT ">GiB per GPU</text>\n",
		left - 50, top + ch / 2, left - 50, top + ch / 2);

	for (st = 0; st < p->nstages; st++) {
		const struct plan_stage *ps = &p->stages[st];
		double part[4], total = (double)ps->mem_bytes / GIB;

		part[0] = (double)ps->weight_bytes / GIB;
		part[1] = (double)ps->state_bytes / GIB;
		part[2] = (double)ps->stash_bytes / GIB;
		part[3] = (double)ps->work_bytes / GIB;
		x = left + 40 + st * pitch;
		base = 0;
		for (k = 0; k < 4; k++) {
			double y0 = top + ch - (base + part[k]) / top_v * ch;

			fprintf(fp,
				"<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
				"height=\"%.2f\" fill=\"%s\"/>\n",
				x, y0, barw, part[k] / top_v * ch, kcol[k]);
			base += part[k];
		}
		fprintf(fp,
			"<text x=\"%.2f\" y=\"%.2f\" font-size=\"11\" "
			"text-anchor=\"middle\" fill=\"%s\" " FONT
			">%.2f</text>\n",
			x + barw / 2, top + ch - base / top_v * ch - 5,
			total > cap ? "#d62728" : "#1a1a1a", total);
		fprintf(fp,
			"<text x=\"%.2f\" y=\"%.2f\" font-size=\"12\" "
			"font-weight=\"bold\" text-anchor=\"middle\" " FONT
			">stage %d</text>\n"
			"<text x=\"%.2f\" y=\"%.2f\" font-size=\"10\" "
			"text-anchor=\"middle\" fill=\"#555555\" " FONT
			">layers %d-%d</text>\n",
			x + barw / 2, top + ch + 16, st, x + barw / 2,
			top + ch + 30, ps->first, ps->last);
		fprintf(fp,
			"<text x=\"%.2f\" y=\"%.2f\" font-size=\"10\" "
			"text-anchor=\"middle\" fill=\"#555555\" " FONT
			">",
			x + barw / 2, top + ch + 43);
		if (p->v > 1) {
			/* In microbatches' worth of stashes: the cost
			 * model's count (cost_stash_mbs()), the simulator's
			 * chunk stashes over v. */
			double est = cost_stash_mbs_of(p->sched, p->d, p->m,
						       p->v, st);

			fprintf(fp, "%.3g in flight", est);
			if (s && st < s->d && s->v == p->v &&
			    fabs((double)s->stages[st].peak_chunks / s->v -
				 est) > 1e-9)
				fprintf(fp, " (sim %.3g)",
					(double)s->stages[st].peak_chunks /
						s->v);
		} else {
			fprintf(fp, "%d in flight", ps->in_flight);
			if (s && st < s->d &&
			    s->stages[st].peak_in_flight != ps->in_flight)
				fprintf(fp, " (sim %d)",
					s->stages[st].peak_in_flight);
		}
		fputs("</text>\n", fp);
	}
	/* The two lines' labels beside them, moved apart when close. */
	y = top + ch - cap / top_v * ch;
	v = top + ch - dev / top_v * ch;
	fprintf(fp,
		"<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
		"stroke=\"#d62728\" stroke-width=\"2\"/>\n"
		"<text x=\"%.2f\" y=\"%.2f\" font-size=\"11\" fill=\"#d62728\" "
		FONT ">usable %.2f GiB</text>\n",
		left, y, left + 40 + p->nstages * pitch, y,
		left + 46 + p->nstages * pitch, y - v < 14 ? y + 12 : y + 4,
		cap);
	fprintf(fp,
		"<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
		"stroke=\"#555555\" stroke-dasharray=\"6 4\"/>\n"
		"<text x=\"%.2f\" y=\"%.2f\" font-size=\"11\" fill=\"#555555\" "
		FONT ">device %.2f GiB</text>\n",
		left, v, left + 40 + p->nstages * pitch, v,
		left + 46 + p->nstages * pitch, y - v < 14 ? v - 3 : v + 4, dev);
	fprintf(fp,
		"<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
		"stroke=\"#333333\"/>\n",
		left, top + ch, left + 40 + p->nstages * pitch, top + ch);
	fputs("</svg>\n", fp);
	return afile_commit(&f);
}
