/* SPDX-License-Identifier: MIT */
/*
 * wl_sync.c - the synchronous mix: one function per op (issue it, keep the position book,
 * log it), and the rounds a worker thread runs with them.
 *
 * read/write/readv/writev and preadv2/pwritev2 with offset -1 carry no offset: the position
 * they used is kept here by hand per open file description (dup'd fds share one), and for
 * O_APPEND writes it is the end of file, not the position. --verify checks the book against
 * /proc/self/fdinfo after each of them.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "ioworkload.h"

char wl_pat[65536] __attribute__((aligned(4096)));

static void verify_pos(int fd, const struct ofd *o, const char *what)
{
	char name[64], buf[512], *p;
	long long pos;
	ssize_t n;
	int f;

	if (!wl_opt.verify)
		return;
	snprintf(name, sizeof(name), "/proc/self/fdinfo/%d", fd);
	f = open(name, O_RDONLY);
	if (f < 0)
		wl__die("verify: open %s: %s", name, strerror(errno));
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		wl__die("verify: read %s", name);
	buf[n] = 0;
	p = strstr(buf, "pos:");
	if (!p || sscanf(p + 4, "%lld", &pos) != 1)
		wl__die("verify: no pos in %s", name);
	if (pos != o->pos)
		wl__die("verify: after %s on fd %d (%s): position %lld, bookkept %" PRId64, what,
			fd, o->path, pos, o->pos);
}

static int64_t iov_total(const struct iovec *iov, int n)
{
	int64_t t = 0;

	for (int i = 0; i < n; i++)
		t += iov[i].iov_len;
	return t;
}

/* The position a positionless write uses: the end of file when O_APPEND. */
static int64_t wpos(const struct ofd *o)
{
	return o->append ? o->size : o->pos;
}

static void after_write(struct ofd *o, int64_t used, long ret)
{
	if (ret <= 0)
		return;
	o->pos = used + ret;
	if (o->append || used + ret > o->size)
		o->size = used + ret;
}

long wl__read(int fd, struct ofd *o, void *buf, size_t len)
{
	int64_t used = o->pos;
	long r = SC(SYS_read, fd, buf, len);

	if (r > 0)
		o->pos += r;
	EMIT(.op = "read", .path = o->path, .kind = o->kind, .fd = fd, .off = used, .len = len, .ret = r,
	     .has = H_PATH | H_FD | H_OFF | H_LEN | H_RET);
	verify_pos(fd, o, "read");
	return r;
}

long wl__write(int fd, struct ofd *o, const void *buf, size_t len)
{
	int64_t used = wpos(o);
	long r = SC(SYS_write, fd, buf, len);

	after_write(o, used, r);
	EMIT(.op = "write", .path = o->path, .kind = o->kind, .fd = fd, .off = used, .len = len, .ret = r,
	     .has = H_PATH | H_FD | H_OFF | H_LEN | H_RET, .note = o->append ? "O_APPEND" : NULL);
	verify_pos(fd, o, "write");
	return r;
}

long wl__pread(int fd, struct ofd *o, void *buf, size_t len, int64_t off)
{
	long r = SC(SYS_pread64, fd, buf, len, off);

	EMIT(.op = "pread64", .path = o->path, .kind = o->kind, .fd = fd, .off = off, .len = len, .ret = r,
	     .has = H_PATH | H_FD | H_OFF | H_LEN | H_RET);
	return r;
}

long wl__pwrite(int fd, struct ofd *o, const void *buf, size_t len, int64_t off)
{
	long r = SC(SYS_pwrite64, fd, buf, len, off);

	if (r > 0 && off + r > o->size)
		o->size = off + r;
	EMIT(.op = "pwrite64", .path = o->path, .kind = o->kind, .fd = fd, .off = off, .len = len, .ret = r,
	     .has = H_PATH | H_FD | H_OFF | H_LEN | H_RET);
	return r;
}

static long do_readv(int fd, struct ofd *o, const struct iovec *iov, int n)
{
	int64_t used = o->pos;
	long r = SC(SYS_readv, fd, iov, n);

	if (r > 0)
		o->pos += r;
	EMIT(.op = "readv", .path = o->path, .kind = o->kind, .fd = fd, .off = used, .len = iov_total(iov, n),
	     .ret = r, .has = H_PATH | H_FD | H_OFF | H_LEN | H_RET);
	verify_pos(fd, o, "readv");
	return r;
}

static long do_writev(int fd, struct ofd *o, const struct iovec *iov, int n)
{
	int64_t used = wpos(o);
	long r = SC(SYS_writev, fd, iov, n);

	after_write(o, used, r);
	EMIT(.op = "writev", .path = o->path, .kind = o->kind, .fd = fd, .off = used, .len = iov_total(iov, n),
	     .ret = r, .has = H_PATH | H_FD | H_OFF | H_LEN | H_RET);
	verify_pos(fd, o, "writev");
	return r;
}

/* The x86-64 preadv family splits the offset into low and high words. */
static long do_preadv(int fd, struct ofd *o, const struct iovec *iov, int n, int64_t off)
{
	long r = SC(SYS_preadv, fd, iov, n, (unsigned long)off, 0UL);

	EMIT(.op = "preadv", .path = o->path, .kind = o->kind, .fd = fd, .off = off, .len = iov_total(iov, n),
	     .ret = r, .has = H_PATH | H_FD | H_OFF | H_LEN | H_RET);
	return r;
}

static long do_pwritev(int fd, struct ofd *o, const struct iovec *iov, int n, int64_t off)
{
	long r = SC(SYS_pwritev, fd, iov, n, (unsigned long)off, 0UL);

	if (r > 0 && off + r > o->size)
		o->size = off + r;
	EMIT(.op = "pwritev", .path = o->path, .kind = o->kind, .fd = fd, .off = off, .len = iov_total(iov, n),
	     .ret = r, .has = H_PATH | H_FD | H_OFF | H_LEN | H_RET);
	return r;
}

/* preadv2/pwritev2 with offset -1 use and move the file position, like readv/writev. */
static long do_preadv2(int fd, struct ofd *o, const struct iovec *iov, int n, int64_t off,
		       int flags)
{
	int64_t used = off == -1 ? o->pos : off;
	long r = SC(SYS_preadv2, fd, iov, n, (unsigned long)off, 0UL, flags);

	if (off == -1 && r > 0)
		o->pos += r;
	EMIT(.op = "preadv2", .path = o->path, .kind = o->kind, .fd = fd, .off = used, .len = iov_total(iov, n),
	     .ret = r, .flags = flags, .has = H_PATH | H_FD | H_OFF | H_LEN | H_RET | H_FLAGS,
	     .note = off == -1 ? "offset -1: file position" : NULL);
	verify_pos(fd, o, "preadv2");
	return r;
}

static long do_pwritev2(int fd, struct ofd *o, const struct iovec *iov, int n, int64_t off,
			int flags)
{
	int64_t used = off == -1 ? wpos(o) : off;
	long r = SC(SYS_pwritev2, fd, iov, n, (unsigned long)off, 0UL, flags);

	if (off == -1)
		after_write(o, used, r);
	else if (r > 0 && off + r > o->size)
		o->size = off + r;
	EMIT(.op = "pwritev2", .path = o->path, .kind = o->kind, .fd = fd, .off = used, .len = iov_total(iov, n),
	     .ret = r, .flags = flags, .has = H_PATH | H_FD | H_OFF | H_LEN | H_RET | H_FLAGS,
	     .note = off == -1 ? "offset -1: file position" : NULL);
	verify_pos(fd, o, "pwritev2");
	return r;
}

long wl__lseek(int fd, struct ofd *o, int64_t off, int whence)
{
	long r = SC(SYS_lseek, fd, off, whence);

	if (r >= 0)
		o->pos = r;
	EMIT(.op = "lseek", .path = o->path, .kind = o->kind, .fd = fd, .off = off, .mode = whence, .ret = r,
	     .has = H_PATH | H_FD | H_OFF | H_MODE | H_RET);
	verify_pos(fd, o, "lseek");
	return r;
}

static long do_fdop(const char *name, long nr, int fd, struct ofd *o)
{
	long r = SC(nr, fd);

	EMIT(.op = name, .path = o->path, .kind = o->kind, .fd = fd, .ret = r, .has = H_PATH | H_FD | H_RET);
	return r;
}

long wl__close(int fd, struct ofd *o)
{
	return do_fdop("close", SYS_close, fd, o);
}

/* open family; abs is the path the kernel resolved, dirfd only for the log's reader. */
int wl__open(struct ofd *o, const char *name, long nr, int dirfd, const char *rel, const char *abs,
	     int flags, int mode)
{
	long r;
	unsigned has = H_PATH | H_RET | H_FLAGS | H_MODE;

	if (nr == SYS_open)
		r = SC(SYS_open, rel, flags, mode);
	else if (nr == SYS_creat)
		r = SC(SYS_creat, rel, mode), has &= ~H_FLAGS;
	else
		r = SC(SYS_openat, dirfd, rel, flags, mode);
	if ((flags & O_CREAT) == 0 && nr != SYS_creat)
		has &= ~H_MODE;
	memset(o, 0, sizeof(*o));
	snprintf(o->path, sizeof(o->path), "%s", abs);
	/* O_TMPFILE carries O_DIRECTORY's bit, but opens a new regular file */
	o->kind = (flags & O_TMPFILE) != O_TMPFILE && (flags & O_DIRECTORY) ? "dir" : "reg";
	o->append = flags & O_APPEND;
	EMIT(.op = name, .path = abs, .ret = r, .flags = flags, .mode = mode, .has = has,
	     .dirfd = nr == SYS_openat ? dirfd : 0);
	return r;
}

static int do_openat2(struct ofd *o, int dirfd, const char *rel, const char *abs, int flags,
		      uint64_t resolve)
{
	struct open_how how = {.flags = flags, .resolve = resolve};
	long r = SC(SYS_openat2, dirfd, rel, &how, sizeof(how));

	memset(o, 0, sizeof(*o));
	snprintf(o->path, sizeof(o->path), "%s", abs);
	o->kind = flags & O_DIRECTORY ? "dir" : "reg";
	EMIT(.op = "openat2", .path = abs, .ret = r, .flags = flags, .dirfd = dirfd,
	     .has = H_PATH | H_RET | H_FLAGS);
	return r;
}

/* Ops on a path alone (stat, unlink, mkdir, ...). */
static long do_pathop(const char *name, long r, const char *abs, unsigned extra, int mode,
		      int dirfd)
{
	EMIT(.op = name, .path = abs, .ret = r, .mode = mode, .dirfd = dirfd,
	     .has = H_PATH | H_RET | extra);
	return r;
}

/* ---- the mix one worker thread runs, round after round ---- */

/* Thread-unique fd numbers for dup2/dup3/F_DUPFD: no other thread's fds get this high. */
static int hi_fd(const struct worker *w, int i)
{
	return 400 + w->idx * 16 + i;
}

/* data<round>: every read/write flavour, positions moved by lseek and by dup'd fds. */
static void round_data(struct worker *w, int dirfd, int round)
{
	char rel[64], abs[PATH_MAX], buf[16384];
	struct iovec wv[2] = {{wl_pat, 1000}, {wl_pat + 1000, 3096}};
	struct iovec rv[2] = {{buf, 512}, {buf + 512, 1536}};
	struct ofd o;
	int fd, d1, d2, d3, d4;
	void *map;
	long r;

	snprintf(rel, sizeof(rel), "data%d", round);
	wl__join(abs, w->dir, rel);
	fd = wl__open(&o, "openat", SYS_openat, dirfd, rel, abs, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		wl__die("openat %s: %s", abs, strerror(-fd));

	wl__write(fd, &o, wl_pat, 8192);
	wl__pwrite(fd, &o, wl_pat, 4096, 16384);
	do_writev(fd, &o, wv, 2);
	do_pwritev(fd, &o, wv, 2, 20480);
	do_pwritev2(fd, &o, wv, 2, 24576, 0);
	do_pwritev2(fd, &o, wv, 2, -1, 0);
	wl__lseek(fd, &o, 0, SEEK_SET);
	wl__read(fd, &o, buf, 4096);
	do_readv(fd, &o, rv, 2);
	wl__pread(fd, &o, buf, 4096, 8192);
	do_preadv(fd, &o, rv, 2, 100);
	do_preadv2(fd, &o, rv, 2, 4096, 0);
	do_preadv2(fd, &o, rv, 2, -1, 0);
	wl__lseek(fd, &o, 100, SEEK_CUR);
	wl__read(fd, &o, buf, 3000);
	wl__lseek(fd, &o, -10, SEEK_END);
	wl__read(fd, &o, buf, 4096); /* short read at the end */
	wl__read(fd, &o, buf, 4096); /* 0 at end of file */
	wl__pread(fd, &o, buf, 4096, 1 << 20);

	do_fdop("fsync", SYS_fsync, fd, &o);
	do_fdop("fdatasync", SYS_fdatasync, fd, &o);
	r = SC(SYS_sync_file_range, fd, 0L, 4096L, SYNC_FILE_RANGE_WRITE);
	EMIT(.op = "sync_file_range", .path = o.path, .kind = o.kind, .fd = fd, .off = 0, .len = 4096,
	     .flags = SYNC_FILE_RANGE_WRITE, .ret = r,
	     .has = H_PATH | H_FD | H_OFF | H_LEN | H_FLAGS | H_RET);
	if (round == 0)
		do_fdop("syncfs", SYS_syncfs, fd, &o);

	{
		struct stat st;

		r = SC(SYS_fstat, fd, &st);
		EMIT(.op = "fstat", .path = o.path, .kind = o.kind, .fd = fd, .ret = r,
		     .has = H_PATH | H_FD | H_RET);
		/* What glibc 2.36's fstat() issues: newfstatat(fd, "", AT_EMPTY_PATH). */
		r = SC(SYS_newfstatat, fd, "", &st, AT_EMPTY_PATH);
		EMIT(.op = "newfstatat", .alt_op = "fstat", .path = o.path, .kind = o.kind, .fd = fd, .ret = r,
		     .flags = AT_EMPTY_PATH, .has = H_PATH | H_FD | H_RET,
		     .note = "fstat as glibc issues it");
	}

	r = SC(SYS_ftruncate, fd, 32768L);
	EMIT(.op = "ftruncate", .path = o.path, .kind = o.kind, .fd = fd, .len = 32768, .ret = r,
	     .has = H_PATH | H_FD | H_LEN | H_RET);
	r = SC(SYS_fallocate, fd, 0, 32768L, 65536L);
	EMIT(.op = "fallocate", .path = o.path, .kind = o.kind, .fd = fd, .mode = 0, .off = 32768, .len = 65536,
	     .ret = r, .has = H_PATH | H_FD | H_MODE | H_OFF | H_LEN | H_RET);
	r = SC(SYS_fallocate, fd, FALLOC_FL_KEEP_SIZE, 1L << 20, 4096L);
	EMIT(.op = "fallocate", .path = o.path, .kind = o.kind, .fd = fd, .mode = FALLOC_FL_KEEP_SIZE,
	     .off = 1 << 20, .len = 4096, .ret = r,
	     .has = H_PATH | H_FD | H_MODE | H_OFF | H_LEN | H_RET);
	r = SC(SYS_fadvise64, fd, 0L, 8192L, POSIX_FADV_WILLNEED);
	EMIT(.op = "fadvise64", .path = o.path, .kind = o.kind, .fd = fd, .off = 0, .len = 8192,
	     .mode = POSIX_FADV_WILLNEED, .ret = r,
	     .has = H_PATH | H_FD | H_OFF | H_LEN | H_MODE | H_RET);

	/* dup'd fds share the position with fd */
	wl__lseek(fd, &o, 0, SEEK_SET);
	d1 = SC(SYS_dup, fd);
	EMIT(.op = "dup", .path = o.path, .kind = o.kind, .fd = fd, .ret = d1, .has = H_PATH | H_FD | H_RET);
	d2 = SC(SYS_dup2, fd, hi_fd(w, 0));
	EMIT(.op = "dup2", .path = o.path, .kind = o.kind, .fd = fd, .fd2 = hi_fd(w, 0), .ret = d2,
	     .has = H_PATH | H_FD | H_FD2 | H_RET);
	d3 = SC(SYS_dup3, fd, hi_fd(w, 1), O_CLOEXEC);
	EMIT(.op = "dup3", .path = o.path, .kind = o.kind, .fd = fd, .fd2 = hi_fd(w, 1), .flags = O_CLOEXEC,
	     .ret = d3, .has = H_PATH | H_FD | H_FD2 | H_FLAGS | H_RET);
	d4 = SC(SYS_fcntl, fd, F_DUPFD, hi_fd(w, 2));
	EMIT(.op = "fcntl_dupfd", .path = o.path, .kind = o.kind, .fd = fd, .fd2 = hi_fd(w, 2), .ret = d4,
	     .has = H_PATH | H_FD | H_RET, .note = "F_DUPFD (fd2: lowest fd asked)");
	if (d1 < 0 || d2 < 0 || d3 < 0 || d4 < 0)
		wl__die("dup: %d %d %d %d", d1, d2, d3, d4);
	wl__read(d1, &o, buf, 1000);
	wl__read(d2, &o, buf, 1000);
	wl__write(d3, &o, wl_pat, 1000);
	wl__read(d4, &o, buf, 1000);
	wl__pread(d2, &o, buf, 512, 4096);
	wl__close(d1, &o);
	wl__close(d2, &o);
	wl__close(d3, &o);
	wl__close(d4, &o);
	wl__read(fd, &o, buf, 96); /* the position moved through the dups */

	/* dup2 onto an fd open on another file closes that one: the fd is data<round> now */
	{
		char orel[64], oabs[PATH_MAX];
		struct ofd other;
		int ofd;

		snprintf(orel, sizeof(orel), "other%d", round);
		wl__join(oabs, w->dir, orel);
		ofd = wl__open(&other, "openat", SYS_openat, dirfd, orel, oabs,
			       O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (ofd < 0)
			wl__die("openat %s: %s", oabs, strerror(-ofd));
		wl__write(ofd, &other, wl_pat, 10);
		d2 = SC(SYS_dup2, fd, ofd);
		EMIT(.op = "dup2", .path = o.path, .kind = o.kind, .fd = fd, .fd2 = ofd, .ret = d2,
		     .has = H_PATH | H_FD | H_FD2 | H_RET, .note = "onto an open fd");
		if (d2 != ofd)
			wl__die("dup2 onto %d: %d", ofd, d2);
		wl__pread(ofd, &o, buf, 100, 0);
		wl__close(ofd, &o);
	}

	r = SC(SYS_mmap, NULL, 8192L, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 4096L);
	map = r < 0 ? MAP_FAILED : (void *)r;
	EMIT(.op = "mmap", .path = o.path, .kind = o.kind, .fd = fd, .off = 4096, .len = 8192, .ret = r,
	     .mode = PROT_READ | PROT_WRITE, .flags = MAP_SHARED,
	     .has = H_PATH | H_FD | H_OFF | H_LEN | H_RET | H_MODE | H_FLAGS);
	if (map == MAP_FAILED)
		wl__die("mmap: %s", strerror(-r));
	memset(map, 'm', 100);
	r = SC(SYS_msync, map, 8192L, MS_SYNC);
	EMIT(.op = "msync", .path = o.path, .aux = (uintptr_t)map, .len = 8192, .flags = MS_SYNC,
	     .ret = r, .has = H_PATH | H_AUX | H_LEN | H_FLAGS | H_RET);
	r = SC(SYS_munmap, map, 8192L);
	EMIT(.op = "munmap", .path = o.path, .aux = (uintptr_t)map, .len = 8192, .ret = r,
	     .has = H_PATH | H_AUX | H_LEN | H_RET);
	/*
	 * A just-closed fd: -EBADF, and no file to name. Closed twice on a number of this
	 * thread's own: a low number, free for a moment, can be another thread's new fd by the
	 * second close (which then closes that one, and the other thread's next op fails).
	 */
	d1 = SC(SYS_dup2, fd, hi_fd(w, 3));
	EMIT(.op = "dup2", .path = o.path, .kind = o.kind, .fd = fd, .fd2 = hi_fd(w, 3), .ret = d1,
	     .has = H_PATH | H_FD | H_FD2 | H_RET);
	if (d1 != hi_fd(w, 3))
		wl__die("dup2 onto %d: %d", hi_fd(w, 3), d1);
	wl__close(fd, &o);
	wl__close(d1, &o);
	r = SC(SYS_close, d1);
	EMIT(.op = "close", .fd = d1, .ret = r, .has = H_FD | H_RET);
}

/* Metadata on data<round>, then the rename chain that leaves final<round>. */
static void round_meta(struct worker *w, int dirfd, int round)
{
	char rel[PATH_MAX], rel2[PATH_MAX], abs[PATH_MAX], abs2[PATH_MAX], a[64], b[64];
	struct statx stx;
	struct stat st;
	struct ofd o;
	long r;

	snprintf(rel, sizeof(rel), "%s/data%d", w->rel, round);
	wl__join(abs, wl_opt.root, rel);
	snprintf(a, sizeof(a), "data%d", round);

	r = SC(SYS_stat, rel, &st);
	do_pathop("stat", r, abs, 0, 0, 0);
	r = SC(SYS_lstat, rel, &st);
	do_pathop("lstat", r, abs, 0, 0, 0);
	r = SC(SYS_newfstatat, dirfd, a, &st, 0);
	do_pathop("newfstatat", r, abs, 0, 0, dirfd);
	r = SC(SYS_statx, dirfd, a, 0, STATX_BASIC_STATS, &stx);
	do_pathop("statx", r, abs, 0, 0, dirfd);
	r = SC(SYS_access, rel, R_OK);
	do_pathop("access", r, abs, H_MODE, R_OK, 0);
	r = SC(SYS_faccessat, dirfd, a, W_OK);
	do_pathop("faccessat", r, abs, H_MODE, W_OK, dirfd);

	snprintf(rel2, sizeof(rel2), "%s/missing%d", w->rel, round);
	wl__join(abs2, wl_opt.root, rel2);
	r = SC(SYS_stat, rel2, &st);
	do_pathop("stat", r, abs2, 0, 0, 0);				   /* -ENOENT */
	wl__open(&o, "open", SYS_open, AT_FDCWD, rel2, abs2, O_RDONLY, 0); /* -ENOENT */

	snprintf(rel2, sizeof(rel2), "%s/ren%d", w->rel, round);
	wl__join(abs2, wl_opt.root, rel2);
	r = SC(SYS_rename, rel, rel2);
	EMIT(.op = "rename", .path = abs, .path2 = abs2, .ret = r, .has = H_PATH | H_PATH2 | H_RET);

	snprintf(a, sizeof(a), "ren%d", round);
	snprintf(b, sizeof(b), "ren2_%d", round);
	wl__join(abs, w->dir, a);
	wl__join(abs2, w->dir, b);
	r = SC(SYS_renameat, dirfd, a, dirfd, b);
	EMIT(.op = "renameat", .path = abs, .path2 = abs2, .ret = r, .dirfd = dirfd,
	     .has = H_PATH | H_PATH2 | H_RET);

	snprintf(a, sizeof(a), "final%d", round);
	wl__join(abs, w->dir, a);
	r = SC(SYS_renameat2, dirfd, b, dirfd, a, RENAME_NOREPLACE);
	EMIT(.op = "renameat2", .path = abs2, .path2 = abs, .ret = r, .dirfd = dirfd,
	     .flags = RENAME_NOREPLACE, .has = H_PATH | H_PATH2 | H_RET | H_FLAGS);

	/* truncate by path: final<round> shrinks to 4 KiB */
	snprintf(rel, sizeof(rel), "%s/final%d", w->rel, round);
	r = SC(SYS_truncate, rel, 4096L);
	EMIT(.op = "truncate", .path = abs, .len = 4096, .ret = r, .has = H_PATH | H_LEN | H_RET);
}

/*
 * creat, O_APPEND (where an lseek does not move the write), openat2, a directory made,
 * listed and removed, unlinks, and an O_DIRECT attempt (tmpfs may say EINVAL: logged).
 */
static void round_files(struct worker *w, int dirfd, int round)
{
	char rel[PATH_MAX], abs[PATH_MAX], abs2[PATH_MAX], a[64], buf[8192];
	struct ofd o;
	int fd;
	long r;

	snprintf(rel, sizeof(rel), "%s/c%d", w->rel, round);
	wl__join(abs, wl_opt.root, rel);
	fd = wl__open(&o, "creat", SYS_creat, AT_FDCWD, rel, abs, 0, 0600);
	if (fd >= 0) {
		wl__write(fd, &o, wl_pat, 100);
		wl__close(fd, &o);
	}

	snprintf(rel, sizeof(rel), "%s/append%d", w->rel, round);
	wl__join(abs, wl_opt.root, rel);
	fd = wl__open(&o, "open", SYS_open, AT_FDCWD, rel, abs,
		      O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	if (fd < 0)
		wl__die("open %s: %s", abs, strerror(-fd));
	wl__write(fd, &o, wl_pat, 300);
	wl__write(fd, &o, wl_pat, 200);
	wl__lseek(fd, &o, 0, SEEK_SET);
	wl__write(fd, &o, wl_pat, 100); /* lands at 500, not at 0 */
	wl__close(fd, &o);

	snprintf(a, sizeof(a), "final%d", round);
	wl__join(abs, w->dir, a);
	fd = do_openat2(&o, dirfd, a, abs, O_RDONLY, RESOLVE_BENEATH);
	if (fd >= 0) {
		wl__read(fd, &o, buf, 8192);
		wl__close(fd, &o);
	}
	snprintf(a, sizeof(a), "missing%d", round);
	wl__join(abs, w->dir, a);
	do_openat2(&o, dirfd, a, abs, O_RDONLY, RESOLVE_BENEATH); /* -ENOENT */

	/* a directory with one file, listed with getdents64, then removed */
	snprintf(a, sizeof(a), "d%d", round);
	wl__join(abs, w->dir, a);
	r = SC(SYS_mkdirat, dirfd, a, 0700);
	do_pathop("mkdirat", r, abs, H_MODE, 0700, dirfd);
	r = SC(SYS_mkdirat, dirfd, a, 0700);
	do_pathop("mkdirat", r, abs, H_MODE, 0700, dirfd); /* -EEXIST */
	snprintf(a, sizeof(a), "d%d/f", round);
	wl__join(abs2, w->dir, a);
	fd = wl__open(&o, "openat", SYS_openat, dirfd, a, abs2, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd >= 0)
		wl__close(fd, &o);
	snprintf(a, sizeof(a), "d%d", round);
	fd = wl__open(&o, "openat", SYS_openat, dirfd, a, abs, O_RDONLY | O_DIRECTORY, 0);
	if (fd >= 0) {
		do {
			r = SC(SYS_getdents64, fd, buf, sizeof(buf));
			EMIT(.op = "getdents64", .path = o.path, .kind = o.kind, .fd = fd, .len = sizeof(buf),
			     .ret = r, .has = H_PATH | H_FD | H_LEN | H_RET);
		} while (r > 0);
		wl__close(fd, &o);
	}
	snprintf(a, sizeof(a), "d%d/f", round);
	r = SC(SYS_unlinkat, dirfd, a, 0);
	EMIT(.op = "unlinkat", .path = abs2, .ret = r, .dirfd = dirfd, .flags = 0,
	     .has = H_PATH | H_RET | H_FLAGS);
	snprintf(rel, sizeof(rel), "%s/d%d", w->rel, round);
	if (round % 2 == 0) {
		r = SC(SYS_rmdir, rel);
		do_pathop("rmdir", r, abs, 0, 0, 0);
	} else {
		snprintf(a, sizeof(a), "d%d", round);
		r = SC(SYS_unlinkat, dirfd, a, AT_REMOVEDIR);
		EMIT(.op = "unlinkat", .path = abs, .ret = r, .dirfd = dirfd, .flags = AT_REMOVEDIR,
		     .has = H_PATH | H_RET | H_FLAGS);
	}

	snprintf(rel, sizeof(rel), "%s/c%d", w->rel, round);
	wl__join(abs, wl_opt.root, rel);
	r = SC(SYS_unlink, rel);
	do_pathop("unlink", r, abs, 0, 0, 0);
	r = SC(SYS_unlink, rel);
	do_pathop("unlink", r, abs, 0, 0, 0); /* -ENOENT */
	r = SC(SYS_mkdir, w->rel, 0755);
	wl__join(abs, wl_opt.root, w->rel);
	do_pathop("mkdir", r, abs, H_MODE, 0755, 0); /* -EEXIST */

	/* O_DIRECT: aligned buffer and length; then a misaligned length, which fails */
	if (round == 0) {
		const char *root = wl_opt.shm_dir ? wl_opt.shm_root : wl_opt.root;

		snprintf(a, sizeof(a), "direct_p%dt%d", w->proc, w->idx);
		wl__join(abs, root, a);
		fd = wl__open(&o, "openat", SYS_openat, AT_FDCWD, abs, abs,
			      O_RDWR | O_CREAT | O_DIRECT, 0644);
		if (fd >= 0) {
			char *dbuf = aligned_alloc(4096, 4096);

			if (!dbuf)
				wl__die("out of memory");
			wl__pwrite(fd, &o, wl_pat, 4096, 0);
			wl__pread(fd, &o, dbuf, 4096, 0);
			wl__pread(fd, &o, dbuf, 100, 0);
			wl__close(fd, &o);
			free(dbuf);
		}
	}
}

/*
 * I/O that is not storage work: a pipe, a socket pair, an eventfd. The trace may leave it
 * out (DESIGN.md: it is think time); if it keeps it, it must say what kind of fd it was.
 */
static void round_nonfile(void)
{
	static const char *const kinds[] = { "fifo", "sock", "other" };
	int fds[3][2], r;
	uint64_t v = 1;
	char buf[16];

	if (pipe2(fds[0], O_CLOEXEC) || socketpair(AF_UNIX, SOCK_STREAM, 0, fds[1]))
		wl__die("pipe/socketpair: %s", strerror(errno));
	fds[2][0] = fds[2][1] = eventfd(0, EFD_CLOEXEC);
	if (fds[2][0] < 0)
		wl__die("eventfd: %s", strerror(errno));
	for (int i = 0; i < 3; i++) {
		r = SC(SYS_write, fds[i][1], &v, 8L);
		EMIT(.op = "write", .fd = fds[i][1], .kind = kinds[i], .len = 8, .ret = r,
		     .nonfile = true, .has = H_FD | H_LEN | H_RET);
		r = SC(SYS_read, fds[i][0], buf, 8L);
		EMIT(.op = "read", .fd = fds[i][0], .kind = kinds[i], .len = 8, .ret = r,
		     .nonfile = true, .has = H_FD | H_LEN | H_RET);
	}
	for (int i = 0; i < 3; i++) {
		close(fds[i][0]);
		if (fds[i][1] != fds[i][0])
			close(fds[i][1]);
	}
}

/* ---- format 1.1: copies inside the kernel, inode attributes, links ---- */

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452 /* Linux 6.6; Debian 12's headers predate it */
#endif

/*
 * copy_file_range(in, off_in, out, off_out, len, flags). A NULL pointer means the fd's
 * position, used and moved; a given one is used, moved in user memory, and the fd stays.
 */
static long do_copy_file_range(int in, struct ofd *oi, int64_t *off_in, int out, struct ofd *oo,
			       int64_t *off_out, size_t len, unsigned flags)
{
	int64_t rpos = off_in ? *off_in : oi->pos, wp = off_out ? *off_out : oo->pos;
	long r = SC(SYS_copy_file_range, in, off_in, out, off_out, len, flags);

	if (r > 0) {
		if (!off_in)
			oi->pos += r;
		if (!off_out)
			oo->pos += r;
		if (wp + r > oo->size)
			oo->size = wp + r;
	}
	EMIT(.op = "copy_file_range", .path = oi->path, .kind = oi->kind, .fd = in, .fd2 = out,
	     .path2 = oo->path, .off = rpos, .aux = wp, .len = len, .flags = flags, .ret = r,
	     .has = H_PATH | H_PATH2 | H_FD | H_FD2 | H_OFF | H_AUX | H_LEN | H_FLAGS | H_RET,
	     .note = off_in ? (off_out ? "both offsets given" : "off_in given")
			    : (off_out ? "off_out given" : "NULL offsets: the fds' positions"));
	verify_pos(in, oi, "copy_file_range (in)");
	verify_pos(out, oo, "copy_file_range (out)");
	return r;
}

/*
 * sendfile(out, in, offset, count) to a file (oo), or to a socket or pipe (oo NULL, out_kind
 * its kind: no position, no path).
 */
static long do_sendfile(int out, struct ofd *oo, const char *out_kind, int in, struct ofd *oi,
			int64_t *off, size_t count)
{
	int64_t rpos = off ? *off : oi->pos, wp = oo ? oo->pos : 0;
	long r = SC(SYS_sendfile, out, in, off, count);
	unsigned mode = !oo ? (strcmp(out_kind, "sock") ? 5 /* fifo */ : 6 /* sock */) : 1;

	if (r > 0) {
		if (!off)
			oi->pos += r;
		if (oo) {
			oo->pos += r;
			if (oo->pos > oo->size)
				oo->size = oo->pos;
		}
	}
	/* to a file: its path and position; to a socket or a pipe: none (aux 0) */
	EMIT(.op = "sendfile", .path = oi->path, .kind = oi->kind, .fd = in, .fd2 = out,
	     .path2 = oo ? oo->path : NULL, .off = rpos, .aux = wp, .mode = mode, .len = count,
	     .ret = r,
	     .has = H_PATH | H_FD | H_FD2 | H_OFF | H_AUX | H_MODE | H_LEN | H_RET |
		    (oo ? H_PATH2 : 0),
	     .note = !oo   ? out_kind
		     : off ? "offset given"
			   : "NULL offset: the in fd's position");
	verify_pos(in, oi, "sendfile (in)");
	if (oo)
		verify_pos(out, oo, "sendfile (out)");
	return r;
}

/*
 * The offsets given in a file mapping not touched yet. At sys_enter the capture cannot read
 * them (no page faults there); it must take them at exit, from where the kernel stored them
 * advanced by what it copied. Page 0 holds copy_file_range's, page 1 sendfile's, each mapped
 * on its own: a fault maps the pages around it in the same mapping.
 */
static void copy_unmapped_offsets(struct worker *w, int dirfd, int round, int in, struct ofd *si,
				  int out, struct ofd *so)
{
	static const int64_t want[3] = {2500, 9000, 4000};
	int64_t init[513] = {want[0], want[1]};
	char m[64], mabs[PATH_MAX];
	struct ofd om;
	int64_t *map = NULL, *map2 = NULL;
	long r, fd;

	init[512] = want[2];
	snprintf(m, sizeof(m), "offs%d", round);
	wl__join(mabs, w->dir, m);
	fd = wl__open(&om, "openat", SYS_openat, dirfd, m, mabs, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		wl__die("openat %s: %s", mabs, strerror(-fd));
	wl__pwrite(fd, &om, init, sizeof(init), 0);
	for (int i = 0; i < 2; i++) {
		r = SC(SYS_mmap, NULL, 4096L, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, i * 4096L);
		EMIT(.op = "mmap", .path = om.path, .kind = om.kind, .fd = fd, .off = i * 4096,
		     .len = 4096, .ret = r, .mode = PROT_READ | PROT_WRITE, .flags = MAP_PRIVATE,
		     .has = H_PATH | H_FD | H_OFF | H_LEN | H_RET | H_MODE | H_FLAGS);
		if (r < 0)
			wl__die("mmap: %s", strerror(-r));
		if (i == 0)
			map = (int64_t *)r;
		else
			map2 = (int64_t *)r;
	}

	r = SC(SYS_copy_file_range, in, &map[0], out, &map[1], 1200L, 0);
	EMIT(.op = "copy_file_range", .path = si->path, .kind = si->kind, .fd = in, .fd2 = out,
	     .path2 = so->path, .off = want[0], .aux = want[1], .len = 1200, .flags = 0, .ret = r,
	     .has = H_PATH | H_PATH2 | H_FD | H_FD2 | H_OFF | H_AUX | H_LEN | H_FLAGS | H_RET,
	     .note = "offsets in a page not mapped yet");
	if (r > 0 && want[1] + r > so->size)
		so->size = want[1] + r;
	if (r != 1200 || map[0] != want[0] + r || map[1] != want[1] + r)
		wl__die("copy_file_range from unmapped offsets: %ld, now at %" PRId64 " %" PRId64,
			r, map[0], map[1]);
	r = SC(SYS_sendfile, out, in, &map2[0], 600L);
	EMIT(.op = "sendfile", .path = si->path, .kind = si->kind, .fd = in, .fd2 = out,
	     .path2 = so->path, .off = want[2], .aux = so->pos, .mode = 1, .len = 600, .ret = r,
	     .has = H_PATH | H_PATH2 | H_FD | H_FD2 | H_OFF | H_AUX | H_MODE | H_LEN | H_RET,
	     .note = "offset in a page not mapped yet");
	if (r > 0) {
		so->pos += r;
		if (so->pos > so->size)
			so->size = so->pos;
	}
	if (r != 600 || map2[0] != want[2] + r)
		wl__die("sendfile from an unmapped offset: %ld, now at %" PRId64, r, map2[0]);
	verify_pos(in, si, "copies from unmapped offsets (in)");
	verify_pos(out, so, "copies from unmapped offsets (out)");
	r = SC(SYS_munmap, map, 4096L);
	EMIT(.op = "munmap", .path = om.path, .aux = (uintptr_t)map, .len = 4096, .ret = r,
	     .has = H_PATH | H_AUX | H_LEN | H_RET);
	r = SC(SYS_munmap, map2, 4096L);
	EMIT(.op = "munmap", .path = om.path, .aux = (uintptr_t)map2, .len = 4096, .ret = r,
	     .has = H_PATH | H_AUX | H_LEN | H_RET);
	wl__close(fd, &om);
}

/* ops on a path by an *at call: fd is the dirfd (FORMAT.md), -100 for AT_FDCWD */
#define AT_HAS (H_PATH | H_FD | H_RET)

/*
 * open(2)'s O_TMPFILE idiom: an unnamed file, written, then given a name by
 * linkat(AT_FDCWD, "/proc/self/fd/N", AT_FDCWD, name, AT_SYMLINK_FOLLOW). The trace has it as
 * a link from fd N itself (FORMAT.md): fd N, AT_EMPTY_PATH for AT_SYMLINK_FOLLOW, path the
 * file as the capturer knows fd N (the directory it was opened in), path2 the name.
 */
static void flink(struct worker *w, int dirfd, int round)
{
	char proc[64], name[64], abs[PATH_MAX];
	struct ofd o;
	long r;
	int fd;

	fd = wl__open(&o, "openat", SYS_openat, dirfd, w->dir, w->dir, O_RDWR | O_TMPFILE, 0600);
	if (fd < 0)
		wl__die("O_TMPFILE in %s: %s", w->dir, strerror(-fd));
	wl__write(fd, &o, wl_pat, 4096);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	snprintf(name, sizeof(name), "flink%d", round);
	wl__join(abs, w->dir, name);
	r = SC(SYS_linkat, AT_FDCWD, proc, AT_FDCWD, abs, AT_SYMLINK_FOLLOW);
	EMIT(.op = "linkat", .path = w->dir, .kind = "reg", .path2 = abs, .fd = fd, .fd2 = AT_FDCWD,
	     .flags = AT_EMPTY_PATH, .ret = r, .has = AT_HAS | H_PATH2 | H_FD2 | H_FLAGS,
	     .note = "O_TMPFILE flink via /proc");
	if (r)
		wl__die("linkat %s -> %s: %s", proc, abs, strerror(-r));
	wl__close(fd, &o);
}

/*
 * copy_file_range and sendfile between files (NULL and given offsets), sendfile to a socket
 * and a pipe; then chmod, chown, utimensat (and futimens), link, symlink (relative, dangling
 * and absolute content) and readlink, each flavour, by path, by dirfd and on an fd.
 */
static void round_copies(struct worker *w, int dirfd, int round)
{
	char a[64], b[64], rel[PATH_MAX], abs[PATH_MAX], abs2[PATH_MAX], buf[256];
	int64_t off_in, off_out;
	struct ofd si, so;
	int in, out, sv[2], pv[2];
	uid_t uid = geteuid();
	gid_t gid = getegid();
	long r;

	snprintf(a, sizeof(a), "cpsrc%d", round);
	wl__join(abs, w->dir, a);
	in = wl__open(&si, "openat", SYS_openat, dirfd, a, abs, O_RDWR | O_CREAT | O_TRUNC, 0644);
	snprintf(b, sizeof(b), "cpdst%d", round);
	wl__join(abs2, w->dir, b);
	out = wl__open(&so, "openat", SYS_openat, dirfd, b, abs2, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || out < 0)
		wl__die("openat %s, %s: %ld, %ld", abs, abs2, (long)in, (long)out);
	wl__write(in, &si, wl_pat, 16384);

	wl__lseek(in, &si, 1000, SEEK_SET);
	do_copy_file_range(in, &si, NULL, out, &so, NULL, 5000, 0);
	off_in = 2000;
	off_out = 8192;
	do_copy_file_range(in, &si, &off_in, out, &so, &off_out, 3000, 0);
	off_in = 100;
	do_copy_file_range(in, &si, &off_in, out, &so, NULL, 1000, 0);
	off_out = 12288;
	do_copy_file_range(in, &si, NULL, out, &so, &off_out, 1500, 0);
	do_copy_file_range(in, &si, NULL, out, &so, NULL, 100, 1); /* -EINVAL: no flags exist */
	copy_unmapped_offsets(w, dirfd, round, in, &si, out, &so);

	do_sendfile(out, &so, "reg", in, &si, NULL, 2048);
	off_in = 300;
	do_sendfile(out, &so, "reg", in, &si, &off_in, 700);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) || pipe2(pv, O_CLOEXEC))
		wl__die("socketpair/pipe: %s", strerror(errno));
	off_in = 0;
	do_sendfile(sv[0], NULL, "sock", in, &si, &off_in, 1000);
	do_sendfile(pv[1], NULL, "fifo", in, &si, NULL, 512);
	/* drained by libc calls: I/O on a socket and a pipe, which the trace leaves out */
	if (read(sv[1], buf, sizeof(buf)) < 0 || read(pv[0], buf, sizeof(buf)) < 0)
		wl__die("drain: %s", strerror(errno));
	/*
	 * From a socket: into a file (this kernel says EINVAL, but it is a write to storage all
	 * the same, so it stays), and into a pipe, no file at either end: it may be left out.
	 */
	if (write(sv[1], buf, 100) != 100)
		wl__die("socket write: %s", strerror(errno));
	{
		int64_t wp = so.pos;

		r = SC(SYS_sendfile, out, sv[0], NULL, 100L);
		if (r > 0) {
			so.pos += r;
			if (so.pos > so.size)
				so.size = so.pos;
		}
		EMIT(.op = "sendfile", .kind = "sock", .fd = sv[0], .fd2 = out, .path2 = so.path,
		     .off = 0, .aux = wp, .mode = 1, .len = 100, .ret = r,
		     .has = H_FD | H_FD2 | H_PATH2 | H_OFF | H_AUX | H_MODE | H_LEN | H_RET,
		     .note = "from a socket into a file");
		r = SC(SYS_sendfile, pv[1], sv[0], NULL, 10L);
		EMIT(.op = "sendfile", .kind = "sock", .fd = sv[0], .len = 10, .ret = r,
		     .nonfile = true, .has = H_FD | H_LEN | H_RET, .note = "socket to pipe");
	}
	close(sv[0]);
	close(sv[1]);
	close(pv[0]);
	close(pv[1]);

	/* chmod family: by path (relative to the cwd), on an fd, by dirfd; fchmodat2 */
	snprintf(rel, sizeof(rel), "%s/%s", w->rel, a);
	r = SC(SYS_chmod, rel, 0640);
	EMIT(.op = "chmod", .path = abs, .fd = -1, .mode = 0640, .ret = r, .has = AT_HAS | H_MODE);
	r = SC(SYS_fchmod, in, 0600);
	EMIT(.op = "fchmod", .path = abs, .kind = "reg", .fd = in, .mode = 0600, .ret = r,
	     .has = H_PATH | H_FD | H_MODE | H_RET);
	r = SC(SYS_fchmodat, dirfd, b, 0604);
	EMIT(.op = "fchmodat", .path = abs2, .fd = dirfd, .mode = 0604, .flags = 0, .ret = r,
	     .has = AT_HAS | H_MODE | H_FLAGS);
	r = SC(SYS_fchmodat2, dirfd, b, 0644, AT_SYMLINK_NOFOLLOW);
	EMIT(.op = "fchmodat", .path = abs2, .fd = dirfd, .mode = 0644,
	     .flags = AT_SYMLINK_NOFOLLOW, .ret = r, .has = AT_HAS | H_MODE | H_FLAGS,
	     .note = "fchmodat2");
	/* AT_EMPTY_PATH with a path: the kernel ignores it, and the trace must not say "on the
	 * fd itself" (FORMAT.md): a lookup of b from the dirfd, the flag cleared */
	r = SC(SYS_fchmodat2, dirfd, b, 0644, AT_EMPTY_PATH);
	EMIT(.op = "fchmodat", .path = abs2, .fd = dirfd, .mode = 0644, .flags = 0, .ret = r,
	     .has = AT_HAS | H_MODE | H_FLAGS, .note = "fchmodat2, AT_EMPTY_PATH with a path");
	{
		struct stat st;

		r = SC(SYS_newfstatat, dirfd, b, &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
		EMIT(.op = "newfstatat", .path = abs2, .dirfd = dirfd, .flags = AT_SYMLINK_NOFOLLOW,
		     .ret = r, .has = H_PATH | H_RET | H_FLAGS,
		     .note = "AT_EMPTY_PATH with a path");
	}
	r = SC(SYS_fchmodat2, out, "", 0640, AT_EMPTY_PATH);
	EMIT(.op = "fchmodat", .path = abs2, .kind = "reg", .fd = out, .mode = 0640,
	     .flags = AT_EMPTY_PATH, .ret = r, .has = AT_HAS | H_MODE | H_FLAGS,
	     .note = "fchmodat2 on the fd itself");
	wl__join(rel, w->dir, "nosuch");
	r = SC(SYS_fchmodat, dirfd, "nosuch", 0600);
	EMIT(.op = "fchmodat", .path = rel, .fd = dirfd, .mode = 0600, .ret = r,
	     .has = AT_HAS | H_MODE, .note = "-ENOENT");
	snprintf(rel, sizeof(rel), "%s/%s", w->rel, a);

	/* chown family: uid and gid as asked, -1 (4294967295) leaving one unchanged */
	r = SC(SYS_chown, rel, uid, (gid_t)-1);
	EMIT(.op = "chown", .path = abs, .fd = -1, .aux = uid, .ctx = 4294967295u, .ret = r,
	     .has = AT_HAS | H_AUX | H_CTX);
	r = SC(SYS_fchown, out, (uid_t)-1, gid);
	EMIT(.op = "fchown", .path = abs2, .kind = "reg", .fd = out, .aux = 4294967295u, .ctx = gid,
	     .ret = r, .has = H_PATH | H_FD | H_AUX | H_CTX | H_RET);
	r = SC(SYS_fchownat, dirfd, b, uid, gid, AT_SYMLINK_NOFOLLOW);
	EMIT(.op = "fchownat", .path = abs2, .fd = dirfd, .aux = uid, .ctx = gid,
	     .flags = AT_SYMLINK_NOFOLLOW, .ret = r, .has = AT_HAS | H_AUX | H_CTX | H_FLAGS);

	/* utimensat by dirfd, then futimens: utimensat(fd, NULL) */
	r = SC(SYS_utimensat, dirfd, a, NULL, 0);
	EMIT(.op = "utimensat", .path = abs, .fd = dirfd, .flags = 0, .ret = r,
	     .has = AT_HAS | H_FLAGS);
	r = SC(SYS_utimensat, out, NULL, NULL, 0);
	EMIT(.op = "utimensat", .path = abs2, .kind = "reg", .fd = out, .flags = AT_EMPTY_PATH,
	     .ret = r, .has = AT_HAS | H_FLAGS, .note = "futimens: NULL path, AT_EMPTY_PATH");

	/* a hard link to an open file: linkat(fd, "", ..., AT_EMPTY_PATH) (root, or EPERM/ENOENT)
	 */
	snprintf(rel, sizeof(rel), "hlfd%d", round);
	wl__join(abs, w->dir, rel);
	r = SC(SYS_linkat, out, "", dirfd, rel, AT_EMPTY_PATH);
	EMIT(.op = "linkat", .path = abs2, .kind = "reg", .path2 = abs, .fd = out, .fd2 = dirfd,
	     .flags = AT_EMPTY_PATH, .ret = r, .has = AT_HAS | H_PATH2 | H_FD2 | H_FLAGS,
	     .note = "on the fd itself");
	flink(w, dirfd, round);
	wl__join(abs, w->dir, a);
	snprintf(rel, sizeof(rel), "%s/%s", w->rel, a);

	wl__close(in, &si);
	wl__close(out, &so);

	/* hard links: by path from the cwd, by dirfds; linking onto a name that exists */
	{
		char rel2[PATH_MAX], abs3[PATH_MAX], c[64];

		snprintf(rel2, sizeof(rel2), "%s/hl%d", w->rel, round);
		wl__join(abs3, wl_opt.root, rel2);
		r = SC(SYS_link, rel, rel2);
		EMIT(.op = "link", .path = abs, .path2 = abs3, .fd = -1, .fd2 = -1, .ret = r,
		     .has = AT_HAS | H_PATH2 | H_FD2);
		r = SC(SYS_link, rel, rel2);
		EMIT(.op = "link", .path = abs, .path2 = abs3, .fd = -1, .fd2 = -1, .ret = r,
		     .has = AT_HAS | H_PATH2 | H_FD2, .note = "-EEXIST");
		snprintf(c, sizeof(c), "hlat%d", round);
		wl__join(abs3, w->dir, c);
		r = SC(SYS_linkat, dirfd, b, AT_FDCWD, abs3, 0);
		EMIT(.op = "linkat", .path = abs2, .path2 = abs3, .fd = dirfd, .fd2 = AT_FDCWD,
		     .flags = 0, .ret = r, .has = AT_HAS | H_PATH2 | H_FD2 | H_FLAGS);

		/*
		 * symlinks: the content as given, never resolved - relative to the link's own
		 * directory (here not the cwd's), dangling, and absolute
		 */
		snprintf(rel2, sizeof(rel2), "%s/sl%d", w->rel, round);
		wl__join(abs3, wl_opt.root, rel2);
		r = SC(SYS_symlink, a, rel2);
		EMIT(.op = "symlink", .path = abs3, .path2 = a, .fd = -1, .ret = r,
		     .has = AT_HAS | H_PATH2, .note = "relative content");
		/* what a readlink read is its path2, verbatim as the content was given */
		r = SC(SYS_readlink, rel2, buf, 100L);
		EMIT(.op = "readlink", .path = abs3, .path2 = r > 0 ? a : NULL, .fd = -1,
		     .len = 100, .ret = r, .has = AT_HAS | H_PATH2 | H_LEN);
		r = SC(SYS_lchown, rel2, (uid_t)-1, gid);
		EMIT(.op = "lchown", .path = abs3, .fd = -1, .aux = 4294967295u, .ctx = gid,
		     .ret = r, .has = AT_HAS | H_AUX | H_CTX);
		r = SC(SYS_utimensat, AT_FDCWD, rel2, NULL, AT_SYMLINK_NOFOLLOW);
		EMIT(.op = "utimensat", .path = abs3, .fd = AT_FDCWD, .flags = AT_SYMLINK_NOFOLLOW,
		     .ret = r, .has = AT_HAS | H_FLAGS);
		snprintf(c, sizeof(c), "slat%d", round);
		wl__join(abs3, w->dir, c);
		r = SC(SYS_symlinkat, "../nowhere/./x", dirfd, c);
		EMIT(.op = "symlinkat", .path = abs3, .path2 = "../nowhere/./x", .fd = dirfd,
		     .ret = r, .has = AT_HAS | H_PATH2, .note = "dangling content");
		r = SC(SYS_readlinkat, dirfd, c, buf, 64L);
		EMIT(.op = "readlinkat", .path = abs3, .path2 = r > 0 ? "../nowhere/./x" : NULL,
		     .fd = dirfd, .len = 64, .ret = r, .has = AT_HAS | H_PATH2 | H_LEN);
		r = SC(SYS_symlinkat, abs, AT_FDCWD, abs3);
		EMIT(.op = "symlinkat", .path = abs3, .path2 = abs, .fd = AT_FDCWD, .ret = r,
		     .has = AT_HAS | H_PATH2, .note = "-EEXIST, absolute content");
		r = SC(SYS_readlinkat, dirfd, b, buf, 64L);
		EMIT(.op = "readlinkat", .path = abs2, .path2 = NULL, .fd = dirfd, .len = 64,
		     .ret = r, .has = AT_HAS | H_PATH2 | H_LEN, .note = "-EINVAL: not a link");
	}
}

void wl_sync__round(struct worker *w, int dirfd, int round)
{
	char buf[4096];

	if (round == 0)
		round_nonfile();
	/* every thread of the process on one fd at once: positioned ops, own offsets */
	wl__pwrite(w->common_fd, w->common, wl_pat, 4096, (w->idx * 4 + round) * 4096);
	wl__pread(w->common_fd, w->common, buf, 4096, (w->idx * 4 + round) * 4096);
	round_data(w, dirfd, round);
	round_meta(w, dirfd, round);
	round_files(w, dirfd, round);
	round_copies(w, dirfd, round);
}
