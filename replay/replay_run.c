/* SPDX-License-Identifier: MIT */
/*
 * replay_run.c - the replay proper: sets up a run, starts the dispatcher (replay_disp.c), which
 * streams the trace to one worker thread per original thread (replay_worker.c) in the order
 * that matters across threads (replay_deps.c) and, as fast as possible, in segments
 * (replay_stage.c); the writer thread here writes the results, the monitor the progress line;
 * at the end the run's meta and summary.
 *
 * Memory: the trace is never loaded; queues hold at most RUN_QUEUE_CAP ops per thread (fewer
 * with thousands of threads), results go out in batches.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "replay_disp.h"

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

uint64_t replay_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * With a schedule to keep, the dispatcher and the writer are background work: nice 10, so
 * that a worker waking up for its op preempts them (zstd bursts would otherwise delay it).
 * As fast as possible, they are the pace: left alone.
 */
void background__enter(const struct run *run, struct run_bg *bg)
{
	memset(bg, 0, sizeof(*bg));
	bg->prio = getpriority(PRIO_PROCESS, (id_t)gettid());
	bg->sched = run->o->timing != REPLAY_TIMING_AFAP;
	if (bg->sched)
		bg->in = !setpriority(PRIO_PROCESS, (id_t)gettid(), RUN_BACKGROUND_NICE);
}

/*
 * Workers wait for the thread (their items, room for their results): it is the replay's
 * pace, and at nice 10 on CPUs that the workers and the kernel's io-wq threads keep busy it
 * gets a sliver of one (replay_disp.c, disp__wake). A thread without CAP_SYS_NICE cannot
 * lower its nice value again (RLIMIT_NICE): it stays behind then, and says so in the
 * workers' waits (replay.items_late).
 */
void background__leave(struct run_bg *bg)
{
	if (!bg->in || bg->locked)
		return;
	if (setpriority(PRIO_PROCESS, (id_t)gettid(), bg->prio))
		bg->locked = 1;
	else
		bg->in = 0;
}

void background__return(struct run_bg *bg)
{
	if (!bg->sched || bg->in || bg->locked ||
	    setpriority(PRIO_PROCESS, (id_t)gettid(), RUN_BACKGROUND_NICE))
		return;
	bg->in = 1;
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
	/* a process record is instant (start = end): it has no latency to show */
	if (res->type < REEL_OP__COUNT && !reel_op__is_process(res->type)) {
		if (!run->lat[res->type])
			run->lat[res->type] = calloc(1, sizeof(struct replay_pctl));
		if (run->lat[res->type])
			replay_pctl__add(run->lat[res->type], res->end_ns - res->start_ns);
	}
}

/* Takes an empty result batch from those the writer is done with; under blk. NULL: out of
 * memory (the worker's results are then measured but not kept, and counted). */
struct rbatch *run__batch_take(struct run *run)
{
	struct rbatch *b = run->bfree;

	if (b)
		run->bfree = b->next;
	else
		b = malloc(sizeof(*b));
	if (b)
		b->n = 0;
	return b;
}

/*
 * The CPUs the workers are pinned to, one each, when the trace has no more threads than the
 * replayer may use CPUs (its affinity: taskset, a cpuset), and the workers never sleep:
 * staged (afap), or spinning to their schedule all the way (--spin). The scheduler places a
 * thread that never sleeps once, and moves it only when it balances the CPUs' load: woken
 * together at a segment's release, or started together by the dispatcher, two such workers
 * were often put on one CPU while the other idled, afap for 3-11 ms, with --spin for up to
 * ~30 ms (1 replay in 3: half the first 50 ops late by up to 4 ms, the workers taking turns
 * on one CPU). A worker that sleeps between its ops is placed anew at each wake-up: left to
 * the scheduler. IOREEL_TEST_NO_PIN=1 (tests and A/B runs) leaves them all to it.
 */
static void run__pin_plan(struct run *run, size_t nthreads)
{
	cpu_set_t set;

	run->npin = 0;
	if (!(run->staged || run->o->spin_us == REPLAY_SPIN_ALWAYS) ||
	    getenv("IOREEL_TEST_NO_PIN") ||
	    sched_getaffinity(0, sizeof(set), &set) || nthreads > (size_t)CPU_COUNT(&set))
		return;
	for (int c = 0; c < CPU_SETSIZE && run->npin < RUN_PIN_MAX; c++)
		if (CPU_ISSET(c, &set))
			run->pin_cpu[run->npin++] = c;
	if ((size_t)run->npin < nthreads)
		run->npin = 0;
}

void run__pin(struct run *run, uint32_t idx)
{
	cpu_set_t set;

	if (!run->npin)
		return;
	CPU_ZERO(&set);
	CPU_SET(run->pin_cpu[idx % (uint32_t)run->npin], &set);
	sched_setaffinity(0, sizeof(set), &set); /* failing, the scheduler places it */
}

/* Queues batch b for the writer, once the backlog has room; run->blk held. */
void run__batch_queue(struct run *run, struct rbatch *b)
{
	while (run->npending >= run->max_pending) {
		run->wbehind = 1; /* the writer is the pace: out of the background (writer__main) */
		pthread_cond_wait(&run->bspace, &run->blk);
	}
	b->next = NULL;
	if (run->btail)
		run->btail->next = b;
	else
		run->bhead = b;
	run->btail = b;
	run->npending++;
}

/*
 * The result batches the replay will need at once, allocated and written to before time 0.
 * Taken fresh inside the replay, each page of them is faulted in by a worker between two of
 * its ops: with a schedule, a fault makes the op after it late (as fast as possible, when the
 * workers filled them, the first segment's ~12 MiB cost a worker ~3000 page faults, ~1 % of
 * its rate; they are the pause's now, stage__results). As many as the trace can fill, beside
 * one part-filled batch per worker (nworkers; staged, none).
 */
static void run__batches_ahead(struct run *run, uint64_t nops, size_t nworkers)
{
	uint64_t want = nops / RUN_BATCH + 1;

	if (want > run->max_pending)
		want = run->max_pending;
	want += nworkers;
	for (uint64_t i = 0; i < want; i++) {
		struct rbatch *b = malloc(sizeof(*b));

		if (!b)
			return; /* taken later, or measured and not kept */
		memset(b, 0, sizeof(*b)); /* its pages faulted in now */
		b->next = run->bfree;
		run->bfree = b;
	}
}

/*
 * How often the writer looks for result batches while the workers replay with a schedule
 * (they queue them without waking it: worker__flush). At 1 M ops/s, 10 ms of results is 40
 * batches: far below RUN_MAX_PENDING_BATCHES. Slower traces fill a batch in far more than
 * 10 ms (two threads at 2.5 k ops/s: ~200 ms), and each poll that finds nothing still takes
 * a CPU from a worker (with --spin and as many workers as cores, ~100 preemptions a second
 * for nothing): the poll doubles after one that found nothing, halves after one that found
 * a batch, so that it comes about once per batch, up to WRITER_POLL_MAX_NS of results kept
 * before they are written.
 */
#define WRITER_POLL_MIN_NS 10000000ULL
#define WRITER_POLL_MAX_NS 250000000ULL

/* the next poll after one that found a batch to write (found) or none */
static uint64_t writer__next_poll(uint64_t poll, int found)
{
	if (found)
		return poll / 2 > WRITER_POLL_MIN_NS ? poll / 2 : WRITER_POLL_MIN_NS;
	return poll * 2 < WRITER_POLL_MAX_NS ? poll * 2 : WRITER_POLL_MAX_NS;
}

static void *writer__main(void *arg)
{
	struct run *run = arg;
	struct rbatch *b;
	struct run_bg bg;
	int err;
	uint64_t cpu0 = thread_cpu_ns(), poll = WRITER_POLL_MIN_NS;

	pthread_setname_np(pthread_self(), "ioreel-writer");

	background__enter(run, &bg);
	pthread_mutex_lock(&run->blk);
	for (;;) {
		/* held (a segment runs): a full backlog is written anyway, memory stays bounded */
		while (!run->bstop &&
		       (!run->bhead || (run->hold && run->npending < run->max_pending))) {
			uint64_t t = replay_now_ns() + poll;
			struct timespec ts = {.tv_sec = (time_t)(t / 1000000000ULL),
					      .tv_nsec = (long)(t % 1000000000ULL)};

			background__return(&bg); /* ahead of the workers */
			/* held, a segment runs: its results are in its items, the pause signals (a
			 * poll would take a worker's CPU for nothing) */
			if (run->hold) {
				pthread_cond_wait(&run->bcond, &run->blk);
			} else {
				pthread_cond_timedwait(&run->bcond, &run->blk, &ts);
				poll = writer__next_poll(poll, run->bhead != NULL);
			}
		}
		if (run->wbehind) {
			run->wbehind = 0;
			background__leave(&bg);
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

/* the ops that failed to match the original so far, split as the summary splits them */
static void progress__outcomes(struct run *run, struct replay_progress *p)
{
	for (int k = 0; k < REPLAY_FAIL__COUNT; k++) {
		uint64_t n = atomic_load_explicit(&run->fail[k], memory_order_relaxed);

		if (replay_fail__differs(k))
			p->differing += n;
		else if (replay_fail__not_replayed(k))
			p->not_replayed += n;
	}
}

static void *monitor__main(void *arg)
{
	struct run *run = arg;
	struct replay_progress p;
	uint64_t t0, orig_span = run->fs->last_start_ns > run->fs->first_start_ns
				 ? run->fs->last_start_ns - run->fs->first_start_ns
				 : 0;

	pthread_setname_np(pthread_self(), "ioreel-progress");

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
		/* what the workers will do: not the ops the dispatcher left out, think time or
		 * not replayed (an old trace's ops through /dev/stdout), which they never count */
		p.ops_total = run->fs->nops - run->sum->ops_nonfile -
			      atomic_load_explicit(&run->ops_unnamed, memory_order_relaxed);
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
		progress__outcomes(run, &p);
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

void run__meta(struct run *run, struct reel_reader *trace)
{
	const struct replay_opts *o = run->o;
	const char *of_start = reel_reader__meta(trace, REEL_META_START_WALL_NS);
	char buf[8192];
	struct utsname u;
	struct timespec rt;
	size_t off = 0;

	meta__set(run, REEL_META_TOOL, "ioreel replay 0.1");
	/* absolute, so that 'ioreel report RESULT' finds the trace from any directory */
	meta__set(run, REEL_META_REPLAY_OF, realpath(o->trace, buf) ? buf : o->trace);
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
	/* the file set in the page cache at the start (replay_cache.c) */
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)run->sum->cache.disk_bytes);
	meta__set(run, "replay.cache.disk_bytes", buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)run->sum->cache.resident_bytes);
	meta__set(run, "replay.cache.resident_bytes", buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)run->sum->cache.ram_bytes);
	meta__set(run, "replay.cache.ram_bytes", buf);
	meta__set(run, "replay.direct", o->direct_keep ? "keep" : "drop");
	meta__set(run, "replay.clock", replay_clock__name(o));
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)run->syscall_ns);
	meta__set(run, "replay.syscall_ns", buf);
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
	s->enospc = atomic_load(&run->enospc);
	s->noop_closes = atomic_load(&run->noop_closes);
	s->lock_waits_abandoned = atomic_load(&run->lock_waits_abandoned);
	s->unlinks_mapped = mmaps__unlinks_kept(run);
	s->xattr_ops = run->xattr_ops;
	s->direct_dropped = atomic_load(&run->direct_dropped);
	s->direct_failed = atomic_load(&run->direct_failed);
	s->threads = atomic_load(&run->nworkers);
	s->ops_issued = 0;
	s->order_waits = s->order_wait_ns = s->order_wait_max = s->lane_ops = 0;
	s->items_late = s->items_late_ns = 0;
	s->worker_busy_max = atomic_load(&run->worker_busy_max);
	s->dispatch_runq = run->dispatch_runq;
	s->worker_runq_max =
	    run->dispatch_runq == UINT32_MAX ? UINT32_MAX : atomic_load(&run->worker_runq_max);
	for (uint32_t i = 0; i < s->threads; i++) {
		struct rworker *w = run->workers[i];

		s->ops_issued += w->issued;
		s->items_late += w->items_late;
		s->items_late_ns += w->items_late_ns;
		s->order_waits += w->order_waits;
		s->lane_ops += w->lane_ops;
		s->order_wait_ns += w->order_wait_ns;
		if (w->order_wait_max > s->order_wait_max)
			s->order_wait_max = w->order_wait_max;
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
		free(w->ab);
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
	for (size_t i = 0; i < run->pids.cap; i++)
		if (run->pids.used[i])
			rpid__free((struct rpid *)(uintptr_t)run->pids.v[i]);
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
	for (size_t i = 0; i < d->plive.cap; i++) {
		if (d->plive.used[i]) {
			pexit__free((struct pexit *)(uintptr_t)d->plive.v[i]);
		}
	}
	replay_u64map__free(&d->plive);
	free(d->idle);
	replay_u64map__free(&d->skipfd);
	replay_u64map__free(&d->fdnames);
	dt__free(&d->dt);
	lookahead__free(&d->la);
	free(d->adone);
	for (size_t i = 0; i < d->awrites.cap; i++)
		if (d->awrites.used[i])
			free((void *)(uintptr_t)d->awrites.v[i]);
	replay_u64map__free(&d->awrites);
	free(d->awaits);
	free(d->wpaths);
}

/*
 * The fds the trace did not open whose name goes before their first use (replay_fileset's
 * early list): opened now, before time 0, while the name still holds the file they had. One
 * that fails is left to its first use, which fails as it did before, counted.
 */
static void run__open_early(struct run *run, const struct replay_fileset *fs)
{
	for (size_t i = 0; i < fs->nearly; i++) {
		const struct replay_early_fd *e = &fs->early[i];
		struct rpid *rp;
		int32_t v = RFD_UNKNOWN;
		int fd;

		if (e->fd < 0 || e->fd >= RUN_FD_MAX || !(rp = run__pid(run, e->pid)))
			continue;
		fd = exec__open_found(run, e->pid, e->fd, run->m->roots[e->root].fd, e->rel, 0);
		if (fd >= 0 && !atomic_compare_exchange_strong(rpid__slot(rp, e->fd), &v, fd))
			close(fd);
	}
}

/*
 * The CPU time the machine's other processes used so far (/proc/stat's busy time of every
 * CPU less this process's own, getrusage): on a machine shared with other work the replay's
 * threads wait for a CPU, and their late wake-ups are that work's. UINT64_MAX: not known.
 */
static uint64_t others_cpu_ns(void)
{
	long hz = sysconf(_SC_CLK_TCK);
	struct reel_cpu_sample cpu;
	struct rusage ru;
	uint64_t busy, self;

	if (reel_cpu__sample(&cpu) || hz <= 0 || getrusage(RUSAGE_SELF, &ru))
		return UINT64_MAX;
	busy = (cpu.total - cpu.idle) * (1000000000ull / (uint64_t)hz);
	self = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
	return busy > self ? busy - self : 0;
}

/*
 * The dispatcher's share of its time since wall0 that it waited for a CPU, runnable, in
 * thousandths (runq0: its wait up to then); UINT32_MAX: the kernel does not say. Ahead of the
 * workers at nice 10 it waits for any CPU the workers take, which delays nothing; behind
 * (replay.items_late), a wait for a CPU that other processes held is what put it there.
 */
static uint32_t dispatch__runq(uint64_t runq0, uint64_t wall0)
{
	uint64_t runq = thread_runq_ns(), wall = replay_now_ns() - wall0;

	if (runq0 == UINT64_MAX || runq == UINT64_MAX)
		return UINT32_MAX;
	if (!wall || runq - runq0 >= wall)
		return 1000;
	return (uint32_t)((runq - runq0) * 1000 / wall);
}

/* Streams the trace to the workers and waits for them; the result is written meanwhile. */
int replay_run__replay(const struct replay_opts *o, const struct replay_mapper *m,
		       const struct replay_fileset *fs, struct replay_summary *sum)
{
	/* aligned: the fields every worker reads at every op keep a cache line of their own */
	struct run *run = aligned_alloc(_Alignof(struct run), sizeof(*run));
	struct disp d = {0};
	pthread_t mon, wth;
	int err, mon_on = 0, wth_on = 0;
	uint64_t cpu0, others0 = UINT64_MAX, runq0, wall0;
	struct reel_cpu_sample busy0 = {0}, busy1;
	double busy = -1;
	size_t prespawn, nqueues;

	if (!run)
		return -ENOMEM;
	memset(run, 0, sizeof(*run));
	run->dispatch_runq = UINT32_MAX; /* not measured (yet) */
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
	if (getenv("IOREEL_TEST_DISPATCH_DELAY_US"))
		d.test_delay_us = strtoull(getenv("IOREEL_TEST_DISPATCH_DELAY_US"), NULL, 10);
	if (lookahead__init(&d.la)) {
		err = -ENOMEM;
		replay_set_error("out of memory");
		goto out;
	}
	/*
	 * Bounded memory whatever the thread count: ~64 MiB of queued ops at most, over the
	 * queues that can exist at once. Workers of ended threads are handed on, so there are at
	 * most as many as threads alive at once, plus those started ahead for threads that have
	 * not begun yet (prespawn); twice that, as a worker is handed on only once it has done
	 * its queue (disp__idle_ready), and threads that followed one another in the original
	 * may overlap in a replay that fell behind.
	 */
	prespawn = fs->max_live < RUN_PRESPAWN ? fs->max_live : RUN_PRESPAWN;
	nqueues = 2 * (fs->max_live + prespawn);
	if (nqueues > fs->ntids)
		nqueues = fs->ntids;
	if (nqueues > RUN_MAX_WORKERS)
		nqueues = RUN_MAX_WORKERS;
	queue__size(fs->ntids, nqueues);
	d.max_workers = (uint32_t)nqueues;
	run->max_pending = RUN_MAX_PENDING_BATCHES;
	run->staged = o->timing == REPLAY_TIMING_AFAP;
	if (run->staged) {
		/* one segment buffer for all threads, whatever their number; its results wait in
		 * it for the pause */
		uint64_t threads = (uint64_t)fs->ntids * RUN_STAGE_THREAD_BYTES;
		uint64_t budget = RUN_STAGE_BUDGET > threads + RUN_STAGE_MIN
					  ? RUN_STAGE_BUDGET - threads : RUN_STAGE_MIN;

		run->seg_cap = (uint32_t)(budget / (sizeof(struct ritem) + sizeof(struct rlane)));
		run->cut_div = RUN_CUT_DIV;
		stage__test_knob(run);
		run->seg = aligned_alloc(RUN_ITEM_ALIGN, (size_t)run->seg_cap * sizeof(struct ritem));
		run->lane = aligned_alloc(RUN_ITEM_ALIGN, (size_t)run->seg_cap * sizeof(struct rlane));
		seg__chunking(run, d.max_workers);
		if (!run->seg || !run->lane) {
			err = -ENOMEM;
			replay_set_error("cannot allocate the segment buffer");
			goto out;
		}
		/* a segment's results, in full batches but the last (stage__results): all of
		 * them, up to a budget, after which the pause waits for the writer */
		run->max_pending = run->seg_cap / RUN_BATCH + 1;
		if (run->max_pending > RUN_STAGE_RESULTS_BUDGET / sizeof(struct rbatch))
			run->max_pending = RUN_STAGE_RESULTS_BUDGET / sizeof(struct rbatch);
	}
	run__pin_plan(run, fs->ntids);
	run__batches_ahead(run, fs->nops, run->staged ? 0 : prespawn);
	if (o->timing == REPLAY_TIMING_AFAP)
		replay_clock__calibrate();
	run->syscall_ns = replay_clock__syscall_ns(o);
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
	{
		const char *too_long = reel_reader__meta(d.r, REEL_META_CAPTURE_PATHS_TOO_LONG);

		d.fd_paths_known = too_long && !strcmp(too_long, "0");
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
	run__open_early(run, fs);
	if (pthread_create(&wth, NULL, writer__main, run)) {
		err = -EAGAIN;
		replay_set_error("cannot start the result writer thread");
		goto out;
	}
	wth_on = 1;
	/* workers first, so that thread creation does not make the first ops late */
	for (size_t i = 0; i < fs->ntids; i++) {
		uint64_t *v = replay_u64map__get(&d.plive, fs->tids[i] >> 32);
		struct pexit *pe = v ? (struct pexit *)(uintptr_t)*v : calloc(1, sizeof(*pe));

		if (!pe || replay_u64map__put(&d.left, fs->tids[i], fs->tid_ops[i]) ||
		    (!v && replay_u64map__put(&d.plive, fs->tids[i] >> 32, (uintptr_t)pe))) {
			if (!v)
				free(pe);
			err = -ENOMEM;
			goto stop;
		}
		pe->left++;
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
	background__enter(run, &d.bg);
	cpu0 = thread_cpu_ns();
	others0 = others_cpu_ns();
	if (reel_cpu__sample(&busy0))
		busy0.total = 0;
	runq0 = thread_runq_ns();
	wall0 = replay_now_ns();
	err = disp__run(&d);
	if (run->staged && !err)
		while (stage__run(&d)) /* the last segment, and what cuts leave of it */
			;
	if (run->staged && !run->segments)
		run__meta(run, d.r); /* nothing was replayed */
	disp__extent_stats(&d);
	disp__key_stats(&d);
	reel_reader__damage_sum(d.r, &run->sum->damage);
	/* read at the end: the capture writes it in the footer */
	if (reel_reader__meta(d.r, REEL_META_LOST_EVENTS))
		run->sum->lost_events =
		    strtoull(reel_reader__meta(d.r, REEL_META_LOST_EVENTS), NULL, 10);
	run->cpu_dispatch_ns = thread_cpu_ns() - cpu0;
	run->dispatch_runq = dispatch__runq(runq0, wall0);
	setpriority(PRIO_PROCESS, (id_t)gettid(), d.bg.prio);
stop:
	for (uint32_t i = 0; i < atomic_load(&run->nworkers); i++) {
		struct rworker *w = run->workers[i];

		atomic_store(&w->eof, 1);
		worker__ring(w);
	}
	for (uint32_t i = 0; i < atomic_load(&run->nworkers); i++)
		pthread_join(run->workers[i]->th, NULL);
	if (busy0.total && !reel_cpu__sample(&busy1))
		busy = reel_cpu__busy(&busy0, &busy1);
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
	/* a result of part of the trace must not pass for a whole one (report): an interrupted
	 * replay's, and a failed one's (it stopped at the error, and says which) */
	if (sum->interrupted || err)
		meta__u64(run->w, "replay.interrupted_after_ops", sum->ops_read);
	if (err)
		reel_writer__meta(run->w, "replay.failed",
				  *replay__last_error() ? replay__last_error() : strerror(-err));
	meta__u64(run->w, "replay.direct_dropped", sum->direct_dropped);
	meta__u64(run->w, "replay.enospc", sum->enospc);
	meta__u64(run->w, "replay.unlinks_mapped", sum->unlinks_mapped);
	meta__u64(run->w, "replay.lock_waits_abandoned", sum->lock_waits_abandoned);
	/* processes whose mappings were unmapped when they ended, as the kernel did */
	meta__u64(run->w, "replay.mmaps_exited", mmaps__exits(run));
	meta__u64(run->w, "replay.unsized_removed", sum->prep_unsized_gone);
	meta__u64(run->w, "replay.nonfile_ops", sum->ops_nonfile);
	/* not in the result: a report counting the closes of each says why they differ */
	meta__u64(run->w, "replay.noop_closes", sum->noop_closes);
	meta__u64(run->w, "replay.cpu_ns.workers", sum->cpu_workers_ns);
	meta__u64(run->w, "replay.cpu_ns.dispatch", sum->cpu_dispatch_ns);
	meta__u64(run->w, "replay.worker_page_faults", atomic_load(&run->worker_faults));
	meta__u64(run->w, "replay.order_waits", sum->order_waits);
	meta__u64(run->w, "replay.order_wait_ns", sum->order_wait_ns);
	meta__u64(run->w, "replay.order_wait_max_ns", sum->order_wait_max);
	if (!run->staged) {
		char num[24];

		meta__u64(run->w, "replay.items_late", sum->items_late);
		meta__u64(run->w, "replay.items_late_ns", sum->items_late_ns);
		snprintf(num, sizeof(num), "%.3f", sum->worker_busy_max / 1000.0);
		reel_writer__meta(run->w, "replay.worker_busy_max", num);
		if (sum->worker_runq_max != UINT32_MAX) {
			snprintf(num, sizeof(num), "%.3f", sum->worker_runq_max / 1000.0);
			reel_writer__meta(run->w, "replay.worker_runq_max", num);
			snprintf(num, sizeof(num), "%.3f", sum->dispatch_runq / 1000.0);
			reel_writer__meta(run->w, "replay.dispatch_runq", num);
		}
	}
	if (replay_clock__tsc_for(o))
		meta__u64(run->w, "replay.clock.tsc_dropped", replay_clock__dropped());
	/* what else ran on the machine meanwhile: the report's cause for late wake-ups */
	if (others0 != UINT64_MAX) {
		uint64_t others1 = others_cpu_ns();

		if (others1 != UINT64_MAX)
			meta__u64(run->w, "replay.cpu_ns.others",
				  others1 > others0 ? others1 - others0 : 0);
	}
	if (run->staged) {
		meta__u64(run->w, "replay.segments", sum->segments);
		meta__u64(run->w, "replay.paused_ns", sum->paused_ns);
		meta__u64(run->w, "replay.segments_cut", sum->seg_cuts);
		meta__u64(run->w, "replay.segments_cut_straggler", sum->seg_straggler_cuts);
		meta__u64(run->w, "replay.carried_ops", sum->carried);
		meta__u64(run->w, "replay.lane_ops", sum->lane_ops);
	}
	/* the writer's time up to the footer: all but the close that writes it */
	meta__u64(run->w, "replay.cpu_ns.writer", sum->cpu_writer_ns);
	/* beside the CPU times: did the replay fill the machine (report: "cpu_bound")? */
	{
		char num[24];

		snprintf(num, sizeof(num), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
		reel_writer__meta(run->w, "replay.cpus", num);
	}
	meta__u64(run->w, "replay.workers_pinned", run->npin ? 1 : 0);
	/* beside the capture's (capture.cpu_busy): the report says when the two differ */
	if (busy >= 0) {
		char num[24];

		snprintf(num, sizeof(num), "%.3f", busy);
		reel_writer__meta(run->w, REEL_META_REPLAY_CPU_BUSY, num);
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
	free(run->lane);
	free(run);
	return err;
}
