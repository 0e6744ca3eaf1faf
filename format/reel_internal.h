/* SPDX-License-Identifier: MIT */
/*
 * reel_internal.h - constants and helpers shared by the writer and the reader.
 * Names and numbers follow format/FORMAT.md; change them only together with it.
 */
#ifndef IOREEL_REEL_INTERNAL_H
#define IOREEL_REEL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "reel.h"

/* FORMAT.md, "File header" */
#define REEL_FILE_MAGIC "\x89REEL\r\n\x1a"
#define REEL_FILE_MAGIC_LEN 8
#define REEL_HEADER_LEN 16

/* FORMAT.md, "Chunk envelope" */
#define REEL_CHUNK_MAGIC 0x4b43528aU /* bytes 8a 52 43 4b */
#define REEL_ENVELOPE_LEN 32
#define REEL_CHUNK_META 1
#define REEL_CHUNK_OPS 2
#define REEL_CHUNK_FOOTER 3

/* FORMAT.md, "Trailer" */
#define REEL_TRAILER_MAGIC 0x4e45528bU /* bytes 8b 52 45 4e */
#define REEL_TRAILER_LEN 16

/* FORMAT.md, "Limits" */
#define REEL_MAX_CHUNK_OPS (1U << 20)
#define REEL_MAX_PAYLOAD (1U << 27)

/* FORMAT.md, "Ops payload": column numbers */
enum reel_col {
	REEL_COL_TYPE,
	REEL_COL_THREAD,
	REEL_COL_TIME,
	REEL_COL_DURATION,
	REEL_COL_FD_KIND,
	REEL_COL_FD,
	REEL_COL_FD2,
	REEL_COL_SUBOP,
	REEL_COL_PATH,
	REEL_COL_PATH2,
	REEL_COL_FLAGS,
	REEL_COL_MODE,
	REEL_COL_LEN,
	REEL_COL_OFFSET,
	REEL_COL_RET,
	REEL_COL_AUX,
	REEL_COL_CTX,
	REEL_COL_SCHED,
	REEL_COL_WAIT, /* version 1.2 */
	REEL_COL__COUNT
};

/* the columns every chunk has (those of version 1.0); one it lacks is constant 0 */
#define REEL_COL_MIN (REEL_COL_SCHED + 1)

/* FORMAT.md, "Column encodings" */
#define REEL_ENC_CONST 0
#define REEL_ENC_VARINT 1
#define REEL_ENC_PLANES 2

/* Values per column the writer trial-compresses to choose an encoding. */
#define REEL_ENC_SAMPLE 16384
/* A column's choice is tried again after this many values (small chunks reuse it). */
#define REEL_ENC_RETRIAL (8 * REEL_ENC_SAMPLE)

/* FORMAT.md, "Time mode" */
#define REEL_TIME_START 0 /* the time column holds start deltas */
#define REEL_TIME_END 1	  /* the time column holds end deltas */

/* Offset prediction table size: fds below this predict their next offset (FORMAT.md). */
#define REEL_PRED_FDS 65536

/*
 * Offset prediction state (FORMAT.md, "offset"): per thread, the fd of its last data op
 * and where that op ended; per fd, where the last data op on it ended. Reset per chunk.
 */
struct reel_pred {
	uint64_t *fd_next;
	uint32_t *fd_gen; /* fd_next[fd] counts only when fd_gen[fd] == gen */
	uint32_t fd_cap;  /* grown to the largest fd seen, up to REEL_PRED_FDS */
	uint32_t gen;
	int32_t *thr_fd;
	uint64_t *thr_next;
	size_t thr_cap;
};

int reel_pred__reset(struct reel_pred *p, size_t nthreads);
/* Makes room for fds up to max_fd (callers reserve before get/set of larger fds). */
int reel_pred__reserve(struct reel_pred *p, int32_t max_fd);
void reel_pred__free(struct reel_pred *p);

static inline uint64_t reel_pred__get(const struct reel_pred *p, uint32_t t, int32_t fd)
{
	if ((uint32_t)fd >= REEL_PRED_FDS)
		return 0;
	/* both candidates loaded, then selected: the choice is data-dependent and unpredictable */
	uint64_t by_fd = p->fd_gen[fd] == p->gen ? p->fd_next[fd] : 0;
	return p->thr_fd[t] == fd ? p->thr_next[t] : by_fd;
}

static inline void reel_pred__set(struct reel_pred *p, uint32_t t, int32_t fd, uint64_t next)
{
	if ((uint32_t)fd >= REEL_PRED_FDS)
		return;
	p->thr_fd[t] = fd;
	p->thr_next[t] = next;
	p->fd_next[fd] = next;
	p->fd_gen[fd] = p->gen;
}

static inline void reel_put16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static inline void reel_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}

static inline void reel_put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = v >> (8 * i);
}

static inline uint16_t reel_get16(const uint8_t *p)
{
	return p[0] | (uint16_t)p[1] << 8;
}

static inline uint32_t reel_get32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t reel_get64(const uint8_t *p)
{
	return reel_get32(p) | (uint64_t)reel_get32(p + 4) << 32;
}

static inline uint64_t reel_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t reel_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Does this op type's offset column use the per-fd prediction? (FORMAT.md, "offset") */
static inline bool reel_op__predicts_offset(unsigned type)
{
	return reel_op__is_read(type) || reel_op__is_write(type) || type == REEL_OP_AIO_SUBMIT ||
	       type == REEL_OP_URING_SUBMIT;
}

uint32_t reel_crc32c(uint32_t crc, const void *buf, size_t len);

/* A growable byte buffer; encoders append to it. */
struct reel_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	int err; /* sticky -ENOMEM */
};

int reel_buf__reserve(struct reel_buf *b, size_t more);
void reel_buf__put(struct reel_buf *b, const void *p, size_t n);
void reel_buf__varint(struct reel_buf *b, uint64_t v);
void reel_buf__string(struct reel_buf *b, const char *s, size_t n);
void reel_buf__free(struct reel_buf *b);

/* A bounds-checked cursor over a decoded payload. */
struct reel_cur {
	const uint8_t *p;
	const uint8_t *end;
	int err; /* sticky -REEL_E_CORRUPT */
};

uint64_t reel_cur__varint(struct reel_cur *c);
/* A length-prefixed string: returns its bytes (not NUL-terminated) and *n, or NULL. */
const uint8_t *reel_cur__string(struct reel_cur *c, size_t *n);

/* One key/value list (head or footer meta). */
struct reel_meta {
	char **keys;
	char **values;
	size_t count;
	size_t cap;
};

int reel_meta__set(struct reel_meta *m, const char *key, size_t klen, const char *value,
		   size_t vlen);
const char *reel_meta__get(const struct reel_meta *m, const char *key);
void reel_meta__free(struct reel_meta *m);
void reel_meta__encode(const struct reel_meta *m, struct reel_buf *b);
int reel_meta__decode(struct reel_meta *m, struct reel_cur *c);

/* Chunk index entry kept by the writer and stored in the footer. */
struct reel_index_entry {
	uint64_t offset;
	uint32_t ops;
	uint64_t first_start_ns;
	uint64_t last_end_ns;
};

void reel_totals__encode(const struct reel_totals *t, struct reel_buf *b);
int reel_totals__decode(struct reel_totals *t, struct reel_cur *c);

/* Ops chunk codec (reel_codec.c). */
struct reel_thread {
	uint32_t pid;
	uint32_t tid;
};

struct reel_enc {
	uint64_t *vals; /* one column's transformed values */
	struct reel_pred pred;
	struct reel_buf cols;		  /* column data */
	struct reel_buf trial;		  /* scratch for trial compressions */
	size_t cuts[REEL_COL__COUNT * 8]; /* where each plane or varint stream starts in b */
	size_t ncuts;
	void *trial_cctx; /* ZSTD_CCtx */
	struct reel_thread *threads;
	uint32_t *thread_idx; /* per op */
	size_t nthreads;
	size_t threads_cap;
	uint32_t *hash; /* open-addressed (pid,tid) -> thread index + 1 */
	size_t hash_cap;
	size_t cap; /* ops capacity of vals/thread_idx */
	/* the last trial's choice per column: planes (1) or varints (0), at what width, and
	 * the values encoded since it */
	struct {
		uint8_t planes, width;
		uint64_t since;
	} choice[REEL_COL__COUNT];
};

/*
 * Appends the time mode, thread table, column descriptors and column data of ops[0..n)
 * to b (FORMAT.md, "Ops payload"; path definitions are the caller's). Leaves in e->cuts
 * the offsets in b where each plane or varint stream starts.
 */
int reel_enc__ops(struct reel_enc *e, const struct reel_op *ops, size_t n, struct reel_buf *b);
void reel_enc__free(struct reel_enc *e);

#define REEL_DEC_BATCH 256

struct reel_col_state {
	uint64_t enc;
	uint64_t param;
	const uint8_t *start; /* the column's data */
	const uint8_t *p;     /* varint: next byte; planes: plane 0 at the next value */
	const uint8_t *end;
	size_t n; /* planes: values per plane */
};

/*
 * Decoder of one ops chunk: reel_dec__start() parses and checks the whole chunk, then
 * reel_dec__batch() decodes it REEL_DEC_BATCH ops at a time into a small buffer that stays
 * in the cache until the ops are handed out.
 */
struct reel_dec {
	struct reel_pred pred;
	uint64_t constv[REEL_COL__COUNT * REEL_DEC_BATCH]; /* expanded constant columns */
	struct reel_col_state cs[REEL_COL__COUNT];
	struct reel_thread *threads;
	size_t threads_cap;
	size_t nthreads;
	unsigned time_mode;
	unsigned known_types;
	uint64_t prev_time;
	uint64_t prev_sched;
	size_t n;			 /* ops in the chunk */
	size_t done;			 /* ops decoded so far */
	uint32_t thread[REEL_DEC_BATCH]; /* the batch's thread indexes, for the offset column */
};

/*
 * Parses the ops columns at c (from time_mode on) for n ops and checks every value, so
 * that decoding the batches cannot fail. known_types: op types >= this and unknown fd
 * kinds are rejected (0: a newer minor version; any nonzero type and fd kind is accepted).
 * Returns 0 or -REEL_E_CORRUPT / -REEL_E_RESERVED / -ENOMEM.
 */
int reel_dec__start(struct reel_dec *d, struct reel_cur *c, size_t n, unsigned known_types);
/* Decodes the next ops of the started chunk into ops[]: how many (at most REEL_DEC_BATCH). */
size_t reel_dec__batch(struct reel_dec *d, struct reel_op *ops);
/* start, then every batch into ops[0..n). */
int reel_dec__ops(struct reel_dec *d, struct reel_cur *c, struct reel_op *ops, size_t n,
		  unsigned known_types);
void reel_dec__free(struct reel_dec *d);

#endif /* IOREEL_REEL_INTERNAL_H */
