/* SPDX-License-Identifier: MIT */
/* ioworkload.h - shared by the pieces of the ground-truth workload (see ioworkload.c). */
#ifndef IOREEL_IOWORKLOAD_H
#define IOREEL_IOWORKLOAD_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Which fields of a log record the trace must agree on. */
enum {
	H_PATH = 1 << 0,
	H_PATH2 = 1 << 1,
	H_FD = 1 << 2,
	H_FD2 = 1 << 3,
	H_OFF = 1 << 4,
	H_LEN = 1 << 5,
	H_RET = 1 << 6,
	H_FLAGS = 1 << 7,
	H_MODE = 1 << 8,
	H_SUBOP = 1 << 9,
	H_AUX = 1 << 10,
	H_CTX = 1 << 11,
};

struct wl_rec {
	const char *op; /* reel_op__name(): the syscall the kernel saw; async ops per request */
	const char *path, *path2;
	const char *kind; /* reel_fd_kind__name() of fd: "reg", "dir" */
	int fd, fd2;
	int64_t off, len, ret;
	uint32_t flags, mode, subop;
	uint64_t aux, ctx;
	unsigned has;
	/* not compared: context for a human reading a mismatch */
	int dirfd;	    /* 0 = none (never a dirfd: stdin) */
	const char *alt_op; /* another name the trace may give the same op */
	const char *note;
	bool info;    /* fork/exec/chdir: context, not an op */
	bool nonfile; /* I/O on a pipe, socket or eventfd: the trace may leave it out */
};

#define EMIT(...) wl__emit(&(struct wl_rec){__VA_ARGS__})

struct wl_opts {
	const char *dir, *log, *aio_dir, *shm_dir;
	int threads, rounds;
	bool verify;
	bool wait_attach;     /* pause (SIGUSR1) after the first ops, for "record -p" */
	bool before_capture;  /* ops logged now happened before the capture attached */
	int proc;	     /* 0 = first process, 1 = the exec'd child */
	int inherit_fd;	     /* exec'd child: fd inherited from the parent, or -1 */
	int64_t inherit_pos; /* its position at exec */
	uint64_t seq_base;   /* exec'd child: its main thread's sequence goes on from here */
	char root[PATH_MAX], aio_root[PATH_MAX], shm_root[PATH_MAX]; /* resolved */
	int log_fd;
};

extern struct wl_opts wl_opt;

/* wl_log.c: per-thread log buffer */
void wl__die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void wl__emit(const struct wl_rec *r);
void wl_log__start(uint64_t seq_base);
uint64_t wl_log__seq(void);
void wl_log__flush(void);
uint64_t wl__now(void);
void wl_log__times(uint64_t begin, uint64_t end); /* for the next line, where SC() was not used */

/* Raw syscalls, returning -errno: the log names what the kernel saw. */
/* Each SC() also notes when the call began and returned (CLOCK_MONOTONIC, for the log). */
void wl__sc_begin(void);
long wl__sc_ret(long r);
#define SC(...) (wl__sc_begin(), wl__sc_ret(syscall(__VA_ARGS__)))

/* An open file description: the position for positionless ops, kept by hand. */
struct ofd {
	int64_t pos;
	bool append;
	int64_t size; /* decides where an O_APPEND write lands */
	const char *kind;
	char path[PATH_MAX];
};

void wl__join(char *out, const char *dir, const char *rel);
long wl__pwrite(int fd, struct ofd *o, const void *buf, size_t len, int64_t off);

/* wl_sync.c: one op each (issue, book-keep, log), and the mixes */
long wl__read(int fd, struct ofd *o, void *buf, size_t len);
long wl__write(int fd, struct ofd *o, const void *buf, size_t len);
long wl__pread(int fd, struct ofd *o, void *buf, size_t len, int64_t off);
long wl__lseek(int fd, struct ofd *o, int64_t off, int whence);
long wl__close(int fd, struct ofd *o);
int wl__open(struct ofd *o, const char *name, long nr, int dirfd, const char *rel, const char *abs,
	     int flags, int mode);

struct worker {
	int proc, idx;
	pthread_t th;
	char rel[64];	    /* its directory, relative to the scratch dir (the cwd) */
	char dir[PATH_MAX]; /* the same, absolute */
	bool aio, uring;
	int common_fd;	   /* one fd all threads of the process use at once */
	struct ofd *common;
};

void wl_sync__round(struct worker *w, int dirfd, int round);

/* wl_async.c */
void wl_aio__run(struct worker *w);
void wl_uring__run(struct worker *w);

/* wl_bench.c */
int wl_bench__preads(const char *file, double seconds, double rate, bool positional);

extern char wl_pat[65536];

#endif
