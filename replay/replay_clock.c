/* SPDX-License-Identifier: MIT */
/*
 * replay_clock.c - a cheaper clock for the workers' as-fast-as-possible timing.
 *
 * A vDSO clock_gettime(CLOCK_MONOTONIC) costs ~45 ns on this kind of VM, rdtsc ~18: with two
 * reads per op that is a tenth of a page-cached 4 KiB pread. A worker reads the TSC and
 * converts it onto CLOCK_MONOTONIC through an anchor (a TSC/clock pair) it renews every
 * millisecond, outside any timed window; the rate comes from a 20 ms calibration. The error
 * against the kernel's clock stays in the nanoseconds (a rate error of ~1e-5: ~10 ns per ms
 * since the anchor, so ~1 us on a 100 ms fsync), and an op's start and end always use the
 * same anchor. Only afap uses it: the other modes schedule against clock_nanosleep's clock
 * directly. Async requests (io_uring, libaio, the trace's own) keep the clock: their
 * completion times come from elsewhere.
 *
 * The TSC is used when the kernel keeps time with it, or else when the CPU says it is
 * invariant and every CPU's TSC reads onto the clock alike (tsc__cpus_agree). The second is
 * the common case under a hypervisor: the kernel keeps kvm-clock (itself the TSC, scaled per
 * vCPU), and this kind of VM boots with tsc=unstable, as a snapshot may be resumed on another
 * host. fio's clocksource=cpu trusts an invariant TSC the same way. A TSC that jumps later
 * (a resumed snapshot) is caught at the next renewal: that worker goes back to the clock
 * (replay_clock__anchor), and the result's meta counts it.
 */
#include <sched.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "replay_run.h"

/* how far apart two CPUs' TSCs may read onto the clock: a pair's own spread is ~0.1 us */
#define TSC_AGREE_NS 1000
/* a renewal's tolerance: TSC_AGREE_NS, plus 50 ppm of the time since the last anchor */
#define TSC_DRIFT_PPM 50

uint64_t replay_tsc_mult;  /* ns per tick << 32; 0: no TSC clock */
uint64_t replay_tsc_renew; /* ticks in 1 ms */
static const char *clock_name = "clock_gettime";
static _Atomic uint64_t tsc_dropped; /* workers gone back to the clock (a jump) */

/* the kernel's own clocksource is the TSC */
static int tsc__kernel_clock(void)
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

/* CPUID 0x80000007 EDX bit 8: the TSC ticks at one rate in every P-, C- and T-state */
static int tsc__invariant(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d;

	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return 0;
	__get_cpuid(0x80000007, &a, &b, &c, &d);
	return !!(d & (1u << 8));
#else
	return 0;
#endif
}

/* signed ns by which the pair (tsc, ns) reads off the line through (tsc0, ns0) at mult */
static int64_t tsc__off(uint64_t tsc0, uint64_t ns0, uint64_t mult, uint64_t tsc, uint64_t ns)
{
	int64_t dt = (int64_t)(tsc - tsc0);
	int64_t pred = dt >= 0 ? (int64_t)(((unsigned __int128)dt * mult) >> 32)
			       : -(int64_t)(((unsigned __int128)-dt * mult) >> 32);

	return (int64_t)(ns - ns0) - pred;
}

/*
 * Every CPU this thread may run on (the workers inherit its mask) reads the TSC onto the
 * clock within TSC_AGREE_NS of the line through (tsc0, ns0): a worker moved between two CPUs
 * mid-op then times it right. The thread visits each CPU pinned; its mask is put back.
 */
static int tsc__cpus_agree(uint64_t tsc0, uint64_t ns0, uint64_t mult)
{
	cpu_set_t all, one;
	int ok = 1;

	if (sched_getaffinity(0, sizeof(all), &all))
		return 0;
	for (int c = 0; c < CPU_SETSIZE && ok; c++) {
		uint64_t tsc, ns;
		int64_t off;

		if (!CPU_ISSET(c, &all))
			continue;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		if (sched_setaffinity(0, sizeof(one), &one)) {
			ok = 0;
			break;
		}
		tsc__pair(&tsc, &ns);
		off = tsc__off(tsc0, ns0, mult, tsc, ns);
		ok = off > -TSC_AGREE_NS && off < TSC_AGREE_NS; /* no time allowed for drift */
	}
	if (sched_setaffinity(0, sizeof(all), &all))
		ok = 0;
	return ok;
}

void replay_clock__calibrate(void)
{
	struct timespec ts = {0, 20000000};
	uint64_t t0 = 0, n0 = 0, t1 = 0, n1 = 0, mult;
	int kernel_tsc = tsc__kernel_clock();

	replay_tsc_mult = 0;
	clock_name = "clock_gettime";
	atomic_store(&tsc_dropped, 0);
#if defined(__x86_64__)
	if (!kernel_tsc && !tsc__invariant())
		return;
	tsc__pair(&t0, &n0);
	nanosleep(&ts, NULL);
	tsc__pair(&t1, &n1);
	if (t1 <= t0 || n1 <= n0)
		return;
	mult = (uint64_t)(((unsigned __int128)(n1 - n0) << 32) / (t1 - t0));
	if (!kernel_tsc && !tsc__cpus_agree(t1, n1, mult))
		return;
	replay_tsc_mult = mult;
	replay_tsc_renew = (t1 - t0) * 1000000ULL / (n1 - n0);
	clock_name = kernel_tsc ? "tsc" : "tsc (invariant; the kernel's clocksource is another)";
#endif
}

int replay_clock__tsc_for(const struct replay_opts *o)
{
	return replay_tsc_mult && o->timing == REPLAY_TIMING_AFAP &&
	       o->engine == REPLAY_ENGINE_SYNC;
}

const char *replay_clock__name(const struct replay_opts *o)
{
	return replay_clock__tsc_for(o) ? clock_name : "clock_gettime";
}

static int u64__cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The median time of a do-nothing syscall (getppid), timed as the workers time an op: two
 * clock readings around it. A replayed op's time includes the syscall's entry and exit (with
 * pti on a VM, ~1 us), a recorded one's does not (the capture times from the sys_enter to the
 * sys_exit tracepoint): the report shows this beside ops of a few microseconds.
 */
uint64_t replay_clock__syscall_ns(const struct replay_opts *o)
{
	enum { WARM = 100, N = 1001 };
	uint64_t d[N];
	int tsc = replay_clock__tsc_for(o);

	for (int i = 0; i < WARM + N; i++) {
		uint64_t t0 = tsc ? __rdtsc() : replay_now_ns();
		uint64_t t1;

		syscall(SYS_getppid); /* the libc wrapper may not enter the kernel */
		t1 = tsc ? __rdtsc() : replay_now_ns();
		if (i >= WARM)
			d[i - WARM] =
			    tsc ? (uint64_t)(((unsigned __int128)(t1 - t0) * replay_tsc_mult) >> 32)
				: t1 - t0;
	}
	qsort(d, N, sizeof(d[0]), u64__cmp);
	return d[N / 2];
}

uint64_t replay_clock__dropped(void)
{
	return atomic_load(&tsc_dropped);
}

/*
 * A new pair (tsc, ns) against the anchor (tsc0, ns0): within what the rate's error allows
 * since the anchor (1), or the TSC jumped, or this CPU's drifted from the others' (0).
 */
int replay_clock__agrees(uint64_t tsc0, uint64_t ns0, uint64_t mult, uint64_t tsc, uint64_t ns)
{
	int64_t off = tsc__off(tsc0, ns0, mult, tsc, ns);
	int64_t tol = TSC_AGREE_NS + (int64_t)((ns > ns0 ? ns - ns0 : 0) / (1000000 / TSC_DRIFT_PPM));

	return off > -tol && off < tol;
}

/*
 * Before a renewal, the new pair is checked against the old anchor: when they disagree, the
 * worker times with the clock from now on. The ops timed since the last anchor each used
 * one reading pair: only one that spanned the jump is off.
 */
int replay_clock__renew(struct rworker *w)
{
	uint64_t tsc, ns;

	tsc__pair(&tsc, &ns);
	if (w->tsc0 && !replay_clock__agrees(w->tsc0, w->ns0, replay_tsc_mult, tsc, ns)) {
		w->use_tsc = 0;
		atomic_fetch_add(&tsc_dropped, 1);
	}
	w->tsc0 = tsc;
	w->ns0 = ns;
	w->tsc_last = tsc;
	return 1;
}
