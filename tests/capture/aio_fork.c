/* SPDX-License-Identifier: MIT */
/*
 * aio_fork.c - two processes forked from one parent submit libaio reads from iocbs at the
 * same addresses (a static array, as fio's jobs do), each on its own file, in lock-step:
 * A submits, B submits, A reaps, B reaps, ROUNDS times. Each completion must be paired with
 * its own process's submission: the capture keyed them by the iocb's address alone, and
 * paired A's completions with B's requests (their file, offset, length). A leaves aio_data
 * 0 in all its requests, as fio does: the trace must still tell its requests in flight apart.
 *
 * usage: aio_fork DIR ROUNDS   (DIR/aio.0 and DIR/aio.1 are made, 64 KiB each)
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define NREQ 4

static struct iocb cbs[NREQ]; /* same address in both children */
static char bufs[NREQ][4096];

static void die(const char *what)
{
	fprintf(stderr, "aio_fork: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void step(int fd)
{
	char c = 0;

	if (write(fd, &c, 1) != 1)
		die("write pipe");
}

static void wait_step(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		die("read pipe");
}

/* me: 0 (A) or 1 (B); go: read before submitting, done: written after */
static void child(const char *dir, int me, int rounds, int go_sub, int done_sub, int go_reap,
		  int done_reap)
{
	struct iocb *ptrs[NREQ];
	struct io_event ev[NREQ];
	aio_context_t ctx = 0;
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/aio.%d", dir, me);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open");
	if (syscall(SYS_io_setup, NREQ, &ctx))
		die("io_setup");
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < NREQ; i++) {
			memset(&cbs[i], 0, sizeof(cbs[i]));
			cbs[i].aio_data = me ? (uint64_t)i : 0;
			cbs[i].aio_lio_opcode = IOCB_CMD_PREAD;
			cbs[i].aio_fildes = (uint32_t)fd;
			cbs[i].aio_buf = (uint64_t)(uintptr_t)bufs[i];
			/* A reads 4 KiB at 4 KiB steps, B 1 KiB at 1 KiB steps: told apart */
			cbs[i].aio_nbytes = me ? 1024 : 4096;
			cbs[i].aio_offset = (int64_t)i * (me ? 1024 : 4096);
			ptrs[i] = &cbs[i];
		}
		if (go_sub >= 0)
			wait_step(go_sub);
		if (syscall(SYS_io_submit, ctx, (long)NREQ, ptrs) != NREQ)
			die("io_submit");
		if (done_sub >= 0)
			step(done_sub);
		if (go_reap >= 0)
			wait_step(go_reap);
		for (int got = 0; got < NREQ;) {
			long n = syscall(SYS_io_getevents, ctx, 1L, (long)(NREQ - got), ev, NULL);
			if (n < 0)
				die("io_getevents");
			got += (int)n;
		}
		if (done_reap >= 0)
			step(done_reap);
	}
	syscall(SYS_io_destroy, ctx);
	close(fd);
	exit(0);
}

int main(int argc, char **argv)
{
	int a_sub[2], b_sub[2], a_reap[2], b_reap[2], st, fail = 0;
	char path[4096], data[65536];

	if (argc != 3) {
		fprintf(stderr, "usage: aio_fork DIR ROUNDS\n");
		return 2;
	}
	int rounds = atoi(argv[2]);
	memset(data, 'a', sizeof(data));
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/aio.%d", argv[1], i);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, data, sizeof(data)) != (ssize_t)sizeof(data) || close(fd))
			die("make file");
	}
	/* A submits -> a_sub -> B submits -> b_sub -> A reaps -> a_reap -> B reaps -> b_reap
	 * -> A's next submission */
	if (pipe(a_sub) || pipe(b_sub) || pipe(a_reap) || pipe(b_reap))
		die("pipe");
	step(b_reap[1]); /* A's first round goes at once */
	if (!fork())
		child(argv[1], 0, rounds, b_reap[0], a_sub[1], b_sub[0], a_reap[1]);
	if (!fork())
		child(argv[1], 1, rounds, a_sub[0], b_sub[1], a_reap[0], b_reap[1]);
	for (int i = 0; i < 2; i++)
		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			fail = 1;
	return fail;
}
