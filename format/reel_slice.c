/* SPDX-License-Identifier: MIT */
/*
 * reel_slice.c - a time window of a trace as a trace of its own, replayable as if the
 * recorder had attached at the window's start and stopped at its end.
 *
 * An op belongs to the window when it started in it. What the ops before the window leave
 * behind is what a recorder attaching with -p finds and writes in the head: the files the
 * processes hold open (capture.fd_flags with O_DIRECT / O_DSYNC / O_SYNC, capture.fd_sizes
 * with each file's size then), so that the replay opens those fds as the application had
 * them and prepares their files as long as they were. An async request goes with its
 * submission: its completion record starts at the submission (FORMAT.md), so a request
 * submitted in the window is kept whole, and one submitted before it is left out whole.
 *
 * Two passes over the input: the first learns that state (the head meta must be written
 * before the first op), the second copies the window. Memory grows with the fds and files,
 * never with the ops.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reel_convert.h"
#include "reel_cvt_util.h"

/* the open flags that change what an fd's I/O costs: those a replay reopens it with */
#define SLICE_FD_OFLAGS (O_DIRECT | O_DSYNC | O_SYNC)
#define SLICE_SIZE_UNKNOWN UINT64_MAX
#define FALLOC_KEEP_SIZE 0x01
#define FALLOC_COLLAPSE_RANGE 0x08
#define FALLOC_INSERT_RANGE 0x20

/* An fd open at the window's start, as the value of fds: path id and open flags. */
static uint64_t fd_val(uint32_t path, uint32_t flags)
{
	return (uint64_t)path << 32 | (flags & SLICE_FD_OFLAGS);
}

struct slice_state {
	const struct reel_slice_opts *o;
	struct cvt_map fds;	 /* (pid, fd) -> fd_val: open at the window's start */
	struct cvt_map used;	 /* (pid, fd) -> 1: used by an op in the window */
	struct cvt_map sizes;	 /* path id -> size at the window's start (lower bound) */
	struct cvt_map presize;	 /* (pid, fd) -> size + 1: the input's capture.fd_sizes, while
				    the fd stays open and no op has named its file */
	struct cvt_map wpath;	 /* input path id -> output path id */
};

static int in_window(const struct reel_slice_opts *o, const struct reel_op *op)
{
	return op->start_ns >= o->from_ns && op->start_ns < o->to_ns;
}

static int is_open(unsigned type)
{
	return type == REEL_OP_OPEN || type == REEL_OP_OPENAT || type == REEL_OP_OPENAT2 ||
	       type == REEL_OP_CREAT;
}

static int is_dup(unsigned type)
{
	return type == REEL_OP_DUP || type == REEL_OP_DUP2 || type == REEL_OP_DUP3 ||
	       type == REEL_OP_FCNTL_DUPFD;
}

/* ---- pass 1: the state the ops before the window leave ---- */

static int size__set(struct slice_state *s, uint32_t path, uint64_t size)
{
	uint64_t *v;

	if (!path)
		return 0;
	v = cvt_map__put(&s->sizes, path, NULL);
	if (!v)
		return -ENOMEM;
	*v = size;
	return 0;
}

/* The file reaches at least end: known sizes grow, unknown ones get a lower bound. */
static int size__reach(struct slice_state *s, uint32_t path, uint64_t end)
{
	uint64_t *v;
	int created = 0;

	if (!path)
		return 0;
	v = cvt_map__put(&s->sizes, path, &created);
	if (!v)
		return -ENOMEM;
	if (created || *v == SLICE_SIZE_UNKNOWN || end > *v)
		*v = end;
	return 0;
}

static int state__sizes(struct slice_state *s, const struct reel_op *op)
{
	uint64_t *v;

	if (op->ret < 0)
		return 0;
	if (is_open(op->type))
		return op->aux ? size__set(s, op->path, op->aux - 1) : 0;
	switch (cvt_op_dir(op, 0)) {
	case 'w':
		return op->ret > 0 ? size__reach(s, op->path, op->offset + (uint64_t)op->ret) : 0;
	default:
		break;
	}
	switch (op->type) {
	case REEL_OP_TRUNCATE:
	case REEL_OP_FTRUNCATE:
		return size__set(s, op->path, op->len);
	case REEL_OP_FALLOCATE:
		v = op->path ? cvt_map__get(&s->sizes, op->path) : NULL;
		if (op->mode & FALLOC_KEEP_SIZE)
			return 0;
		if (op->mode & (FALLOC_COLLAPSE_RANGE | FALLOC_INSERT_RANGE)) {
			if (v && *v != SLICE_SIZE_UNKNOWN)
				*v = op->mode & FALLOC_INSERT_RANGE ? *v + op->len
				     : *v > op->len		    ? *v - op->len
								    : 0;
			return 0;
		}
		return size__reach(s, op->path, op->offset + op->len);
	case REEL_OP_COPY_FILE_RANGE:
	case REEL_OP_SENDFILE:
		return reel_op__copy_writes(op) && op->ret > 0
			   ? size__reach(s, op->path2, op->aux + (uint64_t)op->ret)
			   : 0;
	case REEL_OP_RENAME:
	case REEL_OP_RENAMEAT:
	case REEL_OP_RENAMEAT2:
		v = op->path ? cvt_map__get(&s->sizes, op->path) : NULL;
		if (v && op->path2) {
			uint64_t size = *v;

			cvt_map__del(&s->sizes, op->path);
			return size__set(s, op->path2, size);
		}
		if (op->path2) /* replaced by a file of unknown size */
			cvt_map__del(&s->sizes, op->path2);
		return 0;
	case REEL_OP_UNLINK:
	case REEL_OP_UNLINKAT:
		if (op->path)
			cvt_map__del(&s->sizes, op->path);
		return 0;
	default:
		return 0;
	}
}

/* a regular file, or not known not to be one (an import may not know) */
static int maybe_file(const struct reel_op *op)
{
	return op->fd_kind == REEL_FD_REG || op->fd_kind == REEL_FD_UNKNOWN;
}

static int state__fds(struct slice_state *s, const struct reel_op *op)
{
	uint64_t *v;

	if ((is_open(op->type) || is_dup(op->type)) && op->ret >= 0)
		cvt_map__del(&s->presize, cvt_key2(op->pid, (uint32_t)op->ret));
	else if (op->type == REEL_OP_CLOSE && op->ret != -EBADF)
		cvt_map__del(&s->presize, cvt_key2(op->pid, (uint32_t)op->fd));

	if (is_open(op->type) && op->ret >= 0 && maybe_file(op)) {
		v = cvt_map__put(&s->fds, cvt_key2(op->pid, (uint32_t)op->ret), NULL);
		if (!v)
			return -ENOMEM;
		*v = fd_val(op->path, op->flags);
		return 0;
	}
	if (is_open(op->type) && op->ret >= 0) /* a directory, a device: not a file to size */
		return cvt_map__del(&s->fds, cvt_key2(op->pid, (uint32_t)op->ret)), 0;
	if (is_dup(op->type) && op->ret >= 0) {
		uint64_t *old = cvt_map__get(&s->fds, cvt_key2(op->pid, (uint32_t)op->fd));
		uint64_t val = old ? *old : 0;

		if (!old) {
			cvt_map__del(&s->fds, cvt_key2(op->pid, (uint32_t)op->ret));
			return 0;
		}
		v = cvt_map__put(&s->fds, cvt_key2(op->pid, (uint32_t)op->ret), NULL);
		if (!v)
			return -ENOMEM;
		*v = val;
		return 0;
	}
	if (op->type == REEL_OP_CLOSE && op->ret != -EBADF) {
		cvt_map__del(&s->fds, cvt_key2(op->pid, (uint32_t)op->fd));
		return 0;
	}
	/* an fd used before any open of it: held from before the capture (or inherited) */
	if (op->fd >= 0 && op->path && maybe_file(op) && !reel_op__has_path(op->type) &&
	    !cvt_map__get(&s->fds, cvt_key2(op->pid, (uint32_t)op->fd))) {
		v = cvt_map__put(&s->fds, cvt_key2(op->pid, (uint32_t)op->fd), NULL);
		if (!v)
			return -ENOMEM;
		*v = fd_val(op->path, 0);
	}
	return 0;
}

/* The fds an op in the window uses (the copies' second one too). */
static int state__mark_used(struct slice_state *s, const struct reel_op *op)
{
	int32_t fds[2] = {op->fd, reel_op__is_copy(op->type) || is_dup(op->type) ? op->fd2 : -1};

	for (int i = 0; i < 2; i++) {
		if (fds[i] < 0)
			continue;
		if (!cvt_map__put(&s->used, cvt_key2(op->pid, (uint32_t)fds[i]), NULL))
			return -ENOMEM;
	}
	return 0;
}

/*
 * The input's own list of fds open before its capture ("PID:FD:N ...", N in base) into m,
 * keyed (pid, fd): with flags (capture.fd_flags), the value is an fd's (fd_val); else
 * (capture.fd_sizes) the size + 1.
 */
static int state__load_fd_list(struct cvt_map *m, const char *list, int flags)
{
	while (list && *list) {
		char *end;
		unsigned long pid = strtoul(list, &end, 10), fd, n;
		uint64_t *v;

		if (*end != ':')
			break;
		fd = strtoul(end + 1, &end, 10);
		if (*end != ':')
			break;
		n = strtoul(end + 1, &end, flags ? 8 : 10);
		v = cvt_map__put(m, cvt_key2((uint32_t)pid, (uint32_t)fd), NULL);
		if (!v)
			return -ENOMEM;
		*v = flags ? fd_val(0, (uint32_t)n) : n + 1;
		list = end + strspn(end, " ");
	}
	return 0;
}

static void damage__note(struct reel_reader *r, struct reel_slice_result *res)
{
	res->damaged++;
	reel_reader__damage_sum(r, &res->damage);
}

static int slice__learn(struct slice_state *s, struct reel_reader *r,
			struct reel_slice_result *res)
{
	struct reel_op op;
	uint64_t key, val;
	int n, err = 0;

	err = state__load_fd_list(&s->fds, reel_reader__meta(r, REEL_META_CAPTURE_FD_FLAGS), 1);
	err = err ?: state__load_fd_list(&s->presize,
					 reel_reader__meta(r, REEL_META_CAPTURE_FD_SIZES), 0);
	for (size_t i = 0; !err && cvt_map__next(&s->presize, &i, &key, &val);)
		if (!cvt_map__put(&s->fds, key, NULL)) /* a sized fd without flags: 0 */
			err = -ENOMEM;
	while (!err && (n = reel_reader__next(r, &op)) != 0) {
		uint64_t *v, *pv;

		if (n < 0) {
			damage__note(r, res);
			continue;
		}
		res->ops_in++;
		if (op.start_ns > res->last_start_ns)
			res->last_start_ns = op.start_ns;
		if (in_window(s->o, &op)) {
			err = state__mark_used(s, &op);
			continue;
		}
		if (op.start_ns >= s->o->to_ns)
			continue;
		/* before the window: the first op naming a pre-capture fd's file sizes it */
		pv = op.fd >= 0 && op.path && !reel_op__has_path(op.type)
			 ? cvt_map__get(&s->presize, cvt_key2(op.pid, (uint32_t)op.fd))
			 : NULL;
		if (pv) {
			if (!cvt_map__get(&s->sizes, op.path))
				err = size__set(s, op.path, *pv - 1);
			cvt_map__del(&s->presize, cvt_key2(op.pid, (uint32_t)op.fd));
		}
		v = op.fd >= 0 ? cvt_map__get(&s->fds, cvt_key2(op.pid, (uint32_t)op.fd)) : NULL;
		if (v && !(*v >> 32) && op.path && !reel_op__has_path(op.type))
			*v |= (uint64_t)op.path << 32; /* a listed fd: its file, now known */
		err = err ?: state__fds(s, &op);
		err = err ?: state__sizes(s, &op);
	}
	return err;
}

/* ---- the head meta ---- */

/* Appends "PID:FD:N" to a growing space-separated list. */
static int list__add(char **buf, size_t *len, size_t *cap, uint64_t key, uint64_t n, int octal)
{
	char item[80];
	int k = snprintf(item, sizeof(item), octal ? "%s%u:%u:%" PRIo64 : "%s%u:%u:%" PRIu64,
			 *len ? " " : "", (unsigned)(key >> 32), (unsigned)(uint32_t)key, n);

	if (*len + (size_t)k + 1 > *cap) {
		size_t c = *cap ? *cap * 2 : 256;
		char *b;

		while (c < *len + (size_t)k + 1)
			c *= 2;
		b = realloc(*buf, c);
		if (!b)
			return -ENOMEM;
		*buf = b;
		*cap = c;
	}
	memcpy(*buf + *len, item, (size_t)k + 1);
	*len += (size_t)k;
	return 0;
}

static int meta__u64(struct reel_writer *w, const char *key, uint64_t v)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	return reel_writer__meta(w, key, num);
}

/*
 * The input's meta (counts such as lost_events describe the whole capture: they cannot be
 * split by time), time 0 moved to the window's start, the fds open then with their flags
 * and sizes, and where the slice came from.
 */
static int slice__head(struct slice_state *s, struct reel_reader *r, struct reel_writer *w,
		       struct reel_slice_result *res)
{
	const char *keys[] = {REEL_META_START_WALL_NS, REEL_META_START_MONO_NS};
	char *flags = NULL, *sizes = NULL;
	size_t flen = 0, fcap = 0, slen = 0, scap = 0;
	uint64_t key, val;
	int err = 0;

	for (size_t i = 0; !err && i < reel_reader__meta_count(r); i++) {
		const char *k, *v;

		reel_reader__meta_at(r, i, &k, &v);
		err = reel_writer__meta(w, k, v);
	}
	for (size_t i = 0; !err && i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = reel_reader__meta(r, keys[i]);

		if (v)
			err = meta__u64(w, keys[i], strtoull(v, NULL, 10) + s->o->from_ns);
	}
	for (size_t i = 0; !err && cvt_map__next(&s->fds, &i, &key, &val);) {
		uint64_t *size = val >> 32 ? cvt_map__get(&s->sizes, val >> 32) : NULL;
		uint64_t *listed = cvt_map__get(&s->presize, key);

		if (!cvt_map__get(&s->used, key))
			continue;
		res->fds_carried++;
		if (val & SLICE_FD_OFLAGS)
			err = list__add(&flags, &flen, &fcap, key, val & SLICE_FD_OFLAGS, 1);
		if (!err && size && *size != SLICE_SIZE_UNKNOWN)
			err = list__add(&sizes, &slen, &scap, key, *size, 0);
		else if (!err && listed) /* its file not named before the window */
			err = list__add(&sizes, &slen, &scap, key, *listed - 1, 0);
	}
	/* last value wins: these replace the input's lists of its own capture's start (empty
	 * when none of those fds is left; absent when there never was one) */
	if (!err && (flags || reel_reader__meta(r, REEL_META_CAPTURE_FD_FLAGS)))
		err = reel_writer__meta(w, REEL_META_CAPTURE_FD_FLAGS, flags ? flags : "");
	if (!err && (sizes || reel_reader__meta(r, REEL_META_CAPTURE_FD_SIZES)))
		err = reel_writer__meta(w, REEL_META_CAPTURE_FD_SIZES, sizes ? sizes : "");
	free(flags);
	free(sizes);
	err = err ?: reel_writer__meta(w, REEL_META_SLICE_OF, s->o->source ? s->o->source : "");
	err = err ?: meta__u64(w, REEL_META_SLICE_FROM_NS, s->o->from_ns);
	err = err ?: meta__u64(w, REEL_META_SLICE_TO_NS, s->o->to_ns);
	return err;
}

/* ---- pass 2: the window's ops ---- */

static int slice__path(struct slice_state *s, struct reel_reader *r, struct reel_writer *w,
		       uint32_t *id)
{
	uint64_t *v;
	const char *p;
	uint32_t out;
	int err;

	if (!*id)
		return 0;
	v = cvt_map__get(&s->wpath, *id);
	if (v) {
		*id = (uint32_t)*v;
		return 0;
	}
	p = reel_reader__path(r, *id);
	if (!p) { /* the input named a path it never defined: damage it survived */
		*id = 0;
		return 0;
	}
	err = reel_writer__path(w, p, &out);
	if (err)
		return err;
	v = cvt_map__put(&s->wpath, *id, NULL);
	if (!v)
		return -ENOMEM;
	*v = out;
	*id = out;
	return 0;
}

static int slice__copy(struct slice_state *s, struct reel_reader *r, struct reel_writer *w,
		       struct reel_slice_result *res)
{
	struct reel_op op;
	int n, err = 0;

	while (!err && (n = reel_reader__next(r, &op)) != 0) {
		if (n < 0) {
			damage__note(r, res);
			continue;
		}
		if (!in_window(s->o, &op))
			continue;
		err = slice__path(s, r, w, &op.path);
		err = err ?: slice__path(s, r, w, &op.path2);
		if (err)
			break;
		op.start_ns -= s->o->from_ns;
		op.end_ns = op.end_ns > s->o->from_ns ? op.end_ns - s->o->from_ns : 0;
		if (op.sched_ns)
			op.sched_ns = op.sched_ns > s->o->from_ns ? op.sched_ns - s->o->from_ns : 0;
		err = reel_writer__add(w, &op);
		res->ops_out++;
	}
	return err;
}

int reel_slice__run(const char *trace, struct reel_writer *w, const struct reel_slice_opts *o,
		    struct reel_slice_result *res)
{
	struct slice_state s = {.o = o};
	struct reel_reader *r = NULL;
	uint64_t damaged;
	int err;

	memset(res, 0, sizeof(*res));
	if (o->from_ns >= o->to_ns)
		return -EINVAL;
	cvt_map__init(&s.fds);
	cvt_map__init(&s.used);
	cvt_map__init(&s.sizes);
	cvt_map__init(&s.presize);
	cvt_map__init(&s.wpath);
	err = reel_reader__open(trace, &r);
	if (!err) {
		err = slice__learn(&s, r, res);
		reel_reader__close(r);
		r = NULL;
	}
	/* the second pass meets the same damage: counted once, with its own summary */
	damaged = res->damaged;
	res->damaged = 0;
	err = err ?: reel_reader__open(trace, &r);
	err = err ?: slice__head(&s, r, w, res);
	err = err ?: slice__copy(&s, r, w, res);
	if (!res->damaged)
		res->damaged = damaged;
	reel_reader__close(r);
	cvt_map__free(&s.fds);
	cvt_map__free(&s.used);
	cvt_map__free(&s.sizes);
	cvt_map__free(&s.presize);
	cvt_map__free(&s.wpath);
	return err;
}
