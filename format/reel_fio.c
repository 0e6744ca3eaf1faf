/* SPDX-License-Identifier: MIT */
/*
 * reel_fio.c - a trace as fio iologs (version 3), one per original thread, and a job file
 * that replays them all at once.
 *
 * fio's iolog v3 (fio's iolog.c, read_iolog): a header line "fio version 3 iolog", then
 * "TIME FILE add|open|close" and "TIME FILE read|write|sync|datasync|trim OFFSET LENGTH",
 * TIME in microseconds since the start (log_io_u writes utime_since_now; the replay waits
 * TIME - previous TIME with usec_sleep). Two quirks shape what we write:
 * - no delay is applied before the line after one with TIME 0, so TIME = trace us + 1;
 * - file actions carry a delay that fio never sleeps (ipo_special handles them before the
 *   delay is applied), so they are stamped with the previous I/O's TIME, not their own,
 *   and the next I/O waits the whole gap.
 * File names are read with "%256s": names with whitespace or longer than 256 bytes cannot
 * be written. Reads and writes are written with the bytes they moved (ret), not the bytes
 * asked for: a replay of a short read at EOF must not read past the file's end.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reel_convert.h"
#include "reel_cvt_util.h"
#include "reel_fio_batch.h"
#include "reel_fio_cache.h"

#define FIO_NAME_MAX 256
#define FIO_FD_DIRECT (1ULL << 32)
/* posix_fadvise's advice (fadvise64's mode) that drops a range from the page cache */
#define FIO_FADV_DONTNEED 4
/* At most this many phases of jobs (reel_fio_cache.h): each is a stonewall, which fio
 * starts only when every job before it has ended; the drops after the last are left out. */
#define FIO_PHASES_MAX 16
/*
 * A read that took this long in the original came from the device, not the page cache; reads
 * fio will take from the cache are warned of when at least FIO_WARN_READS of them did, and
 * half or more of the sync ones that read bytes written before them (one read of a RocksDB
 * file just written took 95 us: a preemption, not the device).
 */
#define FIO_DEVICE_READ_NS 50000
#define FIO_WARN_READS 10

struct fio_thread {
	uint32_t pid, tid, idx;
	/* the phase of jobs its log is in (reel_fio_cache.h); whether the log holds its
	 * thread's lines on the files dropped as that phase began, which its job drops as it
	 * opens them (invalidate=1), the thread's other lines of the phase being in its
	 * sibling (fio_log_of says why apart) */
	uint32_t phase;
	int dropped;
	struct fio_thread *sibling;
	FILE *f;
	char *log;
	struct cvt_map files; /* path id -> 1 added | 2 open */
	uint64_t ios, syncs, last_us;
	/* what its job can carry (fio_job_io): reads/writes on O_DIRECT fds and on others;
	 * lines from sync syscalls, libaio and io_uring requests */
	uint64_t direct_ios, buffered_ios, lines[3];
	/* its completed async requests: submission (2t + 1) and reap (2t) times, sorted and
	 * swept at the end for the most in flight at once */
	uint64_t *ev;
	size_t nev, evcap;
	struct fio_batches calls; /* its async submission calls, by lines (iodepth_batch_submit) */
	struct fio_thread *next;
};

/* Where a thread's iolog line came from, fio_thread.lines */
enum { FIO_SRC_SYNC = 0, FIO_SRC_AIO, FIO_SRC_URING };

struct fio_state {
	struct reel_reader *r;
	const struct reel_fio_opts *o;
	struct reel_fio_result *res;
	struct cvt_map threads;	 /* (pid, tid) -> struct fio_thread *, its latest log */
	struct cvt_map dthreads; /* (pid, tid) -> its latest log of dropped files (fio_log_of) */
	struct cvt_map fds;	 /* (pid, fd) -> path id | FIO_FD_DIRECT */
	struct cvt_map reqs;	 /* async requests in flight written to a log: fio_req_key ->
				    count << 32 | thread idx */
	struct fio_thread **tv;	 /* by idx */
	uint32_t nthreads;
	int src, direct;	 /* the op being written: FIO_SRC_*, on an O_DIRECT fd */
	struct fio_thread *last; /* the thread fio_emit last wrote a line for */
	struct cvt_map names;	 /* path id -> char * (fio's name), or 1 when unusable */
	struct cvt_map extent;	 /* path id -> furthest byte read or written */
	struct fio_thread *first, **tail;
	/* the page cache as the trace went, and the phases of jobs it took to replay its drops:
	 * the current one, whose logs' times count from base_us (trace us), and the latest end
	 * of an op written to a log so far, where the next phase's times will count from */
	struct fio_cache cache;
	uint32_t phase;
	uint64_t base_us, last_end_us;
};

static const char *const fio_lo_what[REEL_FIO_LO__COUNT] = {
    [REEL_FIO_LO_METADATA] = "metadata ops (stat, rename, mkdir, unlink, access, getdents, "
			     "chmod, chown, utimensat, link, symlink, readlink, munmap, file "
			     "locks, failed opens)",
    [REEL_FIO_LO_SYNC_OTHER] = "sync_file_range, syncfs, msync and syncs of directories",
    [REEL_FIO_LO_ZERO] = "failed or zero-byte reads, writes and syncs",
    [REEL_FIO_LO_NO_PATH] = "reads/writes on fds whose file the trace does not name",
    [REEL_FIO_LO_BAD_NAME] = "ops on paths with whitespace or over 256 bytes (fio cannot "
			     "parse them)",
    [REEL_FIO_LO_ASYNC] = "async requests other than read, write, fsync",
    [REEL_FIO_LO_MMAP] = "mmaps (their I/O is page faults, not in the trace)",
    [REEL_FIO_LO_SPACE] = "fallocate, truncate, ftruncate, fadvise64",
    [REEL_FIO_LO_NO_IO] = "syncs of threads without reads or writes (fio rejects such logs)",
    [REEL_FIO_LO_COPY] = "copy_file_range calls (the file system may clone or offload them: "
			 "a read and a write would misstate their cost)",
    [REEL_FIO_LO_NONFILE] = "ops on /proc, /sys, /dev (but /dev/shm), pipes, sockets and "
			    "devices (not storage: ioreel replay leaves them out too)",
};

static const char *const fio_ap_what[REEL_FIO_AP__COUNT] = {
    [REEL_FIO_AP_DIRECT_LOST] = "reads/writes on O_DIRECT fds replayed buffered (most of "
				"their job's I/O was buffered; fio has one direct= per job)",
    [REEL_FIO_AP_DIRECT_ADDED] = "reads/writes on buffered fds replayed O_DIRECT (most of "
				 "their job's I/O was O_DIRECT; fio has one direct= per job)",
    [REEL_FIO_AP_SYNC_ASYNC] = "reads/writes/syncs of sync syscalls replayed through their "
			       "job's async engine (fio has one ioengine per job)",
    [REEL_FIO_AP_OTHER_ENGINE] = "async requests replayed through their job's other async "
				 "engine (a thread used both libaio and io_uring)",
    [REEL_FIO_AP_UNREAPED] = "async requests with no completion in the trace (not counted "
			     "in their job's iodepth)",
    [REEL_FIO_AP_RWF_SYNC] = "writes with RWF_DSYNC or RWF_SYNC (pwritev2, libaio, io_uring) "
			     "replayed as plain writes (fio's log has no flags per write)",
    [REEL_FIO_AP_BATCH] = "async requests submitted in calls of another size than their job's "
			  "iodepth_batch_submit (fio has one per job: it holds a smaller call's "
			  "requests until its next lines or a full queue make up the batch, and "
			  "splits a larger one)",
    [REEL_FIO_AP_SPLIT] = "reads/writes/syncs of files dropped from the page cache run by a job "
			  "beside their thread's others in a later phase (fio's invalidate= is per "
			  "job, not per file): their order against those is kept by their times "
			  "alone",
};

void reel_fio__print_left_out(const struct reel_fio_result *res, FILE *out)
{
	for (int i = 0; i < REEL_FIO_LO__COUNT; i++)
		if (res->left_out[i])
			fprintf(out, "ioreel: fio iolog left out %" PRIu64 " %s\n",
				res->left_out[i], fio_lo_what[i]);
	for (int i = 0; i < REEL_FIO_AP__COUNT; i++)
		if (res->approx[i])
			fprintf(out, "ioreel: fio job file cannot carry %" PRIu64 " %s\n",
				res->approx[i], fio_ap_what[i]);
	if (res->phases)
		fprintf(out,
			"ioreel: fio job file replays %" PRIu64 " fadvise DONTNEED (of bytes the "
			"application had read or written) as %" PRIu64 " later phase(s) of jobs, "
			"begun where it read dropped bytes again: each starts once the jobs before "
			"it end (stonewall), and its threads' lines on the dropped files go to "
			"jobs that drop them from the page cache as they open them (invalidate=1), "
			"so that those reads come from the device as the original's did, their "
			"other lines to jobs that keep it (invalidate=0)\n",
			res->drops_replayed, res->phases);
	if (res->reads_after_write_slow >= FIO_WARN_READS &&
	    2 * res->reads_after_write_slow >= res->reads_after_write)
		fprintf(out,
			"ioreel: WARNING: %" PRIu64 " reads of %" PRIu64 " file(s) read bytes the "
			"logs wrote before them, with nothing between that drops them from the page "
			"cache, and took %d us or more in the original, as reads from the device do: "
			"fio will likely read them from the page cache, faster than the original did "
			"(something the trace does not show dropped them there: memory pressure, "
			"drop_caches). To read them from the device, drop the cache before they start "
			"(sync; echo 1 > /proc/sys/vm/drop_caches), or give their job stonewall and "
			"invalidate=1 in the job file (its times then count from where the jobs "
			"before it end)\n",
			res->reads_after_write_slow, res->files_after_write, FIO_DEVICE_READ_NS / 1000);
}

/* fio's name of a path, or NULL when it cannot have one (left_out counted by caller). */
static const char *fio_name(struct fio_state *s, uint32_t path, int *err)
{
	uint64_t *v = cvt_map__put(&s->names, path, NULL);
	const char *p = reel_reader__path(s->r, path);
	const char *root = s->o->root;
	char *n;
	size_t rl;

	*err = 0;
	if (!v) {
		*err = -ENOMEM;
		return NULL;
	}
	if (*v)
		return *v == 1 ? NULL : (const char *)(uintptr_t)*v;
	*v = 1;
	if (!p)
		return NULL;
	rl = root ? strlen(root) : 0;
	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	n = malloc(rl + strlen(p) + 2);
	if (!n) {
		*err = -ENOMEM;
		return NULL;
	}
	if (root)
		sprintf(n, "%.*s%s%s", (int)rl, root, *p == '/' ? "" : "/", p);
	else
		strcpy(n, p);
	if (strlen(n) > FIO_NAME_MAX || strpbrk(n, " \t\n\r\v\f")) {
		free(n);
		return NULL;
	}
	*v = (uintptr_t)n;
	return n;
}

/* The name of a thread's log: PREFIX.TID, in a later phase PREFIX.TID.PHASE, and for its
 * lines on the files dropped as that phase began PREFIX.TID.PHASE.dropped */
static int fio_log_name(const struct fio_state *s, const struct reel_op *op, int dropped,
			char **name)
{
	if (!s->phase)
		return asprintf(name, "%s.%" PRIu32, s->o->prefix, op->tid);
	return asprintf(name, "%s.%" PRIu32 ".%" PRIu32 "%s", s->o->prefix, op->tid, s->phase + 1,
			dropped ? ".dropped" : "");
}

/* The log of op's thread in the current phase, of the files dropped as it began or of the
 * others (fio_log_of), made on first use. */
static struct fio_thread *fio_thread(struct fio_state *s, const struct reel_op *op, int dropped,
				     int *err)
{
	struct cvt_map *logs = dropped ? &s->dthreads : &s->threads;
	uint64_t *v = cvt_map__put(logs, cvt_key2(op->pid, op->tid), NULL);
	uint64_t *other =
	    cvt_map__get(dropped ? &s->threads : &s->dthreads, cvt_key2(op->pid, op->tid));
	struct fio_thread *t, **tv;

	*err = 0;
	if (!v) {
		*err = -ENOMEM;
		return NULL;
	}
	/* a thread's ops in a later phase go to a log and a job of their own */
	if (*v && ((struct fio_thread *)(uintptr_t)*v)->phase == s->phase)
		return (struct fio_thread *)(uintptr_t)*v;
	/* s->tv grows at powers of two */
	tv = s->nthreads & (s->nthreads - 1)
		 ? s->tv
		 : realloc(s->tv, (s->nthreads ? 2 * (size_t)s->nthreads : 1) * sizeof(*tv));
	if (!tv) {
		*err = -ENOMEM;
		return NULL;
	}
	s->tv = tv;
	t = calloc(1, sizeof(*t));
	if (!t || fio_log_name(s, op, dropped, &t->log) < 0) {
		free(t);
		*err = -ENOMEM;
		return NULL;
	}
	t->pid = op->pid;
	t->tid = op->tid;
	t->idx = s->nthreads;
	t->phase = s->phase;
	t->dropped = dropped;
	t->last_us = 1;
	cvt_map__init(&t->files);
	fio_batches__init(&t->calls);
	t->f = fopen(t->log, "w");
	if (!t->f) {
		*err = -errno;
		free(t->log);
		free(t);
		return NULL;
	}
	fputs("fio version 3 iolog\n", t->f);
	*v = (uintptr_t)t;
	if (other && ((struct fio_thread *)(uintptr_t)*other)->phase == s->phase) {
		t->sibling = (struct fio_thread *)(uintptr_t)*other;
		t->sibling->sibling = t;
	}
	s->tv[s->nthreads++] = t;
	*s->tail = t;
	s->tail = &t->next;
	return t;
}

/* t's thread has lines in the other log of its phase too: two jobs (fio_log_of) */
static int fio_split(const struct fio_thread *t)
{
	return t->ios && t->sibling && t->sibling->ios;
}

/*
 * After the logs are written, the logs of dropped files: one whose thread had no other lines
 * in its phase takes the thread's plain name (PREFIX.TID.PHASE), its job too; the lines of
 * those beside another are counted.
 */
static int fio_dropped_logs_end(struct fio_state *s)
{
	char *plain;

	for (struct fio_thread *t = s->first; t; t = t->next) {
		if (!t->dropped || !t->ios)
			continue;
		if (fio_split(t)) {
			s->res->approx[REEL_FIO_AP_SPLIT] += t->ios + t->syncs;
			continue;
		}
		plain = strndup(t->log, strlen(t->log) - strlen(".dropped"));
		if (!plain)
			return -ENOMEM;
		if (rename(t->log, plain)) {
			free(plain);
			return -errno;
		}
		free(t->log);
		t->log = plain;
	}
	return 0;
}

/*
 * Which log of its thread a line on path goes to: in a later phase, one of its own when the
 * file was dropped from the cache as the phase began. fio drops the files of a job whose
 * invalidate=1 as it opens them, every file it opens: a job of a thread that read a dropped
 * file and one the application kept in the cache (written, or read again, since its last
 * drop, by any thread) dropped both, and its reads of the kept one came from the device
 * where the original's came from the cache. fio has no invalidate per file; so the thread's
 * lines on the dropped files go to a job with invalidate=1, and the others to one with
 * invalidate=0. The two run side by side, each on its lines' times: their order between
 * them is kept by the times alone (counted, REEL_FIO_AP_SPLIT). A thread that touches only
 * one kind of file in the phase keeps one job.
 */
static int fio_log_of(struct fio_state *s, uint32_t path, int *dropped)
{
	struct fio_cfile *f = fio_cache__file(&s->cache, path);

	if (!f)
		return -ENOMEM;
	*dropped = s->phase && f->phase == s->phase;
	return 0;
}

/*
 * A buffered read of bytes a DONTNEED dropped (reel_fio_cache.h): the ops from here on go to
 * a new phase of jobs, which fio starts once every job before it has ended (stonewall), and
 * whose times count from the end of the last op written before it. Its jobs that open the
 * dropped files drop them from the cache as they open them (invalidate=1, fio_log_of).
 */
static void fio_cache_cut(struct fio_state *s)
{
	s->phase++;
	s->base_us = s->last_end_us;
	s->res->phases++;
	s->res->drops_replayed += fio_cache__cut(&s->cache, s->phase);
}

/* What a buffered read or write of path tells of the page cache, before it is written to a
 * log: a read of dropped bytes begins a phase; one of bytes written with no drop between,
 * that took a device's time in the original, will be read from the cache by fio. */
static int fio_cache_io(struct fio_state *s, const struct reel_op *op, uint32_t path, int read,
			uint64_t off, uint64_t len)
{
	struct fio_cfile *f;

	if (s->direct) /* O_DIRECT: the cache is not in its way */
		return 0;
	f = fio_cache__file(&s->cache, path);
	if (!f)
		return -ENOMEM;
	if (read && fio_cfile__dropped(f, off, len) && s->phase + 1 < FIO_PHASES_MAX)
		fio_cache_cut(s);
	/* a sync syscall's own time; an async submission's is not its read's */
	if (read && s->src == FIO_SRC_SYNC && fio_cfile__written(f, off, len)) {
		s->res->reads_after_write++;
		if (op->end_ns >= op->start_ns + FIO_DEVICE_READ_NS) {
			s->res->reads_after_write_slow++;
			s->res->files_after_write += !f->warned;
			f->warned = 1;
		}
	}
	fio_cfile__touch(f, off, len, !read);
	return 0;
}

/* The time of op in its phase's logs: us since the phase began, + 1 (fio applies no delay
 * after a line with time 0) */
static uint64_t fio_us(struct fio_state *s, const struct reel_op *op)
{
	uint64_t us = op->start_ns / 1000, end = (op->end_ns > op->start_ns ? op->end_ns
									     : op->start_ns) / 1000;

	if (end > s->last_end_us)
		s->last_end_us = end;
	return us > s->base_us ? us - s->base_us + 1 : 1;
}

/* One read/write/sync/datasync line for path, with add/open first when needed. */
static int fio_emit(struct fio_state *s, const struct reel_op *op, uint32_t path, const char *act,
		    uint64_t off, uint64_t len)
{
	struct fio_thread *t;
	const char *name;
	uint64_t *st, us;
	int err, dropped;

	s->last = NULL;
	if (!path) {
		s->res->left_out[REEL_FIO_LO_NO_PATH]++;
		return 0;
	}
	name = fio_name(s, path, &err);
	if (!name) {
		if (!err)
			s->res->left_out[REEL_FIO_LO_BAD_NAME]++;
		return err;
	}
	if ((act[0] == 'r' || act[0] == 'w') &&
	    (err = fio_cache_io(s, op, path, act[0] == 'r', off, len)))
		return err;
	/* (after fio_cache_io: its read may have begun a phase, dropping path as it began) */
	if ((err = fio_log_of(s, path, &dropped)))
		return err;
	us = fio_us(s, op);
	t = fio_thread(s, op, dropped, &err);
	if (!t)
		return err;
	st = cvt_map__put(&t->files, path, NULL);
	if (!st)
		return -ENOMEM;
	if (!(*st & 1))
		fprintf(t->f, "%" PRIu64 " %s add\n", t->last_us, name);
	if (!(*st & 2))
		fprintf(t->f, "%" PRIu64 " %s open\n", t->last_us, name);
	*st |= 3;
	if (us < t->last_us)
		us = t->last_us;
	fprintf(t->f, "%" PRIu64 " %s %s %" PRIu64 " %" PRIu64 "\n", us, name, act, off, len);
	t->last_us = us;
	if (act[0] == 'r' || act[0] == 'w') {
		uint64_t *ext = cvt_map__put(&s->extent, path, NULL);

		if (!ext)
			return -ENOMEM;
		if (off + len > *ext)
			*ext = off + len;
		t->ios++;
		s->res->ios++;
		if (s->direct)
			t->direct_ios++;
		else
			t->buffered_ios++;
	} else {
		t->syncs++;
		s->res->syncs++;
	}
	t->lines[s->src]++;
	s->last = t;
	return ferror(t->f) ? -EIO : 0;
}

static uint32_t fio_path_of(struct fio_state *s, const struct reel_op *op)
{
	uint64_t *v;

	if (op->path)
		return op->path;
	v = op->fd >= 0 ? cvt_map__get(&s->fds, cvt_key2(op->pid, (uint32_t)op->fd)) : NULL;
	return v ? (uint32_t)*v : 0;
}

/*
 * Not storage, by the rule ioreel replay follows (reel_path__is_nonfile, the fd's kind):
 * fio's own disk-util reads of /sys/block/DEV/stat would otherwise become a [prep] job
 * laying out ROOT/sys/block/DEV/stat and a job reading it.
 */
static int fio_nonfile(struct fio_state *s, const struct reel_op *op, uint32_t path)
{
	const char *p = path ? reel_reader__path(s->r, path) : NULL;

	if (p && reel_path__is_nonfile(p))
		return 1;
	return !op->path && op->fd >= 0 &&
	       (op->fd_kind == REEL_FD_CHR || op->fd_kind == REEL_FD_FIFO ||
		op->fd_kind == REEL_FD_SOCK || op->fd_kind == REEL_FD_OTHER);
}

/* fd of pid refers to path (0: unknown), opened O_DIRECT or not */
static int fio_fd_set(struct fio_state *s, uint32_t pid, int64_t fd, uint32_t path, int direct)
{
	uint64_t *v;

	if (fd < 0)
		return 0;
	if (!path && !direct) { /* unknown: not what the number named before (a dup2 over it) */
		cvt_map__del(&s->fds, cvt_key2(pid, (uint32_t)fd));
		return 0;
	}
	v = cvt_map__put(&s->fds, cvt_key2(pid, (uint32_t)fd), NULL);
	if (!v)
		return -ENOMEM;
	*v = path | (direct ? FIO_FD_DIRECT : 0);
	return 0;
}

static int fio_fd_direct(struct fio_state *s, const struct reel_op *op)
{
	uint64_t *v =
	    op->fd >= 0 ? cvt_map__get(&s->fds, cvt_key2(op->pid, (uint32_t)op->fd)) : NULL;

	return v && (*v & FIO_FD_DIRECT);
}

/* The fds open before the capture with O_DIRECT (capture.fd_flags) */
static int fio_fds_preopened(struct fio_state *s)
{
	const char *list = reel_reader__meta(s->r, REEL_META_CAPTURE_FD_FLAGS);
	uint32_t pid, fd;
	uint64_t flags;

	while (list && reel_meta__fd_entry(&list, &pid, &fd, &flags, 8))
		if ((flags & O_DIRECT) && fio_fd_set(s, pid, fd, 0, 1))
			return -ENOMEM;
	return 0;
}

/* An async request is known by its process, engine, context and id (FORMAT.md) */
static uint64_t fio_req_key(const struct reel_op *op)
{
	uint64_t h = (uint64_t)op->pid << 1 |
		     (op->type == REEL_OP_URING_SUBMIT || op->type == REEL_OP_URING_COMPLETE);

	/* splitmix64 steps over the fields: a collision merely misattributes a request */
	for (int i = 0; i < 3; i++) {
		h += (i == 0 ? 0 : i == 1 ? op->ctx : op->aux) + 0x9e3779b97f4a7c15ULL;
		h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
		h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
		h ^= h >> 31;
	}
	return h;
}

/* A request written to thread t's log is in flight until its completion record */
static int fio_req_submitted(struct fio_state *s, const struct reel_op *op, struct fio_thread *t)
{
	uint64_t *v = cvt_map__put(&s->reqs, fio_req_key(op), NULL);

	if (!v)
		return -ENOMEM;
	/* ids alike in flight (strace's aio_data, fio leaves it 0): counted, same thread */
	*v = ((*v >> 32) + 1) << 32 | t->idx;
	return 0;
}

static int fio_ev_add(struct fio_thread *t, uint64_t ev)
{
	if (t->nev == t->evcap) {
		size_t cap = t->evcap ? 2 * t->evcap : 64;
		uint64_t *n = realloc(t->ev, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->ev = n;
		t->evcap = cap;
	}
	t->ev[t->nev++] = ev;
	return 0;
}

/*
 * A completion: its request was in flight from its submission (the record's start_ns) to
 * its reap (end_ns), for the thread that submitted it, whichever thread reaped it.
 */
static int fio_req_completed(struct fio_state *s, const struct reel_op *op)
{
	uint64_t key = fio_req_key(op), *v = cvt_map__get(&s->reqs, key);
	struct fio_thread *t;
	uint64_t from = op->start_ns, to = op->end_ns > from ? op->end_ns : from;
	int err;

	if (!v)
		return 0; /* not written to a log, or submitted before the trace */
	t = s->tv[(uint32_t)*v];
	if (*v >> 32 > 1)
		*v -= 1ULL << 32;
	else
		cvt_map__del(&s->reqs, key);
	/* times in ns fit 63 bits; a reap sorts before a submission at the same time */
	err = fio_ev_add(t, (from & (UINT64_MAX >> 1)) << 1 | 1);
	return err ? err : fio_ev_add(t, (to & (UINT64_MAX >> 1)) << 1);
}

static int fio_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The most of t's requests in flight at once (0: none completed in the trace) */
static uint64_t fio_depth(struct fio_thread *t)
{
	uint64_t n = 0, most = 0;

	qsort(t->ev, t->nev, sizeof(*t->ev), fio_cmp_u64);
	for (size_t i = 0; i < t->nev; i++) {
		if (t->ev[i] & 1) {
			if (++n > most)
				most = n;
		} else if (n) {
			n--;
		}
	}
	return most;
}

/* A close line for path in the log of logs (the thread's latest) that has it open */
static int fio_close_in(struct fio_state *s, const struct cvt_map *logs, const struct reel_op *op,
			uint32_t path)
{
	uint64_t *v = cvt_map__get(logs, cvt_key2(op->pid, op->tid)), *st;
	struct fio_thread *t = v ? (struct fio_thread *)(uintptr_t)*v : NULL;
	int err = 0;

	if (!t || !(st = cvt_map__get(&t->files, path)) || !(*st & 2))
		return 0;
	fprintf(t->f, "%" PRIu64 " %s close\n", t->last_us, fio_name(s, path, &err));
	*st &= ~2ULL;
	return err;
}

static int fio_close(struct fio_state *s, const struct reel_op *op)
{
	uint32_t path = fio_path_of(s, op);
	int err;

	if (op->fd >= 0)
		cvt_map__del(&s->fds, cvt_key2(op->pid, (uint32_t)op->fd));
	if (!path)
		return 0;
	err = fio_close_in(s, &s->threads, op, path);
	return err ? err : fio_close_in(s, &s->dthreads, op, path);
}

/* Raw ABI values (linux/aio_abi.h, linux/io_uring.h). */
enum { FIO_IOCB_FSYNC = 2, FIO_IOCB_FDSYNC = 3, FIO_URING_FSYNC = 3 };
enum { FIO_URING_FSYNC_DATASYNC = 1, FIO_RWF_DSYNC = 2, FIO_RWF_SYNC = 4 };

/* a write whose flags make it as costly as one through an O_DSYNC fd: fio writes it plain */
static void fio_rwf_sync(struct fio_state *s, const struct reel_op *op, int dir)
{
	if (dir == 'w' && (op->flags & (FIO_RWF_DSYNC | FIO_RWF_SYNC)) &&
	    (op->type == REEL_OP_PWRITEV2 || op->type == REEL_OP_AIO_SUBMIT ||
	     op->type == REEL_OP_URING_SUBMIT))
		s->res->approx[REEL_FIO_AP_RWF_SYNC]++;
}

/*
 * sendfile is a splice through the page cache on every file system (it never clones): the
 * storage reads the source range as a read() would, and writes a destination file as a
 * write() would. So it becomes a read of what it moved, and a write too when its
 * destination was a regular file; a socket or pipe destination is not storage.
 */
static int fio_sendfile(struct fio_state *s, const struct reel_op *op)
{
	uint64_t *v;
	uint32_t dst;
	int err;

	if (op->ret <= 0) {
		s->res->left_out[REEL_FIO_LO_ZERO]++;
		return 0;
	}
	err = fio_emit(s, op, fio_path_of(s, op), "read", op->offset, (uint64_t)op->ret);
	if (err || !reel_op__copy_writes(op))
		return err;
	dst = op->path2;
	if (!dst && op->fd2 >= 0) {
		v = cvt_map__get(&s->fds, cvt_key2(op->pid, (uint32_t)op->fd2));
		dst = v ? (uint32_t)*v : 0;
	}
	return fio_emit(s, op, dst, "write", op->aux, (uint64_t)op->ret);
}

/* An async request: its line in the submitting thread's log, and its flight begun */
static int fio_submit(struct fio_state *s, const struct reel_op *op)
{
	uint64_t *lo = s->res->left_out;
	int dir = cvt_op_dir(op, 1), err;
	const char *act = NULL;
	uint64_t off = 0, len = 0;

	if (dir) {
		if (op->ret < 0 || !op->len) {
			lo[REEL_FIO_LO_ZERO]++;
			return 0;
		}
		act = dir == 'r' ? "read" : "write";
		off = op->offset;
		len = op->len;
		fio_rwf_sync(s, op, dir);
	} else if (op->type == REEL_OP_AIO_SUBMIT &&
		   (op->subop == FIO_IOCB_FSYNC || op->subop == FIO_IOCB_FDSYNC)) {
		act = op->subop == FIO_IOCB_FSYNC ? "sync" : "datasync";
	} else if (op->type == REEL_OP_URING_SUBMIT && op->subop == FIO_URING_FSYNC) {
		act = (op->flags & FIO_URING_FSYNC_DATASYNC) ? "datasync" : "sync";
	}
	if (!act) {
		lo[REEL_FIO_LO_ASYNC]++;
		return 0;
	}
	err = fio_emit(s, op, fio_path_of(s, op), act, off, len);
	if (err || !s->last)
		return err;
	if ((err = fio_batches__add(&s->last->calls, op)) || op->ret < 0)
		return err;
	return fio_req_submitted(s, op, s->last);
}

/* A DONTNEED of bytes the logs read or wrote is pending until a read of them begins a
 * phase (fio_cache_io); any other advice, or one that dropped none of theirs, is left out. */
static int fio_fadvise(struct fio_state *s, const struct reel_op *op)
{
	uint32_t path = fio_path_of(s, op);
	struct fio_cfile *f;

	if (op->mode == FIO_FADV_DONTNEED && op->ret == 0 && path) {
		f = fio_cache__file(&s->cache, path);
		if (!f)
			return -ENOMEM;
		if (fio_cfile__drop(f, op->offset, op->len))
			return 0;
	}
	s->res->left_out[REEL_FIO_LO_SPACE]++;
	return 0;
}

static int fio_op(struct fio_state *s, const struct reel_op *op)
{
	uint64_t *lo = s->res->left_out;
	int dir;

	switch (op->type) {
	case REEL_OP_OPEN:
	case REEL_OP_OPENAT:
	case REEL_OP_OPENAT2:
	case REEL_OP_CREAT:
		if (op->ret < 0) {
			lo[REEL_FIO_LO_METADATA]++;
			return 0;
		}
		return fio_fd_set(s, op->pid, op->ret, op->path, !!(op->flags & O_DIRECT));
	case REEL_OP_DUP:
	case REEL_OP_DUP2:
	case REEL_OP_DUP3:
	case REEL_OP_FCNTL_DUPFD:
		/* the same open file description: its O_DIRECT too */
		return op->ret >= 0 ? fio_fd_set(s, op->pid, op->ret, fio_path_of(s, op),
						 fio_fd_direct(s, op))
				    : 0;
	case REEL_OP_CLOSE:
		return fio_close(s, op);
	case REEL_OP_LSEEK:
		return 0; /* every read and write carries its offset */
	case REEL_OP_FORK:
	case REEL_OP_EXECVE:
	case REEL_OP_EXIT:
		return 0; /* no I/O: each thread becomes a job of its own either way */
	case REEL_OP_AIO_COMPLETE:
	case REEL_OP_URING_COMPLETE:
		/* the request was written at its submission; here it leaves the flight */
		return fio_req_completed(s, op);
	}
	s->src = op->type == REEL_OP_AIO_SUBMIT	    ? FIO_SRC_AIO
		 : op->type == REEL_OP_URING_SUBMIT ? FIO_SRC_URING
						    : FIO_SRC_SYNC;
	s->direct = op->type != REEL_OP_SENDFILE && fio_fd_direct(s, op);
	if (fio_nonfile(s, op, fio_path_of(s, op))) {
		lo[REEL_FIO_LO_NONFILE]++;
		return 0;
	}
	switch (op->type) {
	case REEL_OP_FSYNC:
	case REEL_OP_FDATASYNC:
		if (op->fd_kind == REEL_FD_DIR) {
			lo[REEL_FIO_LO_SYNC_OTHER]++;
			return 0;
		}
		if (op->ret < 0) {
			lo[REEL_FIO_LO_ZERO]++;
			return 0;
		}
		return fio_emit(s, op, fio_path_of(s, op),
				op->type == REEL_OP_FSYNC ? "sync" : "datasync", 0, 0);
	case REEL_OP_SYNC_FILE_RANGE:
	case REEL_OP_SYNCFS:
	case REEL_OP_MSYNC:
		lo[REEL_FIO_LO_SYNC_OTHER]++;
		return 0;
	case REEL_OP_FADVISE64:
		return fio_fadvise(s, op);
	case REEL_OP_FALLOCATE:
	case REEL_OP_TRUNCATE:
	case REEL_OP_FTRUNCATE:
		lo[REEL_FIO_LO_SPACE]++;
		return 0;
	case REEL_OP_MMAP:
		lo[REEL_FIO_LO_MMAP]++;
		return 0;
	case REEL_OP_COPY_FILE_RANGE:
		/*
		 * Not written as a read plus a write: on XFS, btrfs and bcachefs it may clone
		 * extents without moving data, on NFS and SMB the server copies, and only
		 * elsewhere does the kernel read and write through the page cache. Whichever it
		 * was is not in the trace, and fio has no word for a copy.
		 */
		lo[op->ret > 0 ? REEL_FIO_LO_COPY : REEL_FIO_LO_ZERO]++;
		return 0;
	case REEL_OP_SENDFILE:
		return fio_sendfile(s, op);
	case REEL_OP_AIO_SUBMIT:
	case REEL_OP_URING_SUBMIT:
		return fio_submit(s, op);
	}
	dir = cvt_op_dir(op, 0);
	if (dir) {
		if (op->ret <= 0) {
			lo[REEL_FIO_LO_ZERO]++;
			return 0;
		}
		fio_rwf_sync(s, op, dir);
		return fio_emit(s, op, fio_path_of(s, op), dir == 'r' ? "read" : "write",
				op->offset, (uint64_t)op->ret);
	}
	lo[REEL_FIO_LO_METADATA]++;
	return 0;
}

static int fio_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The directories the logs' files live in, sorted and unique, as "mkdir -p" comments. */
static int fio_job_dirs(struct fio_state *s, FILE *f)
{
	size_t n = 0, i = 0, shown = 0;
	uint64_t k, v;
	char **dirs = calloc(s->names.len + 1, sizeof(*dirs));

	if (!dirs)
		return -ENOMEM;
	while (cvt_map__next(&s->names, &i, &k, &v)) {
		char *d;

		if (v <= 1)
			continue;
		d = strdup((const char *)(uintptr_t)v);
		if (!d)
			break;
		dirs[n++] = strdup(dirname(d));
		free(d);
		if (!dirs[n - 1])
			n--;
	}
	qsort(dirs, n, sizeof(*dirs), fio_cmp_str);
	fputs("; fio creates missing files but no directories; before running:\n", f);
	for (i = 0; i < n; i++) {
		if (i && !strcmp(dirs[i], dirs[i - 1]))
			continue;
		if (shown++ < 64)
			fprintf(f, ";   mkdir -p %s\n", dirs[i]);
	}
	if (shown > 64)
		fprintf(f, ";   ... and %zu more directories\n", shown - 64);
	for (i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
	return 0;
}

/*
 * Under --root the files do not exist yet: a read past the end of a file fio created
 * would come back short, which fio calls an error. One setup-only job per file lays it
 * out as large as the furthest byte the logs read or write (fio fills it with data, not
 * holes). Without --root the original files are used as they are: never lay them out.
 */
static void fio_job_prep(struct fio_state *s, FILE *f)
{
	uint64_t k, v;
	size_t n = 0;

	for (size_t i = 0; cvt_map__next(&s->extent, &i, &k, &v);) {
		int err;
		const char *name = fio_name(s, (uint32_t)k, &err);

		if (!name || !v)
			continue;
		fprintf(f, "\n[prep%zu]\n; lays out the file before the replay\nfilename=", ++n);
		for (const char *c = name; *c; c++) {
			if (*c == ':') /* fio's filename= separates names with ':' */
				putc('\\', f);
			putc(*c, f);
		}
		/* fio wants size >= bs */
		fprintf(f, "\nrw=read\ncreate_only=1\nsize=%" PRIu64 "\nbs=%" PRIu64 "\n", v,
			v < 65536 ? v : 65536);
	}
}

/*
 * How many requests the job submits at once: as many as most of its thread's io_submit /
 * io_uring_enter calls took (reel_fio_batch.h), no more than its iodepth (fio's limit too).
 * fio queues that many before it submits them (iodepth_batch_submit, td_io_queue): a call
 * of fewer requests is held back until the next lines make up the batch (their delay is
 * slept first: a short batch waits for the application's next call), or until fio's queue
 * fills, and a call of more goes in several; those are counted. With a full queue, fio reaps
 * iodepth_batch_complete_max requests at most (1 by default) and submits the batch it has
 * when the queue is full again: fio 3.33's own libaio job with iodepth_batch_submit=8 and no
 * more made 3717 of its 3755 io_submits with 1 request. Reaping whatever has completed, up to
 * the whole depth (fio's "Example #1"), refills the queue by batches, as an application's
 * io_getevents(ctx, 1, nr) does. iodepth_batch_complete_min stays 1: the trace shows how
 * many each reap took, not how many it waited for, and more would hold a full queue longer.
 */
static void fio_job_batch(struct fio_state *s, struct fio_thread *t, uint64_t depth, FILE *f)
{
	uint64_t batch = fio_batches__common(&t->calls);

	if (batch > depth)
		batch = depth ? depth : 1;
	s->res->approx[REEL_FIO_AP_BATCH] += fio_batches__lines_other(&t->calls, (uint32_t)batch);
	if (batch < 2)
		return;
	fprintf(f,
		"; most of its %" PRIu64 " submissions (io_submit, io_uring_enter) took %" PRIu64
		" requests: submit\n; them so, and reap what has completed up to the whole depth, "
		"so that a full queue\n; refills by batches too\n"
		"iodepth_batch_submit=%" PRIu64 "\niodepth_batch_complete_max=%" PRIu64 "\n",
		fio_batches__calls(&t->calls), batch, batch, depth);
	s->res->batched_jobs++;
}

/*
 * What a job's I/O was like, as far as fio can say it per job: direct=1 when most of its
 * reads and writes were on O_DIRECT fds; the async engine of most of its lines, with
 * iodepth the most of its requests in flight at once (submission to reap, from the trace's
 * submit and complete records). fio's iolog replay (iolog.c, read_iolog_get) applies each
 * line's delay before getting its io_u and goes on queueing while earlier ones are in
 * flight, reaping when iodepth are (backend.c, do_io): the log is replayed asynchronously
 * up to that depth. What one job cannot say is counted in res->approx.
 */
static void fio_job_io(struct fio_state *s, struct fio_thread *t, FILE *f)
{
	uint64_t *ap = s->res->approx, async = t->lines[FIO_SRC_AIO] + t->lines[FIO_SRC_URING];
	int direct = t->direct_ios > t->buffered_ios;

	if (direct) {
		fprintf(f,
			"; %" PRIu64 " of its %" PRIu64 " reads/writes were on O_DIRECT fds\n"
			"direct=1\n",
			t->direct_ios, t->ios);
		s->res->direct_jobs++;
		ap[REEL_FIO_AP_DIRECT_ADDED] += t->buffered_ios;
	} else {
		ap[REEL_FIO_AP_DIRECT_LOST] += t->direct_ios;
	}
	if (async) {
		int uring = t->lines[FIO_SRC_URING] > t->lines[FIO_SRC_AIO];
		uint64_t depth = fio_depth(t);

		fprintf(f,
			"; %" PRIu64 " async requests (%" PRIu64 " libaio, %" PRIu64
			" io_uring), at most %" PRIu64 " in flight at once%s\n"
			"ioengine=%s\niodepth=%" PRIu64 "\n",
			async, t->lines[FIO_SRC_AIO], t->lines[FIO_SRC_URING], depth,
			depth ? "" : " (none completed in the trace)",
			uring ? "io_uring" : "libaio", depth ? depth : 1);
		fio_job_batch(s, t, depth, f);
		s->res->async_jobs++;
		ap[REEL_FIO_AP_SYNC_ASYNC] += t->lines[FIO_SRC_SYNC];
		ap[REEL_FIO_AP_OTHER_ENGINE] += t->lines[uring ? FIO_SRC_AIO : FIO_SRC_URING];
	}
}

/* What begins the first job of a phase: the jobs before it end first. */
static void fio_job_phase(const struct fio_state *s, const struct fio_thread *t, FILE *f)
{
	if (!t->phase) {
		fputs("; the replay starts once the file set is laid out\nstonewall\n", f);
		return;
	}
	fprintf(f,
		"; phase %" PRIu32 " of %" PRIu32 ": where the application dropped files from the "
		"page cache\n; (fadvise DONTNEED) before reading them again; it starts once the "
		"jobs before it\n; end, and its times count from the end of their last op\n"
		"stonewall\n",
		t->phase + 1, s->phase + 1);
}

/* One job: a thread's log in one phase. */
static void fio_job(struct fio_state *s, struct fio_thread *t, const char *abs_dir, FILE *f,
		    int *stonewall)
{
	const char *base = strrchr(t->log, '/');

	if (t->phase)
		fprintf(f, "\n[pid%" PRIu32 "-tid%" PRIu32 "-phase%" PRIu32 "%s]\n", t->pid, t->tid,
			t->phase + 1, t->dropped && fio_split(t) ? "-dropped" : "");
	else
		fprintf(f, "\n[pid%" PRIu32 "-tid%" PRIu32 "]\n", t->pid, t->tid);
	fprintf(f, "read_iolog=%s/%s\n", abs_dir, base ? base + 1 : t->log);
	if (*stonewall) {
		fio_job_phase(s, t, f);
		*stonewall = 0;
	}
	/* fio drops a job's files from the cache as it opens them (invalidate=1, its
	 * default): in a later phase only the files the application had dropped (fio_log_of) */
	if (t->phase && t->dropped)
		fprintf(f,
			"; the thread's lines on files the application dropped from the page cache "
			"as this\n; phase began: drop them too as it opens them\n%sinvalidate=1\n",
			fio_split(t) ? "; (its other lines are in a job of their own beside it: "
				       "fio's invalidate is per job)\n"
				     : "");
	else if (t->phase)
		fputs("; keeps the page cache as the jobs before it left it\ninvalidate=0\n", f);
	fio_job_io(s, t, f);
}

static int fio_job_file(struct fio_state *s)
{
	char *path = NULL, *abs_dir = NULL, *copy = strdup(s->o->prefix);
	FILE *f = NULL;
	int err = 0, stonewall = 0;

	if (!copy || asprintf(&path, "%s.fio", s->o->prefix) < 0) {
		err = -ENOMEM;
		goto out;
	}
	/* read_iolog names resolve against fio's cwd: make them absolute */
	abs_dir = realpath(dirname(copy), NULL);
	if (!abs_dir) {
		err = -errno;
		goto out;
	}
	f = fopen(path, "w");
	if (!f) {
		err = -errno;
		goto out;
	}
	fprintf(f, "; written by ioreel export fio%s%s\n", s->o->trace_name ? " from " : "",
		s->o->trace_name ? s->o->trace_name : "");
	fputs("; One job per original thread, each replaying that thread's iolog (fio iolog\n"
	      "; version 3: TIME FILE ACTION [OFFSET LENGTH], TIME in us since the trace start).\n",
	      f);
	if (s->o->root)
		fprintf(f, "; The logs name the original files under %s.\n", s->o->root);
	else
		fputs("; The logs name the ORIGINAL files: replaying writes them. Export with\n"
		      "; --root DIR to place the file set under DIR instead.\n",
		      f);
	fputs("; fio's directory= does not apply to iolog names, and replay_redirect=FILE\n"
	      "; sends every op of a job to that one file or device.\n",
	      f);
	err = fio_job_dirs(s, f);
	fputs("\n[global]\nioengine=psync\n; the recorded timing; replay_no_stall=1 for as fast as "
	      "possible\nreplay_no_stall=0\n",
	      f);
	if (s->o->root)
		fio_job_prep(s, f);
	for (uint32_t p = 0; p <= s->phase; p++) {
		stonewall = p > 0 || s->o->root;
		for (struct fio_thread *t = s->first; t; t = t->next)
			if (t->ios && t->phase == p)
				fio_job(s, t, abs_dir, f, &stonewall);
	}
	if (ferror(f))
		err = -EIO;
out:
	if (f && fclose(f) && !err)
		err = -errno;
	free(path);
	free(abs_dir);
	free(copy);
	return err;
}

int reel_fio__export(struct reel_reader *r, const struct reel_fio_opts *o,
		     struct reel_fio_result *res)
{
	struct fio_state s = {.r = r, .o = o, .res = res};
	uint64_t k, v;
	struct reel_op op;
	int err = 0;

	memset(res, 0, sizeof(*res));
	s.tail = &s.first;
	cvt_map__init(&s.threads);
	cvt_map__init(&s.dthreads);
	cvt_map__init(&s.fds);
	cvt_map__init(&s.names);
	cvt_map__init(&s.extent);
	cvt_map__init(&s.reqs);
	fio_cache__init(&s.cache);
	err = fio_fds_preopened(&s);
	for (; !err;) {
		int n = reel_reader__next(r, &op);

		if (!n)
			break;
		if (n < 0) {
			res->damaged++;
			continue;
		}
		res->ops++;
		err = fio_op(&s, &op);
		if (err)
			break;
	}
	reel_reader__damage_sum(r, &res->damage);
	/* drops no read of the dropped bytes came after (or past the last phase) */
	res->left_out[REEL_FIO_LO_SPACE] += fio_cache__pending(&s.cache);
	for (size_t i = 0; cvt_map__next(&s.reqs, &i, &k, &v);)
		res->approx[REEL_FIO_AP_UNREAPED] += v >> 32;
	for (struct fio_thread *t = s.first, *next; t; t = next) {
		next = t->next;
		if (fclose(t->f) && !err)
			err = -errno;
		t->f = NULL;
		if (!err)
			err = fio_batches__end(&t->calls);
		if (t->ios) {
			res->logs++;
		} else {
			unlink(t->log);
			res->left_out[REEL_FIO_LO_NO_IO] += t->syncs;
			res->syncs -= t->syncs;
		}
	}
	if (!err)
		err = fio_dropped_logs_end(&s);
	/* no job for fio to run: a job file would only make fio fail ("No job(s) defined") */
	if (!err && res->logs)
		err = fio_job_file(&s);
	for (struct fio_thread *t = s.first, *next; t; t = next) {
		next = t->next;
		cvt_map__free(&t->files);
		fio_batches__free(&t->calls);
		free(t->ev);
		free(t->log);
		free(t);
	}
	for (size_t i = 0; cvt_map__next(&s.names, &i, &k, &v);)
		if (v > 1)
			free((char *)(uintptr_t)v);
	cvt_map__free(&s.threads);
	cvt_map__free(&s.dthreads);
	cvt_map__free(&s.fds);
	cvt_map__free(&s.names);
	cvt_map__free(&s.extent);
	cvt_map__free(&s.reqs);
	fio_cache__free(&s.cache);
	free(s.tv);
	return err;
}
