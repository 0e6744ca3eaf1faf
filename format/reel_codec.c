// SPDX-License-Identifier: MIT
/*
 * Payload codecs shared by writer and reader: varints, strings, meta lists, totals, and
 * the column-wise ops encoding (FORMAT.md, "Payloads", "Ops payload", "Columns").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

static inline size_t varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
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
			e->threads[e->nthreads] = (struct reel_thread){ ops[i].pid, ops[i].tid };
			slot = ++e->nthreads;
			e->hash[s & (e->hash_cap - 1)] = slot;
		}
		e->thread_idx[i] = slot - 1;
	}
	return 0;
}

/*
 * Picks the smallest of the encodings for one column: constant when all values agree,
 * else byte planes (fixed width, one plane per byte, which zstd's entropy stage codes
 * plane by plane) unless varints are smaller.
 */
static void enc_column(struct reel_enc *e, size_t n, struct reel_buf *desc)
{
	const uint64_t *v = e->vals;
	uint64_t first = n ? v[0] : 0, max = 0;
	size_t vsize = 0;
	bool same = true;
	for (size_t i = 0; i < n; i++) {
		same &= v[i] == first;
		max |= v[i];
		vsize += varint_len(v[i]);
	}
	if (same) {
		reel_buf__varint(desc, REEL_ENC_CONST);
		reel_buf__varint(desc, first);
		return;
	}
	unsigned width = 0;
	while (width < 8 && (max >> (8 * width)))
		width++;
	if ((uint64_t)width * n <= vsize) {
		reel_buf__varint(desc, REEL_ENC_PLANES);
		reel_buf__varint(desc, width);
		if (reel_buf__reserve(&e->cols, width * n))
			return;
		uint8_t *out = e->cols.data + e->cols.len;
		for (unsigned k = 0; k < width; k++, out += n)
			for (size_t i = 0; i < n; i++)
				out[i] = (uint8_t)(v[i] >> (8 * k));
		e->cols.len += width * n;
		return;
	}
	reel_buf__varint(desc, REEL_ENC_VARINT);
	reel_buf__varint(desc, vsize);
	if (reel_buf__reserve(&e->cols, vsize))
		return;
	uint8_t *out = e->cols.data + e->cols.len;
	for (size_t i = 0; i < n; i++)
		out += varint_put(out, v[i]);
	e->cols.len += vsize;
}

int reel_enc__ops(struct reel_enc *e, const struct reel_op *ops, size_t n, struct reel_buf *b)
{
	int err = enc_grow(e, n ? n : 1);
	if (!err && !e->pred) {
		e->pred = calloc(REEL_PRED_FDS, sizeof(*e->pred));
		if (!e->pred)
			err = -ENOMEM;
	}
	if (!err)
		err = enc_threads(e, ops, n);
	if (err)
		return err;

	reel_buf__varint(b, e->nthreads);
	for (size_t t = 0; t < e->nthreads; t++) {
		reel_buf__varint(b, e->threads[t].pid);
		reel_buf__varint(b, e->threads[t].tid);
	}
	reel_buf__varint(b, REEL_COL__COUNT);
	e->cols.len = 0;
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
		case REEL_COL_START:
			for (size_t i = 0; i < n; i++) {
				v[i] = reel_zigzag((int64_t)(ops[i].start_ns - prev));
				prev = ops[i].start_ns;
			}
			break;
		case REEL_COL_DURATION:
			for (size_t i = 0; i < n; i++)
				v[i] = reel_zigzag((int64_t)(ops[i].end_ns - ops[i].start_ns));
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
			memset(e->pred, 0, REEL_PRED_FDS * sizeof(*e->pred));
			for (size_t i = 0; i < n; i++) {
				const struct reel_op *o = &ops[i];
				if (!reel_op__predicts_offset(o->type)) {
					v[i] = o->offset;
					continue;
				}
				bool known = o->fd >= 0 && o->fd < REEL_PRED_FDS;
				uint64_t p = known ? e->pred[o->fd] : 0;
				v[i] = reel_zigzag((int64_t)(o->offset - p));
				if (known)
					e->pred[o->fd] = o->offset + o->len;
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
		}
		enc_column(e, n, b);
	}
	reel_buf__put(b, e->cols.data, e->cols.len);
	return b->err ? b->err : e->cols.err;
}

void reel_enc__free(struct reel_enc *e)
{
	free(e->vals);
	free(e->pred);
	free(e->threads);
	free(e->thread_idx);
	free(e->hash);
	reel_buf__free(&e->cols);
	memset(e, 0, sizeof(*e));
}

/* ---- ops columns: decoder ---- */

struct col_desc {
	uint64_t enc;
	uint64_t param;
	const uint8_t *data;
	size_t size;
};

/* Decodes one column into v[0..n). */
static int dec_column(const struct col_desc *d, uint64_t *v, size_t n)
{
	if (d->enc == REEL_ENC_CONST) {
		for (size_t i = 0; i < n; i++)
			v[i] = d->param;
		return 0;
	}
	const uint8_t *p = d->data, *end = d->data + d->size;
	if (d->enc == REEL_ENC_PLANES) {
		unsigned w = d->param;
		for (size_t i = 0; i < n; i++)
			v[i] = p[i];
		for (unsigned k = 1; k < w; k++) {
			const uint8_t *pl = p + k * n;
			for (size_t i = 0; i < n; i++)
				v[i] |= (uint64_t)pl[i] << (8 * k);
		}
		return 0;
	}
	size_t i = 0;
	/* Fast path while a whole 10-byte varint surely fits. */
	while (i < n && end - p >= 10) {
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
	for (; i < n; i++)
		if (varint_get(&p, end, &v[i]))
			return -REEL_E_CORRUPT;
	return p == end ? 0 : -REEL_E_CORRUPT;
}

int reel_dec__ops(struct reel_dec *d, struct reel_cur *c, struct reel_op *ops, size_t n,
		  unsigned known_types)
{
	uint64_t nthreads = reel_cur__varint(c);
	if (c->err)
		return c->err;
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
		d->threads[t] = (struct reel_thread){ pid, tid };
	}
	uint64_t ncols = reel_cur__varint(c);
	if (c->err || ncols < REEL_COL__COUNT || ncols > 256)
		return -REEL_E_CORRUPT;

	struct col_desc desc[256];
	for (uint64_t k = 0; k < ncols; k++) {
		desc[k].enc = reel_cur__varint(c);
		desc[k].param = reel_cur__varint(c);
		if (c->err)
			return c->err;
		switch (desc[k].enc) {
		case REEL_ENC_CONST:
			desc[k].size = 0;
			break;
		case REEL_ENC_VARINT:
			if (desc[k].param > REEL_MAX_PAYLOAD)
				return -REEL_E_CORRUPT;
			desc[k].size = desc[k].param;
			break;
		case REEL_ENC_PLANES:
			if (desc[k].param < 1 || desc[k].param > 8)
				return -REEL_E_CORRUPT;
			desc[k].size = desc[k].param * n;
			break;
		default:
			return -REEL_E_RESERVED;
		}
	}
	for (uint64_t k = 0; k < ncols; k++) {
		if (desc[k].size > (size_t)(c->end - c->p))
			return -REEL_E_CORRUPT;
		desc[k].data = c->p;
		c->p += desc[k].size;
	}
	if (c->p != c->end)
		return -REEL_E_CORRUPT;
	if (!n)
		return 0;

	/* The table is cleared per chunk so that every chunk decodes on its own. */
	if (!d->pred) {
		d->pred = malloc(REEL_PRED_FDS * sizeof(*d->pred));
		if (!d->pred)
			return -ENOMEM;
	}
	uint64_t *v = d->vals;
	if (n > d->vals_cap) {
		v = realloc(d->vals, n * sizeof(*v));
		if (!v)
			return -ENOMEM;
		d->vals = v;
		d->vals_cap = n;
	}
	for (unsigned col = 0; col < REEL_COL__COUNT; col++) {
		int err = dec_column(&desc[col], v, n);
		if (err)
			return err;
		uint64_t prev = 0;
		switch (col) {
		case REEL_COL_TYPE:
			for (size_t i = 0; i < n; i++) {
				if (!v[i] || v[i] > UINT16_MAX || (known_types && v[i] >= known_types))
					return -REEL_E_CORRUPT;
				ops[i].type = v[i];
			}
			break;
		case REEL_COL_THREAD:
			for (size_t i = 0; i < n; i++) {
				if (v[i] >= nthreads)
					return -REEL_E_CORRUPT;
				ops[i].pid = d->threads[v[i]].pid;
				ops[i].tid = d->threads[v[i]].tid;
			}
			break;
		case REEL_COL_START:
			for (size_t i = 0; i < n; i++) {
				prev += (uint64_t)reel_unzigzag(v[i]);
				ops[i].start_ns = prev;
			}
			break;
		case REEL_COL_DURATION:
			for (size_t i = 0; i < n; i++)
				ops[i].end_ns = ops[i].start_ns + (uint64_t)reel_unzigzag(v[i]);
			break;
		case REEL_COL_FD_KIND:
		case REEL_COL_SUBOP:
			for (size_t i = 0; i < n; i++) {
				if (v[i] > UINT8_MAX)
					return -REEL_E_CORRUPT;
				if (col == REEL_COL_FD_KIND)
					ops[i].fd_kind = v[i];
				else
					ops[i].subop = v[i];
			}
			break;
		case REEL_COL_FD:
		case REEL_COL_FD2:
			for (size_t i = 0; i < n; i++) {
				if (v[i] > UINT32_MAX)
					return -REEL_E_CORRUPT;
				int32_t fd = (int32_t)((uint32_t)v[i] - 1U);
				if (col == REEL_COL_FD)
					ops[i].fd = fd;
				else
					ops[i].fd2 = fd;
			}
			break;
		case REEL_COL_PATH:
		case REEL_COL_PATH2:
		case REEL_COL_FLAGS:
		case REEL_COL_MODE:
			for (size_t i = 0; i < n; i++) {
				if (v[i] > UINT32_MAX)
					return -REEL_E_CORRUPT;
			}
			for (size_t i = 0; i < n; i++) {
				if (col == REEL_COL_PATH)
					ops[i].path = v[i];
				else if (col == REEL_COL_PATH2)
					ops[i].path2 = v[i];
				else if (col == REEL_COL_FLAGS)
					ops[i].flags = v[i];
				else
					ops[i].mode = v[i];
			}
			break;
		case REEL_COL_LEN:
			for (size_t i = 0; i < n; i++)
				ops[i].len = v[i];
			break;
		case REEL_COL_OFFSET:
			memset(d->pred, 0, REEL_PRED_FDS * sizeof(*d->pred));
			for (size_t i = 0; i < n; i++) {
				struct reel_op *o = &ops[i];
				if (!reel_op__predicts_offset(o->type)) {
					o->offset = v[i];
					continue;
				}
				bool known = o->fd >= 0 && o->fd < REEL_PRED_FDS;
				uint64_t p = known ? d->pred[o->fd] : 0;
				o->offset = p + (uint64_t)reel_unzigzag(v[i]);
				if (known)
					d->pred[o->fd] = o->offset + o->len;
			}
			break;
		case REEL_COL_RET:
			for (size_t i = 0; i < n; i++)
				ops[i].ret = (int64_t)(ops[i].len + (uint64_t)reel_unzigzag(v[i]));
			break;
		case REEL_COL_AUX:
			for (size_t i = 0; i < n; i++)
				ops[i].aux = v[i];
			break;
		case REEL_COL_CTX:
			for (size_t i = 0; i < n; i++)
				ops[i].ctx = v[i];
			break;
		case REEL_COL_SCHED:
			for (size_t i = 0; i < n; i++) {
				prev += (uint64_t)reel_unzigzag(v[i]);
				ops[i].sched_ns = prev;
			}
			break;
		}
	}
	return 0;
}

void reel_dec__free(struct reel_dec *d)
{
	free(d->pred);
	free(d->threads);
	free(d->vals);
	memset(d, 0, sizeof(*d));
}
