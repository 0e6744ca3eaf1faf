/* SPDX-License-Identifier: MIT */
/*
 * count_memalign.c - LD_PRELOAD shim: counts the posix_memalign calls of 1 MiB or more and
 * writes the count to the file $COUNT_MEMALIGN_OUT at exit; the calls themselves go through.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long big;

int posix_memalign(void **p, size_t align, size_t size)
{
	static int (*real)(void **, size_t, size_t);

	if (!real)
		real = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
	if (size >= (1u << 20))
		__atomic_add_fetch(&big, 1, __ATOMIC_RELAXED);
	return real(p, align, size);
}

__attribute__((destructor)) static void count_memalign__report(void)
{
	const char *out = getenv("COUNT_MEMALIGN_OUT");
	FILE *f;

	if (!out || !(f = fopen(out, "w")))
		return;
	fprintf(f, "%lu\n", __atomic_load_n(&big, __ATOMIC_RELAXED));
	fclose(f);
}
