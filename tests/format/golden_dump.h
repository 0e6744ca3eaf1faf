/* SPDX-License-Identifier: MIT */
/*
 * The text the golden tests compare: everything a reader reports about a trace (meta,
 * totals, every op with its paths, every error with its offset), one item per line.
 */
#ifndef IOREEL_GOLDEN_DUMP_H
#define IOREEL_GOLDEN_DUMP_H

#include <inttypes.h>
#include <stdio.h>

#include "reel.h"

static inline const char *golden_err_name(int err)
{
	switch (-err) {
	case REEL_E_MAGIC:
		return "MAGIC";
	case REEL_E_VERSION:
		return "VERSION";
	case REEL_E_TRUNCATED:
		return "TRUNCATED";
	case REEL_E_CHECKSUM:
		return "CHECKSUM";
	case REEL_E_RESERVED:
		return "RESERVED";
	case REEL_E_CORRUPT:
		return "CORRUPT";
	default:
		return "OTHER";
	}
}

static inline void golden_dump_state(struct reel_reader *r, FILE *f, const char *when)
{
	for (size_t i = 0; i < reel_reader__meta_count(r); i++) {
		const char *k, *v;
		reel_reader__meta_at(r, i, &k, &v);
		fprintf(f, "%s meta %s=%s\n", when, k, v);
	}
	const struct reel_totals *t = reel_reader__totals(r);
	if (!t) {
		fprintf(f, "%s totals none\n", when);
		return;
	}
	fprintf(f,
		"%s totals ops=%" PRIu64 " chunks=%" PRIu64 " read=%" PRIu64 " written=%" PRIu64
		" first_start=%" PRIu64 " last_end=%" PRIu64 "\n",
		when, t->ops, t->chunks, t->bytes_read, t->bytes_written, t->first_start_ns,
		t->last_end_ns);
	for (unsigned k = 0; k < REEL_OP__COUNT; k++)
		if (t->ops_by_type[k])
			fprintf(f, "%s totals %s=%" PRIu64 "\n", when, reel_op__name(k),
				t->ops_by_type[k]);
}

/*
 * Dumps the trace at path to f. Returns the error open() gave (0 if none); the errors
 * next() gave are in errs[0..*nerrs) (at most 16).
 */
static inline int golden_dump(const char *path, FILE *f, int *errs, size_t *nerrs)
{
	struct reel_reader *r;
	*nerrs = 0;
	int err = reel_reader__open(path, &r);
	if (err) {
		fprintf(f, "open error %s\n", golden_err_name(err));
		return err;
	}
	golden_dump_state(r, f, "open");
	struct reel_op o;
	int rc;
	while ((rc = reel_reader__next(r, &o)) != 0) {
		if (rc < 0) {
			fprintf(f, "error %s at %" PRIu64 "\n", golden_err_name(rc),
				reel_reader__damage_offset(r));
			if (*nerrs < 16)
				errs[(*nerrs)++] = rc;
			continue;
		}
		const char *p = o.path ? reel_reader__path(r, o.path) : NULL;
		const char *p2 = o.path2 ? reel_reader__path(r, o.path2) : NULL;
		fprintf(f,
			"op %s kind=%s subop=%u pid=%u tid=%u fd=%d fd2=%d path=%u(%s) "
			"path2=%u(%s) flags=%#x mode=%#o off=%" PRIu64 " len=%" PRIu64
			" aux=%#" PRIx64 " ctx=%#" PRIx64 " ret=%" PRId64 " start=%" PRIu64
			" end=%" PRIu64 " sched=%" PRIu64 " wait=%" PRIu64 "\n",
			reel_op__name(o.type), reel_fd_kind__name(o.fd_kind), o.subop, o.pid, o.tid,
			o.fd, o.fd2, o.path, p ? p : "-", o.path2, p2 ? p2 : "-", o.flags, o.mode,
			o.offset, o.len, o.aux, o.ctx, o.ret, o.start_ns, o.end_ns, o.sched_ns,
			o.wait_ns);
	}
	fprintf(f, "end\n");
	golden_dump_state(r, f, "final");
	reel_reader__close(r);
	return 0;
}

#endif
