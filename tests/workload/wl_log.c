/* SPDX-License-Identifier: MIT */
/*
 * wl_log.c - the workload's ground-truth log: one JSON line per op, written after the op
 * returned. Each thread fills its own buffer and flushes it with O_APPEND writes at the end,
 * so that logging adds no ops in the middle of the mix (the log file is outside the scratch
 * dir, so those writes are not the workload's files either).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ioworkload.h"

struct tlog {
	char *buf;
	size_t len, cap;
	uint64_t seq;
	int tid;
	uint64_t t_begin, t_end; /* of the last SC() */
};

static __thread struct tlog tl;

void wl__die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "ioworkload: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

uint64_t wl__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void wl_log__times(uint64_t begin, uint64_t end)
{
	tl.t_begin = begin;
	tl.t_end = end;
}

void wl__sc_begin(void)
{
	tl.t_begin = wl__now();
}

long wl__sc_ret(long r)
{
	int e = errno;

	tl.t_end = wl__now();
	return r < 0 ? -e : r;
}

void wl__join(char *out, const char *dir, const char *rel)
{
	if (snprintf(out, PATH_MAX, "%s/%s", dir, rel) >= PATH_MAX)
		wl__die("path too long: %s/%s", dir, rel);
}

static void put(const char *s, size_t n)
{
	if (tl.len + n > tl.cap) {
		tl.cap = (tl.cap + n) * 2;
		tl.buf = realloc(tl.buf, tl.cap);
		if (!tl.buf)
			wl__die("out of memory");
	}
	memcpy(tl.buf + tl.len, s, n);
	tl.len += n;
}

static void putf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void putf(const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		wl__die("log field too long");
	put(tmp, n);
}

static void put_str(const char *key, const char *s)
{
	putf(",\"%s\":\"", key);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			putf("\\u%04x", *s);
		else
			put(s, 1);
	}
	put("\"", 1);
}

void wl_log__start(uint64_t seq_base)
{
	tl.tid = gettid();
	tl.seq = seq_base;
}

uint64_t wl_log__seq(void)
{
	return tl.seq;
}

void wl_log__flush(void)
{
	size_t off = 0;

	while (off < tl.len) {
		ssize_t n = write(wl_opt.log_fd, tl.buf + off, tl.len - off);

		if (n <= 0)
			wl__die("write log: %s", strerror(errno));
		off += n;
	}
	/* a worker thread's last flush is its last use of the buffer: free it, or it leaks at
	 * thread exit (put() reallocates from NULL when more ops follow) */
	free(tl.buf);
	tl.buf = NULL;
	tl.len = tl.cap = 0;
}

void wl__emit(const struct wl_rec *r)
{
	putf("{\"seq\":%" PRIu64 ",\"pid\":%d,\"tid\":%d", tl.seq++, getpid(), tl.tid);
	put_str("op", r->op);
	if (r->has & H_PATH)
		put_str("path", r->path);
	/* a NULL path2 states that there is none (a failed readlink read nothing) */
	if ((r->has & H_PATH2) && r->path2)
		put_str("path2", r->path2);
	else if (r->has & H_PATH2)
		putf(",\"path2\":null");
	if (r->has & H_FD)
		putf(",\"fd\":%d", r->fd);
	if ((r->has & H_FD) && r->kind)
		put_str("fd_kind", r->kind);
	if (r->has & H_FD2)
		putf(",\"fd2\":%d", r->fd2);
	if (r->has & H_OFF)
		putf(",\"offset\":%" PRId64, r->off);
	if (r->has & H_LEN)
		putf(",\"len\":%" PRId64, r->len);
	if (r->has & H_RET)
		putf(",\"ret\":%" PRId64, r->ret);
	if (r->has & H_FLAGS)
		putf(",\"flags\":%" PRIu32, r->flags);
	if (r->has & H_MODE)
		putf(",\"mode\":%" PRIu32, r->mode);
	if (r->has & H_SUBOP)
		putf(",\"subop\":%" PRIu32, r->subop);
	if (r->has & H_AUX)
		putf(",\"aux\":%" PRIu64, r->aux);
	if (r->has & H_CTX)
		putf(",\"ctx\":%" PRIu64, r->ctx);
	if (tl.t_end)
		putf(",\"t_begin\":%" PRIu64 ",\"t_end\":%" PRIu64, tl.t_begin, tl.t_end);
	tl.t_begin = tl.t_end = 0;
	if (r->dirfd)
		putf(",\"dirfd\":%d", r->dirfd);
	if (r->alt_op)
		put_str("alt_op", r->alt_op);
	if (r->note)
		put_str("note", r->note);
	if (wl_opt.before_capture)
		putf(",\"before_capture\":1");
	if (r->nonfile)
		putf(",\"nonfile\":1");
	if (r->info)
		putf(",\"info\":1");
	put("}\n", 2);
}
