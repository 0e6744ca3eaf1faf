/* SPDX-License-Identifier: MIT */
/*
 * replay_engine.h - I/O engines as fio has them: an ops table over private state. The
 * caller queues requests, commits them, and reaps completions with getevents/event.
 * A request's ret is the syscall's result or -errno; done_ns is when it was reaped.
 */
#ifndef IOREEL_REPLAY_ENGINE_H
#define IOREEL_REPLAY_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "replay.h"

enum replay_io_kind {
	REPLAY_IO_READ = 0,
	REPLAY_IO_WRITE,
	REPLAY_IO_FSYNC,
	REPLAY_IO_FDSYNC,
	REPLAY_IO_NOP,
};

struct replay_io {
	int kind;
	int fd;
	void *buf;
	size_t len;
	uint64_t off;
	int rw_flags; /* a read's or write's RWF_* (RWF_DSYNC...), as pwritev2 takes them */
	int64_t ret;
	uint64_t done_ns;
	void *owner;					    /* the caller's */
	unsigned char priv[64] __attribute__((aligned(8))); /* the engine's (libaio: iocb) */
};

struct replay_engine;

struct replay_engine_ops {
	const char *name;
	int (*init)(struct replay_engine *e, unsigned depth);
	int (*queue)(struct replay_engine *e, struct replay_io *io);
	/*
	 * submits what was queued: 0 when the kernel took all of it. -errno when it took none of
	 * what was left (-EAGAIN, -EBUSY: out of resources for now; or the request's own
	 * error): those requests are withdrawn, nothing of them is left with the engine or the
	 * kernel, and the caller may free or reuse them. What the kernel did take completes as
	 * usual, even if it refused it (its event then carries the error). Either way it sets
	 * e->taken: the kernel takes requests in the order they were queued, so those it took
	 * are the first e->taken of them.
	 */
	int (*commit)(struct replay_engine *e);
	/* waits for at least min completions (or until t, when not NULL); count or -errno */
	int (*getevents)(struct replay_engine *e, unsigned min, unsigned max,
			 const struct timespec *t);
	struct replay_io *(*event)(struct replay_engine *e, unsigned i);
	void (*cleanup)(struct replay_engine *e);
	/*
	 * Optional (io_uring). notify_fd: an eventfd the kernel signals as completions come
	 * (created on the first call; fd or -errno), for a thread to wait for them without
	 * taking them, so that another may take them; notify(e, 0) stops those signals (a
	 * thread waiting for completions in getevents itself does not need them), notify(e, 1)
	 * starts them again.
	 */
	int (*notify_fd)(struct replay_engine *e);
	void (*notify)(struct replay_engine *e, int on);
	/*
	 * Optional (libaio). The completions posted, without waiting, into the caller's out[]
	 * (at most max), not the engine's own events: a thread may take them while another
	 * waits in getevents. Count or -errno.
	 */
	int (*peek)(struct replay_engine *e, struct replay_io **out, unsigned max);
};

struct replay_engine {
	const struct replay_engine_ops *ops;
	void *priv;
	unsigned depth;
	unsigned fail_every; /* IOREEL_TEST_SUBMIT_FAIL: every Nth submission is refused */
	unsigned submits;
	unsigned taken; /* the last commit's: how many of the requests queued the kernel took */
	/* set by init: getevents may run in one thread while another queues and commits */
	int reap_apart;
};

/* for the engines: the test knob says this submission is refused (-EAGAIN, none taken) */
static inline int replay_engine__test_refuse(struct replay_engine *e)
{
	return e->fail_every && ++e->submits % e->fail_every == 0;
}

extern const struct replay_engine_ops replay_engine_sync;
extern const struct replay_engine_ops replay_engine_uring;
extern const struct replay_engine_ops replay_engine_aio;

/* init with the ops of kind; 0 or -errno */
int replay_engine__init(struct replay_engine *e, enum replay_engine_kind kind, unsigned depth);
void replay_engine__cleanup(struct replay_engine *e);
/*
 * Queues and commits one request. Refused for want of room (-EAGAIN, -EBUSY: the engine took
 * nothing back, see commit), make_room(ctx) is called and the request tried again: it reaps
 * the caller's requests in flight, waiting for one (1: there were some), or waits ~1 ms
 * with none in flight (0), or gives up (-errno). After REPLAY_SUBMIT_IDLE_TRIES waits with
 * none in flight the refusal stands: the kernel is short of resources, not of room. 0 or
 * -errno, the request then left with the engine or not at all.
 */
#define REPLAY_SUBMIT_IDLE_TRIES 3
int replay_engine__submit(struct replay_engine *e, struct replay_io *io,
			  int (*make_room)(void *ctx), void *ctx);
/*
 * Queues the n requests io[] and commits them at once, as the application's io_submit of n
 * iocbs or io_uring_enter of n SQEs went: one syscall when the kernel takes them all. Those
 * refused for want of room go again after make_room, as replay_engine__submit's one does
 * (a refusal that stands, stands for all those left); one the kernel refuses for itself is
 * left out, and the rest go on. err[i]: 0, io[i] left with the engine; or -errno, not at all.
 */
void replay_engine__submit_n(struct replay_engine *e, struct replay_io **io, unsigned n,
			     int (*make_room)(void *ctx), void *ctx, int *err);

#endif
