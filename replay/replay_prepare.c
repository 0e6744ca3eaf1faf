/* SPDX-License-Identifier: MIT */
/*
 * replay_prepare.c - create the file set under each root, or reuse the one already there.
 *
 * Each root holds a manifest, ROOT/.ioreel-prepared: the trace's identity (device, inode,
 * mtime, size of the trace file, plus the roots and --map rules), a state line, and one line
 * per directory, file and symlink with its size (a symlink's: its content too, when known). A
 * root is reused when its manifest is the one this trace would write, its state is "clean" and
 * every listed file still has its size, every symlink its content. A replay of a trace that
 * creates, deletes, renames or truncates turns the state to "dirty" before its first op, so
 * the next run prepares again. Preparing empties the root first, which is only done to a root
 * that is empty, carries a manifest, or when --fresh says so.
 *
 * Files are written with real, non-zero data (never extended with ftruncate: holes read for
 * free and would flatter the storage under test). A file set larger than a target's free
 * space is refused before anything is written: a RAM disk that fills up takes the machine's
 * memory with it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "replay_int.h"

#define MANIFEST ".ioreel-prepared"
#define MANIFEST_TMP ".ioreel-prepared.tmp"
#define FILL_CHUNK (1u << 20)

/* The manifest this trace and mapping would write for one root; malloc'd. */
/* the bytes of a file that are data, not holes */
static uint64_t file__data(const struct replay_fentry *e)
{
	uint64_t n = e->size;

	for (size_t i = 0; i < e->nholes; i++)
		n -= e->holes[2 * i + 1] - e->holes[2 * i];
	return n;
}

/* FNV-1a of a file's holes: a target prepared with other holes is prepared again */
static uint64_t holes__hash(const struct replay_fentry *e)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < 2 * e->nholes; i++) {
		for (int b = 0; b < 64; b += 8) {
			h ^= (e->holes[i] >> b) & 0xff;
			h *= 0x100000001b3ULL;
		}
	}
	return h;
}

static char *manifest__build(const struct replay_fileset *fs, int root, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	n = (size_t)snprintf(s, cap, "ioreel-prepared 1\nidentity %s\nstate clean\n", fs->identity);
	for (size_t i = 0; i < fs->n; i++) {
		const struct replay_fentry *e = &fs->e[i];
		size_t need;

		if (e->root != root)
			continue;
		need = strlen(e->rel) + (e->content ? strlen(e->content) + 4 : 0) + 80;
		if (n + need >= cap) {
			char *t;

			while (n + need >= cap)
				cap *= 2;
			t = realloc(s, cap);
			if (!t) {
				free(s);
				return NULL;
			}
			s = t;
		}
		if (e->kind == REPLAY_F_DIR)
			n += (size_t)snprintf(s + n, cap - n, "d %s\n", e->rel);
		else if (e->kind == REPLAY_F_SYMLINK && e->content)
			n += (size_t)snprintf(s + n, cap - n, "l %llu %s -> %s\n",
					      (unsigned long long)e->size, e->rel, e->content);
		else if (e->kind == REPLAY_F_SYMLINK)
			n += (size_t)snprintf(s + n, cap - n, "l %llu %s\n",
					      (unsigned long long)e->size, e->rel);
		else
			n += (size_t)snprintf(s + n, cap - n, "%s %llu %s\n", e->exec ? "x" : "f",
					      (unsigned long long)e->size, e->rel);
		if (e->nholes)
			n += (size_t)snprintf(s + n, cap - n, "h %zu %016llx\n", e->nholes,
					      (unsigned long long)holes__hash(e));
	}
	*len = n;
	return s;
}

static char *file__slurp(int dirfd, const char *name, size_t *len)
{
	struct stat st;
	char *s;
	int fd = replay_path__open(dirfd, name, O_RDONLY | O_NOFOLLOW, 0);
	ssize_t r;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !(s = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return NULL;
	}
	r = pread(fd, s, (size_t)st.st_size, 0);
	close(fd);
	if (r != st.st_size) {
		free(s);
		return NULL;
	}
	s[r] = '\0';
	*len = (size_t)r;
	return s;
}

/*
 * A symlink whose content the trace tells must still have it: one swapped for another of the
 * same length (python3.11 -> python3.12) would pass the size check and lead elsewhere.
 */
static int symlink__matches(int pfd, const char *base, const struct replay_fentry *e)
{
	char buf[PATH_MAX];
	ssize_t n;

	if (!e->content)
		return 1;
	n = readlinkat(pfd, base, buf, sizeof(buf));
	return n >= 0 && (size_t)n == strlen(e->content) && !memcmp(buf, e->content, (size_t)n);
}

static int root__matches(const struct replay_mapper *m, const struct replay_fileset *fs, int root)
{
	size_t want_len, have_len;
	char *want = manifest__build(fs, root, &want_len);
	char *have = file__slurp(m->roots[root].fd, MANIFEST, &have_len);
	int ok = want && have && want_len == have_len && !memcmp(want, have, want_len);

	free(want);
	free(have);
	for (size_t i = 0; ok && i < fs->n; i++) {
		const struct replay_fentry *e = &fs->e[i];
		const char *base;
		struct stat st;
		int pfd;

		if (e->root != root)
			continue;
		pfd = replay_path__parent(m->roots[root].fd, e->rel, &base);
		if (pfd < 0)
			return 0;
		ok = !fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) &&
		     (e->kind == REPLAY_F_DIR	    ? S_ISDIR(st.st_mode)
		      : e->kind == REPLAY_F_SYMLINK ? S_ISLNK(st.st_mode)
						    : S_ISREG(st.st_mode)) &&
		     (e->kind == REPLAY_F_DIR || (uint64_t)st.st_size == e->size) &&
		     (e->kind != REPLAY_F_SYMLINK || symlink__matches(pfd, base, e));
		close(pfd);
	}
	return ok;
}

/* Removes everything below dirfd without following symlinks or leaving the file system. */
static int tree__empty(int dirfd, dev_t dev)
{
	DIR *d;
	struct dirent *de;
	int err = 0;
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while (!err && (de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			err = -errno;
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			int sub;

			if (st.st_dev != dev) {
				err = -EXDEV;
				break;
			}
			sub =
			    openat(fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0) {
				err = -errno;
				break;
			}
			err = tree__empty(sub, dev);
			close(sub);
			if (!err && unlinkat(fd, de->d_name, AT_REMOVEDIR))
				err = -errno;
		} else if (unlinkat(fd, de->d_name, 0)) {
			err = -errno;
		}
	}
	closedir(d);
	return err;
}

static int root__is_empty(int rootfd)
{
	int fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	int empty = 1;
	DIR *d;

	if (fd < 0)
		return 0;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			empty = 0;
			break;
		}
	}
	closedir(d);
	return empty;
}

static void fill__chunk(uint64_t *buf, size_t words, uint64_t *state)
{
	uint64_t x = *state;

	for (size_t i = 0; i < words; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* no zero byte anywhere: zeros might be stored or compressed as holes */
		buf[i] = x | 0x0101010101010101ULL;
	}
	*state = x;
}

static int file__create(int rootfd, const struct replay_fentry *e, void *buf, uint64_t *seed)
{
	int fd =
	    replay_path__open(rootfd, e->rel, O_WRONLY | O_CREAT | O_EXCL, e->exec ? 0755 : 0644);
	uint64_t off = 0;
	size_t h = 0;

	if (fd < 0)
		return fd;
	while (off < e->size) {
		/* data up to the next hole the application found (replay_fileset.c): those stay
		 * holes, never written */
		uint64_t end = h < e->nholes ? e->holes[2 * h] : e->size;
		size_t n = end - off > FILL_CHUNK ? FILL_CHUNK : (size_t)(end - off);
		ssize_t w;

		if (off >= end) {
			off = e->holes[2 * h++ + 1];
			continue;
		}
		fill__chunk(buf, (n + 7) / 8, seed);
		w = pwrite(fd, buf, n, (off_t)off);
		if (w <= 0) {
			int err = w < 0 ? -errno : -EIO;

			close(fd);
			return err;
		}
		off += (uint64_t)w;
	}
	/* a hole at the end: the size all the same */
	if (e->nholes && ftruncate(fd, (off_t)e->size)) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (close(fd))
		return -errno;
	return 0;
}

static int dir__create(int rootfd, const char *rel)
{
	const char *base;
	int pfd = replay_path__parent(rootfd, rel, &base);
	struct stat st;
	int err = 0;

	if (pfd < 0)
		return pfd;
	if (mkdirat(pfd, base, 0755)) {
		err = -errno;
		if (err == -EEXIST && !fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISDIR(st.st_mode))
			err = 0;
	}
	close(pfd);
	return err;
}

/*
 * A symlink with the content the file set gives it (what readlink read, made relative to lead
 * to the prepared destination: replay_fileset.c). One whose content the trace lacks: a
 * stand-in of the same length, so that readlink returns what it returned, that can never be
 * followed: absolute ("/" and a filler, cut to the length), which every lookup beneath the
 * root refuses (RESOLVE_BENEATH). A relative one may name a real sibling ("i", "io" for the
 * shortest) and lead there.
 */
static int symlink__create(int rootfd, const struct replay_fentry *e)
{
	static const char stem[] = "/ioreel-unknown-symlink-content";
	char content[PATH_MAX];
	size_t n = e->size < sizeof(content) ? (size_t)e->size : sizeof(content) - 1;
	const char *base;
	int pfd, err = 0;

	if (e->content && strlen(e->content) < sizeof(content)) {
		strcpy(content, e->content);
	} else {
		for (size_t i = 0; i < n; i++)
			content[i] = i < sizeof(stem) - 1 ? stem[i] : '_';
		content[n] = '\0';
	}
	pfd = replay_path__parent(rootfd, e->rel, &base);
	if (pfd < 0)
		return pfd;
	if (symlinkat(content, pfd, base))
		err = -errno;
	close(pfd);
	return err;
}

static int manifest__write(int rootfd, const struct replay_fileset *fs, int root)
{
	size_t len;
	char *s = manifest__build(fs, root, &len);
	int fd, err = 0;

	if (!s)
		return -ENOMEM;
	fd = replay_path__open(rootfd, MANIFEST_TMP, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW,
			       0644);
	if (fd < 0) {
		free(s);
		return fd;
	}
	ssize_t n = write(fd, s, len);

	if (n < 0 || fsync(fd))
		err = -errno;
	else if (n != (ssize_t)len) /* short: no errno set (the file system is full) */
		err = -ENOSPC;
	close(fd);
	free(s);
	if (!err && renameat(rootfd, MANIFEST_TMP, rootfd, MANIFEST))
		err = -errno;
	return err;
}

/* bytes the file set takes on root's file system: data rounded up to blocks, one per dir */
static uint64_t space__need(const struct replay_fileset *fs, int root, uint64_t block)
{
	uint64_t need = 0;

	for (size_t i = 0; i < fs->n; i++) {
		if (fs->e[i].root == root)
			need += (file__data(&fs->e[i]) + block - 1) / block * block + block;
	}
	return need;
}

/* every root's file system holds what goes on it (roots on one file system add up) */
static int space__check(const struct replay_mapper *m, const struct replay_fileset *fs,
			char *err, size_t errsz)
{
	for (int i = 0; i < m->n_roots; i++) {
		struct statvfs vi;
		struct stat si;
		uint64_t need = 0, avail;
		int first = 1;

		if (fstatvfs(m->roots[i].fd, &vi) || fstat(m->roots[i].fd, &si))
			return -errno;
		if (!vi.f_blocks)
			continue; /* no size to run out of (ramfs) */
		for (int j = 0; j < m->n_roots; j++) {
			struct stat sj;

			if (fstat(m->roots[j].fd, &sj))
				return -errno;
			if (sj.st_dev != si.st_dev)
				continue;
			if (j < i)
				first = 0;
			need += space__need(fs, j, vi.f_frsize ? vi.f_frsize : 4096);
		}
		avail = (uint64_t)vi.f_bavail * vi.f_frsize;
		if (first && need > avail) {
			/* in MiB below a GiB: "needs 0.03 GiB ... has 0.01 GiB free" told little */
			int gib = need >= (1ULL << 30);
			double unit = gib ? (double)(1 << 30) : (double)(1 << 20);

			snprintf(err, errsz,
				 "the file set needs %.*f %s on %s, which has %.*f %s free: refusing to "
				 "fill it (free space, or --map part of the tree elsewhere)",
				 gib ? 2 : 1, (double)need / unit, gib ? "GiB" : "MiB",
				 m->roots[i].dir, gib ? 2 : 1, (double)avail / unit, gib ? "GiB" : "MiB");
			return -ENOSPC;
		}
	}
	return 0;
}

int replay_prepare__run(const struct replay_mapper *m, const struct replay_fileset *fs, int fresh,
			struct replay_prep_result *res, char *err, size_t errsz)
{
	uint64_t seed = 0x2545f4914f6cdd1dULL;
	int reuse = !fresh, r = 0;
	void *buf = NULL;

	memset(res, 0, sizeof(*res));
	for (int i = 0; i < m->n_roots && reuse; i++)
		reuse = root__matches(m, fs, i);
	if (reuse) {
		res->reused = 1;
		for (size_t i = 0; i < fs->n; i++) {
			if (fs->e[i].kind == REPLAY_F_DIR) {
				res->dirs++;
			} else {
				res->files++;
				if (fs->e[i].kind == REPLAY_F_FILE)
					res->bytes += file__data(&fs->e[i]);
			}
		}
		return 0;
	}
	for (int i = 0; i < m->n_roots; i++) {
		struct stat st;
		size_t l;
		char *have;

		if (fstat(m->roots[i].fd, &st))
			return -errno;
		have = file__slurp(m->roots[i].fd, MANIFEST, &l);
		free(have);
		if (!have && !fresh && !root__is_empty(m->roots[i].fd)) {
			snprintf(
			    err, errsz,
			    "target %s is not empty and was not prepared by ioreel: refusing to "
			    "wipe it (empty it, or pass --fresh)",
			    m->roots[i].dir);
			return -ENOTEMPTY;
		}
		r = tree__empty(m->roots[i].fd, st.st_dev);
		if (r) {
			snprintf(err, errsz, "cannot empty target %s: %s", m->roots[i].dir,
				 strerror(-r));
			return r;
		}
	}
	/* after emptying: what ioreel prepared there before is free space now */
	r = space__check(m, fs, err, errsz);
	if (r)
		return r;
	if (posix_memalign(&buf, 4096, FILL_CHUNK))
		return -ENOMEM;
	for (size_t i = 0; i < fs->n && !r; i++) {
		const struct replay_fentry *e = &fs->e[i];

		if (e->kind == REPLAY_F_DIR) {
			r = dir__create(m->roots[e->root].fd, e->rel);
			res->dirs++;
		} else if (e->kind == REPLAY_F_SYMLINK) {
			r = symlink__create(m->roots[e->root].fd, e);
			res->files++;
		} else {
			r = file__create(m->roots[e->root].fd, e, buf, &seed);
			res->files++;
			res->bytes += file__data(e);
		}
		if (r == -EXDEV) {
			res->refused++; /* a symlink leading out: the replay refuses it too */
			r = 0;
		}
		if (r)
			snprintf(err, errsz, "cannot prepare %s/%s: %s", m->roots[e->root].dir,
				 e->rel, strerror(-r));
	}
	free(buf);
	for (int i = 0; i < m->n_roots && !r; i++) {
		int fd = openat(m->roots[i].fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		/* written back now, so that the replay does not pay for the preparation */
		if (fd >= 0) {
			syncfs(fd);
			close(fd);
		}
		r = manifest__write(m->roots[i].fd, fs, i);
		if (r)
			snprintf(err, errsz, "cannot write %s/%s: %s", m->roots[i].dir, MANIFEST,
				 strerror(-r));
	}
	return r;
}

int replay_prepare__mark_dirty(const struct replay_mapper *m)
{
	for (int i = 0; i < m->n_roots; i++) {
		size_t len;
		char *s = file__slurp(m->roots[i].fd, MANIFEST, &len);
		char *st = s ? strstr(s, "\nstate clean\n") : NULL;
		int fd;

		if (st) {
			fd = replay_path__open(m->roots[i].fd, MANIFEST, O_WRONLY | O_NOFOLLOW, 0);
			if (fd >= 0) {
				if (pwrite(fd, "dirty", 5, st - s + 7) != 5) {
					close(fd);
					free(s);
					return -EIO;
				}
				fsync(fd);
				close(fd);
			}
		}
		free(s);
	}
	return 0;
}

int replay_prepare__cold(const struct replay_mapper *m, const struct replay_fileset *fs)
{
	int fd;

	for (int i = 0; i < m->n_roots; i++) {
		fd = openat(m->roots[i].fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			syncfs(fd);
			close(fd);
		}
	}
	for (size_t i = 0; i < fs->n; i++) {
		if (fs->e[i].kind != REPLAY_F_FILE)
			continue;
		fd = replay_path__open(m->roots[fs->e[i].root].fd, fs->e[i].rel, O_RDONLY, 0);
		if (fd < 0)
			continue;
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
	if (geteuid() == 0) {
		fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (write(fd, "3", 1) != 1) {
			close(fd);
			return -errno;
		}
		close(fd);
	}
	return 0;
}
