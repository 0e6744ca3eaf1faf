// SPDX-License-Identifier: MIT
/*
 * bench_format: how compact and how fast the trace format is, against the text formats
 * people would otherwise keep (strace -f -ttt -T -y output, fio iolog v3), measured on
 * the same synthetic database-like op stream in the same run.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zstd.h>

#include "reel.h"
#include "reel_op_equal.h"

static const char usage[] =
    "Usage: bench_format [--ops N] [--full] [--dir DIR] [--out FILE] [--max-bytes-per-op X]\n"
    "\n"
    "Generates N database-like ops (random and sequential 4/8/16 KiB preads over four\n"
    "1 GiB data files, random 8 KiB pwrites, WAL appends each followed by fdatasync,\n"
    "WAL segment switches, lseek/fstat/openat/newfstatat/close; 8 worker threads, a WAL\n"
    "writer and a checkpointer in 2 processes; nanosecond times with exponential jitter,\n"
    "ops in completion order as a capture emits them), writes them as a trace, reads\n"
    "the trace back, and renders the same ops as strace and fio iolog v3 text. The peer\n"
    "for speed and size is the naive format: the array of struct reel_op written as is.\n"
    "\n"
    "  --ops N              ops to generate (default 300000, the CI size)\n"
    "  --full               4000000 ops: the size the numbers in FORMAT.md come from\n"
    "  --dir DIR            where the trace file goes (default /dev/shm)\n"
    "  --out FILE           also write the numbers as key=value lines\n"
    "  --max-bytes-per-op X exit 1 when the trace is larger (default 6; 0 = no check)\n"
    "  --level L            zstd level for the writer (default: the writer's)\n"
    "  --chunk N            ops per chunk (default: the writer's)\n"
    "\n"
    "Speeds are one core, CPU time, best of 3 runs; they are reported, not asserted\n"
    "(the CI machine is shared).\n"
    "\n"
    "EXAMPLES\n"
    "  bench_format                 # the short run ctest does\n"
    "  bench_format --full --out bench.txt\n";

/* ---- deterministic randomness ---- */

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double rnd01(void)
{
	return (rnd() >> 11) * (1.0 / 9007199254740992.0);
}

/* Exponentially distributed ns with the given mean. */
static uint64_t rexp(double mean)
{
	return (uint64_t)(-log(1.0 - rnd01()) * mean);
}

/* ---- the workload ---- */

#define GiB (1ULL << 30)
#define NDATA 4
#define NWORKERS 8
#define NTHREADS (NWORKERS + 2)
#define WAL_SEGMENT (16ULL << 20)
#define FD_WAL 20

enum role { WORKER, WALWRITER, CHECKPOINTER };

struct thread {
	enum role role;
	uint32_t pid, tid;
	uint64_t now;		/* when the thread may issue its next op */
	struct reel_op pending; /* generated, not yet completed */
	bool has_pending;
	int scan_fd;
	uint64_t scan_off;
	unsigned scan_left;
	unsigned burst_left;
	uint64_t ckpt_off;
	bool wal_sync_next;
};

struct workload {
	struct thread th[NTHREADS];
	uint32_t data_path[NDATA];
	uint32_t wal_path;
	unsigned wal_seg;
	uint64_t wal_off;
	int wal_state; /* segment switch: 0 none, 1 close done, 2 open */
	uint32_t tmp_paths[64];
	char *paths[1024];
	unsigned npaths;
};

static uint32_t add_path(struct workload *wl, const char *fmt, unsigned n)
{
	char buf[256];
	snprintf(buf, sizeof(buf), fmt, n);
	wl->paths[wl->npaths] = strdup(buf);
	return ++wl->npaths;
}

static void op_init(struct reel_op *op, struct thread *t, unsigned type, int fd)
{
	uint64_t start = op->start_ns; /* set by the caller before the op is built */
	memset(op, 0, sizeof(*op));
	op->start_ns = start;
	op->type = type;
	op->pid = t->pid;
	op->tid = t->tid;
	op->fd = fd;
	op->fd2 = -1;
	op->fd_kind = REEL_FD_REG;
}

static uint64_t cache_read_ns(uint64_t len)
{
	/* page-cache copy: ~1 us + 0.1 ns/byte, occasionally a real device read */
	if (rnd() % 100 < 15)
		return 70000 + rexp(60000);
	return 900 + len / 10 + rexp(500);
}

static void gen_worker(struct workload *wl, struct thread *t, struct reel_op *op)
{
	unsigned r = rnd() % 1000;
	if (t->scan_left) {
		t->scan_left--;
		op_init(op, t, REEL_OP_PREAD64, t->scan_fd);
		op->len = 16384;
		op->offset = t->scan_off;
		t->scan_off += op->len;
		op->ret = op->len;
		op->end_ns = op->start_ns + 700 + op->len / 12 + rexp(300);
		return;
	}
	if (r < 520) { /* random page read */
		static const uint64_t sizes[] = {4096, 8192, 8192, 8192, 16384};
		uint64_t len = sizes[rnd() % 5];
		int f = rnd() % NDATA;
		op_init(op, t, REEL_OP_PREAD64, 10 + f);
		op->len = len;
		op->offset = (rnd() % (GiB / len)) * len;
		op->ret = len;
		op->end_ns = op->start_ns + cache_read_ns(len);
	} else if (r < 530) { /* start a sequential scan */
		t->scan_fd = 10 + rnd() % NDATA;
		t->scan_off = (rnd() % (GiB / 8192 - 4096)) * 8192;
		t->scan_left = 50 + rnd() % 400;
		op_init(op, t, REEL_OP_PREAD64, t->scan_fd);
		op->len = 8192;
		op->offset = t->scan_off;
		t->scan_off += 8192;
		op->ret = 8192;
		op->end_ns = op->start_ns + cache_read_ns(8192);
	} else if (r < 800) { /* dirty page write-back by a backend */
		int f = rnd() % NDATA;
		op_init(op, t, REEL_OP_PWRITE64, 10 + f);
		op->len = 8192;
		op->offset = (rnd() % (GiB / 8192)) * 8192;
		op->ret = 8192;
		op->end_ns = op->start_ns + 2500 + rexp(1500);
	} else if (r < 940) { /* relation size check, as PostgreSQL does */
		int f = rnd() % NDATA;
		op_init(op, t, REEL_OP_LSEEK, 10 + f);
		op->mode = SEEK_END;
		op->ret = GiB;
		op->end_ns = op->start_ns + 400 + rexp(200);
	} else if (r < 975) {
		op_init(op, t, REEL_OP_FSTAT, 10 + rnd() % NDATA);
		op->end_ns = op->start_ns + 500 + rexp(300);
	} else if (r < 990) { /* temp file / config probe */
		op_init(op, t, REEL_OP_NEWFSTATAT, -100);
		op->path = wl->tmp_paths[rnd() % 64];
		op->ret = rnd() % 3 ? 0 : -ENOENT;
		op->end_ns = op->start_ns + 1500 + rexp(1000);
	} else { /* open + close of a small file: the close comes as this op's follow-up */
		op_init(op, t, REEL_OP_OPENAT, -100);
		op->path = wl->tmp_paths[rnd() % 64];
		op->flags = 02 | 02000000; /* O_RDWR | O_CLOEXEC */
		op->ret = 30 + rnd() % 8;
		op->end_ns = op->start_ns + 3000 + rexp(3000);
	}
}

static void gen_wal(struct workload *wl, struct thread *t, struct reel_op *op)
{
	if (wl->wal_state == 1) {
		op_init(op, t, REEL_OP_OPENAT, -100);
		op->path = wl->wal_path =
		    add_path(wl, "/var/lib/db/pg_wal/0000000100000000000000%02X", ++wl->wal_seg);
		op->flags = 02 | 02000000 | 040000; /* O_RDWR | O_CLOEXEC | O_DIRECT-ish */
		op->mode = 0600;
		op->ret = FD_WAL;
		op->end_ns = op->start_ns + 20000 + rexp(5000);
		wl->wal_state = 0;
		wl->wal_off = 0;
		return;
	}
	if (t->wal_sync_next) {
		t->wal_sync_next = false;
		op_init(op, t, REEL_OP_FDATASYNC, FD_WAL);
		op->end_ns = op->start_ns + 150000 + rexp(600000);
		return;
	}
	if (wl->wal_off >= WAL_SEGMENT) {
		op_init(op, t, REEL_OP_CLOSE, FD_WAL);
		op->end_ns = op->start_ns + 2000 + rexp(1000);
		wl->wal_state = 1;
		return;
	}
	op_init(op, t, REEL_OP_PWRITE64, FD_WAL);
	op->len = 8192 * (1 + rnd() % 4);
	op->offset = wl->wal_off;
	wl->wal_off += op->len;
	op->ret = op->len;
	op->end_ns = op->start_ns + 4000 + op->len / 4 + rexp(2000);
	t->wal_sync_next = true;
}

static void gen_ckpt(struct workload *wl, struct thread *t, struct reel_op *op)
{
	if (!t->burst_left) {
		op_init(op, t, REEL_OP_FSYNC, 10 + rnd() % NDATA);
		op->end_ns = op->start_ns + 500000 + rexp(2000000);
		t->burst_left = 200 + rnd() % 300;
		t->ckpt_off = (rnd() % (GiB / 8192)) * 8192;
		return;
	}
	t->burst_left--;
	op_init(op, t, REEL_OP_PWRITE64, 10 + rnd() % NDATA);
	op->len = 8192;
	/* sorted but sparse: checkpoints write dirty buffers in file order */
	t->ckpt_off += 8192 * (1 + rexp(6));
	op->offset = t->ckpt_off % GiB;
	op->ret = 8192;
	op->end_ns = op->start_ns + 3000 + rexp(2000);
}

static void gen_next(struct workload *wl, struct thread *t)
{
	struct reel_op *op = &t->pending;
	double think = t->role == WORKER ? 12000 : t->role == WALWRITER ? 40000 : 30000;
	uint64_t start = t->now + 200 + rexp(think);
	op->start_ns = start;
	struct reel_op tmp;
	tmp.start_ns = start;
	if (t->role == WORKER)
		gen_worker(wl, t, &tmp);
	else if (t->role == WALWRITER)
		gen_wal(wl, t, &tmp);
	else
		gen_ckpt(wl, t, &tmp);
	tmp.start_ns = start;
	*op = tmp;
	t->now = op->end_ns;
	t->has_pending = true;
}

/* Generates n ops in completion order (as a capture emits them at syscall exit). */
static struct reel_op *gen_workload(struct workload *wl, size_t n)
{
	memset(wl, 0, sizeof(*wl));
	for (int f = 0; f < NDATA; f++)
		wl->data_path[f] = add_path(wl, "/var/lib/db/base/16384/2%04u", 600 + f);
	for (int i = 0; i < 64; i++)
		wl->tmp_paths[i] = add_path(wl, "/var/lib/db/base/pgsql_tmp/pgsql_tmp4242.%u", i);
	wl->wal_path = add_path(wl, "/var/lib/db/pg_wal/0000000100000000000000%02X", 1);
	wl->wal_seg = 1;
	for (int i = 0; i < NTHREADS; i++) {
		struct thread *t = &wl->th[i];
		t->role = i < NWORKERS ? WORKER : i == NWORKERS ? WALWRITER : CHECKPOINTER;
		t->pid = t->role == WORKER ? 4242 : 4100;
		t->tid = t->role == WORKER ? 4242 + i : 4100 + i;
		t->now = rnd() % 100000;
		t->burst_left = 100;
	}
	struct reel_op *ops = malloc(n * sizeof(*ops));
	if (!ops)
		return NULL;
	for (int i = 0; i < NTHREADS; i++)
		gen_next(wl, &wl->th[i]);
	for (size_t k = 0; k < n; k++) {
		struct thread *best = &wl->th[0];
		for (int i = 1; i < NTHREADS; i++)
			if (wl->th[i].pending.end_ns < best->pending.end_ns)
				best = &wl->th[i];
		ops[k] = best->pending;
		struct reel_op *op = &ops[k];
		if (op->type == REEL_OP_OPENAT && op->ret >= 30 && op->ret < 64 && op->fd == -100) {
			/* a worker closes what it opened right after */
			struct reel_op *c = &best->pending;
			op_init(c, best, REEL_OP_CLOSE, op->ret);
			c->start_ns = best->now + 300 + rexp(2000);
			c->end_ns = c->start_ns + 800 + rexp(400);
			best->now = c->end_ns;
			continue;
		}
		gen_next(wl, best);
	}
	return ops;
}

/* ---- text renderings ---- */

struct sink {
	uint64_t bytes;
	ZSTD_CCtx *zc; /* optional: also measure the text compressed with zstd -3 */
	uint64_t zbytes;
	char zout[1 << 16];
};

static void sink_put(struct sink *s, const char *p, size_t n, bool end)
{
	s->bytes += n;
	if (!s->zc)
		return;
	ZSTD_inBuffer in = {p, n, 0};
	for (;;) {
		ZSTD_outBuffer out = {s->zout, sizeof(s->zout), 0};
		size_t left =
		    ZSTD_compressStream2(s->zc, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
		s->zbytes += out.pos;
		if (ZSTD_isError(left))
			return;
		if (end ? left == 0 : in.pos == in.size)
			break;
	}
}

/* strace -s 32 shows the first 32 bytes of a buffer, non-printables as octal escapes. */
static int render_buf(char *out, uint64_t seed)
{
	int n = 0;
	out[n++] = '"';
	for (int i = 0; i < 32; i++) {
		uint64_t x = (seed * 0x9e3779b97f4a7c15ULL + i * 0x632be59bd9b4e019ULL) >> 40;
		unsigned byte = x % 10 < 6 ? 0 : (unsigned)(x & 0xff);
		n += sprintf(out + n, "\\%o", byte);
	}
	n += sprintf(out + n, "\"...");
	return n;
}

static const char *fd_path(const struct workload *wl, int fd, const uint32_t *fdmap)
{
	if (fd >= 0 && fd < 64 && fdmap[fd])
		return wl->paths[fdmap[fd] - 1];
	return "?";
}

static const uint64_t epoch_ns = 1764450000000000000ULL;

static void render_strace(const struct workload *wl, const struct reel_op *ops, size_t n,
			  struct sink *s)
{
	uint32_t fdmap[64] = {0};
	for (int f = 0; f < NDATA; f++)
		fdmap[10 + f] = wl->data_path[f];
	fdmap[FD_WAL] = 1 + 4 + 64; /* the first WAL segment's path id */
	char line[1024], buf[200];
	for (size_t i = 0; i < n; i++) {
		const struct reel_op *o = &ops[i];
		uint64_t t = epoch_ns + o->start_ns, d = o->end_ns - o->start_ns;
		int k = sprintf(line, "[pid %5u] %llu.%06llu ", o->tid,
				(unsigned long long)(t / 1000000000),
				(unsigned long long)(t % 1000000000 / 1000));
		const char *p = fd_path(wl, o->fd, fdmap);
		switch (o->type) {
		case REEL_OP_PREAD64:
		case REEL_OP_PWRITE64:
			render_buf(buf, i);
			k += sprintf(line + k, "%s(%d<%s>, %s, %llu, %llu) = %lld",
				     reel_op__name(o->type), o->fd, p, buf,
				     (unsigned long long)o->len, (unsigned long long)o->offset,
				     (long long)o->ret);
			break;
		case REEL_OP_LSEEK:
			k += sprintf(line + k, "lseek(%d<%s>, 0, SEEK_END) = %lld", o->fd, p,
				     (long long)o->ret);
			break;
		case REEL_OP_FSTAT:
			k += sprintf(line + k,
				     "fstat(%d<%s>, {st_mode=S_IFREG|0600, st_size=%llu, ...}) = 0",
				     o->fd, p, GiB);
			break;
		case REEL_OP_FSYNC:
		case REEL_OP_FDATASYNC:
		case REEL_OP_CLOSE:
			k += sprintf(line + k, "%s(%d<%s>) = 0", reel_op__name(o->type), o->fd, p);
			if (o->type == REEL_OP_CLOSE && o->fd >= 0 && o->fd < 64 && o->fd != FD_WAL)
				fdmap[o->fd] = 0;
			break;
		case REEL_OP_NEWFSTATAT:
			if (o->ret == 0)
				k += sprintf(line + k,
					     "newfstatat(AT_FDCWD, \"%s\", {st_mode=S_IFREG|0600, "
					     "st_size=8192, ...}, 0) = 0",
					     wl->paths[o->path - 1]);
			else
				k += sprintf(
				    line + k,
				    "newfstatat(AT_FDCWD, \"%s\", %p, 0) = -1 ENOENT (No such "
				    "file or directory)",
				    wl->paths[o->path - 1], (void *)0x7ffc5e2a1b40);
			break;
		case REEL_OP_OPENAT:
			if (o->ret >= 0 && o->ret < 64)
				fdmap[o->ret] = o->path;
			k += sprintf(
			    line + k, "openat(AT_FDCWD, \"%s\", O_RDWR|O_CLOEXEC) = %lld<%s>",
			    wl->paths[o->path - 1], (long long)o->ret, wl->paths[o->path - 1]);
			break;
		default:
			k += sprintf(line + k, "%s(%d) = %lld", reel_op__name(o->type), o->fd,
				     (long long)o->ret);
		}
		k += sprintf(line + k, " <%llu.%06llu>\n", (unsigned long long)(d / 1000000000),
			     (unsigned long long)(d % 1000000000 / 1000));
		sink_put(s, line, k, i + 1 == n);
	}
}

/*
 * fio iolog v3: "timestamp filename action [offset length]", timestamps in microseconds
 * since the start as fio's own log_io_u() writes them; ops fio cannot express (lseek,
 * stat, fstat) are left out, which flatters the iolog.
 */
static void render_iolog(const struct workload *wl, const struct reel_op *ops, size_t n,
			 struct sink *s)
{
	uint32_t fdmap[64] = {0};
	bool added[1024] = {false};
	for (int f = 0; f < NDATA; f++)
		fdmap[10 + f] = wl->data_path[f];
	fdmap[FD_WAL] = 1 + 4 + 64;
	char line[600];
	int k = sprintf(line, "fio version 3 iolog\n");
	sink_put(s, line, k, false);
	for (size_t i = 0; i < n; i++) {
		const struct reel_op *o = &ops[i];
		unsigned long long us = o->start_ns / 1000;
		uint32_t pid = o->fd >= 0 && o->fd < 64 ? fdmap[o->fd] : 0;
		k = 0;
		if (o->type == REEL_OP_OPENAT && o->ret >= 0 && o->ret < 64) {
			fdmap[o->ret] = pid = o->path;
			if (!added[pid])
				k += sprintf(line + k, "%llu %s add\n", us, wl->paths[pid - 1]);
			added[pid] = true;
			k += sprintf(line + k, "%llu %s open\n", us, wl->paths[pid - 1]);
		} else if (pid && !added[pid]) {
			added[pid] = true;
			k += sprintf(line + k, "%llu %s add\n%llu %s open\n", us,
				     wl->paths[pid - 1], us, wl->paths[pid - 1]);
		}
		const char *f = pid ? wl->paths[pid - 1] : NULL;
		switch (o->type) {
		case REEL_OP_PREAD64:
		case REEL_OP_PWRITE64:
			k += sprintf(line + k, "%llu %s %s %llu %llu\n", us, f,
				     o->type == REEL_OP_PREAD64 ? "read" : "write",
				     (unsigned long long)o->offset, (unsigned long long)o->len);
			break;
		case REEL_OP_FSYNC:
		case REEL_OP_FDATASYNC:
			k += sprintf(line + k, "%llu %s %s\n", us, f,
				     o->type == REEL_OP_FSYNC ? "sync" : "datasync");
			break;
		case REEL_OP_CLOSE:
			if (f)
				k += sprintf(line + k, "%llu %s close\n", us, f);
			break;
		default:
			break;
		}
		sink_put(s, line, k, i + 1 == n);
	}
}

/* ---- measurement ---- */

/* CPU time of this (single-threaded) process: steadier than wall time on a shared machine. */
static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int write_trace(const char *path, const struct workload *wl, const struct reel_op *ops,
		       size_t n, const struct reel_writer_opts *opts)
{
	struct reel_writer *w;
	int err = reel_writer__open(path, opts, &w);
	if (err)
		return err;
	reel_writer__meta(w, REEL_META_TOOL, "bench_format");
	for (unsigned i = 0; i < wl->npaths; i++) {
		uint32_t id;
		err = reel_writer__path(w, wl->paths[i], &id);
		if (err || id != i + 1)
			break;
	}
	for (size_t i = 0; i < n && !err; i++)
		err = reel_writer__add(w, &ops[i]);
	int cerr = reel_writer__close(w);
	return err ? err : cerr;
}

/*
 * The peer: the naive format, an array of struct reel_op written as is (88 bytes/op), read
 * back through a 1 MiB buffer and copied out op by op, as a reader of it would.
 */
static int raw_write(const char *path, const struct reel_op *ops, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -errno;
	size_t w = fwrite(ops, sizeof(*ops), n, f);
	return fclose(f) || w != n ? -EIO : 0;
}

static long long raw_read(const char *path, uint64_t *sum)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -errno;
	static struct reel_op buf[(1 << 20) / sizeof(struct reel_op)];
	struct reel_op op;
	long long n = 0;
	uint64_t acc = 0;
	size_t got;
	while ((got = fread(buf, sizeof(buf[0]), sizeof(buf) / sizeof(buf[0]), f)) > 0) {
		for (size_t i = 0; i < got; i++) {
			memcpy(&op, &buf[i], sizeof(op));
			acc += op.offset ^ op.end_ns;
		}
		n += got;
	}
	fclose(f);
	*sum = acc;
	return n;
}

/* Reads the trace back; checks every op when ops is given. Returns ops read or -error. */
static long long read_trace(const char *path, const struct reel_op *ops, uint64_t *sum)
{
	struct reel_reader *r;
	int err = reel_reader__open(path, &r);
	if (err)
		return err;
	struct reel_op op;
	long long n = 0;
	uint64_t acc = 0;
	while ((err = reel_reader__next(r, &op)) == 1) {
		acc += op.offset ^ op.end_ns;
		if (ops && !t_op_equal(&op, &ops[n])) {
			err = -EBADMSG;
			break;
		}
		n++;
	}
	reel_reader__close(r);
	*sum = acc;
	return err < 0 ? err : n;
}

int main(int argc, char **argv)
{
	size_t n = 300000;
	const char *dir = "/dev/shm", *out = NULL;
	double max_bpo = 6.0;
	struct reel_writer_opts opts = {0};
	static const struct option lo[] = {
	    {"ops", 1, 0, 'n'},
	    {"full", 0, 0, 'F'},
	    {"dir", 1, 0, 'd'},
	    {"out", 1, 0, 'o'},
	    {"max-bytes-per-op", 1, 0, 'm'},
	    {"level", 1, 0, 'l'},
	    {"chunk", 1, 0, 'c'},
	    {"help", 0, 0, 'h'},
	    {0},
	};
	int c;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
			n = strtoull(optarg, NULL, 0);
			break;
		case 'F':
			n = 4000000;
			break;
		case 'd':
			dir = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'm':
			max_bpo = atof(optarg);
			break;
		case 'l':
			opts.zstd_level = atoi(optarg);
			break;
		case 'c':
			opts.ops_per_chunk = atoi(optarg);
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (!n) {
		fputs(usage, stderr);
		return 2;
	}

	static struct workload wl;
	struct reel_op *ops = gen_workload(&wl, n);
	if (!ops) {
		fprintf(stderr, "bench_format: out of memory\n");
		return 1;
	}
	char path[512];
	snprintf(path, sizeof(path), "%s/bench_format.%d.reel", dir, (int)getpid());

	double enc = 1e9, dec = 1e9;
	int err = 0;
	for (int rep = 0; rep < 3 && !err; rep++) {
		double t0 = now_s();
		err = write_trace(path, &wl, ops, n, &opts);
		double t1 = now_s();
		if (t1 - t0 < enc)
			enc = t1 - t0;
	}
	uint64_t sum = 0;
	long long got = err ? err : read_trace(path, ops, &sum); /* correctness, untimed */
	if (got != (long long)n) {
		fprintf(stderr, "bench_format: trace does not read back: %s\n",
			got < 0 ? reel_strerror(got) : "op count differs");
		unlink(path);
		return 1;
	}
	for (int rep = 0; rep < 3; rep++) {
		double t0 = now_s();
		got = read_trace(path, NULL, &sum);
		double t1 = now_s();
		if (t1 - t0 < dec)
			dec = t1 - t0;
	}
	/* the peer, in the same run and the same directory */
	char rawpath[600];
	snprintf(rawpath, sizeof(rawpath), "%s.raw", path);
	double raw_enc = 1e9, raw_dec = 1e9;
	for (int rep = 0; rep < 3; rep++) {
		double t0 = now_s();
		int rerr = raw_write(rawpath, ops, n);
		double t1 = now_s();
		uint64_t rsum = 0;
		long long rgot = rerr ? rerr : raw_read(rawpath, &rsum);
		double t2 = now_s();
		if (rgot != (long long)n || rsum != sum) {
			fprintf(stderr, "bench_format: raw peer failed\n");
			unlink(rawpath);
			unlink(path);
			return 1;
		}
		if (t1 - t0 < raw_enc)
			raw_enc = t1 - t0;
		if (t2 - t1 < raw_dec)
			raw_dec = t2 - t1;
	}
	unlink(rawpath);

	struct stat st;
	stat(path, &st);
	if (!getenv("BENCH_KEEP"))
		unlink(path);

	struct sink strace = {0}, iolog = {0};
	strace.zc = ZSTD_createCCtx();
	iolog.zc = ZSTD_createCCtx();
	render_strace(&wl, ops, n, &strace);
	render_iolog(&wl, ops, n, &iolog);
	ZSTD_freeCCtx(strace.zc);
	ZSTD_freeCCtx(iolog.zc);

	double bpo = (double)st.st_size / n;
	printf("bench_format: %zu ops (sum %llx)\n", n, (unsigned long long)sum);
	printf("%-34s %14s %10s %10s\n", "format", "bytes", "bytes/op", "vs reel");
	printf("%-34s %14lld %10.2f %10.1f\n", "reel trace", (long long)st.st_size, bpo, 1.0);
	printf("%-34s %14llu %10.2f %10.1f\n", "strace -f -ttt -T -y text",
	       (unsigned long long)strace.bytes, (double)strace.bytes / n,
	       (double)strace.bytes / st.st_size);
	printf("%-34s %14llu %10.2f %10.1f\n", "  same, zstd -3", (unsigned long long)strace.zbytes,
	       (double)strace.zbytes / n, (double)strace.zbytes / st.st_size);
	printf("%-34s %14llu %10.2f %10.1f\n", "raw struct reel_op array",
	       (unsigned long long)n * sizeof(struct reel_op), (double)sizeof(struct reel_op),
	       (double)n * sizeof(struct reel_op) / st.st_size);
	printf("%-34s %14llu %10.2f %10.1f\n", "fio iolog v3 text (I/O ops only)",
	       (unsigned long long)iolog.bytes, (double)iolog.bytes / n,
	       (double)iolog.bytes / st.st_size);
	printf("%-34s %14llu %10.2f %10.1f\n", "  same, zstd -3", (unsigned long long)iolog.zbytes,
	       (double)iolog.zbytes / n, (double)iolog.zbytes / st.st_size);
	printf("%-34s %10.2f M ops/s (%.3f s)\n", "encode (write, one core)", n / enc / 1e6, enc);
	printf("%-34s %10.2f M ops/s (%.3f s)\n", "decode (read, one core)", n / dec / 1e6, dec);
	printf("%-34s %10.2f M ops/s (%.3f s)\n", "  peer: raw array write", n / raw_enc / 1e6,
	       raw_enc);
	printf("%-34s %10.2f M ops/s (%.3f s)\n", "  peer: raw array read", n / raw_dec / 1e6,
	       raw_dec);
	if (out) {
		FILE *f = fopen(out, "w");
		if (f) {
			fprintf(f, "ops=%zu\nbytes=%lld\nbytes_per_op=%.3f\n", n,
				(long long)st.st_size, bpo);
			fprintf(f, "strace_bytes=%llu\nstrace_zstd_bytes=%llu\n",
				(unsigned long long)strace.bytes,
				(unsigned long long)strace.zbytes);
			fprintf(f, "iolog_bytes=%llu\niolog_zstd_bytes=%llu\n",
				(unsigned long long)iolog.bytes, (unsigned long long)iolog.zbytes);
			fprintf(f, "encode_mops=%.3f\ndecode_mops=%.3f\n", n / enc / 1e6,
				n / dec / 1e6);
			fprintf(f, "raw_write_mops=%.3f\nraw_read_mops=%.3f\n", n / raw_enc / 1e6,
				n / raw_dec / 1e6);
			fclose(f);
		}
	}
	for (unsigned i = 0; i < wl.npaths; i++)
		free(wl.paths[i]);
	free(ops);
	if (max_bpo > 0 && bpo > max_bpo) {
		fprintf(stderr, "bench_format: %.2f bytes/op exceeds %.2f\n", bpo, max_bpo);
		return 1;
	}
	return 0;
}
