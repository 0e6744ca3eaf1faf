/* SPDX-License-Identifier: MIT */
/*
 * capture_int.h - the pieces of capture/ behind capture.h: the syscall table, the
 * user-space mirror of each traced process's fd table and cwd, the /proc snapshot, path
 * anonymisation, and the conversion of kernel events into reel ops.
 */
#ifndef IOREEL_CAPTURE_INT_H
#define IOREEL_CAPTURE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include "ioreel.h"
#include "reel.h"

#define CAPTURE_NR_MAX 512 /* = NR_MAX in ioreel.bpf.c */
/* Linux 6.6; Debian 12's headers predate it */
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif

/* ---- capture_sys.c ---- */

struct capture_sysdef {
	unsigned nr;
	uint16_t op;	/* enum reel_op_type, REEL_OP_NONE: bookkeeping only */
	uint32_t flags; /* enum ioreel_sys_flags */
};

const struct capture_sysdef *capture_sys__table(size_t *n);
const struct capture_sysdef *capture_sys__find(unsigned nr);

/* ---- capture_proc.c: per process cwd and fd -> path ---- */

#define CAPTURE_FD_PREV 4

struct capture_fd {
	char *path; /* absolute, NULL when unknown */
	uint8_t kind; /* enum reel_fd_kind */
	bool open;
	bool cloexec;
	uint8_t marks; /* enum capture_fd_mark: what the fd table knows beyond path and kind */
	/*
	 * bpf_ktime_get_ns() at the exit of the syscall that put this file at this fd
	 * (0: found in /proc or inherited). Events reach us in exit order, not in the order
	 * the kernel changed the fd table: see capture_proc__closed_before_bound().
	 */
	uint64_t bound_ns;
	/*
	 * The files the fd named before bound_ns, latest first, with the times they were bound
	 * (path NULL: unknown): a slow close by one thread can span several opens and closes of
	 * the number by another (Redis's bio thread closing an unlinked AOF file).
	 */
	struct capture_fd_prev {
		char *path;
		uint64_t bound_ns;
		uint64_t closed_ns; /* entry of the close that released it (0: replaced, dup2) */
	} prev[CAPTURE_FD_PREV];
	/*
	 * Entry time of the close that released path (open false): path, prev and bound_ns
	 * are kept until the number is bound again, for the ops that entered before it and
	 * come later (0: nothing kept).
	 */
	uint64_t closed_ns;
	/*
	 * When the /proc snapshot at attach found this file here (CLOCK_MONOTONIC, the probes'
	 * clock; 0: an op of the trace bound it, or /proc was asked later). The probes are
	 * attached before the snapshot: an op that entered before it may have acted on a file
	 * the number held before, closed and replaced meanwhile (dovecot's imap opens a message
	 * file, closes it, opens its maildir's new/ on the same number to fsync it).
	 */
	uint64_t seen_ns;
};

enum capture_fd_mark {
	/*
	 * A file of no file system (memfd_create, memfd_secret): its inode is a regular file's,
	 * but its I/O is the application's memory, no storage work, and a replay has no path to
	 * make it at. Ops on it are counted as non-file ops, whatever kind the probe read.
	 */
	CAPTURE_FD_ANON = 1,
	/*
	 * Its path is longer than PATH_MAX: not known (path NULL, /proc not asked: it would cut
	 * it), and neither are the paths relative to it (capture_proc__resolve: -ENAMETOOLONG).
	 */
	CAPTURE_FD_LONG = 2,
};

/* An fd table: one per process, or one for several after clone(CLONE_FILES). */
struct capture_fdtab {
	struct capture_fd *fds;
	int nfds;
	int refs;
	uint64_t pass; /* capture_procs__rename's, so that a shared table is moved once */
};

struct capture_proc {
	pid_t pid;
	char *cwd;     /* NULL: unknown */
	bool cwd_long; /* unknown for being longer than PATH_MAX (as CAPTURE_FD_LONG) */
	/* the directory chroot(2) made its "/" (absolute, as the recorder sees it); NULL: "/" */
	char *root;
	/* the program it runs, the file /proc/self/exe stands for (absolute); NULL: unknown, or
	 * exe_anon: a memfd's (fexecve of one: runc), of no file system */
	char *exe;
	bool exe_anon;
	struct capture_fdtab *ft; /* never NULL */
	/* where it mapped files (recorded mmaps): its munmaps of them are recorded, those of
	 * anonymous memory (malloc's) are not file I/O */
	struct capture_map {
		uint64_t addr, len;
		uint32_t path; /* the mmap's path id */
	} *maps;
	uint32_t nmaps, capmaps;
	bool live;
	struct capture_proc *next;
};

struct capture_procs {
	struct capture_proc *buckets[256];
	int live;
	uint64_t pass;
};

void capture_procs__init(struct capture_procs *ps);
void capture_procs__free(struct capture_procs *ps);
/* Finds pid; creates it (cwd from /proc when it is readable) when create is set. */
struct capture_proc *capture_procs__get(struct capture_procs *ps, pid_t pid, bool create);
/*
 * A new process: a copy of its parent's cwd, and of its fd table, or (shared_files,
 * clone(CLONE_FILES)) the same table.
 */
int capture_procs__fork(struct capture_procs *ps, pid_t parent, pid_t child, bool shared_files);
void capture_procs__exec(struct capture_procs *ps, pid_t pid);
/* close_range(CLOSE_RANGE_UNSHARE): a table shared by clone(CLONE_FILES) becomes p's own copy
 * (the other process keeps the shared one). 0 or -ENOMEM. */
int capture_proc__unshare_fds(struct capture_proc *p);
/* a file (path id) mapped at [addr, addr + len) */
int capture_proc__mapped(struct capture_proc *p, uint64_t addr, uint64_t len, uint32_t path);
/* a munmap of [addr, addr + len): whether it ends part of a file mapping, *path that file's;
 * done (it succeeded): the mappings it covers whole are forgotten */
bool capture_proc__unmapped(struct capture_proc *p, uint64_t addr, uint64_t len, bool done,
			    uint32_t *path);
void capture_procs__exit(struct capture_procs *ps, pid_t pid);

/*
 * A successful rename of from to to (absolute, normalised): every fd and cwd that named from,
 * or a path beneath it, names its new place, as the kernel's own view of the fd (d_path,
 * /proc/PID/fd, strace -y) does. exchange: RENAME_EXCHANGE, both ways. 0 or -ENOMEM.
 */
int capture_procs__rename(struct capture_procs *ps, const char *from, const char *to, bool exchange);
/* Stamps the fd's entry with the time the /proc snapshot found it (capture_fd.seen_ns). */
void capture_proc__set_seen(struct capture_proc *p, int fd, uint64_t seen_ns);
/*
 * An op that entered at enter_ns, before the snapshot found fd's file, on a file of another
 * kind (kind: the one the probe read at its entry, REEL_FD_UNKNOWN: not read): the snapshot's
 * file is a later one, and its path not the op's.
 */
bool capture_proc__seen_other(struct capture_proc *p, int fd, uint64_t enter_ns, unsigned kind);
/* Stamps the fd's entry with the exit time of the syscall that bound it. */
void capture_proc__set_bound(struct capture_proc *p, int fd, uint64_t exit_ns);
/* A close entered before the fd's current file was bound cannot have closed that file. */
bool capture_proc__closed_before_bound(struct capture_proc *p, int fd, uint64_t close_enter_ns);
int capture_proc__set_fd(struct capture_proc *p, int fd, const char *path, unsigned kind,
			 bool cloexec);
struct capture_fd *capture_proc__fd(struct capture_proc *p, int fd);
/* Adds marks (enum capture_fd_mark) to fd's entry, when it is open. */
void capture_proc__mark(struct capture_proc *p, int fd, unsigned marks);
/* /proc's name for a memfd's file, "/memfd:NAME (deleted)": no path of a file system */
bool capture_path__is_memfd(const char *link);
void capture_proc__close(struct capture_proc *p, int fd);
/* A close that entered at enter_ns: the entry is kept for the ops that entered before it. */
void capture_proc__close_at(struct capture_proc *p, int fd, uint64_t enter_ns);
int capture_proc__set_cwd(struct capture_proc *p, const char *path);
/* The cwd is not known any more (a chdir or fchdir to a directory whose path is not), for
 * being longer than PATH_MAX when too_long (capture_proc.cwd_long). */
void capture_proc__forget_cwd(struct capture_proc *p, bool too_long);
/* chroot(2) to path (absolute, as the recorder sees it): the process's absolute paths lie
 * beneath it from now on. 0 or -ENOMEM. */
int capture_proc__set_root(struct capture_proc *p, const char *path);
/* The program an exec ran is path (NULL: not known; anon: a memfd's). 0 or -ENOMEM. */
int capture_proc__set_exe(struct capture_proc *p, const char *path, bool anon);
/*
 * Absolute, lexically normalised path of rel as seen by the process: against dirfd's path
 * (AT_FDCWD: the cwd), or beneath its root when absolute. Falls back to /proc/PID/fd/DIRFD
 * for an fd opened before we knew.
 */
int capture_proc__resolve(struct capture_proc *p, int dirfd, const char *rel, char *out,
			  size_t size);
/* Path of fd: from the table, else (and then remembered) from /proc/PID/fd/FD. */
const char *capture_proc__fd_path(struct capture_proc *p, int fd);
/* Path of fd as seen by an op that entered at enter_ns (before the fd's binding: the previous). */
const char *capture_proc__fd_path_at(struct capture_proc *p, int fd, uint64_t enter_ns);
/* As capture_proc__fd_path_at(), from the fds the capture has seen only, never /proc, and
 * none where it saw the number closed when the op entered: for an op that failed with EBADF,
 * whose fd was not open then (its number may hold a file now) */
const char *capture_proc__fd_path_seen(struct capture_proc *p, int fd, uint64_t enter_ns);

/* ---- capture_procfs.c ---- */

/* Fills p's cwd and fd table from /proc/PID (cwd, fd/N links, fdinfo/N flags); appends to
 * fd_flags_buf and fd_sizes_buf (NUL-terminated, len bytes each) the
 * REEL_META_CAPTURE_FD_FLAGS and _FD_SIZES entries of its files (those that fit), but for
 * the close-on-exec ones of a command held before_exec. */
int capture_procfs__snapshot(struct capture_proc *p, char *fd_flags_buf, char *fd_sizes_buf,
			     size_t len, int before_exec);
/* readlink(2) of a /proc link into buf, NUL-terminated: its length; 0 when it cannot be read;
 * -ENAMETOOLONG when it does not fit in size (readlink cuts it: a prefix names another file) */
ssize_t capture_procfs__readlink(const char *link, char *buf, size_t size);
/*
 * The path of the directory up levels above dir, found as the kernel finds it: the directory
 * dir names now (its symlinks followed), then ".." up times, never above root (NULL: "/")
 * when dir is beneath it, where a chrooted process's ".." stays. Into out; 0, or -errno when
 * dir cannot be reached (gone since, not a directory) or the answer does not fit.
 */
int capture_procfs__dir_up(const char *root, const char *dir, unsigned up, char *out,
			   size_t size);
/* Appends pid's descendants (by /proc/N/stat ppid) to *pids (realloc'd). */
int capture_procfs__descendants(pid_t pid, pid_t **pids, size_t *n);
/* The thread group of a thread id (the id itself when /proc cannot tell). */
pid_t capture_procfs__tgid(pid_t tid);
/* Thread groups listed in a cgroup v2 directory's cgroup.procs. */
int capture_procfs__cgroup_pids(const char *dir, pid_t **pids, size_t *n);

/* ---- capture_anon.c ---- */

struct capture_anon {
	uint64_t k0, k1;
};

int capture_anon__init(struct capture_anon *a); /* a random key from getrandom() */
/* Replaces each component with a keyed hash; "/" structure kept. Paths under /proc, /sys
 * and /dev stay in clear, except the names below /dev/shm (FORMAT.md, meta "anonymized"). */
void capture_anon__path(const struct capture_anon *a, const char *in, char *out, size_t size);

/* ---- capture_conv.c: kernel events -> reel ops ---- */

struct capture_inflight;

struct capture_conv {
	struct reel_writer *w;
	struct capture_procs procs;
	struct capture_inflight *aio;	/* iocb pointer -> its submission */
	struct capture_inflight *uring; /* io_kiocb pointer -> its submission */
	struct capture_inflight *rings; /* io_ring_ctx pointer -> its fd (in op.fd) */
	const struct capture_anon *anon; /* NULL: paths kept */
	uint64_t start_ns;		/* CLOCK_MONOTONIC at time 0 */
	uint64_t events;
	uint64_t nonfile_ops;
	uint64_t lost_items; /* aio/iovec items beyond what the BPF side copies */
	uint64_t unpaired;   /* completions whose submission was not seen */
	uint64_t xattr_ops;  /* setxattr/removexattr that succeeded: counted, not recorded */
	/* path arguments longer than PATH_MAX once absolute: recorded without a path */
	uint64_t paths_too_long;
	/* path arguments whose ".." climbed from a /proc link's directory to where the kernel
	 * could no longer say: kept as the application's /proc name (proc_link_path) */
	uint64_t links_unresolved;
	/* io_uring requests on registered (fixed) files: recorded without their fd and path */
	uint64_t uring_fixed;
	/* io_uring requests of file system ops the capture does not record, by IORING_OP_* */
	uint64_t uring_unrecorded[256];
	/* the IORING_SETUP_* flags of the rings requests were submitted to, all ORed, and
	 * whether any was (rings set up with none) */
	uint32_t uring_setup;
	bool uring_seen;
	/* shared writable file mappings and their bytes: stores through them are no syscall */
	uint64_t shared_wmaps, wmap_bytes;
	/* bytes of async completions (the writer's totals count syscalls' only) */
	uint64_t async_read, async_written;
	/* ops of a process that came after its exit op: left out (io_uring completions of
	 * requests the kernel finished when it tore the process's rings down) */
	uint64_t after_exit;
	int err;	     /* first writer error */
	bool exits_seen;     /* a traced process group ended */
};

int capture_conv__init(struct capture_conv *c, struct reel_writer *w, uint64_t start_ns,
		       const struct capture_anon *anon);
void capture_conv__free(struct capture_conv *c);
/* One ring buffer record. Returns 0 or a writer error. */
int capture_conv__event(struct capture_conv *c, const void *data, size_t size);
/* The io_uring requests of opcodes not recorded (capture_conv.uring_unrecorded): how many,
 * and by opcode into buf ("statx 2, renameat 1") */
uint64_t capture_conv__uring_unrecorded(const struct capture_conv *c, char *buf, size_t size);

/* capture_session.c: the counts a capture ends with, as footer meta (lost_events, capture.*) */
struct capture_stats;
int capture__footer_meta(struct reel_writer *w, const struct capture_stats *st);

#endif /* IOREEL_CAPTURE_INT_H */
