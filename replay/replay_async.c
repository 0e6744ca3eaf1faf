/* SPDX-License-Identifier: MIT */
/*
 * replay_async.c - the trace's own asynchronous I/O, replayed as asynchronous I/O.
 *
 * Each traced AIO context or io_uring ring (per process) becomes one replay context of the
 * same kind (libaio for AIO_*, io_uring for URING_*), whatever --engine says. A SUBMIT
 * record queues and submits its request at its recorded time; a COMPLETE record, at its
 * recorded time, waits until its own request (matched by aio_data / user_data; of several of
 * one id in flight, the one submitted when the record says, else the oldest: FORMAT.md) has
 * completed, or, when no other op waits for that request, takes another that has completed
 * (async__complete). So the queue depth is the original one, and a request is measured from its
 * submission to when it really completed (io_uring: posted, as recorded), or, libaio, to when
 * its thread reaped it, as recorded (actx__reaped_at): each context has a reaper thread that
 * takes completions as they come and stamps them. Reaped only when the trace's completion
 * was due, no request could look faster than the original's (on tmpfs a 16 KiB io_uring
 * write took the original's 640 us), and one finished meanwhile was stamped with the time
 * it was found.
 * For io_uring the thread at a completion record waits in the kernel and takes completions
 * itself, and a submitting thread those its submission brought, the reaper then taking only
 * those that come while no thread does (actx__take). For libaio a submitting thread takes
 * those posted by the end of its io_submit (actx__peek).
 * A context is shared by the threads of its process: a mutex guards the submissions and the
 * requests' table; the reaper waits for completions without it.
 */
#include <errno.h>
#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "replay_run.h"

#define ACTX_DEPTH 256
#define ACTX_PEEK 64 /* completions the submitting thread takes at once (actx__peek) */
/*
 * Requests one id keeps for its completion records, at most: more than the context holds in
 * flight are requests whose records the trace does not have (a capture that lost them, an
 * id submitted again while in flight with one record for both); the oldest go.
 */
#define ACTX_ID_KEEP (2 * ACTX_DEPTH)

struct areq {
	struct replay_io io;
	uint64_t seq; /* its submit's, in trace order: tells it from a later request of its id */
	uint64_t orig_submit; /* its submit record's start_ns: its completion record's start */
	struct areq *next_id; /* the request of its id submitted after it (ractx.reqs) */
	uint64_t submit_ns;
	uint64_t submit_end; /* when its submission returned: it is not done before, as recorded */
	uint64_t t0; /* the replay's time 0 then: as fast as possible it moves on by the pauses
			between segments, which a request in flight across one must not count */
	uint64_t t0_done; /* and when it was reaped */
	/* set last by whoever reaps it (without c->lock), after ret, done_ns and t0_done:
	 * seen set, those are too */
	atomic_int done;
	/* the replay's submission failed (io.ret: its error), counted at the submit record: its
	 * completion record takes that error, not counted again (async__complete) */
	int refused;
	int any; /* no other op waits for it (ITEM_ASYNC_ANY) */
	uint64_t aux;	/* its id, and its kind, as the trace has them */
	uint32_t subop;
	struct areq *next_orphan; /* on ractx.orphans */
	size_t cap;		  /* io.buf's size */
};

struct ractx {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* a request was reaped: broadcast only when waiters */
	pthread_cond_t work; /* a request was submitted, or stop: the parked reaper's wake-up */
	struct replay_engine eng;
	int ok;
	int reaping; /* the reaper thread runs */
	atomic_int stop;
	pthread_t reaper;
	struct run *run;
	/* aux -> the requests of that id not taken by a completion record yet, oldest first,
	 * chained by next_id: an application may give several in flight one id (io_uring's
	 * user_data is its own to choose; an strace import's aio_data, which fio leaves 0) */
	struct replay_u64map reqs;
	/* submitted, not reaped yet: raised under lock, lowered by whoever reaps, without it */
	atomic_uint inflight;
	/*
	 * Completions are marked without c->lock, and cond is woken only when a thread waits
	 * there (waiters): at ~150k requests/s (fio, io_uring, tmpfs) taking the lock and
	 * broadcasting for every completion cost futex calls and context switches on both sides.
	 * reaped counts the completions: a waiter reads it before it looks at its requests and
	 * sleeps only if it has not moved since (it counts itself in waiters first), so that a
	 * completion between its look and its sleep is not missed (both seq_cst: Dekker).
	 */
	atomic_uint waiters;
	atomic_ulong reaped;
	/* the reaper sleeps on work: set under lock before it looks at inflight (seq_cst), so
	 * that a submitter that raised inflight and sees it unset need not wake it */
	atomic_int parked;
	/*
	 * io_uring: the thread at a completion record waits in the kernel itself and takes the
	 * completions (actx__take): through the reaper, each cost two wake-ups (the kernel's,
	 * the reaper's). The reaper then waits on efd, which the kernel signals for each
	 * completion unless the taker turned it off (so that it is not woken for nothing).
	 * cq_busy: a thread takes the completions (the only one: the CQ has one head);
	 * cq_missed: another found it busy, the holder looks again before it leaves.
	 * efd -1: the reaper takes them all, as for libaio.
	 */
	int efd;
	atomic_int cq_busy;
	atomic_int cq_missed;
	int submit_holds; /* the submitting thread holds cq_busy (under lock: make_room) */
	/* requests dropped from their id's list (ACTX_ID_KEEP) while in flight: freed once
	 * reaped, or at the end */
	struct areq *orphans;
	/*
	 * Buffers of requests done with, for the next submissions (under pool_lock, apart from
	 * lock: a submission takes one before it takes lock). A new buffer for each request,
	 * allocated and filled, spaced 1 MiB io_uring writes 1.1 ms apart in the replay, whatever
	 * the trace's pace. At most ACTX_DEPTH kept.
	 */
	pthread_mutex_t pool_lock;
	struct abuf {
		void *p;
		size_t cap;
	} pool[ACTX_DEPTH];
	unsigned npool;
};

/*
 * A buffer of at least len bytes, page-aligned (O_DIRECT): the smallest kept that is large
 * enough, else a new one, filled (written data non-zero: zeros might be stored as holes;
 * a buffer used before holds what it read or wrote, as a sync worker's does). NULL: out of
 * memory.
 */
static void *actx__buf_get(struct ractx *c, size_t len, size_t *cap)
{
	size_t sz = len ? (len + 4095) & ~(size_t)4095 : 4096;
	unsigned best = ACTX_DEPTH;
	void *b = NULL;

	pthread_mutex_lock(&c->pool_lock);
	for (unsigned i = 0; i < c->npool; i++)
		if (c->pool[i].cap >= sz &&
		    (best == ACTX_DEPTH || c->pool[i].cap < c->pool[best].cap))
			best = i;
	if (best != ACTX_DEPTH) {
		b = c->pool[best].p;
		*cap = c->pool[best].cap;
		c->pool[best] = c->pool[--c->npool];
	}
	pthread_mutex_unlock(&c->pool_lock);
	if (b)
		return b;
	if (posix_memalign(&b, 4096, sz))
		return NULL;
	memset(b, 0x5a, sz);
	*cap = sz;
	return b;
}

/* b (of cap bytes) back to the pool, or freed when the pool is full */
static void actx__buf_put(struct ractx *c, void *b, size_t cap)
{
	if (!b)
		return;
	pthread_mutex_lock(&c->pool_lock);
	if (c->npool < ACTX_DEPTH) {
		c->pool[c->npool].p = b;
		c->pool[c->npool++].cap = cap;
		b = NULL;
	}
	pthread_mutex_unlock(&c->pool_lock);
	free(b);
}

/* a request, once nothing (the engine, a completion record) holds it; its buffer to the pool */
static void areq__free(struct ractx *c, struct areq *rq)
{
	actx__buf_put(c, rq->io.buf, rq->cap);
	free(rq);
}

static void actx__mark(struct ractx *c, int n)
{
	uint64_t t0 = __atomic_load_n(&c->run->t0, __ATOMIC_RELAXED);

	for (int i = 0; i < n; i++) {
		struct areq *rq = c->eng.ops->event(&c->eng, (unsigned)i)->owner;

		rq->t0_done = t0;
		atomic_store(&rq->done, 1);
	}
	if (n > 0) {
		atomic_fetch_sub(&c->inflight, (unsigned)n);
		atomic_fetch_add(&c->reaped, (unsigned long)n);
	}
}

/*
 * Takes the completions posted, first waiting for one up to wait when not NULL (with the
 * kernel's signals to efd off meanwhile), and wakes the threads waiting on cond if any:
 * count, or -EBUSY when another thread takes them (it looks again before it leaves: none is
 * left behind), or -errno. Without c->lock. held: the caller holds cq_busy already, with
 * the signals off (async__submit).
 */
static int actx__take(struct ractx *c, const struct timespec *wait, int held)
{
	int total = 0, n = 0, quiet = held;

	for (;;) {
		if (!held && atomic_exchange(&c->cq_busy, 1)) {
			atomic_store(&c->cq_missed, 1);
			if (atomic_exchange(&c->cq_busy, 1)) {
				n = -EBUSY;
				break;
			}
		}
		held = 0;
		n = c->eng.ops->getevents(&c->eng, 0, ACTX_DEPTH, NULL);
		if (!n && wait) {
			if (!quiet)
				c->eng.ops->notify(&c->eng, 0);
			quiet = 1;
			n = c->eng.ops->getevents(&c->eng, 1, ACTX_DEPTH, wait);
		}
		if (n > 0) {
			actx__mark(c, n);
			total += n;
		}
		if (quiet) {
			c->eng.ops->notify(&c->eng, 1);
			quiet = 0;
			/* those posted while they were off, that the kernel did not signal */
			atomic_thread_fence(memory_order_seq_cst);
			if (n >= 0) {
				n = c->eng.ops->getevents(&c->eng, 0, ACTX_DEPTH, NULL);
				if (n > 0) {
					actx__mark(c, n);
					total += n;
				}
			}
		}
		atomic_store(&c->cq_busy, 0);
		if (n < 0 || !atomic_exchange(&c->cq_missed, 0))
			break;
		wait = NULL;
	}
	if (total > 0 && atomic_load(&c->waiters)) {
		/* under the lock: a waiter counted is in its wait or sees reaped */
		pthread_mutex_lock(&c->lock);
		pthread_cond_broadcast(&c->cond);
		pthread_mutex_unlock(&c->lock);
	}
	return total ? total : n;
}

/*
 * The reaper's wait for io_uring completions: efd's signal, or 1 ms; then it takes them. The
 * 1 ms bounds how late one is taken whose signal was lost: the kernel reads the switch
 * after it posts a completion, with no barrier between, so one posted as a taker turns the
 * signals back on may go unsignalled and unseen by the taker's last look (never seen here).
 */
static int actx__reaper_take(struct ractx *c)
{
	struct timespec ms = {0, 1000000};
	struct pollfd pfd = {.fd = c->efd, .events = POLLIN};
	uint64_t v;
	int n;

	/* its count back to 0, for the next completion to signal it again */
	if (ppoll(&pfd, 1, &ms, NULL) > 0 && read(c->efd, &v, sizeof(v)) != sizeof(v))
		v = 0;
	n = actx__take(c, NULL, 0);
	/* another thread takes them: it is not idle */
	return n == -EBUSY ? 1 : n;
}

/*
 * The reaper thread waits for completions in the kernel 1 ms at a time (so that it sees
 * stop), and marks them without c->lock (io_uring: on efd, see actx__reaper_take). Only
 * after a whole 1 ms without any, and with nothing in flight, does it park until a
 * submission (it polled every 1 ms: a thousand
 * wake-ups a second per context through a replay's idle stretches). It parked as soon as
 * nothing was in flight, so at a high rate nearly every submission had to wake it through
 * the condvar before the kernel could wake it again for the completion.
 */
static void *actx__reaper(void *arg)
{
	struct ractx *c = arg;
	struct timespec ms = {0, 1000000};
	int n = 0;

	pthread_setname_np(pthread_self(), "ioreel-reaper");

	/* it starts parked: a request that completes within its io_submit (buffered, tmpfs)
	 * wakes a reaper waiting in io_getevents, which then raced the submitting thread for
	 * it, stamping it late when it won (1 of 200 under CI's load) and, woken every time,
	 * stayed in the race; parked, it is woken only for a request still in flight */
	while (!atomic_load(&c->stop)) {
		if (n <= 0) {
			pthread_mutex_lock(&c->lock);
			atomic_store(&c->parked, 1);
			while (!atomic_load(&c->inflight) && !atomic_load(&c->stop))
				pthread_cond_wait(&c->work, &c->lock);
			atomic_store(&c->parked, 0);
			pthread_mutex_unlock(&c->lock);
			if (atomic_load(&c->stop))
				break;
		}
		if (c->efd >= 0) {
			n = actx__reaper_take(c);
		} else {
			n = c->eng.ops->getevents(&c->eng, 1, ACTX_DEPTH, &ms);
			if (n > 0) {
				actx__mark(c, n);
				if (atomic_load(&c->waiters)) {
					/* under the lock: a waiter counted is in its wait or sees
					 * reaped */
					pthread_mutex_lock(&c->lock);
					pthread_cond_broadcast(&c->cond);
					pthread_mutex_unlock(&c->lock);
				}
			}
		}
	}
	return NULL;
}

/* Under c->lock: rq's id was taken by a later submit while rq is still in flight. */
static void actx__orphan(struct ractx *c, struct areq *rq)
{
	struct areq **pp = &c->orphans;

	/* sweep those reaped since: as many in flight as the context holds, at most */
	while (*pp) {
		struct areq *o = *pp;

		if (atomic_load(&o->done)) {
			*pp = o->next_orphan;
			areq__free(c, o);
		} else {
			pp = &o->next_orphan;
		}
	}
	rq->next_orphan = c->orphans;
	c->orphans = rq;
}

static struct ractx *actx__get(struct run *run, const struct reel_op *op, int is_uring)
{
	uint64_t key = replay_hash__key(op->pid, op->ctx, (uint64_t)is_uring + 1);
	struct ractx *c;
	uint64_t *v;

	pthread_mutex_lock(&run->lock);
	v = replay_u64map__get(&run->actx, key);
	if (v) {
		c = (struct ractx *)(uintptr_t)*v;
		pthread_mutex_unlock(&run->lock);
		return c;
	}
	c = calloc(1, sizeof(*c));
	if (c) {
		pthread_mutex_init(&c->lock, NULL);
		pthread_mutex_init(&c->pool_lock, NULL);
		pthread_cond_init(&c->cond, NULL);
		pthread_cond_init(&c->work, NULL);
		c->run = run;
		c->ok = !replay_engine__init(
		    &c->eng, is_uring ? REPLAY_ENGINE_URING : REPLAY_ENGINE_AIO, ACTX_DEPTH);
		c->efd = -1;
		if (c->ok && c->eng.reap_apart && c->eng.ops->notify_fd) {
			int fd = c->eng.ops->notify_fd(&c->eng);

			c->efd = fd < 0 ? -1 : fd;
		}
		/* without its thread, the waiters reap in turn (actx__reap), none of them
		 * taking completions apart from that (efd) */
		c->reaping = c->ok && c->eng.reap_apart &&
			     !pthread_create(&c->reaper, NULL, actx__reaper, c);
		if (!c->reaping)
			c->efd = -1;
		replay_u64map__put(&run->actx, key, (uintptr_t)c);
	}
	pthread_mutex_unlock(&run->lock);
	return c;
}

int async__kind(const struct reel_op *op)
{
	if (op->type == REEL_OP_AIO_SUBMIT) {
		switch (op->subop) {
		case IOCB_CMD_PREAD:
		case IOCB_CMD_PREADV:
			return REPLAY_IO_READ;
		case IOCB_CMD_PWRITE:
		case IOCB_CMD_PWRITEV:
			return REPLAY_IO_WRITE;
		case IOCB_CMD_FSYNC:
			return REPLAY_IO_FSYNC;
		case IOCB_CMD_FDSYNC:
			return REPLAY_IO_FDSYNC;
		}
		return -1;
	}
	switch (op->subop) {
	case IORING_OP_READ:
	case IORING_OP_READV:
	case IORING_OP_READ_FIXED:
		return REPLAY_IO_READ;
	case IORING_OP_WRITE:
	case IORING_OP_WRITEV:
	case IORING_OP_WRITE_FIXED:
		return REPLAY_IO_WRITE;
	case IORING_OP_FSYNC:
		return (op->flags & IORING_FSYNC_DATASYNC) ? REPLAY_IO_FDSYNC : REPLAY_IO_FSYNC;
	case IORING_OP_NOP:
		return REPLAY_IO_NOP;
	}
	return -1;
}

/* waits up to 1 ms for a request of c to complete; under c->lock. With the reaper thread it
 * waits for its word, unless a request was reaped since the caller read seen (c->reaped),
 * before it looked; or, self and the context's completions its own to take (efd), in the
 * kernel, without c->lock, unless another thread takes them. Else it reaps itself. */
static int actx__reap(struct ractx *c, unsigned long seen, int self)
{
	struct timespec ms = {0, 1000000};
	int n;

	if (c->reaping && self && c->efd >= 0) {
		pthread_mutex_unlock(&c->lock);
		n = actx__take(c, &ms, 0);
		pthread_mutex_lock(&c->lock);
		if (n != -EBUSY)
			return n;
	}
	if (c->reaping) {
		struct timespec until;

		atomic_fetch_add(&c->waiters, 1);
		if (atomic_load(&c->reaped) != seen) {
			atomic_fetch_sub(&c->waiters, 1);
			return 1;
		}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 1000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		n = pthread_cond_timedwait(&c->cond, &c->lock, &until);
		atomic_fetch_sub(&c->waiters, 1);
		return n ? -ETIME : 1;
	}
	n = c->eng.ops->getevents(&c->eng, 1, ACTX_DEPTH, &ms);
	if (n > 0)
		actx__mark(c, n);
	return n;
}

/*
 * libaio, under c->lock: the completions posted by now, taken by the submitting thread right
 * after its submission, and stamped then. A buffered request, or one on tmpfs, completes
 * within io_submit; taken by the reaper thread, woken for it, it was stamped when the reaper
 * ran: QEMU's 4 KiB reads of its image on tmpfs (aio=native, 1.9 us at p50 from submission
 * to completion) replayed on tmpfs at 4.75 us, "2.5x slower".
 */
static void actx__peek(struct ractx *c, uint64_t at)
{
	struct replay_io *got[ACTX_PEEK];
	uint64_t t0 = __atomic_load_n(&c->run->t0, __ATOMIC_RELAXED);
	int n = c->eng.ops->peek(&c->eng, got, ACTX_PEEK);

	if (n <= 0)
		return;
	for (int i = 0; i < n; i++) {
		struct areq *rq = got[i]->owner;

		/* done by the submission's end, found a moment after it: stamped then, so that
		 * the thread's records stay in order (a completion ends no sooner than the
		 * submit record before it) */
		got[i]->done_ns = at;
		rq->t0_done = t0;
		atomic_store(&rq->done, 1);
	}
	atomic_fetch_sub(&c->inflight, (unsigned)n);
	atomic_fetch_add(&c->reaped, (unsigned long)n);
	if (atomic_load(&c->waiters))
		pthread_cond_broadcast(&c->cond);
}

/*
 * replay_engine__submit's make_room, under c->lock: a context full of completions not reaped
 * yet, as when the trace has more requests in flight than its depth; reaping them (kept for
 * their completion records) makes room. With none in flight (the reaper thread takes them
 * as they come) it waits for the next completion or 1 ms.
 */
static int actx__make_room(void *ctx)
{
	struct ractx *c = ctx;
	unsigned long seen = atomic_load(&c->reaped);
	int idle = !atomic_load(&c->inflight), n;

	if (c->submit_holds) {
		/* no other thread can take them meanwhile: it does */
		struct timespec ms = {0, 1000000};

		n = c->eng.ops->getevents(&c->eng, 1, ACTX_DEPTH, &ms);
		if (n > 0) {
			actx__mark(c, n);
			if (atomic_load(&c->waiters))
				pthread_cond_broadcast(&c->cond);
		}
	} else {
		n = actx__reap(c, seen, 0);
	}

	if (n < 0 && n != -ETIME && n != -EINTR)
		return n;
	return !idle;
}

/*
 * An io_uring request on a registered (fixed) file (IOSQE_FIXED_FILE in mode, no fd): the
 * recording does not know which file it was (FORMAT.md). Not replayed, and said why.
 */
static bool async__fixed_file(struct rworker *w, const struct ritem *it)
{
	const struct reel_op *op = &it->op;

	if (op->fd >= 0 || !(op->mode & IOSQE_FIXED_FILE))
		return false;
	/* counted as unsupported, not as an unknown fd: no open of it is missing */
	exec__fail(w->run, REPLAY_FAIL_UNSUPPORTED, op, it->p1,
		   "io_uring request on a registered (fixed) file, which the recording does not "
		   "name (capture.uring_fixed_files): not replayed");
	return true;
}

/*
 * The request of a submit record, ready for its context (*cp): NULL when it cannot be made,
 * *r then exec__op's result (the failure counted and said).
 */
static struct areq *async__prepare(struct rworker *w, const struct ritem *it, struct ractx **cp,
				   int *r)
{
	const struct reel_op *op = &it->op;
	int is_uring = op->type == REEL_OP_URING_SUBMIT;
	int kind = async__kind(op), fd = -1;
	struct ractx *c;
	struct areq *rq;

	*r = -(1 + REPLAY_FAIL_UNSUPPORTED);
	if (kind < 0 || (kind == REPLAY_IO_NOP && !is_uring)) {
		exec__fail(w->run, REPLAY_FAIL_UNSUPPORTED, op, it->p1,
			   "async request kind not supported by replay");
		return NULL;
	}
	if (is_uring && async__fixed_file(w, it))
		return NULL;
	if (kind != REPLAY_IO_NOP) {
		fd = exec__fd(w, it, kind == REPLAY_IO_WRITE);
		if (fd < 0) {
			*r = -(1 + REPLAY_FAIL_UNKNOWN_FD);
			return NULL;
		}
	}
	c = *cp = actx__get(w->run, op, is_uring);
	if (!c || !c->ok) {
		exec__fail(w->run, REPLAY_FAIL_UNSUPPORTED, op, it->p1,
			   is_uring ? "cannot set up an io_uring" : "cannot set up an AIO context");
		return NULL;
	}
	rq = calloc(1, sizeof(*rq));
	if (!rq || !(rq->io.buf = actx__buf_get(c, op->len, &rq->cap))) {
		free(rq);
		exec__fail(w->run, REPLAY_FAIL_UNSUPPORTED, op, it->p1, "out of memory");
		return NULL;
	}
	rq->io.kind = kind;
	rq->io.fd = fd;
	rq->io.len = op->len;
	rq->io.off = op->offset;
	/*
	 * The flags that decide what a request costs and where it lands, as the original asked
	 * (FORMAT.md): RWF_DSYNC and RWF_SYNC (without them an O_DSYNC-like write replayed
	 * buffered, 20x faster) and RWF_APPEND (the recorded offset of an async append is the
	 * application's, not where it landed: the kernel decides that at issue). No others:
	 * RWF_NOWAIT fails EAGAIN with no I/O where the replay's page cache is colder, RWF_HIPRI
	 * needs a polled ring, RWF_ATOMIC and bits the replaying kernel does not know fail
	 * EOPNOTSUPP, so that an op the original did would not be done
	 */
	if (kind == REPLAY_IO_READ || kind == REPLAY_IO_WRITE)
		rq->io.rw_flags = (int)(op->flags & (uint32_t)(RWF_DSYNC | RWF_SYNC | RWF_APPEND));
	rq->io.owner = rq;
	rq->seq = it->seq;
	rq->orig_submit = op->start_ns;
	rq->any = !!(it->flags & ITEM_ASYNC_ANY);
	rq->aux = op->aux;
	rq->subop = op->subop;
	*r = 0;
	return rq;
}

/*
 * Under c->lock, after its submission: rq refused (err), kept without its buffer for its
 * completion record to say it failed; nothing of it is left with the engine (see commit).
 */
static void actx__refused(struct ractx *c, struct areq *rq, int err)
{
	actx__buf_put(c, rq->io.buf, rq->cap);
	rq->io.buf = NULL;
	rq->io.ret = err;
	atomic_store(&rq->done, 1);
	rq->refused = 1;
}

/* Under c->lock: the oldest request of id aux not taken by a completion record; NULL: none. */
static struct areq *actx__first(struct ractx *c, uint64_t aux)
{
	uint64_t *v = replay_u64map__get(&c->reqs, aux);

	return v ? (struct areq *)(uintptr_t)*v : NULL;
}

/* Under c->lock: rq takes out's place in id aux's list (rq NULL: out leaves it). */
static void actx__replace(struct ractx *c, uint64_t aux, struct areq *out, struct areq *rq)
{
	struct areq *prev = NULL, *q, *next;

	for (q = actx__first(c, aux); q && q != out; q = q->next_id)
		prev = q;
	if (!q)
		return;
	next = out->next_id;
	out->next_id = NULL;
	if (rq) {
		rq->next_id = next;
		next = rq;
	}
	if (prev)
		prev->next_id = next;
	else if (next)
		replay_u64map__put(&c->reqs, aux, (uintptr_t)next);
	else
		replay_u64map__del(&c->reqs, aux);
}

/*
 * Under c->lock: rq joins the requests of its id, last, for its completion record. Those of
 * the id done already give their buffers back (what they read is wanted no more): an id
 * submitted again and again while in flight, with one record per pair, kept a 1 MiB buffer
 * per request to the end. Beyond ACTX_ID_KEEP of them the oldest goes.
 */
static void actx__file(struct ractx *c, struct areq *rq)
{
	struct areq *head = actx__first(c, rq->aux), *q;
	size_t n = 1;

	if (!head) {
		replay_u64map__put(&c->reqs, rq->aux, (uintptr_t)rq);
		return;
	}
	for (q = head;; q = q->next_id, n++) {
		if (q->io.buf && atomic_load(&q->done) && !q->refused) {
			actx__buf_put(c, q->io.buf, q->cap);
			q->io.buf = NULL;
		}
		if (!q->next_id)
			break;
	}
	q->next_id = rq;
	if (n >= ACTX_ID_KEEP) {
		actx__replace(c, rq->aux, head, NULL);
		/* reaped already, or refused: nothing else holds it; in flight, the engine does */
		if (atomic_load(&head->done))
			areq__free(c, head);
		else
			actx__orphan(c, head);
	}
}

/*
 * Submits the n requests rq[] of c at once, as the application's one syscall did (as many
 * more as the kernel's refusals take: replay_engine__submit_n), each refused one with its
 * error in err[]. *sub_ns, *end_ns: when the submission began and returned.
 */
static void actx__submit(struct rworker *w, struct ractx *c, struct areq **rq, unsigned n,
			 int *err, uint64_t *sub_ns, uint64_t *end_ns)
{
	struct replay_io *io[BATCH_MAX];
	unsigned taken = 0;
	int took = 0;

	for (unsigned i = 0; i < n; i++)
		io[i] = &rq[i]->io;
	/*
	 * The completions its submission brings (on tmpfs a read completes in it) are for this
	 * thread to take after it, not for the reaper, that the kernel would wake for each
	 */
	if (c->efd >= 0 && !atomic_exchange(&c->cq_busy, 1)) {
		took = 1;
		c->eng.ops->notify(&c->eng, 0);
	}
	pthread_mutex_lock(&c->lock);
	*sub_ns = replay_now_ns();
	for (unsigned i = 0; i < n; i++) {
		rq[i]->submit_ns = *sub_ns;
		rq[i]->t0 = w->run->t0;
	}
	c->submit_holds = took;
	replay_engine__submit_n(&c->eng, io, n, actx__make_room, c, err);
	*end_ns = replay_now_ns();
	c->submit_holds = 0;
	for (unsigned i = 0; i < n; i++) {
		rq[i]->submit_end = *end_ns;
		if (err[i])
			actx__refused(c, rq[i], err[i]);
		else
			taken++;
	}
	if (taken) {
		int was_idle = !atomic_fetch_add(&c->inflight, taken);

		if (c->efd < 0 && c->eng.ops->peek)
			actx__peek(c, *end_ns);
		/* (the reaper may have taken some already, inflight then wrapping for a moment:
		 * harmless, it parks only on 0 seen under the lock this thread holds) */
		if (was_idle && !took && atomic_load(&c->inflight) && atomic_load(&c->parked))
			pthread_cond_signal(&c->work);
	}
	/* in their order: of two of one id, the earlier is the older */
	for (unsigned i = 0; i < n; i++)
		actx__file(c, rq[i]);
	pthread_mutex_unlock(&c->lock);
	/* (an error of the CQ's, if any, is for the reaper and the completion records to meet) */
	if (took) {
		actx__take(c, NULL, 1);
		/* the reaper is woken only for what did not complete in the submission: in
		 * flight, it is to be taken as it comes while this thread is away */
		if (atomic_load(&c->inflight) && atomic_load(&c->parked)) {
			pthread_mutex_lock(&c->lock);
			pthread_cond_signal(&c->work);
			pthread_mutex_unlock(&c->lock);
		}
	}
}

/*
 * A submit record's ret: the original's (count or 0) when the replay's submission succeeded,
 * else its refusal
 */
static int64_t async__ret(const struct ritem *it, int err)
{
	return err ? err : it->op.ret >= 0 ? it->op.ret : 0;
}

int async__submit(struct rworker *w, const struct ritem *it, struct reel_op *res)
{
	const struct ritem *m[BATCH_MAX];
	struct areq *rq[BATCH_MAX];
	int r[BATCH_MAX], err[BATCH_MAX];
	struct ractx *c = NULL;
	unsigned n, ngo = 0, j = 0;

	if (batch__take(w, it, res, &r[0]))
		return r[0];
	/* the records of its syscall: one context's (pid, ctx and kind alike) */
	n = batch__gather(w, it, m);
	for (unsigned i = 0; i < n; i++)
		if ((rq[ngo] = async__prepare(w, m[i], &c, &r[i])))
			ngo++;
	if (ngo) {
		w->uring_submitter |= it->op.type == REEL_OP_URING_SUBMIT;
		actx__submit(w, c, rq, ngo, err, &res->start_ns, &res->end_ns);
	} else {
		res->start_ns = res->end_ns = replay_now_ns();
	}
	/* (not from the requests: once c->lock is let go, another thread's completion record
	 * may free them) */
	for (unsigned i = 0; i < n; i++) {
		int64_t ret = r[i] ? 0 : async__ret(m[i], err[j++]);

		if (!i)
			res->ret = ret;
		else
			batch__keep(w, res, m[i], ret, r[i]);
	}
	return r[0];
}

/*
 * Under c->lock, for the completion record of rq (id key), whose request has not completed:
 * another request of c that has, of the same kind (a read for a read: an application that
 * reaps a read waits for its data, not for a write), on the same fd, as long, with the
 * result the record's original had, that no other op waits for, as rq itself; the one
 * that completed first.
 * The application reaped whichever had completed (io_getevents, io_uring's completion
 * queue): waiting for rq instead held its thread while the others sat done, and the queue
 * emptied (fio, libaio, O_DIRECT, 128 KiB randrw, iodepth=16 on ext4, 16 requests in flight:
 * replayed with 8.0-9.7 on average, now 12.4-12.8; as fast as possible 11.1-11.9, now
 * 14.5-14.8). The record takes that one (and says so: its id, kind and offset), and rq takes
 * its place, for that one's record.
 */
static struct areq *actx__take_alike(struct ractx *c, uint64_t key, struct areq *rq, int64_t ret)
{
	struct areq *best = NULL;
	uint64_t best_key = 0;

	if (!rq->any)
		return NULL;
	for (size_t i = 0; i < c->reqs.cap; i++) {
		if (!c->reqs.used[i])
			continue;
		for (struct areq *q = (struct areq *)(uintptr_t)c->reqs.v[i]; q; q = q->next_id) {
			if (q == rq || !atomic_load(&q->done) || q->refused || !q->any ||
			    q->io.kind != rq->io.kind || q->io.fd != rq->io.fd ||
			    q->io.len != rq->io.len || q->io.ret != ret)
				continue;
			if (!best || q->io.done_ns + (c->run->t0 - q->t0_done) <
					 best->io.done_ns + (c->run->t0 - best->t0_done)) {
				best = q;
				best_key = c->reqs.k[i];
			}
		}
	}
	if (!best)
		return NULL;
	if (best_key == key) { /* one of its own id's: rq stays the id's oldest */
		actx__replace(c, key, best, NULL);
	} else {
		actx__replace(c, key, rq, NULL);
		actx__replace(c, best_key, best, rq);
	}
	return best;
}

/*
 * Under c->lock: the request completion record op is for. Of the requests of its id, the
 * oldest submitted when the record says (a recorder's completion record starts at its
 * request's submission), else the oldest (an import's starts when the application's
 * io_getevents went in): FORMAT.md. NULL: none.
 */
static struct areq *actx__own(struct ractx *c, const struct reel_op *op)
{
	struct areq *head = actx__first(c, op->aux);

	for (struct areq *q = head; q; q = q->next_id)
		if (q->orig_submit == op->start_ns)
			return q;
	return head;
}

/*
 * When a libaio request ends in the replay, given when it completed (done): as the recording
 * ends it, when the application reaped it (the exit of its io_getevents: the capture cannot
 * see the completion itself, FORMAT.md), here when the worker came to its completion record,
 * the replay's io_getevents (w->came_ns, worker__came: with the original timing, when the
 * application's io_getevents went in on the schedule, or later when its thread was behind;
 * as fast as possible, when exec__op began, res->start_ns then), or when it completed, if
 * later. Ended when
 * first seen complete (the reaper's stamp), a replay left out the time a completion waits
 * for its application to reap it, which the recording holds: fio's libaio O_DIRECT random
 * reads at iodepth 16 on ext4, replayed on the same disk, p50 162 us against the recorded
 * 216, "1.33x faster", and 11.7 requests in flight against 15.9, with the device's queue
 * and latency unchanged. io_uring's are posted completions on both sides: left as they are.
 */
static uint64_t actx__reaped_at(const struct rworker *w, const struct reel_op *res,
				uint64_t done)
{
	uint64_t came = w->came_ns ? w->came_ns : res->start_ns;

	return done > came ? done : came;
}

int async__complete(struct rworker *w, const struct ritem *it, struct reel_op *res,
		    uint64_t *submit_ns, uint64_t *done_ns)
{
	int64_t *ret = &res->ret;
	const struct reel_op *op = &it->op;
	int is_uring = op->type == REEL_OP_URING_COMPLETE;
	struct ractx *c = actx__get(w->run, op, is_uring);
	struct areq *rq = NULL;

	if (!c || !c->ok) {
		exec__fail(w->run, REPLAY_FAIL_UNSUPPORTED, op, it->p1,
			   is_uring ? "cannot set up an io_uring" : "cannot set up an AIO context");
		return -(1 + REPLAY_FAIL_UNSUPPORTED);
	}
	for (;;) {
		unsigned long seen;

		pthread_mutex_lock(&c->lock);
		seen = atomic_load(&c->reaped);
		rq = actx__own(c, op);
		if (!rq) {
			pthread_mutex_unlock(&c->lock);
			if (is_uring && async__fixed_file(w, it))
				return -(1 + REPLAY_FAIL_UNSUPPORTED);
			exec__fail(w->run, REPLAY_FAIL_UNKNOWN_FD, op, it->p1,
				   "completion of a request the replay did not submit");
			return -(1 + REPLAY_FAIL_UNKNOWN_FD);
		}
		if (atomic_load(&rq->done)) {
			actx__replace(c, op->aux, rq, NULL);
			pthread_mutex_unlock(&c->lock);
			break;
		}
		struct areq *q = actx__take_alike(c, op->aux, rq, op->ret);

		if (q) {
			rq = q;
			pthread_mutex_unlock(&c->lock);
			break;
		}
		int n = actx__reap(c, seen, 1);

		pthread_mutex_unlock(&c->lock);
		if (n < 0 && n != -ETIME && n != -EINTR) {
			*ret = n;
			return 0;
		}
	}
	/* its own, or the one it took: another's, or its own that an earlier record left */
	res->aux = rq->aux;
	res->subop = rq->subop;
	res->offset = rq->io.off;
	*ret = rq->io.ret;
	if (rq->refused) {
		/* one request, one differing outcome: its submit record's */
		free(rq);
		return 2;
	}
	/* on the timeline of now: time 0 moved on by the pauses since the submission, and
	 * since the completion */
	*submit_ns = rq->submit_ns + (w->run->t0 - rq->t0);
	if (rq->io.done_ns) {
		/* a request that completes within its io_submit can be taken by the reaper,
		 * waiting in io_getevents, before the submitting thread has stamped the
		 * submission's end: its completion record then ended before its submit record,
		 * the thread's records out of order */
		uint64_t done = rq->io.done_ns + (w->run->t0 - rq->t0_done);
		uint64_t sub_end = rq->submit_end + (w->run->t0 - rq->t0);

		*done_ns = done > sub_end ? done : sub_end;
		if (!is_uring)
			*done_ns = actx__reaped_at(w, res, *done_ns);
	}
	areq__free(c, rq);
	return 0;
}

/*
 * A wait item (ITEM_ASYNC_WAIT): waits until the request it names has completed, reaping for
 * it as a completion record does, but leaving the request to that record. Not there: reaped
 * already, or never submitted (the replay's submit failed); another of the same id: that one
 * was reaped, and its id used again.
 */
int async__wait(struct rworker *w, const struct ritem *it)
{
	const struct reel_op *op = &it->op;
	struct ractx *c = actx__get(w->run, op, op->flags == REEL_OP_URING_SUBMIT);

	if (!c || !c->ok)
		return 0; /* its submit failed so */
	for (int waited = 0;; waited = 1) {
		struct areq *rq;
		unsigned long seen;
		int n;

		pthread_mutex_lock(&c->lock);
		seen = atomic_load(&c->reaped);
		for (rq = actx__first(c, op->aux); rq && rq->seq != op->offset; rq = rq->next_id)
			;
		if (!rq || atomic_load(&rq->done)) {
			pthread_mutex_unlock(&c->lock);
			return waited;
		}
		n = actx__reap(c, seen, 1);
		pthread_mutex_unlock(&c->lock);
		if (n < 0 && n != -ETIME && n != -EINTR)
			return n;
	}
}

void async__free_all(struct run *run)
{
	for (size_t i = 0; i < run->actx.cap; i++) {
		struct ractx *c;

		if (!run->actx.used[i])
			continue;
		c = (struct ractx *)(uintptr_t)run->actx.v[i];
		if (c->reaping) {
			pthread_mutex_lock(&c->lock);
			atomic_store(&c->stop, 1);
			pthread_cond_signal(&c->work);
			pthread_mutex_unlock(&c->lock);
			pthread_join(c->reaper, NULL);
		}
		/* tear the ring down first: it waits for requests still in flight */
		if (c->ok)
			replay_engine__cleanup(&c->eng);
		for (size_t j = 0; j < c->reqs.cap; j++) {
			struct areq *rq = c->reqs.used[j] ? (struct areq *)(uintptr_t)c->reqs.v[j]
							  : NULL;

			while (rq) {
				struct areq *next = rq->next_id;

				areq__free(c, rq);
				rq = next;
			}
		}
		while (c->orphans) {
			struct areq *o = c->orphans;

			c->orphans = o->next_orphan;
			areq__free(c, o);
		}
		while (c->npool)
			free(c->pool[--c->npool].p);
		replay_u64map__free(&c->reqs);
		pthread_cond_destroy(&c->cond);
		pthread_cond_destroy(&c->work);
		pthread_mutex_destroy(&c->lock);
		pthread_mutex_destroy(&c->pool_lock);
		free(c);
	}
	replay_u64map__free(&run->actx);
}
