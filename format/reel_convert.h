/* SPDX-License-Identifier: MIT */
/*
 * reel_convert.h - converters over the trace format: summary (info), one-op-per-line dump,
 * strace log import, fio iolog export, time slices.
 *
 * Library code: functions return 0 (or a count) or a negative error (-errno, -REEL_E_*),
 * and write only to the FILE * they are given. Damage found in a trace is not an error of
 * the function: it is reported to the caller (result structs) so that a command can keep
 * going, say what it skipped, and exit non-zero at the end.
 */
#ifndef IOREEL_REEL_CONVERT_H
#define IOREEL_REEL_CONVERT_H

#include <stdint.h>
#include <stdio.h>

#include "reel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- info: one streaming pass, memory bounded by files, fds and threads ---- */

struct reel_info_result {
	uint64_t ops;
	uint64_t damaged; /* damaged regions met */
	struct reel_damage_sum damage; /* what they cost */
};

/* Reads r to the end and prints a summary to out, as text or (json != 0) one JSON object. */
int reel_info__run(struct reel_reader *r, FILE *out, int json, struct reel_info_result *res);

/* ---- dump: one op per line ---- */

enum reel_dump_format {
	REEL_DUMP_TEXT = 0,
	REEL_DUMP_JSONL = 1,
	REEL_DUMP_CSV = 2,
};

/* "text", "jsonl" (or "json"), "csv"; -EINVAL otherwise. */
int reel_dump__format_from_name(const char *name);

struct reel_dump_result {
	uint64_t ops;
	uint64_t damaged;	       /* damaged regions met; each got one line on diag */
	struct reel_damage_sum damage; /* what they cost in all, once the dump is over */
};

/*
 * Prints every op of r to out. Each damaged region gets one line on diag (may be NULL)
 * with its byte offset; the dump goes on after it. Returns 0, or -errno when out fails.
 */
int reel_dump__run(struct reel_reader *r, enum reel_dump_format fmt, FILE *out, FILE *diag,
		   struct reel_dump_result *res);
/* The damage line of a trace cut before its first op said all: no summary to add. */
bool reel_dump__said_all(const struct reel_dump_result *res);

/* ---- import strace: the output of strace -f -ttt -T -y (or -yy; -tt for -ttt) ---- */

struct reel_strace_stats {
	uint64_t lines;
	uint64_t ops;		 /* ops written */
	uint64_t bad_lines;	 /* lines that could not be parsed (skipped) */
	uint64_t nonfile_ops;	 /* I/O ops on sockets, pipes, char devices, ... (skipped) */
	uint64_t unknown_pos;	 /* read/write on an fd whose position was not known */
	uint64_t uring_enters;	 /* io_uring_enter calls: strace cannot show their SQEs */
	uint64_t xattr_ops;	 /* set/removexattr calls that succeeded: not replayed, counted */
	uint64_t unmatched;	 /* <... resumed> lines without their <unfinished ...> */
	uint64_t first_bad_line; /* line number of the first bad line, 1-based */
	uint64_t untimed_lines;	 /* of the bad lines, calls without a -ttt or -tt time stamp */
	uint64_t clone_lines;	 /* clone, clone3, fork and vfork calls */
	/*
	 * pids but the first that no clone line made (strace -e trace= without %process, or
	 * attached with -p): each is taken as a process of its own, though it may have been a
	 * thread of another (sharing its fds)
	 */
	uint64_t unparented;
	int time_of_day; /* the log's times are -tt's (HH:MM:SS.us), not -ttt's */
};

/*
 * Parses the strace log in (which must be seekable: two passes, the first one learns
 * which tids are threads of which process) and adds its ops and meta to w.
 */
int reel_strace__import(FILE *in, struct reel_writer *w, struct reel_strace_stats *st);

/*
 * Writes the logs of strace -ff -ttt (in[i]: the file of process pids[i]) to out as one
 * strace -f log: lines prefixed with their pid, in time order. Returns 0; -EINVAL when a
 * line has no -ttt time stamp (*bad_file, *bad_line: where), -EIO, -ENOMEM.
 */
int reel_strace__merge_ff(FILE *const *in, const uint32_t *pids, size_t n, FILE *out,
			  size_t *bad_file, uint64_t *bad_line);

/* ---- export fio: iolog version 3, one log per original thread ---- */

/* What fio's iolog cannot express, per reason; printed by reel_fio__print_left_out(). */
enum reel_fio_left_out {
	REEL_FIO_LO_METADATA = 0, /* stat, rename, mkdir, unlink, access, getdents, chmod, chown,
				     utimensat, link, symlink, readlink, failed opens */
	REEL_FIO_LO_SYNC_OTHER,	  /* sync_file_range, syncfs, msync, fsync of a directory */
	REEL_FIO_LO_ZERO,	  /* failed or zero-byte reads/writes (nothing to replay) */
	REEL_FIO_LO_NO_PATH,	  /* data op on an fd whose file is not known */
	REEL_FIO_LO_BAD_NAME,	  /* path with whitespace, or too long for fio's parser */
	REEL_FIO_LO_ASYNC,	  /* async requests of a kind fio's log has no word for */
	REEL_FIO_LO_MMAP,	  /* mmap: its I/O happens as page faults, invisible */
	REEL_FIO_LO_SPACE,	  /* fallocate, truncate, ftruncate, fadvise64 */
	REEL_FIO_LO_NO_IO,	  /* syncs of threads without reads/writes: fio rejects such logs */
	REEL_FIO_LO_COPY,	  /* copy_file_range: may be a clone or a server-side copy */
	REEL_FIO_LO_NONFILE,	  /* ops on /proc, /sys, /dev (but /dev/shm), pipes, sockets,
				     devices: not storage, as replay leaves them out */
	REEL_FIO_LO__COUNT
};

/*
 * What the job file carries only in part, per reason (counted in iolog lines): a fio job has
 * one engine, one iodepth and one direct= for all its I/O. Printed by
 * reel_fio__print_left_out() too.
 */
enum reel_fio_approx {
	REEL_FIO_AP_DIRECT_LOST = 0, /* reads/writes of O_DIRECT fds in a job run buffered */
	REEL_FIO_AP_DIRECT_ADDED,    /* reads/writes of buffered fds in a job run direct=1 */
	REEL_FIO_AP_SYNC_ASYNC,	     /* sync syscalls' I/O in a job run through libaio/io_uring */
	REEL_FIO_AP_OTHER_ENGINE,    /* libaio requests in an io_uring job, or the reverse */
	REEL_FIO_AP_UNREAPED,	     /* async requests with no completion: not in the depth */
	REEL_FIO_AP_RWF_SYNC,	     /* writes with RWF_DSYNC/RWF_SYNC: a log line has no flags */
	REEL_FIO_AP_BATCH, /* async requests in submission calls of another size than their job's
			      iodepth_batch_submit */
	REEL_FIO_AP_SPLIT, /* lines on dropped files in a job beside their thread's others: fio's
			      invalidate= is per job */
	REEL_FIO_AP__COUNT
};

struct reel_fio_result {
	uint64_t ops;	/* ops read from the trace */
	uint64_t logs;	/* iologs written (threads with at least one read or write); none:
			   no job file either */
	uint64_t ios;	/* read/write lines */
	uint64_t syncs; /* sync/datasync lines */
	uint64_t left_out[REEL_FIO_LO__COUNT];
	uint64_t approx[REEL_FIO_AP__COUNT];
	uint64_t direct_jobs; /* jobs with direct=1 */
	uint64_t async_jobs;  /* jobs with ioengine=libaio or io_uring and their iodepth */
	uint64_t batched_jobs; /* of those, jobs with iodepth_batch_submit (more than 1) */
	/* later phases of jobs, begun where a read came after a DONTNEED of what it read
	 * (reel_fio_cache.h), and the DONTNEEDs they replay */
	uint64_t phases, drops_replayed;
	/* buffered sync reads of bytes written before them, no drop between, and of those the
	 * ones that took a device's time in the original: fio reads them from the cache */
	uint64_t reads_after_write, reads_after_write_slow, files_after_write;
	uint64_t damaged;
	struct reel_damage_sum damage; /* what the damaged regions cost */
};

struct reel_fio_opts {
	/* Prefix of the output names: PREFIX.fio and PREFIX.<tid>. */
	const char *prefix;
	/* When set, every file name in the logs is root + the original absolute path. */
	const char *root;
	/* Shown in the job file's header. */
	const char *trace_name;
};

int reel_fio__export(struct reel_reader *r, const struct reel_fio_opts *o,
		     struct reel_fio_result *res);
/* One line per non-zero category of res->left_out, "fio: left out N ...: why", and of
 * res->approx, what was carried only in part. */
void reel_fio__print_left_out(const struct reel_fio_result *res, FILE *out);

/* ---- slice: a time window of a trace, as a trace of its own ---- */

struct reel_slice_opts {
	uint64_t from_ns; /* the window, in the input's times: ops that started in [from, to); */
	uint64_t to_ns;	  /* UINT64_MAX: to the end */
	const char *source; /* the input's name, for the slice.of meta */
};

struct reel_slice_result {
	uint64_t ops_in;	 /* ops read */
	uint64_t ops_window;	 /* of them, started in the window (pass 1) */
	uint64_t first_start_ns; /* the earliest and latest op start read: the input's span */
	uint64_t last_start_ns;
	uint64_t to_ns;		 /* the window's end, an open one made the input's */
	uint64_t ops_out;	 /* ops written */
	uint64_t fds_carried;	 /* fds open at the window's start that ops in it use and whose
				    flags or size the head gives */
	uint64_t damaged;	 /* damaged regions met */
	struct reel_damage_sum damage;
	/* of the ops the damage lost, at most this many started in the window (the footer's
	 * index gives the lost chunks' times); REEL_OPS_UNKNOWN when that cannot be told */
	uint64_t window_ops_lost;
};

/*
 * A time window of the trace at path, as a trace of its own: its ops that started in the
 * window, times moved so that the window starts at 0, with the input's meta and what a
 * recorder attaching at the window's start would have found: the fds open then
 * (capture.fd_flags, capture.fd_sizes). An async request goes with its submission, its
 * completion record too. reel_slice__open reads the input once to learn that state and
 * counts the window's ops (res->ops_window), so that a caller can refuse an empty window
 * before creating anything; reel_slice__write reads it again and writes the slice to w.
 * Damage is reported in res, not as an error: the slice holds every op that could be read,
 * and its head meta says what the input's damage lost (slice.source_damage, FORMAT.md).
 * -EINVAL when from >= to.
 */
struct reel_slice;
int reel_slice__open(const char *path, const struct reel_slice_opts *o, struct reel_slice **out,
		     struct reel_slice_result *res);
int reel_slice__write(struct reel_slice *sl, struct reel_writer *w, struct reel_slice_result *res);
void reel_slice__close(struct reel_slice *sl);

#ifdef __cplusplus
}
#endif

#endif /* IOREEL_REEL_CONVERT_H */
