/* SPDX-License-Identifier: MIT */
/*
 * replay_lookahead.h - the trace as the replay reads it (the file-set scan and the
 * dispatcher alike), with the lookups on the wrong side of another thread's name change
 * moved to the side their outcome tells (replay_lookahead.c).
 */
#ifndef IOREEL_REPLAY_LOOKAHEAD_H
#define IOREEL_REPLAY_LOOKAHEAD_H

#include <stddef.h>
#include <stdint.h>

#include "reel.h"

/*
 * The trace as the replay reads it, LA_WINDOW ops ahead, with the lookups that were on
 * the wrong side of another thread's create or removal of their name moved to the other
 * (replay_lookahead.c): q[head] to q[n - 1], err each one's reel_reader__next result.
 */
#define LA_WINDOW 256	     /* ops read ahead */
#define LA_CAP (4 * LA_WINDOW) /* slots: the taken ones are reclaimed once it is full */
#define LA_TRIED 8	     /* threads whose lookups one name change looks at */
struct la_slot {
	struct reel_op op;
	int err;
	uint8_t change; /* an op that made or removed a name */
};
struct lookahead {
	struct reel_reader *r; /* its path names */
	size_t head, n;
	unsigned nchanges; /* name changes in the window */
	int held;	   /* an error or the end is in the window: nothing read past it */
	int off;	   /* IOREEL_TEST_NO_LOOKAHEAD: trace order as it is */
	uint64_t moved;	   /* lookups moved */
	struct la_slot *q, *tmp; /* LA_CAP and LA_WINDOW of them */
};

/* reel_reader__next's, in the order the replay reads the trace in */
int lookahead__init(struct lookahead *la); /* 0, or -ENOMEM */
void lookahead__free(struct lookahead *la);
int lookahead__next(struct lookahead *la, struct reel_reader *r, struct reel_op *op);
/* the op lookahead__next gives next, when it is read already and whole; else NULL */
const struct reel_op *lookahead__peek(const struct lookahead *la);

#endif
