/* SPDX-License-Identifier: MIT */
/*
 * replay_extent.c - data order across threads, kept by the dispatcher: a read must not come
 * out short in the replay because the write of another thread that had made the file that
 * long in the original has not been issued yet (make -j2: as reads the .s file that cc1,
 * another process, is still writing).
 *
 * Per path: base, the bytes the file has that no write of the trace made (as prepared, or as
 * a truncate left them; a file the application made has none), and the writes that made it
 * longer than it had ever been (end = offset + bytes written, beyond reach), each with the
 * (worker, seq) that issued it; their ends ascend. A read whose bytes end at E > base waits
 * for the first of them that reached E (extent__writer); the dispatcher drops it when it is
 * the reader's own worker's, which comes first anyway. A read within base has nothing to wait
 * for; of a file no write made longer (ext NULL: page-cached reads of files that were there,
 * the throughput case) the dispatcher looks no further than that pointer.
 *
 * Memory: the latest EXT_KEEP such writes per file (~400 bytes), kept until the file is
 * unlinked or replaced, and none for files no write made longer. When the one a read needs has
 * fallen out, it waits for the oldest one kept instead: that one reached E as well (ends ascend)
 * and also comes before the read in the trace, as every kept write does. So a dependency never
 * points forward and cannot deadlock; the read only waits a little longer than it had to.
 *
 * Lengths change: a truncate cuts the writes that reached beyond it down to its length (one
 * that lengthens the file counts as a write); an O_TRUNC open or a create leaves a new empty
 * file by that name; a rename moves the extent to the new name. An unlink leaves it where it
 * is until the name is made again (rpath.unlinked): the ops that name it meanwhile are through
 * fds opened before, on the file removed. A write that makes
 * the file longer again waits for the last truncate (or O_TRUNC open, creat) of another
 * thread (cut): run first, its bytes would be cut away from the reads that wait for it. An fd keeps
 * the path it was opened by in the trace; its ops after that name was renamed from or over, or
 * made again after an unlink, are on another file than the one by that name now (replay_deps.c,
 * disp__fd_detached): on the file renames took to another name, whose extent they use
 * (path__moved), else their own reads and writes are not ordered and leave extents alone.
 *
 * The other way round, a cut waits for the writes of other threads before it that reached
 * beyond its new length, lengthening or not: run after it, any of them would make the file
 * long again, and the replay would leave it another size than the trace does. So per path,
 * besides, each worker's last write since the last cut and how far its writes since then
 * reached (writers: one entry per worker that wrote, usually one, and one per async write
 * whose completion record is still to come). A cut drops the entries it
 * waited for: a later cut waits for this one, so for them too; the others (writes below its
 * length) stay, since a later, shorter cut must still wait for them.
 *
 * Without a cut they would stay too, one per worker and file written until the file is cut,
 * replaced or unlinked: workers x files, on a trace of many threads writing many files that
 * nothing truncates. So the dispatcher drops the entries whose write its worker has already
 * issued (extent__drop_done: the worker's published done_seq has reached it): a later cut
 * would wait for nothing there, since a worker's done_seq only grows and covers every op it
 * issued before. An async write's entry stands for its request, which its submit's being done
 * does not say is: it stays until its completion record is dispatched. The worker's next write
 * starts a new entry that does not carry the reach of the dropped one: those writes are done,
 * so no later cut needs to wait for them. Every so many writes the dispatcher sweeps the paths
 * with entries (disp__sweep_writers): what is left is what was dispatched and not yet done
 * (staged, the done ops of the segment under way are published at its end: a segment's
 * writes at most), whatever the number of files.
 *
 * Reads likewise (readers, kept as the writers are): a cut waits for the reads of other
 * threads before it of bytes at or beyond its new length, which, run after it, would come out
 * short (thread B reads at 1 MiB, then thread A truncates the file to 0). Only for a file the
 * trace cuts by that name, or by a name a rename gives it later (rpath.cut_later, from the
 * file-set scan): the reads of every other file, the throughput case, keep no list.
 */
#include <stdlib.h>

#include "replay_run.h"

#define EXT_KEEP 16 /* writes kept per file, a power of two */

struct extw {
	uint64_t end;
	struct rdep by;
};

/* a ring of cap (a power of two) writes from first, doubled up to EXT_KEEP */
struct rext {
	uint32_t first, n, cap;
	struct extw w[];
};

/*
 * Per worker that wrote (or read: the readers) since the last cut: its last write, and the
 * furthest end of them. An async write has an entry of its own until its completion record
 * is dispatched: its request may still be in flight when the later ops of its worker are
 * done, so no later write of that worker can stand for it.
 */
struct rwr {
	uint64_t end;
	struct rdep by;
	int async; /* an async write's submit, not reaped yet */
};

struct rwriters {
	uint32_t n, cap;
	uint32_t hint; /* the entry the last write used: runs of one thread's writes */
	struct rwr w[];
};

static struct extw *ext__at(struct rext *x, uint32_t i)
{
	return &x->w[(x->first + i) & (x->cap - 1)];
}

/* Room for one more write: a larger ring, or, at EXT_KEEP, the oldest falls out. */
static struct rext *ext__room(struct rext *x)
{
	uint32_t cap = x ? x->cap * 2 : 2;
	struct rext *n;

	if (x && x->n < x->cap)
		return x;
	n = cap <= EXT_KEEP ? malloc(sizeof(*n) + cap * sizeof(n->w[0])) : NULL;
	if (!n) {
		if (x) {
			x->first = (x->first + 1) & (x->cap - 1);
			x->n--;
		}
		return x;
	}
	n->first = 0;
	n->n = 0;
	n->cap = cap;
	for (uint32_t i = 0; x && i < x->n; i++)
		n->w[n->n++] = *ext__at(x, i);
	free(x);
	return n;
}

void extent__grow(struct rpath *p, uint64_t end, uint32_t w, uint64_t seq)
{
	struct extw *e;

	p->reach = end;
	p->ext = ext__room(p->ext);
	if (!p->ext)
		return; /* out of memory: this write orders nothing */
	e = ext__at(p->ext, p->ext->n++);
	e->end = end;
	e->by.w = w;
	e->by.seq = seq;
}

/*
 * The first kept write that reached end. When none did, the furthest: the original's file
 * was longer than any write of the trace made it (a write it lacks, through mmap, an async
 * request), and that one at least came before.
 */
const struct rdep *extent__writer(const struct rpath *p, uint64_t end)
{
	struct rext *x = p->ext;
	uint32_t lo = 0, hi;

	if (!x->n)
		return NULL;
	hi = x->n - 1;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ext__at(x, mid)->end >= end)
			hi = mid;
		else
			lo = mid + 1;
	}
	return &ext__at(x, lo)->by;
}

/* a new entry at the end of a list (p->writers, p->readers); NULL: out of memory */
static struct rwr *list__add(struct rwriters **xp)
{
	struct rwriters *x = *xp, *n;

	if (!x || x->n == x->cap) {
		uint32_t cap = x ? x->cap * 2 : 2;

		n = realloc(x, sizeof(*n) + cap * sizeof(n->w[0]));
		if (!n)
			return NULL;
		if (!x) {
			n->n = 0;
			n->hint = 0;
		}
		n->cap = cap;
		*xp = x = n;
	}
	return &x->w[x->n++];
}

/* worker w's entry in a list, made when it has none; NULL: out of memory */
static struct rwr *list__of(struct rwriters **xp, uint32_t w)
{
	struct rwriters *x = *xp;
	struct rwr *e;
	uint32_t i;

	if (x && x->hint < x->n && x->w[x->hint].by.w == w && !x->w[x->hint].async)
		return &x->w[x->hint];
	for (i = 0; x && i < x->n; i++)
		if (x->w[i].by.w == w && !x->w[i].async)
			goto found;
	e = list__add(xp);
	if (!e)
		return NULL;
	x = *xp;
	i = x->n - 1;
	e->by.w = w;
	e->end = 0;
	e->async = 0;
found:
	x->hint = i;
	return &x->w[i];
}

/* worker w's op seq reached end: its entry stands for it */
static void list__note(struct rwriters **xp, uint64_t end, uint32_t w, uint64_t seq)
{
	struct rwr *e = list__of(xp, w);

	if (!e)
		return; /* out of memory: a cut does not wait for this op */
	e->by.seq = seq;
	if (end > e->end)
		e->end = end;
}

/* an async request's submit: an entry of its own until it is reaped */
static void list__note_async(struct rwriters **xp, uint64_t end, uint32_t w, uint64_t seq)
{
	struct rwr *e = list__add(xp);

	if (!e)
		return; /* out of memory: a cut does not wait for this request */
	e->by.w = w;
	e->by.seq = seq;
	e->end = end;
	e->async = 1;
}

static const struct rdep *list__beyond(const struct rwriters *x, uint64_t len, uint32_t *i)
{
	while (x && *i < x->n) {
		const struct rwr *e = &x->w[(*i)++];

		if (e->end > len)
			return &e->by;
	}
	return NULL;
}

/* a cut to len: the ops that reached beyond it come before it, and later cuts after it */
static void list__cut(struct rwriters *x, uint64_t len)
{
	uint32_t n = 0;

	for (uint32_t i = 0; x && i < x->n; i++)
		if (x->w[i].end <= len)
			x->w[n++] = x->w[i];
	if (x)
		x->n = n;
}

/* the entry of the async request submitted by submit goes: its completion stands for it */
static void list__drop_async(struct rwriters *x, const struct rdep *submit)
{
	for (uint32_t i = 0; x && i < x->n; i++) {
		if (x->w[i].async && x->w[i].by.w == submit->w && x->w[i].by.seq == submit->seq) {
			x->w[i] = x->w[--x->n];
			return;
		}
	}
}

void extent__wrote(struct rpath *p, uint64_t end, uint32_t w, uint64_t seq)
{
	list__note(&p->writers, end, w, seq);
}

void extent__wrote_async(struct rpath *p, uint64_t end, uint32_t w, uint64_t seq)
{
	list__note_async(&p->writers, end, w, seq);
}

const struct rdep *extent__beyond(const struct rpath *p, uint64_t len, uint32_t *i)
{
	return list__beyond(p->writers, len, i);
}

void extent__read(struct rpath *p, uint64_t end, uint32_t w, uint64_t seq)
{
	list__note(&p->readers, end, w, seq);
}

void extent__read_async(struct rpath *p, uint64_t end, uint32_t w, uint64_t seq)
{
	list__note_async(&p->readers, end, w, seq);
}

const struct rdep *extent__read_beyond(const struct rpath *p, uint64_t len, uint32_t *i)
{
	return list__beyond(p->readers, len, i);
}

void extent__truncate(struct rpath *p, uint64_t len, uint32_t w, uint64_t seq)
{
	struct rext *x = p->ext;
	uint32_t i = 0;

	if (len > p->reach) {
		extent__grow(p, len, w, seq);
		return;
	}
	/* one to the length the file has is a cut too: run after a later lengthening by
	 * another thread, it would cut that away (the Go linker's threads ftruncate their
	 * output to one length, then to a longer one) */
	p->cut.w = w;
	p->cut.seq = seq;
	if (len < p->reach) {
		list__cut(p->writers, len);
		list__cut(p->readers, len);
	}
	p->reach = len;
	if (len <= p->base) {
		p->base = len;
		if (x)
			x->n = 0;
		return;
	}
	/* the writes that reached beyond len now reach len: the first of them made it that long */
	while (x && i < x->n && ext__at(x, i)->end < len)
		i++;
	if (x && i < x->n) {
		ext__at(x, i)->end = len;
		x->n = i + 1;
	}
}

void extent__reaped(struct rpath *p, const struct rdep *submit, uint32_t w, uint64_t seq)
{
	struct rext *x = p->ext;

	/* its own entry goes: the caller counts it as a write (or read) of the completion's
	 * worker */
	list__drop_async(p->writers, submit);
	list__drop_async(p->readers, submit);

	for (uint32_t i = 0; x && i < x->n; i++) {
		struct extw *e = ext__at(x, i);

		if (e->by.w == submit->w && e->by.seq == submit->seq) {
			e->by.w = w;
			e->by.seq = seq;
		}
	}
}

uint32_t extent__nwriters(const struct rpath *p)
{
	return (p->writers ? p->writers->n : 0) + (p->readers ? p->readers->n : 0);
}

static uint32_t list__drop_done(struct rwriters **l, int (*done)(void *ctx, const struct rdep *by),
				void *ctx)
{
	struct rwriters *x = *l;
	uint32_t n = 0;

	for (uint32_t i = 0; x && i < x->n; i++)
		if (x->w[i].async || !done(ctx, &x->w[i].by))
			x->w[n++] = x->w[i];
	if (x && !n) {
		free(x);
		*l = NULL;
		return 0;
	}
	if (x)
		x->n = n;
	return n;
}

uint32_t extent__drop_done(struct rpath *p, int (*done)(void *ctx, const struct rdep *by),
			   void *ctx)
{
	return list__drop_done(&p->writers, done, ctx) + list__drop_done(&p->readers, done, ctx);
}

void extent__reset(struct rpath *p)
{
	free(p->ext);
	p->ext = NULL;
	free(p->writers);
	p->writers = NULL;
	free(p->readers);
	p->readers = NULL;
	p->base = 0;
	p->reach = 0;
	p->cut.seq = 0;
	p->synced.seq = 0;
}

void extent__move(struct rpath *from, struct rpath *to, int exchange)
{
	uint64_t base = to->base, reach = to->reach;
	struct rext *x = to->ext;
	struct rwriters *ws = to->writers, *rs = to->readers;
	struct rdep cut = to->cut;

	if (from == to)
		return;
	to->base = from->base;
	to->reach = from->reach;
	to->ext = from->ext;
	to->writers = from->writers;
	to->readers = from->readers;
	to->cut = from->cut;
	from->base = exchange ? base : 0;
	from->reach = exchange ? reach : 0;
	from->ext = exchange ? x : NULL;
	from->writers = exchange ? ws : NULL;
	from->readers = exchange ? rs : NULL;
	from->cut = exchange ? cut : (struct rdep){0};
	if (!exchange) {
		free(x);
		free(ws);
		free(rs);
	}
}
