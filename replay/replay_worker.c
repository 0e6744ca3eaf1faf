/* SPDX-License-Identifier: MIT */
/*
 * replay_worker.c - the worker threads: one per original thread, each takes its ops in order
 * from its queue (or, as fast as possible, from the segment: replay_stage.c), waits for the
 * ops of other threads they depend on (replay_deps.c), issues them at their time through
 * replay_exec.c, and hands their results to the writer in batches.
 *
 * Timing. original: op at t0 + (start - first start) / speed on CLOCK_MONOTONIC, absolute,
 * so lateness never accumulates; sleeping with clock_nanosleep(TIMER_ABSTIME) and 1 ns timer
 * slack, optionally spinning the last --spin µs. think: a thread's op at its previous op's
 * replay end + the original gap after that op (/ speed), less what its ops woke up late and
 * no gap has made up yet (a closed loop's duration is the storage's, not the sum of its
 * sleeps' overshoot). afap: as soon as ready. The lateness
 * of every op (start - scheduled) is measured, stored (sched_ns) and summarised.
 *
 * A dependency is (worker, seq), satisfied once that worker has retired its ops up to seq
 * (ops of a worker retire in seq order, so one counter per worker suffices); waiters sleep on
 * a futex.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "replay_run.h"
#include "replay_sys.h"

/*
 * What the afap lane (worker__plain) calls for each op, inlined into it whatever the
 * compiler's estimate: out of line, their calls, spills and reloads were ~7 of the ~30 ns
 * a replayed op costs beyond a plain loop's (tests/bench_replay/HISTORY.md, 2026-12-03).
 */
#define LANE_INLINE static inline __attribute__((always_inline))

/* CPU time of the calling thread (user + system) */
uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The run-queue wait in a schedstat file ("on-CPU ns, run-queue wait ns, timeslices"),
 * path relative to dirfd; UINT64_MAX: not known. */
static uint64_t schedstat_runq(int dirfd, const char *path)
{
	char buf[96];
	unsigned long long run, wait;
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return UINT64_MAX;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return UINT64_MAX;
	buf[n] = 0;
	if (sscanf(buf, "%llu %llu", &run, &wait) != 2)
		return UINT64_MAX;
	return (uint64_t)wait;
}

/*
 * The time the calling thread has spent runnable but waiting for a CPU (the scheduler's
 * run_delay, CONFIG_SCHED_INFO). A thread whose CPU other processes hold is neither on a CPU
 * nor sleeping: its time shows in neither its CPU time nor its waits. A read of /proc costs
 * microseconds: at a thread's start and end only, never per op. UINT64_MAX: not known.
 */
uint64_t thread_runq_ns(void)
{
	return schedstat_runq(AT_FDCWD, "/proc/thread-self/schedstat");
}

/*
 * Each io_uring worker scans the process's threads at its end: a cost that grows as the
 * square of their number (256 workers: 0.3 s of CPU more, on a 2 s replay that took 0.9 s).
 * Beyond this many workers their io-wq threads' waits are left out; each worker's own waits
 * still say where the machine held it.
 */
#define IOWQ_SCAN_WORKERS 64

/*
 * The run-queue wait of the kernel's io-wq threads that worked for the calling thread's
 * io_uring requests (threads of this process named iou-wrk-TID, TID the submitter's): a
 * request that cannot be done within its submission goes to one of them (a read of tmpfs,
 * here), and the submitter sleeps for its completion meanwhile, neither on a CPU nor waiting
 * for one itself. fio's io_uring trace replayed beside two busy loops a core: the worker
 * waited for a CPU a third of its time, its io-wq thread 90% of it. They end with the
 * thread that they work for: read before it does. 0: none, or not known.
 */
static uint64_t iowq_runq_ns(void)
{
	char want[32], name[32], path[48];
	uint64_t sum = 0, v;
	struct dirent *e;
	DIR *d = opendir("/proc/self/task");

	if (!d)
		return 0;
	snprintf(want, sizeof(want), "iou-wrk-%d\n", (int)gettid());
	while ((e = readdir(d))) {
		int fd;
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/comm", e->d_name);
		fd = openat(dirfd(d), path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, name, sizeof(name) - 1);
		close(fd);
		if (n <= 0 || (name[n] = 0, strcmp(name, want)))
			continue;
		snprintf(path, sizeof(path), "%s/schedstat", e->d_name);
		v = schedstat_runq(dirfd(d), path);
		if (v != UINT64_MAX)
			sum += v;
	}
	closedir(d);
	return sum;
}

/* the calling thread's minor page faults so far */
static uint64_t thread_minor_faults(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? 0 : (uint64_t)ru.ru_minflt;
}

void futex_wait(_Atomic uint32_t *addr, uint32_t val)
{
	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

/* as futex_wait, for at most ns */
void futex_wait_ns(_Atomic uint32_t *addr, uint32_t val, uint64_t ns)
{
	struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000ULL),
			      .tv_nsec = (long)(ns % 1000000000ULL)};

	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

void futex_wake(_Atomic uint32_t *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* ---- per-worker queue (single producer, single consumer) ---- */

static uint32_t queue_cap;

/*
 * Both sides spin a little (~tens of µs) before sleeping on the futex: a handoff through
 * futex_wait/futex_wake costs two context switches, several times an op's own cost.
 */
#define QUEUE_SPINS 1000

/* spinning only pays while the threads that spin do not outnumber the cores */
static unsigned queue_spins;

/*
 * The item to w's queue. A worker asleep for items is not woken here: the dispatcher decides
 * when (disp__wake), as its bell is rung once for many items when it is behind.
 * A full queue makes the producer wait until half of it is free, not for the next free slot:
 * refilling one slot per op kept the dispatcher spinning for as long as the worker was the
 * slower side (as fast as possible, always), taking a core from the workers and the writer.
 */
int queue__push(struct rworker *w, const struct ritem *it)
{
	uint32_t t = atomic_load_explicit(&w->tail, memory_order_relaxed), h;
	int how = 0;

	if (t - w->head_seen >= queue_cap)
		w->head_seen = atomic_load(&w->head);
	if (t - w->head_seen >= queue_cap) {
		unsigned spins = 0;

		/* the other workers' items wait behind this one's meanwhile (worker__item_late) */
		atomic_fetch_add(&w->run->disp_room_waits, 1);
		atomic_store(&w->run->disp_in_room_wait, 1);
		while (t - (h = atomic_load(&w->head)) > queue_cap / 2) {
			if (spins++ < queue_spins) {
				__builtin_ia32_pause();
				continue;
			}
			atomic_store(&w->prod_wait, 1);
			if (t - atomic_load(&w->head) > queue_cap / 2)
				futex_wait(&w->head, h);
			atomic_store(&w->prod_wait, 0);
		}
		atomic_store(&w->run->disp_in_room_wait, 0);
		w->head_seen = h;
		how |= QUEUE_WAITED;
	}
	/* the deps the item has, not the whole array: most items have none */
	memcpy(&w->q[t % queue_cap], it,
	       offsetof(struct ritem, deps) + it->ndeps * sizeof(it->deps[0]));
	atomic_store(&w->tail, t + 1);
	if (atomic_load(&w->cons_wait))
		how |= QUEUE_IDLE;
	return how;
}

int queue__full(struct rworker *w)
{
	uint32_t t = atomic_load_explicit(&w->tail, memory_order_relaxed);

	if (t - w->head_seen >= queue_cap)
		w->head_seen = atomic_load(&w->head);
	return t - w->head_seen >= queue_cap;
}

/*
 * After a seq_cst store of what the worker waits for (tail, eof), seen waiting: the bell
 * moves, so a worker between its last look and its sleep does not sleep (queue__peek).
 */
void worker__ring(struct rworker *w)
{
	atomic_fetch_add(&w->bell, 1);
	futex_wake(&w->bell);
}

/* the item at h: in the queue, or staged the worker's next one in the segment */
static struct ritem *queue__slot(struct rworker *w, uint32_t h)
{
	return w->run->staged ? &w->run->seg[w->cur] : &w->q[h % queue_cap];
}

/*
 * IOREEL_TEST_IDLE_DELAY_MS=N, for tests only: an idle worker pauses N ms between its last
 * look at the queue and its sleep, the window in which a wake-up must not be lost.
 */
static void test__idle_delay(void)
{
	static _Atomic int knob = -1; /* read by every worker: set once, the same by each */
	int ms = atomic_load_explicit(&knob, memory_order_relaxed);

	if (ms < 0) {
		const char *v = getenv("IOREEL_TEST_IDLE_DELAY_MS");

		ms = v ? atoi(v) : 0;
		atomic_store_explicit(&knob, ms, memory_order_relaxed);
	}
	if (ms > 0) {
		struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

		nanosleep(&ts, NULL);
	}
}

/* IOREEL_TEST_NO_LANE=1, for tests only: every op takes the general path (worker__plain) */
static int test__no_lane(void)
{
	const char *v = getenv("IOREEL_TEST_NO_LANE");

	return v && *v == '1';
}

/* IOREEL_TEST_PREP_NS=N, for tests only: each read or write takes N ns more to prepare */
static uint64_t test__prep_ns(void)
{
	const char *v = getenv("IOREEL_TEST_PREP_NS");

	return v ? strtoull(v, NULL, 10) : 0;
}

/*
 * The next item, left in its slot until queue__advance (no copy of it): NULL at the end of
 * this thread's ops. *waited: the queue was empty (the op was not ready before now).
 */
static struct ritem *queue__peek(struct rworker *w, uint32_t *tail, int *waited)
{
	uint32_t h = atomic_load_explicit(&w->head, memory_order_relaxed), t, bell;
	unsigned spins = 0;

	*waited = 0;
	if (w->tail_seen != h) {
		if (!atomic_load_explicit(&w->run->seg_cut, memory_order_relaxed)) {
			*tail = w->tail_seen;
			return queue__slot(w, h);
		}
		worker__cut(w, h); /* staged: the rest waits for the next segment */
	}
	while ((t = atomic_load_explicit(&w->tail, memory_order_acquire)) == h) {
		*waited = 1;
		if (w->seg_owed) {
			stage__maybe_cut(w);
			worker__seg_done(w);
			continue;
		}
		if (w->infl_n) {
			/* requests in flight are retired before the worker idles: another worker's
			 * item may wait for one of them (staged: worker__seg_done drains) */
			worker__drain(w);
			continue;
		}
		if (atomic_load(&w->eof) && atomic_load(&w->tail) == h)
			return NULL;
		if (!w->idle_from && !w->run->staged) {
			/* for worker__item_late */
			w->idle_from = replay_now_ns();
			w->idle_room_waits = atomic_load(&w->run->disp_in_room_wait)
						 ? UINT64_MAX
						 : atomic_load(&w->run->disp_room_waits);
		}
		/* staged, the next items come after a pause: the cores are the pause's */
		if (!w->run->staged && spins++ < queue_spins) {
			__builtin_ia32_pause();
			continue;
		}
		bell = atomic_load(&w->bell);
		atomic_store(&w->cons_wait, 1);
		if (atomic_load(&w->tail) == h && !atomic_load(&w->eof)) {
			test__idle_delay();
			futex_wait(&w->bell, bell);
		}
		atomic_store(&w->cons_wait, 0);
	}
	w->tail_seen = t;
	*tail = t;
	w->seg_owed = w->run->staged;
	return queue__slot(w, h);
}

/*
 * Frees the slot of the item queue__peek gave. A plain release store: the producer only
 * sleeps on a full queue, and a blocked producer is woken once half the queue is free, so
 * the full fence (the Dekker pair with queue__push's prod_wait) is only needed from then on.
 */
LANE_INLINE void queue__advance(struct rworker *w, uint32_t t)
{
	uint32_t h = atomic_load_explicit(&w->head, memory_order_relaxed) + 1;

	atomic_store_explicit(&w->head, h, memory_order_release);
	if (w->run->staged) { /* the producer never waits for room (disp__push) */
		w->cur = w->run->lane[w->cur].next; /* item.next too: the lane reads only this */
		return;
	}
	/* by the view from queue__peek; a fresh look at the tail before paying for the fence */
	if (t - h <= queue_cap / 2)
		t = w->tail_seen = atomic_load_explicit(&w->tail, memory_order_acquire);
	if (t - h <= queue_cap / 2) {
		atomic_thread_fence(memory_order_seq_cst);
		/* woken once: each op after it woke it again until the producer, niced
		 * (background__enter), ran and said it was awake, one futex call per op */
		if (atomic_load_explicit(&w->prod_wait, memory_order_relaxed) &&
		    atomic_exchange(&w->prod_wait, 0))
			futex_wake(&w->head);
	}
}

/*
 * The item k (>= 1) places after the one queue__peek gave, when it is queued already: NULL when
 * it is not yet (never waited for), past the thread's last op, or once the segment is cut
 * short (staged: the worker stops at its next op). A look ahead without taking anything:
 * the records that went with this one in one syscall (batch__gather).
 */
const struct ritem *worker__queued(struct rworker *w, unsigned k)
{
	uint32_t h = atomic_load_explicit(&w->head, memory_order_relaxed), i;

	if (atomic_load_explicit(&w->tail, memory_order_acquire) - h <= k ||
	    atomic_load_explicit(&w->run->seg_cut, memory_order_relaxed))
		return NULL;
	if (!w->run->staged)
		return &w->q[(h + k) % queue_cap];
	for (i = w->cur; k && i != RUN_SEG_NONE; k--)
		i = w->run->seg[i].next;
	return i == RUN_SEG_NONE ? NULL : &w->run->seg[i];
}

/* ---- dependencies ---- */

/*
 * Waits until the op d names is done. -1: the segment was cut short first (staged), and
 * that op may be carried over to the next one: this op waits there too, so that no
 * worker is left waiting on a worker that has stopped (worker__cut wakes its waiters).
 */
static int dep__wait(struct run *run, const struct rdep *d)
{
	struct rworker *o = run->workers[d->w];
	int ret = 0;

	for (unsigned spins = 0; spins < queue_spins; spins++) {
		if (atomic_load(&o->done_seq) >= d->seq)
			return 0;
		__builtin_ia32_pause();
	}
	atomic_fetch_add(&o->waiters, 1);
	for (;;) {
		uint32_t v = atomic_load(&o->done_word);

		if (atomic_load(&o->done_seq) >= d->seq)
			break;
		if (atomic_load(&run->seg_cut)) {
			ret = -1;
			break;
		}
		futex_wait(&o->done_word, v);
	}
	atomic_fetch_sub(&o->waiters, 1);
	return ret;
}

/* wakes the workers waiting on one of this worker's ops (dep__wait) to look again */
void worker__wake_waiters(struct rworker *w)
{
	if (atomic_load(&w->waiters)) {
		atomic_fetch_add(&w->done_word, 1);
		futex_wake(&w->done_word);
	}
}

/* tells the workers waiting on this worker's ops that those up to seq are done */
void worker__publish(struct rworker *w, uint64_t seq)
{
	/* seq_cst store, then the waiters load: either a waiter sees done_seq, or we see it
	 * registered and bump the futex word (the pair of dep__wait's increment and load) */
	atomic_store(&w->done_seq, seq);
	worker__wake_waiters(w);
}

LANE_INLINE void worker__done(struct rworker *w, uint64_t seq)
{
	/*
	 * Only ops some other item waits for are published as they end: the store's full
	 * fence costs ~5 ns an op as fast as possible. Staged, every such op is known before
	 * the segment runs (dep_max); the rest are published at the segment's end, for the
	 * items of later segments (worker__seg_done).
	 */
	w->last_seq = seq;
	if (seq <= w->dep_max)
		worker__publish(w, seq);
	/* only this worker writes it: a plain store, no locked add */
	atomic_store_explicit(&w->ops_done, ++w->ndone, memory_order_relaxed);
}

/* ---- workers ---- */

int run__interrupted(const struct run *run)
{
	return run->o->interrupt && atomic_load(run->o->interrupt);
}

#define SLEEP_SLICE_NS 100000000ULL /* long sleeps look at the interrupt flag this often */

#define SLEEP_MIN_NS 30000ULL	    /* below ~ the wakeup latency of clock_nanosleep here */

/* *spun: the time it spun on the clock added (no work of the worker's: worker__busy) */
static void sleep_until(const struct run *run, uint64_t t, int spin_us, uint64_t *spun)
{
	uint64_t wake = t, now = replay_now_ns(), to;
	struct timespec ts;

	/* behind (a backlog runs its ops back to back): one clock read, not two (on a VM's
	 * clock ~50 ns each, 6% of a worker's time in an io_uring backlog) */
	if (now >= t)
		return;
	if (spin_us >= 0)
		wake = t > (uint64_t)spin_us * 1000 ? t - (uint64_t)spin_us * 1000 : 0;
	/* a sleep shorter than the wakeup latency only makes the op late: wait on the clock */
	if (now + SLEEP_MIN_NS >= t) {
		while (replay_now_ns() < t)
			;
		*spun += t - now;
		return;
	}
	while ((now = replay_now_ns()) < wake && !run__interrupted(run)) {
		/* the last slice ends exactly at wake: absolute, so slicing costs no accuracy */
		to = wake - now > SLEEP_SLICE_NS ? now + SLEEP_SLICE_NS : wake;
		ts.tv_sec = (time_t)(to / 1000000000ULL);
		ts.tv_nsec = (long)(to % 1000000000ULL);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	/* no pause instruction here: on KVM, pause loops exit to the hypervisor (PLE) */
	if (spin_us >= 0) {
		uint64_t from = replay_now_ns();

		while ((now = replay_now_ns()) < t && !run__interrupted(run))
			;
		*spun += now - from;
	}
}

/* Hands the worker's batch to the writer thread, and takes an empty one. */
void worker__flush(struct rworker *w)
{
	struct run *run = w->run;
	struct rbatch *b = w->out;

	if (!b || !b->n)
		return;
	pthread_mutex_lock(&run->blk);
	run__batch_queue(run, b);
	w->out = run__batch_take(run);
	/*
	 * The writer polls (writer__next_poll): waking it for every batch cost the worker a
	 * futex wake-up and an IPI per RUN_BATCH ops (~80 ns per op as fast as possible, on a
	 * VM). Only a backlog that nears the cap, where workers would stall, wakes it early.
	 * (Staged workers have no batch: their results wait in their items, stage__results.)
	 */
	if (run->npending >= run->max_pending / 4)
		pthread_cond_signal(&run->bcond);
	pthread_mutex_unlock(&run->blk);
}

static int is_data(unsigned type)
{
	return reel_op__is_read(type) || reel_op__is_write(type);
}

static int is_async_complete(unsigned type)
{
	return type == REEL_OP_AIO_COMPLETE || type == REEL_OP_URING_COMPLETE;
}

static void errname(char *buf, size_t sz, int64_t ret)
{
	if (ret >= 0)
		snprintf(buf, sz, "%lld", (long long)ret);
	else
		snprintf(buf, sz, "-%s",
			 strerrorname_np((int)-ret) ? strerrorname_np((int)-ret) : "E?");
}

/* an outcome that differs from the original's is counted and named, never hidden */
static void worker__check(struct rworker *w, const struct reel_op *res, int64_t orig,
			  const struct rpath *p)
{
	enum replay_fail_kind k;
	char a[32], b[32], why[96];

	if (res->ret == orig) /* none of the below: first, as it is most ops' case */
		return;
	if (orig >= 0 && res->ret < 0) {
		k = REPLAY_FAIL_NEW_ERROR;
		if (res->ret == -ENOSPC || res->ret == -EDQUOT)
			atomic_fetch_add(&w->run->enospc, 1);
	}
	else if (orig < 0 && res->ret >= 0)
		k = REPLAY_FAIL_NEW_SUCCESS;
	else if (orig < 0 && res->ret != orig)
		k = REPLAY_FAIL_OTHER_ERRNO;
	/* a completion's result is its request's byte count (0 for fsync and nop): a read
	 * or write of the trace's own requests comes out short as a sync one does */
	else if ((is_data(res->type) || reel_op__is_copy(res->type) ||
		  is_async_complete(res->type)) &&
		 res->ret < orig)
		k = REPLAY_FAIL_SHORT;
	/* the offset from the end is the file's length then: another one means the file set
	 * or an earlier op left the file unlike the original's, which nothing else may show */
	else if (res->type == REEL_OP_LSEEK && res->mode == SEEK_END && res->ret != orig)
		k = REPLAY_FAIL_LENGTH;
	/* so is a read that found the end of its file (short of its ask): longer in the replay,
	 * a write of another thread that came after it ran first, as for a check */
	else if (reel_op__is_read(res->type) && orig < (int64_t)res->len && res->ret > orig)
		k = REPLAY_FAIL_LENGTH;
	else
		return;
	errname(a, sizeof(a), orig);
	errname(b, sizeof(b), res->ret);
	snprintf(why, sizeof(why), "original %s, replay %s", a, b);
	exec__fail(w->run, k, res, p, why);
}

/*
 * An op's result, in issue order: to the worker's batch for the writer, or staged into its own
 * item (at), whose lines the worker has just read: a result record of its own, 112 bytes
 * written per op to memory the syscalls' data then shares the caches with, cost the ops ~5 %
 * of their rate as fast as possible (tests/bench_replay/throughput.sh); the pause hands them to
 * the writer (stage__results). The lane keeps its ops' results in their lane entries instead
 * (lane__staged_op).
 */
static void worker__retire(struct rworker *w, struct reel_op *res, int64_t orig,
			   const struct rpath *const *p, uint64_t seq, struct ritem *at)
{
	struct run *run = w->run;

	/* the path only for a message: it is on the item's third line */
	if (res->ret != orig)
		worker__check(w, res, orig, *p);
	/* a completion's start is its request's submission (FORMAT.md): no lateness of its own */
	if (!is_async_complete(res->type))
		atomic_store_explicit(&w->last_late, (int64_t)(res->start_ns - res->sched_ns),
				      memory_order_relaxed);
	res->sched_ns -= run->t0;
	res->start_ns -= run->t0;
	res->end_ns -= run->t0;
	if (res->end_ns > w->last_end)
		w->last_end = res->end_ns;
	if (at) {
		if (res != &at->op)
			at->op = *res;
		at->flags |= ITEM_RESULT;
	} else if (w->out) {
		/* the worker may have measured straight into the batch's next slot */
		if (res != &w->out->ops[w->out->n])
			w->out->ops[w->out->n] = *res;
		if (++w->out->n == RUN_BATCH)
			worker__flush(w);
	} else if (!run->werr) {
		run->werr = -ENOMEM;
	}
	w->issued++;
	worker__done(w, seq);
}

/* retire, in issue order, the async requests at the head that have completed */
static void worker__retire_head(struct rworker *w)
{
	while (w->infl_n) {
		struct rinflight *f = &w->infl[w->infl_head];

		if (!f->done)
			break;
		if (f->skip) {
			worker__done(w, f->seq);
		} else {
			f->res.ret = f->io.ret;
			if (f->io.done_ns)
				f->res.end_ns = f->io.done_ns;
			worker__retire(w, &f->res, f->orig_ret, &f->p, f->seq, f->at);
		}
		w->infl_head = (w->infl_head + 1) % RUN_ASYNC_DEPTH;
		w->infl_n--;
	}
}

/* reap completions: min 0 polls, else waits (until t_abs when not 0) */
void worker__reap(struct rworker *w, unsigned min, uint64_t t_abs)
{
	struct timespec ts, *tp = NULL;
	int n;

	if (!w->infl_n)
		return;
	if (min && t_abs) {
		uint64_t now = replay_now_ns(), d = t_abs > now ? t_abs - now : 0;

		ts.tv_sec = (time_t)(d / 1000000000ULL);
		ts.tv_nsec = (long)(d % 1000000000ULL);
		tp = &ts;
	} else if (!min) {
		ts.tv_sec = 0;
		ts.tv_nsec = 0;
		tp = &ts;
	}
	n = w->eng.ops->getevents(&w->eng, min, RUN_ASYNC_DEPTH, tp);
	for (int i = 0; i < n; i++)
		((struct rinflight *)w->eng.ops->event(&w->eng, (unsigned)i)->owner)->done = 1;
	worker__retire_head(w);
}

void worker__drain(struct rworker *w)
{
	while (w->infl_n)
		worker__reap(w, 1, 0);
}

/* an in-flight request of this worker (not yet done) on the item's file whose bytes overlap
 * the item's, one of the two a write, or a write that makes the file longer past the start
 * of the item, a read (of the hole below it, or of its bytes); by the path, or the fd when
 * there is no path */
static int worker__own_conflict(const struct rworker *w, const struct ritem *it)
{
	const struct reel_op *op = &it->op;

	for (unsigned i = 0; i < w->infl_n; i++) {
		const struct rinflight *f = &w->infl[(w->infl_head + i) % RUN_ASYNC_DEPTH];
		const struct reel_op *r = &f->res;

		if (f->done || (!reel_op__is_write(r->type) && !reel_op__is_write(op->type)))
			continue;
		if (it->p1 ? f->p != it->p1 : (r->fd != op->fd || r->pid != op->pid))
			continue;
		if (r->offset < op->offset + op->len && op->offset < r->offset + r->len)
			return 1;
		if (f->grows && op->offset < r->offset + r->len && reel_op__is_read(op->type))
			return 1;
	}
	return 0;
}

/*
 * --engine io_uring|libaio: a thread's data ops go out as requests, many in flight, but one
 * that touches bytes a request of the same thread still in flight writes (or reads, for a
 * write) waits for it, as the thread's syscalls did: a read of what it just wrote to a new
 * file came out short on a disk, where a buffered write does not complete on submission.
 */
static void worker__wait_own(struct rworker *w, const struct ritem *it)
{
	while (w->infl_n && worker__own_conflict(w, it))
		worker__reap(w, 1, 0);
}

/* an op finished synchronously: behind pending requests it waits its turn in the ring */
static void worker__finish(struct rworker *w, struct reel_op *res, int64_t orig,
			   const struct rpath *p, uint64_t seq, int skip, struct ritem *at)
{
	struct rinflight *f;

	if (!w->infl_n) {
		if (skip)
			worker__done(w, seq);
		else
			worker__retire(w, res, orig, &p, seq, at);
		return;
	}
	f = &w->infl[(w->infl_head + w->infl_n) % RUN_ASYNC_DEPTH];
	f->done = 1;
	f->skip = skip;
	f->seq = seq;
	if (!skip) {
		f->res = *res;
		f->io.ret = res->ret;
		f->io.done_ns = res->end_ns;
		f->orig_ret = orig;
		f->p = p;
		f->at = at;
	}
	w->infl_n++;
}

static void worker__wait_until(struct rworker *w, uint64_t t)
{
	int spin = w->run->o->spin_us;

	/* with requests in flight, wait for their completions instead of sleeping blind */
	while (w->infl_n && replay_now_ns() + (spin >= 0 ? (uint64_t)spin * 1000 : 0) < t)
		worker__reap(w, 1, t - (spin >= 0 ? (uint64_t)spin * 1000 : 0));
	sleep_until(w->run, t, spin, &w->spun_ns);
}

/*
 * The next item was written by the dispatcher's core, and the next result slot was last read
 * by the writer's: fetched while this op's syscall runs, so that the bookkeeping after it does
 * not wait on other cores' caches (measured as fast as possible, page-cached 4 KiB preads:
 * -40 ns of the worker's CPU per op).
 */
static inline void worker__prefetch(const struct rworker *w, const struct reel_op *next_res)
{
	const char *item;
	size_t lines;

	if (w->run->staged) {
		uint32_t next = w->run->lane[w->cur].next;

		if (next == RUN_SEG_NONE)
			return;
		__builtin_prefetch(&w->run->lane[next]);
		item = (const char *)&w->run->seg[next];
		/* what the general path reads first: the op, seq, next and flags (struct ritem) */
		lines = offsetof(struct ritem, sched_rel);
	} else {
		uint32_t h = atomic_load_explicit(&w->head, memory_order_relaxed) + 1;

		item = (const char *)&w->q[h % queue_cap];
		lines = offsetof(struct ritem, deps); /* the part queue__push copies */
	}

	for (size_t l = 0; l < lines; l += 64)
		__builtin_prefetch(item + l);
	if (next_res && w->out->n + 1 < RUN_BATCH)
		for (size_t l = 0; l < sizeof(*next_res) + 64; l += 64)
			__builtin_prefetch((const char *)next_res + l, 1);
}

/*
 * A wait for ops of other threads from a to b, for the next op (or before it, for an item of
 * no op ahead of it): kept for that op's result (worker__wait_ns).
 */
static void worker__waited(struct rworker *w, uint64_t a, uint64_t b)
{
	if (!w->wait_to)
		w->wait_from = a;
	w->wait_to = b;
}

/*
 * The op's wait_ns: of the waits kept since the last op, the part after its schedule, so
 * within its lateness (an item of no op ahead of it may have waited before that, in time).
 */
static uint64_t worker__wait_ns(struct rworker *w, uint64_t sched)
{
	uint64_t from = w->wait_from > sched ? w->wait_from : sched;
	uint64_t ns = w->wait_to > from ? w->wait_to - from : 0;

	w->wait_from = w->wait_to = 0;
	return ns;
}

/*
 * --timing think: when op is due, its original gap after the thread's previous op (/ speed)
 * after that op's end in the replay. Each late wake-up is made up from the gaps after it, as
 * far as they go: the thread's think time in all is the original's, not that plus ~60 µs of
 * a sleep's overshoot per op (1,000 ops 1 ms apart ran 6% long on tmpfs, where the storage
 * was no slower).
 */
static uint64_t worker__think_at(struct rworker *w, const struct reel_op *op)
{
	uint64_t gap = op->start_ns > w->prev_orig_end ? op->start_ns - w->prev_orig_end : 0;
	uint64_t think = (uint64_t)((double)gap / w->run->o->speed);
	uint64_t paid = w->think_debt < think ? w->think_debt : think;

	w->think_debt -= paid;
	return w->prev_end + think - paid;
}

static int worker__wait_deps(struct rworker *w, const struct ritem *it);

/*
 * With a schedule, when the worker comes to a libaio completion record, the replay's
 * io_getevents that ends its request (async__complete), before it sleeps until the record is
 * due: 0 for any other op.
 * The record is due when the application's io_getevents returned (its end). It went in when
 * its thread's previous syscall had ended (the trace has no record of it): its previous
 * record's end, or, for the second and later requests that call reaped (their records end
 * alike), the first's; for a thread's first record, not known: when it returned. From there
 * on the schedule the worker reaps, as the application did: a request done by then ends
 * there, one done later when it completed, so that a request the application waited for
 * comes out faster on faster storage. Now, when its thread is behind that. Not when a sleep
 * woke up: that overshoot (~60 us on a VM) is the replayer's.
 */
static uint64_t worker__came(struct rworker *w, const struct reel_op *op, uint64_t sched)
{
	uint64_t now, entry, back, at;

	if (op->type != REEL_OP_AIO_COMPLETE)
		return 0;
	now = replay_now_ns();
	if (w->run->o->timing != REPLAY_TIMING_ORIGINAL)
		return now > sched ? now : sched;
	/* (a thread's first record: when its call went in is not known, when it returned is) */
	entry = !w->have_prev ? op->end_ns
		: w->prev_orig_end == op->end_ns ? w->reap_entry
						 : w->prev_orig_end;
	if (entry > op->end_ns)
		entry = op->end_ns;
	w->reap_entry = entry;
	back = (uint64_t)((double)(op->end_ns - entry) / w->run->o->speed);
	at = sched > back ? sched - back : 0;
	return now > at ? now : at;
}

/*
 * --spin: how long before its schedule a read or write (sync engine) is prepared, its fd
 * looked up (opened, on its first use) and its result slot set up, for its syscall to go at
 * the schedule (worker__issue_tick spins the rest). After a spin of hundreds of µs, that
 * preparation took ~1 µs (its lines cold, cores shared with other VMs here), every op that
 * much late. Sleeping, a wake-up's overshoot dwarfs it: 0, no lead.
 */
#define SPIN_LEAD_NS 20000ULL
static uint64_t worker__lead(const struct rworker *w, const struct reel_op *op)
{
	if (w->run->o->spin_us < 0 || w->eng_on || !is_data(op->type))
		return 0;
	return SPIN_LEAD_NS;
}

/*
 * --timing think, a thread's first op: as long after its process's fork was done in the
 * replay as it was after the fork in the original (speed applied), not at its original time:
 * a child of a parent the target made faster (or slower) starts earlier (or later) with it,
 * as in the original. Its dependencies, the fork among them, are waited for first (*waited);
 * a process whose fork the trace does not have starts at its original time.
 */
static uint64_t worker__think_first(struct rworker *w, const struct ritem *it, int *waited)
{
	const struct reel_op *op = &it->op;
	uint64_t at, gap;

	if (it->ndeps && worker__wait_deps(w, it))
		return UINT64_MAX; /* cut short */
	*waited = 1;
	at = w->rp ? atomic_load_explicit(&w->rp->forked_at, memory_order_acquire) : 0;
	if (!at)
		return w->run->t0 + it->sched_rel;
	if (op->start_ns <= w->rp->forked_orig)
		return at;
	gap = (uint64_t)((double)(op->start_ns - w->rp->forked_orig) / w->run->o->speed);
	return at + gap;
}

/* After an op of --timing think: how late it woke up past its schedule, waits for ops of
 * other threads (the storage's, kept) left out, is owed to the gaps after it. */
static void worker__think_owe(struct rworker *w, const struct reel_op *res, uint64_t sched)
{
	if (res->start_ns > sched + res->wait_ns)
		w->think_debt += res->start_ns - sched - res->wait_ns;
}

/*
 * Waits for the ops the item depends on. -1: the segment was cut short first (dep__wait).
 * A wait for one not done yet is counted (order_waits), and kept for the op's result
 * (wait_ns): the report tells it from a late wake-up, as it may be the target's (the op
 * waited for is slow on it).
 */
static int worker__wait_deps(struct rworker *w, const struct ritem *it)
{
	uint64_t t0 = 0, t;

	worker__drain(w); /* our pending ops may be what the others wait for */
	for (unsigned i = 0; i < it->ndeps; i++) {
		const struct rdep *d = &it->deps[i];

		if (!t0 && atomic_load(&w->run->workers[d->w]->done_seq) < d->seq)
			t0 = replay_now_ns();
		if (dep__wait(w->run, d))
			return -1;
	}
	if (t0) {
		uint64_t t1 = replay_now_ns();

		worker__waited(w, t0, t1);
		t = t1 - t0;
		w->order_waits++;
		w->order_wait_ns += t;
		if (t > w->order_wait_max)
			w->order_wait_max = t;
	}
	return 0;
}

/*
 * The as-fast-as-possible lane, for the ops most of a database's or a benchmark's are: a
 * positioned read or write (or a read or write, replayed positioned, as exec__data does) of
 * an fd the replay has open, into a buffer large enough, with nothing to wait for and no
 * wait kept for it, due when the thread's previous op ended, that succeeded in the original
 * (one that failed takes the general path, which knows what makes it fail again: a
 * directory, an O_DIRECT buffer's alignment). Between two such ops, the replay's own work
 * adds to the target's time (tests/bench_replay/throughput.sh): this skips what the general
 * path works out for any op (exec__op: the op's kind, the fd's state, the buffer, the
 * engine; worker__finish; the schedule of the other timings), ~50 ns an op on this kind of
 * VM. As fast as possible is staged: the lane takes the ops from their entries of the
 * segment's lane array (struct rlane) and keeps their results there. The result is the
 * general path's to the field (test replay_afap_lane).
 * lane__fd: the replay's fd for lane entry l when the worker can take it now, else -1.
 */
static inline int32_t lane__fd(struct rworker *w, const struct rlane *l)
{
	if (!l->type || !w->have_prev || w->wait_to || l->len > w->bufsz)
		return -1;
	/* < 0: not open (yet), or its open failed: exec__fd_of says which */
	return atomic_load(rpid__slot(w->rp, l->fd));
}

/*
 * Staged: an outcome that differs from the original's, of the lane op at slot i (rare: the
 * op's item, read only then, names it), checked as worker__retire checks any.
 */
static void __attribute__((noinline))
lane__differs(struct rworker *w, uint32_t i, long r, uint64_t sched, uint64_t start, uint64_t end)
{
	const struct ritem *it = &w->run->seg[i];
	struct reel_op res = it->op;

	res.ret = r;
	res.sched_ns = sched;
	res.start_ns = start;
	res.end_ns = end;
	worker__check(w, &res, it->op.ret, it->p1);
}

/* Staged: issues the op of lane entry l (slot i) on fd and keeps its result in l, as
 * worker__retire keeps a result in its item */
static inline void lane__staged_op(struct rworker *w, struct rlane *l, uint32_t i, int32_t fd)
{
	struct run *run = w->run;
	uint64_t t0, t1, start, end, sched = replay_clock__anchor(w) ? worker__now(w) : w->prev_end;
	long r;

	/* the next entry, while this one's syscall runs (it was written by the dispatcher's
	 * core) */
	if (l->next != RUN_SEG_NONE)
		__builtin_prefetch(&run->lane[l->next]);
	t0 = worker__tick(w);
	r = l->type == REEL_OP_PWRITE64 || l->type == REEL_OP_WRITE
		    ? sys_pwrite(fd, w->buf, l->len, (off_t)l->offset)
		    : sys_pread(fd, w->buf, l->len, (off_t)l->offset);
	t1 = worker__tick(w);
	start = worker__ns(w, t0);
	end = w->prev_end = worker__ns(w, t1);
	if (r != l->ret)
		lane__differs(w, i, r, sched, start, end);
	atomic_store_explicit(&w->last_late, (int64_t)(start - sched), memory_order_relaxed);
	l->ret = r;
	l->sched = sched - run->t0;
	l->start = start - run->t0;
	l->end = end - run->t0;
	if (l->end > w->last_end)
		w->last_end = l->end;
	l->flags |= LANE_RESULT;
	w->issued++;
	w->lane_ops++;
	worker__done(w, l->seq);
}

/*
 * Staged: the lane through the worker's entries from w->cur on, while they are plain ops and
 * the segment runs (what worker__main's loop asks of each item, a segment's items have
 * answered: all queued, none late). 1 when it took at least one (each advanced past).
 */
static int lane__staged(struct rworker *w, uint32_t tail)
{
	struct run *run = w->run;
	uint32_t last = RUN_SEG_NONE;
	const struct reel_op *op;
	int32_t fd;

	for (;;) {
		struct rlane *l = &run->lane[w->cur];

		if ((fd = lane__fd(w, l)) < 0)
			break;
		last = w->cur;
		lane__staged_op(w, l, last, fd);
		queue__advance(w, tail);
		if (atomic_load_explicit(&w->head, memory_order_relaxed) == w->tail_seen ||
		    atomic_load_explicit(&run->seg_cut, memory_order_relaxed) ||
		    run__interrupted(run))
			break;
	}
	if (last == RUN_SEG_NONE)
		return 0;
	/* what the general path's next op may ask of the last one (worker__came) */
	op = &run->seg[last].op;
	w->prev_orig_end = op->end_ns > op->start_ns ? op->end_ns : op->start_ns;
	return 1;
}

/*
 * The lane from queue__peek's item (with tail and waited) on: 1 when it took at least that
 * one (each taken is advanced past), 0 when it is not such an op.
 */
static int worker__plain(struct rworker *w, int waited, uint32_t tail)
{
	return !waited && lane__staged(w, tail);
}

/*
 * With the original timing, an item that reached the worker, idle for it, after its op was
 * due: the dispatcher, reading and routing the trace, was behind. Its delay is the
 * replayer's, not the target's, and the report says so (replay.items_late): at nice 10 on
 * busy CPUs, fio's io_uring trace at 230 k requests/s was dispatched at half its pace, and
 * the report blamed the storage it had been recorded on. Not when the dispatcher waited
 * for room in another worker's full queue meanwhile: the item then waited behind that
 * worker's ops, whose backlog may well be the target's.
 */
static void worker__item_late(struct rworker *w, const struct ritem *it)
{
	uint64_t from = w->idle_from, due, now;

	w->idle_from = 0;
	if (w->run->o->timing != REPLAY_TIMING_ORIGINAL || it->op.type == REEL_OP_NONE ||
	    atomic_load(&w->run->disp_room_waits) != w->idle_room_waits)
		return;
	due = w->run->t0 + it->sched_rel;
	if (due > from)
		from = due;
	now = replay_now_ns();
	if (now > from) {
		w->items_late++;
		w->items_late_ns += now - from;
	}
}

/* Raises *max to share (thousandths) if it is larger: workers end at once. */
static void share__max(_Atomic uint32_t *max, uint32_t share)
{
	uint32_t cur = atomic_load(max);

	if (share > 1000)
		share = 1000;
	while (share > cur && !atomic_compare_exchange_weak(max, &cur, share))
		;
}

/*
 * A worker at its end: its CPU time, and the share of its time since its first item that was
 * on a CPU, for the busiest worker's (replay.worker_busy_max): near all of it, the worker
 * was bound by the CPU (the replayer's own work and the ops' work in the kernel), not
 * waiting for the storage. Its spins to a schedule are left out of both (no work of its
 * own), and so is its time waiting for a CPU (runq): a worker bound by the CPU on a machine
 * that other processes keep busy runs only part of the time, and read 63% busy (the other
 * 37% waiting for a CPU) where it was bound by the CPU all the same. Only the waits its
 * spins cannot hold: preempted while spinning, it waited in its spin time, already left out
 * (a worker spinning to 100 k preads/s, quiet, waited a third of the rest of its time).
 */
#define BUSY_MIN_NS 10000000ULL /* over less, a share says little */
static void worker__busy(struct rworker *w, uint64_t cpu, uint64_t wall, uint64_t runq)
{
	uint64_t spun = w->spun_ns, held = runq > spun ? runq - spun : 0;

	atomic_fetch_add(&w->run->cpu_workers_ns, cpu);
	if (wall < spun + held + BUSY_MIN_NS || cpu < spun)
		return;
	share__max(&w->run->worker_busy_max,
		   (uint32_t)((cpu - spun) * 1000 / (wall - spun - held)));
}

/*
 * And the share of that time it was held back waiting for a CPU, for the worst worker's
 * (replay.worker_runq_max): a worker whose CPU other processes held is neither busy on a CPU
 * nor fed late, and the report blamed the storage for the backlog it made (fio's io_uring
 * trace at 230 k requests/s, replayed while CI builds held both cores). Its io-wq threads'
 * waits count as its own (iowq): it sleeps for their work. Summed, the share can pass 1
 * (two io-wq threads waiting at once): capped there. Its spins stay in: a spin cut short by
 * a preemption is a wait for a CPU like any other.
 */
static void worker__runq(struct rworker *w, uint64_t runq, uint64_t iowq, uint64_t wall)
{
	if (wall < BUSY_MIN_NS)
		return;
	share__max(&w->run->worker_runq_max, (uint32_t)((runq + iowq) * 1000 / wall));
}

/* Did it submit io_uring requests, its own engine's or the trace's rings', so that io-wq
 * threads may have worked for it; and are there few enough workers to look for them? */
static int worker__iowq_scan(const struct rworker *w)
{
	return (w->uring_submitter || (w->eng_on && w->run->o->engine == REPLAY_ENGINE_URING)) &&
	       atomic_load(&w->run->nworkers) <= IOWQ_SCAN_WORKERS;
}

/* A worker at its end: what it measured of itself since its first item (or time 0). */
static void worker__measured(struct rworker *w, uint64_t cpu0, uint64_t runq0, uint64_t first)
{
	uint64_t from = first > w->run->t0 ? first : w->run->t0; /* nothing is due before t0 */
	uint64_t wall = first ? replay_now_ns() - from : 0, runq = thread_runq_ns();
	int known = runq0 != UINT64_MAX && runq != UINT64_MAX;

	/* its waits before its first item (it slept for it) are few: counted all the same */
	runq = known && runq > runq0 ? runq - runq0 : 0;
	worker__busy(w, thread_cpu_ns() - cpu0, wall, runq);
	if (known)
		worker__runq(w, runq, worker__iowq_scan(w) ? iowq_runq_ns() : 0, wall);
}

/*
 * A worker past its last op. One that submitted to a trace's io_uring stays until every
 * worker is: when a thread exits, the kernel cancels (-ECANCELED) the requests it left
 * queued for its io-wq workers (a write that could not be done within its submission, an
 * fsync), and their completion records may be other threads' still to come (fio's or an
 * app's reaping thread; a record that took another request that had completed:
 * async__complete). Exiting at once, 3 of 6000 such writes came back cancelled in a CI run.
 * Once every worker is past its ops, every completion record has been replayed. The workers
 * all exist by then: their queues end only once the dispatcher has.
 */
static void worker__linger(struct rworker *w)
{
	struct run *run = w->run;
	uint32_t all = atomic_load(&run->nworkers);
	uint32_t n = atomic_fetch_add(&run->workers_ended, 1) + 1;

	if (n == all) {
		futex_wake(&run->workers_ended);
		return;
	}
	while (w->uring_submitter && n < all) {
		futex_wait(&run->workers_ended, n);
		n = atomic_load(&run->workers_ended);
	}
}

#define WORKER_BUF_START (128u << 10) /* most databases' and benchmarks' ops fit */

static void *worker__main(void *arg)
{
	struct rworker *w = arg;
	struct run *run = w->run;
	const struct replay_opts *o = run->o;
	struct ritem *it;
	struct reel_op lres, *res;
	uint64_t sched, end_abs;
	uint32_t tail;
	int r, waited, idle = 0;
	uint64_t cpu0 = thread_cpu_ns(), runq0 = thread_runq_ns(), first = 0, faults0;
	char name[16];

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	run__pin(run, w->idx);
	/* each thread of the replay named for top -H, perf sched and gdb: the workers by their
	 * index, beside ioreel-writer, ioreel-progress, ioreel-reaper; the dispatcher is the
	 * main thread, "ioreel". Once pinned: a worker seen by its name is where it runs. */
	snprintf(name, sizeof(name), "ioreel-w%u", w->idx);
	pthread_setname_np(pthread_self(), name);
	/* its data buffer, and with it its thread's malloc arena, made before its first op, not
	 * in it: each thread's first read or write was ~50-100 us late for them (the arena's
	 * mmap and munmap, the buffer's page faults); a larger op grows it then (exec__buf) */
	exec__buf(w, WORKER_BUF_START);
	faults0 = thread_minor_faults();
	while ((it = queue__peek(w, &tail, &waited))) {
		const struct reel_op *op = &it->op;
		int deps_waited = 0;

		/* the queue ran dry before an item of no op ahead of this one (a segment's pause,
		 * with its new time 0, say): this op was not ready before now either */
		waited |= idle;
		idle = waited;
		if (!first)
			first = replay_now_ns();
		if (w->idle_from)
			worker__item_late(w, it);

		if (op->type == REEL_OP_NONE && (it->ndeps || op->subop != ITEM_HANDOVER)) {
			/* no op: the next item's dependencies beyond its own (disp__put_deps) */
			if (!run__interrupted(run) && worker__wait_deps(w, it))
				continue; /* cut short: queue__peek stops here */
			if (op->subop == ITEM_ASYNC_WAIT && !run__interrupted(run)) {
				uint64_t t0 = replay_now_ns();

				/* failing, the read comes out short: counted */
				if (async__wait(w, it) > 0)
					worker__waited(w, t0, replay_now_ns());
			}
			/* interrupted: other workers may still be on the process's ops */
			if (op->subop == ITEM_EXIT && !run__interrupted(run)) {
				/* the trace has no exit of it: a guess */
				mmaps__exit(run, op->pid, 0);
				/* its thread has ended: a hand-over comes next */
				if (w->rp && w->rp->pid == op->pid)
					w->rp = NULL;
				run__pid_exit(run, op->pid);
			}
			queue__advance(w, tail);
			continue;
		}
		if (op->type == REEL_OP_NONE) {
			/* from now on this worker replays another (new) thread */
			worker__drain(w);
			w->rp = run__pid(run, op->pid);
			w->pid = op->pid;
			w->tid = op->tid;
			w->have_prev = 0;
			w->think_debt = 0;
			queue__advance(w, tail);
			continue;
		}

		/* interrupted: what is queued is dropped, in order, so that no one waits on it;
		 * the requests in flight end first (done_seq only grows: retired after a dropped
		 * op, one would publish an earlier seq, and a waiter on the later one sleep on) */
		if (run__interrupted(run)) {
			worker__drain(w);
			worker__done(w, it->seq);
			queue__advance(w, tail);
			continue;
		}
		if (w->lane && worker__plain(w, waited, tail))
			continue;
		idle = 0; /* the op is issued below, or dropped */
		/* nothing starts before time 0, in any mode: result times are relative to it */
		if (!w->have_prev && replay_now_ns() < run->t0)
			sleep_until(run, run->t0, -1, &w->spun_ns);

		if (o->timing == REPLAY_TIMING_ORIGINAL) {
			sched = run->t0 + it->sched_rel;
		} else if (o->timing == REPLAY_TIMING_THINK && w->have_prev) {
			sched = worker__think_at(w, op);
		} else if (o->timing == REPLAY_TIMING_THINK) {
			sched = worker__think_first(w, it, &deps_waited);
			if (sched == UINT64_MAX)
				continue; /* cut short: queue__peek stops here */
		} else if (!replay_clock__anchor(w) && w->have_prev && !waited && !w->infl_n) {
			/* afap: the op was queued before this worker was free again, so it was due
			 * when the previous op ended (same clock anchor): no clock read needed */
			sched = w->prev_end;
		} else {
			sched = worker__now(w);
		}
		if (o->timing != REPLAY_TIMING_AFAP) {
			uint64_t lead = worker__lead(w, op);

			w->came_ns = worker__came(w, op, sched);
			worker__wait_until(w, sched > lead ? sched - lead : 0);
			w->issue_at = lead ? sched : 0;
		}
		if (it->ndeps && !deps_waited && worker__wait_deps(w, it))
			continue; /* cut short: queue__peek stops here */
		if (w->came_ns && w->wait_to > w->came_ns)
			w->came_ns = w->wait_to; /* it came once the ops it waits for were done */
		if (w->eng_on) {
			if (!is_data(op->type))
				worker__drain(w);
			else
				worker__wait_own(w, it);
			while (w->infl_n == RUN_ASYNC_DEPTH)
				worker__reap(w, 1, 0);
		}
		/* measured straight into the result batch when it goes there next (staged: no
		 * batch, kept in the item once done, worker__retire) */
		res = w->out && !w->infl_n ? &w->out->ops[w->out->n] : &lres;
		worker__prefetch(w, res != &lres ? res + 1 : NULL);
		*res = *op;
		res->path = it->p1 ? it->p1->wid : 0;
		res->path2 = it->p2 ? it->p2->wid : 0;
		res->sched_ns = sched;
		res->wait_ns = worker__wait_ns(w, sched);
		r = exec__op(w, it, res);
		w->issue_at = 0; /* not issued (its fd unknown, say): nothing to wait for */
		end_abs = res->end_ns; /* retiring makes res's times relative to t0 */
		/* a thread's first op follows no gap of its own: how late it came (behind its
		 * process's parent, say) is no oversleep to make up */
		if (o->timing == REPLAY_TIMING_THINK && r >= 0 && w->have_prev)
			worker__think_owe(w, res, sched);
		if (r == 1) {
			struct rinflight *f =
			    &w->infl[(w->infl_head + w->infl_n - 1) % RUN_ASYNC_DEPTH];

			f->res.sched_ns = sched;
			f->orig_ret = op->ret;
			f->p = it->p1;
			f->skip = 0;
			f->grows = !!(it->flags & ITEM_GROWS);
			f->at = run->staged ? it : NULL;
		}
		/* before the op is retired: staged, its result overwrites it */
		if (r >= 0) {
			w->prev_orig_end = op->end_ns > op->start_ns ? op->end_ns : op->start_ns;
			w->prev_end = r == 1 ? res->start_ns : end_abs;
			w->have_prev = 1;
		}
		if (r != 1) /* r == 2: its outcome is counted already; checked against itself */
			worker__finish(w, res, r == 2 ? res->ret : op->ret, it->p1, it->seq, r < 0,
				       run->staged ? it : NULL);
		queue__advance(w, tail);
		if (w->infl_n)
			worker__reap(w, 0, 0);
	}
	worker__drain(w);
	worker__flush(w);
	worker__measured(w, cpu0, runq0, first);
	/* each one a few microseconds taken from an op's neighbourhood (run__batches_ahead) */
	atomic_fetch_add(&run->worker_faults, thread_minor_faults() - faults0);
	lock__worker_end(w);
	worker__linger(w);
	return NULL;
}

struct rworker *worker__new(struct run *run, uint32_t pid, uint32_t tid)
{
	uint32_t idx = atomic_load(&run->nworkers);
	struct rworker *w;
	pthread_attr_t attr;

	if (idx == RUN_MAX_WORKERS)
		return NULL;
	/* cache-line aligned: the queue indices each keep a line of their own */
	w = aligned_alloc(_Alignof(struct rworker), sizeof(*w));
	if (!w)
		return NULL;
	memset(w, 0, sizeof(*w));
	w->run = run;
	w->idx = idx;
	w->pid = pid;
	w->tid = tid;
	w->rp = run__pid(run, pid);
	w->seg_first = w->cur = RUN_SEG_NONE;
	/* not staged, an item may come to wait on an op after it ended: all are published */
	w->dep_max = run->staged ? 0 : UINT64_MAX;
	/* staged: the segment buffer instead of a queue, its items instead of a result batch
	 * (worker__retire): thousands of workers (short processes) took 28 KiB each */
	if (!run->staged) {
		w->q = aligned_alloc(RUN_ITEM_ALIGN, queue_cap * sizeof(*w->q));
		pthread_mutex_lock(&run->blk);
		w->out = run__batch_take(run);
		pthread_mutex_unlock(&run->blk);
	}
	if (!w->rp || (!run->staged && (!w->q || !w->out)))
		goto fail;
	w->use_tsc = replay_clock__tsc_for(run->o);
	if (run->o->engine != REPLAY_ENGINE_SYNC) {
		w->infl = calloc(RUN_ASYNC_DEPTH, sizeof(*w->infl));
		if (!w->infl || replay_engine__init(&w->eng, run->o->engine, RUN_ASYNC_DEPTH))
			goto fail;
		w->eng_on = 1;
	}
	w->lane = run->staged && !w->eng_on && !test__no_lane();
	w->test_prep_ns = test__prep_ns();
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 << 10);
	if (pthread_create(&w->th, &attr, worker__main, w)) {
		pthread_attr_destroy(&attr);
		if (w->eng_on)
			replay_engine__cleanup(&w->eng);
		goto fail;
	}
	pthread_attr_destroy(&attr);
	w->started = 1;
	run->workers[idx] = w;
	atomic_store(&run->nworkers, idx + 1);
	return w;
fail:
	free(w->infl);
	free(w->out);
	free(w->q);
	free(w);
	return NULL;
}

/* Sizes the queues for ntids trace threads over at most nqueues queues at once. */
void queue__size(size_t ntids, size_t nqueues)
{
	queue_spins = ntids + 2 <= (size_t)sysconf(_SC_NPROCESSORS_ONLN) * 2 ? QUEUE_SPINS : 0;
	queue_cap = RUN_QUEUE_CAP;
	while (queue_cap > 16 &&
	       (uint64_t)queue_cap * sizeof(struct ritem) * nqueues > RUN_QUEUE_BUDGET)
		queue_cap /= 2;
}
