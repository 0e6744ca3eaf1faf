/* SPDX-License-Identifier: MIT */
/*
 * rbench.h - helpers shared by the replay benchmarks' C programs: a trace loaded per thread
 * (data ops only, with the file each op touches), nearest-rank percentiles, a clock.
 *
 * The benchmarks' peers (sleep_floor, ceiling) must issue exactly the schedule and the ops
 * that ioreel replays, so they read the same trace through the format library instead of
 * regenerating it.
 */
#ifndef IOREEL_RBENCH_H
#define IOREEL_RBENCH_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct rbench_op {
	uint64_t start_ns; /* trace time of the original op */
	uint64_t offset;
	uint32_t len;
	uint16_t file; /* index into rbench_trace.files */
	uint8_t is_write;
};

struct rbench_thread {
	uint32_t tid;
	struct rbench_op *ops;
	size_t n, cap;
};

struct rbench_trace {
	struct rbench_thread *threads;
	size_t nthreads;
	char **files; /* paths as recorded (absolute, under the fake root) */
	uint64_t *file_extent; /* highest offset + len touched per file */
	size_t nfiles;
	uint64_t first_start_ns, last_start_ns, last_end_ns;
	size_t nops; /* data ops */
};

/* Loads the reads and writes of a trace; 0 or -errno / -REEL_E_*. */
int rbench_trace__load(const char *path, struct rbench_trace *t);
void rbench_trace__free(struct rbench_trace *t);

/* Sorts v in place and returns its nearest-rank p-quantile (0 < p <= 1); 0 when n == 0. */
int64_t rbench__pctl_sorted(const int64_t *v, size_t n, double p);
void rbench__sort(int64_t *v, size_t n);

static inline uint64_t rbench__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Prints "n=.. p50_ns=.. p99_ns=.. max_ns=.." for v (sorted in place), no newline. */
void rbench__print_pctls(const char *prefix, int64_t *v, size_t n);

/*
 * What a replayer does between two ops of a thread (take the next, store the last's result):
 * the gaps from an op's end to the thread's next start, those under 2 us (a longer one is a
 * wait or a preemption, not the replayer's own work). A replay's (bench_stats) beside the
 * timed floor's (ceiling --timed) is the replayer's cost per op as fast as possible, steadier
 * than ops/s on a busy machine since the syscalls' own time is not in it.
 */
#define RBENCH_BETWEEN_GAP_NS 2000

/*
 * Where the threads' time went over a run (rbench_budget.c), fed each thread's ops in its
 * order: printed as " bud_op=.. bud_long_op=.. bud_between=.. bud_gap=.. bud_idle=..
 * bud_tail=..", percents of the threads' time (threads x first start .. last end): in the
 * ops (of which in ops of over 20 us: held in the syscall), in gaps under 2 us (the
 * loop's or the replayer's own work per op), of 2-100 us (a preemption, a fault), of over
 * 100 us (a wait), and before a thread's first op or after its last (the others ran on);
 * and the ops' median time (10 ns bins), which a few held ops do not move as the mean.
 * The same split for the loop and the replay tells where a replay's ops/s went.
 */
#define RBENCH_BUDGET_THREADS 64
#define RBENCH_BUDGET_BINS 512 /* the ops' times in 10 ns bins, for their median */
struct rbench_budget_thread {
	uint64_t first, last_end, op, long_op, between, gap, idle;
	size_t n;
	uint32_t op_bins[RBENCH_BUDGET_BINS];
};
struct rbench_budget {
	struct rbench_budget_thread t[RBENCH_BUDGET_THREADS];
	size_t nthreads;
};
void rbench_budget__op(struct rbench_budget *b, size_t thread, uint64_t start_ns,
		       uint64_t end_ns);
void rbench_budget__print(const struct rbench_budget *b);

#endif /* IOREEL_RBENCH_H */
