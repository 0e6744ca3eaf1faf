/* SPDX-License-Identifier: MIT */
/* capture_inflight.h - submitted async requests awaiting their completion (by pointer). */
#ifndef IOREEL_CAPTURE_INFLIGHT_H
#define IOREEL_CAPTURE_INFLIGHT_H

#include <stdint.h>

#include "reel.h"

struct capture_inflight;

/*
 * A key is a pointer and the process it belongs to: pid is the tgid for a user-space
 * pointer (an iocb: processes forked from one parent submit iocbs at the same addresses),
 * 0 for a kernel pointer, unique on the machine.
 */
struct capture_inflight *capture_inflight__new(void);
void capture_inflight__free(struct capture_inflight *m);
int capture_inflight__put(struct capture_inflight *m, uint64_t key, uint32_t pid,
			  const struct reel_op *op);
/* As capture_inflight__put(), with a string kept beside the op (a copy; NULL: none). */
int capture_inflight__put_str(struct capture_inflight *m, uint64_t key, uint32_t pid,
			      const struct reel_op *op, const char *str);
/* Removes key's entry into *op; -ENOENT when there is none. */
int capture_inflight__take(struct capture_inflight *m, uint64_t key, uint32_t pid,
			   struct reel_op *op);
/* As capture_inflight__take(); *str: the entry's string, the caller's to free (NULL: none). */
int capture_inflight__take_str(struct capture_inflight *m, uint64_t key, uint32_t pid,
			       struct reel_op *op, char **str);
/* Copies key's entry into *op, keeping it; -ENOENT when there is none. */
int capture_inflight__get(const struct capture_inflight *m, uint64_t key, uint32_t pid,
			  struct reel_op *op);

#endif
