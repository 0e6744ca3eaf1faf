/* SPDX-License-Identifier: MIT */
/*
 * hist_quantile_test.c - quantiles from the histogram against the exact nearest-rank values
 * of the same random samples, within the bound stated in hist.h; exact count/min/max/mean;
 * merge equals recording everything in one histogram.
 */
#include <stdio.h>
#include <stdlib.h>

#include "hist.h"
#include "test_rand.h"

#define N 200000

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t exact_quantile(const uint64_t *sorted, size_t n, double q)
{
	if (q <= 0)
		return sorted[0];
	size_t rank = (size_t)ceil(q * (double)n);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

static int check(const char *name, uint64_t *v, size_t n)
{
	struct hist h = HIST_INIT, a = HIST_INIT, b = HIST_INIT;
	uint64_t total = 0;
	int fail = 0;

	for (size_t i = 0; i < n; i++) {
		if (hist__add(&h, v[i]) || hist__add(i % 3 ? &a : &b, v[i])) {
			printf("%s: out of memory\n", name);
			return 1;
		}
		total += v[i];
	}
	if (hist__merge(&a, &b)) {
		printf("%s: merge failed\n", name);
		return 1;
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	if (h.n != n || h.min != v[0] || h.max != v[n - 1] || h.total != total) {
		printf("%s: count/min/max/total not exact\n", name);
		fail = 1;
	}
	if (a.n != h.n || a.min != h.min || a.max != h.max || a.total != h.total) {
		printf("%s: merged summary differs\n", name);
		fail = 1;
	}
	static const double qs[] = {0, 0.001, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 0.9999, 1};
	double worst = 0;
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		uint64_t want = exact_quantile(v, n, qs[i]);
		uint64_t got = hist__quantile(&h, qs[i]);
		uint64_t merged = hist__quantile(&a, qs[i]);
		double err = fabs((double)got - (double)want) / (want ? (double)want : 1.0);
		if (err > worst)
			worst = err;
		if (err > HIST_REL_ERROR + 1e-12) {
			printf("%s: q%.4f = %llu, exact %llu: error %.5f > %.5f\n", name, qs[i],
			       (unsigned long long)got, (unsigned long long)want, err,
			       HIST_REL_ERROR);
			fail = 1;
		}
		if (merged != got) {
			printf("%s: q%.4f merged %llu != single %llu\n", name, qs[i],
			       (unsigned long long)merged, (unsigned long long)got);
			fail = 1;
		}
	}
	/* Counts below every bucket boundary are exact. */
	for (size_t i = 0; i < n; i += n / 97) {
		uint32_t idx = hist__index(v[i]);
		uint64_t edge = hist__bucket_lo(idx) + hist__bucket_width(idx) - 1;
		size_t le = 0;
		while (le < n && v[le] <= edge)
			le++;
		if (hist__count_le(&h, edge) != le) {
			printf("%s: count_le(%llu) wrong\n", name, (unsigned long long)edge);
			fail = 1;
			break;
		}
	}
	printf("%-10s n=%zu p50=%llu p99=%llu max=%llu worst quantile error %.4f%% (bound %.4f%%)"
	       " %s\n",
	       name, n, (unsigned long long)hist__quantile(&h, 0.5),
	       (unsigned long long)hist__quantile(&h, 0.99), (unsigned long long)h.max, worst * 100,
	       HIST_REL_ERROR * 100, fail ? "FAIL" : "ok");
	hist__free(&h);
	hist__free(&a);
	hist__free(&b);
	return fail;
}

static int check_geometry(void)
{
	/* Buckets tile the whole u64 range with no gap or overlap, and honour the width bound. */
	uint64_t next = 0;
	uint32_t last = hist__index(UINT64_MAX);
	for (uint32_t i = 0; i <= last; i++) {
		uint64_t lo = hist__bucket_lo(i), w = hist__bucket_width(i);
		if (lo != next || hist__index(lo) != i || hist__index(lo + (w - 1)) != i) {
			printf("geometry: bucket %u [%llu +%llu) broken\n", i,
			       (unsigned long long)lo, (unsigned long long)w);
			return 1;
		}
		if (w > 1 && (double)w / (double)lo > 1.0 / (1u << HIST_SUB_BITS) + 1e-15) {
			printf("geometry: bucket %u too wide\n", i);
			return 1;
		}
		next = lo + w;
	}
	if (next != 0) { /* wrapped exactly past UINT64_MAX */
		printf("geometry: buckets end at %llu\n", (unsigned long long)next);
		return 1;
	}
	return 0;
}

int main(void)
{
	uint64_t *v = malloc(N * sizeof(*v));
	int fail = check_geometry();

	/* Lognormal around 100 us with a fat spread: ~1 us .. ~100 ms. */
	for (size_t i = 0; i < N; i++)
		v[i] = (uint64_t)test_rand_lognormal(log(100e3), 1.5);
	fail |= check("lognormal", v, N);
	/* Uniform over 1 ns .. 1 hour. */
	for (size_t i = 0; i < N; i++)
		v[i] = 1 + test_rand_u64() % 3600000000000ull;
	fail |= check("uniform", v, N);
	/* Bimodal: page-cache hits at ~2 us and device reads at ~8 ms. */
	for (size_t i = 0; i < N; i++)
		v[i] = (uint64_t)(i % 4 ? test_rand_lognormal(log(2e3), 0.3)
					: test_rand_lognormal(log(8e6), 0.4));
	fail |= check("bimodal", v, N);
	/* Small exact values and the extremes. */
	for (size_t i = 0; i < N; i++)
		v[i] = i % 1000 ? test_rand_u64() % 200 : (i % 2000 ? UINT64_MAX / 4 : 0);
	fail |= check("small", v, N);
	free(v);
	return fail;
}
