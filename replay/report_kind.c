/* SPDX-License-Identifier: MIT */
/* report_kind.c - names and classes of the report's rows (sync op types, async requests). */
#include <stdio.h>

#include "reel.h"
#include "report_int.h"

/* Raw ABI values (linux/aio_abi.h IOCB_CMD_*, linux/io_uring.h IORING_OP_*): the trace
 * stores them as they were, so the names are spelled out here rather than taken from
 * headers that may differ on the machine that reads the trace. */
static const char *const aio_names[16] = {
    [0] = "pread", [1] = "pwrite", [2] = "fsync",  [3] = "fdsync",
    [5] = "poll",  [6] = "noop",   [7] = "preadv", [8] = "pwritev",
};
static const char *const uring_names[64] = {
    [0] = "nop",	[1] = "readv",	     [2] = "writev",	      [3] = "fsync",
    [4] = "read_fixed", [5] = "write_fixed", [8] = "sync_file_range", [17] = "fallocate",
    [18] = "openat",	[19] = "close",	     [21] = "statx",	      [22] = "read",
    [23] = "write",	[24] = "fadvise",    [28] = "openat2",	      [35] = "renameat",
    [36] = "unlinkat",	[37] = "mkdirat",
};

const char *report_kind__name(unsigned kind, char *buf, size_t len)
{
	if (kind == REPORT_KIND_URING_FDSYNC) {
		snprintf(buf, len, "uring_fdatasync");
	} else if (kind >= REPORT_KIND_URING && kind < REPORT_KIND_URING + 64) {
		const char *n = uring_names[kind - REPORT_KIND_URING];
		if (n)
			snprintf(buf, len, "uring_%s", n);
		else
			snprintf(buf, len, "uring_op%u", kind - REPORT_KIND_URING);
	} else if (kind >= REPORT_KIND_AIO && kind < REPORT_KIND_AIO + 16) {
		const char *n = aio_names[kind - REPORT_KIND_AIO];
		if (n)
			snprintf(buf, len, "aio_%s", n);
		else
			snprintf(buf, len, "aio_op%u", kind - REPORT_KIND_AIO);
	} else {
		snprintf(buf, len, "%s", reel_op__name(kind));
	}
	return buf;
}

enum report_class report_kind__class(unsigned kind)
{
	if (kind >= REPORT_KIND_URING) {
		switch (kind - REPORT_KIND_URING) {
		case 1:
		case 4:
		case 22:
			return REPORT_CLASS_READ;
		case 2:
		case 5:
		case 23:
			return REPORT_CLASS_WRITE;
		case 3:
		case 8:
		case REPORT_KIND_URING_FDSYNC - REPORT_KIND_URING:
			return REPORT_CLASS_SYNC;
		case 17:
		case 18:
		case 19:
		case 21:
		case 28:
		case 35:
		case 36:
		case 37:
			return REPORT_CLASS_META;
		default:
			return REPORT_CLASS_OTHER;
		}
	}
	if (kind >= REPORT_KIND_AIO) {
		switch (kind - REPORT_KIND_AIO) {
		case 0:
		case 7:
			return REPORT_CLASS_READ;
		case 1:
		case 8:
			return REPORT_CLASS_WRITE;
		case 2:
		case 3:
			return REPORT_CLASS_SYNC;
		default:
			return REPORT_CLASS_OTHER;
		}
	}
	if (reel_op__is_read(kind))
		return REPORT_CLASS_READ;
	if (reel_op__is_write(kind))
		return REPORT_CLASS_WRITE;
	switch (kind) {
	case REEL_OP_FSYNC:
	case REEL_OP_FDATASYNC:
	case REEL_OP_SYNC_FILE_RANGE:
	case REEL_OP_SYNCFS:
	case REEL_OP_MSYNC:
		return REPORT_CLASS_SYNC;
	case REEL_OP_OPEN ... REEL_OP_CLOSE:
	case REEL_OP_STAT ... REEL_OP_FALLOCATE:
	case REEL_OP_GETDENTS64:
	case REEL_OP_CHMOD ... REEL_OP_READLINKAT:
	case REEL_OP_MUNMAP:
		return REPORT_CLASS_META;
	case REEL_OP_COPY_FILE_RANGE:
	case REEL_OP_SENDFILE:
		/* their bytes always count as read, as written only when they land in a file */
		return REPORT_CLASS_READ;
	case REEL_OP_FLOCK:
	case REEL_OP_FCNTL_LOCK:
		return REPORT_CLASS_LOCK;
	default:
		return REPORT_CLASS_OTHER;
	}
}

const char *report_class__name(enum report_class c)
{
	static const char *const names[REPORT_CLASSES] = {"reads",	  "writes",   "syncs",
							  "metadata ops", "lock ops", "other ops"};
	return c < REPORT_CLASSES ? names[c] : "?";
}

/* JSON keys: stable, no spaces. */
const char *report_class__key(enum report_class c)
{
	static const char *const keys[REPORT_CLASSES] = {"read",     "write", "sync",
							 "metadata", "lock",  "other"};
	return c < REPORT_CLASSES ? keys[c] : "?";
}

const char *report_run__unreaped_kinds(const struct report_run *run, char *buf, size_t len)
{
	size_t at = 0;
	char name[32];

	buf[0] = 0;
	for (unsigned k = REPORT_KIND_AIO; k < REPORT_KINDS && at < len; k++) {
		if (!run->kinds[k].unreaped)
			continue;
		at += (size_t)snprintf(buf + at, len - at, "%s%s %llu", at ? ", " : "",
				       report_kind__name(k, name, sizeof(name)),
				       (unsigned long long)run->kinds[k].unreaped);
	}
	return buf;
}

const char *report__unreplayed_kinds(const struct report *rep, size_t ri, char *buf, size_t len)
{
	size_t at = 0, n = 0;
	char name[32];

	buf[0] = 0;
	for (size_t i = 0; i < rep->norder; i++) {
		int k = rep->order[i];
		uint64_t missing = report__unreplayed(rep, &rep->runs[ri], k);

		if (!missing || ++n > 3 || at >= len)
			continue;
		at += (size_t)snprintf(buf + at, len - at, "%s%s %llu", at ? ", " : "",
				       report_kind__name(k, name, sizeof(name)),
				       (unsigned long long)missing);
	}
	if (n > 3 && at < len)
		snprintf(buf + at, len - at, " and %zu more op types", n - 3);
	return buf;
}
