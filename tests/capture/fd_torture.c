/* SPDX-License-Identifier: MIT */
/*
 * fd_torture.c - the fd-table and cwd edge cases of one process tree, in one deterministic
 * run: dup, dup2, dup3 and fcntl(F_DUPFD*) onto open fds, close_range (closing, and marking
 * close-on-exec), openat against a dirfd, chdir and fchdir, a directory and a file renamed
 * while open, a file unlinked while open, two threads taking turns on one fd (lseek with
 * every whence, read, write), an fd number reused across threads, fork (a copied table),
 * clone(CLONE_FILES) (a shared one), vfork + execve of itself as a helper that uses the fds
 * it inherited and finds the close-on-exec ones gone, readv/writev/preadv2/pwritev2 with
 * flags, O_APPEND, pread leaving the position alone, and failed ops (EBADF, ENOENT).
 *
 * Usage: fd_torture DIR (DIR must exist and be empty). Every call's result is checked
 * against what the kernel must return; exit 0 when all were as expected, 1 with a message
 * otherwise. The threads and processes take strict turns, so that each one's sequence of
 * ops, offsets and results is the same from run to run: the capture's trace and strace's
 * can then be compared op by op (test_fd_diff.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

#define CHECK(expr, want)                                                                          \
	do {                                                                                       \
		long _r = (long)(expr);                                                            \
		long _w = (long)(want);                                                            \
		if (_r != _w) {                                                                    \
			fprintf(stderr,                                                            \
				"fd_torture: line %d: %s = %ld (errno %d), expected %ld\n",        \
				__LINE__, #expr, _r, errno, _w);                                   \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

/* a call that must fail with err */
#define CHECK_ERR(expr, err)                                                                       \
	do {                                                                                       \
		errno = 0;                                                                         \
		CHECK((expr), -1);                                                                 \
		CHECK(errno, (err));                                                               \
	} while (0)

static char buf[4096];

/* ---- two threads taking turns: each waits for its semaphore, works, posts the other's ---- */

static sem_t turn_main, turn_thr;
static int shared_fd, reuse_fd;

static void *thread_main(void *arg)
{
	(void)arg;
	/* 1: lseek the fd that main reads and writes */
	sem_wait(&turn_thr);
	CHECK(lseek(shared_fd, 100, SEEK_SET), 100);
	sem_post(&turn_main);
	sem_wait(&turn_thr);
	CHECK(lseek(shared_fd, 5, SEEK_CUR), 115); /* main read 10 at 100 */
	sem_post(&turn_main);
	sem_wait(&turn_thr);
	CHECK(lseek(shared_fd, 0, SEEK_END), 4096);
	sem_post(&turn_main);
	sem_wait(&turn_thr);
	CHECK(lseek(shared_fd, 1, SEEK_DATA), 1);
	CHECK(read(shared_fd, buf, 7), 7); /* at 1 */
	sem_post(&turn_main);
	/* 2: open a file, whose fd main uses; then, after main closed it, another one */
	sem_wait(&turn_thr);
	reuse_fd = open("t1", O_CREAT | O_RDWR | O_TRUNC, 0644);
	CHECK(reuse_fd >= 0, 1);
	sem_post(&turn_main);
	sem_wait(&turn_thr);
	CHECK(open("t2", O_CREAT | O_RDWR | O_TRUNC, 0644), reuse_fd); /* the number main freed */
	CHECK(write(reuse_fd, "thr", 3), 3);
	sem_post(&turn_main);
	return NULL;
}

static void threads(void)
{
	pthread_t t;

	sem_init(&turn_main, 0, 0);
	sem_init(&turn_thr, 0, 0);
	shared_fd = open("shared", O_CREAT | O_RDWR | O_TRUNC, 0644);
	CHECK(shared_fd >= 0, 1);
	memset(buf, 's', sizeof(buf));
	CHECK(write(shared_fd, buf, 4096), 4096);
	CHECK(pthread_create(&t, NULL, thread_main, NULL), 0);
	sem_post(&turn_thr);
	sem_wait(&turn_main);
	CHECK(read(shared_fd, buf, 10), 10); /* at 100 */
	sem_post(&turn_thr);
	sem_wait(&turn_main);
	CHECK(write(shared_fd, "abc", 3), 3); /* at 115 */
	sem_post(&turn_thr);
	sem_wait(&turn_main);
	CHECK(read(shared_fd, buf, 10), 0); /* at 4096: end of file */
	sem_post(&turn_thr);
	sem_wait(&turn_main);
	CHECK(read(shared_fd, buf, 2), 2); /* at 8 */
	sem_post(&turn_thr);
	sem_wait(&turn_main);
	CHECK(write(reuse_fd, "main", 4), 4); /* t1 at 0 */
	CHECK(close(reuse_fd), 0);
	sem_post(&turn_thr);
	sem_wait(&turn_main);
	CHECK(write(reuse_fd, "main", 4), 4); /* t2 at 3 */
	CHECK(pthread_join(t, NULL), 0);
	CHECK(close(reuse_fd), 0);
	CHECK(close(shared_fd), 0);
}

/* ---- clone(CLONE_FILES): one fd table, two processes ---- */

static int cf_parent;

static int clone_files_child(void *arg)
{
	int fd = open("cf", O_CREAT | O_RDWR | O_TRUNC, 0644);

	(void)arg;
	/* closes the parent's fd: the table is theirs both */
	if (fd < 0 || write(fd, "child", 5) != 5 || close(cf_parent))
		return 255;
	return fd; /* the exit status: the parent's memory is not shared */
}

static void clone_files(void)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	int st, fd;
	pid_t pid;

	cf_parent = open("cf2", O_CREAT | O_RDWR | O_TRUNC, 0644);
	CHECK(cf_parent, 6);
	pid = clone(clone_files_child, stack + sizeof(stack), CLONE_FILES | SIGCHLD, NULL);
	CHECK(pid > 0, 1);
	CHECK(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st), 1);
	fd = WEXITSTATUS(st);
	CHECK(fd, 7);
	CHECK(write(fd, "parent", 6), 6);	    /* the child's file, at 5 */
	CHECK_ERR(write(cf_parent, "x", 1), EBADF); /* closed by the child */
	CHECK(open("cf3", O_CREAT | O_RDWR | O_TRUNC, 0644), 6);
	CHECK(write(6, "3", 1), 1);
	CHECK(close(6), 0);
	CHECK(close(fd), 0);
}

int helper(const char *dir);

int main(int argc, char **argv)
{
	char path[4096];
	struct iovec iov[3];
	int a, b, c, d, e, f10, f20, dfd, odfd, x, r, u, v, ap, st;
	pid_t pid;

	if (argc == 3 && !strcmp(argv[1], "--helper"))
		return helper(argv[2]);
	if (argc != 2) {
		fprintf(stderr, "usage: fd_torture DIR\n");
		return 2;
	}
	/* the same fds from run to run, whatever the recorder or strace left open */
	CHECK(syscall(SYS_close_range, 3, ~0U, 0), 0);
	CHECK(chdir(argv[1]), 0);
	/* a marker: the comparison starts here */
	CHECK_ERR(access("@start", F_OK), ENOENT);

	/* ---- dup family ---- */
	a = open("a", O_CREAT | O_RDWR | O_TRUNC, 0644);
	CHECK(a, 3);
	CHECK(write(a, "0123456789abcdef", 16), 16);
	b = dup(a);
	CHECK(b, 4);
	CHECK(lseek(b, 0, SEEK_SET), 0);
	CHECK(read(b, buf, 4), 4); /* at 0, through the dup */
	CHECK(read(a, buf, 4), 4); /* at 4: one position for both */
	c = open("c", O_CREAT | O_RDWR | O_TRUNC, 0644);
	CHECK(c, 5);
	CHECK(write(c, "CCCC", 4), 4);
	CHECK(dup2(a, c), 5);	     /* closes "c" */
	CHECK(write(c, "++", 2), 2); /* a at 8 */
	d = open("d", O_CREAT | O_RDWR | O_TRUNC, 0644);
	CHECK(d, 6);
	CHECK(write(d, "dddddddd", 8), 8);
	CHECK(dup3(d, b, O_CLOEXEC), 4); /* fd 4: a -> d, close-on-exec */
	CHECK(pread(b, buf, 4, 2), 4);	 /* d */
	CHECK(read(b, buf, 4), 0);	 /* d at 8: end */
	f10 = fcntl(a, F_DUPFD, 10);
	CHECK(f10, 10);
	f20 = fcntl(a, F_DUPFD_CLOEXEC, 20);
	CHECK(f20, 20);
	CHECK(read(f10, buf, 2), 2); /* a at 10 */
	CHECK(read(f20, buf, 2), 2); /* a at 12 */
	CHECK(dup2(a, a), a);	     /* no-op */
	CHECK_ERR(dup3(a, a, 0), EINVAL);
	CHECK(syscall(SYS_close_range, 10, 19, CLOSE_RANGE_CLOEXEC), 0); /* 10: close-on-exec */
	CHECK(syscall(SYS_close_range, 5, 6, 0), 0);			 /* closes 5 and 6 */
	CHECK_ERR(read(c, buf, 1), EBADF);
	CHECK_ERR(write(d, "x", 1), EBADF);
	CHECK_ERR(close(d), EBADF);
	CHECK_ERR(fcntl(c, F_DUPFD, 0), EBADF);
	/* the number reused for another file in the same thread */
	e = open("e", O_CREAT | O_RDWR | O_TRUNC, 0644);
	CHECK(e, 5);
	CHECK(write(e, "eeee", 4), 4);

	/* ---- directories: dirfd, chdir, fchdir, a directory renamed while open ---- */
	CHECK(mkdir("sub", 0755), 0);
	dfd = open("sub", O_RDONLY | O_DIRECTORY);
	CHECK(dfd, 6);
	x = openat(dfd, "x", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	CHECK(x, 7);
	CHECK(write(x, "xx", 2), 2);
	CHECK(close(x), 0);
	CHECK(chdir("sub"), 0);
	x = open("y", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	CHECK(x, 7);
	CHECK(close(x), 0);
	CHECK(mkdir("../other", 0755), 0);
	odfd = open("../other", O_RDONLY | O_DIRECTORY);
	CHECK(odfd, 7);
	CHECK(fchdir(odfd), 0);
	x = openat(AT_FDCWD, "z", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	CHECK(x, 8);
	CHECK(close(x), 0);
	CHECK(chdir(".."), 0);
	CHECK(rename("sub", "sub2"), 0);
	x = openat(dfd, "w", O_CREAT | O_WRONLY | O_TRUNC, 0644); /* made in sub2 */
	CHECK(x, 8);
	CHECK(write(x, "w", 1), 1);
	CHECK(close(x), 0);
	CHECK(fstat(dfd, (struct stat *)buf), 0);
	CHECK(fchdir(dfd), 0);
	x = open("v", O_CREAT | O_WRONLY | O_TRUNC, 0644); /* sub2/v */
	CHECK(x, 8);
	CHECK(close(x), 0);
	CHECK(rename("../other", "../other2"), 0);
	CHECK(fchdir(odfd), 0); /* other2 */
	x = open("q", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	CHECK(x, 8);
	CHECK(close(x), 0);
	CHECK(chdir(argv[1]), 0);
	CHECK(close(dfd), 0);
	CHECK(close(odfd), 0);

	/* ---- a file renamed, a file unlinked, while open ---- */
	r = open("r1", O_CREAT | O_RDWR | O_TRUNC, 0644);
	CHECK(r, 6);
	CHECK(write(r, "rrrr", 4), 4);
	CHECK(rename("r1", "r2"), 0);
	CHECK(write(r, "RR", 2), 2); /* r2 at 4 */
	CHECK(pread(r, buf, 6, 0), 6);
	CHECK(close(r), 0);
	u = open("u", O_CREAT | O_RDWR | O_TRUNC, 0644);
	CHECK(u, 6);
	CHECK(write(u, "uuuu", 4), 4);
	CHECK(unlink("u"), 0);
	CHECK(write(u, "UU", 2), 2); /* at 4, no name any more */
	CHECK(pread(u, buf, 6, 0), 6);
	CHECK(close(u), 0);

	/* ---- vectors, flags, positioned ops, O_APPEND ---- */
	v = open("vec", O_CREAT | O_RDWR | O_TRUNC, 0644);
	CHECK(v, 6);
	iov[0] = (struct iovec){"aa", 2};
	iov[1] = (struct iovec){"bbb", 3};
	iov[2] = (struct iovec){"cccc", 4};
	CHECK(writev(v, iov, 3), 9);			  /* at 0 */
	CHECK(pwritev2(v, iov, 2, 100, RWF_DSYNC), 5);	  /* at 100 */
	CHECK(pwritev2(v, iov + 2, 1, -1, RWF_HIPRI), 4); /* at the position, 9 */
	CHECK(pwrite(v, "P", 1, 50), 1);
	CHECK(lseek(v, 0, SEEK_CUR), 13); /* pwrite left it alone */
	iov[0] = (struct iovec){buf, 4};
	iov[1] = (struct iovec){buf + 4, 4};
	CHECK(preadv2(v, iov, 2, 1, RWF_HIPRI), 8);
	CHECK(preadv2(v, iov, 1, -1, 0), 4); /* at 13 */
	CHECK(lseek(v, 2, SEEK_SET), 2);
	CHECK(readv(v, iov, 2), 8); /* at 2 */
	CHECK(pread(v, buf, 5, 100), 5);
	CHECK(read(v, buf, 3), 3); /* at 10 */
	CHECK(lseek(v, -2, SEEK_END), 103);
	CHECK(read(v, buf, 10), 2);
	CHECK_ERR(lseek(v, 200, SEEK_DATA), ENXIO);
	CHECK(close(v), 0);
	ap = open("ap", O_CREAT | O_WRONLY | O_APPEND | O_TRUNC, 0644);
	CHECK(ap, 6);
	CHECK(write(ap, "12345", 5), 5);
	CHECK(lseek(ap, 0, SEEK_SET), 0);
	CHECK(write(ap, "678", 3), 3); /* at 5 all the same */
	iov[0] = (struct iovec){"9", 1};
	CHECK(writev(ap, iov, 1), 1); /* at 8 */
	CHECK(close(ap), 0);

	/* ---- threads sharing the table ---- */
	threads();

	/* ---- fork: the child's table is a copy ---- */
	pid = fork();
	CHECK(pid >= 0, 1);
	if (!pid) {
		CHECK(close(a), 0);
		CHECK(open("fchild", O_CREAT | O_WRONLY | O_TRUNC, 0644), a);
		CHECK(write(a, "child", 5), 5);
		CHECK(pread(f20, buf, 2, 0), 2); /* still "a" in the child */
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0), pid);
	CHECK(st, 0);
	CHECK(pread(a, buf, 4, 0), 4); /* "a": the child's close closed only its copy */
	CHECK(lseek(a, 0, SEEK_CUR), 14);

	/* ---- clone(CLONE_FILES): the child's open is the parent's too ---- */
	clone_files();

	/* ---- vfork + execve: the helper uses fd 3, finds 4, 10 and 20 closed ---- */
	snprintf(path, sizeof(path), "%s", argv[1]);
	pid = vfork();
	if (!pid) {
		execl("/proc/self/exe", "fd_torture", "--helper", path, (char *)NULL);
		_exit(127);
	}
	CHECK(pid > 0, 1);
	CHECK(waitpid(pid, &st, 0), pid);
	CHECK(st, 0);
	CHECK(lseek(a, 0, SEEK_CUR), 16); /* the helper read 2 through the shared position */

	/* ---- failures ---- */
	CHECK_ERR(open("nonexistent/x", O_RDONLY), ENOENT);
	CHECK_ERR(openat(99, "x", O_RDONLY), EBADF);
	CHECK_ERR(read(99, buf, 1), EBADF);
	CHECK_ERR(close(99), EBADF);
	x = open("a", O_RDONLY);
	CHECK(x, 6); /* 4 is still "d" here: close-on-exec closed it in the helper only */
	CHECK_ERR(write(x, "x", 1), EBADF); /* open, but not for writing */
	CHECK(close(x), 0);
	CHECK(close(a), 0);
	CHECK(close(f10), 0);
	CHECK(close(f20), 0);
	CHECK(close(e), 0);
	CHECK_ERR(access("@end", F_OK), ENOENT);
	return 0;
}

/* After execve from the vfork child: fd 3 ("a", inherited), the close-on-exec ones gone. */
int helper(const char *dir)
{
	int h;

	CHECK_ERR(access("@helper", F_OK), ENOENT);
	CHECK(read(3, buf, 2), 2); /* a at 14 */
	CHECK_ERR(read(4, buf, 1), EBADF);
	CHECK_ERR(read(10, buf, 1), EBADF);
	CHECK_ERR(read(20, buf, 1), EBADF);
	CHECK(fcntl(5, F_GETFD), 0); /* e, inherited */
	h = open("h", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	CHECK(h, 4);
	CHECK(write(h, dir, 1), 1);
	CHECK(write(5, "E", 1), 1); /* e at 4 */
	return 0;
}
