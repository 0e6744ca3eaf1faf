/* SPDX-License-Identifier: MIT */
/*
 * conv_chroot.c - capture_conv fed kernel events by hand: a process chroots, as postfix's
 * daemons do (chroot("/var/spool/postfix"), then their absolute paths lie beneath it). The
 * recorder named their ops as written: cleanup's openat("/etc/localtime") = -ENOENT (there is
 * none in the queue directory) was recorded as /etc/localtime, a file other processes opened,
 * so the replay found it and 4,040 of postfix's failed lookups succeeded. Now absolute paths
 * are made beneath the root, "/.." stays there, and chdir("/") goes to it. Exit 0 pass, 1 fail.
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

static void sys(struct capture_conv *c, unsigned nr, const char *path, uint64_t a0, int64_t ret,
		uint64_t start)
{
	size_t size = offsetof(struct ioreel_sys_event, data);

	memset(ev, 0, size);
	ev->hdr.type = IOREEL_EV_SYS;
	ev->hdr.pid = PID;
	ev->hdr.tid = PID;
	ev->hdr.nr = nr;
	ev->args[0] = a0;
	ev->ret = ret;
	ev->ret_kind = ret >= 0 && nr == __NR_openat ? 8 : 0;
	ev->start_ns = start;
	ev->end_ns = start + 10;
	if (path) {
		if (nr == __NR_openat)
			ev->args[1] = 1; /* a user pointer, never read here */
		else
			ev->args[0] = 1;
		ev->len0 = strlen(path) + 1;
		memcpy(ev->data, path, ev->len0);
		size += ev->len0;
	}
	ev->hdr.size = size;
	capture_conv__event(c, ev, size);
}

static int check(const char *trace)
{
	static const char *want[] = {
	    "/etc/localtime",			  /* before the chroot */
	    "/var/spool/postfix/etc/localtime",	  /* after it */
	    "/var/spool/postfix/etc/hosts",	  /* "/../etc/hosts" stays beneath it */
	    "/var/spool/postfix/maildrop/F1",	  /* after chdir("/"), relative */
	};
	struct reel_reader *r;
	struct reel_op op;
	size_t n = 0;
	int fails = 0;

	if (reel_reader__open(trace, &r))
		return 1;
	while (reel_reader__next(r, &op) == 1) {
		const char *p = op.path ? reel_reader__path(r, op.path) : "-";

		if (op.type != REEL_OP_OPENAT)
			continue;
		if (n < sizeof(want) / sizeof(want[0]) && strcmp(p, want[n])) {
			fprintf(stderr, "openat %zu: path %s, want %s\n", n, p, want[n]);
			fails++;
		}
		n++;
	}
	reel_reader__close(r);
	if (n != sizeof(want) / sizeof(want[0])) {
		fprintf(stderr, "%zu openats, want %zu\n", n, sizeof(want) / sizeof(want[0]));
		fails++;
	}
	return fails ? 1 : 0;
}

int main(void)
{
	char dir[] = "/dev/shm/ioreel-conv.XXXXXX", trace[64];
	struct reel_writer *w;
	struct capture_conv c;
	struct capture_proc *p;
	int rc = 1;

	ev = calloc(1, sizeof(*ev));
	if (!ev || !mkdtemp(dir))
		return 1;
	snprintf(trace, sizeof(trace), "%s/t.reel", dir);
	if (reel_writer__open(trace, NULL, &w) || capture_conv__init(&c, w, 1000, NULL))
		goto out;
	p = capture_procs__get(&c.procs, PID, true);
	if (!p || capture_proc__set_cwd(p, "/var/spool/postfix"))
		goto out;
	sys(&c, __NR_openat, "/etc/localtime", (uint64_t)AT_FDCWD, 3, 2000);
	sys(&c, __NR_chroot, "/var/spool/postfix", 0, 0, 2100);
	sys(&c, __NR_openat, "/etc/localtime", (uint64_t)AT_FDCWD, -2, 2200);
	sys(&c, __NR_openat, "/../etc/hosts", (uint64_t)AT_FDCWD, -2, 2300);
	sys(&c, __NR_chdir, "/", 0, 0, 2400);
	sys(&c, __NR_openat, "maildrop/F1", (uint64_t)AT_FDCWD, 4, 2500);
	capture_conv__free(&c);
	if (reel_writer__close(w))
		goto out;
	rc = check(trace);
out:
	unlink(trace);
	rmdir(dir);
	free(ev);
	if (rc == 0)
		printf("conv_chroot: ok\n");
	return rc;
}
