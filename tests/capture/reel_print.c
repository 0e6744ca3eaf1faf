/* SPDX-License-Identifier: MIT */
/*
 * reel_print.c - prints a trace one op per line (key=value), over reel.h alone: the capture
 * tests' view of a trace that does not depend on "ioreel dump".
 */
#include <stdio.h>

#include "reel.h"

int main(int argc, char **argv)
{
	struct reel_reader *r;
	struct reel_op op;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: reel_print TRACE\n");
		return 2;
	}
	err = reel_reader__open(argv[1], &r);
	if (err) {
		fprintf(stderr, "reel_print: failed to open %s: %s\n", argv[1], reel_strerror(err));
		return 1;
	}
	while ((err = reel_reader__next(r, &op)) == 1) {
		const char *p = op.path ? reel_reader__path(r, op.path) : NULL;
		const char *p2 = op.path2 ? reel_reader__path(r, op.path2) : NULL;

		printf("op=%s pid=%u tid=%u kind=%s fd=%d fd2=%d path=%s path2=%s flags=%#x "
		       "mode=%#o offset=%llu len=%llu ret=%lld subop=%u aux=%llu ctx=%#llx "
		       "start=%llu end=%llu\n",
		       reel_op__name(op.type), op.pid, op.tid, reel_fd_kind__name(op.fd_kind), op.fd,
		       op.fd2, p ? p : "-", p2 ? p2 : "-", op.flags, op.mode,
		       (unsigned long long)op.offset, (unsigned long long)op.len,
		       (long long)op.ret, op.subop, (unsigned long long)op.aux,
		       (unsigned long long)op.ctx, (unsigned long long)op.start_ns,
		       (unsigned long long)op.end_ns);
	}
	for (size_t i = 0; i < reel_reader__meta_count(r); i++) {
		const char *k, *v;

		reel_reader__meta_at(r, i, &k, &v);
		printf("meta %s=%s\n", k, v);
	}
	reel_reader__close(r);
	if (err < 0) {
		fprintf(stderr, "reel_print: damaged trace: %s\n", reel_strerror(err));
		return 1;
	}
	return 0;
}
