/* SPDX-License-Identifier: MIT */
/*
 * sleep_floor.c - the lateness floor of a sleeping replayer: one thread per trace thread,
 * each sleeping with clock_nanosleep(TIMER_ABSTIME) to the absolute times of its ops in the
 * trace (timer slack 1 ns), issuing no I/O, measuring wake - target.
 *
 * With --spin US each thread sleeps until US microseconds before the op and spins the rest:
 * the floor of a spinning replayer (ioreel replay --spin=US) on this machine.
 *
 * usage: sleep_floor [--spin US] TRACE
 * prints: n=.. p50_ns=.. p99_ns=.. max_ns=.. dur_ns=.. orig_dur_ns=..
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "reel.h"
#include "rbench.h"

struct floor_thread {
	pthread_t pt;
	const struct rbench_thread *th;
	uint64_t t0_ns;
	int64_t spin_ns; /* < 0: sleep only */
	int64_t *late; /* one per op */
	uint64_t first_wake_ns, last_wake_ns;
};

static void *floor_run(void *arg)
{
	struct floor_thread *f = arg;

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	for (size_t i = 0; i < f->th->n; i++) {
		uint64_t target = f->t0_ns + f->th->ops[i].start_ns, now;
		uint64_t wake = f->spin_ns < 0 ? target : target - (uint64_t)f->spin_ns;
		struct timespec ts = { .tv_sec = (time_t)(wake / 1000000000ull),
				       .tv_nsec = (long)(wake % 1000000000ull) };

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			;
		while ((now = rbench__now_ns()) < target && f->spin_ns >= 0)
			__builtin_ia32_pause();
		f->late[i] = (int64_t)(now - target);
		if (!i)
			f->first_wake_ns = now;
		f->last_wake_ns = now;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct floor_thread *ft;
	struct rbench_trace t;
	uint64_t t0, first = UINT64_MAX, last = 0;
	int64_t *all;
	int64_t spin_ns = -1;
	size_t k = 0;
	int err;

	if (argc == 4 && !strcmp(argv[1], "--spin")) {
		spin_ns = strtoll(argv[2], NULL, 0) * 1000;
		argv += 2;
		argc -= 2;
	}
	if (argc != 2 || spin_ns < -1) {
		fprintf(stderr, "usage: sleep_floor [--spin US] TRACE\n");
		return 2;
	}
	err = rbench_trace__load(argv[1], &t);
	if (err) {
		fprintf(stderr, "sleep_floor: failed to read %s: %s\n", argv[1], reel_strerror(err));
		return 1;
	}
	ft = calloc(t.nthreads, sizeof(*ft));
	all = calloc(t.nops ? t.nops : 1, sizeof(*all));
	if (!ft || !all) {
		fprintf(stderr, "sleep_floor: failed to allocate: out of memory\n");
		return 1;
	}
	/* Trace time 0 is a little ahead, so that every thread is asleep before its first op. */
	t0 = rbench__now_ns() + 20000000ull;
	for (size_t i = 0; i < t.nthreads; i++) {
		ft[i].th = &t.threads[i];
		ft[i].t0_ns = t0;
		ft[i].spin_ns = spin_ns;
		ft[i].late = all + k;
		k += t.threads[i].n;
		if (pthread_create(&ft[i].pt, NULL, floor_run, &ft[i])) {
			fprintf(stderr, "sleep_floor: failed to start a thread\n");
			return 1;
		}
	}
	for (size_t i = 0; i < t.nthreads; i++) {
		pthread_join(ft[i].pt, NULL);
		if (ft[i].th->n && ft[i].first_wake_ns < first)
			first = ft[i].first_wake_ns;
		if (ft[i].last_wake_ns > last)
			last = ft[i].last_wake_ns;
	}
	rbench__print_pctls("", all, k);
	printf(" dur_ns=%llu orig_dur_ns=%llu\n", (unsigned long long)(k ? last - first : 0),
	       (unsigned long long)(t.last_start_ns - t.first_start_ns));
	free(all);
	free(ft);
	rbench_trace__free(&t);
	return 0;
}
