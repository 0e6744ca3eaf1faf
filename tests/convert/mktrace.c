/* SPDX-License-Identifier: MIT */
/*
 * mktrace.c - writes the crafted traces the convert tests check dump, info and export
 * against (the expected values are written next to each op in the test scripts).
 *   mktrace OUT              the fixed 9-op trace
 *   mktrace OUT --many N     N pread64 ops of 4096 bytes at offsets i*4096, 16 ops a chunk
 *   mktrace OUT --v11        ops of the types format 1.1 added (copies, chmod, chown, links)
 *   mktrace OUT --dup2-unknown  /d/a opened as fd 5 and written at 0, then a dup2 over fd 5
 *                            of fd 9, whose file the trace does not know, and a pwrite64 on
 *                            fd 5 (no path) at 1 MiB: not /d/a's
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reel.h"

static struct reel_op mk(int type, uint32_t pid, uint32_t tid, int fd, uint32_t path, uint64_t off,
			 uint64_t len, int64_t ret, uint64_t start, uint64_t end)
{
	struct reel_op op;

	memset(&op, 0, sizeof(op));
	op.type = (uint16_t)type;
	op.fd_kind = REEL_FD_REG;
	op.pid = pid;
	op.tid = tid;
	op.fd = fd;
	op.fd2 = -1;
	op.path = path;
	op.offset = off;
	op.len = len;
	op.ret = ret;
	op.start_ns = start;
	op.end_ns = end;
	return op;
}

#define CHECK(x)                                                                                   \
	do {                                                                                       \
		int e_ = (x);                                                                      \
		if (e_) {                                                                          \
			fprintf(stderr, "mktrace: %s: %s\n", #x, reel_strerror(e_));               \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

/* One thread: two files, copies between them and to a socket, attributes, a symlink. */
static int v11(struct reel_writer *w)
{
	struct reel_op op;
	uint32_t src, dst, lnk, rel;

	CHECK(reel_writer__path(w, "/d/src", &src));
	CHECK(reel_writer__path(w, "/d/dst", &dst));
	CHECK(reel_writer__path(w, "/d/lnk", &lnk));
	CHECK(reel_writer__path(w, "../rel/target", &rel));
	op = mk(REEL_OP_OPENAT, 300, 300, -100, src, 0, 0, 3, 1000, 2000);
	CHECK(reel_writer__add(w, &op));
	op = mk(REEL_OP_OPENAT, 300, 300, -100, dst, 0, 0, 4, 3000, 4000);
	op.flags = 0101; /* O_WRONLY|O_CREAT */
	op.mode = 0600;
	CHECK(reel_writer__add(w, &op));
	op = mk(REEL_OP_COPY_FILE_RANGE, 300, 300, 3, src, 100, 4096, 4096, 5000, 6000);
	op.fd2 = 4;
	op.path2 = dst;
	op.aux = 200;
	CHECK(reel_writer__add(w, &op));
	op = mk(REEL_OP_SENDFILE, 300, 300, 3, src, 0, 1000, 1000, 7000, 8000);
	op.fd2 = 4;
	op.path2 = dst;
	op.aux = 4296;
	op.mode = REEL_FD_REG;
	CHECK(reel_writer__add(w, &op));
	op = mk(REEL_OP_SENDFILE, 300, 300, 3, src, 1000, 500, 500, 9000, 10000);
	op.fd2 = 7;
	op.mode = REEL_FD_SOCK;
	CHECK(reel_writer__add(w, &op));
	op = mk(REEL_OP_COPY_FILE_RANGE, 300, 300, 3, src, 0, 10, -18, 11000, 12000);
	op.fd2 = 4;
	op.path2 = dst;
	CHECK(reel_writer__add(w, &op));
	op = mk(REEL_OP_SYMLINK, 300, 300, -1, lnk, 0, 0, 0, 13000, 14000);
	op.path2 = rel;
	CHECK(reel_writer__add(w, &op));
	op = mk(REEL_OP_CHOWN, 300, 300, -1, src, 0, 0, 0, 15000, 16000);
	op.aux = 1;
	op.ctx = UINT32_MAX;
	CHECK(reel_writer__add(w, &op));
	op = mk(REEL_OP_CHMOD, 300, 300, -1, src, 0, 0, 0, 17000, 18000);
	op.mode = 0640;
	CHECK(reel_writer__add(w, &op));
	op = mk(REEL_OP_UTIMENSAT, 300, 300, 4, dst, 0, 0, 0, 19000, 20000);
	CHECK(reel_writer__add(w, &op));
	/* what it read back is the link's content: no file (format 1.1, commit 5bafe6c) */
	op = mk(REEL_OP_READLINK, 300, 300, -1, lnk, 0, 256, 13, 21000, 22000);
	op.path2 = rel;
	CHECK(reel_writer__add(w, &op));
	op = mk(REEL_OP_PREAD64, 300, 300, 3, src, 0, 10, 10, 23000, 24000);
	CHECK(reel_writer__add(w, &op));
	CHECK(reel_writer__close(w));
	return 0;
}

/* fd 5 names /d/a, then, after a dup2 of an fd the trace never opened, a file not known */
static int dup2_unknown(struct reel_writer *w)
{
	struct reel_op op;
	uint32_t a;

	CHECK(reel_writer__path(w, "/d/a", &a));
	op = mk(REEL_OP_OPENAT, 400, 400, -100, a, 0, 0, 5, 1000, 2000);
	op.flags = 02; /* O_RDWR */
	CHECK(reel_writer__add(w, &op));
	op = mk(REEL_OP_PWRITE64, 400, 400, 5, a, 0, 4096, 4096, 3000, 4000);
	CHECK(reel_writer__add(w, &op));
	op = mk(REEL_OP_DUP2, 400, 400, 9, 0, 0, 0, 5, 5000, 6000);
	op.fd2 = 5;
	CHECK(reel_writer__add(w, &op));
	op = mk(REEL_OP_PWRITE64, 400, 400, 5, 0, 1 << 20, 4096, 4096, 7000, 8000);
	CHECK(reel_writer__add(w, &op));
	CHECK(reel_writer__close(w));
	return 0;
}

int main(int argc, char **argv)
{
	struct reel_writer_opts opts = {.ops_per_chunk = 16};
	struct reel_writer *w;
	struct reel_op op;
	uint32_t db, weird, a, b;

	if (argc < 2)
		return 2;
	CHECK(reel_writer__open(argv[1], &opts, &w));
	if (argc == 4 && !strcmp(argv[2], "--many")) {
		long n = atol(argv[3]);

		CHECK(reel_writer__meta(w, REEL_META_HOST, "manyhost"));
		CHECK(reel_writer__path(w, "/data/many", &db));
		for (long i = 0; i < n; i++) {
			op = mk(REEL_OP_PREAD64, 10, 10, 3, db, (uint64_t)i * 4096, 4096, 4096,
				(uint64_t)i * 1000, (uint64_t)i * 1000 + 500);
			CHECK(reel_writer__add(w, &op));
		}
		CHECK(reel_writer__close(w));
		return 0;
	}
	if (argc == 3 && !strcmp(argv[2], "--dup2-unknown"))
		return dup2_unknown(w);
	if (argc == 3 && !strcmp(argv[2], "--v11"))
		return v11(w);
	CHECK(reel_writer__meta(w, REEL_META_HOST, "testhost"));
	CHECK(reel_writer__meta(w, REEL_META_KERNEL, "6.18.0-test"));
	CHECK(reel_writer__meta(w, REEL_META_COMMAND, "app --x"));
	CHECK(reel_writer__path(w, "/data/db", &db));
	CHECK(reel_writer__path(w, "/data/we\"ird\npath,\xc3\xa9", &weird));
	CHECK(reel_writer__path(w, "/data/a", &a));
	CHECK(reel_writer__path(w, "/data/b", &b));

	op = mk(REEL_OP_OPENAT, 100, 100, -100, db, 0, 0, 3, 1000, 3000);
	op.flags = 0102; /* O_RDWR|O_CREAT */
	op.mode = 0644;
	CHECK(reel_writer__add(w, &op));
	op = mk(REEL_OP_PWRITE64, 100, 101, 3, db, 4096, 8192, 8192, 5000, 9000);
	CHECK(reel_writer__add(w, &op));
	op = mk(REEL_OP_PREAD64, 100, 100, 3, db, 0, 4096, 4096, 10000, 11000);
	CHECK(reel_writer__add(w, &op));
	/* no path: info must find the file through the open's fd */
	op = mk(REEL_OP_READ, 100, 100, 3, 0, 4096, 100, 100, 12000, 12500);
	CHECK(reel_writer__add(w, &op));
	op = mk(REEL_OP_OPENAT, 200, 200, -100, weird, 0, 0, 4, 13000, 14000);
	op.flags = 01101; /* O_WRONLY|O_CREAT|O_TRUNC */
	op.mode = 0600;
	CHECK(reel_writer__add(w, &op));
	op = mk(REEL_OP_WRITE, 200, 200, 4, weird, 0, 10, -28, 15000, 15250);
	CHECK(reel_writer__add(w, &op));
	op = mk(REEL_OP_FSYNC, 200, 200, 4, weird, 0, 0, 0, 16000, 26000);
	CHECK(reel_writer__add(w, &op));
	op = mk(REEL_OP_RENAMEAT2, 200, 200, -100, a, 0, 0, 0, 27000, 28000);
	op.fd2 = -100;
	op.path2 = b;
	op.flags = 1; /* RENAME_NOREPLACE */
	CHECK(reel_writer__add(w, &op));
	op = mk(REEL_OP_FDATASYNC, 100, 101, 3, db, 0, 0, 0, 30000, 50000);
	op.sched_ns = 29000;
	op.wait_ns = 700;
	CHECK(reel_writer__add(w, &op));
	CHECK(reel_writer__meta(w, REEL_META_LOST_EVENTS, "7"));
	CHECK(reel_writer__close(w));
	return 0;
}
