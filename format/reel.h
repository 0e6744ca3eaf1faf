/* SPDX-License-Identifier: MIT */
/*
 * reel.h - the ioreel trace format library: op records, writer, streaming reader.
 *
 * This is the only public header of format/. It depends on libc alone; zstd and
 * the checksum are private to the implementation. format/FORMAT.md is the byte-level
 * specification; this header is the in-memory view of one op.
 *
 * Conventions (as libbpf and liburing): functions return 0 (or a count) on success and
 * a negative error code on failure, and never print. Error codes are -errno, or one of
 * the -REEL_E* codes below for damage that errno cannot name; reel_strerror() names both.
 */
#ifndef IOREEL_REEL_H
#define IOREEL_REEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define REEL_VERSION_MAJOR 1
#define REEL_VERSION_MINOR 4

/*
 * Op types. The numeric values are part of the file format (FORMAT.md, "Op types"):
 * append only, never renumber. Names (reel_op__name) are the syscall names.
 */
enum reel_op_type {
	REEL_OP_NONE = 0,
	/* open family: path, flags, mode; ret is the new fd */
	REEL_OP_OPEN = 1,
	REEL_OP_OPENAT = 2,
	REEL_OP_OPENAT2 = 3,
	REEL_OP_CREAT = 4,
	REEL_OP_CLOSE = 5,
	/* data: fd, offset (the file position used, for read/write/readv/writev too), len */
	REEL_OP_READ = 6,
	REEL_OP_PREAD64 = 7,
	REEL_OP_READV = 8,
	REEL_OP_PREADV = 9,
	REEL_OP_PREADV2 = 10,
	REEL_OP_WRITE = 11,
	REEL_OP_PWRITE64 = 12,
	REEL_OP_WRITEV = 13,
	REEL_OP_PWRITEV = 14,
	REEL_OP_PWRITEV2 = 15,
	REEL_OP_LSEEK = 16,
	/* durability */
	REEL_OP_FSYNC = 17,
	REEL_OP_FDATASYNC = 18,
	REEL_OP_SYNC_FILE_RANGE = 19,
	REEL_OP_SYNCFS = 20,
	/* metadata */
	REEL_OP_STAT = 21,
	REEL_OP_LSTAT = 22,
	REEL_OP_NEWFSTATAT = 23,
	REEL_OP_STATX = 24,
	REEL_OP_FSTAT = 25,
	REEL_OP_ACCESS = 26,
	REEL_OP_FACCESSAT = 27,
	REEL_OP_UNLINK = 28,
	REEL_OP_UNLINKAT = 29,
	REEL_OP_RENAME = 30,
	REEL_OP_RENAMEAT = 31,
	REEL_OP_RENAMEAT2 = 32,
	REEL_OP_MKDIR = 33,
	REEL_OP_MKDIRAT = 34,
	REEL_OP_RMDIR = 35,
	REEL_OP_TRUNCATE = 36,
	REEL_OP_FTRUNCATE = 37,
	REEL_OP_FALLOCATE = 38,
	/* fd table */
	REEL_OP_DUP = 39,
	REEL_OP_DUP2 = 40,
	REEL_OP_DUP3 = 41,
	REEL_OP_FCNTL_DUPFD = 42,
	REEL_OP_GETDENTS64 = 43,
	REEL_OP_FADVISE64 = 44,
	REEL_OP_MMAP = 45,
	REEL_OP_MSYNC = 46,
	/* asynchronous I/O: one record per request, not per syscall */
	REEL_OP_AIO_SUBMIT = 47,     /* one iocb of an io_submit */
	REEL_OP_AIO_COMPLETE = 48,   /* one io_event returned by io_getevents */
	REEL_OP_URING_SUBMIT = 49,   /* one io_uring SQE */
	REEL_OP_URING_COMPLETE = 50, /* one io_uring CQE */
	/* version 1.1: data moved between two fds in the kernel (fd -> fd2) */
	REEL_OP_COPY_FILE_RANGE = 51,
	REEL_OP_SENDFILE = 52,
	/* version 1.1: inode attributes and links */
	REEL_OP_CHMOD = 53,
	REEL_OP_FCHMOD = 54,
	REEL_OP_FCHMODAT = 55,
	REEL_OP_CHOWN = 56,
	REEL_OP_LCHOWN = 57,
	REEL_OP_FCHOWN = 58,
	REEL_OP_FCHOWNAT = 59,
	REEL_OP_UTIMENSAT = 60,
	REEL_OP_LINK = 61,
	REEL_OP_LINKAT = 62,
	REEL_OP_SYMLINK = 63,
	REEL_OP_SYMLINKAT = 64,
	REEL_OP_READLINK = 65,
	REEL_OP_READLINKAT = 66,
	/* added in version 1.2 */
	REEL_OP_MUNMAP = 67,
	/* 1.3: file locks */
	REEL_OP_FLOCK = 68,	  /* flock(2) */
	REEL_OP_FCNTL_LOCK = 69, /* fcntl F_GETLK, F_SETLK, F_SETLKW and their F_OFD_* forms */
	/* 1.4: processes, for the fds and locks they share and leave: no fd, no path */
	REEL_OP_FORK = 70,   /* a process made another (fork, vfork, clone without CLONE_THREAD) */
	REEL_OP_EXECVE = 71, /* a process began a new program: its close-on-exec fds closed */
	REEL_OP_EXIT = 72,   /* a process's last thread ended: what it had open is closed */
	REEL_OP__COUNT
};

/* What an fd refers to (from the inode's S_IFMT, or the anon inode name). */
enum reel_fd_kind {
	REEL_FD_UNKNOWN = 0,
	REEL_FD_REG = 1,
	REEL_FD_DIR = 2,
	REEL_FD_BLK = 3,
	REEL_FD_CHR = 4,
	REEL_FD_FIFO = 5,
	REEL_FD_SOCK = 6,
	REEL_FD_OTHER = 7, /* eventfd, timerfd, io_uring, ... */
};

/*
 * One operation. Which fields an op type uses is specified in FORMAT.md ("Fields per
 * op type"); unused fields are zero (path ids 0, fds -1 where FORMAT.md says so).
 *
 * Times are nanoseconds since the trace's start (meta "start_mono_ns" / "start_wall_ns"
 * anchor it). ret is the syscall's return value, or -errno.
 */
struct reel_op {
	uint16_t type;	  /* enum reel_op_type */
	uint8_t fd_kind;  /* enum reel_fd_kind of fd */
	uint8_t subop;	  /* async: IOCB_CMD_* (libaio) or IORING_OP_* (io_uring), raw ABI values */
	uint32_t pid;	  /* tgid */
	uint32_t tid;	  /* thread id */
	int32_t fd;	  /* fd operated on, or -1 */
	int32_t fd2;	  /* dup*: new fd asked for; renameat*: new dirfd; else -1 */
	uint32_t path;	  /* path id (reel_writer__path / reel_reader__path), 0 = none */
	uint32_t path2;	  /* rename*: the new path id */
	uint32_t flags;	  /* open O_*, AT_*, RWF_*, sync_file_range / msync / mmap flags */
	uint32_t mode;	  /* open/mkdir mode, lseek whence, fadvise advice, fallocate mode, prot */
	uint64_t offset;  /* file offset (position used for read/write), lseek offset */
	uint64_t len;	  /* bytes asked for */
	uint64_t aux;	  /* async: aio_data / io_uring user_data; mmap/msync: address */
	uint64_t ctx;	  /* async: aio_context_t, or the io_uring ring's fd */
	int64_t ret;	  /* return value, or -errno */
	uint64_t start_ns; /* entry (async: submission) */
	uint64_t end_ns;   /* exit (async: completion record's time, = start for submits) */
	uint64_t sched_ns; /* replay results: when the replayer scheduled the op; else 0 */
	/* replay results: of the op's lateness (start_ns - sched_ns), the time it waited for
	 * ops of other threads it is kept after (version 1.2); else 0 */
	uint64_t wait_ns;
};

/* Errors beyond errno: damage a decoder must tell apart (FORMAT.md, "Errors"). */
enum reel_error {
	REEL_E_BASE = 4096,
	REEL_E_MAGIC,	 /* not an ioreel trace */
	REEL_E_VERSION,	 /* unsupported major version */
	REEL_E_TRUNCATED, /* input ends inside a chunk (or before the header ends) */
	REEL_E_CHECKSUM, /* chunk checksum mismatch */
	REEL_E_RESERVED, /* reserved bits or fields not zero */
	REEL_E_CORRUPT,	 /* checksum fine but contents malformed */
};

const char *reel_strerror(int err); /* err as returned (negative) or positive */

const char *reel_op__name(unsigned type);	 /* "pread64"; "?" when unknown */
int reel_op__from_name(const char *name);	 /* type, or -EINVAL */
int reel_op__is_read(unsigned type);		 /* read, pread64, readv, preadv, preadv2 */
int reel_op__is_write(unsigned type);		 /* write, pwrite64, writev, pwritev, pwritev2 */
int reel_op__has_path(unsigned type);		 /* takes a path argument (open, stat, ...) */
/* the op follows a symlink in its path's last component; opens: opens and creat count too */
int reel_op__follows_link(const struct reel_op *op, int opens);
int reel_op__is_copy(unsigned type);		 /* copy_file_range, sendfile: fd -> fd2 */
int reel_op__is_lock(unsigned type);		 /* flock, fcntl_lock */
int reel_op__is_process(unsigned type);		 /* fork, execve, exit */
/* a copy op whose destination is a file (copy_file_range; sendfile to a regular file): its
 * bytes count as written as well as read */
int reel_op__copy_writes(const struct reel_op *op);
/* a successful mmap of a file, shared and writable: what the application stores through it
 * reaches the file without a syscall, so it is in no trace (the Go and GNU linkers write
 * their output so) */
int reel_op__maps_shared_writable(const struct reel_op *op);
const char *reel_fd_kind__name(unsigned kind); /* "reg", "dir", "blk", ... */
/*
 * A path under /proc, /sys or /dev (but /dev/shm, tmpfs): not storage. A replay and a fio
 * export leave ops on such files out as the application's think time (fio's own disk-util
 * reads of /sys/block/DEV/stat, a program's /proc/self/stat). So is a memfd's name as /proc
 * and strace -y show it, "/memfd:NAME (deleted)": a file in memory, of no file system, which
 * older recordings and strace imports name so.
 */
int reel_path__is_nonfile(const char *path);

/* Well-known meta keys (FORMAT.md, "Meta"). Values are UTF-8 strings. */
#define REEL_META_TOOL "tool"		   /* "ioreel record 0.1", "ioreel import strace" */
#define REEL_META_HOST "host"
#define REEL_META_KERNEL "kernel"
#define REEL_META_START_WALL_NS "start_wall_ns" /* CLOCK_REALTIME at time 0, decimal */
#define REEL_META_START_MONO_NS "start_mono_ns" /* CLOCK_MONOTONIC at time 0, decimal */
#define REEL_META_COMMAND "command"	   /* traced command line */
#define REEL_META_PIDS "pids"		   /* comma-separated */
#define REEL_META_CGROUP "cgroup"
#define REEL_META_LOST_EVENTS "lost_events" /* decimal; written at the end */
/* async completions the recorder could not pair with their submission; at the end */
#define REEL_META_CAPTURE_UNPAIRED "capture.unpaired"
/* setxattr/removexattr calls (any form) that succeeded: not recorded; at the end */
#define REEL_META_CAPTURE_XATTR_OPS "capture.xattr_ops"
/* ops of a process after its exit op, left out (io_uring completions); at the end */
#define REEL_META_CAPTURE_AFTER_EXIT "capture.after_exit"
/* read/write/readv/writev not at the position their entry saw (another thread or process on
 * the same open file went first): recorded where they took place; at the end */
#define REEL_META_CAPTURE_POS_MOVED "capture.pos_moved"
/* why the capture ended: "exit" (the command, or every followed process), "duration" (-d),
 * "signal" (SIGINT, SIGTERM to the recorder); at the end */
#define REEL_META_CAPTURE_STOPPED_BY "capture.stopped_by"
/* with stopped_by "signal": which one ("SIGINT", "SIGTERM"); at the end */
#define REEL_META_CAPTURE_STOP_SIGNAL "capture.stop_signal"
/* the share of all CPUs' time the machine was busy during the capture, 0-1 ("0.412"), and
 * during a replay (reel_cpu.c); at the end */
#define REEL_META_CAPTURE_CPU_BUSY "capture.cpu_busy"
#define REEL_META_REPLAY_CPU_BUSY "replay.cpu_busy"
/* the IORING_SETUP_* flags of the rings the application submitted to, ORed: "0x3108
 * (CQSIZE|COOP_TASKRUN|SINGLE_ISSUER|DEFER_TASKRUN)", "0" for none; absent: no io_uring
 * request recorded */
#define REEL_META_CAPTURE_URING_SETUP "capture.uring_setup"
#define REEL_URING_SETUP_DEFER_TASKRUN (1U << 13) /* IORING_SETUP_DEFER_TASKRUN (6.1) */
/* path arguments left out for being longer than PATH_MAX once absolute; at the end */
#define REEL_META_CAPTURE_PATHS_TOO_LONG "capture.paths_too_long"
#define REEL_META_ANONYMIZED "anonymized"   /* "1" when paths were anonymised */
/* files open before the capture with flags that change what their I/O costs (O_DIRECT,
 * O_DSYNC, O_SYNC): "PID:FD:FLAGS" (FLAGS in octal, as fdinfo), space-separated; in the head */
#define REEL_META_CAPTURE_FD_FLAGS "capture.fd_flags"
/* regular files open before the capture and their sizes then: "PID:FD:SIZE" (decimal),
 * space-separated; in the head */
#define REEL_META_CAPTURE_FD_SIZES "capture.fd_sizes"
/*
 * The next "PID:FD:N" entry of such a list (N in base: 8 for capture.fd_flags, 10 for
 * capture.fd_sizes): 1 with the fields set and *list moved past it, 0 at the end. Entries
 * that do not parse are skipped, so that a reader does without them as without the list.
 */
int reel_meta__fd_entry(const char **list, uint32_t *pid, uint32_t *fd, uint64_t *n, int base);
/* a time window of another trace (ioreel slice): its path, and the window in its times */
#define REEL_META_SLICE_OF "slice.of"
#define REEL_META_SLICE_FROM_NS "slice.from_ns"
#define REEL_META_SLICE_TO_NS "slice.to_ns"
/* the trace sliced was damaged: what that lost, in words; the ops it lost (decimal or
 * "unknown"); of them, how many may have started in the window (decimal or "unknown") */
#define REEL_META_SLICE_SOURCE_DAMAGE "slice.source_damage"
#define REEL_META_SLICE_SOURCE_OPS_LOST "slice.source_ops_lost"
#define REEL_META_SLICE_WINDOW_OPS_LOST "slice.window_ops_lost"
#define REEL_META_REPLAY_OF "replay.of"	   /* path of the trace replayed */
/* the replayed trace's start_wall_ns: which capture a result belongs to, wherever it moved */
#define REEL_META_REPLAY_OF_START "replay.of_start_wall_ns"
#define REEL_META_REPLAY_TARGETS "replay.targets"
#define REEL_META_REPLAY_ENGINE "replay.engine"
#define REEL_META_REPLAY_TIMING "replay.timing"
#define REEL_META_REPLAY_SPEED "replay.speed"

/* Totals kept by the writer and stored in the footer. */
struct reel_totals {
	uint64_t ops;
	uint64_t ops_by_type[REEL_OP__COUNT];
	uint64_t bytes_read;	/* sum of positive ret of read-type ops */
	uint64_t bytes_written; /* sum of positive ret of write-type ops */
	uint64_t first_start_ns;
	uint64_t last_end_ns;
	uint64_t chunks;
};

/* ---- writer ---- */

struct reel_writer;

struct reel_writer_opts {
	uint32_t ops_per_chunk; /* 0: default */
	int zstd_level;		/* 0: default */
};

/* Creates (truncates) path. opts may be NULL. */
int reel_writer__open(const char *path, const struct reel_writer_opts *opts,
		      struct reel_writer **out);
/* Meta set before the first op goes in the head; later, in the footer. Last value wins. */
int reel_writer__meta(struct reel_writer *w, const char *key, const char *value);
/* Interns a path; *id is stable for the writer's life. Ids start at 1. */
int reel_writer__path(struct reel_writer *w, const char *path, uint32_t *id);
/* Appends one op. Within one tid, ops must come in issue order. */
int reel_writer__add(struct reel_writer *w, const struct reel_op *op);
/* Ends the current chunk now, so that everything so far survives a crash. */
int reel_writer__flush(struct reel_writer *w);
const struct reel_totals *reel_writer__totals(const struct reel_writer *w);
/* Flushes, writes the footer, closes and frees. Frees even on error. */
int reel_writer__close(struct reel_writer *w);

/* ---- reader ---- */

struct reel_reader;

/* Opens and checks the header and head meta. Fails with -REEL_E_MAGIC etc. */
int reel_reader__open(const char *path, struct reel_reader **out);
/* Same over a memory buffer, which must outlive the reader (fuzzing, tests). */
int reel_reader__open_buffer(const void *buf, size_t len, struct reel_reader **out);
/*
 * Next op: 1 with *op filled, 0 at the end, negative on damage. After damage the
 * caller may call again: the reader skips to the next whole chunk and goes on.
 */
int reel_reader__next(struct reel_reader *r, struct reel_op *op);
/* Byte offset in the file of the last damage reported by next(). */
uint64_t reel_reader__damage_offset(const struct reel_reader *r);
/* The file's minor version (a field added in a later one is 0 in an older file). */
unsigned reel_reader__minor(const struct reel_reader *r);

/* What a damaged region cost the reading (FORMAT.md, "What damage costs"). */
#define REEL_LOST_META 1U   /* the head meta: host, kernel, command... */
#define REEL_LOST_OPS 2U    /* ops: ops_lost of them, or REEL_OPS_UNKNOWN */
#define REEL_LOST_FOOTER 4U /* the footer: totals, footer meta (lost_events...), chunk index */
#define REEL_OPS_UNKNOWN UINT64_MAX

struct reel_damage {
	uint64_t offset;   /* where the damage was found */
	uint64_t resume;   /* where the reading went on; the end of the input if it did not */
	int err;	   /* negative: -REEL_E_* or -errno */
	unsigned lost;	   /* REEL_LOST_* bits; 0: nothing is missing of what was written */
	uint64_t ops_lost; /* with REEL_LOST_OPS: a count, or REEL_OPS_UNKNOWN */
	bool truncated;	   /* the input ends in or right after the region */
	/* the footer's index named the lost ops' chunks: they started in [first, last] */
	bool times_known;
	uint64_t lost_first_ns;
	uint64_t lost_last_ns;
};

/* Every damage reported so far, added up. */
struct reel_damage_sum {
	uint64_t regions;
	uint64_t first_offset;
	unsigned lost;	   /* REEL_LOST_* of all regions */
	uint64_t ops_lost; /* exact once the reading is over and the footer's total is known */
	bool truncated;
	uint64_t truncated_at; /* where the input ends, when truncated */
	/*
	 * Once the reading is over and the footer was read: its total and the ops read, which
	 * give ops_lost; region_ops is what the regions held by their own count (it differs
	 * when a chunk went missing whole, or a skipped one was a repeat). Else footer_ops is
	 * REEL_OPS_UNKNOWN.
	 */
	uint64_t footer_ops;
	uint64_t ops_read;
	uint64_t region_ops;
};

/* The last damage reported by next(). */
void reel_reader__damage(const struct reel_reader *r, struct reel_damage *d);
void reel_reader__damage_sum(const struct reel_reader *r, struct reel_damage_sum *s);
/*
 * What one region held, in words, for a person: "trace chunk checksum mismatch: skipped
 * the footer (totals, chunk index, late meta such as lost_events); no ops in it". What the
 * trace lost is the sum's to say. Returns buf.
 */
const char *reel_damage__describe(const struct reel_damage *d, char *buf, size_t len);
/* What all the damage cost, e.g. "16 ops lost" or "no ops lost, only the footer". */
const char *reel_damage_sum__describe(const struct reel_damage_sum *s, char *buf, size_t len);
/* The line every command ends with: "NAME is damaged at byte N (2 regions): 16 ops lost". */
const char *reel_damage_sum__headline(const struct reel_damage_sum *s, const char *name, char *buf,
				      size_t len);
/*
 * Why a trace yielded no op at all, for a command that has nothing to work on: "truncated
 * at byte 100: no ops before the damage", "damaged at byte 254: no op could be read (...)",
 * or, undamaged, "the trace holds no ops".
 */
const char *reel_damage_sum__no_ops(const struct reel_damage_sum *s, char *buf, size_t len);
/* Path string of an id seen so far (ids are defined before use); NULL if unknown. */
const char *reel_reader__path(const struct reel_reader *r, uint32_t id);
/*
 * Meta value or NULL. Head meta is there after open; footer meta too when the input
 * is seekable and its footer is whole (else once next() has reached the footer).
 */
const char *reel_reader__meta(const struct reel_reader *r, const char *key);
size_t reel_reader__meta_count(const struct reel_reader *r);
void reel_reader__meta_at(const struct reel_reader *r, size_t i, const char **key,
			  const char **value);
/* Footer totals (read at open when seekable), or NULL when there is no valid footer. */
const struct reel_totals *reel_reader__totals(const struct reel_reader *r);
void reel_reader__close(struct reel_reader *r);

/* The machine's CPU time so far, busy and idle, from /proc/stat (reel_cpu.c). */
struct reel_cpu_sample {
	uint64_t total, idle; /* clock ticks; idle counts iowait */
};
int reel_cpu__sample(struct reel_cpu_sample *s); /* 0, or -1 when /proc/stat cannot say */
/* the share of the CPUs' time busy between two samples, 0-1; -1 when not known */
double reel_cpu__busy(const struct reel_cpu_sample *a, const struct reel_cpu_sample *b);

#ifdef __cplusplus
}
#endif

#endif /* IOREEL_REEL_H */
