/* SPDX-License-Identifier: MIT */
/* replay_engine_uring.c - io_uring through liburing: one ring per engine instance. */
#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "replay_engine.h"
#include "replay_int.h"

struct uring_priv {
	struct io_uring ring;
	struct replay_io **ev;
	unsigned queued;
	int efd; /* notify_fd's, or -1 */
	/* IOREEL_TEST_URING_ASYNC, for tests only: every request goes to the kernel's io-wq
	 * workers (IOSQE_ASYNC), as one that cannot be done within its submission does */
	int force_async;
};

static int uring__init(struct replay_engine *e, unsigned depth)
{
	struct uring_priv *p = calloc(1, sizeof(*p));
	int r;

	if (!p)
		return -ENOMEM;
	p->ev = calloc(depth, sizeof(*p->ev));
	if (!p->ev) {
		free(p);
		return -ENOMEM;
	}
	r = io_uring_queue_init(depth, &p->ring, 0);
	if (r < 0) {
		free(p->ev);
		free(p);
		return r;
	}
	p->efd = -1;
	p->force_async = getenv("IOREEL_TEST_URING_ASYNC") != NULL;
	e->priv = p;
	/* waiting with a timeout enters with to_submit 0 (the SQ untouched) only given
	 * IORING_FEAT_EXT_ARG (5.11): before, liburing queues a timeout SQE of its own */
	e->reap_apart = !!(p->ring.features & IORING_FEAT_EXT_ARG);
	return 0;
}

static int uring__queue(struct replay_engine *e, struct replay_io *io)
{
	struct uring_priv *p = e->priv;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&p->ring);

	if (!sqe)
		return -EBUSY;
	switch (io->kind) {
	case REPLAY_IO_READ:
		io_uring_prep_read(sqe, io->fd, io->buf, (unsigned)io->len, io->off);
		sqe->rw_flags = io->rw_flags;
		break;
	case REPLAY_IO_WRITE:
		io_uring_prep_write(sqe, io->fd, io->buf, (unsigned)io->len, io->off);
		sqe->rw_flags = io->rw_flags;
		break;
	case REPLAY_IO_FSYNC:
		io_uring_prep_fsync(sqe, io->fd, 0);
		break;
	case REPLAY_IO_FDSYNC:
		io_uring_prep_fsync(sqe, io->fd, IORING_FSYNC_DATASYNC);
		break;
	default:
		io_uring_prep_nop(sqe);
		break;
	}
	if (p->force_async)
		sqe->flags |= IOSQE_ASYNC;
	io_uring_sqe_set_data(sqe, io);
	p->queued++;
	return 0;
}

/* makes the SQEs prepared since the last submission visible to the kernel, as
 * io_uring_submit does before it enters: the knob's refusal leaves the ring as the kernel's */
static void uring__publish(struct io_uring *ring)
{
	ring->sq.sqe_head = ring->sq.sqe_tail;
	io_uring_smp_store_release(ring->sq.ktail, ring->sq.sqe_tail);
}

/*
 * Takes back every SQE the kernel has not consumed: a refused io_uring_enter leaves them in
 * the ring, and the next submission would issue them, pointing at requests and buffers the
 * caller has since freed or reused. Without SQPOLL only an io_uring_enter that submits reads
 * the SQ tail, and only the committing thread submits (a reaper thread enters to wait only:
 * reap_apart), so moving it back to the kernel's head takes them out whole.
 */
static void uring__withdraw(struct io_uring *ring)
{
	unsigned head = io_uring_smp_load_acquire(ring->sq.khead);

	ring->sq.sqe_head = ring->sq.sqe_tail = head;
	io_uring_smp_store_release(ring->sq.ktail, head);
}

static int uring__commit(struct replay_engine *e)
{
	struct uring_priv *p = e->priv;
	int r;

	e->taken = 0;
	while (p->queued) {
		if (replay_engine__test_refuse(e)) {
			uring__publish(&p->ring);
			r = -EAGAIN;
		} else {
			r = io_uring_submit(&p->ring);
		}
		if (r == -EINTR)
			continue;
		if (r <= 0) {
			uring__withdraw(&p->ring);
			p->queued = 0;
			return r < 0 ? r : -EAGAIN;
		}
		/* it stops after a request it refused (whose CQE says why): the rest go again */
		if ((unsigned)r > p->queued)
			r = (int)p->queued;
		p->queued -= (unsigned)r;
		e->taken += (unsigned)r;
	}
	return 0;
}

static int uring__getevents(struct replay_engine *e, unsigned min, unsigned max,
			    const struct timespec *t)
{
	struct uring_priv *p = e->priv;
	struct io_uring_cqe *cqe;
	unsigned n = 0;
	int r;

	if (max > e->depth)
		max = e->depth;
	while (n < max) {
		if (n < min) {
			struct __kernel_timespec kt;

			if (t) {
				kt.tv_sec = t->tv_sec;
				kt.tv_nsec = t->tv_nsec;
			}
			r = io_uring_wait_cqe_timeout(&p->ring, &cqe, t ? &kt : NULL);
			if (r == -ETIME || r == -EINTR)
				break;
			if (r < 0)
				return n ? (int)n : r;
		} else if (io_uring_peek_cqe(&p->ring, &cqe)) {
			break;
		}
		struct replay_io *io = io_uring_cqe_get_data(cqe);

		io->ret = cqe->res;
		io->done_ns = replay_now_ns();
		io_uring_cqe_seen(&p->ring, cqe);
		p->ev[n++] = io;
	}
	return (int)n;
}

static struct replay_io *uring__event(struct replay_engine *e, unsigned i)
{
	return ((struct uring_priv *)e->priv)->ev[i];
}

static int uring__notify_fd(struct replay_engine *e)
{
	struct uring_priv *p = e->priv;
	int fd, r;

	if (p->efd >= 0)
		return p->efd;
	/* the switch (IORING_CQ_EVENTFD_DISABLED, 5.8) lives in the CQ ring's flags */
	if (!p->ring.cq.kflags)
		return -EOPNOTSUPP;
	fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (fd < 0)
		return -errno;
	r = io_uring_register_eventfd(&p->ring, fd);
	if (r < 0) {
		close(fd);
		return r;
	}
	p->efd = fd;
	return fd;
}

static void uring__notify(struct replay_engine *e, int on)
{
	io_uring_cq_eventfd_toggle(&((struct uring_priv *)e->priv)->ring, on);
}

static void uring__cleanup(struct replay_engine *e)
{
	struct uring_priv *p = e->priv;

	if (!p)
		return;
	io_uring_queue_exit(&p->ring);
	if (p->efd >= 0)
		close(p->efd);
	free(p->ev);
	free(p);
	e->priv = NULL;
}

const struct replay_engine_ops replay_engine_uring = {
    .name = "io_uring",
    .init = uring__init,
    .queue = uring__queue,
    .commit = uring__commit,
    .getevents = uring__getevents,
    .event = uring__event,
    .cleanup = uring__cleanup,
    .notify_fd = uring__notify_fd,
    .notify = uring__notify,
};
