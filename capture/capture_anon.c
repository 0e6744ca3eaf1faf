/* SPDX-License-Identifier: MIT */
/*
 * capture_anon.c - --anonymize-paths. Each path component becomes a keyed hash of itself
 * (SipHash-2-4, a key drawn per capture), so the same name maps to the same token across
 * the whole trace and the directory structure survives - a replay can still build the tree
 * - while the names cannot be guessed back by hashing a dictionary without the key.
 */
#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "capture_int.h"

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

static void sipround(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = ROTL(v[1], 13);
	v[1] ^= v[0];
	v[0] = ROTL(v[0], 32);
	v[2] += v[3];
	v[3] = ROTL(v[3], 16);
	v[3] ^= v[2];
	v[0] += v[3];
	v[3] = ROTL(v[3], 21);
	v[3] ^= v[0];
	v[2] += v[1];
	v[1] = ROTL(v[1], 17);
	v[1] ^= v[2];
	v[2] = ROTL(v[2], 32);
}

static uint64_t siphash(uint64_t k0, uint64_t k1, const unsigned char *in, size_t len)
{
	uint64_t v[4] = { k0 ^ 0x736f6d6570736575ULL, k1 ^ 0x646f72616e646f6dULL,
			  k0 ^ 0x6c7967656e657261ULL, k1 ^ 0x7465646279746573ULL };
	uint64_t b = (uint64_t)len << 56, m;
	size_t i, left = len & 7;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&m, in + i, 8); /* little-endian host: the reference's byte order */
		v[3] ^= m;
		sipround(v);
		sipround(v);
		v[0] ^= m;
	}
	for (size_t j = 0; j < left; j++)
		b |= (uint64_t)in[i + j] << (8 * j);
	v[3] ^= b;
	sipround(v);
	sipround(v);
	v[0] ^= b;
	v[2] ^= 0xff;
	for (int r = 0; r < 4; r++)
		sipround(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

int capture_anon__init(struct capture_anon *a)
{
	uint64_t key[2];

	if (getrandom(key, sizeof(key), 0) != sizeof(key))
		return -errno;
	a->k0 = key[0];
	a->k1 = key[1];
	return 0;
}

/* in is dir or below it (component-wise: "/devx" is not below "/dev") */
static int is_below(const char *in, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(in, dir, n) && (in[n] == '/' || in[n] == '\0');
}

/* How much of an absolute path stays in clear: all of it under /proc, /sys and /dev, but
 * only "/dev/shm" of what is below it; nothing elsewhere. */
static size_t clear_prefix(const char *in)
{
	static const char *const kernel[] = { "/proc", "/sys", "/dev" };

	if (is_below(in, "/dev/shm"))
		return strlen("/dev/shm");
	for (size_t i = 0; i < sizeof(kernel) / sizeof(kernel[0]); i++)
		if (is_below(in, kernel[i]))
			return strlen(in);
	return 0;
}

void capture_anon__path(const struct capture_anon *a, const char *in, char *out, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (!size)
		return;
	for (size_t n = clear_prefix(in); n && o + 1 < size; n--)
		out[o++] = *in++;
	while (*in && o + 1 < size) {
		const char *end;
		size_t len;
		uint64_t h;

		if (*in == '/') {
			out[o++] = *in++;
			continue;
		}
		end = strchr(in, '/');
		len = end ? (size_t)(end - in) : strlen(in);
		if ((len == 1 && in[0] == '.') || (len == 2 && in[0] == '.' && in[1] == '.')) {
			for (size_t i = 0; i < len && o + 1 < size; i++)
				out[o++] = in[i];
		} else {
			/* 12 hex digits: 48 bits, no collision in any real tree */
			h = siphash(a->k0, a->k1, (const unsigned char *)in, len);
			for (int i = 0; i < 12 && o + 1 < size; i++)
				out[o++] = hex[(h >> (4 * i)) & 15];
		}
		in += len;
	}
	out[o] = '\0';
}
