/* SPDX-License-Identifier: MIT */
/*
 * replay_batch.c - the submit records of one syscall, replayed with one syscall.
 *
 * An application's io_submit of n iocbs, or io_uring_enter of n SQEs, is n records in the
 * trace, one per request (FORMAT.md), alike in type, thread, context and time (the syscall's
 * entry: the recorder stamps them so), one after the other in their thread's ops: the
 * thread was in that syscall, and io_uring posts the completions that come during it after
 * its submissions (Linux 6.18: none came between in fio's jobs, buffered, O_DIRECT or
 * IOSQE_ASYNC; one that did would start the next batch). Submitted one per syscall, a queue
 * the application refilled 8 at a time was refilled one at a time, with a dip between:
 * fio's 4 KiB random reads on tmpfs through io_uring, iodepth 16, 8 submitted and reaped at
 * a time, recorded with 13.9 requests in flight on average, replayed as fast as possible
 * onto ext4 with 12.6-12.9 (now 14.2-14.4); through libaio, whose buffered requests complete
 * within io_submit, with never more than the one its io_submit held (now 5.8-7.9).
 *
 * The worker at the first record takes the others from its queue, and async__submit submits
 * them all at once. One the dispatcher has not queued yet is waited for when the dispatcher
 * said it comes next (ITEM_CALL_GOES_ON), while it is on its way (batch__await); else the
 * rest go as a batch of their own. Their results are kept here until the worker comes
 * to their records, which it runs as usual (their schedule is the first's, past by then)
 * but for the syscall: each takes its own result instead, and is retired in its turn, so
 * that the result trace has a record per request, in the thread's order.
 */
#include <stdlib.h>
#include <time.h>

#include "replay_run.h"

struct abatch {
	/* kept for the records after the first, in their order: n of them, next to take */
	unsigned n, next;
	/* the first record's: the batch's schedule, its wait for other threads' ops, and the
	 * syscall's start and end */
	uint64_t sched, wait, start_ns, end_ns;
	uint64_t t0; /* the replay's time 0 then: a record carried over to the next segment
			(staged) is retired after a pause that time 0 has moved on by */
	struct {
		uint64_t seq;
		int r; /* exec__op's result */
		int64_t ret;
	} m[BATCH_MAX];
};

static int is_submit(unsigned t)
{
	return t == REEL_OP_AIO_SUBMIT || t == REEL_OP_URING_SUBMIT;
}

/*
 * b went to the kernel in the same syscall as a: both submits of one context by one thread,
 * at the same time. A thread's syscalls never start in the same nanosecond, so the time
 * alone tells one syscall's records from the next one's.
 */
int batch__same_call(const struct reel_op *a, const struct reel_op *b)
{
	return is_submit(a->type) && b->type == a->type && b->pid == a->pid && b->tid == a->tid &&
	       b->ctx == a->ctx && b->start_ns == a->start_ns;
}

/*
 * Every op the item waits for is done already. A record that would wait for another thread's
 * op goes with the next batch, after the wait: the records before it are not held back for
 * it, and no thread is left waiting for them (they are not done before they are submitted)
 * while this one waits.
 */
static int batch__deps_met(const struct run *run, const struct ritem *it)
{
	for (uint32_t i = 0; i < it->ndeps; i++)
		if (atomic_load(&run->workers[it->deps[i].w]->done_seq) < it->deps[i].seq)
			return 0;
	return 1;
}

/*
 * How long a worker waits at most for the dispatcher to queue the next record of its batch:
 * far longer than the dispatcher takes for an op (~1 us), so that only a dispatcher kept from
 * its CPU for that long splits the batch.
 */
#define BATCH_AWAIT_NS 50000000ULL
#define BATCH_AWAIT_SPINS 200 /* pauses, then looks BATCH_AWAIT_NAP_NS apart */
#define BATCH_AWAIT_NAP_NS 10000L /* asleep, not yielding: a niced dispatcher got no CPU */

/*
 * The record k places after the worker's current item, which the dispatcher said comes right
 * after prev (ITEM_CALL_GOES_ON), once queued; NULL when it went elsewhere or nowhere: the
 * dispatcher queued an op after prev (that one was not this worker's, or was left out), it
 * stopped, it waits for room in some queue (whose worker may wait for this one: it is not
 * waited for then), or BATCH_AWAIT_NS passed. Staged, the segment may end between the two:
 * never waited for.
 */
static const struct ritem *batch__await(struct rworker *w, const struct ritem *prev, unsigned k)
{
	struct run *run = w->run;
	const struct ritem *next;
	uint64_t until = 0;

	if (run->staged)
		return NULL;
	for (unsigned spins = 0;; spins++) {
		if ((next = worker__queued(w, k)))
			return next;
		if (atomic_load_explicit(&run->disp_seq, memory_order_acquire) > prev->seq)
			return worker__queued(w, k); /* its tail was stored before the seq */
		if (atomic_load(&run->disp_in_room_wait) || run__interrupted(run))
			return NULL;
		if (spins < BATCH_AWAIT_SPINS) {
			__builtin_ia32_pause();
			continue;
		}
		if (!until)
			until = replay_now_ns() + BATCH_AWAIT_NS;
		else if (replay_now_ns() > until)
			return NULL;
		nanosleep(&(struct timespec){0, BATCH_AWAIT_NAP_NS}, NULL);
	}
}

unsigned batch__gather(struct rworker *w, const struct ritem *it, const struct ritem **out)
{
	const struct ritem *next;
	unsigned n = 1;

	out[0] = it;
	/* the results of the others need a place: without one, each goes on its own */
	if (!w->ab && !(w->ab = calloc(1, sizeof(*w->ab))))
		return 1;
	while (n < BATCH_MAX) {
		next = worker__queued(w, n);
		if (!next && (out[n - 1]->flags & ITEM_CALL_GOES_ON))
			next = batch__await(w, out[n - 1], n);
		if (!next || !batch__same_call(&it->op, &next->op) ||
		    !batch__deps_met(w->run, next))
			break;
		out[n++] = next;
	}
	w->ab->n = w->ab->next = 0;
	return n;
}

void batch__keep(struct rworker *w, const struct reel_op *first, const struct ritem *it,
		 int64_t ret, int r)
{
	struct abatch *b = w->ab;

	if (!b->n) {
		b->sched = first->sched_ns;
		b->wait = first->wait_ns;
		b->start_ns = first->start_ns;
		b->end_ns = first->end_ns;
		b->t0 = w->run->t0;
	}
	b->m[b->n].seq = it->seq;
	b->m[b->n].r = r;
	b->m[b->n].ret = ret;
	b->n++;
}

int batch__take(struct rworker *w, const struct ritem *it, struct reel_op *res, int *r)
{
	struct abatch *b = w->ab;
	uint64_t moved;

	if (!b || b->next == b->n)
		return 0;
	if (b->m[b->next].seq != it->seq) {
		/* the worker dropped the rest of the batch (interrupted): nothing to take */
		b->n = b->next = 0;
		return 0;
	}
	moved = w->run->t0 - b->t0;
	res->sched_ns = b->sched + moved;
	res->wait_ns = b->wait;
	res->start_ns = b->start_ns + moved;
	res->end_ns = b->end_ns + moved;
	res->ret = b->m[b->next].ret;
	*r = b->m[b->next++].r;
	return 1;
}
