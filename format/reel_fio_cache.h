/* SPDX-License-Identifier: MIT */
/*
 * reel_fio_cache.h - ioreel export fio's model of what the page cache held of each file as
 * the trace went, so that the exported jobs read from the device where the original did
 * (reel_fio.c).
 *
 * fio lays out its files (writes, an fsync, fadvise DONTNEED) before its jobs read them.
 * Exported, the layout writes were one job and the reads another started beside it: fio
 * drops a job's files from the cache as it opens them (invalidate=1), which the reading job
 * did at its start, before the layout's writes, and the DONTNEED after them, which fio's
 * iolog has no word for, was left out. The reads came from the page cache, ~40x faster than
 * the original's. So a buffered read of bytes a DONTNEED dropped after the logs had read or
 * written them begins a new phase of jobs (reel_fio.c), whose jobs drop those files as they
 * open them. A file's bytes are followed as one range (the span of what was read or written
 * since its last drop), not page by page: enough to tell a layout, a log, or a drop of what
 * was just read, from reads elsewhere in the file.
 */
#ifndef IOREEL_REEL_FIO_CACHE_H
#define IOREEL_REEL_FIO_CACHE_H

#include <stdint.h>

#include "reel_cvt_util.h"

struct fio_cfile {
	uint64_t tlo, thi; /* read or written (buffered) since its last drop replayed */
	uint64_t wlo, whi; /* of which written */
	uint64_t dlo, dhi; /* of those, dropped (DONTNEED) and not replayed yet: pending */
	uint64_t drops;	   /* the DONTNEEDs in that pending drop */
	uint32_t phase;	   /* the phase whose jobs drop the file as they open it; 0 none */
	uint8_t warned;	   /* counted among the files read after writes */
};

struct fio_cache {
	struct cvt_map files; /* path id -> struct fio_cfile * */
};

void fio_cache__init(struct fio_cache *c);
void fio_cache__free(struct fio_cache *c);
/* The file's state, made on first use; NULL when out of memory. */
struct fio_cfile *fio_cache__file(struct fio_cache *c, uint32_t path);
/* A buffered read or write of [off, off + len) put those bytes in the cache. */
void fio_cfile__touch(struct fio_cfile *f, uint64_t off, uint64_t len, int write);
/* A DONTNEED of [off, off + len) (len 0: to the end): 1 when it dropped bytes the logs had
 * read or written, now pending; 0 when it dropped nothing of theirs. */
int fio_cfile__drop(struct fio_cfile *f, uint64_t off, uint64_t len);
/* Whether a read of [off, off + len) reads bytes a pending drop dropped. */
int fio_cfile__dropped(const struct fio_cfile *f, uint64_t off, uint64_t len);
/* Whether a read of [off, off + len) reads bytes written since the file's last drop. */
int fio_cfile__written(const struct fio_cfile *f, uint64_t off, uint64_t len);
/* Every pending drop is replayed as phase begins: returns the DONTNEEDs they held. */
uint64_t fio_cache__cut(struct fio_cache *c, uint32_t phase);
/* The DONTNEEDs of pending drops, never replayed. */
uint64_t fio_cache__pending(const struct fio_cache *c);

#endif /* IOREEL_REEL_FIO_CACHE_H */
