/* SPDX-License-Identifier: MIT */
/*
 * lookup_race.c - one thread waits for each of N files by spinning on stat() until it is
 * there and then until it is gone again, while another thread creates and unlinks them in
 * turn (test_lookup_race.sh): stats that enter while a create or unlink runs see the name
 * as before it.
 *   lookup_race DIR N
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *dir;
static int nfiles;
/* the spinning thread's progress: 2i + 1 once it has seen file i there, 2i + 2 gone again */
static atomic_int seen;

/* waits without a syscall of file I/O until the spinner has got to stage */
static void wait_for(int stage)
{
	struct timespec tick = {0, 20 * 1000};

	while (atomic_load(&seen) < stage)
		nanosleep(&tick, NULL);
}

static void name(char *buf, size_t len, int i)
{
	snprintf(buf, len, "%s/f%d", dir, i);
}

static void *maker(void *arg)
{
	struct timespec gap = {0, 200 * 1000};
	char path[4096];

	(void)arg;
	for (int i = 0; i < nfiles; i++) {
		int fd;

		name(path, sizeof(path), i);
		nanosleep(&gap, NULL);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0 || close(fd))
			exit(1);
		wait_for(2 * i + 1);
		nanosleep(&gap, NULL);
		if (unlink(path))
			exit(1);
		wait_for(2 * i + 2);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	struct stat st;
	char path[4096];

	if (argc != 3)
		return 2;
	dir = argv[1];
	nfiles = atoi(argv[2]);
	if (pthread_create(&t, NULL, maker, NULL))
		return 1;
	for (int i = 0; i < nfiles; i++) {
		name(path, sizeof(path), i);
		while (stat(path, &st))
			;
		atomic_store(&seen, 2 * i + 1);
		while (!stat(path, &st))
			;
		atomic_store(&seen, 2 * i + 2);
	}
	return pthread_join(t, NULL) ? 1 : 0;
}
