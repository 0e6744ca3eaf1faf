// SPDX-License-Identifier: MIT
/*
 * CRC32C (Castagnoli, reflected polynomial 0x82f63b78), as FORMAT.md "Checksums" defines:
 * initial value ~0, final xor ~0; reel_crc32c(0, "123456789", 9) == 0xe3069283.
 * Uses the SSE4.2 instruction where the CPU has it, else slicing-by-8 tables.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "reel_internal.h"

static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78U : c >> 1;
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_table[t][i] =
			    (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xff];
}

static uint32_t crc_sw(uint32_t c, const uint8_t *p, size_t n)
{
	pthread_once(&crc_once, crc_init);
	while (n >= 8) {
		uint32_t lo = c ^ reel_get32(p);
		uint32_t hi = reel_get32(p + 4);
		c = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
		    crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
		    crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
		    crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
		p += 8;
		n -= 8;
	}
	while (n--)
		c = (c >> 8) ^ crc_table[0][(c ^ *p++) & 0xff];
	return c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t c, const uint8_t *p, size_t n)
{
	uint64_t c64 = c;
	while (n >= 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		c64 = __builtin_ia32_crc32di(c64, v);
		p += 8;
		n -= 8;
	}
	c = (uint32_t)c64;
	while (n--)
		c = __builtin_ia32_crc32qi(c, *p++);
	return c;
}
#endif

uint32_t reel_crc32c(uint32_t crc, const void *buf, size_t len)
{
	uint32_t c = ~crc;
#if defined(__x86_64__)
	if (__builtin_cpu_supports("sse4.2"))
		return ~crc_hw(c, buf, len);
#endif
	return ~crc_sw(c, buf, len);
}
