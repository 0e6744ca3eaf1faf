/* SPDX-License-Identifier: MIT */
/* report.c - report__compare(): read every run, compare, write text or JSON (and HTML). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reel.h"
#include "report_int.h"

static int write_html(const struct report *rep, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -errno;
	int err = report__write_html(rep, f);
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

/* the capture a run shows: its own start time, or for a replay the one of the trace it
 * replayed (NULL when the meta does not say) */
static const char *capture_id(const struct report_run *run)
{
	return report_run__meta(run,
				run->is_replay ? REEL_META_REPLAY_OF_START : REEL_META_START_WALL_NS);
}

/*
 * A replay set against the original of another capture would compare unrelated workloads
 * and draw verdicts from them: refused. Two captures side by side are fine (before/after).
 */
static int check_same_capture(const struct report *rep, const char **failed, char *why,
			      size_t why_size)
{
	const char *id0 = capture_id(&rep->runs[0]);

	for (size_t i = 1; id0 && i < rep->nruns; i++) {
		const struct report_run *r = &rep->runs[i];
		const char *id = capture_id(r);

		/* the original again, as a result: a comparison of the trace with itself */
		if (!r->is_replay && id && !strcmp(id, id0)) {
			*failed = r->path;
			if (why)
				snprintf(why, why_size,
					 "it is the original trace itself (recorded at start_wall_ns "
					 "%s), not a replay of it",
					 id);
			return -EINVAL;
		}
		if (!r->is_replay || !id || !strcmp(id, id0))
			continue;
		*failed = r->path;
		if (why)
			snprintf(why, why_size,
				 "it is a replay of %s (recorded at start_wall_ns %s), not of %s "
				 "(%s)",
				 r->replay_of ? r->replay_of : "another trace", id, rep->runs[0].path,
				 id0);
		return -EINVAL;
	}
	return 0;
}

/*
 * A run with nothing in it is no comparison: an original without ops, or any trace that
 * damage left without ops, fails rather than print empty tables that look like a result.
 */
static int check_has_ops(const struct report_run *r, int original, char *why, size_t why_size)
{
	char what[400];

	if (r->ops_read || (!original && !r->damaged))
		return 0;
	if (why)
		snprintf(why, why_size, "%s: nothing to compare",
			 reel_damage_sum__no_ops(&r->damage, what, sizeof(what)));
	return -ENODATA;
}

/* how many runs are damaged, into opts->damaged, and the first's damage into opts->why */
static void count_damaged(const struct report *rep)
{
	unsigned n = 0;

	for (size_t i = 0; i < rep->nruns; i++) {
		const struct report_run *r = &rep->runs[i];

		if (!r->damaged)
			continue;
		if (!n++ && rep->opts->why)
			reel_damage_sum__headline(&r->damage, r->path, rep->opts->why,
						  rep->opts->why_size);
	}
	if (rep->opts->damaged)
		*rep->opts->damaged = n;
}

static int same_label(const struct report *rep, size_t i)
{
	for (size_t j = 1; j < rep->nruns; j++)
		if (j != i && !strcmp(rep->runs[j].label, rep->runs[i].label))
			return 1;
	return 0;
}

/*
 * The trace's span, for the automatic timeline interval, which must be known before a run's
 * ops are read: its footer's totals, or, without a whole footer (a recording cut short), a
 * pass over its ops (decoding alone: ~0.1 us an op).
 */
static uint64_t trace_span(const char *trace)
{
	const struct reel_totals *t;
	struct reel_reader *r;
	struct reel_op op;
	uint64_t span = 0, damaged = 0;
	int n;

	if (reel_reader__open(trace, &r))
		return 1000000000ULL; /* the report says why it cannot read it */
	t = reel_reader__totals(r);
	if (t && t->last_end_ns > 0)
		span = t->last_end_ns;
	else
		while ((n = reel_reader__next(r, &op)) != 0 && (n > 0 || ++damaged < 1000000))
			if (n > 0 && op.end_ns > span)
				span = op.end_ns;
	reel_reader__close(r);
	return span;
}

/* label + what tells it apart, cut to the label's size: a label is for reading */
static void label__add(char *label, size_t size, const char *fmt, ...)
{
	char add[128];
	size_t len = strlen(label);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(add, sizeof(add), fmt, ap);
	va_end(ap);
	if (len + 1 < size)
		snprintf(label + len, size - len, "%s", add);
}

/*
 * Replays of one target with other engines or timings (the usual way to compare them) were
 * all labelled with the target alone: the table's rows and the verdict's sentences ("replay
 * on /var/tmp/t fell behind") could not be told apart. Such runs get their engine and
 * timing, and when those are the same too, their number.
 */
static void unique_labels(struct report *rep)
{
	char dup[64] = {0}; /* runs whose label another run has, before any is changed */

	for (size_t i = 1; i < rep->nruns && i < sizeof(dup); i++)
		dup[i] = (char)same_label(rep, i);
	for (size_t i = 1; i < rep->nruns && i < sizeof(dup); i++) {
		struct report_run *r = &rep->runs[i];

		if (!dup[i] || !r->is_replay)
			continue;
		label__add(r->label, sizeof(r->label), " (%s, %s)", r->engine ? r->engine : "?",
			   r->timing ? r->timing : "?");
	}
	for (size_t i = 1; i < rep->nruns && i < sizeof(dup); i++)
		dup[i] = (char)same_label(rep, i);
	for (size_t i = 1; i < rep->nruns && i < sizeof(dup); i++) {
		struct report_run *r = &rep->runs[i];

		if (!dup[i])
			continue;
		label__add(r->label, sizeof(r->label), " #%zu", i);
	}
}

int report__compare(const char *trace, const char *const *results, size_t n,
		    const struct report_opts *opts, FILE *out)
{
	static const struct report_opts defaults;
	struct report rep = {.opts = opts ? opts : &defaults};
	const char *failed = NULL;
	int err = 0;

	rep.top = rep.opts->top ? rep.opts->top : 5;
	rep.runs = calloc(n + 1, sizeof(*rep.runs));
	if (!rep.runs)
		return -ENOMEM;
	for (size_t i = 0; i <= n && !err; i++) {
		const char *path = i ? results[i - 1] : trace;
		/* every run on the original's interval: the automatic one from its span */
		rep.runs[i].tl_ns = rep.opts->timeline_ns;
		if (i && rep.opts->timeline_ns == REPORT_TIMELINE_AUTO)
			rep.runs[i].tl_ns = rep.runs[0].tl_ns;
		else if (rep.opts->timeline_ns == REPORT_TIMELINE_AUTO)
			rep.runs[i].tl_ns = report_tl__auto(trace_span(trace));
		/* a replay's backlog is blamed on what its ops took beyond the original's */
		rep.runs[i].against = i ? &rep.runs[0] : NULL;
		err = report_run__collect(&rep.runs[i], path, rep.opts->by == REPORT_BY_FILE);
		rep.nruns = i + 1;
		if (!err)
			err = check_has_ops(&rep.runs[i], !i, rep.opts->why, rep.opts->why_size);
		if (err)
			failed = path;
		/* Another capture given as a result (comparing two recordings): its file name. */
		else if (i && !rep.runs[i].is_replay)
			snprintf(rep.runs[i].label, sizeof(rep.runs[i].label), "%s",
				 report_fmt__base(path));
	}
	if (!err)
		err = check_same_capture(&rep, &failed, rep.opts->why, rep.opts->why_size);
	if (!err)
		unique_labels(&rep);
	if (!err)
		err = report__analyze(&rep);
	if (!err)
		err =
		    rep.opts->json ? report__write_json(&rep, out) : report__write_text(&rep, out);
	if (!err && rep.opts->html_path) {
		err = write_html(&rep, rep.opts->html_path);
		if (err)
			failed = rep.opts->html_path;
	}
	if (err && rep.opts->failed)
		*rep.opts->failed = failed;
	if (!err)
		count_damaged(&rep);

	for (size_t i = 0; i < rep.nruns; i++)
		report_run__free(&rep.runs[i]);
	free(rep.runs);
	free(rep.hot);
	free(rep.verdicts);
	return err;
}
