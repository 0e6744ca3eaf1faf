/* SPDX-License-Identifier: MIT */
/*
 * ioreel.h - the events the BPF programs (ioreel.bpf.c) send to capture/ through the ring
 * buffer. A private contract between the two halves of one binary, not the trace format:
 * capture/ turns these into reel_op records. Fixed-width types and explicit padding only,
 * so that the BPF and the host compilers agree on every offset.
 */
#ifndef IOREEL_BPF_EVENT_H
#define IOREEL_BPF_EVENT_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define IOREEL_PATH_MAX 4096
/* Variable part of a syscall event: one or two NUL-terminated paths, or one raw user array. */
#define IOREEL_DATA_MAX (2 * IOREEL_PATH_MAX)
/* io_submit / io_getevents / readv: items copied per syscall; beyond that they are counted. */
#define IOREEL_AIO_MAX 64
/* io_events one io_getevents event carries: 32 bytes each, data[] whole. InnoDB's reaper asks
 * for up to 256 a call; at 64, a MariaDB capture lost 3.6 % of its completions. */
#define IOREEL_AIO_EVENTS_MAX (IOREEL_DATA_MAX / 32)
#define IOREEL_IOV_MAX 64
/* vectored aio / io_uring requests: iovecs summed per request */
#define IOREEL_REQ_IOV_MAX 8

enum ioreel_event_type {
	IOREEL_EV_SYS = 1,	   /* one syscall, entry and exit paired */
	IOREEL_EV_FORK = 2,	   /* a traced process forked: pid = parent, child_pid = child tgid */
	IOREEL_EV_EXEC = 3,	   /* a traced process exec'd: close-on-exec fds go */
	IOREEL_EV_EXIT = 4,	   /* a traced thread group ended: its last thread, status */
	IOREEL_EV_URING_SUBMIT = 5, /* one io_uring SQE accepted */
	IOREEL_EV_URING_COMPLETE = 6, /* one io_uring CQE posted */
	IOREEL_EV_SYS_SHORT = 7,   /* one syscall in the short form (struct ioreel_sys_short) */
};

/* What the syscall table (map sys_info) says about a syscall number. */
enum ioreel_sys_flags {
	IOREEL_SYS_TRACE = 1 << 0,    /* traced at all */
	IOREEL_SYS_FD0 = 1 << 1,      /* args[0] is an fd: read its file's kind, f_pos, f_flags */
	IOREEL_SYS_FD1 = 1 << 2,      /* args[1] is an fd (mmap's is args[4]: FD4) */
	IOREEL_SYS_FD4 = 1 << 3,
	IOREEL_SYS_PATH0 = 1 << 4,    /* args[0] is a path string */
	IOREEL_SYS_PATH1 = 1 << 5,    /* args[1] is a path string */
	IOREEL_SYS_NEWPATH1 = 1 << 6, /* second path: args[1] (rename) */
	IOREEL_SYS_NEWPATH3 = 1 << 7, /* second path: args[3] (renameat*) */
	IOREEL_SYS_RETFD = 1 << 8,    /* ret is a new fd: read its kind at exit */
	IOREEL_SYS_IOV1 = 1 << 9,     /* args[1] is an iovec array of args[2] entries */
	IOREEL_SYS_AIO_SUBMIT = 1 << 10, /* args[2] is iocb *[args[1]] */
	IOREEL_SYS_AIO_EVENTS = 1 << 11, /* args[3] is io_event[ret] */
	IOREEL_SYS_FDATCWD = 1 << 12, /* args[0] is a dirfd (AT_FDCWD allowed) */
	IOREEL_SYS_NOSEND = 1 << 13,  /* entry kept for other probes (io_uring_enter), no event */
	/*
	 * A positioned write (pwrite64, pwritev, pwritev2): through an O_APPEND fd, or with
	 * pwritev2's RWF_APPEND (RWF5) unless RWF_NOAPPEND, the kernel writes at i_size, not at
	 * the offset given, and moves no f_pos. isize then is where it landed: i_size at exit less
	 * ret (the entry's is stale when another appender went first).
	 */
	IOREEL_SYS_PWRITE = 1 << 14,
	IOREEL_SYS_HOW2 = 1 << 15,    /* openat2: struct open_how at args[2] -> pos (flags), isize (mode) */
	IOREEL_SYS_SHORT = 1 << 16,   /* fd, args[2], an offset are all it takes: may go short */
	IOREEL_SYS_OFF3 = 1 << 17,    /* the offset is args[3] (else the fd's f_pos at entry) */
	IOREEL_SYS_NEWPATH2 = 1 << 18, /* second path: args[2] (symlinkat) */
	/*
	 * Copies (copy_file_range, sendfile): the FD0/FD1 fd is the source, OUT0/OUT2 names the
	 * destination fd; a loff_t * may follow each fd (INPTR, OUTPTR): when not NULL its value
	 * is the position, else the fd's f_pos. Read at entry, before the kernel moves them (a
	 * *loff_t whose page is not mapped there: at exit, less the bytes copied).
	 */
	IOREEL_SYS_OUT0 = 1 << 19,    /* args[0] is the destination fd (sendfile) */
	IOREEL_SYS_OUT2 = 1 << 20,    /* args[2] is the destination fd (copy_file_range) */
	IOREEL_SYS_INPTR = 1 << 21,   /* the arg after the source fd is a loff_t * (or NULL) */
	IOREEL_SYS_OUTPTR = 1 << 22,  /* the arg after the destination fd is a loff_t * (or NULL) */
	/*
	 * readlink(at): the arg after the PATH0/PATH1 path is the buffer the kernel filled with
	 * ret bytes, not NUL-terminated. Read at exit, NUL-terminated, sent as path 1 (len1).
	 */
	IOREEL_SYS_LINKBUF = 1 << 23,
	/*
	 * read, write, readv, writev: the call moves the fd's f_pos by what it returned, so it
	 * took place at f_pos at exit less ret. The f_pos at entry is stale when another thread
	 * or process sharing the open file moved it meanwhile: a regular file's f_pos is taken
	 * under its f_pos_lock (when the file is shared) after sys_enter, and moved before the
	 * unlock. Through an O_APPEND fd the kernel writes at i_size under the inode's lock and
	 * moves f_pos past what it wrote; the i_size at entry is stale the same way.
	 */
	IOREEL_SYS_POS_MOVES = 1 << 24,
	/*
	 * The stat family: the buffer the kernel filled, a struct stat at args[1] (stat, lstat)
	 * or args[2] (newfstatat), a struct statx at args[4]. Read at exit when it succeeded:
	 * the kind and size found go to ret_kind and ret_size.
	 */
	IOREEL_SYS_STAT1 = 1 << 25,
	IOREEL_SYS_STAT2 = 1 << 26,
	IOREEL_SYS_STATX4 = 1 << 27,
	/*
	 * fcntl: when args[1] is a lock command (IOREEL_F_*LK*), args[2] is a struct flock *.
	 * Its request is read at entry (the kernel writes a get command's answer over it) into
	 * the fcntl's unused args: args[3] = l_start, args[4] = l_len, args[5] = l_type |
	 * l_whence << 16 | IOREEL_LOCK_SEEN; args[5] = 0 when it could not be read. A get
	 * command's answer, the l_type found, goes to ret_size (+ 1; 0: unread).
	 */
	IOREEL_SYS_LOCK2 = 1 << 28,
	IOREEL_SYS_RWF5 = 1 << 29,    /* args[5] is RWF_* flags (preadv2, pwritev2) */
};

/* pwritev2's flags that make it append, or not (include/uapi/linux/fs.h); and O_APPEND */
#define IOREEL_RWF_APPEND 0x10
#define IOREEL_RWF_NOAPPEND 0x20
#define IOREEL_O_APPEND 02000

/* Whether a positioned write (IOREEL_SYS_PWRITE) appends: see there. */
static inline int ioreel_pwrite_appends(__u32 sys_flags, __u32 f_flags, __u64 rwf)
{
	if (!(sys_flags & IOREEL_SYS_PWRITE))
		return 0;
	if (!(sys_flags & IOREEL_SYS_RWF5))
		rwf = 0;
	return (rwf & IOREEL_RWF_APPEND) ||
	       ((f_flags & IOREEL_O_APPEND) && !(rwf & IOREEL_RWF_NOAPPEND));
}

/* fcntl's lock commands (asm-generic/fcntl.h, 64-bit: the *64 forms are the same numbers) */
#define IOREEL_F_GETLK 5
#define IOREEL_F_SETLK 6
#define IOREEL_F_SETLKW 7
#define IOREEL_F_OFD_GETLK 36
#define IOREEL_F_OFD_SETLK 37
#define IOREEL_F_OFD_SETLKW 38
#define IOREEL_LOCK_SEEN (1ULL << 32)

/* struct flock as the x86_64 kernel reads it from user memory */
struct ioreel_flock {
	__s16 l_type;
	__s16 l_whence;
	__u32 pad;
	__s64 l_start;
	__s64 l_len;
	__s32 l_pid;
	__u32 pad2;
};

static inline int ioreel_is_lock_cmd(__u64 cmd)
{
	return (cmd >= IOREEL_F_GETLK && cmd <= IOREEL_F_SETLKW) ||
	       (cmd >= IOREEL_F_OFD_GETLK && cmd <= IOREEL_F_OFD_SETLKW);
}

static inline int ioreel_is_getlk_cmd(__u64 cmd)
{
	return cmd == IOREEL_F_GETLK || cmd == IOREEL_F_OFD_GETLK;
}

struct ioreel_sys_info {
	__u32 flags;
};

struct ioreel_hdr {
	__u8 type;    /* enum ioreel_event_type */
	__u8 fd_kind; /* S_IFMT >> 12 of the fd's inode, 0 when unknown */
	__u16 size;   /* bytes of the whole event, data included */
	__u32 pid;    /* tgid */
	__u32 tid;
	__u32 nr;     /* syscall number; io_uring: IORING_OP_* */
};

struct ioreel_sys_event {
	struct ioreel_hdr hdr;
	__s64 ret;
	__u64 args[6];
	__u64 start_ns; /* bpf_ktime_get_ns() at sys_enter */
	__u64 end_ns;	/* at sys_exit */
	/* file->f_pos of the fd argument at entry; POS_MOVES calls that moved it: where they
	 * took place (see IOREEL_SYS_POS_MOVES) */
	__u64 pos;
	__u64 isize;	/* its inode's i_size at entry; O_APPEND writes: where they landed */
	__u32 f_flags;	/* its file->f_flags */
	__u16 len0;	/* bytes of path 0 (with NUL) or of the raw array, at data[0] */
	__u16 len1;	/* bytes of path 1 (with NUL), at data[len0] */
	__u8 ret_kind;	/* S_IFMT >> 12 of a returned fd's inode */
	__u8 has_pos;	/* the fd was open: fd_kind, pos, isize, f_flags valid */
	__u16 items;	/* aio/iovec items copied into data */
	__u32 lost_items; /* aio/iovec items beyond IOREEL_*_MAX */
	/* open family: the returned fd's inode i_size at exit, which for a file that was there
	 * is its size before the application wrote it; the stat family: the size it returned
	 * (ret_kind: S_IFMT >> 12 of the mode it returned); 0 for other syscalls */
	__u64 ret_size;
	char data[IOREEL_DATA_MAX];
};

/* The part of struct ioreel_sys_event before data[]: the whole event of most syscalls. */
struct ioreel_sys_event_fixed {
	struct ioreel_hdr hdr;
	__s64 ret;
	__u64 args[6];
	__u64 start_ns, end_ns, pos, isize;
	__u32 f_flags;
	__u16 len0, len1;
	__u8 ret_kind, has_pos;
	__u16 items;
	__u32 lost_items;
	__u64 ret_size;
};

/*
 * data[] of a copy (IOREEL_SYS_OUT0 / OUT2; len0 = its size). The source is described by the
 * fixed part as for any fd syscall, except that pos is where it was read (*loff_t when given).
 */
struct ioreel_copy_data {
	__u64 pos_out;	/* where the destination was written: *loff_t, else its f_pos at entry */
	__u8 out_kind;	/* S_IFMT >> 12 of the destination's inode, 0 when unknown */
	__u8 out_open;	/* the destination fd was open at entry: out_kind, its f_pos valid */
	__u8 pos_fault; /* bit 0: the source's *loff_t, bit 1: the destination's, unreadable */
	__u8 pad[5];
};

/*
 * IOREEL_EV_SYS_SHORT: a syscall marked IOREEL_SYS_SHORT (read, write, pread64, pwrite64) on an
 * open fd without O_APPEND, done within 2^32 ns: most events. 56 bytes, one cache line with
 * the ring buffer's record header, where struct ioreel_sys_event_fixed takes two. capture/
 * expands it: args[0] = fd, args[2] = len, args[3] or pos = off, has_pos = 1.
 */
struct ioreel_sys_short {
	struct ioreel_hdr hdr;
	__u64 start_ns;
	__u32 dur_ns;
	__s32 fd;
	__s64 ret;
	__u64 len;
	__u64 off;
};

/*
 * IOREEL_EV_FORK / EXEC / EXIT: hdr.pid, hdr.tid are the thread that forked, exec'd, or was
 * the last of its group to end. time_ns: FORK once the child exists (before it can run),
 * EXEC once the new program is in place, EXIT before the kernel closes the group's files.
 */
struct ioreel_proc_event {
	struct ioreel_hdr hdr;
	__u64 time_ns;
	__u32 child_pid; /* FORK: the new tgid */
	__u32 flags;	 /* FORK: enum ioreel_proc_flags */
	/*
	 * EXIT: the wait status the parent gets (exit code << 8, or the signal number, | 0x80
	 * with a core dump): signal->group_exit_code after a group exit (exit_group, a fatal
	 * signal), else the group leader's exit_code (the last thread left by exit(2))
	 */
	__s32 status;
	__u32 pad;
};

/*
 * IOREEL_EV_EXEC as sent: the event, then the name the kernel ran the program by
 * (linux_binprm.interp: what /proc/PID/exe names from then on; a script's interpreter,
 * "/dev/fd/N" of an fexecve), NUL-terminated, hdr.size - sizeof(ev) bytes of it (none when
 * it could not be read).
 */
struct ioreel_exec_event {
	struct ioreel_proc_event ev;
	char path[IOREEL_PATH_MAX];
};

enum ioreel_proc_flags {
	IOREEL_PROC_SHARED_FILES = 1, /* clone(CLONE_FILES): the child uses its parent's fd table */
};

/*
 * IOREEL_EV_URING_SUBMIT / COMPLETE: hdr.nr = IORING_OP_* (a completion's: 0 when it has no
 * request, an auxiliary CQE). The opcodes that open or close (IOREEL_URING_OPENAT, OPENAT2,
 * CLOSE) carry what their syscalls' events would: see the fields.
 */
struct ioreel_uring_event {
	struct ioreel_hdr hdr;
	__u64 time_ns;
	__u64 ctx;	 /* struct io_ring_ctx *: identifies the ring */
	__u64 req;	 /* struct io_kiocb *: pairs a completion with its submission */
	__u64 user_data;
	__u64 offset;	 /* OPENAT, OPENAT2: open_how.flags */
	/* OPENAT, OPENAT2: open_how.mode; their completion: the i_size of the file opened */
	__u64 len;
	/* SQE fd (registered-file index with IOREEL_URING_FIXED_FILE); OPENAT, OPENAT2: the
	 * dirfd; CLOSE: the fd it closes */
	__s32 fd;
	__s32 ring_fd;	 /* the io_uring_enter fd it came from, -1 when unknown (SQPOLL) */
	/* OPENAT, OPENAT2, CLOSE: the registered-file slot + 1 they open into or close (0: an fd) */
	__u32 slot;
	__s32 res;	 /* completion result */
	__u32 sqe_flags; /* the request's REQ_F_* flags: their low bits are the SQE's IOSQE_* */
	__u8 fd_kind;	 /* of fd; an OPENAT's or OPENAT2's completion: of the fd it returned */
	__u8 pad;
	__u16 path_len;	 /* OPENAT, OPENAT2 submissions: bytes of the path after the event */
	/* submissions: the SQE's rw_flags as the request keeps them: a read's or write's RWF_*
	 * (struct io_rw), FSYNC's IORING_FSYNC_DATASYNC, SYNC_FILE_RANGE's flags (io_sync) */
	__u32 rw_flags;
	/* submissions: the ring's IORING_SETUP_* flags (io_ring_ctx.flags), which decide when
	 * its completions are posted (DEFER_TASKRUN: when its thread waits for them) */
	__u32 ring_flags;
};

/* IORING_OP_* the capture reads more of (their numbers are the kernel's ABI) */
#define IOREEL_URING_OPENAT 18
#define IOREEL_URING_CLOSE 19
#define IOREEL_URING_OPENAT2 28

/* An OPENAT or OPENAT2 submission: the event, then its path as the application gave it. */
struct ioreel_uring_open {
	struct ioreel_uring_event ev;
	char path[IOREEL_PATH_MAX];
};

/*
 * REQ_F_FIXED_FILE in ioreel_uring_event.sqe_flags, the kernel's copy of IOSQE_FIXED_FILE (bit
 * 0 of both, by definition): the request's fd is an index in the ring's registered files, not
 * an fd of the process.
 */
#define IOREEL_URING_FIXED_FILE 1

/* Indices of the per-CPU counter array (map counters). */
enum ioreel_counter {
	IOREEL_CNT_EVENTS = 0, /* events the kernel side tried to send */
	IOREEL_CNT_LOST = 1,   /* ring buffer full: dropped */
	IOREEL_CNT_NOENTRY = 2, /* no per-thread entry storage: syscall dropped */
	IOREEL_CNT_UNWOKEN = 3, /* bytes sent since this CPU last woke the consumer */
	/* POS_MOVES calls that did not take place at the position their entry saw */
	IOREEL_CNT_POS_MOVED = 4,
	IOREEL_CNT__MAX = 5,
};

#endif /* IOREEL_BPF_EVENT_H */
