/* SPDX-License-Identifier: MIT */
/*
 * report_int.h - what the report modules share: the per-run statistics gathered in one
 * streaming pass (report_collect.c), the comparison against the original
 * (report_verdict.c, where the thresholds live), and the three writers (text, JSON, HTML).
 */
#ifndef IOREEL_REPORT_INT_H
#define IOREEL_REPORT_INT_H

#include <stdint.h>
#include <stdio.h>

#include "hist.h"
#include "reel.h"
#include "report.h"

/*
 * What a latency row is about: a synchronous op type (its enum reel_op_type value), or one
 * asynchronous request kind, measured from submission to completion.
 */
#define REPORT_KIND_AIO 128   /* + IOCB_CMD_* (0..15) */
#define REPORT_KIND_URING 144 /* + IORING_OP_* (0..63) */
/* IORING_OP_FSYNC with IORING_FSYNC_DATASYNC: an fdatasync, as libaio's FDSYNC has its own */
#define REPORT_KIND_URING_FDSYNC 208
#define REPORT_KINDS 209
/* op types are appended to (format 1.1 reached 66): room for them below the async kinds */
_Static_assert(REEL_OP__COUNT <= REPORT_KIND_AIO, "op types overlap the async report kinds");

/* Where an op's time goes, for the "what dominates" lines. */
enum report_class {
	REPORT_CLASS_READ,
	REPORT_CLASS_WRITE,
	REPORT_CLASS_SYNC,
	REPORT_CLASS_META,
	REPORT_CLASS_LOCK, /* flock, fcntl_lock: their time is mostly a wait for another owner */
	REPORT_CLASS_OTHER,
	REPORT_CLASSES
};

struct report_kind {
	struct hist lat; /* latency, ns */
	uint64_t errors; /* ops that returned -errno */
	uint64_t unreaped; /* async requests of the kind whose completion the trace lacks */
	/* a replay's backlog this kind's ops made: how far their threads fell further behind
	 * after them, up to what each took beyond the original's p90 of the kind (blame_rise) */
	uint64_t backlog_ns;
};

struct report_fkind {
	unsigned kind;
	struct hist lat;
};

struct report_file {
	char *path; /* as in the original trace (replay target prefixes removed) */
	uint64_t ops;
	uint64_t total_ns;
	uint64_t errors;
	uint64_t class_ns[REPORT_CLASSES];
	uint64_t backlog_ns; /* a replay's backlog its ops made (report_kind.backlog_ns) */
	struct report_fkind *kinds; /* only with REPORT_BY_FILE */
	size_t nkinds;
};

/* Small open-addressing map from a 4-word key to a 2-word value (fd table, async, threads);
 * keys that need fewer words leave the rest 0. */
#define REPORT_KEY_N 4
struct report_map_slot {
	uint64_t k[REPORT_KEY_N];
	uint64_t v[2];
	uint8_t used; /* 0 empty, 1 used, 2 deleted */
};
struct report_map {
	struct report_map_slot *slots;
	size_t cap, used, live;
};

/* An async request submitted, waiting for its completion record (report_pending.c). */
struct report_req {
	uint64_t start; /* its submission: its submit record's start */
	uint64_t at;	/* a replay's: when its submit was due, on the schedule (scheduled) */
	int32_t fd;
	uint8_t subop, kind; /* IOCB_CMD_* or IORING_OP_*, and its report kind */
	uint8_t refused;     /* its submission failed: never in flight */
	uint8_t scheduled;   /* a replay's submit, with a schedule (at) */
};

/* The requests waiting, queued per id (pid, ctx, aux) in submission order. */
struct report_pending {
	struct report_map ids;	    /* id -> its oldest and newest entries (pool index + 1) */
	struct report_pentry *pool; /* the entries; those free are chained from free */
	size_t npool, cap;
	uint32_t free;
};

/* Comparison of one kind of one replay against the original. */
enum report_change {
	REPORT_SAME = 0, /* "unchanged" */
	REPORT_FASTER,
	REPORT_SLOWER,
	REPORT_TAIL_ONLY, /* a percentile moved beyond the ratio but the bulk (KS D) did not */
	REPORT_FEW_OPS,	  /* too few ops in either run to say */
	REPORT_MISSING,	  /* the kind is absent from one of the two runs */
	REPORT_MIXED,	  /* p50 and p99 moved in opposite directions */
	REPORT_SHIFT,	  /* most ops moved (KS D), by less than the ratio that is a change */
};

struct report_cmp {
	int valid;
	double ratio_p50, ratio_p99, ratio_mean; /* replay / original: < 1 is faster */
	double ratio_p90;
	double ks_d, ks_err, ks_p;
	enum report_change change;
};

/* The timeline (--timeline, report_timeline.c): the ops that started in one interval of a
 * run's own clock, and their latencies per class. Intervals beyond the cap are counted. */
#define REPORT_TL_MAX 10000
struct report_tl {
	uint64_t ops;
	struct hist lat[REPORT_CLASSES];
};

/* what "back to back" means for report_run.chained: a syscall's own return and re-entry */
#define REPORT_CHAINED_NS 5000
/* a gap after a refused lock on its thread this long is a sleep before trying again
 * (report_run.lock_retries); SQLite's busy handler sleeps 1 ms first */
#define REPORT_LOCK_RETRY_NS 1000000
/* an op this far behind its schedule for its thread's previous ops (backlog) is "behind";
 * when such ops were due is counted in REPORT_BEHIND_BINS over the original's span */
#define REPORT_BEHIND_NS 1000000
#define REPORT_BEHIND_BINS 1000

struct report_run {
	const struct report_run *against; /* a replay's original, collected before it */
	const char *path;
	char label[256]; /* "original", or the replay's targets */
	int is_replay;
	const char *timing, *engine, *targets, *replay_of; /* meta (owned by meta[]) */
	char **meta;					   /* key, value pairs */
	size_t nmeta;

	uint64_t ops_read;    /* records read */
	uint64_t ops_used;    /* ops measured */
	uint64_t ops_nonfile; /* ops on pipes, sockets, ...: think time, left out */
	uint64_t threads;     /* threads with ops */
	uint64_t errors;
	uint64_t damaged;	       /* damaged regions skipped */
	struct reel_damage_sum damage; /* what they cost */
	uint64_t unmatched;	       /* async completions without their submission */
	/* async requests submitted whose completion the trace does not hold (not measured):
	 * reaped without a syscall (QEMU's aio=native reads the AIO ring in user space), or in
	 * flight when the capture ended */
	uint64_t unreaped;
	/* the async requests (libaio, io_uring) measured: their number, the sum of their times
	 * (submission to completion) and the span from the first submission to the last
	 * completion; sum / span is their mean number in flight (Little's law): the queue
	 * depth a replay kept, beside the original's */
	uint64_t async_n, async_ns, async_first, async_last;
	/* the same for the reads and writes (read, pwrite64, ...): their mean number in flight,
	 * which a replay through an async engine (--engine io_uring, libaio) raises by
	 * submitting them without waiting */
	uint64_t data_n, data_ns, data_first, data_last;
	uint64_t first_ns, last_ns;
	uint64_t io_ns; /* sum of all measured latencies */
	uint64_t class_ns[REPORT_CLASSES];
	uint64_t bytes_read, bytes_written;
	/* sendfiles into sockets, pipes (a destination not a file): the original's times
	 * include the network's, a replay's (into /dev/null) the reading side only */
	uint64_t net_copies, net_copy_ns;

	struct report_kind kinds[REPORT_KINDS];
	struct hist gap; /* per-thread start-to-start gap between ops */
	/* ops that began at most REPORT_CHAINED_NS after their thread's previous op ended, of
	 * the ops that had one: a thread issuing back to back (closed loop, I/O bound) */
	uint64_t chained, followers;
	/* summed over the threads with ops: from each one's first op to its last op's end, and
	 * the time in its own ops (not its async requests'); the rest is its gaps between ops,
	 * which think and original timing keep: sleeps, lock waits, waits on other processes
	 * the trace cannot see, think time */
	uint64_t thread_span_ns, thread_io_ns;
	/* locks refused (fcntl_lock, flock failed EAGAIN or EACCES) whose thread's next op
	 * came REPORT_LOCK_RETRY_NS or more later, and those gaps summed: retried after a sleep */
	uint64_t lock_retries, lock_retry_ns;
	struct hist lateness; /* start - sched, replays only */
	struct hist wake;     /* start - max(sched, end of the thread's previous op) - order */
	struct hist backlog;  /* the thread was still in its previous op */
	/* the rest of the lateness: waiting for ops of other threads it is kept after (the
	 * result's wait_ns, format 1.2), maybe the target's where those were slow on it */
	struct hist order; /* every scheduled op, 0 for those that did not wait */
	struct hist order_waited; /* the ops that waited only: what a "p99 of the waits" means */
	uint64_t order_ops; /* ops that waited so */
	int has_wait;	    /* the result has wait_ns (format 1.2): order is known */
	/* what built the backlog: each time a thread fell further behind its schedule (its
	 * backlog rose from one op to the next, preemptions left out), the rise, summed; the
	 * part of it the previous op took beyond the original's p90 of its kind is that
	 * kind's (report_kind.backlog_ns) and its file's; the rest built up between the ops */
	uint64_t backlog_rise_ns;
	/* the ops REPORT_BEHIND_NS or more behind, and by when they were due (sched_ns) */
	uint64_t behind_ops, behind_bin_ns;
	uint32_t behind_bins[REPORT_BEHIND_BINS];
	uint64_t early;	      /* ops started before their schedule (counted as lateness 0) */
	uint64_t late_1ms;

	struct report_file **files;
	size_t nfiles, files_cap;
	struct report_map file_index; /* path hash -> files[] index */

	uint64_t tl_ns;	       /* the timeline's interval; 0: no timeline */
	struct report_tl *tl;  /* [ntl] */
	size_t ntl;
	uint64_t tl_beyond;    /* ops that started after the last interval */

	struct report_cmp cmp[REPORT_KINDS]; /* replays: against run 0 */
	/* replays: the original's ops beyond the replay's count of their op type (requests on
	 * registered files, unknown fds, an interrupted replay), and the original's I/O time
	 * in them (a whole op type's, or its mean per op): report__count_unreplayed */
	uint64_t unreplayed_ops, unreplayed_ns;
	int fell_behind; /* wake-up lateness: the replay's latencies are doubtful */
	int backlogged;	 /* the target could not keep the app's pace: latencies are real */
	/* backlogged or fell behind, and the replayer was the limit, not the target: enum
	 * report_limit, why (report_limit.c); 0: the target's backlog, or late wake-ups that
	 * the replay's own measures do not explain */
	int replayer_limit;
};

enum report_verdict_tag {
	REPORT_V_FASTER,
	REPORT_V_SLOWER,
	REPORT_V_SAME,
	REPORT_V_TAIL,
	REPORT_V_BEHIND,
	REPORT_V_ERRORS,
	REPORT_V_DOMINANT,
	REPORT_V_NOTE,
	REPORT_V_MIXED,
	REPORT_V_PACE,	    /* the target could not keep the application's pace */
	REPORT_V_CPU_BOUND, /* afap: the CPUs, not the storage, set the pace */
	REPORT_V_TOTAL,	    /* a replay's I/O time and duration against the original's */
	REPORT_V_SHIFT,	    /* REPORT_SHIFT */
	REPORT_V_GAPS,	    /* the duration is held by the original's gaps between ops */
	REPORT_V_UNREPLAYED, /* much of the original's I/O time was not replayed */
	REPORT_V_PACE_CAUSE, /* what made the backlog of a replay that did not keep the pace */
};

struct report_verdict {
	enum report_verdict_tag tag;
	int run;      /* run index, or -1 */
	int kind;     /* kind, or -1 */
	double ratio; /* speed-up (original / replay) of the headline percentile, or 0 */
	char text[768];
};

struct report {
	const struct report_opts *opts;
	unsigned top;
	struct report_run *runs;
	size_t nruns;
	int order[REPORT_KINDS]; /* kinds with ops, by the original's total time, desc */
	size_t norder;
	size_t *hot; /* original's files[] indices, by I/O time, desc */
	size_t nhot;
	struct report_verdict *verdicts;
	size_t nverdicts;
};

/* report_collect.c */
int report_run__collect(struct report_run *run, const char *path, int by_file);
void report_run__free(struct report_run *run);
const char *report_run__meta(const struct report_run *run, const char *key); /* or NULL */
double report_run__async_depth(const struct report_run *run); /* async requests in flight */
double report_run__data_depth(const struct report_run *run);  /* reads and writes in flight */
int report_run__engine_async(const struct report_run *run);   /* replayed through io_uring, libaio */
struct report_file *report_run__file(const struct report_run *run, const char *path);

/* report_timeline.c */
uint64_t report_tl__auto(uint64_t span_ns); /* a round interval, 8 to 20 over span */
int report_tl__add(struct report_run *run, uint64_t start, unsigned kind, uint64_t lat);
void report_tl__free(struct report_run *run);
size_t report_tl__len(const struct report *rep);		 /* intervals with ops in any run */
enum report_class report_tl__class(const struct report *rep); /* the original's dominant one */

/* report_kind.c */
const char *report_kind__name(unsigned kind, char *buf, size_t len);
enum report_class report_kind__class(unsigned kind);
const char *report_class__name(enum report_class c); /* "reads", for sentences */
const char *report_class__key(enum report_class c);  /* "read", for JSON */
/* "aio_preadv 20000, aio_pwritev 3": the kinds of a run's requests never completed */
const char *report_run__unreaped_kinds(const struct report_run *run, char *buf, size_t len);
/* "uring_read_fixed 61952, uring_write_fixed 61953": the original's ops replay ri lacks, by
 * the original's time in them */
const char *report__unreplayed_kinds(const struct report *rep, size_t ri, char *buf, size_t len);

/* report_map.c */
int report_map__put(struct report_map *m, const uint64_t k[REPORT_KEY_N], const uint64_t v[2]);
struct report_map_slot *report_map__get(const struct report_map *m, const uint64_t k[REPORT_KEY_N]);
void report_map__del(struct report_map *m, struct report_map_slot *slot);
void report_map__free(struct report_map *m);

/* report_pending.c */
int report_pending__add(struct report_pending *p, const uint64_t id[REPORT_KEY_N],
			const struct report_req *req);
/* Takes the oldest request of id into *out (1), or of those submitted at *start when start
 * is not NULL; 0: none. */
int report_pending__take(struct report_pending *p, const uint64_t id[REPORT_KEY_N],
			 const uint64_t *start, struct report_req *out);
/* fn for every request still waiting */
void report_pending__each(const struct report_pending *p,
			  void (*fn)(void *arg, const struct report_req *req), void *arg);
void report_pending__free(struct report_pending *p);

/* report_verdict.c: comparisons and verdict lines; the thresholds are defined there. */
int report__analyze(struct report *rep);
/* the original's ops of kind k that replay run lacks (0 for a recording set beside it) */
uint64_t report__unreplayed(const struct report *rep, const struct report_run *run, int k);
/* Ratios, KS and the change verdict of hr (a replay) against ho (the original). */
void report__cmp(const struct hist *ho, const struct hist *hr, struct report_cmp *c);
extern const double report_quantiles[5]; /* p50, p90, p99, p99.9, and 1 (max) */

/* report_limit.c: a replay's pace not kept for the replayer's sake, and why */
enum report_limit {
	REPORT_LIMIT_NONE,	  /* the target's, as far as the replay can tell */
	REPORT_LIMIT_MACHINE,	  /* its threads waited for CPUs other processes held */
	REPORT_LIMIT_DISPATCH,	  /* its dispatcher fed the workers after their ops were due */
	REPORT_LIMIT_WORKER_CPU,  /* a worker bound by the CPU: its own work, its ops' */
	REPORT_LIMIT_OWN_THREADS, /* its threads waited for a CPU, for one another */
};
/* the cause of ops behind_ns late (the lateness to explain: the backlog's p99, or the
 * wake-up lateness's), its why in words (what shows it) */
enum report_limit report_run__replayer_limit(const struct report_run *run, uint64_t behind_ns,
					     char *why, size_t n);
const char *report_limit__name(enum report_limit cause); /* for JSON; NULL: none */

/* report_fmt.c */
char *report_fmt__dur(uint64_t ns, char *buf, size_t len); /* "14.2 µs" */
char *report_fmt__ratio(double r, char *buf, size_t len);  /* "1.02×" */
void report_fmt__json_str(FILE *f, const char *s);
void report_fmt__html_str(FILE *f, const char *s);
const char *report_fmt__base(const char *path);

/* writers */
int report__write_text(const struct report *rep, FILE *out);
int report__write_json(const struct report *rep, FILE *out);
int report__write_html(const struct report *rep, FILE *out);

#endif /* IOREEL_REPORT_INT_H */
