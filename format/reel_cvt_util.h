/* SPDX-License-Identifier: MIT */
/*
 * reel_cvt_util.h - private helpers shared by the converters (reel_info.c, reel_dump.c,
 * reel_strace.c, reel_fio.c, capture/'s event converter, and the report's JSON): a small
 * u64-keyed hash map, errno names, UTF-8 and string quoting for JSON and CSV, which ops move
 * data in which direction, and the /proc paths that name an fd's file.
 */
#ifndef IOREEL_REEL_CVT_UTIL_H
#define IOREEL_REEL_CVT_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "reel.h"

/* Open addressing, linear probing; values are u64 (or pointers cast). Never shrinks. */
struct cvt_map {
	uint64_t *keys;
	uint64_t *vals;
	uint8_t *used;
	size_t cap;
	size_t len;
};

void cvt_map__init(struct cvt_map *m);
void cvt_map__free(struct cvt_map *m);
/* Pointer to the value slot of key, or NULL when absent. */
uint64_t *cvt_map__get(const struct cvt_map *m, uint64_t key);
/* Pointer to the value slot of key, inserted as 0 when absent; NULL when out of memory. */
uint64_t *cvt_map__put(struct cvt_map *m, uint64_t key, int *created);
int cvt_map__del(struct cvt_map *m, uint64_t key);
/* Iteration: for (size_t i = 0; cvt_map__next(m, &i, &k, &v); ) */
int cvt_map__next(const struct cvt_map *m, size_t *i, uint64_t *key, uint64_t *val);

static inline uint64_t cvt_key2(uint32_t a, uint32_t b)
{
	return ((uint64_t)a << 32) | b;
}

/* "ENOENT" for 2; NULL when glibc has no name for it. */
const char *cvt_errno_name(int err);
/* 2 for "ENOENT" (also strace's ERESTARTSYS & co.); 0 when unknown. */
int cvt_errno_from_name(const char *name);

/*
 * Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlongs, no surrogates,
 * nothing above U+10FFFF), or 0 when it is not one.
 */
size_t cvt_utf8_len(const unsigned char *p);
/*
 * s as a JSON string with its quotes, or null when s is NULL. Well-formed UTF-8 is written
 * as it is; any other byte B >= 0x80 as \udcBB (surrogateescape: os.fsencode gives B back).
 */
void cvt_json_str(FILE *out, const char *s);
/* s as a CSV field (quoted when it needs it); empty when NULL. */
void cvt_csv_str(FILE *out, const char *s);

/*
 * Data direction of an op: 'r', 'w' or 0. Async ops count by their subop
 * (IOCB_CMD_* / IORING_OP_*), completions only, so that a request counts once.
 */
int cvt_op_dir(const struct reel_op *op, int count_submits);

/*
 * N of "/proc/self/fd/N[/rest]" (or thread-self, or "/proc/PID/fd/N" of the process's own
 * pid), with *rest at what follows N ("" or "/..."); else -1. A process reaches its fd's
 * file through such a path (tar chmods directories through O_PATH fds, open(2) names an
 * O_TMPFILE with linkat of one): a trace names that file, which a replay can reach.
 */
int cvt_proc_fd(const char *path, uint32_t pid, const char **rest);

/* What cvt_proc_link found a path to name (0: none of them). */
enum cvt_link {
	CVT_LINK_FD = 1, /* the file of an fd */
	CVT_LINK_CWD,	 /* the process's working directory */
	CVT_LINK_ROOT,	 /* the process's root ("/", or what chroot made it) */
	CVT_LINK_EXE,	 /* the program it runs: a read of it is a read of that binary */
};

/*
 * The names by which a process reaches another file than the name says, proc(5)'s magic
 * links and the /dev links to them: "/proc/P/fd/N", "/proc/P/cwd", "/proc/P/root" and
 * "/proc/P/exe" (P "self", "thread-self", or the process's own pid; any pid when pid is 0),
 * "/dev/fd/N" and "/dev/stdin", "/dev/stdout", "/dev/stderr" (fds 0-2): each with what
 * follows it ("" or "/...") in *rest, and N in *fd. `tar cf /dev/stdout`, `wc -c /dev/stdin`,
 * `cat /dev/fd/3`, an open of "/proc/self/cwd/x" and a read of "/proc/self/exe" (a program
 * reading what it carries after its code) all do file I/O on a file the name does not say.
 */
enum cvt_link cvt_proc_link(const char *path, uint32_t pid, int *fd, const char **rest);

/*
 * Lexical normalisation of an absolute path, in place: "//", "/./" and "/x/.." removed, as
 * both writers make the paths of a trace (a ".." is not resolved through symlinks: the
 * replay looks the names up as the application did). A relative path is left alone. A ".."
 * that climbs above one of the magic links of cvt_proc_link stays ("/proc/self/cwd/../x",
 * "/proc/self/fd/3/a/../../x" -> "/proc/self/fd/3/../x"): it climbs from the directory the
 * link stands for, whose parent its name does not say (taken out, "/proc/self/x" named
 * another file; capture_conv.c resolves it as the kernel did).
 */
void cvt_normalise_path(char *path);

#endif
