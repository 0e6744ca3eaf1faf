/* SPDX-License-Identifier: MIT */
/*
 * sleep_floor.c - the lateness floor of a sleeping replayer: one thread per trace thread,
 * each sleeping with clock_nanosleep(TIMER_ABSTIME) to the absolute times of its ops in the
 * trace (timer slack 1 ns), issuing no I/O, measuring wake - target.
 *
 * usage: sleep_floor TRACE
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
	int64_t *late; /* one per op */
	uint64_t first_wake_ns, last_wake_ns;
};

static void *floor_run(void *arg)
{
	struct floor_thread *f = arg;

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	for (size_t i = 0; i < f->th->n; i++) {
		uint64_t target = f->t0_ns + f->th->ops[i].start_ns, now;
		struct timespec ts = { .tv_sec = (time_t)(target / 1000000000ull),
				       .tv_nsec = (long)(target % 1000000000ull) };

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			;
		now = rbench__now_ns();
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
	size_t k = 0;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: sleep_floor TRACE\n");
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
