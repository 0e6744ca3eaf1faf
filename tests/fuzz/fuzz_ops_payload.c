// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the column decoder on its own, fed a decompressed ops payload (from
 * its time_mode field on) without the zstd frame around it. Input: 2 bytes little-endian
 * op count (at most 4095; bit 15 = the file's minor version is newer), then the payload.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "reel_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct reel_dec dec; /* reused across inputs, as a reader reuses it per chunk */
	if (size < 2)
		return 0;
	size_t n = (data[0] | data[1] << 8) & 0x0fff;
	unsigned known = data[1] & 0x80 ? 0 : REEL_OP__COUNT;
	struct reel_op *ops = malloc((n ? n : 1) * sizeof(*ops));
	if (!ops)
		return 0;
	struct reel_cur c = {data + 2, data + size, 0};
	int err = reel_dec__ops(&dec, &c, ops, n, known);
	if (!err) {
		/* a chunk that decodes must decode to in-range values */
		for (size_t i = 0; i < n; i++)
			if (!ops[i].type || (known && ops[i].type >= known))
				abort();
	}
	free(ops);
	return 0;
}
