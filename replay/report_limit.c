/* SPDX-License-Identifier: MIT */
/*
 * report_limit.c - whether a replay that did not keep its pace was held back by the replayer
 * itself rather than by its target. The backlog (an op due while its thread was still busy
 * with the ones before) is counted with the replay's own latencies and steps between ops, so
 * a replayer slower than the application's pace reads as a target slower than it: a fio
 * io_uring trace replayed on the tmpfs it was recorded on was said not to keep its pace for
 * the storage's sake, while its dispatcher, at nice 10 on busy CPUs, fed its workers at
 * half the pace. What the replay measured of itself (its result's meta) tells:
 *  - replay.items_late: ops whose item reached their worker, idle for it, after they were
 *    due (the dispatcher behind, not held by another worker's full queue);
 *  - replay.worker_busy_max: the busiest worker's share of its time on a CPU, its spins to
 *    a schedule left out: near all of it, it was bound by the CPU, not waiting for the
 *    storage.
 */
#include <stdio.h>
#include <stdlib.h>

#include "report_int.h"

#define ITEMS_LATE_SHARE 0.01 /* of the ops measured */
#define WORKER_BUSY_SHARE 0.90

static double meta_num(const struct report_run *run, const char *key)
{
	const char *v = report_run__meta(run, key);

	return v ? strtod(v, NULL) : 0;
}

int report_run__replayer_limit(const struct report_run *run, char *why, size_t n)
{
	double late = meta_num(run, "replay.items_late");
	double late_ns = meta_num(run, "replay.items_late_ns");
	double busy = meta_num(run, "replay.worker_busy_max");
	char a[32];

	if (run->ops_used && late >= ITEMS_LATE_SHARE * (double)run->ops_used) {
		snprintf(why, n,
			 "%.0f ops (%.1f%%) reached their worker after they were due, %s late on "
			 "average: the trace was read and dispatched slower than its pace",
			 late, 100 * late / (double)run->ops_used,
			 report_fmt__dur((uint64_t)(late_ns / late), a, sizeof(a)));
		return 1;
	}
	if (busy >= WORKER_BUSY_SHARE) {
		snprintf(why, n,
			 "its busiest worker thread was on a CPU %.0f%% of its time (its waits "
			 "on a clock left out): it was bound by the CPU, its own work and its ops' "
			 "in the kernel, not waiting for the storage",
			 100 * busy);
		return 1;
	}
	return 0;
}
