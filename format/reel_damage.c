// SPDX-License-Identifier: MIT
/*
 * reel_damage.c - what damage cost, in words. Every command that reads a trace says it with
 * these, so that info, dump, replay and report never disagree about what was lost.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "reel.h"

struct sbuf {
	char *p;
	size_t len;
	size_t at;
};

static void sb_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->at >= b->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->at, b->len - b->at, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->at += (size_t)n;
}

#define FOOTER_WORDS "the footer (totals, chunk index, late meta such as lost_events)"
#define META_WORDS "the head meta (host, kernel, command)"

/* Lists the lost items as "A, B and C", in file order. */
static void sb_items(struct sbuf *b, const char **items, int n)
{
	for (int i = 0; i < n; i++)
		sb_add(b, "%s%s", i == 0 ? "" : i == n - 1 ? " and " : ", ", items[i]);
}

/*
 * One region's words say what it held that was skipped, never what the whole trace lost:
 * only the footer's total, once the reading is over, tells that (a chunk spliced out whole
 * leaves no region; a skipped chunk may repeat one that was read). The sum below says it.
 */
const char *reel_damage__describe(const struct reel_damage *d, char *buf, size_t len)
{
	struct sbuf b = {buf, len, 0};
	const char *items[3];
	char ops[96];
	int n = 0;

	if (!len)
		return buf;
	buf[0] = 0;
	sb_add(&b, "%s", reel_strerror(d->err));
	if (d->truncated)
		sb_add(&b, ", the trace ends at byte %" PRIu64, d->resume);
	if (!d->lost) {
		sb_add(&b, ": nothing skipped, it held no op, meta or footer");
		return buf;
	}
	if (d->lost & REEL_LOST_META)
		items[n++] = META_WORDS;
	if (d->lost & REEL_LOST_OPS) {
		if (d->ops_lost != REEL_OPS_UNKNOWN)
			snprintf(ops, sizeof(ops), "%" PRIu64 " op%s", d->ops_lost,
				 d->ops_lost == 1 ? "" : "s");
		else if (d->truncated)
			snprintf(ops, sizeof(ops), "any ops recorded after byte %" PRIu64,
				 d->offset);
		else
			snprintf(ops, sizeof(ops),
				 "the ops of bytes %" PRIu64 "-%" PRIu64 " (how many is unknown)",
				 d->offset, d->resume);
		items[n++] = ops;
	}
	if (d->lost & REEL_LOST_FOOTER)
		items[n++] = FOOTER_WORDS;
	sb_add(&b, ": skipped ");
	sb_items(&b, items, n);
	if (!(d->lost & REEL_LOST_OPS))
		sb_add(&b, "; no ops in it");
	return buf;
}

/* The footer's total disagrees with what the regions held: say where the count comes from. */
static void sb_recount(struct sbuf *b, const struct reel_damage_sum *s)
{
	bool repeat = s->ops_read > s->footer_ops;

	if (s->footer_ops == REEL_OPS_UNKNOWN || (!repeat && s->region_ops == s->ops_lost))
		return;
	sb_add(b, " (the footer counts %" PRIu64 " op%s, ", s->footer_ops,
	       s->footer_ops == 1 ? "" : "s");
	if (s->ops_read == s->footer_ops)
		sb_add(b, "and as many were read)");
	else
		sb_add(b, "%" PRIu64 " %s read%s)", s->ops_read, s->ops_read == 1 ? "was" : "were",
		       repeat ? ": some more than once" : "");
}

const char *reel_damage_sum__describe(const struct reel_damage_sum *s, char *buf, size_t len)
{
	struct sbuf b = {buf, len, 0};
	const char *items[2];
	int n = 0;

	if (!len)
		return buf;
	buf[0] = 0;
	if (!s->lost)
		sb_add(&b, "nothing lost, every op and the footer were read");
	else if (!(s->lost & REEL_LOST_OPS))
		sb_add(&b, "no ops lost");
	else if (s->ops_lost == REEL_OPS_UNKNOWN)
		sb_add(&b, "an unknown number of ops lost");
	else
		sb_add(&b, "%" PRIu64 " op%s lost", s->ops_lost, s->ops_lost == 1 ? "" : "s");
	sb_recount(&b, s);
	if (s->lost & REEL_LOST_META)
		items[n++] = META_WORDS;
	if (s->lost & REEL_LOST_FOOTER)
		items[n++] = FOOTER_WORDS;
	if (n) {
		sb_add(&b, s->lost & REEL_LOST_OPS ? ", and " : ", only ");
		sb_items(&b, items, n);
	}
	return buf;
}

const char *reel_damage_sum__headline(const struct reel_damage_sum *s, const char *name, char *buf,
				      size_t len)
{
	char what[384];

	snprintf(buf, len, "%s is damaged at byte %" PRIu64 " (%" PRIu64 " region%s): %s", name,
		 s->first_offset, s->regions, s->regions == 1 ? "" : "s",
		 reel_damage_sum__describe(s, what, sizeof(what)));
	return buf;
}

const char *reel_damage_sum__no_ops(const struct reel_damage_sum *s, char *buf, size_t len)
{
	char what[256];

	if (!s->regions)
		snprintf(buf, len, "the trace holds no ops");
	else if (s->regions == 1 && s->truncated)
		snprintf(buf, len, "truncated at byte %" PRIu64 ": no ops before the damage",
			 s->truncated_at);
	else
		snprintf(buf, len, "damaged at byte %" PRIu64 ": no op could be read (%s)",
			 s->first_offset, reel_damage_sum__describe(s, what, sizeof(what)));
	return buf;
}
