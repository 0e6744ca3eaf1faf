/* SPDX-License-Identifier: MIT */
/*
 * conv_ebadf.c - capture_conv fed kernel events by hand for this very process, whose fd N is
 * really open on a file (so /proc/self/fd/N names it): the events say the traced process
 * opened /r/a as fd N, closed it with close_range, then read fd N and got EBADF. The read
 * must carry no path: the fd was not open when it ran, and /proc, asked as the capture
 * converts the event, names whatever holds the number by then (fd_torture under load: its
 * reads on fds close_range had closed were named after files opened on those numbers
 * later). A write that failed with EBADF on an fd the capture knows open (read-only) keeps
 * that fd's path. Exit 0 pass, 1 fail.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "capture_int.h"

static struct ioreel_sys_event *ev;

static void sys(struct capture_conv *c, unsigned nr, const char *path, uint64_t a0, uint64_t a1,
		int64_t ret, uint64_t start)
{
	size_t size = offsetof(struct ioreel_sys_event, data);

	memset(ev, 0, size);
	ev->hdr.type = IOREEL_EV_SYS;
	ev->hdr.pid = (uint32_t)getpid();
	ev->hdr.tid = (uint32_t)getpid();
	ev->hdr.nr = nr;
	ev->args[0] = a0;
	ev->args[1] = a1;
	ev->ret = ret;
	ev->ret_kind = path && ret >= 0 ? 8 : 0;
	ev->start_ns = start;
	ev->end_ns = start + 100;
	if (path) {
		ev->len0 = strlen(path) + 1;
		memcpy(ev->data, path, ev->len0);
		size += ev->len0;
	}
	ev->hdr.size = size;
	capture_conv__event(c, ev, size);
}

int main(void)
{
	char dir[] = "/dev/shm/ioreel-conv.XXXXXX", trace[64], file[64];
	struct reel_writer *w;
	struct reel_reader *r;
	struct capture_conv c;
	struct reel_op op;
	int rc = 1, fd, seen = 0;

	ev = calloc(1, sizeof(*ev));
	if (!ev || !mkdtemp(dir))
		return 1;
	snprintf(trace, sizeof(trace), "%s/t.reel", dir);
	snprintf(file, sizeof(file), "%s/now", dir);
	fd = open(file, O_CREAT | O_RDWR, 0644); /* what /proc/self/fd/<fd> names */
	if (fd < 0 || reel_writer__open(trace, NULL, &w) || capture_conv__init(&c, w, 1000, NULL))
		goto out;
	sys(&c, __NR_openat, "/r/a", (uint64_t)AT_FDCWD, 1, fd, 2000);
	sys(&c, __NR_close_range, NULL, fd, fd, 0, 3000);
	sys(&c, __NR_read, NULL, fd, 0, -EBADF, 4000);
	sys(&c, __NR_openat, "/r/ro", (uint64_t)AT_FDCWD, 1, 40, 5000);
	sys(&c, __NR_write, NULL, 40, 0, -EBADF, 6000);
	capture_conv__free(&c);
	if (reel_writer__close(w) || reel_reader__open(trace, &r))
		goto out;
	rc = 0;
	while (reel_reader__next(r, &op) == 1) {
		const char *p = op.path ? reel_reader__path(r, op.path) : "-";
		const char *want = op.type == REEL_OP_READ    ? "-"
				   : op.type == REEL_OP_WRITE ? "/r/ro"
							      : NULL;

		if (!want)
			continue;
		seen++;
		if (strcmp(p, want)) {
			fprintf(stderr, "%s fd %d = %lld: path %s, want %s\n",
				reel_op__name(op.type), op.fd, (long long)op.ret, p, want);
			rc = 1;
		}
	}
	reel_reader__close(r);
	if (seen != 2) {
		fprintf(stderr, "saw %d of the 2 failed ops\n", seen);
		rc = 1;
	}
out:
	if (fd >= 0)
		close(fd);
	unlink(file);
	unlink(trace);
	rmdir(dir);
	free(ev);
	if (rc == 0)
		printf("conv_ebadf: ok\n");
	return rc;
}
