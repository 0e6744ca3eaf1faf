/* SPDX-License-Identifier: MIT */
/* reel_fio_batch.c - the sizes of a log's async submission calls, for ioreel export fio
 * (reel_fio_batch.h says why). */
#include <errno.h>

#include "reel_fio_batch.h"

void fio_batches__init(struct fio_batches *b)
{
	*b = (struct fio_batches){0};
	cvt_map__init(&b->sizes);
}

void fio_batches__free(struct fio_batches *b)
{
	cvt_map__free(&b->sizes);
}

int fio_batches__end(struct fio_batches *b)
{
	uint64_t *calls;

	if (!b->lines)
		return 0;
	calls = cvt_map__put(&b->sizes, b->lines, NULL);
	if (!calls)
		return -ENOMEM;
	++*calls;
	b->lines = 0;
	return 0;
}

int fio_batches__add(struct fio_batches *b, const struct reel_op *op)
{
	/* a thread's syscalls never start in the same nanosecond: the time tells the calls apart
	 * (replay_batch.c, batch__same_call) */
	if (b->lines && op->type == b->type && op->ctx == b->ctx && op->start_ns == b->start) {
		b->lines++;
		return 0;
	}
	if (fio_batches__end(b))
		return -ENOMEM;
	b->type = op->type;
	b->ctx = op->ctx;
	b->start = op->start_ns;
	b->lines = 1;
	return 0;
}

uint32_t fio_batches__common(const struct fio_batches *b)
{
	uint64_t size, calls, most = 0, common = 1;

	for (size_t i = 0; cvt_map__next(&b->sizes, &i, &size, &calls);) {
		if (calls > most || (calls == most && size < common)) {
			most = calls;
			common = size;
		}
	}
	return common < UINT32_MAX ? (uint32_t)common : UINT32_MAX;
}

uint64_t fio_batches__calls(const struct fio_batches *b)
{
	uint64_t size, calls, n = 0;

	for (size_t i = 0; cvt_map__next(&b->sizes, &i, &size, &calls);)
		n += calls;
	return n;
}

uint64_t fio_batches__lines_other(const struct fio_batches *b, uint32_t n)
{
	uint64_t size, calls, lines = 0;

	for (size_t i = 0; cvt_map__next(&b->sizes, &i, &size, &calls);)
		if (size != n)
			lines += size * calls;
	return lines;
}
