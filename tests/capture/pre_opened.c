/* SPDX-License-Identifier: MIT */
/*
 * pre_opened.c - a process whose files are open before the capture starts. It opens DIR/a
 * (16 KiB, positioned at 1000), DIR/b (300 bytes, O_APPEND), a dup of a and a pipe, writes
 * DIR/d (16 KiB, O_DIRECT; its fd 30, so that the test knows it), writes its pid to DIR/ready,
 * waits for SIGUSR1, then does I/O on those fds only:
 *   read(a, 100)           at 1000 (the position set before the capture)
 *   pread(a, 50, 5000)
 *   readv(a, 8 + 16)       at 1100
 *   write(b, 10)           O_APPEND: at 300, the end of the file
 *   pread(dup of a, 7, 9)  the dup shares a's path
 *   dup2(a, 20); pread(20, 3, 30)
 *   fstat(a)               (glibc: newfstatat(fd, "", AT_EMPTY_PATH))
 *   write/read on the pipe (not file I/O: counted, not recorded)
 *   close(a)
 *   pread(d, 4096, 4096)   O_DIRECT (the capture names the flag in its head meta)
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static int fill(const char *path, size_t len, int flags)
{
	char buf[1024];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return -1;
	memset(buf, 'x', sizeof(buf));
	for (size_t done = 0; done < len; done += sizeof(buf)) {
		size_t n = len - done < sizeof(buf) ? len - done : sizeof(buf);

		if (write(fd, buf, n) != (ssize_t)n)
			return -1;
	}
	close(fd);
	return open(path, flags);
}

int main(int argc, char **argv)
{
	char path[4096], buf[128], b1[8], b2[16];
	struct iovec iov[2] = { { b1, sizeof(b1) }, { b2, sizeof(b2) } };
	int a, b, c, d, p[2], sig;
	void *dbuf;
	struct stat st;
	sigset_t set;
	FILE *f;

	if (argc != 2)
		return 2;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	snprintf(path, sizeof(path), "%s/a", argv[1]);
	a = fill(path, 16384, O_RDONLY);
	snprintf(path, sizeof(path), "%s/b", argv[1]);
	b = fill(path, 300, O_WRONLY | O_APPEND);
	c = dup(a);
	snprintf(path, sizeof(path), "%s/d", argv[1]);
	d = fill(path, 16384, O_RDWR | O_DIRECT);
	if (a < 0 || b < 0 || c < 0 || d < 0 || dup2(d, 30) != 30 || close(d) || pipe(p) ||
	    lseek(a, 1000, SEEK_SET) != 1000 || posix_memalign(&dbuf, 4096, 4096))
		return 1;
	snprintf(path, sizeof(path), "%s/ready.tmp", argv[1]);
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%d\n", getpid());
	fclose(f);
	snprintf(buf, sizeof(buf), "%s/ready", argv[1]);
	rename(path, buf);

	if (sigwait(&set, &sig))
		return 1;
	if (read(a, buf, 100) != 100 || pread(a, buf, 50, 5000) != 50 || readv(a, iov, 2) != 24 ||
	    write(b, "0123456789", 10) != 10 || pread(c, buf, 7, 9) != 7 || dup2(a, 20) != 20 ||
	    pread(20, buf, 3, 30) != 3 || fstat(a, &st) || write(p[1], "x", 1) != 1 ||
	    read(p[0], buf, 1) != 1 || close(a) || pread(30, dbuf, 4096, 4096) != 4096)
		return 1;
	return 0;
}
