/* SPDX-License-Identifier: MIT */
/* hist_ks.c - Kolmogorov-Smirnov distance between two histograms (error bound in hist.h). */
#include <math.h>

#include "hist.h"

static uint64_t count_at(const struct hist *h, uint32_t idx)
{
	if (!h->len || idx < h->base || idx >= h->base + h->len)
		return 0;
	return h->counts[idx - h->base];
}

double hist__ks(const struct hist *a, const struct hist *b, double *err)
{
	if (err)
		*err = 0;
	if (!a->n || !b->n)
		return 0;
	uint32_t lo = a->base < b->base ? a->base : b->base;
	uint32_t hi_a = a->base + a->len, hi_b = b->base + b->len;
	uint32_t hi = hi_a > hi_b ? hi_a : hi_b;
	double na = (double)a->n, nb = (double)b->n;
	uint64_t ca = 0, cb = 0;
	double d = 0, share = 0;
	/* After each bucket both cumulative counts are exact: they are the CDFs at the bucket's
	 * upper boundary. */
	for (uint32_t idx = lo; idx < hi; idx++) {
		uint64_t xa = count_at(a, idx), xb = count_at(b, idx);
		if (!xa && !xb)
			continue;
		ca += xa;
		cb += xb;
		double diff = fabs((double)ca / na - (double)cb / nb);
		if (diff > d)
			d = diff;
		/* A width-1 bucket holds one integer value: nothing can hide inside it. */
		if (hist__bucket_width(idx) == 1)
			continue;
		if (xa / na > share)
			share = xa / na;
		if (xb / nb > share)
			share = xb / nb;
	}
	if (err) {
		*err = share;
		if (d + *err > 1)
			*err = 1 - d;
	}
	return d;
}

double hist__ks_pvalue(double d, uint64_t n1, uint64_t n2)
{
	if (!n1 || !n2 || d <= 0)
		return 1.0;
	double ne = (double)n1 * (double)n2 / ((double)n1 + (double)n2);
	double sq = sqrt(ne);
	double lambda = (sq + 0.12 + 0.11 / sq) * d;
	if (lambda < 0.2)
		return 1.0; /* the series below converges too slowly there; Q is 1 to 1e-9 */
	/* Q_KS(lambda) = 2 * sum_{j>=1} (-1)^(j-1) exp(-2 j^2 lambda^2) */
	double sum = 0, sign = 1;
	for (int j = 1; j <= 200; j++) {
		double term = sign * exp(-2.0 * j * j * lambda * lambda);
		sum += term;
		if (fabs(term) < 1e-12 * fabs(sum) || fabs(term) < 1e-300)
			break;
		sign = -sign;
	}
	double p = 2 * sum;
	if (p < 0)
		p = 0;
	if (p > 1)
		p = 1;
	return p;
}
