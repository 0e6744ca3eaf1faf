/* SPDX-License-Identifier: MIT */
/*
 * replay_fileset_links.c - the symlinks there before the capture: where each leads, through
 * chains of them, what to prepare where a link led, and a stand-in directory where no
 * readlink told (the rules: replay_fileset.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_fileset_int.h"

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
int prelinks__standin(struct scan *s, struct reel_reader *r,
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
int prelinks__plan(struct scan *s, struct reel_reader *r, const struct replay_mapper *m)
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
int prelinks__place(struct scan *s, struct reel_reader *r, const struct replay_mapper *m,
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

void prelinks__merge(struct scan *s, struct reel_reader *r, const struct replay_u64map *ids)
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
int through__links(struct scan *s, struct reel_reader *r, const struct replay_mapper *m,
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
int links__note(const struct scan *s, struct reel_reader *r,
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
