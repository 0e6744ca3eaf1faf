/* SPDX-License-Identifier: MIT */
/*
 * report_collect.c - one streaming pass over a trace (original or replay result) into
 * per-kind latency histograms, per-file totals, lateness and thread gaps.
 *
 * Latency is end - start of each op; an asynchronous request is measured from its
 * submission record to its completion record (matched on pid, context and user data).
 * Ops on pipes, sockets and other non-files, and on files under /proc, /sys and /dev (not
 * /dev/shm), are the application's think time, not storage work, as replay sees them: they
 * are counted apart and left out of every distribution.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reel.h"
#include "replay_hash.h"
#include "replay_int.h"
#include "report_int.h"

/* Map key spaces, so that one map could never mix them up (each has its own map anyway). */
enum { KEY_ASYNC = 1, KEY_ASYNC_ID };

/*
 * A thread's state, one per (pid, tid) of the trace: a trace of 200 k short processes keeps
 * 200 k of them (nothing says when a thread has ended), so they are small and kept in an
 * array indexed by a u64 map: about 110 bytes a thread, where two 4-word-key maps took
 * 220-450.
 */
struct thread_state {
	uint64_t last_start, last_end; /* its previous op's (measure) */
	/* its first op's start, its latest op end and its busy time (its span against its
	 * gaps: report_run.thread_span_ns), and whether its previous op was a refused lock */
	uint64_t first_start, max_end, io_ns;
	/* busy until, on the schedule's timeline and in fact, and the preemptions it carries
	 * in a backlog (busy_set, carried_of) */
	uint64_t busy[3];
	struct rqueue *rq;  /* a replay with --engine io_uring|libaio: its requests (engine_busy) */
	struct rcall *call; /* a replay: its last submit record's syscall (async_submit) */
	/* the op that holds it now, blamed for a rise of its next op's backlog (blame_rise):
	 * its file, what it took beyond the original's p90 of its kind, and the backlog the
	 * thread had when it began it (blamed: that one is known) */
	struct report_file *blame_file;
	uint64_t blame_extra, blame_base;
	uint16_t blame_kind; /* 0: an op no kind is blamed for (not storage work) */
	uint8_t seen, is_busy, refused, blamed;
};

struct collect {
	struct report_run *run;
	struct reel_reader *r;
	int by_file;
	struct replay_u64map fds; /* pid << 32 | fd -> path id */
	struct report_pending pending; /* async requests submitted, by (pid, ctx, aux) */
	struct report_map early; /* replays: (pid, ctx, aux, submission) -> how many of its
				    completions were read before their submits */
	struct replay_u64map tindex; /* pid << 32 | tid -> index in threads */
	struct thread_state *threads;
	size_t nthreads, capthreads;
	struct report_file **by_path_id; /* cache: reader path id -> file */
	size_t by_path_cap;
	uint8_t *pseudo_id; /* cache: reader path id -> 1 a file's, 2 under /proc, /sys... */
	size_t pseudo_cap;
	char **prefixes; /* replay target roots, removed from paths */
	size_t nprefixes;
	/* a replay with --engine io_uring|libaio: its threads' reads and writes went out as
	 * requests, several in flight (engine_busy) */
	int engine_async;
	int tl_by_schedule; /* a replay in original timing: timeline rows by schedule */
	uint64_t orig_p90[REPORT_KINDS]; /* a replay's original's p90 of each kind (blame) */
};

static uint64_t str_hash(const char *s, uint64_t seed)
{
	uint64_t h = 1469598103934665603ull ^ seed;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

static struct report_file *file_find(const struct report_run *run, const char *path,
				     uint64_t k[REPORT_KEY_N])
{
	k[0] = str_hash(path, 0);
	k[1] = str_hash(path, 0x5bd1e995);
	k[2] = strlen(path);
	k[3] = 0;
	struct report_map_slot *s = report_map__get(&run->file_index, k);
	return s ? run->files[s->v[0]] : NULL;
}

struct report_file *report_run__file(const struct report_run *run, const char *path)
{
	uint64_t k[REPORT_KEY_N];
	return file_find(run, path, k);
}

static struct report_file *file_get(struct report_run *run, const char *path)
{
	uint64_t k[REPORT_KEY_N];
	struct report_file *f = file_find(run, path, k);
	if (f)
		return f;
	if (run->nfiles == run->files_cap) {
		size_t cap = run->files_cap ? run->files_cap * 2 : 64;
		struct report_file **n = realloc(run->files, cap * sizeof(*n));
		if (!n)
			return NULL;
		run->files = n;
		run->files_cap = cap;
	}
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path))) {
		free(f);
		return NULL;
	}
	uint64_t v[2] = {run->nfiles, 0};
	if (report_map__put(&run->file_index, k, v)) {
		free(f->path);
		free(f);
		return NULL;
	}
	run->files[run->nfiles++] = f;
	return f;
}

/* The path as the original trace would name it: a replay's target root removed. */
static const char *strip_target(const struct collect *c, const char *path)
{
	for (size_t i = 0; i < c->nprefixes; i++) {
		size_t n = strlen(c->prefixes[i]);
		if (n && !strncmp(path, c->prefixes[i], n) && (path[n] == '/' || !path[n]))
			return path[n] ? path + n : "/";
	}
	return path;
}

/*
 * The caches by path id are arrays as long as the largest id: a recorder's ids run from 1
 * up, but the format lets a chunk start its ids anywhere below 2^32, and a cache grown to
 * such an id took 4 GiB for a trace of one path. Ids beyond this are looked up each time.
 */
#define ID_CACHE_MAX (1U << 24)

static struct report_file *file_of_path_id(struct collect *c, uint32_t id)
{
	if (!id)
		return NULL;
	if (id < c->by_path_cap && c->by_path_id[id])
		return c->by_path_id[id];
	const char *p = reel_reader__path(c->r, id);
	if (!p)
		return NULL;
	struct report_file *f = file_get(c->run, strip_target(c, p));
	if (!f || id >= ID_CACHE_MAX)
		return f;
	if (id >= c->by_path_cap) {
		size_t cap = c->by_path_cap ? c->by_path_cap : 256;
		while (cap <= id)
			cap *= 2;
		struct report_file **n = realloc(c->by_path_id, cap * sizeof(*n));
		if (!n)
			return f;
		memset(n + c->by_path_cap, 0, (cap - c->by_path_cap) * sizeof(*n));
		c->by_path_id = n;
		c->by_path_cap = cap;
	}
	c->by_path_id[id] = f;
	return f;
}

static uint64_t fd_key(uint32_t pid, int64_t fd)
{
	return (uint64_t)pid << 32 | (uint32_t)fd;
}

static uint32_t fd_path(struct collect *c, uint32_t pid, int32_t fd)
{
	uint64_t *v = replay_u64map__get(&c->fds, fd_key(pid, fd));
	return v ? (uint32_t)*v : 0;
}

/* fd now names path; 0, a file the report does not know: not what the number named before
 * (a dup2 over it has no close) */
static int fd_remember(struct collect *c, uint32_t pid, int64_t fd, uint32_t path)
{
	if (!path) {
		replay_u64map__del(&c->fds, fd_key(pid, fd));
		return 0;
	}
	return replay_u64map__put(&c->fds, fd_key(pid, fd), path);
}

/* op's thread's state; NULL: none yet (make 0), or out of memory (make 1) */
static struct thread_state *thread_of(struct collect *c, const struct reel_op *op, int make)
{
	uint64_t k = (uint64_t)op->pid << 32 | op->tid;
	uint64_t *v = replay_u64map__get(&c->tindex, k);

	if (v)
		return &c->threads[*v];
	if (!make)
		return NULL;
	if (c->nthreads == c->capthreads) {
		size_t cap = c->capthreads ? c->capthreads * 2 : 64;
		struct thread_state *n = realloc(c->threads, cap * sizeof(*n));
		if (!n)
			return NULL;
		c->threads = n;
		c->capthreads = cap;
	}
	if (replay_u64map__put(&c->tindex, k, c->nthreads))
		return NULL;
	memset(&c->threads[c->nthreads], 0, sizeof(c->threads[0]));
	return &c->threads[c->nthreads++];
}

/* the thread's busy pair (busy_set), NULL: none yet */
static const uint64_t *busy_of(struct collect *c, const struct reel_op *op)
{
	struct thread_state *t = thread_of(c, op, 0);
	return t && t->is_busy ? t->busy : NULL;
}

/* Follows opens, dups and closes, so that fd ops without a path id still find their file. */
static int track_fds(struct collect *c, const struct reel_op *op)
{
	switch (op->type) {
	case REEL_OP_OPEN:
	case REEL_OP_OPENAT:
	case REEL_OP_OPENAT2:
	case REEL_OP_CREAT:
		return op->ret >= 0 ? fd_remember(c, op->pid, op->ret, op->path) : 0;
	case REEL_OP_DUP:
	case REEL_OP_DUP2:
	case REEL_OP_DUP3:
	case REEL_OP_FCNTL_DUPFD:
		return op->ret >= 0 ? fd_remember(c, op->pid, op->ret, fd_path(c, op->pid, op->fd))
				    : 0;
	case REEL_OP_CLOSE:
		if (op->ret >= 0)
			replay_u64map__del(&c->fds, fd_key(op->pid, op->fd));
		return 0;
	default:
		return 0;
	}
}

/* Whether path id names a file under /proc, /sys or /dev (but /dev/shm), as replay sees it. */
static int path_id_is_pseudo(struct collect *c, uint32_t id)
{
	if (!id)
		return 0;
	if (id < c->pseudo_cap && c->pseudo_id[id])
		return c->pseudo_id[id] == 2;
	const char *p = reel_reader__path(c->r, id);
	int pseudo = p && replay_path__is_nonfile(p);
	if (id >= ID_CACHE_MAX)
		return pseudo;
	if (id >= c->pseudo_cap) {
		size_t cap = c->pseudo_cap ? c->pseudo_cap : 256;
		while (cap <= id)
			cap *= 2;
		uint8_t *n = realloc(c->pseudo_id, cap);
		if (!n)
			return pseudo;
		memset(n + c->pseudo_cap, 0, cap - c->pseudo_cap);
		c->pseudo_id = n;
		c->pseudo_cap = cap;
	}
	c->pseudo_id[id] = pseudo ? 2 : 1;
	return pseudo;
}

/*
 * Not storage work: I/O on pipes, sockets, devices, and any op on a file under /proc, /sys
 * or /dev, which replay leaves out too (their fd's kind is a regular file or a directory:
 * /proc/self/stat, getdents of /sys/devices). Counted in the original, they were measured
 * against a replay that has none of them: fio's 162 getdents of /sys were "not replayed".
 * So is a sendfile that failed with its destination's error (replay_op__copy_net_err).
 */
static int is_nonfile(struct collect *c, const struct reel_op *op)
{
	switch (op->fd_kind) {
	case REEL_FD_CHR:
	case REEL_FD_FIFO:
	case REEL_FD_SOCK:
	case REEL_FD_OTHER:
		return 1;
	default:
		break;
	}
	if (replay_op__copy_net_err(op))
		return 1;
	if (op->path)
		return path_id_is_pseudo(c, op->path);
	return replay_op__on_fd(op) && op->fd >= 0 &&
	       path_id_is_pseudo(c, fd_path(c, op->pid, op->fd));
}

static int file_add(struct collect *c, struct report_file *f, unsigned kind, uint64_t lat,
		    int64_t ret)
{
	f->ops++;
	f->total_ns += lat;
	f->class_ns[report_kind__class(kind)] += lat;
	if (ret < 0)
		f->errors++;
	if (!c->by_file)
		return 0;
	for (size_t i = 0; i < f->nkinds; i++)
		if (f->kinds[i].kind == kind)
			return hist__add(&f->kinds[i].lat, lat);
	struct report_fkind *n = realloc(f->kinds, (f->nkinds + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	f->kinds = n;
	n[f->nkinds].kind = kind;
	hist__init(&n[f->nkinds].lat);
	return hist__add(&n[f->nkinds++].lat, lat);
}

/*
 * An op due while its thread is still busy starts once the thread is free, plus the
 * replayer's own step from one op to the next, as the application took its own time
 * between two syscalls: 0.1-1 us (timing the op, recording its result), up to a futex
 * wake-up's tens of us where it waited for another thread. Longer is a late wake-up (the
 * worker preempted by another process, the machine busy), the replayer's delay.
 */
#define OWN_STEP_NS 100000

/*
 * When the op's thread was free to start it, on a timeline made of the schedule and the
 * replay's own latencies: each op starts at its schedule or, when its thread's previous op
 * ended past it there, at that end plus the replayer's step (busy_until keeps the thread's
 * end on that timeline in v[0], its real end in v[1]).
 */
static uint64_t sched_free_at(const uint64_t *busy, const struct reel_op *op)
{
	if (!busy || busy[0] <= op->sched_ns)
		return op->sched_ns;
	uint64_t real_free = busy[1] > op->sched_ns ? busy[1] : op->sched_ns;
	uint64_t step = op->start_ns > real_free ? op->start_ns - real_free : 0;
	return busy[0] + (step < OWN_STEP_NS ? step : OWN_STEP_NS);
}

/*
 * A thread in a backlog on the schedule's timeline (its previous op ended there past this
 * one's schedule) never sleeps between its ops: a step longer than OWN_STEP_NS there is a
 * preemption, not a late wake-up. The op it held up counts it as wake-up lateness, once;
 * the later ops of the backlog, due while the thread was in fact still busy with its earlier
 * ops, count it in their backlog. Carried as wake-up lateness, each one added up in every
 * later op of the backlog: three preemptions of 2.7 ms in all read "wake-up lateness max
 * 3.49 ms ** FELL BEHIND **" beside a 16.7 s backlog. What the thread carries from before
 * its backlog (a late wake-up) is still wake-up lateness, and all of it is once the thread
 * is free on the schedule's timeline again. busy[2] holds the preemptions carried.
 */
static uint64_t carried_of(const uint64_t *busy, const struct reel_op *op)
{
	if (!busy || busy[0] <= op->sched_ns || busy[1] <= busy[0])
		return 0;
	return busy[2] < busy[1] - busy[0] ? busy[2] : busy[1] - busy[0];
}

/* what op's thread carries after it (carried_of): 0 but in a backlog */
static uint64_t carry_after(const uint64_t *busy, const struct reel_op *op)
{
	if (!busy || busy[0] <= op->sched_ns)
		return 0;
	uint64_t real_free = busy[1] > op->sched_ns ? busy[1] : op->sched_ns;
	uint64_t step = op->start_ns > real_free ? op->start_ns - real_free : 0;
	uint64_t own = step > OWN_STEP_NS ? step - OWN_STEP_NS : 0;

	/* a wait for another thread's op in the step is no preemption */
	return carried_of(busy, op) + (own > op->wait_ns ? own - op->wait_ns : 0);
}

/* When op's thread was free to start it, on the schedule's timeline (sched_free_at). */
static uint64_t thread_free_at(struct collect *c, const struct reel_op *op)
{
	return sched_free_at(busy_of(c, op), op);
}

/*
 * Split an op's lateness in three: the time its thread would still have been busy with its
 * previous ops past the schedule had each started on time or as soon as its thread was free
 * (backlog: the target was slower than the app's pace, the latencies are real); the time it then
 * waited for ops of other threads it is kept after (order: the replay's wait_ns; the target's
 * where those ops were slow on it); and the rest (wake-up lateness: the machine or the replayer
 * was late, what makes the latencies doubtful). Not against the thread's real ends: after one late
 * wake-up, each op of a thread with little think time ends late and holds up the next, and that
 * delay carried forward would count as the target's slowness (a replay on tmpfs, 100x faster than
 * the original's disk, was said not to keep the app's pace after one 7 ms preemption).
 */
/*
 * Whether op was scheduled by a replay: every op of a replay result is, the first ones at 0
 * (sched_ns is relative to the replay's start), which alone does not tell a replay from a
 * recording; a result without the replay's meta (older) is known by its nonzero ones.
 */
static int scheduled(const struct collect *c, const struct reel_op *op)
{
	return op->sched_ns || c->run->is_replay;
}

static uint64_t lateness_of(const struct reel_op *op)
{
	return op->start_ns > op->sched_ns ? op->start_ns - op->sched_ns : 0;
}

static uint64_t backlog_of(const struct reel_op *op, uint64_t free_at)
{
	uint64_t late = lateness_of(op), backlog = free_at - op->sched_ns;

	return backlog < late ? backlog : late;
}

/*
 * Of the op's lateness past its backlog, what it waited for ops of other threads (the
 * replay's wait_ns): the thread was free by then, it waits only once its previous op is done
 */
static uint64_t order_of(const struct reel_op *op, uint64_t free_at)
{
	uint64_t rest = lateness_of(op) - backlog_of(op, free_at);

	return op->wait_ns < rest ? op->wait_ns : rest;
}

static unsigned async_kind(const struct reel_op *op, unsigned subop);

/* the report kind of op: an async submission's is its request's */
static unsigned op_kind(const struct reel_op *op)
{
	return op->type == REEL_OP_AIO_SUBMIT || op->type == REEL_OP_URING_SUBMIT
		   ? async_kind(op, op->subop)
		   : op->type;
}

/* the file op works on: its own path, or its fd's (fd: a request's, from its submission) */
static struct report_file *op_file(struct collect *c, const struct reel_op *op, int32_t fd)
{
	uint32_t id = op->path;

	if (!id && fd >= 0)
		id = fd_path(c, op->pid, fd);
	return file_of_path_id(c, id);
}

/*
 * What made a replay's backlog (PACE NOT KEPT): an op whose thread is `backlog` behind its
 * schedule (its own ops' doing, preemptions left out) fell further behind than the op
 * before it by the time that op took (and the step from it to this one) beyond its share
 * of the schedule: what the op before took beyond the original's p90 of its kind is put on
 * its kind and file (the trace does not pair each op with its original, and ops as slow as
 * most of the original's kept its pace there), the rest built up between them (the
 * replayer's step, a wait for another thread's op) or in ops no slower than the original's.
 * fio's 64 MiB layout fallocate took 8-15 ms on tmpfs against 0.3 ms on ext4, and 16,384
 * writes due 3 us apart behind it ran late: the verdict said the pace was not kept, and
 * not what made it so.
 */
static void blame_rise(struct report_run *run, struct thread_state *t, uint64_t backlog)
{
	if (t->blamed && backlog > t->blame_base) {
		uint64_t rise = backlog - t->blame_base;
		uint64_t own = rise < t->blame_extra ? rise : t->blame_extra;

		run->backlog_rise_ns += rise;
		if (t->blame_kind)
			run->kinds[t->blame_kind].backlog_ns += own;
		if (t->blame_kind && t->blame_file)
			t->blame_file->backlog_ns += own;
	}
	t->blame_base = backlog;
	t->blamed = 1;
}

/* op (of kind, lat long, on fd) holds its thread t now: a rise of the next op's backlog is
 * put on what it took beyond the original's p90 of its kind (kind 0: on nothing) */
static void blame_set(struct collect *c, const struct reel_op *op, struct thread_state *t,
		      unsigned kind, uint64_t lat, int32_t fd)
{
	t->blame_kind = (uint16_t)(kind < REPORT_KINDS ? kind : 0);
	t->blame_extra = lat > c->orig_p90[t->blame_kind] ? lat - c->orig_p90[t->blame_kind] : 0;
	/* the file only matters for an op that can be blamed */
	t->blame_file = t->blame_kind && t->blame_extra ? op_file(c, op, fd) : NULL;
}

/* a scheduled op, `backlog` behind for its thread's own ops: the rise since the op before
 * is put on that one, and op holds the thread now (a replay's, with its original) */
static void blame(struct collect *c, const struct reel_op *op, uint64_t backlog)
{
	struct thread_state *t = c->run->against ? thread_of(c, op, 1) : NULL;

	if (!t)
		return;
	blame_rise(c->run, t, backlog);
	blame_set(c, op, t, op_kind(op), op->end_ns > op->start_ns ? op->end_ns - op->start_ns : 0,
		  op->fd);
}

/* a request reaped, or an op that is no storage work, holds op's thread now */
static void blame_holder(struct collect *c, const struct reel_op *op, unsigned kind,
			 uint64_t lat, int32_t fd)
{
	struct thread_state *t = c->run->against ? thread_of(c, op, 1) : NULL;

	if (t)
		blame_set(c, op, t, kind, lat, fd);
}

/* op was REPORT_BEHIND_NS or more behind: counted by when it was due */
static void behind(struct report_run *run, const struct reel_op *op)
{
	uint64_t bin = run->behind_bin_ns ? op->sched_ns / run->behind_bin_ns : 0;

	run->behind_ops++;
	run->behind_bins[bin < REPORT_BEHIND_BINS ? bin : REPORT_BEHIND_BINS - 1]++;
}

/* free_at: the thread's on the schedule's timeline; carried: its preemptions (carried_of) */
static int schedule_add_at(struct collect *c, const struct reel_op *op, uint64_t free_at,
			   uint64_t carried)
{
	struct report_run *run = c->run;
	if (!scheduled(c, op))
		return 0;
	/* what the thread's own ops put it behind by, without the preemptions it carries */
	blame(c, op, backlog_of(op, free_at));
	free_at += carried;
	uint64_t late = lateness_of(op);
	uint64_t backlog = backlog_of(op, free_at);
	uint64_t order = order_of(op, free_at);
	if (backlog >= REPORT_BEHIND_NS)
		behind(run, op);
	if (op->start_ns < op->sched_ns)
		run->early++;
	if (late > 1000000)
		run->late_1ms++;
	if (order)
		run->order_ops++;
	int err = hist__add(&run->lateness, late);
	if (!err)
		err = hist__add(&run->wake, late - backlog - order);
	if (!err)
		err = hist__add(&run->backlog, backlog);
	if (!err)
		err = hist__add(&run->order, order);
	if (!err && order)
		err = hist__add(&run->order_waited, order);
	return err;
}

static int schedule_add(struct collect *c, const struct reel_op *op)
{
	return scheduled(c, op)
		   ? schedule_add_at(c, op, thread_free_at(c, op), carried_of(busy_of(c, op), op))
		   : 0;
}

/* The thread is busy until vend on the schedule's timeline, until end in fact, and carries
 * what its preemptions in a backlog delayed it by (carry_after). */
static int busy_set(struct collect *c, const struct reel_op *op, uint64_t vend, uint64_t end,
		    uint64_t carry)
{
	struct thread_state *t = thread_of(c, op, 1);
	if (!t)
		return -ENOMEM;
	t->busy[2] = carry;
	if (!t->is_busy || end > t->busy[1])
		t->busy[1] = end;
	t->busy[0] = vend;
	t->is_busy = 1;
	return 0;
}

/*
 * The thread is busy until this op ends: on the schedule's timeline (sched_free_at) it
 * takes its wait for other threads' ops and its replayed latency from when the thread was
 * free for it there, *at. So the ops a long wait held up count it in their backlog, not as
 * late wake-ups: a chain of processes each waiting for a slow rename of the one before
 * (dovecot's deliveries) was flagged FELL BEHIND. Ops of one thread come in issue order.
 */
static int busy_until(struct collect *c, const struct reel_op *op, uint64_t *at)
{
	uint64_t lat = op->end_ns > op->start_ns ? op->end_ns - op->start_ns : 0;
	uint64_t end = op->end_ns > op->start_ns ? op->end_ns : op->start_ns;
	*at = sched_free_at(busy_of(c, op), op);
	return busy_set(c, op, *at + order_of(op, *at) + lat, end, carry_after(busy_of(c, op), op));
}

/*
 * A replayed async request's reaping: its thread waited for the request to complete (the
 * record's start is the submission, its end the reaping). On the schedule's timeline the
 * request was submitted at vsub and took as long as it did; the reaper is busy from when
 * it was free for the reaping until the request was done there. Left out, a target whose
 * requests take longer held the reaper up without a trace: its next submissions' lateness
 * was taken for late wake-ups (fio's libaio jobs replayed on a slower disk "fell behind").
 */
static int busy_reaping(struct collect *c, const struct reel_op *op, uint64_t start, uint64_t vsub,
			unsigned kind, int32_t fd)
{
	uint64_t end = op->end_ns ? op->end_ns : op->start_ns;
	uint64_t at = sched_free_at(busy_of(c, op), op);
	uint64_t done = vsub + (end > start ? end - start : 0);
	/* the request held its reaper: a rise of its next op's backlog is the request's */
	blame_holder(c, op, kind, end > start ? end - start : 0, fd);
	return busy_set(c, op, done > at ? done : at, end, carry_after(busy_of(c, op), op));
}

/*
 * A replay with --engine io_uring|libaio (replay_exec.c, replay_worker.c): a thread's reads and
 * writes (but preadv2, pwritev2) go out as requests and its next op follows at once, up to
 * RUN_ASYNC_DEPTH in flight, retired in issue order; any other op waits for all of them
 * first. A request's record starts at its submission and ends when it was reaped, so one
 * thread's records overlap: taken as ops that held the thread until they ended, every op
 * after a request still in flight was "behind", and a late wake-up there was counted as the
 * target's backlog (PACE NOT KEPT) instead of the replayer's. On the schedule's timeline a
 * request holds its thread only while the thread cannot submit it: a full queue (until the
 * oldest is done, and those before it) or an op that waits for all. Not followed: an op that
 * waits for a request of its own thread on the same bytes (taken as free to start).
 */
#define ENGINE_DEPTH 64 /* RUN_ASYNC_DEPTH */

struct rqueue {
	/* in flight, from head: when each is done, on the schedule's timeline, in fact */
	uint64_t vdone[ENGINE_DEPTH], rdone[ENGINE_DEPTH];
	unsigned head, n;
	uint64_t vret, rret; /* the latest done of those retired (in issue order) */
	uint64_t vall, rall; /* the latest done of those since the thread last waited for all */
};

static struct rqueue *rqueue_of(struct collect *c, const struct reel_op *op)
{
	struct thread_state *t = thread_of(c, op, 1);
	if (t && !t->rq)
		t->rq = calloc(1, sizeof(*t->rq));
	return t ? t->rq : NULL;
}

static int engine_busy(struct collect *c, const struct reel_op *op)
{
	struct rqueue *q = rqueue_of(c, op); /* first: it may make the thread's state */
	const uint64_t *s = busy_of(c, op);
	uint64_t t[3] = {0, 0, 0};
	uint64_t lat = op->end_ns > op->start_ns ? op->end_ns - op->start_ns : 0;
	uint64_t end = op->end_ns > op->start_ns ? op->end_ns : op->start_ns;
	int async = (reel_op__is_read(op->type) || reel_op__is_write(op->type)) &&
		    op->type != REEL_OP_PREADV2 && op->type != REEL_OP_PWRITEV2;
	uint64_t wv = 0, wr = 0; /* what the thread waits for before it: done then */
	int err;

	if (!q)
		return -ENOMEM;
	if (s)
		memcpy(t, s, sizeof(t));
	if (!async && !reel_op__is_read(op->type) && !reel_op__is_write(op->type)) {
		wv = q->vall;
		wr = q->rall;
		q->n = 0;
	} else if (async && q->n == ENGINE_DEPTH) {
		if (q->vdone[q->head] > q->vret)
			q->vret = q->vdone[q->head];
		if (q->rdone[q->head] > q->rret)
			q->rret = q->rdone[q->head];
		q->head = (q->head + 1) % ENGINE_DEPTH;
		q->n--;
		wv = q->vret;
		wr = q->rret;
	}
	/* waiting for requests, the thread is busy until they are done */
	if (wv > t[0])
		t[0] = wv;
	if (wr > t[1])
		t[1] = wr;
	uint64_t at = sched_free_at(s || wv ? t : NULL, op);
	uint64_t carry = carry_after(s || wv ? t : NULL, op);
	if ((err = schedule_add_at(c, op, at, carried_of(s || wv ? t : NULL, op))))
		return err;
	lat += order_of(op, at); /* as busy_until */
	if (!async)
		return busy_set(c, op, at + lat, end > t[1] ? end : t[1], carry);
	unsigned i = (q->head + q->n++) % ENGINE_DEPTH;
	q->vdone[i] = at + lat;
	q->rdone[i] = end;
	if (at + lat > q->vall)
		q->vall = at + lat;
	if (end > q->rall)
		q->rall = end;
	/* submitted, the thread is free again: from its submission on, in fact */
	return busy_set(c, op, at, op->start_ns > t[1] ? op->start_ns : t[1], carry);
}

static int measure(struct collect *c, const struct reel_op *op, unsigned kind, uint64_t start,
		   uint64_t lat, int32_t fd)
{
	struct report_run *run = c->run;
	int err;

	run->ops_used++;
	if ((err = hist__add(&run->kinds[kind].lat, lat)))
		return err;
	if (op->ret < 0) {
		run->kinds[kind].errors++;
		run->errors++;
	}
	run->io_ns += lat;
	run->class_ns[report_kind__class(kind)] += lat;
	/* a replay in original timing: in the row of the moment of the original the op stands
	 * for (its schedule), not of when it ran; a slow target's backlog put them seconds
	 * past the original's end, where no row of the original could be set beside them */
	if (run->tl_ns &&
	    (err = report_tl__add(run, c->tl_by_schedule && scheduled(c, op) ? op->sched_ns : start,
				  kind, lat)))
		return err;
	if (op->type == REEL_OP_SENDFILE && op->mode != REEL_FD_REG) {
		run->net_copies++;
		run->net_copy_ns += lat;
	}
	if (op->ret > 0 && report_kind__class(kind) == REPORT_CLASS_READ)
		run->bytes_read += (uint64_t)op->ret;
	/* a copy is classed as a read (report_kind.c); into a file, it writes its bytes too */
	if (op->ret > 0 &&
	    (report_kind__class(kind) == REPORT_CLASS_WRITE || reel_op__copy_writes(op)))
		run->bytes_written += (uint64_t)op->ret;
	if (start < run->first_ns)
		run->first_ns = start;
	if (start + lat > run->last_ns)
		run->last_ns = start + lat;

	/* The thread's rhythm: start-to-start gap since its previous op, and whether this op
	 * followed the previous one's end at once. */
	struct thread_state *t = thread_of(c, op, 1);
	if (!t)
		return -ENOMEM;
	if (t->seen) {
		if (start >= t->last_start && (err = hist__add(&run->gap, start - t->last_start)))
			return err;
		run->followers++;
		if (start >= t->last_end && start - t->last_end <= REPORT_CHAINED_NS)
			run->chained++;
	}
	/* a lock refused (F_SETLK, LOCK_NB busy) and a long gap on its thread after it: the
	 * application slept before it tried again (SQLite's busy handler) */
	if (t->seen && t->refused && start >= t->last_end &&
	    start - t->last_end >= REPORT_LOCK_RETRY_NS) {
		run->lock_retries++;
		run->lock_retry_ns += start - t->last_end;
	}
	t->refused = (op->type == REEL_OP_FCNTL_LOCK || op->type == REEL_OP_FLOCK) &&
		     (op->ret == -EAGAIN || op->ret == -EACCES);
	/* a thread's busy time: its ops' and its async requests' (submission to completion:
	 * a closed loop of them has no gaps), each stretch counted once where they overlap.
	 * Counted as they come: exact in an import's start order; in a recording's end order a
	 * request in flight across an idle stretch, reaped after a later, shorter one, misses
	 * that stretch (a thread's own syscalls never overlap) */
	{
		uint64_t from = t->seen && t->max_end > start ? t->max_end : start;

		if (start + lat > from)
			t->io_ns += start + lat - from;
	}
	if (!t->seen || start < t->first_start)
		t->first_start = start;
	if (start + lat > t->max_end)
		t->max_end = start + lat;
	t->seen = 1;
	t->last_start = start;
	t->last_end = start + lat;

	uint32_t pid_path = op->path;
	if (!pid_path && fd >= 0)
		pid_path = fd_path(c, op->pid, fd);
	struct report_file *f = file_of_path_id(c, pid_path);
	return f ? file_add(c, f, kind, lat, op->ret) : 0;
}

/*
 * Async requests. A completion names its request by (pid, ctx, aux) and, where the writer
 * knew it, by its submission time (its start: FORMAT.md), so that it is paired with its own
 * submit even when the id was used again by a request whose submit comes first in the file:
 * a replay's result holds each worker's ops in order, but the workers' batches interleave,
 * and applications reuse ids at once (InnoDB's io_uring user_data is a pointer into a small
 * pool of control blocks, reused by another thread as soon as a request is reaped). Keyed by
 * the id alone, the later submit took the earlier one's place, whose completion then had
 * none ("async completions without submission") and was left out of the counts. A writer
 * whose completions carry their own time as start (strace import, start = end) is paired by
 * the id alone. Ids need not be unique among the requests in flight (an import's aio_data,
 * which fio leaves 0 in every iocb of an io_submit): the submits of an id wait in a queue
 * (report_pending.c), and a completion takes the oldest of its id, or of its id submitted
 * at its start, as the importer paired them.
 */
static void async_key(const struct reel_op *op, uint64_t start, uint64_t k[REPORT_KEY_N])
{
	k[0] = KEY_ASYNC ^ ((uint64_t)op->pid << 8);
	k[1] = op->ctx;
	k[2] = op->aux;
	k[3] = start;
}

/* a request's id: the queue of its submits (report_pending.c) */
static void async_id_key(const struct reel_op *op, uint64_t k[REPORT_KEY_N])
{
	k[0] = KEY_ASYNC_ID ^ ((uint64_t)op->pid << 8);
	k[1] = op->ctx;
	k[2] = op->aux;
	k[3] = 0;
}

/* the report kind of a request, from its submit or its completion */
static unsigned async_kind(const struct reel_op *op, unsigned subop)
{
	int aio = op->type == REEL_OP_AIO_SUBMIT || op->type == REEL_OP_AIO_COMPLETE;

	/* IORING_OP_FSYNC (3) with IORING_FSYNC_DATASYNC (1): a completion carries its
	 * request's flags (FORMAT.md) */
	if (!aio && subop == 3 && (op->flags & 1))
		return REPORT_KIND_URING_FDSYNC;
	return aio ? REPORT_KIND_AIO + (subop & 15) : REPORT_KIND_URING + (subop & 63);
}

static int async_measure(struct collect *c, const struct reel_op *op, uint64_t start,
			 unsigned subop, int32_t fd)
{
	unsigned kind = async_kind(op, subop);
	uint64_t end = op->end_ns ? op->end_ns : op->start_ns, lat = end > start ? end - start : 0;
	struct report_run *run = c->run;

	if (!run->async_n || start < run->async_first)
		run->async_first = start;
	if (!run->async_n || start + lat > run->async_last)
		run->async_last = start + lat;
	run->async_n++;
	run->async_ns += lat;
	return measure(c, op, kind, start, lat, fd);
}

/*
 * A replay's submit records of one syscall (an io_submit of n iocbs, an io_uring_enter of n
 * SQEs: replay_batch.c) have its times and schedule alike. The syscall held its thread once:
 * the records after the first are scheduled as the first was, with the thread free for
 * them when it was for the first, and leave its busy time as the first left it. Taken one
 * after the other, each of 8 counted the ones before it as backlog, and the thread busy 8
 * times as long as the syscall was.
 */
struct rcall {
	uint64_t start, end, sched, ctx; /* the syscall's, as its records have them */
	uint16_t type;
	uint64_t free_at, carried, at; /* schedule_add_at's and busy_until's for the first */
};

/* op went in the same syscall as the thread's last submit record (NULL: not) */
static struct rcall *async_same_call(struct collect *c, const struct reel_op *op)
{
	struct thread_state *t = thread_of(c, op, 0);
	struct rcall *k = t ? t->call : NULL;

	return k && k->type == op->type && k->start == op->start_ns && k->end == op->end_ns &&
		       k->sched == op->sched_ns && k->ctx == op->ctx
		   ? k
		   : NULL;
}

/* schedules a replay's submit record, its syscall's first: kept for the ones after it */
static int async_schedule_call(struct collect *c, const struct reel_op *op, uint64_t *at)
{
	struct thread_state *t = thread_of(c, op, 1);
	const uint64_t *busy = busy_of(c, op);
	uint64_t free_at = thread_free_at(c, op), carried = carried_of(busy, op);
	int err;

	if (!t)
		return -ENOMEM;
	if (!t->call && !(t->call = calloc(1, sizeof(*t->call))))
		return -ENOMEM;
	if ((err = schedule_add_at(c, op, free_at, carried)) || (err = busy_until(c, op, at)))
		return err;
	t = thread_of(c, op, 0); /* (busy_until may have moved the threads' array) */
	*t->call = (struct rcall){.start = op->start_ns,
				  .end = op->end_ns,
				  .sched = op->sched_ns,
				  .ctx = op->ctx,
				  .type = op->type,
				  .free_at = free_at,
				  .carried = carried,
				  .at = *at};
	return 0;
}

/* a replay's submit record: scheduled, its thread busy with its syscall (async_same_call) */
static int async_schedule(struct collect *c, const struct reel_op *op, uint64_t *at)
{
	const struct rcall *k = async_same_call(c, op);

	if (!k)
		return async_schedule_call(c, op, at);
	*at = k->at;
	return schedule_add_at(c, op, k->free_at, k->carried);
}

/* A replay's completion read before its submit, measured then (async_complete), counted by
 * its key: its submit is not queued (1). */
static int async_early_take(struct collect *c, const uint64_t k[REPORT_KEY_N])
{
	struct report_map_slot *s = report_map__get(&c->early, k);

	if (!s)
		return 0;
	if (!--s->v[0])
		report_map__del(&c->early, s);
	return 1;
}

static int async_early_put(struct collect *c, const uint64_t k[REPORT_KEY_N])
{
	struct report_map_slot *s = report_map__get(&c->early, k);
	uint64_t one[2] = {1, 0};

	if (s) {
		s->v[0]++;
		return 0;
	}
	return report_map__put(&c->early, k, one);
}

static int async_submit(struct collect *c, const struct reel_op *op)
{
	struct report_req req = {.start = op->start_ns,
				 .fd = (int32_t)op->fd,
				 .subop = (uint8_t)op->subop,
				 .kind = (uint8_t)async_kind(op, op->subop),
				 .refused = op->ret < 0,
				 .scheduled = scheduled(c, op)};
	uint64_t k[REPORT_KEY_N], id[REPORT_KEY_N];
	int err;

	if (req.scheduled && (err = async_schedule(c, op, &req.at)))
		return err;
	/* its completion came first in the file (another worker's batch) and was measured */
	async_key(op, op->start_ns, k);
	if (async_early_take(c, k))
		return 0;
	async_id_key(op, id);
	return report_pending__add(&c->pending, id, &req);
}

static int async_complete(struct collect *c, const struct reel_op *op)
{
	/* only a completion that carries no submission time (its own: start = end) goes by the
	 * id alone: another's would find an older submit of its id whose completion the capture
	 * lost (libaio: beyond 64 events a call), and take seconds for its latency */
	int by_id = op->start_ns >= op->end_ns;
	uint64_t id[REPORT_KEY_N], k[REPORT_KEY_N];
	struct report_req req;
	int err;

	async_id_key(op, id);
	if (!report_pending__take(&c->pending, id, by_id ? NULL : &op->start_ns, &req)) {
		/* A replay's completion carries its request (FORMAT.md): its submit, in another
		 * worker's batch, may come later in the file. */
		if (scheduled(c, op) && op->fd >= 0 && op->start_ns && op->start_ns <= op->end_ns) {
			async_key(op, op->start_ns, k);
			if ((err = async_early_put(c, k)))
				return err;
			return async_measure(c, op, op->start_ns, op->subop, op->fd);
		}
		c->run->unmatched++;
		return 0;
	}
	if (req.scheduled && scheduled(c, op) &&
	    (err = busy_reaping(c, op, req.start, req.at, req.kind, req.fd)))
		return err;
	return async_measure(c, op, req.start, req.subop, req.fd);
}

/* a request never completed, unless its submission failed (never in flight: nothing to reap) */
static void async_count_unreaped(void *arg, const struct report_req *req)
{
	struct report_run *run = arg;

	if (req->refused)
		return;
	if (req->kind < REPORT_KINDS)
		run->kinds[req->kind].unreaped++;
	run->unreaped++;
}

/*
 * The submits left with no completion after the whole trace: not measured, so not in any
 * latency row, the I/O time nor the queue depth. Counted, per kind, for the report to say
 * so: QEMU with aio=native reaps its libaio requests from the ring in user space, never
 * through io_getevents, and its 20,000 reads were otherwise missing from the report without
 * a word (175 ops measured, 790 us of I/O).
 */
static void async_unreaped(struct collect *c)
{
	report_pending__each(&c->pending, async_count_unreaped, c->run);
}

static int one_op(struct collect *c, const struct reel_op *op)
{
	struct report_run *run = c->run;
	int err;

	/* a process record (fork, execve, exit) is no storage work, and instant: what it does
	 * to fds shows in the ops after it */
	if (!op->type || op->type >= REEL_OP__COUNT || reel_op__is_process(op->type))
		return 0;
	if (is_nonfile(c, op)) {
		run->ops_nonfile++;
		/* Not storage work, but its thread was busy with it all the same; its fds are
		 * followed, so that an op on one without a path is known as no storage work. */
		uint64_t at;
		if (scheduled(c, op))
			blame_holder(c, op, 0, 0, -1);
		if (scheduled(c, op) && (err = busy_until(c, op, &at)))
			return err;
		return track_fds(c, op);
	}
	if (op->sched_ns)
		run->is_replay = 1;

	uint64_t at = 0;
	if (op->type == REEL_OP_AIO_SUBMIT || op->type == REEL_OP_URING_SUBMIT)
		return async_submit(c, op);
	if (op->type == REEL_OP_AIO_COMPLETE || op->type == REEL_OP_URING_COMPLETE)
		return async_complete(c, op);

	if (scheduled(c, op) && c->engine_async)
		err = engine_busy(c, op);
	else if (!(err = schedule_add(c, op)) && scheduled(c, op))
		err = busy_until(c, op, &at);
	if (err)
		return err;
	uint64_t lat = op->end_ns > op->start_ns ? op->end_ns - op->start_ns : 0;
	if (reel_op__is_read(op->type) || reel_op__is_write(op->type)) {
		if (!run->data_n || op->start_ns < run->data_first)
			run->data_first = op->start_ns;
		if (!run->data_n || op->start_ns + lat > run->data_last)
			run->data_last = op->start_ns + lat;
		run->data_n++;
		run->data_ns += lat;
	}
	/* An op whose file is its own path (open, stat) is measured before the fd table
	 * learns the new fd; a close after, so it still finds its file. */
	err = measure(c, op, op->type, op->start_ns, lat, op->fd);
	if (!err)
		err = track_fds(c, op);
	return err;
}

static int copy_meta(struct collect *c)
{
	struct report_run *run = c->run;
	size_t n = reel_reader__meta_count(c->r);

	run->meta = calloc(2 * n + 1, sizeof(char *));
	if (!run->meta)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *k, *v;
		reel_reader__meta_at(c->r, i, &k, &v);
		run->meta[2 * i] = strdup(k ? k : "");
		run->meta[2 * i + 1] = strdup(v ? v : "");
		if (!run->meta[2 * i] || !run->meta[2 * i + 1])
			return -ENOMEM;
		run->nmeta = i + 1;
		if (!strcmp(k, REEL_META_REPLAY_OF))
			run->replay_of = run->meta[2 * i + 1];
		else if (!strcmp(k, REEL_META_REPLAY_TARGETS))
			run->targets = run->meta[2 * i + 1];
		else if (!strcmp(k, REEL_META_REPLAY_ENGINE))
			run->engine = run->meta[2 * i + 1];
		else if (!strcmp(k, REEL_META_REPLAY_TIMING))
			run->timing = run->meta[2 * i + 1];
	}
	return 0;
}

/*
 * replay.targets lists the target roots, separated by commas; a "FROM=TO" mapping
 * contributes its TO. Paths under them are compared with the original's without the root.
 */
static int parse_targets(struct collect *c)
{
	const char *t = c->run->targets;
	if (!t || !*t)
		return 0;
	char *copy = strdup(t), *save = NULL;
	if (!copy)
		return -ENOMEM;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		char *root = eq ? eq + 1 : tok;
		while (*root == ' ')
			root++;
		size_t n = strlen(root);
		while (n > 1 && root[n - 1] == '/')
			root[--n] = 0;
		if (!n || !strcmp(root, "/"))
			continue;
		char **p = realloc(c->prefixes, (c->nprefixes + 1) * sizeof(*p));
		if (!p || !(p[c->nprefixes] = strdup(root))) {
			if (p)
				c->prefixes = p;
			free(copy);
			return -ENOMEM;
		}
		c->prefixes = p;
		c->nprefixes++;
	}
	free(copy);
	return 0;
}

int report_run__collect(struct report_run *run, const char *path, int by_file)
{
	struct collect c = {.run = run, .by_file = by_file};
	struct reel_op op;
	int err;

	run->path = path;
	run->first_ns = UINT64_MAX;
	for (unsigned k = 0; k < REPORT_KINDS; k++)
		hist__init(&run->kinds[k].lat);
	hist__init(&run->gap);
	hist__init(&run->lateness);
	hist__init(&run->wake);
	hist__init(&run->backlog);
	hist__init(&run->order);
	hist__init(&run->order_waited);

	err = reel_reader__open(path, &c.r);
	if (err)
		return err;
	run->has_wait = reel_reader__minor(c.r) >= 2;
	err = copy_meta(&c);
	if (!err)
		err = parse_targets(&c);
	run->is_replay = run->replay_of || run->targets;
	c.engine_async =
	    run->engine && (!strcmp(run->engine, "io_uring") || !strcmp(run->engine, "libaio"));
	c.tl_by_schedule = run->is_replay && run->timing && !strcmp(run->timing, "original");
	if (run->against) {
		for (unsigned k = 0; k < REPORT_KINDS; k++)
			c.orig_p90[k] = hist__quantile(&run->against->kinds[k].lat, 0.9);
		run->behind_bin_ns =
		    (run->against->last_ns - run->against->first_ns) / REPORT_BEHIND_BINS + 1;
	}
	while (!err) {
		int n = reel_reader__next(c.r, &op);
		if (n == 0)
			break;
		if (n < 0) {
			/* Damage: count it and go on with the next whole chunk, as the reader
			 * allows. Errors of the system (I/O, memory) end the pass. */
			if (-n <= REEL_E_BASE || ++run->damaged > 1000000) {
				err = n;
				break;
			}
			continue;
		}
		run->ops_read++;
		err = one_op(&c, &op);
	}
	reel_reader__damage_sum(c.r, &run->damage);
	async_unreaped(&c);
	run->threads = c.nthreads;
	for (size_t i = 0; i < c.nthreads; i++) {
		const struct thread_state *t = &c.threads[i];

		if (t->seen && t->max_end > t->first_start) {
			run->thread_span_ns += t->max_end - t->first_start;
			run->thread_io_ns += t->io_ns < t->max_end - t->first_start
						 ? t->io_ns
						 : t->max_end - t->first_start;
		}
	}
	if (!err && !run->nmeta) { /* footer meta arrives at the end on unseekable input */
		free(run->meta);
		err = copy_meta(&c);
	}
	if (run->first_ns == UINT64_MAX)
		run->first_ns = run->last_ns = 0;

	if (run->targets && *run->targets)
		snprintf(run->label, sizeof(run->label), "%s", run->targets);
	else if (run->is_replay)
		snprintf(run->label, sizeof(run->label), "%s", report_fmt__base(path));
	else
		snprintf(run->label, sizeof(run->label), "original");

	reel_reader__close(c.r);
	replay_u64map__free(&c.fds);
	report_pending__free(&c.pending);
	report_map__free(&c.early);
	replay_u64map__free(&c.tindex);
	for (size_t i = 0; i < c.nthreads; i++) {
		free(c.threads[i].rq);
		free(c.threads[i].call);
	}
	free(c.threads);
	free(c.by_path_id);
	free(c.pseudo_id);
	for (size_t i = 0; i < c.nprefixes; i++)
		free(c.prefixes[i]);
	free(c.prefixes);
	return err;
}

void report_run__free(struct report_run *run)
{
	report_tl__free(run);
	for (unsigned k = 0; k < REPORT_KINDS; k++)
		hist__free(&run->kinds[k].lat);
	hist__free(&run->gap);
	hist__free(&run->lateness);
	hist__free(&run->wake);
	hist__free(&run->backlog);
	hist__free(&run->order);
	hist__free(&run->order_waited);
	for (size_t i = 0; i < run->nfiles; i++) {
		struct report_file *f = run->files[i];
		for (size_t j = 0; j < f->nkinds; j++)
			hist__free(&f->kinds[j].lat);
		free(f->kinds);
		free(f->path);
		free(f);
	}
	free(run->files);
	report_map__free(&run->file_index);
	for (size_t i = 0; i < 2 * run->nmeta; i++)
		free(run->meta[i]);
	free(run->meta);
	run->files = NULL;
	run->meta = NULL;
	run->nfiles = run->nmeta = 0;
}
