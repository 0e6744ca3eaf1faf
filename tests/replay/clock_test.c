/* SPDX-License-Identifier: MIT */
/*
 * clock_test.c - the check a worker's TSC clock passes at each renewal of its anchor
 * (replay/replay_clock.c, replay_clock__agrees): a TSC that keeps its rate agrees, within the
 * error a 20 ms calibration leaves; one that jumped, forward or back (a snapshot resumed on
 * another host, a CPU whose TSC is off the others'), does not.
 */
#include <stdio.h>

#include "replay_run.h"

static int fails;

static void expect(int got, int want, const char *what)
{
	if (got != want) {
		fprintf(stderr, "FAIL: %s: %d, expected %d\n", what, got, want);
		fails++;
	}
}

int main(void)
{
	/* 2.1 GHz: 1 tick = 1/2.1 ns, as ns per tick << 32 */
	const uint64_t mult = (uint64_t)((1ULL << 32) / 2.1);
	const uint64_t tsc0 = 5000000000000ULL, ns0 = 900000000000ULL;
	const uint64_t ms = 2100000; /* ticks in 1 ms */

	expect(replay_clock__agrees(tsc0, ns0, mult, tsc0 + ms, ns0 + 1000000), 1, "1 ms on");
	/* a rate 1e-5 off, as a 20 ms calibration may leave it: 10 ns in 1 ms, 10 us in 1 s */
	expect(replay_clock__agrees(tsc0, ns0, mult, tsc0 + ms, ns0 + 1000010), 1, "1e-5, 1 ms");
	expect(replay_clock__agrees(tsc0, ns0, mult, tsc0 + 1000 * ms, ns0 + 1000010000ULL), 1,
	       "1e-5, 1 s (a worker idle between segments)");
	/* the pair's own spread: a few hundred ns either way */
	expect(replay_clock__agrees(tsc0, ns0, mult, tsc0 + ms, ns0 + 1000000 - 400), 1,
	       "a pair 400 ns early");
	/* jumps */
	expect(replay_clock__agrees(tsc0, ns0, mult, tsc0 + ms + 21000, ns0 + 1000000), 0,
	       "the TSC 10 us ahead");
	expect(replay_clock__agrees(tsc0, ns0, mult, tsc0 + ms, ns0 + 1010000), 0,
	       "the TSC 10 us behind");
	expect(replay_clock__agrees(tsc0, ns0, mult, tsc0 - 1000 * ms, ns0 + 1000000), 0,
	       "the TSC went back");
	expect(replay_clock__agrees(tsc0, ns0, mult, tsc0 + 3600000 * ms, ns0 + 1000000), 0,
	       "the TSC an hour on");
	if (fails)
		return 1;
	printf("ok\n");
	return 0;
}
