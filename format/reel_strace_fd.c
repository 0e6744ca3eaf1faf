/* SPDX-License-Identifier: MIT */
/*
 * reel_strace_fd.c - the strace importer's view of the traced processes: their fd tables (open
 * file descriptions shared by dup and fork, with positions and kinds), cwds, the paths an op
 * names (the -y annotation, or the argument joined to the dirfd or cwd), files' sizes as last
 * seen (for O_APPEND), and the ops it emits.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reel_strace_int.h"

uint32_t st_tgid(struct st_state *s, uint32_t tid)
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

void st_ofd_put(struct st_ofd *o)
{
	if (o && --o->refs <= 0) {
		free(o->name);
		free(o);
	}
}

struct st_ofd *st_fd_get(struct st_proc *p, int fd, int *cloexec)
{
	uint64_t *v = cvt_map__get(&p->fdt->fds, (uint32_t)fd);

	if (!v)
		return NULL;
	if (cloexec)
		*cloexec = (int)(*v & 1);
	return (struct st_ofd *)(uintptr_t)(*v & ~1ULL);
}

void st_fd_close(struct st_proc *p, int fd)
{
	struct st_ofd *o = st_fd_get(p, fd, NULL);

	if (o) {
		st_ofd_put(o);
		cvt_map__del(&p->fdt->fds, (uint32_t)fd);
	}
}

int st_fd_set(struct st_proc *p, int fd, struct st_ofd *o, int cloexec)
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

void st_fdtab_put(struct st_fdtab *t)
{
	uint64_t k, v;

	if (!t || --t->refs > 0)
		return;
	for (size_t i = 0; cvt_map__next(&t->fds, &i, &k, &v);)
		st_ofd_put((struct st_ofd *)(uintptr_t)(v & ~1ULL));
	cvt_map__free(&t->fds);
	free(t);
}

struct st_fdtab *st_fdtab_new(void)
{
	struct st_fdtab *t = calloc(1, sizeof(*t));

	if (t) {
		cvt_map__init(&t->fds);
		t->refs = 1;
	}
	return t;
}

void st_proc_free(struct st_proc *p)
{
	st_fdtab_put(p->fdt);
	free(p->cwd);
	free(p->root);
	free(p->maps);
	free(p);
}

struct st_proc *st_proc_get(struct st_state *s, uint32_t tgid)
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
	if (parent && parent != p && parent->root)
		p->root = strdup(parent->root);
	return p;
}

int st_path_id(struct st_state *s, const char *path, uint32_t *id)
{
	*id = 0;
	if (!path)
		return 0;
	return reel_writer__path(s->w, path, id);
}

int st_kind_of_path(const char *p, int hint)
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
	/* -y's name of a memfd ("/memfd:NAME (deleted)"): a regular file's inode, of no file
	 * system, as the recorder marks it (kind other) */
	if (!strncmp(p, "/memfd:", 7))
		return REEL_FD_OTHER;
	return REEL_FD_REG;
}

int st_is_file_kind(int kind)
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

void st_note_parents(struct st_state *s, const char *p)
{
	if (!p || *p != '/')
		return;
	for (const char *q = strchr(p + 1, '/'); q; q = strchr(q + 1, '/'))
		st_note_dir(s, p, (size_t)(q - p));
}

int st_is_dir(struct st_state *s, const char *p)
{
	size_t n = p ? strlen(p) : 0;

	while (n > 1 && p[n - 1] == '/')
		n--;
	return n && cvt_map__get(&s->dirs, st_hash(p, n)) != NULL;
}

void st_strip_deleted(char *p)
{
	size_t n = strlen(p);

	if (n > 10 && !strcmp(p + n - 10, " (deleted)"))
		p[n - 10] = 0;
}

/* The ofd of an fd argument; from the -y annotation when the fd was opened before. */
struct st_ofd *st_fd_arg(struct st_state *s, char *arg, int *fd, int *err)
{
	char *ann;
	int hint;
	struct st_ofd *o;

	*err = stl_fd_arg(arg, fd, &ann, &hint);
	if (*err) {
		/* out of range: a bad line (-EINVAL); no number at all: no fd, as before */
		*err = *err == -ERANGE ? -EINVAL : 0;
		return NULL;
	}
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
char *st_resolve(struct st_state *s, int dirfd, const char *dirann, const char *path)
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
	/*
	 * An empty path names no file (the kernel fails it with ENOENT), not the directory it
	 * would be relative to: it stays empty. The ops of AT_EMPTY_PATH, on the fd itself, never
	 * come here.
	 */
	if (!*path)
		return strdup("");
	if (*path == '/' && s->proc->root) {
		/* chrooted (postfix's daemons): beneath the root, "/.." staying there */
		char *in = strdup(path);

		if (!in)
			return NULL;
		cvt_normalise_path(in);
		out = malloc(strlen(s->proc->root) + strlen(in) + 1);
		if (out)
			sprintf(out, "%s%s", s->proc->root, in[1] ? in : "");
		free(in);
		return out;
	}
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

/*
 * A dirfd argument: fd and its annotation (also learns the cwd from AT_FDCWD</cwd>). 0, or
 * -EINVAL for a number beyond an int (a bad line); no number at all is taken as AT_FDCWD.
 */
int st_dirfd_arg(struct st_state *s, char *arg, int *fd, char **ann)
{
	int hint, err = stl_fd_arg(arg, fd, ann, &hint);

	if (err) {
		*fd = ST_AT_FDCWD;
		*ann = NULL;
		return err == -ERANGE ? -EINVAL : 0;
	}
	if (*fd == ST_AT_FDCWD && *ann)
		st_note_dir(s, *ann, strlen(*ann));
	if (*fd == ST_AT_FDCWD && *ann && (!s->proc->cwd || strcmp(s->proc->cwd, *ann))) {
		free(s->proc->cwd);
		s->proc->cwd = strdup(*ann);
	}
	return 0;
}

uint64_t *st_size_slot(struct st_state *s, uint32_t path)
{
	return path ? cvt_map__put(&s->sizes, path, NULL) : NULL;
}

void st_size_set(struct st_state *s, uint32_t path, uint64_t size)
{
	uint64_t *v = st_size_slot(s, path);

	if (v)
		*v = size + 1;
}

void st_size_grow(struct st_state *s, uint32_t path, uint64_t end)
{
	uint64_t *v = st_size_slot(s, path);

	if (v && end + 1 > *v)
		*v = end + 1;
}

/* st_size= (stat) or stx_size= (statx) in a struct argument, for a regular file. */
void st_size_from_stat(struct st_state *s, uint32_t path, const char *buf)
{
	const char *v = stl_field(buf, "st_size");

	if (!v)
		v = stl_field(buf, "stx_size");
	if (v && path && (strstr(buf, "S_IFREG") || !strstr(buf, "S_IF")))
		st_size_set(s, path, strtoull(v, NULL, 0));
}

/*
 * What a stat-family call that succeeded found, as a recording has it (FORMAT.md, "The
 * stat family"): the type of st_mode= or stx_mode= (S_IFREG|0644) into subop, the size
 * + 1 into aux. A log that does not show them (strace -e raw, a struct cut short) leaves 0.
 */
void st_stat_result(struct reel_op *op, const char *buf)
{
	static const struct {
		const char *name;
		uint8_t bits;
	} types[] = {{"S_IFREG", 8}, {"S_IFDIR", 4},  {"S_IFLNK", 10}, {"S_IFIFO", 1},
		     {"S_IFCHR", 2}, {"S_IFBLK", 6}, {"S_IFSOCK", 12}};
	const char *mode = stl_field(buf, "st_mode"), *size = stl_field(buf, "st_size");

	if (!mode)
		mode = stl_field(buf, "stx_mode");
	if (!size)
		size = stl_field(buf, "stx_size");
	if (!mode || !size)
		return;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		size_t n = strlen(types[i].name);

		if (!strncmp(mode, types[i].name, n) && (mode[n] == '|' || mode[n] == ',')) {
			op->subop = types[i].bits;
			op->aux = strtoull(size, NULL, 0) + 1;
			return;
		}
	}
}

/* ---- emitting ops ---- */

void st_op_init(struct st_state *s, struct reel_op *op, int type, const struct stl_call *c)
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
int st_emit_any(struct st_state *s, struct reel_op *op, int kind)
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
int st_emit(struct st_state *s, struct reel_op *op, int kind)
{
	if (kind == REEL_FD_UNKNOWN && op->ret == -EBADF)
		return st_emit_any(s, op, kind);
	if (!st_is_file_kind(kind)) {
		s->st->nonfile_ops++;
		return 0;
	}
	return st_emit_any(s, op, kind);
}

void st_op_fd(struct reel_op *op, int fd, const struct st_ofd *o)
{
	op->fd = fd;
	if (o)
		op->path = o->path;
}

int st_ofd_kind(const struct st_ofd *o)
{
	return o ? o->kind : REEL_FD_UNKNOWN;
}

/* Argument i, or "" when the call has fewer: missing arguments read as empty. */
char *st_arg(const struct stl_call *c, int i)
{
	static char none[1];

	none[0] = 0;
	return i < c->nargs ? c->args[i] : none;
}
