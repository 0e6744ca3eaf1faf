// SPDX-License-Identifier: MIT
/*
 * gen_golden: writes the golden traces of tests/format/golden and their expected dumps.
 * Run it only when the format deliberately changes (a new minor version adds a file, it
 * never rewrites an old one):
 *
 *   build/tests/format/gen_golden tests/format/golden tests/fuzz/seeds-ops
 *
 * small.reel is a valid trace; the others are small.reel damaged in one way each.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../golden_dump.h"
#include "reel_internal.h"
#include "../reel_test.h"

#include <zstd.h>

static const char *dir;

static char *at(const char *name)
{
	static char buf[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}

static void fix_envelope_crc(uint8_t *env)
{
	extern uint32_t reel_crc32c(uint32_t crc, const void *buf, size_t len);
	put32(env + 28, reel_crc32c(0, env, 28));
}

/* Offsets of the chunks of a buffer (walks the envelopes). */
static size_t chunks(const uint8_t *b, size_t len, uint64_t *off)
{
	size_t n = 0;
	for (uint64_t o = 16; o + 32 <= len - 16;
	     o += 32 + (b[o + 8] | b[o + 9] << 8 | b[o + 10] << 16 | (uint32_t)b[o + 11] << 24))
		off[n++] = o;
	return n;
}

static void write_small(const char *path)
{
	struct reel_writer *w;
	struct reel_writer_opts opts = {.ops_per_chunk = 16};
	CHECK(reel_writer__open(path, &opts, &w) == 0, "open");
	reel_writer__meta(w, REEL_META_TOOL, "gen_golden 1.0");
	reel_writer__meta(w, REEL_META_HOST, "golden-host");
	reel_writer__meta(w, REEL_META_KERNEL, "6.18.0");
	reel_writer__meta(w, REEL_META_START_WALL_NS, "1764450000000000000");
	reel_writer__meta(w, REEL_META_START_MONO_NS, "123456789");
	reel_writer__meta(w, REEL_META_COMMAND, "postgres -D /var/lib/db");
	reel_writer__meta(w, REEL_META_PIDS, "4242,4243");
	const char *paths[] = {"/var/lib/db/base/16384/2600", "/var/lib/db/pg_wal/000000010000",
			       "relative/\xc3\xa9t\xc3\xa9.dat", "", "/tmp/new name"};
	uint32_t id[5];
	for (int i = 0; i < 5; i++)
		CHECK(reel_writer__path(w, paths[i], &id[i]) == 0, "path");

	t_rng_state = 42;
	uint64_t now = 1000;
	/* every op type once, fields as a recorder would fill them */
	for (unsigned type = 1; type < REEL_OP__COUNT; type++) {
		struct reel_op o = {.type = type,
				    .pid = 4242,
				    .tid = 4242 + type % 3,
				    .fd = -1,
				    .fd2 = -1,
				    .fd_kind = REEL_FD_REG};
		o.start_ns = now + t_rand() % 5000;
		o.end_ns = o.start_ns + 200 + t_rand() % 100000;
		now = o.start_ns;
		if (reel_op__has_path(type))
			o.path = id[type % 4];
		if ((type >= REEL_OP_RENAME && type <= REEL_OP_RENAMEAT2) ||
		    (type >= REEL_OP_LINK && type <= REEL_OP_SYMLINKAT))
			o.path2 = id[4];
		if (reel_op__is_copy(type)) {
			o.fd = 7;
			o.fd2 = 9;
			o.path = id[0];
			o.path2 = id[4];
			o.offset = 1 << 20;
			o.aux = 4096;
			o.len = 65536;
			o.mode = REEL_FD_REG;
			o.ret = 65536;
		} else if (reel_op__is_read(type) || reel_op__is_write(type)) {
			o.fd = 7;
			o.len = 8192;
			o.offset = 8192 * (type - 5);
			o.ret = 8192;
		} else if (type <= REEL_OP_CREAT) {
			o.fd = type == REEL_OP_OPENAT ? -100 : -1;
			o.flags = 02 | 0100;
			o.mode = 0644;
			o.ret = 7;
		} else if (type >= REEL_OP_AIO_SUBMIT && type <= REEL_OP_URING_COMPLETE) {
			o.fd = 8;
			o.subop = 1;
			o.offset = 1ULL << 40;
			o.len = 4096;
			o.aux = 0xdeadbeefcafeULL;
			o.ctx = 0x7f0000001000ULL;
			o.ret = type % 2 ? 0 : 4096;
		} else if (type == REEL_OP_FCNTL_LOCK) { /* since 1.3 */
			o.fd = 7;
			o.path = id[0];
			o.flags = 7; /* F_SETLKW */
			o.mode = 1;  /* F_WRLCK */
			o.offset = 1ULL << 30;
			o.len = 510;
		} else if (type == REEL_OP_FLOCK) {
			o.fd = 7;
			o.path = id[0];
			o.mode = 2 | 4; /* LOCK_EX | LOCK_NB */
			o.ret = -EAGAIN;
		} else if (reel_op__is_process(type)) { /* since 1.4 */
			o.fd_kind = REEL_FD_UNKNOWN;
			o.end_ns = o.start_ns;
			o.ret = type == REEL_OP_FORK ? 4300 : type == REEL_OP_EXIT ? 3 << 8 : 0;
			o.flags = type == REEL_OP_FORK ? 0x400 : 0; /* CLONE_FILES */
		} else {
			o.fd = 7;
			o.ret = type == REEL_OP_STAT ? -ENOENT : 0;
		}
		/* since 1.2: as a replay result, scheduled, some ops having waited */
		if (REEL_VERSION_MINOR >= 2) {
			o.sched_ns = o.start_ns - t_rand() % 1000;
			if (type % 5 == 0)
				o.wait_ns = 1 + t_rand() % 200000;
		}
		CHECK(reel_writer__add(w, &o) == 0, "add %u", type);
	}
	/* extremes */
	struct reel_op x = {.type = REEL_OP_PREAD64,
			    .fd_kind = REEL_FD_BLK,
			    .pid = UINT32_MAX,
			    .tid = 1,
			    .fd = INT32_MAX,
			    .fd2 = INT32_MIN,
			    .flags = UINT32_MAX,
			    .mode = UINT32_MAX,
			    .offset = UINT64_MAX,
			    .len = UINT64_MAX,
			    .aux = UINT64_MAX,
			    .ctx = 1,
			    .ret = INT64_MIN,
			    .start_ns = UINT64_MAX,
			    .end_ns = 0,
			    .sched_ns = UINT64_MAX,
			    .wait_ns = REEL_VERSION_MINOR >= 2 ? UINT64_MAX : 0};
	CHECK(reel_writer__add(w, &x) == 0, "add extreme");
	x.ret = -EIO;
	x.start_ns = 0;
	x.end_ns = UINT64_MAX;
	x.subop = 255;
	x.fd_kind = REEL_FD_OTHER;
	CHECK(reel_writer__add(w, &x) == 0, "add extreme");
	reel_writer__meta(w, REEL_META_LOST_EVENTS, "3");
	CHECK(reel_writer__close(w) == 0, "close");
}

static void dump(const char *name)
{
	char txt[512];
	snprintf(txt, sizeof(txt), "%s", at(name));
	strcpy(strrchr(txt, '.'), ".txt");
	FILE *f = fopen(txt, "w");
	CHECK(f, "open %s", txt);
	int errs[16];
	size_t n;
	golden_dump(at(name), f, errs, &n);
	fclose(f);
}

/* Seeds for fuzz_ops_payload: the small trace's ops, encoded as one chunk's columns. */
static void write_ops_seeds(const char *seeds)
{
	struct reel_reader *r;
	struct reel_op ops[64];
	size_t n = 0;
	CHECK(reel_reader__open(at("small.reel"), &r) == 0, "reopen");
	while (n < 64 && reel_reader__next(r, &ops[n]) == 1)
		n++;
	reel_reader__close(r);
	size_t sizes[] = {1, 7, n};
	for (int k = 0; k < 3; k++) {
		struct reel_enc e = {0};
		struct reel_buf b = {0};
		uint8_t hdr[2] = {sizes[k] & 0xff, sizes[k] >> 8};
		reel_buf__put(&b, hdr, 2);
		CHECK(reel_enc__ops(&e, ops + n - sizes[k], sizes[k], &b) == 0, "encode");
		char path[512];
		snprintf(path, sizeof(path), "%s/small-%zu.bin", seeds, sizes[k]);
		t_spit(path, b.data, b.len);
		reel_buf__free(&b);
		reel_enc__free(&e);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: gen_golden GOLDEN_DIR OPS_SEEDS_DIR\n");
		return 2;
	}
	dir = argv[1];
	/*
	 * small.reel and the files damaged from it were written by version 1.0 and stay as they
	 * are (a reader must go on reading them); each later minor version adds its own
	 * small-1.N.reel, with every op type it knows. Only a fresh directory gets a new
	 * small.reel.
	 */
	char cur[32];
	snprintf(cur, sizeof(cur), "small-%d.%d.reel", REEL_VERSION_MAJOR, REEL_VERSION_MINOR);
	if (access(at("small.reel"), F_OK))
		write_small(at("small.reel"));
	if (access(at(cur), F_OK))
		write_small(at(cur));
	size_t len;
	uint8_t *b = t_slurp(at("small.reel"), &len);
	uint64_t off[64];
	size_t n = chunks(b, len, off);
	CHECK(n >= 5, "chunks: %zu", n);
	uint8_t *c = malloc(len + 64);

	/* truncated: cut in the middle of the third ops chunk */
	t_spit(at("truncated.reel"), b, off[3] + 45);

	memcpy(c, b, len);
	c[1] = 'X';
	t_spit(at("bad-magic.reel"), c, len);

	memcpy(c, b, len);
	c[8] = 2;
	t_spit(at("bad-version.reel"), c, len);

	/* a flipped bit in the payload of the second ops chunk */
	memcpy(c, b, len);
	c[off[2] + 32 + 10] ^= 0x10;
	t_spit(at("bad-checksum.reel"), c, len);

	memcpy(c, b, len);
	c[12] = 1;
	t_spit(at("reserved-header.reel"), c, len);

	/* a reserved envelope bit in the second ops chunk, under a valid envelope checksum */
	memcpy(c, b, len);
	c[off[2] + 6] = 0x80;
	fix_envelope_crc(c + off[2]);
	t_spit(at("reserved-chunk.reel"), c, len);

	/* a minor version newer than the reader's, with a chunk of an unknown type before the
	 * footer: readable */
	uint64_t foot = off[n - 1];
	memcpy(c, b, foot);
	c[10] = REEL_VERSION_MINOR + 1;
	uint8_t *u = c + foot;
	memcpy(u, b + off[1], 32); /* an envelope to start from */
	u[4] = 200;
	put32(u + 16, 0);
	uint8_t payload[64];
	size_t plen = ZSTD_compress(payload, sizeof(payload), "future", 6, 3);
	/* zstd without a checksum would be refused: build it with one */
	ZSTD_CCtx *z = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(z, ZSTD_c_checksumFlag, 1);
	plen = ZSTD_compress2(z, payload, sizeof(payload), "future", 6);
	ZSTD_freeCCtx(z);
	put32(u + 8, plen);
	put32(u + 12, 6);
	extern uint32_t reel_crc32c(uint32_t crc, const void *buf, size_t len);
	put32(u + 24, reel_crc32c(0, payload, plen));
	fix_envelope_crc(u);
	memcpy(u + 32, payload, plen);
	size_t grow = 32 + plen;
	memcpy(c + foot + grow, b + foot, len - foot);
	for (int i = 0; i < 8; i++)
		c[len + grow - 8 + i] = (foot + grow) >> (8 * i);
	/* newer-minor.reel was minor 1 when the reader was 1.0; since 1.1 it is of the reader's
	 * own minor version, and its unknown chunk is damage. It stays as it was; each minor
	 * version adds its own newer-minor-1.N.reel, N one above its own. */
	char newer[32];
	snprintf(newer, sizeof(newer), "newer-minor-%d.%d.reel", REEL_VERSION_MAJOR,
		 REEL_VERSION_MINOR + 1);
	if (access(at(newer), F_OK))
		t_spit(at(newer), c, len + grow);

	const char *names[] = {"small.reel",	      "truncated.reel",	   "bad-magic.reel",
			       "bad-version.reel",    "bad-checksum.reel", "reserved-header.reel",
			       "reserved-chunk.reel", "newer-minor.reel",   cur,
			       newer};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		dump(names[i]);
	/* those of the minor versions between: their dumps as this reader reads them */
	for (int m = 1; m <= REEL_VERSION_MINOR; m++) {
		char name[32];
		snprintf(name, sizeof(name), "small-%d.%d.reel", REEL_VERSION_MAJOR, m);
		if (m < REEL_VERSION_MINOR && !access(at(name), F_OK))
			dump(name);
		snprintf(name, sizeof(name), "newer-minor-%d.%d.reel", REEL_VERSION_MAJOR, m);
		if (m > 1 && !access(at(name), F_OK))
			dump(name);
	}
	write_ops_seeds(argv[2]);
	free(b);
	free(c);
	return 0;
}
