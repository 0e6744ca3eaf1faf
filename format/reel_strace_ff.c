/* SPDX-License-Identifier: MIT */
/*
 * reel_strace_ff.c - strace -ff logs (one file per process, PREFIX.PID, no pid column) made
 * into the one log strace -f would have written: every line prefixed with its pid, all lines
 * in time order. The importer then reads it as any -f log.
 *
 * With -ff nothing interleaves inside a file, so strace writes each call whole on one line,
 * stamped with its entry time: ordering the lines by that stamp orders the calls by their
 * start, as an -f log does. A k-way merge over a min-heap keyed by the stamp: one line per
 * file in memory, so thousands of processes merge in bounded memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reel_convert.h"

struct ff_src {
	FILE *in;
	uint32_t pid;
	char *line;
	size_t cap;
	double t;
	uint64_t lineno;
};

/* the next line with a time stamp; 0 at the end, -EINVAL when a line has no stamp */
static int ff_next(struct ff_src *s)
{
	for (;;) {
		ssize_t n = getline(&s->line, &s->cap, s->in);
		char *end;

		if (n < 0)
			return ferror(s->in) ? -EIO : 0;
		s->lineno++;
		if (n <= 1)
			continue; /* blank */
		s->t = strtod(s->line, &end);
		if (end == s->line || *end != ' ')
			return -EINVAL;
		return 1;
	}
}

static int ff_less(const struct ff_src *a, const struct ff_src *b)
{
	/* equal stamps: the lower pid first, so that the output does not depend on the order
	 * the files were given in */
	return a->t < b->t || (a->t == b->t && a->pid < b->pid);
}

static void ff_sift_down(struct ff_src **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < n && ff_less(h[l], h[m]))
			m = l;
		if (l + 1 < n && ff_less(h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		struct ff_src *x = h[i];
		h[i] = h[m];
		h[m] = x;
		i = m;
	}
}

int reel_strace__merge_ff(FILE *const *in, const uint32_t *pids, size_t n, FILE *out,
			  size_t *bad_file, uint64_t *bad_line)
{
	struct ff_src *src = calloc(n ? n : 1, sizeof(*src));
	struct ff_src **heap = calloc(n ? n : 1, sizeof(*heap));
	size_t nh = 0;
	int err = 0;

	if (!src || !heap) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		src[i].in = in[i];
		src[i].pid = pids[i];
		err = ff_next(&src[i]);
		if (err < 0) {
			*bad_file = i;
			*bad_line = src[i].lineno;
			goto out;
		}
		if (err)
			heap[nh++] = &src[i];
		err = 0;
	}
	for (size_t i = nh / 2; i-- > 0;)
		ff_sift_down(heap, nh, i);
	while (nh) {
		struct ff_src *s = heap[0];

		if (fprintf(out, "%u %s", s->pid, s->line) < 0) {
			err = -EIO;
			goto out;
		}
		if (s->line[strlen(s->line) - 1] != '\n' && fputc('\n', out) == EOF) {
			err = -EIO;
			goto out;
		}
		err = ff_next(s);
		if (err < 0) {
			*bad_file = (size_t)(s - src);
			*bad_line = s->lineno;
			goto out;
		}
		if (!err)
			heap[0] = heap[--nh];
		err = 0;
		ff_sift_down(heap, nh, 0);
	}
	if (fflush(out))
		err = -EIO;
out:
	for (size_t i = 0; src && i < n; i++)
		free(src[i].line);
	free(src);
	free(heap);
	return err;
}
