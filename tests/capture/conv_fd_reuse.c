/* SPDX-License-Identifier: MIT */
/*
 * conv_fd_reuse.c - capture_conv fed kernel events by hand, in the order the ring buffer can
 * deliver them when two threads race on one fd number:
 *
 *   thread 1: openat("/r/a") = 7 ........ close(7) enters ............. close exits
 *   thread 2: openat("/r/b") = 9 ............... dup(9) = 7 (reuses 7) ... pread(7), read(7)
 *
 * dup's event comes before close's (it exited first). The close must still be named after
 * /r/a, the file it released, and thread 2's ops on fd 7 after /r/b. The preads go in the
 * short event form, so its expansion (fd, len, offset from args[3] or from f_pos) is checked
 * too.
 *
 * Then Redis's lazy close of an unlinked AOF file: its bio thread's close(5) frees the
 * file's blocks for tens of ms, while the main thread reuses fd 5 for a whole open, fsync,
 * close of another file, all posted before the slow close exits:
 *
 *   thread 1: openat("/r/c") = 5 ....... openat("/r/d") = 5, fsync(5), close(5)
 *   thread 3:               close(5) enters ........................................ exits
 *
 * Thread 3's close released /r/c and must be named so, though fd 5 is closed again when its
 * event comes. And fd 4 bound three times over while thread 3's close(4) of the first file
 * (/r/e) runs: /r/f and /r/g come and go before its event. Exit 0 pass, 1 fail.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "capture_int.h"

#define PID 2147483000u /* above any pid_max: /proc knows nothing of it */

static struct ioreel_sys_event *ev;

static void sys(struct capture_conv *c, unsigned tid, unsigned nr, const char *path,
		uint64_t a0, int64_t ret, uint64_t start, uint64_t end)
{
	size_t size = offsetof(struct ioreel_sys_event, data);

	memset(ev, 0, size);
	ev->hdr.type = IOREEL_EV_SYS;
	ev->hdr.pid = PID;
	ev->hdr.tid = tid;
	ev->hdr.nr = nr;
	ev->hdr.fd_kind = path ? 0 : 8; /* fd ops: a regular file */
	ev->has_pos = !path;
	ev->args[0] = a0;
	ev->ret = ret;
	ev->ret_kind = path ? 8 : 0;
	ev->start_ns = start;
	ev->end_ns = end;
	if (path) {
		ev->args[1] = 1; /* a user pointer, never read here */
		ev->len0 = strlen(path) + 1;
		memcpy(ev->data, path, ev->len0);
		size += ev->len0;
	}
	ev->hdr.size = size;
	capture_conv__event(c, ev, size);
}

static void short_op(struct capture_conv *c, unsigned tid, unsigned nr, int fd, uint64_t len,
		     uint64_t off, uint64_t start)
{
	struct ioreel_sys_short s = {
		.hdr = { .type = IOREEL_EV_SYS_SHORT, .fd_kind = 8, .size = sizeof(s), .pid = PID,
			 .tid = tid, .nr = nr },
		.start_ns = start,
		.dur_ns = 50,
		.fd = fd,
		.ret = (int64_t)len,
		.len = len,
		.off = off,
	};

	capture_conv__event(c, &s, sizeof(s));
}

static int check(const char *trace)
{
	struct reel_reader *r;
	struct reel_op op;
	int fails = 0, seen = 0;

	if (reel_reader__open(trace, &r))
		return 1;
	while (reel_reader__next(r, &op) == 1) {
		const char *p = op.path ? reel_reader__path(r, op.path) : "-";
		const char *want = NULL;

		if (op.type == REEL_OP_CLOSE && op.fd == 7)
			want = "/r/a";
		else if ((op.type == REEL_OP_PREAD64 || op.type == REEL_OP_READ) && op.fd == 7)
			want = "/r/b";
		else if (op.fd == 5 && op.tid == 3)
			want = "/r/c";
		else if (op.fd == 5 && op.type != REEL_OP_OPENAT)
			want = "/r/d";
		else if (op.fd == 4 && op.tid == 3)
			want = "/r/e";
		else
			continue;
		seen++;
		if (strcmp(p, want)) {
			fprintf(stderr, "%s fd %d by tid %u: path %s, want %s\n",
				reel_op__name(op.type), op.fd, op.tid, p, want);
			fails++;
		}
		if (op.type == REEL_OP_PREAD64 && (op.offset != 4096 || op.len != 512 ||
						       op.ret != 512 || op.end_ns <= op.start_ns)) {
			fprintf(stderr, "pread64: offset %llu len %llu ret %lld: misread\n",
				(unsigned long long)op.offset, (unsigned long long)op.len,
				(long long)op.ret);
			fails++;
		}
		if (op.type == REEL_OP_READ && (op.offset != 8192 || op.len != 100)) {
			fprintf(stderr, "read: offset %llu len %llu: f_pos not the offset\n",
				(unsigned long long)op.offset, (unsigned long long)op.len);
			fails++;
		}
	}
	reel_reader__close(r);
	if (seen != 7) {
		fprintf(stderr, "saw %d of the 7 ops on fds 7, 5 and 4\n", seen);
		fails++;
	}
	return fails ? 1 : 0;
}

int main(void)
{
	char dir[] = "/dev/shm/ioreel-conv.XXXXXX", trace[64];
	struct reel_writer *w;
	struct capture_conv c;
	int rc = 1;

	ev = calloc(1, sizeof(*ev));
	if (!ev || !mkdtemp(dir))
		return 1;
	snprintf(trace, sizeof(trace), "%s/t.reel", dir);
	if (reel_writer__open(trace, NULL, &w) || capture_conv__init(&c, w, 1000, NULL))
		goto out;
	sys(&c, 1, __NR_openat, "/r/a", (uint64_t)AT_FDCWD, 7, 2000, 2100);
	sys(&c, 2, __NR_openat, "/r/b", (uint64_t)AT_FDCWD, 9, 2200, 2300);
	sys(&c, 2, __NR_dup, NULL, 9, 7, 3000, 3100);	/* exits first... */
	sys(&c, 1, __NR_close, NULL, 7, 0, 2900, 3200); /* ...but this entered first */
	short_op(&c, 2, __NR_pread64, 7, 512, 4096, 3300);
	short_op(&c, 2, __NR_read, 7, 100, 8192, 3400);
	sys(&c, 1, __NR_openat, "/r/c", (uint64_t)AT_FDCWD, 5, 4000, 4100);
	/* thread 3's close(5) enters at 5000 and exits at 9000, after all of these */
	sys(&c, 1, __NR_openat, "/r/d", (uint64_t)AT_FDCWD, 5, 5200, 5300);
	sys(&c, 1, __NR_fsync, NULL, 5, 0, 5400, 5500);
	sys(&c, 1, __NR_close, NULL, 5, 0, 5600, 5700);
	sys(&c, 3, __NR_close, NULL, 5, 0, 5000, 9000);
	sys(&c, 1, __NR_openat, "/r/e", (uint64_t)AT_FDCWD, 4, 10000, 10100);
	/* thread 3's close(4) enters at 10200 and exits at 20000, after all of these */
	sys(&c, 1, __NR_openat, "/r/f", (uint64_t)AT_FDCWD, 4, 10300, 10400);
	sys(&c, 1, __NR_close, NULL, 4, 0, 10500, 10600);
	sys(&c, 1, __NR_openat, "/r/g", (uint64_t)AT_FDCWD, 4, 10700, 10800);
	sys(&c, 1, __NR_close, NULL, 4, 0, 10900, 11000);
	sys(&c, 3, __NR_close, NULL, 4, 0, 10200, 20000);
	capture_conv__free(&c);
	if (reel_writer__close(w))
		goto out;
	rc = check(trace);
out:
	unlink(trace);
	rmdir(dir);
	free(ev);
	if (rc == 0)
		printf("conv_fd_reuse: ok\n");
	return rc;
}
