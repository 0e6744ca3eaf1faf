/* SPDX-License-Identifier: MIT */
/*
 * reel_cpu.c - how busy the machine's CPUs were over a stretch of time, from /proc/stat:
 * the recorder writes it for the capture (capture.cpu_busy), the replayer for its replay
 * (replay.cpu_busy), and the report sets them side by side. A syscall that starts on a CPU
 * just woken from idle runs slower than on a busy one (tests/bench_replay/idle_cpus.sh:
 * PostgreSQL's WAL writes, 1.1-1.3x at p50), so a replay on idle CPUs of an application that
 * kept them busy reads its short syscalls as slower than the storage makes them.
 */
#include <stdio.h>

#include "reel.h"

int reel_cpu__sample(struct reel_cpu_sample *s)
{
	unsigned long long v[8] = {0};
	FILE *f = fopen("/proc/stat", "re");
	int n;

	if (!f)
		return -1;
	/* cpu  user nice system idle iowait irq softirq steal */
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 8)
		return -1;
	/* waiting for I/O is idle: the CPU had nothing to run */
	s->idle = v[3] + v[4];
	s->total = s->idle + v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	return 0;
}

double reel_cpu__busy(const struct reel_cpu_sample *a, const struct reel_cpu_sample *b)
{
	uint64_t total = b->total - a->total, idle = b->idle - a->idle;

	if (b->total <= a->total || idle > total)
		return -1;
	return (double)(total - idle) / (double)total;
}
