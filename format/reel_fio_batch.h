/* SPDX-License-Identifier: MIT */
/*
 * reel_fio_batch.h - how ioreel export fio's jobs submit their async requests: as many at a
 * time as the application's io_submit / io_uring_enter calls most often took (reel_fio.c).
 *
 * A trace's async submit records of one call are alike in type, thread, context and start
 * (FORMAT.md: the syscall's entry), one after the other in their thread's ops. fio submits
 * each request on its own by default (iodepth_batch_submit=1): fio's own libaio job with
 * iodepth=16 and iodepth_batch_submit=8, recorded and exported, went to the device one
 * request per io_submit. A log's calls are counted by the lines each wrote there, so that
 * its job takes the size most of them had.
 */
#ifndef IOREEL_REEL_FIO_BATCH_H
#define IOREEL_REEL_FIO_BATCH_H

#include <stdint.h>

#include "reel.h"
#include "reel_cvt_util.h"

struct fio_batches {
	/* the call whose lines are being written: its type, context and start, and its lines */
	uint64_t start, ctx;
	uint32_t type, lines;
	struct cvt_map sizes; /* lines of one call -> calls that wrote that many */
};

void fio_batches__init(struct fio_batches *b);
void fio_batches__free(struct fio_batches *b);
/* A line written for submit record op: of the current call, or the first of the next. */
int fio_batches__add(struct fio_batches *b, const struct reel_op *op);
/* The log's lines are all written: its last call ends. */
int fio_batches__end(struct fio_batches *b);
/* Of the calls ended: the size most had (of equal counts, the smaller; 1 when there were
 * none), how many there were, and the lines of those of another size than n. */
uint32_t fio_batches__common(const struct fio_batches *b);
uint64_t fio_batches__calls(const struct fio_batches *b);
uint64_t fio_batches__lines_other(const struct fio_batches *b, uint32_t n);

#endif /* IOREEL_REEL_FIO_BATCH_H */
