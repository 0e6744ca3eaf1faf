/* SPDX-License-Identifier: MIT */
/*
 * async_flags.c - async writes and syncs whose flags change what they cost: N io_uring writes
 * with RWF_DSYNC, each followed by an fsync request with IORING_FSYNC_DATASYNC, then one
 * plain write and one plain fsync request; then N libaio writes with aio_rw_flags RWF_DSYNC,
 * each followed by an IOCB_CMD_FDSYNC, then one plain libaio write. 4 KiB each, at offsets
 * 0..N-1 (the plain ones at N), one request in flight.
 *
 * usage: async_flags FILE N     exit 0 done, 1 failed, 2 no io_uring or libaio here
 */
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static char buf[4096] __attribute__((aligned(4096)));

static int uring_one(struct io_uring *r, int fd, int op, unsigned flags, off_t off)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(r);
	struct io_uring_cqe *cqe;
	int res;

	if (op == IORING_OP_WRITE) {
		io_uring_prep_write(sqe, fd, buf, sizeof(buf), off);
		sqe->rw_flags = flags;
	} else {
		io_uring_prep_fsync(sqe, fd, flags);
	}
	if (io_uring_submit_and_wait(r, 1) != 1 || io_uring_wait_cqe(r, &cqe))
		return -1;
	res = cqe->res;
	io_uring_cqe_seen(r, cqe);
	return res;
}

static long aio_one(aio_context_t ctx, int fd, int cmd, unsigned flags, off_t off)
{
	struct iocb cb = {0}, *cbs[1] = {&cb};
	struct io_event ev;

	cb.aio_lio_opcode = cmd;
	cb.aio_fildes = fd;
	cb.aio_rw_flags = flags;
	if (cmd == IOCB_CMD_PWRITE) {
		cb.aio_buf = (unsigned long)buf;
		cb.aio_nbytes = sizeof(buf);
		cb.aio_offset = off;
	}
	if (syscall(SYS_io_submit, ctx, 1L, cbs) != 1)
		return -1;
	if (syscall(SYS_io_getevents, ctx, 1L, 1L, &ev, NULL) != 1)
		return -1;
	return (long)ev.res;
}

int main(int argc, char **argv)
{
	aio_context_t ctx = 0;
	struct io_uring r;
	int fd, n, i;

	if (argc != 3)
		return 1;
	n = atoi(argv[2]);
	memset(buf, 'x', sizeof(buf));
	fd = open(argv[1], O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		return 1;
	if (io_uring_queue_init(4, &r, 0) || syscall(SYS_io_setup, 4, &ctx))
		return 2;
	for (i = 0; i < n; i++)
		if (uring_one(&r, fd, IORING_OP_WRITE, RWF_DSYNC, i * 4096L) != 4096 ||
		    uring_one(&r, fd, IORING_OP_FSYNC, IORING_FSYNC_DATASYNC, 0) != 0)
			return 2;
	if (uring_one(&r, fd, IORING_OP_WRITE, 0, n * 4096L) != 4096 ||
	    uring_one(&r, fd, IORING_OP_FSYNC, 0, 0) != 0)
		return 1;
	for (i = 0; i < n; i++)
		if (aio_one(ctx, fd, IOCB_CMD_PWRITE, RWF_DSYNC, i * 4096L) != 4096 ||
		    aio_one(ctx, fd, IOCB_CMD_FDSYNC, 0, 0) != 0)
			return 2;
	if (aio_one(ctx, fd, IOCB_CMD_PWRITE, 0, n * 4096L) != 4096)
		return 1;
	io_uring_queue_exit(&r);
	syscall(SYS_io_destroy, ctx);
	close(fd);
	return 0;
}
