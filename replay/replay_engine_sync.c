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
	unsigned queued; /* since the last commit: all of them "taken", as they are done */
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
	p->queued++;
	return 0;
}

static int sync__commit(struct replay_engine *e)
{
	struct sync_priv *p = e->priv;

	e->taken = p->queued;
	p->queued = 0;
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
	e->taken = 0;
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
	int err;

	replay_engine__submit_n(e, &io, 1, make_room, ctx, &err);
	return err;
}

/*
 * Queues io[0..n) until the engine is full and commits them at once. *taken: how many went to
 * the kernel, the first ones. 0 when all those queued did; else the refusal of io[*taken],
 * queue's when the engine had no room for the first one.
 */
static int engine__push(struct replay_engine *e, struct replay_io **io, unsigned n,
			unsigned *taken)
{
	unsigned k = 0;
	int r = 0;

	*taken = 0;
	while (k < n && !(r = e->ops->queue(e, io[k])))
		k++;
	if (!k)
		return r;
	r = e->ops->commit(e);
	*taken = e->taken;
	return r;
}

void replay_engine__submit_n(struct replay_engine *e, struct replay_io **io, unsigned n,
			     int (*make_room)(void *ctx), void *ctx, int *err)
{
	unsigned i = 0, idle = 0, taken;
	int r, room;

	while (i < n) {
		r = engine__push(e, io + i, n - i, &taken);
		for (; taken; taken--) {
			err[i++] = 0;
			idle = 0;
		}
		if (!r)
			continue; /* the engine was full before the rest: they go next */
		if (r != -EAGAIN && r != -EBUSY) {
			err[i++] = r; /* its own: the others are not to fail with it */
			continue;
		}
		room = make_room(ctx);
		if (room == 1 || (room == 0 && ++idle <= REPLAY_SUBMIT_IDLE_TRIES))
			continue;
		/* the kernel is short of resources, not of room: waiting again for each of the
		 * rest would only make them later */
		while (i < n)
			err[i++] = r;
	}
}
