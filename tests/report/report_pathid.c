/* SPDX-License-Identifier: MIT */
/*
 * report_pathid.c - writes a trace no recorder writes but the format allows: its one ops
 * chunk defines path id 0xfffffff0 (ids need only increase), an openat of that path and
 * three preads of the fd; no footer. The report's caches indexed by path id must not
 * grow to the id (4 GiB for one path).
 *
 * usage: report_pathid OUT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reel_craft.h"
#include "reel_internal.h"

static struct reel_buf file;

static void chunk(unsigned type, const struct reel_buf *payload, uint32_t nops)
{
	if (reel_craft__chunk(&file, type, payload, nops)) {
		fprintf(stderr, "report_pathid: compress\n");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	uint8_t hdr[REEL_HEADER_LEN] = {0};
	struct reel_buf p = {0};
	struct reel_enc e = {0};
	struct reel_op ops[4];
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: report_pathid OUT\n");
		return 2;
	}
	memcpy(hdr, REEL_FILE_MAGIC, REEL_FILE_MAGIC_LEN);
	reel_put16(hdr + 8, REEL_VERSION_MAJOR);
	reel_put16(hdr + 10, REEL_VERSION_MINOR);
	reel_buf__put(&file, hdr, sizeof(hdr));
	reel_buf__varint(&p, 0); /* flags */
	reel_buf__varint(&p, 0); /* no meta */
	chunk(REEL_CHUNK_META, &p, 0);

	p.len = 0;
	reel_buf__varint(&p, 0);	   /* flags */
	reel_buf__varint(&p, 1);	   /* one path definition */
	reel_buf__varint(&p, 0xfffffff0u); /* its id */
	reel_buf__string(&p, "/data/x", 7);
	memset(ops, 0, sizeof(ops));
	for (int i = 0; i < 4; i++) {
		struct reel_op *op = &ops[i];

		op->type = i ? REEL_OP_PREAD64 : REEL_OP_OPENAT;
		op->fd_kind = REEL_FD_REG;
		op->pid = op->tid = 7;
		op->fd = i ? 3 : -100;
		op->fd2 = -1;
		op->path = i ? 0 : 0xfffffff0u;
		op->offset = 4096 * (i ? i - 1 : 0);
		op->len = 4096;
		op->ret = i ? 4096 : 3;
		op->start_ns = 1000 * i + 1;
		op->end_ns = 1000 * i + 500;
	}
	if (reel_enc__ops(&e, ops, 4, &p)) {
		fprintf(stderr, "report_pathid: encode\n");
		return 1;
	}
	chunk(REEL_CHUNK_OPS, &p, 4);
	reel_enc__free(&e);
	reel_buf__free(&p);
	f = fopen(argv[1], "wb");
	if (!f || fwrite(file.data, 1, file.len, f) != file.len || fclose(f)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
