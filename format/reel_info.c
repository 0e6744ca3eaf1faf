/* SPDX-License-Identifier: MIT */
/*
 * reel_info.c - the summary of a trace in one streaming pass. Memory grows with the number
 * of files, fds and threads, never with the number of ops, so that multi-gigabyte traces
 * summarise on small machines.
 *
 * "Files" are the distinct paths of ops that succeeded (a failed open of a name on $PATH did
 * not touch a file). "Reached" (JSON: file_set_bytes) is, summed over those files, the
 * furthest byte a read, write or fallocate reached: the files the application made included,
 * so more than a replay prepares (only what was there before the capture, replay_fileset.c)
 * when it made or grew files.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reel_convert.h"
#include "reel_cvt_util.h"

#define INFO_MAX_DAMAGE 32 /* listed one by one; beyond, counted */

struct info_state {
	uint64_t ops;
	uint64_t by_type[REEL_OP__COUNT + 1]; /* last slot: unknown types */
	uint64_t err_by_type[REEL_OP__COUNT + 1];
	uint64_t bytes_read;
	uint64_t bytes_written;
	uint64_t shared_wmaps;	    /* shared writable file mappings: stores through them unseen */
	uint64_t shared_wmap_bytes; /* their length */
	uint64_t first_start;
	uint64_t last_end;
	struct cvt_map pids;  /* pid -> 1 */
	struct cvt_map tids;  /* (pid, tid) -> 1 */
	struct cvt_map fds;   /* (pid, fd) -> path id */
	struct cvt_map files; /* path id -> furthest byte */
	uint64_t damaged;
	struct reel_damage damage[INFO_MAX_DAMAGE];
	struct reel_damage_sum dsum;
};

static int info__touch(struct info_state *s, uint32_t path, uint64_t end)
{
	uint64_t *v;

	if (!path)
		return 0;
	v = cvt_map__put(&s->files, path, NULL);
	if (!v)
		return -ENOMEM;
	if (end > *v)
		*v = end;
	return 0;
}

static int info__fd_track(struct info_state *s, const struct reel_op *op)
{
	uint64_t *v;

	if (op->ret < 0)
		return 0;
	switch (op->type) {
	case REEL_OP_OPEN:
	case REEL_OP_OPENAT:
	case REEL_OP_OPENAT2:
	case REEL_OP_CREAT:
		if (!op->path) { /* unknown: not what the number named before */
			cvt_map__del(&s->fds, cvt_key2(op->pid, (uint32_t)op->ret));
			return 0;
		}
		v = cvt_map__put(&s->fds, cvt_key2(op->pid, (uint32_t)op->ret), NULL);
		if (!v)
			return -ENOMEM;
		*v = op->path;
		return 0;
	case REEL_OP_DUP:
	case REEL_OP_DUP2:
	case REEL_OP_DUP3:
	case REEL_OP_FCNTL_DUPFD: {
		uint64_t *old = cvt_map__get(&s->fds, cvt_key2(op->pid, (uint32_t)op->fd));
		uint64_t path = old ? *old : op->path;

		if (!path) { /* unknown: not what the number named before (a dup2 over it) */
			cvt_map__del(&s->fds, cvt_key2(op->pid, (uint32_t)op->ret));
			return 0;
		}
		v = cvt_map__put(&s->fds, cvt_key2(op->pid, (uint32_t)op->ret), NULL);
		if (!v)
			return -ENOMEM;
		*v = path;
		return 0;
	}
	case REEL_OP_CLOSE:
		cvt_map__del(&s->fds, cvt_key2(op->pid, (uint32_t)op->fd));
		return 0;
	}
	return 0;
}

static int info__add(struct info_state *s, const struct reel_op *op)
{
	unsigned t = op->type < REEL_OP__COUNT ? op->type : REEL_OP__COUNT;
	uint32_t path = op->path;
	int dir = cvt_op_dir(op, 0);
	int err;

	s->ops++;
	s->by_type[t]++;
	if (op->ret < 0)
		s->err_by_type[t]++;
	if (s->ops == 1 || op->start_ns < s->first_start)
		s->first_start = op->start_ns;
	if (op->end_ns > s->last_end)
		s->last_end = op->end_ns;
	if (op->start_ns > s->last_end)
		s->last_end = op->start_ns;
	if (!cvt_map__put(&s->pids, op->pid, NULL) ||
	    !cvt_map__put(&s->tids, cvt_key2(op->pid, op->tid), NULL))
		return -ENOMEM;
	if ((dir == 'r' || reel_op__is_copy(op->type)) && op->ret > 0)
		s->bytes_read += op->ret;
	if ((dir == 'w' || reel_op__copy_writes(op)) && op->ret > 0)
		s->bytes_written += op->ret;
	if (reel_op__maps_shared_writable(op)) {
		s->shared_wmaps++;
		s->shared_wmap_bytes += op->len;
	}
	err = info__fd_track(s, op);
	if (err)
		return err;
	if (!path && op->fd >= 0) {
		uint64_t *v = cvt_map__get(&s->fds, cvt_key2(op->pid, (uint32_t)op->fd));

		path = v ? (uint32_t)*v : 0;
	}
	if (op->ret < 0 || !path)
		return 0;
	if (dir && op->ret > 0)
		return info__touch(s, path, op->offset + op->ret);
	if (op->type == REEL_OP_FALLOCATE)
		return info__touch(s, path, op->offset + op->len);
	if (reel_op__is_copy(op->type)) {
		/* read from fd at offset, written to fd2's file at aux */
		err = info__touch(s, path, op->offset + (uint64_t)op->ret);
		if (!err && op->path2 && reel_op__copy_writes(op))
			err = info__touch(s, op->path2, op->aux + (uint64_t)op->ret);
		return err;
	}
	err = info__touch(s, path, 0);
	/* a symlink's path2, and what a readlink read, is a link's content, not a file */
	if (!err && op->path2 && op->type != REEL_OP_SYMLINK && op->type != REEL_OP_SYMLINKAT &&
	    op->type != REEL_OP_READLINK && op->type != REEL_OP_READLINKAT)
		err = info__touch(s, op->path2, 0);
	return err;
}

/*
 * Async requests submitted (successfully) beyond the completions the trace holds, libaio and
 * io_uring apart: in flight when the capture ended, or reaped where the recorder could not
 * see it (fio's userspace_reap). A lower bound when completions came without their
 * submission (capture.unpaired).
 */
static uint64_t info__unreaped(const struct info_state *s)
{
	static const unsigned kinds[2][2] = {{REEL_OP_AIO_SUBMIT, REEL_OP_AIO_COMPLETE},
					     {REEL_OP_URING_SUBMIT, REEL_OP_URING_COMPLETE}};
	uint64_t n = 0;

	for (int i = 0; i < 2; i++) {
		uint64_t sub = s->by_type[kinds[i][0]] - s->err_by_type[kinds[i][0]];
		uint64_t done = s->by_type[kinds[i][1]];

		n += sub > done ? sub - done : 0;
	}
	return n;
}

static bool info__footer_lost(const struct info_state *s)
{
	return s->dsum.lost & REEL_LOST_FOOTER;
}

/* "key":N when known, "key":null when ops were lost and how many is unknown. */
static void info__json_ops_lost(FILE *out, const char *key, unsigned lost, uint64_t n)
{
	if (!(lost & REEL_LOST_OPS))
		n = 0;
	if (n == REEL_OPS_UNKNOWN)
		fprintf(out, "\"%s\":null", key);
	else
		fprintf(out, "\"%s\":%" PRIu64, key, n);
}

/* ,"key":N from a decimal meta value; 0 when absent, null when it is not a number
 * ("unknown") */
static void info__json_count(FILE *out, const char *key, const char *v)
{
	char *end;
	unsigned long long n = v ? strtoull(v, &end, 10) : 0;

	if (v && (!*v || *end))
		fprintf(out, ",\"%s\":null", key);
	else
		fprintf(out, ",\"%s\":%llu", key, n);
}

static void info__print_text(struct reel_reader *r, struct info_state *s, uint64_t set_bytes,
			     FILE *out)
{
	const struct reel_totals *tot = reel_reader__totals(r);
	const char *lost = reel_reader__meta(r, REEL_META_LOST_EVENTS);
	uint64_t dur = s->ops ? s->last_end - s->first_start : 0;
	const char *unpaired = reel_reader__meta(r, REEL_META_CAPTURE_UNPAIRED);
	char what[512];

	fprintf(out, "format        %u.%u\n", REEL_VERSION_MAJOR, reel_reader__minor(r));
	fprintf(out, "duration      %.6f s\n", dur / 1e9);
	fprintf(out, "ops           %" PRIu64 "\n", s->ops);
	fprintf(out, "bytes read    %" PRIu64 "\n", s->bytes_read);
	fprintf(out, "bytes written %" PRIu64 "\n", s->bytes_written);
	if (s->shared_wmaps)
		fprintf(out,
			"mapped        %" PRIu64 " shared writable file mappings, %" PRIu64
			" bytes: what was stored through them is in no op, nor in bytes written\n",
			s->shared_wmaps, s->shared_wmap_bytes);
	fprintf(out, "processes     %zu\n", s->pids.len);
	fprintf(out, "threads       %zu\n", s->tids.len);
	fprintf(out, "files         %zu (reached %" PRIu64 " bytes)\n", s->files.len, set_bytes);
	/* lost_events is written at the end: without the footer it is not known to be 0 */
	if (!lost)
		lost = info__footer_lost(s) ? "unknown (the footer is lost)" : "0";
	fprintf(out, "lost events   %s\n", lost);
	if (reel_reader__meta(r, REEL_META_CAPTURE_STOPPED_BY)) {
		const char *sig = reel_reader__meta(r, REEL_META_CAPTURE_STOP_SIGNAL);

		fprintf(out, "stopped by    %s%s%s%s\n",
			reel_reader__meta(r, REEL_META_CAPTURE_STOPPED_BY), sig ? " (" : "",
			sig ?: "", sig ? ")" : "");
	}
	/* a slice of a damaged trace is whole itself, but lacks what that damage lost */
	if (reel_reader__meta(r, REEL_META_SLICE_SOURCE_DAMAGE))
		fprintf(out, "source damage the trace sliced was damaged: %s\n",
			reel_reader__meta(r, REEL_META_SLICE_SOURCE_DAMAGE));
	if (unpaired && strtoull(unpaired, NULL, 10))
		fprintf(
		    out,
		    "unpaired      %s async completions whose submission the capture did not see\n",
		    unpaired);
	if (info__unreaped(s))
		fprintf(out,
			"unreaped      %" PRIu64 " async requests submitted with no completion in the "
			"trace (not measured)\n",
			info__unreaped(s));
	if (tot && tot->ops != s->ops)
		fprintf(out, "footer        says %" PRIu64 " ops\n", tot->ops);
	else if (!tot && info__footer_lost(s) && !s->dsum.truncated)
		fprintf(out, "footer        damaged, its totals and chunk index unread\n");
	else if (!tot)
		fprintf(out, "footer        missing (trace not closed cleanly?)\n");
	fprintf(out, "\nops by type:\n");
	for (unsigned t = 0; t <= REEL_OP__COUNT; t++) {
		if (!s->by_type[t])
			continue;
		fprintf(out, "  %-18s %12" PRIu64, t < REEL_OP__COUNT ? reel_op__name(t) : "?",
			s->by_type[t]);
		if (s->err_by_type[t])
			fprintf(out, "  (%" PRIu64 " failed)", s->err_by_type[t]);
		putc('\n', out);
	}
	fprintf(out, "\nmeta:\n");
	for (size_t i = 0; i < reel_reader__meta_count(r); i++) {
		const char *k, *v;

		reel_reader__meta_at(r, i, &k, &v);
		fprintf(out, "  %-18s %s\n", k, v);
	}
	if (s->damaged) {
		fprintf(out, "\ndamage: %" PRIu64 " region(s), %s\n", s->damaged,
			reel_damage_sum__describe(&s->dsum, what, sizeof(what)));
		for (uint64_t i = 0; i < s->damaged && i < INFO_MAX_DAMAGE; i++)
			fprintf(out, "  at byte %" PRIu64 ": %s\n", s->damage[i].offset,
				reel_damage__describe(&s->damage[i], what, sizeof(what)));
	}
}

static void info__print_json(struct reel_reader *r, struct info_state *s, uint64_t set_bytes,
			     FILE *out)
{
	const struct reel_totals *tot = reel_reader__totals(r);
	const char *lost = reel_reader__meta(r, REEL_META_LOST_EVENTS);
	const char *unpaired = reel_reader__meta(r, REEL_META_CAPTURE_UNPAIRED);
	uint64_t dur = s->ops ? s->last_end - s->first_start : 0;
	char what[512];
	int first = 1;

	fprintf(out, "{\"format\":\"%u.%u\"", REEL_VERSION_MAJOR, reel_reader__minor(r));
	fprintf(out,
		",\"duration_ns\":%" PRIu64 ",\"first_start_ns\":%" PRIu64
		",\"last_end_ns\":%" PRIu64 ",\"ops\":%" PRIu64,
		dur, s->ops ? s->first_start : 0, s->last_end, s->ops);
	fprintf(out, ",\"bytes_read\":%" PRIu64 ",\"bytes_written\":%" PRIu64, s->bytes_read,
		s->bytes_written);
	fprintf(out, ",\"shared_writable_maps\":%" PRIu64 ",\"shared_writable_map_bytes\":%" PRIu64,
		s->shared_wmaps, s->shared_wmap_bytes);
	fprintf(out, ",\"processes\":%zu,\"threads\":%zu,\"files\":%zu,\"file_set_bytes\":%" PRIu64,
		s->pids.len, s->tids.len, s->files.len, set_bytes);
	if (lost || !info__footer_lost(s))
		fprintf(out, ",\"lost_events\":%llu", lost ? strtoull(lost, NULL, 10) : 0ULL);
	else
		fprintf(out, ",\"lost_events\":null");
	fprintf(out, ",\"capture_unpaired\":%llu", unpaired ? strtoull(unpaired, NULL, 10) : 0ULL);
	fputs(",\"capture_stopped_by\":", out);
	if (reel_reader__meta(r, REEL_META_CAPTURE_STOPPED_BY))
		cvt_json_str(out, reel_reader__meta(r, REEL_META_CAPTURE_STOPPED_BY));
	else
		fputs("null", out);
	info__json_count(out, "slice_source_ops_lost",
			 reel_reader__meta(r, REEL_META_SLICE_SOURCE_OPS_LOST));
	info__json_count(out, "slice_window_ops_lost",
			 reel_reader__meta(r, REEL_META_SLICE_WINDOW_OPS_LOST));
	fprintf(out, ",\"async_unreaped\":%" PRIu64, info__unreaped(s));
	if (tot)
		fprintf(out, ",\"footer_ops\":%" PRIu64, tot->ops);
	else
		fprintf(out, ",\"footer_ops\":null");
	fputs(",\"ops_by_type\":{", out);
	for (unsigned t = 0; t <= REEL_OP__COUNT; t++) {
		if (!s->by_type[t])
			continue;
		if (!first)
			putc(',', out);
		first = 0;
		cvt_json_str(out, t < REEL_OP__COUNT ? reel_op__name(t) : "?");
		fprintf(out, ":{\"count\":%" PRIu64 ",\"errors\":%" PRIu64 "}", s->by_type[t],
			s->err_by_type[t]);
	}
	fputs("},\"meta\":{", out);
	for (size_t i = 0; i < reel_reader__meta_count(r); i++) {
		const char *k, *v;

		reel_reader__meta_at(r, i, &k, &v);
		if (i)
			putc(',', out);
		cvt_json_str(out, k);
		putc(':', out);
		cvt_json_str(out, v);
	}
	fprintf(out, "},\"damaged_regions\":%" PRIu64 ",", s->damaged);
	info__json_ops_lost(out, "ops_lost", s->dsum.lost, s->dsum.ops_lost);
	fputs(",\"damage\":[", out);
	for (uint64_t i = 0; i < s->damaged && i < INFO_MAX_DAMAGE; i++) {
		const struct reel_damage *d = &s->damage[i];

		fprintf(out,
			"%s{\"offset\":%" PRIu64 ",\"resume\":%" PRIu64 ",\"error\":", i ? "," : "",
			d->offset, d->resume);
		cvt_json_str(out, reel_strerror(d->err));
		fprintf(out, ",\"truncated\":%s,\"meta_lost\":%s,\"footer_lost\":%s,",
			d->truncated ? "true" : "false",
			d->lost & REEL_LOST_META ? "true" : "false",
			d->lost & REEL_LOST_FOOTER ? "true" : "false");
		info__json_ops_lost(out, "ops_lost", d->lost, d->ops_lost);
		fputs(",\"lost\":", out);
		cvt_json_str(out, reel_damage__describe(d, what, sizeof(what)));
		putc('}', out);
	}
	fputs("]}\n", out);
}

int reel_info__run(struct reel_reader *r, FILE *out, int json, struct reel_info_result *res)
{
	struct info_state *s = calloc(1, sizeof(*s));
	uint64_t set_bytes = 0, k, v;
	struct reel_op op;
	int err = 0;

	memset(res, 0, sizeof(*res));
	if (!s)
		return -ENOMEM;
	for (;;) {
		int n = reel_reader__next(r, &op);

		if (!n)
			break;
		if (n < 0) {
			if (s->damaged < INFO_MAX_DAMAGE)
				reel_reader__damage(r, &s->damage[s->damaged]);
			s->damaged++;
			continue;
		}
		err = info__add(s, &op);
		if (err)
			goto out;
	}
	reel_reader__damage_sum(r, &s->dsum);
	for (size_t i = 0; cvt_map__next(&s->files, &i, &k, &v);)
		set_bytes += v;
	if (json)
		info__print_json(r, s, set_bytes, out);
	else
		info__print_text(r, s, set_bytes, out);
	if (fflush(out) || ferror(out))
		err = -EIO;
	res->ops = s->ops;
	res->damaged = s->damaged;
	res->damage = s->dsum;
out:
	cvt_map__free(&s->pids);
	cvt_map__free(&s->tids);
	cvt_map__free(&s->fds);
	cvt_map__free(&s->files);
	free(s);
	return err;
}
