/* SPDX-License-Identifier: MIT */
/*
 * report.h - compare the latency distributions of a trace and its replays.
 *
 * Every input is an ioreel trace: the original capture first, then any number of replay
 * results (traces whose meta carries replay.of / replay.targets and whose ops carry sched_ns).
 * Each file is read once, streaming. Per op type (and per file), the report gives count,
 * p50/p90/p99/p99.9/max, mean and total time; each replay's ratios to the original and the
 * KS distance; how late each replay ran against its schedule; error counts; and a few lines
 * of verdict in words. Output as text, JSON, and/or a self-contained HTML page.
 *
 * The replayer calls it after replaying several targets:
 *
 *	const char *results[] = { "t.shm.reel", "t.disk.reel" };
 *	struct report_opts o = { .top = 5 };
 *	report__compare("t.reel", results, 2, &o, stdout);
 *
 * Returns 0 or -errno / -REEL_E_* (the first input that could not be read: see
 * report_opts.failed). Prints nothing but the report itself.
 */
#ifndef IOREEL_REPORT_H
#define IOREEL_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum report_by {
	REPORT_BY_OP = 0,   /* rows per op type (the default) */
	REPORT_BY_FILE = 1, /* also rows per (file, op type) for the top files */
};

#define REPORT_TIMELINE_AUTO UINT64_MAX

struct report_opts {
	enum report_by by;
	unsigned top;	       /* files listed in "hot files" and --by file; 0 = 5 */
	int json;	       /* write JSON to out instead of the text report */
	const char *html_path; /* also write the HTML page there; NULL = no page */
	/* the timeline: the ops per interval of each run's own clock; 0 = none,
	 * REPORT_TIMELINE_AUTO = about 20 intervals over the original's span */
	uint64_t timeline_ns;
	const char **failed;   /* if set, receives the path that failed when an error returns */
	/*
	 * if set, receives a sentence for errors beyond errno (a result of another trace); on
	 * success with damaged inputs, where the first of them is damaged and what it lost
	 */
	char *why;
	size_t why_size;
	/* if set, receives how many inputs were damaged: read past the damage and reported on
	 * (the report names it), but a caller should not take the report for a whole one */
	unsigned *damaged;
};

/* opts may be NULL (text, by op, top 5). */
int report__compare(const char *trace, const char *const *results, size_t n,
		    const struct report_opts *opts, FILE *out);

#endif /* IOREEL_REPORT_H */
