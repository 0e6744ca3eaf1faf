/* SPDX-License-Identifier: MIT */
/*
 * replay_lookahead.c - the dispatcher's view of the trace, with one misplacement of trace
 * order mended: a lookup of a name placed on the wrong side of another thread's create or
 * removal of it, which its outcome tells.
 *
 * The dispatcher keeps trace order between threads where it matters (replay_deps.c): a stat
 * of a name that comes after another thread's create of it waits for the create, one that
 * comes before it goes first. But a create takes time, and a recording's trace is in end
 * order (an import's in start order): a stat that began while the create ran may have
 * found the file and still ended first (the create's dentry was there before its syscall
 * returned), or entered after it and found nothing. Replayed in trace order, the first
 * fails ENOENT and the second finds the file. Likewise for lookups beside an unlink or a
 * rename. A lookup whose outcome contradicts its place belongs on the other side, and its
 * time overlaps the op's when it does.
 *
 * (A recorder's event can also come late, when the thread is preempted in its exit probe:
 * a stat that failed before the create began may follow the create and its close.)
 *
 * So the trace is read LA_WINDOW ops ahead, and as each op comes into the window: a name
 * change moves the other threads' lookups of its names before it that saw its effect (and
 * overlapped it) to after it, and a lookup that did not see the effect of a name change
 * before it in the window goes ahead of it; the dispatcher then orders the two as it does
 * any. Only when nothing else is reordered by it (la__may_cross): the thread's ops between
 * the two places, which move with it, must all be lookups, of the name with the same
 * outcome or of names the change cannot touch (not beneath it); and the other threads' ops
 * crossed must make, move or remove no name and be no process op (a fork), and be lookups,
 * ops on fds, or name none of the moved ops' names; and be of another process when a moved
 * lookup opened an fd (an fd number both used). Otherwise the lookup stays where it was,
 * its outcome differing, counted as any is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h> /* RENAME_EXCHANGE */
#include <stdlib.h>
#include <string.h>

#include "replay_disp.h" /* op__is_open */
#include "replay_int.h"

static int op__makes_names(const struct reel_op *op)
{
	switch (op->type) {
	case REEL_OP_OPEN:
	case REEL_OP_OPENAT:
	case REEL_OP_OPENAT2:
		return !!(op->flags & O_CREAT);
	case REEL_OP_CREAT:
	case REEL_OP_UNLINK:
	case REEL_OP_UNLINKAT:
	case REEL_OP_RENAME:
	case REEL_OP_RENAMEAT:
	case REEL_OP_RENAMEAT2:
	case REEL_OP_MKDIR:
	case REEL_OP_MKDIRAT:
	case REEL_OP_RMDIR:
	case REEL_OP_LINK:
	case REEL_OP_LINKAT:
	case REEL_OP_SYMLINK:
	case REEL_OP_SYMLINKAT:
		return 1;
	default:
		return 0;
	}
}

/* an op that only looks its path up: what it returned says whether the name was there */
static int op__looks_up(const struct reel_op *op)
{
	switch (op->type) {
	case REEL_OP_OPEN:
	case REEL_OP_OPENAT:
	case REEL_OP_OPENAT2:
		/* not one that makes or cuts a file: its effect orders it too */
		return !(op->flags & (O_CREAT | O_TRUNC)) &&
		       (op->flags & O_TMPFILE) != O_TMPFILE;
	case REEL_OP_STAT:
	case REEL_OP_LSTAT:
	case REEL_OP_NEWFSTATAT:
	case REEL_OP_STATX:
	case REEL_OP_ACCESS:
	case REEL_OP_FACCESSAT:
	case REEL_OP_READLINK:
	case REEL_OP_READLINKAT:
		return op->path != 0 && !replay_op__on_fd(op); /* AT_EMPTY_PATH: an fd's */
	default:
		return 0;
	}
}

/* what a name change did: the name it made and the one it removed, path ids (0: none) */
struct la_change {
	uint32_t made, gone;
	/* made was not there before it: found there, a lookup ran after it. Not so of a
	 * rename onto a name or an O_CREAT open without O_EXCL, which may find it there */
	int made_new;
};

/* it fails where the name is there already */
static int op__exclusive(const struct reel_op *op)
{
	switch (op->type) {
	case REEL_OP_OPEN:
	case REEL_OP_OPENAT:
	case REEL_OP_OPENAT2:
		return (op->flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
	case REEL_OP_MKDIR:
	case REEL_OP_MKDIRAT:
	case REEL_OP_SYMLINK:
	case REEL_OP_SYMLINKAT:
	case REEL_OP_LINK:
	case REEL_OP_LINKAT:
		return 1;
	case REEL_OP_RENAMEAT2:
		return !!(op->flags & RENAME_NOREPLACE);
	default:
		return 0;
	}
}

/*
 * The name a successful op made (*made) and the one it removed (*gone), path ids (0: none).
 * RENAME_EXCHANGE leaves both names there: neither. 0 when it did neither.
 */
static int op__name_change(const struct reel_op *op, uint32_t *made, uint32_t *gone)
{
	*made = *gone = 0;
	if (op->ret < 0 || op->end_ns <= op->start_ns)
		return 0;
	switch (op->type) {
	case REEL_OP_OPEN:
	case REEL_OP_OPENAT:
	case REEL_OP_OPENAT2:
		if (op->flags & O_CREAT)
			*made = op->path;
		break;
	case REEL_OP_CREAT:
	case REEL_OP_MKDIR:
	case REEL_OP_MKDIRAT:
	case REEL_OP_SYMLINK:
	case REEL_OP_SYMLINKAT:
		*made = op->path;
		break;
	case REEL_OP_LINK:
	case REEL_OP_LINKAT:
		*made = op->path2;
		break;
	case REEL_OP_UNLINK:
	case REEL_OP_UNLINKAT:
	case REEL_OP_RMDIR:
		*gone = op->path;
		break;
	case REEL_OP_RENAME:
	case REEL_OP_RENAMEAT:
	case REEL_OP_RENAMEAT2:
		if (op->type == REEL_OP_RENAMEAT2 && (op->flags & RENAME_EXCHANGE))
			break;
		*gone = op->path;
		*made = op->path2;
		break;
	default:
		break;
	}
	return *made || *gone;
}

static int same_thread(const struct reel_op *a, const struct reel_op *b)
{
	return a->pid == b->pid && a->tid == b->tid;
}

static int names(const struct reel_op *op, uint32_t path)
{
	return path && (op->path == path || op->path2 == path);
}

/* a lookup of the change's names whose outcome says it ran before the change */
static int saw_before(const struct reel_op *op, const struct la_change *c)
{
	if (!op__looks_up(op))
		return 0;
	return (c->made && op->path == c->made && op->ret == -ENOENT) ||
	       (c->gone && op->path == c->gone && op->ret >= 0);
}

/* and after it */
static int saw_after(const struct reel_op *op, const struct la_change *c)
{
	if (!op__looks_up(op))
		return 0;
	return (c->made && c->made_new && op->path == c->made && op->ret >= 0) ||
	       (c->gone && op->path == c->gone && op->ret == -ENOENT);
}

typedef int (*saw_fn)(const struct reel_op *op, const struct la_change *c);

/*
 * The change at slot x made c->made: was the name missing before it? Sure for an op that
 * fails where it is there; else when a lookup before it in the window failed ENOENT, and no
 * other change of the name came between.
 */
static int la__made_new(const struct lookahead *la, size_t x, uint32_t made)
{
	uint32_t m, g;
	size_t i;

	if (op__exclusive(&la->q[x].op))
		return 1;
	for (i = x; i-- > la->head;) {
		const struct reel_op *op = &la->q[i].op;

		if (la->q[i].change && op__name_change(op, &m, &g) && (m == made || g == made))
			return 0;
		if (op__looks_up(op) && op->path == made)
			return op->ret == -ENOENT;
	}
	return 0;
}

/* path id p names something beneath directory id dir (unknown paths: taken to) */
static int la__below(const struct lookahead *la, uint32_t p, uint32_t dir)
{
	const char *ps, *ds;
	size_t dl;

	if (!p || !dir)
		return 0;
	ps = reel_reader__path(la->r, p);
	ds = reel_reader__path(la->r, dir);
	if (!ps || !ds)
		return 1;
	dl = strlen(ds);
	return strncmp(ps, ds, dl) == 0 && ps[dl] == '/';
}

/*
 * May an op of the moved thread cross the change (made, gone)? A lookup of its names that
 * saw it as seen() says, or of a name the change cannot touch: another, not beneath them.
 */
static int la__mover(const struct lookahead *la, const struct reel_op *op,
		     const struct la_change *c, saw_fn seen)
{
	if (!op__looks_up(op))
		return 0;
	if (names(op, c->made) || names(op, c->gone))
		return seen(op, c);
	return !la__below(la, op->path, c->made) && !la__below(la, op->path, c->gone);
}

/*
 * Can thread b's ops in slots [from, to] (the change at slot c among them, or at an end)
 * all cross the others there, to the other side of the change? Each of b's a mover; each
 * other thread's no name change, no process op; a lookup itself, an op on an fd (the path
 * the trace gives it is the fd's file's, not looked up), or naming none of the names b's
 * ops or the change name; and of another process when b's opened an fd. The change's
 * thread's ops past it may be crossed: the recorder may get a lookup's event late, after
 * theirs, and they are not name changes.
 */
static int la__may_cross(const struct lookahead *la, size_t from, size_t to, size_t c,
			 const struct reel_op *b, const struct la_change *ch, saw_fn seen)
{
	int opens = 0;
	size_t i, j;

	for (i = from; i <= to; i++) {
		const struct reel_op *op = &la->q[i].op;

		if (la->q[i].err <= 0)
			return 0;
		if (i != c && same_thread(op, b)) {
			if (!la__mover(la, op, ch, seen))
				return 0;
			opens |= op->ret >= 0 && op__is_open(op->type);
		}
	}
	for (i = from; i <= to; i++) {
		const struct reel_op *op = &la->q[i].op;

		if (i == c || same_thread(op, b))
			continue;
		if (op__makes_names(op) || reel_op__is_process(op->type) ||
		    (opens && op->pid == b->pid))
			return 0;
		if (op__looks_up(op) || !reel_op__has_path(op->type))
			continue; /* lookups are not ordered among themselves; fd ops name no name */
		if (names(op, ch->made) || names(op, ch->gone))
			return 0;
		for (j = from; j <= to; j++)
			if (j != c && same_thread(&la->q[j].op, b) &&
			    (names(op, la->q[j].op.path) || names(op, la->q[j].op.path2)))
				return 0;
	}
	return 1;
}

/*
 * The lookup at slot x did not see the change at slot c < x: it goes ahead of it, with its
 * thread's ops in between, when that reorders nothing else. A stable partition of [c, x]:
 * thread b's ops, then the rest in their order.
 */
static void la__before(struct lookahead *la, size_t c, size_t x, const struct la_change *ch)
{
	const struct reel_op b = la->q[x].op;
	size_t i, k, o;

	if (!la__may_cross(la, c, x, c, &b, ch, saw_before))
		return;
	for (i = c, k = 0, o = 0; i <= x; i++) {
		if (same_thread(&la->q[i].op, &b))
			la->q[c + k++] = la->q[i];
		else
			la->tmp[o++] = la->q[i];
	}
	memcpy(&la->q[c + k], la->tmp, o * sizeof(*la->tmp));
	la->moved += k;
}

/*
 * The change at slot x came in: each other thread's earliest lookup in the window that saw
 * its effect (and overlapped it in time) goes after it, with that thread's ops since, when
 * that reorders nothing else. A stable partition of [first, x]: the others' ops in their
 * order, the change, then thread b's.
 */
static void la__after(struct lookahead *la, size_t x, const struct la_change *chg)
{
	struct reel_op tried[LA_TRIED];
	size_t ntried = 0, i, j, k, o, first;

	for (i = x; i-- > la->head;) {
		const struct reel_op b = la->q[i].op;
		const struct reel_op ch = la->q[x].op;

		if (la->q[i].err <= 0 || !saw_after(&b, chg) || same_thread(&b, &ch) ||
		    b.end_ns <= ch.start_ns)
			continue;
		for (j = 0; j < ntried && !same_thread(&tried[j], &b); j++)
			;
		if (j < ntried)
			continue; /* its run was tried */
		if (ntried == LA_TRIED)
			return;
		tried[ntried++] = b;
		/* back from here over its movers to the earliest that saw the change */
		first = i;
		for (j = i; j-- > la->head;) {
			const struct reel_op *op = &la->q[j].op;

			if (!same_thread(op, &b))
				continue;
			if (la->q[j].err <= 0 || !la__mover(la, op, chg, saw_after))
				break;
			if (saw_after(op, chg) && op->end_ns > ch.start_ns)
				first = j;
		}
		if (!la__may_cross(la, first, x, x, &b, chg, saw_after))
			continue;
		for (j = first, k = 0, o = 0; j <= x; j++) {
			if (same_thread(&la->q[j].op, &b))
				la->tmp[k++] = la->q[j];
			else
				la->q[first + o++] = la->q[j];
		}
		memcpy(&la->q[first + o], la->tmp, k * sizeof(*la->tmp));
		la->moved += k;
		x = first + o - 1; /* the change, now before b's ops */
		i = x;		   /* the slots before it again: the move has shifted them */
	}
}

/* op x has come into the window: the lookups on the wrong side of a name change move */
static void la__arrived(struct lookahead *la, size_t x)
{
	struct la_slot *s = &la->q[x];
	struct la_change chg = {0};
	size_t c;

	if (op__name_change(&s->op, &chg.made, &chg.gone)) {
		s->change = 1;
		la->nchanges++;
		chg.made_new = chg.made && la__made_new(la, x, chg.made);
		la__after(la, x, &chg);
		return;
	}
	if (!la->nchanges || !op__looks_up(&s->op))
		return;
	for (c = x; c-- > la->head;) {
		const struct reel_op *ch = &la->q[c].op;

		if (!la->q[c].change || same_thread(ch, &s->op) ||
		    s->op.start_ns >= ch->end_ns)
			continue;
		op__name_change(ch, &chg.made, &chg.gone);
		if (saw_before(&s->op, &chg)) {
			la__before(la, c, x, &chg);
			return;
		}
	}
}

int lookahead__next(struct lookahead *la, struct reel_reader *r, struct reel_op *op)
{
	struct la_slot *s;

	la->r = r;
	if (la->off)
		return reel_reader__next(r, op);
	/* read on until the window is full, or up to an error or the end, which is taken out
	 * before the reader goes on (its damage is the one last read) */
	while (!la->held && la->n - la->head < LA_WINDOW) {
		if (la->n == LA_CAP) {
			memmove(la->q, la->q + la->head, (la->n - la->head) * sizeof(*la->q));
			la->n -= la->head;
			la->head = 0;
		}
		s = &la->q[la->n];
		s->change = 0;
		s->err = reel_reader__next(r, &s->op);
		la->n++;
		if (s->err <= 0)
			la->held = 1;
		else
			la__arrived(la, la->n - 1);
	}
	if (la->head == la->n)
		return reel_reader__next(r, op); /* an error taken out before: the reader's next */
	s = &la->q[la->head++];
	if (s->err > 0)
		*op = s->op;
	else if (s->err < 0)
		la->held = 0; /* damage the reader can read past */
	la->nchanges -= s->change;
	return s->err;
}

const struct reel_op *lookahead__peek(const struct lookahead *la)
{
	if (la->off || la->head == la->n || la->q[la->head].err <= 0)
		return NULL;
	return &la->q[la->head].op;
}

int lookahead__init(struct lookahead *la)
{
	memset(la, 0, sizeof(*la));
	la->off = !!getenv("IOREEL_TEST_NO_LOOKAHEAD");
	la->q = malloc(LA_CAP * sizeof(*la->q));
	la->tmp = malloc(LA_WINDOW * sizeof(*la->tmp));
	return la->q && la->tmp ? 0 : -ENOMEM;
}

void lookahead__free(struct lookahead *la)
{
	free(la->q);
	free(la->tmp);
	la->q = la->tmp = NULL;
}
