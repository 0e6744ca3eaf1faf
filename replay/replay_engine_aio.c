/* SPDX-License-Identifier: MIT */
/*
 * replay_engine_aio.c - Linux native AIO through libaio. It is only asynchronous on O_DIRECT
 * fds (buffered requests complete inside io_submit, as they did for the traced application);
 * buffers are always page-aligned so O_DIRECT requests are accepted.
 */
#include <errno.h>
#include <libaio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_engine.h"
#include "replay_int.h"

_Static_assert(sizeof(struct iocb) <= sizeof(((struct replay_io *)0)->priv), "iocb fits");

#define AIO_PEEK_MAX 64 /* completions one peek takes, on the caller's stack */

struct aio_priv {
	io_context_t ctx;
	struct iocb **pending;
	unsigned npending;
	struct io_event *events;
	struct replay_io **ev;
};

static int aio__init(struct replay_engine *e, unsigned depth)
{
	struct aio_priv *p = calloc(1, sizeof(*p));
	int r;

	if (!p)
		return -ENOMEM;
	p->pending = calloc(depth, sizeof(*p->pending));
	p->events = calloc(depth, sizeof(*p->events));
	p->ev = calloc(depth, sizeof(*p->ev));
	r = p->pending && p->events && p->ev ? io_setup((int)depth, &p->ctx) : -ENOMEM;
	if (r < 0) {
		free(p->pending);
		free(p->events);
		free(p->ev);
		free(p);
		return r;
	}
	e->priv = p;
	e->reap_apart = 1; /* io_submit and io_getevents on one context are the kernel's to order */
	return 0;
}

static int aio__queue(struct replay_engine *e, struct replay_io *io)
{
	struct aio_priv *p = e->priv;
	struct iocb *cb = (struct iocb *)io->priv;

	if (p->npending == e->depth)
		return -EBUSY;
	memset(cb, 0, sizeof(*cb));
	switch (io->kind) {
	case REPLAY_IO_READ:
		io_prep_pread(cb, io->fd, io->buf, io->len, (long long)io->off);
		cb->aio_rw_flags = io->rw_flags;
		break;
	case REPLAY_IO_WRITE:
		io_prep_pwrite(cb, io->fd, io->buf, io->len, (long long)io->off);
		cb->aio_rw_flags = io->rw_flags;
		break;
	case REPLAY_IO_FSYNC:
		io_prep_fsync(cb, io->fd);
		break;
	case REPLAY_IO_FDSYNC:
		io_prep_fdsync(cb, io->fd);
		break;
	default:
		return -EOPNOTSUPP;
	}
	cb->data = io;
	p->pending[p->npending++] = cb;
	return 0;
}

static int aio__commit(struct replay_engine *e)
{
	struct aio_priv *p = e->priv;
	unsigned done = 0;
	int r;

	e->taken = 0;
	while (done < p->npending) {
		if (replay_engine__test_refuse(e))
			r = -EAGAIN;
		else
			r = io_submit(p->ctx, (long)(p->npending - done), p->pending + done);
		if (r == -EINTR)
			continue;
		if (r <= 0) {
			/*
			 * none of the rest was taken: withdrawn, the caller's to fail. -EAGAIN
			 * is not retried here: a context full of completions nobody has reaped
			 * stays full, and retrying would spin forever.
			 */
			p->npending = 0;
			return r < 0 ? r : -EAGAIN;
		}
		done += (unsigned)r;
		e->taken = done;
	}
	p->npending = 0;
	return 0;
}

static int aio__getevents(struct replay_engine *e, unsigned min, unsigned max,
			  const struct timespec *t)
{
	struct aio_priv *p = e->priv;
	struct timespec ts;
	int r;

	if (max > e->depth)
		max = e->depth;
	if (t)
		ts = *t;
	do {
		r = io_getevents(p->ctx, (long)min, (long)max, p->events, t ? &ts : NULL);
	} while (r == -EINTR);
	if (r < 0)
		return r;
	for (int i = 0; i < r; i++) {
		struct replay_io *io = p->events[i].data;

		io->ret = (int64_t)(long)p->events[i].res;
		io->done_ns = replay_now_ns();
		p->ev[i] = io;
	}
	return r;
}

static int aio__peek(struct replay_engine *e, struct replay_io **out, unsigned max)
{
	struct aio_priv *p = e->priv;
	struct io_event events[AIO_PEEK_MAX];
	struct timespec zero = {0, 0};
	int r;

	if (max > AIO_PEEK_MAX)
		max = AIO_PEEK_MAX;
	do {
		r = io_getevents(p->ctx, 0, (long)max, events, &zero);
	} while (r == -EINTR);
	if (r < 0)
		return r;
	for (int i = 0; i < r; i++) {
		struct replay_io *io = events[i].data;

		io->ret = (int64_t)(long)events[i].res;
		io->done_ns = replay_now_ns();
		out[i] = io;
	}
	return r;
}

static struct replay_io *aio__event(struct replay_engine *e, unsigned i)
{
	return ((struct aio_priv *)e->priv)->ev[i];
}

static void aio__cleanup(struct replay_engine *e)
{
	struct aio_priv *p = e->priv;

	if (!p)
		return;
	io_destroy(p->ctx);
	free(p->pending);
	free(p->events);
	free(p->ev);
	free(p);
	e->priv = NULL;
}

const struct replay_engine_ops replay_engine_aio = {
    .name = "libaio",
    .init = aio__init,
    .queue = aio__queue,
    .commit = aio__commit,
    .getevents = aio__getevents,
    .event = aio__event,
    .cleanup = aio__cleanup,
    .peek = aio__peek,
};
