/* SPDX-License-Identifier: MIT */
/* report_text.c - the report as aligned text tables for a terminal. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reel.h"
#include "report_int.h"

/* Display width of UTF-8 text ("µs" is two bytes, one column). */
static int width(const char *s)
{
	int w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* Right-aligned cells always keep one space before them, even when s overflows w. */
static void cell(FILE *out, const char *s, int w, int left)
{
	int pad = w - width(s);
	if (!left && pad < 1)
		pad = 1;
	if (!left)
		for (; pad > 0; pad--)
			fputc(' ', out);
	fputs(s, out);
	if (left)
		for (; pad > 0; pad--)
			fputc(' ', out);
}

/* The last cols display columns of s, marked with "…" when cut. */
static const char *tail(const char *s, int cols, char *buf, size_t len)
{
	if (width(s) <= cols)
		return s;
	const char *p = s + strlen(s);
	for (int w = 0; p > s && w < cols - 1;) {
		p--;
		if (((unsigned char)*p & 0xc0) != 0x80)
			w++;
	}
	snprintf(buf, len, "…%s", p);
	return buf;
}

#define W_OP 16
#define W_RUN 24

static void header(FILE *out, const char *first)
{
	static const char *const cols[] = {"count", "p50",   "p90",  "p99",  "p99.9", "max",
					   "mean",  "total", "×p50", "×p99", "×mean", "KS D"};
	static const int w[] = {9, 9, 9, 9, 9, 9, 9, 9, 8, 8, 8, 6};
	cell(out, first, W_OP, 1);
	cell(out, "run", W_RUN, 1);
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		cell(out, cols[i], w[i], 0);
	fputc('\n', out);
}

static void row(FILE *out, const char *first, size_t ri, const char *run, const struct hist *h,
		uint64_t errors, const struct report_cmp *c)
{
	char b[40], lb[64], rb[96];

	cell(out, first, W_OP, 1);
	snprintf(rb, sizeof(rb), "#%zu %s", ri, tail(run, W_RUN - 5, lb, sizeof(lb)));
	cell(out, rb, W_RUN, 1);
	snprintf(b, sizeof(b), "%llu", (unsigned long long)h->n);
	cell(out, b, 9, 0);
	for (size_t i = 0; i < 5; i++)
		cell(out,
		     h->n ? report_fmt__dur(hist__quantile(h, report_quantiles[i]), b, sizeof(b))
			  : "-",
		     9, 0);
	cell(out, h->n ? report_fmt__dur((uint64_t)(hist__mean(h) + 0.5), b, sizeof(b)) : "-", 9,
	     0);
	cell(out, report_fmt__dur(h->total, b, sizeof(b)), 9, 0);
	if (c && c->valid && h->n && c->change != REPORT_MISSING) {
		cell(out, report_fmt__ratio(c->ratio_p50, b, sizeof(b)), 8, 0);
		cell(out, report_fmt__ratio(c->ratio_p99, b, sizeof(b)), 8, 0);
		cell(out, report_fmt__ratio(c->ratio_mean, b, sizeof(b)), 8, 0);
		snprintf(b, sizeof(b), "%.3f", c->ks_d);
		cell(out, b, 6, 0);
	}
	if (errors)
		fprintf(out, "  %llu err", (unsigned long long)errors);
	fputc('\n', out);
}

/* the replayer's own CPU per op (result meta): was the replay bound by the replayer? */
static void replayer_cpu(const struct report_run *r, FILE *out)
{
	const char *wk = report_run__meta(r, "replay.cpu_ns.workers");
	const char *ds = report_run__meta(r, "replay.cpu_ns.dispatch");
	const char *wr = report_run__meta(r, "replay.cpu_ns.writer");
	char a[32], b[32], c[32];
	double n = (double)r->ops_read;

	if (!wk || !ds || !wr || !r->ops_read)
		return;
	fprintf(out,
		"     replayer CPU per op: %s in the workers (the ops' syscalls included), %s "
		"dispatching, %s writing results\n",
		report_fmt__dur((uint64_t)(strtod(wk, NULL) / n), a, sizeof(a)),
		report_fmt__dur((uint64_t)(strtod(ds, NULL) / n), b, sizeof(b)),
		report_fmt__dur((uint64_t)(strtod(wr, NULL) / n), c, sizeof(c)));
}

/* who was slower than the app's pace, in the runs' summary: the verdict says why */
static const char *pace_limit(const struct report_run *r)
{
	if (r->replayer_limit == REPORT_LIMIT_MACHINE)
		return "the replayer, held back by other processes,";
	return r->replayer_limit ? "the replayer" : "target";
}

/* an afap replay in segments: the pauses between them are not in its span */
static void replayer_segments(const struct report_run *r, FILE *out)
{
	const char *seg = report_run__meta(r, "replay.segments");
	const char *pause = report_run__meta(r, "replay.paused_ns");
	const char *cut = report_run__meta(r, "replay.segments_cut");
	const char *carried = report_run__meta(r, "replay.carried_ops");
	char a[32];

	if (!seg || !pause || strtoull(seg, NULL, 10) < 2)
		return;
	fprintf(out,
		"     in %s segments read ahead; the %s of pauses between them (reading the trace, "
		"writing results) are not in its span\n",
		seg, report_fmt__dur(strtoull(pause, NULL, 10), a, sizeof(a)));
	if (cut && carried && strtoull(cut, NULL, 10))
		fprintf(out,
			"     %s of them cut short once a thread had run out: %s ops carried over to "
			"the next\n",
			cut, carried);
}

/*
 * How busy the machine's CPUs were during the replay, beside the capture (reel_cpu.c). An
 * application that computes between its syscalls keeps its CPUs awake; a replay's workers
 * sleep from op to op, and a syscall that starts on a CPU just woken from idle runs slower:
 * PostgreSQL's 6 us WAL writes replayed 1.1-1.3x slower at p50 on idle CPUs, 0.9x with them
 * kept busy (tests/bench_replay/idle_cpus.sh). Said when the replay's CPUs were busy less
 * than half as much as the capture's, on a capture at least REPORT_CPU_BUSY_MIN busy.
 */
#define REPORT_CPU_BUSY_MIN 0.25

static void cpu_busy(const struct report *rep, const struct report_run *r, FILE *out)
{
	const char *cap = report_run__meta(&rep->runs[0], REEL_META_CAPTURE_CPU_BUSY);
	const char *rpl = report_run__meta(r, REEL_META_REPLAY_CPU_BUSY);
	double c, p;

	if (!cap || !rpl)
		return;
	c = strtod(cap, NULL);
	p = strtod(rpl, NULL);
	fprintf(out, "     CPUs %.0f%% busy during the replay (the capture: %.0f%%)", p * 100, c * 100);
	if (c >= REPORT_CPU_BUSY_MIN && p < c / 2)
		fprintf(out,
			": its workers sleep between ops where the application kept its CPUs "
			"awake, and syscalls of a few µs run slower on a CPU just woken from idle, "
			"so here they may read slower than the target makes them");
	fputc('\n', out);
}

/*
 * The application's io_uring rings were set up with IORING_SETUP_DEFER_TASKRUN (fio's are,
 * on Linux 6.1 and later): the kernel posted their completions only when the application's
 * thread waited for them, and the recording ends each request there; the replay's rings post
 * each as it completes. fio's 4 KiB random reads on tmpfs, iodepth 16, 8 reaped at a time:
 * 14.5 requests in flight recorded, 12.2-12.6 replayed on the same tmpfs (13.6-13.8 with the
 * replay's ring set up as fio's and its reaper thread left out, an experiment: the replay's
 * threads other than the submitter that wait on a ring cannot, with DEFER_TASKRUN).
 */
static int deferred_completions(const struct report_run *o)
{
	const char *v = report_run__meta(o, REEL_META_CAPTURE_URING_SETUP);

	return v && (strtoul(v, NULL, 0) & REEL_URING_SETUP_DEFER_TASKRUN);
}

/* async requests: how many were in flight, on average, from the first submission to the
 * last completion (a replay: beside the original) */
static void async_depth(const struct report *rep, const struct report_run *r, FILE *out)
{
	const struct report_run *o = &rep->runs[0];

	if (!r->async_n)
		return;
	fprintf(out, "     %llu async requests, %.1f in flight on average over their span",
		(unsigned long long)r->async_n, report_run__async_depth(r));
	if (r != o && o->async_n)
		fprintf(out, " (the original: %.1f)", report_run__async_depth(o));
	fputc('\n', out);
	if (r != o && o->async_n && deferred_completions(o))
		fprintf(out,
			"     the application's io_uring rings deferred completions to its waits "
			"(IORING_SETUP_DEFER_TASKRUN): its requests stayed in flight until its thread "
			"asked for them; the replay's rings post each as it completes: its requests can "
			"read as ending sooner, and fewer in flight, for that alone\n");
}

/* a replay through an async engine: how many of its reads and writes were in flight, beside
 * the original's (a sync application's are one per thread at most) */
static void engine_depth(const struct report *rep, const struct report_run *r, FILE *out)
{
	const struct report_run *o = &rep->runs[0];

	if (r == o || !r->data_n || !report_run__engine_async(r))
		return;
	fprintf(out,
		"     %llu reads and writes through %s, %.1f in flight on average over their span "
		"(the original: %.1f)\n",
		(unsigned long long)r->data_n, r->engine, report_run__data_depth(r),
		report_run__data_depth(o));
}

/* async requests submitted whose completion the run does not hold: in no row above */
static void async_unreaped(const struct report_run *r, FILE *out)
{
	char kinds[256];

	if (!r->unreaped)
		return;
	fprintf(
	    out, "     %llu async requests with no completion in the trace, not measured (%s)\n",
	    (unsigned long long)r->unreaped, report_run__unreaped_kinds(r, kinds, sizeof(kinds)));
}

/* the original's ops a replay did not issue: in neither its rows nor its I/O time */
static void unreplayed(const struct report *rep, size_t ri, FILE *out)
{
	const struct report_run *r = &rep->runs[ri], *o = &rep->runs[0];
	char kinds[256], a[32];

	if (!r->unreplayed_ops)
		return;
	fprintf(out,
		"     %llu of the original's ops not replayed, %s of its I/O time (%.1f%%): %s\n",
		(unsigned long long)r->unreplayed_ops, report_fmt__dur(r->unreplayed_ns, a, sizeof(a)),
		o->io_ns ? 100.0 * (double)r->unreplayed_ns / (double)o->io_ns : 0.0,
		report__unreplayed_kinds(rep, ri, kinds, sizeof(kinds)));
}

static void runs(const struct report *rep, FILE *out)
{
	char a[32], b[32], c[32], d[32], what[256];
	const char *v;

	fprintf(out, "runs:\n");
	for (size_t i = 0; i < rep->nruns; i++) {
		const struct report_run *r = &rep->runs[i];
		fprintf(out, "  #%zu %s: %s\n", i, r->label, r->path);
		fprintf(out, "     %llu ops measured, %s of I/O over %s, %llu failed",
			(unsigned long long)r->ops_used, report_fmt__dur(r->io_ns, a, sizeof(a)),
			report_fmt__dur(r->last_ns - r->first_ns, b, sizeof(b)),
			(unsigned long long)r->errors);
		if (r->ops_nonfile)
			fprintf(out, ", %llu non-file ops left out",
				(unsigned long long)r->ops_nonfile);
		if (i && (v = report_run__meta(r, "replay.interrupted_after_ops"))) {
			const char *failed = report_run__meta(r, "replay.failed");

			fprintf(out, ", %s after %s ops of the trace (the rest not replayed%s%s)",
				failed ? "FAILED" : "INTERRUPTED", v, failed ? ": " : "",
				failed ?: "");
		}
		if (!i && (v = report_run__meta(r, REEL_META_LOST_EVENTS)) && strtoull(v, NULL, 10))
			fprintf(out, ", %s events lost by the capture (their ops are not in it)", v);
		if (i && (v = report_run__meta(r, "replay.noop_closes")) && strtoull(v, NULL, 10))
			fprintf(out, ", %s closes not replayed (fds from before the capture, "
				     "never opened in the replay)", v);
		if (r->damaged)
			fprintf(out, ", damaged at byte %llu: %s",
				(unsigned long long)r->damage.first_offset,
				reel_damage_sum__describe(&r->damage, what, sizeof(what)));
		if (r->unmatched)
			fprintf(out, ", %llu async completions without submission",
				(unsigned long long)r->unmatched);
		fputc('\n', out);
		if (report_run__meta(r, REEL_META_SLICE_SOURCE_DAMAGE))
			fprintf(out, "     a slice of a damaged trace, it lacks what that lost: %s\n",
				report_run__meta(r, REEL_META_SLICE_SOURCE_DAMAGE));
		unreplayed(rep, i, out);
		async_depth(rep, r, out);
		async_unreaped(r, out);
		engine_depth(rep, r, out);
		if (r->is_replay) {
			const char *speed = report_run__meta(r, REEL_META_REPLAY_SPEED);
			fprintf(out, "     engine %s, timing %s", r->engine ? r->engine : "?",
				r->timing ? r->timing : "?");
			if (speed && strtod(speed, NULL) != 1.0)
				fprintf(out, ", speed %s", speed);
			fputc('\n', out);
			replayer_cpu(r, out);
			replayer_segments(r, out);
			cpu_busy(rep, r, out);
		}
		/* Each mark beside the number that earned it, in the verdict's order: a FELL
		 * BEHIND on the whole lateness read as if all of it were the replayer's, when
		 * most of it can be the target's backlog. */
		if (r->lateness.n)
			fprintf(out,
				"     lateness (start - schedule): p50 %s, p99 %s, max %s; %.2f%% "
				"of ops > 1 ms late\n",
				report_fmt__dur(hist__quantile(&r->lateness, 0.5), a, sizeof(a)),
				report_fmt__dur(hist__quantile(&r->lateness, 0.99), b, sizeof(b)),
				report_fmt__dur(r->lateness.max, c, sizeof(c)),
				100.0 * (double)r->late_1ms / (double)r->lateness.n);
		if (r->lateness.n)
			fprintf(out,
				"       of which waiting for the previous op (%s slower than "
				"the app's pace): p99 %s%s; wake-up lateness p50 %s, p99 %s, "
				"max %s%s\n",
				pace_limit(r),
				report_fmt__dur(hist__quantile(&r->backlog, 0.99), a, sizeof(a)),
				r->backlogged ? " ** PACE NOT KEPT **" : "",
				report_fmt__dur(hist__quantile(&r->wake, 0.5), b, sizeof(b)),
				report_fmt__dur(hist__quantile(&r->wake, 0.99), c, sizeof(c)),
				report_fmt__dur(r->wake.max, d, sizeof(d)),
				r->fell_behind ? " ** FELL BEHIND **" : "");
		if (r->order_ops)
			fprintf(out,
				"       and waiting for ops of other threads they are kept after "
				"(the target's where those were slow): %llu ops, their wait p50 %s, "
				"p99 %s, max %s\n",
				(unsigned long long)r->order_ops,
				report_fmt__dur(hist__quantile(&r->order_waited, 0.5), c, sizeof(c)),
				report_fmt__dur(hist__quantile(&r->order_waited, 0.99), a, sizeof(a)),
				report_fmt__dur(r->order.max, b, sizeof(b)));
	}
	fputc('\n', out);
}

static void by_op(const struct report *rep, FILE *out)
{
	char name[32];

	fprintf(out, "latency by op type (×: replay / original, below 1 is faster; KS D: distance "
		     "to the original's distribution, 0 same .. 1 disjoint):\n");
	header(out, "op");
	for (size_t i = 0; i < rep->norder; i++) {
		int k = rep->order[i];
		report_kind__name(k, name, sizeof(name));
		for (size_t r = 0; r < rep->nruns; r++) {
			const struct report_run *run = &rep->runs[r];
			if (!run->kinds[k].lat.n && r)
				continue;
			row(out, r ? "" : name, r, run->label, &run->kinds[k].lat,
			    run->kinds[k].errors, r ? &run->cmp[k] : NULL);
		}
	}
	fputc('\n', out);
}

static const struct report_fkind *fkind(const struct report_file *f, unsigned kind)
{
	for (size_t i = 0; f && i < f->nkinds; i++)
		if (f->kinds[i].kind == kind)
			return &f->kinds[i];
	return NULL;
}

static void by_file(const struct report *rep, FILE *out)
{
	const struct report_run *o = &rep->runs[0];
	char name[32], pb[256];

	fprintf(out, "latency by file (the %zu with the most I/O time in the original):\n",
		rep->nhot);
	for (size_t h = 0; h < rep->nhot; h++) {
		const struct report_file *f = o->files[rep->hot[h]];
		fprintf(out, "%s\n", f->path);
		header(out, "  op");
		for (size_t i = 0; i < f->nkinds; i++) {
			unsigned k = f->kinds[i].kind;
			snprintf(pb, sizeof(pb), "  %s", report_kind__name(k, name, sizeof(name)));
			for (size_t r = 0; r < rep->nruns; r++) {
				const struct report_fkind *fk =
				    fkind(report_run__file(&rep->runs[r], f->path), k);
				if (!fk)
					continue;
				struct report_cmp c;
				report__cmp(&f->kinds[i].lat, &fk->lat, &c);
				row(out, r ? "" : pb, r, rep->runs[r].label, &fk->lat, 0,
				    r ? &c : NULL);
			}
		}
	}
	fputc('\n', out);
}

static void hot_files(const struct report *rep, FILE *out)
{
	const struct report_run *o = &rep->runs[0];
	char a[32], b[32];

	if (!rep->nhot)
		return;
	fprintf(out, "hot files (original, by I/O time):\n");
	for (size_t h = 0; h < rep->nhot; h++) {
		const struct report_file *f = o->files[rep->hot[h]];
		fprintf(out, "  %5.1f%% %9s %8llu ops  %s  (",
			o->io_ns ? 100.0 * (double)f->total_ns / (double)o->io_ns : 0.0,
			report_fmt__dur(f->total_ns, a, sizeof(a)), (unsigned long long)f->ops,
			f->path);
		int first = 1;
		for (int c = 0; c < REPORT_CLASSES; c++) {
			double share =
			    f->total_ns ? (double)f->class_ns[c] / (double)f->total_ns : 0;
			if (!f->class_ns[c])
				continue;
			if (share >= 0.005)
				fprintf(out, "%s%s %.0f%%", first ? "" : ", ",
					report_class__name(c), share * 100);
			else
				fprintf(out, "%s%s <1%%", first ? "" : ", ", report_class__name(c));
			first = 0;
		}
		fprintf(out, ")");
		/* The same file in each replay: its total time against the original's. */
		for (size_t r = 1; r < rep->nruns; r++) {
			const struct report_file *rf = report_run__file(&rep->runs[r], f->path);
			if (rf && f->total_ns)
				fprintf(
				    out, " #%zu %s", r,
				    report_fmt__ratio((double)rf->total_ns / (double)f->total_ns, b,
						      sizeof(b)));
		}
		fputc('\n', out);
	}
	fputc('\n', out);
}

/* --timeline: one row per interval, each run's ops and the dominant class's p50 / p99 */
static void timeline(const struct report *rep, FILE *out)
{
	enum report_class cls = report_tl__class(rep);
	size_t n = report_tl__len(rep);
	char a[32], b[32];

	if (!rep->runs[0].tl_ns)
		return;
	fprintf(out,
		"timeline: per %s of each run's own clock, the ops that started in it, and the "
		"p50 / p99 of its %s (the original's largest share of I/O time):\n",
		report_fmt__dur(rep->runs[0].tl_ns, a, sizeof(a)), report_class__name(cls));
	cell(out, "from", 10, 1);
	for (size_t r = 0; r < rep->nruns; r++) {
		snprintf(a, sizeof(a), "#%zu ops", r);
		cell(out, a, 12, 0);
		cell(out, "p50", 10, 0);
		cell(out, "p99", 10, 0);
	}
	fputc('\n', out);
	for (size_t i = 0; i < n; i++) {
		cell(out, i ? report_fmt__dur(i * rep->runs[0].tl_ns, a, sizeof(a)) : "0", 10, 1);
		for (size_t r = 0; r < rep->nruns; r++) {
			const struct report_run *run = &rep->runs[r];
			const struct report_tl *t = i < run->ntl ? &run->tl[i] : NULL;
			const struct hist *h = t ? &t->lat[cls] : NULL;

			snprintf(a, sizeof(a), "%llu", t ? (unsigned long long)t->ops : 0ULL);
			cell(out, t && t->ops ? a : "-", 12, 0);
			cell(out, h && h->n ? report_fmt__dur(hist__quantile(h, 0.5), b, sizeof(b)) : "-",
			     10, 0);
			cell(out, h && h->n ? report_fmt__dur(hist__quantile(h, 0.99), b, sizeof(b)) : "-",
			     10, 0);
		}
		fputc('\n', out);
	}
	for (size_t r = 0; r < rep->nruns; r++)
		if (rep->runs[r].tl_beyond)
			fprintf(out, "  #%zu: %llu ops after the last of %d intervals, not shown\n", r,
				(unsigned long long)rep->runs[r].tl_beyond, REPORT_TL_MAX);
	fputc('\n', out);
}

int report__write_text(const struct report *rep, FILE *out)
{
	size_t replays = 0;

	for (size_t i = 1; i < rep->nruns; i++)
		replays += rep->runs[i].is_replay != 0;
	/* the others are captures set beside the first one (before/after, two hosts) */
	fprintf(out, "ioreel report: %s against %zu %s%s (percentiles within %.1f%%)\n\n",
		rep->runs[0].path, rep->nruns - 1, replays == rep->nruns - 1 ? "replay" : "trace",
		rep->nruns == 2 ? "" : "s", HIST_REL_ERROR * 100);
	runs(rep, out);
	by_op(rep, out);
	if (rep->opts->by == REPORT_BY_FILE)
		by_file(rep, out);
	hot_files(rep, out);
	timeline(rep, out);
	fprintf(out, "verdict:\n");
	for (size_t i = 0; i < rep->nverdicts; i++)
		fprintf(out, "  - %s\n", rep->verdicts[i].text);
	return ferror(out) ? -EIO : 0;
}
