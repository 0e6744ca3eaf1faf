// SPDX-License-Identifier: MIT
/*
 * Versioning (FORMAT.md, "Versioning"): an op of a type this reader does not know, an
 * unknown fd kind, an extra column and an unknown chunk type are refused in a file of the
 * reader's own minor version and accepted from a newer minor version. A chunk of an older
 * minor version, without the columns added since, reads them as 0.
 */
#include "reel_craft.h"
#include "reel_internal.h"
#include "reel_test.h"

static struct reel_buf file;

static void chunk(unsigned type, const struct reel_buf *payload, uint32_t nops)
{
	CHECK(!reel_craft__chunk(&file, type, payload, nops), "compress");
}

/*
 * An ops payload as version 1.1 wrote it: REEL_COL_MIN columns, without those added since
 * (each constant here, so that they have no data: only their descriptors go).
 */
static void drop_new_columns(struct reel_buf *p)
{
	struct reel_cur c = {p->data + 2, p->data + p->len, 0};
	reel_cur__varint(&c); /* time mode */
	uint64_t nthreads = reel_cur__varint(&c);
	for (uint64_t t = 0; t < 2 * nthreads; t++)
		reel_cur__varint(&c);
	size_t at = c.p - p->data;
	CHECK(p->data[at] == REEL_COL__COUNT, "ncols byte");
	p->data[at] = REEL_COL_MIN;
	reel_cur__varint(&c);
	for (int k = 0; k < REEL_COL_MIN; k++) {
		reel_cur__varint(&c);
		reel_cur__varint(&c);
	}
	size_t keep = c.p - p->data;
	for (int k = REEL_COL_MIN; k < REEL_COL__COUNT; k++) {
		CHECK(reel_cur__varint(&c) == REEL_ENC_CONST, "column %d constant", k);
		reel_cur__varint(&c);
	}
	size_t skip = (c.p - p->data) - keep;
	memmove(p->data + keep, c.p, p->len - keep - skip);
	p->len -= skip;
}

/* A file of minor version `minor`: head meta, one ops chunk of ops[], an odd chunk. */
static void build_cols(unsigned minor, const struct reel_op *ops, size_t n, bool extra_column,
		       bool older_columns)
{
	file.len = 0;
	uint8_t hdr[REEL_HEADER_LEN] = {0};
	memcpy(hdr, REEL_FILE_MAGIC, REEL_FILE_MAGIC_LEN);
	reel_put16(hdr + 8, REEL_VERSION_MAJOR);
	reel_put16(hdr + 10, minor);
	reel_buf__put(&file, hdr, sizeof(hdr));

	struct reel_buf p = {0};
	reel_buf__varint(&p, 0); /* flags */
	reel_buf__varint(&p, 0); /* no meta */
	chunk(REEL_CHUNK_META, &p, 0);

	p.len = 0;
	reel_buf__varint(&p, 0); /* flags */
	reel_buf__varint(&p, 0); /* no path definitions */
	struct reel_enc e = {0};
	CHECK(reel_enc__ops(&e, ops, n, &p) == 0, "encode");
	reel_enc__free(&e);
	if (extra_column) {
		/* a column beyond this version's, constant: a new ncols and its descriptor */
		struct reel_cur c = {p.data + 2, p.data + p.len, 0};
		reel_cur__varint(&c); /* time mode */
		uint64_t nthreads = reel_cur__varint(&c);
		for (uint64_t t = 0; t < 2 * nthreads; t++)
			reel_cur__varint(&c);
		size_t at = c.p - p.data;
		CHECK(p.data[at] == REEL_COL__COUNT, "ncols byte");
		p.data[at] = REEL_COL__COUNT + 1;
		reel_cur__varint(&c);
		for (int k = 0; k < REEL_COL__COUNT; k++) {
			reel_cur__varint(&c);
			reel_cur__varint(&c);
		}
		size_t desc_end = c.p - p.data;
		struct reel_buf q = {0};
		reel_buf__put(&q, p.data, desc_end);
		reel_buf__varint(&q, REEL_ENC_CONST);
		reel_buf__varint(&q, 7);
		reel_buf__put(&q, p.data + desc_end, p.len - desc_end);
		reel_buf__free(&p);
		p = q;
	}
	if (older_columns)
		drop_new_columns(&p);
	chunk(REEL_CHUNK_OPS, &p, n);

	p.len = 0;
	reel_buf__varint(&p, 0);
	chunk(99, &p, 0); /* a chunk type of the future */
	reel_buf__free(&p);
}

static void build(unsigned minor, const struct reel_op *ops, size_t n, bool extra_column)
{
	build_cols(minor, ops, n, extra_column, false);
}

/* Reads file: the ops read into got[], and the errors seen. */
static size_t read_back(struct reel_op *got, size_t max, int *errs, size_t *nerrs)
{
	struct reel_reader *r;
	CHECK(reel_reader__open_buffer(file.data, file.len, &r) == 0, "open");
	size_t n = 0;
	*nerrs = 0;
	int rc;
	struct reel_op op;
	while ((rc = reel_reader__next(r, &op)) != 0) {
		if (rc < 0) {
			errs[(*nerrs)++] = rc;
			continue;
		}
		if (n < max)
			got[n] = op;
		n++;
	}
	reel_reader__close(r);
	return n;
}

int main(void)
{
	struct reel_op ops[3];
	for (int i = 0; i < 3; i++) {
		t_rand_op(&ops[i], REEL_OP_PREAD64, 0);
		ops[i].path = ops[i].path2 = 0;
	}
	ops[1].type = REEL_OP__COUNT + 10; /* unknown to this reader */
	ops[2].fd_kind = REEL_FD_OTHER + 2;
	struct reel_op got[8];
	int errs[8];
	size_t nerrs;

	for (int extra = 0; extra < 2; extra++) {
		/* own minor version: the ops chunk and the odd chunk are malformed */
		build(REEL_VERSION_MINOR, ops, 3, extra);
		size_t n = read_back(got, 8, errs, &nerrs);
		CHECK(n == 0, "own minor: %zu ops", n);
		CHECK(nerrs == 3 && errs[0] == -REEL_E_CORRUPT && errs[1] == -REEL_E_CORRUPT &&
			  errs[2] == -REEL_E_TRUNCATED,
		      "own minor: %zu errors", nerrs);

		/* a newer minor version: all three ops, the odd chunk skipped */
		build(REEL_VERSION_MINOR + 1, ops, 3, extra);
		n = read_back(got, 8, errs, &nerrs);
		CHECK(n == 3, "newer minor: %zu ops", n);
		for (int i = 0; i < 3; i++)
			CHECK(t_op_equal(&got[i], &ops[i]), "newer minor: op %d", i);
		CHECK(strcmp(reel_op__name(got[1].type), "?") == 0, "unknown type named ?");
		CHECK(nerrs == 1 && errs[0] == -REEL_E_TRUNCATED, "newer minor: %zu errors", nerrs);
	}

	/* own minor version, ops it knows: they come through; the odd chunk type is refused */
	ops[1].type = REEL_OP_PREAD64;
	ops[2].fd_kind = REEL_FD_REG;
	build(REEL_VERSION_MINOR, ops, 3, false);
	size_t n = read_back(got, 8, errs, &nerrs);
	CHECK(n == 3 && nerrs == 2 && errs[0] == -REEL_E_CORRUPT, "plain file, odd chunk");

	/* a chunk of version 1.1, 18 columns: read whole, wait_ns 0 */
	for (int i = 0; i < 3; i++) {
		ops[i].sched_ns = 1000 + i;
		ops[i].wait_ns = 0;
	}
	build_cols(1, ops, 3, false, true);
	n = read_back(got, 8, errs, &nerrs);
	CHECK(n == 3, "1.1 chunk: %zu ops", n);
	for (int i = 0; i < 3; i++)
		CHECK(t_op_equal(&got[i], &ops[i]), "1.1 chunk: op %d", i);
	/* and one that has them: the waits come through */
	for (int i = 0; i < 3; i++)
		ops[i].wait_ns = 77 * (uint64_t)i;
	build(REEL_VERSION_MINOR, ops, 3, false);
	n = read_back(got, 8, errs, &nerrs);
	CHECK(n == 3 && got[1].wait_ns == 77 && got[2].wait_ns == 154, "waits read back");
	reel_buf__free(&file);
	return T_PASS;
}
