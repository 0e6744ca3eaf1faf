/* SPDX-License-Identifier: MIT */
/*
 * locks.c - takes file locks of every kind of trace format 1.3 (flock, fcntl F_GETLK,
 * F_SETLK, F_SETLKW and their F_OFD_* forms), for test_import_locks.sh to run under strace.
 *
 *   locks FILE > EXPECTED.jsonl
 *
 * Prints, one JSON object per line, the op each lock call must become in an import: the
 * request with its range made absolute from positions and sizes this program worked out
 * itself (it never asks the kernel for a position: an lseek would tell the importer), and the
 * result. A get command's expectation is what the kernel filled in (strace shows that, not
 * the request). A forked child meets the parent's locks: EAGAIN on F_SETLK and on flock, the
 * parent's lock through F_GETLK, and an F_SETLKW that waits until the parent lets go, so that
 * strace splits it in <unfinished ...>/<... resumed>. Each process prints its own lines as it
 * ends; exits 1 if a call did not end as the program meant it to.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *path;
static char out[1 << 14];
static size_t outlen;
static int failed;

/* Expected ops are buffered and printed at the end: no write of ours lands between them. */
static void expect(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	outlen += (size_t)vsnprintf(out + outlen, sizeof(out) - outlen, fmt, ap);
	va_end(ap);
	outlen += (size_t)snprintf(out + outlen, sizeof(out) - outlen, "\n");
}

static long result(long r)
{
	return r < 0 ? -errno : r;
}

static void check(const char *what, long got, long want)
{
	if (got != want) {
		fprintf(stderr, "locks: %s returned %ld, meant %ld\n", what, got, want);
		failed = 1;
	}
}

static void do_flock(int fd, int op, long want)
{
	long r = result(flock(fd, op));

	check("flock", r, want);
	expect("{\"op\":\"flock\",\"pid\":%d,\"fd\":%d,\"path\":\"%s\",\"mode\":%d,\"ret\":%ld}",
	       (int)getpid(), fd, fd == 99 ? "" : path, op, r);
}

/* A set command: the expectation's range (first byte, length) is the caller's. */
static void set(int fd, int cmd, int type, int whence, long start, long len, long want,
		long first, long n)
{
	struct flock f = {.l_type = (short)type, .l_whence = (short)whence, .l_start = start,
			  .l_len = len};
	long r = result(fcntl(fd, cmd, &f));

	check("fcntl set", r, want);
	expect("{\"op\":\"fcntl_lock\",\"pid\":%d,\"fd\":%d,\"path\":\"%s\",\"flags\":%d,"
	       "\"mode\":%d,\"offset\":%ld,\"len\":%ld,\"ret\":%ld}",
	       (int)getpid(), fd, fd == 99 ? "" : path, cmd, type, first, n, r);
}

/* A get command: what the kernel filled in, l_type found, the range SEEK_SET's; *found */
static void get(int fd, int cmd, int type, long start, long len, int *found)
{
	struct flock f = {.l_type = (short)type, .l_whence = SEEK_SET, .l_start = start,
			  .l_len = len};
	long r = result(fcntl(fd, cmd, &f));

	check("fcntl get", r, 0);
	*found = f.l_type;
	expect("{\"op\":\"fcntl_lock\",\"pid\":%d,\"fd\":%d,\"path\":\"%s\",\"flags\":%d,"
	       "\"mode\":2,\"aux\":%d,\"offset\":%ld,\"len\":%ld,\"ret\":%ld}",
	       (int)getpid(), fd, path, cmd, f.l_type + 1, (long)f.l_start, (long)f.l_len, r);
}

static void child(int fd, int ready)
{
	int fd2 = open(path, O_RDWR), found;

	outlen = 0; /* the parent's lines are the parent's to print */
	out[0] = 0;
	if (fd2 < 0)
		exit(1);
	/* the parent's POSIX lock on 400..499 is in the way */
	set(fd2, F_SETLK, F_WRLCK, SEEK_SET, 450, 10, -EAGAIN, 450, 10);
	get(fd2, F_GETLK, F_WRLCK, 450, 10, &found);
	check("F_GETLK found", found, F_WRLCK);
	/* flock's locks belong to the open file: the parent's, on fd, is this fd's too */
	do_flock(fd2, LOCK_EX | LOCK_NB, -EWOULDBLOCK);
	do_flock(fd, LOCK_EX | LOCK_NB, 0);
	if (write(ready, "x", 1) != 1)
		exit(1);
	/* waits until the parent unlocks (~200 ms): strace splits the line */
	set(fd2, F_SETLKW, F_WRLCK, SEEK_SET, 450, 10, 0, 450, 10);
	fputs(out, stdout);
	exit(failed);
}

int main(int argc, char **argv)
{
	char buf[1000] = {0};
	int fd, dup_fd, found, pfd[2], status;
	pid_t pid;

	if (argc != 2)
		return 2;
	path = argv[1];
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, buf, 1000) != 1000 || lseek(fd, 100, SEEK_SET) != 100 ||
	    read(fd, buf, 50) != 50 || pipe(pfd))
		return 1;
	/* position 150, size 1000, both known to an importer from the open, write, lseek, read */
	do_flock(fd, LOCK_SH, 0);
	do_flock(fd, LOCK_EX | LOCK_NB, 0);
	do_flock(fd, LOCK_UN, 0);
	set(fd, F_SETLK, F_RDLCK, SEEK_SET, 0, 10, 0, 0, 10);
	set(fd, F_SETLKW, F_WRLCK, SEEK_CUR, 5, 10, 0, 155, 10);
	set(fd, F_SETLK, F_WRLCK, SEEK_END, -10, 0, 0, 990, 0);
	set(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0, 0, 0, 0);
	/* a negative l_len: the bytes before l_start, 400..499 */
	set(fd, F_SETLK, F_WRLCK, SEEK_SET, 500, -100, 0, 400, 100);
	/* the process's own locks are never in its way */
	get(fd, F_GETLK, F_WRLCK, 0, 1000, &found);
	check("F_GETLK found", found, F_UNLCK);
	set(fd, F_OFD_SETLK, F_RDLCK, SEEK_SET, 2000, 1, 0, 2000, 1);
	/* an open file's lock and a process's are different owners: 400..499 is in the way */
	get(fd, F_OFD_GETLK, F_WRLCK, 450, 1, &found);
	check("F_OFD_GETLK found", found, F_WRLCK);
	set(99, F_SETLK, F_RDLCK, SEEK_SET, 0, 1, -EBADF, 0, 1);
	set(fd, F_SETLK, 7, SEEK_SET, 0, 1, -EINVAL, 0, 1);
	do_flock(fd, LOCK_SH, 0);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid)
		child(fd, pfd[1]);
	if (read(pfd[0], buf, 1) != 1)
		return 1;
	usleep(200000);
	set(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0, 0, 0, 0);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		failed = 1;
	/* a dup shares the position (150): SEEK_CUR -50 is byte 100 */
	dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 10);
	set(dup_fd, F_OFD_SETLKW, F_WRLCK, SEEK_CUR, -50, 0, 0, 100, 0);
	/* the same open file's own lock: nothing in the way */
	get(fd, F_OFD_GETLK, F_WRLCK, 100, 1, &found);
	check("F_OFD_GETLK found", found, F_UNLCK);
	do_flock(fd, LOCK_UN, 0);
	fputs(out, stdout);
	return failed;
}
