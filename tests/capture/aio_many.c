/* SPDX-License-Identifier: MIT */
/*
 * aio_many.c - submits NREQ libaio reads (one io_submit of NREQ/4 iocbs at a time, each
 * within the recorder's 64 iocbs a call), then reaps them all with one io_getevents, as
 * InnoDB's reaper does (up to 256 events a call). Buffered reads complete inside io_submit,
 * so the one io_getevents returns all NREQ.
 *
 * usage: aio_many FILE   (FILE: NREQ * 4 KiB are read from it)
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NREQ 200

static struct iocb cbs[NREQ];
static struct iocb *ptrs[NREQ];
static struct io_event ev[NREQ];
static char bufs[NREQ][4096];

int main(int argc, char **argv)
{
	aio_context_t ctx = 0;
	long got = 0;
	int fd;

	if (argc != 2)
		return 2;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || syscall(SYS_io_setup, 256, &ctx)) {
		fprintf(stderr, "aio_many: %s\n", strerror(errno));
		return 1;
	}
	for (int i = 0; i < NREQ; i++) {
		cbs[i].aio_data = (uint64_t)i;
		cbs[i].aio_lio_opcode = IOCB_CMD_PREAD;
		cbs[i].aio_fildes = (uint32_t)fd;
		cbs[i].aio_buf = (uint64_t)(uintptr_t)bufs[i];
		cbs[i].aio_nbytes = 4096;
		cbs[i].aio_offset = (int64_t)i * 4096;
		ptrs[i] = &cbs[i];
	}
	for (int i = 0; i < NREQ; i += NREQ / 4) {
		if (syscall(SYS_io_submit, ctx, (long)(NREQ / 4), ptrs + i) != NREQ / 4) {
			fprintf(stderr, "aio_many: io_submit: %s\n", strerror(errno));
			return 1;
		}
	}
	while (got < NREQ) {
		long n = syscall(SYS_io_getevents, ctx, (long)(NREQ - got), (long)(NREQ - got),
				 ev, NULL);

		if (n <= 0) {
			fprintf(stderr, "aio_many: io_getevents: %s\n", strerror(errno));
			return 1;
		}
		got += n;
	}
	syscall(SYS_io_destroy, ctx);
	return 0;
}
