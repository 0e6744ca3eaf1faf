// SPDX-License-Identifier: MIT
/*
 * Damage: a trace cut at every byte, a flipped bit at every byte, junk between chunks,
 * reserved bits under a valid checksum, junk after the trailer. The reader must report
 * each (with the right error and offset), never hand out an op that was not written, and
 * still hand out every op of every sound chunk.
 */
#include <errno.h>
#include <unistd.h>

#include <zstd.h>

#include "reel_test.h"

#define NOPS 300
#define PER_CHUNK 30

static struct reel_op ops[NOPS];

/* Chunk layout of the file, found by walking the envelopes. */
struct layout {
	uint64_t off[64];
	uint64_t end[64];
	uint8_t type[64];
	size_t n;
	uint64_t trailer;
};

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void walk(const uint8_t *buf, size_t len, struct layout *l)
{
	uint64_t off = 16;
	l->n = 0;
	while (off + 32 <= len - 16) {
		CHECK(le32(buf + off) == 0x4b43528a, "chunk magic at %llu",
		      (unsigned long long)off);
		l->off[l->n] = off;
		l->type[l->n] = buf[off + 4];
		off += 32 + le32(buf + off + 8);
		l->end[l->n++] = off;
	}
	l->trailer = off;
	CHECK(off == len - 16, "trailer at the end");
}

static uint8_t *make_trace(const char *dir, size_t *len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/d.reel", dir);
	struct reel_writer *w;
	struct reel_writer_opts opts = {.ops_per_chunk = PER_CHUNK};
	CHECK(reel_writer__open(path, &opts, &w) == 0, "open");
	CHECK(reel_writer__meta(w, REEL_META_TOOL, "test_damage") == 0, "meta");
	uint32_t id;
	CHECK(reel_writer__path(w, "/data/file", &id) == 0 && id == 1, "path");
	for (size_t i = 0; i < NOPS; i++) {
		t_rand_op(&ops[i], 1 + t_rand() % (REEL_OP__COUNT - 1), 1);
		ops[i].start_ns = i * 1000; /* a distinct, recognisable op each */
		CHECK(reel_writer__add(w, &ops[i]) == 0, "add");
	}
	CHECK(reel_writer__meta(w, REEL_META_LOST_EVENTS, "0") == 0, "meta");
	CHECK(reel_writer__close(w) == 0, "close");
	uint8_t *buf = t_slurp(path, len);
	unlink(path);
	return buf;
}

struct outcome {
	size_t nops;
	size_t idx[NOPS]; /* index of each op read in ops[] */
	int errs[64];
	uint64_t err_off[64];
	struct reel_damage dmg[64];
	size_t nerrs;
	int open_err;
};

/* Reads a buffer; every op read must be one of ops[], in increasing order. */
static void read_all(const uint8_t *buf, size_t len, struct outcome *o)
{
	struct reel_reader *r;
	memset(o, 0, sizeof(*o));
	o->open_err = reel_reader__open_buffer(buf, len, &r);
	if (o->open_err)
		return;
	struct reel_op op;
	size_t next = 0;
	for (int calls = 0; calls < 100000; calls++) {
		int rc = reel_reader__next(r, &op);
		if (rc == 0)
			break;
		if (rc < 0) {
			CHECK(o->nerrs < 64, "too many errors");
			o->errs[o->nerrs] = rc;
			reel_reader__damage(r, &o->dmg[o->nerrs]);
			o->err_off[o->nerrs++] = reel_reader__damage_offset(r);
			continue;
		}
		size_t i = op.start_ns / 1000;
		CHECK(i < NOPS && i >= next && t_op_equal(&op, &ops[i]),
		      "op read was never written");
		o->idx[o->nops++] = i;
		next = i + 1;
	}
	CHECK(reel_reader__next(r, &op) == 0, "the end stays the end");
	reel_reader__close(r);
}

/* The ops of the ops chunks that lie wholly before cut. */
static size_t ops_before(const struct layout *l, uint64_t cut)
{
	size_t n = 0;
	for (size_t c = 0; c < l->n; c++)
		if (l->type[c] == 2 && l->end[c] <= cut)
			n += PER_CHUNK;
	return n;
}

static void test_truncation(const uint8_t *buf, size_t len, const struct layout *l)
{
	static struct outcome o;
	for (size_t cut = 0; cut < len; cut++) {
		read_all(buf, cut, &o);
		if (cut < 16) {
			CHECK(o.open_err == -REEL_E_TRUNCATED, "cut %zu: open %d", cut, o.open_err);
			continue;
		}
		CHECK(o.open_err == 0, "cut %zu: open %d", cut, o.open_err);
		size_t want = ops_before(l, cut);
		CHECK(o.nops == want, "cut %zu: %zu ops, want %zu", cut, o.nops, want);
		for (size_t i = 0; i < o.nops; i++)
			CHECK(o.idx[i] == i, "cut %zu: op %zu", cut, i);
		CHECK(o.nerrs == 1 && o.errs[0] == -REEL_E_TRUNCATED, "cut %zu: errors %zu (%s)",
		      cut, o.nerrs, o.nerrs ? reel_strerror(o.errs[0]) : "none");
		CHECK(o.err_off[0] <= cut, "cut %zu: damage offset %llu", cut,
		      (unsigned long long)o.err_off[0]);
		CHECK(o.dmg[0].truncated && o.dmg[0].resume == cut,
		      "cut %zu: the damage does not say the trace ends there", cut);
		/* cut in the trailer: every op and the footer were read */
		CHECK(cut >= l->trailer ? o.dmg[0].lost == 0 : (o.dmg[0].lost & REEL_LOST_FOOTER),
		      "cut %zu: lost %u", cut, o.dmg[0].lost);
	}
	read_all(buf, len, &o);
	CHECK(o.open_err == 0 && o.nops == NOPS && o.nerrs == 0, "whole file");
}

/* Which chunk (index) holds byte p; l->n for the trailer. */
static size_t chunk_of(const struct layout *l, uint64_t p)
{
	for (size_t c = 0; c < l->n; c++)
		if (p >= l->off[c] && p < l->end[c])
			return c;
	return l->n;
}

static void test_bit_flips(uint8_t *buf, size_t len, const struct layout *l)
{
	static struct outcome o;
	for (size_t p = 0; p < len; p++) {
		uint8_t bit = 1 << (p % 8);
		buf[p] ^= bit;
		read_all(buf, len, &o);
		buf[p] ^= bit;
		if (p < 16) {
			/* magic, version or flags: refused at open, or (minor) accepted whole */
			if (p >= 10 && p < 12) {
				CHECK(o.open_err == 0 && o.nops == NOPS, "flip %zu: minor", p);
				continue;
			}
			int want = p < 8    ? -REEL_E_MAGIC
				   : p < 10 ? -REEL_E_VERSION
					    : -REEL_E_RESERVED;
			CHECK(o.open_err == want, "flip %zu: open %d", p, o.open_err);
			continue;
		}
		CHECK(o.open_err == 0, "flip %zu: open %d", p, o.open_err);
		CHECK(o.nerrs >= 1, "flip %zu: not detected", p);
		size_t c = chunk_of(l, p);
		if (c == l->n) { /* trailer: all ops, then the trailer is refused */
			CHECK(o.nops == NOPS && o.nerrs == 1 && o.err_off[0] == l->trailer,
			      "flip %zu in trailer", p);
			CHECK(o.errs[0] == (p < l->trailer + 4 || p >= l->trailer + 8
						? -REEL_E_CORRUPT
						: -REEL_E_RESERVED),
			      "flip %zu in trailer: %d", p, o.errs[0]);
			CHECK(o.dmg[0].lost == 0, "flip %zu in trailer: says something was lost",
			      p);
			continue;
		}
		CHECK(o.err_off[0] == l->off[c], "flip %zu: damage at %llu, chunk at %llu", p,
		      (unsigned long long)o.err_off[0], (unsigned long long)l->off[c]);
		CHECK(o.errs[0] == -REEL_E_CHECKSUM ||
			  (p < l->off[c] + 4 && o.errs[0] == -REEL_E_CORRUPT),
		      "flip %zu: error %d", p, o.errs[0]);
		size_t lost = l->type[c] == 2 ? PER_CHUNK : 0;
		CHECK(o.nops == NOPS - lost, "flip %zu (chunk %zu): %zu ops", p, c, o.nops);
		/* one damage, which says what it cost: a footer is no ops, and no truncation */
		CHECK(o.nerrs == 1 && !o.dmg[0].truncated, "flip %zu: %zu errors", p, o.nerrs);
		if (l->type[c] == 2)
			CHECK(o.dmg[0].lost == REEL_LOST_OPS && o.dmg[0].ops_lost == PER_CHUNK,
			      "flip %zu in ops chunk: lost %u, %llu ops", p, o.dmg[0].lost,
			      (unsigned long long)o.dmg[0].ops_lost);
		else
			CHECK(o.dmg[0].lost ==
				  (l->type[c] == 3 ? REEL_LOST_FOOTER : REEL_LOST_META),
			      "flip %zu in chunk type %d: lost %u", p, l->type[c], o.dmg[0].lost);
	}
}

static void test_junk_between(const uint8_t *buf, size_t len, const struct layout *l)
{
	static struct outcome o;
	size_t at = l->end[3], junk = 37;
	uint8_t *b = malloc(len + junk);
	memcpy(b, buf, at);
	for (size_t i = 0; i < junk; i++)
		b[at + i] = t_rand();
	memcpy(b + at + junk, buf + at, len - at);
	/* the trailer's footer offset moved: fix it so only the junk is wrong */
	uint64_t foot = l->off[l->n - 1] + junk;
	for (int i = 0; i < 8; i++)
		b[len + junk - 8 + i] = foot >> (8 * i);
	read_all(b, len + junk, &o);
	CHECK(o.open_err == 0 && o.nops == NOPS, "junk: %zu ops", o.nops);
	CHECK(o.nerrs == 1 && o.errs[0] == -REEL_E_CORRUPT && o.err_off[0] == at,
	      "junk: %zu errors, first %d at %llu", o.nerrs, o.errs[0],
	      (unsigned long long)o.err_off[0]);
	free(b);
}

static void test_reserved_chunk(const uint8_t *buf, size_t len, const struct layout *l)
{
	static struct outcome o;
	/* implemented in the golden generator too; here on a middle chunk, CRC made valid */
	extern uint32_t reel_crc32c(uint32_t crc, const void *buf, size_t len);
	uint8_t *b = malloc(len);
	memcpy(b, buf, len);
	size_t c = 5;
	uint8_t *env = b + l->off[c];
	env[5] = 0x01; /* envelope flags */
	uint32_t crc = reel_crc32c(0, env, 28);
	for (int i = 0; i < 4; i++)
		env[28 + i] = crc >> (8 * i);
	read_all(b, len, &o);
	CHECK(o.open_err == 0 && o.nops == NOPS - PER_CHUNK, "reserved: %zu ops", o.nops);
	CHECK(o.nerrs == 1 && o.errs[0] == -REEL_E_RESERVED && o.err_off[0] == l->off[c],
	      "reserved: %zu errors, first %d", o.nerrs, o.errs[0]);
	free(b);
}

static void test_junk_after(const uint8_t *buf, size_t len, const struct layout *l)
{
	static struct outcome o;
	uint8_t *b = malloc(len + 5);
	memcpy(b, buf, len);
	memcpy(b + len, "extra", 5);
	read_all(b, len + 5, &o);
	CHECK(o.open_err == 0 && o.nops == NOPS, "junk after: ops");
	CHECK(o.nerrs == 1 && o.errs[0] == -REEL_E_CORRUPT && o.err_off[0] == l->trailer,
	      "junk after: %zu errors", o.nerrs);
	free(b);
}

/*
 * A footer whose envelope and payload are sound but whose content is malformed (a byte left
 * over, the checksums made valid): one damage that costs the footer only. The trailer after
 * it is the trailer, not a chunk to resynchronise on nor a truncation.
 */
static void test_footer_content(const uint8_t *buf, size_t len, const struct layout *l)
{
	static struct outcome o;
	extern uint32_t reel_crc32c(uint32_t crc, const void *buf, size_t len);
	size_t c = l->n - 1;
	const uint8_t *env = buf + l->off[c];
	size_t usize = le32(env + 12) + 1, cap = ZSTD_compressBound(usize);
	uint8_t *u = calloc(1, usize), *b = malloc(len + cap);
	CHECK(ZSTD_decompress(u, usize, env + 32, le32(env + 8)) == usize - 1, "footer");
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	uint8_t *e = b + l->off[c];
	memcpy(b, buf, l->off[c] + 28);
	size_t csize = ZSTD_compress2(cc, e + 32, cap, u, usize);
	CHECK(!ZSTD_isError(csize), "compress");
	ZSTD_freeCCtx(cc);
	uint32_t v[4] = {csize, usize, reel_crc32c(0, e + 32, csize)};
	for (int i = 0; i < 4; i++)
		e[8 + i] = v[0] >> (8 * i), e[12 + i] = v[1] >> (8 * i), e[24 + i] = v[2] >> (8 * i);
	v[3] = reel_crc32c(0, e, 28);
	for (int i = 0; i < 4; i++)
		e[28 + i] = v[3] >> (8 * i);
	memcpy(e + 32 + csize, buf + l->trailer, 16); /* it names the same footer offset */
	size_t blen = l->off[c] + 32 + csize + 16;

	read_all(b, blen, &o);
	CHECK(o.open_err == 0 && o.nops == NOPS, "footer content: %zu ops", o.nops);
	CHECK(o.nerrs == 1 && o.errs[0] == -REEL_E_CORRUPT && o.err_off[0] == l->off[c],
	      "footer content: %zu errors, first %d at %llu, the second at %llu", o.nerrs,
	      o.errs[0], (unsigned long long)o.err_off[0], (unsigned long long)o.err_off[1]);
	CHECK(o.dmg[0].lost == REEL_LOST_FOOTER && !o.dmg[0].truncated,
	      "footer content: lost %#x, truncated %d", o.dmg[0].lost, o.dmg[0].truncated);
	free(u);
	free(b);
}

/* The same through a file whose end is missing (a killed recorder): seekable, no footer. */
static void test_file_cut(const char *dir, const uint8_t *buf, const struct layout *l)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/cut.reel", dir);
	uint64_t cut = l->off[4] + 40;
	t_spit(path, buf, cut);
	struct reel_reader *r;
	CHECK(reel_reader__open(path, &r) == 0, "open cut file");
	CHECK(reel_reader__totals(r) == NULL, "no totals without a footer");
	CHECK(strcmp(reel_reader__meta(r, REEL_META_TOOL), "test_damage") == 0, "head meta");
	struct reel_op op;
	size_t n = 0;
	int rc;
	while ((rc = reel_reader__next(r, &op)) == 1)
		CHECK(t_op_equal(&op, &ops[n++]), "op %zu", n - 1);
	CHECK(rc == -REEL_E_TRUNCATED && reel_reader__damage_offset(r) == l->off[4],
	      "cut file: %d at %llu", rc, (unsigned long long)reel_reader__damage_offset(r));
	CHECK(n == ops_before(l, cut), "cut file: %zu ops", n);
	CHECK(reel_reader__next(r, &op) == 0, "then the end");
	reel_reader__close(r);
	unlink(path);
}

int main(void)
{
	const char *dir = t_scratch_dir();
	size_t len;
	uint8_t *buf = make_trace(dir, &len);
	struct layout l;
	walk(buf, len, &l);
	CHECK(l.n == 2 + NOPS / PER_CHUNK && l.type[0] == 1 && l.type[l.n - 1] == 3, "layout");

	test_truncation(buf, len, &l);
	test_bit_flips(buf, len, &l);
	test_junk_between(buf, len, &l);
	test_reserved_chunk(buf, len, &l);
	test_junk_after(buf, len, &l);
	test_footer_content(buf, len, &l);
	test_file_cut(dir, buf, &l);

	free(buf);
	t_scratch_cleanup();
	return T_PASS;
}
