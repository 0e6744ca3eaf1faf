/* SPDX-License-Identifier: MIT */
/*
 * close_range.c - close_range(2) in its three forms, and a memfd on a number it freed.
 * Usage: close_range DIR (DIR exists). In DIR:
 *   1. opens x1 and x2, close_range(x1, x2, 0), then memfd_create (it gets x1's number) and
 *      writes 4096 bytes to the memfd, ftruncates and maps it: none of that is file I/O;
 *   2. opens keep, close_range(keep, keep, CLOSE_RANGE_CLOEXEC): nothing closed, keep
 *      written once more;
 *   3. opens shared, clone(CLONE_FILES): the child calls close_range(shared, shared,
 *      CLOSE_RANGE_UNSHARE), which closes its own copy only; the parent writes shared after.
 * Exit 0 when every call did what the kernel must, 1 otherwise.
 */
#include <fcntl.h>
#include <linux/close_range.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char buf[4096];
static int shared;

static int open_in(const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
}

static int close_range3(unsigned first, unsigned last, unsigned flags)
{
	return syscall(SYS_close_range, first, last, flags);
}

static int memfd_on_freed(const char *dir)
{
	int x1 = open_in(dir, "x1"), x2 = open_in(dir, "x2"), m;
	void *p;

	if (x1 < 0 || x2 != x1 + 1 || close_range3(x1, x2, 0))
		return 1;
	m = memfd_create("scratch", 0);
	if (m != x1 || write(m, buf, sizeof(buf)) != sizeof(buf) || ftruncate(m, 8192))
		return 1;
	p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, m, 0);
	if (p == MAP_FAILED || munmap(p, 8192))
		return 1;
	return close(m);
}

static int cloexec_only(const char *dir)
{
	int keep = open_in(dir, "keep");

	if (keep < 0 || close_range3(keep, keep, CLOSE_RANGE_CLOEXEC) ||
	    fcntl(keep, F_GETFD) != FD_CLOEXEC || write(keep, "k", 1) != 1)
		return 1;
	return close(keep);
}

static int unsharer(void *arg)
{
	(void)arg;
	return close_range3(shared, shared, CLOSE_RANGE_UNSHARE) || fcntl(shared, F_GETFD) != -1;
}

static int unshare_child(const char *dir)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	pid_t pid;
	int st;

	shared = open_in(dir, "shared");
	if (shared < 0)
		return 1;
	pid = clone(unsharer, stack + sizeof(stack), CLONE_FILES | SIGCHLD, NULL);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	/* the parent's table kept it */
	if (write(shared, "parent", 6) != 6)
		return 1;
	return close(shared);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 1;
	memset(buf, 'm', sizeof(buf));
	if (memfd_on_freed(argv[1]) || cloexec_only(argv[1]) || unshare_child(argv[1])) {
		perror("close_range");
		return 1;
	}
	return 0;
}
