/* SPDX-License-Identifier: MIT */
/*
 * replay_deps.c - cross-thread order: what each op waits for, worked out by the dispatcher as
 * it reads the trace.
 *
 * The dispatcher numbers ops in trace order (seq) and keeps, per key (an fd of a process, a
 * path, a directory by name, an async request), the last "structural" op (open, close, dup,
 * create, unlink, rename, mkdir, rmdir, truncate, async submit) and the last "use" of each
 * other thread since. A use depends on the last structural op of another thread; a structural
 * op depends on that too and on every other thread's last use. A path op also uses its parent
 * directory, and the directories further up that some op of the trace makes, moves or removes
 * (path__above), on which mkdir, rmdir, rename and symlink are structural; getdents64 uses its
 * fd's directory by name (the op's, or the open's that made the fd: disp__fd_named). Deps
 * always point to earlier, already queued ops, so they cannot deadlock. Uses do not depend on
 * each other: concurrent reads of one fd stay concurrent. Data: a read of bytes another
 * thread's write added to the file depends on that write, a write that makes it longer again
 * on the last cut, and a cut on the writes and reads that reached beyond it (replay_extent.c);
 * on an async one, until its completion record, means on its request (ITEM_ASYNC_WAIT). No
 * other data op depends on another thread's, since the replay moves no data and their order
 * changes no outcome.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>

#include "replay_disp.h"



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
	struct rdep *u;
	uint32_t cu;

	if (!v)
		return;
	if (dt->ckey == key)
		dt->cvalid = 0;
	k = &dt->k[*v];
	/* all but the uses' array, which the slot's next key reuses: a stale bound fd (bw) made
	 * a close of another process's fd look released */
	u = k->u;
	cu = k->cu;
	memset(k, 0, sizeof(*k));
	k->u = u;
	k->cu = cu;
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

void dt__free(struct deptrack *dt)
{
	for (size_t i = 0; i < dt->locks.cap; i++)
		if (dt->locks.used[i])
			free((void *)(uintptr_t)dt->locks.v[i]);
	replay_u64map__free(&dt->locks);
	for (size_t i = 0; i < dt->n; i++)
		free(dt->k[i].u);
	free(dt->k);
	free(dt->freel);
	replay_u64map__free(&dt->idx);
}

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
uint64_t key_dir(const char *s, size_t n)
{
	return replay_hash__key('D', replay_hash__bytes(s, n), n);
}

/*
 * The lock ops on a file (and closes of it, which drop record locks) keep the original's
 * order, so that a request meets the locks the original's met, taken or not. That order is
 * the trace's (exit order: a lock is checked, taken or given up just before the call
 * returns), for every op that cannot block; their times are no guide (a release that began a
 * µs before a take on another CPU took effect first: SQLite's shared-memory locks; under
 * strace every call's window is ~50-100 µs wide). A blocking request is the exception: it
 * returns when it is granted, which may be long after the releases it waited for began. So
 * no op waits for a blocking request still waiting when it started (it may be the release
 * that request waits for, and come after it in the trace: the woken waiter can return
 * first), and a blocking request waits for those granted before it was (flock grants no
 * turns: a waiter sees the holder take the lock again, several times, before it gets it).
 * Its wait for the ops before it is its wait for the lock (replay_lock.c counts it in its
 * latency). A release (or a close, an exit) that began before such a request returned may be
 * what granted it, however late its own return came (the recorder sees a syscall's end at
 * its exit probe, which a preemption can put after the woken thread's whole turn: take,
 * write, release): it waits for none of that thread's ops from the request on (it would wait
 * for a release that waits in the kernel for it; test replay_locks_late_release). A short
 * history per file suffices, as each op waits for its own thread's before it too.
 */
#define LOCKHIST 64

struct lockhist {
	unsigned n, next;
	struct {
		uint64_t end, seq;
		uint32_t w;
		int blocks;
	} e[LOCKHIST];
};

static uint64_t key_lock(const struct rpath *p)
{
	return replay_hash__key('L', (uintptr_t)p, 0);
}

/* a lock op that may let a waiting request in: a release, a downgrade to shared, or an op
 * that drops the process's locks (a close, an execve, an exit) */
static int lock__may_release(const struct reel_op *op)
{
	if (op->type == REEL_OP_FLOCK)
		return !!(op->mode & (LOCK_UN | LOCK_SH));
	if (op->type == REEL_OP_FCNTL_LOCK)
		return op->flags != F_GETLK && op->flags != F_OFD_GETLK &&
		       (op->mode == F_UNLCK || op->mode == F_RDLCK);
	return 1;
}

/* it, a lock op of file p (or one that drops locks on it: a close, an execve, an exit) */
static void disp__lock(struct deptrack *dt, const struct ritem *it, const struct rpath *p,
		       uint32_t self, struct depset *ds)
{
	const struct reel_op *op = &it->op;
	uint64_t key, *v;
	struct lockhist *h;
	int blocks = replay_lock__blocks(op), releases = !blocks && lock__may_release(op);
	uint64_t before = blocks ? op->end_ns : op->start_ns;
	uint32_t let_in[LOCKHIST]; /* workers whose request it may have granted */
	unsigned nlet = 0;

	if (!p)
		return;
	key = key_lock(p);
	v = replay_u64map__get(&dt->locks, key);
	if (v) {
		h = (struct lockhist *)(uintptr_t)*v;
	} else {
		h = calloc(1, sizeof(*h));
		if (!h)
			return;
		if (replay_u64map__put(&dt->locks, key, (uintptr_t)h)) {
			free(h);
			return;
		}
	}
	/* oldest first: a thread let in by it is so from its request on */
	for (unsigned k = 0, first = h->n < LOCKHIST ? 0 : h->next; k < h->n; k++) {
		const typeof(h->e[0]) *e = &h->e[(first + k) % LOCKHIST];
		unsigned j = 0;

		if (e->w == self)
			continue;
		while (j < nlet && let_in[j] != e->w)
			j++;
		if (j < nlet)
			continue;
		if (!e->blocks || e->end <= before)
			ds__add(ds, e->w, self, e->seq);
		else if (releases)
			let_in[nlet++] = e->w;
	}
	h->e[h->next].end = op->end_ns;
	h->e[h->next].blocks = blocks;
	h->e[h->next].seq = it->seq;
	h->e[h->next].w = self;
	h->next = (h->next + 1) % LOCKHIST;
	if (h->n < LOCKHIST)
		h->n++;
}

/* a process's address space: mmap and munmap are structural on it, msync a use */
static uint64_t key_mem(uint32_t pid)
{
	return replay_hash__key('M', pid, 0);
}

static uint64_t key_async(const struct reel_op *op)
{
	return replay_hash__key('A', (uint64_t)op->pid << 32 ^ op->ctx, op->aux);
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

/*
 * An fsync (fdatasync, sync_file_range, an async one's submit) of p flushes what the other
 * threads wrote to p before it: it waits for their last writes since the last cut (the
 * writers entries left, those not known done). Run before them, as fast as possible, it finds
 * next to nothing dirty and looks faster than it was (a database's checkpointer fsyncs the
 * files its backends wrote; tests/replay/test_sync_order.sh). A write that ended
 * after the fsync began is waited for too: at most one write's time late, against an fsync
 * that would otherwise leave out everything the thread wrote before it. A write of another
 * thread waits for the file's last fsync only when it began after that fsync ended
 * (disp__extent): one that began before may have run beside it. A syncfs (or sync) does so
 * for every file with writers entries (disp__deps).
 */
static void disp__synced(struct disp *d, const struct rpath *p, uint32_t self, struct depset *ds)
{
	const struct rdep *by;
	uint32_t i = 0;

	while ((by = extent__beyond(p, 0, &i)))
		disp__after_write(d, by, self, ds);
}

static int op__is_sync(unsigned t)
{
	return t == REEL_OP_FSYNC || t == REEL_OP_FDATASYNC || t == REEL_OP_SYNC_FILE_RANGE;
}

/* an O_TRUNC open, a creat: the file by that name is empty, cut by this op */
static void disp__emptied(struct disp *d, struct rpath *p, uint32_t self, uint64_t seq,
			  struct depset *ds)
{
	disp__cut(d, p, 0, self, ds);
	extent__reset(p);
	p->unlinked = 0;
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

	if (kind == REPLAY_IO_FSYNC || kind == REPLAY_IO_FDSYNC)
		disp__synced(d, p, self, ds);
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

/* ops besides reads and writes that read, lengthen, cut, replace or move a file: p (and p2,
 * a rename's or link's new name, a copy's destination) as disp__extent found them */
static void disp__resize(struct disp *d, struct ritem *it, struct rpath *p, struct rpath *p2,
			 uint32_t self, struct depset *ds)
{
	const struct reel_op *op = &it->op;
	uint64_t n = op->ret > 0 ? (uint64_t)op->ret : 0;

	switch (op->type) {
	case REEL_OP_OPEN:
	case REEL_OP_OPENAT:
	case REEL_OP_OPENAT2:
		if (p->unlinked && (op->flags & O_CREAT)) { /* a new file by that name */
			extent__reset(p);
			p->unlinked = 0;
			p->arrive_seq = it->seq;
		}
		if (op->flags & O_TRUNC)
			disp__emptied(d, p, self, it->seq, ds);
		else if (op->flags & O_EXCL)
			extent__reset(p);
		if (op->flags & O_EXCL)
			p->arrive_seq = it->seq;
		break;
	case REEL_OP_CREAT:
		if (p->unlinked)
			p->arrive_seq = it->seq;
		disp__emptied(d, p, self, it->seq, ds);
		break;
	case REEL_OP_UNLINK:
	case REEL_OP_UNLINKAT:
		/*
		 * Until the name is made again, an op that names it is through an fd opened
		 * before, on the file removed: its extent stays for them (another thread's read
		 * of what a write had made the file, after the unlink, still waits for it)
		 */
		p->unlinked = 1;
		p->gone_seq = it->seq;
		break;
	case REEL_OP_RENAME:
	case REEL_OP_RENAMEAT:
	case REEL_OP_RENAMEAT2:
		if (p2) {
			p->gone_seq = p2->gone_seq = it->seq;
			p->moved_to = p2;
			p->moved_seq = p2->arrive_seq = it->seq;
			if (op->flags & RENAME_EXCHANGE) {
				p2->moved_to = p;
				p2->moved_seq = p->arrive_seq = it->seq;
			}
			extent__move(p, p2, !!(op->flags & RENAME_EXCHANGE));
			p2->unlinked = 0;
			disp__writers_added(d, p2);
			disp__writers_added(d, p);
		}
		break;
	case REEL_OP_TRUNCATE:
	case REEL_OP_FTRUNCATE:
		if (op->len > p->reach) {
			/* a lengthening one: as a write, and a cut for the later lengthenings of
			 * other threads, which it would cut away if run after them (Kyoto
			 * Cabinet's main thread sizes its new file, its workers grow it on) */
			disp__wrote(d, p, op->len, self, it->seq, 0, ds);
			p->cut.w = self;
			p->cut.seq = it->seq;
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

static const struct rpath *disp__fd_name(const struct disp *d, uint32_t pid, int64_t fd);

/*
 * An op on an fd opened (or dup'ed to) before its file's name was taken away: its file is no
 * longer the one by that name, whose extent it must leave alone (Tokyo Cabinet's optimize
 * unlinks the database, renames the rebuilt one over it, then ftruncates the old one through
 * its fd to its old length, longer than the new file: taken for a lengthening of the new one,
 * the writes of other threads that later made that one so long were not, and reads of their
 * bytes waited for none of them).
 */
static const struct kent *disp__fd_detached(const struct disp *d, const struct reel_op *op,
					    const struct rpath *p)
{
	const uint64_t *v;
	const struct kent *k;

	if (!p->gone_seq || !replay_op__on_fd(op) ||
	    !(v = replay_u64map__get(&d->dt.idx, key_fd(op->pid, op->fd))))
		return NULL;
	k = &d->dt.k[*v];
	return k->sw && k->sseq < p->gone_seq ? k : NULL;
}

/*
 * Where the file an fd opened by p before p's last gone_seq is now, when renames took it
 * there (a file renamed away while a thread holds it open: its reads still wait for the
 * writes that made it long, kept under its new name): NULL when it was removed and the name
 * made again, or replaced by a rename onto the name, as far as the trace says.
 */
static struct rpath *path__moved(struct rpath *p)
{
	uint64_t at = p->gone_seq;

	for (int hops = 0; hops < 64; hops++) {
		struct rpath *q = p->moved_to;

		if (!q || p->moved_seq != at || q->arrive_seq != at)
			return NULL; /* it left p otherwise, or another file came to q since */
		if (q->gone_seq == at || q->unlinked)
			return q; /* still there, or removed by that name, which was not made again */
		p = q;
		at = q->gone_seq; /* moved on, if a rename took it (else: replaced) */
	}
	return NULL;
}

/*
 * Where the file of an fd detached from p (k: the fd's entry) is now: followed from the name
 * the fd was opened by, when that is another name than p and lost its file after the open too.
 * An op on an fd carries its file's name as the kernel shows it, after renames (FORMAT.md), so
 * one on a file renamed onto p names p, and p lost its old file to that rename after the open:
 * dovecot makes its index log as dovecot.index.log.newlock, renames it into place and appends
 * to it through the same fd. Followed from p, it was taken for one on the file replaced, and
 * its writes left out of p's extent. NULL: as far as the trace says, on no file by a name.
 */
static struct rpath *disp__fd_moved(const struct kent *k, struct rpath *p)
{
	struct rpath *o = k->bseq == k->sseq ? k->bpath : NULL;

	if (o && o != p && o->gone_seq > k->sseq)
		return path__moved(o);
	return path__moved(p);
}

/*
 * The file of an op's fd when the op carries no path (FORMAT.md lets a writer leave it out):
 * the one the fd was opened by, which the file-set scan also went by. NULL: a path op, or no
 * name known (replay_fileset.c sets unnamed_fd_ops when the trace has such ops).
 */
static const struct rpath *disp__fd_file(const struct disp *d, const struct reel_op *op,
					 int64_t fd)
{
	if (!d->run->fs->unnamed_fd_ops || fd < 0 || !replay_op__on_fd(op))
		return NULL;
	return disp__fd_name(d, op->pid, fd);
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
	struct rpath *p = path__own(it->p1 ? it->p1 : disp__fd_file(d, op, op->fd));
	uint64_t end = op->offset + (op->ret > 0 ? (uint64_t)op->ret : 0);
	const struct kent *k;
	unsigned t = op->type;

	if (!p || op->ret < 0)
		return;
	/* an fd on a file its name lost: the file's extent where renames took it, if anywhere */
	if (!p->unlinked && (k = disp__fd_detached(d, op, p)) && !(p = disp__fd_moved(k, p)))
		return;
	if (t >= REEL_OP_READ && t <= REEL_OP_PREADV2) {
		if (p->ext && end > p->base && op->ret)
			disp__read_after(d, p, end, self, ds);
		if (op->ret)
			disp__read(d, p, end, self, it->seq);
	} else if (t >= REEL_OP_WRITE && t <= REEL_OP_PWRITEV2) {
		/* one that began after another thread's sync of the file ended did not run beside
		 * it: it waited (a database's commit for its log's flush), and run before it the
		 * sync would have it to flush too */
		if (p->synced.seq && op->start_ns >= p->synced_end)
			ds__add(ds, p->synced.w, self, p->synced.seq);
		if (op->ret && end > p->reach)
			it->flags |= ITEM_GROWS;
		if (op->ret)
			disp__wrote(d, p, end, self, it->seq, 0, ds);
	} else if (op__is_sync(t)) {
		disp__synced(d, p, self, ds);
		if (op->end_ns >= p->synced_end) {
			p->synced.w = self;
			p->synced.seq = it->seq;
			p->synced_end = op->end_ns;
		}
	} else if (t == REEL_OP_LSEEK && op->mode == SEEK_END && !op->offset) {
		/* a length check (a database's "how many blocks"): it saw what the writes of
		 * other threads before it had made the file, as a read of the last byte would */
		if (p->ext && (uint64_t)op->ret > p->base)
			disp__read_after(d, p, (uint64_t)op->ret, self, ds);
	} else {
		disp__resize(d, it, p,
			     path__own(it->p2 || !reel_op__is_copy(t) ? it->p2
								 : disp__fd_file(d, op, op->fd2)),
			     self, ds);
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
 * that carries it (disp__deps); and for the data order of the ops on an fd that carry no path
 * (disp__extent). Kept only when the trace has such listings or ops (no fd paths: a writer
 * that could not tell them, or left them out): a file-set scan finding. p NULL: the
 * fd is closed, or was made by an op that names nothing. An fd the process had before the
 * capture, or got from its parent across a fork (names are kept by process, and not copied
 * at a fork record), has no name here: a listing through it stays unordered, as does one
 * through an fd whose directory was renamed since it was opened (the name is the open's).
 */
static void disp__fd_named(struct disp *d, uint32_t pid, int64_t fd, const struct rpath *p)
{
	if (!d->run->fs->unnamed_listings && !d->run->fs->unnamed_fd_ops)
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

/* op (worker self, seq) returned fd number key, on the file named by (NULL: not known) */
static void disp__bound(struct deptrack *dt, uint64_t key, const struct reel_op *op, uint32_t self,
			uint64_t seq, struct rpath *named)
{
	struct kent *k = dt__get(dt, key);

	if (!k)
		return;
	k->bw = self + 1;
	k->btid = op->tid;
	k->bseq = seq;
	k->bend = op->end_ns;
	k->bpath = named;
}

/* the name fd was opened by, for a dup of it; NULL: not known */
static struct rpath *disp__bound_name(struct deptrack *dt, uint32_t pid, int64_t fd)
{
	uint64_t *v = replay_u64map__get(&dt->idx, key_fd(pid, fd));

	return v && dt->k[*v].bseq == dt->k[*v].sseq ? dt->k[*v].bpath : NULL;
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

/*
 * An op that follows a symlink the trace knows is an op on the path it leads to as well:
 * after another thread's unlink, rename or create of that path, as an op by that name is.
 */
static void disp__through_link(struct deptrack *dt, const struct ritem *it, int structural,
			       uint32_t self, struct depset *ds)
{
	const struct rpath *to = it->p1 ? it->p1->lto : NULL;

	if (!to || replay_op__on_fd(&it->op) || !reel_op__follows_link(&it->op, 1))
		return;
	if (structural)
		dt__struct(dt, key_path(to), self, it->seq, ds);
	else
		dt__use(dt, key_path(to), self, it->seq, ds);
}

/*
 * The first op of a process on fd, one it did not open in the trace (got from its parent across
 * a fork, which the trace does not record, or open before the capture): the replay opens the
 * fd's file by the path the op carries (exec__fd_of), a use of that name, after another
 * thread's op that made it. sort --compress-program makes each temp file O_EXCL and forks a
 * compressor that writes it as its stdout: that child's dup2 of the fd waits for the open.
 */
static void disp__inherited(struct deptrack *dt, uint32_t pid, int64_t fd, const struct rpath *p,
			    uint32_t self, uint64_t seq, struct depset *ds)
{
	if (fd < 0 || !p || replay_u64map__get(&dt->idx, key_fd(pid, fd)))
		return;
	dt__use(dt, key_path(p), self, seq, ds);
}

/* a lock op of p by a process: its execve and exit are lock ops of p too */
static void pexit__locked(struct pexit *pe, const struct rpath *p)
{
	struct pproc *pp;
	uint32_t i;

	if (!pe || !p || !(pp = pexit__proc(pe)))
		return; /* out of memory: not followed, as past PEXIT_LOCKED */
	for (i = 0; i < pp->nlocked && pp->locked[i] != p; i++)
		;
	if (i == pp->nlocked && i < PEXIT_LOCKED)
		pp->locked[pp->nlocked++] = p;
}

/*
 * A process record (format 1.4, replay_proc.c). A fork comes after the exit of the last
 * process of the pid it returns, and the child's threads after the fork (disp__deps). An
 * execve or an exit closes fds under the process's other threads: it comes after the last op
 * of each that has ended (the kernel ends them first); and as it drops the process's locks,
 * it is a lock op of each file the process locked, in the trace's order with the others'.
 */
static void disp__proc(struct disp *d, const struct ritem *it, uint32_t self, struct depset *ds)
{
	const struct reel_op *op = &it->op;
	struct pexit *pe = d->cpe;
	struct pproc *pp;
	uint64_t *v;

	if (op->type == REEL_OP_FORK) {
		if (op->ret <= 0 || op->ret > UINT32_MAX)
			return;
		v = replay_u64map__get(&d->plive, (uint64_t)op->ret);
		pe = v ? (struct pexit *)(uintptr_t)*v : NULL;
		if (!pe || !(pp = pexit__proc(pe)))
			return; /* the child has no op in the trace (or no memory to follow it) */
		if (pp->exited.seq)
			ds__add(ds, pp->exited.w, self, pp->exited.seq);
		pp->born.w = self;
		pp->born.seq = it->seq;
		/* its fds are its parent's open files, and hold their flocks: its exit may be
		 * the release of one (flock(1) forks the command under the lock it took) */
		for (uint32_t i = 0; d->cpe && d->cpe->proc && i < d->cpe->proc->nlocked; i++)
			pexit__locked(pe, d->cpe->proc->locked[i]);
		return;
	}
	if (!pe)
		return;
	for (uint32_t i = 0; i < pe->n; i++)
		ds__add(ds, pe->last[i].w, self, pe->last[i].seq);
	for (uint32_t i = 0; pe->proc && i < pe->proc->nlocked; i++)
		disp__lock(&d->dt, it, pe->proc->locked[i], self, ds);
	if (op->type == REEL_OP_EXIT && (pp = pexit__proc(pe))) {
		pp->exited.w = self;
		pp->exited.seq = it->seq;
		pp->nlocked = 0;
		pp->born.seq = 0; /* a later process of the pid has a fork of its own */
	}
}

void disp__deps(struct disp *d, struct ritem *it, uint32_t self)
{
	const struct reel_op *op = &it->op;
	const struct rpath *p2 = item__name2(it), *dir;
	struct depset *ds = &d->ds;
	struct deptrack *dt = &d->dt;
	unsigned t = op->type;

	ds__clear(ds);
	/* a thread of a process whose fork the trace has starts after it: with its fds */
	if (d->cfirst && d->cpe && d->cpe->proc && d->cpe->proc->born.seq)
		ds__add(ds, d->cpe->proc->born.w, self, d->cpe->proc->born.seq);

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
	if (t != REEL_OP_CLOSE && replay_op__on_fd(op))
		disp__inherited(dt, op->pid, op->fd, it->p1, self, it->seq, ds);
	if (reel_op__is_copy(t))
		disp__inherited(dt, op->pid, op->fd2, it->p2, self, it->seq, ds);
	if (op__is_open(t)) {
		if (it->p1) {
			if (open__makes_name(it))
				dt__struct(dt, key_path(it->p1), self, it->seq, ds);
			else
				dt__use(dt, key_path(it->p1), self, it->seq, ds);
			disp__through_link(dt, it, open__makes_name(it), self, ds);
		}
		if (op->ret >= 0) {
			dt__struct(dt, key_fd(op->pid, op->ret), self, it->seq, ds);
			disp__fd_named(d, op->pid, op->ret, it->p1);
			disp__bound(dt, key_fd(op->pid, op->ret), op, self, it->seq,
				    path__own(it->p1));
		}
	} else if (t == REEL_OP_CLOSE) {
		/* a released close closed the number's previous file: the name is the new one's */
		if (!disp__close_released(dt, it, self, ds)) {
			dt__struct(dt, key_fd(op->pid, op->fd), self, it->seq, ds);
			disp__fd_named(d, op->pid, op->fd, NULL);
		}
		/* it drops the process's record locks on its file: a lock op of the file's */
		if (it->p1 && replay_u64map__get(&dt->locks, key_lock(it->p1)))
			disp__lock(dt, it, it->p1, self, ds);
	} else if (op__is_dup(t)) {
		dt__use(dt, key_fd(op->pid, op->fd), self, it->seq, ds);
		if (op->ret >= 0) {
			struct rpath *named = disp__bound_name(dt, op->pid, op->fd);

			dt__struct(dt, key_fd(op->pid, op->ret), self, it->seq, ds);
			disp__fd_named(d, op->pid, op->ret, disp__fd_name(d, op->pid, op->fd));
			if (t != REEL_OP_DUP2 && t != REEL_OP_DUP3)
				disp__bound(dt, key_fd(op->pid, op->ret), op, self, it->seq, named);
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
	} else if (t == REEL_OP_MMAP || t == REEL_OP_MSYNC || t == REEL_OP_MUNMAP) {
		if (t == REEL_OP_MMAP && op->fd >= 0)
			dt__use(dt, key_fd(op->pid, op->fd), self, it->seq, ds);
		if (t != REEL_OP_MSYNC)
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
		disp__through_link(dt, it, t == REEL_OP_TRUNCATE, self, ds);
		if (p2)
			dt__struct(dt, key_path(p2), self, it->seq, ds);
	} else if (reel_op__is_lock(t)) {
		if (op->fd >= 0)
			dt__use(dt, key_fd(op->pid, op->fd), self, it->seq, ds);
		disp__lock(dt, it, it->p1, self, ds);
		pexit__locked(d->cpe, it->p1);
	} else if (reel_op__is_process(t)) {
		disp__proc(d, it, self, ds);
	} else if (op->fd >= 0) {
		dt__use(dt, key_fd(op->pid, op->fd), self, it->seq, ds);
		/* a listing sees the directory (its fd's name) before another thread's rmdir of
		 * it, and fails after it */
		if (t == REEL_OP_GETDENTS64 && (dir = disp__listed_dir(d, it)))
			dt__use(dt, dir->dkey, self, it->seq, ds);
	}
	disp__extent(d, it, self, ds);
	/* syncfs (and sync, recorded as a syncfs of no fd): every file's writes, as an fsync */
	if (t == REEL_OP_SYNCFS && op->ret >= 0)
		for (size_t i = 0; i < d->nwpaths; i++)
			disp__synced(d, d->wpaths[i], self, ds);
	disp__names(it);
	disp__put_deps(d, it, self, ds);
}

/*
 * Process pid has ended in the trace: an item on the worker of its thread that ended last
 * closes what it left open and unmaps what it left mapped, after the last op of each of its
 * threads (which came after its ops on its fds and mappings).
 */
void disp__exit(struct disp *d, uint32_t pid, const struct pexit *pe)
{
	struct depset *ds = &d->ds;
	struct ritem it;
	uint32_t self;

	dt__del(&d->dt, key_mem(pid));
	/* no op of pid comes after this (its later namesakes' are counted in pe): what was kept
	 * by its fds goes, so that thousands of short processes (a build, a mail server, a
	 * database's backends one per connection) cost no more than those alive at once */
	for (uint32_t fd = 0; fd < pe->fds; fd++) {
		uint64_t k = key_fd(pid, fd);

		dt__del(&d->dt, k);
		if (d->fdnames.n)
			replay_u64map__del(&d->fdnames, k);
		if (d->skipfd.n)
			replay_u64map__del(&d->skipfd, (uint64_t)pid << 32 | fd);
	}
	if (!pe->n)
		return; /* none of its ops was replayed: nothing to close */
	self = pe->last[pe->n - 1].w;
	ds__clear(ds);
	for (uint32_t i = 0; i < pe->n; i++)
		ds__add(ds, pe->last[i].w, self, pe->last[i].seq);
	item__none(&it, pid, 0);
	it.op.subop = ITEM_EXIT;
	disp__put_deps(d, &it, self, ds);
	disp__push(d, d->run->workers[self], &it);
}

/*
 * IOREEL_TEST_KEYS, for tests only: says, as a notice, what the dispatcher still keeps by
 * process at the end: order keys (fds, paths, directories...), fd names, non-file fds, and
 * threads with ops to come
 */
void disp__key_stats(struct disp *d)
{
	char msg[160];

	if (!getenv("IOREEL_TEST_KEYS") || !d->run->o->notice)
		return;
	snprintf(msg, sizeof(msg),
		 "test: at the end %zu order keys, %zu fd names, %zu non-file fds, %zu threads",
		 d->dt.idx.n, d->fdnames.n, d->skipfd.n, d->left.n);
	d->run->o->notice(d->run->o->cb_ctx, msg);
}

/*
 * IOREEL_TEST_EXTENT, for tests only: says, as a notice, the most writers entries the
 * dispatcher kept at once (they only grow between sweeps: the most before one, or at the end)
 */
void disp__extent_stats(struct disp *d)
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
