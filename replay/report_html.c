/* SPDX-License-Identifier: MIT */
/*
 * report_html.c - the report as one self-contained HTML page: tables, the verdict, and one
 * latency CDF per op type as inline SVG (log-scale x, every run overlaid). No script, no
 * external resource: the file can be mailed, archived, opened offline.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "reel.h"
#include "report_int.h"

/* Okabe-Ito: tells apart for the colour-blind; the original in near-black. */
static const char *const colours[] = {"#222222", "#0072B2", "#D55E00", "#009E73",
				      "#CC79A7", "#E69F00", "#56B4E9", "#F0E442"};
#define NCOLOURS (sizeof(colours) / sizeof(colours[0]))
static const char *const dashes[] = {"", "6,3", "2,2", "8,3,2,3"};

/* Plot geometry (SVG user units): two plots side by side per op type. */
#define PW 530
#define PH 290
#define ML 56
#define MR 30
#define MT 14
#define MB 44
/* Below this many ops in every run, a distribution is a few dots: the table says it all. */
#define MIN_PLOT_OPS 3

struct axis {
	double lo, hi; /* log10 of the x range, whole decades */
	int tail;      /* y: 0 linear CDF; 1 log of the share of ops slower than x */
	double ydec;   /* tail: decades shown on y */
	int lateness;  /* x is the ops' lateness, not their latency */
};

static double px(const struct axis *a, double v)
{
	double l = log10(v < 1 ? 1 : v);
	if (l < a->lo)
		l = a->lo; /* below the axis (the fastest 0.1%): drawn at its left edge */
	return ML + (l - a->lo) / (a->hi - a->lo) * (PW - ML - MR);
}

/* frac: the share of ops <= x. */
static double py(const struct axis *a, double frac)
{
	if (!a->tail)
		return MT + (1 - frac) * (PH - MT - MB);
	double s = 1 - frac, d = s > 0 ? -log10(s) : a->ydec;
	if (d > a->ydec)
		d = a->ydec;
	return MT + d / a->ydec * (PH - MT - MB);
}

static void tick_label(double v, char *buf, size_t len)
{
	static const char *const units[] = {"ns", "µs", "ms", "s"};
	unsigned u = 0;
	while (u < 3 && v >= 1000) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, "%g %s", v, units[u]);
}

static void stroke(FILE *out, size_t run, const char *width)
{
	fprintf(out, " fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"", colours[run % NCOLOURS],
		width);
	if (run / NCOLOURS)
		fprintf(out, " stroke-dasharray=\"%s\"", dashes[(run / NCOLOURS) % 4]);
}

/* A legend entry's start: run r's line sample, its number and label; the caller closes the
 * <span> after what it adds. */
static void legend_run(FILE *out, const struct report *rep, size_t r)
{
	fputs("<span><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"34\" height=\"10\">"
	      "<line x1=\"2\" x2=\"32\" y1=\"5\" y2=\"5\"",
	      out);
	stroke(out, r, "3");
	fprintf(out, "/></svg>#%zu ", r);
	report_fmt__html_str(out, rep->runs[r].label);
}

static void cdf_path(FILE *out, const struct axis *a, const struct hist *h, size_t run)
{
	uint32_t it = 0;
	uint64_t lo, w, n, cum = 0;

	/* The original drawn wider, under the replays: still visible where a replay matches it. */
	fputs("<path", out);
	stroke(out, run, run ? "2" : "4");
	fprintf(out, " d=\"M%d %.1f", ML, py(a, 0));
	/* Within a bucket the values are taken as spread evenly: the line rises across it. */
	while (hist__next_bucket(h, &it, &lo, &w, &n)) {
		fprintf(out, " L%.1f %.1f", px(a, (double)lo), py(a, (double)cum / (double)h->n));
		cum += n;
		/* On the log tail no op is slower than the slowest: the line ends there. */
		if (a->tail && cum == h->n)
			break;
		fprintf(out, " L%.1f %.1f", px(a, (double)(lo + w)),
			py(a, (double)cum / (double)h->n));
	}
	if (!a->tail)
		fprintf(out, " L%d %.1f", PW - MR, py(a, 1));
	fputs("\"/>\n", out);
}

static void frame(FILE *out, const struct axis *a, const char *title)
{
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
		PW, PH, PW, PH);
	report_fmt__html_str(out, title);
	fprintf(out,
		"\">\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fff\" "
		"stroke=\"#999\"/>\n",
		ML, MT, PW - ML - MR, PH - MT - MB);
	if (!a->tail) {
		/* y grid: the quantiles the tables show. */
		static const double ys[] = {0, 0.25, 0.5, 0.75, 0.9, 1};
		for (size_t i = 0; i < sizeof(ys) / sizeof(ys[0]); i++)
			fprintf(
			    out,
			    "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			    "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" "
			    "text-anchor=\"end\">%g</text>\n",
			    ML, PW - MR, py(a, ys[i]), py(a, ys[i]), ML - 4, py(a, ys[i]) + 4,
			    ys[i]);
	} else {
		static const char *const labels[] = {"100%", "10%",   "1%",
						     "0.1%", "0.01%", "0.001%"};
		for (int d = 0; d <= (int)a->ydec && d < 6; d++) {
			double y = py(a, 1 - pow(10, -d));
			fprintf(
			    out,
			    "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			    "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" "
			    "text-anchor=\"end\">%s</text>\n",
			    ML, PW - MR, y, y, ML - 4, y + 4, labels[d]);
		}
	}
	/* x ticks: decades, plus 2 and 5 when the range is narrow (1-2-5). */
	int span = (int)(a->hi - a->lo);
	for (int d = (int)a->lo; d <= (int)a->hi; d++) {
		static const double steps[] = {1, 2, 5};
		for (size_t s = 0; s < (span <= 2 ? 3 : 1); s++) {
			double v = steps[s] * pow(10, d);
			if (log10(v) > a->hi + 1e-9)
				break;
			char lb[32];
			tick_label(v, lb, sizeof(lb));
			double x = px(a, v);
			fprintf(out,
				"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"%s\"/>"
				"<text x=\"%.1f\" y=\"%d\" font-size=\"11\" "
				"text-anchor=\"middle\">%s</text>\n",
				x, x, MT, PH - MB, s ? "#eee" : "#ddd", x, PH - MB + 16, lb);
		}
	}
	fprintf(out,
		"<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">%s x (log "
		"scale)</text>\n"
		"<text x=\"13\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\" "
		"transform=\"rotate(-90 13 %d)\">%s</text>\n",
		(PW + ML) / 2, PH - 8, a->lateness ? "lateness" : "latency", (PH - MB + MT) / 2,
		(PH - MB + MT) / 2,
		!a->tail       ? "share of ops &#8804; x"
		: a->lateness ? "share of ops later than x (log)"
			      : "share of ops slower than x (log)");
}

/*
 * One figure: the CDF (linear y: the bulk) and the tail (log y: p99 and beyond) of
 * hists[i] for each run i (NULL or empty: not drawn), and a legend.
 */
/* lateness: the hists are the runs' lateness, not an op type's latency (the axes' labels) */
static void plot(FILE *out, const struct report *rep, const struct hist *const *hists,
		 const char *title, int lateness)
{
	struct axis a = {.lateness = lateness};
	uint64_t mn = UINT64_MAX, mx = 0, nmax = 0;
	char b[32];

	for (size_t r = 0; r < rep->nruns; r++) {
		const struct hist *h = hists[r];
		if (!h || !h->n)
			continue;
		/* The axis starts at the fastest 0.1%, not at an outlier (or a zero). */
		uint64_t low = hist__quantile(h, 0.001);
		if (low < mn)
			mn = low;
		if (h->max > mx)
			mx = h->max;
		if (h->n > nmax)
			nmax = h->n;
	}
	if (nmax < MIN_PLOT_OPS) {
		fputs("<p class=\"note\">Too few ops to plot: see the table.</p>\n", out);
		return;
	}
	a.lo = floor(log10(mn < 1 ? 1 : (double)mn));
	a.hi = ceil(log10((double)(mx < 1 ? 1 : mx) * 1.0001));
	if (a.hi <= a.lo)
		a.hi = a.lo + 1;
	/* Tail depth: down to one op in the largest run, 10^-1 .. 10^-5. */
	a.ydec = ceil(log10((double)nmax));
	a.ydec = a.ydec < 1 ? 1 : a.ydec > 5 ? 5 : a.ydec;

	fputs("<div class=\"fig\">\n", out);
	for (a.tail = 0; a.tail < 2; a.tail++) {
		char t[160];
		snprintf(t, sizeof(t), "%s, %s", title, a.tail ? "tail" : "CDF");
		frame(out, &a, t);
		for (size_t r = 0; r < rep->nruns; r++)
			if (hists[r] && hists[r]->n)
				cdf_path(out, &a, hists[r], r);
		fputs("</svg>\n", out);
	}
	fputs("<div class=\"legend\">", out);
	for (size_t r = 0; r < rep->nruns; r++) {
		legend_run(out, rep, r);
		if (hists[r] && hists[r]->n)
			fprintf(out, " (%llu ops, p50 %s)", (unsigned long long)hists[r]->n,
				report_fmt__dur(hist__quantile(hists[r], 0.5), b, sizeof(b)));
		else
			fputs(" (no ops)", out);
		fputs("</span>\n", out);
	}
	fputs("</div></div>\n", out);
}

static void stat_cells(FILE *out, const struct hist *h)
{
	char b[32];
	fprintf(out, "<td>%llu</td>", (unsigned long long)h->n);
	for (size_t i = 0; i < 5; i++)
		fprintf(out, "<td>%s</td>",
			h->n ? report_fmt__dur(hist__quantile(h, report_quantiles[i]), b, sizeof(b))
			     : "-");
	fprintf(out, "<td>%s</td>",
		h->n ? report_fmt__dur((uint64_t)(hist__mean(h) + 0.5), b, sizeof(b)) : "-");
	fprintf(out, "<td>%s</td>", report_fmt__dur(h->total, b, sizeof(b)));
}

static void op_table(FILE *out, const struct report *rep, int k)
{
	char b[32];

	fputs("<table><tr><th>run</th><th>count</th><th>p50</th><th>p90</th><th>p99</th>"
	      "<th>p99.9</th><th>max</th><th>mean</th><th>total</th><th>errors</th>"
	      "<th>&#215;p50</th><th>&#215;p99</th><th>&#215;mean</th><th>KS D</th>"
	      "<th>change</th></tr>\n",
	      out);
	for (size_t r = 0; r < rep->nruns; r++) {
		const struct report_run *run = &rep->runs[r];
		const struct report_cmp *c = &run->cmp[k];
		fprintf(
		    out,
		    "<tr><td class=\"l\"><span class=\"sw\" style=\"background:%s\"></span>#%zu ",
		    colours[r % NCOLOURS], r);
		report_fmt__html_str(out, run->label);
		fputs("</td>", out);
		stat_cells(out, &run->kinds[k].lat);
		fprintf(out, "<td>%llu</td>", (unsigned long long)run->kinds[k].errors);
		if (r && c->valid && c->change != REPORT_MISSING) {
			static const char *const words[] = {
			    [REPORT_SAME] = "unchanged",      [REPORT_FASTER] = "faster",
			    [REPORT_SLOWER] = "slower",	      [REPORT_TAIL_ONLY] = "tail only",
			    [REPORT_FEW_OPS] = "too few ops", [REPORT_MISSING] = "missing",
			    [REPORT_MIXED] = "mixed",	      [REPORT_SHIFT] = "shifted"};
			fprintf(out, "<td>%s</td>", report_fmt__ratio(c->ratio_p50, b, sizeof(b)));
			fprintf(out, "<td>%s</td>", report_fmt__ratio(c->ratio_p99, b, sizeof(b)));
			fprintf(out, "<td>%s</td>", report_fmt__ratio(c->ratio_mean, b, sizeof(b)));
			fprintf(out, "<td>%.3f</td><td class=\"%s\">%s</td>", c->ks_d,
				words[c->change], words[c->change]);
		} else {
			fputs("<td></td><td></td><td></td><td></td><td></td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
}

static void runs_table(FILE *out, const struct report *rep)
{
	char a[32], b[32], c[32];

	/* lateness split as in the text's runs, each mark beside the number that earned it:
	 * backlog (the target's, pace not kept), wake-up (the replayer's, fell behind); the
	 * waits for other threads' ops, the third part, in the cell's title */
	fputs("<table><tr><th>run</th><th>file</th><th>engine / timing</th><th>ops</th>"
	      "<th>I/O time</th><th>span</th><th>failed</th><th>lateness p50 / p99 / max</th>"
	      "<th>&gt; 1 ms late</th><th>backlog / wake-up p99</th></tr>\n",
	      out);
	for (size_t i = 0; i < rep->nruns; i++) {
		const struct report_run *r = &rep->runs[i];
		fprintf(out,
			"<tr%s><td class=\"l\"><span class=\"sw\" style=\"background:%s\">"
			"</span>#%zu ",
			r->fell_behind ? " class=\"behind\"" : "", colours[i % NCOLOURS], i);
		report_fmt__html_str(out, r->label);
		/* The file name keeps the table narrow; the whole path shows on hover. */
		fputs("</td><td class=\"l\" title=\"", out);
		report_fmt__html_str(out, r->path);
		fputs("\">", out);
		report_fmt__html_str(out, report_fmt__base(r->path));
		fputs("</td><td class=\"l\">", out);
		if (r->is_replay) {
			report_fmt__html_str(out, r->engine ? r->engine : "?");
			fputs(" / ", out);
			report_fmt__html_str(out, r->timing ? r->timing : "?");
		}
		fprintf(out, "</td><td>%llu", (unsigned long long)r->ops_used);
		if (r->unreplayed_ops) /* the original's ops it did not issue: in no row */
			fprintf(out, " <b>(%llu not replayed)</b>", (unsigned long long)r->unreplayed_ops);
		fprintf(out, "</td><td>%s</td><td>%s</td><td>%llu</td>",
			report_fmt__dur(r->io_ns, a, sizeof(a)),
			report_fmt__dur(r->last_ns - r->first_ns, b, sizeof(b)),
			(unsigned long long)r->errors);
		if (r->lateness.n)
			fprintf(out, "<td>%s / ",
				report_fmt__dur(hist__quantile(&r->lateness, 0.5), a, sizeof(a)));
		if (r->lateness.n)
			fprintf(out, "%s / %s</td><td>%.2f%%</td>",
				report_fmt__dur(hist__quantile(&r->lateness, 0.99), b, sizeof(b)),
				report_fmt__dur(r->lateness.max, c, sizeof(c)),
				100.0 * (double)r->late_1ms / (double)r->lateness.n);
		if (r->lateness.n)
			fprintf(out,
				"<td title=\"%llu ops waited for ops of other threads: their "
				"wait p99 %s\">%s%s / %s%s</td>",
				(unsigned long long)r->order_ops,
				report_fmt__dur(hist__quantile(&r->order_waited, 0.99), c, sizeof(c)),
				report_fmt__dur(hist__quantile(&r->backlog, 0.99), a, sizeof(a)),
				r->backlogged ? " <b>pace not kept</b>" : "",
				report_fmt__dur(hist__quantile(&r->wake, 0.99), b, sizeof(b)),
				r->fell_behind ? " <b>fell behind</b>" : "");
		else
			fputs("<td></td><td></td><td></td>", out);
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
}

static void hot_table(FILE *out, const struct report *rep)
{
	const struct report_run *o = &rep->runs[0];
	char a[32], b[32];

	if (!rep->nhot)
		return;
	fputs("<h2>Hot files</h2>\n<p class=\"note\">The original's files with the most I/O time, "
	      "and the same "
	      "file's I/O time in each replay (replay / original).</p>\n<table><tr><th>file</th>"
	      "<th>share</th><th>I/O time</th><th>ops</th><th>reads</th><th>writes</th>"
	      "<th>syncs</th><th>metadata</th><th>locks</th>",
	      out);
	for (size_t r = 1; r < rep->nruns; r++)
		fprintf(out, "<th>#%zu</th>", r);
	fputs("</tr>\n", out);
	for (size_t h = 0; h < rep->nhot; h++) {
		const struct report_file *f = o->files[rep->hot[h]];
		fputs("<tr><td class=\"l\">", out);
		report_fmt__html_str(out, f->path);
		fprintf(out, "</td><td>%.1f%%</td><td>%s</td><td>%llu</td>",
			o->io_ns ? 100.0 * (double)f->total_ns / (double)o->io_ns : 0.0,
			report_fmt__dur(f->total_ns, a, sizeof(a)), (unsigned long long)f->ops);
		for (int c = 0; c < REPORT_CLASS_OTHER; c++)
			fprintf(out, "<td>%s</td>",
				f->class_ns[c] ? report_fmt__dur(f->class_ns[c], a, sizeof(a))
					       : "");
		for (size_t r = 1; r < rep->nruns; r++) {
			const struct report_file *rf = report_run__file(&rep->runs[r], f->path);
			fprintf(out, "<td>%s</td>",
				rf && f->total_ns
				    ? report_fmt__ratio((double)rf->total_ns / (double)f->total_ns,
							b, sizeof(b))
				    : "-");
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* --timeline: the dominant class's p99 (solid) and p50 (dotted) per interval, every run on
 * one plot: linear time across, log latency up, a step per interval; an interval without
 * such ops breaks the line */
static void timeline_plot(FILE *out, const struct report *rep)
{
	enum report_class cls = report_tl__class(rep);
	size_t n = report_tl__len(rep);
	uint64_t mn = UINT64_MAX, mx = 0, step = rep->runs[0].tl_ns;
	double lo, hi;
	char a[32];

	if (!step || !n)
		return;
	for (size_t r = 0; r < rep->nruns; r++)
		for (size_t i = 0; i < rep->runs[r].ntl && i < n; i++) {
			const struct hist *h = &rep->runs[r].tl[i].lat[cls];

			if (!h->n)
				continue;
			if (hist__quantile(h, 0.5) < mn)
				mn = hist__quantile(h, 0.5);
			if (hist__quantile(h, 0.99) > mx)
				mx = hist__quantile(h, 0.99);
		}
	if (!mx)
		return;
	lo = floor(log10(mn < 1 ? 1 : (double)mn));
	hi = ceil(log10((double)mx * 1.0001));
	if (hi <= lo)
		hi = lo + 1;
	fprintf(out, "<h2>Timeline</h2>\n<p class=\"note\">The %s' p99 (solid) and p50 (dotted) "
		     "per %s of each run's own clock: when a run was slow. A replay with original "
		     "timing keeps the original's clock; an afap one ends early.</p>\n",
		report_class__name(cls), report_fmt__dur(step, a, sizeof(a)));
	fprintf(out, "<div class=\"fig\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		     "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"timeline\">\n"
		     "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fff\" "
		     "stroke=\"#999\"/>\n",
		2 * PW, PH, 2 * PW, PH, ML, MT, 2 * PW - ML - MR, PH - MT - MB);
#define TL_X(t) (ML + (double)(t) / (double)(n * step) * (2 * PW - ML - MR))
#define TL_Y(v) (MT + (hi - log10((v) < 1 ? 1 : (double)(v))) / (hi - lo) * (PH - MT - MB))
	for (int d = (int)lo; d <= (int)hi; d++) {
		double y = TL_Y(pow(10, d));

		tick_label(pow(10, d), a, sizeof(a));
		fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			     "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s"
			     "</text>\n",
			ML, 2 * PW - MR, y, y, ML - 4, y + 4, a);
	}
	for (size_t i = 0; i <= n; i += n > 10 ? (n + 9) / 10 : 1) {
		tick_label((double)(i * step), a, sizeof(a));
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" "
			     "text-anchor=\"middle\">%s</text>\n",
			TL_X(i * step), PH - MB + 16, i ? a : "0");
	}
	fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">"
		     "time since the run's start</text>\n"
		     "<text x=\"13\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\" "
		     "transform=\"rotate(-90 13 %d)\">latency (log scale)</text>\n",
		PW + ML / 2, PH - 8, (PH - MB + MT) / 2, (PH - MB + MT) / 2);
	for (size_t r = 0; r < rep->nruns; r++) {
		for (int q = 0; q < 2; q++) {
			int pen = 0;

			fputs("<path", out);
			stroke(out, r, q ? "2" : (r ? "2" : "3"));
			if (q)
				fputs(" stroke-dasharray=\"1,3\"", out);
			fputs(" d=\"", out);
			for (size_t i = 0; i < rep->runs[r].ntl && i < n; i++) {
				const struct hist *h = &rep->runs[r].tl[i].lat[cls];

				if (!h->n) {
					pen = 0;
					continue;
				}
				/* a step across the interval: a lone one (an afap run's, over in one
				 * interval) is a segment, not an invisible point */
				double y = TL_Y(hist__quantile(h, q ? 0.5 : 0.99));

				fprintf(out, "%c%.1f %.1f L%.1f %.1f ", pen ? 'L' : 'M', TL_X(i * step), y,
					TL_X((i + 1) * step), y);
				pen = 1;
			}
			fputs("\"/>\n", out);
		}
	}
#undef TL_X
#undef TL_Y
	fputs("</svg>\n<div class=\"legend\">", out);
	for (size_t r = 0; r < rep->nruns; r++) {
		legend_run(out, rep, r);
		if (rep->runs[r].tl_beyond)
			fprintf(out, " (%llu ops after the last of %d intervals, not shown)",
				(unsigned long long)rep->runs[r].tl_beyond, REPORT_TL_MAX);
		fputs("</span>\n", out);
	}
	fputs("</div></div>\n", out);
}

static const char css[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px;color:#222;"
    "background:#fafafa;max-width:1160px}"
    "h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ccc}"
    "table{border-collapse:collapse;font-size:13px;margin:8px 0;background:#fff}"
    "th,td{border:1px solid #ddd;padding:3px 7px;text-align:right;white-space:nowrap}"
    "th{background:#eef}td.l{text-align:left}"
    ".sw{display:inline-block;width:12px;height:12px;margin-right:5px;vertical-align:-1px}"
    ".fig svg{margin-right:8px}.legend{font-size:12px;margin:2px 0 6px 56px}"
    ".legend span{display:inline-block;margin-right:18px}.legend svg{vertical-align:middle}"
    ".verdict{background:#fff;border-left:5px solid #0072B2;padding:8px 16px}"
    ".verdict li{margin:4px 0}.v-fell_behind,.v-errors{color:#B00}"
    ".v-pace_not_kept,.v-not_replayed{font-weight:bold}"
    "td.faster{color:#060;font-weight:bold}td.slower{color:#B00;font-weight:bold}"
    "tr.behind td{background:#fee}.note{color:#666;font-size:12px}";

int report__write_html(const struct report *rep, FILE *out)
{
	static const char *const tags[] = {"faster",	  "slower",	   "unchanged", "tail_only",
					   "fell_behind", "errors",	   "dominant",	"note",
					   "mixed",	  "pace_not_kept", "cpu_bound", "total",
					   "shifted",	  "held_by_gaps", "not_replayed", "pace_cause"};
	char name[32], title[64];
	const struct hist **hs = calloc(rep->nruns, sizeof(*hs));

	if (!hs)
		return -ENOMEM;
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		     "<title>ioreel report: ");
	report_fmt__html_str(out, report_fmt__base(rep->runs[0].path));
	fprintf(out, "</title>\n<style>%s</style></head><body>\n<h1>ioreel report: ", css);
	report_fmt__html_str(out, rep->runs[0].path);
	fprintf(out, " and %zu replay%s</h1>\n", rep->nruns - 1, rep->nruns == 2 ? "" : "s");

	fputs("<h2>Verdict</h2>\n<ul class=\"verdict\">\n", out);
	for (size_t i = 0; i < rep->nverdicts; i++) {
		fprintf(out, "<li class=\"v-%s\">", tags[rep->verdicts[i].tag]);
		report_fmt__html_str(out, rep->verdicts[i].text);
		fputs("</li>\n", out);
	}
	fputs("</ul>\n<h2>Runs</h2>\n", out);
	runs_table(out, rep);

	fprintf(
	    out,
	    "<h2>Latency by op type</h2>\n<p class=\"note\">Cumulative distribution of "
	    "each op type's latency (left) and its tail, the share of ops slower than x on a log "
	    "scale (right); every run overlaid, further left is faster. "
	    "Percentiles within %.1f%%; &#215; columns are replay / original (below 1 is "
	    "faster); KS D is the largest gap between the two CDFs (0 same, 1 disjoint).</p>\n",
	    HIST_REL_ERROR * 100);
	for (size_t i = 0; i < rep->norder; i++) {
		int k = rep->order[i];
		report_kind__name(k, name, sizeof(name));
		fputs("<h3>", out);
		report_fmt__html_str(out, name);
		fputs("</h3>\n", out);
		for (size_t r = 0; r < rep->nruns; r++)
			hs[r] = &rep->runs[r].kinds[k].lat;
		snprintf(title, sizeof(title), "%s latency CDF", name);
		plot(out, rep, hs, title, 0);
		op_table(out, rep, k);
	}

	int any_late = 0;
	for (size_t r = 0; r < rep->nruns; r++) {
		hs[r] = rep->runs[r].lateness.n ? &rep->runs[r].lateness : NULL;
		any_late |= hs[r] != NULL;
	}
	if (any_late) {
		fputs("<h2>Lateness</h2>\n<p class=\"note\">How late each replay issued its ops "
		      "against its schedule (start &#8722; scheduled time). Late ops bunch up "
		      "where the application spread them out.</p>\n",
		      out);
		plot(out, rep, hs, "lateness CDF", 1);
	}
	hot_table(out, rep);
	timeline_plot(out, rep);
	fputs("<p class=\"note\">Generated by ioreel report.</p>\n</body></html>\n", out);
	free(hs);
	return ferror(out) ? -EIO : 0;
}
