/* SPDX-License-Identifier: MIT */
/*
 * reel_strace.c - import the output of `strace -f -ttt -T -y` (or -yy) as a trace.
 *
 * Two passes over the log. The first learns the process tree: which tid each clone, fork
 * and vfork created and whether it is a thread (CLONE_THREAD), because a child's first
 * lines may come before its parent's clone returns; and which pid the lines without a pid
 * column belong to. The second pass turns calls into ops.
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
 *   annotation, chdir, fchdir), else left as given.
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
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reel_convert.h"
#include "reel_cvt_util.h"
#include "reel_strace_parse.h"

#define ST_AT_FDCWD (-100)
#define ST_O_APPEND 02000
#define ST_O_TRUNC 01000
#define ST_O_DIRECTORY 0200000
#define ST___O_TMPFILE 020000000
#define ST_O_CLOEXEC 02000000
#define ST_O_ACCMODE 3
#define ST_AT_EMPTY_PATH 0x1000
#define ST_AT_SYMLINK_FOLLOW 0x400
#define ST_RWF_APPEND 0x10
#define ST_SEEK_END 2

/* An open file description: what dup and fork share. */
struct st_ofd {
	int refs;
	uint32_t path; /* writer path id, 0 = none */
	char *name;    /* path text, for joining relative paths */
	uint8_t kind;
	uint8_t append;
	uint8_t pos_known;
	uint64_t pos;
};

struct st_mapping {
	uint64_t addr;
	uint64_t len;
	uint32_t path;
	int fd;
	uint8_t kind;
};

/* An fd table: a process's own, or shared by clone(CLONE_FILES) without CLONE_THREAD. */
struct st_fdtab {
	struct cvt_map fds; /* fd -> (uintptr_t)ofd | 1 when close-on-exec */
	int refs;
};

struct st_proc {
	struct st_fdtab *fdt;
	char *cwd;
	struct st_mapping *maps;
	size_t nmaps, capmaps;
};

struct st_pending {
	uint64_t ts;
	char *text;
};

struct st_aio {
	struct st_aio *next;
	uint64_t ctx, data;
	uint8_t subop, kind;
	int fd;
	uint32_t path;
	uint64_t offset, len;
};

struct st_state {
	struct reel_writer *w;
	struct reel_strace_stats *st;
	uint64_t first_ts;
	int have_first;
	long initial;		/* pid of the lines without a pid column */
	struct cvt_map parent;	/* child tid -> parent tid << 1 | is_thread */
	struct cvt_map files;	/* child tid -> 1: a process sharing its parent's fd table */
	struct cvt_map seen;	/* pid column values -> first line number */
	struct cvt_map live;	/* tids alive */
	struct cvt_map pending; /* tid -> struct st_pending * */
	struct cvt_map procs;	/* tgid -> struct st_proc * */
	struct cvt_map sizes;	/* path id -> file size + 1 */
	struct cvt_map dirs;	/* hash of a path known to be a directory -> 1 */
	struct st_aio *aio;	/* in-flight iocbs, oldest first */
	int command_set;
	/* the call being handled */
	uint32_t tgid, tid;
	uint64_t start, end;
	struct st_proc *proc;
};

/* ---- pass 1: the process tree ---- */

static int st_is_clone(const char *name)
{
	return !strcmp(name, "clone") || !strcmp(name, "clone3") || !strcmp(name, "fork") ||
	       !strcmp(name, "vfork");
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
	p->text = strdup(text);
	p->ts = ts;
	return p->text ? 0 : -ENOMEM;
}

/* Joins a resumed line to its first half: malloc'd text, *ts = the first half's time. */
static char *st_pending_take(struct st_state *s, uint64_t tid, const char *rest, uint64_t *ts)
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

		if (p)
			free(p->text);
		free(p);
	}
	cvt_map__free(&s->pending);
	cvt_map__init(&s->pending);
}

static int st_pass1(struct st_state *s, FILE *in)
{
	char *line = NULL, *text;
	size_t cap = 0;
	uint64_t lineno = 0, best = UINT64_MAX, k, v, ts;
	struct stl_line l;
	struct stl_call c;
	int err = 0;

	while (getline(&line, &cap, in) > 0) {
		uint64_t tid;

		lineno++;
		stl_parse_line(line, &l);
		if (l.kind == STL_BAD || l.kind == STL_BLANK)
			continue;
		if (!s->have_first) {
			s->first_ts = l.ts_ns;
			s->have_first = 1;
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
			if (!strncmp(l.text, "clone", 5) || !strncmp(l.text, "fork(", 5) ||
			    !strncmp(l.text, "vfork(", 6)) {
				err = st_pending_put(s, tid, l.ts_ns, l.text);
				if (err)
					break;
			}
			continue;
		}
		if (l.kind == STL_RESUMED) {
			if (!st_is_clone(l.name))
				continue;
			text = st_pending_take(s, tid, l.text, &ts);
		} else if (l.kind == STL_CALL &&
			   (!strncmp(l.text, "clone", 5) || !strncmp(l.text, "fork(", 5) ||
			    !strncmp(l.text, "vfork(", 6))) {
			text = strdup(l.text);
		} else {
			continue;
		}
		if (!text)
			continue;
		if (!stl_parse_call(text, &c) && st_is_clone(c.name) && c.ret_known && c.ret > 0) {
			int thread = c.nargs && strstr(c.args[0], "CLONE_THREAD") != NULL;

			if (!strcmp(c.name, "clone"))
				for (int i = 0; i < c.nargs; i++)
					if (strstr(c.args[i], "CLONE_THREAD"))
						thread = 1;
			uint64_t *pv = cvt_map__put(&s->parent, (uint64_t)c.ret, NULL);

			if (pv)
				*pv = tid << 1 | (uint64_t)thread;
			/* clone's flags=, clone3's {flags=...} */
			for (int i = 0; i < c.nargs && !thread; i++)
				if (strstr(c.args[i], "CLONE_FILES") &&
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
	return 0;
}

static uint32_t st_tgid(struct st_state *s, uint32_t tid)
{
	for (int hops = 0; hops < 64; hops++) {
		uint64_t *v = cvt_map__get(&s->parent, tid);

		if (!v || !(*v & 1) || (*v >> 1) == tid)
			break;
		tid = (uint32_t)(*v >> 1);
	}
	return tid;
}

/* ---- processes, fds, open file descriptions ---- */

static void st_ofd_put(struct st_ofd *o)
{
	if (o && --o->refs <= 0) {
		free(o->name);
		free(o);
	}
}

static struct st_ofd *st_fd_get(struct st_proc *p, int fd, int *cloexec)
{
	uint64_t *v = cvt_map__get(&p->fdt->fds, (uint32_t)fd);

	if (!v)
		return NULL;
	if (cloexec)
		*cloexec = (int)(*v & 1);
	return (struct st_ofd *)(uintptr_t)(*v & ~1ULL);
}

static void st_fd_close(struct st_proc *p, int fd)
{
	struct st_ofd *o = st_fd_get(p, fd, NULL);

	if (o) {
		st_ofd_put(o);
		cvt_map__del(&p->fdt->fds, (uint32_t)fd);
	}
}

static int st_fd_set(struct st_proc *p, int fd, struct st_ofd *o, int cloexec)
{
	uint64_t *v;

	/* take the new reference first: o may be what fd already holds (F_SETFD) */
	o->refs++;
	st_fd_close(p, fd);
	v = cvt_map__put(&p->fdt->fds, (uint32_t)fd, NULL);
	if (!v) {
		o->refs--;
		return -ENOMEM;
	}
	*v = (uintptr_t)o | (cloexec ? 1 : 0);
	return 0;
}

static void st_fdtab_put(struct st_fdtab *t)
{
	uint64_t k, v;

	if (!t || --t->refs > 0)
		return;
	for (size_t i = 0; cvt_map__next(&t->fds, &i, &k, &v);)
		st_ofd_put((struct st_ofd *)(uintptr_t)(v & ~1ULL));
	cvt_map__free(&t->fds);
	free(t);
}

static struct st_fdtab *st_fdtab_new(void)
{
	struct st_fdtab *t = calloc(1, sizeof(*t));

	if (t) {
		cvt_map__init(&t->fds);
		t->refs = 1;
	}
	return t;
}

static void st_proc_free(struct st_proc *p)
{
	st_fdtab_put(p->fdt);
	free(p->cwd);
	free(p->maps);
	free(p);
}

static struct st_proc *st_proc_get(struct st_state *s, uint32_t tgid)
{
	uint64_t *v = cvt_map__put(&s->procs, tgid, NULL), *pv, k, fv;
	struct st_proc *p, *parent = NULL;

	if (!v)
		return NULL;
	if (*v)
		return (struct st_proc *)(uintptr_t)*v;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	/* a forked child starts with its parent's fds (sharing positions) and cwd */
	pv = cvt_map__get(&s->parent, tgid);
	if (pv && !(*pv & 1)) {
		uint64_t *pp = cvt_map__get(&s->procs, st_tgid(s, (uint32_t)(*pv >> 1)));

		parent = pp ? (struct st_proc *)(uintptr_t)*pp : NULL;
	}
	if (parent && parent != p && cvt_map__get(&s->files, tgid)) {
		/* clone(CLONE_FILES): what one opens or closes, the other has or has not */
		p->fdt = parent->fdt;
		p->fdt->refs++;
	} else {
		p->fdt = st_fdtab_new();
	}
	if (!p->fdt) {
		free(p);
		return NULL;
	}
	*v = (uintptr_t)p;
	if (parent && parent != p && p->fdt != parent->fdt) {
		for (size_t i = 0; cvt_map__next(&parent->fdt->fds, &i, &k, &fv);) {
			struct st_ofd *o = (struct st_ofd *)(uintptr_t)(fv & ~1ULL);

			if (st_fd_set(p, (int)k, o, (int)(fv & 1)))
				break;
		}
	}
	if (parent && parent != p && parent->cwd)
		p->cwd = strdup(parent->cwd);
	return p;
}

static int st_path_id(struct st_state *s, const char *path, uint32_t *id)
{
	*id = 0;
	if (!path)
		return 0;
	return reel_writer__path(s->w, path, id);
}

static int st_kind_of_path(const char *p, int hint)
{
	static const char *const blk[] = {"sd",	     "hd",    "vd",   "xvd",	"nvme", "dm-",
					  "mapper/", "loop",  "md",   "mmcblk", "nbd",	"zram",
					  "rbd",     "disk/", "pmem", NULL};

	if (hint == 'c')
		return REEL_FD_CHR;
	if (hint == 'b')
		return REEL_FD_BLK;
	if (*p != '/') {
		/* -y shows what is not a path as "type:[...]" */
		if (!strncmp(p, "pipe:", 5))
			return REEL_FD_FIFO;
		if (!strncmp(p, "anon_inode:", 11))
			return REEL_FD_OTHER;
		if (strstr(p, ":["))
			return REEL_FD_SOCK;
		return REEL_FD_REG;
	}
	if (!strncmp(p, "/dev/", 5)) {
		if (!strncmp(p + 5, "shm/", 4) || !strncmp(p + 5, "hugepages/", 10))
			return REEL_FD_REG;
		for (int i = 0; blk[i]; i++)
			if (!strncmp(p + 5, blk[i], strlen(blk[i])))
				return REEL_FD_BLK;
		return REEL_FD_CHR;
	}
	if (!strncmp(p, "/proc/", 6) || !strcmp(p, "/proc") || !strncmp(p, "/sys/", 5) ||
	    !strcmp(p, "/sys"))
		return REEL_FD_OTHER;
	return REEL_FD_REG;
}

static int st_is_file_kind(int kind)
{
	return kind == REEL_FD_REG || kind == REEL_FD_DIR || kind == REEL_FD_BLK;
}

/*
 * strace -y does not say whether an fd is a directory, and programs open directories
 * without O_DIRECTORY to fsync them (sqlite does). A path that is the parent of another
 * path, a dirfd or the cwd is a directory: remembered by a 64-bit hash of its text.
 */
static uint64_t st_hash(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;
	return h;
}

static void st_note_dir(struct st_state *s, const char *p, size_t n)
{
	while (n > 1 && p[n - 1] == '/')
		n--;
	if (n && *p == '/')
		cvt_map__put(&s->dirs, st_hash(p, n), NULL);
}

static void st_note_parents(struct st_state *s, const char *p)
{
	if (!p || *p != '/')
		return;
	for (const char *q = strchr(p + 1, '/'); q; q = strchr(q + 1, '/'))
		st_note_dir(s, p, (size_t)(q - p));
}

static int st_is_dir(struct st_state *s, const char *p)
{
	size_t n = p ? strlen(p) : 0;

	while (n > 1 && p[n - 1] == '/')
		n--;
	return n && cvt_map__get(&s->dirs, st_hash(p, n)) != NULL;
}

static void st_strip_deleted(char *p)
{
	size_t n = strlen(p);

	if (n > 10 && !strcmp(p + n - 10, " (deleted)"))
		p[n - 10] = 0;
}

/* The ofd of an fd argument; from the -y annotation when the fd was opened before. */
static struct st_ofd *st_fd_arg(struct st_state *s, char *arg, int *fd, int *err)
{
	char *ann;
	int hint;
	struct st_ofd *o;

	*err = 0;
	if (stl_fd_arg(arg, fd, &ann, &hint))
		return NULL;
	o = st_fd_get(s->proc, *fd, NULL);
	if (ann)
		st_strip_deleted(ann);
	if (o && ann && (!o->name || strcmp(o->name, ann))) {
		/* renamed since it was opened, or a close we never saw: believe the kernel */
		char *n = strdup(ann);

		if (!n) {
			*err = -ENOMEM;
			return NULL;
		}
		free(o->name);
		o->name = n;
		*err = st_path_id(s, n, &o->path);
		o->kind = o->kind == REEL_FD_DIR && st_kind_of_path(n, hint) == REEL_FD_REG
			      ? REEL_FD_DIR
			      : (uint8_t)st_kind_of_path(n, hint);
	}
	if (o && o->kind == REEL_FD_REG && st_is_dir(s, o->name))
		o->kind = REEL_FD_DIR;
	if (o || !ann || *fd < 0)
		return o;
	o = calloc(1, sizeof(*o));
	if (!o || !(o->name = strdup(ann))) {
		free(o);
		*err = -ENOMEM;
		return NULL;
	}
	o->kind = (uint8_t)st_kind_of_path(ann, hint);
	if (o->kind == REEL_FD_REG && st_is_dir(s, ann))
		o->kind = REEL_FD_DIR;
	st_note_parents(s, ann);
	*err = st_path_id(s, o->name, &o->path);
	if (!*err)
		*err = st_fd_set(s->proc, *fd, o, 0);
	if (*err) {
		free(o->name);
		free(o);
		return NULL;
	}
	return o;
}

static char *st_resolve_raw(struct st_state *s, int dirfd, const char *dirann, const char *path);

/*
 * path joined to the dirfd's path / cwd, "." and ".." taken out as the capturer does; malloc'd.
 */
static char *st_resolve(struct st_state *s, int dirfd, const char *dirann, const char *path)
{
	char *out = st_resolve_raw(s, dirfd, dirann, path);

	if (out)
		cvt_normalise_path(out);
	return out;
}

static char *st_resolve_raw(struct st_state *s, int dirfd, const char *dirann, const char *path)
{
	const char *base = NULL;
	char *out;

	if (!path)
		return NULL;
	if (*path == '/')
		return strdup(path);
	if (dirfd == ST_AT_FDCWD) {
		base = dirann ? dirann : s->proc->cwd;
	} else if (dirann) {
		base = dirann;
	} else {
		struct st_ofd *o = st_fd_get(s->proc, dirfd, NULL);

		base = o ? o->name : NULL;
	}
	if (!base)
		return strdup(path);
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	if (!*path || !strcmp(path, "."))
		return strdup(base);
	st_note_dir(s, base, strlen(base)); /* a name was looked up in it */
	out = malloc(strlen(base) + strlen(path) + 2);
	if (out)
		sprintf(out, "%s%s%s", base, base[strlen(base) - 1] == '/' ? "" : "/", path);
	return out;
}

/* A dirfd argument: fd and its annotation (also learns the cwd from AT_FDCWD</cwd>). */
static void st_dirfd_arg(struct st_state *s, char *arg, int *fd, char **ann)
{
	int hint;

	if (stl_fd_arg(arg, fd, ann, &hint)) {
		*fd = ST_AT_FDCWD;
		*ann = NULL;
		return;
	}
	if (*fd == ST_AT_FDCWD && *ann)
		st_note_dir(s, *ann, strlen(*ann));
	if (*fd == ST_AT_FDCWD && *ann && (!s->proc->cwd || strcmp(s->proc->cwd, *ann))) {
		free(s->proc->cwd);
		s->proc->cwd = strdup(*ann);
	}
}

static uint64_t *st_size_slot(struct st_state *s, uint32_t path)
{
	return path ? cvt_map__put(&s->sizes, path, NULL) : NULL;
}

static void st_size_set(struct st_state *s, uint32_t path, uint64_t size)
{
	uint64_t *v = st_size_slot(s, path);

	if (v)
		*v = size + 1;
}

static void st_size_grow(struct st_state *s, uint32_t path, uint64_t end)
{
	uint64_t *v = st_size_slot(s, path);

	if (v && end + 1 > *v)
		*v = end + 1;
}

/* st_size= (stat) or stx_size= (statx) in a struct argument, for a regular file. */
static void st_size_from_stat(struct st_state *s, uint32_t path, const char *buf)
{
	const char *v = stl_field(buf, "st_size");

	if (!v)
		v = stl_field(buf, "stx_size");
	if (v && path && (strstr(buf, "S_IFREG") || !strstr(buf, "S_IF")))
		st_size_set(s, path, strtoull(v, NULL, 0));
}

/* ---- emitting ops ---- */

static void st_op_init(struct st_state *s, struct reel_op *op, int type, const struct stl_call *c)
{
	memset(op, 0, sizeof(*op));
	op->type = (uint16_t)type;
	op->pid = s->tgid;
	op->tid = s->tid;
	op->fd = -1;
	op->fd2 = -1;
	op->ret = c->ret;
	op->start_ns = s->start;
	op->end_ns = s->end;
}

/* An op written whatever its fd's kind: the caller decided that it is storage work. */
static int st_emit_any(struct st_state *s, struct reel_op *op, int kind)
{
	int err;

	op->fd_kind = (uint8_t)kind;
	err = reel_writer__add(s->w, op);
	if (!err)
		s->st->ops++;
	return err;
}

/*
 * An op on a non-file is left out; one that failed on an fd that was not open (strace -y
 * names every open fd) is kept, as the capturer keeps it: it is part of what the
 * application did, and fails the same way in a replay.
 */
static int st_emit(struct st_state *s, struct reel_op *op, int kind)
{
	if (kind == REEL_FD_UNKNOWN && op->ret == -EBADF)
		return st_emit_any(s, op, kind);
	if (!st_is_file_kind(kind)) {
		s->st->nonfile_ops++;
		return 0;
	}
	return st_emit_any(s, op, kind);
}

static void st_op_fd(struct reel_op *op, int fd, const struct st_ofd *o)
{
	op->fd = fd;
	if (o)
		op->path = o->path;
}

static int st_ofd_kind(const struct st_ofd *o)
{
	return o ? o->kind : REEL_FD_UNKNOWN;
}

/* Argument i, or "" when the call has fewer: missing arguments read as empty. */
static char *st_arg(const struct stl_call *c, int i)
{
	static char none[1];

	none[0] = 0;
	return i < c->nargs ? c->args[i] : none;
}

/* open, openat, openat2, creat */
static int st_do_open(struct st_state *s, struct stl_call *c, int type)
{
	struct reel_op op;
	int dirfd = ST_AT_FDCWD, pi = 0, kind, err;
	char *dirann = NULL, *path, *resolved;
	uint64_t flags = 0, mode = 0;
	struct st_ofd *o;

	st_op_init(s, &op, type, c);
	if (type == REEL_OP_OPENAT || type == REEL_OP_OPENAT2) {
		st_dirfd_arg(s, c->args[0], &dirfd, &dirann);
		op.fd = dirfd;
		pi = 1;
	}
	path = stl_str_arg(c->args[pi]);
	if (type == REEL_OP_CREAT) {
		flags = 0100 | 01 | ST_O_TRUNC; /* O_CREAT|O_WRONLY|O_TRUNC */
		mode = (uint64_t)stl_int_arg(st_arg(c, pi + 1));
	} else if (type == REEL_OP_OPENAT2) {
		const char *f = stl_field(st_arg(c, pi + 1), "flags");
		const char *m = stl_field(st_arg(c, pi + 1), "mode");

		flags = f ? stl_flags_arg(f, stl_open_flags) : 0;
		mode = m ? (uint64_t)stl_int_arg(m) : 0;
	} else {
		flags = stl_flags_arg(st_arg(c, pi + 1), stl_open_flags);
		mode = (uint64_t)stl_int_arg(st_arg(c, pi + 2));
	}
	if (c->ret >= 0 && c->ret_ann) {
		st_strip_deleted(c->ret_ann);
		resolved = strdup(c->ret_ann);
		kind = st_kind_of_path(resolved ? resolved : "", c->ret_kind_hint);
	} else {
		resolved = st_resolve(s, dirfd, dirann, path);
		kind = st_kind_of_path(resolved ? resolved : "", 0);
	}
	if (!resolved)
		return -ENOMEM;
	st_note_parents(s, resolved);
	/* O_TMPFILE carries O_DIRECTORY's bit, but opens a new regular file */
	if (kind == REEL_FD_REG &&
	    (((flags & ST_O_DIRECTORY) && !(flags & ST___O_TMPFILE)) || st_is_dir(s, resolved)))
		kind = REEL_FD_DIR;
	op.flags = (uint32_t)flags;
	op.mode = (uint32_t)mode;
	err = st_path_id(s, resolved, &op.path);
	if (!err && c->ret >= 0) {
		o = calloc(1, sizeof(*o));
		if (!o) {
			err = -ENOMEM;
		} else {
			o->name = resolved;
			resolved = NULL;
			o->path = op.path;
			o->kind = (uint8_t)kind;
			o->append = !!(flags & ST_O_APPEND);
			o->pos_known = 1;
			err = st_fd_set(s->proc, (int)c->ret, o, !!(flags & ST_O_CLOEXEC));
			if (err) {
				free(o->name);
				free(o);
			}
			if (!err && (flags & ST_O_TRUNC) && (flags & ST_O_ACCMODE))
				st_size_set(s, op.path, 0);
		}
	}
	free(resolved);
	if (err)
		return err;
	return st_emit(s, &op, kind);
}

static int st_do_close(struct st_state *s, struct stl_call *c)
{
	struct reel_op op;
	int fd, err;
	struct st_ofd *o = st_fd_arg(s, c->args[0], &fd, &err);

	if (err)
		return err;
	st_op_init(s, &op, REEL_OP_CLOSE, c);
	st_op_fd(&op, fd, o);
	err = st_emit(s, &op, o ? o->kind : REEL_FD_UNKNOWN);
	st_fd_close(s->proc, fd);
	return err;
}

/*
 * close_range(first, last, flags): not an op, but it closes the fds in the range, or with
 * CLOSE_RANGE_CLOEXEC marks them close-on-exec. Left out, the ops that then fail on those
 * fds would be named after the files they no longer hold, and an execve would keep them.
 */
static int st_do_close_range(struct st_state *s, struct stl_call *c)
{
	uint64_t lo, hi, k, v;

	if (c->ret != 0 || c->nargs < 3)
		return 0;
	/* unsigned int: strace shows ~0U as 4294967295 */
	lo = (uint32_t)stl_int_arg(c->args[0]);
	hi = (uint32_t)stl_int_arg(c->args[1]);
	for (size_t i = 0; cvt_map__next(&s->proc->fdt->fds, &i, &k, &v);) {
		if (k < lo || k > hi)
			continue;
		if (strstr(c->args[2], "CLOSE_RANGE_CLOEXEC"))
			*cvt_map__get(&s->proc->fdt->fds, k) = v | 1;
		else
			st_fd_close(s->proc, (int)k);
	}
	return 0;
}

/* Sum of iov_len in an iovec array; *partial when strace cut the array short. */
static uint64_t st_iov_len(const char *arr, int *partial)
{
	uint64_t sum = 0;

	for (const char *p = stl_field(arr, "iov_len"); p; p = stl_field(p, "iov_len"))
		sum += strtoull(p, NULL, 0);
	*partial = strstr(arr, "}, ...]") != NULL || strstr(arr, "...]") != NULL;
	return sum;
}

/* read, write and their p/v/2 forms */
static int st_do_rw(struct st_state *s, struct stl_call *c, int type)
{
	int vec = type == REEL_OP_READV || type == REEL_OP_PREADV || type == REEL_OP_PREADV2 ||
		  type == REEL_OP_WRITEV || type == REEL_OP_PWRITEV || type == REEL_OP_PWRITEV2;
	int positioned = type == REEL_OP_PREAD64 || type == REEL_OP_PWRITE64 ||
			 type == REEL_OP_PREADV || type == REEL_OP_PREADV2 ||
			 type == REEL_OP_PWRITEV || type == REEL_OP_PWRITEV2;
	int is_write = reel_op__is_write(type);
	struct reel_op op;
	int fd, err, partial = 0;
	struct st_ofd *o = st_fd_arg(s, c->args[0], &fd, &err);
	int64_t off = -1;

	if (err)
		return err;
	st_op_init(s, &op, type, c);
	st_op_fd(&op, fd, o);
	if (vec) {
		op.len = st_iov_len(st_arg(c, 1), &partial);
		if (partial && c->ret > 0 && (uint64_t)c->ret > op.len)
			op.len = (uint64_t)c->ret;
	} else {
		op.len = (uint64_t)stl_int_arg(st_arg(c, 2));
	}
	if (positioned)
		off = stl_int_arg(st_arg(c, 3));
	if (type == REEL_OP_PREADV2 || type == REEL_OP_PWRITEV2)
		op.flags = (uint32_t)stl_flags_arg(st_arg(c, 4), stl_rwf_flags);
	if (!o || !st_is_file_kind(o->kind))
		return st_emit(s, &op, st_ofd_kind(o));
	/* preadv2/pwritev2 with offset -1 use and move the file position, as read/write */
	if (off < 0) {
		uint64_t *size = st_size_slot(s, o->path);

		if (is_write && (o->append || (op.flags & ST_RWF_APPEND)) && size && *size)
			o->pos = *size - 1;
		else if (!o->pos_known)
			s->st->unknown_pos++;
		op.offset = o->pos;
		if (c->ret > 0) {
			o->pos += (uint64_t)c->ret;
			o->pos_known = 1;
		}
	} else {
		op.offset = (uint64_t)off;
	}
	if (is_write && c->ret > 0)
		st_size_grow(s, o->path, op.offset + (uint64_t)c->ret);
	return st_emit(s, &op, o->kind);
}

static int st_do_lseek(struct st_state *s, struct stl_call *c)
{
	struct reel_op op;
	int fd, err;
	struct st_ofd *o = st_fd_arg(s, c->args[0], &fd, &err);

	if (err)
		return err;
	st_op_init(s, &op, REEL_OP_LSEEK, c);
	st_op_fd(&op, fd, o);
	op.offset = (uint64_t)stl_int_arg(st_arg(c, 1));
	op.mode = (uint32_t)stl_flags_arg(st_arg(c, 2), stl_seek);
	if (o && c->ret >= 0) {
		o->pos = (uint64_t)c->ret;
		o->pos_known = 1;
		if (op.mode == ST_SEEK_END)
			st_size_set(s, o->path, (uint64_t)c->ret - op.offset);
	}
	return st_emit(s, &op, st_ofd_kind(o));
}

/* A mode argument: strace prints 0644, or S_ISUID|S_ISGID|S_ISVTX|0755. */
static uint32_t st_mode_arg(const char *arg)
{
	static const struct stl_sym bits[] = {
	    {"S_ISUID", 04000}, {"S_ISGID", 02000}, {"S_ISVTX", 01000}, {NULL, 0}};

	return (uint32_t)stl_flags_arg(arg, bits);
}

/* A uid or gid argument: strace prints -1 (leave unchanged) as -1; stored as the u32. */
static uint64_t st_id_arg(const char *arg)
{
	return (uint32_t)stl_int_arg(arg);
}

/* fsync, fdatasync, syncfs, sync_file_range, fallocate, ftruncate, fadvise64, getdents64,
 * fstat, fchmod, fchown: an fd and a few numbers */
static int st_do_fdop(struct st_state *s, struct stl_call *c, int type)
{
	struct reel_op op;
	int fd, err;
	struct st_ofd *o = st_fd_arg(s, c->args[0], &fd, &err);

	if (err)
		return err;
	st_op_init(s, &op, type, c);
	st_op_fd(&op, fd, o);
	switch (type) {
	case REEL_OP_SYNC_FILE_RANGE:
		op.offset = (uint64_t)stl_int_arg(st_arg(c, 1));
		op.len = (uint64_t)stl_int_arg(st_arg(c, 2));
		op.flags = (uint32_t)stl_flags_arg(st_arg(c, 3), stl_sfr_flags);
		break;
	case REEL_OP_FALLOCATE:
		op.mode = (uint32_t)stl_flags_arg(st_arg(c, 1), stl_falloc);
		op.offset = (uint64_t)stl_int_arg(st_arg(c, 2));
		op.len = (uint64_t)stl_int_arg(st_arg(c, 3));
		if (o && c->ret == 0 && !(op.mode & 3)) /* not KEEP_SIZE nor PUNCH_HOLE */
			st_size_grow(s, o->path, op.offset + op.len);
		break;
	case REEL_OP_FTRUNCATE:
		op.len = (uint64_t)stl_int_arg(st_arg(c, 1));
		if (o && c->ret == 0)
			st_size_set(s, o->path, op.len);
		break;
	case REEL_OP_FADVISE64:
		op.offset = (uint64_t)stl_int_arg(st_arg(c, 1));
		op.len = (uint64_t)stl_int_arg(st_arg(c, 2));
		op.mode = (uint32_t)stl_flags_arg(st_arg(c, 3), stl_fadv);
		break;
	case REEL_OP_GETDENTS64:
		op.len = (uint64_t)stl_int_arg(st_arg(c, 2));
		if (o && o->kind == REEL_FD_REG)
			o->kind = REEL_FD_DIR;
		break;
	case REEL_OP_FCHMOD:
		op.mode = st_mode_arg(st_arg(c, 1));
		break;
	case REEL_OP_FCHOWN:
		op.aux = st_id_arg(st_arg(c, 1));
		op.ctx = st_id_arg(st_arg(c, 2));
		break;
	case REEL_OP_FSTAT:
		if (o && c->ret == 0) {
			st_size_from_stat(s, o->path, st_arg(c, 1));
			if (strstr(st_arg(c, 1), "S_IFDIR"))
				o->kind = REEL_FD_DIR;
		}
		break;
	}
	return st_emit(s, &op, st_ofd_kind(o));
}

/*
 * What a successful readlink(at) read (FORMAT.md: path2): the buffer argument bi, kept as
 * given like a symlink's content. strace cuts a string longer than -s (32 by default) and
 * marks the cut with "..." after the closing quote: then, or when the string is not ret
 * bytes long, the content is unknown (0), never a wrong one.
 */
/* a string argument strace cut at its -s length: "abc"... */
static int st_str_cut(const char *arg)
{
	size_t n = strlen(arg);

	return n >= 4 && !strcmp(arg + n - 4, "\"...");
}

static int st_readlink_content(struct st_state *s, struct stl_call *c, int bi, uint32_t *id)
{
	char *arg = st_arg(c, bi), *content;

	*id = 0;
	if (c->ret <= 0 || st_str_cut(arg))
		return 0;
	content = stl_str_arg(arg);
	if (!content || (int64_t)strlen(content) != c->ret)
		return 0;
	return st_path_id(s, content, id);
}

/*
 * A path op's "/proc/self/fd/N[/rest]" (or of the process's own pid) that the op follows
 * names fd N's file (+ rest), as the capturer records it (capture_conv.c, proc_fd_path):
 * tar x chmods each directory through "/proc/self/fd/N" of an O_PATH fd, which as a /proc
 * path was left out as non-file I/O. A component before the last is always followed; the
 * last one as the op says. Returns the path to use (path itself, or it freed and a new one)
 * and sets *kind to the fd's when the path is that file.
 */
static char *st_proc_fd_path(struct st_state *s, int type, uint32_t flags, char *path,
			     int *kind)
{
	const char *rest;
	int n = cvt_proc_fd(path, s->tgid, &rest), follow;
	struct st_ofd *f;
	char *out;

	if (n < 0)
		return path;
	switch (type) {
	case REEL_OP_STAT:
	case REEL_OP_ACCESS:
	case REEL_OP_TRUNCATE:
	case REEL_OP_CHMOD:
	case REEL_OP_CHOWN:
		follow = 1;
		break;
	case REEL_OP_NEWFSTATAT:
	case REEL_OP_STATX:
	case REEL_OP_FACCESSAT:
	case REEL_OP_FCHMODAT:
	case REEL_OP_FCHOWNAT:
	case REEL_OP_UTIMENSAT:
		follow = !(flags & 0x100); /* AT_SYMLINK_NOFOLLOW */
		break;
	default:
		follow = 0;
	}
	f = st_fd_get(s->proc, n, NULL);
	if ((!*rest && !follow) || !f || !f->name || *f->name != '/')
		return path;
	out = malloc(strlen(f->name) + strlen(rest) + 1);
	if (!out)
		return path;
	sprintf(out, "%s%s", f->name, rest);
	*kind = *rest ? st_kind_of_path(out, 0) : st_ofd_kind(f);
	free(path);
	return out;
}

/*
 * Path ops. di: index of the dirfd argument or -1; pi: the path; the rest by type.
 * stat, lstat, newfstatat, statx, access, faccessat(2), unlink(at), mkdir(at), rmdir,
 * truncate, chmod, fchmodat(2), chown, lchown, fchownat, utimensat, readlink(at).
 */
static int st_do_pathop(struct st_state *s, struct stl_call *c, int type, int di, int pi)
{
	struct reel_op op;
	int dirfd = ST_AT_FDCWD, kind, err;
	char *dirann = NULL, *path, *resolved = NULL;
	struct st_ofd *o = NULL;

	st_op_init(s, &op, type, c);
	if (di >= 0) {
		st_dirfd_arg(s, c->args[di], &dirfd, &dirann);
		op.fd = dirfd;
	}
	path = stl_str_arg(c->args[pi]);
	switch (type) {
	case REEL_OP_NEWFSTATAT:
		op.flags = (uint32_t)stl_flags_arg(st_arg(c, 3), stl_at_flags);
		break;
	case REEL_OP_STATX:
		op.flags = (uint32_t)stl_flags_arg(st_arg(c, 2), stl_at_flags);
		op.mode = (uint32_t)stl_flags_arg(st_arg(c, 3), stl_statx_mask); /* FORMAT.md */
		break;
	case REEL_OP_ACCESS:
		op.mode = (uint32_t)stl_flags_arg(st_arg(c, 1), stl_access_modes);
		break;
	case REEL_OP_FACCESSAT:
		op.mode = (uint32_t)stl_flags_arg(st_arg(c, 2), stl_access_modes);
		op.flags = (uint32_t)stl_flags_arg(st_arg(c, 3), stl_at_flags);
		break;
	case REEL_OP_UNLINKAT:
		op.flags = (uint32_t)stl_flags_arg(st_arg(c, 2), stl_at_flags);
		break;
	case REEL_OP_MKDIR:
		op.mode = (uint32_t)stl_int_arg(st_arg(c, 1));
		break;
	case REEL_OP_MKDIRAT:
		op.mode = (uint32_t)stl_int_arg(st_arg(c, 2));
		break;
	case REEL_OP_TRUNCATE:
		op.len = (uint64_t)stl_int_arg(st_arg(c, 1));
		break;
	case REEL_OP_CHMOD:
		op.mode = st_mode_arg(st_arg(c, 1));
		break;
	case REEL_OP_FCHMODAT:
		/* fchmodat has no flags argument; fchmodat2 (recorded as fchmodat) has */
		op.mode = st_mode_arg(st_arg(c, 2));
		op.flags = (uint32_t)stl_flags_arg(st_arg(c, 3), stl_at_flags);
		break;
	case REEL_OP_CHOWN:
	case REEL_OP_LCHOWN:
		op.aux = st_id_arg(st_arg(c, 1));
		op.ctx = st_id_arg(st_arg(c, 2));
		break;
	case REEL_OP_FCHOWNAT:
		op.aux = st_id_arg(st_arg(c, 2));
		op.ctx = st_id_arg(st_arg(c, 3));
		op.flags = (uint32_t)stl_flags_arg(st_arg(c, 4), stl_at_flags);
		break;
	case REEL_OP_UTIMENSAT:
		op.flags = (uint32_t)stl_flags_arg(st_arg(c, 3), stl_at_flags);
		break;
	case REEL_OP_READLINK:
		op.len = (uint64_t)stl_int_arg(st_arg(c, 2));
		break;
	case REEL_OP_READLINKAT:
		op.len = (uint64_t)stl_int_arg(st_arg(c, 3));
		break;
	}
	/* the kernel ignores AT_EMPTY_PATH with a path; in a trace it means "on the fd itself" */
	if (path && *path)
		op.flags &= ~ST_AT_EMPTY_PATH;
	if (type == REEL_OP_UTIMENSAT && !path && di >= 0) {
		/* utimensat(fd, NULL, ...) is futimens: the file is the fd's, and AT_EMPTY_PATH
		 * tells it from a path relative to a dirfd (FORMAT.md) */
		o = st_fd_arg(s, c->args[di], &dirfd, &err);
		if (err)
			return err;
		op.fd = dirfd;
		op.flags |= ST_AT_EMPTY_PATH;
		op.path = o ? o->path : 0;
		return st_emit(s, &op, st_ofd_kind(o));
	}
	if (path && !*path && (op.flags & ST_AT_EMPTY_PATH) && dirfd >= 0) {
		/* fstat as glibc does it: the file is the fd's (see the top of this file) */
		o = st_fd_arg(s, c->args[di], &dirfd, &err);
		if (err)
			return err;
		if (type == REEL_OP_NEWFSTATAT)
			op.type = REEL_OP_FSTAT;
		if (o) {
			op.path = o->path;
			if (c->ret == 0 &&
			    strstr(st_arg(c, type == REEL_OP_STATX ? 4 : 2), "S_IFDIR"))
				o->kind = REEL_FD_DIR;
		}
		kind = st_ofd_kind(o);
	} else {
		resolved = st_resolve(s, dirfd, dirann, path);
		if (!resolved)
			return path ? -ENOMEM : 0;
		kind = st_kind_of_path(resolved, 0);
		resolved = st_proc_fd_path(s, type, op.flags, resolved, &kind);
		st_note_parents(s, resolved);
		err = st_path_id(s, resolved, &op.path);
		free(resolved);
		if (err)
			return err;
		if (type == REEL_OP_MKDIR || type == REEL_OP_MKDIRAT || type == REEL_OP_RMDIR ||
		    (type == REEL_OP_UNLINKAT && (op.flags & 0x200)))
			kind = kind == REEL_FD_REG ? REEL_FD_DIR : kind;
	}
	if (type == REEL_OP_READLINK || type == REEL_OP_READLINKAT) {
		err = st_readlink_content(s, c, type == REEL_OP_READLINK ? 1 : 2, &op.path2);
		if (err)
			return err;
	}
	if (c->ret == 0) {
		if (type == REEL_OP_TRUNCATE)
			st_size_set(s, op.path, op.len);
		else if (type == REEL_OP_STAT || type == REEL_OP_LSTAT)
			st_size_from_stat(s, op.path, st_arg(c, 1));
		else if (type == REEL_OP_NEWFSTATAT)
			st_size_from_stat(s, op.path, st_arg(c, 2));
		else if (type == REEL_OP_STATX)
			st_size_from_stat(s, op.path, st_arg(c, 4));
	}
	return st_emit(s, &op, kind);
}

/*
 * N of "/proc/self/fd/N" (or of the process's own pid), else -1: linkat of it with
 * AT_SYMLINK_FOLLOW is open(2)'s way to give an O_TMPFILE file a name, a link from fd N.
 */
static int st_proc_fd(const struct st_state *s, const char *p)
{
	const char *rest;
	int n = cvt_proc_fd(p, s->tgid, &rest);

	return n >= 0 && !*rest ? n : -1;
}

/*
 * linkat from an fd itself (FORMAT.md: AT_EMPTY_PATH in flags, fd the fd, path its file):
 * with AT_EMPTY_PATH and "", or through "/proc/self/fd/N" with AT_SYMLINK_FOLLOW, which the
 * replay could not reach but links the same file.
 */
static int st_do_flink(struct st_state *s, struct reel_op *op, int fd, struct st_ofd *f,
		       const char *n)
{
	int err;

	op->fd = fd;
	op->path = f ? f->path : 0;
	op->flags = (op->flags & ~ST_AT_SYMLINK_FOLLOW) | ST_AT_EMPTY_PATH;
	err = st_path_id(s, n, &op->path2);
	return err ? err : st_emit(s, op, st_ofd_kind(f));
}

/* rename, renameat(2), link, linkat: two dirfd + path pairs */
static int st_do_rename(struct st_state *s, struct stl_call *c, int type)
{
	struct reel_op op;
	int ofd = ST_AT_FDCWD, nfd = ST_AT_FDCWD, err, from;
	int at = type != REEL_OP_RENAME && type != REEL_OP_LINK;
	char *oann = NULL, *nann = NULL, *o, *n, *arg;

	st_op_init(s, &op, type, c);
	if (at) {
		st_dirfd_arg(s, c->args[0], &ofd, &oann);
		st_dirfd_arg(s, st_arg(c, 2), &nfd, &nann);
		op.fd = ofd;
		op.fd2 = nfd;
	}
	arg = stl_str_arg(c->args[at ? 1 : 0]);
	o = st_resolve(s, ofd, oann, arg);
	n = st_resolve(s, nfd, nann, stl_str_arg(st_arg(c, at ? 3 : 1)));
	if (type == REEL_OP_RENAMEAT2)
		op.flags = (uint32_t)stl_flags_arg(st_arg(c, 4), stl_rename_flags);
	else if (type == REEL_OP_LINKAT)
		op.flags = (uint32_t)stl_flags_arg(st_arg(c, 4), stl_at_flags);
	err = o && n ? 0 : -ENOMEM;
	if (!err && type == REEL_OP_LINKAT) {
		struct st_ofd *f = NULL;

		from = -1;
		if ((op.flags & ST_AT_EMPTY_PATH) && arg && !*arg && ofd >= 0)
			f = st_fd_arg(s, c->args[0], &from, &err);
		else if ((op.flags & ST_AT_SYMLINK_FOLLOW) && (from = st_proc_fd(s, o)) >= 0)
			f = st_fd_get(s->proc, from, NULL);
		/* the kernel ignores AT_EMPTY_PATH with a path: not a link from the fd */
		op.flags &= ~ST_AT_EMPTY_PATH;
		if (!err && from >= 0)
			err = st_do_flink(s, &op, from, f, n);
		if (err || from >= 0) {
			free(o);
			free(n);
			return err;
		}
	}
	if (!err)
		err = st_path_id(s, o, &op.path);
	if (!err)
		err = st_path_id(s, n, &op.path2);
	if (!err)
		err = st_emit(s, &op, st_kind_of_path(o, 0));
	free(o);
	free(n);
	return err;
}

/* symlink(content, link), symlinkat(content, dirfd, link) */
static int st_do_symlink(struct st_state *s, struct stl_call *c, int type)
{
	struct reel_op op;
	int dirfd = ST_AT_FDCWD, err, at = type == REEL_OP_SYMLINKAT, cut;
	char *dirann = NULL, *content, *link;

	st_op_init(s, &op, type, c);
	if (at) {
		st_dirfd_arg(s, c->args[1], &dirfd, &dirann);
		op.fd = dirfd;
	}
	/* the content goes in as given: it is resolved against the link's directory only
	 * when it is followed, and then maybe somewhere else (FORMAT.md, "Copies") */
	/* a content strace cut short ("..."...: longer than its -s) is not the link's: none,
	 * rather than a link that leads somewhere else (checked before unescaping, in place) */
	cut = st_str_cut(st_arg(c, 0));
	content = stl_str_arg(c->args[0]);
	link = st_resolve(s, dirfd, dirann, stl_str_arg(st_arg(c, at ? 2 : 1)));
	if (!link)
		return -ENOMEM;
	st_note_parents(s, link);
	err = st_path_id(s, link, &op.path);
	if (!err && !cut)
		err = st_path_id(s, content, &op.path2);
	if (!err)
		err = st_emit(s, &op, st_kind_of_path(link, 0));
	free(link);
	return err;
}

/*
 * An offset pointer of copy_file_range or sendfile: 0 for NULL, else 1 with *val the value
 * it held on entry. strace prints "[100]", and for sendfile "[100] => [4196]" (in, out).
 * An address strace could not read ("0x7ffd...") is a pointer of unknown value: *val = 0.
 */
static int st_offptr_arg(const char *arg, uint64_t *val)
{
	*val = 0;
	if (!strcmp(arg, "NULL"))
		return 0;
	if (*arg == '[')
		*val = strtoull(arg + 1, NULL, 0);
	return 1;
}

/*
 * copy_file_range(fd_in, off_in, fd_out, off_out, len, flags) and sendfile(out_fd, in_fd,
 * offset, count). Where an offset pointer is NULL the kernel uses and advances that fd's
 * file position, by the bytes moved; with a pointer it advances the pointed value and
 * leaves the position alone. sendfile to a socket or a pipe has no position written (aux
 * 0); its destination's kind goes in mode, so that a reader knows whether it wrote a file.
 */
static int st_do_copy(struct st_state *s, struct stl_call *c, int type)
{
	int cfr = type == REEL_OP_COPY_FILE_RANGE;
	struct reel_op op;
	struct st_ofd *in, *out;
	int ifd, ofd, err, in_ptr, out_ptr = 1, out_file, in_file;
	uint64_t in_off, out_off = 0;

	in = st_fd_arg(s, c->args[cfr ? 0 : 1], &ifd, &err);
	if (err)
		return err;
	out = st_fd_arg(s, c->args[cfr ? 2 : 0], &ofd, &err);
	if (err)
		return err;
	st_op_init(s, &op, type, c);
	st_op_fd(&op, ifd, in);
	op.fd2 = ofd;
	in_ptr = st_offptr_arg(st_arg(c, cfr ? 1 : 2), &in_off);
	if (cfr) {
		out_ptr = st_offptr_arg(st_arg(c, 3), &out_off);
		op.len = (uint64_t)stl_int_arg(st_arg(c, 4));
		op.flags = (uint32_t)stl_int_arg(st_arg(c, 5));
	} else {
		op.len = (uint64_t)stl_int_arg(st_arg(c, 3));
		op.mode = (uint32_t)st_ofd_kind(out);
	}
	out_file = out && st_is_file_kind(out->kind);
	in_file = in && st_is_file_kind(in->kind);
	/* storage work when either end is a file, as the capturer keeps it (FORMAT.md) */
	if (!in_file && !out_file) {
		s->st->nonfile_ops++;
		return 0;
	}
	if (!in_file)
		op.path = 0;
	if (out_file)
		op.path2 = out->path;
	if (in_file && !in_ptr) {
		if (!in->pos_known)
			s->st->unknown_pos++;
		in_off = in->pos;
		if (c->ret > 0) {
			in->pos += (uint64_t)c->ret;
			in->pos_known = 1;
		}
	}
	if (out_file) {
		/* sendfile always writes at out_fd's position */
		if (!cfr || !out_ptr) {
			if (!out->pos_known)
				s->st->unknown_pos++;
			out_off = out->pos;
			if (c->ret > 0) {
				out->pos += (uint64_t)c->ret;
				out->pos_known = 1;
			}
		}
		if (c->ret > 0)
			st_size_grow(s, out->path, out_off + (uint64_t)c->ret);
	}
	op.offset = in_off;
	op.aux = out_off;
	return st_emit_any(s, &op, st_ofd_kind(in));
}

/* dup, dup2, dup3, fcntl(F_DUPFD*, F_SETFL, F_SETFD) */
static int st_do_dup(struct st_state *s, struct stl_call *c, int type)
{
	struct reel_op op;
	int fd, err, cloexec = 0;
	struct st_ofd *o = st_fd_arg(s, c->args[0], &fd, &err);

	if (err)
		return err;
	st_op_init(s, &op, type, c);
	st_op_fd(&op, fd, o);
	if (type == REEL_OP_FCNTL_DUPFD) {
		const char *name = st_arg(c, 1);
		/* only these four matter to fds and positions; F_SETLK & co. are not ops */
		int cmd = !strcmp(name, "F_DUPFD")	     ? 0
			  : !strcmp(name, "F_DUPFD_CLOEXEC") ? 1030
			  : !strcmp(name, "F_SETFL")	     ? 4
			  : !strcmp(name, "F_SETFD")	     ? 2
							     : -1;

		if (cmd == 4 /* F_SETFL */) {
			if (o && c->ret >= 0)
				o->append =
				    !!(stl_flags_arg(st_arg(c, 2), stl_open_flags) & ST_O_APPEND);
			return 0;
		}
		if (cmd == 2 /* F_SETFD */) {
			if (o && c->ret >= 0)
				st_fd_set(s->proc, fd, o,
					  !!(stl_flags_arg(st_arg(c, 2), stl_open_flags) & 1));
			return 0;
		}
		if (cmd != 0 && cmd != 1030)
			return 0;
		op.fd2 = (int32_t)stl_int_arg(st_arg(c, 2));
		cloexec = cmd == 1030;
		op.flags = cloexec ? ST_O_CLOEXEC : 0;
	} else if (type == REEL_OP_DUP2 || type == REEL_OP_DUP3) {
		int nfd, hint;
		char *ann;

		if (!stl_fd_arg(st_arg(c, 1), &nfd, &ann, &hint))
			op.fd2 = nfd;
		if (type == REEL_OP_DUP3) {
			op.flags = (uint32_t)stl_flags_arg(st_arg(c, 2), stl_open_flags);
			cloexec = !!(op.flags & ST_O_CLOEXEC);
		}
	}
	if (o && c->ret >= 0 && c->ret != fd) {
		err = st_fd_set(s->proc, (int)c->ret, o, cloexec);
		if (err)
			return err;
	}
	return st_emit(s, &op, st_ofd_kind(o));
}

static int st_do_mmap(struct st_state *s, struct stl_call *c)
{
	struct reel_op op;
	int fd, err;
	struct st_ofd *o;
	struct st_mapping *m;

	if (stl_int_arg(st_arg(c, 4)) < 0)
		return 0; /* anonymous memory: not file I/O */
	o = st_fd_arg(s, st_arg(c, 4), &fd, &err);
	if (err)
		return err;
	st_op_init(s, &op, REEL_OP_MMAP, c);
	st_op_fd(&op, fd, o);
	op.len = (uint64_t)stl_int_arg(st_arg(c, 1));
	op.mode = (uint32_t)stl_flags_arg(st_arg(c, 2), stl_prot);
	op.flags = (uint32_t)stl_flags_arg(st_arg(c, 3), stl_map_flags);
	op.offset = (uint64_t)stl_int_arg(st_arg(c, 5));
	if (c->ret > 0) {
		op.aux = (uint64_t)c->ret;
		if (s->proc->nmaps == s->proc->capmaps) {
			size_t cap = s->proc->capmaps ? s->proc->capmaps * 2 : 16;
			void *n = realloc(s->proc->maps, cap * sizeof(*m));

			if (!n)
				return -ENOMEM;
			s->proc->maps = n;
			s->proc->capmaps = cap;
		}
		m = &s->proc->maps[s->proc->nmaps++];
		m->addr = (uint64_t)c->ret;
		m->len = op.len;
		m->path = o ? o->path : 0;
		m->fd = fd;
		m->kind = (uint8_t)st_ofd_kind(o);
	}
	return st_emit(s, &op, st_ofd_kind(o));
}

static struct st_mapping *st_mapping_find(struct st_proc *p, uint64_t addr)
{
	for (size_t i = p->nmaps; i-- > 0;)
		if (addr >= p->maps[i].addr && addr < p->maps[i].addr + p->maps[i].len)
			return &p->maps[i];
	return NULL;
}

static int st_do_munmap(struct st_state *s, struct stl_call *c)
{
	uint64_t addr = (uint64_t)stl_int_arg(st_arg(c, 0));
	struct st_proc *p = s->proc;

	for (size_t i = 0; i < p->nmaps; i++) {
		if (p->maps[i].addr == addr && c->ret == 0) {
			p->maps[i] = p->maps[--p->nmaps];
			break;
		}
	}
	return 0;
}

static int st_do_msync(struct st_state *s, struct stl_call *c)
{
	struct reel_op op;
	struct st_mapping *m;

	st_op_init(s, &op, REEL_OP_MSYNC, c);
	op.aux = (uint64_t)stl_int_arg(st_arg(c, 0));
	op.len = (uint64_t)stl_int_arg(st_arg(c, 1));
	op.flags = (uint32_t)stl_flags_arg(st_arg(c, 2), stl_ms_flags);
	m = st_mapping_find(s->proc, op.aux);
	if (!m)
		return st_emit(s, &op, REEL_FD_UNKNOWN);
	op.path = m->path;
	op.offset = op.aux - m->addr;
	return st_emit(s, &op, m->kind);
}

/* The elements "{...}" of an array argument, one by one. */
static const char *st_next_elem(const char *p, const char **end)
{
	int depth = 0;

	p = strchr(p, '{');
	if (!p)
		return NULL;
	for (const char *q = p; *q; q++) {
		if (*q == '"') {
			for (q++; *q && *q != '"'; q++)
				if (*q == '\\' && q[1])
					q++;
			if (!*q)
				break;
			continue;
		}
		if (*q == '{')
			depth++;
		else if (*q == '}' && --depth == 0) {
			*end = q + 1;
			return p;
		}
	}
	return NULL;
}

static int st_do_io_submit(struct st_state *s, struct stl_call *c)
{
	uint64_t ctx = (uint64_t)stl_int_arg(st_arg(c, 0));
	const char *p = st_arg(c, 2), *e;
	int64_t n = 0;

	while ((p = st_next_elem(p, &e))) {
		size_t len = (size_t)(e - p);
		char *iocb = strndup(p, len);
		const char *f;
		struct reel_op op;
		struct st_ofd *o = NULL;
		struct st_aio *a, **tail;
		int fd = -1, err = 0;

		if (!iocb)
			return -ENOMEM;
		/* io_submit stops at the first iocb it cannot take: only ret of them went in */
		if (c->ret >= 0 && n >= c->ret) {
			free(iocb);
			break;
		}
		n++;
		st_op_init(s, &op, REEL_OP_AIO_SUBMIT, c);
		op.ret = c->ret < 0 ? c->ret : 0;
		op.end_ns = op.start_ns;
		op.ctx = ctx;
		f = stl_field(iocb, "aio_data");
		op.aux = f ? strtoull(f, NULL, 0) : 0;
		f = stl_field(iocb, "aio_lio_opcode");
		op.subop = f ? (uint8_t)stl_flags_arg(f, stl_iocb_cmds) : 0;
		f = stl_field(iocb, "aio_fildes");
		if (f) {
			char *fa = strndup(f, strcspn(f, ",}"));

			/* an annotation may hold ',': take everything up to the closing '>' */
			if (fa && strchr(fa, '<') && !strchr(fa, '>')) {
				free(fa);
				fa = strndup(f,
					     (size_t)(strchr(f, '>') ? strchr(f, '>') - f + 1 : 0));
			}
			if (fa)
				o = st_fd_arg(s, fa, &fd, &err);
			free(fa);
		}
		f = stl_field(iocb, "aio_nbytes");
		op.len = f ? strtoull(f, NULL, 0) : 0;
		f = stl_field(iocb, "aio_offset");
		op.offset = f ? strtoull(f, NULL, 0) : 0;
		free(iocb);
		if (err)
			return err;
		st_op_fd(&op, fd, o);
		if (c->ret >= 0) {
			a = calloc(1, sizeof(*a));
			if (!a)
				return -ENOMEM;
			a->ctx = ctx;
			a->data = op.aux;
			a->subop = op.subop;
			a->fd = fd;
			a->path = op.path;
			a->kind = (uint8_t)st_ofd_kind(o);
			a->offset = op.offset;
			a->len = op.len;
			for (tail = &s->aio; *tail; tail = &(*tail)->next)
				;
			*tail = a;
		}
		err = st_emit(s, &op, st_ofd_kind(o));
		if (err)
			return err;
		p = e;
	}
	return 0;
}

static int st_do_io_getevents(struct st_state *s, struct stl_call *c)
{
	uint64_t ctx = (uint64_t)stl_int_arg(st_arg(c, 0));
	const char *p = st_arg(c, 3), *e;

	if (c->ret <= 0)
		return 0;
	while ((p = st_next_elem(p, &e))) {
		const char *f = stl_field(p, "data");
		uint64_t data = f ? strtoull(f, NULL, 0) : 0;
		struct st_aio **ap, *a;
		struct reel_op op;
		int err;

		st_op_init(s, &op, REEL_OP_AIO_COMPLETE, c);
		op.start_ns = op.end_ns;
		op.ctx = ctx;
		op.aux = data;
		f = stl_field(p, "res");
		op.ret = f ? strtoll(f, NULL, 0) : 0;
		for (ap = &s->aio; *ap; ap = &(*ap)->next)
			if ((*ap)->ctx == ctx && (*ap)->data == data)
				break;
		a = *ap;
		if (a) {
			*ap = a->next;
			op.subop = a->subop;
			op.fd = a->fd;
			op.path = a->path;
			op.offset = a->offset;
			op.len = a->len;
		}
		err = st_emit(s, &op, a ? a->kind : REEL_FD_UNKNOWN);
		free(a);
		if (err)
			return err;
		p = e;
	}
	return 0;
}

static int st_do_execve(struct st_state *s, struct stl_call *c)
{
	uint64_t k, v;
	struct st_proc *p = s->proc;

	if (c->ret != 0)
		return 0;
	if (p->fdt->refs > 1) {
		/* execve unshares a table shared by clone(CLONE_FILES) first */
		struct st_fdtab *shared = p->fdt;

		p->fdt = st_fdtab_new();
		if (!p->fdt) {
			p->fdt = shared;
			return -ENOMEM;
		}
		for (size_t i = 0; cvt_map__next(&shared->fds, &i, &k, &v);)
			if (!(v & 1) && st_fd_set(p, (int)k, (struct st_ofd *)(uintptr_t)v, 0))
				return -ENOMEM;
		st_fdtab_put(shared);
	}
	for (size_t i = 0; cvt_map__next(&p->fdt->fds, &i, &k, &v);)
		if (v & 1)
			st_fd_close(p, (int)k);
	p->nmaps = 0;
	if (!s->command_set && c->nargs >= 2) {
		/* argv as strace shows it: ["a", "b"...]; strings may be cut at -s */
		const char *a = c->args[1];
		char *cmd = calloc(1, strlen(a) + 1), *q = cmd;

		if (!cmd)
			return -ENOMEM;
		for (const char *x = strchr(a, '"'); x; x = strchr(x, '"')) {
			char *tmp = strdup(x), *str;
			const char *end = x + 1;

			if (!tmp)
				break;
			while (*end && *end != '"')
				end += *end == '\\' && end[1] ? 2 : 1;
			str = stl_str_arg(tmp);
			if (q != cmd)
				*q++ = ' ';
			strcpy(q, str ? str : "");
			q += strlen(q);
			free(tmp);
			x = *end ? end + 1 : end;
		}
		s->command_set = 1;
		int err = reel_writer__meta(s->w, REEL_META_COMMAND, cmd);

		free(cmd);
		return err;
	}
	return 0;
}

static int st_do_chdir(struct st_state *s, struct stl_call *c, int is_fchdir)
{
	char *cwd;

	if (c->ret != 0)
		return 0;
	if (is_fchdir) {
		int fd, err;
		struct st_ofd *o = st_fd_arg(s, c->args[0], &fd, &err);

		if (err || !o || !o->name)
			return err;
		cwd = strdup(o->name);
	} else {
		cwd = st_resolve(s, ST_AT_FDCWD, NULL, stl_str_arg(c->args[0]));
	}
	if (!cwd)
		return -ENOMEM;
	free(s->proc->cwd);
	s->proc->cwd = cwd;
	return 0;
}

static int st_do_clone(struct st_state *s, struct stl_call *c)
{
	uint64_t *pv;

	if (!c->ret_known || c->ret <= 0)
		return 0;
	/* create a forked child's fd table now, as a copy of its parent's */
	pv = cvt_map__get(&s->parent, (uint64_t)c->ret);
	if (pv && !(*pv & 1))
		return st_proc_get(s, (uint32_t)c->ret) ? 0 : -ENOMEM;
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
	if (!strcmp(n, "fcntl") || !strcmp(n, "fcntl64"))
		return c->nargs >= 2 ? st_do_dup(s, c, REEL_OP_FCNTL_DUPFD) : -EINVAL;
	if (!strcmp(n, "mmap") || !strcmp(n, "mmap2"))
		return c->nargs >= 6 ? st_do_mmap(s, c) : -EINVAL;
	if (!strcmp(n, "munmap"))
		return c->nargs >= 1 ? st_do_munmap(s, c) : -EINVAL;
	if (!strcmp(n, "msync"))
		return c->nargs >= 3 ? st_do_msync(s, c) : -EINVAL;
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
	if (!strcmp(n, "fchdir"))
		return c->nargs >= 1 ? st_do_chdir(s, c, 1) : -EINVAL;
	if (st_is_clone(n))
		return st_do_clone(s, c);
	return 0; /* not file I/O */
}

/* ---- pass 2 ---- */

static uint32_t st_line_tid(struct st_state *s, const struct stl_line *l)
{
	uint64_t k, v;

	if (l->pid >= 0)
		return (uint32_t)l->pid;
	if (s->live.len == 1) {
		size_t i = 0;

		if (cvt_map__next(&s->live, &i, &k, &v))
			return (uint32_t)k;
	}
	return (uint32_t)s->initial;
}

static void st_bad(struct st_state *s, uint64_t lineno)
{
	if (!s->st->bad_lines++)
		s->st->first_bad_line = lineno;
}

static int st_pass2(struct st_state *s, FILE *in)
{
	char *line = NULL, *text;
	size_t cap = 0;
	uint64_t lineno = 0, ts;
	struct stl_line l;
	struct stl_call c;
	int err = 0;

	while (!err && getline(&line, &cap, in) > 0) {
		lineno++;
		s->st->lines++;
		stl_parse_line(line, &l);
		if (l.kind == STL_BLANK)
			continue;
		if (l.kind == STL_BAD) {
			st_bad(s, lineno);
			continue;
		}
		s->tid = st_line_tid(s, &l);
		if (l.kind == STL_EXIT) {
			uint64_t now;

			free(st_pending_take(s, s->tid, "", &now));
			cvt_map__del(&s->live, s->tid);
			continue;
		}
		if (!cvt_map__put(&s->live, s->tid, NULL)) {
			err = -ENOMEM;
			break;
		}
		if (l.kind == STL_SIGNAL)
			continue;
		if (l.kind == STL_UNFINISHED) {
			err = st_pending_put(s, s->tid, l.ts_ns, l.text);
			continue;
		}
		ts = l.ts_ns;
		if (l.kind == STL_RESUMED) {
			text = st_pending_take(s, s->tid, l.text, &ts);
			if (!text) {
				s->st->unmatched++;
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
			continue;
		}
		s->tgid = st_tgid(s, s->tid);
		s->proc = st_proc_get(s, s->tgid);
		if (!s->proc) {
			free(text);
			err = -ENOMEM;
			break;
		}
		s->start = ts > s->first_ts ? ts - s->first_ts : 0;
		if (c.has_dur)
			s->end = s->start + c.dur_ns;
		else
			s->end = l.ts_ns > s->first_ts ? l.ts_ns - s->first_ts : s->start;
		if (s->end < s->start)
			s->end = s->start;
		err = st_dispatch(s, &c);
		if (err == -EINVAL) {
			/* a call we know with arguments we cannot read: one bad line */
			st_bad(s, lineno);
			err = 0;
		}
		free(text);
	}
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
	err = st_pass1(&s, in);
	if (!err && fseek(in, 0, SEEK_SET))
		err = -errno;
	if (!err)
		err = reel_writer__meta(w, REEL_META_TOOL, "ioreel import strace");
	if (!err && s.have_first)
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
	return err;
}
