/* SPDX-License-Identifier: MIT */
/*
 * aio_ring.c - libaio reads reaped from the AIO ring in user space, never through
 * io_getevents, as QEMU's aio=native does: DEPTH in flight, each completion taken from the
 * ring (its head moved by hand) and the next request submitted; the last ones taken, then
 * the file closed. Buffered reads complete within io_submit, so the ring always has them.
 *
 * usage: aio_ring FILE   (FILE: NREQ * 4 KiB are read from it)
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NREQ 64
#define DEPTH 4

/* fs/aio.c's ring: this header, then nr io_events; the ring's address is the context's */
struct aio_ring {
	unsigned id, nr, head, tail;
	unsigned magic, compat_features, incompat_features, header_length;
	struct io_event events[];
};

static struct iocb cbs[NREQ];
static char bufs[DEPTH][4096];

static int submit(aio_context_t ctx, int fd, int i)
{
	struct iocb *p = &cbs[i];

	cbs[i].aio_data = (uint64_t)i;
	cbs[i].aio_lio_opcode = IOCB_CMD_PREAD;
	cbs[i].aio_fildes = (uint32_t)fd;
	cbs[i].aio_buf = (uint64_t)(uintptr_t)bufs[i % DEPTH];
	cbs[i].aio_nbytes = 4096;
	cbs[i].aio_offset = (int64_t)i * 4096;
	if (syscall(SYS_io_submit, ctx, 1L, &p) != 1) {
		fprintf(stderr, "aio_ring: io_submit: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* one completion from the ring, waiting for it (it is there: buffered) */
static int reap(struct aio_ring *r)
{
	unsigned head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	struct io_event ev;

	while (__atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) == head)
		;
	ev = r->events[head];
	__atomic_store_n(&r->head, (head + 1) % r->nr, __ATOMIC_RELEASE);
	if (ev.res != 4096) {
		fprintf(stderr, "aio_ring: request %llu: %lld\n", (unsigned long long)ev.data,
			(long long)ev.res);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	aio_context_t ctx = 0;
	struct aio_ring *r;
	int fd, next = 0;

	if (argc != 2)
		return 2;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || syscall(SYS_io_setup, 128, &ctx)) {
		fprintf(stderr, "aio_ring: %s\n", strerror(errno));
		return 1;
	}
	r = (struct aio_ring *)ctx;
	while (next < DEPTH)
		if (submit(ctx, fd, next++))
			return 1;
	while (next < NREQ)
		if (reap(r) || submit(ctx, fd, next++))
			return 1;
	for (int i = 0; i < DEPTH; i++)
		if (reap(r))
			return 1;
	close(fd);
	syscall(SYS_io_destroy, ctx);
	return 0;
}
