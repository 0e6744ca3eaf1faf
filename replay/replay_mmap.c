/* SPDX-License-Identifier: MIT */
/*
 * replay_mmap.c - mmap and msync replayed: the replay maps the replay fd's region with the
 * original's prot and flags (MAP_FIXED and the address dropped: the replay's address space is
 * not the application's), and remembers, per original process, which original address range
 * each replay mapping stands for, so that an msync of any address inside it lands on the
 * replay mapping. What the application wrote through its mappings is not in the trace: no
 * data goes through the replay's mappings, so an msync writes back only what the replay's own
 * writes dirtied.
 *
 * A munmap (recorded since format 1.2) unmaps the pages of its process's replay mappings
 * whose original pages it covers: a mapping covered whole goes, one it only cuts is trimmed
 * or split, as the kernel does. Traces without it rely on the rest: a new mapping replaces
 * the ones of its process whose original ranges it overlaps (the original address space
 * cannot hold both), and past MMAP_BUDGET of address space, or half of vm.max_map_count
 * mappings, the oldest mapping is unmapped (the notice says so): the replay holds the
 * mappings of every process of the trace in one address space, where the kernel refuses
 * more than vm.max_map_count (squid's curl clients: 97,569 mmaps of shared libraries by ~700
 * processes, one in eight failed ENOMEM). The other half is the replayer's own (thread
 * stacks, buffers, rings). What a process left mapped goes when it ends (after the last op
 * of each of its threads: disp__exit), as the kernel unmaps it at exit; everything left when
 * the replay ends. A mapping in use by an msync is unmapped by its last user.
 *
 * Without the munmap (a 1.1 trace), a file the application unmapped and then removed
 * (InfluxDB's and Prometheus's compactions) is still mapped by the replay when its last name
 * goes: the unlink frees no blocks then (the inode lives on until the replay ends) and costs
 * what an unlink of an empty file costs. Such removals are counted, and the summary and the
 * report say so; only those whose mappings the trace never undoes (mmaps__unlinked): one
 * followed by the munmap of each mapping of the file, or by the exit of each process that
 * mapped it, was made while the original held the file mapped too (sqlite unlinks its -shm
 * file, then unmaps it), and freed no blocks in the original either.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay_run.h"

#define MMAP_BUDGET (64ULL << 30)
#define MMAP_MAX_COUNT_DEFAULT 65530 /* vm.max_map_count's default, when it cannot be read */
#define MMAP_FLAGS_OK                                                                              \
	(MAP_TYPE | MAP_POPULATE | MAP_NORESERVE | MAP_NONBLOCK | MAP_LOCKED | MAP_SYNC)

/*
 * A removal of the last name of a file the replay still mapped (mmaps__unlinked), until its
 * mappings are gone: counted (rmaps.unlinks_kept) when one of them went otherwise than by the
 * trace's own munmap, exit or execve, or never went before the replay ended.
 */
struct rpend {
	unsigned refs; /* mappings of the file still there */
	int kept;      /* one went by no op of the trace */
	int counted;   /* mmaps__unlinks_kept took it already */
};

struct rmap {
	uint32_t pid;
	uint64_t orig, len; /* the original range */
	void *addr;	    /* the replay's mapping, len bytes */
	dev_t dev;	    /* its file (st_ino 0: unknown) */
	ino_t ino;
	unsigned users;	    /* msyncs on it now */
	int dead;	    /* out of the table: the last user unmaps it */
	struct rpend *pend; /* its file's last name was removed while it stood (NULL: not) */
	struct rmap *older, *newer; /* all of them, by age: the oldest is evicted first */
	struct rmap *pnext, *pprev; /* its process's, newest first */
};

/*
 * Each op looks only at its process's mappings (procs), and an unlink at those of its file's
 * inode number (inos): thousands of short processes (a shell script, a mail server) leave
 * tens of thousands of mappings, and a scan of them all under the lock at every mmap took
 * half the replay's CPU (3174 processes, 68,609 mmaps).
 */
struct rmaps {
	pthread_mutex_t lock;
	struct rmap *oldest, *newest;
	struct replay_u64map procs; /* pid -> its newest mapping */
	struct replay_u64map inos;  /* st_ino -> how many mappings of a file of that number */
	size_t n;
	uint64_t bytes;
	size_t max_n; /* the most mappings kept: half of vm.max_map_count */
	int evicted;
	uint64_t exits; /* processes whose mappings went when they ended */
	uint64_t unlinks_kept; /* removals whose mappings went by no op of the trace */
};

static size_t mmaps__max_count(void)
{
	FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
	unsigned long long v = 0;

	if (!f || fscanf(f, "%llu", &v) != 1 || v < 2)
		v = MMAP_MAX_COUNT_DEFAULT;
	if (f)
		fclose(f);
	return (size_t)(v / 2);
}

int mmaps__init(struct run *run)
{
	struct rmaps *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	pthread_mutex_init(&t->lock, NULL);
	t->max_n = mmaps__max_count();
	run->maps = t;
	return 0;
}

void mmaps__free(struct run *run)
{
	struct rmaps *t = run->maps;

	if (!t)
		return;
	while (t->oldest) {
		struct rmap *m = t->oldest;

		t->oldest = m->newer;
		if (m->pend && !--m->pend->refs)
			free(m->pend);
		munmap(m->addr, m->len);
		free(m);
	}
	replay_u64map__free(&t->procs);
	replay_u64map__free(&t->inos);
	pthread_mutex_destroy(&t->lock);
	free(t);
	run->maps = NULL;
}

static struct rmap *rmaps__proc(const struct rmaps *t, uint32_t pid)
{
	uint64_t *v = replay_u64map__get(&t->procs, pid);

	return v ? (struct rmap *)(uintptr_t)*v : NULL;
}

/* a mapping of a file whose last name was removed goes (lock held): by an op of the trace
 * (traced: a munmap, the exit or execve of its process), or not (evicted, replaced by a new
 * mapping of its range, its process's end guessed from its threads' last ops) */
static void rpend__release(struct rmaps *t, struct rpend *p, int traced)
{
	if (!traced)
		p->kept = 1;
	if (--p->refs)
		return;
	if (p->kept && !p->counted)
		t->unlinks_kept++;
	free(p);
}

/* takes m out of the table (lock held); unmapped now unless an msync uses it; traced: the
 * trace's own op undoes it (rpend__release) */
static void rmap__drop(struct rmaps *t, struct rmap *m, int traced)
{
	uint64_t *v;

	if (m->pend) {
		rpend__release(t, m->pend, traced);
		m->pend = NULL;
	}
	if (m->older)
		m->older->newer = m->newer;
	else
		t->oldest = m->newer;
	if (m->newer)
		m->newer->older = m->older;
	else
		t->newest = m->older;
	if (m->pnext)
		m->pnext->pprev = m->pprev;
	if (m->pprev)
		m->pprev->pnext = m->pnext;
	else if (m->pnext && (v = replay_u64map__get(&t->procs, m->pid)))
		*v = (uintptr_t)m->pnext; /* in place: a put may grow the map, and fail */
	else
		replay_u64map__del(&t->procs, m->pid);
	if (m->ino && (v = replay_u64map__get(&t->inos, m->ino)) && !--*v)
		replay_u64map__del(&t->inos, m->ino);
	t->n--;
	t->bytes -= m->len;
	if (m->users) {
		m->dead = 1;
		return;
	}
	munmap(m->addr, m->len);
	free(m);
}

static void rmap__put(struct rmaps *t, struct rmap *m)
{
	pthread_mutex_lock(&t->lock);
	if (!--m->users && m->dead) {
		munmap(m->addr, m->len);
		free(m);
	}
	pthread_mutex_unlock(&t->lock);
}

/* m into the table (lock held): the newest of all and of its process. 0 or -ENOMEM */
static int rmaps__link(struct rmaps *t, struct rmap *m)
{
	struct rmap *head = rmaps__proc(t, m->pid);
	uint64_t *v;

	if (replay_u64map__put(&t->procs, m->pid, (uintptr_t)m))
		return -ENOMEM;
	if (m->ino) {
		v = replay_u64map__get(&t->inos, m->ino);
		if (v) {
			++*v;
		} else if (replay_u64map__put(&t->inos, m->ino, 1)) {
			if (head)
				*replay_u64map__get(&t->procs, m->pid) = (uintptr_t)head;
			else
				replay_u64map__del(&t->procs, m->pid);
			return -ENOMEM;
		}
	}
	m->pnext = head;
	if (head)
		head->pprev = m;
	m->older = t->newest;
	if (t->newest)
		t->newest->newer = m;
	else
		t->oldest = m;
	t->newest = m;
	t->n++;
	t->bytes += m->len;
	return 0;
}

static int rmaps__add(struct run *run, uint32_t pid, uint64_t orig, uint64_t len, void *addr,
		      const struct stat *st)
{
	struct rmaps *t = run->maps;
	struct rmap *m = calloc(1, sizeof(*m)), *o, *next;
	int evicted = 0, err;

	if (!m)
		return -ENOMEM;
	m->pid = pid;
	m->orig = orig;
	m->len = len;
	m->addr = addr;
	m->dev = st->st_dev;
	m->ino = st->st_ino;
	pthread_mutex_lock(&t->lock);
	for (o = orig ? rmaps__proc(t, pid) : NULL; o; o = next) {
		next = o->pnext;
		if (o->orig < orig + len && orig < o->orig + o->len)
			rmap__drop(t, o, 0);
	}
	while (t->n && (t->bytes + len > MMAP_BUDGET || t->n >= t->max_n)) {
		rmap__drop(t, t->oldest, 0);
		evicted = !t->evicted;
		t->evicted = 1;
	}
	err = rmaps__link(t, m);
	pthread_mutex_unlock(&t->lock);
	if (err) {
		free(m);
		return err;
	}
	if (evicted && run->o->notice)
		run->o->notice(run->o->cb_ctx,
			       "mappings exceed 64 GiB of address space or half of vm.max_map_count "
			       "(left mapped by the trace): the oldest are unmapped");
	return 0;
}

/* the newest mapping of pid holding addr, held (users + 1); NULL when none */
static struct rmap *rmaps__find(struct rmaps *t, uint32_t pid, uint64_t addr)
{
	struct rmap *m;

	pthread_mutex_lock(&t->lock);
	for (m = rmaps__proc(t, pid); m; m = m->pnext) {
		if (addr >= m->orig && addr - m->orig < m->len) {
			m->users++;
			break;
		}
	}
	pthread_mutex_unlock(&t->lock);
	return m;
}

/*
 * Process pid has ended (its exit record, an execve, or all of its threads' ops are done:
 * traced 0): the kernel unmapped what it left mapped, and so does the replay, so that an
 * unlink of those files frees their blocks and the replay's address space holds the mappings
 * of live processes only.
 */
void mmaps__exit(struct run *run, uint32_t pid, int traced)
{
	struct rmaps *t = run->maps;
	struct rmap *m;

	pthread_mutex_lock(&t->lock);
	if ((m = rmaps__proc(t, pid)) != NULL)
		t->exits++;
	for (; m; m = rmaps__proc(t, pid))
		rmap__drop(t, m, traced);
	pthread_mutex_unlock(&t->lock);
}

uint64_t mmaps__exits(const struct run *run)
{
	return run->maps ? run->maps->exits : 0;
}

/*
 * Whether base in pfd names a regular file whose last name it is and that the replay still
 * maps (*st: which): removing the name then frees nothing until its mappings go. Looked up
 * before the op is timed; nothing to look up while nothing is mapped.
 */
int mmaps__maps_name(struct run *run, int pfd, const char *base, struct stat *st_out)
{
	struct rmaps *t = run->maps;
	struct rmap *m;
	struct stat st;
	int found = 0;

	if (!t)
		return 0;
	pthread_mutex_lock(&t->lock);
	found = t->n > 0;
	pthread_mutex_unlock(&t->lock);
	if (!found || fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
	    st.st_nlink != 1 || !st.st_ino)
		return 0;
	*st_out = st;
	found = 0;
	pthread_mutex_lock(&t->lock);
	/* the inode number alone says "none" at once; a file of that number mapped is rare */
	for (m = replay_u64map__get(&t->inos, st.st_ino) ? t->newest : NULL; m && !found;
	     m = m->older)
		found = m->ino == st.st_ino && m->dev == st.st_dev;
	pthread_mutex_unlock(&t->lock);
	return found;
}

/*
 * The last name of the file st (mmaps__maps_name) was removed: whether that freed no blocks
 * where the original's did is known when its mappings go (rpend__release).
 */
void mmaps__unlinked(struct run *run, const struct stat *st)
{
	struct rmaps *t = run->maps;
	struct rpend *p = calloc(1, sizeof(*p));
	struct rmap *m;

	pthread_mutex_lock(&t->lock);
	for (m = replay_u64map__get(&t->inos, st->st_ino) ? t->newest : NULL; m; m = m->older) {
		if (m->ino != st->st_ino || m->dev != st->st_dev || m->pend)
			continue;
		if (!p) {
			t->unlinks_kept++; /* out of memory: counted, as before */
			break;
		}
		m->pend = p;
		p->refs++;
	}
	pthread_mutex_unlock(&t->lock);
	if (p && !p->refs)
		free(p); /* unmapped meanwhile */
}

/*
 * The removals whose mappings went by no op of the trace, or are left when the replay ends
 * (after the workers): each freed no blocks where the original's, which had unmapped the
 * file first, did (a 1.1 trace without munmaps, or one that only cut the mapping).
 */
uint64_t mmaps__unlinks_kept(struct run *run)
{
	struct rmaps *t = run->maps;
	uint64_t n;

	if (!t)
		return 0;
	pthread_mutex_lock(&t->lock);
	for (struct rmap *m = t->oldest; m; m = m->newer) {
		if (m->pend && !m->pend->counted) {
			m->pend->counted = 1;
			t->unlinks_kept++;
		}
	}
	n = t->unlinks_kept;
	pthread_mutex_unlock(&t->lock);
	return n;
}

int exec__mmap(struct rworker *w, const struct ritem *it, struct reel_op *res)
{
	const struct reel_op *op = &it->op;
	int flags = (int)(op->flags & MMAP_FLAGS_OK), prot = (int)op->mode;
	struct stat st;
	int fd, err;
	void *p;

	fd = exec__fd(w, it, (prot & PROT_WRITE) && (flags & MAP_TYPE) != MAP_PRIVATE);
	if (fd < 0)
		return -(1 + REPLAY_FAIL_UNKNOWN_FD);
	if (!op->len) {
		res->start_ns = res->end_ns = replay_now_ns();
		res->ret = -EINVAL;
		return 0;
	}
	res->start_ns = replay_now_ns();
	p = mmap(NULL, op->len, prot, flags, fd, (off_t)op->offset);
	res->end_ns = replay_now_ns();
	if (p == MAP_FAILED && errno == EPERM && (prot & PROT_EXEC)) {
		/* a noexec target: nothing runs from the mapping in a replay anyway */
		res->start_ns = replay_now_ns();
		p = mmap(NULL, op->len, prot & ~PROT_EXEC, flags, fd, (off_t)op->offset);
		res->end_ns = replay_now_ns();
	}
	if (p == MAP_FAILED) {
		res->ret = -errno;
		return 0;
	}
	/* ret: the replay's address (never compared with the original's) */
	res->ret = (int64_t)(uintptr_t)p;
	if (op->ret < 0) {
		/* the application never had this mapping: nothing will use it */
		munmap(p, op->len);
		return 0;
	}
	/* which file: an unlink of its last name while mapped is counted (after the op's
	 * timing: the original's mmap did not fstat) */
	if (fstat(fd, &st))
		st.st_ino = 0;
	err = rmaps__add(w->run, op->pid, op->ret ? (uint64_t)op->ret : op->aux, op->len, p, &st);
	if (err) {
		munmap(p, op->len);
		res->ret = err;
	}
	return 0;
}

/*
 * The original range [a, e) (whole pages) unmapped part of m (lock held): its pages in it are
 * unmapped from the replay's mapping too, as the kernel does, which keeps the rest: m is
 * trimmed, or split in two around a hole (a mapping of its own for the part after it, so an
 * msync of the hole fails, and one of either part lands where it did). Left whole when an
 * msync uses it or the split's table entry cannot be made.
 */
static void rmap__cut(struct rmaps *t, struct rmap *m, uint64_t a, uint64_t e)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t mend = m->orig + (m->len + pg - 1) / pg * pg; /* the kernel's, whole pages */
	struct rmap *tail;

	if (m->users)
		return;
	if (a > m->orig && e < mend) {
		tail = calloc(1, sizeof(*tail));
		if (!tail)
			return;
		*tail = *m;
		tail->orig = e;
		tail->len = m->orig + m->len - e;
		tail->addr = (char *)m->addr + (e - m->orig);
		if (rmaps__link(t, tail)) {
			free(tail);
			return;
		}
		if (tail->pend)
			tail->pend->refs++;
		munmap((char *)m->addr + (a - m->orig), e - a);
		t->bytes -= e - a + tail->len;
		m->len = a - m->orig;
		return;
	}
	if (a > m->orig) { /* its end */
		munmap((char *)m->addr + (a - m->orig), mend - a);
		t->bytes -= m->orig + m->len - a;
		m->len = a - m->orig;
		return;
	}
	/* its start */
	munmap(m->addr, e - m->orig);
	t->bytes -= e - m->orig;
	m->addr = (char *)m->addr + (e - m->orig);
	m->len -= e - m->orig;
	m->orig = e;
}

int exec__munmap(struct rworker *w, const struct ritem *it, struct reel_op *res)
{
	const struct reel_op *op = &it->op;
	struct rmaps *t = w->run->maps;
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t a = op->aux, e = op->aux + (op->len + pg - 1) / pg * pg; /* whole pages */
	struct rmap *m, *next;
	int found = 0;

	if (op->ret < 0) {
		/* the original's failed (a misaligned address, a length of 0): the replay's asks
		 * for no bytes, which fails EINVAL too, and touches none of its own */
		res->start_ns = replay_now_ns();
		res->ret = munmap(NULL, 0) < 0 ? -errno : 0;
		res->end_ns = replay_now_ns();
		return 0;
	}
	res->start_ns = replay_now_ns();
	pthread_mutex_lock(&t->lock);
	for (m = rmaps__proc(t, op->pid); m; m = next) {
		next = m->pnext;
		if (m->orig >= e || a >= m->orig + m->len)
			continue;
		found = 1;
		if (a <= m->orig && m->orig + m->len <= e)
			rmap__drop(t, m, 1); /* unmapped now, or by its last msync */
		else
			rmap__cut(t, m, a > m->orig ? a : m->orig, e);
	}
	pthread_mutex_unlock(&t->lock);
	res->end_ns = replay_now_ns();
	res->ret = 0;
	if (!found) {
		exec__fail(w->run, REPLAY_FAIL_UNKNOWN_FD, op, NULL,
			   "address not mapped in the replay (mapped before the capture, or by an "
			   "mmap not replayed)");
		return -(1 + REPLAY_FAIL_UNKNOWN_FD);
	}
	return 0;
}

int exec__msync(struct rworker *w, const struct ritem *it, struct reel_op *res)
{
	const struct reel_op *op = &it->op;
	struct rmaps *t = w->run->maps;
	struct rmap *m = rmaps__find(t, op->pid, op->aux);
	uint64_t len;
	long r;

	if (!m) {
		if (op->ret < 0) {
			/* the original failed on an address it had not mapped: the replay asks for
			 * a range at address 0 (below vm.mmap_min_addr, never mapped), keeping the
			 * original's misalignment and flags, so it fails the same way */
			res->start_ns = replay_now_ns();
			r = msync((void *)(uintptr_t)(op->aux & 4095), op->len ? op->len : 4096,
				  (int)op->flags);
			res->end_ns = replay_now_ns();
			res->ret = r < 0 ? -errno : r;
			return 0;
		}
		exec__fail(w->run, REPLAY_FAIL_UNKNOWN_FD, op, NULL,
			   "address not mapped in the replay (mapped before the capture, or by an "
			   "mmap not replayed)");
		return -(1 + REPLAY_FAIL_UNKNOWN_FD);
	}
	/* a range running past the mapping is cut to it: the neighbour may be unknown */
	len = op->len < m->len - (op->aux - m->orig) ? op->len : m->len - (op->aux - m->orig);
	res->start_ns = replay_now_ns();
	r = msync((char *)m->addr + (op->aux - m->orig), len, (int)op->flags);
	res->end_ns = replay_now_ns();
	res->ret = r < 0 ? -errno : r;
	rmap__put(t, m);
	return 0;
}
