/* SPDX-License-Identifier: MIT */
/*
 * replay_disp.h - the dispatcher's state, shared by replay_disp.c (reading and routing the
 * trace), replay_deps.c (cross-thread order) and replay_stage.c (segments); internal to replay/.
 */
#ifndef IOREEL_REPLAY_DISP_H
#define IOREEL_REPLAY_DISP_H

#include "replay_lookahead.h"
#include "replay_run.h"

struct kent {
	uint32_t sw; /* worker of the last structural op + 1; 0: none */
	uint64_t sseq;
	uint32_t nu, cu;
	struct rdep *u; /* last use per other worker since */
	/* an fd's: the open or dup that last returned it (worker + 1, 0: none), and its end */
	uint32_t bw, btid;
	uint64_t bseq, bend;
	/* and the name it was opened by (a dup's: its fd's), which renames may since have taken
	 * its file from; NULL: not known */
	struct rpath *bpath;
};

struct deptrack {
	struct replay_u64map idx; /* key -> kent index */
	struct kent *k;
	size_t n, cap;
	size_t *freel;
	size_t nfree, capfree;
	uint64_t ckey; /* the last key looked up, and its index */
	size_t cidx;
	int cvalid;
	struct replay_u64map locks; /* a file's lock key -> its struct lockhist (replay_deps.c) */
};

/*
 * The ops of other workers one op waits for, at most one per worker (ds__add keeps the latest):
 * room for all of them, so that none is dropped. Never zeroed: ds__clear starts a new op's set
 * by bumping gen, and a worker's entry is where slot[w] says only while stamp[w] is gen, so
 * that an rmdir after thousands of threads' ops finds each worker at once, not by a scan.
 */
struct depset {
	unsigned n;
	uint32_t gen;
	struct rdep d[RUN_MAX_WORKERS];
	uint32_t stamp[RUN_MAX_WORKERS];
	uint16_t slot[RUN_MAX_WORKERS];
};
_Static_assert(RUN_MAX_WORKERS <= UINT16_MAX + 1, "depset slots are 16 bits");

/* an async request's completion: its key, and the op (worker, seq) */
struct adone {
	uint64_t key, seq;
	uint32_t w;
};

/* an async write submitted whose completion record is not dispatched yet (disp__async_io), or
 * such a read of a file the trace cuts (read set) */
struct awrite {
	struct rdep submit;
	struct rpath *p;
	uint64_t end;
	uint32_t pid;
	uint16_t type; /* the submit's */
	uint8_t read;
	uint64_t ctx, aux;
};

/* a process whose threads have not all ended: how many have not, and the last op of each that
 * has (by worker), which its end waits for (disp__exit); and one more than the highest fd its
 * ops named, so that its end can drop what the dispatcher kept by fd */
#define PEXIT_LOCKED 8
/* what format 1.4's process records (replay_proc.c) need of a process: made on its first such
 * record or lock op (pexit__proc): one pexit exists per process of the trace from the start,
 * and 500 k short processes without them paid ~100 bytes each inline */
struct pproc {
	/* the fork that made it, which each of its threads' first op waits for, and the exit of
	 * the last process by its pid, which a fork that returns the pid again waits for (seq
	 * 0: none) */
	struct rdep born, exited;
	/* the files it made lock ops on: its execve and exit drop its locks on them, and are
	 * lock ops of theirs (disp__proc); more than PEXIT_LOCKED are not followed */
	uint32_t nlocked;
	const struct rpath *locked[PEXIT_LOCKED];
};
struct pexit {
	uint32_t left;
	uint32_t n, cap;
	uint32_t fds;
	struct rdep *last;
	struct pproc *proc; /* NULL: no process record nor lock op of it yet */
};
struct pproc *pexit__proc(struct pexit *pe); /* pe's, made if need be; NULL: out of memory */
void pexit__free(struct pexit *pe);

#define DISP_OWED_MAX 16
struct disp {
	struct run *run;
	struct reel_reader *r;
	struct lookahead la;
	/* IOREEL_TEST_DISPATCH_DELAY_US=N, for tests only: the dispatcher sleeps N us after each
	 * op it queues, slower than its workers (as on a machine that keeps it from its CPU) */
	uint64_t test_delay_us;
	struct replay_u64map workers; /* pid << 32 | tid -> worker index */
	struct replay_u64map paths;   /* reader path id -> struct rpath * */
	struct replay_u64map skipfd;  /* pid, fd of non-file fds */
	/* the recorder names the file of every fd whose path it knows, and knew every path:
	 * an open of "/proc/self/fd/N" left so found a memfd (disp__reopens_memfd) */
	int fd_paths_known;
	struct replay_u64map fdnames; /* key_fd -> struct rpath *: disp__fd_named */
	struct deptrack dt;
	/* completed async requests whose keys are kept until the completion is done, oldest
	 * first (disp__async_done) */
	struct adone *adone;
	size_t adone_head, nadone, capadone;
	uint64_t seq;
	uint64_t base;
	/* threads whose ops have all been dispatched hand their worker on to new threads */
	struct replay_u64map left; /* pid << 32 | tid -> ops not dispatched yet */
	struct replay_u64map plive; /* pid -> struct pexit * */
	uint32_t *idle;		   /* oldest first: the longest released is the likeliest done */
	size_t idle_head, nidle, capidle;
	uint32_t max_workers; /* the queues' memory is sized for so many (disp__idle_ready) */
	/* the thread of the previous op (runs of one thread's ops are the rule): no lookups */
	uint64_t ctk;
	uint64_t *cleft;
	struct pexit *cpe;
	struct rworker *cw;
	int cfirst; /* the op being dispatched is its thread's first (since its process's fork) */
	int cvalid;
	uint32_t cpid; /* the last path id looked up (0: none), and its path */
	struct rpath *cpath;
	struct depset ds; /* disp__deps' (64 KiB: not on the stack) */
	/* async writes not reaped yet in the trace: submit seq -> struct awrite * */
	struct replay_u64map awrites;
	/* the requests of those the op being dispatched waits for (disp__put_deps): a cut
	 * waits for every one in flight that reached beyond it */
	const struct awrite **awaits;
	unsigned nawaits, capawaits;
	/* the paths with writers entries (replay_extent.c), swept of those done now and then */
	struct rpath **wpaths;
	size_t nwpaths, capwpaths;
	uint64_t wsince; /* writes since the last sweep */
	uint64_t wleft;	 /* entries the last sweep left */
	uint64_t wpeak;	 /* the most entries there were at once (IOREEL_TEST_EXTENT) */
	struct run_bg bg; /* with a schedule, background work while ahead (disp__wake) */
	/* workers asleep for items it queued them late, not rung yet, and how many more items
	 * it queues before it rings them (disp__wake) */
	struct rworker *owed[DISP_OWED_MAX];
	unsigned nowed, owed_left;
};

/* replay_disp.c */
int disp__run(struct disp *d); /* the whole trace, or until interrupted */
int disp__worker(struct disp *d, uint32_t pid, uint32_t tid, struct rworker **out);
void disp__push(struct disp *d, struct rworker *w, const struct ritem *it); /* to w's queue */
void item__none(struct ritem *it, uint32_t pid, uint32_t tid); /* an item with no op */
int op__is_open(unsigned t);
int op__is_dup(unsigned t);
/* makes room for one more in a FIFO array (*head: its first, *n: its end) */
int fifo__room(void **buf, size_t esz, size_t *head, size_t *n, size_t *cap, size_t first);

/* replay_deps.c */
void disp__deps(struct disp *d, struct ritem *it, uint32_t self); /* what it waits for */
void disp__extent_stats(struct disp *d); /* IOREEL_TEST_EXTENT's notice */
void disp__key_stats(struct disp *d);	 /* IOREEL_TEST_KEYS' notice */
/* all of the process's ops are dispatched; pe: the last op of each of its threads */
void disp__exit(struct disp *d, uint32_t pid, const struct pexit *pe);
uint64_t key_dir(const char *s, size_t n); /* a directory's key, by name */
void dt__free(struct deptrack *dt);

/* replay_stage.c */
uint32_t stage__run(struct disp *d); /* runs the segment read ahead; items a cut left over */

#endif
