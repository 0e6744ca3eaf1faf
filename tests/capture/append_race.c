/* SPDX-License-Identifier: MIT */
/*
 * append_race DIR: two threads append to DIR/log, each through its own O_APPEND fd. Thread A
 * writes 64 MiB in one write; thread B, once A is inside it (holding the inode's lock), a
 * 100-byte line, then B writes one more line after A is done. B's first line lands after A's
 * 64 MiB, though the file was shorter when B entered write(): the capture must record where
 * each append landed, not the size its entry saw.
 */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BIG (64u << 20)

static char path[PATH_MAX];
static atomic_int started;

static int open_log(void)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);

	if (fd < 0) {
		perror("open");
		exit(1);
	}
	return fd;
}

static void *big(void *arg)
{
	char *buf = malloc(BIG);
	int fd = open_log();

	(void)arg;
	if (!buf)
		exit(1);
	memset(buf, 'a', BIG);
	atomic_store(&started, 1);
	if (write(fd, buf, BIG) != (ssize_t)BIG)
		exit(1);
	close(fd);
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec ms2 = {0, 2000000};
	char line[100];
	pthread_t t;
	int fd;

	if (argc != 2)
		return 2;
	snprintf(path, sizeof(path), "%s/log", argv[1]);
	memset(line, 'b', sizeof(line));
	fd = open_log();
	if (pthread_create(&t, NULL, big, NULL))
		return 1;
	while (!atomic_load(&started))
		;
	/* A is in its write by now: 64 MiB take tens of ms to copy */
	nanosleep(&ms2, NULL);
	if (write(fd, line, sizeof(line)) != sizeof(line))
		return 1;
	pthread_join(t, NULL);
	if (write(fd, line, sizeof(line)) != sizeof(line))
		return 1;
	close(fd);
	return 0;
}
