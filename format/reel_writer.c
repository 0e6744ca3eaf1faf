// SPDX-License-Identifier: MIT
/*
 * The trace writer: buffers up to ops_per_chunk ops, then encodes them column-wise into
 * one zstd frame and appends it as a chunk (FORMAT.md). Memory stays bounded by one
 * chunk's ops, the path table and the chunk index.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>
#include <zstd_errors.h>

#include "reel_internal.h"

/*
 * 16 Ki ops (1.6 MiB of struct reel_op, swept once per column) stay in a core's cache, and
 * zstd level 1 on planes that are mostly entropy loses little: against 128 Ki ops at level 3,
 * bench_format --full encodes 28 % faster at 5.52 bytes/op instead of 5.56, real recordings
 * come out 1-2 % larger (FORMAT.md). A recorder or a replay writes beside the application or
 * the replay's own workers: their CPU matters more than 2 % of a few bytes per op.
 */
#define DEFAULT_OPS_PER_CHUNK 16384
#define DEFAULT_ZSTD_LEVEL 1
/* Pending path definitions beyond this end the chunk early, keeping payloads bounded. */
#define MAX_PENDING_PATH_BYTES (16U << 20)
/* A plane or varint stream shorter than this gets no zstd block of its own. */
#define MIN_BLOCK_RUN 1024

struct path_entry {
	char *s;
	uint32_t hash;
	uint32_t id;
};

struct reel_writer {
	int fd;
	int err; /* sticky: the first write error */
	uint64_t off;
	uint32_t ops_per_chunk;
	int level;
	bool head_written;
	bool frozen_head; /* an op was added: later meta goes in the footer */

	struct reel_meta head_meta;
	struct reel_meta foot_meta;

	struct reel_op *ops;
	size_t nops;

	/* paths: open-addressed hash of ids, entries by id - 1 */
	struct path_entry *paths;
	size_t npaths;
	size_t paths_cap;
	uint32_t *path_hash;
	size_t path_hash_cap;
	uint32_t first_pending; /* ids >= this are not yet written */
	size_t pending_bytes;

	struct reel_index_entry *index;
	size_t nindex;
	size_t index_cap;

	struct reel_totals totals;
	struct reel_enc enc;
	struct reel_buf raw;
	struct reel_buf packed;
	ZSTD_CCtx *zc;
};

static int write_all(struct reel_writer *w, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	while (len) {
		ssize_t n = write(w->fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= n;
		w->off += n;
	}
	return 0;
}

/*
 * Compresses w->raw into one zstd frame, ending a zstd block at each of cuts[0..ncuts)
 * so that every plane or varint stream gets entropy tables of its own.
 */
static size_t compress_payload(struct reel_writer *w, uint8_t *dst, size_t cap, const size_t *cuts,
			       size_t ncuts)
{
	size_t r = ZSTD_CCtx_reset(w->zc, ZSTD_reset_session_only);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setPledgedSrcSize(w->zc, w->raw.len);
	if (ZSTD_isError(r))
		return r;
	ZSTD_outBuffer out = {dst, cap, 0};
	size_t done = 0;
	for (size_t k = 0; k <= ncuts; k++) {
		size_t to = k < ncuts ? cuts[k] : w->raw.len;
		/* small streams share a block: their own tables would cost more than they save */
		if (k < ncuts && to - done < MIN_BLOCK_RUN)
			continue;
		ZSTD_inBuffer in = {w->raw.data + done, to - done, 0};
		ZSTD_EndDirective mode = k < ncuts ? ZSTD_e_flush : ZSTD_e_end;
		do {
			r = ZSTD_compressStream2(w->zc, &out, &in, mode);
			if (ZSTD_isError(r))
				return r;
		} while (r != 0 && out.pos < out.size);
		if (r != 0)
			return (size_t)-ZSTD_error_dstSize_tooSmall;
		done = to;
	}
	return out.pos;
}

/* Compresses w->raw and appends one chunk (FORMAT.md, "Chunk envelope"). */
static int write_chunk(struct reel_writer *w, unsigned type, uint32_t nops, const size_t *cuts,
		       size_t ncuts)
{
	if (w->raw.err)
		return w->raw.err;
	if (w->raw.len > REEL_MAX_PAYLOAD)
		return -E2BIG;
	size_t bound = ZSTD_compressBound(w->raw.len) + 3 * (ncuts + 1);
	w->packed.len = 0;
	if (reel_buf__reserve(&w->packed, REEL_ENVELOPE_LEN + bound))
		return w->packed.err;
	uint8_t *env = w->packed.data;
	size_t csize = compress_payload(w, env + REEL_ENVELOPE_LEN, bound, cuts, ncuts);
	/* FORMAT.md bounds csize by ZSTD_COMPRESSBOUND(usize): block ends must not break it */
	if (ZSTD_isError(csize) || csize > ZSTD_compressBound(w->raw.len))
		csize = compress_payload(w, env + REEL_ENVELOPE_LEN, bound, NULL, 0);
	if (ZSTD_isError(csize))
		return -ENOMEM;
	memset(env, 0, REEL_ENVELOPE_LEN);
	reel_put32(env, REEL_CHUNK_MAGIC);
	env[4] = type;
	reel_put32(env + 8, csize);
	reel_put32(env + 12, w->raw.len);
	reel_put32(env + 16, nops);
	reel_put32(env + 24, reel_crc32c(0, env + REEL_ENVELOPE_LEN, csize));
	reel_put32(env + 28, reel_crc32c(0, env, 28));
	return write_all(w, env, REEL_ENVELOPE_LEN + csize);
}

static int write_head(struct reel_writer *w)
{
	if (w->head_written)
		return 0;
	w->head_written = true;
	w->frozen_head = true;
	w->raw.len = 0;
	reel_buf__varint(&w->raw, 0); /* flags */
	reel_meta__encode(&w->head_meta, &w->raw);
	return write_chunk(w, REEL_CHUNK_META, 0, NULL, 0);
}

static int flush_ops(struct reel_writer *w)
{
	int err = write_head(w);
	if (err)
		return err;
	if (!w->nops && w->first_pending > w->npaths)
		return 0;

	w->raw.len = 0;
	reel_buf__varint(&w->raw, 0); /* flags */
	size_t ndefs = w->npaths + 1 - w->first_pending;
	reel_buf__varint(&w->raw, ndefs);
	if (ndefs) {
		reel_buf__varint(&w->raw, w->first_pending);
		for (size_t id = w->first_pending; id <= w->npaths; id++) {
			const char *s = w->paths[id - 1].s;
			reel_buf__string(&w->raw, s, strlen(s));
		}
	}
	err = reel_enc__ops(&w->enc, w->ops, w->nops, &w->raw);
	if (err)
		return err;

	struct reel_index_entry ent = {.offset = w->off, .ops = w->nops};
	if (w->nops) {
		ent.first_start_ns = UINT64_MAX;
		for (size_t i = 0; i < w->nops; i++) {
			if (w->ops[i].start_ns < ent.first_start_ns)
				ent.first_start_ns = w->ops[i].start_ns;
			if (w->ops[i].end_ns > ent.last_end_ns)
				ent.last_end_ns = w->ops[i].end_ns;
		}
	}
	if (w->nindex == w->index_cap) {
		size_t cap = w->index_cap ? w->index_cap * 2 : 64;
		struct reel_index_entry *ix = realloc(w->index, cap * sizeof(*ix));
		if (!ix)
			return -ENOMEM;
		w->index = ix;
		w->index_cap = cap;
	}
	err = write_chunk(w, REEL_CHUNK_OPS, w->nops, w->enc.cuts, w->enc.ncuts);
	if (err)
		return err;
	w->index[w->nindex++] = ent;
	w->totals.chunks++;
	w->nops = 0;
	w->first_pending = w->npaths + 1;
	w->pending_bytes = 0;
	return 0;
}

int reel_writer__open(const char *path, const struct reel_writer_opts *opts,
		      struct reel_writer **out)
{
	struct reel_writer *w = calloc(1, sizeof(*w));
	int err = -ENOMEM;
	if (!w)
		return -ENOMEM;
	w->fd = -1;
	w->first_pending = 1;
	w->ops_per_chunk =
	    opts && opts->ops_per_chunk ? opts->ops_per_chunk : DEFAULT_OPS_PER_CHUNK;
	if (w->ops_per_chunk > REEL_MAX_CHUNK_OPS / 4)
		w->ops_per_chunk = REEL_MAX_CHUNK_OPS / 4;
	w->level = opts && opts->zstd_level ? opts->zstd_level : DEFAULT_ZSTD_LEVEL;
	w->ops = malloc(w->ops_per_chunk * sizeof(*w->ops));
	w->zc = ZSTD_createCCtx();
	if (!w->ops || !w->zc)
		goto fail;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, w->level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_contentSizeFlag, 1))) {
		err = -EINVAL;
		goto fail;
	}
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		err = -errno;
		goto fail;
	}
	uint8_t hdr[REEL_HEADER_LEN] = {0};
	memcpy(hdr, REEL_FILE_MAGIC, REEL_FILE_MAGIC_LEN);
	reel_put16(hdr + 8, REEL_VERSION_MAJOR);
	reel_put16(hdr + 10, REEL_VERSION_MINOR);
	err = write_all(w, hdr, sizeof(hdr));
	if (err)
		goto fail;
	*out = w;
	return 0;
fail:
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	w->err = err;
	reel_writer__close(w);
	return err;
}

int reel_writer__meta(struct reel_writer *w, const char *key, const char *value)
{
	if (!key || !*key || !value)
		return -EINVAL;
	return reel_meta__set(w->frozen_head ? &w->foot_meta : &w->head_meta, key, strlen(key),
			      value, strlen(value));
}

static uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261U; /* FNV-1a */
	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619U;
	return h;
}

int reel_writer__path(struct reel_writer *w, const char *path, uint32_t *id)
{
	if (!path)
		return -EINVAL;
	if (w->err)
		return w->err;
	uint32_t h = str_hash(path);
	if (w->path_hash_cap) {
		for (uint32_t s = h;; s++) {
			uint32_t slot = w->path_hash[s & (w->path_hash_cap - 1)];
			if (!slot)
				break;
			if (w->paths[slot - 1].hash == h &&
			    strcmp(w->paths[slot - 1].s, path) == 0) {
				*id = slot;
				return 0;
			}
		}
	}
	if (w->npaths == UINT32_MAX - 1)
		return -ENOSPC;
	if (2 * (w->npaths + 1) > w->path_hash_cap) {
		size_t cap = w->path_hash_cap ? w->path_hash_cap * 2 : 1024;
		uint32_t *t = calloc(cap, sizeof(*t));
		if (!t)
			return -ENOMEM;
		for (size_t i = 0; i < w->npaths; i++) {
			uint32_t s = w->paths[i].hash;
			while (t[s & (cap - 1)])
				s++;
			t[s & (cap - 1)] = i + 1;
		}
		free(w->path_hash);
		w->path_hash = t;
		w->path_hash_cap = cap;
	}
	if (w->npaths == w->paths_cap) {
		size_t cap = w->paths_cap ? w->paths_cap * 2 : 256;
		struct path_entry *p = realloc(w->paths, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		w->paths = p;
		w->paths_cap = cap;
	}
	char *copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	w->paths[w->npaths] = (struct path_entry){copy, h, w->npaths + 1};
	uint32_t s = h;
	while (w->path_hash[s & (w->path_hash_cap - 1)])
		s++;
	w->path_hash[s & (w->path_hash_cap - 1)] = ++w->npaths;
	*id = w->npaths;
	w->pending_bytes += strlen(path) + 5;
	if (w->pending_bytes > MAX_PENDING_PATH_BYTES)
		return w->err = flush_ops(w);
	return 0;
}

int reel_writer__add(struct reel_writer *w, const struct reel_op *op)
{
	if (w->err)
		return w->err;
	if (op->type == REEL_OP_NONE || op->type >= REEL_OP__COUNT || op->fd_kind > REEL_FD_OTHER ||
	    op->path > w->npaths || op->path2 > w->npaths)
		return -EINVAL;
	w->frozen_head = true;
	w->ops[w->nops++] = *op;

	struct reel_totals *t = &w->totals;
	if (!t->ops || op->start_ns < t->first_start_ns)
		t->first_start_ns = op->start_ns;
	if (op->end_ns > t->last_end_ns)
		t->last_end_ns = op->end_ns;
	t->ops++;
	t->ops_by_type[op->type]++;
	if (op->ret > 0 && (reel_op__is_read(op->type) || reel_op__is_copy(op->type)))
		t->bytes_read += op->ret;
	if (op->ret > 0 && (reel_op__is_write(op->type) || reel_op__copy_writes(op)))
		t->bytes_written += op->ret;

	if (w->nops == w->ops_per_chunk)
		return w->err = flush_ops(w);
	return 0;
}

int reel_writer__flush(struct reel_writer *w)
{
	if (w->err)
		return w->err;
	return w->err = flush_ops(w);
}

const struct reel_totals *reel_writer__totals(const struct reel_writer *w)
{
	return &w->totals;
}

static int write_footer(struct reel_writer *w)
{
	uint64_t footer_off = w->off;
	w->raw.len = 0;
	reel_buf__varint(&w->raw, 0); /* flags */
	reel_totals__encode(&w->totals, &w->raw);
	reel_meta__encode(&w->foot_meta, &w->raw);
	reel_buf__varint(&w->raw, w->nindex);
	uint64_t prev = 0;
	for (size_t i = 0; i < w->nindex; i++) {
		const struct reel_index_entry *e = &w->index[i];
		reel_buf__varint(&w->raw, e->offset - prev);
		reel_buf__varint(&w->raw, e->ops);
		reel_buf__varint(&w->raw, e->first_start_ns);
		reel_buf__varint(&w->raw, e->last_end_ns - e->first_start_ns);
		prev = e->offset;
	}
	int err = write_chunk(w, REEL_CHUNK_FOOTER, 0, NULL, 0);
	if (err)
		return err;
	uint8_t tr[REEL_TRAILER_LEN] = {0};
	reel_put32(tr, REEL_TRAILER_MAGIC);
	reel_put64(tr + 8, footer_off);
	return write_all(w, tr, sizeof(tr));
}

int reel_writer__close(struct reel_writer *w)
{
	if (!w)
		return -EINVAL;
	int err = w->err;
	if (w->fd >= 0) {
		if (!err)
			err = flush_ops(w);
		if (!err)
			err = write_footer(w);
		if (close(w->fd) && !err)
			err = -errno;
	}
	reel_meta__free(&w->head_meta);
	reel_meta__free(&w->foot_meta);
	for (size_t i = 0; i < w->npaths; i++)
		free(w->paths[i].s);
	free(w->paths);
	free(w->path_hash);
	free(w->ops);
	free(w->index);
	reel_enc__free(&w->enc);
	reel_buf__free(&w->raw);
	reel_buf__free(&w->packed);
	ZSTD_freeCCtx(w->zc);
	free(w);
	return err;
}
