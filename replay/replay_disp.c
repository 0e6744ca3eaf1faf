/* SPDX-License-Identifier: MIT */
/*
 * replay_disp.c - the dispatcher: streams the trace, leaves out what is not file I/O, names
 * each op's paths beneath the target, gives each original thread a worker (handing on the
 * workers of threads that have ended), and queues each op to it with what it waits for
 * (replay_deps.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reel_cvt_util.h"
#include "replay_disp.h"

/*
 * A queue in an array, taken from at *head and added to at *n: room for one more at *n. The
 * part already taken is reclaimed before the array grows (doubled, from first elements).
 * 0, or -ENOMEM (nothing changed).
 */
int fifo__room(void **buf, size_t esz, size_t *head, size_t *n, size_t *cap,
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

#define DISP_RING_BATCH 32 /* items queued (~15 us of the dispatcher's) before it rings */

/* rings the workers disp__wake left asleep with items */
static void disp__ring_owed(struct disp *d)
{
	for (unsigned i = 0; i < d->nowed; i++) {
		d->owed[i]->ring_owed = 0;
		worker__ring(d->owed[i]);
	}
	d->nowed = 0;
}

/*
 * w sleeps for items, and it was just given one. Ahead of the schedule (it is not due yet),
 * w is rung now. Behind it (with a schedule, it is due already; thinking, a worker that ran
 * out was faster than the dispatcher), the dispatcher is the replay's pace:
 *  - it leaves the background (background__enter): at nice 10, on a machine whose CPUs the
 *    workers and the kernel's io-wq threads kept busy, it got a sliver of one, its workers
 *    found their queues empty, slept, and each item it queued then cost a futex wake-up
 *    and two context switches (fio's io_uring jobs, 230 k requests/s on tmpfs, 2 CPUs:
 *    with the original timing their backlog ran at half the pace of afap, 2-3x the CPU an
 *    op). It goes back once it waits for room in a full queue, ahead again (disp__push).
 *  - w is rung once DISP_RING_BATCH more items are queued (to it or others), or before the
 *    dispatcher waits for room in a full queue (that queue's worker may wait for an op of
 *    w's), or at the end: not for each, to sleep again after it.
 */
static void disp__wake(struct disp *d, struct rworker *w, const struct ritem *it)
{
	struct run *run = d->run;
	int due = run->o->timing != REPLAY_TIMING_ORIGINAL ||
		  run->t0 + it->sched_rel <= replay_now_ns();

	if (!due) {
		worker__ring(w);
		return;
	}
	background__leave(&d->bg);
	if (w->ring_owed)
		return;
	if (d->nowed == DISP_OWED_MAX) {
		worker__ring(w);
		return;
	}
	if (!d->nowed)
		d->owed_left = DISP_RING_BATCH;
	w->ring_owed = 1;
	d->owed[d->nowed++] = w;
}

/*
 * The dispatcher waited for room in w's queue: it is ahead of w, and back in the background
 * (disp__wake) when it is ahead of the schedule too (with one, it): a worker in a backlog,
 * its queue full of ops due already, would otherwise take it back there, at nice 10, while
 * the other workers ran out.
 */
#define DISP_AHEAD_NS 5000000ULL
static void disp__ahead(struct disp *d, const struct ritem *it)
{
	struct run *run = d->run;

	if (run->o->timing != REPLAY_TIMING_ORIGINAL ||
	    run->t0 + it->sched_rel > replay_now_ns() + DISP_AHEAD_NS)
		background__return(&d->bg);
}

/* Queues an item: staged, into the segment being read ahead (a full one runs first). */
void disp__push(struct disp *d, struct rworker *w, const struct ritem *it)
{
	struct run *run = d->run;
	uint32_t slot;

	if (!run->staged) {
		int how;

		if (d->nowed && queue__full(w))
			disp__ring_owed(d);
		how = queue__push(w, it);
		if (how & QUEUE_WAITED)
			disp__ahead(d, it);
		if (how & QUEUE_IDLE)
			disp__wake(d, w, it);
		if (d->nowed && !--d->owed_left)
			disp__ring_owed(d);
		return;
	}
	while ((slot = seg__slot(run, w)) == RUN_SEG_NONE)
		stage__run(d);
	seg__put(run, w, slot, it);
	run->seg_n++;
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
	if (p->nonfile) {
		const char *rest;
		int fd;

		p->via_link = cvt_proc_link(s, 0, &fd, &rest) != 0;
		p->climbs = p->via_link && !strncmp(rest, "/..", 3) && (!rest[3] || rest[3] == '/');
	}
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
	/* after the put: what it leads to is never a link itself (link__follow goes on to it) */
	{
		uint64_t *lv = d->run->fs->links_to.n
				   ? replay_u64map__get(&d->run->fs->links_to,
							replay_hash__bytes(s, strlen(s)))
				   : NULL;

		p->lto = lv ? disp__path(d, (uint32_t)*lv) : NULL;
	}
	return p;
}

int op__is_open(unsigned t)
{
	return t == REEL_OP_OPEN || t == REEL_OP_OPENAT || t == REEL_OP_OPENAT2 ||
	       t == REEL_OP_CREAT;
}

int op__is_dup(unsigned t)
{
	return t == REEL_OP_DUP || t == REEL_OP_DUP2 || t == REEL_OP_DUP3 ||
	       t == REEL_OP_FCNTL_DUPFD;
}

/* skipfd's values: the fd's ops are non-file I/O, or I/O on a file the trace does not name */
enum { SKIP_NONFILE = 1, SKIP_UNNAMED };
/* what disp__nonfile says of an op: 0, replayed */
enum { DISP_NONFILE = 1, DISP_UNNAMED };

/*
 * An open of "/proc/self/fd/N" (or of the process's own pid) that found a regular file and
 * kept that name, in a trace whose recorder names the file of every fd whose path it knows
 * (those that write capture.paths_too_long all do) and knew every path (that count 0): fd N
 * was a memfd, the one regular file without a path ("/memfd:NAME" to /proc). The recorders
 * that marked memfds non-file before they marked such opens so too (kind other) wrote them
 * this way: non-file, as a recorder now makes them.
 */
static int disp__reopens_memfd(const struct disp *d, const struct reel_op *op,
			       const struct rpath *p1)
{
	const char *rest;
	int fd;

	return d->fd_paths_known && op->fd_kind == REEL_FD_REG &&
	       !strncmp(p1->orig, "/proc/", 6) &&
	       cvt_proc_link(p1->orig, op->pid, &fd, &rest) == CVT_LINK_FD && !*rest;
}

/* a symlink's content, made or read: a string, which names nothing the op looks up */
static int path2__is_content(unsigned t)
{
	return t == REEL_OP_SYMLINK || t == REEL_OP_SYMLINKAT || t == REEL_OP_READLINK ||
	       t == REEL_OP_READLINKAT;
}

/* What an open of a non-file name p1 (or of a non-file kind) is (disp__nonfile). */
static int disp__open_nonfile(const struct disp *d, const struct reel_op *op,
			      const struct rpath *p1, int kind_nonfile)
{
	if (!p1 || !p1->via_link || kind_nonfile)
		return DISP_NONFILE;
	if (p1->climbs)
		return DISP_UNNAMED; /* a lookup in the file system, whatever it found */
	if (op->ret < 0 || (op->fd_kind != REEL_FD_REG && op->fd_kind != REEL_FD_DIR) ||
	    disp__reopens_memfd(d, op, p1))
		return DISP_NONFILE;
	return DISP_UNNAMED;
}

/*
 * Non-file I/O (pipes, sockets, /proc...) is the application's think time: not replayed
 * (DISP_NONFILE). Nor is a regular file or directory opened through a /proc or /dev link to
 * it (`tar cf /dev/stdout > out.tar`, `wc -c /dev/stdin < f`, "/proc/self/cwd/x") in a trace
 * recorded before the capture named the file itself: the trace has no name of it to
 * replay at, but its ops were file I/O, counted as not replayed (DISP_UNNAMED), never as
 * think time. Nor is an op on a name whose ".." climbs from a /proc link's directory
 * ("/proc/self/cwd/../x"), which the recorder keeps when it could not tell where that led
 * (capture.links_unresolved): file system work at a place the trace does not name.
 */
static int disp__nonfile(struct disp *d, const struct reel_op *op, const struct rpath *p1,
			 const struct rpath *p2)
{
	uint64_t fk = (uint64_t)op->pid << 32 | (uint32_t)op->fd, *v;
	uint64_t rk = (uint64_t)op->pid << 32 | (uint32_t)op->ret; /* an open's, a dup's fd */
	int kind_nonfile = op->fd_kind == REEL_FD_CHR || op->fd_kind == REEL_FD_FIFO ||
			   op->fd_kind == REEL_FD_SOCK || op->fd_kind == REEL_FD_OTHER;
	int how;

	if (op__is_open(op->type)) {
		if ((p1 && p1->nonfile) || kind_nonfile) {
			how = disp__open_nonfile(d, op, p1, kind_nonfile);
			if (op->ret >= 0)
				replay_u64map__put(&d->skipfd, rk,
						   how == DISP_UNNAMED ? SKIP_UNNAMED : SKIP_NONFILE);
			return how;
		}
		if (op->ret >= 0)
			replay_u64map__del(&d->skipfd, rk);
		return 0;
	}
	if (replay_op__on_fd(op) && (v = replay_u64map__get(&d->skipfd, fk))) {
		how = *v == SKIP_UNNAMED ? DISP_UNNAMED : DISP_NONFILE;
		if (op->type == REEL_OP_CLOSE)
			replay_u64map__del(&d->skipfd, fk);
		else if (op__is_dup(op->type) && op->ret >= 0)
			replay_u64map__put(&d->skipfd, rk, *v);
		return how;
	}
	if ((p1 && p1->climbs) || (p2 && p2->climbs && !path2__is_content(op->type)))
		return DISP_UNNAMED;
	if ((p1 && p1->nonfile) || replay_op__copy_net_err(op))
		return DISP_NONFILE;
	if (op->type == REEL_OP_MMAP && op->fd < 0)
		return DISP_NONFILE;
	if (op->type == REEL_OP_CLOSE && kind_nonfile)
		return DISP_NONFILE;
	return kind_nonfile && op->fd >= 0 && !reel_op__has_path(op->type) ? DISP_NONFILE : 0;
}

/*
 * An op of a file opened through a /proc or /dev link of an old trace, or on a name that
 * climbs from one's directory (disp__nonfile).
 */
static void disp__unnamed(struct disp *d, const struct ritem *it)
{
	const struct rpath *up = it->p1 && it->p1->climbs ? it->p1
				 : it->p2 && it->p2->climbs && !path2__is_content(it->op.type)
				     ? it->p2
				     : NULL;

	atomic_fetch_add_explicit(&d->run->ops_unnamed, 1, memory_order_relaxed);
	/* the example's slot holds 160 bytes: the op, its name and pid, then this */
	if (up) {
		exec__fail(d->run, REPLAY_FAIL_UNSUPPORTED, &it->op, up,
			   "where its \"..\" led, the recording could not say "
			   "(capture.links_unresolved)");
		return;
	}
	exec__fail(d->run, REPLAY_FAIL_UNSUPPORTED, &it->op, it->p1,
		   it->op.fd_kind == REEL_FD_DIR
		       ? "directory opened through this /dev or /proc link: its own name is not "
			 "in the trace"
		       : "regular file opened through this /dev or /proc link: its own name is "
			 "not in the trace");
}

static void pexit__saw_fd(struct pexit *pe, int64_t fd)
{
	if (fd >= 0 && fd < RUN_FD_MAX && (uint32_t)fd >= pe->fds)
		pe->fds = (uint32_t)fd + 1;
}

/* the fds an op names, or makes (an open's, a dup's): those its process's end drops */
static void pexit__saw_fds(struct pexit *pe, const struct reel_op *op)
{
	pexit__saw_fd(pe, op->fd);
	if (reel_op__is_copy(op->type))
		pexit__saw_fd(pe, op->fd2);
	if (op__is_open(op->type) || op__is_dup(op->type))
		pexit__saw_fd(pe, op->ret);
}

/* an item of no op for thread pid/tid: a worker's hand-over to it, or (with deps) a wait */
void item__none(struct ritem *it, uint32_t pid, uint32_t tid)
{
	memset(it, 0, offsetof(struct ritem, deps));
	it->op.type = REEL_OP_NONE;
	it->op.pid = pid;
	it->op.tid = tid;
}

/*
 * Is there a worker whose thread has ended to hand on to a new thread? Only one that has
 * done its queue, or the thread would start behind the ended one's backlog (a process that
 * began while an earlier one was still behind its schedule waited for all of it, and the
 * report took the wait for wake-up lateness), unless there are as many workers as the
 * queues' memory was sized for. The longest released is the likeliest done.
 */
static int disp__idle_ready(struct disp *d)
{
	struct rworker *w;

	if (d->idle_head == d->nidle)
		return 0;
	w = d->run->workers[d->idle[d->idle_head]];
	/* its queue taken to the end: items of no op too (its process's end, which waits for
	 * the process's other threads); staged, a segment runs whole before the next is read */
	return (atomic_load(&w->done_seq) >= w->pushed_seq &&
		(d->run->staged || atomic_load(&w->head) == atomic_load(&w->tail))) ||
	       atomic_load(&d->run->nworkers) >= d->max_workers;
}

int disp__worker(struct disp *d, uint32_t pid, uint32_t tid, struct rworker **out)
{
	uint64_t k = (uint64_t)pid << 32 | tid;
	uint64_t *v = replay_u64map__get(&d->workers, k);
	struct rworker *w;

	if (v) {
		*out = d->run->workers[*v];
		return 0;
	}
	if (disp__idle_ready(d)) {
		/* a worker whose thread has ended: it takes this thread on after its queue */
		struct ritem rebind;

		w = d->run->workers[d->idle[d->idle_head++]];
		if (d->idle_head == d->nidle)
			d->idle_head = d->nidle = 0;
		item__none(&rebind, pid, tid);
		disp__push(d, w, &rebind);
		w->bound_seq = d->seq;
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
	replay_u64map__del(&d->left, tk); /* at 0: thousands of short threads, no entries */
}

/*
 * Thread tk has no ops left (before disp__release: its worker is still its own): its last op
 * is one its process's end waits for, and the last of its process's threads ends the process.
 */
static void disp__thread_end(struct disp *d, uint64_t tk)
{
	uint64_t *v = replay_u64map__get(&d->plive, tk >> 32), *wv;
	struct pexit *pe;
	struct rworker *w;
	uint32_t i;

	if (!v)
		return;
	pe = (struct pexit *)(uintptr_t)*v;
	wv = replay_u64map__get(&d->workers, tk);
	w = wv ? d->run->workers[*wv] : NULL;
	if (w && w->pushed_seq) {
		for (i = 0; i < pe->n && pe->last[i].w != w->idx; i++)
			;
		if (i == pe->n && pe->n == pe->cap) {
			uint32_t cap = pe->cap ? pe->cap * 2 : 2;
			struct rdep *l = realloc(pe->last, cap * sizeof(*l));

			if (l) {
				pe->last = l;
				pe->cap = cap;
			}
		}
		if (i < pe->cap) {
			pe->last[i].w = w->idx;
			pe->last[i].seq = w->pushed_seq;
			pe->n += i == pe->n;
		}
	}
	if (--pe->left)
		return;
	replay_u64map__del(&d->plive, tk >> 32);
	disp__exit(d, (uint32_t)(tk >> 32), pe);
	pexit__free(pe);
}

void pexit__free(struct pexit *pe)
{
	free(pe->last);
	free(pe->proc);
	free(pe);
}

struct pproc *pexit__proc(struct pexit *pe)
{
	if (!pe->proc)
		pe->proc = calloc(1, sizeof(*pe->proc));
	return pe->proc;
}

/*
 * The op the dispatcher takes next went to the kernel in the same syscall as op: the worker
 * that finds it not queued yet is to wait for it (ITEM_CALL_GOES_ON), where it used to submit
 * the batch without it, and the rest as a batch of their own: on a loaded machine a dispatcher
 * slower than its worker split a batch of 8 into 1 and 7.
 */
static int disp__call_goes_on(const struct disp *d, const struct reel_op *op)
{
	const struct reel_op *next;

	if (op->type != REEL_OP_AIO_SUBMIT && op->type != REEL_OP_URING_SUBMIT)
		return 0;
	next = lookahead__peek(&d->la);
	return next && batch__same_call(op, next);
}

static void disp__test_delay(struct disp *d)
{
	struct timespec ts = {(time_t)(d->test_delay_us / 1000000),
			      (long)(d->test_delay_us % 1000000) * 1000};

	disp__ring_owed(d); /* a worker owed a ring would sleep through the delay */
	nanosleep(&ts, NULL);
}

int disp__run(struct disp *d)
{
	struct run *run = d->run;
	struct rworker *w;
	struct ritem it;
	uint64_t at, tk, *left;
	int err, last, skip;

	memset(&it, 0, sizeof(it));
	while ((err = lookahead__next(&d->la, d->r, &it.op)) != 0 && !run__interrupted(run)) {
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
			/* threads of one process take turns: its entry is looked up once */
			if (!d->cvalid || it.op.pid != d->ctk >> 32) {
				uint64_t *pv = replay_u64map__get(&d->plive, it.op.pid);

				d->cpe = pv ? (struct pexit *)(uintptr_t)*pv : NULL;
			}
			d->cleft = replay_u64map__get(&d->left, tk);
			d->ctk = tk;
			d->cw = NULL;
			d->cvalid = 1;
		}
		left = d->cleft;
		last = left && *left && !--*left;
		if (d->cpe)
			pexit__saw_fds(d->cpe, &it.op);
		it.p1 = disp__path(d, it.op.path);
		it.p2 = disp__path(d, it.op.path2);
		if ((skip = disp__nonfile(d, &it.op, it.p1, it.p2))) {
			if (skip == DISP_UNNAMED)
				disp__unnamed(d, &it);
			else
				run->sum->ops_nonfile++;
			if (last) {
				disp__thread_end(d, tk);
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
			atomic_store(&run->disp_seq, UINT64_MAX);
			disp__ring_owed(d);
			return err;
		}
		it.seq = ++d->seq;
		/* a completion record's start is its request's submission: it is due when it
		 * was reaped, its end (FORMAT.md, "Fields per op type") */
		at = is_complete(it.op.type) ? it.op.end_ns : it.op.start_ns;
		it.sched_rel =
		    at > d->base ? (uint64_t)((double)(at - d->base) / run->o->speed) : 0;
		it.flags = 0;
		/* its thread's first op, or its first since its process's fork (a pid used
		 * again: the thread is bound still from the earlier process's) */
		d->cfirst = w->pushed_seq <= w->bound_seq ||
			    (d->cpe && d->cpe->proc && d->cpe->proc->born.seq > w->pushed_seq);
		disp__deps(d, &it, w->idx);
		w->pushed_seq = it.seq;
		if (disp__call_goes_on(d, &it.op))
			it.flags |= ITEM_CALL_GOES_ON;
		disp__push(d, w, &it);
		atomic_store_explicit(&run->disp_seq, it.seq, memory_order_release);
		if (d->test_delay_us)
			disp__test_delay(d);
		if (last) {
			disp__thread_end(d, tk);
			disp__release(d, tk);
			d->cvalid = 0;
		}
	}
	atomic_store(&run->disp_seq, UINT64_MAX); /* no more to wait for (batch__gather) */
	disp__ring_owed(d); /* (the end rings every worker too, for eof) */
	return 0;
}
