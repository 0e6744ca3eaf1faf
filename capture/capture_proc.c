/* SPDX-License-Identifier: MIT */
/*
 * capture_proc.c - what each traced process's fds and cwd refer to, mirrored in user
 * space from the ops themselves (open, dup, close, chdir, fork, exec) and from /proc at
 * attach. The kernel side only sees a path string as the application wrote it; a replay
 * needs the absolute file, and needs it for reads on fds that were opened long ago.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture_int.h"
#include "reel_cvt_util.h"

void capture_procs__init(struct capture_procs *ps)
{
	memset(ps, 0, sizeof(*ps));
}

static void fdtab__clear(struct capture_fdtab *ft)
{
	for (int i = 0; i < ft->nfds; i++) {
		free(ft->fds[i].path);
		for (int j = 0; j < CAPTURE_FD_PREV; j++)
			free(ft->fds[i].prev[j].path);
		ft->fds[i] = (struct capture_fd){ 0 };
	}
}

static void fdtab__put(struct capture_fdtab *ft)
{
	if (!ft || --ft->refs > 0)
		return;
	fdtab__clear(ft);
	free(ft->fds);
	free(ft);
}

static struct capture_fdtab *fdtab__new(void)
{
	struct capture_fdtab *ft = calloc(1, sizeof(*ft));

	if (ft)
		ft->refs = 1;
	return ft;
}

/*
 * Gives p an empty table of its own: the one it shared with another process stays as it is
 * for that process (an exit, an exec or a new fork of one of them does not close the other's
 * fds).
 */
static int proc__private_fdtab(struct capture_proc *p)
{
	struct capture_fdtab *ft;

	if (p->ft->refs == 1) {
		fdtab__clear(p->ft);
		return 0;
	}
	ft = fdtab__new();
	if (!ft)
		return -ENOMEM;
	fdtab__put(p->ft);
	p->ft = ft;
	return 0;
}

static void proc__free(struct capture_proc *p)
{
	free(p->maps);
	fdtab__put(p->ft);
	free(p->cwd);
	free(p->root);
	free(p->exe);
	free(p);
}

void capture_procs__free(struct capture_procs *ps)
{
	for (size_t b = 0; b < sizeof(ps->buckets) / sizeof(ps->buckets[0]); b++) {
		struct capture_proc *p = ps->buckets[b], *next;

		for (; p; p = next) {
			next = p->next;
			proc__free(p);
		}
		ps->buckets[b] = NULL;
	}
}

static unsigned bucket(pid_t pid)
{
	return (unsigned)pid * 2654435761u >> 24;
}

struct capture_proc *capture_procs__get(struct capture_procs *ps, pid_t pid, bool create)
{
	unsigned b = bucket(pid);
	struct capture_proc *p;
	char link[64], buf[PATH_MAX];
	ssize_t n;

	for (p = ps->buckets[b]; p; p = p->next) {
		if (p->pid == pid)
			return p;
	}
	if (!create)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->ft = fdtab__new();
	if (!p->ft) {
		free(p);
		return NULL;
	}
	p->pid = pid;
	p->live = true;
	snprintf(link, sizeof(link), "/proc/%d/cwd", pid);
	n = capture_procfs__readlink(link, buf, sizeof(buf));
	if (n > 0)
		p->cwd = strdup(buf);
	p->cwd_long = n == -ENAMETOOLONG;
	/* chrooted before we looked (postfix's daemons, attached with -p) */
	snprintf(link, sizeof(link), "/proc/%d/root", pid);
	n = capture_procfs__readlink(link, buf, sizeof(buf));
	if (n > 1 && buf[0] == '/')
		p->root = strdup(buf);
	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	n = capture_procfs__readlink(link, buf, sizeof(buf));
	if (n > 0 && buf[0] == '/')
		capture_proc__set_exe(p, capture_path__is_memfd(buf) ? NULL : buf,
				      capture_path__is_memfd(buf));
	p->next = ps->buckets[b];
	ps->buckets[b] = p;
	ps->live++;
	return p;
}

/* fd of another table (a fork's parent's, a table being unshared), f, into p's at fd */
static int fd_copy(struct capture_proc *p, int fd, const struct capture_fd *f)
{
	int err = capture_proc__set_fd(p, fd, f->path, f->kind, f->cloexec);

	if (!err)
		capture_proc__mark(p, fd, f->marks);
	return err;
}

int capture_procs__fork(struct capture_procs *ps, pid_t parent, pid_t child, bool shared_files)
{
	struct capture_proc *pp = capture_procs__get(ps, parent, true);
	struct capture_proc *cp;

	if (!pp)
		return -ENOMEM;
	cp = capture_procs__get(ps, child, false);
	if (cp && cp->live)
		return 0; /* seen already (pid reuse after an exit is handled by exit) */
	if (cp) {
		cp->live = true;
		ps->live++;
	} else {
		cp = capture_procs__get(ps, child, true);
		if (!cp)
			return -ENOMEM;
	}
	/* the child's cwd and fds are its parent's at fork time, whatever /proc says now */
	free(cp->cwd);
	cp->cwd = pp->cwd ? strdup(pp->cwd) : NULL;
	cp->cwd_long = pp->cwd_long;
	free(cp->root);
	cp->root = pp->root ? strdup(pp->root) : NULL;
	if (capture_proc__set_exe(cp, pp->exe, pp->exe_anon))
		return -ENOMEM;
	/* and so are its mappings */
	cp->nmaps = 0;
	for (uint32_t i = 0; i < pp->nmaps; i++)
		if (capture_proc__mapped(cp, pp->maps[i].addr, pp->maps[i].len, pp->maps[i].path))
			return -ENOMEM;
	if (shared_files) {
		pp->ft->refs++;
		fdtab__put(cp->ft);
		cp->ft = pp->ft;
		return 0;
	}
	if (proc__private_fdtab(cp))
		return -ENOMEM;
	for (int i = 0; i < pp->ft->nfds; i++) {
		const struct capture_fd *f = &pp->ft->fds[i];

		if (f->open && fd_copy(cp, i, f))
			return -ENOMEM;
	}
	return 0;
}

/*
 * p's own copy of the table it shares with other processes (clone(CLONE_FILES)), without the
 * close-on-exec fds when drop_cloexec; the others keep the shared one. Out of memory, p keeps
 * sharing it rather than lose its fds.
 */
static int proc__unshare(struct capture_proc *p, bool drop_cloexec)
{
	struct capture_fdtab *shared = p->ft;
	int err = 0;

	if (shared->refs == 1)
		return 0;
	p->ft = fdtab__new();
	if (!p->ft) {
		p->ft = shared;
		return -ENOMEM;
	}
	for (int i = 0; i < shared->nfds; i++) {
		const struct capture_fd *f = &shared->fds[i];

		if (f->open && !(drop_cloexec && f->cloexec) && fd_copy(p, i, f))
			err = -ENOMEM;
	}
	fdtab__put(shared);
	return err;
}

int capture_proc__unshare_fds(struct capture_proc *p)
{
	return proc__unshare(p, false);
}

void capture_procs__exec(struct capture_procs *ps, pid_t pid)
{
	struct capture_proc *p = capture_procs__get(ps, pid, false);

	if (!p)
		return;
	p->nmaps = 0; /* a new address space */
	/* execve unshares a table shared by clone(CLONE_FILES): the copy loses the cloexec fds */
	if (p->ft->refs > 1) {
		proc__unshare(p, true);
		return;
	}
	for (int i = 0; i < p->ft->nfds; i++) {
		if (p->ft->fds[i].open && p->ft->fds[i].cloexec)
			capture_proc__close(p, i);
	}
}

int capture_proc__mapped(struct capture_proc *p, uint64_t addr, uint64_t len, uint32_t path)
{
	if (p->nmaps == p->capmaps) {
		uint32_t cap = p->capmaps ? p->capmaps * 2 : 16;
		struct capture_map *m = realloc(p->maps, cap * sizeof(*m));

		if (!m)
			return -ENOMEM;
		p->maps = m;
		p->capmaps = cap;
	}
	p->maps[p->nmaps++] = (struct capture_map){addr, len, path};
	return 0;
}

bool capture_proc__unmapped(struct capture_proc *p, uint64_t addr, uint64_t len, bool done,
			    uint32_t *path)
{
	bool hit = false;

	for (uint32_t i = p->nmaps; i-- > 0;) {
		const struct capture_map *m = &p->maps[i];

		if (m->addr >= addr + len || addr >= m->addr + m->len)
			continue;
		if (!hit)
			*path = m->path;
		hit = true;
		if (done && addr <= m->addr && m->addr + m->len <= addr + len)
			p->maps[i] = p->maps[--p->nmaps];
	}
	return hit;
}

void capture_procs__exit(struct capture_procs *ps, pid_t pid)
{
	struct capture_proc *p = capture_procs__get(ps, pid, false);

	if (!p || !p->live)
		return;
	p->live = false;
	ps->live--;
	/*
	 * A table shared with a live process stays open for it. Out of memory, p keeps sharing
	 * it: only late events of the dead process could touch it then.
	 */
	proc__private_fdtab(p);
}

/*
 * If path is from or lies beneath from, *out becomes it moved under to (malloc'd): 1. 0 when
 * it does not, -ENOMEM.
 */
static int moved(const char *path, const char *from, const char *to, char **out)
{
	size_t n = strlen(from);

	if (!path || strncmp(path, from, n) || (path[n] && path[n] != '/'))
		return 0;
	/* "/" itself cannot be renamed: from always has a last component */
	if (asprintf(out, "%s%s", to, path + n) < 0)
		return -ENOMEM;
	return 1;
}

static int rename_one(char **path, const char *from, const char *to, bool exchange)
{
	char *s = NULL;
	int r = moved(*path, from, to, &s);

	if (!r && exchange)
		r = moved(*path, to, from, &s);
	if (r <= 0)
		return r;
	free(*path);
	*path = s;
	return 0;
}

int capture_procs__rename(struct capture_procs *ps, const char *from, const char *to, bool exchange)
{
	int err = 0;

	if (*from != '/' || *to != '/' || !strcmp(from, to))
		return 0;
	ps->pass++;
	for (size_t b = 0; b < sizeof(ps->buckets) / sizeof(ps->buckets[0]); b++) {
		for (struct capture_proc *p = ps->buckets[b]; p; p = p->next) {
			struct capture_fdtab *ft = p->ft;

			if (!p->live)
				continue;
			if (!err)
				err = rename_one(&p->cwd, from, to, exchange);
			/* /proc/self/exe follows its file too */
			if (!err)
				err = rename_one(&p->exe, from, to, exchange);
			/* twice would move an exchanged name back */
			if (ft->pass == ps->pass)
				continue;
			ft->pass = ps->pass;
			for (int i = 0; i < ft->nfds && !err; i++) {
				if (ft->fds[i].open)
					err = rename_one(&ft->fds[i].path, from, to, exchange);
			}
		}
	}
	return err;
}

int capture_proc__set_fd(struct capture_proc *p, int fd, const char *path, unsigned kind,
			 bool cloexec)
{
	struct capture_fdtab *ft = p->ft;
	struct capture_fd *f;

	if (fd < 0 || fd > (1 << 24))
		return -EBADF;
	if (fd >= ft->nfds) {
		int n = ft->nfds ? ft->nfds : 64;
		struct capture_fd *fds;

		while (n <= fd)
			n *= 2;
		fds = realloc(ft->fds, n * sizeof(*fds));
		if (!fds)
			return -ENOMEM;
		memset(fds + ft->nfds, 0, (n - ft->nfds) * sizeof(*fds));
		ft->fds = fds;
		ft->nfds = n;
	}
	f = &ft->fds[fd];
	/*
	 * kept for the ops that entered before this binding: see capture_proc__fd_path_at().
	 * A file closed before (closed_ns) is the one they acted on, if not already failed.
	 */
	if (f->open || f->closed_ns) {
		free(f->prev[CAPTURE_FD_PREV - 1].path);
		memmove(&f->prev[1], &f->prev[0], (CAPTURE_FD_PREV - 1) * sizeof(f->prev[0]));
		f->prev[0].path = f->path;
		f->prev[0].bound_ns = f->bound_ns;
		f->prev[0].closed_ns = f->open ? 0 : f->closed_ns;
	} else {
		for (int j = 0; j < CAPTURE_FD_PREV; j++) {
			free(f->prev[j].path);
			f->prev[j] = (struct capture_fd_prev){ 0 };
		}
		free(f->path);
	}
	f->path = path ? strdup(path) : NULL;
	f->kind = kind;
	f->open = true;
	f->cloexec = cloexec;
	f->marks = 0;
	f->bound_ns = 0; /* the caller stamps it when it knows: capture_proc__set_bound() */
	f->closed_ns = 0;
	f->seen_ns = 0;
	return 0;
}

void capture_proc__set_seen(struct capture_proc *p, int fd, uint64_t seen_ns)
{
	struct capture_fd *f = capture_proc__fd(p, fd);

	if (f)
		f->seen_ns = seen_ns;
}

bool capture_proc__seen_other(struct capture_proc *p, int fd, uint64_t enter_ns, unsigned kind)
{
	struct capture_fd *f = capture_proc__fd(p, fd);

	return f && f->seen_ns && enter_ns < f->seen_ns && kind != REEL_FD_UNKNOWN &&
	       f->kind != REEL_FD_UNKNOWN && kind != f->kind;
}

struct capture_fd *capture_proc__fd(struct capture_proc *p, int fd)
{
	if (fd < 0 || fd >= p->ft->nfds || !p->ft->fds[fd].open)
		return NULL;
	return &p->ft->fds[fd];
}

void capture_proc__mark(struct capture_proc *p, int fd, unsigned marks)
{
	struct capture_fd *f = capture_proc__fd(p, fd);

	if (f)
		f->marks |= marks;
}

bool capture_path__is_memfd(const char *link)
{
	return !strncmp(link, "/memfd:", 7);
}

void capture_proc__set_bound(struct capture_proc *p, int fd, uint64_t exit_ns)
{
	struct capture_fd *f = capture_proc__fd(p, fd);

	if (f)
		f->bound_ns = exit_ns;
}

/*
 * Thread X's close(8) and thread Y's open() returning 8 can reach the ring buffer in
 * either order: X may be preempted between releasing fd 8 and its sys_exit probe while
 * Y's open reuses the number and is posted first. Applying X's close then would forget
 * Y's file, and Y's later ops on fd 8 would be named after whatever holds fd 8 when
 * /proc is asked. Causality settles it: to close the file Y opened, a thread must have
 * learnt the number from Y's open, i.e. entered close() after that open returned. A close
 * that entered earlier released the previous occupant and must leave the entry alone.
 */
static struct capture_fd *fd_slot(struct capture_proc *p, int fd)
{
	if (fd < 0 || fd >= p->ft->nfds)
		return NULL;
	return &p->ft->fds[fd];
}

bool capture_proc__closed_before_bound(struct capture_proc *p, int fd, uint64_t close_enter_ns)
{
	struct capture_fd *f = fd_slot(p, fd);

	return f && (f->open || f->closed_ns) && close_enter_ns < f->bound_ns;
}

/*
 * The same race seen from the other side: X's close(8), or any op X entered on fd 8 before
 * Y's open returned 8, acted on the previous occupant, and is named after it. Y may even
 * have closed 8 again before X's event comes (Redis's bio thread closes an unlinked AOF
 * file for tens of ms, while the main thread opens, fsyncs and closes a directory on the
 * number it released): the closed entry still answers for the ops that entered before.
 */
const char *capture_proc__fd_path_at(struct capture_proc *p, int fd, uint64_t enter_ns)
{
	struct capture_fd *f = fd_slot(p, fd);

	if (f && (f->open || f->closed_ns) && enter_ns < f->bound_ns) {
		/* the latest binding before the op entered */
		for (int j = 0; j < CAPTURE_FD_PREV; j++) {
			if (f->prev[j].bound_ns <= enter_ns)
				return f->prev[j].path;
		}
		return NULL;
	}
	if (f && !f->open && f->closed_ns && enter_ns < f->closed_ns)
		return f->path;
	return capture_proc__fd_path(p, fd);
}

/*
 * An op that failed EBADF: the file of the binding it entered in, none when the capture saw
 * that binding closed before it entered (a close, or close_range, of the number), and never
 * /proc's, which names whatever holds the number by the time the event is converted.
 */
const char *capture_proc__fd_path_seen(struct capture_proc *p, int fd, uint64_t enter_ns)
{
	struct capture_fd *f = fd_slot(p, fd);

	if (!f || (!f->open && !f->closed_ns))
		return NULL;
	if (enter_ns >= f->bound_ns)
		return f->open || enter_ns < f->closed_ns ? f->path : NULL;
	for (int j = 0; j < CAPTURE_FD_PREV; j++) {
		const struct capture_fd_prev *b = &f->prev[j];

		if (b->bound_ns <= enter_ns)
			return b->closed_ns && enter_ns >= b->closed_ns ? NULL : b->path;
	}
	return NULL;
}

void capture_proc__close(struct capture_proc *p, int fd)
{
	if (fd < 0 || fd >= p->ft->nfds)
		return;
	free(p->ft->fds[fd].path);
	for (int j = 0; j < CAPTURE_FD_PREV; j++)
		free(p->ft->fds[fd].prev[j].path);
	p->ft->fds[fd] = (struct capture_fd){ 0 };
}

void capture_proc__close_at(struct capture_proc *p, int fd, uint64_t enter_ns)
{
	struct capture_fd *f = capture_proc__fd(p, fd);

	if (!f)
		return;
	f->open = false;
	f->cloexec = false;
	f->closed_ns = enter_ns ? enter_ns : 1;
}

int capture_proc__set_cwd(struct capture_proc *p, const char *path)
{
	char *s = strdup(path);

	if (!s)
		return -ENOMEM;
	free(p->cwd);
	p->cwd = s;
	p->cwd_long = false;
	return 0;
}

void capture_proc__forget_cwd(struct capture_proc *p, bool too_long)
{
	free(p->cwd);
	p->cwd = NULL;
	p->cwd_long = too_long;
}

int capture_proc__set_root(struct capture_proc *p, const char *path)
{
	char *s = NULL;

	if (strcmp(path, "/") && !(s = strdup(path)))
		return -ENOMEM;
	free(p->root);
	p->root = s;
	return 0;
}

int capture_proc__set_exe(struct capture_proc *p, const char *path, bool anon)
{
	char *s = NULL;

	if (path && !(s = strdup(path)))
		return -ENOMEM;
	free(p->exe);
	p->exe = s;
	p->exe_anon = anon;
	return 0;
}

/* fd not in the table, found in /proc: there from now on, with what /proc told (path NULL) */
static void fd_found(struct capture_proc *p, int fd, unsigned kind, unsigned marks)
{
	if (capture_proc__fd(p, fd) || !capture_proc__set_fd(p, fd, NULL, kind, false))
		capture_proc__mark(p, fd, marks);
}

const char *capture_proc__fd_path(struct capture_proc *p, int fd)
{
	struct capture_fd *f = capture_proc__fd(p, fd);
	char link[64], buf[PATH_MAX];
	ssize_t n;

	if (f && (f->path || (f->marks & CAPTURE_FD_LONG)))
		return f->path;
	if (fd < 0)
		return NULL;
	/* opened before we looked, or by a syscall we do not follow: ask /proc, once */
	snprintf(link, sizeof(link), "/proc/%d/fd/%d", p->pid, fd);
	n = capture_procfs__readlink(link, buf, sizeof(buf));
	if (n == -ENAMETOOLONG) {
		fd_found(p, fd, f ? f->kind : REEL_FD_UNKNOWN, CAPTURE_FD_LONG);
		return NULL;
	}
	if (n <= 0 || buf[0] != '/')
		return NULL;
	if (capture_path__is_memfd(buf)) {
		/* no path of a file system: remembered as what it is, its next ops non-file */
		fd_found(p, fd, REEL_FD_OTHER, CAPTURE_FD_ANON);
		return NULL;
	}
	if (f) {
		f->path = strdup(buf);
		return f->path;
	}
	if (capture_proc__set_fd(p, fd, buf, REEL_FD_UNKNOWN, false))
		return NULL;
	return p->ft->fds[fd].path;
}

/* the directory a relative path is resolved against, dirfd's or the cwd, is unknown for
 * being longer than PATH_MAX: so is the path */
static bool base_too_long(struct capture_proc *p, int dirfd)
{
	struct capture_fd *f = capture_proc__fd(p, dirfd);

	return dirfd == AT_FDCWD ? p->cwd_long : f && (f->marks & CAPTURE_FD_LONG);
}

int capture_proc__resolve(struct capture_proc *p, int dirfd, const char *rel, char *out,
			  size_t size)
{
	const char *base;
	int n;

	if (rel[0] == '/' && p->root) {
		/* normalised first, so that "/.." stays at the root, as the kernel keeps it */
		n = snprintf(out, size, "%s", rel);
		if (n < 0 || (size_t)n >= size)
			return -ENAMETOOLONG;
		cvt_normalise_path(out);
		n = strlen(p->root) + (out[1] ? strlen(out) : 0);
		if ((size_t)n >= size)
			return -ENAMETOOLONG;
		if (out[1]) {
			memmove(out + strlen(p->root), out, strlen(out) + 1);
			memcpy(out, p->root, strlen(p->root));
		} else {
			memcpy(out, p->root, strlen(p->root) + 1);
		}
		return 0;
	} else if (rel[0] == '/') {
		n = snprintf(out, size, "%s", rel);
	} else {
		base = dirfd == AT_FDCWD ? p->cwd : capture_proc__fd_path(p, dirfd);
		if (!base)
			return base_too_long(p, dirfd) ? -ENAMETOOLONG : -ENOENT;
		n = snprintf(out, size, "%s/%s", base, rel);
	}
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	cvt_normalise_path(out);
	return 0;
}
