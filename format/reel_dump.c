/* SPDX-License-Identifier: MIT */
/*
 * reel_dump.c - a trace, one op per line: aligned text for people, JSON lines and CSV for
 * programs. The JSON keys and CSV columns are a contract (other tools and our own tests
 * parse them): every key on every line, in the same order, null where there is no value.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "reel_convert.h"
#include "reel_cvt_util.h"

int reel_dump__format_from_name(const char *name)
{
	if (!strcmp(name, "text"))
		return REEL_DUMP_TEXT;
	if (!strcmp(name, "jsonl") || !strcmp(name, "json"))
		return REEL_DUMP_JSONL;
	if (!strcmp(name, "csv"))
		return REEL_DUMP_CSV;
	return -EINVAL;
}

static const char *dump_path(struct reel_reader *r, uint32_t id)
{
	return id ? reel_reader__path(r, id) : NULL;
}

static void dump_jsonl(struct reel_reader *r, const struct reel_op *op, FILE *out)
{
	fprintf(out, "{\"op\":");
	cvt_json_str(out, reel_op__name(op->type));
	fprintf(out, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32, op->pid, op->tid);
	fprintf(out, ",\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64, op->start_ns, op->end_ns);
	fputs(",\"path\":", out);
	cvt_json_str(out, dump_path(r, op->path));
	fprintf(out, ",\"fd\":%" PRId32 ",\"offset\":%" PRIu64 ",\"len\":%" PRIu64, op->fd,
		op->offset, op->len);
	fprintf(out, ",\"ret\":%" PRId64 ",\"sched_ns\":%" PRIu64, op->ret, op->sched_ns);
	fputs(",\"fd_kind\":", out);
	cvt_json_str(out, reel_fd_kind__name(op->fd_kind));
	fprintf(out, ",\"fd2\":%" PRId32 ",\"path2\":", op->fd2);
	cvt_json_str(out, dump_path(r, op->path2));
	fprintf(out, ",\"flags\":%" PRIu32 ",\"mode\":%" PRIu32 ",\"subop\":%u", op->flags,
		op->mode, op->subop);
	fprintf(out, ",\"aux\":%" PRIu64 ",\"ctx\":%" PRIu64 ",\"err\":", op->aux, op->ctx);
	cvt_json_str(out, op->ret < 0 && op->ret > -4096 ? cvt_errno_name((int)-op->ret) : NULL);
	/* last, as in csv: added in version 1.2 */
	fprintf(out, ",\"wait_ns\":%" PRIu64 "}\n", op->wait_ns);
}

static const char dump_csv_header[] = "op,pid,tid,start_ns,end_ns,path,fd,offset,len,ret,sched_ns,"
				      "fd_kind,fd2,path2,flags,mode,subop,aux,ctx,err,wait_ns\n";

static void dump_csv(struct reel_reader *r, const struct reel_op *op, FILE *out)
{
	const char *err = op->ret < 0 && op->ret > -4096 ? cvt_errno_name((int)-op->ret) : NULL;

	cvt_csv_str(out, reel_op__name(op->type));
	fprintf(out, ",%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",", op->pid, op->tid,
		op->start_ns, op->end_ns);
	cvt_csv_str(out, dump_path(r, op->path));
	fprintf(out, ",%" PRId32 ",%" PRIu64 ",%" PRIu64 ",%" PRId64 ",%" PRIu64 ",", op->fd,
		op->offset, op->len, op->ret, op->sched_ns);
	cvt_csv_str(out, reel_fd_kind__name(op->fd_kind));
	fprintf(out, ",%" PRId32 ",", op->fd2);
	cvt_csv_str(out, dump_path(r, op->path2));
	fprintf(out, ",%" PRIu32 ",%" PRIu32 ",%u,%" PRIu64 ",%" PRIu64 ",", op->flags, op->mode,
		op->subop, op->aux, op->ctx);
	cvt_csv_str(out, err);
	/* last: added in version 1.2, after the columns scripts already count */
	fprintf(out, ",%" PRIu64 "\n", op->wait_ns);
}

static const char dump_text_header[] = "      time_us op                    pid/tid     fd       "
				       "offset        len          ret     lat_us path\n";

/*
 * Text keeps one op per line: control bytes in paths are shown C-escaped, and so is the
 * backslash itself, so that a name holding a backslash and an n is not read as a newline.
 */
static void dump_text_path(const char *p, FILE *out)
{
	for (const unsigned char *c = (const unsigned char *)p; *c; c++) {
		if (*c == '\\')
			fputs("\\\\", out);
		else if (*c == '\n')
			fputs("\\n", out);
		else if (*c == '\t')
			fputs("\\t", out);
		else if (*c < 0x20 || *c == 0x7f)
			fprintf(out, "\\x%02x", *c);
		else
			putc(*c, out);
	}
}

/* What the attribute ops set, which no column shows. */
static void dump_text_id(const char *name, uint64_t id, FILE *out)
{
	if (id == UINT32_MAX)
		fprintf(out, " %s=-1", name); /* left unchanged */
	else
		fprintf(out, " %s=%" PRIu64, name, id);
}

static void dump_text_attrs(const struct reel_op *op, FILE *out)
{
	switch (op->type) {
	case REEL_OP_CHMOD:
	case REEL_OP_FCHMOD:
	case REEL_OP_FCHMODAT:
		fprintf(out, " mode=0%o", op->mode);
		break;
	case REEL_OP_CHOWN:
	case REEL_OP_LCHOWN:
	case REEL_OP_FCHOWN:
	case REEL_OP_FCHOWNAT:
		dump_text_id("uid", op->aux, out);
		dump_text_id("gid", op->ctx, out);
		break;
	}
}

static void dump_text(struct reel_reader *r, const struct reel_op *op, FILE *out)
{
	const char *path = dump_path(r, op->path);
	const char *path2 = dump_path(r, op->path2);
	char ret[32];
	char ids[32];
	uint64_t lat = op->end_ns >= op->start_ns ? op->end_ns - op->start_ns : 0;
	const char *en = op->ret < 0 && op->ret > -4096 ? cvt_errno_name((int)-op->ret) : NULL;

	if (en)
		snprintf(ret, sizeof(ret), "%s", en);
	else
		snprintf(ret, sizeof(ret), "%" PRId64, op->ret);
	snprintf(ids, sizeof(ids), "%" PRIu32 "/%" PRIu32, op->pid, op->tid);
	fprintf(out, "%13.3f %-17s %13s %6" PRId32 " %12" PRIu64 " %10" PRIu64 " %12s %10.3f ",
		op->start_ns / 1000.0, reel_op__name(op->type), ids, op->fd, op->offset, op->len,
		ret, lat / 1000.0);
	/* paths go last: they are the one column whose width has no bound */
	dump_text_path(path ? path : "-", out);
	if (reel_op__is_copy(op->type)) {
		/* where the bytes went: a file and the position written, or the fd and its kind */
		if (path2) {
			fputs(" -> ", out);
			dump_text_path(path2, out);
			fprintf(out, " at %" PRIu64, op->aux);
		} else {
			fprintf(out, " -> fd %" PRId32 " (%s)", op->fd2,
				op->type == REEL_OP_SENDFILE ? reel_fd_kind__name(op->mode)
							     : "unknown");
		}
	} else if (path2) {
		/* rename and link: old -> new; symlink: the link -> its content as given;
		 * readlink: the link -> the content it read */
		fputs(" -> ", out);
		dump_text_path(path2, out);
	}
	dump_text_attrs(op, out);
	putc('\n', out);
}

/*
 * A cut that leaves nothing says so plainly: "truncated at byte 100: no ops before it"; that
 * line is then all there is to say (reel_dump__said_all).
 */
static const char *dump_damage_words(struct reel_reader *r, const struct reel_damage *d,
				     const struct reel_dump_result *res, char *buf, size_t len)
{
	struct reel_damage_sum s;

	if (!d->truncated || res->ops || res->damaged)
		return reel_damage__describe(d, buf, len);
	reel_reader__damage_sum(r, &s);
	return reel_damage_sum__no_ops(&s, buf, len);
}

int reel_dump__run(struct reel_reader *r, enum reel_dump_format fmt, FILE *out, FILE *diag,
		   struct reel_dump_result *res)
{
	struct reel_op op;
	int err;

	memset(res, 0, sizeof(*res));
	if (fmt == REEL_DUMP_CSV)
		fputs(dump_csv_header, out);
	else if (fmt == REEL_DUMP_TEXT)
		fputs(dump_text_header, out);
	for (;;) {
		err = reel_reader__next(r, &op);
		if (!err)
			break;
		if (err < 0) {
			struct reel_damage d;
			char what[512];

			reel_reader__damage(r, &d);
			if (diag)
				fprintf(diag, "ioreel: damaged trace at byte %" PRIu64 ": %s\n",
					d.offset,
					dump_damage_words(r, &d, res, what, sizeof(what)));
			res->damaged++;
			continue;
		}
		res->ops++;
		if (fmt == REEL_DUMP_JSONL)
			dump_jsonl(r, &op, out);
		else if (fmt == REEL_DUMP_CSV)
			dump_csv(r, &op, out);
		else
			dump_text(r, &op, out);
		if (ferror(out))
			return -EIO;
	}
	reel_reader__damage_sum(r, &res->damage); /* exact now: the reading is over */
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}

bool reel_dump__said_all(const struct reel_dump_result *res)
{
	return res->damaged == 1 && !res->ops && res->damage.truncated;
}
