/* SPDX-License-Identifier: MIT */
/*
 * replay_exec.c - issue one traced op against the target.
 *
 * Every data op replays as its positioned form at the offset the trace recorded (read ->
 * pread64, readv -> preadv with one iovec, write -> pwrite64 ...), so that no file position
 * has to be kept in step between threads. Path ops resolve beneath the target root (see
 * replay_map.c); the stat family and access never follow a symlink in the last component
 * (the prepared tree has none, and one planted there must not lead out). Original fds map to
 * replay fds per process; an fd the replay never saw opened (opened before the capture) is
 * opened lazily from the path the op carries. Only the main syscall is timed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "replay_run.h"

#define BUF_MAX (256u << 20)
#define OPEN_FLAGS_OK                                                                              \
	(O_ACCMODE | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_APPEND | O_NONBLOCK | O_DSYNC |     \
	 O_SYNC | O_DIRECT | O_LARGEFILE | O_DIRECTORY | O_NOFOLLOW | O_NOATIME | O_PATH |         \
	 __O_TMPFILE)

int replay_op__on_fd(const struct reel_op *op)
{
	if (op->fd < 0)
		return 0;
	if (!reel_op__has_path(op->type))
		return 1;
	/* fstat as glibc issues it, newfstatat/statx(fd, "", AT_EMPTY_PATH): the path, when
	 * the trace has one, is the fd's */
	return (op->type == REEL_OP_NEWFSTATAT || op->type == REEL_OP_STATX) &&
	       (op->flags & AT_EMPTY_PATH);
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

_Atomic int32_t *rpid__slot(struct rpid *rp, int fd)
{
	_Atomic int32_t *pg = atomic_load(&rp->page[fd / RUN_FD_PAGE]), *expect = NULL;

	if (!pg) {
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
	}
	return &pg[fd % RUN_FD_PAGE];
}

void exec__fail(struct run *run, enum replay_fail_kind k, const struct reel_op *op,
		const struct rpath *p, const char *why)
{
	struct replay_summary *s = run->sum;
	uint64_t n = atomic_fetch_add(&run->fail[k], 1);
	char line[320];

	atomic_fetch_add(&run->failures, 1);
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
	if (run->o->notice && k >= REPLAY_FAIL_UNKNOWN_FD && n < 5) {
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

/* The replay fd for op->fd; opens the op's path when the fd predates the capture. */
int exec__fd(struct rworker *w, const struct ritem *it, int for_write)
{
	const struct reel_op *op = &it->op;
	int32_t v;
	int fd;

	if (op->fd < 0 || op->fd >= RUN_FD_MAX) {
		exec__fail(w->run, REPLAY_FAIL_UNKNOWN_FD, op, it->p1, "fd out of range");
		return -EBADF;
	}
	v = atomic_load(rpid__slot(w->rp, op->fd));
	if (v >= 0)
		return v;
	if (v == RFD_FAILED)
		return -EBADF; /* the open that made it failed, and was counted */
	if (!it->p1) {
		exec__fail(w->run, REPLAY_FAIL_UNKNOWN_FD, op, NULL,
			   v == RFD_CLOSED
			       ? "fd already closed in the replay"
			       : "unknown fd (opened before the capture, no path in the "
				 "trace): not replayed");
		return -EBADF;
	}
	/* the fd's access mode is not in the trace: read-write when the file allows it, so
	 * that later writes through it (or its dups) work */
	fd = replay_path__open(w->run->m->roots[it->p1->root].fd, it->p1->rel, O_RDWR, 0);
	if (fd < 0 && fd != -EXDEV && !for_write)
		fd = replay_path__open(w->run->m->roots[it->p1->root].fd, it->p1->rel, O_RDONLY, 0);
	if (fd == -EISDIR)
		fd = replay_path__open(w->run->m->roots[it->p1->root].fd, it->p1->rel,
				       O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0) {
		exec__fail(w->run, fd == -EXDEV ? REPLAY_FAIL_REFUSED : REPLAY_FAIL_UNKNOWN_FD, op,
			   it->p1,
			   fd == -EXDEV ? "path escapes the target: refused"
					: "fd opened before the capture: cannot open its path");
		atomic_store(rpid__slot(w->rp, op->fd), RFD_FAILED);
		return -EBADF;
	}
	/* another thread of the process may have opened it meanwhile: keep one */
	if (!atomic_compare_exchange_strong(rpid__slot(w->rp, op->fd), &v, fd)) {
		close(fd);
		return v >= 0 ? v : -EBADF;
	}
	return fd;
}

static void fd__set(struct rworker *w, int32_t orig, int fd)
{
	int32_t old;

	if (orig < 0 || orig >= RUN_FD_MAX) {
		if (fd >= 0)
			close(fd);
		return;
	}
	old = atomic_exchange(rpid__slot(w->rp, orig), fd);
	/* the trace reused the number without a traced close (e.g. dup2 over it) */
	if (old >= 0)
		close(old);
}

#define TIMED(res, expr)                                                                           \
	({                                                                                         \
		long __r;                                                                          \
		(res)->start_ns = worker__now(w);                                                  \
		__r = (long)(expr);                                                                \
		(res)->end_ns = worker__now(w);                                                    \
		__r < 0 ? -(long)errno : __r;                                                      \
	})

static int exec__open(struct rworker *w, const struct ritem *it, struct reel_op *res)
{
	const struct reel_op *op = &it->op;
	struct run *run = w->run;
	int flags = (int)(op->flags & OPEN_FLAGS_OK);
	int rootfd = run->m->roots[it->p1->root].fd;
	long fd;

	if (op->type == REEL_OP_CREAT)
		flags = O_CREAT | O_WRONLY | O_TRUNC;
	res->start_ns = worker__now(w);
	fd = replay_path__open(rootfd, it->p1->rel, flags, op->mode);
	res->end_ns = worker__now(w);
	if (fd == -EINVAL && (flags & O_DIRECT)) {
		if (run->o->direct_keep) {
			atomic_fetch_add(&run->direct_failed, 1);
		} else {
			/* the target rejects O_DIRECT (tmpfs): drop it, and say so in the result */
			res->start_ns = worker__now(w);
			/* an O_EXCL open failing with EINVAL, not EEXIST, created the file already
			 */
			fd = replay_path__open(rootfd, it->p1->rel, flags & ~(O_DIRECT | O_EXCL),
					       op->mode);
			res->end_ns = worker__now(w);
			atomic_fetch_add(&run->direct_dropped, 1);
		}
	}
	res->ret = fd;
	if (fd == -EXDEV) {
		exec__fail(run, REPLAY_FAIL_REFUSED, op, it->p1,
			   "path escapes the target: refused");
		return -(1 + REPLAY_FAIL_REFUSED);
	}
	if (op->ret >= 0)
		fd__set(w, (int32_t)op->ret, fd >= 0 ? (int)fd : RFD_FAILED);
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
 * Path op: the parent directory's fd, resolved beneath the root; -errno when it cannot be
 * opened (the op then fails as it would: ENOENT, ENOTDIR), PARENT_REFUSED when it escapes.
 * The last few are kept open (a worker's path ops mostly hit the same directories: one *at
 * call then, as the application made), until any rename or rmdir of the replay.
 */
static int path__parent(struct rworker *w, const struct ritem *it, const struct rpath *p,
			const char **base)
{
	const char *slash = strrchr(p->rel, '/');
	size_t n = slash ? (size_t)(slash - p->rel) : 0;
	uint32_t gen = atomic_load(&w->run->dirgen);
	int pfd, v = 0;

	if (gen != w->pc_gen) {
		exec__pcache_clear(w);
		w->pc_gen = gen;
	}
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

static int exec__path(struct rworker *w, const struct ritem *it, struct reel_op *res)
{
	const struct reel_op *op = &it->op;
	const char *base, *base2;
	struct statx stx;
	struct stat st;
	int pfd, pfd2 = -1, fd;
	long r = 0;

	/* a lookup that fails (the parent is missing) is all the op costs: timed from here */
	res->start_ns = worker__now(w);
	pfd = path__parent(w, it, it->p1, &base);
	if (pfd == PARENT_REFUSED)
		return -(1 + REPLAY_FAIL_REFUSED);
	if (pfd < 0) {
		/* the parent is missing: the op fails as it would have (ENOENT, ENOTDIR) */
		res->end_ns = worker__now(w);
		res->ret = pfd;
		return 0;
	}
	switch (op->type) {
	case REEL_OP_STAT:
	case REEL_OP_LSTAT:
	case REEL_OP_NEWFSTATAT:
		r = TIMED(res, fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW));
		break;
	case REEL_OP_STATX:
		r = TIMED(res, statx(pfd, base, AT_SYMLINK_NOFOLLOW,
				     op->mode ? op->mode : STATX_BASIC_STATS, &stx));
		break;
	case REEL_OP_ACCESS:
	case REEL_OP_FACCESSAT:
		r = TIMED(res, syscall(SYS_faccessat2, pfd, base, (int)(op->mode & 7),
				       AT_SYMLINK_NOFOLLOW));
		break;
	case REEL_OP_UNLINK:
		r = TIMED(res, unlinkat(pfd, base, 0));
		break;
	case REEL_OP_UNLINKAT:
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
		fd = replay_path__open(w->run->m->roots[it->p1->root].fd, it->p1->rel, O_WRONLY, 0);
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
	default:
		exec__fail(w->run, REPLAY_FAIL_UNSUPPORTED, op, it->p1,
			   "op not supported by replay");
		return -(1 + REPLAY_FAIL_UNSUPPORTED);
	}
	/* a directory may have moved or gone: every worker's cached dir fds are stale */
	if (r == 0 && (op->type == REEL_OP_RENAME || op->type == REEL_OP_RENAMEAT ||
		       op->type == REEL_OP_RENAMEAT2 || op->type == REEL_OP_RMDIR ||
		       (op->type == REEL_OP_UNLINKAT && (op->flags & AT_REMOVEDIR))))
		atomic_fetch_add(&w->run->dirgen, 1);
	res->ret = r;
	return 0;
}

static int exec__data(struct rworker *w, const struct ritem *it, struct reel_op *res, int fd)
{
	const struct reel_op *op = &it->op;
	struct iovec iov;
	long r;

	if (exec__buf(w, op->len)) {
		exec__fail(w->run, REPLAY_FAIL_UNSUPPORTED, op, it->p1, "request too large");
		return -(1 + REPLAY_FAIL_UNSUPPORTED);
	}
	iov.iov_base = w->buf;
	iov.iov_len = op->len;
	switch (op->type) {
	case REEL_OP_READ:
	case REEL_OP_PREAD64:
		r = TIMED(res, pread(fd, w->buf, op->len, (off_t)op->offset));
		break;
	case REEL_OP_READV:
	case REEL_OP_PREADV:
		r = TIMED(res, preadv(fd, &iov, 1, (off_t)op->offset));
		break;
	case REEL_OP_PREADV2:
		r = TIMED(res, preadv2(fd, &iov, 1, (off_t)op->offset, (int)op->flags));
		break;
	case REEL_OP_WRITE:
	case REEL_OP_PWRITE64:
		r = TIMED(res, pwrite(fd, w->buf, op->len, (off_t)op->offset));
		break;
	case REEL_OP_WRITEV:
	case REEL_OP_PWRITEV:
		r = TIMED(res, pwritev(fd, &iov, 1, (off_t)op->offset));
		break;
	default: /* PWRITEV2 */
		r = TIMED(res, pwritev2(fd, &iov, 1, (off_t)op->offset, (int)op->flags));
		break;
	}
	res->ret = r;
	return 0;
}

/* --engine io_uring|libaio: a sync read/write goes to the worker's engine, not awaited */
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
	if (!f->io.buf || f->io.len < op->len) {
		size_t sz = (op->len + 4095) & ~(size_t)4095;

		free(f->io.buf);
		f->io.buf = NULL;
		if (posix_memalign(&f->io.buf, 4096, sz ? sz : 4096)) {
			exec__fail(w->run, REPLAY_FAIL_UNSUPPORTED, op, it->p1, "out of memory");
			return -(1 + REPLAY_FAIL_UNSUPPORTED);
		}
		memset(f->io.buf, 0x5a, sz ? sz : 4096);
	}
	f->io.kind = reel_op__is_read(op->type) ? REPLAY_IO_READ : REPLAY_IO_WRITE;
	f->io.fd = fd;
	f->io.len = op->len;
	f->io.off = op->offset;
	f->io.owner = f;
	f->done = 0;
	f->seq = it->seq;
	res->start_ns = replay_now_ns();
	r = w->eng.ops->queue(&w->eng, &f->io);
	if (!r)
		r = w->eng.ops->commit(&w->eng);
	if (r) {
		res->end_ns = replay_now_ns();
		res->ret = r;
		return 0;
	}
	f->res = *res;
	w->infl_n++;
	return 1;
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
		if (op->fd < 0 || op->fd >= RUN_FD_MAX)
			break;
		fd = atomic_exchange(rpid__slot(w->rp, op->fd), RFD_CLOSED);
		if (fd < 0) {
			if (fd == RFD_FAILED)
				return -(1 + REPLAY_FAIL_UNKNOWN_FD);
			/* an fd from before the capture (or inherited over fork) closed without
			 * use: nothing to close; counted apart, not as a failure */
			atomic_fetch_add(&w->run->noop_closes, 1);
			return -(1 + REPLAY_FAIL__COUNT);
		}
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
		if (!it->p1)
			break;
		return exec__path(w, it, res);
	case REEL_OP_AIO_SUBMIT:
	case REEL_OP_URING_SUBMIT: {
		uint64_t sub = 0;

		res->start_ns = replay_now_ns();
		r = async__submit(w, it, &res->ret, &sub);
		res->end_ns = replay_now_ns();
		/* the submission proper, without setting up the context: as its completion says */
		if (sub)
			res->start_ns = sub;
		return r;
	}
	case REEL_OP_AIO_COMPLETE:
	case REEL_OP_URING_COMPLETE: {
		uint64_t sub = 0;

		res->start_ns = replay_now_ns();
		r = async__complete(w, it, &res->ret, &sub);
		res->end_ns = replay_now_ns();
		/* as in the trace: start is the request's submission, end its reaping */
		if (sub)
			res->start_ns = sub;
		return r;
	}
	case REEL_OP_MMAP:
		if (op->fd < 0)
			break;
		return exec__mmap(w, it, res);
	case REEL_OP_MSYNC:
		return exec__msync(w, it, res);
	default:
		if (op->type >= REEL_OP__COUNT)
			break;
		fd = exec__fd(w, it,
			      reel_op__is_write(op->type) || op->type == REEL_OP_FTRUNCATE ||
				  op->type == REEL_OP_FALLOCATE);
		if (fd < 0)
			return -(1 + REPLAY_FAIL_UNKNOWN_FD);
		if (reel_op__is_read(op->type) || reel_op__is_write(op->type)) {
			if (w->eng_on && op->type != REEL_OP_PREADV2 &&
			    op->type != REEL_OP_PWRITEV2)
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
			ret = TIMED(res, fsync(fd));
			break;
		case REEL_OP_FDATASYNC:
			ret = TIMED(res, fdatasync(fd));
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
			ret = TIMED(res, fcntl(fd, F_DUPFD_CLOEXEC, 0));
			if (op->ret >= 0 && ret >= 0)
				fd__set(w, (int32_t)op->ret, (int)ret);
			else if (ret >= 0)
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
		   it->p1 || op->type == REEL_OP_MMAP ? "op not supported by replay"
						      : "path op without a path");
	return -(1 + REPLAY_FAIL_UNSUPPORTED);
}
