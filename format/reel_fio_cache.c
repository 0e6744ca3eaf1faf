/* SPDX-License-Identifier: MIT */
/* reel_fio_cache.c - what the page cache held of each file, for ioreel export fio
 * (reel_fio_cache.h says why). */
#include <stdlib.h>

#include "reel_fio_cache.h"

void fio_cache__init(struct fio_cache *c)
{
	cvt_map__init(&c->files);
}

void fio_cache__free(struct fio_cache *c)
{
	uint64_t k, v;

	for (size_t i = 0; cvt_map__next(&c->files, &i, &k, &v);)
		free((struct fio_cfile *)(uintptr_t)v);
	cvt_map__free(&c->files);
}

struct fio_cfile *fio_cache__file(struct fio_cache *c, uint32_t path)
{
	uint64_t *v = cvt_map__put(&c->files, path, NULL);

	if (v && !*v)
		*v = (uintptr_t)calloc(1, sizeof(struct fio_cfile));
	return v ? (struct fio_cfile *)(uintptr_t)*v : NULL;
}

static uint64_t end_of(uint64_t off, uint64_t len)
{
	return len && off + len > off ? off + len : UINT64_MAX;
}

/* [*lo, *hi) grown to hold [lo, hi) */
static void span_add(uint64_t *lo, uint64_t *hi, uint64_t a, uint64_t b)
{
	if (*hi <= *lo) {
		*lo = a;
		*hi = b;
		return;
	}
	if (a < *lo)
		*lo = a;
	if (b > *hi)
		*hi = b;
}

/* [*lo, *hi) less [a, b), where that leaves one range (else kept whole: a drop in its
 * middle is not followed) */
static void span_cut(uint64_t *lo, uint64_t *hi, uint64_t a, uint64_t b)
{
	if (a <= *lo && b >= *hi)
		*lo = *hi = 0;
	else if (a <= *lo && b > *lo)
		*lo = b;
	else if (b >= *hi && a < *hi)
		*hi = a;
}

static int overlaps(uint64_t lo, uint64_t hi, uint64_t a, uint64_t b)
{
	return lo < hi && a < hi && b > lo;
}

void fio_cfile__touch(struct fio_cfile *f, uint64_t off, uint64_t len, int write)
{
	span_add(&f->tlo, &f->thi, off, end_of(off, len));
	if (write)
		span_add(&f->wlo, &f->whi, off, end_of(off, len));
}

int fio_cfile__drop(struct fio_cfile *f, uint64_t off, uint64_t len)
{
	uint64_t end = len ? end_of(off, len) : UINT64_MAX;
	uint64_t lo = off > f->tlo ? off : f->tlo, hi = end < f->thi ? end : f->thi;

	if (!overlaps(f->tlo, f->thi, off, end))
		return 0;
	span_add(&f->dlo, &f->dhi, lo, hi);
	f->drops++;
	span_cut(&f->tlo, &f->thi, off, end);
	span_cut(&f->wlo, &f->whi, off, end);
	return 1;
}

int fio_cfile__dropped(const struct fio_cfile *f, uint64_t off, uint64_t len)
{
	return overlaps(f->dlo, f->dhi, off, end_of(off, len));
}

int fio_cfile__written(const struct fio_cfile *f, uint64_t off, uint64_t len)
{
	return overlaps(f->wlo, f->whi, off, end_of(off, len));
}

uint64_t fio_cache__cut(struct fio_cache *c, uint32_t phase)
{
	uint64_t k, v, n = 0;

	for (size_t i = 0; cvt_map__next(&c->files, &i, &k, &v);) {
		struct fio_cfile *f = (struct fio_cfile *)(uintptr_t)v;

		if (f->dhi <= f->dlo)
			continue;
		n += f->drops;
		f->drops = f->dlo = f->dhi = 0;
		f->phase = phase;
	}
	return n;
}

uint64_t fio_cache__pending(const struct fio_cache *c)
{
	uint64_t k, v, n = 0;

	for (size_t i = 0; cvt_map__next(&c->files, &i, &k, &v);)
		n += ((const struct fio_cfile *)(uintptr_t)v)->drops;
	return n;
}
