/* SPDX-License-Identifier: MIT */
/*
 * conv_process.c - capture_conv fed process events by hand (format 1.4, FORMAT.md
 * "Processes"), for what a live workload cannot choose: the command's exec, its first op, and
 * a second one; a fork with CLONE_FILES; an io_uring completion that reaches the recorder
 * after its process's exit is left out and counted (capture.after_exit, footer meta), and
 * so is a late syscall event; a pid used again after its exit takes ops again from its new
 * fork on. No BPF.   conv_process        exit 0 pass, 1 fail
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "capture.h"
#include "capture_int.h"

#define H 2147483010u /* the command; above any pid_max: /proc knows nothing of them */
#define C 2147483011u /* its child */
#define T 2147483012u /* a thread of the command */

static uint64_t now = 2000;

static void proc_ev(struct capture_conv *c, unsigned type, uint32_t pid, uint32_t tid,
		    uint32_t child, uint32_t flags, int32_t status)
{
	struct ioreel_proc_event ev = { 0 };

	ev.hdr.type = type;
	ev.hdr.size = sizeof(ev);
	ev.hdr.pid = pid;
	ev.hdr.tid = tid;
	ev.time_ns = now += 100;
	ev.child_pid = child;
	ev.flags = flags;
	ev.status = status;
	capture_conv__event(c, &ev, sizeof(ev));
}

static void uring_ev(struct capture_conv *c, unsigned type, uint32_t pid)
{
	struct ioreel_uring_event ev = { 0 };

	ev.hdr.type = type;
	ev.hdr.size = sizeof(ev);
	ev.hdr.pid = pid;
	ev.hdr.tid = pid;
	ev.hdr.nr = 23; /* IORING_OP_WRITE */
	ev.time_ns = now += 100;
	ev.ctx = 0xffff888000001000ull;
	ev.req = 0xffff888000002000ull;
	ev.fd = 5;
	ev.ring_fd = 4;
	ev.len = 4096;
	ev.res = -125; /* ECANCELED: the kernel ended it at the ring's teardown */
	ev.fd_kind = 8;
	capture_conv__event(c, &ev, sizeof(ev));
}

static void sync_ev(struct capture_conv *c, uint32_t pid)
{
	struct ioreel_sys_event_fixed ev = { 0 };

	ev.hdr.type = IOREEL_EV_SYS;
	ev.hdr.size = sizeof(ev);
	ev.hdr.pid = pid;
	ev.hdr.tid = pid;
	ev.hdr.nr = __NR_sync;
	ev.start_ns = now += 100;
	ev.end_ns = now += 10;
	capture_conv__event(c, &ev, sizeof(ev));
}

struct want {
	unsigned type;
	uint32_t pid, tid;
	int64_t ret;
	uint32_t flags;
};

int main(void)
{
	static const struct want want[] = {
		{ REEL_OP_EXECVE, H, H, 0, 0 },
		{ REEL_OP_SYNCFS, H, H, 0, 0 },
		{ REEL_OP_EXECVE, H, H, 0, 0 },
		{ REEL_OP_FORK, H, T, C, 0x400 },
		{ REEL_OP_URING_SUBMIT, C, C, 0, 0 },
		{ REEL_OP_EXIT, C, C, 9, 0 },
		{ REEL_OP_FORK, H, H, C, 0 },
		{ REEL_OP_SYNCFS, C, C, 0, 0 },
		{ REEL_OP_EXIT, C, C, 768, 0 },
		{ REEL_OP_EXIT, H, T, 0, 0 },
	};
	char dir[] = "/dev/shm/ioreel-conv.XXXXXX", trace[64];
	struct capture_stats st = { 0 };
	struct reel_reader *r = NULL;
	struct reel_writer *w;
	struct capture_conv c;
	struct reel_op op;
	const char *v;
	size_t n = 0;
	int rc = 1, err;

	if (!mkdtemp(dir))
		return 1;
	snprintf(trace, sizeof(trace), "%s/t.reel", dir);
	if (reel_writer__open(trace, NULL, &w) || capture_conv__init(&c, w, 1000, NULL))
		goto out;
	proc_ev(&c, IOREEL_EV_EXEC, H, H, 0, 0, 0);
	sync_ev(&c, H);
	proc_ev(&c, IOREEL_EV_EXEC, H, H, 0, 0, 0);
	proc_ev(&c, IOREEL_EV_FORK, H, T, C, IOREEL_PROC_SHARED_FILES, 0);
	uring_ev(&c, IOREEL_EV_URING_SUBMIT, C);
	proc_ev(&c, IOREEL_EV_EXIT, C, C, 0, 0, 9);
	uring_ev(&c, IOREEL_EV_URING_COMPLETE, C); /* after the exit: left out */
	sync_ev(&c, C);				   /* a late event of the dead pid: left out */
	proc_ev(&c, IOREEL_EV_FORK, H, H, C, 0, 0); /* C again, a new process */
	sync_ev(&c, C);
	proc_ev(&c, IOREEL_EV_EXIT, C, C, 0, 0, 768);
	proc_ev(&c, IOREEL_EV_EXIT, H, T, 0, 0, 0);
	st.after_exit = c.after_exit;
	capture_conv__free(&c);
	if (st.after_exit != 2) {
		fprintf(stderr, "conv left out %llu ops after an exit, want 2\n",
			(unsigned long long)st.after_exit);
		reel_writer__close(w);
		goto out;
	}
	if (capture__footer_meta(w, &st) || reel_writer__close(w) || reel_reader__open(trace, &r))
		goto out;
	while ((err = reel_reader__next(r, &op)) == 1) {
		const struct want *x = &want[n];

		if (n >= sizeof(want) / sizeof(want[0]) || op.type != x->type || op.pid != x->pid ||
		    op.tid != x->tid || op.ret != x->ret || op.flags != x->flags) {
			fprintf(stderr, "op %zu: %s pid %u tid %u ret %lld flags %#x: not as wanted\n",
				n, reel_op__name(op.type), op.pid, op.tid, (long long)op.ret, op.flags);
			goto out;
		}
		if (reel_op__is_process(op.type) &&
		    (op.fd != -1 || op.fd2 != -1 || op.path || op.start_ns != op.end_ns ||
		     op.fd_kind != 0)) {
			fprintf(stderr, "op %zu: %s with an fd, a path, a kind or a duration\n", n,
				reel_op__name(op.type));
			goto out;
		}
		n++;
	}
	if (err || n != sizeof(want) / sizeof(want[0])) {
		fprintf(stderr, "%zu ops read (err %d), want %zu\n", n, err,
			sizeof(want) / sizeof(want[0]));
		goto out;
	}
	v = reel_reader__meta(r, REEL_META_CAPTURE_AFTER_EXIT);
	if (!v || strcmp(v, "2")) {
		fprintf(stderr, "meta capture.after_exit is %s, want 2\n", v ? v : "missing");
		goto out;
	}
	rc = 0;
out:
	reel_reader__close(r);
	unlink(trace);
	rmdir(dir);
	if (rc == 0)
		printf("conv_process: ok\n");
	return rc;
}
