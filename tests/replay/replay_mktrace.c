/* SPDX-License-Identifier: MIT */
/*
 * replay_mktrace.c - makes the replay tests' input traces from a text description, one op a
 * line (stdin), written with the format library's writer:
 *
 *   PID TID START_US END_US OP [key=value...]
 *   meta KEY VALUE        (VALUE: the rest of the line)
 *   # comment
 *
 * OP is a syscall name (reel_op__name). Keys: fd fd2 path path2 flags mode off len ret kind
 * aux ctx subop sched (µs, as a replay result's scheduled start) wait (µs, as a replay
 * result's wait for other threads' ops). flags: O_* / AT_* names joined with '|', or a number; mode and numbers
 * take 0x / 0 prefixes; ret: a number or -ENAME; kind: reg dir sock fifo chr other.
 * Fields not given: fd/fd2 -1, the rest 0, kind reg.
 *   replay_mktrace OUT < spec
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reel.h"

static const struct {
	const char *name;
	long v;
} names[] = {
    {"O_RDONLY", O_RDONLY},
    {"O_WRONLY", O_WRONLY},
    {"O_RDWR", O_RDWR},
    {"O_CREAT", O_CREAT},
    {"O_EXCL", O_EXCL},
    {"O_TRUNC", O_TRUNC},
    {"O_APPEND", O_APPEND},
    {"O_DIRECT", O_DIRECT},
    {"O_DIRECTORY", O_DIRECTORY},
    {"O_TMPFILE", O_TMPFILE},
    {"O_SYNC", O_SYNC},
    {"O_DSYNC", O_DSYNC},
    {"O_CLOEXEC", O_CLOEXEC},
    {"O_NOFOLLOW", O_NOFOLLOW},
    {"AT_REMOVEDIR", AT_REMOVEDIR},
    {"AT_EMPTY_PATH", AT_EMPTY_PATH},
    {"SEEK_SET", SEEK_SET},
    {"SEEK_CUR", SEEK_CUR},
    {"SEEK_END", SEEK_END},
    {"SEEK_DATA", SEEK_DATA},
    {"SEEK_HOLE", SEEK_HOLE},
    {"ENOENT", ENOENT},
    {"EEXIST", EEXIST},
    {"EBADF", EBADF},
    {"EAGAIN", EAGAIN},
    {"EINTR", EINTR},
    {"EINVAL", EINVAL},
    {"EACCES", EACCES},
    {"ENOTDIR", ENOTDIR},
    {"EISDIR", EISDIR},
    {"ENOTEMPTY", ENOTEMPTY},
    {"EXDEV", EXDEV},
    {"ENOMEM", ENOMEM},
    {"ENAMETOOLONG", ENAMETOOLONG},
    {"EFAULT", EFAULT},
    {"ENXIO", ENXIO},
    {"ELOOP", ELOOP},
};

static long num(const char *s)
{
	long v = 0;
	char *end;

	if (*s == '-' && s[1] >= 'A' && s[1] <= 'Z')
		return -num(s + 1);
	while (*s) {
		size_t n = strcspn(s, "|");
		size_t i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			if (strlen(names[i].name) == n && !strncmp(names[i].name, s, n)) {
				v |= names[i].v;
				break;
			}
		}
		if (i == sizeof(names) / sizeof(names[0])) {
			v |= strtol(s, &end, 0);
			if (end != s + n) {
				fprintf(stderr, "replay_mktrace: bad value '%s'\n", s);
				exit(2);
			}
		}
		s += n;
		if (*s == '|')
			s++;
	}
	return v;
}

static int kind(const char *s)
{
	static const char *k[] = {"unknown", "reg", "dir", "blk", "chr", "fifo", "sock", "other"};

	for (int i = 0; i < 8; i++) {
		if (!strcmp(s, k[i]))
			return i;
	}
	fprintf(stderr, "replay_mktrace: bad kind '%s'\n", s);
	exit(2);
}

int main(int argc, char **argv)
{
	struct reel_writer *w;
	char line[8192];
	int err, lineno = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: replay_mktrace OUT < spec\n");
		return 2;
	}
	err = reel_writer__open(argv[1], NULL, &w);
	if (err) {
		fprintf(stderr, "replay_mktrace: %s: %s\n", argv[1], reel_strerror(err));
		return 1;
	}
	while (fgets(line, sizeof(line), stdin)) {
		char *tok[64], *save = NULL, *t;
		struct reel_op op;
		int n = 0, type;

		lineno++;
		line[strcspn(line, "\n")] = '\0';
		/* meta KEY VALUE: the value is the rest of the line, spaces and all */
		if (!strncmp(line, "meta ", 5)) {
			char *k = line + 5, *v = strchr(k, ' ');

			if (v) {
				*v++ = '\0';
				reel_writer__meta(w, k, v);
				continue;
			}
		}
		for (t = strtok_r(line, " \t", &save); t && n < 64;
		     t = strtok_r(NULL, " \t", &save))
			tok[n++] = t;
		if (!n || tok[0][0] == '#')
			continue;
		if (!strcmp(tok[0], "meta") && n == 3) {
			reel_writer__meta(w, tok[1], tok[2]);
			continue;
		}
		if (n < 5 || (type = reel_op__from_name(tok[4])) < 0) {
			fprintf(stderr, "replay_mktrace: line %d: bad op\n", lineno);
			return 2;
		}
		memset(&op, 0, sizeof(op));
		op.type = (uint16_t)type;
		op.pid = (uint32_t)num(tok[0]);
		op.tid = (uint32_t)num(tok[1]);
		op.start_ns = (uint64_t)num(tok[2]) * 1000;
		op.end_ns = (uint64_t)num(tok[3]) * 1000;
		op.fd = -1;
		op.fd2 = -1;
		op.fd_kind = REEL_FD_REG;
		for (int i = 5; i < n; i++) {
			char *eq = strchr(tok[i], '=');
			const char *k = tok[i], *v;

			if (!eq) {
				fprintf(stderr, "replay_mktrace: line %d: bad field %s\n", lineno,
					k);
				return 2;
			}
			*eq = '\0';
			v = eq + 1;
			if (!strcmp(k, "fd"))
				op.fd = (int32_t)num(v);
			else if (!strcmp(k, "fd2"))
				op.fd2 = (int32_t)num(v);
			else if (!strcmp(k, "path") || !strcmp(k, "path2")) {
				uint32_t id;

				err = reel_writer__path(w, v, &id);
				if (err)
					return 1;
				if (k[4])
					op.path2 = id;
				else
					op.path = id;
			} else if (!strcmp(k, "flags"))
				op.flags = (uint32_t)num(v);
			else if (!strcmp(k, "mode"))
				op.mode = (uint32_t)num(v);
			else if (!strcmp(k, "off"))
				op.offset = (uint64_t)num(v);
			else if (!strcmp(k, "len"))
				op.len = (uint64_t)num(v);
			else if (!strcmp(k, "ret"))
				op.ret = num(v);
			else if (!strcmp(k, "kind"))
				op.fd_kind = (uint8_t)kind(v);
			else if (!strcmp(k, "aux"))
				op.aux = (uint64_t)num(v);
			else if (!strcmp(k, "ctx"))
				op.ctx = (uint64_t)num(v);
			else if (!strcmp(k, "subop"))
				op.subop = (uint8_t)num(v);
			else if (!strcmp(k, "sched"))
				op.sched_ns = (uint64_t)num(v) * 1000;
			else if (!strcmp(k, "wait"))
				op.wait_ns = (uint64_t)num(v) * 1000;
			else {
				fprintf(stderr, "replay_mktrace: line %d: unknown key %s\n", lineno,
					k);
				return 2;
			}
		}
		err = reel_writer__add(w, &op);
		if (err) {
			fprintf(stderr, "replay_mktrace: line %d: %s\n", lineno,
				reel_strerror(err));
			return 1;
		}
	}
	err = reel_writer__close(w);
	if (err) {
		fprintf(stderr, "replay_mktrace: %s\n", reel_strerror(err));
		return 1;
	}
	return 0;
}
