// SPDX-License-Identifier: MIT
/*
 * The streaming trace reader. It reads chunk after chunk through a sliding window (or a
 * caller's buffer), decompresses each ops chunk into a reusable buffer and decodes its
 * columns into an op array that next() hands out. Damage is reported once, then the
 * reader resynchronises on the next chunk magic (FORMAT.md, "Reading and damage").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_d_forceIgnoreChecksum, fuzzing builds only */
#include <zstd.h>
#include <zstd_errors.h>

#include "reel_internal.h"

#define WINDOW_MIN (1U << 20)
#define SCAN_STEP (64U << 10)

enum reader_state {
	ST_CHUNKS, /* pos is where the next chunk should start */
	ST_END,
};

/* An ops chunk as the footer's index lists it: what a damaged region there held. */
struct index_entry {
	uint64_t off;
	uint32_t nops;
	uint64_t first_start; /* its ops started from first_start to last_end at most */
	uint64_t last_end;
};

struct path_def {
	uint32_t id;
	char *s;
};

struct reel_reader {
	/* input: either mem/mem_len, or fd with a window [win_off, win_off + win_len) */
	const uint8_t *mem;
	size_t mem_len;
	int fd;
	bool seekable;
	bool fd_eof;
	uint8_t *win;
	size_t win_cap;
	size_t win_len;
	uint64_t win_off;

	uint16_t minor;
	enum reader_state state;
	uint64_t pos;
	uint64_t damage_off;
	bool seen_footer;
	bool footer_loaded;
	uint64_t footer_off;
	bool damaged; /* some chunk was skipped */
	bool head_seen;
	struct reel_damage last;
	struct reel_damage_sum sum;
	uint64_t ops_out; /* ops handed out, to tell against the footer's total */
	struct index_entry *index;
	size_t nindex;
	bool have_index; /* from a footer read at open: it can name what damage later costs */

	struct reel_op ops[REEL_DEC_BATCH]; /* the batch being handed out */
	size_t nops;
	size_t iop;

	uint8_t *payload;
	size_t payload_cap;
	ZSTD_DCtx *zd;
	struct reel_dec dec;

	struct reel_meta head;
	struct reel_meta foot;
	struct reel_meta all; /* head overridden by footer: what meta() answers */

	struct path_def *paths;
	size_t npaths;
	size_t paths_cap;

	struct reel_totals totals;
	bool have_totals;
};

/*
 * Makes bytes [off, off + len) addressable: returns how many of them exist (fewer at the
 * end of the input) and points *p at them, or a negative errno.
 */
static ssize_t src_get(struct reel_reader *r, uint64_t off, size_t len, const uint8_t **p)
{
	if (r->mem) {
		if (off >= r->mem_len)
			return 0;
		*p = r->mem + off;
		return len < r->mem_len - off ? len : r->mem_len - off;
	}
	if (off < r->win_off) {
		if (!r->seekable)
			return -ESPIPE;
		r->win_off = off;
		r->win_len = 0;
		r->fd_eof = false;
	}
	if (off > r->win_off + r->win_len && r->seekable) {
		r->win_off = off;
		r->win_len = 0;
		r->fd_eof = false;
	}
	if (off + len > r->win_off + r->win_len && !r->fd_eof) {
		/* keep what overlaps, drop what is before off */
		if (off > r->win_off && off <= r->win_off + r->win_len) {
			size_t keep = r->win_off + r->win_len - off;
			memmove(r->win, r->win + (off - r->win_off), keep);
			r->win_off = off;
			r->win_len = keep;
		}
		if (len > r->win_cap || !r->win) {
			size_t cap = len > WINDOW_MIN ? len : WINDOW_MIN;
			uint8_t *w = realloc(r->win, cap);
			if (!w)
				return -ENOMEM;
			r->win = w;
			r->win_cap = cap;
		}
		while (r->win_off + r->win_len < off + len && !r->fd_eof) {
			ssize_t n;
			size_t room = r->win_cap - r->win_len;
			if (r->seekable)
				n = pread(r->fd, r->win + r->win_len, room,
					  r->win_off + r->win_len);
			else
				n = read(r->fd, r->win + r->win_len, room);
			if (n < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			if (n == 0) {
				r->fd_eof = true;
				break;
			}
			r->win_len += n;
			/* a pipe skipping forward: drop bytes before off as they arrive */
			if (off > r->win_off) {
				size_t drop =
				    off - r->win_off < r->win_len ? off - r->win_off : r->win_len;
				memmove(r->win, r->win + drop, r->win_len - drop);
				r->win_len -= drop;
				r->win_off += drop;
			}
		}
	}
	if (off >= r->win_off + r->win_len)
		return 0;
	*p = r->win + (off - r->win_off);
	size_t have = r->win_off + r->win_len - off;
	return len < have ? len : have;
}

struct chunk {
	uint64_t off;
	uint64_t next; /* offset just past it */
	unsigned type;
	uint32_t nops;
	size_t usize;
	bool env_ok; /* the envelope is sound: type, nops and next can be trusted */
};

/*
 * Checks the envelope at off and decompresses the payload into r->payload. Returns 0,
 * 1 when the input ends exactly at off, or a negative error.
 */
static int read_chunk(struct reel_reader *r, uint64_t off, struct chunk *ch)
{
	const uint8_t *env;
	ssize_t n = src_get(r, off, REEL_ENVELOPE_LEN, &env);
	if (n <= 0)
		return n ? (int)n : 1;
	uint8_t magic[4];
	reel_put32(magic, REEL_CHUNK_MAGIC);
	if (memcmp(env, magic, n < 4 ? n : 4) != 0)
		return -REEL_E_CORRUPT;
	if (n < REEL_ENVELOPE_LEN)
		return -REEL_E_TRUNCATED;
	uint8_t e[REEL_ENVELOPE_LEN];
	memcpy(e, env, sizeof(e)); /* the window may move when the payload is fetched */
	if (reel_crc32c(0, e, 28) != reel_get32(e + 28)) {
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
		return -REEL_E_CHECKSUM;
#endif
	}
	if (e[5] || reel_get16(e + 6) || reel_get32(e + 20))
		return -REEL_E_RESERVED;
	ch->off = off;
	ch->type = e[4];
	uint32_t csize = reel_get32(e + 8);
	ch->usize = reel_get32(e + 12);
	ch->nops = reel_get32(e + 16);
	if (ch->usize > REEL_MAX_PAYLOAD || ch->nops > REEL_MAX_CHUNK_OPS ||
	    csize > ZSTD_compressBound(ch->usize) || csize < 1)
		return -REEL_E_CORRUPT;
	if (ch->type != REEL_CHUNK_OPS && ch->nops)
		return -REEL_E_CORRUPT;
	ch->next = off + REEL_ENVELOPE_LEN + csize;
	ch->env_ok = true;
	/*
	 * Fetch the envelope again with the payload: were the window to start at the payload,
	 * a pipe could not go back to off + 1, where the search for the next chunk starts
	 * when this one proves damaged.
	 */
	const uint8_t *payload;
	n = src_get(r, off, REEL_ENVELOPE_LEN + (size_t)csize, &payload);
	if (n < 0)
		return n;
	if ((size_t)n < REEL_ENVELOPE_LEN + (size_t)csize)
		return -REEL_E_TRUNCATED;
	payload += REEL_ENVELOPE_LEN;
	if (reel_crc32c(0, payload, csize) != reel_get32(e + 24)) {
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
		return -REEL_E_CHECKSUM;
#endif
	}

	ZSTD_frameHeader fh;
	if (ZSTD_getFrameHeader(&fh, payload, csize) != 0 || fh.frameType != ZSTD_frame ||
	    !fh.checksumFlag || fh.frameContentSize != ch->usize ||
	    ZSTD_findFrameCompressedSize(payload, csize) != csize)
		return -REEL_E_CORRUPT;
	if (ch->usize > r->payload_cap) {
		uint8_t *b = realloc(r->payload, ch->usize);
		if (!b)
			return -ENOMEM;
		r->payload = b;
		r->payload_cap = ch->usize;
	}
	size_t got = ZSTD_decompressDCtx(r->zd, r->payload, ch->usize, payload, csize);
	if (ZSTD_isError(got))
		return ZSTD_getErrorCode(got) == ZSTD_error_checksum_wrong ? -REEL_E_CHECKSUM
									   : -REEL_E_CORRUPT;
	if (got != ch->usize)
		return -REEL_E_CORRUPT;
	return 0;
}

static int rebuild_meta(struct reel_reader *r)
{
	reel_meta__free(&r->all);
	const struct reel_meta *src[2] = {&r->head, &r->foot};
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < src[k]->count; i++) {
			const char *key = src[k]->keys[i], *v = src[k]->values[i];
			int err = reel_meta__set(&r->all, key, strlen(key), v, strlen(v));
			if (err)
				return err;
		}
	}
	return 0;
}

static int parse_flags(struct reel_cur *c)
{
	uint64_t flags = reel_cur__varint(c);
	if (c->err)
		return c->err;
	return flags ? -REEL_E_RESERVED : 0;
}

static int parse_meta_chunk(struct reel_reader *r, const struct chunk *ch)
{
	struct reel_cur c = {r->payload, r->payload + ch->usize, 0};
	struct reel_meta m = {0};
	int err = parse_flags(&c);
	if (!err)
		err = reel_meta__decode(&m, &c);
	if (!err && c.p != c.end)
		err = -REEL_E_CORRUPT;
	if (err) {
		reel_meta__free(&m);
		return err;
	}
	reel_meta__free(&r->head);
	r->head = m;
	r->head_seen = true;
	return rebuild_meta(r);
}

static int parse_footer(struct reel_reader *r, const struct chunk *ch)
{
	struct reel_cur c = {r->payload, r->payload + ch->usize, 0};
	struct reel_meta m = {0};
	struct reel_totals t;
	int err = parse_flags(&c);
	if (!err)
		err = reel_totals__decode(&t, &c);
	if (!err)
		err = reel_meta__decode(&m, &c);
	uint64_t nindex = reel_cur__varint(&c);
	struct index_entry *index = NULL;
	if (!err && !c.err && nindex > (uint64_t)(c.end - c.p) / 4)
		err = -REEL_E_CORRUPT;
	if (!err && !c.err && nindex) {
		index = malloc(nindex * sizeof(*index));
		if (!index)
			err = -ENOMEM;
	}
	uint64_t at = 0;
	for (uint64_t i = 0; i < nindex && !err && !c.err; i++) {
		at += reel_cur__varint(&c);
		index[i].off = at;
		index[i].nops = (uint32_t)reel_cur__varint(&c);
		index[i].first_start = reel_cur__varint(&c);
		index[i].last_end = index[i].first_start + reel_cur__varint(&c);
	}
	if (!err)
		err = c.err;
	if (!err && c.p != c.end)
		err = -REEL_E_CORRUPT;
	if (err) {
		free(index);
		reel_meta__free(&m);
		return err;
	}
	free(r->index);
	r->index = index;
	r->nindex = nindex;
	reel_meta__free(&r->foot);
	r->foot = m;
	r->totals = t;
	r->have_totals = true;
	r->footer_loaded = true;
	return rebuild_meta(r);
}

static int add_path(struct reel_reader *r, uint32_t id, const uint8_t *s, size_t n)
{
	if (r->npaths == r->paths_cap) {
		size_t cap = r->paths_cap ? r->paths_cap * 2 : 256;
		struct path_def *p = realloc(r->paths, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		r->paths = p;
		r->paths_cap = cap;
	}
	char *copy = strndup((const char *)s, n);
	if (!copy)
		return -ENOMEM;
	r->paths[r->npaths++] = (struct path_def){id, copy};
	return 0;
}

static int parse_ops(struct reel_reader *r, const struct chunk *ch)
{
	struct reel_cur c = {r->payload, r->payload + ch->usize, 0};
	int err = parse_flags(&c);
	if (err)
		return err;
	uint64_t ndefs = reel_cur__varint(&c), first = 0;
	if (ndefs)
		first = reel_cur__varint(&c);
	if (c.err)
		return c.err;
	uint32_t last = r->npaths ? r->paths[r->npaths - 1].id : 0;
	if (ndefs && (first <= last || first > UINT32_MAX || ndefs > UINT32_MAX - first + 1 ||
		      ndefs > (uint64_t)(c.end - c.p)))
		return -REEL_E_CORRUPT;
	const uint8_t *defs = c.p;
	for (uint64_t i = 0; i < ndefs; i++) {
		size_t n;
		reel_cur__string(&c, &n);
		if (c.err)
			return c.err;
	}

	unsigned known = r->minor > REEL_VERSION_MINOR ? 0 : REEL_OP__COUNT;
	err = reel_dec__start(&r->dec, &c, ch->nops, known);
	if (err)
		return err;

	/* the chunk is whole: now its path definitions count */
	struct reel_cur d = {defs, c.end, 0};
	for (uint64_t i = 0; i < ndefs; i++) {
		size_t n;
		const uint8_t *s = reel_cur__string(&d, &n);
		err = add_path(r, first + i, s, n);
		if (err)
			return err;
	}
	r->nops = r->iop = 0; /* next() decodes the chunk batch by batch */
	return 0;
}

/* Expects the trailer at r->pos pointing at the footer just read, then the end of input. */
static int check_trailer(struct reel_reader *r)
{
	const uint8_t *t;
	ssize_t n = src_get(r, r->pos, REEL_TRAILER_LEN, &t);
	if (n < 0)
		return n;
	if (n < REEL_TRAILER_LEN)
		return -REEL_E_TRUNCATED;
	if (reel_get32(t) != REEL_TRAILER_MAGIC || reel_get64(t + 8) != r->footer_off)
		return -REEL_E_CORRUPT;
	if (reel_get32(t + 4))
		return -REEL_E_RESERVED;
	n = src_get(r, r->pos + REEL_TRAILER_LEN, 1, &t);
	if (n < 0)
		return n;
	return n ? -REEL_E_CORRUPT : 0;
}

/* A chunk magic at off is a chunk only if its envelope checksum agrees. */
static bool envelope_sound(struct reel_reader *r, uint64_t off)
{
	const uint8_t *e;
	if (src_get(r, off, REEL_ENVELOPE_LEN, &e) != REEL_ENVELOPE_LEN)
		return false;
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	return true;
#else
	return reel_crc32c(0, e, 28) == reel_get32(e + 28);
#endif
}

/*
 * Moves r->pos to the next sound chunk envelope at or after it; false at the end of input,
 * with r->pos there. A magic inside compressed data fails its envelope checksum: skipped.
 */
static bool resync(struct reel_reader *r, int *err)
{
	uint8_t magic[4];
	reel_put32(magic, REEL_CHUNK_MAGIC);
	for (;;) {
		const uint8_t *p = NULL;
		ssize_t n = src_get(r, r->pos, SCAN_STEP, &p);
		if (n < 0) {
			*err = n;
			return false;
		}
		if (n < 4) {
			r->pos += n;
			return false;
		}
		const uint8_t *hit = memmem(p, n, magic, 4);
		if (!hit) {
			r->pos += n - 3;
			continue;
		}
		r->pos += hit - p;
		if (envelope_sound(r, r->pos))
			return true;
		r->pos++;
	}
}

/* The footer offset that a sound trailer ending the input at end names, or UINT64_MAX. */
static uint64_t trailer_footer(struct reel_reader *r, uint64_t end)
{
	const uint8_t *t;
	if (end < REEL_HEADER_LEN + REEL_TRAILER_LEN)
		return UINT64_MAX;
	if (src_get(r, end - REEL_TRAILER_LEN, REEL_TRAILER_LEN, &t) != REEL_TRAILER_LEN)
		return UINT64_MAX;
	if (reel_get32(t) != REEL_TRAILER_MAGIC || reel_get32(t + 4))
		return UINT64_MAX;
	uint64_t off = reel_get64(t + 8);
	return off >= REEL_HEADER_LEN && off < end - REEL_TRAILER_LEN ? off : UINT64_MAX;
}

static void lose_ops(struct reel_damage *d, uint64_t n)
{
	d->lost |= REEL_LOST_OPS;
	if (n == REEL_OPS_UNKNOWN || d->ops_lost == REEL_OPS_UNKNOWN)
		d->ops_lost = REEL_OPS_UNKNOWN;
	else
		d->ops_lost += n;
}

/* What a chunk whose envelope is sound held; a type we do not know held no ops. */
static void lose_chunk(struct reel_damage *d, const struct chunk *ch)
{
	if (ch->type == REEL_CHUNK_META)
		d->lost |= REEL_LOST_META;
	else if (ch->type == REEL_CHUNK_OPS)
		lose_ops(d, ch->nops);
	else if (ch->type == REEL_CHUNK_FOOTER)
		d->lost |= REEL_LOST_FOOTER;
}

/* Ops of the chunks the footer's index places in [from, to); false without an index. */
static bool index_ops_in(const struct reel_reader *r, uint64_t from, uint64_t to, uint64_t *n)
{
	if (!r->have_index)
		return false;
	*n = 0;
	for (size_t i = 0; i < r->nindex; i++)
		if (r->index[i].off >= from && r->index[i].off < to)
			*n += r->index[i].nops;
	return true;
}

/*
 * What the skipped bytes [d->offset, d->resume) held, so that nobody is told ops were lost
 * when only the footer was. A sound envelope at the start names its chunk, the footer's
 * index names every ops chunk, the trailer names the footer (footer_at, or UINT64_MAX);
 * bytes that none of them names may have held ops.
 */
static void account_region(struct reel_reader *r, struct reel_damage *d, const struct chunk *ch,
			   uint64_t footer_at)
{
	uint64_t from = d->offset, n;

	if (ch && ch->env_ok) {
		lose_chunk(d, ch);
		from = ch->next;
	} else if (from == REEL_HEADER_LEN && !r->head_seen) {
		d->lost |= REEL_LOST_META; /* the meta chunk is the first one */
	}
	if (d->truncated) {
		/* whatever was written after the region is gone too, footer included */
		if (!index_ops_in(r, from, UINT64_MAX, &n))
			n = REEL_OPS_UNKNOWN;
		if (n)
			lose_ops(d, n);
		d->lost |= REEL_LOST_FOOTER;
		return;
	}
	if (from >= d->resume)
		return;
	if (index_ops_in(r, from, d->resume, &n)) {
		if (n)
			lose_ops(d, n);
		return;
	}
	if (footer_at == from)
		d->lost |= REEL_LOST_FOOTER;
	else
		lose_ops(d, REEL_OPS_UNKNOWN);
	if (footer_at > from && footer_at < d->resume)
		d->lost |= REEL_LOST_FOOTER;
}

/*
 * When the footer's index names the ops a region lost, the times they started in: from the
 * smallest first_start of those chunks to their largest end (no op starts after its end).
 */
static void index_times(const struct reel_reader *r, struct reel_damage *d)
{
	uint64_t to = d->truncated ? UINT64_MAX : d->resume;

	if (!r->have_index || !(d->lost & REEL_LOST_OPS) || d->ops_lost == REEL_OPS_UNKNOWN)
		return;
	for (size_t i = 0; i < r->nindex; i++) {
		const struct index_entry *e = &r->index[i];

		if (e->off < d->offset || e->off >= to || !e->nops)
			continue;
		if (!d->times_known || e->first_start < d->lost_first_ns)
			d->lost_first_ns = e->first_start;
		if (!d->times_known || e->last_end > d->lost_last_ns)
			d->lost_last_ns = e->last_end;
		d->times_known = true;
	}
}

static int report_damage(struct reel_reader *r, struct reel_damage *d)
{
	index_times(r, d);
	struct reel_damage_sum *s = &r->sum;

	r->last = *d;
	r->damage_off = d->offset;
	r->damaged = true;
	if (!s->regions++)
		s->first_offset = d->offset;
	s->lost |= d->lost;
	if (d->lost & REEL_LOST_OPS) {
		if (d->ops_lost == REEL_OPS_UNKNOWN || s->ops_lost == REEL_OPS_UNKNOWN)
			s->ops_lost = REEL_OPS_UNKNOWN;
		else
			s->ops_lost += d->ops_lost;
	}
	if (d->truncated) {
		s->truncated = true;
		s->truncated_at = d->resume;
	}
	return d->err;
}

/* Where the input ends, at or after from (which is known to be before the end, or at it). */
static uint64_t end_of_input(struct reel_reader *r, uint64_t from)
{
	const uint8_t *p;
	ssize_t n;

	while ((n = src_get(r, from, SCAN_STEP, &p)) > 0)
		from += n;
	return from;
}

/* The input ends at or inside the chunk at off (ch, when its envelope was read). */
static int damage_end(struct reel_reader *r, uint64_t off, int err, const struct chunk *ch)
{
	struct reel_damage d = {.offset = off, .err = err, .truncated = true};

	r->state = ST_END;
	d.resume = end_of_input(r, off);
	account_region(r, &d, ch, UINT64_MAX);
	return report_damage(r, &d);
}

/* The chunk at off is unsound: skip to the next sound envelope, or to the end. */
static int damage_skip(struct reel_reader *r, uint64_t off, int err, const struct chunk *ch)
{
	struct reel_damage d = {.offset = off, .err = err};
	uint64_t footer_at = UINT64_MAX;
	int ioerr = 0;

	r->pos = off + 1;
	if (resync(r, &ioerr)) {
		d.resume = r->pos;
	} else {
		r->state = ST_END;
		d.resume = r->pos;
		if (ioerr)
			d.err = ioerr;
		/* a sound trailer at the end: the file is whole, only its middle is damaged */
		footer_at = ioerr ? UINT64_MAX : trailer_footer(r, r->pos);
		if (footer_at != UINT64_MAX && footer_at >= off)
			d.resume = r->pos - REEL_TRAILER_LEN;
		else
			d.truncated = true;
	}
	account_region(r, &d, ch, footer_at);
	return report_damage(r, &d);
}

/* A sound chunk whose content is malformed: the reading goes on right after it. */
static int damage_content(struct reel_reader *r, const struct chunk *ch, int err)
{
	struct reel_damage d = {.offset = ch->off, .resume = ch->next, .err = err};

	account_region(r, &d, ch, UINT64_MAX);
	return report_damage(r, &d);
}

/* After the footer: a damaged trailer, or bytes after it, cost nothing that was written. */
static int damage_trailer(struct reel_reader *r, int err)
{
	struct reel_damage d = {.offset = r->pos, .err = err};

	d.truncated = err == -REEL_E_TRUNCATED;
	d.resume = d.truncated ? end_of_input(r, r->pos) : r->pos;
	return report_damage(r, &d);
}

int reel_reader__next(struct reel_reader *r, struct reel_op *op)
{
	for (;;) {
		if (r->iop < r->nops) {
			*op = r->ops[r->iop++];
			r->ops_out++;
			return 1;
		}
		if (r->dec.done < r->dec.n) {
			r->nops = reel_dec__batch(&r->dec, r->ops);
			r->iop = 0;
			continue;
		}
		if (r->state == ST_END)
			return 0;
		if (r->seen_footer) {
			int err = check_trailer(r);
			r->state = ST_END;
			return err ? damage_trailer(r, err) : 0;
		}
		struct chunk ch = {0};
		uint64_t off = r->pos;
		int err = read_chunk(r, off, &ch);
		if (err == 1)
			return damage_end(r, off, -REEL_E_TRUNCATED, NULL);
		if (err == -REEL_E_TRUNCATED)
			return damage_end(r, off, err, &ch);
		if (err)
			return damage_skip(r, off, err, &ch);
		/* the envelope and payload are sound: whatever follows, go on after it */
		r->pos = ch.next;
		switch (ch.type) {
		case REEL_CHUNK_META:
			err = off == REEL_HEADER_LEN ? parse_meta_chunk(r, &ch) : -REEL_E_CORRUPT;
			break;
		case REEL_CHUNK_OPS:
			err = parse_ops(r, &ch);
			break;
		case REEL_CHUNK_FOOTER:
			err = parse_footer(r, &ch);
			/*
			 * Malformed or not, a sound envelope says this was the footer: the
			 * trailer follows, not a chunk to search for nor a truncation.
			 */
			r->seen_footer = true;
			r->footer_off = off;
			break;
		default:
			/* a newer minor version may add chunk types; older readers skip them */
			if (r->minor <= REEL_VERSION_MINOR)
				err = -REEL_E_CORRUPT;
			break;
		}
		if (err)
			return damage_content(r, &ch, err);
	}
}

/* Reads the trailer and footer of a seekable input; quietly gives up when they are not whole. */
static void load_footer(struct reel_reader *r, uint64_t size)
{
	const uint8_t *t;
	if (size < REEL_HEADER_LEN + REEL_ENVELOPE_LEN + REEL_TRAILER_LEN)
		return;
	if (src_get(r, size - REEL_TRAILER_LEN, REEL_TRAILER_LEN, &t) != REEL_TRAILER_LEN)
		return;
	if (reel_get32(t) != REEL_TRAILER_MAGIC || reel_get32(t + 4))
		return;
	uint64_t off = reel_get64(t + 8);
	if (off < REEL_HEADER_LEN || off > size - REEL_TRAILER_LEN - REEL_ENVELOPE_LEN)
		return;
	struct chunk ch;
	if (read_chunk(r, off, &ch) || ch.type != REEL_CHUNK_FOOTER ||
	    ch.next != size - REEL_TRAILER_LEN)
		return;
	r->have_index = parse_footer(r, &ch) == 0;
}

static int reader_start(struct reel_reader *r, uint64_t size)
{
	const uint8_t *h = NULL;
	ssize_t n = src_get(r, 0, REEL_HEADER_LEN, &h);
	if (n <= 0)
		return n ? n : -REEL_E_TRUNCATED;
	size_t cmp = n < REEL_FILE_MAGIC_LEN ? n : REEL_FILE_MAGIC_LEN;
	if (memcmp(h, REEL_FILE_MAGIC, cmp) != 0)
		return -REEL_E_MAGIC;
	if (n < REEL_HEADER_LEN)
		return -REEL_E_TRUNCATED;
	if (reel_get16(h + 8) != REEL_VERSION_MAJOR)
		return -REEL_E_VERSION;
	r->minor = reel_get16(h + 10);
	if (reel_get32(h + 12))
		return -REEL_E_RESERVED;

	r->zd = ZSTD_createDCtx();
	if (!r->zd)
		return -ENOMEM;
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	ZSTD_DCtx_setParameter(r->zd, ZSTD_d_forceIgnoreChecksum, ZSTD_d_ignoreChecksum);
#endif
	if (r->seekable)
		load_footer(r, size);

	/* Head meta now, when the first chunk is sound; otherwise next() reports it. */
	r->pos = REEL_HEADER_LEN;
	struct chunk ch;
	if (read_chunk(r, REEL_HEADER_LEN, &ch) == 0 && ch.type == REEL_CHUNK_META &&
	    parse_meta_chunk(r, &ch) == 0)
		r->pos = ch.next;
	return 0;
}

static struct reel_reader *reader_new(void)
{
	struct reel_reader *r = calloc(1, sizeof(*r));
	if (r)
		r->fd = -1;
	return r;
}

int reel_reader__open(const char *path, struct reel_reader **out)
{
	struct reel_reader *r = reader_new();
	if (!r)
		return -ENOMEM;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		int err = -errno;
		reel_reader__close(r);
		return err;
	}
	struct stat st;
	uint64_t size = 0;
	if (fstat(r->fd, &st) == 0 && S_ISREG(st.st_mode)) {
		r->seekable = true;
		size = st.st_size;
	}
	int err = reader_start(r, size);
	if (err) {
		reel_reader__close(r);
		return err;
	}
	*out = r;
	return 0;
}

int reel_reader__open_buffer(const void *buf, size_t len, struct reel_reader **out)
{
	static const uint8_t empty[1];
	struct reel_reader *r = reader_new();
	if (!r)
		return -ENOMEM;
	r->mem = buf && len ? buf : empty;
	r->mem_len = buf ? len : 0;
	r->seekable = true;
	int err = reader_start(r, r->mem_len);
	if (err) {
		reel_reader__close(r);
		return err;
	}
	*out = r;
	return 0;
}

uint64_t reel_reader__damage_offset(const struct reel_reader *r)
{
	return r->damage_off;
}

unsigned reel_reader__minor(const struct reel_reader *r)
{
	return r->minor;
}

void reel_reader__damage(const struct reel_reader *r, struct reel_damage *d)
{
	*d = r->last;
}

void reel_reader__damage_sum(const struct reel_reader *r, struct reel_damage_sum *s)
{
	*s = r->sum;
	s->region_ops = s->lost & REEL_LOST_OPS ? s->ops_lost : 0;
	s->footer_ops = REEL_OPS_UNKNOWN;
	/*
	 * Once the reading is over, the footer's total says exactly how many ops are missing,
	 * whatever the regions held: a chunk spliced out whole leaves no region, and a skipped
	 * chunk may have been a repeat of one that was read.
	 */
	if (r->state != ST_END || !r->have_totals || !s->regions)
		return;
	s->footer_ops = r->totals.ops;
	s->ops_read = r->ops_out;
	if (r->totals.ops < r->ops_out)
		return; /* more than were written: a chunk repeated; the regions' count stands */
	s->ops_lost = r->totals.ops - r->ops_out;
	if (s->ops_lost)
		s->lost |= REEL_LOST_OPS;
	else
		s->lost &= ~REEL_LOST_OPS;
}

const char *reel_reader__path(const struct reel_reader *r, uint32_t id)
{
	if (!id || !r->npaths)
		return NULL;
	/* ids are dense unless damage skipped a chunk: try the direct slot first */
	size_t guess = id - r->paths[0].id;
	if (id >= r->paths[0].id && guess < r->npaths && r->paths[guess].id == id)
		return r->paths[guess].s;
	size_t lo = 0, hi = r->npaths;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->paths[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->npaths && r->paths[lo].id == id ? r->paths[lo].s : NULL;
}

const char *reel_reader__meta(const struct reel_reader *r, const char *key)
{
	return key ? reel_meta__get(&r->all, key) : NULL;
}

size_t reel_reader__meta_count(const struct reel_reader *r)
{
	return r->all.count;
}

void reel_reader__meta_at(const struct reel_reader *r, size_t i, const char **key,
			  const char **value)
{
	if (i >= r->all.count) {
		*key = *value = NULL;
		return;
	}
	*key = r->all.keys[i];
	*value = r->all.values[i];
}

const struct reel_totals *reel_reader__totals(const struct reel_reader *r)
{
	return r->have_totals ? &r->totals : NULL;
}

void reel_reader__close(struct reel_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->win);
	free(r->payload);
	ZSTD_freeDCtx(r->zd);
	reel_dec__free(&r->dec);
	reel_meta__free(&r->head);
	reel_meta__free(&r->foot);
	reel_meta__free(&r->all);
	for (size_t i = 0; i < r->npaths; i++)
		free(r->paths[i].s);
	free(r->paths);
	free(r->index);
	free(r);
}
