/* SPDX-License-Identifier: MIT */
/*
 * replay_fileset.c - one streaming pass over the trace that works out the file tree the
 * application found when the capture started, so that it can be recreated under the target.
 * This file runs the pass and makes the file set of what it found; replay_fileset_scan.c
 * takes each op (scan__op), replay_fileset_links.c works out where the symlinks there before
 * the capture lead; replay_fileset_int.h holds what they share (struct scan, struct pinfo).
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

#include "replay_lookahead.h"
#include "replay_fileset_int.h"

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

int fs__add(struct replay_fileset *fs, const struct replay_mapper *m, const char *path,
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
int fs__add_symlink(struct replay_fileset *fs, const struct replay_mapper *m,
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

uint64_t str__key(const char *p)
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
int below_created(const struct replay_strset *created, const char *p)
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
