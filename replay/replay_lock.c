/* SPDX-License-Identifier: MIT */
/*
 * replay_lock.c - file locks (flock, fcntl_lock): taken and given up on the target as the
 * application did, so that processes that took turns on a lock take turns again and a
 * request that waited for one waits in the replay as long as its holder keeps it there.
 *
 * The replay is one process where the original was many. POSIX record locks (F_SETLK,
 * F_SETLKW, F_GETLK) belong to a process, so two trace processes' would never meet in it:
 * they become open-file-description locks (F_OFD_*) on one fd per trace process and file,
 * opened for that alone (struct rlockfd). That fd is the original's owner, the process; and
 * as the kernel drops a process's record locks on a file when it closes any fd of it, the
 * replay closes that fd then (lock__closed). flock's locks and F_OFD_* ones belong to the
 * open file already: they go on the op's own fd, which a child shares with its parent when
 * the trace has the fork (replay_proc.c; without it the child's fd is the file opened
 * again, and its flock meets its parent's, where in the original they were one lock).
 *
 * A blocking request comes after the releases it waited for in the original (replay_deps.c
 * orders a file's lock ops), and its wait for them is its wait for the lock: in its latency,
 * not its lateness. So it is usually granted at once. Where it is not, the replay holds a
 * lock the original did not (a release left out of the trace, a holder's exit not waited
 * for): it is tried without blocking first, then blocks under a timer of its own thread,
 * since nothing might ever wake it. After 1 s plus 4x the original's time the timer's signal
 * interrupts it: it fails EINTR, counted (replay.lock_waits_abandoned), and the replay goes
 * on.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "replay_run.h"

#define LOCK_GIVE_UP_NS 1000000000ULL
#define LOCK_GIVE_UP_MAX_NS (60 * 1000000000ULL)

/* one per trace process and file it took record locks on: the owner of its OFD locks */
struct rlockfd {
	dev_t dev;
	ino_t ino;
	int fd;
};

static int lock__is_posix(uint32_t cmd)
{
	return cmd == F_GETLK || cmd == F_SETLK || cmd == F_SETLKW;
}

static int lock__is_get(uint32_t cmd)
{
	return cmd == F_GETLK || cmd == F_OFD_GETLK;
}

/* a request that waits for a lock in the way: its kernel call may block */
int replay_lock__blocks(const struct reel_op *op)
{
	if (op->type == REEL_OP_FLOCK)
		return !(op->mode & LOCK_NB) && (op->mode & (LOCK_SH | LOCK_EX));
	return op->type == REEL_OP_FCNTL_LOCK &&
	       (op->flags == F_SETLKW || op->flags == F_OFD_SETLKW) && op->mode != F_UNLCK;
}

/* ---- the record-lock owners: one fd per trace process and file ---- */

static struct rlockfd *lock__find(struct rpid *rp, const struct stat *st)
{
	for (uint32_t i = 0; i < rp->nlk; i++)
		if (rp->lk[i].dev == st->st_dev && rp->lk[i].ino == st->st_ino)
			return &rp->lk[i];
	return NULL;
}

/* room for one more owner fd in rp->lk; under run.lock */
static int lock__room(struct rpid *rp)
{
	uint32_t cap = rp->caplk ? rp->caplk * 2 : 4;
	struct rlockfd *lk;

	if (rp->nlk < rp->caplk)
		return 0;
	lk = realloc(rp->lk, cap * sizeof(*lk));
	if (!lk)
		return -ENOMEM;
	rp->lk = lk;
	rp->caplk = cap;
	return 0;
}

/*
 * The fd that owns the process's record locks on fd's file: a new open file of it, through
 * the fd's /proc link (the file itself whatever its name is now, even unlinked), writable
 * when it can be so that either lock type can be taken on it.
 */
static int lock__owner_fd(struct rworker *w, int fd)
{
	struct rpid *rp = w->rp;
	struct rlockfd *l;
	struct stat st;
	char proc[64];
	int lfd;

	if (fstat(fd, &st))
		return -errno;
	pthread_mutex_lock(&w->run->lock);
	l = lock__find(rp, &st);
	lfd = l ? l->fd : -1;
	pthread_mutex_unlock(&w->run->lock);
	if (lfd >= 0)
		return lfd;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	lfd = open(proc, O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (lfd < 0)
		lfd = open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (lfd < 0)
		return -errno;
	pthread_mutex_lock(&w->run->lock);
	if ((l = lock__find(rp, &st))) {
		/* another thread of the process made it meanwhile */
		close(lfd);
		lfd = l->fd;
	} else if (lock__room(rp)) {
		close(lfd);
		lfd = -ENOMEM;
	} else {
		rp->lk[rp->nlk++] = (struct rlockfd){ .dev = st.st_dev, .ino = st.st_ino, .fd = lfd };
	}
	pthread_mutex_unlock(&w->run->lock);
	return lfd;
}

void lock__closed(struct rworker *w, int fd)
{
	struct rpid *rp = w->rp;
	struct rlockfd *l;
	struct stat st;
	int lfd = -1;

	if (!rp->nlk || fstat(fd, &st))
		return;
	pthread_mutex_lock(&w->run->lock);
	if ((l = lock__find(rp, &st))) {
		lfd = l->fd;
		*l = rp->lk[--rp->nlk];
	}
	pthread_mutex_unlock(&w->run->lock);
	if (lfd >= 0)
		close(lfd); /* its locks go with it */
}

void lock__free(struct rpid *rp)
{
	for (uint32_t i = 0; i < rp->nlk; i++)
		close(rp->lk[i].fd);
	free(rp->lk);
	rp->lk = NULL;
	rp->nlk = rp->caplk = 0;
}

/* ---- the give-up timer of a blocking request ---- */

static int lock__signo(void)
{
	return SIGRTMIN + 6;
}

static void lock__on_signal(int sig)
{
	(void)sig; /* only there to interrupt the blocked call: no SA_RESTART */
}

static pthread_once_t lock__once = PTHREAD_ONCE_INIT;
static int lock__handler_ok;

static void lock__install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = lock__on_signal;
	sigemptyset(&sa.sa_mask);
	lock__handler_ok = sigaction(lock__signo(), &sa, NULL) == 0;
}

/* the worker's timer, signalling its own thread; made on its first blocked request */
static int lock__timer(struct rworker *w)
{
	struct sigevent sev;

	if (w->lk_timer_ok)
		return 0;
	pthread_once(&lock__once, lock__install);
	if (!lock__handler_ok)
		return -1;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = lock__signo();
	sev._sigev_un._tid = gettid();
	if (timer_create(CLOCK_MONOTONIC, &sev, &w->lk_timer))
		return -1;
	w->lk_timer_ok = 1;
	return 0;
}

void lock__worker_end(struct rworker *w)
{
	if (w->lk_timer_ok)
		timer_delete(w->lk_timer);
	w->lk_timer_ok = 0;
}

static void lock__arm(struct rworker *w, uint64_t ns)
{
	struct itimerspec its = { 0 };

	its.it_value.tv_sec = (time_t)(ns / 1000000000ULL);
	its.it_value.tv_nsec = (long)(ns % 1000000000ULL);
	timer_settime(w->lk_timer, 0, &its, NULL);
}

static uint64_t lock__give_up_ns(const struct reel_op *op)
{
	uint64_t orig = op->end_ns > op->start_ns ? op->end_ns - op->start_ns : 0;
	uint64_t ns = LOCK_GIVE_UP_NS + (orig < LOCK_GIVE_UP_MAX_NS ? 4 * orig : LOCK_GIVE_UP_MAX_NS);

	return ns < LOCK_GIVE_UP_MAX_NS ? ns : LOCK_GIVE_UP_MAX_NS;
}

/* ---- the request ---- */

static long lock__fcntl(int fd, int cmd, struct flock *fl)
{
	return fcntl(fd, cmd, fl) < 0 ? -errno : 0;
}

static long lock__flock(int fd, int how)
{
	return flock(fd, how) < 0 ? -errno : 0;
}

/*
 * flock has no question form: the file is opened again (another open file, as another
 * process's would be) and the lock tried on that without blocking, then let go. A lock of
 * fd's own open file is in that one's way too, so a conversion is never called free (the
 * original's refused conversion also dropped the lock it had: flock(2)). Regular files
 * only: opening a FIFO or a device again is not free of effects. 1: nothing in the way.
 */
static int lock__flock_free(int fd, int how)
{
	char self[40];
	struct stat st;
	int probe, free_now;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !(how & (LOCK_SH | LOCK_EX)))
		return 0;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	probe = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (probe < 0)
		return 0;
	free_now = flock(probe, (how & (LOCK_SH | LOCK_EX)) | LOCK_NB) == 0;
	close(probe); /* the probe's lock goes with its open file */
	return free_now;
}

/* the kernel's answer for a lock in the way: EAGAIN (EWOULDBLOCK), or EACCES for record locks */
static int lock__busy(long r)
{
	return r == -EAGAIN || r == -EACCES;
}

/* one try of the request, without blocking when nb */
static long lock__try(const struct reel_op *op, int fd, int cmd, struct flock *fl, int nb)
{
	if (op->type == REEL_OP_FLOCK)
		return lock__flock(fd, (int)op->mode | (nb ? LOCK_NB : 0));
	if (nb && cmd == F_OFD_SETLKW)
		cmd = F_OFD_SETLK;
	return lock__fcntl(fd, cmd, fl);
}

/*
 * A lock request the original was refused (a lock in the way) changed nothing: the replay
 * must not hold it either, or it refuses the takes after it that the original granted (a
 * refused F_SETLK that spent ms in the kernel after its check comes, in exit order, after
 * the release that followed the check: SQLite's -shm, once 66 lock ops differing from one).
 * So it is asked first; when nothing is in the way, it is not made. 1: so.
 */
static int lock__refused_free(const struct reel_op *op, int fd, int blocks,
			      const struct flock *fl)
{
	struct flock probe = *fl;

	if (blocks || !lock__busy(op->ret))
		return 0;
	if (op->type == REEL_OP_FLOCK)
		return lock__flock_free(fd, (int)op->mode);
	if (lock__is_get(op->flags) || fl->l_type == F_UNLCK)
		return 0;
	return fcntl(fd, F_OFD_GETLK, &probe) == 0 && probe.l_type == F_UNLCK;
}

int exec__lock(struct rworker *w, const struct ritem *it, struct reel_op *res)
{
	const struct reel_op *op = &it->op;
	int posix = op->type == REEL_OP_FCNTL_LOCK && lock__is_posix(op->flags);
	int fd = exec__fd(w, it, op->type == REEL_OP_FCNTL_LOCK && op->mode == F_WRLCK);
	int cmd = (int)op->flags, lfd, blocks = replay_lock__blocks(op);
	struct flock fl;
	long r;

	if (fd < 0)
		return -(1 + REPLAY_FAIL_UNKNOWN_FD);
	memset(&fl, 0, sizeof(fl));
	if (op->type == REEL_OP_FCNTL_LOCK) {
		if (!lock__is_posix(op->flags) && op->flags != F_OFD_GETLK &&
		    op->flags != F_OFD_SETLK && op->flags != F_OFD_SETLKW) {
			exec__fail(w->run, REPLAY_FAIL_UNSUPPORTED, op, it->p1,
				   "an fcntl lock command this replay does not know");
			return -(1 + REPLAY_FAIL_UNSUPPORTED);
		}
		/* a get command whose asked type the trace has not: whether one could write */
		fl.l_type = (short)(lock__is_get(op->flags) && op->mode == F_UNLCK ? F_WRLCK
										  : op->mode);
		fl.l_whence = (short)op->subop;
		fl.l_start = (off_t)op->offset;
		fl.l_len = (off_t)op->len;
		if (posix) {
			/* a set command needs the fd open for the type's access; the owner fd
			 * is writable whatever the op's fd is, so the kernel would not say it */
			int acc = fcntl(fd, F_GETFL) & O_ACCMODE;

			if (!lock__is_get(op->flags) &&
			    ((op->mode == F_WRLCK && acc == O_RDONLY) ||
			     (op->mode == F_RDLCK && acc == O_WRONLY))) {
				res->ret = -EBADF;
				res->start_ns = res->end_ns = worker__now(w);
				return 0;
			}
			lfd = lock__owner_fd(w, fd);
			if (lfd < 0) {
				exec__fail(w->run, REPLAY_FAIL_UNSUPPORTED, op, it->p1,
					   "no fd of its own for the process's record locks");
				return -(1 + REPLAY_FAIL_UNSUPPORTED);
			}
			fd = lfd;
			cmd = op->flags == F_GETLK ? F_OFD_GETLK :
			      op->flags == F_SETLK ? F_OFD_SETLK : F_OFD_SETLKW;
		}
	}
	res->start_ns = worker__now(w);
	if (lock__refused_free(op, fd, blocks, &fl))
		r = 0; /* free in the replay: said (an outcome that differs), but not taken */
	else
		r = lock__try(op, fd, cmd, &fl, blocks);
	if (blocks && lock__busy(r)) {
		if (lock__timer(w) == 0) {
			lock__arm(w, lock__give_up_ns(op));
			r = lock__try(op, fd, cmd, &fl, 0);
			res->end_ns = worker__now(w);
			lock__arm(w, 0);
			if (r == -EINTR)
				atomic_fetch_add(&w->run->lock_waits_abandoned, 1);
		} else {
			/* no timer: the replay must not hang, so the busy answer stands */
			res->end_ns = worker__now(w);
			atomic_fetch_add(&w->run->lock_waits_abandoned, 1);
		}
	} else {
		res->end_ns = worker__now(w);
	}
	res->ret = r;
	/* its wait for other threads' ops (replay_deps.c: the releases it waited for) is its
	 * wait for the lock, as in the original: in its latency, not its lateness */
	if (blocks && res->wait_ns) {
		res->start_ns -= res->wait_ns;
		res->wait_ns = 0;
	}
	if (op->type == REEL_OP_FCNTL_LOCK && lock__is_get(op->flags) && r == 0)
		res->aux = (uint64_t)fl.l_type + 1;
	return 0;
}
