// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the input is turned into ops (and paths and meta), written with the
 * writer and read back; every field of every op must come back unchanged. This hunts for
 * writer/reader asymmetries (encodings, time modes, offset prediction) on values no
 * hand-written test thought of.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "reel.h"
#include "../format/reel_op_equal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct in {
	const uint8_t *p, *end;
};

/* Next value of up to 8 bytes, width chosen by the input itself. */
static uint64_t take(struct in *in)
{
	if (in->p >= in->end)
		return 0;
	unsigned w = *in->p++ % 9;
	uint64_t v = 0;
	for (unsigned k = 0; k < w && in->p < in->end; k++)
		v |= (uint64_t)*in->p++ << (8 * k);
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int memfd = -1;
	static char path[64];
	if (memfd < 0) {
		memfd = memfd_create("fuzz_roundtrip", 0);
		if (memfd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	}
	if (ftruncate(memfd, 0))
		abort();
	struct in in = {data, data + size};
	struct reel_writer_opts opts = {.ops_per_chunk = 1 + take(&in) % 300};
	struct reel_writer *w;
	if (reel_writer__open(path, &opts, &w))
		abort();
	size_t cap = size + 1, n = 0;
	struct reel_op *ops = calloc(cap, sizeof(*ops));
	uint32_t npaths = 0;
	while (in.p < in.end && n < cap) {
		uint64_t what = take(&in);
		if (what % 17 == 0) { /* a path, possibly new */
			char s[16];
			snprintf(s, sizeof(s), "/p/%u", (unsigned)(take(&in) % 64));
			uint32_t id;
			if (reel_writer__path(w, s, &id))
				abort();
			npaths = id > npaths ? id : npaths;
			continue;
		}
		if (what % 31 == 1) {
			if (reel_writer__flush(w))
				abort();
			continue;
		}
		struct reel_op *o = &ops[n];
		o->type = 1 + take(&in) % (REEL_OP__COUNT - 1);
		o->fd_kind = take(&in) % (REEL_FD_OTHER + 1);
		o->subop = take(&in);
		o->pid = take(&in) % 4;
		o->tid = take(&in);
		o->fd = (int32_t)take(&in);
		o->fd2 = (int32_t)take(&in);
		o->path = npaths ? take(&in) % (npaths + 1) : 0;
		o->path2 = npaths ? take(&in) % (npaths + 1) : 0;
		o->flags = take(&in);
		o->mode = take(&in);
		o->offset = take(&in);
		o->len = take(&in);
		o->aux = take(&in);
		o->ctx = take(&in);
		o->ret = (int64_t)take(&in);
		o->start_ns = take(&in);
		o->end_ns = take(&in);
		o->sched_ns = take(&in);
		if (reel_writer__add(w, o))
			abort();
		n++;
	}
	if (reel_writer__meta(w, "k", "v") || reel_writer__close(w))
		abort();

	struct reel_reader *r;
	if (reel_reader__open(path, &r))
		abort();
	struct reel_op op;
	size_t i = 0;
	int rc;
	while ((rc = reel_reader__next(r, &op)) == 1) {
		if (i >= n || !t_op_equal(&op, &ops[i]))
			abort();
		i++;
	}
	if (rc != 0 || i != n || !reel_reader__totals(r) || reel_reader__totals(r)->ops != n)
		abort();
	reel_reader__close(r);
	free(ops);
	return 0;
}
