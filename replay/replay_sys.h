/* SPDX-License-Identifier: MIT */
/*
 * replay_sys.h - the data syscalls the replay times, issued without glibc's wrappers.
 *
 * glibc makes pread, pwrite, their vector forms, fsync and fdatasync cancellation points: in a
 * threaded process each call switches the thread's cancellation type on and off around the
 * syscall, two locked compare-and-swaps and ~30 instructions (~1 % of a page-cached 4 KiB
 * pread here). The recorder times an op from sys_enter to sys_exit, without any of that, so
 * the replay leaves it out of what it times as well. The replay never cancels its threads.
 * Each returns the result, or -errno (errno is left alone).
 */
#ifndef IOREEL_REPLAY_SYS_H
#define IOREEL_REPLAY_SYS_H

#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* 64-bit only: the offset goes whole in one register (the vector forms' high half is 0) */
_Static_assert(sizeof(long) == 8, "replay_sys.h assumes a 64-bit ABI");

/*
 * The syscall instruction itself on x86-64, not glibc's syscall(3): that one is a function
 * call that moves its arguments into place and sets errno, all between the two clock reads
 * that time the op (~15 instructions an op, ~1 % of a page-cached 4 KiB pread). Returns
 * the result, or -errno, as the kernel does.
 */
#if defined(__x86_64__)
static inline long sys__call(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}
#else
#include <errno.h>

static inline long sys__call(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	long ret = syscall(nr, a1, a2, a3, a4, a5, a6);

	return ret < 0 ? -errno : ret;
}
#endif

static inline ssize_t sys_pread(int fd, void *buf, size_t len, off_t off)
{
	return sys__call(SYS_pread64, fd, (long)buf, (long)len, off, 0, 0);
}

static inline ssize_t sys_pwrite(int fd, const void *buf, size_t len, off_t off)
{
	return sys__call(SYS_pwrite64, fd, (long)buf, (long)len, off, 0, 0);
}

static inline ssize_t sys_preadv2(int fd, const struct iovec *iov, int n, off_t off, int flags)
{
	return sys__call(SYS_preadv2, fd, (long)iov, n, off, 0, flags);
}

static inline ssize_t sys_pwritev2(int fd, const struct iovec *iov, int n, off_t off, int flags)
{
	return sys__call(SYS_pwritev2, fd, (long)iov, n, off, 0, flags);
}

static inline ssize_t sys_preadv(int fd, const struct iovec *iov, int n, off_t off)
{
	return sys__call(SYS_preadv, fd, (long)iov, n, off, 0, 0);
}

static inline ssize_t sys_pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
	return sys__call(SYS_pwritev, fd, (long)iov, n, off, 0, 0);
}

static inline int sys_fsync(int fd)
{
	return (int)sys__call(SYS_fsync, fd, 0, 0, 0, 0, 0);
}

static inline int sys_fdatasync(int fd)
{
	return (int)sys__call(SYS_fdatasync, fd, 0, 0, 0, 0, 0);
}

#endif
