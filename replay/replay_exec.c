/* SPDX-License-Identifier: MIT */
/*
 * replay_exec.c - issue one traced op against the target.
 *
 * Every data op replays as its positioned form at the offset the trace recorded (read ->
 * pread64, readv -> preadv with one iovec, write -> pwrite64 ...), so that no file position
 * has to be kept in step between threads. Path ops resolve beneath the target root (see
 * replay_map.c); the calls that follow a symlink in the last component (stat, access and
 * their *at forms without AT_SYMLINK_NOFOLLOW, chmod, chown, utimensat, linkat
 * AT_SYMLINK_FOLLOW) follow it beneath the root, through an O_PATH fd, so that one planted
 * there cannot lead out. Copies are positioned on both sides too. Original fds map to replay
 * fds per process; an fd the replay never saw opened (opened before the capture) is opened
 * lazily from the path the op carries, or before time 0 when the trace removes or replaces
 * that name before the fd's first use (replay_run.c). Only the main syscall is timed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "replay_run.h"
#include "replay_sys.h"

#define BUF_MAX (256u << 20)
/*
 * Not O_APPEND: every write goes where the trace says it landed (pwrite at its offset, which
 * O_APPEND would ignore). An fd inherited over a fork the trace has no record of is reopened
 * by its path (format 1.3 and before), so nginx's workers wrote their error log lines at
 * their offsets while the master's, through its own O_APPEND open, went to whatever end the
 * file had when they ran: replayed with the threads' order apart, the master's last lines
 * landed under theirs.
 */
#define OPEN_FLAGS_OK                                                                              \
	(O_ACCMODE | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_NONBLOCK | O_DSYNC | O_SYNC |       \
	 O_DIRECT | O_LARGEFILE | O_DIRECTORY | O_NOFOLLOW | O_NOATIME | O_PATH | __O_TMPFILE |   \
	 O_CLOEXEC)

int replay_op__on_fd(const struct reel_op *op)
{
	if (op->fd < 0)
		return 0;
	if (!reel_op__has_path(op->type))
		return 1;
	/* futimens() is utimensat(fd, NULL, ...): no path */
	if (op->type == REEL_OP_UTIMENSAT && !op->path)
		return 1;
	/* fstat as glibc issues it, newfstatat/statx(fd, "", AT_EMPTY_PATH), and the like for
	 * the attribute calls: the path, when the trace has one, is the fd's */
	switch (op->type) {
	case REEL_OP_NEWFSTATAT:
	case REEL_OP_STATX:
	case REEL_OP_FCHMODAT:
	case REEL_OP_FCHOWNAT:
	case REEL_OP_UTIMENSAT:
		return !!(op->flags & AT_EMPTY_PATH);
	default:
		return 0;
	}
}

/*
 * A sendfile to a socket or pipe (or a destination of unknown kind) that failed with an
 * error of its destination: a non-blocking socket that was full (nginx: EAGAIN on ~9 % of
 * them under load), a peer gone. It moved nothing, and the replay's stand-in, /dev/null, can
 * neither refuse nor take nothing: the network's op, not storage work.
 */
int replay_op__copy_net_err(const struct reel_op *op)
{
	if (op->type != REEL_OP_SENDFILE || op->mode == REEL_FD_REG || op->ret >= 0)
		return 0;
	switch (-op->ret) {
	case EAGAIN:
	case EPIPE:
	case ECONNRESET:
	case ENOTCONN:
	case EINTR:
		return 1;
	default:
		return 0;
	}
}

struct rpid *run__pid(struct run *run, uint32_t pid)
{
	uint64_t *v;
	struct rpid *rp;

	pthread_mutex_lock(&run->lock);
	v = replay_u64map__get(&run->pids, pid);
	if (v) {
		pthread_mutex_unlock(&run->lock);
		return (struct rpid *)(uintptr_t)*v;
	}
	rp = calloc(1, sizeof(*rp));
	if (!rp) {
		pthread_mutex_unlock(&run->lock);
		return NULL;
	}
	rp->pid = pid;
	replay_u64map__put(&run->pids, pid, (uintptr_t)rp);
	pthread_mutex_unlock(&run->lock);
	return rp;
}

void rpid__free(struct rpid *rp)
{
	for (int pg = 0; pg < RUN_FD_MAX / RUN_FD_PAGE; pg++) {
		_Atomic int32_t *p = atomic_load(&rp->page[pg]);

		for (int i = 0; p && i < RUN_FD_PAGE; i++) {
			if (atomic_load(&p[i]) >= 0)
				close(atomic_load(&p[i]));
		}
		free(p);
	}
	for (uint32_t j = 0; j < rp->nrel; j++)
		close((int)(uint32_t)rp->rel[j]);
	free(rp->rel);
	lock__free(rp);
	free(rp);
}

/*
 * The process ended after all of its threads' ops (ITEM_EXIT): the kernel closed what it
 * left open, so does the replay (an unlink after it frees the file's blocks), and its table
 * goes, so that thousands of short processes (a shell script, a mail server) cost no more
 * memory than those alive at once. A later process of the same pid gets a new one.
 */
void run__pid_exit(struct run *run, uint32_t pid)
{
	uint64_t *v;
	struct rpid *rp = NULL;

	pthread_mutex_lock(&run->lock);
	v = replay_u64map__get(&run->pids, pid);
	if (v) {
		rp = (struct rpid *)(uintptr_t)*v;
		replay_u64map__del(&run->pids, pid);
	}
	pthread_mutex_unlock(&run->lock);
	if (rp)
		rpid__free(rp);
}

_Atomic int32_t *rpid__slot_new(struct rpid *rp, int fd)
{
	_Atomic int32_t *pg, *expect = NULL;

	pg = malloc(RUN_FD_PAGE * sizeof(*pg));
	if (!pg) {
		atomic_store(&rp->spare, RFD_UNKNOWN);
		return &rp->spare;
	}
	for (int i = 0; i < RUN_FD_PAGE; i++)
		atomic_init(&pg[i], RFD_UNKNOWN);
	/* another thread of the process may have made it meanwhile: keep one */
	if (!atomic_compare_exchange_strong(&rp->page[fd / RUN_FD_PAGE], &expect, pg)) {
		free(pg);
		pg = expect;
	}
	return &pg[fd % RUN_FD_PAGE];
}

void exec__fail(struct run *run, enum replay_fail_kind k, const struct reel_op *op,
		const struct rpath *p, const char *why)
{
	struct replay_summary *s = run->sum;
	uint64_t n = atomic_fetch_add(&run->fail[k], 1);
	char line[320];

	if (n >= REPLAY_EXAMPLES && (n >= 5 || !run->o->notice))
		return;
	snprintf(line, sizeof(line), "%s%s%s (pid %u tid %u fd %d): %s", reel_op__name(op->type),
		 p ? " " : "", p ? p->orig : "", op->pid, op->tid, op->fd, why);
	pthread_mutex_lock(&run->lock);
	if (n < REPLAY_EXAMPLES) {
		/* examples are cut to their slot's size */
		memcpy(s->fail_example[k][n], line, sizeof(s->fail_example[k][n]) - 1);
		s->fail_example[k][n][sizeof(s->fail_example[k][n]) - 1] = '\0';
	}
	/* unreplayable ops are named as they happen: the first few, then only counted */
	if (run->o->notice && replay_fail__not_replayed(k) && n < 5) {
		char msg[400];

		snprintf(msg, sizeof(msg), "cannot replay %s%s", line,
			 n == 4 ? " (further ones only counted)" : "");
		run->o->notice(run->o->cb_ctx, msg);
	}
	pthread_mutex_unlock(&run->lock);
}

int exec__buf(struct rworker *w, size_t len)
{
	size_t sz;
	void *b;

	if (len <= w->bufsz)
		return 0;
	if (len > BUF_MAX)
		return -EFBIG;
	sz = (len + 4095) & ~(size_t)4095;
	/* aligned always: O_DIRECT fds need it, and buffered ones don't mind */
	if (posix_memalign(&b, 4096, sz))
		return -ENOMEM;
	/* written data is non-zero too: zeros might be stored as holes */
	memset(b, 0x5a, sz);
	free(w->buf);
	w->buf = b;
	w->bufsz = sz;
	return 0;
}

/* p opened beneath its root with flags as given: an open of the trace passes the original's
 * O_CLOEXEC (execve closes by it, replay_proc.c), the replay's own opens pass theirs; a path
 * too long to map fails as the kernel fails it */
static int rpath__open(struct rworker *w, const struct rpath *p, int flags, mode_t mode)
{
	if (p->err)
		return p->err;
	return replay_path__open_as(w->run->m->roots[p->root].fd, p->rel, flags, mode);
}

/* Opens rel beneath rootfd for original fd ofd of pid, one the trace did not open (open before
 * the capture, or got from a parent); the fd or -errno. */
int exec__open_found(struct run *run, uint32_t pid, int32_t ofd, int rootfd, const char *rel,
		     int for_write)
{
	uint64_t *oflags = replay_u64map__get(&run->fd_oflags, (uint64_t)pid << 32 | (uint32_t)ofd);
	int extra = oflags ? (int)(*oflags & (O_DIRECT | O_DSYNC | O_SYNC | O_CLOEXEC)) : 0, fd;

	/* the fd's access mode is not in the trace: read-write when the file allows it, so
	 * that later writes through it (or its dups) work; O_DIRECT, the sync flags and
	 * close-on-exec are, when the capture found the fd open */
	fd = replay_path__open_as(rootfd, rel, O_RDWR | extra, 0);
	if (fd < 0 && fd != -EXDEV && !for_write)
		fd = replay_path__open_as(rootfd, rel, O_RDONLY | extra, 0);
	if (fd == -EINVAL && (extra & O_DIRECT)) {
		/* the target rejects O_DIRECT: the --direct policy, as for an open (exec__open) */
		if (run->o->direct_keep) {
			atomic_fetch_add(&run->direct_failed, 1);
		} else {
			extra &= ~O_DIRECT;
			fd = replay_path__open_as(rootfd, rel, O_RDWR | extra, 0);
			if (fd < 0 && fd != -EXDEV && !for_write)
				fd = replay_path__open_as(rootfd, rel, O_RDONLY | extra, 0);
			atomic_fetch_add(&run->direct_dropped, 1);
		}
	}
	if (fd == -EISDIR)
		fd = replay_path__open_as(rootfd, rel, O_RDONLY | O_DIRECTORY, 0);
	return fd;
}

/* exec__fd_of for an fd the replay does not have open (yet): v is its slot's value */
static __attribute__((noinline)) int exec__fd_of_slow(struct rworker *w, const struct ritem *it,
						       int32_t ofd, int32_t v,
						       const struct rpath *p, int for_write)
{
	const struct reel_op *op = &it->op;
	int fd;

	if (ofd < 0 || ofd >= RUN_FD_MAX) {
		exec__fail(w->run, REPLAY_FAIL_UNKNOWN_FD, op, p, "fd out of range");
		return -EBADF;
	}
	if (v == RFD_FAILED) {
		/* the open that made it failed (counted as an outcome that differs); the ops on
		 * its fd are not replayed, and counted as such: the totals must add up */
		exec__fail(w->run, REPLAY_FAIL_UNKNOWN_FD, op, p, "its open failed in the replay");
		return -EBADF;
	}
	if (!p) {
		exec__fail(w->run, REPLAY_FAIL_UNKNOWN_FD, op, NULL,
			   v == RFD_CLOSED
			       ? "fd already closed in the replay"
			       : "unknown fd (opened before the capture, no path in the "
				 "trace): not replayed");
		return -EBADF;
	}
	fd = p->err ? p->err
		    : exec__open_found(w->run, op->pid, ofd, w->run->m->roots[p->root].fd, p->rel,
				       for_write);
	if (fd < 0) {
		exec__fail(w->run, fd == -EXDEV ? REPLAY_FAIL_REFUSED : REPLAY_FAIL_UNKNOWN_FD, op,
			   p,
			   fd == -EXDEV ? "path escapes the target: refused"
					: "fd opened before the capture: cannot open its path");
		atomic_store(rpid__slot(w->rp, ofd), RFD_FAILED);
		return -EBADF;
	}
	/* another thread of the process may have opened it meanwhile: keep one */
	if (!atomic_compare_exchange_strong(rpid__slot(w->rp, ofd), &v, fd)) {
		close(fd);
		return v >= 0 ? v : -EBADF;
	}
	return fd;
}

/*
 * The replay fd for the original fd ofd (the op's fd or fd2); opens p, its file, when the fd
 * predates the capture. Inline for the usual case, an fd open already: once per data op.
 */
static inline int exec__fd_of(struct rworker *w, const struct ritem *it, int32_t ofd,
			      const struct rpath *p, int for_write)
{
	int32_t v = ofd >= 0 && ofd < RUN_FD_MAX ? atomic_load(rpid__slot(w->rp, ofd)) : -1;

	return v >= 0 ? v : exec__fd_of_slow(w, it, ofd, v, p, for_write);
}

/* The replay fd for op->fd; opens the op's path when the fd predates the capture. */
int exec__fd(struct rworker *w, const struct ritem *it, int for_write)
{
	return exec__fd_of(w, it, it->op.fd, it->p1, for_write);
}

/*
 * An open or dup (not dup2: that one closes what it replaces) that returned a number still
 * holding a file: another thread's close of it entered first and comes later in the trace,
 * which is in exit order (Redis's bio thread closes an unlinked AOF file for tens of ms while
 * the main thread reuses the number). The file is kept for that close (ITEM_RELEASED) to
 * close, timed, as the original did. One per number: an older one is closed.
 */
static void fd__release(struct rworker *w, int32_t orig, int fd)
{
	struct rpid *rp = w->rp;
	uint64_t v = (uint64_t)(uint32_t)orig << 32 | (uint32_t)fd;

	pthread_mutex_lock(&w->run->lock);
	for (uint32_t i = 0; i < rp->nrel; i++) {
		if (rp->rel[i] >> 32 == (uint32_t)orig) {
			close((int)(uint32_t)rp->rel[i]);
			rp->rel[i] = v;
			pthread_mutex_unlock(&w->run->lock);
			return;
		}
	}
	if (rp->nrel == rp->caprel) {
		uint32_t cap = rp->caprel ? rp->caprel * 2 : 4;
		uint64_t *rel = realloc(rp->rel, cap * sizeof(*rel));

		if (!rel) {
			pthread_mutex_unlock(&w->run->lock);
			close(fd); /* its close is then counted as one of nothing */
			return;
		}
		rp->rel = rel;
		rp->caprel = cap;
	}
	rp->rel[rp->nrel++] = v;
	pthread_mutex_unlock(&w->run->lock);
}

/* the file fd__release set aside for original fd orig, or -1 */
static int fd__released(struct rworker *w, int32_t orig)
{
	struct rpid *rp = w->rp;
	int fd = -1;

	pthread_mutex_lock(&w->run->lock);
	for (uint32_t i = 0; i < rp->nrel; i++) {
		if (rp->rel[i] >> 32 == (uint32_t)orig) {
			fd = (int)(uint32_t)rp->rel[i];
			rp->rel[i] = rp->rel[--rp->nrel];
			break;
		}
	}
	pthread_mutex_unlock(&w->run->lock);
	return fd;
}

/* replaces: the number was bound over a file (dup2, dup3), which the kernel closed */
static void fd__set(struct rworker *w, int32_t orig, int fd, int replaces)
{
	int32_t old;

	if (orig < 0 || orig >= RUN_FD_MAX) {
		if (fd >= 0)
			close(fd);
		return;
	}
	old = atomic_exchange(rpid__slot(w->rp, orig), fd);
	if (old < 0)
		return;
	if (replaces) {
		lock__closed(w, old);
		close(old);
	} else {
		fd__release(w, orig, old);
	}
}

#define TIMED(res, expr)                                                                           \
	({                                                                                         \
		long __r;                                                                          \
		(res)->start_ns = worker__now(w);                                                  \
		__r = (long)(expr);                                                                \
		(res)->end_ns = worker__now(w);                                                    \
		__r < 0 ? -(long)errno : __r;                                                      \
	})

/* the same of a replay_sys.h call, which returns -errno itself; the clock read raw around it */
#define TIMED_SYS(res, expr)                                                                       \
	({                                                                                         \
		uint64_t __t0 = worker__issue_tick(w), __t1;                                       \
		long __r = (long)(expr);                                                           \
		__t1 = worker__tick(w);                                                            \
		(res)->start_ns = worker__ns(w, __t0);                                             \
		(res)->end_ns = worker__ns(w, __t1);                                               \
		__r;                                                                               \
	})

static int exec__open(struct rworker *w, const struct ritem *it, struct reel_op *res)
{
	const struct reel_op *op = &it->op;
	struct run *run = w->run;
	int flags = (int)(op->flags & OPEN_FLAGS_OK);
	long fd;

	if (op->type == REEL_OP_CREAT)
		flags = O_CREAT | O_WRONLY | O_TRUNC;
	res->start_ns = worker__now(w);
	fd = rpath__open(w, it->p1, flags, op->mode);
	res->end_ns = worker__now(w);
	if (fd == -EINVAL && (flags & O_DIRECT)) {
		if (run->o->direct_keep) {
			atomic_fetch_add(&run->direct_failed, 1);
		} else {
			/* the target rejects O_DIRECT (tmpfs): drop it, and say so in the result */
			res->start_ns = worker__now(w);
			/* an O_EXCL open failing with EINVAL, not EEXIST, created the file already
			 */
			fd = rpath__open(w, it->p1, flags & ~(O_DIRECT | O_EXCL), op->mode);
			res->end_ns = worker__now(w);
			atomic_fetch_add(&run->direct_dropped, 1);
		}
	}
	/* the result names the fd by the trace's number, as its ops on it do, so that a report
	 * follows it from this open to its close (the replay's own number is another) */
	res->ret = fd >= 0 && op->ret >= 0 ? op->ret : fd;
	if (fd == -EXDEV) {
		exec__fail(run, REPLAY_FAIL_REFUSED, op, it->p1,
			   "path escapes the target: refused");
		return -(1 + REPLAY_FAIL_REFUSED);
	}
	if (op->ret >= 0)
		fd__set(w, (int32_t)op->ret, fd >= 0 ? (int)fd : RFD_FAILED, 0);
	else if (fd >= 0)
		close((int)fd); /* the application never had this fd */
	return 0;
}

#define PARENT_REFUSED (-1000000)

void exec__pcache_clear(struct rworker *w)
{
	for (int i = 0; i < RUN_PCACHE; i++) {
		if (w->pc[i].dir) {
			close(w->pc[i].fd);
			free(w->pc[i].dir);
			w->pc[i].dir = NULL;
		}
	}
}

/*
 * Another worker's rename, rmdir, symlink... may have made the cached parent fds stale: they
 * are dropped at the start of an op that looks parents up (exec__path, exec__link), never
 * between the two lookups of a rename or link, which would close the first parent's fd under
 * the op (its number then reused by the second). Data ops never look at it.
 */
static void pcache__check(struct rworker *w)
{
	uint32_t gen = atomic_load(&w->run->dirgen);

	if (gen != w->pc_gen) {
		exec__pcache_clear(w);
		w->pc_gen = gen;
	}
}

/*
 * Path op: the parent directory's fd, resolved beneath the root; -errno when it cannot be
 * opened (the op then fails as it would: ENOENT, ENOTDIR), PARENT_REFUSED when it escapes.
 * The last few are kept open (a worker's path ops mostly hit the same directories: one *at
 * call then, as the application made), until the replay bumps dirgen (pcache__check).
 */
static int path__parent(struct rworker *w, const struct ritem *it, const struct rpath *p,
			const char **base)
{
	const char *slash = strrchr(p->rel, '/');
	size_t n = slash ? (size_t)(slash - p->rel) : 0;
	int pfd, v = 0;

	if (p->err)
		return p->err;
	*base = slash ? slash + 1 : p->rel;
	for (int i = 0; strcmp(*base, "..") && i < RUN_PCACHE; i++) {
		if (w->pc[i].dir && w->pc[i].root == p->root && w->pc[i].len == n &&
		    !memcmp(w->pc[i].dir, p->rel, n)) {
			w->pc[i].used = ++w->pc_tick;
			return w->pc[i].fd;
		}
	}
	pfd = replay_path__parent(w->run->m->roots[p->root].fd, p->rel, base);
	if (pfd == -EXDEV) {
		exec__fail(w->run, REPLAY_FAIL_REFUSED, &it->op, p,
			   "path escapes the target: refused");
		return PARENT_REFUSED;
	}
	if (pfd < 0)
		return pfd;
	for (int i = 1; i < RUN_PCACHE; i++) {
		if (!w->pc[i].dir || (w->pc[v].dir && w->pc[i].used < w->pc[v].used))
			v = i;
	}
	if (w->pc[v].dir) {
		close(w->pc[v].fd);
		free(w->pc[v].dir);
	}
	w->pc[v].dir = strndup(p->rel, n);
	if (!w->pc[v].dir) {
		close(pfd);
		return -ENOMEM;
	}
	w->pc[v].len = n;
	w->pc[v].root = p->root;
	w->pc[v].fd = pfd;
	w->pc[v].used = ++w->pc_tick;
	return pfd;
}

/* A lookup (the parent, or an O_PATH open of the file) failed: the op fails as the
 * original's would have (ENOENT, ENOTDIR, ELOOP), timed up to here. */
static int exec__lookup_failed(struct rworker *w, struct reel_op *res, int err)
{
	res->end_ns = worker__now(w);
	res->ret = err;
	return 0;
}

static int exec__refused(struct rworker *w, const struct ritem *it, const struct rpath *p);

/* stat, access and the *at forms without AT_SYMLINK_NOFOLLOW follow a last symlink */
static int stat__follows(const struct reel_op *op)
{
	switch (op->type) {
	case REEL_OP_STAT:
	case REEL_OP_ACCESS:
		return 1;
	case REEL_OP_NEWFSTATAT:
	case REEL_OP_STATX:
	case REEL_OP_FACCESSAT:
		return !(op->flags & AT_SYMLINK_NOFOLLOW);
	default:
		return 0;
	}
}

/*
 * A stat or access that follows a last symlink: what the link leads to, opened O_PATH beneath
 * the root (one leading out is refused, as an open through it is; a dangling one fails as the
 * original did) and looked at through that fd. A stat is timed on from the lookup that found
 * the symlink; an access, which cannot tell one, from the open, which does the lookup the
 * original call did (as chmod's is).
 */
static int stat__through(struct rworker *w, const struct ritem *it, struct reel_op *res)
{
	const struct reel_op *op = &it->op;
	int access = op->type == REEL_OP_ACCESS || op->type == REEL_OP_FACCESSAT, fd;
	struct statx stx;
	struct stat st;
	long r;

	if (access)
		res->start_ns = worker__now(w);
	fd = rpath__open(w, it->p1, O_PATH | O_CLOEXEC, 0);
	if (fd == -EXDEV)
		return exec__refused(w, it, it->p1);
	if (fd < 0)
		return exec__lookup_failed(w, res, fd);
	if (access)
		r = syscall(SYS_faccessat2, fd, "", (int)(op->mode & 7), AT_EMPTY_PATH);
	else if (op->type == REEL_OP_STATX)
		r = statx(fd, "", AT_EMPTY_PATH, op->mode ? op->mode : STATX_BASIC_STATS, &stx);
	else
		r = fstat(fd, &st);
	res->ret = r < 0 ? -errno : r;
	res->end_ns = worker__now(w);
	close(fd);
	return 0;
}

/*
 * A path op whose path the kernel could not read: the original failed with EFAULT before
 * looking anything up, and the trace has no path (Rust's std probes for statx with a NULL
 * path at a program's first metadata call). The same call with a NULL path fails the same
 * way, touching no file; other ops without a path stay unsupported.
 */
static int exec__unreadable_path(struct rworker *w, const struct reel_op *op, struct reel_op *res)
{
	struct statx stx;
	struct stat st;

	switch (op->type) {
	case REEL_OP_STATX:
		res->ret =
		    TIMED(res, syscall(SYS_statx, AT_FDCWD, NULL, 0, STATX_BASIC_STATS, &stx));
		break;
	case REEL_OP_STAT:
	case REEL_OP_LSTAT:
	case REEL_OP_NEWFSTATAT:
		res->ret = TIMED(res, syscall(SYS_newfstatat, AT_FDCWD, NULL, &st, 0));
		break;
	case REEL_OP_ACCESS:
	case REEL_OP_FACCESSAT:
		res->ret = TIMED(res, syscall(SYS_faccessat2, AT_FDCWD, NULL, 0, 0));
		break;
	default:
		exec__fail(w->run, REPLAY_FAIL_UNSUPPORTED, op, NULL, "path op without a path");
		return -(1 + REPLAY_FAIL_UNSUPPORTED);
	}
	return 0;
}

static int exec__path(struct rworker *w, const struct ritem *it, struct reel_op *res)
{
	const struct reel_op *op = &it->op;
	const char *base, *base2;
	struct statx stx;
	struct stat st, mst;
	int pfd, pfd2 = -1, fd, mapped = 0;
	long r = 0;

	pcache__check(w);
	/* a lookup that fails (the parent is missing) is all the op costs: timed from here */
	res->start_ns = worker__now(w);
	pfd = path__parent(w, it, it->p1, &base);
	if (pfd == PARENT_REFUSED)
		return -(1 + REPLAY_FAIL_REFUSED);
	if (pfd < 0) /* the parent is missing */
		return exec__lookup_failed(w, res, pfd);
	switch (op->type) {
	case REEL_OP_STAT:
	case REEL_OP_LSTAT:
	case REEL_OP_NEWFSTATAT:
		r = TIMED(res, fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW));
		if (!r && S_ISLNK(st.st_mode) && stat__follows(op))
			return stat__through(w, it, res);
		break;
	case REEL_OP_STATX:
		r = TIMED(res, statx(pfd, base, AT_SYMLINK_NOFOLLOW,
				     (op->mode ? op->mode : STATX_BASIC_STATS) | STATX_TYPE, &stx));
		if (!r && S_ISLNK(stx.stx_mode) && stat__follows(op))
			return stat__through(w, it, res);
		break;
	case REEL_OP_ACCESS:
	case REEL_OP_FACCESSAT:
		/* no symlink in the target: nothing to follow, one call as the original's */
		if (w->run->fs->symlinks && stat__follows(op))
			return stat__through(w, it, res);
		r = TIMED(res, syscall(SYS_faccessat2, pfd, base, (int)(op->mode & 7),
				       AT_SYMLINK_NOFOLLOW));
		break;
	case REEL_OP_UNLINK:
		mapped = mmaps__maps_name(w->run, pfd, base, &mst);
		r = TIMED(res, unlinkat(pfd, base, 0));
		break;
	case REEL_OP_UNLINKAT:
		mapped = !(op->flags & AT_REMOVEDIR) && mmaps__maps_name(w->run, pfd, base, &mst);
		r = TIMED(res, unlinkat(pfd, base, (int)(op->flags & AT_REMOVEDIR)));
		break;
	case REEL_OP_RMDIR:
		r = TIMED(res, unlinkat(pfd, base, AT_REMOVEDIR));
		break;
	case REEL_OP_MKDIR:
	case REEL_OP_MKDIRAT:
		r = TIMED(res, mkdirat(pfd, base, op->mode ? op->mode & 07777 : 0755));
		break;
	case REEL_OP_RENAME:
	case REEL_OP_RENAMEAT:
	case REEL_OP_RENAMEAT2:
		if (!it->p2) {
			exec__fail(w->run, REPLAY_FAIL_UNSUPPORTED, op, it->p1,
				   "rename without a new path");
			return -(1 + REPLAY_FAIL_UNSUPPORTED);
		}
		pfd2 = path__parent(w, it, it->p2, &base2);
		if (pfd2 == PARENT_REFUSED)
			return -(1 + REPLAY_FAIL_REFUSED);
		if (pfd2 < 0) {
			r = pfd2;
			res->end_ns = worker__now(w);
			break;
		}
		/* a rename over a file removes that file's name as an unlink does */
		mapped = !(op->type == REEL_OP_RENAMEAT2 && (op->flags & RENAME_EXCHANGE)) &&
			 mmaps__maps_name(w->run, pfd2, base2, &mst);
		r = TIMED(res, renameat2(pfd, base, pfd2, base2,
					 op->type == REEL_OP_RENAMEAT2 ? op->flags : 0));
		break;
	case REEL_OP_TRUNCATE:
		/*
		 * truncate(2) follows a last symlink: open it beneath the root instead. Timed from
		 * before the open, which does the lookup truncate(2) does (and is all a truncate of
		 * a missing file costs), to after the ftruncate.
		 */
		res->start_ns = worker__now(w);
		fd = rpath__open(w, it->p1, O_WRONLY | O_CLOEXEC, 0);
		if (fd == -EXDEV) {
			exec__fail(w->run, REPLAY_FAIL_REFUSED, op, it->p1,
				   "path escapes the target: refused");
			return -(1 + REPLAY_FAIL_REFUSED);
		}
		if (fd < 0) {
			res->end_ns = worker__now(w);
			r = fd;
			break;
		}
		r = ftruncate(fd, (off_t)op->len) ? -errno : 0;
		res->end_ns = worker__now(w);
		close(fd);
		break;
	case REEL_OP_SYMLINK:
	case REEL_OP_SYMLINKAT:
		if (!it->p2) {
			exec__fail(w->run, REPLAY_FAIL_UNSUPPORTED, op, it->p1,
				   "symlink without its content");
			return -(1 + REPLAY_FAIL_UNSUPPORTED);
		}
		/*
		 * The content is the application's string, verbatim (FORMAT.md). One that is
		 * absolute or climbs out names something outside the target, but making the link
		 * touches nothing there, and every later lookup through it is made beneath the
		 * root (RESOLVE_BENEATH), which refuses to follow it out.
		 */
		r = TIMED(res, symlinkat(it->p2->orig, pfd, base));
		break;
	case REEL_OP_READLINK:
	case REEL_OP_READLINKAT:
		if (exec__buf(w, op->len)) {
			exec__fail(w->run, REPLAY_FAIL_UNSUPPORTED, op, it->p1,
				   "request too large");
			return -(1 + REPLAY_FAIL_UNSUPPORTED);
		}
		/* never follows the last component; the parent is resolved beneath the root */
		r = TIMED(res, readlinkat(pfd, base, w->buf, op->len));
		break;
	default:
		exec__fail(w->run, REPLAY_FAIL_UNSUPPORTED, op, it->p1,
			   "op not supported by replay");
		return -(1 + REPLAY_FAIL_UNSUPPORTED);
	}
	/*
	 * A directory may have moved or gone: every worker's cached dir fds are stale. So are
	 * they when a name is made a symlink afresh (cur unlinked, then made to lead to v2), or
	 * a symlink used as a directory is unlinked (cur, then made a real directory): with
	 * symlinks in the run only, so that unlink-heavy runs without them keep their cache.
	 */
	if (r == 0 && (op->type == REEL_OP_RENAME || op->type == REEL_OP_RENAMEAT ||
		       op->type == REEL_OP_RENAMEAT2 || op->type == REEL_OP_RMDIR ||
		       op->type == REEL_OP_SYMLINK || op->type == REEL_OP_SYMLINKAT ||
		       (op->type == REEL_OP_UNLINKAT && (op->flags & AT_REMOVEDIR)) ||
		       ((op->type == REEL_OP_UNLINK || op->type == REEL_OP_UNLINKAT) &&
			w->run->fs->symlinks)))
		atomic_fetch_add(&w->run->dirgen, 1);
	/* counted if the trace never undoes its mappings (sqlite unlinks its -shm file while
	 * mapped, then unmaps it: so did the original) */
	if (r == 0 && mapped)
		mmaps__unlinked(w->run, &mst);
	res->ret = r;
	return 0;
}

static int exec__refused(struct rworker *w, const struct ritem *it, const struct rpath *p)
{
	exec__fail(w->run, REPLAY_FAIL_REFUSED, &it->op, p, "path escapes the target: refused");
	return -(1 + REPLAY_FAIL_REFUSED);
}

/*
 * link, linkat: both names resolved beneath the target. Without AT_SYMLINK_FOLLOW a last
 * symlink is linked itself and stays inside. With it, the old name is opened O_PATH beneath
 * the root (a symlink leading out is refused, never hard-linked into the target) and linked
 * from that fd, as the fd of AT_EMPTY_PATH is (an O_TMPFILE made visible); those are timed
 * from before the open, which does the lookup the original made.
 */
static int exec__link(struct rworker *w, const struct ritem *it, struct reel_op *res)
{
	const struct reel_op *op = &it->op;
	int from_fd = op->type == REEL_OP_LINKAT && (op->flags & AT_EMPTY_PATH) && op->fd >= 0;
	int follow = op->type == REEL_OP_LINKAT && (op->flags & AT_SYMLINK_FOLLOW) && !from_fd;
	const char *base = "", *base2;
	int ofd, pfd2;
	long r;

	pcache__check(w);
	if (!it->p2 || (!from_fd && !it->p1)) {
		exec__fail(w->run, REPLAY_FAIL_UNSUPPORTED, op, it->p1, "link without both paths");
		return -(1 + REPLAY_FAIL_UNSUPPORTED);
	}
	ofd = from_fd ? exec__fd(w, it, 0) : 0;
	if (ofd < 0)
		return -(1 + REPLAY_FAIL_UNKNOWN_FD);
	res->start_ns = worker__now(w);
	if (follow)
		ofd = rpath__open(w, it->p1, O_PATH | O_CLOEXEC, 0);
	else if (!from_fd)
		ofd = path__parent(w, it, it->p1, &base);
	if (ofd == PARENT_REFUSED)
		return -(1 + REPLAY_FAIL_REFUSED);
	if (ofd == -EXDEV)
		return exec__refused(w, it, it->p1);
	if (ofd < 0)
		return exec__lookup_failed(w, res, ofd);
	pfd2 = path__parent(w, it, it->p2, &base2);
	if (pfd2 == PARENT_REFUSED) {
		if (follow)
			close(ofd);
		return -(1 + REPLAY_FAIL_REFUSED);
	}
	if (pfd2 < 0) {
		r = pfd2;
		res->end_ns = worker__now(w);
	} else if (follow || from_fd) {
		r = linkat(ofd, "", pfd2, base2, AT_EMPTY_PATH) ? -errno : 0;
		res->end_ns = worker__now(w);
	} else {
		r = TIMED(res, linkat(ofd, base, pfd2, base2, 0));
	}
	if (follow)
		close(ofd);
	res->ret = r;
	return 0;
}

/* fchmodat2(2) came with Linux 6.6, after glibc 2.36's headers */
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

/*
 * chmod of an O_PATH fd before fchmodat2 (Linux 6.6): through the fd's /proc magic link,
 * which leads to the file the fd holds (resolved beneath the root already) and nowhere else.
 * Not a symlink itself (AT_SYMLINK_NOFOLLOW): the link would lead on to where it points.
 */
static long chmod__proc(int fd, mode_t mode)
{
	char path[40];
	struct stat st;

	if (fstat(fd, &st))
		return -1;
	if (S_ISLNK(st.st_mode)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return chmod(path, mode);
}

/* the change of a chmod, chown or utimensat, made on an O_PATH fd of the file */
static long attr__on_path_fd(const struct reel_op *op, int fd)
{
	long r;

	switch (op->type) {
	case REEL_OP_CHMOD:
	case REEL_OP_FCHMODAT:
		r = syscall(SYS_fchmodat2, fd, "", op->mode & 07777, AT_EMPTY_PATH);
		if (r < 0 && errno == ENOSYS)
			r = chmod__proc(fd, op->mode & 07777);
		break;
	case REEL_OP_UTIMENSAT:
		/* the times are not in the trace: now, the same inode update (FORMAT.md) */
		r = syscall(SYS_utimensat, fd, "", NULL, AT_EMPTY_PATH);
		break;
	default: /* the chown family: uid in aux, gid in ctx, -1 leaving one as it is */
		r = fchownat(fd, "", (uid_t)op->aux, (gid_t)op->ctx, AT_EMPTY_PATH);
		break;
	}
	return r < 0 ? -errno : r;
}

static int attr__nofollow(const struct reel_op *op)
{
	if (op->type == REEL_OP_LCHOWN)
		return 1;
	return (op->type == REEL_OP_FCHMODAT || op->type == REEL_OP_FCHOWNAT ||
		op->type == REEL_OP_UTIMENSAT) &&
	       (op->flags & AT_SYMLINK_NOFOLLOW);
}

/*
 * chmod, chown, utimensat by path. They follow a last symlink unless told not to, which the
 * call made on the parent's fd would do out of the target's reach: the file is opened O_PATH
 * beneath the root instead (a symlink leading out is refused) and changed through that fd.
 * Timed from before the open, which does the lookup the original call did, as truncate is.
 */
static int exec__attr_path(struct rworker *w, const struct ritem *it, struct reel_op *res)
{
	const struct reel_op *op = &it->op;
	int fd;

	res->start_ns = worker__now(w);
	fd = rpath__open(w, it->p1, O_PATH | O_CLOEXEC | (attr__nofollow(op) ? O_NOFOLLOW : 0), 0);
	if (fd == -EXDEV)
		return exec__refused(w, it, it->p1);
	if (fd < 0)
		return exec__lookup_failed(w, res, fd);
	res->ret = attr__on_path_fd(op, fd);
	res->end_ns = worker__now(w);
	close(fd);
	return 0;
}

/*
 * fchmod, fchown, futimens, and the *at calls with AT_EMPTY_PATH: on the replay's fd. The *at
 * forms are made as the application made them, with AT_EMPTY_PATH: unlike fchmod, fchown and
 * futimens, they take an O_PATH fd, which the replay opens as the original did.
 */
static int exec__attr_fd(struct rworker *w, const struct ritem *it, struct reel_op *res)
{
	const struct reel_op *op = &it->op;
	int fd = exec__fd(w, it, 0);

	if (fd < 0)
		return -(1 + REPLAY_FAIL_UNKNOWN_FD);
	switch (op->type) {
	case REEL_OP_FCHMOD:
		res->ret = TIMED(res, fchmod(fd, op->mode & 07777));
		break;
	case REEL_OP_FCHOWN:
		res->ret = TIMED(res, fchown(fd, (uid_t)op->aux, (gid_t)op->ctx));
		break;
	case REEL_OP_UTIMENSAT:
		if (!op->path) { /* futimens(): utimensat(fd, NULL, ...) */
			res->ret = TIMED(res, futimens(fd, NULL));
			break;
		}
		/* fallthrough */
	default: /* fchmodat, fchownat, utimensat (fd, "", AT_EMPTY_PATH) */
		res->ret = TIMED_SYS(res, attr__on_path_fd(op, fd));
		break;
	}
	return 0;
}

/*
 * Where a sendfile's bytes go. To a regular file of the replay, as in the original, when the
 * trace says the destination was one (mode reg). To a socket, a pipe, a destination of unknown
 * kind, or anything else: the run's /dev/null fd. sendfile into /dev/null goes
 * through the same splice of the source's page cache pages as into a socket, so the source is
 * read as the original read it and the count is what the file allows; only the network (or
 * the pipe's reader, which the replay cannot recreate) is left out.
 */
static int sendfile__out(struct rworker *w, const struct ritem *it, int *to_file)
{
	const struct reel_op *op = &it->op;

	/* a kind the recorder could not tell is no file either: its aux is no position
	 * (FORMAT.md), and writing the file at 0 would overwrite what the application wrote */
	*to_file = 1;
	if (op->mode == REEL_FD_REG)
		return exec__fd_of(w, it, op->fd2, it->p2, 1);
	*to_file = 0;
	if (w->run->devnull < 0)
		exec__fail(w->run, REPLAY_FAIL_UNSUPPORTED, op, it->p1,
			   "sendfile to a non-file: cannot open /dev/null");
	return w->run->devnull;
}

/*
 * copy_file_range, sendfile: positioned on both sides, as the data ops are. sendfile has no
 * position for its destination: a file's is set before the timed call (the lseek is not part
 * of the op).
 */
static int exec__copy(struct rworker *w, const struct ritem *it, struct reel_op *res)
{
	const struct reel_op *op = &it->op;
	off_t off_in = (off_t)op->offset, off_out = (off_t)op->aux;
	int in, out, to_file = 1;
	size_t count;

	in = exec__fd(w, it, 0);
	if (in < 0)
		return -(1 + REPLAY_FAIL_UNKNOWN_FD);
	if (op->type == REEL_OP_COPY_FILE_RANGE)
		out = exec__fd_of(w, it, op->fd2, it->p2, 1);
	else
		out = sendfile__out(w, it, &to_file);
	if (out < 0)
		return -(1 + (to_file ? REPLAY_FAIL_UNKNOWN_FD : REPLAY_FAIL_UNSUPPORTED));
	if (op->type == REEL_OP_COPY_FILE_RANGE) {
		res->ret =
		    TIMED(res, copy_file_range(in, &off_in, out, &off_out, op->len, op->flags));
		return 0;
	}
	if (to_file && lseek(out, off_out, SEEK_SET) < 0) {
		/* the op fails as the sendfile would have, untimed work aside */
		res->start_ns = res->end_ns = worker__now(w);
		res->ret = -errno;
		return 0;
	}
	/* into /dev/null, as much as the network took: a socket that was full took part of
	 * what was asked (nginx: 6 % of its sendfiles), the next call asked for the rest */
	count = !to_file && op->ret >= 0 ? (size_t)op->ret : op->len;
	res->ret = TIMED(res, sendfile(out, in, &off_in, count));
	return 0;
}

/*
 * An O_DIRECT read or write that failed EINVAL at an offset and a length that any block size
 * divides failed for its buffer's address, which the trace does not hold: QEMU probes a raw
 * image's memory alignment so, reading 4 KiB at offset 0 from buf + 1, then from buf + 512.
 * From the replay's aligned buffer it read from the disk where the original failed. One byte
 * off is refused wherever O_DIRECT asks for any alignment. Rare: the fcntl costs nothing.
 */
static int exec__misaligned(const struct reel_op *op, int fd)
{
	int fl;

	if (op->ret != -EINVAL || !op->len || ((op->offset | op->len) & 4095))
		return 0;
	fl = fcntl(fd, F_GETFL);
	return fl >= 0 && (fl & O_DIRECT);
}

static int exec__data(struct rworker *w, const struct ritem *it, struct reel_op *res, int fd)
{
	const struct reel_op *op = &it->op;
	size_t skew = exec__misaligned(op, fd);
	struct iovec iov;
	char *buf;
	long r;

	if (exec__buf(w, op->len + skew)) {
		exec__fail(w->run, REPLAY_FAIL_UNSUPPORTED, op, it->p1, "request too large");
		return -(1 + REPLAY_FAIL_UNSUPPORTED);
	}
	buf = (char *)w->buf + skew;
	iov.iov_base = buf;
	iov.iov_len = op->len;
	if (w->test_prep_ns) /* as long as a first use's open of the fd's file, say */
		for (uint64_t t = replay_now_ns() + w->test_prep_ns; replay_now_ns() < t;)
			;
	switch (op->type) {
	case REEL_OP_READ:
	case REEL_OP_PREAD64:
		r = TIMED_SYS(res, sys_pread(fd, buf, op->len, (off_t)op->offset));
		break;
	case REEL_OP_READV:
	case REEL_OP_PREADV:
		r = TIMED_SYS(res, sys_preadv(fd, &iov, 1, (off_t)op->offset));
		break;
	case REEL_OP_PREADV2:
		r = TIMED_SYS(res, sys_preadv2(fd, &iov, 1, (off_t)op->offset, (int)op->flags));
		break;
	case REEL_OP_WRITE:
	case REEL_OP_PWRITE64:
		r = TIMED_SYS(res, sys_pwrite(fd, buf, op->len, (off_t)op->offset));
		break;
	case REEL_OP_WRITEV:
	case REEL_OP_PWRITEV:
		r = TIMED_SYS(res, sys_pwritev(fd, &iov, 1, (off_t)op->offset));
		break;
	default: /* PWRITEV2 */
		/* an append (RWF_APPEND) goes where the original's landed, as O_APPEND's do */
		r = TIMED_SYS(res, sys_pwritev2(fd, &iov, 1, (off_t)op->offset,
						(int)(op->flags & ~(uint32_t)RWF_APPEND)));
		break;
	}
	res->ret = r;
	return 0;
}

/* --engine io_uring|libaio: a sync read/write goes to the worker's engine, not awaited */
/*
 * replay_engine__submit's make_room for a worker's own request, refused as the trace's own
 * are (async__submit): the kernel is short of room for now, while the thread's syscall would
 * have gone through. Reaping this worker's requests in flight makes room; retiring the ones
 * at the head moves the ring's head and count alike, so the refused request's slot stays
 * the next.
 */
static int exec__make_room(void *ctx)
{
	struct rworker *w = ctx;
	struct timespec ms = {0, 1000000};

	if (w->infl_n) {
		worker__reap(w, 1, 0);
		return 1;
	}
	nanosleep(&ms, NULL);
	return 0;
}

static int exec__data_async(struct rworker *w, const struct ritem *it, struct reel_op *res, int fd)
{
	const struct reel_op *op = &it->op;
	unsigned slot = (w->infl_head + w->infl_n) % RUN_ASYNC_DEPTH;
	struct rinflight *f = &w->infl[slot];
	int r;

	if (op->len > BUF_MAX) {
		exec__fail(w->run, REPLAY_FAIL_UNSUPPORTED, op, it->p1, "request too large");
		return -(1 + REPLAY_FAIL_UNSUPPORTED);
	}
	if ((!f->io.buf || f->cap < op->len) && w->infl_n < RUN_ASYNC_DEPTH - 1) {
		/*
		 * The buffer of the slot retired last, free now: the slots go round the ring
		 * whatever the depth, and each had its own, allocated and filled on first use.
		 * dd's 64 sequential 1 MiB O_DIRECT writes, one in flight, replayed through
		 * libaio at 375 us of the worker's CPU per op (64 MiB of buffers made), against
		 * 45 us with the sync engine, the replay falling 95 ms behind its schedule.
		 */
		struct rinflight *prev =
		    &w->infl[(w->infl_head + RUN_ASYNC_DEPTH - 1) % RUN_ASYNC_DEPTH];

		if (prev->io.buf && prev->cap >= op->len) {
			void *buf = f->io.buf;
			size_t cap = f->cap;

			f->io.buf = prev->io.buf;
			f->cap = prev->cap;
			prev->io.buf = buf;
			prev->cap = cap;
		}
	}
	if (!f->io.buf || f->cap < op->len) {
		size_t sz = (op->len + 4095) & ~(size_t)4095;

		if (!sz)
			sz = 4096;
		free(f->io.buf);
		f->io.buf = NULL;
		f->cap = 0;
		if (posix_memalign(&f->io.buf, 4096, sz)) {
			exec__fail(w->run, REPLAY_FAIL_UNSUPPORTED, op, it->p1, "out of memory");
			return -(1 + REPLAY_FAIL_UNSUPPORTED);
		}
		memset(f->io.buf, 0x5a, sz);
		f->cap = sz;
	}
	f->io.kind = reel_op__is_read(op->type) ? REPLAY_IO_READ : REPLAY_IO_WRITE;
	f->io.fd = fd;
	f->io.len = op->len;
	f->io.off = op->offset;
	f->io.rw_flags = 0; /* (pwritev2 and preadv2, which have flags, go as syscalls) */
	f->io.owner = f;
	f->done = 0;
	f->seq = it->seq;
	res->start_ns = replay_now_ns();
	r = replay_engine__submit(&w->eng, &f->io, exec__make_room, w);
	if (r) {
		res->end_ns = replay_now_ns();
		res->ret = r;
		return 0;
	}
	f->res = *res;
	w->infl_n++;
	return 1;
}

/*
 * sync(2), recorded as a syncfs with no fd: every file system's sync. The replay syncs the
 * file systems of its targets, each once, the storage it measures: never the others', which
 * are no part of the comparison (and may be another job's). Root fds are O_PATH, which
 * syncfs refuses: each is opened for it, untimed.
 */
static int exec__sync_all(struct rworker *w, struct reel_op *res)
{
	const struct replay_mapper *m = w->run->m;
	int fds[REPLAY_MAX_ROOTS], n = 0;
	dev_t devs[REPLAY_MAX_ROOTS];
	long ret = 0;

	for (int i = 0; i < m->n_roots; i++) {
		int fd = openat(m->roots[i].fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		struct stat st;
		int seen = 0;

		if (fd < 0) {
			ret = -errno;
			continue;
		}
		/* a root whose device is not known is synced on its own */
		if (fstat(fd, &st) < 0)
			st.st_dev = (dev_t)-1;
		for (int j = 0; j < n && !seen && st.st_dev != (dev_t)-1; j++)
			seen = devs[j] == st.st_dev;
		if (seen) {
			close(fd);
			continue;
		}
		devs[n] = st.st_dev;
		fds[n++] = fd;
	}
	res->start_ns = worker__now(w);
	for (int i = 0; i < n; i++)
		if (syncfs(fds[i]) < 0 && !ret)
			ret = -errno;
	res->end_ns = worker__now(w);
	for (int i = 0; i < n; i++)
		close(fds[i]);
	res->ret = ret;
	return 0;
}

int exec__op(struct rworker *w, const struct ritem *it, struct reel_op *res)
{
	const struct reel_op *op = &it->op;
	int fd, r = 0;
	long ret;

	switch (op->type) {
	case REEL_OP_OPEN:
	case REEL_OP_OPENAT:
	case REEL_OP_OPENAT2:
	case REEL_OP_CREAT:
		if (!it->p1)
			break;
		return exec__open(w, it, res);
	case REEL_OP_CLOSE:
		/* close(-1) (git's, of a pipe end it never made): fails the same, closes nothing */
		if ((op->fd < 0 || op->fd >= RUN_FD_MAX) && op->ret == -EBADF) {
			res->ret = TIMED(res, close(-1));
			return 0;
		}
		if (op->fd < 0 || op->fd >= RUN_FD_MAX)
			break;
		if ((it->flags & ITEM_RELEASED) && (fd = fd__released(w, op->fd)) >= 0) {
			lock__closed(w, fd);
			res->ret = TIMED(res, close(fd));
			return 0;
		}
		if (it->flags & ITEM_RELEASED) {
			/* its file was never opened in the replay (from before the capture) */
			atomic_fetch_add(&w->run->noop_closes, 1);
			return -(1 + REPLAY_FAIL__COUNT);
		}
		fd = atomic_exchange(rpid__slot(w->rp, op->fd), RFD_CLOSED);
		if (fd < 0) {
			if (fd == RFD_FAILED) {
				exec__fail(w->run, REPLAY_FAIL_UNKNOWN_FD, op, it->p1,
					   "its open failed in the replay");
				return -(1 + REPLAY_FAIL_UNKNOWN_FD);
			}
			/* the original closed nothing either (a double close, an fd never open):
			 * a close that fails the same way */
			if (op->ret == -EBADF) {
				res->ret = TIMED(res, close(-1));
				return 0;
			}
			/* an fd from before the capture (or inherited over fork) closed without
			 * use: nothing to close; counted apart, not as a failure */
			atomic_fetch_add(&w->run->noop_closes, 1);
			return -(1 + REPLAY_FAIL__COUNT);
		}
		lock__closed(w, fd);
		res->ret = TIMED(res, close(fd));
		return 0;
	case REEL_OP_STAT:
	case REEL_OP_LSTAT:
	case REEL_OP_NEWFSTATAT:
	case REEL_OP_STATX:
		if (replay_op__on_fd(op)) {
			struct statx stx;
			struct stat st;

			/* fstat() as glibc issues it: newfstatat(fd, "", AT_EMPTY_PATH) */
			fd = exec__fd(w, it, 0);
			if (fd < 0)
				return -(1 + REPLAY_FAIL_UNKNOWN_FD);
			if (op->type == REEL_OP_STATX)
				res->ret = TIMED(res, statx(fd, "", AT_EMPTY_PATH,
							    op->mode ? op->mode : STATX_BASIC_STATS,
							    &stx));
			else
				res->ret = TIMED(res, fstat(fd, &st));
			return 0;
		}
		/* fallthrough */
	case REEL_OP_ACCESS:
	case REEL_OP_FACCESSAT:
	case REEL_OP_UNLINK:
	case REEL_OP_UNLINKAT:
	case REEL_OP_RMDIR:
	case REEL_OP_MKDIR:
	case REEL_OP_MKDIRAT:
	case REEL_OP_RENAME:
	case REEL_OP_RENAMEAT:
	case REEL_OP_RENAMEAT2:
	case REEL_OP_TRUNCATE:
	case REEL_OP_SYMLINK:
	case REEL_OP_SYMLINKAT:
	case REEL_OP_READLINK:
	case REEL_OP_READLINKAT:
		if (!it->p1 && op->ret == -EFAULT)
			return exec__unreadable_path(w, op, res);
		if (!it->p1)
			break;
		return exec__path(w, it, res);
	case REEL_OP_LINK:
	case REEL_OP_LINKAT:
		return exec__link(w, it, res);
	case REEL_OP_CHMOD:
	case REEL_OP_FCHMODAT:
	case REEL_OP_CHOWN:
	case REEL_OP_LCHOWN:
	case REEL_OP_FCHOWNAT:
	case REEL_OP_UTIMENSAT:
		if (replay_op__on_fd(op))
			return exec__attr_fd(w, it, res);
		if (!it->p1)
			break;
		return exec__attr_path(w, it, res);
	case REEL_OP_FCHMOD:
	case REEL_OP_FCHOWN:
		return exec__attr_fd(w, it, res);
	case REEL_OP_COPY_FILE_RANGE:
	case REEL_OP_SENDFILE:
		return exec__copy(w, it, res);
	case REEL_OP_AIO_SUBMIT:
	case REEL_OP_URING_SUBMIT:
		/* with the records of its syscall after it, in one syscall */
		return async__submit(w, it, res);
	case REEL_OP_AIO_COMPLETE:
	case REEL_OP_URING_COMPLETE: {
		uint64_t sub = 0, done = 0;

		res->start_ns = replay_now_ns();
		r = async__complete(w, it, res, &sub, &done);
		res->end_ns = replay_now_ns();
		/* as in the trace: start is the request's submission, end its completion, which
		 * may have come before this record was due */
		if (sub)
			res->start_ns = sub;
		if (done && done >= res->start_ns && done < res->end_ns)
			res->end_ns = done;
		return r;
	}
	case REEL_OP_MMAP:
		if (op->fd < 0)
			break;
		return exec__mmap(w, it, res);
	case REEL_OP_MSYNC:
		return exec__msync(w, it, res);
	case REEL_OP_MUNMAP:
		return exec__munmap(w, it, res);
	case REEL_OP_FLOCK:
	case REEL_OP_FCNTL_LOCK:
		return exec__lock(w, it, res);
	case REEL_OP_FORK:
	case REEL_OP_EXECVE:
	case REEL_OP_EXIT:
		return exec__proc(w, it, res);
	case REEL_OP_SYNCFS:
		if (op->fd < 0)
			return exec__sync_all(w, res);
		/* fallthrough */
	default:
		if (op->type >= REEL_OP__COUNT)
			break;
		fd = exec__fd(w, it,
			      reel_op__is_write(op->type) || op->type == REEL_OP_FTRUNCATE ||
				  op->type == REEL_OP_FALLOCATE);
		if (fd < 0)
			return -(1 + REPLAY_FAIL_UNKNOWN_FD);
		if (reel_op__is_read(op->type) || reel_op__is_write(op->type)) {
			/* a directory's read fails EINVAL through libaio, where the thread's
			 * syscall failed EISDIR: it goes as the syscall, as does a probe of
			 * O_DIRECT's buffer alignment (the engines' buffers are aligned) */
			if (w->eng_on && op->type != REEL_OP_PREADV2 &&
			    op->type != REEL_OP_PWRITEV2 && op->fd_kind != REEL_FD_DIR &&
			    !exec__misaligned(op, fd))
				return exec__data_async(w, it, res, fd);
			return exec__data(w, it, res, fd);
		}
		switch (op->type) {
		case REEL_OP_LSEEK:
			/* positions are not kept (data ops are positioned): SEEK_CUR goes to
			 * where the original landed */
			if (op->mode == SEEK_CUR && op->ret >= 0)
				ret = TIMED(res, lseek(fd, (off_t)op->ret, SEEK_SET));
			else
				ret = TIMED(res, lseek(fd, (off_t)op->offset, (int)op->mode));
			break;
		case REEL_OP_FSYNC:
			ret = TIMED_SYS(res, sys_fsync(fd));
			break;
		case REEL_OP_FDATASYNC:
			ret = TIMED_SYS(res, sys_fdatasync(fd));
			break;
		case REEL_OP_SYNC_FILE_RANGE:
			ret = TIMED(
			    res, sync_file_range(fd, (off_t)op->offset, (off_t)op->len, op->flags));
			break;
		case REEL_OP_SYNCFS:
			ret = TIMED(res, syncfs(fd));
			break;
		case REEL_OP_FSTAT: {
			struct stat st;

			ret = TIMED(res, fstat(fd, &st));
			break;
		}
		case REEL_OP_FTRUNCATE:
			ret = TIMED(res, ftruncate(fd, (off_t)op->len));
			break;
		case REEL_OP_FALLOCATE:
			ret = TIMED(
			    res, fallocate(fd, (int)op->mode, (off_t)op->offset, (off_t)op->len));
			break;
		case REEL_OP_FADVISE64:
			res->start_ns = worker__now(w);
			ret = -posix_fadvise(fd, (off_t)op->offset, (off_t)op->len, (int)op->mode);
			res->end_ns = worker__now(w);
			break;
		case REEL_OP_GETDENTS64:
			if (exec__buf(w, op->len ? op->len : 32768))
				return -(1 + REPLAY_FAIL_UNSUPPORTED);
			ret = TIMED(res,
				    syscall(SYS_getdents64, fd, w->buf, op->len ? op->len : 32768));
			break;
		case REEL_OP_DUP:
		case REEL_OP_DUP2:
		case REEL_OP_DUP3:
		case REEL_OP_FCNTL_DUPFD:
			/* close-on-exec as the original's new fd: dup's never, the others' by
			 * their O_CLOEXEC (F_DUPFD_CLOEXEC's too) */
			ret = TIMED(res, fcntl(fd,
					       op->type != REEL_OP_DUP && (op->flags & O_CLOEXEC)
						   ? F_DUPFD_CLOEXEC
						   : F_DUPFD,
					       0));
			if (op->ret >= 0 && ret >= 0) {
				fd__set(w, (int32_t)op->ret, (int)ret,
					op->type == REEL_OP_DUP2 || op->type == REEL_OP_DUP3);
				ret = op->ret; /* the trace's number, as an open's (exec__open) */
			} else if (ret >= 0)
				close((int)ret);
			break;
		default:
			exec__fail(w->run, REPLAY_FAIL_UNSUPPORTED, op, it->p1,
				   "op not supported by replay");
			return -(1 + REPLAY_FAIL_UNSUPPORTED);
		}
		res->ret = ret;
		return 0;
	}
	exec__fail(w->run, REPLAY_FAIL_UNSUPPORTED, op, it->p1,
		   it->p1 || op->type == REEL_OP_MMAP
		       ? "op not supported by replay"
		       : "path op without a path (the recording could not know it: longer than "
			 "PATH_MAX once absolute, capture.paths_too_long)");
	return -(1 + REPLAY_FAIL_UNSUPPORTED);
}
