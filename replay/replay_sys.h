/* SPDX-License-Identifier: MIT */
/*
 * replay_sys.h - the data syscalls the replay times, issued through syscall(2).
 *
 * glibc makes pread, pwrite, their vector forms, fsync and fdatasync cancellation points: in a
 * threaded process each call switches the thread's cancellation type on and off around the
 * syscall, two locked compare-and-swaps and ~30 instructions (~1 % of a page-cached 4 KiB
 * pread here). The recorder times an op from sys_enter to sys_exit, without any of that, so
 * the replay leaves it out of what it times as well. The replay never cancels its threads.
 * Each returns what the libc call would: the result, or -1 with errno set.
 */
#ifndef IOREEL_REPLAY_SYS_H
#define IOREEL_REPLAY_SYS_H

#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* 64-bit only: the offset goes whole in one register (the vector forms' high half is 0) */
_Static_assert(sizeof(long) == 8, "replay_sys.h assumes a 64-bit ABI");

static inline ssize_t sys_pread(int fd, void *buf, size_t len, off_t off)
{
	return syscall(SYS_pread64, fd, buf, len, off);
}

static inline ssize_t sys_pwrite(int fd, const void *buf, size_t len, off_t off)
{
	return syscall(SYS_pwrite64, fd, buf, len, off);
}

static inline ssize_t sys_preadv2(int fd, const struct iovec *iov, int n, off_t off, int flags)
{
	return syscall(SYS_preadv2, fd, iov, n, off, 0L, flags);
}

static inline ssize_t sys_pwritev2(int fd, const struct iovec *iov, int n, off_t off, int flags)
{
	return syscall(SYS_pwritev2, fd, iov, n, off, 0L, flags);
}

static inline ssize_t sys_preadv(int fd, const struct iovec *iov, int n, off_t off)
{
	return syscall(SYS_preadv, fd, iov, n, off, 0L);
}

static inline ssize_t sys_pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
	return syscall(SYS_pwritev, fd, iov, n, off, 0L);
}

static inline int sys_fsync(int fd)
{
	return (int)syscall(SYS_fsync, fd);
}

static inline int sys_fdatasync(int fd)
{
	return (int)syscall(SYS_fdatasync, fd);
}

#endif
