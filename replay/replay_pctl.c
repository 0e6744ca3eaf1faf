/* SPDX-License-Identifier: MIT */
/*
 * replay_pctl.c - the replay summary's percentiles: a log-linear histogram (as HdrHistogram):
 * values below 32 ns exactly, above in 32 sub-buckets per power of two, so any percentile is
 * within 1/32 (3.1%) of the true value, in fixed memory. The report computes exact ones
 * from the result trace.
 */
#include <string.h>

#include "replay_int.h"

static unsigned bucket(uint64_t v)
{
	unsigned e;

	if (v < REPLAY_PCTL_SUB)
		return (unsigned)v;
	e = 63 - (unsigned)__builtin_clzll(v);
	return (e - 4) * REPLAY_PCTL_SUB + (unsigned)((v >> (e - 5)) & (REPLAY_PCTL_SUB - 1));
}

/* middle of a bucket's value range */
static uint64_t bucket_value(unsigned b)
{
	unsigned e, sub;

	if (b < REPLAY_PCTL_SUB)
		return b;
	e = b / REPLAY_PCTL_SUB + 4;
	sub = b % REPLAY_PCTL_SUB;
	return ((uint64_t)(REPLAY_PCTL_SUB + sub) << (e - 5)) + ((1ULL << (e - 5)) >> 1);
}

void replay_pctl__add(struct replay_pctl *h, uint64_t v)
{
	h->b[bucket(v)]++;
	h->count++;
	h->sum += (double)v;
	if (v > h->max)
		h->max = v;
}

void replay_pctl__merge(struct replay_pctl *dst, const struct replay_pctl *src)
{
	for (size_t i = 0; i < sizeof(src->b) / sizeof(src->b[0]); i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->max > dst->max)
		dst->max = src->max;
}

/* the smallest value with at least q of the samples at or below it */
uint64_t replay_pctl__at(const struct replay_pctl *h, double q)
{
	uint64_t want, seen = 0;

	if (!h->count)
		return 0;
	want = (uint64_t)(q * (double)h->count + 0.999999);
	if (want < 1)
		want = 1;
	for (unsigned i = 0; i < sizeof(h->b) / sizeof(h->b[0]); i++) {
		seen += h->b[i];
		if (seen >= want) {
			uint64_t v = bucket_value(i);

			return v > h->max ? h->max : v;
		}
	}
	return h->max;
}

void replay_pctl__summary(const struct replay_pctl *h, struct replay_pct *out)
{
	memset(out, 0, sizeof(*out));
	out->count = h->count;
	if (!h->count)
		return;
	out->p50 = replay_pctl__at(h, 0.50);
	out->p90 = replay_pctl__at(h, 0.90);
	out->p99 = replay_pctl__at(h, 0.99);
	out->max = h->max;
	out->mean = h->sum / (double)h->count;
}
