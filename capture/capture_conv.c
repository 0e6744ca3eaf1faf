/* SPDX-License-Identifier: MIT */
/*
 * capture_conv.c - one kernel event in, zero or more reel ops out. The kernel reports
 * syscalls as the application issued them (raw arguments, relative paths, fds); this file
 * makes them replayable: absolute paths, a file position for every data op, one record per
 * asynchronous request, non-file I/O counted and left out.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "capture_inflight.h"
#include "capture_int.h"
#include "reel_cvt_util.h"

#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif
#define CLOSE_RANGE_UNSHARE_FLAG 2
#define CLOSE_RANGE_CLOEXEC_FLAG 4
#define MFD_CLOEXEC_FLAG 1
#define RENAME_EXCHANGE_FLAG 2
#define CLONE_FILES_FLAG 0x400 /* a fork op's flags (FORMAT.md): the child shares the fd table */

struct conv_ctx {
	struct capture_conv *c;
	struct capture_proc *p;
	const struct ioreel_sys_event *ev;
	const char *path0, *path1;
	unsigned kind; /* enum reel_fd_kind of the fd argument */
	bool too_long; /* a path argument was left out for being too long (arg_path) */
	bool via_anon; /* a path argument reached a memfd's fd through /proc (proc_link_path) */
};

int capture_conv__init(struct capture_conv *c, struct reel_writer *w, uint64_t start_ns,
		       const struct capture_anon *anon)
{
	memset(c, 0, sizeof(*c));
	c->w = w;
	c->start_ns = start_ns;
	c->anon = anon;
	capture_procs__init(&c->procs);
	c->aio = capture_inflight__new();
	c->uring = capture_inflight__new();
	c->rings = capture_inflight__new();
	if (!c->aio || !c->uring || !c->rings) {
		capture_conv__free(c);
		return -ENOMEM;
	}
	return 0;
}

void capture_conv__free(struct capture_conv *c)
{
	capture_procs__free(&c->procs);
	capture_inflight__free(c->aio);
	capture_inflight__free(c->uring);
	capture_inflight__free(c->rings);
	c->aio = c->uring = c->rings = NULL;
}

/* S_IFMT >> 12 as the BPF side reads it from the inode. */
static unsigned kind_from_raw(unsigned raw, bool found)
{
	switch (raw) {
	case 8:
		return REEL_FD_REG;
	case 10:
		/*
		 * a symlink itself, opened O_PATH | O_NOFOLLOW (borg extract fstats and closes
		 * each one it made so): a name of the tree like a file's, as strace's import has
		 * it; the format has no kind of its own for it
		 */
		return REEL_FD_REG;
	case 4:
		return REEL_FD_DIR;
	case 6:
		return REEL_FD_BLK;
	case 2:
		return REEL_FD_CHR;
	case 1:
		return REEL_FD_FIFO;
	case 12:
		return REEL_FD_SOCK;
	case 0:
		/* anon inodes (eventfd, epoll, io_uring) carry no file type */
		return found ? REEL_FD_OTHER : REEL_FD_UNKNOWN;
	default:
		return REEL_FD_OTHER;
	}
}

static bool is_file(unsigned kind)
{
	return kind == REEL_FD_REG || kind == REEL_FD_DIR || kind == REEL_FD_BLK;
}

/*
 * The kind of fd's file for an op that entered at enter_ns, the probe having read kind
 * there (REEL_FD_UNKNOWN: not read): the fd table's when the probe could not tell, and
 * REEL_FD_OTHER for a memfd, whose inode is a regular file's (CAPTURE_FD_ANON) but which
 * is no file of a file system, unless the op entered before the memfd was bound there.
 */
static unsigned fd_kind_at(struct capture_proc *p, int fd, uint64_t enter_ns, unsigned kind)
{
	struct capture_fd *f = capture_proc__fd(p, fd);

	if (!f)
		return kind;
	if ((f->marks & CAPTURE_FD_ANON) && enter_ns >= f->bound_ns)
		return REEL_FD_OTHER;
	return kind == REEL_FD_UNKNOWN ? f->kind : kind;
}

/*
 * Whether an fd op is storage work: known to be a file, or unknown (a bad fd: the failed
 * op is part of what the application did). Pipes, sockets, devices, eventfds, memfds are not.
 */
static bool keep_fd_op(struct conv_ctx *x, int fd)
{
	x->kind = fd_kind_at(x->p, fd, x->ev->start_ns, x->kind);
	return x->kind == REEL_FD_UNKNOWN || is_file(x->kind);
}

static uint64_t rel_time(const struct capture_conv *c, uint64_t t)
{
	return t > c->start_ns ? t - c->start_ns : 0;
}

static uint32_t path_id(struct capture_conv *c, const char *path)
{
	char anon[PATH_MAX];
	uint32_t id = 0;
	int err;

	if (!path || !*path)
		return 0;
	if (c->anon) {
		capture_anon__path(c->anon, path, anon, sizeof(anon));
		path = anon;
	}
	err = reel_writer__path(c->w, path, &id);
	if (err && !c->err)
		c->err = err;
	return err ? 0 : id;
}

/*
 * A symlink's content goes in as the application gave it. Anonymised, it is hashed like any
 * path, component by component with the same key: that is the safe choice (a link's content
 * names files as much as a path does), and a relative or absolute content that named a
 * file of the trace still names that file's anonymised path ("." and ".." are kept).
 */
static uint32_t symlink_content(struct capture_conv *c, const char *content)
{
	return path_id(c, content);
}

/*
 * What a successful readlink(at) read (FORMAT.md: its path2), sent by the BPF side as path 1:
 * kept and anonymised as a symlink's content is, for it is one. Not all of it (a content
 * longer than the event could carry): nothing, rather than a content that never was.
 */
static uint32_t readlink_content(struct conv_ctx *x)
{
	if (x->ev->ret <= 0 || !x->path1 || (int64_t)strlen(x->path1) != x->ev->ret)
		return 0;
	return symlink_content(x->c, x->path1);
}

static int emit(struct capture_conv *c, const struct reel_op *op)
{
	const struct capture_proc *p = capture_procs__get(&c->procs, op->pid, false);
	int err;

	/*
	 * No op of a process after its exit op (FORMAT.md, "Processes"). Its threads' syscalls
	 * all reach the ring before its last thread's exit event does, but an io_uring request
	 * still in flight completes when the kernel tears the ring down, after that: left out,
	 * counted (capture.after_exit). A pid used again is live again at its fork.
	 */
	if (p && !p->live) {
		c->after_exit++;
		return 0;
	}
	err = reel_writer__add(c->w, op);

	/* counted as "ioreel info" counts them: a completion's bytes, by its request's kind */
	if (op->ret > 0 && (op->type == REEL_OP_AIO_COMPLETE || op->type == REEL_OP_URING_COMPLETE)) {
		int dir = cvt_op_dir(op, 0);

		if (dir == 'r')
			c->async_read += (uint64_t)op->ret;
		else if (dir == 'w')
			c->async_written += (uint64_t)op->ret;
	}
	if (reel_op__maps_shared_writable(op)) {
		c->shared_wmaps++;
		c->wmap_bytes += op->len;
	}

	if (err && !c->err)
		c->err = err;
	return err;
}

/*
 * Whether the syscall follows a symlink in its path's last component: the magic link
 * "/proc/self/fd/N" then stands for fd N's file. Where it does not (readlink, lstat, lchown,
 * AT_SYMLINK_NOFOLLOW, O_NOFOLLOW, unlink, rename, link...) the op is on the /proc entry.
 */
static bool follows_last(const struct conv_ctx *x)
{
	const __u64 *a = x->ev->args;

	switch (x->ev->hdr.nr) {
	case __NR_open:
		return !(a[1] & O_NOFOLLOW);
	case __NR_openat:
		return !(a[2] & O_NOFOLLOW);
	case __NR_openat2:
		return !(x->ev->pos & O_NOFOLLOW); /* open_how.flags, copied there */
	case __NR_creat:
	case __NR_stat:
	case __NR_access:
	case __NR_faccessat:
	case __NR_truncate:
	case __NR_chmod:
	case __NR_fchmodat:
	case __NR_chown:
		return true;
	case __NR_newfstatat:
	case __NR_faccessat2:
	case __NR_fchmodat2:
	case __NR_utimensat:
		return !(a[3] & AT_SYMLINK_NOFOLLOW);
	case __NR_statx:
		return !(a[2] & AT_SYMLINK_NOFOLLOW);
	case __NR_fchownat:
		return !(a[4] & AT_SYMLINK_NOFOLLOW);
	case __NR_linkat:
		return a[4] & AT_SYMLINK_FOLLOW;
	default:
		return false;
	}
}

/* The path of the file a link of cvt_proc_link stands for, as the capture knows it, or NULL. */
static const char *link_base(struct conv_ctx *x, enum cvt_link link, int fd)
{
	const struct capture_proc *p = x->p;
	const char *base;
	struct capture_fd *f;

	switch (link) {
	case CVT_LINK_FD:
		base = capture_proc__fd_path_at(x->p, fd, x->ev->start_ns);
		/* a memfd's own name (systemd opens one again read-only so): no storage either */
		f = base ? NULL : capture_proc__fd(x->p, fd);
		if (f && (f->kind == REEL_FD_OTHER || (f->marks & CAPTURE_FD_ANON)))
			x->via_anon = true;
		return base;
	case CVT_LINK_CWD:
		return p->cwd;
	case CVT_LINK_ROOT:
		return p->root ? p->root : "/";
	case CVT_LINK_EXE:
		/* a program run from a memfd: its binary is no storage either */
		if (p->exe_anon)
			x->via_anon = true;
		return p->exe;
	default:
		return NULL;
	}
}

/* past the "/.." that begin rest (a normalised rest has them only there), *up of them */
static const char *past_climb(const char *rest, unsigned *up)
{
	*up = 0;
	while (!strncmp(rest, "/..", 3) && (rest[3] == '/' || !rest[3])) {
		rest += 3;
		(*up)++;
	}
	return rest;
}

/*
 * A name that reaches another file than it says (cvt_proc_link): "/proc/self/fd/N[/rest]"
 * (tar x chmods each directory through that of an O_PATH fd), "/dev/fd/N", "/dev/stdout"
 * (`tar cf /dev/stdout > out.tar`), "/proc/self/cwd/x", "/proc/self/root/x",
 * "/proc/self/exe". The trace names that file, the fd's, or the cwd's, root's or program's
 * + rest, as the capture knows them: a replay can reach it, where the /proc or /dev name is
 * no storage and its I/O was left out. Unknown (the fd's path is not, or not a file's: a
 * pipe's), the name is kept: false then. A component before the last is always followed;
 * the last one when follow says so.
 *
 * A ".." right after the link climbs from the directory the link stands for, as the kernel
 * walks it: the cwd reached through a symlink (/a/link -> /b/c) has /b as its parent, not
 * the /a its name says, and a chrooted process's root is its own parent. At the root, it
 * stays there; from a cwd or an fd's directory, the kernel is asked where it leads
 * (capture_procfs__dir_up). When it cannot say (that directory is gone), the application's
 * own /proc name is kept, counted (capture.links_unresolved): a replay leaves the op out
 * and says so, rather than act on a name that may not be the file.
 */
static bool proc_link_path(struct conv_ctx *x, char *buf, size_t size, bool follow)
{
	const struct capture_proc *p = x->p;
	size_t rl = p->root ? strlen(p->root) : 0;
	const char *in = buf, *base, *rest;
	char tmp[PATH_MAX], real[PATH_MAX];
	enum cvt_link link;
	unsigned up;
	int fd, n;

	/* chrooted, the application's "/proc/self/..." was resolved beneath its root */
	if (rl && !strncmp(buf, p->root, rl) && buf[rl] == '/')
		in = buf + rl;
	link = cvt_proc_link(in, p->pid, &fd, &rest);
	if (!link || (!*rest && !follow))
		return true;
	base = link_base(x, link, fd);
	rest = past_climb(rest, &up);
	if (base && *base == '/' && up && link != CVT_LINK_ROOT)
		base = capture_procfs__dir_up(p->root, base, up, real, sizeof(real)) ? NULL : real;
	if (!base || *base != '/') {
		/* where a ".." led from a directory not known: the application's name, said */
		if (up) {
			memmove(buf, in, strlen(in) + 1);
			x->c->links_unresolved++;
		}
		return false;
	}
	n = snprintf(tmp, sizeof(tmp), "%s%s", base, rest);
	if (n < 0 || (size_t)n >= sizeof(tmp) || (size_t)n >= size)
		return false;
	cvt_normalise_path(tmp);
	memcpy(buf, tmp, strlen(tmp) + 1);
	return true;
}

/*
 * linkat(AT_FDCWD, "/proc/self/fd/N", AT_FDCWD, name, AT_SYMLINK_FOLLOW), open(2)'s way to
 * give an O_TMPFILE file a name, links fd N's file, as AT_EMPTY_PATH from fd N would: the fd
 * it names, or -1. The replay can link from its own fd N, never through the /proc path.
 */
static int flink_fd(struct conv_ctx *x, char *buf, size_t size)
{
	const char *end;
	int n;

	if (!(x->ev->args[4] & AT_SYMLINK_FOLLOW) || !x->path0 ||
	    capture_proc__resolve(x->p, (int)x->ev->args[0], x->path0, buf, size))
		return -1;
	/* "/dev/fd/N" too: a link to "/proc/self/fd/N" */
	return cvt_proc_link(buf, x->p->pid, &n, &end) == CVT_LINK_FD && !*end ? n : -1;
}

/*
 * Path of a path argument, absolute when it can be made so, else as the app wrote it. None
 * (0, buf "") when it is longer than PATH_MAX once joined with its directory's path (or that
 * path was): counted (capture.paths_too_long). Its tail, as the app wrote it, named a file
 * elsewhere, and the replay worked there without a word.
 */
static uint32_t arg_path(struct conv_ctx *x, int dirfd, const char *rel, char *buf, size_t size)
{
	int err;

	buf[0] = '\0';
	if (!rel)
		return 0;
	err = capture_proc__resolve(x->p, dirfd, rel, buf, size);
	if (err == -ENAMETOOLONG) {
		buf[0] = '\0';
		x->too_long = true;
		x->c->paths_too_long++;
		return 0;
	}
	/* as written: it fits, the BPF side copies at most PATH_MAX bytes of it */
	if (err && snprintf(buf, size, "%s", rel) >= (int)size)
		buf[size - 1] = 0;
	proc_link_path(x, buf, size, follows_last(x));
	return path_id(x->c, buf);
}

/* the path of the file an op on fd acted on; kind: the file's, as the probe read it */
static uint32_t fd_path_kind(struct conv_ctx *x, int fd, unsigned kind)
{
	/*
	 * EBADF: the fd was not open when the op ran (or not for that access: then the capture
	 * knows it). /proc, asked now, names whatever took the number since: fd_torture's reads
	 * on fds close_range had closed were named after files opened later on those numbers,
	 * whenever the capture ran behind the application.
	 */
	if (x->ev->ret == -EBADF)
		return path_id(x->c, capture_proc__fd_path_seen(x->p, fd, x->ev->start_ns));
	/* before the snapshot found the fd's file, on another: not known */
	if (capture_proc__seen_other(x->p, fd, x->ev->start_ns, kind))
		return path_id(x->c, NULL);
	return path_id(x->c, capture_proc__fd_path_at(x->p, fd, x->ev->start_ns));
}

static uint32_t fd_path(struct conv_ctx *x, int fd)
{
	return fd_path_kind(x, fd, x->kind);
}

static uint64_t iov_total(const struct ioreel_sys_event *ev)
{
	uint64_t sum = 0, len;

	for (unsigned i = 0; i < ev->items && (i + 1) * 16u <= ev->len0; i++) {
		memcpy(&len, ev->data + i * 16 + 8, sizeof(len));
		sum += len;
	}
	return sum;
}

/*
 * The file position a read/write-family op used. An appending write's is i_size, whatever
 * its offset or f_pos say: through an O_APPEND fd (pwrite too, on Linux), or pwritev2's
 * RWF_APPEND; the BPF side puts where it landed in isize (pos_landed). A pwritev2 with
 * RWF_APPEND was recorded at its offset argument, where it did not write.
 */
static uint64_t data_offset(const struct conv_ctx *x, unsigned type, bool *flagged)
{
	const struct ioreel_sys_event *ev = x->ev;
	const struct capture_sysdef *def = capture_sys__find(ev->hdr.nr);
	bool appends = def && (def->flags & IOREEL_SYS_PWRITE)
			   ? ioreel_pwrite_appends(def->flags, ev->f_flags, ev->args[5])
			   : reel_op__is_write(type) && (ev->f_flags & O_APPEND);
	uint64_t off;

	if (type == REEL_OP_PREADV2 || type == REEL_OP_PWRITEV2)
		*flagged = true;
	if (appends)
		return ev->isize;
	switch (type) {
	case REEL_OP_PREAD64:
	case REEL_OP_PWRITE64:
	case REEL_OP_PREADV:
	case REEL_OP_PWRITEV:
		return ev->args[3];
	case REEL_OP_PREADV2:
	case REEL_OP_PWRITEV2:
		off = ev->args[3];
		if (off != (uint64_t)-1)
			return off;
		break;
	default:
		break;
	}
	return ev->pos;
}

static int conv_data(struct conv_ctx *x, struct reel_op *op)
{
	const struct ioreel_sys_event *ev = x->ev;
	bool flagged = false;

	op->fd = (int)ev->args[0];
	switch (op->type) {
	case REEL_OP_READV:
	case REEL_OP_WRITEV:
	case REEL_OP_PREADV:
	case REEL_OP_PWRITEV:
	case REEL_OP_PREADV2:
	case REEL_OP_PWRITEV2:
		op->len = ev->items ? iov_total(ev) : (ev->ret > 0 ? (uint64_t)ev->ret : 0);
		break;
	default:
		op->len = ev->args[2];
	}
	op->offset = data_offset(x, op->type, &flagged);
	if (flagged)
		op->flags = ev->args[5];
	op->path = fd_path(x, op->fd);
	return emit(x->c, op);
}

/*
 * The stat family, when it succeeded: what it found (S_IFMT >> 12 of the mode it returned)
 * into subop, its size + 1 into aux (FORMAT.md; 0: unknown, as in older traces). The
 * recorder reads them from the caller's buffer (IOREEL_SYS_STAT1, STAT2, STATX4).
 */
static void stat_result(const struct ioreel_sys_event *ev, struct reel_op *op)
{
	if (ev->ret != 0 || !ev->ret_kind)
		return;
	op->subop = ev->ret_kind;
	op->aux = ev->ret_size + 1;
}

static void track_open(struct conv_ctx *x, struct reel_op *op, const char *abs, uint32_t flags)
{
	const struct ioreel_sys_event *ev = x->ev;
	unsigned kind;

	if (ev->ret < 0) {
		emit(x->c, op); /* a failed open is a lookup the replay must repeat */
		return;
	}
	kind = kind_from_raw(ev->ret_kind, true);
	if (x->via_anon && kind == REEL_FD_REG)
		kind = REEL_FD_OTHER; /* a memfd opened again: as track_anon's */
	capture_proc__set_fd(x->p, (int)ev->ret, abs[0] ? abs : NULL, kind, flags & O_CLOEXEC);
	capture_proc__set_bound(x->p, (int)ev->ret, ev->end_ns);
	if (kind == REEL_FD_OTHER && x->via_anon)
		capture_proc__mark(x->p, (int)ev->ret, CAPTURE_FD_ANON);
	/* nor are the paths of the files opened relative to it */
	if (x->too_long)
		capture_proc__mark(x->p, (int)ev->ret, CAPTURE_FD_LONG);
	op->fd_kind = kind;
	/*
	 * The size the file had when opened, + 1 (0: unknown, as old traces and imports say):
	 * a file there before the capture and written in place must be prepared that long.
	 */
	if (kind == REEL_FD_REG)
		op->aux = ev->ret_size + 1;
	if (!is_file(kind)) {
		x->c->nonfile_ops++;
		return;
	}
	emit(x->c, op);
}

static void track_dup(struct conv_ctx *x, int oldfd, bool cloexec)
{
	const struct ioreel_sys_event *ev = x->ev;
	struct capture_fd *f;
	const char *path;
	unsigned marks;

	if (ev->ret < 0)
		return;
	path = capture_proc__fd_path_at(x->p, oldfd, ev->start_ns);
	f = capture_proc__fd(x->p, oldfd);
	marks = f ? f->marks : 0;
	capture_proc__set_fd(x->p, (int)ev->ret, path, f ? f->kind : x->kind, cloexec);
	/* set_fd may have moved the table: f is stale past this point */
	capture_proc__set_bound(x->p, (int)ev->ret, ev->end_ns);
	capture_proc__mark(x->p, (int)ev->ret, marks);
}

/*
 * memfd_create, memfd_secret: a file in memory, of no file system. Its inode is a regular
 * file's, so without this its reads and writes were recorded as file I/O, named after
 * whatever file the number had held before (a replay wrote them into that file).
 */
static void track_anon(struct conv_ctx *x, bool cloexec)
{
	const struct ioreel_sys_event *ev = x->ev;

	if (ev->ret < 0)
		return;
	capture_proc__set_fd(x->p, (int)ev->ret, NULL, REEL_FD_OTHER, cloexec);
	capture_proc__set_bound(x->p, (int)ev->ret, ev->end_ns);
	capture_proc__mark(x->p, (int)ev->ret, CAPTURE_FD_ANON);
}

/*
 * A close of fd (close, or each fd close_range closed), op its record: written when fd is
 * a file or not known not to be one, counted as a non-file op otherwise; and fd gone from
 * the table, unless the number was bound again after the close entered.
 */
static void conv_close(struct conv_ctx *x, struct reel_op *op, int fd)
{
	op->fd = fd;
	if (!keep_fd_op(x, fd)) {
		x->c->nonfile_ops++;
	} else {
		op->fd_kind = x->kind;
		op->path = fd_path(x, fd);
		emit(x->c, op);
	}
	if (x->ev->ret == 0 && !capture_proc__closed_before_bound(x->p, fd, x->ev->start_ns))
		capture_proc__close_at(x->p, fd, x->ev->start_ns);
}

/*
 * close_range(first, last, flags) that succeeded: a close record for each fd of the range the
 * table has open, with the call's times (FORMAT.md); CLOSE_RANGE_CLOEXEC closes nothing but
 * marks them close-on-exec (the exec drops them); CLOSE_RANGE_UNSHARE first gives the process
 * its own copy of a table it shared. Before, nothing was recorded: the replay kept the files
 * open, and the next file on one of those numbers (a memfd) was taken for the old one.
 */
static void conv_close_range(struct conv_ctx *x, const struct reel_op *tmpl)
{
	const __u64 *a = x->ev->args;
	struct capture_fd *f;

	if (x->ev->ret != 0)
		return;
	if ((a[2] & CLOSE_RANGE_UNSHARE_FLAG) && capture_proc__unshare_fds(x->p) && !x->c->err)
		x->c->err = -ENOMEM;
	for (uint64_t fd = a[0]; fd <= a[1] && fd < (uint64_t)x->p->ft->nfds; fd++) {
		struct reel_op op = *tmpl;

		if (!(f = capture_proc__fd(x->p, (int)fd)))
			continue;
		if (a[2] & CLOSE_RANGE_CLOEXEC_FLAG) {
			f->cloexec = true;
			continue;
		}
		op.type = REEL_OP_CLOSE;
		op.subop = 1; /* one of a close_range's closes (FORMAT.md) */
		x->kind = REEL_FD_UNKNOWN; /* the probe read no fd: the table's */
		conv_close(x, &op, (int)fd);
	}
}

/*
 * A chdir (rel against the cwd) or fchdir (dirfd, rel ".") that succeeded: the cwd is that
 * directory's path, into buf, or not known when it is not (cwd_long when longer than
 * PATH_MAX). The cwd it left is no base for relative paths any more: kept, it named files in
 * the wrong directory.
 */
static void track_chdir(struct conv_ctx *x, int dirfd, const char *rel, char *buf, size_t size)
{
	int err = rel ? capture_proc__resolve(x->p, dirfd, rel, buf, size) : -ENOENT;

	/* `cd /proc/self/cwd/sub`, `cd /dev/fd/3`; a cwd of a /proc name would name another
	 * directory once the link moved: not known */
	if (!err && !proc_link_path(x, buf, size, true))
		err = -ENOENT;
	if (err || capture_proc__set_cwd(x->p, buf))
		capture_proc__forget_cwd(x->p, err == -ENAMETOOLONG);
}

/*
 * The fds (and cwds) that named a renamed file or directory, or something beneath it, name its
 * new place: FORMAT.md's "path of the file the fd referred to" is the kernel's, and a later
 * openat against a renamed directory's fd, or a relative open after fchdir to it, is made
 * there. Lexical: a rename through a symlink or of another hard link is not seen.
 */
static void track_rename(struct conv_ctx *x, const char *from, const char *to, bool exchange)
{
	int err;

	if (x->ev->ret != 0 || !x->path0 || !x->path1)
		return;
	err = capture_procs__rename(&x->c->procs, from, to, exchange);
	if (err && !x->c->err)
		x->c->err = err;
}

static void conv_aio_submit(struct conv_ctx *x, struct reel_op *tmpl)
{
	const struct ioreel_sys_event *ev = x->ev;
	unsigned n = ev->items;

	x->c->lost_items += ev->lost_items;
	if (n * 72u > ev->len0)
		return;
	for (unsigned i = 0; i < n; i++) {
		const unsigned char *cb = (const unsigned char *)ev->data + i * 64;
		struct reel_op op = *tmpl;
		uint64_t buf_nbytes, off, obj;
		uint32_t fd, rw_flags;
		uint16_t opcode;
		struct capture_fd *f;

		memcpy(&rw_flags, cb + 12, 4);
		memcpy(&opcode, cb + 16, 2);
		memcpy(&fd, cb + 20, 4);
		memcpy(&buf_nbytes, cb + 32, 8);
		memcpy(&off, cb + 40, 8);
		memcpy(&obj, ev->data + n * 64 + i * 8, 8);
		op.subop = opcode;
		/* aio_rw_flags (RWF_DSYNC...) of a read or write: a replay without them writes
		 * an O_DSYNC-like request buffered, 20x faster, and says nothing */
		if (opcode <= IOCB_CMD_PWRITE || opcode == IOCB_CMD_PREADV ||
		    opcode == IOCB_CMD_PWRITEV)
			op.flags = rw_flags;
		op.fd = (int32_t)fd;
		op.offset = off;
		/* vectored commands: the BPF side put the iovecs' byte count in aio_nbytes */
		op.len = buf_nbytes;
		/* the request's id is its iocb's address, unique among those in flight in the
		 * process; aio_data is the application's to set, and may be the same for all
		 * (fio leaves it 0): replay and report pair a completion with its submission
		 * by (pid, ctx, aux), and serialize the requests of one id */
		op.aux = obj;
		op.ctx = ev->args[0];
		op.end_ns = op.start_ns;
		f = capture_proc__fd(x->p, op.fd);
		op.fd_kind = f ? f->kind : REEL_FD_UNKNOWN;
		op.path = fd_path(x, op.fd);
		capture_inflight__put(x->c->aio, obj, op.pid, &op);
		emit(x->c, &op);
	}
}

static void conv_aio_events(struct conv_ctx *x, struct reel_op *tmpl)
{
	const struct ioreel_sys_event *ev = x->ev;

	x->c->lost_items += ev->lost_items;
	for (unsigned i = 0; i < ev->items && (i + 1) * 32u <= ev->len0; i++) {
		const unsigned char *e = (const unsigned char *)ev->data + i * 32;
		struct reel_op op = *tmpl, sub;
		uint64_t obj;
		int64_t res;

		memcpy(&obj, e + 8, 8);
		memcpy(&res, e + 16, 8);
		if (capture_inflight__take(x->c->aio, obj, op.pid, &sub) == 0) {
			op.subop = sub.subop;
			op.fd = sub.fd;
			op.fd_kind = sub.fd_kind;
			op.path = sub.path;
			op.offset = sub.offset;
			op.len = sub.len;
			op.flags = sub.flags;
			op.ctx = sub.ctx;
			op.start_ns = sub.start_ns;
		} else {
			x->c->unpaired++;
			op.ctx = ev->args[0];
		}
		op.aux = obj; /* the request's id, as its submission's (conv_aio_submit) */
		op.ret = res;
		emit(x->c, &op);
	}
}

/*
 * An *at op (FORMAT.md: dirfd in fd) that may act on dirfd's own file instead of a path
 * (AT_EMPTY_PATH with "", or utimensat's NULL path: futimens): then it is an op on an fd,
 * named by the fd's file, and left out when that is no file.
 */
static void conv_at(struct conv_ctx *x, struct reel_op *op, int dirfd, bool on_fd, char *buf,
		    size_t size)
{
	op->fd = dirfd;
	/*
	 * The kernel ignores AT_EMPTY_PATH with a path that is not empty; in a trace the flag
	 * says that the op acted on fd itself (FORMAT.md), so a path lookup must not carry it.
	 */
	if (!on_fd && x->path0 && *x->path0)
		op->flags &= ~AT_EMPTY_PATH;
	if (on_fd) {
		if (!keep_fd_op(x, dirfd)) {
			x->c->nonfile_ops++;
			return;
		}
		op->fd_kind = x->kind;
		op->path = fd_path(x, dirfd);
	} else {
		op->path = arg_path(x, dirfd, x->path0, buf, size);
	}
	emit(x->c, op);
}

static bool empty_path(const struct conv_ctx *x, uint64_t flags)
{
	return (flags & AT_EMPTY_PATH) && (!x->path0 || !*x->path0);
}

/*
 * copy_file_range, sendfile: the kernel moves data from fd to fd2 (FORMAT.md, "Copies"). The
 * BPF side describes the source as any fd argument, with pos where it was read, and the
 * destination in struct ioreel_copy_data.
 */
static void conv_copy(struct conv_ctx *x, struct reel_op *op)
{
	const struct ioreel_sys_event *ev = x->ev;
	bool sendfile = ev->hdr.nr == __NR_sendfile;
	struct ioreel_copy_data cd = {0};
	unsigned out_kind;
	bool src_file;

	if (ev->len0 >= sizeof(cd))
		memcpy(&cd, ev->data, sizeof(cd));
	op->fd = (int)ev->args[sendfile ? 1 : 0];
	op->fd2 = (int)ev->args[sendfile ? 0 : 2];
	out_kind = fd_kind_at(x->p, op->fd2, ev->start_ns, kind_from_raw(cd.out_kind, cd.out_open));
	/* storage work when either end is a file: a socket spliced into a file is a write */
	src_file = keep_fd_op(x, op->fd);
	if (!src_file && !is_file(out_kind)) {
		x->c->nonfile_ops++;
		return;
	}
	op->fd_kind = x->kind;
	op->offset = ev->pos;
	op->len = ev->args[sendfile ? 3 : 4];
	if (sendfile) {
		/* a socket or a pipe has no position to write at */
		op->mode = out_kind;
		op->aux = out_kind == REEL_FD_REG ? cd.pos_out : 0;
	} else {
		op->flags = ev->args[5];
		op->aux = cd.pos_out;
	}
	if (src_file)
		op->path = fd_path(x, op->fd);
	if (is_file(out_kind))
		op->path2 = fd_path_kind(x, op->fd2, out_kind);
	emit(x->c, op);
}

/*
 * An fcntl lock command: the request the BPF side read (IOREEL_SYS_LOCK2), its range made
 * absolute with the fd's position and size at entry, so that a replay locks the same bytes
 * whatever its own fd's position (FORMAT.md, "Locks").
 */
static void conv_fcntl_lock(struct conv_ctx *x, struct reel_op *op)
{
	const struct ioreel_sys_event *ev = x->ev;
	uint64_t req = ev->args[5];
	int64_t start = (int64_t)ev->args[3], len = (int64_t)ev->args[4];
	unsigned whence = (req >> 16) & 0xffff;

	op->type = REEL_OP_FCNTL_LOCK;
	op->fd = (int)ev->args[0];
	op->flags = (uint32_t)ev->args[1];
	/* unread (or a get command's, which cannot ask F_UNLCK): F_UNLCK says unknown */
	op->mode = req & IOREEL_LOCK_SEEN ? (req & 0xffff) : F_UNLCK;
	if (ioreel_is_getlk_cmd(ev->args[1]) && ev->ret_size)
		op->aux = ev->ret_size;
	if (!(req & IOREEL_LOCK_SEEN)) {
		emit(x->c, op);
		return;
	}
	if ((whence == SEEK_CUR || whence == SEEK_END) && ev->has_pos) {
		start += (int64_t)(whence == SEEK_CUR ? ev->pos : ev->isize);
		whence = SEEK_SET;
	}
	if (len < 0 && whence == SEEK_SET) {
		start += len;
		len = -len;
	}
	op->offset = (uint64_t)start;
	op->len = (uint64_t)len;
	op->subop = whence;
	emit(x->c, op);
}

/* fd-based ops on pipes, sockets, eventfds: counted, not replayed */
#define NEED_FILE()                                                                             \
	do {                                                                                   \
		if (!keep_fd_op(x, (int)a[ev->hdr.nr == __NR_mmap ? 4 : 0])) {                 \
			c->nonfile_ops++;                                                      \
			return 0;                                                              \
		}                                                                              \
		op.fd_kind = x->kind;                                                          \
	} while (0)

static int conv_sys(struct capture_conv *c, const struct ioreel_sys_event *ev, size_t size)
{
	const struct capture_sysdef *def = capture_sys__find(ev->hdr.nr);
	const __u64 *a = ev->args;
	char abs0[PATH_MAX], abs1[PATH_MAX];
	struct conv_ctx ctx = { c }, *x = &ctx;
	struct reel_op op = { 0 };
	size_t dlen = size - offsetof(struct ioreel_sys_event, data);
	int64_t ret = ev->ret;
	struct capture_fd *f;

	if (!def || ev->len0 + ev->len1 > dlen)
		return 0;
	x->ev = ev;
	x->p = capture_procs__get(&c->procs, ev->hdr.pid, true);
	if (!x->p)
		return -ENOMEM;
	if (ev->len0 &&
	    !(def->flags & (IOREEL_SYS_IOV1 | IOREEL_SYS_AIO_SUBMIT | IOREEL_SYS_AIO_EVENTS |
			    IOREEL_SYS_OUT0 | IOREEL_SYS_OUT2)) &&
	    ev->data[ev->len0 - 1] == '\0')
		x->path0 = ev->data;
	if (ev->len1 && ev->data[ev->len0 + ev->len1 - 1] == '\0')
		x->path1 = ev->data + ev->len0;
	x->kind = kind_from_raw(ev->hdr.fd_kind, ev->has_pos);

	op.type = def->op;
	op.pid = ev->hdr.pid;
	op.tid = ev->hdr.tid;
	op.fd = -1;
	op.fd2 = -1;
	op.ret = ret;
	op.start_ns = rel_time(c, ev->start_ns);
	op.end_ns = rel_time(c, ev->end_ns);

	switch (ev->hdr.nr) {
	case __NR_open:
		op.flags = a[1];
		op.mode = a[2];
		op.path = arg_path(x, AT_FDCWD, x->path0, abs0, sizeof(abs0));
		track_open(x, &op, abs0, op.flags);
		break;
	case __NR_creat:
		op.flags = O_CREAT | O_WRONLY | O_TRUNC;
		op.mode = a[1];
		op.path = arg_path(x, AT_FDCWD, x->path0, abs0, sizeof(abs0));
		track_open(x, &op, abs0, op.flags);
		break;
	case __NR_openat:
	case __NR_openat2:
		/* openat2: the BPF side copied struct open_how's flags and mode into pos, isize */
		op.flags = ev->hdr.nr == __NR_openat ? a[2] : ev->pos;
		op.mode = ev->hdr.nr == __NR_openat ? a[3] : ev->isize;
		op.fd = (int)a[0]; /* the dirfd (FORMAT.md); the path is resolved in full */
		op.path = arg_path(x, (int)a[0], x->path0, abs0, sizeof(abs0));
		track_open(x, &op, abs0, op.flags);
		break;
	case __NR_close:
		conv_close(x, &op, (int)a[0]);
		break;
	case __NR_read:
	case __NR_pread64:
	case __NR_readv:
	case __NR_preadv:
	case __NR_preadv2:
	case __NR_write:
	case __NR_pwrite64:
	case __NR_writev:
	case __NR_pwritev:
	case __NR_pwritev2:
		NEED_FILE();
		conv_data(x, &op);
		break;
	case __NR_lseek:
		NEED_FILE();
		op.fd = (int)a[0];
		op.offset = a[1];
		op.mode = a[2];
		op.path = fd_path(x, op.fd);
		emit(c, &op);
		break;
	case __NR_fsync:
	case __NR_fdatasync:
	case __NR_syncfs:
	case __NR_fstat:
	case __NR_getdents64:
	case __NR_ftruncate:
	case __NR_sync_file_range:
	case __NR_fallocate:
	case __NR_fadvise64:
		NEED_FILE();
		op.fd = (int)a[0];
		op.path = fd_path(x, op.fd);
		if (ev->hdr.nr == __NR_getdents64) {
			op.len = a[2];
		} else if (ev->hdr.nr == __NR_ftruncate) {
			op.len = a[1];
		} else if (ev->hdr.nr == __NR_sync_file_range) {
			op.offset = a[1];
			op.len = a[2];
			op.flags = a[3];
		} else if (ev->hdr.nr == __NR_fallocate) {
			op.mode = a[1];
			op.offset = a[2];
			op.len = a[3];
		} else if (ev->hdr.nr == __NR_fadvise64) {
			op.offset = a[1];
			op.len = a[2];
			op.mode = a[3];
		}
		stat_result(ev, &op); /* fstat */
		emit(c, &op);
		break;
	case __NR_stat:
	case __NR_lstat:
	case __NR_unlink:
	case __NR_rmdir:
		op.path = arg_path(x, AT_FDCWD, x->path0, abs0, sizeof(abs0));
		stat_result(ev, &op);
		emit(c, &op);
		break;
	case __NR_access:
	case __NR_mkdir:
	case __NR_truncate:
		op.path = arg_path(x, AT_FDCWD, x->path0, abs0, sizeof(abs0));
		if (ev->hdr.nr == __NR_truncate)
			op.len = a[1];
		else
			op.mode = a[1];
		emit(c, &op);
		break;
	case __NR_newfstatat:
		op.flags = a[3];
		/* glibc's fstat(fd) is newfstatat(fd, "", buf, AT_EMPTY_PATH) (FORMAT.md) */
		if (empty_path(x, op.flags))
			op.type = REEL_OP_FSTAT;
		stat_result(ev, &op);
		conv_at(x, &op, (int)a[0], empty_path(x, op.flags), abs0, sizeof(abs0));
		break;
	case __NR_statx:
		op.flags = a[2];
		op.mode = a[3];
		stat_result(ev, &op);
		conv_at(x, &op, (int)a[0], empty_path(x, op.flags), abs0, sizeof(abs0));
		break;
	case __NR_faccessat:
	case __NR_faccessat2:
		op.mode = a[2];
		op.flags = ev->hdr.nr == __NR_faccessat2 ? a[3] : 0;
		conv_at(x, &op, (int)a[0], false, abs0, sizeof(abs0));
		break;
	case __NR_unlinkat:
		op.flags = a[2];
		conv_at(x, &op, (int)a[0], false, abs0, sizeof(abs0));
		break;
	case __NR_mkdirat:
		op.mode = a[2];
		conv_at(x, &op, (int)a[0], false, abs0, sizeof(abs0));
		break;
	case __NR_rename:
		op.path = arg_path(x, AT_FDCWD, x->path0, abs0, sizeof(abs0));
		op.path2 = arg_path(x, AT_FDCWD, x->path1, abs1, sizeof(abs1));
		emit(c, &op);
		track_rename(x, abs0, abs1, false);
		break;
	case __NR_renameat:
	case __NR_renameat2:
		op.fd = (int)a[0];
		op.fd2 = (int)a[2];
		op.flags = ev->hdr.nr == __NR_renameat2 ? a[4] : 0;
		op.path = arg_path(x, (int)a[0], x->path0, abs0, sizeof(abs0));
		op.path2 = arg_path(x, (int)a[2], x->path1, abs1, sizeof(abs1));
		emit(c, &op);
		track_rename(x, abs0, abs1, op.flags & RENAME_EXCHANGE_FLAG);
		break;
	case __NR_dup:
	case __NR_dup2:
	case __NR_dup3:
		op.fd = (int)a[0];
		if (ev->hdr.nr != __NR_dup)
			op.fd2 = (int)a[1];
		if (ev->hdr.nr == __NR_dup3)
			op.flags = a[2];
		track_dup(x, op.fd, op.flags & O_CLOEXEC);
		NEED_FILE();
		op.path = fd_path(x, op.fd);
		emit(c, &op);
		break;
	case __NR_fcntl:
		if (a[1] == F_SETFD && ret == 0) {
			f = capture_proc__fd(x->p, (int)a[0]);
			if (f)
				f->cloexec = a[2] & FD_CLOEXEC;
			break;
		}
		if (ioreel_is_lock_cmd(a[1])) {
			NEED_FILE();
			op.path = fd_path(x, (int)a[0]);
			conv_fcntl_lock(x, &op);
			break;
		}
		if (a[1] != F_DUPFD && a[1] != F_DUPFD_CLOEXEC)
			break;
		op.fd = (int)a[0];
		op.fd2 = (int)a[2];
		op.flags = a[1] == F_DUPFD_CLOEXEC ? O_CLOEXEC : 0;
		track_dup(x, op.fd, a[1] == F_DUPFD_CLOEXEC);
		NEED_FILE();
		op.path = fd_path(x, op.fd);
		emit(c, &op);
		break;
	case __NR_flock:
		NEED_FILE();
		op.fd = (int)a[0];
		op.mode = (uint32_t)a[1];
		op.path = fd_path(x, op.fd);
		emit(c, &op);
		break;
	case __NR_mmap:
		if ((int)a[4] < 0)
			break; /* anonymous memory: not I/O */
		NEED_FILE();
		op.fd = (int)a[4];
		op.len = a[1];
		op.mode = a[2];
		op.flags = a[3];
		op.offset = a[5];
		op.aux = ret;
		op.path = fd_path(x, op.fd);
		emit(c, &op);
		if (ret > 0 && capture_proc__mapped(x->p, (uint64_t)ret, op.len, op.path))
			return -ENOMEM;
		break;
	case __NR_sync:
		/* every file system's sync: a syncfs with no fd, of no file (Kyoto Cabinet's
		 * directory database makes its transactions durable so) */
		emit(c, &op);
		break;
	case __NR_munmap:
		/* of anonymous memory (malloc's): not file I/O */
		if (!capture_proc__unmapped(x->p, a[0], a[1], ret == 0, &op.path))
			break;
		op.aux = a[0];
		op.len = a[1];
		emit(c, &op);
		break;
	case __NR_msync:
		op.aux = a[0];
		op.len = a[1];
		op.flags = a[2];
		emit(c, &op);
		break;
	case __NR_io_submit:
		conv_aio_submit(x, &op);
		break;
	case __NR_io_getevents:
	case __NR_io_pgetevents:
		conv_aio_events(x, &op);
		break;
	case __NR_copy_file_range:
	case __NR_sendfile:
		conv_copy(x, &op);
		break;
	case __NR_chmod:
		op.mode = a[1];
		op.path = arg_path(x, AT_FDCWD, x->path0, abs0, sizeof(abs0));
		emit(c, &op);
		break;
	case __NR_chown:
	case __NR_lchown:
		/* uid and gid as asked: (u32)-1 leaves one unchanged */
		op.aux = (uint32_t)a[1];
		op.ctx = (uint32_t)a[2];
		op.path = arg_path(x, AT_FDCWD, x->path0, abs0, sizeof(abs0));
		emit(c, &op);
		break;
	case __NR_fchmod:
	case __NR_fchown:
		NEED_FILE();
		op.fd = (int)a[0];
		op.path = fd_path(x, op.fd);
		if (ev->hdr.nr == __NR_fchmod) {
			op.mode = a[1];
		} else {
			op.aux = (uint32_t)a[1];
			op.ctx = (uint32_t)a[2];
		}
		emit(c, &op);
		break;
	case __NR_fchmodat:
	case __NR_fchmodat2:
		/* fchmodat2 is fchmodat with flags: one op type, its flags kept */
		op.mode = a[2];
		op.flags = ev->hdr.nr == __NR_fchmodat2 ? a[3] : 0;
		conv_at(x, &op, (int)a[0], empty_path(x, op.flags), abs0, sizeof(abs0));
		break;
	case __NR_fchownat:
		op.aux = (uint32_t)a[2];
		op.ctx = (uint32_t)a[3];
		op.flags = a[4];
		conv_at(x, &op, (int)a[0], empty_path(x, op.flags), abs0, sizeof(abs0));
		break;
	case __NR_utimensat:
		/* the times are not recorded: a replay sets the current time, the same update */
		op.flags = a[3];
		/* futimens (a NULL path) is marked as AT_EMPTY_PATH is: an op on the fd itself,
		 * told apart from a path relative to a dirfd (FORMAT.md) */
		if (!a[1])
			op.flags |= AT_EMPTY_PATH;
		conv_at(x, &op, (int)a[0], empty_path(x, op.flags), abs0, sizeof(abs0));
		break;
	case __NR_link:
		op.path = arg_path(x, AT_FDCWD, x->path0, abs0, sizeof(abs0));
		op.path2 = arg_path(x, AT_FDCWD, x->path1, abs1, sizeof(abs1));
		emit(c, &op);
		break;
	case __NR_linkat: {
		int n = flink_fd(x, abs0, sizeof(abs0));

		op.fd2 = (int)a[2];
		op.flags = a[4];
		op.path2 = arg_path(x, (int)a[2], x->path1, abs1, sizeof(abs1));
		if (n >= 0) {
			/* a link from fd n (FORMAT.md); the kind known is the dirfd's, not n's */
			op.flags = (op.flags & ~AT_SYMLINK_FOLLOW) | AT_EMPTY_PATH;
			x->kind = REEL_FD_UNKNOWN;
			conv_at(x, &op, n, true, abs0, sizeof(abs0));
			break;
		}
		conv_at(x, &op, (int)a[0], empty_path(x, op.flags), abs0, sizeof(abs0));
		break;
	}
	case __NR_symlink:
	case __NR_symlinkat:
		/*
		 * path 0 is the content, path 1 the link. The content is kept as given, never
		 * resolved: relative, it is relative to the link's directory when followed, and
		 * it may name nothing at all (FORMAT.md).
		 */
		if (ev->hdr.nr == __NR_symlinkat)
			op.fd = (int)a[1];
		op.path = arg_path(x, op.fd == -1 ? AT_FDCWD : op.fd, x->path1, abs1, sizeof(abs1));
		op.path2 = symlink_content(c, x->path0);
		emit(c, &op);
		break;
	case __NR_readlink:
		op.len = a[2];
		op.path = arg_path(x, AT_FDCWD, x->path0, abs0, sizeof(abs0));
		op.path2 = readlink_content(x);
		emit(c, &op);
		break;
	case __NR_readlinkat:
		op.len = a[3];
		op.path2 = readlink_content(x);
		conv_at(x, &op, (int)a[0], false, abs0, sizeof(abs0));
		break;
	case __NR_chdir:
		if (ret == 0)
			track_chdir(x, AT_FDCWD, x->path0, abs0, sizeof(abs0));
		break;
	case __NR_chroot:
		/* postfix's daemons: their "/etc/localtime" is /var/spool/postfix/etc/localtime */
		if (ret == 0 && x->path0 &&
		    !capture_proc__resolve(x->p, AT_FDCWD, x->path0, abs0, sizeof(abs0)))
			capture_proc__set_root(x->p, abs0);
		break;
	case __NR_fchdir:
		if (ret == 0)
			track_chdir(x, (int)a[0], ".", abs0, sizeof(abs0));
		break;
	case __NR_setxattr:
	case __NR_lsetxattr:
	case __NR_fsetxattr:
	case __NR_removexattr:
	case __NR_lremovexattr:
	case __NR_fremovexattr:
		if (ret == 0)
			c->xattr_ops++;
		break;
	case __NR_close_range:
		conv_close_range(x, &op);
		break;
	case __NR_memfd_create:
		track_anon(x, a[1] & MFD_CLOEXEC_FLAG);
		break;
	case __NR_memfd_secret:
		track_anon(x, a[0] & O_CLOEXEC);
		break;
	default:
		break;
	}
	return c->err;
}

/*
 * The trace names a ring by its fd, as the application knows it. The kernel event names it
 * by its io_ring_ctx address; submissions made inside io_uring_enter(fd) teach us the fd,
 * and SQPOLL submissions (no syscall) reuse what was learnt, else keep the address.
 */
static uint64_t ring_fd(struct capture_conv *c, const struct ioreel_uring_event *ev)
{
	struct reel_op r = { 0 };

	if (ev->ring_fd >= 0) {
		r.fd = ev->ring_fd;
		r.pid = ev->hdr.pid;
		capture_inflight__put(c->rings, ev->ctx, 0, &r);
		return ev->ring_fd;
	}
	if (capture_inflight__get(c->rings, ev->ctx, 0, &r) == 0 && r.pid == ev->hdr.pid)
		return r.fd;
	return ev->ctx;
}

/*
 * What the capture makes of each IORING_OP_* (the kernel's numbers: its ABI). Opcodes not
 * listed, newer ones among them, are taken as requests on their fd's file.
 */
enum uring_use {
	URING_ON_FD = 0, /* on its fd's file (sqe->fd): a request record when that is a file */
	URING_NO_FILE,	 /* no file at all (timeouts, cancels, buffers, futexes): a non-file op */
	URING_FS,	 /* a file system op not recorded: counted (capture.uring_unrecorded) */
	URING_OPEN,	 /* recorded as the open or close syscall would be (uring_as_sys) */
	URING_CLOSE,
};

static const struct uring_op {
	uint8_t use;
	const char *name; /* of those counted (URING_FS) */
} uring_ops[] = {
	[IORING_OP_NOP] = { URING_NO_FILE },
	[IORING_OP_POLL_REMOVE] = { URING_NO_FILE },
	[IORING_OP_TIMEOUT] = { URING_NO_FILE },
	[IORING_OP_TIMEOUT_REMOVE] = { URING_NO_FILE },
	[IORING_OP_ASYNC_CANCEL] = { URING_NO_FILE },
	[IORING_OP_LINK_TIMEOUT] = { URING_NO_FILE },
	[IORING_OP_OPENAT] = { URING_OPEN },
	[IORING_OP_CLOSE] = { URING_CLOSE },
	[IORING_OP_FILES_UPDATE] = { URING_NO_FILE },
	[IORING_OP_STATX] = { URING_FS, "statx" },
	[IORING_OP_MADVISE] = { URING_NO_FILE },
	[IORING_OP_OPENAT2] = { URING_OPEN },
	[IORING_OP_PROVIDE_BUFFERS] = { URING_NO_FILE },
	[IORING_OP_REMOVE_BUFFERS] = { URING_NO_FILE },
	[IORING_OP_RENAMEAT] = { URING_FS, "renameat" },
	[IORING_OP_UNLINKAT] = { URING_FS, "unlinkat" },
	[IORING_OP_MKDIRAT] = { URING_FS, "mkdirat" },
	[IORING_OP_SYMLINKAT] = { URING_FS, "symlinkat" },
	[IORING_OP_LINKAT] = { URING_FS, "linkat" },
	[IORING_OP_FSETXATTR] = { URING_FS, "fsetxattr" },
	[IORING_OP_SETXATTR] = { URING_FS, "setxattr" },
	[IORING_OP_FGETXATTR] = { URING_FS, "fgetxattr" },
	[IORING_OP_GETXATTR] = { URING_FS, "getxattr" },
	[IORING_OP_SOCKET] = { URING_NO_FILE },
	[50] = { URING_NO_FILE },		      /* WAITID */
	[51] = { URING_NO_FILE },		      /* FUTEX_WAIT */
	[52] = { URING_NO_FILE },		      /* FUTEX_WAKE */
	[53] = { URING_NO_FILE },		      /* FUTEX_WAITV */
	[54] = { URING_FS, "fixed_fd_install" }, /* a registered file made an fd */
	[62] = { URING_NO_FILE },		      /* PIPE */
};

static const struct uring_op *uring_op(unsigned opcode)
{
	static const struct uring_op on_fd = { URING_ON_FD };

	return opcode < sizeof(uring_ops) / sizeof(uring_ops[0]) ? &uring_ops[opcode] : &on_fd;
}

uint64_t capture_conv__uring_unrecorded(const struct capture_conv *c, char *buf, size_t size)
{
	uint64_t total = 0;
	size_t off = 0;

	if (size)
		buf[0] = '\0';
	for (unsigned i = 0; i < 256; i++) {
		const char *name = uring_op(i)->name;

		if (!c->uring_unrecorded[i])
			continue;
		total += c->uring_unrecorded[i];
		if (name && off < size)
			off += snprintf(buf + off, size - off, "%s%s %llu", off ? ", " : "", name,
					(unsigned long long)c->uring_unrecorded[i]);
	}
	return total;
}

/*
 * An OPENAT, OPENAT2 or CLOSE request, pending in c->uring from its submission to its
 * completion: its reel_op holds the would-be syscall's type, the submitter's pid and tid,
 * fd (the dirfd, or the fd closed), flags and mode (open_how's), start_ns the submission's
 * bpf_ktime_get_ns() and subop the fd's kind the probe read there (S_IFMT >> 12); its path
 * goes beside it.
 */
static int uring_pending(struct capture_conv *c, const struct ioreel_uring_event *ev,
			 size_t size)
{
	struct reel_op op = { 0 };
	const char *path = NULL;

	switch (ev->hdr.nr) {
	case IORING_OP_OPENAT:
		op.type = REEL_OP_OPENAT;
		break;
	case IORING_OP_OPENAT2:
		op.type = REEL_OP_OPENAT2;
		break;
	default:
		op.type = REEL_OP_CLOSE;
	}
	op.pid = ev->hdr.pid;
	op.tid = ev->hdr.tid;
	op.fd = ev->fd;
	op.flags = (uint32_t)ev->offset;
	op.mode = (uint32_t)ev->len;
	op.start_ns = ev->time_ns;
	op.subop = ev->fd_kind;
	if (op.type != REEL_OP_CLOSE && ev->path_len &&
	    size >= sizeof(*ev) + ev->path_len && ((const char *)(ev + 1))[ev->path_len - 1] == '\0')
		path = (const char *)(ev + 1);
	return capture_inflight__put_str(c->uring, ev->req, 0, &op, path);
}

/*
 * A pending OPENAT, OPENAT2 or CLOSE completed: made into the event its syscall would have
 * sent (entered at the submission, returned at the completion, by the thread that submitted
 * it), so that it is recorded, and moves the fd table, as the syscall is. Before, an open's
 * request was left out as a non-file op, so the fd it returned was unknown to every op after
 * it, and a close's was recorded as a request the replay could not make.
 */
static int uring_as_sys(struct capture_conv *c, const struct ioreel_uring_event *ev,
			const struct reel_op *sub, const char *path)
{
	struct ioreel_sys_event se;
	size_t len = path ? strlen(path) + 1 : 0;

	memset(&se, 0, offsetof(struct ioreel_sys_event, data));
	se.hdr.type = IOREEL_EV_SYS;
	se.hdr.pid = sub->pid;
	se.hdr.tid = sub->tid;
	se.args[0] = (__u64)(__s64)sub->fd;
	se.ret = ev->res;
	se.start_ns = sub->start_ns;
	se.end_ns = ev->time_ns;
	if (sub->type == REEL_OP_CLOSE) {
		se.hdr.nr = __NR_close;
		se.hdr.fd_kind = sub->subop;
		se.has_pos = sub->subop != 0;
	} else {
		se.hdr.nr = sub->type == REEL_OP_OPENAT ? __NR_openat : __NR_openat2;
		/* as the BPF side sends them: openat's in args, openat2's open_how in pos, isize */
		se.args[2] = se.pos = sub->flags;
		se.args[3] = se.isize = sub->mode;
		se.ret_kind = ev->fd_kind;
		se.ret_size = ev->len;
		if (len > sizeof(se.data))
			len = 0;
		memcpy(se.data, path, len);
		se.len0 = len;
	}
	se.hdr.size = offsetof(struct ioreel_sys_event, data) + len;
	return conv_sys(c, &se, se.hdr.size);
}

static int conv_uring(struct capture_conv *c, const struct ioreel_uring_event *ev, size_t size)
{
	const struct uring_op *uop = uring_op(ev->hdr.nr);
	struct reel_op op = { 0 }, sub;
	struct capture_proc *p;
	bool fixed = ev->sqe_flags & IOREEL_URING_FIXED_FILE;
	char *path = NULL;

	if (ev->hdr.type == IOREEL_EV_URING_SUBMIT) {
		unsigned kind = kind_from_raw(ev->fd_kind, ev->fd_kind != 0);

		c->uring_setup |= ev->ring_flags; /* capture.uring_setup */
		c->uring_seen = true;
		op.type = REEL_OP_URING_SUBMIT;
		op.subop = ev->hdr.nr;
		op.pid = ev->hdr.pid;
		op.tid = ev->hdr.tid;
		op.fd = ev->fd;
		op.fd2 = -1;
		op.offset = ev->offset;
		op.len = ev->len;
		/* RWF_* of a read or write, IORING_FSYNC_DATASYNC of an fsync (FORMAT.md) */
		op.flags = ev->rw_flags;
		op.aux = ev->user_data;
		op.ctx = ring_fd(c, ev);
		op.start_ns = op.end_ns = rel_time(c, ev->time_ns);
		op.fd_kind = fixed ? REEL_FD_UNKNOWN : kind;
		/* an open into, or a close of, a registered file's slot: a fixed-file request */
		if ((uop->use == URING_OPEN || uop->use == URING_CLOSE) && ev->slot) {
			c->uring_fixed++;
			op.type = REEL_OP_NONE;
		} else if (uop->use == URING_OPEN || uop->use == URING_CLOSE) {
			return uring_pending(c, ev, size) ? -ENOMEM : 0;
		} else if (uop->use == URING_FS) {
			/* renames, unlinks, statx...: not recorded, counted (uring_unrecorded) */
			c->uring_unrecorded[ev->hdr.nr]++;
			op.type = REEL_OP_NONE;
		} else if (uop->use == URING_NO_FILE || (!fixed && !is_file(kind))) {
			/* sockets, timeouts, polls */
			c->nonfile_ops++;
			op.type = REEL_OP_NONE;
		}
		/* remembered so that their completion is skipped too */
		if (op.type == REEL_OP_NONE) {
			capture_inflight__put(c->uring, ev->req, 0, &op);
			return 0;
		}
		if (fixed) {
			/*
			 * A registered (fixed) file: its fd is an index in the ring's file table,
			 * which the capture does not follow (io_uring_register), so the file is
			 * not known. No fd, no path, IOSQE_FIXED_FILE in mode (FORMAT.md), and
			 * counted: a replay that took the index for an fd wrote into whatever
			 * file its own fd of that number was, and said nothing.
			 */
			op.fd = -1;
			op.mode = IOSQE_FIXED_FILE;
			c->uring_fixed++;
		} else if ((p = capture_procs__get(&c->procs, ev->hdr.pid, true))) {
			op.path = path_id(c, capture_proc__fd_path(p, ev->fd));
		}
		capture_inflight__put(c->uring, ev->req, 0, &op);
		emit(c, &op);
		return c->err;
	}
	if (capture_inflight__take_str(c->uring, ev->req, 0, &sub, &path) == 0) {
		int err = 0;

		if (sub.type == REEL_OP_OPENAT || sub.type == REEL_OP_OPENAT2 ||
		    sub.type == REEL_OP_CLOSE)
			err = uring_as_sys(c, ev, &sub, path);
		free(path);
		if (sub.type != REEL_OP_URING_SUBMIT)
			return err;
		op = sub;
	} else {
		c->unpaired++;
		op.pid = ev->hdr.pid;
		op.tid = ev->hdr.tid;
		op.fd = op.fd2 = -1;
		op.subop = ev->hdr.nr;
		op.aux = ev->user_data;
		op.ctx = ring_fd(c, ev);
		op.start_ns = rel_time(c, ev->time_ns);
	}
	op.type = REEL_OP_URING_COMPLETE;
	op.ret = ev->res;
	op.end_ns = rel_time(c, ev->time_ns);
	emit(c, &op);
	return c->err;
}

_Static_assert(sizeof(struct ioreel_sys_event_fixed) == offsetof(struct ioreel_sys_event, data),
	       "the fixed part of a syscall event is the event up to data[]");

/* A short syscall event is the fixed event with most fields known: expand it. */
static int conv_short(struct capture_conv *c, const struct ioreel_sys_short *s)
{
	const struct capture_sysdef *def = capture_sys__find(s->hdr.nr);
	struct ioreel_sys_event_fixed f = { .hdr = s->hdr };

	f.hdr.type = IOREEL_EV_SYS;
	f.hdr.size = sizeof(f);
	f.ret = s->ret;
	f.args[0] = (__u64)(__s64)s->fd;
	f.args[2] = s->len;
	if (def && (def->flags & IOREEL_SYS_OFF3))
		f.args[3] = s->off;
	else
		f.pos = s->off;
	f.start_ns = s->start_ns;
	f.end_ns = s->start_ns + s->dur_ns;
	f.has_pos = 1;
	return conv_sys(c, (const struct ioreel_sys_event *)&f, sizeof(f));
}

/*
 * The program an exec ran, the file /proc/PID/exe stands for from then on: name, the kernel's
 * (linux_binprm.interp: a script's interpreter, "/dev/fd/N" of an fexecve), made absolute
 * against the cwd, beneath the root, through the links it went by (posix_spawn of
 * "/proc/self/exe" runs the same program again). Not known: NULL, as when the event had no
 * name; a memfd's, marked so. Before the exec closes the close-on-exec fds it may name.
 */
static int track_exec(struct capture_conv *c, const struct ioreel_proc_event *pe,
		      const char *name)
{
	struct ioreel_sys_event_fixed at = { 0 };
	struct conv_ctx x = { .c = c, .ev = (const struct ioreel_sys_event *)&at };
	char buf[PATH_MAX];
	bool known;

	x.p = capture_procs__get(&c->procs, pe->hdr.pid, false);
	if (!x.p)
		return 0;
	at.start_ns = at.end_ns = pe->time_ns; /* the fds named are those open then */
	known = name && !capture_proc__resolve(x.p, AT_FDCWD, name, buf, sizeof(buf)) &&
		proc_link_path(&x, buf, sizeof(buf), true) && !x.via_anon;
	return capture_proc__set_exe(x.p, known ? buf : NULL, x.via_anon);
}

/*
 * fork, execve, exit (FORMAT.md, "Processes"): no fd, no path, start_ns = end_ns, each written
 * as its event comes, in the ring's order. A fork's event is sent before the child can run
 * and an exit's after the group's other threads have ended (each sends its last syscall
 * before it leaves the group), so the fork op comes before every op of the child and the
 * exit op after every op of the process.
 */
static int conv_proc(struct capture_conv *c, const struct ioreel_proc_event *pe, size_t size)
{
	const char *name = (const char *)(pe + 1);
	struct reel_op op = { 0 };
	bool shared = pe->flags & IOREEL_PROC_SHARED_FILES;
	int err;

	op.pid = pe->hdr.pid;
	op.tid = pe->hdr.tid;
	op.fd = op.fd2 = -1;
	op.start_ns = op.end_ns = rel_time(c, pe->time_ns);
	switch (pe->hdr.type) {
	case IOREEL_EV_FORK:
		/* the child live first: a pid used again after an exit takes ops again */
		err = capture_procs__fork(&c->procs, pe->hdr.pid, pe->child_pid, shared);
		if (err)
			return err;
		op.type = REEL_OP_FORK;
		op.ret = pe->child_pid;
		op.flags = shared ? CLONE_FILES_FLAG : 0;
		break;
	case IOREEL_EV_EXEC:
		/*
		 * The exec of the command the recorder started too: its first op, as strace -f
		 * logs it (and import strace writes it). The fork before it is the recorder's
		 * and not recorded: the trace begins with the held child there, the fds the
		 * snapshot found (but the close-on-exec ones) its own.
		 */
		if (size <= sizeof(*pe) || memchr(name, '\0', size - sizeof(*pe)) == NULL)
			name = NULL; /* no name came, or not all of it */
		err = track_exec(c, pe, name);
		if (err)
			return err;
		capture_procs__exec(&c->procs, pe->hdr.pid);
		op.type = REEL_OP_EXECVE;
		break;
	case IOREEL_EV_EXIT:
		op.type = REEL_OP_EXIT;
		op.ret = pe->status;
		/* written while the process is live (emit() drops ops of a dead one) */
		emit(c, &op);
		capture_procs__exit(&c->procs, pe->hdr.pid);
		c->exits_seen = true;
		return c->err;
	default:
		return 0;
	}
	emit(c, &op);
	return c->err;
}

int capture_conv__event(struct capture_conv *c, const void *data, size_t size)
{
	const struct ioreel_hdr *h = data;
	const struct ioreel_proc_event *pe = data;

	if (size < sizeof(*h))
		return 0;
	c->events++;
	switch (h->type) {
	case IOREEL_EV_SYS:
		if (size < offsetof(struct ioreel_sys_event, data))
			return 0;
		return conv_sys(c, data, size);
	case IOREEL_EV_SYS_SHORT:
		if (size < sizeof(struct ioreel_sys_short))
			return 0;
		return conv_short(c, data);
	case IOREEL_EV_FORK:
	case IOREEL_EV_EXEC:
	case IOREEL_EV_EXIT:
		if (size < sizeof(*pe))
			return 0;
		return conv_proc(c, pe, size);
	case IOREEL_EV_URING_SUBMIT:
	case IOREEL_EV_URING_COMPLETE:
		if (size < sizeof(struct ioreel_uring_event))
			return 0;
		return conv_uring(c, data, size);
	default:
		return 0;
	}
}
