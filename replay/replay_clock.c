/* SPDX-License-Identifier: MIT */
/*
 * replay_clock.c - a cheaper clock for the workers' as-fast-as-possible timing.
 *
 * A vDSO clock_gettime(CLOCK_MONOTONIC) costs ~45 ns on this kind of VM, rdtsc ~18: with two
 * reads per op that is a tenth of a page-cached 4 KiB pread. When the kernel itself keeps
 * time with the TSC (clocksource tsc: invariant and synchronised across CPUs), a worker reads
 * the TSC and converts it onto CLOCK_MONOTONIC through an anchor (a TSC/clock pair) it renews
 * every millisecond, outside any timed window; the rate comes from a 20 ms calibration. The
 * error against the kernel's clock stays in the nanoseconds (a rate error of ~1e-5: ~10 ns
 * per ms since the anchor, so ~1 us on a 100 ms fsync), and an op's start and end always use
 * the same anchor. Only afap uses it: the
 * other modes schedule against clock_nanosleep's clock directly. fio does the same
 * (clocksource=cpu). Async requests (io_uring, libaio, the trace's own) keep the clock: their
 * completion times come from elsewhere.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "replay_run.h"

uint64_t replay_tsc_mult;  /* ns per tick << 32; 0: no TSC clock */
static uint64_t tsc_renew; /* ticks in 1 ms */

static int tsc__usable(void)
{
	char cs[32] = "";
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");

	if (!f)
		return 0;
	if (!fgets(cs, sizeof(cs), f))
		cs[0] = '\0';
	fclose(f);
	return !strcmp(cs, "tsc\n");
}

/*
 * A TSC reading and the clock at the same moment: the middle of two TSC reads around the
 * clock read, the tightest of a few tries (a pair split by an interrupt or a preemption
 * would be off by microseconds).
 */
static void tsc__pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		uint64_t a = __rdtsc(), n = replay_now_ns(), b = __rdtsc();

		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = n;
		}
	}
}

void replay_clock__calibrate(void)
{
	struct timespec ts = {0, 20000000};
	uint64_t t0 = 0, n0 = 0, t1 = 0, n1 = 0;

	replay_tsc_mult = 0;
#if defined(__x86_64__)
	if (!tsc__usable())
		return;
	tsc__pair(&t0, &n0);
	nanosleep(&ts, NULL);
	tsc__pair(&t1, &n1);
	if (t1 <= t0 || n1 <= n0)
		return;
	replay_tsc_mult = (uint64_t)(((unsigned __int128)(n1 - n0) << 32) / (t1 - t0));
	tsc_renew = (t1 - t0) * 1000000ULL / (n1 - n0);
#endif
}

int replay_clock__anchor(struct rworker *w)
{
	if (!w->use_tsc || (w->tsc_last - w->tsc0 < tsc_renew && w->tsc0))
		return 0;
	tsc__pair(&w->tsc0, &w->ns0);
	w->tsc_last = w->tsc0;
	return 1;
}
