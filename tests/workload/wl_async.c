/* SPDX-License-Identifier: MIT */
/*
 * wl_async.c - asynchronous I/O as databases do it: Linux AIO on an O_DIRECT file (through
 * the kernel ABI itself, so that every io_submit/io_getevents reaches the kernel, which
 * libaio's user-space ring peeking would not promise), and io_uring through liburing.
 *
 * One log line per request submitted and one per completion reaped, as the trace has them.
 * aux is the request's id: its iocb's address (aio_data is the application's, and may be the
 * same for all) / its user_data; ctx the aio context / the ring's fd.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/aio_abi.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "ioworkload.h"

/* Names of the async ops as reel_op__name() gives them. */
#define OP_AIO_SUBMIT "aio_submit"
#define OP_AIO_COMPLETE "aio_complete"
#define OP_URING_SUBMIT "uring_submit"
#define OP_URING_COMPLETE "uring_complete"

static uint64_t tag(const struct worker *w, int n)
{
	return ((uint64_t)(w->proc + 1) << 32) | ((uint64_t)w->idx << 16) | n;
}

static int64_t iov_total(const struct iovec *iov, unsigned n)
{
	int64_t t = 0;

	for (unsigned i = 0; i < n; i++)
		t += iov[i].iov_len;
	return t;
}

static void aio_batch(struct worker *w, aio_context_t ctx, struct ofd *o, struct iocb *cbs, int n)
{
	struct iocb *ptrs[8];
	struct io_event ev[8];
	uint64_t t0, t1;
	long r, got = 0;

	for (int i = 0; i < n; i++)
		ptrs[i] = &cbs[i];
	t0 = wl__now();
	r = SC(SYS_io_submit, ctx, (long)n, ptrs);
	t1 = wl__now();
	if (r < 0)
		wl__die("io_submit: %s", strerror(-r));
	for (int i = 0; i < r; i++) {
		struct iocb *cb = &cbs[i];
		int64_t len = cb->aio_nbytes;

		if (cb->aio_lio_opcode == IOCB_CMD_PWRITEV || cb->aio_lio_opcode == IOCB_CMD_PREADV)
			len = iov_total((const void *)(uintptr_t)cb->aio_buf, cb->aio_nbytes);
		wl_log__times(t0, t1);
		EMIT(.op = OP_AIO_SUBMIT, .path = o->path, .kind = o->kind, .fd = cb->aio_fildes,
		     .off = cb->aio_offset, .len = len, .subop = cb->aio_lio_opcode,
		     .aux = (uintptr_t)cb, .ctx = ctx,
		     .has = H_PATH | H_FD | H_OFF | H_LEN | H_SUBOP | H_AUX | H_CTX);
	}
	while (got < r) {
		long e;

		t0 = wl__now();
		e = SC(SYS_io_getevents, ctx, 1L, (long)(r - got), ev, NULL);
		t1 = wl__now();

		if (e == -EINTR)
			continue;
		if (e < 0)
			wl__die("io_getevents: %s", strerror(-e));
		for (int i = 0; i < e; i++) {
			wl_log__times(t0, t1);
			EMIT(.op = OP_AIO_COMPLETE, .aux = ev[i].obj, .ret = ev[i].res, .ctx = ctx,
			     .has = H_AUX | H_RET | H_CTX);
		}
		got += e;
	}
}

void wl_aio__run(struct worker *w)
{
	char name[64], abs[PATH_MAX];
	aio_context_t ctx = 0;
	struct iocb cbs[4];
	struct iovec iov[2];
	struct ofd o;
	char *buf;
	long r;
	int fd;

	snprintf(name, sizeof(name), "aio_p%dt%d.dat", w->proc, w->idx);
	wl__join(abs, wl_opt.aio_root, name);
	fd = wl__open(&o, "openat", SYS_openat, AT_FDCWD, abs, abs,
		      O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, 0644);
	if (fd == -EINVAL) /* a file system without O_DIRECT: AIO is synchronous there */
		fd = wl__open(&o, "openat", SYS_openat, AT_FDCWD, abs, abs,
			      O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		wl__die("open %s: %s", abs, strerror(-fd));
	buf = aligned_alloc(4096, 4 * 4096);
	if (!buf)
		wl__die("out of memory");
	memcpy(buf, wl_pat, 4 * 4096);
	r = SC(SYS_io_setup, 16L, &ctx);
	if (r < 0)
		wl__die("io_setup: %s", strerror(-r));

	memset(cbs, 0, sizeof(cbs));
	for (int i = 0; i < 2; i++) {
		cbs[i].aio_lio_opcode = IOCB_CMD_PWRITE;
		cbs[i].aio_fildes = fd;
		cbs[i].aio_buf = (uintptr_t)(buf + i * 4096);
		cbs[i].aio_nbytes = 4096;
		cbs[i].aio_offset = i * 4096;
		cbs[i].aio_data = tag(w, i);
	}
	iov[0] = (struct iovec){buf + 2 * 4096, 4096};
	iov[1] = (struct iovec){buf + 3 * 4096, 4096};
	cbs[2] = (struct iocb){.aio_lio_opcode = IOCB_CMD_PWRITEV,
			       .aio_fildes = fd,
			       .aio_buf = (uintptr_t)iov,
			       .aio_nbytes = 2,
			       .aio_offset = 8192,
			       .aio_data = tag(w, 2)};
	aio_batch(w, ctx, &o, cbs, 3);

	memset(cbs, 0, sizeof(cbs));
	for (int i = 0; i < 2; i++) {
		cbs[i].aio_lio_opcode = IOCB_CMD_PREAD;
		cbs[i].aio_fildes = fd;
		cbs[i].aio_buf = (uintptr_t)(buf + i * 4096);
		cbs[i].aio_nbytes = 4096;
		cbs[i].aio_offset = (3 - i) * 4096;
		cbs[i].aio_data = tag(w, 10 + i);
	}
	cbs[2] = (struct iocb){
	    .aio_lio_opcode = IOCB_CMD_FDSYNC, .aio_fildes = fd, .aio_data = tag(w, 12)};
	aio_batch(w, ctx, &o, cbs, 3);

	SC(SYS_io_destroy, ctx);
	wl__close(fd, &o);
	free(buf);
}

static void uring_sqe(struct io_uring *ring, struct ofd *o, int fd, int opcode, void *buf,
		      unsigned len, uint64_t off, uint64_t data)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (!sqe)
		wl__die("io_uring: no sqe");
	switch (opcode) {
	case IORING_OP_READ:
		io_uring_prep_read(sqe, fd, buf, len, off);
		break;
	case IORING_OP_WRITE:
		io_uring_prep_write(sqe, fd, buf, len, off);
		break;
	case IORING_OP_READV:
		io_uring_prep_readv(sqe, fd, buf, len, off);
		break;
	case IORING_OP_WRITEV:
		io_uring_prep_writev(sqe, fd, buf, len, off);
		break;
	case IORING_OP_FSYNC:
		io_uring_prep_fsync(sqe, fd, 0);
		break;
	}
	io_uring_sqe_set_data64(sqe, data);
}

/* Logs the SQEs just submitted (their fields as the kernel reads them), then reaps. */
static void uring_batch(struct io_uring *ring, struct ofd *o, struct io_uring_sqe *first, int n)
{
	struct io_uring_sqe copy[8];
	uint64_t t0, t1;
	int r;

	memcpy(copy, first, n * sizeof(*first));
	t0 = wl__now();
	r = io_uring_submit(ring);
	t1 = wl__now();
	if (r != n)
		wl__die("io_uring_submit: %d of %d", r, n);
	for (int i = 0; i < n; i++) {
		const struct io_uring_sqe *s = &copy[i];
		int64_t len = s->len;

		if (s->opcode == IORING_OP_READV || s->opcode == IORING_OP_WRITEV)
			len = iov_total((const void *)(uintptr_t)s->addr, s->len);
		wl_log__times(t0, t1);
		EMIT(.op = OP_URING_SUBMIT, .path = o->path, .kind = o->kind, .fd = s->fd, .off = s->off, .len = len,
		     .subop = s->opcode, .aux = s->user_data, .ctx = ring->ring_fd,
		     .has = H_PATH | H_FD | H_OFF | H_LEN | H_SUBOP | H_AUX | H_CTX);
	}
	for (int i = 0; i < n; i++) {
		struct io_uring_cqe *cqe;

		t0 = wl__now();
		r = io_uring_wait_cqe(ring, &cqe);
		if (r < 0)
			wl__die("io_uring_wait_cqe: %s", strerror(-r));
		wl_log__times(t0, wl__now());
		EMIT(.op = OP_URING_COMPLETE, .aux = cqe->user_data, .ret = cqe->res,
		     .ctx = ring->ring_fd, .has = H_AUX | H_RET | H_CTX);
		io_uring_cqe_seen(ring, cqe);
	}
}

void wl_uring__run(struct worker *w)
{
	char name[128], abs[PATH_MAX], *buf;
	struct io_uring_sqe *first;
	struct io_uring ring;
	struct iovec iov[2];
	struct ofd o;
	int fd, r;

	snprintf(name, sizeof(name), "%s/uring.dat", w->rel);
	wl__join(abs, wl_opt.root, name);
	fd = wl__open(&o, "open", SYS_open, AT_FDCWD, name, abs, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		wl__die("open %s: %s", abs, strerror(-fd));
	r = io_uring_queue_init(8, &ring, 0);
	if (r < 0)
		wl__die("io_uring_queue_init: %s", strerror(-r));
	buf = malloc(4 * 8192);
	if (!buf)
		wl__die("out of memory");
	memcpy(buf, wl_pat, 4 * 8192);

	iov[0] = (struct iovec){buf + 8192, 1000};
	iov[1] = (struct iovec){buf + 16384, 3000};
	first = &ring.sq.sqes[ring.sq.sqe_tail & *ring.sq.kring_mask];
	uring_sqe(&ring, &o, fd, IORING_OP_WRITE, buf, 8192, 0, tag(w, 100));
	uring_sqe(&ring, &o, fd, IORING_OP_WRITEV, iov, 2, 8192, tag(w, 101));
	uring_batch(&ring, &o, first, 2);

	first = &ring.sq.sqes[ring.sq.sqe_tail & *ring.sq.kring_mask];
	uring_sqe(&ring, &o, fd, IORING_OP_FSYNC, NULL, 0, 0, tag(w, 102));
	uring_sqe(&ring, &o, fd, IORING_OP_READ, buf + 24576, 4096, 4096, tag(w, 103));
	uring_sqe(&ring, &o, fd, IORING_OP_READV, iov, 2, 100, tag(w, 104));
	uring_batch(&ring, &o, first, 3);

	io_uring_queue_exit(&ring);
	wl__close(fd, &o);
	free(buf);
}
