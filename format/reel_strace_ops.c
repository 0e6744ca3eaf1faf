/* SPDX-License-Identifier: MIT */
/*
 * reel_strace_ops.c - the strace importer's handlers, one per syscall or family (open, close,
 * reads and writes, path ops, renames, links, copies, dup, locks, mmap, libaio, exec, chdir,
 * clone):
 * each turns one parsed call into ops, as the capturer would have recorded them (see the
 * choices at the top of reel_strace.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "reel_strace_int.h"

/* open, openat, openat2, creat */
int st_do_open(struct st_state *s, struct stl_call *c, int type)
{
	struct reel_op op;
	int dirfd = ST_AT_FDCWD, pi = 0, kind, err;
	char *dirann = NULL, *path, *resolved;
	uint64_t flags = 0, mode = 0;
	struct st_ofd *o;

	st_op_init(s, &op, type, c);
	if (type == REEL_OP_OPENAT || type == REEL_OP_OPENAT2) {
		err = st_dirfd_arg(s, c->args[0], &dirfd, &dirann);
		if (err)
			return err;
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

int st_do_close(struct st_state *s, struct stl_call *c)
{
	struct reel_op op;
	int fd, err, hint;
	char *ann;
	struct st_ofd *o;

	/* resumed: its description left the fd table as it entered (st_pending_close); the
	 * number may hold another file by now */
	if (s->closed) {
		o = s->closed;
		s->closed = NULL;
		if (stl_fd_arg(c->args[0], &fd, &ann, &hint))
			fd = -1;
		st_op_init(s, &op, REEL_OP_CLOSE, c);
		st_op_fd(&op, fd, o);
		err = st_emit(s, &op, o->kind);
		st_ofd_put(o);
		return err;
	}
	o = st_fd_arg(s, c->args[0], &fd, &err);
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
int st_do_close_range(struct st_state *s, struct stl_call *c)
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
int st_do_rw(struct st_state *s, struct stl_call *c, int type)
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

int st_do_lseek(struct st_state *s, struct stl_call *c)
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
int st_do_fdop(struct st_state *s, struct stl_call *c, int type)
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
		if (c->ret == 0)
			st_stat_result(&op, st_arg(c, 1));
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
static char *st_proc_fd_path(struct st_state *s, const struct reel_op *op, char *path, int *kind)
{
	const char *rest;
	int n = cvt_proc_fd(path, s->tgid, &rest);
	/* a path op (never an open here) */
	int follow = reel_op__follows_link(op, 0);
	struct st_ofd *f;
	char *out;

	if (n < 0)
		return path;
	f = st_fd_get(s->proc, n, NULL);
	if ((!*rest && !follow) || !f || !f->name || *f->name != '/')
		return path;
	/* "/proc/self/fd/N/../x" (cvt_normalise_path keeps that ".."): from the directory fd N
	 * is, which its name need not say (a symlink on the way); strace does not tell either */
	if (!strncmp(rest, "/..", 3) && (!rest[3] || rest[3] == '/'))
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
int st_do_pathop(struct st_state *s, struct stl_call *c, int type, int di, int pi)
{
	struct reel_op op;
	int dirfd = ST_AT_FDCWD, kind, err;
	char *dirann = NULL, *path, *resolved = NULL;
	struct st_ofd *o = NULL;

	st_op_init(s, &op, type, c);
	if (di >= 0) {
		err = st_dirfd_arg(s, c->args[di], &dirfd, &dirann);
		if (err)
			return err;
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
		/* "" with AT_EMPTY_PATH on AT_FDCWD is the cwd itself; without it, no file */
		resolved = st_resolve(s, dirfd, dirann,
				      path && !*path && (op.flags & ST_AT_EMPTY_PATH) ? "." : path);
		if (!resolved)
			return path ? -ENOMEM : 0;
		kind = st_kind_of_path(resolved, 0);
		resolved = st_proc_fd_path(s, &op, resolved, &kind);
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
		const char *buf = type == REEL_OP_STAT || type == REEL_OP_LSTAT ? st_arg(c, 1)
				  : type == REEL_OP_NEWFSTATAT ? st_arg(c, 2)
				  : type == REEL_OP_STATX      ? st_arg(c, 4)
							       : NULL;

		if (type == REEL_OP_TRUNCATE)
			st_size_set(s, op.path, op.len);
		if (buf) {
			st_size_from_stat(s, op.path, buf);
			st_stat_result(&op, buf);
		}
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
int st_do_rename(struct st_state *s, struct stl_call *c, int type)
{
	struct reel_op op;
	int ofd = ST_AT_FDCWD, nfd = ST_AT_FDCWD, err, from;
	int at = type != REEL_OP_RENAME && type != REEL_OP_LINK;
	char *oann = NULL, *nann = NULL, *o, *n, *arg;

	st_op_init(s, &op, type, c);
	if (at) {
		err = st_dirfd_arg(s, c->args[0], &ofd, &oann);
		err = err ?: st_dirfd_arg(s, st_arg(c, 2), &nfd, &nann);
		if (err)
			return err;
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
int st_do_symlink(struct st_state *s, struct stl_call *c, int type)
{
	struct reel_op op;
	int dirfd = ST_AT_FDCWD, err, at = type == REEL_OP_SYMLINKAT, cut;
	char *dirann = NULL, *content, *link;

	st_op_init(s, &op, type, c);
	if (at) {
		err = st_dirfd_arg(s, c->args[1], &dirfd, &dirann);
		if (err)
			return err;
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
int st_do_copy(struct st_state *s, struct stl_call *c, int type)
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

/* dup, dup2, dup3, fcntl(F_DUPFD*, F_SETFL, F_SETFD); fcntl's locks are st_do_lock's */
int st_do_dup(struct st_state *s, struct stl_call *c, int type)
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
		/* only these four matter to fds and positions (locks went to st_do_lock) */
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
	} else if (c->ret >= 0 && c->ret != fd) {
		/* a copy of an fd the log never opened: the new number no longer names what a
		 * dup2 over it closed */
		st_fd_close(s->proc, (int)c->ret);
	}
	return st_emit(s, &op, st_ofd_kind(o));
}

/* fcntl's record-lock command in arg (a name strace prints), or 0: not a lock command */
int st_lock_cmd(const char *arg)
{
	/* names only: a number is a command strace did not know, and no lock's */
	if (*arg < 'A' || *arg > 'Z')
		return 0;
	return (int)stl_flags_arg(arg, stl_lock_cmds);
}

/*
 * The range of a struct flock as strace shows it, made absolute (FORMAT.md, "Locks"):
 * SEEK_CUR from the description's position, SEEK_END from the file's size, where the
 * importer knows them; else l_start stays as given, with l_whence in subop. A negative l_len
 * locks the bytes before l_start: the same range forward.
 */
static void st_lock_range(struct st_state *s, struct reel_op *op, const char *fl,
			  const struct st_ofd *o)
{
	const char *f = stl_field(fl, "l_whence");
	uint64_t whence = f ? stl_flags_arg(f, stl_seek) : 0;
	uint64_t start, len, *size;

	f = stl_field(fl, "l_start");
	start = f ? (uint64_t)stl_int_arg(f) : 0;
	f = stl_field(fl, "l_len");
	len = f ? (uint64_t)stl_int_arg(f) : 0;
	if (whence == 1 /* SEEK_CUR */ && o && o->pos_known) {
		start += o->pos;
		whence = 0;
	} else if (whence == ST_SEEK_END && o && (size = st_size_slot(s, o->path)) && *size) {
		start += *size - 1;
		whence = 0;
	}
	if ((int64_t)len < 0) {
		start += len;
		len = 0 - len;
	}
	op->offset = start;
	op->len = len;
	op->subop = (uint8_t)whence;
}

/*
 * flock(fd, operation) and fcntl(fd, F_*LK*, {struct flock}): the request, whatever came
 * of it (a lock refused is part of what the application did). strace shows a get command's
 * struct as the kernel filled it on return: the type asked is gone (mode F_UNLCK, which no
 * get can ask), l_type is what was found (aux), and the range is the one asked when nothing
 * was in the way, else the lock in the way's, which overlaps it: kept, as the nearest known.
 * A failed get shows only the struct's address: nothing found, no range.
 */
int st_do_lock(struct st_state *s, struct stl_call *c, int type)
{
	struct reel_op op;
	int fd, err, cmd;
	struct st_ofd *o = st_fd_arg(s, c->args[0], &fd, &err);
	const char *fl, *f;

	if (err)
		return err;
	st_op_init(s, &op, type, c);
	st_op_fd(&op, fd, o);
	if (type == REEL_OP_FLOCK) {
		op.mode = (uint32_t)stl_flags_arg(st_arg(c, 1), stl_flock_ops);
		return st_emit(s, &op, st_ofd_kind(o));
	}
	cmd = st_lock_cmd(st_arg(c, 1));
	op.flags = (uint32_t)cmd;
	fl = st_arg(c, 2);
	if (*fl != '{')
		fl = ""; /* an address strace could not (or, on failure, did not) read */
	f = stl_field(fl, "l_type");
	if (cmd == 5 /* F_GETLK */ || cmd == 36 /* F_OFD_GETLK */) {
		op.mode = 2; /* F_UNLCK: unseen */
		if (f && c->ret == 0)
			op.aux = stl_flags_arg(f, stl_lock_types) + 1;
	} else {
		op.mode = f ? (uint32_t)stl_flags_arg(f, stl_lock_types) : 0;
	}
	st_lock_range(s, &op, fl, o);
	return st_emit(s, &op, st_ofd_kind(o));
}

int st_do_mmap(struct st_state *s, struct stl_call *c)
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

/*
 * A munmap of a range where the process had mapped a file is recorded, with the file of a
 * mapping it ends, and forgets the mappings it covers whole; one of anonymous memory only,
 * not file I/O, is left out (as the recorder does).
 */
int st_do_munmap(struct st_state *s, struct stl_call *c)
{
	uint64_t addr = (uint64_t)stl_int_arg(st_arg(c, 0));
	uint64_t len = (uint64_t)stl_int_arg(st_arg(c, 1));
	struct st_proc *p = s->proc;
	const struct st_mapping *hit = NULL;
	struct st_mapping found;
	struct reel_op op;

	for (size_t i = p->nmaps; i-- > 0;) {
		struct st_mapping *m = &p->maps[i];

		if (m->addr >= addr + len || addr >= m->addr + m->len)
			continue;
		if (!hit) {
			found = *m;
			hit = &found;
		}
		if (c->ret == 0 && addr <= m->addr && m->addr + m->len <= addr + len)
			*m = p->maps[--p->nmaps];
	}
	if (!hit)
		return 0;
	st_op_init(s, &op, REEL_OP_MUNMAP, c);
	op.aux = addr;
	op.len = len;
	op.path = hit->path;
	return st_emit(s, &op, hit->kind);
}

/* sync(2): every file system's sync, a syncfs with no fd (fd -1), as the recorder has it */
int st_do_sync_all(struct st_state *s, struct stl_call *c)
{
	struct reel_op op;

	st_op_init(s, &op, REEL_OP_SYNCFS, c);
	return st_emit_any(s, &op, REEL_FD_UNKNOWN);
}

int st_do_msync(struct st_state *s, struct stl_call *c)
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

int st_do_io_submit(struct st_state *s, struct stl_call *c)
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

int st_do_io_getevents(struct st_state *s, struct stl_call *c)
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

int st_do_execve(struct st_state *s, struct stl_call *c)
{
	uint64_t k, v;
	struct st_proc *p = s->proc;

	struct reel_op op;
	int err;

	if (c->ret != 0)
		return 0; /* a failed exec changes nothing: no op */
	/* the new program began as the call returned */
	st_op_init(s, &op, REEL_OP_EXECVE, c);
	op.start_ns = s->end;
	err = st_emit_any(s, &op, REEL_FD_UNKNOWN);
	if (err)
		return err;
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
		err = reel_writer__meta(s->w, REEL_META_COMMAND, cmd);

		free(cmd);
		return err;
	}
	return 0;
}

int st_do_chdir(struct st_state *s, struct stl_call *c, int is_fchdir)
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

/* chroot(2): the process's absolute paths lie beneath path from now on */
int st_do_chroot(struct st_state *s, struct stl_call *c)
{
	char *root;

	if (c->ret != 0 || c->nargs < 1)
		return 0;
	root = st_resolve(s, ST_AT_FDCWD, NULL, stl_str_arg(c->args[0]));
	if (!root)
		return -ENOMEM;
	free(s->proc->root);
	s->proc->root = NULL;
	if (strcmp(root, "/"))
		s->proc->root = root;
	else
		free(root);
	return 0;
}

/* ---- processes: fork, execve, exit (format 1.4) ---- */

/*
 * clone's flags=..., clone3's {flags=...}, as strace prints them: names (CLONE_THREAD|...),
 * a number (-X raw: 0x3d0f00, clone's exit signal or'ed in as |17), or both (-X verbose:
 * the number, then the names in a C comment). fork and vfork have none: 0.
 */
uint64_t st_clone_flags(const struct stl_call *c)
{
	for (int i = 0; i < c->nargs; i++) {
		const char *v = stl_field(c->args[i], "flags");

		if (v)
			return stl_flags_arg(v, stl_clone_flags);
	}
	return 0;
}

/*
 * The wait status of a "+++ exited with N +++" (N << 8) or "+++ killed by SIGNAME +++" line
 * (the signal's number, | 0x80 with "(core dumped)", as wait(2) has it), given the text after
 * the time stamp. 0, or -EINVAL for any other "+++" line (superseded by execve).
 */
int st_exit_status(const char *text, int64_t *status)
{
	static const struct {
		const char *name;
		int num;
	} sigs[] = {
	    {"SIGHUP", SIGHUP},	  {"SIGINT", SIGINT},	  {"SIGQUIT", SIGQUIT},
	    {"SIGILL", SIGILL},	  {"SIGTRAP", SIGTRAP},	  {"SIGABRT", SIGABRT},
	    {"SIGIOT", SIGIOT},	  {"SIGBUS", SIGBUS},	  {"SIGFPE", SIGFPE},
	    {"SIGKILL", SIGKILL}, {"SIGUSR1", SIGUSR1},	  {"SIGSEGV", SIGSEGV},
	    {"SIGUSR2", SIGUSR2}, {"SIGPIPE", SIGPIPE},	  {"SIGALRM", SIGALRM},
	    {"SIGTERM", SIGTERM}, {"SIGSTKFLT", 16},	  {"SIGCHLD", SIGCHLD},
	    {"SIGCONT", SIGCONT}, {"SIGSTOP", SIGSTOP},	  {"SIGTSTP", SIGTSTP},
	    {"SIGTTIN", SIGTTIN}, {"SIGTTOU", SIGTTOU},	  {"SIGURG", SIGURG},
	    {"SIGXCPU", SIGXCPU}, {"SIGXFSZ", SIGXFSZ},	  {"SIGVTALRM", SIGVTALRM},
	    {"SIGPROF", SIGPROF}, {"SIGWINCH", SIGWINCH}, {"SIGIO", SIGIO},
	    {"SIGPOLL", SIGIO},	  {"SIGPWR", SIGPWR},	  {"SIGSYS", SIGSYS},
	};
	const char *p;
	char *end;
	long n;

	if (!strncmp(text, "+++ ", 4))
		text += 4;
	if (!strncmp(text, "exited with ", 12)) {
		n = strtol(text + 12, &end, 10);
		if (end == text + 12 || n < 0 || n > 255)
			return -EINVAL;
		*status = (int64_t)n << 8;
		return 0;
	}
	if (strncmp(text, "killed by ", 10))
		return -EINVAL;
	p = text + 10;
	n = -1;
	/* strace's names: the kernel's, SIGRTMIN and SIGRT_N above it; a number otherwise */
	if (!strncmp(p, "SIGRTMIN", 8) && (p[8] == ' ' || !p[8])) {
		n = 32;
	} else if (!strncmp(p, "SIGRT_", 6)) {
		n = strtol(p + 6, &end, 10);
		n = end == p + 6 ? -1 : 32 + n;
	} else if (*p >= '0' && *p <= '9') {
		n = strtol(p, &end, 10);
	} else {
		size_t len = strcspn(p, " ");

		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			if (strlen(sigs[i].name) == len && !strncmp(p, sigs[i].name, len))
				n = sigs[i].num;
	}
	if (n <= 0 || n > 127)
		return -EINVAL;
	*status = n | (strstr(p, "(core dumped)") ? 0x80 : 0);
	return 0;
}

/*
 * The fork op of child (a process, not a thread, that pass 1 saw a clone, fork or vfork
 * return), once: the parent's op, at time at (since the log's start). Written at the clone's
 * return, or before the child's first line when that comes first (the child may run before
 * strace shows its parent's clone return).
 */
int st_fork_op(struct st_state *s, uint32_t child, uint64_t at)
{
	uint64_t *pv = cvt_map__get(&s->parent, child), *fv;
	struct reel_op op;
	uint32_t ptid;
	int created;

	if (!pv || (*pv & 1))
		return 0;
	fv = cvt_map__put(&s->forked, child, &created);
	if (!fv)
		return -ENOMEM;
	if (!created)
		return 0;
	*fv = 1;
	ptid = (uint32_t)(*pv >> 1);
	memset(&op, 0, sizeof(op));
	op.type = REEL_OP_FORK;
	op.pid = st_tgid(s, ptid);
	op.tid = ptid;
	op.fd = op.fd2 = -1;
	op.ret = child;
	op.flags = cvt_map__get(&s->files, child) ? ST_CLONE_FILES : 0;
	op.start_ns = op.end_ns = at;
	return st_emit_any(s, &op, REEL_FD_UNKNOWN);
}

/* The exit op of the current process (s->tgid), ended by its thread s->tid. */
int st_exit_op(struct st_state *s, int64_t status, uint64_t at)
{
	struct reel_op op;

	memset(&op, 0, sizeof(op));
	op.type = REEL_OP_EXIT;
	op.pid = s->tgid;
	op.tid = s->tid;
	op.fd = op.fd2 = -1;
	op.ret = status;
	op.start_ns = op.end_ns = at;
	return st_emit_any(s, &op, REEL_FD_UNKNOWN);
}

int st_do_clone(struct st_state *s, struct stl_call *c)
{
	uint64_t *pv;

	if (!c->ret_known)
		return 0;
	if (c->ret < 0) {
		/* a fork that failed (EAGAIN, ENOMEM...): the parent's record; a thread's none */
		struct reel_op op;
		uint64_t flags = st_clone_flags(c);

		if (flags & ST_CLONE_THREAD)
			return 0;
		st_op_init(s, &op, REEL_OP_FORK, c);
		op.flags = (uint32_t)(flags & ST_CLONE_FILES);
		op.start_ns = s->end;
		return st_emit_any(s, &op, REEL_FD_UNKNOWN);
	}
	if (c->ret == 0)
		return 0;
	/* create a forked child's fd table now, as a copy of its parent's */
	pv = cvt_map__get(&s->parent, (uint64_t)c->ret);
	if (pv && !(*pv & 1)) {
		if (!st_proc_get(s, (uint32_t)c->ret))
			return -ENOMEM;
		return st_fork_op(s, (uint32_t)c->ret, s->end);
	}
	return 0;
}
