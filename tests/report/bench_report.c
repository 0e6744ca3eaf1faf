/* SPDX-License-Identifier: MIT */
/*
 * bench_report.c - what the report costs on top of reading the traces. Peer: a bare
 * reel_reader__next() loop over the same files, in the same run (the floor any report
 * must pay). Prints a table; the ratio is report time / reader time.
 *
 * usage: bench_report DIR [ROUNDS]   (DIR from report_mktrace; CI uses 20000 iterations,
 * the long form:  d=$(mktemp -d); report_mktrace $d 1000000; bench_report $d 3)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "reel.h"
#include "report.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static long read_all(const char *const *files, size_t n)
{
	long ops = 0;
	for (size_t i = 0; i < n; i++) {
		struct reel_reader *r;
		struct reel_op op;
		if (reel_reader__open(files[i], &r))
			return -1;
		while (reel_reader__next(r, &op) > 0)
			ops++;
		reel_reader__close(r);
	}
	return ops;
}

int main(int argc, char **argv)
{
	char paths[4][4096];
	const char *files[4];
	static const char *const names[] = {"orig", "fast", "equal", "late"};

	if (argc < 2) {
		fprintf(stderr, "usage: bench_report DIR [ROUNDS]\n");
		return 2;
	}
	int rounds = argc > 2 ? atoi(argv[2]) : 3;
	for (int i = 0; i < 4; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/%s.reel", argv[1], names[i]);
		files[i] = paths[i];
	}
	FILE *devnull = fopen("/dev/null", "w");
	char html[4200];
	snprintf(html, sizeof(html), "%s/bench.html", argv[1]);

	struct {
		const char *name;
		struct report_opts o;
		double best;
	} cases[] = {
	    {"reader loop (peer)", {0}, 1e9},
	    {"report text", {.top = 5}, 1e9},
	    {"report json", {.top = 5, .json = 1}, 1e9},
	    {"report --by file + html", {.top = 5, .by = REPORT_BY_FILE, .html_path = html}, 1e9},
	};
	long ops = 0;
	for (int r = 0; r < rounds; r++) {
		for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
			double t0 = now();
			if (c == 0)
				ops = read_all(files, 4);
			else if (report__compare(files[0], files + 1, 3, &cases[c].o, devnull))
				return 1;
			double t = now() - t0;
			if (t < cases[c].best)
				cases[c].best = t;
		}
	}
	if (ops <= 0)
		return 1;
	printf("%-26s %12s %10s %10s %8s\n", "case (4 traces)", "ops", "best s", "Mops/s", "ratio");
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		printf("%-26s %12ld %10.3f %10.2f %7.2fx\n", cases[c].name, ops, cases[c].best,
		       ops / cases[c].best / 1e6, cases[c].best / cases[0].best);
	fclose(devnull);
	return 0;
}
