// SPDX-License-Identifier: MIT
/*
 * replay_proc.c - the trace's processes (format 1.4): fork, execve and exit records.
 *
 * The replay is one process, and a traced process is its table of fds (struct rpid). What
 * the kernel does to that table at these three points, the replay does to it, at the
 * record's time, so that what processes share and let go of is the original's:
 *
 * - fork: the child starts with a copy of its parent's table, each fd on the same open file
 *   as the parent's (its offset, and its flock and F_OFD_* locks, shared), as dup() makes
 *   it. The child's ops wait for it (replay_deps.c). A table shared by clone(CLONE_FILES) is
 *   copied too: later opens of one are not seen by the other, a rare use the replay leaves.
 * - execve: the fds marked close-on-exec are closed, and the address space is new. The
 *   replay's fds carry the trace's close-on-exec flag (replay_path__open_as, exec__op's dups,
 *   the copies here): the replayer itself never runs a program, so the flag is free to hold it.
 * - exit: everything the process had open is closed (a lock the original held until its
 *   exit is held as long) and its mappings go. The table stays, empty, for the process's
 *   item of no op that ends it after its last op (ITEM_EXIT), and for a later process of the
 *   same pid.
 *
 * Each is instant in the trace (start = end), and so in the result: their time is when the
 * kernel did it, what the report compares is how late.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "replay_run.h"

/* the replay fds of rp's table: pages of slots, made on first use */
#define RPID_PAGES (RUN_FD_MAX / RUN_FD_PAGE)

/*
 * The child's table gets a copy of each fd open in the parent's; 0 or the first -errno. The
 * parent's other threads may open and close meanwhile, as they may in the original while the
 * kernel copies the table: an fd closed between the look at its slot and the copy is not
 * copied (EBADF), or, its number reused already by the replay, copied as another file.
 */
static int proc__fork(struct rworker *w, const struct reel_op *op)
{
	struct rpid *child, *parent = w->rp;
	int err = 0;

	if (op->ret <= 0 || op->ret > UINT32_MAX || (uint32_t)op->ret == op->pid)
		return 0; /* a fork that failed: no child */
	child = run__pid(w->run, (uint32_t)op->ret);
	if (!child)
		return -ENOMEM;
	for (int pg = 0; pg < RPID_PAGES; pg++) {
		_Atomic int32_t *p = atomic_load(&parent->page[pg]);

		for (int i = 0; p && i < RUN_FD_PAGE; i++) {
			int32_t fd = atomic_load(&p[i]), expect = RFD_UNKNOWN;
			_Atomic int32_t *slot;
			int fdfl, nfd;

			if (fd < 0)
				continue;
			fdfl = fcntl(fd, F_GETFD);
			nfd = fdfl < 0 ? -1
				       : fcntl(fd, (fdfl & FD_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD, 0);
			if (nfd < 0) {
				if (!err)
					err = -errno;
				continue;
			}
			/* the child's own ops came first (a trace whose fork record is late): theirs
			 * stays */
			slot = rpid__slot(child, pg * RUN_FD_PAGE + i);
			if (!atomic_compare_exchange_strong(slot, &expect, nfd))
				close(nfd);
		}
	}
	child->forked_orig = op->end_ns > op->start_ns ? op->end_ns : op->start_ns;
	atomic_store_explicit(&child->forked_at, replay_now_ns(), memory_order_release);
	return err;
}

/* closes the fds of rp's table that close_all, or their close-on-exec flag, says */
static void proc__close(struct rworker *w, struct rpid *rp, int close_all)
{
	for (int pg = 0; pg < RPID_PAGES; pg++) {
		_Atomic int32_t *p = atomic_load(&rp->page[pg]);

		for (int i = 0; p && i < RUN_FD_PAGE; i++) {
			int32_t fd = atomic_load(&p[i]);

			if (fd < 0) {
				/* a later process of the pid starts with nothing closed or failed */
				if (close_all)
					atomic_store(&p[i], RFD_UNKNOWN);
				continue;
			}
			if (!close_all) {
				int fdfl = fcntl(fd, F_GETFD);

				if (fdfl < 0 || !(fdfl & FD_CLOEXEC))
					continue;
			}
			atomic_store(&p[i], close_all ? RFD_UNKNOWN : RFD_CLOSED);
			lock__closed(w, fd); /* its record locks go with it */
			close(fd);
		}
	}
}

/* the process's end: what it left open is closed, its locks dropped, its mappings gone */
static void proc__exit(struct rworker *w, const struct reel_op *op)
{
	struct rpid *rp = w->rp;

	proc__close(w, rp, 1);
	pthread_mutex_lock(&w->run->lock);
	for (uint32_t j = 0; j < rp->nrel; j++)
		close((int)(uint32_t)rp->rel[j]);
	rp->nrel = 0;
	lock__free(rp);
	pthread_mutex_unlock(&w->run->lock);
	mmaps__exit(w->run, op->pid, 1);
}

int exec__proc(struct rworker *w, const struct ritem *it, struct reel_op *res)
{
	const struct reel_op *op = &it->op;
	int err = 0;

	res->start_ns = worker__now(w);
	switch (op->type) {
	case REEL_OP_FORK:
		err = proc__fork(w, op);
		break;
	case REEL_OP_EXECVE:
		if (op->ret == 0) {
			proc__close(w, w->rp, 0);
			mmaps__exit(w->run, op->pid, 1); /* a new program, a new address space */
		}
		break;
	case REEL_OP_EXIT:
		proc__exit(w, op);
		break;
	}
	res->end_ns = res->start_ns;
	res->ret = op->ret;
	if (err) {
		/* the child's ops on the fds not copied reopen their files, or fail */
		exec__fail(w->run, REPLAY_FAIL_UNSUPPORTED, op, NULL,
			   "fork: cannot copy the parent's fds (too many open files?)");
		return -(1 + REPLAY_FAIL_UNSUPPORTED);
	}
	return 0;
}
