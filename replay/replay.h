/* SPDX-License-Identifier: MIT */
/*
 * replay.h - the public API of replay/: reissue a trace against a target directory with
 * its original timing and concurrency, and write what happened as a result trace.
 *
 * One call, replay__run(), does one target: check the target, prepare (or reuse) the file
 * set, replay, write RESULT, fill a summary.
 *
 * The result trace (same format, written with reel_writer) holds every op the replay issued,
 * each thread's ops in issue order:
 *   - pid, tid, fd, fd2, flags, mode, offset, len, aux, ctx, subop, fd_kind: the original's
 *     (so results line up with the trace op by op); path/path2: the original paths;
 *   - sched_ns: when the op was due, start_ns/end_ns: when the main syscall really started
 *     and ended, all ns after the replay's time 0 (meta start_mono_ns / start_wall_ns);
 *     lateness is start_ns - sched_ns. A completion record (aio_complete, uring_complete)
 *     starts at its request's submission and ends when it was reaped, as in FORMAT.md;
 *   - ret: the replay's result (for opens, the replay's own fd number).
 * Ops not issued (non-file I/O, unknown fds, unsupported, refused paths) are not in it; the
 * summary counts them. Meta: tool, replay.of, replay.targets, replay.map, replay.engine,
 * replay.timing, replay.speed, replay.spin_us, replay.cold, replay.direct, host, kernel,
 * start_wall_ns, start_mono_ns; in the footer replay.direct_dropped, replay.unlinks_mapped,
 * replay.unsized_removed, replay.nonfile_ops, replay.cpu_ns.{workers,dispatch,writer} (CPU
 * time of the replayer's own threads). Library code never prints: notices and progress go to
 * callbacks, and replay_summary__print() formats the summary onto a FILE the caller chooses.
 */
#ifndef IOREEL_REPLAY_H
#define IOREEL_REPLAY_H

#include <stdint.h>
#include <stdio.h>

#include "reel.h"

enum replay_timing {
	REPLAY_TIMING_ORIGINAL = 0, /* open loop: each op at its recorded start */
	REPLAY_TIMING_THINK,	    /* closed loop: each thread keeps its think time */
	REPLAY_TIMING_AFAP,	    /* as fast as possible, order kept */
};

enum replay_engine_kind {
	REPLAY_ENGINE_SYNC = 0,
	REPLAY_ENGINE_URING,
	REPLAY_ENGINE_AIO,
};

/* --map FROM=TO. FROM is a path prefix, or a glob pattern when it has *, ? or [. */
struct replay_map_rule {
	const char *from;
	const char *to;
};

struct replay_progress {
	uint64_t ops_done;
	uint64_t ops_total; /* from the trace's footer; 0 when unknown */
	uint64_t elapsed_ns;
	uint64_t left_ns;    /* original timing: schedule left; else estimated; 0 unknown */
	int64_t lateness_ns; /* the most recent lateness seen (start - scheduled) */
	/* so far, as the summary counts them: ops that ran and ended otherwise than the
	 * original's, and ops the replay could not issue (replay_fail__differs, __not_replayed) */
	uint64_t differing;
	uint64_t not_replayed;
};

/*
 * --spin without a window: spin the whole wait. A window only pays when it covers the
 * machine's wake-up overshoot, which on a VM exceeds 100 µs often enough to set the p99.
 */
#define REPLAY_SPIN_ALWAYS 1000000000

struct replay_opts {
	const char *trace;
	const char *target;
	const struct replay_map_rule *maps;
	size_t n_maps;
	enum replay_timing timing;
	double speed; /* 1.0: as recorded; 2.0: twice as fast */
	enum replay_engine_kind engine;
	int cold;	    /* drop the file set from the page cache first */
	int direct_keep;    /* O_DIRECT rejected by the target: 1 fail the op, 0 drop the flag */
	int spin_us;	    /* < 0: sleep only; else sleep until spin_us before, spin the rest;
			     * REPLAY_SPIN_ALWAYS: never sleep */
	int fresh;	    /* wipe and prepare the target again */
	const char *result; /* result trace path */
	/* Optional: one-line notices (rate-limited by the library) and progress (<= 4/s). */
	void (*notice)(void *ctx, const char *line);
	void (*progress)(void *ctx, const struct replay_progress *p);
	void *cb_ctx;
	/* Optional: set non-zero (from a signal handler) to stop early; the ops not yet issued
	 * are dropped, the result is closed whole and the summary says so. */
	_Atomic int *interrupt;
};

/* Latency/lateness summary of one op type (or of lateness), in ns. */
struct replay_pct {
	uint64_t count;
	uint64_t p50, p90, p99, max;
	double mean;
};

enum replay_fail_kind {
	REPLAY_FAIL_NEW_ERROR = 0, /* error where the original succeeded */
	REPLAY_FAIL_NEW_SUCCESS,   /* success where the original failed */
	REPLAY_FAIL_SHORT,	   /* read/write/copy moved fewer bytes than the original */
	REPLAY_FAIL_OTHER_ERRNO,   /* failed in both, with a different errno */
	REPLAY_FAIL_UNKNOWN_FD,	   /* fd not known to the replay and no path to open */
	REPLAY_FAIL_UNSUPPORTED,   /* op type the replay does not issue */
	REPLAY_FAIL_REFUSED,	   /* path escapes the target (.., symlink): not issued */
	/* counted on its own line: lseek(SEEK_END), or a read that reached the end of its
	 * file, found the file another length, as another thread's write that came after the
	 * check in the original ran before it */
	REPLAY_FAIL_LENGTH,
	REPLAY_FAIL__COUNT
};

#define REPLAY_EXAMPLES 3

/* the file set in the page cache when the replay began (replay_cache.c) */
struct replay_cache_state {
	uint64_t disk_bytes;	 /* its files' bytes on disk-backed targets */
	uint64_t resident_bytes; /* of those, in the page cache */
	uint64_t ram_bytes;	 /* its files' bytes on tmpfs or ramfs: memory by nature */
};

struct replay_summary {
	uint64_t ops_read;    /* ops of the trace read (all of them, unless interrupted) */
	uint64_t ops_trace;   /* ops in the trace (the file set's scan) */
	uint64_t ops_issued;  /* ops the replay issued (and wrote to RESULT) */
	uint64_t ops_nonfile; /* ops on pipes, sockets, /proc ...: think time, not replayed */
	uint64_t threads;
	uint64_t damaged;	       /* damaged trace regions skipped */
	struct reel_damage_sum damage; /* what they cost */
	int interrupted;      /* stopped early through opts.interrupt */
	uint64_t noop_closes; /* closes of fds the replay never had (pre-capture, inherited) */
	uint64_t lock_waits_abandoned; /* blocked lock requests given up after their timeout */
	/* removals of a file's last name (unlink, rename over) while the replay still mapped it:
	 * the trace has no munmap, so they freed no blocks */
	uint64_t unlinks_mapped;
	uint64_t xattr_ops;   /* the trace's meta capture.xattr_ops: not recorded, not replayed */
	uint64_t lost_events; /* the trace's meta lost_events: ops the capture never wrote */
	uint64_t fail[REPLAY_FAIL__COUNT];
	uint64_t enospc; /* of fail[REPLAY_FAIL_NEW_ERROR], ENOSPC: the target was full */
	char fail_example[REPLAY_FAIL__COUNT][REPLAY_EXAMPLES][160];
	uint64_t direct_dropped;
	uint64_t direct_failed;
	uint64_t duration_ns; /* replay wall time, first op to last end */
	/* CPU time of the replayer's own threads: is the replay CPU-bound, and where */
	uint64_t cpu_workers_ns, cpu_dispatch_ns, cpu_writer_ns;
	uint64_t orig_duration_ns;
	/* as fast as possible: segments read ahead, and the pauses between them (not in the
	 * duration nor in the result's timeline) */
	uint64_t segments, paused_ns;
	/* segments cut short once a worker ran out, and the ops they carried over */
	uint64_t seg_cuts, carried;
	uint64_t seg_straggler_cuts; /* of seg_cuts: cut for a thread far behind the others */
	/* ops that waited for ops of other threads they are kept after: count, ns, longest */
	uint64_t order_waits, order_wait_ns, order_wait_max;
	/* with a schedule: ops whose item reached their worker after they were due (the
	 * dispatcher behind), and by how much in all; the busiest worker's share of its time on
	 * a CPU, in thousandths: the replayer's limits, not the target's */
	uint64_t items_late, items_late_ns;
	uint32_t worker_busy_max;
	/* the largest share of its time a worker, and the dispatcher's, spent runnable but
	 * waiting for a CPU, in thousandths (other processes held it, or the replay's own
	 * threads); UINT32_MAX: not known (no /proc/thread-self/schedstat) */
	uint32_t worker_runq_max, dispatch_runq;
	uint64_t lane_ops; /* afap: ops replayed through the plain data op lane (worker__plain) */
	struct replay_pct lateness;
	struct replay_pct lat[REEL_OP__COUNT];
	/* preparation */
	int reused;
	uint64_t prep_files, prep_dirs, prep_bytes;
	/* of prep_files, those prepared empty for want of their size, that the trace removes,
	 * renames away or replaces */
	uint64_t prep_unsized_gone;
	uint64_t prep_ns;
	struct replay_cache_state cache;
	char result[4096];
	char target[4096];
	char timing[16];
	char engine[16];
	double speed;
};

/* Replays opts->trace on opts->target into opts->result. 0 or -errno / -REEL_E_*. */
int replay__run(const struct replay_opts *opts, struct replay_summary *sum);
/* When replay__run fails, a sentence saying what (e.g. which path escaped). */
const char *replay__last_error(void);

/* Whether an output file can be made at path before the work that writes it: 0, -EISDIR
 * (a directory is there), or the -errno of its directory (missing, not writable). */
int replay_output__creatable(const char *path);

/* The --target dirs of one command, each replayed in turn: 0, or -EINVAL (replay__last_error
 * says which) when one is inside another, whose preparation would wipe it. Checked before
 * any is made, so a refusal leaves nothing behind. */
int replay_targets__check(const char *const *dirs, size_t n);

void replay_summary__print(const struct replay_summary *sum, FILE *out);

/* Parsers for the command line; 0 or -EINVAL. */
int replay_timing__parse(const char *s, enum replay_timing *out);
int replay_engine__parse(const char *s, enum replay_engine_kind *out);
const char *replay_timing__name(enum replay_timing t);
const char *replay_engine__name(enum replay_engine_kind e);

/*
 * The comparison hook: called by "ioreel replay" once every target has been replayed, with
 * the original trace and the result traces in target order. The report module fills it in
 * (replay/replay_compare.c) to print the side-by-side comparison onto out; 0 or -errno.
 */
int replay__compare(const char *trace, const char *const *results, size_t n_results, FILE *out);

#endif
