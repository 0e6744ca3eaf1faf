/* SPDX-License-Identifier: MIT */
/*
 * enosys_fchmodat2.c - LD_PRELOAD shim: syscall(SYS_fchmodat2, ...) fails with ENOSYS, as on
 * a kernel before Linux 6.6; every other syscall() goes through.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>

long syscall(long n, ...)
{
	static long (*real)(long, ...);
	long a[6];
	va_list ap;

	va_start(ap, n);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (n == 452) { /* SYS_fchmodat2 */
		errno = ENOSYS;
		return -1;
	}
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return real(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}
