/* SPDX-License-Identifier: MIT */
/*
 * report_pending.c - the async requests a report has seen submitted and not yet completed,
 * queued per id (pid, context, aux) in the order of their submit records.
 *
 * An id need not be unique among the requests in flight: an import of strace has aio_data
 * for id (FORMAT.md), which applications leave alike (fio leaves it 0, and submits 8 iocbs
 * at a time so), and so does an io_uring user_data an application gives several SQEs. Kept
 * one per id (or per id and submission time), the requests of one io_submit overwrote each
 * other: 4 iocbs with aio_data 0 gave one op, and 3 "async completions without submission".
 * Queued, a completion takes the oldest request of its id, as `ioreel import strace` paired
 * it (reel_strace_ops.c, st_do_io_getevents: the oldest iocb in flight of its context and
 * aio_data, whose file, offset and length the completion record carries), or, when it names
 * its submission time, the oldest of its id submitted then.
 */
#include <errno.h>
#include <stdlib.h>

#include "report_int.h"

/* An entry of the pool: a request, linked in its id's queue (indexes + 1; 0: none) */
struct report_pentry {
	struct report_req req;
	uint32_t prev, next;
};

/* the id's queue: its oldest and newest entries (indexes + 1), as the map holds them */
static struct report_map_slot *queue_of(const struct report_pending *p,
					const uint64_t id[REPORT_KEY_N])
{
	return report_map__get(&p->ids, id);
}

static struct report_pentry *entry(const struct report_pending *p, uint32_t i)
{
	return &p->pool[i - 1];
}

/* a free entry of the pool (index + 1); 0: out of memory */
static uint32_t entry_new(struct report_pending *p)
{
	uint32_t i = p->free;

	if (i) {
		p->free = entry(p, i)->next;
		return i;
	}
	if (p->npool == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		struct report_pentry *n =
		    cap < UINT32_MAX ? realloc(p->pool, cap * sizeof(*n)) : NULL;

		if (!n)
			return 0;
		p->pool = n;
		p->cap = cap;
	}
	return (uint32_t)++p->npool;
}

int report_pending__add(struct report_pending *p, const uint64_t id[REPORT_KEY_N],
			const struct report_req *req)
{
	struct report_map_slot *q = queue_of(p, id);
	uint32_t i = entry_new(p);
	uint64_t v[2];

	if (!i)
		return -ENOMEM;
	*entry(p, i) = (struct report_pentry){.req = *req, .prev = q ? (uint32_t)q->v[1] : 0};
	if (q) {
		entry(p, (uint32_t)q->v[1])->next = i;
		q->v[1] = i;
		return 0;
	}
	v[0] = v[1] = i;
	return report_map__put(&p->ids, id, v);
}

/*
 * The entry to take from queue q for a completion submitted at *start: the oldest of those
 * submitted then (one io_submit's requests of an id are adjacent in the queue). Searched
 * from the newest back: the requests of an id before it are, in a recording, mostly ones
 * whose completion the capture lost (libaio: beyond 64 events a call), which pile up there,
 * and a search from the oldest would walk them all at every completion. 0: none.
 */
static uint32_t find_submitted_at(const struct report_pending *p, const struct report_map_slot *q,
				  uint64_t start)
{
	uint32_t found = 0;

	for (uint32_t i = (uint32_t)q->v[1]; i; i = entry(p, i)->prev) {
		if (entry(p, i)->req.start == start)
			found = i;
		else if (found)
			break;
	}
	return found;
}

static void unlink_entry(struct report_pending *p, struct report_map_slot *q, uint32_t i)
{
	struct report_pentry *e = entry(p, i);

	if (e->prev)
		entry(p, e->prev)->next = e->next;
	else
		q->v[0] = e->next;
	if (e->next)
		entry(p, e->next)->prev = e->prev;
	else
		q->v[1] = e->prev;
	if (!q->v[0])
		report_map__del(&p->ids, q);
	e->next = p->free;
	p->free = i;
}

int report_pending__take(struct report_pending *p, const uint64_t id[REPORT_KEY_N],
			 const uint64_t *start, struct report_req *out)
{
	struct report_map_slot *q = queue_of(p, id);
	uint32_t i;

	if (!q)
		return 0;
	i = start ? find_submitted_at(p, q, *start) : (uint32_t)q->v[0];
	if (!i)
		return 0;
	*out = entry(p, i)->req;
	unlink_entry(p, q, i);
	return 1;
}

void report_pending__each(const struct report_pending *p,
			  void (*fn)(void *arg, const struct report_req *req), void *arg)
{
	for (size_t s = 0; s < p->ids.cap; s++) {
		if (p->ids.slots[s].used != 1)
			continue;
		for (uint32_t i = (uint32_t)p->ids.slots[s].v[0]; i; i = entry(p, i)->next)
			fn(arg, &entry(p, i)->req);
	}
}

void report_pending__free(struct report_pending *p)
{
	report_map__free(&p->ids);
	free(p->pool);
	*p = (struct report_pending){0};
}
