/* SPDX-License-Identifier: MIT */
/*
 * replay_run.c - the replay proper: a dispatcher streams the trace into one bounded queue per
 * original thread, and one worker thread per original thread issues its ops in order, at
 * their time.
 *
 * Cross-thread order. The dispatcher numbers ops in trace order (seq) and keeps, per key (an
 * fd of a process, a path, a directory by name, an async request), the last "structural" op (open,
 * close, dup, create, unlink, rename, mkdir, rmdir, truncate, async submit) and the last "use" of
 * each other thread since. A use depends on the last structural op of another thread; a structural
 * op depends on that too and on every other thread's last use. A path op also uses its parent
 * directory, and the directories further up that some op of the trace makes, moves or removes
 * (path__above), on which mkdir, rmdir, rename and symlink are structural; getdents64 uses its
 * fd's directory by name (the op's, or the open's that made the fd: disp__fd_named). A
 * dependency is (worker, seq), satisfied once that worker has retired its ops up to seq (ops
 * of a worker retire in seq order, so one counter per worker suffices); waiters sleep on a
 * futex. Deps always point to earlier, already queued ops, so they cannot deadlock. Uses do not depend on each other: concurrent reads of one fd stay concurrent. Data:
 * a read of bytes another thread's write added to the file depends on that write, a write that
 * makes it longer again on the last cut, and a cut on the writes and reads that reached
 * beyond it (replay_extent.c); on an async one, until its completion record, means on its
 * request (ITEM_ASYNC_WAIT). No other data op depends on another thread's, since the replay
 * moves no data and their order changes no outcome.
 *
 * Timing. original: op at t0 + (start - first start) / speed on CLOCK_MONOTONIC, absolute,
 * so lateness never accumulates; sleeping with clock_nanosleep(TIMER_ABSTIME) and 1 ns timer
 * slack, optionally spinning the last --spin µs. think: a thread's op at its previous op's
 * replay end + the original gap after that op (/ speed). afap: as soon as ready. The lateness
 * of every op (start - scheduled) is measured, stored (sched_ns) and summarised.
 *
 * Memory: the trace is never loaded; queues hold at most RUN_QUEUE_CAP ops per thread (fewer
 * with thousands of threads), results go out in batches.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/falloc.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "replay_run.h"

static char last_error[512];

void replay_set_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
}

const char *replay__last_error(void)
{
	return last_error;
}

/* CPU time of the calling thread (user + system) */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t replay_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void futex_wait(_Atomic uint32_t *addr, uint32_t val)
{
	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

/* as futex_wait, for at most ns */
static void futex_wait_ns(_Atomic uint32_t *addr, uint32_t val, uint64_t ns)
{
	struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000ULL),
			      .tv_nsec = (long)(ns % 1000000000ULL)};

	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* ---- per-worker queue (single producer, single consumer) ---- */

static void worker__seg_done(struct rworker *w);
static void worker__drain(struct rworker *w);
static void worker__cut(struct rworker *w, uint32_t h);
static void stage__maybe_cut(struct rworker *w);

static uint32_t queue_cap;

/*
 * Both sides spin a little (~tens of µs) before sleeping on the futex: a handoff through
 * futex_wait/futex_wake costs two context switches, several times an op's own cost.
 */
#define QUEUE_SPINS 1000

/* spinning only pays while the threads that spin do not outnumber the cores */
static unsigned queue_spins;

/*
 * A full queue makes the producer wait until half of it is free, not for the next free slot:
 * refilling one slot per op kept the dispatcher spinning for as long as the worker was the
 * slower side (as fast as possible, always), taking a core from the workers and the writer.
 */
static void queue__push(struct rworker *w, const struct ritem *it)
{
	uint32_t t = atomic_load_explicit(&w->tail, memory_order_relaxed), h;

	if (t - w->head_seen >= queue_cap)
		w->head_seen = atomic_load(&w->head);
	if (t - w->head_seen >= queue_cap) {
		unsigned spins = 0;

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
		w->head_seen = h;
	}
	/* the deps the item has, not the whole array: most items have none */
	memcpy(&w->q[t % queue_cap], it,
	       offsetof(struct ritem, deps) + it->ndeps * sizeof(it->deps[0]));
	atomic_store(&w->tail, t + 1);
	if (atomic_load(&w->cons_wait))
		futex_wake(&w->tail);
}

/* the item at h: in the queue, or staged the worker's next one in the segment */
static struct ritem *queue__slot(struct rworker *w, uint32_t h)
{
	return w->run->staged ? &w->run->seg[w->cur] : &w->q[h % queue_cap];
}

/*
 * The next item, left in its slot until queue__advance (no copy of it): NULL at the end of
 * this thread's ops. *waited: the queue was empty (the op was not ready before now).
 */
static struct ritem *queue__peek(struct rworker *w, uint32_t *tail, int *waited)
{
	uint32_t h = atomic_load_explicit(&w->head, memory_order_relaxed), t;
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
		/* staged, the next items come after a pause: the cores are the pause's */
		if (!w->run->staged && spins++ < queue_spins) {
			__builtin_ia32_pause();
			continue;
		}
		atomic_store(&w->cons_wait, 1);
		if (atomic_load(&w->tail) == h && !atomic_load(&w->eof))
			futex_wait(&w->tail, t);
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
static void queue__advance(struct rworker *w, uint32_t t)
{
	uint32_t h = atomic_load_explicit(&w->head, memory_order_relaxed) + 1;

	atomic_store_explicit(&w->head, h, memory_order_release);
	if (w->run->staged) { /* the producer never waits for room (disp__push) */
		w->cur = w->run->seg[w->cur].next;
		return;
	}
	/* by the view from queue__peek; a fresh look at the tail before paying for the fence */
	if (t - h <= queue_cap / 2)
		t = w->tail_seen = atomic_load_explicit(&w->tail, memory_order_acquire);
	if (t - h <= queue_cap / 2) {
		atomic_thread_fence(memory_order_seq_cst);
		if (atomic_load_explicit(&w->prod_wait, memory_order_relaxed))
			futex_wake(&w->head);
	}
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
static void worker__wake_waiters(struct rworker *w)
{
	if (atomic_load(&w->waiters)) {
		atomic_fetch_add(&w->done_word, 1);
		futex_wake(&w->done_word);
	}
}

/* tells the workers waiting on this worker's ops that those up to seq are done */
static void worker__publish(struct rworker *w, uint64_t seq)
{
	/* seq_cst store, then the waiters load: either a waiter sees done_seq, or we see it
	 * registered and bump the futex word (the pair of dep__wait's increment and load) */
	atomic_store(&w->done_seq, seq);
	worker__wake_waiters(w);
}

static void worker__done(struct rworker *w, uint64_t seq)
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

struct kent {
	uint32_t sw; /* worker of the last structural op + 1; 0: none */
	uint64_t sseq;
	uint32_t nu, cu;
	struct rdep *u; /* last use per other worker since */
	/* an fd's: the open or dup that last returned it (worker + 1, 0: none), and its end */
	uint32_t bw, btid;
	uint64_t bseq, bend;
};

struct deptrack {
	struct replay_u64map idx; /* key -> kent index */
	struct kent *k;
	size_t n, cap;
	size_t *freel;
	size_t nfree, capfree;
	uint64_t ckey; /* the last key looked up, and its index */
	size_t cidx;
	int cvalid;
};

static struct kent *dt__get(struct deptrack *dt, uint64_t key)
{
	uint64_t *v;
	size_t i;

	/* a thread's run of ops on one fd: the same key again */
	if (dt->cvalid && dt->ckey == key)
		return &dt->k[dt->cidx];
	v = replay_u64map__get(&dt->idx, key);
	if (v) {
		dt->ckey = key;
		dt->cidx = *v;
		dt->cvalid = 1;
		return &dt->k[*v];
	}
	if (dt->nfree) {
		i = dt->freel[--dt->nfree];
	} else {
		if (dt->n == dt->cap) {
			size_t cap = dt->cap ? dt->cap * 2 : 1024;
			struct kent *k = realloc(dt->k, cap * sizeof(*k));

			if (!k)
				return NULL;
			dt->k = k;
			dt->cap = cap;
		}
		i = dt->n++;
		memset(&dt->k[i], 0, sizeof(dt->k[i]));
	}
	if (replay_u64map__put(&dt->idx, key, i))
		return NULL;
	return &dt->k[i];
}

static void dt__del(struct deptrack *dt, uint64_t key)
{
	uint64_t *v = replay_u64map__get(&dt->idx, key);
	struct kent *k;

	if (!v)
		return;
	if (dt->ckey == key)
		dt->cvalid = 0;
	k = &dt->k[*v];
	k->sw = 0;
	k->nu = 0;
	if (dt->nfree == dt->capfree) {
		size_t cap = dt->capfree ? dt->capfree * 2 : 256;
		size_t *f = realloc(dt->freel, cap * sizeof(*f));

		if (!f)
			return; /* leak the slot, keep going */
		dt->freel = f;
		dt->capfree = cap;
	}
	dt->freel[dt->nfree++] = *v;
	replay_u64map__del(&dt->idx, key);
}

static void dt__free(struct deptrack *dt)
{
	for (size_t i = 0; i < dt->n; i++)
		free(dt->k[i].u);
	free(dt->k);
	free(dt->freel);
	replay_u64map__free(&dt->idx);
}

/*
 * The ops of other workers one op waits for, at most one per worker (ds__add keeps the latest):
 * room for all of them, so that none is dropped. Never zeroed: ds__clear starts a new op's set
 * by bumping gen, and a worker's entry is where slot[w] says only while stamp[w] is gen, so
 * that an rmdir after thousands of threads' ops finds each worker at once, not by a scan.
 */
struct depset {
	unsigned n;
	uint32_t gen;
	struct rdep d[RUN_MAX_WORKERS];
	uint32_t stamp[RUN_MAX_WORKERS];
	uint16_t slot[RUN_MAX_WORKERS];
};

_Static_assert(RUN_MAX_WORKERS <= UINT16_MAX + 1, "depset slots are 16 bits");

static void ds__clear(struct depset *ds)
{
	ds->n = 0;
	if (++ds->gen == 0) { /* wrapped: no stamp may look current */
		memset(ds->stamp, 0, sizeof(ds->stamp));
		ds->gen = 1;
	}
}

static void ds__add(struct depset *ds, uint32_t w, uint32_t self, uint64_t seq)
{
	struct rdep *d;

	if (w == self || !seq || w >= RUN_MAX_WORKERS)
		return;
	if (ds->stamp[w] == ds->gen) {
		d = &ds->d[ds->slot[w]];
		if (seq > d->seq)
			d->seq = seq;
		return;
	}
	ds->stamp[w] = ds->gen;
	ds->slot[w] = (uint16_t)ds->n;
	d = &ds->d[ds->n++];
	d->w = w;
	d->seq = seq;
}

static void dt__use(struct deptrack *dt, uint64_t key, uint32_t self, uint64_t seq,
		    struct depset *ds)
{
	struct kent *k = dt__get(dt, key);
	unsigned i;

	if (!k)
		return;
	if (k->sw)
		ds__add(ds, k->sw - 1, self, k->sseq);
	for (i = 0; i < k->nu; i++) {
		if (k->u[i].w == self) {
			k->u[i].seq = seq;
			return;
		}
	}
	if (k->nu == k->cu) {
		unsigned cap = k->cu ? k->cu * 2 : 4;
		struct rdep *u = realloc(k->u, cap * sizeof(*u));

		if (!u)
			return;
		k->u = u;
		k->cu = cap;
	}
	k->u[k->nu].w = self;
	k->u[k->nu++].seq = seq;
}

static void dt__struct(struct deptrack *dt, uint64_t key, uint32_t self, uint64_t seq,
		       struct depset *ds)
{
	struct kent *k = dt__get(dt, key);

	if (!k)
		return;
	if (k->sw)
		ds__add(ds, k->sw - 1, self, k->sseq);
	for (unsigned i = 0; i < k->nu; i++)
		ds__add(ds, k->u[i].w, self, k->u[i].seq);
	k->nu = 0;
	k->sw = self + 1;
	k->sseq = seq;
}

static uint64_t key_fd(uint32_t pid, int64_t fd)
{
	return replay_hash__key('F', pid, (uint64_t)fd);
}

static uint64_t key_path(const struct rpath *p)
{
	return replay_hash__key('P', (uintptr_t)p, 0);
}

/* a directory by name: a file made in it waits for the mkdir (or rename) that made it */
static uint64_t key_dir(const char *s, size_t n)
{
	return replay_hash__key('D', replay_hash__bytes(s, n), n);
}

/* a process's address space: mmap is structural on it, msync a use */
static uint64_t key_mem(uint32_t pid)
{
	return replay_hash__key('M', pid, 0);
}

static uint64_t key_async(const struct reel_op *op)
{
	return replay_hash__key('A', (uint64_t)op->pid << 32 ^ op->ctx, op->aux);
}

/* ---- workers ---- */

static int run__interrupted(const struct run *run)
{
	return run->o->interrupt && atomic_load(run->o->interrupt);
}

#define SLEEP_SLICE_NS 100000000ULL /* long sleeps look at the interrupt flag this often */
#define SLEEP_MIN_NS 30000ULL	    /* below ~ the wakeup latency of clock_nanosleep here */

static void sleep_until(const struct run *run, uint64_t t, int spin_us)
{
	uint64_t wake = t, now, to;
	struct timespec ts;

	if (spin_us >= 0)
		wake = t > (uint64_t)spin_us * 1000 ? t - (uint64_t)spin_us * 1000 : 0;
	/* a sleep shorter than the wakeup latency only makes the op late: wait on the clock */
	if (replay_now_ns() + SLEEP_MIN_NS >= t) {
		while (replay_now_ns() < t)
			;
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
		while (replay_now_ns() < t && !run__interrupted(run))
			;
	}
}

/* Hands the worker's batch to the writer thread, and takes an empty one. */
static void worker__flush(struct rworker *w)
{
	struct run *run = w->run;
	struct rbatch *b = w->out;

	if (!b || !b->n)
		return;
	pthread_mutex_lock(&run->blk);
	while (run->npending >= run->max_pending)
		pthread_cond_wait(&run->bspace, &run->blk);
	b->next = NULL;
	if (run->btail)
		run->btail->next = b;
	else
		run->bhead = b;
	run->btail = b;
	run->npending++;
	w->out = run->bfree;
	if (w->out)
		run->bfree = w->out->next;
	/*
	 * The writer polls every WRITER_POLL_NS: waking it for every batch cost the worker a
	 * futex wake-up and an IPI per RUN_BATCH ops (~80 ns per op as fast as possible, on a
	 * VM). Only a backlog that nears the cap, where workers would stall, wakes it early
	 * (staged: only the cap, the results are the pause's).
	 */
	if (run->npending >= (run->hold ? run->max_pending : run->max_pending / 4))
		pthread_cond_signal(&run->bcond);
	pthread_mutex_unlock(&run->blk);
	if (!w->out)
		w->out = malloc(sizeof(*w->out));
	if (w->out)
		w->out->n = 0;
}

/*
 * With a schedule to keep, the dispatcher and the writer are background work: nice 10, so
 * that a worker waking up for its op preempts them (zstd bursts would otherwise delay it).
 * As fast as possible, they are the pace: left alone.
 */
static void background__enter(const struct run *run)
{
	if (run->o->timing != REPLAY_TIMING_AFAP)
		setpriority(PRIO_PROCESS, (id_t)gettid(), 10);
}

/* latency and lateness histograms of one result op (the writer thread's only) */
static void writer__measure(struct run *run, const struct reel_op *res)
{
	int64_t late;

	/* a completion's start is its request's submission (FORMAT.md): no lateness of its own */
	if (res->type != REEL_OP_AIO_COMPLETE && res->type != REEL_OP_URING_COMPLETE) {
		late = (int64_t)(res->start_ns - res->sched_ns);
		replay_pctl__add(&run->lateness, late > 0 ? (uint64_t)late : 0);
	}
	if (res->type < REEL_OP__COUNT) {
		if (!run->lat[res->type])
			run->lat[res->type] = calloc(1, sizeof(struct replay_pctl));
		if (run->lat[res->type])
			replay_pctl__add(run->lat[res->type], res->end_ns - res->start_ns);
	}
}

/* at 1 M ops/s, 10 ms of results is 40 batches: far below RUN_MAX_PENDING_BATCHES */
#define WRITER_POLL_NS 10000000ULL

static void *writer__main(void *arg)
{
	struct run *run = arg;
	struct rbatch *b;
	int err;
	uint64_t cpu0 = thread_cpu_ns();

	background__enter(run);
	pthread_mutex_lock(&run->blk);
	for (;;) {
		/* held (a segment runs): a full backlog is written anyway, memory stays bounded */
		while (!run->bstop &&
		       (!run->bhead || (run->hold && run->npending < run->max_pending))) {
			uint64_t t = replay_now_ns() + WRITER_POLL_NS;
			struct timespec ts = {.tv_sec = (time_t)(t / 1000000000ULL),
					      .tv_nsec = (long)(t % 1000000000ULL)};

			pthread_cond_timedwait(&run->bcond, &run->blk, &ts);
		}
		b = run->bhead;
		if (!b)
			break;
		run->bhead = b->next;
		if (!run->bhead)
			run->btail = NULL;
		run->wbusy = 1;
		pthread_mutex_unlock(&run->blk);

		for (unsigned i = 0; i < b->n; i++)
			writer__measure(run, &b->ops[i]);
		pthread_mutex_lock(&run->wlock);
		for (unsigned i = 0; i < b->n; i++) {
			err = reel_writer__add(run->w, &b->ops[i]);
			if (err && !run->werr)
				run->werr = err;
		}
		pthread_mutex_unlock(&run->wlock);

		pthread_mutex_lock(&run->blk);
		b->next = run->bfree;
		run->bfree = b;
		run->npending--;
		run->wbusy = 0;
		pthread_cond_broadcast(&run->bspace);
		if (!run->bhead)
			pthread_cond_broadcast(&run->bdrained);
	}
	pthread_mutex_unlock(&run->blk);
	run->cpu_writer_ns = thread_cpu_ns() - cpu0; /* read after the join */
	return NULL;
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

	if (orig >= 0 && res->ret < 0)
		k = REPLAY_FAIL_NEW_ERROR;
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
	else
		return;
	errname(a, sizeof(a), orig);
	errname(b, sizeof(b), res->ret);
	snprintf(why, sizeof(why), "original %s, replay %s", a, b);
	exec__fail(w->run, k, res, p, why);
}

static void worker__retire(struct rworker *w, struct reel_op *res, int64_t orig,
			   const struct rpath *p, uint64_t seq)
{
	struct run *run = w->run;

	worker__check(w, res, orig, p);
	/* a completion's start is its request's submission (FORMAT.md): no lateness of its own */
	if (!is_async_complete(res->type))
		atomic_store_explicit(&w->last_late, (int64_t)(res->start_ns - res->sched_ns),
				      memory_order_relaxed);
	res->sched_ns -= run->t0;
	res->start_ns -= run->t0;
	res->end_ns -= run->t0;
	if (res->end_ns > w->last_end)
		w->last_end = res->end_ns;
	if (w->out) {
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
			worker__retire(w, &f->res, f->orig_ret, f->p, f->seq);
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

static void worker__drain(struct rworker *w)
{
	while (w->infl_n)
		worker__reap(w, 1, 0);
}

/* an in-flight request of this worker (not yet done) on the item's file whose bytes overlap
 * the item's, one of the two a write; by the path, or the fd when there is no path */
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

/*
 * Staged: this worker's part of the released segment is done (its queue is empty). Its
 * requests in flight and results are the segment's too; the last worker done wakes the
 * dispatcher (stage__run).
 */
static void worker__seg_done(struct rworker *w)
{
	struct run *run = w->run;

	worker__drain(w);
	worker__flush(w);
	if (w->last_seq > atomic_load_explicit(&w->done_seq, memory_order_relaxed))
		worker__publish(w, w->last_seq);
	w->seg_owed = 0;
	/* the last one done ends the segment; any other may leave a straggler (stage__wait) */
	atomic_fetch_sub(&run->seg_busy, 1);
	futex_wake(&run->seg_busy);
}

/*
 * Staged, the segment is cut short (stage__maybe_cut): this worker stops before its item at
 * h. Its released range ends there now (only the worker writes its tail while a segment
 * runs) and w->cur stays on that item, for the dispatcher to carry the rest over
 * (stage__carry); the workers waiting on one of those ops are woken to stop too (dep__wait).
 */
static void worker__cut(struct rworker *w, uint32_t h)
{
	atomic_store(&w->tail, h);
	w->tail_seen = h;
	worker__wake_waiters(w);
}

/*
 * Staged: this worker has run out of items. When little is left to the others (at most
 * 1/cut_div of the segment), they are told to stop at their next op: otherwise this core
 * idles until the slowest worker is done, inside the replay's timeline (a pause only starts
 * once all have stopped). Threads with unequal shares leave much when the first one runs
 * out: no cut then, and a thread with little to do idles through the segment as before.
 */
static void stage__maybe_cut(struct rworker *w)
{
	struct run *run = w->run;
	uint32_t nw, left = 0;

	if (!run->cut_div || !atomic_load(&run->seg_open) || atomic_load(&run->seg_cut) ||
	    atomic_load(&run->seg_busy) < 2 || run__interrupted(run))
		return;
	nw = atomic_load(&run->nworkers);
	for (uint32_t i = 0; i < nw; i++) {
		struct rworker *o = run->workers[i];

		left += atomic_load_explicit(&o->tail, memory_order_relaxed) -
			atomic_load_explicit(&o->head, memory_order_relaxed);
	}
	if ((uint64_t)left * run->cut_div <= run->seg_items)
		atomic_store(&run->seg_cut, 1);
}

/* an op finished synchronously: behind pending requests it waits its turn in the ring */
static void worker__finish(struct rworker *w, struct reel_op *res, int64_t orig,
			   const struct rpath *p, uint64_t seq, int skip)
{
	struct rinflight *f;

	if (!w->infl_n) {
		if (skip)
			worker__done(w, seq);
		else
			worker__retire(w, res, orig, p, seq);
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
	}
	w->infl_n++;
}

static void worker__wait_until(struct rworker *w, uint64_t t)
{
	int spin = w->run->o->spin_us;

	/* with requests in flight, wait for their completions instead of sleeping blind */
	while (w->infl_n && replay_now_ns() + (spin >= 0 ? (uint64_t)spin * 1000 : 0) < t)
		worker__reap(w, 1, t - (spin >= 0 ? (uint64_t)spin * 1000 : 0));
	sleep_until(w->run, t, spin);
}

/*
 * The next item was written by the dispatcher's core, and the next result slot was last read
 * by the writer's: fetched while this op's syscall runs, so that the bookkeeping after it does
 * not wait on other cores' caches (measured as fast as possible, page-cached 4 KiB preads:
 * -40 ns of the worker's CPU per op).
 */
static void worker__prefetch(const struct rworker *w, const struct reel_op *next_res)
{
	const char *item;

	if (w->run->staged) {
		uint32_t next = w->run->seg[w->cur].next;

		item = (const char *)&w->run->seg[next == RUN_SEG_NONE ? w->cur : next];
	} else {
		uint32_t h = atomic_load_explicit(&w->head, memory_order_relaxed) + 1;

		item = (const char *)&w->q[h % queue_cap];
	}

	/* the part queue__push copies; a slot need not start on a cache line */
	for (size_t l = 0; l < offsetof(struct ritem, deps) + 64; l += 64)
		__builtin_prefetch(item + l);
	if (next_res && w->out->n + 1 < RUN_BATCH)
		for (size_t l = 0; l < sizeof(*next_res) + 64; l += 64)
			__builtin_prefetch((const char *)next_res + l, 1);
}

/* Waits for the ops the item depends on. -1: the segment was cut short first (dep__wait). */
static int worker__wait_deps(struct rworker *w, const struct ritem *it)
{
	worker__drain(w); /* our pending ops may be what the others wait for */
	for (unsigned i = 0; i < it->ndeps; i++)
		if (dep__wait(w->run, &it->deps[i]))
			return -1;
	return 0;
}

static void *worker__main(void *arg)
{
	struct rworker *w = arg;
	struct run *run = w->run;
	const struct replay_opts *o = run->o;
	const struct ritem *it;
	struct reel_op lres, *res;
	uint64_t sched, end_abs;
	uint32_t tail;
	int r, waited;
	uint64_t cpu0 = thread_cpu_ns();

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	while ((it = queue__peek(w, &tail, &waited))) {
		const struct reel_op *op = &it->op;

		if (op->type == REEL_OP_NONE && (it->ndeps || op->subop == ITEM_ASYNC_WAIT)) {
			/* no op: the next item's dependencies beyond its own (disp__put_deps) */
			if (!run__interrupted(run) && worker__wait_deps(w, it))
				continue; /* cut short: queue__peek stops here */
			if (op->subop == ITEM_ASYNC_WAIT && !run__interrupted(run))
				async__wait(w, it); /* failing, the read comes out short: counted */
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
		/* nothing starts before time 0, in any mode: result times are relative to it */
		if (!w->have_prev && replay_now_ns() < run->t0)
			sleep_until(run, run->t0, -1);

		if (o->timing == REPLAY_TIMING_ORIGINAL) {
			sched = run->t0 + it->sched_rel;
		} else if (o->timing == REPLAY_TIMING_THINK && w->have_prev) {
			uint64_t gap =
			    op->start_ns > w->prev_orig_end ? op->start_ns - w->prev_orig_end : 0;
			sched = w->prev_end + (uint64_t)((double)gap / o->speed);
		} else if (o->timing == REPLAY_TIMING_THINK) {
			sched = run->t0 + it->sched_rel;
		} else if (!replay_clock__anchor(w) && w->have_prev && !waited && !w->infl_n) {
			/* afap: the op was queued before this worker was free again, so it was due
			 * when the previous op ended (same clock anchor): no clock read needed */
			sched = w->prev_end;
		} else {
			sched = worker__now(w);
		}
		if (o->timing != REPLAY_TIMING_AFAP)
			worker__wait_until(w, sched);
		if (it->ndeps && worker__wait_deps(w, it))
			continue; /* cut short: queue__peek stops here */
		if (w->eng_on) {
			if (!is_data(op->type))
				worker__drain(w);
			else
				worker__wait_own(w, it);
			while (w->infl_n == RUN_ASYNC_DEPTH)
				worker__reap(w, 1, 0);
		}
		/* measured straight into the result batch when it goes there next */
		res = w->out && !w->infl_n ? &w->out->ops[w->out->n] : &lres;
		worker__prefetch(w, res != &lres ? res + 1 : NULL);
		*res = *op;
		res->path = it->p1 ? it->p1->wid : 0;
		res->path2 = it->p2 ? it->p2->wid : 0;
		res->sched_ns = sched;
		r = exec__op(w, it, res);
		end_abs = res->end_ns; /* retiring makes res's times relative to t0 */
		if (r == 1) {
			struct rinflight *f =
			    &w->infl[(w->infl_head + w->infl_n - 1) % RUN_ASYNC_DEPTH];

			f->res.sched_ns = sched;
			f->orig_ret = op->ret;
			f->p = it->p1;
			f->skip = 0;
		} else {
			/* r == 2: its outcome is counted already; checked against itself */
			worker__finish(w, res, r == 2 ? res->ret : op->ret, it->p1, it->seq,
				       r < 0);
		}
		if (r >= 0) {
			w->prev_orig_end = op->end_ns > op->start_ns ? op->end_ns : op->start_ns;
			w->prev_end = r == 1 ? res->start_ns : end_abs;
			w->have_prev = 1;
		}
		queue__advance(w, tail);
		if (w->infl_n)
			worker__reap(w, 0, 0);
	}
	worker__drain(w);
	worker__flush(w);
	atomic_fetch_add(&run->cpu_workers_ns, thread_cpu_ns() - cpu0);
	return NULL;
}

static struct rworker *worker__new(struct run *run, uint32_t pid, uint32_t tid)
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
	if (!run->staged) /* staged: the segment buffer instead */
		w->q = malloc(queue_cap * sizeof(*w->q));
	w->out = malloc(sizeof(*w->out));
	if (!w->rp || (!w->q && !run->staged) || !w->out)
		goto fail;
	w->out->n = 0;
	w->use_tsc = replay_tsc_mult && run->o->timing == REPLAY_TIMING_AFAP &&
		     run->o->engine == REPLAY_ENGINE_SYNC;
	if (run->o->engine != REPLAY_ENGINE_SYNC) {
		w->infl = calloc(RUN_ASYNC_DEPTH, sizeof(*w->infl));
		if (!w->infl || replay_engine__init(&w->eng, run->o->engine, RUN_ASYNC_DEPTH))
			goto fail;
		w->eng_on = 1;
	}
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

/* ---- dispatcher ---- */

/*
 * A queue in an array, taken from at *head and added to at *n: room for one more at *n. The
 * part already taken is reclaimed before the array grows (doubled, from first elements).
 * 0, or -ENOMEM (nothing changed).
 */
static int fifo__room(void **buf, size_t esz, size_t *head, size_t *n, size_t *cap,
		      size_t first)
{
	void *grown;
	size_t c;

	if (*n < *cap)
		return 0;
	if (*head) {
		memmove(*buf, (char *)*buf + *head * esz, (*n - *head) * esz);
		*n -= *head;
		*head = 0;
		return 0;
	}
	c = *cap ? *cap * 2 : first;
	grown = realloc(*buf, c * esz);
	if (!grown)
		return -ENOMEM;
	*buf = grown;
	*cap = c;
	return 0;
}

/* an async request's completion: its key, and the op (worker, seq) */
struct adone {
	uint64_t key, seq;
	uint32_t w;
};

/* an async write submitted whose completion record is not dispatched yet (disp__async_io), or
 * such a read of a file the trace cuts (read set) */
struct awrite {
	struct rdep submit;
	struct rpath *p;
	uint64_t end;
	uint32_t pid;
	uint16_t type; /* the submit's */
	uint8_t read;
	uint64_t ctx, aux;
};

struct disp {
	struct run *run;
	struct reel_reader *r;
	struct replay_u64map workers; /* pid << 32 | tid -> worker index */
	struct replay_u64map paths;   /* reader path id -> struct rpath * */
	struct replay_u64map skipfd;  /* pid, fd of non-file fds */
	struct replay_u64map fdnames; /* key_fd -> struct rpath *: disp__fd_named */
	struct deptrack dt;
	/* completed async requests whose keys are kept until the completion is done, oldest
	 * first (disp__async_done) */
	struct adone *adone;
	size_t adone_head, nadone, capadone;
	uint64_t seq;
	uint64_t base;
	/* threads whose ops have all been dispatched hand their worker on to new threads */
	struct replay_u64map left; /* pid << 32 | tid -> ops not dispatched yet */
	uint32_t *idle;		   /* oldest first: the longest released is the likeliest done */
	size_t idle_head, nidle, capidle;
	/* the thread of the previous op (runs of one thread's ops are the rule): no lookups */
	uint64_t ctk;
	uint64_t *cleft;
	struct rworker *cw;
	int cvalid;
	uint32_t cpid; /* the last path id looked up (0: none), and its path */
	struct rpath *cpath;
	struct depset ds; /* disp__deps' (64 KiB: not on the stack) */
	/* async writes not reaped yet in the trace: submit seq -> struct awrite * */
	struct replay_u64map awrites;
	/* the requests of those the op being dispatched waits for (disp__put_deps): a cut
	 * waits for every one in flight that reached beyond it */
	const struct awrite **awaits;
	unsigned nawaits, capawaits;
	/* the paths with writers entries (replay_extent.c), swept of those done now and then */
	struct rpath **wpaths;
	size_t nwpaths, capwpaths;
	uint64_t wsince; /* writes since the last sweep */
	uint64_t wleft;	 /* entries the last sweep left */
	uint64_t wpeak;	 /* the most entries there were at once (IOREEL_TEST_EXTENT) */
};

static void run__meta(struct run *run, struct reel_reader *trace);

/* Puts item it at slot i of the segment (it may be there already), last in w's chain. */
static void seg__put(struct run *run, struct rworker *w, uint32_t i, const struct ritem *it)
{
	if (&run->seg[i] != it)
		memcpy(&run->seg[i], it,
		       offsetof(struct ritem, deps) + it->ndeps * sizeof(it->deps[0]));
	run->seg[i].next = RUN_SEG_NONE;
	run->seg[i].carry = 0;
	if (w->seg_first == RUN_SEG_NONE)
		w->seg_first = i;
	else
		run->seg[w->seg_last].next = i;
	w->seg_last = i;
}

/*
 * After a segment cut short: moves the items the workers left to the front of the buffer,
 * each worker's still chained in order, as the start of its part of the next segment.
 * Returns how many. Items only move towards the front, in buffer order: one pass does.
 */
static uint32_t stage__carry(struct run *run, uint32_t nw)
{
	uint32_t from = run->seg_n, n = 0;

	for (uint32_t i = 0; i < nw; i++) {
		struct rworker *w = run->workers[i];

		for (uint32_t j = w->cur; j != RUN_SEG_NONE; j = run->seg[j].next) {
			run->seg[j].carry = i + 1;
			if (j < from)
				from = j;
		}
		w->cur = RUN_SEG_NONE;
	}
	for (uint32_t j = from; j < run->seg_n; j++) {
		struct ritem *it = &run->seg[j];
		struct rworker *w;

		if (!it->carry)
			continue;
		w = run->workers[it->carry - 1];
		run->carried += it->op.type != REEL_OP_NONE; /* not a hand-over nor a wait item */
		seg__put(run, w, n++, it);
	}
	return n;
}

/*
 * Staged: a worker with a full share of the running segment (at least half the mean) has run
 * out, and others are not done. A thread the machine slowed down (another process on its
 * core, the host) keeps the rest waiting: this core would idle inside the replay's timeline,
 * where a loop of the trace's ops would go on with its next ones. A worker with a small share
 * (a thread with few ops) running out first is the trace's shape, not a straggler.
 */
static int stage__full_share_out(struct run *run, uint32_t nw, uint32_t busy)
{
	for (uint32_t i = 0; i < nw; i++) {
		struct rworker *w = run->workers[i];

		if (w->seg_share && (uint64_t)w->seg_share * busy * 2 >= run->seg_items &&
		    atomic_load_explicit(&w->head, memory_order_relaxed) ==
			atomic_load_explicit(&w->tail, memory_order_relaxed))
			return 1;
	}
	return 0;
}

/*
 * Waits until the workers are done with the segment released at t_rel. Once one with a full
 * share has run out, the others get STAGE_STRAGGLE_DIV-th of the segment's time so far (at
 * least STAGE_STRAGGLE_MIN_NS); then the segment is cut short, as stage__maybe_cut does when
 * little is left, and the rest carried over to the next one.
 */
#define STAGE_STRAGGLE_DIV 50
#define STAGE_STRAGGLE_MIN_NS 200000ULL

static void stage__wait(struct run *run, uint32_t nw, uint32_t busy, uint64_t t_rel)
{
	uint64_t deadline = 0, now;
	uint32_t v;

	while ((v = atomic_load(&run->seg_busy)) != 0) {
		if (v == busy || !run->cut_div || atomic_load(&run->seg_cut) ||
		    !stage__full_share_out(run, nw, busy)) {
			futex_wait(&run->seg_busy, v);
			continue;
		}
		now = replay_now_ns();
		if (!deadline) {
			uint64_t wait = (now - t_rel) / STAGE_STRAGGLE_DIV;

			deadline = now + (wait > STAGE_STRAGGLE_MIN_NS ? wait : STAGE_STRAGGLE_MIN_NS);
		}
		if (now >= deadline) {
			run->seg_straggler_cuts++;
			atomic_store(&run->seg_cut, 1); /* the workers stop at their next op */
			continue;
		}
		futex_wait_ns(&run->seg_busy, v, deadline - now);
	}
}

/*
 * Staged (afap): releases the segment read ahead into run->seg to the workers, waits until
 * they have done it, then lets the writer write its results while the dispatcher reads the
 * next one.
 * Reading the trace and writing results then never share the CPUs with the ops: as fast as
 * possible there is no idle core for them, and beside the ops they cost ~20 % of the rate
 * (tests/bench_replay/throughput.sh). The pause is left out of the result's timeline: time 0
 * moves on by it, so the next segment starts where this one ended.
 * Returns the number of items a cut left over, now at the front of the next segment.
 */
static uint32_t stage__run(struct disp *d)
{
	struct run *run = d->run;
	uint32_t nw = atomic_load(&run->nworkers), busy = 0, carried;
	uint64_t now, last = 0;

	for (uint32_t i = 0; i < nw; i++) {
		struct rworker *w = run->workers[i];

		busy += w->ptail != atomic_load_explicit(&w->tail, memory_order_relaxed);
		if (w->last_end > last)
			last = w->last_end;
	}
	if (!busy)
		return 0;
	/* the previous segment's results are all written before this one starts */
	pthread_mutex_lock(&run->blk);
	while (run->bhead || run->wbusy)
		pthread_cond_wait(&run->bdrained, &run->blk);
	run->hold = 1;
	pthread_mutex_unlock(&run->blk);

	now = replay_now_ns();
	if (!run->segments++) {
		__atomic_store_n(&run->t0, now, __ATOMIC_RELAXED);
		pthread_mutex_lock(&run->wlock);
		run__meta(run, d->r);
		pthread_mutex_unlock(&run->wlock);
	} else if (now > run->t0 + last) {
		/* read by the progress line (monitor__main) */
		__atomic_store_n(&run->paused_ns, run->paused_ns + now - (run->t0 + last),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&run->t0, now - last, __ATOMIC_RELAXED);
	}
	run->seg_items = run->seg_n;
	atomic_store(&run->seg_cut, 0);
	atomic_store(&run->seg_busy, busy);
	for (uint32_t i = 0; i < nw; i++) {
		struct rworker *w = run->workers[i];

		if (w->ptail == atomic_load_explicit(&w->tail, memory_order_relaxed))
			continue;
		w->seg_share = w->ptail - atomic_load_explicit(&w->tail, memory_order_relaxed);
		w->cur = w->seg_first; /* the worker's (idle) from here on */
		w->seg_first = RUN_SEG_NONE;
		/* seq_cst: the pair of queue__peek's cons_wait store and tail load */
		atomic_store(&w->tail, w->ptail);
		if (atomic_load(&w->cons_wait))
			futex_wake(&w->tail);
	}
	/* from here on the workers' tails are theirs to cut */
	atomic_store(&run->seg_open, 1);
	stage__wait(run, nw, busy, now);
	atomic_store(&run->seg_open, 0);
	for (uint32_t i = 0; i < nw; i++)
		run->workers[i]->seg_share = 0;
	carried = 0;
	if (atomic_load(&run->seg_cut)) {
		run->seg_cuts++;
		carried = stage__carry(run, nw);
	}
	run->seg_n = carried;

	pthread_mutex_lock(&run->blk);
	run->hold = 0;
	pthread_cond_signal(&run->bcond);
	pthread_mutex_unlock(&run->blk);
	return carried;
}

/* Queues an item: staged, into the segment being read ahead (a full one runs first). */
static void disp__push(struct disp *d, struct rworker *w, const struct ritem *it)
{
	struct run *run = d->run;

	if (!run->staged) {
		queue__push(w, it);
		return;
	}
	while (run->seg_n == run->seg_cap)
		stage__run(d);
	seg__put(run, w, run->seg_n++, it);
	w->ptail++;
}

/*
 * The dependency keys of the directories above p's parent that an op of the trace makes,
 * moves or removes: a path op waits for the last such op on any of them, and such an op for
 * the path ops below since, as for the parent (disp__deps). Worked out once per path, so that
 * the path ops below directories the trace leaves alone, most of them, pay nothing per op.
 */
static void path__above(struct rpath *p, const struct replay_fileset *fs)
{
	const char *s = p->orig, *slash = strrchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : 0; /* the parent's length */
	uint64_t *k;

	if (!fs->dirs_changed.n)
		return;
	while (n > 0) {
		while (n > 0 && s[n - 1] != '/')
			n--;
		if (n <= 1)
			break; /* the root: never made, moved nor removed */
		n--;	       /* the next directory up, without its '/' */
		if (!replay_u64map__get(&fs->dirs_changed, replay_hash__bytes(s, n)))
			continue;
		k = realloc(p->akeys, (p->nakeys + 1) * sizeof(*k));
		if (!k)
			return; /* out of memory: ordered below its parent only */
		p->akeys = k;
		p->akeys[p->nakeys++] = key_dir(s, n);
	}
}

static struct rpath *disp__path(struct disp *d, uint32_t id)
{
	uint64_t *v;
	char rel[PATH_MAX];
	struct rpath *p;
	const char *s;
	size_t plen;

	if (!id)
		return NULL;
	if (id == d->cpid)
		return d->cpath;
	v = replay_u64map__get(&d->paths, id);
	if (v) {
		d->cpid = id;
		d->cpath = (struct rpath *)(uintptr_t)*v;
		return d->cpath;
	}
	s = reel_reader__path(d->r, id);
	if (!s)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->orig = strdup(s);
	/* too long: marked, for the ops on it to fail as the kernel fails them; its rel must
	 * never resolve to anything, least of all the root ("." made a chmod the root's) */
	p->err = replay_mapper__map(d->run->m, s, &p->root, rel, sizeof(rel));
	p->rel = strdup(p->err ? "" : rel);
	/* what the file has before any write of the trace (replay_extent.c) */
	p->base = p->reach = p->err ? 0 : replay_fileset__size(d->run->fs, p->root, rel);
	p->nonfile = (uint8_t)replay_path__is_nonfile(s);
	{
		uint64_t *cv = d->run->fs->cut_names.n
				   ? replay_u64map__get(&d->run->fs->cut_names,
							replay_hash__bytes(s, strlen(s)))
				   : NULL;

		p->cut_later = !!cv;
		p->cut_last_ns = cv && *cv ? *cv - 1 : 0;
	}
	p->dkey = key_dir(s, strlen(s));
	p->pkey = key_dir(s, strrchr(s, '/') ? (size_t)(strrchr(s, '/') - s) : 0);
	path__above(p, d->run->fs);
	plen = strrchr(s, '/') ? (size_t)(strrchr(s, '/') - s) : 0;
	p->stable = !p->nakeys &&
		    !replay_u64map__get(&d->run->fs->dirs_changed, replay_hash__bytes(s, plen));
	pthread_mutex_lock(&d->run->wlock);
	reel_writer__path(d->run->w, s, &p->wid);
	pthread_mutex_unlock(&d->run->wlock);
	replay_u64map__put(&d->paths, id, (uintptr_t)p);
	return p;
}

static int op__is_open(unsigned t)
{
	return t == REEL_OP_OPEN || t == REEL_OP_OPENAT || t == REEL_OP_OPENAT2 ||
	       t == REEL_OP_CREAT;
}

static int op__is_dup(unsigned t)
{
	return t == REEL_OP_DUP || t == REEL_OP_DUP2 || t == REEL_OP_DUP3 ||
	       t == REEL_OP_FCNTL_DUPFD;
}

/* Non-file I/O (pipes, sockets, /proc...) is the application's think time: not replayed. */
static int disp__nonfile(struct disp *d, const struct reel_op *op, const struct rpath *p1)
{
	uint64_t fk = (uint64_t)op->pid << 32 | (uint32_t)op->fd;
	int kind_nonfile = op->fd_kind == REEL_FD_CHR || op->fd_kind == REEL_FD_FIFO ||
			   op->fd_kind == REEL_FD_SOCK || op->fd_kind == REEL_FD_OTHER;

	if (op__is_open(op->type)) {
		if ((p1 && p1->nonfile) || kind_nonfile) {
			if (op->ret >= 0)
				replay_u64map__put(&d->skipfd,
						   (uint64_t)op->pid << 32 | (uint32_t)op->ret, 1);
			return 1;
		}
		if (op->ret >= 0)
			replay_u64map__del(&d->skipfd, (uint64_t)op->pid << 32 | (uint32_t)op->ret);
		return 0;
	}
	if (replay_op__on_fd(op) && replay_u64map__get(&d->skipfd, fk)) {
		if (op->type == REEL_OP_CLOSE)
			replay_u64map__del(&d->skipfd, fk);
		else if (op__is_dup(op->type) && op->ret >= 0)
			replay_u64map__put(&d->skipfd, (uint64_t)op->pid << 32 | (uint32_t)op->ret,
					   1);
		return 1;
	}
	if (p1 && p1->nonfile)
		return 1;
	if (op->type == REEL_OP_MMAP && op->fd < 0)
		return 1;
	if (op->type == REEL_OP_CLOSE && kind_nonfile)
		return 1;
	return kind_nonfile && op->fd >= 0 && !reel_op__has_path(op->type);
}

static int op__is_link(unsigned t)
{
	return t == REEL_OP_LINK || t == REEL_OP_LINKAT;
}

static int op__is_symlink(unsigned t)
{
	return t == REEL_OP_SYMLINK || t == REEL_OP_SYMLINKAT;
}

/* a second name the op looks up (not a symlink's content, nor a copy's destination file) */
static const struct rpath *item__name2(const struct ritem *it)
{
	unsigned t = it->op.type;

	return t == REEL_OP_RENAME || t == REEL_OP_RENAMEAT || t == REEL_OP_RENAMEAT2 ||
		       op__is_link(t)
		   ? it->p2
		   : NULL;
}

/* an item of no op for thread pid/tid: a worker's hand-over to it, or (with deps) a wait */
static void item__none(struct ritem *it, uint32_t pid, uint32_t tid)
{
	memset(it, 0, offsetof(struct ritem, deps));
	it->op.type = REEL_OP_NONE;
	it->op.pid = pid;
	it->op.tid = tid;
}

/* an item that waits until aw's request has completed, before it (see ITEM_ASYNC_WAIT) */
static void disp__push_await(struct disp *d, const struct ritem *it, uint32_t self,
			     const struct awrite *aw)
{
	struct ritem wait;

	item__none(&wait, it->op.pid, it->op.tid);
	wait.op.subop = ITEM_ASYNC_WAIT;
	wait.op.pid = aw->pid;
	wait.op.ctx = aw->ctx;
	wait.op.aux = aw->aux;
	wait.op.offset = aw->submit.seq;
	wait.op.flags = aw->type;
	if (aw->submit.w != self)
		wait.deps[wait.ndeps++] = aw->submit;
	disp__push(d, d->run->workers[self], &wait);
}

/*
 * Gives the item its dependencies. More than fit in one item go first to the same worker,
 * RUN_MAX_DEPS at a time, in items of no op that only wait. The dispatcher never waits
 * for them itself: staged, the ops it would wait for can sit in the segment it is still
 * filling, which no worker runs before it is full (a replay that hung for good).
 */
static void disp__put_deps(struct disp *d, struct ritem *it, uint32_t self,
			   const struct depset *ds)
{
	unsigned i;

	/* staged, the workers are idle while a segment is read ahead (see worker__done); before
	 * any push below, which may run the segment */
	for (i = 0; i < ds->n && d->run->staged; i++) {
		struct rworker *o = d->run->workers[ds->d[i].w];

		if (ds->d[i].seq > o->dep_max)
			o->dep_max = ds->d[i].seq;
	}
	for (i = 0; i < d->nawaits && d->run->staged; i++) {
		struct rworker *o = d->run->workers[d->awaits[i]->submit.w];

		if (d->awaits[i]->submit.seq > o->dep_max)
			o->dep_max = d->awaits[i]->submit.seq;
	}
	for (i = 0; i < d->nawaits; i++)
		disp__push_await(d, it, self, d->awaits[i]);
	d->nawaits = 0;
	i = 0;
	while (ds->n - i > RUN_MAX_DEPS) {
		struct ritem wait;

		item__none(&wait, it->op.pid, it->op.tid);
		while (wait.ndeps < RUN_MAX_DEPS)
			wait.deps[wait.ndeps++] = ds->d[i++];
		disp__push(d, d->run->workers[self], &wait);
	}
	it->ndeps = 0;
	while (i < ds->n)
		it->deps[it->ndeps++] = ds->d[i++];
}

/* the dispatcher made the paths and alone keeps their extents: the workers never read them */
static struct rpath *path__own(const struct rpath *p)
{
	return (struct rpath *)p;
}

/*
 * An op waits for the write by (worker, seq). An async write whose completion record has not
 * been dispatched yet is done when its request is, which no op of the trace before this one
 * tells: the op waits for the request itself (an ITEM_ASYNC_WAIT item), after its submit.
 * Looked up only when the trace has such writes.
 */
static void disp__after_write(struct disp *d, const struct rdep *by, uint32_t self,
			      struct depset *ds)
{
	const struct awrite *aw;
	uint64_t *v;

	if (!d->awrites.n || !(v = replay_u64map__get(&d->awrites, by->seq))) {
		ds__add(ds, by->w, self, by->seq);
		return;
	}
	aw = (const struct awrite *)(uintptr_t)*v;
	for (unsigned i = 0; i < d->nawaits; i++)
		if (d->awaits[i] == aw)
			return;
	if (d->nawaits == d->capawaits) {
		unsigned cap = d->capawaits ? d->capawaits * 2 : 8;
		const struct awrite **a = realloc(d->awaits, cap * sizeof(*a));

		if (!a) {
			ds__add(ds, by->w, self, by->seq); /* after its submit at least */
			return;
		}
		d->awaits = a;
		d->capawaits = cap;
	}
	d->awaits[d->nawaits++] = aw;
}

/* a read of p's bytes up to end waits for the write of another thread that reached there */
static void disp__read_after(struct disp *d, const struct rpath *p, uint64_t end, uint32_t self,
			     struct depset *ds)
{
	const struct rdep *by = extent__writer(p, end);

	if (by)
		disp__after_write(d, by, self, ds);
}

/*
 * A write (or lengthening truncate, fallocate, copy, async write's submit) of p up to end:
 * one that makes p longer waits for another thread's cut; the next cut to less than end waits
 * for it (an async one by itself: its worker's later ops may be done before its request).
 */
static int disp__done(void *ctx, const struct rdep *by)
{
	const struct run *run = ctx;

	return atomic_load(&run->workers[by->w]->done_seq) >= by->seq;
}

/*
 * Drops the writers (and readers) entries of every path that are done (replay_extent.c):
 * without a cut they would pile up, one per worker and file written (or read, of a file the
 * trace cuts). Its cost is the entries and paths
 * listed, so it runs once as many writes as the last one left (and 4096 at least) have come.
 */
static void disp__sweep_writers(struct disp *d)
{
	uint64_t before = 0, left = 0;
	size_t n = 0;

	for (size_t i = 0; i < d->nwpaths; i++) {
		struct rpath *p = d->wpaths[i];
		uint32_t k;

		before += extent__nwriters(p);
		k = extent__drop_done(p, disp__done, d->run);
		left += k;
		if (k)
			d->wpaths[n++] = p;
		else
			p->wlisted = 0;
	}
	d->nwpaths = n;
	d->wleft = left;
	d->wsince = 0;
	if (before > d->wpeak)
		d->wpeak = before;
}

/* p may have a new writers entry: listed for the sweep, and the sweep run when it is due */
static void disp__writers_added(struct disp *d, struct rpath *p)
{
	if (p && !p->wlisted && extent__nwriters(p)) {
		if (d->nwpaths == d->capwpaths) {
			size_t cap = d->capwpaths ? d->capwpaths * 2 : 256;
			struct rpath **a = realloc(d->wpaths, cap * sizeof(*a));

			if (!a)
				return; /* not swept: its entries stay until a cut, as they may */
			d->wpaths = a;
			d->capwpaths = cap;
		}
		d->wpaths[d->nwpaths++] = p;
		p->wlisted = 1;
	}
	if (++d->wsince >= (d->wleft > 4096 ? d->wleft : 4096))
		disp__sweep_writers(d);
}

static void disp__wrote(struct disp *d, struct rpath *p, uint64_t end, uint32_t self, uint64_t seq,
			int async, struct depset *ds)
{
	if (end > p->reach) {
		ds__add(ds, p->cut.w, self, p->cut.seq);
		extent__grow(p, end, self, seq);
	}
	if (async)
		extent__wrote_async(p, end, self, seq);
	else
		extent__wrote(p, end, self, seq);
	disp__writers_added(d, p);
}

/*
 * A cut of p to len waits for the cut before it and for the writes of other threads that
 * reached beyond len: run after it, either would leave the file longer than the trace does.
 * And for their reads of bytes at or beyond len, which would come out short after it.
 */
static void disp__cut(struct disp *d, const struct rpath *p, uint64_t len, uint32_t self,
		      struct depset *ds)
{
	const struct rdep *by;
	uint32_t i = 0;

	ds__add(ds, p->cut.w, self, p->cut.seq);
	while ((by = extent__beyond(p, len, &i)))
		disp__after_write(d, by, self, ds);
	i = 0;
	while ((by = extent__read_beyond(p, len, &i)))
		disp__after_write(d, by, self, ds);
}

/* a read of p's bytes up to end: a later cut to less than end waits for it (when p is cut) */
static void disp__read(struct disp *d, struct rpath *p, uint64_t end, uint32_t self, uint64_t seq)
{
	if (p->cut_later) {
		extent__read(p, end, self, seq);
		disp__writers_added(d, p);
	}
}

/* an O_TRUNC open, a creat: the file by that name is empty, cut by this op */
static void disp__emptied(struct disp *d, struct rpath *p, uint32_t self, uint64_t seq,
			  struct depset *ds)
{
	disp__cut(d, p, 0, self, ds);
	extent__reset(p);
	p->cut.w = self;
	p->cut.seq = seq;
}

/*
 * An inserted range: the bytes from offset on move up by len, so the file ends len longer, as
 * if a write had reached there (a read of those last bytes waits for it, a cut waits for it).
 * It waits itself, as a cut does, for the writes of other threads before it that reached
 * beyond offset: run after it, one that made the file longer would leave it another length
 * (or the insert, offset still beyond the end, would fail).
 */
static void disp__insert_range(struct disp *d, const struct ritem *it, struct rpath *p,
			       uint32_t self, struct depset *ds)
{
	const struct rdep *by;
	uint32_t i = 0;

	while ((by = extent__beyond(p, it->op.offset, &i)))
		disp__after_write(d, by, self, ds);
	disp__wrote(d, p, p->reach + it->op.len, self, it->seq, 0, ds);
}

/* fallocate: mode 0 and a zeroed range make the file as long as a write would (unless told to
 * keep its size), an inserted range longer by its length, a collapsed range cuts it; the
 * other modes keep its size */
static void disp__fallocate(struct disp *d, struct ritem *it, struct rpath *p, uint32_t self,
			    struct depset *ds)
{
	const struct reel_op *op = &it->op;
	uint64_t end = op->offset + op->len;

	if (op->mode & FALLOC_FL_COLLAPSE_RANGE) {
		uint64_t len = p->reach > op->len ? p->reach - op->len : 0;

		disp__cut(d, p, len, self, ds);
		extent__truncate(p, len, self, it->seq);
	} else if (op->mode & FALLOC_FL_INSERT_RANGE) {
		if (op->len)
			disp__insert_range(d, it, p, self, ds);
	} else if (!(op->mode & ~FALLOC_FL_ZERO_RANGE)) {
		disp__wrote(d, p, end, self, it->seq, 0, ds);
	}
}

/*
 * An async request's data, by its submit (what it moves is in its completion record, not
 * known yet: the bytes asked for). A read waits as a read does. A write is a write by its
 * submit; until its completion record is dispatched (disp__async_reaped), a read or a cut
 * that needs it waits for its request (disp__after_write). An async read of a file the trace
 * cuts is kept so as well, for the cuts after it. A read, or a write within the file's length,
 * of a file the trace does not cut after it, is waited for by no op: ITEM_ASYNC_ANY.
 */
static void disp__async_io(struct disp *d, struct ritem *it, struct rpath *p, uint32_t self,
			   struct depset *ds)
{
	const struct reel_op *op = &it->op;
	int kind = async__kind(op);
	struct awrite *aw;

	if (!op->len)
		return;
	if ((kind == REPLAY_IO_READ ||
	     (kind == REPLAY_IO_WRITE && op->offset + op->len <= p->reach)) &&
	    (!p->cut_later || p->cut_last_ns < op->start_ns))
		it->flags |= ITEM_ASYNC_ANY;
	if (kind == REPLAY_IO_READ) {
		if (p->ext && op->offset + op->len > p->base)
			disp__read_after(d, p, op->offset + op->len, self, ds);
		if (!p->cut_later)
			return;
		extent__read_async(p, op->offset + op->len, self, it->seq);
		disp__writers_added(d, p);
	} else if (kind == REPLAY_IO_WRITE) {
		disp__wrote(d, p, op->offset + op->len, self, it->seq, 1, ds);
	} else {
		return;
	}
	aw = malloc(sizeof(*aw));
	if (!aw)
		return; /* what waits for it waits for its submit only */
	aw->submit.w = self;
	aw->submit.seq = it->seq;
	aw->p = p;
	aw->end = op->offset + op->len;
	aw->pid = op->pid;
	aw->type = op->type;
	aw->read = kind == REPLAY_IO_READ;
	aw->ctx = op->ctx;
	aw->aux = op->aux;
	if (replay_u64map__put(&d->awrites, it->seq, (uintptr_t)aw))
		free(aw);
}

/*
 * The completion record (worker self, seq) of the async request submitted by op sseq:
 * for a write, from now on the reads that need it wait for this record, which the request
 * was done by, and a cut beyond it for this record as well as the submit; for a read (of a
 * file the trace cuts), a cut for this record.
 */
static void disp__async_reaped(struct disp *d, uint64_t sseq, uint32_t self, uint64_t seq)
{
	struct awrite *aw;
	uint64_t *v;

	if (!d->awrites.n || !(v = replay_u64map__get(&d->awrites, sseq)))
		return;
	aw = (struct awrite *)(uintptr_t)*v;
	extent__reaped(aw->p, &aw->submit, self, seq);
	if (aw->read) {
		extent__read(aw->p, aw->end, self, seq);
	} else {
		extent__wrote(aw->p, aw->end, self, seq);
	}
	disp__writers_added(d, aw->p);
	replay_u64map__del(&d->awrites, sseq);
	free(aw);
}

/* ops besides reads and writes that read, lengthen, cut, replace or move a file */
static void disp__resize(struct disp *d, struct ritem *it, uint32_t self, struct depset *ds)
{
	const struct reel_op *op = &it->op;
	struct rpath *p = path__own(it->p1), *p2 = path__own(it->p2);
	uint64_t n = op->ret > 0 ? (uint64_t)op->ret : 0;

	switch (op->type) {
	case REEL_OP_OPEN:
	case REEL_OP_OPENAT:
	case REEL_OP_OPENAT2:
		if (op->flags & O_TRUNC)
			disp__emptied(d, p, self, it->seq, ds);
		else if (op->flags & O_EXCL)
			extent__reset(p);
		break;
	case REEL_OP_CREAT:
		disp__emptied(d, p, self, it->seq, ds);
		break;
	case REEL_OP_UNLINK:
	case REEL_OP_UNLINKAT:
		extent__reset(p);
		break;
	case REEL_OP_RENAME:
	case REEL_OP_RENAMEAT:
	case REEL_OP_RENAMEAT2:
		if (p2) {
			extent__move(p, p2, !!(op->flags & RENAME_EXCHANGE));
			disp__writers_added(d, p2);
			disp__writers_added(d, p);
		}
		break;
	case REEL_OP_TRUNCATE:
	case REEL_OP_FTRUNCATE:
		if (op->len > p->reach) { /* a lengthening one: as a write */
			disp__wrote(d, p, op->len, self, it->seq, 0, ds);
			break;
		}
		if (op->len < p->reach)
			disp__cut(d, p, op->len, self, ds);
		extent__truncate(p, op->len, self, it->seq);
		break;
	case REEL_OP_FALLOCATE:
		disp__fallocate(d, it, p, self, ds);
		break;
	case REEL_OP_AIO_SUBMIT:
	case REEL_OP_URING_SUBMIT:
		disp__async_io(d, it, p, self, ds);
		break;
	case REEL_OP_COPY_FILE_RANGE:
	case REEL_OP_SENDFILE:
		if (n && p->ext && op->offset + n > p->base)
			disp__read_after(d, p, op->offset + n, self, ds);
		if (n)
			disp__read(d, p, op->offset + n, self, it->seq);
		if (n && p2 && reel_op__copy_writes(op))
			disp__wrote(d, p2, op->aux + n, self, it->seq, 0, ds);
		break;
	}
}

/*
 * Data order across threads (replay_extent.c): a read waits for the write of another thread
 * that made its file as long as it read, a write that makes a file longer for the last cut of
 * another thread (a truncate, an O_TRUNC open), and a cut for the writes and reads of other
 * threads that reached beyond it. Writes after reads, and writes of the same bytes, stay
 * unordered: they change no outcome. On every op: a read of a file that no write made longer
 * than it was prepared (ext NULL) and that the trace never cuts costs the type's, the
 * pointer's and a flag's tests; a write, besides, the update of its worker's entry in the
 * file's writers (the one the last write used, as a rule), as a read of a file cut does in
 * its readers.
 */
static void disp__extent(struct disp *d, struct ritem *it, uint32_t self, struct depset *ds)
{
	const struct reel_op *op = &it->op;
	struct rpath *p = path__own(it->p1);
	uint64_t end = op->offset + (op->ret > 0 ? (uint64_t)op->ret : 0);
	unsigned t = op->type;

	if (!p || op->ret < 0)
		return;
	if (t >= REEL_OP_READ && t <= REEL_OP_PREADV2) {
		if (p->ext && end > p->base && op->ret)
			disp__read_after(d, p, end, self, ds);
		if (op->ret)
			disp__read(d, p, end, self, it->seq);
	} else if (t >= REEL_OP_WRITE && t <= REEL_OP_PWRITEV2) {
		if (op->ret)
			disp__wrote(d, p, end, self, it->seq, 0, ds);
	} else {
		disp__resize(d, it, self, ds);
	}
}

/*
 * An async request completed (by worker w, op seq): its key stays, so that the next submit
 * with the same id (aio_data, user_data: ids are reused, by any thread of the process) waits
 * for this completion; without it, that submit could go first, this completion reap the new
 * request, and the new request's completion find none. Keys whose completion is done are
 * dropped, oldest first (a submit then has nothing to wait for), so that ids used once do not
 * pile up: at most the completions read ahead and not yet done are kept (staged, done_seq
 * moves on at a segment's end for ops no item waits for: keys stay a segment longer).
 */
static void disp__async_done(struct disp *d, uint64_t key, uint32_t w, uint64_t seq)
{
	struct deptrack *dt = &d->dt;

	while (d->adone_head < d->nadone) {
		struct adone *a = &d->adone[d->adone_head];
		uint64_t *v;

		if (atomic_load(&d->run->workers[a->w]->done_seq) < a->seq)
			break;
		/* not when the id was submitted again since: that request is in flight */
		v = replay_u64map__get(&dt->idx, a->key);
		if (v && dt->k[*v].sseq < a->seq)
			dt__del(dt, a->key);
		d->adone_head++;
	}
	if (d->adone_head == d->nadone)
		d->adone_head = d->nadone = 0;
	if (fifo__room((void **)&d->adone, sizeof(*d->adone), &d->adone_head, &d->nadone,
		       &d->capadone, 256))
		return; /* the key stays for good */
	d->adone[d->nadone].key = key;
	d->adone[d->nadone].seq = seq;
	d->adone[d->nadone++].w = w;
}

/*
 * What an fd was opened by (the open's path, or that of the fd it was dup'ed from), for a
 * getdents64 whose op carries no name: ordered by the name of the directory it lists, as one
 * that carries it (disp__deps). Kept only when the trace has such listings (no fd paths: an
 * strace import, a recorder that could not tell them): a file-set scan finding. p NULL: the
 * fd is closed, or was made by an op that names nothing. An fd the process had before the
 * capture, or got from its parent across a fork (the trace records no forks), has no name
 * here: a listing through it stays unordered, as does one through an fd whose directory was
 * renamed since it was opened (the name is the open's).
 */
static void disp__fd_named(struct disp *d, uint32_t pid, int64_t fd, const struct rpath *p)
{
	if (!d->run->fs->unnamed_listings)
		return;
	if (p)
		replay_u64map__put(&d->fdnames, key_fd(pid, fd), (uintptr_t)p);
	else if (d->fdnames.n)
		replay_u64map__del(&d->fdnames, key_fd(pid, fd));
}

/* the path the fd of pid was opened by (disp__fd_named); NULL: not known */
static const struct rpath *disp__fd_name(const struct disp *d, uint32_t pid, int64_t fd)
{
	uint64_t *v = d->fdnames.n ? replay_u64map__get(&d->fdnames, key_fd(pid, fd)) : NULL;

	return v ? (const struct rpath *)(uintptr_t)*v : NULL;
}

/* the directory a getdents64 lists, by name: the one its op carries, else its fd's open's */
static const struct rpath *disp__listed_dir(const struct disp *d, const struct ritem *it)
{
	return it->p1 ? it->p1 : disp__fd_name(d, it->op.pid, it->op.fd);
}

/* op (worker self, seq) returned fd number key */
static void disp__bound(struct deptrack *dt, uint64_t key, const struct reel_op *op, uint32_t self,
			uint64_t seq)
{
	struct kent *k = dt__get(dt, key);

	if (!k)
		return;
	k->bw = self + 1;
	k->btid = op->tid;
	k->bseq = seq;
	k->bend = op->end_ns;
}

/*
 * A close that entered before another thread's open or dup returned its number again closed
 * the number's previous file: the trace, in exit order, has it after that open and maybe
 * after the new file's own ops and close. It waits for that open only, which set the file
 * aside for it (ITEM_RELEASED, fd__release), and leaves the number's order alone.
 */
static int disp__close_released(struct deptrack *dt, struct ritem *it, uint32_t self,
				struct depset *ds)
{
	const struct reel_op *op = &it->op;
	struct kent *k = dt__get(dt, key_fd(op->pid, op->fd));

	/* by thread, not by worker: a worker whose thread has ended takes on another */
	if (!k || !k->bw || k->btid == op->tid || op->start_ns >= k->bend)
		return 0;
	ds__add(ds, k->bw - 1, self, k->bseq);
	it->flags |= ITEM_RELEASED;
	return 1;
}

/* a path op uses the directories above p: its parent, and those further up that change */
static void disp__path_dirs(struct deptrack *dt, const struct rpath *p, uint32_t self, uint64_t seq,
			    struct depset *ds)
{
	dt__use(dt, p->pkey, self, seq, ds);
	for (uint32_t i = 0; i < p->nakeys; i++)
		dt__use(dt, p->akeys[i], self, seq, ds);
}

/*
 * open(O_CREAT) of a name that is there makes nothing: it uses the name as a plain open does,
 * and need not wait for the other threads' uses of it, nor they for it. Redis opens its log
 * with fopen("a") for every line, from the main thread and from each forked child: as a
 * structural op each such open tied the main thread's stream to the children's, and a
 * closed-loop replay stalled the main thread for a second until a child's log line was due.
 * Whether the name is there is known from the trace's own order of the ops on it (the last
 * one found or left it), and only where no directory above it comes or goes.
 */
static int open__makes_name(const struct ritem *it)
{
	const struct reel_op *op = &it->op;

	if (op->type == REEL_OP_CREAT || (op->flags & (O_TRUNC | O_EXCL)))
		return 1;
	if (!(op->flags & O_CREAT))
		return 0;
	return !(it->p1->stable && it->p1->exists);
}

/* what the op leaves of its names, in trace order (see open__makes_name) */
static void disp__names(struct ritem *it)
{
	const struct reel_op *op = &it->op;
	struct rpath *p = path__own(it->p1), *p2 = path__own(item__name2(it));
	unsigned t = op->type;

	if (!p || replay_op__on_fd(op))
		return;
	if (op->ret == -ENOENT)
		p->exists = 0;
	if (op->ret < 0)
		return;
	switch (t) {
	case REEL_OP_UNLINK:
	case REEL_OP_UNLINKAT:
	case REEL_OP_RMDIR:
		p->exists = 0;
		break;
	case REEL_OP_RENAME:
	case REEL_OP_RENAMEAT:
	case REEL_OP_RENAMEAT2:
		p->exists = !!(op->flags & RENAME_EXCHANGE);
		if (p2)
			p2->exists = 1;
		break;
	default:
		p->exists = 1;
		if (p2 && op__is_link(t))
			p2->exists = 1;
	}
}

static void disp__deps(struct disp *d, struct ritem *it, uint32_t self)
{
	const struct reel_op *op = &it->op;
	const struct rpath *p2 = item__name2(it), *dir;
	struct depset *ds = &d->ds;
	struct deptrack *dt = &d->dt;
	unsigned t = op->type;

	ds__clear(ds);

	/* a path op waits for what last made, moved or removed a directory above it */
	if (it->p1 && !replay_op__on_fd(op))
		disp__path_dirs(dt, it->p1, self, it->seq, ds);
	if (p2)
		disp__path_dirs(dt, p2, self, it->seq, ds);
	/* a symlink made may be used as a directory: what goes through it waits for it */
	if (it->p1 && (t == REEL_OP_MKDIR || t == REEL_OP_MKDIRAT || t == REEL_OP_RMDIR ||
		       t == REEL_OP_RENAME || t == REEL_OP_RENAMEAT || t == REEL_OP_RENAMEAT2 ||
		       op__is_symlink(t) || (t == REEL_OP_UNLINKAT && (op->flags & AT_REMOVEDIR))))
		dt__struct(dt, it->p1->dkey, self, it->seq, ds);
	if (p2)
		dt__struct(dt, p2->dkey, self, it->seq, ds);
	if (op__is_open(t)) {
		if (it->p1) {
			if (open__makes_name(it))
				dt__struct(dt, key_path(it->p1), self, it->seq, ds);
			else
				dt__use(dt, key_path(it->p1), self, it->seq, ds);
		}
		if (op->ret >= 0) {
			dt__struct(dt, key_fd(op->pid, op->ret), self, it->seq, ds);
			disp__fd_named(d, op->pid, op->ret, it->p1);
			disp__bound(dt, key_fd(op->pid, op->ret), op, self, it->seq);
		}
	} else if (t == REEL_OP_CLOSE) {
		/* a released close closed the number's previous file: the name is the new one's */
		if (!disp__close_released(dt, it, self, ds)) {
			dt__struct(dt, key_fd(op->pid, op->fd), self, it->seq, ds);
			disp__fd_named(d, op->pid, op->fd, NULL);
		}
	} else if (op__is_dup(t)) {
		dt__use(dt, key_fd(op->pid, op->fd), self, it->seq, ds);
		if (op->ret >= 0) {
			dt__struct(dt, key_fd(op->pid, op->ret), self, it->seq, ds);
			disp__fd_named(d, op->pid, op->ret, disp__fd_name(d, op->pid, op->fd));
			if (t != REEL_OP_DUP2 && t != REEL_OP_DUP3)
				disp__bound(dt, key_fd(op->pid, op->ret), op, self, it->seq);
		}
	} else if (t == REEL_OP_AIO_SUBMIT || t == REEL_OP_URING_SUBMIT) {
		if (op->fd >= 0)
			dt__use(dt, key_fd(op->pid, op->fd), self, it->seq, ds);
		dt__struct(dt, key_async(op), self, it->seq, ds);
	} else if (t == REEL_OP_AIO_COMPLETE || t == REEL_OP_URING_COMPLETE) {
		/* a use of its fd too: io_uring looks the fd up when it issues the request, which
		 * for an fsync (or any request it hands to a worker) is after the submit returned,
		 * so a close must wait for the reaping, as it did in the original */
		struct kent *k;

		if (op->fd >= 0)
			dt__use(dt, key_fd(op->pid, op->fd), self, it->seq, ds);
		dt__use(dt, key_async(op), self, it->seq, ds);
		k = dt__get(dt, key_async(op)); /* its submit's */
		if (k && k->sw)
			disp__async_reaped(d, k->sseq, self, it->seq);
		disp__async_done(d, key_async(op), self, it->seq);
	} else if (t == REEL_OP_MMAP || t == REEL_OP_MSYNC) {
		if (t == REEL_OP_MMAP && op->fd >= 0)
			dt__use(dt, key_fd(op->pid, op->fd), self, it->seq, ds);
		if (t == REEL_OP_MMAP)
			dt__struct(dt, key_mem(op->pid), self, it->seq, ds);
		else
			dt__use(dt, key_mem(op->pid), self, it->seq, ds);
	} else if (reel_op__is_copy(t)) {
		/* two fds: after the opens (or dups) of both */
		if (op->fd >= 0)
			dt__use(dt, key_fd(op->pid, op->fd), self, it->seq, ds);
		if (op->fd2 >= 0)
			dt__use(dt, key_fd(op->pid, op->fd2), self, it->seq, ds);
	} else if (op__is_link(t) && op->fd >= 0 && (op->flags & AT_EMPTY_PATH)) {
		/* linkat(fd, "", ..., AT_EMPTY_PATH): the old file is the fd's */
		dt__use(dt, key_fd(op->pid, op->fd), self, it->seq, ds);
		if (p2)
			dt__struct(dt, key_path(p2), self, it->seq, ds);
	} else if (it->p1 && !replay_op__on_fd(op)) {
		int structural = t == REEL_OP_UNLINK || t == REEL_OP_UNLINKAT ||
				 t == REEL_OP_RMDIR || t == REEL_OP_MKDIR || t == REEL_OP_MKDIRAT ||
				 t == REEL_OP_TRUNCATE || t == REEL_OP_RENAME ||
				 t == REEL_OP_RENAMEAT || t == REEL_OP_RENAMEAT2 ||
				 op__is_symlink(t);

		/* link: the old name is used, the new one made (p2, below) */
		if (structural)
			dt__struct(dt, key_path(it->p1), self, it->seq, ds);
		else
			dt__use(dt, key_path(it->p1), self, it->seq, ds);
		if (p2)
			dt__struct(dt, key_path(p2), self, it->seq, ds);
	} else if (op->fd >= 0) {
		dt__use(dt, key_fd(op->pid, op->fd), self, it->seq, ds);
		/* a listing sees the directory (its fd's name) before another thread's rmdir of
		 * it, and fails after it */
		if (t == REEL_OP_GETDENTS64 && (dir = disp__listed_dir(d, it)))
			dt__use(dt, dir->dkey, self, it->seq, ds);
	}
	disp__extent(d, it, self, ds);
	disp__names(it);
	disp__put_deps(d, it, self, ds);
}

static int disp__worker(struct disp *d, uint32_t pid, uint32_t tid, struct rworker **out)
{
	uint64_t k = (uint64_t)pid << 32 | tid;
	uint64_t *v = replay_u64map__get(&d->workers, k);
	struct rworker *w;

	if (v) {
		*out = d->run->workers[*v];
		return 0;
	}
	if (d->idle_head < d->nidle) {
		/* a worker whose thread has ended: it takes this thread on after its queue */
		struct ritem rebind;

		w = d->run->workers[d->idle[d->idle_head++]];
		if (d->idle_head == d->nidle)
			d->idle_head = d->nidle = 0;
		item__none(&rebind, pid, tid);
		disp__push(d, w, &rebind);
	} else {
		w = worker__new(d->run, pid, tid);
	}
	if (!w)
		return -EAGAIN;
	replay_u64map__put(&d->workers, k, w->idx);
	*out = w;
	return 0;
}

static int is_complete(unsigned t)
{
	return t == REEL_OP_AIO_COMPLETE || t == REEL_OP_URING_COMPLETE;
}

/* the thread's last op is dispatched: its worker can take on another thread */
static void disp__release(struct disp *d, uint64_t tk)
{
	uint64_t *v = replay_u64map__get(&d->workers, tk);

	if (!v)
		return;
	if (fifo__room((void **)&d->idle, sizeof(*d->idle), &d->idle_head, &d->nidle,
		       &d->capidle, 64))
		return; /* not reused then */
	d->idle[d->nidle++] = (uint32_t)*v;
	replay_u64map__del(&d->workers, tk);
}

/*
 * IOREEL_TEST_SEGMENT=ITEMS[,DIV], for tests only: segments of ITEMS items, cut short when
 * at most 1/DIV of one is left (DIV 1: whenever a worker runs out first; 0: never), so
 * that a small trace has many segments and cuts.
 */
static void stage__test_knob(struct run *run)
{
	const char *v = getenv("IOREEL_TEST_SEGMENT");
	unsigned long items, div;
	char *end;

	if (!v)
		return;
	items = strtoul(v, &end, 10);
	if (items >= 16 && items < run->seg_cap)
		run->seg_cap = (uint32_t)items;
	if (*end == ',') {
		div = strtoul(end + 1, &end, 10);
		run->cut_div = (uint32_t)div;
	}
}

static int disp__run(struct disp *d)
{
	struct run *run = d->run;
	struct rworker *w;
	struct ritem it;
	uint64_t at, tk, *left;
	int err, last;

	memset(&it, 0, sizeof(it));
	while ((err = reel_reader__next(d->r, &it.op)) != 0 && !run__interrupted(run)) {
		if (err < 0) {
			struct reel_damage dmg;
			char msg[640], what[512];

			run->sum->damaged++;
			if (run->o->notice) {
				reel_reader__damage(d->r, &dmg);
				snprintf(msg, sizeof(msg), "trace damaged at byte %llu: %s",
					 (unsigned long long)dmg.offset,
					 reel_damage__describe(&dmg, what, sizeof(what)));
				run->o->notice(run->o->cb_ctx, msg);
			}
			if (err == -REEL_E_TRUNCATED || err == -EIO)
				break;
			continue;
		}
		run->sum->ops_read++;
		tk = (uint64_t)it.op.pid << 32 | it.op.tid;
		if (!d->cvalid || tk != d->ctk) {
			d->cleft = replay_u64map__get(&d->left, tk);
			d->ctk = tk;
			d->cw = NULL;
			d->cvalid = 1;
		}
		left = d->cleft;
		last = left && *left && !--*left;
		it.p1 = disp__path(d, it.op.path);
		it.p2 = disp__path(d, it.op.path2);
		if (disp__nonfile(d, &it.op, it.p1)) {
			run->sum->ops_nonfile++;
			if (last) {
				disp__release(d, tk);
				d->cvalid = 0;
			}
			continue;
		}
		w = d->cw;
		err = w ? 0 : disp__worker(d, it.op.pid, it.op.tid, &w);
		d->cw = w;
		if (err) {
			replay_set_error("cannot start a worker thread for tid %u (max %d threads)",
					 it.op.tid, RUN_MAX_WORKERS);
			return err;
		}
		it.seq = ++d->seq;
		/* a completion record's start is its request's submission: it is due when it
		 * was reaped, its end (FORMAT.md, "Fields per op type") */
		at = is_complete(it.op.type) ? it.op.end_ns : it.op.start_ns;
		it.sched_rel =
		    at > d->base ? (uint64_t)((double)(at - d->base) / run->o->speed) : 0;
		it.flags = 0;
		disp__deps(d, &it, w->idx);
		disp__push(d, w, &it);
		if (last) {
			disp__release(d, tk);
			d->cvalid = 0;
		}
	}
	return 0;
}

static void *monitor__main(void *arg)
{
	struct run *run = arg;
	struct replay_progress p;
	uint64_t t0, orig_span = run->fs->last_start_ns > run->fs->first_start_ns
				 ? run->fs->last_start_ns - run->fs->first_start_ns
				 : 0;

	while (!atomic_load(&run->stop)) {
		struct timespec ts = {0, 250000000};
		uint64_t now;

		nanosleep(&ts, NULL);
		if (atomic_load(&run->stop))
			break;
		memset(&p, 0, sizeof(p));
		now = replay_now_ns();
		for (uint32_t i = 0; i < atomic_load(&run->nworkers); i++)
			p.ops_done += atomic_load(&run->workers[i]->ops_done);
		p.ops_total = run->fs->nops - run->sum->ops_nonfile;
		t0 = __atomic_load_n(&run->t0, __ATOMIC_RELAXED); /* staged: moves by the pauses */
		p.elapsed_ns = now > t0 ? now - t0 : 0;
		if (run->o->timing == REPLAY_TIMING_ORIGINAL) {
			uint64_t end = (uint64_t)((double)orig_span / run->o->speed);

			p.left_ns = end > p.elapsed_ns ? end - p.elapsed_ns : 0;
		} else if (p.ops_done && p.ops_total > p.ops_done) {
			/* at the pace so far, pauses between segments included: wall time left */
			uint64_t wall = p.elapsed_ns +
					__atomic_load_n(&run->paused_ns, __ATOMIC_RELAXED);

			p.left_ns = (uint64_t)((double)wall / (double)p.ops_done *
					       (double)(p.ops_total - p.ops_done));
		}
		/* of each thread's latest op, the latest start past its schedule */
		for (uint32_t i = 0; i < atomic_load(&run->nworkers); i++) {
			int64_t l =
			    atomic_load_explicit(&run->workers[i]->last_late, memory_order_relaxed);

			if (!i || l > p.lateness_ns)
				p.lateness_ns = l;
		}
		p.failures = atomic_load(&run->failures);
		run->o->progress(run->o->cb_ctx, &p);
	}
	return NULL;
}

static void meta__set(struct run *run, const char *k, const char *v)
{
	reel_writer__meta(run->w, k, v);
}

/* a decimal meta value of the result (FORMAT.md, "Meta keys") */
static void meta__u64(struct reel_writer *w, const char *key, uint64_t v)
{
	char num[24];

	snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
	reel_writer__meta(w, key, num);
}

static void run__meta(struct run *run, struct reel_reader *trace)
{
	const struct replay_opts *o = run->o;
	const char *of_start = reel_reader__meta(trace, REEL_META_START_WALL_NS);
	char buf[8192];
	struct utsname u;
	struct timespec rt;
	size_t off = 0;

	meta__set(run, REEL_META_TOOL, "ioreel replay 0.1");
	meta__set(run, REEL_META_REPLAY_OF, o->trace);
	if (of_start)
		meta__set(run, REEL_META_REPLAY_OF_START, of_start);
	for (int i = 0; i < run->m->n_roots && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? "," : "",
					run->m->roots[i].dir);
	meta__set(run, REEL_META_REPLAY_TARGETS, buf);
	off = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < o->n_maps && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s=%s", i ? "," : "",
					o->maps[i].from, o->maps[i].to);
	if (o->n_maps)
		meta__set(run, "replay.map", buf);
	meta__set(run, REEL_META_REPLAY_ENGINE, replay_engine__name(o->engine));
	meta__set(run, REEL_META_REPLAY_TIMING, replay_timing__name(o->timing));
	snprintf(buf, sizeof(buf), "%g", o->speed);
	meta__set(run, REEL_META_REPLAY_SPEED, buf);
	if (o->spin_us == REPLAY_SPIN_ALWAYS)
		snprintf(buf, sizeof(buf), "always");
	else
		snprintf(buf, sizeof(buf), "%d", o->spin_us);
	meta__set(run, "replay.spin_us", buf);
	meta__set(run, "replay.cold", o->cold ? "1" : "0");
	meta__set(run, "replay.direct", o->direct_keep ? "keep" : "drop");
	if (!uname(&u)) {
		meta__set(run, REEL_META_HOST, u.nodename);
		meta__set(run, REEL_META_KERNEL, u.release);
	}
	clock_gettime(CLOCK_REALTIME, &rt);
	/* time 0 of the result is t0; map it onto the wall clock */
	snprintf(buf, sizeof(buf), "%llu",
		 (unsigned long long)((uint64_t)rt.tv_sec * 1000000000ULL + (uint64_t)rt.tv_nsec +
				      (run->t0 - replay_now_ns())));
	meta__set(run, REEL_META_START_WALL_NS, buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)run->t0);
	meta__set(run, REEL_META_START_MONO_NS, buf);
}

static void run__summary(struct run *run, struct replay_summary *s)
{
	uint64_t last_end = 0;

	for (int k = 0; k < REPLAY_FAIL__COUNT; k++)
		s->fail[k] = atomic_load(&run->fail[k]);
	s->noop_closes = atomic_load(&run->noop_closes);
	s->xattr_ops = run->xattr_ops;
	s->direct_dropped = atomic_load(&run->direct_dropped);
	s->direct_failed = atomic_load(&run->direct_failed);
	s->threads = atomic_load(&run->nworkers);
	s->ops_issued = 0;
	for (uint32_t i = 0; i < s->threads; i++) {
		struct rworker *w = run->workers[i];

		s->ops_issued += w->issued;
		if (w->last_end > last_end)
			last_end = w->last_end;
	}
	replay_pctl__summary(&run->lateness, &s->lateness);
	for (unsigned t = 0; t < REEL_OP__COUNT; t++) {
		if (run->lat[t])
			replay_pctl__summary(run->lat[t], &s->lat[t]);
		else
			memset(&s->lat[t], 0, sizeof(s->lat[t]));
	}
	s->duration_ns = last_end;
	s->cpu_workers_ns = atomic_load(&run->cpu_workers_ns);
	s->cpu_dispatch_ns = run->cpu_dispatch_ns;
	s->cpu_writer_ns = run->cpu_writer_ns;
	s->segments = run->segments;
	s->paused_ns = run->paused_ns;
	s->seg_cuts = run->seg_cuts;
	s->seg_straggler_cuts = run->seg_straggler_cuts;
	s->carried = run->carried;
	s->orig_duration_ns = run->fs->last_end_ns > run->fs->first_start_ns
				  ? run->fs->last_end_ns - run->fs->first_start_ns
				  : 0;
}

static void run__free(struct run *run, struct disp *d)
{
	for (uint32_t i = 0; i < atomic_load(&run->nworkers); i++) {
		struct rworker *w = run->workers[i];

		exec__pcache_clear(w);
		if (w->eng_on)
			replay_engine__cleanup(&w->eng);
		for (unsigned j = 0; w->infl && j < RUN_ASYNC_DEPTH; j++)
			free(w->infl[j].io.buf);
		free(w->infl);
		free(w->buf);
		free(w->out);
		free(w->q);
		free(w);
	}
	async__free_all(run);
	replay_u64map__free(&run->fd_oflags);
	mmaps__free(run);
	if (run->devnull >= 0)
		close(run->devnull);
	for (int t = 0; t < REEL_OP__COUNT; t++)
		free(run->lat[t]);
	for (size_t i = 0; i < run->pids.cap; i++) {
		if (run->pids.used[i]) {
			struct rpid *rp = (struct rpid *)(uintptr_t)run->pids.v[i];

			for (int pg = 0; pg < RUN_FD_MAX / RUN_FD_PAGE; pg++) {
				_Atomic int32_t *p = atomic_load(&rp->page[pg]);

				for (int i = 0; p && i < RUN_FD_PAGE; i++) {
					if (atomic_load(&p[i]) >= 0)
						close(atomic_load(&p[i]));
				}
				free(p);
			}
			for (uint32_t j = 0; j < rp->nrel; j++)
				close((int)(uint32_t)rp->rel[j]);
			free(rp->rel);
			free(rp);
		}
	}
	replay_u64map__free(&run->pids);
	for (size_t i = 0; i < d->paths.cap; i++) {
		if (d->paths.used[i]) {
			struct rpath *p = (struct rpath *)(uintptr_t)d->paths.v[i];

			free(p->orig);
			free(p->rel);
			free(p->akeys);
			extent__reset(p);
			free(p);
		}
	}
	replay_u64map__free(&d->paths);
	replay_u64map__free(&d->workers);
	replay_u64map__free(&d->left);
	free(d->idle);
	replay_u64map__free(&d->skipfd);
	replay_u64map__free(&d->fdnames);
	dt__free(&d->dt);
	free(d->adone);
	for (size_t i = 0; i < d->awrites.cap; i++)
		if (d->awrites.used[i])
			free((void *)(uintptr_t)d->awrites.v[i]);
	replay_u64map__free(&d->awrites);
	free(d->awaits);
	free(d->wpaths);
}

/*
 * IOREEL_TEST_EXTENT, for tests only: says, as a notice, the most writers entries the
 * dispatcher kept at once (they only grow between sweeps: the most before one, or at the end)
 */
static void disp__extent_stats(struct disp *d)
{
	uint64_t n = 0;
	char msg[96];

	if (!getenv("IOREEL_TEST_EXTENT") || !d->run->o->notice)
		return;
	for (size_t i = 0; i < d->nwpaths; i++)
		n += extent__nwriters(d->wpaths[i]);
	snprintf(msg, sizeof(msg), "test: writers entries at most %llu, at the end %llu",
		 (unsigned long long)(n > d->wpeak ? n : d->wpeak), (unsigned long long)n);
	d->run->o->notice(d->run->o->cb_ctx, msg);
}

/* Streams the trace to the workers and waits for them; the result is written meanwhile. */
int replay_run__replay(const struct replay_opts *o, const struct replay_mapper *m,
		       const struct replay_fileset *fs, struct replay_summary *sum)
{
	/* aligned: the fields every worker reads at every op keep a cache line of their own */
	struct run *run = aligned_alloc(_Alignof(struct run), sizeof(*run));
	struct disp d = {0};
	pthread_t mon, wth;
	int err, mon_on = 0, wth_on = 0, prio;
	uint64_t cpu0;
	size_t prespawn, nqueues;

	if (!run)
		return -ENOMEM;
	memset(run, 0, sizeof(*run));
	run->o = o;
	run->m = m;
	run->fs = fs;
	run->sum = sum;
	pthread_mutex_init(&run->lock, NULL);
	pthread_mutex_init(&run->wlock, NULL);
	pthread_mutex_init(&run->blk, NULL);
	{
		pthread_condattr_t ca; /* the writer's poll deadline is on CLOCK_MONOTONIC */

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&run->bcond, &ca);
		pthread_condattr_destroy(&ca);
	}
	pthread_cond_init(&run->bspace, NULL);
	pthread_cond_init(&run->bdrained, NULL);
	if (mmaps__init(run)) {
		free(run);
		return -ENOMEM;
	}
	/* opened once, whether or not a sendfile needs it: -1 makes those fail, counted */
	run->devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	d.run = run;
	d.base = fs->first_start_ns;
	/*
	 * Bounded memory whatever the thread count: ~64 MiB of queued ops at most, over the
	 * queues that can exist at once. Workers of ended threads are handed on, so there are at
	 * most as many as threads alive at once, plus those started ahead for threads that have
	 * not begun yet (prespawn).
	 */
	prespawn = fs->max_live < RUN_PRESPAWN ? fs->max_live : RUN_PRESPAWN;
	nqueues = fs->max_live + prespawn;
	if (nqueues > fs->ntids)
		nqueues = fs->ntids;
	if (nqueues > RUN_MAX_WORKERS)
		nqueues = RUN_MAX_WORKERS;
	queue_spins = fs->ntids + 2 <= (size_t)sysconf(_SC_NPROCESSORS_ONLN) * 2 ? QUEUE_SPINS : 0;
	queue_cap = RUN_QUEUE_CAP;
	while (queue_cap > 16 && (uint64_t)queue_cap * sizeof(struct ritem) * nqueues >
				     RUN_QUEUE_BUDGET)
		queue_cap /= 2;
	run->max_pending = RUN_MAX_PENDING_BATCHES;
	run->staged = o->timing == REPLAY_TIMING_AFAP;
	if (run->staged) {
		/* one segment buffer for all threads, whatever their number; its results wait for
		 * the pause (with a part-filled batch per worker) */
		run->seg_cap = RUN_STAGE_BUDGET / sizeof(struct ritem);
		run->cut_div = RUN_CUT_DIV;
		stage__test_knob(run);
		run->seg = malloc((size_t)run->seg_cap * sizeof(struct ritem));
		if (!run->seg) {
			err = -ENOMEM;
			replay_set_error("cannot allocate the segment buffer");
			goto out;
		}
		run->max_pending = run->seg_cap / RUN_BATCH + RUN_PRESPAWN; /* ~19 MiB */
	}
	if (o->timing == REPLAY_TIMING_AFAP)
		replay_clock__calibrate();
	err = reel_writer__open(o->result, NULL, &run->w);
	if (err) {
		replay_set_error("cannot create result %s: %s", o->result, reel_strerror(err));
		goto out;
	}
	err = reel_reader__open(o->trace, &d.r);
	if (err) {
		replay_set_error("cannot open trace %s: %s", o->trace, reel_strerror(err));
		goto out;
	}
	if (reel_reader__meta(d.r, REEL_META_CAPTURE_XATTR_OPS))
		run->xattr_ops =
		    strtoull(reel_reader__meta(d.r, REEL_META_CAPTURE_XATTR_OPS), NULL, 10);
	/* the files open before the capture with O_DIRECT, O_DSYNC or O_SYNC: their fds are
	 * opened so when first used (exec__fd_of); without the list, as before */
	if (replay_u64map__load_fd_list(&run->fd_oflags,
					reel_reader__meta(d.r, REEL_META_CAPTURE_FD_FLAGS), 8)) {
		err = -ENOMEM;
		replay_set_error("out of memory");
		goto out;
	}
	if (pthread_create(&wth, NULL, writer__main, run)) {
		err = -EAGAIN;
		replay_set_error("cannot start the result writer thread");
		goto out;
	}
	wth_on = 1;
	/* workers first, so that thread creation does not make the first ops late */
	for (size_t i = 0; i < fs->ntids; i++) {
		if (replay_u64map__put(&d.left, fs->tids[i], fs->tid_ops[i])) {
			err = -ENOMEM;
			goto stop;
		}
	}
	for (size_t i = 0; i < fs->ntids && i < prespawn; i++) {
		struct rworker *w;

		err = disp__worker(&d, (uint32_t)(fs->tids[i] >> 32), (uint32_t)fs->tids[i], &w);
		if (err) {
			replay_set_error("cannot start worker thread %zu: %s", i, strerror(-err));
			goto stop;
		}
	}
	run->t0 = replay_now_ns() + 20000000ULL;
	if (!run->staged) /* staged: time 0 is the first segment's release (stage__run) */
		run__meta(run, d.r);
	if (o->progress && !pthread_create(&mon, NULL, monitor__main, run))
		mon_on = 1;
	prio = getpriority(PRIO_PROCESS, (id_t)gettid());
	background__enter(run);
	cpu0 = thread_cpu_ns();
	err = disp__run(&d);
	if (run->staged && !err)
		while (stage__run(&d)) /* the last segment, and what cuts leave of it */
			;
	if (run->staged && !run->segments)
		run__meta(run, d.r); /* nothing was replayed */
	disp__extent_stats(&d);
	reel_reader__damage_sum(d.r, &run->sum->damage);
	run->cpu_dispatch_ns = thread_cpu_ns() - cpu0;
	setpriority(PRIO_PROCESS, (id_t)gettid(), prio);
stop:
	for (uint32_t i = 0; i < atomic_load(&run->nworkers); i++) {
		struct rworker *w = run->workers[i];

		atomic_store(&w->eof, 1);
		futex_wake(&w->tail);
	}
	for (uint32_t i = 0; i < atomic_load(&run->nworkers); i++)
		pthread_join(run->workers[i]->th, NULL);
	atomic_store(&run->stop, 1);
	if (mon_on)
		pthread_join(mon, NULL);
	if (wth_on) {
		pthread_mutex_lock(&run->blk);
		run->bstop = 1;
		pthread_cond_signal(&run->bcond);
		pthread_mutex_unlock(&run->blk);
		pthread_join(wth, NULL);
	}
	while (run->bfree || run->bhead) {
		struct rbatch *b = run->bfree ? run->bfree : run->bhead;

		if (b == run->bfree)
			run->bfree = b->next;
		else
			run->bhead = b->next;
		free(b);
	}
	run__summary(run, sum);
	sum->interrupted = run__interrupted(run);
	meta__u64(run->w, "replay.direct_dropped", sum->direct_dropped);
	meta__u64(run->w, "replay.nonfile_ops", sum->ops_nonfile);
	meta__u64(run->w, "replay.cpu_ns.workers", sum->cpu_workers_ns);
	meta__u64(run->w, "replay.cpu_ns.dispatch", sum->cpu_dispatch_ns);
	if (run->staged) {
		meta__u64(run->w, "replay.segments", sum->segments);
		meta__u64(run->w, "replay.paused_ns", sum->paused_ns);
		meta__u64(run->w, "replay.segments_cut", sum->seg_cuts);
		meta__u64(run->w, "replay.segments_cut_straggler", sum->seg_straggler_cuts);
		meta__u64(run->w, "replay.carried_ops", sum->carried);
	}
	/* the writer's time up to the footer: all but the close that writes it */
	meta__u64(run->w, "replay.cpu_ns.writer", sum->cpu_writer_ns);
	/* beside the CPU times: did the replay fill the machine (report: "cpu_bound")? */
	{
		char num[24];

		snprintf(num, sizeof(num), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
		reel_writer__meta(run->w, "replay.cpus", num);
	}
	if (!err && run->werr) {
		err = run->werr;
		replay_set_error("cannot write result %s: %s", o->result, reel_strerror(err));
	}
out:
	if (run->w) {
		int e = reel_writer__close(run->w);

		if (!err && e) {
			err = e;
			replay_set_error("cannot finish result %s: %s", o->result,
					 reel_strerror(e));
		}
	}
	if (d.r)
		reel_reader__close(d.r);
	run__free(run, &d);
	pthread_mutex_destroy(&run->lock);
	pthread_mutex_destroy(&run->wlock);
	pthread_mutex_destroy(&run->blk);
	pthread_cond_destroy(&run->bcond);
	pthread_cond_destroy(&run->bspace);
	pthread_cond_destroy(&run->bdrained);
	free(run->seg);
	free(run);
	return err;
}
