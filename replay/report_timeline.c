/* SPDX-License-Identifier: MIT */
/*
 * report_timeline.c - the report's timeline (--timeline): per interval of each run's own
 * clock, the ops that started in it and their latencies per class, to find when a run was
 * slow (a customer's bad minute, a checkpoint, a compaction) and whether a replay was slow
 * then too. Every run is cut at the same interval; a replay with original timing keeps the
 * original's clock, so its rows line up with the original's, while an afap one ends early.
 *
 * Memory: one histogram per class per interval, so the intervals are capped
 * (REPORT_TL_MAX); the ops of a run that outlasts them are counted, not placed. The text and
 * JSON writers print it (report_text.c, report_json.c).
 */
#include <errno.h>
#include <stdlib.h>

#include "report_int.h"

/* intervals the automatic choice aims at over the original's span, at most */
#define TL_AUTO_INTERVALS 20

/* The interval for TL_AUTO_INTERVALS or fewer (8 at least) over span: the smallest 1, 2 or 5
 * times a power of ten that is long enough, so that rows start at round times. */
uint64_t report_tl__auto(uint64_t span_ns)
{
	uint64_t want = span_ns / TL_AUTO_INTERVALS, p = 1000; /* never below 1 µs */

	for (;;) {
		if (p >= want)
			return p;
		if (2 * p >= want)
			return 2 * p;
		if (5 * p >= want)
			return 5 * p;
		if (p > UINT64_MAX / 100)
			return 10 * p;
		p *= 10;
	}
}

int report_tl__add(struct report_run *run, uint64_t start, unsigned kind, uint64_t lat)
{
	uint64_t i = start / run->tl_ns;

	if (i >= REPORT_TL_MAX) {
		run->tl_beyond++;
		return 0;
	}
	if (i >= run->ntl) {
		size_t n = i + 1 > 2 * run->ntl ? i + 1 : 2 * run->ntl;
		struct report_tl *tl;

		if (n > REPORT_TL_MAX)
			n = REPORT_TL_MAX;
		tl = realloc(run->tl, n * sizeof(*tl));
		if (!tl)
			return -ENOMEM;
		for (size_t j = run->ntl; j < n; j++) {
			tl[j].ops = 0;
			for (unsigned c = 0; c < REPORT_CLASSES; c++)
				hist__init(&tl[j].lat[c]);
		}
		run->tl = tl;
		run->ntl = n;
	}
	run->tl[i].ops++;
	return hist__add(&run->tl[i].lat[report_kind__class(kind)], lat);
}

void report_tl__free(struct report_run *run)
{
	for (size_t i = 0; i < run->ntl; i++)
		for (unsigned c = 0; c < REPORT_CLASSES; c++)
			hist__free(&run->tl[i].lat[c]);
	free(run->tl);
	run->tl = NULL;
	run->ntl = 0;
}

/* The intervals any run has an op in. */
size_t report_tl__len(const struct report *rep)
{
	size_t n = 0;

	for (size_t r = 0; r < rep->nruns; r++)
		for (size_t i = rep->runs[r].ntl; i > n; i--)
			if (rep->runs[r].tl[i - 1].ops) {
				n = i;
				break;
			}
	return n;
}

/* The class that took most of the original's I/O time: the one the text rows follow. */
enum report_class report_tl__class(const struct report *rep)
{
	enum report_class best = REPORT_CLASS_READ;

	for (unsigned c = 0; c < REPORT_CLASSES; c++)
		if (rep->runs[0].class_ns[c] > rep->runs[0].class_ns[best])
			best = c;
	return best;
}
