/* SPDX-License-Identifier: MIT */
/*
 * report_mktrace.c - writes a crafted original trace and three crafted replay results, and
 * the exact statistics of what it wrote (the ground truth the report tests check against):
 *
 *   DIR/orig.reel   2 threads; per iteration a pread64 of a cached table file (~3 us), a
 *                   pwrite64 to a WAL (~15 us) and an fsync of the WAL (~8 ms); plus
 *                   every 5th iteration an io_uring read (~200 us, submit + complete
 *                   records); socket reads (not storage work); opens.
 *   DIR/fast.reel   "replayed on /dev/shm/t": fsync ~14 us, the rest drawn alike; on time;
 *                   1% of its reads fail (EIO).
 *   DIR/equal.reel  everything drawn from the same distributions; on time.
 *   DIR/late.reel   same distributions, but issued ~20 ms behind schedule.
 *   DIR/afap.reel   as late, but replayed "as fast as possible": lateness is no fault there.
 *   DIR/truth.json  per run and op type: count, exact p50/p90/p99/p99.9/max, total; and
 *                   lateness p99; computed from the sorted samples, not from a histogram.
 *
 * With "pace", instead of the four replays, two whose lateness has opposite causes:
 *   DIR/slow.reel   "replayed on /var/tmp/slow": fsync takes ~30 ms where the schedule (the
 *                   original) gave it ~8 ms, so each op waits for its thread's previous op;
 *                   once the thread is free it starts within ~30 us.
 *   DIR/woke.reel   same distributions as the original, think time 30 ms, so the threads
 *                   are always free, but every op starts ~3 ms after its schedule.
 *   DIR/hiccup.reel "replayed on /dev/shm/hiccup": fsync ~14 us, far faster than the
 *                   original's, and on time but for one op per thread that starts 200 ms
 *                   late (a preempted replayer); the ops after it start as soon as their
 *                   thread is free, late until the fast fsyncs have caught up.
 *
 * With "closed", the original and "slow" of "pace" without think time: each op of the
 * original began as its thread's previous op ended (an I/O-bound closed loop), which the
 * report names when its replay with original timing cannot keep the pace.
 *
 * usage: report_mktrace DIR [ITERATIONS [pace|closed|staged]]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reel.h"
#include "test_rand.h"

enum { K_READ, K_WRITE, K_FSYNC, K_URING, K_N };
static const char *const kname[K_N] = {"pread64", "pwrite64", "fsync", "uring_read"};

struct run_spec {
	const char *name;
	const char *target; /* NULL: the original */
	double fsync_mu;    /* log of the fsync median, ns */
	double late_mu;	    /* log of the median lateness, ns */
	double slow_mu;	    /* log of the replay's fsync median when it differs from the
			     * schedule's (fsync_mu), or 0 */
	int queue;	    /* an op starts only after its thread's previous op ended */
	uint64_t think;	    /* the schedule's think time between ops */
};

struct sample {
	uint64_t *v;
	size_t n, cap;
};

static void push(struct sample *s, uint64_t v)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v)
			exit(1);
	}
	s->v[s->n++] = v;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t rank(const struct sample *s, double q)
{
	size_t r = (size_t)ceil(q * (double)s->n);
	if (r < 1)
		r = 1;
	return s->v[(r > s->n ? s->n : r) - 1];
}

static void truth(FILE *t, struct sample *s)
{
	uint64_t total = 0;
	if (!s->n) {
		fprintf(t, "null");
		return;
	}
	qsort(s->v, s->n, sizeof(*s->v), cmp_u64);
	for (size_t i = 0; i < s->n; i++)
		total += s->v[i];
	fprintf(t,
		"{\"count\": %zu, \"p50\": %llu, \"p90\": %llu, \"p99\": %llu, \"p999\": %llu, "
		"\"max\": %llu, \"total\": %llu}",
		s->n, (unsigned long long)rank(s, 0.5), (unsigned long long)rank(s, 0.9),
		(unsigned long long)rank(s, 0.99), (unsigned long long)rank(s, 0.999),
		(unsigned long long)(s->n ? s->v[s->n - 1] : 0), (unsigned long long)total);
}

/* the span of the run being written: first start .. last end */
static uint64_t span_first = UINT64_MAX, span_last;
static int staged_cpu; /* the afap run's CPU meta as a staged replay writes it */

static int add(struct reel_writer *w, struct reel_op *op)
{
	int err = reel_writer__add(w, op);

	if (op->start_ns < span_first)
		span_first = op->start_ns;
	if (op->end_ns > span_last)
		span_last = op->end_ns;
	if (err) {
		fprintf(stderr, "report_mktrace: failed to add op: %s\n", reel_strerror(err));
		exit(1);
	}
	return 0;
}

static int write_run(const char *dir, const struct run_spec *rs, long iters, FILE *t, int first)
{
	char path[4096], wal[512], table[512];
	struct reel_writer *w;
	struct sample lat[K_N] = {0}, late = {0};
	int err;

	snprintf(path, sizeof(path), "%s/%s.reel", dir, rs->name);
	if ((err = reel_writer__open(path, NULL, &w))) {
		fprintf(stderr, "report_mktrace: failed to open %s: %s\n", path,
			reel_strerror(err));
		return 1;
	}
	if (rs->target) {
		char orig[4096];
		snprintf(orig, sizeof(orig), "%s/orig.reel", dir);
		reel_writer__meta(w, REEL_META_REPLAY_OF, orig);
		reel_writer__meta(w, REEL_META_REPLAY_TARGETS, rs->target);
		reel_writer__meta(w, REEL_META_REPLAY_ENGINE, "sync");
		reel_writer__meta(w, REEL_META_REPLAY_TIMING,
				  strcmp(rs->name, "afap") ? "original" : "afap");
		if (!strcmp(rs->name, "fast")) /* tmpfs: O_DIRECT dropped on two opens */
			reel_writer__meta(w, "replay.direct_dropped", "2");
	} else {
		reel_writer__meta(w, REEL_META_TOOL, "report_mktrace");
		reel_writer__meta(w, REEL_META_LOST_EVENTS, "3");
	}
	/* A replay names the files under its target; the report strips the root. */
	snprintf(wal, sizeof(wal), "%s/data/db/wal", rs->target ? rs->target : "");
	snprintf(table, sizeof(table), "%s/data/db/table", rs->target ? rs->target : "");
	uint32_t wal_id, table_id;
	reel_writer__path(w, wal, &wal_id);
	reel_writer__path(w, table, &table_id);

	for (uint32_t tid = 100; tid < 102; tid++) {
		/* Threads run one after the other in the file; each in issue order. */
		uint64_t clock = 1000000 + tid, prev_end = 0;
		struct reel_op op = {
		    .pid = 100, .tid = tid, .fd = -1, .fd2 = -1, .fd_kind = REEL_FD_REG};
		int wal_fd = 10 + (int)tid - 100, table_fd = 20 + (int)tid - 100;
		const int fds[2] = {wal_fd, table_fd};
		const uint32_t ids[2] = {wal_id, table_id};

		for (int f = 0; f < 2; f++) { /* open both files */
			op.type = REEL_OP_OPENAT;
			op.path = ids[f];
			op.fd = -100;
			op.ret = fds[f];
			op.start_ns = clock;
			op.end_ns = clock + 5000;
			op.sched_ns = rs->target ? clock : 0;
			add(w, &op);
			clock += 10000;
		}
		for (long i = 0; i < iters; i++) {
			for (int k = 0; k < K_URING; k++) {
				double l;
				switch (k) {
				case K_READ:
					l = test_rand_lognormal(log(3000), 0.25);
					break;
				case K_WRITE:
					l = test_rand_lognormal(log(15000), 0.3);
					break;
				default:
					l = test_rand_lognormal(rs->fsync_mu, 0.3);
				}
				double lr = l; /* the replay's own latency */
				if (k == K_FSYNC && rs->slow_mu)
					lr = test_rand_lognormal(rs->slow_mu, 0.3);
				uint64_t sched = clock, start = clock;
				if (rs->target) {
					uint64_t lt =
					    (uint64_t)test_rand_lognormal(rs->late_mu, 0.5);
					if (!strcmp(rs->name, "hiccup") && i == 50 && k == K_READ)
						lt += 200000000;
					start =
					    (rs->queue && prev_end > sched ? prev_end : sched) + lt;
					push(&late, start - sched);
				}
				memset(&op, 0, sizeof(op));
				op.type = k == K_READ	 ? REEL_OP_PREAD64
					  : k == K_WRITE ? REEL_OP_PWRITE64
							 : REEL_OP_FSYNC;
				op.fd_kind = REEL_FD_REG;
				op.pid = 100;
				op.tid = tid;
				op.fd = k == K_READ ? table_fd : wal_fd;
				op.fd2 = -1;
				op.offset = (uint64_t)i * 8192;
				op.len = k == K_FSYNC ? 0 : 8192;
				op.ret = k == K_FSYNC ? 0 : 8192;
				/* The fast replay fails 1% of its reads (EIO): new failures. */
				if (k == K_READ && !strcmp(rs->name, "fast") && i % 100 == 7)
					op.ret = -5;
				op.start_ns = start;
				op.end_ns = start + (uint64_t)lr;
				op.sched_ns = rs->target ? sched : 0;
				add(w, &op);
				prev_end = op.end_ns;
				push(&lat[k], (uint64_t)lr);
				/* The schedule follows the original's rhythm: think 100 us. */
				clock += (uint64_t)l + rs->think;
			}
			if (i % 5 == 0) { /* an io_uring read: submission and completion records */
				uint64_t l = (uint64_t)test_rand_lognormal(log(200000), 0.4);
				memset(&op, 0, sizeof(op));
				op.type = REEL_OP_URING_SUBMIT;
				op.subop = 22; /* IORING_OP_READ */
				op.fd_kind = REEL_FD_REG;
				op.pid = 100;
				op.tid = tid;
				op.fd = table_fd;
				op.fd2 = -1;
				op.len = 4096;
				op.ctx = 7;
				op.aux = (uint64_t)i * 2 + tid;
				uint64_t at = rs->queue && prev_end > clock ? prev_end : clock;
				op.start_ns = op.end_ns = prev_end = at;
				op.sched_ns = rs->target ? clock : 0;
				add(w, &op);
				op.type = REEL_OP_URING_COMPLETE;
				op.ret = 4096;
				op.start_ns = op.end_ns = at + l;
				op.sched_ns = 0;
				add(w, &op);
				push(&lat[K_URING], l);
				if (rs->target)
					push(&late, at - clock);
				clock += l + rs->think;
			}
			if (i % 10 == 0) { /* a socket read: think time, not storage */
				memset(&op, 0, sizeof(op));
				op.type = REEL_OP_READ;
				op.fd_kind = REEL_FD_SOCK;
				op.pid = 100;
				op.tid = tid;
				op.fd = 3;
				op.fd2 = -1;
				op.len = 100;
				op.ret = 100;
				op.start_ns = rs->queue && prev_end > clock ? prev_end : clock;
				op.end_ns = prev_end = op.start_ns + 50000000;
				op.sched_ns = rs->target ? clock : 0;
				add(w, &op);
				clock += 50010000;
			}
		}
	}
	/*
	 * The replayer's CPU over the span (footer meta): the afap replay filled both CPUs
	 * (95 %, a tenth of it reading the trace and writing results); the others used little.
	 * "staged": the afap replay ran in segments; its workers alone filled 95 % of the span,
	 * the dispatcher and writer took half a span each in the pauses, outside it.
	 */
	if (rs->target && staged_cpu && !strcmp(rs->name, "afap")) {
		double span = (double)(span_last - span_first);
		char num[32];

		reel_writer__meta(w, "replay.cpus", "2");
		reel_writer__meta(w, "replay.segments", "4");
		snprintf(num, sizeof(num), "%.0f", span * 1.9);
		reel_writer__meta(w, "replay.cpu_ns.workers", num);
		snprintf(num, sizeof(num), "%.0f", span * 0.5);
		reel_writer__meta(w, "replay.cpu_ns.dispatch", num);
		reel_writer__meta(w, "replay.cpu_ns.writer", num);
	} else if (rs->target) {
		double span = (double)(span_last - span_first),
		       share = strcmp(rs->name, "afap") ? 0.3 : 1.9;
		char num[32];

		reel_writer__meta(w, "replay.cpus", "2");
		snprintf(num, sizeof(num), "%.0f", span * share * 0.9);
		reel_writer__meta(w, "replay.cpu_ns.workers", num);
		snprintf(num, sizeof(num), "%.0f", span * share * 0.05);
		reel_writer__meta(w, "replay.cpu_ns.dispatch", num);
		reel_writer__meta(w, "replay.cpu_ns.writer", num);
	}
	span_first = UINT64_MAX;
	span_last = 0;
	if ((err = reel_writer__close(w))) {
		fprintf(stderr, "report_mktrace: failed to close %s: %s\n", path,
			reel_strerror(err));
		return 1;
	}
	fprintf(t, "%s\n  \"%s\": {\"path\": \"%s\", \"ops\": {", first ? "" : ",", rs->name, path);
	for (int k = 0; k < K_N; k++) {
		fprintf(t, "%s\"%s\": ", k ? ", " : "", kname[k]);
		truth(t, &lat[k]);
		free(lat[k].v);
	}
	fprintf(t, "}, \"lateness\": ");
	if (late.n)
		truth(t, &late);
	else
		fprintf(t, "null");
	fprintf(t, "}");
	free(late.v);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct run_spec runs[] = {
	    {"orig", NULL, 0, 0, 0, 0, 100000},
	    {"fast", "/dev/shm/t", 0, 0, 0, 0, 100000},
	    {"equal", "/var/tmp/t", 0, 0, 0, 0, 100000},
	    {"late", "/var/tmp/late", 0, 0, 0, 0, 100000},
	    {"afap", "/var/tmp/afap", 0, 0, 0, 0, 100000},
	};
	static const struct run_spec pace_runs[] = {
	    {"orig", NULL, 0, 0, 0, 0, 100000},
	    {"slow", "/var/tmp/slow", 0, 0, 0, 1, 100000},
	    {"woke", "/var/tmp/woke", 0, 0, 0, 0, 30000000},
	    {"hiccup", "/dev/shm/hiccup", 0, 0, 0, 1, 100000},
	};
	static const struct run_spec closed_runs[] = {
	    {"orig", NULL, 0, 0, 0, 0, 0},
	    {"slow", "/var/tmp/slow", 0, 0, 0, 1, 0},
	};
	char path[4096];

	if (argc < 2) {
		fprintf(stderr, "usage: report_mktrace DIR [ITERATIONS [pace|closed|staged]]\n");
		return 2;
	}
	long iters = argc > 2 ? atol(argv[2]) : 2000;
	const char *mode = argc > 3 ? argv[3] : "";
	const struct run_spec *set = runs;
	size_t nset = sizeof(runs) / sizeof(runs[0]);

	staged_cpu = !strcmp(mode, "staged");
	if (!strcmp(mode, "pace")) {
		set = pace_runs;
		nset = sizeof(pace_runs) / sizeof(pace_runs[0]);
	} else if (!strcmp(mode, "closed")) {
		set = closed_runs;
		nset = sizeof(closed_runs) / sizeof(closed_runs[0]);
	}
	snprintf(path, sizeof(path), "%s/truth.json", argv[1]);
	FILE *t = fopen(path, "w");
	if (!t) {
		fprintf(stderr, "report_mktrace: failed to create %s: %s\n", path, strerror(errno));
		return 1;
	}
	fprintf(t, "{");
	for (size_t i = 0; i < nset; i++) {
		struct run_spec rs = set[i];
		rs.fsync_mu = !strcmp(rs.name, "fast") ? log(14000) : log(8e6);
		rs.late_mu = !strcmp(rs.name, "late") || !strcmp(rs.name, "afap") ? log(20e6)
			     : !strcmp(rs.name, "woke")				  ? log(3e6)
										  : log(30000);
		if (!strcmp(rs.name, "slow"))
			rs.slow_mu = log(30e6);
		if (!strcmp(rs.name, "hiccup"))
			rs.slow_mu = log(14000);
		if (write_run(argv[1], &rs, iters, t, i == 0))
			return 1;
	}
	fprintf(t, "\n}\n");
	return fclose(t) ? 1 : 0;
}
