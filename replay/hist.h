/* SPDX-License-Identifier: MIT */
/*
 * hist.h - log-linear latency histogram (HdrHistogram-like) and the distance between two.
 *
 * Values are unsigned 64-bit (nanoseconds here), from 0 to 2^64-1. A value v below 2^M
 * (M = HIST_SUB_BITS) has a bucket of its own. Above, v falls in the power-of-two range
 * [2^k, 2^(k+1)) with k = floor(log2 v), which is cut into 2^M linear sub-buckets of width
 * 2^(k-M). So a bucket's width is at most 2^-M of its lower bound, whatever the magnitude.
 *
 * Error of the quantiles (hist__quantile), written down as fio's stat.h does:
 *   A quantile is the nearest-rank sample: the value of rank ceil(q * n) in sorted order
 *   (rank 1 for q = 0). The histogram knows which bucket holds that rank exactly (counts are
 *   exact), and reports the bucket's middle, clamped to [min, max]. The true value v lies in
 *   [lo, lo + w) with w <= lo * 2^-M, so |reported - v| <= w / 2 <= v * 2^-(M+1).
 *   With M = 7: relative error <= 2^-8 = 0.39%; values below 128 ns are exact.
 * count, min, max and total are exact; the mean is total / count (exact up to the double).
 *
 * Storage grows with the spread of the values, not their number: the counts cover only the
 * bucket range seen so far. Latencies spanning 1 us .. 100 ms need about 17 * 128 counters.
 *
 * Functions return 0 or -errno and never print.
 */
#ifndef IOREEL_HIST_H
#define IOREEL_HIST_H

#include <stddef.h>
#include <stdint.h>

#define HIST_SUB_BITS 7
/* Relative error bound of hist__quantile() (see above). */
#define HIST_REL_ERROR (1.0 / (double)(2u << HIST_SUB_BITS))

struct hist {
	uint64_t n;	/* values recorded */
	uint64_t min;	/* exact; UINT64_MAX when empty */
	uint64_t max;	/* exact */
	uint64_t total; /* exact sum (wraps only beyond 584 years of summed ns) */
	uint32_t base;	/* bucket index of counts[0] */
	uint32_t len;	/* counts[] entries */
	uint64_t *counts;
};

#define HIST_INIT                                                                                  \
	{                                                                                          \
		.min = UINT64_MAX                                                                  \
	}

void hist__init(struct hist *h);
void hist__free(struct hist *h);
void hist__reset(struct hist *h);

/* Records value v count times. -ENOMEM when the bucket range cannot grow. */
int hist__add_n(struct hist *h, uint64_t v, uint64_t count);
static inline int hist__add(struct hist *h, uint64_t v)
{
	return hist__add_n(h, v, 1);
}
/* dst += src. */
int hist__merge(struct hist *dst, const struct hist *src);

/* Nearest-rank quantile, q in [0, 1] (see the error note above); 0 when empty. */
uint64_t hist__quantile(const struct hist *h, double q);
double hist__mean(const struct hist *h);
/* Number of values <= v; exact when v + 1 is a bucket boundary (hist__bucket_lo). */
uint64_t hist__count_le(const struct hist *h, uint64_t v);

/* Bucket geometry: index of v, and the bounds [lo, lo + width) of a bucket. */
uint32_t hist__index(uint64_t v);
uint64_t hist__bucket_lo(uint32_t idx);
uint64_t hist__bucket_width(uint32_t idx);

/*
 * Walks the non-empty buckets in increasing order: start with *it = 0; returns 1 with the
 * bucket's bounds [*lo, *lo + *width) and count, 0 after the last one.
 */
int hist__next_bucket(const struct hist *h, uint32_t *it, uint64_t *lo, uint64_t *width,
		      uint64_t *count);

/*
 * Two-sample Kolmogorov-Smirnov statistic D = sup_x |F_a(x) - F_b(x)| from two histograms.
 *
 * Both empirical CDFs are exact at every bucket boundary (counts below a boundary are exact),
 * so D is computed there; the result D_h never exceeds the D of the raw samples. Inside one
 * bucket each CDF rises by that bucket's share of its samples, so the true D can exceed D_h
 * by at most the largest single-bucket share of either sample: D_h <= D <= D_h + *err.
 * Differences finer than a bucket (2^-M relative) are invisible by design.
 * err may be NULL. Returns 0 when either histogram is empty.
 */
double hist__ks(const struct hist *a, const struct hist *b, double *err);

/*
 * Asymptotic p-value of D for sample sizes n1, n2 (Kolmogorov distribution with the
 * Stephens small-sample correction). With thousands of ops any real difference is
 * "significant": read D (an effect size) first. Since D_h <= D, the p-value from D_h is an
 * upper bound.
 */
double hist__ks_pvalue(double d, uint64_t n1, uint64_t n2);

#endif /* IOREEL_HIST_H */
