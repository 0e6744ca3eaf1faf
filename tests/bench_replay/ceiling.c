/* SPDX-License-Identifier: MIT */
/*
 * ceiling.c - the throughput ceiling of a replayer: the trace's reads and writes, loaded into
 * memory first, issued back to back with pread64/pwrite64 by one thread per trace thread.
 * Nothing is measured or recorded per op; only the loop is timed.
 *
 * usage: ceiling [--prepare|--timed|--raw|--traffic=IN,OUT[,INPLACE]] TRACE TARGET_DIR
 *   Files are TARGET_DIR + the recorded path; missing or short ones are created and filled
 *   with non-zero data up to the extent the trace touches.
 *   --prepare: only create the files (for peers such as fio that need them in place).
 *   --timed: the replayer's floor: each op timed (two TSC reads) and its start, end and
 *            return value stored in memory, as the least a replayer that measures must do;
 *            the ops are still loaded first, and nothing is decoded or encoded. Issued with
 *            syscall(2), as the replayer issues them (replay/replay_sys.h).
 *   --raw: the plain loop with syscall(2) instead of glibc's pread64/pwrite64, whose
 *          cancellation-point bookkeeping a plain C loop pays (what that costs).
 *   --traffic=IN,OUT: --timed, each op also reading IN bytes and writing OUT bytes of
 *          memory of its own, streamed (a replayer's queued item and result record: what
 *          its memory traffic alone costs the ops, the kernel's work in them included);
 *          the next op's are prefetched before the syscall, as the replayer does; INPLACE:
 *          of the IN bytes read, so many written back into them (a result kept in the item)
 * CEIL_THREADS=1: also each thread's time and mean op on stderr (the loop's time is its
 * slowest thread's)
 * prints: ops=.. ns=.. ops_per_s=.. cpu_ns_per_op=.. (CPU time of the loop threads only)
 *         --timed also between_ns=.. (mean gap from an op's end to the next start, as
 *         bench_stats measures a replay's) and op_ns=.. (the ops' mean time, start to end:
 *         the syscall's own, to set beside a replayer's)
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "reel.h"
#include "rbench.h"

struct ceil_thread {
	pthread_t pt;
	const struct rbench_thread *th;
	const int *fds;
	pthread_barrier_t *go;
	uint64_t end_ns;
	uint64_t cpu_ns; /* user + system time of the loop */
	int timed;
	int raw; /* syscall(2), not glibc's wrappers */
	size_t in_bytes, out_bytes; /* --traffic: memory read and written per op */
	size_t inplace_bytes;	    /* --traffic: of the item read, bytes written back into it */
	char *in, *out;
	char sink; /* --traffic: what the item's reads add up to (kept, not optimised out) */
	int err;
	uint64_t between_ns, nbetween; /* --timed: gaps between ops, as bench_stats counts them */
	uint64_t op_ps; /* --timed: the ops' own time (start to end), in ps */
	struct rbench_budget *bud; /* --timed: where its time went, in slot idx */
	size_t idx;
};

struct ceil_result {
	uint64_t start, end;
	int64_t ret;
};

static uint64_t thread_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
}

static int mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

static int prepare(const char *path, uint64_t extent)
{
	static char fill[1 << 20];
	struct stat st;
	int fd;

	if (!stat(path, &st) && (uint64_t)st.st_size >= extent)
		return 0;
	memset(fill, 0x5a, sizeof(fill));
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	if (fd < 0)
		return -errno;
	for (uint64_t off = 0; off < extent; off += sizeof(fill)) {
		if (pwrite(fd, fill, sizeof(fill), (off_t)off) != (ssize_t)sizeof(fill)) {
			close(fd);
			return -EIO;
		}
	}
	close(fd);
	return 0;
}

/* the replayer's clock as fast as possible (replay/replay_clock.c) */
#if defined(__x86_64__)
#include <x86intrin.h>
#define tick() __rdtsc()
#else
#define tick() rbench__now_ns()
#endif

static ssize_t issue(const struct ceil_thread *c, const struct rbench_op *o, char *buf)
{
	if (c->raw)
		return syscall(o->is_write ? SYS_pwrite64 : SYS_pread64, c->fds[o->file], buf,
			       o->len, (off_t)o->offset);
	return o->is_write ? pwrite(c->fds[o->file], buf, o->len, (off_t)o->offset)
			   : pread(c->fds[o->file], buf, o->len, (off_t)o->offset);
}

static void loop_plain(struct ceil_thread *c, char *buf)
{
	for (size_t i = 0; i < c->th->n; i++)
		if (issue(c, &c->th->ops[i], buf) < 0 && !c->err)
			c->err = -errno;
}

/* --timed: the same, each op timed with the TSC and its result stored (the least a replayer
 * keeps of an op: what the result trace needs beside the op itself) */
/* --traffic: op i's memory, as a replayer's item (read) and result (written); returns what
 * the reads add up to, for the caller to keep in a local: the threads' ceil_thread structs
 * share cache lines, where a store per op would bounce them between the cores */
static char traffic(const struct ceil_thread *c, size_t i)
{
	char sum = 0;

	const char *in = c->in + i * c->in_bytes;
	char *out = c->out + i * c->out_bytes;
	size_t copy = c->in_bytes < c->out_bytes ? c->in_bytes : c->out_bytes;

	/* the next op's, in flight during this one's syscall */
	for (size_t k = 0; k < c->in_bytes; k += 64)
		__builtin_prefetch(in + c->in_bytes + k);
	for (size_t k = 0; k < c->out_bytes; k += 64)
		__builtin_prefetch(out + c->out_bytes + k, 1);
	/* the result starts as a copy of the op (the replayer's *res = *op), the rest of the
	 * item is read, the rest of the result written */
	memcpy(out, in, copy);
	for (size_t k = copy; k < c->in_bytes; k += 64)
		sum += ((const volatile char *)in)[k];
	memset(out + copy, 1, c->out_bytes - copy);
	/* a result kept in the item itself: its lines are in the cache already */
	memset((char *)in, 2, c->inplace_bytes);
	return sum;
}

static void loop_timed(struct ceil_thread *c, char *buf, struct ceil_result *res)
{
	char sink = 0;

	for (size_t i = 0; i < c->th->n; i++) {
		if (c->in)
			sink += traffic(c, i);
		uint64_t start = tick();
		ssize_t r = issue(c, &c->th->ops[i], buf);

		res[i].end = tick();
		res[i].start = start;
		res[i].ret = r < 0 ? -errno : r;
		if (r < 0 && !c->err)
			c->err = -errno;
	}
	c->sink = sink;
}

/* the gaps from an op's end to the next one's start under 2 us, in ns (rbench.h,
 * RBENCH_BETWEEN_GAP_NS): the timed loop's own work per op, to set a replayer's beside */
static void timed_between(struct ceil_thread *c, const struct ceil_result *res, uint64_t t0,
			  uint64_t tk0, double ns_per_tick)
{
	for (size_t i = 0; i < c->th->n; i++) {
		c->op_ps += (uint64_t)((double)(res[i].end - res[i].start) * ns_per_tick * 1000);
		rbench_budget__op(c->bud, c->idx,
				  t0 + (uint64_t)((double)(res[i].start - tk0) * ns_per_tick),
				  t0 + (uint64_t)((double)(res[i].end - tk0) * ns_per_tick));
	}
	for (size_t i = 1; i < c->th->n; i++) {
		double g = (double)(res[i].start - res[i - 1].end) * ns_per_tick;

		if (res[i].start >= res[i - 1].end && g < RBENCH_BETWEEN_GAP_NS) {
			c->between_ns += (uint64_t)(g * 1000); /* in ps: the gaps are tens of ns */
			c->nbetween++;
		}
	}
}

static void *ceil_run(void *arg)
{
	struct ceil_thread *c = arg;
	struct ceil_result *res = NULL;
	size_t max = 4096;
	uint64_t t0, tk0, tk1;
	char *buf;

	for (size_t i = 0; i < c->th->n; i++)
		if (c->th->ops[i].len > max)
			max = c->th->ops[i].len;
	/* the result array is written before the start: no page faults inside the loop */
	if (c->timed && (res = malloc((c->th->n + 1) * sizeof(*res))))
		memset(res, 0, (c->th->n + 1) * sizeof(*res));
	if (c->in_bytes || c->out_bytes) { /* +1: the prefetch past the last op */
		c->in = calloc(c->th->n + 1, c->in_bytes ? c->in_bytes : 1);
		c->out = calloc(c->th->n + 1, c->out_bytes ? c->out_bytes : 1);
		if (c->in && c->out) { /* written before the start: no page faults in the loop */
			memset(c->in, 1, (c->th->n + 1) * c->in_bytes);
			memset(c->out, 0, (c->th->n + 1) * c->out_bytes);
		}
	}
	if (posix_memalign((void **)&buf, 4096, max) || (c->timed && !res) ||
	    ((c->in_bytes || c->out_bytes) && (!c->in || !c->out))) {
		c->err = -ENOMEM;
		pthread_barrier_wait(c->go);
		return NULL;
	}
	memset(buf, 0xa5, max);
	pthread_barrier_wait(c->go);
	c->cpu_ns = thread_cpu_ns();
	t0 = rbench__now_ns();
	tk0 = tick();
	if (c->timed)
		loop_timed(c, buf, res);
	else
		loop_plain(c, buf);
	tk1 = tick();
	c->end_ns = rbench__now_ns();
	c->cpu_ns = thread_cpu_ns() - c->cpu_ns;
	if (c->timed && tk1 > tk0)
		timed_between(c, res, t0, tk0, (double)(c->end_ns - t0) / (double)(tk1 - tk0));
	free(res);
	free(buf);
	free(c->in);
	free(c->out);
	return NULL;
}

int main(int argc, char **argv)
{
	struct ceil_thread *ct;
	struct rbench_trace t;
	pthread_barrier_t go;
	static struct rbench_budget bud; /* static: 64 threads' slots */
	uint64_t t0, end = 0, cpu = 0, between = 0, nbetween = 0, op_ps = 0;
	char path[PATH_MAX];
	int *fds, err, prep_only = 0, timed = 0, raw = 0;
	size_t in_bytes = 0, out_bytes = 0, inplace_bytes = 0;

	if (argc == 4) {
		if (!strcmp(argv[1], "--prepare"))
			prep_only = 1;
		else if (!strcmp(argv[1], "--timed"))
			timed = raw = 1; /* as the replayer issues them */
		else if (!strcmp(argv[1], "--raw"))
			raw = 1;
		else if (sscanf(argv[1], "--traffic=%zu,%zu,%zu", &in_bytes, &out_bytes,
				&inplace_bytes) >= 2 && inplace_bytes <= in_bytes)
			timed = raw = 1;
		else
			argc = 0; /* an unknown option */
		argv++;
		argc--;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: ceiling [--prepare|--timed|--raw|--traffic=IN,OUT[,INPLACE]] "
				"TRACE TARGET_DIR\n");
		return 2;
	}
	err = rbench_trace__load(argv[1], &t);
	if (err) {
		fprintf(stderr, "ceiling: failed to read %s: %s\n", argv[1], reel_strerror(err));
		return 1;
	}
	fds = calloc(t.nfiles + 1, sizeof(*fds));
	ct = calloc(t.nthreads + 1, sizeof(*ct));
	if (!fds || !ct) {
		fprintf(stderr, "ceiling: failed to allocate: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < t.nfiles; i++) {
		snprintf(path, sizeof(path), "%s/%s", argv[2], t.files[i]);
		err = mkdirs(path);
		if (!err)
			err = prepare(path, t.file_extent[i]);
		fds[i] = err ? -1 : open(path, O_RDWR);
		if (fds[i] < 0) {
			fprintf(stderr, "ceiling: failed to prepare %s: %s\n", path,
				strerror(err ? -err : errno));
			return 1;
		}
	}
	if (prep_only)
		return 0;
	pthread_barrier_init(&go, NULL, (unsigned)t.nthreads + 1);
	bud.nthreads = t.nthreads < RBENCH_BUDGET_THREADS ? t.nthreads : RBENCH_BUDGET_THREADS;
	for (size_t i = 0; i < t.nthreads; i++) {
		ct[i] = (struct ceil_thread){ .th = &t.threads[i], .fds = fds, .go = &go,
					   .timed = timed, .raw = raw, .in_bytes = in_bytes,
					   .out_bytes = out_bytes, .inplace_bytes = inplace_bytes,
					   .bud = &bud, .idx = i };
		if (pthread_create(&ct[i].pt, NULL, ceil_run, &ct[i])) {
			fprintf(stderr, "ceiling: failed to start a thread\n");
			return 1;
		}
	}
	pthread_barrier_wait(&go);
	t0 = rbench__now_ns();
	for (size_t i = 0; i < t.nthreads; i++) {
		pthread_join(ct[i].pt, NULL);
		if (ct[i].err) {
			fprintf(stderr, "ceiling: failed to replay: %s\n", strerror(-ct[i].err));
			return 1;
		}
		if (ct[i].end_ns > end)
			end = ct[i].end_ns;
		cpu += ct[i].cpu_ns;
	}
	printf("ops=%zu ns=%llu ops_per_s=%.0f cpu_ns_per_op=%.0f", t.nops,
	       (unsigned long long)(end - t0),
	       end > t0 ? (double)t.nops * 1e9 / (double)(end - t0) : 0.0,
	       t.nops ? (double)cpu / (double)t.nops : 0.0);
	for (size_t i = 0; i < t.nthreads; i++) {
		between += ct[i].between_ns;
		nbetween += ct[i].nbetween;
		op_ps += ct[i].op_ps;
	}
	if (nbetween)
		printf(" between_ns=%.1f", (double)between / 1000.0 / (double)nbetween);
	if (timed && t.nops) {
		printf(" op_ns=%.1f", (double)op_ps / 1000.0 / (double)t.nops);
		rbench_budget__print(&bud);
	}
	putchar('\n');
	if (getenv("CEIL_THREADS"))
		for (size_t i = 0; i < t.nthreads; i++)
			fprintf(stderr, "thread %zu: %.1f ms, op %.0f ns\n", i, (ct[i].end_ns - t0) / 1e6,
				ct[i].op_ps / 1000.0 / (double)ct[i].th->n);
	for (size_t i = 0; i < t.nfiles; i++)
		close(fds[i]);
	free(fds);
	free(ct);
	rbench_trace__free(&t);
	return 0;
}
