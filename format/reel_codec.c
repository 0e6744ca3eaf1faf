// SPDX-License-Identifier: MIT
/*
 * Payload codecs shared by writer and reader: varints, strings, meta lists, totals, and
 * the column-wise ops encoding (FORMAT.md, "Payloads", "Ops payload", "Columns").
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "reel_internal.h"

int reel_buf__reserve(struct reel_buf *b, size_t more)
{
	if (b->err)
		return b->err;
	if (b->cap - b->len >= more)
		return 0;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap - b->len < more)
		cap *= 2;
	uint8_t *d = realloc(b->data, cap);
	if (!d)
		return b->err = -ENOMEM;
	b->data = d;
	b->cap = cap;
	return 0;
}

void reel_buf__put(struct reel_buf *b, const void *p, size_t n)
{
	if (!n || reel_buf__reserve(b, n))
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static inline size_t varint_put(uint8_t *p, uint64_t v)
{
	size_t i = 0;
	while (v >= 0x80) {
		p[i++] = (uint8_t)v | 0x80;
		v >>= 7;
	}
	p[i++] = (uint8_t)v;
	return i;
}

/* bytes of v as a varint: 7 bits per byte, without a loop (it runs once per value per column) */
static inline size_t varint_len(uint64_t v)
{
	unsigned bits = 64 - (unsigned)__builtin_clzll(v | 1);

	return (bits + 6) / 7;
}

void reel_buf__varint(struct reel_buf *b, uint64_t v)
{
	if (reel_buf__reserve(b, 10))
		return;
	b->len += varint_put(b->data + b->len, v);
}

void reel_buf__string(struct reel_buf *b, const char *s, size_t n)
{
	reel_buf__varint(b, n);
	reel_buf__put(b, s, n);
}

void reel_buf__free(struct reel_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/* A varint is at most 10 bytes and the 10th carries only bit 63 (FORMAT.md, "Varints"). */
static inline int varint_get(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	for (int shift = 0; shift < 70; shift += 7) {
		if (p >= end)
			return -REEL_E_CORRUPT;
		uint8_t byte = *p++;
		if (shift == 63 && byte > 1)
			return -REEL_E_CORRUPT;
		v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80)) {
			*pp = p;
			*out = v;
			return 0;
		}
	}
	return -REEL_E_CORRUPT;
}

uint64_t reel_cur__varint(struct reel_cur *c)
{
	uint64_t v = 0;
	if (c->err)
		return 0;
	if (varint_get(&c->p, c->end, &v)) {
		c->err = -REEL_E_CORRUPT;
		return 0;
	}
	return v;
}

const uint8_t *reel_cur__string(struct reel_cur *c, size_t *n)
{
	uint64_t len = reel_cur__varint(c);
	if (c->err)
		return NULL;
	if (len > (uint64_t)(c->end - c->p)) {
		c->err = -REEL_E_CORRUPT;
		return NULL;
	}
	const uint8_t *s = c->p;
	if (memchr(s, 0, len)) { /* strings are handed out as C strings */
		c->err = -REEL_E_CORRUPT;
		return NULL;
	}
	c->p += len;
	*n = len;
	return s;
}

/* ---- meta ---- */

int reel_meta__set(struct reel_meta *m, const char *key, size_t klen, const char *value,
		   size_t vlen)
{
	char *v = strndup(value, vlen);
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < m->count; i++) {
		if (strlen(m->keys[i]) == klen && memcmp(m->keys[i], key, klen) == 0) {
			free(m->values[i]);
			m->values[i] = v;
			return 0;
		}
	}
	if (m->count == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 16;
		char **k = realloc(m->keys, cap * sizeof(*k));
		if (!k)
			goto nomem;
		m->keys = k;
		char **vv = realloc(m->values, cap * sizeof(*vv));
		if (!vv)
			goto nomem;
		m->values = vv;
		m->cap = cap;
	}
	m->keys[m->count] = strndup(key, klen);
	if (!m->keys[m->count])
		goto nomem;
	m->values[m->count++] = v;
	return 0;
nomem:
	free(v);
	return -ENOMEM;
}

const char *reel_meta__get(const struct reel_meta *m, const char *key)
{
	for (size_t i = 0; i < m->count; i++)
		if (strcmp(m->keys[i], key) == 0)
			return m->values[i];
	return NULL;
}

void reel_meta__free(struct reel_meta *m)
{
	for (size_t i = 0; i < m->count; i++) {
		free(m->keys[i]);
		free(m->values[i]);
	}
	free(m->keys);
	free(m->values);
	memset(m, 0, sizeof(*m));
}

void reel_meta__encode(const struct reel_meta *m, struct reel_buf *b)
{
	reel_buf__varint(b, m->count);
	for (size_t i = 0; i < m->count; i++) {
		reel_buf__string(b, m->keys[i], strlen(m->keys[i]));
		reel_buf__string(b, m->values[i], strlen(m->values[i]));
	}
}

int reel_meta__decode(struct reel_meta *m, struct reel_cur *c)
{
	uint64_t count = reel_cur__varint(c);
	if (!c->err && count > (uint64_t)(c->end - c->p) / 2)
		c->err = -REEL_E_CORRUPT;
	for (uint64_t i = 0; i < count && !c->err; i++) {
		size_t kl, vl;
		const uint8_t *k = reel_cur__string(c, &kl);
		const uint8_t *v = reel_cur__string(c, &vl);
		if (c->err)
			break;
		if (!kl)
			return -REEL_E_CORRUPT;
		int err = reel_meta__set(m, (const char *)k, kl, (const char *)v, vl);
		if (err)
			return err;
	}
	return c->err;
}

/* ---- totals ---- */

void reel_totals__encode(const struct reel_totals *t, struct reel_buf *b)
{
	reel_buf__varint(b, t->ops);
	reel_buf__varint(b, REEL_OP__COUNT);
	for (unsigned i = 0; i < REEL_OP__COUNT; i++)
		reel_buf__varint(b, t->ops_by_type[i]);
	reel_buf__varint(b, t->bytes_read);
	reel_buf__varint(b, t->bytes_written);
	reel_buf__varint(b, t->first_start_ns);
	reel_buf__varint(b, t->last_end_ns);
	reel_buf__varint(b, t->chunks);
}

int reel_totals__decode(struct reel_totals *t, struct reel_cur *c)
{
	memset(t, 0, sizeof(*t));
	t->ops = reel_cur__varint(c);
	uint64_t ntypes = reel_cur__varint(c);
	if (!c->err && ntypes > (uint64_t)(c->end - c->p))
		return c->err = -REEL_E_CORRUPT;
	for (uint64_t i = 0; i < ntypes && !c->err; i++) {
		uint64_t v = reel_cur__varint(c);
		if (i < REEL_OP__COUNT)
			t->ops_by_type[i] = v;
	}
	t->bytes_read = reel_cur__varint(c);
	t->bytes_written = reel_cur__varint(c);
	t->first_start_ns = reel_cur__varint(c);
	t->last_end_ns = reel_cur__varint(c);
	t->chunks = reel_cur__varint(c);
	return c->err;
}

/* ---- ops columns: encoder ---- */

static int enc_grow(struct reel_enc *e, size_t n)
{
	if (n <= e->cap)
		return 0;
	uint64_t *v = realloc(e->vals, n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	e->vals = v;
	uint32_t *t = realloc(e->thread_idx, n * sizeof(*t));
	if (!t)
		return -ENOMEM;
	e->thread_idx = t;
	e->cap = n;
	return 0;
}

static inline uint32_t thread_hash(uint32_t pid, uint32_t tid)
{
	uint64_t k = ((uint64_t)pid << 32 | tid) * 0x9e3779b97f4a7c15ULL;
	return (uint32_t)(k >> 32);
}

/* Builds the chunk's thread table in order of first appearance. */
static int enc_threads(struct reel_enc *e, const struct reel_op *ops, size_t n)
{
	e->nthreads = 0;
	if (e->hash_cap)
		memset(e->hash, 0, e->hash_cap * sizeof(*e->hash));
	for (size_t i = 0; i < n; i++) {
		if (2 * (e->nthreads + 1) > e->hash_cap) {
			size_t cap = e->hash_cap ? e->hash_cap * 2 : 64;
			uint32_t *h = calloc(cap, sizeof(*h));
			if (!h)
				return -ENOMEM;
			for (size_t t = 0; t < e->nthreads; t++) {
				uint32_t s = thread_hash(e->threads[t].pid, e->threads[t].tid);
				while (h[s & (cap - 1)])
					s++;
				h[s & (cap - 1)] = t + 1;
			}
			free(e->hash);
			e->hash = h;
			e->hash_cap = cap;
		}
		uint32_t s = thread_hash(ops[i].pid, ops[i].tid);
		uint32_t slot;
		for (;; s++) {
			slot = e->hash[s & (e->hash_cap - 1)];
			if (!slot || (e->threads[slot - 1].pid == ops[i].pid &&
				      e->threads[slot - 1].tid == ops[i].tid))
				break;
		}
		if (!slot) {
			if (e->nthreads == e->threads_cap) {
				size_t cap = e->threads_cap ? e->threads_cap * 2 : 64;
				struct reel_thread *t = realloc(e->threads, cap * sizeof(*t));
				if (!t)
					return -ENOMEM;
				e->threads = t;
				e->threads_cap = cap;
			}
			e->threads[e->nthreads] = (struct reel_thread){ops[i].pid, ops[i].tid};
			slot = ++e->nthreads;
			e->hash[s & (e->hash_cap - 1)] = slot;
		}
		e->thread_idx[i] = slot - 1;
	}
	return 0;
}

static size_t put_planes(uint8_t *out, const uint64_t *v, size_t n, unsigned width)
{
	for (unsigned k = 0; k < width; k++, out += n)
		for (size_t i = 0; i < n; i++)
			out[i] = (uint8_t)(v[i] >> (8 * k));
	return width * n;
}

static size_t put_varints(uint8_t *out, const uint64_t *v, size_t n)
{
	uint8_t *p = out;
	for (size_t i = 0; i < n; i++)
		p += varint_put(p, v[i]);
	return p - out;
}

/*
 * Trial-compresses a sample of the column both ways, each plane on its own as the writer
 * compresses it (one zstd block run per plane): true when planes come out smaller.
 */
static bool enc_prefer_planes(struct reel_enc *e, const uint64_t *v, size_t n, unsigned width)
{
	size_t m = n < REEL_ENC_SAMPLE ? n : REEL_ENC_SAMPLE;
	bool guess = width <= 3;
	if (!e->trial_cctx) {
		e->trial_cctx = ZSTD_createCCtx();
		if (!e->trial_cctx)
			return guess;
	}
	size_t cap = ZSTD_compressBound(10 * m);
	if (reel_buf__reserve(&e->trial, 10 * m + cap))
		return guess;
	uint8_t *raw = e->trial.data, *dst = raw + 10 * m;
	size_t pl = 0;
	put_planes(raw, v, m, width);
	for (unsigned k = 0; k < width; k++) {
		size_t z = ZSTD_compressCCtx(e->trial_cctx, dst, cap, raw + k * m, m, 3);
		if (ZSTD_isError(z))
			return guess;
		pl += z;
	}
	size_t vl = ZSTD_compressCCtx(e->trial_cctx, dst, cap, raw, put_varints(raw, v, m), 3);
	if (ZSTD_isError(vl))
		return guess;
	return pl <= vl;
}

/*
 * Planes or varints for a column of width > 1: a trial of a sample, whose answer is reused
 * for the next REEL_ENC_RETRIAL values of the column while its width stays the same, so that
 * small chunks (a replay's result writer keeps them cache-sized) do not trial every time.
 */
static bool enc_choose_planes(struct reel_enc *e, unsigned col, size_t n, unsigned width)
{
	if (e->choice[col].width != width || e->choice[col].since >= REEL_ENC_RETRIAL) {
		e->choice[col].planes = enc_prefer_planes(e, e->vals, n, width);
		e->choice[col].width = (uint8_t)width;
		e->choice[col].since = 0;
	}
	e->choice[col].since += n;
	return e->choice[col].planes;
}

/*
 * Picks the encoding for one column: constant when all values agree; else byte planes
 * (fixed width, one plane per byte: noisy numbers such as times code better so) or
 * varints (one stream: better for mostly-zero columns with rare large values), whichever
 * a quick trial compression of a sample of the column makes smaller.
 */
static void enc_column(struct reel_enc *e, unsigned col, size_t n, struct reel_buf *desc)
{
	const uint64_t *v = e->vals;
	uint64_t first = n ? v[0] : 0, max = 0;
	size_t vsize = 0;
	bool same = true;
	/* no varint sizes here: most columns are constant, and this loop vectorises */
	for (size_t i = 0; i < n; i++) {
		same &= v[i] == first;
		max |= v[i];
	}
	if (same) {
		reel_buf__varint(desc, REEL_ENC_CONST);
		reel_buf__varint(desc, first);
		return;
	}
	unsigned width = 0;
	while (width < 8 && (max >> (8 * width)))
		width++;
	bool planes = width == 1 || enc_choose_planes(e, col, n, width);
	for (size_t i = 0; !planes && i < n; i++)
		vsize += varint_len(v[i]);
	reel_buf__varint(desc, planes ? REEL_ENC_PLANES : REEL_ENC_VARINT);
	reel_buf__varint(desc, planes ? width : vsize);
	size_t size = planes ? width * n : vsize;
	if (reel_buf__reserve(&e->cols, size))
		return;
	uint8_t *out = e->cols.data + e->cols.len;
	for (unsigned k = 0; planes && k < width; k++)
		e->cuts[e->ncuts++] = e->cols.len + k * n;
	if (!planes)
		e->cuts[e->ncuts++] = e->cols.len;
	e->cols.len += planes ? put_planes(out, v, n, width) : put_varints(out, v, n);
}

int reel_pred__reserve(struct reel_pred *p, int32_t max_fd)
{
	if (max_fd < (int32_t)p->fd_cap || max_fd >= REEL_PRED_FDS)
		return 0;
	uint32_t cap = p->fd_cap ? p->fd_cap : 64;
	while (cap <= (uint32_t)max_fd)
		cap *= 2;
	uint64_t *next = realloc(p->fd_next, cap * sizeof(*next));
	if (!next)
		return -ENOMEM;
	p->fd_next = next;
	uint32_t *gen = realloc(p->fd_gen, cap * sizeof(*gen));
	if (!gen)
		return -ENOMEM;
	memset(gen + p->fd_cap, 0, (cap - p->fd_cap) * sizeof(*gen));
	p->fd_gen = gen;
	p->fd_cap = cap;
	return 0;
}

int reel_pred__reset(struct reel_pred *p, size_t nthreads)
{
	if (nthreads > p->thr_cap) {
		int32_t *f = realloc(p->thr_fd, nthreads * sizeof(*f));
		if (!f)
			return -ENOMEM;
		p->thr_fd = f;
		uint64_t *x = realloc(p->thr_next, nthreads * sizeof(*x));
		if (!x)
			return -ENOMEM;
		p->thr_next = x;
		p->thr_cap = nthreads;
	}
	for (size_t t = 0; t < nthreads; t++)
		p->thr_fd[t] = -1;
	/* a new generation forgets every fd's prediction without clearing the table */
	if (++p->gen == 0) {
		memset(p->fd_gen, 0, p->fd_cap * sizeof(*p->fd_gen));
		p->gen = 1;
	}
	return 0;
}

void reel_pred__free(struct reel_pred *p)
{
	free(p->fd_next);
	free(p->fd_gen);
	free(p->thr_fd);
	free(p->thr_next);
	memset(p, 0, sizeof(*p));
}

/* Anchors the time column on starts or on ends, whichever deltas are smaller. */
static unsigned enc_time_mode(const struct reel_op *ops, size_t n)
{
	uint64_t ps = 0, pe = 0;
	size_t cs = 0, ce = 0;
	for (size_t i = 0; i < n; i++) {
		cs += varint_len(reel_zigzag((int64_t)(ops[i].start_ns - ps)));
		ce += varint_len(reel_zigzag((int64_t)(ops[i].end_ns - pe)));
		ps = ops[i].start_ns;
		pe = ops[i].end_ns;
	}
	return ce < cs ? REEL_TIME_END : REEL_TIME_START;
}

int reel_enc__ops(struct reel_enc *e, const struct reel_op *ops, size_t n, struct reel_buf *b)
{
	int err = enc_grow(e, n ? n : 1);
	if (!err)
		err = enc_threads(e, ops, n);
	if (!err)
		err = reel_pred__reset(&e->pred, e->nthreads);
	if (err)
		return err;

	unsigned time_mode = enc_time_mode(ops, n);
	reel_buf__varint(b, time_mode);
	reel_buf__varint(b, e->nthreads);
	for (size_t t = 0; t < e->nthreads; t++) {
		reel_buf__varint(b, e->threads[t].pid);
		reel_buf__varint(b, e->threads[t].tid);
	}
	reel_buf__varint(b, REEL_COL__COUNT);
	e->cols.len = 0;
	e->ncuts = 0;
	uint64_t *v = e->vals;
	for (unsigned col = 0; col < REEL_COL__COUNT; col++) {
		uint64_t prev = 0;
		switch (col) {
		case REEL_COL_TYPE:
			for (size_t i = 0; i < n; i++)
				v[i] = ops[i].type;
			break;
		case REEL_COL_THREAD:
			for (size_t i = 0; i < n; i++)
				v[i] = e->thread_idx[i];
			break;
		case REEL_COL_TIME:
			for (size_t i = 0; i < n; i++) {
				uint64_t t =
				    time_mode == REEL_TIME_END ? ops[i].end_ns : ops[i].start_ns;
				v[i] = reel_zigzag((int64_t)(t - prev));
				prev = t;
			}
			break;
		case REEL_COL_DURATION:
			for (size_t i = 0; i < n; i++)
				v[i] = ops[i].end_ns - ops[i].start_ns;
			break;
		case REEL_COL_FD_KIND:
			for (size_t i = 0; i < n; i++)
				v[i] = ops[i].fd_kind;
			break;
		case REEL_COL_FD:
			for (size_t i = 0; i < n; i++)
				v[i] = (uint32_t)ops[i].fd + 1U;
			break;
		case REEL_COL_FD2:
			for (size_t i = 0; i < n; i++)
				v[i] = (uint32_t)ops[i].fd2 + 1U;
			break;
		case REEL_COL_SUBOP:
			for (size_t i = 0; i < n; i++)
				v[i] = ops[i].subop;
			break;
		case REEL_COL_PATH:
			for (size_t i = 0; i < n; i++)
				v[i] = ops[i].path;
			break;
		case REEL_COL_PATH2:
			for (size_t i = 0; i < n; i++)
				v[i] = ops[i].path2;
			break;
		case REEL_COL_FLAGS:
			for (size_t i = 0; i < n; i++)
				v[i] = ops[i].flags;
			break;
		case REEL_COL_MODE:
			for (size_t i = 0; i < n; i++)
				v[i] = ops[i].mode;
			break;
		case REEL_COL_LEN:
			for (size_t i = 0; i < n; i++)
				v[i] = ops[i].len;
			break;
		case REEL_COL_OFFSET:
			for (size_t i = 0; i < n; i++) {
				if (reel_pred__reserve(&e->pred, ops[i].fd))
					return -ENOMEM;
			}
			for (size_t i = 0; i < n; i++) {
				const struct reel_op *o = &ops[i];
				if (!reel_op__predicts_offset(o->type)) {
					v[i] = o->offset;
					continue;
				}
				uint32_t t = e->thread_idx[i];
				uint64_t p = reel_pred__get(&e->pred, t, o->fd);
				v[i] = reel_zigzag((int64_t)(o->offset - p));
				reel_pred__set(&e->pred, t, o->fd, o->offset + o->len);
			}
			break;
		case REEL_COL_RET:
			for (size_t i = 0; i < n; i++)
				v[i] = reel_zigzag((int64_t)((uint64_t)ops[i].ret - ops[i].len));
			break;
		case REEL_COL_AUX:
			for (size_t i = 0; i < n; i++)
				v[i] = ops[i].aux;
			break;
		case REEL_COL_CTX:
			for (size_t i = 0; i < n; i++)
				v[i] = ops[i].ctx;
			break;
		case REEL_COL_SCHED:
			for (size_t i = 0; i < n; i++) {
				v[i] = reel_zigzag((int64_t)(ops[i].sched_ns - prev));
				prev = ops[i].sched_ns;
			}
			break;
		case REEL_COL_WAIT:
			for (size_t i = 0; i < n; i++)
				v[i] = ops[i].wait_ns;
			break;
		}
		enc_column(e, col, n, b);
	}
	size_t base = b->len;
	for (size_t k = 0; k < e->ncuts; k++)
		e->cuts[k] += base;
	reel_buf__put(b, e->cols.data, e->cols.len);
	return b->err ? b->err : e->cols.err;
}

void reel_enc__free(struct reel_enc *e)
{
	free(e->vals);
	reel_pred__free(&e->pred);
	free(e->threads);
	free(e->thread_idx);
	free(e->hash);
	reel_buf__free(&e->cols);
	reel_buf__free(&e->trial);
	ZSTD_freeCCtx(e->trial_cctx);
	memset(e, 0, sizeof(*e));
}

/* ---- ops columns: decoder ---- */

#define DEC_BATCH REEL_DEC_BATCH

static int dec_batch(struct reel_col_state *s, uint64_t *v, size_t count)
{
	const uint8_t *p = s->p;
	if (s->enc == REEL_ENC_PLANES) {
		/* one pass per batch for the common widths, so that v is written once */
		const size_t n = s->n;
		switch (s->param) {
		case 1:
			for (size_t i = 0; i < count; i++)
				v[i] = p[i];
			break;
		case 2:
			for (size_t i = 0; i < count; i++)
				v[i] = p[i] | (uint64_t)p[n + i] << 8;
			break;
		case 3:
			for (size_t i = 0; i < count; i++)
				v[i] =
				    p[i] | (uint64_t)p[n + i] << 8 | (uint64_t)p[2 * n + i] << 16;
			break;
		case 4:
			for (size_t i = 0; i < count; i++)
				v[i] = p[i] | (uint64_t)p[n + i] << 8 |
				       (uint64_t)p[2 * n + i] << 16 | (uint64_t)p[3 * n + i] << 24;
			break;
		default:
			for (size_t i = 0; i < count; i++)
				v[i] = p[i] | (uint64_t)p[n + i] << 8 |
				       (uint64_t)p[2 * n + i] << 16 | (uint64_t)p[3 * n + i] << 24;
			for (unsigned k = 4; k < s->param; k++) {
				const uint8_t *pl = p + k * n;
				for (size_t i = 0; i < count; i++)
					v[i] |= (uint64_t)pl[i] << (8 * k);
			}
			break;
		}
		s->p += count;
		return 0;
	}
	const uint8_t *end = s->end;
	size_t i = 0;
	/* Fast path while a whole 10-byte varint surely fits. */
	while (i < count && end - p >= 10) {
		uint64_t x = *p++;
		if (x & 0x80) {
			x &= 0x7f;
			unsigned shift = 7;
			uint8_t byte;
			do {
				byte = *p++;
				if (shift == 63 && byte > 1)
					return -REEL_E_CORRUPT;
				x |= (uint64_t)(byte & 0x7f) << shift;
				shift += 7;
			} while ((byte & 0x80) && shift < 70);
			if (byte & 0x80)
				return -REEL_E_CORRUPT;
		}
		v[i++] = x;
	}
	for (; i < count; i++)
		if (varint_get(&p, end, &v[i]))
			return -REEL_E_CORRUPT;
	s->p = p;
	return 0;
}

/* Which types predict their offset, as a table: this is on the decoder's hot path. */
static const uint8_t predicts[REEL_OP__COUNT] = {
    [REEL_OP_READ] = 1,	    [REEL_OP_PREAD64] = 1,    [REEL_OP_READV] = 1,
    [REEL_OP_PREADV] = 1,   [REEL_OP_PREADV2] = 1,    [REEL_OP_WRITE] = 1,
    [REEL_OP_PWRITE64] = 1, [REEL_OP_PWRITEV] = 1,    [REEL_OP_WRITEV] = 1,
    [REEL_OP_PWRITEV2] = 1, [REEL_OP_AIO_SUBMIT] = 1, [REEL_OP_URING_SUBMIT] = 1,
};

static inline bool dec_predicts(unsigned type)
{
	return type < REEL_OP__COUNT && predicts[type];
}

/*
 * A varint stream holds exactly n well-formed varints: n bytes end a varint, the last byte
 * does, and no varint is longer than 10 bytes or carries more than 64 bits. Cheaper than
 * decoding, for the columns whose values need no other check.
 */
static int dec_check_varints(const struct reel_col_state *s, size_t n)
{
	size_t ends = 0;
	unsigned run = 0; /* continuation bytes before this one */
	for (const uint8_t *p = s->start; p < s->end; p++) {
		uint8_t b = *p;
		if (run == 9 && b > 1)
			return -REEL_E_CORRUPT;
		run = b & 0x80 ? run + 1 : 0;
		ends += !(b & 0x80);
	}
	return ends == n && !run ? 0 : -REEL_E_CORRUPT;
}

/* Columns whose every value is valid: only their encoding can be malformed. */
static bool dec_any_value(unsigned col)
{
	switch (col) {
	case REEL_COL_TIME:
	case REEL_COL_DURATION:
	case REEL_COL_LEN:
	case REEL_COL_OFFSET:
	case REEL_COL_RET:
	case REEL_COL_AUX:
	case REEL_COL_CTX:
	case REEL_COL_SCHED:
	case REEL_COL_WAIT:
		return true;
	default:
		return false;
	}
}

/* The checks of FORMAT.md "Columns" on values v[0..count) of column col. */
static int dec_check(const struct reel_dec *d, unsigned col, const uint64_t *v, size_t count,
		     int32_t *max_fd)
{
	uint64_t limit;
	switch (col) {
	case REEL_COL_TYPE:
		for (size_t i = 0; i < count; i++)
			if (!v[i] || v[i] > UINT16_MAX ||
			    (d->known_types && v[i] >= d->known_types))
				return -REEL_E_CORRUPT;
		return 0;
	case REEL_COL_THREAD:
		if (!d->nthreads)
			return count ? -REEL_E_CORRUPT : 0;
		limit = d->nthreads - 1;
		break;
	case REEL_COL_FD_KIND:
		limit = d->known_types ? REEL_FD_OTHER : UINT8_MAX;
		break;
	case REEL_COL_SUBOP:
		limit = UINT8_MAX;
		break;
	case REEL_COL_FD:
		for (size_t i = 0; i < count; i++) {
			if (v[i] > UINT32_MAX)
				return -REEL_E_CORRUPT;
			int32_t fd = (int32_t)((uint32_t)v[i] - 1U);
			if (fd < REEL_PRED_FDS && fd > *max_fd)
				*max_fd = fd;
		}
		return 0;
	case REEL_COL_FD2:
	case REEL_COL_PATH:
	case REEL_COL_PATH2:
	case REEL_COL_FLAGS:
	case REEL_COL_MODE:
		limit = UINT32_MAX;
		break;
	default:
		return 0;
	}
	uint64_t over = 0;
	for (size_t i = 0; i < count; i++)
		over |= v[i] > limit;
	return over ? -REEL_E_CORRUPT : 0;
}

/* Applies column col's values v[0..count) to ops[0..count); dec_check() passed on them. */
static void dec_apply(struct reel_dec *d, unsigned col, const uint64_t *v, struct reel_op *ops,
		      size_t count)
{
	uint64_t prev;
	switch (col) {
	case REEL_COL_TYPE:
		for (size_t i = 0; i < count; i++)
			ops[i].type = v[i];
		break;
	case REEL_COL_THREAD:
		for (size_t i = 0; i < count; i++) {
			/* checked, but an index is worth a second look: it addresses memory */
			uint32_t t = v[i] < d->nthreads ? v[i] : 0;
			d->thread[i] = t;
			ops[i].pid = d->threads[t].pid;
			ops[i].tid = d->threads[t].tid;
		}
		break;
	case REEL_COL_TIME:
		prev = d->prev_time;
		if (d->time_mode == REEL_TIME_END) {
			for (size_t i = 0; i < count; i++) {
				prev += (uint64_t)reel_unzigzag(v[i]);
				ops[i].end_ns = prev;
			}
		} else {
			for (size_t i = 0; i < count; i++) {
				prev += (uint64_t)reel_unzigzag(v[i]);
				ops[i].start_ns = prev;
			}
		}
		d->prev_time = prev;
		break;
	case REEL_COL_DURATION:
		if (d->time_mode == REEL_TIME_END) {
			for (size_t i = 0; i < count; i++)
				ops[i].start_ns = ops[i].end_ns - v[i];
		} else {
			for (size_t i = 0; i < count; i++)
				ops[i].end_ns = ops[i].start_ns + v[i];
		}
		break;
	case REEL_COL_FD_KIND:
		for (size_t i = 0; i < count; i++)
			ops[i].fd_kind = v[i];
		break;
	case REEL_COL_SUBOP:
		for (size_t i = 0; i < count; i++)
			ops[i].subop = v[i];
		break;
	case REEL_COL_FD:
		for (size_t i = 0; i < count; i++)
			ops[i].fd = (int32_t)((uint32_t)v[i] - 1U);
		break;
	case REEL_COL_FD2:
		for (size_t i = 0; i < count; i++)
			ops[i].fd2 = (int32_t)((uint32_t)v[i] - 1U);
		break;
	case REEL_COL_PATH:
		for (size_t i = 0; i < count; i++)
			ops[i].path = v[i];
		break;
	case REEL_COL_PATH2:
		for (size_t i = 0; i < count; i++)
			ops[i].path2 = v[i];
		break;
	case REEL_COL_FLAGS:
		for (size_t i = 0; i < count; i++)
			ops[i].flags = v[i];
		break;
	case REEL_COL_MODE:
		for (size_t i = 0; i < count; i++)
			ops[i].mode = v[i];
		break;
	case REEL_COL_LEN:
		for (size_t i = 0; i < count; i++)
			ops[i].len = v[i];
		break;
	case REEL_COL_OFFSET:
		for (size_t i = 0; i < count; i++) {
			struct reel_op *o = &ops[i];
			if (!dec_predicts(o->type)) {
				o->offset = v[i];
				continue;
			}
			uint32_t t = d->thread[i];
			o->offset =
			    reel_pred__get(&d->pred, t, o->fd) + (uint64_t)reel_unzigzag(v[i]);
			reel_pred__set(&d->pred, t, o->fd, o->offset + o->len);
		}
		break;
	case REEL_COL_RET:
		for (size_t i = 0; i < count; i++)
			ops[i].ret = (int64_t)(ops[i].len + (uint64_t)reel_unzigzag(v[i]));
		break;
	case REEL_COL_AUX:
		for (size_t i = 0; i < count; i++)
			ops[i].aux = v[i];
		break;
	case REEL_COL_CTX:
		for (size_t i = 0; i < count; i++)
			ops[i].ctx = v[i];
		break;
	case REEL_COL_SCHED:
		prev = d->prev_sched;
		for (size_t i = 0; i < count; i++) {
			prev += (uint64_t)reel_unzigzag(v[i]);
			ops[i].sched_ns = prev;
		}
		d->prev_sched = prev;
		break;
	case REEL_COL_WAIT:
		for (size_t i = 0; i < count; i++)
			ops[i].wait_ns = v[i];
		break;
	}
}

static int dec_header(struct reel_dec *d, struct reel_cur *c, size_t n)
{
	uint64_t time_mode = reel_cur__varint(c);
	uint64_t nthreads = reel_cur__varint(c);
	if (c->err)
		return c->err;
	if (time_mode > REEL_TIME_END)
		return -REEL_E_RESERVED;
	if (nthreads > n || nthreads > (uint64_t)(c->end - c->p) / 2)
		return -REEL_E_CORRUPT;
	if (nthreads > d->threads_cap) {
		struct reel_thread *t = realloc(d->threads, nthreads * sizeof(*t));
		if (!t)
			return -ENOMEM;
		d->threads = t;
		d->threads_cap = nthreads;
	}
	for (uint64_t t = 0; t < nthreads; t++) {
		uint64_t pid = reel_cur__varint(c), tid = reel_cur__varint(c);
		if (pid > UINT32_MAX || tid > UINT32_MAX)
			return -REEL_E_CORRUPT;
		d->threads[t] = (struct reel_thread){pid, tid};
	}
	d->time_mode = time_mode;
	d->nthreads = nthreads;

	uint64_t ncols = reel_cur__varint(c);
	if (c->err || ncols < REEL_COL_MIN || ncols > 256)
		return -REEL_E_CORRUPT;
	struct reel_col_state cs[256];
	/* the columns a chunk of an older minor version does not have: constant 0 */
	for (uint64_t k = ncols; k < REEL_COL__COUNT; k++)
		cs[k] = (struct reel_col_state){.enc = REEL_ENC_CONST, .param = 0, .n = n};
	size_t size[256];
	for (uint64_t k = 0; k < ncols; k++) {
		cs[k].enc = reel_cur__varint(c);
		cs[k].param = reel_cur__varint(c);
		cs[k].n = n;
		if (c->err)
			return c->err;
		switch (cs[k].enc) {
		case REEL_ENC_CONST:
			size[k] = 0;
			break;
		case REEL_ENC_VARINT:
			if (cs[k].param > REEL_MAX_PAYLOAD)
				return -REEL_E_CORRUPT;
			size[k] = cs[k].param;
			break;
		case REEL_ENC_PLANES:
			if (cs[k].param < 1 || cs[k].param > 8)
				return -REEL_E_CORRUPT;
			size[k] = cs[k].param * n;
			break;
		default:
			return -REEL_E_RESERVED;
		}
	}
	for (uint64_t k = 0; k < ncols; k++) {
		if (size[k] > (size_t)(c->end - c->p))
			return -REEL_E_CORRUPT;
		cs[k].start = cs[k].p = c->p;
		cs[k].end = c->p + size[k];
		c->p += size[k];
	}
	if (c->p != c->end)
		return -REEL_E_CORRUPT;
	/* columns a newer minor version added are skipped */
	memcpy(d->cs, cs, sizeof(d->cs));
	return 0;
}

int reel_dec__start(struct reel_dec *d, struct reel_cur *c, size_t n, unsigned known_types)
{
	d->n = d->done = 0;
	d->known_types = known_types;
	int err = dec_header(d, c, n);
	if (err)
		return err;

	/* check every value first: ops are handed out only from a whole, sound chunk */
	uint64_t v[DEC_BATCH];
	int32_t max_fd = -1;
	for (unsigned col = 0; col < REEL_COL__COUNT; col++) {
		struct reel_col_state *s = &d->cs[col];
		if (s->enc == REEL_ENC_CONST) {
			v[0] = s->param;
			err = dec_check(d, col, v, n ? 1 : 0, &max_fd);
		} else if (dec_any_value(col)) {
			if (s->enc == REEL_ENC_VARINT)
				err = dec_check_varints(s, n);
		} else {
			for (size_t b = 0; b < n && !err; b += DEC_BATCH) {
				size_t count = n - b < DEC_BATCH ? n - b : DEC_BATCH;
				err = dec_batch(s, v, count);
				if (!err)
					err = dec_check(d, col, v, count, &max_fd);
			}
			if (!err && s->enc == REEL_ENC_VARINT && s->p != s->end)
				err = -REEL_E_CORRUPT;
			s->p = s->start;
		}
		if (err)
			return err;
	}
	err = reel_pred__reset(&d->pred, d->nthreads);
	if (!err)
		err = reel_pred__reserve(&d->pred, max_fd);
	if (err)
		return err;
	/* constant columns are expanded once per chunk, not once per batch */
	uint64_t *cv = d->constv;
	for (unsigned col = 0; col < REEL_COL__COUNT; col++) {
		if (d->cs[col].enc != REEL_ENC_CONST)
			continue;
		for (size_t i = 0; i < DEC_BATCH; i++)
			cv[i] = d->cs[col].param;
		cv += DEC_BATCH;
	}
	d->prev_time = d->prev_sched = 0;
	d->n = n;
	return 0;
}

size_t reel_dec__batch(struct reel_dec *d, struct reel_op *ops)
{
	size_t count = d->n - d->done < DEC_BATCH ? d->n - d->done : DEC_BATCH;
	uint64_t v[DEC_BATCH];
	const uint64_t *cv = d->constv;
	for (unsigned col = 0; col < REEL_COL__COUNT && count; col++) {
		const uint64_t *vals = v;
		if (d->cs[col].enc == REEL_ENC_CONST) {
			vals = cv;
			cv += DEC_BATCH;
		} else {
			dec_batch(&d->cs[col], v, count); /* cannot fail: start() decoded it */
		}
		dec_apply(d, col, vals, ops, count);
	}
	d->done += count;
	return count;
}

int reel_dec__ops(struct reel_dec *d, struct reel_cur *c, struct reel_op *ops, size_t n,
		  unsigned known_types)
{
	int err = reel_dec__start(d, c, n, known_types);
	if (err)
		return err;
	for (size_t done = 0; done < n;)
		done += reel_dec__batch(d, ops + done);
	return 0;
}

void reel_dec__free(struct reel_dec *d)
{
	reel_pred__free(&d->pred);
	free(d->threads);
	memset(d, 0, sizeof(*d));
}
