/* SPDX-License-Identifier: MIT */
/*
 * pwrite_append.c - positioned writes the kernel puts at the end of the file, whatever their
 * offset. Usage: pwrite_append DIR. Writes DIR/a, 8192 bytes, then pwritev2(512 bytes at 100,
 * RWF_APPEND): lands at 8192. Opens DIR/b O_APPEND, writes 4096 bytes, then pwrite(100 bytes
 * at 10): lands at 4096 (Linux appends pwrite on an O_APPEND fd); then, where the kernel has
 * RWF_NOAPPEND (6.9), pwritev2(50 bytes at 20, RWF_NOAPPEND): lands at 20, and "noappend"
 * is printed. Exit 0 when the files end as long as that says, 1 otherwise.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef RWF_NOAPPEND
#define RWF_NOAPPEND 0x20
#endif

static char buf[8192];

static long long size_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? -1 : (long long)st.st_size;
}

static int open_in(const char *dir, const char *name, int flags)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return open(path, flags | O_CREAT | O_TRUNC, 0644);
}

int main(int argc, char **argv)
{
	struct iovec iov = { buf, 512 };
	int a, b;

	if (argc != 2)
		return 1;
	memset(buf, 'p', sizeof(buf));
	a = open_in(argv[1], "a", O_RDWR);
	if (a < 0 || write(a, buf, 8192) != 8192 || pwritev2(a, &iov, 1, 100, RWF_APPEND) != 512 ||
	    size_of(a) != 8704 || close(a))
		return 1;
	b = open_in(argv[1], "b", O_WRONLY | O_APPEND);
	if (b < 0 || write(b, buf, 4096) != 4096 || pwrite(b, buf, 100, 10) != 100 ||
	    size_of(b) != 4196)
		return 1;
	iov.iov_len = 50;
	/* older kernels refuse the flag: nothing written */
	if (pwritev2(b, &iov, 1, 20, RWF_NOAPPEND) == 50) {
		if (size_of(b) != 4196)
			return 1;
		printf("noappend\n");
	}
	return close(b);
}
