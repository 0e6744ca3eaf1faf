/* SPDX-License-Identifier: MIT */
/*
 * reel_strace.c - import the output of `strace -f -ttt -T -y` (or -yy) as a trace.
 * -tt's times of day work too (a time that goes back by more than 12 h is on the next day;
 * the trace then has no start_wall_ns, the date being unknown); a log without times cannot
 * be imported: its lines count as bad and untimed (reel_strace_stats).
 *
 * Three passes over the log. The first learns the process tree: which tid each clone, fork
 * and vfork created and whether it is a thread (CLONE_THREAD), because a child's first
 * lines may come before its parent's clone returns; and which pid the lines without a pid
 * column belong to. The second (1b) finds each process's last line, where it may have
 * exited. The third turns calls into ops.
 *
 * Choices worth knowing (they follow DESIGN.md, "Capture"):
 * - A call split into "<unfinished ...>" and "<... resumed>" becomes one op, started at the
 *   first half's timestamp; end = start + the -T duration.
 * - The pid column is the tid; the tgid comes from the clone flags, else it is the tid.
 *   Lines without a pid column belong to the only live traced tid, else to the first
 *   process (strace leaves the column out while it traces a single process); when no
 *   line ever names that process its pid is unknown and recorded as 1.
 * - read/write/readv/writev carry the file position used: tracked per open file
 *   description (shared by dup and fork) from opens, lseek results and transfers; O_APPEND
 *   writes go to the file's size as last seen (writes, truncates, lseek SEEK_END, stat
 *   st_size). An fd first seen in use has an unknown position, counted in unknown_pos.
 *   copy_file_range and sendfile use and advance the positions of the fds whose offset
 *   pointer is NULL, by the bytes moved; with a pointer, the value it held on entry.
 * - Only regular files, directories and block devices become ops. strace -y shows what
 *   else an fd is ("socket:[..]", "pipe:[..]", "anon_inode:[..]", /dev/pts/N); ops on
 *   those, and on /proc and /sys, are counted in meta "nonfile_ops" and left out.
 * - Paths: the -y annotation (absolute, resolved by the kernel) when there is one, else
 *   the argument joined to the dirfd's path or the process's cwd (from AT_FDCWD's -y
 *   annotation, chdir, fchdir), an absolute one beneath the process's chroot, else
 *   left as given.
 * - fstat as glibc issues it, newfstatat(fd, "", buf, AT_EMPTY_PATH), becomes a
 *   REEL_OP_FSTAT on that fd with path = the fd's path, as the capturer records it
 *   (FORMAT.md, "fstat issued as newfstatat"): the program asked for an fstat.
 * - open-family ops: fd is the dirfd (AT_FDCWD = -100) for the *at forms, -1 otherwise;
 *   fd_kind is the kind of the file opened.
 * - symlink's content, and what readlink read, are kept as strace shows them (never joined
 *   to a directory: they name no file of the trace; a string strace cut short is none);
 *   utimensat(fd, NULL, ...) is futimens, an op on that fd.
 * - AT_EMPTY_PATH stays in flags only when the op acted on the fd (an empty path): the
 *   kernel ignores it otherwise. linkat of "/proc/self/fd/N" with AT_SYMLINK_FOLLOW (how
 *   an O_TMPFILE file gets a name) is a link from fd N, as the capturer records it.
 *   Any other path op on "/proc/self/fd/N[/rest]" that follows it (tar x chmods each
 *   directory through its O_PATH fd so) is an op on fd N's file, as the capturer records it.
 * - copy_file_range and sendfile are kept when either end is a file (FORMAT.md, "Copies").
 * - io_submit/io_getevents: one op per iocb / io_event, matched by (ctx, aio_data) to get
 *   the completion's file, offset and length. io_uring_enter: strace cannot show SQEs, so
 *   those calls are only counted (meta "uring_enters").
 * - set/removexattr (any form) that succeeded are counted in meta capture.xattr_ops, as the
 *   recorder counts them: not replayed (cp -a gives each copy its mode through an ACL so).
 * - Processes (format 1.4): a clone, fork or vfork without CLONE_THREAD is a fork op of the
 *   parent (ret: the child's pid or -errno; flags: CLONE_FILES), at its return, or at the
 *   child's first line and just before it when that comes first. An execve or execveat
 *   that returned 0 is an execve op at its return. A process's last line, when it is a
 *   "+++ exited with N +++" or "+++ killed by SIG +++" one, is its exit op (the wait
 *   status): the kernel reports a group's leader after its other threads. The op is
 *   stamped at the start of the exit_group (or last exit) call that began the end, when
 *   there is one (st_pass_ends), else at the "+++" line. "+++ superseded
 *   by execve in pid OLD +++" is no end: thread OLD's execve resumes as the tgid.
 * - flock and fcntl's record locks (F_GETLK, F_SETLK, F_SETLKW, F_OFD_*, the *64 names) are
 *   ops, failed ones too; a lock's range is made absolute from the tracked position and
 *   size where it can be (FORMAT.md, "Locks"). A get command's type asked is not in the log:
 *   strace shows the struct as the kernel filled it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reel_strace_int.h"

/* ---- pass 1: the process tree ---- */

static int st_is_clone(const char *name)
{
	return !strcmp(name, "clone") || !strcmp(name, "clone3") || !strcmp(name, "fork") ||
	       !strcmp(name, "vfork");
}

/* A call's text that starts with clone(, clone3(, fork( or vfork( */
static int st_is_clone_text(const char *text)
{
	return !strncmp(text, "clone", 5) || !strncmp(text, "fork(", 5) ||
	       !strncmp(text, "vfork(", 6);
}

static int st_pending_put(struct st_state *s, uint64_t tid, uint64_t ts, const char *text)
{
	uint64_t *v = cvt_map__put(&s->pending, tid, NULL);
	struct st_pending *p;

	if (!v)
		return -ENOMEM;
	p = (struct st_pending *)(uintptr_t)*v;
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		*v = (uintptr_t)p;
	}
	free(p->text);
	st_ofd_put(p->closed); /* one that never resumed */
	p->closed = NULL;
	p->text = strdup(text);
	p->ts = ts;
	return p->text ? 0 : -ENOMEM;
}

/*
 * A close left unfinished has already taken its fd out of the table: the kernel frees the
 * number as close enters, and another thread's open may get it before the close resumes
 * (libuv's thread pool does this all the time). Its description is kept for the close op.
 */
static void st_pending_close(struct st_state *s, uint64_t tid, const char *text)
{
	uint64_t *v = cvt_map__get(&s->pending, tid);
	struct st_pending *p = v ? (struct st_pending *)(uintptr_t)*v : NULL;
	struct st_proc *proc;
	struct st_ofd *o;
	char *end;
	long fd;

	if (!p || strncmp(text, "close(", 6))
		return;
	fd = strtol(text + 6, &end, 10);
	if (end == text + 6 || fd < 0 || fd > INT32_MAX)
		return;
	proc = st_proc_get(s, st_tgid(s, (uint32_t)tid));
	o = proc ? st_fd_get(proc, (int)fd, NULL) : NULL;
	if (!o)
		return;
	o->refs++;
	st_fd_close(proc, (int)fd);
	st_ofd_put(p->closed);
	p->closed = o;
}

/*
 * Whether tid's unfinished call is NAME's, which a "<... NAME resumed>" line must resume:
 * 1 it is, 0 another call's (the log is not strace's own: the line is bad), -1 none is
 * pending (strace attached in the middle of the call).
 */
static int st_pending_is(struct st_state *s, uint64_t tid, const char *name)
{
	uint64_t *v = cvt_map__get(&s->pending, tid);
	const struct st_pending *p = v ? (const struct st_pending *)(uintptr_t)*v : NULL;
	size_t n = strlen(name);

	if (!p)
		return -1;
	return !strncmp(p->text, name, n) && p->text[n] == '(';
}

/* Joins a resumed line to its first half: malloc'd text, *ts = the first half's time,
 * *closed = what a close closed as it entered (st_pending_close), the caller's. */
static char *st_pending_take(struct st_state *s, uint64_t tid, const char *rest, uint64_t *ts,
			     struct st_ofd **closed)
{
	uint64_t *v = cvt_map__get(&s->pending, tid);
	struct st_pending *p;
	char *text;

	if (!v || !*v)
		return NULL;
	p = (struct st_pending *)(uintptr_t)*v;
	text = malloc(strlen(p->text) + strlen(rest) + 1);
	if (text) {
		strcpy(text, p->text);
		strcat(text, rest);
	}
	*ts = p->ts;
	*closed = p->closed;
	free(p->text);
	free(p);
	cvt_map__del(&s->pending, tid);
	return text;
}

static void st_pending_clear(struct st_state *s)
{
	uint64_t k, v;

	for (size_t i = 0; cvt_map__next(&s->pending, &i, &k, &v);) {
		struct st_pending *p = (struct st_pending *)(uintptr_t)v;

		if (p) {
			free(p->text);
			st_ofd_put(p->closed);
		}
		free(p);
	}
	cvt_map__free(&s->pending);
	cvt_map__init(&s->pending);
}

static int st_pass1(struct st_state *s, FILE *in)
{
	struct stl_clock ck = {0};
	char *line = NULL, *text;
	size_t cap = 0;
	uint64_t lineno = 0, best = UINT64_MAX, k, v, ts;
	struct stl_line l;
	struct stl_call c;
	int err = 0;

	while (getline(&line, &cap, in) > 0) {
		uint64_t tid;

		lineno++;
		stl_parse_line(line, &l, &ck);
		if (l.kind == STL_BAD || l.kind == STL_BLANK)
			continue;
		if (!s->have_first) {
			s->first_ts = l.ts_ns;
			s->have_first = 1;
			s->st->time_of_day = l.tod;
		}
		/* unprefixed lines: tid 0 stands for "the initial process" until known */
		tid = l.pid >= 0 ? (uint64_t)l.pid : 0;
		if (l.pid >= 0) {
			int created;
			uint64_t *sv = cvt_map__put(&s->seen, tid, &created);

			if (!sv) {
				err = -ENOMEM;
				break;
			}
			if (created)
				*sv = lineno;
		}
		if (l.kind == STL_UNFINISHED) {
			if (st_is_clone_text(l.text)) {
				s->st->clone_lines++;
				err = st_pending_put(s, tid, l.ts_ns, l.text);
				if (err)
					break;
			}
			continue;
		}
		if (l.kind == STL_RESUMED) {
			struct st_ofd *closed = NULL;

			if (!st_is_clone(l.name) || st_pending_is(s, tid, l.name) <= 0)
				continue;
			text = st_pending_take(s, tid, l.text, &ts, &closed);
			st_ofd_put(closed); /* none: this pass keeps no fd table */
		} else if (l.kind == STL_CALL && st_is_clone_text(l.text)) {
			s->st->clone_lines++;
			text = strdup(l.text);
		} else {
			continue;
		}
		if (!text)
			continue;
		if (!stl_parse_call(text, &c) && st_is_clone(c.name) && c.ret_known && c.ret > 0) {
			uint64_t flags = st_clone_flags(&c);
			int thread = (flags & ST_CLONE_THREAD) != 0;
			uint64_t *pv = cvt_map__put(&s->parent, (uint64_t)c.ret, NULL);

			if (pv)
				*pv = tid << 1 | (uint64_t)thread;
			if (!thread && (flags & ST_CLONE_FILES) &&
			    !cvt_map__put(&s->files, (uint64_t)c.ret, NULL))
				err = -ENOMEM;
		}
		free(text);
	}
	free(line);
	st_pending_clear(s);
	if (err)
		return err;
	/* the initial process: the first pid column value that no clone created */
	s->initial = 1;
	for (size_t i = 0; cvt_map__next(&s->seen, &i, &k, &v);) {
		if (v < best && !cvt_map__get(&s->parent, k)) {
			best = v;
			s->initial = (long)k;
		}
	}
	for (size_t i = 0; cvt_map__next(&s->parent, &i, &k, &v);)
		if (!(v >> 1))
			*cvt_map__get(&s->parent, k) = (uint64_t)s->initial << 1 | (v & 1);
	/* the others no clone made: threads or processes, the log cannot tell; processes */
	for (size_t i = 0; cvt_map__next(&s->seen, &i, &k, &v);)
		if ((long)k != s->initial && !cvt_map__get(&s->parent, k))
			s->st->unparented++;
	return 0;
}

/* ---- the tid of a line, and the threads alive: pass 2's view, which pass 1b repeats ---- */

/* The tid of a line: its pid column, else the only tid alive, else the initial process. */
static uint32_t st_line_tid(struct st_state *s, const struct cvt_map *live,
			    const struct stl_line *l)
{
	uint64_t k, v;

	if (l->pid >= 0)
		return (uint32_t)l->pid;
	if (live->len == 1) {
		size_t i = 0;

		if (cvt_map__next(live, &i, &k, &v))
			return (uint32_t)k;
	}
	return (uint32_t)s->initial;
}

/*
 * "+++ superseded by execve in pid OLD +++": a thread OLD of a multi-threaded process called
 * execve, and the kernel gave it the tgid's id (the line's tid): OLD is gone without a line
 * of its own, its execve resumes as the tgid. OLD, or 0 for any other line.
 */
static uint32_t st_superseded(const struct stl_line *l)
{
	static const char pfx[] = "+++ superseded by execve in pid ";
	long old;

	if (l->kind != STL_EXIT || !l->text || strncmp(l->text, pfx, sizeof(pfx) - 1))
		return 0;
	old = strtol(l->text + sizeof(pfx) - 1, NULL, 10);
	return old > 0 && old <= UINT32_MAX ? (uint32_t)old : 0;
}

/* The line's tid (parsed, not blank nor bad), and live updated for it: 0 or -ENOMEM. */
static int st_track_line(struct st_state *s, struct cvt_map *live, const struct stl_line *l,
			 uint32_t *tid)
{
	uint32_t old;

	*tid = st_line_tid(s, live, l);
	if (l->kind == STL_EXIT) {
		old = st_superseded(l);
		if (!old) {
			cvt_map__del(live, *tid);
			return 0;
		}
		if (old != *tid)
			cvt_map__del(live, old);
	}
	return cvt_map__put(live, *tid, NULL) ? 0 : -ENOMEM;
}

/*
 * Pass 1b: the line where each process ends, the last line of any of its threads; when that
 * is a "+++" line, the process exited there (the kernel reports a thread group's leader
 * after its other threads, and strace may show no line for a thread it saw end with it).
 *
 * And when it began to end: the start of its exit_group call, or of its last thread's exit,
 * when no call of the process began after it. The "+++" line comes later, after the kernel
 * has let go of the process's files, and strace may print another process's lines first:
 * a waiter's "<... flock resumed> = 0" came before the "+++ exited" line of the holder whose
 * exit released that lock. An exit op stamped and written at the "+++" line put the release
 * after the take it allowed, in time and in the trace's order (which a replay keeps for a
 * file's lock ops, FORMAT.md: a recorder writes in exit order), and the replay's take waited
 * for it, given up (EINTR). So the exit op is stamped at that call and written right after
 * its line (or after a later line of the process's that is an op: a call that returned as
 * the process ended), with the status of the process's last line, its "+++" one. A process
 * killed by a signal has no such call: its exit op is its "+++" line's.
 */
/*
 * A line of process tgid, for its exit op: an exit_group or exit call starts its end, any
 * other call undoes that (a thread's exit while others go on; a call that raced an
 * exit_group); a call that returns after it (not "= ?") is an op its exit goes after; the
 * status is its last line's, when that is a "+++" one.
 */
static int st_note_exiting(struct st_state *s, uint32_t tgid, const struct stl_line *l,
			   uint64_t lineno)
{
	int64_t status;
	uint64_t *v, *n;

	if (l->kind == STL_EXIT && !st_superseded(l) && !st_exit_status(l->text, &status)) {
		v = cvt_map__put(&s->exit_status, tgid, NULL);
		if (!v)
			return -ENOMEM;
		*v = (uint64_t)status + 1;
		return 0;
	}
	cvt_map__del(&s->exit_status, tgid);
	if (l->kind == STL_RESUMED) {
		n = cvt_map__get(&s->exiting, tgid) ? cvt_map__get(&s->exit_line, tgid) : NULL;
		if (n && !strstr(l->text, "= ?"))
			*n = lineno;
		return 0;
	}
	if (l->kind != STL_CALL && l->kind != STL_UNFINISHED)
		return 0;
	if (strncmp(l->text, "exit_group(", 11) && strncmp(l->text, "exit(", 5)) {
		cvt_map__del(&s->exiting, tgid);
		cvt_map__del(&s->exit_line, tgid);
		return 0;
	}
	v = cvt_map__put(&s->exiting, tgid, NULL);
	n = v ? cvt_map__put(&s->exit_line, tgid, NULL) : NULL;
	if (!n)
		return -ENOMEM;
	*v = l->ts_ns + 1;
	*n = lineno;
	return 0;
}

static int st_pass_ends(struct st_state *s, FILE *in)
{
	struct stl_clock ck = {0};
	char *line = NULL;
	size_t cap = 0;
	uint64_t lineno = 0, *v;
	struct cvt_map live;
	struct stl_line l;
	uint32_t tid;
	int err = 0;

	cvt_map__init(&live);
	while (!err && getline(&line, &cap, in) > 0) {
		lineno++;
		stl_parse_line(line, &l, &ck);
		if (l.kind == STL_BLANK || l.kind == STL_BAD)
			continue;
		err = st_track_line(s, &live, &l, &tid);
		v = err ? NULL : cvt_map__put(&s->ends, st_tgid(s, tid), NULL);
		if (!err && !v)
			err = -ENOMEM;
		if (v)
			*v = lineno;
		if (!err)
			err = st_note_exiting(s, st_tgid(s, tid), &l, lineno);
	}
	free(line);
	cvt_map__free(&live);
	return err;
}

/* A superseded execve's first half, moved from the thread that began it to the tgid's id */
static int st_pending_move(struct st_state *s, uint32_t from, uint32_t to)
{
	uint64_t *v = cvt_map__get(&s->pending, from), *t;
	struct st_pending *p, *q;

	if (!v)
		return 0;
	p = (struct st_pending *)(uintptr_t)*v;
	cvt_map__del(&s->pending, from);
	t = cvt_map__put(&s->pending, to, NULL);
	if (!t) {
		if (p) {
			free(p->text);
			st_ofd_put(p->closed);
			free(p);
		}
		return -ENOMEM;
	}
	q = (struct st_pending *)(uintptr_t)*t;
	if (q) {
		/* the tgid's own call, which never resumed */
		free(q->text);
		st_ofd_put(q->closed);
		free(q);
	}
	*t = (uintptr_t)p;
	return 0;
}

static int st_dispatch(struct st_state *s, struct stl_call *c)
{
	static const struct {
		const char *name;
		int type;
		int di, pi; /* path ops: dirfd and path argument indexes */
	} pathops[] = {
	    {"stat", REEL_OP_STAT, -1, 0},
	    {"lstat", REEL_OP_LSTAT, -1, 0},
	    {"newfstatat", REEL_OP_NEWFSTATAT, 0, 1},
	    {"fstatat64", REEL_OP_NEWFSTATAT, 0, 1},
	    {"statx", REEL_OP_STATX, 0, 1},
	    {"access", REEL_OP_ACCESS, -1, 0},
	    {"faccessat", REEL_OP_FACCESSAT, 0, 1},
	    {"faccessat2", REEL_OP_FACCESSAT, 0, 1},
	    {"unlink", REEL_OP_UNLINK, -1, 0},
	    {"unlinkat", REEL_OP_UNLINKAT, 0, 1},
	    {"mkdir", REEL_OP_MKDIR, -1, 0},
	    {"mkdirat", REEL_OP_MKDIRAT, 0, 1},
	    {"rmdir", REEL_OP_RMDIR, -1, 0},
	    {"truncate", REEL_OP_TRUNCATE, -1, 0},
	    {"chmod", REEL_OP_CHMOD, -1, 0},
	    {"fchmodat", REEL_OP_FCHMODAT, 0, 1},
	    {"fchmodat2", REEL_OP_FCHMODAT, 0, 1},
	    {"chown", REEL_OP_CHOWN, -1, 0},
	    {"lchown", REEL_OP_LCHOWN, -1, 0},
	    {"fchownat", REEL_OP_FCHOWNAT, 0, 1},
	    {"utimensat", REEL_OP_UTIMENSAT, 0, 1},
	    {"readlink", REEL_OP_READLINK, -1, 0},
	    {"readlinkat", REEL_OP_READLINKAT, 0, 1},
	};
	static const struct {
		const char *name;
		int type;
	} fdops[] = {
	    {"fsync", REEL_OP_FSYNC},	      {"fdatasync", REEL_OP_FDATASYNC},
	    {"syncfs", REEL_OP_SYNCFS},	      {"sync_file_range", REEL_OP_SYNC_FILE_RANGE},
	    {"fallocate", REEL_OP_FALLOCATE}, {"ftruncate", REEL_OP_FTRUNCATE},
	    {"fadvise64", REEL_OP_FADVISE64}, {"getdents64", REEL_OP_GETDENTS64},
	    {"fstat", REEL_OP_FSTAT},	      {"fchmod", REEL_OP_FCHMOD},
	    {"fchown", REEL_OP_FCHOWN},
	};
	const char *n = c->name;
	int type;

	if (!c->ret_known)
		return 0; /* "= ?": the thread died inside the call */
	if (!strcmp(n, "open") || !strcmp(n, "openat") || !strcmp(n, "openat2") ||
	    !strcmp(n, "creat"))
		return c->nargs >= 1 ? st_do_open(s, c, reel_op__from_name(n)) : -EINVAL;
	if (!strcmp(n, "close"))
		return c->nargs >= 1 ? st_do_close(s, c) : -EINVAL;
	if (!strcmp(n, "close_range"))
		return st_do_close_range(s, c);
	type = reel_op__from_name(n);
	if (type > 0 && (reel_op__is_read(type) || reel_op__is_write(type)))
		return c->nargs >= 2 ? st_do_rw(s, c, type) : -EINVAL;
	if (!strcmp(n, "lseek"))
		return c->nargs >= 3 ? st_do_lseek(s, c) : -EINVAL;
	for (size_t i = 0; i < sizeof(fdops) / sizeof(fdops[0]); i++)
		if (!strcmp(n, fdops[i].name))
			return c->nargs >= 1 ? st_do_fdop(s, c, fdops[i].type) : -EINVAL;
	for (size_t i = 0; i < sizeof(pathops) / sizeof(pathops[0]); i++)
		if (!strcmp(n, pathops[i].name))
			return c->nargs > pathops[i].pi ? st_do_pathop(s, c, pathops[i].type,
								       pathops[i].di, pathops[i].pi)
							: -EINVAL;
	if (!strcmp(n, "rename"))
		return c->nargs >= 2 ? st_do_rename(s, c, REEL_OP_RENAME) : -EINVAL;
	if (!strcmp(n, "renameat"))
		return c->nargs >= 4 ? st_do_rename(s, c, REEL_OP_RENAMEAT) : -EINVAL;
	if (!strcmp(n, "renameat2"))
		return c->nargs >= 4 ? st_do_rename(s, c, REEL_OP_RENAMEAT2) : -EINVAL;
	if (!strcmp(n, "link"))
		return c->nargs >= 2 ? st_do_rename(s, c, REEL_OP_LINK) : -EINVAL;
	if (!strcmp(n, "linkat"))
		return c->nargs >= 4 ? st_do_rename(s, c, REEL_OP_LINKAT) : -EINVAL;
	if (!strcmp(n, "symlink"))
		return c->nargs >= 2 ? st_do_symlink(s, c, REEL_OP_SYMLINK) : -EINVAL;
	if (!strcmp(n, "symlinkat"))
		return c->nargs >= 3 ? st_do_symlink(s, c, REEL_OP_SYMLINKAT) : -EINVAL;
	if (!strcmp(n, "copy_file_range"))
		return c->nargs >= 5 ? st_do_copy(s, c, REEL_OP_COPY_FILE_RANGE) : -EINVAL;
	if (!strcmp(n, "sendfile") || !strcmp(n, "sendfile64"))
		return c->nargs >= 4 ? st_do_copy(s, c, REEL_OP_SENDFILE) : -EINVAL;
	if (!strcmp(n, "dup"))
		return c->nargs >= 1 ? st_do_dup(s, c, REEL_OP_DUP) : -EINVAL;
	if (!strcmp(n, "dup2"))
		return c->nargs >= 2 ? st_do_dup(s, c, REEL_OP_DUP2) : -EINVAL;
	if (!strcmp(n, "dup3"))
		return c->nargs >= 2 ? st_do_dup(s, c, REEL_OP_DUP3) : -EINVAL;
	if ((!strcmp(n, "fcntl") || !strcmp(n, "fcntl64")) && c->nargs >= 2 &&
	    st_lock_cmd(c->args[1]))
		return st_do_lock(s, c, REEL_OP_FCNTL_LOCK);
	if (!strcmp(n, "fcntl") || !strcmp(n, "fcntl64"))
		return c->nargs >= 2 ? st_do_dup(s, c, REEL_OP_FCNTL_DUPFD) : -EINVAL;
	if (!strcmp(n, "flock"))
		return c->nargs >= 2 ? st_do_lock(s, c, REEL_OP_FLOCK) : -EINVAL;
	if (!strcmp(n, "mmap") || !strcmp(n, "mmap2"))
		return c->nargs >= 6 ? st_do_mmap(s, c) : -EINVAL;
	if (!strcmp(n, "munmap"))
		return c->nargs >= 2 ? st_do_munmap(s, c) : -EINVAL;
	if (!strcmp(n, "msync"))
		return c->nargs >= 3 ? st_do_msync(s, c) : -EINVAL;
	if (!strcmp(n, "sync"))
		return st_do_sync_all(s, c);
	if (!strcmp(n, "io_submit"))
		return c->nargs >= 3 ? st_do_io_submit(s, c) : -EINVAL;
	if (!strcmp(n, "io_getevents") || !strcmp(n, "io_pgetevents"))
		return c->nargs >= 4 ? st_do_io_getevents(s, c) : -EINVAL;
	if (!strcmp(n, "io_uring_enter")) {
		s->st->uring_enters++;
		return 0;
	}
	if (strstr(n, "setxattr") || strstr(n, "removexattr")) {
		/* counted, as the recorder counts them (capture.xattr_ops): cp -a sets modes so */
		if (c->ret_known && c->ret >= 0)
			s->st->xattr_ops++;
		return 0;
	}
	if (!strcmp(n, "execve") || !strcmp(n, "execveat"))
		return st_do_execve(s, c);
	if (!strcmp(n, "chdir"))
		return c->nargs >= 1 ? st_do_chdir(s, c, 0) : -EINVAL;
	if (!strcmp(n, "chroot"))
		return st_do_chroot(s, c);
	if (!strcmp(n, "fchdir"))
		return c->nargs >= 1 ? st_do_chdir(s, c, 1) : -EINVAL;
	if (st_is_clone(n))
		return st_do_clone(s, c);
	return 0; /* not file I/O */
}

/* ---- pass 2 ---- */

/* A log time as a trace time: since the log's first line */
static uint64_t st_rel(const struct st_state *s, uint64_t ts)
{
	return ts > s->first_ts ? ts - s->first_ts : 0;
}

static void st_bad(struct st_state *s, uint64_t lineno)
{
	if (!s->st->bad_lines++)
		s->st->first_bad_line = lineno;
}

/* The exit op of the process whose exit call (or last op after it) was the last line */
static int st_exit_early(struct st_state *s)
{
	uint32_t tgid = s->exit_due - 1, tid = s->tid, pid = s->tgid;
	uint64_t *at, *line, *status;
	int err;

	if (!s->exit_due)
		return 0;
	s->exit_due = 0;
	at = cvt_map__get(&s->exiting, tgid);
	line = cvt_map__get(&s->exit_line, tgid);
	status = cvt_map__get(&s->exit_status, tgid);
	if (!at || !line || !status)
		return 0;
	*line = 0; /* written: not again at its "+++" line */
	/* the group's leader, whose "+++" line the kernel reports last */
	s->tgid = s->tid = tgid;
	err = st_exit_op(s, (int64_t)(*status - 1), st_rel(s, *at - 1));
	s->tgid = pid;
	s->tid = tid;
	return err;
}

static int st_pass2(struct st_state *s, FILE *in)
{
	struct stl_clock ck = {0};
	char *line = NULL, *text;
	size_t cap = 0;
	uint64_t lineno = 0, ts, *ev;
	struct stl_line l;
	struct stl_call c;
	int err = 0;

	while (!err && getline(&line, &cap, in) > 0) {
		err = st_exit_early(s);
		if (err)
			break;
		lineno++;
		s->st->lines++;
		stl_parse_line(line, &l, &ck);
		if (l.kind == STL_BLANK)
			continue;
		if (l.kind == STL_BAD) {
			st_bad(s, lineno);
			if (l.untimed)
				s->st->untimed_lines++;
			continue;
		}
		err = st_track_line(s, &s->live, &l, &s->tid);
		if (err)
			break;
		s->tgid = st_tgid(s, s->tid);
		ev = cvt_map__get(&s->exit_line, s->tgid);
		if (ev && *ev == lineno && cvt_map__get(&s->exit_status, s->tgid))
			s->exit_due = s->tgid + 1; /* after this line's op, if any */
		/* a forked child's first line: its parent's fork op first, if not yet written */
		err = st_fork_op(s, s->tgid, st_rel(s, l.ts_ns));
		if (err)
			break;
		if (l.kind == STL_EXIT) {
			struct st_ofd *closed = NULL;
			uint32_t old = st_superseded(&l);
			uint64_t now, *end;
			int64_t status;

			if (old) {
				if (old != s->tid)
					err = st_pending_move(s, old, s->tid);
				continue;
			}
			free(st_pending_take(s, s->tid, "", &now, &closed));
			st_ofd_put(closed);
			/* the process's last line: it ended, with this thread */
			end = cvt_map__get(&s->ends, s->tgid);
			ev = cvt_map__get(&s->exit_line, s->tgid);
			/* killed by a signal: its exit op is here (else st_exit_early) */
			if (end && *end == lineno && !(ev && !*ev) &&
			    !st_exit_status(l.text, &status))
				err = st_exit_op(s, status, st_rel(s, l.ts_ns));
			continue;
		}
		if (l.kind == STL_SIGNAL)
			continue;
		if (l.kind == STL_UNFINISHED) {
			err = st_pending_put(s, s->tid, l.ts_ns, l.text);
			if (!err)
				st_pending_close(s, s->tid, l.text);
			continue;
		}
		ts = l.ts_ns;
		if (l.kind == STL_RESUMED) {
			int is = st_pending_is(s, s->tid, l.name);

			/* another call's resumption: skipped, its unfinished call left waiting */
			if (!is)
				st_bad(s, lineno);
			text = is > 0 ? st_pending_take(s, s->tid, l.text, &ts, &s->closed) : NULL;
			if (!text) {
				s->st->unmatched += is < 0;
				continue;
			}
		} else {
			text = strdup(l.text);
			if (!text) {
				err = -ENOMEM;
				break;
			}
		}
		if (stl_parse_call(text, &c)) {
			st_bad(s, lineno);
			free(text);
			st_ofd_put(s->closed);
			s->closed = NULL;
			continue;
		}
		s->tgid = st_tgid(s, s->tid);
		s->proc = st_proc_get(s, s->tgid);
		if (!s->proc) {
			free(text);
			err = -ENOMEM;
			break;
		}
		s->start = st_rel(s, ts);
		if (c.has_dur)
			s->end = s->start + c.dur_ns;
		else
			s->end = l.ts_ns > s->first_ts ? l.ts_ns - s->first_ts : s->start;
		if (s->end < s->start)
			s->end = s->start;
		err = st_dispatch(s, &c);
		/* a close that did not take it (its arguments unread) */
		st_ofd_put(s->closed);
		s->closed = NULL;
		if (err == -EINVAL) {
			/* a call we know with arguments we cannot read: one bad line */
			st_bad(s, lineno);
			err = 0;
		}
		free(text);
	}
	if (!err)
		err = st_exit_early(s);
	free(line);
	return err;
}

static int st_meta_u64(struct reel_writer *w, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return reel_writer__meta(w, key, buf);
}

int reel_strace__import(FILE *in, struct reel_writer *w, struct reel_strace_stats *st)
{
	struct st_state s;
	uint64_t k, v;
	int err;

	memset(st, 0, sizeof(*st));
	memset(&s, 0, sizeof(s));
	s.w = w;
	s.st = st;
	cvt_map__init(&s.parent);
	cvt_map__init(&s.files);
	cvt_map__init(&s.seen);
	cvt_map__init(&s.live);
	cvt_map__init(&s.pending);
	cvt_map__init(&s.procs);
	cvt_map__init(&s.sizes);
	cvt_map__init(&s.dirs);
	cvt_map__init(&s.ends);
	cvt_map__init(&s.exiting);
	cvt_map__init(&s.exit_line);
	cvt_map__init(&s.exit_status);
	cvt_map__init(&s.forked);
	err = st_pass1(&s, in);
	if (!err && fseek(in, 0, SEEK_SET))
		err = -errno;
	if (!err)
		err = st_pass_ends(&s, in);
	if (!err && fseek(in, 0, SEEK_SET))
		err = -errno;
	if (!err)
		err = reel_writer__meta(w, REEL_META_TOOL, "ioreel import strace");
	/* -tt's times of day have no date: the wall clock at time 0 is not known */
	if (!err && s.have_first && !st->time_of_day)
		err = st_meta_u64(w, REEL_META_START_WALL_NS, s.first_ts);
	if (!err)
		err = st_pass2(&s, in);
	if (!err && ferror(in))
		err = -EIO;
	if (!err)
		err = st_meta_u64(w, "nonfile_ops", st->nonfile_ops);
	if (!err && st->bad_lines)
		err = st_meta_u64(w, "strace.bad_lines", st->bad_lines);
	if (!err && st->unknown_pos)
		err = st_meta_u64(w, "strace.unknown_pos", st->unknown_pos);
	if (!err && st->uring_enters)
		err = st_meta_u64(w, "uring_enters", st->uring_enters);
	if (!err && st->xattr_ops)
		err = st_meta_u64(w, REEL_META_CAPTURE_XATTR_OPS, st->xattr_ops);
	st_pending_clear(&s);
	for (size_t i = 0; cvt_map__next(&s.procs, &i, &k, &v);)
		st_proc_free((struct st_proc *)(uintptr_t)v);
	while (s.aio) {
		struct st_aio *a = s.aio;

		s.aio = a->next;
		free(a);
	}
	cvt_map__free(&s.parent);
	cvt_map__free(&s.files);
	cvt_map__free(&s.seen);
	cvt_map__free(&s.live);
	cvt_map__free(&s.procs);
	cvt_map__free(&s.sizes);
	cvt_map__free(&s.dirs);
	cvt_map__free(&s.ends);
	cvt_map__free(&s.exiting);
	cvt_map__free(&s.exit_line);
	cvt_map__free(&s.exit_status);
	cvt_map__free(&s.forked);
	return err;
}
