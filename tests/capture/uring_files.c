/* SPDX-License-Identifier: MIT */
/*
 * uring_files.c - io_uring requests whose files the capture must not get wrong.
 *
 *   uring_files fixed DIR: opens DIR/plain and DIR/fixed, registers a file table in which
 *   index N, N being plain's fd, is fixed; writes 64 KiB through index N (IOSQE_FIXED_FILE).
 *   The write lands in fixed; a trace that took the index for an fd names plain.
 *
 *   uring_files ops DIR: opens DIR/viauring through io_uring (IORING_OP_OPENAT), writes 1000
 *   bytes at 0 through io_uring and 10 at 2000 by pwrite on the fd it returned, closes it
 *   through io_uring (IORING_OP_CLOSE); then, through io_uring, statx of it, mkdirat
 *   DIR/made, renameat DIR/viauring to DIR/renamed, unlinkat DIR/renamed.
 *
 * Exit 0 when every request did what it should, 1 otherwise (2: no io_uring here).
 */
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LEN 65536

static char buf[LEN];

/* submits what is queued and waits for one completion: its result */
static int run_one(struct io_uring *r)
{
	struct io_uring_cqe *c;
	int res;

	if (io_uring_submit(r) != 1 || io_uring_wait_cqe(r, &c))
		return -1;
	res = c->res;
	io_uring_cqe_seen(r, c);
	return res;
}

static int open_in(const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
}

static int fixed(struct io_uring *r, const char *dir)
{
	int plain = open_in(dir, "plain"), ff = open_in(dir, "fixed"), files[64];
	struct io_uring_sqe *s;
	struct stat st;

	if (plain < 0 || ff < 0 || plain >= 64)
		return 1;
	for (int i = 0; i < 64; i++)
		files[i] = -1;
	files[plain] = ff; /* index plain (a number that is also an fd) is the file "fixed" */
	if (io_uring_register_files(r, files, 64))
		return 1;
	s = io_uring_get_sqe(r);
	io_uring_prep_write(s, plain, buf, LEN, 0);
	s->flags |= IOSQE_FIXED_FILE;
	if (run_one(r) != LEN || fstat(ff, &st) || st.st_size != LEN)
		return 1;
	return close(plain) || close(ff);
}

static int ops(struct io_uring *r, const char *dir)
{
	char path[4096], made[4096], renamed[4096];
	struct io_uring_sqe *s;
	struct statx stx;
	int fd;

	snprintf(path, sizeof(path), "%s/viauring", dir);
	snprintf(made, sizeof(made), "%s/made", dir);
	snprintf(renamed, sizeof(renamed), "%s/renamed", dir);
	io_uring_prep_openat(io_uring_get_sqe(r), AT_FDCWD, path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if ((fd = run_one(r)) < 0)
		return 1;
	io_uring_prep_write(io_uring_get_sqe(r), fd, buf, 1000, 0);
	if (run_one(r) != 1000 || pwrite(fd, buf, 10, 2000) != 10)
		return 1;
	io_uring_prep_close(io_uring_get_sqe(r), fd);
	if (run_one(r))
		return 1;
	s = io_uring_get_sqe(r);
	io_uring_prep_statx(s, AT_FDCWD, path, 0, STATX_SIZE, &stx);
	if (run_one(r) || stx.stx_size != 2010)
		return 1;
	io_uring_prep_mkdirat(io_uring_get_sqe(r), AT_FDCWD, made, 0755);
	if (run_one(r))
		return 1;
	io_uring_prep_renameat(io_uring_get_sqe(r), AT_FDCWD, path, AT_FDCWD, renamed, 0);
	if (run_one(r))
		return 1;
	io_uring_prep_unlinkat(io_uring_get_sqe(r), AT_FDCWD, renamed, 0);
	return run_one(r) ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct io_uring r;

	if (argc != 3)
		return 1;
	memset(buf, 'u', sizeof(buf));
	if (io_uring_queue_init(8, &r, 0))
		return 2;
	if (!strcmp(argv[1], "fixed"))
		return fixed(&r, argv[2]);
	if (!strcmp(argv[1], "ops"))
		return ops(&r, argv[2]);
	return 1;
}
