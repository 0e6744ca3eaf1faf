// SPDX-License-Identifier: MIT
/* Op type names and classes, fd kind names, error names (FORMAT.md, "Op types", "Errors"). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "reel.h"

static const char *const op_names[REEL_OP__COUNT] = {
    [REEL_OP_NONE] = "none",
    [REEL_OP_OPEN] = "open",
    [REEL_OP_OPENAT] = "openat",
    [REEL_OP_OPENAT2] = "openat2",
    [REEL_OP_CREAT] = "creat",
    [REEL_OP_CLOSE] = "close",
    [REEL_OP_READ] = "read",
    [REEL_OP_PREAD64] = "pread64",
    [REEL_OP_READV] = "readv",
    [REEL_OP_PREADV] = "preadv",
    [REEL_OP_PREADV2] = "preadv2",
    [REEL_OP_WRITE] = "write",
    [REEL_OP_PWRITE64] = "pwrite64",
    [REEL_OP_WRITEV] = "writev",
    [REEL_OP_PWRITEV] = "pwritev",
    [REEL_OP_PWRITEV2] = "pwritev2",
    [REEL_OP_LSEEK] = "lseek",
    [REEL_OP_FSYNC] = "fsync",
    [REEL_OP_FDATASYNC] = "fdatasync",
    [REEL_OP_SYNC_FILE_RANGE] = "sync_file_range",
    [REEL_OP_SYNCFS] = "syncfs",
    [REEL_OP_STAT] = "stat",
    [REEL_OP_LSTAT] = "lstat",
    [REEL_OP_NEWFSTATAT] = "newfstatat",
    [REEL_OP_STATX] = "statx",
    [REEL_OP_FSTAT] = "fstat",
    [REEL_OP_ACCESS] = "access",
    [REEL_OP_FACCESSAT] = "faccessat",
    [REEL_OP_UNLINK] = "unlink",
    [REEL_OP_UNLINKAT] = "unlinkat",
    [REEL_OP_RENAME] = "rename",
    [REEL_OP_RENAMEAT] = "renameat",
    [REEL_OP_RENAMEAT2] = "renameat2",
    [REEL_OP_MKDIR] = "mkdir",
    [REEL_OP_MKDIRAT] = "mkdirat",
    [REEL_OP_RMDIR] = "rmdir",
    [REEL_OP_TRUNCATE] = "truncate",
    [REEL_OP_FTRUNCATE] = "ftruncate",
    [REEL_OP_FALLOCATE] = "fallocate",
    [REEL_OP_DUP] = "dup",
    [REEL_OP_DUP2] = "dup2",
    [REEL_OP_DUP3] = "dup3",
    [REEL_OP_FCNTL_DUPFD] = "fcntl_dupfd",
    [REEL_OP_GETDENTS64] = "getdents64",
    [REEL_OP_FADVISE64] = "fadvise64",
    [REEL_OP_MMAP] = "mmap",
    [REEL_OP_MSYNC] = "msync",
    [REEL_OP_AIO_SUBMIT] = "aio_submit",
    [REEL_OP_AIO_COMPLETE] = "aio_complete",
    [REEL_OP_URING_SUBMIT] = "uring_submit",
    [REEL_OP_URING_COMPLETE] = "uring_complete",
    [REEL_OP_COPY_FILE_RANGE] = "copy_file_range",
    [REEL_OP_SENDFILE] = "sendfile",
    [REEL_OP_CHMOD] = "chmod",
    [REEL_OP_FCHMOD] = "fchmod",
    [REEL_OP_FCHMODAT] = "fchmodat",
    [REEL_OP_CHOWN] = "chown",
    [REEL_OP_LCHOWN] = "lchown",
    [REEL_OP_FCHOWN] = "fchown",
    [REEL_OP_FCHOWNAT] = "fchownat",
    [REEL_OP_UTIMENSAT] = "utimensat",
    [REEL_OP_LINK] = "link",
    [REEL_OP_LINKAT] = "linkat",
    [REEL_OP_SYMLINK] = "symlink",
    [REEL_OP_SYMLINKAT] = "symlinkat",
    [REEL_OP_READLINK] = "readlink",
    [REEL_OP_READLINKAT] = "readlinkat",
    [REEL_OP_MUNMAP] = "munmap",
    [REEL_OP_FLOCK] = "flock",
    [REEL_OP_FCNTL_LOCK] = "fcntl_lock",
    [REEL_OP_FORK] = "fork",
    [REEL_OP_EXECVE] = "execve",
    [REEL_OP_EXIT] = "exit",
};

const char *reel_op__name(unsigned type)
{
	if (type >= REEL_OP__COUNT || type == REEL_OP_NONE)
		return "?";
	return op_names[type];
}

int reel_op__from_name(const char *name)
{
	if (!name)
		return -EINVAL;
	for (unsigned t = 1; t < REEL_OP__COUNT; t++)
		if (strcmp(op_names[t], name) == 0)
			return t;
	return -EINVAL;
}

int reel_op__is_read(unsigned type)
{
	return type >= REEL_OP_READ && type <= REEL_OP_PREADV2;
}

int reel_op__is_write(unsigned type)
{
	return type >= REEL_OP_WRITE && type <= REEL_OP_PWRITEV2;
}

int reel_op__has_path(unsigned type)
{
	switch (type) {
	case REEL_OP_OPEN:
	case REEL_OP_OPENAT:
	case REEL_OP_OPENAT2:
	case REEL_OP_CREAT:
	case REEL_OP_STAT:
	case REEL_OP_LSTAT:
	case REEL_OP_NEWFSTATAT:
	case REEL_OP_STATX:
	case REEL_OP_ACCESS:
	case REEL_OP_FACCESSAT:
	case REEL_OP_UNLINK:
	case REEL_OP_UNLINKAT:
	case REEL_OP_RENAME:
	case REEL_OP_RENAMEAT:
	case REEL_OP_RENAMEAT2:
	case REEL_OP_MKDIR:
	case REEL_OP_MKDIRAT:
	case REEL_OP_RMDIR:
	case REEL_OP_TRUNCATE:
	case REEL_OP_CHMOD:
	case REEL_OP_FCHMODAT:
	case REEL_OP_CHOWN:
	case REEL_OP_LCHOWN:
	case REEL_OP_FCHOWNAT:
	case REEL_OP_UTIMENSAT:
	case REEL_OP_LINK:
	case REEL_OP_LINKAT:
	case REEL_OP_SYMLINK:
	case REEL_OP_SYMLINKAT:
	case REEL_OP_READLINK:
	case REEL_OP_READLINKAT:
		return 1;
	default:
		return 0;
	}
}

/*
 * The op looks its path up to the end, following a symlink in the last component (a symlink
 * there, or the magic link "/proc/self/fd/N"); lstat, readlink, lchown, unlink, rename, link,
 * AT_SYMLINK_NOFOLLOW do not. opens: count the opens (open, openat, openat2, creat) too,
 * which follow unless O_NOFOLLOW, or O_CREAT|O_EXCL (that fails on a symlink, dangling or not).
 */
int reel_op__follows_link(const struct reel_op *op, int opens)
{
	switch (op->type) {
	case REEL_OP_STAT:
	case REEL_OP_ACCESS:
	case REEL_OP_TRUNCATE:
	case REEL_OP_CHMOD:
	case REEL_OP_CHOWN:
		return 1;
	case REEL_OP_CREAT:
		return opens;
	case REEL_OP_OPEN:
	case REEL_OP_OPENAT:
	case REEL_OP_OPENAT2:
		return opens && !(op->flags & O_NOFOLLOW) &&
		       (op->flags & (O_CREAT | O_EXCL)) != (O_CREAT | O_EXCL);
	case REEL_OP_NEWFSTATAT:
	case REEL_OP_STATX:
	case REEL_OP_FACCESSAT:
	case REEL_OP_FCHMODAT:
	case REEL_OP_FCHOWNAT:
	case REEL_OP_UTIMENSAT:
		return !(op->flags & AT_SYMLINK_NOFOLLOW);
	default:
		return 0;
	}
}

int reel_op__is_copy(unsigned type)
{
	return type == REEL_OP_COPY_FILE_RANGE || type == REEL_OP_SENDFILE;
}

int reel_op__copy_writes(const struct reel_op *op)
{
	/* sendfile's mode holds the fd kind of its destination (FORMAT.md) */
	return op->type == REEL_OP_COPY_FILE_RANGE ||
	       (op->type == REEL_OP_SENDFILE && op->mode == REEL_FD_REG);
}

int reel_op__is_lock(unsigned type)
{
	return type == REEL_OP_FLOCK || type == REEL_OP_FCNTL_LOCK;
}

int reel_op__is_process(unsigned type)
{
	return type == REEL_OP_FORK || type == REEL_OP_EXECVE || type == REEL_OP_EXIT;
}

int reel_op__maps_shared_writable(const struct reel_op *op)
{
	uint32_t type = op->flags & MAP_TYPE;

	/* mmap: flags MAP_*, mode PROT_*, ret the address (FORMAT.md) */
	return op->type == REEL_OP_MMAP && op->ret >= 0 && op->fd >= 0 &&
	       (op->fd_kind == REEL_FD_REG || op->fd_kind == REEL_FD_UNKNOWN) &&
	       (op->mode & PROT_WRITE) && (type == MAP_SHARED || type == MAP_SHARED_VALIDATE);
}

static const char *const kind_names[] = {
    [REEL_FD_UNKNOWN] = "unknown", [REEL_FD_REG] = "reg",     [REEL_FD_DIR] = "dir",
    [REEL_FD_BLK] = "blk",	   [REEL_FD_CHR] = "chr",     [REEL_FD_FIFO] = "fifo",
    [REEL_FD_SOCK] = "sock",	   [REEL_FD_OTHER] = "other",
};

const char *reel_fd_kind__name(unsigned kind)
{
	if (kind >= sizeof(kind_names) / sizeof(kind_names[0]))
		return "?";
	return kind_names[kind];
}

const char *reel_strerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case 0:
		return "success";
	case REEL_E_MAGIC:
		return "not an ioreel trace (bad magic)";
	case REEL_E_VERSION:
		return "unsupported trace format version";
	case REEL_E_TRUNCATED:
		return "trace truncated";
	case REEL_E_CHECKSUM:
		return "trace chunk checksum mismatch";
	case REEL_E_RESERVED:
		return "reserved bits set in trace";
	case REEL_E_CORRUPT:
		return "trace chunk malformed";
	default:
		/* strerror() has a static buffer only for unknown values; known ones are const. */
		return err < REEL_E_BASE ? strerror(err) : "unknown ioreel error";
	}
}

int reel_meta__fd_entry(const char **list, uint32_t *pid, uint32_t *fd, uint64_t *n, int base)
{
	const char *s = *list;

	while (s && *s) {
		unsigned long long p, f, v = 0;
		char *end;
		int ok = 0;

		s += strspn(s, " ");
		if (!*s)
			break;
		p = strtoull(s, &end, 10);
		if (end != s && *end == ':') {
			f = strtoull(end + 1, &end, 10);
			if (*end == ':') {
				v = strtoull(end + 1, &end, base);
				ok = (*end == ' ' || !*end) && p <= UINT32_MAX && f <= UINT32_MAX;
			}
		}
		if (ok) {
			*pid = (uint32_t)p;
			*fd = (uint32_t)f;
			*n = v;
			*list = end;
			return 1;
		}
		s = strchr(s, ' '); /* not an entry: on to the next one */
	}
	*list = s;
	return 0;
}

static int path_is_below(const char *p, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(p, dir, n) && (p[n] == '/' || p[n] == '\0');
}

int reel_path__is_nonfile(const char *path)
{
	static const char *const pseudo[] = {"/proc", "/sys", "/dev"};

	/* /dev/shm is tmpfs: files there are storage like any other */
	if (path_is_below(path, "/dev/shm"))
		return 0;
	if (!strncmp(path, "/memfd:", 7))
		return 1;
	for (size_t i = 0; i < sizeof(pseudo) / sizeof(pseudo[0]); i++) {
		if (path_is_below(path, pseudo[i]))
			return 1;
	}
	return 0;
}
