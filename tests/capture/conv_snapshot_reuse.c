/* SPDX-License-Identifier: MIT */
/*
 * conv_snapshot_reuse.c - capture_conv fed kernel events by hand, as an attach (-p) can
 * deliver them: the probes are attached before the /proc snapshot, so the ops of the window
 * between come after the snapshot, which may have found a later file on their fd's number.
 * dovecot's imap process, caught in an APPEND:
 *
 *   lseek(17, 0, SEEK_END) = 40 on the message file .... close(17) ... openat("new/") = 17,
 *   fdatasync(17), close(17)                       ^ the snapshot runs here: 17 is new/
 *
 * The lseek and the close acted on the message file, a regular file the snapshot never saw:
 * they were named after new/, a directory, and the replay lseeked the directory (tmpfs:
 * EINVAL where the original had 40). Their path is now left unknown; an op of the window on
 * an fd whose kind is the snapshot's keeps the snapshot's path (a database's preads on its
 * data file), and the ops after the open are named by it. Exit 0 pass, 1 fail.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "capture_int.h"

#define PID 2147483000u /* above any pid_max: /proc knows nothing of it */
#define SNAP_NS 5000	/* when the snapshot found fds 16 and 17 */

static struct ioreel_sys_event *ev;

/* a syscall event; kind: S_IFMT >> 12 of the fd's file (fd ops) or of the returned fd's */
static void sys(struct capture_conv *c, unsigned nr, const char *path, uint64_t a0, int64_t ret,
		unsigned kind, uint64_t start, uint64_t end)
{
	size_t size = offsetof(struct ioreel_sys_event, data);

	memset(ev, 0, size);
	ev->hdr.type = IOREEL_EV_SYS;
	ev->hdr.pid = PID;
	ev->hdr.tid = PID;
	ev->hdr.nr = nr;
	ev->hdr.fd_kind = path ? 0 : kind;
	ev->has_pos = !path;
	ev->args[0] = a0;
	ev->args[2] = nr == __NR_lseek ? SEEK_END : 0;
	ev->ret = ret;
	ev->ret_kind = path ? kind : 0;
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

static int check(const char *trace)
{
	static const struct {
		unsigned type;
		int fd;
		const char *want;
	} ops[] = {
	    {REEL_OP_LSEEK, 17, "-"},	 /* the message file, before the snapshot */
	    {REEL_OP_CLOSE, 17, "-"},
	    {REEL_OP_PREAD64, 16, "/r/list"}, /* before the snapshot, the same file */
	    {REEL_OP_OPENAT, -100, "/r/new"},
	    {REEL_OP_FDATASYNC, 17, "/r/new"},
	    {REEL_OP_CLOSE, 17, "/r/new"},
	    {REEL_OP_PREAD64, 16, "/r/list"}, /* after it */
	};
	struct reel_reader *r;
	struct reel_op op;
	size_t n = 0;
	int fails = 0;

	if (reel_reader__open(trace, &r))
		return 1;
	while (reel_reader__next(r, &op) == 1) {
		const char *p = op.path ? reel_reader__path(r, op.path) : "-";

		if (n == sizeof(ops) / sizeof(ops[0]) || op.type != ops[n].type ||
		    op.fd != ops[n].fd) {
			fprintf(stderr, "op %zu: %s fd %d, not the one fed\n", n,
				reel_op__name(op.type), op.fd);
			fails++;
		} else if (strcmp(p, ops[n].want)) {
			fprintf(stderr, "op %zu: %s fd %d: path %s, want %s\n", n,
				reel_op__name(op.type), op.fd, p, ops[n].want);
			fails++;
		}
		n++;
	}
	reel_reader__close(r);
	if (n != sizeof(ops) / sizeof(ops[0])) {
		fprintf(stderr, "%zu ops, want %zu\n", n, sizeof(ops) / sizeof(ops[0]));
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
	/* what the snapshot found at SNAP_NS, after the probes were attached */
	p = capture_procs__get(&c.procs, PID, true);
	if (!p || capture_proc__set_fd(p, 17, "/r/new", REEL_FD_DIR, false) ||
	    capture_proc__set_fd(p, 16, "/r/list", REEL_FD_REG, false))
		goto out;
	capture_proc__set_seen(p, 17, SNAP_NS);
	capture_proc__set_seen(p, 16, SNAP_NS);
	/* the window's ops, posted before the snapshot and read after it */
	sys(&c, __NR_lseek, NULL, 17, 40, 8, 2000, 2010);
	sys(&c, __NR_close, NULL, 17, 0, 8, 2100, 2110);
	sys(&c, __NR_pread64, NULL, 16, 0, 8, 2150, 2160);
	sys(&c, __NR_openat, "/r/new", (uint64_t)AT_FDCWD, 17, 4, 2200, 2300);
	sys(&c, __NR_fdatasync, NULL, 17, 0, 4, 2400, 2500);
	sys(&c, __NR_close, NULL, 17, 0, 4, 2600, 2700);
	sys(&c, __NR_pread64, NULL, 16, 0, 8, 6000, 6100);
	capture_conv__free(&c);
	if (reel_writer__close(w))
		goto out;
	rc = check(trace);
out:
	unlink(trace);
	rmdir(dir);
	free(ev);
	if (rc == 0)
		printf("conv_snapshot_reuse: ok\n");
	return rc;
}
