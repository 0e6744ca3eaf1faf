/* SPDX-License-Identifier: MIT */
/*
 * replay_stage.c - as fast as possible, the replay runs in segments: the dispatcher reads a
 * segment of the trace ahead into one buffer (each worker's items chained), releases it whole
 * to the workers, and the results are written in the pause after it, so that decoding and
 * encoding never take CPU from the ops. A segment is cut short once a worker has run out and
 * little is left to the others, or once a worker with a full share has run out and the others
 * are still behind after a while: they stop at their next op, and what they left moves to the
 * front of the buffer, ahead of the next segment.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_disp.h"

/*
 * Staged: this worker's part of the released segment is done (its queue is empty). Its
 * requests in flight and results are the segment's too; the last worker done wakes the
 * dispatcher (stage__run).
 */
void worker__seg_done(struct rworker *w)
{
	struct run *run = w->run;

	worker__drain(w); /* its results are in its items (no batch to flush) */
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
void worker__cut(struct rworker *w, uint32_t h)
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
void stage__maybe_cut(struct rworker *w)
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

/*
 * Slots per chunk: SEG_CHUNK_MAX (12 KiB of items), fewer when many threads could each leave
 * a chunk part-filled at a segment's end: at most a SEG_CHUNK_WASTE-th of the buffer so.
 */
#define SEG_CHUNK_MAX 64
#define SEG_CHUNK_WASTE 8

void seg__chunking(struct run *run, uint32_t max_workers)
{
	uint64_t c = run->seg_cap / ((uint64_t)SEG_CHUNK_WASTE * (max_workers ? max_workers : 1));

	run->seg_chunk = c < 1 ? 1 : c > SEG_CHUNK_MAX ? SEG_CHUNK_MAX : (uint32_t)c;
	run->seg_chunks = run->seg_cap / run->seg_chunk;
	run->seg_chunk_next = 0;
}

/* The next slot of the segment for an item of w's: RUN_SEG_NONE when the segment is full. */
uint32_t seg__slot(struct run *run, struct rworker *w)
{
	if (w->seg_slot == w->seg_slot_end) {
		if (run->seg_chunk_next == run->seg_chunks)
			return RUN_SEG_NONE;
		w->seg_slot = run->seg_chunk_next++ * run->seg_chunk;
		w->seg_slot_end = w->seg_slot + run->seg_chunk;
	}
	return w->seg_slot++;
}

/* the slots the segment has handed out, up to the end of the last chunk */
static uint32_t seg__used(const struct run *run)
{
	return run->seg_chunk_next * run->seg_chunk;
}

/* every chunk free again, for the next segment */
static void seg__reset(struct run *run, uint32_t nw)
{
	for (uint32_t i = 0; i < nw; i++)
		run->workers[i]->seg_slot = run->workers[i]->seg_slot_end = 0;
	run->seg_chunk_next = 0;
}

/*
 * The lane's entry of item it (struct rlane): a positioned (or plain) read or write that
 * succeeded in the original, with nothing to wait for; what depends on the replay's state
 * (its fd open, the buffer large enough) the lane asks as it comes (lane__fd).
 */
static void seg__lane(struct rlane *l, const struct ritem *it)
{
	const struct reel_op *op = &it->op;
	unsigned t = op->type;

	l->flags = 0;
	l->next = RUN_SEG_NONE;
	if (it->ndeps || op->ret < 0 || op->fd < 0 || op->fd >= RUN_FD_MAX ||
	    op->len > UINT32_MAX ||
	    (t != REEL_OP_PREAD64 && t != REEL_OP_READ && t != REEL_OP_PWRITE64 &&
	     t != REEL_OP_WRITE)) {
		l->type = 0;
		return;
	}
	l->type = (uint16_t)t;
	l->fd = op->fd;
	l->len = (uint32_t)op->len;
	l->offset = op->offset;
	l->ret = op->ret;
	l->seq = it->seq;
}

/* Puts item it at slot i of the segment (it may be there already), last in w's chain. */
void seg__put(struct run *run, struct rworker *w, uint32_t i, const struct ritem *it)
{
	if (&run->seg[i] != it)
		memcpy(&run->seg[i], it,
		       offsetof(struct ritem, deps) + it->ndeps * sizeof(it->deps[0]));
	run->seg[i].next = RUN_SEG_NONE;
	run->seg[i].carry = 0;
	run->seg[i].flags &= ~(uint32_t)ITEM_RESULT;
	seg__lane(&run->lane[i], &run->seg[i]);
	if (w->seg_first == RUN_SEG_NONE) {
		w->seg_first = i;
	} else {
		run->seg[w->seg_last].next = i;
		run->lane[w->seg_last].next = i;
	}
	w->seg_last = i;
}

/*
 * After a segment has run: the results its workers kept in their items (worker__retire), to
 * the writer in the segment's order, which is each thread's issue order (a thread's requests
 * in flight are retired in it too). Before the items a cut left over move (stage__carry).
 */
static void stage__results(struct run *run)
{
	struct rbatch *b = NULL;

	pthread_mutex_lock(&run->blk);
	for (uint32_t j = 0, used = seg__used(run); j < used; j++) {
		struct ritem *it = &run->seg[j];
		struct rlane *l = &run->lane[j];
		int in_lane = l->flags & LANE_RESULT;

		/* a chunk's slots past its worker's last item may hold an earlier segment's: each
		 * result is taken once */
		if (!(it->flags & ITEM_RESULT) && !in_lane)
			continue;
		it->flags &= ~(uint32_t)ITEM_RESULT;
		l->flags &= ~(uint16_t)LANE_RESULT;
		if (!b && !(b = run__batch_take(run))) {
			if (!run->werr)
				run->werr = -ENOMEM;
			break;
		}
		b->ops[b->n] = it->op;
		if (in_lane) { /* the op is the item's, its result the lane's (lane__staged_op) */
			b->ops[b->n].ret = l->ret;
			b->ops[b->n].sched_ns = l->sched;
			b->ops[b->n].start_ns = l->start;
			b->ops[b->n].end_ns = l->end;
			b->ops[b->n].wait_ns = 0;
		}
		/* left to here as fast as possible: they are the same for any op */
		b->ops[b->n].path = it->p1 ? it->p1->wid : 0;
		b->ops[b->n].path2 = it->p2 ? it->p2->wid : 0;
		if (++b->n == RUN_BATCH) {
			/* waits for the writer once its backlog is full (run.max_pending) */
			run__batch_queue(run, b);
			pthread_cond_signal(&run->bcond);
			b = NULL;
		}
	}
	if (b) {
		run__batch_queue(run, b);
		pthread_cond_signal(&run->bcond);
	}
	pthread_mutex_unlock(&run->blk);
}

/*
 * After a segment cut short: moves the items the workers left to the front of the buffer,
 * each worker's still chained in order, as the start of its part of the next segment; the
 * next segment's items take chunks after them. Returns how many. Items only move towards
 * the front, in buffer order: one pass does, in place (the carried items lie interleaved,
 * as in the trace: a cut leaves little over).
 */
static uint32_t stage__carry(struct run *run, uint32_t nw)
{
	uint32_t used = seg__used(run), n = 0;

	for (uint32_t i = 0; i < nw; i++) {
		struct rworker *w = run->workers[i];

		for (uint32_t j = w->cur; j != RUN_SEG_NONE; j = run->seg[j].next)
			run->seg[j].carry = i + 1;
		w->cur = RUN_SEG_NONE;
	}
	seg__reset(run, nw);
	for (uint32_t j = 0; j < used; j++) {
		struct ritem *it = &run->seg[j];
		struct rworker *w;

		if (!it->carry)
			continue;
		w = run->workers[it->carry - 1];
		run->carried += it->op.type != REEL_OP_NONE; /* not a hand-over nor a wait item */
		seg__put(run, w, n++, it);
		it->carry = 0; /* moved: its old slot holds nothing to carry */
	}
	run->seg_chunk_next = (n + run->seg_chunk - 1) / run->seg_chunk;
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

			deadline = now + (wait > STAGE_STRAGGLE_MIN_NS ? wait
								: STAGE_STRAGGLE_MIN_NS);
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
uint32_t stage__run(struct disp *d)
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
			worker__ring(w);
	}
	/* from here on the workers' tails are theirs to cut */
	atomic_store(&run->seg_open, 1);
	stage__wait(run, nw, busy, now);
	atomic_store(&run->seg_open, 0);
	for (uint32_t i = 0; i < nw; i++)
		run->workers[i]->seg_share = 0;
	/* the workers are done: the writer writes the results as they come */
	pthread_mutex_lock(&run->blk);
	run->hold = 0;
	pthread_mutex_unlock(&run->blk);
	stage__results(run);
	carried = 0;
	if (atomic_load(&run->seg_cut)) {
		run->seg_cuts++;
		carried = stage__carry(run, nw);
	} else {
		seg__reset(run, nw);
	}
	run->seg_n = carried;

	return carried;
}

/*
 * IOREEL_TEST_SEGMENT=ITEMS[,DIV], for tests only: segments of ITEMS items, cut short when
 * at most 1/DIV of one is left (DIV 1: whenever a worker runs out first; 0: never), so
 * that a small trace has many segments and cuts.
 */
void stage__test_knob(struct run *run)
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
