// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: any bytes as a trace. The reader must never crash, leak or read out
 * of bounds, and must always come to an end. In fuzzing builds the CRCs and zstd's content
 * checksum are not enforced (FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION), so that mutations
 * reach the decoders behind them.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reel_reader *r;
	if (reel_reader__open_buffer(data, size, &r))
		return 0;
	struct reel_op op;
	size_t sink = 0;
	/*
	 * Every call moves forward by at least one byte or one op, so the loop must end, and
	 * no damage is reported twice at one offset: info, dump and export rely on that to
	 * keep reading past damage without guarding against a reader stuck in place.
	 */
	uint64_t last_bad = UINT64_MAX;
	for (size_t calls = 0;; calls++) {
		if (calls >= 2 * size + (1u << 22))
			abort();
		int rc = reel_reader__next(r, &op);
		if (rc == 0)
			break;
		if (rc < 0) {
			uint64_t off = reel_reader__damage_offset(r);
			if (off == last_bad)
				abort();
			last_bad = off;
			sink += off + strlen(reel_strerror(rc));
			continue;
		}
		const char *p = reel_reader__path(r, op.path);
		const char *p2 = reel_reader__path(r, op.path2);
		sink += (p ? strlen(p) : 0) + (p2 ? strlen(p2) : 0) + op.type;
		sink += strlen(reel_op__name(op.type)) + strlen(reel_fd_kind__name(op.fd_kind));
	}
	for (size_t i = 0; i < reel_reader__meta_count(r); i++) {
		const char *k, *v;
		reel_reader__meta_at(r, i, &k, &v);
		sink += strlen(k) + strlen(v) + (reel_reader__meta(r, k) != NULL);
	}
	const struct reel_totals *t = reel_reader__totals(r);
	if (t)
		sink += t->ops;
	reel_reader__close(r);
	/* keeps the lookups from being optimised away */
	__asm__ volatile("" : : "r"(sink));
	return 0;
}
