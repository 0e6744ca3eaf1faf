/* SPDX-License-Identifier: MIT */
/*
 * capture.h - "ioreel record" as a library: load and attach the BPF programs, follow the
 * chosen processes (and everything they fork), turn kernel events into reel ops, write the
 * trace. Returns 0 / -errno and prints nothing; cli/cmd_record.c does the talking.
 */
#ifndef IOREEL_CAPTURE_H
#define IOREEL_CAPTURE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "reel.h"

struct capture_opts {
	const char *output;	   /* trace file to write */
	const pid_t *pids;	   /* -p: follow these and their descendants */
	size_t npids;
	const char *cgroup;	   /* --cgroup: a cgroup v2 directory (or a path below /sys/fs/cgroup) */
	char *const *argv;	   /* -- CMD: started held, released once probes are attached */
	double duration_s;	   /* > 0: stop after this long */
	uint64_t buffer_bytes;	   /* ring buffer size: a power of two, >= one page */
	bool anonymize;		   /* --anonymize-paths */
	bool noop_probes;	   /* benchmark floor: the same hooks, programs return at once */
	const char *command_line;  /* meta "command" (NULL: argv joined) */
	/* called once the probes are attached (before a held command is released) */
	void (*on_attached)(void *arg);
	void *arg;
};

/* What an error capture__run() returns was about, when the caller can say more than errno. */
enum capture_failed {
	CAPTURE_FAILED_OTHER = 0,
	CAPTURE_FAILED_OUTPUT, /* the trace file (opts->output) could not be created */
	CAPTURE_FAILED_EXEC,   /* -- CMD could not be executed (execvp's errno returned) */
	/* --cgroup names no cgroup v2 directory: cgroup_tried says which path was tried,
	 * cgroup2_root where cgroup2 is mounted ("" when it is not: -ENOENT) */
	CAPTURE_FAILED_CGROUP,
};

/* Why a capture ended (meta capture.stopped_by). */
enum capture_stop {
	CAPTURE_STOP_NONE = 0,	/* not ended, or by an error */
	CAPTURE_STOP_EXIT,	/* -- CMD exited, or every process followed (-p) ended */
	CAPTURE_STOP_DURATION,	/* -d's time was up */
	CAPTURE_STOP_SIGNAL,	/* capture__stop(): SIGINT, SIGTERM */
};

/* "exit", "duration", "signal" (meta capture.stopped_by); NULL for CAPTURE_STOP_NONE */
const char *capture_stop__name(enum capture_stop s);

struct capture_stats {
	uint64_t events;	/* events the kernel side produced (sent + lost) */
	uint64_t lost;		/* dropped because the ring buffer was full */
	uint64_t noentry;	/* syscalls dropped because the in-flight map was full */
	uint64_t received;	/* events consumed */
	uint64_t nonfile_ops;	/* I/O on pipes, sockets, eventfds...: counted, not recorded */
	uint64_t lost_items;	/* aio/iovec items beyond what one event carries */
	uint64_t unpaired;	/* async completions whose submission was not seen */
	uint64_t xattr_ops;	/* setxattr/removexattr that succeeded: counted, not recorded */
	uint64_t after_exit;	/* ops of a process after its exit (io_uring completions): left out */
	uint64_t paths_too_long; /* paths longer than PATH_MAX once absolute: recorded without */
	uint64_t links_unresolved; /* "/proc/self/cwd/../x" whose ".." led where none could say */
	uint64_t uring_fixed;	/* io_uring requests on registered (fixed) files: no fd, no path */
	uint64_t uring_unrecorded; /* io_uring requests of file system ops not recorded */
	char uring_unrecorded_ops[256]; /* their opcodes and counts: "statx 2, renameat 1" */
	uint32_t uring_setup;	/* IORING_SETUP_* flags of the rings used, ORed */
	bool uring_seen;	/* an io_uring request was recorded (uring_setup holds) */
	uint64_t pos_moved;	/* read/write(v) that did not take place where f_pos was at entry */
	double cpu_busy; /* the machine's CPUs' busy share while recording, 0-1; < 0 unknown */
	uint64_t async_read;	/* bytes async requests read (not in totals: syscalls only) */
	uint64_t async_written; /* and wrote */
	uint64_t shared_wmaps;	/* shared writable file mappings: stores through them unseen */
	uint64_t wmap_bytes;	/* their length */
	uint64_t trace_bytes;	/* size of the written trace */
	struct reel_totals totals;
	double seconds;		/* capture duration */
	bool uring;		/* io_uring tracepoints attached */
	enum capture_stop stopped_by;
	int stop_signal;	/* with CAPTURE_STOP_SIGNAL: the signal given to capture__stop() */
	pid_t child;		/* -- CMD: its pid */
	bool child_exited;	/* -- CMD: the command ended during the capture (else it is left
				 * running when the capture ends, no longer recorded) */
	int child_status;	/* its wait status then */
	enum capture_failed failed; /* with an error returned: which step failed, when it says more */
	char cgroup_tried[PATH_MAX];
	char cgroup2_root[PATH_MAX];
};

/* Asks a running capture__run() to stop because of signal SIG (meta capture.stop_signal; 0:
 * none named). Async-signal-safe: call it from the handler. */
void capture__stop(int sig);

/* Records until the command exits, the followed processes end, the duration passes, or
 * capture__stop(). The trace is complete (footer written) whenever 0 is returned. */
int capture__run(const struct capture_opts *opts, struct capture_stats *st);

#endif /* IOREEL_CAPTURE_H */
