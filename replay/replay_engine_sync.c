/* SPDX-License-Identifier: MIT */
/* replay_engine_sync.c - the faithful engine: the syscall runs in queue(), from the caller. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "replay_engine.h"
#include "replay_int.h"
#include "replay_sys.h"

struct sync_priv {
	struct replay_io **done, **out;
	unsigned n;
};

static int sync__init(struct replay_engine *e, unsigned depth)
{
	struct sync_priv *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->done = calloc(depth, sizeof(*p->done));
	p->out = calloc(depth, sizeof(*p->out));
	if (!p->done || !p->out) {
		free(p->done);
		free(p->out);
		free(p);
		return -ENOMEM;
	}
	e->priv = p;
	return 0;
}

static int sync__queue(struct replay_engine *e, struct replay_io *io)
{
	struct sync_priv *p = e->priv;
	struct iovec iov = {io->buf, io->len};
	ssize_t r;

	if (p->n == e->depth)
		return -EBUSY;
	switch (io->kind) {
	case REPLAY_IO_READ:
		r = io->rw_flags ? sys_preadv2(io->fd, &iov, 1, (off_t)io->off, io->rw_flags)
				 : sys_pread(io->fd, io->buf, io->len, (off_t)io->off);
		break;
	case REPLAY_IO_WRITE:
		r = io->rw_flags ? sys_pwritev2(io->fd, &iov, 1, (off_t)io->off, io->rw_flags)
				 : sys_pwrite(io->fd, io->buf, io->len, (off_t)io->off);
		break;
	case REPLAY_IO_FSYNC:
		r = sys_fsync(io->fd);
		break;
	case REPLAY_IO_FDSYNC:
		r = sys_fdatasync(io->fd);
		break;
	default:
		r = 0;
		break;
	}
	io->ret = r; /* replay_sys.h: -errno itself */
	io->done_ns = replay_now_ns();
	p->done[p->n++] = io;
	return 0;
}

static int sync__commit(struct replay_engine *e)
{
	return 0;
}

static int sync__getevents(struct replay_engine *e, unsigned min, unsigned max,
			   const struct timespec *t)
{
	struct sync_priv *p = e->priv;
	unsigned n = p->n < max ? p->n : max;

	/* hand out the oldest n; the rest move to the front for the next call */
	for (unsigned i = 0; i < n; i++)
		p->out[i] = p->done[i];
	for (unsigned j = n; j < p->n; j++)
		p->done[j - n] = p->done[j];
	p->n -= n;
	return (int)n;
}

static struct replay_io *sync__event(struct replay_engine *e, unsigned i)
{
	struct sync_priv *p = e->priv;

	return p->out[i];
}

static void sync__cleanup(struct replay_engine *e)
{
	struct sync_priv *p = e->priv;

	if (p) {
		free(p->done);
		free(p->out);
	}
	free(p);
	e->priv = NULL;
}

const struct replay_engine_ops replay_engine_sync = {
    .name = "sync",
    .init = sync__init,
    .queue = sync__queue,
    .commit = sync__commit,
    .getevents = sync__getevents,
    .event = sync__event,
    .cleanup = sync__cleanup,
};

int replay_engine__init(struct replay_engine *e, enum replay_engine_kind kind, unsigned depth)
{
	e->ops = kind == REPLAY_ENGINE_URING ? &replay_engine_uring
		 : kind == REPLAY_ENGINE_AIO ? &replay_engine_aio
					     : &replay_engine_sync;
	e->depth = depth;
	e->priv = NULL;
	e->submits = 0;
	e->fail_every = 0;
	e->reap_apart = 0;
	/* IOREEL_TEST_SUBMIT_FAIL=N, for tests only: the Nth, 2Nth... submission of each async
	 * engine is refused with -EAGAIN, taking nothing, as a kernel out of resources does */
	if (kind != REPLAY_ENGINE_SYNC && getenv("IOREEL_TEST_SUBMIT_FAIL"))
		e->fail_every = (unsigned)strtoul(getenv("IOREEL_TEST_SUBMIT_FAIL"), NULL, 10);
	return e->ops->init(e, depth);
}

void replay_engine__cleanup(struct replay_engine *e)
{
	if (e->ops)
		e->ops->cleanup(e);
	e->ops = NULL;
}

int replay_engine__submit(struct replay_engine *e, struct replay_io *io,
			  int (*make_room)(void *ctx), void *ctx)
{
	unsigned idle = 0;
	int r;

	for (;;) {
		r = e->ops->queue(e, io);
		if (!r)
			r = e->ops->commit(e);
		if (r != -EAGAIN && r != -EBUSY)
			return r;
		switch (make_room(ctx)) {
		case 0:
			if (++idle > REPLAY_SUBMIT_IDLE_TRIES)
				return r;
			break;
		case 1:
			break;
		default:
			return r;
		}
	}
}
