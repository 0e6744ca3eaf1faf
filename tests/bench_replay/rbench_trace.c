/* SPDX-License-Identifier: MIT */
/* rbench_trace.c - loads a trace's reads and writes per thread for the benchmark peers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reel.h"
#include "rbench.h"

#define RBENCH_MAX_FD 4096

struct fd_slot {
	uint32_t pid;
	int32_t file; /* -1: not a file we know */
};

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 16;
	void *np;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	np = realloc(*p, ncap * elem);
	if (!np)
		return -ENOMEM;
	memset((char *)np + *cap * elem, 0, (ncap - *cap) * elem);
	*p = np;
	*cap = ncap;
	return 0;
}

static int file_index(struct rbench_trace *t, size_t *fcap, const char *path)
{
	size_t ecap = *fcap;

	for (size_t i = 0; i < t->nfiles; i++)
		if (!strcmp(t->files[i], path))
			return (int)i;
	if (t->nfiles >= UINT16_MAX)
		return -E2BIG;
	if (grow((void **)&t->files, fcap, t->nfiles + 1, sizeof(*t->files)) ||
	    grow((void **)&t->file_extent, &ecap, t->nfiles + 1, sizeof(*t->file_extent)))
		return -ENOMEM;
	t->files[t->nfiles] = strdup(path);
	if (!t->files[t->nfiles])
		return -ENOMEM;
	t->file_extent[t->nfiles] = 0;
	return (int)t->nfiles++;
}

static struct rbench_thread *thread_of(struct rbench_trace *t, size_t *tcap, uint32_t tid)
{
	/* The last thread looked up is usually the next one too: skip the scan then. */
	static size_t hint;

	if (hint < t->nthreads && t->threads[hint].tid == tid)
		return &t->threads[hint];
	for (size_t i = 0; i < t->nthreads; i++) {
		if (t->threads[i].tid == tid) {
			hint = i;
			return &t->threads[i];
		}
	}
	if (grow((void **)&t->threads, tcap, t->nthreads + 1, sizeof(*t->threads)))
		return NULL;
	t->threads[t->nthreads].tid = tid;
	hint = t->nthreads;
	return &t->threads[t->nthreads++];
}

static int is_open(unsigned type)
{
	return type == REEL_OP_OPEN || type == REEL_OP_OPENAT || type == REEL_OP_OPENAT2 ||
	       type == REEL_OP_CREAT;
}

int rbench_trace__load(const char *path, struct rbench_trace *t)
{
	struct fd_slot fds[RBENCH_MAX_FD];
	struct reel_reader *r = NULL;
	size_t fcap = 0, tcap = 0;
	struct reel_op op;
	int err;

	memset(t, 0, sizeof(*t));
	t->first_start_ns = UINT64_MAX;
	for (int i = 0; i < RBENCH_MAX_FD; i++)
		fds[i].file = -1;
	err = reel_reader__open(path, &r);
	if (err)
		return err;
	while ((err = reel_reader__next(r, &op)) == 1) {
		struct rbench_thread *th;
		struct rbench_op *o;
		int wr;

		if (is_open(op.type) && op.ret >= 0 && op.ret < RBENCH_MAX_FD) {
			const char *p = reel_reader__path(r, op.path);
			int fi = p ? file_index(t, &fcap, p) : -1;

			if (fi < -1) {
				err = fi;
				break;
			}
			fds[op.ret].pid = op.pid;
			fds[op.ret].file = fi;
			continue;
		}
		wr = reel_op__is_write(op.type);
		if (!wr && !reel_op__is_read(op.type))
			continue;
		if (op.fd < 0 || op.fd >= RBENCH_MAX_FD || fds[op.fd].file < 0 ||
		    fds[op.fd].pid != op.pid)
			continue; /* not a file opened inside the trace: nothing to redo */
		th = thread_of(t, &tcap, op.tid);
		if (!th || grow((void **)&th->ops, &th->cap, th->n + 1, sizeof(*th->ops))) {
			err = -ENOMEM;
			break;
		}
		o = &th->ops[th->n++];
		o->start_ns = op.start_ns;
		o->offset = op.offset;
		o->len = (uint32_t)op.len;
		o->file = (uint16_t)fds[op.fd].file;
		o->is_write = (uint8_t)wr;
		if (op.offset + op.len > t->file_extent[o->file])
			t->file_extent[o->file] = op.offset + op.len;
		if (op.start_ns < t->first_start_ns)
			t->first_start_ns = op.start_ns;
		if (op.start_ns > t->last_start_ns)
			t->last_start_ns = op.start_ns;
		if (op.end_ns > t->last_end_ns)
			t->last_end_ns = op.end_ns;
		t->nops++;
	}
	reel_reader__close(r);
	if (err < 0) {
		rbench_trace__free(t);
		return err;
	}
	if (!t->nops)
		t->first_start_ns = 0;
	return 0;
}

void rbench_trace__free(struct rbench_trace *t)
{
	for (size_t i = 0; i < t->nthreads; i++)
		free(t->threads[i].ops);
	for (size_t i = 0; i < t->nfiles; i++)
		free(t->files[i]);
	free(t->threads);
	free(t->files);
	free(t->file_extent);
	memset(t, 0, sizeof(*t));
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

void rbench__sort(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_i64);
}

int64_t rbench__pctl_sorted(const int64_t *v, size_t n, double p)
{
	/* Nearest rank: the smallest value with at least p of the samples at or below it. */
	size_t rank;

	if (!n)
		return 0;
	rank = (size_t)(p * (double)n + 0.999999999);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

void rbench__print_pctls(const char *prefix, int64_t *v, size_t n)
{
	rbench__sort(v, n);
	printf("%sn=%zu %sp50_ns=%lld %sp99_ns=%lld %smax_ns=%lld", prefix, n, prefix,
	       (long long)rbench__pctl_sorted(v, n, 0.50), prefix,
	       (long long)rbench__pctl_sorted(v, n, 0.99), prefix,
	       (long long)(n ? v[n - 1] : 0));
}
