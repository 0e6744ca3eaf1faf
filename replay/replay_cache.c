// SPDX-License-Identifier: MIT
/*
 * replay_cache.c - how much of the file set the page cache holds when the replay begins.
 *
 * Preparing the file set writes its files, so right after it they are in the page cache; a
 * replay on a disk then reads them from memory: a reviewer's fio randread, 62.6 us at p50
 * recorded on ext4, replayed on the same disk at 2.28 us, "27.5x faster". The original's
 * cache held what its own history put there, which the trace cannot tell; what the replay
 * can do is say what its cache held (the summary, the result's meta, and the report's
 * verdict when reads got faster), and --cold drops it (replay_prepare__cold).
 *
 * Counted: the bytes of the set's files on disk-backed targets (but those the trace opened
 * only with O_DIRECT, whose I/O the cache does not serve), and how many of those the
 * page cache holds, asked with cachestat(2) (Linux 6.5), else with mincore(2) over a
 * mapping of the file, a window at a time. Files on tmpfs or ramfs are memory by nature:
 * counted apart, never called cached.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "replay_int.h"

#ifndef SYS_cachestat
#define SYS_cachestat 451 /* the same number on every architecture */
#endif
#define TMPFS_MAGIC_ 0x01021994
#define RAMFS_MAGIC_ 0x858458f6

/* include/uapi/linux/mman.h (6.5), absent from older headers */
struct cachestat_range_ {
	uint64_t off;
	uint64_t len; /* 0: to the end of the file */
};

struct cachestat_ {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

#define MINCORE_WINDOW (256ULL << 20) /* bytes mapped at once: a 64 KiB vector */

/* pages of fd's file (size bytes) in the page cache, by mincore; -errno */
static int64_t cache__mincore(int fd, uint64_t size, long page)
{
	unsigned char *vec = malloc(MINCORE_WINDOW / (uint64_t)page);
	int64_t pages = 0;

	if (!vec)
		return -ENOMEM;
	for (uint64_t off = 0; off < size; off += MINCORE_WINDOW) {
		uint64_t len = size - off < MINCORE_WINDOW ? size - off : MINCORE_WINDOW;
		/* only mapped, never touched: no page is read in */
		void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)off);

		if (p == MAP_FAILED) {
			free(vec);
			return -errno;
		}
		if (mincore(p, len, vec) < 0) {
			int err = -errno;

			munmap(p, len);
			free(vec);
			return err;
		}
		for (uint64_t i = 0; i < (len + (uint64_t)page - 1) / (uint64_t)page; i++)
			pages += vec[i] & 1;
		munmap(p, len);
	}
	free(vec);
	return pages;
}

/* bytes of fd's file (size bytes) in the page cache; -errno */
static int64_t cache__file(int fd, uint64_t size, int *no_cachestat)
{
	long page = sysconf(_SC_PAGESIZE);
	struct cachestat_range_ range = {0, 0};
	struct cachestat_ cs;
	int64_t pages;
	uint64_t bytes;

	if (!*no_cachestat) {
		if (syscall(SYS_cachestat, fd, &range, &cs, 0) == 0) {
			pages = (int64_t)cs.nr_cache;
			goto done;
		}
		if (errno == ENOSYS)
			*no_cachestat = 1;
	}
	pages = cache__mincore(fd, size, page);
	if (pages < 0)
		return pages;
done:
	bytes = (uint64_t)pages * (uint64_t)page;
	return (int64_t)(bytes < size ? bytes : size); /* the last page counts its part */
}

void replay_cache__measure(const struct replay_mapper *m, const struct replay_fileset *fs,
			   struct replay_cache_state *st)
{
	int no_cachestat = 0;

	st->disk_bytes = st->resident_bytes = st->ram_bytes = 0;
	for (size_t i = 0; i < fs->n; i++) {
		struct statfs sfs;
		struct stat sb;
		int64_t got;
		int fd;

		if (fs->e[i].kind != REPLAY_F_FILE || fs->e[i].direct_only)
			continue;
		fd = replay_path__open(m->roots[fs->e[i].root].fd, fs->e[i].rel,
				       O_RDONLY | O_NOFOLLOW | O_NONBLOCK, 0);
		if (fd < 0)
			continue; /* one the replay creates, or not prepared */
		if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || !sb.st_size ||
		    fstatfs(fd, &sfs) < 0) {
			close(fd);
			continue;
		}
		if (sfs.f_type == TMPFS_MAGIC_ || sfs.f_type == (typeof(sfs.f_type))RAMFS_MAGIC_) {
			st->ram_bytes += (uint64_t)sb.st_size;
			close(fd);
			continue;
		}
		got = cache__file(fd, (uint64_t)sb.st_size, &no_cachestat);
		close(fd);
		if (got < 0)
			continue; /* not told: neither cached nor not */
		st->disk_bytes += (uint64_t)sb.st_size;
		st->resident_bytes += (uint64_t)got;
	}
}
