/* SPDX-License-Identifier: MIT */
/*
 * gen_trace.c - writes synthetic traces with a known schedule for the replay benchmarks.
 *
 * paced: T threads issue R ops/s in total for D seconds; each thread opens its own file
 *        ROOT/tN.dat, issues 4 KiB pread64/pwrite64 at random aligned offsets within
 *        --size, separated by seeded gaps (uniform in [0.5, 1.5] x mean, or exponential),
 *        and closes it. The gap is never shorter than the op's recorded latency plus 1 us, so
 *        that a thread's ops never overlap.
 * afap:  N ops in total, round-robin over T threads, 100 ns apart per thread-step: a trace
 *        for throughput and memory, whose timing is meant to be ignored (--timing afap).
 *        With --proc-ops K each of the T is a succession of short processes of one thread
 *        (pid = tid, never reused), each opening the file, issuing K ops and closing it: a
 *        build's, or a database's backend per connection (memory with many processes).
 *
 * Ops are written in global start order, as a capture would write them.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reel.h"

#define GEN_MAX_THREADS 256
#define GEN_PID 4242

struct gen_thread {
	uint64_t rng;
	uint64_t next_ns; /* start of the next data op */
	uint64_t left;	  /* data ops still to issue */
	uint32_t path;
	int fd;
	int closed;
	uint32_t pid, tid;   /* the process issuing its ops now */
	uint64_t in_proc;    /* data ops that process issued (--proc-ops) */
};

struct gen_opts {
	const char *out, *root, *mode, *dist;
	unsigned threads, write_pct;
	double rate, seconds;
	uint64_t ops, size, seed, lat_ns, bs, proc_ops;
};

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double unit(uint64_t *s)
{
	return (double)(splitmix64(s) >> 11) * (1.0 / 9007199254740992.0);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gen_trace -o TRACE [--mode paced|afap] [options]\n"
		"  -t, --threads N     threads (8)\n"
		"  -r, --rate R        paced: ops/s over all threads (10000)\n"
		"  -d, --seconds D     paced: duration (5)\n"
		"  -n, --ops N         afap: data ops over all threads (1000000)\n"
		"      --dist uniform|exp   paced gap distribution around the mean (uniform)\n"
		"  -s, --size BYTES    per-file extent the offsets fall in (16 MiB)\n"
		"  -w, --write-pct P   percent of ops that are pwrite64 (0)\n"
		"      --bs BYTES      op size (4096)\n"
		"      --lat-ns NS     recorded latency of each op (3000)\n"
		"      --root DIR      fake root of the recorded paths (/bench)\n"
		"      --seed S        (1)\n"
		"      --proc-ops K    afap: K ops per process, each thread a succession of them\n"
		"EXAMPLES\n"
		"  gen_trace -o t.reel -t 8 -r 10000 -d 5 -w 25\n"
		"  gen_trace -o big.reel --mode afap -t 1 -n 2000000 -s 67108864\n");
}

static int parse(int argc, char **argv, struct gen_opts *o)
{
	static const struct option lo[] = {
		{ "out", required_argument, 0, 'o' },	  { "mode", required_argument, 0, 'm' },
		{ "threads", required_argument, 0, 't' }, { "rate", required_argument, 0, 'r' },
		{ "seconds", required_argument, 0, 'd' }, { "ops", required_argument, 0, 'n' },
		{ "dist", required_argument, 0, 'D' },	  { "size", required_argument, 0, 's' },
		{ "write-pct", required_argument, 0, 'w' }, { "bs", required_argument, 0, 'b' },
		{ "lat-ns", required_argument, 0, 'l' },  { "root", required_argument, 0, 'R' },
		{ "seed", required_argument, 0, 'S' },	  { "help", no_argument, 0, 'h' },
		{ "proc-ops", required_argument, 0, 'P' },
		{ 0, 0, 0, 0 },
	};
	int c;

	*o = (struct gen_opts){ .root = "/bench", .mode = "paced", .dist = "uniform",
				.threads = 8, .rate = 10000, .seconds = 5, .ops = 1000000,
				.size = 16 << 20, .seed = 1, .lat_ns = 3000, .bs = 4096 };
	while ((c = getopt_long(argc, argv, "o:m:t:r:d:n:s:w:h", lo, NULL)) != -1) {
		switch (c) {
		case 'o': o->out = optarg; break;
		case 'm': o->mode = optarg; break;
		case 't': o->threads = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'r': o->rate = strtod(optarg, NULL); break;
		case 'd': o->seconds = strtod(optarg, NULL); break;
		case 'n': o->ops = strtoull(optarg, NULL, 0); break;
		case 'D': o->dist = optarg; break;
		case 's': o->size = strtoull(optarg, NULL, 0); break;
		case 'w': o->write_pct = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'b': o->bs = strtoull(optarg, NULL, 0); break;
		case 'l': o->lat_ns = strtoull(optarg, NULL, 0); break;
		case 'R': o->root = optarg; break;
		case 'S': o->seed = strtoull(optarg, NULL, 0); break;
		case 'P': o->proc_ops = strtoull(optarg, NULL, 0); break;
		case 'h': usage(stdout); exit(0);
		default: return -EINVAL;
		}
	}
	if (!o->out || !o->threads || o->threads > GEN_MAX_THREADS || o->bs == 0 ||
	    o->size < o->bs || o->write_pct > 100 || o->rate <= 0 || o->seconds <= 0 ||
	    (strcmp(o->mode, "paced") && strcmp(o->mode, "afap")) ||
	    (strcmp(o->dist, "uniform") && strcmp(o->dist, "exp")) ||
	    (o->proc_ops && strcmp(o->mode, "afap")))
		return -EINVAL;
	if (!strcmp(o->mode, "afap"))
		o->lat_ns = 50; /* ops 100 ns apart per thread must not overlap */
	return 0;
}

static uint64_t gap_ns(struct gen_thread *th, const struct gen_opts *o, double mean_ns)
{
	double u = unit(&th->rng), g;

	if (!strcmp(o->dist, "exp"))
		g = -mean_ns * log(1.0 - u);
	else
		g = mean_ns * (0.5 + u);
	if (g < (double)(o->lat_ns + 1000))
		g = (double)(o->lat_ns + 1000);
	return (uint64_t)g;
}

static int emit_data(struct reel_writer *w, const struct gen_opts *o, struct gen_thread *th,
		     unsigned i, uint64_t start)
{
	uint64_t blocks = o->size / o->bs;
	int wr = o->write_pct && splitmix64(&th->rng) % 100 < o->write_pct;
	struct reel_op op = {
		.type = wr ? REEL_OP_PWRITE64 : REEL_OP_PREAD64,
		.fd_kind = REEL_FD_REG,
		.pid = th->pid,
		.tid = th->tid,
		.fd = th->fd,
		.fd2 = -1,
		.offset = (splitmix64(&th->rng) % blocks) * o->bs,
		.len = o->bs,
		.ret = (int64_t)o->bs,
		.start_ns = start,
		.end_ns = start + o->lat_ns,
	};

	return reel_writer__add(w, &op);
}

static int emit_open_close(struct reel_writer *w, struct gen_thread *th, unsigned i, int open,
			   uint64_t start)
{
	struct reel_op op = {
		.type = open ? REEL_OP_OPENAT : REEL_OP_CLOSE,
		.fd_kind = REEL_FD_REG,
		.pid = th->pid,
		.tid = th->tid,
		.fd = open ? -100 /* AT_FDCWD */ : th->fd,
		.fd2 = -1,
		.path = open ? th->path : 0,
		.flags = open ? O_RDWR : 0,
		.ret = open ? th->fd : 0,
		.start_ns = start,
		.end_ns = start + 5000,
	};

	return reel_writer__add(w, &op);
}

static int generate(struct reel_writer *w, const struct gen_opts *o, struct gen_thread *th,
		    uint32_t *next_pid)
{
	int afap = !strcmp(o->mode, "afap");
	double mean_ns = afap ? 100.0 * o->threads : 1e9 * o->threads / o->rate;
	uint64_t total = afap ? o->ops : (uint64_t)(o->rate * o->seconds);
	uint64_t t_open = 100000, t_first = 1000000;
	int err;

	/* Opens first, all threads, 1 us apart: the file exists before any data op. */
	for (unsigned i = 0; i < o->threads; i++) {
		err = emit_open_close(w, &th[i], i, 1, t_open + i * 1000ull);
		if (err)
			return err;
		th[i].left = total / o->threads + (i < total % o->threads);
		th[i].next_ns = afap ? t_first + i * 100ull
				     : t_first + (uint64_t)(unit(&th[i].rng) * mean_ns);
	}
	for (;;) {
		struct gen_thread *min = NULL;
		unsigned mi = 0;

		for (unsigned i = 0; i < o->threads; i++) {
			if (th[i].closed)
				continue;
			if (!min || th[i].next_ns < min->next_ns) {
				min = &th[i];
				mi = i;
			}
		}
		if (!min)
			return 0;
		if (!min->left) {
			err = emit_open_close(w, min, mi, 0, min->next_ns);
			min->closed = 1;
		} else if (o->proc_ops && min->in_proc == o->proc_ops) {
			/* this process is done: the next one opens the file anew */
			err = emit_open_close(w, min, mi, 0, min->next_ns);
			min->pid = min->tid = (*next_pid)++;
			min->in_proc = 0;
			if (!err)
				err = emit_open_close(w, min, mi, 1, min->next_ns + 1);
			min->next_ns += 1 + 5000 + 1; /* after the open's end */
		} else {
			err = emit_data(w, o, min, mi, min->next_ns);
			min->left--;
			min->in_proc++;
			min->next_ns += afap ? (uint64_t)mean_ns : gap_ns(min, o, mean_ns);
		}
		if (err)
			return err;
	}
}

int main(int argc, char **argv)
{
	struct gen_thread th[GEN_MAX_THREADS] = { 0 };
	uint32_t next_pid = GEN_PID + 1000;
	struct reel_writer *w = NULL;
	struct gen_opts o;
	struct timespec wall, mono;
	char buf[512];
	int err;

	if (parse(argc, argv, &o)) {
		usage(stderr);
		return 2;
	}
	err = reel_writer__open(o.out, NULL, &w);
	if (err) {
		fprintf(stderr, "gen_trace: failed to create %s: %s\n", o.out, reel_strerror(err));
		return 1;
	}
	clock_gettime(CLOCK_REALTIME, &wall);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	snprintf(buf, sizeof(buf), "gen_trace --mode %s -t %u -r %g -d %g -n %" PRIu64
		 " --dist %s -s %" PRIu64 " -w %u --seed %" PRIu64 " --proc-ops %" PRIu64,
		 o.mode, o.threads, o.rate, o.seconds, o.ops, o.dist, o.size, o.write_pct, o.seed,
		 o.proc_ops);
	err = reel_writer__meta(w, REEL_META_TOOL, "ioreel tests/bench_replay/gen_trace");
	if (!err)
		err = reel_writer__meta(w, REEL_META_COMMAND, buf);
	snprintf(buf, sizeof(buf), "%" PRIu64,
		 (uint64_t)wall.tv_sec * UINT64_C(1000000000) + (uint64_t)wall.tv_nsec);
	if (!err)
		err = reel_writer__meta(w, REEL_META_START_WALL_NS, buf);
	snprintf(buf, sizeof(buf), "%" PRIu64,
		 (uint64_t)mono.tv_sec * UINT64_C(1000000000) + (uint64_t)mono.tv_nsec);
	if (!err)
		err = reel_writer__meta(w, REEL_META_START_MONO_NS, buf);
	snprintf(buf, sizeof(buf), "%u", GEN_PID);
	if (!err)
		err = reel_writer__meta(w, REEL_META_PIDS, buf);
	for (unsigned i = 0; i < o.threads && !err; i++) {
		snprintf(buf, sizeof(buf), "%s/t%u.dat", o.root, i);
		err = reel_writer__path(w, buf, &th[i].path);
		th[i].fd = 3 + (int)i;
		th[i].rng = o.seed * 1000003ull + i;
		th[i].pid = GEN_PID;
		th[i].tid = GEN_PID + 1 + i;
		if (o.proc_ops)
			th[i].pid = th[i].tid = next_pid++;
	}
	if (!err)
		err = generate(w, &o, th, &next_pid);
	if (err) {
		fprintf(stderr, "gen_trace: failed to write %s: %s\n", o.out, reel_strerror(err));
		reel_writer__close(w);
		return 1;
	}
	err = reel_writer__close(w);
	if (err) {
		fprintf(stderr, "gen_trace: failed to close %s: %s\n", o.out, reel_strerror(err));
		return 1;
	}
	return 0;
}
