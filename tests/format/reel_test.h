/* SPDX-License-Identifier: MIT */
/* Helpers shared by the format tests: checks, a seeded PRNG, random ops, scratch dirs. */
#ifndef IOREEL_REEL_TEST_H
#define IOREEL_REEL_TEST_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reel.h"
#include "reel_op_equal.h"

#define T_PASS 0
#define T_FAIL 1
#define T_SKIP 77

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);   \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
			exit(T_FAIL);                                                              \
		}                                                                                  \
	} while (0)

static uint64_t t_rng_state = 0x9e3779b97f4a7c15ULL;

static inline uint64_t t_rand(void)
{
	/* splitmix64: deterministic for a given seed */
	uint64_t z = (t_rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A value biased towards extremes and small numbers, as real fields are. */
static inline uint64_t t_rand_field(unsigned bits)
{
	uint64_t mask = bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
	switch (t_rand() % 6) {
	case 0:
		return 0;
	case 1:
		return mask;
	case 2:
		return t_rand() % 16;
	case 3:
		return (mask >> 1) + (t_rand() % 2);
	default:
		return t_rand() & mask;
	}
}

/* A random op of the given type with every field randomised (path ids below npaths+1). */
static inline void t_rand_op(struct reel_op *op, unsigned type, uint32_t npaths)
{
	memset(op, 0, sizeof(*op));
	op->type = type;
	op->fd_kind = t_rand() % (REEL_FD_OTHER + 1);
	op->subop = t_rand_field(8);
	op->pid = t_rand() % 4 ? 1000 + t_rand() % 3 : (uint32_t)t_rand_field(32);
	op->tid = op->pid + t_rand() % 5;
	op->fd = t_rand() % 5 == 0 ? -1 : (int32_t)t_rand_field(32);
	op->fd2 = t_rand() % 3 == 0 ? -1 : (int32_t)t_rand_field(32);
	op->path = npaths ? t_rand() % (npaths + 1) : 0;
	op->path2 = npaths ? t_rand() % (npaths + 1) : 0;
	op->flags = t_rand_field(32);
	op->mode = t_rand_field(32);
	op->offset = t_rand_field(64);
	op->len = t_rand_field(t_rand() % 2 ? 20 : 64);
	op->aux = t_rand_field(64);
	op->ctx = t_rand_field(64);
	op->ret = t_rand() % 3 == 0 ? -(int64_t)(t_rand() % 200) : (int64_t)t_rand_field(64);
	op->start_ns = t_rand_field(64);
	op->end_ns = t_rand() % 4 ? op->start_ns + t_rand() % 100000 : t_rand_field(64);
	op->sched_ns = t_rand() % 2 ? 0 : t_rand_field(64);
	op->wait_ns = t_rand() % 2 ? 0 : t_rand_field(t_rand() % 2 ? 24 : 64);
}

static inline void t_op_print(FILE *f, const struct reel_op *o)
{
	fprintf(f,
		"%s kind=%u subop=%u pid=%u tid=%u fd=%d fd2=%d path=%u path2=%u flags=%#x "
		"mode=%#o off=%" PRIu64 " len=%" PRIu64 " aux=%#" PRIx64 " ctx=%#" PRIx64
		" ret=%" PRId64 " start=%" PRIu64 " end=%" PRIu64 " sched=%" PRIu64
		" wait=%" PRIu64 "\n",
		reel_op__name(o->type), o->fd_kind, o->subop, o->pid, o->tid, o->fd, o->fd2,
		o->path, o->path2, o->flags, o->mode, o->offset, o->len, o->aux, o->ctx, o->ret,
		o->start_ns, o->end_ns, o->sched_ns, o->wait_ns);
}

/* A scratch directory under /dev/shm (or /var/tmp), removed by t_scratch_cleanup. */
static char t_scratch[256];

static inline const char *t_scratch_dir(void)
{
	snprintf(t_scratch, sizeof(t_scratch), "/dev/shm/reeltest.XXXXXX");
	if (!mkdtemp(t_scratch)) {
		snprintf(t_scratch, sizeof(t_scratch), "/var/tmp/reeltest.XXXXXX");
		CHECK(mkdtemp(t_scratch), "mkdtemp");
	}
	return t_scratch;
}

static inline void t_scratch_cleanup(void)
{
	char cmd[300];
	if (!t_scratch[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t_scratch);
	if (system(cmd) != 0)
		fprintf(stderr, "warning: could not remove %s\n", t_scratch);
}

/* Reads a whole file into memory. */
static inline uint8_t *t_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	CHECK(f, "open %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc(n ? n : 1);
	CHECK(buf && fread(buf, 1, n, f) == (size_t)n, "read %s", path);
	fclose(f);
	*len = n;
	return buf;
}

static inline void t_spit(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	CHECK(f && fwrite(buf, 1, len, f) == len && fclose(f) == 0, "write %s", path);
}

#endif
