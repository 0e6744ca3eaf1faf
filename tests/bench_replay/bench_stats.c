/* SPDX-License-Identifier: MIT */
/*
 * bench_stats.c - the numbers of one replay, read from its result trace.
 *
 * usage: bench_stats result ORIGINAL RESULT
 *   Over the reads and writes of RESULT: lateness (start_ns - sched_ns) percentiles, the span
 *   from the first op's start to the last op's start (dur_ns) against the same span in
 *   ORIGINAL (orig_dur_ns), throughput over first start .. last end, failed ops; and the
 *   lateness anchored as fio_lateness anchors fio's (each thread's schedule shifted so that
 *   its least late op is on time: anc_*), so that the two can be compared on equal terms.
 *   prints: n=.. p50_ns=.. p99_ns=.. max_ns=.. anc_n=.. anc_p50_ns=.. anc_p99_ns=..
 *           anc_max_ns=.. dur_ns=.. orig_dur_ns=.. orig_n=.. errors=.. ops_per_s=..
 *           idle_pct=.. (the threads' gaps of over 0.1 ms between ops, in % of their time
 *           over the span: as fast as possible, a thread waiting for the others)
 *           between_ns=.. (mean gap from an op's end to its thread's next start, gaps
 *           under 2 us: the replayer's own work per op, see RBENCH_BETWEEN_GAP_NS)
 *           op_ns=.. (the reads' and writes' mean time, start to end)
 *           cpu_{workers,dispatch,writer}_ns_per_op=.. (the replayer's own CPU, from its meta)
 * usage: bench_stats count TRACE
 *   Streams TRACE without keeping it: prints ops=.. data_ops=.. errors=.. (memory-safe for
 *   the 50 M-op traces).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reel.h"
#include "rbench.h"

struct scan {
	uint64_t ops, data, errors;
	uint64_t first_start, last_start, last_end;
	uint64_t cpu_ns[3]; /* a result's replay.cpu_ns.{workers,dispatch,writer}; 0 when absent */
	int64_t *late, *anc; /* anc holds the thread's index until the end of the scan */
	size_t n, cap;
	struct {
		uint32_t tid;
		int64_t min_late;
		uint64_t last_end, idle_ns; /* idle_ns: the gaps of over IDLE_GAP_NS between its ops */
	} tids[1024];
	uint64_t between_ns, nbetween; /* the gaps under RBENCH_BETWEEN_GAP_NS, all threads */
	uint64_t op_ns; /* the data ops' own time, start to end */
	struct rbench_budget bud; /* where the threads' time went (result only) */
	size_t ntids;
};

/*
 * As fast as possible a thread's ops follow each other within ~0.1 us; a longer gap is time
 * the thread waited for the others (a segment's end) or for the next segment to start.
 */
#define IDLE_GAP_NS 100000

/* Index of tid's slot (the last slot is shared once 1023 threads are seen). */
static int64_t tid_slot(struct scan *s, uint32_t tid, int64_t late)
{
	size_t i;

	for (i = 0; i < s->ntids; i++)
		if (s->tids[i].tid == tid)
			break;
	if (i == s->ntids) {
		if (s->ntids == sizeof(s->tids) / sizeof(s->tids[0]))
			i--;
		else
			s->ntids++;
		s->tids[i].tid = tid;
		s->tids[i].min_late = late;
	}
	if (late < s->tids[i].min_late)
		s->tids[i].min_late = late;
	return (int64_t)i;
}

static int scan_trace(const char *path, struct scan *s, int keep_lateness)
{
	struct reel_reader *r;
	struct reel_op op;
	int err;

	memset(s, 0, sizeof(*s));
	s->first_start = UINT64_MAX;
	err = reel_reader__open(path, &r);
	if (err)
		return err;
	while ((err = reel_reader__next(r, &op)) == 1) {
		s->ops++;
		if (!reel_op__is_read(op.type) && !reel_op__is_write(op.type))
			continue;
		s->data++;
		s->op_ns += op.end_ns - op.start_ns;
		if (op.ret < 0)
			s->errors++;
		if (op.start_ns < s->first_start)
			s->first_start = op.start_ns;
		if (op.start_ns > s->last_start)
			s->last_start = op.start_ns;
		if (op.end_ns > s->last_end)
			s->last_end = op.end_ns;
		if (!keep_lateness)
			continue;
		if (s->n == s->cap) {
			size_t nc = s->cap ? s->cap * 2 : 4096;
			int64_t *nl = realloc(s->late, nc * sizeof(*nl));
			int64_t *na;

			if (!nl) {
				err = -12; /* ENOMEM */
				break;
			}
			s->late = nl;
			na = realloc(s->anc, nc * sizeof(*na));
			if (!na) {
				err = -12;
				break;
			}
			s->anc = na;
			s->cap = nc;
		}
		s->late[s->n] = (int64_t)(op.start_ns - op.sched_ns);
		s->anc[s->n] = tid_slot(s, op.tid, s->late[s->n]);
		{
			__typeof__(s->tids[0]) *t = &s->tids[s->anc[s->n]];

			rbench_budget__op(&s->bud, (size_t)s->anc[s->n], op.start_ns, op.end_ns);
			if (t->last_end && op.start_ns > t->last_end + IDLE_GAP_NS)
				t->idle_ns += op.start_ns - t->last_end;
			if (t->last_end && op.start_ns >= t->last_end &&
			    op.start_ns < t->last_end + RBENCH_BETWEEN_GAP_NS) {
				s->between_ns += op.start_ns - t->last_end;
				s->nbetween++;
			}
			t->last_end = op.end_ns;
		}
		s->n++;
	}
	for (int i = 0; i < 3; i++) {
		static const char *const keys[] = {"replay.cpu_ns.workers", "replay.cpu_ns.dispatch",
						   "replay.cpu_ns.writer"};
		const char *v = reel_reader__meta(r, keys[i]);

		s->cpu_ns[i] = v ? strtoull(v, NULL, 10) : 0;
	}
	reel_reader__close(r);
	for (size_t i = 0; i < s->n; i++)
		s->anc[i] = s->late[i] - s->tids[s->anc[i]].min_late;
	if (!s->data)
		s->first_start = 0;
	return err < 0 ? err : 0;
}

int main(int argc, char **argv)
{
	static struct scan orig, res; /* static: the budget's bins are large for a stack */
	int err;

	if (argc == 3 && !strcmp(argv[1], "count")) {
		err = scan_trace(argv[2], &res, 0);
		if (err) {
			fprintf(stderr, "bench_stats: failed to read %s: %s\n", argv[2],
				reel_strerror(err));
			return 1;
		}
		printf("ops=%llu data_ops=%llu errors=%llu\n", (unsigned long long)res.ops,
		       (unsigned long long)res.data, (unsigned long long)res.errors);
		return 0;
	}
	if (argc != 4 || strcmp(argv[1], "result")) {
		fprintf(stderr, "usage: bench_stats result ORIGINAL RESULT | bench_stats count TRACE\n");
		return 2;
	}
	err = scan_trace(argv[2], &orig, 0);
	if (!err)
		err = scan_trace(argv[3], &res, 1);
	if (err) {
		fprintf(stderr, "bench_stats: failed to read %s: %s\n", argv[3], reel_strerror(err));
		return 1;
	}
	rbench__print_pctls("", res.late, res.n);
	putchar(' ');
	rbench__print_pctls("anc_", res.anc, res.n);
	printf(" dur_ns=%llu orig_dur_ns=%llu orig_n=%llu errors=%llu ops_per_s=%.0f",
	       (unsigned long long)(res.last_start - res.first_start),
	       (unsigned long long)(orig.last_start - orig.first_start),
	       (unsigned long long)orig.data, (unsigned long long)res.errors,
	       res.last_end > res.first_start
		       ? (double)res.data * 1e9 / (double)(res.last_end - res.first_start)
		       : 0.0);
	/* the threads' idle gaps, as a share of their time over the result's span */
	if (res.ntids && res.last_end > res.first_start) {
		uint64_t idle = 0;

		for (size_t i = 0; i < res.ntids; i++)
			idle += res.tids[i].idle_ns;
		printf(" idle_pct=%.2f",
		       100.0 * (double)idle / ((double)res.ntids * (double)(res.last_end - res.first_start)));
	}
	if (res.nbetween)
		printf(" between_ns=%.1f", (double)res.between_ns / (double)res.nbetween);
	if (res.data)
		printf(" op_ns=%.1f", (double)res.op_ns / (double)res.data);
	rbench_budget__print(&res.bud);
	if (res.ops)
		printf(" cpu_workers_ns_per_op=%.0f cpu_dispatch_ns_per_op=%.0f "
		       "cpu_writer_ns_per_op=%.0f",
		       (double)res.cpu_ns[0] / (double)res.ops, (double)res.cpu_ns[1] / (double)res.ops,
		       (double)res.cpu_ns[2] / (double)res.ops);
	putchar('\n');
	free(res.late);
	free(res.anc);
	return 0;
}
