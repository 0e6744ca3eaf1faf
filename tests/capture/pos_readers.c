/* SPDX-License-Identifier: MIT */
/*
 * pos_readers FILE TRUTH: three threads read() one fd of FILE (made here, 16 MiB whose every
 * 8-byte word holds its own offset) until its end, each with its own read size, all started
 * at once. No read passes an offset: each takes place at the fd's shared position, which the
 * kernel moves under the file's f_pos_lock. Each read's real offset is the first word it
 * got; TRUTH gets one line per read, "TID OFFSET BYTES", in each thread's order. The reads
 * cover the file exactly once (checked here: exit 1 if not). Each thread works a few µs
 * between its reads, as a program does with what it read: else the thread that holds the
 * lock takes it again before a waiter wakes up, and the threads' reads hardly interleave.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SIZE (16u << 20)
#define NT 3
#define MAXR (SIZE / 8)

struct rd {
	uint64_t off, n;
};

static int fd;
static pthread_barrier_t bar;
static const size_t sizes[NT] = { 4096, 1000, 1504 }; /* multiples of 8: whole words */
static struct rd *rds[NT];
static size_t nrds[NT];
static pid_t tids[NT];

static void work(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < 5000);
}

static void *reader(void *arg)
{
	int t = (int)(intptr_t)arg;
	uint64_t buf[4096 / 8];
	ssize_t n;

	tids[t] = syscall(SYS_gettid);
	pthread_barrier_wait(&bar);
	while ((n = read(fd, buf, sizes[t])) > 0) {
		if (n % 8 || nrds[t] == MAXR)
			exit(1);
		rds[t][nrds[t]++] = (struct rd){ buf[0], n };
		work();
	}
	if (n < 0) {
		perror("read");
		exit(1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[NT];
	uint64_t *data, *seen;
	FILE *out;

	if (argc != 3)
		return 2;
	data = malloc(SIZE);
	seen = calloc(SIZE / 8, sizeof(*seen));
	if (!data || !seen)
		return 1;
	for (uint64_t i = 0; i < SIZE / 8; i++)
		data[i] = i * 8;
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, data, SIZE) != SIZE || close(fd))
		return 1;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return 1;
	pthread_barrier_init(&bar, NULL, NT);
	for (int t = 0; t < NT; t++) {
		rds[t] = malloc(MAXR * sizeof(struct rd));
		if (!rds[t] || pthread_create(&th[t], NULL, reader, (void *)(intptr_t)t))
			return 1;
	}
	for (int t = 0; t < NT; t++)
		pthread_join(th[t], NULL);
	out = fopen(argv[2], "w");
	if (!out)
		return 1;
	for (int t = 0; t < NT; t++) {
		for (size_t i = 0; i < nrds[t]; i++) {
			struct rd *r = &rds[t][i];

			fprintf(out, "%d %llu %llu\n", tids[t], (unsigned long long)r->off,
				(unsigned long long)r->n);
			for (uint64_t w = r->off / 8; w < (r->off + r->n) / 8; w++)
				seen[w]++;
		}
	}
	fclose(out);
	for (uint64_t w = 0; w < SIZE / 8; w++) {
		if (seen[w] != 1) {
			fprintf(stderr, "word %llu read %llu times\n", (unsigned long long)w,
				(unsigned long long)seen[w]);
			return 1;
		}
	}
	return 0;
}
