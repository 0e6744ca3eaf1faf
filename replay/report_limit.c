/* SPDX-License-Identifier: MIT */
/*
 * report_limit.c - whether a replay that did not keep its pace was held back by the replayer
 * itself rather than by its target. The backlog (an op due while its thread was still busy
 * with the ones before) is counted with the replay's own latencies and steps between ops, so
 * a replayer slower than the application's pace reads as a target slower than it: a fio
 * io_uring trace replayed on the tmpfs it was recorded on was said not to keep its pace for
 * the storage's sake, while its dispatcher, at nice 10 on busy CPUs, fed its workers at
 * half the pace. A replayer behind without a slow op to start a backlog (its own step from
 * one op to the next longer than their gaps) shows as late wake-ups instead ("fell behind"),
 * which alone say the latencies are doubtful, not whose the delay was. What the replay
 * measured of itself (its result's meta) tells:
 *  - replay.worker_runq_max, replay.dispatch_runq: the worst worker's share of its time
 *    runnable but waiting for a CPU (its io-wq threads' waits counted in), and the
 *    dispatcher's; with replay.cpu_ns.others, whether other processes held those CPUs;
 *  - replay.items_late: ops whose item reached their worker, idle for it, after they were
 *    due (the dispatcher behind, not held by another worker's full queue);
 *  - replay.worker_busy_max: the busiest worker's share of its time on a CPU, its spins to
 *    a schedule and its waits for a CPU left out: near all of it, it was bound by the CPU,
 *    not waiting for the storage.
 * A worker waiting for a CPU is neither busy on one nor fed late: the same fio trace,
 * replayed while CI builds held both cores, was still said not to keep its pace for the
 * storage's sake.
 */
#include <stdio.h>
#include <stdlib.h>

#include "report_int.h"

#define ITEMS_LATE_SHARE 0.01 /* of the ops measured */
#define WORKER_BUSY_SHARE 0.90
/*
 * A thread that waited for a CPU this share of its time or more was held back. Measured on
 * this 2-core VM (replay.worker_runq_max): a worker spinning through 100 k preads/s on tmpfs
 * waited 0-2% of its time on a quiet machine, 5-17% beside other engineers' builds, 13-58%
 * beside their builds and tests (60-80% of the CPUs), 74-86% beside busy loops on both
 * cores (1 or 2 a core, or 1 at nice -10). fio's io_uring trace at 280 k requests/s, whose
 * worker's io-wq thread does the tmpfs reads, waited 35-71% on a quiet machine, for its
 * own threads (it could not keep that pace on 2 cores), and 66-89% beside the busy loops:
 * whose CPUs they were, the others' share below tells.
 */
#define RUNQ_SHARE 0.25
/* other processes' share of the machine's CPU time that makes those waits theirs (the busy
 * loops above took 65-100% of it, the builds and tests 50-80%, a quiet machine 0-4%) */
#define RUNQ_OTHERS_SHARE 0.25
/* /proc/stat counts in 10 ms ticks: over a shorter replay the others' share is not known */
#define RUNQ_OTHERS_MIN_SPAN_NS 100000000.0

static double meta_num(const struct report_run *run, const char *key)
{
	const char *v = report_run__meta(run, key);

	return v ? strtod(v, NULL) : 0;
}

static double run_span(const struct report_run *run)
{
	return (double)(run->last_ns - run->first_ns);
}

/* How much of the machine's CPU time other processes took over the replay; < 0: unknown. */
static double others_share(const struct report_run *run)
{
	const char *v = report_run__meta(run, "replay.cpu_ns.others");
	double cpus = meta_num(run, "replay.cpus"), span = run_span(run);

	if (!v || cpus < 1 || span < RUNQ_OTHERS_MIN_SPAN_NS)
		return -1;
	return strtod(v, NULL) / (cpus * span);
}

/*
 * The largest share of its time a thread of the replay waited for a CPU, of those whose
 * waits delay ops: the workers, and the dispatcher when items reached them late (ahead of
 * them, at nice 10, it waits for the CPUs they take, which delays nothing). *who: which.
 */
static double runq_share(const struct report_run *run, int fed_late, const char **who)
{
	double worker = meta_num(run, "replay.worker_runq_max");
	double disp = meta_num(run, "replay.dispatch_runq");

	*who = "the worker that waited most";
	if (fed_late && disp > worker) {
		*who = "the dispatcher, which fed the workers late";
		return disp;
	}
	return worker;
}

/*
 * Those waits explain the lateness when they are a large share of the thread's time and add
 * up to the ops' lateness (behind_ns) or more: without them the thread would have caught
 * up. The replay's span stands for the thread's, which the result does not keep.
 */
static int runq_explains(const struct report_run *run, double share, uint64_t behind_ns)
{
	return share >= RUNQ_SHARE && share * run_span(run) >= (double)behind_ns;
}

/*
 * When the replay's waits for a CPU explain its backlog: the machine's limit, where other
 * processes took a good share of its CPUs, else the replay's own threads' (why written);
 * REPORT_LIMIT_NONE when they do not, or are not known (an older result, a short replay).
 */
static enum report_limit runq_limit(const struct report_run *run, int fed_late,
				    uint64_t behind_ns, char *why, size_t n)
{
	const char *who;
	double share = runq_share(run, fed_late, &who), others = others_share(run);
	double cpus = meta_num(run, "replay.cpus");
	char a[32];

	if (!report_run__meta(run, "replay.worker_runq_max") || others < 0 ||
	    !runq_explains(run, share, behind_ns))
		return REPORT_LIMIT_NONE;
	report_fmt__dur((uint64_t)(share * run_span(run)), a, sizeof(a));
	if (others >= RUNQ_OTHERS_SHARE) {
		snprintf(why, n,
			 "its threads waited for a CPU %.0f%% of the time while other processes "
			 "kept the machine's %.0f CPUs %.0f%% busy; %s waited %s in all, more than "
			 "its ops were late",
			 100 * share, cpus, 100 * (others < 1 ? others : 1), who, a);
		return REPORT_LIMIT_MACHINE;
	}
	snprintf(why, n,
		 "its threads waited for a CPU %.0f%% of the time, for one another, while other "
		 "processes kept the machine's %.0f CPUs only %.0f%% busy: they, and the kernel's "
		 "threads working for them, needed more than the machine's CPUs; %s waited %s in "
		 "all, more than its ops were late",
		 100 * share, cpus, 100 * others, who, a);
	return REPORT_LIMIT_OWN_THREADS;
}

enum report_limit report_run__replayer_limit(const struct report_run *run, uint64_t behind_ns,
					     char *why, size_t n)
{
	double late = meta_num(run, "replay.items_late");
	double late_ns = meta_num(run, "replay.items_late_ns");
	double busy = meta_num(run, "replay.worker_busy_max");
	int fed_late = run->ops_used && late >= ITEMS_LATE_SHARE * (double)run->ops_used;
	enum report_limit runq = runq_limit(run, fed_late, behind_ns, why, n);
	char a[32];

	/* the machine first: a dispatcher or worker it held back is late or busy for its sake */
	if (runq == REPORT_LIMIT_MACHINE)
		return runq;
	if (fed_late) {
		snprintf(why, n,
			 "%.0f ops (%.1f%%) reached their worker after they were due, %s late on "
			 "average: the trace was read and dispatched slower than its pace",
			 late, 100 * late / (double)run->ops_used,
			 report_fmt__dur((uint64_t)(late_ns / late), a, sizeof(a)));
		return REPORT_LIMIT_DISPATCH;
	}
	if (busy >= WORKER_BUSY_SHARE) {
		snprintf(why, n,
			 "its busiest worker thread was on a CPU %.0f%% of its time (its waits "
			 "on a clock and for a CPU left out): it was bound by the CPU, its own "
			 "work and its ops' in the kernel, not waiting for the storage",
			 100 * busy);
		return REPORT_LIMIT_WORKER_CPU;
	}
	return runq; /* its own threads' waits for one another (why written), or none */
}

const char *report_limit__name(enum report_limit cause)
{
	switch (cause) {
	case REPORT_LIMIT_MACHINE:
		return "other_processes";
	case REPORT_LIMIT_DISPATCH:
		return "dispatcher";
	case REPORT_LIMIT_WORKER_CPU:
		return "worker_cpu";
	case REPORT_LIMIT_OWN_THREADS:
		return "own_threads";
	case REPORT_LIMIT_NONE:
		break;
	}
	return NULL;
}
