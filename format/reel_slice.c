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
#define FALLOC_KEEP_SIZE 0x01
#define FALLOC_COLLAPSE_RANGE 0x08
#define FALLOC_INSERT_RANGE 0x20
#define SLICE_RENAME_EXCHANGE 0x2

#define FD_KEY(pid, fd) cvt_key2((pid), (uint32_t)(fd))

/* An fd open at the window's start: its file's name now, and its open flags that count. */
struct slice_fd {
	char *name; /* NULL: not known */
	uint32_t flags;
};

struct slice_state {
	const struct reel_slice_opts *o;
	struct reel_reader *r;	/* pass 1's: path ids to names */
	struct cvt_map fds;	/* (pid, fd) -> struct slice_fd *: open at the window's start */
	struct cvt_map used;	/* (pid, fd) -> 1: used by an op in the window */
	struct cvt_map sizes;	/* name_key -> size at the window's start (a lower bound) */
	struct cvt_map presize; /* (pid, fd) -> size + 1: the input's capture.fd_sizes, while
				   the fd stays open and no op has named its file */
	struct cvt_map wpath;	/* input path id -> output path id */
	/* pass 1: the input's damage, for the head meta (slice.source_*) */
	uint64_t src_regions;
	struct reel_damage_sum src_damage;
	uint64_t window_lost; /* lost ops that may have started in the window, or unknown */
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

/* a regular file, or not known not to be one (an import may not know) */
static int maybe_file(const struct reel_op *op)
{
	return op->fd_kind == REEL_FD_REG || op->fd_kind == REEL_FD_UNKNOWN;
}

/*
 * Sizes are kept by name, not by path id: a directory renamed moves the files below it to
 * names the trace may never spell out, and an fd open on one of them must still find its
 * size under the new name. FNV-1a, 64 bits: a collision among a trace's names is unlikely
 * enough (2^-64 a pair) to cost at worst one file's prepared size.
 */
static uint64_t name_key(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 0x100000001b3ULL;
	return h ? h : 1;
}

static const char *name_of(const struct slice_state *s, uint32_t id)
{
	return id ? reel_reader__path(s->r, id) : NULL;
}

/* ---- pass 1: the state the ops before the window leave ---- */

static int size__set(struct slice_state *s, const char *name, uint64_t size)
{
	uint64_t *v;

	if (!name)
		return 0;
	v = cvt_map__put(&s->sizes, name_key(name), NULL);
	if (!v)
		return -ENOMEM;
	*v = size;
	return 0;
}

/* The file reaches at least end: a known size grows, an unknown one gets a lower bound. */
static int size__reach(struct slice_state *s, const char *name, uint64_t end)
{
	uint64_t *v;
	int created = 0;

	if (!name)
		return 0;
	v = cvt_map__put(&s->sizes, name_key(name), &created);
	if (!v)
		return -ENOMEM;
	if (created || end > *v)
		*v = end;
	return 0;
}

/* The file called from is called to now; to's former file, if any, is gone (or, with
 * exchange, called from). */
static int size__move(struct slice_state *s, const char *from, const char *to, int exchange)
{
	uint64_t *vf = cvt_map__get(&s->sizes, name_key(from));
	uint64_t *vt = cvt_map__get(&s->sizes, name_key(to));
	uint64_t sf = vf ? *vf : 0, st = vt ? *vt : 0;
	int had_f = vf != NULL, had_t = vt != NULL, err = 0;

	cvt_map__del(&s->sizes, name_key(from));
	cvt_map__del(&s->sizes, name_key(to));
	if (had_f)
		err = size__set(s, to, sf);
	if (!err && exchange && had_t)
		err = size__set(s, from, st);
	return err;
}

/* name with its leading old replaced by new, when name is old or below it; else NULL */
static char *name_moved(const char *name, const char *old, const char *new)
{
	size_t n = strlen(old);
	char *out;

	if (strncmp(name, old, n) || (name[n] && name[n] != '/'))
		return NULL;
	out = malloc(strlen(new) + strlen(name + n) + 1);
	if (out)
		strcat(strcpy(out, new), name + n);
	return out;
}

/*
 * A rename of old to new (a file, or a directory with files below it): the open fds follow
 * their files, and so do those files' sizes. With RENAME_EXCHANGE the two swap.
 */
static int state__rename(struct slice_state *s, const char *old, const char *new, int exchange)
{
	uint64_t key, val;
	int err = size__move(s, old, new, exchange);

	for (size_t i = 0; !err && cvt_map__next(&s->fds, &i, &key, &val);) {
		struct slice_fd *f = (struct slice_fd *)(uintptr_t)val;
		char *moved;
		int below;

		if (!f->name)
			continue;
		errno = 0; /* name_moved's NULL: not below, or (ENOMEM) no memory */
		moved = name_moved(f->name, old, new);
		if (!moved && exchange)
			moved = name_moved(f->name, new, old);
		if (!moved) {
			if (errno == ENOMEM)
				err = -ENOMEM;
			continue;
		}
		below = strcmp(f->name, old) && strcmp(f->name, new);
		/* moved by a directory above: its file's size goes with it (once: another fd
		 * on the same file finds it moved already) */
		if (below && cvt_map__get(&s->sizes, name_key(f->name)))
			err = size__move(s, f->name, moved, 0);
		free(f->name);
		f->name = moved;
	}
	return err;
}

static int state__sizes(struct slice_state *s, const struct reel_op *op)
{
	const char *name = name_of(s, op->path);
	uint64_t *v;

	if (op->ret < 0)
		return 0;
	if (is_open(op->type) && op->aux)
		return size__set(s, name, op->aux - 1);
	if (is_open(op->type)) /* size unknown (an import): O_TRUNC empties the file still */
		return op->flags & O_TRUNC && (op->flags & O_ACCMODE) != O_RDONLY
			   ? size__set(s, name, 0)
			   : 0;
	if (cvt_op_dir(op, 0) == 'w')
		return op->ret > 0 ? size__reach(s, name, op->offset + (uint64_t)op->ret) : 0;
	switch (op->type) {
	case REEL_OP_TRUNCATE:
	case REEL_OP_FTRUNCATE:
		return size__set(s, name, op->len);
	case REEL_OP_FALLOCATE:
		if (op->mode & FALLOC_KEEP_SIZE)
			return 0;
		if (op->mode & (FALLOC_COLLAPSE_RANGE | FALLOC_INSERT_RANGE)) {
			v = name ? cvt_map__get(&s->sizes, name_key(name)) : NULL;
			if (v)
				*v = op->mode & FALLOC_INSERT_RANGE ? *v + op->len
				     : *v > op->len		    ? *v - op->len
								    : 0;
			return 0;
		}
		return size__reach(s, name, op->offset + op->len);
	case REEL_OP_COPY_FILE_RANGE:
	case REEL_OP_SENDFILE:
		return reel_op__copy_writes(op) && op->ret > 0
			   ? size__reach(s, name_of(s, op->path2), op->aux + (uint64_t)op->ret)
			   : 0;
	case REEL_OP_RENAME:
	case REEL_OP_RENAMEAT:
	case REEL_OP_RENAMEAT2:
		return name && name_of(s, op->path2)
			   ? state__rename(s, name, name_of(s, op->path2),
					   op->type == REEL_OP_RENAMEAT2 &&
					       op->flags & SLICE_RENAME_EXCHANGE)
			   : 0;
	case REEL_OP_UNLINK:
	case REEL_OP_UNLINKAT:
		if (name)
			cvt_map__del(&s->sizes, name_key(name));
		return 0;
	default:
		return 0;
	}
}

/* ---- the fds open at the window's start ---- */

static void fd__del(struct slice_state *s, uint64_t key)
{
	uint64_t *v = cvt_map__get(&s->fds, key);

	if (!v)
		return;
	free(((struct slice_fd *)(uintptr_t)*v)->name);
	free((void *)(uintptr_t)*v);
	cvt_map__del(&s->fds, key);
}

/* (pid, fd) is open on the file called name (NULL: unknown) with flags. */
static int fd__set(struct slice_state *s, uint64_t key, const char *name, uint32_t flags)
{
	struct slice_fd *f = calloc(1, sizeof(*f));
	uint64_t *v;

	if (!f || (name && !(f->name = strdup(name)))) {
		free(f);
		return -ENOMEM;
	}
	f->flags = flags & SLICE_FD_OFLAGS;
	fd__del(s, key);
	v = cvt_map__put(&s->fds, key, NULL);
	if (!v) {
		free(f->name);
		free(f);
		return -ENOMEM;
	}
	*v = (uintptr_t)f;
	return 0;
}

static struct slice_fd *fd__get(const struct slice_state *s, uint64_t key)
{
	uint64_t *v = cvt_map__get(&s->fds, key);

	return v ? (struct slice_fd *)(uintptr_t)*v : NULL;
}

/*
 * A fork (format 1.4): the child holds its parent's fds, which a window that starts after it
 * finds open in the child; an exit: the process holds none. (An execve's close-on-exec fds
 * are not known here: kept, they are only opened by a replay that uses them.)
 */
static int state__proc(struct slice_state *s, const struct reel_op *op)
{
	uint64_t k, v, *keys = NULL;
	size_t i = 0, n = 0, cap = 0;
	int err = 0;

	if (op->type == REEL_OP_FORK && (op->ret <= 0 || op->ret > UINT32_MAX))
		return 0;
	/* the keys first: the map may grow (and move) as the child's are added */
	while (cvt_map__next(&s->fds, &i, &k, &v)) {
		if (k >> 32 != op->pid)
			continue;
		if (n == cap) {
			uint64_t *nk = realloc(keys, (cap = cap ? 2 * cap : 16) * sizeof(*keys));

			if (!nk) {
				free(keys);
				return -ENOMEM;
			}
			keys = nk;
		}
		keys[n++] = k;
	}
	for (i = 0; i < n && !err; i++) {
		struct slice_fd *f = fd__get(s, keys[i]);

		if (op->type == REEL_OP_EXIT)
			fd__del(s, keys[i]);
		else if (op->type == REEL_OP_FORK && f)
			err = fd__set(s, FD_KEY((uint32_t)op->ret, (uint32_t)keys[i]), f->name,
				      f->flags);
	}
	free(keys);
	return err;
}

static int state__fds(struct slice_state *s, const struct reel_op *op)
{
	uint64_t key = FD_KEY(op->pid, op->fd);
	struct slice_fd *f;

	if (op->type == REEL_OP_FORK || op->type == REEL_OP_EXIT)
		return state__proc(s, op);

	if ((is_open(op->type) || is_dup(op->type)) && op->ret >= 0)
		cvt_map__del(&s->presize, FD_KEY(op->pid, op->ret));
	else if (op->type == REEL_OP_CLOSE && op->ret != -EBADF)
		cvt_map__del(&s->presize, key);

	if (is_open(op->type) && op->ret >= 0) {
		if (!maybe_file(op)) { /* a directory, a device: not a file to size */
			fd__del(s, FD_KEY(op->pid, op->ret));
			return 0;
		}
		return fd__set(s, FD_KEY(op->pid, op->ret), name_of(s, op->path), op->flags);
	}
	if (is_dup(op->type) && op->ret >= 0) {
		f = fd__get(s, key);
		if (!f) {
			fd__del(s, FD_KEY(op->pid, op->ret));
			return 0;
		}
		return fd__set(s, FD_KEY(op->pid, op->ret), f->name, f->flags);
	}
	if (op->type == REEL_OP_CLOSE) {
		if (op->ret != -EBADF)
			fd__del(s, key);
		return 0;
	}
	if (op->fd < 0 || !op->path || reel_op__has_path(op->type))
		return 0;
	/* an op on an fd names its file as it is called now: an fd used before any open of it
	 * (held from before the capture, or inherited) is learnt so; a known one follows the
	 * name the recorder saw (it may know of a rename this pass did not) */
	f = fd__get(s, key);
	if (!f)
		return maybe_file(op) ? fd__set(s, key, name_of(s, op->path), 0) : 0;
	if (!f->name || strcmp(f->name, name_of(s, op->path))) {
		char *name = strdup(name_of(s, op->path));

		if (!name)
			return -ENOMEM;
		free(f->name);
		f->name = name;
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
		if (!cvt_map__put(&s->used, FD_KEY(op->pid, fds[i]), NULL))
			return -ENOMEM;
	}
	return 0;
}

/*
 * The input's own list of fds open before its capture ("PID:FD:N ..."): with
 * flags (capture.fd_flags), each becomes an fd of unknown name; else (capture.fd_sizes) its
 * size + 1 goes into presize, and the fd is made known too.
 */
static int state__load_fd_list(struct slice_state *s, const char *list, int flags)
{
	uint32_t pid, fd;
	uint64_t n;

	while (reel_meta__fd_entry(&list, &pid, &fd, &n, flags ? 8 : 10)) {
		uint64_t key = FD_KEY(pid, fd), *v;
		int err = 0;

		if (flags) {
			err = fd__set(s, key, NULL, (uint32_t)n);
		} else {
			v = cvt_map__put(&s->presize, key, NULL);
			if (!v)
				return -ENOMEM;
			*v = n + 1;
			if (!fd__get(s, key))
				err = fd__set(s, key, NULL, 0);
		}
		if (err)
			return err;
	}
	return 0;
}

static void damage__note(struct reel_reader *r, struct reel_slice_result *res)
{
	res->damaged++;
	reel_reader__damage_sum(r, &res->damage);
}

/*
 * Pass 1's damage: what each region lost and whether those ops may have started in the
 * window (the footer's index gives the lost chunks' times; without it nobody can tell).
 */
static void damage__learn(struct slice_state *s, struct reel_reader *r,
			  struct reel_slice_result *res)
{
	struct reel_damage d;
	uint64_t n = 0;

	damage__note(r, res);
	s->src_regions++;
	reel_reader__damage(r, &d);
	if (!(d.lost & REEL_LOST_OPS))
		return;
	if (d.ops_lost == REEL_OPS_UNKNOWN || !d.times_known)
		n = REEL_OPS_UNKNOWN;
	else if (d.lost_first_ns < s->o->to_ns && d.lost_last_ns >= s->o->from_ns)
		n = d.ops_lost;
	if (n == REEL_OPS_UNKNOWN || s->window_lost == REEL_OPS_UNKNOWN)
		s->window_lost = REEL_OPS_UNKNOWN;
	else
		s->window_lost += n;
}

/*
 * The regions' window count against the footer's exact total: no more than were lost, and
 * unknown when more were lost than the regions held (a chunk gone whole, its times unknown).
 */
static uint64_t window_recount(const struct reel_damage_sum *d, uint64_t window)
{
	uint64_t lost = d->lost & REEL_LOST_OPS ? d->ops_lost : 0;

	if (d->footer_ops == REEL_OPS_UNKNOWN || d->region_ops == REEL_OPS_UNKNOWN)
		return window;
	if (lost > d->region_ops)
		return REEL_OPS_UNKNOWN;
	return window != REEL_OPS_UNKNOWN && window > lost ? lost : window;
}

static int slice__learn(struct slice_state *s, struct reel_reader *r, struct reel_slice_result *res)
{
	struct reel_op op;
	int n, err;

	s->r = r;
	err = state__load_fd_list(s, reel_reader__meta(r, REEL_META_CAPTURE_FD_FLAGS), 1);
	err = err ?: state__load_fd_list(s, reel_reader__meta(r, REEL_META_CAPTURE_FD_SIZES), 0);
	while (!err && (n = reel_reader__next(r, &op)) != 0) {
		uint64_t *pv;

		if (n < 0) {
			damage__learn(s, r, res);
			continue;
		}
		res->ops_in++;
		if (op.start_ns > res->last_start_ns)
			res->last_start_ns = op.start_ns;
		if (op.start_ns < res->first_start_ns || res->ops_in == 1)
			res->first_start_ns = op.start_ns;
		if (in_window(s->o, &op)) {
			res->ops_window++;
			err = state__mark_used(s, &op);
			continue;
		}
		if (op.start_ns >= s->o->to_ns)
			continue;
		/* before the window: the first op naming a listed fd's file sizes it */
		pv = op.fd >= 0 && op.path && !reel_op__has_path(op.type)
			 ? cvt_map__get(&s->presize, FD_KEY(op.pid, op.fd))
			 : NULL;
		if (pv) {
			if (!cvt_map__get(&s->sizes, name_key(name_of(s, op.path))))
				err = size__set(s, name_of(s, op.path), *pv - 1);
			cvt_map__del(&s->presize, FD_KEY(op.pid, op.fd));
		}
		err = err ?: state__fds(s, &op);
		err = err ?: state__sizes(s, &op);
	}
	reel_reader__damage_sum(r, &s->src_damage); /* exact now: the reading is over */
	res->damage = s->src_damage;
	res->window_ops_lost = window_recount(&s->src_damage, s->window_lost);
	s->r = NULL;
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
 * The input was damaged: the slice is whole as a file but lacks what the damage lost, which
 * no reader of the slice could tell otherwise (its footer counts only the ops it holds).
 */
static int slice__damage_meta(struct slice_state *s, struct reel_writer *w)
{
	const struct reel_damage_sum *d = &s->src_damage;
	int ops = (d->lost & REEL_LOST_OPS) != 0;
	uint64_t lost = ops ? d->ops_lost : 0, win = ops ? s->window_lost : 0;
	char what[256], inwin[128], words[768];
	int err;

	if (win == REEL_OPS_UNKNOWN)
		snprintf(inwin, sizeof(inwin), "how many of them started in the window is unknown");
	else if (win)
		snprintf(inwin, sizeof(inwin), "up to %" PRIu64 " of them started in the window",
			 win);
	else
		snprintf(inwin, sizeof(inwin), "none of them in the window");
	snprintf(words, sizeof(words), "%" PRIu64 " damaged region%s from byte %" PRIu64 " of %s: %s%s%s",
		 s->src_regions, s->src_regions == 1 ? "" : "s", d->first_offset,
		 s->o->source && *s->o->source ? s->o->source : "the trace sliced",
		 reel_damage_sum__describe(d, what, sizeof(what)), ops ? "; " : "", ops ? inwin : "");
	err = reel_writer__meta(w, REEL_META_SLICE_SOURCE_DAMAGE, words);
	if (!err && lost == REEL_OPS_UNKNOWN)
		err = reel_writer__meta(w, REEL_META_SLICE_SOURCE_OPS_LOST, "unknown");
	else if (!err)
		err = meta__u64(w, REEL_META_SLICE_SOURCE_OPS_LOST, lost);
	if (!err && win == REEL_OPS_UNKNOWN)
		err = reel_writer__meta(w, REEL_META_SLICE_WINDOW_OPS_LOST, "unknown");
	else if (!err)
		err = meta__u64(w, REEL_META_SLICE_WINDOW_OPS_LOST, win);
	return err;
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
		const struct slice_fd *f = (const struct slice_fd *)(uintptr_t)val;
		uint64_t *size = f->name ? cvt_map__get(&s->sizes, name_key(f->name)) : NULL;
		uint64_t *listed = cvt_map__get(&s->presize, key);

		if (!cvt_map__get(&s->used, key))
			continue;
		if (size || listed || f->flags)
			res->fds_carried++;
		if (f->flags)
			err = list__add(&flags, &flen, &fcap, key, f->flags, 1);
		if (!err && size)
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
	if (!err && s->src_regions)
		err = slice__damage_meta(s, w);
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
		/* an end before the start (a damaged record) stays a time, not a wrap to 2^64 */
		op.start_ns -= s->o->from_ns;
		op.end_ns = op.end_ns > s->o->from_ns ? op.end_ns - s->o->from_ns : 0;
		if (op.sched_ns)
			op.sched_ns = op.sched_ns > s->o->from_ns ? op.sched_ns - s->o->from_ns : 0;
		err = reel_writer__add(w, &op);
		res->ops_out++;
	}
	return err;
}

struct reel_slice {
	struct slice_state s;
	struct reel_slice_opts o;
	char *path;
	uint64_t damaged; /* pass 1's damaged regions: pass 2 meets the same */
};

void reel_slice__close(struct reel_slice *sl)
{
	uint64_t key, val;

	if (!sl)
		return;
	for (size_t i = 0; cvt_map__next(&sl->s.fds, &i, &key, &val);) {
		free(((struct slice_fd *)(uintptr_t)val)->name);
		free((void *)(uintptr_t)val);
	}
	cvt_map__free(&sl->s.fds);
	cvt_map__free(&sl->s.used);
	cvt_map__free(&sl->s.sizes);
	cvt_map__free(&sl->s.presize);
	cvt_map__free(&sl->s.wpath);
	free(sl->path);
	free(sl);
}

int reel_slice__open(const char *path, const struct reel_slice_opts *o, struct reel_slice **out,
		     struct reel_slice_result *res)
{
	struct reel_slice *sl;
	struct reel_reader *r;
	int err;

	memset(res, 0, sizeof(*res));
	*out = NULL;
	if (o->from_ns >= o->to_ns)
		return -EINVAL;
	sl = calloc(1, sizeof(*sl));
	if (!sl || !(sl->path = strdup(path))) {
		free(sl);
		return -ENOMEM;
	}
	sl->o = *o;
	sl->s.o = &sl->o;
	cvt_map__init(&sl->s.fds);
	cvt_map__init(&sl->s.used);
	cvt_map__init(&sl->s.sizes);
	cvt_map__init(&sl->s.presize);
	cvt_map__init(&sl->s.wpath);
	err = reel_reader__open(path, &r);
	if (!err) {
		err = slice__learn(&sl->s, r, res);
		reel_reader__close(r);
	}
	if (err) {
		reel_slice__close(sl);
		return err;
	}
	/* an open end: the input's, so that slice.to_ns says where the slice really ends */
	if (sl->o.to_ns == UINT64_MAX && res->ops_in && res->last_start_ns >= sl->o.from_ns)
		sl->o.to_ns = res->last_start_ns + 1;
	res->to_ns = sl->o.to_ns;
	sl->damaged = res->damaged;
	*out = sl;
	return 0;
}

int reel_slice__write(struct reel_slice *sl, struct reel_writer *w, struct reel_slice_result *res)
{
	struct reel_reader *r;
	int err;

	res->damaged = 0;
	err = reel_reader__open(sl->path, &r);
	if (err)
		return err;
	err = slice__head(&sl->s, r, w, res);
	err = err ?: slice__copy(&sl->s, r, w, res);
	if (!res->damaged)
		res->damaged = sl->damaged;
	reel_reader__close(r);
	return err;
}
