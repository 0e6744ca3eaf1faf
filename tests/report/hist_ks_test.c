/* SPDX-License-Identifier: MIT */
/*
 * hist_ks_test.c - KS distance from histograms on distributions whose D is known:
 * identical samples (0), disjoint ranges (1), and shifted lognormals, whose D is
 * 2 * Phi(dmu / (2 sigma)) - 1, within the histogram bound plus sampling error.
 */
#include <stdio.h>

#include "hist.h"
#include "test_rand.h"

#define N 200000

static double phi(double x)
{
	return 0.5 * erfc(-x / sqrt(2));
}

int main(void)
{
	struct hist a = HIST_INIT, b = HIST_INIT, c = HIST_INIT;
	int fail = 0;
	double err;

	for (int i = 0; i < N; i++) {
		uint64_t v = (uint64_t)test_rand_lognormal(log(50e3), 1.0);
		hist__add(&a, v);
		hist__add(&b, v);
	}
	double d = hist__ks(&a, &b, &err);
	printf("identical: D=%.6f (err %.4f) p=%.3f\n", d, err, hist__ks_pvalue(d, a.n, b.n));
	if (d != 0 || hist__ks_pvalue(d, a.n, b.n) < 0.99)
		fail = 1;

	/* Disjoint: 1..10 us against 1..10 ms. */
	hist__reset(&b);
	for (int i = 0; i < N; i++)
		hist__add(&b, 1000000 + test_rand_u64() % 9000000);
	hist__reset(&a);
	for (int i = 0; i < N; i++)
		hist__add(&a, 1000 + test_rand_u64() % 9000);
	d = hist__ks(&a, &b, &err);
	printf("disjoint: D=%.6f p=%.3g\n", d, hist__ks_pvalue(d, a.n, b.n));
	if (d != 1 || hist__ks_pvalue(d, a.n, b.n) > 1e-6)
		fail = 1;

	/* Shifted lognormals: D = 2 Phi(dmu / 2 sigma) - 1. Sampling error of D at N each is
	 * about 1.36 * sqrt(2 / N) = 0.0043 at 95%; allow 2.0 * sqrt(2/N) (99.9%+). */
	static const double shifts[] = {0.05, 0.2, 0.5, 1.0, 3.0};
	for (size_t s = 0; s < sizeof(shifts) / sizeof(shifts[0]); s++) {
		double sigma = 0.8, dmu = shifts[s];
		hist__reset(&a);
		hist__reset(&b);
		for (int i = 0; i < N; i++) {
			hist__add(&a, (uint64_t)test_rand_lognormal(log(200e3), sigma));
			hist__add(&b, (uint64_t)test_rand_lognormal(log(200e3) + dmu, sigma));
		}
		double want = 2 * phi(dmu / (2 * sigma)) - 1;
		d = hist__ks(&a, &b, &err);
		double slack = 2.0 * sqrt(2.0 / N);
		int ok = d <= want + slack && d + err >= want - slack;
		printf("shift %.2f: D=%.5f (+%.5f bucket bound) analytic %.5f p=%.3g %s\n", dmu, d,
		       err, want, hist__ks_pvalue(d, a.n, b.n), ok ? "ok" : "FAIL");
		fail |= !ok;
		/* The bucket bound itself must be small for these spreads (2^-7 wide buckets). */
		if (err > 0.01) {
			printf("bucket bound %.4f unexpectedly large\n", err);
			fail = 1;
		}
	}

	/* Merged halves give the same D as the whole. */
	hist__reset(&c);
	struct hist half = HIST_INIT;
	hist__merge(&c, &a);
	hist__merge(&half, &b);
	hist__merge(&c, &half);
	double d1 = hist__ks(&c, &b, NULL);
	double d0 = hist__ks(&a, &b, NULL);
	printf("mixture D=%.5f vs D=%.5f\n", d1, d0);
	if (!(d1 < d0 && d1 > d0 / 2 - 0.01 && d1 < d0 / 2 + 0.01))
		fail = 1;
	hist__free(&half);
	hist__free(&a);
	hist__free(&b);
	hist__free(&c);
	return fail;
}
