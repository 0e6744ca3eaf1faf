/* SPDX-License-Identifier: MIT */
/*
 * reel_craft.h - for tests that write by hand what no writer writes (FORMAT.md allows it,
 * or it is damage): one chunk, its payload compressed with zstd, in its envelope with both
 * checksums, appended to file.
 */
#ifndef IOREEL_REEL_CRAFT_H
#define IOREEL_REEL_CRAFT_H

#include <stdlib.h>
#include <zstd.h>

#include "reel_internal.h"

/* 0, or -1 when the payload could not be compressed */
static inline int reel_craft__chunk(struct reel_buf *file, unsigned type,
				    const struct reel_buf *payload, uint32_t nops)
{
	uint8_t env[REEL_ENVELOPE_LEN] = {0};
	size_t cap = ZSTD_compressBound(payload->len), csize;
	uint8_t *z = malloc(cap);
	ZSTD_CCtx *cc = ZSTD_createCCtx();

	if (!z || !cc) {
		free(z);
		ZSTD_freeCCtx(cc);
		return -1;
	}
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	csize = ZSTD_compress2(cc, z, cap, payload->data, payload->len);
	ZSTD_freeCCtx(cc);
	if (ZSTD_isError(csize)) {
		free(z);
		return -1;
	}
	reel_put32(env, REEL_CHUNK_MAGIC);
	env[4] = (uint8_t)type;
	reel_put32(env + 8, (uint32_t)csize);
	reel_put32(env + 12, (uint32_t)payload->len);
	reel_put32(env + 16, nops);
	reel_put32(env + 24, reel_crc32c(0, z, csize));
	reel_put32(env + 28, reel_crc32c(0, env, 28));
	reel_buf__put(file, env, sizeof(env));
	reel_buf__put(file, z, csize);
	free(z);
	return 0;
}

#endif
