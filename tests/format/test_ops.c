// SPDX-License-Identifier: MIT
/* Op names, classes and error names: every value named, names unique, classes as specified. */
#include <errno.h>
#include <fcntl.h>

#include "reel_internal.h"
#include "reel_test.h"

int main(void)
{
	for (unsigned t = 1; t < REEL_OP__COUNT; t++) {
		const char *name = reel_op__name(t);
		CHECK(strcmp(name, "?") != 0, "type %u unnamed", t);
		CHECK(reel_op__from_name(name) == (int)t, "from_name(%s)", name);
		for (unsigned u = 1; u < t; u++)
			CHECK(strcmp(name, reel_op__name(u)) != 0, "%s twice", name);
		CHECK(!(reel_op__is_read(t) && reel_op__is_write(t)), "%s both", name);
		CHECK(!(reel_op__has_path(t) && (reel_op__is_read(t) || reel_op__is_write(t))),
		      "%s: data op with path", name);
	}
	CHECK(strcmp(reel_op__name(0), "?") == 0 &&
		  strcmp(reel_op__name(REEL_OP__COUNT), "?") == 0 &&
		  strcmp(reel_op__name(~0u), "?") == 0,
	      "unknown types");
	CHECK(reel_op__from_name("nosuch") == -EINVAL && reel_op__from_name(NULL) == -EINVAL &&
		  reel_op__from_name("none") == -EINVAL,
	      "unknown names");
	CHECK(strcmp(reel_op__name(REEL_OP_PREAD64), "pread64") == 0, "pread64");
	CHECK(strcmp(reel_op__name(REEL_OP_EXIT), "exit") == 0 &&
		  REEL_OP_EXIT == REEL_OP__COUNT - 1,
	      "last type");
	/* version 1.1's values (FORMAT.md, "Op types"): part of the format, never renumbered */
	CHECK(REEL_OP_COPY_FILE_RANGE == 51 && REEL_OP_SENDFILE == 52 && REEL_OP_CHMOD == 53 &&
		  REEL_OP_UTIMENSAT == 60 && REEL_OP_READLINKAT == 66,
	      "1.1 values");
	CHECK(REEL_OP_MUNMAP == 67, "1.2 values");
	CHECK(REEL_OP_FLOCK == 68 && REEL_OP_FCNTL_LOCK == 69, "1.3 values");
	CHECK(reel_op__is_lock(REEL_OP_FLOCK) && reel_op__is_lock(REEL_OP_FCNTL_LOCK) &&
		  !reel_op__is_lock(REEL_OP_FCNTL_DUPFD) && !reel_op__is_lock(REEL_OP_MUNMAP),
	      "lock class");
	CHECK(REEL_OP_FORK == 70 && REEL_OP_EXECVE == 71 && REEL_OP_EXIT == 72, "1.4 values");
	CHECK(reel_op__is_process(REEL_OP_FORK) && reel_op__is_process(REEL_OP_EXECVE) &&
		  reel_op__is_process(REEL_OP_EXIT) && !reel_op__is_process(REEL_OP_CLOSE) &&
		  reel_op__from_name("execve") == REEL_OP_EXECVE,
	      "process class");
	CHECK(reel_op__is_copy(REEL_OP_COPY_FILE_RANGE) && reel_op__is_copy(REEL_OP_SENDFILE) &&
		  !reel_op__is_copy(REEL_OP_PREAD64) && !reel_op__is_copy(REEL_OP_CHMOD),
	      "copy class");
	{
		struct reel_op cf = {.type = REEL_OP_COPY_FILE_RANGE};
		struct reel_op sf_sock = {.type = REEL_OP_SENDFILE, .mode = REEL_FD_SOCK};
		struct reel_op sf_reg = {.type = REEL_OP_SENDFILE, .mode = REEL_FD_REG};
		struct reel_op rd = {.type = REEL_OP_PREAD64, .mode = REEL_FD_REG};

		CHECK(reel_op__copy_writes(&cf) && !reel_op__copy_writes(&sf_sock) &&
			  reel_op__copy_writes(&sf_reg) && !reel_op__copy_writes(&rd),
		      "copies that write a file");
	}
	{
		/* which ops follow a symlink in their last component; opens only when asked */
		struct reel_op st = {.type = REEL_OP_STAT}, lst = {.type = REEL_OP_LSTAT};
		struct reel_op fst = {.type = REEL_OP_NEWFSTATAT, .flags = AT_SYMLINK_NOFOLLOW};
		struct reel_op op = {.type = REEL_OP_OPENAT, .flags = O_RDONLY};
		struct reel_op nf = {.type = REEL_OP_OPENAT, .flags = O_NOFOLLOW};
		struct reel_op ex = {.type = REEL_OP_OPENAT, .flags = O_CREAT | O_EXCL};
		struct reel_op cr = {.type = REEL_OP_CREAT}, un = {.type = REEL_OP_UNLINK};

		CHECK(reel_op__follows_link(&st, 0) && !reel_op__follows_link(&lst, 1) &&
			  !reel_op__follows_link(&fst, 1) && !reel_op__follows_link(&un, 1),
		      "path ops that follow");
		CHECK(reel_op__follows_link(&op, 1) && !reel_op__follows_link(&op, 0) &&
			  reel_op__follows_link(&cr, 1) && !reel_op__follows_link(&cr, 0) &&
			  !reel_op__follows_link(&nf, 1) && !reel_op__follows_link(&ex, 1),
		      "opens that follow");
		fst.flags = 0;
		CHECK(reel_op__follows_link(&fst, 0), "newfstatat without AT_SYMLINK_NOFOLLOW");
	}
	unsigned reads = 0, writes = 0, paths = 0;
	for (unsigned t = 0; t < REEL_OP__COUNT + 5; t++) {
		reads += !!reel_op__is_read(t);
		writes += !!reel_op__is_write(t);
		paths += !!reel_op__has_path(t);
	}
	CHECK(reads == 5 && writes == 5, "5 read and 5 write types: %u %u", reads, writes);
	CHECK(reel_op__is_read(REEL_OP_READ) && reel_op__is_read(REEL_OP_PREADV2) &&
		  reel_op__is_write(REEL_OP_WRITE) && reel_op__is_write(REEL_OP_PWRITEV2),
	      "class bounds");
	CHECK(reel_op__has_path(REEL_OP_OPENAT) && reel_op__has_path(REEL_OP_RENAMEAT2) &&
		  !reel_op__has_path(REEL_OP_FSTAT) && !reel_op__has_path(REEL_OP_CLOSE),
	      "path class");
	CHECK(paths == 31, "path types %u", paths); /* 19 of 1.0, 12 of 1.1 */
	CHECK(reel_op__has_path(REEL_OP_SYMLINKAT) && reel_op__has_path(REEL_OP_UTIMENSAT) &&
		  !reel_op__has_path(REEL_OP_FCHMOD) && !reel_op__has_path(REEL_OP_FCHOWN),
	      "1.1 path class");
	CHECK(strcmp(reel_fd_kind__name(REEL_FD_REG), "reg") == 0 &&
		  strcmp(reel_fd_kind__name(REEL_FD_OTHER), "other") == 0 &&
		  strcmp(reel_fd_kind__name(99), "?") == 0,
	      "fd kinds");
	const char *seen[8] = {0};
	for (int e = REEL_E_MAGIC; e <= REEL_E_CORRUPT; e++) {
		const char *s = reel_strerror(-e);
		CHECK(s && *s && strcmp(s, "unknown ioreel error") != 0, "error %d unnamed", e);
		for (int k = 0; k < e - REEL_E_MAGIC; k++)
			CHECK(strcmp(seen[k], s) != 0, "error name %s twice", s);
		seen[e - REEL_E_MAGIC] = s;
	}
	CHECK(strcmp(reel_strerror(-(REEL_E_CORRUPT + 1)), "unknown ioreel error") == 0, "beyond");
	/* FORMAT.md, "Conventions": the CRC32C check value, whole and in pieces */
	CHECK(reel_crc32c(0, "123456789", 9) == 0xe3069283U, "crc32c %#x",
	      reel_crc32c(0, "123456789", 9));
	CHECK(reel_crc32c(reel_crc32c(0, "1234", 4), "56789", 5) == 0xe3069283U, "crc32c chained");
	CHECK(reel_crc32c(0, "", 0) == 0, "crc32c of nothing");
	/* the per-fd meta lists (capture.fd_flags, octal; capture.fd_sizes): entries in order,
	 * one that does not parse skipped, spaces in any number */
	{
		const char *l = " 12:3:40002  bad 7:x:1 13:4:0 99999999999:1:1 14:5:17";
		uint32_t pid, fd, want[][2] = {{12, 3}, {13, 4}, {14, 5}};
		uint64_t n, wn[] = {040002, 0, 017};
		int i = 0;

		while (reel_meta__fd_entry(&l, &pid, &fd, &n, 8)) {
			CHECK(i < 3 && pid == want[i][0] && fd == want[i][1] && n == wn[i],
			      "fd entry %d: %u:%u:%llo", i, pid, fd, (unsigned long long)n);
			i++;
		}
		CHECK(i == 3, "%d fd entries, want 3", i);
		l = NULL;
		CHECK(!reel_meta__fd_entry(&l, &pid, &fd, &n, 10), "a NULL list has no entry");
	}
	return T_PASS;
}
