/* SPDX-License-Identifier: MIT */
/*
 * report_cmp_test.c - how one op type of a replay is judged against the original
 * (report__cmp, thresholds in report_verdict.c), on distributions built for each case:
 * same, 3x faster, 3x slower, a tail-only change, p50 and p99 pulling apart, too few ops,
 * absent from one side.
 */
#include <stdio.h>

#include "report_int.h"
#include "test_rand.h"

static const char *const names[] = {
    [REPORT_SAME] = "unchanged",      [REPORT_FASTER] = "faster",
    [REPORT_SLOWER] = "slower",	      [REPORT_TAIL_ONLY] = "tail_only",
    [REPORT_FEW_OPS] = "too_few_ops", [REPORT_MISSING] = "missing",
    [REPORT_MIXED] = "mixed"};

/* n lognormal values around median m; a share `slow` of them `factor` times slower. */
static void fill(struct hist *h, int n, double m, double sigma, double slow, double factor)
{
	hist__reset(h);
	for (int i = 0; i < n; i++) {
		double v = test_rand_lognormal(log(m), sigma);
		if (test_rand_unit() < slow)
			v *= factor;
		hist__add(h, (uint64_t)v);
	}
}

static int expect(const char *what, const struct hist *o, const struct hist *r,
		  enum report_change want)
{
	struct report_cmp c;
	report__cmp(o, r, &c);
	printf("%-34s p50 %.3f p99 %.3f mean %.3f D %.3f p %.2g -> %s\n", what, c.ratio_p50,
	       c.ratio_p99, c.ratio_mean, c.ks_d, c.ks_p, names[c.change]);
	if (c.change != want) {
		printf("FAIL: %s: expected %s\n", what, names[want]);
		return 1;
	}
	return 0;
}

int main(void)
{
	struct hist o = HIST_INIT, r = HIST_INIT;
	int fail = 0;

	fill(&o, 5000, 100e3, 0.5, 0, 1);
	fill(&r, 5000, 100e3, 0.5, 0, 1);
	fail |= expect("same distribution", &o, &r, REPORT_SAME);
	fill(&r, 5000, 105e3, 0.5, 0, 1);
	fail |= expect("5% slower: below the ratio", &o, &r, REPORT_SAME);
	fill(&r, 5000, 33e3, 0.5, 0, 1);
	fail |= expect("3x faster", &o, &r, REPORT_FASTER);
	fill(&r, 5000, 300e3, 0.5, 0, 1);
	fail |= expect("3x slower", &o, &r, REPORT_SLOWER);
	/* 3% of ops 20x slower: p99 moves far, the bulk does not. */
	fill(&r, 5000, 100e3, 0.5, 0.03, 20);
	fail |= expect("tail only", &o, &r, REPORT_TAIL_ONLY);
	/* Median 1.5x slower, but the original's slow 5% (10x) are gone: p99 much faster. */
	fill(&o, 5000, 100e3, 0.3, 0.05, 10);
	fill(&r, 5000, 150e3, 0.3, 0, 1);
	fail |= expect("p50 slower, p99 faster: mixed", &o, &r, REPORT_MIXED);
	fill(&o, 4, 100e3, 0.5, 0, 1);
	fill(&r, 4, 10e3, 0.5, 0, 1);
	fail |= expect("4 ops each", &o, &r, REPORT_FEW_OPS);
	hist__reset(&r);
	fail |= expect("absent from the replay", &o, &r, REPORT_MISSING);
	hist__free(&o);
	hist__free(&r);
	return fail;
}
