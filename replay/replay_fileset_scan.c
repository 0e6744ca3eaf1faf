/* SPDX-License-Identifier: MIT */
/*
 * replay_fileset_scan.c - what each op of the trace tells of the paths it names: whether
 * each existed before the capture, as what, how large, and what the application made of it
 * (the rules: replay_fileset.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <linux/aio_abi.h>
#include <linux/falloc.h>
#include <linux/io_uring.h>

#include "replay_fileset_int.h"

struct pinfo *pinfo(struct scan *s, uint32_t id)
{
	if (!id)
		return NULL;
	if (id >= s->np) {
		uint32_t n = s->np ? s->np : 1024;
		struct pinfo *p;

		/*
		 * Past 2^31 the doubling wraps to 0 and never passes the id (a crafted trace
		 * may define one there); no table that large could be had anyway: treated as
		 * a failed allocation, the path unknown.
		 */
		if (id >= 1U << 31)
			return NULL;
		while (n <= id)
			n *= 2;
		p = realloc(s->p, n * sizeof(*p));
		if (!p)
			return NULL;
		memset(p + s->np, 0, (n - s->np) * sizeof(*p));
		s->p = p;
		s->np = n;
	}
	return &s->p[id];
}

static void set_existed(struct pinfo *pi, int kind)
{
	if (!pi)
		return;
	if (pi->state == P_UNKNOWN || pi->state == P_MAYBE)
		pi->state = P_EXISTED;
	if (kind && !pi->kind)
		pi->kind = kind;
}

static void decide(struct pinfo *pi, int ret, int kind)
{
	if (!pi || pi->state != P_UNKNOWN)
		return;
	if (ret >= 0)
		set_existed(pi, kind);
	else if (ret == -ENOENT)
		pi->state = P_ABSENT;
}

/*
 * What a stat found (FORMAT.md, "The stat family": subop, S_IFMT >> 12), as REPLAY_F_*; 0
 * when it does not say (an older trace, an import, an access check), or found a symlink
 * itself (lstat), which the file set prepares only with a content a readlink told.
 */
static int stat_kind(const struct reel_op *op)
{
	if (op->type == REEL_OP_ACCESS || op->type == REEL_OP_FACCESSAT || op->ret != 0)
		return 0;
	return op->subop == 4 ? REPLAY_F_DIR : op->subop == 8 ? REPLAY_F_FILE : 0;
}

static int is_access_check(uint16_t type)
{
	return type == REEL_OP_ACCESS || type == REEL_OP_FACCESSAT;
}

static void mark_created(struct pinfo *pi, int kind)
{
	if (!pi)
		return;
	if (!pi->remade)
		pi->pre_live = pi->state == P_EXISTED && !pi->app_owned && !pi->origin &&
			       !pi->symlink;
	pi->remade = 1;
	if (pi->state == P_UNKNOWN || pi->state == P_ABSENT)
		pi->state = P_CREATED;
	if (kind && !pi->kind)
		pi->kind = kind;
	pi->app_owned = 1;
	pi->gone = 1; /* what was there, if anything, is replaced */
	pi->origin = 0;
}

/* the path id of the file there before the capture that id names now, if it names one */
static uint32_t origin_of(struct scan *s, uint32_t id)
{
	const struct pinfo *pi = pinfo(s, id);

	if (!pi)
		return 0;
	if (pi->origin)
		return pi->origin;
	return pi->state == P_EXISTED || pi->state == P_MAYBE ? id : 0;
}

/*
 * id2 was just made (mark_created) by a rename or a link of the file origin names: what a
 * read by id2 finds is that file's, until id2 is cut, written or made anew (rustc's
 * incremental build links its cached objects into place, and the linker reads them there)
 */
static void origin__set(struct scan *s, uint32_t id2, uint32_t origin)
{
	struct pinfo *p2 = pinfo(s, id2);

	if (!p2 || !origin || origin == id2)
		return;
	p2->origin = origin;
	p2->app_owned = 0;
	p2->written = 0;
	p2->written_lo = p2->written_hwm = 0;
}

static uint64_t fdkey(uint32_t pid, int32_t fd)
{
	return (uint64_t)pid << 32 | (uint32_t)fd;
}

/*
 * Values of the fds map: the path id, O_APPEND (or FD_PREOPENED) << 32, and FDV_GEN0 for an
 * fd opened while its name still led to the file there before the capture. Made anew since
 * (renamed over, removed and created again: a log rotated under its reader), the name leads
 * to the application's file, but such an fd still reads the old one (fd__extent).
 */
#define FDV_APPEND(v) ((int)(((v) >> 32) & 3))
#define FDV_GEN0 (1ULL << 34)
/* and the link span (+ 1) of the application's symlink the fd was opened through: its reads
 * are of what that link led to, whatever stands by the name when they run (0: none, or one
 * past what the bits hold) */
#define FDV_SPAN_SHIFT 35
#define FDV_SPAN(v) ((uint32_t)((v) >> FDV_SPAN_SHIFT))
#define FDV_SPAN_MAX ((1U << (64 - FDV_SPAN_SHIFT)) - 1)

/* the object there before the capture still stands by the name: nothing the application did
 * has removed, replaced or made one by it (nor was it found absent) */
static int pre__stands(const struct pinfo *pi)
{
	return pi && !pi->gone && !pi->remade && !pi->symlink && pi->state != P_ABSENT &&
	       pi->state != P_CREATED;
}

/* the symlink the application made that stands at pi as the scan stands, NULL if none */
static struct lspan *link__now(struct scan *s, const struct pinfo *pi)
{
	return pi && pi->symlink ? &s->links[pi->lspan - 1] : NULL;
}

/* a new span by the name id, after those it had: NULL when out of memory (the link is then
 * not followed: nothing is prepared through it, as for one an op the trace lacks made) */
struct lspan *link__add(struct scan *s, uint32_t id, uint32_t content, uint64_t from)
{
	struct pinfo *pi;
	struct lspan *l;

	if (s->nlinks == s->caplinks) {
		uint32_t cap = s->caplinks ? s->caplinks * 2 : 16;

		if (cap <= s->caplinks || !(l = realloc(s->links, cap * sizeof(*l))))
			return NULL;
		s->links = l;
		s->caplinks = cap;
	}
	pi = pinfo(s, id);
	if (!pi)
		return NULL;
	l = &s->links[s->nlinks];
	*l = (struct lspan){.name = id, .content = content, .prev = pi->lspan, .from = from};
	pi->lspan = ++s->nlinks;
	return l;
}

static uint64_t name__key(const struct scan *s, uint32_t id)
{
	const char *p = reel_reader__path(s->r, id);

	return p ? replay_hash__bytes(p, strlen(p)) : 0;
}

/* the op being scanned made id a symlink with content (symlink(), a rename of one) */
static void link__make(struct scan *s, uint32_t id, uint32_t content)
{
	if (link__add(s, id, content, s->nops)) {
		s->p[id].symlink = 1;
		s->p[id].linked = 1;
		/* out of memory: what is named below it is followed as first named only */
		replay_u64map__put(&s->standing, name__key(s, id), s->p[id].lspan);
	}
}

/* the op being scanned removed or replaced the symlink the application made at id, if any:
 * the paths named below id after it are not followed through it */
static void link__end(struct scan *s, uint32_t id)
{
	struct pinfo *pi = pinfo(s, id);
	struct lspan *l = link__now(s, pi);

	if (!l)
		return;
	l->to = s->nops;
	pi->symlink = 0;
	replay_u64map__del(&s->standing, name__key(s, id));
}

/* a rename from id to id2 (both ways: an exchange): a symlink the application made moves with
 * its content, and one by id2 is replaced */
static void link__rename(struct scan *s, uint32_t id, uint32_t id2, int exchange)
{
	const struct lspan *l = link__now(s, pinfo(s, id)), *l2 = link__now(s, pinfo(s, id2));
	uint32_t c = l ? l->content : 0, c2 = l2 ? l2->content : 0;
	int had = !!l, had2 = !!l2;

	if (!id || !id2 || id == id2)
		return;
	link__end(s, id);
	link__end(s, id2);
	if (had)
		link__make(s, id2, c);
	if (exchange && had2)
		link__make(s, id, c2);
}

/* a read through op's fd, opened through a symlink the application made: what the link then
 * led to was read, up to end (1); 0 when the fd was not opened so */
static int link__read(struct scan *s, const struct reel_op *op, uint64_t end)
{
	const uint64_t *v = replay_u64map__get(&s->fds, fdkey(op->pid, op->fd));
	struct lspan *l;

	if (!v || !FDV_SPAN(*v) || FDV_SPAN(*v) > s->nlinks)
		return 0;
	l = &s->links[FDV_SPAN(*v) - 1];
	if (end > l->through)
		l->through = end;
	return 1;
}

/* path id of an fd, falling back to the path the op carries for it (fd older than capture) */
/* *append: 1 the fd was opened O_APPEND, FD_PREOPENED opened before the capture, else 0 */
#define FD_PREOPENED 2

/*
 * A use of an fd the trace did not open; at its first, by a name that was there before the
 * capture and that the application has removed or replaced since (Firebird's server unlinks its
 * lock file, then fstats and closes the fd it held): opened by that name when first used, the
 * replay would find nothing there, or the new file. Noted, to be opened before time 0.
 */
static int op__creates(const struct reel_op *op)
{
	return op->type == REEL_OP_CREAT ||
	       ((op->type == REEL_OP_OPEN || op->type == REEL_OP_OPENAT ||
		 op->type == REEL_OP_OPENAT2) &&
		(op->flags & O_CREAT));
}

/* the number of the first op of process pid (its main thread's), or of the op being scanned */
static uint64_t scan__pid_first(const struct scan *s, uint32_t pid)
{
	uint64_t *v = replay_u64map__get(&s->tidset, (uint64_t)pid << 32 | pid);

	return v ? s->tfirst[*v] : s->nops;
}

static void early__note(struct scan *s, uint32_t pid, int32_t fd, const struct pinfo *pi,
			uint32_t path)
{
	if (fd < 0 || replay_u64map__get(&s->preused, fdkey(pid, fd)) ||
	    replay_u64map__put(&s->preused, fdkey(pid, fd), 1) < 0)
		return; /* not its first use */
	if (!pi || !pi->gone || pi->state != P_EXISTED || pi->symlink)
		return;
	/*
	 * A process that began after the name was made anew got the fd from its parent, on the
	 * new file (a shell's "rm -rf d; mkdir d; cmd > d/f", cmd's stdout): opened early, its
	 * writes went to the removed file, and the readers of the new one found it empty.
	 */
	if (pi->remade_op && scan__pid_first(s, pid) > pi->remade_op)
		return;
	if (s->nearly == s->capearly) {
		size_t cap = s->capearly ? s->capearly * 2 : 16;
		uint32_t *e = realloc(s->early, cap * 3 * sizeof(*e));

		if (!e)
			return; /* opened when first used, as before */
		s->early = e;
		s->capearly = cap;
	}
	s->early[s->nearly * 3] = pid;
	s->early[s->nearly * 3 + 1] = (uint32_t)fd;
	s->early[s->nearly * 3 + 2] = path;
	s->nearly++;
}

/* the size the recorder found the file of an fd open before the capture to have, once the
 * fd's first op names its file (REEL_META_CAPTURE_FD_SIZES) */
static void presize__take(struct scan *s, uint32_t pid, int32_t fd, struct pinfo *pi)
{
	uint64_t *v = replay_u64map__get(&s->presize, fdkey(pid, fd));

	if (!v)
		return;
	if (pi)
		pi->sized = 1;
	if (pi && *v > pi->presize)
		pi->presize = *v;
	replay_u64map__del(&s->presize, fdkey(pid, fd));
}

static uint32_t fd_path_of(struct scan *s, uint32_t pid, int32_t fd, uint32_t path, int *append)
{
	uint64_t *v = replay_u64map__get(&s->fds, fdkey(pid, fd));

	*append = 0;
	if (v) {
		*append = FDV_APPEND(*v);
		if (!path && (uint32_t)*v)
			s->fs->unnamed_fd_ops = 1;
		return (uint32_t)*v;
	}
	if (path) {
		struct pinfo *pi = pinfo(s, path);

		set_existed(pi, 0);
		early__note(s, pid, fd, pi, path);
		presize__take(s, pid, fd, pi);
		*append = FD_PREOPENED;
		return path;
	}
	return 0;
}

/* what the op's fd is, as the recorder found it: REPLAY_F_DIR, REPLAY_F_FILE, or 0 */
static int fd_kind_of(const struct reel_op *op)
{
	if (op->fd_kind == REEL_FD_DIR)
		return REPLAY_F_DIR;
	return op->fd_kind == REEL_FD_REG ? REPLAY_F_FILE : 0;
}

static uint32_t fd_path(struct scan *s, const struct reel_op *op, int *append)
{
	return fd_path_of(s, op->pid, op->fd, op->path, append);
}

static void extent(struct scan *s, struct pinfo *pi, uint64_t end)
{
	struct lspan *l = link__now(s, pi);

	/* read through a symlink the application made: what it leads to was read */
	if (l) {
		if (end > l->through)
			l->through = end;
		return;
	}
	if (!pi || pi->app_owned)
		return;
	if (pi->origin) {
		struct pinfo *o = &s->p[pi->origin];

		if (pi->written && end <= pi->written_hwm && end > pi->written_lo)
			end = pi->written_lo;
		/* its name holds another file now (an exchange swapped the two; another rename
		 * moved one in): its record is still that of the file there before */
		if (o->origin) {
			if (o->state == P_EXISTED && end > o->size)
				o->size = end;
			return;
		}
		extent(s, o, end);
		return;
	}
	if (pi->state == P_MAYBE && end <= pi->written_hwm)
		return;
	if (pi->state == P_MAYBE || pi->state == P_UNKNOWN)
		pi->state = P_EXISTED;
	/* a read within what the application wrote needs only the bytes below its writes:
	 * a log appended to and read back (git's reflog) is not prepared with the appends */
	if (pi->written && end <= pi->written_hwm && end > pi->written_lo)
		end = pi->written_lo;
	if (pi->state == P_EXISTED && end > pi->size)
		pi->size = end;
}

/* an fd opened before its name was made anew: it reads (or writes) the file there before */
static int fd__reads_old(struct scan *s, const struct reel_op *op, const struct pinfo *pi)
{
	const uint64_t *v = replay_u64map__get(&s->fds, fdkey(op->pid, op->fd));

	/* one the trace did not open was opened before the capture */
	return pi && pi->remade && (!v || (*v & FDV_GEN0));
}

/* a read through op's fd of the file id names, up to end */
static void fd__extent(struct scan *s, const struct reel_op *op, uint32_t id, uint64_t end)
{
	struct pinfo *pi = pinfo(s, id);

	if (link__read(s, op, end))
		return;
	if (!fd__reads_old(s, op, pi)) {
		extent(s, pi, end);
		return;
	}
	/*
	 * Every byte read counts, even below what the application wrote to it: the replay does
	 * not order these reads after the writes through other such fds (replay_deps.c,
	 * disp__fd_detached), so the bytes must be there; a file prepared longer than it was
	 * is seen only by a length check (lseek SEEK_END), which the summary counts apart.
	 */
	if (pi->pre_live && end > pi->size)
		pi->size = end;
}

/*
 * The file a write (cut: a truncate, a collapsed or inserted range) through op's fd of the
 * file id names changes: NULL when it is the old one (fd__reads_old), whose size a cut makes
 * the application's: its reads after tell nothing of it.
 */
static struct pinfo *fd__changes(struct scan *s, const struct reel_op *op, uint32_t id, int cut)
{
	struct pinfo *pi = pinfo(s, id);

	if (!fd__reads_old(s, op, pi))
		return pi;
	if (cut)
		pi->pre_live = 0;
	return NULL;
}

/*
 * A fallocate that leaves the bytes where they are (allocates, punches, zeroes a range): what
 * an lseek shows after it is partly the application's doing (struct pinfo's allocated,
 * resized). Its reads still tell the old extent: below the old end, its bytes are the old.
 */
static void fallocated(struct pinfo *pi, uint32_t mode)
{
	pi->allocated = 1;
	if (!(mode & FALLOC_FL_KEEP_SIZE))
		pi->resized = 1;
}

static void wrote(struct pinfo *pi, uint64_t off, uint64_t len, int append)
{
	if (!pi)
		return;
	if (append && !pi->written && !pi->app_owned && pi->state == P_EXISTED && off > pi->size)
		pi->size = off;
	if (!pi->written || off < pi->written_lo)
		pi->written_lo = off;
	pi->written = 1;
	if (off + len > pi->written_hwm)
		pi->written_hwm = off + len;
}

static int async_is_read(const struct reel_op *op)
{
	if (op->type == REEL_OP_AIO_SUBMIT)
		return op->subop == IOCB_CMD_PREAD || op->subop == IOCB_CMD_PREADV;
	return op->subop == IORING_OP_READ || op->subop == IORING_OP_READV ||
	       op->subop == IORING_OP_READ_FIXED;
}

static int async_is_write(const struct reel_op *op)
{
	if (op->type == REEL_OP_AIO_SUBMIT)
		return op->subop == IOCB_CMD_PWRITE || op->subop == IOCB_CMD_PWRITEV;
	return op->subop == IORING_OP_WRITE || op->subop == IORING_OP_WRITEV ||
	       op->subop == IORING_OP_WRITE_FIXED;
}

/* copy_file_range, sendfile: the source is read like a read, a file destination written */
static void scan__copy(struct scan *s, const struct reel_op *op)
{
	uint64_t n = op->ret > 0 ? (uint64_t)op->ret : 0;
	int append;
	uint32_t id = fd_path(s, op, &append);

	if (id)
		fd__extent(s, op, id, n ? op->offset + n : 0);
	if (!reel_op__copy_writes(op) || op->fd2 < 0)
		return;
	id = fd_path_of(s, op->pid, op->fd2, op->path2, &append);
	if (id)
		wrote(pinfo(s, id), op->aux, n, append == 1);
}

/*
 * link, symlink: the new name is made by the application. A symlink's content (path2) names
 * no file of the trace and is left alone. A link's old name existed, as a rename's does.
 */
static void scan__link(struct scan *s, const struct reel_op *op, struct pinfo *pi)
{
	int ret = op->ret < 0 ? (int)op->ret : 0, append;
	struct pinfo *p2;

	if (op->type == REEL_OP_SYMLINK || op->type == REEL_OP_SYMLINKAT) {
		if (op->ret == 0)
			mark_created(pi, 0);
		else if (op->ret == -EEXIST)
			decide(pi, 0, 0);
		if (op->ret == 0) {
			link__end(s, op->path); /* one the trace did not see removed */
			link__make(s, op->path, op->path2);
		}
	} else {
		uint32_t id = op->path, origin;

		if (op->type == REEL_OP_LINKAT && (op->flags & AT_EMPTY_PATH) && op->fd >= 0)
			id = fd_path(s, op, &append);
		else
			decide(pi, op->ret == -EEXIST ? 0 : ret, 0);
		origin = op->ret == 0 ? origin_of(s, id) : 0;
		p2 = pinfo(s, op->path2);
		pi = pinfo(s, id); /* p2's may have moved the table */
		if (op->ret == 0) {
			mark_created(p2, pi ? pi->kind : 0);
			origin__set(s, op->path2, origin);
		} else if (op->ret == -EEXIST) {
			decide(p2, 0, 0);
		}
	}
	if (op->ret == 0)
		s->fs->mutates = 1;
}

/*
 * What a successful readlink read of a path the application had not made nor replaced: the
 * content of a symlink that was there before the capture (FORMAT.md: path2, its first ret
 * bytes). Only a whole one: a content as long as the buffer may have been cut short, one whose
 * length is not ret was cut by the writer (strace's string limit).
 */
static void scan__readlink(struct scan *s, const struct reel_op *op, struct pinfo *pi)
{
	const char *c;

	if (!pi || op->ret <= 0 || !op->path2 || pi->pre_content || pi->symlink || pi->app_owned ||
	    pi->state != P_EXISTED || (op->len && (uint64_t)op->ret >= op->len))
		return;
	c = reel_reader__path(s->r, op->path2);
	if (c && strlen(c) == (uint64_t)op->ret)
		pi->pre_content = op->path2;
}

/* path id is one of fs->dirs_changed: what lies below it waits for the op in the replay */
static void scan__dir_changed(struct scan *s, uint32_t id)
{
	struct pinfo *pi = pinfo(s, id);
	const char *p = id ? reel_reader__path(s->r, id) : NULL;

	if (!pi || pi->dir_changed || !p)
		return;
	if (!replay_u64map__put(&s->fs->dirs_changed, replay_hash__bytes(p, strlen(p)), 1))
		pi->dir_changed = 1;
}

/* a cut of the file by path id (see fs->cut_names) */
static void scan__cut(struct scan *s, uint32_t id, uint64_t ns)
{
	struct pinfo *pi = pinfo(s, id);

	if (pi) {
		pi->cut = 1;
		if (ns > pi->cut_ns)
			pi->cut_ns = ns;
	}
}

/*
 * A rename from id to id2 (what is kept of the file by id moves to id2 in the replay), or
 * (id 0) a mkdir of id2: the names that made a directory, for rename__origin.
 */
static void scan__made(struct scan *s, uint32_t id, uint32_t id2)
{
	uint64_t *v, *at;
	uint32_t *prev;
	size_t i = s->nrenames / 2;

	if (!id2)
		return;
	if (s->nrenames + 2 > s->caprenames) {
		size_t cap = s->caprenames ? s->caprenames * 2 : 64;
		uint32_t *r = realloc(s->renames, cap * sizeof(*r));

		if (!r) {
			/* the reads before it under id are not kept for a cut by id2, and what
			 * was below a renamed directory is not prepared (rename__origin) */
			s->rename_lost = 1;
			return;
		}
		s->renames = r;
		s->caprenames = cap;
		at = realloc(s->rename_at, cap / 2 * sizeof(*at));
		if (at)
			s->rename_at = at;
		prev = at ? realloc(s->rename_prev, cap / 2 * sizeof(*prev)) : NULL;
		if (prev)
			s->rename_prev = prev;
		else
			s->rename_lost = 1;
	}
	s->renames[s->nrenames++] = id;
	s->renames[s->nrenames++] = id2;
	if (s->rename_lost)
		return;
	s->rename_at[i] = s->nops;
	v = replay_u64map__get(&s->renamed_to, id2);
	s->rename_prev[i] = v ? (uint32_t)*v : 0;
	if (replay_u64map__put(&s->renamed_to, id2, i + 1) < 0)
		s->rename_lost = 1;
}

static void scan__rename(struct scan *s, uint32_t id, uint32_t id2)
{
	if (id)
		scan__made(s, id, id2);
}

/*
 * renameat2(RENAME_EXCHANGE) of id and id2 that succeeded: both names were there (the new one
 * too, which no op may have named before), and each now holds the other's file: what is read
 * by one after it is the other's (origin), and neither's kind is the other's.
 */
static void scan__exchange(struct scan *s, uint32_t id, uint32_t id2)
{
	uint32_t origin, origin2;

	if (!pinfo(s, id) || !pinfo(s, id2) || id == id2)
		return;
	decide(pinfo(s, id2), 0, 0);
	origin = origin_of(s, id);
	origin2 = origin_of(s, id2);
	mark_created(pinfo(s, id), 0);
	mark_created(pinfo(s, id2), 0);
	origin__set(s, id, origin2);
	origin__set(s, id2, origin);
	link__rename(s, id, id2, 1);
}

/*
 * How long a successful lseek shows its file was, at least, into *end; 0 when it does not
 * say. SEEK_END's size; SEEK_HOLE's landing, at a hole or at the end (past the offset, which
 * lay before the end: else ENXIO); SEEK_DATA's landing + 1, a byte of data. GNU grep reads a
 * block, then asks SEEK_HOLE where the data ends: a file prepared as long as the furthest
 * byte read made it fail ENXIO where the original found the end of a 10,000-byte file.
 */
static int lseek__size(const struct reel_op *op, uint64_t *end)
{
	uint64_t ret = (uint64_t)op->ret;

	if (op->ret < 0)
		return 0;
	switch (op->mode) {
	case SEEK_END:
		*end = (uint64_t)(op->ret - (int64_t)op->offset);
		return 1;
	case SEEK_HOLE:
		*end = ret > op->offset ? ret : op->offset + 1;
		return 1;
	case SEEK_DATA:
		*end = ret + 1;
		return 1;
	default:
		return 0;
	}
}

/*
 * lseek(SEEK_DATA) from op's offset found a hole up to where it landed, or up to the end
 * (ENXIO). Taken only from a file as it was before the capture: not written, cut,
 * fallocated, made anew or renamed by the application, nor reached through a link or an fd opened before
 * its name was made anew. A write only fills holes, so the first write ends the evidence
 * for no good reason, but keeps the rule simple: qemu-img walks images it only reads.
 */
static void hole__found(struct scan *s, const struct reel_op *op, uint32_t id)
{
	struct pinfo *pi = pinfo(s, id);
	uint64_t hi;

	if (!pi || pi->written || pi->app_owned || pi->allocated || pi->origin || pi->remade ||
	    pi->symlink || pi->lspan || fd__reads_old(s, op, pi))
		return;
	if (op->ret == -ENXIO)
		hi = UINT64_MAX;
	else if (op->ret > 0 && (uint64_t)op->ret > op->offset)
		hi = (uint64_t)op->ret;
	else
		return;
	if (s->nholes == s->capholes) {
		size_t cap = s->capholes ? s->capholes * 2 : 16;
		struct hole *h = realloc(s->holes, cap * sizeof(*h));

		if (!h)
			return; /* prepared with data there: as before holes were known */
		s->holes = h;
		s->capholes = cap;
	}
	s->holes[s->nholes++] = (struct hole){id, op->offset, hi};
}

/*
 * The op tells, of the object by its name as it stood (the one there before the capture,
 * when nothing the application did has removed, replaced or made one by the name yet), that
 * it was a symlink, or not a directory: pinfo.pre_islink, pre_nondir. Looked at before the
 * op's own effect is taken.
 */
static void pre__evidence(struct scan *s, const struct reel_op *op, struct pinfo *pi)
{
	struct pinfo *p2, *src;

	switch (op->type) {
	case REEL_OP_OPEN:
	case REEL_OP_OPENAT:
	case REEL_OP_OPENAT2:
		if (op->ret == -ELOOP && (op->flags & O_NOFOLLOW) && pre__stands(pi))
			pi->pre_islink = 1;
		break;
	case REEL_OP_STAT:
	case REEL_OP_LSTAT:
	case REEL_OP_NEWFSTATAT:
	case REEL_OP_STATX:
		/* S_IFLNK >> 12: only a stat that does not follow finds one */
		if (op->ret == 0 && op->subop == (S_IFLNK >> 12) && pre__stands(pi))
			pi->pre_islink = 1;
		break;
	case REEL_OP_READLINK:
	case REEL_OP_READLINKAT:
		if (op->ret > 0 && pre__stands(pi))
			pi->pre_islink = 1;
		break;
	case REEL_OP_UNLINK:
	case REEL_OP_UNLINKAT:
		if (op->ret == 0 && !(op->flags & AT_REMOVEDIR) && pre__stands(pi))
			pi->pre_nondir = 1;
		break;
	case REEL_OP_RENAME:
	case REEL_OP_RENAMEAT:
	case REEL_OP_RENAMEAT2:
		/* a non-directory renamed over it: a directory there would have failed EISDIR
		 * (RENAME_NOREPLACE: nothing was there; an exchange swaps any two) */
		if (op->ret || (op->flags & (RENAME_EXCHANGE | RENAME_NOREPLACE)) || !op->path ||
		    op->path == op->path2 || !(p2 = pinfo(s, op->path2)) || !pre__stands(p2))
			break;
		src = pinfo(s, op->path); /* p2's may have moved the table */
		p2 = pinfo(s, op->path2);
		if (src && (link__now(s, src) || src->kind == REPLAY_F_FILE))
			p2->pre_nondir = 1;
		break;
	}
}

static void scan__op_(struct scan *s, const struct reel_op *op)
{
	struct pinfo *p2, *pi = pinfo(s, op->path);
	int append, ret = op->ret < 0 ? (int)op->ret : 0, kind;
	uint64_t end;
	uint32_t id;

	switch (op->type) {
	case REEL_OP_OPEN:
	case REEL_OP_OPENAT:
	case REEL_OP_OPENAT2:
	case REEL_OP_CREAT:
		kind = (op->flags & O_DIRECTORY) || op->fd_kind == REEL_FD_DIR ? REPLAY_F_DIR
									       : REPLAY_F_FILE;
		if (op->ret >= 0) {
			if (op->type == REEL_OP_CREAT ||
			    (op->flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
				mark_created(pi, kind);
			else if ((op->flags & O_CREAT) && pi && pi->state == P_UNKNOWN &&
				 !(op->aux > 1 && !(op->flags & O_TRUNC)))
				pi->state = P_MAYBE;
			else if ((op->flags & O_CREAT) && pi && pi->state == P_ABSENT)
				mark_created(pi, kind); /* found absent before: made by this open */
			else
				decide(pi, 0, kind);
			/* an earlier op (a stat) said it was there, not what it was: the open says
			 * it, when the fd's kind is known (O_TMPFILE carries O_DIRECTORY's bit) */
			if (pi && pi->state == P_EXISTED && !pi->kind && !pi->gone &&
			    !pi->symlink) {
				if (kind == REPLAY_F_DIR)
					pi->kind = REPLAY_F_DIR;
				else if (op->fd_kind == REEL_FD_REG)
					pi->kind = REPLAY_F_FILE;
			}
			if (pi && (pi->state != P_CREATED || pi->origin) && (op->flags & O_TRUNC))
				pi->app_owned = 1;
			/*
			 * Its size when opened (aux - 1, the recorder's): the size before the
			 * capture only when nothing in the trace touched the path before (the
			 * application may have made it longer), and 0 after O_TRUNC anyway.
			 */
			if (pi && !pi->seen && op->aux && !(op->flags & O_TRUNC))
				pi->sized = 1;
			if (pi && !pi->seen && op->aux > 1 && !(op->flags & O_TRUNC) &&
			    op->aux - 1 > pi->presize)
				pi->presize = op->aux - 1;
			if (op->type == REEL_OP_CREAT || (op->flags & (O_CREAT | O_TRUNC)))
				s->fs->mutates = 1;
			if (op->type == REEL_OP_CREAT || (op->flags & O_TRUNC))
				scan__cut(s, op->path, op->end_ns);
			if (link__now(s, pi) && op->type != REEL_OP_CREAT &&
			    !(op->flags & (O_CREAT | O_TRUNC)))
				link__now(s, pi)->through_kind = kind;
			if (pi)
				pi->followed = 1;
			if (pi && (op->flags & O_DIRECT))
				pi->open_direct = 1;
			else if (pi)
				pi->open_cached = 1;
			if (pi && !pi->symlink && !pi->gone)
				pi->pre_followed = kind;
			if (op->path)
				replay_u64map__put(&s->fds, fdkey(op->pid, (int32_t)op->ret),
						   op->path |
						       (uint64_t) !!(op->flags & O_APPEND) << 32 |
						       (pi && !pi->remade ? FDV_GEN0 : 0) |
						       (uint64_t)(pi && pi->symlink &&
								  pi->lspan <= FDV_SPAN_MAX
							      ? pi->lspan
							      : 0)
							   << FDV_SPAN_SHIFT);
			else /* unknown: not what the number named before */
				replay_u64map__del(&s->fds, fdkey(op->pid, (int32_t)op->ret));
			if (op->aux)
				replay_u64map__put(&s->opensz, fdkey(op->pid, (int32_t)op->ret),
						   op->aux);
			else
				replay_u64map__del(&s->opensz, fdkey(op->pid, (int32_t)op->ret));
		} else if (op->ret == -EEXIST && (op->flags & O_EXCL)) {
			decide(pi, 0, REPLAY_F_FILE);
		} else {
			decide(pi, ret, 0);
		}
		break;
	case REEL_OP_CLOSE:
		/* an fd the trace did not open was open on its file when the capture began: a
		 * name nothing decided before was there (Prometheus closes a block's files, then
		 * renames its directory away and removes them by the new name). Not set_existed:
		 * a child's close of an fd its parent opened O_CREAT leaves that open's guess */
		if (op->path && op->ret == 0 && !replay_u64map__get(&s->fds, fdkey(op->pid, op->fd))) {
			decide(pi, 0, fd_kind_of(op));
			/* and how long it was, when the recorder says: a close may be the fd's only
			 * op before the name is removed (InfluxDB's compaction closes a TSM file it
			 * had mapped since before an attach, then unlinks it), and the unlink frees
			 * as many blocks as it did */
			presize__take(s, op->pid, op->fd, pi);
		}
		replay_u64map__del(&s->fds, fdkey(op->pid, op->fd));
		replay_u64map__del(&s->opensz, fdkey(op->pid, op->fd));
		break;
	case REEL_OP_DUP:
	case REEL_OP_DUP2:
	case REEL_OP_DUP3:
	case REEL_OP_FCNTL_DUPFD:
		id = fd_path(s, op, &append);
		if (id && op->ret >= 0) {
			const uint64_t *v = replay_u64map__get(&s->fds, fdkey(op->pid, op->fd));

			/* one the trace did not open was opened before the capture: GEN0 */
			replay_u64map__put(&s->fds, fdkey(op->pid, (int32_t)op->ret),
					   v ? *v : id | (uint64_t)append << 32 | FDV_GEN0);
		} else if (op->ret >= 0) {
			/* unknown: not what the number named before (a dup2 over it) */
			replay_u64map__del(&s->fds, fdkey(op->pid, (int32_t)op->ret));
		}
		if (op->ret >= 0 && op->ret != op->fd) {
			uint64_t *sz = replay_u64map__get(&s->opensz, fdkey(op->pid, op->fd));

			if (sz)
				replay_u64map__put(&s->opensz, fdkey(op->pid, (int32_t)op->ret),
						   *sz);
			else
				replay_u64map__del(&s->opensz, fdkey(op->pid, (int32_t)op->ret));
		}
		break;
	case REEL_OP_STAT:
	case REEL_OP_LSTAT:
	case REEL_OP_NEWFSTATAT:
	case REEL_OP_STATX:
	case REEL_OP_ACCESS:
	case REEL_OP_FACCESSAT:
		kind = stat_kind(op);
		decide(pi, ret, kind);
		/* an earlier op (an access) said it was there, not what it was: this one does */
		if (pi && kind && pi->state == P_EXISTED && !pi->kind && !pi->gone && !pi->symlink)
			pi->kind = kind;
		/* its size before the capture, as an open's first sight of it tells (aux) */
		if (pi && kind == REPLAY_F_FILE && !pi->seen && op->aux)
			pi->sized = 1;
		if (pi && kind == REPLAY_F_FILE && !pi->seen && op->aux > 1 &&
		    op->aux - 1 > pi->presize)
			pi->presize = op->aux - 1;
		/* only an access check's mode asks X_OK; a statx's is its mask, whose bit 0
		 * (STATX_TYPE) every statx sets */
		if (pi && op->ret == 0 && is_access_check(op->type) && (op->mode & X_OK))
			pi->exec = 1;
		if (pi && op->ret == 0 && op->type != REEL_OP_LSTAT &&
		    !(op->flags & (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))) {
			pi->followed = 1;
			/* a stat from an older writer or an import tells no kind: a file */
			if (!pi->symlink && !pi->gone && !pi->pre_followed)
				pi->pre_followed = kind ? kind : REPLAY_F_FILE;
		}
		break;
	case REEL_OP_UNLINK:
	case REEL_OP_UNLINKAT:
		if (op->flags & AT_REMOVEDIR)
			scan__dir_changed(s, op->path);
		decide(pi, ret, (op->flags & AT_REMOVEDIR) ? REPLAY_F_DIR : REPLAY_F_FILE);
		if (op->ret == 0 && pi) {
			pi->gone = 1;
			pi->origin = 0;
			link__end(s, op->path);
		}
		if (op->ret == 0)
			s->fs->mutates = 1;
		break;
	case REEL_OP_RMDIR:
		scan__dir_changed(s, op->path);
		decide(pi, ret, REPLAY_F_DIR);
		if (op->ret == 0 && pi) {
			pi->gone = 1;
			pi->origin = 0;
		}
		if (op->ret == 0)
			s->fs->mutates = 1;
		break;
	case REEL_OP_MKDIR:
	case REEL_OP_MKDIRAT:
		scan__dir_changed(s, op->path);
		if (op->ret == 0) {
			mark_created(pi, REPLAY_F_DIR);
			scan__made(s, 0, op->path);
			s->fs->mutates = 1;
		} else if (op->ret == -EEXIST) {
			decide(pi, 0, REPLAY_F_DIR);
		}
		break;
	case REEL_OP_RENAME:
	case REEL_OP_RENAMEAT:
	case REEL_OP_RENAMEAT2:
		scan__dir_changed(s, op->path);
		scan__dir_changed(s, op->path2);
		decide(pi, ret, 0);
		if (op->ret == 0 && (op->flags & RENAME_EXCHANGE)) {
			scan__exchange(s, op->path, op->path2);
		} else if (op->ret == 0) {
			uint32_t origin = origin_of(s, op->path);

			p2 = pinfo(s, op->path2);
			pi = pinfo(s, op->path); /* p2's may have moved the table */
			if (pi)
				pi->gone = 1;
			mark_created(p2, pi ? pi->kind : 0);
			origin__set(s, op->path2, origin);
			link__rename(s, op->path, op->path2, 0);
		}
		if (op->ret == 0) {
			s->fs->mutates = 1;
			scan__rename(s, op->path, op->path2);
			if (op->flags & RENAME_EXCHANGE)
				scan__rename(s, op->path2, op->path);
		}
		break;
	case REEL_OP_TRUNCATE:
		decide(pi, ret, REPLAY_F_FILE);
		if (op->ret == 0 && pi) {
			pi->app_owned = 1;
			s->fs->mutates = 1;
			scan__cut(s, op->path, op->end_ns);
		}
		break;
	case REEL_OP_FTRUNCATE:
	case REEL_OP_FALLOCATE:
		id = fd_path(s, op, &append);
		if (op->ret == 0 && id) {
			/* the length is the application's from then on: the bytes read after it
			 * tell nothing of the one the file had (an inserted range moved them up) */
			int cut = op->type == REEL_OP_FTRUNCATE ||
				  (op->mode & (FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_INSERT_RANGE));
			struct pinfo *f = fd__changes(s, op, id, cut);

			if (f && cut)
				f->app_owned = 1;
			if (f && !cut && op->type == REEL_OP_FALLOCATE)
				fallocated(f, op->mode);
			s->fs->mutates = 1;
		}
		/* the replay cuts by the path the op carries, the open's when it carries none */
		if (op->ret == 0 &&
		    (op->type == REEL_OP_FTRUNCATE || (op->mode & FALLOC_FL_COLLAPSE_RANGE))) {
			scan__cut(s, id, op->end_ns);
			scan__cut(s, op->path, op->end_ns);
		}
		break;
	case REEL_OP_COPY_FILE_RANGE:
	case REEL_OP_SENDFILE:
		scan__copy(s, op);
		break;
	case REEL_OP_LINK:
	case REEL_OP_LINKAT:
	case REEL_OP_SYMLINK:
	case REEL_OP_SYMLINKAT:
		/* failed or not: the replay may make it where the original did not */
		if (op->type == REEL_OP_SYMLINK || op->type == REEL_OP_SYMLINKAT) {
			s->fs->symlinks = 1;
			scan__dir_changed(s, op->path);
		}
		scan__link(s, op, pi);
		break;
	case REEL_OP_CHMOD:
	case REEL_OP_FCHMODAT:
	case REEL_OP_CHOWN:
	case REEL_OP_LCHOWN:
	case REEL_OP_FCHOWNAT:
	case REEL_OP_UTIMENSAT:
	case REEL_OP_FCHMOD:
	case REEL_OP_FCHOWN:
		/* the target of a change existed as a stat's does; the change leaves the prepared
		 * set different (modes, owners), times aside: the replay sets them anyway */
		if (replay_op__on_fd(op))
			fd_path(s, op, &append);
		else
			decide(pi, ret, 0);
		if (op->ret == 0 && op->type != REEL_OP_UTIMENSAT)
			s->fs->mutates = 1;
		break;
	case REEL_OP_READLINK:
	case REEL_OP_READLINKAT:
		if (pi && pi->state == P_UNKNOWN && op->ret > 0)
			pi->linklen = (uint32_t)op->ret;
		/* EINVAL: there, but not a symlink */
		decide(pi, op->ret == -EINVAL ? 0 : ret, 0);
		scan__readlink(s, op, pi);
		break;
	case REEL_OP_LSEEK:
		id = fd_path(s, op, &append);
		if (id && op->mode == SEEK_DATA)
			hole__found(s, op, id);
		if (id && lseek__size(op, &end)) {
			struct pinfo *q = pinfo(s, id);

			if (link__read(s, op, end))
				break; /* its file is what a link led to */
			if (fd__reads_old(s, op, q))
				fd__extent(s, op, id, end);
			else if (q && !q->written && !q->resized)
				extent(s, q, end);
		}
		break;
	case REEL_OP_GETDENTS64:
		id = fd_path(s, op, &append);
		if (id && pinfo(s, id))
			pinfo(s, id)->kind = REPLAY_F_DIR;
		if (!op->path)
			s->fs->unnamed_listings = 1;
		break;
	case REEL_OP_MMAP:
		/* a mapping may run past the end of the file (LMDB maps its whole map size):
		 * what lies past the size the open said could not be read through it. Nor does
		 * a mapping read anything itself: of a file an O_CREAT open may have made (its
		 * size unknown, an import), it tells nothing of bytes there before */
		if (op->fd >= 0 && (id = fd_path(s, op, &append))) {
			uint64_t end = op->offset + op->len,
				 *sz = replay_u64map__get(&s->opensz, fdkey(op->pid, op->fd));

			if (sz && end > *sz - 1)
				end = *sz - 1;
			if (pinfo(s, id) && pinfo(s, id)->state != P_MAYBE)
				fd__extent(s, op, id, end);
		}
		break;
	case REEL_OP_AIO_SUBMIT:
	case REEL_OP_URING_SUBMIT:
		id = fd_path(s, op, &append);
		if (id && async_is_read(op))
			fd__extent(s, op, id, op->offset + op->len);
		else if (id && async_is_write(op))
			wrote(fd__changes(s, op, id, 0), op->offset, op->len, append == 1);
		break;
	default:
		if (reel_op__is_read(op->type)) {
			id = fd_path(s, op, &append);
			if (id)
				fd__extent(s, op, id,
					   op->ret > 0 ? op->offset + (uint64_t)op->ret : 0);
		} else if (reel_op__is_write(op->type)) {
			id = fd_path(s, op, &append);
			if (append == FD_PREOPENED)
				append = op->type == REEL_OP_WRITE || op->type == REEL_OP_WRITEV;
			if (id)
				wrote(fd__changes(s, op, id, 0), op->offset,
				      op->ret > 0 ? (uint64_t)op->ret : 0, append);
		} else if (op->fd >= 0 && (!op->path || replay_op__on_fd(op))) {
			/* an fstat, fsync, fadvise...: through an fd the trace did not open, it
			 * tells that its file was there, and its kind (Subversion's commands fstat
			 * the stderr the shell gave them, and nothing else) */
			id = fd_path(s, op, &append);
			if (id && append == FD_PREOPENED)
				set_existed(pinfo(s, id), fd_kind_of(op));
		}
		break;
	}
}

/*
 * Ops that look at a path and change nothing of it: an open after them still tells the size
 * the file had before the capture. mke2fs stats its image three times before it opens it,
 * and the image (300 MiB) was prepared at the 303,104 bytes it read.
 */
static int looks_only(const struct reel_op *op)
{
	switch (op->type) {
	case REEL_OP_STAT:
	case REEL_OP_LSTAT:
	case REEL_OP_NEWFSTATAT:
	case REEL_OP_STATX:
	case REEL_OP_FSTAT:
	case REEL_OP_ACCESS:
	case REEL_OP_FACCESSAT:
	case REEL_OP_READLINK:
	case REEL_OP_READLINKAT:
		return 1;
	}
	return 0;
}

/* the op found its path there: it looked it up, succeeded, and made nothing by that name */
static int op__found(const struct reel_op *op)
{
	if (op->ret < 0)
		return 0;
	switch (op->type) {
	case REEL_OP_OPEN:
	case REEL_OP_OPENAT:
	case REEL_OP_OPENAT2:
		return !(op->flags & O_CREAT);
	case REEL_OP_CREAT:
	case REEL_OP_MKDIR:
	case REEL_OP_MKDIRAT:
	case REEL_OP_SYMLINK:
	case REEL_OP_SYMLINKAT:
		return 0;
	default:
		return reel_op__has_path(op->type);
	}
}

/*
 * The op names paths below a symlink the application made that stands now: the first such
 * op by each path under each link is noted, so that a path named below two links by one name
 * in turn (cur/x read, then ln -s v2 tmp; mv tmp cur; cur/x read again) is prepared where
 * each led, not only where the link of its first op led (through__links).
 */
static void link__under(struct scan *s, const struct reel_op *op)
{
	unsigned t = op->type;
	int names = t == REEL_OP_RENAME || t == REEL_OP_RENAMEAT || t == REEL_OP_RENAMEAT2 ||
			    t == REEL_OP_LINK || t == REEL_OP_LINKAT
			? 2
			: 1;
	char buf[PATH_MAX], *slash;

	if (!s->standing.n || replay_op__on_fd(op))
		return;
	for (int i = 0; i < names; i++) {
		uint32_t id = i ? op->path2 : op->path;
		const char *p = id ? reel_reader__path(s->r, id) : NULL;
		uint64_t *v = NULL, key;

		if (!p || strlen(p) >= sizeof(buf))
			continue;
		strcpy(buf, p);
		while (!v && (slash = strrchr(buf, '/')) && slash != buf) {
			*slash = '\0';
			v = replay_u64map__get(&s->standing, replay_hash__bytes(buf, strlen(buf)));
		}
		key = v ? (uint64_t)id << 32 | (uint32_t)*v : 0;
		if (!v || replay_u64map__get(&s->under_seen, key) ||
		    replay_u64map__put(&s->under_seen, key, 1) < 0)
			continue;
		if (s->nunder == s->capunder) {
			size_t cap = s->capunder ? s->capunder * 2 : 16;
			uint32_t *u = realloc(s->under, cap * 3 * sizeof(*u));

			if (!u)
				return; /* followed as first named only */
			s->under = u;
			s->capunder = cap;
		}
		s->under[s->nunder * 3] = id;
		s->under[s->nunder * 3 + 1] = (uint32_t)*v;
		s->under[s->nunder * 3 + 2] = !i && op__found(op);
		s->nunder++;
	}
}

/* the op makes the name it carries (path; a rename's or a link's: path2), which need not be
 * there: ENOENT from it means a directory above that name was missing */
static int op__makes_name(const struct reel_op *op)
{
	switch (op->type) {
	case REEL_OP_MKDIR:
	case REEL_OP_MKDIRAT:
	case REEL_OP_SYMLINK:
	case REEL_OP_SYMLINKAT:
		return 1;
	default:
		return op__creates(op);
	}
}

/*
 * An op that failed with ENOENT: what it says was missing (pinfo.enoent_lookup,
 * enoent_making). A rename or a link fails so for either of its names: each is noted as it
 * could have been missing (an exchange's new name as made: the wider claim, which presumes
 * less). A symlink's path2 is its content, looked up by nothing.
 */
static void enoent__note(struct scan *s, const struct reel_op *op)
{
	struct pinfo *pi;
	unsigned t = op->type;
	int two = t == REEL_OP_RENAME || t == REEL_OP_RENAMEAT || t == REEL_OP_RENAMEAT2 ||
		  t == REEL_OP_LINK || t == REEL_OP_LINKAT;

	if (op->ret != -ENOENT || !reel_op__has_path(t) || replay_op__on_fd(op))
		return;
	pi = pinfo(s, op->path);
	if (pi && op__makes_name(op))
		pi->enoent_making = 1;
	else if (pi)
		pi->enoent_lookup = 1;
	pi = two ? pinfo(s, op->path2) : NULL;
	if (pi)
		pi->enoent_making = 1;
}

/* One op; then its paths are seen (unless it only looked at them): an open after that does
 * not tell the size before the capture */
void scan__op(struct scan *s, const struct reel_op *op)
{
	struct pinfo *pi;
	uint32_t ids[2] = {op->path, op->path2};

	s->nops++;
	for (int i = 0; i < 2; i++)
		if ((pi = pinfo(s, ids[i])) && !pi->first_op)
			pi->first_op = s->nops;
	/* any op on an fd the trace did not open (an fstat, an fsync), not only those that
	 * tell the file set something: its first use opens it in the replay */
	if (op->path && op->type != REEL_OP_CLOSE && replay_op__on_fd(op) &&
	    !replay_u64map__get(&s->fds, fdkey(op->pid, op->fd)))
		early__note(s, op->pid, op->fd, pinfo(s, op->path), op->path);
	link__under(s, op);
	pre__evidence(s, op, pinfo(s, op->path));
	enoent__note(s, op);
	scan__op_(s, op);
	for (int i = 0; i < 2; i++) {
		pi = pinfo(s, ids[i]);
		if (!pi)
			continue;
		/* made anew: marked so, or opened O_CREAT after it went (the open made it) */
		if (!pi->remade_op &&
		    (pi->remade || (i == 0 && pi->gone && op__creates(op) && op->ret >= 0)))
			pi->remade_op = s->nops;
		if (!looks_only(op))
			pi->seen = 1;
		if (pi->gone && !pi->gone_op)
			pi->gone_op = s->nops;
	}
}
