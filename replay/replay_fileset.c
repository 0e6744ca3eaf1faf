/* SPDX-License-Identifier: MIT */
/*
 * replay_fileset.c - one streaming pass over the trace that works out the file tree the
 * application found when the capture started, so that it can be recreated under the target.
 *
 * The rules. The first op that tells something about a path decides whether it existed:
 *  - open/openat/openat2 without O_CREAT that succeeded: existed (a directory when opened
 *    with O_DIRECTORY or the fd is a directory, else a file);
 *  - O_CREAT|O_EXCL or creat() that succeeded, mkdir that succeeded, a rename's new name:
 *    created by the application, so left for the replay to create (not an exchange's: it
 *    existed, and holds the old name's file after it; the directory a name is made in below
 *    a symlink the application made, where the link leads, existed: through__made_in);
 *  - O_CREAT without O_EXCL that succeeded: unknown; it existed if the application read
 *    bytes from it that it had not written itself (then prepared with that extent), or if
 *    the open says the file was not empty (aux = size + 1 > 1, without O_TRUNC: git's
 *    reflog appends);
 *  - stat/lstat/newfstatat/statx/access/faccessat, unlink, rmdir, truncate, a rename's old
 *    name that succeeded, mkdir failing with EEXIST, O_EXCL failing with EEXIST: existed
 *    (a stat that recorded what it found, a directory or a file: as that, stat_kind);
 *  - an op failing with ENOENT: did not exist (nothing prepared).
 * When an op that tells no kind (an access, a stat of an older trace or an import) decided
 * that it existed, a later stat that tells it, or an open that succeeded, tells it (a
 * directory: O_DIRECTORY or O_TMPFILE, or its fd is one; a file: its fd is one), unless
 * the name was removed, renamed away or made again in between.
 * An existing path of unknown kind (only accessed, say) is a directory when other traced paths
 * lie below it, else a file. Every ancestor directory of a traced path is prepared, except
 * those the application made itself, and, for a path that was absent, those above it not
 * known to exist (the error then stays ENOENT, not ENOTDIR or success): known from other
 * paths, or, for a name a lookup found absent, presumed of the directory it was looked for
 * in unless the trace tells otherwise (parent__presumed: fio's /tmp/fio-dump-status, whose
 * replayed stat, /tmp missing, failed one component early and slower). Nothing below a name
 * the application made is prepared (made by mkdir, or by a rename, or made a file first and
 * a directory later): it cannot have existed before the capture under that name. But what
 * was found in a directory a rename made was in it before, under its old name, and is
 * prepared there (rename__origin: mv olddir newdir, then newdir/f read). Nor a name first seen after
 * a directory above it was removed, renamed away or replaced: the directory it was found in
 * then was one the application made again (borg's lock directory, found at a slice's start,
 * removed, then made again by a rename with a new file in it).
 * access(X_OK) that succeeded makes the file executable.
 * Size of an existing file: at least the furthest byte read from it (read-type ops by ret,
 * async reads, mmap by length, up to the size the fd's open said the file had: a mapping may
 * run past the end), the size an lseek(SEEK_END) returned, where a SEEK_HOLE landed and one
 * past where a SEEK_DATA did (lseek__size), before the application wrote the file or
 * fallocated it without FALLOC_FL_KEEP_SIZE (a fallocate past the end makes the length an
 * lseek shows the application's: a file prepared that long was longer than before the
 * capture, and its reads of bytes there before the fallocate read too far), and the position of the
 * first O_APPEND write, or of the first write at the fd's position (write, writev) through an
 * fd opened before the capture, whose flags the trace does not have: an O_APPEND log (Redis's
 * AOF) writes at its end, and a file written in sequence had its bytes before the position
 * (unless the application had moved the position past the end: then the file is prepared
 * with data where it had a hole); bytes read after the application truncated or wrote them
 * (or moved them: a collapsed or an inserted range) don't count. Where an lseek(SEEK_DATA)
 * found a hole in a file the application had not changed yet (written, cut, fallocated: a
 * punched hole was data before), it stays a hole (hole__found).
 * Ops on fds opened before the capture count for the path the op carries; a file written
 * through one is at least as long as it was then, when the recorder says
 * (REEL_META_CAPTURE_FD_SIZES). Likewise a file written whose first op in the trace is an
 * open that says its size (aux = size + 1): the size it had before the capture; a later
 * open's may be one the application made, and a file only read is not made that long.
 * A name a rename or a link gave to a file there before the capture reads that file: its
 * reads tell the old name's extent, until the name is cut or made anew (origin).
 * An fd opened before its name was made anew (renamed over, removed and created again) still
 * reads the old file: its reads tell that file's extent, not the new one's (FDV_GEN0).
 * Copies (copy_file_range, sendfile) read their source like a read and write a file
 * destination like a write. link, symlink: the new name is the application's; a link's old
 * name, and the targets of chmod, chown, utimensat and readlink, existed as a stat's do. A
 * symlink the application only read is prepared as a symlink (REPLAY_F_SYMLINK); below or
 * through one it made, nothing is prepared under the symlink's name, but the files it led to
 * are, under the names its content gives (through__links). So for a symlink that was there
 * before the capture when a readlink tells its content: prepared as a symlink with it
 * (replay_linkpath__disk, replay_linkpath.c), and what was opened, stat'd or read through it,
 * where the content leads, through chains of symlinks (link__follow); one below another, where
 * that one leads (prelinks__place). A path below a name leads where the link that stood by it
 * when the trace first named the path led (struct lspan): one removed or replaced (rm, a
 * rename over it: ln -s v2 tmp; mv tmp cur) is not followed after, one a rename moved leads
 * from its new name. A name the trace shows was no directory while the one there before the
 * capture stood (pre__evidence: an lstat found a symlink, an unlink removed it without
 * AT_REMOVEDIR, a non-directory was renamed over it...), with paths named below it then,
 * was a symlink to a directory: prepared as one, to a stand-in directory beside it when no
 * readlink told where it led (prelinks__standin).
 * The trace "mutates" the file set when it creates, deletes, renames, truncates, links, or
 * changes modes or owners: a replay of it leaves the target different from the prepared set.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/aio_abi.h>
#include <linux/falloc.h>
#include <linux/io_uring.h>

#include "replay_hash.h"
#include "replay_int.h"
#include "replay_lookahead.h"

enum pstate { P_UNKNOWN = 0, P_EXISTED, P_CREATED, P_MAYBE, P_ABSENT };

struct pinfo {
	uint8_t state;
	uint8_t kind;	   /* 0 unknown, REPLAY_F_FILE, REPLAY_F_DIR */
	uint8_t app_owned; /* truncated or written: later reads say nothing about the old size */
	uint8_t written;
	/*
	 * Fallocated by the application, in place (not a collapsed or inserted range, which
	 * cut): allocated, a hole an lseek(SEEK_DATA) finds since may be one it punched, and
	 * resized, without FALLOC_FL_KEEP_SIZE, the length an lseek shows since may be the one
	 * its fallocate made, past the file's end. Neither tells the file before the capture.
	 */
	uint8_t allocated;
	uint8_t resized;
	uint8_t exec;	      /* access(X_OK) succeeded: prepared executable */
	uint8_t open_direct;  /* opened with O_DIRECT */
	uint8_t open_cached;  /* opened without it (by the trace, or before the capture) */
	uint8_t symlink;      /* a symlink the application made, as the scan stands: lspan's */
	uint8_t linked;	      /* one was made by this name at some point (symlink, or a rename) */
	uint32_t lspan;	      /* its latest link span (struct lspan), + 1 (0: never a symlink) */
	uint32_t linklen;     /* readlink read this many bytes of it, before anything else told */
	uint32_t pre_content; /* a symlink there before the capture: what readlink read of it */
	uint8_t followed;     /* opened or stat'd by this name: what it leads to was there */
	uint8_t pre_followed; /* so before the application made it a symlink: REPLAY_F_* found */
	uint8_t gone;	      /* removed, renamed away or made again: another may be there */
	uint8_t dir_changed;  /* in fs->dirs_changed */
	uint8_t cut;	      /* cut by this name, or renamed to one that is (cuts__mark) */
	uint64_t cut_ns;      /* the end of the last such cut in the trace */
	char *disk;	      /* pre_content as prepared under the target; NULL: not */
	char *at;	      /* a symlink below one: where it really lies (prelinks__place) */
	uint64_t size;
	uint64_t written_hwm;
	uint64_t written_lo; /* the lowest byte the application wrote, when written */
	uint64_t presize;    /* its size when the capture began, when the recorder says */
	uint8_t sized;	     /* the recorder said that size (an open's, a stat's, an fd's) */
	uint8_t seen;	   /* an op named it: a later open's size may be one the application made */
	uint8_t came_back; /* in a directory renamed away and back: there before (rename__origin) */
	uint64_t first_op; /* the number of the first op that named it, from 1 */
	uint64_t gone_op;  /* the number of the op after which it was first gone (0: never) */
	/* a name a rename or a link gave to a file there before the capture: that file's path
	 * id, which its reads by this name tell the extent of (0: none) */
	uint32_t origin;
	uint8_t remade;	  /* made anew by the application since the capture began */
	/* the number of the op that first made it anew, or opened it O_CREAT after it went
	 * (0: none yet) */
	uint64_t remade_op;
	/* when first made anew, the file there before the capture, not cut by the application
	 * (P_EXISTED): fds opened before still read it (FDV_GEN0) */
	uint8_t pre_live;
	/*
	 * What the trace tells of the object by this name there before the capture, while it
	 * still stood (before the application removed, replaced or made one by the name): not
	 * a directory (an unlink without AT_REMOVEDIR, a rename of a non-directory over it
	 * succeeded), a symlink (an lstat found one, a readlink read one, an O_NOFOLLOW open
	 * failed ELOOP). With paths below it named while it stood, it was a symlink to a
	 * directory (prelinks__standin).
	 */
	uint8_t pre_nondir;
	uint8_t pre_islink;
	/*
	 * Ops that failed with ENOENT, whenever in the trace (enoent__note): one that looked the
	 * name up (it had to be there: a stat, an open without O_CREAT, a rename's old name)
	 * says that it, or a directory above it, was missing then; one that made the name (a
	 * mkdir, an O_CREAT open, the new name of a rename, link or symlink) that a directory
	 * above it was. What parent__presumed weighs.
	 */
	uint8_t enoent_lookup;
	uint8_t enoent_making;
};

/*
 * A symlink by one name, for the ops between the one that made it and the one that removed
 * or replaced it: one the application made (symlink(), or a rename that moved one there, with
 * its content), or one there before the capture whose content a readlink told (pre). A name
 * swapped from one link to another (ln -s v2 tmp; mv tmp cur) has a span for each: a path
 * below it leads where the link standing when the path was first named led.
 */
struct lspan {
	uint32_t name;	      /* path id of the link */
	uint32_t content;     /* path id of its content (pre: the name's pre_content) */
	uint32_t prev;	      /* the span before it by the same name, + 1 (0: none) */
	uint8_t pre;	      /* there before the capture, prepared as a symlink (disk) */
	uint8_t through_kind; /* what opening the link itself found, REPLAY_F_* (0: not opened) */
	uint64_t from;	      /* the op that made it (0: before the capture) */
	uint64_t to;	      /* the op that removed or replaced it (0: it stood to the end) */
	uint64_t through;     /* the furthest byte read through the link itself */
};

struct scan {
	struct replay_u64map tidset;
	size_t tidcap;
	uint64_t *tfirst, *tlast; /* each thread's first and last op, by position in the trace */
	struct pinfo *p;
	uint32_t np;
	struct replay_u64map fds; /* (pid, fd) -> path id | O_APPEND << 32 */
	/* old, new path id of each rename, in trace order; and (0, path id) of each mkdir */
	uint32_t *renames;
	size_t nrenames, caprenames;
	uint64_t *rename_at;	       /* the op number of each (renames[2 * i], [2 * i + 1]) */
	uint32_t *rename_prev;	       /* the one before it that made the same name, + 1 (0: none) */
	struct replay_u64map renamed_to; /* a name's path id -> the latest that made it, + 1 */
	int rename_lost;		 /* out of memory: rename_at and renamed_to incomplete */
	/* files that were in a directory the application renamed, by their names before */
	struct moved {
		char *name;
		uint32_t id; /* the path id that found it, under the new name */
	} *moved;
	size_t nmoved, capmoved;
	struct replay_strset moved_names;
	/* (pid, fd) -> size of the file open there before the capture (REEL_META_CAPTURE_FD_SIZES),
	 * until the first op on that fd */
	struct replay_u64map presize;
	/* (pid, fd) -> the file's size when the fd was opened, + 1 (the open's aux), when said:
	 * how much of the file a mapping through it could have read */
	struct replay_u64map opensz;
	/* fds first used after their name went (early__note): pid, fd, path id each; the fds
	 * the trace did not open that an op has used */
	uint32_t *early;
	struct replay_u64map preused;
	size_t nearly, capearly;
	struct lspan *links;
	uint32_t nlinks, caplinks;
	/* the application's symlinks standing as the scan stands: a hash of the name -> span + 1 */
	struct replay_u64map standing;
	/* each path first named below a standing one, per span: path id, span + 1, and whether
	 * that op found the path there (link__under); (path id << 32 | span + 1) -> 1 */
	uint32_t *under;
	size_t nunder, capunder;
	struct replay_u64map under_seen;
	/* holes the application's lseek(SEEK_DATA) found in files there before the capture */
	struct hole {
		uint32_t id;
		uint64_t lo, hi; /* hi UINT64_MAX: to the end */
	} *holes;
	size_t nholes, capholes;
	/* contents of symlinks there before the capture that the trace does not tell, made up
	 * for them (prelinks__standin): a content id with CONTENT_STANDIN names one of these */
	char **standins;
	uint32_t nstandins, capstandins;
	struct replay_fileset *fs;
	struct reel_reader *r;
	uint64_t nops;
};

/* a symlink content (lspan.content, pinfo.pre_content) that is not a path of the trace but
 * one of s->standins (path ids stay below 2^31: pinfo) */
#define CONTENT_STANDIN (1U << 31)

static const char *content__path(const struct scan *s, struct reel_reader *r, uint32_t c)
{
	if (!(c & CONTENT_STANDIN))
		return reel_reader__path(r, c);
	c &= ~CONTENT_STANDIN;
	return c < s->nstandins ? s->standins[c] : NULL;
}

static struct pinfo *pinfo(struct scan *s, uint32_t id)
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
static struct lspan *link__add(struct scan *s, uint32_t id, uint32_t content, uint64_t from)
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

/*
 * A rename at op t moved a symlink the application made to the name id: nothing was below it
 * (what the trace names below it is reached through the link, not what a directory held)
 */
static int link__renamed_in(const struct scan *s, uint32_t id, uint64_t t)
{
	for (uint32_t i = s->p[id].lspan; i; i = s->links[i - 1].prev)
		if (s->links[i - 1].from == t && !s->links[i - 1].pre)
			return 1;
	return 0;
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
 * fs->cut_names: the names cut, and those renamed to a name cut (an exchange is a rename each
 * way), latest rename first, so that a chain of renames reaches back to the first name. A
 * name marked whose file is not cut after all only costs the replay the list of its reads.
 * Each with the end of its last cut, + 1 (replay_deps.c: an async request after it).
 */
static int cuts__mark(struct scan *s)
{
	for (size_t i = s->nrenames; i >= 2; i -= 2) {
		struct pinfo *a = pinfo(s, s->renames[i - 2]), *b = pinfo(s, s->renames[i - 1]);

		if (a && b && b->cut) {
			a->cut = 1;
			if (b->cut_ns > a->cut_ns)
				a->cut_ns = b->cut_ns;
		}
	}
	for (uint32_t id = 1; id < s->np; id++) {
		const char *p = s->p[id].cut ? reel_reader__path(s->r, id) : NULL;

		if (p && replay_u64map__put(&s->fs->cut_names, replay_hash__bytes(p, strlen(p)),
					    s->p[id].cut_ns + 1))
			return -ENOMEM;
	}
	return 0;
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

static int hole__cmp(const void *a, const void *b)
{
	const struct hole *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * Gives the file fs->e[n] (path id id, just added) the holes found in it, merged and cut to
 * its size, as (lo, hi) pairs.
 */
static int holes__give(const struct scan *s, struct replay_fentry *e, uint32_t id)
{
	size_t lo = 0, hi = s->nholes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->holes[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < s->nholes && s->holes[i].id == id; i++) {
		uint64_t a = s->holes[i].lo;
		uint64_t b = s->holes[i].hi < e->size ? s->holes[i].hi : e->size;

		if (a >= b)
			continue;
		if (e->nholes && a <= e->holes[2 * e->nholes - 1]) {
			if (b > e->holes[2 * e->nholes - 1])
				e->holes[2 * e->nholes - 1] = b;
			continue;
		}
		if (!(e->nholes & (e->nholes - 1))) { /* 0, 1, 2, 4...: full */
			uint64_t *t =
			    realloc(e->holes, 2 * (e->nholes ? 2 * e->nholes : 1) * sizeof(*t));

			if (!t)
				return -ENOMEM;
			e->holes = t;
		}
		e->holes[2 * e->nholes] = a;
		e->holes[2 * e->nholes + 1] = b;
		e->nholes++;
	}
	return 0;
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
static void scan__op(struct scan *s, const struct reel_op *op)
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

/*
 * The paths leading out of the target, not counting a directory above another of them: one
 * path ../../x/y/f is one, not its 5 directories too (it read "6 traced paths lead out").
 */
static uint64_t refused__count(const struct replay_strset *rel)
{
	uint64_t n = 0;

	if (rel->n > 4096) /* pairwise beyond that: each name counts, directories too */
		return rel->n;
	for (size_t i = 0; i < rel->n; i++) {
		size_t len = strlen(rel->str[i]);
		int above = 0;

		for (size_t j = 0; j < rel->n && !above; j++)
			above = !strncmp(rel->str[j], rel->str[i], len) && rel->str[j][len] == '/';
		n += !above;
	}
	return n;
}

static int fs__add(struct replay_fileset *fs, const struct replay_mapper *m, const char *path,
		   int kind, uint64_t size, int exec)
{
	char rel[PATH_MAX];
	int root, r;

	r = replay_mapper__map(m, path, &root, rel, sizeof(rel));
	if (r == -ENAMETOOLONG) { /* no such path can be made; its ops fail, each said */
		fs->too_long++;
		return 0;
	}
	if (r == -ENOENT) /* the empty path: no file to prepare */
		return 0;
	if (r)
		return r;
	if (!strcmp(rel, "."))
		return 0;
	/* ".." would lead out of the root: never prepared, and refused when replayed */
	if (!strcmp(rel, "..") || !strncmp(rel, "../", 3) || strstr(rel, "/../") ||
	    (strlen(rel) > 3 && !strcmp(rel + strlen(rel) - 3, "/.."))) {
		return replay_strset__add(&fs->refused_rel, rel) < 0 ? -ENOMEM : 0;
	}
	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 256;
		struct replay_fentry *e = realloc(fs->e, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		fs->e = e;
		fs->cap = cap;
	}
	fs->e[fs->n].rel = strdup(rel);
	fs->e[fs->n].root = root;
	fs->e[fs->n].kind = kind;
	fs->e[fs->n].size = size;
	fs->e[fs->n].exec = exec;
	fs->e[fs->n].direct_only = 0;
	fs->e[fs->n].content = NULL;
	fs->e[fs->n].holes = NULL;
	fs->e[fs->n].nholes = 0;
	if (kind == REPLAY_F_SYMLINK)
		fs->symlinks = 1;
	fs->n++;
	return 0;
}

/* A symlink with a known content; not added (0) where fs__add would add nothing either. */
static int fs__add_symlink(struct replay_fileset *fs, const struct replay_mapper *m,
			   const char *path, const char *content)
{
	size_t n = fs->n;
	int err = fs__add(fs, m, path, REPLAY_F_SYMLINK, strlen(content), 0);

	if (err || fs->n == n)
		return err;
	fs->e[n].content = strdup(content);
	return fs->e[n].content ? 0 : -ENOMEM;
}

static int fentry__cmp(const void *a, const void *b)
{
	const struct replay_fentry *x = a, *y = b;

	if (x->root != y->root)
		return x->root - y->root;
	return strcmp(x->rel, y->rel);
}

static const struct replay_fentry *fs__find(const struct replay_fileset *fs, int root,
					    const char *rel)
{
	struct replay_fentry key = {.rel = (char *)rel, .root = root};

	return fs->n ? bsearch(&key, fs->e, fs->n, sizeof(*fs->e), fentry__cmp) : NULL;
}

static uint64_t str__key(const char *p)
{
	return replay_hash__key('S', replay_hash__bytes(p, strlen(p)), 0);
}

/* a name whose object there before the capture was a symlink or no directory (pre_islink,
 * pre_nondir), gone before op t: what the trace names below it from t on is not in that */
static int pre__gone_nondir(const struct pinfo *a, uint64_t t)
{
	return (a->pre_islink || a->pre_nondir) && a->gone_op && t > a->gone_op;
}

/* Below a directory the application made: could not exist before the capture either. */
static int below_created(const struct replay_strset *created, const char *p)
{
	char buf[PATH_MAX], *slash;

	if (strlen(p) >= sizeof(buf))
		return 0;
	strcpy(buf, p);
	while ((slash = strrchr(buf, '/')) && slash != buf) {
		*slash = '\0';
		if (replay_strset__has(created, buf))
			return 1;
	}
	return 0;
}

/*
 * The directory above p, a name that a lookup found absent, taken as there: ENOENT does not
 * tell (a missing directory fails the lookup so too), but programs mostly look for names in
 * directories that exist (fio stats /tmp/fio-dump-status, a lock or a config file is looked
 * for where it would be), and a directory left out fails the replayed lookup one component
 * earlier, through another path of the kernel (fio's stat: 1.5-3x as slow). Not when the
 * trace tells otherwise of it or of a directory above it, at any time in the trace (which
 * spares weighing when: the inference stays on the safe side):
 *  - an op found it missing (a lookup of it, making it or a name in it: ENOENT), or it
 *    was the application's (made: P_CREATED, below_created has left p out then; or maybe
 *    made: an O_CREAT open, P_MAYBE);
 *  - it was removed, renamed away or replaced (gone): what is named below it after that is
 *    the application's, and before, a prepared one would fail its removal with ENOTEMPTY
 *    where the original's succeeded;
 *  - it was no directory (a file, a symlink).
 * A name whose making failed (a mkdir, an O_CREAT open: ENOENT) presumes nothing: its
 * directory was missing. made_missing holds the directories above such names.
 */
static int parent__presumed(const struct scan *s, const struct replay_u64map *ids,
			    const struct replay_strset *made_missing, uint32_t id, const char *p)
{
	char buf[PATH_MAX], *slash;

	if (!s->p[id].enoent_lookup || s->p[id].enoent_making || strlen(p) >= sizeof(buf))
		return 0;
	strcpy(buf, p);
	while ((slash = strrchr(buf, '/')) && slash != buf) {
		const struct pinfo *a;
		uint64_t *v;

		*slash = '\0';
		if (replay_strset__has(made_missing, buf))
			return 0;
		v = replay_u64map__get(ids, str__key(buf));
		if (!v || *v >= s->np)
			continue; /* named by no op: nothing tells against it */
		a = &s->p[*v];
		if (a->enoent_lookup || a->enoent_making || a->gone)
			return 0; /* found missing, or removed, at some time */
		if (a->state == P_CREATED || a->state == P_MAYBE)
			return 0; /* the application's */
		if (a->kind == REPLAY_F_FILE || a->pre_nondir || a->pre_islink || a->linked)
			return 0; /* no directory */
	}
	return 1;
}

/* the directory above each name whose making failed with ENOENT (parent__presumed) */
static int made_missing__collect(const struct scan *s, struct reel_reader *r,
				 struct replay_strset *made_missing)
{
	char buf[PATH_MAX], *slash;

	for (uint32_t id = 1; id < s->np; id++) {
		const char *p = reel_reader__path(r, id);

		if (!p || !s->p[id].enoent_making || strlen(p) >= sizeof(buf))
			continue;
		strcpy(buf, p);
		slash = strrchr(buf, '/');
		if (!slash || slash == buf)
			continue;
		*slash = '\0';
		if (replay_strset__add(made_missing, buf) < 0)
			return -ENOMEM;
	}
	return 0;
}

/*
 * Parents of every traced path, except below directories the application made. A path that
 * was absent (ENOENT) says less: its parent may have been absent too, but every ancestor
 * known to exist was a directory (else the error would have been ENOTDIR). So for absent
 * paths, the ancestors from the deepest one known to exist upwards are directories, or all
 * of them when the one right above is presumed there (parent__presumed).
 */
static int collect_dirs(struct scan *s, struct reel_reader *r, const struct replay_u64map *ids,
			struct replay_strset *created, struct replay_strset *dirs)
{
	struct replay_strset existed = {0}, made_missing = {0};
	char buf[PATH_MAX];
	int err = made_missing__collect(s, r, &made_missing);

	for (uint32_t id = 1; id < s->np && !err; id++) {
		const char *p = reel_reader__path(r, id);

		if (p && s->p[id].state == P_EXISTED && replay_strset__add(&existed, p) < 0)
			err = -ENOMEM;
	}
	for (int pass = 0; pass < 2 && !err; pass++) {
		for (uint32_t id = 1; id < s->np && !err; id++) {
			const char *p = reel_reader__path(r, id);
			int absent = s->p[id].state == P_ABSENT, known;
			uint64_t *v;
			char *slash;

			if (!p || !s->p[id].state || absent != pass || replay_path__is_nonfile(p) ||
			    strlen(p) >= sizeof(buf) || below_created(created, p))
				continue;
			known = absent && parent__presumed(s, ids, &made_missing, id, p);
			strcpy(buf, p);
			while ((slash = strrchr(buf, '/')) && slash != buf) {
				*slash = '\0';
				if (replay_strset__has(created, buf))
					break;
				/* a symlink or a file there before, removed or replaced since: what
				 * is named below it now is in what the application put there */
				v = replay_u64map__get(ids, str__key(buf));
				if (v && *v < s->np && pre__gone_nondir(&s->p[*v], s->p[id].first_op))
					continue;
				if (absent && !known)
					known = replay_strset__has(&existed, buf) ||
						replay_strset__has(dirs, buf);
				if (absent && !known)
					continue;
				if (replay_strset__add(dirs, buf) < 0) {
					err = -ENOMEM;
					break;
				}
			}
		}
	}
	replay_strset__free(&existed);
	replay_strset__free(&made_missing);
	return err;
}

static int u64__cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Most threads alive at once, in trace order, a thread from its first op to its last: the
 * replay hands the worker of a thread whose ops are all dispatched on to the next new thread,
 * so it runs about this many (a build's thousands of short-lived processes: a few).
 */
static size_t max_live(const uint64_t *first, uint64_t *last, size_t n)
{
	size_t best = 0, ended = 0;

	if (!n) /* a trace without ops has no array: qsort() of NULL is undefined */
		return 0;
	qsort(last, n, sizeof(*last), u64__cmp);
	for (size_t i = 0; i < n; i++) { /* first[] ascends: threads in order of appearance */
		while (ended < n && last[ended] < first[i])
			ended++;
		if (i + 1 - ended > best)
			best = i + 1 - ended;
	}
	return best;
}

/*
 * A name seen to exist, first named after a directory above it was gone (removed, renamed
 * away, replaced): found in a directory the application made again, so made by it too.
 */
static void made_again__mark(struct scan *s, struct reel_reader *r, const struct replay_u64map *ids)
{
	char buf[PATH_MAX], *slash;

	for (uint32_t id = 1; id < s->np; id++) {
		struct pinfo *pi = &s->p[id];
		const char *p;

		if (pi->state != P_EXISTED || !pi->first_op || pi->came_back ||
		    !(p = reel_reader__path(r, id)) || strlen(p) >= sizeof(buf))
			continue;
		strcpy(buf, p);
		while ((slash = strrchr(buf, '/')) && slash != buf) {
			uint64_t *v;

			*slash = '\0';
			v = replay_u64map__get(ids, str__key(buf));
			if (!v || *v >= s->np)
				continue;
			/* only one that was there: below one the application made (a symlink:
			 * through__links) nothing is prepared anyway (below_created) */
			if (s->p[*v].state == P_EXISTED && !s->p[*v].linked && s->p[*v].gone_op &&
			    s->p[*v].gone_op < pi->first_op) {
				pi->state = P_CREATED;
				break;
			}
		}
	}
}

/* ---- what was in a directory the application renamed ---- */

/* q (a name before the capture) prepared as path id found it; once per name */
static int moved__add(struct scan *s, const char *q, uint32_t id)
{
	int r = replay_strset__add(&s->moved_names, q);

	if (r <= 0)
		return r < 0 ? -ENOMEM : 0;
	if (s->nmoved == s->capmoved) {
		size_t cap = s->capmoved ? s->capmoved * 2 : 16;
		struct moved *m = realloc(s->moved, cap * sizeof(*m));

		if (!m)
			return -ENOMEM;
		s->moved = m;
		s->capmoved = cap;
	}
	s->moved[s->nmoved].name = strdup(q);
	s->moved[s->nmoved].id = id;
	return s->moved[s->nmoved++].name ? 0 : -ENOMEM;
}

/* the latest rename to name id, or mkdir of it, before op t: its index + 1, 0 if none */
static size_t made__before(const struct scan *s, uint32_t id, uint64_t t)
{
	uint64_t *v = replay_u64map__get(&s->renamed_to, id);

	for (size_t i = v ? *v : 0; i; i = s->rename_prev[i - 1])
		if (s->rename_at[i - 1] < t)
			return i;
	return 0;
}

/*
 * p, first named at op *t: where it was before the capture when a directory above it is one a
 * rename moved there before *t (mv olddir newdir, then the files in it used by their new
 * names), through chains of renames. In out, with *t the op of the first of those renames: 1.
 * 2: a name on the way the trace named before the rename that moved it, and found there (its
 * own entry, whatever it is, stands for it). 0: no such directory above it, or one a mkdir
 * made last (the application's), the application's under a name on the way, or too long.
 */
static int rename__origin(const struct scan *s, struct reel_reader *r,
			  const struct replay_u64map *ids, const char *p, uint64_t *t, char *out,
			  size_t outsz)
{
	char buf[PATH_MAX], anc[PATH_MAX], *slash;
	int moved = 0;

	if (strlen(p) >= sizeof(buf))
		return 0;
	strcpy(buf, p);
	for (int hops = 0; hops < 64; hops++) {
		const char *old;
		size_t i = 0;
		uint64_t *v;

		/* the deepest name above it that a rename or a mkdir made before *t: what was
		 * below it then came with that rename (a mkdir: the application's) */
		strcpy(anc, buf);
		while (!i && (slash = strrchr(anc, '/')) && slash != anc) {
			*slash = '\0';
			v = replay_u64map__get(ids, str__key(anc));
			if (v && *v < s->np)
				i = made__before(s, (uint32_t)*v, *t);
		}
		if (!i)
			break;
		/* a symlink moved there (ln -s v2 tmp; mv tmp cur): followed (through__links) */
		if (link__renamed_in(s, s->renames[2 * (i - 1) + 1], s->rename_at[i - 1]))
			return 0;
		old = s->renames[2 * (i - 1)] ? reel_reader__path(r, s->renames[2 * (i - 1)]) : NULL;
		if (!old || strlen(old) + strlen(buf) - strlen(anc) >= sizeof(anc))
			return 0;
		/* the same below the old name: anc still holds the new one */
		snprintf(anc, sizeof(anc), "%s%s", old, buf + strlen(anc));
		strcpy(buf, anc);
		*t = s->rename_at[i - 1];
		moved = 1;
		/* named by it before that rename: there then if found so, else the application's
		 * (made in the directory under its name then) */
		v = replay_u64map__get(ids, str__key(buf));
		if (v && *v < s->np && s->p[*v].first_op && s->p[*v].first_op < *t) {
			if (s->p[*v].state != P_EXISTED || strlen(buf) >= outsz)
				return 0;
			strcpy(out, buf);
			return 2;
		}
	}
	if (!moved || strlen(buf) >= outsz)
		return 0;
	strcpy(out, buf);
	return 1;
}

/*
 * What pi found, for qi, the same file by the name it had before, which the trace names too:
 * its size, not its kind, which qi's own ops (and the names below it) tell as well, and
 * which a guess under the new name (a mkdir failing with EEXIST) would turn (stress seed
 * 3305: a file prepared as a directory).
 */
static void renamed__merge(struct pinfo *qi, const struct pinfo *pi)
{
	if (pi->size > qi->size)
		qi->size = pi->size;
	qi->exec |= pi->exec;
}

/* the name q (a name before the capture) is known to have been there (renamed__collect) */
static int renamed__known(const struct scan *s, const struct replay_u64map *ids,
			  const struct replay_strset *dirs, const char *q)
{
	uint64_t *v = replay_u64map__get(ids, str__key(q));

	return replay_strset__has(dirs, q) || replay_strset__has(&s->moved_names, q) ||
	       (v && *v < s->np && s->p[*v].state == P_EXISTED);
}

/*
 * The names first found below a directory the application had renamed, where they were
 * before (rename__origin), as collect_dirs and the file entries do for the others: one found
 * existing into s->moved with the path id that found it (its size; a directory into dirs),
 * unless the trace names it by the old name too (then that entry, made as large as both say);
 * the directories above each, and above one the application made there; above one found
 * absent, those from the deepest known to exist up (a second pass, when all are known).
 */
static int renamed__collect(struct scan *s, struct reel_reader *r,
			    const struct replay_u64map *ids, struct replay_strset *dirs)
{
	char q[PATH_MAX], buf[PATH_MAX], *slash;
	int err = 0;

	if (!s->nrenames || s->rename_lost)
		return 0;
	for (int pass = 0; pass < 2 && !err; pass++) {
		for (uint32_t id = 1; id < s->np && !err; id++) {
			struct pinfo *pi = &s->p[id];
			const char *p = reel_reader__path(r, id);
			int absent = pi->state == P_ABSENT, known, how;
			uint64_t t = pi->first_op, *v;
			struct pinfo *qi;

			if (!p || !pi->state || pi->state == P_MAYBE || absent != pass || !t ||
			    replay_path__is_nonfile(p) ||
			    !(how = rename__origin(s, r, ids, p, &t, q, sizeof(q))))
				continue;
			v = replay_u64map__get(ids, str__key(q));
			qi = v && *v < s->np ? &s->p[*v] : NULL;
			if (how == 2) {
				if (pi->state == P_EXISTED && qi)
					renamed__merge(qi, pi);
				continue;
			}
			if (pi->state == P_EXISTED && qi && qi->state != P_EXISTED &&
			    qi->first_op && qi->first_op < t)
				continue; /* the application made it, or it was not there */
			if (pi->state != P_EXISTED) {
				/* the application's, or absent: only the directories above it */
			} else if (qi == pi) {
				pi->came_back = 1; /* its directory went away and came back */
			} else if (qi && qi->state == P_EXISTED) {
				renamed__merge(qi, pi);
			} else if (pi->kind == REPLAY_F_DIR) {
				err = replay_strset__add(dirs, q) < 0 ? -ENOMEM : 0;
			} else {
				err = moved__add(s, q, id);
			}
			strcpy(buf, q);
			known = !absent;
			while (!err && (slash = strrchr(buf, '/')) && slash != buf) {
				*slash = '\0';
				if (!known && !(known = renamed__known(s, ids, dirs, buf)))
					continue;
				err = replay_strset__add(dirs, buf) < 0 ? -ENOMEM : 0;
			}
		}
	}
	return err;
}

/*
 * The symlink by the name l that stood at op t (its span, + 1; 0: none): made before t, and
 * not removed or replaced before t. What the trace first names below the name otherwise is
 * in what stood there then: ln -s p0 n; rm n; mkdir n; mv olddir n/sub; then n/sub/f read is
 * in that directory, not where the link led (stress seed 5334: p0, a file, prepared as a
 * directory); a directory renamed in by n, its files used, renamed away, and only then a link
 * made by n (seed 6100); ln -s v2 tmp; mv tmp cur: cur/f named before leads where the old
 * link by cur led, after where v2 does. t 0: whenever, the latest link by the name.
 */
static uint32_t link__stood(const struct scan *s, uint32_t l, uint64_t t)
{
	uint32_t i = s->p[l].lspan;

	if (!t)
		return i;
	for (; i; i = s->links[i - 1].prev)
		if (s->links[i - 1].from < t)
			return !s->links[i - 1].to || t <= s->links[i - 1].to ? i : 0;
	return 0;
}

/*
 * The symlink the application made at p or above it, or one there before whose content the
 * trace tells, as it stood at op t, the first that named p (0: whenever): its span, + 1, 0
 * if none; *len the length of its name
 */
static uint32_t link__above(const struct scan *s, const struct replay_u64map *ids, const char *p,
			    uint64_t t, size_t *len)
{
	char buf[PATH_MAX];
	uint64_t *v;
	char *slash;

	if (strlen(p) >= sizeof(buf))
		return 0;
	strcpy(buf, p);
	do {
		uint32_t i;

		v = replay_u64map__get(ids, str__key(buf));
		if (v && *v < s->np && (i = link__stood(s, (uint32_t)*v, t))) {
			*len = strlen(buf);
			return i;
		}
	} while ((slash = strrchr(buf, '/')) && slash != buf && (*slash = '\0', 1));
	return 0;
}

/*
 * Where rest, below the symlink of span l (+ 1), finally leads: through l, then through every
 * symlink the trace knows at or above where that leads (java -> /etc/alternatives/java ->
 * /usr/lib/jvm/..), as the kernel would, up to its 40 links. -1 where one of them cannot be
 * followed.
 */
static int link__follow(const struct scan *s, struct reel_reader *r,
			const struct replay_u64map *ids, uint32_t l, const char *rest, char *to,
			size_t sz)
{
	char cur[PATH_MAX];
	size_t n;

	for (int hops = 0; hops < 40; hops++) {
		const struct lspan *ls = &s->links[l - 1];
		const struct pinfo *lp = &s->p[ls->name];

		/* one there before is followed also by an absolute content: the replay prepares
		 * it to lead where it led (replay_linkpath__disk) */
		if (replay_linkpath__resolve(lp->at ? lp->at : reel_reader__path(r, ls->name),
					     content__path(s, r, ls->content), ls->pre, rest, to,
					     sz))
			return -1;
		l = link__above(s, ids, to, 0, &n);
		if (!l)
			return 0;
		if (strlen(to) >= sizeof(cur))
			return -1;
		strcpy(cur, to);
		rest = cur + n;
	}
	return -1;
}

/*
 * The symlink there before the capture by the name id (prepared with disk), as a span: from
 * the start until the application first removed or replaced it, before any it made by id.
 */
static int link__add_pre(struct scan *s, uint32_t id)
{
	uint32_t newest = s->p[id].lspan, *oldest;
	struct lspan *l = link__add(s, id, s->p[id].pre_content, 0);

	if (!l)
		return -ENOMEM;
	l->pre = 1;
	l->to = s->p[id].gone_op;
	if (!newest)
		return 0;
	l->prev = 0;
	s->p[id].lspan = newest;
	for (oldest = &s->p[id].lspan; *oldest; oldest = &s->links[*oldest - 1].prev)
		;
	*oldest = s->nlinks;
	return 0;
}

/* the name of the stand-in directory for the symlink p into buf: ".NAME.ioreel-pre" beside
 * it, with a number when the trace names that too; the content (its last component) */
static const char *standin__name(const struct replay_u64map *ids, const char *p, char *buf,
				 size_t sz)
{
	const char *base = strrchr(p, '/') + 1;
	int len;

	for (unsigned k = 0; k < 100; k++) {
		len = k ? snprintf(buf, sz, "%.*s.%s.ioreel-pre%u", (int)(base - p), p, base, k)
			: snprintf(buf, sz, "%.*s.%s.ioreel-pre", (int)(base - p), p, base);
		if (len < 0 || (size_t)len >= sz || strlen(base) + 13 > NAME_MAX)
			return NULL;
		if (!replay_u64map__get(ids, str__key(buf)))
			return buf + (base - p);
	}
	return NULL;
}

/*
 * A name the trace shows was a symlink before the capture, or no directory (pinfo.pre_islink,
 * pre_nondir), with paths below it named while it stood, was a symlink to a directory:
 * "current -> v1", read as current/file, then switched (ln -s v2 tmp; mv -T tmp current) or
 * removed (rm; rm -rf of the tree). Prepared as a directory, the rename over it failed EISDIR
 * and the readlink after EINVAL, the unlink EISDIR. Without a content a readlink read before
 * the application changed it, it leads to a stand-in directory beside it (a hidden name,
 * standin__name), in which what those paths need is prepared (through__links), as where a
 * content leads: it resolves beneath the target whatever --map does with the names.
 */
static int prelinks__standin(struct scan *s, struct reel_reader *r,
			     const struct replay_u64map *ids)
{
	char buf[PATH_MAX], name[PATH_MAX], *slash;

	for (uint32_t id = 1; id < s->np; id++) {
		const char *p = reel_reader__path(r, id), *c;
		uint64_t t = s->p[id].first_op;

		/* found below it, or made there: it led to a directory (one found absent says
		 * less: the name itself may have been missing then) */
		if (!p || (s->p[id].state != P_EXISTED && s->p[id].state != P_CREATED) || !t ||
		    strlen(p) >= sizeof(buf))
			continue;
		strcpy(buf, p);
		while ((slash = strrchr(buf, '/')) && slash != buf) {
			uint64_t *v;
			struct pinfo *a;

			*slash = '\0';
			v = replay_u64map__get(ids, str__key(buf));
			if (!v || *v >= s->np)
				continue;
			a = &s->p[*v];
			if (!(a->pre_islink || a->pre_nondir) || a->pre_content ||
			    a->state == P_ABSENT || a->state == P_MAYBE ||
			    (a->gone_op && t > a->gone_op) ||
			    replay_path__is_nonfile(buf) ||
			    !(c = standin__name(ids, buf, name, sizeof(name))))
				continue;
			if (s->nstandins == s->capstandins) {
				uint32_t cap = s->capstandins ? s->capstandins * 2 : 8;
				char **n = realloc(s->standins, cap * sizeof(*n));

				if (!n)
					return -ENOMEM;
				s->standins = n;
				s->capstandins = cap;
			}
			s->standins[s->nstandins] = strdup(c);
			if (!s->standins[s->nstandins])
				return -ENOMEM;
			a->pre_content = CONTENT_STANDIN | s->nstandins++;
			a->state = P_EXISTED;
			a->kind = REPLAY_F_DIR; /* what it leads to, with what is below it */
		}
	}
	return 0;
}

/*
 * Symlinks there before the capture whose content the trace tells: prepared as symlinks. One
 * the application removed and made again later (git stash -u, then stash pop; ln -sf) too:
 * pre_content is only ever a readlink's from before the application made one.
 */
static int prelinks__plan(struct scan *s, struct reel_reader *r, const struct replay_mapper *m)
{
	char to[PATH_MAX], c[PATH_MAX];

	for (uint32_t id = 1; id < s->np; id++) {
		struct pinfo *pi = &s->p[id];
		const char *p = reel_reader__path(r, id);
		const char *content = content__path(s, r, pi->pre_content);

		if (!p || !content || pi->state != P_EXISTED ||
		    replay_path__is_nonfile(p) ||
		    replay_linkpath__resolve(p, content, 1, "", to, sizeof(to)) ||
		    replay_linkpath__disk(m, p, content, to, c, sizeof(c)))
			continue;
		pi->disk = strdup(c);
		if (!pi->disk || link__add_pre(s, id))
			return -ENOMEM;
	}
	return 0;
}

/*
 * A symlink below another (lib -> usr/lib, lib/libz.so.1 -> libz.so.1.2.13) lies where the
 * directory it is in leads (usr/lib/libz.so.1): it is prepared there (at), its content made
 * to lead from there as the kernel would take it. Rounds, as one found in a moved directory
 * moves those below it; a trace that names that place itself has it made the symlink.
 */
static int prelinks__place(struct scan *s, struct reel_reader *r, const struct replay_mapper *m,
			   const struct replay_u64map *ids)
{
	char dir[PATH_MAX], at[PATH_MAX], to[PATH_MAX], c[PATH_MAX];
	int changed = 1;

	for (int round = 0; round < 8 && changed; round++) {
		changed = 0;
		for (uint32_t id = 1; id < s->np; id++) {
			struct pinfo *pi = &s->p[id];
			const char *p = reel_reader__path(r, id), *base;
			const char *content = content__path(s, r, pi->pre_content);
			size_t n;
			uint32_t l;
			int len;

			if (!pi->disk || !(base = strrchr(p, '/')) || base == p ||
			    (size_t)(base - p) >= sizeof(dir))
				continue;
			memcpy(dir, p, (size_t)(base - p));
			dir[base - p] = '\0';
			l = link__above(s, ids, dir, pi->first_op, &n);
			if (!l || link__follow(s, r, ids, l, dir + n, to, sizeof(to)))
				continue;
			len = snprintf(at, sizeof(at), "%s%s", strcmp(to, "/") ? to : "", base);
			if (len < 0 || (size_t)len >= sizeof(at) ||
			    (pi->at && !strcmp(pi->at, at)) ||
			    replay_linkpath__resolve(at, content, 1, "", to, sizeof(to)) ||
			    replay_linkpath__disk(m, at, content, to, c, sizeof(c)))
				continue;
			free(pi->at);
			free(pi->disk);
			pi->at = strdup(at);
			pi->disk = strdup(c);
			if (!pi->at || !pi->disk)
				return -ENOMEM;
			changed = 1;
		}
	}
	for (uint32_t id = 1; id < s->np; id++) {
		struct pinfo *pi = &s->p[id], *d;
		uint64_t *tv = pi->at ? replay_u64map__get(ids, str__key(pi->at)) : NULL;

		if (!tv || *tv == id)
			continue;
		d = &s->p[*tv];
		if (d->state != P_EXISTED || d->linked || d->disk || d->app_owned)
			continue;
		d->pre_content = pi->pre_content;
		d->disk = strdup(pi->disk);
		if (!d->disk || link__add_pre(s, (uint32_t)*tv))
			return -ENOMEM;
	}
	return 0;
}

/*
 * What the application reached through a symlink that was there before, or one it made (cur
 * -> data.v1, read as cur), is its destination's: when the trace names the destination too
 * (python3 -> python3.11, both used), the destination is prepared as large as read by either
 * name. One the trace does not name is prepared by through__links. A path below such a
 * symlink that existed, or that the application made, says that it led to a directory (that
 * a file made through it needs).
 */
/* what was read by the name id (the link's own, for the link itself) through the link of span
 * l, rest below it, is its destination's when the trace names that and it was there */
static void merge__to(struct scan *s, struct reel_reader *r, const struct replay_u64map *ids,
		      uint32_t l, const char *rest, uint32_t id, int kind, uint64_t size, int exec)
{
	char to[PATH_MAX];
	uint64_t *tv;
	struct pinfo *d;

	if (link__follow(s, r, ids, l, rest, to, sizeof(to)) ||
	    !(tv = replay_u64map__get(ids, str__key(to))) || *tv == id)
		return;
	d = &s->p[*tv];
	if (d->state != P_EXISTED || d->app_owned || d->linked || d->disk)
		return;
	if (!d->kind)
		d->kind = kind;
	if (d->kind != REPLAY_F_DIR && size > d->size)
		d->size = size;
	d->exec |= exec;
}

static void prelinks__merge(struct scan *s, struct reel_reader *r, const struct replay_u64map *ids)
{
	for (uint32_t id = 1; id < s->np; id++) {
		const char *p = reel_reader__path(r, id);
		size_t n = 0;
		uint32_t l;

		if (!p || (s->p[id].state != P_EXISTED && s->p[id].state != P_CREATED))
			continue;
		l = link__above(s, ids, p, s->p[id].first_op, &n);
		if (l && s->links[l - 1].pre && s->links[l - 1].name != id &&
		    !s->p[s->links[l - 1].name].kind)
			s->p[s->links[l - 1].name].kind = REPLAY_F_DIR;
	}
	/* the application's links themselves: what was read through each (through) */
	for (uint32_t l = 1; l <= s->nlinks; l++) {
		const struct lspan *ls = &s->links[l - 1];

		if (!ls->pre && ls->through_kind)
			merge__to(s, r, ids, l, "", ls->name, ls->through_kind, ls->through, 0);
	}
	for (uint32_t id = 1; id < s->np; id++) {
		const char *p = reel_reader__path(r, id);
		const struct pinfo *pi = &s->p[id];
		size_t n = 0;
		uint32_t l;

		if (!p || pi->state != P_EXISTED || pi->linked)
			continue;
		l = link__above(s, ids, p, pi->first_op, &n);
		if (l)
			merge__to(s, r, ids, l, p + n, id, pi->kind, pi->size, pi->exec);
	}
}

/*
 * Prepares path (a file or directory reached through a symlink) and its missing parents; not
 * when a parent is something the trace says could not hold it (a file, made, absent).
 */
static int through__add(const struct scan *s, const struct replay_u64map *ids,
			struct replay_fileset *fs, const struct replay_mapper *m,
			struct replay_strset *dirs, struct replay_strset *done, const char *path,
			int kind, uint64_t size, int exec, const char *content)
{
	char buf[PATH_MAX], *slash;
	uint64_t *tv;
	int err = 0;

	if (replay_strset__has(done, path) || replay_strset__has(dirs, path) ||
	    replay_path__is_nonfile(path) || replay_mapper__overlaps(m, path))
		return 0;
	if (replay_strset__add(done, path) < 0)
		return -ENOMEM;
	strcpy(buf, path);
	while (!err && (slash = strrchr(buf, '/')) && slash != buf) {
		*slash = '\0';
		if (replay_strset__has(dirs, buf) || replay_strset__has(done, buf))
			break;
		tv = replay_u64map__get(ids, str__key(buf));
		if (tv && s->p[*tv].state != P_UNKNOWN) {
			if (s->p[*tv].state == P_EXISTED && s->p[*tv].kind == REPLAY_F_DIR)
				break;
			return 0;
		}
		err = replay_strset__add(done, buf) < 0 ? -ENOMEM
							: fs__add(fs, m, buf, REPLAY_F_DIR, 0, 0);
	}
	if (err)
		return err;
	if (content)
		return fs__add_symlink(fs, m, path, content);
	return fs__add(fs, m, path, kind, kind == REPLAY_F_DIR ? 0 : size, exec);
}

/*
 * Every name above a path the trace says something of (found, made, found absent): a name
 * that existed with one below it was a directory, whatever else told its kind (an open below
 * a file fails with ENOTDIR), as collect_dirs has it for names not below a symlink.
 */
static int names_above(const struct scan *s, struct reel_reader *r, struct replay_strset *above)
{
	char buf[PATH_MAX], *slash;

	for (uint32_t id = 1; id < s->np; id++) {
		const char *p = reel_reader__path(r, id);

		if (!p || s->p[id].state == P_UNKNOWN || strlen(p) >= sizeof(buf))
			continue;
		strcpy(buf, p);
		while ((slash = strrchr(buf, '/')) && slash != buf) {
			*slash = '\0';
			if (replay_strset__has(above, buf))
				break;
			if (replay_strset__add(above, buf) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

/* Used through the symlink there before itself (opened, stat'd, read): its destination was
 * there. */
static int link__followed(const struct pinfo *pi)
{
	return pi->followed || pi->kind || pi->size || pi->exec;
}

/* through__links: prepares where the link of span l leads, rest below it, as kind */
static int through__one(struct scan *s, struct reel_reader *r, const struct replay_mapper *m,
			const struct replay_u64map *ids, struct replay_fileset *fs,
			struct replay_strset *dirs, const struct replay_strset *created,
			struct replay_strset *done, uint32_t l, const char *rest, int kind,
			uint64_t size, int exec)
{
	char to[PATH_MAX];
	uint64_t *tv;

	if (link__follow(s, r, ids, l, rest, to, sizeof(to)))
		return 0;
	tv = replay_u64map__get(ids, str__key(to));
	if ((tv && s->p[*tv].state != P_UNKNOWN) || below_created(created, to))
		return 0;
	return through__add(s, ids, fs, m, dirs, done, to,
			    kind == REPLAY_F_DIR ? REPLAY_F_DIR : REPLAY_F_FILE, size, exec, NULL);
}

/*
 * A name the application made below a symlink (ln -s v1 cur; mv a cur/b; or an O_CREAT open
 * by cur/b): the directory it was made in, where the link led, was there, unless the trace
 * tells something of that directory by its name below the link itself (then the loops of
 * through__links, or the application made it).
 */
static int through__made_in(struct scan *s, struct reel_reader *r, const struct replay_mapper *m,
			    const struct replay_u64map *ids, struct replay_fileset *fs,
			    struct replay_strset *dirs, const struct replay_strset *created,
			    struct replay_strset *done, uint32_t id)
{
	const char *p = reel_reader__path(r, id), *slash;
	char dir[PATH_MAX];
	uint64_t *tv;
	size_t n = 0;
	uint32_t l;

	if (!p || (s->p[id].state != P_CREATED && s->p[id].state != P_MAYBE) ||
	    !(l = link__above(s, ids, p, s->p[id].first_op, &n)) || s->links[l - 1].name == id ||
	    !(slash = strrchr(p, '/')) || (size_t)(slash - p) < n)
		return 0;
	memcpy(dir, p, (size_t)(slash - p));
	dir[slash - p] = '\0';
	tv = (size_t)(slash - p) > n ? replay_u64map__get(ids, str__key(dir)) : NULL;
	if (tv && s->p[*tv].state != P_UNKNOWN)
		return 0;
	return through__one(s, r, m, ids, fs, dirs, created, done, l, dir + n, REPLAY_F_DIR, 0, 0);
}

/*
 * Files the application reached only through a symlink it made (cur -> data.v1, opened and
 * read as cur), or through one that was there before and whose content readlink read: the
 * content says which, so they are prepared under their own names, unless the trace says
 * something of those names itself (made by the application, absent, or prepared already).
 * Contents of the application's links that are absolute or climb out are left alone: the
 * replay refuses to follow them. The links themselves come last: a path below one says that
 * what it leads to is a directory.
 */
static int through__links(struct scan *s, struct reel_reader *r, const struct replay_mapper *m,
			  const struct replay_u64map *ids, struct replay_fileset *fs,
			  struct replay_strset *dirs, const struct replay_strset *created)
{
	struct replay_strset done = {0}, above = {0};
	char to[PATH_MAX];
	int err = names_above(s, r, &above);

	/* symlinks below one, where they really lie (prelinks__place), first */
	for (uint32_t id = 1; id < s->np && !err; id++) {
		struct pinfo *pi = &s->p[id];
		uint64_t *tv = pi->at ? replay_u64map__get(ids, str__key(pi->at)) : NULL;

		if (pi->at && (!tv || s->p[*tv].state == P_UNKNOWN) &&
		    !below_created(created, pi->at))
			err = through__add(s, ids, fs, m, dirs, &done, pi->at, REPLAY_F_SYMLINK, 0,
					   0, pi->disk);
	}
	/* the paths below links first, then the links themselves: there before (by name), then
	 * the application's (each link it made by its span: what opening it found) */
	for (int self = 0; self < 2 && !err; self++) {
		for (uint32_t id = 1; id < s->np && !err; id++) {
			const char *p = reel_reader__path(r, id);
			struct pinfo *pi = &s->p[id];
			size_t n = 0;
			uint32_t l;
			int kind;

			if (!p || pi->linked || pi->state != P_EXISTED)
				continue;
			l = link__above(s, ids, p, pi->first_op, &n);
			if (!l || (s->links[l - 1].name == id) != self ||
			    (self && !link__followed(pi)))
				continue;
			kind = pi->kind;
			if (!kind && replay_strset__has(&above, p))
				kind = REPLAY_F_DIR;
			err = through__one(s, r, m, ids, fs, dirs, created, &done, l, p + n, kind,
					   pi->size, pi->exec);
		}
	}
	for (uint32_t l = 1; l <= s->nlinks && !err; l++) {
		const struct lspan *ls = &s->links[l - 1];

		if (!ls->pre && ls->through_kind)
			err = through__one(s, r, m, ids, fs, dirs, created, &done, l, "",
					   ls->through_kind, ls->through, 0);
	}
	/* a path named again below a link made anew by its name since it was first named (cur/x
	 * read, then ln -s v2 tmp; mv tmp cur; cur/x read again), and found: where the later link
	 * led was there too, as the first one's was */
	for (size_t i = 0; i < s->nunder && !err; i++) {
		uint32_t id = s->under[i * 3], l = s->under[i * 3 + 1];
		const char *p = reel_reader__path(r, id), *name;
		const struct pinfo *pi = &s->p[id];
		size_t n = 0;
		int kind;

		if (!s->under[i * 3 + 2] || !p || pi->linked ||
		    link__above(s, ids, p, pi->first_op, &n) == l ||
		    !(name = reel_reader__path(r, s->links[l - 1].name)) ||
		    strncmp(p, name, strlen(name)))
			continue;
		kind = pi->kind ? pi->kind
				: replay_strset__has(&above, p) ? REPLAY_F_DIR : REPLAY_F_FILE;
		err = through__one(s, r, m, ids, fs, dirs, created, &done, l, p + strlen(name),
				   kind, pi->size, pi->exec);
	}
	for (uint32_t id = 1; id < s->np && !err; id++)
		err = through__made_in(s, r, m, ids, fs, dirs, created, &done, id);
	/* one there before, followed, then made again by the application: what the old one led
	 * to was there too (the loop above follows the application's content) */
	for (uint32_t id = 1; id < s->np && !err; id++) {
		const char *p = reel_reader__path(r, id);
		struct pinfo *pi = &s->p[id];
		uint64_t *tv;

		if (!p || !pi->linked || !pi->disk || !pi->pre_followed ||
		    replay_linkpath__resolve(pi->at ? pi->at : p,
					     content__path(s, r, pi->pre_content), 1, "", to,
					     sizeof(to)))
			continue;
		tv = replay_u64map__get(ids, str__key(to));
		if ((tv && s->p[*tv].state != P_UNKNOWN) || below_created(created, to))
			continue;
		err = through__add(s, ids, fs, m, dirs, &done, to, pi->pre_followed, 0, 0, NULL);
	}
	replay_strset__free(&done);
	replay_strset__free(&above);
	return err;
}

/*
 * fs->links_to: where each symlink the trace knows leads, when that is a path of the trace.
 * Ordered by name alone, a stat through a link ran before another thread's unlink of the file
 * it leads to (borgbackup after a script step that deleted files: as fast as possible the
 * stat of the link succeeded where it had found it dangling).
 */
static int links__note(const struct scan *s, struct reel_reader *r,
		       const struct replay_u64map *ids, struct replay_fileset *fs)
{
	char to[PATH_MAX];

	for (uint32_t id = 1; id < s->np; id++) {
		const struct pinfo *pi = &s->p[id];
		const char *p = reel_reader__path(r, id);
		uint64_t *tv;

		/* the latest link by the name (the replay's order knows one destination) */
		if (!p || !pi->lspan || link__follow(s, r, ids, pi->lspan, "", to, sizeof(to)))
			continue;
		tv = replay_u64map__get(ids, str__key(to));
		if (tv && *tv != id &&
		    replay_u64map__put(&fs->links_to, replay_hash__bytes(p, strlen(p)), *tv))
			return -ENOMEM;
	}
	return 0;
}

/* The fds early__note found, by the names they are prepared under (fs->e sorted): those whose
 * file is not prepared (a symlink's, one refused) are opened when first used, as before. */
static int early__map(struct scan *s, struct reel_reader *r, const struct replay_mapper *m,
		      struct replay_fileset *fs)
{
	char rel[PATH_MAX];
	int root;

	if (!s->nearly)
		return 0;
	fs->early = calloc(s->nearly, sizeof(*fs->early));
	if (!fs->early)
		return -ENOMEM;
	for (size_t i = 0; i < s->nearly; i++) {
		const char *p = reel_reader__path(r, s->early[i * 3 + 2]);
		const struct replay_fentry *e;
		struct replay_early_fd *ef = &fs->early[fs->nearly];

		if (!p || replay_mapper__map(m, p, &root, rel, sizeof(rel)))
			continue;
		e = fs__find(fs, root, rel);
		if (!e || e->kind == REPLAY_F_SYMLINK)
			continue;
		ef->rel = strdup(rel);
		if (!ef->rel)
			return -ENOMEM;
		ef->pid = s->early[i * 3];
		ef->fd = (int32_t)s->early[i * 3 + 1];
		ef->root = root;
		fs->nearly++;
	}
	return 0;
}

/* the two names of a rename lie under --map destinations on different file systems */
static int cross_fs(const struct replay_mapper *m, const char *a, const char *b)
{
	char rel[PATH_MAX];
	struct stat sa, sb;
	int ra, rb;

	if (replay_mapper__map(m, a, &ra, rel, sizeof(rel)) ||
	    replay_mapper__map(m, b, &rb, rel, sizeof(rel)) || ra == rb)
		return 0;
	return !fstat(m->roots[ra].fd, &sa) && !fstat(m->roots[rb].fd, &sb) &&
	       sa.st_dev != sb.st_dev;
}

/*
 * Renames that --map puts across file systems (etcd makes its WAL directory as wal.tmp and
 * renames it to wal: with the WAL mapped to a RAM disk, that rename fails EXDEV, and the
 * WAL's ops after it with it): counted, the first named, for a notice before the replay
 */
static int cross__collect(const struct scan *s, struct reel_reader *r,
			  const struct replay_mapper *m, struct replay_fileset *fs)
{
	if (m->n_roots < 2)
		return 0;
	for (size_t i = 0; i + 1 < s->nrenames; i += 2) {
		const char *a, *b;

		if (!s->renames[i]) /* a mkdir */
			continue;
		a = reel_reader__path(r, s->renames[i]);
		b = reel_reader__path(r, s->renames[i + 1]);
		if (!a || !b || replay_path__is_nonfile(a) || replay_path__is_nonfile(b) ||
		    !cross_fs(m, a, b))
			continue;
		if (!fs->cross_renames++) {
			fs->cross_from = strdup(a);
			fs->cross_to = strdup(b);
			if (!fs->cross_from || !fs->cross_to)
				return -ENOMEM;
		}
	}
	return 0;
}

int replay_fileset__scan(const char *trace, struct replay_mapper *m,
			 struct replay_fileset *fs)
{
	struct replay_strset created = {0}, dirs = {0};
	struct replay_u64map ids = {0};
	struct scan s = {.fs = fs};
	struct lookahead la;
	struct reel_reader *r;
	struct reel_op op;
	struct stat st;
	uint64_t *tv;
	int err, got_first = 0;
	size_t off;

	memset(fs, 0, sizeof(*fs));
	err = reel_reader__open(trace, &r);
	if (err)
		return err;
	s.r = r;
	/* the sizes of files open before the capture; without them (entries that do not parse,
	 * or out of memory), the reads and writes tell the sizes, as for an older trace */
	if (replay_u64map__load_fd_list(&s.presize, reel_reader__meta(r, REEL_META_CAPTURE_FD_SIZES),
					10))
		replay_u64map__free(&s.presize);
	/* in the order the dispatcher reads it: a stat moved after the create it saw does not
	 * make the file one that was there before */
	err = lookahead__init(&la);
	if (err) {
		lookahead__free(&la);
		reel_reader__close(r);
		return err;
	}
	while ((err = lookahead__next(&la, r, &op)) != 0) {
		if (err < 0) {
			/* damaged chunk: the reader resumes at the next whole one */
			if (err == -REEL_E_TRUNCATED)
				break;
			continue;
		}
		fs->nops++;
		if (!got_first || op.start_ns < fs->first_start_ns)
			fs->first_start_ns = op.start_ns;
		got_first = 1;
		if (op.start_ns > fs->last_start_ns)
			fs->last_start_ns = op.start_ns;
		if (op.end_ns > fs->last_end_ns)
			fs->last_end_ns = op.end_ns;
		scan__op(&s, &op);
		tv = replay_u64map__get(&s.tidset, (uint64_t)op.pid << 32 | op.tid);
		if (tv) {
			fs->tid_ops[*tv]++;
			s.tlast[*tv] = fs->nops;
			continue;
		}
		if (fs->ntids == s.tidcap) {
			size_t cap = s.tidcap ? s.tidcap * 2 : 64;
			uint64_t *t = realloc(fs->tids, cap * sizeof(*t));
			uint64_t *c = t ? realloc(fs->tid_ops, cap * sizeof(*c)) : NULL;
			uint64_t *f = c ? realloc(s.tfirst, cap * sizeof(*f)) : NULL;
			uint64_t *l = f ? realloc(s.tlast, cap * sizeof(*l)) : NULL;

			if (t)
				fs->tids = t;
			if (c)
				fs->tid_ops = c;
			if (f)
				s.tfirst = f;
			if (!l) {
				err = -ENOMEM;
				break;
			}
			s.tlast = l;
			s.tidcap = cap;
		}
		s.tfirst[fs->ntids] = s.tlast[fs->ntids] = fs->nops;
		fs->tid_ops[fs->ntids] = 1;
		fs->tids[fs->ntids] = (uint64_t)op.pid << 32 | op.tid;
		replay_u64map__put(&s.tidset, (uint64_t)op.pid << 32 | op.tid, fs->ntids++);
	}

	if (err == -REEL_E_TRUNCATED)
		err = 0; /* a trace cut short (crash, still being written): use what is there */
	if (!err)
		fs->max_live = max_live(s.tfirst, s.tlast, fs->ntids);
	/* every path known before any is mapped: a glob --map's directories map to TO itself */
	for (uint32_t id = 1; id < s.np && !err; id++) {
		const char *p = reel_reader__path(r, id);

		if (p)
			err = replay_mapper__learn(m, p);
	}
	/*
	 * A file there before that the application wrote, cut, removed, replaced or renamed: as
	 * long as it was then (when an open or a stat said it first), so that writes in place
	 * stay in place and an unlink, a truncate or a rename over it frees as many blocks as in
	 * the original (ext4: ms for a large file, us for an empty one). Not a file only read:
	 * its bytes read are all it needs, and a large one open for a few reads would cost its
	 * whole size to prepare.
	 */
	for (uint32_t id = 1; id < s.np; id++) {
		struct pinfo *pi = &s.p[id];
		int changed = pi->written || pi->app_owned || pi->gone || pi->remade;

		if (pi->presize > pi->size && changed && pi->state == P_EXISTED && !pi->linked)
			pi->size = pi->presize;
	}
	if (!err)
		err = cuts__mark(&s);
	fs->map_hits = calloc(m->n_rules ? m->n_rules : 1, sizeof(*fs->map_hits));
	if (!fs->map_hits && !err)
		err = -ENOMEM;
	for (uint32_t id = 1; id < s.np && !err; id++) {
		const char *p = reel_reader__path(r, id);
		int rule;

		if (p && replay_u64map__put(&ids, str__key(p), id) < 0)
			err = -ENOMEM;
		if (p && !replay_path__is_nonfile(p) && (rule = replay_mapper__rule(m, p)) >= 0)
			fs->map_hits[rule]++;
	}
	if (!err)
		err = cross__collect(&s, r, m, fs);
	/* before made_again__mark, which takes what is below a rename's new name for made */
	if (!err)
		err = renamed__collect(&s, r, &ids, &dirs);
	if (!err)
		made_again__mark(&s, r, &ids);
	if (!err)
		err = prelinks__standin(&s, r, &ids);
	if (!err)
		err = prelinks__plan(&s, r, m);
	if (!err)
		err = prelinks__place(&s, r, m, &ids);
	if (!err)
		prelinks__merge(&s, r, &ids);
	for (uint32_t id = 1; id < s.np && !err; id++) {
		const char *p = reel_reader__path(r, id);

		/*
		 * Nothing is prepared below a name the application made, whatever it made it (a
		 * directory, a symlink, a file it later replaced by a directory; a rename's new
		 * name has the old one's kind only when an op said it): the op that made it says
		 * that neither it nor anything below it was there. Nor below a symlink that was
		 * there and is prepared as a symlink: it leads elsewhere.
		 */
		if (p && (s.p[id].state == P_CREATED || s.p[id].disk))
			err = replay_strset__add(&created, p) < 0 ? -ENOMEM : 0;
	}
	if (s.nholes)
		qsort(s.holes, s.nholes, sizeof(*s.holes), hole__cmp);
	if (!err)
		err = collect_dirs(&s, r, &ids, &created, &dirs);
	for (size_t i = 0; i < dirs.n && !err; i++) {
		if (replay_mapper__overlaps(m, dirs.str[i])) {
			snprintf(fs->overlap, sizeof(fs->overlap), "%s", dirs.str[i]);
			err = -EPERM;
			break;
		}
		err = fs__add(fs, m, dirs.str[i], REPLAY_F_DIR, 0, 0);
	}
	for (uint32_t id = 1; id < s.np && !err; id++) {
		const char *p = reel_reader__path(r, id);
		struct pinfo *pi = &s.p[id];

		if (!p || !pi->state || replay_path__is_nonfile(p))
			continue;
		if (replay_mapper__overlaps(m, p)) {
			snprintf(fs->overlap, sizeof(fs->overlap), "%s", p);
			err = -EPERM;
			break;
		}
		/* seen to exist, but inside a directory the application made: made by it too,
		 * through ops the trace lacks (a rename whose new name was not captured...) */
		if (pi->state != P_EXISTED || replay_strset__has(&dirs, p) ||
		    below_created(&created, p))
			continue;
		/*
		 * A symlink the application read but did not make. With its content in the trace
		 * (readlink's path2), it is made with that content (replay_linkpath__disk), and
		 * what was reached through it is prepared where it leads (through__links).
		 * Without it (old traces, strings cut short): used as nothing else (never opened,
		 * read, listed), it is made with a stand-in content of the length read that is
		 * never followed (replay_prepare.c), so that readlink replays as it ran; one that
		 * was also followed is prepared as what it led to instead (the readlink then
		 * fails, counted): the other ops need that more.
		 */
		if (pi->disk)
			err = fs__add_symlink(fs, m, p, pi->disk);
		else if (pi->linklen && !pi->kind && !pi->size)
			err = fs__add(fs, m, p, REPLAY_F_SYMLINK, pi->linklen, 0);
		else {
			size_t n = fs->n;

			err = fs__add(fs, m, p,
				      pi->kind == REPLAY_F_DIR ? REPLAY_F_DIR : REPLAY_F_FILE,
				      pi->kind == REPLAY_F_DIR ? 0 : pi->size, pi->exec);
			if (!err && fs->n > n && fs->e[n].kind == REPLAY_F_FILE) {
				fs->e[n].direct_only = pi->open_direct && !pi->open_cached;
				err = holes__give(&s, &fs->e[n], id);
			}
		}
		/* removed or replaced before anything said how long it was: prepared empty,
		 * its removal frees nothing (Tarantool's vinyl drops old run files by name
		 * alone: unlinks of 85-518 us on ext4 replayed in 2-7 us) */
		if (!err && pi->kind != REPLAY_F_DIR && !pi->size && !pi->sized && pi->gone)
			fs->unsized_gone++;
	}
	for (size_t i = 0; i < s.nmoved && !err; i++) {
		const struct pinfo *pi = &s.p[s.moved[i].id];

		if (replay_strset__has(&dirs, s.moved[i].name))
			continue; /* a directory: made with the others */
		if (replay_mapper__overlaps(m, s.moved[i].name)) {
			snprintf(fs->overlap, sizeof(fs->overlap), "%s", s.moved[i].name);
			err = -EPERM;
			break;
		}
		err = fs__add(fs, m, s.moved[i].name, REPLAY_F_FILE, pi->size, pi->exec);
	}
	if (!err)
		err = through__links(&s, r, m, &ids, fs, &dirs, &created);
	if (!err)
		err = links__note(&s, r, &ids, fs);
	if (!err && fs->n)
		qsort(fs->e, fs->n, sizeof(*fs->e), fentry__cmp);
	if (!err)
		err = early__map(&s, r, m, fs);

	/* identity: the trace file itself and the mapping, so that another --map re-prepares */
	if (!err && stat(trace, &st) == 0) {
		off = (size_t)snprintf(fs->identity, sizeof(fs->identity), "%llu:%llu:%lld.%09ld",
				       (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
				       (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
		off += (size_t)snprintf(fs->identity + off, sizeof(fs->identity) - off, ":%lld",
					(long long)st.st_size);
		for (int i = 0; i < m->n_roots && off < sizeof(fs->identity); i++)
			off += (size_t)snprintf(fs->identity + off, sizeof(fs->identity) - off,
						"|%s", m->roots[i].dir);
		for (size_t i = 0; i < m->n_rules && off < sizeof(fs->identity); i++)
			off += (size_t)snprintf(fs->identity + off, sizeof(fs->identity) - off,
						"|%s>%d", m->rules[i].from, m->rules[i].root);
	}
	replay_strset__free(&created);
	replay_strset__free(&dirs);
	replay_u64map__free(&ids);
	for (uint32_t id = 1; id < s.np; id++) {
		free(s.p[id].disk);
		free(s.p[id].at);
	}
	replay_u64map__free(&s.fds);
	free(s.renames);
	free(s.rename_at);
	free(s.rename_prev);
	replay_u64map__free(&s.renamed_to);
	for (size_t i = 0; i < s.nmoved; i++)
		free(s.moved[i].name);
	free(s.moved);
	replay_strset__free(&s.moved_names);
	replay_u64map__free(&s.presize);
	replay_u64map__free(&s.opensz);
	replay_u64map__free(&s.preused);
	free(s.early);
	free(s.links);
	free(s.holes);
	for (uint32_t i = 0; i < s.nstandins; i++)
		free(s.standins[i]);
	free(s.standins);
	replay_u64map__free(&s.standing);
	free(s.under);
	replay_u64map__free(&s.under_seen);
	replay_u64map__free(&s.tidset);
	free(s.tfirst);
	free(s.tlast);
	free(s.p);
	fs->refused = refused__count(&fs->refused_rel);
	reel_reader__damage_sum(r, &fs->damage);
	lookahead__free(&la);
	reel_reader__close(r);
	return err;
}

uint64_t replay_fileset__size(const struct replay_fileset *fs, int root, const char *rel)
{
	const struct replay_fentry *e = fs__find(fs, root, rel);

	return e && e->kind == REPLAY_F_FILE ? e->size : 0;
}

void replay_fileset__free(struct replay_fileset *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		free(fs->e[i].rel);
		free(fs->e[i].content);
		free(fs->e[i].holes);
	}
	free(fs->e);
	for (size_t i = 0; i < fs->nearly; i++)
		free(fs->early[i].rel);
	free(fs->early);
	free(fs->tids);
	free(fs->tid_ops);
	replay_strset__free(&fs->refused_rel);
	free(fs->map_hits);
	free(fs->cross_from);
	free(fs->cross_to);
	replay_u64map__free(&fs->dirs_changed);
	replay_u64map__free(&fs->links_to);
	replay_u64map__free(&fs->cut_names);
	memset(fs, 0, sizeof(*fs));
}
