/* SPDX-License-Identifier: MIT */
/*
 * wl_bench.c - the capture benchmark's load: 4 KiB preads of a page-cached file, or reads
 * (read(2) at the file position, wrapped to 0 by an lseek at the end of the file: the calls
 * whose offset the recorder takes from the position at exit, one more lookup than a pread's).
 *
 * At full speed (no --rate) it counts ops in a tight loop and reads the clock every 256
 * ops. At a fixed rate, op i is due at start + i / rate: it sleeps until shortly before
 * that and spins the rest (sleeps wake ~70 us late here), and times each pread alone, so
 * that the latency printed is the pread's, not the pacing's. It also prints preads per
 * second of its own CPU time: on a shared machine the wall rate says as much about the
 * neighbours as about the probes. Output is one line of key=value pairs for scripts
 * (bench_capture.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ioworkload.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* CPU time of this thread: what ops cost it, whatever else the shared machine runs. */
static double thread_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array. */
static uint64_t pct(const uint64_t *v, size_t n, double p)
{
	size_t k = (size_t)(p / 100.0 * n + 0.999999);

	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return v[k - 1];
}

/* one 4 KiB op: op number i of a file of `blocks` blocks, by pread or at the position */
static int bench_op(int fd, char *buf, uint64_t i, uint64_t blocks, bool positional)
{
	if (!positional)
		return pread(fd, buf, 4096, (i % blocks) * 4096) == 4096;
	if (i % blocks == 0 && lseek(fd, 0, SEEK_SET) != 0)
		return 0;
	return read(fd, buf, 4096) == 4096;
}

int wl_bench__preads(const char *file, double seconds, double rate, bool positional)
{
	static char buf[4096] __attribute__((aligned(4096)));
	uint64_t blocks, ops = 0, t0, t_end, t, errors = 0, *lat = NULL;
	double cpu0, cpu;
	size_t cap = 0;
	struct stat st;
	int fd;

	fd = open(file, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		wl__die("open %s: %s", file, strerror(errno));
	blocks = st.st_size / 4096;
	if (blocks == 0)
		wl__die("%s: smaller than 4 KiB", file);
	for (uint64_t b = 0; b < blocks; b++) /* fault the file into the page cache */
		if (pread(fd, buf, 4096, b * 4096) != 4096)
			errors++;
	if (rate > 0) {
		cap = (size_t)(rate * seconds) + 16;
		lat = malloc(cap * sizeof(*lat));
		if (!lat)
			wl__die("out of memory");
	}

	cpu0 = thread_cpu_s();
	t0 = now_ns();
	t_end = t0 + (uint64_t)(seconds * 1e9);
	if (rate <= 0) {
		for (t = t0; t < t_end; t = now_ns()) {
			for (int i = 0; i < 256; i++, ops++)
				if (!bench_op(fd, buf, ops, blocks, positional))
					errors++;
		}
	} else {
		double period = 1e9 / rate;

		for (;;) {
			uint64_t due = t0 + (uint64_t)(ops * period), a, b;

			if (due >= t_end || ops >= cap)
				break;
			t = now_ns();
			if (due > t + 150000) {
				struct timespec ts = {.tv_sec = (due - 100000) / 1000000000ull,
						      .tv_nsec = (due - 100000) % 1000000000ull};

				clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			}
			while (now_ns() < due)
				;
			a = now_ns();
			if (!bench_op(fd, buf, ops, blocks, positional))
				errors++;
			b = now_ns();
			lat[ops++] = b - a;
		}
		t = now_ns();
	}
	cpu = thread_cpu_s() - cpu0;
	close(fd);

	printf("ops=%" PRIu64 " seconds=%.3f ops_per_s=%.0f cpu_s=%.3f ops_per_cpu_s=%.0f errors=%" PRIu64,
	       ops, (t - t0) / 1e9, ops / ((t - t0) / 1e9), cpu, cpu > 0 ? ops / cpu : 0, errors);
	if (rate > 0 && ops > 0) {
		qsort(lat, ops, sizeof(*lat), cmp_u64);
		printf(" rate=%.0f p50_ns=%" PRIu64 " p99_ns=%" PRIu64, rate, pct(lat, ops, 50),
		       pct(lat, ops, 99));
	}
	printf("\n");
	free(lat);
	return errors ? 1 : 0;
}
