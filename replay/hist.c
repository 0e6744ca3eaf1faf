/* SPDX-License-Identifier: MIT */
/* hist.c - log-linear histogram: bucket geometry, recording, merge, quantiles (see hist.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

#define SUB (1u << HIST_SUB_BITS)

uint32_t hist__index(uint64_t v)
{
	if (v < SUB)
		return (uint32_t)v;
	unsigned k = 63 - (unsigned)__builtin_clzll(v);
	unsigned shift = k - HIST_SUB_BITS;
	/* Range k starts at index (k - M + 1) * 2^M; (v >> shift) is in [2^M, 2^(M+1)). */
	return ((uint32_t)(k - HIST_SUB_BITS + 1) << HIST_SUB_BITS) +
	       (uint32_t)((v >> shift) - SUB);
}

uint64_t hist__bucket_lo(uint32_t idx)
{
	if (idx < SUB)
		return idx;
	unsigned range = idx >> HIST_SUB_BITS; /* >= 1 */
	unsigned shift = range - 1;
	return (uint64_t)(SUB + (idx & (SUB - 1))) << shift;
}

uint64_t hist__bucket_width(uint32_t idx)
{
	if (idx < SUB)
		return 1;
	return (uint64_t)1 << ((idx >> HIST_SUB_BITS) - 1);
}

void hist__init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void hist__free(struct hist *h)
{
	free(h->counts);
	hist__init(h);
}

void hist__reset(struct hist *h)
{
	hist__free(h);
}

/* Makes counts[] cover bucket idx, keeping what is there. */
static int hist__cover(struct hist *h, uint32_t idx)
{
	if (h->len && idx >= h->base && idx < h->base + h->len)
		return 0;
	uint32_t lo = h->len ? h->base : idx, hi = h->len ? h->base + h->len : idx + 1;
	if (idx < lo)
		lo = idx;
	if (idx >= hi)
		hi = idx + 1;
	/* Grow by whole power-of-two ranges so that a slowly widening spread reallocates
	 * once per range, not once per bucket. */
	lo &= ~(SUB - 1);
	hi = (hi + SUB - 1) & ~(SUB - 1);
	uint64_t *c = calloc(hi - lo, sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (h->len)
		memcpy(c + (h->base - lo), h->counts, h->len * sizeof(*c));
	free(h->counts);
	h->counts = c;
	h->base = lo;
	h->len = hi - lo;
	return 0;
}

int hist__add_n(struct hist *h, uint64_t v, uint64_t count)
{
	if (!count)
		return 0;
	uint32_t idx = hist__index(v);
	int err = hist__cover(h, idx);
	if (err)
		return err;
	h->counts[idx - h->base] += count;
	h->n += count;
	h->total += v * count;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	return 0;
}

int hist__merge(struct hist *dst, const struct hist *src)
{
	if (!src->n)
		return 0;
	int err = hist__cover(dst, src->base);
	if (!err)
		err = hist__cover(dst, src->base + src->len - 1);
	if (err)
		return err;
	for (uint32_t i = 0; i < src->len; i++)
		dst->counts[src->base + i - dst->base] += src->counts[i];
	dst->n += src->n;
	dst->total += src->total;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	return 0;
}

uint64_t hist__quantile(const struct hist *h, double q)
{
	if (!h->n)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* Nearest rank: the smallest value with at least ceil(q * n) values at or below it. */
	uint64_t rank = (uint64_t)ceil(q * (double)h->n);
	if (rank < 1)
		rank = 1;
	if (rank > h->n)
		rank = h->n;
	uint64_t seen = 0;
	for (uint32_t i = 0; i < h->len; i++) {
		seen += h->counts[i];
		if (seen < rank)
			continue;
		uint32_t idx = h->base + i;
		uint64_t lo = hist__bucket_lo(idx), w = hist__bucket_width(idx);
		uint64_t v = w > 1 ? lo + w / 2 : lo;
		if (v < h->min)
			v = h->min;
		if (v > h->max)
			v = h->max;
		return v;
	}
	return h->max;
}

double hist__mean(const struct hist *h)
{
	return h->n ? (double)h->total / (double)h->n : 0.0;
}

uint64_t hist__count_le(const struct hist *h, uint64_t v)
{
	uint32_t idx = hist__index(v);
	uint64_t c = 0;
	for (uint32_t i = 0; i < h->len && h->base + i <= idx; i++)
		c += h->counts[i];
	return c;
}

int hist__next_bucket(const struct hist *h, uint32_t *it, uint64_t *lo, uint64_t *width,
		      uint64_t *count)
{
	while (*it < h->len) {
		uint32_t i = (*it)++;
		if (!h->counts[i])
			continue;
		*lo = hist__bucket_lo(h->base + i);
		*width = hist__bucket_width(h->base + i);
		*count = h->counts[i];
		return 1;
	}
	return 0;
}
