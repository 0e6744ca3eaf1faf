/* SPDX-License-Identifier: MIT */
/* replay_int.h - what the files of replay/ share among themselves; not public. */
#ifndef IOREEL_REPLAY_INT_H
#define IOREEL_REPLAY_INT_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "reel.h"
#include "replay.h"
#include "replay_hash.h"

#define REPLAY_MAX_ROOTS 32

/* ---- replay_map.c: targets, --map rules, resolution beneath a root ---- */

struct replay_root {
	char *dir;  /* realpath */
	int fd;	    /* O_PATH|O_DIRECTORY */
	int lockfd; /* the same directory, flock'ed while the replay holds it */
	/* made by this replay (with its missing parents): the path as given, and the length
	 * of its part that was there; NULL when it was there */
	char *made_dir;
	size_t made;
};

struct replay_rule {
	char *from;
	size_t from_len;
	int glob;
	int root;
	/* glob: the leading parts the pattern matched with traced paths below them
	 * (replay_mapper__learn): directories, each the root itself, not TO/<basename> */
	struct replay_strset dirs;
};

struct replay_mapper {
	struct replay_root roots[REPLAY_MAX_ROOTS];
	int n_roots; /* roots[0] is --target */
	struct replay_rule *rules;
	size_t n_rules;
};

int replay_mapper__init(struct replay_mapper *m, const char *target,
			const struct replay_map_rule *rules, size_t n_rules);
void replay_mapper__free(struct replay_mapper *m);
/* Removes the target and --map directories this replay made, with the parents it made,
 * where they are still empty: a replay refused before preparing leaves nothing behind. */
void replay_mapper__unmake(struct replay_mapper *m);
/* Root index and path relative to it ("." for the root itself); -ENAMETOOLONG, -ENOENT for
 * an empty path (which the ops on it then fail with, as the kernel fails them). */
int replay_mapper__map(const struct replay_mapper *m, const char *path, int *root, char *rel,
		       size_t relsz);
/* Takes note of a traced path before any is mapped: a glob rule's match that has paths
 * below it is a directory, mapped to TO itself (a pattern of pg_wal maps pg_wal/x to TO/x,
 * and pg_wal to TO, not to TO/pg_wal). 0 or -ENOMEM. */
int replay_mapper__learn(struct replay_mapper *m, const char *path);
/* The index of the --map rule that maps path, -1 when none does (it goes under the target). */
int replay_mapper__rule(const struct replay_mapper *m, const char *path);
/* True when the traced path would put the replay onto the traced location itself. */
int replay_mapper__overlaps(const struct replay_mapper *m, const char *path);

/* openat2(rootfd, rel, RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS): fd or -errno (-EXDEV: escape). */
int replay_path__open(int rootfd, const char *rel, int flags, mode_t mode);
/* the same, close-on-exec only when flags has O_CLOEXEC: the replay's fd for an fd of the
 * trace carries that fd's flag, which an execve of the trace acts on (replay_proc.c); the
 * replayer itself never runs a program */
int replay_path__open_as(int rootfd, const char *rel, int flags, mode_t mode);
/* O_PATH fd of rel's parent directory, resolved beneath rootfd; *base = last component. */
int replay_path__parent(int rootfd, const char *rel, const char **base);
/* Paths the replay never touches: /proc, /sys, /dev (not storage). */
int replay_path__is_nonfile(const char *path);

/* replay_linkpath.c: symlink contents by name (see there) */
int replay_linkpath__resolve(const char *link, const char *content, int abs, const char *rest,
			     char *out, size_t sz);
int replay_linkpath__disk(const struct replay_mapper *m, const char *link, const char *content,
			  const char *dest, char *out, size_t sz);

/* ---- replay_exec.c ---- */

/* The op works on its fd (fd ops, fstat via newfstatat/statx AT_EMPTY_PATH, futimens...),
 * not on a path. */
int replay_op__on_fd(const struct reel_op *op);
/* A sendfile to a non-file that failed with its destination's error (EAGAIN of a full
 * socket...): it moved nothing, and is left out as non-file I/O. */
int replay_op__copy_net_err(const struct reel_op *op);

/* ---- replay_fileset.c: what the trace says existed before the capture ---- */

/* REPLAY_F_SYMLINK: a symlink the application only read (readlink) or followed, which existed
 * before the capture: with the content it should have, or (content NULL) a stand-in of the
 * length read */
enum replay_fkind { REPLAY_F_FILE = 1, REPLAY_F_DIR = 2, REPLAY_F_SYMLINK = 3 };

struct replay_fentry {
	char *rel;
	int root;
	int kind;
	int exec;
	uint64_t size; /* a symlink's: the length of its content */
	/* a file the trace opened only with O_DIRECT: its I/O bypasses the page cache, which
	 * the replay's cache state (replay_cache.c) leaves it out of */
	int direct_only;
	char *content; /* a symlink's, when the trace tells it; NULL: a stand-in */
	/* a file's holes, as lseek(SEEK_DATA) found them: nholes (lo, hi) pairs, in order */
	uint64_t *holes;
	size_t nholes;
};

/* an fd open before the capture (or got from a parent) whose name is removed or replaced
 * before the fd's first use: opened by that name before the replay's time 0 */
struct replay_early_fd {
	uint32_t pid;
	int32_t fd;
	int root;
	char *rel;
};

struct replay_fileset {
	struct replay_fentry *e;
	size_t n, cap;
	struct replay_early_fd *early;
	size_t nearly;
	uint64_t refused; /* paths not prepared: they lead out of the target (refused__count) */
	struct replay_strset refused_rel; /* theirs, the directories above them included */
	uint64_t too_long; /* paths not prepared: longer than PATH_MAX under their target */
	/* files prepared empty that the application removes, renames away or replaces, and
	 * whose size before the capture the trace does not say */
	uint64_t unsized_gone;
	int mutates;	  /* creates, deletes, renames or truncates: target changes */
	int symlinks;	  /* the trace makes symlinks, or symlinks are prepared */
	/* a getdents64 whose op carries no directory name: the replay names the fds' files */
	int unnamed_listings;
	/* ops on an fd that carry no path where the fd's open named one (FORMAT.md lets a
	 * writer leave them out): the replay names the fds' files for their data order too */
	int unnamed_fd_ops;
	uint64_t nops;
	struct reel_damage_sum damage; /* of the trace, when nops is 0: why */
	uint64_t first_start_ns;
	uint64_t last_start_ns;
	uint64_t last_end_ns;
	uint64_t *tids;	   /* pid << 32 | tid, in order of first appearance */
	uint64_t *tid_ops; /* ops of each of tids */
	size_t ntids;
	size_t max_live; /* most threads alive at once, in trace order (first op to last) */
	/* names some op makes, moves or removes as a directory may be (mkdir, rmdir, rename,
	 * symlink), by replay_hash__bytes of the traced path: the replay orders the path ops
	 * below them after those, not only the ops right below */
	struct replay_u64map dirs_changed;
	/* symlinks the trace knows the content of (made by the application, or there before and
	 * readlink'ed), by replay_hash__bytes of the link's traced path: the path id of the
	 * traced path they finally lead to, so that an op that follows one is ordered as an op on
	 * that path too (only those that lead to a path of the trace) */
	struct replay_u64map links_to;
	/* names the trace cuts a file by (truncate, ftruncate, an O_TRUNC open, creat, a
	 * collapsed range), or renames a file to before it is cut by that name, by
	 * replay_hash__bytes: the replay keeps the reads of those files, for the cuts to wait
	 * for them, and of no other; the value: the end of the name's last cut, + 1 */
	struct replay_u64map cut_names;
	char overlap[4096]; /* a traced path the target overlaps, when refused */
	uint64_t *map_hits; /* per --map rule: the trace's paths it maps (those replayed) */
	/* renames from under one --map destination to under another on another file system:
	 * the replay's fail EXDEV; how many, and the first one's names */
	uint64_t cross_renames;
	char *cross_from, *cross_to;
	char identity[512]; /* trace identity + map rules, for the manifest */
};

int replay_fileset__scan(const char *trace, struct replay_mapper *m,
			 struct replay_fileset *fs);
void replay_fileset__free(struct replay_fileset *fs);
/* The size a file is prepared with (root, rel as replay_mapper__map gives them); 0 when it is
 * not prepared as a file (made by the application, a directory, a symlink) */
uint64_t replay_fileset__size(const struct replay_fileset *fs, int root, const char *rel);

/* ---- replay_prepare.c ---- */

struct replay_prep_result {
	int reused;
	uint64_t refused; /* entries leading out of the target (symlinks): not prepared */
	uint64_t files, dirs, bytes;
};

/* Reuses (manifest matches) or wipes and creates the file set under every root. */
int replay_prepare__run(const struct replay_mapper *m, const struct replay_fileset *fs, int fresh,
			struct replay_prep_result *res, char *err, size_t errsz);
/* Marks every root's manifest stale (a replay that mutates the file set starts). */
int replay_prepare__mark_dirty(const struct replay_mapper *m);
/* syncfs, posix_fadvise(DONTNEED) every file, drop_caches when root. */
int replay_prepare__cold(const struct replay_mapper *m, const struct replay_fileset *fs);
/* how much of fs's files the page cache holds now (replay_cache.c) */
void replay_cache__measure(const struct replay_mapper *m, const struct replay_fileset *fs,
			   struct replay_cache_state *st);

/* ---- replay_hist.c is the report's; ours is replay_pctl.c: log-linear histogram ---- */

#define REPLAY_PCTL_SUB 32
#define REPLAY_PCTL_EXP 60
struct replay_pctl {
	uint64_t count;
	uint64_t max;
	double sum;
	uint64_t b[REPLAY_PCTL_EXP * REPLAY_PCTL_SUB];
};
void replay_pctl__add(struct replay_pctl *h, uint64_t v);
void replay_pctl__merge(struct replay_pctl *dst, const struct replay_pctl *src);
uint64_t replay_pctl__at(const struct replay_pctl *h, double q);
void replay_pctl__summary(const struct replay_pctl *h, struct replay_pct *out);

/* ---- how the summary and the progress line count replay_fail_kind ---- */

/* The summary's "outcomes differing from the original": the op ran and ended otherwise. */
static inline int replay_fail__differs(int k)
{
	return k < REPLAY_FAIL_UNKNOWN_FD;
}

/* Its "ops not replayed": the replay could not issue the op, which so has no outcome to
 * differ. REPLAY_FAIL_LENGTH, a length check that saw another length, is neither. */
static inline int replay_fail__not_replayed(int k)
{
	return k >= REPLAY_FAIL_UNKNOWN_FD && k <= REPLAY_FAIL_REFUSED;
}

/* ---- replay_run.c ---- */

int replay_run__replay(const struct replay_opts *o, const struct replay_mapper *m,
		       const struct replay_fileset *fs, struct replay_summary *sum);

/* ---- misc ---- */

uint64_t replay_now_ns(void); /* CLOCK_MONOTONIC */
void replay_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
