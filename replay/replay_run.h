/* SPDX-License-Identifier: MIT */
/* replay_run.h - the state shared by the replay's run (replay_run.c), its workers
 * (replay_worker.c, replay_stage.c), the dispatcher (replay_disp.h) and op execution
 * (replay_exec.c, replay_async.c). Private to replay/. */
#ifndef IOREEL_REPLAY_RUN_H
#define IOREEL_REPLAY_RUN_H

#include <pthread.h>
#include <time.h>
#include <stdatomic.h>

#include "replay_engine.h"
#include "replay_hash.h"
#include "replay_int.h"

#define RUN_MAX_WORKERS 4096 /* threads alive at once; ended ones' workers are reused */
#define RUN_PRESPAWN 256     /* workers started before time 0 (the first threads seen) */
/* in an item; more go first in items of no op that only wait (disp__put_deps): most ops have
 * none, and two keep an item at three cache lines (struct ritem) */
#define RUN_MAX_DEPS 2
#define RUN_PIN_MAX 64 /* CPUs workers are pinned to, at most (struct run, npin) */
/*
 * Per-thread read-ahead. A recorder writes ops in end order, so an op that took long comes
 * late in the file; the dispatcher must be that far ahead of the schedule to hand it over in
 * time. 8192 ops is ~0.8 s at 10 k ops/s per thread; with many threads the queues shrink to
 * keep all of them within RUN_QUEUE_BUDGET.
 */
#define RUN_QUEUE_CAP 8192
#define RUN_QUEUE_BUDGET (64u << 20)
/*
 * staged (afap): the ops of one segment, all threads together, items and lane entries
 * (struct rlane): 256 bytes an op, ~520 k ops in 128 MiB. Larger is fewer pauses: each
 * pause's work (reading the trace, writing results) evicts from the workers' CPUs' caches
 * what the target's ops had there (a page-cached file's pages and their page cache entries),
 * and the ops after it run slow until it is back (2 threads, 4 KiB preads of 64 MiB
 * page-cached files: ~1.25 us falling to ~0.9 over ~20 k ops, after each pause). 2 threads
 * as fast as possible, against the timed floor: 0.899 with 32 MiB of items, 0.957 with 64
 * (HISTORY.md, 2026-12-03); 128 MiB with the entries against 80: median op 900 against 970
 * ns, ops/s 1.09x (1 M ops, 14 rounds), 945 against 995 ns and 1.05x (4 M ops, 6 rounds).
 * What the replay keeps per thread of the trace (~150 bytes: memory.sh, 500 k processes)
 * comes out of the budget, down to RUN_STAGE_MIN, so that a trace of many threads stays
 * about as small (replay_run__replay).
 */
#define RUN_STAGE_BUDGET (128u << 20)
#define RUN_STAGE_MIN (64u << 20)
#define RUN_STAGE_THREAD_BYTES 160
/* staged: the segment's results waiting for the writer, at most (stage__results then waits) */
#define RUN_STAGE_RESULTS_BUDGET (20u << 20)
/* a segment is cut short when at most 1/RUN_CUT_DIV of it is left (stage__maybe_cut) */
#define RUN_CUT_DIV 10
#define RUN_SEG_NONE UINT32_MAX
#define RUN_FD_MAX 65536
#define RUN_BATCH 256
#define RUN_ASYNC_DEPTH 64
#define RUN_PCACHE                                                                                 \
	8 /* parent directory fds kept per worker */ /* --engine io_uring|libaio: sync ops in      \
							flight per thread */

/* replay fd table values besides real fds */
#define RFD_UNKNOWN (-1) /* never seen: opened before the capture */
#define RFD_CLOSED (-2)
#define RFD_FAILED (-3) /* the replay's open failed where the original's succeeded */

struct rext;
struct rwriters;

/* a dependency: the op seq (trace order) of worker w */
struct rdep {
	uint32_t w;
	uint64_t seq;
};

/* A traced path as the replay sees it; made by the dispatcher, then read-only to the workers. */
struct rpath {
	char *orig;
	char *rel; /* "" when err */
	int root;
	/* -ENAMETOOLONG: too long to map, never resolved (every op on it fails so) */
	int err;
	uint32_t wid; /* path id in the result trace */
	uint8_t nonfile;
	/* a /proc or /dev name of another file (/dev/stdout, /proc/self/cwd/x: cvt_proc_link),
	 * which a trace recorded before the capture named the file records as it is */
	uint8_t via_link;
	/* such a name whose ".." climbs from the link's directory ("/proc/self/cwd/../x"): the
	 * recorder keeps it so when it could not tell where it led */
	uint8_t climbs;
	uint8_t wlisted; /* the dispatcher's: in its list of paths with writers entries */
	uint64_t dkey; /* dependency key of this path as a directory */
	uint64_t pkey; /* dependency key of its parent directory */
	/* those of the directories further up that an op of the trace makes, moves or removes
	 * (replay_fileset's dirs_changed); NULL: none, as for most paths */
	uint64_t *akeys;
	uint32_t nakeys;
	/* a symlink the trace knows: the path it finally leads to (replay_fileset's links_to),
	 * whose ops an op that follows the link is ordered with; NULL: none, as for most paths */
	struct rpath *lto;
	/* the dispatcher's alone: how far the file reaches (replay_extent.c) */
	uint64_t base;	  /* bytes no write of the trace made: as prepared, or as a truncate left */
	uint64_t reach;	  /* bytes it has: base, or the end of the furthest write */
	struct rext *ext; /* the writes that made it longer than base; NULL: none yet */
	struct rdep cut;  /* the last op that made it shorter or set its length (a truncate,
			   * longer too; seq 0: none): writes that make it longer wait for it */
	struct rwriters *writers; /* each worker's last write since the cut: the next cut
				   * waits for those that reached beyond it */
	struct rwriters *readers; /* the same of reads, kept only when cut_later */
	/* its last sync (fsync, fdatasync, sync_file_range; seq 0: none) and when that ended:
	 * a write of another thread that began after it waits for it (disp__extent) */
	struct rdep synced;
	uint64_t synced_end;
	uint64_t gone_seq; /* the last op that took the file by this name away (an unlink, a
			    * rename from or onto it; 0: none): an fd opened before it is on
			    * another file, whose ops leave this one's extent alone */
	/* where a rename took this name's file (moved_seq: that rename), and when the file by
	 * this name came by a rename or a create (0: there before): an fd's file is followed
	 * through renames (path__moved) */
	struct rpath *moved_to;
	uint64_t moved_seq, arrive_seq;
	uint8_t cut_later; /* the trace cuts the file by this name, or by one it is renamed to */
	/* unlinked by this name, not made again since: its ops are through fds opened before,
	 * on the file removed, whose extent stays until the name is made again (disp__resize) */
	uint8_t unlinked;
	uint64_t cut_last_ns; /* then the end of the last such cut, in the trace */
	/* no directory above it (its parent included) is made, moved or removed by the trace:
	 * only ops on this very name make it exist or not */
	uint8_t stable;
	/* the dispatcher's: the last op of the trace on this name found or left it there */
	uint8_t exists;
};

/*
 * replay_extent.c: the writes that made each file longer, so that a read of another thread
 * waits for the one it needs. w, seq: the op that wrote (worker, trace order).
 */
void extent__grow(struct rpath *p, uint64_t end, uint32_t w, uint64_t seq); /* end > reach */
/* the write a read ending at end waits for (p->ext set, end > p->base); NULL: none */
const struct rdep *extent__writer(const struct rpath *p, uint64_t end);
/* any write (or lengthening truncate, fallocate, copy) of p up to end */
void extent__wrote(struct rpath *p, uint64_t end, uint32_t w, uint64_t seq);
/* the submit of an async write of p up to end: a cut waits for it apart from w's other
 * writes, until extent__reaped */
void extent__wrote_async(struct rpath *p, uint64_t end, uint32_t w, uint64_t seq);
/* the writes since the last cut that reached beyond len, one per worker: *i from 0, NULL at
 * the end; what a cut to len waits for */
const struct rdep *extent__beyond(const struct rpath *p, uint64_t len, uint32_t *i);
/* the same of reads (p->cut_later): a read (its bytes read) or an async read's submit (its
 * bytes asked) of p up to end, and the reads a cut to len waits for */
void extent__read(struct rpath *p, uint64_t end, uint32_t w, uint64_t seq);
void extent__read_async(struct rpath *p, uint64_t end, uint32_t w, uint64_t seq);
const struct rdep *extent__read_beyond(const struct rpath *p, uint64_t len, uint32_t *i);
void extent__truncate(struct rpath *p, uint64_t len, uint32_t w, uint64_t seq);
/* the async write (or read) submitted by op submit is done by op (w, seq), its completion
 * record */
void extent__reaped(struct rpath *p, const struct rdep *submit, uint32_t w, uint64_t seq);
void extent__reset(struct rpath *p); /* a new, empty file by that name; frees what was kept */
/* how many writers and readers entries p keeps */
uint32_t extent__nwriters(const struct rpath *p);
/* drops p's writers and readers entries whose op done(ctx, by) says has been issued (an async
 * request's waits for its completion record instead); frees a list when none is left. Entries
 * left. */
uint32_t extent__drop_done(struct rpath *p, int (*done)(void *ctx, const struct rdep *by),
			   void *ctx);
void extent__move(struct rpath *from, struct rpath *to, int exchange); /* a rename */

/*
 * Items of no op (REEL_OP_NONE), by op.subop. ITEM_HANDOVER: without deps, the worker replays
 * thread op.pid/tid from now on; with deps, it only waits for them (those of the next item
 * beyond what one item holds). ITEM_ASYNC_WAIT: after its deps, waits until an async request
 * has completed (another thread's read or cut needs the bytes it writes): the one of op.pid (the
 * submitter's), op.ctx and op.aux, submitted by the op of seq op.offset, op.flags that submit's
 * type. ITEM_EXIT: after its deps (the last op of each thread of process op.pid), the process
 * has ended: what it left open is closed and mapped unmapped, as the kernel does at exit
 * (run__pid_exit, mmaps__exit).
 */
enum { ITEM_HANDOVER = 0, ITEM_ASYNC_WAIT = 1, ITEM_EXIT = 2 };

/*
 * ritem.flags. ITEM_RELEASED: a close that entered before another thread's open or dup
 * returned its fd number again, so it closed the number's previous file, which that open
 * set aside (rpid.rel); it runs after that open, not after the new file's ops.
 * ITEM_ASYNC_ANY: an async submit whose request no other op waits for (a read or a write
 * within the file's length, of a file the trace does not cut after it): its completion record
 * may take another such request's completion instead (async__complete).
 * ITEM_GROWS: a write that makes its file longer than the trace had made it: submitted
 * through an async engine, a later read of its own thread that starts below its end waits
 * for it, overlapping or not (worker__own_conflict).
 * ITEM_RESULT: staged, the op is done and op now holds its result (worker__retire), for the
 * pause to hand to the writer (stage__results).
 * ITEM_CALL_GOES_ON: an async submit record that the dispatcher's next op is of the same
 * syscall (batch__same_call): the worker that finds that one not queued yet waits for it
 * (batch__gather), so that the batch does not go in two.
 */
enum { ITEM_RELEASED = 1, ITEM_ASYNC_ANY = 2, ITEM_GROWS = 4, ITEM_RESULT = 8, ITEM_CALL_GOES_ON = 16 };

/*
 * What the general path reads of an item first (the op, seq, next, ndeps, flags) is in its
 * first two lines, which worker__prefetch fetches ahead; as fast as possible, a result is
 * written over the op there, and its path ids (line 0, from p1 and p2 in the third) are
 * filled in by the pause (stage__results).
 */
struct ritem {
	struct reel_op op;
	uint64_t seq;
	uint32_t next;	/* staged: the worker's next item in the segment, RUN_SEG_NONE: none */
	uint16_t ndeps;
	uint16_t flags; /* ITEM_* flags */
	/* line 2 */
	uint64_t sched_rel; /* original schedule, ns after the replay's time 0, speed applied */
	const struct rpath *p1, *p2;
	uint32_t carry; /* staged: left over by a cut segment, for worker carry - 1 (0: no) */
	struct rdep deps[RUN_MAX_DEPS];
};
/* whole cache lines: queues and the segment are allocated on a line, so an item's op, read and
 * (staged) overwritten with its result, shares no line with another worker's item */
#define RUN_ITEM_ALIGN 64
_Static_assert(sizeof(struct ritem) % RUN_ITEM_ALIGN == 0, "struct ritem: whole cache lines");
_Static_assert(offsetof(struct ritem, flags) < 128 && offsetof(struct ritem, sched_rel) == 128,
	       "struct ritem: what the general path reads first in its first two lines");

/*
 * Staged (afap), beside each item of the segment: what the afap lane (worker__plain) needs of
 * a plain read or write, and where it keeps the result, in one cache line of an array of
 * its own (run.lane, the same slots as run.seg), so that a worker's run of such ops streams
 * 64 bytes per op where the item has 192: the memory a replayer reads and writes per op
 * slows the syscalls' own work beside it (tests/bench_replay/throughput.sh, "floor + memory
 * traffic"). The dispatcher fills it with the item (seg__put); type 0: not for the lane.
 */
struct rlane {
	uint16_t type;	/* the op's, or 0 */
	uint16_t flags; /* LANE_* */
	uint32_t next;	/* item.next */
	int32_t fd;
	uint32_t len;
	uint64_t offset;
	int64_t ret; /* the original's; once done (LANE_RESULT), the replay's */
	uint64_t seq;
	/* the result, ns after the replay's time 0 (worker__retire's) */
	uint64_t sched, start, end;
};
_Static_assert(sizeof(struct rlane) == 64, "struct rlane: one cache line");
/* LANE_RESULT: done by the lane, the result is in the entry (stage__results) */
enum { LANE_RESULT = 1 };

#define RUN_FD_PAGE 256
/* orig fd -> replay fd or RFD_*, in pages allocated on first use: thousands of processes
 * (a build, a shell script) must not cost 256 KiB each */
struct rpid {
	uint32_t pid;
	_Atomic(_Atomic int32_t *) page[RUN_FD_MAX / RUN_FD_PAGE];
	_Atomic int32_t spare; /* used only when a page cannot be allocated */
	/* files an open or dup found still at their number, whose close (ITEM_RELEASED) comes
	 * later in the trace: original fd << 32 | replay fd; under run.lock */
	uint64_t *rel;
	uint32_t nrel, caprel;
	/* the owners of its record locks, one fd per file (replay_lock.c); under run.lock */
	struct rlockfd *lk;
	uint32_t nlk, caplk;
	/* when the replay's fork of it was done (0: no fork seen), and the original fork's end:
	 * --timing think starts its threads' first ops that long after it as they were
	 * (forked_orig written first, forked_at released after it) */
	uint64_t forked_orig;
	_Atomic uint64_t forked_at;
};

struct rworker;
struct rmaps;

/* Results of one worker, handed to the writer thread whole (issue order kept). */
struct rbatch {
	struct rbatch *next;
	unsigned n;
	struct reel_op ops[RUN_BATCH];
};

#define RUN_MAX_PENDING_BATCHES 256 /* then workers wait for the writer: bounded memory */

/* One async request of --engine io_uring|libaio for a sync op, in issue order. */
struct rinflight {
	struct replay_io io;
	size_t cap; /* io.buf's size: io.len is the request's, smaller or not */
	struct reel_op res;
	uint64_t seq;
	int64_t orig_ret;
	const struct rpath *p;
	struct ritem *at; /* staged: the item its result is kept in (worker__retire) */
	int done;
	int skip;  /* not issued: only its place in the order */
	int grows; /* a write that makes its file longer (ITEM_GROWS) */
};

struct rworker {
	struct run *run;
	uint32_t idx;
	uint32_t pid, tid;
	struct rpid *rp;
	pthread_t th;
	int started;

	/*
	 * Queue: the dispatcher produces, the worker consumes. Each side's index sits on a cache
	 * line of its own with its cached view of the other's, re-read only when that view says
	 * full (producer) or empty (consumer): sharing one line made both sides pull it across
	 * cores on every op.
	 */
	struct ritem *q;
	_Alignas(64) _Atomic uint32_t tail; /* the producer's line */
	uint32_t head_seen;
	uint32_t ptail; /* staged: queued up to here, released up to tail */
	uint32_t seg_first, seg_last; /* staged: its items in the segment being read ahead */
	uint32_t seg_slot, seg_slot_end; /* staged: the rest of its chunk of slots (seg__slot) */
	uint32_t seg_share; /* staged: how many of the running segment's items are its */
	uint64_t pushed_seq; /* the dispatcher's: the seq of the last op queued to it */
	uint64_t bound_seq;  /* the dispatcher's: the last seq before it took on its thread */
	int ring_owed;	     /* the dispatcher's: asleep for items it queued, to ring (disp__wake) */
	_Alignas(64) _Atomic uint32_t head; /* the consumer's line */
	uint32_t tail_seen;
	int seg_owed; /* staged: took items of the running segment, owes a "done" */
	uint32_t cur; /* staged: its next item in the released segment */
	_Alignas(64) _Atomic int prod_wait; /* written rarely: before and after a sleep */
	_Atomic int cons_wait;
	_Atomic int eof;
	/*
	 * What an idle worker sleeps on: bumped by whoever gives it something to look at (items,
	 * the end) while it says it waits. Not the tail: the end does not move the tail, and a
	 * wake-up that came between the worker's last look and its sleep was lost for good.
	 */
	_Atomic uint32_t bell;

	/* completion, for the ops of other workers that depend on ours */
	_Alignas(64) _Atomic uint64_t done_seq;
	_Atomic uint32_t done_word;
	_Atomic int waiters;
	_Atomic uint64_t ops_done;
	_Atomic int64_t last_late; /* lateness of its latest op, for progress */

	/* worker-private */
	_Alignas(64) void *buf;
	/* the last of its ops another worker's item waits for (staged: set by the dispatcher
	 * while the segment is read ahead), and the last op it did (worker__done) */
	uint64_t dep_max, last_seq;
	size_t bufsz;
	uint64_t prev_orig_end, prev_end;
	/* --timing think: how late its ops woke up past their schedule (not waiting for other
	 * threads), not yet made up from the gaps after them (worker__think_at) */
	uint64_t think_debt;
	int have_prev;
	struct rbatch *out; /* results not yet handed to the writer thread */
	uint64_t ndone, issued;
	/* ops that waited for ops of other threads they are kept after (worker__wait_deps):
	 * how many, the time in all, the longest; the report's wake-up lateness holds them */
	uint64_t order_waits, order_wait_ns, order_wait_max;
	/* with a schedule: ops whose item reached it after they were due, while it waited for
	 * its queue (the dispatcher behind), and how late in all (worker__item_late); idle_from:
	 * when it began to wait, 0: it does not */
	uint64_t items_late, items_late_ns, idle_from;
	uint64_t idle_room_waits; /* the dispatcher's waits for room then (UINT64_MAX: in one) */
	uint64_t spun_ns; /* spent spinning to a schedule (sleep_until): no work of its own */
	int lane;	   /* afap, sync engine: plain data ops take worker__plain */
	uint64_t lane_ops; /* how many did */
	/* the span of such waits since the last op, for the next one's result (wait_ns);
	 * wait_to 0: none */
	uint64_t wait_from, wait_to;
	/* --spin, a data op prepared ahead of its schedule (worker__lead): the time its timed
	 * syscall waits for (worker__issue_tick); 0: none */
	uint64_t issue_at;
	/* a libaio completion record, with a schedule: when the worker came to it (worker__came);
	 * 0: when exec__op began. reap_entry: the trace's time its io_getevents went in */
	uint64_t came_ns, reap_entry;
	uint64_t test_prep_ns; /* IOREEL_TEST_PREP_NS, for tests: a slow preparation */
	/* replay_clock.c: TSC clock (afap), anchored on CLOCK_MONOTONIC */
	int use_tsc;
	uint64_t tsc0, ns0, tsc_last;
	uint64_t last_end;
	/* parent directory fds of recent path ops (see path__parent in replay_exec.c) */
	struct {
		char *dir;
		size_t len;
		int root;
		int fd;
		uint64_t used;
	} pc[RUN_PCACHE];
	uint64_t pc_tick;
	uint32_t pc_gen;
	/* async engine for sync ops */
	struct replay_engine eng;
	int eng_on;
	/* it submitted to one of the trace's io_uring rings: it stays until every worker has
	 * ended (worker__linger), as the kernel cancels the requests a thread left queued
	 * with its workers when that thread exits */
	int uring_submitter;
	/* replay_lock.c: the timer that gives up a lock request blocked too long */
	timer_t lk_timer;
	int lk_timer_ok;
	struct rinflight *infl;
	unsigned infl_head, infl_n;
	/* replay_batch.c: results of records submitted with an earlier one; NULL: none yet */
	struct abatch *ab;
};

struct run {
	const struct replay_opts *o;
	const struct replay_mapper *m;
	const struct replay_fileset *fs;
	struct reel_writer *w;
	pthread_mutex_t wlock; /* the reel_writer: the writer thread and path interning */
	uint64_t t0;
	uint64_t syscall_ns; /* replay_clock__syscall_ns, taken before the workers start */
	int werr;
	/* batches waiting for the writer thread; compression never runs in a worker */
	pthread_mutex_t blk;
	pthread_cond_t bcond, bspace;
	struct rbatch *bhead, *btail, *bfree;
	/* the summary's histograms, kept by the writer thread from the results it writes: the
	 * workers only measure */
	struct replay_pctl lateness;
	struct replay_pctl *lat[REEL_OP__COUNT];
	unsigned npending, max_pending;
	int bstop;
	int wbusy; /* the writer is encoding a batch it took */
	int wbehind; /* a worker waited for room for its results since the writer last looked */
	pthread_cond_t bdrained;

	/*
	 * Staged replay (afap): the trace is read ahead a segment at a time into one buffer
	 * (each worker's items chained through ritem.next, in place of the queues) and the
	 * segment released whole; its results are written in the pause after it. The replay's
	 * timeline leaves the pauses out (t0 moves on by each one).
	 */
	int staged;
	/*
	 * Workers that never sleep (staged, or --spin all the way), with no more threads than
	 * CPUs it may use: worker i runs on CPU pin_cpu[i] only (run__pin_plan says why).
	 */
	int npin;
	int pin_cpu[RUN_PIN_MAX];
	struct ritem *seg;
	struct rlane *lane;	 /* beside seg: its plain reads and writes, for the lane */
	uint32_t seg_n, seg_cap; /* items read ahead; slots */
	/*
	 * The slots go to the workers seg_chunk at a time (seg__slot): each worker's items lie in
	 * runs of its own, not interleaved with the other threads' in trace order, where every
	 * worker's reads pulled the others' items into its caches (the prefetchers take whole
	 * neighbouring lines) and each result written in place took a line from the other
	 * core: two threads' preads, as fast as possible, were ~10 % slower than the loop's.
	 */
	uint32_t seg_chunk, seg_chunks, seg_chunk_next;
	int hold;			/* under blk: the writer keeps results until the pause */
	_Atomic uint32_t seg_busy;	/* workers still on the released segment */
	uint64_t segments, paused_ns; /* the dispatcher's */
	/*
	 * A segment is cut short once a worker has run out and little is left to the others:
	 * they stop at their next op and carry the rest over to the next segment, instead of
	 * idling the finished worker's core until the slowest is done (stage__maybe_cut).
	 */
	uint32_t seg_items;	  /* items released in the running segment */
	uint32_t cut_div;	  /* cut when at most seg_items / cut_div are left (0: never) */
	_Atomic int seg_open;	  /* all of the running segment's workers are released */
	/* read by every worker at every op: on a line nothing else writes while a segment runs */
	_Alignas(64) _Atomic int seg_cut;
	uint64_t seg_cuts, carried; /* the dispatcher's: segments cut short, ops carried over */
	uint64_t seg_straggler_cuts; /* of those, cut for a thread far behind (stage__wait) */

	struct rworker *workers[RUN_MAX_WORKERS];
	_Atomic uint32_t nworkers;
	_Atomic uint32_t workers_ended; /* those past their last op: a futex word */

	pthread_mutex_t lock;	   /* failure examples, notices, pid tables, async contexts */
	struct replay_u64map pids; /* pid -> struct rpid * */
	struct replay_u64map actx; /* (kind, pid, ctx) -> struct ractx * */
	/* pid << 32 | fd -> O_DIRECT, O_DSYNC, O_SYNC of a file open before the capture (the
	 * trace's REEL_META_CAPTURE_FD_FLAGS); read only once the replay runs */
	struct replay_u64map fd_oflags;
	struct replay_summary *sum;
	unsigned notices[REPLAY_FAIL__COUNT + 1];
	_Atomic uint64_t fail[REPLAY_FAIL__COUNT];
	_Atomic uint64_t enospc; /* of the new errors, ENOSPC: the target ran out of space */
	_Atomic uint64_t noop_closes;
	_Atomic uint64_t lock_waits_abandoned; /* blocked lock requests given up (replay_lock.c) */
	uint64_t xattr_ops; /* the trace's capture.xattr_ops */
	/* bumped by renames, rmdirs, symlinks (and unlinks, in a run with symlinks): cached dir
	 * fds go stale */
	_Atomic uint32_t dirgen;
	_Atomic uint64_t direct_dropped, direct_failed;
	/* ops the dispatcher counts as not replayed itself (disp__unnamed): no worker's to do */
	_Atomic uint64_t ops_unnamed;
	_Atomic uint64_t cpu_workers_ns; /* CPU time of ended worker threads */
	_Atomic uint64_t worker_faults; /* minor page faults of ended worker threads */
	/* of ended workers, the largest share of its time one spent on a CPU (its spins to a
	 * schedule left out), in thousandths (worker__busy) */
	_Atomic uint32_t worker_busy_max;
	/* of ended workers, the largest share of its time one was runnable but waited for a
	 * CPU, in thousandths (worker__runq) */
	_Atomic uint32_t worker_runq_max;
	/* the dispatcher's waits for room in a full queue: how many began, and whether it is in
	 * one now (worker__item_late) */
	_Atomic uint64_t disp_room_waits;
	_Atomic int disp_in_room_wait;
	/* the seq of the last op the dispatcher queued, UINT64_MAX once it has stopped: how far
	 * it is, for a worker waiting for the rest of a batch (batch__gather) */
	_Alignas(64) _Atomic uint64_t disp_seq;
	uint64_t cpu_writer_ns, cpu_dispatch_ns;
	/* the dispatcher's share of its time waiting for a CPU, in thousandths; UINT32_MAX: the
	 * kernel does not say (no schedstat), nor for the workers then */
	uint32_t dispatch_runq;
	_Atomic int stop;
	struct rmaps *maps; /* replay_mmap.c */
	int devnull;	    /* where a sendfile to a socket or pipe goes (replay_exec.c) */
};

/*
 * With a schedule, the dispatcher and the writer are background work (nice
 * RUN_BACKGROUND_NICE) while they are ahead of the workers; behind, they are the replay's
 * pace and take their own priority back (background__leave), until ahead again.
 */
#define RUN_BACKGROUND_NICE 10
struct run_bg {
	int prio;   /* the thread's own */
	int sched;  /* with a schedule: it goes to the background while ahead */
	int in;	    /* in the background now */
	int locked; /* it could not leave it (no CAP_SYS_NICE): it stays */
};
void background__enter(const struct run *run, struct run_bg *bg);
void background__leave(struct run_bg *bg);
void background__return(struct run_bg *bg); /* after a leave: back, ahead again */

/* replay_worker.c */
void queue__size(size_t ntids, size_t nqueues); /* for ntids trace threads, nqueues at once */
/* the item k (>= 1) places after the one being run, if queued already; else NULL */
const struct ritem *worker__queued(struct rworker *w, unsigned k);
/* the dispatcher's side: QUEUE_* of what it found */
#define QUEUE_IDLE 1   /* the worker sleeps for items: the caller rings it (worker__ring) */
#define QUEUE_WAITED 2 /* the queue was full: it waited for room */
int queue__push(struct rworker *w, const struct ritem *it);
int queue__full(struct rworker *w); /* queue__push would wait for room */
struct rworker *worker__new(struct run *run, uint32_t pid, uint32_t tid); /* and its thread */
void worker__drain(struct rworker *w);	/* waits for its requests in flight */
void worker__flush(struct rworker *w);	/* hands its result batch to the writer */
void worker__publish(struct rworker *w, uint64_t seq); /* done up to seq, for the waiters */
void worker__wake_waiters(struct rworker *w);
int run__interrupted(const struct run *run);
uint64_t thread_cpu_ns(void); /* the calling thread's CPU time */
uint64_t thread_runq_ns(void); /* its time waiting for a CPU; UINT64_MAX: not known */
void futex_wait(_Atomic uint32_t *addr, uint32_t val);
void futex_wait_ns(_Atomic uint32_t *addr, uint32_t val, uint64_t ns); /* at most ns */
void futex_wake(_Atomic uint32_t *addr);
void worker__ring(struct rworker *w); /* wakes the worker if it sleeps for items (bell) */

/* replay_stage.c */
void stage__test_knob(struct run *run); /* IOREEL_TEST_SEGMENT */
void seg__put(struct run *run, struct rworker *w, uint32_t i, const struct ritem *it);
uint32_t seg__slot(struct run *run, struct rworker *w); /* w's next slot; RUN_SEG_NONE: full */
void seg__chunking(struct run *run, uint32_t max_workers); /* the chunk size, for so many */
void stage__maybe_cut(struct rworker *w); /* a worker ran out of its part */
void worker__seg_done(struct rworker *w); /* its part of the segment is done */
void worker__cut(struct rworker *w, uint32_t h); /* stops before its item at h */

/* replay_run.c */
void run__meta(struct run *run, struct reel_reader *trace); /* the result's head meta */
struct rbatch *run__batch_take(struct run *run); /* an empty result batch; under blk */
void run__pin(struct run *run, uint32_t idx); /* the calling worker to its CPU (npin) */
void run__batch_queue(struct run *run, struct rbatch *b); /* to the writer; under blk */

/* replay_batch.c: the submit records of one syscall (io_submit, io_uring_enter) */
#define BATCH_MAX 64 /* records submitted at once: a larger batch goes in several */
/* it and the records queued right after it that went to the kernel with it, into out[]
 * (it first): how many */
unsigned batch__gather(struct rworker *w, const struct ritem *it, const struct ritem **out);
/* b went to the kernel in the same syscall as a (both async submit records) */
int batch__same_call(const struct reel_op *a, const struct reel_op *b);
/* the result of a record of the batch the worker's current op began (its result first,
 * times set): ret, r its exec__op result; kept until the worker comes to it */
void batch__keep(struct rworker *w, const struct reel_op *first, const struct ritem *it,
		 int64_t ret, int r);
/* 1: it went with an earlier record: res takes the result kept for it (its times, ret, and
 * the batch's schedule and wait), *r its exec__op result. 0: it was not */
int batch__take(struct rworker *w, const struct ritem *it, struct reel_op *res, int *r);

/* replay_clock.c */
#if defined(__x86_64__)
#include <x86intrin.h>
#else
#define __rdtsc() 0ULL /* never read: replay_clock__calibrate leaves the TSC off */
#endif
extern uint64_t replay_tsc_mult;
void replay_clock__calibrate(void); /* sets replay_tsc_mult, or 0 when the TSC is not usable */
/* the workers of a run with these options read the TSC (after replay_clock__calibrate) */
int replay_clock__tsc_for(const struct replay_opts *o);
const char *replay_clock__name(const struct replay_opts *o); /* for the result's meta */
/* median ns of a getppid timed the workers' way: the entry and exit in every op's time */
uint64_t replay_clock__syscall_ns(const struct replay_opts *o);
uint64_t replay_clock__dropped(void); /* workers that went back to the clock: the TSC jumped */
/* 1: the pair (tsc, ns) reads onto the line through the anchor (tsc0, ns0) at mult (ns per
 * tick << 32) within the rate's error since the anchor; 0: the TSC jumped */
int replay_clock__agrees(uint64_t tsc0, uint64_t ns0, uint64_t mult, uint64_t tsc, uint64_t ns);
extern uint64_t replay_tsc_renew; /* ticks in 1 ms */
int replay_clock__renew(struct rworker *w); /* replay_clock__anchor's renewal */
/* between ops: renews a stale anchor; 1 when it did (times before it used the old one) */
static inline int replay_clock__anchor(struct rworker *w)
{
	if (!w->use_tsc || (w->tsc_last - w->tsc0 < replay_tsc_renew && w->tsc0))
		return 0;
	return replay_clock__renew(w);
}
/*
 * A raw reading of the worker's clock: the TSC when the worker uses it, else CLOCK_MONOTONIC
 * ns. An op is timed by two raw readings, converted (worker__ns) after the second, so that the
 * conversion is not inside what is timed.
 */
static inline uint64_t worker__tick(const struct rworker *w)
{
	return w->use_tsc ? __rdtsc() : replay_now_ns();
}

/*
 * The raw reading an op's start is stamped with (TIMED_SYS): when the op was prepared ahead
 * of its schedule (--spin, worker__lead), first spins to it, so the syscall goes right then.
 */
static inline uint64_t worker__issue_tick(struct rworker *w)
{
	if (w->issue_at) {
		uint64_t t = w->issue_at;

		w->issue_at = 0;
		while (replay_now_ns() < t)
			;
	}
	return worker__tick(w);
}

/* CLOCK_MONOTONIC ns of a raw reading, in the order they were taken */
static inline uint64_t worker__ns(struct rworker *w, uint64_t t)
{
	if (!w->use_tsc)
		return t;
	w->tsc_last = t;
	if (t < w->tsc0) /* another CPU's TSC a hair behind: never before the anchor */
		t = w->tsc0;
	return w->ns0 + (uint64_t)(((unsigned __int128)(t - w->tsc0) * replay_tsc_mult) >> 32);
}

/* CLOCK_MONOTONIC ns, from the TSC when the worker uses it */
static inline uint64_t worker__now(struct rworker *w)
{
	return worker__ns(w, worker__tick(w));
}

/* replay_worker.c: reaps the worker's own requests (--engine io_uring|libaio) and retires, in
 * issue order, those done; min 0 polls, else waits for min (until t_abs when not 0) */
void worker__reap(struct rworker *w, unsigned min, uint64_t t_abs);

/* replay_exec.c */
struct rpid *run__pid(struct run *run, uint32_t pid);
void rpid__free(struct rpid *rp);			  /* closes the fds it holds */
void run__pid_exit(struct run *run, uint32_t pid);	  /* the process ended: its fds go */
_Atomic int32_t *rpid__slot_new(struct rpid *rp, int fd); /* rpid__slot, its page not made yet */
/* the replay fd slot of original fd fd, 0 <= fd < RUN_FD_MAX: inline, once per data op */
static inline _Atomic int32_t *rpid__slot(struct rpid *rp, int fd)
{
	_Atomic int32_t *pg =
	    atomic_load_explicit(&rp->page[(unsigned)fd / RUN_FD_PAGE], memory_order_acquire);

	return pg ? &pg[(unsigned)fd % RUN_FD_PAGE] : rpid__slot_new(rp, fd);
}
/* opens rel beneath rootfd as original fd ofd of pid, one the trace did not open: with the
 * flags the capture found it had (fd_oflags); the fd or -errno */
int exec__open_found(struct run *run, uint32_t pid, int32_t ofd, int rootfd, const char *rel,
		     int for_write);
/* Issues one op; fills res (ret, times). 0 issued, 1 left pending (async engine), 2 issued
 * with an outcome counted already (the completion record of a request whose submission
 * failed: its submit record's check counted it), or -(1 + enum replay_fail_kind) when not
 * issued. */
int exec__op(struct rworker *w, const struct ritem *it, struct reel_op *res);
void exec__fail(struct run *run, enum replay_fail_kind k, const struct reel_op *op,
		const struct rpath *p, const char *why);
int exec__buf(struct rworker *w, size_t len);
int exec__fd(struct rworker *w, const struct ritem *it, int for_write);
void exec__pcache_clear(struct rworker *w);

/* replay_lock.c: flock and fcntl_lock */
int exec__lock(struct rworker *w, const struct ritem *it, struct reel_op *res);
void lock__closed(struct rworker *w, int fd); /* before a close of fd: its record locks go */
void lock__free(struct rpid *rp);
void lock__worker_end(struct rworker *w);
/* a request that may wait for another owner's lock: F_SETLKW, flock without LOCK_NB */
int replay_lock__blocks(const struct reel_op *op);

/* replay_proc.c: fork, execve and exit records: what they do to the process's fds */
int exec__proc(struct rworker *w, const struct ritem *it, struct reel_op *res);

/* replay_mmap.c: the replay's mappings of the original's address ranges */
struct stat;
int mmaps__init(struct run *run);
void mmaps__free(struct run *run); /* unmaps them all */
int exec__mmap(struct rworker *w, const struct ritem *it, struct reel_op *res);
int exec__msync(struct rworker *w, const struct ritem *it, struct reel_op *res);
/* unmaps the replay's mappings the original range covers whole */
int exec__munmap(struct rworker *w, const struct ritem *it, struct reel_op *res);
int mmaps__maps_name(struct run *run, int pfd, const char *base, struct stat *st);
void mmaps__unlinked(struct run *run, const struct stat *st);
/* removals of a mapped file's last name whose mappings the trace never undid: at the end */
uint64_t mmaps__unlinks_kept(struct run *run);
/* unmaps what the ended process left mapped; traced: its exit or execve record */
void mmaps__exit(struct run *run, uint32_t pid, int traced);
uint64_t mmaps__exits(const struct run *run);	 /* how many processes had some */

/* replay_async.c: the trace's own async ops (AIO_*, URING_*) */
int async__kind(const struct reel_op *op); /* a submit's REPLAY_IO_*, -1: not supported */
/*
 * A submit record, with those queued after it that went with it in one syscall
 * (batch__gather), submitted at once; exec__op's result, res filled: start_ns when the
 * submission began (a completion record's start, FORMAT.md), end_ns when it returned, no
 * later than the completions it brought are stamped. A record submitted with an earlier
 * one takes the result kept for it (batch__take).
 */
int async__submit(struct rworker *w, const struct ritem *it, struct reel_op *res);
/*
 * *done_ns: when the request ended (set when known), as *submit_ns on the timeline of now:
 * io_uring's when it completed; libaio's when it completed or, if later, when the worker
 * came to the record (w->came_ns), the replay's io_getevents (actx__reaped_at). 2: the
 * replay's submission of the request failed (res->ret: its error), which its submit record
 * counted already. res: the result record, its ret set; its aux, subop and offset those of
 * the request it took, another's when its own had not completed (ITEM_ASYNC_ANY)
 */
int async__complete(struct rworker *w, const struct ritem *it, struct reel_op *res,
		    uint64_t *submit_ns, uint64_t *done_ns);
/* an ITEM_ASYNC_WAIT item: until its request has completed; 1 when it was not yet, 0 when it
 * was, or -errno reaping failed */
int async__wait(struct rworker *w, const struct ritem *it);
void async__free_all(struct run *run);

#endif
