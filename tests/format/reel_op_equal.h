/* SPDX-License-Identifier: MIT */
/* reel_op_equal.h - two ops alike in every field: the round-trip check of the tests, the
 * benchmark and the fuzzer. */
#ifndef IOREEL_TEST_REEL_OP_EQUAL_H
#define IOREEL_TEST_REEL_OP_EQUAL_H

#include <stdbool.h>

#include "reel.h"

static inline bool t_op_equal(const struct reel_op *a, const struct reel_op *b)
{
	return a->type == b->type && a->fd_kind == b->fd_kind && a->subop == b->subop &&
	       a->pid == b->pid && a->tid == b->tid && a->fd == b->fd && a->fd2 == b->fd2 &&
	       a->path == b->path && a->path2 == b->path2 && a->flags == b->flags &&
	       a->mode == b->mode && a->offset == b->offset && a->len == b->len &&
	       a->aux == b->aux && a->ctx == b->ctx && a->ret == b->ret &&
	       a->start_ns == b->start_ns && a->end_ns == b->end_ns && a->sched_ns == b->sched_ns &&
	       a->wait_ns == b->wait_ns;
}

#endif
